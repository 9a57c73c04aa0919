#!/usr/bin/env bash
# Build the sampling-cost scenes (SPIR-V and lvp scene files) measured by
# `cargo bench --bench sampling_scenes` and by `measure.sh` on lavapipe. Run by hand.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p spv scenes
D=../../tests/lavapipe/data
# name | defines | texture JSON
while IFS='|' read -r name defs tex; do
    tex=${tex//\$D/$D}
    for n in 0 16; do
        glslangValidator -V --target-env vulkan1.0 -DN=$n $defs -o "spv/$name.$n.frag.spv" samp.frag >/dev/null
        cat > "scenes/$name.$n.json" <<JSON
{ "width": 512, "height": 512,
  "vertex_spv": "../../../tests/lavapipe/spv/fullscreen.vert.spv",
  "fragment_spv": "../spv/$name.$n.frag.spv",
  "textures": [ { "set": 0, "binding": 0, $tex } ] }
JSON
    done
done <<'LIST'
nearest|-DSCALE=1.0|"format": "R8G8B8A8_UNORM", "width": 64, "height": 64, "mip_levels": 7, "data": "../$D/mipcolor.f32"
bilinear|-DSCALE=1.0|"format": "R8G8B8A8_UNORM", "width": 64, "height": 64, "mip_levels": 7, "data": "../$D/mipcolor.f32", "mag_filter": "LINEAR", "min_filter": "LINEAR"
trilinear|-DSCALE=22.6|"format": "R8G8B8A8_UNORM", "width": 64, "height": 64, "mip_levels": 7, "data": "../$D/mipcolor.f32", "mag_filter": "LINEAR", "min_filter": "LINEAR", "mipmap_mode": "LINEAR"
aniso16|-DSCALE=vec2(16.0,256.0)|"format": "R8G8B8A8_UNORM", "width": 64, "height": 64, "mip_levels": 7, "data": "../$D/mipcolor.f32", "mag_filter": "LINEAR", "min_filter": "LINEAR", "mipmap_mode": "LINEAR", "max_anisotropy": 16
dref_pcf|-DDREF -DSCALE=1.0|"format": "D32_SFLOAT", "width": 16, "height": 16, "mip_levels": 5, "data": "../$D/depth16.f32", "mag_filter": "LINEAR", "min_filter": "LINEAR", "compare_op": "LESS"
cube_bilinear|-DCUBE -DSCALE=1.0|"format": "R8G8B8A8_UNORM", "view_type": "CUBE", "width": 8, "height": 8, "data": "../$D/cube8.f32", "mag_filter": "LINEAR", "min_filter": "LINEAR", "mipmap_mode": "LINEAR"
gather|-DGATHER -DSCALE=1.0|"format": "R8G8B8A8_UNORM", "width": 8, "height": 8, "data": "../$D/gather8.f32"
LIST
echo "built $(ls scenes | wc -l) scenes"
