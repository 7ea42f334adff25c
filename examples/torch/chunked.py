"""A large transfer in chunks: 64 MiB sent as 16 chunks of 4 MiB, all in flight at once."""
import torch
import torch.distributed as dist

import launch

TOTAL, CHUNKS = 16 << 20, 16  # float32 elements: 64 MiB


def run(rank, world_size):
    data = torch.arange(TOTAL, dtype=torch.float32) if rank == 0 else torch.zeros(TOTAL)
    chunks = data.chunk(CHUNKS)
    op = dist.isend if rank == 0 else dist.irecv
    reqs = [op(tensor=c, **({"dst": 1} if rank == 0 else {"src": 0})) for c in chunks]
    for r in reqs:
        r.wait()
    good = rank == 0 or torch.equal(data, torch.arange(TOTAL, dtype=torch.float32))
    launch.ok("chunked", rank, good, f"{TOTAL * 4 >> 20} MiB in {CHUNKS} chunks")


if __name__ == "__main__":
    launch.main(run, 2)
