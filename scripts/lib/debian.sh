# shellcheck shell=bash
# The Debian archive and the kernel trees taken from it. The base (6.1:
# bookworm's linux-source-6.1; 7.2: sid's linux-source-7.2; 7.3:
# experimental's linux-source-7.3) decides which tree "stock" and
# "patched" mean and where they live (set_base). A tree that is not
# installed as a package is fetched from the machine's own apt mirror
# (apt_mirror, or FQP_MIRROR) and verified as apt verifies: the signed
# InRelease by gpgv, the index by the SHA256 it gives, the .deb by the
# SHA256 in the index. So is the sparse that 7.x's C=1 needs.

# --- The base: which upstream tree "stock" means ------------------------------
# 6.1 (the default): bookworm's linux-source-6.1, the series' base; every
# path scripts/lib.sh sets is 6.1's. 7.3: Debian experimental's
# linux-source-7.3 (a release candidate), the tree nearest to net and
# net-next: the base of the upstream patches (patches/net/, then
# patches/net-next/, then patches/net-next-rfc/, each with its own quilt
# series file), which its
# patched tree carries. 7.2: Debian sid's linux-source-7.2, the newest
# release, the yardstick; its patched tree carries the upstream patches
# too while they still apply there. Each 7.x base's trees and build dirs
# have names of their own (stock-7.3, patched-7.3, build/stock73-*,
# build/patched73-*), so nothing of another base's is touched.
FQP_BASES='6.1 7.2 7.3'
# The base the upstream patches are written against (refresh-patches.sh,
# check-upstream.sh, send-series.sh, CI's upstream stage).
FQP_UPSTREAM_BASE=7.3
export FQP_UPSTREAM_BASE
# Each 7.x base's Debian suite and package.
declare -A FQP_DEBIAN_SUITE=([7.2]=sid [7.3]=experimental)
declare -A FQP_DEBIAN_PACKAGE=([7.2]=linux-source-7.2 [7.3]=linux-source-7.3)

# set_base BASE: select the base for this script and the scripts it runs
# (exported). Status 2 (usage) for an unknown base.
set_base() {
	case $1 in
	6.1)
		FQP_STOCK=$FQP_CACHE/stock FQP_PATCHED=$FQP_CACHE/patched
		QUILT_SERIES=$FQP_ROOT/series FQP_AUTHOR=$FQP_CACHE/authoring
		FQP_SERIES_DIR=$FQP_ROOT/patches
		;;
	7.2 | 7.3)
		FQP_STOCK=$FQP_CACHE/stock-$1 FQP_PATCHED=$FQP_CACHE/patched-$1
		# Written by prepare-tree.sh from the series files (upstream_series).
		QUILT_SERIES=$FQP_CACHE/series-$1 FQP_AUTHOR=$FQP_CACHE/authoring-$1
		# What refresh-patches.sh exports from the authoring repo.
		FQP_SERIES_DIR=$FQP_ROOT/patches/net-next
		;;
	*) echo "unknown base: '$1' (known: $FQP_BASES)" >&2; return 2 ;;
	esac
	FQP_BASE=$1
	export FQP_BASE FQP_STOCK FQP_PATCHED QUILT_SERIES FQP_AUTHOR FQP_SERIES_DIR
}

# base_tag BASE: BASE without its dot, as build dirs and kernel names
# spell it (72, 73); empty for 6.1, whose names are the ones they always
# had.
base_tag() { if [ "$1" != 6.1 ]; then echo "${1/./}"; fi; }

# base_tree TREE: the build-dir name of TREE (stock|patched) on this base:
# 6.1's are the names they always had, 7.x's are stock7x and patched7x.
base_tree() {
	case $1 in
	stock | patched) printf '%s%s\n' "$1" "$(base_tag "$FQP_BASE")" ;;
	*) die "there is no '$1' tree on base $FQP_BASE" "use --tree stock or --tree patched" ;;
	esac
}

# tree_lock: the lock of the base's patched tree (prepare-tree.sh,
# check-upstream.sh and the prefix builds pop and push it).
tree_lock() {
	if [ "$FQP_BASE" = 6.1 ]; then echo "$FQP_CACHE/.tree-lock"; else echo "$FQP_CACHE/.tree-$FQP_BASE-lock"; fi
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
		cat "$FQP_STOCK/.fqp-package" 2>/dev/null || echo "${FQP_DEBIAN_PACKAGE[$FQP_BASE]} ?"
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
			"has $suite moved on to another kernel? set FQP_DEBIAN_PACKAGE in scripts/lib/debian.sh to the linux-source-X.Y it serves"
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

# fetch_base_tree: unpack the base's Debian package (7.2: sid's
# linux-source-7.2, 7.3: experimental's linux-source-7.3) into
# $FQP_STOCK, verified and cached as fetch_debian_tree says;
# FQP_SID_REFRESH (7.2) or FQP_TREE_REFRESH fetches it again.
fetch_base_tree() {
	local refresh=${FQP_TREE_REFRESH:-}
	[ "$FQP_BASE" != 7.2 ] || refresh=${FQP_SID_REFRESH:-$refresh}
	FQP_TREE_REFRESH=$refresh fetch_debian_tree "${FQP_DEBIAN_SUITE[$FQP_BASE]}" \
		"${FQP_DEBIAN_PACKAGE[$FQP_BASE]}" "$FQP_STOCK"
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

# apt_mirror: the Debian mirror every download and debootstrap uses:
# FQP_MIRROR when it is set (the URL of a Debian archive, the directory
# holding dists/ and pool/), else the first URI of this machine's own apt
# sources that is not the security archive (deb822 .sources first, then
# the one-line .list files).
apt_mirror() {
	local m
	if [ -n "${FQP_MIRROR:-}" ]; then
		printf '%s\n' "${FQP_MIRROR%/}"
		return 0
	fi
	m=$(awk '/^URIs:/ {for (i = 2; i <= NF; i++) print $i}' \
		/etc/apt/sources.list.d/*.sources 2>/dev/null |
		grep -v -- '-security' | head -n 1 || true)
	if [ -z "$m" ]; then
		m=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
			awk '$1 == "deb" && $0 !~ /security/ {for (i = 2; i <= NF; i++) if ($i ~ /:\/\//) {print $i; exit}}' || true)
	fi
	[ -n "$m" ] || die "no Debian mirror in /etc/apt/sources.list or /etc/apt/sources.list.d/" \
		"configure apt with a Debian mirror, or set FQP_MIRROR to one (the URL of the directory holding dists/ and pool/)"
	printf '%s\n' "${m%/}"
}
