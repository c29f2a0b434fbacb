#!/usr/bin/env bash
# sm90_dev_run.sh: one device call of the sm90 perf work (issue 12), run from a folder that
# holds attngen, libattngen.so*, liblua5.4.so.0, libcmocka.so.0, test_gpu_sm90 and bench/
# (bench.py, attngen_ctypes.py), optionally base/ (another build's libattngen.so) and cubins/
# (for the sass step), optionally fa3/ (a FlashAttention-3 library built by the user outside
# the repository, see bench/bench.py: when present, fa3 joins the peers of bench, modes and ab).
# Steps (arguments, in order): compile tests check bench modes base ab tune ncu ncudetail
# ncusrc ncupair sass skipspeed.
# Every step has its own time limit; a failing GPU suite stops the timing steps.
set -u
D="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${OUT:-/tmp/sm90-out}"
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$D:${LD_LIBRARY_PATH:-}"
export ATTNGEN_CACHE_DIR=/tmp/attngen-cache
export PYTHONUNBUFFERED=1
A="$D/attngen"
steps="${*:-tests check bench modes tune}"
FA3P=""
for f in "$D"/fa3/*.so; do
  [ -f "$f" ] && export ATTNGEN_FA3_LIB="$f" && FA3P=",fa3"
done
echo "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader)"
for step in $steps; do
  echo "== step $step ($(date -u +%T))"
  case $step in
    compile)
      # A build without nvcc (ATTNGEN_NVCC=OFF) has no AOT cubins: JIT the default sm90 set
      # (COMPILE_FILTER: a name glob) into the cache, 16 at a time, before the suite.
      timeout 400 "$A" compile --target sm90 --filter "${COMPILE_FILTER:-*}" -j 16 2>&1 | tail -3 ;;
    tests)
      timeout 420 "$D/test_gpu_sm90" > "$OUT/gpu_tests.log" 2>&1
      rc=$?
      grep -E "device:|FAIL|PASSED" "$OUT/gpu_tests.log" | tail -25
      echo "tests rc $rc"
      if [ $rc -ne 0 ]; then echo "!! GPU suite failed: no timing"; exit 1; fi ;;
    check)
      for r in rtne rtna rtz; do for l in bshd bhsd; do
        timeout 60 "$A" check --backend cuda --shape 2,3,257,1000 --layout $l --round $r --large-scores 2>&1 | tail -1
        timeout 60 "$A" check --backend cuda --shape 1,2,129,4099 --layout $l --round $r --special 2>&1 | tail -1
      done; done 2>&1 | tee "$OUT/check.log" ;;
    bench)
      timeout 330 python3 "$D/bench/bench.py" --lib "$D/libattngen.so" --shapes all --layout both \
        --peers "${BENCH_PEERS:-cudnn,flash}$FA3P" --budget "${BENCH_BUDGET:-1.0}" --round rtne \
        --md "$OUT/bench_rtne.md" > "$OUT/bench_rtne.log" 2>&1
      grep -E "ceiling|TFLOP/s \||total" "$OUT/bench_rtne.log" | sed 's/ TFLOP\/s | attn_fwd_d128_/ | /' ;;
    modes)
      # rtna and rtz, each with cuDNN in the same step (MODES_PEERS='' times attngen alone).
      for r in rtna rtz; do
        timeout 150 python3 "$D/bench/bench.py" --lib "$D/libattngen.so" --shapes all --layout both \
          --peers "${MODES_PEERS-cudnn}$FA3P" --budget "${MODES_BUDGET:-0.5}" --layout "${MODES_LAYOUT:-both}" \
          --round $r --md "$OUT/bench_$r.md" > "$OUT/bench_$r.log" 2>&1
        grep -E "ceiling|TFLOP/s \||total" "$OUT/bench_$r.log" | sed 's/ TFLOP\/s | attn_fwd_d128_/ | /'
      done ;;
    base)
      # The kernels before this work (base/: another build's libattngen.so, timed with the sent tree's bench/bench.py),
      # attngen alone, in the same call as the other steps.
      [ -f "$D/base/libattngen.so" ] && timeout 100 python3 "$D/../../bench/bench.py" --lib "$D/base/libattngen.so" \
        --shapes all --layout both --peers '' --budget 1.0 --round rtne --md "$OUT/bench_base.md" \
        > "$OUT/bench_base.log" 2>&1
      grep -E "ceiling|TFLOP/s \||total" "$OUT/bench_base.log" | sed 's/ TFLOP\/s | attn_fwd_d128_/ | /' ;;
    ab)
      # This build ("new", the attngen column) against base/ (and any other build folder named
      # in AB_LIBS, e.g. AB_LIBS="base alt" with alt/libattngen.so), all in one bench.py process
      # per mode (--alt-lib columns) with cuDNN (and FlashAttention-3 when fa3/ holds its
      # library) in the same step, for each mode in AB_MODES (default rtna rtne rtz), the BSHD
      # shapes (AB_SHAPES, default all): $OUT/ab_MODE.md, compared by bench/ab_compare.py. Run
      # after `tests` (which stops the call when the suite fails).
      for r in ${AB_MODES:-rtna rtne rtz}; do
        alts=""
        for lib in ${AB_LIBS:-base}; do
          [ -f "$D/$lib/libattngen.so" ] && alts="$alts --alt-lib $lib=$D/$lib/libattngen.so"
        done
        timeout "${AB_TIMEOUT:-150}" python3 "$D/bench/bench.py" --lib "$D/libattngen.so" $alts \
          --shapes "${AB_SHAPES:-all}" --layout bshd --peers "cudnn$FA3P" --budget "${AB_BUDGET:-0.3}" \
          --round $r --md "$OUT/ab_$r.md" > "$OUT/ab_$r.log" 2>&1
        echo "$r rc $? $(grep -m1 ceiling "$OUT/ab_$r.log")"
      done
      python3 "$D/bench/ab_compare.py" "$OUT" -v ;;
    tune)
      V=""
      # TUNE_LOAD: the load axis token of the candidates ("tma_", the default set's; "" = thread)
      for kv in 64 96 128 144 176; do V="$V,attn_fwd_d128_bshd_rtne_q1_kv${kv}_w12_nosplit_${TUNE_LOAD-tma_}wgmma_sm90"; done
      timeout 150 "$A" tune --backend cuda --shape 1,12,32760,512 --shape 1,40,75600,512 \
        --shape 2,40,32760,257 --shape 32,16,512,512 --shape 16,16,1024,1024 --shape 8,16,2048,2048 \
        --shape 2,24,8192,8192 --shape 4,16,4096,100 --shape 8,16,1024,700 \
        --variants "${V#,}" --warmup 3 --iters 20 --timeout 2 --no-write 2>&1 | tee "$OUT/tune.log" | tail -40 ;;
    ncu)
      # Nsight Compute (clocks left alone) on one long and one short shape.
      for sh in 2,24,8192,8192 32,16,512,512; do
        which ncu > /dev/null && timeout 100 ncu --clock-control none --section SpeedOfLight \
          --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis \
          -k regex:attn_fwd -c 1 "$A" run --backend cuda --shape $sh --iters 1 > "$OUT/ncu_${sh//,/x}.log" 2>&1
        grep -E "Duration|Throughput|Stall|Issued|Eligible|No Eligible|Active Warps|L2 Hit|Executed Ipc" "$OUT/ncu_${sh//,/x}.log" | head -40
      done ;;
    ncudetail)
      # The short shape in detail: stall reasons, DRAM bytes, pipes; caches flushed and not.
      for cc in all none; do
        which ncu > /dev/null && timeout 70 ncu --clock-control none --cache-control $cc \
          --section WarpStateStats --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
          --section ComputeWorkloadAnalysis --print-details all -k regex:attn_fwd -c 1 \
          "$A" run --backend cuda --shape 32,16,512,512 --iters 1 > "$OUT/ncu2_$cc.log" 2>&1
        grep -E "Stall|L2 Hit|DRAM|dram__bytes|Tensor \(All\)|Issue Slots" "$OUT/ncu2_$cc.log" | head -30
      done ;;
    ncusrc)
      # Where the warps wait, per SASS instruction (PC-sampling stall reasons of the source
      # page): the top instructions by samples, for one short and one long shape.
      for sh in ${NCU_SHAPES:-32,16,512,512 2,24,8192,8192}; do
        f="$OUT/src_${sh//,/x}"
        which ncu > /dev/null && timeout 120 ncu --clock-control none --section WarpStateStats \
          --section SourceCounters --import-source no -k regex:attn_fwd -c 1 -f -o "$f" \
          "$A" run --backend cuda --shape $sh --iters 1 > "$f.log" 2>&1
        timeout 60 ncu -i "$f.ncu-rep" --page source --csv --print-source sass > "$f.csv" 2>"$f.err"
        echo "-- $sh: $(wc -l < "$f.csv") rows; $(head -c 300 "$f.err")"
        python3 "$D/bench/ncu_src_top.py" "$f.csv" 2>&1 | head -45
      done ;;
    ncupair)
      # attngen and FlashAttention-3 side by side on one shape (NCU_SHAPE, default
      # 2,24,8192,8192, BSHD rtne), each kernel's third launch inside bench.py (same inputs and
      # timing harness): speed of light, pipes, scheduler, warp states, source counters; then
      # executed instructions per score by opcode class (bench/ncu_opcodes.py) and the top
      # stall sites (bench/ncu_src_top.py).
      sh="${NCU_SHAPE:-2,24,8192,8192}"
      scores=$(echo "$sh" | awk -F, '{print $1*$2*$3*$4}')
      for k in attngen fa3; do
        [ $k = fa3 ] && [ -z "$FA3P" ] && continue
        rx=attn_fwd; pe=""; [ $k = fa3 ] && rx=FlashAttnFwdSm90 && pe=fa3
        f="$OUT/pair_${k}_${sh//,/x}"
        which ncu > /dev/null && timeout 200 ncu --clock-control none --section SpeedOfLight \
          --section ComputeWorkloadAnalysis --section SchedulerStats --section WarpStateStats \
          --section InstructionStats --section MemoryWorkloadAnalysis \
          --section MemoryWorkloadAnalysis_Tables --section SourceCounters \
          --section LaunchStats --section Occupancy --import-source no \
          --kernel-name-base demangled -k regex:$rx -s 2 -c 1 -f -o "$f" python3 "$D/bench/bench.py" --lib "$D/libattngen.so" \
          --shape "$sh" --layout bshd --peers "$pe" --budget 0.05 --gpu-sleep-us 0 > "$f.log" 2>&1
        timeout 60 ncu -i "$f.ncu-rep" --print-details all > "$f.txt" 2>&1
        timeout 60 ncu -i "$f.ncu-rep" --page source --csv --print-source sass > "$f.csv" 2>"$f.err"
        echo "-- $k $sh: $(grep -m1 -E 'attn_fwd|FlashAttnFwdSm90' "$f.txt" | head -c 200)"
        grep -E "Elapsed Cycles|Duration|Compute \(SM\) Throughput|Executed Ipc A|Issue Slots Busy|No Eligible|Issued Warp|Eligible Warps|Registers Per|Cluster Size|L2 Hit|Tensor \(All\)|Warp Cycles Per Issued|Executed Instructions  " "$f.txt" | head -24
        python3 "$D/bench/ncu_opcodes.py" "$f.csv" --scores "$scores"
        python3 "$D/bench/ncu_src_top.py" "$f.csv" 25
      done ;;
    sass)
      # Registers / spills as the driver sees them and the SASS instruction mix of the cubins
      # in cubins/ (no disassembler on the build machine).
      for c in "$D"/cubins/*.cubin; do
        n=$(basename "$c" .cubin)
        cuobjdump -sass "$c" > "$OUT/$n.sass" 2>&1
        echo "$n: $(cuobjdump -res-usage "$c" 2>&1 | grep -o 'REG:[0-9]*.*STACK:[0-9]*' | head -1)"
        sed -nE 's/^\s+\/\*[0-9a-f]+\*\/\s+(@!?U?P[0-9T]+\s+)?([A-Z][A-Z0-9_]*).*/\2/p' "$OUT/$n.sass" | \
          sort | uniq -c | sort -rn | head -16 | tr '\n' ' '; echo
      done ;;
    skipspeed)
      # Tile skipping: dense vs skipping calls at forced skipped fractions (bench/skip_speed.py)
      # on SKIP_SHAPES (default the two Wan shapes of the issue).
      for sh in ${SKIP_SHAPES:-1,12,32760,32760 1,40,75600,75600}; do
        timeout 200 python3 "$D/bench/skip_speed.py" --lib "$D/libattngen.so" --shape "$sh" \
          ${SKIP_ARGS:-} > "$OUT/skip_${sh//,/x}.log" 2>&1
        echo "skip_speed $sh rc $?"; tail -20 "$OUT/skip_${sh//,/x}.log"
      done ;;
    *) echo "unknown step $step" ;;
  esac
done
# The device tool returns at most 8 files: everything goes back in one archive.
(cd "$OUT" && tar czf ../sm90-out.tgz . && rm -rf ./* && mv ../sm90-out.tgz all.tgz)
echo "== done $(date -u +%T)"
