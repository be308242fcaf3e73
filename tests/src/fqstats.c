// SPDX-License-Identifier: GPL-2.0
/*
 * fqstats: every field of an fq qdisc's xstats (TCA_STATS_APP, struct
 * tc_fq_qd_stats) as key=value lines, read with RTM_GETQDISC.
 *
 * Bookworm's tc prints only the 6.1 prefix of the struct. Newer kernels
 * append fields (6.7: fastpath_packets, then band_drops[3] and
 * band_pkt_count[3]); fqstats prints each one the payload is long enough
 * to hold, and xstats_len, so a case can tell a 6.1-sized struct (104
 * bytes) from a longer one. It also prints the queue counters (packets,
 * bytes, drops, qlen, backlog, requeues, overlimits).
 *
 * usage: fqstats DEV [HANDLE]   (HANDLE like 1: ; default: the first fq)
 * Exit 0 when an fq was found, 1 when none, 2 on errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libmnl/libmnl.h>
#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

/* The 6.1 layout, then what later kernels append (upstream's order). */
struct fq_xstats {
	uint64_t gc_flows, highprio_packets, tcp_retrans, throttled, flows_plimit,
		 pkts_too_long, allocation_errors;
	int64_t time_next_delayed_flow;
	uint32_t flows, inactive_flows, throttled_flows, unthrottle_latency_ns;
	uint64_t ce_mark, horizon_drops, horizon_caps;
	/* end of 6.1 (104 bytes) */
	uint64_t fastpath_packets;
	uint64_t band_drops[3];
	uint32_t band_pkt_count[3];
	uint32_t pad;
};

#define F64(f) { #f, offsetof(struct fq_xstats, f), 8, 0 }
#define S64(f) { #f, offsetof(struct fq_xstats, f), 8, 1 }
#define F32(f) { #f, offsetof(struct fq_xstats, f), 4, 0 }
static const struct field {
	const char *name;
	size_t off;
	int size;
	int sign;
} fields[] = {
	F64(gc_flows), F64(highprio_packets), F64(tcp_retrans), F64(throttled),
	F64(flows_plimit), F64(pkts_too_long), F64(allocation_errors),
	S64(time_next_delayed_flow), F32(flows), F32(inactive_flows),
	F32(throttled_flows), F32(unthrottle_latency_ns), F64(ce_mark),
	F64(horizon_drops), F64(horizon_caps), F64(fastpath_packets),
	{ "band_drops_0", offsetof(struct fq_xstats, band_drops[0]), 8, 0 },
	{ "band_drops_1", offsetof(struct fq_xstats, band_drops[1]), 8, 0 },
	{ "band_drops_2", offsetof(struct fq_xstats, band_drops[2]), 8, 0 },
	{ "band_pkt_count_0", offsetof(struct fq_xstats, band_pkt_count[0]), 4, 0 },
	{ "band_pkt_count_1", offsetof(struct fq_xstats, band_pkt_count[1]), 4, 0 },
	{ "band_pkt_count_2", offsetof(struct fq_xstats, band_pkt_count[2]), 4, 0 },
};

struct found {
	int ifindex;
	uint32_t handle;	/* 0: any */
	int done;
	char kind[32];
	uint32_t got_handle, got_parent;
	int has_app, app_len;
	uint8_t appbuf[512];
	struct gnet_stats_queue q;
	int has_q;
	uint64_t packets, bytes;
};

static int stats_cb(const struct nlattr *a, void *data)
{
	struct found *f = data;
	int len = mnl_attr_get_payload_len(a);

	switch (mnl_attr_get_type(a)) {
	case TCA_STATS_APP:
		f->app_len = len;
		memcpy(f->appbuf, mnl_attr_get_payload(a),
		       len < (int)sizeof(f->appbuf) ? len : (int)sizeof(f->appbuf));
		f->has_app = 1;
		break;
	case TCA_STATS_QUEUE:
		if (len >= (int)sizeof(f->q)) {
			memcpy(&f->q, mnl_attr_get_payload(a), sizeof(f->q));
			f->has_q = 1;
		}
		break;
	case TCA_STATS_BASIC:
		if (len >= 12) {
			struct gnet_stats_basic b;

			memcpy(&b, mnl_attr_get_payload(a), 12);
			f->bytes = b.bytes;
			if (!f->packets)
				f->packets = b.packets;
		}
		break;
	case TCA_STATS_PKT64:
		if (len == 8)
			f->packets = mnl_attr_get_u64(a);
		break;
	}
	return MNL_CB_OK;
}

static int attr_cb(const struct nlattr *a, void *data)
{
	struct found *f = data;

	if (mnl_attr_get_type(a) == TCA_KIND)
		snprintf(f->kind, sizeof(f->kind), "%.*s", (int)mnl_attr_get_payload_len(a),
			 (const char *)mnl_attr_get_payload(a));
	else if (mnl_attr_get_type(a) == TCA_STATS2)
		mnl_attr_parse_nested(a, stats_cb, f);
	return MNL_CB_OK;
}

static int msg_cb(const struct nlmsghdr *h, void *data)
{
	struct found *f = data, cur;
	const struct tcmsg *tc = mnl_nlmsg_get_payload(h);

	if (f->done || h->nlmsg_type != RTM_NEWQDISC || tc->tcm_ifindex != f->ifindex)
		return MNL_CB_OK;
	if (f->handle && tc->tcm_handle != f->handle)
		return MNL_CB_OK;
	memset(&cur, 0, sizeof(cur));
	mnl_attr_parse(h, sizeof(*tc), attr_cb, &cur);
	if (strcmp(cur.kind, "fq"))
		return MNL_CB_OK;
	cur.ifindex = f->ifindex;
	cur.handle = f->handle;
	cur.got_handle = tc->tcm_handle;
	cur.got_parent = tc->tcm_parent;
	cur.done = 1;
	*f = cur;
	return MNL_CB_OK;
}

int main(int argc, char **argv)
{
	char buf[MNL_SOCKET_BUFFER_SIZE * 4];
	struct found f = { 0 };
	struct mnl_socket *nl;
	struct nlmsghdr *h;
	struct tcmsg *tc;
	unsigned int seq = time(NULL), portid;
	size_t i;
	int n;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: fqstats DEV [HANDLE]\n");
		return 2;
	}
	f.ifindex = if_nametoindex(argv[1]);
	if (!f.ifindex) {
		fprintf(stderr, "no device %s\n", argv[1]);
		return 2;
	}
	if (argc == 3) {
		unsigned int maj;

		if (sscanf(argv[2], "%x:", &maj) != 1) {
			fprintf(stderr, "bad handle %s\n", argv[2]);
			return 2;
		}
		f.handle = maj << 16;
	}
	nl = mnl_socket_open(NETLINK_ROUTE);
	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		perror("netlink");
		return 2;
	}
	portid = mnl_socket_get_portid(nl);
	h = mnl_nlmsg_put_header(buf);
	h->nlmsg_type = RTM_GETQDISC;
	h->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	h->nlmsg_seq = seq;
	tc = mnl_nlmsg_put_extra_header(h, sizeof(*tc));
	tc->tcm_family = AF_UNSPEC;
	tc->tcm_ifindex = f.ifindex;
	if (mnl_socket_sendto(nl, h, h->nlmsg_len) < 0) {
		perror("sendto");
		return 2;
	}
	while ((n = mnl_socket_recvfrom(nl, buf, sizeof(buf))) > 0) {
		n = mnl_cb_run(buf, n, seq, portid, msg_cb, &f);
		if (n <= MNL_CB_STOP)
			break;
	}
	if (n < 0) {
		perror("RTM_GETQDISC");
		return 2;
	}
	mnl_socket_close(nl);
	if (!f.done) {
		fprintf(stderr, "no fq qdisc on %s\n", argv[1]);
		return 1;
	}
	printf("handle=%x:\n", f.got_handle >> 16);
	printf("packets=%" PRIu64 "\nbytes=%" PRIu64 "\n", f.packets, f.bytes);
	if (f.has_q)
		printf("qlen=%u\nbacklog=%u\ndrops=%u\nrequeues=%u\noverlimits=%u\n", f.q.qlen,
		       f.q.backlog, f.q.drops, f.q.requeues, f.q.overlimits);
	printf("xstats_len=%d\n", f.has_app ? f.app_len : -1);
	for (i = 0; f.has_app && i < sizeof(fields) / sizeof(fields[0]); i++) {
		const struct field *fl = &fields[i];
		uint64_t v = 0;
		uint32_t v32 = 0;

		if ((int)(fl->off + fl->size) > f.app_len)
			break;
		if (fl->size == 8) {
			memcpy(&v, f.appbuf + fl->off, 8);
			if (fl->sign)
				printf("%s=%" PRId64 "\n", fl->name, (int64_t)v);
			else
				printf("%s=%" PRIu64 "\n", fl->name, v);
		} else {
			memcpy(&v32, f.appbuf + fl->off, 4);
			printf("%s=%u\n", fl->name, v32);
		}
	}
	return 0;
}
