#!/usr/bin/env bash
# sglang_real.sh [TARBALL [LIBDIR]]: the SGLang real-source tests on a GPU machine, from the
# repo root (README "SGLang (multimodal_gen)"). Unpacks TARBALL (python/sglang/**/*.py of
# SGLang commit 04eb7280, default .dev/sglang-src.tgz, carried: it is git-ignored) into
# /tmp/sglang-src, points ATTNGEN_SGLANG_SRC at it and runs test_sglang_env.py (the loader's
# stub rules) and test_sglang_real.py (attngen's SGLang backend inside the real source: cpu,
# and cuda where there is a GPU; the ring test where there are 2) with the source package
# python/ and libattngen.so from LIBDIR: $ATTNGEN_LIB's folder, else the first of .gpu
# (bench/gpu_pack.sh), .dev/sm90 (bench/sm90_dev_pack.sh), build holding libattngen.so.
# Extra pytest arguments: $PYTEST_ARGS (e.g. -k skip_hook); interpreter: $PYTHON (python3).
# Log: $OUT/sglang_real.log.
set -u
cd "$(dirname "$0")/../../.."
tgz="${1:-$PWD/.dev/sglang-src.tgz}"
lib="${2:-}"
if [ -z "$lib" ] && [ -n "${ATTNGEN_LIB:-}" ]; then lib="$(dirname "$ATTNGEN_LIB")"; fi
if [ -z "$lib" ]; then
  for d in .gpu .dev/sm90 build; do
    [ -e "$d/libattngen.so" ] && { lib="$PWD/$d"; break; }
  done
fi
[ -f "$tgz" ] || { echo "no tarball $tgz"; exit 2; }
[ -n "$lib" ] && [ -e "$lib/libattngen.so" ] || { echo "no libattngen.so (LIBDIR '$lib')"; exit 2; }
OUT="${OUT:-/tmp/attngen-out}"
mkdir -p "$OUT"
src=/tmp/sglang-src
rm -rf "$src" && mkdir -p "$src" && tar -xzf "$tgz" -C "$src" || exit 2
[ -d "$src/python/sglang/multimodal_gen" ] && src="$src/python"
cat "$src/../SGLANG_COMMIT" 2>/dev/null || true
export ATTNGEN_SGLANG_SRC="$src" ATTNGEN_LIB="$lib/libattngen.so"
export LD_LIBRARY_PATH="$lib:${LD_LIBRARY_PATH:-}" PYTHONPATH="$PWD/python"
export ATTNGEN_CACHE_DIR="${ATTNGEN_CACHE_DIR:-/tmp/attngen-cache}" PYTHONUNBUFFERED=1
PY="${PYTHON:-python3}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
"$PY" -c "import torch, attngen; print('torch', torch.__version__, 'cuda', \
torch.cuda.is_available(), torch.cuda.device_count()); print(attngen.info())"
# -s: the fixture's list of stubs and why, and the tests' error numbers
# shellcheck disable=SC2086
"$PY" -m pytest -q -rs -s -p no:cacheprovider ${PYTEST_ARGS:-} \
  python/tests/test_sglang_env.py python/tests/test_sglang_real.py 2>&1 | tee "$OUT/sglang_real.log"
exit "${PIPESTATUS[0]}"
