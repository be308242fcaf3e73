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

# cache_cmds CMD...: read each command's program and the shared objects it
# loads into the page cache. Under the exact clock (QEMU icount, sleep=off)
# a guest waiting on its disk is idle, and idle guest time jumps to the
# next timer deadline again and again until the host completes the read:
# a cold program started inside a timed window costs guest time that
# depends on the host's load (CI, 2026-12-05: test_tc_edt's dd started
# cold and the flow came up 2.35 % short of its rate, 1 % allowed).
cache_cmds() {
	local c p libs
	for c in "$@"; do
		p=$(command -v "$c") || fail "cache_cmds: no $c in the guest's PATH"
		mapfile -t libs < <(ldd "$p" 2>/dev/null |
			awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }')
		cat "$p" ${libs[@]+"${libs[@]}"} >/dev/null ||
			fail "cache_cmds: reading $p or its libraries failed"
	done
}

# case_list FILE...: "FILE FUNCTION TIMEOUT" for each case function of each
# case file, files in the order given, functions in C order (declare -F's).
case_list() {
	awk 'FNR == 1 { files[++nf] = FILENAME; to[FILENAME] = 300 }
	/^CASE_TIMEOUT=[0-9]+$/ { to[FILENAME] = substr($0, 14) + 0 }
	/^t_[A-Za-z0-9_]+\(\)/ { fn = $0; sub(/\(.*/, "", fn); fns[FILENAME] = fns[FILENAME] " " fn }
	END {
		for (i = 1; i <= nf; i++) {
			n = split(fns[files[i]], a, " ")
			for (j = 1; j <= n; j++) print i, files[i], a[j], to[files[i]]
		}
	}' "$@" | LC_ALL=C sort -k1,1n -k3,3 | cut -d' ' -f2-
}

sn() { ip netns exec snd "$@"; }
# stimeout SECS CMD...: timeout(1) with SECS scaled like the case limits
# (FQP_TIMEOUT_SCALE, run.sh): a debug guest sharing a 2-core host with
# another took over 10 s for one rejected tc change.
stimeout() { local s=$1; shift; timeout "$((s * ${FQP_TIMEOUT_SCALE:-1}))" "$@"; }
rn() { ip netns exec rcv "$@"; }

# topo [QUEUES]: two namespaces joined by veth0 (snd) <-> veth1 (rcv),
# with QUEUES TX and RX queues each (default 1). Both ends have GSO/TSO on
# so that captures see the sender's GSO sizes.
topo() {
	local q=()
	[ -z "${1:-}" ] || q=(numtxqueues "$1" numrxqueues "$1")
	ip netns add snd
	ip netns add rcv
	ip link add veth0 netns snd "${q[@]}" type veth peer name veth1 netns rcv "${q[@]}"
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

# Kill every process a case may have left behind: any user process other
# than init, the caller and the caller's ancestors is a leftover
# (backgrounded tools, `sn cmd &` subshells). Called by run.sh after every
# case; a case calling it must not kill its own runner (timeout, run.sh).
cleanup_procs() {
	local p cmd comm ppid keep=" 1 "
	# Builtins only: a fork per process costs ~0.1 s in a KASAN guest
	# under TCG, and there are a hundred kernel threads to skip.
	p=$$
	while [ "$p" -gt 1 ] 2>/dev/null && [[ $keep != *" $p "* ]]; do
		keep+="$p "
		# /proc/PID/stat: "pid (comm) state ppid ..."; our comms have no blank.
		read -r _ _ _ ppid _ 2>/dev/null <"/proc/$p/stat" || break
		p=$ppid
	done
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		[[ $keep != *" $p "* ]] || continue
		# Kernel threads have no command line.
		cmd=''
		{ IFS= read -r -d '' cmd <"/proc/$p/cmdline"; } 2>/dev/null || true
		[ -n "$cmd" ] || continue
		comm=''
		{ read -r comm <"/proc/$p/comm"; } 2>/dev/null || continue
		echo "cleanup: killing leftover $p ($comm)"
		kill -9 "$p" 2>/dev/null || true
	done
	sleep 0.2
}

# Kill the leftovers and drop the case's namespaces and dummy devices.
cleanup_all() {
	cleanup_procs
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

# kw FILE KEY: like kv, for KEY=value words on a line (rrlat, pacedflows
# print one line of space-separated key=value pairs).
kw() {
	local v
	v=$(grep -o "\(^\|[[:space:]]\)$2=[^[:space:]]*" "$1" | head -n 1 | sed "s/^[[:space:]]*$2=//")
	[ -n "$v" ] || fail "no $2 in $1"
	printf '%s\n' "$v"
}

# fq_stats DEV: the root fq's counters as key=value lines, from tc's text
# output (its JSON has two "throttled" keys): sent dropped backlog qlen flows
# inactive throttled_flows gc highprio throttled latency_ns flows_plimit.
fq_stats() {
	tc -s qdisc show dev "$1" | fq_stats_awk
}
# fq_stats_awk [-v roots=1]: fq_stats's parser of tc -s qdisc show. With
# roots=1, the root fq qdiscs of every device, one line each: "DEV k=v ...".
fq_stats_awk() {
	awk "$@" '
	function ns(v) {
		if (v ~ /ns$/) return v + 0
		if (v ~ /us$/) return v * 1e3
		if (v ~ /ms$/) return v * 1e6
		if (v ~ /s$/) return v * 1e9
		return v + 0
	}
	function out(s) {
		if (!roots) print s
		else if (dev != "") line[dev] = line[dev] " " s
	}
	roots && $1 == "qdisc" {
		seen = 0
		dev = ($2 == "fq" && $6 == "root") ? $5 : ""
		if (dev != "") devs[++nd] = dev
	}
	$1 == "Sent" { out("sent=" $4); d = $7; sub(/,/, "", d); out("dropped=" d); next }
	$1 == "backlog" { b = $2; sub(/b$/, "", b); q = $3; sub(/p$/, "", q); out("backlog=" b); out("qlen=" q); next }
	{
		for (i = 1; i < NF; i++) {
			k = $i; v = $(i + 1)
			if (k == "flows" && !seen++) out("flows=" v + 0)
			else if (k == "(inactive") out("inactive=" v + 0)
			else if (k == "throttled" && v ~ /\)$/) out("throttled_flows=" v + 0)
			else if (k == "throttled") out("throttled=" v + 0)
			else if (k == "gc" || k == "highprio" || k == "flows_plimit") out(k "=" v + 0)
			else if (k == "latency") out(sprintf("latency_ns=%.0f", ns(v)))
		}
	}
	END { for (i = 1; i <= nd; i++) print devs[i] line[devs[i]] }'
}

# fq_stats_in NS DEV: fq_stats inside namespace NS ("" = the initial one).
fq_stats_in() {
	if [ -z "$1" ]; then
		fq_stats "$2"
	else
		ip netns exec "$1" bash -c "$(declare -f fq_stats fq_stats_awk); fq_stats $2"
	fi
}

# fq_drain_check: run by run.sh after every case, once the case's
# processes are gone and before its namespaces are. Every root fq left in
# any namespace must be self-consistent: no more inactive or throttled
# flows than flows, qlen 0 exactly when backlog is 0; it must drain (qlen
# and backlog to 0) within 5 s, and if it still holds paced packets then,
# a reset (link down) must empty it: qlen, backlog and flows all 0.
fq_drain_check() {
	local ns s prev dev rest bad=0 busy end
	local -a nsx
	for ns in "" $(ip netns list 2>/dev/null | awk '{print $1}'); do
		nsx=()
		# nsenter joins only the network namespace: ip netns exec also
		# makes a mount namespace and remounts /sys, 1-2 s a call on the
		# debug kernel. One read covers every root fq of the namespace.
		[ -z "$ns" ] || nsx=(nsenter --net="/run/netns/$ns")
		# tc reads the counters without the qdisc lock: judge only a
		# snapshot that two reads in a row agree on (traffic over). The
		# wait is 5 s of time, not a number of reads: a read took 2.4 s
		# on the debug kernel, and ten of them 26 s a case.
		prev='' busy=1 end=$((EPOCHSECONDS + 5))
		while :; do
			s=$("${nsx[@]}" tc -s qdisc show 2>/dev/null | fq_stats_awk -v roots=1)
			[ -n "$s" ] || break
			busy=0
			while read -r dev rest; do
				[[ " $rest " == *" qlen=0 "* ]] || busy=1
			done <<<"$s"
			[ "$s" != "$prev" ] || [ "$busy" = 1 ] || break
			[ -z "$prev" ] || [ "$EPOCHSECONDS" -lt "$end" ] || break
			prev=$s
			sleep 0.5
		done
		[ -n "$s" ] || continue
		while read -r dev rest; do
			if [ "$s" = "$prev" ] && [[ " $rest " == *" qlen=0 "* ]]; then
				if fq_consistent "${rest// /$'\n'}"; then
					echo "fq-check: ${ns:-init}/$dev drained and consistent: $rest"
				else
					echo "counters: ${ns:-init}/$dev inconsistent: $rest"
					bad=1
				fi
				continue
			fi
			echo "counters: ${ns:-init}/$dev still holds $(sed -n 's/.* qlen=\([0-9]*\).*/\1/p' <<<" $rest ") packets after 5 s (paced); resetting it"
			"${nsx[@]}" ip link set dev "$dev" down
			rest=$("${nsx[@]}" tc -s qdisc show dev "$dev" | fq_stats_awk)
			if ! fq_consistent "$rest" || ! grep -qx 'qlen=0' <<<"$rest" ||
				! grep -qx 'backlog=0' <<<"$rest" || ! grep -qx 'flows=0' <<<"$rest"; then
				echo "counters: ${ns:-init}/$dev not empty after reset: $(tr '\n' ' ' <<<"$rest")"
				bad=1
			fi
		done <<<"$s"
	done
	return "$bad"
}

# fq_consistent STATS: the invariants of one fq_stats snapshot.
fq_consistent() {
	awk -F= '{ v[$1] = $2 } END {
		ok = v["inactive"] <= v["flows"] && v["throttled_flows"] <= v["flows"] &&
		     ((v["qlen"] == 0) == (v["backlog"] == 0))
		exit !ok }' <<<"$1"
}
