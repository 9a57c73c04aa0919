#version 450
// inverse() and determinant() of f16 matrices (GLSL.std.450 MatrixInverse, Determinant);
// tests/compute_glsl.rs holds the results to the exact inverse and determinant of the
// inputs, rounded to f16.
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 1) in;
layout(std430, set = 0, binding = 0) buffer In { f16mat3 a3; f16mat4 a4; } inb;
layout(std430, set = 0, binding = 1) buffer Out {
    f16mat3 inv3;
    f16mat4 inv4;
    float16_t det3;
    float16_t det4;
} outb;

void main() {
    outb.inv3 = inverse(inb.a3);
    outb.inv4 = inverse(inb.a4);
    outb.det3 = determinant(inb.a3);
    outb.det4 = determinant(inb.a4);
}
