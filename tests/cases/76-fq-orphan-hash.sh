# shellcheck shell=bash
# Packets without a usable socket (here an unconnected UDP socket's) are fq
# flows by hash & orphan_mask. Patch 3 hashes plain IPv4 and IPv6 TCP and
# UDP itself (addresses, protocol, ports) and leaves every other packet to
# skb_get_hash(), as 6.1 did for all; 7.x, stock or with the upstream
# patches, keys every such packet on skb_get_hash() (the net-next series
# only computes it later, once the fast path is ruled out). Either way a
# 5-tuple must stay one flow and 5-tuples must stay apart; a fragmented
# datagram's fragments carry no ports, and all of them between two hosts
# share one flow, so that no fragment overtakes another. Counted in fq's flows: maxrate (far
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

# 5 datagrams to each of 2000 IPv4 ports make 1995-2000 flows: one per
# 5-tuple, not one per packet, and 5-tuples apart.
t_ipv4_ports_apart() {
	oh_setup
	# The series' own hash: one flow per 5-tuple, not per packet.
	oh_send 1995 2000 ipv4 -d "$RCV_IP" -p 20000 -n 2000 -c 10000 -l 64
}

# The same over IPv6: 1995-2006 flows (the new link's router
# solicitations and MLD reports may add a few: 4 seen on 7.2).
t_ipv6_ports_apart() {
	oh_setup v6
	# The series' own hash too (6.1: skb_get_hash()). The new link's router
	# solicitations and MLD reports may add a few flows (4 seen on 7.2).
	oh_send 1995 2006 ipv6 -6 -d "$RCV_IP6" -p 20000 -n 2000 -c 10000 -l 64
}

# 3000-byte datagrams to 50 ports, 3 fragments each with no ports to
# hash: exactly one flow, so no fragment overtakes another.
t_fragments_one_flow() {
	oh_setup
	# 3000-byte datagrams over a 1500-byte MTU: 3 fragments each, none
	# with ports for the hash. 50 ports, one flow.
	oh_send 1 1 fragments -d "$RCV_IP" -p 20000 -n 50 -c 200 -l 3000
}

# IPv6 fragments: the first one carries the ports, the later ones not even
# the upper protocol. Every kernel keys them on what they all carry: the
# addresses and the flow label, which Linux sets per 5-tuple (auto flow
# labels), so 50 ports are 50 flows (and a router solicitation or MLD
# report of the new link a few more); a datagram split over two flows (the
# first fragment keyed on its ports) would make up to 100.
t_ipv6_fragments_not_split() {
	oh_setup v6
	oh_send 48 56 ipv6-fragments -6 -d "$RCV_IP6" -p 20000 -n 50 -c 200 -l 3000
}

# A hash already on the packet (here a random one per packet, set on
# purpose by a tc egress program before fq with bpf_set_hash(), as a NIC's
# receive hash on forwarded traffic) is the flow key on every kernel: 6.1,
# the series, stock 7.x and 7.x with the upstream patches take the hash
# skb_get_hash() keeps, so every packet is a flow of its own (a key of
# fq's own that overrode it was dropped from the net-next series).
t_preset_hash_kept() {
	local obj=$BIN/sethash.bpf.o
	[ -f "$obj" ] || fail "no $obj: tests/Makefile builds it with clang -target bpf"
	oh_setup
	sn tc qdisc add dev veth0 clsact
	sn tc filter add dev veth0 egress bpf direct-action obj "$obj" sec tc ||
		fail "loading $obj failed"
	oh_send 950 1000 preset-hash -d "$RCV_IP" -p 20000 -n 200 -c 1000 -l 64
}
