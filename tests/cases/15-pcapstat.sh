# shellcheck shell=bash
# Unit test of pcapstat: a synthetic pcap written by pcapgen (libpcap's
# pcap_dump) with known times and sizes; pcapstat's numbers must be exact.
CASE_TIMEOUT=30

# The capture: flow A (IPv4, 6 data packets incl. a 64000 B GSO-sized one),
# flow B (A's pure ACKs), a UDP packet (not TCP: ignored) and flow C (IPv6,
# 4 x 1500 B every 500 us). Times in microseconds.
SPEC='
1000000 198.18.0.1 40000 198.18.0.2 5201 1000
1000050 198.18.0.2 5201 198.18.0.1 40000 0 ack
1000100 198.18.0.1 40000 198.18.0.2 5201 2000
1000200 198.18.0.1 9 198.18.0.2 9 100 udp
1000300 198.18.0.1 40000 198.18.0.2 5201 3000
1000600 198.18.0.1 40000 198.18.0.2 5201 4000
1000700 198.18.0.2 5201 198.18.0.1 40000 0 ack
1001000 198.18.0.1 40000 198.18.0.2 5201 5000
1002000 198.18.0.1 40000 198.18.0.2 5201 64000
1003000 2001:db8::1 40001 2001:db8::2 5201 1500
1003500 2001:db8::1 40001 2001:db8::2 5201 1500
1004000 2001:db8::1 40001 2001:db8::2 5201 1500
1004500 2001:db8::1 40001 2001:db8::2 5201 1500'

# Worked out by hand. Sizes sorted: 1000 1500x4 2000 3000 4000 5000 64000;
# nearest rank: median = 5th = 1500, p90 = 9th = 5000; byte-weighted: the
# nine small ones carry 21000 of 85000 B, so 64000. Gaps per flow:
# A 100 200 300 400 1000, C 500 500 500 -> p10 = 1st = 100, median = 4th =
# 400, p90 = 8th = 1000. Busiest [t, t+1 ms): the 64000 B packet alone
# (100..1000 us after the start holds 2000+3000+4000+5000 = 14000 only).
# 85000 B over 4500 us = 151111111 bit/s; A: 79000 B over 2000 us.
WANT_ALL='packets=12
data_packets=10
bytes=85000
len_min=1000
len_median=1500
len_p90=5000
len_max=64000
len_bytes_median=64000
gaps=8
gap_p10_us=100
gap_median_us=400
gap_p90_us=1000
burst_window_us=1000
burst_max_bytes=64000
duration_us=4500
throughput_bps=151111111
flows=3
flow=198.18.0.1:40000>198.18.0.2:5201 packets=6 data_packets=6 bytes=79000 duration_us=2000 throughput_bps=316000000
flow=[2001:db8::1]:40001>[2001:db8::2]:5201 packets=4 data_packets=4 bytes=6000 duration_us=1500 throughput_bps=32000000
flow=198.18.0.2:5201>198.18.0.1:40000 packets=2 data_packets=0 bytes=0 duration_us=0 throughput_bps=0'

# expect NAME WANT CMD...: CMD's output must be exactly WANT.
expect() {
	local name=$1 want=$2 got
	shift 2
	got=$("$@") || fail "$name: '$*' exited $?"
	if [ "$got" != "$want" ]; then
		diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") | sed 's/^/  /'
		fail "$name: pcapstat output differs (< want, > got)"
	fi
}

gen() {
	local out=$1
	shift
	printf '%s\n' "$SPEC" | pcapgen "$@" "$out" || fail "pcapgen $* failed"
}

# Every statistic of the synthetic capture is exact: in full, cut to a
# snaplen of 128 (sizes come from the original length) and with
# nanosecond times; the per-packet CSV has one row per data packet.
t_pcapstat_exact() {
	d=$R/data/pcapstat
	mkdir -p "$d"
	gen "$d/full.pcap"
	expect full "$WANT_ALL" pcapstat -c "$d/full.csv" "$d/full.pcap"
	# Snaplen 128 as in the TCP cases: sizes come from the original length.
	gen "$d/snap.pcap" -s 128
	[ "$(stat -c %s "$d/snap.pcap")" -lt 4000 ] || fail "pcapgen -s 128 did not truncate"
	expect snaplen "$WANT_ALL" pcapstat "$d/snap.pcap"
	# Nanosecond-precision files read the same.
	gen "$d/nano.pcap" -n
	expect nano "$WANT_ALL" pcapstat "$d/nano.pcap"
	# One row per data packet; the 6th is A's 64000 B packet, 1000 us after
	# A's previous one, 2000 us after the first packet.
	[ "$(wc -l <"$d/full.csv")" = 11 ] || fail "CSV has $(wc -l <"$d/full.csv") lines, want 1 + 10"
	row=$(sed -n 7p "$d/full.csv")
	[ "$row" = "2000.000,198.18.0.1:40000>198.18.0.2:5201,64000,1000.000" ] || fail "CSV row 6 is '$row'"
}

# A tcpdump-style filter selects one flow, a 2 ms window finds the
# largest burst, a `less` filter changes the byte median, an empty
# selection gives zeros and a bad filter is an error.
t_pcapstat_filter_window() {
	d=$R/data/pcapstat
	mkdir -p "$d"
	gen "$d/f.pcap"
	# A BPF filter (as tcpdump takes it, several words): flow C only.
	expect ip6 'packets=4
data_packets=4
bytes=6000
len_min=1500
len_median=1500
len_p90=1500
len_max=1500
len_bytes_median=1500
gaps=3
gap_p10_us=500
gap_median_us=500
gap_p90_us=500
burst_window_us=1000
burst_max_bytes=3000
duration_us=1500
throughput_bps=32000000
flows=1
flow=[2001:db8::1]:40001>[2001:db8::2]:5201 packets=4 data_packets=4 bytes=6000 duration_us=1500 throughput_bps=32000000' \
		pcapstat "$d/f.pcap" ip6 and tcp
	# Flow A with a 2 ms window: 100..2000 us holds 2000+3000+4000+5000+64000.
	got=$(pcapstat -w 2000 "$d/f.pcap" src port 40000)
	grep -qx 'burst_max_bytes=78000' <<<"$got" || fail "2 ms burst: $(grep burst <<<"$got")"
	grep -qx 'len_median=3000' <<<"$got" || fail "flow A median: $(grep len_median <<<"$got")"
	# Without the 64000 B packet (BPF "less" is on the frame length):
	# 15000 B, half reached at 1000+2000+3000+4000 -> 4000.
	got=$(pcapstat "$d/f.pcap" src port 40000 and less 10000)
	grep -qx 'len_bytes_median=4000' <<<"$got" || fail "byte median: $(grep len_bytes <<<"$got")"
	# Nothing matches: zeros, not a crash.
	got=$(pcapstat "$d/f.pcap" port 1)
	grep -qx 'packets=0' <<<"$got" && grep -qx 'flows=0' <<<"$got" || fail "empty selection: $got"
	# A bad filter is an error.
	if pcapstat "$d/f.pcap" 'tcp and and' >/dev/null 2>&1; then
		fail "a bad BPF expression was accepted"
	fi
}
