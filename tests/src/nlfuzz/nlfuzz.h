// SPDX-License-Identifier: GPL-2.0
/*
 * nlfuzz: bad RTM_NEWQDISC input for sch_fq, held to a robustness contract
 * (main.c says what it does and how to read its output). Its parts:
 *   cases.c     the message list: every crafted TCA_OPTIONS payload
 *   contract.c  the contract: the rules per attribute, and predict(): what
 *               each kernel answers to a message and what it keeps
 *   netlink.c   talking to the kernel: a qdisc created, changed, read back
 *   check.c     the checks of every answer and read-back against the contract
 *   main.c      driving: the modes, the limit test, --print-contract, main()
 * This header holds what they share: the attribute numbers, the kernels
 * and modes, the message, read-back and prediction types.
 */
#ifndef NLFUZZ_H
#define NLFUZZ_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <net/if.h>
#include <sys/time.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/gen_stats.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

/* sizeof(struct tc_fq_qd_stats) in 6.1: up to and with horizon_caps. */
#define XSTATS_61 ((int)(offsetof(struct tc_fq_qd_stats, horizon_caps) + sizeof(__u64)))
/* Ours appends fastpath_packets (u64), band_drops[3] (u64),
 * band_pkt_count[3] (u32) and a u32 pad, at upstream's offsets.
 */
#define XSTATS_BANDS (XSTATS_61 + 8 + 3 * 8 + 3 * 4 + 4)

/* 6.1's last attribute. Bookworm's headers end there (TCA_FQ_MAX), newer
 * ones do not: the 6.1 scalars are indexed up to this, whatever TCA_FQ_MAX.
 */
#define FQ_LAST61 TCA_FQ_HORIZON_DROP

/* Upstream's bands (6.7), which our series has. Bookworm's linux-libc-dev
 * 6.1 does not define them: numbered here as upstream does.
 */
#define FQ_PRIOMAP 16		/* TCA_FQ_PRIOMAP: struct tc_prio_qopt */
#define FQ_WEIGHTS 17		/* TCA_FQ_WEIGHTS: s32[FQ_BANDS] */
#define FQ_BANDS 3
#define FQ_MIN_WEIGHT 16384
#define PRIOMAP_LEN ((int)sizeof(struct tc_prio_qopt))	/* 20 */
#define WEIGHTS_LEN (FQ_BANDS * 4)			/* 12 */

/* Parent vs fq qlen, read by two requests under load: see limit_step().
 * 34 packets moved between them on a KASAN guest after a rehash to 2
 * buckets; a trim not propagated up the tree leaves hundreds.
 */
#define QLEN_SLACK 64

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif
#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK 10
#endif

#define NFQ (FQ_LAST61 + 1)
#define U32MAX 0xffffffffu
#define QMAX (1u << 20)

enum kern { K_STOCK, K_PATCHED, K_STOCK72, K_NEXT72 };
/* 7.2's offload_horizon: dumped, never set here. */
#define FQ_OFFLOAD_HORIZON 18
#define QMIN72 256u
enum mode { M_CREATE, M_CHANGE, M_REPLACE, M_NMODES };
/* Where a kernel checks an attribute's value. */
enum check { C_NONE, C_POLICY /* nla policy range: -ERANGE at parse */,
	     C_CHANGE /* in fq_change(): -EINVAL */ };
struct rule {
	const char *name;
	int len;		/* payload length the policy wants */
	bool dumped;		/* fq_dump() reports it */
	uint32_t probe;		/* a valid value that is not the default */
	uint32_t lo, hi;	/* the valid range, on both kernels */
	enum check check;	/* where it is checked (both kernels alike) */
	const char *s_msg;	/* stock extack on a bad value, NULL: none */
};
/* Our series' bands: not scalars, so kept beside the rules[] values. */
struct bands {
	struct tc_prio_qopt map;	/* TCA_FQ_PRIOMAP */
	int32_t w[FQ_BANDS];		/* TCA_FQ_WEIGHTS */
};
/* ---- read-back state ---- */

struct fqstate {
	bool present;		/* the get succeeded */
	char kind[32];
	uint32_t handle;
	bool has[NFQ];
	int len[NFQ];
	uint32_t v[NFQ];
	int unknown_opts;	/* attributes fq_dump() has no business sending */
	bool has_map, has_w;	/* TCA_FQ_PRIOMAP, TCA_FQ_WEIGHTS dumped */
	int map_len, w_len;
	struct bands b;
	bool has_queue, has_app;
	struct gnet_stats_queue q;
	uint64_t packets;
	int app_len;
	struct tc_fq_qd_stats xs;
};

#define MAXOPT 512
struct tcase {
	char id[96];
	char desc[160];
	uint8_t opt[MAXOPT];
	int optlen;
	bool no_opts;		/* no TCA_OPTIONS at all */
	bool opts_nested_flag;	/* TCA_OPTIONS | NLA_F_NESTED */
	bool syz;		/* a syzkaller-known trigger */
};
struct pred {
	int err;		/* 0 or -errno */
	const char *why;	/* short reason, for the table */
	bool msg_required;	/* a non-empty extack must come with the error */
	const char *msg_sub;	/* ... containing this */
	bool msg_forbidden;	/* stock: this path sets no extack */
	uint32_t v[NFQ];	/* expected read-back */
	uint32_t alt[NFQ];	/* also acceptable */
	bool has_alt[NFQ];
	struct bands b;		/* expected bands (our series) */
	int napplied, nignored;
};
struct answer {
	int err;
	char msg[256];
};

/* contract.c */
extern const char *const kern_name[];
extern const char *const mode_name[];
extern const struct rule rules[NFQ];
extern const struct bands bands_doc;
extern unsigned long tick_us;
bool is72(enum kern k);
bool in(uint32_t v, uint32_t lo, uint32_t hi);
uint32_t get_le(const uint8_t *p, int n);
bool bands_eq(const struct bands *a, const struct bands *b);
void bands_fmt(char *buf, size_t n, const struct bands *b, const struct bands *def);
void predict(enum kern k, const struct tcase *c, const uint32_t *base,
	     const struct bands *bbase, struct pred *p);

/* cases.c */
extern struct tcase *cases;
extern int ncases;
void put_u32(struct tcase *c, uint16_t type, uint32_t v);
void put_val(struct tcase *c, int t, uint32_t v);
void put_map(struct tcase *c, const struct tc_prio_qopt *m, int len);
void put_weights(struct tcase *c, const int32_t *w, int len);
void add_value_cases(void);
void add_length_cases(void);
void add_garbage_cases(void);
void add_mixed_cases(void);
void add_band_cases(void);

/* netlink.c */
extern struct mnl_socket *nl;
extern unsigned int portid;
extern int ifindex;
extern uint32_t parent, handle;
extern enum kern kernel;
int getq(uint32_t par, struct fqstate *st);
int newq(uint16_t flags, uint32_t hdl, const struct tcase *c, struct answer *ans);
int delq(void);
const char *ename(int err);

/* check.c */
extern int nbad;
extern char why[1024];
void bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void sane(const struct fqstate *st);
void compare(const struct fqstate *st, const struct pred *p);
void check_answer(const struct answer *a, const struct pred *p);

#endif
