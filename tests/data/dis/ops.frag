#version 450
#extension GL_KHR_shader_subgroup_quad : require
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(set = 0, binding = 1) uniform sampler2D tex;
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
void main() {
    vec4 t = texture(tex, uv);
    float d = dFdxFine(uv.x);
    float q = subgroupQuadSwapDiagonal(d);
    color = t + subgroupAdd(q);
}
