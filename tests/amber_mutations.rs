//! Mutated corpus scripts end cleanly: no abort, no hang, no panic. The fuzzing targets in
//! `fuzz/` do this at volume on nightly Rust; this test does it on stable in every
//! `cargo test`, so a fresh machine without nightly checks it too.
//!
//! The mutations run in a child process (this test binary again, running the ignored
//! `mutation_child`), under a 8 GiB address-space limit when `prlimit` exists: an abort or
//! an allocation the limit refuses kills the child, not the test harness, and the parent
//! reports it with the script that did it (written before each run). In the child every
//! script is parsed and run under `catch_unwind` with a 1 s time limit; a panic, an internal
//! error or a run longer than the limit plus a few seconds, twice in a row, is counted and
//! saved.
//!
//! The seeds are the Amber seed corpus of the fuzz targets (`fuzz/seeds/amber`). Mutations
//! are text-aware: numbers become hostile ones (0, 2^31 - 1, 4000000000, …), lines are
//! deleted, duplicated or swapped, words are replaced by other words of the script,
//! statements that ask for too much are inserted, bytes are flipped, and scripts truncated.
//! `QUADSTEP_MUTATIONS=N` sets how many (default 2000); the long run of the README uses
//! 100 000.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use fastrand::Rng;
use quadstep::amber::{self, FailKind, RunOptions};

const CHILD: &str = "QUADSTEP_MUTATION_CHILD";
const TIME_LIMIT: Duration = Duration::from_secs(1);
/// Longer than this past the time limit is a hang.
const HANG_SLACK: Duration = Duration::from_secs(5);

#[test]
fn mutated_scripts_end_cleanly() {
    let n: usize = std::env::var("QUADSTEP_MUTATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let exe = std::env::current_exe().unwrap();
    let args = ["--exact", "mutation_child", "--ignored", "--nocapture"];
    let prlimit = Path::new("/usr/bin/prlimit");
    let mut cmd = if prlimit.exists() {
        let mut c = Command::new(prlimit);
        c.arg(format!("--as={}", 8u64 << 30)).arg(&exe);
        c
    } else {
        Command::new(&exe)
    };
    let o = cmd.args(args).env(CHILD, n.to_string()).output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    let summary = out
        .lines()
        .find(|l| l.starts_with("mutations:"))
        .unwrap_or("(no summary: the child died)");
    assert!(
        o.status.success(),
        "child exited with {:?} (a signal is an abort); {summary}; the script it ran last is \
         {}\n{}",
        o.status,
        current_script(std::process::id()).display(),
        &err[err.len().saturating_sub(4000)..]
    );
    assert!(summary.contains(&format!("{n} run")), "{summary}");
    eprintln!("{summary}");
}

/// Where the child of test process `pid` writes the script it is about to run.
fn current_script(pid: u32) -> PathBuf {
    std::env::temp_dir().join(format!("quadstep-mutation-{pid}.amber"))
}

#[test]
#[ignore = "run by mutated_scripts_end_cleanly in a child process"]
fn mutation_child() {
    let Some(n) = std::env::var(CHILD)
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    else {
        return;
    };
    std::panic::set_hook(Box::new(|_| {}));
    let seeds = seeds();
    assert!(!seeds.is_empty());
    let opts = RunOptions {
        time_limit: TIME_LIMIT,
        cache_dir: std::env::temp_dir().join("quadstep-mutation-cache"),
        ..RunOptions::default()
    };
    let current = current_script(std::os::unix::process::parent_id());
    let saved = std::env::temp_dir().join("quadstep-mutations-failed");
    let mut kinds = std::collections::BTreeMap::new();
    let (mut bad, mut slowest) = (Vec::new(), Duration::ZERO);
    let start = Instant::now();
    for i in 0..n {
        let (path, text) = &seeds[i % seeds.len()];
        let mut rng =
            Rng::with_seed(0x9e37_79b9_7f4a_7c15 ^ (i as u64).wrapping_mul(0x2545_f491_4f6c_dd1d));
        let bytes = mutate(text, &mut rng);
        let _ = std::fs::write(&current, &bytes);
        // The options are only read, and a panic ends this iteration's use of them.
        let attempt = || {
            let t = Instant::now();
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let script = amber::parse_bytes(bytes.clone(), path, &opts.limits)?;
                Ok::<_, quadstep::Error>(amber::run_script(&script, &opts))
            }));
            (outcome, t.elapsed())
        };
        let (outcome, mut took) = attempt();
        if took > TIME_LIMIT + HANG_SLACK {
            // A run that waited for a core on a busy machine (or for glslang, a child
            // process) is quick the second time; a hang is slow again.
            took = took.min(attempt().1);
        }
        slowest = slowest.max(took);
        let what = match &outcome {
            Err(_) => Some("panic".to_string()),
            Ok(Ok(r)) if r.status.kind() == Some(FailKind::Internal) => {
                Some(format!("internal error: {}", r.status.detail()))
            }
            _ if took > TIME_LIMIT + HANG_SLACK => Some(format!("ran {took:?}")),
            _ => None,
        };
        let kind = match &outcome {
            Ok(Ok(r)) => r.status.kind().map_or(r.status.word(), |k| k.word()),
            Ok(Err(_)) => "parse",
            Err(_) => "panic",
        };
        *kinds.entry(kind).or_insert(0usize) += 1;
        if let Some(what) = what {
            std::fs::create_dir_all(&saved).unwrap();
            let keep = saved.join(format!("{i}.amber"));
            std::fs::write(&keep, &bytes).unwrap();
            bad.push(format!(
                "mutation {i} of {}: {what} ({})",
                path.display(),
                keep.display()
            ));
        }
    }
    let _ = std::fs::remove_file(&current);
    println!(
        "mutations: {n} run in {:.0} s, {} panics/internal errors/hangs, slowest {:.2} s; outcomes {kinds:?}",
        start.elapsed().as_secs_f64(),
        bad.len(),
        slowest.as_secs_f64()
    );
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The seed scripts, with the paths they are parsed as (their own, so `.vkscript` counts).
fn seeds() -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/amber");
    let mut v: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let p = e.ok()?.path();
            let b = std::fs::read(&p).ok()?;
            Some((p, b))
        })
        .collect();
    v.sort();
    v
}

/// `below(n)`: a draw in `0..n` (0 for an empty range), on the tests' one RNG.
trait Below {
    fn below(&mut self, n: usize) -> usize;
}

impl Below for Rng {
    fn below(&mut self, n: usize) -> usize {
        self.usize(..n.max(1))
    }
}

/// Numbers that have broken scripts, or sit on a limit.
const NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "3",
    "7",
    "8",
    "255",
    "256",
    "1024",
    "4096",
    "16384",
    "16385",
    "65535",
    "65536",
    "100000",
    "2147483647",
    "2147483648",
    "4294967295",
    "4294967296",
    "4000000000",
    "18446744073709551615",
    "1e30",
    "-1e30",
    "nan",
    "inf",
    "0.5",
    "0x7fffffff",
];

/// Statements that ask for a lot (the pipeline `p`, buffers `b` and `framebuffer` may or may
/// not exist in the script).
const STATEMENTS: &[&str] = &[
    "RUN p 65535 65535 65535",
    "RUN p 1 2147483647 1",
    "RUN p DRAW_GRID POS 0 0 SIZE 250 250 CELLS 100000 100000",
    "RUN p DRAW_RECT POS 0 0 SIZE 4000000000 4000000000",
    "RUN p DRAW_ARRAY AS TRIANGLE_LIST START_IDX 0 COUNT 4294967295 INSTANCE_COUNT 4294967295",
    "FRAMEBUFFER_SIZE 16384 16384",
    "FRAMEBUFFER_SIZE 4000000000 64",
    "BIND BUFFER framebuffer AS color LOCATION 4000000000",
    "BUFFER huge DATA_TYPE uint32 SIZE 4000000000 FILL 1",
    "BUFFER big DATA_TYPE vec4<float> SIZE 100000000 SERIES_FROM 0 INC_BY 1",
    "IMAGE img FORMAT R32G32B32A32_SFLOAT DIM_3D WIDTH 4096 HEIGHT 4096 DEPTH 4096",
    "REPEAT 4000000000",
    "compute 2147483647 1 1",
    "uniform float 4000000000 1.0",
    "ssbo 0 subdata float 4000000000 1.0",
    "draw rect 0 0 4000000000 4000000000",
    "probe all rgba 1 1 1 1",
];

fn mutate(text: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut t = text.to_vec();
    for _ in 0..1 + rng.below(3) {
        t = match rng.below(8) {
            0 | 1 => replace_number(&t, rng),
            2 => edit_lines(&t, rng),
            3 => replace_word(&t, rng),
            4 => insert_statement(&t, rng),
            5 => {
                if !t.is_empty() {
                    let k = rng.below(t.len());
                    t[k] ^= 1 << rng.below(8);
                }
                t
            }
            6 => {
                let k = rng.below(t.len() + 1);
                t.truncate(k);
                t
            }
            _ => replace_number(&t, rng),
        };
    }
    t
}

/// Byte ranges of the whitespace-separated words.
fn words(t: &[u8]) -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    let mut start = None;
    for (i, &b) in t.iter().chain(b" ".iter()).enumerate() {
        match (b.is_ascii_whitespace(), start) {
            (true, Some(s)) => {
                v.push((s, i));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    v
}

fn splice(t: &[u8], (a, b): (usize, usize), with: &[u8]) -> Vec<u8> {
    [&t[..a], with, &t[b..]].concat()
}

fn replace_number(t: &[u8], rng: &mut Rng) -> Vec<u8> {
    let nums: Vec<(usize, usize)> = words(t)
        .into_iter()
        .filter(|&(a, b)| t[a..b].iter().any(u8::is_ascii_digit))
        .collect();
    if nums.is_empty() {
        return t.to_vec();
    }
    let w = nums[rng.below(nums.len())];
    splice(t, w, NUMBERS[rng.below(NUMBERS.len())].as_bytes())
}

fn replace_word(t: &[u8], rng: &mut Rng) -> Vec<u8> {
    let ws = words(t);
    if ws.len() < 2 {
        return t.to_vec();
    }
    let (a, b) = ws[rng.below(ws.len())];
    let with = t[a..b].to_vec();
    splice(t, ws[rng.below(ws.len())], &with)
}

fn edit_lines(t: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut lines: Vec<&[u8]> = t.split(|&b| b == b'\n').collect();
    if lines.len() < 2 {
        return t.to_vec();
    }
    let (i, j) = (rng.below(lines.len()), rng.below(lines.len()));
    match rng.below(3) {
        0 => {
            lines.remove(i);
        }
        1 => lines.insert(j, lines[i]),
        _ => lines.swap(i, j),
    }
    lines.join(&b'\n')
}

fn insert_statement(t: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut lines: Vec<&[u8]> = t.split(|&b| b == b'\n').collect();
    let at = rng.below(lines.len() + 1);
    lines.insert(at, STATEMENTS[rng.below(STATEMENTS.len())].as_bytes());
    lines.join(&b'\n')
}
