// SPDX-License-Identifier: GPL-2.0
/*
 * nlfuzz: netlink plumbing. One rtnetlink socket; a message sent and its
 * ack or reply read (extack included); an fq created, changed, replaced,
 * deleted and read back (options and statistics) into a struct fqstate.
 */
#include "nlfuzz.h"

struct mnl_socket *nl;
unsigned int seq = 1, portid;
int ifindex;
uint32_t parent = TC_H_ROOT, handle = 0x10000;
enum kern kernel = K_STOCK;


static int ext_cb(const struct nlattr *a, void *data)
{
	struct answer *ans = data;

	if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG &&
	    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0)
		snprintf(ans->msg, sizeof(ans->msg), "%s", mnl_attr_get_str(a));
	return MNL_CB_OK;
}

/* Read the reply to request `s`: an ack/error, or (for gets) one message
 * handed to `cb`.
 */
static int talk(struct nlmsghdr *req, struct answer *ans,
		void (*cb)(const struct nlmsghdr *, void *), void *data)
{
	static char buf[65536];
	unsigned int s = req->nlmsg_seq;

	memset(ans, 0, sizeof(*ans));
	if (mnl_socket_sendto(nl, req, req->nlmsg_len) < 0) {
		perror("sendto");
		exit(2);
	}
	for (;;) {
		int n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		struct nlmsghdr *h = (struct nlmsghdr *)buf;

		if (n < 0) {
			printf("nlfuzz\tno answer to message type %u seq %u: %s\tresult=BAD\n",
			       req->nlmsg_type, s, strerror(errno));
			exit(2);
		}
		for (; mnl_nlmsg_ok(h, n); h = mnl_nlmsg_next(h, &n)) {
			if (h->nlmsg_seq != s)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = mnl_nlmsg_get_payload(h);
				size_t off = sizeof(*e);

				ans->err = e->error;
				if (!(h->nlmsg_flags & NLM_F_CAPPED))
					off += mnl_nlmsg_get_payload_len(&e->msg);
				if (h->nlmsg_flags & NLM_F_ACK_TLVS)
					mnl_attr_parse(h, off, ext_cb, ans);
				return ans->err;
			}
			if (cb)
				cb(h, data);
		}
	}
}

static struct nlmsghdr *start(char *buf, uint16_t type, uint16_t flags, uint32_t par, uint32_t hdl)
{
	struct nlmsghdr *h = mnl_nlmsg_put_header(buf);
	struct tcmsg *tc;

	h->nlmsg_type = type;
	h->nlmsg_flags = NLM_F_REQUEST | flags;
	h->nlmsg_seq = seq++;
	tc = mnl_nlmsg_put_extra_header(h, sizeof(*tc));
	tc->tcm_family = AF_UNSPEC;
	tc->tcm_ifindex = ifindex;
	tc->tcm_parent = par;
	tc->tcm_handle = hdl;
	return h;
}

static int opt_cb(const struct nlattr *a, void *data)
{
	struct fqstate *st = data;
	int t = mnl_attr_get_type(a);

	if (t >= 1 && t <= FQ_LAST61) {
		st->has[t] = true;
		st->len[t] = mnl_attr_get_payload_len(a);
		st->v[t] = get_le(mnl_attr_get_payload(a),
				  st->len[t] < 4 ? st->len[t] : 4);
	} else if (t == FQ_PRIOMAP) {
		/* sane() says whether this kernel may send it at all */
		st->has_map = true;
		st->map_len = mnl_attr_get_payload_len(a);
		memcpy(&st->b.map, mnl_attr_get_payload(a),
		       st->map_len < PRIOMAP_LEN ? st->map_len : PRIOMAP_LEN);
	} else if (t == FQ_WEIGHTS) {
		st->has_w = true;
		st->w_len = mnl_attr_get_payload_len(a);
		memcpy(st->b.w, mnl_attr_get_payload(a),
		       st->w_len < WEIGHTS_LEN ? st->w_len : WEIGHTS_LEN);
	} else if (t == FQ_OFFLOAD_HORIZON && is72(kernel) &&
		   mnl_attr_get_payload_len(a) == 4 && !mnl_attr_get_u32(a)) {
		/* 7.2 dumps it; no device here offloads pacing: 0 */
	} else {
		st->unknown_opts++;
	}
	return MNL_CB_OK;
}

static int stats_cb(const struct nlattr *a, void *data)
{
	struct fqstate *st = data;
	int len = mnl_attr_get_payload_len(a);

	switch (mnl_attr_get_type(a)) {
	case TCA_STATS_QUEUE:
		if (len >= (int)sizeof(st->q)) {
			memcpy(&st->q, mnl_attr_get_payload(a), sizeof(st->q));
			st->has_queue = true;
		}
		break;
	case TCA_STATS_BASIC:
		if (len >= 12) {
			struct gnet_stats_basic b;

			memcpy(&b, mnl_attr_get_payload(a), 12);
			if (!st->packets)
				st->packets = b.packets;
		}
		break;
	case TCA_STATS_PKT64:
		if (len == 8)
			st->packets = mnl_attr_get_u64(a);
		break;
	case TCA_STATS_APP:
		st->has_app = true;
		st->app_len = len;
		memcpy(&st->xs, mnl_attr_get_payload(a),
		       len < (int)sizeof(st->xs) ? len : (int)sizeof(st->xs));
		break;
	}
	return MNL_CB_OK;
}

static int qd_cb(const struct nlattr *a, void *data)
{
	struct fqstate *st = data;

	switch (mnl_attr_get_type(a)) {
	case TCA_KIND:
		snprintf(st->kind, sizeof(st->kind), "%.*s",
			 (int)mnl_attr_get_payload_len(a), (const char *)mnl_attr_get_payload(a));
		break;
	case TCA_OPTIONS:
		mnl_attr_parse_nested(a, opt_cb, st);
		break;
	case TCA_STATS2:
		mnl_attr_parse_nested(a, stats_cb, st);
		break;
	}
	return MNL_CB_OK;
}

static void get_cb(const struct nlmsghdr *h, void *data)
{
	struct fqstate *st = data;
	const struct tcmsg *tc = mnl_nlmsg_get_payload(h);

	if (h->nlmsg_type != RTM_NEWQDISC)
		return;
	st->present = true;
	st->handle = tc->tcm_handle;
	mnl_attr_parse(h, sizeof(*tc), qd_cb, st);
}

/* The qdisc at `par` (the one under test, or its parent). */
int getq(uint32_t par, struct fqstate *st)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct answer ans;

	/* A get is answered by a notification, unicast to the asker only with
	 * NLM_F_ECHO; builtin qdiscs (noqueue, noop) are not reported at all, so
	 * NLM_F_ACK marks the end of the answer.
	 */
	memset(st, 0, sizeof(*st));
	talk(start(buf, RTM_GETQDISC, NLM_F_ECHO | NLM_F_ACK, par, 0), &ans, get_cb, st);
	return ans.err;
}

int newq(uint16_t flags, uint32_t hdl, const struct tcase *c, struct answer *ans)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *h = start(buf, RTM_NEWQDISC, NLM_F_ACK | flags, parent, hdl);

	mnl_attr_put_strz(h, TCA_KIND, "fq");
	if (c && !c->no_opts)
		mnl_attr_put(h, TCA_OPTIONS | (c->opts_nested_flag ? NLA_F_NESTED : 0),
			     c->optlen, c->opt);
	return talk(h, ans, NULL, NULL);
}

int delq(void)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct answer ans;

	return talk(start(buf, RTM_DELQDISC, NLM_F_ACK, parent, handle), &ans, NULL, NULL);
}

const char *ename(int err)
{
	/* a few rotating buffers: several calls may feed one printf */
	static char b[4][32];
	static int k;
	const char *n;

	if (!err)
		return "0";
	n = strerrorname_np(-err);
	k = (k + 1) % 4;
	snprintf(b[k], sizeof(b[k]), "-%s", n ? n : "?");
	return b[k];
}
