# shellcheck shell=bash
# Garbage into the TCP pacing sysctls the series touches, inside a netns,
# through /proc (what any program sees): each write is either rejected with
# EINVAL and the value unchanged, or accepted exactly as 6.1's handlers parse
# it (net/ipv4/sysctl_net_ipv4.c, kernel/sysctl.c):
#   tcp_min_tso_segs     proc_dou8vec_minmax  1..255   (default 2)
#   tcp_tso_rtt_log      proc_dou8vec_minmax  0..255   (default 9, if present)
#   tcp_pacing_ss_ratio  proc_dointvec_minmax 0..1000  (default 200)
#   tcp_pacing_ca_ratio  proc_dointvec_minmax 0..1000  (default 120)
# Then concurrent writers hammer them while a TCP flow runs through fq in the
# same netns: the flow completes and the final values are valid.
CASE_TIMEOUT=150
# shellcheck source=tests/lib-robust.sh
. "$T/lib-robust.sh"

# input|u8vec answer:value|intvec answer:value ("=" = unchanged). The u8vec
# column is for min 0; tcp_min_tso_segs (min 1) differs only on "0".
# Notes: base 0 parsing ("0x10" is 16, "010" is 8); "5 6" is parsed as 5 and
# the int handler reports 2 of 3 bytes written; "-0" is 0 for int, negative
# for unsigned; an empty write is a no-op that succeeds.
sysctl_table() {
	cat <<'TAB'
|OK:=|OK:=
abc|EINVAL:=|EINVAL:=
1e3|EINVAL:=|EINVAL:=
 5|OK:5|OK:5
5 6|OK:5|SHORT:2:5
0x10|OK:16|OK:16
010|OK:8|OK:8
08|EINVAL:=|EINVAL:=
+5|EINVAL:=|EINVAL:=
5abc|EINVAL:=|EINVAL:=
5\n|OK:5|OK:5
\t7\n|OK:7|OK:7
-1|EINVAL:=|EINVAL:=
-0|EINVAL:=|OK:0
0|OK:0|OK:0
1|OK:1|OK:1
255|OK:255|OK:255
256|EINVAL:=|OK:256
1000|EINVAL:=|OK:1000
1001|EINVAL:=|EINVAL:=
2147483647|EINVAL:=|EINVAL:=
2147483648|EINVAL:=|EINVAL:=
-2147483648|EINVAL:=|EINVAL:=
4294967296|EINVAL:=|EINVAL:=
18446744073709551616|EINVAL:=|EINVAL:=
99999999999999999999|EINVAL:=|EINVAL:=
1234567890123456789012345|EINVAL:=|EINVAL:=
TAB
}

# name handler(u8|int) min max default
pacing_sysctls() {
	echo "tcp_min_tso_segs u8 1 255 2"
	[ ! -e /proc/sys/net/ipv4/tcp_tso_rtt_log ] || echo "tcp_tso_rtt_log u8 0 255 9"
	echo "tcp_pacing_ss_ratio int 0 1000 200"
	echo "tcp_pacing_ca_ratio int 0 1000 120"
}

# Table D: 27 inputs into each of the 4 sysctls through /proc in a netns:
# each write is refused with EINVAL and changes nothing, or is accepted
# as 6.1's handler parses it; init_net's values never move.
t_garbage() {
	ip netns add a
	out=$R/data/sysctl-fuzz.tsv
	# One python process runs the whole table inside the netns (a process
	# per write is slow under emulation); each write is open/write/close on
	# /proc exactly like lib.sh's procwrite, and a partial write is SHORT:n.
	ip netns exec a python3 -c '
import errno, os, sys

def write(path, data):
    try:
        fd = os.open(path, os.O_WRONLY)
        try:
            n = os.write(fd, data)
        finally:
            os.close(fd)
        return "OK" if n == len(data) else "SHORT:%d" % n
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))

def read(path):
    with open(path) as f:
        return f.read().strip()

table = [l.split("|") for l in sys.argv[2].split("\n") if l]
bad = 0
for line in sys.argv[1].split("\n"):
    if not line:
        continue
    name, h, lo, hi, default = line.split()
    path = "/proc/sys/net/ipv4/" + name
    got = read(path)
    if got != default:
        print("%s\tdefault\t%s\t\t%s\t\tBAD" % (name, got, default))
        bad += 1
    for inp, u8, intv in table:
        prev = "7"
        write(path, prev.encode())
        want = u8 if h == "u8" else intv
        if name == "tcp_min_tso_segs" and inp == "0":
            want = "EINVAL:="
        ans, wv = want.rsplit(":", 1)
        wv = prev if wv == "=" else wv
        data = inp.replace("\\t", "\t").replace("\\n", "\n").encode()
        res = write(path, data)
        now = read(path)
        ok = res == ans and now == wv and int(lo) <= int(now) <= int(hi)
        bad += not ok
        print("%s\t%r\t%s\t%s\t%s\t%s\t%s" % (name, inp, res, now, ans, wv, "ok" if ok else "BAD"))
sys.exit(1 if bad else 0)' "$(pacing_sysctls)" "$(sysctl_table)" >"$out" 2>&1 || true
	column -t -s $'\t' "$out" 2>/dev/null || cat "$out"
	n=$(grep -c . "$out")
	nbad=$(grep -cP '\tBAD$' "$out" || true)
	[ "$n" -ge 100 ] || fail "only $n sysctl writes ran ($out)"
	[ "$nbad" = 0 ] || fail "$nbad of $n sysctl writes outside the contract ($out)"
	# nothing leaked into the initial namespace
	[ "$(sysctl -n net.ipv4.tcp_min_tso_segs)" = 2 ] || fail "init_net tcp_min_tso_segs changed"
	[ "$(sysctl -n net.ipv4.tcp_pacing_ss_ratio)" = 200 ] || fail "init_net tcp_pacing_ss_ratio changed"
	[ "$(sysctl -n net.ipv4.tcp_pacing_ca_ratio)" = 120 ] || fail "init_net tcp_pacing_ca_ratio changed"
}

# 5 writer loops (random good and bad values) and a reader for 5 s while
# a 40 MB TCP flow runs through fq in the same netns: every read is an
# in-range integer, the final values are in range, and the flow
# completes with every byte intact.
t_concurrent_writers() {
	topo
	d=$R/data/sysctl-concurrent
	mkdir -p "$d"
	sn tc qdisc add dev veth0 root fq
	ip netns exec rcv "$(rb_bin tcpbulk)" -s >"$d/server.txt" 2>&1 &
	spid=$!
	sleep 0.5
	ip netns exec snd "$(rb_bin tcpbulk)" -d "$RCV_IP" -n 40000000 >"$d/client.txt" 2>&1 &
	cpid=$!
	mapfile -t names <<<"$(pacing_sysctls | awk '{print $1}')"
	# One writer per sysctl plus one that writes all of them, each a loop in
	# snd (one process, so the loop is fast even under emulation), mixing
	# valid, out-of-range and unparsable values; one reader checks that a
	# read never returns anything but an in-range integer.
	pids=()
	for nm in "${names[@]}" all; do
		if [ "$nm" = all ]; then set -- "${names[@]}"; else set -- "$nm"; fi
		# shellcheck disable=SC2016 # the script is for the inner bash
		sn bash -c '
			vals=(0 1 2 3 44 100 120 200 255 256 999 1000 1001 -1 abc "" 0x10 "5 6" 99999999999)
			names=("$@")
			end=$((SECONDS + 5))
			while [ $SECONDS -lt $end ]; do
				for nm in "${names[@]}"; do
					v=${vals[RANDOM % ${#vals[@]}]}
					printf %s "$v" >/proc/sys/net/ipv4/$nm 2>/dev/null || true
				done
			done' writer "$@" &
		pids+=($!)
	done
	# shellcheck disable=SC2016 # the script is for the inner bash
	sn bash -c '
		end=$((SECONDS + 5)); bad=0
		while [ $SECONDS -lt $end ]; do
			for nm in "$@"; do
				v=$(cat /proc/sys/net/ipv4/$nm)
				case $v in ""|*[!0-9]*) echo "read $nm: [$v]"; bad=1 ;; esac
				[ "${v:-0}" -le 1000 ] || { echo "read $nm: $v > 1000"; bad=1; }
			done
		done
		exit $bad' reader "${names[@]}" >"$d/reader.txt" 2>&1 &
	readpid=$!
	for p in "${pids[@]}"; do wait "$p" || true; done
	rc=0
	wait "$readpid" || rc=$?
	[ "$rc" = 0 ] || { cat "$d/reader.txt"; fail "a concurrent read returned garbage"; }

	# The final values are valid for their handlers.
	while read -r name _ lo hi _; do
		v=$(nsysctl snd "net.ipv4.$name")
		say "after the storm: $name=$v"
		[ "$v" -ge "$lo" ] && [ "$v" -le "$hi" ] || fail "$name=$v outside $lo..$hi after concurrent writes"
	done <<<"$(pacing_sysctls)"
	# Defaults back, so that a 0 ratio left by the storm does not stall the
	# flow (pacing rate 0 would make fq send one packet per second).
	while read -r name _ _ _ def; do
		sn sysctl -qw "net.ipv4.$name=$def"
	done <<<"$(pacing_sysctls)"

	rb_wait "$cpid" 100 || { cat "$d/client.txt"; fail "the TCP flow did not complete intact after the sysctl storm"; }
	rb_wait "$spid" 20 || { cat "$d/server.txt"; fail "TCP server: data corrupted or missing"; }
	cat "$d/client.txt"
	grep -q 'received=40000000$' "$d/client.txt" || fail "not all 40000000 bytes were received"
}
