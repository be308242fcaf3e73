#!/usr/bin/env python3
"""The benchmark's current results table, generated from docs/results.csv.

usage: bench-table.py [--headline|--cache|--native] print the table (markdown)
       bench-table.py --write FILE...      rewrite the generated blocks of FILEs
       bench-table.py --check FILE...      exit 1 if a block differs from the CSV
       bench-table.py --update RUNDIR [W,...]  take a scripts/bench.sh run's figures into
                                           the CSV (only workloads W, when given)

A generated block in a markdown file lies between the lines
  <!-- bench-table headline -->   (or: full, cache, native)
  <!-- bench-table end -->
"headline" keeps the rows whose headline column is 1 (README); "full"
keeps every row (docs/benchmark.md); "cache" puts the cache model's rows
(workload cache-*: misses per packet, scripts/bench.sh --cache-model) one
line per point, its levels side by side (README); "native" the native
rows (workload native-*: ns per packet of UML kernels on this CPU,
scripts/bench.sh --native, taken in by scripts/native-stats.py --update;
"native" the rows whose headline column is 1, "native-full" all)
beside the exact instruction ratio and the cache model's LLC ratio of the
same point. Edit the CSV, then run
--write: the tables are never edited by hand (scripts/lint.sh runs
--check).

The CSV has one row per measured point: its medians on stock 6.1 and on
the series, the ratio series/6.1 of the run, the spread of each kernel
over its boots ((max-min)/median; empty with one boot), the number of
boots per kernel, the run's date, the repository commit that held the
measured series, the kernel versions, and the command that measured it.
stock72, spread_stock72, ratio72 (series/7.2) and stock72_kernel come from
a run with stock 7.2 beside them (bench.sh --kernels stock,patched,stock72);
empty where 7.2 was not measured.

The tables' series column says which version of the series each row
measured: the series (the quilt series file and its patches, hashed as
scripts/lib/series.sh's series_hash) at the row's commit against the
series in the working tree: "current" when they are the same, "vN" when
it is the series of CHANGELOG's version N (named there by its commit),
"after vN" for a state between versions N and N+1 older than the current
one. A change to patches/ therefore changes the tables: run --write with it.

--update reads the run's summary.csv (scripts/render-bench.py) and
meta.txt, and replaces, in every row whose workload, variant and
run_metric name a point of that run, the medians, the ratio, the spreads,
the boots, the date and the commit (meta.txt's git); rows the run did not
measure keep theirs. A run under the cache model (cache_model=1 in
meta.txt) updates only the cache model's rows: the guest's own figures of
that run count fewer packets through another fq. Rows without a run key
or with a run_metric no run's summary.csv has (late_p999: a figure read
off a CDF) are updated by hand. Then run --write on README.md and
docs/benchmark.md.
"""
import csv
import functools
import hashlib
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CSV = os.path.join(ROOT, "docs", "results.csv")
BEGIN = re.compile(r"^<!-- bench-table (headline|full|cache|native|native-full) -->$")
END = "<!-- bench-table end -->"


def read_rows():
    with open(CSV, newline="") as f:
        return list(csv.DictReader(f))


def git(*args):
    return subprocess.run(("git", "-C", ROOT) + args, capture_output=True, check=True).stdout


@functools.lru_cache(maxsize=None)
def series_hash(commit=None):
    """scripts/lib/series.sh's series_hash of the 6.1 series at COMMIT (None:
    the working tree): the series file, then each patch's diff (from its
    first "diff --git" line): a mail's headers and message are not the
    code measured."""
    def read(path):
        if commit is None:
            with open(os.path.join(ROOT, path), "rb") as f:
                return f.read()
        return git("show", "%s:%s" % (commit, path))
    series = read("series")
    h = hashlib.sha256(series)
    for line in series.decode().split("\n"):
        words = line.split()
        if words and not words[0].startswith("#"):
            text = read("patches/" + words[0])
            at = text.find(b"\ndiff --git ")
            h.update(text[at + 1:] if at >= 0 else b"")
    return h.hexdigest()[:16]


@functools.lru_cache(maxsize=None)
def versions():
    """CHANGELOG's versions, oldest first: (name, commit)."""
    with open(os.path.join(ROOT, "CHANGELOG")) as f:
        found = re.findall(r"^## (v[0-9]+) \(([0-9a-f]{7,40})[,)]", f.read(), re.M)
    return sorted(found, key=lambda v: int(v[0][1:]))


@functools.lru_cache(maxsize=None)
def series_label(commit):
    """Which version of the series COMMIT held: current, vN or after vN
    (bench-table's series column)."""
    commit = commit.split("-dirty")[0]
    if not commit:
        return "-"
    try:
        h = series_hash(commit)
    except subprocess.CalledProcessError:
        return "unknown commit"
    if h == series_hash():
        return "current"
    after = "before v1"
    for name, vcommit in versions():
        if series_hash(vcommit) == h:
            return name
        if subprocess.run(("git", "-C", ROOT, "merge-base", "--is-ancestor", vcommit, commit)).returncode == 0:
            after = "after " + name
    return after


def spread(r):
    xs = [r["spread_stock61"] or "-", r["spread_series"] or "-"]
    if r["stock72"]:
        xs.append(r["spread_stock72"] or "-")
    return "-" if all(x == "-" for x in xs) else " / ".join(xs)


def is_cache(r):
    return r["workload"].startswith("cache-")


def is_native(r):
    return r["workload"].startswith("native-")


# Below this many misses per packet on both kernels a ratio says nothing.
CACHE_FLOOR = 0.02


def ratio_cell(r, key, ref):
    """The row's ratio KEY (series over the REF column), bold; "-" when
    there is none, or when a cache-model row's two figures are both under
    CACHE_FLOOR."""
    if not r[key] or is_cache(r) and max(float(r["series"]), float(r[ref] or 0)) < CACHE_FLOOR:
        return "-"
    return "**%s**" % r[key]


def table(kind):
    if kind == "cache":
        return cache_table()
    if kind in ("native", "native-full"):
        return native_table(kind == "native-full")
    rows = [r for r in read_rows() if not is_native(r) and (kind == "full" or r["headline"] == "1")]
    out = ["| point | metric | 6.1 | series | **series/6.1** | 7.2 | **series/7.2** "
           "| spread 6.1 / series / 7.2 | boots | date | commit | series |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        unit = " " + r["unit"]
        out.append("| %s | %s | %s%s | %s%s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["point"], r["metric"], r["stock61"], unit, r["series"], unit, ratio_cell(r, "ratio", "stock61"),
            (r["stock72"] + unit) if r["stock72"] else "not measured",
            ratio_cell(r, "ratio72", "stock72"), spread(r),
            r["boots"], r["date"], r["commit"], series_label(r["commit"])))
    kernels = sorted({r["stock61_kernel"] for r in rows})
    k72 = sorted({r["stock72_kernel"] for r in rows if r["stock72_kernel"]})
    out.append("")
    out.append("Generated by `scripts/bench-table.py` from `docs/results.csv` (stock %s and %s; the series on "
               "the 6.1 tree; commit: the fq-pacing commit that held the measured series; series: %s). Exact clock: guest "
               "instructions, %s. series/7.2 compares the series with stock 7.2 in the same run; "
               "\"not measured\": that point has not run beside 7.2 yet." % (
                   ", ".join(kernels), ", ".join(k72) if k72 else "7.2 (not yet)", SERIES_NOTE,
                   "and misses per packet from the cache model (`scripts/bench.sh --cache-model`, "
                   "docs/cache-model.md) in the rows that say so (no ratio of two figures under %g)" % CACHE_FLOOR
                   if any(map(is_cache, rows)) else "no cache model"))
    return out


SERIES_NOTE = ("which version of the series that was, from git: current, a version of the CHANGELOG (vN), "
               "or a state after vN older than the current one")


# The cache model's levels in the cache block, by the run metric of their
# rows (misses per packet through fq: its whole path).
CACHE_LEVELS = (("fq_l1d_miss", "L1d"), ("fq_l2_miss", "L2"), ("fq_llc_miss", "LLC"))


def cache_table():
    """The cache model's rows, one line per point: each level's misses per
    packet on 6.1, the series and 7.2, the LLC ratios and spreads."""
    points = {}
    for r in read_rows():
        if is_cache(r):
            points.setdefault(r["point"], {})[r["run_metric"]] = r
    out = ["| point | " + " | ".join("%s 6.1 / series / 7.2" % n for _, n in CACHE_LEVELS)
           + " | **LLC series/6.1** | **LLC series/7.2** | LLC spread 6.1 / series / 7.2 | boots | date | commit "
           "| series |",
           "|---|" + "---|" * (len(CACHE_LEVELS) + 8)]

    for point, lv in points.items():
        llc = lv.get("fq_llc_miss")
        if not llc:
            sys.exit("docs/results.csv: cache point '%s' has no fq_llc_miss row" % point)
        cells = [" / ".join(x or "-" for x in (lv[m]["stock61"], lv[m]["series"], lv[m]["stock72"]))
                 if m in lv else "-" for m, _ in CACHE_LEVELS]
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            point, " | ".join(cells), ratio_cell(llc, "ratio", "stock61"), ratio_cell(llc, "ratio72", "stock72"),
            spread(llc), llc["boots"], llc["date"], llc["commit"], series_label(llc["commit"])))
    out += ["", "Generated by `scripts/bench-table.py` from `docs/results.csv`: misses per packet through fq "
            "(the packet's whole path, fq included) under the cache model (`scripts/bench.sh --cache-model`: "
            "a QEMU plugin simulating one Sapphire Rapids core's L1d, L2 and an LLC share; a model, not a "
            "machine), median of the boots; spread (max - min) / median over the boots; \"-\": under %g "
            "misses per packet on both kernels (tens of misses in a run, whose spread says nothing), "
            "no ratio; series: %s." % (CACHE_FLOOR, SERIES_NOTE)]
    return out


def native_ratio(r, key, ci):
    """A native ratio, bold, with its interval, or "no difference" when
    the interval holds 1.0; without a ratio (a figure at or below zero on
    some boot), the paired difference and its interval."""
    if not r[key]:
        d = r.get("diff" if key == "ratio" else "diff72", "")
        return "no ratio; difference %s" % d if d else "-"
    lo, _, hi = r[ci].partition("-")
    if lo and float(lo) <= 1.0 <= float(hi):
        return "%s (%s-%s): no difference" % (r[key], lo, hi)
    return "**%s** (%s-%s)" % (r[key], lo, hi) if lo else "**%s**" % r[key]


def native_table(full):
    """The native rows, one line per point: ns per packet of the UML
    kernels, series/6.1 and series/7.2 with their intervals, beside the
    exact-mode instruction ratio and the cache model's LLC ratio of the
    same point (its exact row: the workload without native-, the
    classified pktgen points' misses from the cache model's rows)."""
    rows = read_rows()
    by_key = {(r["workload"], r["variant"], r["run_metric"]): r for r in rows}
    out = ["| point | metric | 6.1 | series | **series/6.1** (95 % interval) | 7.2 | **series/7.2** (95 % interval) "
           "| insn series/6.1 (exact) | LLC series/6.1 (model) | boots | date | commit | series |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if not is_native(r) or not full and r["headline"] != "1":
            continue
        w, v = r["workload"][len("native-"):], r["variant"]
        base = v.replace("/classified", "")
        insn = by_key.get((w, v, r["run_metric"])) if r["run_metric"] == "fq_cost" else None
        llc = by_key.get(("cache-" + w, base, "fq_llc_miss")) if v.endswith("/classified") or w != "pktgen" else None
        unit = " " + r["unit"]
        out.append("| %s | %s | %s%s | %s%s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["point"], r["metric"], r["stock61"], unit, r["series"], unit, native_ratio(r, "ratio", "ci"),
            (r["stock72"] + unit) if r["stock72"] else "not measured", native_ratio(r, "ratio72", "ci72"),
            insn["ratio"] if insn and insn["ratio"] else "-",
            ratio_cell(llc, "ratio", "stock61").strip("*") if llc else "-",
            r["boots"], r["date"], r["commit"], series_label(r["commit"])))
    out += ["", "Generated by `scripts/bench-table.py` from `docs/results.csv`: ns per packet of the kernels "
            "built for User-Mode Linux and run as host processes on this machine's CPU (`scripts/bench.sh "
            "--native`; one CPU, no NIC, timers through host signals: docs/benchmark.md#native-time): the UML "
            "process's CPU time from the host's scheduler, median of the boots; \"fq cost\": fq minus pfifo in "
            "the same boot, \"through fq\": the whole path with fq; each ratio the median of the boots' paired "
            "ratios (kernels interleaved) with its distribution-free 95 %% interval; \"no difference\": the "
            "interval holds 1.0. insn: the exact-mode ratio of the same point (fq cost), LLC: the cache model's "
            "(whole path through fq); \"-\": not measured there. series: %s." % SERIES_NOTE]
    return out


def blocks(path, fix):
    """Returns the file's lines with every block regenerated, and whether any differed."""
    with open(path) as f:
        lines = f.read().split("\n")
    out, i, differs, found = [], 0, False, 0
    while i < len(lines):
        m = BEGIN.match(lines[i])
        out.append(lines[i])
        i += 1
        if not m:
            continue
        found += 1
        j = i
        while j < len(lines) and lines[j] != END:
            j += 1
        if j == len(lines):
            sys.exit("%s: '%s' has no '%s' after it" % (path, lines[i - 1], END))
        want = table(m.group(1))
        if lines[i:j] != want:
            differs = True
        out.extend(want)
        i = j
    if not found:
        sys.exit("%s: no '<!-- bench-table headline|full -->' block" % path)
    return out, differs


def num(v):
    x = float(v)
    if abs(x) >= 1000 or x == int(x):
        return "%.0f" % x
    # Misses per packet run down to 1e-4: three significant digits.
    return "%.1f" % x if abs(x) >= 10 else "%.3g" % x


def pct(v):
    return "" if v == "" else "%.2f%%" % (100 * float(v))


def run_command(meta):
    """The scripts/bench.sh command line that made a run, from its meta.txt."""
    cmd = ["scripts/bench.sh"]
    if meta.get("clock") == "wall":
        cmd.append("--clock wall")
    if meta.get("mode") == "--quick":
        cmd.append("--quick")
    if meta.get("cache_model") == "1":
        cmd.append("--cache-model")
    if meta.get("count_insns") == "1":
        cmd.append("--count-insns")
    if meta.get("workloads"):
        cmd.append("--only " + ",".join(meta["workloads"].split()))
    if meta.get("reps"):
        cmd.append("--reps " + meta["reps"])
    if meta.get("kernels") and meta["kernels"] != "stock patched":
        cmd.append("--kernels " + ",".join(meta["kernels"].split()))
    cmd.extend("--set " + v for v in meta.get("set", "").split())
    return " ".join(cmd)


def update(rundir, only=None):
    """Takes the run's medians into the CSV (only the workloads in ONLY,
    when given); returns how many rows changed."""
    meta = {}
    for line in open(os.path.join(rundir, "meta.txt")):
        k, _, v = line.rstrip("\n").partition("=")
        meta[k] = v
    with open(os.path.join(rundir, "summary.csv"), newline="") as f:
        got = {(r["workload"], r["variant"], r["metric"]): r for r in csv.DictReader(f)}
    k72 = ""
    if os.path.exists(os.path.join(rundir, "base72.txt")):
        k72 = open(os.path.join(rundir, "base72.txt")).read().split(",")[0].strip()
    rows = read_rows()
    changed = 0
    for r in rows:
        s = got.get((r["workload"], r["variant"], r["run_metric"]))
        if not r["workload"] or not s or s["stock_median"] == "" or s["patched_median"] == "":
            continue
        if only and r["workload"] not in only:
            continue
        if is_cache(r) != (meta.get("cache_model") == "1") or is_native(r):
            continue
        r.update(stock61=num(s["stock_median"]), series=num(s["patched_median"]),
                 ratio="%.3f" % float(s["ratio"]) if s["ratio"] else "",
                 spread_stock61=pct(s["stock_spread"]), spread_series=pct(s["patched_spread"]),
                 boots=s["stock_n"], date=meta.get("date", "")[:10], commit=meta.get("git", ""),
                 command=run_command(meta))
        s72 = s.get("stock72_median", "")
        r.update(stock72=num(s72) if s72 else "", spread_stock72=pct(s.get("stock72_spread", "")) if s72 else "",
                 ratio72="%.3f" % float(s["ratio72"]) if s72 and s.get("ratio72") else "",
                 stock72_kernel=k72 if s72 else "")
        changed += 1
    with open(CSV, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    return changed


def main(argv):
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    if len(argv) in (2, 3) and argv[0] == "--update":
        only = set(argv[2].split(",")) if len(argv) == 3 else None
        print("%d rows of %s taken from %s" % (update(argv[1], only), CSV, argv[1]))
        return 0
    if argv in ([], ["--headline"], ["--cache"], ["--native"]):
        print("\n".join(table(argv[0][2:] if argv else "full")))
        return 0
    if len(argv) < 2 or argv[0] not in ("--write", "--check"):
        sys.stderr.write(__doc__)
        return 2
    bad = 0
    for path in argv[1:]:
        out, differs = blocks(path, argv[0] == "--write")
        if argv[0] == "--write" and differs:
            with open(path, "w") as f:
                f.write("\n".join(out))
        elif differs:
            print("%s: its results table differs from docs/results.csv (or the series column from git's series): "
                  "run scripts/bench-table.py --write %s"
                  % (path, path))
            bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
