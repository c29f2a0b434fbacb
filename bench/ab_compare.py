#!/usr/bin/env python3
"""ab_compare.py DIR [-v]: geomeans (and with -v per shape) of attngen/cuDNN for the "new" and
"base" builds and new/base, from the bench.py markdown tables DIR/{new,base}_MODE.md written by
bench/sm90_dev_ab.sh (each build timed with cuDNN in the same step)."""
import sys, math, re
def load(f):
    d={}
    for line in open(f):
        m=re.match(r"\| (\([0-9,]+\)) \| (\w+) \| ([0-9.]+) \| ([0-9.]+) \| ([0-9.]+) \|", line)
        if m: d[m.group(1)]=(float(m.group(3)), float(m.group(4)))
    return d
dirn=sys.argv[1]
for r in ["rtne","rtna","rtz"]:
    try: n=load(f"{dirn}/new_{r}.md"); b=load(f"{dirn}/base_{r}.md")
    except FileNotFoundError: continue
    gn=gb=gnb=0; k=0; low=[]
    rows=[]
    for s in n:
        an,cn=n[s]; ab,cb=b[s]
        gn+=math.log(an/cn); gb+=math.log(ab/cb); gnb+=math.log(an/ab); k+=1
        rows.append(f"  {s:22s} new {an:6.1f} ({an/cn:.3f})  base {ab:6.1f} ({ab/cb:.3f})  new/base {an/ab:.3f}")
    print(f"{r}: geomean new/cuDNN {math.exp(gn/k):.3f}  base/cuDNN {math.exp(gb/k):.3f}  new/base {math.exp(gnb/k):.3f}  (n={k})")
    if len(sys.argv)>2: print("\n".join(rows))
