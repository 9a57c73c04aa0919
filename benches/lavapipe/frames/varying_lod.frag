#version 450
// A receding textured floor: the footprint, and so the LOD, changes from quad to quad and
// between the four scales, so no two neighbouring quads share a level selection.
// Four trilinear texture() calls per pixel.
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) uniform sampler2D albedo; // RGBA8 256x256, 9 levels, trilinear

void main() {
    float depth = 0.04 + uv.y;
    vec2 floor_uv = vec2((uv.x - 0.5) / depth, 1.0 / depth);
    vec4 c = texture(albedo, floor_uv * 0.35);
    c += texture(albedo, floor_uv * 0.61 + vec2(0.3, 0.1));
    c += texture(albedo, floor_uv.yx * 1.13);
    c += texture(albedo, floor_uv * 2.07 + vec2(0.7));
    color = vec4(c.rgb * 0.25, 1.0);
}
