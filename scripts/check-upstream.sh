#!/usr/bin/env bash
# The checks netdev's patchwork runs, on every upstream patch in order
# (patches/net/, patches/net-next/, then the RFC patches/net-next-rfc/,
# applied to their base, Debian
# experimental's linux-source-7.3; --base 7.2: sid's linux-source-7.2), as
# TAP. Run through scripts/check-series.sh --base 7.3. For each patch:
#   checkpatch     checkpatch --strict (netdev's 80 columns) is clean
#   applies        quilt push of the patch onto the ones before it
#   builds         the test kernel (x86_64, gcc) builds: bisectable
#   w1_sparse_m    the .c files the series touches, in a build with sch_fq
#                  as a module (cross.config + check-module.config) and in
#                  one with sch_fq and its KUnit tests built in
#                  (cross.config + check-kunit.config): gcc W=1 and sparse
#                  C=2 warnings no more than on the base before the series,
#                  file by file; vmlinux and the modules link; and the
#                  module build, KUNIT_ALL_TESTS on, has no fq KUnit test
#                  (a module must not carry it)
#   kernel_doc     scripts/kernel-doc -none on the touched .c files: no
#                  more complaints than before the series
#   i386           the touched objects cross-build for i386
#   clang_w1       the touched objects with clang-19 at W=1 (LLVM=-19;
#                  7.x needs LLVM >= 17, bookworm carries clang-19), KUnit
#                  tests built in: no warning in a touched file
# The tree ends fully patched, and its test kernel built.
# Logs: $FQP_CACHE/logs/check-series-7.3/ (7.2: check-series-7.2/).
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<USAGE
usage: $0 [--base 7.3|7.2]
netdev's checks of each upstream patch on its base (default 7.3,
experimental's linux-source-7.3; 7.2: sid's linux-source-7.2), as TAP
(scripts/check-series.sh --base 7.x runs it).
Logs: \$FQP_CACHE/logs/check-series-7.x/.
USAGE
}
base=$FQP_UPSTREAM_BASE
while [ $# -gt 0 ]; do
	case $1 in
	--base) base=${2:-}; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage_error "unknown option: $1" ;;
	esac
	shift
done
[ "$base" != 6.1 ] || usage_error "6.1 carries the 6.1 series: scripts/check-series.sh checks it"
set_base "$base" || usage_error
btag=$(base_tag "$FQP_BASE")
ensure_packages python3 clang-19 lld-19 llvm-19
# 7.x refuses bookworm's sparse (0.6.4), and then runs none: sid's,
# built from its source package (ensure_sparse_72 in lib.sh).
sparse7=$(ensure_sparse_72)
"$FQP_ROOT/scripts/prepare-tree.sh"
# The walk pops and pushes the patched tree: no other job prepares it
# meanwhile (prepare-tree.sh waits for this lock).
with_lock "$(tree_lock)"
mapfile -t patches < <(series_patches)
logdir=$FQP_CACHE/logs/check-series-$FQP_BASE
mkdir -p "$logdir"
export CCACHE_DIR=${CCACHE_DIR:-$FQP_CACHE/ccache}
export CCACHE_BASEDIR=$FQP_CACHE KBUILD_BUILD_TIMESTAMP='2013-08-29' \
	KBUILD_BUILD_USER=fq-pacing KBUILD_BUILD_HOST=check

# The .c files the whole series touches, and those of them that make
# builds as objects (tests/sch_fq_kunit.c is #included by sch_fq.c: its
# warnings count, kernel-doc reads it, it is no object of its own).
touched_all() {
	local p
	for p in "${patches[@]}"; do
		sed -nE 's|^\+\+\+ b/(.*\.c)$|\1|p' "$FQP_ROOT/patches/$p"
	done | sort -u
}
mapfile -t allfiles < <(touched_all)
cfiles=()
for f in "${allfiles[@]}"; do
	f=${f%.c}
	! grep -qw "${f##*/}\.o" "$FQP_PATCHED/$(dirname "$f")/Makefile" 2>/dev/null || cfiles+=("$f.c")
done
objs=("${cfiles[@]/%.c/.o}")
[ ${#objs[@]} -gt 0 ] || die "the upstream patches touch no .c file that builds as an object" "check patches/net*/series"

# The clang ensure_packages installed (7.x needs LLVM >= 17).
clang_bin=19

checks=(checkpatch applies builds w1_sparse_m kernel_doc i386 clang_w1)
tap_header "$((${#checks[@]} * ${#patches[@]}))"

# The W=1 + sparse builds: one O= dir each, configured once. sch_fq as a
# module, as distributions build it; and built in with KUNIT_ALL_TESTS, the
# only way its KUnit tests build (NET_SCH_FQ_KUNIT_TEST depends on
# NET_SCH_FQ=y), so that W=1, sparse and clang read them too.
mod_out=$FQP_BUILD/check$btag-module
mod_mk=(make -C "$FQP_PATCHED" O="$mod_out" ARCH=x86_64 CC="ccache gcc" HOSTCC=gcc -j"$(nproc)")
mapfile -t mod_frags < <(cross_fragments "$FQP_PATCHED")
mod_frags+=("$FQP_ROOT/config-fragments/check-module.config")
kun_out=$FQP_BUILD/check$btag-kunit
kun_mk=(make -C "$FQP_PATCHED" O="$kun_out" ARCH=x86_64 CC="ccache gcc" HOSTCC=gcc -j"$(nproc)")
mapfile -t kun_frags < <(cross_fragments "$FQP_PATCHED")
kun_frags+=("$FQP_ROOT/config-fragments/check-kunit.config")
# configure_once OUT FRAG... -- MAKE...: configure OUT from tinyconfig and
# the fragments, again only when the fragments changed.
configure_once() {
	local out=$1 h
	local -a frags=()
	shift
	while [ "$1" != -- ]; do frags+=("$1"); shift; done
	shift
	h=$(cat "${frags[@]}" | sha256sum | cut -c1-16)
	[ -f "$out/.config" ] && [ "$(cat "$out/.fqp-config" 2>/dev/null)" = "$h" ] && return 0
	mkdir -p "$out"
	kconfig_make "$FQP_PATCHED" "$out" "$logdir/${out##*/}-config.log" tinyconfig "${frags[@]}" -- "$@"
	config_check "$out/.config" "${frags[@]}" ||
		die "the check's config did not stick ($out/.config)" "fix ${frags[*]##*/}"
	echo "$h" >"$out/.fqp-config"
}

# warn_counts LOG: "file count" per touched file, of gcc and sparse
# warnings in LOG (sparse says "warning:" too; both name the file).
warn_counts() {
	local f
	for f in "${allfiles[@]}"; do
		printf '%s %s\n' "$f" "$(grep -cE "(^|/)${f//./\\.}:[0-9]+:[0-9]+: (warning|error):" "$1" || true)"
	done
}

# w1_sparse LOG: the touched objects with W=1 and C=2 (each recompiled:
# the flags changed), then vmlinux and the modules (modpost), in the module
# build; the touched objects again in the built-in KUnit build. When kbuild
# finds the sparse too old it runs none and says so only in the log, and
# the build succeeds: that is a failure here. So is a module build that
# has fq's KUnit tests: with KUNIT_ALL_TESTS, sch_fq.ko would carry them,
# run them at every modprobe and taint the kernel.
w1_sparse() {
	{ "${mod_mk[@]}" W=1 C=2 CHECK="$sparse7" "${objs[@]}" && "${mod_mk[@]}" vmlinux modules &&
		"${kun_mk[@]}" W=1 C=2 CHECK="$sparse7" "${objs[@]}"; } >"$1" 2>&1 || return 1
	if grep -q 'is not available or not up to date' "$1"; then
		echo "# kbuild ran no sparse: $(grep -m 1 'is not available or not up to date' "$1") (CHECK=$sparse7)"
		return 1
	fi
	if grep -q '^CONFIG_NET_SCH_FQ_KUNIT_TEST=' "$mod_out/.config"; then
		echo "# sch_fq is a module and has the KUnit tests: $(grep '^CONFIG_NET_SCH_FQ_KUNIT_TEST=' "$mod_out/.config")"
		return 1
	fi
}

# kdoc LOG: kernel-doc's complaints about the touched files.
kdoc() {
	(cd "$FQP_PATCHED" && for f in "${allfiles[@]}"; do
		[ ! -f "$f" ] || scripts/kernel-doc -none "$f"
	done) >"$1" 2>&1 || true
	grep -cE 'warning|error' "$1" || true
}

# clang_objs LOG: the touched objects with clang at W=1, own O= dir, fq
# and its KUnit tests built in.
clang_objs() {
	local out=$FQP_BUILD/check$btag-clang-kunit
	local -a mk=(make -C "$FQP_PATCHED" O="$out" ARCH=x86_64 LLVM="-$clang_bin" CC="ccache clang-$clang_bin" -j"$(nproc)")
	configure_once "$out" "${kun_frags[@]}" -- "${mk[@]}"
	"${mk[@]}" W=1 "${objs[@]}" >"$1" 2>&1 || return 1
	! grep -E "(^|/)($(IFS='|'; echo "${allfiles[*]//./\\.}")):[0-9]+:[0-9]+: (warning|error):" "$1"
}

# Baseline: the base before the series.
quilt_pop_all "$FQP_PATCHED" || die "quilt pop -a failed in $FQP_PATCHED" "re-run scripts/prepare-tree.sh --base $FQP_BASE --force"
log "baseline: the touched files (${cfiles[*]}) on $FQP_BASE before the series"
configure_once "$mod_out" "${mod_frags[@]}" -- "${mod_mk[@]}"
configure_once "$kun_out" "${kun_frags[@]}" -- "${kun_mk[@]}"
w1_sparse "$logdir/baseline-w1.log" ||
	die "$FQP_BASE itself does not build with W=1 C=2 (log: $logdir/baseline-w1.log)" "read the log: a missing tool (sparse)?"
base_warn=$(warn_counts "$logdir/baseline-w1.log")
base_kdoc=$(kdoc "$logdir/baseline-kdoc.log")
log "baseline: warnings per file: $(tr '\n' ' ' <<<"$base_warn"); kernel-doc: $base_kdoc"

for p in "${patches[@]}"; do
	tag=$(basename "$(dirname "$p")")_$(basename "$p" | cut -c1-4)
	tap_checkpatch "$FQP_PATCHED" "$FQP_ROOT/patches/$p" "checkpatch_$tag" "$logdir/checkpatch-$tag.log"
	if ! (cd "$FQP_PATCHED" && quilt push -q) >"$logdir/push-$tag.log" 2>&1; then
		tap_result 1 "applies_$tag" "$logdir/push-$tag.log"
		for c in "${checks[@]:2}"; do tap_result 1 "${c}_$tag # not applied"; done
		continue
	fi
	tap_result 0 "applies_$tag"
	rc=0
	"$FQP_ROOT/scripts/build-kernel.sh" --base "$FQP_BASE" --src "$FQP_PATCHED" \
		--out "$(build_dir patched test)" --tree patched --config test \
		>"$logdir/build-$tag.log" 2>&1 || rc=1
	tap_result "$rc" "builds_$tag" "$logdir/build-$tag.log"
	rc=0
	w1_sparse "$logdir/w1-$tag.log" || rc=1
	if [ "$rc" = 0 ]; then
		now=$(warn_counts "$logdir/w1-$tag.log")
		more=$(join <(sort <<<"$base_warn") <(sort <<<"$now") | awk '$3 > $2 {printf "%s %d -> %d; ", $1, $2, $3}')
		if [ -n "$more" ]; then
			echo "# new W=1/sparse warnings: $more"
			grep -E ': (warning|error):' "$logdir/w1-$tag.log" | head -n 10 | sed 's/^/# /'
			rc=1
		fi
	fi
	tap_result "$rc" "w1_sparse_m_$tag" "$logdir/w1-$tag.log"
	k=$(kdoc "$logdir/kdoc-$tag.log")
	if [ "$k" -gt "$base_kdoc" ]; then
		echo "# kernel-doc: $k complaints, $base_kdoc before the series"
		head -n 10 "$logdir/kdoc-$tag.log" | sed 's/^/# /'
		tap_result 1 "kernel_doc_$tag" "$logdir/kdoc-$tag.log"
	else
		tap_result 0 "kernel_doc_$tag"
	fi
	rc=0
	"$FQP_ROOT/scripts/cross-build.sh" --base "$FQP_BASE" --arch i386 --src "$FQP_PATCHED" >"$logdir/i386-$tag.log" 2>&1 || rc=1
	tap_result "$rc" "i386_$tag" "$logdir/i386-$tag.log"
	rc=0
	clang_objs "$logdir/clang-$tag.log" || rc=1
	tap_result "$rc" "clang_w1_$tag" "$logdir/clang-$tag.log"
done
# Fully pushed: mark the tree current so nothing re-applies it.
[ "$(cd "$FQP_PATCHED" && quilt applied 2>/dev/null | wc -l)" != "${#patches[@]}" ] ||
	series_hash >"$FQP_PATCHED/.fqp-series"
tap_summary
