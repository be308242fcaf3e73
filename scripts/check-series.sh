#!/usr/bin/env bash
# Review checks on the series, reported as TAP: every patch passes
# checkpatch --strict, and the tree builds after each patch in turn
# (bisectable). Builds are incremental in the patched tree's own O= dir,
# so the tree ends fully patched and the test kernel is already built.
# Then the objects the series touches are cross-built on the fully patched
# tree for arm64, i386, s390x and ppc64el (scripts/cross-build.sh), one
# TAP line per arch. Logs: $FQP_CACHE/logs/check-series/.
#
# --base 7.3 (or 7.2): the upstream patches (patches/net/, then
# patches/net-next/, then patches/net-next-rfc/) on experimental's
# linux-source-7.3 (sid's linux-source-7.2), each checked the way netdev's
# patchwork checks a patch: checkpatch --strict; applies; the test kernel
# builds (x86_64, gcc); the objects it touches build with W=1 and sparse
# (C=2) with sch_fq as a module and with sch_fq and its KUnit tests built
# in, and vmlinux and the modules link, adding no warning to the tree
# before the series (and the module has no KUnit test); scripts/kernel-doc
# -none adds nothing; the objects cross-build for i386; and the same with
# clang-19 at W=1 (LLVM=-19: 7.x needs LLVM >= 17; bookworm carries
# clang-19), KUnit file included. Logs: $FQP_CACHE/logs/check-series-7.x/.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<USAGE
usage: $0 [--base 6.1|7.2|7.3]
  --base  6.1 (default \$FQP_BASE or 6.1): checkpatch and a build after each
          patch of the series, then the cross builds; 7.3 (their base) or 7.2:
          netdev's checks of each upstream patch (scripts/check-upstream.sh)
Reports TAP; logs in \$FQP_CACHE/logs/check-series/ (7.x: check-series-7.x/).
USAGE
}
while [ $# -gt 0 ]; do
	case $1 in
	--base) set_base "${2:-}" || usage_error; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage_error "unknown option: $1" ;;
	esac
	shift
done
if [ "$FQP_BASE" != 6.1 ]; then
	exec "$FQP_ROOT/scripts/check-upstream.sh" --base "$FQP_BASE"
fi

"$FQP_ROOT/scripts/prepare-tree.sh"
mapfile -t patches < <(series_patches)
mapfile -t cross_arches < <("$FQP_ROOT/scripts/cross-build.sh" --list | sed -n 's/^arch //p')
logdir=$FQP_CACHE/logs/check-series
mkdir -p "$logdir"
tap_header "$((2 * ${#patches[@]} + ${#cross_arches[@]}))"

for p in "${patches[@]}"; do
	tap_checkpatch "$FQP_PATCHED" "$FQP_ROOT/patches/$p" "checkpatch_strict_${p%%-*}" "$logdir/checkpatch-${p%%-*}.log"
done

want=$(cat "$FQP_PATCHED/.fqp-series")
quilt_pop_all "$FQP_PATCHED" || die "quilt pop -a failed in $FQP_PATCHED" "re-run scripts/prepare-tree.sh --force"
for p in "${patches[@]}"; do
	rc=0
	(cd "$FQP_PATCHED" && quilt push -q) >"$logdir/push-${p%%-*}.log" 2>&1 || rc=1
	[ "$rc" = 1 ] || "$FQP_ROOT/scripts/build-kernel.sh" --src "$FQP_PATCHED" \
		--out "$FQP_BUILD/patched-test" --tree patched --config test \
		>"$logdir/build-${p%%-*}.log" 2>&1 || rc=1
	[ "$rc" = 0 ] || tail -n 20 "$logdir/build-${p%%-*}.log" | sed 's/^/# /'
	tap_result "$rc" "builds_after_${p%%.patch}"
done
# Fully pushed again: mark the tree current so nothing re-applies it.
full=0
[ "$(cd "$FQP_PATCHED" && quilt applied 2>/dev/null | wc -l)" != "${#patches[@]}" ] ||
	{ echo "$want" >"$FQP_PATCHED/.fqp-series"; full=1; }

# cross_build ARCH: one TAP line; on failure the first compiler errors, the
# error cross-build.sh gave and the log paths as TAP comments.
cross_build() {
	local a=$1 runlog summary rc=0
	runlog=$logdir/cross-$a-run.log
	if [ "$full" = 0 ]; then
		echo "# the series did not apply fully (logs: $logdir/push-*.log): not cross-building"
		tap_result 1 "cross_build_$a"
		return
	fi
	log "cross-building the series' objects for $a (log: $runlog)"
	"$FQP_ROOT/scripts/cross-build.sh" --arch "$a" --src "$FQP_PATCHED" >"$runlog" 2>&1 || rc=1
	if [ "$rc" = 0 ]; then
		summary=$(sed -n "s/^cross-$a: //p" "$runlog")
		grep -E ': warning:' "$logdir/cross-$a.log" 2>/dev/null | head -n 10 | sed 's/^/# /' || true
		tap_result 0 "cross_build_$a # $summary"
	else
		grep -E -m 5 ': (fatal )?error:' "$logdir/cross-$a.log" 2>/dev/null | sed 's/^/# /' || true
		grep -E 'ERROR:|next:' "$runlog" | tail -n 4 | sed 's/^/# /'
		echo "# logs: $runlog, $logdir/cross-$a.log"
		tap_result 1 "cross_build_$a"
	fi
}
for a in "${cross_arches[@]}"; do cross_build "$a"; done
tap_summary
