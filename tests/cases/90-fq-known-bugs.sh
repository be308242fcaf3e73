# shellcheck shell=bash
# The bugs that hit sch_fq in the field, one named subtest each.
# Every subtest runs on both kernels. Where stock 6.1.192 still has the bug
# the subtest fails there and its log says so: a finding about stock, not a
# failure of the series. Related cases elsewhere: 72-fq-limit-peeked (limit
# lowered under a peeked packet), 58-fq-fastpath:fastpath_no_reorder (a due
# throttled flow is never overtaken), 52-fq-txtime (SO_TXTIME of any value
# from an unprivileged user namespace).
# shellcheck source=tests/lib-fq.sh
. "$T/lib-fq.sh"
CASE_TIMEOUT=90

# flood RATE SECS: 64 UDP flows (one unconnected socket, so `sent` is what
# the qdisc was offered) from snd to rcv port 9000.., in the background;
# its pid in FLOOD_PID, its summary in $R/data/flood.txt.
flood() {
	# ip netns exec, not sn: FLOOD_PID is then udpflows itself, which a
	# kill stops (a subshell's death would leave its sender running).
	ip netns exec snd udpflows -d "$RCV_IP" -p 9000 -n 64 -r "$1" -t "$2" -l 1000 >"$R/data/flood.txt" &
	FLOOD_PID=$!
}

# txp NS DEV: the device's tx_packets.
txp() { ip netns exec "$1" cat "/sys/class/net/$2/statistics/tx_packets"; }

# still_sending NS DEV WHAT: the device sent packets during the next second.
still_sending() {
	local a b
	a=$(txp "$1" "$2")
	sleep 1
	b=$(txp "$1" "$2")
	[ "$b" -gt "$a" ] || fail "$3: $2 sent nothing for 1 s (tx_packets stays $a)"
	say "$3: $2 sent $((b - a)) packets in 1 s"
}

# refused_under_load WANT OPT=VAL...: a default fq carrying 64 flows gets a
# raw netlink change with OPT=VAL (values tc would not send as such). It is
# refused with WANT, the qdisc is unchanged, and it goes on sending. WANT
# clamp:N: accepted, and quantum reads N (stock 7.2 clamps quantum into
# 256..2^20 in fq_change instead of refusing it).
refused_under_load() {
	local want=$1 r q
	shift
	topo
	quiet_link
	sn tc qdisc add dev veth0 root fq
	# Long enough to outlast fqnl (a python and two dumps: several
	# seconds under TCG on a cold page cache); stopped once checked.
	flood 20m 60
	sleep 1
	r=$(fqnl snd veth0 change "$@")
	say "$r"
	if [[ $want == clamp:* ]]; then
		[[ $r == *": OK CHANGED" ]] || fail "change $* was not accepted and applied: $r"
		q=$(qv "$(sn tc -j qdisc show dev veth0)" fq quantum)
		[ "$q" = "${want#clamp:}" ] || fail "change $* left quantum $q, not clamped to ${want#clamp:}"
	else
		[[ $r == *": $want"* ]] || fail "change $* was not refused with $want: $r"
		[[ $r == *unchanged ]] || fail "change $* was refused, but changed the qdisc: $r"
	fi
	still_sending snd veth0 "after change $*"
	kill -0 "$FLOOD_PID" 2>/dev/null || fail "udpflows ended early: $(cat "$R/data/flood.txt")"
	kill "$FLOOD_PID"
	wait "$FLOOD_PID" || true
}

# 2016: quantum 0 made every flow's credit stay <= 0 and dequeue looped for
# ever (fixed by refusing quantum 0, 6.1 answers EINVAL).
t_quantum_zero_2016_hang() {
	if kernel_is stock72 next72; then refused_under_load clamp:256 quantum=0; else refused_under_load EINVAL quantum=0; fi
}

# syzbot 2020: quantum 2^31 made the s32 credit negative after one refill:
# an endless loop. 6.1 bounds quantum to 1 MiB (EINVAL).
t_quantum_2pow31_syzbot_2020() {
	if kernel_is stock72 next72; then
		refused_under_load clamp:1048576 quantum=0x80000000
	else
		refused_under_load EINVAL quantum=0x80000000
	fi
}

# 2023: initial_quantum above INT_MAX made a new flow's s32 credit negative
# and starved it in a soft lockup. 6.1's policy range answers ERANGE.
t_initial_quantum_over_int_max_2023() { refused_under_load ERANGE initial_quantum=0x80000000; }

# CVE-2026-90076: a device without an MTU bound (dummy: max_mtu 0) at MTU
# 2^31 - 14 has psched_mtu 2^31, so a default fq's 2 * psched_mtu quantum
# wraps to 0 in u32 and dequeue spins for ever with the qdisc lock held.
# The default quantum must stay in 1..1 MiB. Traffic is sent only when it
# does: a kernel that shows quantum 0 would wedge this guest, so on such a
# kernel the subtest fails on the option alone.
t_huge_mtu_default_quantum() {
	local mtu=$((2147483648 - 14)) q iq s a
	ip netns add snd
	sn ip link set lo up
	sn ip link add dum0 type dummy
	sn ip link set dum0 mtu "$mtu" || fail "dummy refused MTU $mtu"
	# No IPv6 on dum0: a late router solicitation or MLD report would
	# land in the 2000-datagram count below (it did, once, on CI).
	sn sysctl -qw net.ipv6.conf.dum0.disable_ipv6=1
	sn ip link set dum0 up
	sn ip addr add 198.18.1.1/24 dev dum0
	sn tc qdisc add dev dum0 root fq
	s=$(sn tc -j qdisc show dev dum0)
	q=$(qv "$s" fq quantum) iq=$(qv "$s" fq initial_quantum)
	say "MTU $(sn cat /sys/class/net/dum0/mtu): default quantum $q, initial_quantum $iq"
	if [ "$q" = 0 ] || [ "$q" -gt 1048576 ]; then
		! kernel_is stock61 ||
			kernel_note "known stock 6.1 bug: 2 * psched_mtu wraps, quantum $q; dequeue would spin for ever (no traffic sent: it would wedge this guest)"
		fail "default quantum $q on MTU $mtu is not in 1..1048576"
	fi
	a=$(fqs snd dum0)
	sn udpflows -d 198.18.1.2 -p 9000 -n 16 -c 2000 -r 20m -l 1000 >"$R/data/mtu-tx.txt" ||
		fail "udpflows failed: $(cat "$R/data/mtu-tx.txt")"
	sleep 0.5
	s=$(fqs snd dum0)
	say "fq after 2000 datagrams: $(tr '\n' ' ' <<<"$s")"
	[ "$(fqsd "$a" "$s" packets)" = 2000 ] || fail "fq sent $(fqsd "$a" "$s" packets) of 2000"
	[ "$(fqsv "$s" qlen)" = 0 ] || fail "fq still holds $(fqsv "$s" qlen) packets"
}

# CVE-2025-39677: tbf at the root, fq below, a flood ping; `limit 0` trims
# fq (a packet tbf peeked included), then the leaf is replaced by sfq. The
# trim and the graft must leave every level at 0 packets and 0 bytes, and
# tbf's backlog must not underflow (a u32 near 2^32) once sfq drains.
t_tbf_limit0_sfq_graft_cve_2025_39677() {
	local s ppid
	topo
	quiet_link
	# The flood offers 250 datagrams/s, tbf's 200 kbit/s passes 25 of them;
	# ping -f beside it (the report's traffic) paces itself on the replies,
	# alone it would not fill fq under TCG.
	sn tc qdisc add dev veth0 root handle 1: tbf rate 200kbit burst 3000 limit 1000000
	sn tc qdisc add dev veth0 parent 1:1 handle 10: fq limit 5000
	flood 2m 4
	sn ping -f -l 200 -s 1000 -w 6 -q "$RCV_IP" >"$R/data/ping-f.txt" 2>&1 &
	ppid=$!
	fq_fill_wait snd veth0 10: 100 || true
	s=$(snap snd veth0)
	say "flooded: $(levels "$s" tbf/1: fq/10:)"
	[ "$(qv "$s" fq qlen)" -ge 100 ] || fail "the flood ping did not fill fq: $(levels "$s" tbf/1: fq/10:)"
	sn tc qdisc change dev veth0 parent 1:1 handle 10: fq limit 0
	s=$(snap snd veth0)
	say "after fq limit 0: $(levels "$s" tbf/1: fq/10:)"
	levels_empty "$s" tbf/1: fq/10: "after fq limit 0"
	sn tc qdisc replace dev veth0 parent 1:1 handle 20: sfq
	s=$(snap snd veth0)
	say "after the graft of sfq: $(levels "$s" tbf/1: sfq/20:)"
	[ "$(qv "$s" tbf backlog)" -lt 2000000000 ] || fail "tbf backlog underflowed: $(levels "$s" tbf/1: sfq/20:)"
	wait "$ppid" || true
	wait "$FLOOD_PID" || true
	cat "$R/data/ping-f.txt" "$R/data/flood.txt"
	for _ in $(seq 80); do
		s=$(snap snd veth0)
		[ "$(qv "$s" tbf qlen)" = 0 ] && break
		sleep 0.25
	done
	say "drained: $(levels "$s" tbf/1: sfq/20:)"
	levels_empty "$s" tbf/1: sfq/20: "after sfq drained"
}

# wait_queued: poll the root fq on veth0 until it holds packets (a KASAN
# sender needs more than a second; 2 s, scaled); prints the last fqs.
wait_queued() {
	local s
	for _ in $(seq $((10 * ${FQP_TIMEOUT_SCALE:-1}))); do
		s=$(fqs snd veth0)
		[ "$(fqsv "$s" qlen)" = 0 ] || break
		sleep 0.2
	done
	echo "$s"
}

# Reset with packets queued: link down (qdisc_reset) and a replace, each
# while fq holds throttled packets (maxrate is per flow: 64 flows at
# 10 kbit/s pass 77 of the datagrams/s offered, 2500 here, ~200 under
# KASAN). After the reset fq holds no packet and no flow; after traffic
# resumes (100 kbit/s per flow) its counters add up; a replaced fq starts
# with every counter at 0.
t_reset_with_backlog() {
	local s a k
	topo
	quiet_link
	# 10 kbit/s per flow: even a KASAN sender (~200 datagrams/s) queues.
	sn tc qdisc add dev veth0 root fq maxrate 10kbit
	flood 20m $((2 * ${FQP_TIMEOUT_SCALE:-1}))
	s=$(wait_queued)
	say "paced: $(tr '\n' ' ' <<<"$s")"
	[ "$(fqsv "$s" qlen)" -gt 0 ] || fail "fq held no packet before the reset"
	sn ip link set veth0 down
	s=$(fqs snd veth0)
	say "after link down: $(tr '\n' ' ' <<<"$s")"
	for k in qlen backlog flows inactive_flows throttled_flows; do
		[ "$(fqsv "$s" "$k")" = 0 ] || fail "after the reset $k is $(fqsv "$s" "$k")"
	done
	wait "$FLOOD_PID" || true
	sn ip link set veth0 up
	# Link down flushed the permanent neighbour entries too: without them
	# the first datagram would wait for an ARP reply, and fq would send 201.
	quiet_link
	sn tc qdisc change dev veth0 root fq maxrate 100kbit
	a=$(fqs snd veth0)
	sn udpflows -d "$RCV_IP" -p 9000 -n 8 -c 200 -r 1m -l 1000 >"$R/data/reset-tx.txt" ||
		fail "udpflows failed after link up: $(cat "$R/data/reset-tx.txt")"
	# 8 flows at 100 kbit/s: 100 packets/s, so ~2 s to drain.
	for _ in $(seq 40); do
		s=$(fqs snd veth0)
		[ "$(fqsv "$s" qlen)" != 0 ] || break
		sleep 0.25
	done
	say "after link up and 200 datagrams: $(tr '\n' ' ' <<<"$s")"
	[ "$(fqsd "$a" "$s" packets)" = 200 ] || fail "after link up fq sent $(fqsd "$a" "$s" packets) of 200"
	fq_consistent "$(fq_stats_in snd veth0)" || fail "counters inconsistent after link up"
	sn tc qdisc change dev veth0 root fq maxrate 10kbit
	flood 20m $((2 * ${FQP_TIMEOUT_SCALE:-1}))
	s=$(wait_queued)
	[ "$(fqsv "$s" qlen)" -gt 0 ] || fail "fq held no packet before the replace"
	# A new handle: with the old one (or none) replace only changes it.
	sn tc qdisc replace dev veth0 root handle 2: fq maxrate 10kbit
	s=$(fqs snd veth0 2:)
	say "right after replace: $(tr '\n' ' ' <<<"$s")"
	# The flood still runs: only counters it cannot move in this instant.
	for k in drops flows_plimit horizon_drops horizon_caps allocation_errors gc_flows; do
		[ "$(fqsv "$s" "$k")" = 0 ] || fail "a replaced fq starts with $k $(fqsv "$s" "$k")"
	done
	wait "$FLOOD_PID" || true
}
