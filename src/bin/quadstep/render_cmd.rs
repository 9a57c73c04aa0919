//! `quadstep render SCRIPT --out IMG.png`: run one Amber script through the same runner as
//! `quadstep amber` and write one colour attachment as an RGBA8 PNG. The image is written even
//! when an EXPECT fails (that is when one wants to look at it); the exit code still says so:
//! the script's own status as `quadstep amber` gives it, 2 for an attachment that cannot be
//! picked or written.

use std::path::PathBuf;
use std::process::ExitCode;

use quadstep::amber::run::Picture;
use quadstep::amber::{run_file, ScriptResult, Status};

#[derive(clap::Args)]
pub struct RenderArgs {
    /// The Amber script (.amber or .vkscript).
    pub script: PathBuf,
    /// Where to write the PNG.
    #[arg(long, short, value_name = "IMG.png")]
    pub out: PathBuf,
    /// The colour attachment (Amber buffer name) to write; default: the only one, else the one
    /// named `framebuffer`, else the first bound.
    #[arg(long, value_name = "NAME")]
    pub buffer: Option<String>,
    #[command(flatten)]
    pub run: super::run_args::RunArgs,
}

fn pick<'a>(r: &'a ScriptResult, want: Option<&str>) -> Result<&'a Picture, String> {
    let pics = &r.images;
    match want {
        Some(w) => pics.iter().find(|p| p.buffer == w).ok_or_else(|| {
            let names: Vec<&str> = pics.iter().map(|p| p.buffer.as_str()).collect();
            format!(
                "the script has no colour attachment named `{w}` (it has: {})",
                names.join(", ")
            )
        }),
        None => r
            .framebuffer()
            .or(pics.first())
            .ok_or_else(|| "the script binds no colour attachment".to_string()),
    }
}

pub fn run(a: RenderArgs) -> ExitCode {
    if !a.script.is_file() {
        eprintln!("quadstep render: {} is not a file", a.script.display());
        return ExitCode::from(2);
    }
    let mut opts = match a.run.run_options(1, 0) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("quadstep render: {e}");
            return ExitCode::from(2);
        }
    };
    opts.keep_images = true;
    let r = run_file(&a.script, &opts);
    println!(
        "{} {}{}",
        r.status.word(),
        r.path.display(),
        super::amber_cmd::detail(&r)
    );
    if let Status::Unsupported { .. } = r.status {
        return ExitCode::from(2);
    }
    let failed = ExitCode::from(r.status.exit_code().max(1));
    let pic = match pick(&r, a.buffer.as_deref()) {
        Ok(p) => p,
        // The script failed before any attachment existed: its message is printed above.
        Err(_) if r.images.is_empty() && r.status != Status::Pass => return failed,
        Err(e) => {
            eprintln!("quadstep render: {}: {e}", a.script.display());
            return ExitCode::from(2);
        }
    };
    let Some(img) = image::RgbaImage::from_raw(pic.width, pic.height, pic.rgba.clone()) else {
        eprintln!(
            "quadstep render: attachment `{}` has a wrong size",
            pic.buffer
        );
        return ExitCode::from(3);
    };
    if let Some(dir) = a.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        if let Err(e) = std::fs::create_dir_all(dir) {
            eprintln!("quadstep render: {}: {e}", dir.display());
            return ExitCode::from(2);
        }
    }
    if let Err(e) = quadstep::golden::save_png(&a.out, &img) {
        eprintln!("quadstep render: {e}");
        return ExitCode::from(2);
    }
    println!(
        "wrote {} ({}x{}, attachment `{}`)",
        a.out.display(),
        pic.width,
        pic.height,
        pic.buffer
    );
    if r.status == Status::Pass {
        ExitCode::SUCCESS
    } else {
        failed
    }
}
