"""TCP through loss: random loss (lossy), a token-bucket policer with and
without receiver GRO (police, gro), a chunked sender behind the policer
(chunked) and a shallow queue at a rate step (shallow); each point's
runs, their spread and the verdicts."""

import os
import re
import statistics

from render_demo.common import COLORS, TERM, claim, dat, ddir, gnuplot, ij, kv, mbit, pct, spread
from render_demo.pcap import ipv4, pcap_records


def runs_of(exp, pattern):
    """Receiver goodput (Mbit/s) and retransmits of each run's iperf3 JSON,
    pattern % run for run = 1, 2, ... while the files exist."""
    out, r = [], 1
    while os.path.exists(ddir(exp, pattern % r)):
        j = ij(ddir(exp, pattern % r))
        out.append((mbit(j["end"]["sum_received"]["bits_per_second"]), j["end"]["sum_sent"].get("retransmits", 0)))
        r += 1
    return out


def compare_runs(label, before, after, claim_text, source):
    """A table row and a claim line for before/after run lists."""
    if not before or not after:
        raise ValueError("no runs for %s" % label)
    gb, ga = spread([g for g, _ in before]), spread([g for g, _ in after])
    rb, ra = statistics.median(r for _, r in before), statistics.median(r for _, r in after)
    row = ("%s: goodput median (min-max), Mbit/s; retransmits" % label,
           "%.1f (%.1f-%.1f); %d" % (gb + (rb,)), "%.1f (%.1f-%.1f); %d" % (ga + (ra,)))
    if ga[1] > gb[2]:
        verdict = "reproduced"
    elif ga[2] < gb[1]:
        verdict = "NOT reproduced (worse)"
    else:
        verdict = "NOT reproduced (ranges overlap)"
    claim(claim_text, source, "%.1f Mbit/s (%.1f-%.1f), %d retransmits" % (gb + (rb,)),
          "%.1f Mbit/s (%.1f-%.1f), %d retransmits" % (ga + (ra,)), verdict,
          "%d runs each: every after run above every before run" % min(len(before), len(after)))
    return row, gb[0], ga[0]


def runs_spread(v, spec):
    """'median (min-max)' of a list of numbers, in SPEC."""
    return ("%s (%s-%s)" % (spec, spec, spec)) % spread(v) if v else "-"


def regime_plot(name, title, groups):
    """plots/NAME.png: goodput (left) and retransmits (right), before and
    after, median with min-max bars, one cluster per group; GROUPS is
    [(label, [(goodput, retransmits)] before, [...] after)]."""
    for k, what in ((0, "goodput"), (1, "retrans")):
        rows_ = []
        for label, b, a in groups:
            rows_.append(('"%s"' % label,) + tuple(
                "%.2f %.2f %.2f" % spread([x[k] for x in runs]) for runs in (b, a)))
        dat("%s-%s.dat" % (name, what), rows_)
    t = TERM.replace("size 900,520", "size 1100,480")
    body = ("set terminal %s\nset output '%s.png'\nset multiplot layout 1,2 title '%s'\n"
            "set style data histogram\nset style histogram errorbars gap 1 lw 1\nset style fill solid 0.8\n"
            "set boxwidth 0.9\nset yrange [0:*]\nset xtics rotate by -20\nset key below\n" % (t, name, title))
    for what, ylabel in (("goodput", "goodput (Mbit/s), median and min-max"),
                         ("retrans", "retransmitted segments, median and min-max")):
        body += ("set ylabel '%s'\nplot '%s-%s.dat' using 2:3:4:xtic(1) lc rgb '%s' title 'before: pfifo, tcp_min_tso_segs=44', "
                 "'' using 5:6:7 lc rgb '%s' title 'after: fq, default'\n"
                 % (ylabel, name, what, COLORS["before"], COLORS["after"]))
    return gnuplot(name, body + "unset multiplot")


def lossy():
    table, groups = [], []
    for loss in ("0.1", "1"):
        before = runs_of("lossy", "before-loss%s-%%d.json" % loss)
        after = runs_of("lossy", "after-loss%s-%%d.json" % loss)
        row, _, _ = compare_runs(
            "%s%% loss" % loss, before, after,
            "TSO autosizing and pacing increase TCP performance in lossy environments: %s%% random loss "
            "(50 ms RTT, 100 Mbit/s), the regime where pacing is not expected to matter (a random drop "
            "does not depend on the spacing)" % loss, "001")
        table.append(row)
        groups.append(("%s%% random loss" % loss, before, after))
    return table, [regime_plot("lossy_goodput", "random loss (netem), cubic, 50 ms RTT, 100 Mbit/s", groups)]


MSS = 1448  # 1500 B MTU less IP, TCP and timestamp option headers


def ack_sizes(path):
    """Segments (bytes / MSS) that each ACK advancing snd_una acknowledged,
    for the connection with the most ACKs in PATH (the data connection,
    not iperf3's control one)."""
    import struct
    by = {}
    for _, p in pcap_records(path):
        l4 = ipv4(p, 6)
        if l4 is not None and len(p) >= l4 + 12:
            by.setdefault(p[l4 + 2:l4 + 4], []).append(struct.unpack(">I", p[l4 + 8:l4 + 12])[0])
    acks = max(by.values(), key=len) if by else []
    out = []
    for a, b in zip(acks, acks[1:]):
        d = (b - a) % (1 << 32)
        if 0 < d < (1 << 31):
            out.append(d / MSS)
    return out


def ack_cell(sizes):
    """'median / p90 (share > 2)' of the segments per ACK."""
    if not sizes:
        return "-"
    return "%.1f / %.1f (%.0f%% > 2)" % (pct(sizes, 50), pct(sizes, 90),
                                         100.0 * sum(1 for x in sizes if x > 2.05) / len(sizes))


def burst_runs(exp, tag, mode):
    """The runs of one point: dicts of goodput, retrans, drops, acks (segments
    per ACK), in run order, from DIR/<tag>-<mode>-<run>.json and -path.txt, -acks.pcap."""
    out, r = [], 1
    while os.path.exists(ddir(exp, "%s-%s-%d-path.txt" % (tag, mode, r))):
        f = ddir(exp, "%s-%s-%d" % (tag, mode, r))
        d, dpct = path_drops(f + "-path.txt")
        x = dict(drops=d, drop_pct=dpct, acks=ack_sizes(f + "-acks.pcap"))
        if os.path.exists(f + ".json"):
            j = ij(f + ".json")
            x.update(goodput=mbit(j["end"]["sum_received"]["bits_per_second"]),
                     retrans=j["end"]["sum_sent"].get("retransmits", 0))
        else:  # chunked: the receiver's per-write completion times
            k = kv(f + "-rcv.txt")
            x.update(p50_ms=int(k["p50_us"]) / 1000.0, p99_ms=int(k["p99_us"]) / 1000.0,
                     goodput=8 * 1048576 / int(k["p50_us"]), retrans=int(k["retransmits"]),
                     writes=int(k["bursts"]))
        out.append(x)
        r += 1
    return out


def path_drops(path):
    """(drops, % of the packets that reached the bottleneck) from a policer's
    or a qdisc's tc -s dump: a policer counts every packet it saw as Sent, a
    qdisc only those it passed on."""
    text = open(path).read()
    m = re.search(r"Sent \d+ bytes (\d+) pkt \(dropped (\d+)", text)
    if not m:
        raise ValueError("no drop counter in %s" % path)
    sent, d = int(m.group(1)), int(m.group(2))
    seen = sent if "police" in text else sent + d
    return d, 100.0 * d / seen if seen else float("nan")


def burst_verdict(b, a, key, better):
    """Verdict on KEY: 'reproduced' when every after run is better (BETTER:
    'higher' or 'lower') than every before run and the medians differ by
    more than 3 %; 'worse' the other way; else no difference or overlap."""
    vb, va = [x[key] for x in b], [x[key] for x in a]
    mb, ma = statistics.median(vb), statistics.median(va)
    if abs(ma - mb) <= 0.03 * max(abs(mb), abs(ma)):
        return "NOT reproduced (no difference)"
    up = better == "higher"
    if (min(va) > max(vb)) if up else (max(va) < min(vb)):
        return "reproduced"
    if (max(va) < min(vb)) if up else (min(va) > max(vb)):
        return "NOT reproduced (worse)"
    return "NOT reproduced (ranges overlap)"


BBR_WHY = ("BBR paces itself in both: without fq TCP's internal pacing spaces its packets, and BBR's "
           "min_tso_segs hook replaces tcp_min_tso_segs=44, so 'before' gives it no 64 KB bursts to remove; "
           "its drops come from probing above the bottleneck rate")


def burst_why(b, a, limit, cc="cubic"):
    """Why pacing did not raise goodput, from the numbers."""
    if cc == "bbr":
        return BBR_WHY
    gb, ga = statistics.median(x["goodput"] for x in b), statistics.median(x["goodput"] for x in a)
    db, da = statistics.median(x["drop_pct"] for x in b), statistics.median(x["drop_pct"] for x in a)
    why = []
    if limit and min(gb, ga) >= 0.85 * limit:
        why.append("both reach >= 85%% of the %g Mbit/s bottleneck: SACK recovery repairs the drops "
                   "without a goodput cost" % limit)
    if da >= db:
        why.append("the paced flow loses as large a share (%.2f%% vs %.2f%%): the drops come from cwnd "
                   "overshoot above the bottleneck rate, not from bursts" % (da, db))
    elif not why:
        why.append("the drop share falls (%.2f%% -> %.2f%%) but goodput does not rise with it" % (db, da))
    return "; ".join(why)


def gain_verdict(b, a, key, better, why_not):
    """(verdict, criterion tail) on KEY, with the drop share beside it: a
    gain without a smaller drop share in every run is said so; WHY_NOT()
    explains a point without a gain."""
    verdict = burst_verdict(b, a, key, better)
    dv = burst_verdict(b, a, "drop_pct", "lower")
    if verdict != "reproduced":
        return verdict, "; " + why_not()
    if dv == "reproduced":
        return verdict + "; a smaller drop share in every run", ""
    return ("reproduced for %s, NOT through fewer drops" % ("goodput" if key == "goodput" else "write time"),
            "; the paced flow loses a %s share (%.2f%% vs %.2f%%): its gain is not avoided drops"
            % ("larger" if dv == "NOT reproduced (worse)" else "similar",
               statistics.median(x["drop_pct"] for x in a), statistics.median(x["drop_pct"] for x in b)))


def bulk_regime(exp, ccs, what, limit):
    """Table rows, claims and a plot for a bulk_points experiment."""
    table, groups = [], []
    for cc in ccs:
        b, a = burst_runs(exp, cc, "before"), burst_runs(exp, cc, "after")
        if not b or not a:
            raise ValueError("no %s runs of %s" % (cc, exp))
        n = min(len(b), len(a))

        def cell(runs, key, spec="%.0f"):
            return runs_spread([x[key] for x in runs], spec)
        table += [
            ("%s: goodput, Mbit/s, median (min-max)" % cc, cell(b, "goodput", "%.1f"), cell(a, "goodput", "%.1f")),
            ("%s: retransmitted segments" % cc, cell(b, "retrans"), cell(a, "retrans")),
            ("%s: dropped at the bottleneck" % cc, cell(b, "drops"), cell(a, "drops")),
            ("%s: dropped, %% of the packets at the bottleneck" % cc, cell(b, "drop_pct", "%.2f"),
             cell(a, "drop_pct", "%.2f")),
            ("%s: segments per ACK, median / p90 (share > 2)" % cc,
             ack_cell([s for x in b for s in x["acks"]]), ack_cell([s for x in a for s in x["acks"]])),
        ]
        groups.append((cc, [(x["goodput"], x["retrans"]) for x in b], [(x["goodput"], x["retrans"]) for x in a]))
        verdict, why = gain_verdict(b, a, "goodput", "higher", lambda: burst_why(b, a, limit, cc))
        claim("TSO autosizing and pacing increase TCP performance in lossy environments: %s (%s)" % (what, cc),
              "001", "%s Mbit/s, %s retransmits, %s%% dropped" % (cell(b, "goodput", "%.1f"), cell(b, "retrans"),
                                                                 cell(b, "drop_pct", "%.2f")),
              "%s Mbit/s, %s retransmits, %s%% dropped" % (cell(a, "goodput", "%.1f"), cell(a, "retrans"),
                                                           cell(a, "drop_pct", "%.2f")),
              verdict, "%d runs each: every after run's goodput above every before run's, medians > 3%% apart%s"
              % (n, why))
    return table, [regime_plot(exp + "_goodput_retransmits", what, groups)]


POLICE = "a token-bucket policer (30 Mbit/s, bucket 10 frames), 20 ms RTT"


def police():
    return bulk_regime("police", ("cubic", "bbr"), POLICE + ", receiver GRO off", 30)


def gro():
    return bulk_regime("gro", ("cubic",), POLICE + ", receiver GRO on (stretch ACKs)", 30)


def shallow():
    return bulk_regime("shallow", ("cubic", "bbr"),
                       "a shallow buffer at a rate step (veth to a 20 Mbit/s bottleneck with a 10-packet "
                       "queue, BDP 83), 50 ms RTT, receiver GRO on", 20)


CHUNK_POINTS = (("1", 700), ("0", 700), ("1", 2500), ("0", 2500))  # tests/demo/demo.sh t_chunked


def chunked():
    table, groups = [], []
    for ssai, period in CHUNK_POINTS:
        tag = "ssai%s-i%d" % (ssai, period)
        b, a = burst_runs("chunked", tag, "before"), burst_runs("chunked", tag, "after")
        if not b or not a:
            raise ValueError("no runs every %d ms with tcp_slow_start_after_idle=%s" % (period, ssai))

        def cell(runs, key, spec="%.0f"):
            return runs_spread([x[key] for x in runs], spec)
        p = "every %d ms, slow_start_after_idle=%s: " % (period, ssai)
        table += [
            (p + "1 MB write to last byte, ms, p50 (min-max of the runs)", cell(b, "p50_ms"), cell(a, "p50_ms")),
            (p + "same, p99 (ms)", cell(b, "p99_ms"), cell(a, "p99_ms")),
            (p + "retransmitted segments", cell(b, "retrans"), cell(a, "retrans")),
            (p + "dropped by the policer", cell(b, "drops"), cell(a, "drops")),
            (p + "dropped, % of the packets at the policer", cell(b, "drop_pct", "%.2f"), cell(a, "drop_pct", "%.2f")),
            (p + "runs whose median write finished within the period (then the sender idles)",
             "%d of %d" % (sum(1 for x in b if x["p50_ms"] < period), len(b)),
             "%d of %d" % (sum(1 for x in a if x["p50_ms"] < period), len(a))),
            (p + "segments per ACK, median / p90 (share > 2)",
             ack_cell([s for x in b for s in x["acks"]]), ack_cell([s for x in a for s in x["acks"]])),
        ]
        groups.append(("%d ms, ssai=%s" % (period, ssai), [(x["goodput"], x["retrans"]) for x in b],
                       [(x["goodput"], x["retrans"]) for x in a]))
        verdict, why = gain_verdict(b, a, "p50_ms", "lower", lambda: burst_why(b, a, 0))
        claim("TSO autosizing and pacing increase TCP performance in lossy environments: an application-limited "
              "sender (1 MB every %d ms) behind %s, tcp_slow_start_after_idle=%s (cubic)" % (period, POLICE, ssai),
              "001",
              "p50 %s ms per write, %s retransmits, %s%% dropped" % (cell(b, "p50_ms"), cell(b, "retrans"),
                                                                     cell(b, "drop_pct", "%.2f")),
              "p50 %s ms per write, %s retransmits, %s%% dropped" % (cell(a, "p50_ms"), cell(a, "retrans"),
                                                                     cell(a, "drop_pct", "%.2f")),
              verdict, "%d runs each: every after run's median write time below every before run's, medians > 3%% apart%s"
              % (min(len(b), len(a)), why))
    return table, [regime_plot("chunked_goodput_retransmits",
                               "1 MB writes behind the policer (ssai = tcp_slow_start_after_idle): "
                               "goodput = 1 MB / median write time", groups)]
