//! Compute shaders compiled from GLSL (shaders/compute/*.comp, SPIR-V committed beside them)
//! through the whole path: front end, interpreter, descriptor sets, dispatch. Expected values
//! come from plain Rust transcriptions of the shader functions, run per invocation alone.

use std::path::Path;
use std::sync::Arc;

use quadstep::{dispatch, texture::Config, Buffer, Descriptor, DescriptorSets, Shader};

fn shader(name: &str) -> Shader {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("shaders/compute")
        .join(name);
    Shader::from_file(&path, "main", &Default::default()).expect("shader compiles")
}

/// Rust transcription of `f` in divergence.comp (wrapping like GLSL uint arithmetic).
fn divergence_ref(id: u32) -> u32 {
    let mut acc = id;
    let mut i = 0u32;
    while i < (id % 7) + 1 {
        if acc & 1 == 1 {
            acc = acc.wrapping_mul(3).wrapping_add(1);
            i += 1;
            continue;
        }
        for j in 0..5u32 {
            if j == id % 4 {
                break;
            }
            acc = acc.wrapping_add(j * i);
        }
        if acc > 200 {
            break;
        }
        acc = acc / 2 + i;
        i += 1;
    }
    match id % 5 {
        0 => acc += 11,
        1 => acc += 10,
        2 => return acc ^ 0xff,
        _ => acc = acc.wrapping_mul(2),
    }
    acc
}

#[test]
fn divergent_loops_switch_and_early_return_match_each_lane_alone() {
    let sh = shader("divergence.comp.spv");
    let groups = 4u32;
    let n = (64 * groups) as usize;
    let out = Arc::new(Buffer::new(n * 4));
    let mut sets = DescriptorSets::new();
    sets.bind(0, 0, Descriptor::Buffer(out.clone()));
    dispatch(&sh, [groups, 1, 1], &sets, Config::default()).expect("dispatch");
    let got = out.to_u32s();
    for id in 0..n as u32 {
        assert_eq!(got[id as usize], divergence_ref(id), "invocation {id}");
    }
}
