"""Every operation torch.distributed dispatches to a backend, on "shmc", at 1 to 4
processes, against results computed here: each rank knows every rank's input (a function
of rank, dtype and call), so each checks its own output exactly (or within the rounding
of float16/bfloat16 averages)."""
import functools

import pytest
import torch
import torch.distributed as dist

import harness
import shmcomm_torch  # noqa: F401  (registers "shmc")

DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8,
          torch.uint8, torch.int16, torch.int32, torch.int64, torch.bool, torch.uint16,
          torch.uint32, torch.uint64]
FLOATS = {torch.float32, torch.float64, torch.float16, torch.bfloat16}
OPS = ["SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR", "PREMUL_SUM"]


def data(rank, numel, dtype, salt, small=False):
    """Rank `rank`'s input: small whole numbers (exact in every dtype), 1..2 for products."""
    g = torch.Generator().manual_seed(1000 * rank + 17 * salt + numel)
    if dtype == torch.bool:
        return torch.randint(0, 2, (numel,), generator=g).bool()
    hi = 3 if small else 8
    return torch.randint(1 if small else 0, hi, (numel,), generator=g).to(dtype)


def valid(op, dtype):
    if op in ("AVG", "PREMUL_SUM"):
        return dtype in FLOATS
    if op in ("BAND", "BOR", "BXOR"):
        return dtype not in FLOATS
    return True


def reduce_op(op):
    if op == "PREMUL_SUM":
        return dist._make_nccl_premul_sum(2.0)
    return getattr(dist.ReduceOp, op)


def reference(op, inputs):
    dt = inputs[0].dtype
    st = torch.stack(inputs)
    if dt == torch.bool:
        if op in ("SUM", "MAX", "BOR"):
            return st.any(0)
        if op in ("PRODUCT", "MIN", "BAND"):
            return st.all(0)
        return functools.reduce(torch.logical_xor, inputs)
    wide = st.double() if dt in FLOATS else st.long()
    if op == "SUM":
        r = wide.sum(0)
    elif op == "AVG":
        r = wide.sum(0) / len(inputs)
    elif op == "PREMUL_SUM":
        r = (2.0 * wide).sum(0)
    elif op == "PRODUCT":
        r = wide.prod(0)
    elif op == "MIN":
        r = wide.amin(0)
    elif op == "MAX":
        r = wide.amax(0)
    else:
        f = {"BAND": torch.bitwise_and, "BOR": torch.bitwise_or, "BXOR": torch.bitwise_xor}[op]
        r = functools.reduce(f, list(st.long()))
    return r.to(dt)


def close(got, want, what):
    if got.dtype in (torch.float16, torch.bfloat16):
        assert torch.allclose(got.double(), want.double(), rtol=1e-2, atol=1e-2), (what, got, want)
    else:
        assert torch.equal(got, want), (what, got, want)


def reductions(rank, n, group, granks):
    """all_reduce (blocking, async and shmcomm_torch's direct call), reduce, reduce_scatter(_tensor) over every dtype x
    op, on group (its global ranks granks, in group rank order)."""
    granks = dist.get_process_group_ranks(group) if group is not None else granks
    me = granks.index(dist.get_rank())
    salt = 0
    for dt in DTYPES:
        for op in OPS:
            if not valid(op, dt):
                continue
            salt += 1
            small = op == "PRODUCT"
            ins = [data(r, 7, dt, salt, small) for r in granks]
            want = reference(op, ins)
            t = ins[me].clone()
            dist.all_reduce(t, op=reduce_op(op), group=group)
            close(t, want, f"all_reduce {dt} {op}")
            t = ins[me].clone()
            assert shmcomm_torch.inference_all_reduce(t, reduce_op(op), group) is t
            close(t, want, f"inference_all_reduce {dt} {op}")
            t = ins[me].clone()
            w = dist.all_reduce(t, op=reduce_op(op), group=group, async_op=True)
            w.wait()
            close(t, want, f"async all_reduce {dt} {op}")
            t = ins[me].clone()
            root = granks[-1]
            dist.reduce(t, root, op=reduce_op(op), group=group)
            if dist.get_rank() == root:
                close(t, want, f"reduce {dt} {op}")
            # reduce_scatter_tensor: block i of the result goes to group rank i
            k = len(granks)
            big = [data(r, 3 * k, dt, salt + 500, small) for r in granks]
            wbig = reference(op, big)
            out = torch.empty(3, dtype=dt)
            dist.reduce_scatter_tensor(out, big[me].clone(), op=reduce_op(op), group=group)
            close(out, wbig[3 * me:3 * me + 3], f"reduce_scatter_tensor {dt} {op}")
            out2 = torch.empty(3, dtype=dt)
            dist.reduce_scatter(out2, list(big[me].clone().chunk(k)), op=reduce_op(op),
                                group=group)
            close(out2, wbig[3 * me:3 * me + 3], f"reduce_scatter {dt} {op}")


def movements(rank, n, group, granks):
    """broadcast, all_gather(_into_tensor), gather, scatter, all_to_all(_single) over every
    dtype, blocking and async."""
    granks = dist.get_process_group_ranks(group) if group is not None else granks
    me, k = granks.index(dist.get_rank()), len(granks)
    for i, dt in enumerate(DTYPES):
        ins = [data(r, 5, dt, 100 + i) for r in granks]
        for root_i, root in enumerate(granks):
            t = ins[me].clone()
            dist.broadcast(t, root, group=group)
            close(t, ins[root_i], f"broadcast {dt} from {root}")
        outs = [torch.empty(5, dtype=dt) for _ in granks]
        dist.all_gather(outs, ins[me], group=group)
        for r in range(k):
            close(outs[r], ins[r], f"all_gather {dt}")
        flat = torch.empty(5 * k, dtype=dt)
        dist.all_gather_into_tensor(flat, ins[me], group=group, async_op=True).wait()
        close(flat, torch.cat(ins), f"all_gather_into_tensor {dt}")
        root = granks[0]
        g = [torch.empty(5, dtype=dt) for _ in granks] if dist.get_rank() == root else None
        dist.gather(ins[me], g, dst=root, group=group)
        if g is not None:
            for r in range(k):
                close(g[r], ins[r], f"gather {dt}")
        s = torch.empty(5, dtype=dt)
        src = [data(r, 5, dt, 300 + i) for r in granks]
        dist.scatter(s, src if dist.get_rank() == root else None, src=root, group=group)
        close(s, data(granks[me], 5, dt, 300 + i), f"scatter {dt}")
        # all_to_all_single, even and uneven: rank a sends rank b (a + b) % 3 + 1 rows
        even_in = torch.cat([data(granks[me] * 10 + d, 2, dt, 400 + i) for d in range(k)])
        even_out = torch.empty(2 * k, dtype=dt)
        dist.all_to_all_single(even_out, even_in, group=group)
        close(even_out, torch.cat([data(granks[s_] * 10 + me, 2, dt, 400 + i) for s_ in range(k)]),
              f"all_to_all_single {dt}")
        rows = lambda a, b: (a + b) % 3 + 1  # noqa: E731
        send = [data(granks[me] * 10 + d, 2 * rows(me, d), dt, 500 + i).view(-1, 2)
                for d in range(k)]
        uin = torch.cat(send)
        uout = torch.empty(sum(rows(s_, me) for s_ in range(k)), 2, dtype=dt)
        dist.all_to_all_single(uout, uin, output_split_sizes=[rows(s_, me) for s_ in range(k)],
                               input_split_sizes=[rows(me, d) for d in range(k)], group=group)
        want = torch.cat([data(granks[s_] * 10 + me, 2 * rows(s_, me), dt, 500 + i).view(-1, 2)
                          for s_ in range(k)])
        close(uout, want, f"uneven all_to_all_single {dt}")
        outl = [torch.empty(2 * rows(s_, me), dtype=dt) for s_ in range(k)]
        dist.all_to_all(outl, [t.reshape(-1) for t in send], group=group)
        for s_ in range(k):
            close(outl[s_], want_part(granks, s_, me, dt, i, rows), f"all_to_all {dt}")
    dist.barrier(group=group)


def want_part(granks, s_, me, dt, i, rows):
    return data(granks[s_] * 10 + me, 2 * rows(s_, me), dt, 500 + i)


def point_to_point(rank, n):
    """send/recv around a ring, isend/irecv, recv from any source, batch_isend_irecv,
    non-contiguous and complex tensors."""
    right, left = (rank + 1) % n, (rank - 1) % n
    for dt in DTYPES:
        x = data(rank, 6, dt, 7)
        y = torch.empty(6, dtype=dt)
        if n == 1:
            continue
        if rank % 2 == 0:
            dist.send(x, right)
            dist.recv(y, left)
        else:
            dist.recv(y, left)
            dist.send(x, right)
        close(y, data(left, 6, dt, 7), f"ring {dt}")
    if n == 1:
        return
    big = torch.arange(1 << 18, dtype=torch.float32) + rank
    got = torch.empty_like(big)
    reqs = [dist.irecv(got, left, tag=3), dist.isend(big, right, tag=3)]
    for r in reqs:
        r.wait()
    assert torch.equal(got, torch.arange(1 << 18, dtype=torch.float32) + left)
    # any source: rank 0 receives one message from every other rank
    if rank == 0:
        seen = set()
        for _ in range(n - 1):
            t = torch.empty(1, dtype=torch.int64)
            src = dist.recv(t, tag=9)
            assert t.item() == 100 + src, (t, src)
            seen.add(src)
        assert seen == set(range(1, n))
    else:
        dist.send(torch.tensor([100 + rank]), 0, tag=9)
    ops = [dist.P2POp(dist.isend, torch.full((3,), float(rank)), right),
           dist.P2POp(dist.irecv, got[:3], left)]
    for w in dist.batch_isend_irecv(ops):
        w.wait()
    assert torch.equal(got[:3], torch.full((3,), float(left)))
    # non-contiguous: a transposed matrix, received into a transposed one
    m = (torch.arange(12.0).view(3, 4) + rank).t()
    r = torch.zeros(3, 4).t()
    w1, w2 = dist.irecv(r, left), dist.isend(m, right)
    w1.wait()
    w2.wait()
    assert torch.equal(r, (torch.arange(12.0).view(3, 4) + left).t())
    # complex
    c = torch.tensor([1 + 2j, 3 - 1j], dtype=torch.complex64) * (rank + 1)
    dist.all_reduce(c)
    assert torch.allclose(c, torch.tensor([1 + 2j, 3 - 1j], dtype=torch.complex64) * (n * (n + 1) / 2))


def objects(rank, n):
    objs = [None] * n
    dist.all_gather_object(objs, {"rank": rank, "name": f"r{rank}"})
    assert objs == [{"rank": r, "name": f"r{r}"} for r in range(n)]
    lst = [rank, "x" * rank] if rank == 0 else [None, None]
    dist.broadcast_object_list(lst, src=0)
    assert lst == [0, ""]
    out = [None] * n if rank == 0 else None
    dist.gather_object(("g", rank), out, dst=0)
    if rank == 0:
        assert out == [("g", r) for r in range(n)]
    got = [None]
    dist.scatter_object_list(got, [f"to{r}" for r in range(n)] if rank == 0 else None, src=0)
    assert got[0] == f"to{rank}"


def non_contiguous(rank, n):
    m = (torch.arange(12.0).view(3, 4) * (rank + 1)).t()
    assert not m.is_contiguous()
    dist.all_reduce(m)
    assert torch.equal(m, (torch.arange(12.0).view(3, 4) * (n * (n + 1) / 2)).t())
    b = torch.zeros(4, 3).t() if rank else torch.arange(12.0).view(3, 4)
    dist.broadcast(b, 0)
    assert torch.equal(b, torch.arange(12.0).view(3, 4))


def everything(rank, n):
    world = list(range(n))
    reductions(rank, n, None, world)
    movements(rank, n, None, world)
    point_to_point(rank, n)
    objects(rank, n)
    non_contiguous(rank, n)
    # A group of the odd ranks (listed in reverse; torch orders a group's ranks), made by
    # all (torch's default) ...
    odd = [r for r in reversed(range(n)) if r % 2]
    g = dist.new_group(odd) if odd else None
    if rank in odd:
        reductions(rank, n, g, odd)
        movements(rank, n, g, odd)
    # ... and one made by its members only.
    even = [r for r in range(n) if r % 2 == 0]
    if rank in even:
        h = dist.new_group(even, use_local_synchronization=True)
        reductions(rank, n, h, even)
    dist.barrier()


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_every_operation(n):
    harness.run(n, everything)


def coalesced_and_futures(rank, n):
    """The coalesced forms (all_reduce_coalesced, all_gather_coalesced, the coalescing
    manager) and the futures of asynchronous work, collective and point-to-point."""
    import warnings

    warnings.filterwarnings("ignore", category=FutureWarning)
    total = sum(range(n))
    a, b = torch.ones(3) * rank, torch.arange(4.0) * rank
    dist.all_reduce_coalesced([a, b])
    assert torch.equal(a, torch.ones(3) * total) and torch.equal(b, torch.arange(4.0) * total)
    outs = [[torch.empty(2) for _ in range(n)], [torch.empty(1) for _ in range(n)]]
    dist.all_gather_coalesced(outs, [torch.full((2,), float(rank)), torch.tensor([rank * 10.0])])
    assert [o[0].item() for o in outs[0]] == list(range(n))
    assert [o.item() for o in outs[1]] == [10.0 * r for r in range(n)]
    x, y = torch.ones(2) * rank, torch.ones(5, dtype=torch.int64) * rank
    with dist._coalescing_manager(async_ops=True) as cm:
        dist.all_reduce(x)
        dist.all_reduce(y)
    cm.wait()
    assert x[0].item() == total and y[0].item() == total, (x, y)
    # A collective's future, chained, and waited without Work.wait.
    t = torch.ones(4) * (rank + 1)
    fut = dist.all_reduce(t, async_op=True).get_future()
    doubled = fut.then(lambda f: f.value()[0] * 2).wait()
    assert torch.equal(doubled, torch.full((4,), float(n * (n + 1)))), doubled
    # Several asynchronous collectives in flight, completed out of order of waiting.
    ts = [torch.full((3,), float(rank + k)) for k in range(5)]
    works = [dist.all_reduce(t_, async_op=True) for t_ in ts]
    for k in reversed(range(5)):
        works[k].wait()
        assert works[k].is_completed()
        assert ts[k][0].item() == total + n * k
    if n > 1:
        right, left = (rank + 1) % n, (rank - 1) % n
        got = torch.empty(2)
        rf = dist.irecv(got, left).get_future()
        dist.isend(torch.full((2,), float(rank)), right).get_future().wait()
        assert torch.equal(rf.wait()[0], torch.full((2,), float(left)))


@pytest.mark.parametrize("n", [1, 3])
def test_coalesced_and_futures(n):
    harness.run(n, coalesced_and_futures)


def gil_released(rank, n, both):
    """A blocking call and a wait let other Python threads of the process run: a counting
    thread advances by much more than the few steps of the calls' edges while rank 0
    waits in a barrier (and a Work.wait) for rank 1, which comes half a second late."""
    import threading
    import time

    count, stop = [0], [False]

    def spin():
        while not stop[0]:
            count[0] += 1

    th = threading.Thread(target=spin)
    th.start()
    try:
        for how in ("barrier", "wait"):
            both.wait(50)  # rank 0 is about to call when rank 1's half second begins
            if rank == 1:
                time.sleep(0.5)
            c0 = count[0]
            if how == "barrier":
                dist.barrier()
            else:
                t = torch.ones(1)
                dist.all_reduce(t, async_op=True).wait()
            if rank == 0:
                assert count[0] - c0 > 1000, f"{how}: the counting thread made {count[0] - c0} steps"
    finally:
        stop[0] = True
        th.join()


def test_gil_released_while_waiting():
    harness.run(2, gil_released, harness.rendezvous(2))
