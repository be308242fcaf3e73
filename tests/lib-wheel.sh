# shellcheck shell=bash
# The throttled set's worst cases through tests/src/wheelcost, shared by
# the suite (cases/96-fq-wheel.sh, which asserts bounds) and the benchmark
# (bench/exact.sh's wheel workload, which records the figures): a dummy
# device wh0 in netns snd, a fresh fq (limit 1000000, horizon 100 s,
# timer_slack 0) for
# every run, flows from connected UDP sockets with SO_TXTIME.

WH_DST=198.18.7.2
# The flows' source addresses: 50000 flows each (wheelcost -b).
WH_SRC=198.18.7.11

# wh_setup: netns snd with dummy device wh0 (whc puts fq on it).
wh_setup() {
	local a
	ip netns add snd
	sn ip link add wh0 type dummy
	sn ip addr add 198.18.7.1/24 dev wh0
	for a in 11 12 13; do sn ip addr add "198.18.7.$a/24" dev wh0; done
	# 30k flows need more ephemeral ports than the default 28k.
	sn sysctl -qw net.ipv4.ip_local_port_range="1024 65000"
	sn ip link set lo up
	sn ip link set wh0 up
}

# wh_fresh: a new fq on wh0. Each run gets its own: the packets of an
# earlier run (their sockets closed, their flows still throttled) would
# change what the next one measures. Its limit holds 100k far flows and
# the measured packets beside them (at the default 10000, 10k far flows
# fill it and every later packet is a drop).
wh_fresh() {
	sn tc qdisc del dev wh0 root 2>/dev/null || true
	sn tc qdisc add dev wh0 root fq limit 1000000 horizon 100s timer_slack 0
}

# whc MODE ARGS...: one wheelcost run in snd through a fresh fq; its
# output is logged. Nothing waits on the disk inside a run: on the exact
# clock such a wait lets guest time jump by what the host's load decides,
# and the largest lateness of a run caught it (30k far flows: 125k-487k
# ns over four boots of either kernel, 6.1 included, where another run
# read 54k). The program and its libraries are read first, and what is
# dirty is written back, so that the flusher has nothing to write inside
# the window.
whc() {
	local out
	wh_fresh
	cache_cmds "$BIN/wheelcost" ip
	sync
	out=$(sn "$BIN/wheelcost" -d "$WH_DST" -b "$WH_SRC" "$@") || fail "wheelcost $* failed: $out"
	say "$out" >&2
	printf '%s\n' "$out"
}

# least N...: the smallest of the numbers.
least() { printf '%s\n' "$@" | sort -n | head -n 1; }

# kv_of OUTPUT WORD KEY: KEY's value in OUTPUT's line that starts with WORD
# (wheelcost's "WORD key=value ..." lines); fails the case if none.
kv_of() {
	local v
	v=$(awk -v w="$2" -v k="$3" '$1 == w { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) { print substr($i, length(k) + 2); exit } }' <<<"$1")
	[ -n "$v" ] || fail "no $3 in wheelcost's $2 line: $1"
	printf '%s\n' "$v"
}

