#!/usr/bin/env bash
# The sampler's side-by-side figure with the host's drift paired out: for each case, ROUNDS rounds,
# each timing lavapipe's sampling scene (N=0 and N=16, 512², one thread: cost per sample inside
# its JIT-compiled shader) and quadstep's texture unit batch entry on the same kind of sample
# (the sampler bench's `*_wide` case, or `aniso16_rgba8_2d` through `Kernel::sample`: thread CPU
# time per sample) back to back, the order turned
# round every other round; prints each round and the medians of the per-round ratios.
# Usage: benches/lavapipe/paired_sampler.sh [ROUNDS] [CASE...]
#   (needs lvp, see measure.sh, and `cargo bench --bench sampler --no-run`)
set -euo pipefail
cd "$(dirname "$0")"
. ./lvp.sh
ROUNDS=${1:-6}
shift || true
CASES=${*:-nearest bilinear trilinear dref_pcf cube_bilinear gather aniso16}
. bench_bin.sh
QS=$(bench_bin sampler)
# quadstep's case for each lavapipe scene
declare -A QC=([nearest]=nearest_rgba8_2d_wide [bilinear]=bilinear_rgba8_2d_wide
    [trilinear]=trilinear_rgba8_2d_wide [dref_pcf]=dref_pcf2x2_d32_wide
    [cube_bilinear]=cube_bilinear_rgba8_wide [gather]=gather_rgba8_2d_wide
    [aniso16]=aniso16_rgba8_2d)
# iterations of the bench's 64-quad loop (a 16x anisotropic sample costs ~100x a bilinear one)
declare -A QI=([aniso16]=10000)
lvp() { LP_NUM_THREADS=1 "$LVP" "scenes/$1.json" --warmup 2 --iterations 10 | sed 's/.*"median_ms":\([0-9.]*\).*/\1/'; }
lvp_ns() { python3 -c "print(($(lvp "$1.16") - $(lvp "$1.0")) * 1e6 / (16 * 512 * 512))"; }
qs_ns() { QS_SAMPLER_TIME=1 QS_CALLGRIND_CASE="${QC[$1]}" QS_CALLGRIND_ITERS="${QI[$1]:-200000}" "$QS" | awk '{print $3}'; }
for c in $CASES; do
    rows=""
    for r in $(seq "$ROUNDS"); do
        if [ $((r % 2)) -eq 1 ]; then l=$(lvp_ns "$c"); q=$(qs_ns "$c"); else q=$(qs_ns "$c"); l=$(lvp_ns "$c"); fi
        rows="$rows$l $q"$'\n'
    done
    python3 - "$c" "$rows" <<'PY'
import sys, statistics as st
name, rows = sys.argv[1], [list(map(float, r.split())) for r in sys.argv[2].strip().split("\n")]
for i, (l, q) in enumerate(rows, 1):
    print(f"{name} round {i}: lavapipe {l:.2f} ns, quadstep {q:.2f} ns per sample: ratio {q / l:.2f}")
print(f"{name} MEDIAN over {len(rows)} rounds: lavapipe {st.median(r[0] for r in rows):.2f} ns, "
      f"quadstep {st.median(r[1] for r in rows):.2f} ns; ratio {st.median(r[1] / r[0] for r in rows):.2f}")
PY
done
