# shellcheck shell=bash
# Packets without a usable socket (here an unconnected UDP socket's) are fq
# flows by hash & orphan_mask. Patch 3 hashes plain IPv4 TCP and UDP itself
# (addresses, protocol, ports) and leaves every other packet to
# skb_get_hash(), as 6.1 did for all. Either way a 5-tuple must stay one
# flow and 5-tuples must stay apart; a fragmented datagram's fragments
# carry no ports, and all of them between two hosts share one flow, so
# that no fragment overtakes another. Counted in fq's flows: maxrate (far
# above the offered rate) keeps the series' fast path out, so every packet
# is classified; orphan_mask 2^24-1 makes collisions rare (2000 flows:
# one pair in ~8 runs, hence the slack below).
# shellcheck source=tests/lib-fq.sh
. "$T/lib-fq.sh"
CASE_TIMEOUT=90

oh_flows() { qv "$(snap snd veth0)" fq flows; }

# oh_send NEW_MIN NEW_MAX WHAT UDPFLOWS-ARGS...: send, then fq must hold
# NEW_MIN..NEW_MAX more flows than before.
oh_send() {
	local lo=$1 hi=$2 what=$3 f0 f1
	shift 3
	f0=$(oh_flows)
	sn udpflows -r 4m "$@" >"$R/data/orphan-$what.txt" 2>&1 || fail "udpflows ($what): $(cat "$R/data/orphan-$what.txt")"
	f1=$(oh_flows)
	say "$what: $(cat "$R/data/orphan-$what.txt"); fq flows $f0 -> $f1"
	[ $((f1 - f0)) -ge "$lo" ] && [ $((f1 - f0)) -le "$hi" ] ||
		fail "$what: $((f1 - f0)) new fq flows, expected $lo..$hi"
}

# oh_setup [v6]: fq on veth0, no ARP or neighbour solicitation among the
# flows; without v6, no IPv6 at all (no router solicitation or MLD report).
oh_setup() {
	local m1
	topo
	if [ "${1:-}" = v6 ]; then
		m1=$(rn cat /sys/class/net/veth1/address)
		sn ip -6 neigh replace "$RCV_IP6" lladdr "$m1" dev veth0 nud permanent
	else
		quiet_link
	fi
	sn tc qdisc add dev veth0 root fq orphan_mask 0xffffff maxrate 30gbit
}

# Each udpflows run is one new socket, with a source port of its own: 5
# datagrams to each of 2000 ports are 2000 5-tuples of 5 packets each.

t_ipv4_ports_apart() {
	oh_setup
	# The series' own hash: one flow per 5-tuple, not per packet.
	oh_send 1995 2000 ipv4 -d "$RCV_IP" -p 20000 -n 2000 -c 10000 -l 64
}

t_ipv6_ports_apart() {
	oh_setup v6
	# skb_get_hash(), as in 6.1. A router solicitation or MLD report of
	# the new link may add a flow or three.
	oh_send 1995 2003 ipv6 -6 -d "$RCV_IP6" -p 20000 -n 2000 -c 10000 -l 64
}

t_fragments_one_flow() {
	oh_setup
	# 3000-byte datagrams over a 1500-byte MTU: 3 fragments each, none
	# with ports for the hash. 50 ports, one flow.
	oh_send 1 1 fragments -d "$RCV_IP" -p 20000 -n 50 -c 200 -l 3000
}
