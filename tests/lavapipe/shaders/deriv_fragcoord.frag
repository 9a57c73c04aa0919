#version 450
// (14) Derivatives of a non-linear function of gl_FragCoord on the same triangle.
layout(location = 0) in vec4 v;
layout(location = 0) out vec4 color;
const float K = 4.0;
void main() {
    vec2 q = gl_FragCoord.xy / 64.0;
    float f = q.x * q.x * 8.0 + q.y * q.y * q.y * 16.0 - q.x * q.y * 4.0;
    color = vec4(dFdx(f) * K, dFdy(f) * K, fwidth(f) * K, 1.0);
}
