// SPDX-License-Identifier: GPL-2.0-only
/*
 * The installed set of schedulers. Every scheduler package ships one
 * registry entry, <datadir>/scxkit/schedulers/<name>, holding the one-line
 * summary of its --help, plus its binary <bindir>/scx_<name>. Nothing else
 * counts: a name that is not in this set is refused before anything runs,
 * so neither an scx_* binary of another project nor a crafted path can be
 * started through scxctl.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <scxkit/fileio.h>

#include "scxctl.h"

/*
 * Overrides for trees that are not installed under the build's prefix: the
 * build directory, the test VM, a package unpacked with dpkg --root.
 */
static const char *env_or(const char *var, const char *dfl)
{
	const char *v = getenv(var);

	return v && *v ? v : dfl;
}

const char *scxctl_sched_dir(void)
{
	return env_or("SCXKIT_SCHED_DIR", SCXCTL_SCHED_DIR);
}

const char *scxctl_bin_dir(void)
{
	return env_or("SCXKIT_BIN_DIR", SCXCTL_BIN_DIR);
}

bool scxctl_name_valid(const char *name)
{
	size_t i, len = strlen(name);

	if (!len || len > SCXCTL_NAME_MAX || !islower((unsigned char)name[0]))
		return false;
	for (i = 0; i < len; i++) {
		unsigned char c = name[i];

		if (!(islower(c) || isdigit(c) || c == '_'))
			return false;
	}
	return true;
}

static void read_desc(const char *path, char *out, size_t len)
{
	if (scxk_read_line(path, out, len))
		out[0] = '\0';
	out[strcspn(out, "\r")] = '\0';
}

/* Fill @out for @name if both its entry and its binary are in place. */
static int load(const char *name, struct scxctl_sched *out)
{
	char entry[SCXCTL_PATH_MAX];
	struct stat st;

	snprintf(entry, sizeof(entry), "%s/%s", scxctl_sched_dir(), name);
	if (stat(entry, &st) || !S_ISREG(st.st_mode))
		return -ENOENT;
	snprintf(out->name, sizeof(out->name), "%s", name);
	snprintf(out->binary, sizeof(out->binary), "%s/scx_%s", scxctl_bin_dir(), name);
	if (stat(out->binary, &st) || !S_ISREG(st.st_mode) || access(out->binary, X_OK))
		return -ENOENT;
	read_desc(entry, out->desc, sizeof(out->desc));
	return 0;
}

int scxctl_lookup(const char *name, struct scxctl_sched *out)
{
	if (!strncmp(name, "scx_", 4))
		name += 4;
	if (!scxctl_name_valid(name))
		return -EINVAL;
	return load(name, out);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct scxctl_sched *)a)->name,
		      ((const struct scxctl_sched *)b)->name);
}

int scxctl_list(struct scxctl_sched **out)
{
	struct scxctl_sched *v = NULL, *nv;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;
	int err;

	*out = NULL;
	d = opendir(scxctl_sched_dir());
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		if (!scxctl_name_valid(de->d_name))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 8;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				err = -ENOMEM;
				goto fail;
			}
			v = nv;
		}
		if (!load(de->d_name, &v[n]))
			n++;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), by_name);
	*out = v;
	return (int)n;
fail:
	closedir(d);
	free(v);
	return err;
}
