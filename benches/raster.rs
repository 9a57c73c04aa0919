//! Rasterizer throughput with closure shaders at 1024x1024: one fullscreen quad, 10 000 small
//! triangles, and a depth-tested scene of overlapping layers; each at 1 and 2 threads.

use criterion::{criterion_group, Criterion};
use quadstep::raster::*;
use quadstep::Result;

const W: u32 = 1024;
const H: u32 = 1024;

fn vs() -> VertexFn<impl Fn(&VertexBatch, &mut VertexOutputs) -> Result<()> + Sync> {
    VertexFn {
        varyings: 1,
        f: |i: &VertexBatch, o: &mut VertexOutputs| {
            let p = i.attribute(0).expect("position");
            let c = i.attribute(1).expect("colour");
            for v in 0..i.len() {
                o.position[v] = p[v].map(f32::from_bits);
                o.varyings[0][v] = c[v];
            }
            Ok(())
        },
    }
}

fn fs() -> FragmentFn<impl Fn(&QuadBatch, &mut QuadOutputs) -> Result<()> + Sync> {
    FragmentFn {
        interpolation: vec![Interpolation::Smooth],
        writes_depth: false,
        can_discard: false,
        f: |i: &QuadBatch, o: &mut QuadOutputs| {
            o.color[0].copy_from_slice(&i.varyings[0]);
            Ok(())
        },
    }
}

fn state(depth: bool) -> PipelineState {
    let mut st = PipelineState {
        vertex_bindings: vec![VertexBinding {
            binding: 0,
            stride: 32,
            input_rate: InputRate::Vertex,
        }],
        vertex_attributes: vec![
            VertexAttribute {
                location: 0,
                binding: 0,
                format: Format::R32G32B32A32_SFLOAT,
                offset: 0,
            },
            VertexAttribute {
                location: 1,
                binding: 0,
                format: Format::R32G32B32A32_SFLOAT,
                offset: 16,
            },
        ],
        ..Default::default()
    };
    if depth {
        st.depth_stencil.depth_test = true;
        st.depth_stencil.depth_write = true;
        st.depth_stencil.depth_compare = CompareOp::Less;
    }
    st
}

fn bytes(v: &[[f32; 4]]) -> Vec<u8> {
    v.iter().flatten().flat_map(|f| f.to_le_bytes()).collect()
}

/// The stream the frames' geometry is drawn from, which `benches/lavapipe/raster/gen.py`
/// reproduces in Python so that lavapipe draws the same triangles: Knuth's 64-bit LCG, its top
/// 24 bits as an f32 in [0, 1).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
}

fn fullscreen_quad() -> Vec<u8> {
    let c = [0.2, 0.4, 0.6, 1.0];
    let p = [
        [-1.0, -1.0, 0.5, 1.0],
        [1.0, -1.0, 0.5, 1.0],
        [-1.0, 1.0, 0.5, 1.0],
        [1.0, 1.0, 0.5, 1.0],
    ];
    bytes(&[p[0], c, p[1], c, p[2], c, p[2], c, p[1], c, p[3], c])
}

fn small_triangles(n: usize) -> Vec<u8> {
    let mut r = Lcg(1);
    let mut v = Vec::new();
    for _ in 0..n {
        let (cx, cy) = (r.next() * 2.0 - 1.0, r.next() * 2.0 - 1.0);
        let c = [r.next(), r.next(), r.next(), 1.0];
        for _ in 0..3 {
            v.push([
                cx + (r.next() - 0.5) * 0.03,
                cy + (r.next() - 0.5) * 0.03,
                0.5,
                1.0,
            ]);
            v.push(c);
        }
    }
    bytes(&v)
}

fn depth_scene() -> Vec<u8> {
    // 8 layers of 64 medium triangles at random depths, perspective w.
    let mut r = Lcg(2);
    let mut v = Vec::new();
    for _ in 0..512 {
        let (cx, cy, z) = (r.next() * 2.0 - 1.0, r.next() * 2.0 - 1.0, r.next());
        let c = [r.next(), r.next(), r.next(), 1.0];
        for _ in 0..3 {
            let w = 1.0 + r.next();
            v.push([
                (cx + (r.next() - 0.5) * 0.5) * w,
                (cy + (r.next() - 0.5) * 0.5) * w,
                z * w,
                w,
            ]);
            v.push(c);
        }
    }
    bytes(&v)
}

fn bench(c: &mut Criterion) {
    let (vs, fs) = (vs(), fs());
    let scenes = [
        ("fullscreen_quad", fullscreen_quad(), false),
        ("10k_small_triangles", small_triangles(10_000), false),
        ("depth_tested_scene", depth_scene(), true),
    ];
    for threads in [1, 2] {
        let r = Rasterizer::new(threads).expect("thread pool");
        for (name, data, depth) in &scenes {
            let pipe = Pipeline {
                state: state(*depth),
                vertex: &vs,
                fragment: &fs,
                stages: Default::default(),
            };
            let mut rt = RenderTargets {
                color: vec![ColorTarget::new(Format::R8G8B8A8_UNORM, W, H)],
                depth_stencil: depth.then(|| DepthStencilTarget::new(Format::D32_SFLOAT, W, H)),
            };
            let count = (data.len() / 32) as u32;
            c.bench_function(&format!("{name}/{threads}t"), |b| {
                b.iter(|| {
                    if let Some(d) = rt.depth_stencil.as_mut() {
                        d.clear(1.0, 0);
                    }
                    let mut pass = r.begin(&mut rt);
                    pass.bind_pipeline(&pipe);
                    pass.bind_vertex_buffers(&[VertexBuffer {
                        binding: 0,
                        data,
                        offset: 0,
                    }]);
                    pass.draw(count, 1, 0, 0).expect("draw");
                })
            });
        }
    }
}

/// One frame of one scene, for `valgrind --tool=callgrind` (instruction counts do not depend on
/// the machine's load): `RASTER_ONCE=depth_tested_scene/2t cargo bench --bench raster`.
fn once(which: &str) {
    let (vs, fs) = (vs(), fs());
    let (name, threads) = which.split_once('/').expect("RASTER_ONCE=<scene>/<n>t");
    let threads: usize = threads.trim_end_matches('t').parse().expect("thread count");
    let (data, depth) = match name {
        "fullscreen_quad" => (fullscreen_quad(), false),
        "10k_small_triangles" => (small_triangles(10_000), false),
        "depth_tested_scene" => (depth_scene(), true),
        _ => panic!("unknown scene {name}"),
    };
    let r = Rasterizer::new(threads).expect("thread pool");
    let pipe = Pipeline {
        state: state(depth),
        vertex: &vs,
        fragment: &fs,
        stages: Default::default(),
    };
    let mut rt = RenderTargets {
        color: vec![ColorTarget::new(Format::R8G8B8A8_UNORM, W, H)],
        depth_stencil: depth.then(|| DepthStencilTarget::new(Format::D32_SFLOAT, W, H)),
    };
    let reps: usize = std::env::var("RASTER_REPS").map_or(1, |r| r.parse().expect("RASTER_REPS"));
    for _ in 0..reps {
        let t = std::time::Instant::now();
        if let Some(d) = rt.depth_stencil.as_mut() {
            d.clear(1.0, 0);
        }
        let mut pass = r.begin(&mut rt);
        pass.bind_pipeline(&pipe);
        pass.bind_vertex_buffers(&[VertexBuffer {
            binding: 0,
            data: &data,
            offset: 0,
        }]);
        pass.draw((data.len() / 32) as u32, 1, 0, 0).expect("draw");
        if reps > 1 {
            eprintln!("{which}: {:.2} ms", t.elapsed().as_secs_f64() * 1e3);
        }
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench
}

fn main() {
    match std::env::var("RASTER_ONCE") {
        Ok(which) => once(&which),
        Err(_) => {
            benches();
            Criterion::default().configure_from_args().final_summary();
        }
    }
}
