# shellcheck shell=bash
# sch_fq flow garbage collection and rehash. An unconnected UDP socket's
# packets are classified by hash & orphan_mask, so 10000 destination ports
# from one socket make ~10000 fq flows (orphan_mask 0xfffff keeps hash
# collisions to ~50). A flow is a gc candidate once it has been empty for
# 3 s; gc runs on lookup in the bucket of a new packet (while flows >=
# 2 x buckets and most are inactive) and on rehash.
# Under TCG one tc run can take a second, so no check depends on how fast
# the case runs: flows are kept young by traffic that keeps touching them,
# and the books are checked as flows + gc, which only new flows change.
# shellcheck source=tests/lib-fq.sh
. "$T/lib-fq.sh"
CASE_TIMEOUT=90

# fg JSON: "FLOWS GC INACTIVE" of the root fq in a snapshot
fg() { echo "$(qv "$1" fq flows) $(qv "$1" fq gc) $(qv "$1" fq inactive)"; }

# 10000 unconnected-UDP flows kept young (maxrate keeps them off the fast
# path): a rehash to 2048 buckets keeps every one and gc collects none;
# idle for 3.5 s nothing changes; then 3000 new ports' lookups collect
# 1000 or more aged flows, the flow count falls, a rehash to 256 buckets
# keeps the young ones, and flows + gc grows only by the flows made.
t_gc_and_rehash() {
	topo
	quiet_link
	# maxrate (far above the offered rate, so nothing is throttled) keeps
	# the packets off the fast path of our series: only classified packets
	# make flows, and flows are what gc collects.
	sn tc qdisc add dev veth0 root fq orphan_mask 0xfffff buckets 1024 maxrate 30gbit
	# 10000 ports, each touched every ~0.6 s (15600 packets/s) for 6 s
	sn udpflows -d "$RCV_IP" -p 20000 -n 10000 -t 6 -r 8m -l 64 >"$R/data/gc-tx1.txt" &
	tpid=$!
	sleep 2.5
	# Rehash under traffic: nothing is old enough to collect, every flow
	# moves to the new table.
	read -r f1 g1 _ <<<"$(fg "$(snap snd veth0)")"
	sn tc qdisc change dev veth0 root fq buckets 2048
	read -r f2 g2 _ <<<"$(fg "$(snap snd veth0)")"
	wait "$tpid"
	say "$(cat "$R/data/gc-tx1.txt"); flows $f1 gc $g1 -> buckets 2048 -> flows $f2 gc $g2"
	[ "$f1" -ge 9800 ] || fail "only $f1 flows for 10000 ports"
	[ "$f2" = "$f1" ] && [ "$g2" = "$g1" ] || fail "rehash lost young flows: $f1 -> $f2 (gc $g1 -> $g2)"
	[ "$g1" = 0 ] || fail "gc collected $g1 flows that were never idle for 3 s"
	# No traffic, no gc, however old the flows get.
	sleep 3.5
	read -r f3 g3 _ <<<"$(fg "$(snap snd veth0)")"
	say "idle 3.5 s: flows $f3 gc $g3"
	[ "$f3" = "$f1" ] && [ "$g3" = "$g1" ] || fail "flows changed while idle: $f1/$g1 -> $f3/$g3"
	# 3000 new ports, each touched every ~0.2 s: their lookups collect the
	# aged flows met on the way; a rehash meanwhile keeps the young ones.
	sn udpflows -d "$RCV_IP" -p 40000 -n 3000 -t 6 -r 8m -l 64 >"$R/data/gc-tx2.txt" &
	tpid=$!
	sleep 2.5
	read -r f4 g4 _ <<<"$(fg "$(snap snd veth0)")"
	sn tc qdisc change dev veth0 root fq buckets 256
	read -r f5 g5 _ <<<"$(fg "$(snap snd veth0)")"
	wait "$tpid"
	read -r f6 g6 _ <<<"$(fg "$(snap snd veth0)")"
	say "$(cat "$R/data/gc-tx2.txt"); 3000 new ports: flows $f4 gc $g4 -> buckets 256 -> flows $f5 gc $g5; done: flows $f6 gc $g6"
	[ $((g4 - g3)) -ge 1000 ] || fail "new traffic collected only $((g4 - g3)) aged flows"
	[ "$f4" -lt "$f3" ] || fail "flows did not fall: $f3 -> $f4"
	# flows + gc grows only by the flows created: 3000, less the few new
	# ports whose hash is already a flow's
	new=$((f4 + g4 - f3 - g3))
	[ "$new" -le 3000 ] && [ "$new" -ge 2940 ] || fail "flows + gc grew by $new for 3000 new ports"
	[ $((f5 + g5)) = $((f4 + g4)) ] || fail "rehash: flows + gc went from $((f4 + g4)) to $((f5 + g5))"
	[ "$f5" -ge 2940 ] || fail "rehash dropped young flows: $f5 left"
	[ $((f6 + g6)) = $((f4 + g4)) ] || fail "flows + gc moved without new flows: $((f4 + g4)) -> $((f6 + g6))"
}
