// SPDX-License-Identifier: GPL-2.0
/*
 * cachemark: open or close a counting window of the cache model
 * (tests/host/cachemodel.c, boot-and-test.sh --cache-model).
 *
 *   cachemark open|close|warm
 *   cachemark write FILE TEXT [FLUSH]
 *
 * open/close/warm: one mark each (warm: start the model, not counting,
 * for the plugin's sim=marks). The window counts the whole guest (every
 * access between the two marks), so this program's exit and the shell
 * around it are in it: small beside a workload of thousands of packets.
 * write: first reads a FLUSH-byte buffer (K, M suffixes; default none)
 * one byte a line, which evicts the model's caches (an LRU cache keeps
 * nothing of its old contents after a walk of twice its size), then
 * opens a window, writes TEXT to FILE (one write(2)), and closes it: the
 * window holds that one system call and nothing of a process's life, for
 * one packet through a cold qdisc (echo start > /proc/net/pktgen/pgctrl
 * with a count of 1). Without the plugin the marks do nothing.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cachemark.h"

static int write_window(const char *path, const char *text, const char *flush)
{
	char *end;
	unsigned long n = flush ? strtoul(flush, &end, 10) : 0, i;
	volatile unsigned char *buf;
	unsigned long sum = 0;
	ssize_t w;
	int fd;

	if (flush && (*end == 'K' || *end == 'k'))
		n <<= 10;
	else if (flush && (*end == 'M' || *end == 'm'))
		n <<= 20;
	buf = n ? malloc(n) : NULL;
	if (n && !buf) {
		perror("malloc");
		return 1;
	}
	cachemark_warm();
	for (i = 0; i < n; i += 64)
		buf[i] = 1;
	fd = open(path, O_WRONLY);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	for (i = 0; i < n; i += 64)
		sum += buf[i];
	cachemark_open();
	w = write(fd, text, strlen(text));
	cachemark_close();
	if (w != (ssize_t)strlen(text)) {
		perror(path);
		return 1;
	}
	close(fd);
	return sum == n / 64 ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "open")) {
		cachemark_open();
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "warm")) {
		cachemark_warm();
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "close")) {
		cachemark_close();
		return 0;
	}
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "write"))
		return write_window(argv[2], argv[3], argc == 5 ? argv[4] : NULL);
	fprintf(stderr, "usage: cachemark open|close|warm | write FILE TEXT [FLUSH]\n");
	return 2;
}
