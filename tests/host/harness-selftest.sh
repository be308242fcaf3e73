#!/usr/bin/env bash
# Prove the harness fails loudly: a failing guest case and a guest kernel
# panic must each make boot-and-test.sh exit non-zero with the right verdict.
# Reports TAP; exit 0 only if every expectation held.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../../scripts/lib.sh"

kernel=patched config=test
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=${2:-}; shift ;;
	--config) config=${2:-}; shift ;;
	*) echo "usage: $0 [--kernel K] [--config C]" >&2; exit 2 ;;
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
	"$FQP_ROOT/scripts/boot-and-test.sh" --kernel "$kernel" --config "$config" \
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
echo "TAP version 13"
echo "1..2"
expect failing_case_fails selftest-fail 600 '^not ok [0-9]+ selftest_deliberately_fails'
expect guest_panic_fails selftest-panic 600 'PANIC: .*Kernel panic'
echo "$pass passed, $failn failed"
[ "$failn" = 0 ]
