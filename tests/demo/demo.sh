# shellcheck shell=bash
# The demo's experiments (scripts/demo.sh boots a kernel with --cases
# tests/demo). Each t_<experiment> runs "before" and "after" in the same
# boot and writes its raw data to $R/data/<experiment>/ (pcap, the
# pcapstat CSV/stats, iperf3 JSON, samples); scripts/render-demo.py turns
# them into the report on the host. A case fails only when it could not
# measure; what it measured is reported, whichever way it went.
# shellcheck source=tests/demo/demo-lib.bash
. "$(dirname "${BASH_SOURCE[0]}")/demo-lib.bash"
# shellcheck disable=SC2034 # read by run.sh
# The longest, chunked, takes ~600 s of guest time (exact clock: run.sh
# scales this by 4; a wall-clock guest gets it as is).
CASE_TIMEOUT=900

# 1. TSO bursts: one flow at SO_MAX_PACING_RATE 50 Mbit/s (iperf3 --fq-rate).
# before: pfifo and tcp_min_tso_segs=44 (64 KB GSO packets, the old TSO
# behaviour); after: fq and the default min_tso_segs (~1 ms of data each).
t_burstiness() {
	local d mode
	d=$(ddir burstiness)
	topo3
	rcv_delay 20ms
	iperf_daemon
	TSO_DEF=$(nsysctl snd net.ipv4.tcp_min_tso_segs)
	for mode in before after; do
		mode_qdisc "$mode"
		cap_start snd veth0 "$d/$mode-snd.pcap" "tcp and src host $D_SND and dst port $IPERF_PORT"
		cap_start rcv veth1 "$d/$mode-rcv.pcap" "tcp and src host $D_SND and dst port $IPERF_PORT"
		iperf "$d/$mode.json" -t 6 --fq-rate 50M
		cap_stop "$d/$mode-snd.pcap" "$d/$mode-rcv.pcap"
		sn tc -s qdisc show dev veth0 >"$d/$mode-qdisc.txt"
		say "== $mode: $(sn tc qdisc show dev veth0), tcp_min_tso_segs=$(nsysctl snd net.ipv4.tcp_min_tso_segs), goodput $(goodput "$d/$mode.json") Mbit/s"
		pstat "$d/$mode-snd.pcap"
		pstat "$d/$mode-rcv.pcap"
	done
}

# 2. The patch mail's trace: 200 KB request/response (netperf TCP_RR
# -r 200000,200000) behind a 100 Mbit/s bottleneck (netem rate on rtr1),
# the server's departures captured on snd's veth0, pfifo vs fq.
t_spacing() {
	spacing_run "$(ddir spacing)" 30
}

# 3. N bulk flows behind a 20 Mbit/s htb (not more: under TCG on a
# shared machine the guest must still be able to fill it): per-flow goodput, pfifo vs fq leaf.
t_fairness() {
	local d q n
	d=$(ddir fairness)
	topo3
	rcv_delay 10ms
	iperf_daemon
	bottleneck_htb 20mbit
	for q in pfifo fq; do
		leaf_qdisc "$q"
		for n in 1 2 4 8 16; do
			iperf "$d/$q-$n.json" -P "$n" -t 5 -O 1
			say "== $q, $n flows: $(goodput "$d/$q-$n.json") Mbit/s"
		done
	done
}

# 4. Short request/response latency while 8 bulk flows fill the same
# bottleneck (fq serves a sparse flow from its new-flows list first).
t_newflows() {
	local d q pid
	d=$(ddir newflows)
	topo3
	rcv_delay 10ms
	iperf_daemon
	rr_daemon
	bottleneck_htb 20mbit
	for q in pfifo fq; do
		leaf_qdisc "$q"
		rn rrlat -c "$D_SND" -p "$RR_PORT" -n 100 -q 64 -r 1000 -i 10 >"$d/$q-idle.txt" ||
			fail "rrlat (idle) failed"
		iperf "$d/$q-bulk.json" -P 8 -t 12 &
		pid=$!
		sleep 3
		rn rrlat -c "$D_SND" -p "$RR_PORT" -n 100000 -t 7 -q 64 -r 1000 -i 10 >"$d/$q-loaded.txt" ||
			fail "rrlat (under load) failed"
		wait "$pid" || fail "the bulk iperf3 failed"
		sn tc -s qdisc show dev veth0 >"$d/$q-qdisc.txt"
		say "== $q idle:   $(cat "$d/$q-idle.txt")"
		say "== $q loaded: $(cat "$d/$q-loaded.txt") (bulk $(goodput "$d/$q-bulk.json") Mbit/s)"
	done
}

# 5. fq's garbage collection: a burst of 10k one-packet UDP flows (to
# D_SINK) while a stream of new one-packet flows arrives at 500/s. fq
# collects a flow idle for more than 3 s when a new packet's lookup walks
# past it. The UDP capture gives each flow's last packet, so the host can
# count the flows that are 3 s idle at each sample. maxrate far above the
# offered rate puts every packet through the flow table: on the series a
# packet that meets an idle qdisc takes the fast path and makes no flow
# (an exact-clock run had 0 flows at the peak), and gc is what is shown.
t_gc() {
	local d spid npid
	d=$(ddir gc)
	topo3
	snd_qdisc fq maxrate 10gbit
	if ! { ulimit -Hn 65536 && ulimit -n 65536; }; then
		fail "cannot raise the open-file limit to 65536 for 10k UDP sockets"
	fi
	# The sampler: fq's flow counters every 0.5 s (one process; spawning
	# ip-netns per sample would cost more than that under TCG).
	ip netns exec snd python3 - "$d/samples.csv" <<'EOF' &
import json, subprocess, sys, time
out = open(sys.argv[1], "w", buffering=1)
out.write("time,flows,inactive,gc_flows,qlen\n")
def first(kv):  # tc prints "throttled" twice: keep the first
    d = {}
    for k, v in kv:
        d.setdefault(k, v)
    return d
while True:
    t = time.time()
    tc = subprocess.run(["tc", "-s", "-j", "qdisc", "show", "dev", "veth0"],
                        capture_output=True, text=True).stdout
    for q in json.loads(tc, object_pairs_hook=first):
        if q.get("kind") == "fq":
            q = {**q.get("options", {}), **q}
            get = lambda *keys: next((q[k] for k in keys if k in q), "")
            out.write("%.3f,%s,%s,%s,%s\n" % (t, get("flows"), get("inactive", "inactive_flows"),
                                             get("gc", "gc_flows"), get("qlen")))
    time.sleep(max(0.0, 0.5 - (time.time() - t)))
EOF
	spid=$!
	cap_start snd veth0 "$d/udp.pcap" udp
	sleep 1
	sn udpflows -d "$D_SINK" -p 40000 -n 5000 -C -c 5000 -l 64 -r 256k >"$d/new.txt" &
	npid=$!
	sn udpflows -d "$D_SINK" -p 20000 -n 10000 -C -c 10000 -l 64 >"$d/burst.txt" ||
		fail "udpflows (10k flows) failed: $(cat "$d/burst.txt")"
	wait "$npid" || fail "udpflows (new flows at 500/s) failed: $(cat "$d/new.txt")"
	sleep 2
	cap_stop "$d/udp.pcap"
	kill "$spid"
	wait "$spid" 2>/dev/null || true
	sn tc -s qdisc show dev veth0 >"$d/qdisc.txt"
	say "== burst: $(tr '\n' ' ' <"$d/burst.txt"); new: $(tr '\n' ' ' <"$d/new.txt")"
	cat "$d/samples.csv" "$d/qdisc.txt"
	[ "$(wc -l <"$d/samples.csv")" -gt 10 ] || fail "too few fq samples in $d/samples.csv"
}

# 6. Seed 001: "This patch increases performance of TCP flows in lossy
# environments." Before: big TSO bursts (pfifo, tcp_min_tso_segs=44);
# after: TSO autosizing and pacing (fq, default sysctl). Random loss
# (netem on rtr1, after the sender cut its GSO packets, so single
# segments are lost) of 0.1 % and 1 %, 50 ms RTT, 100 Mbit/s path.
# LOSSY_RUNS runs per point, before and after alternating.
LOSSY_RUNS=5
t_lossy() {
	local d loss m r
	d=$(ddir lossy)
	topo3
	TSO_DEF=$(nsysctl snd net.ipv4.tcp_min_tso_segs)
	# Cut the GSO packets on veth0 itself, so that netem drops single
	# segments, not whole 64 KB GSO packets; TCP still sends GSO skbs.
	sn ethtool -K veth0 tso off >/dev/null
	rcv_delay 50ms
	iperf_daemon
	for loss in 0.1 1; do
		xr tc qdisc replace dev rtr1 root netem loss "$loss%" rate 100mbit limit 1000
		for r in $(seq "$LOSSY_RUNS"); do
			for m in before after; do
				mode_qdisc "$m"
				iperf "$d/$m-loss$loss-$r.json" -t 8 -O 1
				say "== loss $loss%, run $r, $m: $(goodput "$d/$m-loss$loss-$r.json") Mbit/s"
			done
		done
	done
}

# 6b-6e. Seed 001's lossy claim where the losses come from bursts, which
# pacing and ~1 ms TSO packets avoid (random loss, above, drops packets
# whatever their spacing). Before/after as in lossy; BURST_RUNS runs per
# point; the helpers are in demo-lib.bash (burst_topo, bulk_points).
#
# 6b. A token-bucket policer (tc police, 30 Mbit/s, a bucket of 10
# frames) on the path, 20 ms RTT, receiver GRO off (an ACK per two
# segments). The policer does not queue: a burst beyond the bucket is
# dropped. Cubic and BBR.
t_police() {
	burst_topo 20ms off
	bulk_points police path_police police_stats cubic bbr
}

# 6c. The same policer with receiver GRO on (the default on real hosts):
# the segments of a burst that passed the policer reach the receiver in
# one NAPI poll, GRO merges them and one ACK covers them all; the sender
# answers a stretch ACK with a burst of as many segments.
t_gro() {
	burst_topo 20ms on
	bulk_points gro path_police police_stats cubic
}

# 6d. An application-limited sender behind the policer (receiver GRO on):
# one 1 MB write every 700 ms (bursts -b 1048576 -i 700, 10 writes), and
# every 2500 ms (4 writes), long enough for the unpaced sender to drain its
# queue too; between writes the connection idles for longer than its RTO.
# With tcp_slow_start_after_idle=1 (the default) cwnd restarts from the
# initial window after such an idle; with 0 the next write leaves with the
# full cwnd at once. Both, cubic. The receiver times each write from its
# start to its last byte (one clock: namespaces share CLOCK_MONOTONIC).
CHUNK_PORT=9300
t_chunked() {
	local d ssai r m f pid r0 period writes
	d=$(ddir chunked)
	burst_topo 20ms on
	for period in 700:10 2500:4; do
		writes=${period#*:} period=${period%:*}
		for ssai in 1 0; do
			sn sysctl -qw net.ipv4.tcp_slow_start_after_idle="$ssai"
			for r in $(seq "$BURST_RUNS"); do
				for m in before after; do
					f=$d/ssai$ssai-i$period-$m-$r
					mode_qdisc "$m"
					path_police
					rn bursts -s -p "$CHUNK_PORT" -n 1 -b 1048576 -t 60 >"$f-rcv.txt" &
					pid=$!
					wait_port rcv "$CHUNK_PORT"
					r0=$(tcp_retrans snd)
					ack_capture "$f-acks.pcap" "$CHUNK_PORT"
					sn bursts -d "$D_RCV" -p "$CHUNK_PORT" -n 1 -b 1048576 -i "$period" \
						-t "$(printf '%d.%03d' $((period * writes / 1000)) $((period * writes % 1000)))" >"$f-snd.txt" ||
						fail "the chunked sender failed: $(cat "$f-snd.txt")"
					wait "$pid" || fail "the chunked receiver failed: $(cat "$f-rcv.txt")"
					cap_stop "$f-acks.pcap"
					echo "retransmits=$(($(tcp_retrans snd) - r0))" >>"$f-rcv.txt"
					police_stats >"$f-path.txt"
					say "== chunked, every $period ms, slow_start_after_idle=$ssai, run $r, $m: $(tr "\n" " " <"$f-rcv.txt")dropped $(drops "$f-path.txt")"
				done
			done
		done
	done
}

# 6e. A shallow buffer at a rate step: the sender's link is veth (as fast
# as the guest), the bottleneck a 20 Mbit/s netem on rtr1 whose queue holds
# 10 packets, 50 ms RTT (BDP 83 packets, so a cwnd/3 TSO burst is well
# above 10), receiver GRO on. Cubic and BBR.
t_shallow() {
	burst_topo 50ms on
	bulk_points shallow path_shallow shallow_stats cubic bbr
}

# 7. Where pfifo is unfair: one unresponsive UDP sender offering 30 Mbit/s
# beside 4 TCP cubic flows, all behind the 20 Mbit/s htb, 10 ms RTT.
# Under a pfifo leaf the UDP flow keeps the queue full and TCP backs off
# from its drops; fq gives each of the 5 flows its own queue and a DRR
# turn, and drops what the UDP flow queues beyond its flow_limit. 5 runs
# per leaf, alternating, so that a slow stretch of the host hits both.
UNFAIR_RUNS=5
UDP_PORT=5202
t_unfair() {
	local d q r pid
	d=$(ddir unfair)
	topo3
	rcv_delay 10ms
	iperf_daemon
	rn iperf3 -s -D -B "$D_RCV" -p "$UDP_PORT" >/dev/null
	wait_port rcv "$UDP_PORT"
	bottleneck_htb 20mbit
	for r in $(seq "$UNFAIR_RUNS"); do
		for q in pfifo fq; do
			leaf_qdisc "$q"
			sn iperf3 -c "$D_RCV" -p "$UDP_PORT" -u -b 30M -l 1400 -t 10 -J >"$d/$q-$r-udp.json" &
			pid=$!
			iperf "$d/$q-$r-tcp.json" -P 4 -t 10
			wait "$pid" || fail "the UDP iperf3 ($q, run $r) failed: $(head -c 600 "$d/$q-$r-udp.json")"
			sn tc -s qdisc show dev veth0 >"$d/$q-$r-qdisc.txt"
			say "== run $r, $q leaf: TCP $(goodput "$d/$q-$r-tcp.json") Mbit/s, UDP $(goodput "$d/$q-$r-udp.json") Mbit/s"
		done
	done
}

# 8. Memory and scale (seed 002: "~2K per Qdisc, and 96 bytes per flow",
# "designed to allow millions of concurrent flows per Qdisc").
# (a) One idle qdisc: 256 dummy devices get pfifo, then fq (default
# buckets); what each slab cache and MemFree say each fq costs beyond a
# pfifo. (b) 1,000,000 flows held at once: fq (orphan_mask 2^32-1) as the
# leaf of an 8 kbit/s tbf, so the packets stay queued and no flow can be
# collected; pktgen offers one 64 B packet per distinct 4-tuple. fq's flow count and the
# fq_flow_cache growth at that point give bytes per flow. The million
# queued 64 B skbs take ~1 GB: scripts/demo.sh boots the guest with 4 GB.
MEM_QDISCS=256
# A few more 4-tuples than a million: fq keys socketless packets by their
# 32-bit hash, and ~120 of a million collide.
MEM_FLOWS=1000400
# slab_snap FILE: "cache active_bytes" per slab cache, and MemFree (kB).
slab_snap() {
	sync
	awk 'NR > 2 { print $1, $2 * $4 }' /proc/slabinfo >"$1"
	awk '$1 == "MemFree:" { print "MemFree_kB", $2 }' /proc/meminfo >>"$1"
}
t_memory() {
	local d i q st=/tmp/mem-fq.json p a count flows bytes0 bytes1 osz t0
	# shellcheck source=tests/lib-pktgen.sh
	. "$T/lib-pktgen.sh"
	d=$(ddir memory)
	ip netns add mem
	for i in $(seq "$MEM_QDISCS"); do echo "link add m$i type dummy"; done | ip -n mem -batch -
	sleep 1
	slab_snap "$d/slab-base.txt"
	for q in pfifo fq; do
		for i in $(seq "$MEM_QDISCS"); do echo "qdisc replace dev m$i root $q"; done | tc -n mem -batch -
		sleep 1
		slab_snap "$d/slab-$q.txt"
	done
	ip netns exec mem tc qdisc show dev m1 >"$d/qdisc-idle.txt"
	ip netns del mem
	echo "$MEM_QDISCS" >"$d/qdiscs"

	read -r p a < <(pg_tuples "$MEM_FLOWS")
	count=$((p * a))
	pg_setup handle 1: tbf rate 8kbit burst 1600 limit 100000
	tc qdisc replace dev "$PG_DEV" parent 1:1 handle 10: fq limit $((count + 1000)) flow_limit 10 orphan_mask 4294967295
	echo 1 >/sys/kernel/slab/fq_flow_cache/shrink 2>/dev/null || true
	read -r _ osz bytes0 < <(slab_bytes fq_flow_cache)
	pg_config "$MEM_FLOWS" 64 "$count"
	t0=$(date +%s)
	pg_start
	# pktgen's thread waits for its last skb to be freed, and that one
	# stays queued: done when it has handed over all of them.
	until [ "$(pg_sent)" = "$count" ]; do
		[ $(($(date +%s) - t0)) -lt 200 ] || fail "pktgen handed over $(pg_sent) of $count packets in 200 s"
		sleep 2
	done
	read -r _ _ bytes1 < <(slab_bytes fq_flow_cache)
	tc -s -j qdisc show dev "$PG_DEV" >"$st"
	flows=$(python3 -c 'import json, sys; print([q for q in json.load(open(sys.argv[1])) if q["kind"] == "fq"][0]["flows"])' "$st")
	tc -s qdisc show dev "$PG_DEV" >"$d/qdisc-1m.txt"
	awk '$1 == "MemAvailable:" { print "MemAvailable_kB=" $2 }' /proc/meminfo >>"$d/held.txt"
	printf 'offered=%s\nflows=%s\nobject_bytes=%s\nslab_growth=%s\n' \
		"$count" "$flows" "$osz" "$((bytes1 - bytes0))" >>"$d/held.txt"
	cat "$d/held.txt" "$d/qdisc-1m.txt"
	say "== $flows flows held at once ($count offered, pktgen took $(($(date +%s) - t0)) s); fq_flow_cache grew $(((bytes1 - bytes0) / 1048576)) MiB, $osz B objects"
	# Freeing the queue frees pktgen's last skb too, and its thread ends.
	tc qdisc del dev "$PG_DEV" root
	pg_wait
	ip link del "$PG_DEV"
	[ "$flows" -gt 0 ] || fail "fq holds no flow: $(cat "$d/qdisc-1m.txt")"
}
