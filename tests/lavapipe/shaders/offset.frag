#version 450
// (5) Constant offsets -8 and 7 on a 16x16 texture (REPEAT, LINEAR), one per quadrant:
// top-left  textureOffset(uv, (-8, 7))     top-right    textureOffset(uv, (7, -8))
// bottom-left texelFetchOffset(p, (-8, 7)) bottom-right texelFetchOffset(p, (7, -8))
// The fetch coordinates plus offsets stay inside the texture (no robustness needed).
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) uniform sampler2D tex;
void main() {
    vec2 f = gl_FragCoord.xy;
    vec2 uv = f / 64.0 * 1.3 - 0.15;
    ivec2 q = (ivec2(f) % 32) / 4;                      // 0..7
    if (f.y < 32.0) {
        if (f.x < 32.0) color = textureOffset(tex, uv, ivec2(-8, 7));
        else            color = textureOffset(tex, uv, ivec2(7, -8));
    } else {
        if (f.x < 32.0) color = texelFetchOffset(tex, q + ivec2(8, 0), 0, ivec2(-8, 7));
        else            color = texelFetchOffset(tex, q + ivec2(0, 8), 0, ivec2(7, -8));
    }
}
