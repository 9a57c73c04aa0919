#version 450
// Vertex-buffer pass-through: location 0 = clip-space position (vec4, w may be != 1),
// location 1 = one vec4 attribute, passed on both smoothly (v, perspective-correct)
// and flat (c, taken from the provoking = first vertex of each triangle).
layout(location = 0) in vec4 pos;
layout(location = 1) in vec4 attr;
layout(location = 0) out vec4 v;
layout(location = 1) flat out vec4 c;
void main() {
    v = attr;
    c = attr;
    gl_Position = pos;
}
