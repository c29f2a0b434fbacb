#!/usr/bin/python3
"""gfx942_unit_count.py: per-unit instruction counts of a gfx942 attention kernel's main loop,
read from its code object (llvm-objdump-19 -d), for the side-by-side comparison of issue 13.

A "unit" is 64 keys x 16 query rows of one wave (one loop iteration of a kernel with q_tiles
16-row Q tiles per wave and kv_tile keys per iteration holds q_tiles * kv_tile / 64 units).

The main loop is the innermost backward branch whose body holds the bulk of the MFMAs. Every path through the
loop body (forward branches only; a branch that leaves the body is taken as not taken) is
enumerated; the steady-state path is chosen by --pick:
  min      the path with the fewest instructions among those that hold --dma K-row LDS DMAs
           and --barriers s_barriers per iteration (a wave's real path: each wave issues its
           share of the K DMAs and both barriers every iteration; paths that combine the two
           groups' branches inconsistently fail these filters) -- the path with no running-max
           change, not the last tile;
  all      print every distinct path (counts per class), to pick by hand.

Classes: mfma (v_mfma*), valu (every other v_* instruction), perm (v_perm_b32), round (the
bf16 rounding ops: v_bfe_u32, v_add3_u32, v_add_u32 with 0x8000, v_cmp_o/u_f32,
v_cndmask_b32 with 0x7fff0000), exp (v_exp_f32), nop_ws (s_nop N counts N+1 wait states),
barrier (s_barrier), lds (ds_*), vmem (buffer_*/global_*), dma (buffer_load_* ... lds),
waitcnt, salu (other s_*).

usage: gfx942_unit_count.py CODE_OBJECT --units U [--symbol NAME] [--dma N] [--barriers N]
                            [--pick min|all]
"""
import argparse
import re
import subprocess
import sys

LINE = re.compile(r"^\s+(\S+)(.*?)//\s*([0-9A-Fa-f]+):")
TARGET = re.compile(r"<([^>+]+)\+0x([0-9a-fA-F]+)>")
SYM = re.compile(r"^([0-9a-fA-F]+) <([^>]+)>:")


def disasm(path):
    out = subprocess.run(["llvm-objdump-19", "-d", "--no-show-raw-insn", path],
                         check=True, capture_output=True, text=True).stdout
    syms, insns, cur = {}, {}, None
    for line in out.splitlines():
        m = SYM.match(line)
        if m:
            cur = m.group(2)
            syms[cur] = int(m.group(1), 16)
            insns[cur] = []
            continue
        m = LINE.match(line)
        if m and cur:
            op, rest, addr = m.group(1), m.group(2), int(m.group(3), 16)
            t = TARGET.search(line.split("//", 1)[1])
            target = syms.get(t.group(1), syms[cur]) + int(t.group(2), 16) if t and "branch" in op else None
            insns[cur].append((addr, op, rest.strip(), target))
    return insns


def classify(op, rest):
    c = {}
    if op.startswith("v_mfma"):
        c["mfma"] = 1
    elif op.startswith("v_"):
        c["valu"] = 1
        if op == "v_perm_b32":
            c["perm"] = 1
        if op.startswith("v_exp_f32"):
            c["exp"] = 1
        if (op.startswith("v_bfe_u32") or op.startswith("v_add3_u32")
                or (op.startswith("v_add_u32") and "0x8000" in rest)
                or op.startswith("v_cmp_o_f32") or op.startswith("v_cmp_u_f32")
                or (op.startswith("v_cndmask_b32") and "0x7fff0000" in rest.lower())):
            c["round"] = 1
    elif op.startswith("ds_"):
        c["lds"] = 1
    elif op.startswith("buffer_") or op.startswith("global_"):
        c["vmem"] = 1
        if rest.endswith(" lds") or " lds" in rest:
            c["dma"] = 1
    elif op == "s_nop":
        c["nop_ws"] = int(rest.split()[0], 0) + 1
    elif op == "s_barrier":
        c["barrier"] = 1
    elif op == "s_waitcnt":
        c["waitcnt"] = 1
    elif op.startswith("s_"):
        c["salu"] = 1
    return c


def main_loop(code):
    """The innermost backward branch whose body holds at least half the kernel's largest
    per-loop MFMA count (the KV loop; an enclosing jump back would hold more code)."""
    loops = []
    for addr, op, _, target in code:
        if target is not None and target < addr:
            body = [x for x in code if target <= x[0] <= addr]
            if any(x[1] == "s_endpgm" for x in body):
                continue  # a jump back to a shared exit, not a loop
            mf = sum(1 for x in body if x[1].startswith("v_mfma"))
            loops.append((mf, len(body), target, addr))
    if not loops:
        sys.exit("no loop found")
    most = max(l[0] for l in loops)
    mf, _, head, back = min((l for l in loops if 2 * l[0] >= most), key=lambda l: l[1])
    return head, back


def paths(code, head, back, keep=("dma", "barrier", "mfma", "exp")):
    """Paths from the loop head to the back edge, as a dynamic program over the forward
    branches: for every instruction and every tuple of the `keep` counts reached there, only
    the path with the fewest instructions is kept (enumerating all paths explodes)."""
    body = [x for x in code if head <= x[0] <= back]
    index = {x[0]: i for i, x in enumerate(body)}
    # states[i]: {key tuple: (insns, path)} of paths arriving at instruction i
    states = [dict() for _ in body]
    states[0][tuple(0 for _ in keep)] = (0, [])
    done = []

    def arrive(j, key, insns, path):
        cur = states[j].get(key)
        if cur is None or insns < cur[0]:
            states[j][key] = (insns, path)

    for i, (addr, op, rest, target) in enumerate(body):
        if not states[i]:
            continue
        c = classify(op, rest)
        for key, (insns, path) in states[i].items():
            nkey = tuple(k + c.get(name, 0) for k, name in zip(key, keep))
            npath = path + [i]
            if addr == back:
                done.append(npath)
                continue
            if op == "s_branch":
                if target in index and target > addr:
                    arrive(index[target], nkey, insns + 1, npath)
                continue  # leaves the loop otherwise
            if op.startswith("s_cbranch") and target in index and target > addr:
                arrive(index[target], nkey, insns + 1, npath)
            if i + 1 < len(body):
                arrive(i + 1, nkey, insns + 1, npath)
        states[i] = None
    return body, done


def count(body, path):
    tot = {"insns": 0}
    for i in path:
        _, op, rest, _ = body[i]
        tot["insns"] += 1
        for k, v in classify(op, rest).items():
            tot[k] = tot.get(k, 0) + v
    return tot


KEYS = ["insns", "mfma", "valu", "perm", "round", "exp", "nop_ws", "barrier", "lds", "vmem",
        "dma", "waitcnt", "salu"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("code_object")
    ap.add_argument("--units", type=float, required=True, help="units per loop iteration")
    ap.add_argument("--symbol")
    ap.add_argument("--dma", type=int, default=None, help="K-row LDS DMAs on the path (per iteration)")
    ap.add_argument("--mfma", type=int, default=None, help="MFMAs on the path (per iteration)")
    ap.add_argument("--exp", type=int, default=None, help="v_exp_f32 on the path (per iteration)")
    ap.add_argument("--barriers", type=int, default=None, help="s_barriers on the path (per iteration)")
    ap.add_argument("--pick", choices=["min", "all"], default="min")
    ap.add_argument("--hist", action="store_true", help="also print the opcode histogram of the path")
    a = ap.parse_args()
    insns = disasm(a.code_object)
    sym = a.symbol or max(insns, key=lambda s: sum(1 for x in insns[s] if x[1].startswith("v_mfma")))
    code = insns[sym]
    head, back = main_loop(code)
    body, ps = paths(code, head, back)
    counts = [count(body, p) for p in ps]
    for c, p in zip(counts, ps):
        c["_path"] = p
    if a.dma is not None:
        counts = [c for c in counts if c.get("dma", 0) == a.dma]
    if a.mfma is not None:
        counts = [c for c in counts if c.get("mfma", 0) == a.mfma]
    if a.exp is not None:
        counts = [c for c in counts if c.get("exp", 0) == a.exp]
    if a.barriers is not None:
        counts = [c for c in counts if c.get("barrier", 0) == a.barriers]
    if not counts:
        sys.exit("no path matches")
    uniq = []
    seen = set()
    for c in counts:
        key = tuple(sorted((k, v) for k, v in c.items() if k != "_path"))
        if key not in seen:
            seen.add(key)
            uniq.append(c)
    uniq.sort(key=lambda c: c["insns"])
    print(f"# {sym}: loop 0x{head:x}..0x{back:x}, {len(ps)} paths, {len(uniq)} distinct; per unit (/{a.units:g})")
    print("\t".join(KEYS))
    for c in (uniq if a.pick == "all" else uniq[:1]):
        print("\t".join(f"{c.get(k, 0) / a.units:.2f}" for k in KEYS))
    if a.hist:
        h = {}
        for i in uniq[0]["_path"]:
            op = body[i][1]
            h[op] = h.get(op, 0) + 1
        for op, n in sorted(h.items(), key=lambda x: -x[1]):
            print(f"  {n / a.units:7.2f}  {op}")


if __name__ == "__main__":
    main()
