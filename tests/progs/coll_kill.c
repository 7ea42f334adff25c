/*
 * A member of a collective fails while the others are inside it; run under
 * shmrun --keep-going (or by a shell loop).
 *
 *   coll_kill COLL BYTES VICTIM DELAY_MS [MODE]
 *
 * Every rank calls collective COLL (barrier, bcast, reduce, allreduce, gather, allgather,
 * scatter, reduce_scatter, alltoall, split, create_group, or the nonblocking form of one of
 * the first nine, started and waited for: ibarrier, ibcast, ...) of BYTES per block in a loop,
 * with the root moving round, on the communicator `on` (the world, or, with MODE "sub",
 * a communicator of every rank in reverse order, which has no world rounds). DELAY_MS
 * after the start of the loop, rank VICTIM fails: with MODE "kill" (the default) or
 * "sub" a thread of it raises SIGKILL; with MODE "own" it leaves the collective on its
 * own, as a rank out of memory inside one would (its next call gets a receive buffer one
 * element short, so its part fails with SHMC_ERR_MISMATCH or SHMC_ERR_ARG), and goes on.
 * MODE "idle" is "kill" (and "subidle" is "sub") with the survivors staying out of the
 * library for COLL_KILL_IDLE_MS (default 1000) once they have their error: each must come
 * out of the collective by itself, not when another survivor calls again.
 *
 * Each survivor prints when it came out of the loop and with what:
 *   "fail R CALL CODE T"    T: CLOCK_MONOTONIC in ms (the victim printed "die T" or
 *                           "own T" when it failed)
 * and, in the idle modes, after the idle time:
 *   "back R T SEEN"         T: when it calls the library again; SEEN: when its watcher
 *                           thread saw the victim's process end (pidfd), or -1
 * then checks that it can go on without the victim: a barrier and an all-reduce on a
 * communicator of the others made before the loop, and a ring of messages among them:
 *   "rest R ok" or "rest R bad ..."
 * Every rank exits 0 having printed; a survivor that never returns is ended by
 * shmrun --timeout.
 */
#include <poll.h>
#include <pthread.h>
#include <shmcomm.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>


static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int delay_ms;
static volatile int own_fail; /* MODE own: the next call fails on this rank alone */

static void *killer(void *arg)
{
    (void)arg;
    struct timespec d = {delay_ms / 1000, (long)(delay_ms % 1000) * 1000000L};
    nanosleep(&d, NULL);
    printf("die %.3f\n", now_ms());
    fflush(stdout);
    raise(SIGKILL);
    return NULL;
}

/* When the victim's process ended, as any process of the machine can see it: its pidfd
 * becomes readable when it has exited (a zombie), after the kernel freed its memory. */
static volatile double seen_ms = -1;
static void *watcher(void *arg)
{
    pid_t pid = (pid_t)(intptr_t)arg;
    int fd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (fd >= 0) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        while (poll(&p, 1, -1) < 0)
            ;
        seen_ms = now_ms();
        close(fd);
        return NULL;
    }
    while (kill(pid, 0) == 0) /* no pidfd: look every millisecond */
        usleep(1000);
    seen_ms = now_ms();
    return NULL;
}

static void *spoiler(void *arg)
{
    (void)arg;
    struct timespec d = {delay_ms / 1000, (long)(delay_ms % 1000) * 1000000L};
    nanosleep(&d, NULL);
    own_fail = 1;
    return NULL;
}

/* A nonblocking call's outcome: its start's failure, or its wait's. */
static int waited(int rc, shmc_request **r)
{
    return rc != SHMC_OK ? rc : shmc_wait(r, NULL);
}

/* The nonblocking form of collective k (its name without the i), started and waited for;
 * -1 for a name that has none. */
static int nb_call(const char *k, int32_t *sbuf, int32_t *rbuf, size_t count, int root,
                   shmc_comm *c)
{
    shmc_request *r = NULL;
    if (!strcmp(k, "barrier"))
        return waited(shmc_ibarrier(c, &r), &r);
    if (!strcmp(k, "bcast"))
        return waited(shmc_ibroadcast(rbuf, count, SHMC_INT32, root, c, &r), &r);
    if (!strcmp(k, "reduce"))
        return waited(shmc_ireduce(sbuf, rbuf, count, SHMC_INT32, SHMC_SUM, root, c, &r), &r);
    if (!strcmp(k, "allreduce"))
        return waited(shmc_iallreduce(sbuf, rbuf, count, SHMC_INT32, SHMC_SUM, c, &r), &r);
    if (!strcmp(k, "gather"))
        return waited(shmc_igather(sbuf, rbuf, count, SHMC_INT32, root, c, &r), &r);
    if (!strcmp(k, "allgather"))
        return waited(shmc_iallgather(sbuf, rbuf, count, SHMC_INT32, c, &r), &r);
    if (!strcmp(k, "scatter"))
        return waited(shmc_iscatter(sbuf, rbuf, count, SHMC_INT32, root, c, &r), &r);
    if (!strcmp(k, "reduce_scatter"))
        return waited(shmc_ireduce_scatter(sbuf, rbuf, count, SHMC_INT32, SHMC_SUM, c, &r), &r);
    if (!strcmp(k, "alltoall"))
        return waited(shmc_ialltoall(sbuf, rbuf, count, SHMC_INT32, c, &r), &r);
    return -1;
}

/* One call of collective k with root `root`; rbuf holds n blocks of `count` int32. */
static int call(const char *k, int32_t *sbuf, int32_t *rbuf, size_t count, int root, shmc_comm *c,
                int n, int short_by)
{
    size_t rc_count = count - (size_t)short_by; /* a wrong count on this rank alone */
    int rc;
    if (k[0] == 'i' && (rc = nb_call(k + 1, sbuf, rbuf, rc_count, root, c)) != -1)
        return rc;
    if (!strcmp(k, "barrier"))
        return shmc_barrier(c);
    if (!strcmp(k, "bcast"))
        return shmc_broadcast(rbuf, rc_count, SHMC_INT32, root, c);
    if (!strcmp(k, "reduce"))
        return shmc_reduce(sbuf, rbuf, rc_count, SHMC_INT32, SHMC_SUM, root, c);
    if (!strcmp(k, "allreduce"))
        return shmc_allreduce(sbuf, rbuf, rc_count, SHMC_INT32, SHMC_SUM, c);
    if (!strcmp(k, "gather"))
        return shmc_gather(sbuf, rbuf, rc_count, SHMC_INT32, root, c);
    if (!strcmp(k, "allgather"))
        return shmc_allgather(sbuf, rbuf, rc_count, SHMC_INT32, c);
    if (!strcmp(k, "scatter"))
        return shmc_scatter(sbuf, rbuf, rc_count, SHMC_INT32, root, c);
    if (!strcmp(k, "reduce_scatter"))
        return shmc_reduce_scatter(sbuf, rbuf, rc_count, SHMC_INT32, SHMC_SUM, c);
    if (!strcmp(k, "alltoall"))
        return shmc_alltoall(sbuf, rbuf, rc_count, SHMC_INT32, c);
    if (!strcmp(k, "split") || !strcmp(k, "create_group")) {
        shmc_comm *sub = NULL;
        if (!strcmp(k, "split")) {
            rc = shmc_comm_split(c, short_by ? 1 : 0, n - root, &sub);
        } else {
            int *all = malloc((size_t)n * sizeof *all);
            for (int r = 0; r < n; r++)
                all[r] = (r + root) % n;
            rc = shmc_comm_create_group(c, all, n - short_by, &sub);
            free(all);
        }
        if (sub)
            shmc_comm_free(&sub);
        return rc;
    }
    fprintf(stderr, "coll_kill: unknown collective %s\n", k);
    exit(2);
}

/* Barrier, all-reduce and a ring of messages on `rest` (every rank but the victim). */
static void go_on(shmc_comm *rest, int me)
{
    int m = shmc_comm_rank(rest), k = shmc_comm_size(rest);
    int32_t v = m, sum = -1, got = -1;
    int rc = shmc_barrier(rest);
    if (rc == SHMC_OK)
        rc = shmc_allreduce(&v, &sum, 1, SHMC_INT32, SHMC_SUM, rest);
    if (rc == SHMC_OK)
        rc = shmc_sendrecv(&v, 1, (m + 1) % k, 5, &got, 1, (m + k - 1) % k, 5, SHMC_INT32, rest,
                           NULL);
    if (rc == SHMC_OK && sum == k * (k - 1) / 2 && got == (m + k - 1) % k)
        printf("rest %d ok\n", me);
    else
        printf("rest %d bad %s sum %d got %d\n", me, shmc_strerror(rc), (int)sum, (int)got);
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: coll_kill COLL BYTES VICTIM DELAY_MS [kill|sub|own]\n");
        return 2;
    }
    const char *k = argv[1], *mode = argc > 5 ? argv[5] : "kill";
    size_t count = strtoull(argv[2], NULL, 10) / 4;
    int victim = atoi(argv[3]);
    delay_ms = atoi(argv[4]);
    if (count < 2)
        count = 2;
    shmc_comm *w;
    int rc = shmc_init(&w);
    if (rc != SHMC_OK) {
        fprintf(stderr, "shmc_init: %s\n", shmc_strerror(rc));
        return 1;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    int me = shmc_comm_rank(w), n = shmc_comm_size(w);
    int32_t *sbuf = calloc(count * (size_t)n, 4), *rbuf = calloc(count * (size_t)n, 4);
    int *others = malloc((size_t)n * sizeof *others), no = 0;
    for (int r = 0; r < n; r++)
        if (r != victim)
            others[no++] = r;
    shmc_comm *rest = NULL, *on = w;
    rc = shmc_comm_create_group(w, others, no, &rest);
    if (rc == SHMC_OK && strstr(mode, "sub"))
        rc = shmc_comm_split(w, 0, n - me, &on);
    if (rc != SHMC_OK || !sbuf || !rbuf) {
        fprintf(stderr, "coll_kill: setup: %s\n", shmc_strerror(rc));
        return 1;
    }
    for (size_t i = 0; i < count * (size_t)n; i++)
        sbuf[i] = (int32_t)(i + (size_t)me);
    int own = !strcmp(mode, "own"), idle = strstr(mode, "idle") != NULL;
    /* Everyone learns the victim's pid, for the watcher. */
    int32_t pid = (int32_t)getpid();
    rc = shmc_broadcast(&pid, 1, SHMC_INT32, victim, w);
    if (rc == SHMC_OK && idle && me != victim) {
        pthread_t t;
        pthread_create(&t, NULL, watcher, (void *)(intptr_t)pid);
        pthread_detach(t);
    }
    if (rc == SHMC_OK)
        rc = shmc_barrier(w);
    if (rc != SHMC_OK) {
        fprintf(stderr, "coll_kill: setup: %s\n", shmc_strerror(rc));
        return 1;
    }
    if (me == victim) {
        pthread_t t;
        pthread_create(&t, NULL, own ? spoiler : killer, NULL);
        pthread_detach(t);
    }
    int i = 0;
    for (;; i++) {
        int short_by = own && me == victim && own_fail;
        if (short_by)
            printf("own %.3f\n", now_ms());
        rc = call(k, sbuf, rbuf, count, i % n, on, n, short_by);
        if (rc != SHMC_OK || short_by)
            break;
    }
    printf("fail %d %d %d %.3f\n", me, i, rc, now_ms());
    if (idle && me != victim) {
        const char *e = getenv("COLL_KILL_IDLE_MS");
        usleep((useconds_t)(e ? atoi(e) : 1000) * 1000); /* outside the library */
        printf("back %d %.3f %.3f\n", me, now_ms(), seen_ms);
    }
    if (me != victim)
        go_on(rest, me);
    else
        usleep(1000 * 1000); /* alive, outside the library, while the others finish */
    shmc_comm_free(&rest);
    if (on != w)
        shmc_comm_free(&on);
    shmc_finalize();
    free(sbuf);
    free(rbuf);
    free(others);
    return 0;
}
