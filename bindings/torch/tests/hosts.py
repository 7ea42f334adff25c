"""Hosts made of network namespaces, for jobs across hosts on one machine.

Each host is a network namespace with its own loopback and a veth to a bridge, which lives in
a namespace of its own (the machine's own network is not touched), at 10.213.0.(k + 1)/24:
those addresses exist only inside the namespaces made here. Every process started on a host
also gets its own UTS hostname (hostK), a private /dev/shm (a tmpfs that goes with the
host's processes), an /etc/hosts naming every host, as machines of a cluster have, and,
where the machine has at least as many CPUs as hosts, CPUs of its own (an equal share of
this process's), as separate machines have: a host's processes then see how many CPUs
their host has. Needs root, ip(8), unshare(1) and taskset(1): `why_not()` says what is
missing.

    with Hosts(2) as hs:
        procs = [hs.torchrun(k, nproc, prog, *args) for k in range(2)]
"""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PKG = os.path.dirname(HERE)
NET = "10.213.0"
PORT = 29500


def _ip(*args, check=True):
    return subprocess.run(["ip", *args], capture_output=True, text=True, check=check)


def why_not():
    """None when namespace hosts can be made here, else why not."""
    if os.geteuid() != 0:
        return "needs root (network namespaces, mounts)"
    for tool in ("ip", "unshare", "taskset"):
        if not shutil.which(tool):
            return f"needs {tool}"
    probe = f"shmcp{os.getpid() % 100000}"
    r = _ip("netns", "add", probe, check=False)
    if r.returncode != 0:
        return f"cannot make a network namespace: {r.stderr.strip()}"
    _ip("netns", "del", probe, check=False)
    return None


class Hosts:
    def __init__(self, n):
        self.n = n
        tag = os.getpid() % 100000
        self.switch = f"shmcs{tag}"
        self.names = [f"shmch{tag}-{k}" for k in range(n)]
        self.veths = [f"shv{tag}-{k}" for k in range(n)]
        self.procs = []
        self.dir = None
        cpus = sorted(os.sched_getaffinity(0))
        per = len(cpus) // n
        self.cpus = [cpus[k * per:(k + 1) * per] for k in range(n)] if per else [cpus] * n

    def addr(self, k):
        return f"{NET}.{k + 1}"

    def __enter__(self):
        try:
            self.dir = tempfile.mkdtemp(prefix="shmc-hosts-")
            with open(os.path.join(self.dir, "hosts"), "w") as f:
                f.write("127.0.0.1 localhost\n")
                for k in range(self.n):
                    f.write(f"{self.addr(k)} host{k}\n")
            _ip("netns", "add", self.switch)
            _ip("-n", self.switch, "link", "add", "br0", "type", "bridge")
            _ip("-n", self.switch, "link", "set", "br0", "up")
            for k, (ns, veth) in enumerate(zip(self.names, self.veths)):
                _ip("netns", "add", ns)
                _ip("link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns)
                _ip("link", "set", veth, "netns", self.switch)
                _ip("-n", self.switch, "link", "set", veth, "master", "br0", "up")
                _ip("-n", ns, "link", "set", "lo", "up")
                _ip("-n", ns, "addr", "add", f"{self.addr(k)}/24", "dev", "eth0")
                _ip("-n", ns, "link", "set", "eth0", "up")
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
            p.wait()
        for ns in self.names + [self.switch]:
            _ip("netns", "del", ns, check=False)  # (its veths go with it)
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)

    def start(self, k, argv, env=None):
        """argv on host k, its output (stdout and stderr together) in a pipe."""
        script = (f"hostname host{k} && mount -t tmpfs -o size=1g tmpfs /dev/shm && "
                  f"mount --bind {self.dir}/hosts /etc/hosts && exec \"$@\"")
        e = dict(os.environ)
        e["PYTHONPATH"] = os.pathsep.join([PKG, HERE, e.get("PYTHONPATH", "")])
        e.update(env or {})
        cpus = ",".join(map(str, self.cpus[k]))
        p = subprocess.Popen(["ip", "netns", "exec", self.names[k], "taskset", "-c", cpus,
                              "unshare", "--uts", "--mount", "--propagation", "private", "sh",
                              "-c", script, "sh", *argv],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=e)
        self.procs.append(p)
        return p

    def torchrun(self, k, nproc, prog, *args, env=None):
        """torchrun on host k with nproc ranks, host 0's address the rendezvous."""
        return self.start(k, [sys.executable, "-m", "torch.distributed.run",
                              "--nnodes", str(self.n), "--nproc-per-node", str(nproc),
                              "--node-rank", str(k), "--master-addr", self.addr(0),
                              "--master-port", str(PORT), prog, *map(str, args)], env=env)

    def job(self, nprocs, prog, *args, timeout=240, env=None):
        """prog under torchrun on every host, nprocs[k] ranks on host k; waits for all.
        Returns (the return codes, the outputs)."""
        ps = [self.torchrun(k, nprocs[k], prog, *args, env=env) for k in range(self.n)]
        outs = []
        for p in ps:
            try:
                out, _ = p.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                p.kill()
                out, _ = p.communicate()
                out += f"\n(killed after {timeout} s)"
            outs.append(out)
        return [p.returncode for p in ps], outs
