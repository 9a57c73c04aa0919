//! The DXIL reader's printer against `llvm-dis-14`: the function bodies of a sample of the
//! vkd3d-proton corpus (`tests/dxil/golden/*.ll`, written once by `tests/dxil/goldens.sh`
//! with `llvm-dis-14`) must come out line for line the same, after two normalisations of
//! things that are numbering, not meaning: metadata node numbers (`!25` → `!N`: LLVM numbers
//! nodes in its own slot order) and attribute group references (`#2` → removed: LLVM
//! renumbers the groups it prints); and one upgrade LLVM 14 makes on reading: overloaded
//! intrinsics get their type suffix (`@llvm.lifetime.start` → `@llvm.lifetime.start.p0i8`),
//! which the suffix-free 3.7 name in the bitcode does not have. Where `llvm-dis-14` is
//! installed (`.ci/run` installs it), every corpus container is compared the same way.

mod common;

use common::tools::{self, Tool};

use std::path::{Path, PathBuf};

use quadstep::front::dxil;

fn corpus_root() -> Option<PathBuf> {
    common::dxil_corpus_or_skip("dxil corpus").map(|(root, _)| root)
}

/// Replaces `!<digits>` by `!N`, drops ` #<digits>` attribute references and LLVM 14's
/// pointer suffixes of the lifetime intrinsics.
fn normalise(line: &str) -> String {
    let line = line.replace("@llvm.lifetime.start.p0i8(", "@llvm.lifetime.start(");
    let line = line.replace("@llvm.lifetime.end.p0i8(", "@llvm.lifetime.end(");
    let mut out = String::with_capacity(line.len());
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let digits_after = |j: usize| b[j..].iter().take_while(|c| c.is_ascii_digit()).count();
        if b[i] == b'!' && i + 1 < b.len() && b[i + 1].is_ascii_digit() {
            out.push_str("!N");
            i += 1 + digits_after(i + 1);
        } else if b[i] == b' ' && i + 2 < b.len() && b[i + 1] == b'#' && b[i + 2].is_ascii_digit() {
            i += 2 + digits_after(i + 2);
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    out
}

/// The bodies of the `define`d functions in `text`: every line from `define` to `}`,
/// normalised, the `define` line itself left out (it carries parameter attributes).
fn bodies(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if line.starts_with("define ") {
            inside = true;
            continue;
        }
        if inside {
            out.push(normalise(line));
            if line == "}" {
                inside = false;
            }
        }
    }
    out
}

fn ours(container: &[u8]) -> String {
    let m = dxil::read(container).expect("reads");
    m.module
        .defined_functions()
        .map(|(f, _)| dxil::print::print_function(&m.module, f))
        .collect::<Vec<_>>()
        .join("\n")
}

fn compare(name: &str, expected: &str, ours: &str) -> Result<(), String> {
    let (e, o) = (bodies(expected), bodies(ours));
    for (i, (a, b)) in e.iter().zip(&o).enumerate() {
        if a != b {
            return Err(format!(
                "{name}: body line {i} differs\n llvm-dis: {a}\n ours:     {b}"
            ));
        }
    }
    if e.len() != o.len() {
        return Err(format!(
            "{name}: {} body lines from llvm-dis, {} from us",
            e.len(),
            o.len()
        ));
    }
    Ok(())
}

#[test]
fn goldens_match_llvm_dis() {
    let Some(root) = corpus_root() else { return };
    let golden_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dxil/golden");
    let list =
        std::fs::read_to_string(golden_dir.join("SAMPLE")).expect("tests/dxil/golden/SAMPLE");
    let mut failures = Vec::new();
    let mut n = 0;
    for rel in list
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let container = std::fs::read(root.join(rel)).expect("sample container");
        let golden = golden_dir.join(rel.replace('/', "__").replace(".dxil", ".ll"));
        let expected = std::fs::read_to_string(&golden).expect("golden file");
        if let Err(e) = compare(rel, &expected, &ours(&container)) {
            failures.push(e);
        }
        n += 1;
    }
    assert!(n >= 20, "{n} goldens");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn whole_corpus_matches_llvm_dis() {
    if !tools::have("whole_corpus_matches_llvm_dis", &[Tool::LlvmDis]) {
        return;
    }
    let Some((_, files)) = common::dxil_corpus_or_skip("whole_corpus_matches_llvm_dis") else {
        return;
    };
    let tmp = std::env::temp_dir().join(format!("quadstep-dxil-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut failures = Vec::new();
    for f in &files {
        let container = std::fs::read(f).unwrap();
        let m = dxil::read(&container).unwrap();
        let bc = tmp.join("x.bc");
        std::fs::write(&bc, m.bitcode(&container)).unwrap();
        let out = Tool::LlvmDis
            .command()
            .arg(&bc)
            .arg("-o")
            .arg("-")
            .output()
            .expect("llvm-dis-14");
        let expected = String::from_utf8_lossy(&out.stdout);
        if let Err(e) = compare(&f.display().to_string(), &expected, &ours(&container)) {
            failures.push(e);
        }
    }
    std::fs::remove_dir_all(&tmp).ok();
    assert!(
        failures.is_empty(),
        "{} of {} differ:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n\n")
    );
}
