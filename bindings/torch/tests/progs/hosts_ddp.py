"""A small model trained with DistributedDataParallel on the backend named by argv[1], each
rank on its own batches: prints each rank's losses, one per step, at the end on one line
("losses RANK V0 V1 ..."), which must not depend on the backend."""
import os
import sys

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

import shmcomm_torch  # noqa: F401


def say(line):
    # One write: torchrun's workers share its stdout unbuffered, where print's text and
    # newline go in two writes that another rank's line may come between.
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


dist.init_process_group(sys.argv[1])
r = dist.get_rank()
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4))
ddp = DDP(model, bucket_cap_mb=0.01)  # several buckets, several all-reduces a step
opt = torch.optim.SGD(ddp.parameters(), lr=0.05)
g = torch.Generator().manual_seed(100 + r)
seen = []
for step in range(int(sys.argv[2]) if len(sys.argv) > 2 else 8):
    x, y = torch.randn(16, 32, generator=g), torch.randn(16, 4, generator=g)
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(ddp(x), y)
    loss.backward()
    opt.step()
    seen.append(f"{loss.item():.9g}")
say(f"losses {r} {' '.join(seen)}")
if sys.argv[1] == "gloo":
    # gloo's teardown here now and then ends in "terminate called without an active
    # exception" (SIGABRT) once every loss is printed: what is compared is done.
    dist.barrier()
    os._exit(0)
dist.destroy_process_group()
