#!/usr/bin/env python3
"""sm90_jit_equal.py: before a template change goes to CI, do NVRTC (the runtime's JIT) and
nvcc (the AOT build) still compile each sm90 variant to the same code, and does it spill?

tests/test_jit.c requires the `.text` of every default sm90 variant to be byte-identical
between the build's nvcc cubin and NVRTC's; it runs in CI after the whole AOT build (~30 min
here). This checks the same thing for the variants a change touches, in minutes: the sources
come from the given attngen program's own generator (`attngen generate`, its embedded
templates), NVRTC's code from its `attngen compile --target sm90` (the runtime's compiler
options, into a private cache), nvcc's with cmake/kernels.cmake's ATTNGEN_SM90_FLAGS (read
from that file) and `-Xptxas -v` for the spills. Per variant one line:
`same` or `DIFFERENT (ENTRY)` (each entry point's .text section compared, NAME and NAME_var),
the spill bytes (stores, summed over the entry points), the SASS instructions of each entry
point in nvcc's cubin (NAME's, then e.g. `var 7944` for NAME_var: its .text bytes / 16, the
section's trailing padding included, so some dozens above the instructions nvdisasm lists;
code size is what short calls pay for, bench/RESULTS.md runs M80-M81), the name.

  python3 bench/sm90_jit_equal.py --cli build/attngen --filter '*causal*'

Why two compilers can differ (bench/RESULTS.md run M84): NVRTC's front end materialises the
dynamic shared memory symbol with 64-bit moves where nvcc's uses 32-bit ones, which renumbers
the PTX registers after it; ptxas breaks ties by those numbers, so a change that leaves the
PTX otherwise equal can still reorder two independent moves in one compiler's code only.

Exit status: 0 every variant the same; 1 a variant differs or a compile failed; 2 usage error
(or no nvcc / no variant matched).
"""
import argparse
import concurrent.futures
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def nvcc_flags():
    """The AOT build's nvcc flags, read from cmake/kernels.cmake (set(ATTNGEN_SM90_FLAGS ...)),
    so that this check compiles as the build does."""
    with open(os.path.join(ROOT, "cmake", "kernels.cmake")) as f:
        m = re.search(r"set\(ATTNGEN_SM90_FLAGS\s+([^)]*)\)", f.read())
    if not m:
        raise RuntimeError("cmake/kernels.cmake: no set(ATTNGEN_SM90_FLAGS ...)")
    return m.group(1).split()


def elf_sections(blob):
    """{name: bytes} of the sections of a 64-bit little-endian ELF image; ValueError if it is
    not one."""
    if len(blob) < 64 or blob[:4] != b"\x7fELF" or blob[4] != 2 or blob[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF image")
    shoff, = struct.unpack_from("<Q", blob, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", blob, 0x3A)
    heads = []
    for i in range(shnum):
        o = shoff + i * shentsize
        name, typ, _flags, _addr, off, size = struct.unpack_from("<IIQQQQ", blob, o)
        heads.append((name, typ, off, size))
    if shstrndx >= len(heads):
        raise ValueError("no section name table")
    _, _, stro, strs = heads[shstrndx]
    strtab = blob[stro:stro + strs]
    out = {}
    for name, typ, off, size in heads:
        end = strtab.find(b"\0", name)
        key = strtab[name:end].decode("ascii", "replace")
        out[key] = b"" if typ == 8 else blob[off:off + size]   # SHT_NOBITS: no bytes
    return out


def compare_text(a, b, name):
    """The entry points of variant `name` whose .text differs between cubins a and b (their
    bytes), or that one of them lacks: [] when every .text.NAME* section is the same."""
    sa, sb = elf_sections(a), elf_sections(b)
    keys = sorted(k for k in set(sa) | set(sb)
                  if k == ".text." + name or k.startswith(".text." + name + "_"))
    if not keys:
        return ["(no .text." + name + ")"]
    return [k[len(".text."):] for k in keys if sa.get(k) != sb.get(k)]


def entry_insns(blob, name):
    """[(suffix, instructions)] of the entry points of variant `name` in a cubin: its
    .text.NAME* sections' bytes / 16 (an sm90 instruction is 16 bytes), NAME first ("")."""
    secs = elf_sections(blob)
    keys = sorted(k for k in secs if k == ".text." + name or k.startswith(".text." + name + "_"))
    return [(k[len(".text." + name):], len(secs[k]) // 16) for k in keys]


def spill_bytes(ptxas_log):
    """Spill stores in bytes, summed over the functions of an `nvcc -Xptxas -v` log."""
    return sum(int(m) for m in re.findall(r"(\d+) bytes spill stores", ptxas_log))


def nvcc_one(nvcc, flags, src, out):
    r = subprocess.run([nvcc, *flags, "-Xptxas", "-v", src, "-o", out],
                       capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cli", default=os.environ.get("ATTNGEN_CLI"),
                   help="the attngen program whose templates are checked (default $ATTNGEN_CLI)")
    p.add_argument("--filter", default="*", metavar="GLOB",
                   help="sm90 variants of the default set whose name matches (default *)")
    p.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc",
                   help="nvcc (default: on PATH, else /usr/local/cuda/bin/nvcc)")
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                   help="compiles at a time (default: the CPUs)")
    a = p.parse_args(argv)
    if not a.cli or not os.access(a.cli, os.X_OK):
        p.error("--cli: the attngen program is required (an executable file; or set ATTNGEN_CLI)")
    if not os.access(a.nvcc, os.X_OK):
        p.error(f"--nvcc: {a.nvcc!r} is not an executable nvcc")
    if a.jobs < 1:
        p.error("-j: must be >= 1")
    with tempfile.TemporaryDirectory(prefix="sm90_jit_equal.") as tmp:
        gen, rtc = os.path.join(tmp, "gen"), os.path.join(tmp, "rtc")
        env = dict(os.environ, ATTNGEN_CACHE_DIR=os.path.join(tmp, "cache"))
        env.pop("ATTNGEN_TEMPLATE_DIR", None)            # the program's embedded templates
        r = subprocess.run([a.cli, "generate", "-q", "-o", gen], env=env,
                           capture_output=True, text=True)
        if r.returncode != 0:
            print(f"attngen generate failed:\n{r.stdout}{r.stderr}", file=sys.stderr)
            return 1
        r = subprocess.run([a.cli, "compile", "--target", "sm90", "--filter", a.filter,
                            "-o", rtc, f"-j{a.jobs}"], env=env, capture_output=True, text=True)
        if r.returncode != 0:
            print(f"attngen compile (NVRTC) failed:\n{r.stdout}{r.stderr}", file=sys.stderr)
            return 2 if "no variant" in r.stdout + r.stderr else 1
        names = sorted(f[:-6] for f in os.listdir(rtc) if f.endswith(".cubin")) \
            if os.path.isdir(rtc) else []
        if not names:
            print(f"--filter {a.filter!r}: no sm90 variant of the default set matches",
                  file=sys.stderr)
            return 2
        srcs = {n: os.path.join(gen, "sm90", n + ".cu") for n in names}
        flags = nvcc_flags()
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
            futs = {n: ex.submit(nvcc_one, a.nvcc, flags, srcs[n], os.path.join(tmp, n + ".nvcc"))
                    for n in names}
        bad = 0
        for n in names:
            rc, log = futs[n].result()
            if rc != 0:
                print(f"nvcc failed       {n}\n{log}")
                bad += 1
                continue
            with open(os.path.join(tmp, n + ".nvcc"), "rb") as f:
                aot = f.read()
            with open(os.path.join(rtc, n + ".cubin"), "rb") as f:
                jit = f.read()
            diff = compare_text(aot, jit, n)
            state = "same" if not diff else "DIFFERENT (" + ", ".join(diff) + ")"
            bad += bool(diff)
            insns = " ".join(f"{sfx[1:] + ' ' if sfx else ''}{c}" for sfx, c in entry_insns(aot, n))
            print(f"{state:<17} spill {spill_bytes(log):>4} B  insns {insns:<17} {n}")
        print(f"{len(names)} variants: {len(names) - bad} the same in NVRTC and nvcc")
        return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
