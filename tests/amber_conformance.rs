//! Conformance gate: runs the `quadstep` binary over the Amber corpus (found by
//! `common::amber_dir_or_skip`), prints pass/fail/skip counts per folder, and fails if any script
//! listed in `tests/conformance/must-pass.txt` does not pass. Skipped (with a message) when the
//! corpus is absent, and in debug builds (the corpus takes ~2 minutes in release mode on two
//! cores; set QUADSTEP_CONFORMANCE=1 to force it).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

mod common;

/// The lines of `quadstep amber --json` output, each a JSON object (a line that is not is an
/// error: the output is meant for tools).
fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

/// The string `key` of a JSON object (`None` when absent or not a string).
fn field<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key)?.as_str()
}

#[test]
fn must_pass_scripts_pass() {
    let Some(dir) = common::amber_dir_or_skip("amber_conformance") else {
        return;
    };
    if cfg!(debug_assertions) && std::env::var_os("QUADSTEP_CONFORMANCE").is_none() {
        eprintln!("amber_conformance: debug build; run `cargo test --release` (skipped)");
        return;
    }
    let list = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/must-pass.txt"),
    )
    .expect("tests/conformance/must-pass.txt");
    let must: Vec<&str> = list
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    // Run from the crate root so the shader cache lands in our own target/, never in the
    // (shared, read-only) corpus folder.
    let out = Command::new(env!("CARGO_BIN_EXE_quadstep"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("amber")
        .arg("--json")
        .arg(dir.join("cases"))
        .arg(dir.join("cts"))
        .output()
        .expect("runs quadstep");
    let prefix = format!("{}/", dir.display());
    let text = String::from_utf8_lossy(&out.stdout);
    let mut status: BTreeMap<String, (String, String)> = BTreeMap::new();
    let mut folders: BTreeMap<String, [u32; 3]> = BTreeMap::new();
    for line in json_lines(&text) {
        let (Some(path), Some(st)) = (field(&line, "path"), field(&line, "status")) else {
            continue; // the summary line
        };
        let path = path.strip_prefix(&prefix).unwrap_or(path).to_string();
        let detail = field(&line, "detail").unwrap_or_default().to_string();
        let comps: Vec<&str> = path.split('/').collect();
        let folder = if comps.len() > 2 {
            format!("{}/{}", comps[0], comps[1])
        } else {
            comps[0].to_string()
        };
        let c = folders.entry(folder).or_default();
        match st {
            "PASS" => c[0] += 1,
            "FAIL" => c[1] += 1,
            _ => c[2] += 1,
        }
        status.insert(path, (st.to_string(), detail));
    }
    for (f, [p, x, s]) in &folders {
        println!("{f}: {p} passed, {x} failed, {s} skipped");
    }
    if let Some(last) = text.lines().last() {
        println!("{last}");
    }
    let mut broken = Vec::new();
    for m in &must {
        match status.get(*m) {
            Some((s, _)) if s == "PASS" => {}
            Some((s, d)) => broken.push(format!("{m}: {s} {d}")),
            None => broken.push(format!("{m}: not run (missing from the corpus?)")),
        }
    }
    assert!(
        broken.is_empty(),
        "{} must-pass scripts no longer pass:\n{}",
        broken.len(),
        broken.join("\n")
    );
}

/// `--json` escapes what needs escaping: a script whose name holds a quote, a backslash and a
/// tab, and whose failure message names it, reads back through a JSON parser unchanged.
#[test]
fn json_output_escapes_paths_and_details() {
    let dir = std::env::temp_dir().join(format!("quadstep-json-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("a \"b\"\\c\td.amber");
    std::fs::write(&script, "#!amber\nNOT_A_COMMAND\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_quadstep"))
        .current_dir(&dir)
        .arg("amber")
        .arg("--json")
        .arg(&script)
        .output()
        .expect("runs quadstep");
    let _ = std::fs::remove_dir_all(&dir);
    let lines = json_lines(&String::from_utf8_lossy(&out.stdout));
    let (r, path) = (&lines[0], script.to_str().unwrap());
    assert_eq!(field(r, "path"), Some(path));
    assert_eq!(field(r, "status"), Some("FAIL"));
    assert!(field(r, "detail").is_some_and(|d| d.contains(path)), "{r}");
    assert_eq!(lines[1]["failed"], 1, "{}", lines[1]);
}
