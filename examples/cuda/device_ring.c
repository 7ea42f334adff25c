/*
 * The ring of examples/ring.c and an all-reduce, on GPU memory: each rank picks the GPU of
 * its LOCAL_RANK, passes a device buffer holding its rank to its right neighbour, then
 * sums a device vector over all ranks in place. Device pointers go straight into the
 * shmcomm calls; the messages travel GPU to GPU. Built where the CUDA Toolkit is found;
 * exits 77 (skipped) on a machine without a usable GPU.
 *
 *   shmrun -n 4 build/examples/cuda/device_ring
 */
#include <cuda_runtime_api.h>

#include "../example.h"

#define N (1 << 20)

int main(void)
{
    int rank, size, dev;
    shmc_comm *world = example_init(2, &rank, &size);
    if (shmc_device_select(&dev) != SHMC_OK) {
        if (rank == 0)
            fprintf(stderr, "device_ring: no usable GPU, skipped\n");
        shmc_finalize();
        return 77;
    }
    cudaSetDevice(dev); /* this program's own CUDA runtime uses the same GPU */

    float *host = malloc(N * sizeof *host), *send, *recv;
    if (!host || cudaMalloc((void **)&send, N * sizeof *send) != cudaSuccess ||
        cudaMalloc((void **)&recv, N * sizeof *recv) != cudaSuccess) {
        fprintf(stderr, "device_ring: out of memory\n");
        shmc_abort(1);
    }
    for (int i = 0; i < N; i++)
        host[i] = (float)rank;
    cudaMemcpy(send, host, N * sizeof *host, cudaMemcpyHostToDevice);
    cudaMemset(recv, 0xff, N * sizeof *recv);

    /* The ring: the buffers are ready (cudaMemcpy synchronised), so the calls may start. */
    int left = (rank - 1 + size) % size, right = (rank + 1) % size, ok = 1;
    shmc_request *reqs[2];
    CHECK(shmc_irecv(recv, N, SHMC_FLOAT32, left, 0, world, &reqs[1]));
    CHECK(shmc_isend(send, N, SHMC_FLOAT32, right, 0, world, &reqs[0]));
    CHECK(shmc_waitall(2, reqs, NULL));
    cudaMemcpy(host, recv, N * sizeof *host, cudaMemcpyDeviceToHost);
    for (int i = 0; i < N; i++)
        ok &= host[i] == (float)left;

    /* All-reduce in place on the device: every element becomes 0 + 1 + ... + size - 1. */
    CHECK(shmc_allreduce(SHMC_IN_PLACE, send, N, SHMC_FLOAT32, SHMC_SUM, world));
    cudaMemcpy(host, send, N * sizeof *host, cudaMemcpyDeviceToHost);
    for (int i = 0; i < N; i++)
        ok &= host[i] == (float)(size * (size - 1) / 2);

    if (!ok)
        fprintf(stderr, "device_ring: rank %d got wrong data\n", rank);
    else if (rank == 0)
        printf("device_ring: ring and all-reduce on GPU %d memory: ok\n", dev);
    cudaFree(send);
    cudaFree(recv);
    free(host);
    CHECK(shmc_finalize());
    return ok ? 0 : 1;
}
