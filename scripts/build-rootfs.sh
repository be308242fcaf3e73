#!/usr/bin/env bash
# Build the guest's root filesystem: debootstrap minbase bookworm plus the
# packages in rootfs/packages and the files in rootfs/, packed into an ext4
# image with mke2fs -d (no loop mount). The image is cached by a hash of
# its inputs, and a half-made image is never reused.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

case ${1:-} in
"") ;;
--print-path) ;;
*) echo "usage: $0 [--print-path]" >&2; exit 2 ;;
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
run_logged "$FQP_CACHE/logs/debootstrap.log" "debootstrap bookworm (minbase + $pkgs)" \
	debootstrap --variant=minbase --include="$pkgs" bookworm "$dir" "$mirror"

install -m 0755 "$FQP_ROOT/rootfs/init" "$dir/sbin/fqp-init"
echo fqp-guest >"$dir/etc/hostname"
printf '/dev/vda / ext4 rw 0 1\n' >"$dir/etc/fstab"
rm -rf "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/*

size_mb=$(($(du -sm "$dir" | cut -f1) + 400))
run_logged "$FQP_CACHE/logs/mke2fs.log" "packing ${size_mb} MiB ext4 image" \
	mke2fs -q -F -t ext4 -L fqproot -d "$dir" "$img.tmp" "${size_mb}M"
mv "$img.tmp" "$img"
rm -rf "$dir"
# Older images are dead weight once their inputs changed.
find "$FQP_IMAGES" -maxdepth 1 -name 'rootfs-*.ext4' ! -path "$img" -delete
log "rootfs image: $img"
