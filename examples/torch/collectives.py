"""The collectives of the tutorials, each checked: broadcast, reduce, all_reduce, scatter,
gather, all_gather, reduce_scatter, all_to_all, barrier, on the world and on a group."""
import torch
import torch.distributed as dist

import launch


def run(rank, n):
    t = torch.tensor([float(rank)]) if rank else torch.tensor([42.0])
    dist.broadcast(t, src=0)
    launch.ok("collectives", rank, t.item() == 42.0, "broadcast")
    t = torch.tensor([float(rank + 1)])
    dist.reduce(t, dst=0, op=dist.ReduceOp.SUM)
    if rank == 0:
        launch.ok("collectives", rank, t.item() == n * (n + 1) / 2, "reduce")
    t = torch.tensor([float(rank + 1)])
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    launch.ok("collectives", rank, t.item() == n, "all_reduce max")
    out = torch.zeros(2)
    dist.scatter(out, [torch.full((2,), float(i * 10)) for i in range(n)] if rank == 0 else None, src=0)
    launch.ok("collectives", rank, bool((out == rank * 10).all()), "scatter")
    got = [torch.zeros(1) for _ in range(n)] if rank == 0 else None
    dist.gather(torch.tensor([float(rank)]), got, dst=0)
    if rank == 0:
        launch.ok("collectives", rank, [g.item() for g in got] == list(range(n)), "gather")
    all_ = [torch.zeros(1) for _ in range(n)]
    dist.all_gather(all_, torch.tensor([float(rank * rank)]))
    launch.ok("collectives", rank, [g.item() for g in all_] == [r * r for r in range(n)], "all_gather")
    part = torch.zeros(1)
    dist.reduce_scatter(part, [torch.tensor([float(rank + i)]) for i in range(n)])
    launch.ok("collectives", rank, part.item() == sum(r + rank for r in range(n)), "reduce_scatter")
    outs = [torch.zeros(1) for _ in range(n)]
    dist.all_to_all(outs, [torch.tensor([float(rank * 100 + i)]) for i in range(n)])
    launch.ok("collectives", rank, [o.item() for o in outs] == [r * 100 + rank for r in range(n)],
              "all_to_all")
    group = dist.new_group([0, 1])
    if rank < 2:
        t = torch.ones(3)
        dist.all_reduce(t, group=group)
        launch.ok("collectives", rank, bool((t == 2).all()), "all_reduce on a group of two")
    dist.barrier()
    launch.ok("collectives", rank, True, "barrier")


if __name__ == "__main__":
    launch.main(run, 4)
