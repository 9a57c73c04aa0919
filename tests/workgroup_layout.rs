//! Workgroup memory in explicit layout (`WorkgroupMemoryExplicitLayoutKHR`): `Block`
//! variables in the Workgroup storage class are laid out by their `Offset` and `ArrayStride`
//! decorations and all start at the same address, so they alias (SPV_KHR_workgroup_memory_
//! explicit_layout). Expected values are worked out by hand from those offsets in the
//! scripts' comments; what quadstep does not run (8- and 16-bit members, a module mixing
//! Block and plain Workgroup variables) is refused with a typed error.

use std::path::Path;

use quadstep::amber::{self, RunOptions, Status};

fn run(text: &str) -> Status {
    let script = amber::parse(text, Path::new("inline.amber")).unwrap_or_else(|e| panic!("{e}"));
    amber::run_script(&script, &RunOptions::default()).status
}

fn script() -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/workgroup_layout/aliased_blocks.amber");
    std::fs::read_to_string(p).unwrap()
}

/// `A { uint a[8] @0 }` and `B { uint x @4; S s[2] @16 }` with `S { uint @0; uint @4 }` and
/// stride 8: invocation i writes a[i] = 10 i + 1 through A; after the barrier s[e].m reads
/// byte 16 + 8 e + 4 m (word 4 + 2 e + m: 41, 51, 61, 71 for i = 0..3) and x byte 4 (word 1:
/// 11) through B. The last three outputs keep their FILL.
#[test]
fn block_variables_alias_at_their_offsets() {
    let s = script();
    assert_eq!(run(&s), Status::Pass);
    let wrong = s.replace("41 51 61 71 11", "41 51 61 71 1");
    assert!(matches!(run(&wrong), Status::Fail { .. }));
}

/// A Block and a plain Workgroup variable in one module: invalid (all or none are Blocks),
/// an error naming it. A 16-bit member: not supported, a skip naming the capability.
#[test]
fn unsupported_layouts_are_refused() {
    let s = script();
    let mixed = s
        .replace("%out %wa %wb", "%out %wa %wb %plain")
        .replace(
            "       %bool = OpTypeBool",
            "     %p_plain = OpTypePointer Workgroup %uint\n     %plain = OpVariable %p_plain Workgroup\n       %bool = OpTypeBool",
        )
        .replace(
            "               OpControlBarrier",
            "               OpStore %plain %v\n               OpControlBarrier",
        );
    match run(&mixed) {
        Status::Fail { message, .. } => {
            assert!(
                message.contains("with and without the Block decoration"),
                "{message}"
            )
        }
        other => panic!("{other:?}"),
    }
    let narrow = s
        .replace(
            "OpCapability WorkgroupMemoryExplicitLayoutKHR",
            "OpCapability WorkgroupMemoryExplicitLayoutKHR\n               OpCapability Int16",
        )
        .replace(
            "          %S = OpTypeStruct %uint %uint",
            "     %ushort = OpTypeInt 16 0\n          %S = OpTypeStruct %uint %ushort",
        );
    match run(&narrow) {
        Status::Unsupported { reason } => {
            assert!(reason.contains("narrower than 32 bits"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
}
