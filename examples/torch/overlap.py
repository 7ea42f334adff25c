"""Overlap of compute with communication: each rank starts sending its half of the next
layer's input while it multiplies matrices, then waits."""
import torch
import torch.distributed as dist

import launch


def run(rank, world_size):
    torch.manual_seed(rank)
    other = 1 - rank
    mine = torch.full((1 << 20,), float(rank + 1))
    theirs = torch.empty(1 << 20)
    reqs = [dist.isend(mine, other), dist.irecv(theirs, other)]
    a = torch.randn(256, 256)
    for _ in range(20):  # compute while the 4 MiB travel both ways
        a = torch.tanh(a @ a.t() / 256)
    for r in reqs:
        r.wait()
    launch.ok("overlap", rank, bool((theirs == other + 1).all()) and bool(torch.isfinite(a).all()),
              "computed while 4 MiB went each way")


if __name__ == "__main__":
    launch.main(run, 2)
