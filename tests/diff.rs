//! `quadstep diff` (`quadstep::diff`) on planted differences and on optimised builds.
//!
//! The golden scenes' fragment shaders are built twice: once as written, once with a planted
//! change — a changed constant, a swapped quad direction, a dropped depth comparison — and the
//! diff must find differences; a build and its `spirv-opt -O` build must give none, on every
//! golden scene. What counts as "the same" is bit equality of every buffer and attachment the
//! scene ends with, not anything the diff computes itself.

use std::path::{Path, PathBuf};

mod common;

use common::tools::{self, Tool};
use quadstep::amber::ast::{ShaderSource, ShaderType};
use quadstep::amber::run_shaders::{default_cache_dir, shader_words};
use quadstep::amber::RunOptions;
use quadstep::diff::{scene, Build};
use quadstep::ir::Stage;

fn golden(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("shaders/golden")
        .join(format!("{name}.amber"))
}

/// The names of a golden scene's fragment shaders.
fn fragments(name: &str) -> Vec<String> {
    let script = quadstep::amber::parse_file(&golden(name)).expect("parses");
    script
        .shaders()
        .filter(|s| s.stage == ShaderType::Fragment)
        .map(|s| s.name.clone())
        .collect()
}

/// The SPIR-V of a golden scene's (first) fragment shader, its GLSL edited by `edit`.
fn fragment(name: &str, edit: impl Fn(&str) -> String) -> Vec<u32> {
    fragment_named(name, &fragments(name)[0], edit)
}

fn fragment_named(name: &str, shader: &str, edit: impl Fn(&str) -> String) -> Vec<u32> {
    let script = quadstep::amber::parse_file(&golden(name)).expect("parses");
    let mut decl = script
        .shaders()
        .find(|s| s.name == shader)
        .expect("a fragment shader")
        .clone();
    let ShaderSource::Text(t) = &decl.source else {
        panic!("inline GLSL")
    };
    let edited = edit(t);
    assert!(edited != *t || edit("x") == "x", "the edit changed nothing");
    decl.source = ShaderSource::Text(edited);
    shader_words(
        &decl,
        ShaderType::Fragment,
        "main",
        None,
        &default_cache_dir(),
    )
    .expect("compiles")
}

fn differing(name: &str, a: &Build, b: &Build) -> usize {
    differing_in(name, None, a, b)
}

/// Differing values (and outcome notes) of two builds in a golden scene, under Vulkan's
/// texture rules for both.
fn differing_in(name: &str, shader: Option<&str>, a: &Build, b: &Build) -> usize {
    let opts = RunOptions {
        policy: Some(quadstep::texture::Policy::Vulkan),
        ..RunOptions::default()
    };
    let r = scene(&golden(name), Stage::Fragment, shader, a, b, &opts, 5).expect("runs");
    for d in &r.first {
        println!("{name}: {} A {} B {} ULP {:?}", d.place, d.a, d.b, d.ulp);
    }
    for n in &r.notes {
        println!("{name}: {n}");
    }
    r.differing + r.notes.len()
}

#[test]
fn planted_differences_are_found() {
    if !tools::have("diff", &[Tool::Glslang]) {
        return;
    }
    let same = |t: &str| t.to_string();
    let base = Build::Spirv(fragment("quad_read_across", same));
    // a changed constant: the brightness base 32 → 33
    let constant = Build::Spirv(fragment("quad_read_across", |t| {
        t.replace("float(32 + 3 *", "float(33 + 3 *")
    }));
    assert!(differing("quad_read_across", &base, &constant) > 0);
    // a swapped quad direction: QuadReadAcrossX computed as AcrossY
    let swapped = Build::Spirv(fragment("quad_read_across", |t| {
        t.replace(
            "subgroupQuadSwapHorizontal(own)",
            "subgroupQuadSwapVertical(own)",
        )
    }));
    assert!(differing("quad_read_across", &base, &swapped) > 0);
    // a dropped comparison: the same GLSL through spirv-to-dxil at SM 6.7, where Mesa turns
    // textureGrad and biased texture on the shadow sampler into SampleGrad / SampleBias
    // (dxil.md §4.1), against the SM 6.8 build (SampleCmpGrad / SampleCmpBias)
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |p: &str| std::fs::read(root.join(p)).expect("container");
    let sm68 = Build::Dxil(read("shaders/golden/dxil/shadow_cmp/frag.dxil"));
    let sm67 = Build::Dxil(read("tests/data/diff/shadow_cmp_frag_sm67.dxil"));
    assert!(differing("shadow_cmp", &sm68, &sm67) > 0);
    // and the unchanged builds agree
    assert_eq!(differing("quad_read_across", &base, &base.clone()), 0);
}

#[test]
fn spirv_opt_builds_of_the_golden_scenes_differ_by_at_most_a_rounding_step() {
    if !tools::have("diff", &[Tool::Glslang, Tool::SpirvOpt]) {
        return;
    }
    for name in [
        "quad_read_across",
        "shadow_cmp",
        "trilinear_mips",
        "cube_map",
        "fwidth_edges",
        "discard_helpers",
    ] {
        for shader in fragments(name) {
            let words = fragment_named(name, &shader, |t| t.to_string());
            let opt = quadstep::amber::run_shaders::optimize(
                &words,
                &["-O".to_string()],
                &default_cache_dir(),
            )
            .expect("spirv-opt -O");
            assert_ne!(words, opt, "{name}: spirv-opt changed nothing");
            // spirv-opt may reassociate float arithmetic (a one-ULP change of an f32 colour
            // moves an exactly rounded 8-bit value only next to a half-way point): allow a few
            // one-step differences in the 8-bit framebuffers, nothing more
            let opts = RunOptions {
                policy: Some(quadstep::texture::Policy::Vulkan),
                ..RunOptions::default()
            };
            let (a, b) = (Build::Spirv(words), Build::Spirv(opt));
            let r = scene(
                &golden(name),
                Stage::Fragment,
                Some(&shader),
                &a,
                &b,
                &opts,
                5,
            )
            .expect("runs");
            for d in &r.first {
                println!("{name}: {} A {} B {} ULP {:?}", d.place, d.a, d.b, d.ulp);
            }
            assert!(r.notes.is_empty(), "{name}/{shader}: {:?}", r.notes);
            assert!(
                r.differing <= 4,
                "{name}/{shader}: {} values differ",
                r.differing
            );
            assert!(
                r.first.iter().all(|d| d.ulp == Some(1)),
                "{name}/{shader}: the -O build differs by more than one step"
            );
        }
    }
}
