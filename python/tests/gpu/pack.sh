#!/usr/bin/env bash
# pack.sh DEST: packs what gpu_check.py needs on a GPU machine into DEST (run here, after a
# build): the package installed offline with libattngen.so + liblua5.4 bundled (DEST/site),
# the C overhead baseline (DEST/lib/c_overhead), the check scripts (DEST/gpu) and
# DEST/run.sh. On the GPU machine: bash DEST/run.sh (writes gpu_check.log/json to $OUT).
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
dest=${1:?usage: pack.sh DEST}
rm -rf "$dest"
mkdir -p "$dest/lib" "$dest/gpu"
ATTNGEN_LIB="$root/build/libattngen.so" /usr/bin/python3 -m pip install -q --no-build-isolation \
  --no-index --no-cache-dir --target "$dest/site" "$root/python" 2>&1 | grep -v "as the 'root' user" || true
cp -L "$root/build/libattngen.so" "$dest/lib/libattngen.so.0"
cp "$dest/site/attngen/_lib/"liblua5.4.so* "$dest/lib/" 2>/dev/null || true
gcc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L "$root/python/tests/gpu/c_overhead.c" \
  -I "$root/runtime/include" -L "$root/build" -lattngen -o "$dest/lib/c_overhead"
cp "$root/python/tests/gpu/"*.py "$dest/gpu/"
mkdir -p "$dest/python/tests" "$dest/runtime/include"   # the CPU suite, run there on torch 2.x
cp "$root/python/tests/"*.py "$dest/python/tests/"
cp "$root/runtime/include/attngen.h" "$dest/runtime/include/"
cat > "$dest/run.sh" <<'RUN'
#!/usr/bin/env bash
cd "$(dirname "$0")"
export PYTHONPATH=$PWD/site PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$PWD/lib:${LD_LIBRARY_PATH:-}
export ATTNGEN_CACHE_DIR=/tmp/attngen-cache
unset ATTNGEN_LIB
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "import torch; print('torch', torch.__version__, torch.cuda.get_device_name(0))"
python3 -c "import attngen; print(attngen.info())"
python3 gpu/gpu_check.py --c-overhead "$PWD/lib/c_overhead" --cpu-tests "$PWD/python/tests" --out "${OUT:-/tmp}" "$@" 2>&1 | tee "${OUT:-/tmp}/gpu_check.log"
RUN
chmod +x "$dest/run.sh"
du -sh "$dest"
