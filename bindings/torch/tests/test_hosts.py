"""A "shmc" job across hosts: hosts made of network namespaces (hosts.py), torchrun on
each, as a user scaling out runs it. Every operation at 2x2, at 3+1 and on three hosts
(1+2+1: the leaders' exchange where the host count is not a power of two) against the
same references as one host; a DDP run whose losses are gloo's, step by step; a rank that dies
on the other host makes every other rank's next collective raise within the group's
timeout; the tutorials' programs (examples/torch) under torchrun. Skipped where namespaces
cannot be made (not root), saying why."""
import os
import re

import pytest

import hosts

HERE = os.path.dirname(os.path.abspath(__file__))
PROGS = os.path.join(HERE, "progs")

WHY_NOT = hosts.why_not()
if WHY_NOT and os.environ.get("SHMC_TEST_HOSTS_REQUIRED"):
    raise RuntimeError(f"hosts of network namespaces: {WHY_NOT}, and SHMC_TEST_HOSTS_REQUIRED is set")
pytestmark = pytest.mark.skipif(WHY_NOT is not None, reason=f"hosts of network namespaces: {WHY_NOT}")


def prog(name):
    return os.path.join(PROGS, name)


@pytest.mark.parametrize("layout", [(2, 2), (3, 1), (1, 2, 1)], ids=["2x2", "3+1", "1+2+1"])
def test_every_operation(layout):
    n = sum(layout)
    with hosts.Hosts(len(layout)) as hs:
        rcs, outs = hs.job(layout, prog("hosts_every.py"), "shmc")
    out = "\n".join(outs)
    assert rcs == [0] * len(layout), out
    for r in range(n):
        assert f"every: rank {r} of {n}: ok" in out, out


EXAMPLES = os.path.join(HERE, "..", "..", "..", "examples", "torch")


@pytest.mark.parametrize("name,layout", [("collectives", (2, 2)), ("ring", (3, 1)),
                                         ("pipeline", (2, 2)), ("ddp", (1, 1)),
                                         ("send_recv", (1, 1))])
def test_tutorial_programs(name, layout):
    with hosts.Hosts(len(layout)) as hs:
        rcs, outs = hs.job(layout, os.path.join(EXAMPLES, name + ".py"))
    out = "\n".join(outs)
    assert rcs == [0] * len(layout) and "WRONG" not in out, out
    for r in range(sum(layout)):
        assert f"{name}: rank {r}: ok" in out, out


def losses(out):
    return {(int(r), s): float(v) for r, vs in re.findall(r"^losses (\d+) (.*)$", out, re.M)
            for s, v in enumerate(vs.split())}


def test_ddp_losses_are_gloos():
    with hosts.Hosts(2) as hs:
        got = {}
        for backend in ("gloo", "shmc"):
            rcs, outs = hs.job((2, 2), prog("hosts_ddp.py"), backend, 8)
            assert rcs == [0, 0], "\n".join(outs)
            got[backend] = losses("\n".join(outs))
    assert len(got["gloo"]) == 4 * 8, got
    assert got["shmc"].keys() == got["gloo"].keys()
    for k, v in got["gloo"].items():
        # (the sums are the same, their order not: rounding may differ in the last bits)
        assert got["shmc"][k] == pytest.approx(v, rel=1e-5), (k, got["shmc"][k], v)


def test_dead_rank_on_other_host():
    # The group's timeout is what ends the other host's waits: torch's default (30 min)
    # would outlast the job's 120 s, and a rank killed with the job prints no line. How
    # long each took is printed, not bounded: a loaded machine may take longer.
    timeout = 10
    with hosts.Hosts(2) as hs:
        rcs, outs = hs.job((2, 2), prog("hosts_dead.py"), timeout, timeout=120)
    out = "\n".join(outs)
    for r in range(3):
        m = re.search(rf"^dead: rank {r} raised after (\S+) s: (.*)$", out, re.M)
        assert m, out
        assert "shmc" in m.group(2), out


def cuda_why_not():
    """None where CUDA tensors can cross hosts here, else why not."""
    import torch

    if not torch.cuda.is_available():
        return "no usable GPU"
    import torch.distributed as dist

    if not dist.is_nccl_available():
        return "this torch has no NCCL"
    return None


@pytest.mark.skipif(cuda_why_not() is not None, reason=f"CUDA across hosts: {cuda_why_not()}")
def test_cuda_tensors():
    # One rank per host: NCCL takes one GPU per rank of a host, and a test machine may
    # have one GPU.
    with hosts.Hosts(2) as hs:
        rcs, outs = hs.job((1, 1), prog("hosts_cuda.py"))
    out = "\n".join(outs)
    assert rcs == [0, 0], out
    for r in range(2):
        assert f"cuda: rank {r} of 2: ok" in out, out
