"""What every example shares: the tutorials' start-up (torch.multiprocessing.spawn, with
MASTER_ADDR and MASTER_PORT; or, started by torchrun, on one host or several, the process
it started), the backend by name ("shmc"; SHMC_TORCH_BACKEND=gloo runs the same program on
gloo), and the check each example ends with."""
import os
import socket
import sys

import torch.distributed as dist
import torch.multiprocessing as mp

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "bindings", "torch"))
import shmcomm_torch  # noqa: E402,F401  (registers "shmc")

BACKEND = os.environ.get("SHMC_TORCH_BACKEND", "shmc")


def _setup_and_run(rank, world_size, fn):
    dist.init_process_group(BACKEND, rank=rank, world_size=world_size)
    try:
        fn(rank, world_size)
    finally:
        dist.destroy_process_group()


def main(fn, world_size):
    """Runs fn(rank, world_size) in world_size processes, each in the default group; under
    torchrun (which sets RANK and WORLD_SIZE), in this process, one of its world_size."""
    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:
        n = int(os.environ["WORLD_SIZE"])
        if n != world_size:
            raise SystemExit(f"this example runs on {world_size} ranks; torchrun started {n}")
        _setup_and_run(int(os.environ["RANK"]), n, fn)
        return
    if "MASTER_PORT" not in os.environ:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            os.environ["MASTER_PORT"] = str(s.getsockname()[1])
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    mp.spawn(_setup_and_run, args=(world_size, fn), nprocs=world_size, join=True)


def ok(name, rank, cond, what):
    """Every example checks its own result and says so."""
    if not cond:
        raise SystemExit(f"{name}: rank {rank}: WRONG: {what}")
    print(f"{name}: rank {rank}: ok ({what})", flush=True)
