# shellcheck shell=bash
# pktgen through a root qdisc: xmit_mode queue_xmit hands every packet to
# dev_queue_xmit(), so it is classified, queued and dequeued by the qdisc
# under test before the (dummy) device drops it. Used by the scale case
# (88-fq-scale) and the benchmark (tests/bench). Sourced after lib.sh.
#
# Flows: pktgen's packets have no socket, so fq keys them by
# skb_get_hash() & orphan_mask; the callers set orphan_mask to 2^24-1 so
# that distinct 4-tuples stay distinct flows. pktgen steps the UDP source
# port through [min, max) and the IPv4 source through [min, max], both
# once per packet: with coprime range sizes every packet of a cycle of
# ports * addresses packets is a different 4-tuple (pg_tuples below).

PG=/proc/net/pktgen
PG_DEV=pg0

# pg_write FILE CMD: one pktgen command; pktgen answers in the file's
# "Result:" line, which must say OK.
pg_write() {
	echo "$2" >"$1" || fail "pktgen: '$2' > $1 failed"
	[ "${1##*/}" = pgctrl ] || [ "${1##*/}" = kpktgend_0 ] ||
		grep -q '^Result: OK' "$1" || fail "pktgen refused '$2': $(grep '^Result' "$1")"
}

# pg_setup QDISC-ARGS...: a dummy device pg0 in the initial namespace with
# "tc qdisc replace dev pg0 root QDISC-ARGS" and pktgen thread 0 bound to it
# (PG_TXQUEUES transmit queues when set, for mq).
pg_setup() {
	local txq=()
	# A distribution kernel builds pktgen as a module: loaded as its
	# users load it.
	[ -d "$PG" ] || modprobe -q pktgen 2>/dev/null || true
	[ -d "$PG" ] || skip "no /proc/net/pktgen (CONFIG_NET_PKTGEN)"
	[ -z "${PG_TXQUEUES:-}" ] || txq=(numtxqueues "$PG_TXQUEUES")
	ip link del "$PG_DEV" 2>/dev/null || true
	ip link add "$PG_DEV" "${txq[@]}" type dummy
	# No IPv6 router solicitations or MLD reports: only pktgen's packets
	# pass the qdisc, so its counters must equal pktgen's.
	sysctl -qw "net.ipv6.conf.$PG_DEV.disable_ipv6=1" 2>/dev/null || true
	ip link set "$PG_DEV" up
	ip addr add 198.19.0.1/16 dev "$PG_DEV"
	tc qdisc replace dev "$PG_DEV" root "$@"
	pg_write "$PG/kpktgend_0" rem_device_all
	pg_write "$PG/kpktgend_0" "add_device $PG_DEV"
}

# pg_tuples FLOWS: "PORTS ADDRS" such that ports * addrs >= FLOWS distinct
# 4-tuples per cycle (ports odd when there is more than one address).
pg_tuples() {
	local f=$1 a=1 p
	while [ $((f / a)) -gt 65000 ]; do a=$((a * 2)); done
	p=$(((f + a - 1) / a))
	[ "$a" = 1 ] || [ $((p % 2)) = 1 ] || p=$((p + 1))
	echo "$p $a"
}

# pg_config FLOWS SIZE COUNT: packets of SIZE bytes (pktgen's pkt_size, the
# frame without FCS), COUNT of them (0 = until pg_stop), cycling over FLOWS
# distinct UDP 4-tuples.
pg_config() {
	local f=$1 size=$2 count=$3 d=$PG/$PG_DEV p a
	read -r p a < <(pg_tuples "$f")
	pg_write "$d" "count $count"
	pg_write "$d" "pkt_size $size"
	pg_write "$d" "delay 0"
	pg_write "$d" "clone_skb 0"
	pg_write "$d" "xmit_mode queue_xmit"
	pg_write "$d" "dst 198.19.255.254"
	pg_write "$d" "dst_mac 02:00:00:00:00:02"
	pg_write "$d" "src_min 198.19.1.1"
	pg_write "$d" "src_max 198.19.1.$a"
	pg_write "$d" "udp_dst_min 9"
	pg_write "$d" "udp_dst_max 9"
	pg_write "$d" "udp_src_min 1000"
	pg_write "$d" "udp_src_max $((1000 + p))"
}

# pg_start / pg_stop: run thread 0 in the background until pg_stop (or
# until COUNT packets went out; pg_wait then returns).
pg_start() {
	echo start >"$PG/pgctrl" &
	PG_PID=$!
}
pg_stop() {
	echo stop >"$PG/pgctrl" || true
	wait "$PG_PID" 2>/dev/null || true
}
pg_wait() { wait "$PG_PID" 2>/dev/null || true; }

# pg_sent: packets pktgen handed to the stack, from its device file.
pg_sent() { sed -n 's/.*pkts-sofar: \([0-9]*\).*/\1/p' "$PG/$PG_DEV" | head -n 1; }

# pg_counts DEVFILE: "accepted refused" of one pktgen device (pkts-sofar
# counts what dev_queue_xmit() accepted, errors what the qdisc refused).
pg_counts() {
	sed -n 's/.*pkts-sofar: \([0-9]*\) *errors: \([0-9]*\).*/\1 \2/p' "$1" | head -n 1
}

# pg_txpkts: packets the dummy device transmitted (i.e. fq dequeued).
pg_txpkts() { cat "/sys/class/net/$PG_DEV/statistics/tx_packets"; }

# cpu_busy_ns: time all CPUs spent outside idle and iowait, from /proc/stat.
cpu_busy_ns() {
	awk -v hz="$(getconf CLK_TCK)" '$1 == "cpu" {
		printf "%.0f\n", ($2 + $3 + $4 + $7 + $8 + $9) * 1e9 / hz; exit }' /proc/stat
}

# timer_irqs: local timer interrupts (LOC) on all CPUs, the hrtimer expiries
# that pacing's watchdog adds to.
timer_irqs() { awk '$1 == "LOC:" { s = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i; print s }' /proc/interrupts; }

now_ns() { date +%s%N; }

# slab_bytes NAME: "ACTIVE_OBJS OBJSIZE BYTES" of a slab cache from
# /proc/slabinfo, BYTES = slabs * pages per slab * page size (what the cache
# holds from the page allocator, free objects in its slabs included).
slab_bytes() {
	awk -v n="$1" -v pg="$(getconf PAGESIZE)" '$1 == n {
		print $2, $4, $15 * $6 * pg; found = 1; exit }
		END { if (!found) print "0 0 0" }' /proc/slabinfo
}
