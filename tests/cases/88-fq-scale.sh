# shellcheck shell=bash
# fq at scale: 1,000,016 distinct flows (pktgen, one packet per UDP 4-tuple,
# 16 source addresses x 62501 source ports) through one fq on a dummy
# device, in a 2 GiB guest. Checks: nothing hangs (pktgen finishes within
# the case's budget), no OOM, memory per flow from /proc/slabinfo, the
# counters reconcile (pktgen's count = fq sent + dropped, queue empty, the
# device transmitted what fq sent), and after 3 s of silence 100000 new
# flows make gc reclaim stale flows so that the table does not grow, and
# the fq_flow slab is back to its baseline once the qdisc is deleted.
#
# How many flows fq holds at once is set by its gc, not by the offered
# count: a flow idle for 3 s is reclaimed by later lookups once flows >=
# 2 * buckets. At the few 100k packets/s of a TCG guest the table therefore
# peaks near 3 s worth of new flows; the case reports that peak.
CASE_TIMEOUT=400
# shellcheck source=tests/lib-pktgen.sh
. "$T/lib-pktgen.sh"
# shellcheck source=tests/lib-fq.sh
. "$T/lib-fq.sh"

SCALE_FLOWS=1000000
# A KASAN guest under TCG sends ~2000 packets/s: 1M flows took 9.5 of the
# debug run's 40 minutes. 300k still fill the table past the 131072 flows
# where gc starts, which is what the debug kernel is there to watch.
[ "${FQP_CONFIG:-}" != debug ] || SCALE_FLOWS=300000
# 2^16 buckets: gc starts at 131072 flows; 2^24 orphan mask: 4-tuples stay
# apart (about 3% of them share a hash slot).
# maxrate, far above pktgen's rate, keeps the packets off the fast path of
# our series (an idle fq sends unpaced packets without making flows).
SCALE_ARGS=(fq buckets 65536 orphan_mask 16777215 limit 100000 maxrate 30gbit)

# 1,000,016 one-packet UDP 4-tuples from pktgen through one fq (buckets
# 65536, orphan_mask 2^24-1) on a dummy: pktgen finishes, no OOM,
# pktgen's count = fq sent + dropped = the device's tx_packets, the table
# peaks above 100000 flows (on 7.2, above the last 3 s of flows), objects
# of 96 B on the series and 128 B on stock, bytes per flow at the peak
# within 1-1.25 x the object (1.5 x on a debug kernel); after 4 s of
# silence 100000 new flows make gc reclaim more than 100000 stale ones;
# after `tc qdisc del` the slab is back to its baseline.
t_million_flows() {
	local p a count st=$R/data/scale.stats slab0 bytes0 flows peak=0 peak_bytes=0 \
		bytes avail0 avail_min m t0 sent dropped tx gc0 gc1 idle back bpf osz limit \
		bar secs peak_gc=0 slack
	read -r p a < <(pg_tuples "$SCALE_FLOWS")
	count=$((p * a))
	say "offering $count packets, one per distinct 4-tuple ($a addresses x $p ports)"
	pg_setup "${SCALE_ARGS[@]}"
	echo 1 >/sys/kernel/slab/fq_flow_cache/shrink 2>/dev/null || true
	read -r slab0 _ bytes0 < <(slab_bytes fq_flow_cache)
	avail0=$(awk '$1 == "MemAvailable:" {print $2}' /proc/meminfo)
	avail_min=$avail0
	pg_config "$SCALE_FLOWS" 64 "$count"
	t0=$(date +%s)
	pg_start
	# Sample the table while pktgen runs: the peak is what memory must hold.
	while kill -0 "$PG_PID" 2>/dev/null; do
		if [ $(($(date +%s) - t0)) -gt $(((CASE_TIMEOUT - 100) * ${FQP_TIMEOUT_SCALE:-1})) ]; then
			pg_stop
			fail "pktgen still running after $(($(date +%s) - t0)) s: fq stopped making progress?"
		fi
		fq_stats "$PG_DEV" >"$st"
		flows=$(kv "$st" flows)
		read -r _ _ bytes < <(slab_bytes fq_flow_cache)
		if [ "$flows" -gt "$peak" ]; then peak=$flows peak_bytes=$bytes peak_gc=$(kv "$st" gc); fi
		m=$(awk '$1 == "MemAvailable:" {print $2}' /proc/meminfo)
		[ "$m" -ge "$avail_min" ] || avail_min=$m
		sleep 1
	done
	pg_wait
	fq_stats "$PG_DEV" >"$st"
	cat "$st"
	sent=$(kv "$st" sent) dropped=$(kv "$st" dropped)
	tx=$(pg_txpkts)
	say "pktgen: $(pg_sent) of $count packets in $(($(date +%s) - t0)) s; fq sent $sent, dropped $dropped; dummy tx $tx"
	say "flows: peak $peak (slab $((peak_bytes - bytes0)) bytes over $slab0 objects before), now $(kv "$st" flows), gc $(kv "$st" gc)"
	say "MemAvailable: $avail0 kB before, lowest $avail_min kB"
	# Every packet pktgen handed over is accounted for: sent or dropped,
	# and none is left in the queue.
	[ "$(pg_sent)" = "$count" ] || fail "pktgen sent $(pg_sent) of $count"
	[ $((sent + dropped)) = "$count" ] || fail "fq sent $sent + dropped $dropped != offered $count"
	[ "$tx" = "$sent" ] || fail "dummy transmitted $tx, fq says it sent $sent"
	if [ "$(kv "$st" qlen)" != 0 ] || [ "$(kv "$st" backlog)" != 0 ]; then
		fail "queue not empty after pktgen: $(cat "$st")"
	fi
	# 6.1 and the series start gc at 2 flows per bucket (131072), so the
	# table always grows past 100000. 7.2 runs gc on every lookup and
	# reclaims what it walks past that has been idle 3 s: the table holds
	# at least the last 3 s of new flows, which is 100000 only at 33k
	# packets/s (a KASAN guest on a loaded host sent 700/s and peaked at
	# 68040 flows).
	bar=100000
	if kernel_is stock72 next72; then
		secs=$(($(date +%s) - t0))
		bar=$(awk -v c="$count" -v s="$secs" -v b="$bar" 'BEGIN { r = 0.9 * 3 * c / (s > 0 ? s : 1); printf "%d", r < b ? r : b }')
		say "7.2: gc on every lookup; the table must hold the last 3 s of flows at the measured rate: peak >= $bar"
	fi
	[ "$peak" -ge "$bar" ] || fail "fq held at most $peak flows (want >= $bar)"
	! dmesg | grep -qiE 'out of memory|oom-kill' || fail "OOM: $(dmesg | grep -iE 'out of memory|oom-kill' | head -n 3)"
	# struct fq_flow is 96 bytes on our series (6.1 and 7.2: 128); the slab object
	# is that much unless a debug kernel adds red zones and metadata
	# (KASAN), and slab overhead and the partly filled last slab add a
	# little more.
	read -r _ osz _ < <(slab_bytes fq_flow_cache)
	bpf=$(awk -v b="$((peak_bytes - bytes0))" -v f="$peak" 'BEGIN { printf "%.1f", b / f }')
	say "memory per flow at the peak: $bpf bytes (slab object $osz bytes), $peak flows, $(((peak_bytes - bytes0) / 1048576)) MiB"
	want=128
	! kernel_is series || want=96
	if [ "${FQP_CONFIG:-}" != debug ]; then
		[ "$osz" = "$want" ] || fail "fq_flow_cache objects are $osz bytes, not $want ($FQP_KERNEL kernel)"
	fi
	# Slab overhead and the partly filled last slab add up to 25 %. On a
	# KASAN kernel, flows gc freed before the peak sit in KASAN's
	# quarantine instead of being reused, and their slabs stay: up to 50 %
	# (7.2, whose gc runs on every lookup, measured 1.30x after 224k
	# frees; its test kernel 1.006x after 106k).
	slack=1.25
	[ "${FQP_CONFIG:-}" != debug ] || [ "$peak_gc" = 0 ] || slack=1.5
	say "gc had freed $peak_gc flows before the peak: bytes per flow within ${slack}x the object"
	awk -v b="$bpf" -v o="$osz" -v k="$slack" 'BEGIN { exit !(b >= o && b <= k * o) }' ||
		fail "$bpf bytes per flow for $osz-byte objects (limit ${slack}x)"

	# gc: after more than FQ_GC_AGE (3 s) of silence every flow is stale;
	# new flows' lookups must now reclaim them.
	gc0=$(kv "$st" gc) idle=$(kv "$st" flows)
	sleep 4
	pg_write "$PG/$PG_DEV" "udp_dst_min 10"
	pg_write "$PG/$PG_DEV" "udp_dst_max 10"
	pg_write "$PG/$PG_DEV" "count 100000"
	pg_start
	rb_wait_pg $((60 * ${FQP_TIMEOUT_SCALE:-1})) || fail "second pktgen run did not finish in time"
	fq_stats "$PG_DEV" >"$st"
	gc1=$(kv "$st" gc) back=$(kv "$st" flows)
	say "after 4 s idle and 100000 new flows: flows $idle -> $back, gc $gc0 -> $gc1"
	# Each new flow's lookup reclaims the stale flows on its path (up to
	# 8) while flows >= 2 * buckets: the table must not grow by the new
	# flows (it shrinks when it held more than that), and at least half
	# as many stale flows must go as new ones came.
	limit=$idle
	[ "$limit" -ge 131072 ] || limit=131072
	[ $((gc1 - gc0)) -ge 50000 ] || fail "gc collected only $((gc1 - gc0)) stale flows for 100000 new ones"
	[ "$back" -le $((limit + 1000)) ] || fail "flows went from $idle to $back: gc did not keep them down"
	tc qdisc del dev "$PG_DEV" root
	ip link del "$PG_DEV"
	echo 1 >/sys/kernel/slab/fq_flow_cache/shrink 2>/dev/null || true
	read -r flows _ _ < <(slab_bytes fq_flow_cache)
	say "fq_flow_cache objects after the qdisc is gone: $flows (before: $slab0)"
	[ "$flows" -le "$slab0" ] || fail "$flows fq_flow objects left after the qdisc was deleted"
}

# rb_wait_pg SECS: wait for the background pktgen run, stop it after SECS.
rb_wait_pg() {
	local i=0
	while kill -0 "$PG_PID" 2>/dev/null; do
		[ "$i" -lt "$1" ] || { pg_stop; return 1; }
		sleep 1
		i=$((i + 1))
	done
	pg_wait
}
