#!/usr/bin/env bash
# gpu_pack.sh: builds here (Debian 12, static Lua) and copies what a GPU machine needs
# into .gpu/ (git-ignored), to be carried by the device tool: the attngen CLI, the shared
# library (+ the shared Lua it links), and the GPU test binaries.
#   bench/gpu_pack.sh [BUILD_DIR]   (default build-gpu)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build-gpu}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
cmake --build "$build" -j2 --target attngen_cli attngen test_gpu_sm90
rm -rf "$root/.gpu" && mkdir -p "$root/.gpu"
cp "$build/attngen" "$build/tests/test_gpu_sm90" "$root/.gpu/"
cp -P "$build"/libattngen.so* "$root/.gpu/"
cp "$(readlink -f /usr/lib/x86_64-linux-gnu/liblua5.4.so.0)" "$root/.gpu/liblua5.4.so.0"
cp "$(readlink -f /usr/lib/x86_64-linux-gnu/libcmocka.so.0)" "$root/.gpu/libcmocka.so.0"
du -sh "$root/.gpu"
