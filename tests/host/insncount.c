// SPDX-License-Identifier: GPL-2.0
/*
 * insncount: a QEMU TCG plugin that counts the guest instructions retired
 * at each translation block's start address, and writes them at exit as
 * "vaddr instructions" lines (hex, decimal), for a per-function profile
 * with no sampling: each executed block adds its instruction count.
 *
 *   qemu-system-x86_64 ... -plugin ./insncount.so,out=FILE[,min=ADDR]
 *
 * min: count only blocks at or above ADDR (hex; the kernel's text start).
 * The counters are inline TCG adds, not guest instructions, so the guest's
 * icount clock is not disturbed. They are not atomic: exact with one vCPU
 * (the benchmark's exact clock), approximate with more.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu-plugin-api.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

struct block {
	uint64_t vaddr;
	uint64_t insns;		/* instructions per execution */
	uint64_t count;		/* added to inline: executions x insns */
};

/* Open addressing over (address, length) keys; blocks never move, since
 * the translated code adds into them.
 */
static struct block **table;
static size_t table_size, table_used;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *out_path;
static uint64_t min_vaddr;

static size_t slot_of(uint64_t va, uint64_t n, size_t size)
{
	size_t i = (size_t)((va ^ (n << 56)) * 0x9e3779b97f4a7c15ULL >> 20);

	for (i &= size - 1;; i = (i + 1) & (size - 1))
		if (!table[i] || (table[i]->vaddr == va && table[i]->insns == n))
			return i;
}

static int grow(void)
{
	struct block **old = table;
	size_t old_size = table_size, i;

	table_size = table_size ? 2 * table_size : 1 << 16;
	table = calloc(table_size, sizeof(*table));
	if (!table)
		return -1;
	for (i = 0; i < old_size; i++)
		if (old[i])
			table[slot_of(old[i]->vaddr, old[i]->insns,
				      table_size)] = old[i];
	free(old);
	return 0;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t va = qemu_plugin_tb_vaddr(tb);
	uint64_t n = qemu_plugin_tb_n_insns(tb);
	struct block *b;
	size_t i;

	if (va < min_vaddr)
		return;
	/* A block may be retranslated, or start at the same address with
	 * another length: one entry per (address, length).
	 */
	pthread_mutex_lock(&lock);
	if (2 * (table_used + 1) > table_size && grow()) {
		pthread_mutex_unlock(&lock);
		fprintf(stderr, "insncount: out of memory\n");
		abort();
	}
	i = slot_of(va, n, table_size);
	b = table[i];
	if (!b) {
		b = calloc(1, sizeof(*b));
		if (!b)
			abort();
		b->vaddr = va;
		b->insns = n;
		table[i] = b;
		table_used++;
	}
	pthread_mutex_unlock(&lock);
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &b->count, n);
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	FILE *f = fopen(out_path, "w");
	size_t i;

	if (!f) {
		perror(out_path);
		return;
	}
	for (i = 0; i < table_size; i++)
		if (table[i] && table[i]->count)
			fprintf(f, "%" PRIx64 " %" PRIu64 "\n",
				table[i]->vaddr, table[i]->count);
	fclose(f);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4))
			out_path = strdup(argv[i] + 4);
		else if (!strncmp(argv[i], "min=", 4))
			min_vaddr = strtoull(argv[i] + 4, NULL, 16);
		else {
			fprintf(stderr, "insncount: unknown option %s\n",
				argv[i]);
			return -1;
		}
	}
	if (!out_path) {
		fprintf(stderr, "insncount: out=FILE is required\n");
		return -1;
	}
	if (!out_path || grow())
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
