#!/usr/bin/env python3
"""sass_ctrl.py FILE.sass [--range START END] [--after TEXT [--count N]]: the scheduling
controls ptxas put in each instruction of an sm_90 kernel, decoded from its encoding.

FILE is nvdisasm output with the encodings (`SASS_HEX=1 bash bench/sm90_sass_local.sh K.cu
OUT.sass`, i.e. `nvdisasm -hex`: each instruction's two 64-bit words). The controls are bits
105-125 of the 128-bit instruction (bits 41-61 of its second word) in the layout published for
Volta (Jia et al., "Dissecting the NVIDIA Volta GPU Architecture via Microbenchmarking"), which
the sm_90 values fit (stalls 1-15, scoreboards 0-5, waits on the scoreboards set before):
  stall  cycles before the warp's next instruction may issue (fixed-latency dependences)
  yield  the scheduler may switch warps after it
  wb/rb  the scoreboard (0-5; - none) set when a variable-latency result is written / the
         sources have been read
  wait   the scoreboards it waits for before issuing
  reuse  operand reuse-cache flags
Prints one line per instruction: address, the controls, the text; with --range only the
addresses in [START, END] (hex); with --after TEXT the N instructions (default 40) from the
first whose text contains TEXT (e.g. "DEPBAR.LE gsb0, 0x1"). Then the sum of the stall
counts and the number of instructions that wait on a scoreboard in what was printed: the
issue time of that code when nothing else stalls it (bench/RESULTS.md run M47 used it).

Exit status: 0; 1 no instruction with an encoding found (not -hex output) or none selected;
2 usage error.
"""
import argparse
import re
import sys

INSN = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;\s*/\* (0x[0-9a-f]{16}) \*/\s*$")
HI = re.compile(r"^\s*/\* (0x[0-9a-f]{16}) \*/\s*$")


def controls(hi):
    """The scheduling controls of an instruction from its second 64-bit word."""
    return {"stall": (hi >> 41) & 0xF, "yield": (hi >> 45) & 1, "wb": (hi >> 46) & 7,
            "rb": (hi >> 49) & 7, "wait": (hi >> 52) & 0x3F, "reuse": (hi >> 58) & 0xF}


def parse(lines):
    """[(address, text, controls)] of the instructions whose two encoding words are present."""
    out, pend = [], None
    for line in lines:
        m = INSN.match(line)
        if m:
            pend = (int(m.group(1), 16), m.group(2))
            continue
        m = HI.match(line)
        if m and pend:
            out.append((pend[0], pend[1], controls(int(m.group(1), 16))))
        pend = None
    return out


def fmt(addr, text, c):
    sb = lambda v: "-" if v == 7 else str(v)
    wait = ",".join(str(b) for b in range(6) if c["wait"] >> b & 1) or "-"
    return (f"{addr:6x}  stall {c['stall']:2d} {'Y' if c['yield'] else ' '} wb {sb(c['wb'])} "
            f"rb {sb(c['rb'])} wait {wait:7s} reuse {c['reuse']:x}  {text}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("sass", help="nvdisasm -hex output (SASS_HEX=1 bench/sm90_sass_local.sh)")
    p.add_argument("--range", nargs=2, metavar=("START", "END"),
                   help="only the addresses START..END (hex)")
    p.add_argument("--after", metavar="TEXT",
                   help="the instructions from the first whose text contains TEXT")
    p.add_argument("--count", type=int, default=40, help="with --after: how many (default 40)")
    a = p.parse_args(argv)
    lo = hi = None
    if a.range:
        try:
            lo, hi = (int(x, 16) for x in a.range)
        except ValueError:
            p.error(f"--range {' '.join(a.range)}: expected two hex addresses")
        if lo > hi:
            p.error(f"--range: START {a.range[0]} is past END {a.range[1]}")
    if a.count < 1:
        p.error(f"--count: expected an integer >= 1, got {a.count}")
    try:
        with open(a.sass) as f:
            ins = parse(f)
    except OSError as e:
        print(f"sass_ctrl.py: {a.sass}: {e.strerror}", file=sys.stderr)
        return 1
    if not ins:
        print(f"sass_ctrl.py: {a.sass}: no instruction with its encoding (nvdisasm -hex output "
              "expected: SASS_HEX=1 bench/sm90_sass_local.sh)", file=sys.stderr)
        return 1
    if lo is not None:
        ins = [x for x in ins if lo <= x[0] <= hi]
    if a.after:
        first = next((k for k, x in enumerate(ins) if a.after in x[1]), None)
        ins = [] if first is None else ins[first:first + a.count]
    if not ins:
        print("sass_ctrl.py: no instruction selected", file=sys.stderr)
        return 1
    for addr, text, c in ins:
        print(fmt(addr, text, c))
    stalls = sum(max(1, c["stall"]) for _, _, c in ins)
    waits = sum(1 for _, _, c in ins if c["wait"])
    print(f"{len(ins)} instructions: {stalls} issue cycles by their stall counts (at least 1 "
          f"each), {waits} wait on a scoreboard")
    return 0


if __name__ == "__main__":
    sys.exit(main())
