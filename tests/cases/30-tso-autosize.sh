# shellcheck shell=bash
# TSO autosizing (tcp_tso_autosize): a GSO packet carries about 1 ms of
# data at sk_pacing_rate (>> sk_pacing_shift 10), at least tcp_min_tso_segs
# (or the CC's min_tso_segs) segments, at most 64 KB. Captured on the
# sender's veth0 (TSO/GSO on), where packets still have their GSO size.
#
# The 10 ms RTT matters: autosizing adds gso_max_size >> (min_rtt_us >> 9)
# (tcp_tso_rtt_log), i.e. full 64 KB packets whenever min_rtt < 512 us.
# SO_MAX_PACING_RATE (iperf3 --fq-rate) clamps sk_pacing_rate, and so the
# autosizing, with or without fq; without fq TCP paces internally. Both are
# run for the low-rate cases.
# shellcheck source=tests/lib-tcp.sh
. "$T/lib-tcp.sh"
# shellcheck source=tests/lib-fq.sh
. "$T/lib-fq.sh"
CASE_TIMEOUT=60

# tso_run NAME QDISC IPERF-ARGS...: a 2 s cubic flow with veth0's root qdisc
# QDISC (fq, or "none" for the default), captured; stats in $R/data/NAME.stat.
tso_run() {
	local name=$1 q=$2
	shift 2
	if [ "$q" = fq ]; then
		sn tc qdisc replace dev veth0 root fq
	else
		sn tc qdisc del dev veth0 root 2>/dev/null || true
	fi
	capture_start "$R/data/$name.pcap"
	iperf_server
	iperf_client "$R/data/$name.json" -C cubic -t 2 "$@"
	capture_stop
	bulk_stats "$R/data/$name.pcap" "$R/data/$name.stat"
	say "== $name (root qdisc $q, iperf3 $*)"
	cat "$R/data/$name.stat"
}

# At 20 Mbit/s (SO_MAX_PACING_RATE), with and without fq: GSO packets of
# two segments (median and p90 at most 2 x MSS, median above 1 MSS:
# tcp_min_tso_segs 2 decides, 1 ms of data is less), sent at most at the
# cap.
t_low_rate_small_gso() {
	tcp_topo 10ms
	for q in none fq; do
		# 20 Mbit/s = 2.5 MB/s: 2441 B per ms, under 2 segments, so
		# min_tso_segs (2) decides: 2 * 1448 = 2896 B per GSO packet.
		tso_run "low-$q" "$q" --fq-rate 20M
		f=$R/data/low-$q.stat
		med=$(kv "$f" len_median) p90=$(kv "$f" len_p90) n=$(kv "$f" data_packets)
		[ "$n" -ge 500 ] || fail "[$q] only $n data packets captured"
		[ "$med" -le $((2 * MSS)) ] || fail "[$q] median GSO size $med at 20 Mbit/s, want <= 2*MSS"
		[ "$p90" -le $((2 * MSS)) ] || fail "[$q] p90 GSO size $p90 at 20 Mbit/s, want <= 2*MSS"
		# Half the packets are full 2-segment ones (not 1 MSS): min_tso_segs.
		[ "$med" -gt "$MSS" ] || fail "[$q] median GSO size $med, want 2 segments (min_tso_segs 2)"
		# The rate really was low (the cap works with and without fq).
		bps=$(kv "$f" throughput_bps)
		fcmp "$bps <= 21e6" || fail "[$q] sent at $bps bit/s under a 20 Mbit/s cap"
	done
}

# Uncapped, the pacing rate reaches hundreds of Mbit/s: the largest GSO
# packet is 40000 B or more and half the bytes go in packets of 16 KB or
# more.
t_high_rate_big_gso() {
	tcp_topo 10ms
	# Uncapped: pacing_rate reaches hundreds of Mbit/s even under TCG, so
	# 1 ms of data is tens of KB.
	tso_run high none
	f=$R/data/high.stat
	bmed=$(kv "$f" len_bytes_median) max=$(kv "$f" len_max) bps=$(kv "$f" throughput_bps)
	[ "$max" -ge 40000 ] || fail "largest GSO packet $max at $bps bit/s, want >= 40000"
	[ "$bmed" -ge 16384 ] || fail "half the bytes in GSO packets < $bmed B at $bps bit/s, want >= 16 KB"
}

# tcp_min_tso_segs 44 at 20 Mbit/s, with and without fq: back to ~64 KB
# bursts (byte median 40000 B or more, none above 44 segments).
t_min_tso_segs_44() {
	tcp_topo 10ms
	# The same 20 Mbit/s cap as t_low_rate_small_gso, but 44 segments is
	# the floor now: back to ~64 KB bursts (44 * 1448 = 63712 B).
	sn sysctl -qw net.ipv4.tcp_min_tso_segs=44
	for q in none fq; do
		tso_run "min44-$q" "$q" --fq-rate 20M
		f=$R/data/min44-$q.stat
		# Byte-weighted: a cwnd-limited flow alternates 44-segment packets
		# with 1-segment remainders, so the plain median is either.
		bmed=$(kv "$f" len_bytes_median) max=$(kv "$f" len_max)
		[ "$bmed" -ge 40000 ] || fail "[$q] byte-median GSO size $bmed with tcp_min_tso_segs=44, want >= 40000"
		[ "$max" -le $((44 * MSS)) ] || fail "[$q] GSO size $max above 44 segments"
		bps=$(kv "$f" throughput_bps)
		fcmp "$bps <= 21e6" || fail "[$q] sent at $bps bit/s under a 20 Mbit/s cap"
	done
}

# tcp_tso_rtt_log takes any u8, but the allowance is gso_max_size >>
# (min_rtt_us >> tcp_tso_rtt_log): from 32 on, that shift of a u32 is out
# of bounds (UBSAN), and x86 masks the count, so 32 acts as 0 and the
# allowance vanishes while 31 gives all of it. The fix (patches/net/) counts
# every min_rtt as zero halvings from 32 on, as 31 does for any real RTT.
# At 20 Mbit/s and 10 ms the rate alone gives 2-segment packets, so a full
# allowance shows as ~64 KB packets at both 31 and 32.
t_tso_rtt_log_32() {
	local log bmed
	local -A got=()
	tcp_topo 10ms
	for log in 31 32; do
		sn sysctl -qw net.ipv4.tcp_tso_rtt_log=$log ||
			fail "tcp_tso_rtt_log=$log refused (the sysctl takes 0..255)"
		tso_run "rttlog$log" none --fq-rate 20M
		bmed=$(kv "$R/data/rttlog$log.stat" len_bytes_median)
		got[$log]=$bmed
		say "tcp_tso_rtt_log=$log: byte-median GSO size $bmed"
	done
	if [ "${got[32]}" -lt 40000 ] && kernel_is stock61 stock72; then
		kernel_note "known stock bug: tcp_tso_rtt_log=32 shifts min_rtt (a u32) by 32, x86 masks it to 0, and the RTT allowance vanishes (byte-median ${got[32]} B against ${got[31]} B at 31)"
	fi
	[ "${got[31]}" -ge 40000 ] || fail "byte-median GSO size ${got[31]} at tcp_tso_rtt_log=31 and 10 ms, want >= 40000 (the full allowance)"
	[ "${got[32]}" -ge 40000 ] || fail "byte-median GSO size ${got[32]} at tcp_tso_rtt_log=32, want >= 40000 as at 31 (${got[31]}): no halving from 32 on"
}
