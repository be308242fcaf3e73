# shellcheck shell=bash
# TAP for the host-side checks (check-series, check-upstream,
# check-fixes): one result line per check, checkpatch as a check, and the
# closing "N passed, N failed" line, which scripts/test.sh and CI add up.

TAP_N=0 TAP_PASS=0 TAP_FAIL=0 TAP_SKIP=0
# tap_result STATUS NAME [LOG|REASON]: one TAP line. STATUS 0: ok; "skip":
# ok with "# SKIP REASON"; anything else: not ok, then the end of LOG (if
# given and a file) as TAP comments and its path.
tap_result() {
	TAP_N=$((TAP_N + 1))
	case $1 in
	0) echo "ok $TAP_N $2"; TAP_PASS=$((TAP_PASS + 1)) ;;
	skip) echo "ok $TAP_N $2 # SKIP $3"; TAP_SKIP=$((TAP_SKIP + 1)) ;;
	*)
		echo "not ok $TAP_N $2"
		TAP_FAIL=$((TAP_FAIL + 1))
		[ -z "${3:-}" ] || [ ! -f "$3" ] || { tail -n 25 "$3" | sed 's/^/# /'; echo "# full log: $3"; }
		;;
	esac
}
# tap_checkpatch TREE PATCH NAME LOG: checkpatch_strict of PATCH in TREE as
# one TAP line NAME; its complaints go to LOG, and on failure to TAP
# comments.
tap_checkpatch() {
	local r
	r=$(checkpatch_strict "$1" "$2")
	printf '%s\n' "$r" >"$4"
	if [ -n "$r" ]; then
		sed 's/^/# /' <<<"$r" | head -n 20
		tap_result 1 "$3"
	else
		tap_result 0 "$3"
	fi
}
# tap_summary: the "N passed, N failed" line (and the skips, if any); its
# status is the verdict.
tap_summary() {
	local skips=''
	[ "$TAP_SKIP" = 0 ] || skips=", $TAP_SKIP skipped"
	echo "$TAP_PASS passed, $TAP_FAIL failed$skips"
	[ "$TAP_FAIL" = 0 ]
}
