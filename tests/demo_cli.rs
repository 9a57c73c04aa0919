//! The README's first command, `cargo run --release` (the `quadstep` binary without
//! arguments), on a machine with nothing but the binary: the PATH an empty folder, so no
//! glslangValidator or any other program, and no environment besides it. It renders every
//! built-in and golden scene from the SPIR-V they ship and checks the goldens; a golden that
//! differs makes it exit non-zero.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("quadstep-demo-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The demo run in `dir` with `PATH=<an empty folder>` and nothing else in its environment
/// but `extra`.
fn demo_alone(dir: &Path, extra: &[(&str, &Path)]) -> Output {
    let empty = dir.join("empty-path");
    std::fs::create_dir_all(&empty).unwrap();
    let mut c = Command::new(env!("CARGO_BIN_EXE_quadstep"));
    c.env_clear().env("PATH", &empty).current_dir(dir);
    for (k, v) in extra {
        c.env(k, v);
    }
    c.output().unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn the_demo_renders_and_checks_every_scene_without_glslang() {
    let dir = tmp("alone");
    let o = demo_alone(&dir, &[]);
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(!out.contains("FAIL") && !out.contains("glslang"), "{out}");
    let golden = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders/golden"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "amber"))
        .count();
    assert_eq!(golden, 9, "the golden scenes");
    assert_eq!(out.matches(" match ").count(), golden, "{out}");
    for scene in ["textured", "quad_swap", "fwidth_edges", "alu"] {
        assert!(dir.join(format!("out/demo/{scene}.png")).is_file(), "{out}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_golden_that_differs_makes_the_demo_fail() {
    let dir = tmp("differs");
    let goldens = dir.join("golden");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("golden");
    std::fs::create_dir_all(&goldens).unwrap();
    for e in std::fs::read_dir(&src).unwrap().flatten() {
        if e.path().extension().is_some_and(|x| x == "png") {
            std::fs::copy(e.path(), goldens.join(e.file_name())).unwrap();
        }
    }
    // One pixel of one golden changed.
    let p = goldens.join("cube_map.png");
    let mut img = image::open(&p).unwrap().to_rgba8();
    let px = img.get_pixel_mut(0, 0);
    px.0[0] ^= 0x80;
    img.save(&p).unwrap();
    let o = demo_alone(&dir, &[("QUADSTEP_GOLDEN_DIR", &goldens)]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("cube_map") && out.contains("DIFFER"), "{out}");
    assert_eq!(out.matches(" match ").count(), 8, "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}
