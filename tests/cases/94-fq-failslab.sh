# shellcheck shell=bash
# Allocation failures under load, debug kernel only (it alone
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
# The flow table's allocation in change() (table_alloc_failure): a
# kvmalloc, which falls back to vmalloc when kmalloc fails, except at up
# to a page: buckets 512 is a 4 KB table, from kmalloc-4k, which the
# debug boot flags for failslab too. Only the request fails: nlfuzz
# --fail-change sets its own make-it-fail around that one netlink request
# (task-filter), and every kmalloc-4k allocation made for it fails,
# sleeping or not (tc cannot be used: its link dump before the request
# takes kmalloc-4k too). The change must fail with ENOMEM and change
# nothing, traffic must go on and add up, and the same change must
# then succeed and keep every flow. The flow case marks pktgen's thread
# alone, so the flagged kmalloc-4k fails nowhere else either.
# The throttled set (wheel_alloc_failure): the series' timing wheel, a
# kmalloc-8k object, is allocated when a flow first has to wait, in
# dequeue (GFP_ATOMIC). With that allocation failing, a packet that would
# wait goes at once and counts an allocation error; nothing is held or
# lost, the counters reconcile, and with failures off the same qdisc gets
# its wheel and paces again. Stock 6.1 and 7.2 allocate nothing there.
# shellcheck source=tests/lib-pktgen.sh
. "$T/lib-pktgen.sh"
# shellcheck source=tests/lib-fq.sh
. "$T/lib-fq.sh"
CASE_TIMEOUT=120

FS_FLOWS=20000
FS=/sys/kernel/debug/failslab
FS_CACHE=/sys/kernel/slab/fq_flow_cache/failslab
FS_TABLE_CACHE=/sys/kernel/slab/kmalloc-4k/failslab
FS_WHEEL_CACHE=/sys/kernel/slab/kmalloc-8k/failslab
FS_WHEEL_PKTS=200

# fs_set KEY=VALUE...: failslab's debugfs attributes.
fs_set() {
	local kv
	for kv in "$@"; do
		echo "${kv#*=}" >"$FS/${kv%%=*}" || fail "failslab: cannot set ${kv%%=*} to ${kv#*=}"
	done
}

# fs_off: failures off (also on the way out of a failed case), and no
# task marked.
fs_off() {
	local p
	echo 0 >"$FS/probability" 2>/dev/null || true
	for p in /proc/[0-9]*/make-it-fail; do
		[ "$(cat "$p" 2>/dev/null)" != 1 ] || echo 0 >"$p" 2>/dev/null || true
	done
}

# fs_flagged FILE WHAT: the cache behind FILE has its failslab flag.
fs_flagged() {
	[ -e "$1" ] || fail "no $1 ($2 merged or absent)"
	[ "$(cat "$1")" = 1 ] ||
		fail "$2 is not flagged for failslab (boot-and-test.sh boots the debug kernel with slub_debug=A,fq_flow_cache,kmalloc-4k,kmalloc-8k)"
}

# pg_thread_fails: only pktgen's thread (kpktgend_0, where its
# queue_xmit enqueues into fq) may see failures.
pg_thread_fails() {
	local pid
	pid=$(pgrep -x kpktgend_0) || fail "no kpktgend_0 thread"
	echo 1 >"/proc/$pid/make-it-fail" || fail "cannot mark kpktgend_0 (/proc/$pid/make-it-fail)"
}

# fs_run SRC_BASE: FS_FLOWS packets, one per new 4-tuple (sources from
# SRC_BASE), through pg0's fq; waits for pktgen.
fs_run() {
	pg_config "$FS_FLOWS" 64 "$FS_FLOWS"
	pg_write "$PG/$PG_DEV" "src_min 198.19.$1.1"
	pg_write "$PG/$PG_DEV" "src_max 198.19.$1.$(pg_tuples "$FS_FLOWS" | awk '{print $2}')"
	pg_start
	pg_wait
}

# failslab fails 30 % of fq_flow_cache allocations in pktgen's thread
# while it offers 20000 new flows: every failure is counted in
# allocation_errors, flows made + errors account for every tuple,
# pktgen's accepted + refused = fq sent + dropped + queued and the device
# sent what fq sent; with failures off the same fq makes 20000 flows and
# no error; after `tc qdisc del` the slab is back to its baseline.
t_flow_alloc_failures() {
	local st=$R/data/fs.stats slab0 e1 e2 f1 f2 m1 m2 acc ref sent dropped qlen tx
	[ -d "$FS" ] || fail "no $FS: the debug config must set CONFIG_FAILSLAB and CONFIG_FAULT_INJECTION_DEBUG_FS"
	trap fs_off EXIT
	trap 'exit 1' TERM # run.sh's timeout: still switch the failures off
	# maxrate far above pktgen's rate: packets take the flow path, not the
	# fast path (which makes no flows).
	pg_setup fq orphan_mask 16777215 maxrate 30gbit limit 100000
	fs_flagged "$FS_CACHE" fq_flow_cache
	read -r slab0 _ _ < <(slab_bytes fq_flow_cache)
	fs_set cache-filter=Y task-filter=Y ignore-gfp-wait=Y times=-1 interval=1 verbose=0 space=0
	pg_thread_fails
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

# The bucket table's allocation fails in change() (512 buckets: a
# kmalloc-4k table, every such allocation of that request failing): the
# change answers ENOMEM and changes nothing (64 buckets, flows + gc
# unchanged), the next 20000 flows pass and add up, and the same change
# with failures off succeeds and keeps every flow.
t_table_alloc_failure() {
	local st=$R/data/fs-table.stats out rc f0 f1 m1 acc ref sent dropped qlen tx
	[ -d "$FS" ] || fail "no $FS: the debug config must set CONFIG_FAILSLAB and CONFIG_FAULT_INJECTION_DEBUG_FS"
	trap fs_off EXIT
	trap 'exit 1' TERM
	fs_flagged "$FS_TABLE_CACHE" kmalloc-4k
	# 64 buckets (a 512-byte table) holding 20000 flows.
	pg_setup fq orphan_mask 16777215 maxrate 30gbit limit 100000 buckets 64
	fs_run 1
	# gc (64 buckets: past 128 flows) frees flows idle for 3 s while a
	# KASAN pktgen still sends: flows made = flows + gc.
	fq_stats "$PG_DEV" >"$st"
	f0=$(($(kv "$st" flows) + $(kv "$st" gc)))
	[ "$f0" -gt $((FS_FLOWS * 98 / 100)) ] || fail "only $f0 flows made of $FS_FLOWS tuples before the resize"
	fs_set cache-filter=Y task-filter=Y ignore-gfp-wait=N times=-1 interval=1 verbose=0 space=0
	fs_set probability=100
	# nlfuzz marks itself for this one request only: tc's own link dump
	# before its request takes kmalloc-4k too (ENOBUFS, not fq's answer).
	rc=0
	out=$("$BIN/nlfuzz" --dev "$PG_DEV" --fail-change 9 2>&1) || rc=$?
	fs_off
	say "change to 512 buckets with kmalloc-4k failing for the request: exit $rc: $out"
	[ "$rc" = 0 ] || fail "nlfuzz --fail-change got no answer: $out"
	[[ $out == *"answer=-ENOMEM"* ]] || fail "the change did not answer ENOMEM: $out"
	tc qdisc show dev "$PG_DEV" | grep -q ' buckets 64 ' ||
		fail "the failed change altered the qdisc: $(tc qdisc show dev "$PG_DEV")"
	fq_stats "$PG_DEV" >"$st"
	[ $(($(kv "$st" flows) + $(kv "$st" gc))) = "$f0" ] ||
		fail "flows + gc moved from $f0 to $(($(kv "$st" flows) + $(kv "$st" gc))) in a failed change"
	# Traffic goes on, and adds up (pktgen counts its run, fq and the
	# device since the qdisc was made: their growth over the run).
	sent=$(kv "$st" sent) dropped=$(kv "$st" dropped) tx=$(pg_txpkts)
	fs_run 101
	fq_stats "$PG_DEV" >"$st"
	f1=$(kv "$st" flows)
	read -r acc ref < <(pg_counts "$PG/$PG_DEV")
	sent=$(($(kv "$st" sent) - sent)) dropped=$(($(kv "$st" dropped) - dropped)) qlen=$(kv "$st" qlen)
	tx=$(($(pg_txpkts) - tx))
	say "after the failure: $f1 flows; pktgen accepted $acc refused $ref; over that run fq sent $sent dropped $dropped, queued $qlen; dummy tx $tx"
	[ $((acc + ref)) = $((sent + dropped + qlen)) ] ||
		fail "offered $((acc + ref)) != fq sent $sent + dropped $dropped + queued $qlen"
	[ "$tx" = "$sent" ] || fail "the device sent $tx, fq counts $sent"
	[ "$(fqsv "$("$BIN/fqstats" "$PG_DEV")" allocation_errors)" = 0 ] ||
		fail "flow allocations failed although only tc was marked"
	# Failures off: the same change succeeds and keeps every flow.
	tc qdisc change dev "$PG_DEV" root fq buckets 512 || fail "the change to 512 buckets failed with failures off"
	tc qdisc show dev "$PG_DEV" | grep -q ' buckets 512 ' ||
		fail "512 buckets not in the dump: $(tc qdisc show dev "$PG_DEV")"
	# The rehash frees flows past the gc age and counts them as gc: with no
	# packet in between, flows + gc stays what it was.
	m1=$((f1 + $(kv "$st" gc)))
	fq_stats "$PG_DEV" >"$st"
	say "512 buckets: $(kv "$st" flows) flows, gc $(kv "$st" gc) (before: $f1 flows, flows + gc $m1)"
	[ $(($(kv "$st" flows) + $(kv "$st" gc))) = "$m1" ] ||
		fail "the resize lost flows: $(kv "$st" flows) + gc $(kv "$st" gc) != $m1"
	tc qdisc del dev "$PG_DEV" root
}

# fs_pg_drained: pg0's fq holds nothing, within 30 s (scaled).
fs_pg_drained() {
	local end=$(($(date +%s) + 30 * ${FQP_TIMEOUT_SCALE:-1}))
	while [ "$(fqsv "$("$BIN/fqstats" "$PG_DEV")" qlen)" != 0 ]; do
		[ "$(date +%s)" -le "$end" ] || fail "pg0's fq still holds packets: $("$BIN/fqstats" "$PG_DEV" | tr '\n' ' ')"
		sleep 0.2
	done
}

# fs_pg_reconciles WHAT: what pktgen offered in its last run (accepted +
# refused) is what fq sent, dropped and holds beyond BASE (its sent +
# dropped before the run), and the device sent what fq sent.
fs_pg_reconciles() {
	local st acc ref sent dropped qlen tx
	st=$("$BIN/fqstats" "$PG_DEV")
	read -r acc ref < <(pg_counts "$PG/$PG_DEV")
	sent=$(fqsv "$st" packets) dropped=$(fqsv "$st" drops) qlen=$(fqsv "$st" qlen)
	tx=$(pg_txpkts)
	say "$1: pktgen accepted $acc refused $ref; fq sent $sent dropped $dropped queued $qlen (before: $2); dummy tx $tx"
	[ $((acc + ref)) = $((sent + dropped + qlen - $2)) ] ||
		fail "$1: offered $((acc + ref)) != fq sent $sent + dropped $dropped + queued $qlen - $2 before"
	[ "$tx" = "$sent" ] || fail "$1: the device sent $tx, fq counts $sent"
}

# One flow at maxrate 512kbit (every packet waits) while every
# kmalloc-8k allocation of pktgen's thread fails: on the series each
# packet that would have waited is sent at once and counted in
# allocation_errors, nothing is throttled, and the books close; with
# failures off the same qdisc gets its wheel and paces again. Stock
# kernels allocate their throttled set with the qdisc: no error there.
t_wheel_alloc_failure() {
	local st e1 e2 t1 t2 lazy=1 before
	[ -d "$FS" ] || fail "no $FS: the debug config must set CONFIG_FAILSLAB and CONFIG_FAULT_INJECTION_DEBUG_FS"
	trap fs_off EXIT
	trap 'exit 1' TERM
	fs_flagged "$FS_WHEEL_CACHE" kmalloc-8k
	! kernel_is stock61 stock72 || lazy=0
	# One flow at a maxrate under low_rate_threshold: a 1 ms wait after
	# every packet.
	pg_setup fq maxrate 512kbit
	pg_config 1 64 "$FS_WHEEL_PKTS"
	fs_set cache-filter=Y task-filter=Y ignore-gfp-wait=Y times=-1 interval=1 verbose=0 space=0
	pg_thread_fails
	fs_set probability=100
	pg_start
	pg_wait
	fs_off
	fs_pg_drained
	fs_pg_reconciles "failing" 0
	st=$("$BIN/fqstats" "$PG_DEV")
	e1=$(fqsv "$st" allocation_errors) t1=$(fqsv "$st" throttled)
	before=$(($(fqsv "$st" packets) + $(fqsv "$st" drops)))
	say "wheel allocation failing: $FS_WHEEL_PKTS packets, allocation_errors $e1, throttled $t1"
	if [ "$lazy" = 1 ]; then
		# Every packet after the first would have waited.
		[ "$e1" -ge $((FS_WHEEL_PKTS / 2)) ] ||
			fail "only $e1 allocation errors counted for $FS_WHEEL_PKTS packets that had to wait"
		[ "$t1" = 0 ] || fail "$t1 flows throttled with no wheel to throttle them in"
	else
		kernel_note "no allocation when a flow waits: its throttled set is allocated with the qdisc"
		[ "$e1" = 0 ] || fail "$e1 allocation errors: nothing of fq's is allocated when a flow waits here"
		[ "$t1" -gt 0 ] || fail "nothing throttled at maxrate 512kbit"
	fi
	# Failures off: the same qdisc gets its wheel and paces again.
	pg_config 1 64 "$FS_WHEEL_PKTS"
	pg_start
	pg_wait
	fs_pg_drained
	fs_pg_reconciles "failures off" "$before"
	st=$("$BIN/fqstats" "$PG_DEV")
	e2=$(fqsv "$st" allocation_errors) t2=$(fqsv "$st" throttled)
	say "failures off: $FS_WHEEL_PKTS more packets, allocation_errors $e2, throttled $t2"
	[ "$e2" = "$e1" ] || fail "allocation_errors grew from $e1 to $e2 with failures off"
	[ "$t2" -gt $((t1 + FS_WHEEL_PKTS / 2)) ] ||
		fail "throttled grew from $t1 to $t2 only: the qdisc did not pace again"
	tc qdisc del dev "$PG_DEV" root
}
