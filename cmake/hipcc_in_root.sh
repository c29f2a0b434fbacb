#!/bin/sh
# hipcc_in_root.sh ROOT SRC OUT FLAGS...: runs the trixie root's hipcc on SRC (copied into
# ROOT/tmp) and copies the code object to OUT. The root's programs need its own glibc, so
# hipcc runs inside it: chroot (as root) or, with ATTNGEN_ROCM_ENTER=unshare, in a user
# namespace (unshare -r chroot). Used by cmake/rocm.cmake.
set -eu
root=$1 src=$2 out=$3
shift 3
name=$(basename "$src")
work=$(mktemp -d "$root/tmp/attngen-hipcc.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp "$src" "$work/$name"
inner=/tmp/$(basename "$work")
enter="chroot"
if [ "${ATTNGEN_ROCM_ENTER:-chroot}" = unshare ]; then enter="unshare -r chroot"; fi
# HIP_PLATFORM=amd: hipcc need not probe the machine (lspci) for the platform.
$enter "$root" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/tmp HIP_PLATFORM=amd \
  /usr/bin/hipcc "$@" "$inner/$name" -o "$inner/out.co"
cp "$work/out.co" "$out.tmp.$$"
mv -f "$out.tmp.$$" "$out"
