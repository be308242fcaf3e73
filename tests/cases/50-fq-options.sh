# shellcheck shell=bash
# sch_fq netlink options: defaults, round trips through bookworm's tc
# (iproute2 6.1), bad input, and reconfiguration under load.
# shellcheck source=tests/lib-fq.sh
. "$T/lib-fq.sh"
CASE_TIMEOUT=90

# jget NS DEV: the root fq options as JSON on stdout
jget() { ip netns exec "$1" tc -j qdisc show dev "$2"; }

# optcheck NAME=VALUE...: every NAME in the fq options equals VALUE; VALUE
# "absent" means tc did not print it, "present" a flag such as horizon_drop.
optcheck() {
	sn tc -j qdisc show dev veth0 | python3 -c '
import json, sys
q = [q for q in json.load(sys.stdin) if q["kind"] == "fq"][0]["options"]
bad = []
for a in sys.argv[1:]:
    k, want = a.split("=")
    got = "absent" if k not in q else ("present" if q[k] is None else str(q[k]).lower())
    if got != want:
        bad.append("%s=%s (want %s)" % (k, got, want))
if bad:
    print("options differ: " + ", ".join(bad) + "; dump: " + json.dumps(q))
    sys.exit(1)' "$@"
}

# A fresh fq shows 6.1's defaults, in tc's JSON and its text: limit
# 10000, flow_limit 100, 1024 buckets, orphan_mask 1023, quantum 3028,
# initial_quantum 15140, low_rate_threshold 68750 B/s, refill_delay
# 40 ms, timer_slack 10 us, horizon 10 s with horizon_drop.
t_defaults() {
	topo
	sn tc qdisc add dev veth0 root fq
	sn tc qdisc show dev veth0
	# quantum is 2 x psched_mtu = 2 x (1500 + 14) = 3028, initial 10 x.
	# refill_delay/timer_slack/horizon are printed in us/ns/us in JSON;
	# low_rate_threshold 550 kbit = 68750 bytes/s.
	optcheck limit=10000 flow_limit=100 buckets=1024 orphan_mask=1023 \
		quantum=3028 initial_quantum=15140 low_rate_threshold=68750 \
		refill_delay=40000 timer_slack=10000 horizon=10000000 \
		horizon_drop=present horizon_cap=absent pacing=absent \
		maxrate=absent ce_threshold=absent || fail "fresh fq does not have the 6.1 defaults"
	txt=$(sn tc qdisc show dev veth0)
	for w in "limit 10000p" "flow_limit 100p" "buckets 1024" "orphan_mask 1023" \
		"quantum 3028b" "initial_quantum 15140b" "refill_delay 40ms" \
		"timer_slack 10us" "horizon 10s" "horizon_drop"; do
		[[ $txt == *"$w"* ]] || fail "tc qdisc show lacks '$w': $txt"
	done
}

# An add with every option reads every value back; then each option
# alone through `change` reads back and moves nothing else.
t_roundtrip() {
	topo
	# Values chosen to survive jiffies rounding: refill_delay is kept in
	# jiffies, and 80 ms is a whole number of them at HZ 100, 250 and 1000.
	sn tc qdisc add dev veth0 root fq limit 5000 flow_limit 50 quantum 9000 \
		initial_quantum 20000 maxrate 10mbit buckets 2048 orphan_mask 511 \
		nopacing refill_delay 80ms low_rate_threshold 1mbit timer_slack 20us \
		horizon 5s horizon_cap ce_threshold 3ms
	sn tc qdisc show dev veth0
	optcheck limit=5000 flow_limit=50 quantum=9000 initial_quantum=20000 \
		maxrate=1250000 buckets=2048 orphan_mask=511 pacing=false \
		refill_delay=80000 low_rate_threshold=125000 timer_slack=20000 \
		horizon=5000000 horizon_cap=present horizon_drop=absent \
		ce_threshold=3000 || fail "add with every option did not round-trip"
	# Each option alone through `change`: it reads back, nothing else moves.
	# One python runs the whole table (a python start costs ~1 s under TCG).
	ip netns exec snd python3 - <<-'PY' || fail "single-option changes (see above)"
		import json, subprocess, sys
		TABLE = [  # tc arguments, key, value read back, keys that move
		    ("limit 777", "limit", 777, "limit"),
		    ("flow_limit 33", "flow_limit", 33, "flow_limit"),
		    ("quantum 1514", "quantum", 1514, "quantum"),
		    ("initial_quantum 1048576", "initial_quantum", 1048576, "initial_quantum"),
		    ("maxrate 50mbit", "maxrate", 6250000, "maxrate"),
		    ("buckets 64", "buckets", 64, "buckets"),
		    ("buckets 300", "buckets", 512, "buckets"),  # rounded up to 2^n
		    ("orphan_mask 65535", "orphan_mask", 65535, "orphan_mask"),
		    ("pacing", "pacing", "absent", "pacing"),
		    ("refill_delay 120ms", "refill_delay", 120000, "refill_delay"),
		    ("low_rate_threshold 2mbit", "low_rate_threshold", 250000, "low_rate_threshold"),
		    ("timer_slack 1ms", "timer_slack", 1000000, "timer_slack"),
		    ("horizon 1s", "horizon", 1000000, "horizon"),
		    ("horizon_drop", "horizon_drop", None, "horizon_cap,horizon_drop"),
		    ("ce_threshold 100us", "ce_threshold", 100, "ce_threshold"),
		]
		def opts():
		    out = subprocess.run(["tc", "-j", "qdisc", "show", "dev", "veth0"], capture_output=True, check=True).stdout
		    return [q for q in json.loads(out) if q["kind"] == "fq"][0]["options"]
		bad = 0
		for args, key, val, moved in TABLE:
		    before = opts()
		    r = subprocess.run(["tc", "qdisc", "change", "dev", "veth0", "root", "fq"] + args.split())
		    after = opts()
		    got = after.get(key, "absent")
		    diff = ",".join(sorted(k for k in set(before) | set(after) if before.get(k, "ABSENT") != after.get(k, "ABSENT")))
		    ok = r.returncode == 0 and got == val and diff == moved
		    bad += not ok
		    print("%s change %-26s -> %s=%s, moved %s" % ("ok  " if ok else "FAIL", args, key, got, diff or "nothing"))
		sys.exit(bad)
	PY
	optcheck limit=777 flow_limit=33 quantum=1514 initial_quantum=1048576 \
		maxrate=6250000 buckets=512 orphan_mask=65535 pacing=absent \
		refill_delay=120000 low_rate_threshold=250000 timer_slack=1000000 \
		horizon=1000000 horizon_drop=present ce_threshold=100 ||
		fail "options lost during the single changes"
	sn tc qdisc change dev veth0 root fq nopacing
	optcheck pacing=false || fail "nopacing after pacing"
	# replace keeps the same qdisc, so unspecified options stay.
	sn tc qdisc replace dev veth0 root fq limit 900
	optcheck limit=900 flow_limit=33 pacing=false || fail "replace"
}

# u32 max is accepted for horizon, ce_threshold and timer_slack (the kernel
# keeps them in 64 bits); ce_threshold u32 max is "off", so tc hides it.
t_u32_max() {
	topo
	sn tc qdisc add dev veth0 root fq ce_threshold 3ms
	sn tc qdisc change dev veth0 root fq horizon 4294967295us
	optcheck horizon=4294967295 || fail "horizon u32 max"
	sn tc qdisc change dev veth0 root fq timer_slack 4294967295ns
	optcheck timer_slack=4294967295 || fail "timer_slack u32 max"
	sn tc qdisc change dev veth0 root fq ce_threshold 4294967295us
	optcheck ce_threshold=absent horizon=4294967295 timer_slack=4294967295 ||
		fail "ce_threshold u32 max should read back as off"
	r=$(fqnl snd veth0 change ce_threshold=0xffffffff horizon=0xffffffff timer_slack=0xffffffff)
	[[ $r == *": OK "* ]] || fail "raw netlink u32 max rejected: $r"
	sn tc qdisc show dev veth0
}

# bad CMD...: a tc command that must fail and leave the qdisc as it was.
bad() {
	local before after rc=0
	before=$(sn tc -j qdisc show dev veth0)
	stimeout 10 ip netns exec snd "$@" 2>&1 || rc=$?
	[ "$rc" != 124 ] || fail "'$*' hung"
	[ "$rc" != 0 ] || fail "'$*' was accepted"
	after=$(sn tc -j qdisc show dev veth0)
	[ "$before" = "$after" ] || fail "'$*' failed but changed the qdisc: $before -> $after"
	say "rejected (rc $rc), qdisc unchanged: $*"
}

# nlcheck FQNL-OUTPUT: every request was rejected and changed nothing.
nlcheck() {
	say "$1"
	! grep -E ': OK|CHANGED$' <<<"$1" || fail "bad netlink requests accepted or applied (above)"
	[ "$(grep -c unchanged <<<"$1")" = "$2" ] || fail "expected $2 answers"
}

# Stock 7.2 clamps quantum into 256..2^20 (7.2's net/sched/sch_fq.c,
# fq_change: clamp_t) where 6.1 and the series refuse it, and its policy
# bounds initial_quantum at 2^20 (iq_range, -ERANGE) where theirs take up
# to INT_MAX. The quantum values below are bad on every other kernel.
QUANTUM_BAD=(0 2147483648 1048577)
IQ_MAX=0x7fffffff IQ_MAX_DEC=2147483647
! kernel_is stock72 next72 || QUANTUM_BAD=() IQ_MAX=0x100000 IQ_MAX_DEC=1048576

# quantum_clamped: on 7.2, out-of-range quanta are accepted and clamped,
# through tc and raw netlink (each request moves it).
quantum_clamped() {
	local q want r
	for q in "0 256" "2147483648 1048576" "300 300" "1048577 1048576"; do
		read -r q want <<<"$q"
		sn tc qdisc change dev veth0 root fq quantum "$q" || fail "7.2 refused quantum $q (it clamps)"
		optcheck quantum="$want" || fail "quantum $q not clamped to $want"
	done
	r=$(fqnl snd veth0 change quantum=0 -- change quantum=0x80000000 -- change quantum=0x100001)
	say "$r"
	[ "$(grep -c ': OK CHANGED' <<<"$r")" = 2 ] && [ "$(grep -c ': OK unchanged' <<<"$r")" = 1 ] ||
		fail "raw quantum 0 / 2^31 / 0 not accepted as 256 / 2^20 / 256: $r"
	sn tc qdisc change dev veth0 root fq quantum 5000
}

# Values tc and raw netlink can send that the kernel must refuse
# (quantum 0, 2^31, 2^20 + 1; initial_quantum above INT_MAX; buckets_log
# 0, 19, 32; rate_enable 2; attributes shorter than their type) are
# refused with the kernel's errno and change nothing; the boundaries
# themselves are accepted. 7.2 clamps quantum instead: there it reads
# back 256 or 2^20.
t_bad_input() {
	local q
	topo
	sn tc qdisc add dev veth0 root fq limit 1234 quantum 5000 buckets 256
	for q in ${QUANTUM_BAD[@]+"${QUANTUM_BAD[@]}"}; do
		bad tc qdisc change dev veth0 root fq quantum "$q"
	done
	! kernel_is stock72 next72 || quantum_clamped
	bad tc qdisc change dev veth0 root fq initial_quantum 4294967295
	bad tc qdisc change dev veth0 root fq initial_quantum 2147483648
	# tc sends ilog2 of the rounded-up count: 524288 -> buckets_log 19.
	bad tc qdisc change dev veth0 root fq buckets 524288
	# `buckets 0` makes tc send no buckets attribute at all: a no-op.
	sn tc qdisc change dev veth0 root fq buckets 0
	optcheck buckets=256 limit=1234 || fail "tc buckets 0 changed something"
	# Raw netlink: values tc cannot produce. Attributes shorter than their
	# policy type (NLA_U32 / NLA_U8) are rejected by the parser.
	local qreq=(-- change quantum=0 -- change quantum=0x80000000 -- change quantum=0x100001)
	! kernel_is stock72 next72 || qreq=(-- change initial_quantum=0x100001)
	nlcheck "$(fqnl snd veth0 change buckets_log=0 -- change buckets_log=19 \
		-- change buckets_log=32 -- change rate_enable=2 "${qreq[@]}" \
		-- change initial_quantum=0xffffffff -- change orphan_mask:u16=5 \
		-- change limit:u8=5 -- change horizon_drop:u8=1 timer_slack:u16=1)" $((8 + ${#qreq[@]} / 3))
	# The boundaries themselves are fine: initial_quantum takes anything up
	# to INT_MAX on 6.1 and the series (6.1's policy range), 2^20 on 7.2.
	iq=$IQ_MAX iqd=$IQ_MAX_DEC
	r=$(fqnl snd veth0 change buckets_log=18 quantum=0x100000 initial_quantum=$iq rate_enable=0)
	[[ $r == *": OK CHANGED" ]] || fail "boundary values rejected: $r"
	optcheck buckets=262144 quantum=1048576 initial_quantum=$iqd pacing=false ||
		fail "boundary values not applied"
	r=$(fqnl snd veth0 change "initial_quantum=$(printf '%#x' $((iq + 1)))")
	[[ $r == *"ERANGE"* ]] || fail "initial_quantum $iqd + 1 not rejected with ERANGE: $r"
	r=$(fqnl snd veth0 change buckets_log=1 rate_enable=1)
	[[ $r == *": OK CHANGED" ]] || fail "buckets_log 1 rejected: $r"
	optcheck buckets=2 pacing=absent || fail "buckets_log 1 not applied"
	# A bad add creates nothing.
	sn tc qdisc del dev veth0 root
	local adds=("initial_quantum 4294967295" "buckets 524288")
	kernel_is stock72 next72 || adds+=("quantum 0" "quantum 2147483648")
	for o in "${adds[@]}"; do
		# shellcheck disable=SC2086
		! stimeout 10 ip netns exec snd tc qdisc add dev veth0 root fq $o 2>&1 ||
			fail "add fq $o accepted"
		sn tc -j qdisc show dev veth0 | grep -q '"kind":"fq"' && fail "add fq $o left an fq"
	done
	true
}

# A request with one bad attribute among good ones must change nothing (our
# series validates everything before it applies anything). Stock 6.1 applies
# the good attributes and still returns EINVAL; so does stock 7.2 (7.2's
# fq_change), where a bad quantum is clamped, not bad: there buckets_log
# and rate_enable stand in for it.
t_bad_input_atomic() {
	topo
	sn tc qdisc add dev veth0 root fq limit 1234 flow_limit 55
	local restore="-- replace limit=1234 flow_limit=55 maxrate=0xffffffff" out
	local q0=quantum=0 q31=quantum=0x80000000 tcbad="quantum 0"
	! kernel_is stock72 next72 || q0=buckets_log=0 q31=rate_enable=3 tcbad="buckets 524288"
	# shellcheck disable=SC2086 # restore is several words on purpose
	out=$(fqnl snd veth0 change limit=77 $q0 $restore \
		-- change flow_limit=66 buckets_log=19 $restore \
		-- change limit=78 rate_enable=2 $restore \
		-- change maxrate=1000 $q31 $restore)
	say "$out"
	grep -E '^change .*: OK' <<<"$out" && fail "a bad request was accepted"
	[ "$(grep -c '^change ' <<<"$out")" = 4 ] || fail "expected 4 answers"
	grep -E '^replace ' <<<"$out" | grep -v ': OK' && fail "restoring the options failed"
	part=$(grep -E '^change .*CHANGED$' <<<"$out" | sed 's/:.*//' | paste -sd ';' -)
	# and through tc, the way a user meets it
	local before after
	before=$(sn tc -j qdisc show dev veth0)
	# shellcheck disable=SC2086 # tcbad is two words on purpose
	! sn tc qdisc change dev veth0 root fq limit 79 $tcbad || fail "tc limit 79 $tcbad accepted"
	after=$(sn tc -j qdisc show dev veth0)
	[ "$before" = "$after" ] || part="${part:+$part; }tc limit 79 $tcbad"
	[ -n "$part" ] || return 0
	say "partially applied: $part"
	if [ "$FQP_KERNEL" = stock ]; then
		kernel_note "fq_change() applies the valid attributes of a rejected request: $part"
		skip "stock $FQP_BASE sch_fq applies the valid part of a rejected change ($part); the series must not"
	fi
	fail "rejected changes were partially applied: $part"
}

# Lowering limit below the current queue drops down to the new limit at once,
# and the parent learns about it (qdisc_tree_reduce_backlog), so the tree's
# qlen and backlog stay consistent. A bottleneck parent (htb 1mbit) keeps fq
# full without fq throttling, so fq's dequeue can hand packets back.
# Where the drops are counted differs (6.1 counts them at the parent and as
# fq "sent"), so the books are balanced end to end: every packet offered is
# either received or dropped by htb, which sees all drops below it.
t_limit_lowered_full() {
	topo
	quiet_link
	sn tc qdisc add dev veth0 root handle 1: htb default 1
	# 200 kbit/s, 24 packets/s: a debug guest on a loaded host sent the
	# 2000 packets at 215/s, and at 1 Mbit/s htb had passed most of them.
	sn tc class add dev veth0 parent 1: classid 1:1 htb rate 200kbit burst 2k
	sn tc qdisc add dev veth0 parent 1:1 handle 10: fq limit 10000 flow_limit 1000
	rn udpflows -R -p 9000 -n 50 -t 40 -i 3000 >"$R/data/lowered-rx.txt" &
	rpid=$!
	wait_listen rcv udp 9049
	# Count arrivals on the wire (veth1), not in the receiver: on a slow
	# (debug) kernel the last packets can arrive after its 40 s are up.
	# A packet veth could not hand to the peer's backlog is counted as a
	# tx drop on veth0; it passed the qdisc as sent.
	rx0=$(( $(rn cat /sys/class/net/veth1/statistics/rx_packets) +
		$(sn cat /sys/class/net/veth0/statistics/tx_dropped) ))
	# 50 sockets x 40 packets: a full fq made of many flows
	out=$(sn udpflows -d "$RCV_IP" -p 9000 -C -n 50 -c 2000 -l 1000)
	q0=$(fqx snd veth0 qlen 10:)
	stimeout 10 ip netns exec snd tc qdisc change dev veth0 parent 1:1 handle 10: fq limit 100 ||
		fail "lowering limit under load failed or hung"
	j=$(snap snd veth0)
	q1=$(qv "$j" fq qlen) hq=$(qv "$j" htb qlen) b1=$(qv "$j" fq backlog) hb=$(qv "$j" htb backlog)
	say "$out; fq qlen $q0 -> limit 100 -> fq qlen $q1 backlog $b1, htb qlen $hq backlog $hb"
	sn tc -s qdisc show dev veth0
	# Well above the new limit is enough: htb passes some of the 2000
	# while a slow (debug) kernel sends them.
	[ "$q0" -ge 1000 ] || fail "fq did not fill (qlen $q0)"
	[ "$q1" -le 100 ] || fail "qlen $q1 above the new limit 100"
	[ "$hq" = "$q1" ] && [ "$hb" = "$b1" ] ||
		fail "htb qlen/backlog $hq/$hb disagree with fq's $q1/$b1 (backlog not reduced up the tree)"
	# packets beyond the new limit drop at once; the rest drains
	out2=$(sn udpflows -d "$RCV_IP" -p 9000 -C -n 5 -c 200 -l 1000)
	wait "$rpid" || true
	sent=$(( $(sed -n 's/.*sent=\([0-9]*\).*/\1/p' <<<"$out") + $(sed -n 's/.*sent=\([0-9]*\).*/\1/p' <<<"$out2") ))
	for _ in $(seq 60); do
		[ "$(qv "$(snap snd veth0)" htb qlen)" != 0 ] || break
		sleep 0.5
	done
	rx=$(( $(rn cat /sys/class/net/veth1/statistics/rx_packets) +
		$(sn cat /sys/class/net/veth0/statistics/tx_dropped) - rx0 ))
	j=$(snap snd veth0)
	q=$(qv "$j" htb qlen) b=$(qv "$j" htb backlog) d=$(qv "$j" htb drops)
	sn tc -s qdisc show dev veth0
	say "drained: offered $sent, received $rx, htb dropped $d, qlen $q backlog $b"
	[ "$q" = 0 ] && [ "$b" = 0 ] || fail "qdisc did not drain: qlen $q backlog $b"
	[ $((rx + d)) = "$sent" ] || fail "received $rx + dropped $d != offered $sent"
}

# replace/change/delete/add of fq while TCP and many UDP flows run: every
# command succeeds promptly and traffic survives (the runner checks dmesg).
t_replace_delete_under_load() {
	topo
	iperf_srv 5201 "$R/data/replace-iperf.json"
	sn iperf3 -c "$RCV_IP" -t 12 -J >"$R/data/replace-iperf-c.json" &
	ipid=$!
	sn udpflows -d "$RCV_IP" -n 3000 -t 12 -r 20m -l 200 >/dev/null &
	sleep 1
	local i cmd
	for i in $(seq 6); do
		for cmd in "qdisc add dev veth0 root fq" \
			"qdisc change dev veth0 root fq buckets 16 orphan_mask 4095" \
			"qdisc replace dev veth0 root fq limit 50 flow_limit 5 maxrate 20mbit" \
			"qdisc change dev veth0 root fq buckets 4096 limit 20000 nopacing" \
			"qdisc change dev veth0 root fq limit 10" \
			"qdisc replace dev veth0 root pfifo limit 100" \
			"qdisc replace dev veth0 root fq" \
			"qdisc del dev veth0 root"; do
			# shellcheck disable=SC2086
			stimeout 10 ip netns exec snd tc $cmd || fail "round $i: 'tc $cmd' failed or hung"
		done
	done
	wait "$ipid" || fail "iperf3 failed while the qdisc was replaced"
	b=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["end"]["sum_received"]["bytes"])' "$R/data/replace-iperf-c.json")
	say "iperf3 received $b bytes across 48 reconfigurations"
	[ "$b" -gt 1000000 ] || fail "TCP moved only $b bytes"
}
