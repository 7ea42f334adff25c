/*
 * A job with one misbehaving rank, for the launcher tests.
 *   fail_rank exit CODE RANK      RANK exits with CODE without finalizing
 *   fail_rank signal SIG RANK     RANK raises SIG
 *   fail_rank abort CODE RANK     RANK calls shmc_abort(CODE)
 *   fail_rank compute CODE RANK   RANK exits with CODE; the others compute outside the
 *                                 library and never notice
 *   fail_rank ignore CODE RANK    like compute, and the others ignore SIGTERM
 * The other ranks wait for a message from RANK (except compute/ignore), print what the
 * library returned, and exit 0.
 */
#include <shmcomm.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: fail_rank exit|signal|abort|compute|ignore N RANK\n");
        return 2;
    }
    const char *mode = argv[1];
    int arg = atoi(argv[2]), bad = atoi(argv[3]);
    shmc_comm *w;
    int rc = shmc_init(&w);
    if (rc != SHMC_OK) {
        fprintf(stderr, "shmc_init: %s\n", shmc_strerror(rc));
        return 1;
    }
    int me = shmc_comm_rank(w);
    shmc_barrier(w);
    if (me == bad) {
        if (!strcmp(mode, "signal"))
            raise(arg);
        if (!strcmp(mode, "abort"))
            shmc_abort(arg);
        _exit(arg);
    }
    if (!strcmp(mode, "compute") || !strcmp(mode, "ignore")) {
        if (!strcmp(mode, "ignore"))
            signal(SIGTERM, SIG_IGN);
        volatile unsigned long x = 0;
        for (;;)
            x++;
    }
    int v;
    rc = shmc_recv(&v, 1, SHMC_INT32, bad, 0, w, NULL);
    printf("rank %d: recv from rank %d: %s\n", me, bad, shmc_strerror(rc));
    fflush(stdout);
    shmc_finalize();
    return 0;
}
