# shellcheck shell=bash
# Benchmark workloads for the exact clock (scripts/bench.sh, default under
# TCG): QEMU icount at shift 0, so one ns of guest time is one guest
# instruction, and a fixed amount of work takes the same guest time in every
# boot. Every point counts a fixed amount of work (packets, bytes) and
# reports guest instructions per unit of it; each qdisc point is run through
# pfifo as well, and fq's own cost is fq - pfifo, per boot. Rows go to
# $R/data/bench.csv through row() (bench-lib.bash).
# shellcheck source=tests/bench/bench-lib.bash
. "$(dirname "${BASH_SOURCE[0]}")/bench-lib.bash"
# In guest seconds, times 4 on the exact clock (run.sh). The wheel's day
# of idle (--set EX_WHEEL_IDLE=86400) is a day of guest time, which the
# exact clock skips in minutes of host time; a hang is caught by
# bench.sh's boot timeout, in host seconds, long before this.
# shellcheck disable=SC2034 # read by run.sh
CASE_TIMEOUT=24000

# pg_insn_per_pkt: guest instructions per packet of the pktgen run that
# just ended, from pktgen's own result line ("Result: OK: USEC(c..+d..)
# usec, PKTS (..."), which is timed in guest ns.
pg_insn_per_pkt() {
	sed -n 's/^Result: OK: \([0-9]*\)(.* usec, \([0-9]*\) (.*/\1 \2/p' "$PG/$PG_DEV" |
		awk 'NF == 2 && $2 > 0 { printf "%.1f\n", $1 * 1000 / $2; ok = 1 } END { exit !ok }' ||
		fail "no pktgen result: $(grep Result "$PG/$PG_DEV")"
}

# pg_counted FLOWS SIZE COUNT: one pktgen run of COUNT packets over FLOWS
# 4-tuples through pg0's qdisc, to the end; prints instructions per packet.
pg_counted() {
	pg_config "$1" "$2" "$3"
	pg_start
	pg_wait
	pg_insn_per_pkt
}

# pg_point WARM QDISC-ARGS...: set up pg0 with that root qdisc, warm it
# with WARM packets, then count EX_COUNT packets. Uses F and S of the
# caller; prints instructions per packet. Leaves pg0 for the caller.
pg_point() {
	local warm=$1
	shift
	pg_setup "$@"
	pg_counted "$F" "$S" "$warm" >/dev/null
	if [ "$EX_CACHE" = 1 ]; then
		cm_warm
		pg_counted "$F" "$S" "$((F < EX_CACHE_WARM ? 2 * F : EX_CACHE_WARM))" >/dev/null
	fi
	# As pg_counted, with the model's window around the run alone (its
	# pktgen commands each fork a grep).
	pg_config "$F" "$S" "$EX_COUNT"
	cm_open
	pg_start
	pg_wait
	cm_close "pktgen|$F-flows/${S}B${sfx:-}|$1" "$EX_COUNT"
	pg_insn_per_pkt
}

# fq_warm: packets that make every one of F flows exist in fq (a steady
# stream over F flows), at least 10000.
fq_warm() { echo $((F > 10000 ? F : 10000)); }

# 1. Qdisc cost: pktgen queue_xmit into a dummy through fq (nopacing) and
# through pfifo. Bytes per flow come from the fq warm-up of the 64 B points
# at the memory flow counts (fq_flow_cache slab growth / objects added).
t_pktgen() {
	local F S fq pf b0 b1 a0 a1 osz st mode fqargs sfx
	# EX_PG_MODES: "idle" (fq as added: the series' fast path takes every
	# packet) and/or "classified" (maxrate far above the offered rate
	# keeps packets off the fast path, so both kernels classify every
	# packet into its flow: the flow table; variant .../classified).
	# Under the cache model the point is the flow table, under the
	# variant's plain name.
	for mode in $EX_PG_MODES; do
		fqargs=(fq orphan_mask "$BIG_MASK" nopacing) sfx=''
		[ "$mode" = idle ] || fqargs=(fq orphan_mask "$BIG_MASK" maxrate 30gbit) sfx=/classified
		[ "$EX_CACHE" = 0 ] || fqargs=(fq orphan_mask "$BIG_MASK" maxrate 30gbit) sfx=''
		pg_points
	done
}

# pg_points: t_pktgen's points of one mode (fqargs, sfx of the caller).
pg_points() {
	for S in $EX_SIZES; do
		for F in $EX_FLOWS; do
			local v=$F-flows/${S}B$sfx
			# pfifo keeps no per-flow state: a short warm-up is enough.
			pf=$(pg_point 10000 pfifo limit 100000)
			fq=$(pg_point "$(fq_warm)" "${fqargs[@]}")
			st=$R/data/pktgen-$F-$S.stats
			fq_stats "$PG_DEV" >"$st"
			row pktgen "$v" fq_insn "$fq" insn/pkt
			row pktgen "$v" pfifo_insn "$pf" insn/pkt
			row pktgen "$v" fq_cost "$(awk -v a="$fq" -v b="$pf" 'BEGIN { printf "%.1f", a - b }')" insn/pkt
			if [ "$S" = 64 ] && [ -z "$sfx" ] && [[ " $EX_MEM_FLOWS " == *" $F "* ]]; then
				# Memory from an fq that makes a flow of every 4-tuple:
				# maxrate (far above the offered rate) keeps packets off
				# the series' fast path, which makes no flows.
				ip link del "$PG_DEV"
				echo 1 >/sys/kernel/slab/fq_flow_cache/shrink 2>/dev/null || true
				read -r a0 _ b0 < <(slab_bytes fq_flow_cache)
				pg_setup fq orphan_mask "$BIG_MASK" maxrate 30gbit
				pg_counted "$F" "$S" "$(fq_warm)" >/dev/null
				read -r a1 osz b1 < <(slab_bytes fq_flow_cache)
				fq_stats "$PG_DEV" >"$st"
				cat "$st"
				say "  slab: $a0 -> $a1 objects, $b0 -> $b1 bytes, object size $osz"
				row memory "$F-flows" flows "$(kv "$st" flows)" flows
				row memory "$F-flows" bytes_per_flow "$(div "$((b1 - b0))" "$((a1 - a0))")" B
				row memory "$F-flows" object_size "$osz" B
				row memory "$F-flows" slab_bytes "$((b1 - b0))" B
			fi
			ip link del "$PG_DEV"
		done
	done
}

# 2. Standing backlog: fq (or pfifo) as the leaf of a tbf that passes less
# than pktgen offers (84 % at 64 B, see bl_point; delay EX_BL_DELAY ns between packets,
# a sleep, not a spin, so the guest idles between them), over 64 flows, so
# every enqueue and dequeue meets ~64 backlogged flows. Metric: busy guest
# instructions (timer_list idle accounting) per packet tbf passed.
bl_point() {
	local n0 n1 b0 b1 rate w
	# Bits per second for EX_BL_PCT % of 1e9/delay packets/s of S - 4
	# bytes. tbf counts skb->len, which is pktgen's whole pkt_size (fq's
	# Sent bytes show 64 per 64-byte packet), so it passes (S - 4) / S of
	# that: 84 % at 64 B. Kept as it is, so that runs stay comparable.
	rate=$(awk -v s="$((S - 4))" -v d="$EX_BL_DELAY" -v p="$EX_BL_PCT" 'BEGIN { printf "%d", s * 8 * 1e9 / d * p / 100 }')
	pg_setup handle 1: tbf rate "${rate}bit" burst 3000 limit 10000000
	tc qdisc replace dev "$PG_DEV" parent 1:1 "$@"
	pg_config "$F" "$S" 0
	pg_write "$PG/$PG_DEV" "delay $EX_BL_DELAY"
	cm_warm
	pg_start
	sleep "$EX_BL_WARMUP"
	# The least of EX_BL_WINDOWS windows: a one-off guest job (ext4's
	# lazy inode table init, a journal commit, whose I/O completes in host
	# time) lands in some window of some boot and adds 3-8 % to it.
	# The first window is the cache model's (EX_CACHE=1); every window is
	# the plugin's with --count-insns (EX_MARKS=1; cm_window).
	for w in $(seq "$EX_BL_WINDOWS"); do
		! cm_window "$w" || cm_open
		n0=$(pg_txpkts) b0=$(busy_ns)
		sleep "$EX_BL_SECS"
		n1=$(pg_txpkts) b1=$(busy_ns)
		! cm_window "$w" || cm_close "backlog|tbf/$F-flows/${S}B|$1$(cm_wtag "$w")" "$((n1 - n0))"
		[ "$n1" -gt "$n0" ] || fail "no packet left tbf in the window ($1)"
		awk -v b="$((b1 - b0))" -v n="$((n1 - n0))" 'BEGIN { printf "%.1f\n", b / n }'
	done >"$R/data/backlog-$1.windows"
	pg_stop
	tc -s qdisc show dev "$PG_DEV" >"$R/data/backlog-$1.txt"
	say "  backlog $1 windows: $(tr '\n' ' ' <"$R/data/backlog-$1.windows")" >&2
	sort -g "$R/data/backlog-$1.windows" | head -n 1
	ip link del "$PG_DEV"
}

t_backlog() {
	local F=64 S=64 fq pf
	local v=tbf/$F-flows/${S}B
	pf=$(bl_point pfifo limit 1000000)
	fq=$(bl_point fq orphan_mask "$BIG_MASK" nopacing limit 1000000 flow_limit 100000)
	cat "$R/data/backlog-fq.txt"
	row backlog "$v" fq_insn "$fq" insn/pkt
	row backlog "$v" pfifo_insn "$pf" insn/pkt
	row backlog "$v" fq_cost "$(awk -v a="$fq" -v b="$pf" 'BEGIN { printf "%.1f", a - b }')" insn/pkt
}



# 2b. The backlog split in two, so that each half can be profiled. Fill:
# pktgen sends one packet every EX_BL_DELAY ns (a sleep, as for the
# backlog point, so that every kernel and qdisc gets the same number of
# packets: EX_DRAIN_FILL_SECS / delay) over 64 flows into fq (or pfifo)
# under a tbf of 8 kbit/s, which lets almost none out, so each packet is
# one enqueue into 64 backlogged flows: busy guest instructions per packet
# sent. pktgen runs without a count and is stopped: with a count it would
# wait for its last packet, which tbf holds. Drain: tbf is raised to
# 100 Gbit/s, and the guest's busy instructions until the backlog is gone,
# per packet, are one dequeue each (tbf, the dummy's xmit and fq's). As
# for the backlog point, the least of EX_BL_WINDOWS fills and drains (a
# one-off guest job, an ext4 journal commit, lands in some of them). fq's
# costs are fq - pfifo of each half.
# Profile, fq only: perf record (cpu-clock, a sample every EX_PROF_PERIOD
# instructions) of a fill with pktgen never sleeping (a sleeping sender
# wakes with the sampling timer, which then never lands in the few
# microseconds of work that follow: the backlog point's profile saw
# nothing of fq for that reason), for EX_DRAIN_PROF_SECS, and of its
# drain: instructions per packet of each fq_* symbol, per half.
drain_setup() {
	pg_setup handle 1: tbf rate 8kbit burst 3000 limit 100000000
	tc qdisc replace dev "$PG_DEV" parent 1:1 "$@"
}

# drain_run LABEL [PERF-OUT]: one fill and its drain; prints "enq deq
# packets": busy instructions per packet of each, and the packets
# drained. With PERF-OUT, pktgen does not sleep and each half runs under
# perf record, written to PERF-OUT-{fill,drain}.data.
drain_run() {
	local label=$1 perf=${2:-} n n0 n1 b0 b1 q secs=$EX_DRAIN_FILL_SECS
	local rec=()
	pg_config 64 64 0
	if [ -n "$perf" ]; then
		secs=$EX_DRAIN_PROF_SECS
		rec=(perf record -a -e cpu-clock -c "$EX_PROF_PERIOD" -o "$perf-fill.data" --)
	else
		pg_write "$PG/$PG_DEV" "delay $EX_BL_DELAY"
	fi
	b0=$(busy_ns)
	pg_start
	${rec[@]+"${rec[@]}"} sleep "$secs" >"$R/data/drain-$label-fill.txt" 2>&1 ||
		fail "waiting for the fill failed ($label): $(tail -n 5 "$R/data/drain-$label-fill.txt")"
	pg_stop
	b1=$(busy_ns) n=$(pg_sent)
	[ "${n:-0}" -gt 1000 ] || fail "pktgen sent only ${n:-0} packets in the fill ($label)"
	awk -v b="$((b1 - b0))" -v n="$n" 'BEGIN { printf "%.1f ", b / n }'
	[ -z "$perf" ] || rec=(perf record -a -e cpu-clock -c "$EX_PROF_PERIOD" -o "$perf-drain.data" --)
	n0=$(pg_txpkts) b0=$(busy_ns)
	# The drain starts at tbf's next watchdog (one 60-byte packet at
	# 8 kbit/s: 60 ms); idle time is not counted, so a generous sleep
	# costs nothing.
	${rec[@]+"${rec[@]}"} sh -c "tc qdisc change dev $PG_DEV root handle 1: tbf rate 100gbit burst 1000000 limit 100000000 && sleep $EX_DRAIN_SECS" \
		>"$R/data/drain-$label-drain.txt" 2>&1 ||
		fail "the drain failed ($label): $(tail -n 5 "$R/data/drain-$label-drain.txt")"
	n1=$(pg_txpkts) b1=$(busy_ns)
	q=$(tc -s qdisc show dev "$PG_DEV" parent 1:1 | tee "$R/data/drain-$label.txt" |
		sed -n 's/.* backlog [0-9]*[KMG]*b \([0-9]*\)p.*/\1/p' | head -n 1)
	[ "${q:-x}" = 0 ] || fail "the backlog of $label did not drain in ${EX_DRAIN_SECS}s of guest time: ${q:-?} packets left"
	[ $((n1 - n0)) -gt 1000 ] || fail "only $((n1 - n0)) packets left tbf in the drain ($label)"
	awk -v b="$((b1 - b0))" -v n="$((n1 - n0))" 'BEGIN { printf "%.1f %d\n", b / n, n }'
}

# drain_min LABEL QDISC-ARGS...: EX_BL_WINDOWS fills and drains; prints
# the least fill and the least drain cost, and the packets of one drain.
drain_min() {
	local label=$1 i out=$R/data/drain-run.out
	shift
	for i in $(seq "$EX_BL_WINDOWS"); do
		drain_setup "$@"
		(drain_run "$label") >"$out" || fail "$(cat "$out")"
		cat "$out" >>"$R/data/drain-$label.runs"
		ip link del "$PG_DEV"
	done
	say "  $label fills and drains (insn/pkt, packets): $(tr '\n' ' ' <"$R/data/drain-$label.runs")" >&2
	awk 'NR == 1 || $1 < e { e = $1 } NR == 1 || $2 < d { d = $2 } { n = $3 } END { print e, d, n }' "$R/data/drain-$label.runs"
}

# perf_symbols DATA OUT [LIMIT]: perf's per-symbol report of DATA (sample
# counts, no children) into OUT, symbols under LIMIT % (default 0) left out.
perf_symbols() {
	perf report -i "$1" --stdio --no-children --sort sym -n --percent-limit "${3:-0}" \
		>"$2" 2>"$2.err" || fail "perf report failed: $(tail -n 5 "$2.err")"
}

# drain_symbols REPORT PACKETS PHASE: fq_* rows of one perf report.
drain_symbols() {
	perf_symbols "$1" "$1.txt"
	cp "$1.txt" "$R/data/profile-drain-$3.txt"
	awk -v c="$2" -v per="$EX_PROF_PERIOD" '/^ +[0-9.]+%/ && $4 ~ /^fq_/ {
		printf "%s %.1f\n", $4, $2 * per / c }' "$1.txt" | while read -r sym insn; do
		row profile "backlog-$3/$sym" insn "$insn" insn/pkt
	done
}

t_drain() {
	local v=tbf/64-flows/64B pe pd pn fe fd fn n out=$R/data/drain.out
	local fqargs=(fq orphan_mask "$BIG_MASK" nopacing limit 1000000 flow_limit 100000)
	(drain_min pfifo pfifo limit 10000000) >"$out" || fail "$(cat "$out")"
	read -r pe pd pn <"$out"
	(drain_min fq "${fqargs[@]}") >"$out" || fail "$(cat "$out")"
	read -r fe fd fn <"$out"
	say "  least fill, drain insn/pkt: pfifo $pe, $pd ($pn packets); fq $fe, $fd ($fn packets)"
	row drain "$v" fq_enqueue_cost "$(awk -v a="$fe" -v b="$pe" 'BEGIN { printf "%.1f", a - b }')" insn/pkt
	row drain "$v" fq_dequeue_cost "$(awk -v a="$fd" -v b="$pd" 'BEGIN { printf "%.1f", a - b }')" insn/pkt
	row drain "$v" fq_fill_insn "$fe" insn/pkt
	row drain "$v" fq_drain_insn "$fd" insn/pkt
	row drain "$v" pfifo_fill_insn "$pe" insn/pkt
	row drain "$v" pfifo_drain_insn "$pd" insn/pkt
	command -v perf >/dev/null || { say "no perf in the guest image: the drain profile left out"; return 0; }
	drain_setup "${fqargs[@]}"
	(drain_run fq-perf /tmp/perf-drain) >"$out" || fail "$(cat "$out")"
	read -r _ _ n <"$out"
	ip link del "$PG_DEV"
	drain_symbols /tmp/perf-drain-fill.data "$n" fill
	drain_symbols /tmp/perf-drain-drain.data "$n" drain
	rm -f /tmp/perf-drain-*.data
}

# 2c. What an idle qdisc costs: EX_QDISCS dummies get pfifo, then fq with
# its defaults; the growth of every slab cache (/proc/slabinfo: the qdisc
# and the 1024-bucket table are kmalloc slabs) per qdisc, fq beyond pfifo.
slab_total() { sync; awk 'NR > 2 { s += $2 * $4 } END { printf "%.0f\n", s }' /proc/slabinfo; }
t_qdiscmem() {
	local i q b0 b1
	ip netns add qm
	for i in $(seq "$EX_QDISCS"); do echo "link add m$i type dummy"; done | ip -n qm -batch -
	for q in pfifo fq; do
		for i in $(seq "$EX_QDISCS"); do echo "qdisc replace dev m$i root $q"; done | tc -n qm -batch -
		sleep 1
		b1=$(slab_total)
		[ "$q" = fq ] || b0=$b1
	done
	tc -n qm qdisc show dev m1 | grep -q '^qdisc fq ' || fail "m1 has no fq: $(tc -n qm qdisc show dev m1)"
	ip netns del qm
	say "  slab bytes: $b0 with $EX_QDISCS pfifo, $b1 with fq"
	row qdiscmem idle-fq bytes_beyond_pfifo "$(((b1 - b0) / EX_QDISCS))" B
}

# 3. Paced flows: N connected UDP sockets with SO_MAX_PACING_RATE, together
# EX_PACED_PPS packets/s, snd -> rcv over veth through fq. Busy guest
# instructions per packet (sender, fq, veth and receiver: the whole guest)
# and how late each packet left against its flow's ideal gap, in guest
# time (the receiver's timestamps; pacedflows -q writes the CDF).
t_paced() {
	local n rate d s0 s1 b0 b1 secs st srcs i warm prof
	for n in $EX_PACED_FLOWS; do
		# fq (6.1 and the series) caps a flow's gap at 1 s
		# (pkts_too_long): more flows than packets per second would
		# send faster than their rate, and the point would measure
		# the cap. More packets per second do not fit either: at
		# ~14k guest instructions per paced packet, 100k packets/s
		# need 1.4e9 instructions per guest second, and the exact
		# guest retires 1e9.
		if [ "$n" -gt "$EX_PACED_PPS" ]; then
			say "paced: $n flows at $EX_PACED_PPS packets/s would be gaps of $((n / EX_PACED_PPS)) s, over fq's 1 s cap: point left out"
			continue
		fi
		d=$R/data/paced-$n
		mkdir -p "$d"
		topo
		quiet_link
		# One source port per socket: 60000 sockets per source address.
		sn sysctl -qw net.ipv4.ip_local_port_range="1024 65535"
		# Warm-up: the sender opens its sockets (~n/20000 s) and the first
		# packet of each flow leaves at once; only later gaps count.
		warm=$((EX_PACED_WARMUP + n / 20000))
		sn tc qdisc replace dev veth0 root fq limit 1000000 flow_limit 100
		# bit/s per flow: EX_PACED_PPS / n packets of PACED_LEN + 42 bytes.
		rate=$(awk -v p="$EX_PACED_PPS" -v n="$n" -v l="$PACED_LEN" 'BEGIN { printf "%d", p / n * (l + 42) * 8 }')
		secs=$(awk -v n="$n" -v p="$EX_PACED_PPS" -v g="$EX_PACED_GAPS" 'BEGIN { s = g * n / p; printf "%d", (s < 4 ? 4 : s) + 0.999 }')
		srcs=$(((n + 59999) / 60000))
		for i in $(seq "$srcs"); do sn ip addr add "198.18.0.$((10 + i))/24" dev veth0; done
		prof=0
		[[ " $EX_PROF_PACED " != *" $n "* ]] || prof=$EX_PROF_PACED_SECS
		rn pacedflows -R -p 7000 -r "$rate" -l "$PACED_LEN" -t "$((secs + warm))" -w "$warm" \
			-x "$((prof + 1))" -q "$d/late-cdf.txt" >"$d/recv.txt" 2>&1 &
		local rpid=$!
		sleep 0.5
		sn pacedflows -d "$RCV_IP" -s 198.18.0.11 -p 7000 -n "$n" -r "$rate" \
			-l "$PACED_LEN" -t "$((secs + warm + 1 + prof))" >"$d/send.txt" 2>&1 &
		local spid=$!
		sleep "$warm"
		# As for the backlog point: the least of EX_BL_WINDOWS windows.
		for _ in $(seq "$EX_BL_WINDOWS"); do
			s0=$(sn cat /sys/class/net/veth0/statistics/tx_packets) b0=$(busy_ns)
			sleep "$(awk -v s="$secs" -v w="$EX_BL_WINDOWS" 'BEGIN { printf "%.3f", s / w }')"
			s1=$(sn cat /sys/class/net/veth0/statistics/tx_packets) b1=$(busy_ns)
			[ "$s1" -gt "$s0" ] || fail "no paced packet left veth0 in a window ($n flows)"
			echo "$((b1 - b0)) $((s1 - s0))"
		done >"$d/windows.txt"
		# The receiver counts until secs + warm, then takes the packets
		# uncounted while the profile runs.
		[ "$prof" = 0 ] || paced_profile "$n" "$d"
		rb_wait "$rpid" 120 || fail "receiver failed: $(cat "$d/recv.txt")"
		rb_wait "$spid" 120 || fail "sender failed: $(cat "$d/send.txt")"
		st=$d/qdisc.stats
		fq_stats_in snd veth0 >"$st"
		cat "$d/recv.txt" "$d/send.txt" "$st"
		say "windows (busy insn, packets): $(tr '\n' ' ' <"$d/windows.txt")"
		local v=$n-flows
		row paced "$v" insn_per_pkt "$(awk '{ c = $1 / $2; if (NR == 1 || c < m) m = c } END { printf "%.1f", m }' "$d/windows.txt")" insn/pkt
		row paced "$v" pps "$(awk -v s="$secs" '{ n += $2 } END { printf "%.1f", n / s }' "$d/windows.txt")" pkt/s
		row paced "$v" late_p50 "$(kw "$d/recv.txt" late_p50_ns)" ns
		row paced "$v" late_p99 "$(kw "$d/recv.txt" late_p99_ns)" ns
		row paced "$v" flows_seen "$(kw "$d/recv.txt" flows)" flows
		row paced "$v" fq_drops "$(kv "$st" dropped)" pkts
		cp "$d/late-cdf.txt" "$R/data/late-cdf-$n.txt"
		ip -all netns delete
	done
}

# 3b. Paced flows at 1k, 10k and 100k flows without a socket sender: what
# pacing itself costs per packet, beside pfifo. A steady paced stream is
# out of reach at 100k flows (t_paced says why), so each cycle queues a
# burst and lets fq release it on time. pktgen sends two packets to each
# of N 4-tuples, round robin, as fast as it can (never sleeping: no idle
# wake-ups of its own to count; ~1 s at 100k flows), and a tc egress
# program (tests/src/bpf/pace.bpf.c) gives each a departure time N x 20 us
# after it passed (EDT, skb->tstamp: how TCP and BPF rate limiters pace
# through fq; the delay, in ms, travels as the UDP destination port),
# longer than the fill. So every packet waits in a throttled flow: at every N all
# N flows are in the throttled set together, and they fall due pktgen's
# per-packet time apart (the same timer density at every N). maxrate
# cannot do this at 100k flows: a flow's gap is capped at 1 s, and fq's
# drift correction halves it when a flow was idle, while the fill takes
# ~1 s. The guest then sleeps through the drain, a little longer than
# the delay: idle time is skipped, but the guest's own background work
# (writeback, journal commits) lands in long sleeps, and it moved the
# whole-guest figures of a first version, which slept 2 s a cycle, by up
# to 2x between kernels whose pfifo runs are the same.
# pktgen with a count waits, spinning, until its last packet is freed;
# the program sends that one (its source port) unpaced, through fq's
# internal queue: up to two of the N flows are not paced. pfifo runs the
# same cycles with the same program (it sends everything at once). Two
# figures per kernel: fq - pfifo in busy guest instructions per packet,
# which includes the timer interrupts and idle exits that releasing
# packets on time costs the machine, and fq's own functions from a
# profile. Cycles are repeated for EX_PACING_PKTS packets per point,
# after an uncounted one (fq makes its flows then).
pacing_setup() {
	local n=$1 per
	shift
	pg_setup "$@"
	read -r _ per < <(pacing_count "$n")
	tc qdisc add dev "$PG_DEV" clsact
	tc filter add dev "$PG_DEV" egress bpf direct-action obj "$BIN/pace.bpf.o" sec tc ||
		fail "cannot attach pace.bpf.o to $PG_DEV egress"
	pg_config "$n" 64 "$per"
	pg_write "$PG/$PG_DEV" "udp_dst_min $(pacing_delay_ms "$n")"
	pg_write "$PG/$PG_DEV" "udp_dst_max $(pacing_delay_ms "$n")"
}

# pacing_delay_ms N: the departure delay of each packet, 20 us a flow
# (the fill takes ~10 us a flow), and pacing_wait N: the sleep after a
# fill, the delay and a fifth.
pacing_delay_ms() { echo $(($1 * 20 / 1000 > 5 ? $1 * 20 / 1000 : 5)); }
pacing_wait() { awk -v d="$(pacing_delay_ms "$1")" 'BEGIN { printf "%.3f", d * 1.2 / 1000 + 0.01 }'; }

# pacing_count N: "cycles packets-per-cycle" of a point: 2 packets to each
# of pktgen's 4-tuples a cycle, cycles for EX_PACING_PKTS (at least one).
pacing_count() {
	local p a c
	read -r p a < <(pg_tuples "$1")
	c=$((EX_PACING_PKTS / (2 * p * a)))
	echo "$((c > 0 ? c : 1)) $((2 * p * a))"
}

# pacing_cycles CYCLES WAIT: that many pktgen runs, each followed by a
# sleep of WAIT s for its drain; prints the busy guest instructions. pg0
# is set up by pacing_setup.
pacing_cycles() {
	local b0 b1
	b0=$(busy_ns)
	for _ in $(seq "$1"); do
		pg_start
		pg_wait
		sleep "$2"
	done
	b1=$(busy_ns)
	echo "$((b1 - b0))"
}

# pacing_qlen: packets queued in pg0's root qdisc.
pacing_qlen() {
	tc -s qdisc show dev "$PG_DEV" | sed -n 's/.* backlog [0-9]*[KMG]*b \([0-9]*\)p.*/\1/p' | head -n 1
}

# pacing_point N QDISC-ARGS...: prints "busy-instructions packets-offered
# cycles" (the least busy of EX_BL_WINDOWS windows of cycles); leaves
# pg0, drained, for the caller.
pacing_point() {
	local n=$1 cycles per q
	pacing_setup "$@"
	read -r cycles per < <(pacing_count "$n")
	# The uncounted cycle (the cache model warms on it), and proof that
	# pktgen did not wait for the paced packets: its own run time (its
	# result line) is shorter than their delay.
	cm_warm
	pg_start
	pg_wait
	q=$(sed -n 's/^Result: OK: \([0-9]*\)(.*/\1/p' "$PG/$PG_DEV")
	[ "${q:-x}" -lt $(($(pacing_delay_ms "$n") * 1000)) ] ||
		fail "pktgen ran ${q:-?} us, longer than the $(pacing_delay_ms "$n") ms delay ($2): it waited for its last packet (pace.bpf.c's port?), or the fill is slower than 10 us a flow"
	sleep "$(pacing_wait "$n")"
	# The least of EX_BL_WINDOWS windows, as for the backlog point: a
	# one-off guest job lands in some window of some boot (a first
	# version, one window, saw pfifo's figure at 100k flows move 2x).
	local w b min=''
	for w in $(seq "$EX_BL_WINDOWS"); do
		! cm_window "$w" || cm_open
		b=$(pacing_cycles "$cycles" "$(pacing_wait "$n")")
		! cm_window "$w" || cm_close "pacing|$n-flows|$2$(cm_wtag "$w")" "$((cycles * per))"
		echo "$b" >>"$R/data/pacing-$n-$2.windows"
		[ -n "$min" ] && [ "$min" -le "$b" ] || min=$b
	done
	echo "$min $((cycles * per)) $cycles"
	# Flows that share a hash slot (orphan_mask 2^24-1: a few at 10k
	# flows, ~300 pairs at 100k) get 4 packets a cycle and carry a
	# little backlog from cycle to cycle; let it go before the checks.
	for _ in $(seq 20); do
		[ "$(pacing_qlen)" != 0 ] || return 0
		sleep 1
	done
}

t_pacing() {
	local n d fq pf fb fo pb po st cyc per_flow=2
	local fqargs=(fq orphan_mask "$BIG_MASK" flow_limit 100 limit 10000000)
	[ "${EX_NATIVE:-0}" = 0 ] || per_flow=1
	for n in $EX_PACING_FLOWS; do
		d=$R/data/pacing-$n
		mkdir -p "$d"
		# Through a file: pacing_point's drain wait must end first.
		(pacing_point "$n" pfifo limit 10000000) >"$d/pfifo.out" || fail "$(cat "$d/pfifo.out")"
		read -r pb po cyc <"$d/pfifo.out"
		ip link del "$PG_DEV"
		say "  pacing $n flows, pfifo: $pb insn, $po packets, $cyc cycles"
		(pacing_point "$n" "${fqargs[@]}") >"$d/fq.out" || fail "$(cat "$d/fq.out")"
		read -r fb fo cyc <"$d/fq.out"
		st=$d/qdisc.stats
		fq_stats "$PG_DEV" >"$st"
		tc -s qdisc show dev "$PG_DEV" >"$d/qdisc.txt"
		cat "$d/qdisc.txt"
		say "  pacing $n flows, fq: $fb insn, $po packets, $cyc cycles"
		[ "$(kv "$st" qlen)" = 0 ] || fail "fq still holds $(kv "$st" qlen) packets 20 s after the last cycle ($n flows)"
		[ "$(kv "$st" dropped)" = 0 ] || fail "fq dropped $(kv "$st" dropped) packets ($n flows)"
		# Each paced flow is throttled for each of its two packets, every
		# cycle (the uncounted one too). Natively (UML) for its first at
		# least: there pktgen's fill outruns the release (2-19 us a
		# released packet), so a flow's second packet, one fill behind
		# its first, is often due by the time the first leaves (1000
		# flows: 86-93 % of the packets waited).
		[ "$(kv "$st" throttled)" -ge "$(((cyc + 1) * per_flow * (n - 2) * 99 / 100))" ] ||
			fail "fq throttled flows $(kv "$st" throttled) times in $((cyc + 1)) cycles of $n flows: not paced"
		row pacing "$n-flows" unthrottle_latency "$(kv "$st" latency_ns)" ns
		ip link del "$PG_DEV"
		fq=$(awk -v b="$fb" -v n="$fo" 'BEGIN { printf "%.1f", b / n }')
		pf=$(awk -v b="$pb" -v n="$po" 'BEGIN { printf "%.1f", b / n }')
		row pacing "$n-flows" fq_insn "$fq" insn/pkt
		row pacing "$n-flows" pfifo_insn "$pf" insn/pkt
		row pacing "$n-flows" fq_cost "$(awk -v a="$fq" -v b="$pf" 'BEGIN { printf "%.1f", a - b }')" insn/pkt
		[[ " $EX_PACING_PROF " != *" $n "* ]] || pacing_profile "$n" "$d" "${fqargs[@]}"
	done
}

# pacing_profile N DIR QDISC-ARGS...: the counted cycles once more (after
# an uncounted one) as perf record's workload: per symbol, instructions
# per packet offered.
pacing_profile() {
	local n=$1 d=$2 cycles per w
	shift 2
	command -v perf >/dev/null || { say "no perf in the guest image: pacing profile left out"; return 0; }
	pacing_setup "$n" "$@"
	read -r cycles per < <(pacing_count "$n")
	w=$(pacing_wait "$n")
	pacing_cycles 1 "$w" >/dev/null
	# Writing start returns when pktgen has sent its count.
	perf record -a -e cpu-clock -c "$EX_PROF_PERIOD" -o /tmp/perf-pacing.data -- \
		sh -c "for i in \$(seq $cycles); do echo start >$PG/pgctrl && sleep $w || exit 1; done" \
		>"$d/record.txt" 2>&1 || fail "perf record failed: $(tail -n 5 "$d/record.txt")"
	ip link del "$PG_DEV"
	perf_symbols /tmp/perf-pacing.data "$d/report.txt"
	rm -f /tmp/perf-pacing.data
	cp "$d/report.txt" "$R/data/profile-pacing-$n.txt"
	grep -E '^ +[0-9.]+%' "$d/report.txt" | head -n 25
	# Lines: "  12.34%  1234  [k] fq_dequeue": the 20 largest symbols but
	# the idle loop, every fq_* and rb_* one, and their totals.
	awk -v c="$((cycles * per))" -v per="$EX_PROF_PERIOD" '/^ +[0-9.]+%/ && $4 !~ /cpuidle|default_idle/ {
		k++; ins = $2 * per / c
		if ($4 ~ /^fq_/) fq += ins
		if ($4 ~ /^rb_/) rb += ins
		if (k <= 20 || $4 ~ /^(fq_|rb_)/) printf "%s %.1f\n", $4, ins
		} END { printf "fq_total %.1f\nrb_total %.1f\n", fq, rb }' "$d/report.txt" >"$d/symbols.txt"
	# 6.1 keeps its throttled flows in an rb-tree: its inserts and
	# erases are lib/rbtree.c's rb_* (which hrtimers use too), not fq_*.
	while read -r sym ins; do
		if [ "$sym" = fq_total ]; then
			row pacing "$n-flows" fq_profile_insn "$ins" insn/pkt
		elif [ "$sym" = rb_total ]; then
			row pacing "$n-flows" rb_profile_insn "$ins" insn/pkt
		else
			row profile "pacing-$n/$sym" insn "$ins" insn/pkt
		fi
	done <"$d/symbols.txt"
}

# paced_profile FLOWS DIR: right after the counted windows, with sender and
# receiver still running, where the guest's instructions go, per symbol:
# share and instructions per packet that left veth0 during the record.
paced_profile() {
	local n=$1 d=$2 s0 s1
	command -v perf >/dev/null || { say "no perf in the guest image: paced profile left out"; return 0; }
	s0=$(sn cat /sys/class/net/veth0/statistics/tx_packets)
	perf record -a -e cpu-clock -c "$EX_PROF_PERIOD" -o /tmp/perf-paced.data -- \
		sleep "$EX_PROF_PACED_SECS" >"$d/record.txt" 2>&1 ||
		fail "perf record failed: $(tail -n 5 "$d/record.txt")"
	s1=$(sn cat /sys/class/net/veth0/statistics/tx_packets)
	perf_symbols /tmp/perf-paced.data "$d/report.txt"
	rm -f /tmp/perf-paced.data
	cp "$d/report.txt" "$R/data/profile-paced-$n.txt"
	grep -E '^ +[0-9.]+%' "$d/report.txt" | head -n 25
	[ "$s1" -gt "$s0" ] || fail "no paced packet left veth0 during the profile ($n flows)"
	# Lines: "  12.34%  1234  [k] fq_dequeue". The 25 largest symbols, and
	# fq's own instructions per packet: every fq_* symbol (enqueue,
	# dequeue, their helpers; the watchdog's hrtimer path is generic).
	awk -v p="$((s1 - s0))" -v per="$EX_PROF_PERIOD" '/^ +[0-9.]+%/ {
		printf "%s %.2f %.1f\n", $4, $1 + 0, $2 * per / p }' "$d/report.txt" >"$d/symbols.txt"
	head -n 25 "$d/symbols.txt" | while read -r sym pct insn; do
		row profile "paced-$n/$sym" share "$pct" "%"
		row profile "paced-$n/$sym" insn "$insn" insn/pkt
	done
	row paced "$n-flows" fq_insn_per_pkt "$(awk '$1 ~ /^fq_/ { s += $3 } END { printf "%.1f", s }' "$d/symbols.txt")" insn/pkt
	row paced "$n-flows" fq_share "$(awk '$1 ~ /^fq_/ { s += $2 } END { printf "%.2f", s }' "$d/symbols.txt")" "%"
}

# 4. TCP bulk over veth through fq: busy guest instructions per MB received
# (iperf3 -n: a fixed amount of data), cubic and BBR, 1 and 8 flows.
t_tcp() {
	local r cc n j b0 b1 d=$R/data/tcp tj=/tmp/iperf3-tcp.json
	mkdir -p "$d"
	topo
	sn tc qdisc replace dev veth0 root fq
	# Nothing waits on the disk inside a measured run: under the exact
	# clock a wait lets guest time jump by an amount the host's load
	# decides, and TCP's timers see it. The client's program is cached,
	# its JSON goes to tmpfs, and what is dirty is written back first.
	cache_cmds iperf3 ip
	rn iperf3 -s -D -p 5201 >/dev/null
	wait_listen rcv tcp 5201
	for r in $EX_TCP_RUNS; do
		cc=${r%:*} n=${r#*:}
		j=$d/$cc-$n.json
		sync
		b0=$(busy_ns)
		sn iperf3 -c "$RCV_IP" -p 5201 -n "$EX_TCP_BYTES" -P "$n" -C "$cc" -J >"$tj" ||
			fail "iperf3 $cc x$n failed: $(head -c 300 "$tj")"
		b1=$(busy_ns)
		cp "$tj" "$j"
		row tcp "$cc-x$n" insn_per_MB "$(python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print("%.0f" % (int(sys.argv[2]) / (j["end"]["sum_received"]["bytes"] / 1e6)))' "$j" "$((b1 - b0))")" insn/MB
	done
	for r in $EX_TCP_PROF; do
		tcp_profile "${r%:*}" "${r#*:}" "$d"
	done
}

# tcp_profile CC N DIR: one more iperf3 run under perf record; per symbol
# (the 12 largest, and every fq_*, tcp_*pacing* and tcp_tso_* symbol:
# what the series changes), guest instructions per received MB.
tcp_profile() {
	local cc=$1 n=$2 d=$3 j data
	command -v perf >/dev/null || { say "no perf in the guest image: TCP profile left out"; return 0; }
	j=$d/prof-$cc-$n.json data=/tmp/perf-tcp.data
	perf record -a -e cpu-clock -c "$EX_PROF_PERIOD" -o "$data" -- \
		ip netns exec snd iperf3 -c "$RCV_IP" -p 5201 -n "$EX_TCP_PROF_BYTES" -P "$n" -C "$cc" -J >"$j" 2>"$d/record-$cc-$n.txt" ||
		fail "profiled iperf3 $cc x$n failed: $(head -c 300 "$j") $(tail -n 3 "$d/record-$cc-$n.txt")"
	perf_symbols "$data" "$d/report-$cc-$n.txt"
	rm -f "$data"
	local mb
	mb=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["end"]["sum_received"]["bytes"] / 1e6)' "$j")
	# Lines: "  12.34%  1234  [k] tcp_sendmsg".
	awk -v mb="$mb" -v per="$EX_PROF_PERIOD" '/^ +[0-9.]+%/ {
		k++; ins = $2 * per / mb
		if ($4 ~ /^fq_/) fq += ins
		if (k <= 12 || $4 ~ /^(fq_|tcp_.*pacing|tcp_tso_)/) printf "%s %.0f\n", $4, ins
		} END { printf "fq_total %.0f\n", fq }' "$d/report-$cc-$n.txt" >"$d/symbols-$cc-$n.txt"
	while read -r sym ins; do
		if [ "$sym" = fq_total ]; then
			row tcp "$cc-x$n" fq_insn_per_MB "$ins" insn/MB
		else
			row profile "tcp-$cc-x$n/$sym" insn "$ins" insn/MB
		fi
	done <"$d/symbols-$cc-$n.txt"
}

# 5. Where fq's instructions go: perf record (cpu-clock: under icount a
# sample every EX_PROF_PERIOD ns is one every EX_PROF_PERIOD instructions)
# of counted pktgen runs through fq; per symbol, its share of the samples
# and its instructions per packet (samples * period / packets).
t_profile() {
	local F S=64 d=$R/data/profile n
	command -v perf >/dev/null || skip "no perf in the guest image (rootfs/packages: linux-perf)"
	mkdir -p "$d"
	for F in $EX_PROF_FLOWS; do
		pg_setup fq orphan_mask "$BIG_MASK" nopacing
		pg_counted "$F" "$S" "$(fq_warm)" >/dev/null
		pg_config "$F" "$S" "$EX_COUNT"
		perf record -a -e cpu-clock -c "$EX_PROF_PERIOD" -o /tmp/perf.data -- \
			sh -c "echo start >$PG/pgctrl" >"$d/record-$F.txt" 2>&1 ||
			fail "perf record failed: $(tail -n 5 "$d/record-$F.txt")"
		perf_symbols /tmp/perf.data "$d/report-$F.txt" 0.2
		ip link del "$PG_DEV"
		grep -E '^ +[0-9.]+%' "$d/report-$F.txt" | head -n 30
		local v=$F-flows/${S}B
		# Lines: "  12.34%  1234  [k] fq_enqueue".
		awk -v c="$EX_COUNT" -v per="$EX_PROF_PERIOD" '/^ +[0-9.]+%/ && $4 ~ /^(fq_|__qdisc_run|__dev_queue_xmit|dequeue_skb|sch_direct_xmit|pfifo_|qdisc_)/ {
			printf "%s %.1f %.1f\n", $4, $1 + 0, $2 * per / c }' "$d/report-$F.txt" >"$d/fq-$F.txt"
		while read -r sym pct insn; do
			row profile "$v/$sym" share "$pct" "%"
			row profile "$v/$sym" insn "$insn" insn/pkt
		done <"$d/fq-$F.txt"
		n=$(awk '$1 ~ /^fq_/ { s += $2 } END { printf "%.1f", s }' "$d/fq-$F.txt")
		row profile "$v/fq_total" share "$n" "%"
	done
}

# 6. Peak flow memory of the 1M-flow case: one packet per 4-tuple, each
# 4-tuple once, at a fixed rate for three gc ages, through fq with its
# default 1024 buckets; fq_flow_cache sampled every half second (guest
# time). Two variants: fq as configured by default (an idle qdisc: the
# series' fast path takes the packets and makes no flow), and with maxrate
# far above the offered rate, which classifies every packet (both kernels
# then hold the flows the 3 s gc age keeps).
t_peak() {
	local var args st=$R/data/peak.stats a0 b0 b peak pflows f
	for var in default classified; do
		args=(fq orphan_mask "$BIG_MASK")
		[ "$var" = default ] || args+=(maxrate 30gbit)
		pg_setup "${args[@]}"
		echo 1 >/sys/kernel/slab/fq_flow_cache/shrink 2>/dev/null || true
		read -r a0 _ b0 < <(slab_bytes fq_flow_cache)
		pg_config "$EX_PEAK_FLOWS" 64 "$EX_PEAK_FLOWS"
		pg_write "$PG/$PG_DEV" "delay $((1000000000 / EX_PEAK_PPS))"
		peak=0 pflows=0
		pg_start
		while kill -0 "$PG_PID" 2>/dev/null; do
			read -r _ _ b < <(slab_bytes fq_flow_cache)
			if [ $((b - b0)) -gt "$peak" ]; then
				peak=$((b - b0))
				fq_stats "$PG_DEV" >"$st"
				pflows=$(kv "$st" flows)
			fi
			sleep 0.5
		done
		pg_wait
		fq_stats "$PG_DEV" >"$st"
		cat "$st"
		f=$(kv "$st" flows)
		say "  peak $var: $(pg_sent) packets, fq_flow slab peak +$peak B over $a0 objects, $pflows flows then; $f flows and gc $(kv "$st" gc) at the end"
		[ "$(pg_sent)" -gt 0 ] || fail "pktgen sent nothing ($var)"
		row peak "$EX_PEAK_FLOWS-flows/$var" peak_slab_bytes "$peak" B
		row peak "$EX_PEAK_FLOWS-flows/$var" peak_flows "$pflows" flows
		row peak "$EX_PEAK_FLOWS-flows/$var" gc_flows "$(kv "$st" gc)" flows
		ip link del "$PG_DEV"
	done
}

# 7. One packet through an idle qdisc gone cold, for the cache model only
# (scripts/bench.sh --cache-model): a dummy with EX_COLD_QUEUES transmit
# queues under mq, every child pfifo or fq with its defaults. Before each
# of EX_COLD_PKTS packets, cachemark walks EX_COLD_FLUSH bytes, which
# evicts everything from the model's caches (what 64 qdiscs and the rest
# of a busy machine do to an idle one), then its window holds the one
# write(2) that makes pktgen send that packet: the whole transmit path,
# qdisc and all, from cold caches. fq - pfifo is what fq's state costs.
t_coldq() {
	local q i n0
	[ "$EX_CACHE" = 1 ] || skip "the cold-qdisc point counts cache misses: scripts/bench.sh --cache-model runs it"
	for q in pfifo fq; do
		PG_TXQUEUES=$EX_COLD_QUEUES pg_setup handle 1: mq
		for i in $(seq "$EX_COLD_QUEUES"); do
			echo "qdisc replace dev $PG_DEV parent 1:$(printf %x "$i") $q"
		done | tc -batch - || fail "could not put $q under mq's $EX_COLD_QUEUES classes"
		[ "$(tc qdisc show dev "$PG_DEV" | grep -c "^qdisc $q ")" = "$EX_COLD_QUEUES" ] ||
			fail "mq has not $EX_COLD_QUEUES $q children: $(tc qdisc show dev "$PG_DEV" | head -n 3)"
		pg_config "$EX_COLD_PKTS" 64 1
		n0=$(pg_txpkts)
		for _ in $(seq "$EX_COLD_PKTS"); do
			# pgctrl drops the last byte of a write (echo's newline).
			cachemark write "$PG/pgctrl" $'start\n' "$EX_COLD_FLUSH" || fail "cachemark write to pgctrl failed ($q)"
			cm_label "coldq|mq-$EX_COLD_QUEUES/64B|$q" 1
		done
		[ "$(($(pg_txpkts) - n0))" = "$EX_COLD_PKTS" ] ||
			fail "$q: $(($(pg_txpkts) - n0)) packets left the dummy, want $EX_COLD_PKTS (one per start)"
		tc -s qdisc show dev "$PG_DEV" >"$R/data/coldq-$q.txt"
		ip link del "$PG_DEV"
	done
}

# 10. The throttled set's worst cases (tests/lib-wheel.sh, the same runs
# cases/96-fq-wheel.sh asserts bounds on), in guest instructions: the
# median re-timing send with EX_WHEEL_RETIME far flows; the first send and
# the first release (a task's wakeup lateness) of 1000 flows after 1 ms
# and after EX_WHEEL_IDLE seconds of idle; the largest wakeup lateness of a
# task while 30 or 30k far flows wait and the clock crosses its ranges,
# and while 10k far flows come due; the release of 64 or 1000 flows of one
# 8 us slot, per flow. No pfifo counterpart: fq alone holds flows.
t_wheel() {
	local n i out
	# shellcheck source=tests/lib-wheel.sh
	. "$T/lib-wheel.sh"
	wh_setup
	for n in $EX_WHEEL_RETIME; do
		out=$(whc retime -n "$n" -k 64)
		row wheel "retime-$n" retime_insn "$(kv_of "$out" retime median_ns)" insn
	done
	for i in 0.001 "$EX_WHEEL_IDLE"; do
		out=$(whc idle -n 1000 -i "$i")
		row wheel "idle-$i" first_send_insn "$(kv_of "$out" idle first_send_ns)" insn
		row wheel "idle-$i" first_release_insn "$(kv_of "$out" idle first_release_late_ns)" insn
	done
	for n in 30 30000; do
		out=$(whc late -n "$n" -a 60 -s 1 -w 2.5 -t 500 -P)
		row wheel "crossing-$n" max_late_insn "$(kv_of "$out" late max_late_ns)" insn
	done
	out=$(whc late -n 10000 -a 60 -s 20 -w 82 -t 1000)
	row wheel fardue-10000 max_late_insn "$(kv_of "$out" late max_late_ns)" insn
	for n in 64 1000; do
		out=$(whc crowded -n "$n")
		row wheel "crowded-$n" release_insn_per_flow "$(kv_of "$out" crowded per_flow_ns)" insn
	done
}
