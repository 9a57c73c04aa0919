//! `quadstep bench SCRIPT`: times a script's draws and dispatches. The script runs once per
//! (round, thread count) through the ordinary runner, thread counts alternating in order
//! from round to round (`quadstep::bench::rounds`); a [`RunHook`] asks for each selected
//! command to be repeated (warm-up plus timed repetitions) and collects the time of each
//! repetition's draw or dispatch alone, so parsing, compiling, buffer and image creation,
//! texture uploads, `CLEAR`s and the copies in and out stay outside the timed region (the
//! runner restores the command's attachments and storage resources between repetitions, so
//! each repetition draws into the same state). One line, or one JSON object, per (command,
//! thread count); `bench_report.rs` compares and plots them. `quadstep bench sampler` is
//! `bench_sampler.rs`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use quadstep::amber::{run_file, Command, RunHook, Status};
use quadstep::bench::rounds::{median, order};

use super::bench_report::{self, script_key, ReportArgs, Row};

#[derive(clap::Args)]
#[command(
    after_help = JSON_FIELDS,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub what: Option<BenchWhat>,
    /// The Amber script (.amber or .vkscript); a script named `sampler` needs a path
    /// (`./sampler`).
    #[arg(required_unless_present = "from")]
    pub script: Option<PathBuf>,
    /// Time only the N-th draw or dispatch the script performs (1-based, in the order it runs
    /// them; a `REPEAT` body counts once per repetition). Default: every one.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub run: Option<u64>,
    /// Untimed repetitions before the timed ones (in every round).
    #[arg(long, default_value_t = 3, value_name = "W",
          value_parser = clap::value_parser!(u64).range(0..=1_000_000))]
    pub warmup: u64,
    /// Timed repetitions (in every round).
    #[arg(long, default_value_t = 10, value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub iterations: u64,
    /// Thread counts, comma-separated (0 = one per core); the script runs once per value and
    /// round, its draws on a rasterizer of that many threads and its dispatches on a pool of
    /// that many.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "1",
        value_name = "T[,T...]"
    )]
    pub threads: Vec<usize>,
    /// Where compiled GLSL/HLSL is cached (as for `quadstep amber`).
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    #[command(flatten)]
    pub report: ReportArgs,
    #[command(flatten)]
    pub guards: super::guard_args::GuardArgs,
}

#[derive(clap::Subcommand)]
pub enum BenchWhat {
    /// The texture unit alone over a matrix of cases (format, view type, filter, mip mode,
    /// address mode, LOD form, size, entry): ns per sample and samples per second.
    Sampler(Box<super::bench_sampler::SamplerArgs>),
}

/// The `--json` fields, for `--help`.
const JSON_FIELDS: &str = "JSON: one object per line for each timed command and thread \
    count: script (path), run (1-based index of the draw or dispatch), command (its text in \
    the script), line, threads, warmup, iterations (timed repetitions per round), rounds, \
    min_ms, max_ms (over every timed repetition), median_ms (the median of the rounds' \
    medians), round_median_ms (each round's median), times_ms (every timed repetition, \
    round after round: rounds x iterations values), per_item_ns (median_ms per item), items \
    (framebuffer pixels of a draw, invocations of a dispatch), item_kind (\"pixel\" or \
    \"invocation\"); with --compare: baseline_median, baseline_min, baseline_max, ratio, \
    change (\"faster\", \"slower\", \"within noise\").\n\
    Timed region: the draw alone (start of the render pass, binding the pipeline and vertex \
    buffers, the draw call, the end of the pass with every attachment write done) or the \
    dispatch alone.\n\
    Exit status: 0 success; 1 the script failed (an EXPECT, the shaders' run, the time \
    limit) or --compare found a draw slower; 2 usage or input error (bad arguments, a \
    malformed script, no draw or dispatch numbered --run, an unreadable --compare/--from \
    file); 3 internal error.";

/// Asks for the selected commands to be repeated and keeps their times.
struct Timer {
    run: Option<u64>,
    reps: usize,
    times: Mutex<Vec<(Command, Vec<Duration>)>>,
}

impl Timer {
    fn selected(&self, c: &Command) -> bool {
        self.run.is_none_or(|n| c.index as u64 + 1 == n)
    }
}

impl RunHook for Timer {
    fn repetitions(&self, c: &Command) -> usize {
        if self.selected(c) {
            self.reps
        } else {
            1
        }
    }

    fn timed(&self, c: &Command, times: &[Duration]) {
        if self.selected(c) {
            let mut all = self.times.lock().unwrap_or_else(|e| e.into_inner());
            all.push((c.clone(), times.to_vec()));
        }
    }
}

/// One (command, thread count)'s times over the rounds.
struct Timings {
    run: usize,
    line: usize,
    command: String,
    threads: usize,
    /// Timed repetitions, in milliseconds, round after round.
    ms: Vec<f64>,
    /// Each round's median.
    round_medians: Vec<f64>,
    items: u64,
    kind: &'static str,
}

impl Timings {
    fn row(&self, a: &BenchArgs, script: &str) -> Row {
        let mut sorted = self.ms.clone();
        sorted.sort_by(f64::total_cmp);
        let mut r = Row {
            key: script_key(self.run as u64, self.threads as u64),
            unit: "ms",
            rounds: self.round_medians.clone(),
            times: self.ms.clone(),
            json: serde_json::Value::Null,
        };
        let med = r.spread().median;
        r.json = serde_json::json!({
            "script": script,
            "run": self.run,
            "command": self.command,
            "line": self.line,
            "threads": self.threads,
            "warmup": a.warmup,
            "iterations": self.ms.len() / self.round_medians.len().max(1),
            "rounds": self.round_medians.len(),
            "min_ms": sorted[0],
            "median_ms": med,
            "max_ms": sorted[sorted.len() - 1],
            "round_median_ms": self.round_medians,
            "times_ms": self.ms,
            "per_item_ns": med * 1e6 / self.items.max(1) as f64,
            "items": self.items,
            "item_kind": self.kind,
        });
        r
    }
}

pub fn run(a: BenchArgs) -> ExitCode {
    if let Some(BenchWhat::Sampler(s)) = a.what {
        return super::bench_sampler::run(*s);
    }
    let (rows, mut status) = if let Some(from) = &a.report.from {
        match bench_report::read_rows(from) {
            Ok(rows) => (rows.into_iter().filter(|r| r.unit == "ms").collect(), 0),
            Err(e) => {
                eprintln!("quadstep bench: {e}");
                return ExitCode::from(2);
            }
        }
    } else {
        match measure(&a) {
            Ok(r) => r,
            Err(code) => return code,
        }
    };
    let mut rows: Vec<Row> = rows;
    let base = match a
        .report
        .compare
        .as_deref()
        .map(bench_report::baseline)
        .transpose()
    {
        Ok(b) => b,
        Err(e) => {
            eprintln!("quadstep bench: {e}");
            return ExitCode::from(2);
        }
    };
    if !a.report.json {
        rows.iter().for_each(print_text);
    }
    if let Some(b) = &base {
        if bench_report::apply_compare(&mut rows, b, a.report.json) {
            status = status.max(1);
        }
    }
    if a.report.json {
        rows.iter().for_each(|r| println!("{}", r.json));
    }
    if let Some(path) = &a.report.html {
        let title = match &a.script {
            Some(s) => format!("quadstep bench {}", s.display()),
            None => "quadstep bench".into(),
        };
        if let Err(e) = std::fs::write(path, super::bench_html::page(&title, &rows)) {
            eprintln!("quadstep bench: {}: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    ExitCode::from(status)
}

/// Runs the script once per (round, thread count); the rows, and the worst exit status of
/// the runs.
fn measure(a: &BenchArgs) -> Result<(Vec<Row>, u8), ExitCode> {
    let Some(script) = a.script.as_ref().filter(|s| s.is_file()) else {
        let s = a.script.as_deref().unwrap_or(std::path::Path::new(""));
        eprintln!("quadstep bench: {} is not a file", s.display());
        return Err(ExitCode::from(2));
    };
    let mut opts = a.guards.run_options(1).map_err(|e| {
        eprintln!("quadstep bench: {e}");
        ExitCode::from(2)
    })?;
    if let Some(d) = &a.cache_dir {
        opts.cache_dir = d.clone();
    }
    let text = std::fs::read_to_string(script).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    let mut status = 0u8;
    // (thread count's position, command index) -> timings
    let mut all: Vec<((usize, usize), Timings)> = Vec::new();
    for round in 0..a.report.rounds.unwrap_or(1) as usize {
        for ti in order(round, a.threads.len()) {
            let timer = Arc::new(Timer {
                run: a.run,
                reps: (a.warmup + a.iterations) as usize,
                times: Mutex::new(Vec::new()),
            });
            opts.raster_threads = super::threads_or_cores(a.threads[ti]);
            opts.hook = Some(timer.clone());
            // dispatches run their workgroups on the current rayon pool
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(opts.raster_threads)
                .build()
                .map_err(|e| {
                    eprintln!(
                        "quadstep bench: a pool of {} threads: {e}",
                        opts.raster_threads
                    );
                    ExitCode::from(3)
                })?;
            let r = pool.install(|| run_file(script, &opts));
            let times = std::mem::take(&mut *timer.times.lock().unwrap_or_else(|e| e.into_inner()));
            if times.is_empty() && r.status == Status::Pass {
                eprintln!(
                    "quadstep bench: {} {}",
                    script.display(),
                    match a.run {
                        Some(n) => format!("performs fewer than {n} draws and dispatches"),
                        None => "performs no draw or dispatch".into(),
                    }
                );
                return Err(ExitCode::from(2));
            }
            for (c, times) in times {
                let ms: Vec<f64> = times[(a.warmup as usize).min(times.len())..]
                    .iter()
                    .map(|d| d.as_secs_f64() * 1e3)
                    .collect();
                if ms.is_empty() {
                    continue;
                }
                let mut sorted = ms.clone();
                sorted.sort_by(f64::total_cmp);
                let key = (ti, c.index);
                let t = match all.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, t)) => t,
                    None => {
                        let (items, kind) = match c.invocations {
                            Some(n) => (n, "invocation"),
                            None => (c.framebuffer.0 as u64 * c.framebuffer.1 as u64, "pixel"),
                        };
                        all.push((
                            key,
                            Timings {
                                run: c.index + 1,
                                line: c.line,
                                command: command_text(&lines, c.line),
                                threads: opts.raster_threads,
                                ms: Vec::new(),
                                round_medians: Vec::new(),
                                items,
                                kind,
                            },
                        ));
                        &mut all.last_mut().expect("just pushed").1
                    }
                };
                t.round_medians.push(median(&sorted));
                t.ms.extend(ms);
            }
            if r.status != Status::Pass {
                eprintln!(
                    "quadstep bench: {} {}{}",
                    r.status.word(),
                    script.display(),
                    super::amber_cmd::detail(&r)
                );
                status = status.max(r.status.exit_code());
            }
        }
    }
    all.sort_by_key(|(k, _)| *k);
    let name = script.to_string_lossy();
    Ok((all.iter().map(|(_, t)| t.row(a, &name)).collect(), status))
}

/// The script's text at 1-based `line`, whitespace collapsed.
fn command_text(lines: &[&str], line: usize) -> String {
    let l = line
        .checked_sub(1)
        .and_then(|i| lines.get(i))
        .unwrap_or(&"");
    l.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn print_text(r: &Row) {
    let j = &r.json;
    let f = |k: &str| j[k].as_f64().unwrap_or(f64::NAN);
    let s = r.spread();
    let rounds = if r.rounds.len() > 1 {
        format!(
            ", median of {} rounds' medians, spread {:.3}-{:.3} ms",
            r.rounds.len(),
            s.min,
            s.max
        )
    } else {
        String::new()
    };
    let kind = j["item_kind"].as_str().unwrap_or("item");
    println!(
        "run {} (line {}: {}) threads {}: min {:.3} ms, median {:.3} ms, max {:.3} ms; \
         {:.2} ns/{kind} ({} {kind}s, {} iterations{rounds})",
        j["run"],
        j["line"],
        j["command"].as_str().unwrap_or(""),
        j["threads"],
        f("min_ms"),
        f("median_ms"),
        f("max_ms"),
        f("per_item_ns"),
        j["items"],
        j["iterations"],
    );
}
