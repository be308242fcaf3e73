# shellcheck shell=bash
# net.ipv4.tcp_min_tso_segs: per-netns u8 in 1..255, default 2.
CASE_TIMEOUT=60

# A new network namespace has tcp_min_tso_segs 2.
t_min_tso_segs_default() {
	ip netns add a
	v=$(nsysctl a net.ipv4.tcp_min_tso_segs)
	[ "$v" = 2 ] || fail "tcp_min_tso_segs in a new netns is '$v', want 2"
}

# 1, 255 and 44 are accepted and read back as written.
t_min_tso_segs_accepts_range() {
	ip netns add a
	for v in 1 255 44; do
		ip netns exec a sysctl -qw net.ipv4.tcp_min_tso_segs="$v" ||
			fail "writing $v was rejected"
		got=$(nsysctl a net.ipv4.tcp_min_tso_segs)
		[ "$got" = "$v" ] || fail "wrote $v, read back $got"
	done
}

# 0, 256, -1, abc and 1000, written through /proc, are EINVAL and leave
# the value (7) as it was.
t_min_tso_segs_rejects_bad() {
	ip netns add a
	ip netns exec a sysctl -qw net.ipv4.tcp_min_tso_segs=7
	for v in 0 256 -1 abc 1000; do
		# Write through /proc directly: the errno is what userspace sees.
		err=$(procwrite a /proc/sys/net/ipv4/tcp_min_tso_segs "$v")
		[ "$err" = EINVAL ] || fail "writing '$v' gave $err, want EINVAL"
		got=$(nsysctl a net.ipv4.tcp_min_tso_segs)
		[ "$got" = 7 ] || fail "after rejected '$v' the value is $got, want 7 unchanged"
	done
}

# A write in one namespace changes neither another namespace nor init_net.
t_min_tso_segs_per_netns() {
	ip netns add a
	ip netns add b
	ip netns exec a sysctl -qw net.ipv4.tcp_min_tso_segs=9
	[ "$(nsysctl b net.ipv4.tcp_min_tso_segs)" = 2 ] || fail "netns a's write leaked into b"
	[ "$(sysctl -n net.ipv4.tcp_min_tso_segs)" = 2 ] || fail "netns a's write leaked into init_net"
	[ "$(nsysctl a net.ipv4.tcp_min_tso_segs)" = 9 ] || fail "netns a lost its value"
}
