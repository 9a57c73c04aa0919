#version 450
layout(quads, equal_spacing, ccw) in;
void main() {
    float u = gl_TessCoord.x;
    float v = gl_TessCoord.y;
    vec4 top = mix(gl_in[0].gl_Position, gl_in[1].gl_Position, u);
    vec4 bottom = mix(gl_in[2].gl_Position, gl_in[3].gl_Position, u);
    vec4 p = mix(top, bottom, v);
    p.x += 0.25 * v * (1.0 - v) * (2.0 * u - 1.0);
    p.y += 0.5 * u * (1.0 - u) * (2.0 * v - 1.0);
    gl_Position = vec4(p.xy, 0.0, 1.0);
}
