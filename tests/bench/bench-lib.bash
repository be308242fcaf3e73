# shellcheck shell=bash
# The knobs and BIG_MASK are read by bench.sh, which sources this file.
# shellcheck disable=SC2034
# Helpers for the benchmark workloads (tests/bench/bench.sh; scripts/bench.sh
# boots each kernel with --cases tests/bench). Not a case file (no .sh
# suffix), so run.sh does not list it. Sourced after tests/lib.sh.
#
# Every workload appends rows "workload,variant,metric,value,unit" to
# $R/data/bench.csv; the host adds the kernel and the repetition and turns
# them into medians and ratios. A workload fails only when it could not
# measure; whatever it measured is a result, whichever way it went.

BDIR=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lib-pktgen.sh
. "$T/lib-pktgen.sh"
# shellcheck source=tests/lib-fq.sh
. "$T/lib-fq.sh"
# shellcheck source=tests/lib-robust.sh
. "$T/lib-robust.sh"

# Defaults: the full run. scripts/bench.sh writes bench.env (--quick and
# the per-workload knobs) beside this file. Used by bench.sh.
PG_SECS=1
PG_WINDOWS=3
PG_FLOWS="1 64 10000 1000000"
PG_SIZES="64 1500"
PG_PACING="off on"
PACED_FLOWS=10000
PACED_RATE=10k
PACED_LEN=1000
PACED_SECS=14
PACED_WARMUP=5
MEM_FLOWS=100000
TCP_SECS=5
TCP_RUNS="cubic:1 cubic:8 bbr:1 bbr:8"
RR_SECS=8
PROF_SECS=4
# Exact clock (exact.sh): counted work, so these set how much is counted.
EX_COUNT=200000
EX_FLOWS="1 64 10000 100000 1000000"
EX_SIZES="64 1500"
EX_MEM_FLOWS="100000 1000000"
EX_BL_DELAY=200000
EX_BL_PCT=90
EX_BL_WARMUP=2
EX_BL_SECS=2
EX_BL_WINDOWS=3
# The backlog split (drain): guest seconds of the fill (one packet per
# EX_BL_DELAY ns: 50,000 packets), and how long the drain may take (idle
# time is skipped, so it costs nothing when it takes less).
EX_DRAIN_FILL_SECS=10
EX_DRAIN_SECS=5
# The profiled fill: pktgen never sleeps (~100k packets in 0.3 s).
EX_DRAIN_PROF_SECS=0.3
# Idle qdiscs whose slab the qdiscmem point counts.
EX_QDISCS=256
# Peak flows held while EX_PEAK_FLOWS 4-tuples pass at EX_PEAK_PPS packets
# per guest second (~10 s: three times the 3 s gc age), default buckets.
EX_PEAK_FLOWS=1000000
EX_PEAK_PPS=100000
# Up to EX_PACED_PPS flows (t_paced says why no more). 100k sockets would
# take two source addresses (60000 ports each).
EX_PACED_FLOWS="1000 10000 100000"
EX_PACED_PPS=10000
EX_PACED_GAPS=3
EX_PACED_WARMUP=3
# The pacing point (t_pacing): packets per point (in cycles of 2 per
# flow), and which points are profiled.
EX_PACING_FLOWS="1000 10000 100000"
EX_PACING_PKTS=100000
EX_PACING_PROF="1000 100000"
EX_TCP_BYTES=100M
EX_TCP_RUNS="cubic:1 cubic:8 bbr:1 bbr:8"
# TCP runs profiled after the counted ones (perf costs instructions of its
# own, so the counted figure comes from an unprofiled run), and how much
# each profiled run sends: where a TCP megabyte's instructions go.
EX_TCP_PROF="cubic:1 bbr:1"
EX_TCP_PROF_BYTES=20M
EX_PROF_FLOWS="1 10000"
# A prime: a round period (20000) beat with the paced sender's 100,000
# instructions per packet and moved untouched functions 6x between boots.
EX_PROF_PERIOD=19997
# Paced points profiled (after their measured windows) and for how long:
# the profile gives fq's own instructions per packet, the paced target.
EX_PROF_PACED="1000 10000 100000"
EX_PROF_PACED_SECS=4
# The throttled set's worst cases (t_wheel): far flows re-timed, and the
# idle seconds before the first release (an hour: ~25 s of host time per
# boot, the guest's own timers waking it; --set EX_WHEEL_IDLE=86400 idles
# a day in ~10 min).
EX_WHEEL_RETIME="100 10000 100000"
EX_WHEEL_IDLE=3600
# The cache model (scripts/bench.sh --cache-model sets EX_CACHE=1): each
# counted run is a model window (cm_open/cm_close). The cold-qdisc point
# (t_coldq): packets per qdisc, each after a walk of EX_COLD_FLUSH bytes
# that evicts the model's caches (twice its 32 MB LLC), over the queues
# of an mq with EX_COLD_QUEUES children.
EX_CACHE=0
# pktgen points: packets the model sees before it counts (the plugin runs
# with sim=marks: only from cm_warm on), at most this many and at least
# one per flow up to it, so that a flow table that fits the caches is in
# them, as it would be on a machine that has run the stream for a while.
EX_CACHE_WARM=100000
EX_COLD_PKTS=16
EX_COLD_FLUSH=64M
EX_COLD_QUEUES=64
# shellcheck source=/dev/null
[ ! -f "$BDIR/bench.env" ] || . "$BDIR/bench.env"

# The orphan mask that keeps every pktgen 4-tuple its own flow (pg_tuples
# makes at most ~1.05M of them; 2^24 hash slots keep collisions near 3%).
BIG_MASK=16777215

# row WORKLOAD VARIANT METRIC VALUE UNIT
row() {
	mkdir -p "$R/data"
	printf '%s,%s,%s,%s,%s\n' "$@" >>"$R/data/bench.csv"
	say "  $1 $2: $3 = $4 $5"
}

# cm_open / cm_close LABEL PACKETS: a cache-model window around a counted
# run (EX_CACHE=1; nothing otherwise). LABEL is "workload|variant|qdisc";
# the window's line in cachemodel.windows pairs, in order, with the
# plugin's (scripts/cache-model.py rows), so every open must be closed.
# cm_warm starts the model (not counting) before the work that warms it.
# EX_MARKS=1 (scripts/bench.sh --count-insns) marks the same windows for
# the plugin's instruction counts without the model's warm-up passes, so
# the workload is the one a run without the plugin measures.
cm_marks() { [ "$EX_CACHE" = 1 ] || [ "${EX_MARKS:-0}" = 1 ]; }
# cm_window W: window W of a point with several is the plugin's: the first
# for the model, each with --count-insns, which keeps the least of them on
# the host as the guest keeps the least busy one (scripts/lib.sh
# count_rows), each labelled by cm_wtag W ("#W" after the qdisc).
cm_window() { [ "$1" = 1 ] || [ "${EX_MARKS:-0}" = 1 ]; }
cm_wtag() { [ "${EX_MARKS:-0}" != 1 ] || echo "#$1"; }
cm_open() { ! cm_marks || cachemark open; }
cm_warm() { ! cm_marks || cachemark warm; }
cm_close() {
	cm_marks || return 0
	cachemark close
	cm_label "$1" "$2"
}
# cm_label LABEL PACKETS: the guest's record of a window the plugin closed.
cm_label() {
	mkdir -p "$R/data"
	echo "$1 $2" >>"$R/data/cachemodel.windows"
}

# div A B: A / B with 3 decimals in awk ("nan" when B is 0).
div() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "nan"; else printf "%.3f\n", a / b }'; }

# busy_ns: guest ns all CPUs spent outside idle since boot, from the nohz
# idle accounting in /proc/timer_list (ns; /proc/stat has 10 ms ticks).
# Under the exact clock, busy ns are guest instructions. Idle with a task
# waiting on the disk is iowait_sleeptime, not idle_sleeptime: both are
# left out, since under the exact clock that wait's length is set by the
# host (guest time jumps from timer to timer until the read completes).
# The fields: "  .idle_sleeptime : N nsecs", "  .iowait_sleeptime: N nsecs".
busy_ns() {
	awk '$1 == "now" && $2 == "at" { now = $3 }
		$1 == "cpu:" { n++ }
		$1 == ".idle_sleeptime" { idle += $3 }
		$1 == ".iowait_sleeptime:" { idle += $2 }
		END { printf "%.0f\n", n * now - idle }' /proc/timer_list
}
