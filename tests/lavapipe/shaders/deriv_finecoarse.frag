#version 450
// (14) Fine versus coarse derivatives of the varying function of deriv_varying.frag:
// (dFdxFine, dFdyFine, dFdxCoarse, dFdyCoarse) * K. Plain dFdx may be either; this scene
// pins both down.
layout(location = 0) in vec4 v;
layout(location = 0) out vec4 color;
const float K = 8.0;
void main() {
    float f = sin(v.x * 6.0) * v.y * v.y + v.x * v.y;
    color = vec4(dFdxFine(f), dFdyFine(f), dFdxCoarse(f), dFdyCoarse(f)) * K;
}
