#!/usr/bin/env python3
"""ab_compare.py DIR [-v] [--new NAME] [--base NAME]: geomeans of attngen/peer (cuDNN, and
FlashAttention-3 where timed) for two builds (default "new" and "base") and of new/base, per
rounding mode, from the bench.py markdown tables that `bench/sm90_dev_run.sh ab` writes: either
one table per mode, DIR/ab_MODE.md, with the new build in the attngen column and the other
builds as --alt-lib columns (all in one process and step), or (older calls) one table per build
and mode, DIR/{NAME}_MODE.md; -v adds a line per shape."""
import math
import sys

PEERS = ("cudnn", "fa3", "flash", "efficient")


def load(path):
    """shape -> {column: TFLOP/s} for the attngen and peer columns of a bench.py table."""
    out, head = {}, None
    with open(path) as f:
        for line in f:
            if not line.startswith("|"):
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if cells[0].startswith("shape"):
                head = cells
                continue
            if head is None or not cells[0].startswith("("):
                continue
            row = {}
            for name, cell in zip(head, cells):
                if name not in ("shape (B,H,Sq,Skv)", "layout", "variant") and "/" not in name:
                    try:
                        row[name] = float(cell)
                    except ValueError:
                        pass
            out[cells[0]] = row
    return out


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


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
            one = load(f"{d}/ab_{mode}.md")
            b = names["--base"]
            new = {s: {k: v for k, v in r.items() if k in PEERS or k == "attngen"}
                   for s, r in one.items()}
            base = {s: {**{k: v for k, v in r.items() if k in PEERS}, "attngen": r[b]}
                    for s, r in one.items() if b in r}
        except FileNotFoundError:
            try:
                new = load(f"{d}/{names['--new']}_{mode}.md")
                base = load(f"{d}/{names['--base']}_{mode}.md")
            except FileNotFoundError:
                continue
        shapes = [s for s in new if s in base and "attngen" in new[s] and "attngen" in base[s]]
        if not shapes:
            continue
        parts = []
        for peer in PEERS:
            both = [s for s in shapes if peer in new[s] and peer in base[s]]
            if both:
                parts.append(f"new/{peer} {geomean([new[s]['attngen'] / new[s][peer] for s in both]):.3f}"
                             f"  base/{peer} {geomean([base[s]['attngen'] / base[s][peer] for s in both]):.3f}")
        r_nb = geomean([new[s]["attngen"] / base[s]["attngen"] for s in shapes])
        print(f"{mode}: geomean " + "  ".join(parts) + f"  new/base {r_nb:.3f}  (n={len(shapes)})")
        if verbose:
            for s in shapes:
                peers = "  ".join(f"/{p} {new[s]['attngen'] / new[s][p]:.3f}"
                                  for p in PEERS if p in new[s])
                print(f"  {s:22s} new {new[s]['attngen']:6.1f} ({peers})  base "
                      f"{base[s]['attngen']:6.1f}  new/base {new[s]['attngen'] / base[s]['attngen']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
