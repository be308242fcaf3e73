# shellcheck shell=bash
# KTAP version 1 (Documentation/dev-tools/ktap.rst) for the host-side
# checks (lint, check-series, check-upstream, check-fixes, the host
# self-tests): the version and plan lines, one result line per check
# (a failed check's diagnostics before it), checkpatch as a check, and at
# the end each failed check with its log, kselftest's "# Totals:" line and
# our "N passed, N failed" line, which scripts/test.sh and CI add up.

TAP_N=0 TAP_PASS=0 TAP_FAIL=0 TAP_SKIP=0 TAP_FAILED=()
# tap_header PLAN: the version and plan lines of PLAN checks.
tap_header() { printf 'KTAP version 1\n1..%s\n' "$1"; }
# tap_diag TEXT...: TEXT as diagnostic lines, at most 60.
tap_diag() { printf '%s\n' "$@" | head -n 60 | sed 's/^/# /'; }
# tap_result STATUS NAME [LOG|REASON]: one result line. STATUS 0: ok;
# "skip": ok with "# SKIP REASON"; anything else: not ok, after the end of
# LOG (if given and a file) as diagnostics and its path.
tap_result() {
	TAP_N=$((TAP_N + 1))
	case $1 in
	0) echo "ok $TAP_N $2"; TAP_PASS=$((TAP_PASS + 1)) ;;
	skip) echo "ok $TAP_N $2 # SKIP $3"; TAP_SKIP=$((TAP_SKIP + 1)) ;;
	*)
		if [ -n "${3:-}" ] && [ -f "$3" ]; then
			tail -n 25 "$3" | sed 's/^/# /'
			echo "# full log: $3"
			TAP_FAILED+=("${2%% #*} (log: $3)")
		else
			TAP_FAILED+=("${2%% #*}")
		fi
		echo "not ok $TAP_N $2"
		TAP_FAIL=$((TAP_FAIL + 1))
		;;
	esac
}
# tap_checkpatch TREE PATCH NAME LOG: checkpatch_strict of PATCH in TREE as
# one check NAME; its complaints go to LOG (and on failure before the
# result line).
tap_checkpatch() {
	local r
	r=$(checkpatch_strict "$1" "$2")
	printf '%s\n' "$r" >"$4"
	if [ -n "$r" ]; then tap_result 1 "$3" "$4"; else tap_result 0 "$3"; fi
}
# tap_summary: each failed check and its log, the "# Totals:" line and the
# "N passed, N failed" line (and the skips, if any); its status is the
# verdict.
tap_summary() {
	local skips='' f
	[ "$TAP_SKIP" = 0 ] || skips=", $TAP_SKIP skipped"
	for f in ${TAP_FAILED[@]+"${TAP_FAILED[@]}"}; do echo "# failed: $f"; done
	echo "# Totals: pass:$TAP_PASS fail:$TAP_FAIL xfail:0 xpass:0 skip:$TAP_SKIP error:0"
	echo "$TAP_PASS passed, $TAP_FAIL failed$skips"
	[ "$TAP_FAIL" = 0 ]
}
