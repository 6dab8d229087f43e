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

/*
 * Read the state letter and start time of pid from /proc/<pid>/stat.
 * 0, or -1 when there is no such process.
 */
static int
sheaf_proc_stat(uint32_t pid, char *state, uint64_t *start)
{
	char path[40], buf[1024], *p;
	unsigned long long st = 0;
	unsigned int field;
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return -1;
	buf[len] = '\0';
	/* The command name may hold spaces and ')': skip to the last ')'. */
	p = strrchr(buf, ')');
	if (p == NULL || p[1] != ' ')
		return -1;
	p += 2;
	*state = *p;
	/* Field 3 is the state; the start time is field 22. */
	for (field = 3; field < 22 && p != NULL; field++) {
		p = strchr(p, ' ');
		if (p != NULL)
			p++;
	}
	if (p == NULL || sscanf(p, "%llu", &st) != 1)
		return -1;
	*start = st;
	return 0;
}

static uint64_t
sheaf_proc_make(uint32_t pid, uint64_t start)
{
	return (start & ((UINT64_C(1) << SHEAF_START_BITS) - 1)) << 22 |
		(pid & ((1u << 22) - 1));
}

bool
sheaf_proc_dead(uint64_t inc)
{
	uint32_t pid = sheaf_proc_pid(inc);
	uint64_t start;
	char state;

	inc &= ~SHEAF_INC_HEIR;
	if (inc == sheaf_self)
		return false;
	if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
		return true;
	if (sheaf_proc_stat(pid, &state, &start) < 0)
		return true;
	/* Zombie or dead: exited, whatever its parent does. */
	if (state == 'Z' || state == 'X' || state == 'x')
		return true;
	return sheaf_proc_make(pid, start) != inc;
}

static void
sheaf_proc_identify(void)
{
	uint32_t pid = (uint32_t)getpid();
	uint64_t start = 0;
	char state;

	/* Without /proc, a start time of 0: the pid alone names us. */
	if (sheaf_proc_stat(pid, &state, &start) < 0)
		start = 0;
	sheaf_self = sheaf_proc_make(pid, start);
}

/* The child of a fork() is another process. */
static void
sheaf_proc_atfork_child(void)
{
	sheaf_proc_identify();
}

RTE_INIT(sheaf_proc_init)
{
	sheaf_proc_identify();
	pthread_atfork(NULL, NULL, sheaf_proc_atfork_child);
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

RTE_INIT(sheaf_kill_init)
{
	const char *after = getenv("SHEAF_KILL_AFTER");

	sheaf_kill_at = getenv("SHEAF_KILL_AT");
	if (after != NULL)
		sheaf_kill_after = strtoul(after, NULL, 0);
}

void
sheaf_kill_point(const char *name, const char *sub)
{
	const char *at = sheaf_kill_at;
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
	if (__atomic_add_fetch(&sheaf_kill_hits, 1, __ATOMIC_RELAXED) <
			sheaf_kill_after)
		return;
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
