#!/usr/bin/env bash
# The benchmark: the stock 6.1 kernel and our series, built from the same
# tree with the same fragments (bench.config), booted alternately in the
# same guest, running the same workloads; with --kernels ...,stock72 also
# stock 7.2 (sid's linux-source-7.2, the same fragments), the yardstick. Under TCG it runs with the exact
# clock (QEMU icount: guest ns = guest instructions; tests/bench/exact.sh)
# and gates on determinism; --clock wall runs the older, noisy wall-clock
# workloads (tests/bench/bench.sh). Writes the raw rows, medians and
# series/stock ratios (CSV), gnuplot PNGs and a markdown table to the run
# directory, and prints the table.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

WALL_WORKLOADS=(pktgen paced memory tcp profile)
# Exact mode: bytes per flow come from pktgen's fq warm-up (memory rows).
EXACT_WORKLOADS=(pktgen backlog drain qdiscmem paced pacing tcp peak profile wheel)
# --cache-model: the points that say most about memory, and the cold qdisc.
CACHE_WORKLOADS=(pktgen backlog pacing coldq)
# --native: the exact workloads that need no NIC, timed on this CPU in UML
# kernels (scripts/lib/uml.sh): ns per packet, fq - pfifo in each boot.
# backlog, pacing and paced (UDP sockets) run on request: each sleep and
# timer is a host signal and an exit from the host's idle, each guest
# system call goes through ptrace, so their time is mostly UML's own
# (docs/benchmark.md, "Native time").
NATIVE_WORKLOADS=(pktgen backlog pacing paced)
NATIVE_DEFAULT=pktgen
# Under TCG the guest's default clocksource is the HPET, and every clock
# read is an emulated MMIO access: 21-27% of all samples in a pktgen
# profile, more than the qdisc itself. Real machines read the TSC; so does
# the benchmark guest (TCG's TSC is one virtual clock for all vCPUs).
BENCH_CMDLINE="clocksource=tsc tsc=reliable"

# keep_outputs DATA KERNEL REP: the first boot's perf reports of each kernel
# (profile-<kernel>[-<flows>].txt) and every boot's lateness CDFs
# (cdf/<kernel>-<rep>-<flows>.txt) into the run directory.
keep_outputs() {
	local data=$1 k=$2 rep=$3 f n
	[ -f "$rundir/profile-$k.txt" ] || [ ! -f "$data/profile/report.txt" ] ||
		cp "$data/profile/report.txt" "$rundir/profile-$k.txt"
	for f in "$data"/profile/report-*.txt; do
		[ -f "$f" ] || continue
		n=${f##*/report-}
		[ -f "$rundir/profile-$k-$n" ] || cp "$f" "$rundir/profile-$k-$n"
	done
	for f in "$data"/late-cdf-*.txt; do
		[ -f "$f" ] || continue
		mkdir -p "$rundir/cdf"
		cp "$f" "$rundir/cdf/$k-$rep-${f##*/late-cdf-}"
	done
}

usage() {
	cat <<USAGE
usage: $0 [--clock exact|wall] [--quick] [--reps N] [--only W[,W]] [--results DIR]
          [--set VAR=VALUE]... [--insn-profile] [--cache-model] [--native] [--kernels K[,K]]
          [--image K=KERNEL[,INITRD[,ROOTFS[,ARGS]]]]...
  --image K=KERNEL[,INITRD[,ROOTFS[,ARGS]]]  boot KERNEL (with that
                 initramfs, guest image and extra kernel arguments) as
                 kernel K (stock or patched) instead of building K: a
                 distribution's kernel and the series built with its config
                 (scripts/check-distro.sh), or one kernel against itself
                 with a boot option (init_on_alloc=0); repeatable
  --kernels K,...  the kernels, booted in turn (default stock,patched):
                 stock (6.1), patched (the series), stock72 (stock 7.2),
                 patched72 (7.2 with patches/net/, patches/net-next/ and
                 its RFC patches/net-next-rfc/), patched72-N (7.2 with the
                 net fixes and the first N patches after them, net-next's
                 then the RFC's: each patch's own effect); either stock
                 and patched or stock72 and a patched72 are among them
  --clock exact  (default under TCG) QEMU icount, 1 vCPU: guest instructions
                 per packet / per MB, deterministic; each point also through
                 pfifo (fq cost = fq - pfifo). A headline point whose boots
                 spread more than 0.5 % is flagged and the run exits 3.
                 Workloads: ${EXACT_WORKLOADS[*]}
  --clock wall   the older wall-clock run (2 vCPU): pps, CPU ns, Mbit/s;
                 noisy under TCG (boots of one kernel spread 15-25 %).
                 Workloads: ${WALL_WORKLOADS[*]}
  --quick        reduced run, fewer points and shorter workloads (exact:
                 ~5 min; wall: 3 boots per kernel, < 10 min)
  --reps N       boots per kernel (default 3 exact, 5 wall; alternating)
  --only W,...   workloads to run (default all of the clock's)
  --results DIR  run directory (default results/<time>-bench)
  --set VAR=VAL  set a workload parameter in the guest (tests/bench/exact.sh's
                 EX_* defaults, e.g. --set EX_PACED_FLOWS=1000); repeatable
  --insn-profile count every kernel instruction of each boot by function
                 (QEMU plugin, exact: no sampling): DIR/<rep>-<kernel>/
                 insn.counts, and DIR/insn-profile-<rep>.txt puts the two
                 kernels of a rep side by side (whole boot, per boot)
  --count-insns  (exact) count each point's instructions on the host: every
                 boot under the cache-model plugin with no model (sim=none),
                 whose marked windows count the guest's instructions
                 exactly; they replace the guest's busy-time figures of the
                 pktgen, backlog and pacing points (fq_insn, pfifo_insn,
                 fq_cost). Needed on 7.2, whose /proc/timer_list no longer
                 has the idle times the guest reads (busy_ns)
  --cache-model  run every boot under the cache model (tests/host/cachemodel.c,
                 docs/cache-model.md; exact clock): misses per packet of
                 L1d, L1i, L2 and LLC beside instructions per packet, for
                 the points of tests/bench/cache-model.env and the cold
                 qdisc (workloads ${CACHE_WORKLOADS[*]}); DIR/cache.md,
                 and per-function misses in DIR/<rep>-<kernel>/cache/
  --native       native time (docs/benchmark.md, "Native time"): each kernel
                 built for User-Mode Linux (build-kernel.sh --config uml) and
                 run as a host process pinned to one CPU (FQP_UML_CPU), on
                 the same image and workloads: ns per packet (the UML
                 process's CPU time from the host's scheduler, each window
                 stamped by the guest: scripts/uml-cpu.py), fq - pfifo in
                 each boot; the kernels interleaved, --reps boots each
                 (default 10), the host's load recorded before and after
                 each boot; DIR/native.md has the medians and each ratio's
                 confidence interval (scripts/native-stats.py) beside the
                 exact and cache-model ratios of docs/results.csv.
                 Workloads: ${NATIVE_WORKLOADS[*]} (default $NATIVE_DEFAULT);
                 --quick: fewer points (the self-test's size)
  --no-build     boot the kernels already built, as they are (no tree
                 preparation, no rebuild): re-running on a tree another job
                 is changing
Writes DIR/raw.csv, DIR/summary.csv, DIR/bench.md, DIR/plots/*.png and
DIR/profile-<kernel>.txt; each boot's logs are in DIR/<rep>-<kernel>/.
USAGE
}

quick=0 reps='' only='' rundir='' clock='' insn=0 cache=0 count=0 native=0 nobuild=0 sets=() kernels=stock,patched
declare -A KIMAGE=()
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	--clock) clock=${2:-}; shift ;;
	--reps) reps=${2:-}; shift ;;
	--only) only=${2:-}; shift ;;
	--results) rundir=${2:-}; shift ;;
	--set)
		# The guest sources the value in double quotes: nothing there
		# may quote, expand or escape.
		[[ ${2:-} =~ ^[A-Z][A-Z0-9_]*=[^\'\"\$\`\\]*$ ]] || usage_error "bad --set: '${2:-}' (VAR=VALUE; no quotes, \$, \` or \\)"
		sets+=("$2"); shift ;;
	--insn-profile) insn=1 ;;
	--kernels) kernels=${2:-}; shift ;;
	--image)
		[[ ${2:-} =~ ^(stock|patched)=([^,]+)(,[^,]*)?(,[^,]*)?(,[^,]*)?$ ]] && [ -f "${BASH_REMATCH[2]}" ] ||
			usage_error "bad --image: '${2:-}' (stock=KERNEL[,INITRD[,ROOTFS[,ARGS]]] or patched=..., the files existing)"
		KIMAGE[${2%%=*}]=${2#*=}; shift ;;
	--cache-model) cache=1 clock=exact ;;
	--count-insns) count=1 clock=exact ;;
	--native) native=1 clock=native ;;
	--no-build) nobuild=1 ;;
	-h | --help) usage; exit 0 ;;
	*) usage_error "unknown option: $1" ;;
	esac
	shift
done
case ${clock:-auto} in auto | exact | wall | native) ;; *) usage_error "bad --clock: '$clock'" ;; esac
[ "$native" = 0 ] || [ "$insn$cache$count" = 000 ] || usage_error "--native runs no QEMU: no --insn-profile, --cache-model or --count-insns"

KERNELS=()
IFS=, read -ra klist <<<"$kernels"
for k in "${klist[@]}"; do
	[[ $k =~ ^(stock|patched|stock72|patched72|patched72-[0-9]+)$ ]] ||
		usage_error "unknown kernel: '$k' (known: stock patched stock72 patched72 patched72-N)"
	KERNELS+=("$k")
done
# --native --kernels patched: one kernel, no ratio (the harness self-test).
[ "$native:$kernels" = 1:patched ] ||
	[[ " ${KERNELS[*]} " == *" stock "* && " ${KERNELS[*]} " == *" patched "* ]] ||
	[[ " ${KERNELS[*]} " == *" stock72 "* && " ${KERNELS[*]} " == *" patched72"* ]] ||
	usage_error "bad --kernels: '$kernels' (stock and patched, or stock72 and a patched72, are the ratios)"

[ "$native" = 0 ] || [[ ! $kernels =~ patched72- ]] || usage_error "--native: no patched72-N (build patched72 with the series you want)"
# The config of the benchmark kernels: bench under QEMU, uml natively.
bconf=bench
[ "$native" = 0 ] || bconf=uml

# kernel_opts K: boot-and-test.sh's and build-kernel.sh's base and tree
# options for kernel K (its name is also its build dir's: build/K-bench).
kernel_opts() {
	case $1 in
	stock72) echo "--base 7.2 stock" ;;
	patched72*) echo "--base 7.2 patched" ;;
	*) echo "--base 6.1 $1" ;;
	esac
}

if [ ${#KIMAGE[@]} -gt 0 ] && { [ "$insn" = 1 ] || [ "$cache" = 1 ]; }; then
	usage_error "--image and --insn-profile or --cache-model: those read the kernel's vmlinux, which a packaged kernel does not ship"
fi
# image_args K: boot-and-test.sh's options for kernel K's own image
# (--image), or its bench build.
image_args() {
	local kz ki kr ka
	if [ -n "${KIMAGE[$1]:-}" ]; then
		IFS=, read -r kz ki kr ka <<<"${KIMAGE[$1]}"
		printf '%s\n' --bzimage "$kz"
		[ -z "$ki" ] || printf '%s\n' --initrd "$ki"
		[ -z "$kr" ] || printf '%s\n' --rootfs "$kr"
		printf '%s\n' --append "${append:+$append }$ka"
	elif [[ $1 == patched72-* ]]; then
		printf '%s\n' --bzimage "$FQP_BUILD/$1-bench/arch/x86/boot/bzImage"
	else
		local _k b t
		read -r _k b t <<<"$(kernel_opts "$1")"
		printf '%s\n' --bzimage "$(FQP_BASE=$b kernel_image "$t" "$bconf")"
	fi
}

ensure_packages gnuplot-nox
# Every kernel first, so that a build failure stops the run before any
# measurement, and no build runs beside a measuring guest.
for k in "${KERNELS[@]}"; do
	read -r _ b t <<<"$(kernel_opts "$k")"
	if [ -n "${KIMAGE[$k]:-}" ]; then
		continue
	elif [ "$nobuild" = 1 ]; then
		[ -f "$(FQP_BASE=$b kernel_image "$t" "$bconf")" ] ||
			die "--no-build: no $k kernel at $(FQP_BASE=$b kernel_image "$t" "$bconf")" "run without --no-build once"
	elif [[ $k == patched72-* ]]; then
		build_upstream_prefix "${k#patched72-}" bench 7.2
	else
		"$FQP_ROOT/scripts/build-kernel.sh" --base "$b" --tree "$t" --config "$bconf"
	fi
done
export FQP_STEP=bench
bz=$(image_args "${KERNELS[1]:-${KERNELS[0]}}" | sed -n 2p)
[ -n "$clock" ] || clock=$(auto_clock "$bz")
if [ "$clock" = native ]; then accel=uml; else accel=$(clock_accel "$clock" "$bz"); fi
if [ "$clock" = native ]; then
	# The exact clock's case file: under UML pktgen's own timing and the
	# guest's busy time are the host's ns.
	WORKLOADS=("${NATIVE_WORKLOADS[@]}") case_file=exact default_reps=10
	[ -n "$only" ] || only=$NATIVE_DEFAULT
elif [ "$clock" = exact ]; then
	WORKLOADS=("${EXACT_WORKLOADS[@]}") case_file=exact default_reps=3
	[ "$cache" = 0 ] || WORKLOADS=("${CACHE_WORKLOADS[@]}") default_reps=2
else
	WORKLOADS=("${WALL_WORKLOADS[@]}") case_file=bench default_reps=5
	[ "$quick" = 0 ] || default_reps=3
fi
[ -n "$reps" ] || reps=$default_reps
[[ $reps =~ ^[1-9][0-9]*$ ]] || usage_error "bad --reps: '$reps'"
sel=$(select_names workload "$only" "${WORKLOADS[@]}") || usage_error
mapfile -t selected <<<"$sel"
if [ "$clock" = native ]; then smp=1; else smp=$(clock_smp "$clock"); fi
# boot-and-test.sh --clock exact adds the same clocksource options itself.
append=$BENCH_CMDLINE
[ "$clock" = wall ] || append=''

# A workload reports when it ends: the guest is silent meanwhile. The
# paced point at 100k flows ran past 15 min of host time without a word
# (exact clock, beside three other jobs), so a boot may be silent for 40
# min, and has 80 min in all.
boot_limit=4800 silence_limit=2400

rundir=${rundir:-$FQP_RESULTS/$(date +%Y%m%d-%H%M%S)-bench}
mkdir -p "$rundir"
rundir=$(cd "$rundir" && pwd)

cases=$rundir/cases
rm -rf "$cases"
mkdir -p "$cases"
# Only the clock's case file (run.sh runs every *.sh), and the helpers.
cp -a "$FQP_ROOT/tests/bench/bench-lib.bash" "$FQP_ROOT/tests/bench/$case_file.sh" "$cases/"
if [ "$clock" = native ]; then
	# Native: both pktgen modes, 300k packets a point (~0.1-0.8 s of
	# CPU), one size; windows marked for the host's CPU time of each
	# (EX_NATIVE, EX_MARKS: scripts/uml-cpu.py). --quick: the self-test's
	# short boot.
	cat >"$cases/bench.env" <<-'ENV'
		# --native: UML, ns per packet (scripts/bench.sh).
		EX_NATIVE=1
		EX_MARKS=1
		EX_PG_MODES="idle classified"
		EX_COUNT=300000
		EX_FLOWS="1 10000 100000 1000000"
		EX_SIZES="64"
		EX_MEM_FLOWS=""
		EX_BL_SECS=1
		EX_BL_WARMUP=1
		EX_PACING_PKTS=20000
		EX_PACING_PROF=""
		EX_PROF_PACED=""
		EX_PACED_FLOWS="1000"
	ENV
	[ "$quick" = 0 ] || cat >>"$cases/bench.env" <<-'ENV'
		# --quick
		EX_PG_MODES="idle"
		EX_COUNT=100000
		EX_FLOWS="1"
		EX_BL_WINDOWS=1
		EX_BL_SECS=1
		EX_BL_WARMUP=1
		EX_PACING_FLOWS="1000"
		EX_PACING_PKTS=20000
	ENV
elif [ "$quick" = 1 ] && [ "$clock" = exact ]; then
	cat >"$cases/bench.env" <<-'ENV'
		# --quick: fewer points, less counted work.
		EX_COUNT=100000
		EX_FLOWS="1 10000 100000"
		EX_SIZES="64"
		EX_MEM_FLOWS="100000"
		EX_BL_SECS=1
		EX_PACED_FLOWS="1000 10000"
		EX_TCP_RUNS="cubic:1 bbr:1"
		EX_TCP_BYTES=50M
		EX_PROF_FLOWS="1"
	ENV
elif [ "$quick" = 1 ]; then
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
[ "$cache" = 0 ] || cat "$FQP_ROOT/tests/bench/cache-model.env" >>"$cases/bench.env"
if [ "$count" = 1 ]; then
	[ "$cache" = 0 ] || usage_error "--count-insns and --cache-model: pick one (the model counts instructions too)"
	printf '# --count-insns: mark the counted windows for the plugin\nEX_MARKS=1\n' >>"$cases/bench.env"
fi
if [ ${#sets[@]} -gt 0 ]; then
	echo "# --set" >>"$cases/bench.env"
	for v in "${sets[@]}"; do printf '%s="%s"\n' "${v%%=*}" "${v#*=}"; done >>"$cases/bench.env"
fi
filter="^$case_file:($(IFS='|'; echo "${selected[*]}"))\$"
{
	echo "date=$(date -u +%Y-%m-%dT%H:%MZ)"
	echo "accel=$accel"
	echo "clock=$clock"
	echo "reps=$reps"
	if [ "$clock" = native ]; then
		echo "guest=UML, 1 CPU, $FQP_UML_MEM, pinned to host CPU $(uml_pin_cpu)"
		uml_host_facts
	elif [ "$clock" = exact ]; then
		echo "guest=$smp vCPU, 2 GiB, -icount $EXACT_ICOUNT, $EXACT_CMDLINE"
	else
		echo "guest=$smp vCPU, 2 GiB, $BENCH_CMDLINE"
	fi
	if [ "$quick" = 1 ]; then echo "mode=--quick"; else echo "mode=full"; fi
	[ "$cache" = 0 ] || echo "cache_model=1"
	[ "$count" = 0 ] || echo "count_insns=1"
	echo "git=$(git -C "$FQP_ROOT" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "workloads=${selected[*]}"
	echo "kernels=${KERNELS[*]}"
	[ ${#sets[@]} = 0 ] || echo "set=${sets[*]}"
	for k in "${!KIMAGE[@]}"; do echo "image_$k=${KIMAGE[$k]}"; done
} >"$rundir/meta.txt"
echo "kernel,rep,workload,variant,metric,value,unit" >"$rundir/raw.csv"
[ "$clock" != native ] || echo "kernel,rep,start,seconds,load1_before,load1_after,procs_running_before,procs_running_after" >"$rundir/load.csv"
if [[ " ${KERNELS[*]} " == *" stock72 "* ]]; then
	(set_base 7.2 && echo "$(base_version), $(base_package)") >"$rundir/base72.txt"
	# Which upstream patch each patched72-N kernel ends with.
	(set_base 7.2 && series_patches) >"$rundir/series72.txt"
fi

log "benchmark: ${selected[*]}; $reps boots per kernel under ${accel^^}, clock $clock ($smp vCPU), alternating; run directory $rundir"
failed=()
t_start=$(date +%s)
total=$((${#KERNELS[@]} * reps)) done_n=0
for rep in $(seq "$reps"); do
	# Rotate which kernel goes first, so slow drift of the machine
	# (another job starting, thermal) does not always favour one of them
	# (two kernels: stock first in odd reps, the series in even ones).
	r=$(((rep - 1) % ${#KERNELS[@]}))
	order=("${KERNELS[@]:r}" "${KERNELS[@]:0:r}")
	for k in "${order[@]}"; do
		out=$rundir/$rep-$k
		t0=$(date +%s)
		log "[$((done_n + 1))/$total] rep $rep, $k kernel: booting ($out)"
		rc=0 prof=()
		[ "$insn" = 0 ] || prof=(--insn-profile "$out/insn.counts")
		[ "$cache" = 0 ] || prof+=(--cache-model "$out/cache")
		[ "$count" = 0 ] || prof+=(--cache-model "$out/cache")
		read -r _ b t <<<"$(kernel_opts "$k")"
		# Every kernel was built above: the boot takes its image as it is
		# (a boot that prepared the tree again could race another job
		# that walks the patched 7.2 tree, as check-series --base 7.2 does).
		# Last: an image's own kernel arguments (--image) join the others.
		mapfile -t kimg < <(image_args "$k")
		nolatest=()
		[ "$clock" != native ] || nolatest=(--no-latest)
		l0=$(cut -d' ' -f1 /proc/loadavg) r0=$(awk '$1 == "procs_running" { print $2 }' /proc/stat)
		FQP_CACHE_MODEL_OPTS=$(if [ "$count" = 1 ]; then echo sim=none; else echo "${FQP_CACHE_MODEL_OPTS:-}"; fi) \
			"$FQP_ROOT/scripts/boot-and-test.sh" --base "$b" --kernel "$t" --config "$bconf" --cases "$cases" \
			--filter "$filter" --results "$out" --timeout "$boot_limit" --silence "$silence_limit" --clock "${clock/native/wall}" \
			--append "$append" ${prof[@]+"${prof[@]}"} ${nolatest[@]+"${nolatest[@]}"} "${kimg[@]}" >"$out.log" 2>&1 || rc=$?
		[ "$clock" != native ] || echo "$k,$rep,$t0,$(($(date +%s) - t0)),$l0,$(cut -d' ' -f1 /proc/loadavg),$r0,$(awk '$1 == "procs_running" { print $2 }' /proc/stat)" >>"$rundir/load.csv"
		# The kernel this boot ran: the next boot may rebuild it.
		[ "$insn" = 0 ] && [ "$cache" = 0 ] || cp "$FQP_BUILD/$k-bench/vmlinux" "$out/vmlinux"
		[ "$cache" = 0 ] || cache_rows "$out" "$k" "$rep" >>"$rundir/raw.csv" || failed+=("$rep-$k(cache)")
		done_n=$((done_n + 1))
		csv=$out/results/data/bench.csv
		keep_outputs "$out/results/data" "$k" "$rep"
		if [ -f "$csv" ] && [ "$count" = 1 ]; then
			count_rows "$out" "$k" "$rep" "$csv" >>"$rundir/raw.csv" || failed+=("$rep-$k(count)")
		elif [ -f "$csv" ] && [ "$clock" = native ]; then
			# Each window's CPU time of the UML process, from the host.
			python3 "$FQP_ROOT/scripts/uml-cpu.py" rows "$out" "$k" "$rep" >>"$rundir/raw.csv" || failed+=("$rep-$k(cpu)")
		elif [ -f "$csv" ]; then
			sed "s/^/$k,$rep,/" "$csv" >>"$rundir/raw.csv"
		fi
		if [ "$rc" != 0 ]; then
			failed+=("$rep-$k")
			warn "rep $rep, $k kernel: a workload failed (exit $rc); its rows are kept. Log: $out.log"
			grep -E '^ *not ok|^ *#   ' "$out/verdict.ktap" "$out.log" 2>/dev/null | head -n 8 >&2 || true
		fi
		el=$(($(date +%s) - t_start))
		log "[$done_n/$total] rep $rep, $k: $(($(date +%s) - t0))s, $( [ -f "$csv" ] && wc -l <"$csv" || echo 0) rows; about $((el * (total - done_n) / done_n / 60)) min left"
	done
done

if [ "$insn" = 1 ]; then
	for rep in $(seq "$reps"); do
		# Each kernel against the series, or against 7.2's whole
		# upstream series in a run without the 6.1 pair.
		ref=patched
		[[ " ${KERNELS[*]} " == *" patched "* ]] || ref=patched72
		b=$rundir/$rep-$ref
		for k in "${KERNELS[@]}"; do
			[ "$k" != "$ref" ] || continue
			a=$rundir/$rep-$k sfx=''
			[ "$k" = stock ] || sfx=-$k
			if [ -f "$a/insn.counts" ] && [ -f "$b/insn.counts" ]; then
				python3 "$FQP_ROOT/scripts/insn-profile.py" --compare --top 60 \
					"$a/vmlinux" "$a/insn.counts" "$b/vmlinux" "$b/insn.counts" >"$rundir/insn-profile-$rep$sfx.txt"
				log "instruction profile, rep $rep (A $k, B series, whole boot): $rundir/insn-profile-$rep$sfx.txt"
			else
				warn "rep $rep: no instruction counts from both $k and the series (a boot did not power off cleanly?); see $a.log and $b.log"
			fi
		done
	done
fi
[ "$cache" = 0 ] || cache_report "$rundir"
echo "wall_seconds=$(($(date +%s) - t_start))" >>"$rundir/meta.txt"
if [ "$clock" = native ]; then
	log "medians, paired ratios and their intervals"
	python3 "$FQP_ROOT/scripts/native-stats.py" "$rundir" ||
		die "the native statistics failed" "the raw rows are in $rundir/raw.csv; fix scripts/native-stats.py and run it on $rundir"
	log "results: $rundir/native.md, native.csv, raw.csv, load.csv ($(($(date +%s) - t_start))s)"
	[ ${#failed[@]} = 0 ] || die "some boots did not measure everything: ${failed[*]}" \
		"read $rundir/<rep>-<kernel>.log and results/logs/ there; the table above uses the rows that came back"
	exit 0
fi
log "medians, ratios and plots"
grc=0
python3 "$FQP_ROOT/scripts/render-bench.py" "$rundir" || grc=$?
[ "$grc" = 0 ] || [ "$grc" = 3 ] ||
	die "rendering the results failed" "the raw rows are in $rundir/raw.csv; fix scripts/render-bench.py and run it on $rundir"
log "results: $rundir/bench.md, summary.csv, raw.csv, plots/*.png ($(($(date +%s) - t_start))s)"
if [ ${#failed[@]} -gt 0 ]; then
	die "some boots did not measure everything: ${failed[*]}" \
		"read $rundir/<rep>-<kernel>.log and results/logs/ there; the table above uses the rows that came back"
fi
if [ "$grc" = 3 ]; then
	warn "determinism gate: a headline point spread more than 0.5 % between boots (FLAGGED in $rundir/bench.md)"
	warn "  next: look for a host-dependent input in that workload (a wall-clock read, a boot-time race), or re-run with --reps 5"
	exit 3
fi
