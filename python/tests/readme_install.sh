#!/usr/bin/env bash
# readme_install.sh LIB WORK: runs the README's two Python install lines exactly as written
# (from the repository root, as the README says) on a PATH whose first `python3` is not
# Debian's (a stand-in that fails, like a pyenv without wheel or torch), with PIP_TARGET so
# that the install lands in WORK/site instead of the system; then imports from there.
set -euo pipefail
lib=$1
work=$2
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
rm -rf "$work"
mkdir -p "$work/bin" "$work/site"
printf '#!/bin/sh\necho "python3 from PATH (not Debian'"'"'s): invalid command '"'"'bdist_wheel'"'"'" >&2\nexit 1\n' \
  >"$work/bin/python3"
chmod +x "$work/bin/python3"
mapfile -t lines < <(sed -n '/^## Python quick start/,/^```python/p' "$root/README.md" |
                     grep -E '^    \S*python3 -(m pip install|c )' | sed 's/^    //')
[ "${#lines[@]}" = 2 ] || { echo "README: expected the install and the check line, found ${#lines[@]}"; exit 1; }
cd "$root"
for line in "${lines[@]}"; do
  echo "+ $line"
  env PATH="$work/bin:$PATH" PIP_TARGET="$work/site" PYTHONPATH="$work/site" ATTNGEN_LIB="$lib" \
    PIP_NO_CACHE_DIR=1 bash -c "$line" 2>&1 | grep -v "Running pip as the 'root' user"
  [ "${PIPESTATUS[0]}" = 0 ] || { echo "FAILED: $line"; exit 1; }
done
test -f "$work/site/attngen/_lib/libattngen.so" || { echo "libattngen.so was not bundled"; exit 1; }
