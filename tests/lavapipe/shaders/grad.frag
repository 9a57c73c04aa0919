#version 450
// (7) textureGrad on the mip-coloured 64x64 texture with gradients that grow from left to
// right (|dPdx| from 1/64 to 2^6/64 of the texture, so LOD from 0 to 6 and beyond with the anisotropy) and whose
// anisotropy ratio (|dPdy|/|dPdx| from 1 to 4) and rotation angle grow from top to bottom.
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) uniform sampler2D tex;
void main() {
    vec2 p = gl_FragCoord.xy / 64.0;
    float g = exp2(p.x * 6.0) / 64.0;
    float ratio = 1.0 + 3.0 * p.y;
    float a = p.y * 1.5;
    vec2 dx = g * vec2(cos(a), sin(a));
    vec2 dy = g * ratio * vec2(-sin(a), cos(a));
    color = textureGrad(tex, p, dx, dy);
}
