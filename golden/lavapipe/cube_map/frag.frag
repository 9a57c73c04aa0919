#version 450
layout(set = 0, binding = 0) uniform samplerCube env;
layout(location = 0) out vec4 color;
void main() {
    vec2 ndc = gl_FragCoord.xy * (2.0 / 128.0) - 1.0;
    // yaw 40 degrees, pitch -30 degrees (columns of a rotation matrix, written out)
    mat3 rot = mat3(0.76604444, 0.0, -0.64278761,
                    -0.32139381, 0.86602540, -0.38302222,
                    0.55667039, 0.5, 0.66341395);
    vec3 dir;
    float shade = 1.0;
    float r2 = dot(ndc, ndc);
    if (r2 < 0.36) {
        vec2 s = ndc / 0.6;
        vec3 n = vec3(s.x, -s.y, -sqrt(max(0.0, 1.0 - dot(s, s))));
        dir = rot * n;
        shade = 0.35 + 0.65 * -n.z;
    } else {
        dir = rot * vec3(ndc.x, -ndc.y, 0.8);
    }
    color = vec4(textureLod(env, dir, 0.0).rgb * shade, 1.0);
}
