#!/usr/bin/env bash
# Regenerate everything in tests/lavapipe: SPIR-V (glslangValidator), texture data and scene
# files (gen.py), and the lavapipe reference images (lvp). Needs lavapipe, so it is run by hand,
# never in CI. Usage: tests/lavapipe/regen.sh [scene-name...]   (default: every scene)
# LVP=path/to/lvp overrides the lvp binary.
set -euo pipefail
cd "$(dirname "$0")"
. ../../benches/lavapipe/lvp.sh

mkdir -p spv data scenes expected png
# Plain Vulkan 1.0 / SPIR-V 1.0 for every shader except the subgroup quad one (SPIR-V 1.3).
for src in shaders/*.vert shaders/*.frag; do
    base=$(basename "$src")
    env=vulkan1.0
    case $base in quad_swap.frag) env=vulkan1.1 ;; esac
    glslangValidator -V --target-env "$env" -o "spv/$base.spv" "$src" >/dev/null
done

python3 gen.py

if [ $# -gt 0 ]; then names=("$@"); else
    names=(); for f in scenes/*.json; do names+=("$(basename "$f" .json)"); done
fi
for n in "${names[@]}"; do
    "$LVP" "scenes/$n.json" --out-raw "expected/$n.lvp.f32" --out-png "png/$n.png" >/dev/null
    echo "rendered $n"
done
