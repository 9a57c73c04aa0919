//! The golden scenes from DXIL: `shaders/golden/dxil/` holds each scene with its shaders
//! compiled by `tools/spirv2dxil` (glslang → SPIR-V → Mesa's spirv-to-dxil, SM 6.8). Each twin
//! runs under its own default, the D3D texture rules, and must end with the very bytes the
//! SPIR-V scene ends with (the golden PNG's source) and pass the scene's `EXPECT` probes.

use std::path::Path;

use quadstep::amber::{run_file, RunOptions, Status};

#[test]
fn golden_scenes_from_dxil_match_their_spirv_pictures() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders/golden");
    let opts = RunOptions {
        keep_images: true,
        ..RunOptions::default()
    };
    let mut failures = Vec::new();
    for name in [
        "quad_read_across",
        "shadow_cmp",
        "trilinear_mips",
        "cube_map",
        "fwidth_edges",
        "discard_helpers",
    ] {
        let spirv = run_file(&root.join(format!("{name}.amber")), &opts);
        let dxil = run_file(&root.join(format!("dxil/{name}.amber")), &opts);
        let report = quadstep::diff::compare_results(&spirv, &dxil, 3);
        println!(
            "{name}: SPIR-V {}, DXIL {}: {} of {} values differ {:?}",
            spirv.status.word(),
            dxil.status.word(),
            report.differing,
            report.compared,
            report.first
        );
        if dxil.status != Status::Pass || report.differing != 0 || !report.notes.is_empty() {
            failures.push(format!("{name}: {:?} {:?}", dxil.status, report.notes));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
