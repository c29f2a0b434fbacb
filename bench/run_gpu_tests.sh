#!/usr/bin/env bash
# run_gpu_tests.sh: runs the build's GPU tests (ctest label "gpu") on the GPU machine.
#   bench/run_gpu_tests.sh [BUILD_DIR] [extra ctest args...]
# BUILD_DIR defaults to $ATTNGEN_BUILD_DIR, else ./build. When it holds no build yet, it is
# configured and built first (RelWithDebInfo). Output goes to the terminal and, when $OUT is
# set, also to $OUT/gpu_tests.log (plus each test's own log under $OUT/gpu_tests/).
# Exit status: ctest's, and 1 when a GPU test did not run (skipped, "Not Run": on the GPU
# machine a skip means the GPU was not usable, e.g. libcuda failed to load; it was counted
# as a pass).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-${ATTNGEN_BUILD_DIR:-$root/build}}"
[[ $# -gt 0 ]] && shift

log=/dev/null
if [[ -n "${OUT:-}" ]]; then
  mkdir -p "$OUT/gpu_tests"
  log="$OUT/gpu_tests.log"
fi

{
  echo "== attngen GPU tests: $(date -u +%Y-%m-%dT%H:%M:%SZ), build $build"
  command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,driver_version \
    --format=csv,noheader || echo "nvidia-smi: not available"
  if [[ ! -f "$build/CTestTestfile.cmake" ]]; then
    echo "== configuring and building $build"
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo
    cmake --build "$build" -j "$(nproc)"
  fi
} 2>&1 | tee "$log"

status=0
(
  cd "$build"
  CMOCKA_MESSAGE_OUTPUT=STDOUT ctest -L gpu --output-on-failure --verbose "$@"
) 2>&1 | tee -a "$log" || status=$?  # pipefail: ctest's status

if [[ "$status" == 0 && -f "$build/Testing/Temporary/LastTest.log" ]] &&
   grep -q "^SKIPPED: " "$build/Testing/Temporary/LastTest.log"; then
  echo "== a GPU test was skipped on the GPU machine:" | tee -a "$log"
  grep -h "^SKIPPED: " "$build/Testing/Temporary/LastTest.log" | sort -u | tee -a "$log"
  status=1
fi
if [[ -n "${OUT:-}" && -d "$build/Testing/Temporary" ]]; then
  cp "$build"/Testing/Temporary/LastTest*.log "$OUT/gpu_tests/" 2>/dev/null || true
fi
echo "== exit status $status" | tee -a "$log"
exit "$status"
