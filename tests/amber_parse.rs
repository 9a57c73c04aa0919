//! Hand-written AmberScript snippets: AST fields, std140/std430 byte layouts (expected bytes
//! written by hand from the GLSL layout rules), `file:line:` errors for bad input, and a
//! deterministic mini-fuzz that must never panic.

use std::path::Path;

use quadstep::amber::ast::*;
use quadstep::amber::parse;
use quadstep::Error;

fn p(text: &str) -> Script {
    parse(text, Path::new("t.amber")).unwrap_or_else(|e| panic!("{e}"))
}

fn err(text: &str) -> String {
    match parse(text, Path::new("t.amber")) {
        Err(Error::Amber(m)) => m,
        other => panic!("expected an Amber error, got {other:?}"),
    }
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|f| f.to_le_bytes()).collect()
}

fn buffer_bytes(decl: &str) -> Vec<u8> {
    let s = p(&format!("#!amber\n{decl}\n"));
    let b = s.buffers().next().unwrap().layout_bytes();
    b
}

// ---- layouts ---------------------------------------------------------------------------------

#[test]
fn vec3_pads_to_16_bytes() {
    let b = buffer_bytes("BUFFER b DATA_TYPE vec3<float> DATA 1 2 3 4 5 6 END");
    assert_eq!(b, f32s(&[1., 2., 3., 0., 4., 5., 6., 0.]));
}

#[test]
fn std140_scalar_array_stride_is_16() {
    let b = buffer_bytes("BUFFER b DATA_TYPE float[] STD140 DATA 1 2 END");
    assert_eq!(b, f32s(&[1., 0., 0., 0., 2., 0., 0., 0.]));
    let b = buffer_bytes("BUFFER b DATA_TYPE float[] STD430 DATA 1 2 END");
    assert_eq!(b, f32s(&[1., 2.]));
    // Not marked as an array: tightly packed even under STD140.
    let b = buffer_bytes("BUFFER b DATA_TYPE float STD140 DATA 1 2 END");
    assert_eq!(b, f32s(&[1., 2.]));
    let b = buffer_bytes("BUFFER b DATA_TYPE vec2<float>[] STD140 DATA 1 2 3 4 END");
    assert_eq!(b, f32s(&[1., 2., 0., 0., 3., 4., 0., 0.]));
}

#[test]
fn matrices_are_columns() {
    // mat2x2 std140: each 2-float column padded to 16 bytes.
    let b = buffer_bytes("BUFFER b DATA_TYPE mat2x2<float> STD140 DATA 1 2 3 4 END");
    assert_eq!(b, f32s(&[1., 2., 0., 0., 3., 4., 0., 0.]));
    let b = buffer_bytes("BUFFER b DATA_TYPE mat2x2<float> STD430 DATA 1 2 3 4 END");
    assert_eq!(b, f32s(&[1., 2., 3., 4.]));
    // mat2x3: 2 columns of vec3, each padded to 16 bytes in both layouts.
    let b = buffer_bytes("BUFFER b DATA_TYPE mat2x3<float> DATA 1 2 3 4 5 6 END");
    assert_eq!(b, f32s(&[1., 2., 3., 0., 4., 5., 6., 0.]));
    // mat3x2 std430: 3 columns of vec2 = 24 bytes.
    let b = buffer_bytes("BUFFER b DATA_TYPE mat3x2<float> DATA 1 2 3 4 5 6 END");
    assert_eq!(b, f32s(&[1., 2., 3., 4., 5., 6.]));
}

#[test]
fn scalar_encodings() {
    assert_eq!(
        buffer_bytes("BUFFER b DATA_TYPE int8 DATA 1 -1 END"),
        vec![1, 0xff]
    );
    assert_eq!(
        buffer_bytes("BUFFER b DATA_TYPE uint16 DATA 0x1234 END"),
        vec![0x34, 0x12]
    );
    assert_eq!(
        buffer_bytes("BUFFER b DATA_TYPE int32 DATA -2 END"),
        vec![0xfe, 0xff, 0xff, 0xff]
    );
    // binary16 1.0 = 0x3c00, -2.0 = 0xc000.
    assert_eq!(
        buffer_bytes("BUFFER b DATA_TYPE float16 DATA 1.0 -2.0 END"),
        vec![0x00, 0x3c, 0x00, 0xc0]
    );
    // binary64 1.5 = 0x3ff8000000000000.
    assert_eq!(
        buffer_bytes("BUFFER b DATA_TYPE double DATA 1.5 END"),
        vec![0, 0, 0, 0, 0, 0, 0xf8, 0x3f]
    );
    assert_eq!(
        buffer_bytes("BUFFER b DATA_TYPE uint64 DATA 0x0102030405060708 END"),
        vec![8, 7, 6, 5, 4, 3, 2, 1]
    );
}

/// `nan` (Amber's spelling, any case) is the IEEE positive quiet NaN in every float width
/// (bits written by hand: all-ones exponent, only the quiet bit of the fraction set), and a
/// decimal beyond a type's range is its infinity (IEEE round-to-nearest overflows to ±∞:
/// binary32 0x7f800000, binary16 0x7c00). `inf` is not a number to Amber, nor is `nan` in an
/// integer component: both are errors naming the buffer.
#[test]
fn nan_and_infinity_in_data() {
    assert_eq!(
        buffer_bytes("BUFFER b DATA_TYPE float DATA nan NaN -1.0e39 END"),
        [0x7fc0_0000u32, 0x7fc0_0000, 0xff80_0000]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect::<Vec<_>>()
    );
    assert_eq!(
        buffer_bytes("BUFFER b DATA_TYPE double DATA NAN END"),
        0x7ff8_0000_0000_0000u64.to_le_bytes()
    );
    assert_eq!(
        buffer_bytes("BUFFER b DATA_TYPE float16 DATA nan 70000.0 END"),
        vec![0x00, 0x7e, 0x00, 0x7c]
    );
    assert_eq!(
        buffer_bytes("BUFFER b DATA_TYPE vec2<float> SIZE 1 FILL nan"),
        [0x7fc0_0000u32; 2]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect::<Vec<_>>()
    );
    // a struct takes nan in its float member only
    let st = "STRUCT s\nuint32 a\nfloat b\nEND\n";
    let b = buffer_bytes(&format!("{st}BUFFER b DATA_TYPE s DATA 7 nan END"));
    assert_eq!(b[4..8], 0x7fc0_0000u32.to_le_bytes());
    let e = err(&format!(
        "#!amber\n{st}BUFFER b DATA_TYPE s DATA nan 1.0 END\n"
    ));
    assert!(e.contains("value 0 of its DATA is nan"), "{e}");

    let e = err("#!amber\nBUFFER b DATA_TYPE float DATA 1.0 inf END\n");
    assert!(e.starts_with("t.amber:2:") && e.contains("'inf'"), "{e}");
    assert!(e.contains("no infinity literal"), "{e}");
    let e = err("#!amber\nBUFFER b DATA_TYPE float DATA -nan END\n");
    assert!(e.contains("'-nan'"), "{e}");
    let e = err("#!amber\nBUFFER b DATA_TYPE vec2<int32> DATA 1 2 3 nan END\n");
    assert!(e.contains("'b': value 3 of its DATA is nan"), "{e}");
    let e = err("#!amber\nBUFFER b DATA_TYPE R8G8B8A8_UNORM SIZE 2 FILL nan\n");
    assert!(e.contains("FILL or SERIES_FROM value is nan"), "{e}");
}

#[test]
fn format_data() {
    assert_eq!(
        buffer_bytes("BUFFER b DATA_TYPE R8G8B8A8_UNORM DATA 255 0 128 1 END"),
        vec![255, 0, 128, 1]
    );
    // PACK32: one value per element, the packed word (A(2) B(10) G(10) R(10) from the top),
    // as the CTS texel-buffer scripts write them: 0x40000001 is R = 1, A = 1.
    let w: u32 = (1 << 30) | (2 << 20) | (3 << 10) | 4;
    let mut two = w.to_le_bytes().to_vec();
    two.extend_from_slice(&0x4000_0001u32.to_le_bytes());
    assert_eq!(
        buffer_bytes(&format!(
            "BUFFER b DATA_TYPE A2B10G10R10_UNORM_PACK32 DATA {w} 0x40000001 END"
        )),
        two
    );
    assert_eq!(
        buffer_bytes("BUFFER b DATA_TYPE R32G32_SFLOAT DATA 1.0 2.0 END"),
        f32s(&[1., 2.])
    );
    assert_eq!(
        buffer_bytes("BUFFER b DATA_TYPE R16G16_SNORM DATA 0x8001 0x7fff END"),
        vec![0x01, 0x80, 0xff, 0x7f]
    );
}

#[test]
fn fill_and_series() {
    let b = buffer_bytes("BUFFER b DATA_TYPE uint32 SIZE 3 FILL 7");
    assert_eq!(
        b,
        [7u32, 7, 7]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect::<Vec<_>>()
    );
    let b = buffer_bytes("BUFFER b DATA_TYPE vec2<int32> SIZE 2 SERIES_FROM 1 INC_BY 2");
    assert_eq!(
        b,
        [1i32, 3, 5, 7]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect::<Vec<_>>()
    );
    let b = buffer_bytes("BUFFER b DATA_TYPE float SIZE 3 SERIES_FROM 0.5 INC_BY 0.25");
    assert_eq!(b, f32s(&[0.5, 0.75, 1.0]));
}

#[test]
fn struct_layouts() {
    // std430: a@0 b@4 c(vec3, align 16)@16 d@28 (inside vec3's tail); size 32.
    let s = "#!amber\nSTRUCT s\n float a\n int32 b\n vec3<float> c\n float d\nEND\n\
             BUFFER x DATA_TYPE s STD430 DATA 1 2 3 4 5 6 END\n";
    let b = p(s).buffer("x").unwrap().layout_bytes();
    let mut want = f32s(&[1.0]);
    want.extend(2i32.to_le_bytes());
    want.extend([0u8; 8]);
    want.extend(f32s(&[3., 4., 5., 6.]));
    assert_eq!(b, want);

    // Nested struct: std140 rounds the inner struct to 16 bytes and aligns it to 16.
    let s = "#!amber\nSTRUCT inner\n float x\nEND\nSTRUCT outer\n float a\n inner b\n float c\nEND\n\
             BUFFER x DATA_TYPE outer STD140 DATA 1 2 3 END\nBUFFER y DATA_TYPE outer STD430 DATA 1 2 3 END\n";
    let sc = p(s);
    assert_eq!(
        sc.buffer("x").unwrap().layout_bytes(),
        f32s(&[1., 0., 0., 0., 2., 0., 0., 0., 3., 0., 0., 0.])
    );
    assert_eq!(sc.buffer("y").unwrap().layout_bytes(), f32s(&[1., 2., 3.]));

    // Explicit offsets.
    let s = "#!amber\nSTRUCT s\n int32 d OFFSET 8\n int32 e OFFSET 16\nEND\n\
             BUFFER x DATA_TYPE s STD430 DATA 1 2 END\n";
    let b = p(s).buffer("x").unwrap().layout_bytes();
    let mut want = vec![0u8; 8];
    want.extend(1i32.to_le_bytes());
    want.extend([0u8; 4]);
    want.extend(2i32.to_le_bytes());
    assert_eq!(b, want);
}

// ---- AST fields ------------------------------------------------------------------------------

const SCRIPT: &str = r#"#!amber
# comment
DEVICE_FEATURE vertexPipelineStoresAndAtomics
SET ENGINE_DATA fence_timeout_ms 5000
SHADER vertex vs PASSTHROUGH
SHADER fragment fs GLSL TARGET_ENV spv1.3
#version 430
layout(location = 0) out vec4 c; // BLEND is not END
void main() { c = vec4(1); }
END
SHADER compute cs SPIRV-ASM
OpCapability Shader
END
BUFFER fb FORMAT B8G8R8A8_UNORM
BUFFER ssbo DATA_TYPE uint32 SIZE 4 FILL 0
BUFFER verts DATA_TYPE vec2<float> DATA
-1 -1  1 -1
 1  1 \
-1  1
END
IMAGE img FORMAT R8G8B8A8_UNORM DIM_3D WIDTH 4 HEIGHT 2 DEPTH 2 FILL 0
SAMPLER smp MAG_FILTER linear ADDRESS_MODE_U clamp_to_border BORDER_COLOR float_opaque_white MAX_LOD 4.0
PIPELINE graphics gp
  ATTACH vs
  ATTACH fs ENTRY_POINT main SPECIALIZE 3 AS uint32 7
  FRAMEBUFFER_SIZE 32 16
  BIND BUFFER fb AS color LOCATION 0
  BIND BUFFER img AS combined_image_sampler SAMPLER smp DESCRIPTOR_SET 1 BINDING 2
  BIND BUFFER ssbo AS storage_dynamic DESCRIPTOR_SET 0 BINDING 0 OFFSET 16
  VERTEX_DATA verts LOCATION 0 RATE instance STRIDE 8
  DEPTH
    TEST on
    COMPARE_OP less_or_equal
  END
END
PIPELINE compute cp
  ATTACH cs
  BIND BUFFER ssbo AS storage DESCRIPTOR_SET 0 BINDING 1
END
CLEAR_COLOR gp 255 128 0 255
CLEAR gp
RUN gp DRAW_RECT POS 0 0 SIZE 32 16
RUN gp DRAW_ARRAY AS TRIANGLE_FAN START_IDX 0 COUNT 4
RUN cp 2 3 4
REPEAT 2
  RUN TIMED_EXECUTION cp 1 1 1
END
EXPECT fb IDX 0 0 SIZE 32 16 EQ_RGBA 255 128 0 255 TOLERANCE 1 1 1 1
EXPECT fb IDX 3 4 EQ_RGB 1 2 3
EXPECT ssbo IDX 4 TOLERANCE 5% EQ 1 2
EXPECT ssbo EQ_BUFFER ssbo
"#;

#[test]
fn ast_fields() {
    let s = p(SCRIPT);
    assert_eq!(
        s.device_features().collect::<Vec<_>>(),
        ["vertexPipelineStoresAndAtomics"]
    );
    let fs = s.shader("fs").unwrap();
    assert_eq!(fs.stage, ShaderType::Fragment);
    assert_eq!(fs.format, ShaderFormat::Glsl);
    assert_eq!(fs.target_env.as_deref(), Some("spv1.3"));
    match &fs.source {
        ShaderSource::Text(t) => {
            assert!(t.starts_with("#version 430\n"));
            assert!(t.ends_with("void main() { c = vec4(1); }\n"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(s.shader("vs").unwrap().source, ShaderSource::Passthrough);

    let verts = s.buffer("verts").unwrap();
    assert_eq!(verts.element_count(), 4);
    assert_eq!(
        verts.layout_bytes(),
        f32s(&[-1., -1., 1., -1., 1., 1., -1., 1.])
    );
    let img = s.buffer("img").unwrap();
    assert!(img.is_image);
    assert_eq!(
        (img.dim, img.width, img.height, img.depth),
        (Some(ImageDim::D3), Some(4), Some(2), Some(2))
    );
    assert_eq!(img.layout_bytes().len(), 4 * 2 * 2 * 4);
    let fb = s.buffer("fb").unwrap();
    assert!(fb.declared_as_format);
    assert_eq!(fb.init, BufferInit::None);

    let smp = s.sampler("smp").unwrap();
    assert_eq!(smp.mag_filter, Filter::Linear);
    assert_eq!(smp.min_filter, Filter::Nearest);
    assert_eq!(smp.address_u, AddressMode::ClampToBorder);
    assert_eq!(smp.address_v, AddressMode::Repeat);
    assert_eq!(smp.border_color, BorderColor::FloatOpaqueWhite);
    assert_eq!(smp.max_lod, 4.0);

    let gp = s.pipeline("gp").unwrap();
    assert_eq!(gp.kind, PipelineKind::Graphics);
    assert_eq!(gp.framebuffer_size, (32, 16));
    assert_eq!(gp.shaders.len(), 2);
    assert_eq!(gp.shaders[1].entry_point, "main");
    assert_eq!(
        gp.shaders[1].specializations,
        vec![Specialization {
            id: 3,
            ty: DataType::parse("uint32").unwrap(),
            value: Number::Int(7)
        }]
    );
    assert_eq!(
        gp.bindings[0],
        Binding::Color {
            buffer: "fb".into(),
            location: 0,
            base_mip_level: 0
        }
    );
    match &gp.bindings[1] {
        Binding::Descriptor {
            kind,
            set,
            binding,
            samplers,
            ..
        } => {
            assert_eq!(
                (*kind, *set, *binding),
                (DescriptorKind::CombinedImageSampler, 1, 2)
            );
            assert_eq!(samplers, &["smp".to_string()]);
        }
        b => panic!("{b:?}"),
    }
    match &gp.bindings[2] {
        Binding::Descriptor {
            kind,
            dynamic_offsets,
            ..
        } => {
            assert_eq!(*kind, DescriptorKind::StorageDynamic);
            assert_eq!(dynamic_offsets, &[16]);
        }
        b => panic!("{b:?}"),
    }
    assert_eq!(
        gp.vertex_data,
        vec![VertexData {
            buffer: "verts".into(),
            location: 0,
            rate: InputRate::Instance,
            offset: 0,
            stride: Some(8),
            format: None
        }]
    );
    let d = gp.depth.as_ref().unwrap();
    assert!(d.test && !d.write);
    assert_eq!(d.compare, CompareOp::LessOrEqual);

    let cmds: Vec<(usize, &Command)> = s.commands().collect();
    assert_eq!(
        cmds[0],
        (
            40,
            &Command::ClearColor {
                pipeline: "gp".into(),
                color: [1.0, 128.0 / 255.0, 0., 1.0]
            }
        )
    );
    assert_eq!(
        cmds[2].1,
        &Command::Run(Run {
            pipeline: "gp".into(),
            timed: false,
            kind: RunKind::DrawRect {
                pos: [0., 0.],
                size: [32., 16.],
                ortho: true,
                patch: false
            }
        })
    );
    assert_eq!(
        cmds[3].1,
        &Command::Run(Run {
            pipeline: "gp".into(),
            timed: false,
            kind: RunKind::DrawArray {
                topology: Topology::TriangleFan,
                indexed: false,
                start_idx: 0,
                count: Some(4),
                start_instance: 0,
                instance_count: 1
            }
        })
    );
    assert_eq!(
        cmds[4].1,
        &Command::Run(Run {
            pipeline: "cp".into(),
            timed: false,
            kind: RunKind::Compute { groups: [2, 3, 4] }
        })
    );
    match cmds[5].1 {
        Command::Repeat { count: 2, body } => {
            assert_eq!(body.len(), 1);
            assert_eq!(body[0].line, 46);
            assert!(matches!(
                &body[0].kind,
                StmtKind::Command(Command::Run(Run { timed: true, .. }))
            ));
        }
        c => panic!("{c:?}"),
    }
    assert_eq!(
        cmds[6].1,
        &Command::Expect(Expect::Probe {
            buffer: "fb".into(),
            pos: [0., 0.],
            size: [32., 16.],
            relative: false,
            has_alpha: true,
            color: [1.0, 128.0 / 255.0, 0., 1.0],
            tolerance: vec![
                Tolerance {
                    value: 1.0,
                    percent: false
                };
                4
            ]
        })
    );
    assert!(matches!(
        cmds[7].1,
        Command::Expect(Expect::Probe {
            pos: [3., 4.],
            size: [1., 1.],
            has_alpha: false,
            color: [_, _, _, 1.0],
            ..
        })
    ));
    assert_eq!(
        cmds[8].1,
        &Command::Expect(Expect::Values {
            buffer: "ssbo".into(),
            index: 4,
            data_type: None,
            tolerance: vec![Tolerance {
                value: 5.0,
                percent: true
            }],
            comparator: Comparator::Eq,
            values: vec![Number::Int(1), Number::Int(2)]
        })
    );
    assert!(matches!(
        cmds[9].1,
        Command::Expect(Expect::EqBuffer { .. })
    ));
}

#[test]
fn derive_pipeline_copies_parent() {
    let s = p(
        "#!amber\nSHADER vertex v PASSTHROUGH\nSHADER fragment f GLSL\nx\nEND\n\
               PIPELINE graphics a\n ATTACH v\n ATTACH f\n FRAMEBUFFER_SIZE 8 8\nEND\n\
               DERIVE_PIPELINE b FROM a\n FRAMEBUFFER_SIZE 4 4\nEND\n",
    );
    let b = s.pipeline("b").unwrap();
    assert_eq!(b.derived_from.as_deref(), Some("a"));
    assert_eq!(b.shaders.len(), 2);
    assert_eq!(b.framebuffer_size, (4, 4));
    assert_eq!(s.pipeline("a").unwrap().framebuffer_size, (8, 8));
}

const VKSCRIPT: &str = "[require]
fbsize 64 32
framebuffer R8G8B8A8_UNORM
shaderInt64
VK_KHR_16bit_storage

[vertex shader passthrough]

[fragment shader]
#version 430
void main() {}

[vertex data]
0/R32G32_SFLOAT 1/float/vec3
-1 -1   0.5 0.25 1 # a comment
 1 -1 \\
  1 0 0

[test]
clear color 1 0.5 0 1
clear
draw arrays TRIANGLE_LIST 0 2
relative probe rect rgba (0.0, 0.0, 0.5, 1.0) (1, 0.5, 0, 1)
probe rgb (3, 4) (0.25 0.5 0.75)
tolerance 1% 2
ssbo 1:2 16
ssbo 1:2 subdata vec2 8 1.5 2.5
uniform ubo 3 mat2 0 1 2 3 4
uniform float 4 7.0
probe ssbo vec2 1:2 8 ~= 1.5 2.5
draw arrays instanced TRIANGLE_STRIP 0 2 3
";

#[test]
fn vkscript_lowers_to_the_same_ast() {
    let s = parse(VKSCRIPT, Path::new("v.vkscript")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.device_features().collect::<Vec<_>>(), ["shaderInt64"]);
    assert_eq!(
        s.device_extensions().collect::<Vec<_>>(),
        ["VK_KHR_16bit_storage"]
    );
    assert_eq!(
        s.shader("vertex_shader").unwrap().source,
        ShaderSource::Passthrough
    );
    assert_eq!(
        s.shader("fragment_shader").unwrap().source,
        ShaderSource::Text("#version 430\nvoid main() {}\n\n".into())
    );
    let p = s.pipeline("pipeline").unwrap();
    assert_eq!(p.kind, PipelineKind::Graphics);
    assert_eq!(p.framebuffer_size, (64, 32));
    assert_eq!(p.shaders.len(), 2);
    let fb = s.buffer("framebuffer").unwrap();
    assert_eq!(
        fb.elem,
        ElemType::Format(Format::parse("R8G8B8A8_UNORM").unwrap())
    );
    // Attribute 0: two floats per row; attribute 1 (float/vec3) = R32G32B32_SFLOAT.
    assert_eq!(
        s.buffer("vertices_0").unwrap().layout_bytes(),
        f32s(&[-1., -1., 1., -1.])
    );
    let v1 = s.buffer("vertices_1").unwrap();
    assert_eq!(
        v1.elem,
        ElemType::Format(Format::parse("R32G32B32_SFLOAT").unwrap())
    );
    assert_eq!(v1.layout_bytes(), f32s(&[0.5, 0.25, 1., 1., 0., 0.]));
    assert_eq!(p.vertex_data.len(), 2);
    let ssbo = s.buffer("ssbo_1_2").unwrap();
    assert_eq!(
        ssbo.elem,
        ElemType::Data(DataType::parse("vec2<float>").unwrap())
    );
    assert_eq!(ssbo.size, Some(16));
    assert!(p.bindings.contains(&Binding::Descriptor {
        buffers: vec!["ssbo_1_2".into()],
        kind: DescriptorKind::Storage,
        set: 1,
        binding: 2,
        samplers: vec![],
        base_mip_level: 0,
        dynamic_offsets: vec![],
        descriptor_offsets: vec![],
        descriptor_ranges: vec![],
    }));
    assert_eq!(s.buffer("ubo_0_3").unwrap().layout, Layout::Std140);
    assert!(p.bindings.contains(&Binding::PushConstant {
        buffer: "push_constants".into()
    }));

    let cmds: Vec<(usize, &Command)> = s.commands().collect();
    assert_eq!(
        cmds[0],
        (
            20,
            &Command::ClearColor {
                pipeline: "pipeline".into(),
                color: [1., 0.5, 0., 1.]
            }
        )
    );
    assert!(matches!(
        cmds[2].1,
        Command::Run(Run {
            kind: RunKind::DrawArray {
                topology: Topology::TriangleList,
                ..
            },
            ..
        })
    ));
    // draw rect: NDC unless `ortho`; refused with two vertex attributes (as Amber does).
    let r = parse(
        "[test]\ndraw rect ortho patch 0 0 64 32\ndraw rect -1 -1 2 2\n",
        Path::new("r.vkscript"),
    )
    .unwrap();
    let runs: Vec<&Command> = r.commands().map(|(_, c)| c).collect();
    assert!(matches!(
        runs[0],
        Command::Run(Run {
            kind: RunKind::DrawRect {
                size: [64., 32.],
                ortho: true,
                patch: true,
                ..
            },
            ..
        })
    ));
    assert!(matches!(
        runs[1],
        Command::Run(Run {
            kind: RunKind::DrawRect {
                pos: [-1., -1.],
                ortho: false,
                patch: false,
                ..
            },
            ..
        })
    ));
    let m = parse(
        &VKSCRIPT.replace("draw arrays TRIANGLE_LIST 0 2", "draw rect 0 0 1 1"),
        Path::new("v.vkscript"),
    );
    assert!(matches!(m, Err(Error::Amber(m)) if m.starts_with("v.vkscript:22: ")));
    assert_eq!(
        cmds[3].1,
        &Command::Expect(Expect::Probe {
            buffer: "framebuffer".into(),
            pos: [0., 0.],
            size: [0.5, 1.],
            relative: true,
            has_alpha: true,
            color: [1., 0.5, 0., 1.],
            tolerance: vec![]
        })
    );
    assert!(matches!(
        cmds[4].1,
        Command::Expect(Expect::Probe {
            pos: [3., 4.],
            relative: false,
            has_alpha: false,
            color: [0.25, 0.5, 0.75, 1.],
            ..
        })
    ));
    assert_eq!(
        cmds[5],
        (
            27,
            &Command::SetBufferData {
                buffer: "ssbo_1_2".into(),
                offset: 8,
                ty: DataType::parse("vec2<float>").unwrap(),
                layout: Layout::Std430,
                values: vec![Number::Float(1.5), Number::Float(2.5)]
            }
        )
    );
    match cmds[6].1 {
        Command::SetBufferData {
            buffer,
            ty,
            layout,
            values,
            ..
        } => {
            assert_eq!(buffer, "ubo_0_3");
            assert_eq!((ty.cols, ty.rows, *layout), (2, 2, Layout::Std140));
            assert_eq!(values.len(), 4);
        }
        c => panic!("{c:?}"),
    }
    assert!(
        matches!(cmds[7].1, Command::SetBufferData { buffer, offset: 4, .. } if buffer == "push_constants")
    );
    assert_eq!(
        cmds[8].1,
        &Command::Expect(Expect::Values {
            buffer: "ssbo_1_2".into(),
            index: 8,
            data_type: DataType::parse("vec2<float>"),
            tolerance: vec![
                Tolerance {
                    value: 1.0,
                    percent: true
                },
                Tolerance {
                    value: 2.0,
                    percent: false
                }
            ],
            comparator: Comparator::Eq,
            values: vec![Number::Float(1.5), Number::Float(2.5)]
        })
    );
    assert!(matches!(
        cmds[9].1,
        Command::Run(Run {
            kind: RunKind::DrawArray {
                topology: Topology::TriangleStrip,
                count: Some(2),
                instance_count: 3,
                ..
            },
            ..
        })
    ));
}

#[test]
fn vkscript_errors_name_file_and_line() {
    let e = |t: &str| match parse(t, Path::new("v.vkscript")) {
        Err(Error::Amber(m)) => m,
        other => panic!("{other:?}"),
    };
    let m = e("[test]\nclear\nfrobnicate 3\n");
    assert!(
        m.starts_with("v.vkscript:3: ") && m.contains("frobnicate"),
        "{m}"
    );
    let m = e("[vertex data]\n0/R32_SFLOAT\n1\n2 3\n");
    assert!(
        m.starts_with("v.vkscript:4: ") && m.contains("values"),
        "{m}"
    );
    let m = e("[require]\nfbsize 0 4\n");
    assert!(m.starts_with("v.vkscript:2: "), "{m}");
    let m = e("[test]\nprobe ssbo vec3 0 0 == 1 2\n");
    assert!(m.contains("multiple of 3"), "{m}");
    let m = e("[nonsense]\n");
    assert!(
        m.starts_with("v.vkscript:1: ") && m.contains("unknown section"),
        "{m}"
    );
}

#[test]
fn files_are_loaded_relative_to_the_script() {
    let dir = std::env::temp_dir().join(format!("quadstep-amber-files-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("sub/data.txt"), "1 2\n3, 4\n").unwrap();
    std::fs::write(dir.join("data.bin"), [9u8, 8, 7, 6]).unwrap();
    std::fs::write(dir.join("s.comp"), "#version 450\nvoid main() {}\n").unwrap();
    std::fs::write(dir.join("s.spv"), [3u8, 2, 35, 7]).unwrap();
    let png = image::RgbaImage::from_raw(2, 1, vec![1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
    png.save(dir.join("t.png")).unwrap();
    let text = "#!amber
BUFFER t DATA_TYPE int32 SIZE 4 FILE TEXT sub/data.txt
BUFFER b DATA_TYPE uint8 SIZE 4 FILE BINARY data.bin
BUFFER p FORMAT R8G8B8A8_UNORM FILE PNG t.png
SHADER compute c GLSL FILE s.comp
SHADER compute d SPIRV-BIN FILE s.spv
VIRTUAL_FILE \"v.hlsl\"
float4 main() : SV_TARGET { return 1; }
END
SHADER fragment h HLSL VIRTUAL_FILE v.hlsl
";
    let s = parse(text, &dir.join("script.amber")).unwrap_or_else(|e| panic!("{e}"));
    let ints: Vec<u8> = [1i32, 2, 3, 4]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    assert_eq!(s.buffer("t").unwrap().layout_bytes(), ints);
    assert_eq!(s.buffer("b").unwrap().layout_bytes(), vec![9, 8, 7, 6]);
    let p = s.buffer("p").unwrap();
    assert_eq!((p.width, p.height), (Some(2), Some(1)));
    assert_eq!(p.layout_bytes(), vec![1, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(
        s.shader("c").unwrap().source,
        ShaderSource::Text("#version 450\nvoid main() {}\n".into())
    );
    assert_eq!(
        s.shader("d").unwrap().source,
        ShaderSource::Binary(vec![3, 2, 35, 7])
    );
    assert_eq!(
        s.shader("h").unwrap().source,
        ShaderSource::Text("float4 main() : SV_TARGET { return 1; }\n".into())
    );
    // A missing file is an error naming the file and the script line.
    let m = match parse(
        "#!amber\n\nBUFFER x DATA_TYPE int32 SIZE 1 FILE BINARY nope.bin\n",
        &dir.join("s.amber"),
    ) {
        Err(Error::Amber(m)) => m,
        other => panic!("{other:?}"),
    };
    assert!(m.contains("s.amber:3: ") && m.contains("nope.bin"), "{m}");
    // A truncated PNG is an error, not a panic.
    let bytes = std::fs::read(dir.join("t.png")).unwrap();
    std::fs::write(dir.join("bad.png"), &bytes[..bytes.len() / 2]).unwrap();
    let r = parse(
        "#!amber\nBUFFER x FORMAT R8G8B8A8_UNORM FILE PNG bad.png\n",
        &dir.join("s.amber"),
    );
    assert!(matches!(r, Err(Error::Amber(m)) if m.contains("bad.png")));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn pipeline_state_blocks_and_arrays() {
    let s = p("#!amber
SHADER vertex v PASSTHROUGH
SHADER fragment f SPIRV-ASM
x
END
BUFFER a FORMAT R8G8B8A8_UNORM
BUFFER b FORMAT R8G8B8A8_UNORM
SAMPLER s1
SAMPLER s2 UNNORMALIZED_COORDS COMPARE on COMPARE_OP greater MIN_LOD 1 MAX_LOD 2
PIPELINE graphics g
  ATTACH v
  ATTACH f ENTRY_POINT red
  SHADER_OPTIMIZATION f
    merge-return
    eliminate-dead-code-aggressive
  END
  BIND BUFFER_ARRAY a b AS sampled_image DESCRIPTOR_SET 0 BINDING 1
  BIND SAMPLER_ARRAY s1 s2 DESCRIPTOR_SET 0 BINDING 2
  STENCIL front
    TEST on
    FAIL_OP replace
    COMPARE_OP always
    REFERENCE 32
  END
  BLEND
    SRC_COLOR_FACTOR src_alpha
    DST_COLOR_FACTOR one_minus_src_alpha
    ALPHA_OP max
  END
  VIEWPORT 1 2 SIZE 30 40 MAX_DEPTH 0.5
  POLYGON_MODE line
  PATCH_CONTROL_POINTS 4
  DEPTH
    BIAS constant 1.0 clamp 0.5 slope 2.0
    BOUNDS min 0.25 max 0.75
  END
END
DEBUG g DRAW_RECT POS 0 0 SIZE 2 2
  THREAD FRAGMENT_WINDOW_SPACE_POSITION 1 1
    EXPECT LOCATION \"f.glsl\" 3
    STEP_IN
  END
END
CLEAR_DEPTH g 0.5
CLEAR_STENCIL g 7
COPY a TO b
");
    let g = s.pipeline("g").unwrap();
    assert_eq!(g.shaders[1].entry_point, "red");
    assert_eq!(
        g.shaders[1].optimizations,
        ["merge-return", "eliminate-dead-code-aggressive"]
    );
    assert!(
        matches!(&g.bindings[0], Binding::Descriptor { buffers, kind: DescriptorKind::SampledImage, binding: 1, .. } if buffers == &["a", "b"])
    );
    assert_eq!(
        g.bindings[1],
        Binding::Sampler {
            samplers: vec!["s1".into(), "s2".into()],
            set: 0,
            binding: 2
        }
    );
    let st = g.stencil_front.as_ref().unwrap();
    assert!(st.test);
    assert_eq!(
        (st.fail_op, st.pass_op, st.compare, st.reference),
        (StencilOp::Replace, StencilOp::Keep, CompareOp::Always, 32)
    );
    assert!(g.stencil_back.is_none());
    let b = g.blend.as_ref().unwrap();
    assert_eq!(
        (b.src_color, b.dst_color, b.color_op, b.alpha_op),
        (
            BlendFactor::SrcAlpha,
            BlendFactor::OneMinusSrcAlpha,
            BlendOp::Add,
            BlendOp::Max
        )
    );
    assert_eq!(
        g.viewport,
        Some(Viewport {
            x: 1.,
            y: 2.,
            width: 30.,
            height: 40.,
            min_depth: 0.,
            max_depth: 0.5
        })
    );
    assert_eq!(g.polygon_mode, PolygonMode::Line);
    assert_eq!(g.patch_control_points, Some(4));
    let d = g.depth.as_ref().unwrap();
    assert_eq!(
        d.bias,
        Some(DepthBias {
            constant: 1.0,
            clamp: 0.5,
            slope: 2.0
        })
    );
    assert_eq!(d.bounds, Some((0.25, 0.75)));
    let s2 = s.sampler("s2").unwrap();
    assert!(!s2.normalized_coords);
    assert_eq!(s2.compare, Some(CompareOp::Greater));
    assert_eq!((s2.min_lod, s2.max_lod), (1.0, 2.0));

    let cmds: Vec<&Command> = s.commands().map(|(_, c)| c).collect();
    match cmds[0] {
        Command::Debug(d) => {
            assert!(matches!(
                d.run.kind,
                RunKind::DrawRect { size: [2., 2.], .. }
            ));
            assert_eq!(
                d.body,
                [
                    "THREAD FRAGMENT_WINDOW_SPACE_POSITION 1 1",
                    "EXPECT LOCATION \"f.glsl\" 3",
                    "STEP_IN",
                    "END"
                ]
            );
        }
        c => panic!("{c:?}"),
    }
    assert_eq!(
        cmds[1],
        &Command::ClearDepth {
            pipeline: "g".into(),
            value: 0.5
        }
    );
    assert_eq!(
        cmds[2],
        &Command::ClearStencil {
            pipeline: "g".into(),
            value: 7
        }
    );
    assert_eq!(
        cmds[3],
        &Command::Copy {
            from: "a".into(),
            to: "b".into()
        }
    );
}

// ---- errors ----------------------------------------------------------------------------------

#[test]
fn errors_name_file_and_line() {
    let m = err("#!amber\n\nFOO bar\n");
    assert!(m.starts_with("t.amber:3: "), "{m}");
    assert!(m.contains("unknown command 'FOO'"), "{m}");

    let m = err("#!amber\nSHADER vertex v GLSL\nvoid main() {}\n");
    assert!(
        m.starts_with("t.amber:") && m.contains("missing its END"),
        "{m}"
    );

    let m = err("#!amber\nSHADER vertex v PASSTHROUGH\nPIPELINE graphics p\n ATTACH v\n");
    assert!(m.contains("missing its END"), "{m}");

    let m = err("#!amber\nBUFFER b DATA_TYPE int32 DATA 1 2\n");
    assert!(m.contains("missing its END"), "{m}");

    let m = err("#!amber\nSHADER vertex v PASSTHROUGH\nSHADER fragment f GLSL\nx\nEND\nPIPELINE graphics p\n ATTACH v\n ATTACH f\nEND\nREPEAT 3\n CLEAR p\n");
    assert!(m.contains("REPEAT (line 10) is missing its END"), "{m}");

    let m = err("#!amber\nSHADER vertex v PASSTHROUGH\nPIPELINE graphics p\n ATTACH v\n FRAMEBUFFER_SIZE abc 4\nEND\n");
    assert!(
        m.starts_with("t.amber:5: ") && m.contains("framebuffer width"),
        "{m}"
    );

    let m = err("#!amber\nBUFFER b DATA_TYPE int32 SIZE -4 FILL 0\n");
    assert!(m.starts_with("t.amber:2: ") && m.contains("SIZE"), "{m}");

    let m = err("#!amber\nBUFFER b DATA_TYPE vec5<float> DATA 1 END\n");
    assert!(m.contains("invalid data type 'vec5<float>'"), "{m}");

    let m = err("#!amber\nBUFFER b DATA_TYPE int32 DATA 1 x2 END\n");
    assert!(m.contains("invalid value 'x2'"), "{m}");

    let m = err("#!amber\nSHADER compute c GLSL\nx\nEND\nPIPELINE compute p\n ATTACH c\n BIND BUFFER nope AS storage DESCRIPTOR_SET 0 BINDING 0\nEND\n");
    assert!(
        m.starts_with("t.amber:7: ") && m.contains("unknown buffer or image 'nope'"),
        "{m}"
    );

    let m = err("#!amber\nRUN nothing 1 1 1\n");
    assert!(m.contains("unknown pipeline 'nothing'"), "{m}");

    let m = err("#!amber\nSHADER compute c GLSL\nx\nEND\nPIPELINE compute p\n ATTACH c\nEND\nRUN p DRAW_RECT POS 0 0 SIZE 1 1\n");
    assert!(
        m.starts_with("t.amber:8: ") && m.contains("graphics pipeline"),
        "{m}"
    );

    // Sizes parse; the device limits refuse them before the script runs (amber::check).
    let s = p("#!amber\nBUFFER b DATA_TYPE int32 SIZE 100000000000 FILL 0\n");
    match quadstep::amber::check(&s, &Default::default()) {
        Err((Error::Limit(m), 2)) => assert!(
            m.contains("400000000000 exceeds the device limit maxBufferSize = 4294967295"),
            "{m}"
        ),
        other => panic!("expected a limit error at line 2, got {other:?}"),
    }
}

// ---- mini-fuzz -------------------------------------------------------------------------------

const PIECES: &[&str] = &[
    "END",
    "\n",
    " ",
    "#",
    "\\\n",
    "-",
    "0x",
    "1.5e",
    "9999999999999999999999",
    "vec3<float>",
    "mat4x4<double>",
    "BUFFER",
    "PIPELINE",
    "RUN",
    "EXPECT",
    "DATA",
    "REPEAT",
    "SHADER",
    "STRUCT",
    "IDX",
    "TOLERANCE",
    "%",
    "FILL",
    "SIZE",
    "SERIES_FROM",
    "ATTACH",
    "BIND",
    "\u{e9}",
    "\"",
    "OFFSET 4294967295",
    "R64G64B64A64_SFLOAT",
    "A2B10G10R10_UNORM_PACK32",
    "DEBUG",
    "THREAD",
];

#[test]
fn mutated_scripts_never_panic() {
    fuzz(SCRIPT, "t.amber");
    fuzz(VKSCRIPT, "v.vkscript");
}

fn fuzz(script: &str, name: &str) {
    let mut rng = fastrand::Rng::with_seed(0x9e37_79b9_7f4a_7c15);
    let base = script.as_bytes();
    // Every truncation point.
    for cut in 0..base.len() {
        if let Ok(t) = std::str::from_utf8(&base[..cut]) {
            let _ = parse(t, Path::new(name));
        }
    }
    // Random edits: delete a span, insert a piece, duplicate a span.
    for _ in 0..3000 {
        let mut s = script.to_string();
        for _ in 0..1 + rng.usize(..4) {
            let mut at = rng.usize(..s.len() + 1);
            while !s.is_char_boundary(at) {
                at -= 1;
            }
            match rng.usize(..3) {
                0 => {
                    let mut end = (at + 1 + rng.usize(..20)).min(s.len());
                    while !s.is_char_boundary(end) {
                        end += 1;
                    }
                    s.replace_range(at..end, "");
                }
                1 => s.insert_str(at, PIECES[rng.usize(..PIECES.len())]),
                _ => {
                    let mut end = (at + rng.usize(..40)).min(s.len());
                    while !s.is_char_boundary(end) {
                        end += 1;
                    }
                    let dup = s[at..end].to_string();
                    s.insert_str(at, &dup);
                }
            }
        }
        if let Ok(script) = parse(&s, Path::new(name)) {
            // Layout of whatever parsed must not panic either.
            for b in script.buffers() {
                let _ = b.layout_bytes();
            }
        }
    }
}
