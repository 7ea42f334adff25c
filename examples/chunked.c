/*
 * A large transfer in chunks: rank 0 sends ten million floats to rank 1 as ten chunks of
 * one million (4 MB each), each with isend and wait; rank 1 receives each chunk straight
 * into its slice of the full tensor with irecv and wait, and checks every element.
 *
 *   shmrun -n 2 build/examples/chunked
 */
#include "example.h"

#define TOTAL 10000000
#define CHUNK 1000000

static float value(long i)
{
    return (float)(i % 1000003) * 0.25f;
}

int main(void)
{
    int rank, size;
    shmc_comm *world = example_init(2, &rank, &size);
    int ok = 1;

    if (rank < 2) {
        float *t = malloc(TOTAL * sizeof *t);
        if (!t) {
            fprintf(stderr, "chunked: out of memory\n");
            shmc_abort(1);
        }
        for (long c = 0; c < TOTAL / CHUNK; c++) {
            shmc_request *req;
            float *slice = t + c * CHUNK;
            if (rank == 0) {
                for (long i = 0; i < CHUNK; i++)
                    slice[i] = value(c * CHUNK + i);
                CHECK(shmc_isend(slice, CHUNK, SHMC_FLOAT32, 1, (int)c, world, &req));
            } else {
                CHECK(shmc_irecv(slice, CHUNK, SHMC_FLOAT32, 0, (int)c, world, &req));
            }
            shmc_status st;
            CHECK(shmc_wait(&req, &st));
            ok &= st.count == CHUNK;
        }
        if (rank == 1) {
            for (long i = 0; i < TOTAL; i++)
                ok &= t[i] == value(i);
            printf("chunked: received %d floats in %d chunks, all correct: %s\n", TOTAL,
                   TOTAL / CHUNK, ok ? "ok" : "WRONG");
        }
        free(t);
    }
    CHECK(shmc_finalize());
    return ok ? 0 : 1;
}
