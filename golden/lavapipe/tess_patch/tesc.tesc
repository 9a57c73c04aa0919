#version 450
layout(vertices = 4) out;
void main() {
    gl_out[gl_InvocationID].gl_Position = gl_in[gl_InvocationID].gl_Position;
    if (gl_InvocationID == 0) {
        // outer: the edges u = 0, v = 0, u = 1, v = 1
        if (gl_PrimitiveID == 0) {
            gl_TessLevelOuter[0] = 2.0;
            gl_TessLevelOuter[1] = 8.0;
            gl_TessLevelOuter[2] = 4.0;
            gl_TessLevelOuter[3] = 1.0;
        } else {
            gl_TessLevelOuter[0] = 4.0;
            gl_TessLevelOuter[1] = 1.0;
            gl_TessLevelOuter[2] = 2.0;
            gl_TessLevelOuter[3] = 8.0;
        }
        gl_TessLevelInner[0] = 4.0;
        gl_TessLevelInner[1] = 4.0;
    }
}
