#!/usr/bin/env bash
# Time the raster frames on lavapipe at 1 and 2 threads (median of ITER submits).
# Usage: benches/lavapipe/raster/measure.sh [ITER]   (builds the scenes first if needed)
set -euo pipefail
cd "$(dirname "$0")"
[ -f build/blend_scene.json ] || python3 gen.py
. ../lvp.sh
IT=${1:-10}
for s in fullscreen_trilinear small_triangles depth_scene blend_scene; do
    for t in 1 2; do
        m=$(LP_NUM_THREADS=$t "$LVP" "build/$s.json" --warmup 2 --iterations "$IT" | sed 's/.*"median_ms":\([0-9.]*\).*/\1/')
        echo "$s ${t}t lavapipe median $m ms"
    done
done
