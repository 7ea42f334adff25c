"""Ping-pong: a tensor goes back and forth, each side adding one, and the round trip is
timed."""
import time

import torch
import torch.distributed as dist

import launch

ROUNDS = 1000


def run(rank, world_size):
    tensor = torch.zeros(1)
    t0 = time.perf_counter()
    for _ in range(ROUNDS):
        if rank == 0:
            tensor += 1
            dist.send(tensor=tensor, dst=1)
            dist.recv(tensor=tensor, src=1)
        else:
            dist.recv(tensor=tensor, src=0)
            tensor += 1
            dist.send(tensor=tensor, dst=0)
    us = (time.perf_counter() - t0) / ROUNDS * 1e6
    launch.ok("ping_pong", rank, tensor.item() == 2 * ROUNDS,
              f"{ROUNDS} round trips, {us:.1f} us each")


if __name__ == "__main__":
    launch.main(run, 2)
