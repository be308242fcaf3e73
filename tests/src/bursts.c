// SPDX-License-Identifier: GPL-2.0
/*
 * bursts: periodic bursty TCP senders and their completion latency, for the
 * fq credit/debt case (62-fq-debt).
 *
 *   bursts -s [-p PORT] [-n CONNS] [-t SECS]   receiver
 *   bursts -d ADDR [-p PORT] [-n CONNS] [-b BYTES] [-i PERIOD_MS] [-t SECS]
 *
 * The sender opens CONNS connections and every PERIOD_MS writes one burst of
 * BYTES on each; each burst starts with the CLOCK_MONOTONIC time it was
 * written (network namespaces share that clock). The receiver reads all
 * connections and, at the last byte of each burst, records its completion
 * latency (now - start). Until SECS or every connection closed, then
 * prints bursts= bytes= p50_us= p90_us= p99_us= max_us=.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "fqp-net.h"

#define MAXC 256

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void writeall(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			die("write");
		}
		p += w;
		n -= w;
	}
}

static int do_send(const char *addr, int port, int n, int bytes, int period_ms, double secs)
{
	struct sockaddr_storage ss;
	socklen_t sl = mkaddr(&ss, addr, port);
	char *buf = calloc(1, bytes);
	uint64_t t0 = now_ns(), end = t0 + (uint64_t)(secs * 1e9), k;
	int fds[MAXC], i;
	unsigned long sent = 0;

	if (!buf)
		die("calloc");
	for (i = 0; i < n; i++) {
		fds[i] = socket(ss.ss_family, SOCK_STREAM, 0);
		if (fds[i] < 0 || connect(fds[i], (struct sockaddr *)&ss, sl))
			die("connect");
	}
	for (k = 0;; k++) {
		uint64_t due = t0 + k * (uint64_t)period_ms * 1000000ull;
		struct timespec ts = { due / 1000000000ull, due % 1000000000ull };

		if (due >= end)
			break;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		for (i = 0; i < n; i++) {
			uint64_t t = now_ns();

			memcpy(buf, &t, sizeof(t));
			writeall(fds[i], buf, bytes);
			sent++;
		}
	}
	for (i = 0; i < n; i++)
		close(fds[i]);
	printf("sent_bursts=%lu bytes=%d conns=%d period_ms=%d\n", sent, bytes, n, period_ms);
	return 0;
}

static int do_recv(int port, int n, int bytes, double secs)
{
	struct sockaddr_storage ss;
	socklen_t sl = mkaddr(&ss, "0.0.0.0", port);
	int ls = socket(AF_INET, SOCK_STREAM, 0), one = 1, i, open_c;
	struct pollfd pfd[MAXC];
	uint64_t got[MAXC] = { 0 }, start[MAXC] = { 0 }, total = 0;
	uint64_t *lat = NULL, end;
	size_t nlat = 0, cap = 0;
	static char buf[1 << 16];

	if (ls < 0 || setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(ls, (struct sockaddr *)&ss, sl) || listen(ls, MAXC))
		die("listen");
	for (i = 0; i < n; i++) {
		pfd[i].fd = accept(ls, NULL, NULL);
		if (pfd[i].fd < 0)
			die("accept");
		pfd[i].events = POLLIN;
	}
	end = now_ns() + (uint64_t)(secs * 1e9);
	open_c = n;
	while (open_c && now_ns() < end) {
		if (poll(pfd, n, 200) < 0)
			die("poll");
		for (i = 0; i < n; i++) {
			ssize_t r;
			char *p;

			if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			r = read(pfd[i].fd, buf, sizeof(buf));
			if (r <= 0) {
				close(pfd[i].fd);
				pfd[i].fd = -1;
				open_c--;
				continue;
			}
			total += r;
			for (p = buf; r > 0;) {
				uint64_t off = got[i] % bytes, take = bytes - off;

				if (take > (uint64_t)r)
					take = r;
				/* the timestamp is the first 8 bytes of a burst
				 * (a read may split it: rebuild it byte by byte)
				 */
				for (uint64_t b = off; b < 8 && b < off + take; b++)
					((unsigned char *)&start[i])[b] = p[b - off];
				got[i] += take;
				p += take;
				r -= take;
				if (got[i] % bytes == 0) {
					if (nlat == cap) {
						cap = cap ? cap * 2 : 1024;
						lat = realloc(lat, cap * sizeof(*lat));
						if (!lat)
							die("realloc");
					}
					lat[nlat++] = now_ns() - start[i];
				}
			}
		}
	}
	qsort(lat, nlat, sizeof(*lat), cmp_u64);
#define PCT(q) (nlat ? lat[(nlat * (q) + 99) / 100 - 1] / 1000 : 0)
	printf("bursts=%zu bytes=%" PRIu64 " p50_us=%" PRIu64 " p90_us=%" PRIu64
	       " p99_us=%" PRIu64 " max_us=%" PRIu64 "\n", nlat, total, PCT(50), PCT(90), PCT(99),
	       nlat ? lat[nlat - 1] / 1000 : 0);
	return 0;
}

int main(int argc, char **argv)
{
	const char *addr = NULL;
	int port = 9300, n = 20, bytes = 65536, period = 50, server = 0, opt;
	double secs = 10;

	while ((opt = getopt(argc, argv, "sd:p:n:b:i:t:")) != -1) {
		switch (opt) {
		case 's': server = 1; break;
		case 'd': addr = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'n': n = atoi(optarg); break;
		case 'b': bytes = atoi(optarg); break;
		case 'i': period = atoi(optarg); break;
		case 't': secs = atof(optarg); break;
		default: goto usage;
		}
	}
	if (n < 1 || n > MAXC || bytes < 8 || period < 1 || (!server && !addr))
		goto usage;
	setvbuf(stdout, NULL, _IOLBF, 0);
	return server ? do_recv(port, n, bytes, secs) : do_send(addr, port, n, bytes, period, secs);
usage:
	fprintf(stderr, "usage: bursts -s [-p PORT] [-n CONNS] [-b BYTES] [-t SECS]\n"
		"       bursts -d ADDR [-p PORT] [-n CONNS] [-b BYTES] [-i PERIOD_MS] [-t SECS]\n");
	return 2;
}
