//! Golden scenes: every `shaders/golden/*.amber` must PASS (their EXPECT lines were derived by
//! hand) and its framebuffer must equal `golden/<name>.png` exactly
//! (`QUADSTEP_UPDATE_GOLDEN=1` rewrites the goldens). A second test compares each golden with
//! the picture lavapipe rendered from the scene's twin (`golden/lavapipe/<name>/`), within the
//! per-scene tolerances argued in `golden/README.md`. The lavapipe pictures are checked in, so
//! that test needs no Vulkan, and the scenes' SPIR-V is too (`shaders/golden/spirv/`), so
//! neither needs glslang.

use std::path::PathBuf;

use quadstep::golden::scenes::{self, GoldenScene};
use quadstep::golden::Tolerance;
use quadstep::golden::{check_golden, compare, load_png, RgbaImage};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every golden scene, sorted by name (the same list the demo renders).
fn all_scenes() -> Vec<GoldenScene> {
    scenes::list(&scenes::scenes_dir()).expect("shaders/golden")
}

#[test]
fn golden_scenes_match_their_pngs() {
    let all = all_scenes();
    assert_eq!(all.len(), 9, "the nine golden scenes in shaders/golden");
    let mut failures = Vec::new();
    for scene in &all {
        let r = scenes::render(scene, 2);
        assert!(
            r.result.status == quadstep::amber::Status::Pass,
            "{}: {} {}",
            scene.script.display(),
            r.result.status.word(),
            r.result.status.detail()
        );
        let img: RgbaImage = r
            .image
            .unwrap_or_else(|| panic!("{}: no 'framebuffer' attachment", scene.script.display()));
        // The tolerance is the script's `# golden-tolerance:` line (exact when absent).
        let cmp = check_golden(&scene.name, &img, scene.tolerance).expect("golden I/O");
        if !cmp.passed {
            failures.push(format!(
                "{}: {} (see target/golden-out/)",
                scene.name,
                cmp.describe()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// How closely a golden must agree with lavapipe's picture of the scene's twin.
struct LvpTolerance {
    tol: Tolerance,
    /// Rectangles `(x0, y0, x1, y1)` (exclusive ends) left out of the comparison.
    masked: &'static [(u32, u32, u32, u32)],
}

/// Per-scene tolerances; the reasons are in golden/README.md.
fn lavapipe_tolerance(name: &str) -> LvpTolerance {
    let t = |max_channel_diff, max_differing_pixels| Tolerance {
        max_channel_diff,
        max_differing_pixels,
    };
    match name {
        "quad_read_across" | "discard_helpers" | "shadow_cmp" | "geometry_sprites"
        | "msaa_edges" | "tess_patch" => LvpTolerance {
            tol: Tolerance::EXACT,
            masked: &[],
        },
        "fwidth_edges" => LvpTolerance {
            tol: t(1, 0),
            masked: &[],
        },
        "trilinear_mips" => LvpTolerance {
            tol: t(16, 0),
            masked: &[],
        },
        "cube_map" => LvpTolerance {
            tol: t(1, 0),
            masked: &[],
        },
        other => panic!("no lavapipe tolerance stated for golden scene '{other}'"),
    }
}

fn masked_copy(img: &RgbaImage, masked: &[(u32, u32, u32, u32)]) -> RgbaImage {
    let mut out = img.clone();
    for &(x0, y0, x1, y1) in masked {
        for y in y0..y1.min(img.height()) {
            for x in x0..x1.min(img.width()) {
                out.put_pixel(x, y, image::Rgba([0, 0, 0, 0]));
            }
        }
    }
    out
}

#[test]
fn goldens_agree_with_lavapipe() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for scene in all_scenes() {
        let name = scene.name;
        let golden = root().join("golden").join(format!("{name}.png"));
        let lvp = root()
            .join("golden/lavapipe")
            .join(&name)
            .join("lavapipe.png");
        assert!(
            lvp.exists(),
            "{}: lavapipe twin picture missing",
            lvp.display()
        );
        let g = load_png(&golden).expect("golden png");
        let l = load_png(&lvp).expect("lavapipe png");
        let lt = lavapipe_tolerance(&name);
        let cmp = compare(
            &masked_copy(&l, lt.masked),
            &masked_copy(&g, lt.masked),
            lt.tol,
        );
        let exact = compare(
            &masked_copy(&l, lt.masked),
            &masked_copy(&g, lt.masked),
            Tolerance::EXACT,
        );
        eprintln!(
            "{name}: vs lavapipe: exactly: {}; within {:?}: {}",
            exact.describe(),
            lt.tol,
            cmp.describe()
        );
        if !cmp.passed {
            failures.push(format!("{name}: {}", cmp.describe()));
        }
        checked += 1;
    }
    assert!(checked > 0);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The lavapipe twins were rendered from the scripts' own GLSL: each `<shader>.vert/.geom/.frag`
/// (`.tesc`/`.tese`) in
/// `golden/lavapipe/<scene>/` is the script's shader text (plus, for shadow_cmp, the
/// `#define LAVAPIPE_TWIN 1` line gen.py inserts), so a twin cannot silently go stale.
#[test]
fn lavapipe_twins_use_the_scripts_shaders() {
    let lines = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| l.trim() != "#define LAVAPIPE_TWIN 1")
            .map(|l| l.trim_end().to_string())
            .filter(|l| !l.is_empty())
            .collect()
    };
    for GoldenScene {
        name, script: path, ..
    } in all_scenes()
    {
        let text = std::fs::read_to_string(&path).expect("script");
        let script = quadstep::amber::parse(&text, &path).expect("script parses");
        let dir = root().join("golden/lavapipe").join(&name);
        let mut seen = 0;
        for e in std::fs::read_dir(&dir).expect("twin folder") {
            let p = e.expect("entry").path();
            if !p.extension().is_some_and(|x| {
                ["vert", "geom", "frag", "tesc", "tese"]
                    .iter()
                    .any(|e| x == *e)
            }) {
                continue;
            }
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            let sh = script
                .shader(&stem)
                .unwrap_or_else(|| panic!("{}: no shader '{stem}' in {name}.amber", p.display()));
            let quadstep::amber::ast::ShaderSource::Text(src) = &sh.source else {
                panic!("{name}: shader '{stem}' is not text");
            };
            let twin = std::fs::read_to_string(&p).expect("twin shader");
            assert_eq!(
                lines(&twin),
                lines(src),
                "{}: differs from shader '{stem}' of {name}.amber (run golden/lavapipe/regen.sh)",
                p.display()
            );
            seen += 1;
        }
        // a vertex and a fragment shader, and the geometry and tessellation shaders when the
        // script has them
        let shaders = 2 + [
            "geometry",
            "tessellation_control",
            "tessellation_evaluation",
        ]
        .iter()
        .filter(|s| text.contains(&format!("\nSHADER {s} ")))
        .count();
        assert_eq!(
            seen, shaders,
            "{name}: expected the script's vertex, fragment (geometry, tessellation) shaders in \
             the twin"
        );
    }
}
