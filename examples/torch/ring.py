"""A ring: every rank passes what it got to its right neighbour with isend/irecv, world
size - 1 times, summing what passes; every rank ends with the sum of all ranks."""
import torch
import torch.distributed as dist

import launch


def run(rank, world_size):
    right, left = (rank + 1) % world_size, (rank - 1) % world_size
    send_tensor = torch.tensor([float(rank)])
    recv_tensor = torch.zeros(1)
    total = send_tensor.clone()
    for _ in range(world_size - 1):
        # Even ranks send first, odd ranks receive first: no send/send deadlock either way.
        if rank % 2 == 0:
            req_send = dist.isend(tensor=send_tensor, dst=right)
            req_recv = dist.irecv(tensor=recv_tensor, src=left)
        else:
            req_recv = dist.irecv(tensor=recv_tensor, src=left)
            req_send = dist.isend(tensor=send_tensor, dst=right)
        req_send.wait()
        req_recv.wait()
        total += recv_tensor
        send_tensor = recv_tensor.clone()
    want = world_size * (world_size - 1) / 2
    launch.ok("ring", rank, total.item() == want, f"sum {total.item()}")


if __name__ == "__main__":
    launch.main(run, 4)
