// SPDX-License-Identifier: GPL-2.0
/*
 * tcpbulk: TCP bulk transfers whose delivery is checked end to end.
 *
 * iperf3 cannot tell data loss from its own bookkeeping: its server stops
 * counting when the client's TEST_END arrives on the control connection,
 * which may overtake data still in flight, so "received" is routinely a few
 * MB short of "sent" with nothing lost. Here every connection carries a
 * byte pattern that is a function of the stream offset; the server checks
 * every byte, counts them up to EOF and sends the count back; the client
 * compares it with what it sent.
 *
 *   tcpbulk -s [-p PORT] [-c CONNS]           server: CONNS connections, then exit
 *   tcpbulk -d ADDR [-p PORT] [-P CONNS] -n BYTES   client: BYTES per connection
 *
 * Both print one summary line; exit 0 only if every connection delivered
 * every byte intact.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fqp-net.h"

static unsigned char pat(uint64_t off)
{
	return (unsigned char)(off * 31 + (off >> 9));
}

static int serve_one(int fd)
{
	static unsigned char buf[1 << 16];
	uint64_t got = 0, bad = 0;
	ssize_t n, i;

	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("read");
			return 1;
		}
		for (i = 0; i < n; i++)
			bad += buf[i] != pat(got + i);
		got += n;
	}
	if (write(fd, &got, sizeof(got)) != sizeof(got))
		perror("write count");
	printf("conn bytes=%llu corrupt=%llu\n", (unsigned long long)got,
	       (unsigned long long)bad);
	return bad ? 1 : 0;
}

static int send_one(const char *addr, int port, uint64_t bytes)
{
	static unsigned char buf[1 << 16];
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	uint64_t off = 0, ack = 0;
	int fd = -1, i;

	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1)
		die("address");
	for (i = 0; i < 100; i++) {	/* the server may still be starting */
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0)
			die("socket");
		if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
			break;
		close(fd);
		fd = -1;
		usleep(100000);
	}
	if (fd < 0)
		die("connect");
	while (off < bytes) {
		size_t len = bytes - off < sizeof(buf) ? bytes - off : sizeof(buf);
		ssize_t n;
		size_t k;

		for (k = 0; k < len; k++)
			buf[k] = pat(off + k);
		n = write(fd, buf, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			die("write");
		}
		off += n;
	}
	if (shutdown(fd, SHUT_WR))
		die("shutdown");
	if (read(fd, &ack, sizeof(ack)) != sizeof(ack))
		die("read count");
	printf("conn sent=%llu received=%llu\n", (unsigned long long)off,
	       (unsigned long long)ack);
	return ack == off ? 0 : 1;
}

int main(int argc, char **argv)
{
	const char *addr = NULL;
	int port = 5301, conns = 1, server = 0, opt, i, bad = 0, one = 1;
	uint64_t bytes = 0;
	struct timespec t0, t1;

	while ((opt = getopt(argc, argv, "sd:p:c:P:n:")) != -1) {
		switch (opt) {
		case 's': server = 1; break;
		case 'd': addr = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'c': case 'P': conns = atoi(optarg); break;
		case 'n': bytes = strtoull(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: tcpbulk -s [-p PORT] [-c CONNS] | "
					"-d ADDR [-p PORT] [-P CONNS] -n BYTES\n");
			return 2;
		}
	}
	if (conns < 1 || (!server && (!addr || !bytes)))
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (server) {
		struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
		int lfd = socket(AF_INET, SOCK_STREAM, 0);

		if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
		    bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, conns))
			die("listen");
		for (i = 0; i < conns; i++) {
			int fd = accept(lfd, NULL, NULL);

			if (fd < 0)
				die("accept");
			if (!fork())
				exit(serve_one(fd));
			close(fd);
		}
	} else {
		for (i = 0; i < conns; i++)
			if (!fork())
				exit(send_one(addr, port, bytes));
	}
	for (i = 0; i < conns; i++) {
		int st;

		if (wait(&st) < 0)
			die("wait");
		bad += !WIFEXITED(st) || WEXITSTATUS(st);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("tcpbulk %s conns=%d failed=%d secs=%.1f\n", server ? "server" : "client",
	       conns, bad, t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	return bad ? 1 : 0;
}
