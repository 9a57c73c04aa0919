//! Subgroup size control through Amber's `SUBGROUP … REQUIRED_SIZE` (Vulkan's
//! `requiredSubgroupSize`) and `FULLY_POPULATED` (`requireFullSubgroups`): a 128-invocation
//! compute shader writes, per invocation, its subgroup's size, its index in it, the subgroup's
//! index, a reduction, a ballot count, an exclusive scan, the second word of its
//! `gl_SubgroupLtMask` and a shuffle. The expected values come from a naive model written here
//! (subgroup `k` is invocations `k·s .. k·s + s`), not from the interpreter.

use std::path::Path;

use quadstep::amber::{self, RunOptions, Status};

const SHADER: &str = r#"#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_shuffle : require
layout(local_size_x = LOCAL) in;
layout(set = 0, binding = 0) buffer B { uint o[]; };
void main() {
  uint i = gl_LocalInvocationIndex;
  uvec4 bal = subgroupBallot(i % 3u == 1u);
  o[i * 9u + 0u] = gl_SubgroupSize;
  o[i * 9u + 1u] = gl_SubgroupInvocationID;
  o[i * 9u + 2u] = gl_SubgroupID;
  o[i * 9u + 3u] = subgroupAdd(i);
  o[i * 9u + 4u] = subgroupBallotBitCount(bal);
  o[i * 9u + 5u] = subgroupExclusiveAdd(i);
  o[i * 9u + 6u] = gl_SubgroupLtMask.y;
  o[i * 9u + 7u] = subgroupShuffleXor(i, 1u);
  o[i * 9u + 8u] = gl_NumSubgroups;
}
"#;

/// What invocation `i` of `n` writes with subgroups of `s` lanes.
fn model(i: u32, n: u32, s: u32) -> [u32; 9] {
    let (sg, id) = (i / s, i % s);
    let base = sg * s;
    let members = base..(base + s).min(n);
    let lt = ((1u128 << id) - 1) >> 32;
    [
        s,
        id,
        sg,
        members.clone().sum(),
        members.clone().filter(|j| j % 3 == 1).count() as u32,
        (base..i).sum(),
        lt as u32,
        base + (id ^ 1),
        n.div_ceil(s),
    ]
}

fn script(local: u32, subgroup_block: &str, expected: &[u32]) -> String {
    let data: Vec<String> = expected.iter().map(u32::to_string).collect();
    format!(
        "#!amber\nDEVICE_FEATURE SubgroupSizeControl.subgroupSizeControl\n\
         DEVICE_FEATURE SubgroupSizeControl.computeFullSubgroups\n\
         SHADER compute cs GLSL TARGET_ENV spv1.3\n{}END\n\
         BUFFER out DATA_TYPE uint32 SIZE {} FILL 0\n\
         BUFFER want DATA_TYPE uint32 DATA\n{}\nEND\n\
         PIPELINE compute p\n  ATTACH cs\n{subgroup_block}  \
         BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 0\nEND\n\
         RUN p 1 1 1\nEXPECT out EQ_BUFFER want\n",
        SHADER.replace("LOCAL", &local.to_string()),
        expected.len(),
        data.join(" "),
    )
}

fn run(text: &str) -> Status {
    let script = amber::parse(text, Path::new("subgroup_sizes.amber")).expect("parses");
    amber::run_script(&script, &RunOptions::default()).status
}

fn glslang() -> bool {
    let ok = std::process::Command::new("glslangValidator")
        .arg("--version")
        .output()
        .is_ok();
    if !ok {
        eprintln!("skipping: glslangValidator is not on the PATH");
    }
    ok
}

fn expected(n: u32, s: u32) -> Vec<u32> {
    (0..n).flat_map(|i| model(i, n, s)).collect()
}

#[test]
fn every_required_size_matches_the_model() {
    if !glslang() {
        return;
    }
    for (block, s) in [
        ("", 16),
        ("  SUBGROUP cs\n    REQUIRED_SIZE 4\n  END\n", 4),
        ("  SUBGROUP cs\n    REQUIRED_SIZE 8\n  END\n", 8),
        ("  SUBGROUP cs\n    REQUIRED_SIZE 16\n  END\n", 16),
        (
            "  SUBGROUP cs\n    REQUIRED_SIZE 32\n    FULLY_POPULATED on\n  END\n",
            32,
        ),
        ("  SUBGROUP cs\n    REQUIRED_SIZE 64\n  END\n", 64),
        ("  SUBGROUP cs\n    REQUIRED_SIZE MIN\n  END\n", 4),
        (
            "  SUBGROUP cs\n    REQUIRED_SIZE MAX\n    VARYING_SIZE on\n  END\n",
            64,
        ),
        ("  SUBGROUP cs\n    FULLY_POPULATED on\n  END\n", 16),
    ] {
        let text = script(128, block, &expected(128, s));
        assert_eq!(run(&text), Status::Pass, "subgroups of {s}:\n{block}");
    }
    // a model for the wrong size fails: the check can see the difference
    let text = script(
        128,
        "  SUBGROUP cs\n    REQUIRED_SIZE 32\n  END\n",
        &expected(128, 64),
    );
    assert!(matches!(run(&text), Status::Fail { .. }));
}

#[test]
fn partial_last_subgroup_and_bad_sizes() {
    if !glslang() {
        return;
    }
    // 96 invocations in subgroups of 64: the second subgroup has 32 members
    let block = "  SUBGROUP cs\n    REQUIRED_SIZE 64\n  END\n";
    assert_eq!(run(&script(96, block, &expected(96, 64))), Status::Pass);
    // requireFullSubgroups without a size: the local size must be a multiple of 64
    let block = "  SUBGROUP cs\n    FULLY_POPULATED on\n  END\n";
    match run(&script(96, block, &expected(96, 16))) {
        Status::Unsupported { reason } => assert!(reason.contains("multiple of 64"), "{reason}"),
        other => panic!("{other:?}"),
    }
    // sizes outside 4..=64 are not supported
    for n in [2, 128] {
        let block = format!("  SUBGROUP cs\n    REQUIRED_SIZE {n}\n  END\n");
        let st = run(&script(128, &block, &expected(128, 16)));
        assert!(matches!(st, Status::Unsupported { .. }), "{n}: {st:?}");
    }
}
