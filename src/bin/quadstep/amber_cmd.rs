//! `quadstep amber PATH...`: runs Amber scripts (files, or folders searched recursively for
//! `.amber` and `.vkscript`) in parallel on plain threads (each draw uses its own small rayon
//! pool) and prints one line (or JSON object) per script as it finishes (in path order with
//! `--sorted`), then `N passed, N failed, N skipped`; on a terminal a progress bar shows the
//! counts so far, the ETA and the script running longest.
//! Every script runs under the guards of `guard_args` (time limit, memory budget, device
//! limits, Ctrl-C); the exit status is the most severe of its scripts' (see `EXIT_STATUS`).
//! For CI: `--shard` picks a stable share of the scripts, `--junit` (`junit.rs`) and
//! `--baseline` (`baseline.rs`) report on the whole run once it ends, `--golden-dir`
//! (`golden_check.rs`) checks each script's attachments as it finishes.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use quadstep::amber::{run_file, FailKind, ScriptResult, Status};
use quadstep::limits::Cancel;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

#[derive(clap::Args)]
pub struct AmberArgs {
    /// Script files or folders (searched recursively).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// One JSON object per script (and a final summary object) instead of text lines.
    #[arg(long)]
    pub json: bool,
    /// Write every colour attachment as PNG into this folder.
    #[arg(long, value_name = "DIR")]
    pub dump_images: Option<PathBuf>,
    /// Print the results in path order once all have run (default: each as it finishes).
    #[arg(long)]
    pub sorted: bool,
    /// Only run scripts whose path contains this substring.
    #[arg(long, value_name = "SUBSTRING")]
    pub filter: Option<String>,
    /// Run share K of N (1-based): the scripts whose path below the argument they were
    /// found under hashes to K-1 modulo N. The N shares are disjoint, cover every script and
    /// do not change between runs or checkouts, so N machines of a CI matrix each run one.
    #[arg(long, value_name = "K/N", value_parser = parse_shard)]
    pub shard: Option<(u64, u64)>,
    /// Compare each colour attachment of every passing script with
    /// `DIR/<script below its argument, without extension>/<buffer>.png`: a missing golden or
    /// a difference fails the script (kind `golden`) and writes `<buffer>.diff.png` there.
    #[arg(long, value_name = "DIR")]
    pub golden_dir: Option<PathBuf>,
    /// With --golden-dir: write (or overwrite) the goldens instead of comparing.
    #[arg(long, requires = "golden_dir")]
    pub update: bool,
    /// Print pass/fail/skip counts per top-level folder.
    #[arg(long)]
    pub summary: bool,
    /// Write a JUnit XML report here when the run ends (also when interrupted: the scripts
    /// that finished).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Known results, one `<script below its argument>,<Fail|Skip>` a line (`#` comments):
    /// exit 0 when the run matches them, else list the new failures and new passes.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Write this run's failures and skips as a baseline file.
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,
    /// Scripts run in parallel (0 = one per core).
    #[arg(long, short, default_value_t = 0, value_name = "N")]
    pub jobs: usize,
    #[command(flatten)]
    pub run: super::run_args::RunArgs,
}

/// `K/N` with 1 ≤ K ≤ N.
fn parse_shard(s: &str) -> Result<(u64, u64), String> {
    let bad = || format!("{s:?}: expected K/N with 1 <= K <= N, e.g. 2/4");
    let (k, n) = s.split_once('/').ok_or_else(bad)?;
    let (k, n): (u64, u64) = (
        k.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if k == 0 || k > n {
        return Err(bad());
    }
    Ok((k, n))
}

/// Script `p`'s name below the argument `root` it was found under (its file name when
/// `root` is the file), with `/` separators: what shards, baselines, JUnit reports and
/// golden folders know it by, the same from any working directory.
pub fn rel_name(p: &Path, root: &Path) -> String {
    let rel = match p.strip_prefix(root) {
        Ok(r) if !r.as_os_str().is_empty() => r,
        _ => Path::new(p.file_name().unwrap_or(p.as_os_str())),
    };
    let key: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    key.join("/")
}

/// Whether script `p`, found under the argument `root`, is in share `k` of `n`: its
/// [`rel_name`], hashed.
fn in_shard(p: &Path, root: &Path, k: u64, n: u64) -> bool {
    quadstep::amber::run_shaders::fnv1a(&[rel_name(p, root).as_bytes()]) % n == k - 1
}

/// `: detail` after a script's path; when the detail starts with the path (`path:line: …`),
/// what follows it (`:line: …`), so that the path shows once.
pub fn detail(r: &ScriptResult) -> String {
    let d = r.status.detail();
    let path = r.path.display().to_string();
    if let Some(rest) = d.strip_prefix(&path).filter(|rest| rest.starts_with(':')) {
        one_line(rest)
    } else if !d.is_empty() {
        format!(": {}", one_line(d))
    } else if !r.note.is_empty() {
        format!(": {}", one_line(&r.note))
    } else {
        String::new()
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Scripts under `p` (a file is taken as given), sorted.
fn collect(p: &Path, out: &mut Vec<(PathBuf, PathBuf)>, root: &Path) {
    if p.is_dir() {
        let Ok(rd) = std::fs::read_dir(p) else {
            return;
        };
        let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        entries.sort();
        for e in entries {
            if e.is_dir() {
                collect(&e, out, root);
            } else if e
                .extension()
                .is_some_and(|x| x == "amber" || x == "vkscript")
            {
                out.push((e.clone(), root.to_path_buf()));
            }
        }
    } else {
        out.push((p.to_path_buf(), root.to_path_buf()));
    }
}

/// The folder a script is counted under: the top-level argument folder's name, and one level
/// more when the script sits deeper (`cts/graphicsfuzz`).
fn group_of(path: &Path, root: &Path) -> String {
    let base = root.parent().unwrap_or(Path::new(""));
    let rel = path.strip_prefix(base).unwrap_or(path);
    let comps: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    match comps.len() {
        0 | 1 => ".".into(),
        2 => comps[0].clone(),
        _ => format!("{}/{}", comps[0], comps[1]),
    }
}

fn json_str(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            '\r' => o.push_str("\\r"),
            '\t' => o.push_str("\\t"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// Write the script's colour attachments as `DIR/<path with _>.<buffer>.png`; the first
/// failure fails the script (kind `io`).
fn dump(dir: &Path, r: &mut ScriptResult) {
    let stem = r
        .path
        .to_string_lossy()
        .trim_start_matches("./")
        .replace(['/', '\\'], "_");
    let written = r.images.iter().try_for_each(|p| {
        let img = super::golden_check::image_of(p)?;
        let path = dir.join(format!("{stem}.{}.png", p.buffer));
        quadstep::golden::save_png(&path, &img).map_err(|e| e.to_string())
    });
    if let Err(e) = written {
        super::golden_check::fail(r, FailKind::Io, format!("--dump-images: {e}"));
    }
}

/// What the exit status says, for `--help`.
pub const EXIT_STATUS: &str = "Exit status: 0 every script passed or was skipped; 1 a \
    script failed (an EXPECT, the shaders' run, the time limit or the memory budget); 2 usage \
    or input error (bad arguments, a malformed script, a shader that does not compile, a size \
    above the device limits, a file that cannot be read or written); 3 internal error; 130 \
    interrupted (Ctrl-C). With several scripts, the largest of these. With --baseline, 0 when \
    every result matches the baseline, else the largest status of the scripts that differ \
    from it (1 for a new pass or skip).";

pub fn run(mut a: AmberArgs) -> ExitCode {
    // Script errors are reported per script; keep panics (caught per script) off stderr.
    std::panic::set_hook(Box::new(|_| {}));
    let mut files = Vec::new();
    for p in &a.paths {
        if !p.exists() {
            eprintln!("quadstep amber: {} does not exist", p.display());
            return ExitCode::from(2);
        }
        collect(p, &mut files, p);
    }
    if let Some(f) = &a.filter {
        files.retain(|(p, _)| p.to_string_lossy().contains(f.as_str()));
    }
    files.sort();
    files.dedup();
    if files.is_empty() {
        eprintln!(
            "quadstep amber: no scripts to run (no .amber or .vkscript file{})",
            a.filter
                .as_ref()
                .map(|f| format!(" whose path contains `{f}`"))
                .unwrap_or_default()
        );
        return ExitCode::from(2);
    }
    // (an empty share of a non-empty selection is not an error: a small corpus over many
    // machines leaves some without scripts)
    if let Some((k, n)) = a.shard {
        files.retain(|(p, root)| in_shard(p, root, k, n));
    }
    let baseline = match a.baseline.as_deref().map(super::baseline::read).transpose() {
        Ok(b) => b,
        Err(e) => {
            eprintln!("quadstep amber: {e}");
            return ExitCode::from(2);
        }
    };
    let jobs = super::threads_or_cores(a.jobs);
    let mut opts = match a.run.run_options(jobs, 1) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("quadstep amber: {e}");
            return ExitCode::from(2);
        }
    };
    opts.keep_images = a.dump_images.is_some() || a.golden_dir.is_some();
    let interrupted = opts.cancel.clone();
    a.jobs = jobs;
    let any_dir = a.paths.iter().any(|p| p.is_dir());
    let bar = if any_dir && std::io::stderr().is_terminal() {
        let b =
            ProgressBar::with_draw_target(Some(files.len() as u64), ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template(
            "{prefix} {bar:30} {pos}/{len} {elapsed} ETA {eta} {wide_msg}",
        ) {
            b.set_style(style);
        }
        b
    } else {
        ProgressBar::hidden()
    };
    let start = Instant::now();
    // Scripts run on plain threads pulling from a shared index, not on a rayon pool: a draw
    // installs work on its rasterizer's own pool, and a rayon worker waiting on another pool
    // steals further scripts meanwhile, which would stretch each script's measured time.
    // Each result goes to this thread as it is made, which prints it at once (or, with
    // `--sorted`, all of them in path order at the end).
    let jobs = a.jobs;
    let next = AtomicUsize::new(0);
    let workers = jobs.min(files.len().max(1));
    let running: Vec<Mutex<Option<Running>>> = (0..workers).map(|_| Mutex::new(None)).collect();
    let finished = AtomicUsize::new(0);
    let mut tally = Tally::default();
    let mut results: Vec<(ScriptResult, PathBuf)> = Vec::with_capacity(files.len());
    std::thread::scope(|s| {
        let (done, results_in) = std::sync::mpsc::channel::<(usize, ScriptResult)>();
        for w in 0..workers {
            let (opts, running, finished) = (&opts, &running, &finished);
            let (files, next, a, done) = (&files, &next, &a, done.clone());
            s.spawn(move || {
                loop {
                    if opts.cancel.is_cancelled() {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some((p, root)) = files.get(i) else { break };
                    let mut o = opts.clone();
                    o.cancel = opts.cancel.child();
                    set(
                        &running[w],
                        Some((p.clone(), Instant::now(), o.cancel.clone())),
                    );
                    let mut r = run_file(p, &o);
                    set(&running[w], None);
                    if let Some(dir) = &a.golden_dir {
                        super::golden_check::check(dir, &rel_name(p, root), a.update, &mut r);
                    }
                    if let Some(dir) = &a.dump_images {
                        dump(dir, &mut r);
                    }
                    if done.send((i, r)).is_err() {
                        break;
                    }
                }
                finished.fetch_add(1, Ordering::Relaxed);
            });
        }
        drop(done);
        if !bar.is_hidden() {
            let (bar, running, finished) = (&bar, &running, &finished);
            s.spawn(move || show_progress(bar, running, finished, workers));
        }
        for (i, r) in results_in {
            tally.count(&r.status);
            bar.set_prefix(tally.to_string());
            bar.inc(1);
            if !a.sorted {
                bar.suspend(|| print_result(&r, a.json));
            }
            results.push((r, files[i].1.clone()));
        }
    });
    bar.finish_and_clear();
    results.sort_by(|x, y| x.0.path.cmp(&y.0.path));

    let mut status = 0u8;
    let mut groups: BTreeMap<String, Tally> = BTreeMap::new();
    for (r, root) in &results {
        groups
            .entry(group_of(&r.path, root))
            .or_default()
            .count(&r.status);
        status = status.max(r.status.exit_code());
        if a.sorted {
            print_result(r, a.json);
        }
    }
    if a.summary {
        for (g, t) in &groups {
            if a.json {
                println!(
                    "{{\"folder\":{},\"passed\":{},\"failed\":{},\"skipped\":{}}}",
                    json_str(g),
                    t.passed,
                    t.failed,
                    t.skipped
                );
            } else {
                println!("{g}: {t}");
            }
        }
    }
    let stopped = interrupted.is_cancelled();
    let not_run = files.len() - results.len();
    // what the reports and the baseline see: the scripts that finished (not those Ctrl-C
    // stopped midway)
    let named: Vec<(&ScriptResult, String)> = results
        .iter()
        .filter(|(r, _)| r.status.kind() != Some(FailKind::Cancelled))
        .map(|(r, root)| (r, rel_name(&r.path, root)))
        .collect();
    if let Some(b) = &baseline {
        // the baseline's verdict replaces the scripts' own statuses
        let diff = super::baseline::compare(b, &named);
        println!("{}", super::baseline::report(&diff, a.json));
        status = diff.status;
    }
    if let Some(path) = &a.junit {
        let secs = start.elapsed().as_secs_f64();
        if let Err(e) = super::junit::write(path, &named, secs) {
            eprintln!("quadstep amber: {e}");
            status = status.max(2);
        }
    }
    if let Some(path) = &a.write_baseline {
        if let Err(e) = std::fs::write(path, super::baseline::format(&named)) {
            eprintln!("quadstep amber: --write-baseline {}: {e}", path.display());
            status = status.max(2);
        }
    }
    if a.json {
        println!(
            "{{\"passed\":{},\"failed\":{},\"skipped\":{},\"not_run\":{not_run},\
             \"interrupted\":{stopped},\"seconds\":{:.1}}}",
            tally.passed,
            tally.failed,
            tally.skipped,
            start.elapsed().as_secs_f64()
        );
    } else if stopped {
        println!("{tally}; interrupted, {not_run} not run");
    } else {
        println!("{tally}");
    }
    if stopped {
        status = 130;
    }
    ExitCode::from(status)
}

/// Passed, failed and skipped scripts so far.
#[derive(Default)]
struct Tally {
    passed: usize,
    failed: usize,
    skipped: usize,
}

impl Tally {
    fn count(&mut self, s: &Status) {
        match s {
            Status::Pass => self.passed += 1,
            Status::Fail { .. } => self.failed += 1,
            Status::Unsupported { .. } => self.skipped += 1,
        }
    }
}

impl std::fmt::Display for Tally {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} passed, {} failed, {} skipped",
            self.passed, self.failed, self.skipped
        )
    }
}

/// One script's line: `PASS|FAIL|SKIP path: detail`, or with `json` one object: `file`
/// (and `path`, the same), `line` (where the failure or skip points in the script, or
/// null), `status`, `kind` (the failure's kind, `unsupported` for a skip, null for a pass),
/// `detail`, `note` and `ms` (the script's run time).
fn print_result(r: &ScriptResult, json: bool) {
    use std::io::Write;
    let line = if json {
        let kind = match &r.status {
            Status::Pass => "null".to_string(),
            Status::Fail { kind, .. } => json_str(kind.word()),
            Status::Unsupported { .. } => json_str("unsupported"),
        };
        let file = json_str(&r.path.to_string_lossy());
        format!(
            "{{\"file\":{file},\"line\":{},\"status\":{},\"kind\":{kind},\"detail\":{},\
             \"note\":{},\"ms\":{},\"path\":{file}}}",
            r.line().map_or("null".into(), |n| n.to_string()),
            json_str(r.status.word()),
            json_str(r.status.detail()),
            json_str(&r.note),
            r.elapsed.as_millis()
        )
    } else {
        format!("{} {}{}", r.status.word(), r.path.display(), detail(r))
    };
    // one write and a flush per line, so a reader of a pipe sees each script as it ends
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// A script being run: its path, when it started, and its token (for its progress).
type Running = (PathBuf, Instant, Cancel);

fn set<T>(slot: &Mutex<Option<T>>, v: Option<T>) {
    *slot.lock().unwrap_or_else(|e| e.into_inner()) = v;
}

/// Until every worker has finished: the progress bar's message names the script that has
/// run longest, and once it has run a second its time and its command's progress
/// (workgroups of a dispatch, tiles of a draw).
fn show_progress(
    bar: &ProgressBar,
    running: &[Mutex<Option<Running>>],
    finished: &AtomicUsize,
    workers: usize,
) {
    while finished.load(Ordering::Relaxed) < workers {
        std::thread::sleep(Duration::from_millis(200));
        let oldest = running
            .iter()
            .filter_map(|m| m.lock().ok().and_then(|r| r.clone()))
            .min_by_key(|(_, at, _)| *at);
        let msg = match oldest {
            Some((path, at, _)) if at.elapsed() < Duration::from_secs(1) => {
                path.display().to_string()
            }
            Some((path, at, token)) => {
                let (done, total) = token.progress();
                let step = if total > 0 {
                    format!(" {done}/{total}")
                } else {
                    String::new()
                };
                format!(
                    "{} {:.0}s{step}",
                    path.display(),
                    at.elapsed().as_secs_f64()
                )
            }
            _ => String::new(),
        };
        bar.set_message(msg);
    }
}
