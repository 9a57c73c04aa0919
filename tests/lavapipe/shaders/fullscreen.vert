#version 450
// Fullscreen triangle from gl_VertexIndex (3 vertices, no vertex buffer, no varyings).
// Fragment shaders derive their coordinates from gl_FragCoord, which is exact, so
// interpolation precision plays no part in the texture scenes.
void main() {
    vec2 p = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);
    gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
