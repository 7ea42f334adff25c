/*
 * Overlapping computation with communication: each rank starts sending a 16 MiB tensor
 * to its right neighbour and receiving one from its left, then computes on its own data
 * while the transfer proceeds, calling shmc_test between blocks of work so the library
 * can move data (progress happens inside shmcomm calls). It then waits, and checks both
 * the received tensor and its computation.
 *
 *   shmrun -n 2 build/examples/overlap
 */
#include "example.h"

#define N (4 * 1024 * 1024)
#define BLOCK 65536

int main(void)
{
    int rank, size;
    shmc_comm *world = example_init(2, &rank, &size);
    int left = (rank - 1 + size) % size, right = (rank + 1) % size;
    float *out = malloc(N * sizeof *out), *in = malloc(N * sizeof *in);
    double *work = malloc(N * sizeof *work);
    if (!out || !in || !work)
        shmc_abort(1);
    for (int i = 0; i < N; i++) {
        out[i] = (float)(rank + i % 4096);
        in[i] = -1.0f;
        work[i] = (double)(i % 1000);
    }

    shmc_request *send, *recv;
    CHECK(shmc_irecv(in, N, SHMC_FLOAT32, left, 1, world, &recv));
    CHECK(shmc_isend(out, N, SHMC_FLOAT32, right, 1, world, &send));

    /* Work that does not touch in/out: a sum of squares, block by block. */
    double sum = 0;
    int recv_done = 0, send_done = 0, tests = 0;
    for (int b = 0; b < N; b += BLOCK) {
        for (int i = b; i < b + BLOCK; i++)
            sum += work[i] * work[i];
        if (!recv_done)
            CHECK(shmc_test(&recv, &recv_done, NULL));
        if (!send_done)
            CHECK(shmc_test(&send, &send_done, NULL));
        tests++;
    }
    CHECK(shmc_wait(&recv, NULL));
    CHECK(shmc_wait(&send, NULL));

    double expect = 0;
    for (int i = 0; i < 1000; i++)
        expect += (double)i * i;
    expect *= N / 1000;
    for (int i = N / 1000 * 1000; i < N; i++)
        expect += (double)(i % 1000) * (i % 1000);
    int ok = sum == expect;
    for (int i = 0; i < N; i++)
        ok &= in[i] == (float)(left + i % 4096);
    if (rank == 0)
        printf("overlap: computed while 16 MiB moved each way (%d progress checks): %s\n", tests,
               ok ? "ok" : "WRONG");
    free(out);
    free(in);
    free(work);
    CHECK(shmc_finalize());
    return ok ? 0 : 1;
}
