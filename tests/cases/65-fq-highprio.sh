# shellcheck shell=bash
# Packets with priority TC_PRIO_CONTROL (7) go to fq's internal queue: they
# are counted in highprio and overtake a flow that fq holds back. Stock 7.2
# has no such queue (7.2's net/sched/sch_fq.c: the priority only picks the
# flow's band, fq_dump_stats reports highprio_packets 0): there they wait in
# their socket's flow like the rest of it.
# shellcheck source=tests/lib-fq.sh
. "$T/lib-fq.sh"
CASE_TIMEOUT=60

# One connected UDP socket offers 40 Mbit/s into fq maxrate 10mbit, so its
# flow queue sits at flow_limit (100 packets, ~100 ms). Every 50th packet is
# sent with SO_PRIORITY 7 from the same socket: it skips that queue. The
# receiver measures one-way delay per class (namespaces share one clock).
t_highprio_bypass() {
	topo
	quiet_link
	sn tc qdisc add dev veth0 root fq maxrate 10mbit
	h0=$(fqx snd veth0 highprio)
	rn udpflows -R -p 9000 -t 15 -i 1500 >"$R/data/hp-rx.txt" &
	rpid=$!
	wait_listen rcv udp 9000
	tx=$(sn udpflows -d "$RCV_IP" -p 9000 -C -t 5 -r 40m -l 1200 -H 50)
	wait "$rpid"
	h1=$(fqx snd veth0 highprio)
	rx=$(cat "$R/data/hp-rx.txt")
	say "$tx" "$rx" "highprio $h0 -> $h1"
	hs=$(sed -n 's/.*hp=\([0-9]*\).*/\1/p' <<<"$tx")
	b50=$(sed -n 's/^class0 .*p50_us=\([0-9]*\).*/\1/p' <<<"$rx")
	p50=$(sed -n 's/^class1 .*p50_us=\([0-9]*\).*/\1/p' <<<"$rx")
	p90=$(sed -n 's/^class1 .*p90_us=\([0-9]*\).*/\1/p' <<<"$rx")
	hn=$(sed -n 's/^class1 n=\([0-9]*\).*/\1/p' <<<"$rx")
	[ "$hs" -ge 100 ] || fail "only $hs high-priority packets sent"
	if kernel_is stock72 next72; then
		[ $((h1 - h0)) = 0 ] || fail "highprio moved by $((h1 - h0)) on 7.2, whose fq has no high-priority queue"
		[ "$b50" -ge 50000 ] || fail "bulk p50 delay ${b50} us: fq did not hold the flow back"
		[ "$p50" -ge 50000 ] || fail "high-prio p50 ${p50} us: on 7.2 they should wait in their flow (bulk p50 ${b50} us)"
		return 0
	fi
	# nothing else in this netns uses priority 7 (IPv6 off, ARP done)
	[ $((h1 - h0)) = "$hs" ] || fail "highprio moved by $((h1 - h0)), $hs sent with priority 7"
	[ "$hn" = "$hs" ] || fail "received $hn of $hs high-priority packets"
	[ "$b50" -ge 50000 ] || fail "bulk p50 delay ${b50} us: fq did not hold the flow back"
	# p90, not p99: under TCG a vCPU stall of ~10 ms now and then is normal
	[ $((p90 * 5)) -lt "$b50" ] || fail "high-prio p90 ${p90} us not < bulk p50 ${b50} us / 5"
	[ "$p50" -lt 10000 ] || fail "high-prio p50 ${p50} us >= 10 ms"
}
