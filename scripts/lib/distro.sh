# shellcheck shell=bash
# Debian's own kernel beside the series (scripts/check-distro.sh): its
# packages fetched from the archive and verified, a copy of the guest
# image with a kernel package installed by apt/dpkg in its chroot, the
# series configured from Debian's cloud config and cut by localmodconfig,
# and the checks that refuse what is not what they claim to be.

# Where the distro check keeps its own things: never the shared rootfs
# image, tree or build dirs.
FQP_DISTRO=${FQP_DISTRO:-$FQP_CACHE/debian-cloud}
# Debian's flavour: the cloud kernel's config in linux-config-6.1 and
# its metapackage.
FQP_DISTRO_FLAVOUR=cloud-amd64
FQP_DISTRO_CONFIG_PKG=linux-config-6.1
FQP_DISTRO_IMAGE_PKG=linux-image-cloud-amd64
export FQP_DISTRO FQP_DISTRO_FLAVOUR FQP_DISTRO_CONFIG_PKG FQP_DISTRO_IMAGE_PKG

# security_mirror: the security archive the machine's apt sources name
# (FQP_SECURITY_MIRROR overrides): the first URI with "-security" in it.
security_mirror() {
	local m
	if [ -n "${FQP_SECURITY_MIRROR:-}" ]; then
		printf '%s\n' "${FQP_SECURITY_MIRROR%/}"
		return 0
	fi
	m=$({ awk '/^URIs:/ {for (i = 2; i <= NF; i++) print $i}' /etc/apt/sources.list.d/*.sources 2>/dev/null
		cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
			awk '$1 == "deb" {for (i = 2; i <= NF; i++) if ($i ~ /:\/\//) print $i}'; } |
		grep -- '-security' | head -n 1 || true)
	[ -n "$m" ] || die "no Debian security archive in the machine's apt sources" \
		"add bookworm-security to the apt sources, or set FQP_SECURITY_MIRROR"
	printf '%s\n' "${m%/}"
}

# suite_mirror SUITE: the archive serving SUITE (the security archive for
# *-security, else the main mirror).
suite_mirror() {
	case $1 in
	*-security) security_mirror ;;
	*) apt_mirror ;;
	esac
}

# fetch_debian_deb SUITE PKG [VERSION]: download the .deb of PKG (its
# newest version in SUITE, or VERSION exactly) from SUITE's archive,
# verified as apt verifies (SUITE's InRelease by gpgv, the host
# architecture's Packages.xz by the SHA256 it gives, the .deb by the
# SHA256 in Packages), into $FQP_CACHE/SUITE; prints its path. Reuses
# debian.sh's debian_release, debian_index and newest_stanza.
fetch_debian_deb() {
	local suite=$1 pkg=$2 want=${3:-} m dir idx stanza file sha ver deb
	ensure_packages curl xz-utils
	m=$(suite_mirror "$suite") dir=$FQP_CACHE/$suite
	FQP_MIRROR=$m debian_release "$suite"
	FQP_MIRROR=$m debian_index idx "$suite" "main/binary-$(dpkg --print-architecture)/Packages.xz"
	stanza=$dir/$pkg.stanza
	if [ -n "$want" ]; then
		xz -dc "$idx" | awk -v RS= -v ORS='\n\n' -v p="Package: $pkg" -v v="Version: $want" \
			'!found && index($0, p "\n") == 1 && index($0, "\n" v "\n") {print; found = 1}' >"$stanza"
	else
		newest_stanza "$idx" "$pkg" "$stanza"
	fi
	file=$(_stanza_field "$stanza" Filename) sha=$(_stanza_field "$stanza" SHA256)
	ver=$(_stanza_field "$stanza" Version)
	[ -n "$file" ] && [ -n "$sha" ] ||
		die "$suite has no $pkg${want:+ $want} in ${idx##*/}" \
			"check the version with apt-cache policy $pkg; the archive may have moved on"
	deb=$dir/${file##*/}
	if [ ! -f "$deb" ] || [ "$(sha256sum <"$deb" | cut -d' ' -f1)" != "$sha" ]; then
		log "downloading $pkg $ver from $suite"
		_archive_need "$m/$file" "$deb" "$sha"
	fi
	log "$pkg $ver: SHA256 verified against $suite's signed index"
	printf '%s\n' "$deb"
}

# deb_depends DEB: the package names DEB's Depends field lists (no
# versions, first of each alternative).
deb_depends() {
	dpkg-deb -f "$1" Depends | tr ',' '\n' | sed -E 's/^ *//; s/[ (|].*$//' | grep -v '^$'
}

# distro_modules FILE: the module names of a list in
# config-fragments/debian-cloud.modules's format (comments dropped).
distro_modules() { sed -e 's/#.*//' -e 's/[[:space:]]//g' "$1" | grep -v '^$'; }

# distro_src: a copy of the patched tree that only this check builds from
# ($FQP_DISTRO/src-<series hash>): bindeb-pkg wants a tree of its own,
# and the shared $FQP_PATCHED stays as it is. Prints its path.
distro_src() {
	local h src
	h=$(series_hash) src=$FQP_DISTRO/src-$h
	"$FQP_ROOT/scripts/prepare-tree.sh" >&2
	[ "$(cat "$FQP_PATCHED/.fqp-series" 2>/dev/null)" = "$h" ] ||
		die "$FQP_PATCHED does not carry the current series ($h)" "run scripts/prepare-tree.sh, then re-run"
	if [ ! -f "$src/.fqp-copied" ]; then
		log "copying the patched tree to $src (bindeb-pkg builds from a tree of its own)"
		rm -rf "$src" "$src.tmp"
		mkdir -p "$FQP_DISTRO"
		cp -a "$FQP_PATCHED" "$src.tmp"
		rm -rf "$src.tmp/.pc"
		touch "$src.tmp/.fqp-copied"
		mv "$src.tmp" "$src"
		# Older copies of an older series.
		find "$FQP_DISTRO" -maxdepth 1 -name 'src-*' ! -path "$src" -exec rm -rf {} +
	fi
	printf '%s\n' "$src"
}

# distro_check_config CONFIG WHAT: refuse a config fq-pacing cannot ship
# in: no NET_SCH_FQ, or one for another architecture.
distro_check_config() {
	grep -qE '^CONFIG_NET_SCH_FQ=[ym]$' "$1" ||
		die "$2 has no CONFIG_NET_SCH_FQ=m or =y ($1): the series replaces sch_fq, and this config builds none" \
			"use a config with NET_SCH_FQ (Debian's cloud-amd64 has it as a module)"
	grep -qx 'CONFIG_X86_64=y' "$1" ||
		die "$2 is not an x86_64 config ($1)" "this check builds and boots amd64 only"
}

# distro_configure SRC OUT DEBCONFIG MODULES: OUT/.config from Debian's
# DEBCONFIG: olddefconfig, config-fragments/debian-cloud.config on top,
# localmodconfig against MODULES (a module list), olddefconfig. That every
# listed module Debian ships is in the package is checked after the build
# (check-distro.sh's package_has_every_listed_module).
distro_configure() {
	local src=$1 out=$2 debconfig=$3 modules=$4 logf=$2/config.log
	local -a mk=(make -C "$src" O="$out" ARCH=x86_64)
	distro_check_config "$debconfig" "Debian's config"
	mkdir -p "$out"
	cp "$debconfig" "$out/.config"
	kconfig_make "$src" "$out" "$logf" olddefconfig "$FQP_ROOT/config-fragments/debian-cloud.config" -- "${mk[@]}"
	distro_modules "$modules" >"$out/lsmod.txt"
	# localmodconfig asks about symbols it cannot decide: the defaults.
	{ yes '' || true; } | "${mk[@]}" LSMOD="$out/lsmod.txt" localmodconfig >>"$logf" 2>&1 ||
		die "make localmodconfig failed (log: $logf)" "read the log"
	"${mk[@]}" olddefconfig >>"$logf" 2>&1 || die "make olddefconfig failed (log: $logf)"
	config_check "$out/.config" "$FQP_ROOT/config-fragments/debian-cloud.config" ||
		die "the distro overrides did not stick (see above; $out/.config)" "fix config-fragments/debian-cloud.config"
	distro_check_config "$out/.config" "the cut config"
	log "config: Debian's cloud-amd64, $(grep -c '=m$' "$debconfig") modules cut to $(grep -c '=m$' "$out/.config") by localmodconfig ($(wc -l <"$out/lsmod.txt") listed)"
}

# distro_kbuild_env: the environment of a reproducible ccache build, as
# build-kernel.sh's (ccache in the shared cache, a fixed timestamp, user
# and host).
distro_kbuild_env() {
	export CCACHE_DIR=${CCACHE_DIR:-$FQP_CACHE/ccache}
	export CCACHE_BASEDIR=$FQP_CACHE KBUILD_BUILD_TIMESTAMP='2013-08-29' \
		KBUILD_BUILD_USER=fq-pacing KBUILD_BUILD_HOST=qemu
}

# distro_build SRC OUT PKGVERSION: make bindeb-pkg in OUT (O=), niced,
# through ccache; the packages land in OUT's parent. Records the wall
# time in OUT/build-seconds.
distro_build() {
	local src=$1 out=$2 ver=$3 t
	ensure_packages gcc make flex bison bc libelf-dev libssl-dev ccache perl dpkg-dev rsync kmod cpio debhelper
	distro_kbuild_env
	t=$(date +%s)
	rm -f "$(dirname "$out")"/linux-*.deb "$(dirname "$out")"/linux-*.buildinfo "$(dirname "$out")"/linux-*.changes
	run_logged "$out/build.log" "make bindeb-pkg (Debian's cloud config cut by localmodconfig; $(nproc) jobs, nice 5)" \
		nice -n 5 make -C "$src" O="$out" ARCH=x86_64 CC="ccache gcc" HOSTCC=gcc -j"$(nproc)" \
		KDEB_PKGVERSION="$ver" KDEB_SOURCENAME=linux-fqpacing bindeb-pkg
	echo $(($(date +%s) - t)) >"$out/build-seconds"
	log "bindeb-pkg took $(cat "$out/build-seconds") s: $(find "$(dirname "$out")" -maxdepth 1 -name 'linux-*.deb' -printf '%f ')"
}

# _distro_umount_under DIR: unmount everything mounted at or below DIR,
# deepest first.
_distro_umount_under() {
	local m
	{ findmnt -n -R -o TARGET --list "$1" 2>/dev/null || true; } | sort -r | while read -r m; do
		umount "$m" 2>/dev/null || umount -l "$m" || true
	done
}

# distro_chroot IMAGE DEBDIR SCRIPT: loop-mount the guest image IMAGE (a
# copy owned by this check, never the shared one) on $FQP_DISTRO/mnt with
# /proc, /sys, /dev, the host's resolv.conf and DEBDIR (read-only, at
# /var/tmp/fqp-debs), and run SCRIPT with sh -e in its chroot; unmounts
# whatever happens. Returns SCRIPT's status.
distro_chroot() {
	local img=$1 debdir=$2 script=$3 mnt=$FQP_DISTRO/mnt rc=0
	need_root "mounting the guest image $img"
	case $(realpath "$img") in "$(realpath -m "$FQP_IMAGES")"/*)
		die "refusing to change the shared rootfs image $img" "work on a copy (distro_install makes one)" ;;
	esac
	_distro_umount_under "$mnt"
	mkdir -p "$mnt"
	mount -o loop "$img" "$mnt" || die "could not loop-mount $img on $mnt" "is the loop driver there (losetup -f)?"
	mkdir -p "$mnt/var/tmp/fqp-debs"
	if ! { mount -t proc proc "$mnt/proc" && mount -t sysfs sysfs "$mnt/sys" &&
		mount --bind /dev "$mnt/dev" && mount -t devpts devpts "$mnt/dev/pts" &&
		mount --bind -o ro "$debdir" "$mnt/var/tmp/fqp-debs"; }; then
		_distro_umount_under "$mnt"
		die "could not mount /proc, /sys, /dev or $debdir in $mnt" "see the messages above"
	fi
	cp -L /etc/resolv.conf "$mnt/etc/resolv.conf"
	chroot "$mnt" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive /bin/sh -ec "$script" || rc=$?
	rm -f "$mnt/etc/resolv.conf"
	_distro_umount_under "$mnt"
	return "$rc"
}

# distro_install FROM TO HOW DEBDIR PKG...: TO, a copy of the guest image
# FROM with the kernel packages DEBDIR/PKG_*.deb installed in its chroot:
# HOW=apt (apt-get install of the local files, dependencies from the
# archive the machine's apt sources name, as a user installs Debian's
# kernel) or HOW=dpkg (dpkg -i, as the Debian Kernel Handbook installs a
# kernel built with bindeb-pkg). The packages' own maintainer scripts run
# (initramfs-tools' hook makes the initramfs). Refuses a package that did
# not install; then leaves TO.tmp for a look and TO as it was.
distro_install() {
	local from=$1 to=$2 how=$3 debdir=$4 p debs='' names='' script st
	shift 4
	for p in "$@"; do
		set -- "$debdir/${p}"_*.deb
		[ -f "$1" ] || die "no $debdir/${p}_*.deb to install" "build or fetch it first (scripts/check-distro.sh)"
		debs="$debs /var/tmp/fqp-debs/${1##*/}" names="$names $p"
	done
	log "installing$names into a copy of ${from##*/} by $how (log: $to.log)"
	rm -f "$to.tmp"
	cp --sparse=always "$from" "$to.tmp"
	# Room for a kernel, its modules and initramfs-tools.
	truncate -s +1536M "$to.tmp"
	e2fsck -fy "$to.tmp" >"$to.log" 2>&1 || [ $? -le 1 ] ||
		die "e2fsck of the copy $to.tmp failed (log: $to.log)" "rebuild the rootfs image (scripts/build-rootfs.sh)"
	resize2fs "$to.tmp" >>"$to.log" 2>&1 || die "resize2fs $to.tmp failed (log: $to.log)"
	case $how in
	apt)
		script="printf 'deb %s bookworm main\ndeb %s bookworm-security main\n' '$(apt_mirror)' '$(security_mirror)' >/etc/apt/sources.list.d/fqp-distro.list
			apt-get update -q
			apt-get install -y -q --no-install-recommends $debs
			rm -f /etc/apt/sources.list.d/fqp-distro.list
			rm -rf /var/lib/apt/lists/* /var/cache/apt/*" ;;
	dpkg) script="dpkg -i $debs" ;;
	*) die "distro_install: HOW is apt or dpkg, not '$how' (a bug in $0)" ;;
	esac
	for p in $names; do
		script="$script
			st=\$(dpkg-query -W -f='\${Status} \${Version}' $p 2>/dev/null || true)
			echo \"fqp-installed $p: \$st\"
			case \$st in 'install ok installed '*) ;; *) echo 'fqp-not-installed $p' ;; esac"
	done
	# What each initramfs holds of the disk drivers (distro_boot_files reads it).
	script="$script
		for i in /boot/initrd.img-*; do
			m=\$(lsinitramfs \$i | grep -oE '/(virtio_blk|virtio_pci)\\.ko' | sort -u | tr -d / | paste -sd' ' -)
			echo \"fqp-initrd \${i#/boot/initrd.img-}: \$m\"
		done"
	distro_chroot "$to.tmp" "$debdir" "$script" >>"$to.log" 2>&1 ||
		{ tail -n 15 "$to.log" >&2; die "installing$names in the image's chroot failed (log: $to.log; the image: $to.tmp)" \
			"read the log: a dependency the archive lacks, or a maintainer script that failed"; }
	if grep -q '^fqp-not-installed' "$to.log"; then
		grep '^fqp-installed' "$to.log" >&2
		die "a package did not install: $(sed -n 's/^fqp-not-installed //p' "$to.log" | paste -sd' ') (log: $to.log; the image: $to.tmp)" \
			"read the log; the image was left as $to.tmp and not used"
	fi
	grep '^fqp-installed' "$to.log" | sed 's/^fqp-installed /installed: /' | while read -r st; do log "$st"; done
	mv "$to.tmp" "$to"
}

# distro_boot_files IMAGE RELEASE DIR: copy /boot/vmlinuz-RELEASE,
# /boot/initrd.img-RELEASE and /boot/config-RELEASE out of IMAGE into DIR
# (QEMU boots them with -kernel/-initrd: the image's own kernel and the
# initramfs its hooks made), and check that the initramfs can reach the
# root disk: virtio_blk and virtio_pci in it (distro_install's log says),
# or built in.
distro_boot_files() {
	local img=$1 rel=$2 dir=$3 f
	mkdir -p "$dir"
	for f in vmlinuz initrd.img config; do
		rm -f "$dir/$f-$rel"
		debugfs -R "dump /boot/$f-$rel $dir/$f-$rel" "$img" >/dev/null 2>&1 || true
		[ -s "$dir/$f-$rel" ] ||
			die "the image has no /boot/$f-$rel ($img)" "did the kernel package install? (its log: $img.log)"
	done
	for f in virtio_blk virtio_pci; do
		grep -qE "^CONFIG_${f^^}=y" "$dir/config-$rel" ||
			grep -qE "^fqp-initrd $rel: .*\b$f\.ko" "$img.log" ||
			die "the initramfs of $rel has no $f.ko and the kernel has no built-in one: it cannot mount /dev/vda" \
				"check the image's /etc/initramfs-tools/initramfs.conf (MODULES=most) and $img.log"
	done
}

# series_files: the files the 6.1 series changes or adds, one a line.
series_files() {
	local p
	series_file_patches "$FQP_ROOT/series" | while read -r p; do
		sed -nE 's|^\+\+\+ b/([^[:space:]]+).*$|\1|p' "$FQP_ROOT/patches/$p"
	done | sort -u
}

# distro_applies SUITE[=VERSION]...: does the series apply to the
# linux-source-6.1 each SUITE serves (its newest version there, or
# VERSION)? Only the files the series
# touches are unpacked from the package (verified as fetch_debian_deb
# says) into $FQP_DISTRO/applies/VERSION, and quilt pushes the series
# there with no fuzz. Prints one "VERSION SUITE verdict" line per suite
# and which of the series' files differ between the versions; status 1
# when the series does not apply to one of them.
distro_applies() {
	local item suite deb ver dir bad=0 first='' f
	local -a files
	ensure_packages quilt xz-utils
	mapfile -t files < <(series_files)
	for item in "$@"; do
		suite=${item%%=*}
		deb=$(fetch_debian_deb "$suite" linux-source-6.1 "$([ "$item" = "$suite" ] || echo "${item#*=}")")
		ver=$(dpkg-deb -f "$deb" Version)
		dir=$FQP_DISTRO/applies/$ver
		if [ ! -f "$dir/.fqp-unpacked" ]; then
			log "unpacking the series' ${#files[@]} files from linux-source-6.1 $ver"
			rm -rf "$dir"
			mkdir -p "$dir/tree"
			dpkg-deb --fsys-tarfile "$deb" | tar -xO --wildcards './usr/src/linux-source-*.tar.xz' |
				tar -xJ -C "$dir/tree" --strip-components=1 --wildcards --no-wildcards-match-slash \
					--ignore-failed-read '*/Makefile' "${files[@]/#/*/}" 2>"$dir/tar.log" || true
			[ -f "$dir/tree/Makefile" ] ||
				die "could not unpack linux-source-6.1 $ver ($deb; log: $dir/tar.log)" "re-run; if it persists, the package layout changed"
			touch "$dir/.fqp-unpacked"
		fi
		rm -rf "$dir/work"
		cp -a "$dir/tree" "$dir/work"
		if (cd "$dir/work" && QUILT_SERIES=$FQP_ROOT/series quilt push -a -q --fuzz=0) >"$dir/quilt.log" 2>&1; then
			if grep -qE 'offset|fuzz' "$dir/quilt.log"; then
				echo "$ver $suite applies (with offsets: $dir/quilt.log)"
			else
				echo "$ver $suite applies cleanly"
			fi
		else
			echo "$ver $suite DOES NOT APPLY: $(grep -m1 -E 'FAILED|does not apply|Hunk' "$dir/quilt.log" || tail -n 1 "$dir/quilt.log") (log: $dir/quilt.log)"
			bad=1
		fi
		if [ -n "$first" ]; then
			for f in "${files[@]}"; do
				if [ -f "$first/tree/$f" ] || [ -f "$dir/tree/$f" ]; then
					cmp -s "$first/tree/$f" "$dir/tree/$f" || echo "  $f differs between ${first##*/} and $ver"
				fi
			done
		fi
		first=$dir
	done
	return "$bad"
}

# The suite Debian's binary of the tree's version comes from, and the
# exact-clock points the bench step runs (tests/bench/exact.sh's
# workloads: the idle qdisc, backlog, paced release, memory per flow,
# the idle qdisc's slab).
FQP_DISTRO_SUITE=${FQP_DISTRO_SUITE:-bookworm-security}
FQP_DISTRO_BENCH=pktgen,backlog,pacing,qdiscmem
export FQP_DISTRO_SUITE FQP_DISTRO_BENCH

# distro_source_version: the Debian version of the linux-source-6.1 the
# 6.1 tree is unpacked from (the host's package, FQP_TARBALL).
distro_source_version() {
	dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null ||
		die "linux-source-6.1 is not installed: the tree's version is unknown" "run scripts/prepare-tree.sh (it installs it)"
}

# distro_debian_config VERSION: the path of Debian's cloud-amd64 config
# of linux-config-6.1 VERSION (fetched and verified, unpacked once).
distro_debian_config() {
	local ver=$1 deb dir=$FQP_DISTRO/config-$1
	if [ ! -s "$dir/config" ]; then
		deb=$(fetch_debian_deb "$FQP_DISTRO_SUITE" "$FQP_DISTRO_CONFIG_PKG" "$ver")
		rm -rf "$dir"
		mkdir -p "$dir"
		dpkg-deb -x "$deb" "$dir/deb"
		[ -f "$dir/deb/usr/src/linux-config-6.1/config.amd64_none_$FQP_DISTRO_FLAVOUR.xz" ] ||
			die "$deb has no config.amd64_none_$FQP_DISTRO_FLAVOUR.xz" "has Debian renamed the flavour? list $dir/deb/usr/src/linux-config-6.1"
		xz -dc "$dir/deb/usr/src/linux-config-6.1/config.amd64_none_$FQP_DISTRO_FLAVOUR.xz" >"$dir/config.tmp"
		rm -rf "$dir/deb"
		mv "$dir/config.tmp" "$dir/config"
	fi
	printf '%s\n' "$dir/config"
}

# distro_identify_tree SRC: refuse a tree that is not linux-source-6.1 of
# the version Debian's binary is built from, with the series applied.
distro_identify_tree() {
	local src=$1 want v
	want=$(distro_source_version) want=${want%%-*}
	[ -f "$src/Makefile" ] && [ -f "$src/net/sched/Kconfig" ] ||
		die "cannot identify $src as a kernel tree (no Makefile or net/sched/Kconfig)" \
			"give --src the top of a linux-source-6.1 tree with the series applied"
	v=$(FQP_STOCK=$src base_version)
	[ "$v" = "$want" ] ||
		die "$src is Linux $v; Debian's binary is built from $want (linux-source-6.1 $(distro_source_version))" \
			"use a tree of the same version, or leave --src out (a copy of \$FQP_PATCHED)"
	grep -qs '^config NET_SCH_FQ_KUNIT_TEST' "$src/net/sched/Kconfig" && [ -f "$src/net/sched/sch_fq_test.c" ] ||
		die "$src is $v without the series (no NET_SCH_FQ_KUNIT_TEST, no sch_fq_test.c)" \
			"apply it: QUILT_PATCHES=$FQP_ROOT/patches QUILT_SERIES=$FQP_ROOT/series quilt push -a"
}

# distro_debs_present OUT: the packages of the build in OUT are there.
distro_debs_present() {
	local rel
	rel=$(cat "$1/include/config/kernel.release" 2>/dev/null) || return 1
	compgen -G "$(dirname "$1")/linux-image-${rel}_*.deb" >/dev/null
}

# deb_modules DEB: the names of the kernel modules in DEB, as lsmod
# prints them (dashes as underscores), sorted.
deb_modules() {
	dpkg-deb -c "$1" | grep -oE '[^/]+\.ko(\.[a-z]+)?$' | sed -E 's/\.ko(\.[a-z]+)?$//; s/-/_/g' | sort -u
}

# distro_check_packages OUT RUNDIR: TAP lines about the packages bindeb-pkg
# made in OUT's parent: image, headers and libc-dev there; sch_fq.ko a
# module signed by the build's key, with no KUnit code and no KUnit
# module beside it; the uAPI header of linux-libc-dev has the series'
# additions. Details in RUNDIR/packages.txt. Status 1 when one fails.
distro_check_packages() {
	local out=$1 rd=$2 rel dir deb ko bad=0 k
	rel=$(cat "$out/include/config/kernel.release")
	dir=$rd/packages
	rm -rf "$dir"
	mkdir -p "$dir"
	for deb in linux-image linux-headers linux-libc-dev; do
		k=$(compgen -G "$(dirname "$out")/${deb}*_*.deb" | grep -v -- '-dbg_' | head -n 1 || true)
		if [ -n "$k" ]; then
			echo "$deb: ${k##*/}" >>"$rd/packages.txt"
			dpkg-deb -x "$k" "$dir/$deb"
			tap_result 0 "package_$deb # ${k##*/}"
		else
			tap_result 1 "package_$deb # not built"
			bad=1
		fi
	done
	ko=$dir/linux-image/lib/modules/$rel/kernel/net/sched/sch_fq.ko
	if [ -f "$ko" ]; then
		modinfo "$ko" >>"$rd/packages.txt" 2>&1 || true
		tap_result 0 "sch_fq_is_a_module # $(modinfo -F vermagic "$ko")"
		if nm "$ko" | grep -qi kunit || find "$dir/linux-image" -name '*kunit*' -o -name 'sch_fq_test*' | grep -q .; then
			tap_result 1 "sch_fq_no_kunit # KUnit symbols or modules in the package"
			bad=1
		else
			tap_result 0 "sch_fq_no_kunit"
		fi
		k=$(modinfo -F signer "$ko")
		if [ -n "$k" ]; then tap_result 0 "sch_fq_signed # signer: $k"; else tap_result 1 "sch_fq_signed # no signature"; bad=1; fi
	else
		tap_result 1 "sch_fq_is_a_module # no kernel/net/sched/sch_fq.ko in linux-image-$rel"
		bad=1
	fi
	if grep -qs 'TCA_FQ_WEIGHTS' "$dir/linux-libc-dev/usr/include/linux/pkt_sched.h"; then
		tap_result 0 "libc_dev_uapi_has_fq_bands # TCA_FQ_PRIOMAP, TCA_FQ_WEIGHTS, tc_fq_qd_stats' band fields"
	else
		tap_result 1 "libc_dev_uapi_has_fq_bands # usr/include/linux/pkt_sched.h lacks the series' additions"
		bad=1
	fi
	return "$bad"
}

# distro_host_state: what must not change on the host: its running
# kernel, its /boot and the kernel packages it has installed.
distro_host_state() {
	uname -r
	ls -l --time-style=+%s /boot 2>/dev/null || true
	dpkg-query -W -f='${Package} ${Version} ${Status}\n' 'linux-image-*' 'linux-headers-*' 2>/dev/null || true
}

# distro_verdict_diff KTAP COLUMN: the cases whose verdict in a run's
# guest KTAP (ktap.log) differs from docs/verdicts.csv's COLUMN (stock61,
# series): "CASE: here VERDICT, COLUMN VERDICT" lines.
distro_verdict_diff() {
	python3 - "$FQP_ROOT/docs/verdicts.csv" "$1" "$2" <<'PY'
import csv, re, sys
want = {r["case"]: r[sys.argv[3]] for r in csv.DictReader(open(sys.argv[1]))}
for line in open(sys.argv[2], errors="replace"):
    m = re.match(r"^ +(not )?ok \d+ (\d\d-[a-z0-9-]+:\S+)(.*)", line)
    if not m or m.group(2) not in want:
        continue
    v = "SKIP" if "# SKIP" in m.group(3) else ("fail" if m.group(1) else "pass")
    if not want[m.group(2)].startswith(v):
        print(f"{m.group(2)}: here {v}, {sys.argv[3]} {want[m.group(2)]}")
PY
}

# archive_versions SUITE PKG: every version of PKG SUITE's signed index
# lists (the host architecture's Packages.xz), oldest first, as
# SUITE=VERSION.
archive_versions() {
	local suite=$1 pkg=$2 m idx
	m=$(suite_mirror "$suite")
	FQP_MIRROR=$m debian_release "$suite"
	FQP_MIRROR=$m debian_index idx "$suite" "main/binary-$(dpkg --print-architecture)/Packages.xz"
	xz -dc "$idx" | awk -v RS= -v p="Package: $pkg" 'index($0, p "\n") == 1' |
		awk '$1 == "Version:" {print $2}' | sort -u | sort -V | sed "s/^/$suite=/"
}
