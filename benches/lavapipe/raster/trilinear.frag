#version 450
// One trilinear sample per fragment at the interpolated coordinates.
layout(location = 0) in vec4 v;
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) uniform sampler2D tex;
void main() {
    color = texture(tex, v.xy);
}
