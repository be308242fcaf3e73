# shellcheck shell=bash
# The kernel tree's own selftests that drive fq, from the tree
# that was built (stock or patched): boot-and-test.sh copies
# tools/testing/selftests/net/so_txtime.sh and bpf/test_tc_edt.sh to the
# run disk and builds so_txtime.c and bpf/progs/test_tc_edt.c beside them.
# Each script runs as the tree has it, but for its addresses, moved to the
# ranges this project may use (RFC 2544's 198.18.0.0/15, RFC 3849's
# 2001:db8::/32). The verdict is the script's own. Both judge wall-clock
# time tightly, so scripts/test.sh runs them in a boot with the exact
# clock: on the wall clock a loaded host woke so_txtime's receiver 18.6 ms
# late (4 ms allowed) and test_tc_edt reached -2.81 % of its rate (1 %
# allowed); exact: within 0.22 ms and -0.07 %.
# - so_txtime.sh: UDP datagrams with SO_TXTIME through fq, in order and
#   out of order, IPv4 and IPv6; the receiver checks each arrives in the
#   expected order within 4 ms of its time.
# - test_tc_edt.sh: a tc egress BPF program paces one TCP flow to 5 MB/s
#   by setting skb->tstamp; fq enforces it; the receiver's byte count over
#   20 s must be within 1 % of the rate.
# - fq_band_pktlimit.sh (7.2's tree; 6.1's has none): fq limit 10 packets
#   per band; 20 + 20 UDP datagrams held by SO_TXTIME on one band, then 20
#   on another: 10 queued and 10, 30, 40 dropped, then all 20 sent. It
#   runs itself in a netns of its own; fdaa:: becomes 2001:db8:aa::.
# 7.2 has neither so_txtime.sh nor test_tc_edt.sh: so_txtime became
# drivers/net/so_txtime.py, a test between two machines (NetDrvEpEnv: a
# remote host, or a netdevsim pair with the tree's Python library), and
# test_tc_edt a test_progs test (bpf/prog_tests/test_tc_edt.c: the whole
# BPF selftest build). Neither runs in this guest: SKIP on 7.2, saying so.
# shellcheck source=tests/lib-fq.sh
. "$T/lib-fq.sh"
CASE_TIMEOUT=120

ST=$T/../selftests

wall_note() {
	[ "${FQP_CLOCK:-wall}" = exact ] ||
		say "note: wall clock; under TCG the script's timing check needs the exact clock (scripts/test.sh)"
}

# st_prepare SCRIPT SED-EXPR...: a copy of the tree's SCRIPT in a fresh
# directory with the built programs, its addresses rewritten by the sed
# expressions; fails if any other private address is left in it (the
# tree's script changed: the rewrite must follow). The directory is STD.
st_prepare() {
	local script=$1 d e args=()
	shift
	if [ ! -f "$ST/$script" ]; then
		if kernel_is stock72 next72; then
			case $script in
			so_txtime.sh) skip "7.2 has no so_txtime.sh: it is drivers/net/so_txtime.py there, a test between two hosts (NetDrvEpEnv: a remote host or a netdevsim pair, the tree's Python library)" ;;
			test_tc_edt.sh) skip "7.2 has no test_tc_edt.sh: it is a test_progs test there (bpf/prog_tests/test_tc_edt.c), which needs the whole BPF selftest build" ;;
			esac
		fi
		skip "no $script on the run disk: the tree has none ($ST)"
	fi
	d=$(mktemp -d /tmp/selftest.XXXXXX)
	cp "$ST"/* "$d/"
	for e in "$@"; do args+=(-e "$e"); done
	sed -E "${args[@]}" "$ST/$script" >"$d/$script"
	no_private_addr "$d/$script"
	STD=$d
}

# On the series, one expectation of 6.1's so_txtime.sh is mainline's: its
# fq line "a,20,b,10 b,20,a,20" has b (due at 10 ms) held until a's 20 ms,
# as 6.1 holds an earlier packet behind its throttled flow. The series
# re-times the flow to b, as mainline does since fq_flow_adjust_timer(),
# whose own test expects "b,10,a,20" (7.2's drivers/net/so_txtime.py,
# reverse_order). Stock 6.1 runs the script as it is.
t_so_txtime() {
	local out=$R/data/so_txtime.txt rc=0 retime=()
	kernel_is stock61 || retime=('s/(do_test 6 mono a,20,b,10) b,20,a,20/\1 b,10,a,20/')
	st_prepare so_txtime.sh 's/192\.168\.1\./198.18.1./g' 's/\bfd::/2001:db8::/g' ${retime[@]+"${retime[@]}"}
	[ "${#retime[@]}" = 0 ] || grep -q 'do_test 6 mono a,20,b,10 b,10,a,20' "$STD/so_txtime.sh" ||
		fail "so_txtime.sh has no fq reverse-order line to expect re-timing in (the tree's script changed)"
	[ "${#retime[@]}" = 0 ] ||
		kernel_note "so_txtime.sh's fq reverse-order test expects mainline's re-timing (b at 10 ms, then a), not 6.1's hold (both at 20 ms)"
	[ -x "$STD/so_txtime" ] || fail "so_txtime was not built (helpers-build.log on the host)"
	wall_note
	(cd "$STD" && bash ./so_txtime.sh) >"$out" 2>&1 || rc=$?
	cat "$out"
	[ "$rc" = 0 ] || fail "so_txtime.sh exited $rc"
	grep -q '^OK. All tests passed' "$out" || fail "so_txtime.sh did not say 'OK. All tests passed'"
	grep -q 'does not support qdisc etf' "$out" &&
		say "its etf half skipped itself (see so_txtime_etf)"
	return 0
}

# so_txtime.sh's second half replaces fq by etf: not fq, and the test
# fragments do not build it.
t_so_txtime_etf() {
	ip netns add etfprobe
	ip -n etfprobe link add d0 type dummy
	if ip netns exec etfprobe tc qdisc add dev d0 root etf clockid CLOCK_TAI delta 400000 2>/dev/null; then
		say "etf is built: so_txtime.sh ran its etf half in so_txtime"
		return 0
	fi
	skip "no etf qdisc in this kernel (CONFIG_NET_SCH_ETF is not in the fragments: etf is not fq and the series does not touch it); so_txtime.sh skipped its etf half"
}

# The tree's bpf/test_tc_edt.sh (its BPF program built here): one TCP
# flow paced to 5 MB/s by a tc program that sets skb->tstamp, fq
# enforcing it; the receiver's bytes over 20 s within 1 % of the rate
# (the script's own verdict).
t_test_tc_edt() {
	local out=$R/data/test_tc_edt.txt rc=0
	st_prepare test_tc_edt.sh 's/172\.16\.([12])\.100/198.18.\1.100/g'
	[ -f "$STD/test_tc_edt.bpf.o" ] || fail "test_tc_edt.bpf.o was not built (helpers-build.log on the host)"
	wall_note
	# The 20 s window starts with timeout, bash and dd: cached first.
	cache_cmds bash timeout dd ip cat
	(cd "$STD" && bash ./test_tc_edt.sh) >"$out" 2>&1 || rc=$?
	cat "$out"
	[ "$rc" = 0 ] || fail "test_tc_edt.sh exited $rc: $(grep -m1 'bps difference' "$out" || tail -n 1 "$out")"
	grep -q '^PASS' "$out" || fail "test_tc_edt.sh did not say PASS"
}

# 7.2's own net/fq_band_pktlimit.sh (the script's own verdict): a band's
# packet limit. 6.1's tree has no such script: SKIP there.
t_fq_band_pktlimit() {
	local out=$R/data/fq_band_pktlimit.txt rc=0
	st_prepare fq_band_pktlimit.sh 's/fdaa::/2001:db8:aa::/g'
	[ -x "$STD/cmsg_sender" ] || fail "cmsg_sender was not built (helpers-build.log on the host)"
	# It runs itself again inside in_netns.sh: both must be executable.
	chmod +x "$STD/fq_band_pktlimit.sh" "$STD/in_netns.sh"
	wall_note
	(cd "$STD" && bash ./fq_band_pktlimit.sh) >"$out" 2>&1 || rc=$?
	cat "$out"
	[ "$rc" = 0 ] || fail "fq_band_pktlimit.sh exited $rc: $(tail -n 1 "$out")"
}
