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


def tolerance(q, k, v, scale=None, layout="bshd", rounding="rtne", ulps=1):
    """Per-element bound on |out - exact fp64 attention| from the contract (NUMERICS.md), the
    same rule as the C tests' near-zero and rounding terms, derived instead of one absolute
    number (the suite used |out - ref| < 1.6e-2 everywhere: ~16 bf16 ULP at |o| = 0.2):
    `ulps` bf16 ULPs of the exact value (O's own rounding; 2 where bf16 outputs are merged)
    plus the bf16 rounding of each P (step 5: relative 2^-8 for RTNE/RTNA, 2^-7 for RTZ),
    i.e. that fraction of the row's softmax-weighted |v|, plus 2^-20 of it for the fp32
    accumulation."""
    if layout == "bhsd":
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
    if scale is None:
        scale = q.shape[-1] ** -0.5
    s = torch.einsum("bshd,bthd->bhst", q.double(), k.double()) * scale
    wv = torch.einsum("bhst,bthd->bshd", s.softmax(-1), v.double().abs())
    o = torch.einsum("bhst,bthd->bshd", s.softmax(-1), v.double())
    _, e = torch.frexp(o.abs().clamp(min=2.0 ** -126))
    ulp = torch.ldexp(torch.ones_like(o), (e - 8).to(torch.int32))  # bf16: 8 significant bits
    p_rel = 2.0 ** -7 if rounding == "rtz" else 2.0 ** -8
    tol = ulps * ulp + (p_rel + 2.0 ** -20) * wv
    if layout == "bhsd":
        tol = tol.transpose(1, 2)
    return tol


def assert_close(out, ref, tol, what=""):
    """|out - ref| <= tol element by element; the message names the worst element."""
    err = (out.double() - ref).abs()
    excess = err - tol
    if not bool((excess <= 0).all()):
        i = int(excess.flatten().argmax())
        raise AssertionError(f"{what}: {int((excess > 0).sum())} of {err.numel()} elements "
                             f"beyond the bound; worst at flat {i}: out "
                             f"{float(out.flatten()[i])} exact {float(ref.flatten()[i])} "
                             f"bound {float(tol.flatten()[i])}")


@pytest.fixture(params=["cpu", "emu"])
def backend(request):
    old = ops._cpu_backend
    attngen.set_cpu_backend(request.param)
    yield request.param
    attngen.set_cpu_backend(old)
