# shellcheck shell=bash
# BBR through fq: BBR asks for pacing (SK_PACING_NEEDED) and fq does it;
# the transfer completes. BBR's own min_tso_segs hook (1 segment below
# 1.2 Mbit/s pacing, else 2) overrides tcp_min_tso_segs.
# shellcheck source=tests/lib-tcp.sh
. "$T/lib-tcp.sh"
CASE_TIMEOUT=90

# A 4 MB BBR transfer through fq arrives whole; the sender had a pacing
# rate (BBR's own), fq throttled the flow at least once and kept a flow
# for it.
t_bbr_through_fq() {
	tcp_topo 10ms
	sn tc qdisc add dev veth0 root fq
	thr0=$(qstat snd veth0 throttled)
	stamp "transfer starts"
	# A fixed byte count, compared with what the receiver read until EOF.
	# (The sender reads its own TCP_INFO: an ss loop can miss a 2 s flow.)
	res=$(py_transfer bbr 4000000)
	stamp "transfer done: $res"
	thr1=$(qstat snd veth0 throttled)
	flows=$(qstat snd veth0 flows)
	sn tc -s qdisc show dev veth0
	[ "${res% pacing_bps=*}" = "sent=4000000 received=4000000 cc=bbr" ] || fail "transfer: $res"
	pacing=${res##*pacing_bps=}
	# BBR set a pacing rate (it does not use tcp_update_pacing_rate).
	[ "$pacing" -gt 0 ] || fail "BBR sender never had a pacing_rate"
	# fq delayed the flow at least once (a paced flow waiting for its
	# time_next_packet), and kept a flow for it.
	[ "$thr1" -gt "$thr0" ] || fail "fq throttled did not move ($thr0 -> $thr1): BBR not paced by fq"
	[ "$flows" -ge 1 ] || fail "fq has $flows flows"
}

# gso_run NAME CC IPERF-ARGS...: a 2 s flow at 1 Mbit/s through fq,
# captured; stats in $R/data/NAME.stat.
gso_run() {
	local name=$1 cc=$2
	shift 2
	capture_start "$R/data/$name.pcap"
	iperf_server
	iperf_client "$R/data/$name.json" -C "$cc" -t 2 --fq-rate 1M "$@"
	capture_stop
	bulk_stats "$R/data/$name.pcap" "$R/data/$name.stat"
	say "== $name"
	cat "$R/data/$name.stat"
}

# At 1 Mbit/s BBR's min_tso_segs hook gives 1-segment GSO packets whatever
# tcp_min_tso_segs says (2 or 44); cubic follows the sysctl (2 segments,
# then 10 or more).
t_bbr_min_tso_segs() {
	tcp_topo 10ms
	sn tc qdisc add dev veth0 root fq
	# 1 Mbit/s = 125000 B/s, under BBR's 1.2 Mbit/s threshold: BBR's hook
	# says 1 segment, cubic uses tcp_min_tso_segs. 1 ms of data at this
	# rate is far below 1 MSS, so the floor alone sets the GSO size.
	gso_run bbr2 bbr
	gso_run cubic2 cubic
	sn sysctl -qw net.ipv4.tcp_min_tso_segs=44
	gso_run bbr44 bbr
	gso_run cubic44 cubic
	for r in bbr2 bbr44; do
		[ "$(kv "$R/data/$r.stat" len_max)" -le "$MSS" ] ||
			fail "$r: GSO packets of $(kv "$R/data/$r.stat" len_max) B, want 1 MSS (BBR's min_tso_segs)"
	done
	[ "$(kv "$R/data/cubic2.stat" len_median)" = $((2 * MSS)) ] ||
		fail "cubic2: median GSO $(kv "$R/data/cubic2.stat" len_median), want 2*MSS"
	# cubic follows the sysctl: its first packet already fills the initial
	# cwnd (10 segments); the 44-segment packets need cwnd to grow, which
	# takes longer than this short flow at 1 Mbit/s.
	[ "$(kv "$R/data/cubic44.stat" len_max)" -ge $((10 * MSS)) ] ||
		fail "cubic44: largest GSO $(kv "$R/data/cubic44.stat" len_max), want >= 10*MSS (tcp_min_tso_segs=44)"
}
