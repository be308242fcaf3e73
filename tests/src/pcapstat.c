// SPDX-License-Identifier: GPL-2.0
/*
 * pcapstat: summarise the TCP packets of a pcap (tcpdump -w) as key=value
 * lines for the shell tests.
 *
 *   pcapstat [-w WINDOW_US] [-c CSV] FILE [BPF expression...]
 *
 * Only TCP over IPv4/IPv6 on Ethernet, Linux cooked (SLL, SLL2) or raw IP
 * links is counted; a BPF expression narrows it further (libpcap syntax).
 * "len" is the TCP payload of a packet, taken from the captured packet's
 * original length (or the IP length field when smaller, to drop Ethernet
 * padding), so a short snaplen (-s 128) still gives the full size. On a
 * sender-side capture of a TSO/GSO device these are the GSO sizes.
 *
 * Output (all integers; times in microseconds, rounded):
 *   packets=          TCP packets that matched (pure ACKs included)
 *   data_packets=     of those, packets with payload
 *   bytes=            payload bytes
 *   len_min= len_median= len_p90= len_max=   payload sizes of data packets
 *   len_bytes_median= the byte-weighted median size: half of the payload
 *                     went out in packets at least this big (robust to the
 *                     small remainder packets that alternate with GSO ones)
 *   gaps=             number of gaps: between a data packet and the previous
 *                     data packet of the same flow (direction)
 *   gap_p10_us= gap_median_us= gap_p90_us=
 *   burst_window_us=  the window (default 1000)
 *   burst_max_bytes=  most payload bytes in any window [t, t+W) that starts
 *                     at a data packet, over all matched flows
 *   duration_us=      first to last data packet
 *   throughput_bps=   bytes * 8 / duration (0 if duration is 0)
 *   flows=            flows (5-tuple, per direction) with a matched packet
 *   flow=SRC:SPORT>DST:DPORT packets= data_packets= bytes= duration_us=
 *        throughput_bps=   one line per flow, most bytes first
 *
 * Percentiles are nearest-rank: the p-th of N sorted values is the
 * ceil(p*N/100)-th, so the median of an even count is the lower middle.
 * With -c, one CSV row per data packet: time_us (from the first matched
 * packet), flow, len, gap_us (empty for a flow's first data packet).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct flow {
	int af;
	uint8_t src[16], dst[16];
	uint16_t sport, dport;
	uint64_t packets, data_packets, bytes;
	int64_t first_data_ns, last_data_ns;
	int used;
};

struct pkt {
	int64_t t_ns;
	uint32_t len;
};

static struct flow *flows;
static size_t nflows, flow_cap; /* flow_cap: hash slots, a power of two */
static struct pkt *pkts;
static size_t npkts, pkt_cap;
static int64_t *gaps;
static size_t ngaps, gap_cap;
static uint64_t tcp_packets;
static int64_t t0_ns = -1;
static FILE *csv;

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "pcapstat: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	exit(2);
}

static void *grow(void *p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? *cap * 2 : 1024;
	p = realloc(p, *cap * size);
	if (!p)
		die("%s", strerror(errno));
	return p;
}

static uint64_t hash_key(const struct flow *k)
{
	uint64_t h = 1469598103934665603ULL;
	const uint8_t *parts[] = { k->src, k->dst };

	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 16; j++)
			h = (h ^ parts[i][j]) * 1099511628211ULL;
	h = (h ^ k->sport) * 1099511628211ULL;
	h = (h ^ k->dport) * 1099511628211ULL;
	return h ^ (uint64_t)k->af;
}

static int same_flow(const struct flow *a, const struct flow *b)
{
	return a->af == b->af && a->sport == b->sport && a->dport == b->dport &&
	       !memcmp(a->src, b->src, 16) && !memcmp(a->dst, b->dst, 16);
}

static struct flow *lookup(const struct flow *key);

static void rehash(void)
{
	struct flow *old = flows;
	size_t old_cap = flow_cap;

	flow_cap = flow_cap ? flow_cap * 2 : 256;
	flows = calloc(flow_cap, sizeof(*flows));
	if (!flows)
		die("%s", strerror(errno));
	nflows = 0;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].used)
			*lookup(&old[i]) = old[i];
	free(old);
}

/* The flow's slot, claimed for it if new (open addressing, linear probe). */
static struct flow *lookup(const struct flow *key)
{
	size_t i;

	if (2 * (nflows + 1) > flow_cap)
		rehash();
	for (i = hash_key(key) & (flow_cap - 1); flows[i].used; i = (i + 1) & (flow_cap - 1))
		if (same_flow(&flows[i], key))
			return &flows[i];
	memset(&flows[i], 0, sizeof(flows[i]));
	flows[i].af = key->af;
	memcpy(flows[i].src, key->src, 16);
	memcpy(flows[i].dst, key->dst, 16);
	flows[i].sport = key->sport;
	flows[i].dport = key->dport;
	flows[i].first_data_ns = -1;
	flows[i].used = 1;
	nflows++;
	return &flows[i];
}

static void flow_name(const struct flow *f, char *buf, size_t n)
{
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];

	inet_ntop(f->af, f->src, s, sizeof(s));
	inet_ntop(f->af, f->dst, d, sizeof(d));
	if (f->af == AF_INET6)
		snprintf(buf, n, "[%s]:%u>[%s]:%u", s, f->sport, d, f->dport);
	else
		snprintf(buf, n, "%s:%u>%s:%u", s, f->sport, d, f->dport);
}

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/*
 * Find the IP header: its offset and ethertype-style protocol (0x0800 or
 * 0x86dd), or -1 for anything else.
 */
static int l3_offset(int dlt, const uint8_t *p, uint32_t caplen, uint16_t *proto)
{
	uint32_t off;

	switch (dlt) {
	case DLT_EN10MB:
		if (caplen < 14)
			return -1;
		*proto = be16(p + 12);
		off = 14;
		while ((*proto == 0x8100 || *proto == 0x88a8) && caplen >= off + 4) {
			*proto = be16(p + off + 2);
			off += 4;
		}
		return (int)off;
	case DLT_LINUX_SLL:
		if (caplen < 16)
			return -1;
		*proto = be16(p + 14);
		return 16;
	case DLT_LINUX_SLL2:
		if (caplen < 20)
			return -1;
		*proto = be16(p);
		return 20;
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
		if (caplen < 1)
			return -1;
		*proto = (p[0] >> 4) == 6 ? 0x86dd : 0x0800;
		return 0;
	}
	return -1;
}

static void handle(u_char *user, const struct pcap_pkthdr *h, const u_char *p)
{
	int dlt = *(int *)user;
	uint32_t cap = h->caplen, wire = h->len, off, iplen, l4, thl;
	uint16_t proto;
	int o = l3_offset(dlt, p, cap, &proto);
	struct flow key, *f;
	int64_t t = (int64_t)h->ts.tv_sec * 1000000000 + h->ts.tv_usec; /* ns precision */
	uint32_t len;

	if (o < 0)
		return;
	off = (uint32_t)o;
	memset(&key, 0, sizeof(key));
	if (proto == 0x0800) {
		if (cap < off + 20 || (p[off] >> 4) != 4 || p[off + 9] != 6)
			return;
		if (be16(p + off + 6) & 0x1fff) /* a non-first fragment */
			return;
		iplen = be16(p + off + 2);
		l4 = off + (p[off] & 0xf) * 4u;
		key.af = AF_INET;
		memcpy(key.src, p + off + 12, 4);
		memcpy(key.dst, p + off + 16, 4);
	} else if (proto == 0x86dd) {
		uint8_t nh;

		if (cap < off + 40 || (p[off] >> 4) != 6)
			return;
		iplen = be16(p + off + 4);
		if (iplen)
			iplen += 40;
		nh = p[off + 6];
		l4 = off + 40;
		/* Hop-by-hop, routing and destination options may precede TCP. */
		while ((nh == 0 || nh == 43 || nh == 60) && cap >= l4 + 2) {
			nh = p[l4];
			l4 += (p[l4 + 1] + 1u) * 8;
		}
		if (nh != 6)
			return;
		key.af = AF_INET6;
		memcpy(key.src, p + off + 8, 16);
		memcpy(key.dst, p + off + 24, 16);
	} else {
		return;
	}
	if (cap < l4 + 13)
		return;
	thl = (p[l4 + 12] >> 4) * 4u;
	key.sport = be16(p + l4);
	key.dport = be16(p + l4 + 2);
	/*
	 * The IP length field, unless zero (TSO/BIG TCP may leave it so), but
	 * never beyond what was on the wire (the capture's orig length).
	 */
	if (wire < off)
		return;
	if (!iplen || iplen > wire - off)
		iplen = wire - off;
	len = iplen > l4 - off + thl ? iplen - (l4 - off + thl) : 0;

	tcp_packets++;
	if (t0_ns < 0)
		t0_ns = t;
	f = lookup(&key);
	f->packets++;
	if (!len)
		return;
	f->data_packets++;
	f->bytes += len;
	if (csv) {
		char name[128];

		flow_name(f, name, sizeof(name));
		fprintf(csv, "%.3f,%s,%u,", (t - t0_ns) / 1e3, name, len);
		if (f->first_data_ns >= 0)
			fprintf(csv, "%.3f", (t - f->last_data_ns) / 1e3);
		fputc('\n', csv);
	}
	if (f->first_data_ns < 0) {
		f->first_data_ns = t;
	} else {
		gaps = grow(gaps, &gap_cap, ngaps, sizeof(*gaps));
		gaps[ngaps++] = t - f->last_data_ns;
	}
	f->last_data_ns = t;
	pkts = grow(pkts, &pkt_cap, npkts, sizeof(*pkts));
	pkts[npkts].t_ns = t;
	pkts[npkts].len = len;
	npkts++;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile of n sorted values (0 when there are none). */
static int64_t pct(const int64_t *v, size_t n, unsigned int p)
{
	size_t rank;

	if (!n)
		return 0;
	rank = (p * n + 99) / 100;
	return v[rank ? rank - 1 : 0];
}

/* The smallest size whose packets and smaller ones carry >= half the bytes. */
static int64_t bytes_median(const int64_t *v, size_t n, uint64_t total)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < n; i++) {
		sum += (uint64_t)v[i];
		if (2 * sum >= total)
			return v[i];
	}
	return 0;
}

static int64_t us(int64_t ns)
{
	return (ns + 500) / 1000;
}

static uint64_t bps(uint64_t bytes, int64_t ns)
{
	return ns > 0 ? (uint64_t)((long double)bytes * 8e9L / ns + 0.5L) : 0;
}

static int cmp_flow(const void *a, const void *b)
{
	const struct flow *x = a, *y = b;

	if (x->used != y->used)
		return y->used - x->used;
	return (x->bytes < y->bytes) - (x->bytes > y->bytes);
}

static void usage(void)
{
	fprintf(stderr, "usage: pcapstat [-w WINDOW_US] [-c CSV] FILE [BPF expression...]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	char errbuf[PCAP_ERRBUF_SIZE], *expr = NULL;
	int64_t window_ns = 1000000, *lens, first = -1, last = -1;
	uint64_t bytes = 0, burst = 0, run = 0;
	struct bpf_program prog;
	size_t j = 0, elen = 0;
	pcap_t *pc;
	int c, dlt;

	while ((c = getopt(argc, argv, "w:c:h")) != -1) {
		switch (c) {
		case 'w':
			window_ns = strtoll(optarg, NULL, 10) * 1000;
			if (window_ns <= 0)
				usage();
			break;
		case 'c':
			csv = fopen(optarg, "w");
			if (!csv)
				die("cannot write %s", optarg);
			fprintf(csv, "time_us,flow,len,gap_us\n");
			break;
		default:
			usage();
		}
	}
	if (optind >= argc)
		usage();
	pc = pcap_open_offline_with_tstamp_precision(argv[optind], PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (!pc)
		die("%s", errbuf);
	/* The filter is the remaining arguments joined, as tcpdump takes it. */
	for (int i = optind + 1; i < argc; i++)
		elen += strlen(argv[i]) + 1;
	if (elen) {
		expr = calloc(1, elen);
		if (!expr)
			die("%s", strerror(errno));
		for (int i = optind + 1; i < argc; i++) {
			if (i > optind + 1)
				strcat(expr, " ");
			strcat(expr, argv[i]);
		}
		if (pcap_compile(pc, &prog, expr, 1, PCAP_NETMASK_UNKNOWN) ||
		    pcap_setfilter(pc, &prog))
			die("bad filter: %s", pcap_geterr(pc));
		pcap_freecode(&prog);
	}
	dlt = pcap_datalink(pc);
	if (pcap_loop(pc, -1, handle, (u_char *)&dlt) == -1)
		die("%s", pcap_geterr(pc));
	pcap_close(pc);
	if (csv && fclose(csv))
		die("writing the CSV: %s", strerror(errno));

	lens = malloc((npkts + 1) * sizeof(*lens));
	if (!lens)
		die("%s", strerror(errno));
	for (size_t i = 0; i < npkts; i++) {
		lens[i] = pkts[i].len;
		bytes += pkts[i].len;
		/* Captures are in time order, but be safe with merged files. */
		if (first < 0 || pkts[i].t_ns < first)
			first = pkts[i].t_ns;
		if (pkts[i].t_ns > last)
			last = pkts[i].t_ns;
	}
	/* Largest payload in [t_i, t_i + W): a sliding window over the packets. */
	for (size_t i = 0; i < npkts; i++) {
		while (j < npkts && pkts[j].t_ns - pkts[i].t_ns < window_ns)
			run += pkts[j++].len;
		if (run > burst)
			burst = run;
		run -= pkts[i].len;
	}
	qsort(lens, npkts, sizeof(*lens), cmp_i64);
	qsort(gaps, ngaps, sizeof(*gaps), cmp_i64);

	printf("packets=%" PRIu64 "\n", tcp_packets);
	printf("data_packets=%zu\n", npkts);
	printf("bytes=%" PRIu64 "\n", bytes);
	printf("len_min=%" PRId64 "\n", npkts ? lens[0] : 0);
	printf("len_median=%" PRId64 "\n", pct(lens, npkts, 50));
	printf("len_p90=%" PRId64 "\n", pct(lens, npkts, 90));
	printf("len_max=%" PRId64 "\n", npkts ? lens[npkts - 1] : 0);
	printf("len_bytes_median=%" PRId64 "\n", bytes_median(lens, npkts, bytes));
	printf("gaps=%zu\n", ngaps);
	printf("gap_p10_us=%" PRId64 "\n", us(pct(gaps, ngaps, 10)));
	printf("gap_median_us=%" PRId64 "\n", us(pct(gaps, ngaps, 50)));
	printf("gap_p90_us=%" PRId64 "\n", us(pct(gaps, ngaps, 90)));
	printf("burst_window_us=%" PRId64 "\n", window_ns / 1000);
	printf("burst_max_bytes=%" PRIu64 "\n", burst);
	printf("duration_us=%" PRId64 "\n", npkts ? us(last - first) : 0);
	printf("throughput_bps=%" PRIu64 "\n", npkts ? bps(bytes, last - first) : 0);
	printf("flows=%zu\n", nflows);
	if (flows)
		qsort(flows, flow_cap, sizeof(*flows), cmp_flow);
	for (size_t i = 0; i < nflows; i++) {
		struct flow *f = &flows[i];
		int64_t d = f->data_packets ? f->last_data_ns - f->first_data_ns : 0;
		char name[128];

		flow_name(f, name, sizeof(name));
		printf("flow=%s packets=%" PRIu64 " data_packets=%" PRIu64 " bytes=%" PRIu64
		       " duration_us=%" PRId64 " throughput_bps=%" PRIu64 "\n",
		       name, f->packets, f->data_packets, f->bytes, us(d), bps(f->bytes, d));
	}
	return 0;
}
