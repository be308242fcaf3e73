# shellcheck shell=bash
# sch_fq limits: flow_limit drops count in flows_plimit, limit drops in
# drops, and the counters reconcile with what the sender offered.
# shellcheck source=tests/lib-fq.sh
. "$T/lib-fq.sh"
CASE_TIMEOUT=60

# drained: wait until the root fq is empty (max 10 s)
drained() {
	for _ in $(seq 50); do
		[ "$(fqx snd veth0 qlen)" = 0 ] && return 0
		sleep 0.2
	done
	fail "fq did not drain: qlen $(fqx snd veth0 qlen)"
}

# limit_setup: IPv6 off and ARP done, so the only packets through the qdisc
# are the ones udpflows counts.
limit_setup() {
	topo
	quiet_link
}

# One connected UDP socket offers 20 Mbit/s for 3 s into flow_limit 10 at
# maxrate 10mbit: the flow queue sits at 10 and about half the packets drop
# as flows_plimit. Every packet offered is received, dropped or queued.
t_flow_limit() {
	limit_setup
	sn tc qdisc add dev veth0 root fq flow_limit 10 maxrate 10mbit
	rn udpflows -R -p 9000 -t 20 -i 1500 >"$R/data/plimit-rx.txt" &
	rpid=$!
	wait_listen rcv udp 9000
	sn udpflows -d "$RCV_IP" -p 9000 -C -t 3 -r 20m -l 1000 >"$R/data/plimit-tx.txt" &
	tpid=$!
	sleep 1.5
	q=$(fqx snd veth0 qlen) pl1=$(fqx snd veth0 flows_plimit)
	wait "$tpid"
	say "mid-run: qlen $q, flows_plimit $pl1"
	[ "$q" -le 10 ] && [ "$q" -ge 5 ] || fail "mid-run qlen $q, want the flow at flow_limit 10"
	[ "$pl1" -gt 0 ] || fail "no flows_plimit drops mid-run"
	drained
	wait "$rpid"
	tx=$(cat "$R/data/plimit-tx.txt")
	sent=$(sed -n 's/.*sent=\([0-9]*\).*/\1/p' <<<"$tx")
	rx=$(sed -n 's/^rx=\([0-9]*\).*/\1/p' "$R/data/plimit-rx.txt")
	p=$(fqx snd veth0 packets) d=$(fqx snd veth0 drops) pl=$(fqx snd veth0 flows_plimit)
	b=$(fqx snd veth0 backlog)
	say "$tx; qdisc sent $p dropped $d (flows_plimit $pl) backlog $b, received $rx"
	[ "$b" = 0 ] || fail "backlog $b after drain"
	[ $((p + d)) = "$sent" ] || fail "sent $p + dropped $d != offered $sent"
	[ "$pl" = "$d" ] || fail "flows_plimit $pl != drops $d (all drops are per-flow)"
	# 20 Mbit/s offered, 10 Mbit/s on the wire (packets of 1000 + 42 bytes):
	# about half drops. More drop when a loaded TCG host makes fq's timer
	# late, so only the low side is bounded: fewer drops would mean fq
	# passed more than maxrate.
	acmp "$d / $sent >= 0.4" || fail "only $d of $sent dropped, want at least ~half"
	[ "$rx" = "$p" ] || fail "received $rx, qdisc sent $p"
}

# 50 connected sockets offer 10 Mbit/s for 3 s into limit 100 at maxrate
# 100kbit per flow (5 Mbit/s in all): the queue sits at limit 100 (2 packets
# a flow, far from flow_limit 100), so the drops come from the global limit
# and none from flows_plimit.
t_limit_many_flows() {
	limit_setup
	sn tc qdisc add dev veth0 root fq limit 100 maxrate 100kbit
	sn udpflows -d "$RCV_IP" -p 9000 -C -n 50 -t 3 -r 10m -l 1000 >"$R/data/limit-tx.txt" &
	tpid=$!
	sleep 1.5
	# The limit must be reached and never passed. One sample can catch
	# a dip: when the watchdog fires late, the flows due go at once
	# (a fresh-machine CI run, 2026-12-05, beside a build: qlen 89 with
	# 1301 drops). The largest of up to eight samples, 0.1 s apart and
	# inside the 3 s flood, must be at 90-100 (stock 6.1: 90-100).
	local qs=() q qmax=0
	for _ in 1 2 3 4 5 6 7 8; do
		kill -0 "$tpid" 2>/dev/null || break
		q=$(fqx snd veth0 qlen)
		qs+=("$q")
		[ "$q" -le "$qmax" ] || qmax=$q
		[ "$q" -lt 90 ] || break
		sleep 0.1
	done
	f=$(fqx snd veth0 flows) d1=$(fqx snd veth0 drops)
	wait "$tpid"
	say "mid-run: qlen ${qs[*]} (largest $qmax), flows $f, drops $d1"
	[ "$qmax" -le 100 ] && [ "$qmax" -ge 90 ] || fail "mid-run qlen ${qs[*]}, want the qdisc at limit 100"
	[ "$f" -ge 50 ] || fail "only $f flows for 50 sockets"
	[ "$d1" -gt 0 ] || fail "no drops mid-run"
	drained
	tx=$(cat "$R/data/limit-tx.txt")
	sent=$(sed -n 's/.*sent=\([0-9]*\).*/\1/p' <<<"$tx")
	p=$(fqx snd veth0 packets) d=$(fqx snd veth0 drops) pl=$(fqx snd veth0 flows_plimit)
	b=$(fqx snd veth0 backlog)
	say "$tx; qdisc sent $p dropped $d (flows_plimit $pl) backlog $b"
	[ "$b" = 0 ] || fail "backlog $b after drain"
	[ $((p + d)) = "$sent" ] || fail "sent $p + dropped $d != offered $sent"
	[ "$pl" = 0 ] || fail "flows_plimit $pl but no flow exceeded flow_limit"
	# about half, more when the timer runs late (see t_flow_limit)
	acmp "$d / $sent >= 0.35" || fail "only $d of $sent dropped, want at least ~half"
}
