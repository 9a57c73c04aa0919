//! Corpus test of the SPIR-V front end: every vertex/fragment/compute shader in the Amber scripts
//! under shared/amber (SPIR-V assembly through `spirv-as`, GLSL through
//! `glslangValidator -V`) is loaded and every entry point lowered and verified with
//! `ir::verify`. Skips with a message when the tools or the folder are absent.
//!
//! Expected values: none of the shaders may panic the front end, every lowered shader must pass
//! the verifier, and the fraction lowered must stay above the floor measured when this test was
//! written (the unsupported reasons are printed with `--nocapture`; set
//! `QUADSTEP_CORPUS_VERBOSE=1` to also list shaders the external tools reject).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use quadstep::front::spirv::{Module, SpecConstants};
use quadstep::ir;

mod common;

use common::tools::{self, Tool};

#[derive(Debug)]
struct ShaderSrc {
    file: PathBuf,
    stage: &'static str,
    lang: &'static str,
    target: Option<String>,
    text: String,
}

fn stage_of(s: &str) -> Option<&'static str> {
    match s {
        "vertex" => Some("vert"),
        "fragment" => Some("frag"),
        "compute" => Some("comp"),
        _ => None,
    }
}

/// Extracts shader blocks from an AmberScript or VkScript file.
fn extract(path: &Path, text: &str) -> Vec<ShaderSrc> {
    let mut out = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    let spv14 = path.to_string_lossy().contains("spirv1p4")
        || path
            .to_string_lossy()
            .contains("workgroup_memory_explicit_layout");
    let mut k = 0;
    while k < lines.len() {
        let l = lines[k].trim();
        let words: Vec<&str> = l.split_whitespace().collect();
        if words.first() == Some(&"SHADER") && words.len() >= 4 {
            let lang = match words[3] {
                "GLSL" => Some("glsl"),
                "SPIRV-ASM" => Some("asm"),
                _ => None,
            };
            let target = words
                .iter()
                .position(|w| *w == "TARGET_ENV")
                .and_then(|p| words.get(p + 1))
                .map(|s| s.to_string());
            let mut body = String::new();
            k += 1;
            while k < lines.len() && lines[k].trim() != "END" {
                body.push_str(lines[k]);
                body.push('\n');
                k += 1;
            }
            if let (Some(stage), Some(lang)) = (stage_of(words[1]), lang) {
                let target = target.or_else(|| spv14.then(|| "spv1.4".to_string()));
                out.push(ShaderSrc {
                    file: path.to_path_buf(),
                    stage,
                    lang,
                    target,
                    text: body,
                });
            }
        } else if l.starts_with('[') && l.contains("shader") && !l.contains("passthrough") {
            let inner = l.trim_matches(|c| c == '[' || c == ']');
            let ws: Vec<&str> = inner.split_whitespace().collect();
            let lang = if ws.last() == Some(&"spirv") {
                "asm"
            } else {
                "glsl"
            };
            let mut body = String::new();
            k += 1;
            while k < lines.len() && !lines[k].trim_start().starts_with('[') {
                body.push_str(lines[k]);
                body.push('\n');
                k += 1;
            }
            if let Some(stage) = ws.first().and_then(|s| stage_of(s)) {
                out.push(ShaderSrc {
                    file: path.to_path_buf(),
                    stage,
                    lang,
                    target: spv14.then(|| "spv1.4".to_string()),
                    text: body,
                });
            }
            continue;
        }
        k += 1;
    }
    out
}

fn amber_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            amber_files(&p, out);
        } else if matches!(
            p.extension().and_then(|e| e.to_str()),
            Some("amber") | Some("vkscript")
        ) {
            out.push(p);
        }
    }
}

/// Compiles one shader to a SPIR-V binary; Err(reason) when the tool rejects it.
fn compile(s: &ShaderSrc) -> Result<Vec<u8>, String> {
    let r = if s.lang == "asm" {
        let env = s.target.as_deref().unwrap_or("spv1.0");
        let args = ["--target-env", env, "--preserve-numeric-ids"];
        Tool::SpirvAs.compile(&args, "spvasm", &s.text)
    } else {
        let mut args = vec!["-V".to_string(), "-S".into(), s.stage.into()];
        if let Some(t) = &s.target {
            args.extend(["--target-env".into(), t.replace("spv", "spirv")]);
        }
        Tool::Glslang.compile(&args, s.stage, &s.text)
    };
    r.map_err(|msg| msg.lines().take(2).collect::<Vec<_>>().join(" | "))
}

/// With `QUADSTEP_CORPUS_FUZZ=N`, also lowers N deterministic word mutations of each compiled
/// module (off by default: it is slow); a panic fails the test.
fn fuzz(bytes: &[u8], seed: u64) {
    let Some(n) = std::env::var("QUADSTEP_CORPUS_FUZZ")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    else {
        return;
    };
    let words = tools::words(bytes);
    if words.len() < 6 {
        return;
    }
    let mut rng = fastrand::Rng::with_seed(seed);
    for _ in 0..n {
        let mut w = words.clone();
        common::mutate::words(&mut rng, &mut w);
        if let Ok(m) = Module::load(&w) {
            for (name, stage) in m.entry_points() {
                if let Ok(sh) = m.lower(&name, Some(stage), &SpecConstants::new()) {
                    let _ = ir::verify(&sh);
                }
            }
        }
    }
}

#[test]
fn amber_corpus_lowers() {
    let Some(amber) = common::amber_dir_or_skip("front_spirv_corpus") else {
        return;
    };
    if !tools::have("front_spirv_corpus", &[Tool::SpirvAs, Tool::Glslang]) {
        return;
    }
    let mut files = Vec::new();
    amber_files(&amber, &mut files);
    let (mut compiled, mut tool_failed, mut lowered, mut entries) = (0, 0, 0, 0);
    let mut reasons: BTreeMap<String, (usize, String)> = BTreeMap::new();
    let mut panics = Vec::new();
    let mut verify_failures = Vec::new();
    let mut n = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        for s in extract(f, &text) {
            n += 1;
            let bytes = match compile(&s) {
                Ok(b) => b,
                Err(e) => {
                    if std::env::var("QUADSTEP_CORPUS_VERBOSE").is_ok() {
                        println!("tool failed: {}: {e}", s.file.display());
                    }
                    tool_failed += 1;
                    continue;
                }
            };
            compiled += 1;
            fuzz(&bytes, n as u64);
            let res = std::panic::catch_unwind(|| {
                let m = Module::from_bytes(&bytes)?;
                let mut results = Vec::new();
                for (name, stage) in m.entry_points() {
                    results.push(m.lower(&name, Some(stage), &SpecConstants::new()));
                }
                Ok::<_, quadstep::Error>(results)
            });
            let file = s
                .file
                .strip_prefix(&amber)
                .unwrap_or(&s.file)
                .display()
                .to_string();
            let mut note = |e: &quadstep::Error| {
                let msg = e.to_string();
                // Group by the message without offsets and ids.
                let key: String = msg
                    .split_whitespace()
                    .filter(|w| !w.chars().any(|c| c.is_ascii_digit()))
                    .collect::<Vec<_>>()
                    .join(" ");
                let e = reasons.entry(key).or_insert((0, format!("{file}: {msg}")));
                e.0 += 1;
            };
            match res {
                Err(_) => panics.push(file.clone()),
                Ok(Err(e)) => {
                    entries += 1;
                    note(&e)
                }
                Ok(Ok(results)) => {
                    for r in results {
                        entries += 1;
                        match r {
                            Ok(sh) => {
                                lowered += 1;
                                if let Err(e) = ir::verify(&sh) {
                                    verify_failures.push(format!("{file}: {e}"));
                                }
                            }
                            Err(e) => note(&e),
                        }
                    }
                }
            }
        }
    }
    println!(
        "shaders found {n}, compiled {compiled} (tool failures {tool_failed}), entry points {entries}, lowered {lowered}"
    );
    let mut rs: Vec<_> = reasons.into_iter().collect();
    rs.sort_by_key(|r| std::cmp::Reverse(r.1 .0));
    for (_, (count, example)) in &rs {
        println!("  {count:4} × {example}");
    }
    for v in &verify_failures {
        println!("  verify: {v}");
    }
    assert!(panics.is_empty(), "front end panicked on: {panics:?}");
    assert!(
        verify_failures.is_empty(),
        "{} shaders fail ir::verify",
        verify_failures.len()
    );
    let frac = lowered as f64 / entries.max(1) as f64;
    println!("lowered fraction {frac:.3}");
    assert!(
        frac >= 0.5,
        "only {lowered} of {entries} entry points lowered"
    );
}
