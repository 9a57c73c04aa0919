#version 450
// (16) Quad swaps of gl_FragCoord.xy: R = horizontal swap .x, G = vertical swap .y,
// B, A = diagonal swap .xy, all / 64. (The other components of the horizontal and vertical
// swaps are the pixel's own, so they are left out.)
#extension GL_KHR_shader_subgroup_quad : require
layout(location = 0) out vec4 color;
void main() {
    vec2 f = gl_FragCoord.xy;
    vec2 h = subgroupQuadSwapHorizontal(f);
    vec2 v = subgroupQuadSwapVertical(f);
    vec2 d = subgroupQuadSwapDiagonal(f);
    color = vec4(h.x, v.y, d.x, d.y) / 64.0;
}
