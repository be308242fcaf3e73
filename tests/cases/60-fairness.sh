# shellcheck shell=bash
# fq behind a bottleneck: bulk flows share fairly, and a sparse new flow is
# served ahead of them (fq's new-flow list), unlike with a FIFO leaf.
# 6.1's veth gives no backpressure, so htb provides the bottleneck and fq
# (or pfifo, for comparison) is its leaf.
# shellcheck source=tests/lib-fq.sh
. "$T/lib-fq.sh"
CASE_TIMEOUT=120

# bulk_and_probe LEAF...: 4 iperf3 TCP streams through htb 50mbit + LEAF for
# 10 s; from second 3 a 64-byte request/response every 10 ms on a new TCP
# connection. Writes "JAIN BYTES... | RRLAT-LINE" to $R/data/fair-TAG.res
# (not to stdout: a fail inside $(...) would lose its message).
bulk_and_probe() {
	local tag=$1
	shift
	sn tc qdisc del dev veth0 root 2>/dev/null || true
	sn tc qdisc add dev veth0 root handle 1: htb default 1
	sn tc class add dev veth0 parent 1: classid 1:1 htb rate 50mbit
	sn tc qdisc add dev veth0 parent 1:1 handle 10: "$@"
	iperf_srv 5201 "$R/data/fair-$tag-srv.json"
	local spid=$!
	sn iperf3 -c "$RCV_IP" -P 4 -t 10 -J >"$R/data/fair-$tag-cli.json" &
	local cpid=$!
	sleep 3
	local rr
	rr=$(sn rrlat -c "$RCV_IP" -p 9100 -t 5 -n 2000 -i 10) || fail "rrlat failed ($tag): $rr"
	wait "$cpid" || fail "iperf3 failed ($tag)"
	wait "$spid" || true
	sn tc -s qdisc show dev veth0 >"$R/data/fair-$tag-tc.txt"
	local j
	j=$(python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["end"]["streams"]
x = [st["receiver"]["bytes"] for st in s]
print("%.4f" % (sum(x) ** 2 / (len(x) * sum(v * v for v in x))), *x, file=sys.stdout)' "$R/data/fair-$tag-cli.json")
	echo "$j | $rr" >"$R/data/fair-$tag.res"
}

# Four bulk TCP flows through htb 50mbit with fq as the leaf share it
# fairly (Jain 0.99 or more), and a new request/response flow beside
# them is served first: its p50 under a third of what it is with a
# pfifo leaf, at least 50 requests done.
t_fair_and_new_flow() {
	topo
	rn rrlat -s -p 9100 -t "$CASE_TIMEOUT" &
	wait_listen rcv tcp 9100
	bulk_and_probe fq fq
	fq=$(cat "$R/data/fair-fq.res")
	say "fq:    jain bytes... | rrlat: $fq"
	bulk_and_probe pfifo pfifo limit 1000
	ff=$(cat "$R/data/fair-pfifo.res")
	say "pfifo: jain bytes... | rrlat: $ff"
	jain=${fq%% *}
	fq50=$(sed 's/.*p50_us=\([0-9]*\).*/\1/' <<<"$fq")
	ff50=$(sed 's/.*p50_us=\([0-9]*\).*/\1/' <<<"$ff")
	fqn=$(sed 's/.*| n=\([0-9]*\).*/\1/' <<<"$fq")
	say "Jain index with fq: $jain; request p50: fq ${fq50} us, pfifo ${ff50} us"
	acmp "$jain >= 0.99" || fail "Jain index $jain < 0.99 with fq"
	[ "$fqn" -ge 50 ] || fail "only $fqn requests completed with fq"
	[ $((fq50 * 3)) -lt "$ff50" ] || fail "new flow p50 with fq ${fq50} us is not < pfifo ${ff50} us / 3"
}
