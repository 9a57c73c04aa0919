#version 450
layout(points) in;
layout(triangle_strip, max_vertices = 4) out;
layout(location = 0) in vec2 v_colour[];
layout(location = 0) flat out vec4 g_colour;
void main() {
    // 1 pixel is 2/128 = 1/64 in normalized device coordinates
    float h = float(4 + 4 * (gl_PrimitiveIDIn % 4)) / 64.0;
    vec4 c = gl_in[0].gl_Position;
    for (int k = 0; k < 4; k++) {
        vec2 corner = vec2(float(k & 1), float(k >> 1)) * 2.0 - 1.0;
        gl_Position = vec4(c.xy + corner * h, 0.0, 1.0);
        g_colour = vec4(v_colour[0], float(16 * gl_PrimitiveIDIn) / 255.0, 1.0);
        EmitVertex();
    }
    EndPrimitive();
}
