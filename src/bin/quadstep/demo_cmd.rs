//! `quadstep` with no arguments: the built-in demo. Runs a tiny probed Amber script (so a
//! broken build shows at once), renders the golden scenes and compares them with their golden
//! PNGs, then renders the oracle scenes, printing where every PNG went.

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use quadstep::golden::{scenes, GoldenDirs};

use quadstep::amber::{RunOptions, Status};

/// A tiny built-in script: a solid-colour rectangle probed at its centre.
const DEMO: &str = r#"#!amber
SHADER vertex vs PASSTHROUGH
SHADER fragment fs SPIRV-ASM
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint Fragment %main "main" %color
               OpExecutionMode %main OriginUpperLeft
               OpDecorate %color Location 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
      %float = OpTypeFloat 32
    %v4float = OpTypeVector %float 4
        %ptr = OpTypePointer Output %v4float
      %color = OpVariable %ptr Output
      %f0 = OpConstant %float 0
      %f1 = OpConstant %float 1
      %green = OpConstantComposite %v4float %f0 %f1 %f0 %f1
       %main = OpFunction %void None %fn
      %entry = OpLabel
               OpStore %color %green
               OpReturn
               OpFunctionEnd
END
BUFFER framebuffer FORMAT B8G8R8A8_UNORM
PIPELINE graphics pipeline
  ATTACH vs
  ATTACH fs
  FRAMEBUFFER_SIZE 32 32
  BIND BUFFER framebuffer AS color LOCATION 0
END
RUN pipeline DRAW_RECT POS 0 0 SIZE 32 32
EXPECT framebuffer IDX 0 0 SIZE 32 32 EQ_RGBA 0 255 0 255
"#;

pub fn run() -> ExitCode {
    println!("quadstep: a CPU rasterizer and SPIR-V interpreter running 2x2 quads in lock-step.");
    println!("Usage: quadstep amber PATH... [--json] [--summary] [--filter S] [--dump-images DIR]");
    println!("Running a built-in Amber script (a green rectangle, probed):");
    let script = match quadstep::amber::parse(DEMO, Path::new("builtin.amber")) {
        Ok(s) => s,
        Err(e) => {
            println!("FAIL builtin.amber: {e}");
            return ExitCode::FAILURE;
        }
    };
    let r = quadstep::amber::run_script(&script, &RunOptions::default());
    println!(
        "{} builtin.amber{}",
        r.status.word(),
        super::amber_cmd::detail(&r)
    );
    if r.status != Status::Pass {
        return ExitCode::FAILURE;
    }
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let golden_ok = golden_scenes(Path::new("out/golden"), threads);
    // The oracle scenes (the textured and ALU scenes of the lavapipe tool, quad swaps, fwidth
    // edges with discard), rendered to PNG and timed.
    let demo_ok = match quadstep::demo::run(Path::new("out/demo")) {
        Ok(()) => true,
        Err(e) => {
            println!("FAIL demo: {e}");
            false
        }
    };
    if golden_ok && demo_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Render every golden scene, compare it with its golden PNG and write it under `out`
/// (`cargo test --test golden_scenes` writes expected/actual/diff images on a mismatch).
/// Returns whether all matched.
fn golden_scenes(out: &Path, threads: usize) -> bool {
    let dir = scenes::scenes_dir();
    let list = match scenes::list(&dir) {
        Ok(l) => l,
        Err(e) => {
            println!("golden scenes: {e} (run from the source tree, or set QUADSTEP_SCENES_DIR)");
            return false;
        }
    };
    println!(
        "Golden scenes ({}), {} threads, compared with {}:",
        dir.display(),
        threads,
        GoldenDirs::default().golden.display()
    );
    let mut ok = true;
    for scene in &list {
        let t0 = Instant::now();
        let res = scenes::check(scene, threads, &GoldenDirs::default());
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        match res {
            Ok((img, cmp)) => {
                let path = out.join(format!("{}.png", scene.name));
                let saved = quadstep::golden::save_png(&path, &img);
                let verdict = if cmp.passed { "match" } else { "DIFFER" };
                let how = if cmp.same_size && cmp.max_diff == 0 {
                    "identical".to_string()
                } else {
                    cmp.describe()
                };
                ok &= cmp.passed && saved.is_ok();
                println!(
                    "  {:<18} {verdict:<6} {:>8.1} ms  -> {}  ({})",
                    scene.name,
                    ms,
                    path.display(),
                    how
                );
                if let Err(e) = saved {
                    println!("    {e}");
                }
            }
            Err(e) => {
                ok = false;
                println!("  {:<18} FAIL   {e}", scene.name);
            }
        }
    }
    ok
}
