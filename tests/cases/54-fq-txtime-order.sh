# shellcheck shell=bash
# SO_TXTIME order through fq: the datagrams of ONE flow (one
# unconnected socket, one 4-tuple: one fq flow) with departure times
# 50-300 ms ahead (well inside the default 10 s horizon), sent in
# increasing, decreasing and random txtime order. fq keeps each flow's
# packets ordered by time to send (6.1: a list plus an rb-tree for the
# ones that come out of order), so at the receiver they must arrive in
# nondecreasing txtime order, every one, and none before its txtime. With
# UDP GSO (UDP_SEGMENT) every segment of a GSO packet must arrive after
# that packet's txtime, the segments of one packet together and in order.
# The receiver (txtime -R) reads CLOCK_MONOTONIC, which the namespaces
# share with the sender's txtimes.
# shellcheck source=tests/lib-fq.sh
. "$T/lib-fq.sh"
CASE_TIMEOUT=45

ORD_PORT=9400

# ord_setup: topo, a quiet link, a default fq at the root of veth0.
ord_setup() {
	topo
	quiet_link
	sn tc qdisc add dev veth0 root fq
}

# ord_run NAME COUNT TXTIME_ARGS... -- TIMES...: a receiver for COUNT
# datagrams on ORD_PORT in rcv, then one txtime sender (-s: every datagram
# to ORD_PORT from one socket) in snd. The sender's output goes to
# $R/data/ord-NAME-tx.txt, the receiver's to ord-NAME-rx.txt; the fq's
# counters before and after in ORD_B and ORD_A. Returns txtime's status.
ord_run() {
	local name=$1 count=$2 rc=0
	shift 2
	rn txtime -R -p "$ORD_PORT" -n 1 -c "$count" -w "$((4000 * ${FQP_TIMEOUT_SCALE:-1}))" \
		>"$R/data/ord-$name-rx.txt" &
	ORD_RX=$!
	wait_listen rcv udp "$ORD_PORT"
	ORD_B=$(fqs snd veth0)
	sn txtime -s -d "$RCV_IP" -p "$ORD_PORT" "$@" >"$R/data/ord-$name-tx.txt" 2>&1 || rc=$?
	if [ "$rc" != 0 ]; then
		kill "$ORD_RX" 2>/dev/null || true
		wait "$ORD_RX" 2>/dev/null || true
		return "$rc"
	fi
	wait "$ORD_RX"
	ORD_A=$(fqs snd veth0)
}

# ord_check NAME SENT [SEGS]: the verdict on one ord_run. Every one of the
# SENT sends arrived (SEGS segments each with -G, else 1), once; in
# nondecreasing txtime order; none before its txtime, none more than 2 s
# (scaled) after it; with SEGS, a packet's segments back to back in
# segment order. The sender's order must have had txtime inversions for
# NAME != increasing (else the run tested no reordering). fq sent them
# all (packets counts segments), dropped none.
ord_check() {
	local name=$1 sent=$2 segs=${3:-1} tx=$R/data/ord-$1-tx.txt rx=$R/data/ord-$1-rx.txt
	local line t a i s ns prev=0 n=0 early=0 late=0 bad_order=0 bad_seg=0
	local lmin='' lmax=0 l inv=0 tprev=0 want_i='' want_s=0 order='' k v
	local max_late=$((2000000000 * ${FQP_TIMEOUT_SCALE:-1}))
	local -A got=()
	# sender order
	while read -r line; do
		[[ $line == "tx "* ]] || continue
		[[ $line =~ txtime=(0x[0-9a-f]+) ]] || fail "bad tx line: $line"
		t=$((BASH_REMATCH[1]))
		[ "$tprev" = 0 ] || [ "$t" -ge "$tprev" ] || inv=$((inv + 1))
		tprev=$t
	done <"$tx"
	grep -E '^sent=' "$tx"
	[ "$(sed -n 's/^sent=\([0-9]*\) .*/\1/p' "$tx")" = "$sent" ] ||
		fail "the sender did not send all $sent: $(tail -n 2 "$tx" | tr '\n' ' ')"
	say "sender: $inv txtime inversions in send order"
	# arrival order
	while read -r line; do
		[[ $line == "rx "* ]] || continue
		# rx port=P i=I txtime=0x... sent_ns=S arrive_ns=A delay_ns=D [seg=K nsegs=N]
		i='' s=0 ns=0
		for k in $line; do
			v=${k#*=}
			case $k in
			i=*) i=$v ;;
			txtime=*) t=$((v)) ;;
			arrive_ns=*) a=$v ;;
			seg=*) s=$v ;;
			nsegs=*) ns=$v ;;
			esac
		done
		n=$((n + 1))
		[ -z "${got[$i.$s]:-}" ] || fail "datagram i=$i seg=$s arrived twice"
		got[$i.$s]=1
		[ "$t" -ge "$prev" ] || { bad_order=$((bad_order + 1)); say "out of order: $line"; }
		prev=$t
		l=$((a - t))
		[ "$l" -ge 0 ] || { early=$((early + 1)); say "early by $((-l)) ns: $line"; }
		[ "$l" -le "$max_late" ] || { late=$((late + 1)); say "late by $l ns: $line"; }
		[ -n "$lmin" ] && [ "$l" -ge "$lmin" ] || lmin=$l
		[ "$l" -le "$lmax" ] || lmax=$l
		if [ "$ns" = 0 ]; then order+="$i "; else order+="$i.$s "; fi
		if [ "$segs" -gt 1 ]; then
			[ "$ns" = "$segs" ] || fail "i=$i arrived with nsegs=$ns, sent $segs segments: $line"
			# segment 0 starts a packet; the next ones follow it in order
			if [ "$s" = 0 ]; then
				[ -z "$want_i" ] || { bad_seg=$((bad_seg + 1)); say "packet $want_i cut short before $line"; }
				want_i=$i want_s=1
			elif [ "$i" = "$want_i" ] && [ "$s" = "$want_s" ]; then
				want_s=$((want_s + 1))
			else
				bad_seg=$((bad_seg + 1))
				say "segment out of place (want i=$want_i seg=$want_s): $line"
			fi
			[ "$want_s" != "$segs" ] || want_i=''
		fi
	done <"$rx"
	say "arrival order (i[.seg]): $order"
	say "$n datagrams arrived, $early early, $late late, $bad_order out of txtime order, $bad_seg segments out of place; arrival - txtime ${lmin:-?}..$lmax ns"
	say "fq: packets +$(fqsd "$ORD_B" "$ORD_A" packets) drops +$(fqsd "$ORD_B" "$ORD_A" drops) horizon_drops +$(fqsd "$ORD_B" "$ORD_A" horizon_drops) throttled +$(fqsd "$ORD_B" "$ORD_A" throttled)"
	[ "$n" = $((sent * segs)) ] || fail "$n of $((sent * segs)) datagrams arrived"
	[ "$bad_order" = 0 ] || fail "$bad_order datagrams left out of txtime order: fq does not keep the flow time-ordered"
	[ "$early" = 0 ] || fail "$early datagrams arrived before their txtime"
	[ "$late" = 0 ] || fail "$late datagrams arrived more than $max_late ns after their txtime"
	[ "$bad_seg" = 0 ] || fail "$bad_seg segments out of place: a GSO packet did not leave whole"
	[ "$name" = increasing ] || [ "$inv" -gt 0 ] ||
		fail "the $name sequence had no inversion in send order: nothing was reordered"
	[ "$(fqsd "$ORD_B" "$ORD_A" packets)" = $((sent * segs)) ] ||
		fail "fq sent $(fqsd "$ORD_B" "$ORD_A" packets) packets, want $((sent * segs))"
	[ "$(fqsd "$ORD_B" "$ORD_A" drops)" = 0 ] || fail "fq dropped packets"
}

# ord_order NAME TIMES...: one flow's datagrams with these txtimes
# (txtime's +US form), sent in this order, and the verdict on them.
ord_order() {
	local name=$1
	shift
	ord_setup
	ord_run "$name" $# -- "$@" || fail "txtime sender failed (status $?)"
	ord_check "$name" $#
}

# 30 datagrams, txtime now + 50 ms, + 58 ms, ... + 282 ms.
t_increasing() {
	local times=() i
	for i in $(seq 0 29); do times+=("+$((50000 + i * 8000))"); done
	ord_order increasing "${times[@]}"
}

# 30 datagrams, txtime now + 290 ms, + 282 ms, ... + 58 ms: each one goes
# before every packet the flow holds.
t_decreasing() {
	local times=() i
	for i in $(seq 0 29); do times+=("+$((290000 - i * 8000))"); done
	ord_order decreasing "${times[@]}"
}

# 40 datagrams, txtimes uniform in now + 50..300 ms.
t_random() {
	local times=() i
	for i in $(seq 0 39); do times+=("+$((50000 + (RANDOM * 32768 + RANDOM) % 250001))"); done
	say "relative txtimes (us): ${times[*]}"
	ord_order random "${times[@]}"
}

# UDP GSO: 12 sends of 4 x 1000 bytes (UDP_SEGMENT 1000) from the same one
# socket, random txtimes in now + 50..300 ms. fq holds each GSO packet as
# one skb until its txtime; the receiver's UDP stack cuts it into its 4
# datagrams (the socket has no UDP_GRO). A kernel or socket without UDP
# GSO makes this a SKIP naming the errno.
t_gso() {
	local times=() i rc=0 tp0 tp1 out
	ord_setup
	for i in $(seq 0 11); do times+=("+$((50000 + (RANDOM * 32768 + RANDOM) % 250001))"); done
	say "relative txtimes (us): ${times[*]}"
	say "veth0 offloads: $(sn ethtool -k veth0 2>/dev/null | grep -E 'udp-segmentation|generic-segmentation' | tr -s '\t\n' '  ')"
	tp0=$(sn cat /sys/class/net/veth0/statistics/tx_packets)
	ord_run gso 48 -l 4000 -G 1000 -- "${times[@]}" || rc=$?
	out=$(cat "$R/data/ord-gso-tx.txt")
	if [ "$rc" = 3 ]; then
		skip "UDP GSO unavailable: setsockopt(UDP_SEGMENT, 1000) failed with $(sed -n 's/^gso_error=//p' <<<"$out")"
	fi
	if [ "$rc" != 0 ]; then
		if grep -q 'error=' <<<"$out" && ! grep -q 'rel_ns=' <<<"$out"; then
			skip "UDP GSO unavailable: every GSO sendmsg failed: $(grep -m 1 'error=' <<<"$out")"
		fi
		fail "txtime sender failed (status $rc): $(tail -n 3 <<<"$out" | tr '\n' ' ')"
	fi
	tp1=$(sn cat /sys/class/net/veth0/statistics/tx_packets)
	# veth0 counts skbs: 12 when the GSO packets crossed veth whole, 48
	# when they were segmented after fq (the veth lacking tx-udp-segmentation)
	say "veth0 tx_packets +$((tp1 - tp0)) for 12 GSO sends of 4 segments"
	ord_check gso 12 4
}

# A flow throttled for a far txtime, then packets of the same flow with
# earlier txtimes: 1.5 s ahead, then + 100 ms and + 200 ms. fq re-times the
# flow to the earlier packet (as mainline's fq_flow_adjust_timer() does),
# so those two leave on time, not behind the first: each arrives less than
# 0.7 s after its txtime (held behind it, they would be 1.3-1.4 s late).
# Stock 6.1 holds them until the far packet's time: there the case checks
# that they arrive after it (at least 1 s late), in txtime order all the
# same.
t_earlier_retimes() {
	local l1='' l2='' line k i t a
	ord_setup
	ord_run retime 3 -- +1500000 +100000 +200000 || fail "txtime sender failed (status $?)"
	ord_check retime 3
	while read -r line; do
		[[ $line == "rx "* ]] || continue
		i='' t=0 a=0
		for k in $line; do
			case $k in
			i=*) i=${k#*=} ;;
			txtime=*) t=$((${k#*=})) ;;
			arrive_ns=*) a=${k#*=} ;;
			esac
		done
		case $i in 1) l1=$((a - t)) ;; 2) l2=$((a - t)) ;; esac
	done <"$R/data/ord-retime-rx.txt"
	say "the two earlier packets arrived ${l1:-?} and ${l2:-?} ns after their txtimes"
	[ -n "$l1" ] && [ -n "$l2" ] || fail "the earlier packets did not arrive"
	if kernel_is stock61; then
		acmp "$l1 >= 1e9 && $l2 >= 1e9" ||
			fail "stock 6.1 sent an earlier packet of a throttled flow before the flow's time"
		kernel_note "stock 6.1 holds an earlier-txtime packet behind its flow's throttled time (it has no re-timing)"
	else
		acmp "$l1 < 0.7e9 && $l2 < 0.7e9" ||
			fail "the earlier packets waited for the throttled flow's far time"
	fi
}
