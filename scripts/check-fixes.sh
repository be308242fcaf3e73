#!/usr/bin/env bash
# Before/after checks of the fixes that go to trees other than net-next,
# reported as TAP: patches/net (sock, tcp, sch_fq, for net: on
# experimental's 7.3, the tree nearest to net) and
# patches/stable-6.1 and patches/stable-6.12 (sch_fq, for stable: on
# bookworm's 6.1 and trixie's 6.12). For each fix: its quilt series
# applies to a copy of its stock tree, every patch is checkpatch --strict
# clean, the fixed tree builds (test config), and the fix's guest cases
# fail on the stock kernel (each of them) and pass on the fixed one. Not
# run by CI: it
# builds and boots up to five kernels (docs/testing.md, "Fixes for other
# trees"). Logs and run directories: $FQP_CACHE/logs/check-fixes/.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

FIXES='net stable-6.1 stable-6.12'
usage() {
	cat <<USAGE
usage: $0 [--fix NAME[,NAME...]]
  --fix   which fixes to check (default all: ${FIXES// /, })
USAGE
}
only=''
while [ $# -gt 0 ]; do
	case $1 in
	--fix) only=${2:-}; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage_error "unknown option: $1" ;;
	esac
	shift
done
# shellcheck disable=SC2086 # the names are words
sel=$(select_names fix "$only" $FIXES) || usage_error
mapfile -t fixes <<<"$sel"

# The guest cases that show each fix (boot-and-test.sh --filter).
TXTIME_CASES='^52-fq-txtime:(far_drop|far_cap|any_txtime_cannot_fill)$'
declare -A CASES=(
	[net]='^30-tso-autosize:tso_rtt_log_32$|^58-fq-fastpath:max_pacing_rate_raised$|^66-fq-bands:change_due_keeps_bands$'
	[stable-6.1]=$TXTIME_CASES
	[stable-6.12]=$TXTIME_CASES
)
# The harness base each fix's kernels boot on. The harness has no 6.12
# base: 6.12's kernels build with 7.2's fragments and boot as base 7.2,
# which the txtime cases allow (they assert mainline's semantics, the same
# on 7.2 and fixed 6.12; only their note names the kernel).
declare -A BASE=([net]=$FQP_UPSTREAM_BASE [stable-6.1]=6.1 [stable-6.12]=7.2)
# The build dir of each fixed kernel: $FQP_CACHE/fixes/FIX/build/NAME-test.
declare -A BUILDNAME=([net]=net$(base_tag "$FQP_UPSTREAM_BASE") [stable-6.1]=stable61 [stable-6.12]=stable612)
declare -A TREE=([net]="experimental $FQP_UPSTREAM_BASE" [stable-6.1]='bookworm 6.1' [stable-6.12]='trixie 6.12')

logdir=$FQP_CACHE/logs/check-fixes
mkdir -p "$logdir"
not_run() { tap_result 1 "$1 # not run: $2"; }

# stock_tree FIX: prepare the fix's unpatched tree and print its path.
stock_tree() {
	case $1 in
	net)
		"$FQP_ROOT/scripts/prepare-tree.sh" --base "${BASE[net]}" --stock-only >&2
		echo "$FQP_CACHE/stock-${BASE[net]}"
		;;
	stable-6.1)
		"$FQP_ROOT/scripts/prepare-tree.sh" --base 6.1 --stock-only >&2
		echo "$FQP_CACHE/stock"
		;;
	stable-6.12)
		fetch_debian_tree trixie linux-source-6.12 "$FQP_CACHE/stock-6.12"
		echo "$FQP_CACHE/stock-6.12"
		;;
	esac
}

# The net fixes are the first patches of the patched 7.3 tree's series:
# their stock and fixed kernels are that tree popped to no patch and to
# the last net fix (build_upstream_level, scripts/lib/series.sh), built
# beside its test kernel so that ccache shares every object the fixes do
# not touch (a build of the stock tree itself shares none: its source
# path differs).
net_tag=fixes$(base_tag "${BASE[net]}")
# niced CMD...: CMD (a function too) at nice 5, as the builds here run.
niced() { (renice -n 5 -p "$BASHPID" >/dev/null 2>&1 || true; "$@"); }

# stock_image FIX LOG: build the fix's stock kernel (the harness's own
# build dir for 6.1, the patched tree with no patch for net) and print its
# bzImage.
stock_image() {
	if [ "$1" = net ]; then
		niced build_upstream_level 0 test "$net_tag-stock" "${BASE[net]}" >"$2" 2>&1 || return 1
		echo "$FQP_BUILD/$net_tag-stock-test/arch/x86/boot/bzImage"
		return 0
	fi
	local -a args=(--base "${BASE[$1]}" --tree stock --config test)
	[ "$1" != stable-6.12 ] || args+=(--src "$FQP_CACHE/stock-6.12" --out "$FQP_BUILD/stock612-test")
	nice -n 5 "$FQP_ROOT/scripts/build-kernel.sh" "${args[@]}" >"$2" 2>&1 || return 1
	case $1 in
	stable-6.12) echo "$FQP_BUILD/stock612-test/arch/x86/boot/bzImage" ;;
	*) FQP_BASE=${BASE[$1]} kernel_image stock test ;;
	esac
}

# boot FIX KIND BZIMAGE: boot BZIMAGE with the fix's cases into
# $logdir/FIX-KIND (run dir and .log); the status is boot-and-test.sh's.
# A fixed kernel boots as --kernel stock too: it is the stock tree and
# one fix, and the cases assert the fixed semantics on every kernel.
boot() {
	rm -rf "${logdir:?}/$1-$2"
	nice -n 5 "$FQP_ROOT/scripts/boot-and-test.sh" --base "${BASE[$1]}" --kernel stock \
		--bzimage "$3" --filter "${CASES[$1]}" --results "$logdir/$1-$2" >"$logdir/$1-$2.log" 2>&1
}

# alternatives REGEX: the top-level alternatives of REGEX, one a line
# (a '|' inside parentheses stays: ^52-fq-txtime:(a|b)$ is one).
alternatives() {
	local re=$1 i c depth=0 cur=''
	for ((i = 0; i < ${#re}; i++)); do
		c=${re:i:1}
		case $c in
		'(') depth=$((depth + 1)) ;;
		')') depth=$((depth - 1)) ;;
		'|') if [ "$depth" = 0 ]; then printf '%s\n' "$cur"; cur=''; continue; fi ;;
		esac
		cur+=$c
	done
	printf '%s\n' "$cur"
}

# case_failed FIX: the stock boot's KTAP has a "not ok" line for a case of
# each top-level alternative of the fix's --filter regex (one per fix in
# patches/net; any of the three txtime cases for stable), not only a
# failed boot: a case is reported under the FILE:CASE name the regex
# matches. Prints the alternatives the stock kernel passed.
case_failed() {
	local alt missed=''
	while read -r alt; do
		alt=${alt#^} alt=${alt%$}
		grep -qE "^ *not ok [0-9]+ ${alt}( |$)" "$logdir/$1-stock/verdict.ktap" 2>/dev/null ||
			missed+=" $alt"
	done < <(alternatives "${CASES[$1]}")
	[ -z "$missed" ] || { echo "$missed"; return 1; }
}

check_fix() {
	local fix=$1 stock tree out p img rc cp_out missed
	local -a patches
	echo "# $fix: patches/$fix on ${TREE[$fix]}, cases ${CASES[$fix]}"
	stock=$(stock_tree "$fix") || die "preparing $fix's stock tree failed" "see the error above, then re-run $0 --fix $fix"
	mapfile -t patches < <(grep -vE '^[[:space:]]*(#|$)' "$FQP_ROOT/patches/$fix/series" | awk '{print $1}')
	[ ${#patches[@]} -gt 0 ] || die "patches/$fix/series lists no patch" "list the fix's patches there, one a line"

	# A copy of the stock tree with hard links (patch writes a new file, the
	# stock tree keeps its own). Tree and build dir sit in FIX/ as the stock
	# ones sit in $FQP_CACHE, so ccache hits for every unchanged object.
	tree=$FQP_CACHE/fixes/$fix/${stock##*/} out=$FQP_CACHE/fixes/$fix/build/${BUILDNAME[$fix]}-test
	rm -rf "$tree"
	mkdir -p "${tree%/*}"
	rc=0
	{ cp -al "$stock" "$tree" &&
		(cd "$tree" && QUILT_PATCHES=$FQP_ROOT/patches/$fix QUILT_SERIES=$FQP_ROOT/patches/$fix/series \
			QUILT_PC=.pc quilt push -a); } >"$logdir/$fix-push.log" 2>&1 || rc=1
	tap_result "$rc" "applies_$fix" "$logdir/$fix-push.log"

	rc=0
	: >"$logdir/$fix-checkpatch.log"
	for p in "${patches[@]}"; do
		cp_out=$(checkpatch_strict "$stock" "$FQP_ROOT/patches/$fix/$p")
		[ -z "$cp_out" ] || { printf '%s:\n%s\n' "$p" "$cp_out" >>"$logdir/$fix-checkpatch.log"; rc=1; }
	done
	tap_result "$rc" "checkpatch_strict_$fix" "$logdir/$fix-checkpatch.log"

	if [ -d "$tree/.pc" ] && [ "$fix" = net ]; then
		rc=0 out=$FQP_BUILD/$net_tag-net-test
		niced build_upstream_level "$(upstream_net_count)" test "$net_tag-net" "${BASE[net]}" \
			>"$logdir/$fix-build.log" 2>&1 || rc=1
		tap_result "$rc" "builds_$fix" "$logdir/$fix-build.log"
	elif [ -d "$tree/.pc" ]; then
		rc=0
		nice -n 5 "$FQP_ROOT/scripts/build-kernel.sh" --base "${BASE[$fix]}" --tree stock --config test \
			--src "$tree" --out "$out" >"$logdir/$fix-build.log" 2>&1 || rc=1
		tap_result "$rc" "builds_$fix" "$logdir/$fix-build.log"
	else
		rc=1
		not_run "builds_$fix" "the series did not apply"
	fi

	if img=$(stock_image "$fix" "$logdir/$fix-build-stock.log"); then
		boot "$fix" stock "$img" || true
		if missed=$(case_failed "$fix"); then
			tap_result 0 "stock_fails_$fix"
		else
			tap_result 1 "stock_fails_$fix # the stock kernel passed$missed (or never ran it)" "$logdir/$fix-stock.log"
		fi
	else
		tap_result 1 "stock_fails_$fix # the stock kernel did not build" "$logdir/$fix-build-stock.log"
	fi

	if [ "$rc" = 0 ]; then
		if boot "$fix" fixed "$out/arch/x86/boot/bzImage"; then
			tap_result 0 "fixed_passes_$fix"
		else
			tap_result 1 "fixed_passes_$fix" "$logdir/$fix-fixed.log"
		fi
	else
		not_run "fixed_passes_$fix" "no fixed kernel"
	fi
}

tap_header "$((5 * ${#fixes[@]}))"
for f in "${fixes[@]}"; do check_fix "$f"; done
tap_summary
