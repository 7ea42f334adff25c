"""torch.distributed backend "shmc": shmcomm's shared-memory transport for processes of one
machine.

    import shmcomm_torch  # registers the backend
    torch.distributed.init_process_group("shmc", ...)

Every program written for "gloo" runs by changing the backend's name. See the README's
"PyTorch" section for what is supported and the limits.
"""
import datetime
import os

import torch
import torch.distributed as dist

from . import _C

__all__ = ["BACKEND", "inference_all_reduce", "version"]

BACKEND = "shmc"


def version():
    """The shmcomm library's version."""
    return _C.version()


def inference_all_reduce(tensor, op=dist.ReduceOp.SUM, group=None):
    """all_reduce(tensor, op, group) in place, blocking, without torch.distributed's
    dispatch: what DeepSpeed's deepspeed.comm.inference_all_reduce is to its backend, for
    the small all-reduces of CPU inference, where that dispatch is most of the time. The
    group's backend must be shmc. Returns tensor."""
    g = group if group is not None else dist.group.WORLD
    if g is None:
        raise RuntimeError("shmc: inference_all_reduce before init_process_group")
    if g == dist.GroupMember.NON_GROUP_MEMBER:
        return tensor
    # A ReduceOp made once per op: converting a RedOpType on each call costs about as
    # much as the rest of the call does at small sizes.
    if isinstance(op, dist.ReduceOp.RedOpType):
        op = _OPS.get(op) or dist.ReduceOp(op)
    _C.all_reduce(g._get_backend(tensor.device if tensor.is_cuda else _CPU), tensor, op)
    return tensor


_CPU = torch.device("cpu")
_OPS = {o: dist.ReduceOp(o) for o in dist.ReduceOp.RedOpType.__members__.values()
        if o != dist.ReduceOp.RedOpType.PREMUL_SUM}


def _timeout_ms(timeout):
    if isinstance(timeout, datetime.timedelta):
        return int(timeout.total_seconds() * 1000)
    return int(float(timeout) * 1000)


# With CUDA, "shmc" serves both devices; torch then makes one backend per group and
# registers it for both (its creator is called once when every device names the same
# backend), so a group is one communicator whatever its tensors' device.
_DEVICES = ["cpu", "cuda"] if torch.cuda.is_available() else ["cpu"]


def _can_nccl():
    return torch.cuda.is_available() and dist.is_nccl_available()


def _hosts(store, rank, size):
    """The group's ranks by host, from each rank's machine id (shmc_machine_id, which tells
    namespaces and containers apart) through the group's store: a list of lists of group
    ranks, each in rank order, hosts in the order of their lowest rank; and whether every
    rank has NCCL and a GPU (so that all make NCCL's groups, or none does)."""
    store.set(f"shmc_host/{rank}", f"{int(_can_nccl())} {_C.machine_id()}")
    says = [v.decode().split(" ", 1) for v in
            store.multi_get([f"shmc_host/{r}" for r in range(size)])]
    hosts = {}
    for r, (_, i) in enumerate(says):
        hosts.setdefault(i, []).append(r)
    return list(hosts.values()), all(nccl == "1" for nccl, _ in says)


def _create(dist_opts, backend_opts):
    # torch's extended plugin API: the group's store, rank, size, timeout, name and the
    # global ranks of its members (what a group made by its members alone needs).
    store, rank, size = dist_opts.store, dist_opts.group_rank, dist_opts.group_size
    timeout, name = _timeout_ms(dist_opts.timeout), str(dist_opts.group_id)
    granks = list(dist_opts.global_ranks_in_group) or list(range(size))
    hosts, nccl_everywhere = _hosts(store, rank, size) if size > 1 else ([[0]], False)
    if len(hosts) == 1:
        return _C.create(store, rank, size, timeout, name, granks)
    # Across hosts (csrc/hosts.h): this host's ranks through shared memory, one rank per
    # host and all ranks on gloo (and on NCCL for CUDA tensors, where torch has it), each
    # group on the store under a prefix of ours.
    h = next(i for i, ranks in enumerate(hosts) if rank in ranks)
    local = hosts[h]
    # A rank waiting within its host for its leader's network step waits for a network:
    # yielding the CPU a thousand times first (the library's choice where ranks outnumber
    # CPUs) takes it from the threads doing that step. The library's choice where each rank
    # has a CPU of its own, unless the user chose; read when the process joins its job.
    os.environ.setdefault("SHMC_YIELD", "8")
    here = _C.create(dist.PrefixStore(f"shmc_local/{h}/", store), local.index(rank), len(local),
                     timeout, f"{name}/host{h}", [granks[r] for r in local])
    lead = local[0] == rank

    def engine(make, prefix):
        # The leaders' group (None where this rank does not lead its host) and all ranks'.
        store_of = lambda what: dist.PrefixStore(f"{prefix}{what}/", store)  # noqa: E731
        return (make(store_of("leaders"), h, len(hosts)) if lead else None,
                make(store_of("all"), rank, size))

    gloo = engine(lambda s, r, n: dist.ProcessGroupGloo(s, r, n, dist_opts.timeout), "shmc_")
    nccl = (None, None)
    if nccl_everywhere:
        # Made now, connected by NCCL at the first CUDA collective that needs it.
        def make_nccl(s, r, n):
            opts = dist.ProcessGroupNCCL.Options()
            opts._timeout = dist_opts.timeout
            return dist.ProcessGroupNCCL(s, r, n, opts)
        nccl = engine(make_nccl, "shmc_nccl_")
    return _C.create_hosts(here, gloo[0], gloo[1], nccl[0], nccl[1], rank, size, hosts, timeout,
                           name)


def _register():
    if BACKEND.upper() in dist.Backend._plugins:
        return
    dist.Backend.register_backend(BACKEND, _create, extended_api=True, devices=_DEVICES)


_register()

# torch refuses monitored_barrier for any backend but gloo before it reaches one; for a
# shmc group, this runs the backend's own (rank 0 names the ranks that did not arrive).
_torch_monitored_barrier = dist.monitored_barrier


def _monitored_barrier(group=None, timeout=None, wait_all_ranks=False):
    g = group if group is not None else dist.group.WORLD
    if dist.get_backend(g) != BACKEND:
        return _torch_monitored_barrier(group=group, timeout=timeout, wait_all_ranks=wait_all_ranks)
    if g is None or g == dist.GroupMember.NON_GROUP_MEMBER:
        return None
    if timeout is None:
        timeout = datetime.timedelta(minutes=30)
    backend = g._get_backend(torch.device("cpu"))
    _C.monitored_barrier(backend, _timeout_ms(timeout), bool(wait_all_ranks))
    return None


dist.monitored_barrier = _monitored_barrier
torch.distributed.distributed_c10d.monitored_barrier = _monitored_barrier
