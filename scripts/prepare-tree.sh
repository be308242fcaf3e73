#!/usr/bin/env bash
# Unpack linux-source-6.1 into a pristine tree and a patched tree, and apply
# the series to the patched one with quilt. With --base 7.3 (or 7.2): fetch
# and unpack experimental's linux-source-7.3 (sid's linux-source-7.2;
# fetch_base_tree, scripts/lib/debian.sh), and apply the upstream patches
# (patches/net/, then patches/net-next/, then patches/net-next-rfc/) to its
# patched copy the same way. Re-running after a patch changed
# pops the old series and pushes the new one; if that cannot work it
# re-copies the tree and wipes the patched build dirs so nothing stale stays.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<USAGE
usage: $0 [--base 6.1|7.2|7.3] [--force] [--stock-only]
  --base        which upstream tree (default \$FQP_BASE or 6.1): 6.1 unpacks
                bookworm's linux-source-6.1, 7.2 fetches sid's linux-source-7.2,
                7.3 experimental's linux-source-7.3
  --force       start again from a fresh copy of the stock tree
  --stock-only  prepare only the stock tree
Trees: \$FQP_CACHE/stock and \$FQP_CACHE/patched (7.x: stock-7.x, patched-7.x).
USAGE
}
force=0 stock_only=0
while [ $# -gt 0 ]; do
	case $1 in
	--force) force=1 ;;
	--stock-only) stock_only=1 ;;
	--base) set_base "${2:-}" || usage_error; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage_error "unknown option: $1" ;;
	esac
	shift
done

ensure_packages quilt xz-utils

unpack_stock() {
	if [ "$FQP_BASE" != 6.1 ]; then
		fetch_base_tree
		return 0
	fi
	ensure_packages linux-source-6.1
	[ -f "$FQP_STOCK/.fqp-unpacked" ] && return 0
	[ -f "$FQP_TARBALL" ] || die "$FQP_TARBALL is missing" "apt-get install linux-source-6.1"
	rm -rf "$FQP_STOCK" "$FQP_STOCK.tmp"
	mkdir -p "$FQP_STOCK.tmp"
	run_logged "$FQP_CACHE/logs/unpack.log" "unpacking $(basename "$FQP_TARBALL")" \
		tar -C "$FQP_STOCK.tmp" --strip-components=1 -xf "$FQP_TARBALL"
	touch "$FQP_STOCK.tmp/.fqp-unpacked"
	mv "$FQP_STOCK.tmp" "$FQP_STOCK"
}

fresh_copy() {
	log "copying the pristine tree to $FQP_PATCHED"
	rm -rf "$FQP_PATCHED" "$FQP_BUILD/$(base_tree patched)"-*
	# The tree's contents, not the path: a stock tree shared from another
	# cache dir by a symlink would otherwise be copied as the symlink, and
	# quilt would patch the shared pristine tree through it.
	mkdir -p "$FQP_PATCHED"
	cp -a "$FQP_STOCK/." "$FQP_PATCHED/"
	rm -f "$FQP_PATCHED/.fqp-series"
}

pop_old_series() {
	quilt_pop_all "$FQP_PATCHED" || {
		warn "quilt pop failed (log: $FQP_CACHE/logs/quilt-pop.log); starting from a fresh copy"
		fresh_copy
	}
}

mkdir -p "$FQP_CACHE/logs"
with_lock "$(tree_lock)"
unpack_stock
if [ "$stock_only" = 1 ]; then
	log "stock $(base_package) tree ready: $FQP_STOCK"
	exit 0
fi
# A 7.x tree's quilt series is the upstream series files in order.
[ "$FQP_BASE" = 6.1 ] || upstream_series >"$QUILT_SERIES"
[ -n "$(series_patches)" ] || die "no patches for base $FQP_BASE" "write the series first (patches/net-next/series)"
want=$(series_hash)
if [ "$force" = 1 ] || [ ! -f "$FQP_PATCHED/.fqp-unpacked" ]; then
	fresh_copy
elif [ "$(cat "$FQP_PATCHED/.fqp-series" 2>/dev/null)" = "$want" ]; then
	# Under the tree's lock, a patch left unapplied is a prefix build
	# (scripts/lib.sh build_upstream_prefix) that was stopped mid-way.
	if [ -n "$(cd "$FQP_PATCHED" && quilt unapplied 2>/dev/null)" ]; then
		log "patched tree was left at a prefix of the series: pushing the rest"
		(cd "$FQP_PATCHED" && quilt push -q -a) >"$FQP_CACHE/logs/quilt-push.log" 2>&1 ||
			die "quilt push -a failed in $FQP_PATCHED (log: $FQP_CACHE/logs/quilt-push.log)" "re-run scripts/prepare-tree.sh --force"
		quilt_touch "$FQP_PATCHED"
	fi
	log "patched tree is up to date with the series ($want)"
	exit 0
else
	log "series changed: re-applying"
	pop_old_series
fi

rm -f "$FQP_PATCHED/.fqp-series"
qlog=$FQP_CACHE/logs/quilt-push.log
log "quilt push -a ($(series_patches | wc -l) patches)"
if ! (cd "$FQP_PATCHED" && quilt push -a) >"$qlog" 2>&1; then
	cat "$qlog" >&2
	failed=$(cd "$FQP_PATCHED" && quilt next 2>/dev/null || echo '?')
	die "quilt push -a failed at patch $(basename "$failed") (log: $qlog)" \
		"regenerate the series with scripts/refresh-patches.sh, then re-run"
fi
grep -E '^Applying patch' "$qlog" | sed 's/^/  /' >&2 || true
echo "$want" >"$FQP_PATCHED/.fqp-series"
log "patched tree ready: $FQP_PATCHED"
