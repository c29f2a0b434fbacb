#!/usr/bin/env bash
# run_wgmma_selftest.sh: compiles the sm90 wgmma attention variants and bench/wgmma_selftest.cu
# on a machine with an H100/H200 and CUDA >= 12.3, runs the correctness cases and the timing
# (see the header of wgmma_selftest.cu). Meant to finish in well under 2 minutes.
#
# Sources of the kernels, first match wins:
#   GEN_DIR=dir        pre-generated sources: dir/sm90/NAME.cu or dir/NAME.cu
#   ATTNGEN=path       the attngen binary (runs `attngen generate --variant NAME`)
#   ./build*/attngen   a build of the repository
# WGMMA_VARIANTS="NAME ..." overrides the variant list. NO_PERF=1 skips the timing.
# Output goes to stdout and, when $OUT is set, to $OUT/wgmma_selftest.log.
# Exit status: 0 all passed; 1 a check failed; 2 setup/compile error; 3 a kernel hung.
# This is a development smoke test (hangs, HGMMA count, timing). Its inputs are not on the
# fixed-point grid and its comparator has no P-rounding-boundary tolerance, so a few
# elements per case > 1 ULP from summation order and ex2.approx are expected here (run 10 in
# bench/RESULTS.md); the numerics contract is checked by tests/test_gpu_sm90.c.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d /tmp/wgmma_selftest.XXXXXX)
LOG=/dev/null
if [ -n "${OUT:-}" ]; then mkdir -p "$OUT" && LOG="$OUT/wgmma_selftest.log"; fi
exec > >(tee "$LOG") 2>&1

P=attn_fwd_d128
DEFAULT_VARIANTS="
${P}_bshd_rtne_q1_kv128_w12_nosplit_wgmma_sm90
${P}_bshd_rtna_q1_kv128_w12_nosplit_wgmma_sm90
${P}_bshd_rtz_q1_kv128_w12_nosplit_wgmma_sm90
${P}_bhsd_rtne_q1_kv128_w12_nosplit_wgmma_sm90
${P}_bhsd_rtna_q1_kv128_w12_nosplit_wgmma_sm90
${P}_bhsd_rtz_q1_kv128_w12_nosplit_wgmma_sm90
${P}_bshd_rtne_q1_kv64_w12_nosplit_wgmma_sm90
${P}_bshd_rtne_q1_kv176_w12_nosplit_wgmma_sm90"
VARIANTS=${WGMMA_VARIANTS:-$DEFAULT_VARIANTS}

NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
echo "== wgmma selftest: $(date -u +%FT%TZ) host $(hostname)"
"$NVCC" --version | tail -1
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.max.sm \
  --format=csv,noheader

# ---- 1. sources ---------------------------------------------------------------------------
SRC="$WORK/gen"
mkdir -p "$SRC"
find_source() {  # NAME -> path of its .cu or empty
  local n=$1
  for f in "${GEN_DIR:-/nonexistent}/sm90/$n.cu" "${GEN_DIR:-/nonexistent}/$n.cu" \
    "$SRC/sm90/$n.cu"; do
    [ -f "$f" ] && { echo "$f"; return; }
  done
}
if [ -z "${GEN_DIR:-}" ]; then
  GEN=${ATTNGEN:-}
  if [ -z "$GEN" ]; then
    for f in "$ROOT"/build*/attngen /work/build*/attngen; do
      [ -x "$f" ] && { GEN=$f; break; }
    done
  fi
  if [ -z "$GEN" ]; then
    echo "setup error: no kernel sources: set GEN_DIR (pre-generated) or ATTNGEN (binary)"
    exit 2
  fi
  for n in $VARIANTS; do
    "$GEN" generate --variant "$n" -o "$SRC" -q || { echo "setup error: generate $n"; exit 2; }
  done
fi

# ---- 2. kernels: cubins with ptxas -v, in parallel ------------------------------------------
ARCH="-gencode arch=compute_90a,code=sm_90a"
pids=()
for n in $VARIANTS; do
  s=$(find_source "$n")
  [ -n "$s" ] || { echo "setup error: no source for $n"; exit 2; }
  ( "$NVCC" -cubin $ARCH -O3 -Xptxas -v -o "$WORK/$n.cubin" "$s" > "$WORK/$n.ptxas" 2>&1;
    echo $? > "$WORK/$n.rc" ) &
  pids+=($!)
done
( "$NVCC" -O2 -std=c++17 -o "$WORK/wgmma_selftest" "$ROOT/bench/wgmma_selftest.cu" -lcuda \
    > "$WORK/host.log" 2>&1; echo $? > "$WORK/host.rc" ) &
pids+=($!)
wait "${pids[@]}"
if [ "$(cat "$WORK/host.rc")" != 0 ]; then
  cat "$WORK/host.log"; echo "setup error: host driver did not compile"; exit 2
fi

ARGS=()
compile_bad=0
for n in $VARIANTS; do
  if [ "$(cat "$WORK/$n.rc")" != 0 ]; then
    cat "$WORK/$n.ptxas"; echo "COMPILE FAIL $n"; compile_bad=1; continue
  fi
  src=$(find_source "$n")
  launch=$(grep -m1 -o 'attngen-launch: threads=[0-9]* block_m=[0-9]* smem_bytes=[0-9]*' "$src")
  th=$(echo "$launch" | sed 's/.*threads=\([0-9]*\).*/\1/')
  bm=$(echo "$launch" | sed 's/.*block_m=\([0-9]*\).*/\1/')
  sm=$(echo "$launch" | sed 's/.*smem_bytes=\([0-9]*\).*/\1/')
  regs=$(grep -o 'Used [0-9]* registers' "$WORK/$n.ptxas" | head -1)
  spill=$(grep -o '[0-9]* bytes spill stores' "$WORK/$n.ptxas" | head -1)
  serial=$(grep -c 'serialized\|C75[0-9][0-9]' "$WORK/$n.ptxas")
  hgmma="n/a"
  if command -v cuobjdump >/dev/null; then
    hgmma=$(cuobjdump -sass "$WORK/$n.cubin" | grep -c HGMMA)
  fi
  echo "kernel $n: $regs, $spill, ptxas wgmma advisories: $serial, HGMMA in SASS: $hgmma"
  [ "$serial" = 0 ] || { grep 'serialized\|C75' "$WORK/$n.ptxas"; compile_bad=1; }
  ARGS+=("$WORK/$n.cubin:$th:$bm:$sm")
done

# ---- 3. run ----------------------------------------------------------------------------------
PERF_FLAG=()
[ "${NO_PERF:-0}" = 1 ] && PERF_FLAG=(--no-perf)
rc=0
if [ ${#ARGS[@]} -gt 0 ]; then
  timeout 110 "$WORK/wgmma_selftest" "${PERF_FLAG[@]}" "${ARGS[@]}"
  rc=$?
  [ $rc = 124 ] && { echo "TIMEOUT: the selftest ran past 110 s"; rc=3; }
  case $rc in 0|1|2|3) ;; *) echo "the selftest exited with status $rc"; rc=2 ;; esac
fi
[ $compile_bad = 1 ] && [ $rc = 0 ] && rc=1
echo "== wgmma selftest exit $rc"
rm -rf "$WORK"
exit $rc
