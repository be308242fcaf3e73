#!/usr/bin/env python3
"""The CPU time a UML kernel spends in a bench window, from the host.

usage: uml-cpu.py sample PID OUT          every 2 ms until PID is gone, one
                                          line "REALTIME_NS CPU_NS" to OUT
       uml-cpu.py rows RUNDIR KERNEL REP  the boot's raw.csv rows (stdout)

Under UML the guest's clock is the host's, so pktgen's own timing and the
guest's busy time are wall-clock ns of a process that shares its CPU with
everything else on the host: a window in which the host ran another job
on that CPU reads longer. The host's scheduler knows how long the UML
process itself ran: the first field of /proc/PID/task/*/schedstat (ns on
the CPU), summed over its threads. "sample" (boot-and-test.sh --config
uml) records it; the guest stamps each window's edges with its wall
clock (tests/bench/bench-lib.bash, nm_stamp, in RUNDIR/results/data/
native.marks) and labels it (cachemodel.windows: "workload|variant|qdisc"
and its packets, as for the cache model). "rows" interpolates the CPU
time at each edge and gives each point the least CPU ns per packet of
its windows (the guest keeps the least busy window too), as fq_ns,
pfifo_ns and fq_cost; the guest's own wall-clock figures stay beside them
as fq_wall_ns, pfifo_wall_ns and fq_wall_cost. What the guest's user
processes run in their own host processes is not in it: the kernel's
code, pktgen and the qdiscs run in the UML process.
"""
import bisect
import glob
import os
import sys
import time


def cpu_ns(pid):
    total = 0
    for f in glob.glob("/proc/%d/task/*/schedstat" % pid):
        try:
            with open(f) as fh:
                total += int(fh.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass
    return total


def sample(pid, out):
    with open(out, "w") as f:
        while os.path.exists("/proc/%d" % pid):
            c = cpu_ns(pid)
            f.write("%d %d\n" % (time.time_ns(), c))
            time.sleep(0.002)
    return 0


def load_samples(path):
    ts, cs = [], []
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) == 2 and int(p[1]) > 0:
                ts.append(int(p[0]))
                cs.append(int(p[1]))
    return ts, cs


def at(ts, cs, t):
    """CPU ns at wall time t, linear between the two samples around it."""
    i = bisect.bisect_left(ts, t)
    if i == 0 or i == len(ts):
        return None
    t0, t1, c0, c1 = ts[i - 1], ts[i], cs[i - 1], cs[i]
    return c0 + (c1 - c0) * (t - t0) / (t1 - t0) if t1 > t0 else c0


def rows(rundir, kernel, rep):
    data = os.path.join(rundir, "results", "data")
    guest = os.path.join(data, "bench.csv")
    out = []
    renamed = {"fq_ns": "fq_wall_ns", "pfifo_ns": "pfifo_wall_ns", "fq_cost": "fq_wall_cost"}
    least = {}
    try:
        ts, cs = load_samples(os.path.join(rundir, "uml-cpu.txt"))
        with open(os.path.join(data, "native.marks")) as f:
            marks = [line.split() for line in f if line.strip()]
        with open(os.path.join(data, "cachemodel.windows")) as f:
            labels = [line.rsplit(" ", 1) for line in f if line.strip()]
    except OSError:
        ts, marks, labels = [], [], []
    opens = [int(m[1]) * 1000 for m in marks if m[0] == "open"]
    closes = [int(m[1]) * 1000 for m in marks if m[0] == "close"]
    if not (len(opens) == len(closes) == len(labels)):
        sys.stderr.write("uml-cpu.py: %s: %d opens, %d closes, %d labels: no CPU figures\n"
                         % (rundir, len(opens), len(closes), len(labels)))
        opens = closes = labels = []
    for t0, t1, (label, pkts) in zip(opens, closes, labels):
        c0, c1 = at(ts, cs, t0), at(ts, cs, t1)
        if c0 is None or c1 is None or int(pkts) <= 0:
            continue
        wl, var, q = label.split("|")
        key = (wl, var, q.split("#")[0] + "_ns")
        least[key] = min(least.get(key, float("inf")), (c1 - c0) / int(pkts))
    got = dict(least)
    for (wl, var, m) in least:
        if m == "fq_ns" and (wl, var, "pfifo_ns") in least:
            got[(wl, var, "fq_cost")] = least[(wl, var, m)] - least[(wl, var, "pfifo_ns")]
    if os.path.exists(guest):
        with open(guest) as f:
            for line in f:
                p = line.rstrip("\n").split(",")
                if len(p) != 5:
                    continue
                # The exact workloads' figures are the host's wall ns here.
                p[2] = p[2].replace("_insn", "_ns").replace("insn_per_pkt", "ns_per_pkt")
                p[4] = p[4].replace("insn/", "ns/")
                if (p[0], p[1], p[2]) in got or (p[0], p[1], "fq_ns") in got and p[2] in renamed:
                    p[2] = renamed.get(p[2], p[2])
                out.append("%s,%s,%s" % (kernel, rep, ",".join(p)))
    for (wl, var, m), v in sorted(got.items()):
        out.append("%s,%s,%s,%s,%s,%.1f,ns/pkt" % (kernel, rep, wl, var, m, v))
    print("\n".join(out))
    return 0


def main(argv):
    if len(argv) == 3 and argv[0] == "sample":
        return sample(int(argv[1]), argv[2])
    if len(argv) == 4 and argv[0] == "rows":
        return rows(*argv[1:])
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
