//! Per-fragment operations: depth compare ops and writes, depth bounds, depth bias, early and
//! late tests with discard and FragDepth, stencil ops on both faces, every blend factor and
//! op, write masks, integer attachments, vertex fetch paths, and thread-count determinism.
#![allow(clippy::needless_range_loop)]

mod raster_support;

use approx::abs_diff_eq;
use quadstep::raster::*;
use quadstep::Result;
use raster_support::*;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A screen-covering triangle at window depth z, varying 0 = `c`.
fn fullscreen(z: f32, c: [f32; 4]) -> Vec<[f32; 4]> {
    vec![
        [-1.0, -1.0, z, 1.0],
        c,
        [3.0, -1.0, z, 1.0],
        c,
        [-1.0, 3.0, z, 1.0],
        c,
    ]
}

#[test]
fn depth_compare_ops_and_writes() {
    use CompareOp::*;
    // reference 0.25 / 0.5 / 0.75 against a stored 0.5: does it pass? (by hand from the spec)
    let table = [
        (Never, [false, false, false]),
        (Less, [true, false, false]),
        (Equal, [false, true, false]),
        (LessOrEqual, [true, true, false]),
        (Greater, [false, false, true]),
        (NotEqual, [true, false, true]),
        (GreaterOrEqual, [false, true, true]),
        (Always, [true, true, true]),
    ];
    for fmt in [
        Format::D32_SFLOAT,
        Format::D16_UNORM,
        Format::D24_UNORM_S8_UINT,
        Format::D32_SFLOAT_S8_UINT,
    ] {
        for (op, want) in table {
            for (k, z) in [0.25f32, 0.5, 0.75].into_iter().enumerate() {
                for write in [false, true] {
                    let mut st = state_vec4s(2);
                    st.depth_stencil.depth_test = true;
                    st.depth_stencil.depth_write = write;
                    st.depth_stencil.depth_compare = op;
                    let mut rt = targets(4, 4, Some(fmt));
                    rt.depth_stencil.as_mut().unwrap().clear(0.5, 0);
                    run_draw(
                        &st,
                        &fullscreen(z, [1.0; 4]),
                        2,
                        &fs_varying0(Interpolation::Smooth),
                        &mut rt,
                        1,
                    )
                    .unwrap();
                    let ds = rt.depth_stencil.as_ref().unwrap();
                    for (x, y) in [(0, 0), (3, 3), (1, 2)] {
                        let written = rt.color[0].read_f32(x, y) == [1.0; 4];
                        assert_eq!(written, want[k], "{fmt:?} {op:?} z {z}");
                        let d = if want[k] && write { z } else { 0.5 };
                        assert!(
                            abs_diff_eq!(ds.read_depth(x, y), d, epsilon = 1e-4),
                            "{fmt:?} {op:?} z {z} write {write}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn depth_test_along_a_slope_and_depth_bounds() {
    // z = x / 32 across a 32-wide target (window z linear in x), stored 0.5, LESS.
    let (w, h) = (32u32, 4u32);
    let verts = vec![
        [-1.0, -1.0, 0.0, 1.0],
        [1.0; 4],
        [1.0, -1.0, 1.0, 1.0],
        [1.0; 4],
        [-1.0, 3.0, 0.0, 1.0],
        [1.0; 4],
    ];
    let mut st = state_vec4s(2);
    st.depth_stencil.depth_test = true;
    st.depth_stencil.depth_write = true;
    st.depth_stencil.depth_compare = CompareOp::Less;
    let mut rt = targets(w, h, Some(Format::D32_SFLOAT));
    rt.depth_stencil.as_mut().unwrap().clear(0.5, 0);
    run_draw(
        &st,
        &verts,
        2,
        &fs_varying0(Interpolation::Smooth),
        &mut rt,
        1,
    )
    .unwrap();
    for x in 0..w {
        let z = (x as f32 + 0.5) / 32.0;
        let pass = z < 0.5;
        assert_eq!(rt.color[0].read_f32(x, 0)[0] == 1.0, pass, "x {x}");
        let d = rt.depth_stencil.as_ref().unwrap().read_depth(x, 0);
        assert!(
            abs_diff_eq!(d, if pass { z } else { 0.5 }, epsilon = 1e-6),
            "x {x}: {d}"
        );
    }
    // Depth bounds test the *stored* depth: store x/32 first, then bounds [0.25, 0.5].
    let mut st2 = state_vec4s(2);
    st2.depth_stencil.depth_bounds = Some((0.25, 0.5));
    let mut rt2 = targets(w, h, Some(Format::D32_SFLOAT));
    {
        let mut s = st.clone();
        s.depth_stencil.depth_compare = CompareOp::Always;
        run_draw(
            &s,
            &verts,
            2,
            &fs_varying0(Interpolation::Smooth),
            &mut rt2,
            1,
        )
        .unwrap();
    }
    rt2.color[0].clear_f32([0.0; 4]);
    run_draw(
        &st2,
        &fullscreen(0.9, [2.0; 4]),
        2,
        &fs_varying0(Interpolation::Smooth),
        &mut rt2,
        1,
    )
    .unwrap();
    for x in 0..w {
        let stored = (x as f32 + 0.5) / 32.0;
        let pass = (0.25..=0.5).contains(&stored);
        assert_eq!(rt2.color[0].read_f32(x, 1)[0] == 2.0, pass, "bounds x {x}");
    }
}

#[test]
fn depth_bias_constant_slope_and_clamp() {
    let bias = |c: f32, s: f32, clamp: f32| {
        let mut st = state_vec4s(2);
        st.depth_stencil.depth_test = true;
        st.depth_stencil.depth_write = true;
        st.rasterization.depth_bias = Some(DepthBias {
            constant_factor: c,
            clamp,
            slope_factor: s,
        });
        st
    };
    // Float depth: r = 2^(e - 23), e = exponent of 0.5 = -1, so 4 r = 2^-22.
    let mut rt = targets(4, 4, Some(Format::D32_SFLOAT));
    rt.depth_stencil.as_mut().unwrap().clear(1.0, 0);
    run_draw(
        &bias(4.0, 0.0, 0.0),
        &fullscreen(0.5, [1.0; 4]),
        2,
        &fs_varying0(Interpolation::Smooth),
        &mut rt,
        1,
    )
    .unwrap();
    assert_eq!(
        rt.depth_stencil.as_ref().unwrap().read_depth(1, 1),
        0.5 + 2f32.powi(-22)
    );
    // D16: r = 2^-16; 0.25 + 2 * 2^-16 = 0.25 + 2^-15 -> round(16385.75 - ...) by hand:
    // (0.25 + 2^-15) * 65535 = 16383.75 + 1.99997 = 16385.7499..., stored 16386.
    let mut rt = targets(4, 4, Some(Format::D16_UNORM));
    rt.depth_stencil.as_mut().unwrap().clear(1.0, 0);
    run_draw(
        &bias(2.0, 0.0, 0.0),
        &fullscreen(0.25, [1.0; 4]),
        2,
        &fs_varying0(Interpolation::Smooth),
        &mut rt,
        1,
    )
    .unwrap();
    assert_eq!(
        rt.depth_stencil.as_ref().unwrap().depth[..2],
        16386u16.to_le_bytes()
    );
    // Slope: z = x / 100 across the target gives dz/dx = 0.01; slope factor 2 adds 0.02,
    // a clamp of 0.015 limits it.
    let (w, h) = (16u32, 2u32);
    let verts = vec![
        [-1.0, -1.0, 0.0, 1.0],
        [1.0; 4],
        [3.0, -1.0, 0.32, 1.0],
        [1.0; 4],
        [-1.0, 3.0, 0.0, 1.0],
        [1.0; 4],
    ];
    for (clamp, add) in [(0.0f32, 0.02f32), (0.015, 0.015), (-0.5, 0.02)] {
        let mut rt = targets(w, h, Some(Format::D32_SFLOAT));
        rt.depth_stencil.as_mut().unwrap().clear(1.0, 0);
        run_draw(
            &bias(0.0, 2.0, clamp),
            &verts,
            2,
            &fs_varying0(Interpolation::Smooth),
            &mut rt,
            1,
        )
        .unwrap();
        for x in 0..w {
            let want = (x as f32 + 0.5) / 100.0 + add;
            let got = rt.depth_stencil.as_ref().unwrap().read_depth(x, 0);
            assert!(
                abs_diff_eq!(got, want, epsilon = 1e-6),
                "clamp {clamp} x {x}: {got} vs {want}"
            );
        }
    }
}

#[test]
fn early_tests_skip_shading_and_late_tests_see_discard_and_fragdepth() {
    let calls = AtomicUsize::new(0);
    let fs = FragmentFn {
        interpolation: vec![],
        writes_depth: false,
        can_discard: false,
        f: |i: &QuadBatch, o: &mut QuadOutputs| {
            calls.fetch_add(1, Ordering::Relaxed);
            for l in 0..i.quads * 4 {
                o.color[0][l] = [1.0f32; 4].map(f32::to_bits);
            }
            Ok(())
        },
    };
    let mut st = state_vec4s(2);
    st.depth_stencil.depth_test = true;
    st.depth_stencil.depth_write = true;
    st.depth_stencil.depth_compare = CompareOp::Less;
    let mut rt = targets(8, 8, Some(Format::D32_SFLOAT));
    rt.depth_stencil.as_mut().unwrap().clear(0.5, 0);
    run_draw(&st, &fullscreen(0.75, [0.0; 4]), 2, &fs, &mut rt, 1).unwrap();
    assert_eq!(
        calls.load(Ordering::Relaxed),
        0,
        "early depth test should reject every quad"
    );

    // Discard every even column and write FragDepth = 0.25 in the others: late tests.
    let fs = FragmentFn {
        interpolation: vec![],
        writes_depth: true,
        can_discard: true,
        f: |i: &QuadBatch, o: &mut QuadOutputs| {
            for q in 0..i.quads {
                o.killed[q] = 0b0101; // lanes 0 and 2: even x
                for k in 0..4 {
                    o.color[0][4 * q + k] = [1.0f32; 4].map(f32::to_bits);
                    o.depth[4 * q + k] = 0.25;
                }
            }
            Ok(())
        },
    };
    let mut rt = targets(8, 8, Some(Format::D32_SFLOAT));
    rt.depth_stencil.as_mut().unwrap().clear(0.5, 0);
    run_draw(&st, &fullscreen(0.75, [0.0; 4]), 2, &fs, &mut rt, 2).unwrap();
    for y in 0..8 {
        for x in 0..8 {
            let odd = x % 2 == 1;
            assert_eq!(rt.color[0].read_f32(x, y)[0] == 1.0, odd, "({x}, {y})");
            let d = rt.depth_stencil.as_ref().unwrap().read_depth(x, y);
            assert_eq!(d, if odd { 0.25 } else { 0.5 });
        }
    }
}

#[test]
fn stencil_ops_on_both_faces() {
    use StencilOp::*;
    let face =
        |fail: StencilOp, pass: StencilOp, dfail: StencilOp, cmp: CompareOp, reference: u8| {
            StencilOpState {
                fail_op: fail,
                pass_op: pass,
                depth_fail_op: dfail,
                compare_op: cmp,
                compare_mask: 0xff,
                write_mask: 0xff,
                reference,
            }
        };
    let mut st = state_vec4s(2);
    st.depth_stencil.stencil_test = true;
    st.depth_stencil.depth_test = true;
    st.depth_stencil.depth_compare = CompareOp::Less;
    // front: always pass -> increment-and-wrap; back: invert
    st.depth_stencil.front = face(Keep, IncrementAndWrap, Zero, CompareOp::Always, 0);
    st.depth_stencil.back = face(Keep, Invert, Zero, CompareOp::Always, 0);
    let draw = |st: &PipelineState, rt: &mut RenderTargets, z: f32, reverse: bool| {
        let mut v = fullscreen(z, [1.0; 4]);
        if reverse {
            v.swap(2, 4); // reverse the winding
            v.swap(3, 5);
        }
        run_draw(st, &v, 2, &fs_varying0(Interpolation::Smooth), rt, 1).unwrap();
    };
    let mut rt = targets(4, 4, Some(Format::D24_UNORM_S8_UINT));
    rt.depth_stencil.as_mut().unwrap().clear(0.5, 254);
    let s = |rt: &RenderTargets| rt.depth_stencil.as_ref().unwrap().read_stencil(2, 1);
    // The full-screen triangle as given is clockwise on screen -> back-facing
    // with the default counter-clockwise front face.
    draw(&st, &mut rt, 0.25, true); // front (reversed winding): 254 + 1
    assert_eq!(s(&rt), 255);
    draw(&st, &mut rt, 0.25, true); // wraps
    assert_eq!(s(&rt), 0);
    draw(&st, &mut rt, 0.25, false); // back: invert
    assert_eq!(s(&rt), 255);
    draw(&st, &mut rt, 0.75, false); // back, depth fails: zero
    assert_eq!(s(&rt), 0);
    // Stencil test fails: ref 3 EQUAL stored 0 fails -> fail op replace (writes the ref).
    st.depth_stencil.back = face(Replace, Keep, Keep, CompareOp::Equal, 3);
    draw(&st, &mut rt, 0.25, false);
    assert_eq!(s(&rt), 3);
    // Now it passes: keep; colour written only when the stencil test passes.
    rt.color[0].clear_f32([0.0; 4]);
    draw(&st, &mut rt, 0.25, false);
    assert_eq!(s(&rt), 3);
    assert_eq!(rt.color[0].read_f32(2, 1), [1.0; 4]);
    // Compare mask and write mask: ref 0x13 & 0x0f == stored 3 & 0x0f; pass op replace
    // through write mask 0xf0: (3 & !0xf0) | (0x13 & 0xf0) = 0x13.
    st.depth_stencil.back = StencilOpState {
        compare_mask: 0x0f,
        write_mask: 0xf0,
        ..face(Keep, Replace, Keep, CompareOp::Equal, 0x13)
    };
    draw(&st, &mut rt, 0.25, false);
    assert_eq!(s(&rt), 0x13);
    // Clamp ops
    st.depth_stencil.back = face(Keep, DecrementAndClamp, Keep, CompareOp::Always, 0);
    for _ in 0..25 {
        draw(&st, &mut rt, 0.25, false);
    }
    assert_eq!(s(&rt), 0);
    st.depth_stencil.back = face(Keep, IncrementAndClamp, Keep, CompareOp::Always, 0);
    for _ in 0..3 {
        draw(&st, &mut rt, 0.25, false);
    }
    assert_eq!(s(&rt), 3);
    st.depth_stencil.back = face(Keep, DecrementAndWrap, Keep, CompareOp::Less, 2);
    draw(&st, &mut rt, 0.25, false); // 2 < 3 passes: 2
    draw(&st, &mut rt, 0.25, false); // 2 < 2 fails: keep
    assert_eq!(s(&rt), 2);
}

/// The blend equation written out from the Vulkan spec's tables, for the test only.
fn spec_blend(
    sf: BlendFactor,
    df: BlendFactor,
    op: BlendOp,
    s: [f32; 4],
    s1: [f32; 4],
    d: [f32; 4],
    k: [f32; 4],
) -> [f32; 4] {
    use BlendFactor::*;
    let f = |f: BlendFactor, i: usize| -> f32 {
        let rgb = i < 3;
        match f {
            Zero => 0.0,
            One => 1.0,
            SrcColor => s[i],
            OneMinusSrcColor => 1.0 - s[i],
            DstColor => d[i],
            OneMinusDstColor => 1.0 - d[i],
            SrcAlpha => s[3],
            OneMinusSrcAlpha => 1.0 - s[3],
            DstAlpha => d[3],
            OneMinusDstAlpha => 1.0 - d[3],
            ConstantColor => k[i],
            OneMinusConstantColor => 1.0 - k[i],
            ConstantAlpha => k[3],
            OneMinusConstantAlpha => 1.0 - k[3],
            SrcAlphaSaturate => {
                if rgb {
                    s[3].min(1.0 - d[3])
                } else {
                    1.0
                }
            }
            Src1Color => s1[i],
            OneMinusSrc1Color => 1.0 - s1[i],
            Src1Alpha => s1[3],
            OneMinusSrc1Alpha => 1.0 - s1[3],
        }
    };
    std::array::from_fn(|i| match op {
        BlendOp::Add => s[i] * f(sf, i) + d[i] * f(df, i),
        BlendOp::Subtract => s[i] * f(sf, i) - d[i] * f(df, i),
        BlendOp::ReverseSubtract => d[i] * f(df, i) - s[i] * f(sf, i),
        BlendOp::Min => s[i].min(d[i]),
        BlendOp::Max => s[i].max(d[i]),
    })
}

#[test]
fn every_blend_factor_and_op_against_the_formula() {
    let factors = BlendFactor::ALL;
    let (s, s1, d, k) = (
        [0.9f32, 0.5, 0.3, 0.7],
        [0.1f32, 0.3, 0.55, 0.25],
        [0.2f32, 0.4, 0.6, 0.8],
        [0.3f32, 0.6, 0.9, 0.45],
    );
    let fs = FragmentFn {
        interpolation: vec![],
        writes_depth: false,
        can_discard: false,
        f: move |i: &QuadBatch, o: &mut QuadOutputs| {
            for l in 0..i.quads * 4 {
                o.color[0][l] = s.map(f32::to_bits);
                o.color1[l] = s1.map(f32::to_bits);
            }
            Ok(())
        },
    };
    let r = Rasterizer::new(1).unwrap();
    let vs = PassVs {
        varyings: 0,
        point_size: 1.0,
    };
    let data = bytes(
        &[
            [-1.0f32, -1.0, 0.5, 1.0],
            [3.0, -1.0, 0.5, 1.0],
            [-1.0, 3.0, 0.5, 1.0],
        ]
        .concat(),
    );
    let ops = [
        BlendOp::Add,
        BlendOp::Subtract,
        BlendOp::ReverseSubtract,
        BlendOp::Min,
        BlendOp::Max,
    ];
    let mut n = 0;
    for (oi, &op) in ops.iter().enumerate() {
        for (i, &sf) in factors.iter().enumerate() {
            for (j, &df) in factors.iter().enumerate() {
                // all pairs for Add, a diagonal sample for the other ops
                if oi > 0 && (i + j + oi) % 5 != 0 {
                    continue;
                }
                let af = factors[(i + 3) % factors.len()];
                let mut st = state_vec4s(1);
                st.blend_constants = k;
                st.blend_attachments = vec![ColorBlendAttachment {
                    blend_enable: true,
                    src_color_factor: sf,
                    dst_color_factor: df,
                    color_op: op,
                    src_alpha_factor: af,
                    dst_alpha_factor: df,
                    alpha_op: op,
                    write_mask: COLOR_WRITE_ALL,
                }];
                let pipe = Pipeline {
                    state: st,
                    vertex: &vs,
                    fragment: &fs,
                    stages: Default::default(),
                };
                let mut rt = targets(2, 2, None);
                rt.color[0].clear_f32(d);
                {
                    let mut pass = r.begin(&mut rt);
                    pass.bind_pipeline(&pipe);
                    pass.bind_vertex_buffers(&[VertexBuffer {
                        binding: 0,
                        data: &data,
                        offset: 0,
                    }]);
                    pass.draw(3, 1, 0, 0).unwrap();
                }
                let rgb = spec_blend(sf, df, op, s, s1, d, k);
                let a = spec_blend(af, df, op, s, s1, d, k)[3];
                let want = [rgb[0], rgb[1], rgb[2], a];
                let got = rt.color[0].read_f32(1, 1);
                assert!(
                    abs_diff_eq!(got[..], want[..], epsilon = 1e-6),
                    "{sf:?} {df:?} {op:?} alpha {af:?}: {got:?} vs {want:?}"
                );
                n += 1;
            }
        }
    }
    assert!(n > 361);
}

#[test]
fn unorm_blending_clamps_and_write_mask_keeps_channels() {
    // src (1.5, -0.5, 0.5, 0.5) clamps to (1, 0, .5, .5); dst (0.2, 0.4, 0.6, 0.8) from bytes
    // (51, 102, 153, 204); SRC_ALPHA / ONE_MINUS_SRC_ALPHA: r = .5 + .1 = .6 -> 153,
    // g = 0 + .2 = .2 -> 51, b = .25 + .3 = .55 -> 140 (140.25); alpha masked out stays 204.
    let fs = fs_const([1.5, -0.5, 0.5, 0.5]);
    let mut st = state_vec4s(1);
    st.blend_attachments = vec![ColorBlendAttachment {
        blend_enable: true,
        src_color_factor: BlendFactor::SrcAlpha,
        dst_color_factor: BlendFactor::OneMinusSrcAlpha,
        src_alpha_factor: BlendFactor::One,
        dst_alpha_factor: BlendFactor::Zero,
        write_mask: 0b0111,
        ..Default::default()
    }];
    let mut rt = RenderTargets {
        color: vec![
            ColorTarget::new(Format::R8G8B8A8_UNORM, 2, 2),
            ColorTarget::new(Format::B8G8R8A8_UNORM, 2, 2),
        ],
        depth_stencil: None,
    };
    rt.color[0].data = [51u8, 102, 153, 204].repeat(4);
    rt.color[1].data = [153u8, 102, 51, 204].repeat(4);
    st.blend_attachments.push(st.blend_attachments[0]);
    let verts = [
        [-1.0, -1.0, 0.5, 1.0],
        [3.0, -1.0, 0.5, 1.0],
        [-1.0, 3.0, 0.5, 1.0],
    ];
    run_draw(&st, &verts, 1, &fs, &mut rt, 1).unwrap();
    assert_eq!(rt.color[0].data[..4], [153, 51, 140, 204]);
    assert_eq!(rt.color[1].data[..4], [140, 51, 153, 204]);
}

#[test]
fn integer_attachments_take_raw_bits_without_blending() {
    let fs = FragmentFn {
        interpolation: vec![],
        writes_depth: false,
        can_discard: false,
        f: |i: &QuadBatch, o: &mut QuadOutputs| {
            for l in 0..i.quads * 4 {
                o.color[0][l] = [300, 7, 0xffff_fffe, 1];
                o.color[1][l] = [0xdead_beef, 1, 2, 3];
            }
            Ok(())
        },
    };
    let mut st = state_vec4s(1);
    let blend = ColorBlendAttachment {
        blend_enable: true,
        src_color_factor: BlendFactor::One,
        dst_color_factor: BlendFactor::One,
        write_mask: 0b1011,
        ..Default::default()
    };
    st.blend_attachments = vec![blend, blend];
    let mut rt = RenderTargets {
        color: vec![
            ColorTarget::new(Format::R8G8B8A8_UINT, 2, 2),
            ColorTarget::new(Format::R32G32B32A32_SINT, 2, 2),
        ],
        depth_stencil: None,
    };
    rt.color[0].clear_raw([9, 9, 9, 9]);
    let verts = [
        [-1.0, -1.0, 0.5, 1.0],
        [3.0, -1.0, 0.5, 1.0],
        [-1.0, 3.0, 0.5, 1.0],
    ];
    run_draw(&st, &verts, 1, &fs, &mut rt, 1).unwrap();
    // saturated to 8 bits (300 does not fit: 255, as GPUs write it), blue masked out, no
    // blending
    assert_eq!(rt.color[0].read_raw(0, 0), [255, 7, 9, 1]);
    assert_eq!(rt.color[1].read_raw(1, 1), [0xdead_beef, 1, 0, 3]);
}

#[test]
fn vertex_fetch_instances_indices_and_restart() {
    // Binding 0: per-vertex R32G32_SFLOAT position in window units (converted by the VS) and
    // R8G8B8A8_UNORM colour; binding 1: per-instance R16G16_SINT offset.
    let (w, h) = (32u32, 16u32);
    let mut vb = Vec::new();
    let corners = [[1.0f32, 1.0], [7.0, 1.0], [1.0, 7.0], [7.0, 7.0]];
    let colours = [
        [255u8, 0, 0, 255],
        [0, 255, 0, 255],
        [0, 0, 255, 255],
        [255, 255, 255, 255],
    ];
    for i in 0..4 {
        vb.extend(bytes(&corners[i]));
        vb.extend(colours[i]);
    }
    let inst: Vec<u8> = [[0i16, 0], [16, 8]]
        .iter()
        .flatten()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let st = PipelineState {
        vertex_bindings: vec![
            VertexBinding {
                binding: 0,
                stride: 12,
                input_rate: InputRate::Vertex,
            },
            VertexBinding {
                binding: 1,
                stride: 4,
                input_rate: InputRate::Instance,
            },
        ],
        vertex_attributes: vec![
            VertexAttribute {
                location: 0,
                binding: 0,
                format: Format::R32G32_SFLOAT,
                offset: 0,
            },
            VertexAttribute {
                location: 1,
                binding: 0,
                format: Format::R8G8B8A8_UNORM,
                offset: 8,
            },
            VertexAttribute {
                location: 2,
                binding: 1,
                format: Format::R16G16_SINT,
                offset: 0,
            },
        ],
        topology: Topology::TriangleStrip,
        primitive_restart: true,
        ..Default::default()
    };
    let seen = std::sync::Mutex::new(Vec::new());
    let vs = VertexFn {
        varyings: 1,
        f: |i: &VertexBatch, o: &mut VertexOutputs| -> Result<()> {
            let (p, c, off) = (
                i.attribute(0).unwrap(),
                i.attribute(1).unwrap(),
                i.attribute(2).unwrap(),
            );
            for v in 0..i.len() {
                seen.lock()
                    .unwrap()
                    .push((i.vertex_index[v], i.instance_index[v]));
                let x = f32::from_bits(p[v][0]) + off[v][0] as i32 as f32;
                let y = f32::from_bits(p[v][1]) + off[v][1] as i32 as f32;
                o.position[v] = clip_of(w, h, x, y, 0.5);
                o.varyings[0][v] = c[v];
            }
            Ok(())
        },
    };
    let fs = fs_varying0(Interpolation::Flat);
    let pipe = Pipeline {
        state: st,
        vertex: &vs,
        fragment: &fs,
        stages: Default::default(),
    };
    for ty in [IndexType::U8, IndexType::U16, IndexType::U32] {
        // strip 0,1,2 | restart | 3,1,2 (the second triangle, on its own), vertex offset -1
        let idx: [u32; 7] = [1, 2, 3, u32::MAX, 4, 2, 3];
        let ib: Vec<u8> = match ty {
            IndexType::U8 => idx.iter().map(|&i| i as u8).collect(),
            IndexType::U16 => idx.iter().flat_map(|&i| (i as u16).to_le_bytes()).collect(),
            IndexType::U32 => idx.iter().flat_map(|&i| i.to_le_bytes()).collect(),
        };
        seen.lock().unwrap().clear();
        let mut rt = targets(w, h, None);
        let r = Rasterizer::new(2).unwrap();
        {
            let mut pass = r.begin(&mut rt);
            pass.bind_pipeline(&pipe);
            pass.bind_vertex_buffers(&[
                VertexBuffer {
                    binding: 0,
                    data: &vb,
                    offset: 0,
                },
                VertexBuffer {
                    binding: 1,
                    data: &inst,
                    offset: 0,
                },
            ]);
            pass.bind_index_buffer(IndexBuffer {
                data: &ib,
                offset: 0,
                index_type: ty,
            });
            pass.draw_indexed(7, 2, 0, -1, 0).unwrap();
        }
        let mut s = seen.lock().unwrap().clone();
        s.sort();
        assert_eq!(
            s,
            vec![
                (0, 0),
                (0, 1),
                (1, 0),
                (1, 0),
                (1, 1),
                (1, 1),
                (2, 0),
                (2, 0),
                (2, 1),
                (2, 1),
                (3, 0),
                (3, 1)
            ]
        );
        // instance 0 at (0,0): upper-left triangle red (provoking vertex 0), lower-right
        // triangle white (vertex 3); instance 1 shifted by (16, 8).
        let c = |x, y| rt.color[0].read_f32(x, y);
        assert_eq!(c(2, 2), [1.0, 0.0, 0.0, 1.0], "{ty:?}");
        assert_eq!(c(6, 6), [1.0; 4]);
        assert_eq!(c(18, 10), [1.0, 0.0, 0.0, 1.0]);
        assert_eq!(c(22, 14), [1.0; 4]);
        assert_eq!(c(10, 2), [0.0; 4]);
    }
    // reading past the end of a buffer is an error, not a panic
    let mut rt = targets(w, h, None);
    let r = Rasterizer::new(1).unwrap();
    let mut pass = r.begin(&mut rt);
    pass.bind_pipeline(&pipe);
    pass.bind_vertex_buffers(&[
        VertexBuffer {
            binding: 0,
            data: &vb,
            offset: 0,
        },
        VertexBuffer {
            binding: 1,
            data: &inst,
            offset: 0,
        },
    ]);
    assert!(matches!(
        pass.draw(5, 1, 0, 0),
        Err(quadstep::Error::Pipeline(_))
    ));
    assert!(matches!(
        pass.draw(3, 1, 0, 2),
        Err(quadstep::Error::Pipeline(_))
    ));
}

/// Many overlapping triangles with order-dependent blending and a depth test.
fn busy_scene(threads: usize) -> RenderTargets {
    let (w, h) = (200u32, 150u32);
    let mut rng = fastrand::Rng::with_seed(12345);
    let mut rnd = || rng.f32();
    let mut verts = Vec::new();
    for _ in 0..400 {
        let (cx, cy) = (rnd() * 2.4 - 1.2, rnd() * 2.4 - 1.2);
        let c = [rnd(), rnd(), rnd(), rnd()];
        for _ in 0..3 {
            let wv = 0.5 + rnd();
            verts.push([
                (cx + rnd() * 0.6 - 0.3) * wv,
                (cy + rnd() * 0.6 - 0.3) * wv,
                rnd() * wv,
                wv,
            ]);
            verts.push(c);
        }
    }
    let mut st = state_vec4s(2);
    st.depth_stencil.depth_test = true;
    st.depth_stencil.depth_write = true;
    st.depth_stencil.depth_compare = CompareOp::LessOrEqual;
    st.blend_attachments = vec![ColorBlendAttachment {
        blend_enable: true,
        src_color_factor: BlendFactor::SrcAlpha,
        dst_color_factor: BlendFactor::OneMinusSrcAlpha,
        ..Default::default()
    }];
    let mut rt = RenderTargets {
        color: vec![
            ColorTarget::new(Format::R8G8B8A8_UNORM, w, h),
            ColorTarget::new(Format::R16G16B16A16_SFLOAT, w, h),
        ],
        depth_stencil: Some(DepthStencilTarget::new(Format::D24_UNORM_S8_UINT, w, h)),
    };
    rt.depth_stencil.as_mut().unwrap().clear(1.0, 0);
    let fs = FragmentFn {
        interpolation: vec![Interpolation::Smooth],
        writes_depth: false,
        can_discard: false,
        f: |i: &QuadBatch, o: &mut QuadOutputs| {
            for l in 0..i.quads * 4 {
                o.color[0][l] = i.varyings[0][l];
                o.color[1][l] = i.frag_coord[l].map(f32::to_bits);
            }
            Ok(())
        },
    };
    run_draw(&st, &verts, 2, &fs, &mut rt, threads).unwrap();
    rt
}

#[test]
fn identical_bytes_at_1_2_and_8_threads() {
    let one = busy_scene(1);
    assert!(one.color[0].data.iter().any(|&b| b != 0));
    for t in [2, 8] {
        let other = busy_scene(t);
        assert!(one == other, "{t} threads differ from 1");
    }
}

#[test]
fn batches_span_primitives_but_keep_submission_order() {
    // 32 tiny triangles, each inside its own 2x2 quad, then the same 32 again with another
    // colour: the blend (src + dst / 2) depends on the order, the first 32 may share a batch.
    let (w, h) = (32u32, 8u32);
    let mut verts = Vec::new();
    for pass in 0..2 {
        for i in 0..32 {
            let (qx, qy) = ((i % 16) * 2, (i / 16) * 2 + 2 * pass);
            let c = [i as f32 + 100.0 * pass as f32, 0.0, 0.0, 1.0];
            let (x, y) = (qx as f32, qy as f32 - 2.0 * pass as f32);
            for (dx, dy) in [(0.1, 0.1), (1.9, 0.1), (0.1, 1.9)] {
                verts.push(clip_of(w, h, x + dx, y + dy, 0.5));
                verts.push(c);
            }
        }
    }
    let max_quads = AtomicUsize::new(0);
    let fs = FragmentFn {
        interpolation: vec![Interpolation::Flat],
        writes_depth: false,
        can_discard: false,
        f: |i: &QuadBatch, o: &mut QuadOutputs| {
            max_quads.fetch_max(i.quads, Ordering::Relaxed);
            for l in 0..i.quads * 4 {
                o.color[0][l] = i.varyings[0][l];
                // the flat value names the primitive: its ID within the draw
                assert_eq!(
                    f32::from_bits(i.varyings[0][l][0]) as u32 % 100
                        + 32 * (f32::from_bits(i.varyings[0][l][0]) as u32 / 100),
                    i.primitive_id[l]
                );
            }
            Ok(())
        },
    };
    let mut st = state_vec4s(2);
    st.blend_attachments = vec![ColorBlendAttachment {
        blend_enable: true,
        src_color_factor: BlendFactor::One,
        dst_color_factor: BlendFactor::ConstantColor,
        ..Default::default()
    }];
    st.blend_constants = [0.5; 4];
    let mut rt = targets(w, h, None);
    run_draw(&st, &verts, 2, &fs, &mut rt, 1).unwrap();
    assert!(
        max_quads.load(Ordering::Relaxed) > 1,
        "no batch held several primitives"
    );
    for i in 0..32u32 {
        let (px, py) = ((i % 16) * 2, (i / 16) * 2);
        // first i, then (i + 100) + i / 2
        let want = i as f32 + 100.0 + i as f32 * 0.5;
        assert_eq!(rt.color[0].read_f32(px, py)[0], want, "triangle {i}");
    }
}
