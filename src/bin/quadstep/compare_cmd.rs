//! `quadstep compare A.png B.png [--tolerance T] [--diff D.png]`: two pictures channel by
//! channel (R, G, B, A, in 8-bit units), through the golden-image code of `quadstep::golden`
//! that `quadstep amber --golden-dir` and the golden scenes use too. Prints how many pixels
//! differ by more than T and the largest difference; exit 0 when that difference is at most
//! T, 1 when not, 2 when a picture cannot be read or the sizes differ.

use std::path::PathBuf;
use std::process::ExitCode;

use quadstep::golden::{self, Tolerance};

#[derive(clap::Args)]
pub struct CompareArgs {
    /// The expected picture (PNG).
    pub a: PathBuf,
    /// The actual picture (PNG).
    pub b: PathBuf,
    /// Largest per-channel difference (0-255) still counted as equal.
    #[arg(long, short, default_value_t = 0, value_name = "T")]
    pub tolerance: u8,
    /// Write a picture of the differences here: A's luma dimmed where within the tolerance,
    /// the magnified difference (at least full red) where not.
    #[arg(long, value_name = "D.png")]
    pub diff: Option<PathBuf>,
}

/// What the exit status says, for `--help`.
pub const EXIT_STATUS: &str = "Exit status: 0 the pictures match (no channel differs by more \
    than the tolerance); 1 they differ; 2 usage or input error (a picture cannot be read, the \
    sizes differ, the diff cannot be written); 3 internal error.";

pub fn run(a: CompareArgs) -> ExitCode {
    let load = |p: &PathBuf| golden::load_png(p).map_err(|e| e.to_string());
    let (x, y) = match (load(&a.a), load(&a.b)) {
        (Ok(x), Ok(y)) => (x, y),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("quadstep compare: {e}");
            return ExitCode::from(2);
        }
    };
    if x.dimensions() != y.dimensions() {
        eprintln!(
            "quadstep compare: {} is {}x{}, {} is {}x{}",
            a.a.display(),
            x.width(),
            x.height(),
            a.b.display(),
            y.width(),
            y.height()
        );
        return ExitCode::from(2);
    }
    let tol = Tolerance {
        max_channel_diff: a.tolerance,
        max_differing_pixels: 0,
    };
    let c = golden::compare(&x, &y, tol);
    println!(
        "{} of {} pixels differ by more than {}; largest channel difference {}",
        c.differing_pixels,
        x.width() as u64 * x.height() as u64,
        a.tolerance,
        c.max_diff
    );
    if let Some(m) = c.first_mismatch {
        println!(
            "first at ({}, {}): A {:?}, B {:?}",
            m.x, m.y, m.expected, m.actual
        );
    }
    if let Some(d) = &a.diff {
        if let Err(e) = golden::save_png(d, &golden::diff_image(&x, &y, tol)) {
            eprintln!("quadstep compare: --diff: {e}");
            return ExitCode::from(2);
        }
    }
    ExitCode::from(u8::from(!c.passed))
}
