#!/usr/bin/env bash
# Prove the harness fails loudly: a failing guest case and a guest kernel
# panic must each make boot-and-test.sh exit non-zero with the right verdict.
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

n=0 pass=0 failn=0
out_dir=$FQP_RESULTS/selftest-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out_dir"
# expect NAME CASEDIR TIMEOUT PATTERN: the run must fail and print PATTERN.
expect() {
	local name=$1 dir=$2 to=$3 pat=$4 rc=0 t0
	n=$((n + 1))
	t0=$(date +%s)
	"$FQP_ROOT/scripts/boot-and-test.sh" --kernel "$kernel" --config "$config" ${kadd_args[@]+"${kadd_args[@]}"} \
		--cases "$FQP_ROOT/tests/host/$dir" --timeout "$to" --results "$out_dir/$name" \
		>"$out_dir/$name.out" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ] && grep -qE "$pat" "$out_dir/$name.out" &&
		[ $(($(date +%s) - t0)) -lt "$to" ]; then
		echo "ok $n harness_$name # exit $rc"
		pass=$((pass + 1))
	else
		echo "not ok $n harness_$name # exit $rc, want non-zero and /$pat/ (log: $out_dir/$name.out)"
		failn=$((failn + 1))
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
		--cache-model "$d/model" >"$d.out" 2>&1 || rc=$?
	if [ "$rc" != 0 ]; then
		for _ in $(seq "$k"); do
			n=$((n + 1)) failn=$((failn + 1))
			echo "not ok $n cachemodel_calibration # the calibration boot failed (exit $rc; log: $d.out)"
		done
		return
	fi
	python3 "$FQP_ROOT/scripts/cache-model.py" calibrate "$d/model" "$d/results/data/cachewalk.txt" "$((n + 1))" \
		>"$d.ktap" || true
	cat "$d.ktap"
	pass=$((pass + $(grep -c '^ok ' "$d.ktap" || true)))
	failn=$((failn + k - $(grep -c '^ok ' "$d.ktap" || true)))
	n=$((n + k))
}
echo "TAP version 13"
echo "1..$((2 + $(cache_walks)))"
expect failing_case_fails selftest-fail 600 '^not ok [0-9]+ selftest_deliberately_fails'
expect guest_panic_fails selftest-panic 600 'PANIC: .*Kernel panic'
calibrate
echo "$pass passed, $failn failed"
[ "$failn" = 0 ]
