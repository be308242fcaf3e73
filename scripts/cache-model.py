#!/usr/bin/env python3
"""Read the cache model's windows (tests/host/cachemodel.c).

  cache-model.py calibrate DIR GUEST-LIST [FIRST]
      KTAP cases (numbered from FIRST, default 1) that judge the calibration
      walks: DIR/windows.txt is the plugin's, GUEST-LIST the guest's
      "SIZE STRIDE PASSES ACCESSES" lines, one per window, in order.
      Exit 1 if a case failed.
  cache-model.py rows DIR GUEST-LIST KERNEL REP
      bench rows (raw.csv's columns; workload cache-<point's workload>)
      from the guest's "LABEL PACKETS" windows (tests/bench/bench-lib.bash
      cm_open/cm_close, LABEL workload|variant|qdisc): instructions and
      misses per packet of each level, the median over the windows of one
      label, and fq - pfifo; the per-instruction misses of each label into
      DIR/merged/ for scripts/insn-profile.py.
  cache-model.py table RUNDIR
      RUNDIR/cache.md from raw.csv: the points side by side, per level,
      each stock kernel of the run (6.1, 7.2) beside the series, the
      series' ratios to each, the spread between boots, and the targets.

The model's geometry is in windows.txt's first line; the calibration's
expectations follow from it: an array no larger than two thirds of a
level fits it (after the warm-up pass, ~0 misses per access there), one
at least twice a level's size misses it on every line (LRU, no prefetch).
"""
import csv
import os
import re
import statistics
import sys

LEVELS = ("l1d", "l1i", "l2", "llc")


def windows(path):
    geo, wins = {}, []
    try:
        text = open(path).read()
    except OSError as e:
        sys.exit(f"cache-model: {e}: did the guest boot with --cache-model (the plugin writes it)?")
    for line in text.splitlines():
        if line.startswith("#"):
            for name, size, ways in re.findall(r"(\w+) (\d+)K:(\d+)", line):
                geo[name] = (int(size) << 10, int(ways))
            continue
        f = line.split()
        if len(f) < 4 or f[0] != "window":
            continue
        wins.append({f[i]: int(f[i + 1]) for i in range(2, len(f) - 1, 2)})
    return geo, wins


def guest_lines(path):
    try:
        return [line.split() for line in open(path).read().splitlines() if line.strip()]
    except OSError as e:
        sys.exit(f"cache-model: {e}: the guest's window list is missing (did its case run?)")


def size_bytes(s):
    m = re.fullmatch(r"(\d+)([KkMm]?)", s)
    if not m:
        sys.exit(f"cache-model: bad size {s}")
    return int(m.group(1)) << {"": 0, "k": 10, "m": 20}[m.group(2).lower()]


def calibrate(d, guest, first):
    geo, wins = windows(f"{d}/windows.txt")
    walks = guest_lines(guest)
    n, bad = first, 0
    if len(wins) != len(walks):
        print(f"not ok {n} cachemodel_windows # the plugin closed {len(wins)} windows, the guest walked {len(walks)}")
        return 1
    for (size, stride, passes, acc), w in zip(walks, wins):
        acc, sz = int(acc), size_bytes(size)
        rates = {lv: w[f"{lv}_miss"] / acc for lv in ("l1d", "l2", "llc")}
        # A walk visits each line once per pass: it hits in every level
        # it fits and misses the ones it overflows.
        want = {}
        for lv in ("l1d", "l2", "llc"):
            cap = geo[lv][0]
            if 3 * sz <= 2 * cap:
                want[lv] = (0.0, 0.05)
            elif sz >= 2 * cap:
                want[lv] = (0.95, 1.05)
        got_acc = w["l1d_acc"] / acc
        # One load per step, plus what else ran in the window (a tick).
        ok = 1.0 <= got_acc <= 1.10
        ok = ok and all(lo <= rates[lv] <= hi for lv, (lo, hi) in want.items())
        detail = ", ".join(f"{lv} {rates[lv]:.3f}" + (f" (want {lo:g}-{hi:g})" if lv in want else "")
                           for lv, (lo, hi) in [(x, want.get(x, (0, 0))) for x in ("l1d", "l2", "llc")])
        verdict = "ok" if ok else "not ok"
        bad += not ok
        print(f"{verdict} {n} cachemodel_walk_{size}_stride{stride} # misses per access: {detail};"
              f" L1d accesses per read {got_acc:.3f} (want 1-1.1); {acc} reads")
        n += 1
    return 1 if bad else 0


def label_file(label):
    return re.sub(r"[^A-Za-z0-9.-]+", "_", label)


def rows(d, guest, kernel, rep):
    """raw.csv rows of one boot: each label's instructions and misses per
    packet, the median over its windows (one window per label but for the
    cold qdisc's, one packet each, where an interrupt that lands in one
    window holds several times the packet's own work); also
    DIR/merged/LABEL.LEVEL ("address misses", all windows of the label
    summed, insn-profile.py's input) and DIR/merged/LABEL.pkts."""
    _, wins = windows(f"{d}/windows.txt")
    labels = guest_lines(guest)
    if len(wins) != len(labels):
        sys.exit(f"cache-model: {d}/windows.txt has {len(wins)} windows, the guest labelled {len(labels)}:"
                 " a boot that did not power off cleanly, or a mark outside cm_open/cm_close")
    per, npkts, prof = {}, {}, {}
    for seq, ((label, pkts), w) in enumerate(zip(labels, wins), 1):
        per.setdefault(label, []).append({k: v / int(pkts) for k, v in w.items()})
        npkts[label] = npkts.get(label, 0) + int(pkts)
        p = prof.setdefault(label, {})
        try:
            for line in open(f"{d}/{seq}.prof"):
                f = line.split()
                c = p.setdefault(f[0], [0] * len(LEVELS))
                for i in range(len(LEVELS)):
                    c[i] += int(f[1 + i])
        except OSError:
            pass  # a window without kernel misses writes no file
    os.makedirs(f"{d}/merged", exist_ok=True)
    out = []
    for label, ws in per.items():
        workload, variant, qdisc = label.split("|")
        pk = npkts[label]
        s = {k: statistics.median(w[k] for w in ws) for k in ws[0]}
        base = f"{d}/merged/{label_file(label)}"
        open(base + ".pkts", "w").write(f"{pk}\n")
        for i, lv in enumerate(LEVELS):
            with open(f"{base}.{lv}", "w") as f:
                for a, c in prof[label].items():
                    if c[i]:
                        f.write(f"{a} {c[i]}\n")
        out.append((workload, variant, f"{qdisc}_insn", s["insns"], "insn/pkt"))
        for lv in LEVELS:
            out.append((workload, variant, f"{qdisc}_{lv}_miss", s[lv + "_miss"], "miss/pkt"))
    cost = {}
    for wl, var, metric, v, unit in out:
        q, m = metric.split("_", 1)
        cost.setdefault((wl, var, m, unit), {})[q] = v
    for (wl, var, m, unit), qs in cost.items():
        if "fq" in qs and "pfifo" in qs:
            out.append((wl, var, f"cost_{m}", qs["fq"] - qs["pfifo"], unit))
    for wl, var, metric, v, unit in out:
        print(f"{kernel},{rep},cache-{wl},{var},{metric},{v:.4f},{unit}")
    return 0


# The kernels of a run as raw.csv names them, and as the table does; the
# series is compared with each other kernel present. A run without the
# 6.1 series (--kernels stock72,patched72-N,...,patched72) compares 7.2
# with the whole upstream series (patched72) with 7.2 and each prefix.
KERNELS = (("stock", "6.1"), ("patched", "series"), ("stock72", "7.2"))


def kernel_names(present):
    """(raw.csv name, table name) of the kernels present, in table order,
    and the one the others are compared with."""
    ks = [(k, n) for k, n in KERNELS if k in present]
    ks += [(k, "7.2+" + k.split("-")[1]) for k in sorted(
        (k for k in present if re.fullmatch(r"patched72-\d+", k)), key=lambda k: int(k.split("-")[1]))]
    if "patched72" in present:
        ks.append(("patched72", "7.2+all"))
    series = "patched" if "patched" in present else "patched72"
    return ks, series
POINT_ORDER = ("pktgen", "pacing", "backlog", "coldq")
# Targets on the LLC misses per packet of fq's whole path, series/6.1:
# these points at most 0.7, every point at most 1.05 (any level).
LLC_TARGETS = {("pktgen", "1000000-flows/64B"): 0.7, ("pacing", "100000-flows"): 0.7}
LIMIT = 1.05


def table(rundir):
    """RUNDIR/cache.md from raw.csv's cache-* rows: medians of the boots,
    the spread (max - min) between them, the series against each stock
    kernel, and the targets."""
    vals = {}
    for r in csv.reader(open(f"{rundir}/raw.csv")):
        if len(r) == 7 and r[2].startswith("cache-"):
            vals.setdefault((r[2][6:], r[3], r[4]), {}).setdefault(r[0], []).append(float(r[5]))
    ks, series = kernel_names({k for v in vals.values() for k in v})
    sname = dict(ks).get(series, series)
    refs = [(k, n) for k, n in ks if k != series]
    points = sorted({(wl, var) for wl, var, _ in vals}, key=lambda p: (
        POINT_ORDER.index(p[0]) if p[0] in POINT_ORDER else len(POINT_ORDER),
        int(re.match(r"\D*(\d*)", p[1]).group(1) or 0)))

    def med(wl, var, metric, k):
        x = vals.get((wl, var, metric), {}).get(k)
        return (statistics.median(x), max(x) - min(x)) if x else (None, None)

    def cell(v):
        if v[0] is None:
            return "-"
        return f"{v[0]:.3f} [{v[1]:.3f}]" if abs(v[0]) < 100 else f"{v[0]:.0f} [{v[1]:.0f}]"

    def ratio(a, b):
        return a / b if a is not None and b else None

    def rtext(cost, whole):
        t = f"{cost:.3f}" if cost is not None and cost > 0 else "n/a"
        return t + (f" ({whole:.3f})" if whole is not None else "")

    md = ["Cache model (tests/host/cachemodel.c, docs/cache-model.md): misses per packet, median of the boots "
          "[spread: max - min between boots]; fq cost = fq - pfifo in the same boot. series/X is the ratio "
          "of the fq costs (and of fq's whole path in brackets).", "",
          "| point | level | " + " | ".join(f"{n} fq | {n} pfifo | **{n} fq cost**" for _, n in ks)
          + "".join(f" | {sname}/{n}" for _, n in refs) + " |",
          "|---|---|" + "---|" * (3 * len(ks) + len(refs))]
    # (point, level) -> series/X of fq's whole path and of its cost, per X.
    ratios = {}
    for wl, var in points:
        for lv in ("insn",) + tuple(f"{x}_miss" for x in LEVELS):
            c = {k: [med(wl, var, f"{q}_{lv}", k) for q in ("fq", "pfifo", "cost")] for k, _ in ks}
            rs = []
            for k, _ in refs:
                whole = ratio(c[series][0][0], c[k][0][0])
                cost = ratio(c[series][2][0], c[k][2][0]) if (c[k][2][0] or 0) > 0 else None
                ratios[(wl, var, lv, k)] = (whole, cost, c[k][0][0], c[series][0][0])
                rs.append(rtext(cost, whole))
            md.append(f"| {wl} {var} | {lv.replace('_miss', '')} | " + " | ".join(
                cell(v) if i % 3 != 2 else f"**{cell(v)}**" for k, _ in ks for i, v in enumerate(c[k]))
                + "".join(f" | {r}" for r in rs) + " |")
    md += ["", f"Targets, series/6.1 of the misses per packet through fq (its whole path; its cost in brackets): "
           f"LLC <= 0.7 at 1M flows and at 100k throttled flows, every level <= {LIMIT} everywhere"
           + ("; series/7.2 beside them" if ("stock72", "7.2") in ks else "") + ":", ""]
    for wl, var in points:
        r = ratios.get((wl, var, "llc_miss", "stock"))
        if not r or r[0] is None:
            continue
        whole, cost, fs, fp = r
        lim = LLC_TARGETS.get((wl, var), LIMIT)
        over = [f"{lv.replace('_miss', '').upper()} {ratios[(wl, var, lv, 'stock')][0]:.3f}"
                for lv in (f"{x}_miss" for x in ("l1d", "l1i", "l2"))
                if (ratios[(wl, var, lv, "stock")][0] or 0) > LIMIT]
        r72 = ratios.get((wl, var, "llc_miss", "stock72"))
        vs72 = f"; series/7.2 {r72[0]:.3f}" if r72 and r72[0] is not None else ""
        if max(fs, fp) < 0.02:
            line = (f"- {wl} {var}: both kernels under 0.02 LLC misses per packet ({fs:.4f}, {fp:.4f}): "
                    "no LLC ratio")
        else:
            line = (f"- {wl} {var}: LLC {whole:.3f}" + (f" ({cost:.3f})" if cost is not None else "") + f", limit {lim}: "
                    f"{'met' if round(whole, 3) <= lim else 'NOT met'}{vs72}")
        md.append(line + (f"; over {LIMIT}: {', '.join(over)}" if over else ""))
    text = "\n".join(md) + "\n"
    open(f"{rundir}/cache.md", "w").write(text)
    sys.stdout.write(text)
    return 0


def main():
    a = sys.argv[1:]
    if a[:1] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    if len(a) in (3, 4) and a[0] == "calibrate":
        return calibrate(a[1], a[2], int(a[3]) if len(a) == 4 else 1)
    if len(a) == 5 and a[0] == "rows":
        return rows(*a[1:])
    if len(a) == 2 and a[0] == "table":
        return table(a[1])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
