"""The launch styles: torchrun, torch.multiprocessing.spawn with MASTER_ADDR/MASTER_PORT,
shmrun (which sets what env:// needs), and plain python processes started by a shell loop;
and a process that destroys its group and makes a new one, three times."""
import os
import subprocess
import sys

import torch
import torch.distributed as dist

import harness
import shmcomm_torch

HERE = os.path.dirname(os.path.abspath(__file__))
PKG = os.path.dirname(HERE)
HELLO = os.path.join(HERE, "progs", "hello.py")


def sh(cmd, timeout=120, env=None):
    e = dict(os.environ, PYTHONPATH=PKG + os.pathsep + os.environ.get("PYTHONPATH", ""))
    e.update(env or {})
    p = subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=timeout, env=e)
    return p.returncode, p.stdout + p.stderr


def oks(out, n, what="hello"):
    """Every rank said it is done (lines of several processes may interleave)."""
    return all(out.count(f"{what}: rank {r} of {n}: ok") == 1 for r in range(n))


def test_torchrun():
    rc, out = sh(f"{sys.executable} -m torch.distributed.run --standalone --nproc-per-node 3 {HELLO}")
    assert rc == 0 and oks(out, 3), out


def test_mp_spawn():
    rc, out = sh(f"{sys.executable} {os.path.join(HERE, 'progs', 'spawned.py')} {harness.free_port()}")
    assert rc == 0 and oks(out, 3, "spawned"), out


def test_shmrun():
    shmrun = os.path.join(os.environ.get("SHMC_TEST_BUILD", os.path.join(PKG, "..", "..", "build")),
                          "bin", "shmrun")
    rc, out = sh(f"{shmrun} -n 4 {sys.executable} {HELLO}")
    assert rc == 0 and oks(out, 4), out


def test_shell_loop():
    port = harness.free_port()
    loop = " ".join(f"RANK={r} WORLD_SIZE=3 MASTER_ADDR=127.0.0.1 MASTER_PORT={port} "
                    f"{sys.executable} {HELLO} & p{r}=$!;" for r in range(3))
    rc, out = sh(loop + " wait $p0 && wait $p1 && wait $p2")
    assert rc == 0 and oks(out, 3), out


def again(rank, n):
    for round_ in range(3):
        dist.init_process_group("shmc", rank=rank, world_size=n)
        t = torch.tensor([rank + round_])
        dist.all_reduce(t)
        assert t.item() == n * (n - 1) // 2 + n * round_
        g = dist.new_group(sorted({0, n - 1}))
        if rank in (0, n - 1):
            u = torch.ones(2)
            dist.all_reduce(u, group=g)
            assert torch.equal(u, torch.full((2,), 2.0 if n > 1 else 1.0))
        dist.barrier()
        dist.destroy_process_group()
        assert not dist.is_initialized()


def test_destroy_and_init_again():
    for n in (1, 3):
        harness.run(n, again, backend=None)


def two_devices(rank, n):
    # As a torch with CUDA registers "shmc": for "cpu" and "cuda". Both devices of a group
    # must get the one backend, and a new init after destroy a new one.
    dist.Backend.register_backend("shmc_two", shmcomm_torch._create, extended_api=True,
                                  devices=["cpu", "cuda"])
    seen = []
    for round_ in range(2):
        dist.init_process_group("shmc_two", rank=rank, world_size=n)
        for g in [dist.group.WORLD, dist.new_group(list(range(n)))]:
            b = g._get_backend(torch.device("cpu"))
            assert b is g._get_backend(torch.device("cuda"))
            assert all(b is not old for old in seen)
            seen.append(b)
            t = torch.ones(3)
            dist.all_reduce(t, group=g)
            assert torch.equal(t, torch.full((3,), float(n)))
        dist.destroy_process_group()


def test_one_backend_for_both_devices():
    harness.run(2, two_devices, backend=None)
