//! Sampling cost measured the way lavapipe can be measured: whole 512×512 frames whose fragment
//! shader takes N = 0 or N = 16 samples of one kind per pixel (`benches/lavapipe/`: the GLSL,
//! the SPIR-V and the lvp scene files). Cost per sample = (t16 − t0) / (16 · 512²), on one
//! thread; `benches/lavapipe/measure.sh` prints the same figure for lavapipe. Unlike
//! `benches/sampler.rs` (the texture unit alone), this includes the interpreter's share of a
//! sample (operand gathering, the loop), exactly as lavapipe's figure includes its JIT code.
//!
//! `cargo bench --bench sampling_scenes`
//!
//! Instruction counts (repeatable under any load): `QS_SCENE_ONCE=bilinear.16 valgrind
//! --tool=callgrind target/release/deps/sampling_scenes-<hash>` draws that frame once on one
//! thread, outside criterion (`<kind>.<n>`, a scene file of `benches/lavapipe/scenes/`);
//! `QS_SCENE_REPEAT=n` draws it n times (for `perf record`; `QS_SCENE_TIMES=1` prints the frames'
//! median wall time) and `QS_SCENE_HASH=1` prints a hash
//! of the frame, so a speed change can be shown to leave the pixels bit-identical. Per sample:
//! (Ir(kind.16) − Ir(kind.0)) / (16 · 512²).

use criterion::{criterion_group, Criterion};
use quadstep::raster::Rasterizer;
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

/// One frame of one scene (`QS_SCENE_ONCE=<kind>.<n>`) on one thread, for callgrind.
fn once(which: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/lavapipe/scenes");
    let scene = lvp_scene::Scene::load_file(&dir.join(format!("{which}.json")))
        .unwrap_or_else(|e| panic!("{e}"));
    let prepared = scene.prepare().unwrap_or_else(|e| panic!("{e}"));
    let raster = Rasterizer::new(1).unwrap();
    let repeat: usize = std::env::var("QS_SCENE_REPEAT")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1);
    let mut targets = prepared.targets();
    // QS_SCENE_TIMES=1 prints the median of the frames' wall times, for
    // `benches/lavapipe/paired_scenes.sh`
    let mut times = Vec::with_capacity(repeat);
    for _ in 0..repeat {
        let start = std::time::Instant::now();
        prepared
            .draw_into(&raster, &mut targets)
            .unwrap_or_else(|e| panic!("{e}"));
        times.push(start.elapsed().as_secs_f64() * 1e3);
        // QS_SCENE_HASH=1: an FNV-1a hash of every attachment's bytes
        if std::env::var_os("QS_SCENE_HASH").is_some() {
            let h = lvp_scene::hash_targets(&targets);
            println!("{which}: {h:016x}");
        }
    }
    if std::env::var_os("QS_SCENE_TIMES").is_some() && !times.is_empty() {
        times.sort_by(f64::total_cmp);
        println!("{which} median_ms {:.4}", times[times.len() / 2]);
    }
}

criterion_group!(benches, sampling);

fn main() {
    match std::env::var("QS_SCENE_ONCE") {
        Ok(which) => once(&which),
        Err(_) => {
            benches();
            criterion::Criterion::default()
                .configure_from_args()
                .final_summary();
        }
    }
}
