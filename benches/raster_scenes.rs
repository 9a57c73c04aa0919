//! The four 1024×1024 raster frames through the whole pipeline (SPIR-V shaders in the
//! interpreter), exactly the work lavapipe is timed on: the lvp scene files built by
//! `benches/lavapipe/raster/gen.py` — one fullscreen quad with a trilinear sample per pixel,
//! 10 000 small triangles, a depth-tested scene of 512 overlapping triangles and an
//! alpha-blended one — at 1 and 2 threads. Each iteration is what lvp times per submit on its
//! persistent image: the render pass's clear (load op) plus the draw, into one set of
//! attachments kept across iterations.
//! `benches/lavapipe/raster/measure.sh` prints lavapipe's medians for the same files.
//! (`benches/raster.rs` times the rasterizer alone, with closure shaders.)
//!
//! `cargo bench --bench raster_scenes`
//!
//! Instruction counts (repeatable under any load): `QS_SCENE_ONCE=depth_scene/1t valgrind
//! --tool=callgrind target/release/deps/raster_scenes-<hash>` draws that frame once, outside
//! criterion (`QS_SCENE_ONCE=path/to/scene.json/1t` for any lvp scene file; `QS_SCENE_REPEAT=n`
//! draws it n times, for `perf record`; `QS_SCENE_TIMES=1` prints the frames' median wall time;
//! `QS_SCENE_PHASES=1` the median of each phase, from `RenderPass::last_draw_times`).
//!
//! This machine's speed drifts by tens of per cent within minutes, so a ratio of two figures
//! taken minutes apart can be off by that much. `benches/paired.py` alternates
//! lavapipe and quadstep, at one and two threads, in short blocks and reports each ratio as the
//! median over the rounds of ratios taken seconds apart.

use criterion::{criterion_group, Criterion};
use quadstep::raster::Rasterizer;
use std::path::Path;

#[path = "../tests/lavapipe_support/mod.rs"]
mod lvp_scene;

fn raster_scenes(c: &mut Criterion) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/lavapipe/raster/build");
    let mut g = c.benchmark_group("raster_1024");
    g.sample_size(10);
    for name in [
        "fullscreen_trilinear",
        "small_triangles",
        "depth_scene",
        "blend_scene",
    ] {
        let file = dir.join(format!("{name}.json"));
        let scene = lvp_scene::Scene::load_file(&file).unwrap_or_else(|e| {
            panic!("{e} (build the scenes with benches/lavapipe/raster/gen.py)")
        });
        let prepared = scene.prepare().unwrap_or_else(|e| panic!("{e}"));
        for threads in [1, 2] {
            let raster = Rasterizer::new(threads).unwrap();
            // one persistent set of attachments, cleared by the pass each frame (lvp's image)
            let mut targets = prepared.targets();
            g.bench_function(format!("{name}/{threads}t"), |b| {
                b.iter(|| {
                    prepared
                        .draw_into(&raster, &mut targets)
                        .unwrap_or_else(|e| panic!("{e}"))
                })
            });
        }
    }
    g.finish();
}

/// One frame of one scene (`QS_SCENE_ONCE=<scene>/<n>t`), for callgrind.
fn once(which: &str) {
    let (name, threads) = which.rsplit_once('/').expect("QS_SCENE_ONCE=<scene>/<n>t");
    let threads: usize = threads.trim_end_matches('t').parse().expect("thread count");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/lavapipe/raster/build");
    // a scene name from build/, or any lvp scene file
    let file = if name.ends_with(".json") {
        Path::new(name).to_path_buf()
    } else {
        dir.join(format!("{name}.json"))
    };
    let scene = lvp_scene::Scene::load_file(&file).unwrap_or_else(|e| panic!("{e}"));
    // QS_SCENE_PNG=path writes the frame as an RGBA8 PNG, to hold it beside lvp's `--out-png`
    if let Some(png) = std::env::var_os("QS_SCENE_PNG") {
        let frame = scene.render(threads).unwrap_or_else(|e| panic!("{e}"));
        frame
            .to_rgba8()
            .save(&png)
            .unwrap_or_else(|e| panic!("{}: {e}", Path::new(&png).display()));
    }
    let prepared = scene.prepare().unwrap_or_else(|e| panic!("{e}"));
    let raster = Rasterizer::new(threads).unwrap();
    // QS_SCENE_REPEAT=n draws it n times (for a sampling profiler such as `perf record`)
    let repeat: usize = std::env::var("QS_SCENE_REPEAT")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1);
    let mut targets = prepared.targets();
    // QS_SCENE_TIMES=1 prints the median of the frames' wall times (what lvp's `median_ms`
    // is), for `benches/paired.py`, which alternates the two renderers
    let mut times = Vec::with_capacity(repeat);
    let mut phases: Vec<[f64; 4]> = Vec::with_capacity(repeat);
    for _ in 0..repeat {
        let start = std::time::Instant::now();
        let drawn = prepared
            .draw_into(&raster, &mut targets)
            .unwrap_or_else(|e| panic!("{e}"));
        times.push(start.elapsed().as_secs_f64() * 1e3);
        if let Some(d) = drawn {
            phases.push([d.vertex, d.setup, d.bin, d.tiles].map(|t| t.as_secs_f64() * 1e3));
        }
        // QS_SCENE_HASH=1 prints an FNV-1a hash of every attachment's bytes, so a speed change
        // can be shown to leave the frame bit-identical at any thread count
        if std::env::var_os("QS_SCENE_HASH").is_some() {
            let h = lvp_scene::hash_targets(&targets);
            println!("{which}: {h:016x}");
        }
    }
    // QS_SCENE_PHASES=1 prints the median of each phase of the draw (`DrawTimes`)
    if std::env::var_os("QS_SCENE_PHASES").is_some() && !phases.is_empty() {
        let median = |k: usize| {
            let mut v: Vec<f64> = phases.iter().map(|p| p[k]).collect();
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        println!(
            "{which} phases_ms vertex {:.3} setup {:.3} bin {:.3} tiles {:.3}",
            median(0),
            median(1),
            median(2),
            median(3)
        );
    }
    if std::env::var_os("QS_SCENE_TIMES").is_some() && !times.is_empty() {
        times.sort_by(f64::total_cmp);
        // and the fastest frame: the least disturbed on a host that stalls a vCPU now and then
        println!(
            "{which} median_ms {:.4} min_ms {:.4}",
            times[times.len() / 2],
            times[0]
        );
    }
}

criterion_group!(benches, raster_scenes);

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
