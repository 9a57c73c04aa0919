#version 450
// (13) Depth test: flat triangle colour in R, G; B = the fragment's depth (gl_FragCoord.z).
layout(location = 1) flat in vec4 c;
layout(location = 0) out vec4 color;
void main() {
    color = vec4(c.r, c.g, gl_FragCoord.z, 1.0);
}
