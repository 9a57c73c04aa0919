#!/usr/bin/env bash
# The raster frames' ratios with the drift paired out: for each scene, ROUNDS rounds, each timing N frames
# of lavapipe and of quadstep at 1 and 2 threads back to back (the order turned round every other
# round), so every ratio compares figures taken seconds apart; prints each round's ratios and
# their medians over the rounds.
# Usage: benches/lavapipe/raster/paired.sh [ROUNDS] [N] [SCENE...]
#   (needs lvp, see measure.sh, and `cargo bench --bench raster_scenes --no-run`)
set -euo pipefail
cd "$(dirname "$0")"
[ -f build/depth_scene.json ] || python3 gen.py
. ../lvp.sh
ROUNDS=${1:-8}
N=${2:-20}
shift 2 || true
SCENES=${*:-fullscreen_trilinear small_triangles depth_scene}
. ../bench_bin.sh
QS=$(bench_bin raster_scenes)
lvp() { LP_NUM_THREADS=$2 "$LVP" "build/$1.json" --warmup 2 --iterations "$N" | sed 's/.*"median_ms":\([0-9.]*\).*/\1/'; }
# quadstep's median frame and its fastest frame
qs() { QS_SCENE_TIMES=1 QS_SCENE_ONCE="$1/$2t" QS_SCENE_REPEAT=$((N + 2)) "$QS" | awk '/median_ms/ {print $3, $5}'; }
for s in $SCENES; do
    rows=""
    for r in $(seq "$ROUNDS"); do
        if [ $((r % 2)) -eq 1 ]; then
            l1=$(lvp "$s" 1); q1=$(qs "$s" 1); q2=$(qs "$s" 2); l2=$(lvp "$s" 2)
        else
            q2=$(qs "$s" 2); l2=$(lvp "$s" 2); l1=$(lvp "$s" 1); q1=$(qs "$s" 1)
        fi
        rows="$rows$l1 $q1 $l2 $q2"$'\n'
    done
    python3 - "$s" "$rows" <<'PY'
import sys, statistics as st
name, full = sys.argv[1], [list(map(float, r.split())) for r in sys.argv[2].strip().split("\n")]
# each row: lavapipe 1t, quadstep 1t (median, fastest), lavapipe 2t, quadstep 2t (median, fastest)
rows = [(r[0], r[1], r[3], r[4]) for r in full]
fast1, fast2 = min(r[2] for r in full), min(r[5] for r in full)
med = lambda v: st.median(v)
for i, (l1, q1, l2, q2) in enumerate(rows, 1):
    print(f"{name} round {i}: lavapipe {l1:.2f}/{l2:.2f} ms, quadstep {q1:.2f}/{q2:.2f} ms (1t/2t): "
          f"ratio {q1 / l1:.2f}/{q2 / l2:.2f}, quadstep speed-up {q1 / q2:.2f}")
print(f"{name} MEDIAN over {len(rows)} rounds: lavapipe {med([r[0] for r in rows]):.2f}/{med([r[2] for r in rows]):.2f} ms, "
      f"quadstep {med([r[1] for r in rows]):.2f}/{med([r[3] for r in rows]):.2f} ms; "
      f"ratio 1t {med([r[1] / r[0] for r in rows]):.2f}, 2t {med([r[3] / r[2] for r in rows]):.2f}; "
      f"quadstep speed-up {med([r[1] / r[3] for r in rows]):.2f}, lavapipe speed-up {med([r[0] / r[2] for r in rows]):.2f}")
print(f"{name} FASTEST quadstep frames over all rounds: {fast1:.2f}/{fast2:.2f} ms (1t/2t), speed-up {fast1 / fast2:.2f}")
PY
done
