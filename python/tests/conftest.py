"""Shared fixtures: the library (ATTNGEN_LIB, else the checkout's build/), an fp64
reference, and the backends the CPU suite runs on (cpu = fp32 reference, emu = the gfx942
kernels on the emulator). The emulator is slow: shapes stay small."""
import os
import sys

import pytest
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
if "ATTNGEN_LIB" not in os.environ:
    cand = os.path.join(ROOT, "build", "libattngen.so")
    if os.path.exists(cand):
        os.environ["ATTNGEN_LIB"] = cand
if os.environ.get("ATTNGEN_TEST_INSTALLED") != "1":
    sys.path.insert(0, os.path.dirname(HERE))  # the source package unless told otherwise

import attngen  # noqa: E402
from attngen import ops  # noqa: E402

os.environ.setdefault("ATTNGEN_EMU_CUS", "8")


def reference(q, k, v, scale=None, layout="bshd"):
    """fp64 attention and natural-log LSE [B, H, Sq]."""
    if layout == "bhsd":
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
    if scale is None:
        scale = q.shape[-1] ** -0.5
    s = torch.einsum("bshd,bthd->bhst", q.double(), k.double()) * scale
    o = torch.einsum("bhst,bthd->bshd", s.softmax(-1), v.double())
    lse = s.logsumexp(-1)
    if layout == "bhsd":
        o = o.transpose(1, 2)
    return o, lse


def rand(*shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g).to(torch.bfloat16)


# Contract: P and O rounded to bf16 (NUMERICS.md); against fp64 without rounding the error
# is a few bf16 ulps of the output magnitude (|o| <~ 1 here).
ATOL = 1.6e-2


@pytest.fixture(params=["cpu", "emu"])
def backend(request):
    old = ops._cpu_backend
    attngen.set_cpu_backend(request.param)
    yield request.param
    attngen.set_cpu_backend(old)
