// The expected results of tests/tessellator.rs: runs the Direct3D 11 reference tessellator
// (Mesa's copy, src/gallium/auxiliary/tessellator, MIT, which llvmpipe and lavapipe run) on
// the cases read from stdin, one a line:
//   domain(t|q|i) spacing(e|v|o) output(p|l|cw|ccw) outer0 outer1 outer2 outer3 inner0 inner1
// and prints per case: the point count, the index count, and an FNV-1a 64 hash of every
// point's u and v bits (little endian) followed by every index (as u32, little endian).
// Built by gen.sh.
#include "tessellator.hpp"
#include <cstdio>
#include <cstring>
#include <cstdint>
int main() {
    char dom[8], sp[8], out[8]; float o[4], in[2];
    CHWTessellator t;
    while (scanf("%7s %7s %7s %f %f %f %f %f %f", dom, sp, out, &o[0], &o[1], &o[2], &o[3], &in[0], &in[1]) == 9) {
        PIPE_TESSELLATOR_PARTITIONING part = sp[0]=='e' ? PIPE_TESSELLATOR_PARTITIONING_INTEGER : sp[0]=='v' ? PIPE_TESSELLATOR_PARTITIONING_FRACTIONAL_EVEN : PIPE_TESSELLATOR_PARTITIONING_FRACTIONAL_ODD;
        PIPE_TESSELLATOR_OUTPUT_PRIMITIVE op = out[0]=='p' ? PIPE_TESSELLATOR_OUTPUT_POINT : out[0]=='l' ? PIPE_TESSELLATOR_OUTPUT_LINE : strcmp(out,"cw")==0 ? PIPE_TESSELLATOR_OUTPUT_TRIANGLE_CW : PIPE_TESSELLATOR_OUTPUT_TRIANGLE_CCW;
        t.Init(part, op);
        if (dom[0]=='t') t.TessellateTriDomain(o[0],o[1],o[2],in[0]);
        else if (dom[0]=='q') t.TessellateQuadDomain(o[0],o[1],o[2],o[3],in[0],in[1]);
        else t.TessellateIsoLineDomain(o[0],o[1]);
        int np = t.GetPointCount(), ni = t.GetIndexCount();
        DOMAIN_POINT *p = t.GetPoints(); int *ix = t.GetIndices();
        uint64_t h = 0xcbf29ce484222325ull;
        auto word = [&](uint32_t w) {
            for (int b = 0; b < 4; b++) { h ^= (w >> (8 * b)) & 0xff; h *= 0x100000001b3ull; }
        };
        for (int k = 0; k < np; k++) { uint32_t a, b; memcpy(&a, &p[k].u, 4); memcpy(&b, &p[k].v, 4); word(a); word(b); }
        for (int k = 0; k < ni; k++) word((uint32_t)ix[k]);
        printf("%d %d %016llx\n", np, ni, (unsigned long long)h);
    }
}
