#!/usr/bin/env bash
# Cross-build the objects the series touches for other Debian release
# architectures, with Debian's cross compilers: a build break there (an
# arch with another L1_CACHE_BYTES, 32-bit longs, big endian) shows up
# before a maintainer's build bot finds it. One small config per arch
# (tinyconfig + config-fragments/cross.config [+ cross-proc-sysctl.config]
# [+ cross-<arch>.config]),
# one O= dir per arch and base (cross-<arch>, cross7x-<arch>), ccache: a
# rerun rebuilds only what changed.
# Warnings are reported, not fatal (no -Werror); any error fails.
#   cross-build.sh [--arch LIST] [--src DIR] [--list]
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

# Debian arch -> kernel ARCH, cross prefix (the Debian package is gcc-<prefix>).
declare -A KARCH=([arm64]=arm64 [i386]=i386 [s390x]=s390 [ppc64el]=powerpc)
declare -A CROSS=([arm64]=aarch64-linux-gnu [i386]=i686-linux-gnu
	[s390x]=s390x-linux-gnu [ppc64el]=powerpc64le-linux-gnu)
ARCHES=(arm64 i386 s390x ppc64el)
# Always built, whatever the series touches today; plus every .c it touches.
BASE_OBJS=(net/sched/sch_fq.o net/ipv4/tcp_input.o net/ipv4/tcp_output.o net/ipv4/sysctl_net_ipv4.o)

usage() {
	cat <<USAGE
usage: $0 [--arch LIST] [--src DIR] [--list]
  --arch  comma-separated, from: ${ARCHES[*]} (default: all)
  --src   tree to build (default: the base's patched tree, prepared if needed)
  --base  6.1, 7.2 or 7.3 (default \$FQP_BASE or 6.1): which patches and build dirs
  --list  print the architectures, one per line ("arch NAME"), and exit
logs: \$FQP_CACHE/logs/check-series/cross-<arch>.log; build dirs: \$FQP_CACHE/build/cross-<arch>
USAGE
}
arch_list='' src='' list=0
while [ $# -gt 0 ]; do
	case $1 in
	--arch) arch_list=${2:-}; shift ;;
	--src) src=${2:-}; shift ;;
	--base) set_base "${2:-}" || usage_error; shift ;;
	--list) list=1 ;;
	-h | --help) usage; exit 0 ;;
	*) usage_error "unknown option: $1" ;;
	esac
	shift
done
sel=$(select_names architecture "$arch_list" "${ARCHES[@]}") || usage_error
mapfile -t arches <<<"$sel"

if [ "$list" = 1 ]; then
	printf 'arch %s\n' "${arches[@]}"
	exit 0
fi

# Every arch's compiler at once: one apt run, even when called per arch.
pkgs=(make flex bison bc perl ccache libc6-dev)
for a in "${ARCHES[@]}"; do pkgs+=("gcc-${CROSS[$a]}"); done
ensure_packages "${pkgs[@]}"
if [ -z "$src" ]; then
	"$FQP_ROOT/scripts/prepare-tree.sh"
	src=$FQP_PATCHED
fi
[ -f "$src/Makefile" ] || die "no kernel tree at $src" "pass --src DIR or run scripts/prepare-tree.sh"

# The objects: the fixed list, and each .c file the series touches that its
# directory's Makefile builds as an object (not one #included by another).
series_objs() {
	local p f
	printf '%s\n' "${BASE_OBJS[@]}"
	series_patches | while read -r p; do
		sed -nE 's|^\+\+\+ b/(.*)\.c$|\1|p' "$FQP_ROOT/patches/$p"
	done | while read -r f; do
		! grep -qw "${f##*/}\.o" "$src/$(dirname "$f")/Makefile" 2>/dev/null || echo "$f.o"
	done
}
mapfile -t objs < <(series_objs | sort -u)
logdir=$FQP_CACHE/logs/check-series
mkdir -p "$logdir"
export CCACHE_DIR=${CCACHE_DIR:-$FQP_CACHE/ccache}
export CCACHE_BASEDIR=$FQP_CACHE KBUILD_BUILD_TIMESTAMP='2013-08-29' \
	KBUILD_BUILD_USER=fq-pacing KBUILD_BUILD_HOST=cross

# build_arch ARCH: configure (when the fragments changed) and build the
# objects; dies on an error, with the first errors and the log path.
build_arch() {
	local a=$1 out frags cfghash t0 nwarn
	out=$FQP_BUILD/cross-$a
	[ "$FQP_BASE" = 6.1 ] || out=$FQP_BUILD/cross$(base_tag "$FQP_BASE")-$a
	mkdir -p "$out"
	with_lock "$out/.fqp-lock"
	export FQP_STEP=cross-$a
	mapfile -t frags < <(cross_fragments "$src")
	! grep -qs '^config NET_SCH_FQ_KUNIT_TEST' "$src/net/sched/Kconfig" ||
		frags+=("$FQP_ROOT/config-fragments/cross-kunit.config")
	[ ! -f "$FQP_ROOT/config-fragments/cross-$a.config" ] ||
		frags+=("$FQP_ROOT/config-fragments/cross-$a.config")
	local -a mk=(make -C "$src" O="$out" ARCH="${KARCH[$a]}" CROSS_COMPILE="${CROSS[$a]}-"
		CC="ccache ${CROSS[$a]}-gcc" HOSTCC=gcc -j"$(nproc)")
	cfghash=$({ echo "$a $src"; cat "${frags[@]}"; } | sha256sum | cut -c1-16)
	if [ ! -f "$out/.config" ] || [ "$(cat "$out/.fqp-config" 2>/dev/null)" != "$cfghash" ]; then
		log "configuring $a (ARCH=${KARCH[$a]}): tinyconfig + ${frags[*]##*/}"
		rm -f "$out/.fqp-config"
		kconfig_make "$src" "$out" "$logdir/cross-$a-config.log" tinyconfig "${frags[@]}" -- "${mk[@]}"
		config_check "$out/.config" "${frags[@]}" ||
			die "$a: config symbols did not stick (see above; $out/.config)" \
				"fix config-fragments/cross*.config for ARCH=${KARCH[$a]} (missing dependency?)"
		echo "$cfghash" >"$out/.fqp-config"
	fi
	t0=$(date +%s)
	run_logged "$logdir/cross-$a.log" "cross-building ${objs[*]} for $a" "${mk[@]}" "${objs[@]}"
	nwarn=$(grep -c ': warning:' "$logdir/cross-$a.log" || true)
	[ "$nwarn" = 0 ] || {
		warn "$a: $nwarn compiler warnings:"
		grep -E ': warning:' "$logdir/cross-$a.log" | head -n 20 >&2
	}
	# One summary line on stdout, for check-series' TAP line.
	echo "cross-$a: ${#objs[@]} objects, $nwarn warnings, $(($(date +%s) - t0))s"
}

failed=()
for a in "${arches[@]}"; do
	(build_arch "$a") || failed+=("$a")
done
[ ${#failed[@]} = 0 ] || die "cross build failed for: ${failed[*]} (logs: $logdir/cross-<arch>.log)" \
	"fix the code for that arch (the first errors are above), then re-run $0 --arch ${failed[*]// /,}"
log "cross builds passed: ${arches[*]}"
