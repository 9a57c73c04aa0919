#version 450
layout(location = 0) out vec4 colour;
void main() {
    const vec4 palette[4] = vec4[4](vec4(252.0, 0.0, 0.0, 255.0), vec4(0.0, 252.0, 0.0, 255.0),
                                    vec4(0.0, 0.0, 252.0, 255.0), vec4(252.0, 252.0, 252.0, 255.0));
    if (int(gl_FragCoord.y) < 64) {
        colour = palette[gl_SampleID] / 255.0;
    } else {
        colour = vec4(252.0, 128.0, 0.0, 255.0) / 255.0;
    }
}
