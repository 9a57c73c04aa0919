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
//!
//! The one-selection run (`run::fixed_run`, AVX2, no Dref): when the selection cannot depend
//! on λ (above) nothing couples a quad's lanes, so the chunk goes through lane by lane, eight
//! lanes (two quads) per 256-bit operation, with no per-quad work at all. Face selection and
//! coordinates are the same operations as above; the footprint is the plane routes'
//! (`−0.5`, `roundps` floor, fraction); the four taps' plane indices come from integer lane
//! operations — inside the face `base + i + j·n`, one step over an edge `base + A + D·k`
//! with `(A, D)` the side's entry of the integer edge table (`cube::EDGE` as per-level
//! constants indexed by face, one `vpermd` each), so a footprint over an edge costs a few
//! blends instead of a lane through [`seamless_lane`]. A corner lane's missing tap is the
//! f64 average of the three others, summed from 0 in tap order (`filter::level_cube`), on
//! that lane alone. The filter is `fast_plane`'s two-lanes-per-256-bit lerps, from one base
//! offset per lane when every footprint of the group is inside its face (`0 ≤ i, j ≤ n − 2`,
//! one unsigned compare each: then none of the edge, corner and bad-lane bookkeeping is
//! done). Only NaN, infinite or huge coordinates (an index that cannot be formed) go through
//! [`seamless_lane`]. Inactive lanes sample (0, 0, 1) and are not written. One check per run
//! that every texel of the layers a lane can reach (its cube's six) is in the plane guards
//! the unchecked reads: every tap is a texel of its own face or, over an edge, of a face of
//! the same cube (`EDGE_COEF` asserts the table's faces and forms), so no group checks its
//! indices. `tests::one_selection_runs_equal_the_per_quad_path` (below) holds the
//! run itself, called directly, and the batch to [`Kernel::sample`] on runs of quads along a
//! face, edges, corners, ties, partial and empty masks, odd quad counts and odd directions.
//!
//! Why: in lavapipe's scene ~20-25 % of the lanes have a footprint over an edge, and a quad
//! with one such lane went four times through `seamless_lane` (~470 instructions a lane);
//! the per-quad shape also paid the four-lane face work, the `QuadIn` and level set-up and
//! the plane route's dispatch per quad. `cube_bilinear_rgba8_wide` 818 → 342 (the run, edge
//! lanes through the table, corners still per lane) → 285 (corners in the run, per-group
//! read forms, no SNORM test per pair) → 237 instructions per quad (238 with the selection
//! below); the 512² scene end to end 357 → 195 per sample (image hash unchanged); what is
//! left of the sampling there is ~54 per sample, the rest is the interpreter. Then 203.9 →
//! 159.0 instructions per quad (the 512² scene 100.9 → 89.0 per sample, hash unchanged): whole
//! groups read their rows and masks unchecked and write through `out`'s pointer, the
//! inactive-lane masking only for partial masks (203.9 → 189.7: the loop and its bounds
//! checks were ~60 a group, the stores ~28); a group whose footprints are all inside their
//! faces reads adjacent taps with none of the edge bookkeeping and no range check (→ 163.7);
//! a corner's average picks its three taps by a `match` instead of an indexed array on the
//! stack (→ 162.1); the edge route's per-group range check (min/max of the four taps) went
//! for the per-run layer check (→ 159.0). Per group of eight lanes now (callgrind,
//! `fixed_run`): ~117 the loop, face and footprint lane work, ~100 the adjacent reads and
//! lerps (59 % of the groups in the scene), ~240 the edge table and four-tap reads (41 %),
//! ~52 a corner lane (a quarter of a lane per group); ~21 a group outside the run. Tried:
//! closures holding intrinsics through `array::map` / `from_fn` or called from two places —
//! LLVM left them out of line (a call per pair, 280 a quad). Not worth it (counted, not
//! built): weights by `vpermilps` immediates after pairing lanes `(h, h + 4)` (saves the four
//! index loads, costs the re-pairing permutes), per-pair choice of the adjacent read form
//! inside edge groups (the test costs what the six index extractions save), sanitizing bad
//! lanes' indices instead of dropping their taps (one instruction).
//!
//! Where λ does select (`cube_trilinear_rgba8_wide`, 128² faces, eight levels), the quads
//! stay on the per-quad shape; two pieces of its per-lane selection are lighter: the lane's
//! selection is [`Kernel::lane_lod`]'s functions called directly with the mipmap mode chosen
//! once (with no shader MinLod it cannot decline), and a quad whose lanes share their levels
//! (only the weights differ: the usual ±x-face quad) builds its slots directly
//! ([`same_levels`]) instead of through `lane_levels`' general bookkeeping: 1612 → 1571
//! instructions per quad. What is left there is the scalar selection itself (~95 a lane,
//! much of it `select_levels`' float-to-integer conversions), `log2f` (~85 a quad) and the
//! plane route; lane-wise selection would need `f32::max`/`min`'s NaN and signed-zero
//! behaviour reproduced exactly, not tried.

use super::address::CLAMP;
use super::cube::{remap_edge_step, EDGE};
use super::fast::QuadIn;
use super::fast_plane::{lane_levels, plane_route, uni_levels, Lv, PlaneLevels};
use super::fast_wide::{BatchArgs, BatchLod, WideFn, WideFnDbg};
use super::old_filter::{fl, lerp4};
use super::format::NumKind;
use super::image::{Image, Plane, ViewType};
use super::lod::select_levels;
use super::old_sample::{layer_index, Kernel, LaneLod};
use super::sampler::{Filter, LodPrecision, MipmapMode};
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
) -> u64 {
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
) -> u64 {
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
) -> u64 {
    let Some(plane) = img.plane() else {
        return u64::MAX; // cannot happen for the kernel's image: per quad
    };
    let lanes_of = 4 * q0..4 * (q0 + nq);
    fn rows<'r>(r: &'r [u32], lanes: &std::ops::Range<usize>) -> &'r [u32] {
        r.get(lanes.clone()).unwrap_or(&[])
    }
    let row = |r| rows(r, &lanes_of);
    let (Some(masks), Some(out)) = (b.masks.get(q0..q0 + nq), out.get_mut(lanes_of.clone())) else {
        return u64::MAX;
    };
    let [xr, yr, zr] = [0, 1, 2].map(|c| row(b.coords[c]));
    let view = &k.view;
    let array = view.view_type == ViewType::CubeArray;
    let cube_row = if array { row(b.coords[3]) } else { &[] };
    let dref_row = row(b.dref);
    if CMP && dref_row.is_empty() {
        return u64::MAX; // `sample_batch` requires the operand: not reached from there
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
    #[cfg(target_arch = "x86_64")]
    if let (true, false, Some(f)) = (AVX, CMP, fixed) {
        let rows = [xr, yr, zr];
        let cube = array.then_some(cube_row);
        // SAFETY: `AVX` is true only in `wide_cube_avx2`, which runs only where AVX2 was
        // detected
        let done = unsafe { fixed_run(k, plane, &f, rows, cube, masks, out) };
        if done {
            return 0;
        }
    }
    let size0 = f32x4::splat(k.size0[0]);
    let half = f32x4::splat(0.5);
    let op = s.compare_op;
    let mut rest = 0u64;
    // the previous distinct (λ_base, bias) and what it selected
    let mut prev: Option<(u64, LaneLod)> = None;
    let select = Select::new(k);
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
            let key = |l: usize| (lam[l].to_bits() as u64) << 32 | bias[l].to_bits() as u64;
            let k0 = key(first);
            let uniform = (0..4).all(|l| mask >> l & 1 == 0 || key(l) == k0);
            let mut sel = |l: usize| -> LaneLod {
                let kl = key(l);
                match prev {
                    Some((pk, s)) if pk == kl => s,
                    _ => {
                        let s = select.lane(lam[l], bias[l]);
                        prev = Some((kl, s));
                        s
                    }
                }
            };
            let l0 = sel(first);
            let mut lods = [l0; 4];
            if !uniform {
                let mut ok = true;
                for (l, lod) in lods.iter_mut().enumerate() {
                    if l != first && mask >> l & 1 != 0 {
                        *lod = sel(l);
                        ok &= lod.linear == l0.linear;
                    }
                }
                if !ok {
                    rest |= 1 << q;
                    continue;
                }
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
            let lv = match same_levels(k, &lods, layer) {
                Some(lv) => Some(lv),
                None => lane_levels(k, &lods, layer, &mut scratch),
            };
            lv.and_then(|lv| {
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
                        let st = (qin.s[l], qin.t[l]);
                        let at = (layer[l], face[l]);
                        r[l] = seamless_lane::<CMP>(k, plane, st, at, qin.dref[l], &lods[l]);
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

/// [`run::fixed_run`] for the selection's texel filter and the kernel's SNORM clamp
/// (`false`, nothing written: the run does not apply).
///
/// # Safety
/// The CPU has AVX2.
#[cfg(target_arch = "x86_64")]
unsafe fn fixed_run(
    k: &Kernel,
    plane: &Plane,
    ll: &LaneLod,
    rows: [&[u32]; 3],
    cube: Option<&[u32]>,
    masks: &[u8],
    out: &mut [[u32; 4]],
) -> bool {
    // SAFETY: the caller's contract (the CPU has AVX2)
    unsafe {
        match (ll.linear, k.snorm) {
            (true, false) => run::fixed_run::<true, false>(k, plane, ll, rows, cube, masks, out),
            (true, true) => run::fixed_run::<true, true>(k, plane, ll, rows, cube, masks, out),
            (false, false) => run::fixed_run::<false, false>(k, plane, ll, rows, cube, masks, out),
            (false, true) => run::fixed_run::<false, true>(k, plane, ll, rows, cube, masks, out),
        }
    }
}

/// [`Kernel::lane_lod`] with no shader MinLod — which then never declines: its D3D test is
/// `−∞ > q` — by the same functions on the same operands, the mipmap mode chosen once.
#[derive(Clone, Copy)]
struct Select<'k> {
    k: &'k Kernel,
    mode: MipmapMode,
}

impl<'k> Select<'k> {
    fn new(k: &'k Kernel) -> Select<'k> {
        let mode = if k.dec.kind != NumKind::Float {
            MipmapMode::Nearest
        } else {
            k.sampler.mipmap_mode
        };
        Select { k, mode }
    }

    /// The selection of a lane with λ_base `base` and shader bias `bias`.
    #[inline(always)]
    fn lane(&self, base: f32, bias: f32) -> LaneLod {
        let s = &self.k.sampler;
        let lambda = if s.unnormalized_coordinates {
            0.0
        } else {
            self.k.lambdas(base, bias, f32::NEG_INFINITY).1
        };
        let filter = if lambda > 0.0 {
            s.min_filter
        } else {
            s.mag_filter
        };
        LaneLod {
            linear: filter == Filter::Linear,
            levels: select_levels(lambda, self.k.view.level_count, self.mode),
        }
    }
}

/// [`lane_levels`] for the usual non-uniform quad — every lane (inactive ones carry the
/// first active lane's selection) on the same levels, only the weights differ — without its
/// general bookkeeping: the same slots, bases and weights. `None`: the lanes' levels differ
/// (or a level is missing; `lane_levels` then decides).
#[inline(always)]
fn same_levels<'k>(k: &'k Kernel, lods: &[LaneLod; 4], layer: [u32; 4]) -> Option<PlaneLevels<'k>> {
    let l0 = &lods[0].levels;
    let n = l0.n.min(2);
    let same = |x: &LaneLod| x.levels.n == l0.n && (0..n).all(|s| x.levels.l[s].0 == l0.l[s].0);
    if !lods[1..].iter().all(same) {
        return None;
    }
    let slot = |s: usize| -> Option<Lv<'k>> {
        let abs = (k.view.base_level + l0.l[s].0) as usize;
        let info = k.lv.get(abs)?;
        Some(Lv {
            weight: f32x4::from(lods.map(|x| x.levels.l[s].1)),
            used: 0xf,
            base: i32x4::from(layer.map(|l| (info.tbase + l as usize * info.tlayer) as i32)),
            v: k.plane_levels.get(abs)?,
        })
    };
    let first = slot(0)?;
    let second = if n == 2 { slot(1)? } else { first };
    Some((n, [first, second]))
}

/// `(floor(x), frac(x))` with the fraction clamped to [0, 1] (`filter::split`).
#[inline(always)]
fn split(x: f32) -> (i32, f32) {
    let i = fl(x);
    (i, (x - i as f32).clamp(0.0, 1.0))
}

/// One lane of a cube quad (face coordinates `(s, t)` on absolute `layer`, which is face
/// `face` of its cube) by the general path's operations (`Kernel::sample_lane` with
/// `filter::level_cube`: seamless edges through `cube::remap_edge` (its integer
/// table form, `cube::remap_edge_step`), the corner average in
/// f64) on the decoded plane; `CMP`: each texel compared (`(pass, 0, 0, 1)`) before filtering.
#[inline(never)]
fn seamless_lane<const CMP: bool>(
    k: &Kernel,
    plane: &Plane,
    (st0, st1): (f32, f32),
    (layer, face): (u32, u32),
    dref: f32,
    ll: &LaneLod,
) -> [u32; 4] {
    let texels = &plane.texels[..];
    let op = k.sampler.compare_op;
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

/// Per side `s` of [`EDGE`] (0: `i = −1`, 1: `i = n`, 2: `j = −1`, 3: `j = n`) and face `f`
/// (lane `f`, lanes 6 and 7 unused): `[f' − f, c_i, c_j, β_i, β_j]` with the neighbour's
/// indices `i' = c_i·(n − 1) + β_i·k`, `j' = c_j·(n − 1) + β_j·k` (`k` the index along the
/// edge): the table's forms 0: `0`, 1: `n − 1`, 2: `k`, 3: `n − 1 − k` as coefficients.
const EDGE_COEF: [[[i32; 8]; 5]; 4] = {
    let mut t = [[[0i32; 8]; 5]; 4];
    let mut side = 0;
    while side < 4 {
        let mut f = 0;
        while f < 6 {
            let (nf, a, b) = EDGE[f][side];
            // what the run's unchecked reads rest on: a face of the same cube, forms 0..=3
            // (indices in 0..n for k in 0..n)
            assert!(nf < 6 && a <= 3 && b <= 3);
            t[side][0][f] = nf as i32 - f as i32;
            t[side][1][f] = (a == 1 || a == 3) as i32;
            t[side][2][f] = (b == 1 || b == 3) as i32;
            t[side][3][f] = form_beta(a);
            t[side][4][f] = form_beta(b);
            f += 1;
        }
        side += 1;
    }
    t
};

/// The coefficient of `k` in an [`EDGE`] index form.
const fn form_beta(form: u8) -> i32 {
    match form {
        2 => 1,
        3 => -1,
        _ => 0,
    }
}

/// The one-selection run (see the module doc): every lane of the chunk through one level
/// selected once, eight lanes (two quads) per 256-bit operation.
#[cfg(target_arch = "x86_64")]
mod run {
    use super::super::image::Plane;
    use super::super::old_sample::{layer_index, Kernel, LaneLod};
    use super::{seamless_lane, EDGE_COEF};
    use std::arch::x86_64::*;
    use wide::bytemuck::cast;

    /// The eight lanes `g..g + 8` of `row` (zeros past its end).
    #[inline(always)]
    fn lanes8(row: &[u32], g: usize) -> [u32; 8] {
        let r = row.get(g..).unwrap_or(&[]);
        match r.first_chunk::<8>() {
            Some(a) => *a,
            None => {
                let h = r.first_chunk::<4>().copied().unwrap_or([0; 4]);
                [h[0], h[1], h[2], h[3], 0, 0, 0, 0]
            }
        }
    }

    /// The [`EDGE`](super::EDGE) table of a level of extent `n` whose layers are `tl` texels
    /// apart, per side: `(A, D)` by face (lanes 0..6), so that the tap `k` along side `s` of
    /// face `f` is plane index `base(layer) + A[f] + D[f]·k` (`base(layer)`: texel (0, 0) of
    /// the lane's own layer; the neighbour's layer is `f' − f` layers away).
    #[target_feature(enable = "avx2")]
    fn edge_table(n: i32, tl: i32) -> [(__m256i, __m256i); 4] {
        let (nv, lastv, tlv) = (
            _mm256_set1_epi32(n),
            _mm256_set1_epi32(n.wrapping_sub(1)),
            _mm256_set1_epi32(tl),
        );
        let side = |s: usize| {
            let [df, ci, cj, bi, bj] = EDGE_COEF[s].map(cast::<[i32; 8], __m256i>);
            let a = _mm256_add_epi32(
                _mm256_mullo_epi32(df, tlv),
                _mm256_mullo_epi32(_mm256_add_epi32(ci, _mm256_mullo_epi32(cj, nv)), lastv),
            );
            (a, _mm256_add_epi32(bi, _mm256_mullo_epi32(bj, nv)))
        };
        [side(0), side(1), side(2), side(3)]
    }

    /// Samples the chunk's lanes (`out`, `masks`: one per quad; the direction rows `rows`
    /// and, for cube arrays, `cube_row`, exactly `out.len()` lanes each) with the kernel's
    /// one selection `ll` (one level of weight 1; `LIN`: its texel filter is linear;
    /// `SNORM`: the kernel's results clamp to −1), every lane on its own: face selection and
    /// face coordinates as `cube::select_face` and `FaceCoord::st`; the footprint as the
    /// plane routes' (`−0.5`, floor, fraction); taps one step over an edge through the
    /// integer edge table ([`edge_table`]), a corner's missing tap as the f64 average of the
    /// three others; NaN, infinite or huge coordinates by [`seamless_lane`]. `false`
    /// (nothing written): the run does not apply.
    #[target_feature(enable = "avx2")]
    pub(super) fn fixed_run<const LIN: bool, const SNORM: bool>(
        k: &Kernel,
        plane: &Plane,
        ll: &LaneLod,
        rows: [&[u32]; 3],
        cube_row: Option<&[u32]>,
        masks: &[u8],
        out: &mut [[u32; 4]],
    ) -> bool {
        let texels = &plane.texels[..];
        let lanes = out.len();
        let (level, weight) = ll.levels.l[0];
        let Some(info) = k.lv.get((k.view.base_level + level) as usize) else {
            return false;
        };
        let n = info.size[0];
        // byte offsets of plane indices below 2²⁶ fit an i32; square faces; the
        // accumulation `0 + 1·v` is `0 + v` (both quiet a NaN the same way)
        if ll.levels.n != 1
            || weight != 1.0
            || texels.is_empty()
            || texels.len() >= 1 << 26
            || n < 1
            || info.size[1] != n
            || lanes != 4 * masks.len()
            || rows.iter().any(|r| r.len() != lanes)
            || cube_row.is_some_and(|r| r.len() != lanes)
        {
            return false;
        }
        let view = &k.view;
        let cubes = view.layer_count / 6;
        // the layers a lane can reach: its cube's six (`layer_index` < `cubes`); every texel
        // of them is in the plane, so that a footprint inside its face needs no range check
        let layers = if cube_row.is_some() { 6 * cubes } else { 6 };
        let layers_in = (view.base_layer as usize + layers as usize)
            .checked_sub(1)
            .and_then(|l| l.checked_mul(info.tlayer))
            .and_then(|b| b.checked_add(info.tbase))
            .and_then(|b| b.checked_add(n as usize * n as usize))
            .is_some_and(|end| end <= texels.len());
        if layers == 0 || !layers_in {
            return false;
        }
        let (tbase, tl) = (info.tbase as i32, info.tlayer as i32);
        let base0 = tbase.wrapping_add((view.base_layer as i32).wrapping_mul(tl));
        let base0 = _mm256_set1_epi32(base0);
        let tlv = _mm256_set1_epi32(tl);
        let nv = _mm256_set1_epi32(n);
        let lastv = _mm256_set1_epi32(n - 1);
        let nf = _mm256_set1_ps(info.sizef[0]);
        // `i < n − 1` as u32 ⇔ `i ^ i32::MIN < inlim` as i32
        let (imin, inlim) = (
            _mm256_set1_epi32(i32::MIN),
            _mm256_set1_epi32((n - 1) ^ i32::MIN),
        );
        let (half, one) = (_mm256_set1_ps(0.5), _mm256_set1_ps(1.0));
        let (sgn, m1) = (_mm256_set1_ps(-0.0), _mm256_set1_ps(-1.0));
        let (izero, ione, ones) = (
            _mm256_setzero_si256(),
            _mm256_set1_epi32(1),
            _mm256_set1_epi32(-1),
        );
        let bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
        let idx: [__m256i; 4] = std::array::from_fn(|h| {
            let (a, b) = (2 * h as i32, 2 * h as i32 + 1);
            _mm256_setr_epi32(a, a, a, a, b, b, b, b)
        });
        // `a + (b − a)·w` in every element (the general path's `lerp4`, no FMA)
        let lerp8 = |a, b, w| _mm256_add_ps(a, _mm256_mul_ps(_mm256_sub_ps(b, a), w));
        let lerp4 = |a, b, w| _mm_add_ps(a, _mm_mul_ps(_mm_sub_ps(b, a), w));
        // `0 + v` (the general path's accumulation with weight 1), SNORM clamped to −1
        let fin8 = |v| {
            let a = _mm256_add_ps(_mm256_setzero_ps(), v);
            if SNORM {
                _mm256_max_ps(a, m1)
            } else {
                a
            }
        };
        let ptr = texels.as_ptr();
        let p16 = 16 * n as usize;
        // the texel `d` bytes past byte offset `b`
        // SAFETY (every use): `b + d` is 16 × a plane index in `0..texels.len()` (a texel of
        // a layer `layers_in` checked, see the reads below), the byte offset of an element of
        // `texels`, aligned
        let rd = |b: i32, d: usize| -> __m128 {
            cast(unsafe {
                *ptr.wrapping_byte_add(d)
                    .wrapping_byte_add(b as u32 as usize)
            })
        };
        // lane `2h`'s texel in the low half, lane `2h + 1`'s in the high half
        let pair = |lo: i32, hi: i32, d: usize| _mm256_set_m128(rd(hi, d), rd(lo, d));
        let mut edges: Option<[(__m256i, __m256i); 4]> = None;
        // whole groups (eight lanes, two masks) first, then a half group (one quad) if any
        let whole = lanes / 8;
        let [xp, yp, zp] = rows.map(|r| r.as_ptr().cast::<f32>());
        let (mp, outp) = (masks.as_ptr(), out.as_mut_ptr());
        for gi in 0..lanes.div_ceil(8) {
            let g = 8 * gi;
            let (m8, x, y, z) = if gi < whole {
                // SAFETY: `g + 8 ≤ 8·whole ≤ lanes`, the length of every row (checked
                // above), and `2·gi + 1 < lanes / 4 = masks.len()`
                unsafe {
                    let m =
                        (*mp.add(2 * gi) & 0xf) as u32 | ((*mp.add(2 * gi + 1) & 0xf) as u32) << 4;
                    let (x, y, z) = (
                        _mm256_loadu_ps(xp.add(g)),
                        _mm256_loadu_ps(yp.add(g)),
                        _mm256_loadu_ps(zp.add(g)),
                    );
                    (m, x, y, z)
                }
            } else {
                let [x, y, z] = rows.map(|r| cast::<[u32; 8], __m256>(lanes8(r, g)));
                ((masks[2 * gi] & 0xf) as u32, x, y, z)
            };
            if m8 == 0 {
                continue;
            }
            // inactive lanes: the direction (0, 0, 1), whose results are not written
            let (x, y, z) = if m8 == 0xff {
                (x, y, z)
            } else {
                let act =
                    _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(m8 as i32), bits), bits);
                let actf = _mm256_castsi256_ps(act);
                (
                    _mm256_and_ps(x, actf),
                    _mm256_and_ps(y, actf),
                    _mm256_blendv_ps(one, z, actf),
                )
            };
            // `cube::select_face` (ties Z ≥ Y ≥ X, the major component's sign bit)
            let (ax, ay, az) = (
                _mm256_andnot_ps(sgn, x),
                _mm256_andnot_ps(sgn, y),
                _mm256_andnot_ps(sgn, z),
            );
            let zs = _mm256_and_ps(
                _mm256_cmp_ps::<_CMP_GE_OQ>(az, ax),
                _mm256_cmp_ps::<_CMP_GE_OQ>(az, ay),
            );
            let ys = _mm256_andnot_ps(zs, _mm256_cmp_ps::<_CMP_GE_OQ>(ay, ax));
            let major = _mm256_blendv_ps(_mm256_blendv_ps(x, y, ys), z, zs);
            let ns = _mm256_and_ps(major, sgn);
            let face = _mm256_add_epi32(
                _mm256_add_epi32(
                    _mm256_and_si256(_mm256_castps_si256(zs), _mm256_set1_epi32(4)),
                    _mm256_and_si256(_mm256_castps_si256(ys), _mm256_set1_epi32(2)),
                ),
                _mm256_srli_epi32::<31>(_mm256_castps_si256(ns)),
            );
            let sc = _mm256_blendv_ps(
                _mm256_blendv_ps(_mm256_xor_ps(_mm256_xor_ps(z, sgn), ns), x, ys),
                _mm256_xor_ps(x, ns),
                zs,
            );
            let tc = _mm256_blendv_ps(
                _mm256_blendv_ps(_mm256_xor_ps(y, sgn), _mm256_xor_ps(z, ns), ys),
                _mm256_xor_ps(y, sgn),
                zs,
            );
            // `FaceCoord::st`
            let inv = _mm256_div_ps(half, _mm256_andnot_ps(sgn, major));
            let fs = _mm256_add_ps(_mm256_mul_ps(sc, inv), half);
            let ft = _mm256_add_ps(_mm256_mul_ps(tc, inv), half);
            let cube6 = match cube_row {
                Some(r) => {
                    let c = cast::<[u32; 8], [f32; 8]>(lanes8(r, g));
                    let c: [i32; 8] = std::array::from_fn(|l| {
                        if m8 >> l & 1 != 0 {
                            6 * layer_index(c[l], cubes) as i32
                        } else {
                            0
                        }
                    });
                    cast::<[i32; 8], __m256i>(c)
                }
                None => izero,
            };
            let lay = _mm256_add_epi32(cube6, face);
            let base = _mm256_add_epi32(base0, _mm256_mullo_epi32(lay, tlv));
            // every lane's result in `res` (lanes `2h`, `2h + 1` in `res[h]`) written to the
            // lanes of `m8`
            // SAFETY (every write through `outp`): lane `g + l` of `out` with `l` a lane of
            // `m8` — `g + l < lanes = out.len()`: in a whole group `g + 8 ≤ lanes`, a half
            // group's mask has lanes 0..4 alone (`g + 4 = lanes`) — `out`'s elements, written
            // through the pointer `out.as_mut_ptr()` alone while the run goes (no reference
            // to `out` is made after it)
            macro_rules! store {
                ($res:expr) => {{
                    let res: [__m256; 4] = $res;
                    if m8 == 0xff {
                        for (h, r) in res.into_iter().enumerate() {
                            // SAFETY: above (`m8`: lanes `2h`, `2h + 1`)
                            unsafe { _mm256_storeu_ps(outp.add(g + 2 * h).cast::<f32>(), r) };
                        }
                    } else {
                        let res = cast::<[__m256; 4], [[u32; 4]; 8]>(res);
                        for (l, r) in res.into_iter().enumerate() {
                            if m8 >> l & 1 != 0 {
                                // SAFETY: above (`l` a lane of `m8`)
                                unsafe { *outp.add(g + l) = r };
                            }
                        }
                    }
                }};
            }
            // the lanes for `seamless_lane`
            let mut slow;
            if LIN {
                let u = _mm256_sub_ps(_mm256_mul_ps(fs, nf), half);
                let v = _mm256_sub_ps(_mm256_mul_ps(ft, nf), half);
                // floor exactly (`roundps`); NaN, ±∞ and |x| ≥ 2³¹ truncate to i32::MIN
                let (fu, fv) = (_mm256_floor_ps(u), _mm256_floor_ps(v));
                let (i0, j0) = (_mm256_cvttps_epi32(fu), _mm256_cvttps_epi32(fv));
                // `x − fl(x) as f32` (`fl(x) as f32` is `fu` where `fl(x)` fits an i32, in
                // every lane but those for `seamless_lane`), in [0, 1) where the lane stays
                // here (its clamp a no-op)
                let (fa, fb) = (_mm256_sub_ps(u, fu), _mm256_sub_ps(v, fv));
                let p00 = _mm256_add_epi32(i0, _mm256_mullo_epi32(j0, nv));
                let weights = |h: usize| {
                    (
                        _mm256_permutevar8x32_ps(fa, idx[h]),
                        _mm256_permutevar8x32_ps(fb, idx[h]),
                    )
                };
                // `0 ≤ i0, j0 ≤ n − 2` (as u32: `i0 < n − 1`, by the sign-flipped compare)
                let inside = _mm256_and_si256(
                    _mm256_cmpgt_epi32(inlim, _mm256_xor_si256(i0, imin)),
                    _mm256_cmpgt_epi32(inlim, _mm256_xor_si256(j0, imin)),
                );
                if _mm256_testc_si256(inside, ones) != 0 {
                    // every footprint inside its face: taps `p00 + {0, 1, n, n + 1}` of the
                    // lane's layer, in the plane (`layers_in`, checked above)
                    slow = 0;
                    let o: [i32; 8] = cast(_mm256_slli_epi32::<4>(_mm256_add_epi32(base, p00)));
                    let mut res = [_mm256_setzero_ps(); 4];
                    for (h, r) in res.iter_mut().enumerate() {
                        let (a, b) = weights(h);
                        let (e, f) = (o[2 * h], o[2 * h + 1]);
                        let top = lerp8(pair(e, f, 0), pair(e, f, 16), a);
                        let bot = lerp8(pair(e, f, p16), pair(e, f, p16 + 16), a);
                        *r = fin8(lerp8(top, bot, b));
                    }
                    store!(res);
                } else {
                    let m2 = _mm256_set1_epi32(-2);
                    let valid = _mm256_and_si256(
                        _mm256_and_si256(_mm256_cmpgt_epi32(i0, m2), _mm256_cmpgt_epi32(nv, i0)),
                        _mm256_and_si256(_mm256_cmpgt_epi32(j0, m2), _mm256_cmpgt_epi32(nv, j0)),
                    );
                    let bad = _mm256_andnot_si256(valid, ones);
                    let (lo_i, hi_i) =
                        (_mm256_cmpeq_epi32(i0, ones), _mm256_cmpeq_epi32(i0, lastv));
                    let (lo_j, hi_j) =
                        (_mm256_cmpeq_epi32(j0, ones), _mm256_cmpeq_epi32(j0, lastv));
                    let (ex, ey) = (_mm256_or_si256(lo_i, hi_i), _mm256_or_si256(lo_j, hi_j));
                    // taps over one edge: `base + A + D·k` of the side's table
                    let e = *edges.get_or_insert_with(|| edge_table(n, tl));
                    let side = |s: usize| {
                        (
                            _mm256_permutevar8x32_epi32(e[s].0, face),
                            _mm256_permutevar8x32_epi32(e[s].1, face),
                        )
                    };
                    let (s0, s1, s2, s3) = (side(0), side(1), side(2), side(3));
                    // the column over an edge (side 0 where i0 = −1, else 1), rows j0, j1;
                    // the row over an edge (side 2 where j0 = −1, else 3), columns i0, i1
                    let (axv, dxv) = (
                        _mm256_blendv_epi8(s1.0, s0.0, lo_i),
                        _mm256_blendv_epi8(s1.1, s0.1, lo_i),
                    );
                    let (ayv, dyv) = (
                        _mm256_blendv_epi8(s3.0, s2.0, lo_j),
                        _mm256_blendv_epi8(s3.1, s2.1, lo_j),
                    );
                    let vx0 = _mm256_add_epi32(axv, _mm256_mullo_epi32(dxv, j0));
                    let vx1 = _mm256_add_epi32(vx0, dxv);
                    let vy0 = _mm256_add_epi32(ayv, _mm256_mullo_epi32(dyv, i0));
                    let vy1 = _mm256_add_epi32(vy0, dyv);
                    // a corner's missing tap (over both edges) and bad lanes: texel 0
                    let tap = |p, vy, my, vx, mx| {
                        let t = _mm256_blendv_epi8(_mm256_blendv_epi8(p, vy, my), vx, mx);
                        let drop = _mm256_or_si256(bad, _mm256_and_si256(mx, my));
                        _mm256_add_epi32(base, _mm256_andnot_si256(drop, t))
                    };
                    let p10 = _mm256_add_epi32(p00, ione);
                    let p01 = _mm256_add_epi32(p00, nv);
                    let p11 = _mm256_add_epi32(p01, ione);
                    let t = [
                        tap(p00, vy0, lo_j, vx0, lo_i),
                        tap(p10, vy1, lo_j, vx0, hi_i),
                        tap(p01, vy0, hi_j, vx1, lo_i),
                        tap(p11, vy1, hi_j, vx1, hi_i),
                    ];
                    // every tap in the plane: `base + t` with `t` in `0..n²` (inside the face;
                    // bad lanes and a corner's missing tap at texel 0) or, one step over an
                    // edge, `base + A + D·k` — the neighbour's texel `(i', j')`, in `0..n` both
                    // for `k` in `0..n` (a tap over one edge alone is on the face's rows or
                    // columns `0..n` along it), of a face of the same cube (`EDGE_COEF`'s
                    // assertion), whose layers are in the plane (`layers_in`)
                    slow = _mm256_movemask_ps(_mm256_castsi256_ps(bad)) as u32 & m8;
                    let o: [[i32; 8]; 4] = cast([
                        _mm256_slli_epi32::<4>(t[0]),
                        _mm256_slli_epi32::<4>(t[1]),
                        _mm256_slli_epi32::<4>(t[2]),
                        _mm256_slli_epi32::<4>(t[3]),
                    ]);
                    let mut res = [_mm256_setzero_ps(); 4];
                    for (h, r) in res.iter_mut().enumerate() {
                        let (a, b) = weights(h);
                        let (e, f) = (2 * h, 2 * h + 1);
                        let tap = |c: usize| pair(o[c][e], o[c][f], 0);
                        let top = lerp8(tap(0), tap(1), a);
                        let bot = lerp8(tap(2), tap(3), a);
                        *r = fin8(lerp8(top, bot, b));
                    }
                    store!(res);
                    let corner = _mm256_andnot_si256(bad, _mm256_and_si256(ex, ey));
                    let mut corners = _mm256_movemask_ps(_mm256_castsi256_ps(corner)) as u32 & m8;
                    if corners != 0 {
                        // the missing tap of a corner lane: 1 where i1 is over, 2 where j1 is
                        let mi = _mm256_movemask_ps(_mm256_castsi256_ps(hi_i)) as u32;
                        let mj = _mm256_movemask_ps(_mm256_castsi256_ps(hi_j)) as u32;
                        let miss = mi | mj << 8;
                        let (fa, fb) = (cast::<__m256, [f32; 8]>(fa), cast::<__m256, [f32; 8]>(fb));
                        while corners != 0 {
                            let l = corners.trailing_zeros() as usize;
                            corners &= corners - 1;
                            let (t0, t1, t2, t3) = (
                                rd(o[0][l], 0),
                                rd(o[1][l], 0),
                                rd(o[2][l], 0),
                                rd(o[3][l], 0),
                            );
                            // the missing texel: the f64 average of the three real ones,
                            // summed from 0 in tap order (`filter::level_cube`)
                            let avg = |a, b, c| {
                                let s = _mm256_add_pd(_mm256_setzero_pd(), _mm256_cvtps_pd(a));
                                let s = _mm256_add_pd(s, _mm256_cvtps_pd(b));
                                let s = _mm256_add_pd(s, _mm256_cvtps_pd(c));
                                _mm256_cvtpd_ps(_mm256_div_pd(s, _mm256_set1_pd(3.0)))
                            };
                            let t = match miss >> l & 1 | (miss >> (l + 8) & 1) << 1 {
                                0 => [avg(t1, t2, t3), t1, t2, t3],
                                1 => [t0, avg(t0, t2, t3), t2, t3],
                                2 => [t0, t1, avg(t0, t1, t3), t3],
                                _ => [t0, t1, t2, avg(t0, t1, t2)],
                            };
                            let (a, b) = (_mm_set1_ps(fa[l]), _mm_set1_ps(fb[l]));
                            let r = lerp4(lerp4(t[0], t[1], a), lerp4(t[2], t[3], a), b);
                            let r = _mm_add_ps(_mm_setzero_ps(), r);
                            let r = if SNORM {
                                _mm_max_ps(r, _mm256_castps256_ps128(m1))
                            } else {
                                r
                            };
                            // SAFETY: above (`corners ⊆ m8`)
                            unsafe { *outp.add(g + l) = cast(r) };
                        }
                    }
                }
            } else {
                let i = _mm256_cvttps_epi32(_mm256_floor_ps(_mm256_mul_ps(fs, nf)));
                let j = _mm256_cvttps_epi32(_mm256_floor_ps(_mm256_mul_ps(ft, nf)));
                let bad = _mm256_or_si256(_mm256_cmpeq_epi32(i, imin), _mm256_cmpeq_epi32(j, imin));
                // `fl(u).clamp(0, n − 1)`
                let clamp = |i| _mm256_min_epi32(_mm256_max_epi32(i, izero), lastv);
                let p = _mm256_add_epi32(clamp(i), _mm256_mullo_epi32(clamp(j), nv));
                // in the plane: `base + p`, `p` in `0..n²` (bad lanes: texel 0), and the
                // lane's layer in the plane (`layers_in`)
                let t = _mm256_add_epi32(base, _mm256_andnot_si256(bad, p));
                slow = _mm256_movemask_ps(_mm256_castsi256_ps(bad)) as u32 & m8;
                let o: [i32; 8] = cast(_mm256_slli_epi32::<4>(t));
                let mut res = [_mm256_setzero_ps(); 4];
                for (h, r) in res.iter_mut().enumerate() {
                    *r = fin8(pair(o[2 * h], o[2 * h + 1], 0));
                }
                store!(res);
            }
            if slow != 0 {
                let (fs, ft) = (cast::<__m256, [f32; 8]>(fs), cast::<__m256, [f32; 8]>(ft));
                let (face, lay) = (
                    cast::<__m256i, [u32; 8]>(face),
                    cast::<__m256i, [u32; 8]>(lay),
                );
                while slow != 0 {
                    let l = slow.trailing_zeros() as usize;
                    slow &= slow - 1;
                    let at = (view.base_layer + lay[l], face[l]);
                    let r = seamless_lane::<false>(k, plane, (fs[l], ft[l]), at, 0.0, ll);
                    // SAFETY: above (`slow ⊆ m8`)
                    unsafe { *outp.add(g + l) = r };
                }
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    //! The one-selection run against the per-quad path: runs of whole quads on one face,
    //! footprints over edges and corners, partial and empty masks, odd quad counts (a
    //! half group at the end), NaN, infinite, huge, tiny and zero directions.

    use super::super::fast::tests::{image, nan_as_one, Rng};
    use super::super::*;

    const UNTOUCHED: [u32; 4] = [0xdead_beef; 4];

    /// A direction through face `face` at face coordinates `(a, b)` ∈ about [−1, 1], scaled
    /// by `m` (the inverse of the face table).
    fn on_face(face: u64, a: f32, b: f32, m: f32) -> [f32; 3] {
        let d = match face {
            0 => [1.0, -b, -a],
            1 => [-1.0, -b, a],
            2 => [a, 1.0, b],
            3 => [a, -1.0, -b],
            4 => [a, -b, 1.0],
            _ => [-a, -b, -1.0],
        };
        d.map(|x| x * m)
    }

    /// A quad's four directions: lavapipe's `(fract(uv)·2 − 1, 1)`, a face near its edges
    /// and corners (footprints over them), exactly on edges and corners, or anywhere;
    /// sometimes one lane odd (NaN, ±∞, huge, tiny, zero).
    fn quad_dirs(r: &mut Rng, n: u32) -> [[f32; 3]; 4] {
        let texel = 2.0 / n as f32;
        let mut d: [[f32; 3]; 4] = match r.below(5) {
            0 => {
                let (px, py) = (
                    r.below(256) as f32 * 2.0 + 0.5,
                    r.below(256) as f32 * 2.0 + 0.5,
                );
                let (i, scale) = (r.below(16) as f32, [1.0, 1.0, 4.0][r.below(3) as usize]);
                std::array::from_fn(|l| {
                    let u = (px + (l & 1) as f32) / 512.0 * scale + i * 0.0137;
                    let v = (py + (l >> 1) as f32) / 512.0 * scale + i * 0.0071;
                    [u.fract() * 2.0 - 1.0, v.fract() * 2.0 - 1.0, 1.0]
                })
            }
            1 | 2 => {
                // within a texel or two of an edge or corner of face `f`
                let f = r.below(6);
                let near = |r: &mut Rng| {
                    let s = if r.chance(50) { 1.0 } else { -1.0 };
                    if r.chance(60) {
                        s * (1.0 - r.f(0.0, 2.0) * texel)
                    } else {
                        r.f(-1.0, 1.0)
                    }
                };
                let (a, b) = (near(r), near(r));
                let step = r.f(0.0, 0.6) * texel * if r.chance(50) { 1.0 } else { -1.0 };
                let m = [1.0, 0.5, 3.0][r.below(3) as usize];
                std::array::from_fn(|l| {
                    let (x, y) = ((l & 1) as f32, (l >> 1) as f32);
                    on_face(f, a + x * step, b + y * step, m)
                })
            }
            3 => {
                // exactly on edges and corners (ties: Z ≥ Y ≥ X)
                std::array::from_fn(|_| {
                    let pm = |r: &mut Rng| if r.chance(50) { 1.0f32 } else { -1.0 };
                    let m = r.f(0.5, 2.0);
                    let mut v = [pm(r) * m, pm(r) * m, pm(r) * m];
                    if r.chance(30) {
                        v[r.below(3) as usize] = r.f(-m, m);
                    }
                    v
                })
            }
            _ => std::array::from_fn(|_| [r.f(-1.0, 1.0), r.f(-1.0, 1.0), r.f(-1.0, 1.0)]),
        };
        if r.chance(8) {
            let odd = [
                f32::NAN,
                f32::INFINITY,
                -f32::INFINITY,
                3e38,
                1e-38,
                0.0,
                -0.0,
            ];
            let l = r.below(4) as usize;
            for v in d[l].iter_mut() {
                if r.chance(50) {
                    *v = odd[r.below(odd.len() as u64) as usize];
                }
            }
        }
        d
    }

    /// One random one-level cube view, sampler and batch: the batch's results against
    /// [`Kernel::sample`] per quad, and (with AVX2) the run called directly must serve every
    /// chunk with the same bits.
    fn one_run(seed: u64) -> Result<(), String> {
        let mut r = Rng(seed | 1);
        let fmts = [
            Format::R8G8B8A8_UNORM,
            Format::R8G8B8A8_SNORM,
            Format::R32G32B32A32_SFLOAT,
            Format::R16_SFLOAT,
            Format::D32_SFLOAT,
            Format::B10G11R11_UFLOAT_PACK32,
        ];
        let fmt = fmts[r.below(fmts.len() as u64) as usize];
        let n: u32 = [1, 2, 3, 4, 7, 8, 8, 16, 33][r.below(9) as usize];
        let cubes = 1 + r.below(2) as u32;
        let levels = 1 + r.below((32 - n.leading_zeros()) as u64) as u32;
        let layers = 6 * cubes + r.below(2) as u32;
        let img = image(&mut r, fmt, n, n, layers, levels);
        let array = r.chance(40);
        let layer_count = if array {
            6 * (1 + r.below(cubes as u64) as u32)
        } else {
            6
        };
        let view = ImageView {
            view_type: if array {
                ViewType::CubeArray
            } else {
                ViewType::Cube
            },
            base_level: r.below(levels as u64) as u32,
            level_count: 1,
            base_layer: r.below((img.layers() - layer_count + 1) as u64) as u32,
            layer_count,
            aspect: if fmt.has_depth() {
                Aspect::Depth
            } else {
                Aspect::Color
            },
        };
        let filter = if r.chance(75) {
            Filter::Linear
        } else {
            Filter::Nearest
        };
        let sampler = Sampler {
            mag_filter: filter,
            min_filter: filter,
            mipmap_mode: if r.chance(50) {
                MipmapMode::Linear
            } else {
                MipmapMode::Nearest
            },
            mip_lod_bias: r.f(-2.0, 2.0),
            ..Sampler::default()
        };
        let k = Kernel::new(&img, &view, &sampler, EXACT_CFG).map_err(|e| e.to_string())?;
        let face_n = img.level_extent(view.base_level)[0];
        let quads = 1 + r.below(40) as usize;
        let mut rows: [Vec<u32>; 4] = Default::default();
        let mut masks = Vec::new();
        let mut run_dirs = quad_dirs(&mut r, face_n);
        for _ in 0..quads {
            // runs of neighbouring quads (the same face, mostly), or a fresh quad
            let d = if r.chance(60) {
                let s = r.f(-0.05, 0.05);
                run_dirs.map(|v| [v[0] + s, v[1], v[2]])
            } else {
                quad_dirs(&mut r, face_n)
            };
            run_dirs = d;
            for lane in d {
                for c in 0..3 {
                    rows[c].push(lane[c].to_bits());
                }
                rows[3].push(r.f(-1.0, 3.0).to_bits());
            }
            let m = if r.chance(75) { 0xf } else { r.below(16) as u8 };
            masks.push(m | if r.chance(10) { 0xf0 } else { 0 });
        }
        let lod_row: Vec<u32> = (0..4 * quads).map(|_| r.f(-3.0, 3.0).to_bits()).collect();
        let b = BatchArgs {
            coords: [&rows[0], &rows[1], &rows[2], &rows[3]],
            masks: &masks,
            lod: match r.below(3) {
                0 => BatchLod::Implicit(&[]),
                1 => BatchLod::Implicit(&lod_row),
                _ => BatchLod::Explicit(&lod_row),
            },
            dref: &[],
            offsets: [&[], &[]],
        };
        let mut out = vec![UNTOUCHED; 4 * quads];
        k.sample_batch(&img, &b, &mut out)
            .map_err(|e| e.to_string())?;
        let want: Vec<[[u32; 4]; 4]> = (0..quads)
            .map(|q| {
                let a = b.quad_args(q);
                let w = if a.mask == 0 {
                    [UNTOUCHED; 4]
                } else {
                    k.sample(&img, &a).unwrap()
                };
                std::array::from_fn(|l| {
                    if a.mask >> l & 1 != 0 {
                        w[l]
                    } else {
                        UNTOUCHED
                    }
                })
            })
            .collect();
        let check = |out: &[[u32; 4]], what: &str| -> Result<(), String> {
            for (q, w) in want.iter().enumerate() {
                let have: [[u32; 4]; 4] = std::array::from_fn(|l| out[4 * q + l]);
                if nan_as_one(have) != nan_as_one(*w) {
                    return Err(format!(
                        "seed {seed} {what}: quad {q} of {quads}: have {have:08x?} want \
                         {w:08x?}\n{fmt:?} n {n} L{levels} {view:?} {sampler:?} {:?}",
                        b.quad_args(q)
                    ));
                }
            }
            Ok(())
        };
        check(&out, "sample_batch")?;
        #[cfg(target_arch = "x86_64")]
        if crate::cpu::avx2() {
            let (Some(ll), Some(plane)) = (k.lane_lod(0.0, 0.0, f32::NEG_INFINITY), img.plane())
            else {
                return Err(format!("seed {seed}: no selection or plane"));
            };
            let mut out = vec![UNTOUCHED; 4 * quads];
            for q0 in (0..quads).step_by(WIDE_QUADS) {
                let q1 = (q0 + WIDE_QUADS).min(quads);
                let lanes = 4 * q0..4 * q1;
                let rows3 = [0, 1, 2].map(|c| &rows[c][lanes.clone()]);
                let cube = array.then(|| &rows[3][lanes.clone()]);
                let (m, o) = (&masks[q0..q1], &mut out[lanes.clone()]);
                // SAFETY: the CPU has AVX2 (`cpu::avx2()`)
                let served = unsafe { super::fixed_run(&k, plane, &ll, rows3, cube, m, o) };
                if !served {
                    return Err(format!(
                        "seed {seed}: the run did not serve quads {q0}..{q1}"
                    ));
                }
            }
            check(&out, "fixed_run")?;
        }
        Ok(())
    }

    const EXACT_CFG: Config = Config {
        policy: Policy::Vulkan,
        precision: LodPrecision::Exact,
    };

    #[test]
    fn one_selection_runs_equal_the_per_quad_path() {
        for s in 1..=2500u64 {
            if let Err(e) = one_run(s.wrapping_mul(0x9e37_79b9_7f4a_7c15)) {
                panic!("{e}");
            }
        }
    }
}
