// SPDX-License-Identifier: GPL-2.0
/*
 * cachemodel: a QEMU TCG plugin that runs every guest memory access and
 * instruction fetch through a model of a server core's caches, and counts
 * accesses and misses per level, and the misses of each kernel instruction.
 *
 *   qemu-system-x86_64 ... -plugin ./cachemodel.so,out=FILE[,prof=DIR]
 *       [,min=ADDR][,count=marks|boot][,sim=boot|marks|none][,l1d=48K:12][,l1i=32K:8]
 *       [,l2=2M:16][,llc=32M:16]
 *
 * The model (what a miss here means):
 * - Four caches of 64-byte lines: L1d and L1i, a unified L2 and a unified
 *   last level (LLC). Default geometry: one Intel Sapphire Rapids (Golden
 *   Cove) core, L1d 48 KB 12-way, L1i 32 KB 8-way, L2 2 MB 16-way, and an
 *   LLC of 32 MB 16-way, about the share of 17 cores of that part's
 *   1.875 MB per core. Each is set by SIZE:WAYS (K, M suffixes); sets =
 *   size / 64 / ways.
 * - Set-associative, true LRU within a set, sets indexed by the line
 *   address modulo the number of sets (no slice hash). Write-allocate;
 *   loads and stores are alike (no dirty state, write-backs not counted).
 * - Non-inclusive, non-exclusive: a miss fills the line into every level
 *   it missed in; an eviction from an outer level does not evict it from
 *   an inner one.
 * - Data side: each access by its guest physical address
 *   (qemu_plugin_get_hwaddr); an access that crosses a line boundary
 *   touches both lines (two accesses). MMIO is not cached and not counted.
 * - Instruction side: one L1i access per instruction that starts a line
 *   its block's previous instruction did not (straight-line code in one
 *   line is one fetch). Instruction lines are named by the host address of
 *   their bytes (TCG gives no guest physical address for code in API 1);
 *   QEMU maps guest RAM 2 MB-aligned on x86-64 hosts, so the set index
 *   equals the physical one for ways up to 2 MB (all defaults).
 * - Not modelled: prefetchers, TLBs and page walks, coherence between
 *   vCPUs (use one vCPU, as the exact clock does), DMA by devices, timing.
 *   A miss count is a property of the access stream and the geometry.
 *
 * Counting: with sim=boot (default) the model runs from the first
 * instruction, so the caches are warm; it counts only inside windows.
 * sim=marks runs it only from a warm mark, "nopl 0xcac00003(%rax)", to
 * the next close (the access callbacks return at once outside): a boot
 * runs several times faster, and the caller warms the caches with the
 * workload itself between the warm mark and the window. sim=none runs no
 * model at all: the windows count instructions only (their miss counts
 * are 0), exactly and at nearly the speed of a boot without the plugin
 * (scripts/bench.sh --count-insns). count=marks (default): a window
 * opens when user space executes "nopl 0xcac00001(%rax)" (bytes 0f 1f 80
 * 01 00 c0 ca) and closes at "nopl 0xcac00002(%rax)" (tests/src/cachemark.c
 * runs them); both are NOPs to the CPU. count=boot: one window, the whole
 * boot. At each close the plugin appends to FILE:
 *   window SEQ insns N l1d_acc N l1d_miss N l1i_acc N l1i_miss N l2_acc N
 *   l2_miss N llc_acc N llc_miss N
 * (SEQ from 1, instructions retired in the window), and with prof=DIR
 * writes DIR/SEQ.prof: "address l1d l1i l2 llc" misses per kernel
 * instruction (hex, then decimal; instructions at or above min, default
 * ffffffff80000000), the input of scripts/insn-profile.py --column.
 * Counters are not atomic: exact with one vCPU.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin-table.h"
#include "qemu-plugin-api.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define LINE_SHIFT 6
enum { L1D, L1I, L2, LLC, NLEVELS };
static const char *const level_name[NLEVELS] = { "l1d", "l1i", "l2", "llc" };

struct cache {
	uint64_t size;
	unsigned int ways;
	uint64_t sets;
	uint64_t *tag;		/* line number + 1; 0: empty */
	uint64_t *stamp;	/* last use, for LRU */
	uint64_t clock;
	uint64_t acc, miss;	/* in the current window */
};

static struct cache cache[NLEVELS] = {
	[L1D] = { .size = 48 << 10, .ways = 12 },
	[L1I] = { .size = 32 << 10, .ways = 8 },
	[L2] = { .size = 2 << 20, .ways = 16 },
	[LLC] = { .size = 32 << 20, .ways = 16 },
};

/* One kernel instruction, where its misses are charged; key: its address
 * and the host line of its bytes (module text may come and go).
 */
struct site {
	struct ptab_key key;
	uint64_t miss[NLEVELS];	/* in the current window */
};

static struct ptab sites = PTAB_INIT;
static char *out_path, *prof_dir;
static uint64_t min_vaddr = 0xffffffff80000000ULL;
static int counting, count_boot, simulating = 1, sim_marks, sim_none;
static uint64_t insns, insns0, seq;

#define MARK_LEN 7
static const unsigned char mark_bytes[MARK_LEN - 1] = { 0x0f, 0x1f, 0x80, 0, 0x00, 0xc0 };
#define MARK_LAST 0xca
#define USER_TOP 0x800000000000ULL

/* Look LINE up in C; on a miss, fill it over the least recently used way.
 * Returns 1 on a hit.
 */
static int lookup(struct cache *c, uint64_t line)
{
	uint64_t *tag = c->tag + (line % c->sets) * c->ways;
	uint64_t *stamp = c->stamp + (tag - c->tag);
	unsigned int w, victim = 0;

	for (w = 0; w < c->ways; w++) {
		if (tag[w] == line + 1) {
			stamp[w] = ++c->clock;
			return 1;
		}
		if (stamp[w] < stamp[victim])
			victim = w;
	}
	tag[victim] = line + 1;
	stamp[victim] = ++c->clock;
	return 0;
}

/* One line through L1 (L1D or L1I), then L2, then LLC, as far as it misses. */
static void access_line(int l1, uint64_t line, struct site *s)
{
	int lv;

	for (lv = l1; lv < NLEVELS; lv = lv == l1 ? L2 : lv + 1) {
		struct cache *c = &cache[lv];
		int hit = lookup(c, line);

		if (counting) {
			c->acc++;
			if (!hit) {
				c->miss++;
				if (s)
					s->miss[lv]++;
			}
		}
		if (hit)
			return;
	}
}

static void mem_cb(unsigned int vcpu, qemu_plugin_meminfo_t info,
		   uint64_t vaddr, void *udata)
{
	struct qemu_plugin_hwaddr *hw;
	uint64_t pa, first, last;

	if (!simulating)
		return;
	hw = qemu_plugin_get_hwaddr(info, vaddr);
	if (!hw || qemu_plugin_hwaddr_is_io(hw))
		return;
	pa = qemu_plugin_hwaddr_phys_addr(hw);
	first = pa >> LINE_SHIFT;
	last = (pa + (1u << qemu_plugin_mem_size_shift(info)) - 1) >> LINE_SHIFT;
	access_line(L1D, first, udata);
	if (last != first)
		access_line(L1D, last, udata);
}

/* udata: a kernel site, or (host line << 1 | 1) for user code. */
static void fetch_cb(unsigned int vcpu, void *udata)
{
	uintptr_t u = (uintptr_t)udata;

	if (!simulating)
		return;
	if (u & 1)
		access_line(L1I, u >> 1, NULL);
	else
		access_line(L1I, ((struct site *)udata)->key.b, udata);
}

static void write_window(void)
{
	FILE *f = fopen(out_path, "a");
	char path[4096];
	int lv;
	size_t i;

	seq++;
	if (!f) {
		fprintf(stderr, "cachemodel: %s: %s\n", out_path, strerror(errno));
	} else {
		fprintf(f, "window %" PRIu64 " insns %" PRIu64, seq, insns - insns0);
		for (lv = 0; lv < NLEVELS; lv++)
			fprintf(f, " %s_acc %" PRIu64 " %s_miss %" PRIu64,
				level_name[lv], cache[lv].acc,
				level_name[lv], cache[lv].miss);
		fputc('\n', f);
		fclose(f);
	}
	f = NULL;
	if (prof_dir) {
		snprintf(path, sizeof(path), "%s/%" PRIu64 ".prof", prof_dir, seq);
		f = fopen(path, "w");
		if (!f)
			fprintf(stderr, "cachemodel: %s: %s\n", path, strerror(errno));
	}
	for (i = 0; i < sites.size; i++) {
		struct site *s = (struct site *)sites.slot[i];

		if (!s)
			continue;
		if (f && (s->miss[L1D] | s->miss[L1I] | s->miss[L2] | s->miss[LLC]))
			fprintf(f, "%" PRIx64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
				s->key.a, s->miss[L1D], s->miss[L1I],
				s->miss[L2], s->miss[LLC]);
		memset(s->miss, 0, sizeof(s->miss));
	}
	if (f)
		fclose(f);
}

static void window_open(void)
{
	int lv;

	for (lv = 0; lv < NLEVELS; lv++)
		cache[lv].acc = cache[lv].miss = 0;
	insns0 = insns;
	counting = 1;
	simulating = 1;
}

static void window_close(void)
{
	if (!counting)
		return;
	counting = 0;
	simulating = !sim_marks;
	write_window();
}

static void mark_cb(unsigned int vcpu, void *udata)
{
	if ((uintptr_t)udata == 1)
		window_open();
	else if ((uintptr_t)udata == 3)
		simulating = 1;
	else
		window_close();
}

/* Is INSN one of the marks (user space only)? 1 open, 2 close, 3 warm,
 * 0 not.
 */
static int mark_of(struct qemu_plugin_insn *insn, uint64_t va)
{
	const unsigned char *b = qemu_plugin_insn_data(insn);

	if (va >= USER_TOP || qemu_plugin_insn_size(insn) != MARK_LEN || !b)
		return 0;
	if (memcmp(b, mark_bytes, 3) || memcmp(b + 4, mark_bytes + 4, 2) ||
	    b[6] != MARK_LAST || b[3] < 1 || b[3] > 3)
		return 0;
	return b[3];
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	uint64_t prev = 0;

	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &insns, n);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t va = qemu_plugin_insn_vaddr(insn);
		uintptr_t ha = (uintptr_t)qemu_plugin_insn_haddr(insn);
		uint64_t il = ha >> LINE_SHIFT;
		struct site *s = NULL;
		int m;

		m = count_boot ? 0 : mark_of(insn, va);
		if (m)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, mark_cb,
				QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)m);
		if (sim_none)
			continue;
		if (va >= min_vaddr)
			s = ptab_get(&sites, va, il, sizeof(*s));
		if (ha && (i == 0 || il != prev))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, fetch_cb,
				QEMU_PLUGIN_CB_NO_REGS,
				s ? (void *)s : (void *)(uintptr_t)(il << 1 | 1));
		prev = il;
		qemu_plugin_register_vcpu_mem_cb(insn, mem_cb, QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW, s);
	}
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	window_close();
}

/* SIZE:WAYS, SIZE with an optional K or M. */
static int parse_geometry(struct cache *c, const char *arg)
{
	char *end;
	unsigned long long size = strtoull(arg, &end, 10);
	unsigned long ways;

	if (*end == 'K' || *end == 'k')
		size <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		size <<= 20, end++;
	if (*end != ':')
		return -1;
	ways = strtoul(end + 1, &end, 10);
	if (*end || !ways || !size || size % (ways << LINE_SHIFT))
		return -1;
	c->size = size;
	c->ways = ways;
	return 0;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	int i, lv;
	FILE *f;

	for (i = 0; i < argc; i++) {
		const char *a = argv[i];
		int done = 0;

		for (lv = 0; lv < NLEVELS; lv++) {
			size_t k = strlen(level_name[lv]);

			if (!strncmp(a, level_name[lv], k) && a[k] == '=') {
				if (parse_geometry(&cache[lv], a + k + 1)) {
					fprintf(stderr, "cachemodel: bad geometry %s (SIZE:WAYS, e.g. 48K:12)\n", a);
					return -1;
				}
				done = 1;
			}
		}
		if (done)
			continue;
		if (!strncmp(a, "out=", 4))
			out_path = strdup(a + 4);
		else if (!strncmp(a, "prof=", 5))
			prof_dir = strdup(a + 5);
		else if (!strncmp(a, "min=", 4))
			min_vaddr = strtoull(a + 4, NULL, 16);
		else if (!strcmp(a, "count=boot"))
			count_boot = 1;
		else if (!strcmp(a, "count=marks"))
			count_boot = 0;
		else if (!strcmp(a, "sim=marks"))
			sim_marks = 1, sim_none = 0;
		else if (!strcmp(a, "sim=boot"))
			sim_marks = 0, sim_none = 0;
		else if (!strcmp(a, "sim=none"))
			sim_none = 1;
		else {
			fprintf(stderr, "cachemodel: unknown option %s\n", a);
			return -1;
		}
	}
	if (!out_path) {
		fprintf(stderr, "cachemodel: out=FILE is required\n");
		return -1;
	}
	f = fopen(out_path, "w");
	if (!f) {
		fprintf(stderr, "cachemodel: %s: %s\n", out_path, strerror(errno));
		return -1;
	}
	fprintf(f, "# cachemodel: line 64");
	for (lv = 0; lv < NLEVELS; lv++) {
		struct cache *c = &cache[lv];

		c->sets = c->size / c->ways >> LINE_SHIFT;
		c->tag = calloc(c->sets * c->ways, sizeof(*c->tag));
		c->stamp = calloc(c->sets * c->ways, sizeof(*c->stamp));
		if (!c->tag || !c->stamp) {
			fclose(f);
			return -1;
		}
		fprintf(f, " %s %" PRIu64 "K:%u", level_name[lv], c->size >> 10, c->ways);
	}
	fprintf(f, "\n");
	fclose(f);
	if (ptab_grow(&sites))
		return -1;
	simulating = !sim_marks;
	if (count_boot)
		window_open();
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
