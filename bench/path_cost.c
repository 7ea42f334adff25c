/*
 * The instruction cost of the small-message path, for valgrind's callgrind (which counts
 * instructions, so the figures repeat exactly from run to run, unlike timings here).
 *
 * Rank 0 sends N messages of 8 bytes to rank 1 with shmc_send. Rank 1 calls shmc_recv
 * for each only once the message is certainly in its mailbox: the two ranks keep in step
 * through a flag in a shared page of their own, outside the library, so no receive ever
 * waits and what callgrind counts in shmc_send and shmc_recv is the message path alone.
 *
 *   shmrun -n 2 --bind-to none sh -c 'valgrind --tool=callgrind \
 *       --callgrind-out-file=cg.$SHMC_RANK build/bench/path_cost 10000'
 *   callgrind_annotate --inclusive=yes cg.0 | grep shmc_send
 *   callgrind_annotate --inclusive=yes cg.1 | grep shmc_recv
 *
 * Divide by N for instructions per call.
 */
#include <shmcomm.h>

#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10000;
    shmc_comm *w;
    if (shmc_init(&w) != SHMC_OK || shmc_comm_size(w) != 2) {
        fprintf(stderr, "run with: shmrun -n 2 %s [N]\n", argv[0]);
        return 2;
    }
    int me = shmc_comm_rank(w);
    char name[64];
    if (me == 0)
        snprintf(name, sizeof name, "/shmc-%u-cost-%d", (unsigned)geteuid(), (int)getpid());
    /* Set-up traffic goes through calls we do not count (isend/irecv/wait): this receive
     * waits for rank 0 for as long as it takes, and its polling would blur the figures. */
    shmc_request *r;
    if (me == 0)
        shmc_isend(name, sizeof name, SHMC_UINT8, 1, 0, w, &r);
    else
        shmc_irecv(name, sizeof name, SHMC_UINT8, 0, 0, w, &r);
    shmc_wait(&r, NULL);
    int fd = shm_open(name, O_RDWR | O_CREAT, 0600);
    if (fd < 0 || ftruncate(fd, 4096) != 0)
        return 1;
    _Atomic long *step = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    shmc_barrier(w);
    if (me == 0)
        shm_unlink(name);

    char b[8] = {0};
    for (long i = 0; i < n; i++) {
        if (me == 0) {
            /* Wait until rank 1 took message i-1, so the ring never fills. */
            while (atomic_load(step) != 2 * i)
                sched_yield();
            shmc_send(b, 8, SHMC_UINT8, 1, 1, w);
            atomic_store(step, 2 * i + 1);
        } else {
            while (atomic_load(step) != 2 * i + 1)
                sched_yield();
            shmc_recv(b, 8, SHMC_UINT8, 0, 1, w, NULL);
            atomic_store(step, 2 * i + 2);
        }
    }
    munmap((void *)step, 4096);
    shmc_finalize();
    return 0;
}
