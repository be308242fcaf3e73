# shellcheck shell=bash
# Helpers shared by the robustness cases (85-87). Sourced by the case files
# after lib.sh (run.sh sources lib.sh first).

# The kernel the run is for, as nlfuzz wants it (stock 7.2 or 7.3 is
# stock72, their sch_fq.c being the same; 7.x with the upstream patches
# next72); unknown counts as stock (the stricter "patched" table would
# fail stock for the wrong reason).
rb_kernel() {
	case ${FQP_BASE:-6.1}:${FQP_KERNEL:-} in
	7.2:stock | 7.3:stock) echo stock72 ;;
	7.2:patched | 7.3:patched) echo next72 ;;
	*:patched) echo patched ;;
	*) echo stock ;;
	esac
}

# rb_bin NAME: absolute path of a helper, so that run.sh's cleanup
# (pkill -f "$BIN/") finds it if the case dies early.
rb_bin() { printf '%s/%s\n' "$BIN" "$1"; }

# rb_neigh: permanent neighbour entries both ways, so that no ARP packet
# goes through the qdisc under test (its counters must add up exactly) and
# no datagram waits in an unresolved neighbour queue.
rb_neigh() {
	local m0 m1
	m0=$(sn cat /sys/class/net/veth0/address)
	m1=$(rn cat /sys/class/net/veth1/address)
	sn ip neigh replace "$RCV_IP" lladdr "$m1" dev veth0 nud permanent
	rn ip neigh replace "$SND_IP" lladdr "$m0" dev veth1 nud permanent
}

# rb_quiet_v6 NS DEV: no IPv6 on DEV (router solicitations and MLD reports
# would otherwise show up in the qdisc counters).
rb_quiet_v6() {
	ip netns exec "$1" sysctl -qw "net.ipv6.conf.$2.disable_ipv6=1"
}

# rb_qstats NS DEV [PARENT]: "kind sent_pkts drops qlen backlog requeues" of
# the root qdisc (or the one whose parent is PARENT, e.g. 1:1).
rb_qstats() {
	ip netns exec "$1" tc -s -j qdisc show dev "$2" | python3 -c '
import json, sys
want = sys.argv[1]
for q in json.load(sys.stdin):
    par = q.get("parent", "")
    if (want == "root" and q.get("root")) or par == want:
        print(q["kind"], q.get("packets", 0), q.get("drops", 0), q.get("qlen", 0),
              q.get("backlog", 0), q.get("requeues", 0))
        sys.exit(0)
sys.exit("no qdisc at " + want)' "${3:-root}"
}

# rb_slab NAME: "OBJECTS SOURCE" for a slab cache. SOURCE is "slabinfo" when
# the cache has its own line in /proc/slabinfo (exact), "merged" when SLUB
# merged it into another cache (the count is shared with other users, so
# only a coarse check is possible), empty output when the kernel keeps no
# per-cache counts (SLOB, or SLUB without CONFIG_SLUB_DEBUG).
rb_slab() {
	local n
	# SLUB counts objects sitting free in per-CPU slabs as active: flush
	# them and drop empty slabs first, so the count is the live objects.
	[ ! -w "/sys/kernel/slab/$1/shrink" ] || echo 1 >"/sys/kernel/slab/$1/shrink" 2>/dev/null || true
	if [ -r /proc/slabinfo ]; then
		n=$(awk -v n="$1" '$1 == n {print $2; exit}' /proc/slabinfo)
		[ -z "$n" ] || { echo "$n slabinfo"; return 0; }
	fi
	if [ -r "/sys/kernel/slab/$1/objects" ]; then
		echo "$(cut -d' ' -f1 "/sys/kernel/slab/$1/objects") merged"
	fi
}

# rb_meminfo KEY: a /proc/meminfo value in kB.
rb_meminfo() { awk -v k="$1:" '$1 == k {print $2}' /proc/meminfo; }

# rb_procwrite NS FILE VALUE: like lib.sh's procwrite, but a partial write
# (the kernel consumed fewer bytes than given) prints SHORT:<n> instead of OK.
rb_procwrite() {
	ip netns exec "$1" python3 -c '
import errno, os, sys
data = sys.argv[2].encode()
try:
    fd = os.open(sys.argv[1], os.O_WRONLY)
    n = os.write(fd, data)
    os.close(fd)
    print("OK" if n == len(data) else "SHORT:%d" % n)
except OSError as e:
    print(errno.errorcode.get(e.errno, str(e.errno)))' "$2" "$3"
}

# rb_wait PID SECS: wait for a background job up to SECS (test-kernel
# seconds: a debug kernel gets FQP_TIMEOUT_SCALE times as long, as the case
# timeouts do); 124 on timeout (the job is then killed), else its exit status.
rb_wait() {
	local pid=$1 secs=$(($2 * ${FQP_TIMEOUT_SCALE:-1})) i=0
	while kill -0 "$pid" 2>/dev/null; do
		if [ "$i" -ge $((secs * 5)) ]; then
			kill "$pid" 2>/dev/null || true
			sleep 1
			kill -KILL "$pid" 2>/dev/null || true
			wait "$pid" 2>/dev/null || true
			return 124
		fi
		sleep 0.2
		i=$((i + 1))
	done
	local rc=0
	wait "$pid" || rc=$?
	return "$rc"
}
