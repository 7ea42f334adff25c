/*
 * The floor of a 4-rank all-reduce on these cores: 4 processes, nobody pinned (as the
 * 4-rank runs are), doing only the work an all-reduce of float32 SUM cannot avoid, in the
 * three ways a single-node runtime can move the data, with no library, no checks and no
 * per-piece coordination. Each call ends in the yield barrier of limits.c (one store,
 * three loads, sched_yield between looks). Rows, all "bare", ranks 4:
 *
 *   allreduce_1step_us  every process copies its vector into shared memory, a barrier,
 *                       then every process sums all four into its result (double
 *                       buffered, so one barrier per call): the small-size form
 *   allreduce_shm_us    copy in, a barrier, each process sums its quarter of the four
 *                       copies into a shared result, a barrier, everyone copies the whole
 *                       result out: the two-copy form, two barriers per call
 *   allreduce_cma_us    each process reads its quarter of the three others' vectors with
 *                       process_vm_readv in 64 KiB pieces, sums, and writes the result
 *                       into the three others' results with process_vm_writev (the
 *                       kernel's single copy, as Open MPI and shmcomm use), one barrier
 *
 * Process 0 times each sample; the figure is the median of the samples, in µs per call.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "floor_allreduce.h"
#include "timing.h"

#define NP 4
#define LINE 64
#define PIECE (64u << 10)

enum form { F_1STEP, F_SHM, F_CMA, F_MIXED, F_COUNT };
static const char *const form_names[F_COUNT] = {"allreduce_1step_us", "allreduce_shm_us",
                                                "allreduce_cma_us", "allreduce_mixed_us"};

/* Shared by the four processes: barrier flags, pids, and the sample's orders. */
struct ctl {
    _Alignas(LINE) _Atomic uint64_t flag[NP][LINE / 8];
    pid_t pid[NP];
    int iters;
    _Atomic int cma_refused; /* some process may not read or write another's memory */
};

static struct ctl *ctl;
static float *shm_in;             /* [2][NP][count]: 1step and shm copy-ins, double buffered */
static float *shm_res;            /* [2][count]: the shm form's result, double buffered */
static float *in, *out, *scratch; /* private: this process's vector, result, 3 pieces */
static uint64_t round_no;
static int me;

/* The yield barrier of limits.c; acquire pairs with each process's release of its round,
 * which publishes everything it wrote before. */
static void barrier(void)
{
    uint64_t r = ++round_no;
    atomic_store_explicit(&ctl->flag[me][0], r, memory_order_release);
    for (int p = 0; p < NP; p++)
        while (atomic_load_explicit(&ctl->flag[p][0], memory_order_acquire) < r)
            sched_yield();
}

static void sum_into(float *restrict acc, const float *restrict x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        acc[i] += x[i];
}

static void call_1step(size_t count, unsigned parity)
{
    float *slots = shm_in + (size_t)parity * NP * count;
    memcpy(slots + (size_t)me * count, in, count * sizeof(float));
    barrier();
    memcpy(out, slots, count * sizeof(float));
    for (int p = 1; p < NP; p++)
        sum_into(out, slots + (size_t)p * count, count);
}

/* This process's quarter of count elements: [*lo, *hi). */
static void quarter(size_t count, size_t *lo, size_t *hi)
{
    size_t q = (count + NP - 1) / NP;
    *lo = q * me < count ? q * me : count;
    *hi = *lo + q < count ? *lo + q : count;
}

static void call_shm(size_t count, unsigned parity)
{
    float *slots = shm_in + (size_t)parity * NP * count;
    float *res = shm_res + (size_t)parity * count;
    size_t lo, hi;
    quarter(count, &lo, &hi);
    memcpy(slots + (size_t)me * count, in, count * sizeof(float));
    barrier();
    memcpy(res + lo, slots + lo, (hi - lo) * sizeof(float));
    for (int p = 1; p < NP; p++)
        sum_into(res + lo, slots + (size_t)p * count + lo, hi - lo);
    barrier();
    memcpy(out, res, count * sizeof(float));
}

/* acc[0, n) = the sum of elements [at, at + n) of the four inputs, the peers' read with
 * process_vm_readv (same virtual addresses everywhere: the buffers predate the fork). */
static void sum_piece(float *acc, size_t at, size_t n)
{
    size_t bytes = n * sizeof(float);
    memcpy(acc, in + at, bytes);
    for (int k = 1; k < NP; k++) {
        struct iovec l = {scratch, bytes}, r = {in + at, bytes};
        if (process_vm_readv(ctl->pid[(me + k) % NP], &l, 1, &r, 1, 0) != (ssize_t)bytes)
            memset(scratch, 0, bytes); /* cannot happen: probed before */
        sum_into(acc, scratch, n);
    }
}

/* Each piece of our quarter summed into our result and written into the peers'. */
static void call_cma(size_t count)
{
    size_t lo, hi, per = PIECE / sizeof(float);
    quarter(count, &lo, &hi);
    for (size_t at = lo; at < hi; at += per) {
        size_t n = hi - at < per ? hi - at : per;
        sum_piece(out + at, at, n);
        for (int k = 1; k < NP; k++) {
            struct iovec l = {out + at, n * sizeof(float)}, r = l;
            (void)process_vm_writev(ctl->pid[(me + k) % NP], &l, 1, &r, 1, 0);
        }
    }
    barrier();
}

/* The same sums into shared memory, and everyone copies the whole result out. */
static void call_mixed(size_t count, unsigned parity)
{
    float *res = shm_res + (size_t)parity * count;
    size_t lo, hi, per = PIECE / sizeof(float);
    quarter(count, &lo, &hi);
    for (size_t at = lo; at < hi; at += per)
        sum_piece(res + at, at, hi - at < per ? hi - at : per);
    barrier();
    memcpy(out, res, count * sizeof(float));
}

static double sample(int form, size_t count, int iters)
{
    barrier();
    double t0 = now_s();
    for (int i = 0; i < iters; i++) {
        if (form == F_1STEP)
            call_1step(count, (unsigned)i & 1);
        else if (form == F_SHM)
            call_shm(count, (unsigned)i & 1);
        else if (form == F_CMA)
            call_cma(count);
        else
            call_mixed(count, (unsigned)i & 1);
    }
    return (now_s() - t0) / iters;
}

/* Every process runs the same sequence; process 0 chooses the count of calls per sample
 * from its first warm-up and hands it to the others between two barriers. */
static void run_all(size_t max, int samples, double sample_s)
{
    for (size_t bytes = 4; bytes <= max; bytes *= 4) {
        size_t count = bytes / sizeof(float);
        for (int f = 0; f < F_COUNT; f++) {
            if (f == F_1STEP && bytes > (1u << 20))
                continue; /* everyone summing everything: far behind from here on */
            if ((f == F_CMA || f == F_MIXED) && atomic_load(&ctl->cma_refused))
                continue;
            double first = sample(f, count, 1);
            if (me == 0)
                ctl->iters = first > 0 ? (int)(sample_s / first) + 1 : 1000;
            barrier();
            int iters = ctl->iters < 1 ? 1 : ctl->iters > 100000 ? 100000 : ctl->iters;
            barrier();
            double v[64];
            for (int s = -2; s < samples; s++) {
                double x = sample(f, count, iters);
                if (s >= 0)
                    v[s] = x;
            }
            /* A floor that skipped work would be no floor: inputs are 1, 2, 3, 4. */
            if (out[0] != 10.0f || out[count - 1] != 10.0f)
                fprintf(stderr, "limits: %s of %zu bytes gave %g in process %d, not 10\n",
                        form_names[f], bytes, (double)out[count - 1], me);
            if (me == 0) {
                printf("bare,%s,%d,%zu,%.4f\n", form_names[f], NP, bytes, median(v, samples) * 1e6);
                fflush(stdout);
            }
        }
    }
}

void allreduce_floors(const cpu_set_t *all, size_t max, int samples, double sample_s)
{
    if (max > (16u << 20))
        max = 16u << 20;
    size_t count = max / sizeof(float);
    size_t shm_bytes = sizeof *ctl + (2 * NP + 2) * count * sizeof(float) + LINE;
    char *shm = mmap(NULL, shm_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    in = malloc(max);
    out = malloc(max);
    scratch = malloc(PIECE);
    if (shm == MAP_FAILED || !in || !out || !scratch) {
        fprintf(stderr, "limits: out of memory for the all-reduce floors\n");
        exit(1);
    }
    ctl = (struct ctl *)shm;
    shm_in = (float *)(shm + sizeof *ctl + LINE - sizeof *ctl % LINE);
    shm_res = shm_in + (size_t)2 * NP * count;
    sched_setaffinity(0, sizeof *all, all);
    ctl->pid[0] = getpid();
    pid_t kids[NP];
    for (int p = 1; p < NP; p++)
        if ((kids[p] = fork()) == 0) {
            bench_die_with_parent(ctl->pid[0]);
            me = p;
            break;
        }
    if (me != 0)
        ctl->pid[me] = getpid();
    /* Private pages in every process (fork shares them until written), and inputs that
     * differ, as an all-reduce's do. */
    for (size_t i = 0; i < count; i++)
        in[i] = (float)(me + 1);
    memset(out, 0, max);
    memset(scratch, 0, PIECE);
    barrier();
    /* Can this process write into the next one (a hardened kernel may refuse)? */
    struct iovec l = {scratch, sizeof(float)}, r = {out, sizeof(float)};
    if (process_vm_writev(ctl->pid[(me + 1) % NP], &l, 1, &r, 1, 0) != sizeof(float))
        atomic_store(&ctl->cma_refused, 1);
    barrier();
    run_all(max, samples, sample_s);
    if (me != 0)
        _exit(0);
    for (int p = 1; p < NP; p++) {
        int st = 0;
        waitpid(kids[p], &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
            fprintf(stderr, "limits: all-reduce floor process %d failed (status %d)\n", p, st);
    }
    munmap(shm, shm_bytes);
    free(in);
    free(out);
    free(scratch);
}
