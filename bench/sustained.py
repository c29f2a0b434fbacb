#!/usr/bin/env python3
"""sustained.py: each kernel run back to back for a few seconds per shape, as in a model's long
run, with the GPU's SM clock, power draw and temperature sampled by nvidia-smi while it runs.

bench.py times single calls after a GPU sleep (host overhead hidden, the GPU partly rested);
under a long run an H200 settles at its power limit, where a kernel's clock depends on the
energy it spends per cycle, so two kernels with the same cycles per call can differ in time.
This script measures that state: per kernel and shape, one phase of --seconds of back-to-back
calls (after an idle --idle-s, so every phase starts from the same rested state), the mean time
per call over the phase after its first --skip-calls calls (CUDA events), the mean SM clock and
power and the highest temperature of the nvidia-smi samples taken in the phase after its
first --settle-s, and TFLOP/s per GHz of that clock (work per cycle, the clock factored out).

Kernels: attngen (--lib), other attngen builds on the same inputs (--alt-lib NAME=PATH), and
FlashAttention-3 from a library you build yourself (--fa3-lib, bench.py's C entry point; BSHD
dense calls at head_dim 64, 128 or 256). Inputs: random normal bf16, BSHD, scale 1/sqrt(D).

  python3 bench/sustained.py --lib build/libattngen.so --fa3-lib /path/libfa3_d128.so \\
      --shape 2,24,8192,8192 --shape 1,12,32760,32760
"""
import argparse
import datetime
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SMI_QUERY = "timestamp,clocks.sm,power.draw,temperature.gpu"


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lib", default=os.environ.get("ATTNGEN_LIB"),
                   help="libattngen.so (default $ATTNGEN_LIB, else the package's search order)")
    p.add_argument("--alt-lib", action="append", default=[], metavar="NAME=PATH",
                   help="another libattngen build, timed as kernel NAME (repeatable)")
    p.add_argument("--fa3-lib", default=None,
                   help="FlashAttention-3 library (bench.py's entry point), timed as fa3")
    p.add_argument("--shape", action="append", default=[], metavar="B,H,SQ,SKV",
                   help="shape to run (repeatable; default 2,24,8192,8192)")
    p.add_argument("--head-dim", type=int, default=128, choices=[64, 128, 256])
    p.add_argument("--round", default="rtne", choices=["rtne", "rtna", "rtz"],
                   help="attngen rounding mode (fa3 rounds to nearest even)")
    p.add_argument("--seconds", type=float, default=2.0, help="length of a phase (default 2)")
    p.add_argument("--idle-s", type=float, default=0.5, help="idle time before a phase")
    p.add_argument("--settle-s", type=float, default=0.5,
                   help="samples of a phase's first seconds left out (default 0.5)")
    p.add_argument("--skip-calls", type=int, default=5,
                   help="calls of a phase left out of its time per call (default 5)")
    p.add_argument("--reps", type=int, default=1, help="phases per kernel and shape")
    p.add_argument("--sample-ms", type=int, default=50, help="nvidia-smi sampling period")
    args = p.parse_args(argv)
    shapes = []
    for text in args.shape or ["2,24,8192,8192"]:
        try:
            s = tuple(int(x) for x in text.split(","))
        except ValueError:
            s = ()
        if len(s) != 4 or min(s) < 1:
            p.error(f"--shape {text!r}: expected B,H,SQ,SKV (4 positive integers)")
        shapes.append(s)
    args.shapes = shapes
    sys.path.insert(0, HERE)
    import attngen_ctypes
    try:
        args.alts = attngen_ctypes.parse_alt_libs(args.alt_lib, ("attngen", "fa3"))
    except ValueError as e:
        p.error(str(e))
    for name, value, low in (("--seconds", args.seconds, 0.1), ("--idle-s", args.idle_s, 0.0),
                             ("--settle-s", args.settle_s, 0.0)):
        if not value >= low:
            p.error(f"{name}: expected a number >= {low}, got {value}")
    if args.settle_s >= args.seconds:
        p.error(f"--settle-s ({args.settle_s}) must be shorter than --seconds ({args.seconds})")
    for name, value, low in (("--skip-calls", args.skip_calls, 0), ("--reps", args.reps, 1),
                             ("--sample-ms", args.sample_ms, 10)):
        if value < low:
            p.error(f"{name}: expected an integer >= {low}, got {value}")
    return args


def parse_smi_line(line):
    """(unix time, SM clock MHz, power W, temperature C) of one line of
    `nvidia-smi --query-gpu=SMI_QUERY --format=csv,noheader,nounits`, or None (a header, a
    blank line, a field nvidia-smi reports as [N/A]). nvidia-smi's timestamp is local time."""
    parts = [x.strip() for x in line.split(",")]
    if len(parts) != 4:
        return None
    try:
        t = datetime.datetime.strptime(parts[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
        return (t, float(parts[1]), float(parts[2]), float(parts[3]))
    except ValueError:
        return None


def window_stats(samples, t0, t1):
    """Mean clock, mean power, highest temperature and count of the samples with t0 <= t <= t1
    (None for the three figures when there are none)."""
    sel = [s for s in samples if t0 <= s[0] <= t1]
    if not sel:
        return None, None, None, 0
    return (statistics.mean(s[1] for s in sel), statistics.mean(s[2] for s in sel),
            max(s[3] for s in sel), len(sel))


def main(argv=None):
    args = parse_args(argv)
    import torch
    if not torch.cuda.is_available():
        sys.exit("sustained.py: no CUDA device (torch.cuda.is_available() is False)")
    import attngen_ctypes
    kernels = attngen_ctypes.open_libs([("attngen", args.lib)] + args.alts)
    fa3 = None
    if args.fa3_lib:
        import bench
        fa3 = bench.FA3(args.fa3_lib, args.head_dim, False)
        if not fa3.fn_ok:
            sys.exit(f"sustained.py: --fa3-lib {args.fa3_lib}: no {fa3.name} in that library")
    fd, log_path = tempfile.mkstemp(prefix="sustained-", suffix=".csv")
    log = os.fdopen(fd, "w")
    try:
        smi = subprocess.Popen(["nvidia-smi", f"--query-gpu={SMI_QUERY}",
                                "--format=csv,noheader,nounits", "-lms", str(args.sample_ms)],
                               stdout=log, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    except OSError as e:
        sys.exit(f"sustained.py: nvidia-smi could not be started: {e}")
    phases = []
    try:
        time.sleep(1.0)
        for shape in args.shapes:
            b, h, sq, skv = shape
            d = args.head_dim
            q = torch.randn(b, sq, h, d, device="cuda", dtype=torch.bfloat16)
            k = torch.randn(b, skv, h, d, device="cuda", dtype=torch.bfloat16)
            v = torch.randn(b, skv, h, d, device="cuda", dtype=torch.bfloat16)
            o = torch.empty_like(q)
            runs = []
            for name, ag in kernels:
                a = ag.args(q, k, v, o, rounding=args.round)
                runs.append((name, lambda ag=ag, a=a: ag.fwd_args(a)))
            if fa3 is not None:
                prepared = fa3.prepare(q, k, v, o, "bshd")
                runs.append(("fa3", lambda prepared=prepared: fa3(prepared)))
            flops = 4.0 * b * h * sq * skv * d
            for rep in range(args.reps):
                for name, fn in runs:
                    fn()
                    torch.cuda.synchronize()
                    time.sleep(args.idle_s)
                    e0, e1 = (torch.cuda.Event(enable_timing=True) for _ in range(2))
                    t0, n = time.time(), 0
                    while time.time() - t0 < args.seconds or n <= args.skip_calls:
                        if n == args.skip_calls:
                            e0.record()
                        fn()
                        n += 1
                        if n % 4 == 0:
                            torch.cuda.synchronize()   # keeps the queue (and the phase) short
                    e1.record()
                    torch.cuda.synchronize()
                    t1 = time.time()
                    ms = e0.elapsed_time(e1) / (n - args.skip_calls)
                    phases.append((shape, name, rep, t0, t1, ms, flops / ms / 1e9))
                    print(f"  {shape} {name} rep {rep}: {ms:.3f} ms per call, {n} calls",
                          file=sys.stderr, flush=True)
            del q, k, v, o
            torch.cuda.empty_cache()
        time.sleep(2 * args.sample_ms / 1e3)
    finally:
        smi.kill()
        log.close()
    samples = [s for s in map(parse_smi_line, open(log_path)) if s is not None]
    os.remove(log_path)
    dev = torch.cuda.get_device_name(0)
    print(f"sustained.py | {dev} | {args.seconds:g} s per phase, samples every "
          f"{args.sample_ms} ms after the first {args.settle_s:g} s | head_dim {args.head_dim}, "
          f"attngen {args.round}")
    print("| shape | kernel | ms per call | TFLOP/s | SM clock MHz | power W | max temp C | "
          "TFLOP/s per GHz | time / first kernel's | per GHz / first kernel's |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    first = {}
    for shape, name, rep, t0, t1, ms, tf in phases:
        clk, pw, temp, count = window_stats(samples, t0 + args.settle_s, t1)
        per_ghz = tf / (clk / 1e3) if clk else None
        key = (shape, rep)
        if key not in first:
            first[key] = (ms, per_ghz)
        f_ms, f_pg = first[key]
        cells = [",".join(map(str, shape)) + (f" #{rep}" if args.reps > 1 else ""), name,
                 f"{ms:.3f}", f"{tf:.1f}",
                 f"{clk:.0f}" if clk else "n/a", f"{pw:.0f}" if pw else "n/a",
                 f"{temp:.0f}" if temp is not None else "n/a",
                 f"{per_ghz:.1f}" if per_ghz else "n/a", f"{ms / f_ms:.3f}",
                 f"{per_ghz / f_pg:.3f}" if per_ghz and f_pg else "n/a"]
        print("| " + " | ".join(cells) + " |" + ("" if count else "  (no samples)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
