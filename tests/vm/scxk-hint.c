// SPDX-License-Identifier: GPL-2.0-only
/*
 * scxk-hint MAP PID HINT|none - set (or clear) task PID's hint in the
 * pinned task-hint map MAP, as a client of scx_layered's --task-hint-map
 * does: BPF_OBJ_GET on the path, a pidfd as the key, a 32-byte value
 * whose first u64 is the hint. Raw bpf(2), so the guest needs no libbpf.
 * Exits 1 when a call fails, 2 on bad usage.
 */
#include <errno.h>
#include <linux/bpf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* scx_strata's struct strata_task_hint, scx_layered's struct task_hint */
struct task_hint {
	uint64_t hint;
	uint64_t reserved[3];
};

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

int main(int argc, char **argv)
{
	struct task_hint val = {0};
	union bpf_attr attr;
	int map_fd, pidfd;
	bool clear;
	long ret;

	if (argc != 4) {
		fprintf(stderr, "usage: scxk-hint MAP PID HINT|none\n");
		return 2;
	}
	clear = !strcmp(argv[3], "none");
	val.hint = clear ? 0 : strtoull(argv[3], NULL, 0);
	memset(&attr, 0, sizeof(attr));
	attr.pathname = (uintptr_t)argv[1];
	map_fd = (int)sys_bpf(BPF_OBJ_GET, &attr);
	if (map_fd < 0) {
		fprintf(stderr, "scxk-hint: cannot open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	pidfd = (int)syscall(SYS_pidfd_open, atoi(argv[2]), 0);
	if (pidfd < 0) {
		fprintf(stderr, "scxk-hint: no task %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	memset(&attr, 0, sizeof(attr));
	attr.map_fd = (uint32_t)map_fd;
	attr.key = (uintptr_t)&pidfd;
	if (!clear) { /* a delete must leave value and flags zero (EINVAL) */
		attr.value = (uintptr_t)&val;
		attr.flags = BPF_ANY;
	}
	ret = sys_bpf(clear ? BPF_MAP_DELETE_ELEM : BPF_MAP_UPDATE_ELEM, &attr);
	if (ret < 0 && !(clear && errno == ENOENT)) {
		fprintf(stderr, "scxk-hint: cannot %s the hint of %s: %s\n",
			clear ? "clear" : "set", argv[2], strerror(errno));
		return 1;
	}
	return 0;
}
