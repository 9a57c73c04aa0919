#version 450
layout(location = 0) in vec4 position;
layout(location = 0) out vec2 v_colour;
void main() {
    gl_Position = vec4(position.xy, 0.0, 1.0);
    v_colour = position.zw;
}
