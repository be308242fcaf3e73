#!/usr/bin/env python3
"""Exact per-function instruction profiles from the insncount QEMU plugin.

  insn-profile.py VMLINUX COUNTS [--per N] [--top K]
  insn-profile.py --compare A_VMLINUX A_COUNTS B_VMLINUX B_COUNTS
                  [--per-a N] [--per-b N] [--top K] [--match REGEX]

COUNTS is what boot-and-test.sh --insn-profile wrote: "address count" per
translation block, the guest kernel instructions retired in the block over
the whole boot. Each block is charged to the text symbol at or below its
address (nm -n VMLINUX). --per divides by a unit count (packets, MB) to
give instructions per unit. --compare puts two boots side by side (A: the
stock kernel, B: the series, say), each divided by its own unit count,
sorted by the size of the difference; --match keeps the functions whose
name matches (a regular expression) and sums the rest as "(other)".
"""
import argparse
import bisect
import re
import subprocess
import sys


def symbols(vmlinux):
    try:
        out = subprocess.run(["nm", "-n", vmlinux], check=True,
                             capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"insn-profile: nm {vmlinux} failed ({e}): is it the booted kernel's vmlinux?")
    addrs, names = [], []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "tTwW":
            addrs.append(int(f[0], 16))
            names.append(f[2])
    if not addrs:
        sys.exit(f"insn-profile: no text symbols in {vmlinux}")
    return addrs, names


def profile(vmlinux, counts):
    addrs, names = symbols(vmlinux)
    per = {}
    try:
        lines = open(counts).read().split("\n")
    except OSError as e:
        sys.exit(f"insn-profile: {e}: did the boot power off cleanly (the plugin writes at exit)?")
    for line in lines:
        if not line:
            continue
        a, n = line.split()
        i = bisect.bisect_right(addrs, int(a, 16)) - 1
        name = names[i] if i >= 0 else "(below text)"
        per[name] = per.get(name, 0) + int(n)
    if not per:
        sys.exit(f"insn-profile: {counts} is empty")
    return per


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--compare", action="store_true")
    ap.add_argument("--per", type=float, default=1.0)
    ap.add_argument("--per-a", type=float, default=1.0)
    ap.add_argument("--per-b", type=float, default=1.0)
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--match", default="")
    a = ap.parse_args()
    want = 4 if a.compare else 2
    if len(a.files) != want:
        ap.error(f"expected {want} files, got {len(a.files)}")

    if not a.compare:
        p = profile(*a.files)
        total = sum(p.values())
        print(f"# total {total / a.per:.1f} per unit ({total} instructions / {a.per:g})")
        print(f"{'function':<44} {'per unit':>12} {'share':>7}")
        for name, n in sorted(p.items(), key=lambda kv: -kv[1])[:a.top]:
            print(f"{name:<44} {n / a.per:>12.1f} {100 * n / total:>6.2f}%")
        return

    pa = profile(a.files[0], a.files[1])
    pb = profile(a.files[2], a.files[3])
    rx = re.compile(a.match) if a.match else None
    rows = {}
    for name in set(pa) | set(pb):
        key = name if rx is None or rx.search(name) else "(other)"
        ra = rows.setdefault(key, [0.0, 0.0])
        ra[0] += pa.get(name, 0) / a.per_a
        ra[1] += pb.get(name, 0) / a.per_b
    ta = sum(v[0] for v in rows.values())
    tb = sum(v[1] for v in rows.values())
    print(f"# per unit: A {ta:.1f}, B {tb:.1f}, B - A {tb - ta:+.1f}"
          f" ({tb / ta:.4f}x)" if ta else "# A is empty")
    print(f"{'function':<44} {'A':>11} {'B':>11} {'B - A':>10} {'B/A':>8}")
    for name, (x, y) in sorted(rows.items(), key=lambda kv: -abs(kv[1][1] - kv[1][0]))[:a.top]:
        ratio = f"{y / x:.3f}" if x else "-"
        print(f"{name:<44} {x:>11.1f} {y:>11.1f} {y - x:>+10.1f} {ratio:>8}")


if __name__ == "__main__":
    main()
