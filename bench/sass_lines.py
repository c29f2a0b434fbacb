#!/usr/bin/env python3
"""sass_lines.py FILE.sass [--entry NAME] [--top N]: where a kernel's code comes from: the static
SASS instructions of one entry function counted per template source line.

FILE.sass is nvdisasm output with line information (`nvdisasm -c -gi` of a cubin built with
`nvcc -lineinfo`; bench/sm90_sass_local.sh does both with LINEINFO=1): before a group of
instructions, its inlining chain, innermost first, one `//## File "F", line L [inlined at "G",
line M]` marker per level. Each instruction counts for the innermost line of that chain in a
file whose name starts with attn_fwd (the kernel template), so that code inlined from a wrapper
(wrappers.cuh, bf16_round.h) counts where the template calls it, and a lambda's code where it
is written, not where it is called; instructions with no template line count as `(other)`. --entry picks the function (default:
the first one whose name does not end in _var or _merge); --top the lines listed (default 30).
Prints the total, then count, share, line number and the line's text (when the template file
named in the markers is readable). Static counts, not executed ones (Nsight Compute's source
counters give those): used in bench/RESULTS.md run M83 to find duplicated code.
"""
import argparse
import collections
import os
import re
import sys

ENTRY = re.compile(r"^([A-Za-z_$][\w$]*):\s*$")
INSN = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s+\S")
MARK = re.compile(r'//## File "([^"]*)", line (\d+)(?: inlined at "([^"]*)", line (\d+))?')


def template_line(marker):
    """(file, line) of one level of an inlining chain when it is in the kernel template, else
    None (its "inlined at" part is the next level's marker)."""
    f, n = marker.group(1), int(marker.group(2))
    return (f, n) if os.path.basename(f).startswith("attn_fwd") else None


def count(lines, entry=None):
    """(entry name, Counter {(file, line) or None: instructions})."""
    cur_fn, chosen, where, chain = None, None, None, []
    counts = collections.Counter()
    for line in lines:
        m = ENTRY.match(line)
        if m:
            cur_fn = m.group(1)
            if chosen is None and (cur_fn == entry if entry else
                                   not cur_fn.endswith(("_var", "_merge")) and
                                   not cur_fn.startswith("$")):
                chosen = cur_fn
            where, chain = None, []
            continue
        m = MARK.search(line)
        if m:
            chain.append(m)
            continue
        if INSN.match(line):
            if chain:                        # a new group: its innermost template line
                where = next((t for t in map(template_line, chain) if t), None)
                chain = []
            if chosen is not None and cur_fn == chosen:
                counts[where] += 1
    return chosen, counts


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("sass", help="nvdisasm -c -g output")
    p.add_argument("--entry", help="the entry function (default: the first without _var/_merge)")
    p.add_argument("--top", type=int, default=30, help="lines listed (default 30)")
    a = p.parse_args(argv)
    if a.top < 1:
        p.error("--top: give a positive number")
    try:
        with open(a.sass) as fh:
            lines = fh.read().splitlines()
    except OSError as e:
        print(f"sass_lines.py: {a.sass}: {e.strerror}", file=sys.stderr)
        return 1
    name, counts = count(lines, a.entry)
    if name is None:
        print(f"sass_lines.py: {a.sass}: no entry function"
              + (f" named {a.entry}" if a.entry else ""), file=sys.stderr)
        return 1
    total = sum(counts.values())
    if not any(k is not None for k in counts):
        print(f"sass_lines.py: {a.sass}: no line information for {name} (nvcc -lineinfo, "
              "nvdisasm -g)", file=sys.stderr)
        return 1
    print(f"{name}: {total} instructions")
    text = {}
    for (k, n) in counts.most_common(a.top):
        src = ""
        if k is not None:
            f, ln = k
            if f not in text:
                try:
                    with open(f) as fh:
                        text[f] = fh.read().splitlines()
                except OSError:
                    text[f] = []
            src = text[f][ln - 1].strip()[:90] if 0 < ln <= len(text[f]) else ""
        label = f"{k[1]:5d}" if k is not None else "(other)"
        print(f"{n:6d} {100.0 * n / total:5.1f}%  {label}  {src}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
