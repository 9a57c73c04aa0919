#version 450
#extension GL_EXT_demote_to_helper_invocation : require
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(location = 0) out vec4 color;
void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    ivec2 panel = p >> 5;
    int lane = (p.x & 1) + 2 * (p.y & 1);
    bool drop = panel.x == 1 ? lane == 0
              : panel.x == 2 ? lane != 3
              : panel.x == 3 ? ((p.x ^ p.y) & 1) == 1
              : false;
    if (drop) {
        demote;
    }
    float du = float(1 << panel.y) / 64.0;
    vec2 uv = gl_FragCoord.xy * du;
    vec4 t = texture(tex, uv);
    bool ok = dFdx(uv.x) == du && dFdy(uv.y) == du && fwidth(uv).x == du;
    color = ok ? t : vec4(1.0, 0.0, 1.0, 1.0);
}
