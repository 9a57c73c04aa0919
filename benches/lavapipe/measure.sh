#!/usr/bin/env bash
# Time the sampling-cost scenes on lavapipe, one thread, and print the cost per sample:
# (median(N=16) - median(N=0)) / (16 * 512 * 512). Usage: benches/lavapipe/measure.sh [ITER]
set -euo pipefail
cd "$(dirname "$0")"
. ./lvp.sh
IT=${1:-10}
for s in nearest bilinear trilinear aniso16 dref_pcf cube_bilinear gather; do
    t0=$(LP_NUM_THREADS=1 "$LVP" "scenes/$s.0.json" --warmup 2 --iterations "$IT" | sed 's/.*"median_ms":\([0-9.]*\).*/\1/')
    t16=$(LP_NUM_THREADS=1 "$LVP" "scenes/$s.16.json" --warmup 2 --iterations "$IT" | sed 's/.*"median_ms":\([0-9.]*\).*/\1/')
    python3 -c "print(f'{\"$s\":14} N=0 {$t0:8.2f} ms  N=16 {$t16:8.2f} ms  per sample {($t16-$t0)*1e6/(16*512*512):6.2f} ns')"
done
