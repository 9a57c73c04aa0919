#version 450
// (2) Bilinear magnification of a 4x4 texture over uv in [-1.25, 2.25] in both axes,
// so the address mode (repeat, mirror, clamp, border...) shows outside [0,1].
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) uniform sampler2D tex;   // 4x4, 1 level, LINEAR
layout(push_constant) uniform Push { vec2 shift; } pc;
void main() {
    vec2 uv = gl_FragCoord.xy / 64.0 * 3.5 - 1.25 + pc.shift / 4.0;
    color = textureLod(tex, uv, 0.0);
}
