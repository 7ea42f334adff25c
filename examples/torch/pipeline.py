"""A pipeline: rank 0 starts a tensor, every stage adds its rank and passes it on, the last
sends it back to rank 0."""
import torch
import torch.distributed as dist

import launch


def run(rank, world_size):
    tensor = torch.zeros(8)
    if rank == 0:
        tensor += 1
        dist.send(tensor=tensor, dst=1)
        dist.recv(tensor=tensor, src=world_size - 1)
        want = 1 + sum(range(1, world_size))
        launch.ok("pipeline", rank, bool((tensor == want).all()), f"came back as {tensor[0].item()}")
    else:
        dist.recv(tensor=tensor, src=rank - 1)
        tensor += rank
        dist.send(tensor=tensor, dst=(rank + 1) % world_size)
        launch.ok("pipeline", rank, True, "passed it on")


if __name__ == "__main__":
    launch.main(run, 4)
