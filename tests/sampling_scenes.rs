//! The sampling-cost scenes of `benches/lavapipe/` (N = 16 samples per pixel of one kind) must
//! show the same picture on quadstep as on lavapipe, or the side-by-side timing in
//! BENCHMARKS.md would not be the same work. lavapipe's PNGs (`benches/lavapipe/png/`,
//! `round(clamp(v) * 255)`) were rendered once with `../shared/tools/lvp`.
//!
//! Tolerance: each output is the mean of 16 samples, so per-sample differences average out;
//! lavapipe filters with 8-bit fixed-point weights (a texel weight can be off by 1/256), so a
//! channel may differ by 2/255, no pixel by more. Measured when committed (2026-11-30): largest
//! channel difference 0 (nearest, gather) or 1 (bilinear, trilinear, Dref PCF, cube).
//! The anisotropic scene is only timed, not compared: lavapipe's anisotropic filter is its own
//! and the spec leaves the footprint to the implementation.

use std::path::Path;

#[path = "lavapipe_support/mod.rs"]
mod lavapipe_support;

#[test]
fn sampling_scenes_match_lavapipe() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/lavapipe");
    let mut report = Vec::new();
    for kind in [
        "nearest",
        "bilinear",
        "trilinear",
        "dref_pcf",
        "cube_bilinear",
        "gather",
    ] {
        let scene = lavapipe_support::Scene::load_file(&dir.join(format!("scenes/{kind}.16.json")))
            .unwrap_or_else(|e| panic!("{e}"));
        let got = scene.render(2).unwrap_or_else(|e| panic!("{e}")).to_rgba8();
        let want = quadstep::golden::load_png(&dir.join(format!("png/{kind}.16.png"))).unwrap();
        let c = quadstep::golden::compare(
            &want,
            &got,
            quadstep::golden::Tolerance {
                max_channel_diff: 2,
                max_differing_pixels: 0,
            },
        );
        report.push(format!("{kind}: {}", c.describe()));
        assert!(c.passed, "{kind}: {}", c.describe());
    }
    eprintln!("{}", report.join("\n"));
}
