//! The command line as a user runs it: `quadstep render` and `quadstep dis` on small inputs
//! whose expected output is known by construction (colours written by hand in the script, the
//! instructions of a hand-written module), and their error paths on bad input.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

use common::tools::{self, Tool};

fn quadstep() -> Command {
    Command::new(env!("CARGO_BIN_EXE_quadstep"))
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("quadstep-cli-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

#[test]
fn render_writes_the_framebuffer_as_png() {
    let out = tmp("two.png");
    let o = quadstep()
        .args(["render"])
        .arg(data("two_colours.amber"))
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(stdout.starts_with("PASS"), "{stdout}");
    let img = image::open(&out).unwrap().to_rgba8();
    assert_eq!(img.dimensions(), (8, 4));
    for y in 0..4 {
        for x in 0..8 {
            // 0.5 * 255 = 127.5 rounds to 128 (UNORM conversion rounds to nearest).
            let want = if x < 4 {
                [255, 0, 0, 255]
            } else {
                [0, 0, 128, 255]
            };
            assert_eq!(img.get_pixel(x, y).0, want, "pixel ({x}, {y})");
        }
    }
}

#[test]
fn render_picks_a_named_attachment_and_rejects_unknown_ones() {
    let out = tmp("second.png");
    let o = quadstep()
        .arg("render")
        .arg(data("two_colours.amber"))
        .args(["--buffer", "second", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success());
    let img = image::open(&out).unwrap().to_rgba8();
    assert!(img.pixels().all(|p| p.0 == [255, 255, 255, 255]));

    let o = quadstep()
        .arg("render")
        .arg(data("two_colours.amber"))
        .args(["--buffer", "nope", "--out"])
        .arg(tmp("nope.png"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("`nope`") && err.contains("framebuffer, second"),
        "{err}"
    );
}

#[test]
fn render_reports_a_missing_script() {
    let o = quadstep()
        .args(["render", "no/such.amber", "--out"])
        .arg(tmp("x.png"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no/such.amber"));
}

const MODULE: &str = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gid
               OpExecutionMode %main LocalSize 4 1 1
               OpDecorate %gid BuiltIn GlobalInvocationId
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
     %v3uint = OpTypeVector %uint 3
      %v3ptr = OpTypePointer Input %v3uint
        %gid = OpVariable %v3ptr Input
      %float = OpTypeFloat 32
       %half = OpConstant %float 0.5
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %g = OpLoad %v3uint %gid
          %x = OpCompositeExtract %uint %g 0
          %f = OpConvertUToF %float %x
          %h = OpFMul %float %f %half
               OpReturn
               OpFunctionEnd
"#;

#[test]
fn dis_prints_spirv_and_ir_for_text_and_binary() {
    let asm = tmp("m.spvasm");
    std::fs::write(&asm, MODULE).unwrap();
    let o = quadstep()
        .arg("dis")
        .arg(&asm)
        .arg("--no-opt")
        .output()
        .unwrap();
    let s = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(s.contains("OpEntryPoint GLCompute"), "{s}");
    assert!(s.contains("OpFMul"), "{s}");
    assert!(
        s.contains("IR of entry point \"main\" (compute shader)"),
        "{s}"
    );
    assert!(s.contains("workgroup size [4, 1, 1]"), "{s}");
    // The constant 0.5 shows with its value.
    assert!(s.contains("= const 0x3f000000 (0.5)"), "{s}");
    assert!(s.contains("FMul.F32"), "{s}");

    // The same module as a binary, IR only.
    let words = quadstep::front::spvasm::assemble(MODULE, "m").unwrap();
    let bin = tmp("m.spv");
    std::fs::write(
        &bin,
        words
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let o = quadstep()
        .arg("dis")
        .arg(&bin)
        .arg("--ir-only")
        .output()
        .unwrap();
    let s = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success());
    assert!(!s.contains("OpEntryPoint"), "{s}");
    assert!(s.contains("(compute shader), after the optimiser"), "{s}");
}

#[test]
fn dis_rejects_bad_input_with_the_file_name() {
    let bad = tmp("bad.spv");
    // The magic number, then a truncated header.
    std::fs::write(&bad, [0x03, 0x02, 0x23, 0x07, 0, 0]).unwrap();
    let o = quadstep().arg("dis").arg(&bad).output().unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("bad.spv") && err.contains("whole number"),
        "{err}"
    );

    let o = quadstep()
        .arg("dis")
        .arg(data("two_colours.amber"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("two_colours.amber"));

    let asm = tmp("m2.spvasm");
    std::fs::write(&asm, MODULE).unwrap();
    let o = quadstep()
        .arg("dis")
        .arg(&asm)
        .args(["--entry", "other"])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("it has: main"));
}

#[test]
fn dis_compiles_glsl_through_the_runners_glslang_call() {
    if !tools::have("cli", &[Tool::Glslang]) {
        return;
    }
    let src = tmp("q.frag");
    std::fs::write(
        &src,
        "#version 450\n#extension GL_KHR_shader_subgroup_quad : require\n\
         layout(location = 0) out vec4 c;\n\
         void main() { c = vec4(subgroupQuadSwapVertical(gl_FragCoord.x)); }\n",
    )
    .unwrap();
    let o = quadstep().arg("dis").arg(&src).output().unwrap();
    let s = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Direction 1 = vertical (QuadReadAcrossY); SPIR-V 1.3 lets the subgroup op compile.
    assert!(s.contains("OpGroupNonUniformQuadSwap"), "{s}");
    assert!(s.contains("(fragment shader), after the optimiser"), "{s}");
    let o = quadstep()
        .arg("dis")
        .arg(&src)
        .args(["-S", "geom"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&o.stderr).contains("--stage vert|frag|comp"));
}

/// `quadstep debug` on the golden QuadReadAcross scene, with the exit status and the stdout.
fn debug(args: &[&str]) -> (Option<i32>, String, String) {
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders/golden/quad_read_across.amber");
    let o = quadstep()
        .arg("debug")
        .arg(&script)
        .args(args)
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (o.status.code(), text(&o.stdout), text(&o.stderr))
}

#[test]
fn debug_prints_the_quad_swap_its_json_lines_and_the_watched_steps() {
    if !tools::have("cli", &[Tool::Glslang]) {
        return;
    }
    // Pixel (20, 64) is lane 0 of its quad in the QuadReadAcrossY band: it gets lane 2's
    // colour, (0, 0, 62/255, 1) (the script's palette and brightness, by hand).
    let (code, out, err) = debug(&["--pixel", "20,64"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("pixel (20, 64)"), "{out}");
    assert!(
        out.contains("quad lanes: 0 (20, 64) <- traced | 1 (21, 64)"),
        "{out}"
    );
    assert!(out.contains("0*: (0, 0, 0.24313726, 1)"), "{out}");
    // the same as JSON lines: a header, the steps, a result
    let (code, out, err) = debug(&["--pixel", "20,64", "--json"]);
    assert_eq!(code, Some(0), "{err}");
    let objects: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    let kinds: Vec<&str> = objects
        .iter()
        .map(|o| o["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.first(), Some(&"trace"));
    assert_eq!(kinds.last(), Some(&"result"));
    let steps = kinds.iter().filter(|k| **k == "step").count();
    assert_eq!(
        steps as u64,
        objects.last().unwrap()["steps"].as_u64().unwrap()
    );
    // --watch y: the quad swap that makes y and the store into y, nothing else
    let (code, out, _) = debug(&["--pixel", "20,64", "--json", "--watch", "y"]);
    assert_eq!(code, Some(0));
    let texts: Vec<String> = out
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|o| o["kind"] == "step")
        .map(|o| o["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(texts.len(), 2, "{texts:?}");
    assert!(texts[0].contains("OpGroupNonUniformQuadSwap"), "{texts:?}");
    assert!(texts[1].starts_with("OpStore %y "), "{texts:?}");
}

#[test]
fn debug_says_what_is_wrong_with_its_arguments() {
    // nothing to trace, a malformed pixel: usage errors
    let (code, _, err) = debug(&[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--pixel X,Y"), "{err}");
    let (code, _, err) = debug(&["--pixel", "3"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("expected 2 comma-separated integers"), "{err}");
    if !tools::have("cli", &[Tool::Glslang]) {
        return;
    }
    // a pixel outside the 128x128 framebuffer: no draw reaches it
    let (code, _, err) = debug(&["--pixel", "500,2"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("no draw or dispatch reached"), "{err}");
}
