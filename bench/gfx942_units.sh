#!/bin/bash
# gfx942_units.sh: the per-unit table of issue 13 (64 keys x 16 query rows of one wave, main
# loop, steady-state path) for every attngen gfx942 code object in a folder, through
# bench/gfx942_unit_count.py. Units per iteration = q_tiles * kv_tile / 64; the wave's path
# holds its kv_tile / 8 K-row LDS DMAs and both barriers of the iteration.
#   usage: bash bench/gfx942_units.sh [DIR]   (default build/kernels/gfx942)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-build/kernels/gfx942}
printf "%-58s %6s %6s %5s %6s %5s %6s %7s %6s %5s\n" variant vgpr scr mfma valu perm round nop_ws barrier lds
for co in "$dir"/*.co; do
  name=$(basename "$co" .co)
  q=$(sed -E 's/.*_q([0-9]+)_.*/\1/' <<<"$name")
  kv=$(sed -E 's/.*_kv([0-9]+)_.*/\1/' <<<"$name")
  units=$(python3 -c "print($q * $kv / 64)")
  notes=$(llvm-readelf-19 --notes "$co")
  vgpr=$(grep -m1 -E '^ +\.vgpr_count:' <<<"$notes" | awk '{print $2}')
  scr=$(grep -m1 -E '^ +\.private_segment_fixed_size:' <<<"$notes" | awk '{print $2}')
  row=$(python3 "$here/gfx942_unit_count.py" "$co" --symbol "$name" --units "$units" \
        --dma $((kv / 8)) --barriers 2 | tail -1)
  read -r _insns mfma valu perm round _exp nop bar lds _rest <<<"$row"
  printf "%-58s %6s %6s %5s %6s %5s %6s %7s %6s %5s\n" "$name" "$vgpr" "$scr" "$mfma" "$valu" \
    "$perm" "$round" "$nop" "$bar" "$lds"
done
