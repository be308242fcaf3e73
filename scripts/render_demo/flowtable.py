"""fq's flow table: on-demand garbage collection (gc) and the memory a
qdisc and a million flows take (memory)."""

from render_demo.common import claim, dat, ddir, gnuplot, kv, rows
from render_demo.pcap import read_pcap


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
