#version 450
// (9) textureGather of each component, one per quadrant, on an 8x8 RGBA texture:
// top-left comp 0 (R), top-right comp 1 (G), bottom-left comp 2 (B), bottom-right comp 3 (A).
// Each pixel writes the 4 gathered texels (i0j1, i1j1, i1j0, i0j0 order per the spec).
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) uniform sampler2D tex;
void main() {
    vec2 f = gl_FragCoord.xy;
    vec2 uv = f / 64.0 * 1.5 - 0.25;                  // REPEAT: wraps on the sides
    if (f.y < 32.0) {
        if (f.x < 32.0) color = textureGather(tex, uv, 0);
        else            color = textureGather(tex, uv, 1);
    } else {
        if (f.x < 32.0) color = textureGather(tex, uv, 2);
        else            color = textureGather(tex, uv, 3);
    }
}
