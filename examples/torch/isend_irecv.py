"""Non-blocking send and receive: both sides go on working until they wait."""
import torch
import torch.distributed as dist

import launch


def run(rank, world_size):
    if rank == 0:
        send_tensor = torch.full((1000,), 42.0)
        req = dist.isend(tensor=send_tensor, dst=1)
        busy = sum(i * i for i in range(1000))  # work while the message travels
        req.wait()
        launch.ok("isend_irecv", rank, req.is_completed() and busy > 0, "sent 1000 floats")
    else:
        recv_tensor = torch.zeros(1000)
        req = dist.irecv(tensor=recv_tensor, src=0)
        req.wait()
        launch.ok("isend_irecv", rank, bool((recv_tensor == 42.0).all()), "received 1000 x 42.0")


if __name__ == "__main__":
    launch.main(run, 2)
