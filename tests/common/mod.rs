//! Helpers shared by the integration tests (each test file that needs one says `mod common;`):
//! where the Amber corpus is (here), the external tools tests run ([`tools`]) and random
//! mutations of SPIR-V binaries ([`mutate`]).
//!
//! Each test file is its own crate and uses a part of this module, so unused items are allowed.
#![allow(dead_code)]

pub mod mutate;
pub mod tools;

use std::path::{Path, PathBuf};

/// The environment variables naming the Amber corpus folder, in priority order
/// (`QUADSTEP_AMBER` is the older name, still accepted).
pub const AMBER_ENV: [&str; 2] = ["QUADSTEP_AMBER_DIR", "QUADSTEP_AMBER"];

/// Whether `dir` looks like the Amber corpus (it holds `cts/` or `cases/`).
fn is_corpus(dir: &Path) -> bool {
    dir.join("cts").is_dir() || dir.join("cases").is_dir()
}

/// Where the Amber corpus is, or why it was not found.
///
/// An environment variable of [`AMBER_ENV`] that is set wins, and must point at the corpus (a
/// wrong path is reported rather than silently replaced). Otherwise the first corpus of:
/// `../shared/amber` beside the crate, or `shared/amber` inside it.
pub fn find_amber_dir() -> Result<PathBuf, String> {
    for var in AMBER_ENV {
        if let Some(v) = std::env::var_os(var) {
            let p = PathBuf::from(v);
            return if is_corpus(&p) {
                Ok(p)
            } else {
                Err(format!(
                    "${var}={} holds no Amber corpus (no cts/ or cases/ folder)",
                    p.display()
                ))
            };
        }
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let candidates = [
        manifest.join("../shared/amber"),
        manifest.join("shared/amber"),
    ];
    candidates
        .iter()
        .find(|p| is_corpus(p))
        .cloned()
        .ok_or_else(|| {
            format!(
                "no Amber corpus in {} (set {} to its folder)",
                candidates
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                AMBER_ENV[0]
            )
        })
}

/// The Amber corpus folder, or `None` after printing `"<test>: skipped: <reason>"` (shown with
/// `--nocapture`, and by the harness on stderr).
pub fn amber_dir_or_skip(test: &str) -> Option<PathBuf> {
    match find_amber_dir() {
        Ok(p) => Some(p),
        Err(why) => {
            eprintln!("{test}: skipped: {why}");
            None
        }
    }
}

/// The folder of the DXIL corpus (`shared/dxil/vkd3d-proton`, with its `MANIFEST.tsv`),
/// looked for beside the crate and inside it, or `None` after printing
/// `"<test>: skipped: ..."`.
#[allow(dead_code)]
pub fn dxil_dir_or_skip(test: &str) -> Option<PathBuf> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let found = [
        manifest.join("../shared/dxil/vkd3d-proton"),
        manifest.join("shared/dxil/vkd3d-proton"),
    ]
    .into_iter()
    .find(|p| p.join("MANIFEST.tsv").is_file());
    if found.is_none() {
        eprintln!("{test}: skipped: no DXIL corpus (shared/dxil/vkd3d-proton) found");
    }
    found
}

/// The DXIL containers of the corpus (sorted), with its folder, or `None` after printing
/// `"<test>: skipped: ..."` ([`dxil_dir_or_skip`]).
#[allow(dead_code)]
pub fn dxil_corpus_or_skip(test: &str) -> Option<(PathBuf, Vec<PathBuf>)> {
    let root = dxil_dir_or_skip(test)?;
    let mut files = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).ok()?.flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "dxil") {
                files.push(p);
            }
        }
    }
    files.sort();
    Some((root.clone(), files))
}

/// Send `child` SIGINT, as Ctrl-C at a terminal does.
pub fn interrupt(child: &std::process::Child) {
    let kill = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
}

/// An HTML page written as well-formed XML (`quadstep bench --html`), parsed; panics with the
/// parser's message and the page when it is not well formed.
pub fn parse_page(html: &str) -> roxmltree::Document<'_> {
    roxmltree::Document::parse_with_options(
        html,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}: {html}"))
}
