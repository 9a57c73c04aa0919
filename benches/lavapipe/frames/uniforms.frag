#version 450
// Push-constant reads in a loop: a small palette blended by distance fields, the way a
// material reads its parameters. Every read is at a dynamically uniform address.
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
layout(push_constant) uniform Params {
    vec4 centre[4]; // xy centre, z radius, w weight
    vec4 tint[4];
} pc;

void main() {
    vec3 c = vec3(0.0);
    for (int round = 0; round < 4; ++round) {
        for (int i = 0; i < 4; ++i) {
            vec2 d = uv - pc.centre[i].xy - 0.05 * float(round);
            float f = pc.centre[i].w / (1.0 + dot(d, d) / (pc.centre[i].z * pc.centre[i].z));
            c += pc.tint[(i + round) & 3].rgb * f;
        }
    }
    color = vec4(c * 0.25, 1.0);
}
