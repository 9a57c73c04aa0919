#version 450
// fwidth edge detection: a procedural pattern of rings; fwidth of the ring function is large
// where the rings change fast, and edges are drawn where the value crosses a level within one
// pixel. Discard on a checker shows helper lanes keep derivatives right at discarded pixels.
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
void main() {
    vec2 c = uv - 0.5;
    float r = length(c) * 40.0 + 3.0 * sin(atan(c.y, c.x) * 5.0);
    float w = fwidth(r);
    float edge = 1.0 - smoothstep(0.0, w * 1.5, abs(fract(r) - 0.5) - 0.45 + w);
    ivec2 q = ivec2(gl_FragCoord.xy) / 16;
    if (((q.x + q.y) & 1) == 1 && uv.y > 0.75) {
        discard;
    }
    color = vec4(edge, w * 0.5, 0.2 + 0.6 * uv.y, 1.0);
}
