#version 450
// Explicit gradients that vary across the screen (and are anisotropic): two trilinear
// textureGrad calls per pixel, as a shader that computes its own footprint does.
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) uniform sampler2D albedo; // RGBA8 256x256, 9 levels, trilinear

void main() {
    vec2 p = uv * 6.0;
    vec2 dx = vec2(exp2(uv.x * 7.0) / 256.0, 0.0);
    vec2 dy = vec2(0.0, exp2(uv.y * 5.0) / 256.0);
    vec4 a = textureGrad(albedo, p, dx, dy);
    float s = sin(uv.x * 3.0), k = cos(uv.x * 3.0);
    mat2 r = mat2(k, s, -s, k);
    vec4 b = textureGrad(albedo, r * p, r * dx * 3.0, r * dy * 0.5);
    color = vec4(mix(a.rgb, b.rgb, 0.5), 1.0);
}
