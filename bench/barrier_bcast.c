/*
 * Barrier then broadcast, as OSU's osu_bcast loops, timed together: the slowest rank's
 * time per iteration. osu_bcast times only the broadcast, so where a runtime's ranks wait
 * for each other (in the untimed barrier or in the timed broadcast) moves its figure;
 * this one does not care. With --trace it also stamps every iteration on every rank (1-byte
 * broadcasts) and prints where the time goes: how far apart the ranks leave the barrier,
 * how long the broadcast runs on after the last of them left it, how often the root is
 * the last one out, and each rank's mean broadcast time. An MPI program: build it with
 * each runtime's wrapper,
 *   build/bin/shmcc -O2 bench/barrier_bcast.c -o /tmp/bb-shmcc
 *   mpicc.openmpi -O2 bench/barrier_bcast.c -o /tmp/bb-openmpi
 * and run each at the same rank count (shmrun -n 4, mpirun.openmpi -np 4 --oversubscribe).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { WARMUP = 200, ITERS = 5000, TRACED = 3000 };

static void timed(int me)
{
    static char buf[1024];
    static const int sizes[] = {1, 64, 1024};
    for (int s = 0; s < 3; s++) {
        for (int i = 0; i < WARMUP; i++) {
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Bcast(buf, sizes[s], MPI_CHAR, 0, MPI_COMM_WORLD);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < ITERS; i++) {
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Bcast(buf, sizes[s], MPI_CHAR, 0, MPI_COMM_WORLD);
        }
        double us = (MPI_Wtime() - t0) / ITERS * 1e6, slowest = 0;
        MPI_Reduce(&us, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (me == 0)
            printf("%d B: barrier + broadcast %.2f us per iteration (slowest rank)\n", sizes[s],
                   slowest);
    }
}

/* Per iteration and rank: when it left the barrier and when it left the broadcast
 * (MPI_Wtime: one clock for every process of the machine). */
static void traced(int me, int n)
{
    char b = 0;
    double *t = malloc(sizeof *t * 2 * TRACED),
           *all = me == 0 ? malloc(sizeof *all * 2 * TRACED * n) : NULL;
    if (!t || (me == 0 && !all))
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 0; i < WARMUP; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Bcast(&b, 1, MPI_CHAR, 0, MPI_COMM_WORLD);
    }
    for (int i = 0; i < TRACED; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        t[2 * i] = MPI_Wtime();
        MPI_Bcast(&b, 1, MPI_CHAR, 0, MPI_COMM_WORLD);
        t[2 * i + 1] = MPI_Wtime();
    }
    MPI_Gather(t, 2 * TRACED, MPI_DOUBLE, all, 2 * TRACED, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (me == 0) {
        double spread = 0, after = 0, *per = calloc((size_t)n, sizeof *per);
        int root_last = 0;
        for (int i = 0; i < TRACED; i++) {
            double first = 1e300, last = -1e300, end = -1e300;
            int who = 0;
            for (int r = 0; r < n; r++) {
                double out = all[r * 2 * TRACED + 2 * i], done = all[r * 2 * TRACED + 2 * i + 1];
                first = out < first ? out : first;
                if (out > last) {
                    last = out;
                    who = r;
                }
                end = done > end ? done : end;
                per[r] += done - out;
            }
            spread += last - first;
            after += end - last;
            root_last += who == 0;
        }
        printf("1 B traced: ranks leave the barrier %.2f us apart; the broadcast ends %.2f us "
               "after the last left it; the root is the last out %.0f%% of the time\n",
               spread / TRACED * 1e6, after / TRACED * 1e6, 100.0 * root_last / TRACED);
        for (int r = 0; r < n; r++)
            printf("  rank %d: broadcast %.2f us\n", r, per[r] / TRACED * 1e6);
        free(per);
    }
    free(t);
    free(all);
}

int main(int argc, char **argv)
{
    int me, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (argc > 1 && strcmp(argv[1], "--trace") == 0)
        traced(me, n);
    else
        timed(me);
    MPI_Finalize();
    return 0;
}
