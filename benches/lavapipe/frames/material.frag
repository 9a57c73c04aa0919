#version 450
// A normal-mapped, lit material with a 3x3 PCF shadow: albedo and normal map sampled
// trilinear, the tangent-space normal brought to world space, Blinn-Phong lighting with
// pow, and nine shadow-map comparisons with constant offsets.
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) uniform sampler2D albedo;           // RGBA8 256x256, 9 levels
layout(set = 0, binding = 1) uniform sampler2D normal_map;       // RGBA8 256x256, 9 levels
layout(set = 0, binding = 2) uniform sampler2DShadow shadow_map; // D32 512x512, LINEAR, LESS_OR_EQUAL
layout(push_constant) uniform Light {
    vec4 light_dir;  // xyz towards the light
    vec4 light_col;  // rgb, w shininess
} pc;

void main() {
    vec2 tuv = uv * 4.0;
    vec3 base = texture(albedo, tuv).rgb;
    vec3 tn = texture(normal_map, tuv).xyz * 2.0 - 1.0;
    // a gently curved surface: tangent frame from the screen position
    vec3 n0 = normalize(vec3((uv - 0.5) * 0.6, 1.0));
    vec3 t = normalize(cross(vec3(0.0, 1.0, 0.0), n0));
    vec3 b = cross(n0, t);
    vec3 n = normalize(mat3(t, b, n0) * tn);
    vec3 l = normalize(pc.light_dir.xyz);
    vec3 v = normalize(vec3(0.5 - uv, 2.0));
    vec3 h = normalize(l + v);
    float diffuse = max(dot(n, l), 0.0);
    float spec = pow(max(dot(n, h), 0.0), pc.light_col.w);
    // shadow: 3x3 PCF around the projected position
    vec3 sc = vec3(uv * 0.9 + 0.05, 0.45 + 0.1 * uv.x);
    float lit = 0.0;
    lit += textureOffset(shadow_map, sc, ivec2(-1, -1));
    lit += textureOffset(shadow_map, sc, ivec2(0, -1));
    lit += textureOffset(shadow_map, sc, ivec2(1, -1));
    lit += textureOffset(shadow_map, sc, ivec2(-1, 0));
    lit += textureOffset(shadow_map, sc, ivec2(0, 0));
    lit += textureOffset(shadow_map, sc, ivec2(1, 0));
    lit += textureOffset(shadow_map, sc, ivec2(-1, 1));
    lit += textureOffset(shadow_map, sc, ivec2(0, 1));
    lit += textureOffset(shadow_map, sc, ivec2(1, 1));
    lit /= 9.0;
    vec3 c = base * (0.15 + diffuse * lit * pc.light_col.rgb) + spec * lit * pc.light_col.rgb;
    color = vec4(c, 1.0);
}
