/*
 * A job whose shared memory is overwritten while it works, as a careless or hostile
 * process of the same user would do it.
 *
 *   scribble REGION SECONDS [SEED [world]]
 *
 * The last rank is the scribbler: once the others have made a communicator of their own,
 * it finds the job's arena among its own mappings (/proc/self/maps: the arena is mapped
 * shared, so what it writes there every rank sees) and for SECONDS writes random bytes
 * (or zeros) over REGION, then leaves without shmc_finalize:
 *   header  the first page (the header)          cbs    every rank's control block
 *   rings   every mailbox, index lines and data  slots  the collective slots
 *   wsync   the world-sync blocks                xdesc  the copy descriptors
 *   entries the communicators' slot entries      all    anywhere in the arena
 *   zero    the whole arena, zeros, once a pass
 * The other ranks meanwhile exchange messages of 64 B and 1 MiB with their neighbours and
 * run all-reduce, broadcast and barrier on their communicator, and the nonblocking
 * broadcast, reduce, all-reduce and reduce-scatter that go through its slot entry (two of
 * them in flight at once), for SECONDS and half a second more. Every call must return SHMC_OK or an
 * error that says what happened (SHMC_ERR_CORRUPT, _PEER_DEAD, _ARG, _TRUNCATE, _MISMATCH,
 * _ABORTED); a crash, a hang or any other code fails the test that runs this
 * (tests/robustness/check_scribble.c). With `world`, a child that rank 0 forks once every rank has
 * joined scribbles instead (it inherits the arena's shared mapping and calls nothing of the
 * library), so that every rank works on the world, whose own shared-memory rounds and nonblocking
 * lane the split communicator never uses: messages to the neighbours, the blocking all-reduce and
 * barrier, and nonblocking all-reduce, all-gather, barrier, broadcast and gather, two of
 * them in flight at once.
 * Data is not checked: garbage that happens to form a valid record is delivered as one.
 * Each worker prints "rank R: CALLS calls, ERRORS errors" and exits 0, or 2 on an
 * unexpected code, or 3 once the job was aborted.
 */
#include <shmcomm.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "shm/arena.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t next_random(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* The arena among this process's mappings: a shared mapping whose first word is the
 * arena's magic number. */
static uint8_t *find_arena(size_t *size)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    uint8_t *found = NULL;
    while (f && !found && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 || perms[3] != 's' ||
            perms[0] != 'r' || perms[1] != 'w' || hi - lo < 4096)
            continue;
        const struct shmc__arena_hdr *h = (const void *)(uintptr_t)lo;
        if (shmc__load_relaxed64(&h->magic) == SHMC_ARENA_MAGIC) {
            found = (uint8_t *)(uintptr_t)lo;
            *size = hi - lo;
        }
    }
    if (f)
        fclose(f);
    return found;
}

struct region {
    size_t off, len;
};

/* Where REGION lies, from the layout the header announced before we touched it. */
static int region_of(const char *name, const uint8_t *base, size_t size, struct region *r)
{
    const struct shmc__arena_hdr *h = (const void *)base;
    struct shmc__layout l;
    if (shmc__arena_layout(h->nranks, h->ring_bytes, &l) != SHMC_OK)
        return -1;
    r->off = 0;
    r->len = size;
    if (!strcmp(name, "header"))
        r->len = 4096;
    else if (!strcmp(name, "cbs"))
        *r = (struct region){l.cb_off, l.nranks * l.cb_stride};
    else if (!strcmp(name, "rings"))
        *r = (struct region){l.ring_off, (size_t)l.nranks * (l.nranks - 1) * l.ring_stride};
    else if (!strcmp(name, "slots"))
        *r = (struct region){l.coll_off, SHMC_LANES * l.nranks * l.coll_stride};
    else if (!strcmp(name, "wsync"))
        *r = (struct region){l.wsync_off, l.wsync_bytes};
    else if (!strcmp(name, "xdesc"))
        *r = (struct region){l.xdesc_off, l.nranks * l.xdesc_stride};
    else if (!strcmp(name, "entries"))
        *r = (struct region){l.entry_off, l.nranks * SHMC_SLOT_ENTRIES * l.coll_stride};
    else if (strcmp(name, "all") && strcmp(name, "zero"))
        return -1;
    return r->off + r->len <= size ? 0 : -1;
}

static void scribbler(const char *name, double seconds, uint64_t seed)
{
    size_t size = 0;
    uint8_t *base = find_arena(&size);
    struct region r;
    if (!base || region_of(name, base, size, &r) != 0) {
        fprintf(stderr, "scribble: no arena, or no region '%s'\n", name);
        _exit(2);
    }
    int zero = !strcmp(name, "zero");
    double end = now_s() + seconds;
    unsigned long passes = 0;
    while (now_s() < end) {
        if (zero) {
            memset(base, 0, size);
        } else {
            /* A few hundred random runs of 1 to 64 bytes anywhere in the region. */
            for (int k = 0; k < 256; k++) {
                size_t len = 1 + next_random(&seed) % 64;
                size_t at = r.off + next_random(&seed) % (r.len > len ? r.len - len : 1);
                for (size_t i = 0; i < len && at + i < size; i++)
                    base[at + i] = (uint8_t)next_random(&seed);
            }
        }
        passes++;
        usleep(1000);
    }
    printf("scribbler: %lu passes over %s\n", passes, name);
    fflush(stdout);
    _exit(0);
}

static int expected(int rc)
{
    return rc == SHMC_OK || rc == SHMC_ERR_CORRUPT || rc == SHMC_ERR_PEER_DEAD ||
           rc == SHMC_ERR_ARG || rc == SHMC_ERR_TRUNCATE || rc == SHMC_ERR_MISMATCH ||
           rc == SHMC_ERR_ABORTED;
}

/* Counts the outcomes of a round of ncalls calls, rc[k] call k's, up to the one that ends the
 * worker's loop (*status set: 2 an unexpected error, 3 the job aborted). */
static void tally(int me, const int *rc, int ncalls, unsigned long *calls, unsigned long *errors,
                  int *first, int *status)
{
    for (int k = 0; k < ncalls && *status == 0; k++) {
        (*calls)++;
        if (rc[k] == SHMC_OK)
            continue;
        (*errors)++;
        if (*first == SHMC_OK)
            *first = rc[k];
        if (!expected(rc[k])) {
            fprintf(stderr, "rank %d: call %d returned unexpected %d (%s)\n", me, k, rc[k],
                    shmc_strerror(rc[k]));
            *status = 2;
        } else if (rc[k] == SHMC_ERR_ABORTED) {
            *status = 3;
        }
    }
}

/* The nonblocking call started as rc, *r its request, waited for at once. */
static int waited(int rc, shmc_request **r)
{
    return rc != SHMC_OK ? rc : shmc_wait(r, NULL);
}

/* The world's workload (`world`): every rank, while rank 0's child scribbles. */
static int world_work(shmc_comm *w, double seconds, unsigned long *calls, unsigned long *errors,
                      int *first)
{
    int me = shmc_comm_rank(w), n = shmc_comm_size(w), status = 0;
    int right = (me + 1) % n, left = (me + n - 1) % n;
    size_t big = 65536;
    uint8_t *sb = calloc(big * (size_t)n, 1), *rb = calloc(big * (size_t)n, 1);
    int32_t v[4] = {1, 2, 3, 4}, s[4], s2[4];
    double end = now_s() + seconds + 0.5;
    while (sb && rb && now_s() < end && status == 0) {
        shmc_request *r[2] = {NULL, NULL};
        int rc[9];
        rc[0] = shmc_sendrecv(sb, 64, right, 1, rb, 64, left, 1, SHMC_UINT8, w, NULL);
        rc[1] = shmc_allreduce(v, s, 4, SHMC_INT32, SHMC_SUM, w);
        rc[2] = waited(shmc_iallreduce(v, s, 4, SHMC_INT32, SHMC_SUM, w, &r[0]), &r[0]);
        rc[3] = waited(shmc_iallgather(sb, rb, 64, SHMC_UINT8, w, &r[0]), &r[0]);
        rc[4] = waited(shmc_ibarrier(w, &r[0]), &r[0]);
        rc[5] = waited(shmc_ibroadcast(rb, big, SHMC_UINT8, 0, w, &r[0]), &r[0]);
        rc[6] = waited(shmc_igather(sb, rb, 16, SHMC_UINT8, n - 1, w, &r[0]), &r[0]);
        /* Two in flight: the lane's queue. */
        rc[7] = shmc_iallreduce(v, s2, 4, SHMC_INT32, SHMC_SUM, w, &r[0]);
        if (rc[7] == SHMC_OK && (rc[7] = shmc_ibarrier(w, &r[1])) == SHMC_OK)
            rc[7] = shmc_waitall(2, r, NULL);
        else if (r[0])
            shmc_wait(&r[0], NULL);
        rc[8] = shmc_barrier(w);
        tally(me, rc, 9, calls, errors, first, &status);
    }
    free(sb);
    free(rb);
    return status;
}

/* The split communicator's workload: the workers, while the last rank scribbles. */
static int split_work(shmc_comm *mine, int me, double seconds, unsigned long *calls,
                      unsigned long *errors, int *first)
{
    int wr = shmc_comm_rank(mine), wn = shmc_comm_size(mine), status = 0;
    int right = (wr + 1) % wn, left = (wr + wn - 1) % wn;
    size_t big = 1u << 20;
    uint8_t *sb = calloc(big, 1), *rb = calloc(big, 1);
    int32_t v[4] = {1, 2, 3, 4}, s[4];
    /* (sizes the slot entry takes: past 8 KiB in all, an all-reduce up to 16 KiB) */
    size_t mid = 12288;
    double end = now_s() + seconds + 0.5;
    while (sb && rb && now_s() < end && status == 0) {
        shmc_request *r[2] = {NULL, NULL};
        int rc[9];
        rc[0] = shmc_sendrecv(sb, 64, right, 1, rb, 64, left, 1, SHMC_UINT8, mine, NULL);
        rc[1] = shmc_sendrecv(sb, big, right, 2, rb, big, left, 2, SHMC_UINT8, mine, NULL);
        rc[2] = shmc_allreduce(v, s, 4, SHMC_INT32, SHMC_SUM, mine);
        rc[3] = shmc_broadcast(rb, 65536, SHMC_UINT8, 0, mine);
        rc[4] = shmc_barrier(mine);
        rc[5] = waited(shmc_ibroadcast(rb, mid, SHMC_UINT8, 0, mine, &r[0]), &r[0]);
        rc[6] =
            waited(shmc_ireduce(sb, rb, mid / 4, SHMC_INT32, SHMC_SUM, wn - 1, mine, &r[0]), &r[0]);
        rc[7] = waited(
            shmc_ireduce_scatter(sb, rb, mid / 4 / (size_t)wn, SHMC_INT32, SHMC_SUM, mine, &r[0]),
            &r[0]);
        /* Two in flight: the entry's queue. */
        rc[8] = shmc_iallreduce(sb, rb, mid / 4, SHMC_INT32, SHMC_SUM, mine, &r[0]);
        if (rc[8] == SHMC_OK &&
            (rc[8] = shmc_ibroadcast(sb + big / 2, mid, SHMC_UINT8, 1, mine, &r[1])) == SHMC_OK)
            rc[8] = shmc_waitall(2, r, NULL);
        else if (r[0])
            shmc_wait(&r[0], NULL);
        tally(me, rc, 9, calls, errors, first, &status);
    }
    free(sb);
    free(rb);
    return status;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: scribble REGION SECONDS [SEED [world]]\n");
        return 2;
    }
    double seconds = atof(argv[2]);
    uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 0) : 0x9e3779b97f4a7c15ull;
    int on_world = argc > 4 && !strcmp(argv[4], "world");
    shmc_comm *world, *mine = NULL;
    if (shmc_init(&world) != SHMC_OK)
        return 2;
    int me = shmc_comm_rank(world), n = shmc_comm_size(world), status;
    unsigned long calls = 0, errors = 0;
    int first = SHMC_OK;
    pid_t child = -1;
    if (on_world) {
        /* (every rank attached before the scribbling starts, as the split ensures below) */
        if (shmc_barrier(world) != SHMC_OK)
            return 2;
        if (me == 0 && (child = fork()) == 0)
            scribbler(argv[1], seconds, seed);
        status = world_work(world, seconds, &calls, &errors, &first);
    } else {
        int bad = n - 1;
        if (shmc_comm_split(world, me == bad ? -1 : 0, me, &mine) != SHMC_OK)
            return 2;
        if (me == bad)
            scribbler(argv[1], seconds, seed ^ (uint64_t)me);
        status = split_work(mine, me, seconds, &calls, &errors, &first);
    }
    printf("rank %d: %lu calls, %lu errors", me, calls, errors);
    if (first)
        printf(" (first: %s)", shmc_strerror(first));
    printf("\n");
    fflush(stdout);
    shmc_finalize();
    if (child > 0)
        waitpid(child, NULL, 0);
    return status;
}
