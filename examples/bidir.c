/*
 * Bidirectional exchange: even ranks pair with the next odd rank and both send at the
 * same time, with isend/irecv so neither waits for the other. The message is large
 * (1 MiB, above the eager limit), which would deadlock with blocking send on both sides.
 * With an odd number of ranks the last one sits out.
 *
 *   shmrun -n 4 build/examples/bidir
 */
#include "example.h"

#define N (256 * 1024)

int main(void)
{
    int rank, size;
    shmc_comm *world = example_init(2, &rank, &size);
    int partner = rank % 2 == 0 ? rank + 1 : rank - 1;
    int ok = 1;

    if (partner < size) {
        int32_t *out = malloc(N * sizeof *out), *in = malloc(N * sizeof *in);
        if (!out || !in)
            shmc_abort(1);
        for (int i = 0; i < N; i++) {
            out[i] = rank * N + i;
            in[i] = -1;
        }
        shmc_request *reqs[2];
        CHECK(shmc_isend(out, N, SHMC_INT32, partner, 7, world, &reqs[0]));
        CHECK(shmc_irecv(in, N, SHMC_INT32, partner, 7, world, &reqs[1]));
        CHECK(shmc_waitall(2, reqs, NULL));
        for (int i = 0; i < N; i++)
            ok &= in[i] == partner * N + i;
        if (!ok)
            fprintf(stderr, "bidir: rank %d got wrong data from %d\n", rank, partner);
        free(out);
        free(in);
    }
    if (rank == 0 && ok)
        printf("bidir: %d pairs exchanged 1 MiB each way at once: ok\n", size / 2);
    CHECK(shmc_finalize());
    return ok ? 0 : 1;
}
