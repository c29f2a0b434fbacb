"""ring / Ulysses / USP attention over torch.distributed with gloo (CPU tensors): each rank
is a process (dist_worker.py) checking its slice against single-process attngen."""
import os
import socket
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


def _port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def _run(world, mode, backend):
    port = str(_port())
    env = dict(os.environ, OMP_NUM_THREADS="1")
    procs = [subprocess.Popen([sys.executable, os.path.join(HERE, "dist_worker.py"), str(r),
                               str(world), port, mode, backend],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                              text=True) for r in range(world)]
    outs = []
    for p in procs:
        try:
            out, _ = p.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            raise
        outs.append((p.returncode, out))
    for r, (rc, out) in enumerate(outs):
        assert rc == 0, f"rank {r} exited {rc}:\n{out}"
        assert out.count(" OK:") == 2, out
    return outs


@pytest.mark.parametrize("mode", ["ring", "ulysses"])
def test_two_ranks(mode):
    _run(2, mode, "cpu")


def test_ring_emu_two_ranks():
    _run(2, "ring", "emu")


def test_usp_four_ranks():
    _run(4, "usp", "cpu")
