"""Runs a test's body in N processes joined by torch.distributed, the tutorials' way
(MASTER_ADDR/MASTER_PORT and an explicit rank and world size), and fails the test with
every failing rank's traceback. Processes are forked from the test process (torch is
already imported there, so a job starts in milliseconds, not seconds)."""
import os
import socket
import traceback

import torch.multiprocessing as mp


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _entry(rank, n, port, backend, fn, args, errq):
    import torch.distributed as dist

    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    try:
        if backend:
            dist.init_process_group(backend, rank=rank, world_size=n)
        fn(rank, n, *args)
        if backend and dist.is_initialized():
            dist.destroy_process_group()
    except BaseException:
        errq.put((rank, traceback.format_exc()))
        os._exit(1)


def rendezvous(n):
    """A barrier of n ranks outside the process group under test (forked ranks only), for
    tests whose ranks must not leave before the others have seen what is tested."""
    return mp.get_context("fork").Barrier(n)


def run(n, fn, *args, backend="shmc", timeout=120, may_die=(), start="fork"):
    """fn(rank, n, *args) in n processes, each in a process group of `backend` (None:
    none made). Ranks in may_die may end as they like. start "spawn" for processes that
    use CUDA (fn must then be a module-level function). Raises AssertionError with the
    failures."""
    ctx = mp.get_context(start)
    errq = ctx.SimpleQueue()
    port = free_port()
    procs = [ctx.Process(target=_entry, args=(r, n, port, backend, fn, args, errq))
             for r in range(n)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout)
    hung = [r for r, p in enumerate(procs) if p.is_alive()]
    for p in procs:
        if p.is_alive():
            p.kill()
            p.join()
    errors = []
    while not errq.empty():
        errors.append(errq.get())
    errors = [(r, tb) for r, tb in errors if r not in may_die]
    msg = "".join(f"--- rank {r} ---\n{tb}" for r, tb in sorted(errors))
    if hung:
        msg += f"ranks {hung} still running after {timeout} s\n"
    bad = [r for r, p in enumerate(procs) if p.exitcode != 0 and r not in may_die]
    assert not msg and not bad, msg or f"ranks {bad} exited with non-zero status"
