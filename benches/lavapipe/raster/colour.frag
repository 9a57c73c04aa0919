#version 450
// Flat work per fragment: write the interpolated colour.
layout(location = 0) in vec4 v;
layout(location = 0) out vec4 color;
void main() {
    color = v;
}
