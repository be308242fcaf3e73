# shellcheck shell=bash
# EDT from BPF, the pattern of Cilium's bandwidth manager: a tc
# egress program (tests/src/bpf/edt.bpf.c, built with clang, loaded by
# bookworm's tc) paces the aggregate of all UDP leaving veth0 to 10 Mbit/s
# by setting skb->tstamp, shooting what would leave more than 200 ms
# ahead; under it mq on a 4-queue veth with fq `horizon 2s buckets 32768`
# per queue, which enforces the times. Two senders, one per vCPU, offer
# 16 flows at 20 Mbit/s in all.
# - the aggregate leaves veth0 (what the fq leaves release) at 10 Mbit/s
#   to within 5 %, and the flows spread over the queues;
# - datagrams the program stamps 5 s ahead (UDP port 9999) are beyond the
#   2 s horizon: each one a horizon drop, or with horizon_cap a horizon
#   cap that leaves ~2 s later;
# - everything offered is accounted for: the program's shots (clsact's
#   drops) + the leaves' sent + the leaves' drops.
# shellcheck source=tests/lib-fq.sh
. "$T/lib-fq.sh"
CASE_TIMEOUT=90

EDT_RATE=10000000 # bit/s, EDT_RATE in edt.bpf.c
EDT_FAR=50        # datagrams to port 9999 per horizon check

# txb: veth0's tx_bytes in TXB and the guest time (ns) it was read at in
# TXB_T. The device counts skb->len as the program and fq do, and one
# read is instant next to a tc dump (which takes up to a second under
# TCG, too blurred an end for a 5 % window).
txb() {
	local t0
	t0=$(date +%s%N)
	TXB=$(sn cat /sys/class/net/veth0/statistics/tx_bytes)
	TXB_T=$(((t0 + $(date +%s%N)) / 2))
}

# far_burst: EDT_FAR datagrams to the far port, stamped 5 s ahead.
far_burst() {
	sn udpflows -d "$RCV_IP" -p 9999 -n 1 -c "$EDT_FAR" -r 1m -l 200 >>"$R/data/edt-far.txt" ||
		fail "the far sender failed: $(cat "$R/data/edt-far.txt")"
}

# A tc BPF program paces all UDP on veth0 to 10 Mbit/s through
# skb->tstamp, over mq with fq `horizon 2s` per queue, offered twice
# that by 16 flows from both vCPUs: the leaves send 10 Mbit/s +- 5 %,
# datagrams stamped 5 s ahead are horizon drops (50 of 50) or, with
# horizon_cap, capped to ~2 s, and shots + sent + drops = offered.
t_bpf_edt_aggregate() {
	local obj=$BIN/edt.bpf.o a b ta tb x0 x1 rate off0 off1 far i d0 c0 s k
	[ -f "$obj" ] || fail "no $obj: tests/Makefile builds it with clang -target bpf"
	[ "$(nproc)" -ge 2 ] || skip "one vCPU: the case needs a sender on each of two CPUs"
	mq_topo horizon 2s buckets 32768 flow_limit 1000
	sn tc qdisc add dev veth0 clsact
	sn tc filter add dev veth0 egress bpf direct-action obj "$obj" sec tc ||
		fail "tc could not load $obj"
	say "$(sn tc filter show dev veth0 egress | tr '\n' ' ')"
	ip netns exec snd taskset -c 0 udpflows -d "$RCV_IP" -p 9000 -n 8 -r 10m -t 10 -l 1000 \
		>"$R/data/edt-tx0.txt" &
	ip netns exec snd taskset -c 1 udpflows -d "$RCV_IP" -p 9100 -n 8 -r 10m -t 10 -l 1000 \
		>"$R/data/edt-tx1.txt" &
	sleep 2
	tsnap
	a=$SNAP
	txb
	x0=$TXB ta=$TXB_T
	sleep 4
	txb
	x1=$TXB tb=$TXB_T
	tsnap
	b=$SNAP
	rate=$(((x1 - x0) * 8 * 1000000000 / (tb - ta)))
	for i in $(seq "$MQ_QUEUES"); do
		say "leaf 1$i: $(qv "$b" "fq/1$i:" flows) flows, sent $(($(qv "$b" "fq/1$i:" bytes) - $(qv "$a" "fq/1$i:" bytes))) bytes in the window"
	done
	say "aggregate: $rate bit/s over $(((tb - ta) / 1000000)) ms (the program's rate: $EDT_RATE); clsact drops $(qv "$b" clsact drops)"
	acmp "$rate >= 0.95 * $EDT_RATE && $rate <= 1.05 * $EDT_RATE" ||
		fail "the aggregate left at $rate bit/s, not $EDT_RATE +- 5 %"
	[ "$(qv "$b" clsact drops)" -gt 0 ] || fail "the program shot nothing at twice its rate"
	wait || fail "a sender failed: $(cat "$R/data/edt-tx0.txt" "$R/data/edt-tx1.txt")"
	cat "$R/data/edt-tx0.txt" "$R/data/edt-tx1.txt"
	off0=$(sed -n 's/^sent=\([0-9]*\) .*/\1/p' "$R/data/edt-tx0.txt")
	off1=$(sed -n 's/^sent=\([0-9]*\) .*/\1/p' "$R/data/edt-tx1.txt")
	mq_drain
	for i in $(seq "$MQ_QUEUES"); do
		[ "$(qv "$b" "fq/1$i:" flows)" -gt 0 ] || fail "leaf 1$i carried no flow: the queues are not all used"
	done
	# Beyond the horizon: dropped (the default), then capped.
	tsnap
	d0=$(mq_sum "$SNAP" horizon_drops)
	far_burst
	sleep 0.5
	tsnap
	say "far datagrams, horizon_drop: horizon_drops +$(($(mq_sum "$SNAP" horizon_drops) - d0)), queued $(qv "$SNAP" mq qlen)"
	[ $(($(mq_sum "$SNAP" horizon_drops) - d0)) = "$EDT_FAR" ] ||
		fail "$(($(mq_sum "$SNAP" horizon_drops) - d0)) of $EDT_FAR datagrams stamped 5 s ahead counted as horizon drops"
	[ "$(qv "$SNAP" mq qlen)" = 0 ] || fail "datagrams beyond the horizon were queued"
	for i in $(seq "$MQ_QUEUES"); do
		sn tc qdisc change dev veth0 parent "1:$i" handle "1$i:" fq horizon 2s horizon_cap
	done
	c0=$(mq_sum "$SNAP" horizon_caps)
	far_burst
	sleep 0.5
	tsnap
	s=$SNAP
	say "far datagrams, horizon_cap: horizon_caps +$(($(mq_sum "$s" horizon_caps) - c0)), queued $(qv "$s" mq qlen)"
	[ $(($(mq_sum "$s" horizon_caps) - c0)) = "$EDT_FAR" ] ||
		fail "$(($(mq_sum "$s" horizon_caps) - c0)) of $EDT_FAR datagrams stamped 5 s ahead counted as horizon caps"
	[ "$(qv "$s" mq qlen)" = "$EDT_FAR" ] || fail "capped datagrams should wait ~2 s: $(qv "$s" mq qlen) queued"
	sleep 2.5
	mq_drain
	# Everything offered: paced senders, two far bursts.
	tsnap
	far=$((2 * EDT_FAR))
	k=$(($(qv "$SNAP" clsact drops) + $(mq_sum "$SNAP" packets) + $(mq_sum "$SNAP" drops)))
	say "offered $off0 + $off1 + $far; shot $(qv "$SNAP" clsact drops), fq sent $(mq_sum "$SNAP" packets), dropped $(mq_sum "$SNAP" drops), mq sent $(qv "$SNAP" mq packets)"
	[ "$k" = $((off0 + off1 + far)) ] ||
		fail "shot + sent + dropped = $k, offered $((off0 + off1 + far))"
	[ "$(qv "$SNAP" mq packets)" = "$(mq_sum "$SNAP" packets)" ] || fail "mq's count differs from its leaves'"
}
