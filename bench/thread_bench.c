/*
 * Several threads per rank at SHMC_THREAD_MULTIPLE: thread t of rank 0 ping-pongs 8
 * bytes with thread t of rank 1 (tag t) for --seconds; rank 0 prints the round trips per
 * second of all threads together and the time of one round trip per thread.
 *
 *   shmrun -n 2 build/bench/thread_bench [--threads T] [--seconds S]
 *
 * One thread runs at the level SHMC_THREADS gives (serialised by default); more ask for
 * SHMC_THREAD_MULTIPLE. Output, one CSV row: level,threads,round_trips_per_s,us_per_rtt.
 * Compare rows from the same run of the same machine only (docs/performance.md).
 */
#include <pthread.h>
#include <shmcomm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static shmc_comm *world;
static int me;
static double seconds = 2.0;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct worker {
    int tag;
    unsigned long trips;
    int rc;
};

static void *run(void *arg)
{
    struct worker *w = arg;
    uint64_t v = 1;
    if (me == 0) {
        double end = now() + seconds;
        while (v) {
            v = now() < end;
            if ((w->rc = shmc_send(&v, 1, SHMC_UINT64, 1, w->tag, world)) ||
                (w->rc = shmc_recv(&v, 1, SHMC_UINT64, 1, w->tag, world, NULL)))
                return NULL;
            w->trips += v != 0;
        }
    } else {
        while (v) {
            if ((w->rc = shmc_recv(&v, 1, SHMC_UINT64, 0, w->tag, world, NULL)) ||
                (w->rc = shmc_send(&v, 1, SHMC_UINT64, 0, w->tag, world)))
                return NULL;
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = 1;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--threads"))
            threads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--seconds"))
            seconds = atof(argv[i + 1]);
    }
    if (threads < 1 || threads > 64 || seconds <= 0) {
        fprintf(stderr, "usage: thread_bench [--threads 1..64] [--seconds S]\n");
        return 2;
    }
    int rc = shmc_init_thread(threads > 1 ? SHMC_THREAD_MULTIPLE : SHMC_THREAD_SERIALIZED, &world);
    if (rc != SHMC_OK) {
        fprintf(stderr, "thread_bench: shmc_init_thread: %s\n", shmc_strerror(rc));
        return 1;
    }
    me = shmc_comm_rank(world);
    if (shmc_comm_size(world) != 2) {
        fprintf(stderr, "thread_bench: run it with 2 ranks\n");
        shmc_finalize();
        return 2;
    }
    struct worker *w = calloc((size_t)threads, sizeof *w);
    pthread_t *t = calloc((size_t)threads, sizeof *t);
    if (!w || !t)
        return 1;
    shmc_barrier(world);
    double t0 = now();
    for (int i = 0; i < threads; i++) {
        w[i].tag = i;
        pthread_create(&t[i], NULL, run, &w[i]);
    }
    unsigned long trips = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(t[i], NULL);
        trips += w[i].trips;
        if (w[i].rc)
            fprintf(stderr, "thread_bench: thread %d: %s\n", i, shmc_strerror(w[i].rc));
    }
    double dt = now() - t0;
    if (me == 0)
        printf("%s,%d,%.0f,%.3f\n", shmc_thread_level() ? "multiple" : "serialized", threads,
               (double)trips / dt, trips ? dt * 1e6 * threads / (double)trips : 0.0);
    shmc_barrier(world);
    shmc_finalize();
    free(w);
    free(t);
    return 0;
}
