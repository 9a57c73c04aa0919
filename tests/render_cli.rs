//! `quadstep render` keeps what an image holds: the file written is decoded with the `image`
//! crate (or, for `.f32`, read as NumPy's `.npy` layout by hand) and compared with values
//! worked out here from what the shader computes or what the script stores. Also: `--frag`
//! (a fragment shader alone over a full-screen triangle, `uv` and the `time` push constant),
//! `--level`/`--layer`, an unknown extension (exit 2) and a shader that does not compile (no
//! file written).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;

use common::tools::{self, Tool};

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("quadstep-render-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

fn render(args: &[&str], out: &Path) -> Output {
    let _ = std::fs::remove_file(out);
    Command::new(env!("CARGO_BIN_EXE_quadstep"))
        .arg("render")
        .args(args)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// `uv` and `time` as colour: red = uv.x * 4 - 1, green = uv.y * 2, blue = time.
const UV_SHADER: &str = "#version 450
layout(location = 0) in vec2 uv;
layout(push_constant) uniform P { float time; };
layout(location = 0) out vec4 color;
void main() { color = vec4(uv.x * 4.0 - 1.0, uv.y * 2.0, time, 1.0); }
";

/// What `UV_SHADER` computes at pixel (x, y) of a 4x2 framebuffer: uv is the pixel centre
/// over the size, ((x + 0.5) / 4, (y + 0.5) / 2), every value exact in f32.
fn uv_expected(x: u32, y: u32, time: f32) -> [f32; 4] {
    let u = (x as f32 + 0.5) / 4.0;
    let v = (y as f32 + 0.5) / 2.0;
    [u * 4.0 - 1.0, v * 2.0, time, 1.0]
}

fn shader_file(test: &str) -> PathBuf {
    let p = tmp(&format!("{test}.frag"));
    std::fs::write(&p, UV_SHADER).unwrap();
    p
}

fn quantize(v: f32, max: f32) -> f32 {
    (v.clamp(0.0, 1.0) * max).round()
}

#[test]
fn frag_writes_exr_with_the_shaders_float_values() {
    if !tools::have("render_cli", &[Tool::Glslang]) {
        return;
    }
    let frag = shader_file("exr");
    let out = tmp("uv.exr");
    let f = frag.to_str().unwrap();
    let o = render(&["--frag", f, "--size", "4x2", "--time", "2.5"], &out);
    assert!(o.status.success(), "{}", text(&o));
    let img = image::open(&out).unwrap();
    assert_eq!(img.color(), image::ColorType::Rgba32F);
    let img = img.to_rgba32f();
    assert_eq!(img.dimensions(), (4, 2));
    for (x, y, p) in img.enumerate_pixels() {
        assert_eq!(p.0, uv_expected(x, y, 2.5), "pixel ({x}, {y})");
    }
}

#[test]
fn frag_writes_f32_in_numpys_layout() {
    if !tools::have("render_cli", &[Tool::Glslang]) {
        return;
    }
    let frag = shader_file("f32");
    let out = tmp("uv.f32");
    let o = render(
        &[
            "--frag",
            frag.to_str().unwrap(),
            "--size",
            "4x2",
            "--time=-3",
        ],
        &out,
    );
    assert!(o.status.success(), "{}", text(&o));
    let b = std::fs::read(&out).unwrap();
    assert_eq!(
        &b[..8],
        b"\x93NUMPY\x01\x00",
        "the .npy magic and version 1.0"
    );
    let len = u16::from_le_bytes([b[8], b[9]]) as usize;
    let header = std::str::from_utf8(&b[10..10 + len]).unwrap();
    assert!(header.contains("'descr': '<f4'"), "{header}");
    assert!(header.contains("'fortran_order': False"), "{header}");
    assert!(
        header.contains("'shape': (2, 4, 4)"),
        "rows, columns, channels: {header}"
    );
    let data: Vec<f32> = b[10 + len..]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let want: Vec<f32> = (0..2)
        .flat_map(|y| (0..4).flat_map(move |x| uv_expected(x, y, -3.0)))
        .collect();
    assert_eq!(data, want);
}

#[test]
fn png_depth_follows_the_attachments_precision() {
    if !tools::have("render_cli", &[Tool::Glslang]) {
        return;
    }
    let frag = shader_file("png");
    let f = frag.to_str().unwrap();
    let out = tmp("uv.png");
    let cases: [(&str, image::ColorType, f32); 3] = [
        ("R8G8B8A8_UNORM", image::ColorType::Rgba8, 255.0),
        ("R16G16B16A16_UNORM", image::ColorType::Rgba16, 65535.0),
        ("R32G32B32A32_SFLOAT", image::ColorType::Rgba16, 65535.0),
    ];
    for (format, colour, max) in cases {
        let o = render(
            &[
                "--frag",
                f,
                "--size",
                "4x2",
                "--time",
                "0.2",
                "--color-format",
                format,
            ],
            &out,
        );
        assert!(o.status.success(), "{format}: {}", text(&o));
        let img = image::open(&out).unwrap();
        assert_eq!(img.color(), colour, "{format}");
        let img = img.to_rgba16();
        for (x, y, p) in img.enumerate_pixels() {
            let want = uv_expected(x, y, 0.2).map(|v| quantize(v, max));
            let got = p.0.map(|c| {
                if max == 255.0 {
                    (c / 257) as f32
                } else {
                    c as f32
                }
            });
            assert_eq!(got, want, "{format}, pixel ({x}, {y})");
        }
    }
}

#[test]
fn unknown_extensions_and_shaders_that_do_not_compile_write_nothing() {
    let frag = shader_file("ext");
    let f = frag.to_str().unwrap();
    let out = tmp("uv.jpg");
    let o = render(&["--frag", f], &out);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("uv.jpg"), "{}", text(&o));
    assert!(!out.exists());
    // --format says what the extension does not
    let o = render(&["--frag", f, "--size", "2x2", "--format", "png"], &out);
    if tools::have("render_cli", &[Tool::Glslang]) {
        assert!(o.status.success(), "{}", text(&o));
        let img = image::ImageReader::open(&out)
            .unwrap()
            .with_guessed_format();
        assert_eq!(
            img.unwrap().decode().unwrap().color(),
            image::ColorType::Rgba8
        );
    }

    let bad = tmp("bad.frag");
    std::fs::write(&bad, "#version 450\nvoid main() { nope; }\n").unwrap();
    let out = tmp("bad.png");
    let o = render(&["--frag", bad.to_str().unwrap()], &out);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        !out.exists(),
        "no picture of a shader that does not compile"
    );
    if tools::have("render_cli", &[Tool::Glslang]) {
        assert!(text(&o).contains("bad.frag:2"), "{}", text(&o));
    }
}

/// A 4x4 RGBA8 texture of three levels whose levels 0 and 1 are cleared as attachments (red,
/// blue) and level 2 is left to be generated; a cube of 2x2 faces whose texel i of face f is
/// (40 f, 60 i, 7, 255).
fn levels_script() -> PathBuf {
    let faces: Vec<String> = (0..6)
        .flat_map(|f| (0..4).map(move |i| format!("{} {} 7 255", 40 * f, 60 * i)))
        .collect();
    let script = format!(
        r#"#!amber
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
         %f1 = OpConstant %float 1
      %white = OpConstantComposite %v4float %f1 %f1 %f1 %f1
       %main = OpFunction %void None %fn
      %entry = OpLabel
               OpStore %color %white
               OpReturn
               OpFunctionEnd
END
BUFFER tex FORMAT R8G8B8A8_UNORM MIP_LEVELS 3
IMAGE cube FORMAT R8G8B8A8_UNORM DIM_CUBE WIDTH 2 HEIGHT 2 DATA
{}
END
PIPELINE graphics level0
  ATTACH vs
  ATTACH fs
  FRAMEBUFFER_SIZE 4 4
  BIND BUFFER tex AS color LOCATION 0 BASE_MIP_LEVEL 0
END
PIPELINE graphics level1
  ATTACH vs
  ATTACH fs
  FRAMEBUFFER_SIZE 2 2
  BIND BUFFER tex AS color LOCATION 0 BASE_MIP_LEVEL 1
END
CLEAR_COLOR level0 255 0 0 255
CLEAR level0
CLEAR_COLOR level1 0 0 255 255
CLEAR level1
"#,
        faces.join("\n")
    );
    let p = tmp("levels.amber");
    std::fs::write(&p, script).unwrap();
    p
}

#[test]
fn level_and_layer_pick_any_mip_and_face() {
    let script = levels_script();
    let s = script.to_str().unwrap();
    let out = tmp("level.png");
    let pixels = |args: &[&str]| {
        let o = render(&[&[s][..], args].concat(), &out);
        assert!(o.status.success(), "{args:?}: {}", text(&o));
        let img = image::open(&out).unwrap();
        assert_eq!(img.color(), image::ColorType::Rgba8);
        let img = img.to_rgba8();
        (
            img.dimensions(),
            img.pixels().map(|p| p.0).collect::<Vec<_>>(),
        )
    };
    let red = [255, 0, 0, 255];
    let blue = [0, 0, 255, 255];
    assert_eq!(pixels(&["--buffer", "tex"]), ((4, 4), vec![red; 16]));
    assert_eq!(
        pixels(&["--buffer", "tex", "--level", "1"]),
        ((2, 2), vec![blue; 4])
    );
    // level 2 was not rendered: generated from level 0, as a shader sampling it sees it
    assert_eq!(
        pixels(&["--buffer", "tex", "--level", "2"]),
        ((1, 1), vec![red])
    );
    for face in [0u8, 3, 5] {
        let want: Vec<[u8; 4]> = (0..4).map(|i| [40 * face, 60 * i, 7, 255]).collect();
        let f = face.to_string();
        assert_eq!(pixels(&["--buffer", "cube", "--layer", &f]), ((2, 2), want));
    }
    for bad in [["--level", "3"], ["--layer", "6"]] {
        let o = render(&[&[s, "--buffer", "cube"][..], &bad[..]].concat(), &out);
        assert_eq!(o.status.code(), Some(2), "{bad:?}: {}", text(&o));
        assert!(!out.exists());
    }
}
