#!/usr/bin/env bash
# gfx942_compare.sh: the side-by-side static comparison of MoonMath's MI300X attention kernel
# and attngen's default gfx942 variants, from the code objects (`attngen report --analyze`).
#
#   bench/gfx942_compare.sh MOONMATH_CHECKOUT [--shim DIR] [--out DIR] [--attngen BIN]
#                           [--kernel-dir DIR] [--aiter DIR]
#
# MOONMATH_CHECKOUT: a checkout of github.com/moonmath-ai/amd-kernels (nothing of it is
# copied into this repository). Its csrc/attention_{rtne,rtna,rtz}.hip are compiled device-only
# with clang-19 at MoonMath's own flags through the header shim of
# ../shared/gfx942-compare/README.md (--shim, default ../shared/gfx942-compare/shim next to
# the repository, then $ATTNGEN_GFX942_SHIM) into --out (default /tmp/attngen-gfx942-compare).
# attngen's code objects come from --kernel-dir (default build/kernels/gfx942) and are
# analyzed by --attngen (default build/attngen): build first (cmake --build build).
# Prints, per kernel (MoonMath's dense forward kernel per layout and rounding mode, attngen's
# default kv_split=off variants), the per-unit counts of the steady-state path (16 query rows
# x 64 keys, one wave, averaged over the waves of a block) as a markdown table; the raw TSV
# goes to OUT/compare.tsv. --aiter DIR adds AITER's prebuilt fmha v3 forward kernels
# DIR/fwd_hd128_bf16_{rtne,rtna,rtz}.co (DIR: hsa/gfx942/fmha_v3_fwd/MI300 of a ROCm/aiter
# checkout; hand-written assembly, one kernel for both layouts).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
mm=""
shim="${ATTNGEN_GFX942_SHIM:-}"
out=/tmp/attngen-gfx942-compare
attngen="$here/build/attngen"
kdir="$here/build/kernels/gfx942"
aiter=""
usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; }
while [ $# -gt 0 ]; do
  case "$1" in
    --shim) shim="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --attngen) attngen="$2"; shift 2 ;;
    --kernel-dir) kdir="$2"; shift 2 ;;
    --aiter) aiter="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "gfx942_compare.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
    *) if [ -n "$mm" ]; then echo "gfx942_compare.sh: one MoonMath checkout, got '$1' too" >&2; exit 2; fi
       mm="$1"; shift ;;
  esac
done
if [ -z "$mm" ]; then echo "gfx942_compare.sh: missing MOONMATH_CHECKOUT" >&2; usage >&2; exit 2; fi
for f in attention_rtne.hip attention_rtna.hip attention_rtz.hip attention_kernel.hip; do
  [ -f "$mm/csrc/$f" ] || { echo "gfx942_compare.sh: '$mm/csrc/$f' not found (not a MoonMath amd-kernels checkout?)" >&2; exit 1; }
done
if [ -z "$shim" ]; then
  for c in "$here/../shared/gfx942-compare/shim" /work/shared/gfx942-compare/shim; do
    [ -d "$c/hip" ] && { shim="$c"; break; }
  done
fi
[ -n "$shim" ] && [ -d "$shim/hip" ] || { echo "gfx942_compare.sh: header shim not found: pass --shim DIR (../shared/gfx942-compare/shim)" >&2; exit 1; }
[ -x "$attngen" ] || { echo "gfx942_compare.sh: '$attngen' not built (cmake --build build)" >&2; exit 1; }
[ -d "$kdir" ] || { echo "gfx942_compare.sh: no code objects in '$kdir' (cmake --build build)" >&2; exit 1; }
command -v clang-19 >/dev/null || { echo "gfx942_compare.sh: clang-19 not found" >&2; exit 1; }
if [ -n "$aiter" ]; then
  for m in rtne rtna rtz; do
    [ -f "$aiter/fwd_hd128_bf16_$m.co" ] || { echo "gfx942_compare.sh: '$aiter/fwd_hd128_bf16_$m.co' not found (--aiter: hsa/gfx942/fmha_v3_fwd/MI300 of ROCm/aiter)" >&2; exit 1; }
  done
fi
mkdir -p "$out"

# MoonMath's flags, as in ../shared/gfx942-compare/README.md
mmflags=(-x hip --offload-arch=gfx942 -nogpulib -nogpuinc -include __clang_hip_runtime_wrapper.h
         -I"$shim" --cuda-device-only --no-gpu-bundle-output -std=c++17 -O3 -ffast-math
         -fno-math-errno -mllvm -amdgpu-early-inline-all=true -c)
for m in rtne rtna rtz; do
  (cd "$mm/csrc" && clang-19 "${mmflags[@]}" "attention_$m.hip" -o "$out/moonmath_$m.co")
done

tsv="$out/compare.tsv"
: > "$tsv"
header_done=0
analyze() { # label file kernel-glob
  local rows
  rows=$("$attngen" report --analyze --tsv --mca --kernel "$3" "$2")
  if [ $header_done = 0 ]; then printf 'label\t%s\n' "$(printf '%s\n' "$rows" | head -1)" >> "$tsv"; header_done=1; fi
  printf '%s\n' "$rows" | tail -n +2 | sed "s|^|$1\t|" >> "$tsv"
}
# attention_forward<kBSHD, isLite=false, Split=false>: the dense forward kernel per layout
for m in rtne rtna rtz; do
  analyze "MoonMath $m bshd" "$out/moonmath_$m.co" '*attention_forwardILb1ELb0ELb0E*'
  analyze "MoonMath $m bhsd" "$out/moonmath_$m.co" '*attention_forwardILb0ELb0ELb0E*'
done
if [ -n "$aiter" ]; then
  for m in rtne rtna rtz; do
    analyze "AITER v3 $m (asm)" "$aiter/fwd_hd128_bf16_$m.co" '*fmha_fwd_hd128_bf16*'
  done
fi
for co in "$kdir"/attn_fwd_*_nosplit_*gfx942.co; do
  n=$(basename "$co" .co)
  lbl=$(printf '%s' "$n" | sed -E 's/^attn_fwd_d128_([a-z]+)_([a-z]+)_q([0-9]+)_kv([0-9]+)_.*/attngen \2 \1 q\3\/kv\4/')
  analyze "$lbl" "$co" "$n"
done

llvmv=$(clang-19 --version | head -1)
mmrev=$(git -C "$mm" rev-parse --short HEAD 2>/dev/null || echo "unknown (not a git checkout)")
agrev=$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)
echo "gfx942 static comparison, $(date -u +%Y-%m-%d), $llvmv"
echo "MoonMath amd-kernels $mmrev: clang-19 ${mmflags[*]//$shim/SHIM} csrc/attention_{rtne,rtna,rtz}.hip"
echo "attngen $agrev: $kdir (the project's flags, cmake/kernels.cmake)"
if [ -n "$aiter" ]; then
  arev=$(git -C "$aiter" rev-parse --short HEAD 2>/dev/null || echo "unknown (not a git checkout)")
  echo "AITER $arev: $aiter/fwd_hd128_bf16_{rtne,rtna,rtz}.co (prebuilt; MFMA column: its v_mfma_f32_32x32x8_bf16 count)"
fi
echo "Per unit of 16 query rows x 64 keys for one wave, steady-state path of the main loop, mean over the waves of a block"
echo "(\`attngen report --analyze --mca\`); cycles per wave64 instruction: MFMA 16x16x16 bf16 16, VALU 4, v_exp and other"
echo "transcendentals 16 (quarter rate; the trans-4 column: full rate). VALU/MFMA <= 1: MFMA-bound under the two-group ping-pong."
echo
awk -F'\t' '
NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; 
  print "| kernel | MFMA | VGPR / scratch / spills | waves/SIMD | non-MFMA VALU | v_exp | v_perm | bf16 rounding (+NaN cndmask) | cmp/cndmask | s_nop states | s_barrier | s_waitcnt | LDS | buffer | VALU/MFMA cycles (trans 16) | bound | VALU/MFMA (trans 4) | llvm-mca cycles |";
  print "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"; next }
{ full = ($c["valu_cycles"] - 12 * $c["exp_trans"]) / $c["mfma_cycles"]
  printf "| %s | %.0f | %d / %d / %d | %d | %.1f | %.1f | %.1f | %.1f (+%.1f) | %.1f | %.1f | %.2f | %.1f | %.1f | %.1f | %.2f | %s | %.2f | %.0f |\n",
    $c["label"], $c["mfma"], $c["vgpr"], $c["scratch"], $c["spills"], $c["waves_per_simd"], $c["valu"],
    $c["v_exp"], $c["v_perm"], $c["round_ops"], $c["round_cndmask"], $c["cmp_cndmask"], $c["s_nop_states"],
    $c["s_barrier"], $c["s_waitcnt"], $c["lds_ops"], $c["vmem"], $c["headroom"], $c["bound"], full, $c["mca_cycles"] }
' "$tsv"
