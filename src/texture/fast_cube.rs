//! The batch route of cube and cube-array views ([`Kernel::sample_batch`]'s wide routine for
//! them, chosen by `fast_wide::pick_wide`): per quad, face selection, the face coordinates,
//! the cube derivative transform and λ of the four lanes as lane-wise operations, level
//! selection once per distinct (λ_base, bias), then `fast_plane.rs`'s plane routines (the
//! per-quad fast path's), and footprints that leave their face (seamless edges and corners)
//! lane by lane on the plane instead of through the general path.
//!
//! Shape and exactness: every operation is the per-quad path's, in its order, on four lanes
//! at once — `cube::select_face` (ties Z ≥ Y ≥ X, the sign bit of the major component),
//! `FaceCoord::st` (`sc·(0.5/|ma|) + 0.5`), `cube::transform_deriv` on the coarse lane-0
//! differences, the texel-space lengths and their maximum as `Kernel::lod_from_derivs` has
//! them; negation is a sign-bit flip as Rust's, no FMA. Only `log2` stays scalar (libm's, per
//! lane, once per distinct argument). Inactive lanes take the first active lane's direction
//! (as `fast::quad` does). A kernel whose selection cannot depend on λ — one level and equal
//! minification and magnification filters — selects once per chunk and skips λ altogether.
//! The seamless lanes ([`seamless_lane`]) are `filter::level_cube` and `Kernel::sample_lane`
//! on the decoded plane (whose texels are the general path's decoded texels). Plane kernels
//! only (every float-kind format, Dref too); quads whose lanes disagree on the texel filter go
//! per quad. `tests::cube_batches_equal_the_per_quad_path` holds it to [`Kernel::sample`].
//!
//! Why (callgrind instructions per quad, `benches/sampler.rs`): cube views had no batch
//! route, every quad went through [`Kernel::sample`] (per-lane cube LOD: four `log2f` and
//! transforms) and, at a face edge, the general path. lavapipe's cube scene (8×8 faces, one
//! level, bilinear; `cube_bilinear_rgba8*`): per quad 2415 → 1025 (plane routes, edge quads
//! still per lane through `remap_edge`'s f64 directions) → 883 (the integer edge table); the
//! 512² scene end to end 843 → 410 instructions per sample (bits unchanged). Trilinear on
//! 128² faces (`cube_trilinear_rgba8*`): 2045 → 1614 — what is left there is per-lane level
//! selection (`Kernel::lane_lod`, ~130), `lane_levels` (~130) and `log2f` (~85) on the ±x
//! faces, where λ differs lane by lane.

use super::address::CLAMP;
use super::cube::remap_edge_step;
use super::fast::QuadIn;
use super::fast_plane::{lane_levels, plane_route, uni_levels};
use super::fast_wide::{BatchArgs, BatchLod, WideFn, WideFnDbg};
use super::filter::{fl, lerp4};
use super::image::{Image, Plane, ViewType};
use super::sample::{layer_index, Kernel, LaneLod};
use super::sampler::LodPrecision;
use wide::{f32x4, i32x4};

/// The cube batch routine for a kernel: cube and cube-array views with a decoded plane,
/// exact precision.
pub(super) fn pick_wide_cube(k: &Kernel) -> Option<WideFnDbg> {
    if !k.cube
        || !k.plane
        || k.cfg.precision != LodPrecision::Exact
        || k.sampler.unnormalized_coordinates
        || k.aniso.is_some()
    {
        return None;
    }
    Some(WideFnDbg(if k.sampler.compare_enable {
        wide_cube::<true> as WideFn
    } else {
        wide_cube::<false> as WideFn
    }))
}

/// `-0.0` in every lane: the sign bit.
#[inline(always)]
fn sign() -> f32x4 {
    f32x4::splat(-0.0)
}

/// The face selection of four directions (`cube::select_face`, lane-wise).
#[derive(Clone, Copy)]
struct Faces {
    /// The z (resp. y) face is the major axis (masks).
    zs: f32x4,
    ys: f32x4,
    /// The sign bit where the major component is negative.
    nsign: f32x4,
    /// Face index 0..5.
    face: i32x4,
}

impl Faces {
    #[inline(always)]
    fn of(x: f32x4, y: f32x4, z: f32x4) -> Faces {
        let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
        let zs = az.simd_ge(ax) & az.simd_ge(ay);
        let ys = !zs & ay.simd_ge(ax);
        let m = zs.select(z, ys.select(y, x));
        let neg: i32x4 = wide::bytemuck::cast::<f32x4, i32x4>(m) >> 31;
        let (zi, yi): (i32x4, i32x4) = (wide::bytemuck::cast(zs), wide::bytemuck::cast(ys));
        // z: 4, y: 2, x: 0, plus one for the negative face (masks are −1)
        let face = (i32x4::splat(4) & zi) + (i32x4::splat(2) & yi) - neg;
        Faces {
            zs,
            ys,
            nsign: wide::bytemuck::cast::<i32x4, f32x4>(neg) & sign(),
            face,
        }
    }

    /// The face table's `(s_c, t_c, m)` of a vector `v` (`m`: the major component with the
    /// face's sign applied): the coordinates' `s_c`, `t_c` and the derivative's
    /// `(∂s_c, ∂t_c, ∂|r_c|)` (`cube::select_deriv`).
    #[inline(always)]
    fn table(&self, x: f32x4, y: f32x4, z: f32x4) -> (f32x4, f32x4, f32x4) {
        let (zs, ys, ns) = (self.zs, self.ys, self.nsign);
        let s = zs.select(x ^ ns, ys.select(x, z ^ sign() ^ ns));
        let t = zs.select(y ^ sign(), ys.select(z ^ ns, y ^ sign()));
        let m = zs.select(z, ys.select(y, x)) ^ ns;
        (s, t, m)
    }
}

/// Lanes `4q..4q + 4` of `row` as f32 lanes (zeros for an empty row).
#[inline(always)]
fn lanes(row: &[u32], q: usize) -> f32x4 {
    match row.get(4 * q..4 * q + 4) {
        Some(r) => f32x4::from([r[0], r[1], r[2], r[3]].map(f32::from_bits)),
        None => f32x4::ZERO,
    }
}

/// The [`WideFn`] of cube plane kernels (`CMP`: with a depth comparison).
fn wide_cube<const CMP: bool>(
    k: &Kernel,
    img: &Image,
    b: &BatchArgs,
    q0: usize,
    nq: usize,
    out: &mut [[u32; 4]],
) -> u16 {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::avx2() {
        // SAFETY: the CPU has AVX2 (`cpu::avx2()` is true only then)
        return unsafe { wide_cube_avx2::<CMP>(k, img, b, q0, nq, out) };
    }
    wide_cube_in::<CMP, false>(k, img, b, q0, nq, out)
}

/// [`wide_cube_in`] compiled for AVX2 (VEX encoding, no FMA: the same roundings).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn wide_cube_avx2<const CMP: bool>(
    k: &Kernel,
    img: &Image,
    b: &BatchArgs,
    q0: usize,
    nq: usize,
    out: &mut [[u32; 4]],
) -> u16 {
    // `AVX = true`: this function runs only where AVX2 was detected
    wide_cube_in::<CMP, true>(k, img, b, q0, nq, out)
}

#[inline(always)]
fn wide_cube_in<const CMP: bool, const AVX: bool>(
    k: &Kernel,
    img: &Image,
    b: &BatchArgs,
    q0: usize,
    nq: usize,
    out: &mut [[u32; 4]],
) -> u16 {
    let Some(plane) = img.plane() else {
        return u16::MAX; // cannot happen for the kernel's image: per quad
    };
    let lanes_of = 4 * q0..4 * (q0 + nq);
    fn rows<'r>(r: &'r [u32], lanes: &std::ops::Range<usize>) -> &'r [u32] {
        r.get(lanes.clone()).unwrap_or(&[])
    }
    let row = |r| rows(r, &lanes_of);
    let (Some(masks), Some(out)) = (b.masks.get(q0..q0 + nq), out.get_mut(lanes_of.clone())) else {
        return u16::MAX;
    };
    let [xr, yr, zr] = [0, 1, 2].map(|c| row(b.coords[c]));
    let view = &k.view;
    let array = view.view_type == ViewType::CubeArray;
    let cube_row = if array { row(b.coords[3]) } else { &[] };
    let dref_row = row(b.dref);
    if CMP && dref_row.is_empty() {
        return u16::MAX; // `sample_batch` requires the operand: not reached from there
    }
    let (implicit, lod_row) = match b.lod {
        BatchLod::Implicit(r) => (true, row(r)),
        BatchLod::Explicit(r) => (false, row(r)),
        BatchLod::Zero => (false, &[][..]),
    };
    let s = &k.sampler;
    // one level and one texel filter: the selection is the same whatever λ
    let fixed = (view.level_count == 1 && s.min_filter == s.mag_filter)
        .then(|| k.lane_lod(0.0, 0.0, f32::NEG_INFINITY))
        .flatten();
    let size0 = f32x4::splat(k.size0[0]);
    let half = f32x4::splat(0.5);
    let op = s.compare_op;
    let mut rest = 0u16;
    // the previous distinct (λ_base, bias) and what it selected
    let mut prev: Option<((u32, u32), Option<LaneLod>)> = None;
    for (q, (&m, o)) in masks.iter().zip(out.chunks_exact_mut(4)).enumerate() {
        let mask = m & 0xf;
        if mask == 0 {
            continue;
        }
        let first = mask.trailing_zeros() as usize;
        let (x, y, z) = (lanes(xr, q), lanes(yr, q), lanes(zr, q));
        // inactive lanes take the first active lane's direction (`fast::quad`)
        let (lx, ly, lz) = if mask == 0xf {
            (x, y, z)
        } else {
            let keep: [i32; 4] = std::array::from_fn(|l| -((mask >> l & 1) as i32));
            let keep: f32x4 = wide::bytemuck::cast(i32x4::from(keep));
            let f = |v: f32x4| keep.select(v, f32x4::splat(v.to_array()[first]));
            (f(x), f(y), f(z))
        };
        let faces = Faces::of(lx, ly, lz);
        let (sc, tc, m) = faces.table(lx, ly, lz);
        let ma = m.abs();
        // `FaceCoord::st`
        let inv = half / ma;
        let (fs, ft) = (sc * inv + half, tc * inv + half);
        let face = faces.face.to_array().map(|f| f as u32);
        let cube = if array {
            let c = lanes(cube_row, q).to_array();
            let l = if mask == 0xf {
                c
            } else {
                std::array::from_fn(|i| if mask >> i & 1 != 0 { c[i] } else { c[first] })
            };
            l.map(|c| 6 * layer_index(c, view.layer_count / 6))
        } else {
            [0; 4]
        };
        let layer: [u32; 4] = std::array::from_fn(|l| view.base_layer + cube[l] + face[l]);
        // the lanes' selections
        let (lods, uniform) = if let Some(f) = fixed {
            ([f; 4], true)
        } else {
            let (lam, bias) = if implicit {
                // coarse derivatives (`lod::quad_derivs`) of the lanes' own coordinates,
                // through each lane's face (`Kernel::lod_from_derivs`)
                let (xa, ya, za) = (x.to_array(), y.to_array(), z.to_array());
                let dx = [xa[1] - xa[0], ya[1] - ya[0], za[1] - za[0]].map(f32x4::splat);
                let dy = [xa[2] - xa[0], ya[2] - ya[0], za[2] - za[0]].map(f32x4::splat);
                let k2 = half / (ma * ma);
                let tr = |d: [f32x4; 3]| {
                    let (ds, dt, dm) = faces.table(d[0], d[1], d[2]);
                    (
                        k2 * (ma * ds - sc * dm) * size0,
                        k2 * (ma * dt - tc * dm) * size0,
                    )
                };
                let ((ax, bx), (ay, by)) = (tr(dx), tr(dy));
                // `lod::len` of each, non-finite as 0, and the larger
                let len = |a: f32x4, b: f32x4| {
                    let r = (a * a + b * b).sqrt();
                    r.abs().simd_lt(f32x4::splat(f32::INFINITY)) & r
                };
                let major = len(ax, bx).fast_max(len(ay, by)).to_array();
                // `log2` per distinct length
                let mut lam = [0f32; 4];
                let mut last: Option<(u32, f32)> = None;
                for l in 0..4 {
                    if mask >> l & 1 == 0 {
                        continue;
                    }
                    let bits = major[l].to_bits();
                    lam[l] = match last {
                        Some((b, v)) if b == bits => v,
                        _ => major[l].log2(),
                    };
                    last = Some((bits, lam[l]));
                }
                (lam, lanes(lod_row, q).to_array())
            } else {
                (lanes(lod_row, q).to_array(), [0.0; 4])
            };
            let key = |l: usize| (lam[l].to_bits(), bias[l].to_bits());
            let k0 = key(first);
            let uniform = (0..4).all(|l| mask >> l & 1 == 0 || key(l) == k0);
            let mut sel = |l: usize| -> Option<LaneLod> {
                let kl = key(l);
                match prev {
                    Some((pk, s)) if pk == kl => s,
                    _ => {
                        let s = k.lane_lod(lam[l], bias[l], f32::NEG_INFINITY);
                        prev = Some((kl, s));
                        s
                    }
                }
            };
            let Some(l0) = sel(first) else {
                rest |= 1 << q;
                continue;
            };
            let mut lods = [l0; 4];
            let mut ok = true;
            if !uniform {
                for (l, lod) in lods.iter_mut().enumerate() {
                    if l != first && mask >> l & 1 != 0 {
                        match sel(l) {
                            Some(x) if x.linear == l0.linear => *lod = x,
                            _ => ok = false,
                        }
                    }
                }
            }
            if !ok {
                rest |= 1 << q;
                continue;
            }
            (lods, uniform)
        };
        let qin = QuadIn {
            s: fs.to_array(),
            t: ft.to_array(),
            layer,
            one_layer: false,
            off: None,
            dref: if CMP {
                lanes(dref_row, q).to_array().map(|r| k.dref_value(r))
            } else {
                [0.0; 4]
            },
        };
        let linear = lods[first].linear;
        let cmp = CMP.then_some(op);
        let r = if uniform {
            uni_levels(k, &lods[first], layer, false).and_then(|lv| {
                plane_route::<CLAMP, true, 0, true, AVX>(plane, &qin, &lv, linear, cmp, k.snorm)
            })
        } else {
            let Some(&first_lv) = k.plane_levels.first() else {
                rest |= 1 << q;
                continue;
            };
            let mut scratch = [first_lv; 2];
            lane_levels(k, &lods, layer, &mut scratch).and_then(|lv| {
                plane_route::<CLAMP, false, 0, true, AVX>(plane, &qin, &lv, linear, cmp, k.snorm)
            })
        };
        let r: [[u32; 4]; 4] = match r {
            Some(r) => wide::bytemuck::cast(r),
            None => {
                // a footprint over a face edge (or NaN / huge coordinates): lane by lane
                let mut r = [[0u32; 4]; 4];
                for l in 0..4 {
                    if mask >> l & 1 != 0 {
                        r[l] = seamless_lane::<CMP>(k, plane, &qin, l, face[l], &lods[l]);
                    }
                }
                r
            }
        };
        if mask == 0xf {
            o.copy_from_slice(&r);
        } else {
            super::merge_lanes(o, &r, mask);
        }
    }
    rest
}

/// `(floor(x), frac(x))` with the fraction clamped to [0, 1] (`filter::split`).
#[inline(always)]
fn split(x: f32) -> (i32, f32) {
    let i = fl(x);
    (i, (x - i as f32).clamp(0.0, 1.0))
}

/// One lane of a cube quad by the general path's operations (`Kernel::sample_lane` with
/// `filter::level_cube`: seamless edges through `cube::remap_edge` (its integer
/// table form, `cube::remap_edge_step`), the corner average in
/// f64) on the decoded plane; `CMP`: each texel compared (`(pass, 0, 0, 1)`) before filtering.
#[inline(never)]
fn seamless_lane<const CMP: bool>(
    k: &Kernel,
    plane: &Plane,
    q: &QuadIn,
    lane: usize,
    face: u32,
    ll: &LaneLod,
) -> [u32; 4] {
    let texels = &plane.texels[..];
    let layer = q.layer[lane];
    let dref = q.dref[lane];
    let op = k.sampler.compare_op;
    let (st0, st1) = (q.s[lane], q.t[lane]);
    let mut acc = [0f32; 4];
    let levels = ll.levels;
    for &(l, wl) in &levels.l[..levels.n] {
        let info = &k.lv[(k.view.base_level + l) as usize];
        let n = info.size[0];
        let e = info.sizef[0];
        let (u, v) = (st0 * e, st1 * e);
        // texel (i, j) of absolute layer `lay` on this level (in range)
        let texel = |lay: u32, i: i32, j: i32| -> [f32; 4] {
            let at = info.tbase + lay as usize * info.tlayer + (j * n + i) as usize;
            let t = texels.get(at).copied().unwrap_or(f32x4::ZERO).to_array();
            if CMP {
                [if op.test(dref, t[0]) { 1.0 } else { 0.0 }, 0.0, 0.0, 1.0]
            } else {
                t
            }
        };
        let val = if !ll.linear {
            let i = fl(u).clamp(0, n - 1);
            let j = fl(v).clamp(0, n - 1);
            texel(layer, i, j)
        } else {
            let (i0, a) = split(u - 0.5);
            let (j0, b) = split(v - 0.5);
            let (i1, j1) = (i0.saturating_add(1), j0.saturating_add(1));
            let inside = i0 >= 0 && j0 >= 0 && i1 < n && j1 < n;
            // (face, i, j) of each tap first, then the reads (a closure returning
            // `Option<[f32; 4]>` stayed out of line: ~70 instructions a tap)
            let taps = [(i0, j0), (i1, j0), (i0, j1), (i1, j1)];
            let mut t = [None; 4];
            for (o, &(i, j)) in t.iter_mut().zip(&taps) {
                let at = if inside {
                    Some((face, i, j))
                } else {
                    remap_edge_step(face, i, j, n)
                };
                *o = at.map(|(f, ni, nj)| texel(layer - face + f, ni, nj));
            }
            let t = if let [Some(a), Some(b), Some(c), Some(d)] = t {
                [a, b, c, d]
            } else {
                // corner: the missing texel is the average of the three real ones
                let mut s = [0.0f64; 4];
                for v in t.iter().flatten() {
                    for c in 0..4 {
                        s[c] += v[c] as f64;
                    }
                }
                let s = s.map(|x| (x / 3.0) as f32);
                t.map(|v| v.unwrap_or(s))
            };
            lerp4(lerp4(t[0], t[1], a), lerp4(t[2], t[3], a), b)
        };
        // `w = wl / 1` (one probe) and `acc += w·v`
        let w = wl / 1.0;
        for c in 0..4 {
            acc[c] += w * val[c];
        }
    }
    if k.snorm {
        acc = acc.map(|x| x.max(-1.0));
    }
    acc.map(f32::to_bits)
}
