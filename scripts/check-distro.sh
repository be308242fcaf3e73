#!/usr/bin/env bash
# The series as a distribution ships it: Debian's cloud kernel beside the
# series built with Debian's cloud config, both as Debian packages
# installed in the guest image's chroot and booted under QEMU from the
# image's /boot (docs/shipping.md):
#   fetch     linux-config-6.1 and linux-image-cloud-amd64 (the version built
#             from the same linux-source-6.1 as the tree), verified against
#             the archive's signed indices
#   baseline  a copy of the guest image with Debian's kernel installed by apt
#             in its chroot (its initramfs made by its own hooks); booted
#             with the distro core on the wall clock and the tree's
#             selftests on the exact clock: stock 6.1's verdicts on the
#             binary Debian's users run
#   build     linux-source-6.1 + the series, Debian's cloud config,
#             olddefconfig, config-fragments/debian-cloud.config,
#             localmodconfig against config-fragments/debian-cloud.modules,
#             make bindeb-pkg
#   series    the packages installed with dpkg -i in a copy of the baseline
#             image, booted as the baseline was; sch_fq a signed module
#             without KUnit, loaded by tc
#   applies   the series against every linux-source-6.1 the archive's
#             suites list (bookworm, bookworm-security: every version)
#   bench     (--bench) exact-clock headline points, Debian's binary against
#             the series with Debian's config, in one run (scripts/bench.sh)
# Nothing is installed on the host's kernel or /boot: every package goes
# into the guest image's chroot; the check verifies that at the end.
# Reports KTAP, "N passed, N failed"; the exit status is the verdict.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

ALL_STEPS=(fetch baseline build series applies bench)
usage() {
	cat <<USAGE
usage: $0 [--steps S[,S]] [--bench] [--quick] [--config FILE] [--src DIR]
          [--modules FILE] [--results DIR]
  --steps S,...   run only these steps (default: all but bench):
                  ${ALL_STEPS[*]}
  --bench         add the bench step (four exact-clock boots, two per kernel)
  --quick         the boots run the distro core only (no exact-clock boot);
                  the bench step its --quick set
  --config FILE   Debian's config to start from (default: linux-config-6.1's
                  config.amd64_none_cloud-amd64); refused without NET_SCH_FQ
  --src DIR       the patched tree to build (default: a copy of
                  \$FQP_PATCHED); refused unless it is linux-source-6.1 of
                  Debian's binary's version with the series applied
  --modules FILE  the localmodconfig list (default
                  config-fragments/debian-cloud.modules)
  --results DIR   run directory (default \$FQP_DISTRO/runs/<time>)
Works in \$FQP_DISTRO (default \$FQP_CACHE/debian-cloud): its own tree copy,
build dir, images and runs; the shared tree and rootfs image are only read.
USAGE
}

steps='' bench=0 quick=0 config='' src='' modules=$FQP_ROOT/config-fragments/debian-cloud.modules rundir=''
while [ $# -gt 0 ]; do
	case $1 in
	--steps) steps=${2:-}; shift ;;
	--bench) bench=1 ;;
	--quick) quick=1 ;;
	--config) config=${2:-}; shift ;;
	--src) src=${2:-}; shift ;;
	--modules) modules=${2:-}; shift ;;
	--results) rundir=${2:-}; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage_error "unknown option: $1" ;;
	esac
	shift
done
if [ -z "$steps" ]; then
	steps="fetch,baseline,build,series,applies"
	[ "$bench" = 0 ] || steps="$steps,bench"
fi
sel=$(select_names step "$steps" "${ALL_STEPS[@]}") || usage_error
want() { grep -qx "$1" <<<"$sel"; }
[ -z "$config" ] || [ -f "$config" ] || usage_error "no config file at --config $config"
[ -f "$modules" ] || usage_error "no module list at --modules $modules"
[ -z "$src" ] || [ -d "$src" ] || usage_error "no tree at --src $src"
# Bad input is refused before anything is fetched or built.
[ -z "$config" ] || distro_check_config "$config" "--config $config"
[ -z "$src" ] || distro_identify_tree "$src"

need_root "installing kernel packages in the guest image's chroot"
ensure_packages
rundir=${rundir:-$FQP_DISTRO/runs/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$rundir"
rundir=$(cd "$rundir" && pwd)
host_before=$(distro_host_state)
log "run directory $rundir; steps: $(paste -sd' ' <<<"$sel")"
t_all=$(date +%s)
# The report, on the terminal and in check.ktap (logs go to stderr).
exec > >(tee "$rundir/check.ktap")
result() { tap_result "$@"; }
echo 'KTAP version 1'

# --- fetch: Debian's config and Debian's binary, of the tree's version ---
meta='' image_pkg='' rel='' debver=''
fetch() {
	meta=$(fetch_debian_deb "$FQP_DISTRO_SUITE" "$FQP_DISTRO_IMAGE_PKG" "$(distro_source_version)")
	image_pkg=$(deb_depends "$meta" | awk '/^linux-image-/ {print; exit}')
	[ -n "$image_pkg" ] ||
		die "$meta depends on no linux-image-*" "has Debian renamed its kernel packages? see deb_depends"
	debver=$(dpkg-deb -f "$meta" Version)
	fetch_debian_deb "$FQP_DISTRO_SUITE" "$image_pkg" "$debver" >/dev/null
	rel=${image_pkg#linux-image-}
	if [ -z "$config" ]; then
		config=$(distro_debian_config "$debver")
		distro_check_config "$config" "Debian's cloud config"
	fi
}
fetch
echo "# Debian's binary: $image_pkg $debver (release $rel); config: $config"

# verdict_diff RUNDIR TREE: the cases whose verdict there differs from
# our own test kernel's of TREE (docs/verdicts.csv), as diagnostics;
# status 1 when one does.
verdict_diff() {
	local col=stock61 d
	[ "$2" = stock ] || col=series
	d=$(distro_verdict_diff "$1/ktap.log" "$col" 2>/dev/null || true)
	if [ -n "$d" ]; then
		echo "# verdicts that differ from our $2 test kernel's (docs/verdicts.csv, $col):"
		sed 's/^/#   /' <<<"$d"
		return 1
	fi
	echo "# every verdict as on our $2 test kernel (docs/verdicts.csv, $col)"
}

# boot NAME TREE IMAGE KERNEL INITRD: the distro core on the wall clock
# (and, without --quick, the exact-clock cases in a second boot) of
# KERNEL with INITRD from IMAGE; one TAP line per boot, with its counts.
# Debian's binary (TREE stock) passes when every verdict is our stock
# test kernel's (stock 6.1's known bugs fail there too); the series
# (TREE patched) when every case passed.
boot() {
	local name=$1 tree=$2 img=$3 kz=$4 ki=$5 out
	local -a common=(--kernel "$tree" --bzimage "$kz" --initrd "$ki" --rootfs "$img" --no-latest)
	out=$rundir/$name-core
	boot_one "$name" "$tree" "$out" core "${common[@]}" --filter "$FQP_DISTRO_CORE" --exclude "$FQP_EXACT_CASES"
	[ "$quick" = 0 ] || return 0
	out=$rundir/$name-exact
	boot_one "$name" "$tree" "$out" exact "${common[@]}" --filter "$FQP_DISTRO_EXACT" --clock exact
}

# boot_one NAME TREE OUT WHAT ARG...: one boot-and-test.sh run into OUT
# and its TAP line.
boot_one() {
	local name=$1 tree=$2 out=$3 what=$4 rc=0 counts
	shift 4
	"$FQP_ROOT/scripts/boot-and-test.sh" "$@" --results "$out" >"$out.log" 2>&1 || rc=$?
	counts=$(grep -hE '^[0-9]+ passed, [0-9]+ failed' "$out/verdict.ktap" 2>/dev/null | tail -n 1 || true)
	if [ -z "$counts" ]; then
		result 1 "${name}_${what}_boot # no verdict" "$out.log"
	elif [ "$tree" = stock ]; then
		if verdict_diff "$out" "$tree"; then rc=0; else rc=1; fi
		result "$rc" "${name}_${what}_boot # $counts, as stock 6.1" "$out.log"
	else
		verdict_diff "$out" "$tree" || true
		result "$rc" "${name}_${what}_boot # $counts" "$out.log"
	fi
}

base_img=$FQP_DISTRO/images/debian-$debver.ext4
if want baseline || want series || want bench; then
	"$FQP_ROOT/scripts/build-rootfs.sh"
	shared=$("$FQP_ROOT/scripts/build-rootfs.sh" --print-path)
	mkdir -p "$FQP_DISTRO/images"
	# The baseline image is made again when the shared image changed.
	if [ ! -f "$base_img" ] || [ "$(cat "$base_img.from" 2>/dev/null)" != "${shared##*/}" ]; then
		distro_install "$shared" "$base_img" apt "$FQP_CACHE/$FQP_DISTRO_SUITE" "$FQP_DISTRO_IMAGE_PKG" "$image_pkg"
		echo "${shared##*/}" >"$base_img.from"
	fi
	distro_boot_files "$base_img" "$rel" "$FQP_DISTRO/boot"
fi

# --- baseline: Debian's binary ---
if want baseline; then
	boot debian stock "$base_img" "$FQP_DISTRO/boot/vmlinuz-$rel" "$FQP_DISTRO/boot/initrd.img-$rel"
	# The list localmodconfig keeps must hold every module Debian's kernel
	# loaded in those boots.
	unlisted=$(cat "$rundir"/debian-*/results/modules.txt 2>/dev/null | awk '{print $1}' | sort -u |
		comm -23 - <(distro_modules "$modules" | sort -u) | paste -sd' ' -)
	if ! ls "$rundir"/debian-*/results/modules.txt >/dev/null 2>&1; then
		result 1 "modules_list_covers_debian_boot # no modules.txt from the boots"
	elif [ -n "$unlisted" ]; then
		echo "# loaded by Debian's kernel, not in $modules: $unlisted"
		result 1 "modules_list_covers_debian_boot"
	else
		result 0 "modules_list_covers_debian_boot"
	fi
fi

# --- build: the series with Debian's config, as Debian packages ---
out=$FQP_DISTRO/build/kernel
pkgver=$(distro_source_version)+fqpacing1
if want build || want series || want bench; then
	[ -n "$src" ] || src=$(distro_src)
	distro_identify_tree "$src"
	key=$( { cat "$config" "$modules" "$FQP_ROOT/config-fragments/debian-cloud.config"; series_hash; echo "$pkgver"; } | sha256sum | cut -c1-16)
	if [ "$(cat "$out/.fqp-distro-key" 2>/dev/null)" = "$key" ] && distro_debs_present "$out"; then
		log "the packages are up to date with the config, the list and the series ($key)"
	elif want build; then
		distro_configure "$src" "$out" "$config" "$modules"
		rc=0
		distro_build "$src" "$out" "$pkgver" || rc=$?
		[ "$rc" != 0 ] || echo "$key" >"$out/.fqp-distro-key"
		result "$rc" "bindeb_pkg # $(cat "$out/build-seconds" 2>/dev/null || echo '?') s, $(nproc) jobs" "$out/build.log"
	else
		die "no packages built from this config, list and series ($key)" "run with the build step"
	fi
fi
if want build || want series; then
	distro_check_packages "$out" "$rundir" || true
	# Every listed module Debian ships is in the series' package too.
	lost=$(comm -12 <(distro_modules "$modules" | sort -u) \
		<(deb_modules "$FQP_CACHE/$FQP_DISTRO_SUITE/${image_pkg}_${debver}_amd64.deb") |
		comm -23 - <(deb_modules "$(compgen -G "$(dirname "$out")/linux-image-$(cat "$out/include/config/kernel.release")_*.deb" | head -n 1)") |
		paste -sd' ' -)
	if [ -z "$lost" ]; then
		result 0 "package_has_every_listed_module"
	else
		result 1 "package_has_every_listed_module # Debian ships them, the series' package does not: $lost"
	fi
fi

# --- series: the packages installed with dpkg -i, booted ---
if want series; then
	krel=$(cat "$out/include/config/kernel.release")
	ser_img=$FQP_DISTRO/images/series-$debver.ext4
	distro_install "$base_img" "$ser_img" dpkg "$(dirname "$out")" "linux-image-$krel"
	distro_boot_files "$ser_img" "$krel" "$FQP_DISTRO/boot"
	boot series patched "$ser_img" "$FQP_DISTRO/boot/vmlinuz-$krel" "$FQP_DISTRO/boot/initrd.img-$krel"
	if grep -qs '^sch_fq ' "$rundir/series-core/results/modules.txt"; then
		result 0 "series_sch_fq_loaded_as_module"
	else
		result 1 "series_sch_fq_loaded_as_module # sch_fq not in the guest's /proc/modules after the cases"
	fi
fi

# --- applies: every linux-source-6.1 the archive serves ---
if want applies; then
	mapfile -t versions < <(archive_versions bookworm linux-source-6.1; archive_versions "$FQP_DISTRO_SUITE" linux-source-6.1)
	distro_applies "${versions[@]}" >"$rundir/applies.txt" || true
	while IFS= read -r line; do
		case $line in
		' '*) echo "# $line" ;;
		*)
			read -r v s rest <<<"$line"
			case $rest in *'DOES NOT APPLY'*) r=1 ;; *) r=0 ;; esac
			result "$r" "series_applies_${s}_$v # $rest" ;;
		esac
	done <"$rundir/applies.txt"
fi

# --- bench: the headline points, Debian's binary against the series ---
if want bench; then
	krel=$(cat "$out/include/config/kernel.release")
	ser_img=$FQP_DISTRO/images/series-$debver.ext4
	[ -f "$ser_img" ] || die "no series image $ser_img" "run the series step first"
	bargs=(--image "stock=$FQP_DISTRO/boot/vmlinuz-$rel,$FQP_DISTRO/boot/initrd.img-$rel,$base_img"
		--image "patched=$FQP_DISTRO/boot/vmlinuz-$krel,$FQP_DISTRO/boot/initrd.img-$krel,$ser_img"
		--only "$FQP_DISTRO_BENCH" --reps 2 --results "$rundir/bench")
	[ "$quick" = 0 ] || bargs+=(--quick)
	rc=0
	"$FQP_ROOT/scripts/bench.sh" "${bargs[@]}" >"$rundir/bench.log" 2>&1 || rc=$?
	result "$rc" "bench # $rundir/bench/bench.md" "$rundir/bench.log"
fi

# Nothing on the host's own kernel or boot changed.
if [ "$(distro_host_state)" = "$host_before" ]; then
	result 0 "host_kernel_and_boot_unchanged"
else
	diff <(echo "$host_before") <(distro_host_state) | sed 's/^/# /'
	result 1 "host_kernel_and_boot_unchanged"
fi
echo "# the whole check: $(($(date +%s) - t_all)) s"
echo "1..$TAP_N"
tap_summary
