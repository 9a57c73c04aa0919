//! Clipping and interpolation: triangles crossing w = 0, the near and the far plane against
//! homogeneous barycentrics solved in the test; perspective-correct, noperspective and flat
//! varyings; FragCoord.z and 1/w.
#![allow(clippy::needless_range_loop)]

mod raster_support;

use approx::{abs_diff_eq, relative_eq};
use quadstep::raster::*;
use quadstep::Result;
use raster_support::*;

const W: u32 = 64;
const H: u32 = 64;

/// Varying 0 (smooth) to attachment 0, varying 1 (noperspective) to attachment 1, FragCoord
/// to attachment 2.
fn fs_three() -> FragmentFn<impl Fn(&QuadBatch, &mut QuadOutputs) -> Result<()> + Sync> {
    FragmentFn {
        interpolation: vec![Interpolation::Smooth, Interpolation::NoPerspective],
        writes_depth: false,
        can_discard: false,
        f: |i: &QuadBatch, o: &mut QuadOutputs| {
            for l in 0..i.quads * 4 {
                o.color[0][l] = i.varyings[0][l];
                o.color[1][l] = i.varyings[1][l];
                o.color[2][l] = i.frag_coord[l].map(f32::to_bits);
            }
            Ok(())
        },
    }
}

fn three_targets() -> RenderTargets {
    let mut rt = RenderTargets {
        color: (0..3)
            .map(|_| ColorTarget::new(Format::R32G32B32A32_SFLOAT, W, H))
            .collect(),
        depth_stencil: None,
    };
    rt.color.iter_mut().for_each(|c| c.clear_f32([-1.0; 4]));
    rt
}

/// Draw one clip-space triangle whose varyings 0 and 1 are the unit vectors (so the
/// interpolated value is the weights themselves).
fn draw_tri(v: [[f64; 4]; 3], st: &PipelineState) -> RenderTargets {
    let mut verts = Vec::new();
    for (i, p) in v.iter().enumerate() {
        let mut e = [0.0f32; 4];
        e[i] = 1.0;
        e[3] = 1.0;
        verts.push(p.map(|c| c as f32));
        verts.push(e);
        verts.push(e);
    }
    let mut rt = three_targets();
    run_draw(st, &verts, 3, &fs_three(), &mut rt, 2).unwrap();
    rt
}

fn check_clipped(v: [[f64; 4]; 3], st: &PipelineState) {
    let rt = draw_tri(v, st);
    let (mut n_in, mut n_out) = (0, 0);
    for py in 0..H {
        for px in 0..W {
            let got = rt.color[0].read_f32(px, py);
            let fc = rt.color[2].read_f32(px, py);
            let r = ref_homogeneous(W, H, v, px, py);
            let inside = matches!(r, Some((b, zw, _)) if b.iter().all(|&x| x > 0.01) && zw > 0.005 && zw < 0.995);
            let outside = match r {
                None => true,
                Some((b, zw, _)) => b.iter().any(|&x| x < -0.01) || !(-0.005..=1.005).contains(&zw),
            };
            if inside {
                n_in += 1;
                let (b, zw, s) = r.unwrap();
                assert!(
                    abs_diff_eq!(got.map(f64::from)[..3], b[..], epsilon = 2e-4),
                    "({px}, {py}) weights {got:?} vs {b:?}"
                );
                assert!(abs_diff_eq!(got[3], 1.0, epsilon = 1e-5), "{got:?}");
                assert!(
                    abs_diff_eq!(fc[2] as f64, zw, epsilon = 1e-4),
                    "({px}, {py}) z {} vs {zw}",
                    fc[2]
                );
                assert!(
                    relative_eq!(fc[3] as f64, s, epsilon = 1e-4, max_relative = 1e-4),
                    "({px}, {py}) 1/w {} vs {s}",
                    fc[3]
                );
                assert_eq!([fc[0], fc[1]], [px as f32 + 0.5, py as f32 + 0.5]);
            } else if outside {
                n_out += 1;
                assert_eq!(got, [-1.0; 4], "({px}, {py}) should not be covered");
            }
        }
    }
    assert!(n_in > 200 && n_out > 200, "inside {n_in}, outside {n_out}");
}

#[test]
fn triangle_crossing_w0_and_the_near_plane() {
    // C is behind the eye (w < 0) and in front of nothing (z < 0).
    let v = [
        [-0.8, -0.7, 0.2, 1.0],
        [1.2, -0.5, 1.5, 2.5],
        [0.2, 1.5, -0.9, -0.5],
    ];
    check_clipped(v, &state_vec4s(3));
    // Only the near plane, visibly: z goes from 0.5 down to -0.5 at C.
    let v = [
        [-0.8, -0.7, 0.5, 1.0],
        [0.9, -0.6, 0.5, 1.2],
        [0.0, 0.8, -0.5, 1.0],
    ];
    check_clipped(v, &state_vec4s(3));
}

#[test]
fn triangle_crossing_the_far_plane() {
    let v = [
        [-0.5, -0.5, 0.5, 1.0],
        [0.9, -0.2, 2.8, 2.0],
        [0.0, 0.9, 0.1, 1.0],
    ];
    check_clipped(v, &state_vec4s(3));
    // depth clamp: nothing is clipped at the far plane; FragCoord.z keeps the unclamped window
    // depth (only the tested and stored depth is clamped, see tests/raster_depth_clamp.rs)
    let mut st = state_vec4s(3);
    st.rasterization.depth_clamp = true;
    let rt = draw_tri(v, &st);
    let mut clamped = 0;
    for py in 0..H {
        for px in 0..W {
            if let Some((b, zw, _)) = ref_homogeneous(W, H, v, px, py) {
                if b.iter().all(|&x| x > 0.01) {
                    let fc = rt.color[2].read_f32(px, py);
                    assert!(
                        relative_eq!(fc[2] as f64, zw, epsilon = 1e-4, max_relative = 1e-4),
                        "({px}, {py}) {} vs {zw}",
                        fc[2]
                    );
                    if zw > 1.01 {
                        clamped += 1;
                    }
                }
            }
        }
    }
    assert!(clamped > 20);
}

#[test]
fn perspective_and_noperspective_weights() {
    // All w > 0, no clipping: smooth weights are the homogeneous ones, noperspective weights
    // are the window-space (area) barycentrics.
    let v = [
        [-0.8, -0.7, 0.2, 1.0],
        [1.2, -0.5, 1.5, 2.5],
        [0.0, 0.9, 0.1, 1.0],
    ];
    let rt = draw_tri(v, &state_vec4s(3));
    let win: Vec<[f64; 2]> = v
        .iter()
        .map(|p| {
            [
                (p[0] / p[3] + 1.0) * W as f64 / 2.0,
                (p[1] / p[3] + 1.0) * H as f64 / 2.0,
            ]
        })
        .collect();
    let area = |a: [f64; 2], b: [f64; 2], c: [f64; 2]| {
        (b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1])
    };
    let total = area(win[0], win[1], win[2]);
    let mut n = 0;
    for py in 0..H {
        for px in 0..W {
            let p = [px as f64 + 0.5, py as f64 + 0.5];
            let s = [
                area(p, win[1], win[2]) / total,
                area(win[0], p, win[2]) / total,
                area(win[0], win[1], p) / total,
            ];
            if s.iter().any(|&x| x < 0.01) {
                continue;
            }
            n += 1;
            let (b, _, _) = ref_homogeneous(W, H, v, px, py).unwrap();
            let smooth = rt.color[0].read_f32(px, py).map(f64::from);
            let linear = rt.color[1].read_f32(px, py).map(f64::from);
            assert!(
                abs_diff_eq!(smooth[..3], b[..], epsilon = 2e-4),
                "smooth ({px}, {py}) {smooth:?} vs {b:?}"
            );
            assert!(
                abs_diff_eq!(linear[..3], s[..], epsilon = 2e-4),
                "noperspective ({px}, {py}) {linear:?} vs {s:?}"
            );
        }
    }
    assert!(n > 300);
}

#[test]
fn flat_uses_the_first_vertex_and_keeps_raw_bits() {
    let bits = [
        [0xdead_beefu32, 1, 2, 3],
        [0x7fc0_0001, 4, 5, 6],
        [0xffff_ffff, 7, 8, 9],
        [10, 11, 12, 13],
    ];
    let pos = [[2.0, 2.0], [2.0, 30.0], [30.0, 2.0], [30.0, 30.0]];
    let mut verts = Vec::new();
    for i in 0..4 {
        verts.push(clip_of(32, 32, pos[i][0], pos[i][1], 0.5));
        verts.push(bits[i].map(f32::from_bits));
    }
    let mut st = state_vec4s(2);
    st.topology = Topology::TriangleStrip;
    let fs = fs_varying0(Interpolation::Flat);
    let mut rt = RenderTargets {
        color: vec![ColorTarget::new(Format::R32G32B32A32_UINT, 32, 32)],
        depth_stencil: None,
    };
    // vertex buffers carry the raw bits untouched (R32G32B32A32_SFLOAT fetch is a copy)
    run_draw(&st, &verts, 2, &fs, &mut rt, 1).unwrap();
    // strip triangle 0 = (0, 1, 2) provoked by vertex 0; triangle 1 = (1, 3, 2) by vertex 1
    assert_eq!(rt.color[0].read_raw(5, 5), bits[0]);
    assert_eq!(rt.color[0].read_raw(25, 25), bits[1]);
    assert_eq!(rt.color[0].read_raw(0, 0), [0; 4]);
}

#[test]
fn lines_interpolate_along_the_segment() {
    // A horizontal line from x = 2 to x = 30 at y = 4.5, w from 1 to 3: perspective-correct
    // t at the pixel centre x is t_s / w1 / ((1 - t_s) / w0 + t_s / w1), t_s = (x - 2) / 28.
    let (w, h) = (32u32, 8u32);
    let a = [2.0 / 16.0 - 1.0, 4.5 / 4.0 - 1.0, 0.5, 1.0f32];
    let b = [
        (30.0 / 16.0 - 1.0) * 3.0,
        (4.5 / 4.0 - 1.0) * 3.0,
        0.5 * 3.0,
        3.0f32,
    ];
    let (z, one) = ([0.0f32; 4], [1.0f32, 0.0, 0.0, 0.0]);
    let verts = [a, z, z, b, one, one];
    let mut st = state_vec4s(3);
    st.topology = Topology::LineList;
    let mut rt = RenderTargets {
        color: (0..3)
            .map(|_| ColorTarget::new(Format::R32G32B32A32_SFLOAT, w, h))
            .collect(),
        depth_stencil: None,
    };
    run_draw(&st, &verts, 3, &fs_three(), &mut rt, 1).unwrap();
    for px in 2..30u32 {
        let ts = (px as f64 + 0.5 - 2.0) / 28.0;
        let t = (ts / 3.0) / ((1.0 - ts) + ts / 3.0);
        let got = rt.color[0].read_f32(px, 4)[0] as f64;
        assert!(abs_diff_eq!(got, t, epsilon = 1e-4), "x {px}: {got} vs {t}");
        let lin = rt.color[1].read_f32(px, 4)[0] as f64;
        assert!(
            abs_diff_eq!(lin, ts, epsilon = 1e-4),
            "noperspective x {px}: {lin} vs {ts}"
        );
        assert_eq!(rt.color[0].read_f32(px, 3), [0.0; 4]);
    }
}

#[test]
fn line_crossing_w0_is_clipped_and_interpolated() {
    // A at NDC x = -0.75 (w = 1), B behind the eye (w = -1); z = w / 2 everywhere, so only the
    // w > 0 clip matters. The point at parameter t projects to X = (t * 1.75 - 0.75) / (1 - 2t),
    // so the pixel centre at X sees t = (X + 0.75) / (1.75 + 2X); the visible part runs from
    // window x = 4 to +infinity.
    let (w, h) = (32u32, 8u32);
    let a = [-0.75f32, 0.0, 0.5, 1.0];
    let b = [1.0f32, 0.0, -0.5, -1.0];
    let (z, one) = ([0.0f32; 4], [1.0f32, 0.0, 0.0, 0.0]);
    let mut st = state_vec4s(3);
    st.topology = Topology::LineList;
    let mut rt = RenderTargets {
        color: (0..3)
            .map(|_| ColorTarget::new(Format::R32G32B32A32_SFLOAT, w, h))
            .collect(),
        depth_stencil: None,
    };
    rt.color.iter_mut().for_each(|c| c.clear_f32([-1.0; 4]));
    run_draw(&st, &[a, z, z, b, one, one], 3, &fs_three(), &mut rt, 1).unwrap();
    for y in 0..h {
        for x in 0..w {
            let got = rt.color[0].read_f32(x, y);
            // the line lies on y = 4.0: the row whose centre (3.5) is on the top edge
            if y == 3 && x >= 4 {
                let nx = (x as f64 + 0.5) / 16.0 - 1.0;
                let t = (nx + 0.75) / (1.75 + 2.0 * nx);
                assert!(
                    abs_diff_eq!(got[0] as f64, t, epsilon = 1e-4),
                    "x {x}: {} vs {t}",
                    got[0]
                );
                let fc = rt.color[2].read_f32(x, y);
                assert!(abs_diff_eq!(fc[2], 0.5, epsilon = 1e-6), "{fc:?}");
            } else {
                assert_eq!(got, [-1.0; 4], "({x}, {y})");
            }
        }
    }
}
