// SPDX-License-Identifier: GPL-2.0-only
/*
 * libscxuser: the user-space half. scxu_main() wraps the scxkit life cycle
 * (scxk_sched_main) around the library's own BPF backend and runs the
 * scheduler's schedule() hook on a dedicated thread.
 *
 * Page faults are the enemy: a scheduling thread that faults waits for the
 * kernel, and the kernel's helpers may be waiting to be scheduled by that
 * very thread. So, before the loop starts: malloc is tuned to never give
 * memory back or grow by mmap, its heap is grown and touched once, the
 * stacks are touched, everything is locked (mlockall), the kernel is asked
 * not to migrate locked pages (vm.compact_unevictable_allowed=0), and the
 * scheduling thread gets a seccomp filter refusing new mappings. The
 * process's fault count is sampled at that point; the stats report every
 * fault after it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include <scxkit/cli.h>
#include <scxkit/exit.h>
#include <scxkit/log.h>
#include <scxkit/sched.h>
#include <scxkit/tunable.h>
#include <scxuser/arena.h>
#include <scxuser/scxuser.h>

#include "fence.h"
#include "scxuser_bpf.h"
#include "scxuser.skel.h"

#define DFL_SLICE_NS	     (5ULL * 1000 * 1000)
#define DFL_ARENA_BYTES	     (16UL << 20)
#define DFL_PREEMPT_AFTER_NS (1ULL * 1000 * 1000)
/*
 * Heap grown and touched before the loop. The stats thread's JSON and the
 * loader's bookkeeping live here afterwards; a few MiB is orders of
 * magnitude more than they use.
 */
#define HEAP_PREFAULT_BYTES (8UL << 20)
/* Main-thread stack touched before mlockall (the lifecycle's own needs are tiny). */
#define STACK_PREFAULT_BYTES (256UL << 10)
#define SCHED_THREAD_STACK   (1UL << 20)
#define SCHED_EXT_POLICY     7 /* SCHED_EXT, not in older libc headers */
#define COMPACT_SYSCTL	     "/proc/sys/vm/compact_unevictable_allowed"
#define COMPACT_KEY	     "vm.compact_unevictable_allowed"

struct scxu {
	const struct scxu_sched *s;
	struct scxu_opts opts;
	struct scxk_run *run;
	struct scx_user *skel;
	struct ring_buffer *rb;
	struct user_ring_buffer *urb;
	int pick_fd;
	int nr_cpus;
	struct scxu_task *cur; /* where the ring callback copies the record */
	int cur_err;	       /* and what it found: 0 or -EBADMSG */

	pthread_t thread;
	bool thread_started;
	volatile bool stop;
	volatile int thread_err;

	void *arena_mem;
	size_t arena_len;
	struct scxu_arena arena;

	bool compact_set;	   /* vm.compact_unevictable_allowed is ours to restore */
	volatile uint64_t pf_base; /* faults at the end of start-up; 0 = not yet */
	volatile uint64_t dequeued, dispatch_full, nr_scheduled;
	void *priv;
};

static struct scxu the_scxu;

uint64_t scxu_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static uint64_t process_faults(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (uint64_t)ru.ru_minflt + ru.ru_majflt;
}

/* ---- hot path ---------------------------------------------------------- */

static int on_task(void *ctx, void *data, size_t size)
{
	struct scxu *u = ctx;

	u->cur_err = scxu_task_from_record(u->cur, data, size);
	return 0;
}

int scxu_dequeue(struct scxu *u, struct scxu_task *t)
{
	int n;

	u->cur = t;
	u->cur_err = 0;
	n = ring_buffer__consume_n(u->rb, 1);
	if (n <= 0)
		return n < 0 ? n : -EAGAIN;
	if (u->cur_err)
		return u->cur_err;
	u->dequeued++;
	return 0;
}

int scxu_dispatch(struct scxu *u, const struct scxu_dispatch *d)
{
	struct scxu_dispatch *slot;

	if (d->pid <= 0 || (d->cpu != SCXU_CPU_ANY && (d->cpu < 0 || d->cpu >= u->nr_cpus)))
		return -EINVAL;
	slot = user_ring_buffer__reserve(u->urb, sizeof(*slot));
	if (!slot) {
		u->dispatch_full++;
		return -ENOSPC;
	}
	*slot = *d;
	user_ring_buffer__submit(u->urb, slot);
	u->skel->bss->nr_submitted++;
	return 0;
}

int scxu_select_cpu(struct scxu *u, int32_t pid, int32_t prev_cpu)
{
	struct scxu_pick_args args = {.pid = pid, .prev_cpu = prev_cpu};
	LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = &args, .ctx_size_in = sizeof(args));
	int err;

	if ((err = bpf_prog_test_run_opts(u->pick_fd, &o)))
		return err < 0 ? err : -err;
	return args.cpu;
}

int scxu_notify_complete(struct scxu *u, uint64_t nr_pending)
{
	u->nr_scheduled = nr_pending;
	u->skel->bss->nr_scheduled = nr_pending;
	sched_yield();
	return 0;
}

uint64_t scxu_nr_queued(const struct scxu *u)
{
	struct ring *r = ring_buffer__ring(u->rb, 0);

	/* Each record carries an 8-byte header and is 8-byte aligned. */
	return r ? ring__avail_data_size(r) / (sizeof(struct scxu_task) + 8) : 0;
}

uint64_t scxu_nr_waiting(const struct scxu *u)
{
	return u->skel->bss->nr_dsq_waiting;
}

int scxu_nr_cpus(const struct scxu *u)
{
	return u->nr_cpus;
}

bool scxu_exited(const struct scxu *u)
{
	return u->stop || scxk_exiting() || (u->run->uei && u->run->uei->kind);
}

void *scxu_alloc(struct scxu *u, size_t size, size_t align)
{
	return scxu_arena_alloc(&u->arena, size, align);
}

void scxu_free(struct scxu *u, void *p)
{
	if (p && scxu_arena_free(&u->arena, p))
		scxk_warn("scxu_free(%p): not a live block of the arena", p);
}

void *scxu_priv(const struct scxu *u)
{
	return u->priv;
}

void scxu_set_priv(struct scxu *u, void *priv)
{
	u->priv = priv;
}

int scxu_counters_read(struct scxu *u, struct scxu_counters *c)
{
	uint64_t v[SCXK_MAX_COUNTERS];
	int err;

	if (!u->run || !u->run->obj)
		return -ENODEV;
	if ((err = scxk_counters_read(u->run->obj, v)))
		return err;
	*c = (struct scxu_counters){
		.user_dispatches = v[SCXU_CNT_USER_DISPATCHES],
		.kernel_dispatches = v[SCXU_CNT_KERNEL_DISPATCHES],
		.cancel_dispatches = v[SCXU_CNT_CANCEL_DISPATCHES],
		.bounce_dispatches = v[SCXU_CNT_BOUNCE_DISPATCHES],
		.failed_dispatches = v[SCXU_CNT_FAILED_DISPATCHES],
		.congested = v[SCXU_CNT_CONGESTED],
		.queued = v[SCXU_CNT_QUEUED],
		.heartbeats = v[SCXU_CNT_HEARTBEATS],
		.sched_preempts = v[SCXU_CNT_SCHED_PREEMPTS],
		.sched_preempts_deferred = v[SCXU_CNT_SCHED_PREEMPTS_DEFERRED],
		.slice_clamped = v[SCXU_CNT_SLICE_CLAMPED],
		.hotplug = v[SCXU_CNT_HOTPLUG],
		.dequeued = u->dequeued,
		.dispatch_full = u->dispatch_full,
		.nr_scheduled = u->nr_scheduled,
		.page_faults = u->pf_base ? process_faults() - u->pf_base : 0,
	};
	return 0;
}

/* ---- never fault: memory set-up --------------------------------------- */

static void tune_malloc(void)
{
	/*
	 * One arena (threads would otherwise get their own, mapped lazily),
	 * no trimming, and large blocks from the heap rather than fresh mmaps.
	 */
	mallopt(M_ARENA_MAX, 1);
	mallopt(M_TRIM_THRESHOLD, INT32_MAX);
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TOP_PAD, 1 << 20);
}

static void __attribute__((noinline)) touch_stack(void)
{
	volatile char buf[STACK_PREFAULT_BYTES];

	memset((char *)buf, 0, sizeof(buf));
}

static int lock_memory(struct scxu *u)
{
	struct rlimit unlimited = {RLIM_INFINITY, RLIM_INFINITY};
	void *p;

	if (setrlimit(RLIMIT_MEMLOCK, &unlimited))
		return scxk_err(-errno, "cannot lift RLIMIT_MEMLOCK");
	/*
	 * No transparent huge pages: khugepaged collapses even locked ranges,
	 * and an access during a collapse faults. Before the memory below is
	 * touched, so none of it is ever a candidate.
	 */
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		scxk_warn("cannot disable transparent huge pages (%s): khugepaged may "
			  "cause page faults",
			  strerror(errno));
	p = malloc(HEAP_PREFAULT_BYTES);
	if (!p)
		return scxk_err(-ENOMEM, "cannot grow the heap by %lu MiB",
				HEAP_PREFAULT_BYTES >> 20);
	memset(p, 0, HEAP_PREFAULT_BYTES);
	free(p);
	touch_stack();

	u->arena_len = u->opts.arena_bytes;
	u->arena_mem = mmap(NULL, u->arena_len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (u->arena_mem == MAP_FAILED) {
		u->arena_mem = NULL;
		return scxk_err(-errno, "cannot map a %zu-byte arena", u->arena_len);
	}
	if (scxu_arena_init(&u->arena, u->arena_mem, u->arena_len))
		return scxk_err(-EINVAL, "arena of %zu bytes is too small", u->arena_len);
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		return scxk_err(-errno, "cannot lock the scheduler's memory (mlockall)");

	/*
	 * Compaction may move even locked pages, which then fault on access.
	 * Not fatal: the kernel may lack the sysctl.
	 */
	if (!access(COMPACT_SYSCTL, F_OK) && !scxk_tunable_set(COMPACT_KEY, COMPACT_SYSCTL, "0"))
		u->compact_set = true;
	return 0;
}

static void restore_sysctl(struct scxu *u)
{
	if (u->compact_set && !scxk_tunable_restore(COMPACT_KEY))
		u->compact_set = false;
}

/* ---- the scheduling thread -------------------------------------------- */

static void *sched_thread(void *arg)
{
	struct scxu *u = arg;
	int err = 0;

	u->skel->bss->usersched_pid = (int32_t)syscall(SYS_gettid);
	u->skel->bss->usersched_tgid = getpid();
	u->skel->bss->usersched_started = true;
	if (u->run->common.partial) {
		/* With --partial only SCHED_EXT tasks are ours: this one must be. */
		struct sched_param sp = {0};

		if (sched_setscheduler(0, SCHED_EXT_POLICY, &sp)) {
			err = scxk_err(-errno, "cannot move the scheduling thread to SCHED_EXT");
			goto out;
		}
	}
	if (u->s->init && (err = u->s->init(u)))
		goto out;
	err = scxu_fence_install();
	if (err == -ENOSYS && !scxu_fence_prog())
		scxk_warn("no seccomp fence for this architecture (x86-64 and arm64 only): "
			  "allocations are not fenced");
	else if (err)
		scxk_warn("seccomp unavailable (%s): allocations are not fenced", strerror(-err));
	err = 0;
	u->pf_base = process_faults() ?: 1;

	/*
	 * Not scxu_exited(): on SIGINT the loader's main thread still has to
	 * be scheduled to detach, and it goes through this loop like every
	 * other task. Stopping at the signal stranded it in the ring until
	 * the watchdog ejected us (exit 1 instead of a clean detach). Run
	 * until the main thread, already detaching, says stop, or until the
	 * kernel has taken the tasks back.
	 */
	while (!u->stop && !(u->run->uei && u->run->uei->kind)) {
		if ((err = u->s->schedule(u)))
			break;
	}
out:
	if (err && !u->stop) {
		scxk_log(SCXK_LOG_ERROR, "%s: scheduling stopped: %s", u->s->name, strerror(-err));
		u->thread_err = err;
		/* The heartbeat turns this into a kernel-side exit with the reason. */
		u->skel->bss->user_exit_err = err;
	}
	u->skel->bss->usersched_pid = 0;
	return NULL;
}

/* ---- life cycle hooks --------------------------------------------------- */

static int hook_validate(struct scxk_run *run)
{
	struct scxu *u = &the_scxu;

	if (u->s->validate && u->s->validate())
		return -EINVAL;
	if (u->s->opts)
		u->opts = *u->s->opts;
	if (!u->opts.slice_ns)
		u->opts.slice_ns = DFL_SLICE_NS;
	if (!u->opts.arena_bytes)
		u->opts.arena_bytes = DFL_ARENA_BYTES;
	if (!u->opts.preempt_after_ns)
		u->opts.preempt_after_ns = DFL_PREEMPT_AFTER_NS;
	return 0;
}

static int hook_open(struct scxk_run *run)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts);
	struct scxu *u = &the_scxu;
	struct scx_user *skel;

	tune_malloc();
	scxk_open_opts(&run->common, &opts);
	skel = scx_user__open_opts(&opts);
	if (!skel)
		return scxk_err(-errno, "cannot open libscxuser's BPF object");
	run->skel = skel;
	run->obj = skel->obj;
	run->skeleton = skel->skeleton;
	u->skel = skel;
	u->run = run;
	return 0;
}

/*
 * The ops name is what /sys/kernel/sched_ext/root/ops shows; every binary
 * built on the library has its own. Skeletons do not expose char arrays,
 * so the member is found through BTF.
 */
static int set_ops_name(struct bpf_object *obj, struct bpf_map *map, const char *name)
{
	const struct btf *btf = bpf_object__btf(obj);
	const struct btf_member *m;
	const struct btf_type *t;
	size_t size;
	char *data = bpf_map__initial_value(map, &size);
	int id = btf ? btf__find_by_name_kind(btf, "sched_ext_ops", BTF_KIND_STRUCT) : -ENOENT;

	if (!data || id < 0)
		return scxk_err(-ENOENT, "no sched_ext_ops in libscxuser's BPF object");
	t = btf__type_by_id(btf, id);
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		size_t off = btf_member_bit_offset(t, i) / 8;
		long msize = btf__resolve_size(btf, m->type);

		if (strcmp(btf__name_by_offset(btf, m->name_off), "name"))
			continue;
		if (msize <= 0 || off + msize > size || strlen(name) >= (size_t)msize)
			return scxk_err(-EINVAL, "scheduler name \"%s\" does not fit", name);
		memset(data + off, 0, msize);
		memcpy(data + off, name, strlen(name) + 1); /* fits: checked above */
		return 0;
	}
	return scxk_err(-ENOENT, "sched_ext_ops has no name member");
}

static int hook_configure(struct scxk_run *run)
{
	struct scxu *u = &the_scxu;
	struct scx_user *skel = u->skel;
	uint64_t timeout_ms;
	int err;

	skel->rodata->slice_ns = u->opts.slice_ns;
	skel->rodata->builtin_idle = u->opts.builtin_idle;
	skel->rodata->preempt_after_ns = u->opts.preempt_after_ns;
	/* The same bound the kernel's watchdog gets (validated by the lifecycle). */
	if (getenv("SCX_TIMEOUT_MS") && !scxk_parse_u64(getenv("SCX_TIMEOUT_MS"), &timeout_ms) &&
	    timeout_ms > 0 && timeout_ms <= SCXU_TIMEOUT_MS)
		skel->rodata->user_stall_ns = timeout_ms * 1000000ULL;
	/*
	 * Before attach, not after: growing, touching and locking tens of MiB
	 * takes seconds on a loaded machine, and between attach and the
	 * scheduling thread's start every task runs on the kernel-side
	 * fallback, a window the heartbeat bounds by the watchdog timeout.
	 */
	if (!u->arena_mem && (err = lock_memory(u)))
		return err;
	return set_ops_name(skel->obj, skel->maps.scxu_ops, u->s->name);
}

static int hook_attached(struct scxk_run *run)
{
	struct scxu *u = &the_scxu;
	pthread_attr_t attr;
	int err;

	u->stop = false;
	u->thread_err = 0;
	u->pf_base = 0;
	u->nr_cpus = libbpf_num_possible_cpus();
	if (u->nr_cpus <= 0)
		return scxk_err(u->nr_cpus ?: -EINVAL, "cannot count the possible CPUs");
	u->pick_fd = bpf_program__fd(u->skel->progs.scxu_pick_idle);
	u->rb = ring_buffer__new(bpf_map__fd(u->skel->maps.queued), on_task, u, NULL);
	if (!u->rb)
		return scxk_err(-errno, "cannot map the queued-task ring");
	u->urb = user_ring_buffer__new(bpf_map__fd(u->skel->maps.dispatched), NULL);
	if (!u->urb)
		return scxk_err(-errno, "cannot map the dispatch ring");
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, SCHED_THREAD_STACK);
	err = pthread_create(&u->thread, &attr, sched_thread, u);
	pthread_attr_destroy(&attr);
	if (err)
		return scxk_err(-err, "cannot start the scheduling thread");
	u->thread_started = true;
	return 0;
}

static void hook_destroy(struct scxk_run *run)
{
	struct scxu *u = &the_scxu;

	u->stop = true;
	if (u->thread_started) {
		pthread_join(u->thread, NULL);
		u->thread_started = false;
	}
	restore_sysctl(u);
	ring_buffer__free(u->rb);
	user_ring_buffer__free(u->urb);
	u->rb = NULL;
	u->urb = NULL;
	if (u->arena_mem)
		munmap(u->arena_mem, u->arena_len);
	u->arena_mem = NULL;
	scx_user__destroy(u->skel);
	u->skel = NULL;
	u->run = NULL;
}

/* ---- stats ------------------------------------------------------------- */

static const struct scxk_stat_desc lib_fields[] = {SCXU_STATS(SCXK_STAT_DESC)};
#define NR_LIB_FIELDS (sizeof(lib_fields) / sizeof(lib_fields[0]))

/* A client's previous read, for events_per_s. */
struct stats_state {
	uint64_t dequeued, ts;
};

/* The counters are served by libscxkit; the values are set here, then the scheduler's. */
static int stats_collect(struct scxk_run *run, struct scxk_stats_read *r)
{
	struct scxk_stats_read own = *r, sched = *r;
	struct scxu *u = &the_scxu;
	struct stats_state *st = r->state;
	struct scxu_counters c;
	uint64_t now = scxu_now_ns();
	double rate = 0;
	int err;

	(void)run;
	if ((err = scxu_counters_read(u, &c)))
		return err;
	if (st->ts && now > st->ts)
		rate = (c.dequeued - st->dequeued) * 1e9 / (double)(now - st->ts);
	st->dequeued = c.dequeued;
	st->ts = now;
	own.fields = lib_fields;
	own.nr_fields = NR_LIB_FIELDS;
	scxk_stats_set_u64(&own, SCXU_NR_QUEUED, scxu_nr_queued(u));
	scxk_stats_set_u64(&own, SCXU_NR_SCHEDULED, c.nr_scheduled);
	scxk_stats_set_u64(&own, SCXU_NR_WAITING, scxu_nr_waiting(u));
	scxk_stats_set_u64(&own, SCXU_NR_PAGE_FAULTS, c.page_faults);
	scxk_stats_set_real(&own, SCXU_EVENTS_PER_S, rate);
	if (!u->s->collect)
		return 0;
	sched.fields = u->s->stats;
	sched.nr_fields = u->s->nr_stats;
	sched.state = NULL;
	return u->s->collect(u, &sched);
}

int scxu_main(const struct scxu_sched *s, int argc, char **argv)
{
	static struct scxk_sched_stats stats;
	static struct scxk_sched ks;
	struct scxk_stat_desc *fields;
	size_t n = NR_LIB_FIELDS + s->nr_stats, i;

	if (!s->name || !s->cli || !s->schedule)
		return scxk_err(SCXK_EXIT_USAGE, "scxu_main: name, cli and schedule are required");
	the_scxu = (struct scxu){.s = s, .opts = {.builtin_idle = true}};
	fields = calloc(n, sizeof(*fields));
	if (!fields)
		return 1;
	memcpy(fields, lib_fields, sizeof(lib_fields));
	/* The scheduler's value ids follow the library's in the joint table. */
	for (i = 0; i < s->nr_stats; i++) {
		fields[NR_LIB_FIELDS + i] = s->stats[i];
		fields[NR_LIB_FIELDS + i].id += SCXU_NR_VALUES;
	}
	stats = (struct scxk_sched_stats){
		.name = "Metrics",
		.desc = s->cli->prog,
		.fields = fields,
		.nr_fields = n,
		.state_size = sizeof(struct stats_state),
		.collect = stats_collect,
	};
	ks = (struct scxk_sched){
		.name = s->name,
		.cli = s->cli,
		.validate = hook_validate,
		.open = hook_open,
		.configure = hook_configure,
		.attached = hook_attached,
		.destroy = hook_destroy,
		.stats = &stats,
	};
	n = scxk_sched_main(&ks, argc, argv);
	free(fields);
	return (int)n;
}
