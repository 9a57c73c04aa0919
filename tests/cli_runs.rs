//! `quadstep amber` as a CI system drives it: results streamed as scripts finish, the exit
//! status of each kind of outcome, where compile errors point. Scripts are written to a
//! scratch folder per test; none needs a tool beyond the binary (the compile-location test
//! skips without `glslangValidator`).

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn quadstep() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_quadstep"));
    // compiled shaders go to a scratch cache, never into the repository
    c.env(
        "QUADSTEP_CACHE_DIR",
        std::env::temp_dir().join("quadstep-cli-runs-cache"),
    );
    c
}

/// A fresh scratch folder for one test.
fn scratch(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("quadstep-cli-runs-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(&p, text).unwrap();
    p
}

/// A script that passes without running a shader.
const PASSES: &str = "#!amber\nBUFFER b DATA_TYPE uint32 DATA 1 2 3 END\nEXPECT b IDX 0 EQ 1 2 3\n";
/// A script whose `EXPECT` (line 3) fails.
const FAILS: &str = "#!amber\nBUFFER b DATA_TYPE uint32 DATA 1 2 3 END\nEXPECT b IDX 0 EQ 1 2 4\n";
/// A script that does not parse (line 2).
const MALFORMED: &str = "#!amber\nBUFFER b DATA_TYPE uint32 DATTA 1 END\n";

fn hostile(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/hostile")
        .join(name)
}

fn json_lines(out: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

fn run(args: &[&std::ffi::OsStr]) -> Output {
    quadstep().args(args).output().unwrap()
}

#[test]
fn each_result_is_printed_as_its_script_ends() {
    let d = scratch("stream");
    write(&d, "a_fast.amber", PASSES);
    std::fs::copy(hostile("endless_loop.amber"), d.join("b_slow.amber")).unwrap();
    std::fs::copy(
        hostile("forever.comp.spvasm"),
        d.join("forever.comp.spvasm"),
    )
    .unwrap();
    let start = Instant::now();
    let mut child = quadstep()
        .arg("amber")
        .arg(&d)
        .args([
            "--json",
            "-j",
            "2",
            "--time-limit",
            "6",
            "--budget",
            "1000000000000",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let first_at = start.elapsed();
    let still_running = child.try_wait().unwrap().is_none();
    let rest: Vec<String> = lines.map(Result::unwrap).collect();
    let status = child.wait().unwrap();
    let first: serde_json::Value = serde_json::from_str(&first).unwrap();
    assert!(
        first["file"].as_str().unwrap().ends_with("a_fast.amber"),
        "{first}"
    );
    assert_eq!(first["status"], "PASS");
    assert!(
        still_running && first_at < Duration::from_secs(5),
        "the fast script's line came after {first_at:?}, with the slow one still running: {still_running}"
    );
    let slow: serde_json::Value = serde_json::from_str(&rest[0]).unwrap();
    assert_eq!(
        (slow["status"].as_str(), slow["kind"].as_str()),
        (Some("FAIL"), Some("timeout"))
    );
    assert!(slow["ms"].as_u64().unwrap() >= 6000, "{slow}");
    assert_eq!(status.code(), Some(1));
}

#[test]
fn sorted_prints_in_path_order_and_json_has_every_field() {
    let d = scratch("sorted");
    write(&d, "c.amber", PASSES);
    write(&d, "a.amber", FAILS);
    write(&d, "b.amber", MALFORMED);
    let o = run(&[
        "amber".as_ref(),
        d.as_os_str(),
        "--json".as_ref(),
        "--sorted".as_ref(),
    ]);
    let lines = json_lines(&o.stdout);
    let names: Vec<&str> = lines[..3]
        .iter()
        .map(|l| l["file"].as_str().unwrap().rsplit('/').next().unwrap())
        .collect();
    assert_eq!(names, ["a.amber", "b.amber", "c.amber"]);
    let fields = |l: &serde_json::Value| {
        (
            l["status"].as_str().unwrap().to_string(),
            l["kind"].as_str().map(str::to_string),
            l["line"].as_u64(),
            l["ms"].is_u64(),
        )
    };
    assert_eq!(
        fields(&lines[0]),
        ("FAIL".into(), Some("expect".into()), Some(3), true)
    );
    assert_eq!(
        fields(&lines[1]),
        ("FAIL".into(), Some("parse".into()), Some(2), true)
    );
    assert_eq!(fields(&lines[2]), ("PASS".into(), None, None, true));
    assert_eq!(lines[3]["passed"], 1);
    assert_eq!(lines[3]["failed"], 2);
    // a malformed script is an input error: 2 outranks the failed EXPECT's 1
    assert_eq!(o.status.code(), Some(2));
}
