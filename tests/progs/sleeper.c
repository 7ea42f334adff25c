/*
 * A job that never ends by itself, for the launcher tests. Each rank prints
 * "ready RANK PID" once every rank has joined, then waits forever: inside the library
 * ("sleeper lib", a receive nobody sends) or outside it ("sleeper pause"); or, with
 * "sleeper sendsend BYTES", each rank sends BYTES to the next before receiving from the
 * previous, which deadlocks once BYTES is above the eager limit (the hang report's test);
 * or, with "sleeper stop R", rank R stops itself (SIGSTOP) and the others wait for it in a
 * barrier (a stopped rank must be named, and SHMC_TIMEOUT must fire without it); or, with
 * "sleeper mixed", rank 0 makes the nonblocking all-reduce of 4 int32 and waits for it
 * while the others make the blocking one, which never match (the report names both calls);
 * "sleeper mixed 2": rank 0 starts a nonblocking barrier after it and waits for both.
 */
#include <shmcomm.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    shmc_comm *w;
    int rc = shmc_init(&w);
    if (rc != SHMC_OK) {
        fprintf(stderr, "shmc_init: %s\n", shmc_strerror(rc));
        return 1;
    }
    int me = shmc_comm_rank(w), n = shmc_comm_size(w);
    shmc_barrier(w);
    printf("ready %d %d\n", me, (int)getpid());
    fflush(stdout);
    if (argc > 1 && !strcmp(argv[1], "pause")) {
        for (;;)
            pause();
    }
    if (argc > 2 && !strcmp(argv[1], "sendsend")) {
        size_t bytes = strtoull(argv[2], NULL, 0);
        char *buf = calloc(bytes ? bytes : 1, 1);
        if (!buf)
            return 1;
        rc = shmc_send(buf, bytes, SHMC_UINT8, (me + 1) % n, 5, w);
        if (rc == SHMC_OK)
            rc = shmc_recv(buf, bytes, SHMC_UINT8, (me + n - 1) % n, 5, w, NULL);
        printf("rank %d: %s\n", me, shmc_strerror(rc));
        return 3;
    }
    if (argc > 2 && !strcmp(argv[1], "stop")) {
        if (me == atoi(argv[2]))
            raise(SIGSTOP);
        rc = shmc_barrier(w);
        printf("rank %d: %s\n", me, shmc_strerror(rc));
        return 3;
    }
    if (argc > 1 && !strcmp(argv[1], "mixed")) {
        int32_t in[4] = {1, 2, 3, 4}, out[4];
        if (me == 0) {
            shmc_request *r[2] = {NULL, NULL};
            int two = argc > 2 && !strcmp(argv[2], "2");
            rc = shmc_iallreduce(in, out, 4, SHMC_INT32, SHMC_SUM, w, &r[0]);
            if (rc == SHMC_OK && two)
                rc = shmc_ibarrier(w, &r[1]);
            if (rc == SHMC_OK)
                rc = two ? shmc_waitall(2, r, NULL) : shmc_wait(&r[0], NULL);
        } else {
            rc = shmc_allreduce(in, out, 4, SHMC_INT32, SHMC_SUM, w);
        }
        printf("rank %d: %s\n", me, shmc_strerror(rc));
        return 3;
    }
    int v;
    rc = shmc_recv(&v, 1, SHMC_INT32, (me + 1) % n, 99, w, NULL);
    printf("rank %d: %s\n", me, shmc_strerror(rc));
    return 3;
}
