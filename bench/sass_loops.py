#!/usr/bin/env python3
"""sass_loops.py FILE.sass [--all] [--blocks START END]: the loops of a disassembled kernel
(nvdisasm output, e.g. from bench/sm90_sass_local.sh) and what they hold.

A loop is a backward branch: the instructions from its target label to the branch. By default
only loops with HGMMA (the wgmma rounds) are listed, innermost first in address order, each
with its static instruction count and opcode histogram (opcode without modifiers; predicated
instructions count as their opcode). --all lists every loop. --blocks START END (hex
addresses, e.g. from a loop line) lists the basic blocks of that range instead: label,
address, size, the most common opcodes and the block's last branches, so that the path a
round takes can be read off (blocks jumped over are the rare paths).

Static counts, not executed ones: Nsight Compute's source counters give those
(bench/ncu_src_top.py). Used in bench/RESULTS.md run M18 to compare the dense and skip kernels'
steady loops.
"""
import collections
import re
import sys

INSN = re.compile(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
LABEL = re.compile(r"^\s*(\.L_x_\d+):")
BRANCH = re.compile(r"BRA\S*\s+.*?`\((\.L_x_\d+)\)")


def parse(lines):
    """[(address, text)] and {label: address of the instruction after it}."""
    insns, labels, pending = [], {}, []
    for line in lines:
        m = LABEL.match(line)
        if m:
            pending.append(m.group(1))
            continue
        m = INSN.match(line)
        if m:
            a = int(m.group(1), 16)
            for p in pending:
                labels[p] = a
            pending = []
            insns.append((a, m.group(2)))
    return insns, labels


def opcode(text):
    text = re.sub(r"^@!?U?P\w+\s+", "", text)
    return text.split()[0].split(".")[0]


def loops(insns, labels, all_loops=False):
    out = []
    for a, t in insns:
        m = BRANCH.search(t)
        if not m or m.group(1) not in labels or labels[m.group(1)] > a:
            continue
        s = labels[m.group(1)]
        body = [x for (b, x) in insns if s <= b <= a]
        hg = sum("HGMMA" in x for x in body)
        if hg or all_loops:
            out.append((s, a, len(body), hg, collections.Counter(opcode(x) for x in body)))
    return out


def blocks(insns, labels, start, end):
    """Basic blocks (split at labels) of [start, end], from parse()'s output."""
    name_at = {}
    for name, a in labels.items():          # (labels on one address: the last one names it)
        name_at[a] = name
    out = []
    for a, t in insns:
        if not start <= a <= end:
            continue
        if a in name_at or not out:
            out.append((name_at.get(a, "entry"), []))
        out[-1][1].append((a, t))
    return out


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) >= 2 else 2
    lines = open(argv[1]).read().splitlines()
    insns, labels = parse(lines)
    if not insns:
        print(f"sass_loops.py: no instructions in {argv[1]} (nvdisasm output expected)",
              file=sys.stderr)
        return 1
    if "--blocks" in argv:
        i = argv.index("--blocks")
        try:
            start, end = int(argv[i + 1], 16), int(argv[i + 2], 16)
        except (IndexError, ValueError):
            print("sass_loops.py: --blocks takes two hex addresses, START END", file=sys.stderr)
            return 2
        for name, blk in blocks(insns, labels, start, end):
            c = collections.Counter(opcode(t) for _, t in blk)
            br = [t for _, t in blk if "BRA" in t][-2:]
            print(f"{name} {blk[0][0]:x} n={len(blk)}: "
                  + " ".join(f"{k}{v}" for k, v in c.most_common(8))
                  + ("  | " + " ; ".join(br) if br else ""))
        return 0
    for s, e, n, hg, c in loops(insns, labels, "--all" in argv):
        print(f"loop {s:x}..{e:x}: {n} instructions, HGMMA {hg}")
        print("    " + ", ".join(f"{k} {v}" for k, v in c.most_common()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
