# shellcheck shell=bash
# Lowering limit drops the packet a parent qdisc already peeked too (6.1.192
# has the stable fix). tbf takes its next packet from fq with a peek, which
# dequeues it into fq's sch->gso_skb where it still counts in fq's qlen.
# 6.1.192 trims with qdisc_dequeue_internal(), which takes that packet
# first, so `limit 0` leaves both levels empty; so must our series.
# shellcheck source=tests/lib-fq.sh
. "$T/lib-fq.sh"
CASE_TIMEOUT=90

# fq (limit 2000) under tbf 1mbit, filled by 64 UDP flows at 20 Mbit/s (one
# unconnected socket: a qdisc drop is not reported to it, so what udpflows
# counts as sent is what tbf was offered). Then `limit 0`: at once and after
# the flood, qlen and backlog are 0 in fq and in tbf. tbf's counters
# reconcile exactly (sent + dropped = offered: fq's enqueue drops and the
# trimmed packets both count as tbf drops); fq's do to within the peeked
# packet (counted as sent when tbf peeked it, and dropped by the trim).
t_limit0_with_peeked_packet() {
	topo
	quiet_link
	sn tc qdisc add dev veth0 root handle 1: tbf rate 1mbit burst 5000 limit 100000
	sn tc qdisc add dev veth0 parent 1:1 handle 10: fq limit 2000 flow_limit 1000
	# Longer on a slow kernel: the flood must outlast the fill (a debug
	# kernel on a busy host sent too little in 8 s to reach 1800).
	sn udpflows -d "$RCV_IP" -p 9000 -n 64 -r 20m -t $((8 * ${FQP_TIMEOUT_SCALE:-1})) -l 1000 >"$R/data/peeked-tx.txt" &
	upid=$!
	fq_fill_wait snd veth0 10: 1800 || true
	s=$(snap snd veth0)
	say "full: $(levels "$s" tbf/1: fq/10:)"
	[ "$(qv "$s" fq qlen)" -ge 1800 ] || fail "fq never filled: $(levels "$s" tbf/1: fq/10:)"
	sn tc qdisc change dev veth0 parent 1:1 handle 10: fq limit 0
	s=$(snap snd veth0)
	say "after limit 0: $(levels "$s" tbf/1: fq/10:)"
	levels_empty "$s" tbf/1: fq/10: "right after limit 0"
	wait "$upid" || fail "udpflows failed"
	sleep 0.5
	s=$(snap snd veth0)
	say "after the flood: $(levels "$s" tbf/1: fq/10:)"
	levels_empty "$s" tbf/1: fq/10: "after the flood"
	offered=$(kw "$R/data/peeked-tx.txt" sent)
	tp=$(qv "$s" tbf packets) td=$(qv "$s" tbf drops)
	fp=$(qv "$s" fq packets) fd=$(qv "$s" fq drops)
	say "offered $offered; tbf sent $tp dropped $td; fq sent $fp dropped $fd"
	[ $((tp + td)) = "$offered" ] || fail "tbf: sent $tp + dropped $td != offered $offered"
	[ $((fp + fd)) -ge "$offered" ] && [ $((fp + fd)) -le $((offered + 1)) ] ||
		fail "fq: sent $fp + dropped $fd != offered $offered (+1 peeked)"
	[ "$fp" -ge "$tp" ] || fail "fq sent $fp < tbf sent $tp"
}

# The same `limit 0` with fq under other parents that peek before they
# dequeue: hfsc (rate-limited itself), and drr, qfq and ets under tbf (tbf
# peeks them, they peek fq). Every level ends empty at once, and the
# parents' counters reconcile with what the flood offered.
t_limit0_under_peeking_parents() {
	local p s offered tp td
	topo
	quiet_link
	for p in hfsc drr qfq ets; do
		case $p in
		hfsc)
			sn tc qdisc add dev veth0 root handle 1: hfsc default 1
			sn tc class add dev veth0 parent 1: classid 1:1 hfsc sc rate 1mbit ul rate 1mbit
			;;
		*)
			sn tc qdisc add dev veth0 root handle 1: tbf rate 1mbit burst 5000 limit 100000
			case $p in
			drr)
				sn tc qdisc add dev veth0 parent 1:1 handle 2: drr
				sn tc class add dev veth0 parent 2: classid 2:1 drr
				;;
			qfq)
				sn tc qdisc add dev veth0 parent 1:1 handle 2: qfq
				sn tc class add dev veth0 parent 2: classid 2:1 qfq weight 1 maxpkt 2000
				;;
			ets) sn tc qdisc add dev veth0 parent 1:1 handle 2: ets bands 1 ;;
			esac
			sn tc filter add dev veth0 parent 2: protocol all prio 1 u32 match u32 0 0 flowid 2:1
			;;
		esac
		if [ "$p" = hfsc ]; then set -- 1:1 hfsc/1:; else set -- 2:1 "$p/2:"; fi
		sn tc qdisc add dev veth0 parent "$1" handle 10: fq limit 2000 flow_limit 1000
		sn udpflows -d "$RCV_IP" -p 9000 -n 64 -r 20m -t $((4 * ${FQP_TIMEOUT_SCALE:-1})) -l 1000 >"$R/data/peeked-$p-tx.txt" &
		upid=$!
		fq_fill_wait snd veth0 10: 500 || true
		s=$(snap snd veth0)
		say "$p, full: $(levels "$s" "$2" fq/10:)"
		[ "$(qv "$s" fq qlen)" -ge 500 ] || fail "$p: fq never filled: $(levels "$s" "$2" fq/10:)"
		sn tc qdisc change dev veth0 parent "$1" handle 10: fq limit 0
		s=$(snap snd veth0)
		say "$p, after limit 0: $(levels "$s" "$2" fq/10:)"
		levels_empty "$s" "$2" fq/10: "$p: right after limit 0"
		wait "$upid" || fail "$p: udpflows failed"
		sleep 0.5
		s=$(snap snd veth0)
		levels_empty "$s" "$2" fq/10: "$p: after the flood"
		offered=$(kw "$R/data/peeked-$p-tx.txt" sent)
		tp=$(qv "$s" "${2%/*}" packets) td=$(qv "$s" "${2%/*}" drops)
		say "$p: offered $offered; $p sent $tp dropped $td"
		[ $((tp + td)) = "$offered" ] || fail "$p: sent $tp + dropped $td != offered $offered"
		sn tc qdisc del dev veth0 root
	done
}

# fq as the root of a 4-queue veth (no mq): the core's bulk dequeue parks
# a packet bound for another TX queue in the qdisc's skb_bad_txq, where it
# counts in fq's qlen but is no longer fq's. 40 limit changes (50 and 300
# in turn) while 64 UDP flows flood it: every change succeeds, nothing
# splats, fq ends empty, and its counters reconcile with what was offered
# (sent + dropped).
t_mq_root_limit_changes() {
	local i s offered fp fd
	topo "$MQ_QUEUES"
	quiet_link
	sn tc qdisc replace dev veth0 root handle 1: fq limit 300 flow_limit 1000
	sn udpflows -d "$RCV_IP" -p 9000 -n 64 -r 100m -t $((4 * ${FQP_TIMEOUT_SCALE:-1})) -l 500 >"$R/data/mqroot-tx.txt" &
	upid=$!
	sleep 0.5
	for i in $(seq 40); do
		stimeout 10 ip netns exec snd tc qdisc change dev veth0 root handle 1: fq limit $((i % 2 ? 50 : 300)) ||
			fail "change $i (limit $((i % 2 ? 50 : 300))) failed or hung"
	done
	wait "$upid" || fail "udpflows failed"
	fq_empty_wait snd veth0 10 || fail "fq still holds packets 10 s after the flood"
	s=$(snap snd veth0)
	offered=$(kw "$R/data/mqroot-tx.txt" sent)
	fp=$(qv "$s" fq packets) fd=$(qv "$s" fq drops)
	say "offered $offered; fq sent $fp dropped $fd; qlen $(qv "$s" fq qlen) backlog $(qv "$s" fq backlog)"
	[ "$(qv "$s" fq backlog)" = 0 ] || fail "backlog $(qv "$s" fq backlog) with qlen 0"
	[ $((fp + fd)) = "$offered" ] || fail "fq sent $fp + dropped $fd != offered $offered"
}
