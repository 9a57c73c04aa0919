//! Conformance gate: runs the `quadstep` binary over the Amber corpus (found by
//! `common::amber_dir_or_skip`), prints pass/fail/skip counts per folder, and fails if any script
//! listed in `tests/conformance/must-pass.txt` does not pass. Skipped (with a message) when the
//! corpus is absent, and in debug builds (the corpus takes ~2 minutes in release mode on two
//! cores; set QUADSTEP_CONFORMANCE=1 to force it).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

mod common;

/// The value of `"key":"…"` in one line of `quadstep amber --json` output.
fn json_field(line: &str, key: &str) -> Option<String> {
    let pat = format!("\"{key}\":\"");
    let start = line.find(&pat)? + pat.len();
    let mut out = String::new();
    let mut chars = line[start..].chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(out),
            '\\' => match chars.next()? {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                'u' => {
                    let hex: String = chars.by_ref().take(4).collect();
                    out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
                }
                c => out.push(c),
            },
            c => out.push(c),
        }
    }
    None
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
    for line in text.lines() {
        let (Some(path), Some(st)) = (json_field(line, "path"), json_field(line, "status")) else {
            continue;
        };
        let path = path.strip_prefix(&prefix).unwrap_or(&path).to_string();
        let detail = json_field(line, "detail").unwrap_or_default();
        let comps: Vec<&str> = path.split('/').collect();
        let folder = if comps.len() > 2 {
            format!("{}/{}", comps[0], comps[1])
        } else {
            comps[0].to_string()
        };
        let c = folders.entry(folder).or_default();
        match st.as_str() {
            "PASS" => c[0] += 1,
            "FAIL" => c[1] += 1,
            _ => c[2] += 1,
        }
        status.insert(path, (st, detail));
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

#[test]
fn json_fields_are_unescaped() {
    let line = r#"{"path":"a/b \"c\".amber","status":"FAIL","detail":"x\ny"}"#;
    assert_eq!(json_field(line, "path").unwrap(), "a/b \"c\".amber");
    assert_eq!(json_field(line, "detail").unwrap(), "x\ny");
    assert_eq!(json_field(line, "nope"), None);
}
