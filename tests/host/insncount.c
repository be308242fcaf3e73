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

#include "plugin-table.h"
#include "qemu-plugin-api.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

struct block {
	struct ptab_key key;	/* start address, instructions per execution */
	uint64_t count;		/* added to inline: executions x insns */
};

/* One entry per (address, length): a block may be retranslated, or start
 * at the same address with another length.
 */
static struct ptab blocks = PTAB_INIT;
static char *out_path;
static uint64_t min_vaddr;

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t va = qemu_plugin_tb_vaddr(tb);
	uint64_t n = qemu_plugin_tb_n_insns(tb);
	struct block *b;

	if (va < min_vaddr)
		return;
	b = ptab_get(&blocks, va, n, sizeof(*b));
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
	for (i = 0; i < blocks.size; i++) {
		struct block *b = (struct block *)blocks.slot[i];

		if (b && b->count)
			fprintf(f, "%" PRIx64 " %" PRIu64 "\n", b->key.a, b->count);
	}
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
	if (ptab_grow(&blocks))
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
