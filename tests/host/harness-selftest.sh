#!/usr/bin/env bash
# Prove the harness fails loudly: a failing guest case and a guest kernel
# panic must each make boot-and-test.sh exit non-zero with the right verdict,
# name the failed case and its log, write a verdict.ktap that the kernel's
# own KTAP parser (tools/testing/kunit/kunit.py parse) reads without an
# error; none of its boots moves results/latest (--no-latest: a deliberate failure
# is not the run a user looks for there).
# Then calibrate the cache model (tests/host/cachemodel.c): one exact-clock
# boot walks arrays of known size under the model (selftest-cache), and
# each walk's misses per access must be what the geometry predicts.
# Reports TAP; exit 0 only if every expectation held.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../../scripts/lib.sh"

usage() {
	cat <<USAGE
usage: $0 [--kernel stock|patched|PATH] [--config test|debug] [--kconfig-add CONFIG_FOO=y]...
  --kernel, --config, --kconfig-add  the kernel the self-test boots
                      (boot-and-test.sh's options; default the patched test kernel)
Boots a deliberately failing case, a panicking guest and the cache model's
calibration; TAP. Their run directories: results/selftest-<time>/.
USAGE
}
kernel=patched config=test kadd_args=()
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=${2:-}; shift ;;
	--config) config=${2:-}; shift ;;
	--kconfig-add) kadd_args+=(--kconfig-add "${2:-}"); shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage_error "unknown option: $1" ;;
	esac
	shift
done

out_dir=$FQP_RESULTS/selftest-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out_dir"
# ktap_errors FILE: what the kernel tree's KUnit tool finds wrong with
# FILE's KTAP structure (a missing plan, result line or subtest); nothing
# when it reads cleanly or no tree has the tool yet.
ktap_errors() {
	local t
	for t in "$FQP_PATCHED" "$FQP_STOCK"; do
		[ -f "$t/tools/testing/kunit/kunit.py" ] || continue
		python3 "$t/tools/testing/kunit/kunit.py" parse "$1" 2>&1 | grep -E '\[ERROR\]|CRASHED|errors: [1-9]' | head -n 5 || true
		return 0
	done
}
# expect NAME CASEDIR TIMEOUT PATTERN...: the run must fail within TIMEOUT,
# and print and write into its verdict.ktap a line for each PATTERN.
expect() {
	local name=$1 dir=$2 to=$3 rc=0 t0 why='' pat latest0
	local r=$out_dir/$name
	shift 3
	latest0=$(readlink "$FQP_RESULTS/latest" || true)
	t0=$(date +%s)
	"$FQP_ROOT/scripts/boot-and-test.sh" --kernel "$kernel" --config "$config" ${kadd_args[@]+"${kadd_args[@]}"} \
		--cases "$FQP_ROOT/tests/host/$dir" --timeout "$to" --results "$r" --no-latest >"$r.out" 2>&1 || rc=$?
	[ "$rc" != 0 ] || why="boot-and-test.sh exited 0"
	[ $(($(date +%s) - t0)) -lt "$to" ] || why="${why:+$why; }it took longer than its ${to}s limit"
	for pat in "$@"; do
		grep -qE "$pat" "$r.out" || why="${why:+$why; }no line /$pat/ in its output"
		grep -qE "$pat" "$r/verdict.ktap" 2>/dev/null || why="${why:+$why; }no line /$pat/ in $r/verdict.ktap"
	done
	pat=$(ktap_errors "$r/verdict.ktap")
	[ -z "$pat" ] || why="${why:+$why; }kunit.py parse finds the verdict malformed: $(tr '\n' ' ' <<<"$pat")"
	[ "$(readlink "$FQP_RESULTS/latest" || true)" = "$latest0" ] || why="${why:+$why; }results/latest moved despite --no-latest"
	if [ -z "$why" ]; then
		tap_result 0 "harness_$name # exit $rc"
	else
		echo "# $why"
		tap_result 1 "harness_$name" "$r.out"
	fi
}
# cache_walks: how many walks (windows) the calibration case makes.
cache_walks() {
	sed -n 's/^CACHEWALK_POINTS="\(.*\)"$/\1/p' "$FQP_ROOT/tests/host/selftest-cache/00-cachewalk.sh" | wc -w
}
# calibrate: the walks of selftest-cache under the model; their cases are
# numbered after the two above, one per walk (CACHEWALK_POINTS).
calibrate() {
	local d=$out_dir/cache rc=0 k
	k=$(cache_walks)
	"$FQP_ROOT/scripts/boot-and-test.sh" --kernel "$kernel" --config "$config" ${kadd_args[@]+"${kadd_args[@]}"} --clock exact \
		--cases "$FQP_ROOT/tests/host/selftest-cache" --timeout 900 --results "$d" \
		--cache-model "$d/model" --no-latest >"$d.out" 2>&1 || rc=$?
	if [ "$rc" != 0 ]; then
		# One line per walk, as the plan counts them; the log's end once.
		tap_result 1 "cachemodel_calibration # the calibration boot failed (exit $rc)" "$d.out"
		for _ in $(seq 2 "$k"); do
			tap_result 1 "cachemodel_calibration # the same boot ($d.out)"
		done
		return
	fi
	python3 "$FQP_ROOT/scripts/cache-model.py" calibrate "$d/model" "$d/results/data/cachewalk.txt" "$((TAP_N + 1))" \
		>"$d.ktap" || true
	cat "$d.ktap"
	# Its lines are numbered on from ours: count them in.
	local good
	good=$(grep -c '^ok ' "$d.ktap" || true)
	TAP_N=$((TAP_N + k)) TAP_PASS=$((TAP_PASS + good)) TAP_FAIL=$((TAP_FAIL + k - good))
	[ "$good" = "$k" ] || TAP_FAILED+=("cachemodel_walk_* (log: $d.ktap)")
}
tap_header "$((2 + $(cache_walks)))"
expect failing_case_fails selftest-fail 600 '^ +not ok [0-9]+ 00-selftest:deliberately_fails( |$)' \
	'^# failed: 00-selftest:deliberately_fails \(log: .*/results/logs/00-selftest:deliberately_fails\.log\)$'
expect guest_panic_fails selftest-panic 600 '^not ok [0-9]+ guest_run # PANIC: .*Kernel panic'
calibrate
tap_summary
