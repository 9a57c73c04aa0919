#version 450
// (10) textureLod on an 8x8x8 3D texture with 4 levels (trilinear in 3D, CLAMP_TO_EDGE):
// x maps to u, y maps to w (depth slice); v is a fixed diagonal; LOD is constant over 16-pixel
// columns: 0, 0.6, 1.5, 2.9 (the last nearly the 1x1x1 level).
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) uniform sampler3D tex;
void main() {
    vec2 p = gl_FragCoord.xy / 64.0;
    const float LOD[4] = float[4](0.0, 0.6, 1.5, 2.9);
    vec3 uvw = vec3(fract(p.x * 4.0), 0.3 + 0.4 * p.y, p.y * 1.2 - 0.1);
    color = textureLod(tex, uvw, LOD[int(gl_FragCoord.x) / 16]);
}
