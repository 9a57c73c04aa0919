//! `quadstep debug SCRIPT --pixel X,Y`: runs an Amber script and traces the quad that shades
//! one pixel (or a compute invocation's quad, `--invocation X,Y,Z`, or a vertex's,
//! `--vertex N`): every instruction it ran, the four lanes' values and states, what each
//! image instruction read, and warnings. Text by default, `--json` for tools (JSON lines),
//! `--html FILE` for a self-contained page. The library does the work (`quadstep::debug`);
//! this file only parses arguments and picks the trace to show.

use std::path::PathBuf;
use std::process::ExitCode;

use quadstep::amber::RunOptions;
use quadstep::debug::{self, Request, Target};

#[derive(clap::Args)]
pub struct DebugArgs {
    /// The Amber script (.amber or .vkscript).
    pub script: PathBuf,
    /// Trace the fragment shader at this framebuffer pixel (y down).
    #[arg(long, value_name = "X,Y", value_parser = pair, conflicts_with_all = ["invocation", "vertex"])]
    pub pixel: Option<[u32; 2]>,
    /// Trace the compute invocation with this GlobalInvocationId.
    #[arg(long, value_name = "X,Y,Z", value_parser = triple, conflicts_with = "vertex")]
    pub invocation: Option<[u32; 3]>,
    /// Trace the vertex shader invocation with this VertexIndex.
    #[arg(long, value_name = "N")]
    pub vertex: Option<u32>,
    /// Only this draw or dispatch command (0-based, in script order); default: the last one
    /// that reaches the target.
    #[arg(long, value_name = "N")]
    pub draw: Option<usize>,
    /// Which fragment, when several primitives of the draw cover the pixel (0-based, in the
    /// order they were shaded); default: the last.
    #[arg(long, value_name = "N")]
    pub fragment: Option<usize>,
    /// JSON lines: a "trace" object, one "step" object per step, a "result" object.
    #[arg(long)]
    pub json: bool,
    /// Only the steps that write this named value (a variable or a named result).
    #[arg(long, value_name = "NAME")]
    pub watch: Option<String>,
    /// Also write the trace as one self-contained HTML page.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Instructions recorded at most (the run goes on past it, untraced).
    #[arg(long, default_value_t = 1_000_000)]
    pub max_steps: usize,
    /// What a lane does after `OpKill` (GLSL `discard`).
    #[arg(long, value_enum, default_value_t)]
    pub discard: super::discard_arg::DiscardArg,
    /// Texture rules where Vulkan and D3D differ (default: each shader's own, D3D for DXIL,
    /// Vulkan for SPIR-V).
    #[arg(long, value_enum)]
    pub policy: Option<super::policy_arg::PolicyArg>,
    /// Rasterizer threads (0 = one per core). The trace does not depend on it.
    #[arg(long, short = 'j', default_value_t = 0)]
    pub threads: usize,
}

fn numbers<const N: usize>(s: &str) -> Result<[u32; N], String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    let bad = || format!("expected {N} comma-separated integers, got `{s}`");
    if parts.len() != N {
        return Err(bad());
    }
    let mut out = [0; N];
    for (o, p) in out.iter_mut().zip(parts) {
        *o = p.parse().map_err(|_| bad())?;
    }
    Ok(out)
}

fn pair(s: &str) -> Result<[u32; 2], String> {
    numbers(s)
}

fn triple(s: &str) -> Result<[u32; 3], String> {
    numbers(s)
}

pub fn run(a: DebugArgs) -> ExitCode {
    let target = match (a.pixel, a.invocation, a.vertex) {
        (Some([x, y]), _, _) => Target::Pixel { x, y },
        (_, Some([x, y, z]), _) => Target::Invocation { x, y, z },
        (_, _, Some(index)) => Target::Vertex { index },
        _ => {
            eprintln!(
                "quadstep debug: say what to trace: --pixel X,Y, --invocation X,Y,Z or --vertex N"
            );
            return ExitCode::from(2);
        }
    };
    if !a.script.is_file() {
        eprintln!("quadstep debug: {} is not a file", a.script.display());
        return ExitCode::from(2);
    }
    let threads = super::threads_or_cores(a.threads);
    let request = Request {
        draw: a.draw,
        max_steps: a.max_steps,
        ..Request::new(target)
    };
    let opts = RunOptions {
        raster_threads: threads,
        discard: a.discard.into(),
        policy: a.policy.map(Into::into),
        keep_images: false,
        ..RunOptions::default()
    };
    let report = debug::trace_script(&a.script, request, opts);
    if report.traces.is_empty() {
        let st = &report.script.status;
        eprintln!(
            "quadstep debug: {}: no draw or dispatch{} reached {target} (the script: {} {}{})",
            a.script.display(),
            a.draw.map(|d| format!(" numbered {d}")).unwrap_or_default(),
            st.word(),
            report.script.path.display(),
            super::amber_cmd::detail(&report.script)
        );
        return ExitCode::FAILURE;
    }
    let k = a.fragment.unwrap_or(report.traces.len() - 1);
    let Some(trace) = report.traces.get(k) else {
        eprintln!(
            "quadstep debug: --fragment {k}: only {} fragments shaded the pixel in draw {}",
            report.traces.len(),
            report.traces[0].draw
        );
        return ExitCode::from(2);
    };
    if let Some(path) = &a.html {
        if let Err(e) = std::fs::write(path, debug::html::page(&report, trace)) {
            eprintln!("quadstep debug: {}: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    if a.json {
        print!("{}", debug::json::lines(&report, trace, a.watch.as_deref()));
    } else {
        let opts = debug::text::Options { watch: a.watch };
        print!("{}", debug::text::render(&report, trace, &opts));
        if let Some(path) = &a.html {
            println!("wrote {}", path.display());
        }
    }
    ExitCode::SUCCESS
}
