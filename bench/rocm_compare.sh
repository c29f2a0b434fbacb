#!/usr/bin/env bash
# bench/rocm_compare.sh [BUILD]: the gfx942 default set as three compilers built it, side by
# side, as a markdown table for bench/RESULTS.md: clang-19 (BUILD/kernels/gfx942, embedded),
# hipcc 5.7 (BUILD/kernels/gfx942-hipcc, cmake/rocm.cmake) and hiprtc 5.7
# (BUILD/kernels/gfx942-hiprtc, written by tests/test_rocm.c or by
# `attngen compile --target gfx942 -o DIR` run under the trixie root's loader). Numbers come
# from `attngen report --tsv` (kernel descriptors and the main KV loop, one iteration = one KV
# tile). A kernel missing from a directory shows "-".
set -euo pipefail
BUILD="${1:-build}"
CLI="$BUILD/attngen"
for d in gfx942 gfx942-hipcc gfx942-hiprtc; do
  if ! ls "$BUILD/kernels/$d"/*.co >/dev/null 2>&1; then
    echo "bench/rocm_compare.sh: no code objects in $BUILD/kernels/$d" >&2
    exit 1
  fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$CLI" report --tsv --dir "$BUILD/kernels/gfx942" >"$tmp/c"
"$CLI" report --tsv --dir "$BUILD/kernels/gfx942-hipcc" >"$tmp/h"
"$CLI" report --tsv --dir "$BUILD/kernels/gfx942-hiprtc" >"$tmp/r"
echo "| kernel | VGPR clang-19 / hipcc / hiprtc | AGPR | SGPR | LDS bytes | scratch | waves/SIMD | MFMA per KV tile | loop VALU |"
echo "|---|---|---|---|---|---|---|---|---|"
# columns: name vgpr agpr sgpr scratch lds vgpr_spill sgpr_spill occ mfma valu lds vmem wait bar
awk -F'\t' '
  FNR == 1 { f++; next }
  { key = $1; for (i = 2; i <= NF; i++) v[f, key, i] = $i; if (f == 1) order[++n] = key }
  function tri(k, i,   a, b, c) {
    a = ((1, k, i) in v) ? v[1, k, i] : "-"; b = ((2, k, i) in v) ? v[2, k, i] : "-";
    c = ((3, k, i) in v) ? v[3, k, i] : "-";
    return (a == b && b == c) ? a : a " / " b " / " c
  }
  END {
    for (j = 1; j <= n; j++) {
      k = order[j]
      printf "| %s | %s / %s / %s | %s | %s | %s | %s | %s | %s | %s |\n", k,
        v[1, k, 2], ((2, k, 2) in v) ? v[2, k, 2] : "-", ((3, k, 2) in v) ? v[3, k, 2] : "-",
        tri(k, 3), tri(k, 4), tri(k, 6), tri(k, 5), tri(k, 9), tri(k, 10), tri(k, 11)
    }
  }' "$tmp/c" "$tmp/h" "$tmp/r"
