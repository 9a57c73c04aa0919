//! Whole-frame timings of the built-in scenes that mirror the lavapipe oracle's performance
//! scenes (`../shared/tools/lvp/examples/{textured,alu}.json`), at 1 and 2 threads, so
//! BENCHMARKS.md can put quadstep and lavapipe side by side on the same work.
//!
//! `cargo bench --bench scenes`

use criterion::{criterion_group, criterion_main, Criterion};
use quadstep::{demo, raster::Rasterizer};

fn scenes(c: &mut Criterion) {
    let mut g = c.benchmark_group("scene");
    g.sample_size(10);
    for threads in [1usize, 2] {
        let raster = Rasterizer::new(threads).unwrap();
        let textured = demo::textured(1024).unwrap();
        g.bench_function(format!("textured_1024/{threads}t"), |b| {
            b.iter(|| demo::render(&textured, &raster).unwrap())
        });
        // The ALU scene is timed at 256x256 (1/16 of the pixels); compare with lavapipe at
        // the same size.
        let alu = demo::alu(256).unwrap();
        g.bench_function(format!("alu_256/{threads}t"), |b| {
            b.iter(|| demo::render(&alu, &raster).unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, scenes);
criterion_main!(benches);
