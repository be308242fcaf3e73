#!/usr/bin/env bash
# The README's test command: from a fresh machine to a verdict. Lints the
# scripts, checks the series (checkpatch, each patch builds), boots the patched kernel and runs
# the whole suite in the guest, then proves that the harness itself fails
# loudly (a failing case, a panic) and that scripts/send-series.sh's dry run
# works (no mail is sent).
# Exit status: 0 only if everything passed.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<USAGE
usage: $0 [--base 6.1|7.2|7.3] [--kernel stock|patched|PATH] [--config test|debug] [--kconfig-add CONFIG_FOO=y]...
          [--suite-only] [--debug-next] [--shards N] [-- boot-and-test options]
  --base        the upstream tree (default \$FQP_BASE or 6.1); 7.3 (experimental's
                linux-source-7.3, the upstream patches' base) or 7.2 (sid's
                linux-source-7.2, the newest release): stock is the default
                there, --kernel patched is 7.x with the upstream patches
                (patches/net/, patches/net-next/, patches/net-next-rfc/)
  --kernel      stock, patched (default; stock on 7.x), or the path of a
                bzImage to boot (as vng and tuxrun take one; see
                boot-and-test.sh --help): the lint, the suite and the
                self-tests then run on it, the series checks do not
  --kconfig-add CONFIG_FOO=VALUE|FILE  a one-off config option or fragment
                (repeatable; scripts/build-kernel.sh --kconfig-add): every
                boot's kernel is built with it, in a build dir of its own
  --suite-only  only the guest suite: no lint, series review builds or host
                self-tests (--quick, its old name, still works; bench.sh's
                --quick means a reduced benchmark)
  --shards N    split the cases over N guests booted side by side (default 2
                with --config debug, whose guest keeps about one host core
                busy; 1 otherwise: the timing cases want the host to themselves)
  --debug-next  a debug-kernel run follows (CI): build the patched debug kernel
                behind the suite at idle priority, and leave the debug core
                cases (FQP_DEBUG_CORE, scripts/lib/cases.sh) to that run
USAGE
}
kernel='' config='' selftest=1 extra=() debug_next=0 shards='' kadd=() kadd_args=()
while [ $# -gt 0 ]; do
	case $1 in
	--base) set_base "${2:-}" || usage_error; shift ;;
	--kernel) kernel=${2:-}; shift ;;
	--config) config=${2:-}; shift ;;
	--suite-only) selftest=0 ;;
	--quick)
		warn "--quick is deprecated here: use --suite-only (scripts/bench.sh's --quick is a reduced benchmark)"
		selftest=0 ;;
	--debug-next) debug_next=1 ;;
	--shards) shards=${2:-}; shift ;;
	--kconfig-add)
		kconfig_add_lines "${2:-}" >/dev/null || usage_error
		kadd+=("$2") kadd_args+=(--kconfig-add "$2"); shift ;;
	--) shift; extra=("$@"); break ;;
	-h | --help) usage; exit 0 ;;
	*) usage_error "unknown option: $1" ;;
	esac
	shift
done

if [ -z "$kernel" ]; then
	kernel=patched
	[ "$FQP_BASE" = 6.1 ] || kernel=stock
fi
# A bzImage (--kernel PATH) goes on to boot-and-test.sh as it is; its
# config and base come from its build dir, when it is one of ours.
image='' label=''
case $kernel in
stock | patched) label=$(base_tree "$kernel") ;;
*)
	[ ${#kadd[@]} = 0 ] || usage_error "--kconfig-add builds a kernel; --kernel $kernel is one already"
	use_image "$kernel"
	image=$IMAGE kernel=$IMAGE config=${config:-$IMAGE_CONFIG} label=image
	[ "$IMAGE_FOREIGN" = 1 ] || label=$(base_tree "$IMAGE_TREE")
	;;
esac
config=${config:-test}
case $config in test | debug | bench) ;; *) usage_error "bad --config: $config (test, debug or bench)" ;; esac
# The kernel every boot and the harness self-test take.
kargs=(--kernel "$kernel" --config "$config" ${kadd_args[@]+"${kadd_args[@]}"})
if [ -z "$shards" ]; then
	shards=1
	[ "$config" != debug ] || shards=2
fi
[[ $shards =~ ^[1-9]$ ]] || usage_error "bad --shards: $shards (1-9)"

exact_boot=0
if [ "$config" = debug ]; then
	extra=(--exclude "$FQP_TIMING_CASES|$FQP_SEMANTIC_CASES" ${extra[@]+"${extra[@]}"})
elif [ ${#extra[@]} = 0 ]; then
	extra=(--exclude "$FQP_EXACT_CASES")
	exact_boot=1
fi
if [ "$debug_next" = 1 ]; then
	[ "$kernel" = patched ] && [ "$config" = test ] ||
		die "--debug-next goes with the patched test kernel (the debug run follows it)" "drop --debug-next or --kernel/--config"
	# The core cases run once, on the kernel with the detectors.
	if [ "$exact_boot" = 1 ]; then
		extra=(--exclude "$FQP_EXACT_CASES|$FQP_DEBUG_CORE")
	else
		extra=(--exclude "$FQP_DEBUG_CORE" ${extra[@]+"${extra[@]}"})
	fi
fi

ensure_packages
rc=0
counts=$(mktemp)
trap 'rm -f "$counts"' EXIT
# With --debug-next the debug kernel (24 min of both cores from an empty
# ccache) builds while the guests run: SCHED_IDLE, so it takes only the CPU
# the suite leaves idle and never delays a guest's vCPU. It starts once the
# series checks have left the patched tree fully applied.
behind_pid='' behind_log=$FQP_CACHE/logs/debug-build-behind.log
build_behind() {
	[ "$debug_next" = 1 ] || return 0
	mkdir -p "${behind_log%/*}"
	log "building the patched debug kernel behind the suite at idle priority (log: $behind_log)"
	(
		t0=$(date +%s) r=0
		chrt --idle 0 nice -n 19 "$FQP_ROOT/scripts/build-kernel.sh" --tree patched --config debug || r=$?
		echo "built-behind: exit $r after $(($(date +%s) - t0))s"
		exit "$r"
	) >"$behind_log" 2>&1 &
	behind_pid=$!
}
# step CMD...: run one stage, keep its "N passed, N failed" line for the total.
step() {
	"$@" | tee -a "$counts" || rc=1
}
if [ "$selftest" = 1 ]; then
	step "$FQP_ROOT/scripts/lint.sh"
fi
if [ "$selftest" = 1 ] && [ "$kernel" = patched ]; then
	step "$FQP_ROOT/scripts/check-series.sh"
fi
# boot_shards: the suite in $shards guests side by side, each with its
# share of the cases (boot-and-test --shard I/N), their verdicts in turn.
# The debug kernel's guest is CPU-bound on about one vCPU (KASAN, lockdep,
# kmemleak under TCG), so a second guest uses the host's other core.
boot_shards() {
	local i stamp pids=() outs=() nl kimg=("${kargs[@]}")
	# Built once, before the guests: each boots the same image.
	if [ -z "$image" ]; then
		"$FQP_ROOT/scripts/build-kernel.sh" --tree "$kernel" --config "$config" ${kadd_args[@]+"${kadd_args[@]}"} || { rc=1; return; }
		kimg=(--kernel "$kernel" --config "$config" --bzimage "$(kernel_image "$kernel" "$config" ${kadd[@]+"${kadd[@]}"})")
	fi
	"$FQP_ROOT/scripts/build-rootfs.sh" || { rc=1; return; }
	stamp=$(date +%Y%m%d-%H%M%S)
	log "booting $shards $label/$config guests side by side, the cases split between them"
	for ((i = 0; i < shards; i++)); do
		outs[i]=$(mktemp)
		# results/latest: the first guest's run.
		nl=()
		[ "$i" = 0 ] || nl=(--no-latest)
		FQP_STEP=boot-and-test-$i/$shards "$FQP_ROOT/scripts/boot-and-test.sh" "${kimg[@]}" "${nl[@]}" --shard "$i/$shards" \
			--results "$FQP_RESULTS/$stamp-$label-$config$(kconfig_add_tag ${kadd[@]+"${kadd[@]}"})-shard$i" ${extra[@]+"${extra[@]}"} >"${outs[i]}" &
		pids[i]=$!
	done
	for ((i = 0; i < shards; i++)); do
		wait "${pids[i]}" || rc=1
		echo "# guest $((i + 1)) of $shards (boot-and-test --shard $i/$shards):"
		tee -a "$counts" <"${outs[i]}"
		rm -f "${outs[i]}"
	done
}
build_behind
if [ "$shards" = 1 ]; then
	step "$FQP_ROOT/scripts/boot-and-test.sh" "${kargs[@]}" ${extra[@]+"${extra[@]}"}
else
	boot_shards
fi
if [ "$exact_boot" = 1 ]; then
	# --cases: the series checks ran in the first boot's verdict already.
	# results/latest stays at the suite's run.
	step "$FQP_ROOT/scripts/boot-and-test.sh" "${kargs[@]}" --clock exact --no-latest \
		--cases "$FQP_ROOT/tests/cases" --filter "$FQP_EXACT_CASES"
fi
if [ "$selftest" = 1 ]; then
	step "$FQP_ROOT/tests/host/harness-selftest.sh" "${kargs[@]}"
	step "$FQP_ROOT/tests/host/send-series-selftest.sh"
fi
if [ -n "$behind_pid" ]; then
	log "waiting for the debug kernel's build behind the suite (log: $behind_log)"
	if wait "$behind_pid"; then
		log "debug kernel built behind the suite: $(sed -n 's/^built-behind: exit 0 after //p' "$behind_log")"
	else
		warn "the debug kernel's build behind the suite failed (log: $behind_log); the debug run builds it again and reports its error"
	fi
fi
awk '/^[0-9]+ passed, [0-9]+ failed/ {p += $1; f += $3} END {printf "total: %d passed, %d failed\n", p, f}' "$counts"
if [ "$rc" != 0 ]; then
	# Each stage names its failures, their logs and its run directory.
	failed=$(grep -E '^# (failed|failed run|re-run it alone): ' "$counts" | sed 's/^# //' || true)
	[ -n "$failed" ] || die "a stage stopped before its verdict (its error is above)" "fix what it names and re-run $0"
	while IFS= read -r l; do log "$l"; done <<<"$failed"
	die "the suite failed: $(grep -c '^failed: ' <<<"$failed") failed, each named above with its log" \
		"read that log; the run directory (failed run:) has console.log, verdict.ktap and reproducer.sh; re-run one case alone as shown"
fi
log "suite passed"
