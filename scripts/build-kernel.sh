#!/usr/bin/env bash
# Build a bzImage for the QEMU guest: tinyconfig + kvm_guest.config + our
# fragments, in its own O= dir per tree and config, through ccache.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<USAGE
usage: $0 [--base 6.1|7.2|7.3] [--tree stock|patched] [--config test|debug|bench]
          [--kconfig-add CONFIG_FOO=y|FILE]... [--src DIR] [--out DIR]
  --base    which upstream tree stock is (default \$FQP_BASE or 6.1); on 7.x the
            patched tree carries the upstream patches (patches/net*/)
  --tree    which tree to build (default patched; prepared automatically)
  --config  fragment set: test = qemu-guest+fq, debug = test+debug, bench = test+bench,
            uml = uml+fq: User-Mode Linux (ARCH=um) for bench.sh --native, its
            image <out>/linux (scripts/lib/uml.sh)
  --kconfig-add CONFIG_FOO=VALUE|FILE  a one-off option (=n: not set) or a
            config fragment, on top of the config's fragments; repeatable. The
            build gets its own O= dir (<tree>-<config>+kconfig-<hash>), so the
            standard build stays as it is; an option that does not stick fails
  --src/--out  build another source tree (e.g. a bisect step) into another O= dir
USAGE
}

tree=patched config=test src='' out='' kadd=()
while [ $# -gt 0 ]; do
	case $1 in
	--tree) tree=${2:-}; shift ;;
	--config) config=${2:-}; shift ;;
	--src) src=${2:-}; shift ;;
	--out) out=${2:-}; shift ;;
	--kconfig-add)
		kconfig_add_lines "${2:-}" >/dev/null || usage_error
		kadd+=("$2"); shift ;;
	--base) set_base "${2:-}" || usage_error; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage_error "unknown option: $1" ;;
	esac
	shift
done
case $tree in stock | patched) ;; *) usage_error "bad --tree: $tree" ;; esac
[ -n "$src" ] || base_tree "$tree" >/dev/null
case $config in
test) frags=(qemu-guest fq) ;;
debug) frags=(qemu-guest fq debug) ;;
bench) frags=(qemu-guest fq bench) ;;
uml) frags=(uml fq) ;;
*) usage_error "bad --config: $config" ;;
esac

ensure_packages gcc make flex bison bc libelf-dev libssl-dev ccache perl
if [ -z "$src" ]; then
	if [ "$tree" = stock ]; then
		"$FQP_ROOT/scripts/prepare-tree.sh" --base "$FQP_BASE" --stock-only
	else
		"$FQP_ROOT/scripts/prepare-tree.sh"
	fi
	if [ "$tree" = stock ]; then src=$FQP_STOCK; else src=$FQP_PATCHED; fi
fi
[ -n "$out" ] || out=$(build_dir "$tree" "$config" ${kadd[@]+"${kadd[@]}"})
mkdir -p "$out"
with_lock "$out/.fqp-lock"
export FQP_STEP=build-${out##*/}

export CCACHE_DIR=${CCACHE_DIR:-$FQP_CACHE/ccache}
export CCACHE_BASEDIR=$FQP_CACHE KBUILD_BUILD_TIMESTAMP='2013-08-29' \
	KBUILD_BUILD_USER=fq-pacing KBUILD_BUILD_HOST=qemu
ccache -M 5G >/dev/null
mk=(make -C "$src" O="$out" ARCH=x86_64 CC="ccache gcc" HOSTCC=gcc -j"$(nproc)")
# User-Mode Linux: the same tree as a host program (x86_64).
[ "$config" != uml ] || mk=(make -C "$src" O="$out" ARCH=um SUBARCH=x86_64 CC="ccache gcc" HOSTCC=gcc -j"$(nproc)")

# KUnit in every test and debug kernel; fq's unit tests wherever the tree
# has them (not stock, not the check-series steps before the patch that
# adds them) and the config can build them (kunit_fq_fits: both series'
# tests need sch_fq built in, so a build with --kconfig-add
# CONFIG_NET_SCH_FQ=m gets none). The benchmark kernels stay identical but
# for the series.
if [ "$config" != bench ] && [ "$config" != uml ]; then
	frags+=(kunit)
	ffiles=()
	for f in "${frags[@]}"; do ffiles+=("$FQP_ROOT/config-fragments/$f.config"); done
	if kunit_fq_fits "$src" "${ffiles[@]}"; then
		frags+=(kunit-fq)
	fi
fi
# What a base's own tests need beside the common fragments (7.x's tdc
# wants ifb: base-7.config); never in the bench or UML configs, whose
# kernels stay alike.
if [ "$config" != bench ] && [ "$config" != uml ] && [ -f "$FQP_ROOT/config-fragments/base-${FQP_BASE%%.*}.config" ]; then
	frags+=("base-${FQP_BASE%%.*}")
fi
fragfiles=()
for f in "${frags[@]}"; do fragfiles+=("$FQP_ROOT/config-fragments/$f.config"); done
# One-off options last: they override the fragments (merge_config.sh
# takes the later value), and config_check holds them to it.
if [ ${#kadd[@]} -gt 0 ]; then
	for f in "${kadd[@]}"; do kconfig_add_lines "$f"; done >"$out/kconfig-add.config"
	fragfiles+=("$out/kconfig-add.config")
	frags+=("--kconfig-add ${kadd[*]}")
fi
cfghash=$(cat "${fragfiles[@]}" | sha256sum | cut -c1-16)

configure() {
	local guest=(kernel/configs/kvm_guest.config)
	# UML is no KVM guest: tinyconfig and the fragments alone.
	[ "$config" != uml ] || guest=()
	log "configuring: tinyconfig ${guest[*]+"+ ${guest[*]} "}+ ${frags[*]}"
	kconfig_make "$src" "$out" "$out/config.log" tinyconfig \
		${guest[@]+"${guest[@]}"} "${fragfiles[@]}" -- "${mk[@]}"
	config_check "$out/.config" "${fragfiles[@]}" ||
		die "config symbols did not stick (see above; $out/.config)" \
			"fix the fragment in config-fragments/ or the --kconfig-add option (missing dependency?) and re-run"
	echo "$cfghash" >"$out/.fqp-config"
}

if [ ! -f "$out/.config" ] || [ "$(cat "$out/.fqp-config" 2>/dev/null)" != "$cfghash" ]; then
	configure
fi
# A kernel with modules (the debug kernel's modular sch_fq) builds them too;
# boot-and-test.sh installs them on the run disk.
targets=(bzImage)
[ "$config" != uml ] || targets=(linux)
! grep -qx 'CONFIG_MODULES=y' "$out/.config" || targets+=(modules)
run_logged "$out/build.log" "building ${targets[*]} in $out" "${mk[@]}" "${targets[@]}"
log "kernel: $out/${targets[0]/bzImage/arch/x86/boot/bzImage} ($(ccache -s 2>/dev/null | grep -iE 'hits' | head -1 | tr -s ' '))"
