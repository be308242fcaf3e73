// SPDX-License-Identifier: GPL-2.0
/*
 * rrlat: TCP request/response latency (netperf TCP_RR is not in bookworm).
 *
 *   rrlat -s [-p PORT] [-6] [-t SECS]  server: answers every request, and
 *                                      exits after SECS (default: never)
 *   rrlat -c ADDR [-p PORT] [-n COUNT] [-t SECS] [-q REQ] [-r RESP] [-i MS]
 *
 * The client opens one connection (TCP_NODELAY), then sends requests of REQ
 * bytes, each waiting for its RESP-byte answer, with MS milliseconds of
 * think time between them so that the flow stays sparse (the case fq's
 * new-flow list is built for). It stops after COUNT requests or SECS
 * seconds and prints the connect time and the request/response time
 * percentiles in microseconds. A request carries its sizes in its first
 * 8 bytes: the server reads REQ bytes and writes RESP bytes back.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fqp-net.h"

#define MAXMSG (1 << 20)

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000ull + ts.tv_nsec / 1000;
}

/* Read or write exactly n bytes; 0 on success, -1 on error or EOF. */
static int xfer(int fd, char *buf, size_t n, int rd)
{
	while (n) {
		ssize_t k = rd ? read(fd, buf, n) : write(fd, buf, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		buf += k;
		n -= k;
	}
	return 0;
}

static void serve(int c)
{
	static char buf[MAXMSG];
	int one = 1;

	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	for (;;) {
		uint32_t req, resp;

		if (xfer(c, buf, 8, 1))
			break;
		memcpy(&req, buf, 4);
		memcpy(&resp, buf + 4, 4);
		req = ntohl(req);
		resp = ntohl(resp);
		if (req < 8 || req > MAXMSG || resp < 1 || resp > MAXMSG)
			break;
		if (xfer(c, buf, req - 8, 1) || xfer(c, buf, resp, 0))
			break;
	}
	close(c);
}

static int server(int port, int v6, double secs)
{
	struct sockaddr_storage ss;
	socklen_t sl = mkaddr(&ss, v6 ? "::" : "0.0.0.0", port);
	int fd = socket(ss.ss_family, SOCK_STREAM, 0), one = 1;

	if (fd < 0)
		die("socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, sl) || listen(fd, 16))
		die("bind/listen");
	signal(SIGCHLD, SIG_IGN);	/* no zombies */
	/* a bounded life: a server left behind by a case must not live on */
	if (secs > 0)
		alarm((unsigned int)secs + 1);
	for (;;) {
		int c = accept(fd, NULL, NULL);

		if (c < 0) {
			if (errno == EINTR)
				continue;
			die("accept");
		}
		/* a child per connection, so one stuck client blocks no other */
		if (fork() == 0) {
			close(fd);
			serve(c);
			_exit(0);
		}
		close(c);
	}
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int client(const char *addr, int port, int count, double secs,
		  uint32_t req, uint32_t resp, int think_ms)
{
	struct sockaddr_storage ss;
	socklen_t sl = mkaddr(&ss, addr, port);
	static char buf[MAXMSG];
	uint64_t *lat = calloc(count, sizeof(*lat)), t0, tc, end;
	struct timeval tv = { (time_t)secs + 10, 0 };
	int fd = socket(ss.ss_family, SOCK_STREAM, 0), one = 1, n = 0;
	uint32_t h[2] = { htonl(req), htonl(resp) };

	if (fd < 0 || !lat)
		die("socket");
	/* a lost server must not hang the case: bound every read */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	t0 = now_us();
	if (connect(fd, (struct sockaddr *)&ss, sl))
		die("connect");
	tc = now_us() - t0;
	end = secs > 0 ? t0 + (uint64_t)(secs * 1e6) : UINT64_MAX;
	memcpy(buf, h, sizeof(h));
	while (n < count && now_us() < end) {
		uint64_t s = now_us();

		if (xfer(fd, buf, req, 0) || xfer(fd, buf + 8, resp, 1)) {
			fprintf(stderr, "request %d failed: %s\n", n, strerror(errno));
			break;
		}
		memcpy(buf, h, sizeof(h));	/* the read may have overwritten it */
		lat[n++] = now_us() - s;
		if (think_ms)
			usleep(think_ms * 1000);
	}
	close(fd);
	qsort(lat, n, sizeof(*lat), cmp);
#define P(p) (n ? (unsigned long long)lat[(int)((p) / 100.0 * (n - 1) + 0.5)] : 0ull)
	printf("n=%d connect_us=%llu min_us=%llu p50_us=%llu p90_us=%llu p99_us=%llu max_us=%llu\n",
	       n, (unsigned long long)tc, P(0), P(50), P(90), P(99), P(100));
	return n ? 0 : 1;
}

int main(int argc, char **argv)
{
	int port = 9100, count = 1000, think = 10, srv = 0, v6 = 0, opt;
	uint32_t req = 64, resp = 64;
	const char *addr = NULL;
	double secs = 0;

	while ((opt = getopt(argc, argv, "sc:p:n:t:q:r:i:6")) != -1) {
		switch (opt) {
		case 's': srv = 1; break;
		case 'c': addr = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'n': count = atoi(optarg); break;
		case 't': secs = atof(optarg); break;
		case 'q': req = strtoul(optarg, NULL, 0); break;
		case 'r': resp = strtoul(optarg, NULL, 0); break;
		case 'i': think = atoi(optarg); break;
		case '6': v6 = 1; break;
		default: goto usage;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (srv)
		return server(port, v6, secs);
	if (addr && count > 0 && req >= 8 && req <= MAXMSG && resp >= 1 &&
	    resp <= MAXMSG - 8)
		return client(addr, port, count, secs, req, resp, think);
usage:
	fprintf(stderr, "usage: rrlat -s [-p PORT] [-6] [-t SECS]\n"
		"       rrlat -c ADDR [-p PORT] [-n COUNT] [-t SECS] [-q REQ] [-r RESP] [-i MS]\n");
	return 2;
}
