# shellcheck shell=bash
# Benchmark workloads, one t_* each, run in the same way on the stock and
# the patched kernel (scripts/bench.sh alternates them and computes the
# ratios). Rows go to $R/data/bench.csv through row() (bench-lib.bash).
# shellcheck source=tests/bench/bench-lib.bash
. "$(dirname "${BASH_SOURCE[0]}")/bench-lib.bash"
# shellcheck disable=SC2034 # read by run.sh
CASE_TIMEOUT=900

# 1. Qdisc throughput: pktgen queue_xmit through fq on a dummy device, for
# each flow count, packet size and pacing mode. "on" sets a maxrate far
# above what the guest can send, so the per-packet pacing arithmetic runs
# on every packet but nothing is ever throttled (throttled is recorded).
t_pktgen() {
	local f s p v args w t0 t1 c0 c1 n0 n1 pps cpu stats
	for p in $PG_PACING; do
		for s in $PG_SIZES; do
			for f in $PG_FLOWS; do
				args=(fq orphan_mask "$BIG_MASK")
				if [ "$p" = off ]; then args+=(nopacing); else args+=(maxrate 30gbit); fi
				v=$f-flows/${s}B/pacing-$p
				pg_setup "${args[@]}"
				pg_config "$f" "$s" 0
				pg_start
				sleep 0.5
				# PG_WINDOWS back-to-back windows of PG_SECS: the
				# point's value is their median, so that one slow
				# window (the host's other work) does not decide it.
				: >"$R/data/pktgen-windows.tmp"
				n1=$(pg_txpkts) c1=$(cpu_busy_ns) t1=$(now_ns)
				for w in $(seq "$PG_WINDOWS"); do
					n0=$n1 c0=$c1 t0=$t1
					sleep "$PG_SECS"
					n1=$(pg_txpkts) c1=$(cpu_busy_ns) t1=$(now_ns)
					[ "$n1" -gt "$n0" ] || { pg_stop; fail "pktgen sent nothing through fq in window $w ($v)"; }
					awk -v n="$((n1 - n0))" -v t="$((t1 - t0))" -v c="$((c1 - c0))" \
						'BEGIN { printf "%.0f %.0f\n", n * 1e9 / t, c / n }' >>"$R/data/pktgen-windows.tmp"
				done
				pg_stop
				say "  $v windows (pps cpu_ns): $(tr '\n' ' ' <"$R/data/pktgen-windows.tmp")"
				pps=$(sort -n -k1,1 "$R/data/pktgen-windows.tmp" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
				cpu=$(sort -n -k2,2 "$R/data/pktgen-windows.tmp" | awk '{ a[NR] = $2 } END { print a[int((NR + 1) / 2)] }')
				row pktgen "$v" pps "$pps" pkt/s
				row pktgen "$v" cpu_ns_per_pkt "$cpu" ns
				stats=$R/data/pktgen-$f-$s-$p.stats
				fq_stats "$PG_DEV" >"$stats"
				row pktgen "$v" flows "$(kv "$stats" flows)" flows
				say "  (throttled $(kv "$stats" throttled), pktgen sent $(pg_sent))"
				ip link del "$PG_DEV"
			done
		done
	done
	rm -f "$R/data/pktgen-windows.tmp"
}

# 2. Paced flows: PACED_FLOWS connected UDP sockets, each with
# SO_MAX_PACING_RATE PACED_RATE (below low_rate_threshold: one packet per
# slot), snd -> rcv over veth with fq on snd's veth0. The receiver times
# every packet and reports how late each one left against its ideal gap.
t_paced() {
	local st d c0 c1 i0 i1 s0 s1 t0 t1 pkts secs
	d=$R/data/paced
	mkdir -p "$d"
	topo
	quiet_link
	# Room for the ~3 packets per flow the senders keep queued.
	sn tc qdisc replace dev veth0 root fq limit 100000
	rn pacedflows -R -p 7000 -r "$PACED_RATE" -l "$PACED_LEN" \
		-t "$PACED_SECS" -w "$PACED_WARMUP" >"$d/recv.txt" 2>&1 &
	local rpid=$!
	sleep 0.5
	sn pacedflows -d "$RCV_IP" -p 7000 -n "$PACED_FLOWS" -r "$PACED_RATE" \
		-l "$PACED_LEN" -t "$((PACED_SECS + 1))" >"$d/send.txt" 2>&1 &
	local spid=$!
	sleep "$PACED_WARMUP"
	s0=$(sn cat /sys/class/net/veth0/statistics/tx_packets) c0=$(cpu_busy_ns) i0=$(timer_irqs) t0=$(now_ns)
	sleep "$((PACED_SECS - PACED_WARMUP - 2))"
	s1=$(sn cat /sys/class/net/veth0/statistics/tx_packets) c1=$(cpu_busy_ns) i1=$(timer_irqs) t1=$(now_ns)
	rb_wait "$rpid" 30 || fail "receiver failed: $(cat "$d/recv.txt")"
	rb_wait "$spid" 30 || fail "sender failed: $(cat "$d/send.txt")"
	st=$d/qdisc.stats
	fq_stats_in snd veth0 >"$st"
	cat "$d/recv.txt" "$d/send.txt" "$st"
	pkts=$((s1 - s0))
	[ "$pkts" -gt 0 ] || fail "no paced packet left veth0 in the window"
	secs=$(awk -v t="$((t1 - t0))" 'BEGIN { print t / 1e9 }')
	local v=$PACED_FLOWS-flows/$PACED_RATE
	row paced "$v" pps "$(awk -v n="$pkts" -v s="$secs" 'BEGIN { printf "%.0f", n / s }')" pkt/s
	row paced "$v" cpu_ns_per_pkt "$(awk -v c="$((c1 - c0))" -v n="$pkts" 'BEGIN { printf "%.0f", c / n }')" ns
	row paced "$v" timer_irqs_per_s "$(awk -v n="$((i1 - i0))" -v s="$secs" 'BEGIN { printf "%.0f", n / s }')" irq/s
	row paced "$v" late_p50 "$(kw "$d/recv.txt" late_p50_us)" us
	row paced "$v" late_p99 "$(kw "$d/recv.txt" late_p99_us)" us
	row paced "$v" unthrottle_latency "$(awk -v n="$(kv "$st" latency_ns)" 'BEGIN { printf "%.0f", n / 1e3 }')" us
	row paced "$v" flows_seen "$(kw "$d/recv.txt" flows)" flows
	row paced "$v" long_gaps "$(kw "$d/recv.txt" long_gaps)" gaps
	row paced "$v" fq_drops "$(kv "$st" dropped)" pkts
}

# 3. Memory: MEM_FLOWS distinct flows (one pktgen packet each) into one
# fq, bytes per flow from /proc/slabinfo (the fq_flow_cache slabs the flows
# added, divided by the flows fq reports).
t_memory() {
	local b0 b1 o0 osz flows st=$R/data/memory.stats
	pg_setup fq orphan_mask "$BIG_MASK" nopacing
	echo 1 >/sys/kernel/slab/fq_flow_cache/shrink 2>/dev/null || true
	read -r o0 _ b0 < <(slab_bytes fq_flow_cache)
	pg_config "$MEM_FLOWS" 64 "$MEM_FLOWS"
	pg_start
	pg_wait
	fq_stats "$PG_DEV" >"$st"
	read -r _ osz b1 < <(slab_bytes fq_flow_cache)
	flows=$(kv "$st" flows)
	cat "$st"
	say "slab before: $o0 objects, $b0 bytes; after: $b1 bytes, object size $osz"
	[ "$flows" -gt $((MEM_FLOWS / 2)) ] || fail "only $flows flows of $MEM_FLOWS (gc too early?)"
	row memory "$MEM_FLOWS-flows" flows "$flows" flows
	row memory "$MEM_FLOWS-flows" bytes_per_flow "$(div "$((b1 - b0))" "$flows")" B
	row memory "$MEM_FLOWS-flows" object_size "$osz" B
}

# 4. TCP through fq over veth: bulk throughput of 1 and 8 cubic / BBR
# flows, then request/response latency of one sparse flow beside 8 bulk
# cubic flows.
t_tcp() {
	local r cc n j d=$R/data/tcp
	mkdir -p "$d"
	topo
	sn tc qdisc replace dev veth0 root fq
	rn iperf3 -s -D -p 5201 >/dev/null
	wait_listen rcv tcp 5201
	for r in $TCP_RUNS; do
		cc=${r%:*} n=${r#*:}
		j=$d/$cc-$n.json
		sn iperf3 -c "$RCV_IP" -p 5201 -t "$TCP_SECS" -P "$n" -C "$cc" -J >"$j" ||
			fail "iperf3 $cc x$n failed: $(head -c 300 "$j")"
		row tcp "$cc-x$n" throughput "$(iperf_mbps "$j")" Mbit/s
	done
	rn rrlat -s -p 5300 -t "$((RR_SECS + 5))" &
	wait_listen rcv tcp 5300
	sn iperf3 -c "$RCV_IP" -p 5201 -t "$((RR_SECS + 3))" -P 8 -C cubic >/dev/null 2>&1 &
	sleep 1
	sn rrlat -c "$RCV_IP" -p 5300 -t "$RR_SECS" -q 64 -r 64 -i 5 >"$d/rr.txt" ||
		fail "rrlat failed: $(cat "$d/rr.txt")"
	cat "$d/rr.txt"
	row tcp rr-beside-8-cubic rr_p50 "$(kw "$d/rr.txt" p50_us)" us
	row tcp rr-beside-8-cubic rr_p99 "$(kw "$d/rr.txt" p99_us)" us
	wait
}

# iperf_mbps FILE: the receiver's goodput from iperf3 -J, Mbit/s.
iperf_mbps() {
	python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print("%.1f" % (j["end"]["sum_received"]["bits_per_second"] / 1e6))' "$1"
}

# 5. Where the time goes: a cpu-clock profile (perf record -a) of the
# 1-flow 64 B pktgen point with pacing off, the point where the qdisc's own
# per-packet cost matters most. No ratio target: the top symbols of both
# kernels side by side (profile-<kernel>.txt in the run directory) name the
# cause of a pps difference; the row is the share of samples in fq code.
t_profile() {
	local d=$R/data/profile
	command -v perf >/dev/null || skip "no perf in the guest image (rootfs/packages: linux-perf)"
	mkdir -p "$d"
	pg_setup fq orphan_mask "$BIG_MASK" nopacing
	pg_config 1 64 0
	pg_start
	sleep 0.5
	perf record -a -e cpu-clock -F 1000 -o /tmp/perf.data -- sleep "$PROF_SECS" >"$d/record.txt" 2>&1 ||
		{ pg_stop; fail "perf record failed: $(tail -n 5 "$d/record.txt")"; }
	pg_stop
	perf report -i /tmp/perf.data --stdio --no-children --sort sym --percent-limit 0.3 \
		>"$d/report.txt" 2>"$d/report.err" || fail "perf report failed: $(tail -n 5 "$d/report.err")"
	grep -E '^ +[0-9.]+%' "$d/report.txt" | head -n 25
	row profile 1-flows/64B/pacing-off fq_share \
		"$(awk '/^ +[0-9.]+%/ && / fq_/ { s += $1 } END { printf "%.1f", s }' "$d/report.txt")" "%"
	row profile 1-flows/64B/pacing-off qdisc_path_share \
		"$(awk '/^ +[0-9.]+%/ && /( fq_| __qdisc_run| sch_direct_xmit| __dev_queue_xmit| dequeue_skb| qdisc_)/ { s += $1 } END { printf "%.1f", s }' "$d/report.txt")" "%"
}
