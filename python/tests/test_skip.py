"""attngen.SkipState and attention(..., skip=state) (temporal tile skipping) on the cpu
backend: the first call is bitwise the dense call, the next skips what the first marked,
reset, masks, the calibration mode, the skipped fraction, and every refusal named."""
import math

import numpy as np
import pytest
import torch

import attngen
from attngen import AttngenError

from conftest import rand


def _raises(status, fn, *words):
    with pytest.raises(AttngenError) as ei:
        fn()
    assert ei.value.status == status, str(ei.value)
    for w in words:
        assert w in str(ei.value), str(ei.value)


def _blocky(B=1, S=384, H=2, D=128, seed=0):
    """q, k, v [B, S, H, D] whose scores are large inside 128-token blocks and small across
    them (a video-like local structure): off-block tiles fall far below each row's max."""
    g = torch.Generator().manual_seed(seed)
    blocks = torch.randn(S // 128, H, D, generator=g)
    base = blocks.repeat_interleave(128, 0)[None].expand(B, S, H, D)
    q = (0.9 * base + 0.3 * torch.randn(B, S, H, D, generator=g)).to(torch.bfloat16)
    k = (0.9 * base + 0.3 * torch.randn(B, S, H, D, generator=g)).to(torch.bfloat16)
    v = torch.randn(B, S, H, D, generator=g).to(torch.bfloat16)
    return q, k, v


def test_steps_reset_and_fraction():
    q, k, v = _blocky()
    dense = attngen.attention(q, k, v)
    st = attngen.SkipState(threshold_log2=-6.0)
    assert st.skipped_fraction == 0.0 and st.info() is None
    o1 = attngen.attention(q, k, v, skip=st)
    assert torch.equal(o1, dense)                 # nothing to read yet: bitwise dense
    assert st.skipped_fraction == 0.0
    info = st.info()
    assert (info["block_m"], info["block_n"], info["q_tiles"], info["kv_tiles"]) == (128, 128,
                                                                                     3, 3)
    marked = int(np.unpackbits(st.next_list().view(np.uint8)).sum())
    assert 0 < marked < 2 * 3 * 3                 # off-block tiles, not the diagonal ones
    o2 = attngen.attention(q, k, v, skip=st)
    assert not torch.equal(o2, dense)
    f = st.skipped_fraction
    assert isinstance(f, float) and math.isclose(f, marked / 18)
    assert (o2.float() - dense.float()).abs().max().item() < 2e-2  # the dropped weight is tiny
    st.reset()
    assert torch.equal(attngen.attention(q, k, v, skip=st), dense)
    assert st.calls == 1


def test_masks_and_next_list():
    q, k, v = _blocky(seed=1)
    dense = attngen.attention(q, k, v)
    st = attngen.SkipState(threshold_log2=-float("inf"))
    attngen.attention(q, k, v, skip=st)
    words = st.info()["words"]
    assert words == 2 * 3 * 1 and not st.next_list().any()  # -inf marks nothing
    st.set_must_do(np.full(words, 0xFFFFFFFF, dtype=np.uint64))
    st.set_next_list(np.full(words, 0xFFFFFFFF, dtype=np.uint64))
    assert torch.equal(attngen.attention(q, k, v, skip=st), dense)  # must-do wins
    st.set_must_do(None)
    ms = np.zeros(words, dtype=np.uint32)
    ms[0] = 0b10                                  # (b 0, h 0, q-tile 0): kv-tile 1
    st.set_must_skip(ms)
    st.reset()
    o = attngen.attention(q, k, v, skip=st)
    assert st.stats() == {"skipped": 1, "visited": 18, "fraction": 1 / 18}
    assert torch.equal(o[:, 128:, 0], dense[:, 128:, 0])  # other q-tiles untouched
    assert not torch.equal(o[:, :128, 0], dense[:, :128, 0])
    assert torch.equal(o[:, :, 1], dense[:, :, 1])
    _raises("BAD_SHAPE", lambda: st.set_must_skip(np.zeros(words + 1)), f"({words},)")


def test_calibration_returns_dense_and_records_cost():
    q, k, v = _blocky(seed=2)
    dense = attngen.attention(q, k, v)
    st = attngen.SkipState(threshold_log2=-4.0, calibrate=True)
    for _ in range(3):
        assert torch.equal(attngen.attention(q, k, v, skip=st), dense)
    assert [c["call"] for c in st.calibration] == [1, 2, 3]
    assert st.calibration[0]["skipped_fraction"] == 0.0
    assert st.calibration[0]["rel_l2_err"] == 0.0
    assert st.calibration[1]["skipped_fraction"] > 0
    assert 0 < st.calibration[1]["rel_l2_err"] < 1e-2
    st.reset()
    assert st.calibration == []


def test_shape_change_starts_afresh():
    st = attngen.SkipState()
    q, k, v = _blocky(S=256, seed=3)
    attngen.attention(q, k, v, skip=st)
    attngen.attention(q, k, v, skip=st)
    q2, k2, v2 = _blocky(S=384, seed=3)
    o = attngen.attention(q2, k2, v2, skip=st)       # new lists: nothing read
    assert torch.equal(o, attngen.attention(q2, k2, v2))
    assert st.info()["seqlen_q"] == 384


def test_refusals():
    q, k, v = rand(1, 64, 2, 128, seed=1), rand(1, 64, 2, 128, seed=2), rand(1, 64, 2, 128, seed=3)
    for bad in (0.0, 1.5, float("nan"), float("inf"), "x"):
        _raises("INVALID_ARGUMENT", lambda: attngen.SkipState(threshold_log2=bad),
                "threshold_log2")
    _raises("INVALID_ARGUMENT", lambda: attngen.SkipState(block_m=-1), "block_m")
    st = attngen.SkipState()
    with pytest.raises(AttngenError) as e:
        st.threshold_log2 = 2.0
    assert e.value.status == "INVALID_ARGUMENT" and st.threshold_log2 == -6.0
    _raises("INVALID_ARGUMENT", lambda: attngen.attention(q, k, v, skip="yes"), "skip is a str")
    _raises("INVALID_ARGUMENT", lambda: st.set_next_list([0]), "before the first call")


def test_emu_runs_the_gfx942_skip_kernel():
    """The emu backend runs the gfx942 skip kernels (tile grid 256 x 96): the first call is
    bitwise the dense kernel's, the next skips what it marked; a causal call has no skip
    kernel (NO_VARIANT naming args.skip)."""
    attngen.set_cpu_backend("emu")
    try:
        q, k, v = _blocky(S=384, seed=4)
        dense = attngen.attention(q, k, v)
        st = attngen.SkipState(threshold_log2=-6.0)
        o1 = attngen.attention(q, k, v, skip=st)
        assert torch.equal(o1, dense)
        info = st.info()
        assert (info["block_m"], info["block_n"], info["q_tiles"], info["kv_tiles"]) == (256, 96,
                                                                                         2, 4)
        assert "_skip_mfma_gfx942" in info["variant"]
        marked = int(np.unpackbits(st.next_list().view(np.uint8)).sum())
        assert 0 < marked < 2 * 2 * 4
        o2 = attngen.attention(q, k, v, skip=st)
        assert math.isclose(st.skipped_fraction, marked / 16)
        assert not torch.equal(o2, dense)
        assert (o2.float() - dense.float()).abs().max().item() < 2e-2
        _raises("NO_VARIANT", lambda: attngen.attention(q, k, v, causal=True,
                                                        skip=attngen.SkipState()), "args.skip")
    finally:
        attngen.set_cpu_backend("cpu")


def test_skip_study_script(tmp_path):
    """bench/skip_study.py on a tiny grid: step 1 reads nothing (no skip, no error), later
    steps skip at the loose threshold with an error that grows as the threshold loosens."""
    import json
    import os
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = tmp_path / "study.json"
    subprocess.run([sys.executable, os.path.join(root, "bench", "skip_study.py"), "--grid",
                    "8,4,8", "--heads", "1", "--steps", "3", "--thresholds=-1,-8", "--noise", "0.3",
                    "--json", str(out)], check=True, capture_output=True, text=True)
    res = json.loads(out.read_text())
    rows = {(r["step"], r["threshold_log2"]): r for r in res["rows"]}
    assert res["tokens"] == 256 and res["tile_grid"] == [128, 128]
    for t in (-1.0, -8.0):
        assert rows[(1, t)]["skipped_fraction"] == 0 and rows[(1, t)]["rel_l2_err"] == 0
    assert rows[(3, -1.0)]["skipped_fraction"] > 0 and rows[(3, -1.0)]["rel_l2_err"] > 0
    assert rows[(3, -1.0)]["skipped_fraction"] >= rows[(3, -8.0)]["skipped_fraction"]
    assert rows[(3, -1.0)]["rel_l2_err"] >= rows[(3, -8.0)]["rel_l2_err"]


def _skip_speed():
    import importlib
    import os
    import sys
    bench = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), "bench")
    if bench not in sys.path:
        sys.path.insert(0, bench)
    return importlib.import_module("skip_speed")


def test_skip_speed_lite_lists():
    """bench/skip_speed.py's LiteAttention read lists: [n, s0, e0, ...] compute ranges walked
    from the high tile down, both ends inclusive; a hand case, the fixes (a q-tile skipping
    every tile keeps its last; a row with more ranges than the list holds keeps a tile), and
    the round trip on every pattern (the list computes exactly the kept tiles, which are the
    pattern's unskipped ones)."""
    import numpy as np
    ss = _skip_speed()
    skip = np.array([[False, True, True, False, False, True]])
    lists, keep = ss.lite_lists(skip)
    assert lists.tolist() == [[4, 4, 3, 0, 0, 0, 0]]
    assert keep.tolist() == [[True, False, False, True, True, False]]
    lists, keep = ss.lite_lists(np.ones((2, 5), dtype=bool))
    assert lists.tolist() == [[2, 4, 4, 0, 0, 0]] * 2
    lists, keep = ss.lite_lists(np.array([[False, True, False, True, False]]))  # 3 ranges > 5
    assert lists[0, 0] <= 5 and keep.sum() == 4
    assert (ss.lite_decode(lists, 5) == keep).all()
    assert ss.lite_lists(np.zeros((1, 187), dtype=bool))[0][0, :4].tolist() == [2, 186, 0, 0]
    rng = np.random.default_rng(3)
    for pat in ("random", "heads", "band"):
        for f in (0.2, 0.6):
            skip = ss.skip_pattern(1, 3, 4, 187, pat, f, rng)
            lists, keep = ss.lite_lists(skip)
            assert lists.shape == (1, 3, 4, 188) and lists.dtype == np.int32
            assert (ss.lite_decode(lists, 187) == keep).all()
            assert (keep == ~skip).all()
            assert abs((1 - keep.mean()) - f) < 0.1


def test_skip_speed_arguments(capsys):
    """bench/skip_speed.py: --help documents the peers; a LiteAttention library that is
    missing or lacks the entry point, and bad arguments, stop it with a message naming the
    argument before any GPU work."""
    import ctypes.util
    import pytest
    ss = _skip_speed()

    def run(*a):
        with pytest.raises(SystemExit) as e:
            ss.main(list(a))
        out = capsys.readouterr()
        return e.value.code, out.out, out.err
    code, out, _ = run("--help")
    assert code == 0 and "--lite-lib" in out and "lite_fwd_bf16_hd128" in out
    code, _, _ = run("--lite-lib", "/nonexistent/liblite.so")
    assert "--lite-lib /nonexistent/liblite.so: cannot load" in str(code)
    libc = ctypes.util.find_library("c")
    code, _, _ = run("--lite-lib", libc)
    assert f"--lite-lib {libc}: the library has no lite_fwd_bf16_hd128" in str(code)
    for bad, name in ((["--patterns", "random,diag"], "--patterns: diag"),
                      (["--fractions", "0.2,1.5"], "--fractions"),
                      (["--shape", "1,2,3"], "--shape")):
        code, _, err = run(*bad)
        assert code == 2 and name in err
