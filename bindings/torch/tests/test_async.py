"""Asynchronous collectives on host tensors: the library's nonblocking collectives. Every
kind, on the default group and on a subgroup, several in flight on several groups issued
in different orders by different ranks, mixed with blocking calls, dropped without a wait,
and failing (a mismatch, a late rank, a dead one) with an error and no hang. The worker
thread's form (SHMC_TORCH_WORKER=async) passes the in-order tests too."""
import datetime
import os
import time

import pytest
import torch
import torch.distributed as dist

import harness
import shmcomm_torch  # noqa: F401  (registers "shmc")


def every_kind(rank, n, group, granks):
    """Each collective with async_op=True on `group` (whose global ranks are granks),
    results checked against what every rank knows of the others' inputs."""
    me = granks.index(rank)
    m = len(granks)
    waits = []

    t = torch.full((5,), float(rank + 1))
    waits.append((dist.all_reduce(t, group=group, async_op=True),
                  lambda: torch.equal(t, torch.full((5,), float(sum(g + 1 for g in granks))))))
    b = torch.arange(6.0) * (rank + 1)
    waits.append((dist.broadcast(b, src=granks[-1], group=group, async_op=True),
                  lambda: torch.equal(b, torch.arange(6.0) * (granks[-1] + 1))))
    r = torch.full((3,), float(rank))
    waits.append((dist.reduce(r, dst=granks[0], group=group, async_op=True),
                  lambda: me != 0 or torch.equal(r, torch.full((3,), float(sum(granks))))))
    outs = [torch.empty(2) for _ in range(m)]
    waits.append((dist.all_gather(outs, torch.full((2,), float(rank)), group=group,
                                  async_op=True),
                  lambda: [o[0].item() for o in outs] == [float(g) for g in granks]))
    flat = torch.empty(2 * m)
    waits.append((dist.all_gather_into_tensor(flat, torch.full((2,), float(rank)), group=group,
                                              async_op=True),
                  lambda: torch.equal(flat, torch.tensor([float(g) for g in granks]).repeat_interleave(2))))
    gl = [torch.empty(1) for _ in range(m)] if me == 0 else None
    waits.append((dist.gather(torch.tensor([rank * 2.0]), gl, dst=granks[0], group=group,
                              async_op=True),
                  lambda: me != 0 or [x.item() for x in gl] == [g * 2.0 for g in granks]))
    sc = torch.empty(3)
    sl = [torch.full((3,), 10.0 * k) for k in range(m)] if me == 0 else None
    waits.append((dist.scatter(sc, sl, src=granks[0], group=group, async_op=True),
                  lambda: torch.equal(sc, torch.full((3,), 10.0 * me))))
    rs = torch.empty(2)
    waits.append((dist.reduce_scatter(rs, [torch.full((2,), float(k + rank)) for k in range(m)],
                                      group=group, async_op=True),
                  lambda: torch.equal(rs, torch.full((2,), float(m * me + sum(granks))))))
    rst = torch.empty(2)
    waits.append((dist.reduce_scatter_tensor(rst, torch.arange(2.0 * m) + rank, group=group,
                                             async_op=True),
                  lambda: torch.equal(rst, m * (torch.arange(2.0) + 2 * me) + sum(granks))))
    a2a = torch.empty(m)
    waits.append((dist.all_to_all_single(a2a, torch.arange(float(m)) + 100 * rank, group=group,
                                         async_op=True),
                  lambda: torch.equal(a2a, torch.tensor([100.0 * g + me for g in granks]))))
    a2l = [torch.empty(1) for _ in range(m)]
    waits.append((dist.all_to_all(a2l, [torch.tensor([rank * 10.0 + k]) for k in range(m)],
                                  group=group, async_op=True),
                  lambda: [x.item() for x in a2l] == [g * 10.0 + me for g in granks]))
    # A non-contiguous tensor: its result is copied back when the wait ends.
    nc = torch.ones(4, 3).t()
    waits.append((dist.all_reduce(nc, group=group, async_op=True),
                  lambda: torch.equal(nc, torch.full((3, 4), float(m)))))
    waits.append((dist.barrier(group=group, async_op=True), lambda: True))
    # Waited in the opposite order of issue.
    for k, (w, ok) in reversed(list(enumerate(waits))):
        w.wait()
        assert w.is_completed() and w.is_success(), k
        assert ok(), k


def kinds(rank, n):
    every_kind(rank, n, None, list(range(n)))
    if n > 2:
        sub = [0, 2] if n < 4 else [1, 2, 3]
        g = dist.new_group(sub)
        if rank in sub:
            every_kind(rank, n, g, sub)
        dist.barrier()


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_every_kind(n):
    harness.run(n, kinds)


def opposite_orders(rank, n):
    """Even ranks issue on group A then B, odd ranks B then A (the worker thread would
    deadlock here: each rank's first collective waits for the others' second), with a
    blocking collective on a third group in between; many rounds, results checked."""
    a = dist.new_group(list(range(n)))
    b = dist.new_group(list(range(n)))
    c = dist.new_group(list(range(n)))
    total = sum(range(n))
    for round_ in range(50):
        x = torch.full((1 + round_ % 7,), float(rank))
        y = torch.full((1000,), float(rank + round_))
        if rank % 2 == 0:
            wa = dist.all_reduce(x, group=a, async_op=True)
            z = torch.ones(3)
            dist.all_reduce(z, group=c)
            wb = dist.all_reduce(y, group=b, async_op=True)
        else:
            wb = dist.all_reduce(y, group=b, async_op=True)
            z = torch.ones(3)
            dist.all_reduce(z, group=c)
            wa = dist.all_reduce(x, group=a, async_op=True)
        (wb if round_ % 2 else wa).wait()
        (wa if round_ % 2 else wb).wait()
        assert torch.equal(z, torch.full((3,), float(n)))
        assert torch.equal(x, torch.full(x.shape, float(total))), (round_, x)
        assert torch.equal(y, torch.full((1000,), float(total + n * round_))), round_


@pytest.mark.parametrize("n", [2, 4])
def test_opposite_orders_on_two_groups(n):
    harness.run(n, opposite_orders, timeout=120)


def in_flight_and_blocking(rank, n):
    """Many asynchronous collectives in flight on the default group while blocking ones
    run on it, and works dropped without a wait, their futures chained."""
    total = sum(range(n))
    pending = []
    for k in range(40):
        t = torch.full((16 + k,), float(rank + k))
        pending.append((k, t, dist.all_reduce(t, async_op=True)))
        if k % 5 == 0:
            s = torch.ones(2)
            dist.all_reduce(s)
            assert torch.equal(s, torch.full((2,), float(n)))
        if k % 7 == 0:
            dist.all_reduce(torch.ones(8), async_op=True)  # dropped: runs to its end
    futs = [w.get_future().then(lambda f: f.value()[0].sum().item()) for _, _, w in pending]
    for (k, t, _), f in zip(pending, futs):
        assert f.wait() == float((total + n * k) * (16 + k)), k
        assert torch.equal(t, torch.full((16 + k,), float(total + n * k)))
    # A non-contiguous tensor's work dropped: its result is copied back by a later call.
    nc = torch.ones(5, 3).t()
    dist.all_reduce(nc, async_op=True)
    for _ in range(1000):  # every rank leaves the loop after the same call
        ok = torch.tensor([int(torch.equal(nc, torch.full((3, 5), float(n))))])
        dist.all_reduce(ok, op=dist.ReduceOp.MIN)
        if ok.item():
            break
    assert torch.equal(nc, torch.full((3, 5), float(n))), nc
    dist.barrier()


@pytest.mark.parametrize("n", [2, 3])
def test_in_flight_with_blocking(n):
    harness.run(n, in_flight_and_blocking)


def async_mismatch(rank, n, late):
    t = torch.ones(4 + rank)  # rank 1 passes one element more
    if rank == late:
        time.sleep(0.3)  # the other rank's call is there first: found as this one starts
    w = dist.all_reduce(t, async_op=True)
    # Found at the start or later, the failure is the work's: its wait raises it.
    with pytest.raises(RuntimeError, match="different arguments|mismatch"):
        w.wait()


# The rules' choice (rounds of the world's lane), and a schedule of messages, which a
# rank whose start meets the other's different call learns of in that start.
@pytest.mark.parametrize("algo", [None, "ring"])
@pytest.mark.parametrize("late", [0, 1])
def test_async_mismatch(late, algo, monkeypatch):
    if algo:
        monkeypatch.setenv("SHMC_ALGO_ALLREDUCE", algo)
    harness.run(2, async_mismatch, late, timeout=60)


def async_late(rank, n, everyone, early):
    dist.init_process_group("shmc", rank=rank, world_size=n)
    g = dist.new_group(timeout=datetime.timedelta(seconds=1))
    t = torch.ones(4)
    if rank != n - 1:
        early.wait(50)  # the two start together: neither's bound runs out first by much
        w = dist.all_reduce(t, async_op=True, group=g)
        # The caller's own timeout: still pending afterwards.
        with pytest.raises(RuntimeError, match="did not complete within 100 ms"):
            w.wait(datetime.timedelta(milliseconds=100))
        assert not w.is_completed()
        # A caller's timeout longer than the group's: the group's ends the collective.
        with pytest.raises(RuntimeError, match=r"all_reduce of 16 bytes on rank \d of 3 .*"
                                               r"group's timeout"):
            w.wait(datetime.timedelta(seconds=30))
        assert w.is_completed() and not w.is_success()
        with pytest.raises(RuntimeError, match="group's timeout"):
            w.wait()  # ended: the same error again
    # No rank leaves before every one has seen its timeout: a rank that left first would
    # end a slower one's collective as a peer's death, not as the timeout tested here.
    everyone.wait(50)
    os._exit(0)  # the job's ranks disagree on what ran: no clean teardown to check


def test_async_timeout():
    harness.run(3, async_late, harness.rendezvous(3), harness.rendezvous(2), backend=None,
                timeout=60)


def async_killed(rank, n):
    t = torch.ones(1 << 12)
    dist.all_reduce(t)
    if rank == 1:
        os._exit(7)
    works = [dist.all_reduce(torch.ones(1 << 12), async_op=True) for _ in range(5)]
    with pytest.raises(RuntimeError, match="died|finalized|failed"):
        for w in works:
            w.wait()


def test_async_killed_peer():
    harness.run(3, async_killed, may_die=(1,), timeout=60)


def polled_killed(rank, n):
    """A program that only polls is_completed: the death of a peer that no launcher
    announces still ends the collective (the test calls look for it now and then)."""
    dist.all_reduce(torch.ones(4))
    if rank == 1:
        os._exit(7)
    w = dist.all_reduce(torch.ones(1 << 12), async_op=True)
    while not w.is_completed():
        time.sleep(0.001)
    with pytest.raises(RuntimeError, match="died|finalized|failed"):
        w.wait()
    os._exit(0)  # the group lost a member: no clean teardown to check


def test_async_polled_killed_peer():
    harness.run(3, polled_killed, may_die=(1,), timeout=60)


def worker_form(rank, n):
    every_kind(rank, n, None, list(range(n)))
    in_flight_and_blocking(rank, n)


def test_worker_thread_form(monkeypatch):
    monkeypatch.setenv("SHMC_TORCH_WORKER", "async")
    harness.run(2, worker_form)
