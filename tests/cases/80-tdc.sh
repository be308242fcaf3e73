# shellcheck shell=bash
# tdc (tools/testing/selftests/tc-testing): the kernel tree's own fq tests,
# copied to the run disk by boot-and-test.sh from the tree that was built,
# and this project's tdc cases for the bands' uAPI (tests/tdc/fq-bands.json:
# TCA_FQ_PRIOMAP and TCA_FQ_WEIGHTS through trixie's tc). bookworm's
# python3 3.11 runs tdc.py with its default nsPlugin as it is.
# shellcheck source=tests/lib-fq.sh
. "$T/lib-fq.sh"
CASE_TIMEOUT=300

# tdc_run NAME JSON MIN [TDC-ARGS...]: run the tdc cases of JSON (at least
# MIN of them) and fail unless every one passed.
tdc_run() {
	local d=$T/../tdc name=$1 json=$2 min=$3 out want res plan ok nok skp
	shift 3
	out=$R/data/tdc-$name.txt
	[ -f "$d/tdc.py" ] || skip "no tc-testing tree on the run disk ($d)"
	want=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$json")
	# 7.2's limit trimming test (fq.json 9479) sends from 10.0.0.10 to
	# 10.0.0.20 with scapy: every case runs from this project's range.
	sed -E 's/\b10\.0\.0\.([0-9]+)\b/198.18.0.\1/g' "$json" >"$d/fqp-$name.json"
	no_private_addr "$d/fqp-$name.json"
	# Scaled like the case timeout: a debug kernel on a loaded TCG host
	# took more than 200 s for the 18 tests.
	(cd "$d" && stimeout 200 python3 tdc.py "$@" -f "fqp-$name.json") >"$out" 2>&1 ||
		say "tdc.py exited $?"
	cat "$out"
	res=$(sed -n '/^All test results/,$p' "$out")
	plan=$(grep -m1 -oE '^1\.\.[0-9]+' <<<"$res" || true)
	ok=$(grep -E '^ok [0-9]+ ' <<<"$res" | grep -vci '# skip' || true)
	nok=$(grep -cE '^not ok ' <<<"$res" || true)
	skp=$(grep -E '^ok [0-9]+ ' <<<"$res" | grep -ci '# skip' || true)
	say "tdc $name: $want tests, plan $plan, $ok passed, $nok failed, $skp skipped"
	[ "$want" -ge "$min" ] || fail "$json has $want tests, expected at least $min"
	[ "$plan" = "1..$want" ] || fail "tdc did not run all $want tests (plan '$plan')"
	[ "$ok" = "$want" ] || fail "$ok of $want tdc $name tests passed ($nok failed, $skp skipped)"
}

# The tree's own tc-testing fq.json (at least 18 tests) all pass.
t_tdc_fq() {
	tdc_run fq "$T/../tdc/tc-tests/qdiscs/fq.json" 18
}

# Needs a kernel with bands (TCA_FQ_PRIOMAP, TCA_FQ_WEIGHTS): stock 6.1
# ignores both attributes, and the case says so as a SKIP.
t_tdc_fq_bands() {
	local len
	topo
	sn tc qdisc add dev veth0 root fq
	len=$(fqsv "$(fqs snd veth0)" xstats_len)
	sn tc qdisc del dev veth0 root
	[ "$len" -ge 152 ] ||
		skip "$FQP_KERNEL kernel's fq has no bands (tc_fq_qd_stats of $len bytes): no priomap or weights to test"
	command -v tc-trixie >/dev/null || fail "tc-trixie is missing from the guest image"
	tdc_run fq-bands "$T/tdc/fq-bands.json" 7 -p "$(command -v tc-trixie)"
}
