//! Naive reference sampler in f64, written straight from the spec formulas (sampling.md §1.1,
//! §4, §5, §7, §8, §10) for tests only. One lane at a time, Vulkan policy, isotropic, float
//! formats. Texels are read with `Image::read_texel_f32` (format decode has its own
//! hand-computed tests). It also reports whether the lane sits within `EPS` of a
//! discontinuity (nearest-texel boundary, nearest-mip .5, mag/min switch, layer .5, cube face
//! tie) where f32 and f64 may legitimately choose differently.

use super::image::{Image, ImageView, ViewType};
use super::sampler::{AddressMode, Filter, MipmapMode, Sampler};

const EPS: f64 = 2e-3;

/// One lane's inputs.
#[derive(Clone, Copy, Debug)]
pub struct RefLane {
    pub coord: [f64; 4],
    /// Normalized derivatives (cube: of the direction); `None` → explicit `lod`.
    pub deriv: Option<([f64; 3], [f64; 3])>,
    pub lod: f64,
    pub bias: f64,
    pub min_lod: f64,
    pub offset: [i32; 3],
    pub dref: Option<f64>,
}

fn near_int(x: f64) -> bool {
    (x - x.round()).abs() < EPS
}

fn face_of(d: [f64; 3]) -> (usize, f64, f64, f64) {
    let (ax, ay, az) = (d[0].abs(), d[1].abs(), d[2].abs());
    if az >= ax && az >= ay {
        if d[2] < 0.0 {
            (5, -d[0], -d[1], d[2])
        } else {
            (4, d[0], -d[1], d[2])
        }
    } else if ay >= ax {
        if d[1] < 0.0 {
            (3, d[0], -d[2], d[1])
        } else {
            (2, d[0], d[2], d[1])
        }
    } else if d[0] < 0.0 {
        (1, d[2], -d[1], d[0])
    } else {
        (0, -d[2], -d[1], d[0])
    }
}

fn wrap(m: AddressMode, i: i64, n: i64) -> Option<i64> {
    let mirror = |k: i64| if k >= 0 { k } else { -(1 + k) };
    Some(match m {
        AddressMode::Repeat => i.rem_euclid(n),
        AddressMode::MirroredRepeat => (n - 1) - mirror(i.rem_euclid(2 * n) - n),
        AddressMode::ClampToEdge => i.clamp(0, n - 1),
        AddressMode::ClampToBorder => {
            if i < 0 || i >= n {
                return None;
            }
            i
        }
        AddressMode::MirrorClampToEdge => mirror(i).clamp(0, n - 1),
    })
}

/// The reference result and a "near a discontinuity" flag.
pub fn ref_sample(img: &Image, view: &ImageView, s: &Sampler, a: &RefLane) -> ([f64; 4], bool) {
    let mut fragile = false;
    let cube = matches!(view.view_type, ViewType::Cube | ViewType::CubeArray);
    let dims = match view.view_type {
        ViewType::D1 | ViewType::D1Array => 1,
        ViewType::D2 | ViewType::D2Array | ViewType::Cube | ViewType::CubeArray => 2,
        ViewType::D3 => 3,
    };
    let base = img.level_extent(view.base_level).map(|x| x as f64);
    let c = a.coord;
    // coordinates (normalized or face), layer
    let (st, layer, face) = if cube {
        let mags = {
            let mut m = [c[0].abs(), c[1].abs(), c[2].abs()];
            m.sort_by(|x, y| y.partial_cmp(x).unwrap());
            m
        };
        if mags[0] - mags[1] < EPS * mags[0].max(1e-9) {
            fragile = true;
        }
        let (f, sc, tc, ma) = face_of([c[0], c[1], c[2]]);
        let cubei = if view.view_type == ViewType::CubeArray {
            if (c[3] - c[3].floor() - 0.5).abs() < EPS {
                fragile = true;
            }
            (c[3].round_ties_even().max(0.0) as u32).min(view.layer_count / 6 - 1)
        } else {
            0
        };
        (
            [0.5 * sc / ma.abs() + 0.5, 0.5 * tc / ma.abs() + 0.5, 0.0],
            view.base_layer + 6 * cubei + f as u32,
            f,
        )
    } else {
        let li = match view.view_type {
            ViewType::D1Array => Some(1),
            ViewType::D2Array => Some(2),
            _ => None,
        };
        let layer = match li {
            Some(i) => {
                if (c[i] - c[i].floor() - 0.5).abs() < EPS {
                    fragile = true;
                }
                view.base_layer + (c[i].round_ties_even().max(0.0) as u32).min(view.layer_count - 1)
            }
            None => view.base_layer,
        };
        let mut st = [0.0; 3];
        st[..dims].copy_from_slice(&c[..dims]);
        (st, layer, 0)
    };
    // λ_base
    let lb = match a.deriv {
        None => a.lod,
        Some((dx, dy)) => {
            let (mx, my) = if cube {
                let (f, sc, tc, ma) = face_of([c[0], c[1], c[2]]);
                let sel = |d: [f64; 3]| -> [f64; 3] {
                    let (_, s1, t1, m1) = match f {
                        0 => (0, -d[2], -d[1], d[0]),
                        1 => (1, d[2], -d[1], -d[0]),
                        2 => (2, d[0], d[2], d[1]),
                        3 => (3, d[0], -d[2], -d[1]),
                        4 => (4, d[0], -d[1], d[2]),
                        _ => (5, -d[0], -d[1], -d[2]),
                    };
                    let m = ma.abs();
                    [
                        0.5 * (m * s1 - sc * m1) / (m * m) * base[0],
                        0.5 * (m * t1 - tc * m1) / (m * m) * base[0],
                        0.0,
                    ]
                };
                (sel(dx), sel(dy))
            } else {
                let mut mx = [0.0; 3];
                let mut my = [0.0; 3];
                for i in 0..dims {
                    mx[i] = dx[i] * base[i];
                    my[i] = dy[i] * base[i];
                }
                (mx, my)
            };
            let n = |v: [f64; 3]| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
            n(mx).max(n(my)).log2()
        }
    };
    let lp = lb + (s.mip_lod_bias as f64 + a.bias).clamp(-16.0, 16.0);
    let lmin = (s.min_lod as f64).max(a.min_lod);
    let lambda = lp.max(lmin).min(s.max_lod as f64);
    if s.min_filter != s.mag_filter && lambda.abs() < EPS {
        fragile = true;
    }
    let filter = if lambda <= 0.0 {
        s.mag_filter
    } else {
        s.min_filter
    };
    let q = (view.level_count - 1) as f64;
    let d = lambda.clamp(0.0, q);
    let levels: Vec<(u32, f64)> = match s.mipmap_mode {
        MipmapMode::Nearest => {
            if d < q && (d - d.floor() - 0.5).abs() < EPS {
                fragile = true;
            }
            vec![(((d + 0.5).floor()).min(q) as u32, 1.0)]
        }
        MipmapMode::Linear => {
            let hi = d.floor();
            vec![
                (hi as u32, 1.0 - (d - hi)),
                ((hi + 1.0).min(q) as u32, d - hi),
            ]
        }
    };
    let comps = if view.aspect == super::Aspect::Color {
        img.format().components()
    } else {
        1
    };
    let border = {
        let b = s.border_color.rgba();
        let mut o = [0.0, 0.0, 0.0, 1.0];
        for i in 0..comps {
            o[i] = b[i] as f64;
        }
        o
    };
    let read = |level: u32, layer: u32, ijk: [i64; 3]| -> [f64; 4] {
        let v = img
            .read_texel_f32(level, layer, [ijk[0] as u32, ijk[1] as u32, ijk[2] as u32])
            .expect("in range");
        v.map(|x| x as f64)
    };
    let cmp = |v: [f64; 4]| -> [f64; 4] {
        match a.dref {
            None => v,
            Some(r) => {
                let r = if img.format().unorm_depth_bits().is_some() {
                    r.clamp(0.0, 1.0)
                } else {
                    r
                };
                let t = v[0];
                use super::sampler::CompareOp::*;
                let pass = match s.compare_op {
                    Never => false,
                    Less => r < t,
                    Equal => r == t,
                    LessOrEqual => r <= t,
                    Greater => r > t,
                    NotEqual => r != t,
                    GreaterOrEqual => r >= t,
                    Always => true,
                };
                [if pass { 1.0 } else { 0.0 }, 0.0, 0.0, 1.0]
            }
        }
    };
    let mut acc = [0.0f64; 4];
    for (l, wl) in levels {
        if wl == 0.0 {
            continue;
        }
        let level = view.base_level + l;
        let e = img.level_extent(level).map(|x| x as i64);
        let uvw: Vec<f64> = (0..dims)
            .map(|i| {
                if cube {
                    st[i] * e[0] as f64
                } else if s.unnormalized_coordinates {
                    st[i]
                } else {
                    st[i] * e[i] as f64 + a.offset[i] as f64
                }
            })
            .collect();
        // taps: (integer coords, weight)
        let mut taps: Vec<([i64; 3], f64)> = vec![([0; 3], 1.0)];
        for (i, &u) in uvw.iter().enumerate() {
            let mut next = vec![];
            if filter == Filter::Nearest {
                if near_int(u) {
                    fragile = true;
                }
                for (mut t, w) in taps {
                    t[i] = u.floor() as i64;
                    next.push((t, w));
                }
            } else {
                let x = u - 0.5;
                let i0 = x.floor() as i64;
                let al = x - x.floor();
                for (t, w) in taps {
                    let mut t0 = t;
                    t0[i] = i0;
                    let mut t1 = t;
                    t1[i] = i0 + 1;
                    next.push((t0, w * (1.0 - al)));
                    next.push((t1, w * al));
                }
            }
            taps = next;
        }
        let mut vals: Vec<(Option<[f64; 4]>, f64)> = vec![];
        for (t, w) in &taps {
            let v = if cube {
                let n = e[0];
                let (i, j) = if filter == Filter::Nearest {
                    (t[0].clamp(0, n - 1), t[1].clamp(0, n - 1))
                } else {
                    (t[0], t[1])
                };
                let out_i = i < 0 || i >= n;
                let out_j = j < 0 || j >= n;
                if out_i && out_j {
                    None
                } else if !out_i && !out_j {
                    Some(cmp(read(level, layer, [i, j, 0])))
                } else {
                    // geometric neighbour: texel centre direction, reselect face
                    let sc = 2.0 * (i as f64 + 0.5) / n as f64 - 1.0;
                    let tc = 2.0 * (j as f64 + 0.5) / n as f64 - 1.0;
                    let dir = match face {
                        0 => [1.0, -tc, -sc],
                        1 => [-1.0, -tc, sc],
                        2 => [sc, 1.0, tc],
                        3 => [sc, -1.0, -tc],
                        4 => [sc, -tc, 1.0],
                        _ => [-sc, -tc, -1.0],
                    };
                    let (f2, s2, t2, m2) = face_of(dir);
                    let ni =
                        (((0.5 * s2 / m2.abs() + 0.5) * n as f64).floor() as i64).clamp(0, n - 1);
                    let nj =
                        (((0.5 * t2 / m2.abs() + 0.5) * n as f64).floor() as i64).clamp(0, n - 1);
                    Some(cmp(read(
                        level,
                        layer - face as u32 + f2 as u32,
                        [ni, nj, 0],
                    )))
                }
            } else {
                let mut w3 = [0i64; 3];
                let mut border_hit = false;
                for d in 0..dims {
                    match wrap(s.address_mode[d], t[d], e[d]) {
                        Some(v) => w3[d] = v,
                        None => border_hit = true,
                    }
                }
                Some(cmp(if border_hit {
                    border
                } else {
                    read(level, layer, w3)
                }))
            };
            vals.push((v, *w));
        }
        let known: Vec<[f64; 4]> = vals.iter().filter_map(|v| v.0).collect();
        for (v, w) in vals {
            let v = v.unwrap_or_else(|| {
                let mut s3 = [0.0; 4];
                for k in &known {
                    for c in 0..4 {
                        s3[c] += k[c] / 3.0;
                    }
                }
                s3
            });
            for c in 0..4 {
                acc[c] += wl * w * v[c];
            }
        }
    }
    (acc, fragile)
}

/// Reference gather (2D / 2D-array views, no cube): the four texels of the bilinear
/// footprint at the base level in R,G,B,A = (i0,j1),(i1,j1),(i1,j0),(i0,j0) order, component
/// `comp`; `None` when near a texel boundary.
pub fn ref_gather(
    img: &Image,
    view: &ImageView,
    s: &Sampler,
    coord: [f64; 4],
    offset: [i32; 2],
    comp: usize,
) -> Option<[f32; 4]> {
    let level = view.base_level;
    let e = img.level_extent(level).map(|x| x as i64);
    let layer = if view.view_type == ViewType::D2Array {
        if (coord[2] - coord[2].floor() - 0.5).abs() < EPS {
            return None;
        }
        view.base_layer + (coord[2].round_ties_even().max(0.0) as u32).min(view.layer_count - 1)
    } else {
        view.base_layer
    };
    let x = coord[0] * e[0] as f64 - 0.5 + offset[0] as f64;
    let y = coord[1] * e[1] as f64 - 0.5 + offset[1] as f64;
    if near_int(x) || near_int(y) {
        return None;
    }
    let (i0, j0) = (x.floor() as i64, y.floor() as i64);
    let comps = img.format().components();
    let border = s.border_color.rgba();
    let at = |i: i64, j: i64| -> f32 {
        match (
            wrap(s.address_mode[0], i, e[0]),
            wrap(s.address_mode[1], j, e[1]),
        ) {
            (Some(a), Some(b)) => img
                .read_texel_f32(level, layer, [a as u32, b as u32, 0])
                .expect("in range")[comp],
            _ if comp < comps => border[comp],
            _ => [0.0, 0.0, 0.0, 1.0][comp],
        }
    };
    Some([
        at(i0, j0 + 1),
        at(i0 + 1, j0 + 1),
        at(i0 + 1, j0),
        at(i0, j0),
    ])
}
