// SPDX-License-Identifier: GPL-2.0
/*
 * cachewalk: the cache model's calibration. Walks an array of SIZE bytes,
 * one byte read every STRIDE bytes, PASSES times untimed (warm-up) and then
 * PASSES times inside a cache-model window (cachemark.h), and prints
 * "accesses=N" (reads in the window) for the host to divide the window's
 * misses by.
 *
 *   cachewalk SIZE STRIDE PASSES      SIZE with an optional K or M
 *
 * The model (with sim=marks) starts at the warm-up. The array is touched
 * (written) once before the warm-up so that every
 * page is mapped. The loop keeps its index and sum in registers: one data
 * access per step (checked against the model's L1d count by the caller).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cachemark.h"

static unsigned long parse_size(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (*end == 'K' || *end == 'k')
		v <<= 10;
	else if (*end == 'M' || *end == 'm')
		v <<= 20;
	else if (*end)
		return 0;
	return v;
}

static unsigned long walk(const volatile unsigned char *a, unsigned long size,
			  unsigned long stride, unsigned long passes)
{
	unsigned long sum = 0, p, i;

	for (p = 0; p < passes; p++)
		for (i = 0; i < size; i += stride)
			sum += a[i];
	return sum;
}

int main(int argc, char **argv)
{
	unsigned long size, stride, passes, sum;
	unsigned char *a;

	if (argc != 4 || !(size = parse_size(argv[1])) ||
	    !(stride = parse_size(argv[2])) || !(passes = parse_size(argv[3]))) {
		fprintf(stderr, "usage: cachewalk SIZE STRIDE PASSES\n");
		return 2;
	}
	if (posix_memalign((void **)&a, 4096, size)) {
		perror("posix_memalign");
		return 1;
	}
	memset(a, 1, size);
	cachemark_warm();
	sum = walk(a, size, stride, passes);
	cachemark_open();
	sum += walk(a, size, stride, passes);
	cachemark_close();
	printf("accesses=%lu sum=%lu\n", passes * ((size + stride - 1) / stride), sum);
	return 0;
}
