#!/usr/bin/env bash
# The benchmark: the stock 6.1 kernel and our series, built from the same
# tree with the same fragments (bench.config), booted alternately in the
# same guest, running the same workloads (tests/bench/bench.sh). Writes the
# raw rows, medians and series/stock ratios (CSV), gnuplot PNGs and a
# markdown table to the run directory, and prints the table.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

WORKLOADS=(pktgen paced memory tcp profile)
# Under TCG the guest's default clocksource is the HPET, and every clock
# read is an emulated MMIO access: 21-27% of all samples in a pktgen
# profile, more than the qdisc itself. Real machines read the TSC; so does
# the benchmark guest (TCG's TSC is one virtual clock for all vCPUs).
BENCH_CMDLINE="clocksource=tsc tsc=reliable"

usage() {
	cat >&2 <<USAGE
usage: $0 [--quick] [--reps N] [--only W[,W]] [--results DIR]
  --quick        reduced run, under 10 minutes: 3 boots per kernel, fewer
                 points (pktgen 1 and 10k flows, 64 B, pacing off; TCP
                 1 cubic flow), shorter workloads
  --reps N       boots per kernel (default 5, alternating stock/patched)
  --only W,...   workloads to run (default all): ${WORKLOADS[*]}
  --results DIR  run directory (default results/<time>-bench)
Writes DIR/raw.csv, DIR/summary.csv, DIR/bench.md, DIR/plots/*.png; each
boot's logs are in DIR/<rep>-<kernel>/.
USAGE
	exit 2
}

quick=0 reps='' only='' rundir=''
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	--reps) reps=${2:-}; shift ;;
	--only) only=${2:-}; shift ;;
	--results) rundir=${2:-}; shift ;;
	-h | --help) usage ;;
	*) echo "unknown option: $1" >&2; usage ;;
	esac
	shift
done
[ -n "$reps" ] || { if [ "$quick" = 1 ]; then reps=3; else reps=5; fi; }
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "bad --reps: '$reps'" >&2; usage; }
sel=$(select_names workload "$only" "${WORKLOADS[@]}") || usage
mapfile -t selected <<<"$sel"

ensure_packages gnuplot-nox
rundir=${rundir:-$FQP_RESULTS/$(date +%Y%m%d-%H%M%S)-bench}
mkdir -p "$rundir"
rundir=$(cd "$rundir" && pwd)

# Both kernels first, so that a build failure stops the run before any
# measurement, and no build runs beside a measuring guest.
for k in stock patched; do
	"$FQP_ROOT/scripts/build-kernel.sh" --tree "$k" --config bench
done

export FQP_STEP=bench
cases=$rundir/cases
rm -rf "$cases"
cp -a "$FQP_ROOT/tests/bench" "$cases"
if [ "$quick" = 1 ]; then
	cat >"$cases/bench.env" <<-'ENV'
		# --quick: fewer points, shorter runs.
		PG_SECS=1
		PG_WINDOWS=3
		PG_FLOWS="1 10000"
		PG_SIZES="64"
		PG_PACING="off"
		PACED_SECS=8
		PACED_WARMUP=3
		MEM_FLOWS=100000
		TCP_SECS=3
		TCP_RUNS="cubic:1"
		RR_SECS=4
		PROF_SECS=3
	ENV
fi
filter="^bench:($(IFS='|'; echo "${selected[*]}"))\$"
accel=$(pick_accel "$(kernel_image patched bench)")
{
	echo "date=$(date -u +%Y-%m-%dT%H:%MZ)"
	echo "accel=$accel"
	echo "reps=$reps"
	echo "guest=2 vCPU, 2 GiB, $BENCH_CMDLINE"
	if [ "$quick" = 1 ]; then echo "mode=--quick"; else echo "mode=full"; fi
	echo "git=$(git -C "$FQP_ROOT" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "workloads=${selected[*]}"
} >"$rundir/meta.txt"
echo "kernel,rep,workload,variant,metric,value,unit" >"$rundir/raw.csv"

log "benchmark: ${selected[*]}; $reps boots per kernel under ${accel^^}, alternating; run directory $rundir"
failed=()
t_start=$(date +%s)
total=$((2 * reps)) done_n=0
for rep in $(seq "$reps"); do
	# Alternate which kernel goes first, so slow drift of the machine
	# (another job starting, thermal) does not always favour one of them.
	if [ $((rep % 2)) = 1 ]; then order=(stock patched); else order=(patched stock); fi
	for k in "${order[@]}"; do
		out=$rundir/$rep-$k
		t0=$(date +%s)
		log "[$((done_n + 1))/$total] rep $rep, $k kernel: booting ($out)"
		rc=0
		"$FQP_ROOT/scripts/boot-and-test.sh" --kernel "$k" --config bench --cases "$cases" \
			--filter "$filter" --results "$out" --timeout 2400 --append "$BENCH_CMDLINE" \
			>"$out.log" 2>&1 || rc=$?
		done_n=$((done_n + 1))
		csv=$out/results/data/bench.csv
		# One profile per kernel is enough to read: keep the first.
		[ -f "$rundir/profile-$k.txt" ] || [ ! -f "$out/results/data/profile/report.txt" ] ||
			cp "$out/results/data/profile/report.txt" "$rundir/profile-$k.txt"
		if [ -f "$csv" ]; then
			sed "s/^/$k,$rep,/" "$csv" >>"$rundir/raw.csv"
		fi
		if [ "$rc" != 0 ]; then
			failed+=("$rep-$k")
			warn "rep $rep, $k kernel: a workload failed (exit $rc); its rows are kept. Log: $out.log"
			grep -E '^not ok|^#   ' "$out/verdict.ktap" "$out.log" 2>/dev/null | head -n 8 >&2 || true
		fi
		el=$(($(date +%s) - t_start))
		log "[$done_n/$total] rep $rep, $k: $(($(date +%s) - t0))s, $( [ -f "$csv" ] && wc -l <"$csv" || echo 0) rows; about $((el * (total - done_n) / done_n / 60)) min left"
	done
done

log "medians, ratios and plots"
python3 "$FQP_ROOT/scripts/render-bench.py" "$rundir" ||
	die "rendering the results failed" "the raw rows are in $rundir/raw.csv; fix scripts/render-bench.py and run it on $rundir"
log "results: $rundir/bench.md, summary.csv, raw.csv, plots/*.png ($(($(date +%s) - t_start))s)"
if [ ${#failed[@]} -gt 0 ]; then
	die "some boots did not measure everything: ${failed[*]}" \
		"read $rundir/<rep>-<kernel>.log and results/logs/ there; the table above uses the rows that came back"
fi
