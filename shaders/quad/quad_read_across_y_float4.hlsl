// QuadReadAcrossY on float4: lane i of a quad (0 1 / 2 3) receives the value of lane i ^ 2.
// The export function is the one compilers test; main wraps it as a pixel shader.
export float4 fn(float4 p1) { return QuadReadAcrossY(p1); }

nointerpolation float4 main(float4 pos : SV_Position, nointerpolation float4 v : TEXCOORD0) : SV_Target {
    return fn(v);
}
