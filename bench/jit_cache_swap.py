#!/usr/bin/env python3
"""jit_cache_swap.py DIR VARIANT CUBIN: replaces the payload of every JIT cache entry of VARIANT
in the cache folder DIR (ATTNGEN_CACHE_DIR) with the code object CUBIN, rewriting the entry's
length, payload checksum and header checksum (runtime/src/cache.c's format), so that the next
process that loads VARIANT from that cache runs CUBIN instead of what NVRTC built.

For experiments only: e.g. the same kernel assembled by another ptxas from the same PTX
(bench/RESULTS.md, run M21). The entry keeps its key, so the runtime cannot tell; delete the
cache folder afterwards. Exit status 1 when no entry of VARIANT is found.
"""
import os
import struct
import sys

HEADER = 256                       # ATTNGEN__CACHE_HEADER_BYTES
OFF_LENGTH, OFF_CHECKSUM, OFF_VARIANT, OFF_HEADER_SUM = 24, 32, 48, 248


def fnv1a64(data, h=0xcbf29ce484222325):
    for x in data:
        h = ((h ^ x) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def main(argv):
    if len(argv) != 4 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) == 2 and argv[1] in ("-h", "--help") else 2
    folder, variant, cubin = argv[1:4]
    data = open(cubin, "rb").read()
    hits = 0
    for f in sorted(os.listdir(folder)):
        if not f.endswith(".atgk"):
            continue
        path = os.path.join(folder, f)
        entry = open(path, "rb").read()
        if len(entry) < HEADER:
            continue
        name = entry[OFF_VARIANT:OFF_VARIANT + 128].split(b"\0")[0].decode(errors="replace")
        if name != variant:
            continue
        head = bytearray(entry[:HEADER])
        struct.pack_into("<Q", head, OFF_LENGTH, len(data))
        struct.pack_into("<Q", head, OFF_CHECKSUM, fnv1a64(data))
        struct.pack_into("<Q", head, OFF_HEADER_SUM, fnv1a64(bytes(head[:OFF_HEADER_SUM])))
        with open(path, "wb") as out:
            out.write(bytes(head) + data)
        hits += 1
    print(f"{variant}: {hits} cache entr{'y' if hits == 1 else 'ies'} now hold {cubin} "
          f"({len(data)} bytes)")
    return 0 if hits else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
