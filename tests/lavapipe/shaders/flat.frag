#version 450
// (15) Flat colour per triangle (from the provoking vertex), no blending.
layout(location = 1) flat in vec4 c;
layout(location = 0) out vec4 color;
void main() {
    color = c;
}
