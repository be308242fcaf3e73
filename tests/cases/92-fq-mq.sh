# shellcheck shell=bash
# mq with an fq per TX queue, the usual deployment on a
# multi-queue NIC: a veth with 4 TX queues, mq at the root, fq on each
# queue with maxrate 200kbit. Two senders, one pinned to each vCPU, offer
# 32 flows each (unconnected UDP: fq keys them by hash, so each port is a
# flow), and the stack spreads the flows over the queues by hash.
# - every queue carries traffic, and each leaf paces: it sends at its
#   flow count x maxrate;
# - `change` of one leaf and `replace` of another under load: the other
#   two leaves keep their counters and their rate, the changed one runs at
#   its new rate, the replaced one starts from zero at the new leaf's rate;
# - a counted burst afterwards: every leaf's counters add up to mq's
#   totals, and to what the device transmitted.
# maxrate is below fq's default low_rate_threshold (550 kbit/s), so every
# packet waits for its own length at the rate, on both kernels.
# shellcheck source=tests/lib-fq.sh
. "$T/lib-fq.sh"
CASE_TIMEOUT=90

MQ_RATE=200000 # bit/s per flow, the leaves' maxrate
MQ_WIN=3       # seconds per rate window

# mq_send SECS: the two pinned senders in the background, 20 Mbit/s of
# 1000-byte datagrams each (625 kbit/s per flow, above every maxrate used
# here); their pids in MQ_PIDS. The case stops them after its last window.
mq_send() {
	MQ_PIDS=()
	# ip netns exec, not sn: $! must be udpflows itself (exec chain), not
	# a subshell that a kill would leave its sender behind.
	ip netns exec snd taskset -c 0 udpflows -d "$RCV_IP" -p 9000 -n 32 -r 20m -t "$1" -l 1000 \
		>"$R/data/mq-tx0.txt" &
	MQ_PIDS+=($!)
	ip netns exec snd taskset -c 1 udpflows -d "$RCV_IP" -p 9100 -n 32 -r 20m -t "$1" -l 1000 \
		>"$R/data/mq-tx1.txt" &
	MQ_PIDS+=($!)
}

# leaf_rate A B NS HANDLE: the leaf's sent rate in bit/s between two
# snapshots NS ns apart.
leaf_rate() {
	echo $((($(qv "$2" "fq/$4" bytes) - $(qv "$1" "fq/$4" bytes)) * 8 * 1000000000 / $3))
}

# rate_ok A B TA TB UA UB HANDLE PERFLOW WHAT: the leaf sent at its flow
# count x PERFLOW, to within -12/+5 % (a TCG timer fires late, never
# early). The snapshots were taken at TA +- UA and TB +- UB ns (tsnap's
# SNAP_T and SNAP_U: one tc dump reads the leaves one after another, and
# under TCG it takes up to a second): the rate over the longest window
# those allow must not exceed +5 %, the one over the shortest must reach
# -12 %. Timed at the dumps' midpoints alone, a leaf read early in a slow
# first dump and a fast second one looks up to (UA + UB) / (TB - TA)
# faster than it is: +6.8 and +7.4 % on stock 7.2 on a loaded host.
rate_ok() {
	local a=$1 b=$2 ta=$3 tb=$4 ua=$5 ub=$6 h=$7 per=$8 what=$9 r lo hi flows want
	r=$(leaf_rate "$a" "$b" $((tb - ta)) "$h")
	lo=$(leaf_rate "$a" "$b" $((tb - ta + ua + ub)) "$h")
	hi=$(leaf_rate "$a" "$b" $((tb - ta - ua - ub)) "$h")
	flows=$(qv "$b" "fq/$h" flows)
	want=$((flows * per))
	say "$what: leaf $h $flows flows, $r bit/s over $(((tb - ta) / 1000000)) +- $(((ua + ub) / 1000000)) ms ($lo..$hi; want $want)"
	[ "$flows" -gt 0 ] || fail "$what: leaf $h has no flow: the queues are not all used"
	acmp "$hi >= 0.88 * $want && $lo <= 1.05 * $want" ||
		fail "$what: leaf $h sent $lo..$hi bit/s, want $flows x $per = $want"
}

# mq over a 4-queue veth, fq maxrate 200kbit per queue, a sender on each
# vCPU: every queue carries flows and each leaf sends at flows x
# maxrate (-12/+5 %); a change of one leaf and a replace of another
# under load leave the other two alone and run at their new rates; a
# counted burst afterwards adds up from the leaves to mq and to veth0's
# tx_packets.
t_mq_per_queue_fq() {
	local a b c d e f i sum k ta tb td te ua ub ud ue
	[ "$(nproc)" -ge 2 ] || skip "one vCPU: the case needs a sender on each of two CPUs"
	mq_topo maxrate "${MQ_RATE}bit"
	mq_send 60
	sleep 1
	tsnap
	a=$SNAP ta=$SNAP_T ua=$SNAP_U
	sleep "$MQ_WIN"
	tsnap
	b=$SNAP tb=$SNAP_T ub=$SNAP_U
	for i in $(seq "$MQ_QUEUES"); do
		rate_ok "$a" "$b" "$ta" "$tb" "$ua" "$ub" "1$i:" "$MQ_RATE" steady
	done
	# Leaf 1 to half the rate, leaf 2 replaced by a fresh fq at twice it.
	sn tc qdisc change dev veth0 parent 1:1 handle 11: fq maxrate "$((MQ_RATE / 2))bit"
	sn tc qdisc replace dev veth0 parent 1:2 handle 22: fq maxrate "$((MQ_RATE * 2))bit"
	c=$(snap snd veth0)
	[ "$(qv "$c" fq/22: packets)" -lt "$(qv "$b" fq/12: packets)" ] ||
		fail "the replaced leaf did not start from zero: $(qv "$c" fq/22: packets) packets"
	for i in 3 4; do
		for k in packets bytes; do
			[ "$(qv "$c" "fq/1$i:" "$k")" -ge "$(qv "$b" "fq/1$i:" "$k")" ] ||
				fail "leaf 1$i: $k went back from $(qv "$b" "fq/1$i:" "$k") to $(qv "$c" "fq/1$i:" "$k")"
		done
		# Overloaded flows hit flow_limit: drops grow, and only grow.
		[ "$(qv "$c" "fq/1$i:" drops)" -ge "$(qv "$b" "fq/1$i:" drops)" ] ||
			fail "leaf 1$i: drops went back from $(qv "$b" "fq/1$i:" drops) to $(qv "$c" "fq/1$i:" drops)"
	done
	sleep 1
	tsnap
	d=$SNAP td=$SNAP_T ud=$SNAP_U
	sleep "$MQ_WIN"
	tsnap
	e=$SNAP te=$SNAP_T ue=$SNAP_U
	rate_ok "$d" "$e" "$td" "$te" "$ud" "$ue" 11: $((MQ_RATE / 2)) "after change"
	rate_ok "$d" "$e" "$td" "$te" "$ud" "$ue" 22: $((MQ_RATE * 2)) "after replace"
	rate_ok "$d" "$e" "$td" "$te" "$ud" "$ue" 13: "$MQ_RATE" "beside them"
	rate_ok "$d" "$e" "$td" "$te" "$ud" "$ue" 14: "$MQ_RATE" "beside them"
	kill -0 "${MQ_PIDS[@]}" 2>/dev/null ||
		fail "a sender ended before the last window did: $(cat "$R/data/mq-tx0.txt" "$R/data/mq-tx1.txt")"
	kill "${MQ_PIDS[@]}"
	wait "${MQ_PIDS[@]}" || true
	mq_drain
	# The counted burst: 2 x 1000 datagrams, offered fast, paced by the leaves.
	a=$(snap snd veth0)
	f=$(sn cat /sys/class/net/veth0/statistics/tx_packets)
	sn taskset -c 0 udpflows -d "$RCV_IP" -p 9000 -n 32 -c 1000 -r 20m -l 1000 >"$R/data/mq-b0.txt" &
	sn taskset -c 1 udpflows -d "$RCV_IP" -p 9100 -n 32 -c 1000 -r 20m -l 1000 >"$R/data/mq-b1.txt" &
	wait || fail "a burst sender failed: $(cat "$R/data/mq-b0.txt" "$R/data/mq-b1.txt")"
	mq_drain
	b=$(snap snd veth0)
	f=$(($(sn cat /sys/class/net/veth0/statistics/tx_packets) - f))
	for k in packets bytes drops qlen backlog; do
		sum=$(mq_sum "$b" "$k" "11: 22: 13: 14:")
		say "$k: mq $(qv "$b" mq "$k"), the leaves $sum"
		[ "$(qv "$b" mq "$k")" = "$sum" ] || fail "mq's $k $(qv "$b" mq "$k") != the leaves' sum $sum"
	done
	sum=$(($(mq_sum "$b" packets "11: 22: 13: 14:") - $(mq_sum "$a" packets "11: 22: 13: 14:")))
	say "burst: the leaves sent $sum, veth0 transmitted $f, mq +$(($(qv "$b" mq packets) - $(qv "$a" mq packets)))"
	[ "$sum" = 2000 ] || fail "the leaves sent $sum of the burst's 2000 datagrams"
	[ "$f" = 2000 ] || fail "veth0 transmitted $f of the burst's 2000 datagrams"
	[ $(($(qv "$b" mq packets) - $(qv "$a" mq packets))) = 2000 ] || fail "mq counted another number"
}
