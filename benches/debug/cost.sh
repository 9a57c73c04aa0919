#!/usr/bin/env bash
# What the shader debugger costs, in instructions (callgrind: independent of the machine's
# load): benches/debug/frame.amber (a 1024x1024 trilinear frame) run by `quadstep amber`, and
# traced at one pixel by `quadstep debug`, both on one rasterizer thread and writing no image.
# With a second binary (a main build), its `amber` run too, to check that a frame without the
# debugger is not slower than before.
#
#   benches/debug/cost.sh [QUADSTEP_BEFORE]      # QUADSTEP (default target/release/quadstep)
set -euo pipefail
cd "$(dirname "$0")/../.."
after=${QUADSTEP:-target/release/quadstep}
before=${1:-}
scene=benches/debug/frame.amber
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# Instructions of one run (the glslang child processes are not counted, and the shader
# cache is warm after the first run anyway).
count() {
  valgrind --tool=callgrind --callgrind-out-file="$out/cg" "$@" >/dev/null 2>"$out/log"
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$out/log"
}
"$after" amber "$scene" >/dev/null
"$after" debug "$scene" --pixel 300,700 -j 1 >/dev/null
frame=$(count "$after" amber "$scene")
debug=$(count "$after" debug "$scene" --pixel 300,700 -j 1)
echo "frame (after):         $frame"
echo "debug --pixel 300,700: $debug  ($(echo "scale=3; $debug / $frame" | bc)x the frame)"
if [ -n "$before" ]; then
  "$before" amber "$scene" >/dev/null
  b=$(count "$before" amber "$scene")
  echo "frame (before):        $b  (after / before $(echo "scale=4; $frame / $b" | bc))"
fi
