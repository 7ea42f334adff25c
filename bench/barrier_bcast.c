/*
 * Barrier then broadcast, as OSU's osu_bcast loops, timed together: the slowest rank's
 * time per iteration; with --scatter first, a scatter (root 0) of as many bytes to each
 * rank, as osu_scatter loops. OSU times only the rooted call, so where a runtime's ranks
 * wait for each other (in the untimed barrier or in the timed call) moves its figure;
 * this one does not care. With --trace [BYTES] (1 by default, up to 1 MiB in all) it
 * stamps every iteration on every rank instead and prints where the time goes: how far
 * apart the ranks leave the barrier, how long the call runs on after the last of them
 * left it, how often the root is the last one out, and each rank's mean time in the call.
 * An MPI program: build it with each runtime's wrapper,
 *   build/bin/shmcc -O2 bench/barrier_bcast.c -o /tmp/bb-shmcc
 *   mpicc.openmpi -O2 bench/barrier_bcast.c -o /tmp/bb-openmpi
 * and run each at the same rank count (shmrun -n 4, mpirun.openmpi -np 4 --oversubscribe).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { WARMUP = 200, ITERS = 5000, TRACED = 3000, MAX_BYTES = 1 << 20 };

static int scatter; /* --scatter: the rooted call is a scatter, not a broadcast */
static const char *call_name = "broadcast";

/* The rooted call, root 0, of `bytes` to each rank (buf holds MAX_BYTES). */
static void rooted(char *buf, int bytes, int n)
{
    static char out[MAX_BYTES];
    if (!scatter)
        MPI_Bcast(buf, bytes, MPI_CHAR, 0, MPI_COMM_WORLD);
    else if ((long)bytes * n <= MAX_BYTES)
        MPI_Scatter(buf, bytes, MPI_CHAR, out, bytes, MPI_CHAR, 0, MPI_COMM_WORLD);
    else
        MPI_Abort(MPI_COMM_WORLD, 2);
}

static void timed(int me, int n)
{
    static char buf[MAX_BYTES];
    static const int sizes[] = {1, 64, 1024};
    for (int s = 0; s < 3; s++) {
        for (int i = 0; i < WARMUP; i++) {
            MPI_Barrier(MPI_COMM_WORLD);
            rooted(buf, sizes[s], n);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < ITERS; i++) {
            MPI_Barrier(MPI_COMM_WORLD);
            rooted(buf, sizes[s], n);
        }
        double us = (MPI_Wtime() - t0) / ITERS * 1e6, slowest = 0;
        MPI_Reduce(&us, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (me == 0)
            printf("%d B: barrier + %s %.2f us per iteration (slowest rank)\n", sizes[s],
                   call_name, slowest);
    }
}

/* Per iteration and rank: when it left the barrier and when it left the broadcast
 * (MPI_Wtime: one clock for every process of the machine). */
static void traced(int me, int n, int bytes)
{
    static char b[MAX_BYTES];
    double *t = malloc(sizeof *t * 2 * TRACED),
           *all = me == 0 ? malloc(sizeof *all * 2 * TRACED * n) : NULL;
    if (!t || (me == 0 && !all))
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 0; i < WARMUP; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        rooted(b, bytes, n);
    }
    for (int i = 0; i < TRACED; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        t[2 * i] = MPI_Wtime();
        rooted(b, bytes, n);
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
        printf("%d B traced: ranks leave the barrier %.2f us apart; the %s ends %.2f us "
               "after the last left it; the root is the last out %.0f%% of the time\n",
               bytes, spread / TRACED * 1e6, call_name, after / TRACED * 1e6,
               100.0 * root_last / TRACED);
        for (int r = 0; r < n; r++)
            printf("  rank %d: %s %.2f us\n", r, call_name, per[r] / TRACED * 1e6);
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
    int a = 1;
    if (a < argc && strcmp(argv[a], "--scatter") == 0) {
        scatter = 1;
        call_name = "scatter";
        a++;
    }
    if (a < argc && strcmp(argv[a], "--trace") == 0) {
        int bytes = a + 1 < argc ? atoi(argv[a + 1]) : 1;
        if (bytes < 1 || (long)bytes * n > MAX_BYTES) {
            if (me == 0)
                fprintf(stderr, "barrier_bcast: --trace BYTES takes 1 to %d bytes in all\n",
                        MAX_BYTES);
            MPI_Finalize();
            return 2;
        }
        traced(me, n, bytes);
    } else {
        timed(me, n);
    }
    MPI_Finalize();
    return 0;
}
