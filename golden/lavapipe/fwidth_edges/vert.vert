#version 450
layout(location = 0) in vec4 position;
layout(location = 1) in vec4 attr;
layout(location = 0) out vec4 v;
layout(location = 1) flat out vec4 c;
void main() {
    gl_Position = position;
    v = attr;
    c = attr;
}
