#version 450
// (3) Cube map seen with a pinhole camera looking straight at the (+X,+Y,+Z) corner,
// so three faces meet in the middle of the image. Unnormalized direction vectors.
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) uniform samplerCube tex;  // 8x8 faces, LINEAR
void main() {
    vec2 p = gl_FragCoord.xy / 64.0 * 2.0 - 1.0;       // -1..1
    vec3 fwd = vec3(1.0, 1.0, 1.0);
    vec3 right = vec3(1.0, 0.0, -1.0);
    vec3 up = vec3(-0.5, 1.0, -0.5);
    vec3 d = fwd + 0.6 * (p.x * right - p.y * up);
    color = textureLod(tex, d, 0.0);
}
