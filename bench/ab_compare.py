#!/usr/bin/env python3
"""ab_compare.py DIR [-v] [--new NAME] [--base NAME]: geomeans of attngen/cuDNN for two builds
(default "new" and "base") and of new/base, per rounding mode, from the bench.py markdown
tables DIR/{NAME}_MODE.md that `bench/sm90_dev_run.sh ab` writes (each build timed with cuDNN
in the same step); -v adds a line per shape."""
import math
import re
import sys

ROW = re.compile(r"\| (\([0-9,]+\)) \| \w+ \| ([0-9.]+) \| ([0-9.]+) \|")


def load(path):
    """shape -> (attngen TFLOP/s, cuDNN TFLOP/s)"""
    with open(path) as f:
        return {m.group(1): (float(m.group(2)), float(m.group(3)))
                for m in map(ROW.match, f) if m}


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(sys.argv) > 1 else 2
    d, args = sys.argv[1], sys.argv[2:]
    verbose = "-v" in args
    names = {"--new": "new", "--base": "base"}
    for i, a in enumerate(args):
        if a in names:
            if i + 1 >= len(args):
                print(f"ab_compare.py: {a} needs a build name (e.g. base, alt)", file=sys.stderr)
                return 2
            names[a] = args[i + 1]
    for mode in ("rtne", "rtna", "rtz"):
        try:
            new = load(f"{d}/{names['--new']}_{mode}.md")
            base = load(f"{d}/{names['--base']}_{mode}.md")
        except FileNotFoundError:
            continue
        shapes = [s for s in new if s in base]
        if not shapes:
            continue
        r_new = [new[s][0] / new[s][1] for s in shapes]
        r_base = [base[s][0] / base[s][1] for s in shapes]
        r_nb = [new[s][0] / base[s][0] for s in shapes]
        print(f"{mode}: geomean new/cuDNN {geomean(r_new):.3f}  base/cuDNN {geomean(r_base):.3f}"
              f"  new/base {geomean(r_nb):.3f}  (n={len(shapes)})")
        if verbose:
            for s, a, b, c in zip(shapes, r_new, r_base, r_nb):
                print(f"  {s:22s} new {new[s][0]:6.1f} ({a:.3f})  base {base[s][0]:6.1f} ({b:.3f})"
                      f"  new/base {c:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
