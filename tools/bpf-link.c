// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf-link OUT IN... - statically link BPF objects with the build's libbpf.
 *
 * It does what "bpftool gen object" does, but with the libbpf scxkit is
 * built against (>= 1.5) rather than the one inside Debian 12's bpftool
 * 7.5, whose linker rejects two objects that call the same kfunc ("failed
 * to resolve size of underlying type"), which every scheduler linking the
 * common BPF library does.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>

int main(int argc, char **argv)
{
	struct bpf_linker *linker;
	int i, err = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: %s OUT.o IN.o...\n", argv[0]);
		return 2;
	}
	linker = bpf_linker__new(argv[1], NULL);
	if (!linker) {
		fprintf(stderr, "bpf-link: cannot create %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	for (i = 2; i < argc && !err; i++) {
		err = bpf_linker__add_file(linker, argv[i], NULL);
		if (err)
			fprintf(stderr, "bpf-link: cannot link %s: %s\n", argv[i], strerror(-err));
	}
	if (!err && (err = bpf_linker__finalize(linker)))
		fprintf(stderr, "bpf-link: cannot write %s: %s\n", argv[1], strerror(-err));
	bpf_linker__free(linker);
	return err ? 1 : 0;
}
