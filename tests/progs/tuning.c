/*
 * For the launcher's test of SHMC_TUNING_FILE: joins the job, makes 20 all-reduces of
 * 256 KiB on the world, checks their sums, and prints "staged N": how many went through
 * the staging buffers, which the built-in rules choose for them at 2 ranks. A failed
 * shmc_init prints "init: " and its error, and exits 3.
 */
#include <shmcomm.h>
#include <stdint.h>
#include <stdio.h>

int main(void)
{
    shmc_comm *w;
    int rc = shmc_init(&w);
    if (rc != SHMC_OK) {
        printf("init: %s\n", shmc_strerror(rc));
        return 3;
    }
    static double in[32768], out[32768];
    int n = shmc_comm_size(w), bad = 0;
    for (int k = 0; k < 20; k++) {
        for (int i = 0; i < 32768; i++)
            in[i] = (double)(i + k);
        if (shmc_allreduce(in, out, 32768, SHMC_FLOAT64, SHMC_SUM, w) != SHMC_OK)
            bad++;
        for (int i = 0; i < 32768; i++)
            bad += out[i] != (double)(i + k) * n;
    }
    uint64_t staged = 0;
    shmc_stat("coll_staged", &staged);
    if (shmc_comm_rank(w) == 0)
        printf("staged %llu\n", (unsigned long long)staged);
    shmc_finalize();
    return bad ? 1 : 0;
}
