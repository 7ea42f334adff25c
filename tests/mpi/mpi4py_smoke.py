"""mpi4py on shmcomm's MPI interface, as its users start: objects by bcast, send and recv
(which take a lock cached as a communicator attribute, and receive by matched probe),
a NumPy all-reduce, a matched probe by hand, a persistent request and a dup's attribute.
Run under shmrun with 2 or more ranks (make check-mpi4py)."""
import sys

import numpy as np
from mpi4py import MPI


def main():
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    assert size >= 2, "run with 2 or more ranks"
    assert "shmcomm" in MPI.Get_library_version(), MPI.Get_library_version()

    data = comm.bcast({"step": 1, "ranks": list(range(size))} if rank == 0 else None, root=0)
    assert data == {"step": 1, "ranks": list(range(size))}, data

    right, left = (rank + 1) % size, (rank - 1) % size
    req = comm.isend(("hello", rank), dest=right, tag=7)
    assert comm.recv(source=left, tag=7) == ("hello", left)
    req.wait()

    mine = np.full(1000, rank, dtype="f8")
    total = np.empty_like(mine)
    comm.Allreduce(mine, total, op=MPI.SUM)
    assert (total == size * (size - 1) / 2).all(), total[:4]

    if rank == 0:
        for k in range(1, size):
            comm.Send(np.arange(k, dtype="i4"), dest=k, tag=3)
    else:
        status = MPI.Status()
        msg = comm.Mprobe(source=0, tag=3, status=status)
        assert status.Get_count(MPI.INT) == rank, status.Get_count(MPI.INT)
        buf = np.empty(rank, dtype="i4")
        msg.Recv(buf)
        assert (buf == np.arange(rank)).all(), buf

    send = np.array([rank], dtype="i4")
    recv = np.empty(1, dtype="i4")
    reqs = [comm.Send_init(send, dest=right, tag=9), comm.Recv_init(recv, source=left, tag=9)]
    for step in range(3):
        send[0] = rank * 10 + step
        MPI.Prequest.Startall(reqs)
        MPI.Request.Waitall(reqs)
        assert recv[0] == left * 10 + step, recv
    for r in reqs:
        r.Free()

    key = MPI.Comm.Create_keyval(copy_fn=lambda c, k, v: v + 1)
    comm.Set_attr(key, 41)
    dup = comm.Dup()
    assert dup.Get_attr(key) == 42, dup.Get_attr(key)
    dup.Free()
    comm.Delete_attr(key)
    MPI.Comm.Free_keyval(key)

    total = comm.allreduce(rank)
    if rank == 0:
        print(f"mpi4py {MPI.Get_version()} on shmcomm: {size} ranks, sum {total}: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
