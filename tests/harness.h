/*
 * Test helpers shared by the Check suites.
 *
 * shmct_run() starts a job of N ranks inside the current (Check-forked) test process:
 * it creates an arena as shmrun does, forks the ranks, and in each calls shmc_init, the
 * rank function and shmc_finalize. A rank that fails an assertion prints where and why
 * and exits non-zero; the supervisor then marks it dead and aborts the job, exactly as
 * shmrun would, so the other ranks end instead of hanging. Ranks die with the test
 * process (PR_SET_PDEATHSIG), so Check's timeout also ends them.
 */
#ifndef SHMC_TEST_HARNESS_H
#define SHMC_TEST_HARNESS_H

#include <shmcomm.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*shmct_fn)(shmc_comm *world, int rank, int size, void *arg);

struct shmct_opts {
    const char *const *env;      /* "NAME=value" strings set in every rank, NULL-terminated */
    int expect_fail;             /* the test expects some rank to fail: do not print reports */
    int no_init;                 /* do not call shmc_init/shmc_finalize around fn */
    int keep_going;              /* a failed rank is marked dead without aborting the job, as
                                    shmrun --keep-going does */
    const char *const *rank_env; /* more "NAME=value" strings, set in rank rank_env_rank
                                    only, after env (NULL: none) */
    int rank_env_rank;
};

/* A zeroed page of memory shared with the ranks and processes forked after it, outside
 * the library: flags that order a test's steps across processes without sleeping
 * (fails the test where it cannot be mapped). shmct_page_free releases it. */
void *shmct_page(void);
void shmct_page_free(void *page);

/* Runs fn in n ranks. Returns the number of ranks that did not exit 0. */
int shmct_run(int n, shmct_fn fn, void *arg);
int shmct_run_opts(int n, shmct_fn fn, void *arg, const struct shmct_opts *o);

/* Inside a rank: a seccomp filter that makes system call nr fail with errno err from now
 * on, as a container or a Yama policy would. Returns 0, or -1 with errno. */
int shmct_refuse_syscall(long nr, int err);

/* Inside a rank: the job's arena as another process of the job sees it (shm/arena.h,
 * the shared-memory ABI): attached read-write from this rank's SHMC_ARENA_FD with every
 * check of an attach. Returns 0; shmc__arena_detach(a) when done. */
struct shmc__arena;
int shmct_arena_view(struct shmc__arena *a);

/* Exit status of rank r in the last shmct_run (as from waitpid). */
int shmct_status(int r);

/* Inside a rank: fail the test with a message. */
#define T_ASSERT(cond, ...)                                                                        \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            shmct_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);                                    \
        }                                                                                          \
    } while (0)

/* Inside a rank: an shmcomm call that must return want. */
#define T_CALL(want, call)                                                                         \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != (want))                                                                         \
            shmct_fail(__FILE__, __LINE__, #call, "returned %d (%s), expected %d (%s)", rc_,       \
                       shmc_strerror(rc_), (want), shmc_strerror(want));                           \
    } while (0)

#define T_OK(call) T_CALL(SHMC_OK, call)

void shmct_fail(const char *file, int line, const char *what, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 4, 5)));

/* Inside a rank: one of its counters (shmc_stat). */
static inline uint64_t shmct_stat(const char *name)
{
    uint64_t v = 0;
    T_OK(shmc_stat(name, &v));
    return v;
}

/* Deterministic test data: 64-bit word k of a message identified by seed (a byte at
 * offset i is byte i % 8 of word i / 8, little-endian). */
static inline uint64_t shmct_word(uint64_t seed, size_t k)
{
    uint64_t x = (seed + 1) * 0x9e3779b97f4a7c15ull + k * 0xbf58476d1ce4e5b9ull;
    x ^= x >> 31;
    return x ^ (x >> 17);
}

void shmct_fill(void *buf, size_t len, uint64_t seed);
/* Returns the index of the first wrong byte, or (size_t)-1 if all are right. */
size_t shmct_verify(const void *buf, size_t len, uint64_t seed);

/* Inside a rank: the seed of the k-th message of `bytes` from rank src. */
static inline uint64_t shmct_seed(int src, size_t bytes, int k)
{
    return ((uint64_t)src << 40) ^ ((uint64_t)bytes << 8) ^ (uint64_t)k;
}

/* Inside a rank: fails the test unless buf holds shmct_fill's bytes for seed. */
static inline void shmct_check_data(const void *buf, size_t bytes, uint64_t seed, int from)
{
    size_t bad = shmct_verify(buf, bytes, seed);
    T_ASSERT(bad == (size_t)-1, "byte %zu of %zu from rank %d is wrong", bad, bytes, from);
}

/* Inside a rank: rank 0 sends m messages of `bytes` (through buf, which holds at least
 * that) to rank 1 on tag, blocking, each filled for shmct_seed(0, bytes, k); rank 1
 * receives and checks every byte; other ranks do nothing. */
static inline void shmct_stream_0_to_1(shmc_comm *w, int me, uint8_t *buf, size_t bytes, int m,
                                       int tag)
{
    for (int k = 0; k < m; k++) {
        if (me == 0) {
            shmct_fill(buf, bytes, shmct_seed(0, bytes, k));
            T_OK(shmc_send(buf, bytes, SHMC_UINT8, 1, tag, w));
        } else if (me == 1) {
            memset(buf, 0, bytes);
            T_OK(shmc_recv(buf, bytes, SHMC_UINT8, 0, tag, w, NULL));
            shmct_check_data(buf, bytes, shmct_seed(0, bytes, k), 0);
        }
    }
}

/* Inside a rank: malloc that fails the test instead of returning NULL (never for 0). */
static inline void *shmct_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    T_ASSERT(p, "out of memory for %zu bytes", n);
    return p;
}

/* Seconds on the monotonic clock (for tests that run for a set time, never to judge). */
double shmct_seconds(void);

/* Path of a built artefact: SHMC_TEST_BUILD (set by make) or the compile-time default. */
const char *shmct_build_path(const char *rel, char *buf, size_t len);

/* Names of this user's shmcomm segments in /dev/shm, space-separated, into buf. Returns
 * how many there are. */
int shmct_shm_segments(char *buf, size_t len);

/* For suites that start jobs: remember how many of this user's segments /dev/shm holds
 * (shmct_shm_baseline), and fail the test if there are more at the end. Use them as a
 * Check fixture: tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify). */
extern int shmct_shm_baseline;
void shmct_shm_snapshot(void);
void shmct_shm_verify(void);

/* Captures this process's stderr between begin and end; end copies it into buf. */
void shmct_stderr_begin(void);
const char *shmct_stderr_end(char *buf, size_t len);

/* Runs suite s in forked mode and returns the process exit status for main(). */
typedef struct Suite Suite;
int shmct_main(Suite *s);

/* The last few KiB of a long output, for a failure message (Check cuts its messages
 * short, and the end of a job's output says how it ended). */
const char *shmct_tail(const char *text);

/* Fails the current Check test unless text contains substr. */
#define SHMCT_ASSERT_CONTAINS(text, substr)                                                        \
    ck_assert_msg(strstr((text), (substr)), "'%s' not in output:\n%s", (substr),                 \
                  shmct_tail(text))

/* Runs a command line with /bin/sh, capturing stdout+stderr into out. Output longer than
 * len keeps its first half and its last bytes, with a line saying how much was left out
 * between them: a job's final lines (statuses, faults) survive a flood of messages.
 * Returns the wait status. */
int shmct_sh(const char *cmd, char *out, size_t len);

#endif /* SHMC_TEST_HARNESS_H */
