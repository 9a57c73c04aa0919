//! The built-in demo scenes (src/demo.rs) checked against independent expectations:
//! `quad_swap` against the swap formula computed here per pixel, `textured` against Mesa's
//! lavapipe rendering of the same scene (golden/lavapipe/textured128.lvp.f32, made with
//! ../shared/tools/lvp on examples/textured.json at 128×128), and determinism across thread
//! counts.

use approx::abs_diff_eq;
use quadstep::demo;
use quadstep::raster::Rasterizer;

fn render(scene: &demo::Scene, threads: usize) -> quadstep::ColorTarget {
    demo::render(scene, &Rasterizer::new(threads).unwrap()).expect("renders")
}

#[test]
fn quad_swap_bands_match_the_swap_formula() {
    let n = 96u32;
    let img = render(&demo::quad_swap(n).unwrap(), 2);
    for y in 0..n {
        for x in 0..n {
            let u = (x as f32 + 0.5) / n as f32;
            // Partner lane: x ^ 1 (across X), y ^ 1 (across Y), both (diagonal).
            let (px, py, band) = if u < 1.0 / 3.0 {
                (x ^ 1, y, 0.0)
            } else if u < 2.0 / 3.0 {
                (x, y ^ 1, 0.5)
            } else {
                (x ^ 1, y ^ 1, 1.0)
            };
            let want = [(px % 8) as f32 / 7.0, (py % 8) as f32 / 7.0, band, 1.0];
            let got = img.read_f32(x, y);
            assert!(
                abs_diff_eq!(got[..], want[..], epsilon = 1e-6),
                "pixel ({x},{y}): got {got:?}, want {want:?}"
            );
        }
    }
}

#[test]
fn textured_scene_agrees_with_lavapipe() {
    let n = 128u32;
    let img = render(&demo::textured(n).unwrap(), 2);
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/golden/lavapipe/textured128.lvp.f32"
    );
    let raw = std::fs::read(path).expect("reference present");
    let lvp: Vec<f32> = raw
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let (mut max, mut over) = (0f32, 0usize);
    for y in 0..n {
        for x in 0..n {
            let got = img.read_f32(x, y);
            let o = ((y * n + x) * 4) as usize;
            let d = (0..4)
                .map(|c| (got[c] - lvp[o + c]).abs())
                .fold(0f32, f32::max);
            max = max.max(d);
            if d > TOL {
                over += 1;
            }
        }
    }
    println!("textured 128x128 vs lavapipe: max diff {max:.4}, {over} pixels over {TOL}");
    assert!(
        over <= MAX_OVER,
        "{over} pixels differ by more than {TOL} (max {max})"
    );
}

/// lavapipe filters RGBA8 in 8-bit fixed point and computes LOD with a fast log2 that runs up
/// to ~0.045 low (tests/lavapipe/README.md), so between two differently coloured mip levels
/// a pixel can move by ~0.045 × 0.8 ≈ 0.04; at the shadow disc's edge a different LOD flips
/// PCF taps. Pixels beyond the tolerance are counted and bounded.
const TOL: f32 = 0.05;
const MAX_OVER: usize = 128 * 128 / 50;

#[test]
fn demo_scenes_are_identical_at_1_2_and_8_threads() {
    for scene in demo::all(64).unwrap() {
        let one = render(&scene, 1);
        for t in [2, 8] {
            assert!(
                render(&scene, t).data == one.data,
                "{} differs at {t} threads",
                scene.name
            );
        }
    }
}
