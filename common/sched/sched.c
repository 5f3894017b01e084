// SPDX-License-Identifier: GPL-2.0-only
/*
 * The loader's life cycle, shared by every scheduler binary: see sched.h.
 * Nothing here touches the kernel's scheduling state before every option
 * and the system checks have passed, so a refused start leaves the machine
 * exactly as it was.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <scxkit/exit.h>
#include <scxkit/fileio.h>
#include <scxkit/log.h>
#include <scxkit/sched.h>
#include <scxkit/stats.h>
#include <scxkit/topo.h>
#include <scxkit/topo_data.h>
#include <scxkit/tunable.h>

#define SCX_SYSFS "/sys/kernel/sched_ext"
/* How often the wait loop looks at the exit info and signals. */
#define POLL_MS 50
/*
 * More restarts than this within RESTART_WINDOW_S means something keeps
 * failing (a hotplug storm, a broken profile source): stop rather than loop.
 */
#define MAX_RESTARTS	 16
#define RESTART_WINDOW_S 60
/* Lines of libbpf/verifier output shown when loading fails. */
#define LOG_TAIL_LINES 40
#define LOG_RING_SIZE  (256 * 1024)
/*
 * SCHED_FIFO priority of the loader between a restart request and the new
 * attach: above ordinary RT hogs, below the kernel's threaded interrupt
 * handlers (50), so devices are still served while the verifier runs.
 */
#define RESTART_RT_PRIO 40

static volatile sig_atomic_t exit_req;

static void on_signal(int sig)
{
	(void)sig;
	exit_req = 1;
}

bool scxk_exiting(void)
{
	return exit_req;
}

/*
 * libbpf's messages are kept in a ring so that a failed load can show the
 * verifier's last words even without -vv; with -vv they are printed live.
 */
static char log_ring[LOG_RING_SIZE];
static size_t log_head;
static bool log_wrapped;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char *buf = NULL;
	int n = vasprintf(&buf, fmt, ap);

	/* One message can be a whole verifier log: never truncate it. */
	if (n < 0)
		return 0;
	for (int i = 0; i < n; i++) {
		log_ring[log_head++] = buf[i];
		if (log_head == LOG_RING_SIZE) {
			log_head = 0;
			log_wrapped = true;
		}
	}
	if (scxk_log_verbosity() >= 2 || (level == LIBBPF_WARN && scxk_log_verbosity() >= 1))
		fputs(buf, stderr);
	free(buf);
	return 0;
}

static void print_log_tail(void)
{
	size_t len = log_wrapped ? LOG_RING_SIZE : log_head;
	char *lin = malloc(len + 1);
	int lines = 0;
	size_t i;

	if (!lin)
		return;
	if (log_wrapped) {
		memcpy(lin, log_ring + log_head, LOG_RING_SIZE - log_head);
		memcpy(lin + LOG_RING_SIZE - log_head, log_ring, log_head);
	} else {
		memcpy(lin, log_ring, len);
	}
	lin[len] = '\0';
	for (i = len; i > 0 && lines <= LOG_TAIL_LINES; i--)
		if (lin[i - 1] == '\n')
			lines++;
	if (len) {
		fprintf(stderr, "%s: last lines of the libbpf/verifier log (-vv for all):\n",
			scxk_log_prog());
		fputs(lin + i, stderr);
	}
	free(lin);
	log_head = 0;
	log_wrapped = false;
}

static bool has_cap(int cap)
{
	struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct data[2] = {};

	if (syscall(SYS_capget, &hdr, data))
		return false;
	return data[cap / 32].effective & (1U << (cap % 32));
}

int scxk_check_system(void)
{
	char state[64], ops[128];
	struct stat st;

	if (stat(SCX_SYSFS, &st))
		return scxk_err(-ENOTSUP,
				"this kernel has no sched_ext (%s is missing): it needs a kernel "
				"built with CONFIG_SCHED_CLASS_EXT=y (Linux 6.12 or newer)",
				SCX_SYSFS);
	/* Loading struct_ops needs CAP_BPF and CAP_SYS_ADMIN; root has both. */
	if (!has_cap(CAP_SYS_ADMIN) || !has_cap(CAP_BPF))
		return scxk_err(-EPERM, "loading a scheduler needs root (CAP_SYS_ADMIN and "
					"CAP_BPF); run it with sudo");
	if (!scxk_read_line(SCX_SYSFS "/state", state, sizeof(state)) &&
	    strcmp(state, "disabled")) {
		if (scxk_read_line(SCX_SYSFS "/root/ops", ops, sizeof(ops)))
			snprintf(ops, sizeof(ops), "unknown");
		scxk_log(SCXK_LOG_ERROR,
			 "another sched_ext scheduler is already %s: \"%s\"; stop it first", state,
			 ops);
		return -EBUSY;
	}
	return 0;
}

static const char *exit_kind_str(int kind)
{
	switch (kind) {
	case SCXK_EXIT_DONE:
		return "done";
	case SCXK_EXIT_UNREG:
		return "unregistered from user space";
	case SCXK_EXIT_UNREG_BPF:
		return "unregistered from BPF";
	case SCXK_EXIT_UNREG_KERN:
		return "unregistered from the kernel";
	case SCXK_EXIT_SYSRQ:
		return "disabled by sysrq-S";
	case SCXK_EXIT_ERROR:
		return "runtime error";
	case SCXK_EXIT_ERROR_BPF:
		return "scx_bpf_error() called";
	case SCXK_EXIT_ERROR_STALL:
		return "runnable task stall (watchdog)";
	default:
		return kind >= SCXK_EXIT_ERROR ? "error" : "exit";
	}
}

/* Print what the kernel said; return the exit status it deserves. */
static int report_exit(struct scxk_run *run)
{
	volatile struct scxk_uei *u = run->uei;
	struct bpf_map *dump_map = bpf_object__find_map_by_name(run->obj, ".data.uei_dump");
	size_t dump_size;
	const char *dump = dump_map ? bpf_map__initial_value(dump_map, &dump_size) : NULL;
	int kind = u->kind;

	if (kind == SCXK_EXIT_UNREG && exit_req) {
		scxk_info("detached (%s)", exit_kind_str(kind));
		return SCXK_EXIT_OK;
	}
	scxk_log(kind >= SCXK_EXIT_ERROR ? SCXK_LOG_ERROR : SCXK_LOG_INFO,
		 "EXIT: %s (kind %d, code 0x%llx): %s%s%s", exit_kind_str(kind), kind,
		 (unsigned long long)u->exit_code, (const char *)u->reason, u->msg[0] ? ": " : "",
		 (const char *)u->msg);
	if (kind >= SCXK_EXIT_ERROR && dump && dump[0])
		fprintf(stderr, "%s: kernel debug dump:\n%s\n", scxk_log_prog(), dump);
	/*
	 * sysrq-S is the kernel throwing the scheduler out, not a detach we
	 * asked for: whoever started us must see a failure.
	 */
	if (kind >= SCXK_EXIT_ERROR || kind == SCXK_EXIT_SYSRQ)
		return SCXK_EXIT_FAIL;
	return SCXK_EXIT_OK;
}

static int prepare_common(struct scxk_run *run)
{
	const struct scxk_common_opts *c = &run->common;
	struct bpf_map *dump_map;
	uint32_t dump_len = c->exit_dump_len;
	char buf[64];
	uint64_t v;
	int err;

	/* The dump buffer takes exactly the size the kernel will fill. */
	dump_map = bpf_object__find_map_by_name(run->obj, ".data.uei_dump");
	if (!dump_map)
		return scxk_err(-ENOENT, "BPF object lacks the exit info (link common/sched/uei)");
	if ((err = bpf_map__set_value_size(dump_map, dump_len)))
		return scxk_err(err, "cannot size the exit dump to %u bytes", dump_len);
	if ((err = scxk_obj_set_var(run->obj, ".rodata", "scxk_uei_dump_len", &dump_len,
				    sizeof(dump_len))))
		return scxk_err(err, "cannot set scxk_uei_dump_len");
	if ((err = scxk_obj_set_ops_field(run->obj, "exit_dump_len", dump_len)))
		return scxk_err(err, "cannot set ops.exit_dump_len");

	if (getenv("SCX_TIMEOUT_MS")) {
		/* The kernel caps the watchdog at 30 s (SCX_WATCHDOG_MAX_TIMEOUT). */
		if (scxk_parse_u64(getenv("SCX_TIMEOUT_MS"), &v) || v == 0 || v > 30000)
			return scxk_err(-EINVAL,
					"SCX_TIMEOUT_MS='%s' is not a timeout in 1..30000 ms",
					getenv("SCX_TIMEOUT_MS"));
		scxk_obj_set_ops_field(run->obj, "timeout_ms", v);
	}
	/*
	 * With hotplug_seq set, a CPU going on/offline between now and attach
	 * makes the kernel exit us with a restart request instead of running
	 * with a stale topology.
	 */
	if (!scxk_read_line(SCX_SYSFS "/hotplug_seq", buf, sizeof(buf)) && !scxk_parse_u64(buf, &v))
		scxk_obj_set_ops_field(run->obj, "hotplug_seq", v);
	if (c->fault_starve_tgid) {
		uint32_t tgid = c->fault_starve_tgid;

		/* Only schedulers that call scxk_fault_drop() have the section. */
		if (scxk_obj_set_var(run->obj, ".data.scxk_fault", "scxk_fault_starve_tgid", &tgid,
				     sizeof(tgid)))
			return scxk_err(-ENOTSUP, "--fault-starve-tgid: this scheduler's BPF side "
						  "does not call scxk_fault_drop()");
		scxk_warn("fault injection armed: tasks of process %u will never run; expect the "
			  "watchdog to eject the scheduler",
			  tgid);
	}
	return 0;
}

static int fill_topology(struct scxk_run *run)
{
	struct bpf_map *map = bpf_object__find_map_by_name(run->obj, ".data.scxk_topo");
	struct scxk_topo_data *d;
	size_t size;
	int err;

	if (!map)
		return 0; /* a scheduler without the topology library */
	d = bpf_map__initial_value(map, &size);
	if (!d || size < sizeof(*d))
		return scxk_err(-EINVAL, "topology section has the wrong size");
	memset(d, 0, sizeof(*d));
	if ((err = scxk_topo_to_bpf(run->topo, d)))
		return scxk_err(err, "machine too large for this build (SCXK_MAX_CPUS)");
	return 0;
}

/*
 * With -v, how much of the verifier's budget (1M instructions per
 * program) each program used on this kernel: the kernel matrix records
 * these (tools/kernel-matrix) and fails well before the limit.
 */
static void log_verified_insns(struct bpf_object *obj)
{
	struct bpf_program *prog;

	if (scxk_log_verbosity() < 1)
		return;
	bpf_object__for_each_program(prog, obj)
	{
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd < 0 || bpf_prog_get_info_by_fd(fd, &info, &len))
			continue;
		scxk_dbg("BPF program %s: %u verified instructions", bpf_program__name(prog),
			 info.verified_insns);
	}
}

/*
 * Between the kernel's exit and the next attach the machine runs without
 * our scheduler. Under a fork storm the loader, an ordinary task then, got
 * a small share of the CPU for the verifier's work, and a re-attach took
 * seconds; as SCHED_FIFO it runs at once (and the phases are timed).
 */
static struct {
	bool raised;
	int policy;
	struct sched_param param;
	struct timespec seen, mark; /* exit seen; start of the current phase */
	double ms[5];		    /* destroy, topology, open+configure, load, attach */
} restart_ctx;

enum { PH_DESTROY, PH_TOPO, PH_OPEN, PH_LOAD, PH_ATTACH };

static double ms_between(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1e3 + (b->tv_nsec - a->tv_nsec) / 1e6;
}

/* Close the current phase of a restart and start the next one. */
static void restart_phase(int ph)
{
	struct timespec now;

	if (!restart_ctx.seen.tv_sec)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	restart_ctx.ms[ph] += ms_between(&restart_ctx.mark, &now);
	restart_ctx.mark = now;
}

static void restart_begin(void)
{
	struct sched_param rt = {.sched_priority = RESTART_RT_PRIO};

	memset(restart_ctx.ms, 0, sizeof(restart_ctx.ms));
	clock_gettime(CLOCK_MONOTONIC, &restart_ctx.seen);
	restart_ctx.mark = restart_ctx.seen;
	if (restart_ctx.raised)
		return;
	restart_ctx.policy = sched_getscheduler(0);
	if (restart_ctx.policy < 0 || sched_getparam(0, &restart_ctx.param))
		return;
	/* Not fatal: without CAP_SYS_NICE the restart is only slower. */
	if (sched_setscheduler(0, SCHED_FIFO, &rt))
		scxk_dbg("cannot run the restart as SCHED_FIFO: %s", strerror(errno));
	else
		restart_ctx.raised = true;
}

/* Back to the loader's own policy; logs how long the machine went without us. */
static void restart_end(bool attached)
{
	struct timespec now;
	double *ms = restart_ctx.ms;

	if (restart_ctx.raised && !sched_setscheduler(0, restart_ctx.policy, &restart_ctx.param))
		restart_ctx.raised = false;
	if (!restart_ctx.seen.tv_sec)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (attached)
		scxk_info("re-attached %.0f ms after the exit was seen (destroy %.0f, topology "
			  "%.0f, open %.0f, load %.0f, attach %.0f ms)",
			  ms_between(&restart_ctx.seen, &now), ms[PH_DESTROY], ms[PH_TOPO],
			  ms[PH_OPEN], ms[PH_LOAD], ms[PH_ATTACH]);
	restart_ctx.seen.tv_sec = 0;
}

static int attach(struct scxk_run *run)
{
	struct bpf_map *ops = scxk_obj_ops_map(run->obj);
	struct bpf_map *uei_map;
	size_t uei_size;
	int err;

	if (!ops)
		return scxk_err(-ENOENT, "no sched_ext_ops in the BPF object");

	restart_phase(PH_OPEN);
	/* After configure: the scheduler's own choices are in the table now. */
	if ((err = scxk_obj_fit_kernel(run->obj, run->skeleton->data, run->skeleton->data_sz,
				       run->common.partial)))
		return err;
	err = bpf_object__load_skeleton(run->skeleton);
	restart_phase(PH_LOAD);
	if (err) {
		print_log_tail();
		return scxk_err(err, "cannot load the BPF scheduler (the verifier's reason "
				     "is above)");
	}
	log_verified_insns(run->obj);
	uei_map = bpf_object__find_map_by_name(run->obj, ".data.uei");
	run->uei = uei_map ? bpf_map__initial_value(uei_map, &uei_size) : NULL;
	if (!run->uei) {
		scxk_err(-ENOENT, "cannot map the exit info");
		return -ENOENT; /* spelt out: the wait loop dereferences uei */
	}

	run->link = bpf_map__attach_struct_ops(ops);
	restart_phase(PH_ATTACH);
	if (!run->link) {
		err = -errno;
		print_log_tail();
		if (err == -EBUSY || err == -EEXIST)
			return scxk_err(err,
					"cannot attach: another sched_ext scheduler took over");
		return scxk_err(err, "cannot attach the scheduler (see the kernel log, dmesg)");
	}
	return 0;
}

/*
 * --stats: one connection for the whole run, so the scheduler's per-client
 * state turns counters into deltas per interval.
 */
static void print_stats(struct scxk_run *run, struct scxk_stats_client **client,
			struct scxk_stats_view **view)
{
	bool human =
		scxk_stats_format_for(run->common.monitor_format, stdout) == SCXK_STATS_FMT_HUMAN;
	json_t *resp = NULL;

	if (!*client && scxk_stats_client_open(client, run->common.stats_path, 1000))
		return;
	if (human && !*view && scxk_stats_view_open(view, *client))
		goto lost;
	if (scxk_stats_client_request(*client, "{\"req\":\"stats\",\"args\":{\"target\":\"top\"}}",
				      &resp) == 0) {
		if (*view)
			scxk_stats_view_block(*view, resp, stdout);
		else
			scxk_stats_print_line(resp, stdout);
		fflush(stdout);
		json_decref(resp);
		return;
	}
lost:
	scxk_stats_client_close(*client);
	*client = NULL;
	scxk_stats_view_free(*view);
	*view = NULL;
	json_decref(resp);
}

/* One attach-to-detach cycle. Returns an exit status, or -EAGAIN to restart. */
static int run_once(struct scxk_run *run)
{
	const struct scxk_sched *s = run->sched;
	struct scxk_sched_stats_server *srv = NULL;
	struct scxk_stats_client *client = NULL;
	struct scxk_stats_view *view = NULL;
	struct timespec last_tick, last_stats, now;
	bool restart = false;
	int err, ret = SCXK_EXIT_FAIL;

	if ((err = s->open(run)))
		return SCXK_EXIT_FAIL;
	if ((err = prepare_common(run)) || (err = fill_topology(run)))
		goto out;
	if (s->configure && (err = s->configure(run)))
		goto out;
	if ((err = attach(run))) {
		/* The kernel lacks what this scheduler needs: nothing was loaded. */
		if (err == SCXK_ERR_KERNEL)
			ret = SCXK_EXIT_USAGE;
		goto out;
	}
	restart_end(true);
	scxk_info("scheduler \"%s\" attached%s", s->name,
		  run->common.partial ? " (partial: SCHED_EXT tasks only)" : "");

	if (s->stats && (err = scxk_sched_stats_start(run, &srv)))
		scxk_warn("stats are unavailable (%s)", strerror(-err));
	if (s->attached && (err = s->attached(run)))
		goto detach;

	clock_gettime(CLOCK_MONOTONIC, &last_tick);
	last_stats = last_tick;
	while (!exit_req && !run->uei->kind && !restart) {
		struct timespec ts = {0, POLL_MS * 1000000L};
		double since_tick, since_stats;

		nanosleep(&ts, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
		since_tick = (now.tv_sec - last_tick.tv_sec) * 1e3 +
			     (now.tv_nsec - last_tick.tv_nsec) / 1e6;
		since_stats =
			(now.tv_sec - last_stats.tv_sec) + (now.tv_nsec - last_stats.tv_nsec) / 1e9;
		if (s->tick && since_tick >= s->tick_ms) {
			last_tick = now;
			err = s->tick(run);
			if (err == SCXK_TICK_RESTART)
				restart = true;
			else if (err)
				scxk_warn("periodic work failed: %s", strerror(-err));
		}
		if (run->common.stats_interval && since_stats >= run->common.stats_interval) {
			last_stats = now;
			print_stats(run, &client, &view);
		}
	}
detach:
	/* The kernel asked for a restart: from here on the clock runs. */
	if (!exit_req &&
	    (restart || (run->uei->kind && (run->uei->exit_code & SCXK_ECODE_ACT_RESTART))))
		restart_begin();
	scxk_stats_client_close(client);
	scxk_stats_view_free(view);
	scxk_sched_stats_stop(srv);
	bpf_link__destroy(run->link);
	run->link = NULL;
	if (restart && !exit_req) {
		ret = -EAGAIN;
	} else if (!run->uei->kind) {
		/* Detach happens synchronously; the exit info should be there now. */
		scxk_warn("no exit info recorded by the scheduler");
		ret = exit_req ? SCXK_EXIT_OK : SCXK_EXIT_FAIL;
	} else {
		ret = report_exit(run);
		if ((run->uei->exit_code & SCXK_ECODE_ACT_RESTART) && !exit_req)
			ret = -EAGAIN;
	}
out:
	s->destroy(run);
	restart_phase(PH_DESTROY);
	run->priv = NULL;
	run->skel = NULL;
	run->obj = NULL;
	run->uei = NULL;
	return ret;
}

void scxk_open_opts(const struct scxk_common_opts *c, struct bpf_object_open_opts *opts)
{
	opts->relaxed_maps = c->relaxed_maps;
	opts->pin_root_path = c->pin_root_path;
	opts->kconfig = c->kconfig;
	opts->btf_custom_path = c->btf_custom_path;
	opts->bpf_token_path = c->bpf_token_path;
}

int scxk_sched_main(const struct scxk_sched *s, int argc, char **argv)
{
	struct scxk_run run = {.sched = s};
	struct sigaction sa = {.sa_handler = on_signal};
	unsigned int in_window = 0;
	time_t window_start = 0;
	int err, ret;

	scxk_log_setup(s->cli->prog, 0);
	err = scxk_cli_parse(s->cli, argc, argv, &run.common);
	if (err == SCXK_CLI_DONE)
		return SCXK_EXIT_OK;
	if (err)
		return SCXK_EXIT_USAGE;
	if (run.common.check_args) {
		scxk_cli_print_values(s->cli, &run.common, stdout);
		return SCXK_EXIT_OK;
	}
	if (s->validate && s->validate(&run))
		return SCXK_EXIT_USAGE;
	if (run.common.features) {
		if ((err = s->open(&run)))
			return SCXK_EXIT_FAIL;
		err = scxk_obj_print_features(run.obj, run.skeleton->data, run.skeleton->data_sz,
					      s->cli->prog, run.common.btf_custom_path, stdout);
		s->destroy(&run);
		return !err			? SCXK_EXIT_OK
		       : err == SCXK_ERR_KERNEL ? SCXK_EXIT_USAGE
						: SCXK_EXIT_FAIL;
	}

	if (run.common.help_stats) {
		if (s->stats)
			scxk_sched_stats_print_meta(s->stats, stdout);
		return SCXK_EXIT_OK;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (run.common.monitor_interval)
		return scxk_stats_monitor_as(run.common.stats_path, run.common.monitor_interval,
					     run.common.monitor_count, stdout, NULL,
					     run.common.monitor_format) < 0
			       ? SCXK_EXIT_FAIL
			       : SCXK_EXIT_OK;

	if (scxk_check_system())
		return SCXK_EXIT_FAIL;
	if (run.common.has_run_id)
		scxk_info("run id %llu", (unsigned long long)run.common.run_id);
	/* A loader killed earlier left its tunables changed: undo that first. */
	if (scxk_tunable_recover() < 0)
		return SCXK_EXIT_FAIL;
	libbpf_set_print(libbpf_print);

	do {
		scxk_topo_free(run.topo);
		run.topo = NULL;
		/* Topology is read again on each restart: hotplug may have changed it. */
		if ((err = scxk_topo_read(&run.topo))) {
			ret = SCXK_EXIT_FAIL;
			break;
		}
		restart_phase(PH_TOPO);
		ret = run_once(&run);
		if (ret == -EAGAIN) {
			struct timespec ts;

			clock_gettime(CLOCK_MONOTONIC, &ts);
			if (ts.tv_sec - window_start > RESTART_WINDOW_S) {
				window_start = ts.tv_sec;
				in_window = 0;
			}
			run.restarts++;
			if (++in_window > MAX_RESTARTS) {
				scxk_log(SCXK_LOG_ERROR, "giving up after %u restarts in %d s",
					 MAX_RESTARTS, RESTART_WINDOW_S);
				ret = SCXK_EXIT_FAIL;
				break;
			}
			scxk_info("restarting in-process (restart %u)", run.restarts);
		}
	} while (ret == -EAGAIN && !exit_req);
	restart_end(false);
	scxk_topo_free(run.topo);
	return ret < 0 ? SCXK_EXIT_FAIL : ret;
}
