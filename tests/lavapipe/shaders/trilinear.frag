#version 450
// (1)/(8) Trilinear minification of a mip chain whose levels each have their own colour.
// The tiling grows exponentially down the image (LOD about -1 at the top to about 6.6 at the bottom)
// and the pattern is rotated, so LOD varies continuously and the footprint is not axis-aligned.
// pc.shift (in level-0 texels) moves the coordinate; 0 for the reference images.
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) uniform sampler2D tex;   // 64x64, 7 levels
layout(push_constant) uniform Push { vec2 shift; } pc;
void main() {
    vec2 p = gl_FragCoord.xy / 64.0;                  // exact: (i + 0.5) / 64
    float tiles = exp2(p.y * 6.0 - 1.0);
    mat2 r = mat2(0.8, 0.6, -0.6, 0.8);               // rotation by ~36.87 degrees
    vec2 uv = r * (p - 0.5) * tiles + pc.shift / 64.0;
    color = texture(tex, uv);
}
