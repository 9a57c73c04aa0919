//! `quadstep amber --golden-dir DIR [--update]`: a user's scripts as a golden-image suite.
//! Each colour attachment of a script that passed is compared exactly with
//! `DIR/<script below its argument, without extension>/<buffer>.png`; a missing golden or
//! a difference fails the script (kind `golden`) and leaves `<buffer>.diff.png` beside the
//! golden. `--update` writes the goldens instead. The comparison and the PNG files are
//! `quadstep::golden`'s.

use std::path::{Path, PathBuf};

use quadstep::amber::{FailKind, Picture, ScriptResult, Status};
use quadstep::golden::{self, RgbaImage, Tolerance};

/// A picture as an image.
pub fn image_of(p: &Picture) -> Result<RgbaImage, String> {
    RgbaImage::from_raw(p.width, p.height, p.rgba.clone())
        .ok_or_else(|| format!("attachment `{}` has a wrong size", p.buffer))
}

/// The folder of script `rel`'s goldens.
fn folder(dir: &Path, rel: &str) -> PathBuf {
    dir.join(Path::new(rel).with_extension(""))
}

/// Fail `r` with `kind`, keeping the failure it has (if any) in the message.
pub fn fail(r: &mut ScriptResult, kind: FailKind, message: String) {
    let before = match r.status.detail() {
        "" => String::new(),
        d => format!("{d}; and "),
    };
    r.status = Status::Fail {
        kind,
        message: format!("{before}{}: {message}", r.path.display()),
    };
}

/// Check (or with `update`, write) the goldens of `r`, script `rel` below its argument.
/// Only a passing script is checked: a failed one has failed already.
pub fn check(dir: &Path, rel: &str, update: bool, r: &mut ScriptResult) {
    if r.status != Status::Pass {
        return;
    }
    let folder = folder(dir, rel);
    let mut problems = Vec::new();
    let mut io = Vec::new();
    for p in &r.images {
        let golden_path = folder.join(format!("{}.png", p.buffer));
        let diff_path = folder.join(format!("{}.diff.png", p.buffer));
        let actual = match image_of(p) {
            Ok(i) => i,
            Err(e) => {
                io.push(e);
                continue;
            }
        };
        if update {
            if let Err(e) = golden::save_png(&golden_path, &actual) {
                io.push(e.to_string());
            }
            let _ = std::fs::remove_file(&diff_path);
            continue;
        }
        if !golden_path.exists() {
            problems.push(format!(
                "no golden {} (write it with --update)",
                golden_path.display()
            ));
            continue;
        }
        let expected = match golden::load_png(&golden_path) {
            Ok(i) => i,
            Err(e) => {
                io.push(e.to_string());
                continue;
            }
        };
        let c = golden::compare(&expected, &actual, Tolerance::EXACT);
        if c.passed {
            let _ = std::fs::remove_file(&diff_path);
            continue;
        }
        let diff = golden::diff_image(&expected, &actual, Tolerance::EXACT);
        match golden::save_png(&diff_path, &diff) {
            Ok(()) => problems.push(format!(
                "`{}` differs from {}: {}; see {}",
                p.buffer,
                golden_path.display(),
                c.describe(),
                diff_path.display()
            )),
            Err(e) => io.push(e.to_string()),
        }
    }
    if !io.is_empty() {
        fail(r, FailKind::Io, format!("--golden-dir: {}", io.join("; ")));
    } else if !problems.is_empty() {
        fail(r, FailKind::Golden, problems.join("; "));
    }
}
