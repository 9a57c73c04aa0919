#version 450
#define LAVAPIPE_TWIN 1
#ifndef LAVAPIPE_TWIN
#extension GL_ARB_sparse_texture_clamp : require
#endif
layout(set = 0, binding = 0) uniform sampler2DShadow shadow_map;
layout(location = 0) out vec4 color;
void main() {
    ivec2 px = ivec2(gl_FragCoord.xy);
    ivec2 panel = px >> 5;
    ivec2 local = px & 31;
    vec2 uv = (vec2(local) + 0.5) / 32.0;
    vec3 p = vec3(uv, 0.25 + 0.625 * uv.x);
    vec2 g0 = vec2(1.0 / 32.0, 0.0), g1 = vec2(0.0, 1.0 / 32.0);
    float r;
    // Panels are 32x32, so every quad is inside one panel: each sample below runs in
    // quad-uniform control flow and implicit LODs are well defined.
    switch (panel.y * 4 + panel.x) {
    case 0: r = texture(shadow_map, p); break;
    case 1: r = textureLod(shadow_map, p, 0.0); break;
    case 2: r = textureLod(shadow_map, p, 1.0); break;
    case 3: r = textureLod(shadow_map, p, 2.0); break;
    case 4: r = textureGrad(shadow_map, p, vec2(1.0 / 16.0, 0.0), vec2(0.0, 1.0 / 16.0)); break;
    case 5: r = textureGrad(shadow_map, p, vec2(1.0 / 8.0, 0.0), vec2(0.0, 1.0 / 32.0)); break;
    case 6: r = texture(shadow_map, p, 1.0); break;
    case 7: r = texture(shadow_map, p, 2.0); break;
    case 8: r = textureOffset(shadow_map, p, ivec2(4, -3)); break;
    case 9: r = textureLodOffset(shadow_map, p, 1.0, ivec2(-4, 2)); break;
    case 10: r = textureGradOffset(shadow_map, p, vec2(1.0 / 16.0, 0.0), vec2(0.0, 1.0 / 16.0), ivec2(2, 2)); break;
    case 11: r = textureOffset(shadow_map, p, ivec2(-6, 5), 1.0); break;
#ifndef LAVAPIPE_TWIN
    case 12: r = textureClampARB(shadow_map, p, 1.0); break;
    case 13: r = textureGradClampARB(shadow_map, p, g0, g1, 2.0); break;
    case 14: r = textureOffsetClampARB(shadow_map, p, ivec2(4, -3), 1.0); break;
    default: r = textureClampARB(shadow_map, p, 2.0, -1.0); break;
#else
    case 12: r = textureLod(shadow_map, p, 1.0); break;
    case 13: r = textureLod(shadow_map, p, 2.0); break;
    case 14: r = textureLodOffset(shadow_map, p, 1.0, ivec2(4, -3)); break;
    default: r = textureLod(shadow_map, p, 2.0); break;
#endif
    }
    // Channel differences are multiples of 64 and PCF weights multiples of 1/64 here, so no
    // colour lands halfway between two 8-bit values.
    vec3 lit = vec3(255.0, 240.0, 200.0) / 255.0;
    vec3 dark = vec3(63.0, 48.0, 72.0) / 255.0;
    vec3 c = mix(dark, lit, r);
    if (local.x < 2 || local.y < 2) {
        c = vec3(16.0, 16.0, 16.0) / 255.0;
    }
    color = vec4(c, 1.0);
}
