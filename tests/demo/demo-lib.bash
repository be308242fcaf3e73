# shellcheck shell=bash
# Helpers for the demo experiments (tests/demo/demo.sh), sourced after
# tests/lib.sh. Not a case file (no .sh suffix), so run.sh does not list it.
#
# Topology (topo3): snd --veth0|rtr0-- rtr --rtr1|veth1-- rcv
#   snd veth0 198.18.0.1/24   TSO/GSO on: captures show the GSO sizes, and
#                              veth0's root is the qdisc under test
#   rtr rtr0  198.18.0.254/24, rtr1 198.18.1.254/24, forwarding; rtr1 has
#                              TSO/GSO off, so packets are cut to MTU size
#                              there, and its root qdisc is the "path"
#                              (netem rate / loss) when an experiment needs one
#   rcv veth1 198.18.1.2/24   GRO off: captures show wire-sized packets
# rcv_delay (tests/lib.sh) puts the RTT on rcv's egress, the ACK path.

D_SND=198.18.0.1
D_RCV=198.18.1.2
# A neighbour that is not there: a static entry on snd's veth0 whose MAC
# nobody owns, so its packets pass snd's qdisc and are dropped on rtr0's
# receive at once (cheap under TCG; no ICMP, no forwarding).
D_SINK=198.18.0.99
IPERF_PORT=5201
RR_PORT=5300

xr() { ip netns exec rtr "$@"; }

topo3() {
	local ns
	for ns in snd rtr rcv; do
		ip netns add "$ns"
		ip netns exec "$ns" ip link set lo up
	done
	ip link add veth0 netns snd type veth peer name rtr0 netns rtr
	ip link add rtr1 netns rtr type veth peer name veth1 netns rcv
	sn ip addr add "$D_SND/24" dev veth0
	xr ip addr add 198.18.0.254/24 dev rtr0
	xr ip addr add 198.18.1.254/24 dev rtr1
	rn ip addr add "$D_RCV/24" dev veth1
	sn ip link set veth0 up
	xr ip link set rtr0 up
	xr ip link set rtr1 up
	rn ip link set veth1 up
	sn ip route add default via 198.18.0.254
	rn ip route add default via 198.18.1.254
	xr sysctl -qw net.ipv4.ip_forward=1
	sn ethtool -K veth0 tso on gso on >/dev/null
	xr ethtool -K rtr1 tso off gso off >/dev/null
	rn ethtool -K veth1 gro off >/dev/null
	sn ip neigh replace "$D_SINK" lladdr 02:00:5e:00:00:99 dev veth0 nud permanent
	# Neighbours resolved before any qdisc or capture is set up.
	sn ping -c 1 -W 5 "$D_RCV" >/dev/null || fail "no path from snd to rcv through rtr"
}

# ddir NAME: the experiment's data directory (comes back to the host).
ddir() {
	mkdir -p "$R/data/$1"
	printf '%s\n' "$R/data/$1"
}

# wait_port NS PORT: until a TCP socket listens on PORT in NS (max 10 s).
wait_port() {
	for _ in $(seq 100); do
		ip netns exec "$1" ss -Hltn "sport = :$2" | grep -q . && return 0
		sleep 0.1
	done
	fail "nothing listens on TCP port $2 in netns $1"
}

# iperf_daemon: an iperf3 server in rcv that serves every run of the case.
iperf_daemon() {
	rn iperf3 -s -D -B "$D_RCV" -p "$IPERF_PORT" >/dev/null
	wait_port rcv "$IPERF_PORT"
}

# iperf OUT.json ARGS...: iperf3 -J from snd to rcv.
iperf() {
	local out=$1
	shift
	sn iperf3 -c "$D_RCV" -p "$IPERF_PORT" -J "$@" >"$out" ||
		fail "iperf3 $* failed: $(head -c 600 "$out")"
}

# rr_daemon: rrlat's server in snd, so that responses take snd's qdisc.
# By its full path, so that run.sh's cleanup_all (pkill -f $BIN/) ends it.
rr_daemon() {
	sn "$BIN/rrlat" -s -p "$RR_PORT" >/dev/null 2>&1 &
	wait_port snd "$RR_PORT"
}

# mode_qdisc before|after: seed 001's two senders. before: big TSO bursts
# (pfifo, tcp_min_tso_segs=44); after: TSO autosizing and pacing (fq, the
# netns default, which the experiment reads into TSO_DEF first).
mode_qdisc() {
	if [ "$1" = before ]; then
		snd_qdisc pfifo
		sn sysctl -qw net.ipv4.tcp_min_tso_segs=44
	else
		snd_qdisc fq
		sn sysctl -qw net.ipv4.tcp_min_tso_segs="$TSO_DEF"
	fi
}

# snd_qdisc SPEC...: snd's root qdisc on veth0 ("pfifo", "fq nopacing", ...).
snd_qdisc() { sn tc qdisc replace dev veth0 root "$@"; }

# bottleneck_htb RATE: htb at RATE as veth0's root, its one class 1:1 for
# all traffic; leaf_qdisc SPEC... then sets the class's qdisc under test.
# (6.1's veth has no backpressure: the shaper has to be on the sender.)
bottleneck_htb() {
	sn tc qdisc replace dev veth0 root handle 1: htb default 1
	sn tc class replace dev veth0 parent 1: classid 1:1 htb rate "$1"
}
leaf_qdisc() { sn tc qdisc replace dev veth0 parent 1:1 "$@"; }

CAP_PIDS=()
# cap_start NS DEV FILE FILTER: headers-only capture (-s 128; pcapstat takes
# sizes from the original length) with ns timestamps; ready when it returns.
cap_start() {
	local ns=$1 dev=$2 f=$3
	ip netns exec "$ns" tcpdump -i "$dev" -n -s 128 -B 16384 \
		--time-stamp-precision=nano -w "$f" "$4" 2>"$f.err" &
	CAP_PIDS+=("$!")
	for _ in $(seq 100); do
		grep -q 'listening on' "$f.err" && return 0
		sleep 0.1
	done
	fail "tcpdump on $ns/$dev did not start: $(cat "$f.err")"
}

# cap_stop FILE...: end the captures started by cap_start. tcpdump stops
# reading at SIGINT, and under TCG it lags behind the traffic: wait (max
# 15 s) until the FILEs have not grown for a second, so that it has caught
# up, then INT (it flushes what it has read).
cap_stop() {
	local p last='' now
	for _ in $(seq 15); do
		now=$(stat -c %s "$@" | paste -sd+)
		[ "$now" != "$last" ] || break
		last=$now
		sleep 1
	done
	for p in "${CAP_PIDS[@]}"; do kill -INT "$p" 2>/dev/null || true; done
	for p in "${CAP_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	CAP_PIDS=()
}

# pstat PCAP: pcapstat of the flow that carried the most bytes (the data
# connection, not iperf3's control one) into PCAP's .stat, per-packet rows
# into its .csv; prints the stats.
pstat() {
	local p=$1 base=${1%.pcap} sport
	pcapstat "$p" >"$base.all" || fail "pcapstat failed on $p"
	sport=$(sed -n 's/^flow=[^ ]*:\([0-9]*\)>[^ ]* .*/\1/p' "$base.all" | head -n 1)
	[ -n "$sport" ] || fail "no TCP data in $p (capture: $(cat "$p.err"))"
	pcapstat -c "$base.csv" "$p" "tcp src port $sport" >"$base.stat" ||
		fail "pcapstat failed on $p"
	grep -h 'dropped by kernel' "$p.err" | sed 's/^/capture: /' >>"$base.stat" || true
	say "== $base.stat"
	cat "$base.stat"
}


# goodput JSON: receiver goodput in Mbit/s from iperf3's client JSON.
goodput() {
	python3 -c 'import json, sys; print("%.2f" % (json.load(open(sys.argv[1]))["end"]["sum_received"]["bits_per_second"] / 1e6))' "$1"
}

# spacing_run DIR N: the patch mail's trace. N TCP_RR 200000,200000
# transactions over a 100 Mbit/s netem bottleneck after the sender, with
# pfifo and then fq as the sender's root qdisc; sender-side captures and
# their pcapstat in DIR/<qdisc>-snd.{pcap,stat}.
spacing_run() {
	local d=$1 n=$2 q
	topo3
	rcv_delay 5ms
	xr tc qdisc replace dev rtr1 root netem rate 100mbit limit 1000
	rr_daemon
	for q in pfifo fq; do
		snd_qdisc "$q"
		cap_start snd veth0 "$d/$q-snd.pcap" "tcp and src host $D_SND and src port $RR_PORT"
		rn rrlat -c "$D_SND" -p "$RR_PORT" -n "$n" -q 200000 -r 200000 -i 0 >"$d/$q-rr.txt" ||
			fail "rrlat 200000,200000 over $q failed: $(cat "$d/$q-rr.txt")"
		cap_stop "$d/$q-snd.pcap"
		say "== $q: $(cat "$d/$q-rr.txt")"
		pstat "$d/$q-snd.pcap"
	done
}

# Seed 001's lossy claim where bursts cause the losses (police, gro,
# chunked, shallow): BURST_RUNS runs per point, before and after
# alternating. Each run re-creates the bottleneck first, so that its
# counters (policer or queue drops) are the run's own.
BURST_RUNS=5
# The policer: 30 Mbit/s, a bucket of 10 full-sized frames (10 x 1514 B).
POLICE_RATE=30mbit
POLICE_BURST=15140

# path_police: a token-bucket policer on rtr0's ingress, the path's
# bottleneck: what exceeds the bucket is dropped, nothing is queued.
path_police() {
	xr tc qdisc del dev rtr0 ingress 2>/dev/null || true
	xr tc qdisc add dev rtr0 ingress
	xr tc filter add dev rtr0 ingress protocol ip prio 1 matchall \
		action police rate "$POLICE_RATE" burst "$POLICE_BURST" conform-exceed drop
}
police_stats() { xr tc -s filter show dev rtr0 ingress; }

# path_shallow: a 20 Mbit/s netem bottleneck on rtr1 whose queue holds 10
# packets (re-created: its counters start at 0).
path_shallow() {
	xr tc qdisc del dev rtr1 root 2>/dev/null || true
	xr tc qdisc add dev rtr1 root netem rate 20mbit limit 10
}
shallow_stats() { xr tc -s qdisc show dev rtr1; }

# burst_topo RTT GRO: topo3 with the sender's segments cut on veth0 (the
# qdisc still holds GSO packets; the wire carries single segments), GRO
# off on rtr0 (the bottleneck sees the wire's frames, not merged ones), RTT
# on the ACK path, receiver GRO on or off, and an iperf3 server.
burst_topo() {
	topo3
	TSO_DEF=$(nsysctl snd net.ipv4.tcp_min_tso_segs)
	sn ethtool -K veth0 tso off >/dev/null
	xr ethtool -K rtr0 gro off >/dev/null
	rn ethtool -K veth1 gro "$2" >/dev/null
	rcv_delay "$1"
	iperf_daemon
}

# drops FILE: the first "dropped N" of a tc -s dump (policer or qdisc).
drops() { sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' "$1" | head -n 1; }
# retrans JSON: the sender's retransmits from iperf3's client JSON.
retrans() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["end"]["sum_sent"].get("retransmits", 0))' "$1"; }
# tcp_retrans NS: the namespace's RetransSegs (/proc/net/snmp).
tcp_retrans() {
	ip netns exec "$1" cat /proc/net/snmp |
		awk '$1 == "Tcp:" { if (n++) print $13; else if ($13 != "RetransSegs") exit 1 }' ||
		fail "no RetransSegs in $1's /proc/net/snmp"
}

# ack_capture FILE PORT: capture the ACKs that come back to snd from rcv's
# PORT (the renderer counts how many segments each one covers).
ack_capture() { cap_start snd veth0 "$1" "tcp and src host $D_RCV and src port $2"; }

# bulk_points EXP PATH STATS CC...: BURST_RUNS runs of one 6 s iperf3 flow
# per congestion control CC, before and after alternating. PATH re-creates
# the bottleneck before each run, STATS dumps its counters after it; the
# ACKs are captured on snd's veth0. Data: DIR/<cc>-<mode>-<run>.json,
# -path.txt (STATS), -acks.pcap.
bulk_points() {
	local exp=$1 path=$2 stats=$3 d cc r m f
	shift 3
	d=$(ddir "$exp")
	for cc in "$@"; do
		for r in $(seq "$BURST_RUNS"); do
			for m in before after; do
				f=$d/$cc-$m-$r
				mode_qdisc "$m"
				"$path"
				ack_capture "$f-acks.pcap" "$IPERF_PORT"
				iperf "$f.json" -t 6 -C "$cc"
				cap_stop "$f-acks.pcap"
				"$stats" >"$f-path.txt"
				say "== $exp, $cc, run $r, $m: $(goodput "$f.json") Mbit/s, $(retrans "$f.json") retransmits, $(drops "$f-path.txt") dropped at the bottleneck"
			done
		done
	done
}
