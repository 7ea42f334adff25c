"""The tutorials' programs in examples/torch, each run as a user runs it (python3 FILE,
which starts its processes with torch.multiprocessing.spawn) on "shmc"; each checks its
own result and every rank must say ok."""
import os
import subprocess
import sys

import pytest

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                        "examples", "torch")
PROGRAMS = {"send_recv": 2, "isend_irecv": 2, "ping_pong": 2, "pipeline": 4, "ring": 4,
            "chunked": 2, "overlap": 2, "collectives": 4, "ddp": 2}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_example(name):
    p = subprocess.run([sys.executable, os.path.join(EXAMPLES, name + ".py")],
                       capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, SHMC_TORCH_BACKEND="shmc"))
    out = p.stdout + p.stderr
    assert p.returncode == 0, out
    assert "WRONG" not in out, out
    for r in range(PROGRAMS[name]):
        assert f"{name}: rank {r}: ok" in out, out
