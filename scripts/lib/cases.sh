# shellcheck shell=bash
# Named lists of guest cases (boot-and-test.sh --filter/--exclude regexes,
# "FILE:CASE" names) that more than one script selects: the debug kernel's
# core, the 7.2 kernels' core in CI and the cases that fail on 7.2 by
# design.

# The debug kernel's core cases (bad input, reconfiguration under load, the
# fuzzers, concurrency, the known bugs, fault injection): what CI's debug
# stage always runs. With --debug-next, scripts/test.sh leaves them to it.
FQP_DEBUG_CORE='^50-fq-options:(bad_input|bad_input_atomic|limit_lowered_full|replace_delete_under_load)$|^66-fq-bands:(bad_input_atomic|band_limit|reset_clears_band_counters)$|^(72-fq-limit-peeked|85-fq-netlink-fuzz|86-fq-churn|87-sysctl-fuzz|89-fq-concurrency|94-fq-failslab):|^90-fq-known-bugs:(huge_mtu_default_quantum|reset_with_backlog|tbf_limit0_sfq_graft_cve_2025_39677)$'
export FQP_DEBUG_CORE

# The 7.2 kernels' core in CI (stock 7.2, and 7.2 with the upstream
# patches): the cases whose semantics differ between the kernels (each
# asserts the booted kernel's), the fast path and bands that 7.2 shares
# with the series, the flow key of socketless packets (76), the
# tcp_tso_rtt_log bound (30's tso_rtt_log_32), and 7.2's own tc-testing
# fq.json (80-tdc). 7.2's fq_band_pktlimit.sh (95-tree-selftests) wants
# the exact clock: CI boots it apart (.ci/run).
FQP_CORE72='^(50-fq-options|52-fq-txtime|58-fq-fastpath|65-fq-highprio|66-fq-bands|76-fq-orphan-hash|80-tdc|85-fq-netlink-fuzz|90-fq-known-bugs):|^30-tso-autosize:tso_rtt_log_32$'
# Cases that fail on stock 7.2 by design: they assert what the series and
# the upstream patches fix there (the fast path and a socket's own pacing
# rate; tcp_tso_rtt_log >= 32; a change trimming every band to a lowered
# limit), and say so in a NOTE.
FQP_FINDINGS72='^58-fq-fastpath:fastpath_socket_rate_raised$|^66-fq-bands:change_keeps_bands$|^30-tso-autosize:tso_rtt_log_32$'
# ... and on 7.2 with the upstream patches: the trim is not among them.
FQP_FINDINGS_NEXT72='^66-fq-bands:change_keeps_bands$'
export FQP_CORE72 FQP_FINDINGS72 FQP_FINDINGS_NEXT72
