/*
 * The physical limits `make bench-compare` compares shmcomm with, measured on the same
 * two cores with no communication library at all. The program forks itself into two
 * processes pinned to the first two CPUs it may use (as the 2-rank runs are):
 *
 *   line_pingpong_us  one 8-byte value bounced between the processes through one cache
 *                     line each way: the floor of any message's one-way latency
 *   pair_barrier_us   a barrier of the two processes in its cheapest form: each stores its
 *                     round number in its own cache line and waits for the other's to
 *                     reach it, both at once: the floor of a 2-rank barrier
 *   shm_pingpong_us   a ping-pong of `bytes` copied into shared memory and out again in
 *                     pipelined 32 KiB chunks: the floor of a two-copy protocol
 *   memcpy_MBps       one thread copying `bytes` between two private buffers, repeated
 *                     (cache-hot at small sizes, as a streaming benchmark's buffers are)
 *   shmcopy_MBps      a stream of `bytes` messages from one process to the other through
 *                     shared memory, copied in and out in pipelined chunks
 *   cma_MBps          one process reading the other's buffer with process_vm_readv, the
 *                     kernel's single copy that Open MPI and shmcomm use for large data
 *   yield_barrier_us  (4 processes, nobody pinned, as the 4-rank runs are) a barrier in
 *                     its cheapest form, each process storing its round number in its own
 *                     cache line and waiting for the others' with sched_yield between
 *                     looks: the floor of a barrier, or of a small all-reduce, when ranks
 *                     outnumber cores and must not busy-wait
 *   cpu_barrier_us    (4 processes, unpinned) the same barrier, but a process yields only
 *                     while a process that has not arrived last ran on its CPU, and
 *                     otherwise polls (for at most 20 us): one context switch per CPU
 *                     per barrier, the least that 4 processes on 2 CPUs can need
 *   allreduce_*_us    (4 processes, unpinned) the floors of a 4-rank all-reduce, in
 *                     floor_allreduce.c
 *
 *   limits [--max BYTES] [--samples N] [--sample-ms MS] [--header]
 *
 * Output: CSV rows runtime,metric,ranks,bytes,value with runtime "bare", as
 * bench/measure prints them. Waiting spins and yields every 4096 polls, so two processes
 * that share a CPU still finish.
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
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "floor_allreduce.h"
#include "timing.h"

#define CHUNK (32u << 10)
#define NSLOT 8
#define LINE 64

/* A one-way channel of chunks, single producer, single consumer. */
struct chan {
    _Alignas(LINE) _Atomic uint64_t head; /* chunks written; written by the producer */
    _Alignas(LINE) _Atomic uint64_t tail; /* chunks read; written by the consumer */
    _Alignas(LINE) char slot[NSLOT][CHUNK];
};

struct shared {
    struct chan ch[2]; /* ch[p] carries data from process p to the other */
    _Alignas(LINE) _Atomic uint64_t line[2][LINE / 8];
    _Alignas(LINE) _Atomic uint64_t bar[2][LINE / 8]; /* pair_barrier's rounds, from 0 */
    _Alignas(LINE) _Atomic int go; /* a command for the child, see child() */
    _Atomic int done;
};

static size_t max_bytes = 64u << 20;
static int samples = 11;
static double sample_s = 0.005;
static struct shared *sh;
static char *buf_a, *buf_b; /* private, each process its own copy after fork */

/* Spin until *p reaches v; acquire pairs with the release that set it. */
static void wait_ge(_Atomic uint64_t *p, uint64_t v)
{
    unsigned spins = 0;
    while (atomic_load_explicit(p, memory_order_acquire) < v)
        if (++spins % 4096 == 0)
            sched_yield();
}

static void chan_send(struct chan *c, const char *src, size_t bytes)
{
    uint64_t h = atomic_load_explicit(&c->head, memory_order_relaxed);
    for (size_t off = 0; off < bytes || (bytes == 0 && off == 0); off += CHUNK) {
        size_t n = bytes - off < CHUNK ? bytes - off : CHUNK;
        wait_ge(&c->tail, h + 1 > NSLOT ? h + 1 - NSLOT : 0); /* slot free */
        memcpy(c->slot[h % NSLOT], src + off, n);
        /* Release: the chunk's bytes are visible before the count that covers them. */
        atomic_store_explicit(&c->head, ++h, memory_order_release);
        if (bytes == 0)
            break;
    }
}

static void chan_recv(struct chan *c, char *dst, size_t bytes)
{
    uint64_t t = atomic_load_explicit(&c->tail, memory_order_relaxed);
    for (size_t off = 0; off < bytes || (bytes == 0 && off == 0); off += CHUNK) {
        size_t n = bytes - off < CHUNK ? bytes - off : CHUNK;
        wait_ge(&c->head, t + 1);
        memcpy(dst + off, c->slot[t % NSLOT], n);
        /* Release: our copy is done before the producer may overwrite the slot. */
        atomic_store_explicit(&c->tail, ++t, memory_order_release);
        if (bytes == 0)
            break;
    }
}

/* ---- the tests; `me` is 0 in the parent, 1 in the child ---- */

static double line_pingpong(int me, int iters)
{
    static uint64_t seq;
    _Atomic uint64_t *ping = sh->line[0], *pong = sh->line[1];
    double t0 = now_s();
    for (int i = 0; i < iters; i++) {
        uint64_t v = ++seq;
        if (me == 0) {
            atomic_store_explicit(ping, v, memory_order_release);
            wait_ge(pong, v);
        } else {
            wait_ge(ping, v);
            atomic_store_explicit(pong, v, memory_order_release);
        }
    }
    return (now_s() - t0) / iters / 2;
}

static double pair_barrier(int me, int iters)
{
    static uint64_t round;
    _Atomic uint64_t *mine = sh->bar[me], *theirs = sh->bar[1 - me];
    double t0 = now_s();
    for (int i = 0; i < iters; i++) {
        uint64_t r = ++round;
        /* Release-acquire: what either did before round r is seen by the other after it. */
        atomic_store_explicit(mine, r, memory_order_release);
        wait_ge(theirs, r);
    }
    return (now_s() - t0) / iters;
}

static double shm_pingpong(int me, size_t bytes, int iters)
{
    double t0 = now_s();
    for (int i = 0; i < iters; i++) {
        if (me == 0) {
            chan_send(&sh->ch[0], buf_a, bytes);
            chan_recv(&sh->ch[1], buf_b, bytes);
        } else {
            chan_recv(&sh->ch[0], buf_b, bytes);
            chan_send(&sh->ch[1], buf_a, bytes);
        }
    }
    return (now_s() - t0) / iters / 2;
}

/* Bytes per second, `iters` messages one way and an 8-byte ack. */
static double shmcopy(int me, size_t bytes, int iters)
{
    double t0 = now_s();
    for (int i = 0; i < iters; i++) {
        if (me == 0)
            chan_send(&sh->ch[0], buf_a, bytes);
        else
            chan_recv(&sh->ch[0], buf_b, bytes);
    }
    if (me == 0)
        chan_recv(&sh->ch[1], buf_b, 8);
    else
        chan_send(&sh->ch[1], buf_a, 8);
    return (double)bytes * iters / (now_s() - t0);
}

static double memcpy_bw(size_t bytes, int iters)
{
    double t0 = now_s();
    for (int i = 0; i < iters; i++) {
        memcpy(buf_b, buf_a, bytes);
        /* Keep the compiler from dropping copies whose result is not read. */
        __asm__ volatile("" : : "r"(buf_b) : "memory");
    }
    return (double)bytes * iters / (now_s() - t0);
}

static pid_t child_pid;

/* The parent reads the child's buf_a (same address after fork) into its buf_b. */
static double cma_bw(size_t bytes, int iters)
{
    struct iovec l = {buf_b, bytes}, r = {buf_a, bytes};
    double t0 = now_s();
    for (int i = 0; i < iters; i++)
        if (process_vm_readv(child_pid, &l, 1, &r, 1, 0) != (ssize_t)bytes)
            return 0; /* not permitted here: reported as 0 */
    return (double)bytes * iters / (now_s() - t0);
}

/* ---- driving both processes ---- */

enum cmd { C_LINE = 1, C_SHMPP, C_SHMCOPY, C_PAIRBAR, C_EXIT };

static struct {
    _Atomic int cmd;
    _Atomic size_t bytes;
    _Atomic int iters;
} * ctl;

static double run_side(int me, int cmd, size_t bytes, int iters)
{
    switch (cmd) {
    case C_LINE:
        return line_pingpong(me, iters);
    case C_SHMPP:
        return shm_pingpong(me, bytes, iters);
    case C_SHMCOPY:
        return shmcopy(me, bytes, iters);
    case C_PAIRBAR:
        return pair_barrier(me, iters);
    default:
        return 0;
    }
}

static void child(void)
{
    int seen = 0;
    for (;;) {
        unsigned spins = 0;
        while (atomic_load(&sh->go) == seen)
            if (++spins % 4096 == 0)
                sched_yield();
        seen = atomic_load(&sh->go);
        int cmd = atomic_load(&ctl->cmd);
        if (cmd == C_EXIT)
            _exit(0);
        run_side(1, cmd, atomic_load(&ctl->bytes), atomic_load(&ctl->iters));
        atomic_fetch_add(&sh->done, 1);
    }
}

/* One sample of a two-process test, started in both processes at once. */
static double both(int cmd, size_t bytes, int iters)
{
    atomic_store(&ctl->cmd, cmd);
    atomic_store(&ctl->bytes, bytes);
    atomic_store(&ctl->iters, iters);
    int d = atomic_load(&sh->done);
    atomic_fetch_add(&sh->go, 1);
    double v = run_side(0, cmd, bytes, iters);
    while (atomic_load(&sh->done) == d)
        sched_yield();
    return v;
}

/* The 4-process barrier floors. Every process runs the same samples; process 0 reports.
 * Each process's line holds its round number and, for the CPU-aware form, 1 + the CPU it
 * last ran on. */
#define NBAR 4
#define BAR_ROUND(f, p) (&(f)[(p) * (LINE / 8)])
#define BAR_CPU(f, p) (&(f)[(p) * (LINE / 8) + 1])

/* Is every process that has not reached round r on another CPU than `cpu`? */
static int others_elsewhere(_Atomic uint64_t *flags, uint64_t r, uint64_t cpu)
{
    for (int p = 0; p < NBAR; p++)
        if (atomic_load_explicit(BAR_ROUND(flags, p), memory_order_relaxed) < r &&
            atomic_load_explicit(BAR_CPU(flags, p), memory_order_relaxed) == cpu)
            return 0;
    return 1;
}

static uint64_t publish_cpu(_Atomic uint64_t *flags, int me)
{
    uint64_t c = (uint64_t)sched_getcpu() + 1;
    atomic_store_explicit(BAR_CPU(flags, me), c, memory_order_relaxed);
    return c;
}

static double yield_barrier_sample(_Atomic uint64_t *flags, int me, uint64_t *round, int iters,
                                   int aware)
{
    double t0 = now_s();
    for (int i = 0; i < iters; i++) {
        uint64_t r = ++*round;
        uint64_t cpu = aware ? publish_cpu(flags, me) : 0;
        atomic_store_explicit(BAR_ROUND(flags, me), r, memory_order_release);
        double until = 0;
        for (int p = 0; p < NBAR; p++)
            while (atomic_load_explicit(BAR_ROUND(flags, p), memory_order_acquire) < r) {
                if (aware && others_elsewhere(flags, r, cpu)) {
                    double t = now_s();
                    if (!until)
                        until = t + 20e-6;
                    if (t < until)
                        continue;
                }
                sched_yield();
                if (aware)
                    cpu = publish_cpu(flags, me);
            }
    }
    return (now_s() - t0) / iters;
}

static void yield_barrier(const cpu_set_t *all, int aware)
{
    _Atomic uint64_t *flags =
        mmap(NULL, NBAR * LINE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (flags == MAP_FAILED)
        return;
    sched_setaffinity(0, sizeof *all, all);
    int iters = (int)(sample_s / 2e-6) + 1000;
    pid_t kids[NBAR], parent = getpid();
    for (int me = 1; me < NBAR; me++)
        if ((kids[me] = fork()) == 0) {
            bench_die_with_parent(parent);
            uint64_t round = 0;
            for (int s = -2; s < samples; s++)
                yield_barrier_sample(flags, me, &round, iters, aware);
            _exit(0);
        }
    uint64_t round = 0;
    double v[64];
    for (int s = -2; s < samples; s++) {
        double x = yield_barrier_sample(flags, 0, &round, iters, aware);
        if (s >= 0)
            v[s] = x;
    }
    for (int me = 1; me < NBAR; me++)
        waitpid(kids[me], NULL, 0);
    printf("bare,%s_barrier_us,%d,0,%.4f\n", aware ? "cpu" : "yield", NBAR,
           median(v, samples) * 1e6);
    fflush(stdout);
    munmap(flags, NBAR * LINE);
}

static double one(int metric, size_t bytes, int iters)
{
    if (metric == 3)
        return memcpy_bw(bytes, iters);
    if (metric == 4)
        return cma_bw(bytes, iters);
    static const enum cmd cmds[] = {C_LINE, C_SHMPP, C_SHMCOPY, 0, 0, C_PAIRBAR};
    return both(cmds[metric], bytes, iters);
}

static const char *const metric_names[] = {"line_pingpong_us", "shm_pingpong_us", "shmcopy_MBps",
                                           "memcpy_MBps", "cma_MBps", "pair_barrier_us"};

static void report(int metric, size_t bytes)
{
    int is_time = metric <= 1 || metric == 5;
    double w = one(metric, bytes, 1);
    double per = is_time ? w : (w > 0 ? (double)bytes / w : 1);
    int iters = per > 0 ? (int)(sample_s / per) : 100000;
    iters = iters < 1 ? 1 : iters > 200000 ? 200000 : iters;
    double v[64];
    for (int s = -2; s < samples; s++) {
        double x = one(metric, bytes, iters);
        if (s >= 0)
            v[s] = x;
    }
    double m = median(v, samples);
    printf("bare,%s,2,%zu,%.4f\n", metric_names[metric], bytes, is_time ? m * 1e6 : m / 1e6);
    fflush(stdout);
}

static void pin(int which)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) < 2)
        return;
    for (int c = 0, seen = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &set))
            continue;
        if (seen++ == which) {
            CPU_ZERO(&set);
            CPU_SET(c, &set);
            sched_setaffinity(0, sizeof set, &set);
            return;
        }
    }
}

int main(int argc, char **argv)
{
    int header = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--header"))
            header = 1;
        else if (!strcmp(argv[i], "--max") && i + 1 < argc)
            max_bytes = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--samples") && i + 1 < argc)
            samples = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--sample-ms") && i + 1 < argc)
            sample_s = atof(argv[++i]) / 1000;
        else {
            fprintf(stderr, "usage: limits [--max BYTES] [--samples N] [--sample-ms MS] "
                            "[--header]\n");
            return 2;
        }
    }
    if (samples < 1 || samples > 64 || !(sample_s > 0) || max_bytes < 8) {
        fprintf(stderr, "limits: --samples 1..64, --sample-ms > 0, --max >= 8\n");
        return 2;
    }
    cpu_set_t all;
    if (sched_getaffinity(0, sizeof all, &all) != 0)
        CPU_ZERO(&all);
    sh = mmap(NULL, sizeof *sh + 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    buf_a = malloc(max_bytes);
    buf_b = malloc(max_bytes);
    if (sh == MAP_FAILED || !buf_a || !buf_b) {
        fprintf(stderr, "limits: out of memory\n");
        return 1;
    }
    ctl = (void *)((char *)sh + sizeof *sh);
    memset(buf_a, 1, max_bytes);
    memset(buf_b, 0, max_bytes);
    pid_t parent = getpid();
    child_pid = fork();
    if (child_pid < 0) {
        perror("limits: fork");
        return 1;
    }
    if (child_pid == 0) {
        bench_die_with_parent(parent);
        pin(1);
        child();
    }
    pin(0);
    if (header)
        printf("runtime,metric,ranks,bytes,value\n");
    report(0, 8);
    report(5, 0);
    for (size_t b = 1; b <= max_bytes; b *= 2)
        report(1, b);
    for (size_t b = 1; b <= max_bytes; b *= 2)
        report(2, b);
    for (size_t b = 1; b <= max_bytes; b *= 2)
        report(3, b);
    for (size_t b = 1; b <= max_bytes; b *= 2)
        report(4, b);
    atomic_store(&ctl->cmd, C_EXIT);
    atomic_fetch_add(&sh->go, 1);
    waitpid(child_pid, NULL, 0);
    if (CPU_COUNT(&all)) {
        yield_barrier(&all, 0);
        yield_barrier(&all, 1);
        allreduce_floors(&all, max_bytes, samples, sample_s);
    }
    return 0;
}
