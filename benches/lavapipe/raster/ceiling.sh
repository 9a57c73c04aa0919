#!/usr/bin/env bash
# What this host allows the raster frames' 2-thread speed-up to be, next to what quadstep gets: per
# round and scene, the median frame of one 1-thread process alone (solo), of two 1-thread
# processes at once (each renders its own copy: no shared memory, so the host's cores, caches
# and memory are all that is shared), and of one 2-thread process. ceiling = 2 * solo /
# (concurrent mean), the speed-up perfect 2-thread scaling would show; speedup = solo / 2t.
# Usage: benches/lavapipe/raster/ceiling.sh [ROUNDS] [N] [SCENE...]
set -euo pipefail
cd "$(dirname "$0")"
[ -f build/blend_scene.json ] || python3 gen.py
ROUNDS=${1:-3}
N=${2:-30}
shift 2 || true
SCENES=${*:-fullscreen_trilinear small_triangles depth_scene}
. ../bench_bin.sh
QS=$(bench_bin raster_scenes)
qs() { QS_SCENE_TIMES=1 QS_SCENE_ONCE="$1/$2t" QS_SCENE_REPEAT="$N" "$QS" | awk '/median_ms/ {print $3}'; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for s in $SCENES; do
    for r in $(seq "$ROUNDS"); do
        solo=$(qs "$s" 1)
        qs "$s" 1 >"$tmp/a" &
        qs "$s" 1 >"$tmp/b"
        wait
        two=$(qs "$s" 2)
        python3 - "$s" "$r" "$solo" "$(cat "$tmp/a")" "$(cat "$tmp/b")" "$two" <<'PY'
import sys
s, r = sys.argv[1], sys.argv[2]
solo, a, b, two = map(float, sys.argv[3:])
print(f"{s} round {r}: solo {solo:.2f} ms, two at once {a:.2f}/{b:.2f} ms, 2t {two:.2f} ms: "
      f"ceiling {2 * solo / ((a + b) / 2):.2f}, quadstep speed-up {solo / two:.2f}")
PY
    done
done
