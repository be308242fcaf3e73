// SPDX-License-Identifier: GPL-2.0
/*
 * sethash.bpf.c: a tc egress program for 76-fq-orphan-hash. Attached with
 *   tc filter add dev DEV egress bpf direct-action obj sethash.bpf.o sec tc
 * it gives every packet a random software hash (bpf_set_hash), as a NIC's
 * receive hash or an earlier layer would leave on a forwarded packet, but
 * a different one on each packet of a 5-tuple: a qdisc whose flow key is
 * skb->hash then sees every packet as a flow of its own (every kernel the
 * suite boots: a hash set on purpose is kept), one whose key is the
 * 5-tuple would still see one flow per 5-tuple.
 */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

SEC("tc")
int set_hash(struct __sk_buff *skb)
{
	bpf_set_hash(skb, bpf_get_prandom_u32());
	return TC_ACT_OK;
}

char _license[] SEC("license") = "GPL";
