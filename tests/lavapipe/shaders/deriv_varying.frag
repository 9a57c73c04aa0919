#version 450
// (14) Derivatives of a non-linear function of an interpolated varying, on a triangle whose
// edges cut through 2x2 quads (helper invocations supply the missing neighbours).
layout(location = 0) in vec4 v;
layout(location = 0) out vec4 color;
const float K = 8.0;
void main() {
    float f = sin(v.x * 6.0) * v.y * v.y + v.x * v.y;
    color = vec4(dFdx(f) * K, dFdy(f) * K, fwidth(f) * K, 1.0);
}
