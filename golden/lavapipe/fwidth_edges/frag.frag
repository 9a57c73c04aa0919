#version 450
layout(location = 0) in vec4 v;       // x: stripe coordinate (affine)
layout(location = 1) flat in vec4 c;  // yz: ring centre (a pixel centre), w: ring scale 2^-n
layout(location = 0) out vec4 color;
void main() {
    vec2 d = gl_FragCoord.xy - c.yz;  // integers: exact
    float ring = floor(sqrt(dot(d, d)) * c.w);  // sqrt is correctly rounded
    float id = 2.0 * ring + (d.x * d.y < 0.0 ? 1.0 : 0.0);
    float e = fwidthFine(id);
    int k = (int(id) + int(c.y)) & 3;
    // exact k/255 colours, so only the antialiased stripe edges carry rounding
    vec3 palette[4] = vec3[4](vec3(230, 128, 51), vec3(77, 179, 230), vec3(230, 204, 77),
                              vec3(128, 230, 128));
    float w = fwidth(v.x);
    float stripe = clamp((abs(fract(v.x) - 0.5) - 0.25) / w + 0.5, 0.0, 1.0);
    vec3 col = palette[k] / 255.0 * (0.7 + 0.3 * stripe);
    color = e > 0.0 ? vec4(0.0, 0.0, 0.0, 1.0) : vec4(col, 1.0);
}
