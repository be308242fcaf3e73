// SPDX-License-Identifier: GPL-2.0
/*
 * txtime: UDP datagrams with chosen SO_TXTIME departure times, for the
 * sch_fq horizon and high-priority cases (52-fq-txtime).
 *
 * Send mode: one unconnected SOCK_DGRAM socket with SO_TXTIME
 * (CLOCK_MONOTONIC, which needs no privilege), optional SO_PRIORITY (-P),
 * sends one datagram per TIME argument, in the order given, datagram i to
 * port PORT+i (-s: all to PORT). A TIME is an absolute u64 (0x... or
 * decimal: 0x8000000000000000, 0xffffffffffffffff), or +US / -US relative
 * to the moment of sending, in microseconds. Each TIME may be repeated
 * with -r. Prints one line per datagram (i, port, txtime) and a summary.
 * -L N first sends N lead datagrams of 1400 bytes from a second socket with
 * priority 0 and no txtime (ports PORT..PORT+N-1; the timed ones follow).
 * -u first reports whether this process may set SO_PRIORITY 7 (which
 * needs CAP_NET_ADMIN over the socket's netns): prio7=ok or prio7=EPERM.
 * -G SIZE sets UDP_SEGMENT (UDP GSO) to SIZE: each LEN-byte send (LEN a
 * multiple of SIZE, up to 64 segments) leaves the socket as one GSO packet
 * that is cut into LEN/SIZE datagrams of SIZE bytes, each starting with its
 * own header (same i and txtime, its segment number). The tx lines then end
 * in gso=SIZE segs=N. If the socket refuses UDP_SEGMENT, it prints
 * gso_error=ERRNO and exits 3.
 *
 * Receive mode (-R): binds PORT..PORT+N-1 and prints one line per
 * datagram in arrival order (port, i, txtime, sent_ns, arrive_ns, delay_ns
 * = arrive - sent; CLOCK_MONOTONIC is shared by network namespaces), until
 * COUNT datagrams (-c) or WAIT ms without one (-w); a segment of a -G send
 * adds seg= and nsegs= to its line. Summary: rx=, early= (arrived before
 * their txtime), min and max delay.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <linux/net_tstamp.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "fqp-net.h"

#ifndef SO_TXTIME
#define SO_TXTIME 61
#define SCM_TXTIME SO_TXTIME
#endif

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif

#define MAGIC 0x66717474u /* "fqtt" */
#define MAXN 256
#define MAXLEN 2048		/* without -G */
#define MAXGSOLEN 65000		/* with -G */
#define MAXSEGS 64		/* UDP_MAX_SEGMENTS */

struct payload {
	uint32_t magic;
	uint32_t idx;
	uint64_t txtime;
	uint64_t sent_ns;
	uint32_t seg;		/* -G: segment number in its send */
	uint32_t nsegs;		/* -G: segments in its send; 0 without -G */
};

static void usage(void)
{
	fprintf(stderr,
		"usage: txtime -d ADDR [-p PORT] [-s] [-P PRIO] [-l LEN] [-r REPEAT] [-L N] [-u]\n"
		"              [-G SIZE] [--] TIME...\n"
		"       txtime -R [-p PORT] [-n PORTS] [-c COUNT] [-w WAIT_MS]\n"
		"TIME: absolute u64 ns (CLOCK_MONOTONIC; 0x... allowed) or +US/-US from now\n");
	exit(2);
}

struct when {
	int rel;		/* relative to now, in ns */
	int64_t rel_ns;
	uint64_t abs;
};

static struct when parse_when(const char *s)
{
	struct when w = { 0 };
	char *end;

	errno = 0;
	if (*s == '+' || *s == '-') {
		w.rel = 1;
		w.rel_ns = strtoll(s, &end, 10) * 1000;
	} else {
		w.abs = strtoull(s, &end, 0);
	}
	if (errno || *end || end == s)
		usage();
	return w;
}

/* -L: N datagrams of 1400 bytes, priority 0, no txtime, to PORT.. */
static void send_lead(const char *addr, int port, int single, int n)
{
	static char buf[1400];
	struct payload *pl = (struct payload *)buf;
	struct sockaddr_storage ss;
	socklen_t sl = mkaddr(&ss, addr, port);
	int fd = socket(ss.ss_family, SOCK_DGRAM, 0), i;

	if (fd < 0)
		die("socket");
	for (i = 0; i < n; i++) {
		int dport = single ? port : port + i;

		sl = mkaddr(&ss, addr, dport);
		pl->magic = MAGIC;
		pl->idx = i;
		pl->txtime = 0;
		pl->sent_ns = now_ns();
		if (sendto(fd, buf, sizeof(buf), 0, (struct sockaddr *)&ss, sl) < 0)
			die("sendto");
		printf("lead i=%d port=%d len=%zu\n", i, dport, sizeof(buf));
	}
	close(fd);
}

/* -G: a header at the start of every SIZE-byte segment of the send */
static void fill_segments(char *buf, int len, int gso, uint32_t idx, uint64_t t,
			  uint64_t now)
{
	int nsegs = gso ? len / gso : 1, k;

	for (k = 0; k < nsegs; k++) {
		struct payload *pl = (struct payload *)(buf + k * gso);

		pl->magic = MAGIC;
		pl->idx = idx;
		pl->txtime = t;
		pl->sent_ns = now;
		pl->seg = k;
		pl->nsegs = gso ? nsegs : 0;
	}
}

static int do_send(const char *addr, int port, int single, int prio, int len,
		   int repeat, int privcheck, int lead, int gso, int nt, char **tv)
{
	struct sock_txtime st = { .clockid = CLOCK_MONOTONIC };
	struct sockaddr_storage ss;
	socklen_t sl = mkaddr(&ss, addr, port);
	int fd = socket(ss.ss_family, SOCK_DGRAM, 0), i, k, n = lead, errs = 0;
	static char buf[MAXGSOLEN];

	if (fd < 0)
		die("socket");
	if (privcheck) {
		int p7 = 7, p0 = 0;

		if (setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &p7, sizeof(p7)) == 0) {
			printf("prio7=ok\n");
			setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &p0, sizeof(p0));
		} else {
			printf("prio7=%s\n", strerrorname_np(errno) ? strerrorname_np(errno) : "?");
		}
	}
	if (prio && setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &prio, sizeof(prio)))
		die("SO_PRIORITY");
	if (setsockopt(fd, SOL_SOCKET, SO_TXTIME, &st, sizeof(st)))
		die("SO_TXTIME");
	if (gso && setsockopt(fd, SOL_UDP, UDP_SEGMENT, &gso, sizeof(gso))) {
		printf("gso_error=%s\n", strerrorname_np(errno) ? strerrorname_np(errno) : "?");
		exit(3);
	}
	memset(buf, 0x5a, sizeof(buf));
	send_lead(addr, port, single, lead);
	for (i = 0; i < nt; i++) {
		struct when w = parse_when(tv[i]);

		for (k = 0; k < repeat; k++, n++) {
			char cbuf[CMSG_SPACE(sizeof(uint64_t))] = { 0 };
			struct iovec iov = { buf, len };
			struct msghdr m = { .msg_name = &ss, .msg_namelen = sl,
					    .msg_iov = &iov, .msg_iovlen = 1,
					    .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
			struct cmsghdr *c = CMSG_FIRSTHDR(&m);
			uint64_t now = now_ns(), t = w.rel ? now + w.rel_ns : w.abs;
			int dport = single ? port : port + n;

			mkaddr(&ss, addr, dport);
			c->cmsg_level = SOL_SOCKET;
			c->cmsg_type = SCM_TXTIME;
			c->cmsg_len = CMSG_LEN(sizeof(t));
			memcpy(CMSG_DATA(c), &t, sizeof(t));
			fill_segments(buf, len, gso, n, t, now);
			if (sendmsg(fd, &m, 0) < 0) {
				printf("tx i=%d port=%d txtime=0x%016" PRIx64 " error=%s\n", n, dport, t,
				       strerror(errno));
				errs++;
				continue;
			}
			printf("tx i=%d port=%d txtime=0x%016" PRIx64 " rel_ns=%" PRId64, n, dport,
			       t, (int64_t)(t - now));
			if (gso)
				printf(" gso=%d segs=%d", gso, len / gso);
			printf("\n");
		}
	}
	printf("sent=%d errors=%d lead=%d uid=%d\n", n - lead - errs, errs, lead, (int)getuid());
	close(fd);
	return errs ? 1 : 0;
}

static int do_recv(int port, int nports, int count, int wait_ms)
{
	struct pollfd pfd[MAXN];
	int i, rx = 0, early = 0;
	uint64_t dmin = UINT64_MAX, dmax = 0;

	if (nports < 1 || nports > MAXN)
		usage();
	for (i = 0; i < nports; i++) {
		struct sockaddr_storage ss;
		socklen_t sl = mkaddr(&ss, "0.0.0.0", port + i);
		int fd = socket(AF_INET, SOCK_DGRAM, 0);

		if (fd < 0 || bind(fd, (struct sockaddr *)&ss, sl))
			die("bind");
		pfd[i].fd = fd;
		pfd[i].events = POLLIN;
	}
	printf("ready\n");
	fflush(stdout);
	while (!count || rx < count) {
		int r = poll(pfd, nports, wait_ms);

		if (r < 0)
			die("poll");
		if (!r)
			break;
		for (i = 0; i < nports; i++) {
			struct payload pl;
			uint64_t at, d;
			ssize_t len;

			if (!(pfd[i].revents & POLLIN))
				continue;
			len = recv(pfd[i].fd, &pl, sizeof(pl), MSG_DONTWAIT | MSG_TRUNC);
			at = now_ns();
			if (len < (ssize_t)sizeof(pl) || pl.magic != MAGIC)
				continue;
			d = at - pl.sent_ns;
			rx++;
			early += at < pl.txtime;
			dmin = d < dmin ? d : dmin;
			dmax = d > dmax ? d : dmax;
			printf("rx port=%d i=%u txtime=0x%016" PRIx64 " sent_ns=%" PRIu64
			       " arrive_ns=%" PRIu64 " delay_ns=%" PRIu64,
			       port + i, pl.idx, pl.txtime, pl.sent_ns, at, d);
			if (pl.nsegs)
				printf(" seg=%u nsegs=%u", pl.seg, pl.nsegs);
			printf("\n");
		}
	}
	printf("rx=%d early=%d delay_min_ns=%" PRIu64 " delay_max_ns=%" PRIu64 "\n", rx, early,
	       rx ? dmin : 0, dmax);
	return 0;
}

int main(int argc, char **argv)
{
	const char *addr = NULL;
	int port = 9100, single = 0, prio = 0, len = 100, repeat = 1, privcheck = 0;
	int recv_mode = 0, nports = 1, count = 0, wait_ms = 3000, lead = 0, gso = 0, opt;

	while ((opt = getopt(argc, argv, "d:p:sP:l:r:uL:G:Rn:c:w:")) != -1) {
		switch (opt) {
		case 'd': addr = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 's': single = 1; break;
		case 'P': prio = atoi(optarg); break;
		case 'l': len = atoi(optarg); break;
		case 'r': repeat = atoi(optarg); break;
		case 'u': privcheck = 1; break;
		case 'L': lead = atoi(optarg); break;
		case 'G': gso = atoi(optarg); break;
		case 'R': recv_mode = 1; break;
		case 'n': nports = atoi(optarg); break;
		case 'c': count = atoi(optarg); break;
		case 'w': wait_ms = atoi(optarg); break;
		default: usage();
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (recv_mode)
		return do_recv(port, nports, count, wait_ms);
	if (!addr || optind >= argc || len < (int)sizeof(struct payload) ||
	    len > (gso ? MAXGSOLEN : MAXLEN) || repeat < 1 || lead < 0)
		usage();
	if (gso && (gso < (int)sizeof(struct payload) || len % gso || len / gso > MAXSEGS))
		usage();
	return do_send(addr, port, single, prio, len, repeat, privcheck, lead, gso,
		       argc - optind, argv + optind);
}
