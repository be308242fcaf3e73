# shellcheck shell=bash
# Helpers for the in-guest test cases (sourced by run.sh and by each case).
# Cases run as functions t_* under `set -e`; exit 0 = pass, 4 = skip.
# Test hosts are network namespaces addressed from 198.18.0.0/15 (RFC 2544)
# and 2001:db8::/32; nothing else is ever a destination.

T=${T:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
R=${R:-/tmp/fqp-results}
BIN=$T/bin
PATH=$BIN:$PATH
export SPLAT_RE
SPLAT_RE=$(grep -v '^#' "$T/splat-patterns")

SND_IP=198.18.0.1
RCV_IP=198.18.0.2
SND_IP6=2001:db8::1
RCV_IP6=2001:db8::2

say() { printf '%s\n' "$*"; }
fail() { printf 'FAIL: %s\n' "$*"; exit 1; }
skip() { printf '%s\n' "$*"; exit 4; }

# check "what" cmd...: fail with "what" unless cmd succeeds.
check() {
	local what=$1
	shift
	"$@" || fail "$what"
}

sn() { ip netns exec snd "$@"; }
rn() { ip netns exec rcv "$@"; }

# topo [rate]: two namespaces joined by veth0 (snd) <-> veth1 (rcv).
# Both ends have GSO/TSO on so that captures see the sender's GSO sizes.
topo() {
	ip netns add snd
	ip netns add rcv
	ip link add veth0 netns snd type veth peer name veth1 netns rcv
	sn ip addr add "$SND_IP/24" dev veth0
	rn ip addr add "$RCV_IP/24" dev veth1
	sn ip -6 addr add "$SND_IP6/64" dev veth0 nodad
	rn ip -6 addr add "$RCV_IP6/64" dev veth1 nodad
	sn ip link set lo up
	rn ip link set lo up
	sn ip link set veth0 up
	rn ip link set veth1 up
	sn ethtool -K veth0 tso on gso on >/dev/null 2>&1 || true
	rn ethtool -K veth1 gro on >/dev/null 2>&1 || true
}

# delay MS: netem delay on the receiver's egress (the ACK path), so the
# sender's root qdisc stays free for the qdisc under test.
rcv_delay() { rn tc qdisc replace dev veth1 root netem delay "$1"; }

# Kill everything a case may have left behind and drop its namespaces.
# Called by run.sh between cases: any user process other than init and the
# runner itself is a leftover (backgrounded tools, `sn cmd &` subshells).
cleanup_all() {
	local p comm
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		[ "$p" != 1 ] && [ "$p" != "$$" ] || continue
		# Kernel threads have no command line.
		[ -n "$({ tr -d '\0' <"/proc/$p/cmdline"; } 2>/dev/null)" ] || continue
		comm=$(cat "/proc/$p/comm" 2>/dev/null) || continue
		echo "cleanup: killing leftover $p ($comm)"
		kill -9 "$p" 2>/dev/null || true
	done
	sleep 0.2
	ip -all netns delete 2>/dev/null || true
	for d in $(ip -o link show type dummy 2>/dev/null | awk -F': ' '{print $2}'); do
		ip link del "${d%@*}" 2>/dev/null || true
	done
	true
}

# qstat NS DEV KEY: one field of the root qdisc's `tc -s -j qdisc show`
# (top level, or inside the qdisc's options/xstats for fq).
qstat() {
	ip netns exec "$1" tc -s -j qdisc show dev "$2" | python3 -c '
import json, sys
key = sys.argv[1]
for q in json.load(sys.stdin):
    if q.get("root") or q.get("parent") == "root" or "root" in str(q.get("parent", "")):
        for d in (q, q.get("options", {}), q.get("xstats", {})):
            if key in d:
                print(d[key]); sys.exit(0)
sys.exit("no field %s" % key)' "$3"
}

# sysctl helpers inside a namespace, never touching the host.
nsysctl() { ip netns exec "$1" sysctl -n "$2"; }

# approx A B PCT: |A-B| <= PCT% of B
approx() { python3 -c 'import sys; a,b,p=map(float,sys.argv[1:]); sys.exit(0 if abs(a-b) <= p/100*abs(b) else 1)' "$@"; }
# fcmp "A OP B": float comparison
fcmp() { python3 -c "import sys; sys.exit(0 if ($1) else 1)"; }

# procwrite NS FILE VALUE: write VALUE to a /proc file inside NS and print
# "OK" or the errno name (EINVAL, ...), as a program would see it.
procwrite() {
	ip netns exec "$1" python3 -c '
import errno, os, sys
try:
    fd = os.open(sys.argv[1], os.O_WRONLY)
    os.write(fd, sys.argv[2].encode())
    os.close(fd)
    print("OK")
except OSError as e:
    print(errno.errorcode.get(e.errno, str(e.errno)))' "$2" "$3"
}

# kv FILE KEY: the value of KEY=value in FILE (first match); fails the
# case if KEY is missing (pcapstat and the helpers print key=value lines).
kv() {
	local v
	v=$(sed -n "s/^$2=//p" "$1" | head -n 1)
	[ -n "$v" ] || fail "no $2 in $1"
	printf '%s
' "$v"
}
