#version 450
// (4) Depth compare with LINEAR (PCF) filtering on a 16x16 D32 texture with 5 levels.
// R = textureLod(lod 0, magnified), G = texture (implicit LOD; minified, growing down the image),
// B = the reference value. The reference is a multiple of 1/8 constant over 8-pixel columns
// and the stored depths are multiples of 1/8 as well, so EQUAL and NOT_EQUAL get exact hits.
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) uniform sampler2DShadow tex;
layout(push_constant) uniform Push { vec2 shift; } pc;
void main() {
    vec2 p = gl_FragCoord.xy / 64.0;
    float ref = floor(gl_FragCoord.x / 8.0) / 8.0;      // 0, 1/8, ..., 7/8
    vec2 uv0 = p + pc.shift / 16.0;
    float a = textureLod(tex, vec3(uv0, ref), 0.0);
    vec2 uv1 = p * exp2(p.y * 5.0) + pc.shift / 16.0;
    float b = texture(tex, vec3(uv1, ref));
    color = vec4(a, b, ref, 1.0);
}
