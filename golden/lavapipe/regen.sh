#!/usr/bin/env bash
# Re-render the lavapipe twins of the golden scenes: golden/lavapipe/<scene>/lavapipe.png.
# Usage: golden/lavapipe/regen.sh [scene...]      (default: every scene in gen.py)
# Needs glslangValidator, python3 and lavapipe (mesa-vulkan-drivers); lvp (LVP, or built from
# tools/lvp into target/lvp on first use by benches/lavapipe/lvp.sh, which also points the
# loader at lavapipe).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../../benches/lavapipe/lvp.sh"
python3 "$HERE/gen.py" "$@"
if [ $# -eq 0 ]; then
    set -- $(cd "$HERE" && ls -d */ | tr -d /)
fi
for s in "$@"; do
    d="$HERE/$s"
    [ -f "$d/scene.json" ] || continue
    vert_env=$(sed -n 1p "$d/target_env")
    frag_env=$(sed -n 2p "$d/target_env")
    geom_env=$(sed -n 3p "$d/target_env")
    tesc_env=$(sed -n 4p "$d/target_env")
    tese_env=$(sed -n 5p "$d/target_env")
    for stage in vert geom frag tesc tese; do
        env=$vert_env
        [ $stage = frag ] && env=$frag_env
        [ $stage = geom ] && env=$geom_env
        [ $stage = tesc ] && env=$tesc_env
        [ $stage = tese ] && env=$tese_env
        # The Amber runner maps TARGET_ENV spvX.Y to glslang's --target-env spirvX.Y.
        case "$env" in
            "") target=vulkan1.0 ;;
            spv*) target="spirv${env#spv}" ;;
            *) target=$env ;;
        esac
        for src in "$d"/*.$stage; do
            [ -f "$src" ] || continue
            glslangValidator -V --target-env "$target" -S $stage -o "$src.spv" "$src" || { echo "glslangValidator failed on $src" >&2; exit 1; }
        done
    done
    "$LVP" "$d/scene.json" --out-png "$d/lavapipe.png" >/dev/null
    echo "rendered $s"
done
