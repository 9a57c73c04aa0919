#!/usr/bin/env bash
# the end-to-end form of the sampler's side-by-side figure: lavapipe's sampling scenes (N = 0 and
# N = 16 samples per pixel, 512², one thread) timed in lavapipe and in quadstep (the whole
# fragment shader through the interpreter: the sampling_scenes bench's `QS_SCENE_ONCE`), round
# by round, so both sides are "(t16 − t0) / (16 · 512²)", the in-shader cost of one sample.
# quadstep's figure is from the median frame times of 12 frames of each scene
# (`QS_SCENE_TIMES=1`); prints the medians over the rounds.
# Usage: benches/lavapipe/paired_scenes.sh [ROUNDS] [KIND...]
#   (needs lvp, see measure.sh, and `cargo bench --bench sampling_scenes --no-run`)
set -euo pipefail
cd "$(dirname "$0")"
. ./lvp.sh
ROUNDS=${1:-4}
shift || true
KINDS=${*:-nearest bilinear trilinear dref_pcf cube_bilinear gather}
. bench_bin.sh
QS=$(bench_bin sampling_scenes)
lvp() { LP_NUM_THREADS=1 "$LVP" "scenes/$1.json" --warmup 2 --iterations 10 | sed 's/.*"median_ms":\([0-9.]*\).*/\1/'; }
qs_ms() { QS_SCENE_TIMES=1 QS_SCENE_ONCE="$1" QS_SCENE_REPEAT=12 "$QS" | awk '/median_ms/ {print $3}'; }
qs() { python3 -c "print(($(qs_ms "$1.16") - $(qs_ms "$1.0")) * 1e6 / (16 * 512 * 512))"; }
for k in $KINDS; do
    for r in $(seq "$ROUNDS"); do
        lv() { python3 -c "print(($(lvp "$k.16") - $(lvp "$k.0")) * 1e6 / (16 * 512 * 512))"; }
        # the order turned round every other round
        if [ $((r % 2)) -eq 1 ]; then l=$(lv); q=$(qs "$k"); else q=$(qs "$k"); l=$(lv); fi
        echo "$k $l $q"
    done
done | python3 -c '
import statistics as st, sys
rows = {}
for line in sys.stdin:
    k, l, q = line.split()
    rows.setdefault(k, []).append((float(l), float(q)))
for k, r in rows.items():
    print(f"{k} MEDIAN over {len(r)} rounds: lavapipe {st.median(x[0] for x in r):.2f} ns, "
          f"quadstep scene {st.median(x[1] for x in r):.2f} ns per sample; "
          f"ratio {st.median(x[1] / x[0] for x in r):.2f}")
'
