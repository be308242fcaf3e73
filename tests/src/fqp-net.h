/* Small socket helpers shared by the guest test tools. */
#ifndef FQP_NET_H
#define FQP_NET_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/socket.h>
#include <linux/net_tstamp.h>

#ifndef SO_TXTIME
#define SO_TXTIME 61
#endif
#include <time.h>

/* Fill *ss for ADDR (IPv4 or IPv6 literal) and PORT; returns its length.
 * A bad address is a usage error: exit 2.
 */
static inline socklen_t mkaddr(struct sockaddr_storage *ss, const char *addr,
			       int port)
{
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, addr, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons(port);
		return sizeof(*a4);
	}
	if (inet_pton(AF_INET6, addr, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(port);
		return sizeof(*a6);
	}
	fprintf(stderr, "bad address %s\n", addr);
	exit(2);
}

/* A rate in bit/s with an optional k/m/g suffix ("20m" -> 20000000);
 * -1 for anything else, which the caller reports as a usage error.
 */
static inline double parse_rate(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	switch (*end) {
	case 'k': case 'K': v *= 1e3; break;
	case 'm': case 'M': v *= 1e6; break;
	case 'g': case 'G': v *= 1e9; break;
	case '\0': break;
	default: return -1;
	}
	return end == s ? -1 : v;
}

/* CLOCK_MONOTONIC in ns: shared by every network namespace, so a sender's
 * stamp and a receiver's reading compare directly.
 */
static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Point @m's control data at @cbuf (CMSG_SPACE(8) bytes) holding one
 * SCM_TXTIME of @when: the datagram's departure time (SO_TXTIME).
 */
static inline void put_txtime(struct msghdr *m, char *cbuf, size_t len,
			      uint64_t when)
{
	struct cmsghdr *c;

	memset(cbuf, 0, len);
	m->msg_control = cbuf;
	m->msg_controllen = len;
	c = CMSG_FIRSTHDR(m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SO_TXTIME; /* SCM_TXTIME is SO_TXTIME */
	c->cmsg_len = CMSG_LEN(sizeof(when));
	memcpy(CMSG_DATA(c), &when, sizeof(when));
}

/* A failed system call: its errno, and exit 1 (2 is for usage errors). */
static inline void die(const char *what)
{
	perror(what);
	exit(1);
}

#endif
