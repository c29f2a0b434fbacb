#!/usr/bin/env python3
"""ncu_src_top.py: the SASS instructions with the most PC-sampling stall samples, from the CSV
of `ncu -i REPORT --page source --csv --print-source sass` (bench/sm90_dev_run.sh, step ncusrc).

Usage: ncu_src_top.py FILE.csv [N]   (N rows, default 40)

Prints the total samples, then per instruction: address, samples, share of the total, its
largest stall-reason columns, and the SASS text. Column names differ between ncu versions,
so columns are found by name fragments: the one with "Source" holds the SASS text, the
"Warp Stall Sampling (All" column the samples, and the other numeric columns whose name has
"stall" or "Sampling" are the reasons.
"""
import csv
import sys


def num(s):
    try:
        return float(str(s).replace(",", ""))
    except ValueError:
        return None


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(sys.argv) >= 2 else 2
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    with open(sys.argv[1], newline="") as f:
        rows = list(csv.reader(f))
    head_i = next((i for i, r in enumerate(rows) if any("Source" in c for c in r)), None)
    if head_i is None:
        print("no header with a Source column; first lines:", rows[:3])
        return 1
    head = rows[head_i]
    body = [r for r in rows[head_i + 1:] if len(r) == len(head)]
    src = next(i for i, c in enumerate(head) if "Source" in c)
    addr = next((i for i, c in enumerate(head) if "Address" in c), None)
    allc = next((i for i, c in enumerate(head) if "Stall Sampling (All" in c), None)
    if allc is None:
        allc = next((i for i, c in enumerate(head) if "Sampling" in c), None)
    if allc is None:
        print("no sampling column; columns:", head)
        return 1
    reasons = [i for i, c in enumerate(head)
               if i != allc and ("stall" in c.lower() or "Sampling" in c) and "Not-issued" not in c
               and any(num(r[i]) for r in body[:200])]
    total = sum(num(r[allc]) or 0 for r in body)
    print(f"instructions {len(body)}, samples {total:.0f} (column '{head[allc]}')")
    body.sort(key=lambda r: -(num(r[allc]) or 0))
    for r in body[:n]:
        s = num(r[allc]) or 0
        if s <= 0:
            break
        why = sorted(((num(r[i]) or 0, head[i]) for i in reasons), reverse=True)[:3]
        why = ", ".join(f"{h.replace('Warp Stall Sampling', '').strip()}={v:.0f}"
                        for v, h in why if v > 0)
        a = r[addr] if addr is not None else "?"
        print(f"{a:>8} {s:7.0f} {100 * s / max(total, 1):5.1f}%  {r[src].strip()[:70]:70s} {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
