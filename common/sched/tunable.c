// SPDX-License-Identifier: GPL-2.0-only
/* tunable.c - kernel tunables restorable after an unclean exit (see scxkit/tunable.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <scxkit/fileio.h>
#include <scxkit/log.h>
#include <scxkit/tunable.h>

/* Sysctl and sysfs tunables are short words ("0", "n/a", "2147483647"). */
#define VALUE_MAX 64
/* The start time is field 22 of /proc/PID/stat (proc(5)). */
#define STAT_STARTTIME_FIELD 22

struct saved {
	long pid;
	unsigned long long start;
	char path[PATH_MAX];
	char value[VALUE_MAX];
};

static const char *run_dir(void)
{
	const char *d = getenv(SCXK_RUN_DIR_ENV);

	return d && d[0] ? d : SCXK_RUN_DIR_DEFAULT;
}

static int saved_dir(char *buf, size_t len)
{
	if ((size_t)snprintf(buf, len, "%s/%s", run_dir(), SCXK_TUNABLE_SUBDIR) >= len)
		return -ENAMETOOLONG;
	return 0;
}

static int saved_path(const char *key, char *buf, size_t len)
{
	char dir[PATH_MAX];
	int err;

	if (!key[0] || strchr(key, '/') || key[0] == '.')
		return -EINVAL;
	if ((err = saved_dir(dir, sizeof(dir))))
		return err;
	if ((size_t)snprintf(buf, len, "%s/%s", dir, key) >= len)
		return -ENAMETOOLONG;
	return 0;
}

/*
 * A pid alone can be reused; the start time tells the loader that saved
 * the value from a newer process with the same pid.
 */
static unsigned long long proc_start(long pid)
{
	char path[64], buf[1024], *p;
	unsigned long long v = 0;
	int field;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (scxk_read_line(path, buf, sizeof(buf)))
		return 0;
	/* comm (field 2) may hold blanks and ')': count from its last ')'. */
	if (!(p = strrchr(buf, ')')))
		return 0;
	for (field = 2; p && field < STAT_STARTTIME_FIELD; field++)
		p = strchr(p + 1, ' ');
	if (p)
		v = strtoull(p + 1, NULL, 10);
	return v;
}

static bool owner_alive(const struct saved *s)
{
	if (s->pid <= 0 || (kill(s->pid, 0) && errno == ESRCH))
		return false;
	return proc_start(s->pid) == s->start;
}

static int write_value(const char *path, const char *value)
{
	size_t len = strlen(value);
	/* O_TRUNC: a shorter value must not leave the old one's tail (plain files under
	 * SCX_SYSFS_PREFIX). */
	int err = 0, fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (write(fd, value, len) != (ssize_t)len)
		err = errno ? -errno : -EIO;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

static int load_saved(const char *file, struct saved *s)
{
	char buf[32 + PATH_MAX + VALUE_MAX], *path, *value;
	FILE *f = fopen(file, "re");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	path = strchr(buf, '\n');
	value = path ? strchr(path + 1, '\n') : NULL;
	if (!value || sscanf(buf, "%ld %llu", &s->pid, &s->start) != 2)
		return -EBADMSG;
	*path++ = '\0';
	*value++ = '\0';
	value[strcspn(value, "\n")] = '\0';
	if (snprintf(s->path, sizeof(s->path), "%s", path) >= (int)sizeof(s->path) ||
	    snprintf(s->value, sizeof(s->value), "%s", value) >= (int)sizeof(s->value))
		return -EBADMSG;
	return 0;
}

/* The run directory and its parents as needed; the store itself is root's alone. */
static int mkdir_p(const char *dir)
{
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s", dir);
	for (char *p = strchr(tmp + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(tmp, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return mkdir(tmp, 0700) && errno != EEXIST ? -errno : 0;
}

/*
 * Written to a private name, then link()ed into place: link() fails with
 * EEXIST instead of replacing, so the first original saved always wins and
 * a reader never sees half a file.
 */
static int save_once(const char *key, const char *file, const char *path, const char *value)
{
	char dir[PATH_MAX], tmp[PATH_MAX + 32];
	FILE *f;
	int err;

	if ((err = saved_dir(dir, sizeof(dir))) || (err = mkdir_p(dir)))
		return scxk_err(err, "cannot create %s/%s", run_dir(), SCXK_TUNABLE_SUBDIR);
	snprintf(tmp, sizeof(tmp), "%s/.%s.%ld", dir, key, (long)getpid());
	f = fopen(tmp, "wxe");
	if (!f && errno == EEXIST && !unlink(tmp))
		f = fopen(tmp, "wxe");
	if (!f)
		return scxk_err(-errno, "cannot create %s", tmp);
	fprintf(f, "%ld %llu\n%s\n%s\n", (long)getpid(), proc_start(getpid()), path, value);
	err = fflush(f) || fsync(fileno(f)) ? -errno : 0;
	if (fclose(f) && !err)
		err = -errno;
	if (!err && link(tmp, file))
		err = -errno;
	unlink(tmp);
	if (err && err != -EEXIST)
		return scxk_err(err, "cannot save the original of %s in %s", path, file);
	return err;
}

/* Put a saved original back and forget it. */
static int put_back(const char *file, const struct saved *s)
{
	int err = write_value(s->path, s->value);

	if (err)
		return scxk_err(err, "cannot restore %s to \"%s\" (saved in %s)", s->path, s->value,
				file);
	if (unlink(file) && errno != ENOENT)
		return scxk_err(-errno, "cannot remove %s", file);
	return 0;
}

int scxk_tunable_set(const char *key, const char *path, const char *value)
{
	char file[PATH_MAX], cur[VALUE_MAX];
	struct saved s;
	int err;

	if ((err = saved_path(key, file, sizeof(file))))
		return scxk_err(err, "bad tunable name \"%s\"", key);
	for (;;) {
		err = load_saved(file, &s);
		if (err == -ENOENT) {
			if ((err = scxk_read_line(path, cur, sizeof(cur))))
				return scxk_err(err, "cannot read %s", path);
			err = save_once(key, file, path, cur);
			if (err == -EEXIST)
				continue; /* another process saved first: look at its save */
			if (err)
				return err;
			break;
		}
		if (err)
			return scxk_err(err, "%s is not a saved tunable; remove it", file);
		if (s.pid == getpid())
			break;
		if (owner_alive(&s))
			return scxk_err(-EBUSY, "%s is changed by process %ld, still running", path,
					s.pid);
		scxk_info("restoring %s to \"%s\", left behind by process %ld", s.path, s.value,
			  s.pid);
		if ((err = put_back(file, &s)))
			return err;
	}
	if ((err = write_value(path, value)))
		return scxk_err(err, "cannot write \"%s\" to %s", value, path);
	return 0;
}

int scxk_tunable_restore(const char *key)
{
	char file[PATH_MAX];
	struct saved s;
	int err;

	if ((err = saved_path(key, file, sizeof(file))))
		return scxk_err(err, "bad tunable name \"%s\"", key);
	err = load_saved(file, &s);
	if (err == -ENOENT)
		return 0;
	if (err)
		return scxk_err(err, "%s is not a saved tunable; remove it", file);
	if (s.pid != getpid())
		return 0; /* not ours: its owner, or the next start, restores it */
	return put_back(file, &s);
}

int scxk_tunable_recover(void)
{
	char dir[PATH_MAX], file[PATH_MAX + NAME_MAX + 2];
	struct dirent *de;
	struct saved s;
	int err, ret = 0, restored = 0;
	DIR *d;

	if ((err = saved_dir(dir, sizeof(dir))))
		return scxk_err(err, "bad %s", SCXK_RUN_DIR_ENV);
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : scxk_err(-errno, "cannot read %s", dir);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(file, sizeof(file), "%s/%s", dir, de->d_name);
		if ((err = load_saved(file, &s))) {
			ret = scxk_err(err, "%s is not a saved tunable; remove it", file);
			continue;
		}
		if (s.pid == getpid() || owner_alive(&s))
			continue;
		scxk_info("restoring %s to \"%s\", left behind by process %ld", s.path, s.value,
			  s.pid);
		if ((err = put_back(file, &s)))
			ret = err;
		else
			restored++;
	}
	closedir(d);
	return ret ? ret : restored;
}
