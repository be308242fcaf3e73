"""When packets leave: TSO burst sizes and gaps at a paced rate
(burstiness), and the spacing of a request/response stream's departures
(spacing)."""

import math
import re
import statistics

from render_demo.common import COLORS, TERM, claim, dat, ddir, fmt, gnuplot, ij, kv, mbit, rows
from render_demo.pcap import read_tcp_data


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
        plots.append(("'burst-gso-%s.dat' using 1:2 with points pt 7 ps 0.4 " % m) + style(m))
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
        plots.append(("'burst-gaphist-%s.dat' using 1:2 with histeps lw 2 " % m) + style(m))
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
        top.append(("'burst-perms-%s.dat' using 1:2 with impulses lw 2 " % m) + style(m))
        bottom.append(("'burst-gapts-%s.dat' using 1:2 with points pt 7 ps 0.4 " % m) + style(m))
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


LABEL = {
    "burstiness": {"before": "before: pfifo, tcp_min_tso_segs=44", "after": "after: fq, default sysctl"},
}


def style(m):
    """A burstiness plot's colour and title for M (before or after)."""
    return "lc rgb '%s' title '%s'" % (COLORS[m], LABEL["burstiness"][m])
