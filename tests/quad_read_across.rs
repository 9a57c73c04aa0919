//! `QuadReadAcrossY` compiled from HLSL (shaders/quad/*.hlsl → SPIR-V by glslang, where it is
//! `OpGroupNonUniformQuadSwap` with direction 1) returns, in lane i of a quad laid out
//! `0 1 / 2 3`, the value of lane i ^ 2: lanes 0↔2 and 1↔3. The expected values are that
//! mapping applied by hand to the inputs, never the interpreter's own output.

use std::path::Path;

use quadstep::exec::{run_fragment_quads, Bindings, FragQuadInput};
use quadstep::pipeline::Shader;

fn shader(name: &str) -> Shader {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("shaders/quad")
        .join(name);
    Shader::from_file(&path, "main", &Default::default()).expect("shader compiles")
}

/// Per-lane inputs: lane l of quad q holds 4 distinct words.
fn input_word(q: usize, lane: usize, c: usize) -> u32 {
    (q * 100 + lane * 10 + c) as u32
}

fn run(name: &str, encode: impl Fn(u32) -> u32) -> Vec<[[u32; 4]; 4]> {
    let sh = shader(name);
    let quads: Vec<FragQuadInput> = (0..3)
        .map(|q| {
            let mut fq = FragQuadInput {
                sample_mask: [1; 4],
                varyings: vec![0; 16],
                ..Default::default()
            };
            for lane in 0..4 {
                fq.frag_coord[lane] = [(lane & 1) as f32 + 0.5, (lane >> 1) as f32 + 0.5, 0.0, 1.0];
                for c in 0..4 {
                    fq.varyings[lane * 4 + c] = encode(input_word(q, lane, c));
                }
            }
            fq
        })
        .collect();
    let out = run_fragment_quads(sh.program(), &quads, &Bindings::default()).expect("runs");
    out.iter()
        .map(|o| {
            let mut r = [[0u32; 4]; 4];
            for (lane, rl) in r.iter_mut().enumerate() {
                rl.copy_from_slice(&o.outputs[lane * 4..lane * 4 + 4]);
            }
            r
        })
        .collect()
}

fn check(name: &str, encode: impl Fn(u32) -> u32 + Copy) {
    let got = run(name, encode);
    for (q, quad) in got.iter().enumerate() {
        // Hand-written partner table for direction 1 (vertical): 0↔2, 1↔3.
        let partner = [2, 3, 0, 1];
        for lane in 0..4 {
            let want: Vec<u32> = (0..4)
                .map(|c| encode(input_word(q, partner[lane], c)))
                .collect();
            assert_eq!(quad[lane].to_vec(), want, "{name}: quad {q} lane {lane}");
        }
    }
}

#[test]
fn quad_read_across_y_float4() {
    check("quad_read_across_y_float4.spv", |v| {
        (v as f32 * 0.25).to_bits()
    });
}

#[test]
fn quad_read_across_y_uint4() {
    check("quad_read_across_y_uint4.spv", |v| {
        v.wrapping_mul(0x0101_0101)
    });
}

#[test]
fn quad_read_across_y_int4() {
    check("quad_read_across_y_int4.spv", |v| (-(v as i32) - 7) as u32);
}
