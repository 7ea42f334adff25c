/*
 * Model-parallel forward pass: a network of `size` dense layers (matrix multiplications
 * with ReLU) is split across the ranks, one layer per rank. Micro-batches flow through
 * the stages: each rank receives activations from the previous stage, applies its layer
 * and sends the result on. The last stage recomputes the whole network on its own and
 * checks that the pipelined result is identical bit for bit.
 *
 *   shmrun -n 2 build/examples/model_parallel
 */
#include <string.h>

#include "example.h"

#define WIDTH 64
#define BATCH 16
#define MICRO 8

/* Deterministic weights and inputs, so every rank can rebuild them. */
static double weight(int layer, int i, int j)
{
    return (double)(((layer * 131 + i * 31 + j * 17) % 23) - 11) / 64.0;
}

static double input(int mb, int b, int j)
{
    return (double)(((mb * 7 + b * 5 + j * 3) % 19) - 9) / 8.0;
}

/* out = relu(in x W_layer), in and out are BATCH x WIDTH. */
static void layer_forward(int layer, const double *in, double *out)
{
    for (int b = 0; b < BATCH; b++) {
        for (int j = 0; j < WIDTH; j++) {
            double acc = 0;
            for (int i = 0; i < WIDTH; i++)
                acc += in[b * WIDTH + i] * weight(layer, i, j);
            out[b * WIDTH + j] = acc > 0 ? acc : 0;
        }
    }
}

int main(void)
{
    int rank, size;
    shmc_comm *world = example_init(2, &rank, &size);
    static double act[BATCH * WIDTH], next[BATCH * WIDTH], ref[BATCH * WIDTH], tmp[BATCH * WIDTH];
    int ok = 1;

    for (int mb = 0; mb < MICRO; mb++) {
        if (rank == 0) {
            for (int b = 0; b < BATCH; b++)
                for (int j = 0; j < WIDTH; j++)
                    act[b * WIDTH + j] = input(mb, b, j);
        } else {
            CHECK(shmc_recv(act, BATCH * WIDTH, SHMC_FLOAT64, rank - 1, mb, world, NULL));
        }
        layer_forward(rank, act, next);
        if (rank < size - 1) {
            CHECK(shmc_send(next, BATCH * WIDTH, SHMC_FLOAT64, rank + 1, mb, world));
            continue;
        }
        /* Last stage: the same network, computed serially. */
        for (int b = 0; b < BATCH; b++)
            for (int j = 0; j < WIDTH; j++)
                ref[b * WIDTH + j] = input(mb, b, j);
        for (int l = 0; l < size; l++) {
            layer_forward(l, ref, tmp);
            memcpy(ref, tmp, sizeof ref);
        }
        ok &= memcmp(ref, next, sizeof ref) == 0;
    }
    if (rank == size - 1)
        printf("model_parallel: %d micro-batches through %d stages match the serial forward "
               "pass: %s\n",
               MICRO, size, ok ? "ok" : "WRONG");
    CHECK(shmc_finalize());
    return ok ? 0 : 1;
}
