//! Uniform and storage texel buffers through Amber scripts: fetches from buffer views of several
//! formats, out-of-range fetches, size queries, storage texel buffer loads and stores seen by
//! `EXPECT`, and the errors for bad bindings. Every expected value is worked out by hand from the
//! Vulkan format definitions in the comments next to it. The run tests use GLSL and are skipped
//! with a message when `glslangValidator` is absent.

use std::path::Path;

mod common;

use common::tools::{self, Tool};
use quadstep::amber::{self, FailKind, RunOptions, Status};

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
    tools::have("texel_buffer", &[Tool::Glslang])
}

/// The message of a failed or skipped run (panics on a pass).
fn message(s: Status) -> String {
    match s {
        Status::Pass => panic!("the script passed; an error was expected"),
        Status::Fail { message, .. } => message,
        Status::Unsupported { reason } => reason,
    }
}

#[test]
fn uniform_texel_buffer_fetches_of_several_formats() {
    if !glslang() {
        return;
    }
    // Texel values, by format definition (missing G, B -> 0, missing A -> 1):
    //   r8 (R8_UNORM 0 51 255): texel 1 = 51/255 = 0.2, texel 2 = 1.0; 3 texels.
    //   r32f (R32_SFLOAT 1.5 -2.25): texel 1 = -2.25; 2 texels.
    //   rgba8ui (R8G8B8A8_UINT): texels (1, 2, 3, 4), (250, 251, 252, 253); 2 texels.
    //   a2 (A2B10G10R10_UNORM_PACK32 0xBFF00200): A = bits 31..30 = 2 -> 2/3, B = bits 29..20
    //     = 1023 -> 1.0, G = bits 19..10 = 0, R = bits 9..0 = 512 -> 512/1023 = 0.5004888.
    //   srgb (R8G8B8A8_SRGB 188 0 255 128): R = EOTF(188/255) = ((0.737255 + 0.055) / 1.055)^2.4
    //     = 0.5028865, G = 0, B = 1, A (linear) = 128/255 = 0.5019608.
    // Out of range (index 3 of 3, -1, 2 of 2): zero, alpha 1 when the format has no alpha
    // (R8, R32), all zero for four-component formats.
    let text = r#"#!amber
SHADER compute cs GLSL
#version 450
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) uniform samplerBuffer r8;
layout(set = 0, binding = 1) uniform samplerBuffer r32f;
layout(set = 0, binding = 2) uniform usamplerBuffer rgba8ui;
layout(set = 0, binding = 3) uniform samplerBuffer a2;
layout(set = 0, binding = 4) uniform samplerBuffer srgb;
layout(set = 0, binding = 5, std430) buffer F { vec4 f[8]; };
layout(set = 0, binding = 6, std430) buffer U { uvec4 u[4]; };
layout(set = 0, binding = 7, std430) buffer S { int s[8]; };
layout(set = 0, binding = 8, std430) buffer L { vec4 lanes[4]; };
void main() {
  int i = int(gl_LocalInvocationID.x);
  // per-lane coordinates -1, 0, 1, 2 over a 2-texel view
  lanes[i] = texelFetch(r32f, i - 1);
  if (i != 0) return;
  f[0] = texelFetch(r8, 1);
  f[1] = texelFetch(r8, 2);
  f[2] = texelFetch(r8, 3);
  f[3] = texelFetch(r32f, 1);
  f[4] = texelFetch(a2, 0);
  f[5] = texelFetch(srgb, 0);
  f[6] = texelFetch(r32f, -1);
  u[0] = texelFetch(rgba8ui, 0);
  u[1] = texelFetch(rgba8ui, 1);
  u[2] = texelFetch(rgba8ui, 2);
  s[0] = textureSize(r8);
  s[1] = textureSize(r32f);
  s[2] = textureSize(rgba8ui);
  s[3] = textureSize(a2);
  s[4] = textureSize(srgb);
}
END
BUFFER r8 DATA_TYPE R8_UNORM DATA 0 51 255 END
BUFFER r32f DATA_TYPE R32_SFLOAT DATA 1.5 -2.25 END
BUFFER rgba8ui DATA_TYPE R8G8B8A8_UINT DATA 1 2 3 4 250 251 252 253 END
BUFFER a2 DATA_TYPE A2B10G10R10_UNORM_PACK32 DATA 0xBFF00200 END
BUFFER srgb DATA_TYPE R8G8B8A8_SRGB DATA 188 0 255 128 END
BUFFER f DATA_TYPE vec4<float> SIZE 8 FILL 7.0
BUFFER u DATA_TYPE vec4<uint32> SIZE 4 FILL 7
BUFFER s DATA_TYPE int32 SIZE 8 FILL 7
BUFFER lanes DATA_TYPE vec4<float> SIZE 4 FILL 7.0
PIPELINE compute p
  ATTACH cs
  BIND BUFFER r8 AS uniform_texel_buffer DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER r32f AS uniform_texel_buffer DESCRIPTOR_SET 0 BINDING 1
  BIND BUFFER rgba8ui AS uniform_texel_buffer DESCRIPTOR_SET 0 BINDING 2
  BIND BUFFER a2 AS uniform_texel_buffer DESCRIPTOR_SET 0 BINDING 3
  BIND BUFFER srgb AS uniform_texel_buffer DESCRIPTOR_SET 0 BINDING 4
  BIND BUFFER f AS storage DESCRIPTOR_SET 0 BINDING 5
  BIND BUFFER u AS storage DESCRIPTOR_SET 0 BINDING 6
  BIND BUFFER s AS storage DESCRIPTOR_SET 0 BINDING 7
  BIND BUFFER lanes AS storage DESCRIPTOR_SET 0 BINDING 8
END
RUN p 1 1 1
EXPECT f IDX 0 TOLERANCE 0.000001 EQ 0.2 0 0 1  1 0 0 1  0 0 0 1  -2.25 0 0 1
EXPECT f IDX 64 TOLERANCE 0.000001 EQ 0.5004888 0 1 0.6666667  0.5028865 0 1 0.5019608
EXPECT f IDX 96 EQ 0 0 0 1  7 7 7 7
EXPECT u IDX 0 EQ 1 2 3 4  250 251 252 253  0 0 0 0  7 7 7 7
EXPECT s IDX 0 EQ 3 2 2 1 1 7 7 7
EXPECT lanes IDX 0 EQ 0 0 0 1  1.5 0 0 1  -2.25 0 0 1  0 0 0 1
"#;
    assert_eq!(run(text), Status::Pass);
}

/// BGR-ordered SNORM views read B from byte 0 and R from byte 2, as the formats are defined
/// ("an 8-bit B component in byte 0, ... R component in byte 2"). Expected: what lavapipe
/// (Mesa 22.3.6) returns for the same bytes through `texelFetch` of a uniform texel buffer
/// (a throwaway Vulkan compute program, run once): (-113, -120, -127, -106) / 127 and
/// (-1, 0, 1, 64/127) for B8G8R8A8_SNORM bytes 81 88 8f 96 | 7f 00 81 40, the same without
/// alpha for B8G8R8_SNORM. (The CTS scripts texture/texel_buffer/uniform/snorm/b8g8r8-snorm
/// and b8g8r8a8-snorm expect R from byte 0: their expectations are their R8G8B8(A8) twins'.)
#[test]
fn bgr_snorm_views_read_b_from_byte_0() {
    if !glslang() {
        return;
    }
    let text = r#"#!amber
SHADER compute cs GLSL
#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform samplerBuffer bgra;
layout(set = 0, binding = 1) uniform samplerBuffer bgr;
layout(set = 0, binding = 2, std430) buffer F { vec4 f[4]; };
void main() {
  f[0] = texelFetch(bgra, 0);
  f[1] = texelFetch(bgra, 1);
  f[2] = texelFetch(bgr, 0);
  f[3] = texelFetch(bgr, 1);
}
END
BUFFER bgra DATA_TYPE B8G8R8A8_SNORM DATA 0x81 0x88 0x8f 0x96 0x7f 0x00 0x81 0x40 END
BUFFER bgr DATA_TYPE B8G8R8_SNORM DATA 0x81 0x88 0x8f 0x7f 0x00 0x81 END
BUFFER f DATA_TYPE vec4<float> SIZE 4 FILL 7.0
PIPELINE compute p
  ATTACH cs
  BIND BUFFER bgra AS uniform_texel_buffer DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER bgr AS uniform_texel_buffer DESCRIPTOR_SET 0 BINDING 1
  BIND BUFFER f AS storage DESCRIPTOR_SET 0 BINDING 2
END
RUN p 1 1 1
EXPECT f IDX 0 TOLERANCE 0.0000001 EQ -0.8897638 -0.9448819 -1 -0.8346457  -1 0 1 0.503937
EXPECT f IDX 32 TOLERANCE 0.0000001 EQ -0.8897638 -0.9448819 -1 1  -1 0 1 1
"#;
    assert_eq!(run(text), Status::Pass);
}

#[test]
fn storage_texel_buffer_writes_land_in_the_buffer() {
    if !glslang() {
        return;
    }
    // Invocation i (0..3):
    //   u32 (R32_UINT 10 20 30 40): reads old = 10 (i + 1), stores old * 2 + i: 20 41 62 83;
    //     the reads are copied to r: 10 20 30 40. The store at i + 4 is out of range: dropped.
    //   img8 (R8G8B8A8_UNORM, 4 texels, zero): stores (i/4, 0.5, 1 - i/4, 0.2); UNORM encode
    //     round(v * 255): R 0, 63.75 -> 64, 127.5 -> 128, 191.25 -> 191; G 127.5 -> 128;
    //     B 255, 191, 128, 64; A 51.
    //   s[i] = imageSize(img8) = 4; s[4 + i] = imageSize(u32) = 4.
    let text = r#"#!amber
SHADER compute cs GLSL
#version 450
layout(local_size_x = 4) in;
layout(set = 0, binding = 0, rgba8) uniform imageBuffer img8;
layout(set = 0, binding = 1, r32ui) uniform uimageBuffer u32;
layout(set = 0, binding = 2, std430) buffer S { int s[8]; uint r[4]; };
void main() {
  int i = int(gl_LocalInvocationID.x);
  uint old = imageLoad(u32, i).x;
  r[i] = old;
  imageStore(u32, i, uvec4(old * 2u + uint(i)));
  imageStore(u32, i + 4, uvec4(999u));
  float x = float(i) * 0.25;
  imageStore(img8, i, vec4(x, 0.5, 1.0 - x, 0.2));
  s[i] = imageSize(img8);
  s[4 + i] = imageSize(u32);
}
END
BUFFER img8 DATA_TYPE R8G8B8A8_UNORM SIZE 4 FILL 0
BUFFER u32 DATA_TYPE R32_UINT DATA 10 20 30 40 END
BUFFER s DATA_TYPE int32 SIZE 12 FILL 7
PIPELINE compute p
  ATTACH cs
  BIND BUFFER img8 AS storage_texel_buffer DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER u32 AS storage_texel_buffer DESCRIPTOR_SET 0 BINDING 1
  BIND BUFFER s AS storage DESCRIPTOR_SET 0 BINDING 2
END
RUN p 1 1 1
EXPECT u32 IDX 0 EQ 20 41 62 83
EXPECT s IDX 0 EQ 4 4 4 4 4 4 4 4 10 20 30 40
EXPECT img8 IDX 0 EQ 0 128 255 51  64 128 191 51  128 128 128 51  191 128 64 51
"#;
    assert_eq!(run(text), Status::Pass);
}

/// A script that fetches texel 0 of buffer `tb` bound with `bind_extra`, `tb` declared by
/// `decl`. Its `RUN` is on line 17.
fn bad_binding(decl: &str, bind_extra: &str) -> String {
    let text = format!(
        r#"#!amber
SHADER compute cs GLSL
#version 450
layout(set = 0, binding = 0) uniform samplerBuffer tb;
layout(set = 0, binding = 1, std430) buffer O {{ vec4 o; }};
void main() {{ o = texelFetch(tb, 0); }}
END
{decl}
BUFFER o DATA_TYPE vec4<float> SIZE 1 FILL 0
PIPELINE compute p
  ATTACH cs
  BIND BUFFER tb AS uniform_texel_buffer DESCRIPTOR_SET 0 BINDING 0{bind_extra}
  BIND BUFFER o AS storage DESCRIPTOR_SET 0 BINDING 1
END


RUN p 1 1 1
"#
    );
    message(run(&text))
}

#[test]
fn texel_buffer_binding_errors_name_the_line_and_the_rule() {
    if !glslang() {
        return;
    }
    // A matrix data type has no texel format.
    let m = bad_binding("BUFFER tb DATA_TYPE mat2x2<float> SIZE 1 FILL 0", "");
    assert!(
        m.contains("inline.amber:17") && m.contains("no format"),
        "{m}"
    );
    // B5G6R5_UNORM_PACK16 is not a format the texture unit decodes.
    let m = bad_binding("BUFFER tb FORMAT B5G6R5_UNORM_PACK16", "");
    assert!(
        m.contains("inline.amber:17") && m.contains("B5G6R5_UNORM_PACK16"),
        "{m}"
    );
    // Depth formats are not texel buffer formats.
    let m = bad_binding("BUFFER tb FORMAT D32_SFLOAT", "");
    assert!(
        m.contains("inline.amber:17") && m.contains("D32_SFLOAT"),
        "{m}"
    );
    // 16 bytes of R32_SFLOAT: 8 + 16 ends at byte 24, past the end.
    let decl = "BUFFER tb DATA_TYPE R32_SFLOAT DATA 1 2 3 4 END";
    let m = bad_binding(decl, " DESCRIPTOR_OFFSET 8 DESCRIPTOR_RANGE 16");
    assert!(
        m.contains("inline.amber:17") && m.contains("past the end"),
        "{m}"
    );
    // A range so large that offset + range overflows: still "past the end", no panic.
    let m = bad_binding(
        decl,
        " DESCRIPTOR_OFFSET 8 DESCRIPTOR_RANGE 18446744073709551612",
    );
    assert!(
        m.contains("inline.amber:17") && m.contains("past the end"),
        "{m}"
    );
    // A texel buffer declared in the shader but bound as an image.
    let text = r#"#!amber
SHADER compute cs GLSL
#version 450
layout(set = 0, binding = 0) uniform samplerBuffer tb;
layout(set = 0, binding = 1, std430) buffer O { vec4 o; };
void main() { o = texelFetch(tb, 0); }
END
BUFFER tb DATA_TYPE R32_SFLOAT DATA 1 2 3 4 END
BUFFER o DATA_TYPE vec4<float> SIZE 1 FILL 0
PIPELINE compute p
  ATTACH cs
  BIND BUFFER tb AS sampled_image DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER o AS storage DESCRIPTOR_SET 0 BINDING 1
END
RUN p 1 1 1
"#;
    let m = message(run(text));
    assert!(
        m.contains("inline.amber:15") && m.contains("uniform_texel_buffer"),
        "{m}"
    );
    // A range that is not a whole number of 4-byte texels.
    let m = bad_binding(decl, " DESCRIPTOR_RANGE 6");
    assert!(
        m.contains("inline.amber:17") && m.contains("multiple"),
        "{m}"
    );
}

#[test]
fn texel_buffer_view_offset_and_range() {
    if !glslang() {
        return;
    }
    // R32_SFLOAT 1 2 3 4, viewed from byte 4 for 8 bytes: texels (2, 3); size 2; texel 2 is
    // outside the view (although inside the buffer): (0, 0, 0, 1).
    let text = r#"#!amber
SHADER compute cs GLSL
#version 450
layout(set = 0, binding = 0) uniform samplerBuffer tb;
layout(set = 0, binding = 1, std430) buffer O { vec4 o[3]; float n; };
void main() {
  o[0] = texelFetch(tb, 0);
  o[1] = texelFetch(tb, 1);
  o[2] = texelFetch(tb, 2);
  n = float(textureSize(tb));
}
END
BUFFER tb DATA_TYPE R32_SFLOAT DATA 1 2 3 4 END
BUFFER o DATA_TYPE float SIZE 13 FILL 7
PIPELINE compute p
  ATTACH cs
  BIND BUFFER tb AS uniform_texel_buffer DESCRIPTOR_SET 0 BINDING 0 DESCRIPTOR_OFFSET 4 DESCRIPTOR_RANGE 8
  BIND BUFFER o AS storage DESCRIPTOR_SET 0 BINDING 1
END
RUN p 1 1 1
EXPECT o IDX 0 EQ 2 0 0 1  3 0 0 1  0 0 0 1  2
"#;
    assert_eq!(run(text), Status::Pass);
}
