// SPDX-License-Identifier: GPL-2.0
/*
 * udpflows: UDP traffic for the sch_fq cases.
 *
 * Send mode spreads COUNT packets (or SECS seconds of them) round-robin over
 * FLOWS destination ports PORT..PORT+FLOWS-1, at a total payload RATE:
 *   - default: one unconnected socket and sendto(). sch_fq classifies such
 *     sockets (sk_state TCP_CLOSE) by packet hash & orphan_mask, so every
 *     destination port becomes its own fq flow (up to orphan_mask+1 flows)
 *     without needing thousands of file descriptors;
 *   - -C: one connected socket per port, so fq sees one flow per socket.
 * -B sets SO_SNDBUF instead (a small buffer blocks the sender while its
 * packets wait in the qdisc: a backlogged flow that loses nothing).
 * -P sets SO_PRIORITY on every packet, -H N sends every Nth packet with
 * SO_PRIORITY 7 (TC_PRIO_CONTROL, fq's high-priority queue), -m sets
 * SO_MAX_PACING_RATE (-U then raises it back to ~0, unlimited, and -M RATE
 * to RATE: up to 7.3 that leaves the socket's pacing rate where -m put
 * it, see 58-fq-fastpath) and -T N sets SO_TXTIME
 * so that packet i leaves no earlier than start + i*N us (CLOCK_MONOTONIC).
 * Every payload starts with a header carrying CLOCK_MONOTONIC at send time;
 * network namespaces share that clock, so the receiver measures one-way
 * delay. The summary line counts only packets the kernel accepted (a qdisc
 * drop is not reported to an unconnected UDP sender, so sent = offered to
 * the qdisc).
 *
 * Receive mode (-R) binds PORT..PORT+FLOWS-1 and prints, per class (0 =
 * normal, 1 = the -H packets), the count and one-way delay percentiles.
 * It stops after SECS, after COUNT packets, or IDLE ms without packets once
 * something arrived. With -w SKIP,LEN (ms) it also prints, per port, the
 * bytes that arrived in the window [first + SKIP, first + SKIP + LEN), first
 * being the first packet's arrival: a share measured while every sender is
 * running, whatever their start and stop times.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/net_tstamp.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "fqp-net.h"

#ifndef SO_TXTIME
#define SO_TXTIME 61
#define SCM_TXTIME SO_TXTIME
#endif

#define MAGIC 0x66717031u /* "fqp1" */
#define MAXFLOWS 65536

struct hdr {
	uint32_t magic;
	uint32_t cls;
	uint64_t seq;
	uint64_t ts_ns;
};

/* -U: raise SO_MAX_PACING_RATE back to unlimited after -m lowered it;
 * -M RATE: to RATE (bit/s) instead.
 */
static int max_raise;
static double max_raise_to;

static void usage(void)
{
	fprintf(stderr,
		"usage: udpflows -d ADDR [-p PORT] [-n FLOWS] [-C] [-c COUNT] [-t SECS]\n"
		"                [-r RATE] [-l LEN] [-P PRIO] [-H N] [-m RATE [-U|-M RATE]] [-T US] [-B BYTES]\n"
		"       udpflows -R [-6] [-p PORT] [-n FLOWS] [-c COUNT] [-t SECS] [-i IDLE_MS]\n"
		"                [-w SKIP_MS,LEN_MS]\n"
		"RATE in bit/s with optional k/m/g suffix; 0 = as fast as possible\n");
	exit(2);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void setprio(int fd, int prio)
{
	if (setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &prio, sizeof(prio)))
		die("SO_PRIORITY");
}

/* One socket, with a send buffer big enough that a full qdisc never blocks
 * the sender (the cases want the qdisc, not the socket, to decide drops).
 */
static int mksock(int family, int prio, double maxrate, int txtime, int sndbuf)
{
	int fd = socket(family, SOCK_DGRAM, 0), buf = sndbuf ? sndbuf : 32 << 20;

	if (fd < 0)
		die("socket");
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &buf, sizeof(buf)))
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	if (prio)
		setprio(fd, prio);
	if (maxrate > 0) {
		/* SO_MAX_PACING_RATE is in bytes per second */
		unsigned long r = (unsigned long)(maxrate / 8);

		if (setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &r, sizeof(r)))
			die("SO_MAX_PACING_RATE");
		r = max_raise_to > 0 ? (unsigned long)(max_raise_to / 8) : ~0UL;
		if (max_raise &&
		    setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &r, sizeof(r)))
			die("SO_MAX_PACING_RATE (raise)");
	}
	if (txtime) {
		struct sock_txtime st = { .clockid = CLOCK_MONOTONIC };

		if (setsockopt(fd, SOL_SOCKET, SO_TXTIME, &st, sizeof(st)))
			die("SO_TXTIME");
	}
	return fd;
}

static int do_send(const char *addr, int port, int nflows, int conn,
		   unsigned long count, double secs, double rate, int len,
		   int prio, int hp_every, double maxrate, long txtime_us,
		   int sndbuf)
{
	struct sockaddr_storage ss[1];
	socklen_t sl = mkaddr(ss, addr, port);
	int family = ss->ss_family, nsock = conn ? nflows : 1;
	unsigned long sent = 0, hp = 0, errs = 0, i;
	int *fds = calloc(nsock, sizeof(int));
	char *buf = calloc(1, len);	/* len >= sizeof(struct hdr), see main() */
	uint64_t t0, gap_ns = 0, deadline;
	struct rlimit rl;
	int f;

	if (!fds || !buf)
		die("calloc");
	if (conn) {
		/* one fd per flow: raise the soft limit to the hard one */
		if (!getrlimit(RLIMIT_NOFILE, &rl)) {
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
	}
	for (f = 0; f < nsock; f++) {
		fds[f] = mksock(family, prio, maxrate, txtime_us > 0, sndbuf);
		if (conn) {
			mkaddr(ss, addr, port + f);
			if (connect(fds[f], (struct sockaddr *)ss, sl))
				die("connect");
		}
	}
	if (rate > 0)
		gap_ns = (uint64_t)(len * 8 * 1e9 / rate);
	t0 = now_ns();
	deadline = secs > 0 ? t0 + (uint64_t)(secs * 1e9) : UINT64_MAX;
	for (i = 0; (!count || i < count); i++) {
		struct hdr *h = (struct hdr *)buf;
		char cbuf[CMSG_SPACE(sizeof(uint64_t))];
		struct iovec iov = { buf, len };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
		int fl = i % nflows, fd = fds[conn ? fl : 0];
		int is_hp = hp_every && i % hp_every == (unsigned long)hp_every - 1;
		uint64_t now = now_ns();

		if (now >= deadline)
			break;
		if (gap_ns && t0 + i * gap_ns > now) {
			uint64_t due = t0 + i * gap_ns;
			struct timespec ts = { due / 1000000000ull, due % 1000000000ull };

			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		}
		if (!conn) {
			mkaddr(ss, addr, port + fl);
			m.msg_name = ss;
			m.msg_namelen = sl;
		}
		if (txtime_us > 0)
			put_txtime(&m, cbuf, sizeof(cbuf),
				   t0 + i * (uint64_t)txtime_us * 1000);
		h->magic = MAGIC;
		h->cls = is_hp;
		h->seq = i;
		h->ts_ns = now_ns();
		if (is_hp)
			setprio(fd, 7);
		if (sendmsg(fd, &m, 0) < 0)
			errs++;	/* e.g. ECONNREFUSED after an ICMP error */
		else {
			sent++;
			hp += is_hp;
		}
		if (is_hp)
			setprio(fd, prio);
	}
	printf("sent=%lu hp=%lu bytes=%lu errors=%lu secs=%.3f\n", sent, hp,
	       sent * len, errs, (now_ns() - t0) / 1e9);
	return 0;
}

struct cls {
	uint64_t *d;
	unsigned long n, cap;
};

static void add_sample(struct cls *c, uint64_t v)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 4096;
		c->d = realloc(c->d, c->cap * sizeof(*c->d));
		if (!c->d)
			die("realloc");
	}
	c->d[c->n++] = v;
}

static uint64_t pct(struct cls *c, double p)
{
	unsigned long i = (unsigned long)(p / 100 * (c->n - 1) + 0.5);

	return c->n ? c->d[i] : 0;
}

static int do_recv(int v6, int port, int nflows, unsigned long count,
		   double secs, int idle_ms, long win_skip, long win_len)
{
	struct pollfd *pfd = calloc(nflows, sizeof(*pfd));
	uint64_t *wbytes = calloc(nflows, sizeof(*wbytes)), first = 0;
	unsigned long *wpkts = calloc(nflows, sizeof(*wpkts));
	struct cls cls[2] = { { 0 } };
	unsigned long rx = 0, bytes = 0, bad = 0;
	uint64_t t0 = now_ns(), last = 0;
	static char buf[65536];
	int f, k;

	if (!pfd || !wbytes || !wpkts)
		die("calloc");
	for (f = 0; f < nflows; f++) {
		struct sockaddr_storage ss;
		socklen_t sl = mkaddr(&ss, v6 ? "::" : "0.0.0.0", port + f);
		int fd = socket(ss.ss_family, SOCK_DGRAM, 0), b = 8 << 20;

		if (fd < 0 || bind(fd, (struct sockaddr *)&ss, sl))
			die("bind");
		setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &b, sizeof(b));
		pfd[f].fd = fd;
		pfd[f].events = POLLIN;
	}
	for (;;) {
		uint64_t now = now_ns();

		if ((count && rx >= count) || (secs > 0 && now - t0 >= secs * 1e9) ||
		    (rx && idle_ms && now - last >= idle_ms * 1000000ull))
			break;
		if (poll(pfd, nflows, 20) < 0 && errno != EINTR)
			die("poll");
		for (f = 0; f < nflows; f++) {
			if (!(pfd[f].revents & POLLIN))
				continue;
			for (;;) {
				ssize_t n = recv(pfd[f].fd, buf, sizeof(buf), MSG_DONTWAIT);
				struct hdr h;

				if (n < 0)
					break;
				last = now_ns();
				rx++;
				bytes += n;
				if (!first)
					first = last;
				if (win_len > 0 &&
				    last >= first + win_skip * 1000000ull &&
				    last < first + (win_skip + win_len) * 1000000ull) {
					wbytes[f] += n;
					wpkts[f]++;
				}
				memcpy(&h, buf, sizeof(h));
				if (n < (ssize_t)sizeof(h) || h.magic != MAGIC || h.cls > 1) {
					bad++;
					continue;
				}
				add_sample(&cls[h.cls], last - h.ts_ns);
			}
		}
	}
	printf("rx=%lu bytes=%lu bad=%lu\n", rx, bytes, bad);
	for (f = 0; win_len > 0 && f < nflows; f++)
		printf("port=%d win_bytes=%llu win_pkts=%lu\n", port + f,
		       (unsigned long long)wbytes[f], wpkts[f]);
	for (k = 0; k < 2; k++) {
		struct cls *c = &cls[k];

		qsort(c->d, c->n, sizeof(*c->d), cmp_u64);
		printf("class%d n=%lu p50_us=%llu p90_us=%llu p99_us=%llu max_us=%llu\n", k, c->n,
		       (unsigned long long)pct(c, 50) / 1000,
		       (unsigned long long)pct(c, 90) / 1000,
		       (unsigned long long)pct(c, 99) / 1000,
		       (unsigned long long)pct(c, 100) / 1000);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *addr = NULL;
	int port = 9000, nflows = 1, conn = 0, len = 1000, prio = 0, hp = 0;
	int recv_mode = 0, v6 = 0, idle = 0, sndbuf = 0, opt;
	unsigned long count = 0;
	double secs = 0, rate = 0, maxrate = 0;
	long txtime = 0, win_skip = 0, win_len = 0;

	while ((opt = getopt(argc, argv, "d:p:n:Cc:t:r:l:P:H:m:UM:T:R6i:B:w:")) != -1) {
		switch (opt) {
		case 'd': addr = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'n': nflows = atoi(optarg); break;
		case 'C': conn = 1; break;
		case 'c': count = strtoul(optarg, NULL, 0); break;
		case 't': secs = atof(optarg); break;
		case 'r': rate = parse_rate(optarg); if (rate < 0) usage(); break;
		case 'l': len = atoi(optarg); break;
		case 'P': prio = atoi(optarg); break;
		case 'H': hp = atoi(optarg); break;
		case 'm': maxrate = parse_rate(optarg); if (maxrate < 0) usage(); break;
		case 'U': max_raise = 1; break;
		case 'M':
			max_raise = 1;
			max_raise_to = parse_rate(optarg);
			if (max_raise_to <= 0)
				usage();
			break;
		case 'T': txtime = atol(optarg); break;
		case 'R': recv_mode = 1; break;
		case '6': v6 = 1; break;
		case 'i': idle = atoi(optarg); break;
		case 'B': sndbuf = atoi(optarg); break;
		case 'w':
			if (sscanf(optarg, "%ld,%ld", &win_skip, &win_len) != 2 ||
			    win_skip < 0 || win_len <= 0)
				usage();
			break;
		default: usage();
		}
	}
	if (nflows < 1 || nflows > MAXFLOWS || port < 1 || port + nflows > 65536 ||
	    len < (int)sizeof(struct hdr) || len > 65000 || hp < 0 || sndbuf < 0)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (recv_mode)
		return do_recv(v6, port, nflows, count, secs, idle, win_skip,
			       win_len);
	if (!addr || (!count && secs <= 0))
		usage();
	return do_send(addr, port, nflows, conn, count, secs, rate, len, prio,
		       hp, maxrate, txtime, sndbuf);
}
