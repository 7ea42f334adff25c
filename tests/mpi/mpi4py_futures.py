"""mpi4py.futures on shmcomm's MPI interface: a pool of the job's other ranks (python -m
mpi4py.futures runs this on rank 0 and makes the rest workers, over an intercommunicator
between the two), mapping a function and taking results and exceptions back.
Run under shmrun with 2 or more ranks (make check-mpi4py)."""
import sys

from mpi4py import MPI
from mpi4py.futures import MPIPoolExecutor


def square_or_fail(x):
    if x == 13:
        raise ValueError("thirteen")
    return x * x, MPI.COMM_WORLD.Get_rank()


def main():
    with MPIPoolExecutor() as ex:
        assert ex.num_workers == MPI.COMM_WORLD.Get_size() - 1, ex.num_workers
        got = list(ex.map(square_or_fail, range(13)))
        assert [v for v, _ in got] == [x * x for x in range(13)], got
        assert all(r != 0 for _, r in got), got  # computed by the workers
        fut = ex.submit(square_or_fail, 13)
        try:
            fut.result()
        except ValueError as e:
            assert str(e) == "thirteen", e
        else:
            raise AssertionError("the worker's exception did not come back")
    print(f"mpi4py.futures: {len(got)} results from {MPI.COMM_WORLD.Get_size() - 1} workers")


if __name__ == "__main__":
    main()
    sys.exit(0)
