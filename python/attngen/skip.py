"""Temporal tile skipping (docs/NUMERICS.md "Tile skipping"; the C API's attngen_skip_state).

    state = attngen.SkipState(threshold_log2=-6.0)      # one per attention layer
    for step in denoising_steps:
        out = attngen.attention(q, k, v, skip=state)    # reads last step's list, writes the next
        print(state.skipped_fraction)                   # of the last call
    state.reset()                                       # between prompts

A state belongs to one layer: its lists are made for the shape of its calls (created at the
first call; a call of another shape, layout, rounding or device starts it afresh). With
calibrate=True every call also runs the dense attention, returns the dense output (the
pipeline is unchanged) and records what skipping would have cost in `state.calibration`.
"""
import ctypes

from . import _lib
from ._lib import AttngenError

MUST_SKIP, MUST_DO, NEXT_READ = 0, 1, 2  # attngen_skip_list


def _check_threshold(t):
    try:
        t = float(t)
    except (TypeError, ValueError):
        raise AttngenError("INVALID_ARGUMENT", f"threshold_log2 = {t!r} (allowed: a negative "
                                               "float, e.g. -6.0, or -inf = mark nothing)")
    if not t < 0.0:
        raise AttngenError("INVALID_ARGUMENT", f"threshold_log2 = {t} (allowed: a negative "
                                               "float in log2 units, e.g. -6.0, or -inf = mark "
                                               "nothing)")
    return t


class SkipState:
    """The skip lists of one attention layer across the denoising steps of one prompt.

    threshold_log2: T < 0 (log2 units): a computed tile is marked for skipping in the next
    call when, for every query row of its q-tile, the tile's largest score stays more than
    |T| below the row's running max (-6: below 1/64 of the max weight). -inf marks nothing.
    calibrate: run dense alongside, return the dense output, record the error skipping would
    have caused (`calibration`, one dict per call since the last reset).
    block_m, block_n: the tile grid; 0 = the kernel's (the cpu backend: 128 x 128)."""

    def __init__(self, threshold_log2=-6.0, *, calibrate=False, block_m=0, block_n=0):
        self._threshold = _check_threshold(threshold_log2)
        self.calibrate = bool(calibrate)
        for name, val in (("block_m", block_m), ("block_n", block_n)):
            if not isinstance(val, int) or val < 0:
                raise AttngenError("INVALID_ARGUMENT", f"{name} = {val!r} (allowed: 0 = the "
                                                       "kernel's, or a positive tile size)")
        self._block = (block_m, block_n)
        self._ptr = ctypes.c_void_p()
        self._ctx = None
        self._key = None
        self._masks = {MUST_SKIP: None, MUST_DO: None}
        self.calibration = []
        self.calls = 0

    # ---- the C state ------------------------------------------------------------------

    def _lib(self):
        return self._ctx.lib

    def _raise(self, st, what):
        _lib.raise_status(self._lib(), st, what)

    def _bind(self, ctx, args, key):
        """The C state for a call (ctx, FwdArgs of its shape), made afresh for a new key."""
        if self._ptr and self._key == key:
            return self._ptr.value
        self._free()
        ptr = ctypes.c_void_p()
        st = ctx.lib.attngen_skip_state_create(ctx.ptr, ctypes.byref(args), self._block[0],
                                               self._block[1], self._threshold,
                                               ctypes.byref(ptr))
        if st != 0:
            _lib.raise_status(ctx.lib, st, "attngen_skip_state_create")
        self._ptr, self._ctx, self._key = ptr, ctx, key
        for which, words in self._masks.items():
            if words is not None:
                self._set_list(which, words)
        return self._ptr.value

    def _free(self):
        if self._ptr:
            self._lib().attngen_skip_state_destroy(self._ptr)
            self._ptr = ctypes.c_void_p()
            self._key = None

    def close(self):
        """Frees the lists (the state can be used again: the next call makes new ones)."""
        self._free()

    def __del__(self):
        try:
            self._free()
        except Exception:  # interpreter shutdown: the library may be gone
            pass

    # ---- user API ---------------------------------------------------------------------

    @property
    def threshold_log2(self):
        return self._threshold

    @threshold_log2.setter
    def threshold_log2(self, t):
        t = _check_threshold(t)
        if self._ptr:
            st = self._lib().attngen_skip_state_set_threshold(self._ptr, t)
            if st != 0:
                self._raise(st, "attngen_skip_state_set_threshold")
        self._threshold = t

    def reset(self):
        """Forget the lists (the next call computes every tile but the must-skip ones): call
        it between prompts. Masks and threshold stay."""
        if self._ptr:
            st = self._lib().attngen_skip_state_reset(self._ptr)
            if st != 0:
                self._raise(st, "attngen_skip_state_reset")
        self.calibration = []
        self.calls = 0

    def stats(self):
        """The last call's counts: {'skipped', 'visited', 'fraction'} (waits for that call)."""
        if not self._ptr:
            return {"skipped": 0, "visited": 0, "fraction": 0.0}
        sk, vi, f = ctypes.c_uint64(), ctypes.c_uint64(), ctypes.c_double()
        st = self._lib().attngen_skip_state_stats(self._ptr, ctypes.byref(sk), ctypes.byref(vi),
                                                  ctypes.byref(f))
        if st != 0:
            self._raise(st, "attngen_skip_state_stats")
        return {"skipped": sk.value, "visited": vi.value, "fraction": f.value}

    @property
    def skipped_fraction(self):
        """Skipped / visited tiles of the last call (float; 0.0 before the first). Reading it
        waits for that call (a device-to-host copy of two counters)."""
        return self.stats()["fraction"]

    def info(self):
        """The grid: a dict of attngen_skip_info (None before the first call)."""
        if not self._ptr:
            return None
        i = _lib.SkipInfo()
        st = self._lib().attngen_skip_state_info(self._ptr, ctypes.byref(i))
        if st != 0:
            self._raise(st, "attngen_skip_state_info")
        return {f: (getattr(i, f).decode() if f == "variant" else getattr(i, f))
                for f, _ in _lib.SkipInfo._fields_}

    def _words(self):
        return self.info()["words"]

    def _set_list(self, which, words):
        import numpy as np
        if words is None:
            st = self._lib().attngen_skip_state_set_list(self._ptr, which, None)
        else:
            arr = np.ascontiguousarray(np.asarray(words, dtype=np.int64) & 0xFFFFFFFF,
                                       dtype=np.uint32)
            n = self._words()
            if arr.ndim != 1 or arr.shape[0] != n:
                raise AttngenError("BAD_SHAPE", f"skip list of shape {tuple(arr.shape)} (allowed: "
                                                f"({n},), the state's words)")
            st = self._lib().attngen_skip_state_set_list(self._ptr, which, arr.ctypes.data)
        if st != 0:
            self._raise(st, "attngen_skip_state_set_list")

    def _mask(self, which, words):
        if self._ptr:
            self._set_list(which, words)
        self._masks[which] = words

    def set_must_skip(self, words):
        """Tiles always skipped: uint32 words in the layout of docs/NUMERICS.md (info()['words']
        of them), or None. Given before the first call, applied when the lists are made."""
        self._mask(MUST_SKIP, words)

    def set_must_do(self, words):
        """Tiles always computed and never marked (wins over must-skip), or None."""
        self._mask(MUST_DO, words)

    def set_next_list(self, words):
        """The list the next call reads (None: none, as after reset)."""
        if not self._ptr:
            raise AttngenError("INVALID_ARGUMENT", "set_next_list before the first call: the "
                                                   "state has no grid yet")
        self._set_list(NEXT_READ, words)

    def next_list(self):
        """The list the next call reads (after a call: what it wrote), numpy uint32 words."""
        import numpy as np
        if not self._ptr:
            return np.zeros(0, dtype=np.uint32)
        out = np.zeros(self._words(), dtype=np.uint32)
        st = self._lib().attngen_skip_state_get_list(self._ptr, NEXT_READ, out.ctypes.data)
        if st != 0:
            self._raise(st, "attngen_skip_state_get_list")
        return out

    def __repr__(self):
        return (f"SkipState(threshold_log2={self._threshold}, calibrate={self.calibrate}, "
                f"calls={self.calls})")


def record_calibration(state, out_skip, out_dense):
    """Appends what the skipping call cost against the dense call: skipped fraction, max
    absolute and relative L2 error of the output (fp32)."""
    a = out_skip.float()
    b = out_dense.float()
    diff = (a - b)
    denom = float(b.norm())
    state.calibration.append({
        "call": state.calls,
        "skipped_fraction": state.skipped_fraction,
        "max_abs_err": float(diff.abs().max()) if diff.numel() else 0.0,
        "rel_l2_err": float(diff.norm()) / denom if denom > 0 else 0.0,
    })
