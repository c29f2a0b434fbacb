#!/usr/bin/env bash
# sm90_sass_local.sh FILE.cu|FILE.cubin [OUT.sass]: SASS of an sm_90a kernel on this machine,
# which has nvcc 13 but no disassembler, and what runs between each round's two wgmma waits.
# Uses nvdisasm 11.8 from Debian 12's non-free nvidia-cuda-toolkit package, fetched once into
# .cache/nvdisasm-11.8 (never installed): it reads sm_90 code but not CUDA 13's cubin header,
# so the header is rewritten to the old ELF ABI (version 7, OS/ABI 0x33, flags sm_90) first.
# Prints, per WARPGROUP.DEPBAR gsb0 0x1 ... gsb0 0x0 region (S_j done ... P_{j-1} V_{j-1}
# done), the counts of the softmax's instructions in it: MUFU.EX2 there means the softmax ran
# while the warpgroup's own P.V was in flight (see bench/RESULTS.md, run AB2). SASS_HEX=1 adds
# the encodings (for bench/sass_ctrl.py).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
in="${1:?usage: sm90_sass_local.sh FILE.cu|FILE.cubin [OUT.sass]}"
out="${2:-/tmp/sm90_sass_local.sass}"
tool="$root/.cache/nvdisasm-11.8"
if [ ! -x "$tool/usr/bin/nvdisasm" ]; then
  mkdir -p "$tool"
  deb="http://deb.debian.org/debian/pool/non-free/n/nvidia-cuda-toolkit/nvidia-cuda-toolkit_11.8.89~11.8.0-5~deb12u1_amd64.deb"
  echo "fetching nvdisasm (Debian non-free nvidia-cuda-toolkit 11.8, ~84 MB) into $tool" >&2
  curl -sSfL -o "$tool/pkg.deb" "$deb"
  dpkg-deb -x "$tool/pkg.deb" "$tool/x"
  mkdir -p "$tool/usr/bin" && cp "$tool/x/usr/bin/nvdisasm" "$tool/usr/bin/" && rm -rf "$tool/x" "$tool/pkg.deb"
fi
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
case "$in" in
  *.cu) /usr/local/cuda/bin/nvcc -arch=sm_90a -cubin -O3 ${LINEINFO:+-lineinfo} -o "$tmp/k.cubin" "$in" ;;
  *) cp "$in" "$tmp/k.cubin" ;;
esac
/usr/bin/python3 - "$tmp/k.cubin" "$tmp/old.cubin" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
b[7], b[8] = 0x33, 7                          # EI_OSABI = CUDA, EI_ABIVERSION = 7
struct.pack_into('<I', b, 0x30, 0x005a055a)   # e_flags: sm_90, virtual sm_90, 64-bit, unified tex
open(sys.argv[2], 'wb').write(b)
PY
# SASS_HEX=1: with each instruction's encoding (nvdisasm -hex), which bench/sass_ctrl.py decodes
# LINEINFO=1: compiled with -lineinfo and disassembled with the source line of each instruction
# and its inlining chain (nvdisasm -gi), for bench/sass_lines.py
"$tool/usr/bin/nvdisasm" -c ${SASS_HEX:+-hex} ${LINEINFO:+-gi} "$tmp/old.cubin" > "$out"
/usr/bin/python3 - "$out" <<'PY'
import collections, re, sys
keep = ('MUFU', 'FMNMX', 'FADD', 'FMUL', 'F2FP', 'LOP3', 'SHFL', 'FSEL')
on, n = False, 0
for line in open(sys.argv[1]):
    m = re.search(r"/\*([0-9a-f]+)\*/\s+(@!?U?P[0-9T]+\s+)?([A-Z][A-Z0-9_.]*)", line)
    if not m:
        continue
    op = m.group(3)
    if op.startswith('WARPGROUP.DEPBAR') and 'gsb0, 0x1' in line:
        on, start, c = True, m.group(1), collections.Counter()
    elif op.startswith('WARPGROUP.DEPBAR') and 'gsb0, 0x0' in line and on:
        n += 1
        print(f"region {n} ({start}..{m.group(1)}):",
              ", ".join(f"{k} {v}" for k, v in sorted(c.items()) if k.split('.')[0] in keep))
        on = False
    elif on:
        c[op] += 1
print(f"SASS: {sys.argv[1]}")
PY
