"""CUDA tensors on a "shmc" group across hosts (env://, as torchrun starts it): each rank on
the GPU of its local rank; every collective and a send/recv pair against what the same
call gives on CPU tensors; says so."""
import os
import sys

import torch
import torch.distributed as dist

import shmcomm_torch  # noqa: F401


def say(line):
    sys.stdout.write(line + "\n")  # one write (hosts_every.py says why)
    sys.stdout.flush()


dist.init_process_group("shmc")
r, n = dist.get_rank(), dist.get_world_size()
dev = torch.device("cuda", int(os.environ["LOCAL_RANK"]) % torch.cuda.device_count())
torch.cuda.set_device(dev)


def both(fn, *shapes_and_fills):
    """fn on CPU tensors and on CUDA copies of them; the CUDA results, back on the CPU,
    must equal the CPU ones."""
    cpu = [t.clone() for t in shapes_and_fills]
    gpu = [t.to(dev) for t in shapes_and_fills]
    fn(*cpu)
    fn(*gpu)
    torch.cuda.synchronize()
    for k, (c, g) in enumerate(zip(cpu, gpu)):
        assert torch.equal(c, g.cpu()), f"{fn.__name__}: tensor {k} differs from the CPU's"


big = (5 << 20) // 4 + 3  # pieces by NCCL, a last one small


def all_reduce(a, b):
    dist.all_reduce(a)
    dist.all_reduce(b, op=dist.ReduceOp.MAX)


both(all_reduce, torch.arange(7.0) * (r + 1), (torch.arange(big) % 5 * (r + 1)).float())
both(lambda t: dist.broadcast(t, n - 1), torch.full((1000,), float(r)))
both(lambda o: dist.all_gather_into_tensor(o, torch.full((3,), float(r), device=o.device)),
     torch.empty(3 * n))
both(lambda o: dist.reduce_scatter_tensor(o, torch.arange(2.0 * n, device=o.device) + r),
     torch.empty(2))
both(lambda o: dist.all_to_all_single(o, torch.arange(n, device=o.device) + 10 * r),
     torch.empty(n, dtype=torch.int64))
w = dist.all_reduce(x := torch.ones(16, device=dev) * r, async_op=True)
w.wait()
torch.cuda.synchronize()
assert torch.equal(x.cpu(), torch.ones(16) * (n * (n - 1) / 2)), x
if r in (0, n - 1) and n > 1:
    t = torch.arange(6.0, device=dev) if r == 0 else torch.empty(6, device=dev)
    (dist.send if r == 0 else dist.recv)(t, n - 1 - r)
    torch.cuda.synchronize()
    assert torch.equal(t.cpu(), torch.arange(6.0)), t
dist.barrier()
dist.destroy_process_group()
say(f"cuda: rank {r} of {n}: ok")
