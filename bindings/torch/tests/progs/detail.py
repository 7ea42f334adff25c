"""Under TORCH_DISTRIBUTED_DEBUG=DETAIL torch wraps the backend and checks each
collective's arguments across ranks first: a normal all_reduce passes, mismatched ones
raise on every rank."""
import torch
import torch.distributed as dist

import shmcomm_torch  # noqa: F401

dist.init_process_group("shmc")
r = dist.get_rank()
t = torch.ones(3)
dist.all_reduce(t)
assert t[0].item() == dist.get_world_size()
try:
    dist.all_reduce(torch.ones(4 + r))  # rank 1 passes one element more
    print(f"detail: rank {r}: no error", flush=True)
except RuntimeError as e:
    print(f"detail: rank {r}: raised: {str(e).splitlines()[0][:100]}", flush=True)
