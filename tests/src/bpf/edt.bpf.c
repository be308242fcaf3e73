// SPDX-License-Identifier: GPL-2.0
/*
 * edt.bpf.c: a tc egress EDT rate limiter, the pattern of Cilium's
 * bandwidth manager, for 93-fq-bpf-edt. Attached with
 *   tc filter add dev DEV egress bpf direct-action obj edt.bpf.o sec tc
 * it paces the aggregate of every IPv4 UDP packet leaving DEV to
 * EDT_RATE bytes/s by setting skb->tstamp, the departure time that fq
 * enforces. A packet that would leave more than EDT_DROP_NS ahead is shot
 * here, as the bandwidth manager does, so the backlog stays bounded.
 * UDP to port EDT_FAR_PORT is left out of the aggregate and gets a time
 * EDT_FAR_NS ahead instead: beyond fq's horizon, to be dropped or capped.
 *
 * One aggregate shared by all CPUs and TX queues: its next departure time
 * sits in a map value under a bpf_spin_lock, so two CPUs never take the
 * same slot. Rates are bytes of skb->len, which at tc egress includes the
 * Ethernet header, as fq's qdisc_pkt_len() does.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define NSEC_PER_SEC	1000000000ULL
#define EDT_RATE	1250000ULL		/* bytes/s: 10 Mbit/s */
#define EDT_DROP_NS	(200 * 1000 * 1000ULL)	/* 200 ms */
#define EDT_FAR_PORT	9999
#define EDT_FAR_NS	(5 * NSEC_PER_SEC)	/* beyond a 2 s horizon */

struct edt_state {
	struct bpf_spin_lock lock;
	__u64 next;	/* departure time of the aggregate's next byte */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct edt_state);
} edt_state SEC(".maps");

SEC("tc")
int edt(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	struct udphdr *udp;
	struct edt_state *st;
	__u64 now, t, delay;
	__u32 key = 0;
	int shot = 0;

	if ((void *)(ip + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP) ||
	    ip->protocol != IPPROTO_UDP || ip->ihl != 5)
		return TC_ACT_OK;
	udp = (void *)(ip + 1);
	if ((void *)(udp + 1) > end)
		return TC_ACT_OK;
	now = bpf_ktime_get_ns();
	if (udp->dest == bpf_htons(EDT_FAR_PORT)) {
		skb->tstamp = now + EDT_FAR_NS;
		return TC_ACT_OK;
	}
	st = bpf_map_lookup_elem(&edt_state, &key);
	if (!st)
		return TC_ACT_OK;
	delay = skb->len * NSEC_PER_SEC / EDT_RATE;
	bpf_spin_lock(&st->lock);
	t = st->next > now ? st->next : now;
	if (t - now > EDT_DROP_NS)
		shot = 1;
	else
		st->next = t + delay;
	bpf_spin_unlock(&st->lock);
	if (shot)
		return TC_ACT_SHOT;
	skb->tstamp = t;
	return TC_ACT_OK;
}

char _license[] SEC("license") = "GPL";
