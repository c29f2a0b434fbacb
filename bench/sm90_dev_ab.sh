#!/usr/bin/env bash
# sm90_dev_ab.sh: one device call comparing this build with another (the folder's base/, see
# bench/sm90_dev_pack.sh BASE=...): the GPU suite of this build, then for each rounding mode
# (MODES, default rtna rtne rtz) bench.py over the BSHD shapes for this build ("new") and for
# base, each with cuDNN in the same step, so both ratios are same-step. Results: $OUT/{new,base}_MODE.md;
# compare with bench/ab_compare.py $OUT.
D="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${OUT:-/tmp/sm90-ab}"; mkdir -p "$OUT"
export LD_LIBRARY_PATH="$D:${LD_LIBRARY_PATH:-}" ATTNGEN_CACHE_DIR=/tmp/attngen-cache PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
t0=$(date +%s)
timeout 220 "$D/test_gpu_sm90" > "$OUT/gpu_tests.log" 2>&1; rc=$?
echo "suite rc $rc ($(( $(date +%s) - t0 )) s): $(grep -cE '^PASS' "$OUT/gpu_tests.log") PASS, $(grep -cE '^FAIL' "$OUT/gpu_tests.log") FAIL"
if [ $rc -ne 0 ]; then grep -E 'FAIL' "$OUT/gpu_tests.log" | head; echo "!! GPU suite failed: no timing"; exit 1; fi
for r in ${MODES:-rtna rtne rtz}; do
  for lib in new base; do
    L="$D/libattngen.so"; [ $lib = base ] && L="$D/base/libattngen.so"
    [ -f "$L" ] || continue
    timeout 90 python3 "$D/bench/bench.py" --lib "$L" --shapes all --layout bshd --peers cudnn \
      --budget "${BUDGET:-0.3}" --round $r --md "$OUT/${lib}_$r.md" > "$OUT/${lib}_$r.log" 2>&1
    echo "$r $lib rc $? ($(( $(date +%s) - t0 )) s) $(grep -m1 ceiling "$OUT/${lib}_$r.log")"
  done
done
