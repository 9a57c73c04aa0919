#version 450
layout(location = 0) out vec4 colour;
void main() {
    ivec2 px = ivec2(gl_FragCoord.xy) & ~7;
    colour = vec4(float(100 + 100 * gl_PrimitiveID), float(px.x), float(px.y), 255.0) / 255.0;
}
