//! `quadstep dis SHADER`: what quadstep makes of a shader. Prints the SPIR-V disassembly (our
//! own disassembler, `spirv-dis` syntax, each instruction followed by `; @N`, its word offset)
//! or, for a DXIL container, its shader model and entry points, then for each entry point the
//! interface and the IR the interpreter runs (after the optimiser unless `--no-opt`) and the
//! texture policy it samples under. The IR's `; @N` markers name the instruction each run of
//! IR came from, so the two listings line up, and run-time errors name the same offsets. When
//! the module has `OpLine`s (or `DebugLine`s) both listings show the source file and line, and
//! the line's text where `OpSource` embeds it. Accepts a SPIR-V binary, SPIR-V assembly text, a
//! DXIL container, or GLSL/HLSL, which it compiles with `-g` through the Amber runner's
//! `glslangValidator` call and shader cache (Debian package `glslang-tools`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use quadstep::amber::ast::{Shader as AmberShader, ShaderFormat, ShaderSource, ShaderType};
use quadstep::amber::run_shaders;

use quadstep::front::dxil::lower;
use quadstep::front::spirv::{Module, SpecConstants};
use quadstep::front::spvasm;
use quadstep::ir;

#[derive(clap::Args)]
pub struct DisArgs {
    /// `.spv` (binary), `.spvasm` (text), or GLSL/HLSL (`.vert .frag .comp .glsl .hlsl`).
    pub shader: PathBuf,
    /// Only this entry point (default: all of them).
    #[arg(long, short)]
    pub entry: Option<String>,
    /// Stage for GLSL/HLSL sources whose extension does not say it (vert, frag, comp).
    #[arg(long, short = 'S')]
    pub stage: Option<String>,
    /// Print the IR straight from the front end, before the optimiser.
    #[arg(long)]
    pub no_opt: bool,
    /// Skip the SPIR-V disassembly.
    #[arg(long)]
    pub ir_only: bool,
    /// The texture rules to report (default: the shader's own, D3D for DXIL, Vulkan for
    /// SPIR-V).
    #[arg(long, value_enum)]
    pub policy: Option<super::policy_arg::PolicyArg>,
    /// Where compiled GLSL/HLSL is cached (default: `$QUADSTEP_CACHE_DIR`, else
    /// `$XDG_CACHE_HOME/quadstep`, else `~/.cache/quadstep`).
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
}

const MAGIC: u32 = 0x0723_0203;

pub fn run(a: DisArgs) -> ExitCode {
    if let Some(d) = &a.cache_dir {
        // the cache `load_words` (shared with `diff`) reaches through `default_cache_dir`;
        // set before any thread starts
        std::env::set_var(
            "QUADSTEP_CACHE_DIR",
            std::path::absolute(d).unwrap_or(d.clone()),
        );
    }
    match dis(&a) {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        // every error of `dis` is about its input (exit status 2, as every subcommand)
        Err(e) => {
            eprintln!("quadstep dis: {e}");
            ExitCode::from(2)
        }
    }
}

/// The policy line of an entry point.
fn policy_line(a: &DisArgs, own: quadstep::texture::Policy) -> String {
    match a.policy {
        Some(p) => format!(
            "; texture policy {:?} (--policy)\n",
            quadstep::texture::Policy::from(p)
        ),
        None => format!("; texture policy {own:?} (the shader's own)\n"),
    }
}

/// A DXIL container: its shader model and entry points, then each entry point's interface
/// and IR.
fn dis_dxil(a: &DisArgs, bytes: &[u8]) -> Result<String, String> {
    let path = &a.shader;
    let dxil =
        quadstep::front::dxil::read(bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = String::new();
    let entries = lower::entry_points(&dxil);
    if !a.ir_only {
        out += &format!(
            "; DXIL of {} ({} bytes): {}, entry points: {}\n",
            path.display(),
            bytes.len(),
            dxil.shader.shader_model,
            entries
                .iter()
                .map(|e| e.0.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    for (name, stage) in &entries {
        if a.entry.as_ref().is_some_and(|w| w != name) {
            continue;
        }
        let mut sh = lower::lower(&dxil, Some(name))
            .map_err(|e| format!("{}: entry point {name:?}: {e}", path.display()))?;
        out += &ir_text(a, name, *stage, &mut sh);
        out += &policy_line(a, quadstep::texture::Policy::D3D);
    }
    Ok(out)
}

/// The IR of one entry point with its interface.
fn ir_text(a: &DisArgs, name: &str, stage: ir::Stage, sh: &mut ir::Shader) -> String {
    let note = if a.no_opt {
        "before the optimiser".to_string()
    } else {
        let s = ir::opt::optimize(sh);
        format!(
            "after the optimiser: {} -> {} instructions",
            s.insts_before, s.insts_after
        )
    };
    let mut out = format!(
        "\n; IR of entry point {name:?} ({}), {note}\n",
        stage.shader_name()
    );
    out += &interface(sh);
    out += &ir::print_function_with(&sh.body, Some(&sh.source));
    out
}

fn dis(a: &DisArgs) -> Result<String, String> {
    let path = &a.shader;
    if let Ok(bytes) = std::fs::read(path) {
        if bytes.starts_with(b"DXBC") {
            return dis_dxil(a, &bytes);
        }
    }
    let words = load_words(path, a.stage.as_deref(), a.entry.as_deref())?;
    let mut out = String::new();
    // a module that does not load is still disassembled (then without source lines)
    let module = Module::load(&words).map_err(|e| format!("{}: {e}", path.display()));
    if !a.ir_only {
        let empty = ir::SourceMap::default();
        let map = module.as_ref().map_or(&empty, |m| m.source_map());
        let mut last_line = None;
        let text = spvasm::disassemble_with(&words, &mut |off| {
            format!("; @{off}{}", map.note(off, &mut last_line))
        })
        .map_err(|e| format!("{}: {e}", path.display()))?;
        out += &format!(
            "; SPIR-V of {} ({} words; @N: the word offset of the instruction{})\n",
            path.display(),
            words.len(),
            if map.spans.is_empty() {
                ""
            } else {
                ", then its source line"
            }
        );
        out += &text;
        if !text.ends_with('\n') {
            out.push('\n');
        }
    }
    let module = module?;
    let entries = module.entry_points();
    if let Some(want) = &a.entry {
        if !entries.iter().any(|(n, _)| n == want) {
            let have: Vec<_> = entries.iter().map(|(n, _)| n.as_str()).collect();
            return Err(format!(
                "{}: no entry point named {want:?} (it has: {})",
                path.display(),
                have.join(", ")
            ));
        }
    }
    for (name, stage) in &entries {
        if a.entry.as_ref().is_some_and(|w| w != name) {
            continue;
        }
        let mut sh = module
            .lower(name, Some(*stage), &SpecConstants::default())
            .map_err(|e| format!("{}: entry point {name:?}: {e}", path.display()))?;
        out += &ir_text(a, name, *stage, &mut sh);
        out += &policy_line(a, quadstep::texture::Policy::Vulkan);
    }
    Ok(out)
}

/// The entry point's interface, one `;` comment line per variable or resource.
fn interface(sh: &ir::Shader) -> String {
    let mut out = String::new();
    let io = |dir: &str, vars: &[ir::IoVar], out: &mut String| {
        for v in vars {
            let at = match v.binding {
                ir::IoBinding::Location {
                    location,
                    component,
                } => format!("location {location} component {component}"),
                ir::IoBinding::BuiltIn(b) => format!("built-in {b:?}"),
            };
            out.push_str(&format!(
                "; {dir} {at}: {} x {:?} at Local[{}] ({:?}){}\n",
                v.count,
                v.ty,
                v.word,
                v.interp,
                if v.name.is_empty() {
                    String::new()
                } else {
                    format!(" `{}`", v.name)
                }
            ));
        }
    };
    io("input ", &sh.inputs, &mut out);
    io("output", &sh.outputs, &mut out);
    for (i, r) in sh.resources.iter().enumerate() {
        out.push_str(&format!(
            "; res{i} = set {} binding {}{}: {:?}{}{}\n",
            r.set,
            r.binding,
            r.class
                .map(|c| format!(" (D3D {}{} space {})", c.letter(), r.binding, r.set))
                .unwrap_or_default(),
            r.kind,
            r.image.map(|i| image_type(&i)).unwrap_or_default(),
            if r.name.is_empty() {
                String::new()
            } else {
                format!(" `{}`", r.name)
            }
        ));
    }
    if sh.stage == ir::Stage::Compute {
        out.push_str(&format!("; workgroup size {:?}\n", sh.workgroup_size));
    }
    out.push_str(&format!(
        "; {} words of per-lane memory, {} of workgroup memory\n",
        sh.local_words, sh.workgroup_words
    ));
    out
}

/// An image type as ` 2D F32`, ` Cube F32 arrayed depth`, ` 2D I32 multisampled`…
fn image_type(t: &ir::ImageType) -> String {
    let dim = match t.dim {
        ir::ImageDim::D1 => "1D",
        ir::ImageDim::D2 => "2D",
        ir::ImageDim::D3 => "3D",
        ir::ImageDim::Cube => "Cube",
        ir::ImageDim::Buffer => "Buffer",
        ir::ImageDim::SubpassData => "SubpassData",
    };
    let mut s = format!(" {dim} {:?}", t.sampled_ty);
    for (on, word) in [
        (t.signed && t.sampled_ty.is_int(), " signed"),
        (t.arrayed, " arrayed"),
        (t.multisampled, " multisampled"),
        (t.depth, " depth"),
    ] {
        if on {
            s += word;
        }
    }
    s
}

/// The module's words: read a binary, assemble text, or compile GLSL/HLSL with glslang.
pub(crate) fn load_words(
    path: &Path,
    stage: Option<&str>,
    entry: Option<&str>,
) -> Result<Vec<u32>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if bytes.len() >= 4 && u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) == MAGIC {
        if bytes.len() % 4 != 0 {
            return Err(format!(
                "{}: {} bytes is not a whole number of 32-bit words",
                path.display(),
                bytes.len()
            ));
        }
        return Ok(bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect());
    }
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    let text = String::from_utf8(bytes).map_err(|_| {
        format!(
            "{}: neither a SPIR-V binary (no magic number) nor UTF-8 text",
            path.display()
        )
    })?;
    match ext.as_str() {
        "vert" | "frag" | "comp" | "glsl" | "hlsl" => glslang(path, &text, &ext, stage, entry),
        _ if text.contains("OpCapability") || ext == "spvasm" => {
            spvasm::assemble(&text, &path.display().to_string()).map_err(|e| e.to_string())
        }
        _ => Err(format!(
            "{}: not SPIR-V (binary or assembly) and not a GLSL/HLSL file by its extension",
            path.display()
        )),
    }
}

/// GLSL/HLSL through the Amber runner's glslangValidator call (same flags plus `-g` for the
/// source lines, same cache), with SPIR-V 1.3 as the target so subgroup and quad operations
/// compile.
fn glslang(
    path: &Path,
    text: &str,
    ext: &str,
    stage: Option<&str>,
    entry: Option<&str>,
) -> Result<Vec<u32>, String> {
    let stage = match stage.unwrap_or(ext) {
        "vert" => ShaderType::Vertex,
        "frag" => ShaderType::Fragment,
        "comp" => ShaderType::Compute,
        _ => {
            return Err(format!(
                "{}: give the stage with --stage vert|frag|comp",
                path.display()
            ))
        }
    };
    // compiled with `-g`, under the file's own name: the SPIR-V names it in its `OpLine`s
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned());
    let shader = AmberShader {
        name: stem.unwrap_or_else(|| path.display().to_string()),
        stage,
        format: if ext == "hlsl" {
            ShaderFormat::Hlsl
        } else {
            ShaderFormat::Glsl
        },
        target_env: Some("spv1.3".into()),
        file: Some(path.to_path_buf()),
        source: ShaderSource::Text(text.to_string()),
        line: 0,
    };
    let cache = run_shaders::default_cache_dir();
    let glsl = run_shaders::GlslOptions {
        cache: &cache,
        prebuilt: None,
        debug_info: true,
        script: None,
    };
    run_shaders::shader_words_with(&shader, stage, entry.unwrap_or("main"), None, &glsl).map_err(
        |e| {
            // compile errors already name the file and line
            let e = e.to_string();
            if e.contains(&format!("{}:", path.display())) {
                e
            } else {
                format!("{}: {e}", path.display())
            }
        },
    )
}
