#version 450
// (10) textureLod on a 16x16, 4-layer, 5-level 2D array (trilinear). The layer coordinate
// is constant over 8-pixel columns: -1, 0.3, 1.49, 1.51, 2.2, 2.7, 3.4, 6 (clamps and
// rounding to nearest, avoiding exact .5); the LOD grows down the image from -0.5 to 4.5.
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) uniform sampler2DArray tex;
const float LAYER[8] = float[8](-1.0, 0.3, 1.49, 1.51, 2.2, 2.7, 3.4, 6.0);
void main() {
    vec2 p = gl_FragCoord.xy / 64.0;
    float lod = p.y * 5.0 - 0.5;
    vec2 uv = p * vec2(2.3, 1.7) - 0.2;
    color = textureLod(tex, vec3(uv, LAYER[int(gl_FragCoord.x) / 8]), lod);
}
