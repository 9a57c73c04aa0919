//! vkd3d-proton's own DXIL tests, run by quadstep: the DXC-compiled containers of
//! `../shared/dxil/vkd3d-proton/` with their resources set up as vkd3d-proton's C tests set
//! them up, and the expected values taken from those C tests (vkd3d-proton snapshot
//! `d01924b6`; each test cites the file and line of the C function it follows). Nothing here
//! is computed by quadstep's own code: the expected values are the C tests' formulas.
//!
//! D3D registers bind as the README's binding model says: `tN`, `sN`, `uN`, `bN` of space 0 at
//! set 0, binding N, each class bound for itself with `bind_register`.

mod common;

use std::sync::Arc;

use approx::abs_diff_eq;

use quadstep::ir::RegisterClass;
use quadstep::pipeline::Shader;
use quadstep::raster::{ColorFormat, ColorTarget};
use quadstep::texture::{AddressMode, CompareOp, Filter, MipmapMode, ViewType};
use quadstep::{
    dispatch, BoundStage, Buffer, Descriptor, DescriptorSets, Format, GraphicsPipeline, Image,
    ImageResource, ImageView, PipelineState, Rasterizer, RenderTargets, Sampler,
};

/// A container of the corpus compiled to a shader, or `None` (with a note) without the corpus.
fn shader(rel: &str) -> Option<Shader> {
    let dir = common::dxil_dir_or_skip(rel)?;
    let bytes = std::fs::read(dir.join(rel)).expect("container readable");
    Some(Shader::from_dxil(&bytes, None).unwrap_or_else(|e| panic!("{rel}: {e}")))
}

fn format(name: &str) -> Format {
    Format::from_vk_name(name).expect("known format")
}

fn image_2d(f: &str, w: u32, h: u32, levels: u32) -> Image {
    Image::new_2d(format(f), w, h, 1, levels).expect("image")
}

fn sampled(img: Image) -> Descriptor {
    let view = ImageView::whole(&img, ViewType::D2);
    Descriptor::Image {
        image: ImageResource::new(img),
        view,
    }
}

/// A storage image descriptor and the resource to read back.
fn storage(img: Image) -> (Descriptor, Arc<ImageResource>) {
    let view = ImageView::whole(&img, ViewType::D2);
    let res = ImageResource::new(img);
    (
        Descriptor::Image {
            image: res.clone(),
            view,
        },
        res,
    )
}

/// D3D12_FILTER_*_POINT / CLAMP / MaxLOD 1000 static samplers of the C tests.
fn point_clamp() -> Sampler {
    Sampler {
        address_mode: [AddressMode::ClampToEdge; 3],
        max_lod: 1000.0,
        ..Sampler::default()
    }
}

fn texel(res: &ImageResource, x: u32, y: u32) -> [f32; 4] {
    res.read()
        .read_texel_f32(0, 0, [x, y, 0])
        .expect("in range")
}

/// `test_shader_sm66_quad_op_semantics`, tests/d3d12_sm_advanced.c:620. Input texel (x, y)
/// is `1 + 16y + x` (l.707); output `(v, QuadReadAcrossX, AcrossY, AcrossDiagonal)`: 2D quads
/// for 8×8 groups, 1D quads of `GroupThreadID.x` for 8×9 (l.755-766); dispatch 2×2 (l.665-667).
fn quad_swap(rel: &str, two_d: bool) {
    let Some(sh) = shader(rel) else { return };
    let mut input = image_2d("R32_SFLOAT", 16, 16, 1);
    let data: Vec<[f32; 4]> = (0..256)
        .map(|i| {
            [
                1.0 + 16.0 * (i / 16) as f32 + (i % 16) as f32,
                0.0,
                0.0,
                1.0,
            ]
        })
        .collect();
    input.upload_f32(0, &data).expect("upload");
    let (out, res) = storage(image_2d("R32G32B32A32_SFLOAT", 16, 16, 1));
    let mut sets = DescriptorSets::new();
    sets.bind_register(RegisterClass::T, 0, 0, sampled(input))
        .bind_register(RegisterClass::U, 0, 0, out);
    dispatch(&sh, [2, 2, 1], &sets, sh.config()).expect("runs");
    let v = |x: u32, y: u32| 1.0 + y as f32 * 16.0 + x as f32;
    for y in 0..16 {
        for x in 0..16 {
            let want = if two_d {
                [v(x, y), v(x ^ 1, y), v(x, y ^ 1), v(x ^ 1, y ^ 1)]
            } else {
                [v(x, y), v(x ^ 1, y), v(x ^ 2, y), v(x ^ 3, y)]
            };
            assert_eq!(texel(&res, x, y), want, "{rel} at ({x}, {y})");
        }
    }
}

#[test]
fn cs_quad_swap_2d_sm66() {
    quad_swap("sm_advanced/cs_quad_swap_2d_sm66.dxil", true);
}

#[test]
fn cs_quad_swap_2d_unaligned() {
    quad_swap("sm_advanced/cs_quad_swap_2d_unaligned.dxil", false);
}

/// `test_shader_sm66_compute_derivatives`, tests/d3d12_sm_advanced.c:310. A 128² R8_UNORM
/// texture of 8 mips, mip i filled with i + 1 (l.397-409), a point sampler (l.376-384);
/// expected at every texel of the 16×16 output: `(3, 1/32, 1/32, 2)` (l.457-462).
fn derivatives(rel: &str, groups: [u32; 3]) {
    let Some(sh) = shader(rel) else { return };
    let mut input = image_2d("R8_UNORM", 128, 128, 8);
    for i in 0..8u32 {
        let w = 128 >> i;
        input
            .upload_bytes(i, &vec![(i + 1) as u8; (w * w) as usize])
            .expect("upload");
    }
    let (out, res) = storage(image_2d("R32G32B32A32_SFLOAT", 16, 16, 1));
    let mut sets = DescriptorSets::new();
    sets.bind_register(RegisterClass::T, 0, 0, sampled(input))
        .bind_register(RegisterClass::U, 0, 0, out)
        .bind_register(RegisterClass::S, 0, 0, Descriptor::Sampler(point_clamp()));
    dispatch(&sh, groups, &sets, sh.config()).expect("runs");
    for y in 0..16 {
        for x in 0..16 {
            assert_eq!(
                texel(&res, x, y),
                [3.0, 1.0 / 32.0, 1.0 / 32.0, 2.0],
                "{rel} at ({x}, {y})"
            );
        }
    }
}

// dispatch sizes: tests/d3d12_sm_advanced.c:341-343
#[test]
fn cs_derivative_1d() {
    derivatives("sm_advanced/cs_derivative_1d.dxil", [4, 1, 1]);
}

#[test]
fn cs_derivative_2d_aligned() {
    derivatives("sm_advanced/cs_derivative_2d_aligned.dxil", [2, 2, 1]);
}

#[test]
fn cs_derivative_2d_unaligned() {
    derivatives("sm_advanced/cs_derivative_2d_unaligned.dxil", [2, 2, 1]);
}

/// `test_sm67_sample_cmp_level`, tests/d3d12_sm_advanced.c:3049. An 8×8 R32 depth texture of
/// 4 mips cleared to 0.25·(i+1) (l.3134-3146), COMPARISON_MIN_MAG_MIP_POINT with LESS_EQUAL and
/// clamp (l.3101-3107); at (x, y): mip = 1/16 + 4y/8 rounded and clamped to 3, reference
/// x/8, expected `ref <= 0.25·(mip+1) ? 1 : 0` (l.3172-3186).
#[test]
fn cs_sample_cmp_level() {
    let Some(sh) = shader("sm_advanced/cs_sample_cmp_level.dxil") else {
        return;
    };
    let mut depth = image_2d("D32_SFLOAT", 8, 8, 4);
    for i in 0..4u32 {
        let w = 8 >> i;
        let v = 0.25 * (i + 1) as f32;
        depth
            .upload_f32(i, &vec![[v, 0.0, 0.0, 1.0]; (w * w) as usize])
            .expect("upload");
    }
    let (out, res) = storage(image_2d("R32_SFLOAT", 8, 8, 1));
    let cmp = Sampler {
        compare_enable: true,
        compare_op: CompareOp::LessOrEqual,
        ..point_clamp()
    };
    let mut sets = DescriptorSets::new();
    sets.bind_register(RegisterClass::T, 0, 0, sampled(depth))
        .bind_register(RegisterClass::U, 0, 0, out)
        .bind_register(RegisterClass::S, 0, 0, Descriptor::Sampler(cmp));
    dispatch(&sh, [1, 1, 1], &sets, sh.config()).expect("runs");
    for y in 0..8 {
        for x in 0..8 {
            let mip = 1.0f32 / 16.0 + 4.0 * y as f32 / 8.0;
            let int_mip = ((mip + 0.5) as i32).min(3);
            let r = x as f32 / 8.0;
            let want = if r <= 0.25 * (int_mip + 1) as f32 {
                1.0
            } else {
                0.0
            };
            assert_eq!(texel(&res, x, y)[0], want, "at ({x}, {y})");
        }
    }
}

/// `test_sm68_sample_cmp_bias_grad`, tests/d3d12_sm_advanced.c:4455, with
/// `vs_sample_cmp_grad_bias` and `ps_sample_cmp_grad_bias`: a 16×16 R32 depth texture of 5
/// mips cleared to 0.95, 0.75, 0.55, 0.35, 0.15 (l.4526), COMPARISON_MIN_MAG_LINEAR_MIP_POINT,
/// GREATER_EQUAL, clamp, MinLOD 0, MaxLOD 16 (l.4572-4581); root constants
/// `{grad.xy, bias, min_lod, dref}` as b0; one triangle over a 16×16 R32G32B32A32 target
/// cleared to -1; pixel (0, 0) read back. The 14 rows and the comparisons (exact for the two
/// samples, within 0.5 for the two LODs) are the C test's (l.4499-4523, l.4671-4678).
#[test]
fn ps_sample_cmp_grad_bias() {
    let (Some(vs), Some(ps)) = (
        shader("sm_advanced/vs_sample_cmp_grad_bias.dxil"),
        shader("sm_advanced/ps_sample_cmp_grad_bias.dxil"),
    ) else {
        return;
    };
    #[rustfmt::skip]
    let rows: [([f32; 5], [f32; 4]); 14] = [
        ([1.0 / 16.0, 1.0 / 16.0, 0.0, 0.0, 1.0], [1.0, 1.0, 0.0, 0.0]),
        ([1.0 / 16.0, 1.0 / 16.0, 0.0, 0.0, 0.9], [0.0, 0.0, 0.0, 0.0]),
        ([1.0 / 16.0, 1.0 / 16.0, 0.0, 1.0, 0.8], [1.0, 1.0, 0.0, 0.0]),
        ([1.0 / 16.0, 1.0 / 16.0, 0.0, 1.0, 0.7], [0.0, 0.0, 0.0, 0.0]),
        ([1.0 / 16.0, 1.0 / 16.0, 0.0, 2.8, 0.4], [1.0, 1.0, 0.0, 0.0]),
        ([1.0 / 16.0, 1.0 / 16.0, 0.0, 2.8, 0.3], [0.0, 0.0, 0.0, 0.0]),
        ([1.0 / 8.0, 1.0 / 8.0, 1.0, 0.0, 0.8], [1.0, 1.0, 1.0, 1.0]),
        ([1.0 / 8.0, 1.0 / 8.0, 1.0, 0.0, 0.7], [0.0, 0.0, 1.0, 1.0]),
        ([-1.0 / 8.0, 0.0, 0.8, 0.0, 0.8], [1.0, 1.0, 1.0, 1.0]),
        ([1.0 / 8.0, 0.0, 1.2, 0.0, 0.7], [0.0, 0.0, 1.0, 1.0]),
        ([0.0, 1.0 / 8.0, 1.0, 0.0, 0.8], [1.0, 1.0, 1.0, 1.0]),
        ([0.0, 1.0 / 8.0, 1.0, 0.0, 0.7], [0.0, 0.0, 1.0, 1.0]),
        ([2.0, 2.0, 5.1, 0.0, 0.2], [1.0, 1.0, 4.0, 5.1]),
        ([1.0 / 32.0, 1.0 / 32.0, -1.2, 0.0, 0.9], [0.0, 0.0, 0.0, -1.2]),
    ];
    let mut depth = image_2d("D32_SFLOAT", 16, 16, 5);
    for (i, v) in [0.95f32, 0.75, 0.55, 0.35, 0.15].into_iter().enumerate() {
        let w = 16 >> i;
        depth
            .upload_f32(i as u32, &vec![[v, 0.0, 0.0, 1.0]; w * w])
            .expect("upload");
    }
    let depth = sampled(depth);
    let cmp = Sampler {
        mag_filter: Filter::Linear,
        min_filter: Filter::Linear,
        mipmap_mode: MipmapMode::Nearest,
        address_mode: [AddressMode::ClampToEdge; 3],
        compare_enable: true,
        compare_op: CompareOp::GreaterOrEqual,
        min_lod: 0.0,
        max_lod: 16.0,
        ..Sampler::default()
    };
    let raster = Rasterizer::new(1).expect("rasterizer");
    for (i, (args, want)) in rows.iter().enumerate() {
        let bytes: Vec<u8> = args.iter().flat_map(|v| v.to_le_bytes()).collect();
        let mut sets = DescriptorSets::new();
        sets.bind_register(RegisterClass::T, 0, 0, depth.clone())
            .bind_register(RegisterClass::S, 0, 0, Descriptor::Sampler(cmp))
            .bind_register(
                RegisterClass::B,
                0,
                0,
                Descriptor::Buffer(Arc::new(Buffer::from_bytes(&bytes))),
            );
        let vstage = BoundStage::new(&vs, &sets, vs.config()).expect("vertex stage");
        let fstage = BoundStage::new(&ps, &sets, ps.config()).expect("fragment stage");
        let pipeline = GraphicsPipeline {
            state: PipelineState::default(),
            vertex: &vstage,
            fragment: &fstage,
            stages: Default::default(),
        };
        let mut color = ColorTarget::new(ColorFormat::R32G32B32A32Sfloat, 16, 16);
        color.clear_f32([-1.0; 4]);
        let mut targets = RenderTargets {
            color: vec![color],
            depth_stencil: None,
        };
        {
            let mut pass = raster.begin(&mut targets);
            pass.bind_pipeline(&pipeline);
            pass.draw(3, 1, 0, 0).expect("draws");
        }
        let got = targets.color[0].read_f32(0, 0);
        assert_eq!(got[0], want[0], "row {i}: SampleCmpBias, args {args:?}");
        assert_eq!(got[1], want[1], "row {i}: SampleCmpGrad, args {args:?}");
        assert!(
            abs_diff_eq!(got[2], want[2], epsilon = 0.5),
            "row {i}: LOD {got:?}, want {want:?}"
        );
        assert!(
            abs_diff_eq!(got[3], want[3], epsilon = 0.5),
            "row {i}: unclamped LOD {got:?}, want {want:?}"
        );
    }
}
