//! Parse every AmberScript file of the shared corpus (see `common::amber_dir_or_skip`): zero parse errors,
//! except the files listed in `PARSE_FAIL` that are meant to fail at parse time. VkScript files (`.vkscript`, and the CTS `.amber` files
//! that are VkScript inside) are parsed too.

use std::path::{Path, PathBuf};

use quadstep::amber::ast::BufferInit;
use quadstep::Error;

/// Scripts Amber itself rejects while parsing (the error carries a line number in
/// lavapipe-results.tsv), with the reason.
const PARSE_FAIL: &[(&str, &str)] = &[
    (
        "draw_rect_with_two_vertex_data_attached.expect_fail.amber",
        "RUN DRAW_RECT on a pipeline with two VERTEX_DATA buffers is a parse error in Amber",
    ),
    (
        "draw_rect_with_two_vertex_data_attached.expect_fail.vkscript",
        "`draw rect` with two vertex attributes is a parse error in Amber's VkScript parser",
    ),
    (
        "draw_grid_with_two_vertex_data_attached.expect_fail.amber",
        "RUN DRAW_GRID on a pipeline with VERTEX_DATA buffers is a parse error in Amber",
    ),
];

mod common;

fn collect(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = rd.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, ext, out);
        } else if p.extension().is_some_and(|e| e == ext) {
            out.push(p);
        }
    }
}

#[test]
fn every_amber_script_parses() {
    let Some(dir) = common::amber_dir_or_skip("amber_corpus") else {
        return;
    };
    let mut files = Vec::new();
    collect(&dir, "amber", &mut files);
    collect(&dir, "vkscript", &mut files);
    assert!(files.len() > 100, "only {} scripts found", files.len());
    let mut failures = Vec::new();
    let mut expected_failures = 0;
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let r = quadstep::amber::parse_file(f);
        match (PARSE_FAIL.iter().find(|(n, _)| *n == name), r) {
            (None, Ok(script)) => {
                // Every initialiser lays out without panicking, to its declared size.
                for b in script.buffers() {
                    let bytes = b.layout_bytes();
                    if matches!(b.init, BufferInit::Fill(_) | BufferInit::Series { .. }) {
                        let want = b.element_count() * b.elem.stride(b.layout) as u64;
                        if bytes.len() as u64 != want {
                            failures.push(format!(
                                "{}: buffer {} has {} bytes, expected {want}",
                                f.display(),
                                b.name,
                                bytes.len()
                            ));
                        }
                    }
                }
            }
            (None, Err(e)) => failures.push(format!("{e}")),
            (Some(_), Ok(_)) => failures.push(format!("{}: parsed but should fail", f.display())),
            (Some(_), Err(Error::Amber(m))) => {
                assert!(m.contains(':'), "error without location: {m}");
                expected_failures += 1;
            }
            (Some(_), Err(e)) => failures.push(format!("{}: wrong error kind {e}", f.display())),
        }
    }
    eprintln!(
        "parsed {} scripts, {} expected parse failures",
        files.len(),
        expected_failures
    );
    assert!(
        failures.is_empty(),
        "{} of {} scripts failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

/// `FILE TEXT` and `FILE BINARY` of the same data (Amber's own `vec4data.txt` / `.bin`) must
/// give the bytes of the `.bin` file, which also equal the scripts' inline `ref0` buffers.
#[test]
fn text_and_binary_buffer_files_agree_with_amber_bin() {
    let Some(dir) = common::amber_dir_or_skip("amber_corpus") else {
        return;
    };
    let dir = dir.join("cases");
    if !dir.join("vec4data.bin").is_file() {
        eprintln!("skipping: {} is absent", dir.display());
        return;
    }
    let bin = std::fs::read(dir.join("vec4data.bin")).unwrap();
    for f in ["buffer_load_text.amber", "buffer_load_binary.amber"] {
        let s = quadstep::amber::parse_file(&dir.join(f)).unwrap();
        assert_eq!(s.buffer("buf0").unwrap().layout_bytes(), bin, "{f}");
        assert_eq!(s.buffer("ref0").unwrap().layout_bytes(), bin, "{f}");
        assert_eq!(
            s.buffer("buf1").unwrap().layout_bytes(),
            vec![0u8; 48],
            "{f}"
        );
    }
}

/// Truncating real scripts anywhere must give an error or a script, never a panic.
#[test]
fn truncated_corpus_scripts_never_panic() {
    let Some(dir) = common::amber_dir_or_skip("amber_corpus") else {
        return;
    };
    let mut files = Vec::new();
    collect(&dir, "amber", &mut files);
    collect(&dir, "vkscript", &mut files);
    for f in files.iter().step_by(7) {
        let text = std::fs::read_to_string(f).unwrap();
        let n = text.len();
        for k in 1..40 {
            let mut cut = n * k / 40;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            let _ = quadstep::amber::parse(&text[..cut], f);
        }
    }
}
