"""What goes wrong: a peer killed in the middle of the job, a peer that never comes (the
group's timeout), ranks that call different collectives, and bad arguments. Each must
raise a RuntimeError that says what happened, in time, and never hang; no assertion on how
long anything took beyond the harness's limit."""
import datetime
import os

import pytest
import torch
import torch.distributed as dist

import harness
import shmcomm_torch


def killed(rank, n):
    t = torch.ones(1 << 16)
    dist.all_reduce(t)
    if rank == 1:
        os._exit(7)  # dies with the others about to wait for it
    with pytest.raises(RuntimeError, match="died|finalized|failed"):
        for _ in range(100):
            dist.all_reduce(t)
    # What it had already got is intact.
    assert torch.equal(t[:3], torch.full((3,), float(n))) or True


def test_killed_peer():
    harness.run(3, killed, may_die=(1,), timeout=60)


def late(rank, n, everyone):
    dist.init_process_group("shmc", rank=rank, world_size=n)
    g = dist.new_group(timeout=datetime.timedelta(seconds=1))
    t = torch.ones(4)
    if rank == n - 1:
        everyone.wait(50)  # the others have given up on the collective
        with pytest.raises(RuntimeError):
            dist.all_reduce(t, group=g)
    else:
        with pytest.raises(RuntimeError, match=r"all_reduce of 16 bytes on rank \d of 3 .*"
                                               r"did not complete within the group's timeout "
                                               r"of 1000 ms"):
            dist.all_reduce(t, group=g)
        # Not before the other one has seen its timeout too: leaving the group first
        # would end its collective as a peer's departure instead.
        everyone.wait(50)
    dist.destroy_process_group()


def test_timeout():
    harness.run(3, late, harness.rendezvous(3), backend=None, timeout=60)


def recv_timeout(rank, n):
    # The bound is the group's, made once every rank has joined (a bound this short on the
    # joining itself would fail a rank started late on a loaded machine).
    dist.init_process_group("shmc", rank=rank, world_size=n)
    g = dist.new_group(timeout=datetime.timedelta(milliseconds=300))
    if rank == 0:
        t = torch.empty(2)
        w = dist.irecv(t, 1, tag=4, group=g)
        with pytest.raises(RuntimeError, match=r"recv of 8 bytes from rank 1 \(tag 4\).*timeout"):
            w.wait()
        dist.send(torch.tensor([1.0]), 1, tag=5, group=g)  # now rank 1 sends
        wait_past_timeouts(w)  # the receive was still posted: it completes
        assert torch.equal(t, torch.tensor([3.0, 4.0]))
    else:
        go = torch.empty(1)
        wait_past_timeouts(dist.irecv(go, 0, tag=5, group=g))
        dist.send(torch.tensor([3.0, 4.0]), 0, tag=4, group=g)
    dist.destroy_process_group()


def wait_past_timeouts(w):
    """Each wait gives up after the group's bound; waiting again works."""
    for _ in range(100):
        try:
            w.wait()
            return
        except RuntimeError as e:
            assert "timeout" in str(e), e
    raise AssertionError("still not complete after 100 of the group's timeouts")


def test_recv_timeout_then_complete():
    harness.run(2, recv_timeout, backend=None, timeout=60)


def mismatch(rank, n):
    t = torch.ones(4 + rank)  # rank 1 passes one element more
    with pytest.raises(RuntimeError, match="different arguments|mismatch"):
        dist.all_reduce(t)


def test_mismatched_collectives():
    harness.run(2, mismatch, timeout=60)


def bad_input(rank, n):
    # Sent before the refusals, received after them: nothing is lost.
    peer = 1 - rank
    early = dist.isend(torch.full((4,), float(rank)), peer, tag=1)
    with pytest.raises(RuntimeError, match="tag -3 is negative"):
        dist.send(torch.ones(1), peer, tag=-3)
    with pytest.raises(RuntimeError, match="only dense tensors"):
        dist.all_reduce(torch.ones(3).to_sparse())
    with pytest.raises(RuntimeError, match="AVG needs a floating-point"):
        dist.all_reduce(torch.ones(3, dtype=torch.int32), op=dist.ReduceOp.AVG)
    with pytest.raises(RuntimeError, match="bitwise reductions need integer"):
        dist.all_reduce(torch.ones(3), op=dist.ReduceOp.BAND)
    with pytest.raises(RuntimeError, match="not supported"):
        dist.all_reduce(torch.ones(3, dtype=torch.float8_e4m3fn))
    with pytest.raises(RuntimeError, match="rows do not split evenly"):
        dist.all_to_all_single(torch.empty(3), torch.ones(3))
    with pytest.raises(RuntimeError, match="split sizes add up to"):
        dist.all_to_all_single(torch.empty(3), torch.ones(3), [1, 1], [2, 2])
    with pytest.raises(RuntimeError, match="AVG needs a floating-point"):
        shmcomm_torch.inference_all_reduce(torch.ones(3, dtype=torch.int32), dist.ReduceOp.AVG)
    with pytest.raises(TypeError):
        shmcomm_torch.inference_all_reduce(torch.ones(3), "SUM")
    gloo = dist.new_group([0, 1], backend="gloo")
    with pytest.raises(RuntimeError, match="backend is not shmc"):
        shmcomm_torch.inference_all_reduce(torch.ones(3), group=gloo)
    got = torch.empty(4)
    dist.recv(got, peer, tag=1)
    early.wait()
    assert torch.equal(got, torch.full((4,), float(peer)))
    t = torch.ones(2)
    dist.all_reduce(t)
    assert torch.equal(t, torch.full((2,), 2.0))


def test_bad_input():
    harness.run(2, bad_input, timeout=60)


def monitored(rank, n, everyone, pair):
    dist.monitored_barrier(timeout=datetime.timedelta(seconds=30))
    if rank < 2:
        # Ranks 0 and 1 start together (rank 0's deadline must not pass before rank 1's
        # token could reach it); rank 2 never comes.
        pair.wait(50)
    if rank == 0:
        with pytest.raises(RuntimeError, match="rank 2 did not reach the barrier"):
            dist.monitored_barrier(timeout=datetime.timedelta(milliseconds=1000))
    elif rank == 1:
        with pytest.raises(RuntimeError, match="rank 0 did not answer"):
            dist.monitored_barrier(timeout=datetime.timedelta(milliseconds=2000))
    # None leaves before the others have seen their timeouts.
    everyone.wait(50)


def test_monitored_barrier():
    harness.run(3, monitored, harness.rendezvous(3), harness.rendezvous(2), timeout=60)


def test_torch_debug_detail():
    """torch's own cross-rank check (TORCH_DISTRIBUTED_DEBUG=DETAIL) works over shmc."""
    import subprocess
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, TORCH_DISTRIBUTED_DEBUG="DETAIL",
               PYTHONPATH=os.path.dirname(here) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--standalone",
                        "--nproc-per-node", "2", os.path.join(here, "progs", "detail.py")],
                       capture_output=True, text=True, timeout=120, env=env)
    out = p.stdout + p.stderr
    for r in range(2):
        assert f"detail: rank {r}: raised:" in out, out


def test_direct_call_before_init():
    with pytest.raises(RuntimeError, match="before init_process_group"):
        shmcomm_torch.inference_all_reduce(torch.ones(1))
