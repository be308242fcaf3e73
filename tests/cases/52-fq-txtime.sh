# shellcheck shell=bash
# SO_TXTIME departure times through sch_fq. ktime_t is signed: a time of
# 2^63 or more from an unprivileged socket lies before the clock started
# and is due at once, as mainline reads it (sock.c clamps it at the cmsg
# and sch_fq takes max(time, 1)); 2^63 - 1 is beyond any horizon: dropped
# (horizon_drop) or capped to now + horizon (horizon_cap). Nothing is
# queued for ever, as stock 6.1 queues the first two. And the
# high-priority queue (SO_PRIORITY 7) keeps send-time (EDT) order, as
# 6.1's internal flow does, without waiting for those times.
# shellcheck source=tests/lib-fq.sh
. "$T/lib-fq.sh"
CASE_TIMEOUT=60

# 2^63 and ~0 are negative as s64: due at once (stock 6.1: they pass its
# signed horizon check, then wait behind an unsigned departure compare).
# 2^63-1 is beyond any horizon.
FAR_TIMES=(0x8000000000000000 0xffffffffffffffff 0x7fffffffffffffff)
FAR_PORT=9100
FAR_BAD=()

# far_send REPEAT: REPEAT datagrams per far time, from a socket of uid 65534
# in snd (no CAP_NET_ADMIN there: SO_PRIORITY 7 must be refused), to rcv
# ports FAR_PORT.. (one port per datagram).
far_send() {
	local out
	out=$(unpriv snd "$(unpriv_bin txtime)" -u -d "$RCV_IP" -p "$FAR_PORT" -r "$1" -- "${FAR_TIMES[@]}") ||
		fail "txtime sender failed: $out"
	say "$out"
	grep -qx 'prio7=EPERM' <<<"$out" || fail "the sender is privileged in snd (SO_PRIORITY 7 not refused)"
	[ "$(sed -n 's/^sent=\([0-9]*\) .*/\1/p' <<<"$out")" = $((${#FAR_TIMES[@]} * $1)) ] ||
		fail "not every datagram was sent"
}

# want WHAT GOT EXPECTED: record a check (every one is logged; far_verdict
# fails the case with all the failed ones).
want() {
	if [ "$2" = "$3" ]; then
		say "ok: $1 = $2"
	else
		say "BAD: $1 = $2, want $3"
		FAR_BAD+=("$1 = $2 (want $3)")
	fi
}

# far_settled BEFORE AFTER: nothing of it left in fq (qlen, backlog and
# throttled flows 0), then the verdict.
far_verdict() {
	want qlen "$(fqsv "$2" qlen)" 0
	want backlog "$(fqsv "$2" backlog)" 0
	want throttled_flows "$(fqsv "$2" throttled_flows)" 0
	[ ${#FAR_BAD[@]} -gt 0 ] || return 0
	say "fq after: $(tr '\n' ' ' <<<"$2")"
	! kernel_is stock61 ||
		kernel_note "known stock 6.1 bug: a txtime >= 2^63 passes fq's signed horizon check and then waits for ever (throttled, time_next_delayed_flow ~9.22e18 ns); any user can wedge the qdisc this way"
	fail "${FAR_BAD[*]}"
}

# far_recv COUNT WAIT_MS: a receiver for the far datagrams in rcv. WAIT_MS
# (no datagram for that long: done) counts from its start, before the
# sender has even started: scaled like the case timeouts (a debug kernel
# under TCG takes seconds to start the unprivileged sender).
far_recv() {
	rn txtime -R -p "$FAR_PORT" -n 9 -c "$1" -w "$(($2 * ${FQP_TIMEOUT_SCALE:-1}))" >"$R/data/txtime-rx.txt" &
	RX_PID=$!
	wait_listen rcv udp "$FAR_PORT"
}

# Default fq (horizon 10 s, horizon_drop), 3 datagrams per time: the 6 at
# negative times leave at once, the 3 at 2^63 - 1 are dropped at once and
# counted as horizon_drops; nothing is kept.
t_far_drop() {
	topo
	quiet_link
	sn tc qdisc add dev veth0 root fq
	far_recv 6 10000
	b=$(fqs snd veth0)
	far_send 3
	wait "$RX_PID"
	a=$(fqs snd veth0)
	cat "$R/data/txtime-rx.txt"
	want "horizon_drops (delta)" "$(fqsd "$b" "$a" horizon_drops)" 3
	want "drops (delta)" "$(fqsd "$b" "$a" drops)" 3
	want "sent (delta)" "$(fqsd "$b" "$a" packets)" 6
	want "horizon_caps (delta)" "$(fqsd "$b" "$a" horizon_caps)" 0
	want received "$(kw "$R/data/txtime-rx.txt" rx)" 6
	far_verdict "$b" "$a"
}

# horizon 1s horizon_cap, 2 datagrams per time: the 4 at negative times
# leave at once (the first arrives within 0.5 s), the 2 at 2^63 - 1 are
# capped to now + 1 s and leave then (the last 0.9 to 5 s after it was
# sent: TCG timers fire late, never early), counted as horizon_caps;
# nothing dropped, all received.
t_far_cap() {
	topo
	quiet_link
	sn tc qdisc add dev veth0 root fq horizon 1s horizon_cap
	far_recv 6 10000
	b=$(fqs snd veth0)
	far_send 2
	wait "$RX_PID"
	a=$(fqs snd veth0)
	cat "$R/data/txtime-rx.txt"
	want "horizon_caps (delta)" "$(fqsd "$b" "$a" horizon_caps)" 2
	want "drops (delta)" "$(fqsd "$b" "$a" drops)" 0
	want "sent (delta)" "$(fqsd "$b" "$a" packets)" 6
	rx=$(kw "$R/data/txtime-rx.txt" rx)
	want received "$rx" 6
	dmin=$(kw "$R/data/txtime-rx.txt" delay_min_ns)
	dmax=$(kw "$R/data/txtime-rx.txt" delay_max_ns)
	acmp "$rx > 0 && $dmin < 0.5e9 && $dmax >= 0.9e9 && $dmax <= 5e9" && d=yes || d=no
	want "delays ${dmin}..${dmax} ns: the first within 0.5 s, the last 0.9..5 s" "$d" yes
	far_verdict "$b" "$a"
}

# fq under tbf 50kbit burst 1600: two 1400-byte lead datagrams (priority
# 0) go first, the first leaves and empties the bucket, the second waits
# (~200 ms: a TCG sender may pause 20 ms between two datagrams) peeked by
# tbf. Meanwhile 10 datagrams with SO_PRIORITY 7 (root in
# snd: CAP_NET_ADMIN) and txtimes decreasing from now+1.9 s to now+1.0 s
# join fq's high-priority queue. They must leave in increasing txtime order
# (sender-side capture order), all before their txtime (not held), and be
# counted in highprio_packets. Stock 7.2 has no such queue (7.2's
# net/sched/sch_fq.c: priority 7 only picks a band, fq_dump_stats reports
# highprio_packets 0): they stay in their socket's flow and leave in
# txtime order at their txtime, none early.
t_highprio_edt_order() {
	local pcap=$R/data/txtime-hp.pcap times=() i
	topo
	quiet_link
	sn tc qdisc add dev veth0 root handle 1: tbf rate 50kbit burst 1600 limit 100000
	sn tc qdisc add dev veth0 parent 1:1 handle 10: fq
	ip netns exec snd tcpdump -i veth0 -nn --immediate-mode -U -w "$pcap" \
		"udp and dst host $RCV_IP" 2>"$pcap.err" &
	cap=$!
	for _ in $(seq 100); do
		grep -q 'listening on' "$pcap.err" && break
		sleep 0.1
	done
	# The wait counts from the receiver's start: generous, since it ends
	# at the 12th datagram (a loaded host took over 4 s to start the
	# sender).
	rn txtime -R -p 9200 -n 12 -c 12 -w "$((10000 * ${FQP_TIMEOUT_SCALE:-1}))" >"$R/data/txtime-hp-rx.txt" &
	rpid=$!
	wait_listen rcv udp 9200
	b=$(fqs snd veth0 10:)
	for i in 19 18 17 16 15 14 13 12 11 10; do times+=("+${i}00000"); done
	out=$(sn txtime -d "$RCV_IP" -p 9200 -L 2 -P 7 -- "${times[@]}") || fail "txtime failed: $out"
	say "$out"
	wait "$rpid"
	a=$(fqs snd veth0 10:)
	sleep 1 # let tcpdump write what it holds
	kill -TERM "$cap" 2>/dev/null || true
	wait "$cap" 2>/dev/null || true
	cat "$R/data/txtime-hp-rx.txt"
	# capture order of the priority-7 datagrams, as their txtimes
	order=$(tcpdump -r "$pcap" -nn 2>/dev/null | sed -n 's/.* > [0-9.]*\.\([0-9]*\): UDP.*/\1/p')
	say "capture order (ports): $(tr '\n' ' ' <<<"$order")"
	seen=$(awk 'NR == FNR { if ($1 == "tx") { split($3, p, "="); split($4, t, "="); tt[p[2]] = t[2] } next }
		($1 in tt) { printf "%s ", tt[$1] }' <(printf '%s\n' "$out") <(printf '%s\n' "$order"))
	say "txtimes in departure order: $seen"
	n=0 prev=0 inorder=yes
	for t in $seen; do
		n=$((n + 1))
		[ $((t)) -gt "$prev" ] || inorder=no
		prev=$((t))
	done
	[ "$n" = 10 ] || fail "capture shows $n of the 10 priority-7 datagrams ($(tr '\n' ' ' <"$pcap.err"))"
	[ "$inorder" = yes ] || fail "priority-7 datagrams left out of txtime order: $seen"
	hp=$(fqsd "$b" "$a" highprio_packets)
	early=$(kw "$R/data/txtime-hp-rx.txt" early)
	rx=$(kw "$R/data/txtime-hp-rx.txt" rx)
	[ "$rx" = 12 ] || fail "received $rx of 12 datagrams"
	if kernel_is stock72 next72; then
		[ "$hp" = 0 ] || fail "highprio_packets grew by $hp on 7.2, whose fq has no high-priority queue"
		[ "$early" = 0 ] || fail "$early priority-7 datagrams arrived before their txtime: 7.2 holds them to it"
		return 0
	fi
	[ "$hp" = 10 ] || fail "highprio_packets grew by $hp, 10 sent with priority 7"
	# every priority-7 one arrived before its txtime: none was held for it
	[ "$early" = 10 ] || fail "only $early of the 10 priority-7 datagrams arrived before their txtime"
}

# Any txtime from an unprivileged user namespace: 20 s ahead (beyond the
# default 10 s horizon) is a horizon drop; 2^63 and ~0 (negative: before
# the clock started), 0 and one second in the past leave at once. 30 of
# each, the far ones first, into an fq of limit 25: were the 30 far ones
# queued, they would fill it and the 120 that may leave would be dropped,
# so all 120 arriving proves that the far ones cannot fill the qdisc. (Not
# more: 520 datagrams at once overflowed the receiving socket's buffer.)
t_any_txtime_cannot_fill() {
	local out b a
	topo
	quiet_link
	sn tc qdisc add dev veth0 root fq limit 25
	rn txtime -R -p "$FAR_PORT" -n 1 -c 120 -w "$((10000 * ${FQP_TIMEOUT_SCALE:-1}))" >"$R/data/txtime-any-rx.txt" &
	RX_PID=$!
	wait_listen rcv udp "$FAR_PORT"
	b=$(fqs snd veth0)
	out=$(unpriv snd "$(unpriv_bin txtime)" -u -s -d "$RCV_IP" -p "$FAR_PORT" -r 30 -- \
		+20000000 0x8000000000000000 0xffffffffffffffff 0 -1000000) ||
		fail "txtime sender failed: $(tail -n 3 <<<"$out")"
	grep -x 'prio7=EPERM' <<<"$out" || fail "the sender is privileged in snd (SO_PRIORITY 7 not refused)"
	grep -E '^sent=' <<<"$out"
	wait "$RX_PID"
	a=$(fqs snd veth0)
	grep -E '^rx=' "$R/data/txtime-any-rx.txt"
	want received "$(kw "$R/data/txtime-any-rx.txt" rx)" 120
	want "sent (delta)" "$(fqsd "$b" "$a" packets)" 120
	want "horizon_drops (delta)" "$(fqsd "$b" "$a" horizon_drops)" 30
	want "drops (delta)" "$(fqsd "$b" "$a" drops)" 30
	far_verdict "$b" "$a"
}
