#!/usr/bin/env bash
# install_check.sh LIB DEST: the README's offline install (pip, Debian's setuptools, no
# index, no build isolation) into DEST with LIB bundled, then the installed package alone
# (no $ATTNGEN_LIB, no source tree on the path) loads its bundled library, reports
# attngen.info() and passes the op tests.
set -euo pipefail
lib=$1
dest=$2
here="$(cd "$(dirname "$0")" && pwd)"
py=${PYTHON:-/usr/bin/python3}
rm -rf "$dest"
# pip's own exit status decides (it was hidden behind `| grep ... || true`); its output is
# shown without the root-user warning
status=0
out=$(ATTNGEN_LIB="$lib" "$py" -m pip install -q --no-build-isolation --no-index \
  --no-cache-dir --target "$dest" "$here/.." 2>&1) || status=$?
printf '%s\n' "$out" | grep -v "Running pip as the 'root' user" || true
[ "$status" = 0 ] || { echo "pip install failed (exit status $status)"; exit 1; }
test -f "$dest/attngen/_lib/libattngen.so" || { echo "libattngen.so was not bundled"; exit 1; }
cd "$dest"
env -u ATTNGEN_LIB PYTHONPATH="$dest" "$py" -c "import attngen, json; d = attngen.info(); print(json.dumps(d)); assert d['library'].startswith('$dest')"
env -u ATTNGEN_LIB PYTHONPATH="$dest" ATTNGEN_TEST_INSTALLED=1 "$py" -m pytest -q -p no:cacheprovider "$here/test_op.py"
