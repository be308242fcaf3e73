// SPDX-License-Identifier: GPL-2.0
/*
 * pcapgen: write a synthetic Ethernet pcap with known timestamps and sizes,
 * through libpcap (pcap_open_dead + pcap_dump), for pcapstat's unit test.
 *
 *   pcapgen [-s SNAPLEN] [-n] OUT.pcap < spec
 *
 * Each spec line is "TIME_US SRC SPORT DST DPORT LEN [tcp|udp|ack]": one
 * packet at TIME_US (decimal, may have a fraction with -n) with LEN bytes of
 * payload, IPv4 or IPv6 by the address form. "ack" is a TCP packet whose
 * payload is LEN (normally 0). The IP length field holds the real length;
 * the capture keeps at most SNAPLEN bytes (default 65535) while the record's
 * original length is the full frame, as tcpdump -s does. -n writes
 * nanosecond timestamps. Blank lines and lines starting with # are skipped.
 */
#include <arpa/inet.h>
#include <pcap/pcap.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void put16(uint8_t *p, unsigned int v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

int main(int argc, char **argv)
{
	static uint8_t frame[14 + 40 + 20 + 65536];
	int snaplen = 65535, nano = 0, c, lineno = 0;
	char line[512];
	pcap_dumper_t *d;
	pcap_t *p;

	while ((c = getopt(argc, argv, "s:n")) != -1) {
		if (c == 's')
			snaplen = atoi(optarg);
		else if (c == 'n')
			nano = 1;
		else
			goto usage;
	}
	if (optind != argc - 1 || snaplen < 1)
		goto usage;
	p = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, snaplen,
						 nano ? PCAP_TSTAMP_PRECISION_NANO :
							PCAP_TSTAMP_PRECISION_MICRO);
	d = p ? pcap_dump_open(p, argv[optind]) : NULL;
	if (!d) {
		fprintf(stderr, "pcapgen: cannot write %s: %s\n", argv[optind], p ? pcap_geterr(p) : "");
		return 1;
	}
	while (fgets(line, sizeof(line), stdin)) {
		char src[64], dst[64], kind[8] = "tcp";
		unsigned int sport, dport, len, l3, l4, n;
		struct pcap_pkthdr h;
		double t_us;
		int v6, proto;
		long long t_ns;

		lineno++;
		if (line[0] == '#' || line[strspn(line, " \t")] == '\n')
			continue;
		n = (unsigned int)sscanf(line, "%lf %63s %u %63s %u %u %7s", &t_us, src, &sport, dst,
					 &dport, &len, kind);
		if (n < 6 || len > 65000 || sport > 65535 || dport > 65535)
			goto bad;
		v6 = strchr(src, ':') != NULL;
		proto = strcmp(kind, "udp") ? 6 : 17;
		memset(frame, 0, 14 + 40 + 20);
		memcpy(frame, "\x02\0\0\0\0\x02\x02\0\0\0\0\x01", 12);
		put16(frame + 12, v6 ? 0x86dd : 0x0800);
		l4 = proto == 6 ? 20 : 8;
		if (v6) {
			l3 = 40;
			frame[14] = 0x60;
			put16(frame + 18, l4 + len);
			frame[20] = (uint8_t)proto;
			frame[21] = 64;
			if (inet_pton(AF_INET6, src, frame + 22) != 1 ||
			    inet_pton(AF_INET6, dst, frame + 38) != 1)
				goto bad;
		} else {
			l3 = 20;
			frame[14] = 0x45;
			put16(frame + 16, l3 + l4 + len);
			frame[22] = 64;
			frame[23] = (uint8_t)proto;
			if (inet_pton(AF_INET, src, frame + 26) != 1 ||
			    inet_pton(AF_INET, dst, frame + 30) != 1)
				goto bad;
		}
		put16(frame + 14 + l3, sport);
		put16(frame + 14 + l3 + 2, dport);
		if (proto == 6) {
			frame[14 + l3 + 12] = 5 << 4;
			frame[14 + l3 + 13] = len ? 0x18 : 0x10; /* PSH|ACK or ACK */
		} else {
			put16(frame + 14 + l3 + 4, l4 + len);
		}
		/* Round to the file's precision; pcap_dump takes tv_usec as ns when nano. */
		t_ns = nano ? (long long)(t_us * 1000 + 0.5) : (long long)(t_us + 0.5) * 1000;
		h.ts.tv_sec = t_ns / 1000000000;
		h.ts.tv_usec = nano ? t_ns % 1000000000 : t_ns % 1000000000 / 1000;
		h.len = 14 + l3 + l4 + len;
		h.caplen = h.len < (unsigned int)snaplen ? h.len : (unsigned int)snaplen;
		pcap_dump((u_char *)d, &h, frame);
	}
	pcap_dump_close(d);
	pcap_close(p);
	return 0;
bad:
	fprintf(stderr, "pcapgen: bad spec line %d: %s", lineno, line);
	return 1;
usage:
	fprintf(stderr, "usage: pcapgen [-s SNAPLEN] [-n] OUT.pcap < spec\n");
	return 2;
}
