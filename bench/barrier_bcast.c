/*
 * Barrier then broadcast, as OSU's osu_bcast loops, timed together: the slowest rank's
 * time per iteration. osu_bcast times only the broadcast, so where a runtime's ranks wait
 * for each other (in the untimed barrier or in the timed broadcast) moves its figure;
 * this one does not care (docs/performance.md, "The MPI interface on the OSU
 * Micro-Benchmarks"). An MPI program: build it with each runtime's wrapper,
 *   build/bin/shmcc -O2 bench/barrier_bcast.c -o /tmp/bb-shmcc
 *   mpicc.openmpi -O2 bench/barrier_bcast.c -o /tmp/bb-openmpi
 * and run each at the same rank count (shmrun -n 4, mpirun.openmpi -np 4 --oversubscribe).
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    static char buf[1024];
    static const int sizes[] = {1, 64, 1024};
    enum { WARMUP = 200, ITERS = 5000 };
    int me;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
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
    MPI_Finalize();
    return 0;
}
