#!/usr/bin/env bash
# Build the guest's root filesystem: debootstrap minbase bookworm plus the
# packages in rootfs/packages and the files in rootfs/, packed into an ext4
# image with mke2fs -d (no loop mount). Beside it, in /opt/trixie, a minbase
# trixie with its iproute2: the guest's tc-trixie runs that tc, which knows
# fq's newer attributes (bands, priomap, weights) that bookworm's does not.
# The image is cached by a hash of its inputs, and a half-made image is
# never reused.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<USAGE
usage: $0 [--print-path]
  --print-path  print the image's path (\$FQP_IMAGES/rootfs-<hash>.ext4) and exit
Builds the image when the one for the current rootfs/ is missing.
USAGE
}
case ${1:-} in
--print-path) ;;
*) no_options "$@" ;;
esac

rootfs_hash() {
	(cd "$FQP_ROOT" && find rootfs scripts/build-rootfs.sh -type f -print0 | sort -z |
		xargs -0 sha256sum) | sha256sum | cut -c1-16
}
img=$FQP_IMAGES/rootfs-$(rootfs_hash).ext4
if [ "${1:-}" = --print-path ]; then
	echo "$img"
	exit 0
fi
if [ -f "$img" ]; then
	log "rootfs image is up to date: $img"
	exit 0
fi

need_root "debootstrap"
ensure_packages debootstrap e2fsprogs
mkdir -p "$FQP_IMAGES" "$FQP_CACHE/logs"
with_lock "$FQP_IMAGES/.fqp-lock"
# Another run may have built it while we waited for the lock.
if [ -f "$img" ]; then
	log "rootfs image is up to date: $img"
	exit 0
fi
mirror=$(apt_mirror)
pkgs=$(grep -vE '^[[:space:]]*(#|$)' "$FQP_ROOT/rootfs/packages" | paste -sd, -)
dir=$FQP_IMAGES/rootfs.tmp
# An interrupted debootstrap leaves proc/sys mounted in its target: unmount
# them (deepest first) before anything is removed.
unmount_under() {
	local m
	{ findmnt -n -R -o TARGET --list "$1" 2>/dev/null || true; } | sort -r | while read -r m; do
		umount -l "$m" || true
	done
}
unmount_under "$dir"
rm -rf "$dir" "$img.tmp"
trap 'unmount_under "$dir"' EXIT
# bootstrap SUITE TARGET PACKAGES: minbase SUITE plus PACKAGES (comma
# separated) into TARGET, from this machine's mirror.
bootstrap() {
	run_logged "$FQP_CACHE/logs/debootstrap-$1.log" "debootstrap $1 (minbase + $3)" \
		debootstrap --variant=minbase --include="$3" "$1" "$2" "$mirror"
}
# trim TREE: what the guest never reads. Docs, man pages and message
# catalogs (the guest runs in C.UTF-8), apt's package lists and caches (a
# guest without network runs no apt).
trim() {
	rm -rf "$1"/usr/share/doc/* "$1"/usr/share/man/* "$1"/usr/share/info/* \
		"$1"/usr/share/locale/* "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*
}
bootstrap bookworm "$dir" "$pkgs"
# trixie in /opt/trixie, for rootfs/tc-trixie only: nothing else in the
# guest runs it or puts it in PATH. Its own loader and libraries are
# separate from bookworm's (merged /usr, lib64/ld-linux-x86-64.so.2).
bootstrap trixie "$dir/opt/trixie" iproute2
trim "$dir/opt/trixie"
trim "$dir"

install -m 0755 "$FQP_ROOT/rootfs/init" "$dir/sbin/fqp-init"
install -m 0755 "$FQP_ROOT/rootfs/tc-trixie" "$dir/usr/local/sbin/tc-trixie"
echo fqp-guest >"$dir/etc/hostname"
printf '/dev/vda / ext4 rw 0 1\n' >"$dir/etc/fstab"

size_mb=$(($(du -sm "$dir" | cut -f1) + 400))
run_logged "$FQP_CACHE/logs/mke2fs.log" "packing ${size_mb} MiB ext4 image" \
	mke2fs -q -F -t ext4 -L fqproot -d "$dir" "$img.tmp" "${size_mb}M"
mv "$img.tmp" "$img"
rm -rf "$dir"
# Older images are dead weight once their inputs changed.
find "$FQP_IMAGES" -maxdepth 1 -name 'rootfs-*.ext4' ! -path "$img" -delete
log "rootfs image: $img"
