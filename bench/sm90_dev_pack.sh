#!/usr/bin/env bash
# sm90_dev_pack.sh: copies this worktree's build (BUILD_DIR, default build/) and the bench
# scripts into DEST (default /work/main/.dev/sm90), the folder a device call carries; run
# there with `bash .dev/sm90/bench/sm90_dev_run.sh STEPS...`. Environment: BASE, CUBINS (below).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
dest="${2:-/work/main/.dev/sm90}"
rm -rf "$dest" && mkdir -p "$dest/bench"
cp "$build/attngen" "$build/tests/test_gpu_sm90" "$dest/"
cp -P "$build"/libattngen.so* "$dest/"
cp "$(readlink -f /usr/lib/x86_64-linux-gnu/liblua5.4.so.0)" "$dest/liblua5.4.so.0"
cp "$(readlink -f /usr/lib/x86_64-linux-gnu/libcmocka.so.0)" "$dest/libcmocka.so.0"
cp "$root/bench/bench.py" "$root/bench/attngen_ctypes.py" "$root/bench/sm90_dev_run.sh" \
  "$root/bench/ncu_src_top.py" "$root/bench/ncu_opcodes.py" "$root/bench/ab_compare.py" \
  "$root/bench/skip_speed.py" "$root/bench/variant_race.py" "$root/bench/sustained.py" \
  "$root/bench/probe_check.py" "$root/bench/ctx_race.py" "$dest/bench/"
# bench/attngen_ctypes.py imports the Python package from ../python
mkdir -p "$dest/python" && cp -r "$root/python/attngen" "$dest/python/"
find "$dest/python" -name __pycache__ -prune -exec rm -rf {} +
# BASE=dir with another build's libattngen.so* (the step `base`); CUBINS="a.cubin b.cubin"
# (the step `sass`).
if [ -n "${BASE:-}" ]; then mkdir -p "$dest/base" && cp -P "$BASE"/libattngen.so* "$dest/base/"; fi
# ALTS="name=dir ...": more builds' libattngen.so* into DEST/name (for AB_LIBS of the step ab).
for alt in ${ALTS:-}; do
  mkdir -p "$dest/${alt%%=*}" && cp -P "${alt#*=}"/libattngen.so* "$dest/${alt%%=*}/"
done
# FA3_LIB=path: a FlashAttention-3 library built by the user outside the repository (the
# entry point of bench/bench.py's peer fa3) into DEST/fa3 (an ignored folder: never committed).
if [ -n "${FA3_LIB:-}" ]; then mkdir -p "$dest/fa3" && cp "$FA3_LIB" "$dest/fa3/"; fi
if [ -n "${CUBINS:-}" ]; then mkdir -p "$dest/cubins" && cp $CUBINS "$dest/cubins/"; fi
du -sh "$dest"
