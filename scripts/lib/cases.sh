# shellcheck shell=bash
# Named lists of guest cases (boot-and-test.sh --filter/--exclude regexes,
# "FILE:CASE" names) that the scripts select, and that docs/testing.md's
# case index (scripts/case-index.py) reads to say where each case runs:
# the debug kernel's core and what the debug run leaves out, the cases of
# the exact-clock boot, the debug-only cases, the 7.x kernels' core in CI
# and the cases that fail on 7.x by design.

# The debug kernel's core cases (bad input, reconfiguration under load, the
# fuzzers, concurrency, the known bugs, fault injection): what CI's debug
# stage always runs. With --debug-next, scripts/test.sh leaves them to it.
FQP_DEBUG_CORE='^50-fq-options:(bad_input|bad_input_atomic|limit_lowered_full|replace_delete_under_load)$|^66-fq-bands:(bad_input_atomic|band_limit|reset_clears_band_counters)$|^(72-fq-limit-peeked|85-fq-netlink-fuzz|86-fq-churn|87-sysctl-fuzz|89-fq-concurrency|94-fq-failslab):|^90-fq-known-bugs:(huge_mtu_default_quantum|reset_with_backlog|tbf_limit0_sfq_graft_cve_2025_39677)$'
export FQP_DEBUG_CORE

# The 7.x kernels' core in CI (7.3 with the upstream patches, their base;
# stock 7.x when the budget leaves room): the cases whose semantics differ
# between the kernels (each asserts the booted kernel's), the fast path
# and bands that 7.x shares with the series, the flow key of socketless
# packets (76), the net fixes' cases (30's tso_rtt_log_32, 58's
# max_pacing_rate_raised, 66's change_due_keeps_bands), and the tree's own
# tc-testing fq.json (80-tdc). The tree's fq_band_pktlimit.sh
# (95-tree-selftests) wants the exact clock: CI boots it apart (.ci/run).
# The name says 72: 7.3's sch_fq.c is 7.2's (kernel_is, tests/lib-fq.sh).
FQP_CORE72='^(50-fq-options|52-fq-txtime|58-fq-fastpath|65-fq-highprio|66-fq-bands|76-fq-orphan-hash|80-tdc|85-fq-netlink-fuzz|90-fq-known-bugs):|^30-tso-autosize:tso_rtt_log_32$'
# Cases that fail on stock 7.x by design: they assert what patches/net
# fixes there (a raised SO_MAX_PACING_RATE; tcp_tso_rtt_log >= 32; a
# change trimming bands that are within limit), what the series fixes
# (a change trimming a lowered limit stops at throttled flows) and the
# fast path's test of a socket whose pacing rate the maximum left behind,
# and say so in a NOTE.
FQP_FINDINGS72='^58-fq-fastpath:(fastpath_socket_rate_raised|max_pacing_rate_raised)$|^66-fq-bands:(change_keeps_bands|change_due_keeps_bands)$|^30-tso-autosize:tso_rtt_log_32$'
# ... and on 7.x with the upstream patches: a lowered limit still leaves
# throttled flows over it (the trim dequeues; patches/net stops it only
# from trimming bands within limit).
FQP_FINDINGS_NEXT72='^66-fq-bands:change_keeps_bands$'
export FQP_CORE72 FQP_FINDINGS72 FQP_FINDINGS_NEXT72

# Under KASAN, lockdep and kmemleak a TCG guest runs several times slower:
# the cases that assert rates, delays and the 3 s gc age cannot hold there
# (the sender cannot make its flows within the window), and say nothing
# about memory safety. The debug run keeps every other case.
FQP_TIMING_CASES='^(20-pacing-rate|30-tso-autosize|40-bbr|55-fq-pacing|57-fq-spacing|60-fairness|62-fq-debt|65-fq-highprio|75-fq-gc|92-fq-mq|93-fq-bpf-edt|96-fq-wheel):|^70-fq-limits:(flow_limit|limit_many_flows)$|^58-fq-fastpath:(rates_hold|max_pacing_rate_raised)$|^66-fq-bands:(weights_default|weights_other|gso_small_weight|cilium_mapping)$|^95-tree-selftests:(so_txtime|test_tc_edt|fq_band_pktlimit)$'
# Cases that check answers, not memory: the host's pcap tool, the tree's
# tdc (4 of the debug run's 40 minutes), the option dumps and defaults, the
# refused values of 90-fq-known-bugs (85's fuzzers send them and more) and
# two of 54's four send orders (decreasing, the out-of-order insert, and
# GSO stay), 52's cap and priority answers (its drop of every far txtime
# stays) and 10-sysctl's range answers (87's fuzzer writes them). Bad
# input, reconfiguration under load and the fuzzers stay: they drive the
# parsing and lifetime paths the detectors watch.
FQP_SEMANTIC_CASES='^(15-pcapstat|80-tdc):|^50-fq-options:(defaults|roundtrip|u32_max)$|^90-fq-known-bugs:(quantum_zero_2016_hang|quantum_2pow31_syzbot_2020|initial_quantum_over_int_max_2023)$|^54-fq-txtime-order:(increasing|random)$|^52-fq-txtime:(far_cap|highprio_edt_order)$|^10-sysctl:min_tso_segs_(accepts_range|default|per_netns)$'
# The tree's own selftests judge wall-clock time tightly: so_txtime.sh
# wants each datagram within 4 ms of its time, test_tc_edt.sh the BPF EDT
# rate within 1 % over 20 s. A wall-clock TCG guest on a loaded host woke
# a receiver 18.6 ms late and reached -2.81 % of the rate. They run in a
# second, short boot with the exact clock (guest time = instructions:
# within 0.22 ms and -0.07 %, 80 s with the boot), when the whole suite
# runs (scripts/test.sh with no boot-and-test options). So does 55-fq-pacing's
# fq_rate_gaps (each gap within 20 % of len/rate): on the wall clock it
# failed twice beside another guest (0.36 of the gaps near, unthrottle
# latency 920 us), on the exact clock 1.00 of them, latency 11 us. And
# 96-fq-wheel, whose bounds are instruction counts: only the exact clock
# gives them.
FQP_EXACT_CASES='^95-tree-selftests:(so_txtime|test_tc_edt|fq_band_pktlimit)$|^55-fq-pacing:fq_rate_gaps$|^96-fq-wheel:'
# Cases that need the debug config's fault injection (failslab, debugfs):
# boot-and-test.sh neither runs nor counts them on the other configs.
FQP_DEBUG_ONLY='^94-fq-failslab:'
export FQP_TIMING_CASES FQP_SEMANTIC_CASES FQP_EXACT_CASES FQP_DEBUG_ONLY

# The core a distribution kernel runs (scripts/check-distro.sh: Debian's
# cloud kernel and the series built with its config): the 7.2 core (the
# cases whose semantics differ between kernels, the fast path, bands and
# tc-testing) plus the sysctls, the pacing rate, TSO autosizing, BBR
# (tcp_bbr, a module there) and fq's
# pacing; on the wall clock, without the exact-clock cases, which a
# second, exact boot runs with the tree's selftests (FQP_DISTRO_EXACT).
FQP_DISTRO_CORE="$FQP_CORE72|^(10-sysctl|20-pacing-rate|30-tso-autosize|40-bbr|55-fq-pacing|70-fq-limits):"
FQP_DISTRO_EXACT='^95-tree-selftests:(so_txtime|test_tc_edt)$|^55-fq-pacing:fq_rate_gaps$'
export FQP_DISTRO_CORE FQP_DISTRO_EXACT
