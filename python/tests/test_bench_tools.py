"""bench/jit_cache_swap.py against the runtime's own cache reader: an entry written by the
NVRTC JIT (`attngen compile`), its payload swapped, still verifies (`attngen cache verify`) and
lists the new size; a payload swapped without the tool's checksum rewrite does not verify."""
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SWAP = os.path.join(ROOT, "bench", "jit_cache_swap.py")
VARIANT = "attn_fwd_d128_bshd_rtne_q1_kv64_w4_nosplit_mma_sm90"


def cli(*args, cache):
    exe = os.environ.get("ATTNGEN_CLI")
    if not exe:
        pytest.skip("ATTNGEN_CLI (the attngen program) is not set; ctest sets it")
    env = dict(os.environ, ATTNGEN_CACHE_DIR=str(cache))
    return subprocess.run([exe, *args], env=env, capture_output=True, text=True)


def entry_of(cache):
    files = [f for f in os.listdir(cache) if f.endswith(".atgk")]
    assert len(files) == 1, files
    return os.path.join(cache, files[0])


def test_swap_keeps_the_entry_valid(tmp_path):
    cache = tmp_path / "cache"
    r = cli("compile", "--target", "sm90", "--filter", VARIANT, cache=cache)
    if r.returncode != 0 and "NO_BACKEND" in (r.stdout + r.stderr):
        pytest.skip("no NVRTC here: " + (r.stdout + r.stderr).strip().splitlines()[-1])
    assert r.returncode == 0, r.stdout + r.stderr
    path = entry_of(cache)
    before = open(path, "rb").read()
    payload = bytes(range(256)) * 5 + b"attngen"        # 1287 bytes, not the compiled size
    blob = tmp_path / "other.cubin"
    blob.write_bytes(payload)
    r = subprocess.run([sys.executable, SWAP, str(cache), VARIANT, str(blob)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    after = open(path, "rb").read()
    assert after[256:] == payload and after[:16] == before[:16]
    assert cli("cache", "verify", cache=cache).returncode == 0
    ls = cli("cache", "ls", cache=cache).stdout
    assert VARIANT in ls and " 1543 " in ls, ls          # the entry: 256-byte header + payload
    # the same swap without rewriting the checksums is caught by the runtime
    shutil.copy(path, path + ".keep")
    open(path, "wb").write(after[:256] + payload[::-1])
    assert cli("cache", "verify", cache=cache).returncode == 1
    # a variant the cache does not hold: exit status 1, nothing written
    os.replace(path + ".keep", path)
    r = subprocess.run([sys.executable, SWAP, str(cache), VARIANT + "_x", str(blob)],
                       capture_output=True, text=True)
    assert r.returncode == 1 and open(path, "rb").read() == after
