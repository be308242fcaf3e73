# shellcheck shell=bash
# Allocation failures under load (issue 15), debug kernel only (it alone
# has CONFIG_FAILSLAB and debugfs; scripts/test.sh leaves the case out of
# the test-kernel runs). failslab aimed at fq_flow_cache alone
# (cache-filter, and the cache's failslab flag, which since 5.14 only the
# boot line can set: slub_debug=A,fq_flow_cache on the debug boot) fails a share of the flow allocations while pktgen offers
# FS_FLOWS new flows. Then:
# - every failure is counted in allocation_errors, and its packet is still
#   sent or dropped and counted: pktgen's accepted + refused = fq sent +
#   dropped + queued, and the device sent what fq sent;
# - with failures off, the same fq makes new flows again and counts no new
#   allocation error;
# - after `tc qdisc del` the flows are freed: the slab holds no more
#   objects than before the qdisc (and run.sh's kmemleak scan at the end
#   of the run fails it on a leak from fq code).
# gc reclaims flows idle for 3 s while a slow KASAN pktgen still runs, so
# "flows made" is flows + gc.
# The flow table's allocation in change() is not covered: it is a
# GFP_KERNEL kvmalloc, which failslab does not reach and fail_page_alloc
# could only hit together with the page faults of the tc process itself.
# shellcheck source=tests/lib-pktgen.sh
. "$T/lib-pktgen.sh"
# shellcheck source=tests/lib-fq.sh
. "$T/lib-fq.sh"
CASE_TIMEOUT=120

FS_FLOWS=20000
FS=/sys/kernel/debug/failslab
FS_CACHE=/sys/kernel/slab/fq_flow_cache/failslab

# fs_set KEY=VALUE...: failslab's debugfs attributes.
fs_set() {
	local kv
	for kv in "$@"; do
		echo "${kv#*=}" >"$FS/${kv%%=*}" || fail "failslab: cannot set ${kv%%=*} to ${kv#*=}"
	done
}

# fs_off: failures off (also on the way out of a failed case).
fs_off() { echo 0 >"$FS/probability" 2>/dev/null || true; }

# fs_run SRC_BASE: FS_FLOWS packets, one per new 4-tuple (sources from
# SRC_BASE), through pg0's fq; waits for pktgen.
fs_run() {
	pg_config "$FS_FLOWS" 64 "$FS_FLOWS"
	pg_write "$PG/$PG_DEV" "src_min 198.19.$1.1"
	pg_write "$PG/$PG_DEV" "src_max 198.19.$1.$(pg_tuples "$FS_FLOWS" | awk '{print $2}')"
	pg_start
	pg_wait
}

t_flow_alloc_failures() {
	local st=$R/data/fs.stats slab0 e1 e2 f1 f2 m1 m2 acc ref sent dropped qlen tx
	[ -d "$FS" ] || fail "no $FS: the debug config must set CONFIG_FAILSLAB and CONFIG_FAULT_INJECTION_DEBUG_FS"
	trap fs_off EXIT
	trap 'exit 1' TERM # run.sh's timeout: still switch the failures off
	# maxrate far above pktgen's rate: packets take the flow path, not the
	# fast path (which makes no flows).
	pg_setup fq orphan_mask 16777215 maxrate 30gbit limit 100000
	[ -e "$FS_CACHE" ] || fail "no $FS_CACHE (fq_flow_cache merged or absent)"
	read -r slab0 _ _ < <(slab_bytes fq_flow_cache)
	[ "$(cat "$FS_CACHE")" = 1 ] ||
		fail "fq_flow_cache is not flagged for failslab (boot-and-test.sh boots the debug kernel with slub_debug=A,fq_flow_cache)"
	fs_set cache-filter=Y ignore-gfp-wait=Y times=-1 interval=1 verbose=0 space=0
	fs_set probability=30
	fs_run 1
	fs_off
	fq_stats "$PG_DEV" >"$st"
	cat "$st"
	e1=$(fqsv "$("$BIN/fqstats" "$PG_DEV")" allocation_errors)
	f1=$(kv "$st" flows)
	m1=$((f1 + $(kv "$st" gc)))
	read -r acc ref < <(pg_counts "$PG/$PG_DEV")
	sent=$(kv "$st" sent) dropped=$(kv "$st" dropped) qlen=$(kv "$st" qlen)
	tx=$(pg_txpkts)
	say "failslab 30 %: $FS_FLOWS new flows offered, $m1 made, allocation_errors $e1;" \
		"pktgen accepted $acc refused $ref; fq sent $sent dropped $dropped queued $qlen; dummy tx $tx"
	[ "$e1" -gt $((FS_FLOWS / 10)) ] || fail "only $e1 allocation errors counted for ~30 % of $FS_FLOWS flow allocations failed"
	# Each tuple's one packet made a flow or counted an error (a few
	# tuples share an orphan hash slot).
	[ $((m1 + e1)) -le "$FS_FLOWS" ] && [ $((m1 + e1)) -ge $((FS_FLOWS * 98 / 100)) ] ||
		fail "flows made $m1 + allocation errors $e1 do not account for the $FS_FLOWS tuples"
	[ $((acc + ref)) = $((sent + dropped + qlen)) ] ||
		fail "offered $((acc + ref)) != fq sent $sent + dropped $dropped + queued $qlen"
	[ "$tx" = "$sent" ] || fail "the device sent $tx, fq counts $sent"
	# Failures off: the same qdisc makes flows again, no new error.
	fs_run 101
	fq_stats "$PG_DEV" >"$st"
	e2=$(fqsv "$("$BIN/fqstats" "$PG_DEV")" allocation_errors)
	f2=$(kv "$st" flows)
	m2=$((f2 + $(kv "$st" gc) - m1))
	say "failslab off: $FS_FLOWS more flows offered, $m2 made, allocation_errors $e2"
	[ "$e2" = "$e1" ] || fail "allocation_errors grew from $e1 to $e2 with failures off"
	[ "$m2" -ge $((FS_FLOWS * 98 / 100)) ] || fail "the fq made only $m2 of $FS_FLOWS new flows after the failures"
	tc qdisc del dev "$PG_DEV" root
	echo 1 >/sys/kernel/slab/fq_flow_cache/shrink 2>/dev/null || true
	read -r e1 _ _ < <(slab_bytes fq_flow_cache)
	say "fq_flow_cache objects: $slab0 before the qdisc, $e1 after its deletion"
	[ "$e1" -le "$slab0" ] || fail "fq_flow_cache holds $e1 objects after the delete, $slab0 before"
}
