// SPDX-License-Identifier: GPL-2.0
/*
 * wheelcost: the worst cases of fq's throttled set, driven from user space
 * with SO_TXTIME (CLOCK_MONOTONIC, which needs no privilege) and measured
 * on the guest's own clock. On the exact clock (one guest ns per
 * instruction) a time is an instruction count: what a sendmsg() costs, or
 * how late a timer wakes a task on the same CPU while fq's watchdog runs.
 *
 * Every datagram goes from its own connected UDP socket (fq keys a flow by
 * socket) to ADDR:PORT; the case puts fq on the route's device (a dummy
 * device, which drops what fq sends). All threads run on CPU 0 (-c). With
 * -b SRC (IPv4) the sockets are bound to SRC, SRC + 1, ..., 50000 each:
 * one address has too few ephemeral ports for 100k flows.
 *
 *   retime -n N -k K    N far flows, each one datagram due 60 s ahead (1 us
 *                       apart), then one socket whose first datagram is due
 *                       1 s before the first of them and each of K more 1 us
 *                       earlier than the last: every send re-times the
 *                       earliest far flow.
 *                       K below fq's flow_limit (default 100), or the rest
 *                       are drops.
 *                       Prints the median ns per re-timing send, and per
 *                       send of a datagram due at once (no txtime).
 *   idle -n N -i S      One flow throttled for 100 us and released, S
 *                       seconds (decimal) of idle, then N flows whose
 *                       datagram i is due 20 i us after a time 2 ms past
 *                       their sends (20 us a send). Prints the ns
 *                       of the first of those sends and of the second, and
 *                       how late a task timed 1 us after the first due
 *                       time wakes (the first release).
 *   late -n N -a S -s S -w S [-t US] [-P]
 *                       N far flows due from -a seconds ahead, spread over
 *                       -s seconds; a task on the same CPU then wakes every
 *                       -t us (absolute times, default 1000) for -w seconds
 *                       and prints the largest lateness and when it was.
 *                       -P: each wakeup also sends one datagram on a socket
 *                       paced at 100 kB/s (a wait after every packet), so
 *                       that the wheel's clock moves across its ranges
 *                       while the far flows wait.
 *   crowded -n N        N flows whose datagrams are due within one 8 us
 *                       span; a task timed 1 us after its end prints its
 *                       lateness (the release of all N), per flow too.
 *
 * Output: one "key=value ..." line per figure. Exit 1 on a failed system
 * call, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <linux/net_tstamp.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "fqp-net.h"

#ifndef SO_TXTIME
#define SO_TXTIME 61
#define SCM_TXTIME SO_TXTIME
#endif

#define NSEC 1000000000ull

static struct sockaddr_storage dst;
static socklen_t dstlen;
/* -b: sockets bound to SRC, SRC + 1, ... (FLOWS_PER_SRC each), so that
 * more flows than one address has ephemeral ports can exist.
 */
static struct in_addr src;
static unsigned int nsock;
#define FLOWS_PER_SRC 50000

static void usage(void)
{
	fprintf(stderr,
		"usage: wheelcost -d ADDR [-p PORT] [-c CPU] [-b SRC] MODE [options]\n"
		"  retime -n N -k K | idle -n N -i SECONDS |\n"
		"  late -n N -a S -s S -w S [-t US] [-P] | crowded -n N\n");
	exit(2);
}

static int flow_socket(int txtime)
{
	struct sock_txtime st = { .clockid = CLOCK_MONOTONIC };
	int fd = socket(dst.ss_family, SOCK_DGRAM, 0);

	if (fd < 0)
		die("socket");
	if (txtime && setsockopt(fd, SOL_SOCKET, SO_TXTIME, &st, sizeof(st)))
		die("SO_TXTIME");
	if (src.s_addr) {
		struct sockaddr_in a = { .sin_family = AF_INET };

		a.sin_addr.s_addr = htonl(ntohl(src.s_addr) +
					  nsock++ / FLOWS_PER_SRC);
		if (bind(fd, (struct sockaddr *)&a, sizeof(a)))
			die("bind");
	}
	if (connect(fd, (struct sockaddr *)&dst, dstlen))
		die("connect");
	return fd;
}

/* One datagram, due at @when (0: no txtime). Returns the ns it took. */
static uint64_t send_at(int fd, uint64_t when)
{
	char buf[64] = "wheelcost", cbuf[CMSG_SPACE(sizeof(uint64_t))];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	uint64_t t0;

	if (when)
		put_txtime(&msg, cbuf, sizeof(cbuf), when);
	t0 = now_ns();
	if (sendmsg(fd, &msg, 0) != (ssize_t)sizeof(buf))
		die("sendmsg");
	return now_ns() - t0;
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = { .tv_sec = t / NSEC, .tv_nsec = t % NSEC };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* How late a task timed for @t wakes, in ns. */
static uint64_t late_at(uint64_t t)
{
	uint64_t now;

	sleep_until(t);
	now = now_ns();
	return now > t ? now - t : 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[n / 2];
}

/* @n sockets, the datagram of socket i due at @start + i * @step. */
static int *far_flows(unsigned int n, uint64_t start, uint64_t step)
{
	int *fd = calloc(n ? n : 1, sizeof(*fd));
	unsigned int i;

	if (!fd)
		die("calloc");
	for (i = 0; i < n; i++) {
		fd[i] = flow_socket(1);
		send_at(fd[i], start + i * step);
	}
	return fd;
}

static void close_all(int *fd, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		close(fd[i]);
	free(fd);
}

static void mode_retime(unsigned int n, unsigned int k)
{
	uint64_t t = now_ns(), when, med, *ns = calloc(k, sizeof(*ns));
	int *fd = far_flows(n, t + 60 * NSEC, 1000), s, d;
	unsigned int i;

	if (!ns)
		die("calloc");
	s = flow_socket(1);
	/* Before the first far flow, however long their sends took (100k
	 * sockets take over a second): now + 59 s could come after them, and
	 * re-timing a flow that is not the earliest costs no search.
	 */
	when = t + 59 * NSEC;
	send_at(s, when);
	for (i = 0; i < k; i++)
		ns[i] = send_at(s, when -= 1000);
	med = median(ns, k);
	printf("retime far=%u sends=%u median_ns=%" PRIu64 " min_ns=%" PRIu64
	       " max_ns=%" PRIu64 "\n", n, k, med, ns[0], ns[k - 1]);
	d = flow_socket(0);
	for (i = 0; i < k; i++)
		ns[i] = send_at(d, 0);
	med = median(ns, k);
	printf("due far=%u sends=%u median_ns=%" PRIu64 "\n", n, k, med);
	close(s);
	close(d);
	close_all(fd, n);
	free(ns);
}

static void mode_idle(unsigned int n, double idle)
{
	uint64_t t, first, second, late;
	int *fd, s = flow_socket(1);
	unsigned int i;

	t = now_ns();
	send_at(s, t + 100000);
	late_at(t + 1000000);
	late_at(now_ns() + (uint64_t)(idle * NSEC));
	fd = calloc(n, sizeof(*fd));
	if (!fd)
		die("calloc");
	for (i = 0; i < n; i++)
		fd[i] = flow_socket(1);
	/* Due once every send is done (20 us each is ample), 20 us apart:
	 * more than one release and transmission takes, so that the task
	 * waits for the first release alone.
	 */
	t = now_ns() + 2000000 + n * 20000ull;
	first = send_at(fd[0], t);
	second = n > 1 ? send_at(fd[1], t + 20000) : 0;
	for (i = 2; i < n; i++)
		send_at(fd[i], t + i * 20000ull);
	late = late_at(t + 1000);
	printf("idle idle_s=%g flows=%u first_send_ns=%" PRIu64
	       " second_send_ns=%" PRIu64 " first_release_late_ns=%" PRIu64
	       "\n", idle, n, first, second, late);
	close(s);
	close_all(fd, n);
}

static void mode_late(unsigned int n, double ahead, double spread,
		      double watch, unsigned int step_us, int paced)
{
	uint64_t t0 = now_ns(), t, end, late, worst = 0, worst_at = 0, wakes = 0;
	/* ~1 ms per 106-byte frame: below low_rate_threshold, so every
	 * packet waits and the wheel's clock moves with each release.
	 */
	uint64_t rate = 100000;
	int *fd, p = -1;

	fd = far_flows(n, t0 + (uint64_t)(ahead * NSEC),
		       n ? (uint64_t)(spread * NSEC) / n : 0);
	if (paced) {
		p = flow_socket(0);
		if (setsockopt(p, SOL_SOCKET, SO_MAX_PACING_RATE, &rate,
			       sizeof(rate)))
			die("SO_MAX_PACING_RATE");
	}
	t = now_ns();
	end = t + (uint64_t)(watch * NSEC);
	for (; t < end; t += step_us * 1000ull) {
		late = late_at(t);
		wakes++;
		if (late > worst) {
			worst = late;
			worst_at = t - t0;
		}
		if (p >= 0)
			send_at(p, 0);
	}
	printf("late far=%u ahead_s=%g spread_s=%g paced=%d wakes=%" PRIu64
	       " max_late_ns=%" PRIu64 " at_ms=%" PRIu64 "\n", n, ahead,
	       spread, paced, wakes, worst, worst_at / 1000000);
	if (p >= 0)
		close(p);
	close_all(fd, n);
}

static void mode_crowded(unsigned int n)
{
	uint64_t span = 8192, t, late;
	int *fd = calloc(n, sizeof(*fd));
	unsigned int i;

	if (!fd)
		die("calloc");
	for (i = 0; i < n; i++)
		fd[i] = flow_socket(1);
	/* One aligned span, once every send is done (20 us each). */
	t = (now_ns() + 2000000 + n * 20000ull) / span * span;
	for (i = 0; i < n; i++)
		send_at(fd[i], t + (i * 7919ull) % span);
	late = late_at(t + span + 1000);
	printf("crowded flows=%u release_late_ns=%" PRIu64
	       " per_flow_ns=%" PRIu64 "\n", n, late, n ? late / n : 0);
	close_all(fd, n);
}

int main(int argc, char **argv)
{
	unsigned int n = 0, k = 1000, step_us = 1000;
	double idle = 0, ahead = 60, spread = 20, watch = 1;
	const char *addr = NULL, *mode;
	struct rlimit rl;
	int port = 9, cpu = 0, paced = 0, opt;
	cpu_set_t set;

	while ((opt = getopt(argc, argv, "+d:p:c:b:")) != -1) {
		switch (opt) {
		case 'd': addr = optarg; break;
		case 'b':
			if (inet_pton(AF_INET, optarg, &src) != 1)
				usage();
			break;
		case 'p': port = atoi(optarg); break;
		case 'c': cpu = atoi(optarg); break;
		default: usage();
		}
	}
	if (!addr || optind >= argc)
		usage();
	mode = argv[optind];
	optind++;
	while ((opt = getopt(argc, argv, "n:k:i:a:s:w:t:P")) != -1) {
		switch (opt) {
		case 'n': n = strtoul(optarg, NULL, 0); break;
		case 'k': k = strtoul(optarg, NULL, 0); break;
		case 'i': idle = atof(optarg); break;
		case 'a': ahead = atof(optarg); break;
		case 's': spread = atof(optarg); break;
		case 'w': watch = atof(optarg); break;
		case 't': step_us = strtoul(optarg, NULL, 0); break;
		case 'P': paced = 1; break;
		default: usage();
		}
	}
	if (!k || !step_us || idle < 0 || ahead < 0 || spread < 0 || watch < 0)
		usage();
	dstlen = mkaddr(&dst, addr, port);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
	/* Timers exactly when asked: lateness is fq's, not the slack's. */
	if (prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0))
		die("PR_SET_TIMERSLACK");
	rl.rlim_cur = rl.rlim_max = n + 64;
	if (n + 64 > 1024 && setrlimit(RLIMIT_NOFILE, &rl))
		die("RLIMIT_NOFILE");
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (!strcmp(mode, "retime") && n)
		mode_retime(n, k);
	else if (!strcmp(mode, "idle") && n)
		mode_idle(n, idle);
	else if (!strcmp(mode, "late"))
		mode_late(n, ahead, spread, watch, step_us, paced);
	else if (!strcmp(mode, "crowded") && n)
		mode_crowded(n);
	else
		usage();
	return 0;
}
