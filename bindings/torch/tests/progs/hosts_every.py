"""Every operation of test_ops on the backend named by argv[1] (env://, as torchrun starts
it), on the world and on groups of the odd and the even ranks, then the coalesced forms and
the futures, then all-reduces large enough to cross hosts in pieces; says so."""
import sys

import torch.distributed as dist

import shmcomm_torch  # noqa: F401


def say(line):
    # One write: torchrun's workers share its stdout unbuffered, where print's text and
    # newline go in two writes that another rank's line may come between.
    sys.stdout.write(line + "\n")
    sys.stdout.flush()

import torch

import test_ops


def large(rank, n):
    """All-reduces that cross hosts in several pieces, each piece by gloo's ring or by the
    leaders' exchange (a last piece that is small; a dtype gloo does not add), exact."""
    for dt, numel in ((torch.float32, (8 << 20) // 4 + 1000), (torch.int16, (5 << 20) // 2)):
        idx = torch.arange(numel, dtype=torch.int64)
        t = ((idx % 7) * (rank + 1)).to(dt)
        w = dist.all_reduce(t, async_op=True)
        w.wait()
        want = ((idx % 7) * (n * (n + 1) // 2)).to(dt)
        assert torch.equal(t, want), f"large all_reduce {dt}: {(t != want).sum()} elements wrong"
    m = torch.full(((3 << 20) // 8,), float(rank), dtype=torch.float64)
    dist.all_reduce(m, op=dist.ReduceOp.MAX)
    assert torch.equal(m, torch.full_like(m, float(n - 1))), "large all_reduce MAX"


dist.init_process_group(sys.argv[1])
r, n = dist.get_rank(), dist.get_world_size()
test_ops.everything(r, n)
test_ops.coalesced_and_futures(r, n)
large(r, n)
dist.destroy_process_group()
say(f"every: rank {r} of {n}: ok")
