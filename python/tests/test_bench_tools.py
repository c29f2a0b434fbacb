"""The bench tools that run without a GPU.

bench/jit_cache_swap.py against the runtime's own cache reader: an entry written by the NVRTC
JIT (`attngen compile`), its payload swapped, still verifies (`attngen cache verify`) and lists
the new size; a payload swapped without the tool's checksum rewrite does not verify.
bench/sass_loops.py on a small nvdisasm-style listing: the HGMMA loop found with its static
count and opcodes, a loop without HGMMA only with --all, and the basic blocks of a range.
bench/sustained.py: its nvidia-smi line parser and sample window, its argument errors, and its
exit status without a CUDA device. bench/probe_check.py: its input kinds do what they are for
(the row max's moves per tile), its fp64 attention (bottom-right causal), its argument errors
and its exit status without a CUDA device. bench/ctx_race.py: its --ctx and --shape parsers, the
causal (query, key) pair count, its argument errors and its exit status without a CUDA device.
bench/sass_ctrl.py: the controls it decodes from three real sm_90 encodings, its selections,
sums and errors. bench/sass_lines.py: its per-line counts on a small listing and its errors.
bench/sm90_jit_equal.py: its .text comparison per entry point on small ELF images, its spill
sum, and on one real variant NVRTC == nvcc (where both exist) and its usage errors.
bench/causal_order_model.py (the runtime's C order functions through ctypes): the pair order
runs every job once under each end rule, the rule is the kernel's integer form, one shape's
numbers, its argument errors."""
import os
import re
import shutil
import struct
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


SASS = """\
        /*0000*/                   MOV R1, c[0x0][0x28] ;
.L_x_1:
        /*0010*/                   BAR.SYNC.DEFER_BLOCKING R5, 0x100 ;
        /*0020*/                   HGMMA.64x176x16.F32.BF16 R24, gdesc [UR40], RZ, !UPT ;
        /*0030*/              @!P0 BRA `(.L_x_2) ;
        /*0040*/                   FMUL R24, R24, UR9 ;
        /*0050*/                   FMUL R25, R25, UR9 ;
.L_x_2:
        /*0060*/                   MUFU.EX2 R24, R24 ;
        /*0070*/              @P1 BRA `(.L_x_1) ;
.L_x_3:
        /*0080*/                   IADD3 R2, R2, 0x1, RZ ;
        /*0090*/              @P2 BRA `(.L_x_3) ;
        /*00a0*/                   EXIT ;
"""


def run_loops(tmp_path, *args):
    f = tmp_path / "k.sass"
    f.write_text(SASS)
    r = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "sass_loops.py"), str(f),
                        *args], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_sass_loops(tmp_path):
    out = run_loops(tmp_path)
    # the HGMMA loop: 0x10 .. 0x70 (7 instructions, the cold multiplies included); the
    # integer loop without HGMMA only with --all
    assert "loop 10..70: 7 instructions, HGMMA 1" in out, out
    assert "FMUL 2" in out and "BRA 2" in out and "loop 80" not in out
    assert "loop 80..90: 2 instructions, HGMMA 0" in run_loops(tmp_path, "--all")
    blk = run_loops(tmp_path, "--blocks", "10", "70").splitlines()
    assert [b.split()[0] for b in blk] == [".L_x_1", ".L_x_2"], blk
    assert blk[0].split()[2] == "n=5:" and blk[1].split()[2] == "n=2:", blk


LINES_SASS = """\
attn_fwd_x_var:
\t//## File "/t/attn_fwd_k.cu.in", line 3
        /*0000*/                   MOV R1, c[0x0][0x28] ;
attn_fwd_x:
\t//## File "/t/attn_fwd_k.cu.in", line 2
        /*0000*/                   MOV R1, c[0x0][0x28] ;
        /*0010*/                   IADD3 R2, R2, 0x1, RZ ;
\t//## File "/t/wrappers.cuh", line 9 inlined at "/t/attn_fwd_k.cu.in", line 4
\t//## File "/t/attn_fwd_k.cu.in", line 4 inlined at "/t/attn_fwd_k.cu.in", line 1
\t//## File "/t/attn_fwd_k.cu.in", line 1
        /*0020*/                   MUFU.EX2 R24, R24 ;
\t//## File "/t/wrappers.cuh", line 9
        /*0030*/                   EXIT ;
$__internal_0_$__cuda_sm20_rcp_rn_f32_slowpath:
        /*0040*/                   RET.ABS.NODEC R20 0x0 ;
"""


def test_sass_lines(tmp_path):
    """bench/sass_lines.py: instructions of the first entry without _var counted per template
    line, a wrapper's code at the innermost template line of its chain, code with no template
    line as (other), instructions after the entry's end (another function) not counted."""
    f = tmp_path / "k.sass"
    f.write_text(LINES_SASS)
    r = run_tool("sass_lines", str(f))
    assert r.returncode == 0, r.stderr
    out = r.stdout.splitlines()
    assert out[0] == "attn_fwd_x: 4 instructions", out
    rows = {tuple(x.split()[2:3]): int(x.split()[0]) for x in out[1:]}
    assert rows == {("2",): 2, ("4",): 1, ("(other)",): 1}, out
    r = run_tool("sass_lines", str(f), "--entry", "attn_fwd_x_var")
    assert r.returncode == 0 and r.stdout.startswith("attn_fwd_x_var: 1 instructions"), r
    for args, want in (([str(f), "--entry", "nope"], "no entry function named nope"),
                       ([str(tmp_path / "none.sass")], "none.sass"),
                       ([str(f), "--top", "0"], "--top")):
        r = run_tool("sass_lines", *args)
        assert r.returncode in (1, 2) and want in r.stderr, (args, r)
    f.write_text(LINES_SASS.replace("//##", "// "))
    r = run_tool("sass_lines", str(f))
    assert r.returncode == 1 and "no line information" in r.stderr, r


def load_tool(name):
    """bench/NAME.py as a module."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "bench", name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run_tool(name, *argv, env=None):
    """bench/NAME.py run with argv: the completed process (text output)."""
    return subprocess.run([sys.executable, os.path.join(ROOT, "bench", name + ".py"), *argv],
                          capture_output=True, text=True, env=env)


def check_no_device_exit(name, *argv):
    """Without a CUDA device, bench/NAME.py exits with status 1 and says so."""
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present: the no-device exit is not reachable")
    r = run_tool(name, *argv)
    assert r.returncode == 1 and "no CUDA device" in r.stderr, r.stderr


def test_sustained_samples():
    m = load_tool("sustained")
    a = m.parse_smi_line("2026/12/03 16:21:05.250, 1562, 641.37, 63")
    b = m.parse_smi_line("2026/12/03 16:21:05.300, 1602, 651.00, 64\n")
    assert a is not None and b is not None
    assert a[1:] == (1562.0, 641.37, 63.0) and abs(b[0] - a[0] - 0.05) < 1e-6
    for bad in ("", "timestamp, clocks.current.sm [MHz], power.draw [W], temperature.gpu",
                "2026/12/03 16:21:05.350, 1602, [N/A], 64", "1, 2, 3"):
        assert m.parse_smi_line(bad) is None, bad
    c = (a[0] + 1.0, 1500.0, 600.0, 70.0)
    clk, pw, temp, n = m.window_stats([a, b, c], a[0], b[0])
    assert n == 2 and clk == 1582.0 and abs(pw - 646.185) < 1e-9 and temp == 64.0
    assert m.window_stats([a, b, c], a[0] + 0.01, b[0] - 0.01) == (None, None, None, 0)
    assert m.window_stats([a, b, c], a[0] + 0.5, c[0])[3] == 1


@pytest.mark.parametrize("argv, what", [
    (["--shape", "1,2,3"], "--shape '1,2,3'"),
    (["--shape", "0,2,3,4"], "--shape '0,2,3,4'"),
    (["--alt-lib", "fa3=/x.so"], "--alt-lib 'fa3=/x.so'"),
    (["--alt-lib", "noequals"], "--alt-lib 'noequals'"),
    (["--seconds", "1", "--settle-s", "2"], "--settle-s (2.0) must be shorter"),
    (["--reps", "0"], "--reps: expected an integer >= 1"),
    (["--head-dim", "96"], "--head-dim"),
])
def test_sustained_argument_errors(argv, what):
    r = run_tool("sustained", *argv)
    assert r.returncode == 2 and what in r.stderr, r.stderr


def test_sustained_without_gpu():
    check_no_device_exit("sustained", "--shape", "1,1,128,128")


def tile_maxima(q, k, tile):
    """Per query row, the max score (log2 units, scale 1/sqrt(D)) of each KV tile."""
    import math
    s = (q.double().transpose(1, 2) @ k.double().transpose(1, 2).transpose(-1, -2))
    t = s / math.sqrt(q.shape[-1]) * math.log2(math.e)
    n = k.shape[1] // tile
    return t[..., :n * tile].reshape(*t.shape[:-1], n, tile).amax(-1)


def test_probe_check_inputs():
    torch = pytest.importorskip("torch")
    m = load_tool("probe_check")
    gen = torch.Generator().manual_seed(3)
    for kind in m.KINDS:
        q, k, v = m.make_inputs(kind, 1, 2, 64, 1024, 128, gen)
        assert q.dtype == torch.bfloat16 and q.shape == (1, 64, 2, 128), kind
        assert k.shape == v.shape == (1, 1024, 2, 128), kind
    # rising: every 128-key tile moves each row's max up, by a few log2 units; steep: by > 30;
    # falling: the first tile holds every row's max; spiky: the late keys hold it
    rise = lambda kind: tile_maxima(*m.make_inputs(kind, 1, 2, 64, 1024, 128, gen)[:2], 128)
    d = rise("rising").diff(dim=-1)
    assert (d > 0).all() and d.max() < 8, d.max()
    assert (rise("steep").diff(dim=-1) > 30).all()
    f = rise("falling")
    assert (f[..., 0] == f.amax(-1)).all()
    q, k, _ = m.make_inputs("spiky", 1, 2, 64, 1000, 128, gen)
    t = tile_maxima(q, k, 8)                 # 8-key tiles: the spike keys' tiles 75 and 112
    assert (t.argmax(-1) >= 75).float().mean() > 0.75  # (a row scores a spike low 1 in 8)
    q, _, _ = m.make_inputs("large", 1, 2, 64, 1024, 128, gen)
    assert q[:, :5].float().abs().mean() > 10 * q[:, 5:].float().abs().mean()


def test_probe_check_exact():
    torch = pytest.importorskip("torch")
    m = load_tool("probe_check")
    gen = torch.Generator().manual_seed(5)
    q, k, v = m.make_inputs("rand", 2, 3, 5, 3, 64, gen)
    out = m.exact(q, k, v, causal=True)
    # bottom-right causal with Sq 5 > Skv 3: rows 0 and 1 see no key (0), row i sees keys
    # j <= i - 2
    assert out.shape == q.shape and (out[:, :2] == 0).all()
    for i in range(2, 5):
        s = torch.einsum("bhd,bjhd->bhj", q[:, i].double(), k[:, :i - 1].double()) / 8.0
        want = torch.einsum("bhj,bjhd->bhd", torch.softmax(s, -1), v[:, :i - 1].double())
        assert torch.allclose(out[:, i], want, atol=1e-12), i
    dense = m.exact(q, k, v, causal=False)
    s = torch.einsum("bqhd,bjhd->bhqj", q.double(), k.double()) / 8.0
    want = torch.einsum("bhqj,bjhd->bqhd", torch.softmax(s, -1), v.double())
    assert torch.allclose(dense, want, atol=1e-12)
    nd, md, err, mabs, fin = m.compare(q, q, q.double())
    assert (nd, md, err, mabs, fin) == (0, 0.0, 0.0, 0.0, True)


@pytest.mark.parametrize("argv, what", [
    ([], "--lib: the base build's libattngen.so is required"),
    (["--lib", "x.so", "--alt-lib", "base=/y.so"], "--alt-lib 'base=/y.so'"),
    (["--lib", "x.so", "--alt-lib", "a=/y.so", "--alt-lib", "a=/z.so"], "each NAME once"),
    (["--lib", "x.so", "--alt-lib", "a=/y.so", "--expect-same", "b"], "--expect-same 'b'"),
    (["--lib", "x.so", "--case", "c1,2,3"], "--case 'c1,2,3'"),
    (["--lib", "x.so", "--case", "1,2,0,4"], "--case '1,2,0,4'"),
    (["--lib", "x.so", "--max-err-ratio", "0.5"], "--max-err-ratio"),
    (["--lib", "x.so", "--kind", "flat"], "--kind"),
])
def test_probe_check_argument_errors(argv, what):
    env = {k: v for k, v in os.environ.items() if k != "ATTNGEN_LIB"}
    r = run_tool("probe_check", *argv, env=env)
    assert r.returncode == 2 and what in r.stderr, r.stderr


def test_probe_check_without_gpu():
    check_no_device_exit("probe_check", "--lib", "x.so")


def test_ctx_race_parsers():
    m = load_tool("ctx_race")
    assert m.parse_ctx("new=/b/libattngen.so") == ("new", "/b/libattngen.so", {})
    assert m.parse_ctx("lf=/b/lib.so,ATTNGEN_CAUSAL_ORDER=1,ATTNGEN_VARIANT=x") == (
        "lf", "/b/lib.so", {"ATTNGEN_CAUSAL_ORDER": "1", "ATTNGEN_VARIANT": "x"})
    for bad in ("new", "=/x.so", "9a=/x.so", "a=", "a=/x.so,CAUSAL=1", "a=/x.so,ATTNGEN_X"):
        with pytest.raises(ValueError):
            m.parse_ctx(bad)
    assert m.parse_fa3("fa3_nomax=/e/libfa3_d128.so") == ("fa3_nomax", "/e/libfa3_d128.so")
    for bad in ("fa3", "=/x.so", "f=", "1f=/x.so"):
        with pytest.raises(ValueError):
            m.parse_fa3(bad)
    assert m.parse_shape("4,32,4096") == (4, 32, 4096, 4096, 32)
    assert m.parse_shape("1,32,8192,8192,8") == (1, 32, 8192, 8192, 8)
    assert m.parse_shape("2,8,100,300") == (2, 8, 100, 300, 8)
    for bad in ("1,2", "1,2,3,4,5,6", "0,2,3", "1,32,100,100,5", "1,x,3"):
        assert m.parse_shape(bad) is None, bad
    # the causal pairs: query i sees keys j <= i + skv - sq (bottom-right), counted one by one
    for sq, skv in ((5, 8), (8, 5), (7, 7), (1, 300), (300, 1)):
        want = sum(1 for i in range(sq) for j in range(skv) if j <= i + skv - sq)
        assert m.pairs(sq, skv, True) == want, (sq, skv)
        assert m.pairs(sq, skv, False) == sq * skv
    assert m.pairs(5, 8, True) == 30 and m.pairs(8, 5, True) == 15


@pytest.mark.parametrize("argv, what", [
    (["--ctx", "a=/x.so"], "--ctx: give at least two"),
    (["--ctx", "a=/x.so", "--ctx", "a=/y.so"], "--ctx/--fa3: each NAME once"),
    (["--ctx", "a=/x.so", "--fa3", "a=/y.so"], "--ctx/--fa3: each NAME once"),
    (["--fa3", "a=/x.so", "--fa3", "b=/y.so"], "--ctx: give at least two"),
    (["--ctx", "a=/x.so", "--fa3", "fa3"], "--fa3 'fa3': expected NAME=PATH"),
    (["--ctx", "a=/x.so", "--fa3", "f="], "--fa3 'f=': expected NAME=PATH"),
    (["--ctx", "1a=/x.so", "--ctx", "b=/y.so"], "--ctx '1a=/x.so'"),
    (["--ctx", "a=", "--ctx", "b=/y.so"], "the library path is empty"),
    (["--ctx", "a=/x.so,CAUSAL=1", "--ctx", "b=/y.so"], "'CAUSAL=1' is not VAR=VALUE"),
    (["--ctx", "a=/x.so", "--ctx", "b=/y.so", "--shape", "1,32,100,100,5"],
     "--shape '1,32,100,100,5'"),
    (["--ctx", "a=/x.so", "--ctx", "b=/y.so", "--iters", "0"], "--iters: expected an integer"),
    (["--ctx", "a=/x.so", "--ctx", "b=/y.so", "--head-dim", "96"], "--head-dim"),
])
def test_ctx_race_argument_errors(argv, what):
    r = run_tool("ctx_race", *argv)
    assert r.returncode == 2 and what in r.stderr, r.stderr


def test_ctx_race_without_gpu():
    check_no_device_exit("ctx_race", "--ctx", "a=/x.so", "--ctx", "b=/y.so")
    check_no_device_exit("ctx_race", "--ctx", "a=/x.so", "--fa3", "f=/y.so")


# Three instructions of the kv176 kernel's steady loop (nvdisasm -hex of an sm_90a cubin); their
# second words carry: BRA stall 5, yield, waits on scoreboard 1; SYNCS.ARRIVE stall 3, yield,
# read scoreboard 1; PLOP3 stall 13, no yield, no scoreboard.
SASS_HEX = """\
        /*5ac0*/               @P0 BRA `(.L_x_109) ;                    /* 0x0000000000140947 */
                                                                       /* 0x002fea0003800000 */
        /*5ae0*/                   SYNCS.ARRIVE.TRANS64.A1T0 RZ, [R12+UR15+0x38030], RZ ;  /* 0x038030ff0cff79a7 */
                                                                       /* 0x0003e6000810000f */
        /*5b00*/                   PLOP3.LUT P2, PT, PT, PT, UP1, 0x80, 0x0 ;  /* 0x000000000000781c */
                                                                       /* 0x000fda0003f4f018 */
"""


def test_sass_ctrl(tmp_path):
    m = load_tool("sass_ctrl")
    ins = m.parse(SASS_HEX.splitlines(True))
    assert [a for a, _, _ in ins] == [0x5ac0, 0x5ae0, 0x5b00]
    bra, arrive, plop = (c for _, _, c in ins)
    assert (bra["stall"], bra["yield"], bra["wb"], bra["rb"], bra["wait"]) == (5, 1, 7, 7, 0b10)
    assert (arrive["stall"], arrive["yield"], arrive["rb"], arrive["wait"]) == (3, 1, 1, 0)
    assert (plop["stall"], plop["yield"], plop["wb"], plop["rb"], plop["wait"]) == (13, 0, 7, 7, 0)
    f = tmp_path / "k.sass"
    f.write_text(SASS_HEX)
    r = run_tool("sass_ctrl", str(f))
    assert r.returncode == 0, r.stderr
    assert "3 instructions: 21 issue cycles" in r.stdout and "1 wait on a scoreboard" in r.stdout
    assert "stall 13" in r.stdout.splitlines()[2] and "wait 1 " in r.stdout.splitlines()[0]
    r = run_tool("sass_ctrl", str(f), "--range", "5ae0", "5b00")
    assert r.returncode == 0 and "2 instructions: 16 issue cycles" in r.stdout, r.stdout
    r = run_tool("sass_ctrl", str(f), "--after", "SYNCS", "--count", "1")
    assert r.returncode == 0 and "1 instructions: 3 issue cycles" in r.stdout, r.stdout
    # no selection, no encodings, usage errors
    assert run_tool("sass_ctrl", str(f), "--after", "HGMMA").returncode == 1
    plain = tmp_path / "plain.sass"
    plain.write_text(SASS)
    r = run_tool("sass_ctrl", str(plain))
    assert r.returncode == 1 and "nvdisasm -hex" in r.stderr, r.stderr
    for argv, what in ((["--range", "5b00", "5ac0"], "past END"),
                       (["--range", "x", "5"], "two hex addresses"),
                       (["--count", "0"], "--count")):
        r = run_tool("sass_ctrl", str(f), *argv)
        assert r.returncode == 2 and what in r.stderr, r.stderr


def tiny_elf(sections):
    """A 64-bit little-endian ELF image with the named sections (name -> bytes) and its section
    name table, enough for bench/sm90_jit_equal.py's reader."""
    names = b"\0" + b"".join(n.encode() + b"\0" for n in list(sections) + [".shstrtab"])
    body, offs = b"", []
    for data in sections.values():
        offs.append(64 + len(body))
        body += data
    stro = 64 + len(body)
    body += names
    shoff = 64 + len(body)
    hdr = bytearray(64)
    hdr[:6] = b"\x7fELF\x02\x01"
    struct.pack_into("<Q", hdr, 0x28, shoff)
    n = len(sections) + 2                       # the null section, the sections, .shstrtab
    struct.pack_into("<HHH", hdr, 0x3A, 64, n, n - 1)
    sh = bytes(64)
    pos = 1
    for (name, data), off in zip(sections.items(), offs):
        sh += struct.pack("<IIQQQQ", pos, 1, 6, 0, off, len(data)) + bytes(24)
        pos += len(name) + 1
    sh += struct.pack("<IIQQQQ", pos, 3, 0, 0, stro, len(names)) + bytes(24)
    return bytes(hdr) + body + sh


def test_sm90_jit_equal_insns():
    """bench/sm90_jit_equal.py's instruction counts: .text bytes / 16 per entry point of the
    variant, NAME first, other kernels' sections left out."""
    m = load_tool("sm90_jit_equal")
    a = tiny_elf({".text.k_var": b"\0" * 48, ".text.k": b"\0" * 32, ".text.kx": b"\0" * 16,
                  ".text.k_merge": b"\0" * 160})
    assert m.entry_insns(a, "k") == [("", 2), ("_merge", 10), ("_var", 3)]
    assert m.entry_insns(a, "none") == []


def test_sm90_jit_equal_compare():
    """bench/sm90_jit_equal.py's .text comparison: per entry point of the variant (NAME and
    NAME_var), not other kernels' sections; a missing section counts as a difference."""
    m = load_tool("sm90_jit_equal")
    a = tiny_elf({".text.k": b"\x01\x02", ".text.k_var": b"\x03", ".text.other": b"\x09"})
    assert m.elf_sections(a)[".text.k_var"] == b"\x03"
    assert m.compare_text(a, a, "k") == []
    b = tiny_elf({".text.k": b"\x01\x02", ".text.k_var": b"\x04", ".text.other": b"\x08"})
    assert m.compare_text(a, b, "k") == ["k_var"]
    c = tiny_elf({".text.k": b"\x01\x02", ".text.other": b"\x09"})
    assert m.compare_text(a, c, "k") == ["k_var"]
    assert m.compare_text(a, a, "nothere") == ["(no .text.nothere)"]
    with pytest.raises(ValueError):
        m.elf_sections(b"not an elf" * 10)
    log = ("ptxas info : 8 bytes spill stores, 8 bytes spill loads\n"
           "ptxas info : 0 bytes spill stores\n"
           "ptxas info : 4 bytes spill stores, 4 bytes spill loads\n")
    assert m.spill_bytes(log) == 12
    r = run_tool("sm90_jit_equal", "--help")
    assert r.returncode == 0 and "Exit status" in r.stdout and "--filter" in r.stdout, r.stdout


def test_sm90_jit_equal_run():
    """bench/sm90_jit_equal.py on one small default variant: NVRTC (through attngen compile)
    and nvcc give the same code; a filter that matches nothing and a missing --cli are usage
    errors (status 2)."""
    exe = os.environ.get("ATTNGEN_CLI")
    if not exe:
        pytest.skip("ATTNGEN_CLI (the attngen program) is not set; ctest sets it")
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    if not os.access(nvcc, os.X_OK):
        pytest.skip("no nvcc here (sm90 is JIT-only): nothing to compare NVRTC with")
    r = run_tool("sm90_jit_equal", "--cli", exe, "--filter", VARIANT, "-j", "1")
    if r.returncode == 1 and "NO_BACKEND" in r.stderr:
        pytest.skip("no NVRTC here: " + r.stderr.strip().splitlines()[-1])
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith("same ") and VARIANT in r.stdout, r.stdout
    assert re.search(r"insns \d{3,}", r.stdout), r.stdout
    assert "1 variants: 1 the same in NVRTC and nvcc" in r.stdout, r.stdout
    r = run_tool("sm90_jit_equal", "--cli", exe, "--filter", "nomatch*")
    assert r.returncode == 2 and "nomatch" in r.stderr, r.stderr
    env = {k: v for k, v in os.environ.items() if k != "ATTNGEN_CLI"}
    r = run_tool("sm90_jit_equal", env=env)
    assert r.returncode == 2 and "--cli" in r.stderr, r.stderr
    r = run_tool("sm90_jit_equal", "--cli", exe, "-j", "0")
    assert r.returncode == 2 and "-j" in r.stderr, r.stderr


def test_causal_order_model():
    """bench/causal_order_model.py (the static causal orders' balance, run M94): its pair order
    runs every job once for each end rule, grids and shapes around the rule's edges; the rule (R >= 3, or R >= 1 with ceil(P / g) > 1.1 P / g) as split_plan.c has it; the model's
    numbers for (4,14,1800) (pairs 1.257, with the end 1.045); argument errors."""
    m = load_tool("causal_order_model")
    try:
        m.lib()
    except Exception as e:  # (ctest sets ATTNGEN_LIB)
        pytest.skip(f"libattngen.so not loadable here: {e}")
    for g in (7, 13, 132):
        for n_mb in (1, 2, 9, 15, 16):
            for nhb in (1, 3, 30, 61, 90, 2 * g + 1):
                n_jobs = n_mb * nhb
                for rule in ("none", "before", "now"):
                    e = m.end_plan(n_mb, nhb, g, rule)
                    seen = []
                    for k in range(g):
                        for i in range(2 * (n_jobs // g) + 8):
                            j = m.pair_job(e, n_mb, nhb, g, i, k)
                            if j < n_jobs:
                                seen.append(j)
                    assert sorted(seen) == list(range(n_jobs)), (g, n_mb, nhb, rule)
                rp = n_jobs // (2 * g) - 1
                pairs = (n_jobs + 1) // 2
                want = rp >= 3 or (rp >= 1 and 10 * (-(-pairs // g)) * g > 11 * pairs)
                assert (m.end_plan(n_mb, nhb, g, "now") is not None) == want, (g, n_mb, nhb)
                assert (m.end_plan(n_mb, nhb, g, "before") is not None) == (rp >= 3)
    info, out = m.model(4, 14, 1800)
    assert info["n_mb"] == 15 and info["R"] == 2 and info["host"] == "pairs"
    assert abs(out["pairs"] - 1.257) < 1e-3 and abs(out["pairs+rule"] - 1.045) < 1e-3, out
    assert out["pairs+R>=3"] == out["pairs"] and out["dynamic"] <= out["pairs+rule"]
    r = run_tool("causal_order_model", "--shape", "4,14,1800", "--shape", "2,12,3300,256")
    assert r.returncode == 0 and "| (4,14,1800) hd128 | 15 | 2 | 1.257 | pairs | 1.257 |" in r.stdout
    for bad in (["--shape", "1,2"], ["--shape", "1,2,3,96"], ["--shape", "4,14,1800", "--grid", "0"]):
        r = run_tool("causal_order_model", *bad)
        assert r.returncode == 2 and r.stdout == "" and "error" in r.stderr, (bad, r.stdout, r.stderr)
