"""Every operation of test_ops on the backend named by argv[1] (env://, as torchrun starts
it), on the world and on groups of the odd and the even ranks, then the coalesced forms and
the futures; says so."""
import sys

import torch.distributed as dist

import shmcomm_torch  # noqa: F401


def say(line):
    # One write: torchrun's workers share its stdout unbuffered, where print's text and
    # newline go in two writes that another rank's line may come between.
    sys.stdout.write(line + "\n")
    sys.stdout.flush()

import test_ops

dist.init_process_group(sys.argv[1])
r, n = dist.get_rank(), dist.get_world_size()
test_ops.everything(r, n)
test_ops.coalesced_and_futures(r, n)
dist.destroy_process_group()
say(f"every: rank {r} of {n}: ok")
