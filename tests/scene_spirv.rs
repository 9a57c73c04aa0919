//! The SPIR-V the built-in and golden scenes ship, so that `cargo run --release` needs no
//! glslang: `shaders/demo/*.spv` (included in the binary by `demo.rs`) and
//! `shaders/golden/spirv/<key>.spv` (the golden scenes' GLSL, found by the runner through
//! `RunOptions::prebuilt_spirv`, listed with their scene in `MANIFEST.tsv`).
//!
//! Everywhere: every GLSL shader a golden scene attaches has its file, the manifest lists
//! exactly the files there are. Where `glslangValidator` exists: each file is what a fresh
//! compile gives, byte for byte. `tools/compile-spirv` (this test with
//! `QUADSTEP_UPDATE_SPIRV=1`) rewrites them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

mod common;

use common::tools::{self, Tool};
use quadstep::amber::ast::{ShaderFormat, ShaderType};
use quadstep::amber::run_shaders::{prebuilt_name, shader_words};
use quadstep::golden::scenes;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn update() -> bool {
    std::env::var("QUADSTEP_UPDATE_SPIRV").is_ok_and(|v| v == "1")
}

/// The built-in scenes' shaders and glslang's `--target-env` for each.
const DEMO: &[(&str, &str)] = &[
    ("fullscreen.vert", "vulkan1.0"),
    ("alu.frag", "vulkan1.0"),
    ("fwidth_edges.frag", "vulkan1.0"),
    ("quad_swap.frag", "vulkan1.1"),
    ("textured.frag", "vulkan1.0"),
];

fn bytes_of(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// A manifest line per file: `<file>\t<scene>\t<shader>\t<stage>` for every GLSL shader the
/// golden scenes attach, with its freshly compiled bytes where glslang runs.
struct Needed {
    line: String,
    fresh: Option<Vec<u8>>,
}

fn golden_shaders(glslang: bool, cache: &Path) -> BTreeMap<String, Needed> {
    let dir = scenes::scenes_dir();
    let mut out = BTreeMap::new();
    for scene in scenes::list(&dir).expect("shaders/golden") {
        let script = quadstep::amber::parse_file(&scene.script).expect("a golden scene parses");
        for p in script.pipelines() {
            for att in &p.shaders {
                let shader = script.shader(&att.shader).expect("an attached shader");
                if !matches!(shader.format, ShaderFormat::Glsl | ShaderFormat::Hlsl) {
                    continue;
                }
                let file = prebuilt_name(shader, att.stage, &att.entry_point).unwrap();
                if out.contains_key(&file) {
                    continue;
                }
                let fresh = glslang.then(|| {
                    let w = shader_words(shader, att.stage, &att.entry_point, None, cache)
                        .unwrap_or_else(|e| panic!("{}: {e}", scene.script.display()));
                    bytes_of(&w)
                });
                let stage = match att.stage {
                    ShaderType::Vertex => "vertex",
                    ShaderType::Fragment => "fragment",
                    ShaderType::Geometry => "geometry",
                    other => other.keyword(),
                };
                let line = format!("{file}\t{}\t{}\t{stage}", scene.name, shader.name);
                out.insert(file, Needed { line, fresh });
            }
        }
    }
    out
}

const HEADER: &str =
    "# The golden scenes' GLSL compiled by glslangValidator (tools/compile-spirv).\n\
                      # file\tscene\tshader\tstage\n";

#[test]
fn shipped_spirv_is_complete_and_what_glslang_compiles() {
    let glslang = tools::have("scene_spirv (fresh compile)", &[Tool::Glslang]);
    assert!(
        glslang || !update(),
        "QUADSTEP_UPDATE_SPIRV=1 needs glslangValidator"
    );
    let cache = std::env::temp_dir().join(format!("quadstep-scene-spirv-{}", std::process::id()));
    let spirv = scenes::spirv_dir(&scenes::scenes_dir());
    let needed = golden_shaders(glslang, &cache);
    let manifest_path = spirv.join("MANIFEST.tsv");
    let manifest: String = HEADER.to_string()
        + &needed
            .values()
            .map(|n| n.line.clone() + "\n")
            .collect::<String>();
    let mut problems = Vec::new();
    if update() {
        std::fs::create_dir_all(&spirv).unwrap();
        for e in std::fs::read_dir(&spirv).unwrap().flatten() {
            if e.path().extension().is_some_and(|x| x == "spv") {
                std::fs::remove_file(e.path()).unwrap();
            }
        }
        for (file, n) in &needed {
            std::fs::write(spirv.join(file), n.fresh.as_ref().unwrap()).unwrap();
        }
        std::fs::write(&manifest_path, &manifest).unwrap();
    }
    let on_disk: Vec<String> = std::fs::read_dir(&spirv)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".spv"))
                .collect()
        })
        .unwrap_or_default();
    for f in &on_disk {
        if !needed.contains_key(f) {
            problems.push(format!("{f}: no golden scene's shader compiles to it"));
        }
    }
    for (file, n) in &needed {
        match std::fs::read(spirv.join(file)) {
            Err(e) => problems.push(format!("{file} ({}): {e}", n.line)),
            Ok(b) => {
                if n.fresh.as_ref().is_some_and(|f| *f != b) {
                    problems.push(format!("{file} ({}): differs from glslang's", n.line));
                }
            }
        }
    }
    if std::fs::read_to_string(&manifest_path).ok().as_deref() != Some(manifest.as_str()) {
        problems.push(format!("{}: out of date", manifest_path.display()));
    }
    // The built-in scenes.
    let demo = root().join("shaders/demo");
    for (name, env) in DEMO {
        let spv = demo.join(format!("{name}.spv"));
        if !spv.is_file() {
            problems.push(format!("{}: missing", spv.display()));
        }
        if !glslang {
            continue;
        }
        let src = std::fs::read_to_string(demo.join(name)).unwrap();
        let ext = name.rsplit('.').next().unwrap();
        let fresh = Tool::Glslang
            .compile(&["-V", "--target-env", env], ext, &src)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        if update() {
            std::fs::write(&spv, &fresh).unwrap();
        } else if std::fs::read(&spv).ok() != Some(fresh) {
            problems.push(format!("{}: differs from glslang's", spv.display()));
        }
    }
    let _ = std::fs::remove_dir_all(&cache);
    assert!(
        problems.is_empty(),
        "{}\n(tools/compile-spirv rewrites them)",
        problems.join("\n")
    );
}
