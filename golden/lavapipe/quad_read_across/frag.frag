#version 450
#extension GL_KHR_shader_subgroup_quad : require
layout(location = 0) out vec4 color;
void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    int lane = (p.x & 1) + 2 * (p.y & 1);
    vec3 palette[4] = vec3[4](vec3(1, 0, 0), vec3(0, 1, 0), vec3(0, 0, 1), vec3(1, 1, 0));
    // brightness k/255 with k = 32 + 3 * quad column (exact in 8 bits)
    float bright = float(32 + 3 * (p.x >> 1)) / 255.0;
    vec4 own = vec4(palette[lane] * bright, 1.0);
    vec4 x = subgroupQuadSwapHorizontal(own);
    vec4 y = subgroupQuadSwapVertical(own);
    vec4 d = subgroupQuadSwapDiagonal(own);
    int band = p.y >> 5;
    vec4 c = band == 0 ? own : band == 1 ? x : band == 2 ? y : d;
    if ((p.y & 31) >= 30) {
        c = vec4(0, 0, 0, 1);
    }
    color = c;
}
