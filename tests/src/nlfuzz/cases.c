// SPDX-License-Identifier: GPL-2.0
/*
 * nlfuzz: the message list. Each test case is one TCA_OPTIONS payload
 * (an fq option at edge values, truncated or oversized attributes, unknown
 * types, nested garbage, mixes of good and bad, the bands), built once.
 */
#include "nlfuzz.h"

struct tcase *cases;
int ncases, capcases;

static struct tcase *newcase(const char *id)
{
	struct tcase *c;

	if (ncases == capcases) {
		capcases = capcases ? capcases * 2 : 256;
		cases = realloc(cases, capcases * sizeof(*cases));
		if (!cases) {
			perror("realloc");
			exit(2);
		}
	}
	c = &cases[ncases++];
	memset(c, 0, sizeof(*c));
	snprintf(c->id, sizeof(c->id), "%s", id);
	return c;
}

/* Append one attribute: nla_len is 4 + plen unless forced (forced_len >= 0). */
static void put_raw(struct tcase *c, uint16_t type, const void *p, int plen, int forced_len)
{
	struct nlattr na;
	int tot = NLA_ALIGN(NLA_HDRLEN + plen);

	if (c->optlen + tot > MAXOPT) {
		fprintf(stderr, "test %s too long\n", c->id);
		exit(2);
	}
	na.nla_len = forced_len >= 0 ? forced_len : NLA_HDRLEN + plen;
	na.nla_type = type;
	memcpy(c->opt + c->optlen, &na, sizeof(na));
	if (plen)
		memcpy(c->opt + c->optlen + NLA_HDRLEN, p, plen);
	c->optlen += tot;
}

void put_u32(struct tcase *c, uint16_t type, uint32_t v)
{
	put_raw(c, type, &v, 4, -1);
}

void put_val(struct tcase *c, int t, uint32_t v)
{
	uint8_t b = v;

	if (rules[t].len == 1)
		put_raw(c, t, &b, 1, -1);
	else
		put_u32(c, t, v);
}

static void adddesc(struct tcase *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void adddesc(struct tcase *c, const char *fmt, ...)
{
	size_t n = strlen(c->desc);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->desc + n, sizeof(c->desc) - n, fmt, ap);
	va_end(ap);
}

/* ---- the message list ---- */

static uint32_t rnd_state = 0x5eed1234;
static uint32_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

void add_value_cases(void)
{
	int t;

	for (t = 1; t <= FQ_LAST61; t++) {
		const struct rule *r = &rules[t];
		uint32_t vals[32];
		const char *lbl[32];
		int n = 0, i, j;

#define V(x, l) do { vals[n] = (x); lbl[n] = (l); n++; } while (0)
		if (r->len == 1) {
			V(0, "0"); V(1, "1"); V(2, "2"); V(0x7f, "127");
			V(0x80, "128(-128)"); V(0xfe, "max-1"); V(0xff, "max(-1)");
		} else {
			/* initial_quantum: probe around 1<<20 too, the bound
			 * an earlier version of our series had (INT_MAX and
			 * 2^31 follow below).
			 */
			uint32_t hi = t == TCA_FQ_INITIAL_QUANTUM ? QMAX : r->hi;

			V(0, "0"); V(1, "1");
			if (hi != U32MAX) {
				V(hi - 1, "max-1"); V(hi, "max"); V(hi + 1, "max+1");
			}
			if (t == TCA_FQ_INITIAL_QUANTUM) {
				V(INT_MAX, "INT_MAX"); V(QMAX, "1<<20");
			}
			V(0x7fffffff, "INT_MAX"); V(0x80000000u, "INT_MIN(2^31)");
			V(U32MAX - 1, "u32max-1"); V(U32MAX, "u32max(-1)");
		}
#undef V
		for (i = 0; i < n; i++) {
			char id[96];
			struct tcase *c;
			bool dup = false;

			for (j = 0; j < i; j++)
				dup |= vals[j] == vals[i];
			if (dup)
				continue;
			snprintf(id, sizeof(id), "%s=%s", r->name, lbl[i]);
			c = newcase(id);
			put_val(c, t, vals[i]);
			adddesc(c, "%s %u", r->name, vals[i]);
			c->syz = (t == TCA_FQ_QUANTUM && (vals[i] == 0 || vals[i] == 0x80000000u)) ||
				 (t == TCA_FQ_INITIAL_QUANTUM && vals[i] > INT_MAX) ||
				 (t == TCA_FQ_BUCKETS_LOG && (vals[i] == 0 || vals[i] == 19));
		}
	}
	/* buckets_log 0 and 19 are syzkaller triggers: make sure both exist */
	{
		struct tcase *c = newcase("buckets_log=0(syz)");

		put_u32(c, TCA_FQ_BUCKETS_LOG, 0);
		adddesc(c, "buckets_log 0");
		c->syz = true;
	}
}

void add_length_cases(void)
{
	static const int u32lens[] = { 0, 2, 8 }, u8lens[] = { 0, 2, 4 };
	int t, i;

	for (t = 1; t <= FQ_LAST61; t++) {
		const struct rule *r = &rules[t];
		const int *lens = r->len == 1 ? u8lens : u32lens;

		for (i = 0; i < 3; i++) {
			/* probe value first (LE), then junk */
			uint8_t p[8] = { 0 };
			uint32_t junk = 0xdeadbeef;
			char id[96];
			struct tcase *c;

			memcpy(p, &r->probe, 4);
			if (r->len == 1)
				p[0] = r->probe ? 1 : 0;
			memcpy(p + 4, &junk, 4);
			if (r->len == 1 && lens[i] > 1)
				p[1] = 0xbe;
			snprintf(id, sizeof(id), "%s/len%d", r->name, lens[i]);
			c = newcase(id);
			put_raw(c, t, p, lens[i], -1);
			adddesc(c, "%s with a %d-byte payload", r->name, lens[i]);
			c->syz = t == TCA_FQ_ORPHAN_MASK && lens[i] < 4;
		}
	}
}

void add_garbage_cases(void)
{
	static const uint16_t unknown[] = { 0, 16, 100, 0x7fff };
	struct tcase *c;
	uint32_t v;
	int i;

	for (i = 0; i < 4; i++) {
		char id[64];

		snprintf(id, sizeof(id), "unknown_type=%u", unknown[i]);
		c = newcase(id);
		put_u32(c, unknown[i], 1);
		adddesc(c, "attribute type %u (nla_type %u) with a u32", unknown[i],
			unknown[i] & NLA_TYPE_MASK);
		if (unknown[i] == FQ_PRIOMAP)
			adddesc(c, " (our series: a 4-byte priomap)");
	}
	c = newcase("no_options");
	c->no_opts = true;
	adddesc(c, "no TCA_OPTIONS");
	c = newcase("empty_options");
	adddesc(c, "TCA_OPTIONS with no payload");
	c = newcase("options_nested_flag");
	c->opts_nested_flag = true;
	put_u32(c, TCA_FQ_PLIMIT, rules[TCA_FQ_PLIMIT].probe);
	adddesc(c, "TCA_OPTIONS|NLA_F_NESTED holding limit %u", rules[TCA_FQ_PLIMIT].probe);

	/* non-nested TCA_OPTIONS: a bare u32 where attributes belong */
	v = 0xdeadbeef;
	c = newcase("options_flat_u32=0xdeadbeef");
	memcpy(c->opt, &v, 4);
	c->optlen = 4;
	adddesc(c, "TCA_OPTIONS is a bare u32 0xdeadbeef (nla_len 0xbeef > payload)");
	v = 0x00030004;	/* reads as an empty TCA_FQ_QUANTUM header */
	c = newcase("options_flat_u32=0x00030004");
	memcpy(c->opt, &v, 4);
	c->optlen = 4;
	adddesc(c, "TCA_OPTIONS is a bare u32 0x00030004 (= empty quantum attribute)");
	v = 0x00000004;
	c = newcase("options_flat_u32=4");
	memcpy(c->opt, &v, 4);
	c->optlen = 4;
	adddesc(c, "TCA_OPTIONS is a bare u32 4 (= empty type-0 attribute)");
	c = newcase("options_2_bytes");
	c->opt[0] = 0x42;
	c->opt[1] = 0x42;
	c->optlen = 2;
	adddesc(c, "TCA_OPTIONS with a 2-byte payload");

	/* malformed attribute headers */
	c = newcase("nla_len=0xffff");
	put_raw(c, TCA_FQ_PLIMIT, &rules[TCA_FQ_PLIMIT].probe, 4, 0xffff);
	adddesc(c, "limit attribute claiming nla_len 0xffff");
	c = newcase("nla_len=3");
	put_raw(c, TCA_FQ_PLIMIT, &rules[TCA_FQ_PLIMIT].probe, 4, 3);
	adddesc(c, "limit attribute claiming nla_len 3 (< header)");
	c = newcase("trailing_3_bytes");
	put_u32(c, TCA_FQ_PLIMIT, rules[TCA_FQ_PLIMIT].probe);
	c->opt[c->optlen] = 1;
	c->opt[c->optlen + 1] = 2;
	c->opt[c->optlen + 2] = 3;
	c->optlen += 3;
	adddesc(c, "valid limit then 3 stray bytes");

	/* nested garbage */
	{
		struct tcase in = { .optlen = 0 };

		put_u32(&in, TCA_FQ_PLIMIT, 5);
		c = newcase("nested:limit{limit=5}");
		put_raw(c, TCA_FQ_PLIMIT | NLA_F_NESTED, in.opt, in.optlen, -1);
		adddesc(c, "limit|NLA_F_NESTED holding a nested limit=5 attribute");

		c = newcase("nested:timer_slack{limit=5}");
		put_raw(c, TCA_FQ_TIMER_SLACK | NLA_F_NESTED, in.opt, in.optlen, -1);
		adddesc(c, "timer_slack|NLA_F_NESTED holding a nested attribute");

		c = newcase("nested:timer_slack|F_NESTED=20000");
		v = 20000;
		put_raw(c, TCA_FQ_TIMER_SLACK | NLA_F_NESTED, &v, 4, -1);
		adddesc(c, "timer_slack 20000 with NLA_F_NESTED set");

		c = newcase("nested:quantum|F_NESTED=3000");
		v = 3000;
		put_raw(c, TCA_FQ_QUANTUM | NLA_F_NESTED, &v, 4, -1);
		adddesc(c, "quantum 3000 with NLA_F_NESTED set");
	}
	{
		/* three levels deep under an unknown type */
		struct tcase a = { .optlen = 0 }, b = { .optlen = 0 };

		put_u32(&a, TCA_FQ_QUANTUM, 0);
		put_raw(&b, 0x7fff | NLA_F_NESTED, a.opt, a.optlen, -1);
		c = newcase("nested:unknown{unknown{quantum=0}}");
		put_raw(c, 0x7ffe | NLA_F_NESTED, b.opt, b.optlen, -1);
		adddesc(c, "unknown nests holding quantum 0 three levels down");
	}
	for (i = 0; i < 8; i++) {
		char id[64];
		int j, n = 8 + rnd() % 56;

		snprintf(id, sizeof(id), "random_bytes#%d", i);
		c = newcase(id);
		/* half of them start with a plausible header so parsing gets further */
		for (j = 0; j < n; j++)
			c->opt[j] = rnd();
		if (i & 1) {
			struct nlattr na = { .nla_len = 4 + rnd() % 8,
					     .nla_type = 1 + rnd() % FQ_LAST61 };
			memcpy(c->opt, &na, sizeof(na));
		}
		c->optlen = n;
		adddesc(c, "%d pseudo-random bytes (seeded)", n);
	}
}

void add_mixed_cases(void)
{
	struct tcase *c;
	int t;

#define P(t) rules[t].probe
	c = newcase("mix:limit+quantum=0");
	put_u32(c, TCA_FQ_PLIMIT, P(TCA_FQ_PLIMIT));
	put_u32(c, TCA_FQ_QUANTUM, 0);
	adddesc(c, "limit %u and quantum 0", P(TCA_FQ_PLIMIT));
	c->syz = true;

	c = newcase("mix:quantum=2^31+flow_limit+horizon");
	put_u32(c, TCA_FQ_QUANTUM, 0x80000000u);
	put_u32(c, TCA_FQ_FLOW_PLIMIT, P(TCA_FQ_FLOW_PLIMIT));
	put_u32(c, TCA_FQ_HORIZON, P(TCA_FQ_HORIZON));
	adddesc(c, "quantum 2^31, flow_limit, horizon");

	c = newcase("mix:buckets_log=19+limit");
	put_u32(c, TCA_FQ_BUCKETS_LOG, 19);
	put_u32(c, TCA_FQ_PLIMIT, P(TCA_FQ_PLIMIT));
	adddesc(c, "buckets_log 19 and limit");

	c = newcase("mix:buckets_log=4+rate_enable=2");
	put_u32(c, TCA_FQ_BUCKETS_LOG, 4);
	put_u32(c, TCA_FQ_RATE_ENABLE, 2);
	adddesc(c, "buckets_log 4 (good) and rate_enable 2 (bad)");

	c = newcase("mix:rate_enable=2+orphan_mask+ce_threshold");
	put_u32(c, TCA_FQ_RATE_ENABLE, 2);
	put_u32(c, TCA_FQ_ORPHAN_MASK, P(TCA_FQ_ORPHAN_MASK));
	put_u32(c, TCA_FQ_CE_THRESHOLD, P(TCA_FQ_CE_THRESHOLD));
	adddesc(c, "rate_enable 2, orphan_mask, ce_threshold");

	c = newcase("mix:initial_quantum=2^31+limit");
	put_u32(c, TCA_FQ_INITIAL_QUANTUM, 0x80000000u);
	put_u32(c, TCA_FQ_PLIMIT, P(TCA_FQ_PLIMIT));
	adddesc(c, "initial_quantum 2^31 and limit");

	c = newcase("mix:limit+timer_slack/len2");
	put_u32(c, TCA_FQ_PLIMIT, P(TCA_FQ_PLIMIT));
	put_raw(c, TCA_FQ_TIMER_SLACK, &rules[TCA_FQ_TIMER_SLACK].probe, 2, -1);
	adddesc(c, "limit and a 2-byte timer_slack");

	c = newcase("mix:limit+orphan_mask/len2");
	put_u32(c, TCA_FQ_PLIMIT, P(TCA_FQ_PLIMIT));
	put_raw(c, TCA_FQ_ORPHAN_MASK, &rules[TCA_FQ_ORPHAN_MASK].probe, 2, -1);
	adddesc(c, "limit and a 2-byte orphan_mask");

	c = newcase("dup:quantum=0,quantum=3000");
	put_u32(c, TCA_FQ_QUANTUM, 0);
	put_u32(c, TCA_FQ_QUANTUM, 3000);
	adddesc(c, "quantum twice, 0 then 3000 (the last one counts)");

	c = newcase("dup:quantum=3000,quantum=0");
	put_u32(c, TCA_FQ_QUANTUM, 3000);
	put_u32(c, TCA_FQ_QUANTUM, 0);
	adddesc(c, "quantum twice, 3000 then 0");

	c = newcase("all_probes");
	for (t = 1; t <= FQ_LAST61; t++)
		put_val(c, t, P(t));
	adddesc(c, "every 6.1 attribute at a valid non-default value");

	c = newcase("all_probes+buckets_log=0");
	for (t = 1; t <= FQ_LAST61; t++)
		put_val(c, t, t == TCA_FQ_BUCKETS_LOG ? 0 : P(t));
	adddesc(c, "every 6.1 attribute valid except buckets_log 0");

	c = newcase("all_probes+quantum=0");
	for (t = 1; t <= FQ_LAST61; t++)
		put_val(c, t, t == TCA_FQ_QUANTUM ? 0 : P(t));
	adddesc(c, "every 6.1 attribute valid except quantum 0");
#undef P
}

/* A priomap or weights payload of `len` bytes: the struct, cut short or
 * followed by zeroes.
 */
void put_map(struct tcase *c, const struct tc_prio_qopt *m, int len)
{
	uint8_t p[PRIOMAP_LEN + 8] = { 0 };

	memcpy(p, m, PRIOMAP_LEN);
	put_raw(c, FQ_PRIOMAP, p, len, -1);
}

void put_weights(struct tcase *c, const int32_t *w, int len)
{
	uint8_t p[WEIGHTS_LEN + 8] = { 0 };

	memcpy(p, w, WEIGHTS_LEN);
	put_raw(c, FQ_WEIGHTS, p, len, -1);
}

/* Our series' bands: bad priomaps, bad weights and wrong lengths
 * are rejected as a whole, alone or beside valid 6.1 attributes. Stock 6.1
 * skips both types (above its TCA_FQ_MAX): these rows are where it differs.
 */
void add_band_cases(void)
{
	/* valid and unlike the defaults: band i % 3, weights reversed */
	static const struct bands good = {
		.map = { FQ_BANDS, { 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0 } },
		.w = { 65536, 131072, 262144 },
	};
	static const int32_t badw[] = { FQ_MIN_WEIGHT - 1, 0, -1 };
	static const int badbands[] = { 2, 4 };
	static const uint8_t badprio[] = { 3, 255 };
	struct tc_prio_qopt m;
	struct tcase *c;
	int32_t w[FQ_BANDS];
	char id[96];
	int i, j;

	for (i = 0; i < 2; i++) {
		snprintf(id, sizeof(id), "priomap:bands=%d", badbands[i]);
		c = newcase(id);
		m = bands_doc.map;
		m.bands = badbands[i];
		put_map(c, &m, PRIOMAP_LEN);
		adddesc(c, "priomap with bands %d (the default map)", badbands[i]);
	}
	/* a bad band first and last: the whole map is checked */
	for (i = 0; i < 2; i++)
		for (j = 0; j <= TC_PRIO_MAX; j += TC_PRIO_MAX) {
			snprintf(id, sizeof(id), "priomap:map[%d]=%u", j, badprio[i]);
			c = newcase(id);
			m = bands_doc.map;
			m.priomap[j] = badprio[i];
			put_map(c, &m, PRIOMAP_LEN);
			adddesc(c, "default priomap with priority %d in band %u", j, badprio[i]);
		}
	for (i = PRIOMAP_LEN - 1; i <= PRIOMAP_LEN + 1; i += 2) {
		snprintf(id, sizeof(id), "priomap/len%d", i);
		c = newcase(id);
		put_map(c, &good.map, i);
		adddesc(c, "a valid priomap in a payload of %d bytes", i);
	}
	c = newcase("nested:priomap|F_NESTED");
	m = good.map;
	put_raw(c, FQ_PRIOMAP | NLA_F_NESTED, &m, PRIOMAP_LEN, -1);
	adddesc(c, "a valid priomap with NLA_F_NESTED set");

	/* each bad weight in each band, the other two at their defaults */
	for (i = 0; i < 3; i++)
		for (j = 0; j < FQ_BANDS; j++) {
			snprintf(id, sizeof(id), "weights[%d]=%d", j, badw[i]);
			c = newcase(id);
			memcpy(w, bands_doc.w, sizeof(w));
			w[j] = badw[i];
			put_weights(c, w, WEIGHTS_LEN);
			adddesc(c, "default weights with band %d's at %d", j, badw[i]);
		}
	c = newcase("weights=16384x3");
	for (j = 0; j < FQ_BANDS; j++)
		w[j] = FQ_MIN_WEIGHT;
	put_weights(c, w, WEIGHTS_LEN);
	adddesc(c, "every weight at the minimum, %d", FQ_MIN_WEIGHT);
	for (i = WEIGHTS_LEN - 4; i <= WEIGHTS_LEN + 4; i += 8) {
		snprintf(id, sizeof(id), "weights/len%d", i);
		c = newcase(id);
		put_weights(c, good.w, i);
		adddesc(c, "valid weights in a payload of %d bytes", i);
	}

	c = newcase("bands:priomap+weights");
	put_map(c, &good.map, PRIOMAP_LEN);
	put_weights(c, good.w, WEIGHTS_LEN);
	adddesc(c, "a valid priomap (band = priority %% 3) and weights %d %d %d",
		good.w[0], good.w[1], good.w[2]);

	c = newcase("mix:priomap+quantum=0");
	put_map(c, &good.map, PRIOMAP_LEN);
	put_u32(c, TCA_FQ_QUANTUM, 0);
	adddesc(c, "a valid priomap and quantum 0");

	c = newcase("mix:limit+weights[2]=16383");
	put_u32(c, TCA_FQ_PLIMIT, rules[TCA_FQ_PLIMIT].probe);
	memcpy(w, bands_doc.w, sizeof(w));
	w[2] = FQ_MIN_WEIGHT - 1;
	put_weights(c, w, WEIGHTS_LEN);
	adddesc(c, "limit %u and weights with band 2's at %d", rules[TCA_FQ_PLIMIT].probe,
		FQ_MIN_WEIGHT - 1);
}
