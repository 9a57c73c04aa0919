#version 450
// The raster scenes' vertex shader: position and one vec4 attribute (a colour, or texture
// coordinates in .xy), passed through.
layout(location = 0) in vec4 pos;
layout(location = 1) in vec4 attr;
layout(location = 0) out vec4 v;
void main() {
    gl_Position = pos;
    v = attr;
}
