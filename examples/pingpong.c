/*
 * Ping-pong: rank 0 sends ten floats to rank 1, which doubles them and sends them back;
 * rank 0 adds one and starts the next round. After five rounds, starting from ones,
 * every element is 63 (1 -> 3 -> 7 -> 15 -> 31 -> 63). Other ranks just take part.
 *
 *   shmrun -n 2 build/examples/pingpong
 */
#include "example.h"

#define N 10
#define ROUNDS 5

int main(void)
{
    int rank, size;
    shmc_comm *world = example_init(2, &rank, &size);
    float t[N];
    int ok = 1;

    if (rank == 0) {
        for (int i = 0; i < N; i++)
            t[i] = 1.0f;
        for (int it = 0; it < ROUNDS; it++) {
            CHECK(shmc_send(t, N, SHMC_FLOAT32, 1, 0, world));
            CHECK(shmc_recv(t, N, SHMC_FLOAT32, 1, 0, world, NULL));
            for (int i = 0; i < N; i++)
                t[i] += 1.0f;
        }
        for (int i = 0; i < N; i++)
            ok &= t[i] == 63.0f;
        printf("pingpong: after %d rounds rank 0 holds %g in every element (expected 63): %s\n",
               ROUNDS, (double)t[0], ok ? "ok" : "WRONG");
    } else if (rank == 1) {
        for (int it = 0; it < ROUNDS; it++) {
            shmc_status st;
            CHECK(shmc_recv(t, N, SHMC_FLOAT32, 0, 0, world, &st));
            ok &= st.source == 0 && st.count == N;
            for (int i = 0; i < N; i++)
                t[i] *= 2.0f;
            CHECK(shmc_send(t, N, SHMC_FLOAT32, 0, 0, world));
        }
        for (int i = 0; i < N; i++)
            ok &= t[i] == 62.0f;
    }
    CHECK(shmc_finalize());
    return ok ? 0 : 1;
}
