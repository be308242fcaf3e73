// SPDX-License-Identifier: GPL-2.0
/*
 * pacedflows: many slow UDP flows paced by the qdisc, and how late they leave.
 *
 *   pacedflows -d ADDR [-s SRC] [-p PORT] [-n FLOWS] [-r RATE] [-l LEN] [-t SECS]
 *   pacedflows -R [-p PORT] [-r RATE] [-l LEN] [-t SECS] [-w WARMUP] [-x EXTRA]
 *              [-q FILE]
 *
 * Send mode opens FLOWS connected UDP sockets to ADDR:PORT, each with
 * SO_MAX_PACING_RATE = RATE (bit/s, k/m/g suffix) and a send buffer of a few
 * packets, and keeps every socket's buffer full for SECS seconds (epoll,
 * edge-triggered EPOLLOUT), so that fq always has a packet waiting for each
 * flow and the departures are set by fq's pacing alone. With -s SRC, socket
 * i is bound to the IPv4 address SRC + i / 60000 (one source port per socket:
 * more than ~64k flows need more source addresses, all on the sender).
 *
 * Receive mode takes the kernel's receive timestamp (SO_TIMESTAMPNS) of
 * every packet; over veth that is taken as the packet leaves the sender's
 * qdisc. For each flow (source port) after WARMUP seconds it compares the
 * gap since the flow's previous packet with the gap pacing asks for,
 * (LEN + 42 bytes of UDP/IPv4/Ethernet headers, what fq charges) / RATE,
 * and prints the lateness (gap - ideal, signed, microseconds) percentiles:
 *
 *   close_flows= packets= flows= gaps= ideal_us= late_p50_us= late_p90_us=
 *   late_p99_us= late_p999_us= early_gaps= long_gaps= late_p50_ns= late_p99_ns=
 *
 * close_flows counts the flows whose departure grid (the last departure
 * modulo the ideal gap) lies within 10 us of another flow's: such flows
 * fall due within one timer slack and leave on one wakeup.
 *
 * Flows are told apart by source port and the low 3 bits of the source
 * address. -x EXTRA keeps receiving, uncounted, EXTRA seconds after SECS
 * (the benchmark profiles the guest then). -q FILE writes the lateness CDF: "fraction lateness_ns", 1001
 * lines (every 0.1 %).
 *
 * early_gaps counts gaps shorter than half the ideal one (a pacing bug, or
 * catch-up after a late packet), long_gaps those over twice (a flow that
 * found its queue empty, or a drop).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "fqp-net.h"

#ifndef SO_MAX_PACING_RATE
#define SO_MAX_PACING_RATE 47
#endif

#define HDR_BYTES 42 /* Ethernet 14 + IPv4 20 + UDP 8 */
#define BATCH 64

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: pacedflows -d ADDR [-s SRC] [-p PORT] [-n FLOWS] [-r RATE] [-l LEN] [-t SECS]\n"
		"       pacedflows -R [-p PORT] [-r RATE] [-l LEN] [-t SECS] [-w WARMUP] [-x EXTRA]\n"
		"                  [-q FILE]\n");
	exit(2);
}

#define FLOWS_PER_SRC 60000
#define SRC_KEYS 8

static int sender(const char *addr, const char *src, int port, int nflows,
		  double rate, int len, double secs)
{
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct epoll_event ev, evs[BATCH];
	unsigned long long sent = 0, eagain = 0, refused = 0;
	struct rlimit rl;
	char *buf;
	int ep, i;
	double end;

	if (inet_pton(AF_INET, addr, &dst.sin_addr) != 1)
		usage();
	if (src && inet_pton(AF_INET, src, &sa.sin_addr) != 1)
		usage();
	if (!src && nflows > FLOWS_PER_SRC)
		usage();
	rl.rlim_cur = rl.rlim_max = nflows + 64;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		die("setrlimit");
	buf = calloc(1, len);
	ep = epoll_create1(0);
	if (!buf || ep < 0)
		die("setup");
	for (i = 0; i < nflows; i++) {
		unsigned long pr = rate / 8;
		int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
		int sb = 2 * (len + 512);

		if (fd < 0)
			die("socket");
		/* A few packets of buffer: enough that fq never waits for us,
		 * little enough that 10k flows fit fq's limit.
		 */
		if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sb, sizeof(sb)) ||
		    setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &pr, sizeof(pr)))
			die("setsockopt");
		if (src) {
			struct sockaddr_in b = sa;

			b.sin_addr.s_addr = htonl(ntohl(sa.sin_addr.s_addr) +
						  i / FLOWS_PER_SRC);
			if (bind(fd, (struct sockaddr *)&b, sizeof(b)))
				die("bind");
		}
		if (connect(fd, (struct sockaddr *)&dst, sizeof(dst)))
			die("connect");
		ev.events = EPOLLOUT | EPOLLET;
		ev.data.fd = fd;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev))
			die("epoll_ctl");
	}
	end = now_s() + secs;
	while (now_s() < end) {
		int n = epoll_wait(ep, evs, BATCH, 100);

		for (i = 0; i < n; i++) {
			for (;;) {
				if (send(evs[i].data.fd, buf, len, 0) == len) {
					sent++;
					continue;
				}
				if (errno == EAGAIN || errno == ENOBUFS)
					eagain++;
				else if (errno == ECONNREFUSED)
					refused++; /* the receiver has finished */
				else
					die("send");
				break;
			}
		}
	}
	printf("sent=%llu flows=%d eagain=%llu refused=%llu\n", sent, nflows, eagain, refused);
	return 0;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

static int receiver(int port, double rate, int len, double secs, double warmup,
		    double extra, const char *cdf)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	static long long last[SRC_KEYS * 65536];
	struct mmsghdr msgs[BATCH];
	struct sockaddr_in from[BATCH];
	struct iovec iov[BATCH];
	char cbuf[BATCH][64];
	static char data[BATCH][2048];
	long long ideal = (long long)((len + HDR_BYTES) * 8e9 / rate);
	long long *late = NULL, t_warm, t_end;
	size_t nlate = 0, cap = 0;
	unsigned long long packets = 0, early = 0, longg = 0;
	unsigned int flows = 0;
	struct timeval tv = { .tv_usec = 200000 };
	int fd, on = 1, rb = 32 << 20, i;
	double start;

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		die("socket");
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rb, sizeof(rb));
	if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
		die("setsockopt");
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)))
		die("bind");
	for (i = 0; i < BATCH; i++) {
		iov[i].iov_base = data[i];
		iov[i].iov_len = sizeof(data[i]);
	}
	start = now_s();
	t_warm = (long long)((start + warmup) * 1e9);
	t_end = (long long)((start + secs) * 1e9);
	/* -x: keep taking packets, uncounted, for a profile after the window. */
	while (now_s() < start + secs + extra) {
		int n;

		for (i = 0; i < BATCH; i++) {
			memset(&msgs[i], 0, sizeof(msgs[i]));
			msgs[i].msg_hdr.msg_name = &from[i];
			msgs[i].msg_hdr.msg_namelen = sizeof(from[i]);
			msgs[i].msg_hdr.msg_iov = &iov[i];
			msgs[i].msg_hdr.msg_iovlen = 1;
			msgs[i].msg_hdr.msg_control = cbuf[i];
			msgs[i].msg_hdr.msg_controllen = sizeof(cbuf[i]);
		}
		n = recvmmsg(fd, msgs, BATCH, 0, NULL);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			die("recvmmsg");
		}
		for (i = 0; i < n; i++) {
			struct cmsghdr *c;
			long long t = 0;
			unsigned int sp = ntohs(from[i].sin_port) |
				(ntohl(from[i].sin_addr.s_addr) % SRC_KEYS) << 16;

			for (c = CMSG_FIRSTHDR(&msgs[i].msg_hdr); c;
			     c = CMSG_NXTHDR(&msgs[i].msg_hdr, c)) {
				if (c->cmsg_level == SOL_SOCKET &&
				    c->cmsg_type == SCM_TIMESTAMPNS) {
					struct timespec ts;

					memcpy(&ts, CMSG_DATA(c), sizeof(ts));
					t = ts.tv_sec * 1000000000ll + ts.tv_nsec;
				}
			}
			if (!t || (long long)(now_s() * 1e9) > t_end)
				continue;
			/* SO_TIMESTAMPNS is CLOCK_REALTIME; only gaps matter. */
			packets++;
			if (!last[sp])
				flows++;
			if (last[sp] && (long long)(now_s() * 1e9) >= t_warm &&
			    (long long)(now_s() * 1e9) <= t_end) {
				long long gap = t - last[sp];

				if (nlate == cap) {
					cap = cap ? 2 * cap : 65536;
					late = realloc(late, cap * sizeof(*late));
					if (!late)
						die("realloc");
				}
				late[nlate++] = gap - ideal;
				if (gap < ideal / 2)
					early++;
				else if (gap > 2 * ideal)
					longg++;
			}
			last[sp] = t;
		}
	}
	if (!nlate) {
		printf("packets=%llu flows=%u gaps=0\n", packets, flows);
		return 1;
	}
	{
		/* Phases of the flows' departure grids, from each flow's last
		 * departure: flows within 10 us of another are released
		 * together by one watchdog.
		 */
		long long *ph = malloc(sizeof(*ph) * (flows + 1));
		unsigned int np = 0, close = 0, k;

		if (!ph)
			die("malloc");
		for (k = 0; k < SRC_KEYS * 65536 && np < flows; k++)
			if (last[k])
				ph[np++] = last[k] % ideal;
		qsort(ph, np, sizeof(*ph), cmp_ll);
		for (k = 0; k < np; k++) {
			long long prev = k ? ph[k - 1] : ph[np - 1] - ideal;
			long long next = k + 1 < np ? ph[k + 1] : ph[0] + ideal;

			if (ph[k] - prev < 10000 || next - ph[k] < 10000)
				close++;
		}
		printf("close_flows=%u ", close);
		free(ph);
	}
	qsort(late, nlate, sizeof(*late), cmp_ll);
#define PCT(p) (late[(size_t)((nlate - 1) * (p))] / 1000)
	printf("packets=%llu flows=%u gaps=%zu ideal_us=%lld late_p50_us=%lld late_p90_us=%lld "
	       "late_p99_us=%lld late_p999_us=%lld early_gaps=%llu long_gaps=%llu "
	       "late_p50_ns=%lld late_p99_ns=%lld\n",
	       packets, flows, nlate, ideal / 1000, PCT(0.5), PCT(0.9), PCT(0.99),
	       PCT(0.999), early, longg, late[(size_t)((nlate - 1) * 0.5)],
	       late[(size_t)((nlate - 1) * 0.99)]);
	if (cdf) {
		FILE *f = fopen(cdf, "w");

		if (!f)
			die(cdf);
		for (i = 0; i <= 1000; i++)
			fprintf(f, "%.3f %lld\n", i / 1000.0,
				late[(size_t)((nlate - 1) * (i / 1000.0))]);
		fclose(f);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *src = NULL, *cdf = NULL;
	int port = 7000, nflows = 1000, len = 1000, recv_mode = 0, c;
	double rate = 10e3, secs = 10, warmup = 3, extra = 0;

	while ((c = getopt(argc, argv, "d:s:p:n:r:l:t:w:x:q:R")) != -1) {
		switch (c) {
		case 'd': addr = optarg; break;
		case 's': src = optarg; break;
		case 'q': cdf = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'n': nflows = atoi(optarg); break;
		case 'r': rate = parse_rate(optarg); break;
		case 'l': len = atoi(optarg); break;
		case 't': secs = atof(optarg); break;
		case 'w': warmup = atof(optarg); break;
		case 'x': extra = atof(optarg); break;
		case 'R': recv_mode = 1; break;
		default: usage();
		}
	}
	if (len < 1 || len > 1472 || rate <= 0 || nflows < 1 ||
	    nflows > SRC_KEYS * FLOWS_PER_SRC || extra < 0)
		usage();
	if (recv_mode)
		return receiver(port, rate, len, secs, warmup, extra, cdf);
	if (!addr)
		usage();
	return sender(addr, src, port, nflows, rate, len, secs);
}
