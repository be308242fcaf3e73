"""How flows share a bottleneck: fairness among N TCP flows, new flows
first (newflows), and TCP beside an unresponsive UDP flow (unfair)."""

import os
import statistics

from render_demo.common import COLORS, claim, dat, ddir, fmt, gnuplot, ij, jain, kv, mbit, spread


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


def udp_received_mbit(j):
    """Receiver goodput of an iperf3 UDP client's JSON (its end.sum counts
    what was sent; the server's loss report gives what arrived)."""
    end = j["end"]
    if "sum_received" in end:
        return mbit(end["sum_received"]["bits_per_second"])
    s = end["sum"]
    return mbit(s["bits_per_second"] * (1 - s.get("lost_percent", 0) / 100.0))


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


HTB_MBIT = 20  # tests/demo/demo.sh: bottleneck_htb 20mbit
