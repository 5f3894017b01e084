/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * types.h - the kernel's fixed-width names on the host, so that headers
 * shared by BPF and user space (and their pure functions) read the same on
 * both sides. In BPF the names come from vmlinux.h.
 */
#ifndef __SCXKIT_TYPES_H
#define __SCXKIT_TYPES_H

#ifndef __bpf__
#include <stdbool.h>
#include <stdint.h>
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
#endif

#endif /* __SCXKIT_TYPES_H */
