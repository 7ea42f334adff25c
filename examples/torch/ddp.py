"""A DistributedDataParallel training loop: each rank trains on its own shard; gradients
are averaged by all_reduce every step; the replicas stay identical and the loss falls."""
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

import launch


def run(rank, world_size):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 1))
    ddp = DDP(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.05)
    g = torch.Generator().manual_seed(rank)
    x = torch.randn(64, 10, generator=g)
    y = x[:, :1] * 2 - x[:, 1:2]
    first = last = None
    for step in range(50):
        opt.zero_grad()
        loss = nn.functional.mse_loss(ddp(x), y)
        loss.backward()
        opt.step()
        first = loss.item() if first is None else first
        last = loss.item()
    w = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    w0 = w.clone()
    dist.broadcast(w0, 0)
    launch.ok("ddp", rank, last < first / 2 and torch.equal(w, w0),
              f"loss {first:.3f} -> {last:.3f}, replicas identical")


if __name__ == "__main__":
    launch.main(run, 2)
