#!/usr/bin/env bash
# Rebuild the SPIR-V in this folder from its HLSL (glslang-tools). glslang does not accept the
# HLSL `export` keyword, so it is defined away; the function body is what matters.
set -euo pipefail
cd "$(dirname "$0")"
for t in float4 uint4 int4; do
  n=quad_read_across_y_$t
  glslangValidator -D -V --target-env vulkan1.1 -S frag -e main -Dexport= -o $n.spv $n.hlsl >/dev/null
  spirv-dis $n.spv > $n.spvasm
done
