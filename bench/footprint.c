/*
 * What a job of N ranks costs in memory: the shared memory the machine gives the job
 * (the rise of Shmem in /proc/meminfo, which counts memory files and /dev/shm alike) and
 * each rank's own memory (RssAnon in /proc/self/status), after shmc_init and a barrier,
 * then again after a 1 MiB all-reduce (the first large all-reduce reserves the staging
 * buffers of the world; docs/design.md, "Memory formula").
 *
 *   SHMEM_BEFORE_KB=$(awk '/^Shmem:/ {print $2}' /proc/meminfo) \
 *       shmrun -n N build/bench/footprint
 *
 * bench/footprint.sh does that for 2 to 256 ranks. Prints, from rank 0:
 *   ranks N arena_bytes B shmem_kib_init K1 rss_anon_kib_mean_init A1 shmem_kib_ar K2
 *   rss_anon_kib_mean_ar A2
 * where arena_bytes is the arena's reserved size as the library computes it (shmc_stat
 * "arena_bytes") and shmem_kib the rise of Shmem since SHMEM_BEFORE_KB (other programs'
 * shared memory moves it too: run it on a quiet machine).
 */
#include <shmcomm.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* The value of "Name:" in a /proc file, in kiB, or 0. */
static uint64_t proc_kib(const char *path, const char *name)
{
    FILE *f = fopen(path, "r");
    char line[256];
    uint64_t v = 0;
    size_t n = strlen(name);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, name, n) && line[n] == ':') {
            v = strtoull(line + n + 1, NULL, 10);
            break;
        }
    if (f)
        fclose(f);
    return v;
}

/* Rank 0's view of the machine's shared memory and the ranks' mean private memory. */
static void sample(shmc_comm *w, int me, int n, uint64_t before, uint64_t out[2])
{
    uint64_t mine = proc_kib("/proc/self/status", "RssAnon"), sum = 0;
    CHECK(shmc_allreduce(&mine, &sum, 1, SHMC_UINT64, SHMC_SUM, w));
    uint64_t shmem = proc_kib("/proc/meminfo", "Shmem");
    out[0] = me == 0 && shmem > before ? shmem - before : 0;
    out[1] = sum / (uint64_t)n;
    CHECK(shmc_barrier(w)); /* nobody goes on to the next step while rank 0 reads */
}

int main(void)
{
    shmc_comm *w;
    CHECK(shmc_init(&w));
    int me = shmc_comm_rank(w), n = shmc_comm_size(w);
    const char *b = getenv("SHMEM_BEFORE_KB");
    uint64_t before = b ? strtoull(b, NULL, 10) : 0, init[2], ar[2], arena = 0;
    CHECK(shmc_stat("arena_bytes", &arena));
    CHECK(shmc_barrier(w));
    sample(w, me, n, before, init);
    size_t count = (1u << 20) / sizeof(float);
    float *x = calloc(count, sizeof *x), *y = calloc(count, sizeof *y);
    if (!x || !y)
        return 1;
    CHECK(shmc_allreduce(x, y, count, SHMC_FLOAT32, SHMC_SUM, w));
    sample(w, me, n, before, ar);
    if (me == 0)
        printf("ranks %d arena_bytes %llu shmem_kib_init %llu rss_anon_kib_mean_init %llu "
               "shmem_kib_ar %llu rss_anon_kib_mean_ar %llu\n",
               n, (unsigned long long)arena, (unsigned long long)init[0],
               (unsigned long long)init[1], (unsigned long long)ar[0], (unsigned long long)ar[1]);
    free(x);
    free(y);
    CHECK(shmc_finalize());
    return 0;
}
