/*
 * A window of shared memory: every rank adds its values to a histogram that lives in rank
 * 0's part of a window (shmc_accumulate, atomic against the other ranks' adds, no lock),
 * then, after a fence, every rank reads the whole histogram straight from memory (the
 * address shmc_win_shared_query gives) and checks it.
 *
 *   shmrun -n 4 build/examples/window_histogram
 */
#include "example.h"

#define BINS 16
#define VALUES 1000

int main(void)
{
    int rank, size;
    shmc_comm *world = example_init(2, &rank, &size);
    int64_t *mine;
    shmc_win *win;
    /* rank 0's part holds the histogram; the others' parts are empty */
    CHECK(shmc_win_allocate(rank == 0 ? BINS * sizeof(int64_t) : 0, sizeof(int64_t), world,
                            (void **)&mine, &win));
    int64_t local[BINS] = {0};
    for (int i = 0; i < VALUES; i++)
        local[(i * 7 + rank) % BINS]++;
    CHECK(shmc_accumulate(local, BINS, SHMC_INT64, SHMC_SUM, 0, 0, win));
    CHECK(shmc_win_fence(win));
    size_t bytes, unit;
    const int64_t *hist;
    CHECK(shmc_win_shared_query(win, 0, &bytes, &unit, (void **)&hist));
    int64_t want[BINS] = {0}, total = 0;
    for (int r = 0; r < size; r++)
        for (int i = 0; i < VALUES; i++)
            want[(i * 7 + r) % BINS]++;
    int ok = bytes == BINS * sizeof(int64_t);
    for (int b = 0; b < BINS; b++) {
        ok &= hist[b] == want[b];
        total += hist[b];
    }
    ok &= total == (int64_t)size * VALUES;
    CHECK(shmc_win_fence(win));
    if (rank == 0)
        printf("window_histogram: %lld values from %d ranks in rank 0's window: %s\n",
               (long long)total, size, ok ? "ok" : "WRONG");
    CHECK(shmc_win_free(&win));
    CHECK(shmc_finalize());
    return ok ? 0 : 1;
}
