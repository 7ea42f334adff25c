/*
 * The instruction cost of the small-message path, for valgrind's callgrind (which counts
 * instructions, so the figures repeat exactly from run to run, unlike timings here).
 *
 * Rank 0 sends N messages of 8 bytes to rank 1 with shmc_send. Rank 1 calls shmc_recv
 * for each only once the message is certainly in its mailbox: the two ranks keep in step
 * through a flag in a shared page of their own, outside the library, so no receive ever
 * waits and what callgrind counts in shmc_send and shmc_recv is the message path alone.
 *
 * With a collective's name (broadcast, reduce, allreduce, gather, scatter, allgather,
 * alltoall, reduce_scatter or barrier; 8 bytes a rank, int32 sum, root 0), the same for
 * its calls on the world: N nonblocking calls, then N blocking ones. A nonblocking call
 * is started by rank 0, then started and waited for by rank 1, then waited for by rank 0,
 * each step after the one before as the flag says, so that no call waits; a blocking call
 * is made by rank 1 only once rank 0 is inside its own (a sleep of SLEEP_US after rank 0
 * said it is about to call), so rank 1's call finds rank 0's part there and never waits
 * either (but for the calls in which rank 0 answers last, the blocking barrier's release:
 * its figure counts rank 1's polling too). Rank 1's figures of the two forms are then the
 * cost of the same call made by the rank that comes last.
 *
 *   shmrun -n 2 --bind-to none sh -c 'valgrind --tool=callgrind \
 *       --callgrind-out-file=cg.$SHMC_RANK build/bench/path_cost 10000 [COLL]'
 *   callgrind_annotate --inclusive=yes cg.0 | grep shmc_send
 *   callgrind_annotate --inclusive=yes cg.1 | grep shmc_recv
 *
 * With ROOT=1 in the environment, the rooted calls (broadcast, reduce, gather, scatter)
 * have rank 1, the one that comes last, as their root.
 *
 * With COUNT=N in the environment, N elements a block (2N for the calls of one vector);
 * their buffers are then a mapping's, as with MMAP=1.
 *
 * With ALT=1 in the environment, the collective's calls alternate between that count and
 * twice it (the odd ones), as a program that makes calls of two sizes does.
 *
 * With MMAP=1 in the environment, the collectives' buffers lie in a mapping of their own
 * (as a large malloc's or OSU's page-aligned buffers do) rather than in the executable's
 * image, where the test of a buffer's memory kind has its cheapest answer.
 *
 * With SPLIT set in the environment, the collective's calls are made on a communicator
 * split from the world (the same two ranks), whose nonblocking calls run as schedules of
 * messages (coll/sched.c).
 *
 * Divide by N for instructions per call (bench/path_cost.sh does).
 */
#include <shmcomm.h>

#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Rank 1's sleep before its blocking call: long enough, under valgrind, for rank 0 to
 * have entered its own. */
#define SLEEP_US 3000

static void await(_Atomic long *step, long v)
{
    while (atomic_load(step) != v)
        sched_yield();
}

static const char *const colls[] = {"broadcast", "reduce",   "allreduce",      "gather",  "scatter",
                                    "allgather", "alltoall", "reduce_scatter", "barrier", NULL};

/* The rooted calls' root: 0, or 1 with ROOT=1 in the environment (then the rank that
 * comes last is the root, whose part sets the pace of calls made back to back). */
static int root;

/* Collective k on 8 bytes a rank (two int32 elements, one each for the block calls):
 * nonblocking (its request in *r) or blocking (r NULL). */
static int32_t *s, *d;
static size_t cnt = 1; /* elements per block (COUNT); a vector call's are 2 * cnt */
static size_t cnt0;    /* COUNT's, where cnt alternates between it and twice it (ALT) */

static int call(int k, shmc_comm *w, shmc_request **r)
{
    switch (k) {
    case 0:
        return r ? shmc_ibroadcast(d, 2 * cnt, SHMC_INT32, root, w, r)
                 : shmc_broadcast(d, 2 * cnt, SHMC_INT32, root, w);
    case 1:
        return r ? shmc_ireduce(s, d, 2 * cnt, SHMC_INT32, SHMC_SUM, root, w, r)
                 : shmc_reduce(s, d, 2 * cnt, SHMC_INT32, SHMC_SUM, root, w);
    case 2:
        return r ? shmc_iallreduce(s, d, 2 * cnt, SHMC_INT32, SHMC_SUM, w, r)
                 : shmc_allreduce(s, d, 2 * cnt, SHMC_INT32, SHMC_SUM, w);
    case 3:
        return r ? shmc_igather(s, d, cnt, SHMC_INT32, root, w, r)
                 : shmc_gather(s, d, cnt, SHMC_INT32, root, w);
    case 4:
        return r ? shmc_iscatter(s, d, cnt, SHMC_INT32, root, w, r)
                 : shmc_scatter(s, d, cnt, SHMC_INT32, root, w);
    case 5:
        return r ? shmc_iallgather(s, d, cnt, SHMC_INT32, w, r)
                 : shmc_allgather(s, d, cnt, SHMC_INT32, w);
    case 6:
        return r ? shmc_ialltoall(s, d, cnt, SHMC_INT32, w, r)
                 : shmc_alltoall(s, d, cnt, SHMC_INT32, w);
    case 7:
        return r ? shmc_ireduce_scatter(s, d, cnt, SHMC_INT32, SHMC_SUM, w, r)
                 : shmc_reduce_scatter(s, d, cnt, SHMC_INT32, SHMC_SUM, w);
    default:
        return r ? shmc_ibarrier(w, r) : shmc_barrier(w);
    }
}

/* N nonblocking calls of collective k, then N blocking ones, in the steps above. */
static void collective(int k, shmc_comm *w, int me, long n, _Atomic long *step)
{
    for (long i = 0; i < n; i++) {
        shmc_request *r = NULL;
        if (cnt0)
            cnt = i & 1 ? 2 * cnt0 : cnt0;
        if (me == 0) {
            await(step, 3 * i);
            call(k, w, &r);
            atomic_store(step, 3 * i + 1);
            await(step, 3 * i + 2);
            shmc_wait(&r, NULL);
            atomic_store(step, 3 * i + 3);
        } else {
            await(step, 3 * i + 1);
            call(k, w, &r);
            shmc_wait(&r, NULL);
            atomic_store(step, 3 * i + 2);
        }
    }
    for (long i = 0; i < n; i++) {
        if (cnt0)
            cnt = i & 1 ? 2 * cnt0 : cnt0;
        await(step, 3 * n + 2 * i + me);
        if (me == 0) {
            atomic_store(step, 3 * n + 2 * i + 1);
            call(k, w, NULL);
        } else {
            usleep(SLEEP_US);
            call(k, w, NULL);
            atomic_store(step, 3 * n + 2 * i + 2);
        }
    }
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10000;
    int k = -1;
    for (int i = 0; argc > 2 && colls[i]; i++)
        if (!strcmp(argv[2], colls[i]))
            k = i;
    if (argc > 2 && k < 0) {
        fprintf(stderr, "path_cost: no collective named %s\n", argv[2]);
        return 2;
    }
    static int32_t image[8];
    const char *m = getenv("MMAP"), *c = getenv("COUNT");
    if (c && atol(c) > 0)
        cnt = (size_t)atol(c);
    s = image;
    if ((m && *m == '1') || cnt > 1) {
        s = mmap(NULL, 8 * cnt * sizeof *s, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                 -1, 0);
        if (s == MAP_FAILED)
            return 1;
    }
    d = s + 4 * cnt;
    const char *alt = getenv("ALT");
    if (alt && *alt == '1')
        cnt0 = cnt; /* (twice it fits: a vector call of 4 * cnt0 elements in each buffer) */
    shmc_comm *w;
    if (shmc_init(&w) != SHMC_OK || shmc_comm_size(w) != 2) {
        fprintf(stderr, "run with: shmrun -n 2 %s [N]\n", argv[0]);
        return 2;
    }
    int me = shmc_comm_rank(w);
    char name[64];
    if (me == 0)
        snprintf(name, sizeof name, "/shmc-%u-cost-%d", (unsigned)geteuid(), (int)getpid());
    /* Set-up traffic goes through calls we do not count (isend/irecv/waitall): this
     * receive waits for rank 0 for as long as it takes, and its polling would blur the
     * figures. */
    shmc_request *r;
    if (me == 0)
        shmc_isend(name, sizeof name, SHMC_UINT8, 1, 0, w, &r);
    else
        shmc_irecv(name, sizeof name, SHMC_UINT8, 0, 0, w, &r);
    shmc_waitall(1, &r, NULL);
    int fd = shm_open(name, O_RDWR | O_CREAT, 0600);
    if (fd < 0 || ftruncate(fd, 4096) != 0)
        return 1;
    _Atomic long *step = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    /* Both have it open (a message each way) before rank 0 unlinks it. */
    char ok = 1;
    if (me == 0)
        shmc_irecv(&ok, 1, SHMC_UINT8, 1, 0, w, &r);
    else
        shmc_isend(&ok, 1, SHMC_UINT8, 0, 0, w, &r);
    shmc_waitall(1, &r, NULL);
    if (me == 0)
        shm_unlink(name);

    char b[8] = {0};
    for (long i = 0; k < 0 && i < n; i++) {
        if (me == 0) {
            /* Wait until rank 1 took message i-1, so the ring never fills. */
            while (atomic_load(step) != 2 * i)
                sched_yield();
            shmc_send(b, 8, SHMC_UINT8, 1, 1, w);
            atomic_store(step, 2 * i + 1);
        } else {
            while (atomic_load(step) != 2 * i + 1)
                sched_yield();
            shmc_recv(b, 8, SHMC_UINT8, 0, 1, w, NULL);
            atomic_store(step, 2 * i + 2);
        }
    }
    /* SPLIT set: on a communicator split from the world, whose nonblocking calls are
     * schedules of messages (the world's have algorithms of their own). */
    shmc_comm *on = w;
    const char *r1 = getenv("ROOT");
    root = r1 && !strcmp(r1, "1");
    if (k >= 0 && getenv("SPLIT") && shmc_comm_split(w, 0, me, &on) != SHMC_OK)
        return 1;
    if (k >= 0)
        collective(k, on, me, n, step);
    if (on != w)
        shmc_comm_free(&on);
    munmap((void *)step, 4096);
    shmc_finalize();
    return 0;
}
