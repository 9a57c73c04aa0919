//! Variable pointers (`VariablePointers`): pointers chosen at run time by `OpSelect` and
//! `OpPhi`, returned by functions and passed into them, stored in Function and Private
//! variables and loaded back, moved by `OpPtrAccessChain`, compared with `OpPtrEqual` /
//! `OpPtrNotEqual` (null included) and subtracted with `OpPtrDiff`, into storage buffers and
//! workgroup memory. Each case is a compute shader in SPIR-V assembly run as an Amber script
//! over eight invocations `i` = 0..7, with `A[i] = 10 + i` and `B[i] = 100 + i`; the expected
//! buffers are worked out by hand from what the shader means, written beside each case.
//! Accesses past a buffer's end through such a pointer read 0 and drop stores, as every
//! robust access does, and a null pointer reads 0 and stores nothing.

use std::path::Path;

use quadstep::amber::{self, RunOptions, Status};

/// The declarations every case shares (SPIR-V 1.4: the entry point lists every global).
const HEADER: &str = r#"
               OpCapability Shader
               OpCapability VariablePointers
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gid %A %B %O INTERFACE
               OpExecutionMode %main LocalSize 8 1 1
               OpDecorate %gid BuiltIn LocalInvocationId
               OpDecorate %rta ArrayStride 4
               OpDecorate %blk Block
               OpMemberDecorate %blk 0 Offset 0
               OpDecorate %A DescriptorSet 0
               OpDecorate %A Binding 0
               OpDecorate %B DescriptorSet 0
               OpDecorate %B Binding 1
               OpDecorate %O DescriptorSet 0
               OpDecorate %O Binding 2
               OpDecorate %p_sb_int ArrayStride 4
       %void = OpTypeVoid
       %bool = OpTypeBool
        %int = OpTypeInt 32 1
       %uint = OpTypeInt 32 0
     %v3uint = OpTypeVector %uint 3
       %p_in = OpTypePointer Input %v3uint
  %p_in_uint = OpTypePointer Input %uint
        %gid = OpVariable %p_in Input
        %rta = OpTypeRuntimeArray %int
        %blk = OpTypeStruct %rta
      %p_blk = OpTypePointer StorageBuffer %blk
   %p_sb_int = OpTypePointer StorageBuffer %int
          %A = OpVariable %p_blk StorageBuffer
          %B = OpVariable %p_blk StorageBuffer
          %O = OpVariable %p_blk StorageBuffer
       %null = OpConstantNull %p_sb_int
     %uint_0 = OpConstant %uint 0
     %uint_8 = OpConstant %uint 8
         %c0 = OpConstant %int 0
         %c1 = OpConstant %int 1
         %c2 = OpConstant %int 2
         %c3 = OpConstant %int 3
         %c4 = OpConstant %int 4
         %c7 = OpConstant %int 7
         %c8 = OpConstant %int 8
        %c16 = OpConstant %int 16
        %c24 = OpConstant %int 24
        %c99 = OpConstant %int 99
       %c500 = OpConstant %int 500
      %c1000 = OpConstant %int 1000
         %fn = OpTypeFunction %void
DECLS
       %main = OpFunction %void None %fn
      %entry = OpLabel
VARS
      %gid_x = OpAccessChain %p_in_uint %gid %uint_0
         %gu = OpLoad %uint %gid_x
          %i = OpBitcast %int %gu
         %pa = OpAccessChain %p_sb_int %A %c0 %i
         %pb = OpAccessChain %p_sb_int %B %c0 %i
         %po = OpAccessChain %p_sb_int %O %c0 %i
      %i_and = OpBitwiseAnd %int %i %c1
        %odd = OpIEqual %bool %i_and %c1
         %lo = OpSLessThan %bool %i %c4
"#;

/// A script running `body` (after the header's common values) with `decls` among the types
/// and `vars` (Function variables) at the top of the entry block; `O` has `out` ints.
fn script(interface: &str, decls: &str, vars: &str, body: &str, out: u32, expect: &str) -> String {
    let shader = HEADER
        .replace("INTERFACE", interface)
        .replace("DECLS", decls)
        .replace("VARS", vars);
    format!(
        "#!amber\n\
         DEVICE_FEATURE VariablePointerFeatures.variablePointers\n\
         SHADER compute cs SPIRV-ASM TARGET_ENV spv1.4\n{shader}{body}\nEND\n\
         BUFFER A DATA_TYPE int32 SIZE 8 SERIES_FROM 10 INC_BY 1\n\
         BUFFER B DATA_TYPE int32 SIZE 8 SERIES_FROM 100 INC_BY 1\n\
         BUFFER O DATA_TYPE int32 SIZE {out} FILL 0\n\
         PIPELINE compute p\n  ATTACH cs\n\
           BIND BUFFER A AS storage DESCRIPTOR_SET 0 BINDING 0\n\
           BIND BUFFER B AS storage DESCRIPTOR_SET 0 BINDING 1\n\
           BIND BUFFER O AS storage DESCRIPTOR_SET 0 BINDING 2\nEND\n\
         RUN p 1 1 1\n{expect}\n"
    )
}

fn run(text: &str) -> Status {
    let script = amber::parse(text, Path::new("inline.amber")).unwrap_or_else(|e| panic!("{e}"));
    amber::run_script(&script, &RunOptions::default()).status
}

/// The script passes, and fails once the first expected value is changed (so the checks
/// are really made).
fn passes(text: &str, first: &str) {
    assert_eq!(run(text), Status::Pass, "{text}");
    let at = text.find("EQ ").expect("an EXPECT") + 3;
    let mut wrong = text.to_string();
    wrong.replace_range(at..at + first.len(), "12345");
    assert!(
        matches!(run(&wrong), Status::Fail { .. }),
        "a wrong expectation passed:\n{wrong}"
    );
}

/// `p = odd ? &A[i] : &B[i]`, `O[i] = *p`; then `*(i < 4 ? &A[i] : &B[i]) = 1000 + i`.
#[test]
fn select_chooses_the_buffer_per_invocation() {
    let body = r#"
          %p = OpSelect %p_sb_int %odd %pa %pb
          %v = OpLoad %int %p
               OpStore %po %v
          %q = OpSelect %p_sb_int %lo %pa %pb
          %k = OpIAdd %int %i %c1000
               OpStore %q %k
               OpReturn
               OpFunctionEnd"#;
    let expect = "EXPECT O IDX 0 EQ 100 11 102 13 104 15 106 17\n\
                  EXPECT A IDX 0 EQ 1000 1001 1002 1003 14 15 16 17\n\
                  EXPECT B IDX 0 EQ 100 101 102 103 1004 1005 1006 1007";
    passes(&script("", "", "", body, 8, expect), "100");
}

/// A loop of `i + 1` iterations (k = 0..=i, so invocations leave it at different times)
/// carries a pointer in a phi; each iteration sets it to `&B[i]` for odd k, `&A[i]` for even
/// k, through a second phi at the if's merge. After the loop it holds the choice of k = i:
/// `O[i]` = B[i] for odd i, A[i] for even i.
#[test]
fn phi_carries_a_pointer_across_a_divergent_loop() {
    let body = r#"
               OpBranch %header
     %header = OpLabel
          %k = OpPhi %int %c0 %entry %k1 %cont
          %p = OpPhi %p_sb_int %pa %entry %pn %cont
       %done = OpSGreaterThan %bool %k %i
               OpLoopMerge %exit %cont None
               OpBranchConditional %done %exit %body
       %body = OpLabel
      %k_and = OpBitwiseAnd %int %k %c1
       %kodd = OpIEqual %bool %k_and %c1
               OpSelectionMerge %merge None
               OpBranchConditional %kodd %then %else
       %then = OpLabel
               OpBranch %merge
       %else = OpLabel
               OpBranch %merge
      %merge = OpLabel
         %pn = OpPhi %p_sb_int %pb %then %pa %else
               OpBranch %cont
       %cont = OpLabel
         %k1 = OpIAdd %int %k %c1
               OpBranch %header
       %exit = OpLabel
          %v = OpLoad %int %p
               OpStore %po %v
               OpReturn
               OpFunctionEnd"#;
    let expect = "EXPECT O IDX 0 EQ 10 101 12 103 14 105 16 107";
    passes(&script("", "", "", body, 8, expect), "10");
}

/// `pick(x, y, n)` returns `n > 3 ? x : y`; `bump(p)` adds 1000 to `*p`.
/// `O[i] = *pick(&A[i], &B[i], i)`: B[i] for i < 4, A[i] after. `bump(pick(&B[i], &A[i], i))`
/// bumps A[i] for i < 4 and B[i] after.
#[test]
fn functions_take_and_return_pointers() {
    let decls = r#"
     %pick_t = OpTypeFunction %p_sb_int %p_sb_int %p_sb_int %int
     %bump_t = OpTypeFunction %void %p_sb_int"#;
    let body = r#"
          %p = OpFunctionCall %p_sb_int %pick %pa %pb %i
          %v = OpLoad %int %p
               OpStore %po %v
          %q = OpFunctionCall %p_sb_int %pick %pb %pa %i
          %u = OpFunctionCall %void %bump %q
               OpReturn
               OpFunctionEnd
       %pick = OpFunction %p_sb_int None %pick_t
          %x = OpFunctionParameter %p_sb_int
          %y = OpFunctionParameter %p_sb_int
          %n = OpFunctionParameter %int
         %pl = OpLabel
        %big = OpSGreaterThan %bool %n %c3
          %r = OpSelect %p_sb_int %big %x %y
               OpReturnValue %r
               OpFunctionEnd
       %bump = OpFunction %void None %bump_t
         %bp = OpFunctionParameter %p_sb_int
         %bl = OpLabel
        %old = OpLoad %int %bp
        %new = OpIAdd %int %old %c1000
               OpStore %bp %new
               OpReturn
               OpFunctionEnd"#;
    let expect = "EXPECT O IDX 0 EQ 100 101 102 103 14 15 16 17\n\
                  EXPECT A IDX 0 EQ 1010 1011 1012 1013 14 15 16 17\n\
                  EXPECT B IDX 0 EQ 100 101 102 103 1104 1105 1106 1107";
    passes(&script("", decls, "", body, 8, expect), "100");
}

/// A Function variable gets `&A[i]` (odd i) or `&B[i]` (even i) in the two arms of an if; a
/// Private variable starts null and gets `&B[i]` in the odd arm only. After the if both are
/// loaded and dereferenced: `O[i] = A[i] + B[i] = 110 + 2 i` for odd i, `B[i] + 0` (null reads
/// 0) for even.
#[test]
fn pointers_stored_in_function_and_private_variables() {
    let decls = r#"
   %p_fn_ptr = OpTypePointer Function %p_sb_int
   %p_pr_ptr = OpTypePointer Private %p_sb_int
       %priv = OpVariable %p_pr_ptr Private %null"#;
    let vars = "        %var = OpVariable %p_fn_ptr Function";
    let body = r#"
               OpSelectionMerge %merge None
               OpBranchConditional %odd %then %else
       %then = OpLabel
               OpStore %var %pa
               OpStore %priv %pb
               OpBranch %merge
       %else = OpLabel
               OpStore %var %pb
               OpBranch %merge
      %merge = OpLabel
          %p = OpLoad %p_sb_int %var
          %v = OpLoad %int %p
         %pp = OpLoad %p_sb_int %priv
          %w = OpLoad %int %pp
          %s = OpIAdd %int %v %w
               OpStore %po %s
               OpReturn
               OpFunctionEnd"#;
    let expect = "EXPECT O IDX 0 EQ 100 112 102 116 104 120 106 124";
    passes(&script("%priv", decls, vars, body, 8, expect), "100");
}

/// From `&A[0]`, element i is A[i] (O[i]); from `&B[7]`, element -i is B[7 - i] (O[8 + i]);
/// from `odd ? &A[0] : &B[0]` (a run-time pointer), element i (O[16 + i]); from `&A[0]`,
/// element i + 8 is past A's 8 ints: it reads 0 (O[24 + i]) and the store of 99 there is
/// dropped, so A keeps its values.
#[test]
fn ptr_access_chain_moves_by_elements() {
    let body = r#"
         %a0 = OpAccessChain %p_sb_int %A %c0 %c0
         %b0 = OpAccessChain %p_sb_int %B %c0 %c0
         %b7 = OpAccessChain %p_sb_int %B %c0 %c7
         %q1 = OpPtrAccessChain %p_sb_int %a0 %i
         %v1 = OpLoad %int %q1
               OpStore %po %v1
         %ni = OpSNegate %int %i
         %q2 = OpPtrAccessChain %p_sb_int %b7 %ni
         %v2 = OpLoad %int %q2
         %i8 = OpIAdd %int %i %c8
         %o2 = OpAccessChain %p_sb_int %O %c0 %i8
               OpStore %o2 %v2
         %s3 = OpSelect %p_sb_int %odd %a0 %b0
         %q3 = OpPtrAccessChain %p_sb_int %s3 %i
         %v3 = OpLoad %int %q3
        %i16 = OpIAdd %int %i %c16
         %o3 = OpAccessChain %p_sb_int %O %c0 %i16
               OpStore %o3 %v3
         %q4 = OpPtrAccessChain %p_sb_int %a0 %i8
         %v4 = OpLoad %int %q4
               OpStore %q4 %c99
        %i24 = OpIAdd %int %i %c24
         %o4 = OpAccessChain %p_sb_int %O %c0 %i24
               OpStore %o4 %v4
               OpReturn
               OpFunctionEnd"#;
    let expect = "EXPECT O IDX 0 EQ 10 11 12 13 14 15 16 17 \
                  107 106 105 104 103 102 101 100 \
                  100 11 102 13 104 15 106 17 \
                  0 0 0 0 0 0 0 0\n\
                  EXPECT A IDX 0 EQ 10 11 12 13 14 15 16 17";
    passes(&script("", "", "", body, 32, expect), "10");
}

/// `p = i < 4 ? &A[i] : null`. O[i] = *p (A[i], or 0 through null); O[8 + i] = (p == null);
/// O[16 + i] = (p != null); O[24 + i] = (p == &A[i]). Then `*p = 500 + i`: A[i] for i < 4,
/// dropped through null.
#[test]
fn null_pointers_compare_read_zero_and_store_nothing() {
    let body = r#"
          %p = OpSelect %p_sb_int %lo %pa %null
          %v = OpLoad %int %p
               OpStore %po %v
      %isnul = OpPtrEqual %bool %p %null
      %notnl = OpPtrNotEqual %bool %p %null
       %isA = OpPtrEqual %bool %p %pa
         %n1 = OpSelect %int %isnul %c1 %c0
         %n2 = OpSelect %int %notnl %c1 %c0
         %n3 = OpSelect %int %isA %c1 %c0
         %i8 = OpIAdd %int %i %c8
         %o1 = OpAccessChain %p_sb_int %O %c0 %i8
               OpStore %o1 %n1
        %i16 = OpIAdd %int %i %c16
         %o2 = OpAccessChain %p_sb_int %O %c0 %i16
               OpStore %o2 %n2
        %i24 = OpIAdd %int %i %c24
         %o3 = OpAccessChain %p_sb_int %O %c0 %i24
               OpStore %o3 %n3
          %k = OpIAdd %int %i %c500
               OpStore %p %k
               OpReturn
               OpFunctionEnd"#;
    let expect = "EXPECT O IDX 0 EQ 10 11 12 13 0 0 0 0 \
                  0 0 0 0 1 1 1 1 \
                  1 1 1 1 0 0 0 0 \
                  1 1 1 1 0 0 0 0\n\
                  EXPECT A IDX 0 EQ 500 501 502 503 14 15 16 17\n\
                  EXPECT B IDX 0 EQ 100 101 102 103 104 105 106 107";
    passes(&script("", "", "", body, 32, expect), "10");
}

/// `OpPtrDiff(&A[i], &A[0])` = i (O[i]); `OpPtrDiff(odd ? &A[i] : &A[0], &A[0])` = i for odd
/// i, 0 for even (O[8 + i]); `OpPtrDiff(&A[0], &A[i])` = -i (O[16 + i]).
#[test]
fn ptr_diff_counts_elements() {
    let body = r#"
         %a0 = OpAccessChain %p_sb_int %A %c0 %c0
         %d1 = OpPtrDiff %int %pa %a0
               OpStore %po %d1
          %s = OpSelect %p_sb_int %odd %pa %a0
         %d2 = OpPtrDiff %int %s %a0
         %i8 = OpIAdd %int %i %c8
         %o2 = OpAccessChain %p_sb_int %O %c0 %i8
               OpStore %o2 %d2
         %d3 = OpPtrDiff %int %a0 %pa
        %i16 = OpIAdd %int %i %c16
         %o3 = OpAccessChain %p_sb_int %O %c0 %i16
               OpStore %o3 %d3
               OpReturn
               OpFunctionEnd"#;
    let expect = "EXPECT O IDX 0 EQ 0 1 2 3 4 5 6 7 \
                  0 1 0 3 0 5 0 7 \
                  0 -1 -2 -3 -4 -5 -6 -7";
    passes(&script("", "", "", body, 24, expect), "0");
}

/// Two workgroup arrays, `W1[i] = 2 i` and `W2[i] = 3 i`, then a barrier. O[i] =
/// `*(odd ? &W1[i] : &W2[i])`; O[8 + i] the same at element 7 - i (another invocation's
/// write); O[16 + i] = `(odd ? &W1[i] : &W2[i]) == &W1[i]`.
#[test]
fn workgroup_pointers_select_between_variables() {
    let decls = r#"
       %arr8 = OpTypeArray %int %uint_8
   %p_wg_arr = OpTypePointer Workgroup %arr8
   %p_wg_int = OpTypePointer Workgroup %int
         %W1 = OpVariable %p_wg_arr Workgroup
         %W2 = OpVariable %p_wg_arr Workgroup
   %uint_2 = OpConstant %uint 2
 %uint_264 = OpConstant %uint 264"#;
    let body = r#"
         %w1 = OpAccessChain %p_wg_int %W1 %i
         %w2 = OpAccessChain %p_wg_int %W2 %i
        %i2 = OpIMul %int %i %c2
        %i3 = OpIMul %int %i %c3
               OpStore %w1 %i2
               OpStore %w2 %i3
               OpControlBarrier %uint_2 %uint_2 %uint_264
          %p = OpSelect %p_wg_int %odd %w1 %w2
          %v = OpLoad %int %p
               OpStore %po %v
          %j = OpISub %int %c7 %i
         %x1 = OpAccessChain %p_wg_int %W1 %j
         %x2 = OpAccessChain %p_wg_int %W2 %j
          %q = OpSelect %p_wg_int %odd %x1 %x2
          %u = OpLoad %int %q
         %i8 = OpIAdd %int %i %c8
         %o2 = OpAccessChain %p_sb_int %O %c0 %i8
               OpStore %o2 %u
         %eq = OpPtrEqual %bool %p %w1
         %n = OpSelect %int %eq %c1 %c0
        %i16 = OpIAdd %int %i %c16
         %o3 = OpAccessChain %p_sb_int %O %c0 %i16
               OpStore %o3 %n
               OpReturn
               OpFunctionEnd"#;
    let expect = "EXPECT O IDX 0 EQ 0 2 6 6 12 10 18 14 \
                  21 12 15 8 9 4 3 0 \
                  0 1 0 1 0 1 0 1";
    passes(&script("%W1 %W2", decls, "", body, 24, expect), "0");
}

/// `OpPtrAccessChain` on a storage-buffer pointer whose type has no `ArrayStride`: a typed
/// error naming the decoration, not a guess.
#[test]
fn ptr_access_chain_without_array_stride_is_an_error() {
    let body = r#"
         %q = OpPtrAccessChain %p_sb_int %pa %c1
          %v = OpLoad %int %q
               OpStore %po %v
               OpReturn
               OpFunctionEnd"#;
    let text = script("", "", "", body, 8, "EXPECT O IDX 0 EQ 11")
        .replace("               OpDecorate %p_sb_int ArrayStride 4\n", "");
    match run(&text) {
        Status::Fail { message, .. } => assert!(message.contains("ArrayStride"), "{message}"),
        other => panic!("{other:?}"),
    }
}
