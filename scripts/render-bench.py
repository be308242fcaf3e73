#!/usr/bin/env python3
"""Turn scripts/bench.sh's raw rows into medians, ratios, plots and a table.

usage: render-bench.py RUNDIR

A run with clock=exact in meta.txt (the default under TCG) is rendered by
render_exact(): instructions per packet with fq cost = fq - pfifo, the
spread of every point between boots, and the determinism gate (exit 3 when
a headline point spreads more than GATE); a run under the cache model
(cache_model=1) by render_cache(): the model's table, cache.md. Otherwise
(clock=wall, noisy):

Reads RUNDIR/raw.csv (kernel,rep,workload,variant,metric,value,unit; one
row per measurement per boot) and RUNDIR/meta.txt (key=value), writes
  RUNDIR/summary.csv  per metric: median/min/max/n per kernel, ratio, verdict
  RUNDIR/bench.md     the markdown tables of the run (docs/benchmark.md)
  RUNDIR/plots/*.png  gnuplot: pktgen pps and CPU per packet, TCP, ratios
and prints bench.md. Ratio = patched median / stock median. Each metric has
a direction (higher or lower is better) and, where the project sets one, a
target; the verdict column says whether the target is met.
"""
import csv
import os
import statistics
import subprocess
import sys

# metric -> (better, unit label); "-" = informational, no direction.
DIRECTION = {
    "pps": "higher", "throughput": "higher",
    "cpu_ns_per_pkt": "lower", "timer_irqs_per_s": "lower",
    "late_p50": "lower", "late_p99": "lower", "unthrottle_latency": "lower",
    "bytes_per_flow": "lower", "object_size": "lower",
    "rr_p50": "lower", "rr_p99": "lower",
    "long_gaps": "lower", "fq_drops": "lower",
    "flows": "-", "flows_seen": "-",
}


def target(workload, variant, metric):
    """(limit, goal) on the ratio for the metrics that have a target."""
    if workload == "pktgen" and metric == "pps":
        few = variant.split("-flows")[0] in ("1", "64") and "pacing-off" in variant
        return (1.0, 1.15 if few else None)
    if workload == "paced" and metric in ("cpu_ns_per_pkt", "late_p99"):
        return (1.0, None)
    if workload == "memory" and metric == "bytes_per_flow":
        return (1.0, None)
    return (None, None)


def fmt(v):
    if v is None:
        return "-"
    if abs(v) >= 1000:
        return "%.0f" % v
    if abs(v) >= 10:
        return "%.1f" % v
    return "%.3g" % v


def read_meta(rundir):
    meta = {}
    if os.path.exists(os.path.join(rundir, "meta.txt")):
        for line in open(os.path.join(rundir, "meta.txt")):
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                meta[k] = v
    return meta


def read_raw(rundir):
    """{(workload, variant, metric, unit): {kernel: [values]}} and key order."""
    vals = {}
    order = []
    with open(os.path.join(rundir, "raw.csv")) as f:
        for r in csv.reader(f):
            if len(r) != 7 or r[0] == "kernel":
                continue
            kernel, rep, wl, var, metric, value, unit = r
            try:
                x = float(value)
            except ValueError:
                continue
            key = (wl, var, metric, unit)
            if key not in vals:
                vals[key] = {"stock": [], "patched": []}
                order.append(key)
            vals[key].setdefault(kernel, []).append(x)
    return vals, order


def main():
    if sys.argv[1:] in (["-h"], ["--help"]):
        print(__doc__.strip())
        sys.exit(0)
    if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
        sys.stderr.write(__doc__)
        sys.exit(2)
    rundir = sys.argv[1]
    meta = read_meta(rundir)
    vals, order = read_raw(rundir)
    if meta.get("clock") == "exact":
        sys.exit(render_exact(rundir, meta, vals, order))

    rows = []
    for key in order:
        wl, var, metric, unit = key
        s, p = vals[key]["stock"], vals[key]["patched"]
        sm = statistics.median(s) if s else None
        pm = statistics.median(p) if p else None
        ratio = pm / sm if sm and pm is not None and sm > 0 and pm >= 0 else None
        better = DIRECTION.get(metric, "-")
        limit, goal = target(wl, var, metric)
        verdict = ""
        if ratio is not None and limit is not None:
            # Judged at the precision the table shows: 128.02/128.01 is 1.000.
            r3 = round(ratio, 3)
            ok = r3 >= limit if better == "higher" else r3 <= limit
            verdict = "meets" if ok else "MISSES"
            verdict += " (>=%.2f)" % limit if better == "higher" else " (<=%.2f)" % limit
            if goal is not None:
                verdict += "; goal %.2f %s" % (goal, "met" if r3 >= goal else "not met")
        rows.append(dict(workload=wl, variant=var, metric=metric, unit=unit, better=better,
                         stock_median=sm, stock_min=min(s) if s else None,
                         stock_max=max(s) if s else None, stock_n=len(s),
                         patched_median=pm, patched_min=min(p) if p else None,
                         patched_max=max(p) if p else None, patched_n=len(p),
                         ratio=ratio, verdict=verdict))

    fields = ["workload", "variant", "metric", "unit", "better", "stock_median", "stock_min",
              "stock_max", "stock_n", "patched_median", "patched_min", "patched_max",
              "patched_n", "ratio", "verdict"]
    with open(os.path.join(rundir, "summary.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if r[k] is None else (("%.4g" % r[k]) if isinstance(r[k], float) else r[k]))
                        for k in fields})

    md = []
    md.append("Run %s, %s, wall clock (noisy), %s reps per kernel (alternating), guest %s; %s." % (
        meta.get("date", "?"), meta.get("accel", "?").upper(), meta.get("reps", "?"),
        meta.get("guest", "?"), meta.get("mode", "full")))
    md.append("")
    md.append("| workload | variant | metric | better | stock median [min-max] | series median [min-max] | series/stock | target |")
    md.append("|---|---|---|---|---|---|---|---|")
    for r in rows:
        def cell(k):
            if r[k + "_median"] is None:
                return "-"
            return "%s [%s-%s] %s" % (fmt(r[k + "_median"]), fmt(r[k + "_min"]), fmt(r[k + "_max"]), r["unit"])
        md.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["workload"], r["variant"], r["metric"], r["better"], cell("stock"), cell("patched"),
            "%.3f" % r["ratio"] if r["ratio"] is not None else "n/a", r["verdict"]))
    text = "\n".join(md) + "\n"
    open(os.path.join(rundir, "bench.md"), "w").write(text)
    sys.stdout.write(text)
    plots(rundir, rows)


def plots(rundir, rows):
    pdir = os.path.join(rundir, "plots")
    os.makedirs(pdir, exist_ok=True)
    charts = [
        ("pktgen-pps", "pktgen queue_xmit through fq: packets/s (median, min-max)", "packets/s",
         lambda r: r["workload"] == "pktgen" and r["metric"] == "pps"),
        ("pktgen-cpu", "pktgen through fq: CPU time per packet (all CPUs)", "ns/packet",
         lambda r: r["workload"] == "pktgen" and r["metric"] == "cpu_ns_per_pkt"),
        ("tcp", "TCP through fq over veth: goodput", "Mbit/s",
         lambda r: r["workload"] == "tcp" and r["metric"] == "throughput"),
    ]
    for name, title, ylabel, pick in charts:
        sel = [r for r in rows if pick(r) and r["stock_median"] is not None and r["patched_median"] is not None]
        if not sel:
            continue
        dat = os.path.join(pdir, name + ".dat")
        with open(dat, "w") as f:
            for r in sel:
                f.write('"%s" %g %g %g %g %g %g\n' % (
                    r["variant"].replace("-flows", "f").replace("/pacing-", "/"),
                    r["stock_median"], r["stock_min"], r["stock_max"],
                    r["patched_median"], r["patched_min"], r["patched_max"]))
        gp = f"""set terminal pngcairo size 1100,520 font ",10"
set output "{os.path.join(pdir, name + '.png')}"
set termoption noenhanced
set title "{title}"
set ylabel "{ylabel}"
set style data histogram
set style histogram errorbars gap 1 lw 1
set style fill solid 0.7 border -1
set xtics rotate by -30 scale 0
set yrange [0:*]
set key top right
plot "{dat}" using 2:3:4:xtic(1) title "stock 6.1", '' using 5:6:7 title "series"
"""
        run_gnuplot(gp, name)
    sel = [r for r in rows if r["ratio"] is not None and r["better"] != "-"]
    if sel:
        dat = os.path.join(pdir, "ratios.dat")
        with open(dat, "w") as f:
            for i, r in enumerate(sel):
                r3 = round(r["ratio"], 3)
                good = (r3 >= 1.0) if r["better"] == "higher" else (r3 <= 1.0)
                f.write('%d %g %d "%s %s %s"\n' % (i, min(r["ratio"], 2.0), 0x2CA02C if good else 0xD62728, r["workload"],
                                                   r["variant"].replace("-flows", "f"), r["metric"]))
        gp = f"""set terminal pngcairo size 1200,{max(400, 22 * len(sel) + 120)} font ",9"
set output "{os.path.join(pdir, 'ratios.png')}"
set termoption noenhanced
set title "series / stock (median of each; bars end at 2); green = at least as good, red = worse"
set style fill solid 0.7 border -1
set ytics nomirror
set xlabel "ratio"
set yrange [-1:{len(sel)}]
set xrange [0:2]
set arrow from 1,-1 to 1,{len(sel)} nohead dt 2 lw 2
unset key
plot "{dat}" using 2:1:(0):2:($1-0.35):($1+0.35):3:ytic(4) with boxxyerror lc rgb variable
"""
        run_gnuplot(gp, "ratios")


def run_gnuplot(script, name):
    try:
        subprocess.run(["gnuplot"], input=script.encode(), check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError) as e:
        err = getattr(e, "stderr", b"") or b""
        sys.stderr.write("gnuplot failed for %s: %s %s\n" % (name, e, err.decode(errors="replace")[:400]))


# Exact mode. The determinism gate: (max - min) / median per kernel.
GATE = 0.005
# Headline points: what is measured directly in instructions per packet.
HEADLINE = {("pktgen", "fq_insn"), ("pktgen", "pfifo_insn"),
            ("backlog", "fq_insn"), ("backlog", "pfifo_insn")}


def spread(xs):
    if len(xs) < 2:
        return None
    m = statistics.median(xs)
    return (max(xs) - min(xs)) / abs(m) if m else None


def stats(xs):
    if not xs:
        return None
    return dict(median=statistics.median(xs), min=min(xs), max=max(xs), n=len(xs), spread=spread(xs))


def render_exact(rundir, meta, vals, order):
    """Tables, plots and the gate for an exact-clock run; returns the exit status."""
    if not any(vals[k].get("stock") for k in order):
        return render_next72_only(rundir, meta, vals, order)
    rows = []
    for key in order:
        wl, var, metric, unit = key
        s, p = stats(vals[key]["stock"]), stats(vals[key]["patched"])
        s72 = stats(vals[key].get("stock72", []))
        ratio = p["median"] / s["median"] if s and p and s["median"] > 0 and p["median"] >= 0 else None
        ratio72 = p["median"] / s72["median"] if s72 and p and s72["median"] > 0 and p["median"] >= 0 else None
        head = (wl, metric) in HEADLINE
        flagged = [k for k, st in (("stock", s), ("series", p))
                   if st and st["spread"] is not None and st["spread"] > GATE]
        rows.append(dict(workload=wl, variant=var, metric=metric, unit=unit, stock=s, patched=p,
                         stock72=s72, ratio=ratio, ratio72=ratio72, headline=head, flagged=flagged))

    # stock72: stock 7.2 in a run with --kernels ...,stock72 (empty otherwise).
    fields = ["workload", "variant", "metric", "unit", "headline", "stock_median", "stock_min",
              "stock_max", "stock_n", "stock_spread", "patched_median", "patched_min", "patched_max",
              "patched_n", "patched_spread", "ratio", "flag", "stock72_median", "stock72_min",
              "stock72_max", "stock72_n", "stock72_spread", "ratio72"]
    with open(os.path.join(rundir, "summary.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for r in rows:
            d = dict(workload=r["workload"], variant=r["variant"], metric=r["metric"], unit=r["unit"],
                     headline=int(r["headline"]), ratio="" if r["ratio"] is None else "%.4f" % r["ratio"],
                     ratio72="" if r["ratio72"] is None else "%.4f" % r["ratio72"],
                     flag=" ".join("FLAGGED-" + k for k in r["flagged"]))
            for k in ("stock", "patched", "stock72"):
                st = r[k] or {}
                for x in ("median", "min", "max", "n", "spread"):
                    v = st.get(x)
                    d["%s_%s" % (k, x)] = "" if v is None else ("%.6g" % v if isinstance(v, float) else v)
            w.writerow(d)
    if meta.get("cache_model") == "1":
        return render_cache(rundir, meta)

    get = {(r["workload"], r["variant"], r["metric"]): r for r in rows}

    def med(r, k):
        return r[k]["median"] if r and r[k] else None

    def sp(r, k):
        if not r or not r[k] or r[k]["spread"] is None:
            return "-"
        return "%.2f%%" % (100 * r[k]["spread"])

    def num(v, d=0):
        return "-" if v is None else ("%.*f" % (d, v))

    md = []
    md.append("Run %s, %s, clock exact (-icount shift=0: 1 guest instruction per guest ns), "
              "%s boots per kernel (alternating), guest %s; %s; %s s wall for the whole run." % (
                  meta.get("date", "?"), meta.get("accel", "?").upper(), meta.get("reps", "?"),
                  meta.get("guest", "?"), meta.get("mode", "full"), meta.get("wall_seconds", "?")))
    md.append("")
    md.append("Guest instructions per packet (median of the boots; spread = (max-min)/median over "
              "the boots, largest of the two qdisc points; FLAGGED over %.1f %%). fq cost = fq - pfifo, "
              "through the same pktgen stream in the same boot." % (100 * GATE))
    md.append("")
    md.append("| point | stock fq | stock pfifo | **stock fq cost** | series fq | series pfifo | "
              "**series fq cost** | cost series/stock | spread stock / series |")
    md.append("|---|---|---|---|---|---|---|---|---|")
    points = []
    for r in rows:
        if r["metric"] == "fq_insn" and r["workload"] in ("pktgen", "backlog"):
            points.append((r["workload"], r["variant"]))
    for wl, var in points:
        fq, pf, cost = (get.get((wl, var, m)) for m in ("fq_insn", "pfifo_insn", "fq_cost"))
        cs, cp = med(cost, "stock"), med(cost, "patched")
        flags = []
        for r in (fq, pf):
            if r and r["flagged"]:
                flags.append("%s %s" % (r["metric"].split("_")[0], "/".join(r["flagged"])))

        def worst(k):
            xs = [x[k]["spread"] for x in (fq, pf) if x and x[k] and x[k]["spread"] is not None]
            return "%.2f%%" % (100 * max(xs)) if xs else "-"
        label = var if wl == "pktgen" else "backlog " + var
        md.append("| %s | %s | %s | **%s** | %s | %s | **%s** | %s | %s / %s%s |" % (
            label, num(med(fq, "stock")), num(med(pf, "stock")), num(cs),
            num(med(fq, "patched")), num(med(pf, "patched")), num(cp),
            "%.3f" % (cp / cs) if cs and cp is not None and cs > 0 else "n/a",
            worst("stock"), worst("patched"), (" **FLAGGED: %s**" % ", ".join(flags)) if flags else ""))
    md.append("")
    other = [r for r in rows if r["workload"] not in ("pktgen", "backlog", "profile")]
    if other:
        md.append("| workload | variant | metric | stock median [spread] | series median [spread] | series/stock |")
        md.append("|---|---|---|---|---|---|")
        for r in other:
            def cell(k):
                if not r[k]:
                    return "-"
                return "%s %s [%s]%s" % (fmt(r[k]["median"]), r["unit"], sp(r, k),
                                         " FLAGGED" if (k == "stock" and "stock" in r["flagged"]) or
                                         (k == "patched" and "series" in r["flagged"]) else "")
            md.append("| %s | %s | %s | %s | %s | %s |" % (
                r["workload"], r["variant"], r["metric"], cell("stock"), cell("patched"),
                "%.3f" % r["ratio"] if r["ratio"] is not None else "n/a"))
        md.append("")
    prof = [r for r in rows if r["workload"] == "profile" and r["metric"] == "insn"]
    if prof:
        md.append("Where the instructions go (perf record -e cpu-clock in the guest: under icount a "
                  "sample per fixed number of instructions), instructions per packet by function "
                  "(per received MB for the tcp-* points), median of the boots:")
        md.append("")
        md.append("| point/function | stock insn/pkt (or /MB) | series insn/pkt (or /MB) |")
        md.append("|---|---|---|")
        for r in prof:
            md.append("| %s | %s | %s |" % (r["variant"], num(med(r, "stock"), 0), num(med(r, "patched"), 0)))
        md.append("")
    md.extend(exact_targets(get, med))
    bad = [r for r in rows if r["headline"] and r["flagged"]]
    if any(vals[k].get("stock72") for k in order):
        lines72, bad72 = render_vs72(rundir, vals, order)
        md.extend(lines72)
        bad.extend(bad72)
        if next72_kernels(vals, order):
            lines72, bad72 = render_next72(rundir, vals, order)
            md.extend(lines72)
            bad.extend(bad72)
    other_bad = [r for r in rows if not r["headline"] and r["flagged"]]
    if bad:
        md.append("**Determinism gate FAILED**: %d headline point(s) spread more than %.1f %%: %s." % (
            len(bad), 100 * GATE, "; ".join("%s %s %s (%s)" % (r["workload"], r["variant"], r["metric"],
                                                                "/".join(r["flagged"])) for r in bad)))
    else:
        md.append("Determinism gate: every headline point (pktgen and backlog, fq and pfifo) within %.1f %%." % (100 * GATE))
    if other_bad:
        md.append("")
        md.append("Also over %.1f %% (not gated): %s." % (100 * GATE, "; ".join(
            "%s %s %s" % (r["workload"], r["variant"], r["metric"]) for r in other_bad)))
    text = "\n".join(md) + "\n"
    open(os.path.join(rundir, "bench.md"), "w").write(text)
    sys.stdout.write(text)
    plots_exact(rundir, rows)
    return 3 if bad else 0


def render_cache(rundir, meta):
    """A run under the cache model (bench.sh --cache-model): its report is
    the model's table (cache.md, scripts/cache-model.py), instructions from
    the plugin's exact counts included. The guest's own figures of its
    points are kept in raw.csv and summary.csv but not rendered: they count
    fewer packets through another fq than the exact run's points, and 7.2's
    are its whole-guest time (benchmark.md, --count-insns)."""
    try:
        table = open(os.path.join(rundir, "cache.md")).read()
    except OSError as e:
        sys.exit("render-bench: %s: the cache model's table is missing (scripts/cache-model.py table %s)" % (
            e, rundir))
    text = "Run %s, %s, clock exact, under the cache model, %s boots per kernel (alternating), guest %s; " \
           "%s s wall for the whole run.\n\n%s" % (
               meta.get("date", "?"), meta.get("accel", "?").upper(), meta.get("reps", "?"),
               meta.get("guest", "?"), meta.get("wall_seconds", "?"), table)
    open(os.path.join(rundir, "bench.md"), "w").write(text)
    sys.stdout.write(text)
    return 0


def exact_targets(get, med):
    """The target table: one line per target point, ratio and verdict."""
    lines = []

    def nflows(v):
        return int(v.split("-flows")[0])

    def ratio(key, metric):
        r = get.get(key + (metric,))
        a, b = med(r, "stock"), med(r, "patched")
        return (a, b, b / a if a and b is not None and a > 0 else None)

    def add(what, limit, a, b, q, unit, note=""):
        if q is None:
            verdict = "not measured"
        else:
            verdict = "met" if q <= limit else "**missed**"
        lines.append("| %s | <= %.2fx | %s | %s | %s | %s%s |" % (
            what, limit, fmt(a) if a is not None else "-", fmt(b) if b is not None else "-",
            "%.3f" % q if q is not None else "-", verdict, (" (%s)" % note) if note else ""))

    keys = sorted({k[:2] for k in get})
    for wl, var in [k for k in keys if k[0] == "pktgen"]:
        f = nflows(var)
        a, b, q = ratio((wl, var), "fq_cost")
        add("fq cost over pfifo, pktgen %s (idle qdisc)" % var, 0.5, a, b, q, "insn/pkt",
            "" if f <= 64 else "fast path applies: every packet meets an empty qdisc")
    for wl, var in [k for k in keys if k[0] == "backlog"]:
        a, b, q = ratio((wl, var), "fq_cost")
        add("fq cost with a standing backlog, %s" % var, 1.0, a, b, q, "insn/pkt")
    def growth(pts, metric, what):
        lo, hi = get.get(pts[0] + (metric,)), get.get(pts[-1] + (metric,))
        gs = med(hi, "stock") / med(lo, "stock") if med(lo, "stock") and med(hi, "stock") else None
        gp = med(hi, "patched") / med(lo, "patched") if med(lo, "patched") and med(hi, "patched") else None
        verdict = "-" if gp is None else ("met" if gp <= 1.15 else "**missed**")
        lines.append("| %s growth %s -> %s (series alone; stock's for reference) | <= 1.15x | %s | %s | - | %s |" % (
            what, pts[0][1], pts[-1][1], "%.3f" % gs if gs else "-", "%.3f" % gp if gp else "-", verdict))

    # The paced cost targets come from the pacing workload (pktgen bursts
    # paced out by maxrate, 1k to 100k flows); the socket-paced workload
    # (paced) reaches 10k flows and gives the lateness.
    pacing = sorted([k for k in keys if k[0] == "pacing"], key=lambda k: nflows(k[1]))
    paced = sorted([k for k in keys if k[0] == "paced"], key=lambda k: nflows(k[1]))
    if pacing:
        a, b, q = ratio(pacing[-1], "fq_cost")
        add("paced flows, fq cost over pfifo per packet, %s (pacing: EDT bursts)" % pacing[-1][1], 0.8, a, b, q, "insn/pkt")
    if len(pacing) > 1:
        growth(pacing, "fq_cost", "paced fq cost")
    if paced and not pacing:
        a, b, q = ratio(paced[-1], "fq_insn_per_pkt")
        add("paced flows, fq's own insn/pkt (profile) at %s" % paced[-1][1], 0.8, a, b, q, "insn/pkt")
    if len(paced) > 1 and not pacing:
        growth(paced, "fq_insn_per_pkt", "paced fq cost")
    for k in paced:
        a, b, q = ratio(k, "late_p99")
        add("departure lateness p99, paced %s" % k[1], 1.0, a, b, q, "ns")
    for wl, var in [k for k in keys if k[0] == "memory"]:
        a, b, q = ratio((wl, var), "object_size")
        ba, bb, bq = ratio((wl, var), "bytes_per_flow")
        add("bytes per flow (fq_flow object), %s" % var, 0.75, a, b, q, "B",
            "with slab page packing: %s vs %s B, %s" % (fmt(ba), fmt(bb), "%.3f" % bq if bq else "-"))
    peak = [k for k in keys if k[0] == "peak"]
    for k in peak:
        a, b, q = ratio(k, "peak_slab_bytes")
        fa, fb, _ = ratio(k, "peak_flows")
        add("peak fq_flow memory, %s" % k[1], 0.5, a, b, q, "B",
            "flows held at the peak: stock %s, series %s" % (fmt(fa) if fa is not None else "-",
                                                              fmt(fb) if fb is not None else "-"))
    mem = sorted([k for k in keys if k[0] == "memory"], key=lambda k: nflows(k[1]))
    # Without the peak workload, the 1M-flow warm-up's slab stands in for
    # the 1M-flow case; a smaller point is no measure of that target.
    if mem and not peak and nflows(mem[-1][1]) >= 1000000:
        a, b, q = ratio(mem[-1], "slab_bytes")
        fa, fb, _ = ratio(mem[-1], "flows")
        add("fq_flow memory at %s (pktgen warm-up; no peak workload in this run)" % mem[-1][1], 0.5, a, b, q, "B",
            "flows held: stock %s, series %s" % (fmt(fa) if fa is not None else "-",
                                                  fmt(fb) if fb is not None else "-"))
    for wl, var in [k for k in keys if k[0] == "tcp"]:
        a, b, q = ratio((wl, var), "insn_per_MB")
        add("TCP bulk %s, insn/MB" % var, 1.0, a, b, q, "insn/MB")
    if not lines:
        return []
    return ["Targets, series/stock in this run:", "",
            "| target point | target | stock | series | series/stock | verdict |",
            "|---|---|---|---|---|---|"] + lines + [""]


def ratio_text(a, b):
    """a/b with three decimals, "n/a" when either is missing or b is 0."""
    return "%.3f" % (a / b) if a is not None and b and b > 0 else "n/a"


def short_num(v):
    return "-" if v is None else ("%.0f" % v if abs(v) >= 100 else "%.3g" % v)


def base72_text(rundir):
    """The stock 7.2 tree of a run (bench.sh writes base72.txt)."""
    path = os.path.join(rundir, "base72.txt")
    return open(path).read().strip() if os.path.exists(path) else "sid's linux-source-7.2"


# The three kernels of a run with stock 7.2 (bench.sh --kernels), as
# raw.csv names them, and as the tables do.
KERNELS72 = (("stock", "6.1"), ("patched", "series"), ("stock72", "7.2"))
# Targets, series against stock 7.2 (exact mode, same run): the ratio of
# each point's series median to 7.2's must be at most this.
TARGETS72 = (("pktgen", "fq_cost", 0.8, "fq cost over pfifo, idle qdisc"),
             ("backlog", "fq_cost", 0.7, "fq cost under a standing backlog"),
             ("pacing", "fq_cost", 0.7, "fq cost, paced release"),
             ("paced", "late_p99", 1.0, "departure lateness p99"),
             ("memory", "object_size", 0.75, "bytes per flow (fq_flow object)"))


def render_vs72(rundir, vals, order):
    """Stock 7.2 beside stock 6.1 and the series: the markdown lines, and the
    headline rows whose 7.2 boots spread more than GATE (for the gate)."""
    st = {key: {k: stats(vals[key].get(k, [])) for k, _ in KERNELS72} for key in order}
    byk = {key[:3]: key for key in order}

    def m(wl, var, metric, k):
        key = byk.get((wl, var, metric))
        return st[key][k]["median"] if key and st[key][k] else None

    def sp(wl, var, metric, k):
        key = byk.get((wl, var, metric))
        x = st[key][k] if key else None
        return "-" if not x or x["spread"] is None else "%.2f%%" % (100 * x["spread"])

    q, num = ratio_text, short_num

    md = ["", "Stock 7.2 (%s) in the same run, same fragments and workloads: instructions per packet "
          "by kernel; pfifo shows how much the rest of the kernel moved, fq cost = fq - pfifo "
          "keeps the comparison to the qdisc. Spread: largest of fq and pfifo over the boots." %
          base72_text(rundir), "",
          "| point | pfifo 6.1 | pfifo series | pfifo 7.2 | fq cost 6.1 | fq cost series | fq cost 7.2 "
          "| series/6.1 | **series/7.2** | 7.2/6.1 | spread 6.1 / series / 7.2 |",
          "|---|---|---|---|---|---|---|---|---|---|---|"]
    bad = []
    pts = [(wl, var) for wl, var, metric, _ in order if metric == "fq_insn" and wl in ("pktgen", "backlog")]
    for wl, var in pts:
        c = {k: m(wl, var, "fq_cost", k) for k, _ in KERNELS72}
        spreads = []
        for k, _ in KERNELS72:
            xs = [st[byk[(wl, var, mt)]][k]["spread"] for mt in ("fq_insn", "pfifo_insn")
                  if (wl, var, mt) in byk and st[byk[(wl, var, mt)]][k] and
                  st[byk[(wl, var, mt)]][k]["spread"] is not None]
            spreads.append("%.2f%%" % (100 * max(xs)) if xs else "-")
            if k == "stock72" and xs and max(xs) > GATE:
                bad.append(dict(workload=wl, variant=var, metric="fq/pfifo", flagged=["7.2"]))
        md.append("| %s | %s | %s | %s | %s | %s | %s | %s | **%s** | %s | %s |" % (
            var if wl == "pktgen" else "backlog " + var,
            *(num(m(wl, var, "pfifo_insn", k)) for k, _ in KERNELS72),
            *(num(c[k]) for k, _ in KERNELS72),
            q(c["patched"], c["stock"]), q(c["patched"], c["stock72"]), q(c["stock72"], c["stock"]),
            " / ".join(spreads)))
    other = [key for key in order if key[0] not in ("pktgen", "backlog", "profile")]
    if other:
        md += ["", "| workload | variant | metric | 6.1 [spread] | series [spread] | 7.2 [spread] "
               "| series/6.1 | **series/7.2** |", "|---|---|---|---|---|---|---|---|"]
        for wl, var, metric, unit in other:
            cells = ["%s [%s]" % (fmt(m(wl, var, metric, k)) if m(wl, var, metric, k) is not None else "-",
                                  sp(wl, var, metric, k)) for k, _ in KERNELS72]
            md.append("| %s | %s | %s | %s | %s | %s | %s | **%s** |" % (
                wl, var, metric, *cells, q(m(wl, var, metric, "patched"), m(wl, var, metric, "stock")),
                q(m(wl, var, metric, "patched"), m(wl, var, metric, "stock72"))))
    md += ["", "Targets, series against stock 7.2 (same run):", "",
           "| target point | target | 7.2 | series | series/7.2 | spread series / 7.2 | verdict |",
           "|---|---|---|---|---|---|---|"]
    for wl0, metric, limit, what in TARGETS72:
        for wl, var, mt, _ in order:
            if wl != wl0 or mt != metric:
                continue
            a, b = m(wl, var, metric, "stock72"), m(wl, var, metric, "patched")
            r = b / a if a and b is not None and a > 0 else None
            verdict = "not measured" if r is None else ("met" if round(r, 3) <= limit else "**missed**")
            md.append("| %s, %s | <= %.2fx | %s | %s | %s | %s / %s | %s |" % (
                what, var, limit, fmt(a) if a is not None else "-", fmt(b) if b is not None else "-",
                "%.3f" % r if r is not None else "-", sp(wl, var, metric, "patched"),
                sp(wl, var, metric, "stock72"), verdict))
    md.append("")
    return md, bad


def next72_kernels(vals, order):
    """The 7.2 kernels with upstream patches in the run, in patch order:
    patched72-N by N, then patched72 (the whole upstream series)."""
    ks = {k for key in order for k in vals[key] if k.startswith("patched72") and vals[key][k]}
    return sorted((k for k in ks if k != "patched72"), key=lambda k: int(k.split("-")[1])) + \
        (["patched72"] if "patched72" in ks else [])


# Targets, the whole upstream series (patches/net-next/) against stock 7.2.
TARGETS_NEXT72 = (("pktgen", "fq_cost", 0.8, "fq cost over pfifo, idle qdisc"),
                  ("backlog", "fq_cost", 0.7, "fq cost under a standing backlog"),
                  ("pacing", "fq_cost", 0.7, "fq cost, paced release"))


def render_next72(rundir, vals, order):
    """Stock 7.2 against 7.2 with the upstream patches: each patched72-N
    kernel (the net fixes and the first N net-next patches) and the whole
    series, fq cost per point and its ratio to stock 7.2; the targets; the
    headline rows whose boots spread more than GATE."""
    ks = ["stock72"] + next72_kernels(vals, order)
    if len(ks) == 1:
        return ["", "No 7.2 kernel with the upstream patches came back with rows.", ""], []
    names = {}
    try:
        series = [ln.strip() for ln in open(os.path.join(rundir, "series72.txt")) if ln.strip()]
    except OSError:
        series = []
    nnet = sum(1 for p in series if p.startswith("net/"))
    for k in ks[1:]:
        if k == "patched72":
            names[k] = "whole series"
        else:
            names[k] = "+%d" % int(k.split("-")[1])
    st = {key: {k: stats(vals[key].get(k, [])) for k in ks} for key in order}
    byk = {key[:3]: key for key in order}

    def m(wl, var, metric, k):
        key = byk.get((wl, var, metric))
        return st[key][k]["median"] if key and st[key][k] else None

    def spread(wl, var, k):
        xs = [st[byk[(wl, var, mt)]][k]["spread"] for mt in ("fq_insn", "pfifo_insn", "fq_cost")
              if (wl, var, mt) in byk and st[byk[(wl, var, mt)]][k] and
              st[byk[(wl, var, mt)]][k]["spread"] is not None]
        return max(xs) if xs else None

    q, num = ratio_text, short_num

    md = ["", "The upstream patches on stock 7.2 (%s), same run: fq cost (instructions per packet "
          "over pfifo, or the metric's own unit) of stock 7.2 and of each kernel with the first N "
          "net-next patches (after patches/net/), and its ratio to stock 7.2; the step from one "
          "column to the next is that patch's own effect. Spread: largest over the boots." %
          base72_text(rundir), "",
          "| point | pfifo 7.2 | fq cost 7.2 | " + " | ".join("%s (x 7.2)" % names[k] for k in ks[1:]) +
          " | worst spread |",
          "|---|---|---|" + "---|" * (len(ks) - 1) + "---|"]
    bad = []
    pts = [(wl, var, "fq_cost") for wl, var, metric, _ in order
           if metric == "fq_insn" and wl in ("pktgen", "backlog")]
    pts += [(wl, var, metric) for wl, var, metric, _ in order
            if wl not in ("pktgen", "backlog", "profile") and metric in ("fq_cost", "late_p99", "object_size")]
    for wl, var, metric in pts:
        base = m(wl, var, metric, "stock72")
        sps = [spread(wl, var, k) for k in ks]
        worst = max([x for x in sps if x is not None], default=None)
        if wl in ("pktgen", "backlog") and worst is not None and worst > GATE:
            bad.append(dict(workload=wl, variant=var, metric="fq/pfifo", flagged=["7.2 upstream"]))
        label = var if wl == "pktgen" else "%s %s%s" % (wl, var, "" if metric == "fq_cost" else " " + metric)
        md.append("| %s | %s | %s | %s | %s |" % (
            label, num(m(wl, var, "pfifo_insn", "stock72")), num(base),
            " | ".join("%s (%s)" % (num(m(wl, var, metric, k)), q(m(wl, var, metric, k), base)) for k in ks[1:]),
            "-" if worst is None else "%.2f%%" % (100 * worst)))
    if series:
        md += ["", "+N: the net fixes (%s) and net-next patches 1..N: %s." % (
            ", ".join(p.split("/")[-1] for p in series[:nnet]) or "none",
            "; ".join("%d %s" % (i + 1, p.split("/")[-1]) for i, p in enumerate(series[nnet:])))]
    whole = ks[-1]
    md += ["", "Targets, %s against stock 7.2 (same run):" % names[whole], "",
           "| target point | target | 7.2 | series | series/7.2 | verdict |", "|---|---|---|---|---|---|"]
    for wl0, metric, limit, what in TARGETS_NEXT72:
        for wl, var, mt, _ in order:
            if wl != wl0 or mt != metric:
                continue
            a, b = m(wl, var, metric, "stock72"), m(wl, var, metric, whole)
            r = b / a if a and b is not None and a > 0 else None
            verdict = "not measured" if r is None else ("met" if round(r, 3) <= limit else "**missed**")
            md.append("| %s, %s | <= %.2fx | %s | %s | %s | %s |" % (
                what, var, limit, num(a), num(b), "%.3f" % r if r is not None else "-", verdict))
    md.append("")
    return md, bad


def render_next72_only(rundir, meta, vals, order):
    """A run of 7.2 kernels only (bench.sh --kernels stock72,patched72...)."""
    md = ["Run %s, %s, clock exact (-icount shift=0: 1 guest instruction per guest ns), "
          "%s boots per kernel (alternating), guest %s; %s; %s s wall for the whole run." % (
              meta.get("date", "?"), meta.get("accel", "?").upper(), meta.get("reps", "?"),
              meta.get("guest", "?"), meta.get("mode", "full"), meta.get("wall_seconds", "?"))]
    lines, bad = render_next72(rundir, vals, order)
    md.extend(lines)
    if bad:
        md.append("**Determinism gate FAILED**: %s." % "; ".join(
            "%s %s" % (r["workload"], r["variant"]) for r in bad))
    else:
        md.append("Determinism gate: every headline point within %.1f %%." % (100 * GATE))
    text = "\n".join(md) + "\n"
    open(os.path.join(rundir, "bench.md"), "w").write(text)
    sys.stdout.write(text)
    return 3 if bad else 0


def plots_exact(rundir, rows):
    pdir = os.path.join(rundir, "plots")
    os.makedirs(pdir, exist_ok=True)
    series = []
    for size in ("64B", "1500B"):
        for label, metric, kern in (("stock fq", "fq_insn", "stock"), ("series fq", "fq_insn", "patched"),
                                    ("pfifo (stock)", "pfifo_insn", "stock")):
            pts = []
            for r in rows:
                if r["workload"] == "pktgen" and r["metric"] == metric and r["variant"].endswith("/" + size) and r[kern]:
                    pts.append((int(r["variant"].split("-")[0]), r[kern]["median"], r[kern]["min"], r[kern]["max"]))
            if pts:
                series.append(("%s %s" % (label, size), sorted(pts)))
    if series:
        dat = os.path.join(pdir, "insn-per-pkt.dat")
        with open(dat, "w") as f:
            for name, pts in series:
                f.write('# %s\n' % name)
                for x in pts:
                    f.write("%d %g %g %g\n" % x)
                f.write("\n\n")
        plot = ", ".join('"%s" index %d using 1:2 with linespoints lw 2 dt %d title "%s"' % (
            dat, i, 1 if "64B" in name else 2, name) for i, (name, _) in enumerate(series))
        run_gnuplot(f"""set terminal pngcairo size 1000,560 font ",10"
set output "{os.path.join(pdir, 'insn-per-pkt.png')}"
set termoption noenhanced
set title "pktgen queue_xmit into a dummy: guest instructions per packet (exact clock, median of boots)"
set xlabel "flows"
set ylabel "instructions / packet"
set logscale x
set yrange [0:*]
set key top left
set grid
plot {plot}
""", "insn-per-pkt")
    cdir = os.path.join(rundir, "cdf")
    if os.path.isdir(cdir):
        byk = {}
        for name in sorted(os.listdir(cdir)):
            # <kernel>-<rep>-<flows>.txt: the first boot of each kernel.
            parts = name[:-4].split("-")
            if len(parts) != 3 or parts[1] != "1":
                continue
            byk.setdefault(parts[0], []).append((int(parts[2]), os.path.join(cdir, name)))
        for k, files in byk.items():
            plot = ", ".join('"%s" using ($2/1000):1 with lines lw 2 title "%d flows"' % (fn, n)
                             for n, fn in sorted(files))
            run_gnuplot(f"""set terminal pngcairo size 900,520 font ",10"
set output "{os.path.join(pdir, 'lateness-cdf-' + k + '.png')}"
set termoption noenhanced
set title "{'series' if k == 'patched' else 'stock 6.1'}: paced UDP flows, departure lateness vs the ideal gap (exact guest time)"
set xlabel "lateness (us)"
set ylabel "fraction of gaps"
set yrange [0:1]
set key bottom right
set grid
plot {plot}
""", "lateness-cdf-" + k)


if __name__ == "__main__":
    main()
