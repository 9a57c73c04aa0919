#!/usr/bin/env bash
# Wall-clock companion to cost.sh: rounds that alternate a frame run by the before binary,
# the same frame by the after binary, and the after binary tracing one pixel, then the
# medians of each and of the per-round ratios (this machine is shared: per-round ratios
# move less than times). One rasterizer thread, no image written.
#
#   benches/debug/paired.sh QUADSTEP_BEFORE [ROUNDS]   # QUADSTEP (after): target/release/quadstep
set -euo pipefail
cd "$(dirname "$0")/../.."
before=$1
rounds=${2:-15}
after=${QUADSTEP:-target/release/quadstep}
scene=benches/debug/frame.amber
secs() {
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >/dev/null
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc
}
"$before" amber "$scene" >/dev/null
"$after" amber "$scene" >/dev/null
"$after" debug "$scene" --pixel 300,700 -j 1 >/dev/null
uptime
: >"${TMPDIR:-/tmp}/qs-paired.$$"
for _ in $(seq "$rounds"); do
  b=$(secs "$before" amber "$scene")
  a=$(secs "$after" amber "$scene")
  d=$(secs "$after" debug "$scene" --pixel 300,700 -j 1)
  echo "$b $a $d" >>"${TMPDIR:-/tmp}/qs-paired.$$"
done
uptime
python3 - "${TMPDIR:-/tmp}/qs-paired.$$" <<'PY'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
med = lambda v: statistics.median(v)
b, a, d = (med([r[k] for r in rows]) for k in range(3))
print(f"{len(rows)} rounds, medians: before {b:.3f} s, after {a:.3f} s, debug {d:.3f} s")
print(f"median per-round ratios: after/before {med([r[1] / r[0] for r in rows]):.3f}, "
      f"debug/after {med([r[2] / r[1] for r in rows]):.3f}")
PY
rm -f "${TMPDIR:-/tmp}/qs-paired.$$"
