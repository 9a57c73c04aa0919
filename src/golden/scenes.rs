//! The golden scenes: Amber scripts in `shaders/golden/` whose `framebuffer` attachment is
//! compared with `golden/<name>.png`. The tolerance lives in the script itself, on a comment
//! line `# golden-tolerance: max_channel_diff N differing_pixels M` (absent: exact), so the
//! test (`tests/golden_scenes.rs`), the demo (`quadstep` with no arguments) and a reader of the
//! script all see the same one. Each scene's GLSL ships compiled in `spirv/` beside the
//! scripts ([`spirv_dir`]), so the scenes render where glslang is not installed.

use std::path::{Path, PathBuf};

use super::{compare, load_png, Comparison, GoldenDirs, RgbaImage, Tolerance};
use crate::amber::{run_file, RunOptions, ScriptResult, Status};
use crate::{Error, Result};

/// One golden scene.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoldenScene {
    /// File stem of the script, and of its golden PNG.
    pub name: String,
    pub script: PathBuf,
    pub tolerance: Tolerance,
}

/// `shaders/golden` under the crate root, or `QUADSTEP_SCENES_DIR`.
pub fn scenes_dir() -> PathBuf {
    std::env::var_os("QUADSTEP_SCENES_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders/golden"))
}

/// The SPIR-V compiled ahead of time from the scenes in `dir` (`dir/spirv`, files named by
/// [`crate::amber::run_shaders::prebuilt_name`]; `tools/compile-spirv` writes them, and
/// `tests/scene_spirv.rs` checks them against a fresh glslang compile).
pub fn spirv_dir(dir: &Path) -> PathBuf {
    dir.join("spirv")
}

/// The `# golden-tolerance:` line of a script (exact when there is none).
pub fn parse_tolerance(script: &str, path: &Path) -> Result<Tolerance> {
    let Some((n, line)) = script
        .lines()
        .enumerate()
        .find(|(_, l)| l.trim_start().starts_with("# golden-tolerance:"))
    else {
        return Ok(Tolerance::EXACT);
    };
    let bad = || {
        Error::Amber(format!(
            "{}:{}: expected `# golden-tolerance: max_channel_diff N differing_pixels M`",
            path.display(),
            n + 1
        ))
    };
    let rest = line.trim_start()["# golden-tolerance:".len()..].trim();
    let words: Vec<&str> = rest.split_whitespace().collect();
    let mut tol = Tolerance::EXACT;
    for pair in words.chunks(2) {
        let [key, value] = pair else {
            return Err(bad());
        };
        match *key {
            "max_channel_diff" => tol.max_channel_diff = value.parse().map_err(|_| bad())?,
            "differing_pixels" => tol.max_differing_pixels = value.parse().map_err(|_| bad())?,
            _ => return Err(bad()),
        }
    }
    Ok(tol)
}

/// Every `*.amber` in `dir`, sorted by name.
pub fn list(dir: &Path) -> Result<Vec<GoldenScene>> {
    let rd = std::fs::read_dir(dir).map_err(|e| Error::Io(format!("{}: {e}", dir.display())))?;
    let mut paths: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "amber"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|script| {
            let text = std::fs::read_to_string(&script)
                .map_err(|e| Error::Io(format!("{}: {e}", script.display())))?;
            Ok(GoldenScene {
                name: script
                    .file_stem()
                    .map_or(String::new(), |s| s.to_string_lossy().into_owned()),
                tolerance: parse_tolerance(&text, &script)?,
                script,
            })
        })
        .collect()
}

/// What rendering a scene gave.
pub struct Rendered {
    pub result: ScriptResult,
    /// The `framebuffer` attachment (or the only one).
    pub image: Option<RgbaImage>,
}

/// Run the scene's script on `threads` rasterizer threads and keep its framebuffer.
pub fn render(scene: &GoldenScene, threads: usize) -> Rendered {
    let opts = RunOptions {
        keep_images: true,
        raster_threads: threads.max(1),
        prebuilt_spirv: scene.script.parent().map(spirv_dir),
        // the shipped SPIR-V is compiled without debug information, and serves only such builds
        debug_info: false,
        ..RunOptions::default()
    };
    let result = run_file(&scene.script, &opts);
    let image = result
        .framebuffer()
        .and_then(|p| RgbaImage::from_raw(p.width, p.height, p.rgba.clone()));
    Rendered { result, image }
}

/// Render and compare with `<dirs.golden>/<name>.png`: `Ok(comparison)` when the script
/// passed and produced a framebuffer, `Err` naming what went wrong otherwise.
pub fn check(
    scene: &GoldenScene,
    threads: usize,
    dirs: &GoldenDirs,
) -> Result<(RgbaImage, Comparison)> {
    let r = render(scene, threads);
    if r.result.status != Status::Pass {
        return Err(Error::Pipeline(format!(
            "{}: {} {}",
            scene.script.display(),
            r.result.status.word(),
            r.result.status.detail()
        )));
    }
    let img = r.image.ok_or_else(|| {
        Error::Pipeline(format!(
            "{}: no `framebuffer` colour attachment",
            scene.script.display()
        ))
    })?;
    let golden = load_png(&dirs.golden.join(format!("{}.png", scene.name)))?;
    let cmp = compare(&golden, &img, scene.tolerance);
    Ok((img, cmp))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolerance_line() {
        let p = Path::new("s.amber");
        assert_eq!(
            parse_tolerance("#!amber\nSHADER", p).unwrap(),
            Tolerance::EXACT
        );
        assert_eq!(
            parse_tolerance(
                "#!amber\n# golden-tolerance: max_channel_diff 2 differing_pixels 10\n",
                p
            )
            .unwrap(),
            Tolerance {
                max_channel_diff: 2,
                max_differing_pixels: 10
            }
        );
        let e = parse_tolerance("#!amber\n# golden-tolerance: max_channel_diff two\n", p)
            .unwrap_err()
            .to_string();
        assert!(e.contains("s.amber:2"), "{e}");
        assert!(parse_tolerance("# golden-tolerance: nonsense 1\n", p).is_err());
    }
}
