#!/usr/bin/env python3
"""ncu_opcodes.py: executed SASS instructions by opcode class, from the CSV of
`ncu -i REPORT --page source --csv --print-source sass` of a report with the SourceCounters
section (bench/sm90_dev_run.sh, step ncupair), per attention score when the call's score
count (B*H*Sq*Skv) is given: warp instructions x 32 / scores, the unit of
shared/notes/sm90-vs-fa3-ncu.md.

Usage: ncu_opcodes.py FILE.csv [--scores N] [--top K]

Prints the total warp instructions executed, then one line per class (HGMMA, MUFU, FFMA, FMUL,
FADD, FMNMX, F2FP/F2F, SHFL, SYNCS (mbarrier), BAR (named barriers), BRA, YIELD, uniform
datapath (U* opcodes, R2UR), memory, other) and the K opcodes with the most executions.
The instruction-count column is found by name ("Instructions Executed", not the thread or
predicated ones), the SASS text in the column whose name has "Source".
"""
import argparse
import csv
import re
import sys

CLASSES = [("HGMMA", r"HGMMA|WARPGROUP"), ("MUFU", r"MUFU"), ("FFMA", r"FFMA"),
           ("FMUL", r"FMUL"), ("FADD", r"FADD"), ("FMNMX", r"FMNMX"), ("F2FP/F2F", r"F2FP|F2F"),
           ("SHFL", r"SHFL"), ("SYNCS (mbarrier)", r"SYNCS"), ("BAR (named)", r"BAR"),
           ("BRA", r"BRA"), ("YIELD", r"YIELD"),
           ("memory (LD/ST/TMA)", r"LDG|STG|LDS|STS|LDSM|LDC|ULDC|LD|ST|UTMA[A-Z]*|UBLKCP"),
           ("uniform (U*, R2UR)", r"U[A-Z0-9]+|R2UR"),
           ("integer/logic (IMAD, LOP3, ...)", r"IMAD|IADD3|LOP3|SHF|ISETP|LEA|MOV|SEL|PRMT|IABS")]


def num(s):
    try:
        return float(str(s).replace(",", ""))
    except ValueError:
        return None


def opcode(sass):
    """The mnemonic of a SASS line (predicate dropped): 'FFMA', 'SYNCS', ..."""
    t = sass.strip()
    t = re.sub(r"^@!?U?P[0-9T]+\s+", "", t)
    m = re.match(r"([A-Z][A-Z0-9_]*)", t)
    return m.group(1) if m else "?"


def classify(op):
    for name, pat in CLASSES:
        if re.fullmatch(f"(?:{pat})[A-Z0-9_]*", op):
            return name
    return "other"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("--scores", type=float, help="attention scores of the call (B*H*Sq*Skv)")
    ap.add_argument("--top", type=int, default=12)
    a = ap.parse_args()
    with open(a.csv, newline="") as f:
        rows = list(csv.reader(f))
    head_i = next((i for i, r in enumerate(rows) if any("Source" in c for c in r)), None)
    if head_i is None:
        print("no header with a Source column; first lines:", rows[:3])
        return 1
    head = rows[head_i]
    src = next(i for i, c in enumerate(head) if "Source" in c)
    exe = next((i for i, c in enumerate(head) if "Instructions Executed" in c
                and "Thread" not in c and "Predicated" not in c), None)
    if exe is None:
        print("no 'Instructions Executed' column; columns:", head)
        return 1
    per_op = {}
    for r in rows[head_i + 1:]:
        if len(r) != len(head):
            continue
        n = num(r[exe]) or 0
        if n:
            op = opcode(r[src])
            per_op[op] = per_op.get(op, 0) + n
    total = sum(per_op.values())
    unit = (32.0 / a.scores) if a.scores else None
    print(f"warp instructions executed {total:.4g} (column '{head[exe]}')"
          + (f", {total * unit:.2f} per score" if unit else ""))
    per_class = {}
    for op, n in per_op.items():
        c = classify(op)
        per_class[c] = per_class.get(c, 0) + n
    for name in [c for c, _ in CLASSES] + ["other"]:
        n = per_class.get(name, 0)
        print(f"  {name:32s} {n:12.4g}" + (f"  {n * unit:6.2f} per score" if unit else ""))
    print("  top opcodes: " + ", ".join(
        f"{op} {n * unit:.2f}" if unit else f"{op} {n:.3g}"
        for op, n in sorted(per_op.items(), key=lambda x: -x[1])[:a.top]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
