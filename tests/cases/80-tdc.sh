# shellcheck shell=bash
# The kernel tree's own tdc tests for fq (tools/testing/selftests/tc-testing),
# copied to the run disk by boot-and-test.sh from the tree that was built.
# bookworm's python3 3.11 runs tdc.py with its default nsPlugin as it is.
# shellcheck source=tests/lib-fq.sh
. "$T/lib-fq.sh"
CASE_TIMEOUT=240

t_tdc_fq() {
	local d=$T/../tdc out=$R/data/tdc-fq.txt
	[ -f "$d/tdc.py" ] || skip "no tc-testing tree on the run disk ($d)"
	want=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$d/tc-tests/qdiscs/fq.json")
	# 7.2's limit trimming test (9479) sends from 10.0.0.10 to 10.0.0.20
	# with scapy: the same test from this project's range.
	sed -E 's/\b10\.0\.0\.([0-9]+)\b/198.18.0.\1/g' "$d/tc-tests/qdiscs/fq.json" >"$d/fq-fqp.json"
	no_private_addr "$d/fq-fqp.json"
	# Scaled like the case timeout: a debug kernel on a loaded TCG host
	# took more than 200 s for the 18 tests.
	(cd "$d" && stimeout 200 python3 tdc.py -f fq-fqp.json) >"$out" 2>&1 ||
		say "tdc.py exited $?"
	cat "$out"
	res=$(sed -n '/^All test results/,$p' "$out")
	plan=$(grep -m1 -oE '^1\.\.[0-9]+' <<<"$res" || true)
	ok=$(grep -E '^ok [0-9]+ ' <<<"$res" | grep -vci '# skip' || true)
	nok=$(grep -cE '^not ok ' <<<"$res" || true)
	skp=$(grep -E '^ok [0-9]+ ' <<<"$res" | grep -ci '# skip' || true)
	say "tdc fq.json: $want tests, plan $plan, $ok passed, $nok failed, $skp skipped"
	[ "$want" -ge 18 ] || fail "fq.json has $want tests, expected 18"
	[ "$plan" = "1..$want" ] || fail "tdc did not run all $want tests (plan '$plan')"
	[ "$ok" = "$want" ] || fail "$ok of $want tdc fq tests passed ($nok failed, $skp skipped)"
}
