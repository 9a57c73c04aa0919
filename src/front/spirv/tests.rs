//! Unit tests of the SPIR-V front end.
//!
//! Error tests use hand-assembled word arrays (no tools needed). Structural tests compile small
//! GLSL/SPIR-V assembly with `glslangValidator`/`spirv-as` (skipped with a message when absent)
//! and check IR properties whose expected values follow from the spec by hand (component
//! counts, std430 offsets computed from the layout rules, stride arithmetic).

use std::collections::HashMap;

use super::*;
use crate::ir::{BinaryOp, Inst, Reg, ScalarTy, Space, Terminator};

// Test support shared with the integration tests (`tests/common`), one definition each.
#[path = "../../../tests/common/mutate.rs"]
mod mutate;
#[path = "../../../tests/common/tools.rs"]
#[allow(dead_code)] // this crate uses a part of it
mod tools;
use tools::Tool;

// ---- hand-assembled modules ----

fn op(opcode: u32, operands: &[u32]) -> Vec<u32> {
    let mut v = vec![((operands.len() as u32 + 1) << 16) | opcode];
    v.extend_from_slice(operands);
    v
}

/// `"main"` as SPIR-V literal string words.
const MAIN: [u32; 2] = [0x6e69_616d, 0];

/// A minimal valid compute module: returns words. Ids: 1 main, 2 void, 3 fn type, 4 label.
fn minimal() -> Vec<u32> {
    let mut w = vec![parse::MAGIC, 0x0001_0000, 0, 5, 0];
    w.extend(op(17, &[1])); // OpCapability Shader            @5
    w.extend(op(14, &[0, 1])); // OpMemoryModel Logical GLSL450 @7
    w.extend(op(15, &[5, 1, MAIN[0], MAIN[1]])); // OpEntryPoint GLCompute %1 "main" @10
    w.extend(op(16, &[1, 17, 1, 1, 1])); // OpExecutionMode LocalSize 1 1 1 @15
    w.extend(op(19, &[2])); // OpTypeVoid %2                   @21
    w.extend(op(33, &[3, 2])); // OpTypeFunction %3 %2            @23
    w.extend(op(54, &[2, 1, 0, 3])); // OpFunction                 @26
    w.extend(op(248, &[4])); // OpLabel                          @31
    w.extend(op(253, &[])); // OpReturn                          @33
    w.extend(op(56, &[])); // OpFunctionEnd                     @34
    w
}

fn err_of(words: &[u32]) -> crate::Error {
    match Module::load(words) {
        Ok(m) => match m.lower("main", None, &SpecConstants::new()) {
            Ok(_) => panic!("expected an error"),
            Err(e) => e,
        },
        Err(e) => e,
    }
}

#[test]
fn minimal_module_lowers() {
    let m = Module::load(&minimal()).unwrap();
    assert_eq!(m.spirv_version(), (1, 0));
    assert_eq!(
        m.entry_points(),
        vec![("main".to_string(), ir::Stage::Compute)]
    );
    let sh = m.lower("main", None, &SpecConstants::new()).unwrap();
    assert_eq!(sh.workgroup_size, [1, 1, 1]);
    ir::verify(&sh).unwrap();
    // Prologue block jumps to the body, which returns.
    assert!(sh.body.blocks.iter().any(|b| b.term == Terminator::Return));
}

#[test]
fn from_bytes_either_endianness() {
    let w = minimal();
    let le: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
    let be: Vec<u8> = w.iter().flat_map(|x| x.to_be_bytes()).collect();
    assert!(Module::from_bytes(&le).is_ok());
    assert!(Module::from_bytes(&be).is_ok());
    assert!(Module::from_bytes(&le[..le.len() - 2]).is_err());
}

#[test]
fn truncated_module_names_offset() {
    let mut w = minimal();
    w.pop(); // OpFunctionEnd
    w.push((2 << 16) | 56); // claims 2 words, only 1 left
    let e = err_of(&w).to_string();
    assert!(
        e.contains("word offset 34") && e.contains("truncated"),
        "{e}"
    );
    let e = err_of(&w[..3]).to_string();
    assert!(e.contains("truncated header"), "{e}");
}

#[test]
fn bad_magic() {
    let mut w = minimal();
    w[0] = 0x1234_5678;
    let e = err_of(&w).to_string();
    assert!(e.contains("word offset 0") && e.contains("magic"), "{e}");
}

#[test]
fn id_out_of_bound() {
    let mut w = minimal();
    w[25] = 99; // OpTypeFunction return type
    let e = err_of(&w).to_string();
    assert!(
        e.contains("word offset 23") && e.contains("out of bounds"),
        "{e}"
    );
}

#[test]
fn wrong_operand_count() {
    let mut w = minimal();
    // OpTypeVoid with an extra operand: rewrite "OpTypeVoid %2" (2 words) as 3 words by
    // stealing the next instruction's first word slot is not possible; insert instead.
    w.splice(21..23, op(19, &[2, 7]));
    let e = err_of(&w).to_string();
    assert!(
        e.contains("word offset 21") && e.contains("operand count"),
        "{e}"
    );
    let mut w = minimal();
    w.splice(23..26, op(33, &[])); // OpTypeFunction without operands
    let e = err_of(&w).to_string();
    assert!(e.contains("word offset 23") && e.contains("operand"), "{e}");
}

#[test]
fn unsupported_capability() {
    let mut w = minimal();
    w[6] = 6; // Kernel
    let e = err_of(&w);
    assert!(matches!(e, crate::Error::Unsupported(_)));
    let e = e.to_string();
    assert!(e.contains("word offset 5") && e.contains("Kernel"), "{e}");
}

#[test]
fn preserving_float_controls_are_accepted() {
    // OpCapability SignedZeroInfNanPreserve (4466) / DenormPreserve (4464) after Shader, and
    // OpExecutionMode %1 SignedZeroInfNanPreserve (4461) / DenormPreserve (4459) 32 after
    // LocalSize.
    for (cap, mode) in [(4466, 4461), (4464, 4459)] {
        let mut w = minimal();
        w.splice(21..21, op(16, &[1, mode, 32]));
        w.splice(7..7, op(17, &[cap]));
        let m = Module::load(&w).unwrap();
        let sh = m.lower("main", None, &SpecConstants::new()).unwrap();
        ir::verify(&sh).unwrap();
    }
}

#[test]
fn unsupported_opcode() {
    let mut w = minimal();
    // OpTypeEvent %5 (opcode 34) among the types; bump the bound.
    w[3] = 6;
    w.splice(23..23, op(34, &[5]));
    let e = err_of(&w);
    assert!(matches!(e, crate::Error::Unsupported(_)), "{e}");
    let e = e.to_string();
    assert!(
        e.contains("word offset 23") && e.contains("TypeEvent"),
        "{e}"
    );
}

#[test]
fn wrong_kind_of_id() {
    let mut w = minimal();
    // OpFunction's result type is the label id (not a type).
    w[27] = 4;
    let e = err_of(&w).to_string();
    assert!(e.contains("SPIR-V") && e.contains("%4"), "{e}");
}

// ---- fuzz: never panics, never hangs ----

fn fuzz_one(words: &[u32]) {
    if let Ok(m) = Module::load(words) {
        for (name, stage) in m.entry_points() {
            if let Ok(sh) = m.lower(&name, Some(stage), &SpecConstants::new()) {
                let _ = ir::verify(&sh);
            }
        }
    }
}

#[test]
fn fuzz_mutations_never_panic() {
    let mut seeds = vec![minimal()];
    if let Some(b) = glsl("comp", FUZZ_SEED_GLSL) {
        seeds.push(tools::words(&b));
    }
    if let Some(b) = glsl("frag", FUZZ_SEED_FRAG) {
        seeds.push(tools::words(&b));
    }
    println!(
        "fuzz seeds: {:?} words",
        seeds.iter().map(Vec::len).collect::<Vec<_>>()
    );
    let seed = std::env::var("QUADSTEP_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x5eed);
    let mut rng = fastrand::Rng::with_seed(seed);
    let start = std::time::Instant::now();
    let mut runs = 0;
    for seed in &seeds {
        // Every truncation.
        for n in 0..seed.len() {
            fuzz_one(&seed[..n]);
            runs += 1;
        }
        // Random word mutations (values biased towards small ids and opcodes).
        let iters: usize = std::env::var("QUADSTEP_FUZZ_ITERS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(4000);
        for _ in 0..iters {
            let mut w = seed.clone();
            mutate::words(&mut rng, &mut w);
            fuzz_one(&w);
            runs += 1;
        }
    }
    let t = start.elapsed();
    println!("fuzz: {runs} mutated modules in {t:?}");
    assert!(t.as_secs() < 120, "fuzzing took {t:?}");
}

const FUZZ_SEED_GLSL: &str = r#"#version 450
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer B { uint n; vec4 v[]; } b;
shared float s[4];
float f(float x) { return x > 1.0 ? sqrt(x) : x * x; }
void main() {
    uint i = gl_LocalInvocationID.x;
    vec4 acc = vec4(0);
    for (uint k = 0; k < 4; ++k) { acc += b.v[k] * float(k); if (acc.x > 10.0) break; }
    s[i] = f(acc.y);
    barrier();
    switch (i) { case 0: acc.x = s[1]; break; case 1: acc.x = s[2]; break; default: acc.x = 0.0; }
    b.v[i] = acc * mat4(2.0);
    atomicAdd(b.n, 1u);
}
"#;

const FUZZ_SEED_FRAG: &str = r#"#version 450
layout(location = 0) out vec4 o;
layout(location = 0) in vec2 uv;
layout(location = 1) flat in int k;
layout(binding = 0) uniform sampler2D t;
layout(binding = 1) uniform U { mat3 m; vec4 c[4]; } u;
void main() {
    vec4 a = texture(t, uv) + textureLod(t, uv, 1.0) + texelFetch(t, ivec2(uv), k);
    a.xyz = u.m * a.xyz + cross(a.xyz, u.c[k & 3].xyz);
    if (a.w < 0.0) discard;
    o = a * fwidth(uv.x) + vec4(dFdy(uv), inverse(mat2(u.c[0])) * uv);
}
"#;

// ---- tool-based structural tests ----

/// `tool` run on `src` (a scratch file `*.ext`); `None` (after the skip message) when the tool
/// is not installed. The tool must accept the source.
fn compile(tool: Tool, args: &[&str], ext: &str, src: &str) -> Option<Vec<u8>> {
    if !tools::have("front::spirv::tests", &[tool]) {
        return None;
    }
    let bytes = tool.compile(args, ext, src);
    Some(bytes.unwrap_or_else(|e| panic!("{} failed: {e}", tool.program().display())))
}

pub(super) fn glsl(stage: &str, src: &str) -> Option<Vec<u8>> {
    compile(Tool::Glslang, &["-V", "-S", stage], stage, src)
}

pub(super) fn asm(src: &str) -> Option<Vec<u8>> {
    compile(Tool::SpirvAs, &["--target-env", "spv1.3"], "spvasm", src)
}

fn lower_bytes(b: &[u8], spec: &SpecConstants) -> crate::Result<ir::Shader> {
    let m = Module::from_bytes(b)?;
    let (name, stage) = m.entry_points()[0].clone();
    let sh = m.lower(&name, Some(stage), spec)?;
    ir::verify(&sh)?;
    Ok(sh)
}

fn insts(sh: &ir::Shader) -> Vec<&Inst> {
    sh.body.blocks.iter().flat_map(|b| b.insts.iter()).collect()
}

fn consts(sh: &ir::Shader) -> HashMap<Reg, u64> {
    sh.body.consts.iter().map(|(r, c)| (*r, c.bits)).collect()
}

fn count_bin(sh: &ir::Shader, want: BinaryOp, ty: ScalarTy) -> usize {
    insts(sh)
        .iter()
        .filter(|i| matches!(i, Inst::Binary { op, ty: t, .. } if *op == want && *t == ty))
        .count()
}

#[test]
fn vec4_add_is_four_fadds() {
    let src = r#"#version 450
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer B { vec4 a; vec4 b; vec4 c; } buf;
void main() { buf.c = buf.a + buf.b; }
"#;
    let Some(b) = glsl("comp", src) else { return };
    let sh = lower_bytes(&b, &SpecConstants::new()).unwrap();
    assert_eq!(count_bin(&sh, BinaryOp::FAdd, ScalarTy::F32), 4);
    // 8 loads (two vec4) and 4 stores, all to buffer slot 0.
    let loads = insts(&sh)
        .iter()
        .filter(|i| matches!(i, Inst::Load { ptr, .. } if ptr.space == Space::Buffer { slot: 0, index: None }))
        .count();
    let stores = insts(&sh)
        .iter()
        .filter(|i| matches!(i, Inst::Store { .. }))
        .count();
    assert_eq!((loads, stores), (8, 4));
    assert_eq!(sh.resources.len(), 1);
    assert_eq!(sh.resources[0].kind, ir::ResourceKind::StorageBuffer);
}

#[test]
fn std430_offsets_and_runtime_array_stride() {
    // std430 by hand: a@0, b(vec3, align 16)@16, c@28, d(vec2, align 8)@32 (d.y @36),
    // m(mat3: 3 columns of vec3 with stride 16)@48 (m[2][1] @ 48+32+4 = 84), r[] @96 stride 4.
    let src = r#"#version 450
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer B { float a; vec3 b; float c; vec2 d; mat3 m; float r[]; } buf;
layout(push_constant) uniform P { int idx; } pc;
void main() { buf.a = buf.c + buf.d.y + buf.m[2][1] + buf.r[pc.idx]; }
"#;
    let Some(b) = glsl("comp", src) else { return };
    let sh = lower_bytes(&b, &SpecConstants::new()).unwrap();
    let k = consts(&sh);
    let buf_slot = sh
        .resources
        .iter()
        .position(|r| r.kind == ir::ResourceKind::StorageBuffer)
        .unwrap() as u32;
    let mut const_addrs = Vec::new();
    let mut dyn_addrs = Vec::new();
    for i in insts(&sh) {
        if let Inst::Load { ptr, .. } = i {
            if ptr.space
                == (Space::Buffer {
                    slot: buf_slot,
                    index: None,
                })
            {
                match k.get(&ptr.addr) {
                    Some(v) => const_addrs.push(*v),
                    None => dyn_addrs.push(ptr.addr),
                }
            }
        }
    }
    const_addrs.sort();
    assert_eq!(const_addrs, vec![28, 36, 84]);
    assert_eq!(dyn_addrs.len(), 1);
    // The dynamic address is (idx * 4) + 96 (or 96 + idx * 4).
    let def = |r: Reg| {
        insts(&sh).into_iter().find(|i| match i {
            Inst::Binary { dst, .. } => *dst == r,
            _ => false,
        })
    };
    let Some(Inst::Binary {
        op: BinaryOp::IAdd,
        a,
        b,
        ..
    }) = def(dyn_addrs[0])
    else {
        panic!("dynamic address is not an IAdd")
    };
    let (mul, off) = if k.contains_key(b) {
        (*a, *b)
    } else {
        (*b, *a)
    };
    assert_eq!(k[&off], 96);
    let Some(Inst::Binary {
        op: BinaryOp::IMul,
        a,
        b,
        ..
    }) = def(mul)
    else {
        panic!("index is not scaled by an IMul")
    };
    assert!(k.get(a) == Some(&4) || k.get(b) == Some(&4));
    // The store of buf.a goes to byte 0.
    let st = insts(&sh)
        .into_iter()
        .find_map(|i| match i {
            Inst::Store { ptr, .. } => Some(ptr.addr),
            _ => None,
        })
        .unwrap();
    assert_eq!(k[&st], 0);
}

#[test]
fn mat4_times_vec4_is_16_muls() {
    let src = r#"#version 450
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer B { mat4 m; vec4 v; vec4 o; } buf;
void main() { buf.o = buf.m * buf.v; }
"#;
    let Some(b) = glsl("comp", src) else { return };
    let sh = lower_bytes(&b, &SpecConstants::new()).unwrap();
    assert_eq!(count_bin(&sh, BinaryOp::FMul, ScalarTy::F32), 16);
    assert_eq!(count_bin(&sh, BinaryOp::FAdd, ScalarTy::F32), 12);
}

#[test]
fn calls_are_inlined_and_phis_become_copies() {
    let src = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 8 2 1
               OpDecorate %buf Block
               OpMemberDecorate %buf 0 Offset 0
               OpDecorate %var DescriptorSet 0
               OpDecorate %var Binding 3
       %void = OpTypeVoid
         %fv = OpTypeFunction %void
        %int = OpTypeInt 32 1
       %bool = OpTypeBool
         %fi = OpTypeFunction %int %int
       %buf = OpTypeStruct %int
       %pbuf = OpTypePointer StorageBuffer %buf
       %pint = OpTypePointer StorageBuffer %int
        %var = OpVariable %pbuf StorageBuffer
         %c0 = OpConstant %int 0
         %c1 = OpConstant %int 1
        %c10 = OpConstant %int 10
       %twice = OpFunction %int None %fi
          %x = OpFunctionParameter %int
         %tl = OpLabel
         %x2 = OpIAdd %int %x %x
               OpReturnValue %x2
               OpFunctionEnd
       %main = OpFunction %void None %fv
      %entry = OpLabel
               OpBranch %loop
       %loop = OpLabel
          %i = OpPhi %int %c0 %entry %inext %body
          %s = OpPhi %int %c1 %entry %snext %body
         %lt = OpSLessThan %bool %i %c10
               OpLoopMerge %exit %body None
               OpBranchConditional %lt %body %exit
       %body = OpLabel
      %snext = OpFunctionCall %int %twice %s
      %inext = OpIAdd %int %i %c1
               OpBranch %loop
       %exit = OpLabel
          %p = OpAccessChain %pint %var %c0
               OpStore %p %s
               OpReturn
               OpFunctionEnd
"#;
    let Some(b) = asm(src) else { return };
    let sh = lower_bytes(&b, &SpecConstants::new()).unwrap();
    assert_eq!(sh.workgroup_size, [8, 2, 1]);
    assert_eq!(sh.resources[0].binding, 3);
    // The callee's IAdd appears (inlined), plus the loop increment.
    assert_eq!(count_bin(&sh, BinaryOp::IAdd, ScalarTy::I32), 2);
    // Phi copies: two on the entry edge, two on the back edge (plus one return-value copy).
    let movs = insts(&sh)
        .iter()
        .filter(|i| {
            matches!(
                i,
                Inst::Unary {
                    op: crate::ir::UnaryOp::Mov,
                    ..
                }
            )
        })
        .count();
    assert_eq!(movs, 5);
    // The conditional branch goes to two blocks; the phis sit on unconditional edges only.
    let branches = sh
        .body
        .blocks
        .iter()
        .filter(|b| matches!(b.term, Terminator::Branch { .. }))
        .count();
    assert_eq!(branches, 1);
}

#[test]
fn spec_constants_fold_with_overrides() {
    let src = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionModeId %main LocalSizeId %sx %c1 %c1
               OpDecorate %sx SpecId 0
               OpDecorate %sc SpecId 7
               OpDecorate %buf Block
               OpMemberDecorate %buf 0 Offset 0
               OpDecorate %var DescriptorSet 0
               OpDecorate %var Binding 0
       %void = OpTypeVoid
         %fv = OpTypeFunction %void
       %uint = OpTypeInt 32 0
         %c1 = OpConstant %uint 1
         %sx = OpSpecConstant %uint 4
         %sc = OpSpecConstant %uint 5
        %sum = OpSpecConstantOp %uint IMul %sc %sx
        %buf = OpTypeStruct %uint
       %pbuf = OpTypePointer StorageBuffer %buf
      %puint = OpTypePointer StorageBuffer %uint
        %var = OpVariable %pbuf StorageBuffer
         %c0 = OpConstant %uint 0
       %main = OpFunction %void None %fv
          %l = OpLabel
          %p = OpAccessChain %puint %var %c0
               OpStore %p %sum
               OpReturn
               OpFunctionEnd
"#;
    let Some(b) = asm(src) else {
        return;
    };
    let stored = |sh: &ir::Shader| {
        let k = consts(sh);
        insts(sh)
            .iter()
            .find_map(|i| match i {
                Inst::Store { src, .. } => k.get(src).copied(),
                _ => None,
            })
            .unwrap()
    };
    let sh = lower_bytes(&b, &SpecConstants::new()).unwrap();
    assert_eq!(sh.workgroup_size, [4, 1, 1]);
    assert_eq!(stored(&sh), 20);
    let spec: SpecConstants = [(0, 2), (7, 9)].into_iter().collect();
    let sh = lower_bytes(&b, &spec).unwrap();
    assert_eq!(sh.workgroup_size, [2, 1, 1]);
    assert_eq!(stored(&sh), 18);
}

#[test]
fn implicit_lod_outside_fragment_is_an_error() {
    // glslang turns texture() in a vertex shader into explicit LOD 0, so assemble by hand.
    let src = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint Vertex %main "main" %o
               OpDecorate %o Location 0
               OpDecorate %t DescriptorSet 0
               OpDecorate %t Binding 0
       %void = OpTypeVoid
         %fv = OpTypeFunction %void
      %float = OpTypeFloat 32
       %vec2 = OpTypeVector %float 2
       %vec4 = OpTypeVector %float 4
        %img = OpTypeImage %float 2D 0 0 0 1 Unknown
         %si = OpTypeSampledImage %img
        %psi = OpTypePointer UniformConstant %si
          %t = OpVariable %psi UniformConstant
       %pout = OpTypePointer Output %vec4
          %o = OpVariable %pout Output
       %half = OpConstant %float 0.5
         %uv = OpConstantComposite %vec2 %half %half
       %main = OpFunction %void None %fv
          %l = OpLabel
         %ld = OpLoad %si %t
          %s = OpImageSampleImplicitLod %vec4 %ld %uv
               OpStore %o %s
               OpReturn
               OpFunctionEnd
"#;
    let Some(b) = asm(src) else { return };
    let e = lower_bytes(&b, &SpecConstants::new())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("ImageSampleImplicitLod") && e.contains("word offset"),
        "{e}"
    );
    // The same in a fragment shader is fine, and gives one Image instruction with implicit LOD.
    let src = r#"#version 450
layout(location = 0) out vec4 o;
layout(location = 0) in vec2 uv;
layout(binding = 0) uniform sampler2D t;
void main() { o = texture(t, uv, 1.5); }
"#;
    let Some(b) = glsl("frag", src) else { return };
    let sh = lower_bytes(&b, &SpecConstants::new()).unwrap();
    let imgs: Vec<_> = insts(&sh)
        .into_iter()
        .filter_map(|i| match i {
            Inst::Image(im) => Some(im.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(imgs.len(), 1);
    assert!(matches!(imgs[0].lod, ir::Lod::Implicit { bias: Some(_) }));
    assert_eq!((imgs[0].coords.len(), imgs[0].dst.len()), (2, 4));
    assert_eq!(sh.resources[0].kind, ir::ResourceKind::CombinedImageSampler);
    assert_eq!(sh.inputs.len(), 1);
    assert_eq!(
        sh.inputs[0].binding,
        ir::IoBinding::Location {
            location: 0,
            component: 0
        }
    );
    assert_eq!(sh.inputs[0].count, 2);
}

#[test]
fn interface_builtins_and_helper() {
    let src = r#"#version 450
#extension GL_KHR_shader_subgroup_basic : require
layout(location = 0) out vec4 o;
layout(location = 1) flat in int k;
void main() {
    o = gl_FragCoord + vec4(gl_HelperInvocation ? 1.0 : 0.0, float(gl_SubgroupInvocationID), float(k), 0.0);
    if (k == 3) discard;
}
"#;
    let Some(b) = compile(
        Tool::Glslang,
        &["-V", "-S", "frag", "--target-env", "vulkan1.1"],
        "frag",
        src,
    ) else {
        return;
    };
    let sh = lower_bytes(&b, &SpecConstants::new()).unwrap();
    assert!(sh.origin_upper_left && sh.can_discard);
    let fc = sh
        .inputs
        .iter()
        .find(|v| v.binding == ir::IoBinding::BuiltIn(ir::BuiltIn::FragCoord))
        .unwrap();
    assert_eq!((fc.count, fc.ty), (4, ScalarTy::F32));
    let k = sh
        .inputs
        .iter()
        .find(|v| matches!(v.binding, ir::IoBinding::Location { location: 1, .. }))
        .unwrap();
    assert_eq!((k.interp, k.ty), (ir::Interp::Flat, ScalarTy::I32));
    assert!(insts(&sh)
        .iter()
        .any(|i| matches!(i, Inst::IsHelper { .. })));
    assert!(insts(&sh).iter().any(|i| matches!(
        i,
        Inst::LaneInfo {
            what: ir::LaneInfo::SubgroupInvocationId,
            ..
        }
    )));
    assert!(sh
        .body
        .blocks
        .iter()
        .any(|b| matches!(b.term, Terminator::Kill { .. })));
    // Inputs and outputs do not overlap in per-lane memory.
    let mut spans: Vec<(u32, u32)> = sh
        .inputs
        .iter()
        .chain(&sh.outputs)
        .map(|v| (v.word, v.word + v.count))
        .collect();
    spans.sort();
    assert!(spans.windows(2).all(|w| w[0].1 <= w[1].0));
    assert!(spans.last().unwrap().1 <= sh.local_words);
}

fn images(sh: &ir::Shader) -> Vec<ir::ImageInst> {
    insts(sh)
        .into_iter()
        .filter_map(|i| match i {
            Inst::Image(im) => Some((**im).clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn image_operands_are_decoded() {
    let src = r#"#version 450
layout(location = 0) out vec4 o;
layout(location = 0) in vec4 uv;
layout(binding = 0) uniform sampler2D t;
layout(binding = 1) uniform sampler2DShadow s;
layout(binding = 2) uniform texture2DArray ta;
layout(binding = 3) uniform sampler smp;
layout(binding = 4, rgba8) uniform writeonly image2D img;
void main() {
    o = textureProjLodOffset(t, uv.xyz, 2.0, ivec2(1, -1));
    o += textureGatherOffsets(t, uv.xy, ivec2[4](ivec2(0, 1), ivec2(2, 3), ivec2(-1, -2), ivec2(4, 5)), 2);
    o.x += texture(s, uv.xyz);
    o += texelFetch(t, ivec2(uv.xy), 3);
    o += textureGrad(sampler2DArray(ta, smp), uv.xyz, uv.xy, uv.zw);
    o += vec4(textureSize(t, 1), textureQueryLevels(t), 0);
    imageStore(img, ivec2(3, 4), o);
}
"#;
    let Some(b) = glsl("frag", src) else { return };
    let sh = lower_bytes(&b, &SpecConstants::new()).unwrap();
    let im = images(&sh);
    use ir::ImageOpKind as K;
    let kinds: Vec<K> = im.iter().map(|i| i.kind).collect();
    assert_eq!(
        kinds,
        vec![
            K::Sample,
            K::Gather,
            K::Sample,
            K::Fetch,
            K::Sample,
            K::QuerySize,
            K::QueryLevels,
            K::Write
        ]
    );
    // textureProjLodOffset: 2 coords + q, explicit LOD, a 2-component constant offset.
    assert_eq!((im[0].coords.len(), im[0].proj.is_some()), (2, true));
    assert!(matches!(im[0].lod, ir::Lod::Explicit(_)));
    let k = consts(&sh);
    let offs: Vec<u64> = im[0].offset.iter().map(|r| k[r]).collect();
    assert_eq!(offs, vec![1, (-1i32) as u32 as u64]);
    // textureGatherOffsets: ConstOffsets and component 2.
    assert_eq!(im[1].offsets4, Some([[0, 1], [2, 3], [-1, -2], [4, 5]]));
    assert_eq!(k[&im[1].component.unwrap()], 2);
    // Shadow sample: dref, implicit LOD, one result.
    assert!(im[2].dref.is_some() && matches!(im[2].lod, ir::Lod::Implicit { bias: None }));
    assert_eq!(im[2].dst.len(), 1);
    // texelFetch: integer coordinates, LOD 3.
    assert_eq!(im[3].result_ty, ScalarTy::F32);
    assert!(matches!(im[3].lod, ir::Lod::Explicit(r) if k[&r] == 3));
    // Separate texture + sampler: image and sampler slots differ; 3 coords (array layer last);
    // gradients of 2 components each.
    assert!(im[4].sampler.is_some() && im[4].sampler.unwrap().slot != im[4].image.slot);
    assert_eq!(im[4].coords.len(), 3);
    assert!(matches!(&im[4].lod, ir::Lod::Grad { dx, dy } if dx.len() == 2 && dy.len() == 2));
    // textureSize at LOD 1 gives 2 components.
    assert_eq!(im[5].dst.len(), 2);
    // imageStore: 2 integer coordinates, 4 texel registers.
    assert_eq!((im[7].coords.len(), im[7].texel.len()), (2, 4));
    let kinds: Vec<ir::ResourceKind> = sh.resources.iter().map(|r| r.kind).collect();
    use ir::ResourceKind as R;
    assert_eq!(
        kinds,
        vec![
            R::CombinedImageSampler,
            R::CombinedImageSampler,
            R::SampledImage,
            R::Sampler,
            R::StorageImage
        ]
    );
    assert!(sh.resources[1].image.unwrap().depth && sh.resources[2].image.unwrap().arrayed);
}

#[test]
fn derivatives_and_subgroup_ops() {
    let src = r#"#version 450
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_clustered : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_quad : require
layout(location = 0) out vec4 o;
layout(location = 0) in vec2 uv;
void main() {
    float a = dFdx(uv.x) + dFdyFine(uv.y) + fwidth(uv.x);
    float s = subgroupAdd(uv.x) + subgroupClusteredMax(uv.y, 4) + subgroupExclusiveMul(a);
    uvec4 b = subgroupBallot(uv.x > 0.5);
    float q = subgroupQuadSwapDiagonal(uv.x) + subgroupShuffleXor(uv.y, 1u);
    o = vec4(a, s, float(subgroupBallotBitCount(b)), q);
}
"#;
    let Some(b) = compile(
        Tool::Glslang,
        &["-V", "-S", "frag", "--target-env", "vulkan1.1"],
        "frag",
        src,
    ) else {
        return;
    };
    let sh = lower_bytes(&b, &SpecConstants::new()).unwrap();
    let all = insts(&sh);
    use ir::{Axis, DerivKind, GroupArith, GroupScan};
    let derivs: Vec<(Axis, DerivKind)> = all
        .iter()
        .filter_map(|i| match i {
            Inst::Deriv { axis, kind, .. } => Some((*axis, *kind)),
            _ => None,
        })
        .collect();
    // dFdx → coarse X; dFdyFine → fine Y; fwidth → coarse X and Y.
    assert_eq!(
        derivs,
        vec![
            (Axis::X, DerivKind::Coarse),
            (Axis::Y, DerivKind::Fine),
            (Axis::X, DerivKind::Coarse),
            (Axis::Y, DerivKind::Coarse)
        ]
    );
    let ariths: Vec<(GroupArith, GroupScan)> = all
        .iter()
        .filter_map(|i| match i {
            Inst::GroupArith { op, scan, .. } => Some((*op, *scan)),
            _ => None,
        })
        .collect();
    assert_eq!(
        ariths,
        vec![
            (GroupArith::FAdd, GroupScan::Reduce),
            (GroupArith::FMax, GroupScan::Clustered(4)),
            (GroupArith::FMul, GroupScan::Exclusive)
        ]
    );
    let ballots = all
        .iter()
        .filter(|i| {
            matches!(
                i,
                Inst::Group {
                    op: ir::GroupOp::Ballot(_),
                    ..
                }
            )
        })
        .count();
    assert_eq!(ballots, 4);
    assert!(all
        .iter()
        .any(|i| matches!(i, Inst::QuadSwap { direction: 2, .. })));
    assert!(all.iter().any(|i| matches!(
        i,
        Inst::Group {
            op: ir::GroupOp::ShuffleXor,
            ..
        }
    )));
    assert!(all.iter().any(|i| matches!(
        i,
        Inst::BallotQuery {
            query: ir::BallotQuery::BitCountReduce,
            ..
        }
    )));
}

#[test]
fn two_entry_points_keep_their_own_resources() {
    let src = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %a "a"
               OpEntryPoint GLCompute %b "b"
               OpExecutionMode %a LocalSize 2 1 1
               OpExecutionMode %b LocalSize 3 1 1
               OpDecorate %buf Block
               OpMemberDecorate %buf 0 Offset 0
               OpDecorate %va DescriptorSet 0
               OpDecorate %va Binding 5
               OpDecorate %vb DescriptorSet 1
               OpDecorate %vb Binding 6
       %void = OpTypeVoid
         %fv = OpTypeFunction %void
       %uint = OpTypeInt 32 0
        %buf = OpTypeStruct %uint
       %pbuf = OpTypePointer StorageBuffer %buf
      %puint = OpTypePointer StorageBuffer %uint
         %va = OpVariable %pbuf StorageBuffer
         %vb = OpVariable %pbuf StorageBuffer
         %c0 = OpConstant %uint 0
          %a = OpFunction %void None %fv
         %la = OpLabel
         %pa = OpAccessChain %puint %va %c0
               OpStore %pa %c0
               OpReturn
               OpFunctionEnd
          %b = OpFunction %void None %fv
         %lb = OpLabel
         %pb = OpAccessChain %puint %vb %c0
               OpStore %pb %c0
               OpReturn
               OpFunctionEnd
"#;
    let Some(bytes) = asm(src) else { return };
    let m = Module::from_bytes(&bytes).unwrap();
    assert_eq!(m.entry_points().len(), 2);
    let a = m.lower("a", None, &SpecConstants::new()).unwrap();
    let b = m
        .lower("b", Some(ir::Stage::Compute), &SpecConstants::new())
        .unwrap();
    assert_eq!((a.workgroup_size[0], b.workgroup_size[0]), (2, 3));
    assert_eq!(a.resources.len(), 1);
    assert_eq!((a.resources[0].set, a.resources[0].binding), (0, 5));
    assert_eq!((b.resources[0].set, b.resources[0].binding), (1, 6));
    assert!(m.lower("c", None, &SpecConstants::new()).is_err());
    assert!(m
        .lower("a", Some(ir::Stage::Fragment), &SpecConstants::new())
        .is_err());
}

#[test]
fn spec_constant_op_wrapping_a_constant_is_rejected() {
    // rspirv panics on this shape; we must refuse it first.
    let mut w = minimal();
    w[3] = 8;
    let mut extra = op(21, &[5, 32, 1]); // %5 = OpTypeInt 32 1
    extra.extend(op(52, &[5, 6, 43, 7])); // %6 = OpSpecConstantOp %5 <OpConstant> 7
    w.splice(23..23, extra);
    let e = err_of(&w).to_string();
    assert!(
        e.contains("word offset 27") && e.contains("OpSpecConstantOp"),
        "{e}"
    );
}

#[test]
fn debug_info_is_ignored() {
    // NonSemantic.Shader.DebugInfo.100, OpLine and OpSource must not stop the lowering.
    let src = r#"#version 450
layout(location = 0) out vec4 o;
layout(location = 0) in vec2 uv;
float f(float x) { return x * 2.0; }
void main() { o = vec4(f(uv.x), uv.y, 0.0, 1.0); }
"#;
    let Some(b) = compile(Tool::Glslang, &["-V", "-gVS", "-S", "frag"], "frag", src) else {
        return;
    };
    let sh = lower_bytes(&b, &SpecConstants::new()).unwrap();
    assert_eq!(count_bin(&sh, BinaryOp::FMul, ScalarTy::F32), 1);
    // ... and their DebugLines place the multiply at line 4 of the source, `f`'s body
    let mul = sh.body.blocks.iter().find_map(|b| {
        let at = b.insts.iter().position(|i| {
            matches!(
                i,
                Inst::Binary {
                    op: BinaryOp::FMul,
                    ..
                }
            )
        })?;
        b.insts[..at].iter().rev().find_map(|i| match i {
            Inst::Source { offset } => Some(*offset),
            _ => None,
        })
    });
    let at = sh.source.file_line(mul.unwrap()).unwrap();
    assert!(at.ends_with(".frag:4"), "{at}");
    assert_eq!(
        sh.source.text(mul.unwrap()),
        Some(src.lines().nth(3).unwrap())
    );
}

#[test]
fn a_debug_line_between_blocks_is_accepted_and_ends_at_a_terminator() {
    // OpLine %s 7 / OpNoLine outside a block (glslang -g puts one after a branch); an OpLine
    // lasts to the end of its block, so the second block has no line
    let asm = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
          %s = OpString "k.comp"
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %main = OpFunction %void None %fn
               OpNoLine
          %a = OpLabel
               OpLine %s 7 1
               OpBranch %b
               OpNoLine
          %b = OpLabel
               OpReturn
               OpFunctionEnd
"#;
    let words = crate::front::spvasm::assemble(asm, "k").unwrap();
    let m = Module::load(&words).unwrap();
    let map = m.source_map();
    let line = |op: u32| {
        let mut at = 5;
        while words[at] & 0xffff != op {
            at += (words[at] >> 16) as usize;
        }
        map.file_line(at as u32)
    };
    // OpBranch (249) at k.comp:7, OpReturn (253) without a line
    assert_eq!(line(249).as_deref(), Some("k.comp:7"));
    assert_eq!(line(253), None);
    m.lower("main", None, &SpecConstants::new()).unwrap();
}

#[test]
fn bitcasts_between_component_counts() {
    let src = r#"#version 450
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer B { uvec2 a; uint64_t b; f16vec2 h; uint c; } buf;
void main() {
    buf.b = packUint2x32(buf.a);
    buf.a = unpackUint2x32(buf.b);
    buf.c = packFloat2x16(buf.h);
}
"#;
    let Some(b) = glsl("comp", src) else { return };
    let sh = lower_bytes(&b, &SpecConstants::new()).unwrap();
    let all = insts(&sh);
    // uvec2 → u64: one Join64; u64 → uvec2: Lo32 and Hi32.
    assert_eq!(count_bin(&sh, BinaryOp::Join64, ScalarTy::I64), 1);
    let lohi = all
        .iter()
        .filter(|i| {
            matches!(
                i,
                Inst::Unary {
                    op: crate::ir::UnaryOp::Lo32 | crate::ir::UnaryOp::Hi32,
                    ..
                }
            )
        })
        .count();
    assert_eq!(lohi, 2);
    // f16vec2 → uint: the second half shifted left by 16 and or-ed in.
    let k = consts(&sh);
    assert!(all.iter().any(|i| matches!(
        i,
        Inst::Binary { op: BinaryOp::Shl, b, .. } if k.get(b) == Some(&16)
    )));
    assert_eq!(count_bin(&sh, BinaryOp::Or, ScalarTy::I32), 1);
    // 16-bit loads read 2 bytes at offsets 16 and 18 (h at 16 after the u64 at 8).
    let h_addrs: Vec<u64> = all
        .iter()
        .filter_map(|i| match i {
            Inst::Load {
                ty: ScalarTy::F16,
                ptr,
                ..
            } => k.get(&ptr.addr).copied(),
            _ => None,
        })
        .collect();
    assert_eq!(h_addrs, vec![16, 18]);
}
