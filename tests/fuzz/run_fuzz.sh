#!/bin/sh
# run_fuzz.sh: builds the tuning-database fuzz harness with libFuzzer + ASan/UBSan (clang-19)
# and runs it for a bounded time on a scratch copy of the seed corpus.
# Usage: tests/fuzz/run_fuzz.sh [seconds (default 60)] [build dir (default build-fuzz)]
# Exit status: 0 when no crash was found, 1 otherwise (libFuzzer leaves crash-* files in
# the build dir), 2 when the harness cannot be built, 3 when the compiler cannot link a fuzzer
# at all (no clang-19, or no libFuzzer / sanitizer runtime: apt-get install libclang-rt-19-dev).
# ctest's fuzz_tuning_db runs it for 30 s (tests/CMakeLists.txt).
set -eu
seconds=${1:-60}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${2:-${FUZZ_BUILD_DIR:-$root/build-fuzz}}
cc=${CC_FUZZ:-clang-19}
mkdir -p "$build/corpus"
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' \
  > "$build/probe.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined "$build/probe.c" -o "$build/probe" 2>"$build/probe.log"; then
  echo "run_fuzz.sh: $cc cannot link a libFuzzer program (apt-get install clang-19 libclang-rt-19-dev): $(head -c 300 "$build/probe.log")" >&2
  exit 3
fi
version=$(sed -n 's/^#define ATTNGEN_VERSION_STRING "\(.*\)"$/\1/p' "$root/runtime/include/attngen.h")
inc=""
for d in base generated generator/core templates/common runtime runtime/include runtime/numerics \
    runtime/emu runtime/src runtime/backends; do inc="$inc -I$root/$d"; done
# shellcheck disable=SC2086 # $inc: one -I per folder
if ! "$cc" -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -DATTNGEN_INTERNAL=1 -DATTNGEN_GENERATOR_VERSION="\"$version\"" $inc -I/usr/include/lua5.4 "$here/fuzz_tuning_db.c" \
    "$root/runtime/src/tuning_db.c" "$root/runtime/src/tuning_db_parse.c" \
    "$root/runtime/src/tuning_table.c" "$root/runtime/src/cache.c" "$root/runtime/src/status.c" \
    "$root/runtime/src/axes.c" "$root/runtime/src/env.c" "$root/base/hash.c" "$root/base/log.c" "$root/base/fsutil.c" \
    "$root/generated/variant_axes.c" -lm -o "$build/fuzz_tuning_db"; then
  echo "run_fuzz.sh: the harness does not build with $cc (the compiler links a libFuzzer program: the harness or its file list is wrong)" >&2
  exit 2
fi
cp "$here"/corpus/* "$build/corpus/"
cd "$build"
echo "run_fuzz.sh: fuzzing the tuning database parser for ${seconds}s in $build"
if ./fuzz_tuning_db -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=1024 \
    -dict="$here/tuning_db.dict" -print_final_stats=1 corpus; then
  echo "run_fuzz.sh: no crash in ${seconds}s ($(ls corpus | wc -l) corpus entries)"
else
  echo "run_fuzz.sh: FAILED, reproducer(s): $(ls "$build"/crash-* "$build"/leak-* "$build"/timeout-* 2>/dev/null | tr '\n' ' ')" >&2
  exit 1
fi
