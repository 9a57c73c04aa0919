//! Semantic tests of the lowering through a deliberately naive, single-lane IR evaluator written
//! only for these tests (the real interpreter lives in `exec`, written separately). Shaders read
//! an input buffer (binding 0) and write an output buffer (binding 1); expected values are
//! computed by hand or with textbook formulas in f64.

use std::collections::HashMap;

use approx::abs_diff_eq;

use super::tests::{asm, glsl};
use super::*;
use crate::ir::{BinaryOp, ConvOp, Inst, ScalarTy, Space, Terminator, TernaryOp, UnaryOp};

/// Runs a shader for one lane with buffers given per binding; returns the buffers.
fn run(sh: &ir::Shader, mut bufs: HashMap<u32, Vec<u8>>) -> HashMap<u32, Vec<u8>> {
    let f = &sh.body;
    let mut r = vec![0u64; f.regs.len()];
    for (reg, c) in &f.consts {
        r[*reg as usize] = c.bits;
    }
    let mut local = vec![0u32; sh.local_words as usize + 8];
    let binding = |slot: u32| sh.resources[slot as usize].binding;
    let fv = |x: u64| f32::from_bits(x as u32);
    let fb = |x: f32| x.to_bits() as u64;
    let mut block = 0usize;
    let mut steps = 0;
    loop {
        let b = &f.blocks[block];
        for inst in &b.insts {
            match inst {
                Inst::Source { .. } => {}
                Inst::Unary { op, ty, dst, a } => {
                    let x = r[*a as usize];
                    assert!(matches!(ty, ScalarTy::F32 | ScalarTy::I32 | ScalarTy::Bool));
                    r[*dst as usize] = match op {
                        UnaryOp::Mov => x,
                        UnaryOp::FNeg => fb(-fv(x)),
                        UnaryOp::SNeg => (x as u32).wrapping_neg() as u64,
                        UnaryOp::Not => !x & 0xffff_ffff,
                        UnaryOp::LogicalNot => (x == 0) as u64,
                        UnaryOp::FAbs => fb(fv(x).abs()),
                        UnaryOp::Sqrt => fb(fv(x).sqrt()),
                        UnaryOp::InverseSqrt => fb(1.0 / fv(x).sqrt()),
                        UnaryOp::Floor => fb(fv(x).floor()),
                        UnaryOp::Trunc => fb(fv(x).trunc()),
                        other => panic!("eval: unary {other:?}"),
                    };
                }
                Inst::Binary { op, ty, dst, a, b } => {
                    let (x, y) = (r[*a as usize], r[*b as usize]);
                    let (xi, yi) = (x as u32 as i32, y as u32 as i32);
                    assert!(matches!(ty, ScalarTy::F32 | ScalarTy::I32 | ScalarTy::Bool));
                    use BinaryOp as B;
                    r[*dst as usize] = match op {
                        B::FAdd => fb(fv(x) + fv(y)),
                        B::FSub => fb(fv(x) - fv(y)),
                        B::FMul => fb(fv(x) * fv(y)),
                        B::FDiv => fb(fv(x) / fv(y)),
                        B::IAdd => (x as u32).wrapping_add(y as u32) as u64,
                        B::ISub => (x as u32).wrapping_sub(y as u32) as u64,
                        B::IMul => (x as u32).wrapping_mul(y as u32) as u64,
                        B::SDiv => xi.wrapping_div(yi) as u32 as u64,
                        B::And => x & y,
                        B::Or => x | y,
                        B::Xor => x ^ y,
                        B::Shl => ((x as u32) << (y as u32 & 31)) as u64,
                        B::ShrL => ((x as u32) >> (y as u32 & 31)) as u64,
                        B::LogicalAnd => (x != 0 && y != 0) as u64,
                        B::LogicalOr => (x != 0 || y != 0) as u64,
                        B::FOrdLt => (fv(x) < fv(y)) as u64,
                        B::FOrdGt => (fv(x) > fv(y)) as u64,
                        B::FOrdLe => (fv(x) <= fv(y)) as u64,
                        B::FOrdGe => (fv(x) >= fv(y)) as u64,
                        B::SLt => (xi < yi) as u64,
                        B::SGt => (xi > yi) as u64,
                        B::SLe => (xi <= yi) as u64,
                        B::SGe => (xi >= yi) as u64,
                        B::ULt => ((x as u32) < (y as u32)) as u64,
                        B::IEq => (x as u32 == y as u32) as u64,
                        B::INe => (x as u32 != y as u32) as u64,
                        B::FMin => fb(fv(x).min(fv(y))),
                        B::FMax => fb(fv(x).max(fv(y))),
                        other => panic!("eval: binary {other:?}"),
                    };
                }
                Inst::Ternary {
                    op, dst, a, b, c, ..
                } => {
                    let (x, y, z) = (r[*a as usize], r[*b as usize], r[*c as usize]);
                    r[*dst as usize] = match op {
                        TernaryOp::Select => {
                            if x != 0 {
                                y
                            } else {
                                z
                            }
                        }
                        TernaryOp::Fma => fb(fv(x).mul_add(fv(y), fv(z))),
                        TernaryOp::FClamp => fb(fv(x).max(fv(y)).min(fv(z))),
                        other => panic!("eval: ternary {other:?}"),
                    };
                }
                Inst::Convert {
                    op,
                    from,
                    to,
                    dst,
                    a,
                } => {
                    let x = r[*a as usize];
                    r[*dst as usize] = match (op, from, to) {
                        (ConvOp::SToF, ScalarTy::I32, ScalarTy::F32) => fb(x as u32 as i32 as f32),
                        (ConvOp::UToF, ScalarTy::I32, ScalarTy::F32) => fb(x as u32 as f32),
                        (ConvOp::FToS, ScalarTy::F32, ScalarTy::I32) => fv(x) as i32 as u32 as u64,
                        (ConvOp::Bitcast, _, _) => x,
                        other => panic!("eval: convert {other:?}"),
                    };
                }
                Inst::Load { ty, dst, ptr } => {
                    let addr = r[ptr.addr as usize] as u32 as usize;
                    assert!(ty.bits() == 32, "eval: {ty:?} load");
                    r[*dst as usize] = match ptr.space {
                        Space::Local => local[addr] as u64,
                        Space::Buffer { slot, index: None } => {
                            let buf = &bufs[&binding(slot)];
                            u32::from_le_bytes(buf[addr..addr + 4].try_into().unwrap()) as u64
                        }
                        other => panic!("eval: load from {other:?}"),
                    };
                }
                Inst::Store { ty, ptr, src } => {
                    let addr = r[ptr.addr as usize] as u32 as usize;
                    assert!(ty.bits() == 32, "eval: {ty:?} store");
                    let v = r[*src as usize] as u32;
                    match ptr.space {
                        Space::Local => local[addr] = v,
                        Space::Buffer { slot, index: None } => {
                            let buf = bufs.get_mut(&binding(slot)).unwrap();
                            buf[addr..addr + 4].copy_from_slice(&v.to_le_bytes());
                        }
                        other => panic!("eval: store to {other:?}"),
                    }
                }
                other => panic!("eval: {other:?}"),
            }
        }
        steps += 1;
        assert!(steps < 100_000, "eval: runaway loop");
        block = match &b.term {
            Terminator::Jump(t) => *t as usize,
            Terminator::Branch {
                cond,
                if_true,
                if_false,
            } => {
                if r[*cond as usize] != 0 {
                    *if_true as usize
                } else {
                    *if_false as usize
                }
            }
            Terminator::Switch {
                sel,
                cases,
                default,
                ..
            } => {
                let v = r[*sel as usize];
                cases
                    .iter()
                    .find(|(c, _)| *c == v)
                    .map(|(_, b)| *b)
                    .unwrap_or(*default) as usize
            }
            Terminator::Return | Terminator::Kill { .. } => return bufs,
            Terminator::Unreachable => panic!("eval: unreachable reached"),
        };
    }
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn read_f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Compiles a compute shader, runs it with `input` at binding 0 and `n_out` zeroed floats at
/// binding 1, returns binding 1.
fn compute(src: &str, input: &[f32], n_out: usize) -> Option<Vec<f32>> {
    let bytes = glsl("comp", src)?;
    Some(run_bytes(&bytes, input, n_out))
}

fn run_bytes(bytes: &[u8], input: &[f32], n_out: usize) -> Vec<f32> {
    let m = Module::from_bytes(bytes).unwrap();
    let sh = m.lower("main", None, &SpecConstants::new()).unwrap();
    ir::verify(&sh).unwrap();
    let mut bufs = HashMap::new();
    bufs.insert(0, f32s(input));
    bufs.insert(1, vec![0; n_out * 4]);
    let out = run(&sh, bufs);
    read_f32s(&out[&1])
}

fn close(a: &[f32], b: &[f64]) {
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        assert!(
            abs_diff_eq!(*x as f64, *y, epsilon = 1e-4 * (1.0 + y.abs())),
            "got {a:?}, expected {b:?}"
        );
    }
}

const HEADER: &str = r#"#version 450
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer I { float v[]; } i_;
layout(std430, binding = 1) buffer O { float v[]; } o_;
"#;

#[test]
fn matrix_inverse_determinant_and_products() {
    let src = format!(
        "{HEADER}
void main() {{
    mat3 m = mat3(i_.v[0], i_.v[1], i_.v[2], i_.v[3], i_.v[4], i_.v[5], i_.v[6], i_.v[7], i_.v[8]);
    mat3 inv = inverse(m);
    for (int c = 0; c < 3; ++c) for (int r = 0; r < 3; ++r) o_.v[c * 3 + r] = inv[c][r];
    o_.v[9] = determinant(m);
    vec3 x = vec3(1.0, 2.0, 3.0);
    vec3 y = m * x;
    o_.v[10] = y.x; o_.v[11] = y.y; o_.v[12] = y.z;
    vec3 z = x * m;
    o_.v[13] = z.x; o_.v[14] = z.y; o_.v[15] = z.z;
}}"
    );
    // Column-major input: columns (2,0,1), (1,3,0), (0,1,4).
    let input = [2.0, 0.0, 1.0, 1.0, 3.0, 0.0, 0.0, 1.0, 4.0];
    let Some(out) = compute(&src, &input, 16) else {
        return;
    };
    // Reference: a[r][c] from the columns; determinant by the rule of Sarrus, inverse by
    // Gauss-Jordan elimination in f64.
    let a = |r: usize, c: usize| input[c * 3 + r] as f64;
    let det =
        a(0, 0) * a(1, 1) * a(2, 2) + a(0, 1) * a(1, 2) * a(2, 0) + a(0, 2) * a(1, 0) * a(2, 1)
            - a(0, 2) * a(1, 1) * a(2, 0)
            - a(0, 0) * a(1, 2) * a(2, 1)
            - a(0, 1) * a(1, 0) * a(2, 2);
    let mut g = [[0.0f64; 6]; 3];
    for (r, row) in g.iter_mut().enumerate() {
        for (c, v) in row.iter_mut().take(3).enumerate() {
            *v = a(r, c);
        }
        row[3 + r] = 1.0;
    }
    for p in 0..3 {
        let piv = (p..3)
            .max_by(|&x, &y| g[x][p].abs().total_cmp(&g[y][p].abs()))
            .unwrap();
        g.swap(p, piv);
        let d = g[p][p];
        for v in g[p].iter_mut() {
            *v /= d;
        }
        for r in 0..3 {
            if r != p {
                let f = g[r][p];
                let row_p = g[p];
                for (v, pv) in g[r].iter_mut().zip(row_p) {
                    *v -= f * pv;
                }
            }
        }
    }
    let mut want = Vec::new();
    for c in 0..3 {
        for row in &g {
            want.push(row[3 + c]);
        }
    }
    want.push(det);
    let x = [1.0, 2.0, 3.0];
    for r in 0..3 {
        want.push((0..3).map(|c| a(r, c) * x[c]).sum());
    }
    for c in 0..3 {
        want.push((0..3).map(|r| x[r] * a(r, c)).sum());
    }
    close(&out, &want);
}

#[test]
fn matrix_inverse_3x3_by_hand_within_the_cts_precision() {
    // The first two matrices of the CTS script
    // builtin/precision/square_matrix/inverse_highp_mat_3x3.amber, column-major.
    let src = format!(
        "{HEADER}
void main() {{
    for (int k = 0; k < 2; ++k) {{
        int b = 9 * k;
        mat3 m = mat3(i_.v[b], i_.v[b + 1], i_.v[b + 2], i_.v[b + 3], i_.v[b + 4],
                      i_.v[b + 5], i_.v[b + 6], i_.v[b + 7], i_.v[b + 8]);
        mat3 inv = inverse(m);
        for (int c = 0; c < 3; ++c) for (int r = 0; r < 3; ++r) o_.v[b + c * 3 + r] = inv[c][r];
    }}
}}"
    );
    let input = [
        1.0, 5.0, 3.0, 2.0, 4.0, 7.0, 4.0, 6.0, 2.0, //
        1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0,
    ];
    let Some(out) = compute(&src, &input, 18) else {
        return;
    };
    // By hand. Rows of the first matrix: (1 2 4), (5 4 6), (3 7 2); det = 1 (8 - 42)
    // - 2 (10 - 18) + 4 (35 - 12) = 74. Cofactors C[r][c]: row 0 (-34, 8, 23), row 1
    // (24, -10, -1), row 2 (-4, 14, -6); inverse[r][c] = C[c][r] / 74, so column c of the
    // inverse is row c of the cofactors over 74.
    let cof = [-34.0, 8.0, 23.0, 24.0, -10.0, -1.0, -4.0, 14.0, -6.0];
    for (k, c) in cof.iter().enumerate() {
        let want = c / 74.0;
        // The CTS allows 2^-24 for results in [0.25, 0.5) and the same absolute error on the
        // smaller ones of this matrix.
        assert!(
            abs_diff_eq!(out[k] as f64, want, epsilon = 2f64.powi(-24)),
            "inverse[{}][{}] = {}, want {want}",
            k / 3,
            k % 3,
            out[k]
        );
    }
    // Rows (1 0 1), (0 0 1), (1 1 1); det = -1. Cofactors: row 0 (-1, 1, 0), row 1 (1, 0, -1),
    // row 2 (0, -1, 0); over -1, exactly.
    assert_eq!(out[9..], [1.0, -1.0, 0.0, -1.0, 0.0, 1.0, 0.0, 1.0, 0.0]);
}

#[test]
fn geometric_functions() {
    let src = format!(
        "{HEADER}
void main() {{
    vec3 a = vec3(i_.v[0], i_.v[1], i_.v[2]);
    vec3 b = vec3(i_.v[3], i_.v[4], i_.v[5]);
    vec3 c = cross(a, b);
    vec3 n = normalize(b);
    vec3 r = reflect(a, n);
    vec3 t = refract(normalize(a), n, 0.5);
    o_.v[0] = c.x; o_.v[1] = c.y; o_.v[2] = c.z;
    o_.v[3] = length(a); o_.v[4] = distance(a, b); o_.v[5] = dot(a, b);
    o_.v[6] = r.x; o_.v[7] = r.y; o_.v[8] = r.z;
    o_.v[9] = t.x; o_.v[10] = t.y; o_.v[11] = t.z;
    vec3 f = faceforward(b, a, b);
    o_.v[12] = f.x; o_.v[13] = f.y; o_.v[14] = f.z;
}}"
    );
    let (a, b) = ([1.0f64, 2.0, 3.0], [0.0f64, 1.0, 1.0]);
    let input: Vec<f32> = a.iter().chain(&b).map(|&x| x as f32).collect();
    let Some(out) = compute(&src, &input, 15) else {
        return;
    };
    let dot = |x: [f64; 3], y: [f64; 3]| x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
    let len = |x: [f64; 3]| dot(x, x).sqrt();
    let scale = |x: [f64; 3], s: f64| [x[0] * s, x[1] * s, x[2] * s];
    let sub = |x: [f64; 3], y: [f64; 3]| [x[0] - y[0], x[1] - y[1], x[2] - y[2]];
    let c = [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ];
    let n = scale(b, 1.0 / len(b));
    let r = sub(a, scale(n, 2.0 * dot(n, a)));
    let an = scale(a, 1.0 / len(a));
    let (eta, d) = (0.5, dot(n, an));
    let k = 1.0 - eta * eta * (1.0 - d * d);
    let t = sub(scale(an, eta), scale(n, eta * d + k.sqrt()));
    let f = if dot(b, a) < 0.0 { b } else { scale(b, -1.0) };
    let mut want = c.to_vec();
    want.extend([len(a), len(sub(a, b)), dot(a, b)]);
    want.extend(r);
    want.extend(t);
    want.extend(f);
    close(&out, &want);
}

#[test]
fn early_returns_switch_and_loops() {
    let src = format!(
        "{HEADER}
float f(float x) {{
    if (x > 1.0) return 10.0;
    for (int k = 0; k < 3; ++k) {{ if (x < -5.0) return -1.0; x += 1.0; }}
    return x;
}}
void main() {{
    o_.v[0] = f(i_.v[0]);
    o_.v[1] = f(i_.v[1]);
    o_.v[2] = f(i_.v[2]);
    float acc = 0.0;
    for (int k = 0; k < 5; ++k) {{
        switch (k) {{
            case 0: acc += 1.0;
            case 1: acc += 10.0; break;
            case 3: acc += 100.0; break;
            default: acc += 1000.0;
        }}
    }}
    o_.v[3] = acc;
}}"
    );
    let Some(out) = compute(&src, &[2.0, 0.5, -7.0], 4) else {
        return;
    };
    // f(2) = 10; f(0.5) = 3.5; f(-7) = -1. Switch: k=0: 11, k=1: 10, k=2: 1000, k=3: 100,
    // k=4: 1000 → 2121.
    close(&out, &[10.0, 3.5, -1.0, 2121.0]);
}

#[test]
fn phi_swap_is_a_parallel_copy() {
    // a, b = b, a three times through phis that read each other: (1, 2) → (2, 1).
    let src = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
               OpDecorate %ra ArrayStride 4
               OpDecorate %buf Block
               OpMemberDecorate %buf 0 Offset 0
               OpDecorate %in DescriptorSet 0
               OpDecorate %in Binding 0
               OpDecorate %out DescriptorSet 0
               OpDecorate %out Binding 1
       %void = OpTypeVoid
         %fv = OpTypeFunction %void
      %float = OpTypeFloat 32
        %int = OpTypeInt 32 1
       %bool = OpTypeBool
         %ra = OpTypeRuntimeArray %float
        %buf = OpTypeStruct %ra
       %pbuf = OpTypePointer StorageBuffer %buf
         %pf = OpTypePointer StorageBuffer %float
         %in = OpVariable %pbuf StorageBuffer
        %out = OpVariable %pbuf StorageBuffer
         %c0 = OpConstant %int 0
         %c1 = OpConstant %int 1
         %c3 = OpConstant %int 3
         %f1 = OpConstant %float 1
         %f2 = OpConstant %float 2
       %main = OpFunction %void None %fv
      %entry = OpLabel
               OpBranch %loop
       %loop = OpLabel
          %a = OpPhi %float %f1 %entry %b %body
          %b = OpPhi %float %f2 %entry %a %body
          %i = OpPhi %int %c0 %entry %inext %body
         %lt = OpSLessThan %bool %i %c3
               OpLoopMerge %exit %body None
               OpBranchConditional %lt %body %exit
       %body = OpLabel
      %inext = OpIAdd %int %i %c1
               OpBranch %loop
       %exit = OpLabel
         %p0 = OpAccessChain %pf %out %c0 %c0
               OpStore %p0 %a
         %p1 = OpAccessChain %pf %out %c0 %c1
               OpStore %p1 %b
               OpReturn
               OpFunctionEnd
"#;
    let Some(b) = asm(src) else { return };
    let out = run_bytes(&b, &[0.0], 2);
    assert_eq!(out, vec![2.0, 1.0]);
}

#[test]
fn row_major_matrix_and_struct_copies() {
    // row_major mat2x3 (2 columns of 3 rows) in std430: rows are vec2 with stride 8 (MatrixStride
    // 8), so m[c][r] sits at byte 8 * r + 4 * c.
    let src = r#"#version 450
layout(local_size_x = 1) in;
struct S { float x; vec2 y; };
layout(std430, binding = 0) buffer I { layout(row_major) mat2x3 m; S s[2]; } i_;
layout(std430, binding = 1) buffer O { float v[]; } o_;
void main() {
    mat2x3 m = i_.m;
    o_.v[0] = m[1][2];
    o_.v[1] = i_.m[0][1];
    S t = i_.s[1];
    o_.v[2] = t.x + t.y.y;
    int k = int(i_.s[0].x);
    o_.v[3] = i_.m[k][2];
}
"#;
    // Bytes 0..24: the matrix rows (r0: m00 m10, r1: m01 m11, r2: m02 m12).
    // s[] starts at 24 (align 8), S stride 16: s[0] = {x@24, y@32}, s[1] = {x@40, y@48}.
    let mut input = vec![0.0f32; 14];
    // m[c][r] = 10 * c + r + 1
    for c in 0..2 {
        for r in 0..3 {
            input[(8 * r + 4 * c) / 4] = (10 * c + r + 1) as f32;
        }
    }
    input[6] = 1.0; // s[0].x
    input[10] = 5.0; // s[1].x
    input[13] = 7.0; // s[1].y.y
    let Some(out) = compute(src, &input, 4) else {
        return;
    };
    // m[1][2] = 13, m[0][1] = 2, t.x + t.y.y = 12, m[1][2] (k = 1) = 13.
    assert_eq!(out, vec![13.0, 2.0, 12.0, 13.0]);
}

#[test]
fn dynamic_indexing_of_values_and_locals() {
    let src = format!(
        "{HEADER}
struct S {{ float a; vec3 b; }};
void main() {{
    int k = int(i_.v[0]);
    int j = int(i_.v[1]);
    float arr[5];
    for (int n = 0; n < 5; ++n) arr[n] = float(n * n);
    vec4 v = vec4(i_.v[2], i_.v[3], i_.v[4], i_.v[5]);
    v[k] = 100.0;
    S s = S(1.0, vec3(2.0, 3.0, 4.0));
    s.b.y = arr[j];
    o_.v[0] = arr[k];
    o_.v[1] = (v + vec4(1.0))[j];
    o_.v[2] = v.x + v.y + v.z + v.w;
    o_.v[3] = s.b.y + s.a;
}}"
    );
    let Some(out) = compute(&src, &[2.0, 3.0, 10.0, 20.0, 30.0, 40.0], 4) else {
        return;
    };
    // arr = [0, 1, 4, 9, 16]; k = 2, j = 3. v = (10, 20, 100, 40): (v + 1)[3] = 41,
    // sum = 170; s.b.y = arr[3] = 9, + 1.
    assert_eq!(out, vec![4.0, 41.0, 170.0, 10.0]);
}
