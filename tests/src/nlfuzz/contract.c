// SPDX-License-Identifier: GPL-2.0
/*
 * nlfuzz: the robustness contract. rules[] has one row per TCA_FQ_*
 * attribute; predict() applies it as each kernel does (stock 6.1, our
 * series, stock 7.2, 7.2 with the net-next series): the answer to a
 * message and the values the qdisc keeps.
 */
#include "nlfuzz.h"

const char *const kern_name[] = { "stock", "patched", "stock72", "next72" };

/* 7.2's fq, stock or with the net-next series (patches/net-next/) */
bool is72(enum kern k)
{
	return k == K_STOCK72 || k == K_NEXT72;
}
const char *const mode_name[] = { "create", "change", "replace" };



/* The robustness contract, one row per TCA_FQ_* attribute. */
const struct rule rules[NFQ] = {
	[TCA_FQ_PLIMIT]            = { "limit", 4, true, 4660, 0, U32MAX, C_NONE, NULL },
	[TCA_FQ_FLOW_PLIMIT]       = { "flow_limit", 4, true, 77, 0, U32MAX, C_NONE, NULL },
	[TCA_FQ_QUANTUM]           = { "quantum", 4, true, 3000, 1, QMAX, C_CHANGE, "invalid quantum" },
	[TCA_FQ_INITIAL_QUANTUM]   = { "initial_quantum", 4, true, 5000, 0, INT_MAX, C_POLICY, NULL },
	[TCA_FQ_RATE_ENABLE]       = { "rate_enable", 4, true, 0, 0, 1, C_CHANGE, NULL },
	[TCA_FQ_FLOW_DEFAULT_RATE] = { "flow_default_rate", 4, false, 1000, 0, U32MAX, C_NONE, NULL },
	[TCA_FQ_FLOW_MAX_RATE]     = { "maxrate", 4, true, 1000000, 0, U32MAX, C_NONE, NULL },
	[TCA_FQ_BUCKETS_LOG]       = { "buckets_log", 4, true, 4, 1, 18, C_CHANGE, NULL },
	[TCA_FQ_FLOW_REFILL_DELAY] = { "refill_delay", 4, true, 8000, 0, U32MAX, C_NONE, NULL },
	[TCA_FQ_ORPHAN_MASK]       = { "orphan_mask", 4, true, 511, 0, U32MAX, C_NONE, NULL },
	[TCA_FQ_LOW_RATE_THRESHOLD] = { "low_rate_threshold", 4, true, 10000, 0, U32MAX, C_NONE, NULL },
	[TCA_FQ_CE_THRESHOLD]      = { "ce_threshold", 4, true, 5000, 0, U32MAX, C_NONE, NULL },
	[TCA_FQ_TIMER_SLACK]       = { "timer_slack", 4, true, 20000, 0, U32MAX, C_NONE, NULL },
	[TCA_FQ_HORIZON]           = { "horizon", 4, true, 500000, 0, U32MAX, C_NONE, NULL },
	[TCA_FQ_HORIZON_DROP]      = { "horizon_drop", 1, true, 0, 0, 255, C_NONE, NULL },
};

/* Both kernels validate strictly (exact length, no NLA_F_NESTED) only from
 * TCA_FQ_TIMER_SLACK on (policy strict_start_type, as in 6.1).
 */
static bool strict(int t)
{
	return t >= TCA_FQ_TIMER_SLACK;
}


/* The defaults, upstream's and ours: pfifo_fast's sch_default_prio2band
 * and weights 9, 3 and 1 << 16.
 */
const struct bands bands_doc = {
	.map = { FQ_BANDS, { 1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1 } },
	.w = { 589824, 196608, 65536 },
};

bool bands_eq(const struct bands *a, const struct bands *b)
{
	return a->map.bands == b->map.bands &&
	       !memcmp(a->map.priomap, b->map.priomap, sizeof(a->map.priomap)) &&
	       !memcmp(a->w, b->w, sizeof(a->w));
}

/* "priomap=1 2 2 ...,weights=589824 196608 65536" (what differs from def),
 * appended to buf after a comma when buf is not empty.
 */
void bands_fmt(char *buf, size_t n, const struct bands *b, const struct bands *def)
{
	size_t l = strlen(buf);
	int i;

	if (b->map.bands != def->map.bands ||
	    memcmp(b->map.priomap, def->map.priomap, sizeof(b->map.priomap))) {
		l += snprintf(buf + l, n - l, "%spriomap=", l ? "," : "");
		if (l < n && b->map.bands != FQ_BANDS)
			l += snprintf(buf + l, n - l, "bands %d:", b->map.bands);
		for (i = 0; i <= TC_PRIO_MAX && l < n; i++)
			l += snprintf(buf + l, n - l, "%s%u", i ? " " : "", b->map.priomap[i]);
	}
	if (l < n && memcmp(b->w, def->w, sizeof(b->w)))
		snprintf(buf + l, n - l, "%sweights=%d %d %d", l ? "," : "",
			 b->w[0], b->w[1], b->w[2]);
}

/* ---- the contract applied: what a kernel answers and what it keeps ---- */

unsigned long tick_us = 4000;	/* calibrated from the kernel, see main() */

/* jiffies_to_usecs(usecs_to_jiffies(u)) as 6.1 computes it for HZ dividing 1e6,
 * including the u32 truncations (flow_refill_delay is a u32).
 */
static uint32_t refill_roundtrip(uint32_t u)
{
	const unsigned long max_jiffy_offset = (LONG_MAX >> 1) - 1;
	uint32_t max_us = (uint32_t)(tick_us * max_jiffy_offset);
	unsigned long j = u > max_us ? max_jiffy_offset : (u + tick_us - 1) / tick_us;
	uint32_t stored = (uint32_t)j;

	return (uint32_t)(tick_us * (unsigned long)stored);
}


uint32_t get_le(const uint8_t *p, int n)
{
	uint32_t v = 0;

	memcpy(&v, p, n > 4 ? 4 : n);
	return v;
}

bool in(uint32_t v, uint32_t lo, uint32_t hi)
{
	return v >= lo && v <= hi;
}

static void store(struct pred *p, int t, uint32_t v)
{
	if (!rules[t].dumped)
		return;
	p->napplied++;
	p->has_alt[t] = false;
	if (t == TCA_FQ_FLOW_REFILL_DELAY) {
		p->v[t] = refill_roundtrip(v);	/* jiffies, on both kernels */
	} else if (t == TCA_FQ_HORIZON_DROP) {
		p->v[t] = v & 0xff;	/* the u8 as set, on both kernels */
	} else {
		p->v[t] = v;
	}
}

/* Our series' fq_change() checks of the bands: -EINVAL, nothing applied. */
static const struct {
	const char *msg, *why;
} band_bad[] = {
	{ "fq has exactly 3 bands",
	  "bands != 3, nothing applied, extack \"fq has exactly 3 bands\"" },
	{ "priomap bands must be 0, 1 or 2",
	  "band > 2, nothing applied, extack \"priomap bands must be 0, 1 or 2\"" },
	{ "weights must be at least 16384",
	  "weight < 16384, nothing applied, extack \"weights must be at least 16384\"" },
};

/* 7.2's fq_change() after the parse: every value applied in turn, quantum
 * clamped; buckets_log or rate_enable out of range set -EINVAL (no extack)
 * and hold back the bands and the rehash; then the priomap and the weights
 * are checked and applied, each only while no error came before it.
 */
static void predict72(const struct tcase *c, const uint32_t *val, const bool *have,
		      bool have_map, bool have_w, const struct bands *nb, struct pred *p)
{
	int t, i;

	(void)c;
	for (t = 1; t <= FQ_LAST61; t++) {
		const struct rule *r = &rules[t];

		if (!have[t] || t == TCA_FQ_BUCKETS_LOG)
			continue;
		if (t == TCA_FQ_QUANTUM) {
			store(p, t, val[t] < QMIN72 ? QMIN72 : val[t] > QMAX ? QMAX : val[t]);
			continue;
		}
		if (r->check == C_CHANGE && !in(val[t], r->lo, r->hi))
			continue;
		store(p, t, val[t]);
	}
	if (have_map && !p->err) {
		if (nb->map.bands != FQ_BANDS) {
			p->err = -EINVAL;
			p->msg_sub = "FQ only supports 3 bands";
		}
		for (i = 0; !p->err && i <= TC_PRIO_MAX; i++)
			if (nb->map.priomap[i] >= FQ_BANDS) {
				p->err = -EINVAL;
				p->msg_sub = "maps to a too high band";
			}
		if (!p->err) {
			p->b.map = nb->map;
			p->napplied++;
		}
	}
	if (have_w && !p->err) {
		for (i = 0; !p->err && i < FQ_BANDS; i++)
			if (nb->w[i] < FQ_MIN_WEIGHT) {
				p->err = -EINVAL;
				p->msg_sub = "less that minimum allowed";
			}
		if (!p->err) {
			memcpy(p->b.w, nb->w, sizeof(p->b.w));
			p->napplied++;
		}
	}
	if (p->msg_sub) {
		p->msg_required = true;
		p->msg_forbidden = false;
	}
	/* the rehash (fq_resize) only when nothing was bad */
	if (have[TCA_FQ_BUCKETS_LOG] && !p->err)
		store(p, TCA_FQ_BUCKETS_LOG, val[TCA_FQ_BUCKETS_LOG]);
	if (p->err && p->napplied)
		p->why = "value out of range, others applied";
	else if (p->err)
		p->why = "value out of range";
	else if (!p->napplied)
		p->why = p->nignored ? "ignored" : "accepted, no-op";
}

void predict(enum kern k, const struct tcase *c, const uint32_t *base,
		    const struct bands *bbase, struct pred *p)
{
	bool have[NFQ] = { false }, have_map = false, have_w = false;
	uint32_t val[NFQ] = { 0 };
	struct bands nb = *bbase;
	int rem = c->optlen, t, i, nbadv = 0, bad_band = -1;
	const uint8_t *pos = c->opt;

	memset(p, 0, sizeof(*p));
	memcpy(p->v, base, sizeof(p->v));
	p->b = *bbase;
	p->why = "accepted";
	p->msg_forbidden = k != K_PATCHED;

	/* Parse: nla_for_each_attr() + validate_nla(), liberal mode
	 * (nla_parse_nested_deprecated) in both kernels.
	 */
	while (rem >= NLA_HDRLEN) {
		struct nlattr na;
		int alen;

		memcpy(&na, pos, sizeof(na));
		if (na.nla_len < NLA_HDRLEN || na.nla_len > rem)
			break;
		t = na.nla_type & NLA_TYPE_MASK;
		alen = na.nla_len - NLA_HDRLEN;
		if (t >= 1 && t <= FQ_LAST61) {
			const struct rule *r = &rules[t];
			uint32_t v;

			if (alen != r->len && strict(t)) {
				p->err = -EINVAL;
				p->why = "bad length (strict)";
				goto rejected;
			}
			if ((na.nla_type & NLA_F_NESTED) && strict(t)) {
				p->err = -EINVAL;
				p->why = "NLA_F_NESTED on a scalar (strict)";
				goto rejected;
			}
			if (alen < r->len) {
				p->err = -ERANGE;
				p->why = "too short (liberal)";
				goto rejected;
			}
			v = get_le(pos + NLA_HDRLEN, r->len);
			if (r->check == C_POLICY &&
			    !in(v, r->lo, is72(k) && t == TCA_FQ_INITIAL_QUANTUM ? QMAX : r->hi)) {
				p->err = -ERANGE;
				p->why = "policy range";
				goto rejected;
			}
			have[t] = true;
			val[t] = v;
		} else if (k != K_STOCK && (t == FQ_PRIOMAP || t == FQ_WEIGHTS)) {
			/* NLA_POLICY_EXACT_LEN: NLA_BINARY, validated strictly
			 * (above strict_start_type), then its length by range.
			 */
			int want = t == FQ_PRIOMAP ? PRIOMAP_LEN : WEIGHTS_LEN;

			if (na.nla_type & NLA_F_NESTED) {
				p->err = -EINVAL;
				p->why = "NLA_F_NESTED on a binary (strict)";
				goto rejected;
			}
			if (alen != want) {
				p->err = -ERANGE;
				if (is72(k)) {
					/* 7.2 parses its options without extack */
					p->why = "exact length (policy), no extack";
					goto rejected;
				}
				p->why = "exact length (policy), extack \"binary attribute size out of range\"";
				p->msg_required = true;
				p->msg_sub = "binary attribute size out of range";
				goto rejected;
			}
			if (t == FQ_PRIOMAP) {
				memcpy(&nb.map, pos + NLA_HDRLEN, PRIOMAP_LEN);
				have_map = true;
			} else {
				memcpy(nb.w, pos + NLA_HDRLEN, WEIGHTS_LEN);
				have_w = true;
			}
		} else {
			/* stock: any type above its TCA_FQ_MAX (15) */
			p->nignored++;
		}
		rem -= NLA_ALIGN(na.nla_len);
		pos += NLA_ALIGN(na.nla_len);
	}
	/* Leftover bytes only warn in liberal mode. */

	/* fq_change()'s value checks, the same on both kernels: -EINVAL */
	for (t = 1; t <= FQ_LAST61; t++) {
		const struct rule *r = &rules[t];

		if (!have[t])
			continue;
		/* 7.2 clamps quantum instead */
		if (is72(k) && t == TCA_FQ_QUANTUM)
			continue;
		if (r->check == C_CHANGE && !in(val[t], r->lo, r->hi)) {
			nbadv++;
			p->err = -EINVAL;
			p->why = "value out of range";
			if (k == K_PATCHED) {
				p->msg_required = true;
			} else if (r->s_msg && k == K_STOCK) {
				p->msg_required = true;
				p->msg_sub = r->s_msg;
				p->msg_forbidden = false;
			}
		}
	}
	if (is72(k)) {
		predict72(c, val, have, have_map, have_w, &nb, p);
		/* The net-next series checks every value before it applies
		 * any (fq_validate()): the same answers, nothing applied.
		 */
		if (k == K_NEXT72 && p->err) {
			memcpy(p->v, base, sizeof(p->v));
			p->b = *bbase;
			p->napplied = 0;
			p->why = "value out of range, nothing applied";
		}
		return;
	}
	/* Ours: the bands (the last one of each type counts, as for the rest) */
	if (have_map && nb.map.bands != FQ_BANDS) {
		nbadv++;
		bad_band = 0;
	}
	if (have_map)
		for (i = 0; i <= TC_PRIO_MAX; i++)
			if (nb.map.priomap[i] >= FQ_BANDS) {
				nbadv++;
				bad_band = 1;
				break;
			}
	if (have_w)
		for (i = 0; i < FQ_BANDS; i++)
			if (nb.w[i] < FQ_MIN_WEIGHT) {
				nbadv++;
				bad_band = 2;
				break;
			}
	if (bad_band >= 0) {
		p->err = -EINVAL;
		p->msg_required = true;
	}
	/* Ours: all or nothing. Which message comes with several bad values
	 * is the order of fq_change()'s checks: only a lone one is named.
	 */
	if (k == K_PATCHED && p->err) {
		p->why = "value out of range, nothing applied";
		if (nbadv == 1 && bad_band >= 0) {
			p->why = band_bad[bad_band].why;
			p->msg_sub = band_bad[bad_band].msg;
		}
		return;
	}
	/* Stock fq_change(): values applied one by one; a bad one sets err
	 * but the others are still applied, except buckets_log.
	 */
	for (t = 1; t <= FQ_LAST61; t++) {
		const struct rule *r = &rules[t];

		if (!have[t])
			continue;
		if (r->check == C_CHANGE && !in(val[t], r->lo, r->hi))
			continue;
		if (t == TCA_FQ_BUCKETS_LOG && p->err)
			continue;
		store(p, t, val[t]);
	}
	if (have_map || have_w) {
		p->b = nb;
		p->napplied++;
	}
	if (p->err && p->napplied)
		p->why = "value out of range, others applied";
	else if (!p->err && !p->napplied)
		p->why = p->nignored ? "ignored" : "accepted, no-op";
	return;

rejected:
	/* A parse error: nothing applied on either kernel. Our series passes
	 * extack to the parser, which may set a message (not required).
	 */
	memcpy(p->v, base, sizeof(p->v));
	memset(p->has_alt, 0, sizeof(p->has_alt));
	p->b = *bbase;
	p->napplied = 0;
}
