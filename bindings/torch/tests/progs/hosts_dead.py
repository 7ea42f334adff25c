"""The last rank ends abruptly once the group is made; every other rank's next all_reduce
must raise a RuntimeError within the group's timeout (argv[1] seconds): prints
"dead: rank R raised after S s" with the first line of the message."""
import datetime
import os
import sys
import time

import torch
import torch.distributed as dist

import shmcomm_torch  # noqa: F401


def say(line):
    # One write: torchrun's workers share its stdout unbuffered, where print's text and
    # newline go in two writes that another rank's line may come between.
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


timeout = float(sys.argv[1])
dist.init_process_group("shmc", timeout=datetime.timedelta(seconds=timeout))
r, n = dist.get_rank(), dist.get_world_size()
dist.barrier()
if r == n - 1:
    os._exit(0)  # (0: torchrun's agent then leaves the other ranks of its host alone)
t0 = time.monotonic()
try:
    dist.all_reduce(torch.ones(4))
    say(f"dead: rank {r} did not raise")
except RuntimeError as e:
    first = str(e).splitlines()[0][:300]
    say(f"dead: rank {r} raised after {time.monotonic() - t0:.1f} s: {first}")
os._exit(0)
