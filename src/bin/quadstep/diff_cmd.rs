//! `quadstep diff A B`: run two builds of one shader (DXIL against SPIR-V, or two SPIR-V
//! binaries, e.g. before and after `spirv-opt`) on the same inputs and print the first values
//! where their outputs differ, with the ULP distance (`quadstep::diff`). The inputs are an
//! Amber scene (`--scene`, whose shader of A's stage each build replaces) or, for fragment
//! shaders without resources, generated inputs over a grid of quads. Exit code 0: no
//! difference; 1: differences; 2: an error.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use quadstep::amber::RunOptions;
use quadstep::diff::{self, Build, Report};
use quadstep::front::spirv::{Module, SpecConstants};
use quadstep::ir::Stage;
use quadstep::pipeline::Shader;

#[derive(clap::Args)]
pub struct DiffArgs {
    /// The first build: `.dxil`, `.spv`, `.spvasm`, or GLSL/HLSL (compiled by glslang).
    pub a: PathBuf,
    /// The second build, in any of the same forms.
    pub b: PathBuf,
    /// An Amber script to run both builds in (each replaces the script's shader of its stage).
    #[arg(long, value_name = "SCRIPT.amber")]
    pub scene: Option<PathBuf>,
    /// The scene's shader to replace, when it has several of the builds' stage.
    #[arg(long, value_name = "NAME")]
    pub shader: Option<String>,
    /// Without a scene: the grid of generated inputs is N×N pixels.
    #[arg(long, value_name = "N", default_value_t = 16)]
    pub grid: u32,
    /// Entry point (default: each build's first).
    #[arg(long, short)]
    pub entry: Option<String>,
    /// Stage for GLSL/HLSL sources whose extension does not say it (vert, frag, comp).
    #[arg(long, short = 'S')]
    pub stage: Option<String>,
    /// How many differences to print.
    #[arg(long, default_value_t = 10)]
    pub limit: usize,
    /// Texture rules for both builds (default: each build's own).
    #[arg(long, value_enum)]
    pub policy: Option<super::policy_arg::PolicyArg>,
}

fn is_dxil(bytes: &[u8]) -> bool {
    bytes.starts_with(b"DXBC")
}

/// A build of a file and its stage.
fn load(path: &Path, a: &DiffArgs) -> Result<(Build, Stage), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if is_dxil(&bytes) {
        let sh = Shader::from_dxil(&bytes, a.entry.as_deref())
            .map_err(|e| format!("{}: {e}", path.display()))?;
        return Ok((Build::Dxil(bytes), sh.stage()));
    }
    let words = super::dis_cmd::load_words(path, a.stage.as_deref(), a.entry.as_deref())?;
    let module = Module::load(&words).map_err(|e| format!("{}: {e}", path.display()))?;
    let stage = module
        .entry_points()
        .into_iter()
        .find(|(n, _)| a.entry.as_ref().is_none_or(|e| e == n))
        .map(|(_, s)| s)
        .ok_or_else(|| format!("{}: no entry point to run", path.display()))?;
    Ok((Build::Spirv(words), stage))
}

fn compile(b: &Build, a: &DiffArgs) -> Result<Shader, String> {
    let mut sh = match b {
        Build::Dxil(bytes) => Shader::from_dxil(bytes, a.entry.as_deref()),
        Build::Spirv(words) => {
            let m = Module::load(words).map_err(|e| e.to_string())?;
            let entry = match &a.entry {
                Some(e) => e.clone(),
                None => m
                    .entry_points()
                    .first()
                    .map(|e| e.0.clone())
                    .unwrap_or_default(),
            };
            Shader::from_module(&m, &entry, None, &SpecConstants::default())
        }
    }
    .map_err(|e| e.to_string())?;
    if let Some(p) = a.policy {
        sh.set_policy(p.into());
    }
    Ok(sh)
}

fn print(a: &DiffArgs, r: &Report) {
    for n in &r.notes {
        println!("note: {n}");
    }
    println!(
        "{} vs {}: {} of {} values differ",
        a.a.display(),
        a.b.display(),
        r.differing,
        r.compared
    );
    for d in &r.first {
        let ulp = d.ulp.map_or("-".to_string(), |u| u.to_string());
        println!("  {}: A {}  B {}  ULP {ulp}", d.place, d.a, d.b);
    }
}

pub fn run(a: DiffArgs) -> ExitCode {
    let result = (|| -> Result<Report, String> {
        let (ba, sa) = load(&a.a, &a)?;
        let (bb, sb) = load(&a.b, &a)?;
        if sa != sb {
            return Err(format!("A is a {sa:?} shader, B a {sb:?} shader"));
        }
        match &a.scene {
            Some(scene) => {
                let opts = RunOptions {
                    policy: a.policy.map(Into::into),
                    ..RunOptions::default()
                };
                diff::scene(scene, sa, a.shader.as_deref(), &ba, &bb, &opts, a.limit)
                    .map_err(|e| e.to_string())
            }
            None => {
                let (x, y) = (compile(&ba, &a)?, compile(&bb, &a)?);
                diff::grid(&x, &y, a.grid, a.limit).map_err(|e| e.to_string())
            }
        }
    })();
    match result {
        Ok(r) => {
            print(&a, &r);
            if r.differing == 0 && r.notes.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(e) => {
            eprintln!("quadstep diff: {e}");
            ExitCode::from(2)
        }
    }
}
