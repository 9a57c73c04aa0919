#version 450
// (11) Linear sampling of a 16x16 texture of the scene's format (R16_SFLOAT, R32G32_SFLOAT,
// R8G8B8A8_SRGB) with 5 mip levels: magnified bilinear in the top half, minified trilinear
// in the bottom half (LOD grows to the right).
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(push_constant) uniform Push { vec2 shift; } pc;
void main() {
    vec2 p = gl_FragCoord.xy / 64.0;
    vec2 uv;
    if (gl_FragCoord.y < 32.0) uv = p * 0.6 + 0.1;
    else uv = p * exp2(p.x * 4.0) * 0.9;
    color = texture(tex, uv + pc.shift / 16.0);
}
