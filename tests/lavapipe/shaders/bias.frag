#version 450
// (6) texture(s, uv, bias) on the mip-coloured 64x64 texture. Base LOD grows left to right
// (uv scale 1x .. 4x: LOD 0..2); the bias is constant over 8-pixel rows:
// -4, -1, 0, 0.5, 1.25, 2.5, 4, 12 (the large ones clamp at the last level, 6).
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) uniform sampler2D tex;
const float BIAS[8] = float[8](-4.0, -1.0, 0.0, 0.5, 1.25, 2.5, 4.0, 12.0);
void main() {
    vec2 p = gl_FragCoord.xy / 64.0;
    float scale = exp2(floor(gl_FragCoord.x / 8.0) / 4.0);   // constant per 8-px column
    vec2 uv = p * scale + vec2(0.1, 0.3);
    color = texture(tex, uv, BIAS[int(gl_FragCoord.y) / 8]);
}
