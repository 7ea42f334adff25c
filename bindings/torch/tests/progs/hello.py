"""Joins a "shmc" group the env:// way (torchrun, shmrun, or variables set by hand), sums
the ranks, and says so."""
import torch
import torch.distributed as dist

import shmcomm_torch  # noqa: F401

dist.init_process_group("shmc")
r, n = dist.get_rank(), dist.get_world_size()
t = torch.tensor([float(r + 1)])
dist.all_reduce(t)
assert t.item() == n * (n + 1) / 2, t
dist.destroy_process_group()
print(f"hello: rank {r} of {n}: ok", flush=True)
