# shellcheck shell=bash
# The patch mail's trace as an assertion (the demo's "spacing" experiment):
# a 200 KB response over a fast link with a 100 Mbit/s bottleneck after the
# sender. Without fq the whole response leaves the sender within about a
# millisecond; fq spreads it at the pacing rate.
CASE_TIMEOUT=150
. "$T/demo/demo-lib.bash"

t_rr_response_spread() {
	local d burst_pfifo burst_fq
	d=$(ddir spacing-assert)
	spacing_run "$d" 10
	burst_pfifo=$(kv "$d/pfifo-snd.stat" burst_max_bytes)
	burst_fq=$(kv "$d/fq-snd.stat" burst_max_bytes)
	say "largest 1 ms burst at the sender: pfifo $burst_pfifo B, fq $burst_fq B"
	# pfifo sends the response as fast as TSQ lets it (most of 200 KB in
	# one millisecond); fq paces it. Under TCG fq's timers run late and it
	# catches up in bursts: measured 49 KB vs 200 KB on a quiet machine,
	# 62 KB vs 117 KB on a saturated one. Require fq <= 70% of pfifo.
	[ "$burst_pfifo" -ge 100000 ] || fail "pfifo burst only $burst_pfifo B: the setup did not produce the unpaced burst"
	[ $((burst_fq * 10)) -le $((burst_pfifo * 7)) ] ||
		fail "fq did not spread the response: $burst_fq B in 1 ms vs $burst_pfifo B with pfifo"
}
