//! `quadstep bench SCRIPT`: times a script's draws and dispatches. The script runs once per
//! thread count through the ordinary runner; a [`RunHook`] asks for each selected command to
//! be repeated (warm-up plus timed repetitions) and collects the time of each repetition's
//! draw or dispatch alone, so parsing, compiling, buffer and image creation, texture uploads,
//! `CLEAR`s and the copies in and out stay outside the timed region (the runner restores the
//! command's attachments and storage resources between repetitions, so each repetition draws
//! into the same state). One line, or one JSON object, per (command, thread count).

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use quadstep::amber::{run_file, Command, RunHook, Status};

#[derive(clap::Args)]
#[command(after_help = JSON_FIELDS)]
pub struct BenchArgs {
    /// The Amber script (.amber or .vkscript).
    pub script: PathBuf,
    /// Time only the N-th draw or dispatch the script performs (1-based, in the order it runs
    /// them; a `REPEAT` body counts once per repetition). Default: every one.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub run: Option<u64>,
    /// Untimed repetitions before the timed ones.
    #[arg(long, default_value_t = 3, value_name = "W",
          value_parser = clap::value_parser!(u64).range(0..=1_000_000))]
    pub warmup: u64,
    /// Timed repetitions.
    #[arg(long, default_value_t = 10, value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub iterations: u64,
    /// Thread counts, comma-separated (0 = one per core); the script runs once per value, its
    /// draws on a rasterizer of that many threads and its dispatches on a pool of that many.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "1",
        value_name = "T[,T...]"
    )]
    pub threads: Vec<usize>,
    /// One JSON object per (command, thread count) instead of text lines.
    #[arg(long)]
    pub json: bool,
    /// Where compiled GLSL/HLSL is cached (as for `quadstep amber`).
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    #[command(flatten)]
    pub guards: super::guard_args::GuardArgs,
}

/// The `--json` fields, for `--help`.
const JSON_FIELDS: &str = "JSON: one object per line for each timed command and thread \
    count: script (path), run (1-based index of the draw or dispatch), command (its text in \
    the script), line, threads, warmup, iterations, min_ms, median_ms, max_ms (over the \
    timed repetitions), per_item_ns (median over items), items (framebuffer pixels of a \
    draw, invocations of a dispatch), item_kind (\"pixel\" or \"invocation\").\n\
    Timed region: the draw alone (start of the render pass, binding the pipeline and vertex \
    buffers, the draw call, the end of the pass with every attachment write done) or the \
    dispatch alone.\n\
    Exit status: 0 success; 1 the script failed (an EXPECT, the shaders' run, the time \
    limit); 2 usage or input error (bad arguments, a malformed script, no draw or dispatch \
    numbered --run); 3 internal error.";

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

/// One (command, thread count) row.
struct Row {
    run: usize,
    line: usize,
    command: String,
    threads: usize,
    /// Timed repetitions, sorted, in milliseconds.
    ms: Vec<f64>,
    items: u64,
    kind: &'static str,
}

impl Row {
    fn median(&self) -> f64 {
        let n = self.ms.len();
        if n % 2 == 1 {
            self.ms[n / 2]
        } else {
            (self.ms[n / 2 - 1] + self.ms[n / 2]) / 2.0
        }
    }

    fn per_item_ns(&self) -> f64 {
        self.median() * 1e6 / self.items.max(1) as f64
    }
}

pub fn run(a: BenchArgs) -> ExitCode {
    if !a.script.is_file() {
        eprintln!("quadstep bench: {} is not a file", a.script.display());
        return ExitCode::from(2);
    }
    let mut opts = match a.guards.run_options(1) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("quadstep bench: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(d) = &a.cache_dir {
        opts.cache_dir = d.clone();
    }
    let text = std::fs::read_to_string(&a.script).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    let mut status = 0u8;
    for &t in &a.threads {
        let timer = Arc::new(Timer {
            run: a.run,
            reps: (a.warmup + a.iterations) as usize,
            times: Mutex::new(Vec::new()),
        });
        opts.raster_threads = super::threads_or_cores(t);
        opts.hook = Some(timer.clone());
        // dispatches run their workgroups on the current rayon pool
        let pool = match rayon::ThreadPoolBuilder::new()
            .num_threads(opts.raster_threads)
            .build()
        {
            Ok(p) => p,
            Err(e) => {
                eprintln!(
                    "quadstep bench: a pool of {} threads: {e}",
                    opts.raster_threads
                );
                return ExitCode::from(3);
            }
        };
        let r = pool.install(|| run_file(&a.script, &opts));
        let times = std::mem::take(&mut *timer.times.lock().unwrap_or_else(|e| e.into_inner()));
        if times.is_empty() && r.status == Status::Pass {
            eprintln!(
                "quadstep bench: {} {}",
                a.script.display(),
                match a.run {
                    Some(n) => format!("performs fewer than {n} draws and dispatches"),
                    None => "performs no draw or dispatch".into(),
                }
            );
            return ExitCode::from(2);
        }
        for (c, times) in times {
            let mut ms: Vec<f64> = times[(a.warmup as usize).min(times.len())..]
                .iter()
                .map(|d| d.as_secs_f64() * 1e3)
                .collect();
            if ms.is_empty() {
                continue;
            }
            ms.sort_by(f64::total_cmp);
            let (items, kind) = match c.invocations {
                Some(n) => (n, "invocation"),
                None => (c.framebuffer.0 as u64 * c.framebuffer.1 as u64, "pixel"),
            };
            let row = Row {
                run: c.index + 1,
                line: c.line,
                command: command_text(&lines, c.line),
                threads: opts.raster_threads,
                ms,
                items,
                kind,
            };
            print_row(&a, &row);
        }
        if r.status != Status::Pass {
            eprintln!(
                "quadstep bench: {} {}{}",
                r.status.word(),
                a.script.display(),
                super::amber_cmd::detail(&r)
            );
            status = status.max(r.status.exit_code());
        }
    }
    ExitCode::from(status)
}

/// The script's text at 1-based `line`, whitespace collapsed.
fn command_text(lines: &[&str], line: usize) -> String {
    let l = line
        .checked_sub(1)
        .and_then(|i| lines.get(i))
        .unwrap_or(&"");
    l.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn print_row(a: &BenchArgs, r: &Row) {
    let (min, max) = (r.ms[0], r.ms[r.ms.len() - 1]);
    if a.json {
        let o = serde_json::json!({
            "script": a.script.to_string_lossy(),
            "run": r.run,
            "command": r.command,
            "line": r.line,
            "threads": r.threads,
            "warmup": a.warmup,
            "iterations": r.ms.len(),
            "min_ms": min,
            "median_ms": r.median(),
            "max_ms": max,
            "per_item_ns": r.per_item_ns(),
            "items": r.items,
            "item_kind": r.kind,
        });
        println!("{o}");
    } else {
        println!(
            "run {} (line {}: {}) threads {}: min {:.3} ms, median {:.3} ms, max {:.3} ms; \
             {:.2} ns/{} ({} {}s, {} iterations)",
            r.run,
            r.line,
            r.command,
            r.threads,
            min,
            r.median(),
            max,
            r.per_item_ns(),
            r.kind,
            r.items,
            r.kind,
            r.ms.len()
        );
    }
}
