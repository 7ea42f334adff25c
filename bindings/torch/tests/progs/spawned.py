"""The tutorials' style: torch.multiprocessing.spawn with MASTER_ADDR and MASTER_PORT."""
import os
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

import shmcomm_torch  # noqa: F401


def run(rank, n):
    dist.init_process_group("shmc", rank=rank, world_size=n)
    t = torch.ones(3) * rank
    dist.all_reduce(t)
    assert torch.equal(t, torch.ones(3) * (n * (n - 1) / 2)), t
    dist.destroy_process_group()
    print(f"spawned: rank {rank} of {n}: ok", flush=True)


if __name__ == "__main__":
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = sys.argv[1]
    mp.spawn(run, args=(3,), nprocs=3)
