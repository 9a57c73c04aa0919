//! The raster benchmark frames (`benches/lavapipe/raster/`) drawn by quadstep and by
//! lavapipe must agree, so the side-by-side timings in BENCHMARKS.md compare the same pictures.
//! The same holds for the frames of `benches/lavapipe/frames/` (shaders people write: varying
//! LOD, gradients, Dref with gradients, push constants, a lit material).
//! Needs the lvp tool and Mesa's lavapipe, so it is ignored by default:
//! `python3 benches/lavapipe/raster/gen.py && python3 benches/lavapipe/frames/gen.py &&
//! cargo test --release --test raster_scenes_lavapipe -- --ignored` (lvp built into
//! `target/lvp` by `benches/paired.py`, or `LVP=/path/to/lvp`).

mod common;
mod lavapipe_support;

use common::tools::{self, Tool};
use lavapipe_support::{read_f32s, Scene};
use std::path::Path;

/// Fails (these tests run only when asked for) unless lvp is built.
fn need_lvp() {
    if let Some(why) = tools::missing(&[Tool::Lvp]) {
        panic!("{why}");
    }
}

/// lvp's raw f32 RGBA of one scene file.
fn lavapipe_frame(file: &Path, name: &str) -> Vec<f32> {
    let raw = std::env::temp_dir().join(format!("quadstep-frame-{name}.f32"));
    let st = Tool::Lvp
        .command()
        .arg(file)
        .arg("--out-raw")
        .arg(&raw)
        .status()
        .expect("run lvp");
    assert!(st.success(), "lvp failed on {name}");
    read_f32s(&raw)
}

#[test]
#[ignore = "needs lvp and lavapipe; see the module comment"]
fn benchmark_frames_match_lavapipe() {
    need_lvp();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-frames");
    // Largest difference allowed per channel, in 1/255 steps. Where LOD decides the colour,
    // lavapipe quantises λ to 4 fractional bits and the filter weights to 8 (its limits
    // `mipmapPrecisionBits`/`subTexelPrecisionBits`) where quadstep computes them exactly:
    // that moves trilinear colours by a few steps where levels differ most (`textured`'s
    // coloured mips, `grad`), and Dref results by up to 1/4 of a PCF step (`dref_grad`,
    // the textured frame's shadow edge). The others agree to rounding. `alu` is not compared:
    // 64 iterations of `fract` amplify a 1-ulp difference in `sin` into any value.
    for (name, limit) in [
        ("textured", 16),
        ("varying_lod", 2),
        ("grad", 6),
        ("dref_grad", 16),
        ("uniforms", 1),
        ("material", 2),
    ] {
        let file = dir.join(format!("{name}.json"));
        let theirs = lavapipe_frame(&file, name);
        let ours = Scene::load_file(&file).unwrap().render(2).unwrap();
        let q = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as i32;
        let worst = ours
            .px
            .iter()
            .flatten()
            .zip(&theirs)
            .map(|(&a, &b)| (q(a) - q(b)).abs())
            .max()
            .unwrap();
        eprintln!("{name}: largest difference {worst}/255 (limit {limit})");
        assert!(worst <= limit, "{name}: {worst}/255 > {limit}/255");
    }
}

#[test]
#[ignore = "needs lvp and lavapipe; see the module comment"]
fn raster_benchmark_scenes_match_lavapipe() {
    need_lvp();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/lavapipe/raster/build");
    for name in [
        "fullscreen_trilinear",
        "small_triangles",
        "depth_scene",
        "blend_scene",
    ] {
        let file = dir.join(format!("{name}.json"));
        let theirs = lavapipe_frame(&file, name);
        let ours = Scene::load_file(&file).unwrap().render(2).unwrap();
        // both renderers store R8G8B8A8_UNORM: compare in 1/255 steps
        let q = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as i32;
        let (mut differ, mut worst, mut by) = (0usize, 0i32, [0usize; 4]);
        for (i, p) in ours.px.iter().enumerate() {
            let d = (0..4)
                .map(|c| (q(p[c]) - q(theirs[i * 4 + c])).abs())
                .max()
                .unwrap();
            differ += (d > 0) as usize;
            worst = worst.max(d);
            by[d.min(3) as usize] += 1;
        }
        eprintln!("{name}: pixels by largest difference 0, 1, 2, >2 (1/255): {by:?}");
        // Pixels whose colour differs by more than 1/255 are coverage differences: the pixel
        // belongs to another triangle (or to none) on the other side.
        let coverage = ours
            .px
            .iter()
            .enumerate()
            .filter(|(i, p)| (0..4).any(|c| (q(p[c]) - q(theirs[i * 4 + c])).abs() > 2))
            .count();
        eprintln!(
            "{name}: {differ} pixels differ, largest difference {worst}/255, {coverage} by coverage"
        );
        // Interpolated colours agree within 1/255 and the trilinear sample within 2/255
        // (lavapipe's approximate LOD, see golden/README.md). Blending: llvmpipe blends 8-bit
        // colours in 8-bit fixed-point arithmetic, quadstep in f32 rounded once at the end
        // (the precision Vulkan asks of either); a layer's step of difference is shrunk by
        // (1 − srcA) under the next one, and the frame shows 2 steps at most (0.8% of the
        // pixels). Coverage is exact on both sides except next to a vertex
        // that lies exactly halfway between two sub-pixel positions: quadstep snaps with
        // round-half-away-from-zero in f64, lavapipe with lrintf (half to even) in f32, and
        // Vulkan leaves the tie to the implementation. That is 6 pixels in the small-triangle
        // scene and 6 in the depth scene, where most edges are hidden, and 22 in the blended
        // scene, where every edge shows through.
        let (limit, ties, twos) = match name {
            "fullscreen_trilinear" => (2, 8, usize::MAX),
            "blend_scene" => (2, 24, 20_000),
            _ => (1, 8, 0),
        };
        assert!(
            coverage <= ties,
            "{name}: {coverage} pixels differ in coverage"
        );
        assert!(by[2] <= twos, "{name}: {} pixels differ by 2/255", by[2]);
        let worst_colour = ours
            .px
            .iter()
            .enumerate()
            .map(|(i, p)| {
                (0..4)
                    .map(|c| (q(p[c]) - q(theirs[i * 4 + c])).abs())
                    .max()
                    .unwrap()
            })
            .filter(|&d| d <= 2)
            .max()
            .unwrap_or(0);
        assert!(
            worst_colour <= limit,
            "{name}: colour difference {worst_colour}/255"
        );
    }
}
