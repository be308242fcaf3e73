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
Each kind of experiment is rendered by a module of scripts/render_demo/.
"""

import os
import re
import sys
import traceback

if sys.argv[1:2] in (["-h"], ["--help"]):
    print(__doc__.strip())
    sys.exit(0)
if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
    sys.stderr.write(__doc__)
    sys.exit(2)

# After the usage check: render_demo.common takes the run directory from
# the command line.
from render_demo.common import CLAIMS, EXPS, PLOTS, RUN, ddir, ij  # noqa: E402
from render_demo.flowtable import gc, memory  # noqa: E402
from render_demo.loss import chunked, gro, lossy, police, shallow  # noqa: E402
from render_demo.sharing import fairness, newflows, unfair  # noqa: E402
from render_demo.timing import burstiness, spacing  # noqa: E402


SEED1 = ("pfifo + tcp_min_tso_segs=44", "fq")  # seed 001's before and after (mode_qdisc)


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
