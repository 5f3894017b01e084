// SPDX-License-Identifier: GPL-2.0-only
/*
 * scxctl top: the running scheduler, its stats with rates and the CPUs'
 * utilisation, redrawn every second until 'q'; --once prints one plain
 * snapshot for scripts.
 *
 * Plain ANSI rather than ncurses: the view is a full redraw of a text
 * block once a second, which needs only "clear", the alternate screen and
 * a non-canonical tty, so a library would add a dependency (and a runtime
 * package) for four escape sequences. docs/design.md has the reasoning.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <scxkit/exit.h>
#include <scxkit/log.h>

#include "scxctl.h"
#include "top.h"

#define STATS_TIMEOUT_MS 2000
#define STATS_TOP_REQ	 "{\"req\":\"stats\",\"args\":{\"target\":\"top\"}}"
#define REFRESH_MS	 1000
#define PROC_STAT_MAX	 (1 << 20) /* /proc/stat of thousands of CPUs still fits */

/* ANSI/VT100 sequences: alternate screen, cursor, clear. */
#define ESC_ALT_ON  "\033[?1049h\033[?25l"
#define ESC_ALT_OFF "\033[?25h\033[?1049l"
#define ESC_HOME    "\033[H\033[2J"

static volatile sig_atomic_t stop_req, resized;

static void on_stop(int sig)
{
	(void)sig;
	stop_req = 1;
}

static void on_winch(int sig)
{
	(void)sig;
	resized = 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int read_cpustat(struct scxctl_cpustat *s)
{
	char *buf = malloc(PROC_STAT_MAX);
	FILE *f = fopen("/proc/stat", "re");
	size_t n = 0;
	int err;

	memset(s, 0, sizeof(*s));
	if (!buf || !f) {
		err = buf ? -errno : -ENOMEM;
		goto out;
	}
	n = fread(buf, 1, PROC_STAT_MAX - 1, f);
	buf[n] = '\0';
	err = scxctl_cpustat_parse(buf, s);
out:
	if (f)
		fclose(f);
	free(buf);
	return err;
}

/* The live state: who runs, the stats connection, the last two samples. */
struct top {
	const char *sock_arg; /* SOCKET given on the command line, or NULL */
	struct scxctl_kstate ks;
	struct scxctl_loader l;
	struct scxctl_top_info info;
	char stats_path[108];
	struct scxk_stats_client *c;
	struct scxk_stats_view *view;
	json_t *resp;
	double t_prev, t_now;
	struct scxctl_cpustat cpu[2]; /* [0] the previous sample, [1] the latest */
	char note[256];
};

/*
 * Who runs now. Return: 0, or an exit status after saying why nothing can
 * be shown (unless @quiet: the live view says it on its screen instead).
 */
static int find_sched(struct top *t, bool quiet)
{
	bool found;

	scxctl_kstate_read(&t->ks);
	if (!t->ks.present) {
		if (!quiet)
			scxk_log(SCXK_LOG_ERROR,
				 "this kernel has no sched_ext (%s is missing): it needs "
				 "CONFIG_SCHED_CLASS_EXT=y (Linux 6.12 or newer)",
				 scxctl_sysfs());
		return SCXK_EXIT_FAIL;
	}
	if (strcmp(t->ks.state, "enabled")) {
		if (!quiet)
			scxk_log(SCXK_LOG_ERROR, "no sched_ext scheduler runs (state: %s); %s",
				 t->ks.state[0] ? t->ks.state : "unknown",
				 "start one with 'scxctl start NAME'");
		return SCXK_EXIT_FAIL;
	}
	found = !scxctl_find_loader(t->ks.ops, &t->l);
	snprintf(t->stats_path, sizeof(t->stats_path), "%s",
		 t->sock_arg ? t->sock_arg
		 : found     ? t->l.stats_path
			     : SCXK_STATS_DEFAULT_PATH);
	t->info = (struct scxctl_top_info){
		.sched = t->ks.ops,
		.loader = found ? t->l.name : "",
		.pid = found ? t->l.pid : 0,
		.uptime_s = found && t->l.start_time ? (long long)time(NULL) - t->l.start_time : -1,
		.mode = NULL, /* no scheduler reports a mode yet (issue 27, item 1) */
		.scope = !strcmp(t->ks.switch_all, "1") ? "all tasks"
							: "only SCHED_EXT tasks (--partial)",
		.stats_path = t->stats_path,
	};
	return 0;
}

static void disconnect(struct top *t)
{
	scxk_stats_client_close(t->c);
	t->c = NULL;
	scxk_stats_view_free(t->view);
	t->view = NULL;
}

/* Take a sample of the stats and of /proc/stat; 0 or -errno (the note says why). */
static int sample(struct top *t)
{
	json_t *resp = NULL;
	int err;

	scxctl_cpustat_free(&t->cpu[0]);
	t->cpu[0] = t->cpu[1];
	if (read_cpustat(&t->cpu[1]))
		memset(&t->cpu[1], 0, sizeof(t->cpu[1]));
	if (!t->c) {
		err = scxk_stats_client_open(&t->c, t->stats_path, STATS_TIMEOUT_MS);
		if (!err)
			err = scxk_stats_view_open(&t->view, t->c);
		if (err)
			goto lost;
		t->t_now = 0;
	}
	err = scxk_stats_client_request(t->c, STATS_TOP_REQ, &resp);
	if (err)
		goto lost;
	json_decref(t->resp);
	t->resp = resp;
	t->t_prev = t->t_now;
	t->t_now = now_s();
	t->note[0] = '\0';
	return 0;
lost:
	json_decref(resp);
	disconnect(t);
	json_decref(t->resp);
	t->resp = NULL;
	snprintf(t->note, sizeof(t->note), "no stats on %s: %s%s", t->stats_path, strerror(-err),
		 err == -EACCES ? " (run as root)" : "");
	return err;
}

static void render(struct top *t, FILE *out, int width)
{
	struct scxctl_top_frame f = {
		.info = &t->info,
		.view = t->view,
		.resp = t->resp,
		.t_s = t->t_now,
		.interval_s = t->t_prev > 0 ? t->t_now - t->t_prev : 0,
		.note = t->note,
		.cpu_a = t->cpu[0].nr || t->cpu[0].has_all ? &t->cpu[0] : NULL,
		.cpu_b = t->cpu[1].nr || t->cpu[1].has_all ? &t->cpu[1] : NULL,
	};

	scxctl_top_render(out, &f, width);
}

static void top_free(struct top *t)
{
	disconnect(t);
	json_decref(t->resp);
	scxctl_cpustat_free(&t->cpu[0]);
	scxctl_cpustat_free(&t->cpu[1]);
}

static int once(struct top *t)
{
	struct timespec ts = {REFRESH_MS / 1000, (REFRESH_MS % 1000) * 1000000L};
	int err;

	/* rates need two samples on one connection: the first only starts the interval */
	if ((err = sample(t)))
		goto fail;
	scxk_stats_view_feed(t->view, t->resp, t->t_now);
	nanosleep(&ts, NULL);
	if ((err = sample(t)))
		goto fail;
	render(t, stdout, 0);
	return SCXK_EXIT_OK;
fail:
	scxk_log(SCXK_LOG_ERROR, "%s", t->note);
	return SCXK_EXIT_FAIL;
}

/* Write @buf to the terminal, each line cut at @cols and at most @rows lines. */
static void paint(const char *buf, int cols, int rows)
{
	const char *p = buf, *nl;
	int row = 0;

	fputs(ESC_HOME, stdout);
	while (*p && row < rows) {
		size_t n;

		nl = strchr(p, '\n');
		n = nl ? (size_t)(nl - p) : strlen(p);
		fwrite(p, 1, n > (size_t)cols ? (size_t)cols : n, stdout);
		if (++row < rows)
			fputs("\r\n", stdout);
		p = nl ? nl + 1 : p + n;
	}
	fflush(stdout);
}

static int live(struct top *t)
{
	struct sigaction sa = {.sa_handler = on_stop}, sw = {.sa_handler = on_winch};
	struct termios saved, raw;
	int rc = SCXK_EXIT_OK;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		scxk_log(SCXK_LOG_ERROR,
			 "top needs a terminal; use 'scxctl top --once' in scripts");
		return SCXK_EXIT_USAGE;
	}
	/* before taking over the screen: a scheduler gone or no stats is an error at once */
	if (sample(t)) {
		scxk_log(SCXK_LOG_ERROR, "%s", t->note);
		return SCXK_EXIT_FAIL;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigemptyset(&sw.sa_mask);
	sigaction(SIGWINCH, &sw, NULL);
	tcgetattr(STDIN_FILENO, &saved);
	raw = saved;
	raw.c_lflag &= ~(ICANON | ECHO);
	raw.c_cc[VMIN] = 0;
	raw.c_cc[VTIME] = 0;
	tcsetattr(STDIN_FILENO, TCSANOW, &raw);
	fputs(ESC_ALT_ON, stdout);

	while (!stop_req) {
		struct winsize ws = {0};
		char *buf = NULL;
		size_t len = 0;
		FILE *mem;
		double until;

		if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) || !ws.ws_col)
			ws.ws_col = 80, ws.ws_row = 24;
		mem = open_memstream(&buf, &len);
		if (!mem) {
			rc = SCXK_EXIT_FAIL;
			break;
		}
		render(t, mem, ws.ws_col);
		fprintf(mem, "\n[q] quit   refreshed every %d s\n", REFRESH_MS / 1000);
		fclose(mem);
		paint(buf, ws.ws_col, ws.ws_row);
		free(buf);

		until = now_s() + REFRESH_MS / 1000.0;
		resized = 0;
		while (!stop_req && !resized) {
			struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};
			int left = (int)((until - now_s()) * 1000);
			char ch;

			if (left <= 0)
				break;
			if (poll(&p, 1, left) > 0 && read(STDIN_FILENO, &ch, 1) == 1 &&
			    (ch == 'q' || ch == 'Q'))
				stop_req = 1;
		}
		if (stop_req)
			break;
		if (resized && now_s() < until)
			continue; /* redraw at the new size with the same sample */
		/* the scheduler may have changed or gone: the header says so, the loop goes on */
		if (find_sched(t, true)) {
			/* the old numbers would pass for the new state: show none */
			disconnect(t);
			json_decref(t->resp);
			t->resp = NULL;
			snprintf(t->note, sizeof(t->note), "no scheduler runs now (state: %s)",
				 t->ks.state[0] ? t->ks.state : "unknown");
		} else {
			sample(t);
		}
	}

	fputs(ESC_ALT_OFF, stdout);
	fflush(stdout);
	tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	return rc;
}

int scxctl_top(int argc, char **argv)
{
	struct top t = {0};
	bool want_once = false;
	int rc;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--once"))
			want_once = true;
		else if (argv[i][0] == '-' || t.sock_arg) {
			scxk_log(SCXK_LOG_ERROR,
				 "top: unexpected argument '%s' (top [--once] [SOCKET])", argv[i]);
			return SCXK_EXIT_USAGE;
		} else
			t.sock_arg = argv[i];
	}
	if ((rc = find_sched(&t, false)))
		return rc;
	rc = want_once ? once(&t) : live(&t);
	top_free(&t);
	return rc;
}
