// QuadReadAcrossY on int4: lane i of a quad (0 1 / 2 3) receives the value of lane i ^ 2.
// The export function is the one compilers test; main wraps it as a pixel shader.
export int4 fn(int4 p1) { return QuadReadAcrossY(p1); }

nointerpolation int4 main(float4 pos : SV_Position, nointerpolation int4 v : TEXCOORD0) : SV_Target {
    return fn(v);
}
