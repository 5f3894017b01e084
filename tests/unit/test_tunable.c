// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tunable store (common/sched/tunable.c) on the host: a temp dir stands
 * in for /run/scx and a plain file for the sysctl, and a forked child that
 * dies without restoring plays the SIGKILLed loader.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <scxkit/log.h>
#include <scxkit/tunable.h>

#define KEY	 "vm.test_tunable"
#define ORIGINAL "1"
#define CHANGED	 "0"

static char root[] = "/tmp/scxk-tunable-XXXXXX";
static char knob[PATH_MAX], saved[PATH_MAX];

static void put(const char *path, const char *v)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(v, f);
	fclose(f);
}

static const char *get(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return "(missing)";
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

static bool exists(const char *path)
{
	return !access(path, F_OK);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(root))
		return -1;
	setenv(SCXK_RUN_DIR_ENV, root, 1);
	snprintf(knob, sizeof(knob), "%s/knob", root);
	snprintf(saved, sizeof(saved), "%s/%s/%s", root, SCXK_TUNABLE_SUBDIR, KEY);
	scxk_log_setup("test_tunable", 0);
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) ? -1 : 0;
}

/* Each test starts from the sysctl at its original and nothing saved. */
static int reset(void **state)
{
	(void)state;
	put(knob, ORIGINAL "\n");
	unlink(saved);
	return 0;
}

static void test_set_restore(void **state)
{
	(void)state;
	assert_int_equal(scxk_tunable_set(KEY, knob, CHANGED), 0);
	assert_string_equal(get(knob), CHANGED);
	assert_true(exists(saved));
	/* A live loader's own save is not "recovered" under it. */
	assert_int_equal(scxk_tunable_recover(), 0);
	assert_int_equal(scxk_tunable_restore(KEY), 0);
	assert_string_equal(get(knob), ORIGINAL);
	assert_false(exists(saved));
	/* Nothing saved: a no-op. */
	assert_int_equal(scxk_tunable_restore(KEY), 0);
}

/* Values of different lengths in a plain file (a fake sysfs tree): no tail left over. */
static void test_shorter_value_replaces_longer(void **state)
{
	(void)state;
	put(knob, "0");
	assert_int_equal(scxk_tunable_set(KEY, knob, "20"), 0);
	assert_string_equal(get(knob), "20");
	assert_int_equal(scxk_tunable_restore(KEY), 0);
	assert_string_equal(get(knob), "0");
}

/* A second set by the same process (a restart in-process) keeps the first original. */
static void test_original_saved_once(void **state)
{
	(void)state;
	assert_int_equal(scxk_tunable_set(KEY, knob, CHANGED), 0);
	assert_int_equal(scxk_tunable_set(KEY, knob, "7"), 0);
	assert_string_equal(get(knob), "7");
	assert_int_equal(scxk_tunable_restore(KEY), 0);
	assert_string_equal(get(knob), ORIGINAL);
}

/* The loader dies (SIGKILL) after changing the value: the next start puts the original back. */
static void test_dead_loader_recovered(void **state)
{
	pid_t pid;
	int st;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid)
		_exit(scxk_tunable_set(KEY, knob, CHANGED) ? 1 : 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* The kernel keeps the leaked value... */
	assert_string_equal(get(knob), CHANGED);
	assert_true(exists(saved));
	/* ...and the next loader restores it before changing anything. */
	assert_int_equal(scxk_tunable_recover(), 1);
	assert_string_equal(get(knob), ORIGINAL);
	assert_false(exists(saved));
}

/* Without a recover() first, set() itself must not take the leaked value as original. */
static void test_set_after_dead_loader(void **state)
{
	pid_t pid;
	int st;

	(void)state;
	pid = fork();
	if (!pid)
		_exit(scxk_tunable_set(KEY, knob, CHANGED) ? 1 : 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_string_equal(get(knob), CHANGED);
	assert_int_equal(scxk_tunable_set(KEY, knob, "5"), 0);
	assert_string_equal(get(knob), "5");
	assert_int_equal(scxk_tunable_restore(KEY), 0);
	assert_string_equal(get(knob), ORIGINAL);
}

/* A live owner's save is left alone, and set() refuses to take it over. */
static void test_live_owner_kept(void **state)
{
	int to_child[2], to_parent[2];
	char c;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(to_child), 0);
	assert_int_equal(pipe(to_parent), 0);
	pid = fork();
	if (!pid) {
		int err = scxk_tunable_set(KEY, knob, CHANGED);

		if (write(to_parent[1], err ? "e" : "k", 1) != 1 || read(to_child[0], &c, 1) != 1)
			_exit(2);
		_exit(scxk_tunable_restore(KEY) ? 1 : 0);
	}
	assert_int_equal(read(to_parent[0], &c, 1), 1);
	assert_int_equal(c, 'k');
	assert_int_equal(scxk_tunable_recover(), 0);
	assert_string_equal(get(knob), CHANGED);
	assert_int_equal(scxk_tunable_set(KEY, knob, "9"), -EBUSY);
	assert_string_equal(get(knob), CHANGED);
	/* Restoring is the owner's job: a restore from here changes nothing. */
	assert_int_equal(scxk_tunable_restore(KEY), 0);
	assert_true(exists(saved));
	assert_int_equal(write(to_child[1], "x", 1), 1);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	assert_string_equal(get(knob), ORIGINAL);
	assert_false(exists(saved));
}

/* A pid reused by an unrelated process is not taken for the owner. */
static void test_reused_pid_is_dead(void **state)
{
	char dir[PATH_MAX];

	(void)state;
	snprintf(dir, sizeof(dir), "%s/%s", root, SCXK_TUNABLE_SUBDIR);
	mkdir(dir, 0700);
	put(knob, CHANGED "\n");
	/* Our own parent is alive, but started at another time than "1". */
	{
		char body[PATH_MAX + 64];

		snprintf(body, sizeof(body), "%ld 1\n%s\n%s\n", (long)getppid(), knob, ORIGINAL);
		put(saved, body);
	}
	assert_int_equal(scxk_tunable_recover(), 1);
	assert_string_equal(get(knob), ORIGINAL);
}

static void test_bad_input(void **state)
{
	char dir[PATH_MAX];

	(void)state;
	assert_int_equal(scxk_tunable_set("a/b", knob, CHANGED), -EINVAL);
	assert_int_equal(scxk_tunable_set("", knob, CHANGED), -EINVAL);
	assert_string_equal(get(knob), ORIGINAL);
	/* An unreadable tunable: nothing saved, nothing written. */
	assert_int_equal(scxk_tunable_set(KEY, "/nonexistent/knob", CHANGED), -ENOENT);
	assert_false(exists(saved));
	/* A corrupt saved file is reported, not restored. */
	snprintf(dir, sizeof(dir), "%s/%s", root, SCXK_TUNABLE_SUBDIR);
	mkdir(dir, 0700);
	put(saved, "garbage");
	assert_true(scxk_tunable_recover() < 0);
	assert_int_equal(scxk_tunable_set(KEY, knob, CHANGED), -EBADMSG);
	assert_string_equal(get(knob), ORIGINAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_set_restore, reset),
		cmocka_unit_test_setup(test_shorter_value_replaces_longer, reset),
		cmocka_unit_test_setup(test_original_saved_once, reset),
		cmocka_unit_test_setup(test_dead_loader_recovered, reset),
		cmocka_unit_test_setup(test_set_after_dead_loader, reset),
		cmocka_unit_test_setup(test_live_owner_kept, reset),
		cmocka_unit_test_setup(test_reused_pid_is_dead, reset),
		cmocka_unit_test_setup(test_bad_input, reset),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
