//! The `quadstep` command line, one file per subcommand:
//! - `quadstep` (no arguments): the built-in demo (`demo_cmd.rs`): a probed Amber script, then
//!   the golden scenes rendered, compared with their golden PNGs and written out;
//! - `quadstep amber PATH...`: run Amber scripts, PASS / FAIL / SKIP per script (`amber_cmd.rs`);
//! - `quadstep render SCRIPT --out IMG`: run one script (or draw one fragment shader, `--frag`),
//!   write an image, any level or layer, as PNG, EXR or f32 (`render_cmd.rs`);
//! - `quadstep dis SHADER`: SPIR-V disassembly (or the DXIL container's metadata) and the
//!   lowered IR of each entry point (`dis_cmd.rs`);
//! - `quadstep diff A B`: two builds of one shader on the same inputs, the first differing
//!   values (`diff_cmd.rs`);
//! - `quadstep debug SCRIPT --pixel X,Y`: the shader debugger's trace of one pixel's quad
//!   (`debug_cmd.rs`);
//! - `quadstep inspect SHADER.dxil`: a DXIL container's declarations against its code
//!   (`inspect_cmd.rs`);
//! - `quadstep compare A.png B.png`: two pictures channel by channel (`compare_cmd.rs`);
//! - `quadstep bench SCRIPT`: times each draw and dispatch alone (`bench_cmd.rs`);
//!   `quadstep bench sampler`: the texture unit alone over a matrix of cases
//!   (`bench_sampler.rs`); both compare with earlier runs and plot (`bench_report.rs`,
//!   `bench_html.rs`);
//! - `quadstep limits`: the device limits table and the default memory budget (`limits_cmd.rs`).
//!
//! `run_args.rs` holds the switches `amber` and `render` share (texture rules, threads,
//! discard, cache, and the guards of `guard_args.rs`: time limit, memory budget, device
//! limits, Ctrl-C); `junit.rs`, `baseline.rs` and `golden_check.rs` the reports and checks
//! `amber` adds for CI (`--junit`, `--baseline`, `--golden-dir`).

mod amber_cmd;
mod baseline;
mod bench_cmd;
mod bench_html;
mod bench_report;
mod bench_sampler;
mod compare_cmd;
mod debug_cmd;
mod demo_cmd;
mod diff_cmd;
mod dis_cmd;
mod discard_arg;
mod golden_check;
mod guard_args;
mod inspect_cmd;
mod junit;
mod limits_cmd;
mod policy_arg;
mod render_cmd;
mod run_args;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "quadstep",
    version,
    about = "CPU rasterizer and SPIR-V/DXIL interpreter running 2x2 quads in lock-step",
    long_about = "CPU rasterizer and SPIR-V/DXIL interpreter running 2x2 quads in lock-step.\n\
                  Without a subcommand, runs the built-in demo: renders the golden scenes, \
                  compares them with their golden PNGs and prints where the PNGs went.",
    after_help = EXIT_STATUS
)]
struct Cli {
    #[command(subcommand)]
    cmd: Option<Cmd>,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run Amber scripts (.amber, .vkscript) and report PASS / FAIL / SKIP for each.
    #[command(after_help = amber_cmd::EXIT_STATUS)]
    Amber(amber_cmd::AmberArgs),
    /// Run one Amber script (or draw one fragment shader, --frag) and write an image, any
    /// level or layer, as PNG (8 or 16 bits), EXR or raw f32.
    #[command(after_help = render_cmd::after_help())]
    Render(render_cmd::RenderArgs),
    /// Disassemble a shader (SPIR-V binary, SPIR-V assembly, or GLSL/HLSL through
    /// glslangValidator) and print the IR quadstep runs for each entry point.
    #[command(after_help = EXIT_STATUS)]
    Dis(dis_cmd::DisArgs),
    /// Run two builds of one shader (DXIL vs SPIR-V, or two SPIR-V binaries) on the same
    /// inputs and report the first values whose outputs differ, with their ULP distance.
    #[command(after_help = EXIT_STATUS)]
    Diff(diff_cmd::DiffArgs),
    /// Print the device limits scripts are held to (lavapipe's by default) and the default
    /// memory budget.
    #[command(after_help = EXIT_STATUS)]
    Limits(limits_cmd::LimitsArgs),
    /// Print what a DXIL container declares (shader model, flags, signatures, resources) and
    /// what its code requires; exits 1 where they differ.
    #[command(after_help = EXIT_STATUS)]
    Inspect(inspect_cmd::InspectArgs),
    /// Trace one pixel's quad (or a compute invocation's, or a vertex's) through a script:
    /// every instruction, the four lanes' values, what the sampler read, warnings.
    #[command(after_help = EXIT_STATUS)]
    Debug(debug_cmd::DebugArgs),
    /// Compare two PNG pictures channel by channel; optionally write a picture of the
    /// differences.
    #[command(after_help = compare_cmd::EXIT_STATUS)]
    Compare(compare_cmd::CompareArgs),
    /// Time a script's draws and dispatches: setup once, then warm-up and timed repetitions
    /// of the draw or dispatch alone; min / median / max and time per pixel or invocation.
    #[command(after_help = EXIT_STATUS)]
    Bench(bench_cmd::BenchArgs),
}

/// What the exit status says, for the `--help` of every subcommand (`amber` and `render`
/// say which outcomes of a script are which: `amber_cmd::EXIT_STATUS`).
const EXIT_STATUS: &str = "Exit status: 0 success; 1 a check failed (the shaders differ, \
    the container's flags disagree, the script's run failed); 2 usage or input error (bad \
    arguments, a file that cannot be read or does not compile); 3 internal error.";

/// `n` threads, or one per core for 0 (`--jobs`, `--threads`).
pub fn threads_or_cores(n: usize) -> usize {
    if n == 0 {
        std::thread::available_parallelism().map_or(2, |n| n.get())
    } else {
        n
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.cmd {
        Some(Cmd::Amber(a)) => amber_cmd::run(a),
        Some(Cmd::Render(a)) => render_cmd::run(a),
        Some(Cmd::Dis(a)) => dis_cmd::run(a),
        Some(Cmd::Debug(a)) => debug_cmd::run(a),
        Some(Cmd::Diff(a)) => diff_cmd::run(a),
        Some(Cmd::Limits(a)) => limits_cmd::run(a),
        Some(Cmd::Inspect(a)) => inspect_cmd::run(a),
        Some(Cmd::Compare(a)) => compare_cmd::run(a),
        Some(Cmd::Bench(a)) => bench_cmd::run(a),
        None => demo_cmd::run(),
    }
}
