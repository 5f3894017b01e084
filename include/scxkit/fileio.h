/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fileio.h - reading the one-line files of sysfs and procfs (state words,
 * sequence numbers, /proc/PID/stat), for the loaders, libscxkit and scxctl.
 */
#ifndef __SCXKIT_FILEIO_H
#define __SCXKIT_FILEIO_H

#include <stddef.h>
#include <sys/types.h>

/**
 * scxk_sysfs_read_word - the first line of a sysfs (or procfs) file, without
 * its newline
 * @rel: absolute path, read under $SCX_SYSFS_PREFIX when that is set (tests)
 *
 * Return: 0, or a negative errno (-EIO for an empty first line).
 */
int scxk_sysfs_read_word(const char *rel, char *buf, size_t len);

/**
 * scxk_read_file - the start of the file at @path, in one read()
 * @buf: receives up to @len - 1 bytes and a terminating NUL
 *
 * One read() returns a whole sysfs or procfs file of up to a page, which
 * is what this is for; a longer file is cut.
 * Return: the number of bytes read, or a negative errno.
 */
ssize_t scxk_read_file(const char *path, char *buf, size_t len);

/**
 * scxk_read_line - the first line of a small file at @path, without its
 * newline; an empty file gives ""
 * Return: 0, or a negative errno.
 */
int scxk_read_line(const char *path, char *buf, size_t len);

#endif /* __SCXKIT_FILEIO_H */
