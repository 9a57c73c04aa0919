//! End-to-end Amber scripts through `amber::run_script`: every EXPECT form passes on the right
//! value and fails on a wrong one, a compute shader writes a storage buffer, DRAW_RECT covers
//! exactly its pixels, and bad scripts give FAIL/UNSUPPORTED naming file:line, never a panic.
//! Expected values are worked out by hand in the comments (3·i for the compute shader, the
//! rectangle's pixel span from Amber's rule "pixel centres inside [x, x + w)", clear colours).

use std::path::Path;

use quadstep::amber::{self, FailKind, RunOptions, Status};

fn run(text: &str) -> Status {
    let script = match amber::parse(text, Path::new("inline.amber")) {
        Ok(s) => s,
        Err(e) => {
            return Status::Fail {
                kind: FailKind::of(&e),
                message: e.to_string(),
            }
        }
    };
    amber::run_script(&script, &RunOptions::default()).status
}

fn assert_pass(text: &str) {
    let st = run(text);
    assert_eq!(st, Status::Pass, "script:\n{text}");
}

fn assert_fail(text: &str) -> String {
    match run(text) {
        Status::Fail { message, .. } => message,
        other => panic!("expected FAIL, got {other:?} for\n{text}"),
    }
}

/// A fragment shader writing constant green, and a pipeline drawing into `framebuffer`.
const GRAPHICS: &str = r#"#!amber
SHADER vertex vs PASSTHROUGH
SHADER fragment fs SPIRV-ASM
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint Fragment %main "main" %color
               OpExecutionMode %main OriginUpperLeft
               OpDecorate %color Location 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
      %float = OpTypeFloat 32
    %v4float = OpTypeVector %float 4
        %ptr = OpTypePointer Output %v4float
      %color = OpVariable %ptr Output
         %f0 = OpConstant %float 0
         %f1 = OpConstant %float 1
      %green = OpConstantComposite %v4float %f0 %f1 %f0 %f1
       %main = OpFunction %void None %fn
      %entry = OpLabel
               OpStore %color %green
               OpReturn
               OpFunctionEnd
END
BUFFER framebuffer FORMAT B8G8R8A8_UNORM
PIPELINE graphics pipeline
  ATTACH vs
  ATTACH fs
  FRAMEBUFFER_SIZE 64 64
  BIND BUFFER framebuffer AS color LOCATION 0
END
"#;

fn graphics(cmds: &str) -> String {
    format!("{GRAPHICS}{cmds}\n")
}

#[test]
fn draw_rect_covers_exactly_its_pixels() {
    // Clear to blue, then a green rect at pixels [16, 48) in x and y.
    let s = graphics(
        "CLEAR_COLOR pipeline 0 0 255 255\nCLEAR pipeline\n\
         RUN pipeline DRAW_RECT POS 16 16 SIZE 32 32\n\
         EXPECT framebuffer IDX 16 16 SIZE 32 32 EQ_RGBA 0 255 0 255\n\
         EXPECT framebuffer IDX 0 0 SIZE 64 16 EQ_RGBA 0 0 255 255\n\
         EXPECT framebuffer IDX 0 48 SIZE 64 16 EQ_RGBA 0 0 255 255\n\
         EXPECT framebuffer IDX 15 30 EQ_RGB 0 0 255\n\
         EXPECT framebuffer IDX 48 30 EQ_RGB 0 0 255\n\
         EXPECT framebuffer IDX 47 47 EQ_RGB 0 255 0",
    );
    assert_pass(&s);
    // A probe of the wrong colour inside the rect fails and names the line and pixel.
    let bad = graphics(
        "RUN pipeline DRAW_RECT POS 16 16 SIZE 32 32\n\
         EXPECT framebuffer IDX 20 20 EQ_RGB 255 0 0",
    );
    let msg = assert_fail(&bad);
    assert!(msg.contains("inline.amber:"), "{msg}");
    assert!(msg.contains("(20, 20)"), "{msg}");
}

#[test]
fn probe_tolerances_absolute_and_percent() {
    // Clear colour 200/255 in red: EQ 190 needs a tolerance of at least 10 (0–255 units).
    let base = "CLEAR_COLOR pipeline 200 0 0 255\nCLEAR pipeline\n";
    assert_pass(&graphics(&format!(
        "{base}EXPECT framebuffer IDX 0 0 SIZE 64 64 EQ_RGBA 190 0 0 255 TOLERANCE 10"
    )));
    assert_fail(&graphics(&format!(
        "{base}EXPECT framebuffer IDX 0 0 SIZE 64 64 EQ_RGBA 190 0 0 255 TOLERANCE 9"
    )));
    // 5% of 190/255 is 9.5/255: not enough for a difference of 10.
    assert_fail(&graphics(&format!(
        "{base}EXPECT framebuffer IDX 0 0 EQ_RGB 190 0 0 TOLERANCE 5%"
    )));
    // 6% of 190 is 11.4: enough.
    assert_pass(&graphics(&format!(
        "{base}EXPECT framebuffer IDX 0 0 EQ_RGB 190 0 0 TOLERANCE 6%"
    )));
    // Per-channel tolerances: only alpha may differ.
    assert_pass(&graphics(&format!(
        "{base}EXPECT framebuffer IDX 0 0 EQ_RGBA 200 0 0 250 TOLERANCE 0 0 0 5"
    )));
    assert_fail(&graphics(&format!(
        "{base}EXPECT framebuffer IDX 0 0 EQ_RGBA 195 0 0 250 TOLERANCE 0 0 0 5"
    )));
    // EQ_RGB ignores alpha; EQ_RGBA does not.
    assert_pass(&graphics(&format!(
        "{base}EXPECT framebuffer IDX 3 3 EQ_RGB 200 0 0"
    )));
    assert_fail(&graphics(&format!(
        "{base}EXPECT framebuffer IDX 3 3 EQ_RGBA 200 0 0 0"
    )));
    // A probe outside the framebuffer fails.
    assert_fail(&graphics(&format!(
        "{base}EXPECT framebuffer IDX 60 60 SIZE 8 8 EQ_RGB 200 0 0"
    )));
}

const VALUES: &str = "BUFFER f DATA_TYPE float DATA 1.5 2.5 -4.0 END\n\
                      BUFFER i DATA_TYPE int32 DATA -3 7 END\n\
                      BUFFER u DATA_TYPE uint8 DATA 250 1 END\n";

fn values(expect: &str) -> String {
    format!("#!amber\n{VALUES}{expect}\n")
}

#[test]
fn buffer_comparisons_per_type() {
    let ok = [
        "EXPECT f IDX 0 EQ 1.5 2.5 -4.0",
        "EXPECT f IDX 4 EQ 2.5",
        "EXPECT f IDX 0 TOLERANCE 0.2 EQ 1.6 2.4",
        "EXPECT f IDX 0 TOLERANCE 10% EQ 1.6",
        "EXPECT f IDX 0 NE 1.0",
        "EXPECT f IDX 8 LT -3.5",
        "EXPECT f IDX 8 LE -4.0",
        "EXPECT f IDX 4 GT 2.0",
        "EXPECT f IDX 4 GE 2.5",
        "EXPECT i IDX 0 EQ -3 7",
        "EXPECT i IDX 0 LT 0",
        "EXPECT i IDX 4 GE 7",
        "EXPECT u IDX 0 EQ 250 1",
        "EXPECT u IDX 0 GT 200",
    ];
    for e in ok {
        assert_pass(&values(e));
    }
    let bad = [
        "EXPECT f IDX 0 EQ 1.5 2.6",
        "EXPECT f IDX 0 TOLERANCE 0.05 EQ 1.6",
        "EXPECT f IDX 0 TOLERANCE 5% EQ 1.6",
        "EXPECT f IDX 0 NE 1.5",
        "EXPECT f IDX 8 LT -4.0",
        "EXPECT f IDX 8 LE -4.5",
        "EXPECT f IDX 4 GT 2.5",
        "EXPECT f IDX 4 GE 2.6",
        "EXPECT i IDX 0 EQ 3",
        "EXPECT i IDX 0 GE 0",
        "EXPECT u IDX 0 EQ 251",
        "EXPECT u IDX 1 LT 1",
        // Reading past the end fails too.
        "EXPECT f IDX 8 EQ -4.0 0.0",
    ];
    for e in bad {
        let msg = assert_fail(&values(e));
        assert!(msg.contains("inline.amber:"), "{e}: {msg}");
    }
}

#[test]
fn whole_buffer_comparisons() {
    let bufs = "#!amber\n\
        BUFFER a DATA_TYPE float DATA 1.1 2.2 3.3 4.4 END\n\
        BUFFER b DATA_TYPE float DATA 1.0 2.1 3.2 4.3 END\n\
        BUFFER c DATA_TYPE float DATA 1.1 2.2 3.3 4.4 END\n\
        BUFFER k FORMAT R8G8B8A8_UNORM DATA 0 0 0 0 0 0 0 0 END\n\
        BUFFER w FORMAT R8G8B8A8_UNORM DATA 255 255 255 255 255 255 255 255 END\n\
        BUFFER k2 FORMAT R8G8B8A8_UNORM DATA 0 0 0 0 0 0 0 0 END\n";
    let with = |e: &str| format!("{bufs}{e}\n");
    assert_pass(&with("EXPECT a EQ_BUFFER c"));
    assert_fail(&with("EXPECT a EQ_BUFFER b"));
    // Every value differs by 0.1 (to f32 rounding), so the RMSE is ~0.1.
    assert_pass(&with("EXPECT a RMSE_BUFFER b TOLERANCE 0.11"));
    assert_fail(&with("EXPECT a RMSE_BUFFER b TOLERANCE 0.09"));
    // Identical histograms: distance 0. All-0 against all-255: all mass moves 255 bins of
    // 256, a distance of 255/256 per channel.
    assert_pass(&with("EXPECT k EQ_HISTOGRAM_EMD_BUFFER k2 TOLERANCE 0.0"));
    assert_fail(&with("EXPECT k EQ_HISTOGRAM_EMD_BUFFER w TOLERANCE 0.9"));
    assert_pass(&with("EXPECT k EQ_HISTOGRAM_EMD_BUFFER w TOLERANCE 0.997"));
}

/// `nan` and an overflowing decimal in a float buffer reach the shader as NaN and infinity:
/// `OpIsNan` and `OpIsInf` (IEEE classes) give out[i] = isnan + 2·isinf = 1, 2, 0, 2.
#[test]
fn nan_and_infinity_reach_the_shader() {
    let s = r#"#!amber
SHADER compute cs SPIRV-ASM
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gid
               OpExecutionMode %main LocalSize 4 1 1
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %rtu ArrayStride 4
               OpDecorate %rtf ArrayStride 4
               OpMemberDecorate %Out 0 Offset 0
               OpMemberDecorate %In 0 Offset 0
               OpDecorate %Out BufferBlock
               OpDecorate %In BufferBlock
               OpDecorate %out DescriptorSet 0
               OpDecorate %out Binding 0
               OpDecorate %in DescriptorSet 0
               OpDecorate %in Binding 1
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %bool = OpTypeBool
       %uint = OpTypeInt 32 0
      %float = OpTypeFloat 32
     %v3uint = OpTypeVector %uint 3
     %ptr_in = OpTypePointer Input %v3uint
        %gid = OpVariable %ptr_in Input
        %rtu = OpTypeRuntimeArray %uint
        %rtf = OpTypeRuntimeArray %float
        %Out = OpTypeStruct %rtu
         %In = OpTypeStruct %rtf
      %p_out = OpTypePointer Uniform %Out
       %p_in = OpTypePointer Uniform %In
        %out = OpVariable %p_out Uniform
         %in = OpVariable %p_in Uniform
        %p_u = OpTypePointer Uniform %uint
        %p_f = OpTypePointer Uniform %float
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
     %uint_2 = OpConstant %uint 2
       %main = OpFunction %void None %fn
          %l = OpLabel
          %g = OpLoad %v3uint %gid
          %x = OpCompositeExtract %uint %g 0
         %pf = OpAccessChain %p_f %in %uint_0 %x
          %f = OpLoad %float %pf
        %nan = OpIsNan %bool %f
        %inf = OpIsInf %bool %f
          %a = OpSelect %uint %nan %uint_1 %uint_0
          %b = OpSelect %uint %inf %uint_2 %uint_0
          %v = OpIAdd %uint %a %b
         %po = OpAccessChain %p_u %out %uint_0 %x
               OpStore %po %v
               OpReturn
               OpFunctionEnd
END
BUFFER in DATA_TYPE float DATA nan 1.0e39 0.0 -1.0e39 END
BUFFER out DATA_TYPE uint32 SIZE 4 FILL 99
PIPELINE compute p
  ATTACH cs
  BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER in AS storage DESCRIPTOR_SET 0 BINDING 1
END
RUN p 1 1 1
"#;
    assert_pass(&format!("{s}EXPECT out IDX 0 EQ 1 2 0 2\n"));
    assert_fail(&format!("{s}EXPECT out IDX 0 EQ 0 2 0 2\n"));
}

/// Under `DenormPreserve` denormals go in and out of arithmetic unflushed (IEEE 754):
/// f32 3·2^-149 (bits 3) times 2 is 6·2^-149 (bits 6); f16 3·2^-24 (bits 3) times 2 is bits
/// 6, and 2^-20, an f32 normal, converts to the f16 denormal 2^-20 (bits 0x10). A
/// flush-to-zero implementation would write 0 in all three.
#[test]
fn denormals_are_preserved() {
    let s = r#"#!amber
SHADER compute cs SPIRV-ASM
               OpCapability Shader
               OpCapability Float16
               OpCapability StorageBuffer16BitAccess
               OpCapability DenormPreserve
               OpExtension "SPV_KHR_16bit_storage"
               OpExtension "SPV_KHR_float_controls"
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
               OpExecutionMode %main DenormPreserve 16
               OpExecutionMode %main DenormPreserve 32
               OpMemberDecorate %B32 0 Offset 0
               OpMemberDecorate %B32 1 Offset 4
               OpMemberDecorate %B32 2 Offset 8
               OpDecorate %B32 Block
               OpMemberDecorate %B16 0 Offset 0
               OpMemberDecorate %B16 1 Offset 2
               OpMemberDecorate %B16 2 Offset 4
               OpDecorate %B16 Block
               OpDecorate %b32 DescriptorSet 0
               OpDecorate %b32 Binding 0
               OpDecorate %b16 DescriptorSet 0
               OpDecorate %b16 Binding 1
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
      %float = OpTypeFloat 32
       %half = OpTypeFloat 16
        %int = OpTypeInt 32 1
        %B32 = OpTypeStruct %float %float %float
        %B16 = OpTypeStruct %half %half %half
      %p_b32 = OpTypePointer StorageBuffer %B32
      %p_b16 = OpTypePointer StorageBuffer %B16
        %b32 = OpVariable %p_b32 StorageBuffer
        %b16 = OpVariable %p_b16 StorageBuffer
        %p_f = OpTypePointer StorageBuffer %float
        %p_h = OpTypePointer StorageBuffer %half
      %int_0 = OpConstant %int 0
      %int_1 = OpConstant %int 1
      %int_2 = OpConstant %int 2
        %two = OpConstant %float 2
       %twoh = OpConstant %half 2
       %main = OpFunction %void None %fn
          %l = OpLabel
        %pf0 = OpAccessChain %p_f %b32 %int_0
        %pf1 = OpAccessChain %p_f %b32 %int_1
        %pf2 = OpAccessChain %p_f %b32 %int_2
         %f0 = OpLoad %float %pf0
         %f2 = OpLoad %float %pf2
         %m0 = OpFMul %float %f0 %two
               OpStore %pf1 %m0
        %ph0 = OpAccessChain %p_h %b16 %int_0
        %ph1 = OpAccessChain %p_h %b16 %int_1
        %ph2 = OpAccessChain %p_h %b16 %int_2
         %h0 = OpLoad %half %ph0
         %m1 = OpFMul %half %h0 %twoh
               OpStore %ph1 %m1
         %c2 = OpFConvert %half %f2
               OpStore %ph2 %c2
               OpReturn
               OpFunctionEnd
END
BUFFER b32 DATA_TYPE uint32 DATA 3 0 0x35800000 END
BUFFER b16 DATA_TYPE uint16 DATA 3 0 0 END
PIPELINE compute p
  ATTACH cs
  BIND BUFFER b32 AS storage DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER b16 AS storage DESCRIPTOR_SET 0 BINDING 1
END
RUN p 1 1 1
"#;
    assert_pass(&format!(
        "{s}EXPECT b32 IDX 4 EQ 6\nEXPECT b16 IDX 2 EQ 6 16\n"
    ));
}

#[test]
fn compute_writes_a_storage_buffer() {
    // out[x] = 3·x for 8 invocations (2 groups of 4).
    let s = r#"#!amber
SHADER compute cs SPIRV-ASM
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gid
               OpExecutionMode %main LocalSize 4 1 1
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %rta ArrayStride 4
               OpMemberDecorate %Buf 0 Offset 0
               OpDecorate %Buf BufferBlock
               OpDecorate %buf DescriptorSet 0
               OpDecorate %buf Binding 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
     %v3uint = OpTypeVector %uint 3
     %ptr_in = OpTypePointer Input %v3uint
        %gid = OpVariable %ptr_in Input
        %rta = OpTypeRuntimeArray %uint
        %Buf = OpTypeStruct %rta
    %ptr_buf = OpTypePointer Uniform %Buf
        %buf = OpVariable %ptr_buf Uniform
      %ptr_u = OpTypePointer Uniform %uint
        %int = OpTypeInt 32 1
      %int_0 = OpConstant %int 0
     %uint_3 = OpConstant %uint 3
       %main = OpFunction %void None %fn
          %l = OpLabel
          %g = OpLoad %v3uint %gid
          %x = OpCompositeExtract %uint %g 0
          %v = OpIMul %uint %x %uint_3
          %p = OpAccessChain %ptr_u %buf %int_0 %x
               OpStore %p %v
               OpReturn
               OpFunctionEnd
END
BUFFER out DATA_TYPE uint32 SIZE 8 FILL 99
PIPELINE compute p
  ATTACH cs
  BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 0
END
RUN p 2 1 1
"#;
    assert_pass(&format!("{s}EXPECT out IDX 0 EQ 0 3 6 9 12 15 18 21\n"));
    let msg = assert_fail(&format!("{s}EXPECT out IDX 0 EQ 0 3 6 9 12 15 18 22\n"));
    assert!(msg.contains("inline.amber:"), "{msg}");
    // Only one group: the second half keeps its FILL value.
    let one = s.replace("RUN p 2 1 1", "RUN p 1 1 1");
    assert_pass(&format!("{one}EXPECT out IDX 16 EQ 99 99 99 99\n"));
}

#[test]
fn bad_scripts_fail_or_skip_with_file_and_line() {
    // A parse error: FAIL naming the file and line.
    match run("#!amber\nBUFFER b DATA_TYPE float DATA 1 2\nNOT_A_COMMAND\n") {
        Status::Fail { message, .. } => assert!(message.contains("inline.amber:"), "{message}"),
        other => panic!("{other:?}"),
    }
    // An unsupported feature: UNSUPPORTED naming it and the line.
    match run("#!amber\nDEVICE_FEATURE sparseBinding\n") {
        Status::Unsupported { reason } => {
            assert!(reason.contains("inline.amber:2"), "{reason}");
            assert!(reason.contains("sparseBinding"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    // A shader that does not assemble: FAIL at the RUN that needs it.
    let broken = graphics("RUN pipeline DRAW_RECT POS 0 0 SIZE 8 8")
        .replace("OpStore %color %green", "OpStore %color %nonexistent");
    let msg = assert_fail(&broken);
    assert!(msg.contains("inline.amber:"), "{msg}");
    // A compute pipeline whose storage buffer is not bound: FAIL, not a panic.
    let unbound = r#"#!amber
SHADER compute cs GLSL
#version 430
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer B { uint v[]; };
void main() { v[0] = 1u; }
END
PIPELINE compute p
  ATTACH cs
END
RUN p 1 1 1
"#;
    match run(unbound) {
        Status::Fail { message, .. } => assert!(message.contains("inline.amber:11"), "{message}"),
        // Without glslangValidator the GLSL shader is UNSUPPORTED, also with file:line.
        Status::Unsupported { reason } => assert!(reason.contains("inline.amber:11"), "{reason}"),
        Status::Pass => panic!("an unbound buffer cannot pass"),
    }
}

#[test]
fn expect_fail_scripts_pass_when_they_fail() {
    let dir = std::env::temp_dir().join(format!("quadstep-amber-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let failing = values("EXPECT f IDX 0 EQ 9.0");
    let passing = values("EXPECT f IDX 0 EQ 1.5");
    let f1 = dir.join("wrong.expect_fail.amber");
    let f2 = dir.join("right.expect_fail.amber");
    std::fs::write(&f1, failing).unwrap();
    std::fs::write(&f2, passing).unwrap();
    let r1 = amber::run_file(&f1, &RunOptions::default());
    assert_eq!(r1.status, Status::Pass);
    assert!(r1.note.starts_with("expected failure"), "{}", r1.note);
    let r2 = amber::run_file(&f2, &RunOptions::default());
    assert!(matches!(r2.status, Status::Fail { .. }), "{:?}", r2.status);
    let _ = std::fs::remove_dir_all(&dir);
}
