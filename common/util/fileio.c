// SPDX-License-Identifier: GPL-2.0-only
/* fileio.c - one-line sysfs and procfs readers (see scxkit/fileio.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <scxkit/fileio.h>
#include <scxkit/topo.h>

ssize_t scxk_read_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

int scxk_read_line(const char *path, char *buf, size_t len)
{
	ssize_t n = scxk_read_file(path, buf, len);

	if (n < 0)
		return (int)n;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int scxk_sysfs_read_word(const char *rel, char *buf, size_t len)
{
	const char *prefix = getenv(SCXK_SYSFS_PREFIX_ENV);
	char path[512];
	int err;

	snprintf(path, sizeof(path), "%s%s", prefix ? prefix : "", rel);
	if ((err = scxk_read_line(path, buf, len)))
		return err;
	return buf[0] ? 0 : -EIO;
}
