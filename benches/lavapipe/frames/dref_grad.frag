#version 450
// Depth comparisons with explicit gradients (textureGrad on a sampler2DShadow), the
// reference and the footprint varying across the screen: two 2x2-PCF lookups per pixel.
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) uniform sampler2DShadow shadow_map; // D32 512x512, 10 levels, LINEAR, LESS_OR_EQUAL

void main() {
    vec2 g = vec2(exp2(uv.x * 8.0) / 512.0);
    float ref = 0.3 + 0.4 * uv.y;
    float a = textureGrad(shadow_map, vec3(uv, ref), vec2(g.x, 0.0), vec2(0.0, g.y));
    float b = textureGrad(shadow_map, vec3(uv.yx * 0.9 + 0.05, 1.0 - ref), vec2(g.x, g.y) * 0.7, vec2(-g.y, g.x) * 0.7);
    color = vec4(a, b, a * b, 1.0);
}
