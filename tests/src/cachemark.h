/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cache model's window marks (tests/host/cachemodel.c): two multi-byte
 * NOPs, "nopl 0xcac00001(%rax)" opens a counting window and
 * "nopl 0xcac00002(%rax)" closes it. The CPU does nothing for either (no
 * memory is accessed); the plugin, when loaded, recognises their bytes in
 * user-space code. Spelt as bytes: the displacement does not fit a signed
 * 32-bit immediate as the assembler reads it.
 */
#ifndef CACHEMARK_H
#define CACHEMARK_H

static inline void cachemark_open(void)
{
	__asm__ volatile(".byte 0x0f, 0x1f, 0x80, 0x01, 0x00, 0xc0, 0xca" ::: "memory");
}

/* Start the model without counting (its option sim=marks): "nopl
 * 0xcac00003(%rax)"; it runs until the next close.
 */
static inline void cachemark_warm(void)
{
	__asm__ volatile(".byte 0x0f, 0x1f, 0x80, 0x03, 0x00, 0xc0, 0xca" ::: "memory");
}

static inline void cachemark_close(void)
{
	__asm__ volatile(".byte 0x0f, 0x1f, 0x80, 0x02, 0x00, 0xc0, 0xca" ::: "memory");
}

#endif
