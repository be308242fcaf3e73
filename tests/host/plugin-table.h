/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A table of per-code-address records for the QEMU plugins (insncount.c,
 * cachemodel.c): open addressing over a two-word key, records made on
 * first sight and never moved or freed, since translated code adds into
 * them. A record type starts with struct ptab_key.
 */
#ifndef PLUGIN_TABLE_H
#define PLUGIN_TABLE_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct ptab_key {
	uint64_t a, b;
};

struct ptab {
	struct ptab_key **slot;
	size_t size, used;
	pthread_mutex_t lock;
};

#define PTAB_INIT { .lock = PTHREAD_MUTEX_INITIALIZER }

static size_t ptab_index(struct ptab_key **slot, size_t size, uint64_t a, uint64_t b)
{
	size_t i = (size_t)((a ^ (b << 40) ^ (b >> 24)) * 0x9e3779b97f4a7c15ULL >> 20);

	for (i &= size - 1;; i = (i + 1) & (size - 1))
		if (!slot[i] || (slot[i]->a == a && slot[i]->b == b))
			return i;
}

/* Double the table (or make its first 64k slots); -1 when out of memory. */
static int ptab_grow(struct ptab *t)
{
	size_t size = t->size ? 2 * t->size : 1 << 16, i;
	struct ptab_key **slot = calloc(size, sizeof(*slot));

	if (!slot)
		return -1;
	for (i = 0; i < t->size; i++)
		if (t->slot[i])
			slot[ptab_index(slot, size, t->slot[i]->a, t->slot[i]->b)] = t->slot[i];
	free(t->slot);
	t->slot = slot;
	t->size = size;
	return 0;
}

/* The record of key (A, B), SIZE bytes, zeroed when new. Aborts when out
 * of memory: a translation callback has no way to fail.
 */
static void *ptab_get(struct ptab *t, uint64_t a, uint64_t b, size_t size)
{
	struct ptab_key *k;
	size_t i;

	pthread_mutex_lock(&t->lock);
	if (2 * (t->used + 1) > t->size && ptab_grow(t)) {
		fprintf(stderr, "QEMU plugin: out of memory\n");
		abort();
	}
	i = ptab_index(t->slot, t->size, a, b);
	k = t->slot[i];
	if (!k) {
		k = calloc(1, size);
		if (!k) {
			fprintf(stderr, "QEMU plugin: out of memory\n");
			abort();
		}
		k->a = a;
		k->b = b;
		t->slot[i] = k;
		t->used++;
	}
	pthread_mutex_unlock(&t->lock);
	return k;
}

#endif
