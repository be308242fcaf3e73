# shellcheck shell=bash
# Helpers shared by the sch_fq cases (50-80). Sourced after lib.sh.

# Which kernel runs: run.sh exports FQP_KERNEL from run.conf; a case run by
# hand falls back to the run disk's run.conf.
if [ -z "${FQP_KERNEL:-}" ] || [ "$FQP_KERNEL" = unknown ]; then
	# shellcheck source=/dev/null
	[ ! -f "$T/../run.conf" ] || . "$T/../run.conf"
fi
FQP_KERNEL=${FQP_KERNEL:-unknown}
# The upstream tree the kernel was built from (boot-and-test.sh --base):
# FQP_KERNEL=stock is stock 6.1, 7.2 or 7.3, and 6.1's fq differs.
FQP_BASE=${FQP_BASE:-6.1}

# kernel_is KIND...: the booted kernel is one of the KINDs: stock61 (stock
# 6.1), series (6.1 with the series), stock72 (stock 7.2 and stock 7.3),
# next72 (7.2 or 7.3 with the upstream patches, patches/net/,
# patches/net-next/ and patches/net-next-rfc/). Each case asserts the
# semantics of the kernel it
# booted. 7.3-rc7's sch_fq.c, sock.c, tcp.c and tcp_input.c are 7.2's,
# byte for byte (tcp_output.c differs only in the initial receive
# window): one name covers both, and stock73/next73 name 7.3 alone.
kernel_is() {
	local k=unknown
	case $FQP_BASE:$FQP_KERNEL in
	6.1:stock) k=stock61 ;;
	6.1:patched) k=series ;;
	7.2:stock) k=stock72 ;;
	7.2:patched) k=next72 ;;
	7.3:stock) k='stock72 stock73' ;;
	7.3:patched) k='next72 next73' ;;
	esac
	local one
	for one in $k; do
		[[ " $* " != *" $one "* ]] || return 0
	done
	return 1
}

# Wire bytes per TCP segment over veth with MTU 1500 and timestamps on:
# 14 Ethernet + 20 IPv4 + 32 TCP headers around a 1448-byte MSS. sch_fq
# charges qdisc_pkt_len(), which is these 1514 bytes per segment.
# shellcheck disable=SC2034 # used by the cases
MSS=1448 WIRE=1514

# qv JSON KIND[/HANDLE] KEY: one statistic or option of a qdisc in JSON
# from `tc -s -j qdisc show` (take one snapshot, read several values from
# it: under TCG a tc run can take most of a second while queues drain). 0
# when tc left the key out: bookworm tc prints latency, flows_plimit,
# ce_mark... only when non-zero. "throttled" appears twice in fq's JSON: the
# first (asked for as throttled_flows) counts throttled flows, the second is
# the throttle event counter. Pure bash: no process per value.
qv() {
	local kind=${2%%/*} h='' obj re
	[[ $2 != */* ]] || h="\"handle\":\"${2#*/}\""
	while IFS= read -r obj; do
		[[ $obj == *"\"kind\":\"$kind\""* && $obj == *"$h"* ]] || continue
		if [ "$3" = throttled_flows ]; then
			re='"throttled":([^,}]*)'
		else
			re=".*\"$3\":([^,}]*)"
		fi
		if [[ $obj =~ $re ]]; then echo "${BASH_REMATCH[1]}"; else echo 0; fi
		return 0
	done <<<"${1//\},\{\"kind\"/$'\n'\{\"kind\"}"
	echo "FAIL: no $2 qdisc in: $1" >&2
	exit 1
}

# qx NS DEV KIND[/HANDLE] KEY: qv on a fresh snapshot.
qx() { qv "$(ip netns exec "$1" tc -s -j qdisc show dev "$2")" "$3" "$4"; }

# snap NS DEV: a snapshot for qv
snap() { ip netns exec "$1" tc -s -j qdisc show dev "$2"; }

# fqx NS DEV KEY [HANDLE]: qx for the (first, or HANDLE's) fq qdisc.
fqx() { qx "$1" "$2" "fq${4:+/$4}" "$3"; }

# fqnl NS DEV OP NAME[:u8|u16|u32|hex]=VALUE... [-- OP NAME=VALUE...]...: send
# RTM_NEWQDISC requests (OP add|change|replace) for a root fq with exactly
# these TCA_FQ_* attributes: tc can not send rate_enable 2, buckets_log 0 or
# short attributes. ":hex" takes the payload as hex bytes (priomap, weights).
# The dump is trixie's tc's where the image has it (tc-trixie), so that a
# change of priomap or weights counts too. One line per request: OK or the errno name and the
# kernel's extack message, then "unchanged" or "CHANGED" according to the
# `tc -j qdisc show` dump before and after it.
fqnl() {
	ip netns exec "$1" python3 -c '
import errno, shutil, socket, struct, subprocess, sys
ATTR = {"limit": 1, "flow_limit": 2, "quantum": 3, "initial_quantum": 4,
        "rate_enable": 5, "defrate": 6, "maxrate": 7, "buckets_log": 8,
        "refill_delay": 9, "orphan_mask": 10, "low_rate_threshold": 11,
        "ce_threshold": 12, "timer_slack": 13, "horizon": 14, "horizon_drop": 15,
        "priomap": 16, "weights": 17}
FMT = {"u8": "<B", "u16": "<H", "u32": "<I"}
FLAGS = {"add": 0x600, "change": 0, "replace": 0x500}  # CREATE|EXCL, -, CREATE|REPLACE
def attr(t, data):
    return struct.pack("<HH", 4 + len(data), t) + data + b"\0" * (-len(data) % 4)
# tc-trixie, where the image has it, also dumps priomap and weights.
TC = shutil.which("tc-trixie") or "tc"
def dump():
    return subprocess.run([TC, "-j", "qdisc", "show", "dev", dev], capture_output=True).stdout
dev, reqs = sys.argv[1], [[]]
for a in sys.argv[2:]:
    if a == "--": reqs.append([])
    else: reqs[-1].append(a)
s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)
s.setsockopt(270, 11, 1)  # SOL_NETLINK, NETLINK_EXT_ACK
for seq, (op, *args) in enumerate(reqs, 1):
    opts = b""
    for a in args:
        name, val = a.split("=")
        name, _, size = name.partition(":")
        size = size or ("u8" if name == "horizon_drop" else "u32")
        if size == "hex":
            opts += attr(ATTR[name], bytes.fromhex(val))
        else:
            opts += attr(ATTR[name], struct.pack(FMT[size], int(val, 0)))
    tcm = struct.pack("<BxxxiIII", 0, socket.if_nametoindex(dev), 0, 0xFFFFFFFF, 0)
    body = tcm + attr(1, b"fq\0") + attr(2, opts)
    msg = struct.pack("<IHHII", 16 + len(body), 36, 0x5 | FLAGS[op], seq, 0) + body
    before = dump()
    s.send(msg)
    r = s.recv(65536)
    ln, typ, flags = struct.unpack_from("<IHH", r)
    err = -struct.unpack_from("<i", r, 16)[0] if typ == 2 else 0
    text = ""
    if flags & 0x200:  # NLM_F_ACK_TLVS: TLVs after the (capped) request
        off = 20 + (16 if flags & 0x100 else len(msg))
        while off + 4 <= ln:
            alen, atyp = struct.unpack_from("<HH", r, off)
            if atyp == 1 and alen > 4:
                text = " (" + r[off + 4:off + alen].rstrip(b"\0").decode() + ")"
            if alen < 4: break
            off += (alen + 3) & ~3
    res = errno.errorcode.get(err, str(err)) if err else "OK"
    print("%s %s: %s%s %s" % (op, " ".join(args), res, text, "unchanged" if dump() == before else "CHANGED"))
' "$2" "${@:3}"
}

# wait_listen NS PROTO PORT: until something listens there (max 5 s).
wait_listen() {
	for _ in $(seq 50); do
		ip netns exec "$1" ss -Hln"${2:0:1}" "sport = :$3" | grep -q . && return 0
		sleep 0.1
	done
	fail "nothing listens on $2 port $3 in $1"
}

# iperf_srv PORT JSONFILE: a one-shot iperf3 server in rcv writing JSON.
iperf_srv() {
	rn iperf3 -s -1 -p "$1" -J >"$2" 2>&1 &
	wait_listen rcv tcp "$1"
}

# srv_rate JSONFILE SKIP: receiver goodput in bit/s from an iperf3 server's
# JSON, over the intervals after the first SKIP (slow start, initial burst).
srv_rate() {
	python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
iv = j["intervals"][int(sys.argv[2]):]
iv = [i["sum"] for i in iv if i["sum"]["seconds"] > 0.5]
print(sum(i["bytes"] for i in iv) * 8 / sum(i["seconds"] for i in iv))' "$1" "$2"
}

# no_private_addr FILE: fail if FILE (a tree's test, its addresses
# rewritten) still names a private address: this project's traffic uses
# only 198.18.0.0/15 and 2001:db8::/32. The rewrite must follow the tree.
no_private_addr() {
	if grep -nE '\b(10\.[0-9]+\.[0-9]+\.[0-9]+|172\.(1[6-9]|2[0-9]|3[01])\.[0-9.]+|192\.168\.[0-9.]+)\b|\bfd[0-9a-f]*::' "$1" >&2; then
		fail "${1##*/} still names a private address after the rewrite (above): update the rewrite in ${BASH_SOURCE[1]##*/}"
	fi
}

# kernel_note WHAT: record in the log a place where this kernel differs from
# the documented contract of the series.
kernel_note() { say "NOTE ($FQP_KERNEL kernel): $*"; }

# quiet_link: permanent neighbour entries both ways and IPv6 off on the
# veth pair, so that nothing but the case's own traffic passes the qdisc
# under test (no ARP resolution or reachability probe, no router
# solicitation or MLD report), and its counters and flows add up exactly.
quiet_link() {
	sn sysctl -qw net.ipv6.conf.veth0.disable_ipv6=1
	rn sysctl -qw net.ipv6.conf.veth1.disable_ipv6=1
	sn ip neigh replace "$RCV_IP" lladdr "$(rn cat /sys/class/net/veth1/address)" dev veth0 nud permanent
	rn ip neigh replace "$SND_IP" lladdr "$(sn cat /sys/class/net/veth0/address)" dev veth1 nud permanent
}

# acmp "AWK-EXPR": float comparison in awk (lib.sh's fcmp starts a python,
# which costs ~1-2 s under TCG).
acmp() { awk "BEGIN { exit !($1) }"; }

# fqs NS DEV [HANDLE]: the fq's queue counters and every field of its
# xstats, as key=value lines (tests/src/fqstats: bookworm's tc prints only
# the 6.1 prefix of struct tc_fq_qd_stats; xstats_len tells its size).
fqs() { ip netns exec "$1" "$BIN/fqstats" "$2" ${3:+"$3"}; }

# fqsv STATS KEY: KEY's value in an fqs snapshot; fails the case when the
# snapshot has no such key. Pure bash.
fqsv() {
	local re="(^|"$'\n'")$2=([^"$'\n'"]*)"
	[[ $1 =~ $re ]] || { echo "FAIL: no $2 in the fqstats output" >&2; exit 1; }
	echo "${BASH_REMATCH[2]}"
}

# fqsd BEFORE AFTER KEY: how much KEY grew between two fqs snapshots.
fqsd() { echo $(($(fqsv "$2" "$3") - $(fqsv "$1" "$3"))); }

# unpriv NS CMD...: CMD inside netns NS as uid/gid 65534 (nobody) with no
# supplementary groups, and in a user namespace of its own when the kernel
# allows unprivileged ones: no capability over NS (owned by the initial
# user namespace). The netns is joined first, then privileges dropped.
# CMD must be readable by nobody: see unpriv_bin.
unpriv() {
	local ns=$1 drop=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
	shift
	if ip netns exec "$ns" "${drop[@]}" unshare -U -r true 2>/dev/null; then
		echo "unpriv: uid 65534 in a user namespace of its own, in netns $ns" >&2
		ip netns exec "$ns" "${drop[@]}" unshare -U -r -- "$@"
	else
		echo "unpriv: uid 65534 in netns $ns (this kernel has no unprivileged user namespaces)" >&2
		ip netns exec "$ns" "${drop[@]}" "$@"
	fi
}

# unpriv_bin NAME: a copy of helper NAME that nobody may run (the run
# disk's directories need not be world-searchable); prints its path.
unpriv_bin() {
	install -m 0755 "$BIN/$1" "/tmp/fqp-unpriv-$1"
	echo "/tmp/fqp-unpriv-$1"
}

# fq_fill_wait NS DEV HANDLE MIN: poll (every 0.1 s, for up to 6 s of
# clock time, scaled like the case timeouts) until the fq HANDLE on DEV
# holds at least MIN packets; 1 if it never does. By the clock, not by a
# count of polls: one tc dump took 3 s on a debug kernel on a busy host.
fq_fill_wait() {
	local end=$(($(date +%s) + 6 * ${FQP_TIMEOUT_SCALE:-1}))
	while [ "$(date +%s)" -le "$end" ]; do
		[ "$(fqx "$1" "$2" qlen "$3")" -lt "$4" ] || return 0
		sleep 0.1
	done
	return 1
}

# fq_empty_wait NS DEV SECS: poll until the (first) fq on DEV is empty, for
# up to SECS of clock time (scaled like the case timeouts); 1 if it never is.
fq_empty_wait() {
	local end=$(($(date +%s) + $3 * ${FQP_TIMEOUT_SCALE:-1}))
	while [ "$(date +%s)" -le "$end" ]; do
		[ "$(fqx "$1" "$2" qlen)" != 0 ] || return 0
		sleep 0.2
	done
	return 1
}

# levels SNAPSHOT PARENT LEAF: "PARENT qlen/backlog, LEAF qlen/backlog" of
# one tc snapshot; PARENT and LEAF are qv's KIND[/HANDLE].
levels() {
	echo "${2%/*} qlen $(qv "$1" "$2" qlen) backlog $(qv "$1" "$2" backlog)," \
		"${3%/*} qlen $(qv "$1" "$3" qlen) backlog $(qv "$1" "$3" backlog)"
}

# levels_empty SNAPSHOT PARENT LEAF WHEN: fail unless qlen and backlog are 0
# at both levels.
levels_empty() {
	local k v
	for k in "$2" "$3"; do
		for v in qlen backlog; do
			[ "$(qv "$1" "$k" "$v")" = 0 ] ||
				fail "$4: ${k%/*} $v $(qv "$1" "$k" "$v") ($(levels "$1" "$2" "$3"))"
		done
	done
}

# The multi-queue deployment (92-fq-mq, 93-fq-bpf-edt): MQ_QUEUES TX queues.
MQ_QUEUES=4

# mq_topo FQ-ARGS...: topo with MQ_QUEUES queues each way, a quiet link,
# mq (handle 1:) at veth0's root and "fq FQ-ARGS" with handle 1N: on
# queue N.
mq_topo() {
	local i
	topo "$MQ_QUEUES"
	quiet_link
	sn tc qdisc add dev veth0 root handle 1: mq
	for i in $(seq "$MQ_QUEUES"); do
		sn tc qdisc replace dev veth0 parent "1:$i" handle "1$i:" fq "$@"
	done
}

# tsnap: a snapshot of veth0's qdiscs (for qv) in SNAP, in SNAP_T the
# guest time (ns) halfway through taking it: under TCG one tc run takes a
# good part of a second, which a window of "sleep 3" would not count; and
# in SNAP_U half the time it took (ns): a qdisc's counters were read
# somewhere within SNAP_T +- SNAP_U, the first leaves of a dump early, the
# last ones late.
tsnap() {
	local t0 t1
	t0=$(date +%s%N)
	# shellcheck disable=SC2034 # read by the cases
	SNAP=$(snap snd veth0)
	t1=$(date +%s%N)
	# shellcheck disable=SC2034
	SNAP_T=$(((t0 + t1) / 2)) SNAP_U=$(((t1 - t0) / 2))
}

# mq_sum SNAPSHOT KEY [HANDLES]: KEY summed over the fq leaves (default
# handles 11: .. 1N:).
mq_sum() {
	local h sum=0
	for h in ${3:-$(seq -f '1%g:' "$MQ_QUEUES")}; do
		sum=$((sum + $(qv "$1" "fq/$h" "$2")))
	done
	echo "$sum"
}

# mq_drain: until every leaf of veth0's mq is empty (10 s, scaled).
mq_drain() {
	for _ in $(seq $((40 * ${FQP_TIMEOUT_SCALE:-1}))); do
		[ "$(qx snd veth0 mq qlen)" = 0 ] && return 0
		sleep 0.25
	done
	fail "the leaves still hold $(qx snd veth0 mq qlen) packets after 10 s"
}
