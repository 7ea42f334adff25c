/*
 * Point-to-point benchmark, OSU style: ping-pong latency (half the round trip) and
 * streaming bandwidth (a window of isends answered by one small ack), for sizes from 0
 * bytes to 64 MiB; each figure is the median of repeated samples after a warm-up.
 *
 * It also measures the physical floor on the same two cores: a bare two-process ping-pong
 * of one cache line in shared memory, with no library at all.
 *
 *   shmrun -n 2 build/bench/p2p_bench [--max BYTES] [--samples N] [--csv]
 *
 * Ranks beyond the first two wait in a barrier.
 */
#include <shmcomm.h>

#include "bench.h"

#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static size_t max_bytes = 64u << 20;
static int samples = 15;
static int csv;

static double pp_sample(shmc_comm *w, int me, void *buf, size_t bytes, int iters);

/* Enough iterations that a sample lasts about a millisecond or more. */
static int lat_iters(size_t bytes)
{
    size_t it = 400000 / (1 + bytes / 256);
    return it < 4 ? 4 : it > 5000 ? 5000 : (int)it;
}

static int bw_window(size_t bytes)
{
    size_t w = (256u << 20) / (bytes ? bytes : 1);
    return w < 2 ? 2 : w > 64 ? 64 : (int)w;
}

/* Ping-pong: seconds for one message one way. */
static double latency(shmc_comm *w, int me, void *buf, size_t bytes)
{
    double s[64];
    int iters = lat_iters(bytes);
    for (int k = -2; k < samples; k++) { /* two warm-up samples */
        double t = pp_sample(w, me, buf, bytes, iters);
        if (k >= 0)
            s[k] = t;
    }
    return median(s, samples);
}

/* Streaming: bytes per second from rank 0 to rank 1. */
static double bandwidth(shmc_comm *w, int me, void *buf, size_t bytes)
{
    double s[64];
    int win = bw_window(bytes);
    int reps = bytes >= (1u << 20) ? 2 : 20;
    shmc_request *rq[64];
    char ack = 0;
    for (int k = -2; k < samples; k++) {
        CHECK(shmc_barrier(w));
        double t0 = now_s();
        for (int r = 0; r < reps; r++) {
            for (int i = 0; i < win; i++) {
                if (me == 0)
                    CHECK(shmc_isend(buf, bytes, SHMC_UINT8, 1, 2, w, &rq[i]));
                else
                    CHECK(shmc_irecv(buf, bytes, SHMC_UINT8, 0, 2, w, &rq[i]));
            }
            CHECK(shmc_waitall((size_t)win, rq, NULL));
            if (me == 0)
                CHECK(shmc_recv(&ack, 1, SHMC_UINT8, 1, 3, w, NULL));
            else
                CHECK(shmc_send(&ack, 1, SHMC_UINT8, 0, 3, w));
        }
        if (k >= 0)
            s[k] = (double)bytes * win * reps / (now_s() - t0);
    }
    return median(s, samples);
}

/* The floor: two processes bouncing one cache line through shared memory, each on the
 * core shmrun gave it. Rank 0 makes a segment and tells rank 1 its name. */
static _Atomic uint64_t *bare_setup(shmc_comm *w, int me)
{
    char name[64];
    if (me == 0)
        snprintf(name, sizeof name, "/shmc-%u-bench-%d", (unsigned)geteuid(), (int)getpid());
    CHECK(shmc_barrier(w));
    if (me == 0)
        CHECK(shmc_send(name, sizeof name, SHMC_UINT8, 1, 4, w));
    else
        CHECK(shmc_recv(name, sizeof name, SHMC_UINT8, 0, 4, w, NULL));
    int fd = shm_open(name, O_RDWR | O_CREAT, 0600);
    if (fd < 0 || ftruncate(fd, 4096) != 0) {
        perror("bench: shm_open");
        shmc_abort(1);
    }
    _Atomic uint64_t *line = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    CHECK(shmc_barrier(w));
    if (me == 0)
        shm_unlink(name);
    return line;
}

/* One sample of the bare ping-pong: seconds one way. */
static double bare_sample(shmc_comm *w, int me, _Atomic uint64_t *line, uint64_t *seq)
{
    _Atomic uint64_t *ping = &line[0], *pong = &line[8]; /* two cache lines */
    int iters = 20000;
    CHECK(shmc_barrier(w));
    double t0 = now_s();
    for (int i = 0; i < iters; i++) {
        uint64_t v = ++*seq;
        /* Pure spinning; after many spins yield, so that two ranks sharing a core still
         * finish (the figure is then a context switch, not a cache line). */
        unsigned spins = 0;
        if (me == 0) {
            atomic_store_explicit(ping, v, memory_order_release);
            while (atomic_load_explicit(pong, memory_order_acquire) != v)
                if (++spins % 4096 == 0)
                    sched_yield();
        } else {
            while (atomic_load_explicit(ping, memory_order_acquire) != v)
                if (++spins % 4096 == 0)
                    sched_yield();
            atomic_store_explicit(pong, v, memory_order_release);
        }
    }
    return (now_s() - t0) / iters / 2;
}

/* One sample of shmcomm's ping-pong of `bytes`: seconds one way. */
static double pp_sample(shmc_comm *w, int me, void *buf, size_t bytes, int iters)
{
    CHECK(shmc_barrier(w));
    double t0 = now_s();
    for (int i = 0; i < iters; i++) {
        if (me == 0) {
            CHECK(shmc_send(buf, bytes, SHMC_UINT8, 1, 1, w));
            CHECK(shmc_recv(buf, bytes, SHMC_UINT8, 1, 1, w, NULL));
        } else {
            CHECK(shmc_recv(buf, bytes, SHMC_UINT8, 0, 1, w, NULL));
            CHECK(shmc_send(buf, bytes, SHMC_UINT8, 0, 1, w));
        }
    }
    return (now_s() - t0) / iters / 2;
}

/* The floor and the 8-byte latency, sampled alternately so that both see the same
 * machine (this VM's figures drift between runs). */
static void vs_bare(shmc_comm *w, int me, void *buf, double *bare, double *lat8)
{
    _Atomic uint64_t *line = bare_setup(w, me);
    double b[64], l[64];
    uint64_t seq = 0;
    for (int k = -2; k < samples; k++) {
        double x = bare_sample(w, me, line, &seq);
        double y = pp_sample(w, me, buf, 8, 20000);
        if (k >= 0) {
            b[k] = x;
            l[k] = y;
        }
    }
    munmap((void *)line, 4096);
    *bare = median(b, samples);
    *lat8 = median(l, samples);
}

static void usage(void)
{
    fprintf(stderr, "usage: shmrun -n 2 p2p_bench [--max BYTES] [--samples N] [--csv]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--max") && i + 1 < argc)
            max_bytes = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--samples") && i + 1 < argc)
            samples = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--csv"))
            csv = 1;
        else
            usage();
    }
    if (samples < 1 || samples > 64)
        usage();

    shmc_comm *w;
    CHECK(shmc_init(&w));
    int me = shmc_comm_rank(w), n = shmc_comm_size(w);
    if (n < 2) {
        fprintf(stderr, "p2p_bench needs 2 ranks: shmrun -n 2 %s\n", argv[0]);
        shmc_finalize();
        return 2;
    }
    if (me >= 2) {
        CHECK(shmc_finalize());
        return 0;
    }
    /* Ranks 2.. finalize at once; the two measuring ranks use the world anyway, so
     * exclude the others from barriers by measuring only with n == 2. */
    if (n > 2) {
        if (me == 0)
            fprintf(stderr, "p2p_bench: run it with -n 2\n");
        CHECK(shmc_finalize());
        return 2;
    }

    void *buf = malloc(max_bytes ? max_bytes : 1);
    memset(buf, 1, max_bytes);
    double bare, lat8;
    vs_bare(w, me, buf, &bare, &lat8);
    if (me == 0) {
        if (csv)
            printf("bytes,latency_us,vs_bare,bandwidth_MBps\n");
        else
            printf("# shmcomm %s p2p_bench, 2 ranks, median of %d samples\n"
                   "# bare cache-line ping-pong, same two cores: %.3f us one way\n"
                   "# 8-byte shmcomm latency sampled alternately with it: %.3f us = %.2fx bare\n"
                   "%10s %12s %12s %16s\n",
                   shmc_version(), samples, bare * 1e6, lat8 * 1e6, lat8 / bare, "bytes",
                   "latency_us", "vs_bare", "bandwidth_MB/s");
    }
    for (size_t bytes = 0; bytes <= max_bytes; bytes = bytes ? bytes * 2 : 1) {
        double lat = latency(w, me, buf, bytes);
        double bw = bytes ? bandwidth(w, me, buf, bytes) : 0;
        if (me == 0) {
            if (csv)
                printf("%zu,%.4f,%.3f,%.1f\n", bytes, lat * 1e6, lat / bare, bw / 1e6);
            else
                printf("%10zu %12.3f %12.2f %16.1f\n", bytes, lat * 1e6, lat / bare, bw / 1e6);
            fflush(stdout);
        }
    }
    free(buf);
    CHECK(shmc_finalize());
    return 0;
}
