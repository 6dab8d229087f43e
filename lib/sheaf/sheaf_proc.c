/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * Process identity and liveness, the thread's pool state, the clock and
 * membarrier(). See sheaf_proc.h.
 */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>

#include "sheaf_proc.h"

uint64_t sheaf_self;

/* Bits of the incarnation holding the start time; the pid takes 22. */
#define SHEAF_START_BITS 41

/* What /proc/<pid>/stat tells of a process. */
struct sheaf_proc_info {
	char state;           /* field 3: R, S, Z, X, ... */
	unsigned long threads; /* field 20: threads not yet exited */
	uint64_t start;       /* field 22: start time, clock ticks */
};

/*
 * Read what /proc/<pid>/stat tells of pid. 0; -ESRCH when there is no
 * such process (any more); another negative errno when the file could
 * not be read or parsed (too many open files, no /proc, ...): nothing
 * is known then. Async-signal-safe (open, read, close; no stdio).
 */
static int
sheaf_proc_stat(uint32_t pid, struct sheaf_proc_info *info)
{
	char path[40], buf[1024], *p, *end;
	unsigned long long v;
	unsigned int field;
	ssize_t len;
	int fd, err;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ESRCH ? -ESRCH :
			errno != 0 ? -errno : -EIO;
	len = read(fd, buf, sizeof(buf) - 1);
	err = errno;
	close(fd);
	/* Reaped between open and read: the kernel answers ESRCH. */
	if (len < 0)
		return err == ESRCH || err == ENOENT ? -ESRCH :
			err != 0 ? -err : -EIO;
	if (len == 0)
		return -EIO;
	buf[len] = '\0';
	/* The command name may hold spaces and ')': skip to the last ')'. */
	p = strrchr(buf, ')');
	if (p == NULL || p[1] != ' ')
		return -EIO;
	p += 2;
	info->state = *p;
	/* Field 3 is the state; threads are field 20, the start time 22. */
	for (field = 3; field < 22; field++) {
		p = strchr(p, ' ');
		if (p == NULL)
			return -EIO;
		p++;
		if (field + 1 == 20 || field + 1 == 22) {
			errno = 0;
			v = strtoull(p, &end, 10);
			if (end == p || errno != 0)
				return -EIO;
			if (field + 1 == 20)
				info->threads = (unsigned long)v;
			else
				info->start = v;
		}
	}
	return 0;
}

static uint64_t
sheaf_proc_make(uint32_t pid, uint64_t start)
{
	return (start & ((UINT64_C(1) << SHEAF_START_BITS) - 1)) << 22 |
		(pid & ((1u << 22) - 1));
}

/*
 * Looks whose /proc read failed for another reason than the process
 * being gone (process-local): such an incarnation is taken as alive.
 */
static uint64_t sheaf_proc_look_failed;

uint64_t
sheaf_proc_look_failures(void)
{
	/* Relaxed: a count. */
	return __atomic_load_n(&sheaf_proc_look_failed, __ATOMIC_RELAXED);
}

enum sheaf_proc_verdict
sheaf_proc_look(uint64_t inc)
{
	uint32_t pid = sheaf_proc_pid(inc);
	struct sheaf_proc_info info;
	int ret;

	/*
	 * Our own (an heir's word of ours, or our unnamed incarnation:
	 * named ones have a start time); pid 0: no process to look at
	 * (kill(0, 0) is our group).
	 */
	inc &= ~SHEAF_INC_HEIR;
	if (inc == (sheaf_self & ~SHEAF_INC_HEIR) || pid == 0)
		return SHEAF_PROC_ALIVE;
	/*
	 * Another incarnation with our pid has gone (processes sharing a
	 * pool share a PID namespace): an unnamed one, whose pid we were
	 * given, would look alive below (kill() finds us).
	 */
	if (pid == sheaf_proc_pid(sheaf_self))
		return SHEAF_PROC_DEAD;
	if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
		return SHEAF_PROC_DEAD;
	ret = sheaf_proc_stat(pid, &info);
	/*
	 * No /proc entry for a pid that kill() found a moment ago: reaped
	 * since (kill() says so now), or hidden from us (hidepid, no /proc
	 * mounted), which tells nothing.
	 */
	if (ret == -ESRCH) {
		if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
			return SHEAF_PROC_DEAD;
		ret = -ENOENT;
	}
	if (ret < 0) {
		/*
		 * Nothing known (EMFILE, EACCES, hidden, ...): never dead.
		 * Calling a live process dead would take its slot and locks
		 * from under it; calling a dead one alive only delays
		 * recovery to a later look, for callers that wait for one.
		 * Counted, never logged: this may run in a handler.
		 */
		__atomic_fetch_add(&sheaf_proc_look_failed, 1,
			__ATOMIC_RELAXED);
		return SHEAF_PROC_UNKNOWN;
	}
	/*
	 * Another process has the pid now; an unnamed one (no start time
	 * in its incarnation: sheaf_proc.h) is judged by its pid alone.
	 */
	if (inc >> 22 != 0 && sheaf_proc_make(pid, info.start) != inc)
		return SHEAF_PROC_DEAD;
	/*
	 * Exited (zombie or dead), whatever its parent does: unless only
	 * its first thread has (pthread_exit() from main). The leader then
	 * shows as a zombie while the others run on: alive.
	 */
	return (info.state == 'Z' || info.state == 'X' || info.state == 'x') &&
		info.threads <= 1 ? SHEAF_PROC_DEAD : SHEAF_PROC_ALIVE;
}

/*
 * Our incarnation, or the unnamed one (our pid with SHEAF_INC_HEIR:
 * sheaf_proc.h) when /proc could not tell our start time: a made-up
 * start time would name us wrongly to every other process, which would
 * call us dead. A failed read is tried again (a transient EMFILE).
 */
static uint64_t
sheaf_proc_whoami(void)
{
	uint32_t pid = (uint32_t)getpid();
	struct sheaf_proc_info info;
	unsigned int tries;

	for (tries = 0; tries < 3; tries++)
		if (sheaf_proc_stat(pid, &info) == 0 && info.start != 0)
			return sheaf_proc_make(pid, info.start);
	return SHEAF_INC_HEIR | sheaf_proc_make(pid, 0);
}

static void
sheaf_proc_identify(void)
{
	sheaf_self = sheaf_proc_whoami();
}

uint64_t
sheaf_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Registered membarrier() commands of this process; process-local. 0
 * until a thread takes the registration (SHEAF_MB_BUSY, by
 * compare-and-swap), then SHEAF_MB_DONE with the SHEAF_MB_* that
 * succeeded. No pthread_once(): a signal handler whose thread is inside
 * the registration would wait for itself; it gets 0 instead (a slot
 * recording no registration is only skipped by thieves, and served by
 * its requests).
 */
#define SHEAF_MB_BUSY 0x40000000u
#define SHEAF_MB_DONE 0x80000000u
static uint32_t sheaf_mb_state;

/* Spins for a registration another thread has under way: syscalls. */
#define SHEAF_MB_WAIT_SPINS 100000

static uint32_t
sheaf_proc_mb_do_register(void)
{
	uint32_t r = 0;

	if (syscall(__NR_membarrier,
			MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0)
		r |= SHEAF_MB_PRIVATE;
	if (syscall(__NR_membarrier,
			MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0, 0) == 0)
		r |= SHEAF_MB_GLOBAL;
	/* Release: pairs with the acquires in sheaf_proc_mb_register() and
	 * sheaf_proc_membarrier(). */
	__atomic_store_n(&sheaf_mb_state, SHEAF_MB_DONE | r, __ATOMIC_RELEASE);
	if (r != (SHEAF_MB_PRIVATE | SHEAF_MB_GLOBAL))
		SHEAF_LOG(INFO, "membarrier() registration: private %s, global %s: idle lcores' objects are taken back only where registered",
			(r & SHEAF_MB_PRIVATE) ? "yes" : "no",
			(r & SHEAF_MB_GLOBAL) ? "yes" : "no");
	return r;
}

uint32_t
sheaf_proc_mb_register(void)
{
	const struct sheaf_thread *t = sheaf_thread_self();
	uint32_t s, spins = 0;

	for (;;) {
		/* Acquire: pairs with the release in sheaf_proc_mb_do_register(). */
		s = __atomic_load_n(&sheaf_mb_state, __ATOMIC_ACQUIRE);
		if (s & SHEAF_MB_DONE)
			return s & ~SHEAF_MB_DONE;
		/*
		 * A re-entered call (a signal handler inside a call, or
		 * holding a lock) neither registers (it would log) nor waits
		 * (the registration may be its own thread's).
		 */
		if (t->depth > 1 || t->nb_held != 0)
			return 0;
		if (s == 0 && __atomic_compare_exchange_n(&sheaf_mb_state, &s,
				SHEAF_MB_BUSY, 0, __ATOMIC_RELAXED,
				__ATOMIC_RELAXED))
			return sheaf_proc_mb_do_register();
		/* Another thread registers: two syscalls; bounded anyway. */
		if (++spins == SHEAF_MB_WAIT_SPINS)
			return 0;
		sched_yield();
	}
}

uint32_t
sheaf_proc_mb_registered(void)
{
	/* Acquire: pairs with the release in sheaf_proc_mb_do_register(). */
	uint32_t s = __atomic_load_n(&sheaf_mb_state, __ATOMIC_ACQUIRE);

	return (s & SHEAF_MB_DONE) ? s & ~SHEAF_MB_DONE : 0;
}

int
sheaf_proc_membarrier(bool global)
{
	/* Acquire: pairs with the release in sheaf_proc_mb_do_register(). */
	uint32_t r = __atomic_load_n(&sheaf_mb_state, __ATOMIC_ACQUIRE);

	/* The global command needs the targets registered, not us. */
	if (!global && !(r & SHEAF_MB_PRIVATE))
		return -ENOTSUP;
	if (syscall(__NR_membarrier, global ?
			MEMBARRIER_CMD_GLOBAL_EXPEDITED :
			MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0)
		return -ENOTSUP;
	return 0;
}

/*
 * The child of a fork() is another process. Its only thread is the one
 * that forked: a registration another thread had under way
 * (SHEAF_MB_BUSY) will never end in it, and would leave every claim in
 * the child waiting for it, then recording none; the child registers
 * anew (the kernel keeps a registration across fork(), and takes a
 * repeated one as done).
 */
static void
sheaf_proc_atfork_child(void)
{
	uint32_t busy = SHEAF_MB_BUSY;

	sheaf_proc_identify();
	/* Relaxed: one thread in the child. */
	__atomic_compare_exchange_n(&sheaf_mb_state, &busy, 0, 0,
		__ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

RTE_INIT(sheaf_proc_init)
{
	sheaf_proc_identify();
	pthread_atfork(NULL, NULL, sheaf_proc_atfork_child);
}

/*
 * The thread's pool state. Not the project's initial-exec model: the
 * library may be loaded with dlopen() (-d), where static TLS space is
 * scarce. Touched on out-of-line paths only.
 */
static __thread struct sheaf_thread sheaf_tls
	__attribute__((tls_model("global-dynamic")));

struct sheaf_thread *
sheaf_thread_self(void)
{
	return &sheaf_tls;
}

#ifdef SHEAF_KILL_POINTS
/* Process-local, from the environment at load. */
static const char *sheaf_kill_at;
static unsigned long sheaf_kill_after = 1;
static unsigned long sheaf_kill_hits;
static int sheaf_kill_signal; /* 0: SIGKILL; else raise it, once */

RTE_INIT(sheaf_kill_init)
{
	const char *after = getenv("SHEAF_KILL_AFTER");
	const char *sig = getenv("SHEAF_KILL_SIGNAL");

	sheaf_kill_at = getenv("SHEAF_KILL_AT");
	if (after != NULL)
		sheaf_kill_after = strtoul(after, NULL, 0);
	if (sig != NULL)
		sheaf_kill_signal = (int)strtol(sig, NULL, 0);
}

void
sheaf_kill_point(const char *name, const char *sub)
{
	const char *at = sheaf_kill_at;
	unsigned long hits;
	size_t len;

	if (at == NULL || name == NULL)
		return;
	len = strlen(name);
	if (strncmp(at, name, len) != 0)
		return;
	if (sub == NULL ? at[len] != '\0' :
			at[len] != '.' || strcmp(at + len + 1, sub) != 0)
		return;
	/* Relaxed: a count, and any thread may be the one to die. */
	hits = __atomic_add_fetch(&sheaf_kill_hits, 1, __ATOMIC_RELAXED);
	if (hits < sheaf_kill_after)
		return;
	/* A handler run right here, on this thread, instead of a death. */
	if (sheaf_kill_signal != 0) {
		if (hits == sheaf_kill_after)
			raise(sheaf_kill_signal);
		return;
	}
	kill(getpid(), SIGKILL);
	for (;;)
		pause();
}
#else
/*
 * Exported from every build (the driver's inline fast paths call it in a
 * kill-point build), so the version map is the same; a no-op here.
 */
void
sheaf_kill_point(const char *name, const char *sub)
{
	RTE_SET_USED(name);
	RTE_SET_USED(sub);
}
#endif
