// SPDX-License-Identifier: GPL-2.0
/*
 * nlfuzz: the checks. Every read-back must be sane whatever the message
 * was (sane()), equal what the contract predicts (compare()), and the
 * answer must be the predicted errno and extack (check_answer()); each
 * mismatch is collected in why[] and counted in nbad.
 */
#include "nlfuzz.h"

int nbad;
char why[1024];

void bad(const char *fmt, ...)
{
	size_t n = strlen(why);
	va_list ap;

	va_start(ap, fmt);
	if (n)
		n += snprintf(why + n, sizeof(why) - n, "; ");
	if (n < sizeof(why))
		vsnprintf(why + n, sizeof(why) - n, fmt, ap);
	va_end(ap);
}

/* Sanity of any fq read-back, whatever the message was. */
void sane(const struct fqstate *st)
{
	int t;

	if (!st->present) {
		bad("qdisc gone");
		return;
	}
	if (strcmp(st->kind, "fq")) {
		bad("kind %s, want fq", st->kind);
		return;
	}
	for (t = 1; t <= FQ_LAST61; t++) {
		if (!rules[t].dumped) {
			if (st->has[t])
				bad("%s dumped, it is write-only", rules[t].name);
			continue;
		}
		if (!st->has[t])
			bad("%s missing from the dump", rules[t].name);
		else if (st->len[t] != rules[t].len)
			bad("%s dumped with %d bytes", rules[t].name, st->len[t]);
	}
	if (st->unknown_opts)
		bad("%d unknown attributes in the dump", st->unknown_opts);
	/* The bands: always dumped by ours, never by stock (no such types). */
	if (kernel == K_STOCK) {
		if (st->has_map || st->has_w)
			bad("stock dumped type %d (unknown in 6.1)",
			    st->has_map ? FQ_PRIOMAP : FQ_WEIGHTS);
	} else {
		int i;

		if (!st->has_map)
			bad("priomap missing from the dump");
		else if (st->map_len != PRIOMAP_LEN)
			bad("priomap dumped with %d bytes", st->map_len);
		else if (st->b.map.bands != FQ_BANDS)
			bad("priomap dumped with bands %d", st->b.map.bands);
		else
			for (i = 0; i <= TC_PRIO_MAX; i++)
				if (st->b.map.priomap[i] >= FQ_BANDS) {
					bad("priomap[%d] = band %u", i, st->b.map.priomap[i]);
					break;
				}
		if (!st->has_w)
			bad("weights missing from the dump");
		else if (st->w_len != WEIGHTS_LEN)
			bad("weights dumped with %d bytes", st->w_len);
		else
			for (i = 0; i < FQ_BANDS; i++)
				if (st->b.w[i] < FQ_MIN_WEIGHT) {
					bad("weight[%d] = %d", i, st->b.w[i]);
					break;
				}
	}
	if (!in(st->v[TCA_FQ_QUANTUM], is72(kernel) ? QMIN72 : 1, QMAX))
		bad("quantum %u outside 1..2^20", st->v[TCA_FQ_QUANTUM]);
	if (st->v[TCA_FQ_INITIAL_QUANTUM] > INT_MAX)
		bad("initial_quantum %u out of range", st->v[TCA_FQ_INITIAL_QUANTUM]);
	if (!in(st->v[TCA_FQ_BUCKETS_LOG], 1, 18))
		bad("buckets_log %u outside 1..18", st->v[TCA_FQ_BUCKETS_LOG]);
	if (st->v[TCA_FQ_RATE_ENABLE] > 1)
		bad("rate_enable %u", st->v[TCA_FQ_RATE_ENABLE]);
	/* Stock trims a lowered limit by dequeueing, which stops at the first
	 * throttled flow: paced packets may stay above the new limit. Ours
	 * drops down to the limit, a packet a parent peeked included
	 * (sch->gso_skb, as 6.1.192's qdisc_dequeue_internal()).
	 */
	if (!st->has_queue)
		bad("no queue stats");
	else if (kernel == K_PATCHED && st->q.qlen > st->v[TCA_FQ_PLIMIT])
		bad("qlen %u > limit %u", st->q.qlen, st->v[TCA_FQ_PLIMIT]);
	/* 6.1's struct on stock; ours appends (fastpath_packets, the bands'
	 * counters) after it, keeping the 6.1 prefix that bookworm's tc reads.
	 */
	if (!st->has_app || st->app_len % 4 ||
	    (kernel == K_STOCK ? st->app_len != XSTATS_61 : st->app_len < XSTATS_BANDS))
		bad("xstats %d bytes, want %s%d", st->app_len, kernel == K_STOCK ? "" : ">= ",
		    kernel == K_STOCK ? XSTATS_61 : XSTATS_BANDS);
	else if (st->xs.inactive_flows > st->xs.flows || st->xs.throttled_flows > st->xs.flows)
		bad("flows %u < inactive %u or throttled %u", st->xs.flows,
		    st->xs.inactive_flows, st->xs.throttled_flows);
}

void compare(const struct fqstate *st, const struct pred *p)
{
	int t;

	for (t = 1; t <= FQ_LAST61; t++) {
		if (!rules[t].dumped || !st->has[t])
			continue;
		if (st->v[t] == p->v[t] || (p->has_alt[t] && st->v[t] == p->alt[t]))
			continue;
		bad("%s=%u, want %u", rules[t].name, st->v[t], p->v[t]);
	}
	/* sane() reported missing or malformed bands already */
	if (kernel != K_STOCK && st->has_map && st->has_w && !bands_eq(&st->b, &p->b)) {
		char got[160] = "", want[160] = "";

		bands_fmt(got, sizeof(got), &st->b, &p->b);
		bands_fmt(want, sizeof(want), &p->b, &st->b);
		bad("%s, want %s", got, want);
	}
}

void check_answer(const struct answer *a, const struct pred *p)
{
	if (a->err != p->err) {
		bad("answer %s, want %s", ename(a->err), ename(p->err));
		return;
	}
	if (!a->err)
		return;
	if (p->msg_required && !a->msg[0])
		bad("no extack message");
	if (p->msg_sub && !strstr(a->msg, p->msg_sub))
		bad("extack '%s' lacks '%s'", a->msg, p->msg_sub);
	if (p->msg_forbidden && a->msg[0])
		bad("unexpected extack '%s'", a->msg);
}
