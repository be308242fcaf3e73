# shellcheck shell=bash
# Shared by every fq-pacing script: logging, errors, paths, packages, KVM.
# Source it; it sets strict mode for the caller.
set -euo pipefail

FQP_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FQP_CACHE=${FQP_CACHE:-$HOME/.cache/fq-pacing}
FQP_TARBALL=${FQP_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
FQP_STOCK=$FQP_CACHE/stock        # pristine linux-source-6.1
FQP_PATCHED=$FQP_CACHE/patched    # stock + quilt push -a
FQP_AUTHOR=$FQP_CACHE/authoring   # git repo over stock, for refresh-patches.sh
FQP_BUILD=$FQP_CACHE/build        # O= dirs: build/<tree>-<config>
FQP_IMAGES=$FQP_CACHE/images      # rootfs images, keyed by content hash
FQP_RESULTS=${FQP_RESULTS:-$FQP_ROOT/results}
export FQP_ROOT FQP_CACHE FQP_STOCK FQP_PATCHED FQP_AUTHOR FQP_BUILD FQP_IMAGES

# --- The base: which upstream tree "stock" means ------------------------------
# 6.1 (the default): bookworm's linux-source-6.1, the series' base; every
# path above is 6.1's. 7.2: Debian sid's linux-source-7.2, the yardstick;
# its patched tree carries the upstream patches (patches/net/ then
# patches/net-next/, each with its own quilt series file). Its trees and
# build dirs have names of their own (stock-7.2, patched-7.2,
# build/stock72-*, build/patched72-*), so nothing of 6.1's is touched.
FQP_BASES='6.1 7.2'
FQP_SID_PACKAGE=linux-source-7.2
# The upstream series, in the order the patched 7.2 tree applies them: the
# fixes for net first, then the net-next series.
FQP_UPSTREAM_SERIES='net net-next'

# set_base BASE: select the base for this script and the scripts it runs
# (exported). Status 2 (usage) for an unknown base.
set_base() {
	case $1 in
	6.1)
		FQP_STOCK=$FQP_CACHE/stock FQP_PATCHED=$FQP_CACHE/patched
		QUILT_SERIES=$FQP_ROOT/series FQP_AUTHOR=$FQP_CACHE/authoring
		FQP_SERIES_DIR=$FQP_ROOT/patches
		;;
	7.2)
		FQP_STOCK=$FQP_CACHE/stock-7.2 FQP_PATCHED=$FQP_CACHE/patched-7.2
		# Written by prepare-tree.sh from the series files (upstream_series).
		QUILT_SERIES=$FQP_CACHE/series-7.2 FQP_AUTHOR=$FQP_CACHE/authoring-7.2
		# What refresh-patches.sh exports from the 7.2 authoring repo.
		FQP_SERIES_DIR=$FQP_ROOT/patches/net-next
		;;
	*) echo "unknown base: '$1' (known: $FQP_BASES)" >&2; return 2 ;;
	esac
	FQP_BASE=$1
	export FQP_BASE FQP_STOCK FQP_PATCHED QUILT_SERIES FQP_AUTHOR FQP_SERIES_DIR
}
set_base "${FQP_BASE:-6.1}" || die "FQP_BASE=$FQP_BASE is not a base" "use one of: $FQP_BASES"

# base_tree TREE: the build-dir name of TREE (stock|patched) on this base:
# 6.1's are the names they always had, 7.2's are stock72 and patched72.
base_tree() {
	case $FQP_BASE:$1 in
	6.1:stock | 6.1:patched) printf '%s\n' "$1" ;;
	7.2:stock | 7.2:patched) echo "${1}72" ;;
	*) die "there is no '$1' tree on base $FQP_BASE" "use --tree stock or --tree patched" ;;
	esac
}

# base_version: the upstream version of the base's stock tree, as its
# Makefile says (e.g. 6.1.158); "unknown" before the tree is unpacked (a
# boot of a --bzimage from elsewhere).
base_version() {
	local mk=$FQP_STOCK/Makefile
	[ -f "$mk" ] || { echo unknown; return 0; }
	awk -F' *= *' '$1 == "VERSION" {v = $2} $1 == "PATCHLEVEL" {p = $2}
		$1 == "SUBLEVEL" {s = $2} $1 == "EXTRAVERSION" {e = $2}
		END {if (v != "") printf "%s.%s.%s%s\n", v, p, s, e}' "$mk"
}

# base_package: the Debian package and version the base's tree came from.
base_package() {
	if [ "$FQP_BASE" = 6.1 ]; then
		dpkg-query -W -f='linux-source-6.1 ${Version}\n' linux-source-6.1 2>/dev/null || echo 'linux-source-6.1 ?'
	else
		cat "$FQP_STOCK/.fqp-package" 2>/dev/null || echo "$FQP_SID_PACKAGE ?"
	fi
}

# _archive_get URL OUT SHA256: download one file of the archive to OUT and
# check its SHA256 (from a signed index). Dies when the download fails;
# status 1 (OUT untouched) when the file does not match.
_archive_get() {
	local url=$1 out=$2 sha=$3
	curl -fsS --retry 3 -o "$out.part" "$url" ||
		die "downloading $url failed" "check the network and the apt sources, then re-run"
	[ "$(sha256sum <"$out.part" | cut -d' ' -f1)" = "$sha" ] || { rm -f "$out.part"; return 1; }
	mv "$out.part" "$out"
}

# _archive_need URL OUT SHA256: _archive_get, dying on a mismatch.
_archive_need() {
	_archive_get "$@" ||
		die "$1 does not match the SHA256 the signed index gives ($3)" \
			"a broken mirror or a download mangled in transit: re-run later"
}

# _stanza_field FILE FIELD: the value of FIELD in the one-stanza FILE.
_stanza_field() { awk -v f="$2:" '$1 == f {print $2; exit}' "$1"; }

# debian_release SUITE: fetch SUITE's release file and check it as apt
# does: dists/SUITE/InRelease (from the mirror the machine's apt sources
# name) by gpgv against the host's Debian archive keyring. Its verified
# text is then $FQP_CACHE/SUITE/InRelease.verified, the only source of the
# index hashes below. Dies when it does not verify; warns when it expired.
debian_release() {
	local suite=$1 m dir rel expiry
	ensure_packages curl gpgv debian-archive-keyring
	m=$(apt_mirror) dir=$FQP_CACHE/$suite
	mkdir -p "$dir"
	curl -fsS --retry 3 -o "$dir/InRelease" "$m/dists/$suite/InRelease" ||
		die "downloading $m/dists/$suite/InRelease failed" "check the network, then re-run"
	rel=$dir/InRelease.verified
	gpgv --keyring /usr/share/keyrings/debian-archive-keyring.gpg --output "$rel" \
		"$dir/InRelease" 2>"$dir/gpgv.log" || {
		cat "$dir/gpgv.log" >&2
		die "$suite's InRelease does not verify against /usr/share/keyrings/debian-archive-keyring.gpg" \
			"a key newer than this keyring signs $suite: upgrade debian-archive-keyring (bookworm-updates), then re-run"
	}
	expiry=$(sed -n 's/^Valid-Until: //p' "$rel")
	if [ -n "$expiry" ] && [ "$(date -d "$expiry" +%s)" -lt "$(date +%s)" ]; then
		# apt refuses an expired index by default (a replayed old one): say
		# so loudly. Every hash below still comes from this signed index.
		warn "$suite's InRelease expired on $expiry (the mirror is behind this machine's clock); using it anyway"
	fi
}

# debian_index VAR SUITE PATH...: set VAR to the local copy of the first
# index PATH (relative to dists/SUITE/, e.g. main/source/Sources.xz) that
# matches the SHA256 SUITE's verified InRelease gives (debian_release
# first), kept in $FQP_CACHE/SUITE and downloaded only when its content
# changed. A PATH the mirror serves mangled is reported and the next one
# tried; dies when none matches.
debian_index() {
	local -n _idx=$1
	local suite=$2 m dir path sha out
	shift 2
	m=$(apt_mirror) dir=$FQP_CACHE/$suite
	for path in "$@"; do
		sha=$(awk -v f="$path" '$3 == f && length($1) == 64 {print $1; exit}' "$dir/InRelease.verified")
		[ -n "$sha" ] || continue
		out=$dir/${path//\//_}
		if { [ -f "$out" ] && [ "$(sha256sum <"$out" | cut -d' ' -f1)" = "$sha" ]; } ||
			_archive_get "$m/dists/$suite/$path" "$out" "$sha"; then
			_idx=$out
			return 0
		fi
		warn "$m/dists/$suite/$path does not match $suite's signed InRelease; trying the next index"
	done
	die "none of $* of $suite matches its signed InRelease" \
		"a mirror caught mid-update: re-run later, or set FQP_MIRROR to another Debian mirror"
}

# newest_stanza INDEX PKG OUT: the stanza of PKG's newest version in the
# xz-compressed Packages or Sources INDEX, written to OUT (empty when
# INDEX lists no PKG).
newest_stanza() {
	local idx=$1 pkg=$2 out=$3 v best=''
	xz -dc "$idx" | awk -v RS= -v ORS='\n\n' -v p="Package: $pkg" 'index($0, p "\n") == 1 {print}' >"$out.all"
	while read -r v; do
		[ -n "$best" ] && ! dpkg --compare-versions "$v" gt "$best" || best=$v
	done < <(awk '$1 == "Version:" {print $2}' "$out.all")
	awk -v RS= -v v="$best" '$0 ~ "\nVersion: " v "\n" {print; exit}' "$out.all" >"$out"
	rm -f "$out.all"
}

# fetch_debian_tree SUITE PACKAGE DEST: unpack the kernel tree in Debian's
# PACKAGE (a linux-source-X.Y, binary-all) from SUITE into DEST, verified
# as apt verifies: dists/SUITE/InRelease checked by gpgv against the host's
# Debian archive keyring, Packages.xz against the SHA256 the signed
# InRelease gives, the .deb against the SHA256 in Packages. Only that one
# package is fetched (from the mirror the machine's apt sources name); the
# host's apt sources and packages are left as they are. Downloads are
# cached in $FQP_CACHE/SUITE by version: a new version unpacks beside the
# old one's download. Nothing is done when DEST is already unpacked, unless
# FQP_TREE_REFRESH is set.
fetch_debian_tree() {
	local suite=$1 pkg=$2 dest=$3 m dir idx sha stanza file size ver deb
	[ ! -f "$dest/.fqp-unpacked" ] || [ -n "${FQP_TREE_REFRESH:-}" ] || return 0
	ensure_packages curl xz-utils
	m=$(apt_mirror) dir=$FQP_CACHE/$suite
	log "fetching $pkg's index from Debian $suite (the apt sources' mirror)"
	debian_release "$suite"
	# binary-all lists the package; the host architecture's index lists it
	# too ("No-Support-for-Architecture-all: Packages"), and is the one
	# taken when a mirror serves a binary-all index that does not match
	# the signed InRelease (seen on trixie, 2026-12-06).
	debian_index idx "$suite" main/binary-all/Packages.xz "main/binary-$(dpkg --print-architecture)/Packages.xz"
	# The newest version when the index lists several.
	stanza=$dir/$pkg.stanza
	newest_stanza "$idx" "$pkg" "$stanza"
	file=$(_stanza_field "$stanza" Filename) sha=$(_stanza_field "$stanza" SHA256)
	size=$(_stanza_field "$stanza" Size) ver=$(_stanza_field "$stanza" Version)
	[ -n "$file" ] && [ -n "$sha" ] ||
		die "$suite has no $pkg in ${idx##*/}" \
			"has $suite moved on to another kernel? ask for the linux-source-X.Y it serves (sid's: FQP_SID_PACKAGE)"
	local free
	free=$(df -Pk "$FQP_CACHE" | awk 'NR == 2 {print $4}')
	[ "$free" -gt $((size * 8 / 1024)) ] ||
		die "$pkg is $size bytes, unpacked about 8x that; $FQP_CACHE has $free KiB free" "free space, then re-run"
	deb=$dir/${file##*/}
	if [ ! -f "$deb" ] || [ "$(sha256sum <"$deb" | cut -d' ' -f1)" != "$sha" ]; then
		log "downloading $pkg $ver ($((size / 1048576)) MiB)"
		_archive_need "$m/$file" "$deb" "$sha"
	fi
	log "$pkg $ver: SHA256 verified ($sha)"
	rm -rf "$dir/deb" "$dest" "$dest.tmp"
	dpkg-deb -x "$deb" "$dir/deb"
	local tarball
	tarball=$(find "$dir/deb/usr/src" -maxdepth 1 -name 'linux-source-*.tar.xz' | head -n 1)
	[ -n "$tarball" ] || die "$deb has no /usr/src/linux-source-*.tar.xz" "report it; the package layout changed"
	mkdir -p "$dest.tmp"
	run_logged "$FQP_CACHE/logs/unpack-${pkg#linux-source-}.log" "unpacking $(basename "$tarball")" \
		tar -C "$dest.tmp" --strip-components=1 -xf "$tarball"
	rm -rf "$dir/deb"
	echo "$pkg $ver" >"$dest.tmp/.fqp-package"
	touch "$dest.tmp/.fqp-unpacked"
	mv "$dest.tmp" "$dest"
}

# fetch_sid_tree: unpack sid's $FQP_SID_PACKAGE into $FQP_STOCK (base 7.2),
# verified and cached as fetch_debian_tree says; FQP_SID_REFRESH fetches
# it again.
fetch_sid_tree() {
	FQP_TREE_REFRESH=${FQP_SID_REFRESH:-} fetch_debian_tree sid "$FQP_SID_PACKAGE" "$FQP_STOCK"
}

# ensure_sparse_72: print the path of a sparse that Linux 7.2 accepts for
# C=1/C=2 (pass it as CHECK=), built once into $FQP_CACHE/tools/sparse-V/.
# Why: 7.2's scripts/checker-valid.sh asks sparse to parse
# __typeof_unqual__, which bookworm's sparse 0.6.4 cannot; kbuild then
# prints "C=2 specified, but sparse is not available or not up to date"
# and runs no sparse at all, and the build still succeeds. Sid's sparse
# (0.6.5~rc1) parses it, but its binary needs sid's glibc (>= 2.38,
# bookworm has 2.36), so sid's source package is built with bookworm's
# gcc: Sources.xz checked against sid's signed InRelease, each file of
# the source package against the SHA256 the Sources stanza gives, then
# only the sparse program from the upstream (orig) tarball. Debian's own
# patches are left out: they pin gcc-16 (sid's compiler) and add a linker
# flag for the package's other programs. The newest version built before
# is reused without asking the mirror; FQP_SPARSE_REFRESH looks at sid
# again.
ensure_sparse_72() {
	local tools=$FQP_CACHE/tools d v have='' m dir idx stanza ver pool sha size name orig='' out src
	mkdir -p "$tools"
	with_lock "$tools/.sparse-lock"
	for d in "$tools"/sparse-*/; do
		v=${d%/} v=${v##*/sparse-}
		[ -x "$d/sparse" ] && [ -f "$d/.fqp-built" ] || continue
		[ -n "$have" ] && ! dpkg --compare-versions "$v" gt "$have" || have=$v
	done
	if [ -n "$have" ] && [ -z "${FQP_SPARSE_REFRESH:-}" ]; then
		printf '%s\n' "$tools/sparse-$have/sparse"
		return 0
	fi
	ensure_packages curl xz-utils gcc make libc6-dev
	m=$(apt_mirror) dir=$FQP_CACHE/sid
	log "sparse for 7.2: looking up Debian sid's source package (bookworm's 0.6.4 cannot parse __typeof_unqual__)"
	debian_release sid
	debian_index idx sid main/source/Sources.xz
	stanza=$dir/sparse.source-stanza
	newest_stanza "$idx" sparse "$stanza"
	ver=$(_stanza_field "$stanza" Version) pool=$(_stanza_field "$stanza" Directory)
	[ -n "$ver" ] && [ -n "$pool" ] ||
		die "sid's main/source/Sources.xz has no sparse" "look for sparse in Debian's sources; ensure_sparse_72 in scripts/lib.sh needs another source"
	out=$tools/sparse-$ver
	if [ -x "$out/sparse" ] && [ -f "$out/.fqp-built" ]; then
		printf '%s\n' "$out/sparse"
		return 0
	fi
	# Checksums-Sha256: " SHA256 SIZE NAME", one file of the source package a line.
	while read -r sha size name; do
		if [ ! -f "$dir/$name" ] || [ "$(sha256sum <"$dir/$name" | cut -d' ' -f1)" != "$sha" ]; then
			log "downloading $name ($size bytes)"
			_archive_need "$m/$pool/$name" "$dir/$name" "$sha"
		fi
		case $name in *.orig.tar.*) orig=$dir/$name ;; esac
	done < <(awk '/^Checksums-Sha256:/ {on = 1; next} /^[^ ]/ {on = 0} on && NF == 3 {print}' "$stanza")
	[ -n "$orig" ] || die "sid's sparse $ver lists no .orig.tar.* (Checksums-Sha256 in $stanza)" \
		"a native source package now? build it from its .debian.tar, in ensure_sparse_72"
	log "sparse $ver: the source package's SHA256s verified against sid's Sources"
	rm -rf "$out" "$out.tmp"
	mkdir -p "$out.tmp"
	tar -C "$out.tmp" -xf "$orig"
	src=$(find "$out.tmp" -mindepth 1 -maxdepth 1 -type d | head -n 1)
	[ -n "$src" ] && [ -f "$src/Makefile" ] || die "$orig has no top directory with a Makefile" "report it; the tarball's layout changed"
	# Only the sparse program: no LLVM, GTK, libxml2 or sqlite probes. The
	# version sparse --version reports is Debian's (upstream's Makefile
	# still says 0.6.4 in 0.6.5-rc1).
	run_logged "$FQP_CACHE/logs/sparse-$ver.log" "building sparse $ver with $(gcc -dumpfullversion)" \
		make -C "$src" -j"$(nproc)" HAVE_LLVM=no HAVE_GTK=no HAVE_LIBXML=no HAVE_SQLITE=no \
		SPARSE_VERSION="$ver" sparse
	mv "$src/sparse" "$out.tmp/sparse"
	rm -rf "$src"
	# The test 7.2's scripts/checker-valid.sh makes: no error parsing this.
	printf 'static inline int u(const int *q)\n{\n\t__typeof_unqual__(*q) v = *q;\n\treturn v;\n}\n' >"$out.tmp/probe.c"
	if "$out.tmp/sparse" "$out.tmp/probe.c" 2>&1 | grep -q error; then
		"$out.tmp/sparse" "$out.tmp/probe.c" >&2 || true
		die "the sparse built from sid's $ver cannot parse __typeof_unqual__ either (kbuild 7.2 would refuse it)" \
			"read the errors above; a newer sparse is needed (FQP_SPARSE_REFRESH=1 once sid has one)"
	fi
	rm -f "$out.tmp/probe.c"
	cp "$stanza" "$out.tmp/source-stanza"
	touch "$out.tmp/.fqp-built"
	mv "$out.tmp" "$out"
	log "sparse $ver: $out/sparse"
	printf '%s\n' "$out/sparse"
}

# Everything the pipeline needs from Debian, installed on demand.
FQP_PACKAGES=(linux-source-6.1 quilt git gcc make flex bison bc libelf-dev
	libssl-dev qemu-system-x86 debootstrap e2fsprogs iproute2 iperf3
	ccache shellcheck gnuplot-nox libpcap-dev libmnl-dev python3 xz-utils
	cpio kmod perl libc6-dev debian-archive-keyring clang libbpf-dev)

FQP_T0=${FQP_T0:-$(date +%s)}
export FQP_T0
FQP_STEP=${FQP_STEP:-$(basename "${0%.sh}")}

_elapsed() {
	local s=$(($(date +%s) - FQP_T0))
	printf '%02d:%02d' $((s / 60)) $((s % 60))
}

log() { printf '[%s %s] %s\n' "$(_elapsed)" "$FQP_STEP" "$*" >&2; }
warn() { printf '[%s %s] WARNING: %s\n' "$(_elapsed)" "$FQP_STEP" "$*" >&2; }

# die WHAT [NEXT]: say what failed and what to do about it, then exit 1.
die() {
	printf '[%s %s] ERROR: %s\n' "$(_elapsed)" "$FQP_STEP" "$1" >&2
	[ $# -lt 2 ] || printf '[%s %s]   next: %s\n' "$(_elapsed)" "$FQP_STEP" "$2" >&2
	exit 1
}

# run_logged LOGFILE DESCRIPTION CMD...: run CMD with output in LOGFILE,
# print a heartbeat while it runs, and on failure show the tail and the path.
run_logged() {
	local logf=$1 what=$2 pid rc=0 n=0
	shift 2
	mkdir -p "$(dirname "$logf")"
	log "$what (log: $logf)"
	"$@" >"$logf" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 5
		n=$((n + 5))
		if [ $((n % 60)) -eq 0 ]; then
			log "  ... $what: ${n}s, $(tail -n 1 "$logf" | cut -c1-100)"
		fi
	done
	wait "$pid" || rc=$?
	if [ "$rc" -ne 0 ]; then
		# With make -j the first error is often far above the tail.
		if grep -qE ': (fatal )?error:' "$logf"; then
			echo "first errors:" >&2
			grep -E -m 5 -A 2 ': (fatal )?error:' "$logf" >&2 || true
			echo "last lines:" >&2
		fi
		tail -n 40 "$logf" >&2 || true
		die "$what failed (exit $rc); full log: $logf" \
			"read the log above, fix the cause and re-run $0"
	fi
	log "$what: done in ${n}s"
}

need_root() {
	[ "$(id -u)" -eq 0 ] ||
		die "$1 needs root (debootstrap, package install)" "re-run as root, e.g. sudo $0"
}

# ensure_packages [PKG...]: install what is missing, once; idempotent.
ensure_packages() {
	local missing=() p
	[ $# -gt 0 ] || set -- "${FQP_PACKAGES[@]}"
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -gt 0 ] || return 0
	need_root "installing ${missing[*]}"
	log "installing missing Debian packages: ${missing[*]}"
	local logf=$FQP_CACHE/logs/apt.log
	mkdir -p "$FQP_CACHE/logs"
	if ! { apt-get update -q && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q --no-install-recommends "${missing[@]}"; } >"$logf" 2>&1; then
		tail -n 20 "$logf" >&2
		die "apt-get could not install: ${missing[*]} (log: $logf)" \
			"check the machine's apt sources and network, then re-run"
	fi
}

# The Debian mirror, read from this machine's own apt configuration.
apt_mirror() {
	local m
	m=$(awk '/^URIs:/ {for (i = 2; i <= NF; i++) print $i}' \
		/etc/apt/sources.list.d/*.sources 2>/dev/null |
		grep -v -- '-security' | head -n 1 || true)
	if [ -z "$m" ]; then
		m=$(awk '$1 == "deb" && $0 !~ /security/ {for (i = 2; i <= NF; i++) if ($i ~ /:\/\//) {print $i; exit}}' \
			/etc/apt/sources.list 2>/dev/null || true)
	fi
	[ -n "$m" ] || die "no Debian mirror found in /etc/apt/sources.list{,.d}" \
		"configure apt for bookworm, or set FQP_MIRROR"
	printf '%s\n' "${FQP_MIRROR:-$m}"
}

# kvm_usable: 0 only if a real KVM guest boots to a marker. /dev/kvm alone
# proves nothing: on CPUs without vmx/svm a KVM guest hangs after the BIOS.
kvm_usable() {
	local bz=$1 out
	[ "${FQP_ACCEL:-auto}" != tcg ] || return 1
	[ -c /dev/kvm ] && [ -r /dev/kvm ] && [ -w /dev/kvm ] || return 1
	grep -qE '\b(vmx|svm)\b' /proc/cpuinfo || return 1
	out=$(timeout 25 qemu-system-x86_64 -accel kvm -m 256 -nographic -nic none \
		-no-reboot -kernel "$bz" -append "console=ttyS0 panic=-1 rdinit=/nonexistent" \
		2>&1 || true)
	grep -q 'Linux version' <<<"$out"
}

# Pick the accelerator once per process and say which, once.
pick_accel() {
	local bz=$1
	if [ -n "${FQP_ACCEL_PICKED:-}" ]; then
		printf '%s\n' "$FQP_ACCEL_PICKED"
		return
	fi
	if [ "${FQP_ACCEL:-auto}" = kvm ] || { [ "${FQP_ACCEL:-auto}" = auto ] && kvm_usable "$bz"; }; then
		FQP_ACCEL_PICKED=kvm
	else
		FQP_ACCEL_PICKED=tcg
		warn "KVM probe failed (no vmx/svm or the probe guest did not boot): using TCG emulation"
	fi
	export FQP_ACCEL_PICKED
	printf '%s\n' "$FQP_ACCEL_PICKED"
}

# auto_clock BZIMAGE: the default guest clock of the demo and the
# benchmark: exact (deterministic guest time) where the guest runs under
# TCG, wall under KVM (the exact clock is TCG only, and KVM's wall clock
# is real time).
auto_clock() {
	if [ "$(pick_accel "$1")" = tcg ]; then echo exact; else echo wall; fi
}

# The debug kernel's core cases (bad input, reconfiguration under load, the
# fuzzers, concurrency, the known bugs, fault injection): what CI's debug
# stage always runs. With --debug-next, scripts/test.sh leaves them to it.
FQP_DEBUG_CORE='^50-fq-options:(bad_input|bad_input_atomic|limit_lowered_full|replace_delete_under_load)$|^66-fq-bands:(bad_input_atomic|band_limit|reset_clears_band_counters)$|^(72-fq-limit-peeked|85-fq-netlink-fuzz|86-fq-churn|87-sysctl-fuzz|89-fq-concurrency|94-fq-failslab):|^90-fq-known-bugs:(huge_mtu_default_quantum|reset_with_backlog|tbf_limit0_sfq_graft_cve_2025_39677)$'
export FQP_DEBUG_CORE

# The 7.2 kernels' core in CI (stock 7.2, and 7.2 with the upstream
# patches): the cases whose semantics differ between the kernels (each
# asserts the booted kernel's), the fast path and bands that 7.2 shares
# with the series, the flow key of socketless packets (76), the
# tcp_tso_rtt_log bound (30's tso_rtt_log_32), and 7.2's own tc-testing
# fq.json (80-tdc). 7.2's fq_band_pktlimit.sh (95-tree-selftests) wants
# the exact clock: CI boots it apart (.ci/run).
FQP_CORE72='^(50-fq-options|52-fq-txtime|58-fq-fastpath|65-fq-highprio|66-fq-bands|76-fq-orphan-hash|80-tdc|85-fq-netlink-fuzz|90-fq-known-bugs):|^30-tso-autosize:tso_rtt_log_32$'
# Cases that fail on stock 7.2 by design: they assert what the series and
# the upstream patches fix there (the fast path and a socket's own pacing
# rate; tcp_tso_rtt_log >= 32; a change trimming every band to a lowered
# limit), and say so in a NOTE.
FQP_FINDINGS72='^58-fq-fastpath:fastpath_socket_rate_raised$|^66-fq-bands:change_keeps_bands$|^30-tso-autosize:tso_rtt_log_32$'
# ... and on 7.2 with the upstream patches: the trim is not among them.
FQP_FINDINGS_NEXT72='^66-fq-bands:change_keeps_bands$'
export FQP_CORE72 FQP_FINDINGS72 FQP_FINDINGS_NEXT72

# series_file_patches FILE: the patches a quilt series file lists.
series_file_patches() { grep -vE '^[[:space:]]*(#|$)' "$1" | awk '{print $1}'; }

# upstream_series: the 7.2 tree's quilt series, each patch relative to
# patches/ (net/..., net-next/...); a series file that does not exist yet
# adds nothing.
upstream_series() {
	local s
	echo "# generated by scripts/prepare-tree.sh from patches/{net,net-next}/series"
	for s in $FQP_UPSTREAM_SERIES; do
		[ ! -f "$FQP_ROOT/patches/$s/series" ] ||
			series_file_patches "$FQP_ROOT/patches/$s/series" | sed "s|^|$s/|"
	done
}

# series_patches: the patches of the base's patched tree, relative to
# patches/, in order.
series_patches() {
	if [ "$FQP_BASE" = 6.1 ]; then
		series_file_patches "$FQP_ROOT/series"
	else
		upstream_series | series_file_patches /dev/stdin
	fi
}

# Hash of the patch series, so trees are re-applied when it changes.
series_hash() {
	local p
	{
		if [ "$FQP_BASE" = 6.1 ]; then cat "$FQP_ROOT/series"; else upstream_series; fi
		series_patches | while read -r p; do cat "$FQP_ROOT/patches/$p"; done
	} | sha256sum | cut -c1-16
}

export QUILT_PATCHES=$FQP_ROOT/patches QUILT_PC=.pc

# quilt_pop_all TREE: undo every applied patch. Files the patches touched
# are touched again afterwards: quilt restores the old mtime, and make would
# keep objects built from the patched text.
quilt_pop_all() {
	local tree=$1 files
	[ -d "$tree/.pc" ] || return 0
	files=$(cd "$tree" && find .pc -mindepth 2 -type f ! -name '.*' |
		sed -E 's|^\.pc/[^/]+/||' | sort -u)
	(cd "$tree" && quilt pop -a -f -q) >"$FQP_CACHE/logs/quilt-pop.log" 2>&1 || return 1
	rm -rf "$tree/.pc" "$tree/.fqp-series"
	(cd "$tree" && while read -r f; do [ -z "$f" ] || [ ! -e "$f" ] || touch "$f"; done <<<"$files")
}

# quilt_touch TREE: touch every file the applied and the popped patches
# touched (quilt restores old mtimes; make would keep stale objects).
quilt_touch() {
	local p f
	series_patches | while read -r p; do
		sed -nE 's|^\+\+\+ b/([^[:space:]]+).*$|\1|p' "$FQP_ROOT/patches/$p"
	done | sort -u | while read -r f; do
		[ ! -e "$1/$f" ] || touch "$1/$f"
	done
}

# build_upstream_prefix N CONFIG: the 7.2 kernel with the net fixes and the
# first N net-next patches, built from the patched 7.2 tree (popped to that
# level and pushed back, under its lock) into build/patched72-N-CONFIG:
# the same source paths as the whole series' build, so ccache reuses it.
build_upstream_prefix() {
	local n=$1 config=$2 total level nnet=0
	(
		set_base 7.2
		"$FQP_ROOT/scripts/prepare-tree.sh"
		with_lock "$FQP_CACHE/.tree-7.2-lock"
		[ ! -f "$FQP_ROOT/patches/net/series" ] || nnet=$(series_file_patches "$FQP_ROOT/patches/net/series" | wc -l)
		total=$(series_patches | wc -l) level=$((nnet + n))
		[ "$level" -le "$total" ] || die "patched72-$n: there are only $((total - nnet)) net-next patches" "pick N <= $((total - nnet))"
		# A run stopped between its pop and its push leaves the tree at a
		# prefix: push the rest first, so that the pop below has work.
		(cd "$FQP_PATCHED" && if [ -n "$(quilt unapplied 2>/dev/null)" ]; then quilt push -q -a; fi &&
			if [ "$level" = 0 ]; then quilt pop -q -a; else
			quilt pop -q "$(series_patches | sed -n "${level}p")" || [ "$level" = "$total" ]; fi
		) >"$FQP_CACHE/logs/quilt-prefix.log" 2>&1 ||
			die "quilt pop to patch $level failed (log: $FQP_CACHE/logs/quilt-prefix.log)" "re-run scripts/prepare-tree.sh --base 7.2 --force"
		quilt_touch "$FQP_PATCHED"
		local rc=0
		"$FQP_ROOT/scripts/build-kernel.sh" --base 7.2 --tree patched --config "$config" \
			--src "$FQP_PATCHED" --out "$FQP_BUILD/patched72-$n-$config" || rc=$?
		(cd "$FQP_PATCHED" && quilt push -q -a) >>"$FQP_CACHE/logs/quilt-prefix.log" 2>&1 ||
			die "quilt push -a failed after the prefix build (log: $FQP_CACHE/logs/quilt-prefix.log)" "re-run scripts/prepare-tree.sh --base 7.2 --force"
		quilt_touch "$FQP_PATCHED"
		return "$rc"
	)
}

# with_lock FILE: hold an exclusive lock on FILE until the script exits, so
# two runs never build into the same directory at once.
with_lock() {
	local fd
	mkdir -p "$(dirname "$1")"
	exec {fd}>"$1"
	if ! flock -n "$fd"; then
		log "waiting for another run holding $1"
		flock "$fd"
	fi
}

# kconfig_make SRC OUT LOG BASE FRAG... -- MAKE...: configure the O= dir OUT
# of tree SRC: `MAKE BASE` (e.g. tinyconfig), merge the fragments (paths
# absolute or relative to SRC), olddefconfig. MAKE is the whole make command
# (make -C SRC O=OUT ARCH=...). Output goes to LOG; a failure dies.
kconfig_make() {
	local src=$1 out=$2 logf=$3 base=$4
	local -a frags=()
	shift 4
	while [ $# -gt 0 ] && [ "$1" != -- ]; do frags+=("$1"); shift; done
	[ "${1:-}" = -- ] || die "kconfig_make: no -- before the make command (a bug in $0)"
	shift
	"$@" "$base" >"$logf" 2>&1 || die "make $base failed (log: $logf)" "read the log; is the tree complete?"
	(cd "$src" && scripts/kconfig/merge_config.sh -m -O "$out" "$out/.config" "${frags[@]}") >>"$logf" 2>&1 ||
		die "merge_config.sh failed (log: $logf)" "check the fragments: ${frags[*]}"
	"$@" olddefconfig >>"$logf" 2>&1 || die "make olddefconfig failed (log: $logf)"
}

# config_check CONFIG FRAG...: every symbol the fragments set (=y/m/value or
# "is not set") must be so in CONFIG; where two fragments set one symbol,
# the later one's value counts, as in merge_config.sh. merge_config.sh only
# warns when one does not stick (a missing dependency, a typo); a kernel
# without what was asked for is worse than none. Says which did not stick;
# status 1 then.
config_check() {
	local cfg=$1 bad=0 line sym val
	local -A cfg_want=()
	shift
	while read -r line; do
		if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]]; then
			cfg_want[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
		elif [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set ]]; then
			cfg_want[${BASH_REMATCH[1]}]=''
		fi
	done < <(cat "$@")
	for sym in "${!cfg_want[@]}"; do
		val=${cfg_want[$sym]}
		if [ -n "$val" ]; then
			grep -qxF "$sym=$val" "$cfg" || {
				warn "$sym=$val requested, got: $(grep -E "^(# )?${sym}[= ]" "$cfg" || echo 'absent')"
				bad=1
			}
		elif grep -qE "^$sym=" "$cfg"; then
			warn "$sym requested off, but it is on"
			bad=1
		fi
	done
	[ "$bad" = 0 ]
}

# kernel_image TREE CONFIG: the bzImage of TREE (stock|patched) on the base.
kernel_image() { printf '%s/%s-%s/arch/x86/boot/bzImage\n' "$FQP_BUILD" "$(base_tree "$1")" "$2"; }

# select_names WHAT LIST NAME...: the names in the comma-separated LIST,
# one per line, each checked against the known NAMEs (all of them when LIST
# is empty). An unknown one is reported and the status is 2 (usage).
select_names() {
	local what=$1 list=$2 n
	local -a names
	shift 2
	if [ -z "$list" ]; then
		printf '%s\n' "$@"
		return 0
	fi
	IFS=, read -ra names <<<"$list"
	for n in "${names[@]}"; do
		[[ " $* " == *" $n "* ]] || { echo "unknown $what: '$n' (known: $*)" >&2; return 2; }
		printf '%s\n' "$n"
	done
}

# The guest clock (boot-and-test.sh --clock, and the scripts above it).
# wall: QEMU's virtual clock follows the host's, so every guest timing
# depends on the host's load. exact: icount at shift 0, one guest
# instruction per ns of guest time, idle time skipped (sleep=off) and no
# throttling to real time (align=off): a deterministic machine that retires
# one instruction per ns and has no cache model. TCG only.
EXACT_ICOUNT="shift=0,sleep=off,align=off"
# Under TCG the default clocksource is the HPET (an emulated MMIO read per
# clock read); the TSC follows the icount clock.
EXACT_CMDLINE="clocksource=tsc tsc=reliable"
export EXACT_ICOUNT EXACT_CMDLINE
# icount runs every vCPU on one host thread, in turn. With 2 vCPUs the
# instructions per packet spread 20x more between boots than with 1
# (docs/testing.md, "The guest"), so exact mode defaults to 1 vCPU.
EXACT_SMP=1

# clock_smp CLOCK: the default vCPU count for that clock.
clock_smp() { if [ "$1" = exact ]; then echo "$EXACT_SMP"; else echo 2; fi; }

# clock_accel CLOCK BZIMAGE: the accelerator for that clock. Exact mode is
# TCG's icount: it refuses KVM when KVM is asked for (FQP_ACCEL=kvm), and
# otherwise uses TCG without probing KVM, and says so.
clock_accel() {
	if [ "$1" != exact ]; then
		pick_accel "$2"
		return
	fi
	[ "${FQP_ACCEL:-auto}" != kvm ] ||
		die "--clock exact needs TCG (QEMU icount has no KVM equivalent), but FQP_ACCEL=kvm asks for KVM" \
			"unset FQP_ACCEL (exact mode then uses TCG), or use --clock wall with KVM"
	log "clock exact: TCG with -icount $EXACT_ICOUNT (KVM, if any, is not used)"
	echo tcg
}

# clock_qemu_args CLOCK: QEMU's extra arguments for that clock, one a line.
clock_qemu_args() { [ "$1" != exact ] || printf '%s\n' -icount "$EXACT_ICOUNT"; }

# qemu_plugin NAME: the path of the QEMU TCG plugin tests/host/NAME.c
# (insncount: instructions per block; cachemodel: the cache model), built
# into the cache when missing or older than its source.
qemu_plugin() {
	local src=$FQP_ROOT/tests/host/$1.c so=$FQP_CACHE/tools/$1.so
	if [ ! -f "$so" ] || [ "$src" -nt "$so" ] ||
		[ "$FQP_ROOT/tests/host/qemu-plugin-api.h" -nt "$so" ] ||
		[ "$FQP_ROOT/tests/host/plugin-table.h" -nt "$so" ]; then
		ensure_packages gcc
		mkdir -p "$FQP_CACHE/tools"
		gcc -O2 -Wall -Wextra -Wno-unused-parameter -shared -fPIC \
			-o "$so" "$src" -lpthread >&2 ||
			die "building the QEMU plugin $src failed" "fix the compile error above and re-run"
	fi
	echo "$so"
}

# cache_rows OUT KERNEL REP: the raw.csv rows of the cache model's windows
# of one bench boot (OUT: boot-and-test.sh's run directory, with
# --cache-model OUT/cache); fails when the plugin's windows and the
# guest's labels do not pair up.
cache_rows() {
	python3 "$FQP_ROOT/scripts/cache-model.py" rows "$1/cache" "$1/results/data/cachemodel.windows" "$2" "$3"
}

# count_rows OUT KERNEL REP CSV: the raw.csv rows of one bench boot under
# --count-insns: the guest's rows (CSV), except that the plugin's exact
# instruction counts of the marked windows (cache_rows) replace the
# guest's figures of the same point: fq_insn and pfifo_insn per packet,
# the least of a point's windows ("QDISC#W"), and fq_cost their difference.
count_rows() {
	# A boot whose points marked no window (paced, tcp...) keeps its rows.
	if [ ! -s "$1/results/data/cachemodel.windows" ]; then
		sed "s/^/$2,$3,/" "$4"
		return
	fi
	cache_rows "$1" "$2" "$3" | python3 -c '
import sys
k, rep, guest = sys.argv[1:4]
least = {}
for line in sys.stdin:
    f = line.rstrip("\n").split(",")
    wl, var, metric = f[2][len("cache-"):], f[3], f[4]
    if not metric.endswith("_insn") or metric.startswith("cost_"):
        continue
    q = metric[:-len("_insn")].split("#")[0]
    key = (wl, var, q + "_insn")
    least[key] = min(least.get(key, float("inf")), float(f[5]))
plugin = {key: "%.4f" % v for key, v in least.items()}
for (wl, var, m) in list(least):
    if m == "fq_insn" and (wl, var, "pfifo_insn") in least:
        plugin[(wl, var, "fq_cost")] = "%.4f" % (least[(wl, var, m)] - least[(wl, var, "pfifo_insn")])
for line in open(guest):
    f = line.rstrip("\n").split(",")
    if len(f) >= 5 and (f[0], f[1], f[2]) in plugin:
        continue
    print("%s,%s,%s" % (k, rep, line.rstrip("\n")))
for (wl, var, metric), v in plugin.items():
    print("%s,%s,%s,%s,%s,%s,insn/pkt" % (k, rep, wl, var, metric, v))
' "$2" "$3" "$4"
}

# cache_report RUNDIR: RUNDIR/cache.md (the cache model's table), and for
# each fq point of the first boot of each stock kernel and of the series,
# where its L1d, L2 and LLC misses go: RUNDIR/cache-profile/POINT.LEVEL.txt
# against stock 6.1, POINT-7.2.LEVEL.txt against stock 7.2 (insn-profile.py
# --compare, misses per packet by function, A the stock kernel, B series).
cache_report() {
	local r=$1 a b f lv label ref sfx
	python3 "$FQP_ROOT/scripts/cache-model.py" table "$r" >/dev/null ||
		die "cache-model.py table failed on $r/raw.csv" "fix scripts/cache-model.py and run it on $r"
	b=$r/1-patched
	[ -d "$b/cache/merged" ] || { warn "no cache profiles of the series' first boot"; return 0; }
	mkdir -p "$r/cache-profile"
	for ref in stock stock72; do
		a=$r/1-$ref sfx=''
		[ "$ref" = stock ] || sfx=-7.2
		[ -d "$a/cache/merged" ] || continue
		for f in "$a"/cache/merged/*_fq.pkts; do
			label=$(basename "$f" .pkts)
			[ -f "$b/cache/merged/$label.pkts" ] || continue
			for lv in l1d l2 llc; do
				python3 "$FQP_ROOT/scripts/insn-profile.py" --compare --top 30 \
					--per-a "$(cat "$f")" --per-b "$(cat "$b/cache/merged/$label.pkts")" \
					"$a/vmlinux" "$a/cache/merged/$label.$lv" "$b/vmlinux" "$b/cache/merged/$label.$lv" \
					>"$r/cache-profile/$label$sfx.$lv.txt" 2>&1 || true
			done
		done
	done
	log "cache model: $r/cache.md; misses by function in $r/cache-profile/"
}

# checkpatch_strict TREE PATCH: checkpatch.pl --strict -q's complaints about
# PATCH (nothing when clean), run in kernel TREE, at netdev's 80 columns.
# Debian's python3 runs its SPDX check (python3-ply, python3-git), not
# another python3 earlier in PATH; a traceback there counts as a complaint.
# Two false positives are dropped: the in-body "From: author" line git
# writes for a commit by someone other than the sender is no long
# description line, and a new file under net/sched/ needs no MAINTAINERS
# entry (FILE_PATH_CHANGES): the TC subsystem's entry covers the directory.
#
# The commits the mails name (Fixes:), each checked against public records
# of the upstream history (docs/testing.md, "Fixes for other trees"): the
# Debian trees have no git history, and checkpatch warns of every id it
# cannot look up there. That warning is dropped for these ids only.
FQP_VERIFIED_IDS='65466904b015 39d010504e6b'
checkpatch_strict() {
	ensure_packages perl python3-ply python3-git
	(cd "$1" && PATH=/usr/bin:/bin:$PATH perl scripts/checkpatch.pl --strict -q \
		--max-line-length=80 --ignore FILE_PATH_CHANGES "$2" 2>&1 || true) |
		awk -v RS= -v ids=" $FQP_VERIFIED_IDS " '/^WARNING: Possible unwrapped commit description/ && /\n#[0-9]+: *\nFrom: / {next}
			/^WARNING: Unknown commit id / {
				id = $0; sub(/^WARNING: Unknown commit id .\047?/, "", id)
				if (index(ids, " " substr(id, 1, 12) " ")) next
			}
			/(^|\n)(ERROR|WARNING|CHECK):/ || /Traceback/ {print; print ""}'
}

# --- TAP for the host-side checks (check-series, check-upstream, check-fixes)
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

# --- The sender's identity (From and Signed-off-by of every mail) ---------
# Never invented: it is git's own, user.name/user.email from the global or
# system config, or GIT_AUTHOR_NAME/GIT_AUTHOR_EMAIL in the environment. A
# repository's local config is not read (old authoring repos carry the
# placeholder there). The placeholder the first patches were made with:
FQP_PLACEHOLDER_NAME='fq-pacing developers'
FQP_PLACEHOLDER_EMAIL='fq-pacing@example.org'

# sender_ident: "Name <email>", or nothing when no identity is configured.
sender_ident() {
	local n e
	n=${GIT_AUTHOR_NAME:-$(cd / && git config user.name 2>/dev/null || true)}
	e=${GIT_AUTHOR_EMAIL:-$(cd / && git config user.email 2>/dev/null || true)}
	[ -z "$n" ] || [ -z "$e" ] || printf '%s <%s>\n' "$n" "$e"
}

# ident_problem IDENT: why IDENT cannot sign off and send a patch (nothing
# when it can): unset, the project's placeholder, or a domain reserved for
# examples and tests (RFC 2606/6761), which can neither receive replies nor
# stand for a person under the DCO.
ident_problem() {
	local id=$1 dom
	[ -n "$id" ] || { echo "no identity is configured"; return; }
	[[ $id =~ ^(.+)\ \<([^@<>]+)@([^@<>]+)\>$ ]] || { echo "'$id' is not 'Name <user@domain>'"; return; }
	dom=${BASH_REMATCH[3],,}
	if [ "${BASH_REMATCH[1]}" = "$FQP_PLACEHOLDER_NAME" ] || [ "${BASH_REMATCH[2]}@$dom" = "$FQP_PLACEHOLDER_EMAIL" ]; then
		echo "'$id' is the fq-pacing placeholder identity"
	elif [[ $dom =~ (^|\.)example\.(org|com|net)$ || $dom =~ (^|\.)(example|invalid|test|localhost)$ ]]; then
		echo "'$id' uses the reserved example/test domain $dom"
	fi
}

# require_sender WHAT [--strict]: print the sender's identity. Dies when none
# is configured or it is the placeholder; with --strict also when
# ident_problem objects otherwise (a warning without). WHAT says what needs it.
require_sender() {
	local what=$1 id why
	id=$(sender_ident)
	why=$(ident_problem "$id")
	if [ -n "$why" ]; then
		if [ -z "$id" ] || [[ $why == *placeholder* ]] || [ "${2:-}" = --strict ]; then
			die "$what needs the sender's identity, and $why" \
				"git config --global user.name 'Your Name'; git config --global user.email you@your.domain (or set GIT_AUTHOR_NAME/GIT_AUTHOR_EMAIL), then re-run"
		fi
		warn "$why: fine for a look, but scripts/send-series.sh --send will refuse it"
	fi
	printf '%s\n' "$id"
}

# is_placeholder NAME EMAIL: the project's placeholder identity.
is_placeholder() { [ "$1" = "$FQP_PLACEHOLDER_NAME" ] || [ "${2,,}" = "$FQP_PLACEHOLDER_EMAIL" ]; }

# format_series OUT IDENT FORMAT-PATCH-ARG...: the authoring repo's
# base..HEAD as mails in OUT (cover letter from the base's series dir:
# patches/cover-letter.in, or patches/net-next/cover-letter.in on 7.2),
# From and Signed-off-by the sender IDENT. The branch is not touched: the
# mails are made from a copy of each commit (same tree and dates) whose
# placeholder author becomes IDENT and whose placeholder Signed-off-by is
# replaced by IDENT's; other authors and trailers are kept, and a commit by
# someone else gets an in-body From line (git format-patch --from).
format_series() {
	local out=$1 ident=$2 name email c tip an ae msg
	shift 2
	[[ $ident =~ ^(.+)\ \<(.+)\>$ ]] || die "format_series: bad identity '$ident' (a bug in $0)"
	name=${BASH_REMATCH[1]} email=${BASH_REMATCH[2]}
	local -a ga=(git -C "$FQP_AUTHOR")
	[ -z "$("${ga[@]}" rev-list --merges base..HEAD)" ] ||
		die "the authoring branch has merge commits" "rebase it linearly onto base in $FQP_AUTHOR"
	tip=$("${ga[@]}" rev-parse base)
	while read -r c; do
		an=$("${ga[@]}" log -1 --format=%an "$c") ae=$("${ga[@]}" log -1 --format=%ae "$c")
		! is_placeholder "$an" "$ae" || an=$name ae=$email
		msg=$("${ga[@]}" log -1 --format=%B "$c" |
			grep -viE "^Signed-off-by: *($FQP_PLACEHOLDER_NAME|.*<$FQP_PLACEHOLDER_EMAIL>)" |
			"${ga[@]}" interpret-trailers --if-exists addIfDifferent --trailer "Signed-off-by: $ident")
		tip=$(GIT_AUTHOR_NAME=$an GIT_AUTHOR_EMAIL=$ae \
			GIT_AUTHOR_DATE=$("${ga[@]}" log -1 --format=%ad --date=raw "$c") \
			GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email \
			GIT_COMMITTER_DATE=$("${ga[@]}" log -1 --format=%cd --date=raw "$c") \
			"${ga[@]}" commit-tree -p "$tip" -F - "$c^{tree}" <<<"$msg")
	done < <("${ga[@]}" rev-list --reverse base..HEAD)
	# format-patch takes the cover letter from the description of the branch
	# it formats: a short-lived branch for the copy. The cover letter's From
	# is the committer's: the sender too.
	"${ga[@]}" branch -f fqp-export "$tip"
	"${ga[@]}" config branch.fqp-export.description "$(cat "$FQP_SERIES_DIR/cover-letter.in")"
	GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email "${ga[@]}" format-patch -q \
		--cover-letter --cover-from-description=subject --from="$ident" -o "$out" "$@" base..fqp-export
	"${ga[@]}" branch -q -D fqp-export
	! grep -lF '*** SUBJECT HERE ***' "$out"/*0000-cover-letter.patch ||
		die "the cover letter in $out has no subject" "patches/cover-letter.in: subject line, blank line, body"
}
