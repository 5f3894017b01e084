// SPDX-License-Identifier: GPL-2.0-only
/* One logger for everything a scheduler binary prints on stderr. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <scxkit/log.h>

static const char *log_prog = "scxkit";
static int log_verbosity;

void scxk_log_setup(const char *prog, int verbosity)
{
	if (prog)
		log_prog = prog;
	log_verbosity = verbosity;
}

int scxk_log_verbosity(void)
{
	return log_verbosity;
}

const char *scxk_log_prog(void)
{
	return log_prog;
}

static int level_enabled(enum scxk_log_level level)
{
	switch (level) {
	case SCXK_LOG_DEBUG:
		return log_verbosity >= 1;
	case SCXK_LOG_LIBBPF:
		return log_verbosity >= 2;
	default:
		return 1;
	}
}

void scxk_vlog(enum scxk_log_level level, const char *fmt, va_list ap)
{
	static const char *const tag[] = {
		[SCXK_LOG_ERROR] = "error: ", [SCXK_LOG_WARN] = "warning: ",  [SCXK_LOG_INFO] = "",
		[SCXK_LOG_DEBUG] = "debug: ", [SCXK_LOG_LIBBPF] = "libbpf: ",
	};
	size_t len = strlen(fmt);

	if (!level_enabled(level))
		return;
	fprintf(stderr, "%s: %s", log_prog, tag[level]);
	vfprintf(stderr, fmt, ap);
	if (!len || fmt[len - 1] != '\n')
		fputc('\n', stderr);
}

void scxk_log(enum scxk_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	scxk_vlog(level, fmt, ap);
	va_end(ap);
}

int scxk_err(int ret, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (ret)
		scxk_log(SCXK_LOG_ERROR, "%s: %s", msg, strerror(ret < 0 ? -ret : ret));
	else
		scxk_log(SCXK_LOG_ERROR, "%s", msg);
	return ret;
}
