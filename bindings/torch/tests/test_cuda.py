"""CUDA tensors on "shmc": the library's device path (CUDA IPC between the processes),
against results computed here. Skipped where torch has no CUDA or sees no GPU (the CPU
build of torch, CI); SHMC_TEST_CUDA_REQUIRED=1 (make check-cuda) makes that a failure.
Two processes share the GPUs round robin (one GPU: both on it)."""
import os

import pytest
import torch
import torch.distributed as dist

import harness
import shmcomm_torch

HAVE_CUDA = torch.cuda.is_available()
REASON = ("torch has no CUDA (a CPU build) or sees no GPU" if not torch.backends.cuda.is_built()
          or not HAVE_CUDA else "")

if not HAVE_CUDA and os.environ.get("SHMC_TEST_CUDA_REQUIRED"):
    raise RuntimeError(f"SHMC_TEST_CUDA_REQUIRED is set but {REASON}")

pytestmark = pytest.mark.skipif(not HAVE_CUDA, reason=REASON or "no CUDA")


def device(rank):
    d = torch.device("cuda", rank % torch.cuda.device_count())
    torch.cuda.set_device(d)
    return d


def collectives(rank, n):
    dev = device(rank)
    total = n * (n + 1) // 2
    for dt in (torch.float32, torch.float16, torch.bfloat16, torch.int32, torch.int64):
        for numel in (1, 1000, 1 << 20):
            t = torch.full((numel,), rank + 1, dtype=dt, device=dev)
            dist.all_reduce(t)
            assert torch.equal(t.cpu(), torch.full((numel,), total, dtype=dt)), (dt, numel)
    t = torch.full((7,), float(rank + 1), device=dev)
    assert shmcomm_torch.inference_all_reduce(t) is t
    assert torch.equal(t.cpu(), torch.full((7,), float(total)))
    # The input written by a kernel still queued on the caller's own stream.
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        x = torch.empty(1 << 22, device=dev)
        x.fill_(float(rank))
        w = dist.all_reduce(x, op=dist.ReduceOp.MAX, async_op=True)
    w.wait()
    torch.cuda.synchronize()
    assert bool((x == float(n - 1)).all())
    ref = torch.arange(1 << 20, dtype=torch.float32)
    b = ref.to(dev) if rank == 0 else torch.zeros(1 << 20, device=dev)
    dist.broadcast(b, 0)
    assert torch.equal(b.cpu(), ref)
    out = torch.empty(n * 5, device=dev)
    dist.all_gather_into_tensor(out, torch.full((5,), float(rank), device=dev))
    assert torch.equal(out.cpu(), torch.arange(n, dtype=torch.float32).repeat_interleave(5))
    big = torch.arange(n * 3, dtype=torch.float32, device=dev) * (rank + 1)
    small = torch.empty(3, device=dev)
    dist.reduce_scatter_tensor(small, big)
    want = torch.arange(n * 3, dtype=torch.float32)[3 * rank:3 * rank + 3] * total
    assert torch.equal(small.cpu(), want)
    # Uneven all_to_all_single: rank r sends q + 1 elements of value 10 r + q to rank q.
    ins = [q + 1 for q in range(n)]
    outs = [rank + 1] * n
    a = torch.cat([torch.full((q + 1,), 10.0 * rank + q) for q in range(n)]).to(dev)
    c = torch.empty(sum(outs), device=dev)
    dist.all_to_all_single(c, a, outs, ins)
    assert torch.equal(c.cpu(), torch.cat([torch.full((rank + 1,), 10.0 * q + rank)
                                           for q in range(n)]))
    # A non-contiguous tensor (copied in and out).
    m = torch.full((6, 4), float(rank + 1), device=dev).t()
    dist.all_reduce(m)
    assert torch.equal(m.cpu(), torch.full((4, 6), float(total)))
    dist.barrier()


def point_to_point(rank, n):
    dev = device(rank)
    nxt, prv = (rank + 1) % n, (rank - 1) % n
    for numel in (2, 1 << 12, 1 << 22):
        s = torch.full((numel,), float(rank), device=dev)
        r = torch.empty(numel, device=dev)
        reqs = dist.batch_isend_irecv([dist.P2POp(dist.isend, s, nxt),
                                       dist.P2POp(dist.irecv, r, prv)])
        for q in reqs:
            q.wait()
        assert torch.equal(r.cpu(), torch.full((numel,), float(prv)))
    # Device to host and host to device.
    if rank == 0:
        dist.send(torch.arange(1000, dtype=torch.float32, device=dev), 1)
        h = torch.empty(1000)
        dist.recv(h, 1)
        assert torch.equal(h, torch.arange(1000, dtype=torch.float32) * 2)
    elif rank == 1:
        h = torch.empty(1000)
        dist.recv(h, 0)
        dist.send((h * 2).to(dev), 0)
    dist.barrier()


@pytest.mark.parametrize("n", [2, 3])
def test_cuda_collectives(n):
    harness.run(n, collectives, start="spawn", timeout=300)


def test_cuda_point_to_point():
    harness.run(2, point_to_point, start="spawn", timeout=300)
