#version 450
#extension GL_KHR_shader_subgroup_quad : require
// QuadReadAcrossX / Y / Diagonal visualised: each third of the screen shows, as colour, the
// pixel coordinates a lane receives from its partner (x in red, y in green, within an 8x8
// cell so the 2x2 pattern is visible), and blue marks which swap the band shows.
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
void main() {
    vec2 p = gl_FragCoord.xy;
    vec2 s;
    float band;
    if (uv.x < 1.0 / 3.0) { s = subgroupQuadSwapHorizontal(p); band = 0.0; }
    else if (uv.x < 2.0 / 3.0) { s = subgroupQuadSwapVertical(p); band = 0.5; }
    else { s = subgroupQuadSwapDiagonal(p); band = 1.0; }
    vec2 cell = mod(floor(s), 8.0) / 7.0;
    color = vec4(cell, band, 1.0);
}
