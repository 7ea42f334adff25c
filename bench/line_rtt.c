/*
 * The round trip of one cache line between two CPUs, with no shmcomm code: two processes,
 * each pinned to one of the first two CPUs this process may use, take turns storing a
 * counter into a shared line and waiting to see the other's store. Prints the nanoseconds
 * per round trip (the median of 9 batches).
 *
 *   build/bench/line_rtt [ROUND_TRIPS_PER_BATCH]
 *
 * Why: on a shared host the hypervisor may run the two vCPUs of this machine far apart
 * for minutes at a time, and then every message through shared memory pays for it
 * (docs/performance.md, "Machine", gives the usual readings).
 * bench/osu_compare.sh runs this before each run, so that a run made in such a spell can
 * be told from a slow runtime (and bench/osu_report.py leaves it out).
 */
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BATCHES 9

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* The k-th CPU this process may run on, or -1. */
static int nth_cpu(const cpu_set_t *set, int k)
{
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, set) && k-- == 0)
            return c;
    return -1;
}

static int pin(int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    return sched_setaffinity(0, sizeof s, &s);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 20000;
    cpu_set_t set;
    if (n <= 0 || sched_getaffinity(0, sizeof set, &set) != 0 || nth_cpu(&set, 1) < 0) {
        fprintf(stderr, "line_rtt: needs a positive count and two CPUs to run on\n");
        return 2;
    }
    /* Its own page: nothing else shares the line. */
    _Atomic long *line =
        mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (line == MAP_FAILED) {
        perror("line_rtt: mmap");
        return 1;
    }
    long total = n * BATCHES;
    pid_t pid = fork();
    if (pid < 0) {
        perror("line_rtt: fork");
        return 1;
    }
    if (pid == 0) {
        (void)pin(nth_cpu(&set, 1)); /* unpinned, the figure is only less telling */
        for (long i = 1; i <= total; i++) {
            while (atomic_load_explicit(line, memory_order_acquire) != 2 * i - 1)
                ;
            atomic_store_explicit(line, 2 * i, memory_order_release);
        }
        _exit(0);
    }
    if (pin(nth_cpu(&set, 0)) != 0) {
        perror("line_rtt: sched_setaffinity");
        kill(pid, SIGKILL);
        return 1;
    }
    double per[BATCHES];
    long i = 1;
    for (int b = 0; b < BATCHES; b++) {
        double t0 = now_ns();
        for (long k = 0; k < n; k++, i++) {
            atomic_store_explicit(line, 2 * i - 1, memory_order_release);
            for (unsigned long spins = 1; atomic_load_explicit(line, memory_order_acquire) != 2 * i;
                 spins++)
                if (!(spins & 0xfffffff) && waitpid(pid, NULL, WNOHANG) == pid) {
                    fprintf(stderr, "line_rtt: the other process ended early\n");
                    return 1;
                }
        }
        per[b] = (now_ns() - t0) / (double)n;
    }
    int st;
    waitpid(pid, &st, 0);
    qsort(per, BATCHES, sizeof per[0], cmp);
    printf("%.0f\n", per[BATCHES / 2]);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
