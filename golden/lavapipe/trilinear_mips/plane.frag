#version 450
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(location = 0) out vec4 color;
void main() {
    vec2 ndc = gl_FragCoord.xy * (2.0 / 128.0) - 1.0;
    float h = ndc.y + 0.75;
    // Sample in uniform control flow (the sky's quads get an arbitrary, finite coordinate).
    float z = 1.0 / max(h, 1.0 / 64.0);
    vec2 uv = 2.0 * vec2(ndc.x * z, z);
    vec4 t = texture(tex, uv);
    color = h > 0.0 ? t : vec4(40.0 / 255.0, 60.0 / 255.0, 110.0 / 255.0, 1.0);
}
