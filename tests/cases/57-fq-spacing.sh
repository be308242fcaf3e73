# shellcheck shell=bash
# The patch mail's trace as an assertion (the demo's "spacing" experiment):
# a 200 KB response over a fast link with a 100 Mbit/s bottleneck after the
# sender. Without fq the whole response leaves the sender within about a
# millisecond; fq spreads it at the pacing rate.
CASE_TIMEOUT=150
# shellcheck source=tests/demo/demo-lib.bash
. "$T/demo/demo-lib.bash"

t_rr_response_spread() {
	local d burst_pfifo burst_fq gap_pfifo gap_fq
	d=$(ddir spacing-assert)
	spacing_run "$d" 10
	burst_pfifo=$(kv "$d/pfifo-snd.stat" burst_max_bytes)
	burst_fq=$(kv "$d/fq-snd.stat" burst_max_bytes)
	gap_pfifo=$(kv "$d/pfifo-snd.stat" gap_median_us)
	gap_fq=$(kv "$d/fq-snd.stat" gap_median_us)
	say "sender: largest 1 ms burst pfifo $burst_pfifo B, fq $burst_fq B; median gap between GSO packets pfifo $gap_pfifo us, fq $gap_fq us"
	# pfifo hands the response's GSO packets out back to back; fq spaces
	# them at the pacing rate. The median gap is the stable signal under
	# TCG (pfifo 63-85 us, fq 832-938 us, loaded or not); the largest 1 ms
	# burst is reported only: fq's late timers make it catch up in bursts
	# (49-124 KB against pfifo's 117-200 KB). The precondition asks pfifo
	# for one full 64 KB TSO packet's worth within a millisecond: a slow
	# TCG run once gave it 75 KB (median gap 232 us), unpaced all the same.
	[ "$burst_pfifo" -ge 65536 ] || fail "pfifo burst only $burst_pfifo B: the setup did not produce the unpaced burst"
	[ "$gap_fq" -ge 400 ] && [ "$gap_fq" -ge $((gap_pfifo * 2)) ] ||
		fail "fq did not space the response: median gap $gap_fq us vs $gap_pfifo us with pfifo"
}
