#!/usr/bin/env bash
# gpu_session.sh: everything one device call runs on the GPU machine, from the repo root,
# with the artifacts of bench/gpu_pack.sh in .gpu/. Steps (pick with arguments):
#   compile JIT-compile the default sm90 set into the cache, 16 at a time (a pack built
#           without nvcc, ATTNGEN_NVCC=OFF, has no AOT cubins: run this before tests)
#   tests   the GPU test suite (every default sm90 variant vs the CPU reference)
#   jit     first-call JIT time vs cached load of a non-default variant, + check of it
#   check   attngen check through cuda for an AOT variant (large scores, NaN/Inf)
#   bench   bench/bench.py: attngen vs SDPA backends on docs/SHAPES.md + GEMM ceiling
#   tune    attngen tune on 3 shapes, then a second process runs them with the database
#   python  python/tests/gpu/gpu_check.py (ATTNGEN_PYCHECKS: its --only list; default all but
#           cpu_suite)
#   skip    tile skipping: bench/skip_speed.py (dense vs skipping calls at forced skipped
#           fractions) and bench/skip_study.py on the kernels (synthetic denoising, Wan 1.3B
#           480p grid, 12 heads: skipped fraction, error vs dense and time per threshold)
#   diffusers  python/tests/gpu/real_diffusers.py on the real diffusers source: a tarball of a
#           diffusers checkout's src/diffusers at $ATTNGEN_DIFFUSERS_TGZ (default
#           .gpu-ext/diffusers-src.tar.gz, carried), unpacked into /tmp
#   sglang  python/tests/gpu/sglang_real.sh: attngen's SGLang backend inside the real SGLang
#           source, a tarball of its python/sglang/**/*.py at $ATTNGEN_SGLANG_TGZ (default
#           .dev/sglang-src.tgz, carried), unpacked into /tmp, with .gpu's library
# Logs go to $OUT (the device tool's output folder) or /tmp/attngen-out.
set -u
cd "$(dirname "$0")/.."
G="$PWD/.gpu"
OUT="${OUT:-/tmp/attngen-out}"
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$G:${LD_LIBRARY_PATH:-}"
export ATTNGEN_CACHE_DIR=/tmp/attngen-cache
export PYTHONUNBUFFERED=1
A="$G/attngen"
steps="${*:-tests jit check bench tune}"
status=0
# (each step's output goes through tee: its exit status is read from PIPESTATUS)
run() { echo "+ $*"; "$@" || { local rc=$?; echo "!! exit $rc from: $*"; return $rc; }; }
piped() { [ "${PIPESTATUS[0]}" = 0 ] || status=1; }

echo "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
run "$A" info
JITV=attn_fwd_d128_bshd_rtne_q1_kv128_w8_nosplit_mma_sm90
for step in $steps; do
  echo "== step $step"
  case $step in
    compile) run "$A" compile --target sm90 -j 16 2>&1 | tail -3 | tee "$OUT/compile.log"; piped ;;
    tests) run "$G/test_gpu_sm90" 2>&1 | tee "$OUT/gpu_tests.log"; piped ;;
    skip)
      run env PYTHONPATH="$PWD/python" python3 bench/skip_speed.py --lib "$G/libattngen.so" \
        2>&1 | tee "$OUT/skip_speed.log"; piped
      run env ATTNGEN_LIB="$G/libattngen.so" PYTHONPATH="$PWD/python" python3 \
        bench/skip_study.py --device cuda --grid 21,30,52 --heads 12 --time \
        --md "$OUT/skip_study.md" 2>&1 | tee "$OUT/skip_study.log"; piped ;;
    jit)
      rm -rf "$ATTNGEN_CACHE_DIR"
      for i in 1 2; do
        /usr/bin/time -f "process wall %e s (run $i)" env ATTNGEN_LOG=2 "$A" run --backend cuda \
          --shape 2,16,4096,4096 --variant $JITV --iters 5 2>&1 | tee -a "$OUT/jit.log"
      done
      run "$A" check --backend cuda --variant $JITV --shape 2,3,1000,777 --large-scores 2>&1 | tee -a "$OUT/jit.log"; piped
      run "$A" cache ls | tee -a "$OUT/jit.log"; piped ;;
    check)
      for r in rtne rtna rtz; do for l in bshd bhsd; do
        run "$A" check --backend cuda --shape 2,3,257,1000 --layout $l --round $r --large-scores
        run "$A" check --backend cuda --shape 1,2,129,4099 --layout $l --round $r --special
      done; done 2>&1 | tee "$OUT/check.log"; piped ;;
    bench)
      run python3 bench/bench.py --lib "$G/libattngen.so" --shapes all --layout both \
        --md "$OUT/bench.md" 2>&1 | tee "$OUT/bench.log"; piped ;;
    tune)
      db="$OUT/tuning.db"
      run "$A" tune --backend cuda --shape 2,24,8192,8192 --shape 1,12,32760,512 \
        --shape 16,16,1024,1024 --iters 20 --timeout 5 -o "$db" 2>&1 | tee "$OUT/tune.log"; piped
      for s in 2,24,8192,8192 1,12,32760,512 16,16,1024,1024; do
        ATTNGEN_TUNING_FILE="$db" run "$A" run --backend cuda --shape $s --iters 20
      done 2>&1 | tee -a "$OUT/tune.log"; piped ;;
    python)
      if [ -n "${ATTNGEN_PYCHECKS:-}" ]; then pick=(--only "$ATTNGEN_PYCHECKS");
      else pick=(--skip cpu_suite); fi
      run env ATTNGEN_LIB="$G/libattngen.so" PYTHONPATH="$PWD/python" python3 \
        python/tests/gpu/gpu_check.py --out "$OUT" "${pick[@]}" 2>&1 | tee "$OUT/gpu_check.log"
      piped ;;
    diffusers)
      tgz="${ATTNGEN_DIFFUSERS_TGZ:-$PWD/.gpu-ext/diffusers-src.tar.gz}"
      rm -rf /tmp/diffusers-src && mkdir -p /tmp/diffusers-src
      tar -xzf "$tgz" -C /tmp/diffusers-src
      run env ATTNGEN_LIB="$G/libattngen.so" PYTHONPATH="$PWD/python" python3 \
        python/tests/gpu/real_diffusers.py --diffusers-src /tmp/diffusers-src/src \
        --out "$OUT" 2>&1 | tee "$OUT/real_diffusers.log"; piped ;;
    sglang)
      run bash python/tests/gpu/sglang_real.sh "${ATTNGEN_SGLANG_TGZ:-$PWD/.dev/sglang-src.tgz}" \
        "$G" || status=1 ;;
    *) echo "unknown step $step"; status=2 ;;
  esac
done
echo "== done, status $status"
exit $status
