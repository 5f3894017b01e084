// SPDX-License-Identifier: GPL-2.0-only
/* libscxuser's seccomp fence: see fence.h. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fence.h"

/*
 * The filter compares syscall numbers, which differ per architecture, so
 * it first checks that the call came through the table it was built for:
 * the audit architecture of this build's native syscalls. Calls through
 * another table (32-bit compat entry points) are let through untouched,
 * as the fence guards only this program's own allocations.
 */
#if defined(__x86_64__)
#define FENCE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define FENCE_ARCH AUDIT_ARCH_AARCH64
#else
#warning                                                                                           \
	"libscxuser: no seccomp syscall table for this architecture, the scheduling thread runs unfenced"
#endif

/*
 * ASan's allocator maps memory of its own for ordinary allocations (and at
 * exit): under the fence every such call aborts the process. Sanitizer
 * builds exist to find memory bugs, not to keep the no-fault promise, so
 * they run without it (the loader says so in its warning).
 */
#if defined(__SANITIZE_ADDRESS__)
#define FENCE_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FENCE_SANITIZER 1
#endif
#endif

#ifdef FENCE_ARCH
static struct sock_filter fence_insns[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FENCE_ARCH, 1, 0),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	/* Both 64-bit tables (x86-64, arm64's generic one) name mmap so. */
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_brk, 3, 0),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mmap, 2, 0),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mremap, 1, 0),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
};
static const struct sock_fprog fence_prog = {
	.len = sizeof(fence_insns) / sizeof(fence_insns[0]),
	.filter = fence_insns,
};
#endif

const struct sock_fprog *scxu_fence_prog(void)
{
#ifdef FENCE_ARCH
	return &fence_prog;
#else
	return NULL;
#endif
}

int scxu_fence_install(void)
{
	const struct sock_fprog *prog = scxu_fence_prog();

#ifdef FENCE_SANITIZER
	return -EOPNOTSUPP;
#endif
	if (!prog)
		return -ENOSYS;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, prog))
		return -errno;
	return 0;
}
