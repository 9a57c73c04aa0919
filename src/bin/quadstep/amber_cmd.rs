//! `quadstep amber PATH...`: runs Amber scripts (files, or folders searched recursively for
//! `.amber` and `.vkscript`) in parallel on plain threads (each draw uses its own small rayon
//! pool) and prints one line per script in sorted order, then `N passed, N failed, N skipped`.
//! Every script runs under the guards of `guard_args` (time limit, memory budget, device
//! limits, Ctrl-C); the exit status is the most severe of its scripts' (see `EXIT_STATUS`).

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
    /// Only run scripts whose path contains this substring.
    #[arg(long, value_name = "SUBSTRING")]
    pub filter: Option<String>,
    /// Print pass/fail/skip counts per top-level folder.
    #[arg(long)]
    pub summary: bool,
    #[command(flatten)]
    pub guards: super::guard_args::GuardArgs,
    /// Parallel scripts (0 = one per core).
    #[arg(long, short, default_value_t = 0)]
    pub jobs: usize,
    /// What a lane does after `OpKill` (GLSL `discard`).
    #[arg(long, value_enum, default_value_t)]
    pub discard: super::discard_arg::DiscardArg,
    /// Texture rules where Vulkan and D3D differ (default: each shader's own, D3D for DXIL,
    /// Vulkan for SPIR-V).
    #[arg(long, value_enum)]
    pub policy: Option<super::policy_arg::PolicyArg>,
}

pub fn detail(r: &ScriptResult) -> String {
    let d = r.status.detail();
    if !d.is_empty() {
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
        let img = image::RgbaImage::from_raw(p.width, p.height, p.rgba.clone())
            .ok_or_else(|| format!("attachment `{}` has a wrong size", p.buffer))?;
        let path = dir.join(format!("{stem}.{}.png", p.buffer));
        quadstep::golden::save_png(&path, &img).map_err(|e| e.to_string())
    });
    if let Err(e) = written {
        let before = match r.status.detail() {
            "" => String::new(),
            d => format!("{d}; and "),
        };
        r.status = Status::Fail {
            kind: FailKind::Io,
            message: format!("{before}{}: --dump-images: {e}", r.path.display()),
        };
    }
}

/// What the exit status says, for `--help`.
pub const EXIT_STATUS: &str = "Exit status: 0 every script passed or was skipped; 1 a \
    script failed (an EXPECT, the shaders' run, the time limit or the memory budget); 2 usage \
    or input error (bad arguments, a malformed script, a shader that does not compile, a size \
    above the device limits, a file that cannot be read or written); 3 internal error; 130 \
    interrupted (Ctrl-C). With several scripts, the largest of these.";

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
    let jobs = super::threads_or_cores(a.jobs);
    let mut opts = match a.guards.run_options(jobs) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("quadstep amber: {e}");
            return ExitCode::from(2);
        }
    };
    opts.keep_images = a.dump_images.is_some();
    opts.discard = a.discard.into();
    opts.policy = a.policy.map(Into::into);
    let interrupted = opts.cancel.clone();
    a.jobs = jobs;
    let any_dir = a.paths.iter().any(|p| p.is_dir());
    let bar = if any_dir && std::io::stderr().is_terminal() {
        let b =
            ProgressBar::with_draw_target(Some(files.len() as u64), ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} {elapsed} {msg}") {
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
    let jobs = a.jobs;
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<ScriptResult>>> = files.iter().map(|_| Mutex::new(None)).collect();
    let workers = jobs.min(files.len().max(1));
    let running: Vec<Mutex<Option<Running>>> = (0..workers).map(|_| Mutex::new(None)).collect();
    let finished = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for w in 0..workers {
            let (opts, running, finished) = (&opts, &running, &finished);
            let (files, next, slots, bar, a) = (&files, &next, &slots, &bar, &a);
            s.spawn(move || {
                loop {
                    if opts.cancel.is_cancelled() {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some((p, _)) = files.get(i) else { break };
                    let mut o = opts.clone();
                    o.cancel = opts.cancel.child();
                    set(
                        &running[w],
                        Some((p.clone(), Instant::now(), o.cancel.clone())),
                    );
                    let mut r = run_file(p, &o);
                    set(&running[w], None);
                    if let Some(dir) = &a.dump_images {
                        dump(dir, &mut r);
                    }
                    bar.inc(1);
                    set(&slots[i], Some(r));
                }
                finished.fetch_add(1, Ordering::Relaxed);
            });
        }
        if !bar.is_hidden() {
            s.spawn(|| show_progress(&bar, &running, &finished, workers));
        }
    });
    let mut results: Vec<(ScriptResult, PathBuf)> = slots
        .into_iter()
        .zip(&files)
        .filter_map(|(m, (_, root))| m.into_inner().ok().flatten().map(|r| (r, root.clone())))
        .collect();
    bar.finish_and_clear();
    results.sort_by(|x, y| x.0.path.cmp(&y.0.path));

    let (mut pass, mut fail, mut skip) = (0, 0, 0);
    let mut status = 0u8;
    let mut groups: BTreeMap<String, [u32; 3]> = BTreeMap::new();
    for (r, root) in &results {
        let g = groups.entry(group_of(&r.path, root)).or_default();
        match r.status {
            Status::Pass => {
                pass += 1;
                g[0] += 1
            }
            Status::Fail { .. } => {
                fail += 1;
                g[1] += 1;
                status = status.max(r.status.exit_code());
            }
            Status::Unsupported { .. } => {
                skip += 1;
                g[2] += 1
            }
        }
        if a.json {
            let kind = r
                .status
                .kind()
                .map_or("null".into(), |k| json_str(k.word()));
            println!(
                "{{\"path\":{},\"status\":{},\"kind\":{kind},\"detail\":{},\"note\":{},\"ms\":{}}}",
                json_str(&r.path.to_string_lossy()),
                json_str(r.status.word()),
                json_str(r.status.detail()),
                json_str(&r.note),
                r.elapsed.as_millis()
            );
        } else {
            println!("{} {}{}", r.status.word(), r.path.display(), detail(r));
        }
    }
    if a.summary {
        for (g, [p, f, s]) in &groups {
            if a.json {
                println!(
                    "{{\"folder\":{},\"passed\":{p},\"failed\":{f},\"skipped\":{s}}}",
                    json_str(g)
                );
            } else {
                println!("{g}: {p} passed, {f} failed, {s} skipped");
            }
        }
    }
    let stopped = interrupted.is_cancelled();
    let not_run = files.len() - results.len();
    if a.json {
        println!(
            "{{\"passed\":{pass},\"failed\":{fail},\"skipped\":{skip},\"not_run\":{not_run},\
             \"interrupted\":{stopped},\"seconds\":{:.1}}}",
            start.elapsed().as_secs_f64()
        );
    } else if stopped {
        println!("{pass} passed, {fail} failed, {skip} skipped; interrupted, {not_run} not run");
    } else {
        println!("{pass} passed, {fail} failed, {skip} skipped");
    }
    if stopped {
        status = 130;
    }
    ExitCode::from(status)
}

/// A script being run: its path, when it started, and its token (for its progress).
type Running = (PathBuf, Instant, Cancel);

fn set<T>(slot: &Mutex<Option<T>>, v: Option<T>) {
    *slot.lock().unwrap_or_else(|e| e.into_inner()) = v;
}

/// Until every worker has finished: the progress bar's message names the script that has
/// run longest, once it has run a second, with its time and its command's progress
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
            Some((path, at, token)) if at.elapsed() >= Duration::from_secs(1) => {
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
