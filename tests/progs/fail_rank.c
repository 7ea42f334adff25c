/*
 * A job with one misbehaving rank, for the launcher tests.
 *   fail_rank exit CODE RANK      RANK exits with CODE without finalizing
 *   fail_rank signal SIG RANK     RANK raises SIG
 *   fail_rank abort CODE RANK     RANK calls shmc_abort(CODE)
 *   fail_rank compute CODE RANK   RANK exits with CODE; the others compute outside the
 *                                 library and never notice
 *   fail_rank ignore CODE RANK    like compute, and the others ignore SIGTERM
 *   fail_rank survive CODE RANK   RANK exits with CODE; the others (run under
 *                                 shmrun --keep-going) go on: see survive() below
 *   fail_rank abortlate CODE RANK RANK calls shmc_abort(CODE) but takes 300 ms to exit
 *                                 after it set the abort word; the others exit 3 as
 *                                 soon as they see it, so shmrun reaps them first
 *   fail_rank finalized CODE RANK every rank finalizes; then RANK exits with CODE at
 *                                 once and the others 300 ms later, with 0
 * The other ranks wait for a message from RANK (except compute/ignore), print what the
 * library returned, and exit 0.
 */
#include <shmcomm.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* abortlate: shmc_abort's _exit resolves to this one (the library is linked
 * statically), which lingers first, as a rank descheduled or slow to exit would. */
static int linger;

void _exit(int status)
{
    if (linger)
        usleep(300 * 1000);
    syscall(SYS_exit_group, status);
    for (;;)
        ;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* After RANK died: a receive from it, a send to it, the collectives on the world (which
 * include it) fail with SHMC_ERR_PEER_DEAD; a ring exchange among the survivors, and a
 * barrier and an all-reduce on `rest` (the survivors' communicator, made while everyone
 * lived) still work. Each line says what returned; the first, how long it took (RANK
 * dies 200 ms after the start, or FAIL_RANK_DELAY_MS, so the time above that is how
 * long the death took to reach a rank blocked on it). */
static void survive(shmc_comm *w, shmc_comm *rest, int me, int n, int bad)
{
    int v = me, got = -1;
    double t0 = now_ms();
    int rc = shmc_recv(&got, 1, SHMC_INT32, bad, 0, w, NULL);
    printf("rank %d: recv from dead: %s (%.0f ms)\n", me, shmc_strerror(rc), now_ms() - t0);
    rc = shmc_send(&v, 1, SHMC_INT32, bad, 0, w);
    printf("rank %d: send to dead: %s\n", me, shmc_strerror(rc));
    int *alive = malloc((size_t)n * sizeof *alive), na = 0, mine = -1;
    for (int r = 0; r < n; r++)
        if (r != bad) {
            if (r == me)
                mine = na;
            alive[na++] = r;
        }
    int right = alive[(mine + 1) % na], left = alive[(mine + na - 1) % na];
    rc = shmc_sendrecv(&v, 1, right, 1, &got, 1, left, 1, SHMC_INT32, w, NULL);
    printf("rank %d: ring among survivors: %s, got %d (want %d)\n", me, shmc_strerror(rc), got,
           left);
    t0 = now_ms();
    rc = shmc_barrier(w);
    printf("rank %d: barrier on the world: %s (%.0f ms)\n", me, shmc_strerror(rc), now_ms() - t0);
    int sum = 0;
    rc = shmc_allreduce(&v, &sum, 1, SHMC_INT32, SHMC_SUM, w);
    printf("rank %d: allreduce on the world: %s\n", me, shmc_strerror(rc));
    rc = shmc_barrier(rest);
    printf("rank %d: barrier among survivors: %s\n", me, shmc_strerror(rc));
    rc = shmc_allreduce(&v, &sum, 1, SHMC_INT32, SHMC_SUM, rest);
    printf("rank %d: allreduce among survivors: %s, sum %d (want %d)\n", me, shmc_strerror(rc), sum,
           n * (n - 1) / 2 - bad);
    shmc_comm_free(&rest);
    free(alive);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr,
                "usage: fail_rank exit|signal|abort|abortlate|compute|ignore|survive|finalized "
                "N RANK\n");
        return 2;
    }
    const char *mode = argv[1];
    int arg = atoi(argv[2]), bad = atoi(argv[3]);
    /* Before anything else: SIGTERM may come as soon as the failing rank is gone. (The
     * failing rank ends by itself.) */
    if (!strcmp(mode, "ignore"))
        signal(SIGTERM, SIG_IGN);
    shmc_comm *w;
    int rc = shmc_init(&w);
    if (rc != SHMC_OK) {
        fprintf(stderr, "shmc_init: %s\n", shmc_strerror(rc));
        return 1;
    }
    int me = shmc_comm_rank(w), n = shmc_comm_size(w);
    shmc_comm *rest = NULL;
    if (!strcmp(mode, "survive")) {
        int ranks[256], k = 0;
        for (int r = 0; r < n && k < 256; r++)
            if (r != bad)
                ranks[k++] = r;
        if ((rc = shmc_comm_create_group(w, ranks, k, &rest)) != SHMC_OK) {
            fprintf(stderr, "shmc_comm_create_group: %s\n", shmc_strerror(rc));
            return 1;
        }
    }
    shmc_barrier(w);
    if (!strcmp(mode, "finalized")) {
        shmc_finalize();
        if (me != bad)
            usleep(300 * 1000);
        return me == bad ? arg : 0;
    }
    if (me == bad) {
        if (!strcmp(mode, "survive")) /* the others are blocked on it when it dies */
            usleep(getenv("FAIL_RANK_DELAY_MS")
                       ? 1000u * (unsigned)atoi(getenv("FAIL_RANK_DELAY_MS"))
                       : 200000u);
        if (!strcmp(mode, "signal"))
            raise(arg);
        linger = !strcmp(mode, "abortlate");
        if (!strcmp(mode, "abort") || linger)
            shmc_abort(arg);
        _exit(arg);
    }
    if (!strcmp(mode, "survive")) {
        survive(w, rest, me, n, bad);
        fflush(stdout);
        shmc_finalize();
        return 0;
    }
    if (!strcmp(mode, "compute") || !strcmp(mode, "ignore")) {
        volatile unsigned long x = 0;
        for (;;)
            x++;
    }
    int v;
    rc = shmc_recv(&v, 1, SHMC_INT32, bad, 0, w, NULL);
    printf("rank %d: recv from rank %d: %s\n", me, bad, shmc_strerror(rc));
    fflush(stdout);
    shmc_finalize();
    return !strcmp(mode, "abortlate") ? 3 : 0;
}
