#version 450
// Sampling cost, same work on lavapipe and quadstep: every pixel of a 512x512 frame takes N
// samples of one kind (N = 0 and N = 16 builds; cost per sample = (t16 - t0) / (16 * 512^2)).
// Coordinates come from gl_FragCoord, so the LOD is the same at every pixel; SCALE sets it:
// texels per pixel = 64 * SCALE / 512 for the 64x64 textures.
layout(location = 0) out vec4 color;
#if defined(CUBE)
layout(set = 0, binding = 0) uniform samplerCube tex;
#elif defined(DREF)
layout(set = 0, binding = 0) uniform sampler2DShadow tex;
#else
layout(set = 0, binding = 0) uniform sampler2D tex;
#endif
void main() {
    vec2 p = gl_FragCoord.xy / 512.0;
    vec4 acc = vec4(0.0);
    for (int i = 0; i < N; i++) {
        vec2 uv = p * SCALE + vec2(float(i) * 0.0137, float(i) * 0.0071);
#if defined(CUBE)
        acc += texture(tex, vec3(fract(uv) * 2.0 - 1.0, 1.0));
#elif defined(DREF)
        acc += vec4(texture(tex, vec3(uv, 0.5)));
#elif defined(GATHER)
        acc += textureGather(tex, uv, 1);
#else
        acc += texture(tex, uv);
#endif
    }
    color = acc * (1.0 / float(max(N, 1)));
}
