"""attngen_ctypes.py: bench.py's view of libattngen, now a thin layer over the attngen
package (python/attngen/_lib.py holds the ctypes binding): load the library, one context,
FwdArgs for torch tensors, launch, explain."""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "python"))
from attngen._lib import (AttngenError, Context,  # noqa: E402,F401
                          library_candidates)
from attngen import _names  # noqa: E402



def allow_more_copies():
    """Makes room for more than one libattngen in this process (--alt-lib): libattngen keeps
    its thread-locals in the static TLS block (initial-exec), which has room for one copy
    loaded after start-up, and glibc reads the tunable that adds room only at exec. Unless it
    is set already, re-executes this script with it set (does not return then)."""
    tls = "glibc.rtld.optional_static_tls"
    if tls in os.environ.get("GLIBC_TUNABLES", ""):
        return
    env = dict(os.environ)
    env["GLIBC_TUNABLES"] = ":".join(x for x in (env.get("GLIBC_TUNABLES"), f"{tls}=65536") if x)
    os.execve(sys.executable, [sys.executable] + sys.argv, env)


def mask_pairs(sq, skv, causal):
    """(query, key) pairs a call computes: sq * skv, or under the causal mask (bottom-right
    aligned: row i sees min(max(i + skv - sq + 1, 0), skv) keys) the ones it keeps."""
    if not causal:
        return sq * skv
    return sum(min(max(i + skv - sq + 1, 0), skv) for i in range(sq))


def parse_alt_libs(texts, reserved):
    """[(NAME, PATH)] of --alt-lib NAME=PATH arguments; ValueError naming the first one that is
    not NAME=PATH with NAME an identifier outside `reserved` (the tool's own column names)."""
    alts = []
    for text in texts:
        name, _, path = text.partition("=")
        if not name.isidentifier() or not path or name in reserved:
            raise ValueError(f"--alt-lib {text!r}: expected NAME=PATH with NAME an identifier "
                             f"other than {', '.join(reserved)}")
        alts.append((name, path))
    return alts


def open_libs(named):
    """[(NAME, Attngen)] on the cuda backend for [(NAME, PATH)]; more than one library: makes
    room for the copies first (allow_more_copies, which may re-execute the script)."""
    if len(named) > 1:
        allow_more_copies()
    return [(name, Attngen(path, backend="cuda")) for name, path in named]


def find_library(path=None):
    """The library path: the argument, else $ATTNGEN_LIB, else the package's search order."""
    if path:
        return path
    cands = library_candidates()
    if not cands:
        raise AttngenError("NO_BACKEND", "libattngen.so not found: pass --lib PATH or set "
                                         "ATTNGEN_LIB")
    return cands[0]


class Attngen(Context):
    """One attngen context on one device, with bench.py's helpers."""

    def __init__(self, lib_path=None, backend="cuda", device=0):
        super().__init__(backend, device, find_library(lib_path))

    def args(self, q, k, v, out, layout="bshd", rounding="rtne", softmax_scale=None,
             lse=None, stream=None, variant=None, causal=False, heads_kv=None):
        """FwdArgs for torch tensors q, k, v, out (bf16, dense in `layout`)."""
        a = self.new_args()
        if layout == "bshd":
            a.batch, a.seqlen_q, a.heads, a.head_dim = q.shape
            a.seqlen_kv = k.shape[1]
        else:
            a.batch, a.heads, a.seqlen_q, a.head_dim = q.shape
            a.seqlen_kv = k.shape[2]
        a.q, a.k, a.v, a.out = q.data_ptr(), k.data_ptr(), v.data_ptr(), out.data_ptr()
        a.lse = lse.data_ptr() if lse is not None else None
        lc, rc = _names.layout_code(layout), _names.rounding_code(rounding)
        if lc is None or rc is None:
            raise AttngenError("INVALID_ARGUMENT", f"layout {layout!r} / rounding {rounding!r} "
                               f"(allowed: {', '.join(_names.names('layout'))} / "
                               f"{', '.join(_names.names('rounding'))})")
        a.layout, a.rounding = lc, rc
        a.causal = 1 if causal else 0
        if heads_kv is not None and heads_kv != a.heads:
            if not hasattr(a, "heads_kv"):
                raise AttngenError("INVALID_ARGUMENT", "heads_kv: this attngen has no "
                                   "grouped-query attention (attngen_fwd_args.heads_kv)")
            a.heads_kv = heads_kv
        # (the C default, attngen_fwd_args_init's, is 1/sqrt(128) whatever the head dim; the
        # peers' is 1/sqrt(head_dim): runs K3 timed head_dim 64 / 256 at 1/sqrt(128))
        a.softmax_scale = softmax_scale if softmax_scale is not None else 1.0 / math.sqrt(a.head_dim)
        a.stream = stream
        self._variant = variant.encode() if variant else None  # kept alive with the args
        a.variant = self._variant
        return a

    def varlen_args(self, q, k, v, out, cu_q, cu_k, max_q, max_k, rounding="rtne",
                    stream=None, variant=None, causal=False):
        """FwdArgs of a packed batch: q, out [total_q, H, 128], k, v [total_k, H_kv, 128]
        (bf16, contiguous), cu_q / cu_k int32 [B + 1] on the device, max lengths."""
        if not hasattr(self.new_args(), "cu_seqlens_q"):
            raise AttngenError("INVALID_ARGUMENT", "cu_seqlens_q: this attngen has no packed "
                               "variable-length batches (attngen_fwd_args.cu_seqlens_q)")
        a = self.new_args()
        a.batch, a.heads, a.head_dim = cu_q.shape[0] - 1, q.shape[1], q.shape[2]
        a.seqlen_q, a.seqlen_kv = max_q, max_k
        a.total_q, a.total_kv = q.shape[0], k.shape[0]
        a.heads_kv = k.shape[1]
        a.q, a.k, a.v, a.out = q.data_ptr(), k.data_ptr(), v.data_ptr(), out.data_ptr()
        a.cu_seqlens_q, a.cu_seqlens_k = cu_q.data_ptr(), cu_k.data_ptr()
        a.layout, a.rounding = _names.layout_code("bshd"), _names.rounding_code(rounding)
        a.causal = 1 if causal else 0
        a.softmax_scale = 1.0 / math.sqrt(a.head_dim)
        a.stream = stream
        self._variant = variant.encode() if variant else None
        a.variant = self._variant
        return a

    def fwd_args(self, a):
        """Launches attngen_fwd with prepared FwdArgs (no synchronization)."""
        self.fwd(a)

    def explain(self, a):
        """(variant, rule name, reason) that attngen_fwd would use for FwdArgs a."""
        c = super().explain(a)
        return (c["variant"], c["rule"], c["reason"])
