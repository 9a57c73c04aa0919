#version 450
// Every invocation takes its own path through nested loops with break/continue, a switch
// with fallthrough and an early return; tests/compute_glsl.rs computes the expected value of
// each invocation with a plain Rust transcription of this function.
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Out { uint v[]; } outb;

uint f(uint id) {
    uint acc = id;
    for (uint i = 0u; i < (id % 7u) + 1u; i++) {
        if ((acc & 1u) == 1u) { acc = acc * 3u + 1u; continue; }
        for (uint j = 0u; j < 5u; j++) {
            if (j == (id % 4u)) break;
            acc += j * i;
        }
        if (acc > 200u) break;
        acc = acc / 2u + i;
    }
    switch (id % 5u) {
        case 0u: acc += 1u;
        case 1u: acc += 10u; break;      // 0 falls through into 1
        case 2u: return acc ^ 0xffu;     // early return
        default: acc *= 2u;
    }
    return acc;
}

void main() {
    uint id = gl_GlobalInvocationID.x;
    outb.v[id] = f(id);
}
