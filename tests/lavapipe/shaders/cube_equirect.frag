#version 450
// (3) Cube map seen through an equirectangular projection of the whole sphere (128x64):
// longitude along x, latitude along y, so every face, edge and corner is crossed.
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) uniform samplerCube tex;  // 8x8 faces, LINEAR
void main() {
    vec2 p = gl_FragCoord.xy / vec2(128.0, 64.0);
    float lon = (p.x * 2.0 - 1.0) * 3.14159265;
    float lat = (0.5 - p.y) * 3.14159265;
    vec3 d = vec3(cos(lat) * cos(lon), sin(lat), cos(lat) * sin(lon));
    color = textureLod(tex, d, 0.0);
}
