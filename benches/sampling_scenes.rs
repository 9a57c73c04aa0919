//! Sampling cost measured the way lavapipe can be measured: whole 512×512 frames whose fragment
//! shader takes N = 0 or N = 16 samples of one kind per pixel (`benches/lavapipe/`: the GLSL,
//! the SPIR-V and the lvp scene files). Cost per sample = (t16 − t0) / (16 · 512²), on one
//! thread; `benches/lavapipe/measure.sh` prints the same figure for lavapipe. Unlike
//! `benches/sampler.rs` (the texture unit alone), this includes the interpreter's share of a
//! sample (operand gathering, the loop), exactly as lavapipe's figure includes its JIT code.
//!
//! `cargo bench --bench sampling_scenes`

use criterion::{criterion_group, criterion_main, Criterion};
use std::path::Path;

#[path = "../tests/lavapipe_support/mod.rs"]
mod lvp_scene;

fn sampling(c: &mut Criterion) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/lavapipe/scenes");
    let mut g = c.benchmark_group("sampling_512");
    g.sample_size(10);
    for kind in [
        "nearest",
        "bilinear",
        "trilinear",
        "aniso16",
        "dref_pcf",
        "cube_bilinear",
        "gather",
    ] {
        for n in [0, 16] {
            let scene = lvp_scene::Scene::load_file(&dir.join(format!("{kind}.{n}.json")))
                .unwrap_or_else(|e| panic!("{e}"));
            g.bench_function(format!("{kind}/n{n}"), |b| {
                b.iter(|| scene.render(1).unwrap_or_else(|e| panic!("{e}")))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, sampling);
criterion_main!(benches);
