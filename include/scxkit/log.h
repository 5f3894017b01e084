/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * log.h - the one logger of libscxkit and the schedulers.
 *
 * Diagnostics go to stderr, prefixed with the program name; stdout is kept
 * for stats and data. Library code logs once, where it knows the context,
 * and hands the negative errno back up (scxk_err returns its first argument,
 * like systemd's log_error_errno).
 */
#ifndef __SCXKIT_LOG_H
#define __SCXKIT_LOG_H

#include <stdarg.h>

enum scxk_log_level {
	SCXK_LOG_ERROR = 0,
	SCXK_LOG_WARN,
	SCXK_LOG_INFO,
	SCXK_LOG_DEBUG,	 /* -v */
	SCXK_LOG_LIBBPF, /* -vv: libbpf's own debug output */
};

/**
 * scxk_log_setup - set the program name and the verbosity
 * @prog: name printed before every message (e.g. "scx_minimal")
 * @verbosity: number of -v flags; 0 prints errors, warnings and info
 */
void scxk_log_setup(const char *prog, int verbosity);

/** scxk_log_verbosity - number of -v flags given to scxk_log_setup() */
int scxk_log_verbosity(void);

/** scxk_log_prog - program name given to scxk_log_setup() */
const char *scxk_log_prog(void);

/**
 * scxk_log - print one message at @level to stderr if the verbosity allows it
 * @level: one of enum scxk_log_level
 * @fmt: printf format; no trailing newline needed
 */
void scxk_log(enum scxk_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/** scxk_vlog - va_list form of scxk_log() */
void scxk_vlog(enum scxk_log_level level, const char *fmt, va_list ap);

/**
 * scxk_err - log an error and return @ret, so callers can write
 *            "return scxk_err(-errno, "cannot open %s", path);"
 * @ret: negative errno; its strerror() text is appended when non-zero
 * @fmt: printf format describing what failed
 *
 * Return: @ret.
 */
int scxk_err(int ret, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define scxk_warn(...) scxk_log(SCXK_LOG_WARN, __VA_ARGS__)
#define scxk_info(...) scxk_log(SCXK_LOG_INFO, __VA_ARGS__)
#define scxk_dbg(...)  scxk_log(SCXK_LOG_DEBUG, __VA_ARGS__)

#endif /* __SCXKIT_LOG_H */
