"""Blocking send and receive: rank 0 sends a tensor, rank 1 receives it."""
import torch
import torch.distributed as dist

import launch


def run(rank, world_size):
    tensor = torch.zeros(4)
    if rank == 0:
        tensor += torch.arange(4.0) + 1
        dist.send(tensor=tensor, dst=1)
    else:
        dist.recv(tensor=tensor, src=0)
    launch.ok("send_recv", rank, torch.equal(tensor, torch.arange(4.0) + 1), tensor.tolist())


if __name__ == "__main__":
    launch.main(run, 2)
