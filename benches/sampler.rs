//! Texture-unit throughput: quads (4 samples) per second for the common operations.
//! Each iteration samples 64 different quads; criterion reports samples/s (4 per quad). The
//! cases are the library's `quadstep::bench::sampler::cases` (the table `quadstep bench
//! sampler` runs by default), each named and run here as it is there.
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
//! `benches/paired.py sampler` sets beside lavapipe's figure, seconds apart).
//!
//! Under `cargo test` (criterion's test mode: each case run once) the binary first checks
//! that criterion registers exactly the cases `quadstep bench sampler --list` lists.

use criterion::measurement::{Measurement, ValueFormatter};
use criterion::{criterion_group, Criterion, SamplingMode, Throughput};
use quadstep::bench::sampler::{cases, Case, SAMPLES_PER_RUN};

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

fn benches(c: &mut Criterion<CpuTime>) {
    let mut g = c.benchmark_group("sampler");
    g.throughput(Throughput::Elements(SAMPLES_PER_RUN));
    g.sampling_mode(SamplingMode::Flat);
    for case in cases().expect("the named sampler cases build") {
        g.bench_function(&case.name, |b| b.iter(|| case.run()));
    }
    g.finish();
}

/// The callgrind region: `iters` runs of one case (see the module comment).
#[inline(never)]
fn drive(case: &Case, iters: usize) {
    for _ in 0..iters {
        case.run().expect("a named sampler case runs");
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
        let all = cases().expect("the named sampler cases build");
        let Some(case) = all.iter().find(|c| c.name == name) else {
            panic!("no case {name}");
        };
        // warm: first-touch page faults and lazy statics outside the region
        case.run().expect("a named sampler case runs");
        let t0 = thread_cpu_ns();
        drive(case, iters);
        if std::env::var_os("QS_SAMPLER_TIME").is_some() {
            // thread CPU time per sample (`benches/paired.py sampler`)
            let ns = (thread_cpu_ns() - t0) as f64 / (iters as f64 * SAMPLES_PER_RUN as f64);
            println!("{name} ns_per_sample {ns:.3}");
        }
        return;
    }
    // `cargo test` runs this binary without `--bench` (criterion's test mode): check first
    // that it registers the cases `quadstep bench sampler` measures by default
    if !std::env::args().any(|a| a == "--bench" || a == "--list") {
        same_cases_as_the_cli();
    }
    sampler();
    Criterion::default().configure_from_args().final_summary();
}

/// The case names criterion registers (this binary's own `--list`) against `quadstep bench
/// sampler --list`: the two routes to the library's table, compared by their output.
fn same_cases_as_the_cli() {
    let names = |cmd: &mut std::process::Command, prefix: &str| -> Vec<String> {
        let out = cmd.output().expect("the listing runs");
        assert!(out.status.success(), "{cmd:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.strip_prefix(prefix))
            .map(|l| l.trim_end_matches(": benchmark").to_string())
            .collect()
    };
    let exe = std::env::current_exe().expect("this binary's path");
    let criterion = names(
        std::process::Command::new(exe).args(["--bench", "--list"]),
        "sampler/",
    );
    let cli = names(
        std::process::Command::new(env!("CARGO_BIN_EXE_quadstep"))
            .args(["bench", "sampler", "--list"]),
        "",
    );
    assert!(criterion.len() >= 16, "criterion lists {criterion:?}");
    assert_eq!(
        criterion, cli,
        "criterion's cases vs quadstep bench sampler --list"
    );
    println!(
        "sampler: criterion and `quadstep bench sampler --list` list the same {} cases",
        cli.len()
    );
}
