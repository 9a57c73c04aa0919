//! Colour attachments at `BASE_MIP_LEVEL > 0` (clear and draw into one level of an image, then
//! sample that level) and quadstep's `DIM_CUBE` image extension (parse rules; each face is the
//! layer the cube view selects). Expected values are worked out by hand in the comments. The
//! run tests use GLSL and are skipped with a message when `glslangValidator` is absent.

use std::path::Path;

mod common;

use common::tools::{self, Tool};
use quadstep::amber::{self, ast::ImageDim, FailKind, RunOptions, Status};

fn run(text: &str) -> Status {
    match amber::parse(text, Path::new("inline.amber")) {
        Ok(s) => amber::run_script(&s, &RunOptions::default()).status,
        Err(e) => Status::Fail {
            kind: FailKind::of(&e),
            message: e.to_string(),
        },
    }
}

/// Whether glslangValidator is here to compile the scripts' GLSL (else the skip message).
fn glslang() -> bool {
    tools::have("amber_mip_cube", &[Tool::Glslang])
}

#[test]
fn draw_and_clear_into_mip_levels() {
    if !glslang() {
        return;
    }
    // An 8x8 texture with 3 levels (8, 4, 2). Level 0 cleared red; level 1 cleared green, then
    // its left half (x = 0, 1 of 4) drawn blue; level 2 cleared yellow. The 3x4 framebuffer shows
    // in column c the texel (min(y, size-1), 0) of level c:
    //   column 0: red; column 1: rows 0, 1 blue, rows 2, 3 green; column 2: yellow.
    let text = r#"#!amber
SHADER vertex vs PASSTHROUGH
SHADER fragment blue GLSL
#version 450
layout(location = 0) out vec4 c;
void main() { c = vec4(0.0, 0.0, 1.0, 1.0); }
END
SHADER fragment fetch GLSL
#version 450
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(location = 0) out vec4 c;
void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    int size = textureSize(tex, p.x).x;
    c = texelFetch(tex, ivec2(min(p.y, size - 1), 0), p.x);
}
END
BUFFER tex FORMAT R8G8B8A8_UNORM MIP_LEVELS 3
BUFFER fb FORMAT R8G8B8A8_UNORM
SAMPLER s MAX_LOD 3.0
PIPELINE graphics l0
  ATTACH vs
  ATTACH blue
  BIND BUFFER tex AS color LOCATION 0 BASE_MIP_LEVEL 0
  FRAMEBUFFER_SIZE 8 8
END
PIPELINE graphics l1
  ATTACH vs
  ATTACH blue
  BIND BUFFER tex AS color LOCATION 0 BASE_MIP_LEVEL 1
  FRAMEBUFFER_SIZE 4 4
END
PIPELINE graphics l2
  ATTACH vs
  ATTACH blue
  BIND BUFFER tex AS color LOCATION 0 BASE_MIP_LEVEL 2
  FRAMEBUFFER_SIZE 2 2
END
PIPELINE graphics show
  ATTACH vs
  ATTACH fetch
  BIND BUFFER tex AS combined_image_sampler SAMPLER s DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER fb AS color LOCATION 0
  FRAMEBUFFER_SIZE 3 4
END
CLEAR_COLOR l0 255 0 0 255
CLEAR l0
CLEAR_COLOR l1 0 255 0 255
CLEAR l1
RUN l1 DRAW_RECT POS 0 0 SIZE 2 4
CLEAR_COLOR l2 255 255 0 255
CLEAR l2
RUN show DRAW_RECT POS 0 0 SIZE 3 4
EXPECT fb IDX 0 0 SIZE 1 4 EQ_RGBA 255 0 0 255
EXPECT fb IDX 1 0 SIZE 1 2 EQ_RGBA 0 0 255 255
EXPECT fb IDX 1 2 SIZE 1 2 EQ_RGBA 0 255 0 255
EXPECT fb IDX 2 0 SIZE 1 4 EQ_RGBA 255 255 0 255
"#;
    assert_eq!(run(text), Status::Pass);
    // A level past the image's levels is a script error naming the level.
    let bad = text.replace("BASE_MIP_LEVEL 2", "BASE_MIP_LEVEL 3");
    match run(&bad) {
        Status::Fail { message, .. } => assert!(message.contains("BASE_MIP_LEVEL 3"), "{message}"),
        other => panic!("expected FAIL, got {other:?}"),
    }
}

#[test]
fn dim_cube_parses_as_six_square_faces() {
    let s = amber::parse(
        "#!amber\nIMAGE c FORMAT R8G8B8A8_UNORM DIM_CUBE WIDTH 2 HEIGHT 2 FILL 7\n",
        Path::new("inline.amber"),
    )
    .expect("parses");
    let b = s.buffer("c").expect("buffer c");
    assert_eq!(b.dim, Some(ImageDim::Cube));
    assert_eq!(b.depth, Some(6));
    // 2x2 texels x 6 faces
    assert_eq!(b.element_count(), 24);
    for bad in [
        "IMAGE c FORMAT R8G8B8A8_UNORM DIM_CUBE WIDTH 2 HEIGHT 4",
        "IMAGE c FORMAT R8G8B8A8_UNORM DIM_CUBE WIDTH 2 HEIGHT 2 DEPTH 6",
        "IMAGE c FORMAT R8G8B8A8_UNORM DIM_CUBE WIDTH 2",
    ] {
        let e = amber::parse(&format!("#!amber\n{bad}\n"), Path::new("inline.amber"))
            .expect_err(bad)
            .to_string();
        assert!(
            e.contains("DIM_CUBE") && e.contains("inline.amber:2"),
            "{e}"
        );
    }
}

#[test]
fn dim_cube_faces_are_the_cube_views_layers() {
    if !glslang() {
        return;
    }
    // 1x1 faces in the order +X, -X, +Y, -Y, +Z, -Z with distinct colours; pixel i of the 6x1
    // framebuffer samples along axis i (nearest, LOD 0), so it must show face i's colour.
    let text = r#"#!amber
SHADER vertex vs PASSTHROUGH
SHADER fragment fs GLSL
#version 450
layout(set = 0, binding = 0) uniform samplerCube cube;
layout(location = 0) out vec4 c;
void main() {
    int i = int(gl_FragCoord.x);
    vec3 dirs[6] = vec3[6](vec3(1, 0, 0), vec3(-1, 0, 0), vec3(0, 1, 0), vec3(0, -1, 0),
                           vec3(0, 0, 1), vec3(0, 0, -1));
    c = textureLod(cube, dirs[i], 0.0);
}
END
IMAGE cube FORMAT R8G8B8A8_UNORM DIM_CUBE WIDTH 1 HEIGHT 1 DATA
10 0 0 255
20 0 0 255
0 30 0 255
0 40 0 255
0 0 50 255
0 0 60 255
END
BUFFER fb FORMAT R8G8B8A8_UNORM
SAMPLER s MAX_LOD 0.0
PIPELINE graphics p
  ATTACH vs
  ATTACH fs
  BIND BUFFER cube AS combined_image_sampler SAMPLER s DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER fb AS color LOCATION 0
  FRAMEBUFFER_SIZE 6 1
END
RUN p DRAW_RECT POS 0 0 SIZE 6 1
EXPECT fb IDX 0 0 SIZE 1 1 EQ_RGBA 10 0 0 255
EXPECT fb IDX 1 0 SIZE 1 1 EQ_RGBA 20 0 0 255
EXPECT fb IDX 2 0 SIZE 1 1 EQ_RGBA 0 30 0 255
EXPECT fb IDX 3 0 SIZE 1 1 EQ_RGBA 0 40 0 255
EXPECT fb IDX 4 0 SIZE 1 1 EQ_RGBA 0 0 50 255
EXPECT fb IDX 5 0 SIZE 1 1 EQ_RGBA 0 0 60 255
"#;
    assert_eq!(run(text), Status::Pass);
}
