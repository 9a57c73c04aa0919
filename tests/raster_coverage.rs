//! Coverage: the fill rule against the reference rasterizer, shared edges and fans hit exactly
//! once, sub-pixel vertices, lines, points, scissor, culling and front facing, helper lanes.

#![allow(clippy::needless_range_loop)]

mod raster_support;

use quadstep::raster::*;
use quadstep::Result;
use raster_support::*;
use std::sync::Mutex;

#[test]
fn random_subpixel_triangles_match_the_reference() {
    let (w, h) = (40, 36);
    let mut rng = fastrand::Rng::with_seed(7);
    for _ in 0..60 {
        let mut t = [[0.0f64; 2]; 3];
        for p in &mut t {
            // vertices on 1/256 steps (some on pixel centres and edges on purpose)
            let k = rng.f64();
            p[0] = rng.f64() * 48.0 - 4.0;
            p[1] = rng.f64() * 44.0 - 4.0;
            if k < 0.3 {
                p[0] = p[0].floor() + 0.5;
                p[1] = p[1].floor();
            }
        }
        let verts = t.map(|p| [p[0] as f32, p[1] as f32, 0.5]);
        let got = hit_counts(w, h, Topology::TriangleList, &verts, 1);
        // exact f32 of the submitted positions, as the rasterizer sees them
        let tf = verts.map(|v| [v[0] as f64, v[1] as f64]);
        let want = ref_triangle(w, h, tf);
        for i in 0..(w * h) as usize {
            assert_eq!(
                got[i],
                want[i] as u32,
                "triangle {t:?} pixel ({}, {})",
                i as u32 % w,
                i as u32 / w
            );
        }
    }
}

/// The block walk (8x8 blocks, SIMD edge masks, i64 masks for steep edges, rectangle masks
/// where the bbox or the framebuffer cuts a block) against the reference on a target of
/// several tiles with odd sizes (partial tiles, blocks and quads at the right and bottom
/// edges): triangles from a few pixels to larger than a tile, sub-pixel vertices, and
/// triangles with vertices thousands of pixels away (edges too steep for i32 block masks).
#[test]
fn triangles_across_tiles_and_odd_edges_match_the_reference() {
    let (w, h) = (157, 93);
    let mut rng = fastrand::Rng::with_seed(19);
    for case in 0..90 {
        let (size, far) = match case % 6 {
            0 | 1 => (6.0, false),
            2 | 3 => (40.0, false),
            4 => (220.0, false),
            _ => (30.0, true),
        };
        let (cx, cy) = (rng.f64() * 180.0 - 10.0, rng.f64() * 110.0 - 10.0);
        let mut t = [[0.0f64; 2]; 3];
        for (k, p) in t.iter_mut().enumerate() {
            p[0] = cx + (rng.f64() - 0.5) * size;
            p[1] = cy + (rng.f64() - 0.5) * size;
            if far && k == 0 {
                // a vertex far away: long, steep edges through the target
                p[0] = cx + (rng.f64() - 0.5) * 9000.0;
                p[1] = cy + (rng.f64() - 0.5) * 9000.0;
            }
            // on 1/256 steps, as f32 holds them exactly
            p[0] = (p[0] * 256.0).round() / 256.0;
            p[1] = (p[1] * 256.0).round() / 256.0;
        }
        let verts = t.map(|p| [p[0] as f32, p[1] as f32, 0.5]);
        let got = hit_counts(w, h, Topology::TriangleList, &verts, 2);
        let tf = verts.map(|v| [v[0] as f64, v[1] as f64]);
        let want = ref_triangle(w, h, tf);
        for i in 0..(w * h) as usize {
            assert_eq!(
                got[i],
                want[i] as u32,
                "case {case}: triangle {t:?} pixel ({}, {})",
                i as u32 % w,
                i as u32 / w
            );
        }
    }
}

#[test]
fn shared_edges_and_fans_hit_every_pixel_exactly_once() {
    let (w, h) = (64, 64);
    // A fan of 12 triangles around a sub-pixel centre that covers a 12-gon; and two triangles
    // sharing a diagonal through pixel centres.
    let c = [31.3f32, 30.7];
    let mut verts = Vec::new();
    let ring: Vec<[f32; 2]> = (0..12)
        .map(|i| {
            let a = i as f32 * std::f32::consts::TAU / 12.0;
            [c[0] + 25.0 * a.cos(), c[1] + 25.0 * a.sin()]
        })
        .collect();
    for i in 0..12 {
        let (p, q) = (ring[i], ring[(i + 1) % 12]);
        verts.extend([[c[0], c[1], 0.5], [p[0], p[1], 0.5], [q[0], q[1], 0.5]]);
    }
    let got = hit_counts(w, h, Topology::TriangleList, &verts, 2);
    assert!(got.iter().all(|&n| n <= 1), "a pixel was hit twice");
    // every pixel centre strictly inside the polygon was hit
    let inside = |x: f64, y: f64| {
        (0..12).all(|i| {
            let (p, q) = (ring[i], ring[(i + 1) % 12]);
            let s = (q[0] as f64 - p[0] as f64) * (y - p[1] as f64)
                - (q[1] as f64 - p[1] as f64) * (x - p[0] as f64);
            s > 1e-3
        })
    };
    let mut n_inside = 0;
    for y in 0..h {
        for x in 0..w {
            if inside(x as f64 + 0.5, y as f64 + 0.5) {
                n_inside += 1;
                assert_eq!(got[(y * w + x) as usize], 1, "hole at ({x}, {y})");
            }
        }
    }
    assert!(n_inside > 1500);

    // Two triangles of a square split along a diagonal that passes through pixel centres.
    let quad = [
        [4.5, 4.5, 0.5],
        [20.5, 4.5, 0.5],
        [4.5, 20.5, 0.5],
        [20.5, 4.5, 0.5],
        [20.5, 20.5, 0.5],
        [4.5, 20.5, 0.5],
    ];
    let got = hit_counts(32, 32, Topology::TriangleList, &quad, 1);
    for y in 0..32u32 {
        for x in 0..32u32 {
            // the square [4.5, 20.5) x [4.5, 20.5): left/top edges include centres on them
            let want = (4..20).contains(&x) && (4..20).contains(&y);
            assert_eq!(got[(y * 32 + x) as usize], want as u32, "({x}, {y})");
        }
    }
}

#[test]
fn strips_and_fans_tile_without_overlap() {
    // A triangle fan and a strip covering the same rectangle [2, 30] x [3, 29].
    let fan = [
        [16.0, 16.0, 0.5],
        [2.0, 3.0, 0.5],
        [30.0, 3.0, 0.5],
        [30.0, 29.0, 0.5],
        [2.0, 29.0, 0.5],
        [2.0, 3.0, 0.5],
    ];
    // TriangleFan in Vulkan uses (i+1, i+2, 0): the centre must be vertex 0.
    let got = hit_counts(32, 32, Topology::TriangleFan, &fan, 2);
    let strip = [
        [2.0, 3.0, 0.5],
        [2.0, 29.0, 0.5],
        [16.0, 3.0, 0.5],
        [16.0, 29.0, 0.5],
        [30.0, 3.0, 0.5],
        [30.0, 29.0, 0.5],
    ];
    let got_strip = hit_counts(32, 32, Topology::TriangleStrip, &strip, 1);
    for y in 0..32u32 {
        for x in 0..32u32 {
            let want = (2..30).contains(&x) && (3..29).contains(&y);
            assert_eq!(got[(y * 32 + x) as usize], want as u32, "fan ({x}, {y})");
            assert_eq!(
                got_strip[(y * 32 + x) as usize],
                want as u32,
                "strip ({x}, {y})"
            );
        }
    }
}

fn draw_prims(
    w: u32,
    h: u32,
    st: PipelineState,
    clip_verts: &[[f32; 4]],
    point_size: f32,
) -> Vec<u32> {
    let data = bytes(&clip_verts.iter().flatten().copied().collect::<Vec<_>>());
    let vs = PassVs {
        varyings: 0,
        point_size,
    };
    let fs = fs_const([1.0, 0.0, 0.0, 0.0]);
    let mut st = st;
    st.blend_attachments = vec![ColorBlendAttachment {
        blend_enable: true,
        src_color_factor: BlendFactor::One,
        dst_color_factor: BlendFactor::One,
        ..Default::default()
    }];
    let pipe = Pipeline {
        state: st,
        vertex: &vs,
        fragment: &fs,
        stages: Default::default(),
    };
    let mut rt = RenderTargets {
        color: vec![ColorTarget::new(Format::R32G32B32A32_SFLOAT, w, h)],
        depth_stencil: None,
    };
    let r = Rasterizer::new(1).unwrap();
    let mut pass = r.begin(&mut rt);
    pass.bind_pipeline(&pipe);
    pass.bind_vertex_buffers(&[VertexBuffer {
        binding: 0,
        data: &data,
        offset: 0,
    }]);
    pass.draw(clip_verts.len() as u32, 1, 0, 0).unwrap();
    let t = &pass.targets().color[0];
    (0..h)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .map(|(x, y)| t.read_f32(x, y)[0] as u32)
        .collect()
}

#[test]
fn lines_are_parallelograms_with_half_open_ends() {
    let (w, h) = (16, 16);
    let mut st = state_vec4s(1);
    st.topology = Topology::LineList;
    let a = [1.5f32, 2.5];
    let b = [11.5f32, 6.5];
    let got = draw_prims(
        w,
        h,
        st.clone(),
        &[
            clip_of(w, h, a[0], a[1], 0.5),
            clip_of(w, h, b[0], b[1], 0.5),
        ],
        1.0,
    );
    // x-major: columns with centre in [1.5, 11.5) are px 1..=10; in each the line's y at the
    // centre, yc, covers the pixel whose centre lies in [yc - 0.5, yc + 0.5).
    for y in 0..h {
        for x in 0..w {
            let cx = x as f32 + 0.5;
            let want = if (1..=10).contains(&x) {
                let yc = a[1] + (cx - a[0]) * (b[1] - a[1]) / (b[0] - a[0]);
                let cy = y as f32 + 0.5;
                cy >= yc - 0.5 && cy < yc + 0.5
            } else {
                false
            };
            assert_eq!(got[(y * w + x) as usize], want as u32, "({x}, {y})");
        }
    }
    // A y-major line strip of two segments: each pixel once, 10 rows.
    st.topology = Topology::LineStrip;
    let pts = [[3.0f32, 1.0], [5.0, 6.0], [3.0, 11.0]].map(|p| clip_of(w, h, p[0], p[1], 0.5));
    let got = draw_prims(w, h, st, &pts, 1.0);
    assert!(got.iter().all(|&n| n <= 1));
    for y in 0..h {
        let row: u32 = (0..w).map(|x| got[(y * w + x) as usize]).sum();
        assert_eq!(row, if (1..11).contains(&y) { 1 } else { 0 }, "row {y}");
    }
}

#[test]
fn points_are_squares_centred_on_the_vertex() {
    let (w, h) = (16, 16);
    let mut st = state_vec4s(1);
    st.topology = Topology::PointList;
    // size 3 at (5, 5): centres in [3.5, 6.5) -> pixels 3..=5
    let got = draw_prims(w, h, st.clone(), &[clip_of(w, h, 5.0, 5.0, 0.5)], 3.0);
    for y in 0..h {
        for x in 0..w {
            let want = (3..=5).contains(&x) && (3..=5).contains(&y);
            assert_eq!(got[(y * w + x) as usize], want as u32, "({x}, {y})");
        }
    }
    // size 2 at (10, 10.5): x centres in [9, 11) -> 9, 10; y in [9.5, 11.5) -> 9, 10 (9.5 on the
    // top edge is included, 11.5 on the bottom edge is not)
    let got = draw_prims(w, h, st, &[clip_of(w, h, 10.0, 10.5, 0.5)], 2.0);
    let hits: Vec<(u32, u32)> = (0..h)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .filter(|&(x, y)| got[(y * w + x) as usize] == 1)
        .collect();
    assert_eq!(hits, vec![(9, 9), (10, 9), (9, 10), (10, 10)]);
}

#[test]
fn scissor_and_viewport_limit_fragments() {
    let (w, h) = (32, 32);
    let mut st = state_vec4s(1);
    st.scissor = Some(Rect2D {
        x: 5,
        y: 7,
        width: 10,
        height: 4,
    });
    let full = [
        [-1.0, -1.0, 0.5, 1.0],
        [3.0, -1.0, 0.5, 1.0],
        [-1.0, 3.0, 0.5, 1.0],
    ];
    let got = draw_prims(w, h, st.clone(), &full, 1.0);
    for y in 0..h {
        for x in 0..w {
            let want = (5..15).contains(&x) && (7..11).contains(&y);
            assert_eq!(got[(y * w + x) as usize], want as u32);
        }
    }
    st.scissor = None;
    // viewport on the right half: NDC [-1,1] maps to x in [16, 32)
    st.viewport = Some(Viewport {
        x: 16.0,
        y: 0.0,
        width: 16.0,
        height: 32.0,
        min_depth: 0.0,
        max_depth: 1.0,
    });
    let got = draw_prims(w, h, st, &full, 1.0);
    for y in 0..h {
        for x in 0..w {
            assert_eq!(got[(y * w + x) as usize], (x >= 16) as u32, "({x}, {y})");
        }
    }
}

#[test]
fn culling_and_front_facing() {
    let (w, h) = (8, 8);
    // On screen (y down): (1,1) -> (1,7) -> (7,1) goes counter-clockwise (down, then up-right).
    let ccw = [
        clip_of(w, h, 1.0, 1.0, 0.5),
        clip_of(w, h, 1.0, 7.0, 0.5),
        clip_of(w, h, 7.0, 1.0, 0.5),
    ];
    let cw = [ccw[0], ccw[2], ccw[1]];
    let seen = Mutex::new(Vec::new());
    let fs = FragmentFn {
        interpolation: vec![],
        writes_depth: false,
        can_discard: false,
        f: |i: &QuadBatch, _o: &mut QuadOutputs| {
            seen.lock().unwrap().extend_from_slice(&i.front_facing);
            Ok(())
        },
    };
    let vs = PassVs {
        varyings: 0,
        point_size: 1.0,
    };
    let run = |tri: &[[f32; 4]; 3], cull: CullMode, ff: FrontFace| -> Option<bool> {
        seen.lock().unwrap().clear();
        let mut st = state_vec4s(1);
        st.rasterization.cull_mode = cull;
        st.rasterization.front_face = ff;
        let pipe = Pipeline {
            state: st,
            vertex: &vs,
            fragment: &fs,
            stages: Default::default(),
        };
        let data = bytes(&tri.iter().flatten().copied().collect::<Vec<_>>());
        let mut rt = RenderTargets {
            color: vec![ColorTarget::new(Format::R8G8B8A8_UNORM, w, h)],
            depth_stencil: None,
        };
        let r = Rasterizer::new(1).unwrap();
        let mut pass = r.begin(&mut rt);
        pass.bind_pipeline(&pipe);
        pass.bind_vertex_buffers(&[VertexBuffer {
            binding: 0,
            data: &data,
            offset: 0,
        }]);
        pass.draw(3, 1, 0, 0).unwrap();
        let s = seen.lock().unwrap();
        if s.is_empty() {
            None
        } else {
            assert!(s.iter().all(|&f| f == s[0]));
            Some(s[0])
        }
    };
    use CullMode::{Back, Front, FrontAndBack};
    use FrontFace::*;
    assert_eq!(run(&ccw, CullMode::None, CounterClockwise), Some(true));
    assert_eq!(run(&cw, CullMode::None, CounterClockwise), Some(false));
    assert_eq!(run(&cw, CullMode::None, Clockwise), Some(true));
    assert_eq!(run(&ccw, Back, CounterClockwise), Some(true));
    assert_eq!(run(&ccw, Front, CounterClockwise), None);
    assert_eq!(run(&cw, Back, CounterClockwise), None);
    assert_eq!(run(&cw, Front, CounterClockwise), Some(false));
    assert_eq!(run(&ccw, FrontAndBack, CounterClockwise), None);
    assert_eq!(run(&ccw, Back, Clockwise), None);
}

#[test]
fn helper_lanes_are_shaded_but_never_written() {
    let (w, h) = (16, 16);
    // A triangle with edges through the middle of quads.
    let tri = [
        clip_of(w, h, 1.3, 1.1, 0.5),
        clip_of(w, h, 13.7, 2.9, 0.5),
        clip_of(w, h, 4.1, 14.6, 0.5),
    ];
    let masks = Mutex::new(Vec::new());
    let fs = FragmentFn {
        interpolation: vec![],
        writes_depth: false,
        can_discard: false,
        f: |i: &QuadBatch, o: &mut QuadOutputs| {
            for q in 0..i.quads {
                let fc = &i.frag_coord[4 * q..4 * q + 4];
                // lane layout 0 1 / 2 3 at an even origin
                assert_eq!(fc[0][0] - 0.5, ((fc[0][0] - 0.5) as u32 & !1) as f32);
                assert_eq!(fc[0][1] - 0.5, ((fc[0][1] - 0.5) as u32 & !1) as f32);
                assert_eq!([fc[1][0] - fc[0][0], fc[1][1] - fc[0][1]], [1.0, 0.0]);
                assert_eq!([fc[2][0] - fc[0][0], fc[2][1] - fc[0][1]], [0.0, 1.0]);
                assert_eq!([fc[3][0] - fc[0][0], fc[3][1] - fc[0][1]], [1.0, 1.0]);
                masks
                    .lock()
                    .unwrap()
                    .push((fc[0][0] as u32, fc[0][1] as u32, i.coverage[q]));
            }
            for l in 0..i.quads * 4 {
                o.color[0][l] = [1.0f32, 1.0, 1.0, 1.0].map(f32::to_bits);
            }
            Ok(())
        },
    };
    let vs = PassVs {
        varyings: 0,
        point_size: 1.0,
    };
    let pipe = Pipeline {
        state: state_vec4s(1),
        vertex: &vs,
        fragment: &fs,
        stages: Default::default(),
    };
    let data = bytes(&tri.iter().flatten().copied().collect::<Vec<_>>());
    let mut rt = RenderTargets {
        color: vec![ColorTarget::new(Format::R8G8B8A8_UNORM, w, h)],
        depth_stencil: None,
    };
    let r = Rasterizer::new(2).unwrap();
    let mut pass = r.begin(&mut rt);
    pass.bind_pipeline(&pipe);
    pass.bind_vertex_buffers(&[VertexBuffer {
        binding: 0,
        data: &data,
        offset: 0,
    }]);
    pass.draw(3, 1, 0, 0).unwrap();
    let want = ref_triangle(
        w,
        h,
        tri.map(|c| [((c[0] + 1.0) * 8.0) as f64, ((c[1] + 1.0) * 8.0) as f64]),
    );
    let masks = masks.lock().unwrap().clone();
    assert!(
        masks.iter().any(|m| m.2 != 0xf),
        "no partially covered quad"
    );
    let mut shaded = vec![0u32; (w * h) as usize];
    for &(x0, y0, m) in &masks {
        for k in 0..4 {
            let (x, y) = (x0 + (k & 1), y0 + (k >> 1));
            shaded[(y * w + x) as usize] += 1;
            // coverage bit k is exactly the reference coverage of that lane's pixel
            assert_eq!(
                m & (1 << k) != 0,
                want[(y * w + x) as usize],
                "lane ({x}, {y})"
            );
        }
    }
    let t = &pass.targets().color[0];
    for y in 0..h {
        for x in 0..w {
            let i = (y * w + x) as usize;
            assert!(shaded[i] <= 1, "a quad shaded twice");
            let written = t.read_f32(x, y)[0] == 1.0;
            assert_eq!(written, want[i], "pixel ({x}, {y}) written = {written}");
        }
    }
    // every quad touching a covered pixel was shaded
    for y in 0..h {
        for x in 0..w {
            if want[(y * w + x) as usize] {
                assert_eq!(shaded[(y * w + x) as usize], 1);
            }
        }
    }
}

#[test]
fn sample_counts_must_be_supported_and_match_the_attachments() {
    let vs = PassVs {
        varyings: 0,
        point_size: 1.0,
    };
    let fs = fs_const([0.0; 4]);
    for (samples, attachment, unsupported) in [(3, 3, true), (32, 32, true), (4, 1, false)] {
        let mut st = state_vec4s(1);
        st.samples = samples;
        let pipe = Pipeline {
            state: st,
            vertex: &vs,
            fragment: &fs,
            stages: Default::default(),
        };
        let mut rt = RenderTargets {
            color: vec![ColorTarget::multisampled(
                Format::R8G8B8A8_UNORM,
                4,
                4,
                attachment,
            )],
            depth_stencil: None,
        };
        let r = Rasterizer::new(1).unwrap();
        let mut pass = r.begin(&mut rt);
        pass.bind_pipeline(&pipe);
        let e = pass.draw(3, 1, 0, 0).unwrap_err();
        match e {
            quadstep::Error::Unsupported(m) if unsupported => {
                assert!(m.starts_with("multisampling"), "{m}")
            }
            quadstep::Error::Pipeline(m) if !unsupported => {
                assert!(m.contains("1 samples, the pipeline rasterizes 4"), "{m}")
            }
            other => panic!("{samples}: {other:?}"),
        }
    }
}

#[test]
fn stage_errors_propagate() {
    let vs = VertexFn {
        varyings: 0,
        f: |_: &VertexBatch, _: &mut VertexOutputs| -> Result<()> {
            Err(quadstep::Error::Exec("boom".into()))
        },
    };
    let fs = fs_const([0.0; 4]);
    let pipe = Pipeline {
        state: PipelineState::default(),
        vertex: &vs,
        fragment: &fs,
        stages: Default::default(),
    };
    let mut rt = RenderTargets {
        color: vec![ColorTarget::new(Format::R8G8B8A8_UNORM, 4, 4)],
        depth_stencil: None,
    };
    let r = Rasterizer::new(1).unwrap();
    let mut pass = r.begin(&mut rt);
    pass.bind_pipeline(&pipe);
    assert_eq!(
        pass.draw(3, 1, 0, 0),
        Err(quadstep::Error::Exec("boom".into()))
    );
}

#[test]
fn polygon_modes_line_and_point() {
    let (w, h) = (16, 16);
    let tri = [
        clip_of(w, h, 2.5, 2.5, 0.5),
        clip_of(w, h, 12.5, 2.5, 0.5),
        clip_of(w, h, 2.5, 12.5, 0.5),
    ];
    let mut st = state_vec4s(1);
    st.rasterization.polygon_mode = PolygonMode::Line;
    let got = draw_prims(w, h, st.clone(), &tri, 1.0);
    let at = |g: &Vec<u32>, x: u32, y: u32| g[(y * w + x) as usize];
    // top edge y = 2.5: x centres in [2.5, 12.5); left edge x = 2.5: y centres in [2.5, 12.5)
    for i in 3..12 {
        assert_eq!(at(&got, i, 2), 1, "top ({i}, 2)");
        assert_eq!(at(&got, 2, i), 1, "left (2, {i})");
    }
    assert_eq!(at(&got, 5, 5), 0, "interior");
    assert_eq!(at(&got, 12, 2), 0);
    // the hypotenuse x + y = 15 passes through centres (x + .5) + (y + .5) = 15
    assert!(at(&got, 7, 7) == 1 || at(&got, 7, 6) == 1 || at(&got, 6, 7) == 1);
    st.rasterization.polygon_mode = PolygonMode::Point;
    let got = draw_prims(w, h, st, &tri, 1.0);
    let hits: Vec<(u32, u32)> = (0..h)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .filter(|&(x, y)| got[(y * w + x) as usize] == 1)
        .collect();
    assert_eq!(hits, vec![(2, 2), (12, 2), (2, 12)]);
}

#[test]
fn huge_triangles_are_clipped_to_the_guard_band_without_seams() {
    // Two triangles of a square whose corners are a million pixels away share a diagonal
    // through the framebuffer; every pixel is hit exactly once at any thread count.
    let (w, h) = (100, 70);
    let f = 1.0e6f32;
    let quad = [
        [-f, -f, 0.5],
        [f, -f, 0.5],
        [-f, f, 0.5],
        [f, -f, 0.5],
        [f, f, 0.5],
        [-f, f, 0.5],
    ];
    for threads in [1, 3] {
        let got = hit_counts(w, h, Topology::TriangleList, &quad, threads);
        assert!(got.iter().all(|&n| n == 1), "{threads} threads");
    }
}

#[test]
fn primitive_ids_count_per_instance() {
    let (w, h) = (32u32, 8u32);
    // A strip of 4 triangles across the target; 2 instances draw the same strip, the second
    // one in the lower half (via the VS), each with its own primitive IDs 0..3.
    let xs = [0.0f32, 8.0, 16.0, 24.0, 32.0];
    let mut verts = Vec::new();
    for x in xs.iter().take(3) {
        verts.push([*x, 0.0]);
        verts.push([*x, 4.0]);
    }
    let data = bytes(&verts.iter().flatten().copied().collect::<Vec<_>>());
    let st = PipelineState {
        vertex_bindings: vec![VertexBinding {
            binding: 0,
            stride: 8,
            input_rate: InputRate::Vertex,
        }],
        vertex_attributes: vec![VertexAttribute {
            location: 0,
            binding: 0,
            format: Format::R32G32_SFLOAT,
            offset: 0,
        }],
        topology: Topology::TriangleStrip,
        ..Default::default()
    };
    let vs = VertexFn {
        varyings: 0,
        f: |i: &VertexBatch, o: &mut VertexOutputs| -> Result<()> {
            let p = i.attribute(0).unwrap();
            for v in 0..i.len() {
                let y = f32::from_bits(p[v][1]) + 4.0 * i.instance_index[v] as f32;
                o.position[v] = clip_of(w, h, f32::from_bits(p[v][0]), y, 0.5);
            }
            Ok(())
        },
    };
    let fs = FragmentFn {
        interpolation: vec![],
        writes_depth: false,
        can_discard: false,
        f: |i: &QuadBatch, o: &mut QuadOutputs| {
            for l in 0..i.quads * 4 {
                o.color[0][l] = [i.primitive_id[l] + 1, 0, 0, 0];
            }
            Ok(())
        },
    };
    let pipe = Pipeline {
        state: st,
        vertex: &vs,
        fragment: &fs,
        stages: Default::default(),
    };
    let mut rt = RenderTargets {
        color: vec![ColorTarget::new(Format::R32_UINT, w, h)],
        depth_stencil: None,
    };
    let r = Rasterizer::new(2).unwrap();
    let mut pass = r.begin(&mut rt);
    pass.bind_pipeline(&pipe);
    pass.bind_vertex_buffers(&[VertexBuffer {
        binding: 0,
        data: &data,
        offset: 0,
    }]);
    pass.draw(6, 2, 0, 0).unwrap();
    let t = &pass.targets().color[0];
    // strip triangles: 0 = upper-left half of [0,8), 1 = lower-right of [0,8), 2 and 3 in [8,16)
    for inst in 0..2u32 {
        let y0 = 4 * inst;
        assert_eq!(t.read_raw(1, y0)[0], 1);
        assert_eq!(t.read_raw(6, y0 + 3)[0], 2);
        assert_eq!(t.read_raw(9, y0)[0], 3);
        assert_eq!(t.read_raw(14, y0 + 3)[0], 4);
        assert_eq!(t.read_raw(20, y0 + 1)[0], 0);
    }
}
