"""DistributedDataParallel trains the same small model on "shmc" and on "gloo": the loss of
every step, on every rank, is the same within float tolerance."""
import json
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

import harness
import shmcomm_torch  # noqa: F401

STEPS = 8


def train(rank, n, out_dir):
    torch.manual_seed(0)  # the same initial model on every rank and backend
    model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 16), nn.ReLU(),
                          nn.Linear(16, 1))
    ddp = DDP(model, bucket_cap_mb=0.001)  # several buckets: several all-reduces a step
    opt = torch.optim.SGD(ddp.parameters(), lr=0.05, momentum=0.9)
    g = torch.Generator().manual_seed(100 + rank)  # each rank its own shard of data
    x = torch.randn(16, 20, generator=g)  # each rank's own batch, seen every step
    y = x.sum(1, keepdim=True) * 0.3
    losses = []
    for _ in range(STEPS):
        opt.zero_grad()
        loss = nn.functional.mse_loss(ddp(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    # The models are the same on every rank after training.
    flat = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    first = flat.clone()
    dist.broadcast(first, 0)
    assert torch.allclose(flat, first), "ranks' models differ"
    with open(os.path.join(out_dir, f"{dist.get_backend()}-{rank}.json"), "w") as f:
        json.dump(losses, f)


def test_ddp_matches_gloo(tmp_path):
    for backend in ("gloo", "shmc"):
        harness.run(3, train, str(tmp_path), backend=backend)
    for rank in range(3):
        ref = json.load(open(tmp_path / f"gloo-{rank}.json"))
        got = json.load(open(tmp_path / f"shmc-{rank}.json"))
        assert len(got) == STEPS
        assert torch.allclose(torch.tensor(got), torch.tensor(ref), rtol=1e-5, atol=1e-6), (
            rank, got, ref)
        assert got[-1] < got[0], "the loss did not go down"
