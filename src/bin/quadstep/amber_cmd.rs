//! `quadstep amber PATH...`: runs Amber scripts (files, or folders searched recursively for
//! `.amber` and `.vkscript`) in parallel on plain threads (each draw uses its own small rayon
//! pool) and prints one line per script in sorted order, then `N passed, N failed, N skipped`.
//! The exit code is non-zero when any script fails.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use quadstep::amber::Status;
use quadstep::amber::{run_file, RunOptions, ScriptResult};
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
    /// Interpreter instruction budget per batch.
    #[arg(long, default_value_t = 20_000_000)]
    pub budget: u64,
    /// Wall-clock limit per script in seconds (checked between commands).
    #[arg(long, default_value_t = 30)]
    pub time_limit: u64,
    /// Parallel scripts (0 = one per core).
    #[arg(long, short, default_value_t = 0)]
    pub jobs: usize,
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

fn dump(dir: &Path, r: &ScriptResult) {
    let stem = r
        .path
        .to_string_lossy()
        .trim_start_matches("./")
        .replace(['/', '\\'], "_");
    for p in &r.images {
        let Some(img) = image::RgbaImage::from_raw(p.width, p.height, p.rgba.clone()) else {
            continue;
        };
        let path = dir.join(format!("{stem}.{}.png", p.buffer));
        if let Err(e) = quadstep::golden::save_png(&path, &img) {
            eprintln!("{e}");
        }
    }
}

pub fn run(a: AmberArgs) -> ExitCode {
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
    let opts = RunOptions {
        budget: a.budget,
        time_limit: Duration::from_secs(a.time_limit),
        keep_images: a.dump_images.is_some(),
        policy: a.policy.map(Into::into),
        ..RunOptions::default()
    };
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
    let jobs = if a.jobs == 0 {
        std::thread::available_parallelism().map_or(2, |n| n.get())
    } else {
        a.jobs
    };
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<ScriptResult>>> = files.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..jobs.min(files.len().max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((p, _)) = files.get(i) else { break };
                let r = run_file(p, &opts);
                if let Some(dir) = &a.dump_images {
                    dump(dir, &r);
                }
                bar.inc(1);
                if let Ok(mut slot) = slots[i].lock() {
                    *slot = Some(r);
                }
            });
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
                g[1] += 1
            }
            Status::Unsupported { .. } => {
                skip += 1;
                g[2] += 1
            }
        }
        if a.json {
            println!(
                "{{\"path\":{},\"status\":{},\"detail\":{},\"note\":{},\"ms\":{}}}",
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
    if a.json {
        println!(
            "{{\"passed\":{pass},\"failed\":{fail},\"skipped\":{skip},\"seconds\":{:.1}}}",
            start.elapsed().as_secs_f64()
        );
    } else {
        println!("{pass} passed, {fail} failed, {skip} skipped");
    }
    if fail > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
