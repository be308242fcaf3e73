#!/usr/bin/env python3
"""Render the demo's raw data into PNG plots, report.md and a summary table.

    render-demo.py RUNDIR EXPERIMENT...

RUNDIR is a boot-and-test.sh run directory of the tests/demo cases: the
raw data is in RUNDIR/results/data/<experiment>/, each case's log in
RUNDIR/results/logs/demo:<experiment>.log and its verdict in
RUNDIR/verdict.ktap. Writes RUNDIR/plots/ (PNG, the gnuplot scripts and
the .dat files they read), RUNDIR/summary.txt and RUNDIR/report.md, and
prints the summary table. Exit status: 0 when every requested experiment
passed and rendered, 1 otherwise (the report is written either way).
"""
import csv
import json
import math
import os
import re
import statistics
import subprocess
import sys
import traceback

if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
    (sys.stdout if len(sys.argv) > 1 else sys.stderr).write(__doc__)
    sys.exit(0 if len(sys.argv) > 1 else 2)
RUN = sys.argv[1]
EXPS = sys.argv[2:]
DATA = os.path.join(RUN, "results", "data")
PLOTS = os.path.join(RUN, "plots")
os.makedirs(PLOTS, exist_ok=True)


def term():
    """pngcairo when this gnuplot has it, else the libgd png terminal."""
    r = subprocess.run(["gnuplot", "-e", "set terminal pngcairo"], capture_output=True, text=True)
    if r.returncode == 0 and not r.stderr.strip():
        return "pngcairo noenhanced size 900,520 font 'Sans,10'"
    return "png noenhanced size 900,520"


TERM = term()
COLORS = {"before": "#d62728", "after": "#1f77b4", "pfifo": "#d62728", "fq": "#1f77b4",
          "fq-nopacing": "#ff7f0e"}


def gnuplot(name, body):
    """Write plots/NAME.gp (PNG plots/NAME.png) and run it; return the PNG name."""
    gp = os.path.join(PLOTS, name + ".gp")
    with open(gp, "w") as f:
        f.write("set terminal %s\nset output '%s.png'\nset grid\nset key top right\n%s\n"
                % (TERM, name, body))
    r = subprocess.run(["gnuplot", name + ".gp"], cwd=PLOTS, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("gnuplot %s failed: %s" % (gp, r.stderr.strip()[-600:]))
    return name + ".png"


def dat(name, rows):
    """Write plots/NAME (whitespace-separated rows; a blank row = new block)."""
    with open(os.path.join(PLOTS, name), "w") as f:
        for r in rows:
            f.write(" ".join(str(x) for x in r) + "\n")
    return name


def kv(path):
    """key=value lines (several per line allowed) into a dict of strings."""
    d = {}
    with open(path) as f:
        for line in f:
            for k, v in re.findall(r"(\w+)=(\S+)", line):
                d.setdefault(k, v)
    return d


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def ij(path):
    with open(path) as f:
        return json.load(f)


def mbit(bps):
    return float(bps) / 1e6


def pct(v, p):
    """Nearest-rank percentile, as pcapstat and rrlat compute them."""
    v = sorted(v)
    return v[max(0, math.ceil(p * len(v) / 100) - 1)] if v else float("nan")


def fmt(x, spec="%.1f"):
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else spec % x


CLAIMS = []


def claim(text, source, before, after, verdict, why=""):
    """One line of the claims block: a claim of the seeds as measured."""
    CLAIMS.append(dict(text=text, source=source, before=before, after=after, verdict=verdict, why=why))


def ddir(exp, *name):
    return os.path.join(DATA, exp, *name)


# ---------------------------------------------------------------- experiments
# Each returns (setup text, [(metric, before, after)], [png], notes).

def burstiness():
    st, pngs = {}, []
    for m in ("before", "after"):
        st[m] = dict(snd=kv(ddir("burstiness", m + "-snd.stat")),
                     rcv=kv(ddir("burstiness", m + "-rcv.stat")),
                     gp=mbit(ij(ddir("burstiness", m + ".json"))["end"]["sum_received"]["bits_per_second"]),
                     snd_rows=rows(ddir("burstiness", m + "-snd.csv")),
                     rcv_rows=rows(ddir("burstiness", m + "-rcv.csv")))
    # GSO sizes over time at the sender.
    plots = []
    for m in ("before", "after"):
        dat("burst-gso-%s.dat" % m, [(float(r["time_us"]) / 1e6, int(r["len"]) / 1000)
                                      for r in st[m]["snd_rows"]])
        plots.append("'burst-gso-%s.dat' using 1:2 with points pt 7 ps 0.4 lc rgb '%s' title '%s'"
                     % (m, COLORS[m], LABEL["burstiness"][m]))
    pngs.append(gnuplot("burstiness_gso_sizes",
                        "set title 'TSO/GSO packet sizes leaving the sender (veth0, TSO on), one flow at 50 Mbit/s'\n"
                        "set xlabel 'time (s)'\nset ylabel 'GSO packet payload (KB)'\nset yrange [0:70]\n"
                        "plot " + ", ".join(plots)))
    # Receive-side gap histogram on log bins (10 per decade, 1 us .. 1 s).
    plots = []
    for m in ("before", "after"):
        gaps = [float(r["gap_us"]) for r in st[m]["rcv_rows"] if r["gap_us"]]
        bins = [0] * 61
        for g in gaps:
            bins[min(60, max(0, int(math.floor(10 * math.log10(max(g, 1.0))))))] += 1
        n = max(1, len(gaps))
        dat("burst-gaphist-%s.dat" % m, [(10 ** (k / 10), 100.0 * c / n) for k, c in enumerate(bins)])
        plots.append("'burst-gaphist-%s.dat' using 1:2 with histeps lw 2 lc rgb '%s' title '%s'"
                     % (m, COLORS[m], LABEL["burstiness"][m]))
    pngs.append(gnuplot("burstiness_gap_histogram",
                        "set title 'Gaps between consecutive packets at the receiver (veth1, GRO off)'\n"
                        "set logscale x\nset format x '%g'\nset xrange [1:1e6]\n"
                        "set xlabel 'inter-packet gap (us)'\nset ylabel '% of gaps'\n"
                        "plot " + ", ".join(plots)))
    # Receive-side time series: bytes per 1 ms and gaps, 200 ms from t=3 s.
    w0, w1 = 3000.0, 3200.0
    top, bottom = [], []
    for m in ("before", "after"):
        per_ms = {}
        gaps = []
        for r in st[m]["rcv_rows"]:
            t = float(r["time_us"]) / 1000
            if w0 <= t < w1:
                per_ms[int(t)] = per_ms.get(int(t), 0) + int(r["len"])
                if r["gap_us"]:
                    gaps.append((t - w0, max(float(r["gap_us"]), 0.5)))
        dat("burst-perms-%s.dat" % m, [(k - w0 + 0.5, per_ms.get(k, 0) / 1000)
                                        for k in range(int(w0), int(w1))])
        dat("burst-gapts-%s.dat" % m, gaps)
        top.append("'burst-perms-%s.dat' using 1:2 with impulses lw 2 lc rgb '%s' title '%s'"
                   % (m, COLORS[m], LABEL["burstiness"][m]))
        bottom.append("'burst-gapts-%s.dat' using 1:2 with points pt 7 ps 0.4 lc rgb '%s' title '%s'"
                      % (m, COLORS[m], LABEL["burstiness"][m]))
    pngs.append(gnuplot("burstiness_rcv_timeseries",
                        "set terminal %s size 900,760\nset output 'burstiness_rcv_timeseries.png'\n"
                        "set multiplot layout 2,1\n"
                        "set title 'Receiver: payload bytes per 1 ms (200 ms from t = 3 s)'\n"
                        "set xlabel 'time (ms)'\nset ylabel 'KB per ms'\nset xrange [0:200]\n"
                        "plot %s\n"
                        "set title 'Receiver: gap before each packet'\nset logscale y\n"
                        "set ylabel 'gap (us)'\nset format y '%%g'\nplot %s\nunset multiplot"
                        % (TERM.replace("size 900,520", ""), ", ".join(top), ", ".join(bottom))))

    def per_s(m, key):
        return int(st[m]["snd"][key])
    b, a = st["before"], st["after"]
    table = [
        ("GSO size at sender, median (B)", b["snd"]["len_median"], a["snd"]["len_median"]),
        ("GSO size at sender, max (B)", b["snd"]["len_max"], a["snd"]["len_max"]),
        ("share of bytes sent in GSO packets >= 32 KB", fmt(big_share(b["snd_rows"]), "%.0f%%"),
         fmt(big_share(a["snd_rows"]), "%.0f%%")),
        ("GSO packets per second", fmt(per_s("before", "data_packets") / max(1e-9, per_s("before", "duration_us") / 1e6), "%.0f"),
         fmt(per_s("after", "data_packets") / max(1e-9, per_s("after", "duration_us") / 1e6), "%.0f")),
        ("receiver: largest burst in 1 ms (B)", b["rcv"]["burst_max_bytes"], a["rcv"]["burst_max_bytes"]),
        ("receiver gap p10 / median / p90 (us)",
         "%s / %s / %s" % (b["rcv"]["gap_p10_us"], b["rcv"]["gap_median_us"], b["rcv"]["gap_p90_us"]),
         "%s / %s / %s" % (a["rcv"]["gap_p10_us"], a["rcv"]["gap_median_us"], a["rcv"]["gap_p90_us"])),
        ("goodput (Mbit/s)", fmt(b["gp"], "%.1f"), fmt(a["gp"], "%.1f")),
        ("fq: throttled / unthrottle latency (timer lateness)", "-", fq_latency(ddir("burstiness", "after-qdisc.txt"))),
    ]
    bm, am = int(b["snd"]["len_median"]), int(a["snd"]["len_median"])
    ms = 50e6 / 8 / 1000  # bytes in 1 ms at the flow's 50 Mbit/s
    claim("TSO packets sized to ~1 ms of data at low rates (one flow at 50 Mbit/s: %.0f B per ms)" % ms, "001",
          "median GSO %d B (tcp_min_tso_segs=44)" % bm, "median GSO %d B" % am,
          "reproduced" if am <= 2 * ms and am * 2 <= bm else "NOT reproduced",
          "after: at most 2 ms of data and half of before")
    return table, pngs


def fq_latency(path):
    """fq's throttled count and mean unthrottle latency from `tc -s qdisc show`."""
    text = open(path).read()
    thr = re.search(r"highprio \d+ throttled (\d+)", text)
    lat = re.search(r"latency (\S+)", text)
    return "%s / %s" % (thr.group(1) if thr else "?", lat.group(1) if lat else "0 (not printed)")


def big_share(rr, size=32768):
    total = sum(int(r["len"]) for r in rr)
    return 100.0 * sum(int(r["len"]) for r in rr if int(r["len"]) >= size) / total if total else float("nan")


def split_transactions(pkts, size):
    """Response departures (time_us, len) by response: sequence k*size.. of
    the server's stream; a segment whose bytes were all sent before
    (a retransmission) is left out and counted."""
    out, sent, rtx = {}, 0, 0
    for t, seq, ln in pkts:
        if seq + ln <= sent:
            rtx += 1
            continue
        sent = max(sent, seq + ln)
        out.setdefault(seq // size, []).append((t * 1e6, ln))
    return out, rtx


def max_window(pk, window_us=1000.0):
    best, j, run = 0, 0, 0
    for i in range(len(pk)):
        while j < len(pk) and pk[j][0] - pk[i][0] < window_us:
            run += pk[j][1]
            j += 1
        best = max(best, run)
        run -= pk[i][1]
    return best


def spacing():
    size, res, plots = 200000, {}, []
    for q in ("pfifo", "fq"):
        tr, rtx = split_transactions(read_tcp_data(ddir("spacing", q + "-snd.pcap")), size)
        full = [k for k in sorted(tr) if sum(x[1] for x in tr[k]) >= size]
        steady = [k for k in full if k >= 5] or full
        res[q] = dict(
            rr=kv(ddir("spacing", q + "-rr.txt")),
            dur=statistics.median((tr[k][-1][0] - tr[k][0][0]) / 1000 for k in steady),
            burst=statistics.median(max_window(tr[k]) for k in steady),
            pkts=statistics.median(len(tr[k]) for k in steady),
            n=len(full), rtx=rtx)
        # The response of median duration: representative, not a TCG stall.
        k = sorted(steady, key=lambda k: tr[k][-1][0] - tr[k][0][0])[len(steady) // 2]
        t0, cum, pts = tr[k][0][0], 0, []
        for t, ln in tr[k]:
            pts.append(((t - t0) / 1000, cum / 1000, (cum + ln) / 1000))
            cum += ln
        res[q]["k"] = k
        dat("spacing-%s.dat" % q, pts)
        plots.append("'spacing-%s.dat' using 1:2:(0):($3-$2) with vectors nohead lw 3 lc rgb '%s' title '%s (response #%d, of median duration)', "
                     "'' using 1:3 with steps lw 1 lc rgb '%s' notitle"
                     % (q, COLORS[q], q, k, COLORS[q]))
    png = gnuplot("spacing_departures",
                  "set title 'Departures of one 200 KB response at the sender (TCP_RR 200000,200000; 100 Mbit/s bottleneck after it)'\n"
                  "set xlabel 'time since the first segment of the response (ms)'\n"
                  "set ylabel 'response bytes sent (KB)'\nset key bottom right\nset yrange [0:210]\n"
                  "plot " + ", ".join(plots))
    p, f = res["pfifo"], res["fq"]
    claim("nicely spaced packets: no burst for a 200 KB TCP_RR response (cwnd big, ~100 Mbit/s bottleneck)", "002",
          "largest 1 ms burst %.1f KB (pfifo)" % (p["burst"] / 1000), "%.1f KB (fq)" % (f["burst"] / 1000),
          "reproduced" if f["burst"] * 2 <= p["burst"] else "NOT reproduced", "fq's burst at most half of pfifo's")
    table = [
        ("complete responses captured (of 30); retransmitted segments", "%d; %d" % (p["n"], p["rtx"]),
         "%d; %d" % (f["n"], f["rtx"])),
        ("200 KB response: GSO packets (median)", fmt(p["pkts"], "%.0f"), fmt(f["pkts"], "%.0f")),
        ("200 KB response: largest 1 ms burst (KB)", fmt(p["burst"] / 1000), fmt(f["burst"] / 1000)),
        ("200 KB response: first to last segment (ms)", fmt(p["dur"], "%.2f"), fmt(f["dur"], "%.2f")),
        ("transaction time p50 / p99 (ms)",
         "%s / %s" % (fmt(float(p["rr"]["p50_us"]) / 1000), fmt(float(p["rr"]["p99_us"]) / 1000)),
         "%s / %s" % (fmt(float(f["rr"]["p50_us"]) / 1000), fmt(float(f["rr"]["p99_us"]) / 1000))),
    ]
    return table, [png]


def jain(x):
    return sum(x) ** 2 / (len(x) * sum(v * v for v in x)) if x and any(x) else float("nan")


def fairness():
    ns, res = (1, 2, 4, 8, 16), {}
    for q in ("pfifo", "fq"):
        for n in ns:
            path = ddir("fairness", "%s-%d.json" % (q, n))
            if not os.path.exists(path):
                continue
            j = ij(path)
            flows = [mbit(s["receiver"]["bits_per_second"]) for s in j["end"]["streams"]]
            res[(q, n)] = dict(flows=flows, jain=jain(flows), total=sum(flows))
    pngs, plots = [], []
    for q in ("pfifo", "fq"):
        dat("fair-jain-%s.dat" % q, [(n, res[(q, n)]["jain"]) for n in ns if (q, n) in res])
        plots.append("'fair-jain-%s.dat' using 1:2 with linespoints lw 2 pt 7 lc rgb '%s' title '%s leaf'"
                     % (q, COLORS[q], q))
    pngs.append(gnuplot("fairness_jain",
                        "set title \"Jain's fairness index of N bulk flows behind a 20 Mbit/s htb\"\n"
                        "set logscale x 2\nset xtics (1,2,4,8,16)\nset xrange [0.8:20]\nset yrange [0.5:1.02]\n"
                        "set xlabel 'flows (N)'\nset ylabel \"Jain's index (1 = equal shares)\"\nset key bottom left\n"
                        "plot " + ", ".join(plots)))
    plots = []
    for i, q in enumerate(("pfifo", "fq")):
        if (q, 16) in res:
            dat("fair-flows16-%s.dat" % q, [(k + 1 + (i - 0.5) * 0.38, v)
                                             for k, v in enumerate(sorted(res[(q, 16)]["flows"], reverse=True))])
            plots.append("'fair-flows16-%s.dat' using 1:2 with boxes fs solid 0.7 lc rgb '%s' title '%s leaf'"
                         % (q, COLORS[q], q))
    if plots:
        pngs.append(gnuplot("fairness_flows16",
                            "set title 'Goodput of each of 16 bulk flows (20 Mbit/s htb; fair share 1.25 Mbit/s)'\n"
                            "set boxwidth 0.36\nset xrange [0:17]\nset xtics 1\nset yrange [0:*]\n"
                            "set xlabel 'flow (sorted by goodput)'\nset ylabel 'goodput (Mbit/s)'\n"
                            "plot " + ", ".join(plots)))

    def cell(q, key, spec):
        return " ".join(fmt(res[(q, n)][key], spec) if (q, n) in res else "-" for n in ns)
    table = [
        ("Jain's index, N = 1 2 4 8 16", cell("pfifo", "jain", "%.3f"), cell("fq", "jain", "%.3f")),
        ("total goodput, N = 1 2 4 8 16 (Mbit/s)", cell("pfifo", "total", "%.1f"), cell("fq", "total", "%.1f")),
    ]
    low = {q: ",".join(str(n) for n in ns if (q, n) in res and res[(q, n)]["total"] < 0.8 * HTB_MBIT)
           for q in ("pfifo", "fq")}
    if any(low.values()):
        table.append(("N with bottleneck NOT full (<80%, CPU-bound)", low["pfifo"] or "none",
                      low["fq"] or "none"))
    if ("pfifo", 16) in res and ("fq", 16) in res:
        table.append(("N=16: slowest / fastest flow (Mbit/s)",
                      "%.2f / %.2f" % (min(res[("pfifo", 16)]["flows"]), max(res[("pfifo", 16)]["flows"])),
                      "%.2f / %.2f" % (min(res[("fq", 16)]["flows"]), max(res[("fq", 16)]["flows"]))))
    return table, pngs


def newflows():
    res = {}
    for q in ("pfifo", "fq"):
        for phase in ("idle", "loaded"):
            res[(q, phase)] = kv(ddir("newflows", "%s-%s.txt" % (q, phase)))
        res[(q, "bulk")] = mbit(ij(ddir("newflows", q + "-bulk.json"))["end"]["sum_received"]["bits_per_second"])
    pts = []
    for i, (q, phase) in enumerate((("pfifo", "idle"), ("fq", "idle"), ("pfifo", "loaded"), ("fq", "loaded"))):
        r = res[(q, phase)]
        pts.append(('"%s, %s"' % (q, "idle" if phase == "idle" else "8 bulk flows"),
                    float(r["p50_us"]) / 1000, float(r["p99_us"]) / 1000))
    dat("newflows.dat", pts)
    png = gnuplot("newflows_latency",
                  "set title 'Request/response (64 B / 1000 B) time, idle and with 8 bulk flows (20 Mbit/s htb, 10 ms RTT)'\n"
                  "set style data histogram\nset style histogram cluster gap 1\nset style fill solid 0.8\n"
                  "set boxwidth 0.9\nset logscale y\nset yrange [1:*]\nset ylabel 'ms (log scale)'\nset key top left\n"
                  "plot 'newflows.dat' using 2:xtic(1) lc rgb '#2ca02c' title 'p50', '' using 3 lc rgb '#9467bd' title 'p99'")

    def lat(q, phase):
        r = res[(q, phase)]
        return "%s / %s" % (fmt(float(r["p50_us"]) / 1000), fmt(float(r["p99_us"]) / 1000))
    table = [
        ("RR p50 / p99 idle (ms)", lat("pfifo", "idle"), lat("fq", "idle")),
        ("RR p50 / p99 with 8 bulk flows (ms)", lat("pfifo", "loaded"), lat("fq", "loaded")),
        ("transactions under load", res[("pfifo", "loaded")].get("n", "-"), res[("fq", "loaded")].get("n", "-")),
        ("bulk goodput, 8 flows (Mbit/s)", fmt(res[("pfifo", "bulk")]), fmt(res[("fq", "bulk")])),
    ]
    lp, lf = float(res[("pfifo", "loaded")]["p50_us"]), float(res[("fq", "loaded")]["p50_us"])
    claim("new flows served first (new_flow/old_flow separation from fq_codel): request/response beside 8 bulk flows",
          "002", "p50 %.1f ms (pfifo leaf)" % (lp / 1000), "p50 %.1f ms (fq leaf)" % (lf / 1000),
          "reproduced" if lf * 2 <= lp else "NOT reproduced", "fq's median at most half of pfifo's")
    for q in ("pfifo", "fq"):
        if res[(q, "bulk")] < 0.8 * HTB_MBIT:
            table.append(("%s: bottleneck NOT full (< 80%% of %d Mbit/s)" % (q, HTB_MBIT),
                          "CPU-bound under TCG", ""))
    return table, [png]


def pcap_records(path):
    """(time_s, frame bytes) of each record of a pcap (us or ns timestamps)."""
    import struct
    with open(path, "rb") as f:
        data = f.read()
    for endian in ("<", ">"):
        m = struct.unpack(endian + "I", data[:4])[0]
        if m in (0xa1b2c3d4, 0xa1b23c4d):
            div = 1e6 if m == 0xa1b2c3d4 else 1e9
            break
    else:
        raise ValueError("%s is not a pcap file" % path)
    off = 24
    while off + 16 <= len(data):
        sec, frac, caplen, _ = struct.unpack(endian + "IIII", data[off:off + 16])
        yield sec + frac / div, data[off + 16:off + 16 + caplen]
        off += 16 + caplen


def ipv4(p, proto):
    """Offset of the L4 header of an Ethernet/IPv4 frame carrying PROTO, or None."""
    if len(p) >= 34 and p[12:14] == b"\x08\x00" and p[23] == proto:
        return 14 + (p[14] & 0xf) * 4
    return None


def read_pcap(path):
    """(time_s, udp_dport) of each IPv4 UDP packet of an Ethernet pcap."""
    import struct
    out = []
    for t, p in pcap_records(path):
        l4 = ipv4(p, 17)
        if l4 is not None and len(p) >= l4 + 4:
            out.append((t, struct.unpack(">H", p[l4 + 2:l4 + 4])[0]))
    return out


def read_tcp_data(path):
    """(time_s, relative seq, payload len) of each IPv4 TCP data packet."""
    import struct
    out, base = [], None
    for t, p in pcap_records(path):
        l4 = ipv4(p, 6)
        if l4 is None or len(p) < l4 + 13:
            continue
        iplen = struct.unpack(">H", p[16:18])[0]
        ln = iplen - (l4 - 14) - (p[l4 + 12] >> 4) * 4
        if ln <= 0:
            continue
        seq = struct.unpack(">I", p[l4 + 4:l4 + 8])[0]
        base = seq if base is None else base
        out.append((t, (seq - base) % (1 << 32), ln))
    return out


def gc():
    pk = read_pcap(ddir("gc", "udp.pcap"))
    burst = [t for t, port in pk if 20000 <= port < 30000]
    new_first = {}
    last = {}
    for t, port in pk:
        last[port] = t
        if port >= 40000:
            new_first.setdefault(port, t)
    if not burst:
        raise ValueError("no packets of the 10k burst in the capture")
    t0, t1 = min(burst), max(burst)
    idle_at = sorted(last.values())        # each flow's last packet
    new_at = sorted(new_first.values())

    def count_le(v, x):
        lo, hi = 0, len(v)
        while lo < hi:
            mid = (lo + hi) // 2
            if v[mid] <= x:
                lo = mid + 1
            else:
                hi = mid
        return lo
    sm = [r for r in rows(ddir("gc", "samples.csv")) if r["flows"] not in ("", None)]
    pts = []
    for r in sm:
        t = float(r["time"])
        pts.append((t - t0, int(r["flows"]), int(r["gc_flows"] or 0),
                    count_le(idle_at, t - 3.0), count_le(new_at, t)))
    dat("gc.dat", pts)
    marks = [(0.0, "first packet of the 10k burst"), (t1 - t0, "last packet of the burst"),
             (3.0, "3 s after the first packet of the burst")]
    arrows = "".join("set arrow from %.2f, graph 0 to %.2f, graph 1 nohead dt 2 lc rgb 'gray40'\n"
                     "set label '%s' at %.2f, graph 0.98 rotate by 90 right font ',8'\n"
                     % (x, x, w, x + 0.15) for x, w in marks)
    png = gnuplot("gc_flows",
                  "set title 'fq flow table: 10k one-packet UDP flows while new one-packet flows arrive at 500/s'\n"
                  "set xlabel 'time since the first packet of the 10k burst (s)'\nset ylabel 'flows'\n"
                  "set key below\n" + arrows +
                  "plot 'gc.dat' using 1:2 with linespoints pt 7 ps 0.5 lw 2 lc rgb '#1f77b4' title 'flows (tc)', "
                  "'' using 1:3 with linespoints pt 5 ps 0.5 lw 2 lc rgb '#d62728' title 'gc_flows: collected (tc)', "
                  "'' using 1:4 with lines dt 2 lw 2 lc rgb '#ff7f0e' title 'flows idle >= 3 s (from the capture)', "
                  "'' using 1:5 with lines dt 3 lw 2 lc rgb '#2ca02c' title 'new flows started (capture)'")
    first_gc = next((p for p in pts if p[2] > 0), None)
    before = [p for p in pts if p[2] == 0 and p[4] > 0 and p[0] > 0]
    peak = max(pts, key=lambda p: p[1])
    table = [
        ("10k burst: first to last packet (s)", "%.2f" % (t1 - t0), ""),
        ("peak flows (at t, s)", "%d (t=%.1f)" % (peak[1], peak[0]), ""),
        ("new flows seen before any collection", str(max((p[4] for p in before), default=0)), ""),
        ("first sample with gc_flows > 0: t (s); flows idle >= 3 s then",
         "%.1f; %d" % (first_gc[0], first_gc[3]) if first_gc else "never", ""),
        ("at the end: flows / gc_flows / idle >= 3 s", "%d / %d / %d" % (pts[-1][1], pts[-1][2], pts[-1][3]), ""),
    ]
    if peak[1] == 0:
        verdict = "not measured (fq made no flow)"
    elif first_gc and first_gc[0] >= 2.5 and pts[-1][2] >= peak[1] / 2:
        verdict = "reproduced"
    else:
        verdict = "NOT reproduced"
    claim("smart on demand gc: enqueue-time lookups evict flows unused for 3 s", "002",
          "peak %d flows" % peak[1], "%d flows at the end, %d collected" % (pts[-1][1], pts[-1][2]),
          verdict, "nothing collected before ~3 s, then at least half the peak collected")
    return table, [png]


def runs_of(exp, pattern):
    """Receiver goodput (Mbit/s) and retransmits of each run's iperf3 JSON,
    pattern % run for run = 1, 2, ... while the files exist."""
    out, r = [], 1
    while os.path.exists(ddir(exp, pattern % r)):
        j = ij(ddir(exp, pattern % r))
        out.append((mbit(j["end"]["sum_received"]["bits_per_second"]), j["end"]["sum_sent"].get("retransmits", 0)))
        r += 1
    return out


def compare_runs(label, before, after, claim_text, source):
    """A table row and a claim line for before/after run lists."""
    if not before or not after:
        raise ValueError("no runs for %s" % label)
    gb, ga = spread([g for g, _ in before]), spread([g for g, _ in after])
    rb, ra = statistics.median(r for _, r in before), statistics.median(r for _, r in after)
    row = ("%s: goodput median (min-max), Mbit/s; retransmits" % label,
           "%.1f (%.1f-%.1f); %d" % (gb + (rb,)), "%.1f (%.1f-%.1f); %d" % (ga + (ra,)))
    if ga[1] > gb[2]:
        verdict = "reproduced"
    elif ga[2] < gb[1]:
        verdict = "NOT reproduced (worse)"
    else:
        verdict = "NOT reproduced (ranges overlap)"
    claim(claim_text, source, "%.1f Mbit/s (%.1f-%.1f), %d retransmits" % (gb + (rb,)),
          "%.1f Mbit/s (%.1f-%.1f), %d retransmits" % (ga + (ra,)), verdict,
          "%d runs each: every after run above every before run" % min(len(before), len(after)))
    return row, gb[0], ga[0]


def runs_spread(v, spec):
    """'median (min-max)' of a list of numbers, in SPEC."""
    return ("%s (%s-%s)" % (spec, spec, spec)) % spread(v) if v else "-"


def regime_plot(name, title, groups):
    """plots/NAME.png: goodput (left) and retransmits (right), before and
    after, median with min-max bars, one cluster per group; GROUPS is
    [(label, [(goodput, retransmits)] before, [...] after)]."""
    for k, what in ((0, "goodput"), (1, "retrans")):
        rows_ = []
        for label, b, a in groups:
            rows_.append(('"%s"' % label,) + tuple(
                "%.2f %.2f %.2f" % spread([x[k] for x in runs]) for runs in (b, a)))
        dat("%s-%s.dat" % (name, what), rows_)
    t = TERM.replace("size 900,520", "size 1100,480")
    body = ("set terminal %s\nset output '%s.png'\nset multiplot layout 1,2 title '%s'\n"
            "set style data histogram\nset style histogram errorbars gap 1 lw 1\nset style fill solid 0.8\n"
            "set boxwidth 0.9\nset yrange [0:*]\nset xtics rotate by -20\nset key below\n" % (t, name, title))
    for what, ylabel in (("goodput", "goodput (Mbit/s), median and min-max"),
                         ("retrans", "retransmitted segments, median and min-max")):
        body += ("set ylabel '%s'\nplot '%s-%s.dat' using 2:3:4:xtic(1) lc rgb '%s' title 'before: pfifo, tcp_min_tso_segs=44', "
                 "'' using 5:6:7 lc rgb '%s' title 'after: fq, default'\n"
                 % (ylabel, name, what, COLORS["before"], COLORS["after"]))
    return gnuplot(name, body + "unset multiplot")


def lossy():
    table, groups = [], []
    for loss in ("0.1", "1"):
        before = runs_of("lossy", "before-loss%s-%%d.json" % loss)
        after = runs_of("lossy", "after-loss%s-%%d.json" % loss)
        row, _, _ = compare_runs(
            "%s%% loss" % loss, before, after,
            "TSO autosizing and pacing increase TCP performance in lossy environments: %s%% random loss "
            "(50 ms RTT, 100 Mbit/s), the regime where pacing is not expected to matter (a random drop "
            "does not depend on the spacing)" % loss, "001")
        table.append(row)
        groups.append(("%s%% random loss" % loss, before, after))
    return table, [regime_plot("lossy_goodput", "random loss (netem), cubic, 50 ms RTT, 100 Mbit/s", groups)]


MSS = 1448  # 1500 B MTU less IP, TCP and timestamp option headers


def ack_sizes(path):
    """Segments (bytes / MSS) that each ACK advancing snd_una acknowledged,
    for the connection with the most ACKs in PATH (the data connection,
    not iperf3's control one)."""
    import struct
    by = {}
    for _, p in pcap_records(path):
        l4 = ipv4(p, 6)
        if l4 is not None and len(p) >= l4 + 12:
            by.setdefault(p[l4 + 2:l4 + 4], []).append(struct.unpack(">I", p[l4 + 8:l4 + 12])[0])
    acks = max(by.values(), key=len) if by else []
    out = []
    for a, b in zip(acks, acks[1:]):
        d = (b - a) % (1 << 32)
        if 0 < d < (1 << 31):
            out.append(d / MSS)
    return out


def ack_cell(sizes):
    """'median / p90 (share > 2)' of the segments per ACK."""
    if not sizes:
        return "-"
    return "%.1f / %.1f (%.0f%% > 2)" % (pct(sizes, 50), pct(sizes, 90),
                                         100.0 * sum(1 for x in sizes if x > 2.05) / len(sizes))


def burst_runs(exp, tag, mode):
    """The runs of one point: dicts of goodput, retrans, drops, acks (segments
    per ACK), in run order, from DIR/<tag>-<mode>-<run>.json and -path.txt, -acks.pcap."""
    out, r = [], 1
    while os.path.exists(ddir(exp, "%s-%s-%d-path.txt" % (tag, mode, r))):
        f = ddir(exp, "%s-%s-%d" % (tag, mode, r))
        d, dpct = path_drops(f + "-path.txt")
        x = dict(drops=d, drop_pct=dpct, acks=ack_sizes(f + "-acks.pcap"))
        if os.path.exists(f + ".json"):
            j = ij(f + ".json")
            x.update(goodput=mbit(j["end"]["sum_received"]["bits_per_second"]),
                     retrans=j["end"]["sum_sent"].get("retransmits", 0))
        else:  # chunked: the receiver's per-write completion times
            k = kv(f + "-rcv.txt")
            x.update(p50_ms=int(k["p50_us"]) / 1000.0, p99_ms=int(k["p99_us"]) / 1000.0,
                     goodput=8 * 1048576 / int(k["p50_us"]), retrans=int(k["retransmits"]),
                     writes=int(k["bursts"]))
        out.append(x)
        r += 1
    return out


def path_drops(path):
    """(drops, % of the packets that reached the bottleneck) from a policer's
    or a qdisc's tc -s dump: a policer counts every packet it saw as Sent, a
    qdisc only those it passed on."""
    text = open(path).read()
    m = re.search(r"Sent \d+ bytes (\d+) pkt \(dropped (\d+)", text)
    if not m:
        raise ValueError("no drop counter in %s" % path)
    sent, d = int(m.group(1)), int(m.group(2))
    seen = sent if "police" in text else sent + d
    return d, 100.0 * d / seen if seen else float("nan")


def burst_verdict(b, a, key, better):
    """Verdict on KEY: 'reproduced' when every after run is better (BETTER:
    'higher' or 'lower') than every before run and the medians differ by
    more than 3 %; 'worse' the other way; else no difference or overlap."""
    vb, va = [x[key] for x in b], [x[key] for x in a]
    mb, ma = statistics.median(vb), statistics.median(va)
    if abs(ma - mb) <= 0.03 * max(abs(mb), abs(ma)):
        return "NOT reproduced (no difference)"
    up = better == "higher"
    if (min(va) > max(vb)) if up else (max(va) < min(vb)):
        return "reproduced"
    if (max(va) < min(vb)) if up else (min(va) > max(vb)):
        return "NOT reproduced (worse)"
    return "NOT reproduced (ranges overlap)"


BBR_WHY = ("BBR paces itself in both: without fq TCP's internal pacing spaces its packets, and BBR's "
           "min_tso_segs hook replaces tcp_min_tso_segs=44, so 'before' gives it no 64 KB bursts to remove; "
           "its drops come from probing above the bottleneck rate")


def burst_why(b, a, limit, cc="cubic"):
    """Why pacing did not raise goodput, from the numbers."""
    if cc == "bbr":
        return BBR_WHY
    gb, ga = statistics.median(x["goodput"] for x in b), statistics.median(x["goodput"] for x in a)
    db, da = statistics.median(x["drop_pct"] for x in b), statistics.median(x["drop_pct"] for x in a)
    why = []
    if limit and min(gb, ga) >= 0.85 * limit:
        why.append("both reach >= 85%% of the %g Mbit/s bottleneck: SACK recovery repairs the drops "
                   "without a goodput cost" % limit)
    if da >= db:
        why.append("the paced flow loses as large a share (%.2f%% vs %.2f%%): the drops come from cwnd "
                   "overshoot above the bottleneck rate, not from bursts" % (da, db))
    elif not why:
        why.append("the drop share falls (%.2f%% -> %.2f%%) but goodput does not rise with it" % (db, da))
    return "; ".join(why)


def gain_verdict(b, a, key, better, why_not):
    """(verdict, criterion tail) on KEY, with the drop share beside it: a
    gain without a smaller drop share in every run is said so; WHY_NOT()
    explains a point without a gain."""
    verdict = burst_verdict(b, a, key, better)
    dv = burst_verdict(b, a, "drop_pct", "lower")
    if verdict != "reproduced":
        return verdict, "; " + why_not()
    if dv == "reproduced":
        return verdict + "; a smaller drop share in every run", ""
    return ("reproduced for %s, NOT through fewer drops" % ("goodput" if key == "goodput" else "write time"),
            "; the paced flow loses a %s share (%.2f%% vs %.2f%%): its gain is not avoided drops"
            % ("larger" if dv == "NOT reproduced (worse)" else "similar",
               statistics.median(x["drop_pct"] for x in a), statistics.median(x["drop_pct"] for x in b)))


def bulk_regime(exp, ccs, what, limit):
    """Table rows, claims and a plot for a bulk_points experiment."""
    table, groups = [], []
    for cc in ccs:
        b, a = burst_runs(exp, cc, "before"), burst_runs(exp, cc, "after")
        if not b or not a:
            raise ValueError("no %s runs of %s" % (cc, exp))
        n = min(len(b), len(a))

        def cell(runs, key, spec="%.0f"):
            return runs_spread([x[key] for x in runs], spec)
        table += [
            ("%s: goodput, Mbit/s, median (min-max)" % cc, cell(b, "goodput", "%.1f"), cell(a, "goodput", "%.1f")),
            ("%s: retransmitted segments" % cc, cell(b, "retrans"), cell(a, "retrans")),
            ("%s: dropped at the bottleneck" % cc, cell(b, "drops"), cell(a, "drops")),
            ("%s: dropped, %% of the packets at the bottleneck" % cc, cell(b, "drop_pct", "%.2f"),
             cell(a, "drop_pct", "%.2f")),
            ("%s: segments per ACK, median / p90 (share > 2)" % cc,
             ack_cell([s for x in b for s in x["acks"]]), ack_cell([s for x in a for s in x["acks"]])),
        ]
        groups.append((cc, [(x["goodput"], x["retrans"]) for x in b], [(x["goodput"], x["retrans"]) for x in a]))
        verdict, why = gain_verdict(b, a, "goodput", "higher", lambda: burst_why(b, a, limit, cc))
        claim("TSO autosizing and pacing increase TCP performance in lossy environments: %s (%s)" % (what, cc),
              "001", "%s Mbit/s, %s retransmits, %s%% dropped" % (cell(b, "goodput", "%.1f"), cell(b, "retrans"),
                                                                 cell(b, "drop_pct", "%.2f")),
              "%s Mbit/s, %s retransmits, %s%% dropped" % (cell(a, "goodput", "%.1f"), cell(a, "retrans"),
                                                           cell(a, "drop_pct", "%.2f")),
              verdict, "%d runs each: every after run's goodput above every before run's, medians > 3%% apart%s"
              % (n, why))
    return table, [regime_plot(exp + "_goodput_retransmits", what, groups)]


POLICE = "a token-bucket policer (30 Mbit/s, bucket 10 frames), 20 ms RTT"


def police():
    return bulk_regime("police", ("cubic", "bbr"), POLICE + ", receiver GRO off", 30)


def gro():
    return bulk_regime("gro", ("cubic",), POLICE + ", receiver GRO on (stretch ACKs)", 30)


def shallow():
    return bulk_regime("shallow", ("cubic", "bbr"),
                       "a shallow buffer at a rate step (veth to a 20 Mbit/s bottleneck with a 10-packet "
                       "queue, BDP 83), 50 ms RTT, receiver GRO on", 20)


CHUNK_POINTS = (("1", 700), ("0", 700), ("1", 2500), ("0", 2500))  # tests/demo/demo.sh t_chunked


def chunked():
    table, groups = [], []
    for ssai, period in CHUNK_POINTS:
        tag = "ssai%s-i%d" % (ssai, period)
        b, a = burst_runs("chunked", tag, "before"), burst_runs("chunked", tag, "after")
        if not b or not a:
            raise ValueError("no runs every %d ms with tcp_slow_start_after_idle=%s" % (period, ssai))

        def cell(runs, key, spec="%.0f"):
            return runs_spread([x[key] for x in runs], spec)
        p = "every %d ms, slow_start_after_idle=%s: " % (period, ssai)
        table += [
            (p + "1 MB write to last byte, ms, p50 (min-max of the runs)", cell(b, "p50_ms"), cell(a, "p50_ms")),
            (p + "same, p99 (ms)", cell(b, "p99_ms"), cell(a, "p99_ms")),
            (p + "retransmitted segments", cell(b, "retrans"), cell(a, "retrans")),
            (p + "dropped by the policer", cell(b, "drops"), cell(a, "drops")),
            (p + "dropped, % of the packets at the policer", cell(b, "drop_pct", "%.2f"), cell(a, "drop_pct", "%.2f")),
            (p + "runs whose median write finished within the period (then the sender idles)",
             "%d of %d" % (sum(1 for x in b if x["p50_ms"] < period), len(b)),
             "%d of %d" % (sum(1 for x in a if x["p50_ms"] < period), len(a))),
            (p + "segments per ACK, median / p90 (share > 2)",
             ack_cell([s for x in b for s in x["acks"]]), ack_cell([s for x in a for s in x["acks"]])),
        ]
        groups.append(("%d ms, ssai=%s" % (period, ssai), [(x["goodput"], x["retrans"]) for x in b],
                       [(x["goodput"], x["retrans"]) for x in a]))
        verdict, why = gain_verdict(b, a, "p50_ms", "lower", lambda: burst_why(b, a, 0))
        claim("TSO autosizing and pacing increase TCP performance in lossy environments: an application-limited "
              "sender (1 MB every %d ms) behind %s, tcp_slow_start_after_idle=%s (cubic)" % (period, POLICE, ssai),
              "001",
              "p50 %s ms per write, %s retransmits, %s%% dropped" % (cell(b, "p50_ms"), cell(b, "retrans"),
                                                                     cell(b, "drop_pct", "%.2f")),
              "p50 %s ms per write, %s retransmits, %s%% dropped" % (cell(a, "p50_ms"), cell(a, "retrans"),
                                                                     cell(a, "drop_pct", "%.2f")),
              verdict, "%d runs each: every after run's median write time below every before run's, medians > 3%% apart%s"
              % (min(len(b), len(a)), why))
    return table, [regime_plot("chunked_goodput_retransmits",
                               "1 MB writes behind the policer (ssai = tcp_slow_start_after_idle): "
                               "goodput = 1 MB / median write time", groups)]


def udp_received_mbit(j):
    """Receiver goodput of an iperf3 UDP client's JSON (its end.sum counts
    what was sent; the server's loss report gives what arrived)."""
    end = j["end"]
    if "sum_received" in end:
        return mbit(end["sum_received"]["bits_per_second"])
    s = end["sum"]
    return mbit(s["bits_per_second"] * (1 - s.get("lost_percent", 0) / 100.0))


def spread(v):
    """median, min, max of a list of numbers."""
    return statistics.median(v), min(v), max(v)


def unfair():
    res = {}
    for q in ("pfifo", "fq"):
        r = 1
        while os.path.exists(ddir("unfair", "%s-%d-tcp.json" % (q, r))):
            tcp = [mbit(s["receiver"]["bits_per_second"])
                   for s in ij(ddir("unfair", "%s-%d-tcp.json" % (q, r)))["end"]["streams"]]
            udp = udp_received_mbit(ij(ddir("unfair", "%s-%d-udp.json" % (q, r))))
            flows = tcp + [udp]
            res.setdefault(q, []).append(dict(tcp=tcp, udp=udp, jain=jain(flows), share=udp / sum(flows),
                                              total=sum(flows)))
            r += 1
    if not res.get("pfifo") or not res.get("fq"):
        raise ValueError("no complete pfifo and fq runs")
    plots = []
    for i, q in enumerate(("pfifo", "fq")):
        dat("unfair-jain-%s.dat" % q, [(k + 1 + (i - 0.5) * 0.1, x["jain"]) for k, x in enumerate(res[q])])
        plots.append("'unfair-jain-%s.dat' using 1:2 with points pt 7 ps 1.5 lc rgb '%s' title '%s leaf'"
                     % (q, COLORS[q], q))
    pngs = [gnuplot("unfair_jain",
                    "set title \"Jain's index of 4 TCP flows + 1 UDP flow at 30 Mbit/s, 20 Mbit/s htb, each run\"\n"
                    "set xrange [0.5:%d.5]\nset xtics 1\nset yrange [0:1.05]\nset xlabel 'run'\n"
                    "set ylabel \"Jain's index (1 = equal shares, 0.2 = one flow takes all)\"\nset key bottom right\n"
                    "plot %s" % (max(len(res["pfifo"]), len(res["fq"])), ", ".join(plots)))]
    bars = []
    for k in range(4):
        bars.append(('"TCP %d"' % (k + 1),) + tuple(
            "%.2f" % statistics.median(sorted(x["tcp"], reverse=True)[k] for x in res[q]) for q in ("pfifo", "fq")))
    bars.append(('"UDP"',) + tuple("%.2f" % statistics.median(x["udp"] for x in res[q]) for q in ("pfifo", "fq")))
    dat("unfair-flows.dat", bars)
    pngs.append(gnuplot("unfair_flows",
                        "set title 'Median goodput of each flow over the runs (fair share 4 Mbit/s each)'\n"
                        "set style data histogram\nset style histogram cluster gap 1\nset style fill solid 0.8\n"
                        "set boxwidth 0.9\nset yrange [0:*]\nset ylabel 'goodput (Mbit/s)'\n"
                        "plot 'unfair-flows.dat' using 2:xtic(1) lc rgb '%s' title 'pfifo leaf', "
                        "'' using 3 lc rgb '%s' title 'fq leaf'" % (COLORS["pfifo"], COLORS["fq"])))

    def cell(q, key, spec):
        m, lo, hi = spread([x[key] for x in res[q]])
        return ("%s (%s-%s)" % (spec, spec, spec)) % (m, lo, hi)
    table = [
        ("runs", str(len(res["pfifo"])), str(len(res["fq"]))),
        ("Jain's index, 5 flows: median (min-max)", cell("pfifo", "jain", "%.3f"), cell("fq", "jain", "%.3f")),
        ("UDP flow's share of goodput (fair: 0.20)", cell("pfifo", "share", "%.2f"), cell("fq", "share", "%.2f")),
        ("total goodput (Mbit/s)", cell("pfifo", "total", "%.1f"), cell("fq", "total", "%.1f")),
        ("TCP flows, median goodput each (Mbit/s)",
         " ".join(b[1] for b in bars[:4]), " ".join(b[2] for b in bars[:4])),
    ]
    jp, jf = spread([x["jain"] for x in res["pfifo"]]), spread([x["jain"] for x in res["fq"]])
    ok = jf[1] > jp[2] and jf[0] >= 0.9
    claim("fair scheduling of packets from any number of flows (an unresponsive UDP flow beside 4 TCP "
          "flows, %d runs each)" % min(len(res["pfifo"]), len(res["fq"])), "LWN, 002",
          "Jain %.3f (%.3f-%.3f), UDP share %.2f" % (jp + (statistics.median(x["share"] for x in res["pfifo"]),)),
          "Jain %.3f (%.3f-%.3f), UDP share %.2f" % (jf + (statistics.median(x["share"] for x in res["fq"]),)),
          "reproduced" if ok else "NOT reproduced",
          "every fq run fairer than every pfifo run, fq median >= 0.9")
    return table, pngs


def snap(path):
    d = {}
    for line in open(path):
        k, v = line.split()
        d[k] = int(v)
    return d


def memory():
    n = int(open(ddir("memory", "qdiscs")).read())
    base, pf, fq = (snap(ddir("memory", "slab-%s.txt" % s)) for s in ("base", "pfifo", "fq"))
    per_cache = sorted(((k, (fq.get(k, 0) - pf.get(k, 0)) / n) for k in fq if k != "MemFree_kB"),
                       key=lambda kv_: -abs(kv_[1]))
    grown = [(k, v) for k, v in per_cache if abs(v) >= 32]
    slab_total = sum(v for _, v in per_cache)
    free_total = (pf["MemFree_kB"] - fq["MemFree_kB"]) * 1024.0 / n
    held = kv(ddir("memory", "held.txt"))
    flows, osz, growth = int(held["flows"]), int(held["object_bytes"]), int(held["slab_growth"])
    bpf = growth / flows if flows else float("nan")
    table = [
        ("struct fq_flow slab object (B)", "seed: 96; 6.1: 128", str(osz)),
        ("bytes per flow at the peak (slab growth / flows)", "", "%.1f" % bpf),
        ("flows held at once (offered %s)" % held["offered"], "", "%d (%.1f MiB of fq_flow)" % (flows, growth / 1048576.0)),
        ("one idle fq over a pfifo: slab (B per qdisc)", "seed: ~2K", "%.0f" % slab_total),
        ("one idle fq over a pfifo: MemFree (B per qdisc)", "", "%.0f" % free_total),
        ("  of which, by slab cache (B per qdisc)", "", ", ".join("%s %+.0f" % (k, v) for k, v in grown[:4]) or "-"),
    ]
    claim("96 bytes per flow", "002", "6.1: 128 B", "%d B object, %.1f B/flow at %d flows" % (osz, bpf, flows),
          "reproduced" if osz <= 96 else "NOT reproduced", "the fq_flow_cache object size, /proc/slabinfo")
    claim("designed to allow millions of concurrent flows per Qdisc", "002", "",
          "%d flows held at once, %.1f MiB" % (flows, growth / 1048576.0),
          "reproduced (1M)" if flows >= 1000000 else "NOT reproduced", "all offered flows held in one fq")
    claim("~2K per Qdisc", "002", "", "%.0f B (slab), %.0f B (MemFree) beyond a pfifo" % (slab_total, free_total),
          "reproduced" if max(slab_total, free_total) <= 2.5 * 1024 else "NOT reproduced",
          "the 1024-bucket flow table alone is 8 KB" if max(slab_total, free_total) > 2.5 * 1024 else "")
    return table, []


HTB_MBIT = 20  # tests/demo/demo.sh: bottleneck_htb 20mbit
SEED1 = ("pfifo + tcp_min_tso_segs=44", "fq")  # seed 001's before and after (mode_qdisc)
LABEL = {
    "burstiness": {"before": "before: pfifo, tcp_min_tso_segs=44", "after": "after: fq, default sysctl"},
}
EXPERIMENTS = {
    "burstiness": (burstiness, "before: pfifo + tcp_min_tso_segs=44", "after: fq",
                   "One TCP flow with SO_MAX_PACING_RATE 50 Mbit/s (iperf3 --fq-rate 50M), 20 ms RTT, "
                   "6 s. GSO sizes captured on the sender's veth0 (TSO on); gaps and 1 ms bursts on the "
                   "receiver's veth1 (GRO off) after rtr cut the GSO packets to MTU size."),
    "spacing": (spacing, "pfifo", "fq",
                "rrlat 200000/200000 (netperf TCP_RR -r 200000,200000), 30 transactions back to back on one "
                "connection, 5 ms RTT, a 100 Mbit/s netem bottleneck on rtr after the sender's qdisc. "
                "Departures captured on the sender's veth0; statistics over responses 5..29."),
    "fairness": (fairness, "pfifo leaf", "fq leaf",
                 "N = 1, 2, 4, 8, 16 iperf3 streams (-P N, 5 s, first second omitted), 10 ms RTT, "
                 "htb 20 Mbit/s as veth0's root with pfifo or fq as its leaf."),
    "newflows": (newflows, "pfifo leaf", "fq leaf",
                 "rrlat 64 B request / 1000 B response every 10 ms on one connection (server on the "
                 "sender), idle and while 8 iperf3 bulk flows run, 10 ms RTT, htb 20 Mbit/s root with "
                 "pfifo or fq leaf."),
    "gc": (gc, "fq", "",
           "fq root on veth0 (maxrate 10gbit, far above the offered rate, so that every packet goes "
           "through the flow table). 10k connected UDP sockets send one packet each as fast as the guest "
           "can, while 5000 new connected UDP flows send one packet each at 500 flows/s. fq's "
           "flows/gc counters sampled every 0.5 s (tc -s -j qdisc show); the UDP capture on veth0 "
           "gives each flow's last packet, hence how many flows have been idle for 3 s."),
    "unfair": (unfair, "pfifo leaf", "fq leaf",
               "4 TCP cubic flows (iperf3 -P 4) and one unresponsive UDP flow offering 30 Mbit/s "
               "(iperf3 -u -b 30M, 1400 B), 10 s, 10 ms RTT, behind htb 20 Mbit/s as veth0's root with a "
               "pfifo or fq leaf; 5 runs per leaf, alternating. Per-flow receiver goodput."),
    "memory": (memory, "reference", "this kernel",
               "(a) 256 dummy devices get pfifo, then fq with default buckets: slab growth "
               "(/proc/slabinfo) and MemFree per fq beyond a pfifo. (b) fq (limit above 1M, "
               "orphan_mask 2^32-1) as the leaf of an 8 kbit/s tbf, so packets stay queued; pktgen "
               "offers one 64 B packet per distinct 4-tuple, 1,000,400 of them; fq's flows and the "
               "fq_flow_cache growth then."),
    "lossy": (lossy,) + SEED1 + (
              "iperf3 cubic, 8 s (first second omitted), netem loss 0.1% / 1% and rate 100 Mbit/s on rtr "
              "(after the sender cut its GSO packets, so single segments are lost), 50 ms RTT; 5 runs per "
              "point, before and after alternating. Before: big TSO bursts (pfifo, tcp_min_tso_segs=44); "
              "after: TSO autosizing and pacing (fq, default sysctl).",),
    "police": (police,) + SEED1 + (
               "iperf3, 6 s, cubic and BBR, through a token-bucket policer on rtr's ingress (tc police "
               "rate 30mbit burst 15140, a bucket of 10 frames; no queue, what exceeds is dropped), 20 ms RTT, "
               "receiver GRO off. The sender's veth0 cuts GSO packets into "
               "segments after the qdisc. 5 runs per point, before and after alternating; the policer is "
               "re-created before each run, its drops are the run's own. ACKs captured on the sender.",),
    "gro": (gro,) + SEED1 + (
            "As police (cubic only: BBR paces itself, see police), with receiver GRO on: the segments of a burst that passed the policer arrive in one "
            "NAPI poll, GRO merges them and one ACK covers them (segments per ACK from the sender's ACK capture).",),
    "chunked": (chunked,) + SEED1 + (
                "An application-limited sender behind the policer of police, receiver GRO on: one 1 MB write every "
                "700 ms (10 writes) and every 2500 ms (4 writes; long enough for the unpaced sender to idle "
                "too) (tests/src/bursts.c), each timed from its write to its last byte at the "
                "receiver; tcp_slow_start_after_idle 1 (the default: cwnd restarts after an idle longer than "
                "the RTO) and 0 (the full cwnd leaves at once). Cubic, 5 runs per point.",),
    "shallow": (shallow,) + SEED1 + (
                "A shallow buffer at a rate step: the sender's veth (as fast as the guest) into a 20 Mbit/s "
                "netem bottleneck on rtr whose queue holds 10 packets; 50 ms RTT (BDP 83 packets), receiver "
                "GRO on. iperf3 6 s, cubic and BBR, 5 runs per point; queue drops from tc -s.",),
}


def verdicts():
    v = {}
    path = os.path.join(RUN, "verdict.ktap")
    if os.path.exists(path):
        for line in open(path):
            m = re.match(r"^(not )?ok \d+ demo:(\w+)\s*(#.*)?$", line.strip())
            if m:
                v[m.group(2)] = ("failed" if m.group(1) else "ok", (m.group(3) or "").lstrip("# "))
    return v


def meta():
    try:
        return ij(os.path.join(RUN, "metadata.json"))
    except (OSError, ValueError):
        return {}


def main():
    v, md = verdicts(), meta()
    results, failed = [], []
    for exp in EXPS:
        fn, bl, al, setup = EXPERIMENTS[exp]
        status, note = v.get(exp, ("not run", "the guest did not report this case"))
        log = os.path.join(RUN, "results", "logs", "demo:%s.log" % exp)
        table, pngs, err = [], [], ""
        if os.path.isdir(ddir(exp)):
            try:
                table, pngs = fn()
            except Exception as e:  # render what there is; say what is missing
                err = "%s: %s" % (type(e).__name__, e)
                with open(os.path.join(PLOTS, exp + ".render-error.txt"), "w") as f:
                    traceback.print_exc(file=f)
        else:
            err = "no data directory %s" % ddir(exp)
        if status != "ok" or err:
            failed.append(exp)
        results.append(dict(exp=exp, status=status, note=note, log=log, table=table, pngs=pngs,
                            err=err, bl=bl, al=al, setup=setup))

    # Summary table (stdout and summary.txt).
    head = "%s kernel, %s, %s" % (md.get("kernel", "?"), md.get("accel", "?").upper(),
                                   md.get("uname", "").replace("Linux version ", "") or "?")
    w = [12, 46, 26, 26]
    lines = ["fq-pacing demo: " + head, ""]
    lines.append("%-*s %-*s %-*s %s" % (w[0], "experiment", w[1], "metric", w[2], "before / baseline", "after / fq"))
    lines.append("-" * 118)
    for r in results:
        lines.append("%-*s %s  [%s vs %s]" % (w[0], r["exp"], r["status"].upper() if r["status"] != "ok" else "ok",
                                              r["bl"], r["al"] or "-"))
        if r["status"] != "ok":
            lines.append("%-*s   FAILED in the guest (%s); log: %s" % (w[0], "", r["note"], r["log"]))
        if r["err"]:
            lines.append("%-*s   not rendered: %s" % (w[0], "", r["err"]))
        for m, b, a in r["table"]:
            lines.append("%-*s %-*s %-*s %s" % (w[0], "", w[1], m, w[2], b, a))
    if CLAIMS:
        lines += ["", "claims of the seeds (000 = the LWN article, 001 = TSO autosizing, 002 = sch_fq):"]
        for c in CLAIMS:
            lines.append("  [%s] %s (%s)" % (c["verdict"], c["text"], c["source"]))
            lines.append("      before: %s; after: %s%s" % (c["before"] or "-", c["after"],
                                                       ("; criterion: " + c["why"]) if c["why"] else ""))
    lines.append("")
    lines.append("plots: %s" % " ".join(os.path.join("plots", p) for r in results for p in r["pngs"]))
    text = "\n".join(lines)
    print(text)
    with open(os.path.join(RUN, "summary.txt"), "w") as f:
        f.write(text + "\n")

    # report.md
    md_lines = ["# fq-pacing demo", "",
                "Kernel: %s (%s), %s, run directory `%s`, git %s." % (
                    md.get("kernel", "?"), md.get("uname", "?"), md.get("accel", "?").upper(),
                    RUN, md.get("git", "?")),
                "Timing under TCG emulation is noisier and slower than on hardware; rates are kept at "
                "or below 100 Mbit/s so that the guest keeps up.", "",
                "| experiment | status | metric | before / baseline | after / fq |",
                "| --- | --- | --- | --- | --- |"]
    for r in results:
        st = r["status"] if r["status"] == "ok" else "**%s** ([log](%s))" % (r["status"], os.path.relpath(r["log"], RUN))
        if not r["table"]:
            md_lines.append("| %s | %s | %s | | |" % (r["exp"], st, r["err"] or "no data"))
        for i, (m, b, a) in enumerate(r["table"]):
            md_lines.append("| %s | %s | %s | %s | %s |" % (r["exp"] if i == 0 else "", st if i == 0 else "",
                                                          m, b, a))
    if CLAIMS:
        md_lines += ["", "## Claims of the seeds", "",
                     "| claim | source | before / reference | after / this kernel | verdict | criterion |",
                     "| --- | --- | --- | --- | --- | --- |"]
        md_lines += ["| %s | %s | %s | %s | **%s** | %s |" % (c["text"], c["source"], c["before"] or "-", c["after"],
                                                             c["verdict"], c["why"]) for c in CLAIMS]
    for r in results:
        md_lines += ["", "## %s" % r["exp"], "", r["setup"], "",
                     "Compared: **%s** vs **%s**. Status: %s%s. Log: [`%s`](%s). Raw data: [`results/data/%s/`](results/data/%s/)." % (
                         r["bl"], r["al"] or "-", r["status"], (" (%s)" % r["note"]) if r["note"] else "",
                         os.path.relpath(r["log"], RUN), os.path.relpath(r["log"], RUN), r["exp"], r["exp"])]
        if r["err"]:
            md_lines += ["", "Not rendered: %s" % r["err"]]
        for p in r["pngs"]:
            md_lines += ["", "![%s](plots/%s)" % (p, p)]
    with open(os.path.join(RUN, "report.md"), "w") as f:
        f.write("\n".join(md_lines) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
