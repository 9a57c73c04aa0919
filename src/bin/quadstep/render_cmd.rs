//! `quadstep render SCRIPT --out IMG`: run one Amber script through the same runner as
//! `quadstep amber` and write one of its images, any level and layer, in a file format that
//! keeps what the image holds (`quadstep::image_file`: PNG of 8 or 16 bits, EXR, `.f32`).
//! `quadstep render --frag SHADER --size WxH --out IMG`: the same for a fragment shader alone,
//! drawn over a full-screen triangle by a script made here (`frag_script`).
//!
//! The image is written when the script ran to its end, even when an `EXPECT` failed (that is
//! when one wants to look at it); a script that stopped early (a shader that does not
//! compile, a runtime error, the time limit) writes none. The exit code is the script's
//! status as `quadstep amber` gives it, 2 for arguments, an image or an output that cannot
//! be picked or written.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use quadstep::amber::{run_file, run_script, FailKind, RunOptions, ScriptResult, Status};
use quadstep::image_file::{FileFormat, Pixels};

/// `--help`'s account of the file formats, of `--frag`'s shader interface and of the exit
/// status.
pub fn after_help() -> String {
    format!("{AFTER_HELP}{}", super::amber_cmd::EXIT_STATUS)
}

const AFTER_HELP: &str = "Files: the format follows --out's extension or --format. \
    png: 8 bits a channel for 8-bit UNORM/SRGB (and 8-bit integer) images, 16 bits for more \
    precise ones (16-bit UNORM, packed 10/11-bit, float, wider integers); values clamped to \
    [0, 1]. exr: OpenEXR, 32-bit float RGBA, unclamped. f32 (or npy): 32-bit float RGBA in \
    NumPy's .npy layout, a 128-byte header then H x W x 4 little-endian f32, rows top to \
    bottom: `numpy.load(\"out.f32\")` gives an array of shape (H, W, 4).\n\n\
    --frag: a GLSL fragment shader (or SPIR-V, .spv) drawn over the whole framebuffer by a \
    full-screen triangle. Its inputs: `layout(location = 0) in vec2 uv;` (0,0 at the \
    top-left corner, 1,1 at the bottom-right) and `layout(push_constant) uniform P { float \
    time; };` (--time). It writes `layout(location = 0) out vec4`. The attachment is \
    R8G8B8A8_UNORM for png, R32G32B32A32_SFLOAT for exr and f32 (--color-format to choose).\n\n";

#[derive(clap::Args)]
pub struct RenderArgs {
    /// The Amber script (.amber or .vkscript); not with --frag.
    #[arg(required_unless_present = "frag", conflicts_with = "frag")]
    pub script: Option<PathBuf>,
    /// A fragment shader to draw alone over the whole framebuffer (GLSL, or SPIR-V .spv).
    #[arg(long, value_name = "SHADER.frag")]
    pub frag: Option<PathBuf>,
    /// The framebuffer's size for --frag.
    #[arg(long, value_name = "WxH", default_value = "256x256", requires = "frag")]
    pub size: String,
    /// The push constant `time` for --frag.
    #[arg(long, value_name = "SECONDS", default_value_t = 0.0, requires = "frag")]
    pub time: f32,
    /// The colour attachment's Vulkan format for --frag (default: R8G8B8A8_UNORM for png,
    /// R32G32B32A32_SFLOAT for exr and f32).
    #[arg(long, value_name = "FORMAT", requires = "frag")]
    pub color_format: Option<String>,
    /// Where to write the image.
    #[arg(long, short, value_name = "IMG")]
    pub out: PathBuf,
    /// The file format (default: from --out's extension).
    #[arg(long, value_enum)]
    pub format: Option<FormatArg>,
    /// The image (Amber buffer name) to write; default: the only colour attachment, else the
    /// one named `framebuffer`, else the first bound.
    #[arg(long, value_name = "NAME")]
    pub buffer: Option<String>,
    /// The mip level to write (levels not rendered are generated from level 0, as a shader
    /// sampling the image would see them).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub level: u32,
    /// The layer to write: an array layer, a cube face (+X -X +Y -Y +Z -Z), a 3D slice.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub layer: u32,
    #[command(flatten)]
    pub run: super::run_args::RunArgs,
}

/// The values of `--format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FormatArg {
    Png,
    Exr,
    F32,
}

impl From<FormatArg> for FileFormat {
    fn from(f: FormatArg) -> FileFormat {
        match f {
            FormatArg::Png => FileFormat::Png,
            FormatArg::Exr => FileFormat::Exr,
            FormatArg::F32 => FileFormat::F32,
        }
    }
}

fn usage(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("quadstep render: {msg}");
    ExitCode::from(2)
}

/// The full-screen triangle's vertex shader (`shaders/demo/fullscreen.vert`): uv (0,0) at
/// the top-left corner to (1,1) at the bottom-right, at location 0.
const FULLSCREEN_VS: &[u8] = include_bytes!("../../../shaders/demo/fullscreen.vert.spv");

/// The script `--frag` runs: the full-screen triangle, the shader from its file, `time` as
/// the push constants, one colour attachment `framebuffer` of `format`.
fn frag_script(frag: &Path, (w, h): (u32, u32), time: f32, format: &str) -> String {
    let hex: Vec<String> = FULLSCREEN_VS.iter().map(|b| format!("{b:02x}")).collect();
    let kind = if frag.extension().is_some_and(|e| e == "spv") {
        "SPIRV-BIN"
    } else {
        "GLSL"
    };
    format!(
        "#!amber\n\
         SHADER vertex fullscreen SPIRV-HEX\n{}\nEND\n\
         SHADER fragment frag {kind} FILE {}\n\
         BUFFER time DATA_TYPE float STD430 DATA {time:?} END\n\
         BUFFER framebuffer FORMAT {format}\n\
         PIPELINE graphics pipeline\n  ATTACH fullscreen\n  ATTACH frag\n  \
         FRAMEBUFFER_SIZE {w} {h}\n  BIND BUFFER time AS push_constant\n  \
         BIND BUFFER framebuffer AS color LOCATION 0\nEND\n\
         RUN pipeline DRAW_ARRAY AS TRIANGLE_LIST START_IDX 0 COUNT 3\n",
        hex.join(" "),
        frag.display()
    )
}

fn parse_size(s: &str) -> Option<(u32, u32)> {
    let (w, h) = s.split_once(['x', 'X'])?;
    let (w, h) = (w.trim().parse().ok()?, h.trim().parse().ok()?);
    (w > 0 && h > 0).then_some((w, h))
}

/// Run `--frag`'s script, or `None` (after the message) for a usage error.
fn run_frag(
    a: &RenderArgs,
    frag: &Path,
    file: FileFormat,
    opts: &RunOptions,
) -> Option<ScriptResult> {
    if !frag.is_file() {
        eprintln!("quadstep render: {} is not a file", frag.display());
        return None;
    }
    let Some(size) = parse_size(&a.size) else {
        eprintln!(
            "quadstep render: --size {}: expected WxH, e.g. 256x256",
            a.size
        );
        return None;
    };
    let format = a.color_format.clone().unwrap_or_else(|| match file {
        FileFormat::Png => "R8G8B8A8_UNORM".into(),
        _ => "R32G32B32A32_SFLOAT".into(),
    });
    let frag = std::path::absolute(frag).unwrap_or_else(|_| frag.to_path_buf());
    let text = frag_script(&frag, size, a.time, &format);
    // Messages about the script name the shader's file: its own lines for compile errors.
    let name = PathBuf::from(format!("{} (render --frag)", frag.display()));
    Some(
        match quadstep::amber::parse_with(&text, &name, &opts.limits) {
            Ok(script) => run_script(&script, opts),
            Err(e) => ScriptResult {
                path: name.clone(),
                status: Status::of_error(e, &name.display().to_string()),
                note: String::new(),
                elapsed: std::time::Duration::ZERO,
                images: Vec::new(),
                buffers: Vec::new(),
            },
        },
    )
}

/// The name of the image to write: `--buffer`, else the script's main picture.
fn pick(r: &ScriptResult, want: Option<&str>) -> Result<String, String> {
    match want {
        Some(w) => r
            .buffers
            .iter()
            .any(|b| b.name == w)
            .then(|| w.to_string())
            .ok_or_else(|| {
                let names: Vec<&str> = r.buffers.iter().map(|b| b.name.as_str()).collect();
                format!(
                    "the script has no buffer or image named `{w}` (it has: {})",
                    names.join(", ")
                )
            }),
        None => r
            .framebuffer()
            .or(r.images.first())
            .map(|p| p.buffer.clone())
            .ok_or_else(|| "the script binds no colour attachment".to_string()),
    }
}

pub fn run(a: RenderArgs) -> ExitCode {
    let file = match a
        .format
        .map(FileFormat::from)
        .or(FileFormat::from_path(&a.out))
    {
        Some(f) => f,
        None => {
            return usage(format_args!(
                "{}: unknown image extension (png, exr, f32 or npy; or say --format)",
                a.out.display()
            ))
        }
    };
    let mut opts = match a.run.run_options(1, 0) {
        Ok(o) => o,
        Err(e) => return usage(e),
    };
    opts.keep_images = true;
    let r = match (&a.frag, &a.script) {
        (Some(frag), _) => match run_frag(&a, frag, file, &opts) {
            Some(r) => r,
            None => return ExitCode::from(2),
        },
        (None, Some(script)) if script.is_file() => run_file(script, &opts),
        (None, Some(script)) => return usage(format_args!("{} is not a file", script.display())),
        (None, None) => return usage("a script or --frag is needed"),
    };
    println!(
        "{} {}{}",
        r.status.word(),
        r.path.display(),
        super::amber_cmd::detail(&r)
    );
    let ran_to_the_end = match &r.status {
        Status::Pass => true,
        Status::Fail { kind, .. } => *kind == FailKind::Expect,
        Status::Unsupported { .. } => return ExitCode::from(2),
    };
    let failed = ExitCode::from(r.status.exit_code().max(1));
    if !ran_to_the_end {
        // its message is printed above; no picture of a run that stopped
        return failed;
    }
    let name = match pick(&r, a.buffer.as_deref()) {
        Ok(n) => n,
        Err(e) => return usage(format_args!("{}: {e}", r.path.display())),
    };
    let pixels = r
        .buffers
        .iter()
        .find(|b| b.name == name)
        .ok_or_else(|| quadstep::Error::Amber(format!("no buffer `{name}`")))
        .and_then(|b| b.texture())
        .and_then(|img| Pixels::from_image(&img, a.level, a.layer));
    let pixels = match pixels {
        Ok(p) => p,
        Err(e) => return usage(format_args!("{}: `{name}`: {e}", r.path.display())),
    };
    if let Err(e) = pixels.save(&a.out, file) {
        return usage(e);
    }
    println!(
        "wrote {} ({}x{}, `{name}` level {} layer {})",
        a.out.display(),
        pixels.width,
        pixels.height,
        a.level,
        a.layer
    );
    if r.status == Status::Pass {
        ExitCode::SUCCESS
    } else {
        failed
    }
}
