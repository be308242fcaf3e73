// SPDX-License-Identifier: GPL-2.0
/*
 * pace.bpf.c: a tc egress program for the benchmark's pacing point
 * (tests/bench/exact.sh, t_pacing). Attached with
 *   tc filter add dev DEV egress bpf direct-action obj pace.bpf.o sec tc
 * it gives every IPv4 UDP packet a departure time as many milliseconds
 * after it passes as its destination port says (skb->tstamp, EDT, which
 * fq enforces per flow), as a BPF bandwidth manager or SO_TXTIME would,
 * except packets from source port
 * PACE_PORT: those get priority 7 (TC_PRIO_CONTROL) and no time, which fq
 * sends at once from its internal queue. pktgen steps its source port
 * before each packet and restarts at every run, so a run of a whole
 * number of port cycles ends with a packet from the range's first port:
 * that last packet leaves at once, and pktgen, which waits (spinning)
 * until its last packet is freed, returns while fq holds the others.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define PACE_PORT	1000	/* udp_src_min of tests/lib-pktgen.sh */
#define PACE_CONTROL	7	/* TC_PRIO_CONTROL */
#define NSEC_PER_MSEC	1000000ULL

SEC("tc")
int pace(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	struct udphdr *udp = (void *)(ip + 1);

	if ((void *)(udp + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP) ||
	    ip->protocol != IPPROTO_UDP || ip->ihl != 5)
		return TC_ACT_OK;
	if (udp->source == bpf_htons(PACE_PORT))
		skb->priority = PACE_CONTROL;
	else
		skb->tstamp = bpf_ktime_get_ns() + bpf_ntohs(udp->dest) * NSEC_PER_MSEC;
	return TC_ACT_OK;
}

char _license[] SEC("license") = "GPL";
