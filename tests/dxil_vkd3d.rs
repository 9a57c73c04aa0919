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

use quadstep::front::dxil::lower::{heap_binding, COUNTER_BINDING};
use quadstep::front::dxil::shader::{ResourceClass, ResourceKind};
use quadstep::ir::RegisterClass;
use quadstep::pipeline::Shader;
use quadstep::raster::ColorTarget;
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

/// Draws three vertices (no vertex buffers) with `vs` and `ps` into `color`, and returns it.
fn draw3(
    raster: &Rasterizer,
    vs: &Shader,
    ps: &Shader,
    sets: &DescriptorSets,
    color: ColorTarget,
) -> ColorTarget {
    let vstage = BoundStage::new(vs, sets, vs.config()).expect("vertex stage");
    let fstage = BoundStage::new(ps, sets, ps.config()).expect("fragment stage");
    let pipeline = GraphicsPipeline {
        state: PipelineState::default(),
        vertex: &vstage,
        fragment: &fstage,
        stages: Default::default(),
    };
    let mut targets = RenderTargets {
        color: vec![color],
        depth_stencil: None,
    };
    {
        let mut pass = raster.begin(&mut targets);
        pass.bind_pipeline(&pipeline);
        pass.draw(3, 1, 0, 0).expect("draws");
    }
    targets.color.remove(0)
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
        let mut color = ColorTarget::new(Format::R32G32B32A32_SFLOAT, 16, 16);
        color.clear_f32([-1.0; 4]);
        let got = draw3(&raster, &vs, &ps, &sets, color).read_f32(0, 0);
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

/// Runs a compute container with the C tests' two root descriptors — a raw SRV `t0` holding
/// `input` and a raw UAV `u0` of `out_words` zero words — and returns `u0`'s words.
fn root_buffers(sh: &Shader, input: &[u32], out_words: usize, groups: [u32; 3]) -> Vec<u32> {
    let out = Arc::new(Buffer::new(out_words * 4));
    let mut sets = DescriptorSets::new();
    sets.bind_register(
        RegisterClass::T,
        0,
        0,
        Descriptor::Buffer(Arc::new(Buffer::from_u32s(input))),
    )
    .bind_register(RegisterClass::U, 0, 0, Descriptor::Buffer(out.clone()));
    dispatch(sh, groups, &sets, sh.config()).expect("runs");
    out.to_u32s()
}

/// `test_shader_sm65_wave_intrinsics`, tests/d3d12_sm_advanced.c:1801, its `WaveMatch` row
/// (l.1846-1848): each of the 16 lanes gets the mask of the lanes holding its value.
#[test]
fn cs_wave_match() {
    let Some(sh) = shader("sm_advanced/cs_wave_match.dxil") else {
        return;
    };
    let input = [
        20, 50, 80, 100, 40, 20, 90, 20, 10, 0, 20, 50, 80, 90, 110, 120,
    ];
    let want = [
        0x4a1, 0x802, 0x1004, 0x8, 0x10, 0x4a1, 0x2040, 0x4a1, 0x100, 0x200, 0x4a1, 0x802, 0x1004,
        0x2040, 0x4000, 0x8000,
    ];
    assert_eq!(root_buffers(&sh, &input, 16, [1, 1, 1]), want);
}

/// `test_shader_sm65_wave_intrinsics`, tests/d3d12_sm_advanced.c:1801, its five
/// `WaveMultiPrefix*` rows (l.1850-1906): sum, product, count of bits, and, or, xor of
/// `lane + 1` over the lanes below each one in its partition mask, 16 outputs each (rows the
/// C table leaves short are zero-filled, as C does).
#[test]
fn cs_wave_multi_prefix() {
    let Some(sh) = shader("sm_advanced/cs_wave_multi_prefix.dxil") else {
        return;
    };
    const ALL: u32 = !0;
    let same_group: [&[u32]; 6] = [
        &[
            0, 0x1, 0x3, 0x6, 0xa, 0xf, 0x15, 0x1c, 0x24, 0x2d, 0x37, 0x42, 0x4e, 0x5b, 0x69, 0x78,
        ],
        &[
            0x1, 0x1, 0x2, 0x6, 0x18, 0x78, 0x2d0, 0x13b0, 0x9d80, 0x58980, 0x375f00, 0x2611500,
            0x1c8cfc00, 0x7328cc00, 0x4c3b2800, 0x77775800,
        ],
        &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
        &[ALL, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        &[
            0, 1, 3, 3, 7, 7, 7, 7, 0xf, 0xf, 0xf, 0xf, 0xf, 0xf, 0xf, 0xf,
        ],
        &[0, 1, 3, 0, 4, 1, 7, 0, 8, 1, 0xb, 0, 0xc, 0x1, 0xf, 0],
    ];
    let partitioned: [&[u32]; 6] = [
        &[0, 0, 0, 0, 0, 1, 0, 7, 0, 0, 0xf, 2, 3, 7],
        &[1, 1, 1, 1, 1, 1, 1, 6, 1, 1, 0x30, 0x2, 0x3, 0x7, 0x1, 0x1],
        &[0, 0, 0, 0, 0, 1, 0, 2, 0, 0, 3, 1, 0, 1],
        &[
            ALL, ALL, ALL, ALL, ALL, 1, ALL, 0, ALL, ALL, 0, 2, 3, 7, ALL, ALL,
        ],
        &[0, 0, 0, 0, 0, 1, 0, 7, 0, 0, 0xf, 0x2, 0x3, 0x7],
        &[0, 0, 0, 0, 0, 1, 0, 7, 0, 0, 0xf, 0x2, 0x3, 0x7],
    ];
    let cases: [([u32; 16], [&[u32]; 6]); 5] = [
        (
            std::array::from_fn(|i| 1 << i),
            [&[0; 16], &[1; 16], &[0; 16], &[ALL; 16], &[0; 16], &[0; 16]],
        ),
        ([ALL; 16], same_group),
        (
            [
                ALL, ALL, ALL, 0xffff, ALL, 0x1ffff, ALL, ALL, ALL, 0x8000ffff, ALL, ALL, ALL, ALL,
                ALL, ALL,
            ],
            same_group,
        ),
        (
            [
                0x4a1, 0x802, 0x1004, 0x8, 0x10, 0x4a1, 0x2040, 0x4a1, 0x100, 0x200, 0x4a1, 0x802,
                0x1004, 0x2040, 0x4000, 0x8000,
            ],
            partitioned,
        ),
        (
            [
                0x4a1, 0x800802, 0x1004, 0x8, 0x10, 0x4a1, 0x8002040, 0x4a1, 0x100, 0x200, 0x4a1,
                0x802, 0x1004, 0x2040, 0x4000, 0x8000,
            ],
            partitioned,
        ),
    ];
    for (i, (input, rows)) in cases.iter().enumerate() {
        let got = root_buffers(&sh, input, 6 * 16, [1, 1, 1]);
        for (k, row) in rows.iter().enumerate() {
            let mut want = [0u32; 16];
            want[..row.len()].copy_from_slice(row);
            assert_eq!(got[k * 16..k * 16 + 16], want, "case {i}, op {k}");
        }
    }
}

/// `test_quad_vote_sm67_compute`, tests/d3d12_sm_advanced.c:2735: `QuadAny`/`QuadAll` of
/// `v & 2` over a quad of four threads, outside and inside a branch on `v & 1` (l.2751-2809;
/// 1000 marks "0 or 1", the C test's `ONE_OR_ZERO`).
#[test]
fn cs_quad_vote() {
    let Some(sh) = shader("sm_advanced/cs_quad_vote.dxil") else {
        return;
    };
    const EITHER: u32 = 1000;
    const NONE: u32 = !0;
    let cases: [([u32; 4], [[u32; 4]; 4]); 5] = [
        ([1, 1, 1, 1], [[0, 0, 0, 0]; 4]),
        ([3, 1, 1, 1], [[1, 0, 1, 0]; 4]),
        ([3, 3, 3, 3], [[1, 1, 1, 1]; 4]),
        (
            [3, 3, 3, 0],
            [
                [1, 0, 1, EITHER],
                [1, 0, 1, EITHER],
                [1, 0, 1, EITHER],
                [1, 0, NONE, NONE],
            ],
        ),
        (
            [1, 1, 1, 2],
            [
                [1, 0, EITHER, 0],
                [1, 0, EITHER, 0],
                [1, 0, EITHER, 0],
                [1, 0, NONE, NONE],
            ],
        ),
    ];
    for (i, (input, want)) in cases.iter().enumerate() {
        let got = root_buffers(&sh, input, 16, [1, 1, 1]);
        for (j, row) in want.iter().enumerate() {
            for (k, &w) in row.iter().enumerate() {
                let v = got[j * 4 + k];
                if w == EITHER {
                    assert!(v <= 1, "case {i} ({j}, {k}): {v}, want 0 or 1");
                } else {
                    assert_eq!(v, w, "case {i} ({j}, {k})");
                }
            }
        }
    }
}

/// `test_shader_sm66_wave_size`, tests/d3d12_sm_advanced.c:491, the one wave size quadstep
/// runs (16): 128 threads of 100 give the prefix sum `100 · (i & 15)` and the lane count 16
/// (l.578-606).
#[test]
fn cs_wave_size_wave16() {
    let Some(sh) = shader("sm_advanced/cs_wave_size_wave16.dxil") else {
        return;
    };
    let got = root_buffers(&sh, &[100; 128], 256, [1, 1, 1]);
    for j in 0..128u32 {
        assert_eq!(got[j as usize], 100 * (j & 15), "prefix sum {j}");
        assert_eq!(got[j as usize + 128], 16, "lane count {j}");
    }
}

/// `test_shader_sm64_packed`, tests/d3d12_sm_advanced.c:1394: `dot4add_u8packed`,
/// `dot4add_i8packed` and `dot2add` on `{a, b, acc}`, the C table's rows (l.1419-1441).
fn packed_dot(rel: &str, rows: &[([u32; 3], u32)]) {
    let Some(sh) = shader(rel) else { return };
    for (input, want) in rows {
        let got = root_buffers(&sh, input, 3, [1, 1, 1]);
        assert_eq!(got[0], *want, "{rel}, {input:x?}: {:#x}", got[0]);
    }
}

#[test]
fn cs_packed_u8dot() {
    packed_dot(
        "sm_advanced/cs_packed_u8dot.dxil",
        &[
            (
                [0x010203ff, 0x05ff0708, 1000],
                1000 + 5 + 2 * 255 + 3 * 7 + 255 * 8,
            ),
            ([0x01010101, 0x01010101, 0xffffffff], 0x3),
        ],
    );
}

#[test]
fn cs_packed_i8dot() {
    packed_dot(
        "sm_advanced/cs_packed_i8dot.dxil",
        &[
            ([0x010203ff, 0x05ff0708, 1000], 1000 + 5 - 2 + 3 * 7 - 8),
            ([0x01010101, 0x01010101, 0x7fffffff], 0x80000003),
            ([0x01010101, 0x01010101, 0xffffffff], 0x00000003),
            ([0xffffffff, 0x01010101, 0x80000003], 0x7fffffff),
            ([0xffffffff, 0x01010101, 0x3], 0xffffffff),
        ],
    );
}

#[test]
fn cs_packed_dot2add() {
    let e = |x: u32| (15 + x) << 10; // FP16_EXP2
    packed_dot(
        "sm_advanced/cs_packed_dot2add.dxil",
        &[
            ([e(0), e(0), 0x3f800000], 0x40000000),
            (
                [e(0) | (e(1) << 16), e(2) | (e(3) << 16), 0x3f800000],
                0x41a80000,
            ),
            ([e(0), e(15), 0x3f800000], 0x47000100),
            ([e(0), e(16), 0x3f800000], 0x7f800000),
            ([e(0) * 0x10001, e(15) * 0x10001, 0x3f800000], 0x47800080),
            ([e(0) * 0x10001, 0x3c00 * 0x10001, 0x4b800000], 0x4b800001),
        ],
    );
}

/// `test_instruction_msad`, tests/d3d12_shaders.c:14767: `msad4(reference, source.xy,
/// accum.xxxx)` on six `{reference[4], source[8], accum}` records, one thread each
/// (l.14779-14799).
#[test]
fn cs_msad() {
    let Some(sh) = shader("shaders/cs_msad.dxil") else {
        return;
    };
    /// `{reference, source, accum}` and the expected `uint4`.
    type Record = ([u8; 4], [u8; 8], u32, [u32; 4]);
    #[rustfmt::skip]
    let records: [Record; 6] = [
        ([0, 1, 2, 3], [4, 5, 6, 7, 8, 9, 10, 11], 10, [22, 25, 28, 31]),
        ([0, 1, 2, 3], [4, 5, 6, 7, 8, 9, 10, 11], 0xffffffff, [11, 14, 17, 20]),
        ([0, 0, 0, 0], [0xff; 8], 123, [123, 123, 123, 123]),
        ([0xff; 4], [0; 8], 123, [1143, 1143, 1143, 1143]),
        ([0xff; 4], [1, 2, 3, 0x80, 6, 7, 8, 9], 8000, [8886, 8881, 8876, 8871]),
        ([0xab, 0x13, 0x25, 0xbc], [0xaa, 0x2, 0x7, 0x9, 0x30, 0x50, 0x80, 0x34], 0x1234,
         [4887, 5009, 4953, 4954]),
    ];
    let word = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    let input: Vec<u32> = records
        .iter()
        .flat_map(|(r, s, acc, _)| [word(r), word(&s[..4]), word(&s[4..]), *acc])
        .collect();
    let got = root_buffers(&sh, &input, 24, [6, 1, 1]);
    for (i, (.., want)) in records.iter().enumerate() {
        assert_eq!(got[i * 4..i * 4 + 4], want[..], "record {i}");
    }
}

/// `test_sm67_raw_gather`, tests/d3d12_sm_advanced.c:3387: a 2×2 texture of `format` filled
/// with `texels` (tightly packed, as the C rows' pitches are), a point/wrap static sampler,
/// one thread gathering at (0.5, 0.5) into a raw UAV; `want` are the C table's output words
/// (l.3426-3528) that do not depend on the view's component mapping, which quadstep's views
/// do not have (the identity mapping's words; `None` words are skipped).
fn raw_gather(rel: &str, format_name: &str, texels: &[u32], want: &[Option<u32>]) {
    let Some(sh) = shader(rel) else { return };
    let mut img = image_2d(format_name, 2, 2, 1);
    let bytes: Vec<u8> = texels.iter().flat_map(|t| t.to_le_bytes()).collect();
    img.upload_bytes(0, &bytes).expect("upload");
    let out = Arc::new(Buffer::new(80));
    let wrap = Sampler {
        address_mode: [AddressMode::Repeat; 3],
        ..Sampler::default()
    };
    let mut sets = DescriptorSets::new();
    sets.bind_register(RegisterClass::T, 0, 0, sampled(img))
        .bind_register(RegisterClass::S, 0, 0, Descriptor::Sampler(wrap))
        .bind_register(RegisterClass::U, 0, 0, Descriptor::Buffer(out.clone()));
    dispatch(&sh, [1, 1, 1], &sets, sh.config()).expect("runs");
    let got = out.to_u32s();
    for (j, w) in want.iter().enumerate() {
        if let Some(w) = w {
            assert_eq!(got[j], *w, "{rel} ({format_name}), word {j}: {:#x}", got[j]);
        }
    }
}

// Texels (x, y) are (0, 0), (1, 0), (0, 1), (1, 1); a gather at the centre returns them in
// the order (0, 1), (1, 1), (1, 0), (0, 0).
#[test]
fn cs_raw_gather_16() {
    // C row 0: R16_UINT; raw and red gathers, green (0 in both mappings); blue and alpha are
    // the mapping's constant 1 and red there
    let pair = |a: u32, b: u32| Some(a | (b << 16));
    raw_gather(
        "sm_advanced/cs_raw_gather_16.dxil",
        "R16_UINT",
        &[1000 | (1001 << 16), 1002 | (1003 << 16)],
        &[
            pair(1002, 1003),
            pair(1001, 1000),
            pair(1002, 1003),
            pair(1001, 1000),
            Some(0),
            Some(0),
        ],
    );
}

#[test]
fn cs_raw_gather_32() {
    // C row 1: R32_UINT, as above
    let w: Vec<Option<u32>> = [1002, 1003, 1001, 1000, 1002, 1003, 1001, 1000, 0, 0, 0, 0]
        .into_iter()
        .map(Some)
        .collect();
    raw_gather(
        "sm_advanced/cs_raw_gather_32.dxil",
        "R32_UINT",
        &[1000, 1001, 1002, 1003],
        &w,
    );
    // C row 6: an R8G8B8A8_UINT view with the default mapping gathers red bytes, all rows
    let w: Vec<Option<u32>> = [
        0x03, 0x04, 0x02, 0x01, 0x03, 0x04, 0x02, 0x01, 0x12, 0x13, 0x11, 0x10, 0, 0, 0, 0, 0, 0,
        0, 0,
    ]
    .into_iter()
    .map(Some)
    .collect();
    raw_gather(
        "sm_advanced/cs_raw_gather_32.dxil",
        "R8G8B8A8_UINT",
        &[0x1001, 0x1102, 0x1203, 0x1304],
        &w,
    );
}

#[test]
fn cs_raw_gather_64() {
    // C row 2: R32G32_UINT, red | green << 32 (the identity mapping on R and G)
    let w: Vec<Option<u32>> = [1004, 1005, 1006, 1007, 1002, 1003, 1000, 1001]
        .into_iter()
        .map(Some)
        .collect();
    raw_gather(
        "sm_advanced/cs_raw_gather_64.dxil",
        "R32G32_UINT",
        &[1000, 1001, 1002, 1003, 1004, 1005, 1006, 1007],
        &w,
    );
}

/// `test_sm67_dynamic_texture_offset`, tests/d3d12_sm_advanced.c:3205: `SampleLevel` with
/// offsets read from a buffer, on a 16×16 R8_UNORM texture of 4 mips, POINT/POINT/LINEAR-mip
/// wrap sampler; each offset component is its low 4 bits sign-extended and applied per level
/// (the C test's reference, l.3339-3375, within 1.1/255). The C test fills the texture from
/// `rand()`; the reference is a formula over whatever bytes it holds, so any bytes do.
#[test]
fn cs_dynamic_texture_offset() {
    let Some(sh) = shader("sm_advanced/cs_dynamic_texture_offset.dxil") else {
        return;
    };
    let mut rng = fastrand::Rng::with_seed(1234);
    let levels: Vec<Vec<u8>> = (0..4)
        .map(|_| (0..256).map(|_| rng.u8(..)).collect())
        .collect();
    let mut img = image_2d("R8_UNORM", 16, 16, 4);
    for (i, l) in levels.iter().enumerate() {
        let w = 16usize >> i;
        img.upload_bytes(i as u32, &l[..w * w]).expect("upload");
    }
    let inputs: [(f32, f32, f32, i32, i32); 4] = [
        (0.01, 0.01, 0.5, 9, -13),
        (0.51, 0.01, 0.75, 9, -13),
        (0.21, -0.01, 1.5, 3, -13),
        (0.01, 0.51, 1.75, 0, -4),
    ];
    let words: Vec<u32> = inputs
        .iter()
        .flat_map(|&(u, v, mip, ox, oy)| {
            [
                u.to_bits(),
                v.to_bits(),
                mip.to_bits(),
                ox as u32,
                oy as u32,
            ]
        })
        .collect();
    let out = Arc::new(Buffer::new(16));
    let sampler = Sampler {
        mipmap_mode: MipmapMode::Linear,
        address_mode: [AddressMode::Repeat; 3],
        max_lod: 1000.0,
        ..Sampler::default()
    };
    let mut sets = DescriptorSets::new();
    sets.bind_register(RegisterClass::T, 0, 0, sampled(img))
        .bind_register(RegisterClass::S, 0, 0, Descriptor::Sampler(sampler))
        .bind_register(
            RegisterClass::T,
            1,
            0,
            Descriptor::Buffer(Arc::new(Buffer::from_u32s(&words))),
        )
        .bind_register(RegisterClass::U, 1, 0, Descriptor::Buffer(out.clone()));
    dispatch(&sh, [4, 1, 1], &sets, sh.config()).expect("runs");
    let got = out.to_u32s();
    let sext4 = |x: i32| (x << 28) >> 28;
    for (i, &(u, v, mip, ox, oy)) in inputs.iter().enumerate() {
        let lo = mip as i32;
        let hi = (lo + 1).min(3);
        let frac = mip - lo as f32;
        let at = |level: i32| {
            let size = 16i32 >> level;
            let x = ((u * size as f32).floor() as i32 + sext4(ox)) & (size - 1);
            let y = ((v * size as f32).floor() as i32 + sext4(oy)) & (size - 1);
            levels[level as usize][(y * size + x) as usize] as f32 / 255.0
        };
        let want = at(lo) * (1.0 - frac) + at(hi) * frac;
        let v = f32::from_bits(got[i]);
        assert!(
            approx::abs_diff_eq!(want, v, epsilon = 1.1 / 255.0),
            "coord {i}: got {v}, want {want}"
        );
    }
}

/// `test_view_instancing`, tests/d3d12_pso.c:3171, its first draw (l.3432-3452): with view
/// instancing off, `vs_view_id_passthrough` hands `SV_ViewID` to `ps_view_id_passthrough`,
/// which writes it to a 32×32 R32_UINT target cleared to 65535; every pixel reads 0.
#[test]
fn vs_ps_view_id_passthrough() {
    let (Some(vs), Some(ps)) = (
        shader("pso/vs_view_id_passthrough.dxil"),
        shader("pso/ps_view_id_passthrough.dxil"),
    ) else {
        return;
    };
    let mut color = ColorTarget::new(Format::R32_UINT, 32, 32);
    color.clear_f32([65535.0, 0.0, 0.0, 0.0]);
    assert_ne!(color.read_raw(0, 0)[0], 0, "the clear value");
    let raster = Rasterizer::new(1).expect("rasterizer");
    let got = draw3(&raster, &vs, &ps, &DescriptorSets::new(), color);
    for y in 0..32 {
        for x in 0..32 {
            assert_eq!(got.read_raw(x, y)[0], 0, "({x}, {y})");
        }
    }
}

/// `test_bindless_heap_sm66_uav_counter`, tests/d3d12_bindless.c:23: four
/// `RWStructuredBuffer<uint>` UAVs with counters in the resource heap; dispatch `counts[i]`
/// groups with root constant `i`, each group adding 3 to element 0 of heap UAV `i` and
/// incrementing its counter: UAV `i` ends at `3 · counts[i]`, its counter at `counts[i]`
/// (l.83-90). The C test places the four views and counters in one buffer; here each is its
/// own buffer, in the heap binding of its kind (README, "DXIL").
#[test]
fn bindless_heap_sm66_uav_counter() {
    let Some(sh) = shader("bindless/bindless_heap_sm66_uav_counter.dxil") else {
        return;
    };
    let counts = [129u32, 234, 22, 31];
    let uavs: Vec<Arc<Buffer>> = (0..4).map(|_| Arc::new(Buffer::new(4))).collect();
    let counters: Vec<Arc<Buffer>> = (0..4).map(|_| Arc::new(Buffer::new(4))).collect();
    let heap = |bufs: &[Arc<Buffer>]| -> Vec<Descriptor> {
        bufs.iter().map(|b| Descriptor::Buffer(b.clone())).collect()
    };
    let (set, binding) = heap_binding(ResourceClass::Uav, ResourceKind::StructuredBuffer)
        .expect("a heap binding for UAV buffers");
    for (i, &n) in counts.iter().enumerate() {
        let index = Arc::new(Buffer::from_u32s(&[i as u32]));
        let mut sets = DescriptorSets::new();
        sets.bind_array(set, binding, heap(&uavs))
            .bind_array(set, binding | COUNTER_BINDING, heap(&counters))
            .bind_register(RegisterClass::B, 0, 0, Descriptor::Buffer(index));
        dispatch(&sh, [n, 1, 1], &sets, sh.config()).expect("runs");
    }
    for (i, &n) in counts.iter().enumerate() {
        assert_eq!(uavs[i].to_u32s()[0], 3 * n, "UAV {i}");
        assert_eq!(counters[i].to_u32s()[0], n, "counter {i}");
    }
}

/// `test_vrs_dxil`, tests/d3d12_vrs.c:115, its row of a 1×1 base rate with both combiners
/// `PASSTHROUGH` (l.145): the 1×2 rate `vrs_vs` writes is not combined in, so `vrs_ps` sees
/// `SV_ShadingRate` 1×1 (0) and writes 0 over the whole 32×32 R8G8B8A8_UNORM target (cleared
/// to 1 here, to see the draw).
#[test]
fn vs_ps_vrs_passthrough() {
    let (Some(vs), Some(ps)) = (shader("vrs/vrs_vs.dxil"), shader("vrs/vrs_ps.dxil")) else {
        return;
    };
    let mut color = ColorTarget::new(Format::R8G8B8A8_UNORM, 32, 32);
    color.clear_f32([1.0; 4]);
    let raster = Rasterizer::new(1).expect("rasterizer");
    let got = draw3(&raster, &vs, &ps, &DescriptorSets::new(), color);
    for y in 0..32 {
        for x in 0..32 {
            assert_eq!(got.read_f32(x, y), [0.0; 4], "({x}, {y})");
        }
    }
}
