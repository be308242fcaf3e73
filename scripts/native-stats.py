#!/usr/bin/env python3
"""Medians, paired ratios and their confidence intervals of a native run
(scripts/bench.sh --native: UML kernels timed on this CPU), beside the
exact-mode and cache-model ratios of docs/results.csv.

usage: native-stats.py RUNDIR                 write RUNDIR/native.csv and native.md
       native-stats.py --check RUNDIR          exit 1 unless every point parses
                                               (the harness self-test's check)
       native-stats.py --update RUNDIR         take the run's figures into
                                               docs/results.csv (native-* rows)

RUNDIR/raw.csv has one row per boot and figure (kernel, rep, workload,
variant, metric, value, unit; ns under UML). The kernels of one rep were
booted one after the other (bench.sh rotates their order each rep), so
rep r of two kernels is a pair: drift of the host between reps cancels in
the pair's ratio. Each ratio is the median of the per-rep ratios B_r/A_r;
beside it, the median of the per-rep differences B_r - A_r in ns with
its interval, which stands where a ratio cannot: a figure at or below
zero on some rep (fq - pfifo within the noise) has no ratio. Each
interval is the distribution-free one of a median (the order statistics
k and n+1-k of the n values, k the largest whose binomial coverage is
still at least 95 %; 97.9 % at n = 10); a ratio's interval that holds
1.0, or a difference's that holds 0, reads "no difference".
"""
import csv
import math
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "docs", "results.csv")

# The ratios a run can give, when both kernels ran: (key, B, A, label).
PAIRS = (("series61", "patched", "stock", "series/6.1"),
         ("series72", "patched", "stock72", "series/7.2"),
         ("up72", "patched72", "stock72", "7.2 patched/7.2"))
NAMES = {"stock": "6.1", "patched": "series", "stock72": "7.2", "patched72": "7.2 patched"}
# The figures compared, per workload: fq - pfifo, and fq's whole path.
METRICS = {"pktgen": ("fq_cost", "fq_ns"), "backlog": ("fq_cost", "fq_ns"),
           "pacing": ("fq_cost", "fq_ns"), "paced": ("ns_per_pkt",)}
# Beyond this the native ratio and the exact one disagree (issue's 10 %).
DISAGREE = 0.10


def read_raw(rundir):
    data = {}
    with open(os.path.join(rundir, "raw.csv"), newline="") as f:
        for r in csv.DictReader(f):
            if r["workload"] not in METRICS or r["metric"] not in METRICS[r["workload"]]:
                continue
            try:
                v = float(r["value"])
            except ValueError:
                continue
            key = (r["workload"], r["variant"], r["metric"])
            data.setdefault(key, {}).setdefault(r["kernel"], {})[int(r["rep"])] = v
    return data


def read_raw_all(rundir):
    """Every numeric row: (kernel, rep, workload, variant, metric) -> value."""
    out = {}
    with open(os.path.join(rundir, "raw.csv"), newline="") as f:
        for r in csv.DictReader(f):
            try:
                out[(r["kernel"], r["rep"], r["workload"], r["variant"], r["metric"])] = float(r["value"])
            except ValueError:
                pass
    return out


def binom_cdf(k, n):
    """P(X <= k) for X ~ Binomial(n, 1/2)."""
    return sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n


def median_ci(xs, level=0.95):
    """(lo, hi, coverage) of the median of xs, distribution-free: the
    order statistics k and n+1-k (1-based), k as large as keeps the
    coverage 1 - 2 P(X <= k-1) at least LEVEL; None for n < 6."""
    xs = sorted(xs)
    n = len(xs)
    best = None
    for k in range(1, n // 2 + 1):
        cov = 1 - 2 * binom_cdf(k - 1, n)
        if cov >= level:
            best = (xs[k - 1], xs[n - k], cov)
    return best


def fmt(v, digits=3):
    if v is None:
        return "-"
    if abs(v) >= 100:
        return "%.0f" % v
    return "%.*g" % (digits, v)


def exact_rows():
    rows = {}
    if os.path.exists(RESULTS):
        with open(RESULTS, newline="") as f:
            for r in csv.DictReader(f):
                rows[(r["workload"], r["variant"], r["run_metric"])] = r
    return rows


def exact_ratio(rows, workload, variant, key):
    """The exact-mode insn ratio and the cache model's LLC and L1d miss
    ratios of a native point (pair key series61 or series72)."""
    col = "ratio" if key == "series61" else "ratio72" if key == "series72" else None
    if col is None:
        return None, None, None
    base = variant.replace("/classified", "")
    insn = rows.get((workload, variant, "fq_cost"))
    if workload == "paced":
        insn = rows.get((workload, variant, "insn_per_pkt"))
    cache_variant = base if variant.endswith("/classified") or workload != "pktgen" else None
    llc = rows.get(("cache-" + workload, cache_variant, "fq_llc_miss")) if cache_variant else None
    l1d = rows.get(("cache-" + workload, cache_variant, "fq_l1d_miss")) if cache_variant else None
    get = lambda r: float(r[col]) if r and r.get(col) else None
    return get(insn), get(llc), get(l1d)


def analyse(rundir):
    data = read_raw(rundir)
    exact = exact_rows()
    out = []
    for (w, v, m), per in sorted(data.items()):
        row = {"workload": w, "variant": v, "metric": m}
        for k, reps in per.items():
            row["median_" + k] = statistics.median(reps.values())
            row["n_" + k] = len(reps)
        for key, b, a, _ in PAIRS:
            if a not in per or b not in per:
                continue
            common = sorted(set(per[a]) & set(per[b]))
            if m == "fq_cost" or m == "ns_per_pkt" or v.endswith("/classified"):
                insn, llc, l1d = exact_ratio(exact, w, v, key)
                row[key + "_insn"], row[key + "_llc"], row[key + "_l1d"] = insn, llc, l1d
            diffs = [per[b][r] - per[a][r] for r in common]
            if diffs:
                row[key + "_diff"] = statistics.median(diffs)
                dci = median_ci(diffs)
                if dci:
                    row[key + "_dlo"], row[key + "_dhi"] = dci[0], dci[1]
            if any(per[a][r] <= 0 or per[b][r] <= 0 for r in common) or not common:
                row[key] = None
                row[key + "_note"] = "no ratio (a figure at or below zero)"
                if row.get(key + "_dlo") is not None:
                    lo, hi = row[key + "_dlo"], row[key + "_dhi"]
                    row[key + "_note"] += "; difference: " + (
                        "no difference" if lo <= 0 <= hi else "faster" if hi < 0 else "slower")
                continue
            ratios = [per[b][r] / per[a][r] for r in common]
            row[key] = statistics.median(ratios)
            row[key + "_n"] = len(ratios)
            ci = median_ci(ratios)
            if ci:
                row[key + "_lo"], row[key + "_hi"], row[key + "_cov"] = ci
                row[key + "_verdict"] = "no difference" if ci[0] <= 1.0 <= ci[1] else (
                    "faster" if ci[1] < 1.0 else "slower")
            else:
                row[key + "_verdict"] = "too few reps for an interval"
            insn = row.get(key + "_insn")
            if insn and m != "fq_ns":
                row[key + "_disagree"] = abs(row[key] / insn - 1) > DISAGREE
        out.append(row)
    return out


def write(rundir, rows):
    cols = ["workload", "variant", "metric"]
    extra = sorted({k for r in rows for k in r} - set(cols))
    with open(os.path.join(rundir, "native.csv"), "w", newline="") as f:
        wr = csv.DictWriter(f, cols + extra)
        wr.writeheader()
        for r in rows:
            wr.writerow({k: ("%.6g" % v if isinstance(v, float) else v) for k, v in r.items()})
    meta = {}
    with open(os.path.join(rundir, "meta.txt")) as f:
        for line in f:
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                meta[k] = v
    raw = read_raw_all(rundir)
    share = [raw[(k, r, w, v, "fq_ns")] / raw[(k, r, w, v, "fq_wall_ns")]
             for (k, r, w, v, m) in raw if m == "fq_wall_ns" and (k, r, w, v, "fq_ns") in raw
             and w == "pktgen" and raw[(k, r, w, v, m)] > 0]
    md = ["# Native run (UML): ns per packet", "",
          "%s; host CPU %s (%s cores, kernel %s), UML pinned to one CPU; %s boots per kernel, "
          "interleaved; host load average %s at the start (load.csv: before and after each boot)." % (
              meta.get("date", "?"), meta.get("host_cpu", "?"), meta.get("host_cores", "?"),
              meta.get("host_kernel", "?"), meta.get("reps", "?"), meta.get("host_loadavg", "?")), "",
          "Figures are the UML process's CPU time per packet from the host's scheduler (scripts/uml-cpu.py), "
          "the least of a point's windows; in the pktgen windows it ran %s of the wall time (median; "
          "the rest the host gave to other jobs)." % (
              "%.0f %%" % (100 * statistics.median(share)) if share else "?"), "",
          "Ratios: median of the per-rep ratios, [95 %% distribution-free interval of that median "
          "(its coverage)]; \"no difference\" when the interval holds 1.0. insn: the exact-mode "
          "ratio (docs/results.csv), LLC and L1d: the cache model's miss ratio (whole path through fq); "
          "DISAGREE: native and exact differ by more than %d %%." % (DISAGREE * 100), ""]
    for key, b, a, label in PAIRS:
        sel = [r for r in rows if key in r]
        if not sel:
            continue
        md += ["## %s" % label, "",
               "| point | metric | %s ns | %s ns | **%s** | interval | verdict | difference ns (interval) "
               "| insn | LLC | L1d |" % (NAMES[a], NAMES[b], label),
               "|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in sel:
            ci = "-"
            if r.get(key + "_lo") is not None:
                ci = "%s-%s (%.1f %%)" % (fmt(r[key + "_lo"]), fmt(r[key + "_hi"]), 100 * r[key + "_cov"])
            verdict = r.get(key + "_verdict", r.get(key + "_note", "-"))
            if r.get(key + "_disagree"):
                verdict += ", DISAGREE"
            diff = "-"
            if r.get(key + "_diff") is not None:
                diff = "%+.0f" % r[key + "_diff"]
                if r.get(key + "_dlo") is not None:
                    diff += " (%+.0f to %+.0f)" % (r[key + "_dlo"], r[key + "_dhi"])
            md.append("| %s %s | %s | %s | %s | **%s** | %s | %s | %s | %s | %s | %s |" % (
                r["workload"], r["variant"], r["metric"], fmt(r.get("median_" + a)), fmt(r.get("median_" + b)),
                fmt(r[key]), ci, verdict, diff, fmt(r.get(key + "_insn")), fmt(r.get(key + "_llc")),
                fmt(r.get(key + "_l1d"))))
        md.append("")
    with open(os.path.join(rundir, "native.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))


def check(rundir, rows):
    """The self-test: the run gave figures, and every whole-path figure
    (fq_ns) is a positive number of ns (fq - pfifo may be below zero
    where fq's fast path costs about what pfifo does)."""
    bad = []
    if not any(r["metric"] == "fq_ns" for r in rows):
        bad.append("no native fq_ns figure in %s/raw.csv" % rundir)
    for r in rows:
        for k in (k for k in r if k.startswith("median_")):
            if r["metric"] == "fq_ns" and not r[k] > 0:
                bad.append("%s %s %s: %s %s ns" % (r["workload"], r["variant"], r["metric"], k[7:], r[k]))
    for b in bad:
        print("native-stats: " + b, file=sys.stderr)
    return not bad


# The README's native rows: an idle qdisc (fq as added), the flow table
# with every packet classified (the points the cache model has), the
# standing backlog and paced release (the exact headline's points).
HEADLINE = {("pktgen", "1-flows/64B", "fq_cost"), ("pktgen", "1-flows/64B", "fq_ns"),
            ("pktgen", "100000-flows/64B", "fq_ns"),
            ("pktgen", "10000-flows/64B/classified", "fq_cost"),
            ("pktgen", "100000-flows/64B/classified", "fq_cost"),
            ("pktgen", "1000000-flows/64B/classified", "fq_cost"),
            ("backlog", "tbf/64-flows/64B", "fq_cost"),
            ("pacing", "1000-flows", "fq_cost"), ("pacing", "100000-flows", "fq_cost")}


# The points docs/results.csv keeps, by (workload, variant, metric): its
# point name. fq - pfifo of each; the classified flow-table points also
# as fq's whole path (what the cache model's misses count).
def point_name(w, v, m):
    flows = v.split("-flows")[0].split("/")[-1]
    n = {"1": "1 flow", "1000": "1k flows", "10000": "10k flows", "100000": "100k flows",
         "1000000": "1M flows"}.get(flows, flows + " flows")
    if w == "pktgen":
        what = "every packet classified" if v.endswith("/classified") else "idle qdisc"
        return "native: pktgen %s 64 B (%s)%s" % (n, what, ", whole path" if m == "fq_ns" else "")
    if w == "backlog":
        return "native: backlog (fq under tbf; 64 flows)"
    if w == "pacing":
        return "native: pacing %s (on-time release)" % n
    return "native: %s %s" % (w, v)


def spread_of(rundir, w, v, m, k):
    """(max - min) / median of kernel K's boots, as the CSV's spreads."""
    xs = read_raw(rundir).get((w, v, m), {}).get(k, {}).values()
    xs = list(xs)
    if len(xs) < 2 or statistics.median(xs) <= 0:
        return ""
    return "%.2f%%" % (100 * (max(xs) - min(xs)) / statistics.median(xs))


def update(rundir, rows):
    """Replaces or adds the native-* rows of docs/results.csv from the run
    (fq_cost of every point; fq_ns of the classified pktgen points)."""
    meta = {}
    with open(os.path.join(rundir, "meta.txt")) as f:
        for line in f:
            k, _, v = line.rstrip("\n").partition("=")
            meta[k] = v
    with open(RESULTS, newline="") as f:
        rd = csv.DictReader(f)
        fields = list(rd.fieldnames)
        old = list(rd)
    for c in ("ci", "ci72", "diff", "diff72"):
        if c not in fields:
            fields.append(c)
    k72 = ""
    if os.path.exists(os.path.join(rundir, "base72.txt")):
        k72 = open(os.path.join(rundir, "base72.txt")).read().split(",")[0].strip()
    num = lambda v: "" if v is None else ("%.0f" % v if abs(v) >= 100 else "%.3g" % v)
    ratio = lambda v: "" if v is None else "%.3f" % v
    ci = lambda r, k: ("%.3f-%.3f" % (r[k + "_lo"], r[k + "_hi"])) if r.get(k + "_lo") is not None else ""
    diff = lambda r, k: "" if r.get(k + "_diff") is None else "%+.0f ns" % r[k + "_diff"] + (
        " (%+.0f to %+.0f)" % (r[k + "_dlo"], r[k + "_dhi"]) if r.get(k + "_dlo") is not None else "")
    cmd = "scripts/bench.sh --native --only %s --reps %s --kernels %s" % (
        ",".join(meta.get("workloads", "").split()), meta.get("reps", ""), ",".join(meta.get("kernels", "").split()))
    new = []
    for r in rows:
        w, v, m = r["workload"], r["variant"], r["metric"]
        if "median_patched" not in r:
            continue
        new.append({
            "point": point_name(w, v, m), "metric": "fq cost" if m == "fq_cost" else "through fq",
            "unit": "ns/pkt", "stock61": num(r.get("median_stock")), "series": num(r["median_patched"]),
            "ratio": ratio(r.get("series61")), "spread_stock61": spread_of(rundir, w, v, m, "stock"),
            "spread_series": spread_of(rundir, w, v, m, "patched"), "boots": str(r.get("n_patched", "")),
            "date": meta.get("date", "")[:10], "commit": meta.get("git", ""),
            "stock61_kernel": "6.1 UML" if "median_stock" in r else "", "series_base": "6.1 UML",
            "stock72": num(r.get("median_stock72")), "spread_stock72": spread_of(rundir, w, v, m, "stock72")
            if "median_stock72" in r else "", "ratio72": ratio(r.get("series72")),
            "stock72_kernel": k72 if "median_stock72" in r else "",
            "headline": "1" if (w, v, m) in HEADLINE else "0", "command": cmd,
            "workload": "native-" + w, "variant": v, "run_metric": m, "ci": ci(r, "series61"), "ci72": ci(r, "series72"),
            "diff": diff(r, "series61"), "diff72": diff(r, "series72")})
    keys = {(n["workload"], n["variant"], n["run_metric"]) for n in new}
    kept = [r for r in old if (r["workload"], r["variant"], r["run_metric"]) not in keys]
    with open(RESULTS, "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        wr.writeheader()
        for r in kept + new:
            wr.writerow({k: r.get(k, "") for k in fields})
    return len(new)


def main(argv):
    if len(argv) == 2 and argv[0] in ("--check", "--update"):
        rundir = argv[1]
    elif len(argv) == 1 and not argv[0].startswith("-"):
        rundir = argv[0]
    else:
        sys.exit(__doc__)
    rows = analyse(rundir)
    if argv[0] == "--check":
        return 0 if check(rundir, rows) else 1
    if argv[0] == "--update":
        print("%d native rows of %s taken from %s" % (update(rundir, rows), RESULTS, rundir))
        return 0
    write(rundir, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
