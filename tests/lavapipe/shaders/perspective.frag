#version 450
// (12) Perspective-correct interpolation: R = trilinear sample of an 8x8 checker (mips
// box-filtered to grey), G, B = the interpolated texture coordinate / 8 (continuous).
layout(location = 0) in vec4 v;
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) uniform sampler2D tex;
void main() {
    color = vec4(texture(tex, v.xy).r, v.x / 8.0, v.y / 8.0, 1.0);
}
