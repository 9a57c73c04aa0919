//! Texture-unit throughput: quads (4 samples) per second for the common operations.
//! Each iteration samples 64 different quads; criterion reports samples/s (4 per quad).
//!
//! Time is the benchmark thread's CPU time (`/proc/thread-self/schedstat`), not wall time:
//! the development machines are shared and heavily loaded, and CPU time is what a quad costs.
//! That clock advances at scheduler updates, hence 10 flat samples of equal, long duration.
//!
//! Instruction counts (repeatable under any load): with `QS_CALLGRIND_CASE=<name>` set the
//! binary skips criterion and runs that case's 64 quads `QS_CALLGRIND_ITERS` times (default
//! 100) inside `drive`, e.g.
//! `QS_CALLGRIND_CASE=bilinear_rgba8_2d valgrind --tool=callgrind --toggle-collect='*drive*'
//! target/release/deps/sampler-<hash>`; Ir / (64 · iters) = instructions per quad (with
//! `QS_SAMPLER_TIME=1` and no valgrind it prints the thread CPU time per sample instead, which
//! `benches/paired.py sampler` sets beside lavapipe's figure, seconds apart). The
//! `*_wide` cases sample the same quads as their namesakes through `Kernel::sample_batch`
//! (the interpreter's rows, 16 quads per call; `dref_pcf2x2_d32_wide` with its Dref row,
//! the cube cases with the direction's third row), `gather_rgba8_2d_wide` through
//! `Kernel::gather_batch`. `cube_bilinear_rgba8*` are lavapipe's cube scene's quads.

use criterion::measurement::{Measurement, ValueFormatter};
use criterion::{black_box, criterion_group, Criterion, SamplingMode, Throughput};
use quadstep::texture::{
    AddressMode, BatchArgs, BatchGatherOffsets, BatchLod, CompareOp, Config, Filter, Format,
    GatherArgs, GatherBatchArgs, Image, ImageView, Kernel, LodMode, SampleArgs, Sampler, ViewType,
    WIDE_QUADS,
};

const QUADS: usize = 64;

/// CPU time of the current thread, in ns.
struct CpuTime;

fn thread_cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|x| x.parse().ok()))
        .unwrap_or(0)
}

impl Measurement for CpuTime {
    type Intermediate = u64;
    type Value = u64;
    fn start(&self) -> u64 {
        thread_cpu_ns()
    }
    fn end(&self, i: u64) -> u64 {
        thread_cpu_ns().saturating_sub(i)
    }
    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, v: &u64) -> f64 {
        *v as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        &NsFormatter
    }
}

struct NsFormatter;

impl ValueFormatter for NsFormatter {
    fn scale_values(&self, typical: f64, values: &mut [f64]) -> &'static str {
        if typical >= 1000.0 {
            values.iter_mut().for_each(|v| *v /= 1000.0);
            "µs (cpu)"
        } else {
            "ns (cpu)"
        }
    }
    fn scale_throughputs(&self, _typical: f64, t: &Throughput, values: &mut [f64]) -> &'static str {
        let n = match t {
            Throughput::Elements(n) | Throughput::Bytes(n) | Throughput::BytesDecimal(n) => {
                *n as f64
            }
        };
        values.iter_mut().for_each(|v| *v = n * 1e3 / *v); // per µs = millions per second
        "Melem/s (cpu)"
    }
    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}

fn noise_image(img: &mut Image) {
    fastrand::Rng::with_seed(0x9e37_79b9_7f4a_7c15).fill(img.bytes_mut());
}

/// Quads of coordinates with the given per-pixel step (in normalized units).
fn quads(step: [f32; 2], z: f32) -> Vec<SampleArgs> {
    (0..QUADS)
        .map(|q| {
            let s = 0.013 * q as f32 + 0.1;
            let t = 0.007 * q as f32 + 0.2;
            let c = std::array::from_fn(|i| {
                let (x, y) = ((i & 1) as f32, (i >> 1) as f32);
                [s + x * step[0], t + y * step[1], z, 0.0]
            });
            SampleArgs::new(c)
        })
        .collect()
}

/// One benchmark: a name and a closure that runs its 64 quads once.
type Case<'a> = (&'static str, Box<dyn Fn() + 'a>);

fn sample_case<'a>(
    name: &'static str,
    img: &'a Image,
    view: &ImageView,
    s: &Sampler,
    args: Vec<SampleArgs>,
) -> Case<'a> {
    let k = Kernel::new(img, view, s, Config::default()).unwrap();
    let run = move || {
        for a in &args {
            black_box(k.sample(img, black_box(a)).unwrap());
        }
    };
    (name, Box::new(run))
}

/// [`sample_case`] through [`Kernel::sample_batch`]: the quads of `args` (implicit LOD, no
/// other operands) as the interpreter's rows (`s`, `t`: lane `4q + i` is quad `q`'s lane
/// `i`), sampled a batch of [`WIDE_QUADS`] quads at a time.
fn wide_case<'a>(
    name: &'static str,
    img: &'a Image,
    view: &ImageView,
    s: &Sampler,
    args: &[SampleArgs],
) -> Case<'a> {
    let k = Kernel::new(img, view, s, Config::default()).unwrap();
    assert!(k.has_wide_path() && args.iter().all(|a| a.lod == LodMode::IMPLICIT));
    let row = |c: usize| -> Vec<u32> {
        args.iter()
            .flat_map(|a| a.coords.map(|l| l[c].to_bits()))
            .collect()
    };
    let (s_row, t_row) = (row(0), row(1));
    // cube views: the direction's third component (2D views: no such row)
    let r_row = if view.view_type.is_cube() {
        row(2)
    } else {
        Vec::new()
    };
    let dref_row: Vec<u32> = args
        .iter()
        .flat_map(|a| a.dref.map_or([0; 4], |d| d.map(f32::to_bits)))
        .collect();
    let dref_row = if args.iter().any(|a| a.dref.is_some()) {
        dref_row
    } else {
        Vec::new()
    };
    let masks: Vec<u8> = args.iter().map(|a| a.mask).collect();
    let out = std::cell::RefCell::new(vec![[0u32; 4]; 4 * args.len()]);
    let run = move || {
        let mut out = out.borrow_mut();
        for q0 in (0..masks.len()).step_by(WIDE_QUADS) {
            let q1 = (q0 + WIDE_QUADS).min(masks.len());
            let b = BatchArgs {
                coords: [
                    &s_row[4 * q0..4 * q1],
                    &t_row[4 * q0..4 * q1],
                    r_row.get(4 * q0..4 * q1).unwrap_or(&[]),
                    &[],
                ],
                masks: &masks[q0..q1],
                lod: BatchLod::Implicit(&[]),
                dref: dref_row.get(4 * q0..4 * q1).unwrap_or(&[]),
                offsets: [&[], &[]],
            };
            k.sample_batch(img, black_box(&b), &mut out[4 * q0..4 * q1])
                .unwrap();
        }
        black_box(&*out);
    };
    (name, Box::new(run))
}

struct Images {
    rgba: Image,
    depth: Image,
    cube: Image,
    /// lavapipe's cube scene's shape: 8×8 faces, one level (`benches/lavapipe/`)
    cube8: Image,
}

fn images() -> Images {
    let mut rgba = Image::new_2d(Format::R8G8B8A8_UNORM, 256, 256, 1, 9).unwrap();
    noise_image(&mut rgba);
    let mut depth = Image::new_2d(Format::D32_SFLOAT, 256, 256, 1, 1).unwrap();
    let n = depth.level_texels(0);
    let d: Vec<[f32; 4]> = (0..n)
        .map(|i| [(i % 97) as f32 / 97.0, 0.0, 0.0, 0.0])
        .collect();
    depth.upload_f32(0, &d).unwrap();
    let mut cube = Image::new_cube(Format::R8G8B8A8_UNORM, 128, 1, 8).unwrap();
    noise_image(&mut cube);
    let mut cube8 = Image::new_cube(Format::R8G8B8A8_UNORM, 8, 1, 1).unwrap();
    noise_image(&mut cube8);
    Images {
        rgba,
        depth,
        cube,
        cube8,
    }
}

fn cases(im: &Images) -> Vec<Case<'_>> {
    let rgba = &im.rgba;
    let v2 = ImageView::whole(rgba, ViewType::D2);
    let nearest = Sampler::default();
    let bilinear = Sampler {
        mag_filter: Filter::Linear,
        min_filter: Filter::Linear,
        ..Sampler::default()
    };
    let tri = Sampler::trilinear(AddressMode::Repeat);
    let mag = quads([0.5 / 256.0, 0.5 / 256.0], 0.0);
    let minify = quads([2.8 / 256.0, 2.8 / 256.0], 0.0); // λ ≈ 1.49
    let mut v = vec![
        sample_case("nearest_rgba8_2d", rgba, &v2, &nearest, mag.clone()),
        sample_case("bilinear_rgba8_2d", rgba, &v2, &bilinear, mag.clone()),
        sample_case("trilinear_rgba8_2d", rgba, &v2, &tri, minify.clone()),
        // the same quads through the batch-wide path (`Kernel::sample_batch`)
        wide_case("nearest_rgba8_2d_wide", rgba, &v2, &nearest, &mag),
        wide_case("bilinear_rgba8_2d_wide", rgba, &v2, &bilinear, &mag),
        wide_case("trilinear_rgba8_2d_wide", rgba, &v2, &tri, &minify),
    ];

    let aniso = Sampler {
        anisotropy_enable: true,
        max_anisotropy: 16.0,
        ..tri
    };
    let mut an = quads([16.0 / 256.0, 1.0 / 256.0], 0.0); // 16:1 footprint
    for a in &mut an {
        a.lod = LodMode::Grad {
            dx: [[16.0 / 256.0, 0.0, 0.0]; 4],
            dy: [[0.0, 1.0 / 256.0, 0.0]; 4],
        };
    }
    v.push(sample_case("aniso16_rgba8_2d", rgba, &v2, &aniso, an));
    // the same 16:1 footprint 2.8 times larger: λ ≈ 1.49, 16 probes in two levels each
    let mut an2 = quads([44.8 / 256.0, 2.8 / 256.0], 0.0);
    for a in &mut an2 {
        a.lod = LodMode::Grad {
            dx: [[44.8 / 256.0, 0.0, 0.0]; 4],
            dy: [[0.0, 2.8 / 256.0, 0.0]; 4],
        };
    }
    v.push(sample_case(
        "aniso16_trilinear_rgba8_2d",
        rgba,
        &v2,
        &aniso,
        an2,
    ));

    let vd = ImageView::whole(&im.depth, ViewType::D2);
    let pcf = Sampler {
        compare_enable: true,
        compare_op: CompareOp::LessOrEqual,
        ..bilinear
    };
    let mut dq = quads([1.0 / 256.0, 1.0 / 256.0], 0.0);
    for a in &mut dq {
        a.dref = Some([0.5; 4]);
    }
    v.push(wide_case("dref_pcf2x2_d32_wide", &im.depth, &vd, &pcf, &dq));
    v.push(sample_case("dref_pcf2x2_d32", &im.depth, &vd, &pcf, dq));

    let vc = ImageView::whole(&im.cube, ViewType::Cube);
    let cq: Vec<SampleArgs> = (0..QUADS)
        .map(|q| {
            let a = q as f32 * 0.37;
            let dir = [a.cos(), 0.3 * (a * 0.7).sin(), a.sin()];
            let st = 0.03;
            SampleArgs::new(std::array::from_fn(|i| {
                [
                    dir[0] + st * (i & 1) as f32,
                    dir[1] + st * (i >> 1) as f32,
                    dir[2],
                    0.0,
                ]
            }))
        })
        .collect();
    v.push(wide_case(
        "cube_trilinear_rgba8_wide",
        &im.cube,
        &vc,
        &tri,
        &cq,
    ));
    v.push(sample_case("cube_trilinear_rgba8", &im.cube, &vc, &tri, cq));

    // lavapipe's cube scene (`benches/lavapipe/samp.frag`, CUBE): 8×8 faces, one level,
    // bilinear, direction `(fract(uv)·2 − 1, 1)` with `uv = pixel / 512 + i·(0.0137, 0.0071)`
    // for loop index `i`, at quads spread over the 512×512 frame (so ~30 % of the quads have
    // a footprint over a face edge, as there)
    let v8 = ImageView::whole(&im.cube8, ViewType::Cube);
    let cb: Vec<SampleArgs> = (0..QUADS)
        .map(|q| {
            let h = (q as u32).wrapping_mul(0x9e37_79b9) >> 8;
            let (x, y) = ((h % 256) * 2, ((h >> 8) % 256) * 2);
            let i = (q % 16) as f32;
            SampleArgs::new(std::array::from_fn(|l| {
                let px = (x + (l & 1) as u32) as f32 + 0.5;
                let py = (y + (l >> 1) as u32) as f32 + 0.5;
                let u = px / 512.0 + i * 0.0137;
                let v = py / 512.0 + i * 0.0071;
                [u.fract() * 2.0 - 1.0, v.fract() * 2.0 - 1.0, 1.0, 0.0]
            }))
        })
        .collect();
    v.push(wide_case(
        "cube_bilinear_rgba8_wide",
        &im.cube8,
        &v8,
        &tri,
        &cb,
    ));
    v.push(sample_case("cube_bilinear_rgba8", &im.cube8, &v8, &tri, cb));

    let k = Kernel::new(rgba, &v2, &nearest, Config::default()).unwrap();
    let ga: Vec<GatherArgs> = mag.iter().map(|a| GatherArgs::new(a.coords, 1)).collect();
    let gather = move || {
        for a in &ga {
            black_box(k.gather(rgba, black_box(a)).unwrap());
        }
    };
    v.push(("gather_rgba8_2d", Box::new(gather)));
    // the same gathers through `Kernel::gather_batch` (rows, 16 quads per call)
    let k = Kernel::new(rgba, &v2, &nearest, Config::default()).unwrap();
    let row = |c: usize| -> Vec<u32> {
        mag.iter()
            .flat_map(|a| a.coords.map(|l| l[c].to_bits()))
            .collect()
    };
    let (s_row, t_row) = (row(0), row(1));
    let comp = vec![1u32; 4 * QUADS];
    let masks = [0xfu8; QUADS];
    let out = std::cell::RefCell::new(vec![[0u32; 4]; 4 * QUADS]);
    let gather_wide = move || {
        let mut out = out.borrow_mut();
        for q0 in (0..QUADS).step_by(WIDE_QUADS) {
            let q1 = (q0 + WIDE_QUADS).min(QUADS);
            let b = GatherBatchArgs {
                coords: [&s_row[4 * q0..4 * q1], &t_row[4 * q0..4 * q1], &[], &[]],
                masks: &masks[q0..q1],
                component: &comp[4 * q0..4 * q1],
                offsets: BatchGatherOffsets::None,
                dref: &[],
            };
            k.gather_batch(rgba, black_box(&b), &mut out[4 * q0..4 * q1])
                .unwrap();
        }
        black_box(&*out);
    };
    v.push(("gather_rgba8_2d_wide", Box::new(gather_wide)));
    v
}

fn benches(c: &mut Criterion<CpuTime>) {
    let im = images();
    let mut g = c.benchmark_group("sampler");
    g.throughput(Throughput::Elements((4 * QUADS) as u64));
    g.sampling_mode(SamplingMode::Flat);
    for (name, run) in cases(&im) {
        g.bench_function(name, |b| b.iter(&run));
    }
    g.finish();
}

/// The callgrind region: `iters` runs of one case (see the module comment).
#[inline(never)]
fn drive(run: &dyn Fn(), iters: usize) {
    for _ in 0..iters {
        run();
    }
}

criterion_group! {
    name = sampler;
    // the CPU-time clock ticks coarsely (scheduler updates): few, long, equal samples
    config = Criterion::default().with_measurement(CpuTime).sample_size(10);
    targets = benches
}
fn main() {
    if let Ok(name) = std::env::var("QS_CALLGRIND_CASE") {
        let iters = std::env::var("QS_CALLGRIND_ITERS")
            .ok()
            .and_then(|x| x.parse().ok())
            .unwrap_or(100);
        let im = images();
        let all = cases(&im);
        let Some((_, run)) = all.iter().find(|(n, _)| *n == name) else {
            panic!("no case {name}");
        };
        run(); // warm: first-touch page faults and lazy statics outside the region
        let t0 = thread_cpu_ns();
        drive(run.as_ref(), iters);
        if std::env::var_os("QS_SAMPLER_TIME").is_some() {
            // thread CPU time per sample (`benches/paired.py sampler`)
            let ns = (thread_cpu_ns() - t0) as f64 / (iters as f64 * 4.0 * QUADS as f64);
            println!("{name} ns_per_sample {ns:.3}");
        }
        return;
    }
    sampler();
    Criterion::default().configure_from_args().final_summary();
}
