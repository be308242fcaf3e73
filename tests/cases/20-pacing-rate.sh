# shellcheck shell=bash
# TCP's sk_pacing_rate (tcp_update_pacing_rate): ratio% * cwnd * mss / srtt,
# ratio tcp_pacing_ss_ratio (200) in slow start (cwnd < ssthresh/2) and
# tcp_pacing_ca_ratio (120) otherwise, capped by SO_MAX_PACING_RATE. TCP
# computes it with or without fq, so no qdisc is set here. Read with ss on
# the sender while a bulk flow (cubic; reno where HyStart would interfere)
# runs over veth with a 10 ms RTT.
#
# cwnd and ssthresh are pinned with locked route metrics so that the phase
# is known and the rates stay under 100 Mbit/s (TCG-safe): "cwnd lock 40"
# clamps cwnd to 40 (2 * 40 * 1448 B / 10 ms = 93 Mbit/s at 200%);
# "ssthresh lock 20" starts the flow with cwnd 10 >= ssthresh/2, so the
# whole flow uses the CA ratio.
# shellcheck source=tests/lib-tcp.sh
. "$T/lib-tcp.sh"
CASE_TIMEOUT=60

# pacing_run NAME CC IPERF-ARGS...: a 4 s bulk flow with ss sampled during
# it; leaves $R/data/NAME.ss and NAME.json.
pacing_run() {
	local name=$1 cc=$2
	shift 2
	iperf_server
	stamp "flow starts"
	ss_sampler "$R/data/$name.ss"
	iperf_client "$R/data/$name.json" -C "$cc" -t 4 "$@"
	ss_sampler_stop
	stamp "flow done"
}

# judge FILE KIND WANT: at least 6 samples, all of phase KIND (ss or ca),
# >= 90% within 10% of the formula, median ratio within 5% of WANT.
judge() {
	local f=$1 kind=$2 want=$3 n other ok med
	cat "$f"
	n=$(kv "$f" samples)
	ok=$(kv "$f" ok)
	med=$(kv "$f" "ratio_${kind}_median")
	if [ "$kind" = ss ]; then other=$(kv "$f" ca_samples); else other=$(kv "$f" ss_samples); fi
	[ "$n" -ge 6 ] || fail "only $n ss samples of the bulk flow"
	[ "$other" = 0 ] || fail "$other samples were not in phase $kind (ssthresh not as pinned)"
	fcmp "$ok >= 0.9 * $n" || fail "only $ok of $n samples within 10% of $want% * cwnd * mss / rtt"
	approx "$med" "$want" 5 || fail "median pacing ratio $med%, want $want%"
}

# Slow start (reno, cwnd locked at 40): 90 % of the ss samples within
# 10 % of 200 % x cwnd x mss / rtt, their median within 5 % of 200 %.
t_slow_start_ratio() {
	tcp_topo 10ms
	# No ssthresh: the flow stays in slow start, clamped at cwnd 40. Reno,
	# not cubic: cubic's HyStart sets ssthresh = cwnd as soon as the RTT
	# rises 4 ms above its minimum, which TCG's jitter does at random. The
	# ratio logic is the same for every CC that leaves pacing to TCP.
	route_metrics cwnd lock 40
	pacing_run ss reno
	ss_pacing "$R/data/ss.ss" 200 120 >"$R/data/ss.txt"
	judge "$R/data/ss.txt" ss 200
	[ "$(kv "$R/data/ss.txt" cwnd_max)" -le 40 ] || fail "cwnd above the locked 40"
}

# Congestion avoidance (cwnd 40, ssthresh locked at 20, cubic): the same
# at 120 %, tcp_pacing_ca_ratio's default.
t_congestion_avoidance_ratio() {
	tcp_topo 10ms
	# The ssthresh metric is ignored unless saving it is on (default off).
	sn sysctl -qw net.ipv4.tcp_no_ssthresh_metrics_save=0
	route_metrics cwnd lock 40 ssthresh lock 20
	[ "$(nsysctl snd net.ipv4.tcp_pacing_ca_ratio)" = 120 ] || fail "tcp_pacing_ca_ratio default is not 120"
	pacing_run ca cubic
	ss_pacing "$R/data/ca.ss" 200 120 >"$R/data/ca.txt"
	judge "$R/data/ca.txt" ca 120
}

# tcp_pacing_ca_ratio 200 in the sender's namespace: the congestion
# avoidance rate follows it (200 %), and init_net keeps 120.
t_ca_ratio_sysctl() {
	tcp_topo 10ms
	sn sysctl -qw net.ipv4.tcp_no_ssthresh_metrics_save=0
	# Per netns: the seed's 2 * cwnd * mss / srtt in congestion avoidance.
	sn sysctl -qw net.ipv4.tcp_pacing_ca_ratio=200
	route_metrics cwnd lock 40 ssthresh lock 20
	pacing_run ca200 cubic
	ss_pacing "$R/data/ca200.ss" 200 200 >"$R/data/ca200.txt"
	judge "$R/data/ca200.txt" ca 200
	[ "$(sysctl -n net.ipv4.tcp_pacing_ca_ratio)" = 120 ] || fail "the snd netns write leaked into init_net"
}

# SO_MAX_PACING_RATE 20 Mbit/s (iperf3 --fq-rate): no sample paces above
# it, at least half are capped, 90 % read min(formula, 20 Mbit/s), and
# TCP's internal pacing (no fq) holds the goodput under 20 Mbit/s.
t_max_pacing_rate_cap() {
	tcp_topo 10ms
	# Uncapped this flow would pace at 2 * cwnd * mss / rtt, far above the
	# cap (reno: no HyStart, so it stays in slow start at 200%).
	route_metrics cwnd lock 100
	pacing_run cap reno --fq-rate 20M
	ss_pacing "$R/data/cap.ss" 200 120 20000000 >"$R/data/cap.txt"
	cat "$R/data/cap.txt"
	n=$(kv "$R/data/cap.txt" samples)
	[ "$n" -ge 6 ] || fail "only $n ss samples of the bulk flow"
	[ "$(kv "$R/data/cap.txt" over_cap)" = 0 ] || fail "pacing_rate above SO_MAX_PACING_RATE 20 Mbit/s"
	# The cap is what set the rate (the formula was above it) in most
	# samples, and there pacing_rate is the cap; elsewhere the formula.
	capped=$(kv "$R/data/cap.txt" capped)
	fcmp "$capped >= 0.5 * $n" || fail "the formula exceeded the cap in only $capped of $n samples"
	ok=$(kv "$R/data/cap.txt" ok)
	fcmp "$ok >= 0.9 * $n" || fail "only $ok of $n samples at min(formula, 20 Mbit/s)"
	# TCP's internal pacing (no fq) enforces it: the capped flow's goodput
	# stays under 20 Mbit/s (uncapped, cwnd 100 at ~10 ms would be ~100).
	# No lower bound: the pacing hrtimer fires late under TCG (~11 Mbit/s).
	bps=$(iperf_field "$R/data/cap.json" 'j["end"]["sum_received"]["bits_per_second"]')
	say "received $bps bit/s"
	fcmp "$bps <= 20e6 * 1.02" || fail "goodput $bps bit/s above the 20 Mbit/s cap"
}
