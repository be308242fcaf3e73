# shellcheck shell=bash
# Bad netlink input for fq (tests/src/nlfuzz/): every TCA_FQ_* attribute at
# edge values, truncated/oversized/unknown/nested-garbage attributes, mixes of
# good and bad ones, through create, change and replace. Each answer and each
# read-back must match the robustness contract for this kernel (nlfuzz exits
# non-zero otherwise); run.sh fails the case on any kernel splat. The
# per-message tables land in $R/data/nlfuzz-*.tsv.
CASE_TIMEOUT=170
# shellcheck source=tests/lib-robust.sh
. "$T/lib-robust.sh"

# nlfuzz_check LOG: fail with the offending lines unless nlfuzz passed.
nlfuzz_check() {
	local log=$1 rc=$2
	grep -P '\tsummary\t' "$log" || true
	if [ "$rc" != 0 ]; then
		grep -P '\tresult=BAD' "$log" | head -n 20
		tail -n 3 "$log"
		fail "nlfuzz exit $rc: answers outside the $(rb_kernel) contract ($log)"
	fi
}

# nlfuzz --print-contract writes the contract (docs/testing.md,
# robustness contract, table A) to results/data/nlfuzz-contract.tsv:
# more than 200 messages.
t_contract_table() {
	# The expected answers for both kernels, for docs/testing.md (robustness contract).
	nlfuzz --print-contract >"$R/data/nlfuzz-contract.tsv"
	n=$(wc -l <"$R/data/nlfuzz-contract.tsv")
	# 211 since the bands (priomap, weights) joined it
	[ "$n" -gt 200 ] || fail "contract table has only $n rows"
}

# Every message of table A to fq on a dummy device, in create, change
# and replace mode (3 x 211 = 633): each answer and each read-back is
# the contract's for this kernel, and a default fq is left that passes
# packets.
t_dummy() {
	ip netns add a
	ip -n a link add dummy0 type dummy
	ip -n a link set dummy0 up
	log=$R/data/nlfuzz-dummy.tsv
	rc=0
	ip netns exec a "$(rb_bin nlfuzz)" --dev dummy0 --kernel "$(rb_kernel)" >"$log" 2>&1 || rc=$?
	nlfuzz_check "$log" "$rc"
	# The qdisc is left as a default fq and still passes packets.
	ip netns exec a tc qdisc show dev dummy0 | grep -q '^qdisc fq 1: root' ||
		fail "no fq left on dummy0 after the fuzz"
}

# The same 633 messages on the fq root of a veth carrying a TCP bulk
# flow: the flow survives and data still moves through fq afterwards.
t_veth_traffic() {
	# Same messages on the fq of a veth carrying a TCP bulk flow: options
	# change under traffic, the qdisc is deleted and recreated ~210 times.
	topo
	rn iperf3 -s -D -1 >/dev/null
	sleep 0.5
	ip netns exec snd iperf3 -c "$RCV_IP" -t 300 -J >"$R/data/nlfuzz-veth-iperf3.json" 2>&1 &
	cpid=$!
	sleep 2
	log=$R/data/nlfuzz-veth.tsv
	rc=0
	sn "$(rb_bin nlfuzz)" --dev veth0 --kernel "$(rb_kernel)" >"$log" 2>&1 || rc=$?
	kill -0 "$cpid" 2>/dev/null || fail "the TCP flow died during the fuzz"
	# The flow still moves data once the fuzz is over.
	a=$(qstat snd veth0 bytes)
	sleep 2
	b=$(qstat snd veth0 bytes)
	# (background jobs ignore SIGINT: TERM it, rb_wait escalates if needed)
	kill "$cpid" 2>/dev/null || true
	rb_wait "$cpid" 10 || true
	[ "$b" -gt "$a" ] || fail "no traffic through fq after the fuzz ($a -> $b bytes)"
	nlfuzz_check "$log" "$rc"
}

# fq under a 1 Mbit/s tbf, kept full (~2000 packets) by a UDP flood:
# limit lowered to 1000, 100, 1, 0; limit 1 with quantum 0; limit 10 with
# buckets_log 18; buckets_log 1 with packets queued (table B). Each
# answer is the contract's, tbf's qlen follows fq's after every step and
# the drops are counted.
t_limit_under_load() {
	# fq as the child of a slow tbf (veth gives no backpressure), kept full by
	# a UDP flood; then limit is lowered (to 1000, 100, 1, 0), also mixed
	# with a bad quantum, and the tables resized with packets queued.
	topo
	rb_neigh
	rb_quiet_v6 snd veth0
	sn tc qdisc add dev veth0 root handle 1: tbf rate 1mbit burst 5000 limit 100000
	sn tc qdisc add dev veth0 parent 1:1 handle 10: fq
	ip netns exec snd "$(rb_bin udpflows)" -d "$RCV_IP" -n 64 -r 20m -t 120 >/dev/null &
	upid=$!
	log=$R/data/nlfuzz-limit-under-load.tsv
	rc=0
	sn "$(rb_bin nlfuzz)" --dev veth0 --parent 1:1 --handle 10: --limit-test \
		--kernel "$(rb_kernel)" >"$log" 2>&1 || rc=$?
	kill "$upid" 2>/dev/null || true
	wait "$upid" 2>/dev/null || true
	cat "$log"
	grep -q 'limitload' "$log" || fail "the limit test did not run"
	nlfuzz_check "$log" "$rc"
	# nlfuzz also checked that tbf's qlen followed fq's after every step
	# (qdisc_tree_reduce_backlog) and that the drops were counted.
	grep -P '^limitload' "$log" >/dev/null
}
