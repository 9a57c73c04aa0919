#!/usr/bin/env bash
# What the shader debugger costs, in instructions (callgrind: independent of the machine's
# load): benches/debug/frame.amber (a 1024x1024 trilinear frame) rendered by `quadstep render`,
# and traced at one pixel by `quadstep debug`, on one rasterizer thread. With a second
# binary (a main build), its `render` too, to check that a frame without the debugger is not
# slower than before.
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
"$after" render "$scene" --out "$out/warm.png" -j 1 >/dev/null
"$after" debug "$scene" --pixel 300,700 -j 1 >/dev/null
render=$(count "$after" render "$scene" --out "$out/a.png" -j 1)
debug=$(count "$after" debug "$scene" --pixel 300,700 -j 1)
echo "render (after):       $render"
echo "debug --pixel 300,700: $debug  ($(echo "scale=3; $debug / $render" | bc)x the render)"
if [ -n "$before" ]; then
  "$before" render "$scene" --out "$out/warm.png" -j 1 >/dev/null
  b=$(count "$before" render "$scene" --out "$out/b.png" -j 1)
  echo "render (before):      $b  (after / before $(echo "scale=4; $render / $b" | bc))"
  cmp "$out/a.png" "$out/b.png" && echo "the two renders are the same PNG"
fi
