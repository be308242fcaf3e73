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
