#version 450
// (9) textureGatherOffsets (4 independent constant offsets) per quadrant component 0..3,
// and textureGatherOffset with a non-constant offset in the middle band.
// Offsets include the extremes -8 and 7.
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) uniform sampler2D tex;
const ivec2 OFFS[4] = ivec2[4](ivec2(-8, 7), ivec2(7, -8), ivec2(0, 0), ivec2(-3, 2));
void main() {
    vec2 f = gl_FragCoord.xy;
    vec2 uv = f / 64.0 * 1.5 - 0.25;
    if (f.y >= 24.0 && f.y < 40.0) {
        ivec2 o = ivec2(int(f.x) / 8 - 4, 3 - int(f.x) / 8);   // -4..3, 3..-4
        color = textureGatherOffset(tex, uv, o, 1);
    } else if (f.y < 32.0) {
        if (f.x < 32.0) color = textureGatherOffsets(tex, uv, OFFS, 0);
        else            color = textureGatherOffsets(tex, uv, OFFS, 1);
    } else {
        if (f.x < 32.0) color = textureGatherOffsets(tex, uv, OFFS, 2);
        else            color = textureGatherOffsets(tex, uv, OFFS, 3);
    }
}
