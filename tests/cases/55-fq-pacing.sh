# shellcheck shell=bash
# sch_fq pacing: maxrate holds a TCP flow to its rate, and a socket's
# SO_MAX_PACING_RATE (iperf3 --fq-rate) spaces packets at len/rate.
# shellcheck source=tests/lib-fq.sh
. "$T/lib-fq.sh"
CASE_TIMEOUT=90

# maxrate 10mbit: fq charges each packet its qdisc_pkt_len() (Ethernet + IP +
# TCP headers + payload), so 10 Mbit/s on the wire is 10e6 * MSS/WIRE =
# 9.56 Mbit/s of TCP goodput. We measure goodput at the receiver (iperf3
# server), convert it back to wire bits and require 10 Mbit/s +-5%.
t_maxrate() {
	topo
	sn tc qdisc add dev veth0 root fq maxrate 10mbit
	th0=$(fqx snd veth0 throttled)
	iperf_srv 5201 "$R/data/maxrate-srv.json"
	spid=$!
	sn iperf3 -c "$RCV_IP" -t 7 -J >"$R/data/maxrate-cli.json" || fail "iperf3 failed"
	wait "$spid" || true
	good=$(srv_rate "$R/data/maxrate-srv.json" 2)
	wire=$(awk "BEGIN { printf \"%.0f\", $good * $WIRE / $MSS }")
	th1=$(fqx snd veth0 throttled) lat=$(fqx snd veth0 latency)
	sn tc -s qdisc show dev veth0
	say "goodput $good bit/s = wire $wire bit/s (want 10e6 +-5%); throttled $th0 -> $th1, unthrottle latency ${lat} ns"
	acmp "$wire >= 9.5e6 && $wire <= 10.5e6" || fail "maxrate 10mbit gave $wire bit/s on the wire"
	# Every GSO packet waits for its turn: even at 64 KB each (6.1's
	# tcp_tso_rtt_log gives full-size GSO on a ~50 us veth RTT) that is
	# ~130 throttle events in 7 s; an unpaced flow gets none.
	[ $((th1 - th0)) -ge 50 ] || fail "throttled moved only $((th1 - th0))"
	[ "$lat" -gt 0 ] || fail "unthrottle_latency_ns stayed 0"
}

# iperf3 --fq-rate 20M sets SO_MAX_PACING_RATE (2.5 MB/s). At that rate TSO
# autosizing builds GSO packets of min_tso_segs (2) segments - once
# tcp_tso_rtt_log=0 turns off 6.1's bonus of gso_max_size >> (min_rtt >> 9),
# which on a ~50 us veth RTT makes every GSO packet 64 KB (~26 ms apart:
# too few gaps to judge in a few seconds). The veth
# keeps them whole (TSO on veth0, GRO off on veth1), so tcpdump on veth1 sees
# mostly 2896-byte packets, each leaving len/rate = ~1.16 ms after the one
# before. Packets arriving < 150 us apart are merged into one burst first (in
# case a GSO packet was split into back-to-back segments); then every gap
# between bursts, divided by (bytes of the burst before) / rate, should be
# ~1 (TCP's EDT lets a late sender catch up by at most half a gap, so ~0.5 is
# the low end). Unpaced, the same flow runs at ~2 Gbit/s with 64 KB bursts:
# ratios ~0.01, and 100x the goodput. Under TCG the sender is often late
# (ratios > 1), so goodput lands below the rate; pacing caps it above.
t_fq_rate_gaps() {
	topo
	rn ethtool -K veth1 gro off
	sn sysctl -qw net.ipv4.tcp_tso_rtt_log=0
	sn tc qdisc add dev veth0 root fq
	th0=$(fqx snd veth0 throttled)
	iperf_srv 5201 "$R/data/gaps-srv.json"
	spid=$!
	sn iperf3 -c "$RCV_IP" -t 7 --fq-rate 20M -J >"$R/data/gaps-cli.json" &
	cpid=$!
	sleep 2.5
	rn timeout 3 tcpdump -i veth1 -nn -s 128 -w "$R/data/gaps.pcap" 'tcp dst port 5201 and greater 300' 2>&1 || true
	wait "$cpid" || fail "iperf3 failed"
	wait "$spid" || true
	good=$(srv_rate "$R/data/gaps-srv.json" 2)
	th1=$(fqx snd veth0 throttled) lat=$(fqx snd veth0 latency)
	tcpdump -r "$R/data/gaps.pcap" -tt -nn 2>/dev/null >"$R/data/gaps.txt"
	res=$(python3 - "$R/data/gaps.txt" 20e6 <<-'PY'
		import re, sys, collections
		rate = float(sys.argv[2]) / 8
		pk = []
		for l in open(sys.argv[1]):
		    m = re.match(r"(\d+\.\d+) .* length (\d+)", l)
		    if m and int(m.group(2)) > 0:
		        pk.append((float(m.group(1)), int(m.group(2))))
		sizes = collections.Counter(n for _, n in pk)
		bursts = []  # [start, bytes]
		for t, n in pk:
		    if bursts and t - last < 150e-6:
		        bursts[-1][1] += n
		    else:
		        bursts.append([t, n])
		    last = t
		r = sorted((b[0] - a[0]) / (a[1] / rate) for a, b in zip(bursts, bursts[1:]))
		if len(r) < 100:
		    print("FEW %d" % len(r)); sys.exit()
		q = lambda p: r[int(p / 100 * (len(r) - 1))]
		near = sum(0.8 <= x <= 1.2 for x in r) / len(r)
		print("n=%d bursts=%d p10=%.2f p50=%.2f p90=%.2f near=%.2f sizes=%s" % (len(pk), len(bursts), q(10), q(50), q(90), near, sizes.most_common(4)))
	PY
	)
	say "goodput $good bit/s; throttled $th0 -> $th1, latency $lat ns; gap/(len/rate): $res"
	case $res in FEW*) fail "too few paced packets captured: $res" ;; esac
	p10=$(sed 's/.*p10=\([0-9.]*\).*/\1/' <<<"$res") p50=$(sed 's/.*p50=\([0-9.]*\).*/\1/' <<<"$res")
	near=$(sed 's/.*near=\([0-9.]*\).*/\1/' <<<"$res")
	# TCP paces payload bytes, so goodput can reach the rate but not pass
	# it (+3% for measurement slack); the low bound only catches a stall.
	acmp "$good > 0.5 * 20e6 && $good < 1.03 * 20e6" || fail "goodput $good with --fq-rate 20M"
	acmp "0.85 <= $p50 && $p50 <= 1.15" || fail "median gap is $p50 x len/rate, want ~1"
	acmp "$near >= 0.4" || fail "only $near of the gaps within 20% of len/rate"
	acmp "$p10 >= 0.25" || fail "bursty: 10% of gaps below $p10 x len/rate"
	# ~860 GSO packets/s, nearly each one held until its departure time
	[ $((th1 - th0)) -ge 1000 ] || fail "throttled moved only $((th1 - th0))"
	[ "$lat" -gt 0 ] || fail "unthrottle_latency_ns stayed 0"
}
