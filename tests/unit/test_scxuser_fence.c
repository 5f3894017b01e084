// SPDX-License-Identifier: GPL-2.0-only
/*
 * libscxuser's seccomp fence (common/libscxuser/fence.c). The filter is run
 * here by a small classic-BPF interpreter on made-up seccomp_data, so the
 * syscall table is checked for the architecture the test was built for,
 * also under qemu-user (where a real seccomp filter would see the host's
 * architecture). With "--live" (native builds only) a child process also
 * installs the fence and must then fail to map memory.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../common/libscxuser/fence.h"

/* Stated here independently of fence.c: the table each build must use. */
#if defined(__x86_64__)
#define OWN_ARCH   AUDIT_ARCH_X86_64
#define OTHER_ARCH AUDIT_ARCH_I386
#elif defined(__aarch64__)
#define OWN_ARCH   AUDIT_ARCH_AARCH64
#define OTHER_ARCH AUDIT_ARCH_ARM
#endif

static int live;

/* Runs the filter on one call: the seccomp return value, or ~0u if the program is malformed. */
static uint32_t run_filter(const struct sock_fprog *prog, uint32_t arch, int nr)
{
	struct seccomp_data d = {.nr = nr, .arch = arch};
	uint32_t acc = 0;

	for (unsigned int pc = 0; pc < prog->len; pc++) {
		const struct sock_filter *i = &prog->filter[pc];

		switch (i->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (i->k + sizeof(acc) > sizeof(d))
				return ~0u;
			memcpy(&acc, (const char *)&d + i->k, sizeof(acc));
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
			pc += acc == i->k ? i->jt : i->jf;
			break;
		case BPF_RET | BPF_K:
			return i->k;
		default:
			return ~0u;
		}
	}
	return ~0u;
}

#ifdef OWN_ARCH
static void test_mapping_calls_refused(void **state)
{
	const struct sock_fprog *prog = scxu_fence_prog();

	(void)state;
	assert_non_null(prog);
	assert_int_equal(run_filter(prog, OWN_ARCH, __NR_brk), SECCOMP_RET_ERRNO | EPERM);
	assert_int_equal(run_filter(prog, OWN_ARCH, __NR_mmap), SECCOMP_RET_ERRNO | EPERM);
	assert_int_equal(run_filter(prog, OWN_ARCH, __NR_mremap), SECCOMP_RET_ERRNO | EPERM);
}

static void test_other_calls_allowed(void **state)
{
	const struct sock_fprog *prog = scxu_fence_prog();

	(void)state;
	/* Releasing memory and everyday calls stay allowed. */
	assert_int_equal(run_filter(prog, OWN_ARCH, __NR_munmap), SECCOMP_RET_ALLOW);
	assert_int_equal(run_filter(prog, OWN_ARCH, __NR_madvise), SECCOMP_RET_ALLOW);
	assert_int_equal(run_filter(prog, OWN_ARCH, __NR_getpid), SECCOMP_RET_ALLOW);
	assert_int_equal(run_filter(prog, OWN_ARCH, __NR_futex), SECCOMP_RET_ALLOW);
	/* Another table's numbers mean other calls: not judged. */
	assert_int_equal(run_filter(prog, OTHER_ARCH, __NR_mmap), SECCOMP_RET_ALLOW);
	assert_int_equal(run_filter(prog, OTHER_ARCH, __NR_brk), SECCOMP_RET_ALLOW);
}

static void test_live_fence(void **state)
{
	pid_t pid;
	int status;

	(void)state;
	if (!live)
		skip();
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		void *p;
		int err = scxu_fence_install();

		if (err)
			_exit(err == -EOPNOTSUPP ? 77 : 2);
		p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		_exit(p == MAP_FAILED && errno == EPERM ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		skip(); /* sanitizer build: no fence by design */
	assert_int_equal(WEXITSTATUS(status), 0);
}
#else
static void test_no_table(void **state)
{
	(void)state;
	/* Unknown architecture: no filter, and installing says so. */
	assert_null(scxu_fence_prog());
	assert_int_equal(scxu_fence_install(), -ENOSYS);
}
#endif

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
#ifdef OWN_ARCH
		cmocka_unit_test(test_mapping_calls_refused),
		cmocka_unit_test(test_other_calls_allowed),
		cmocka_unit_test(test_live_fence),
#else
		cmocka_unit_test(test_no_table),
#endif
	};

	live = argc > 1 && !strcmp(argv[1], "--live");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
