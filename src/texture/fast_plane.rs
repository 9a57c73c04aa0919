//! The plane routes: the fast paths' quad routines on an image's decoded plane ([`Plane`]:
//! every texel decoded once to f32 RGBA, one `f32x4` each). One routine serves every
//! float-kind format (UNORM, SNORM, sRGB, float, packed, depth; 1 to 4 channels: the
//! decoder's (r, 0, 0, 1) fill is data), and no texel is decoded per sample.
//!
//! Shape: lanes across for the footprint, channels across for the filter.
//! - The four lanes' footprints are structure-of-arrays SSE2 lane operations (`wide`'s
//!   `f32x4`/`i32x4`): texel-space coordinate `s·w (+ offset)`, `−0.5`, floor (truncate,
//!   convert back, step down: baseline x86-64 has no `roundps`), fraction, wrap (masks for
//!   repeat and mirrored repeat over power-of-two levels, `minps`/`maxps` for clamp-to-edge,
//!   the scalar wrap for other sizes), and the row product in f32 (exact: a plane has at most
//!   2²² texels; SSE2 has no 32-bit lane multiply). One vector range check of every index of
//!   the slot against the plane precedes the reads, which are then unchecked, by byte offset.
//! - The filter is array-of-structures: a lane's four texels are `f32x4`s and the general
//!   path's three `a + (b − a)·w` lerps and the level accumulation `0 + w·v` are `f32x4`
//!   operations — the same operation per channel as the general path, hence its bits. A
//!   footprint of two neighbouring texels in two neighbouring rows (the usual one) is read
//!   from one offset and the row pitch.
//! - Dref compares each texel (`dref OP texel.r`) and filters channel 0 of the four lanes at
//!   once; channels 1 to 3 are then +0, +0 and the sum of the level weights, which is what
//!   the general path's lerps of (pass, 0, 0, 1) texels leave there.
//! - Cube faces clamp; a linear footprint leaving its face returns `None` (seamless edges
//!   and corners are the general path's), as do NaN or huge coordinates on the compare
//!   route (their NaN weights reach every channel).
//!
//! Exactness: the truncation marks NaN, ±∞ and `|x| ≥ 2³¹` lanes (`i32::MIN`), which take
//! the general path's saturating floor and clamped fraction lane by lane; elsewhere
//! `x − floor(x)` (the same operation) lies in [0, 1], so its clamp is a no-op.
//! `fast_path_equals_general_path`, `cube_fast_path_equals_general_path` and
//! `wide_path_equals_the_per_quad_path` hold 19 formats, every mode, Dref, offsets and LOD
//! form to the general path's bits.
//!
//! Why (callgrind instructions per quad, `benches/sampler.rs`): the byte routes decoded 32
//! texels per trilinear quad (a `divps` per 8-bit UNORM channel group, a table load per sRGB
//! channel) and worked lane by lane in `[f32; 4]` loops; batch trilinear was 894. The plane
//! and this shape took it to 516 (SSE2), the AVX2 instantiation (below) to 456, byte-offset
//! reads to 422; bilinear 548 → 251, nearest 348 → 169. What is left per slot (one level of
//! a bilinear quad) is ~140: ~45 the footprint, ~12 the range check, ~16 per lane for the
//! reads and lerps, ~10 the accumulation. Every routine that inlines these is also compiled
//! for AVX2 (`#[target_feature(enable = "avx2")]`, chosen by run-time detection at each
//! call): VEX three-operand forms drop the SSE register copies (~12 % of the instructions);
//! FMA is not enabled, so every operation rounds as the general path's. That instantiation
//! also runs the lerps two lanes per 256-bit operation (`lerps_avx2`: lane `2h` in the low
//! half, `2h + 1` in the high half, the same `a + (b − a)·w` per channel): batch trilinear
//! 430 → 397, bilinear 255 → 240, the fullscreen frame 230.97 M → 218.68 M. The usual
//! trilinear quad on power-of-two repeat levels (the batch loop's, `trilinear_repeat_p2_avx2`)
//! computes both slots' footprints in one 256-bit pass (`roundps` floor, `pmulld` rows,
//! one range check, the adjacency of each slot's reads checked on the offsets themselves)
//! from per-selection constants ([`Tri2`]): batch trilinear 397 → 370, the frame 218.68 M →
//! 206.96 M (built per quad instead of per selection, the halves' constants cost back most
//! of it: 397, frame 215.05 M). Its filter runs per lane on both slots at once (the lane's
//! slot-0 texels in the low half, slot-1 in the high: one in-lane weight broadcast, one
//! weight product, the accumulation as an extract and two adds), from a base offset per
//! slot when every read is adjacent, and whole quads go through a run loop of their own
//! (`trilinear_run_avx2`): ~216 instructions a quad (~254 when a footprint wraps), batch
//! trilinear 370 → 298, the frame 187.34 M → 168.62 M. A one-level run (nearest, bilinear,
//! bilinear Dref on power-of-two or clamp-to-edge levels) goes two quads per step
//! (`one_level_pairs_avx2`): the eight lanes' footprints as 256-bit lane operations (the
//! same operations as `nearest` / `bilinear`, `roundps` and `pmulld` exact as above, the
//! wraps as masks or integer clamps; an all-adjacent footprint checked on its first offset
//! alone), the texels two lanes per 256-bit register (lane `l` of both quads), the same
//! lerps, accumulation and SNORM clamp; Dref gathers the eight lanes' depths per corner and
//! compares and lerps them as 8-lane vectors. The pairs' loop: nearest ~55 instructions a
//! quad, bilinear ~107, Dref ~92 (batch totals in `fast_wide.rs`; a pair step must inline
//! its one call of `pair8`: with two call sites LLVM kept it out of line). Tried:
//! accumulating the two-lane results in 256-bit registers through a second
//! `#[target_feature]` helper — LLVM did not inline it, and the frame went to 259 M.
//!
//! `unsafe` is only the texel reads after the range check (each states its proof); replacing
//! a bounds check per lane by one vector check per slot measured batch trilinear 538 → 516
//! (with the wider floor it came with).

use super::address::{wrap, CLAMP, MIRRORED, REPEAT};
use super::fast::QuadIn;
use super::old_filter::fl;
use super::image::Plane;
use super::old_sample::{Kernel, LaneLod};
use super::sampler::CompareOp;
use wide::{f32x4, i32x4};

/// A level's extent, lane-wise (the same level in every lane, or each lane's own), in
/// the forms the footprint arithmetic reads.
#[derive(Clone, Copy, Debug)]
pub(super) struct LevelVecs {
    /// Extent as f32.
    pub wf: f32x4,
    pub hf: f32x4,
    /// Extent.
    pub w: i32x4,
    pub h: i32x4,
    /// Extent − 1, as i32 and f32 (the last index).
    pub wm: i32x4,
    pub hm: i32x4,
    pub wmf: f32x4,
    pub hmf: f32x4,
    /// Every lane's level is a power of two on both axes (mask wraps).
    pub p2: bool,
    /// The row pitch (= width) when every lane has the same width, else 0.
    pub pitch: u32,
}

impl LevelVecs {
    /// Lanes of extent `w[l]` × `h[l]`.
    fn new(w: [i32; 4], h: [i32; 4], p2: bool) -> LevelVecs {
        let f = |v: [i32; 4]| v.map(|x| x as f32);
        LevelVecs {
            wf: f32x4::from(f(w)),
            hf: f32x4::from(f(h)),
            w: i32x4::from(w),
            h: i32x4::from(h),
            wm: i32x4::from(w.map(|x| x - 1)),
            hm: i32x4::from(h.map(|x| x - 1)),
            wmf: f32x4::from(f(w.map(|x| x - 1))),
            hmf: f32x4::from(f(h.map(|x| x - 1))),
            p2,
            pitch: if w.iter().all(|&x| x == w[0]) {
                w[0] as u32
            } else {
                0
            },
        }
    }

    /// The [`LevelVecs`] of every absolute level of `k`'s image (the kernel keeps them).
    pub fn of_kernel(k: &Kernel) -> Vec<LevelVecs> {
        (0..k.lv.len())
            .map(|l| {
                let e = k.lv[l].size;
                LevelVecs::new([e[0]; 4], [e[1]; 4], k.pow2_level(l as u32))
            })
            .collect()
    }
}

/// One level slot of a quad, lane-wise, in the plane's units (texels).
#[derive(Clone, Copy, Debug)]
pub(super) struct Lv<'a> {
    /// The level's weight per lane.
    pub weight: f32x4,
    /// Lanes that have this slot (bit `l`).
    pub used: u8,
    /// Plane index of texel (0, 0) of each lane's level and layer.
    pub base: i32x4,
    /// The extent.
    pub v: &'a LevelVecs,
}

/// A quad's levels: how many slots (1 or 2) and each slot's [`Lv`].
pub(super) type PlaneLevels<'a> = (usize, [Lv<'a>; 2]);

/// `floor(x)` lane-wise, as i32 and as f32, by SSE2 lane operations (baseline x86-64 has
/// no `roundps`): truncate, convert back, step down where that is above `x`. Exact — the
/// general path's `fl` — on lanes where `x` is finite and `|x| < 2³¹`; the truncation marks
/// every other lane (NaN, ±∞, huge) with `i32::MIN`, which [`floor_ok`] tests.
#[inline(always)]
fn floor4x(x: f32x4) -> (i32x4, i32x4, f32x4) {
    let t = x.fast_trunc_int();
    let f = f32x4::from_i32x4(t);
    let above = f.simd_gt(x);
    let i = t + wide::bytemuck::cast::<f32x4, i32x4>(above); // −1 where above
    (t, i, f - (above & f32x4::ONE))
}

/// Whether no lane of the truncations `a`, `b` ([`floor4x`]'s first result) is marked.
#[inline(always)]
fn floor_ok(a: i32x4, b: i32x4) -> bool {
    let m = i32x4::splat(i32::MIN);
    !(a.simd_eq(m) | b.simd_eq(m)).any()
}

/// Whether every lane has `0 ≤ lo ≤ hi < len` (`len` < 2³¹: a plane has at most
/// `PLANE_MAX_TEXELS`). `lo ≤ hi` is checked too, so an upper end that wrapped past
/// `i32::MAX` (lane adds wrap) fails instead of passing as a small negative: the unchecked
/// reads' proofs rest on this check alone, not on the wraps upstream being right.
#[inline(always)]
fn in_range(lo: i32x4, hi: i32x4, len: i32x4) -> bool {
    !(lo.simd_lt(i32x4::ZERO) | hi.simd_ge(len) | hi.simd_lt(lo)).any()
}

impl Kernel {
    /// Slot data of view-relative `level` with `weight` for lanes on absolute `layer`s.
    #[inline(always)]
    fn plane_lv(
        &self,
        level: u32,
        weight: f32,
        layer: [u32; 4],
        one_layer: bool,
    ) -> Option<Lv<'_>> {
        let abs = (self.view.base_level + level) as usize;
        let info = self.lv.get(abs)?;
        let base = if one_layer {
            i32x4::splat((info.tbase + layer[0] as usize * info.tlayer) as i32)
        } else {
            i32x4::from(layer.map(|l| (info.tbase + l as usize * info.tlayer) as i32))
        };
        Some(Lv {
            weight: f32x4::splat(weight),
            used: 0xf,
            base,
            v: self.plane_levels.get(abs)?,
        })
    }
}

/// Uniform levels (`lod`: every lane's) for lanes on `layer`; `None`: the kernel has no
/// plane levels.
#[inline(always)]
pub(super) fn uni_levels<'k>(
    k: &'k Kernel,
    lod: &LaneLod,
    layer: [u32; 4],
    one_layer: bool,
) -> Option<PlaneLevels<'k>> {
    let l = &lod.levels;
    let a = k.plane_lv(l.l[0].0, l.l[0].1, layer, one_layer)?;
    let b = if l.n == 2 {
        k.plane_lv(l.l[1].0, l.l[1].1, layer, one_layer)?
    } else {
        a
    };
    Some((l.n, [a, b]))
}

/// Per-lane levels (lanes with one level reuse their first for the second slot, unused).
/// A slot whose lanes all have the same level (only the weights differ: the usual
/// non-uniform quad) reads the kernel's [`LevelVecs`]; otherwise its extents are built in
/// `scratch`.
pub(super) fn lane_levels<'s>(
    k: &'s Kernel,
    lods: &[LaneLod; 4],
    layer: [u32; 4],
    scratch: &'s mut [LevelVecs; 2],
) -> Option<PlaneLevels<'s>> {
    let n = if lods.iter().any(|l| l.levels.n == 2) {
        2
    } else {
        1
    };
    let mut weight = [[0f32; 4]; 2];
    let mut base = [[0i32; 4]; 2];
    let mut used = [0u8; 2];
    let mut abs = [[0u32; 4]; 2];
    for s in 0..n {
        for l in 0..4 {
            let lv = &lods[l].levels;
            let u = s < lv.n;
            used[s] |= (u as u8) << l;
            let (level, wl) = lv.l[if u { s } else { 0 }];
            abs[s][l] = k.view.base_level + level;
            let info = k.lv.get(abs[s][l] as usize)?;
            weight[s][l] = wl;
            base[s][l] = (info.tbase + layer[l] as usize * info.tlayer) as i32;
        }
    }
    let one_level = |s: usize| abs[s].iter().all(|&a| a == abs[s][0]);
    let same = [one_level(0), n == 2 && one_level(1)];
    for s in 0..n {
        if !same[s] {
            let e = abs[s].map(|a| k.lv[a as usize].size);
            let p2 = abs[s].iter().all(|&a| k.pow2_level(a));
            scratch[s] = LevelVecs::new(e.map(|e| e[0]), e.map(|e| e[1]), p2);
        }
    }
    let [a, b] = &*scratch;
    let vecs = |s: usize, own: &'s LevelVecs| -> Option<&'s LevelVecs> {
        if same[s] {
            k.plane_levels.get(abs[s][0] as usize)
        } else {
            Some(own)
        }
    };
    let lv = |s: usize, v| Lv {
        weight: f32x4::from(weight[s]),
        used: used[s],
        base: i32x4::from(base[s]),
        v,
    };
    let first = lv(0, vecs(0, a)?);
    let second = if n == 2 { lv(1, vecs(1, b)?) } else { first };
    Some((n, [first, second]))
}

/// `a + (b − a)·w` per channel: the general path's `lerp4`.
#[inline(always)]
fn lerp(a: f32x4, b: f32x4, w: f32x4) -> f32x4 {
    a + (b - a) * w
}

/// The quad (`q`: coordinates, offsets; its layers are already in `lv`'s bases) filtered on
/// every slot of `lv` with texel filter `LIN` and address mode `M` on both axes, the
/// levels accumulated as `0 + w·v` (the general path's `acc += w·v` from 0), SNORM results
/// clamped to −1. `UNI`: every lane has the same levels ([`uni_levels`]). `N`: the slot
/// count as a constant (1 or 2; 0: `lv.0`). `CUBE`: the lanes' coordinates are cube face
/// coordinates (`M` is clamp-to-edge, the faces square) and a linear footprint leaving its
/// face is `None` (seamless edges and corners are the general path's). `None` also for an
/// index outside the plane (cannot happen for a plane of the kernel's image; the caller
/// then takes the general path).
#[inline(always)]
pub(super) fn plane_quad_n<
    const M: u8,
    const LIN: bool,
    const UNI: bool,
    const N: usize,
    const CUBE: bool,
>(
    plane: &Plane,
    q: &QuadIn,
    lv: &PlaneLevels,
    snorm: bool,
) -> Option<[f32x4; 4]> {
    plane_quad_w::<M, LIN, UNI, N, CUBE, false>(plane, q, lv, snorm)
}

/// The plane routine for a level selection's filter (`linear`) and, with `cmp`, a depth
/// comparison: the one dispatch every batch route (`fast_wide.rs`, `fast_cube.rs`) makes per
/// quad. Inlined, so a constant `linear` or `cmp` at the call leaves one routine.
#[inline(always)]
pub(super) fn plane_route<
    const M: u8,
    const UNI: bool,
    const N: usize,
    const CUBE: bool,
    const AVX: bool,
>(
    plane: &Plane,
    q: &QuadIn,
    lv: &PlaneLevels,
    linear: bool,
    cmp: Option<CompareOp>,
    snorm: bool,
) -> Option<[f32x4; 4]> {
    match (linear, cmp) {
        (true, None) => plane_quad_w::<M, true, UNI, N, CUBE, AVX>(plane, q, lv, snorm),
        (false, None) => plane_quad_w::<M, false, UNI, N, CUBE, AVX>(plane, q, lv, snorm),
        (true, Some(op)) => plane_quad_cmp::<M, true, UNI, N, CUBE>(plane, q, lv, op),
        (false, Some(op)) => plane_quad_cmp::<M, false, UNI, N, CUBE>(plane, q, lv, op),
    }
}

/// [`plane_quad_n`]; `AVX`: the bilinear lerps run two lanes per 256-bit operation
/// ([`lerps_avx2`]). Callers pass `AVX = true` only from code compiled for AVX2 and reached
/// after run-time detection of AVX2 (`fast_wide::wide_plane_implicit_avx2`).
#[inline(always)]
pub(super) fn plane_quad_w<
    const M: u8,
    const LIN: bool,
    const UNI: bool,
    const N: usize,
    const CUBE: bool,
    const AVX: bool,
>(
    plane: &Plane,
    q: &QuadIn,
    lv: &PlaneLevels,
    snorm: bool,
) -> Option<[f32x4; 4]> {
    let texels = &plane.texels[..];
    let s = f32x4::from(q.s);
    let t = f32x4::from(q.t);
    let mut acc = [f32x4::ZERO; 4];
    let n = if N > 0 { N } else { lv.0.min(2) };
    for slot in 0..n {
        let l = &lv.1[slot];
        let mut u = s * l.v.wf;
        let mut v = t * l.v.hf;
        if let Some((ou, ov)) = q.off {
            u += f32x4::from(ou);
            v += f32x4::from(ov);
        }
        let val = if LIN {
            bilinear::<M, UNI, CUBE, AVX>(texels, l, u, v)?
        } else {
            nearest::<M>(texels, l, u, v)?
        };
        if UNI {
            // one weight, every lane
            for i in 0..4 {
                acc[i] += l.weight * val[i];
            }
        } else {
            let w = l.weight.to_array();
            for i in 0..4 {
                if l.used & (1 << i) != 0 {
                    acc[i] += f32x4::splat(w[i]) * val[i];
                }
            }
        }
    }
    if snorm {
        // `x.max(−1)`: maxps returns its second operand (−1) for a NaN x, as `f32::max`
        let m1 = f32x4::splat(-1.0);
        for a in &mut acc {
            *a = a.fast_max(m1);
        }
    }
    Some(acc)
}

/// One axis of the level: extent, last index, power of two.
#[derive(Clone, Copy)]
struct Axis {
    n: i32x4,
    last: i32x4,
    lastf: f32x4,
    nf: f32x4,
    p2: bool,
}

/// The wrapped lower texel index of one axis of bilinear footprints whose lower texels
/// are at floors `i` (`f` as f32, `|f| < 2³¹`), by address mode `M`, and whether every lane's wrapped
/// upper index is the lower one plus one ([`axis_hi`] gives it otherwise).
#[inline(always)]
fn axis_lo<const M: u8>(i: i32x4, f: f32x4, a: &Axis) -> (i32x4, bool) {
    if M == CLAMP {
        // in f32 (exact integers; minps/maxps, no NaN here)
        let adj = (f.simd_ge(f32x4::ZERO) & (f + f32x4::ONE).simd_lt(a.nf)).all();
        let i0 = f.fast_min(a.lastf).fast_max(f32x4::ZERO).fast_trunc_int();
        return (i0, adj);
    }
    if M == REPEAT && a.p2 {
        // `i1 = i0 + 1` unless `i0` is the last index
        let i0 = i & a.last;
        return (i0, !i0.simd_eq(a.last).any());
    }
    if M == MIRRORED && a.p2 {
        let i0 = mirror_p2(i, a);
        let adj = mirror_p2(i + i32x4::ONE, a).simd_eq(i0 + i32x4::ONE).all();
        return (i0, adj);
    }
    // other sizes: the scalar wrap per lane
    let (ia, na) = (i.to_array(), a.n.to_array());
    let i0: [i32; 4] = std::array::from_fn(|l| wrap::<M>(ia[l], na[l], M));
    let adj = (0..4).all(|l| wrap::<M>(ia[l] + 1, na[l], M) == i0[l] + 1);
    (i32x4::from(i0), adj)
}

/// The wrapped upper texel index (of `f + 1`) of [`axis_lo`]'s footprints.
#[inline(always)]
fn axis_hi<const M: u8>(i: i32x4, f: f32x4, a: &Axis) -> i32x4 {
    if M == CLAMP {
        return (f + f32x4::ONE)
            .fast_min(a.lastf)
            .fast_max(f32x4::ZERO)
            .fast_trunc_int();
    }
    let i = i + i32x4::ONE;
    if M == REPEAT && a.p2 {
        return i & a.last;
    }
    if M == MIRRORED && a.p2 {
        return mirror_p2(i, a);
    }
    let (ia, na) = (i.to_array(), a.n.to_array());
    i32x4::from(std::array::from_fn(|l| wrap::<M>(ia[l], na[l], M)))
}

/// Mirrored repeat over a power-of-two extent `n`: `(n − 1) − mirror((i mod 2n) − n)` with
/// `mirror(x) = x ^ (x >> 31)` (`address::wrap4`'s form).
#[inline(always)]
fn mirror_p2(i: i32x4, a: &Axis) -> i32x4 {
    let x = (i & (a.n + a.last)) - a.n;
    a.last - (x ^ (x >> 31))
}

impl LevelVecs {
    #[inline(always)]
    fn x(&self) -> Axis {
        Axis {
            n: self.w,
            last: self.wm,
            lastf: self.wmf,
            nf: self.wf,
            p2: self.p2,
        }
    }
    #[inline(always)]
    fn y(&self) -> Axis {
        Axis {
            n: self.h,
            last: self.hm,
            lastf: self.hmf,
            nf: self.hf,
            p2: self.p2,
        }
    }
}

/// `base + j·w` for in-level `j` (so `j·w` is below the plane's length, < 2²⁴: exact in
/// f32, and SSE2 has no 32-bit lane multiply).
#[inline(always)]
fn rows(base: i32x4, j: i32x4, wf: f32x4) -> i32x4 {
    base + (f32x4::from_i32x4(j) * wf).fast_trunc_int()
}

/// The footprint of [`footprint`] and [`bilinear`] for lanes with NaN, infinite or huge
/// coordinates: the general path's saturating floor, clamped fraction and wrap of both taps
/// per axis, lane by lane. `(i0, j0, (i1, j1), fa, fb)`.
#[cold]
#[inline(never)]
fn taps_lane_by_lane<const M: u8>(
    x: f32x4,
    y: f32x4,
    v: &LevelVecs,
) -> (i32x4, i32x4, (i32x4, i32x4), f32x4, f32x4) {
    let (xa, ya) = (x.to_array(), y.to_array());
    let (wa, ha) = (v.w.to_array(), v.h.to_array());
    let mut r = [[0i32; 4]; 4];
    let mut f = [[0f32; 4]; 2];
    for lane in 0..4 {
        let (a, b) = (fl(xa[lane]), fl(ya[lane]));
        f[0][lane] = (xa[lane] - a as f32).clamp(0.0, 1.0);
        f[1][lane] = (ya[lane] - b as f32).clamp(0.0, 1.0);
        r[0][lane] = wrap::<M>(a, wa[lane], M);
        r[1][lane] = wrap::<M>(a.saturating_add(1), wa[lane], M);
        r[2][lane] = wrap::<M>(b, ha[lane], M);
        r[3][lane] = wrap::<M>(b.saturating_add(1), ha[lane], M);
    }
    (
        r[0].into(),
        r[2].into(),
        (r[1].into(), r[3].into()),
        f[0].into(),
        f[1].into(),
    )
}

/// The bilinear footprints of four lanes, range-checked against the plane: the weights
/// toward the upper texels and the texels' byte offsets (texel index · 16, < 2²⁶: a plane
/// has at most 2²² texels).
struct Foot {
    fa: f32x4,
    fb: f32x4,
    /// Byte offset of each lane's lower-left texel.
    o00: i32x4,
    /// Every footprint is two neighbouring texels of two neighbouring rows (`o00 + 16`,
    /// `o00 + p`, `o00 + p + 16`, `p` = 16 · the lane's width); otherwise `hi` has the
    /// other three offsets.
    adjacent: bool,
    hi: [i32x4; 3],
    /// The finite-coordinate route (weights in [0, 1], not NaN).
    finite: bool,
}

/// The bilinear footprints of the four lanes at texel-space `(u, v)` on slot `l`, by the
/// general path's operations (`−0.5`, floor, clamped fraction, wrap of both taps per
/// axis); `None`: an index outside the plane (impossible for the kernel's image), or
/// (`CUBE`) a footprint leaving its face. The compare route's; [`bilinear`] does the same
/// steps inline (reading through this struct measured batch trilinear 426 → 438
/// instructions per quad, the fullscreen frame +2.5 M).
#[inline(always)]
fn footprint<const M: u8, const CUBE: bool>(
    texels: &[f32x4],
    l: &Lv,
    u: f32x4,
    v: f32x4,
) -> Option<Foot> {
    let half = f32x4::splat(0.5);
    let x = u - half;
    let y = v - half;
    let (tx, xi, xf) = floor4x(x);
    let (ty, yi, yf) = floor4x(y);
    let (i0, j0, fa, fb, adjacent, finite);
    let mut hi = None;
    if floor_ok(tx, ty) {
        // `x − floor(x)` (the general path's operation) lies in [0, 1] here: its clamp is a
        // no-op
        fa = x - xf;
        fb = y - yf;
        let (ax, ay) = (l.v.x(), l.v.y());
        let (a0, adj_i) = axis_lo::<M>(xi, xf, &ax);
        let (b0, adj_j) = axis_lo::<M>(yi, yf, &ay);
        (i0, j0) = (a0, b0);
        adjacent = adj_i & adj_j;
        finite = true;
        if !adjacent {
            hi = Some((axis_hi::<M>(xi, xf, &ax), axis_hi::<M>(yi, yf, &ay)));
        }
    } else {
        let t = taps_lane_by_lane::<M>(x, y, l.v);
        (i0, j0, hi, fa, fb) = (t.0, t.1, Some(t.2), t.3, t.4);
        adjacent = false;
        finite = false;
    }
    let len = i32x4::splat(texels.len().min(i32::MAX as usize) as i32);
    let r0 = rows(l.base, j0, l.v.wf);
    let o00 = r0 + i0;
    if adjacent {
        if !in_range(o00, o00 + l.v.w + i32x4::ONE, len) {
            return None;
        }
        return Some(Foot {
            fa,
            fb,
            o00: o00 << 4u32,
            adjacent,
            hi: [i32x4::ZERO; 3],
            finite,
        });
    }
    if CUBE {
        return None; // a tap on a neighbouring face
    }
    let (i1, j1) = hi?;
    let r1 = rows(l.base, j1, l.v.wf);
    let (o10, o01, o11) = (r0 + i1, r1 + i0, r1 + i1);
    let lo = o00.min(o10).min(o01.min(o11));
    let top = o00.max(o10).max(o01.max(o11));
    if !in_range(lo, top, len) {
        return None;
    }
    Some(Foot {
        fa,
        fb,
        o00: o00 << 4u32,
        adjacent,
        hi: [o10 << 4u32, o01 << 4u32, o11 << 4u32],
        finite,
    })
}

/// Bilinear footprints of the four lanes at texel-space `(u, v)` on slot `l`, filtered
/// (`AVX`: see [`plane_quad_w`]).
#[inline(always)]
fn bilinear<const M: u8, const UNI: bool, const CUBE: bool, const AVX: bool>(
    texels: &[f32x4],
    l: &Lv,
    u: f32x4,
    v: f32x4,
) -> Option<[f32x4; 4]> {
    let half = f32x4::splat(0.5);
    let x = u - half;
    let y = v - half;
    let (tx, xi, xf) = floor4x(x);
    let (ty, yi, yf) = floor4x(y);
    let (i0, j0, fa, fb, adjacent);
    let mut hi = None;
    if floor_ok(tx, ty) {
        // `x − floor(x)` is exact and in [0, 1) here: the general path's clamp is a no-op
        fa = x - xf;
        fb = y - yf;
        let (ax, ay) = (l.v.x(), l.v.y());
        let (a0, adj_i) = axis_lo::<M>(xi, xf, &ax);
        let (b0, adj_j) = axis_lo::<M>(yi, yf, &ay);
        (i0, j0) = (a0, b0);
        adjacent = adj_i & adj_j;
        if !adjacent {
            hi = Some((axis_hi::<M>(xi, xf, &ax), axis_hi::<M>(yi, yf, &ay)));
        }
    } else {
        let t = taps_lane_by_lane::<M>(x, y, l.v);
        (i0, j0, hi, fa, fb) = (t.0, t.1, Some(t.2), t.3, t.4);
        adjacent = false;
    }
    let (fav, fbv) = (fa, fb);
    let (fa, fb) = (fa.to_array(), fb.to_array());
    let len = i32x4::splat(texels.len().min(i32::MAX as usize) as i32);
    let r0 = rows(l.base, j0, l.v.wf);
    let o00 = r0 + i0;
    let mut out = [f32x4::ZERO; 4];
    if adjacent {
        // every footprint is two neighbouring texels of two neighbouring rows: texels
        // `o`, `o + 1`, `o + p`, `o + p + 1` with `p` the lane's row pitch
        let last = o00 + l.v.w + i32x4::ONE;
        if !in_range(o00, last, len) {
            return None;
        }
        // byte offsets (texel index · 16, < 2²⁶: a plane has at most 2²² texels), so the
        // four reads of a lane are one base register and constant or pitch displacements
        let (o, wa) = ((o00 << 4u32).to_array(), (l.v.w << 4u32).to_array());
        let p16 = l.v.pitch as usize * 16;
        let ptr = texels.as_ptr();
        #[cfg(target_arch = "x86_64")]
        if AVX {
            let offs: [[usize; 4]; 4] = std::array::from_fn(|lane| {
                let p = if UNI { p16 } else { wa[lane] as u32 as usize };
                let o = o[lane] as u32 as usize;
                [o, o + 16, o + p, o + p + 16]
            });
            // SAFETY: `AVX` is set only where the CPU has AVX2 (`plane_quad_w`); the
            // offsets are those the scalar loop below reads, in bounds and aligned by the
            // `in_range` check above (see its proof)
            return Some(unsafe { lerps_avx2(ptr, &offs, fav, fbv) });
        }
        for lane in 0..4 {
            let p = if UNI { p16 } else { wa[lane] as u32 as usize };
            let o = o[lane] as u32 as usize;
            // SAFETY: `in_range` above: this lane's texel index `i = o / 16` has `0 ≤ i`
            // and `i + w + 1 < texels.len()` with `w` its level's width (`l.v.w`, which
            // `l.v.pitch` equals for uniform levels) and `p = 16·w`; so the four byte offsets
            // `o`, `o + 16`, `o + p`, `o + p + 16` are those of texels in bounds, each a
            // multiple of the element size (aligned)
            let rd = |b: usize| unsafe { *ptr.byte_add(b) };
            let (a, b) = (f32x4::splat(fa[lane]), f32x4::splat(fb[lane]));
            let top = lerp(rd(o), rd(o + 16), a);
            let bot = lerp(rd(o + p), rd(o + p + 16), a);
            out[lane] = lerp(top, bot, b);
        }
    } else {
        if CUBE {
            return None; // a tap on a neighbouring face
        }
        let (i1, j1) = hi?;
        let r1 = rows(l.base, j1, l.v.wf);
        let (o10, o01, o11) = (r0 + i1, r1 + i0, r1 + i1);
        let lo = o00.min(o10).min(o01.min(o11));
        let top = o00.max(o10).max(o01.max(o11));
        if !in_range(lo, top, len) {
            return None;
        }
        // byte offsets, as above
        let (o00, o10) = ((o00 << 4u32).to_array(), (o10 << 4u32).to_array());
        let (o01, o11) = ((o01 << 4u32).to_array(), (o11 << 4u32).to_array());
        let ptr = texels.as_ptr();
        #[cfg(target_arch = "x86_64")]
        if AVX {
            let offs: [[usize; 4]; 4] = std::array::from_fn(|lane| {
                [o00[lane], o10[lane], o01[lane], o11[lane]].map(|b| b as u32 as usize)
            });
            // SAFETY: `AVX` is set only where the CPU has AVX2 (`plane_quad_w`); every
            // offset is that of a texel index in `0..texels.len()` (`in_range` above)
            return Some(unsafe { lerps_avx2(ptr, &offs, fav, fbv) });
        }
        for lane in 0..4 {
            // SAFETY: `in_range` above: every lane of the four index vectors is a texel
            // index in `0..texels.len()`, and these are its byte offsets (index · 16)
            let rd = |b: i32| unsafe { *ptr.byte_add(b as u32 as usize) };
            let (a, b) = (f32x4::splat(fa[lane]), f32x4::splat(fb[lane]));
            let top = lerp(rd(o00[lane]), rd(o10[lane]), a);
            let bot = lerp(rd(o01[lane]), rd(o11[lane]), a);
            out[lane] = lerp(top, bot, b);
        }
    }
    Some(out)
}

/// The general path's three lerps of four lanes' footprints (`o[lane]`: the byte offsets
/// of texels (0, 0), (1, 0), (0, 1), (1, 1); `fa`, `fb` the lanes' weights), two lanes per
/// 256-bit operation: lane `2h`'s texels in the low half, lane `2h + 1`'s in the high half,
/// each lane's weight broadcast to its half. Every channel gets the same `a + (b − a)·w`
/// operations, in the same order, as [`lerp`] (no FMA), hence the same bits.
///
/// # Safety
/// The CPU has AVX2, and every `o[lane][k]` is the byte offset of an element of the slice
/// `ptr` points to (a multiple of 16, so the reads are aligned).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn lerps_avx2(ptr: *const f32x4, o: &[[usize; 4]; 4], fa: f32x4, fb: f32x4) -> [f32x4; 4] {
    use std::arch::x86_64::*;
    use wide::bytemuck::cast;
    // SAFETY: the caller's contract: `b` is the byte offset of an element
    let rd = |b: usize| -> __m128 { cast(unsafe { *ptr.byte_add(b) }) };
    let pair = |a: usize, b: usize| _mm256_set_m128(rd(b), rd(a));
    let fa = _mm256_castps128_ps256(cast(fa));
    let fb = _mm256_castps128_ps256(cast(fb));
    let lerp8 =
        |a: __m256, b: __m256, w: __m256| _mm256_add_ps(a, _mm256_mul_ps(_mm256_sub_ps(b, a), w));
    let mut out = [f32x4::ZERO; 4];
    for h in 0..2 {
        let (x, y) = (&o[2 * h], &o[2 * h + 1]);
        let idx = _mm256_setr_epi32(
            2 * h as i32,
            2 * h as i32,
            2 * h as i32,
            2 * h as i32,
            2 * h as i32 + 1,
            2 * h as i32 + 1,
            2 * h as i32 + 1,
            2 * h as i32 + 1,
        );
        let a = _mm256_permutevar8x32_ps(fa, idx);
        let b = _mm256_permutevar8x32_ps(fb, idx);
        let top = lerp8(pair(x[0], y[0]), pair(x[1], y[1]), a);
        let bot = lerp8(pair(x[2], y[2]), pair(x[3], y[3]), a);
        let r = lerp8(top, bot, b);
        out[2 * h] = cast(_mm256_castps256_ps128(r));
        out[2 * h + 1] = cast(_mm256_extractf128_ps::<1>(r));
    }
    out
}

/// Two level slots' constants side by side (slot 0 in lanes 0..4, slot 1 in lanes 4..8),
/// for [`trilinear_repeat_p2_avx2`]; built once per level selection.
#[derive(Clone, Copy, Debug)]
pub(super) struct Tri2 {
    wf: [f32; 8],
    hf: [f32; 8],
    /// Extent − 1 (the repeat masks).
    wm: [i32; 8],
    hm: [i32; 8],
    w: [i32; 8],
    base: [i32; 8],
    /// The slots' row pitches (as texel counts).
    p: [i32; 8],
    /// The slots' level weights (slot 0's channels, then slot 1's).
    w8: [f32; 8],
    /// Byte row pitch per slot.
    p16: [usize; 2],
}

impl Tri2 {
    /// The constants of a two-slot uniform selection on power-of-two repeat levels, or
    /// `None` for any other.
    pub(super) fn new(lv: &PlaneLevels) -> Option<Tri2> {
        let [a, b] = &lv.1;
        if lv.0 != 2 || !a.v.p2 || !b.v.p2 || a.used != 0xf || b.used != 0xf {
            return None;
        }
        fn two<T: Copy>(x: [T; 4], y: [T; 4]) -> [T; 8] {
            std::array::from_fn(|i| if i < 4 { x[i] } else { y[i - 4] })
        }
        let f = |g: fn(&LevelVecs) -> f32x4| two(g(a.v).to_array(), g(b.v).to_array());
        let i = |g: fn(&LevelVecs) -> i32x4| two(g(a.v).to_array(), g(b.v).to_array());
        Some(Tri2 {
            wf: f(|v| v.wf),
            hf: f(|v| v.hf),
            wm: i(|v| v.wm),
            hm: i(|v| v.hm),
            w: i(|v| v.w),
            base: two(a.base.to_array(), b.base.to_array()),
            p: two([a.v.pitch as i32; 4], [b.v.pitch as i32; 4]),
            w8: two(a.weight.to_array(), b.weight.to_array()),
            p16: [a.v.pitch as usize * 16, b.v.pitch as usize * 16],
        })
    }
}

/// The usual trilinear quad on repeat-mode power-of-two levels ([`Tri2`]: the selection's
/// constants), both slots' footprints in one 256-bit pass (slot 0 in the low half, slot 1 in
/// the high half): [`plane_quad_n`]`::<REPEAT, true, true, 2, false>`'s operations lane for
/// lane — `s·w`, `−0.5`, floor (`roundps`: exact), fraction, the repeat masks, the row
/// product (`pmulld`: the f32 product of [`rows`] is exact there too), then per lane the
/// general path's three `a + (b − a)·w` lerps on both slots at once (the lane's slot-0
/// texels in the low half, its slot-1 texels in the high half) and the `(0 + w₀·v₀) + w₁·v₁`
/// accumulation. `None`: a lane that needs the general handling (NaN, infinite or huge
/// coordinates) or an index outside the plane: the caller takes [`plane_quad_w`].
///
/// # Safety
/// The CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub(super) unsafe fn trilinear_repeat_p2_avx2(
    plane: &Plane,
    q: &QuadIn,
    c: &Tri2,
    snorm: bool,
) -> Option<[f32x4; 4]> {
    use wide::bytemuck::cast;
    // SAFETY: the CPU has AVX2 (this function's contract)
    unsafe { tri_quad(&plane.texels, c, cast(q.s), cast(q.t), snorm) }
}

/// [`trilinear_repeat_p2_avx2`] on quads `0..n` of `s`, `t` (lane rows) while each quad is
/// whole (mask `0xf`; mask 0 is skipped), its lane-0 differences (lanes 1 and 2 of `c − c₀`,
/// as bits) equal `prev`'s — the selection `c` was made for — and the routine serves it;
/// writes the results to `out` and returns the number of quads done (the caller's loop takes
/// the quad that stopped the run). The batch loop's per-quad bookkeeping, out of the way of
/// the routine's registers.
///
/// # Safety
/// The CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn trilinear_run_avx2(
    plane: &Plane,
    c: &Tri2,
    snorm: bool,
    prev: (wide::u32x4, wide::u32x4),
    s: &[[u32; 4]],
    t: &[[u32; 4]],
    masks: &[u8],
    out: &mut [[u32; 4]],
) -> usize {
    use std::arch::x86_64::*;
    use wide::bytemuck::cast;
    let texels = &plane.texels[..];
    let (ps, pt): (__m128i, __m128i) = (cast(prev.0), cast(prev.1));
    let n = masks.len().min(s.len()).min(t.len()).min(out.len() / 4);
    for q in 0..n {
        let m = masks[q] & 0xf;
        if m == 0 {
            continue;
        }
        if m != 0xf {
            return q;
        }
        let (sv, tv): (__m128, __m128) = (cast(s[q]), cast(t[q]));
        // `c − c₀` lane-wise, compared with `prev` in lanes 1 and 2 (as the batch loop does)
        let ds = _mm_castps_si128(_mm_sub_ps(sv, _mm_permute_ps::<0>(sv)));
        let dt = _mm_castps_si128(_mm_sub_ps(tv, _mm_permute_ps::<0>(tv)));
        let eq = _mm_and_si128(_mm_cmpeq_epi32(ds, ps), _mm_cmpeq_epi32(dt, pt));
        if _mm_movemask_ps(_mm_castsi128_ps(eq)) & 0b0110 != 0b0110 {
            return q;
        }
        // SAFETY: the CPU has AVX2 (this function's contract)
        let Some(r) = (unsafe { tri_quad(texels, c, sv, tv, snorm) }) else {
            return q;
        };
        let r: [[u32; 4]; 4] = cast(r);
        out[4 * q..4 * q + 4].copy_from_slice(&r);
    }
    n
}

/// [`trilinear_repeat_p2_avx2`]'s body on the quad's `s`, `t` lanes.
///
/// # Safety
/// The CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn tri_quad(
    texels: &[f32x4],
    c: &Tri2,
    s: std::arch::x86_64::__m128,
    t: std::arch::x86_64::__m128,
    snorm: bool,
) -> Option<[f32x4; 4]> {
    use std::arch::x86_64::*;
    use wide::bytemuck::cast;
    let f8 = |a: &[f32; 8]| -> __m256 { cast(*a) };
    let i8 = |a: &[i32; 8]| -> __m256i { cast(*a) };
    let u = _mm256_mul_ps(_mm256_set_m128(s, s), f8(&c.wf));
    let v = _mm256_mul_ps(_mm256_set_m128(t, t), f8(&c.hf));
    let half = _mm256_set1_ps(0.5);
    let x = _mm256_sub_ps(u, half);
    let y = _mm256_sub_ps(v, half);
    let (xf, yf) = (_mm256_floor_ps(x), _mm256_floor_ps(y));
    let (xi, yi) = (_mm256_cvttps_epi32(xf), _mm256_cvttps_epi32(yf));
    // NaN, ±∞ and |x| ≥ 2³¹ convert to i32::MIN (as `floor4x` marks them)
    let min = _mm256_set1_epi32(i32::MIN);
    let marked = _mm256_or_si256(_mm256_cmpeq_epi32(xi, min), _mm256_cmpeq_epi32(yi, min));
    if _mm256_testz_si256(marked, marked) == 0 {
        return None;
    }
    // exact and in [0, 1) on unmarked lanes: the general path's clamp is a no-op
    let fa = _mm256_sub_ps(x, xf);
    let fb = _mm256_sub_ps(y, yf);
    let one = _mm256_set1_epi32(1);
    let (wm, hm) = (i8(&c.wm), i8(&c.hm));
    let i0 = _mm256_and_si256(xi, wm);
    let j0 = _mm256_and_si256(yi, hm);
    let i1 = _mm256_and_si256(_mm256_add_epi32(xi, one), wm);
    let j1 = _mm256_and_si256(_mm256_add_epi32(yi, one), hm);
    let (w, base) = (i8(&c.w), i8(&c.base));
    let r0 = _mm256_add_epi32(base, _mm256_mullo_epi32(j0, w));
    let r1 = _mm256_add_epi32(base, _mm256_mullo_epi32(j1, w));
    let (o00, o10) = (_mm256_add_epi32(r0, i0), _mm256_add_epi32(r0, i1));
    let (o01, o11) = (_mm256_add_epi32(r1, i0), _mm256_add_epi32(r1, i1));
    // `in_range` of the four offsets: 0 ≤ lo ≤ hi < len
    let lo = _mm256_min_epi32(_mm256_min_epi32(o00, o10), _mm256_min_epi32(o01, o11));
    let hi = _mm256_max_epi32(_mm256_max_epi32(o00, o10), _mm256_max_epi32(o01, o11));
    let len = _mm256_set1_epi32(texels.len().min(i32::MAX as usize) as i32);
    let bad = _mm256_or_si256(
        _mm256_or_si256(
            _mm256_cmpgt_epi32(_mm256_setzero_si256(), lo),
            _mm256_cmpgt_epi32(lo, hi),
        ),
        _mm256_cmpgt_epi32(hi, _mm256_sub_epi32(len, one)),
    );
    if _mm256_testz_si256(bad, bad) == 0 {
        return None;
    }
    // lanes whose four reads are `o00 + {0, 1, p, p + 1}` with `p` the slot's pitch
    let o00p = _mm256_add_epi32(o00, i8(&c.p));
    let adj = _mm256_and_si256(
        _mm256_and_si256(
            _mm256_cmpeq_epi32(o10, _mm256_add_epi32(o00, one)),
            _mm256_cmpeq_epi32(o01, o00p),
        ),
        _mm256_cmpeq_epi32(o11, _mm256_add_epi32(o00p, one)),
    );
    let adj = _mm256_movemask_ps(_mm256_castsi256_ps(adj));
    let b16 = |v: __m256i| -> [u32; 8] { cast(_mm256_slli_epi32::<4>(v)) };
    let a00 = b16(o00);
    let ptr = texels.as_ptr();
    let w8 = f8(&c.w8);
    let zero = _mm_setzero_ps();
    // SAFETY (for `rd`'s callers below): every offset is 16 times a texel index in
    // `0..texels.len()`: the four index vectors passed the range check above, and the
    // adjacent form's offsets equal them lane by lane (`adj`, with `p16 = 16 · p`)
    let rd = |b: usize| -> __m128 { cast(unsafe { *ptr.byte_add(b) }) };
    // (slot 0's texel, slot 1's texel) of one corner of one lane
    let pair = |b0: usize, b1: usize| _mm256_set_m128(rd(b1), rd(b0));
    let lerp8 =
        |a: __m256, b: __m256, w: __m256| _mm256_add_ps(a, _mm256_mul_ps(_mm256_sub_ps(b, a), w));
    // lane `$l` (`$imm` broadcasts it within each half) from its corners' byte offsets
    macro_rules! lane {
        ($imm:literal, $b00:expr, $b10:expr, $b01:expr, $b11:expr) => {{
            let (a, b) = (_mm256_permute_ps::<$imm>(fa), _mm256_permute_ps::<$imm>(fb));
            let top = lerp8($b00, $b10, a);
            let bot = lerp8($b01, $b11, a);
            let m = _mm256_mul_ps(w8, lerp8(top, bot, b));
            let acc = _mm_add_ps(zero, _mm256_castps256_ps128(m));
            let acc = _mm_add_ps(acc, _mm256_extractf128_ps::<1>(m));
            let acc: f32x4 = cast(acc);
            if snorm {
                acc.fast_max(f32x4::splat(-1.0))
            } else {
                acc
            }
        }};
    }
    if adj == 0xff {
        let (p0, p1) = (c.p16[0], c.p16[1]);
        macro_rules! adjacent {
            ($l:literal, $imm:literal) => {{
                let (b0, b1) = (a00[$l] as usize, a00[4 + $l] as usize);
                lane!(
                    $imm,
                    pair(b0, b1),
                    pair(b0 + 16, b1 + 16),
                    pair(b0 + p0, b1 + p1),
                    pair(b0 + p0 + 16, b1 + p1 + 16)
                )
            }};
        }
        Some([
            adjacent!(0, 0x00),
            adjacent!(1, 0x55),
            adjacent!(2, 0xaa),
            adjacent!(3, 0xff),
        ])
    } else {
        let (a10, a01, a11) = (b16(o10), b16(o01), b16(o11));
        macro_rules! any {
            ($l:literal, $imm:literal) => {{
                let k = |a: &[u32; 8]| pair(a[$l] as usize, a[4 + $l] as usize);
                lane!($imm, k(&a00), k(&a10), k(&a01), k(&a11))
            }};
        }
        Some([any!(0, 0x00), any!(1, 0x55), any!(2, 0xaa), any!(3, 0xff)])
    }
}
/// Whether [`one_level_pairs_avx2`] serves slot `l` of a uniform one-level selection: every
/// lane has the same level extent, base and weight (what [`uni_levels`] gives a 2D view), the
/// level is a power of two on both axes unless `M` is clamp-to-edge (the lane-wise wraps are
/// masks), and the plane has at most 2²⁶ texels (so byte offsets, texel index · 16, fit a
/// non-negative i32: a plane has at most `PLANE_MAX_TEXELS` = 2²² anyway).
pub(super) fn pairs_serve<const M: u8>(plane: &Plane, l: &Lv) -> bool {
    let same_i = |v: i32x4| {
        let a = v.to_array();
        a.iter().all(|&x| x == a[0])
    };
    let w = l.weight.to_array();
    let len = plane.texels.len();
    l.used == 0xf
        && (M == CLAMP || l.v.p2)
        && same_i(l.v.w)
        && same_i(l.v.h)
        && same_i(l.base)
        && w.iter().all(|x| x.to_bits() == w[0].to_bits())
        && (1..=1 << 26).contains(&len)
}

/// A uniform one-level slot's constants in every lane of a 256-bit register (slot `l`'s lane
/// 0: [`pairs_serve`] has checked that every lane has the same).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct Slot8 {
    wf: std::arch::x86_64::__m256,
    hf: std::arch::x86_64::__m256,
    /// Extent and extent − 1 (the last index) per axis.
    w: std::arch::x86_64::__m256i,
    h: std::arch::x86_64::__m256i,
    wm: std::arch::x86_64::__m256i,
    hm: std::arch::x86_64::__m256i,
    base: std::arch::x86_64::__m256i,
    weight: std::arch::x86_64::__m256,
    /// The plane's last texel index (`len − 1`, `len` in `1..=2²⁶`).
    last: std::arch::x86_64::__m256i,
    /// The last index whose 2×2 block (`o`, `o + 1`, `o + w`, `o + w + 1`) is in the plane
    /// (`last − w − 1`), when the plane has such a block (`adj_ok`).
    last_adj: std::arch::x86_64::__m256i,
    adj_ok: bool,
    /// The byte row pitch.
    p16: usize,
}

#[cfg(target_arch = "x86_64")]
impl Slot8 {
    /// # Safety
    /// The CPU has AVX2.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn new(plane: &Plane, l: &Lv) -> Slot8 {
        use std::arch::x86_64::*;
        let f = |v: f32x4| _mm256_set1_ps(v.to_array()[0]);
        let i = |v: i32x4| _mm256_set1_epi32(v.to_array()[0]);
        let last = plane.texels.len().min(1 << 26) as i32 - 1;
        let w = l.v.w.to_array()[0];
        Slot8 {
            wf: f(l.v.wf),
            hf: f(l.v.hf),
            w: i(l.v.w),
            h: i(l.v.h),
            wm: i(l.v.wm),
            hm: i(l.v.hm),
            base: i(l.base),
            weight: f(l.weight),
            last: _mm256_set1_epi32(last),
            last_adj: _mm256_set1_epi32(last - w - 1),
            adj_ok: last - w > 0,
            p16: w as u32 as usize * 16,
        }
    }
}

/// [`axis_lo`]`::<M>`'s wrap of eight floors `i` (finite, `|i| < 2³¹`) on an axis of extent
/// `n`, last index `last` (a power of two unless `M` is clamp-to-edge): the repeat mask,
/// [`mirror_p2`], or the clamp to `[0, last]` (the general path's, in integers: `i` is the
/// exact floor).
///
/// # Safety
/// The CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn wrap8<const M: u8>(
    i: std::arch::x86_64::__m256i,
    n: std::arch::x86_64::__m256i,
    last: std::arch::x86_64::__m256i,
) -> std::arch::x86_64::__m256i {
    use std::arch::x86_64::*;
    if M == REPEAT {
        _mm256_and_si256(i, last)
    } else if M == MIRRORED {
        let x = _mm256_sub_epi32(_mm256_and_si256(i, _mm256_add_epi32(n, last)), n);
        _mm256_sub_epi32(last, _mm256_xor_si256(x, _mm256_srai_epi32::<31>(x)))
    } else {
        _mm256_min_epi32(_mm256_max_epi32(i, _mm256_setzero_si256()), last)
    }
}

/// Floors of eight texel-space coordinates as i32 and f32 (`roundps`: exact), or `None` when
/// a lane of either axis is NaN, infinite or has a floor outside i32 (the conversion gives
/// `i32::MIN` there, as [`floor4x`] marks such lanes; `−2³¹` itself is marked too, harmlessly).
///
/// # Safety
/// The CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
#[allow(clippy::type_complexity)]
unsafe fn floor8(
    x: std::arch::x86_64::__m256,
    y: std::arch::x86_64::__m256,
) -> Option<(
    (std::arch::x86_64::__m256i, std::arch::x86_64::__m256),
    (std::arch::x86_64::__m256i, std::arch::x86_64::__m256),
)> {
    use std::arch::x86_64::*;
    let (xf, yf) = (_mm256_floor_ps(x), _mm256_floor_ps(y));
    let (xi, yi) = (_mm256_cvttps_epi32(xf), _mm256_cvttps_epi32(yf));
    // a lane of either axis at `i32::MIN` (the least i32) has it as the lesser of the two
    let marked = _mm256_cmpeq_epi32(_mm256_min_epi32(xi, yi), _mm256_set1_epi32(i32::MIN));
    if _mm256_testz_si256(marked, marked) == 0 {
        return None;
    }
    Some(((xi, xf), (yi, yf)))
}

/// Whether every lane of the texel indices `o` is in `0..=last` (unsigned: a negative index
/// is above `last < 2²⁶`; `last ≥ 0`).
///
/// # Safety
/// The CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn in_plane8(o: std::arch::x86_64::__m256i, last: std::arch::x86_64::__m256i) -> bool {
    use std::arch::x86_64::*;
    let ok = _mm256_cmpeq_epi32(_mm256_max_epu32(o, last), last);
    _mm256_movemask_epi8(ok) == -1
}

/// The bilinear footprints of eight lanes at texel-space `(u, v)` on slot `c`, [`bilinear`]'s
/// steps lane for lane: `−0.5`, floor, the fraction (exact and in [0, 1): the general path's
/// clamp is a no-op), the wrap of both taps per axis, the row product (`pmulld`: exact, as
/// [`rows`]' f32 product is). Range-checked: `(fa, fb, byte offsets of texels (0, 0), (1, 0),
/// (0, 1), (1, 1))`, or `(fa, fb, offsets of (0, 0), None)` when every footprint is adjacent
/// (upper taps one column and one row on: reads `o00 + {0, 16, p16, p16 + 16}`, and the
/// check of `o00` against `last_adj` covers all four). `None`: a lane that needs the general
/// handling (NaN, infinite or huge coordinates) or an index outside the plane (impossible for
/// the kernel's image).
///
/// # Safety
/// The CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
#[allow(clippy::type_complexity)]
unsafe fn footprint8<const M: u8>(
    c: &Slot8,
    u: std::arch::x86_64::__m256,
    v: std::arch::x86_64::__m256,
) -> Option<(
    std::arch::x86_64::__m256,
    std::arch::x86_64::__m256,
    std::arch::x86_64::__m256i,
    Option<[std::arch::x86_64::__m256i; 3]>,
)> {
    use std::arch::x86_64::*;
    let half = _mm256_set1_ps(0.5);
    let x = _mm256_sub_ps(u, half);
    let y = _mm256_sub_ps(v, half);
    // SAFETY: the CPU has AVX2 (this function's contract)
    let ((xi, xf), (yi, yf)) = unsafe { floor8(x, y) }?;
    let fa = _mm256_sub_ps(x, xf);
    let fb = _mm256_sub_ps(y, yf);
    let one = _mm256_set1_epi32(1);
    // SAFETY: as above
    let (i0, i1, j0, j1) = unsafe {
        (
            wrap8::<M>(xi, c.w, c.wm),
            wrap8::<M>(_mm256_add_epi32(xi, one), c.w, c.wm),
            wrap8::<M>(yi, c.h, c.hm),
            wrap8::<M>(_mm256_add_epi32(yi, one), c.h, c.hm),
        )
    };
    let r0 = _mm256_add_epi32(c.base, _mm256_mullo_epi32(j0, c.w));
    let o00 = _mm256_add_epi32(r0, i0);
    let adj = _mm256_and_si256(
        _mm256_cmpeq_epi32(i1, _mm256_add_epi32(i0, one)),
        _mm256_cmpeq_epi32(j1, _mm256_add_epi32(j0, one)),
    );
    // SAFETY: as above
    if c.adj_ok && _mm256_movemask_epi8(adj) == -1 && unsafe { in_plane8(o00, c.last_adj) } {
        return Some((fa, fb, o00, None));
    }
    let r1 = _mm256_add_epi32(c.base, _mm256_mullo_epi32(j1, c.w));
    let (o10, o01, o11) = (
        _mm256_add_epi32(r0, i1),
        _mm256_add_epi32(r1, i0),
        _mm256_add_epi32(r1, i1),
    );
    let hi = _mm256_max_epu32(_mm256_max_epu32(o00, o10), _mm256_max_epu32(o01, o11));
    // SAFETY: as above
    if !unsafe { in_plane8(hi, c.last) } {
        return None;
    }
    Some((fa, fb, o00, Some([o10, o01, o11])))
}

/// Two quads of one run (`s`, `t`, `dref`: quad `q` in the low half, quad `q₁` in the high
/// half) on slot `c`, as they are stored: quad `q`'s lanes 0 and 1, its lanes 2 and 3, then
/// `q₁`'s. Each lane's result is [`plane_quad_w`]`::<M, LIN, true, 1, false, _>`'s
/// (`CMP`: [`plane_quad_cmp`]'s): the footprints as [`nearest`] and [`footprint8`] compute
/// them, the texels, the general path's three `a + (b − a)·w` lerps per channel (no FMA,
/// the same operand order), the accumulation `0 + w·v`, the SNORM clamp; with `CMP` the
/// comparisons and lerps of [`bilinear_cmp`] on channel 0 of the eight lanes at once and
/// `(c, +0, +0, 0 + w·1)`. `None`: a lane that needs the general handling (NaN, infinite or
/// huge coordinates) or an index outside the plane.
///
/// # Safety
/// The CPU has AVX2; `texels` is the plane [`Slot8::new`] was built from.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
#[allow(clippy::too_many_arguments)]
unsafe fn pair8<const M: u8, const LIN: bool, const CMP: bool>(
    texels: &[f32x4],
    c: &Slot8,
    s: std::arch::x86_64::__m256,
    t: std::arch::x86_64::__m256,
    dref: std::arch::x86_64::__m256,
    op: CompareOp,
    snorm: bool,
) -> Option<[std::arch::x86_64::__m256; 4]> {
    use std::arch::x86_64::*;
    use wide::bytemuck::cast;
    let u = _mm256_mul_ps(s, c.wf);
    let v = _mm256_mul_ps(t, c.hf);
    let ptr = texels.as_ptr();
    let zero = _mm256_setzero_ps();
    // SAFETY (for `rd`'s callers below): `p.wrapping_byte_add(b)` is, for every `(p, b)`
    // passed, `ptr` plus 16 times a texel index in `0..=c.last`, `c.last < texels.len()` (the
    // range checks before the reads: `in_plane8` of every index, or in the adjacent form of
    // `o00` against `c.last_adj`, which puts `o00 + w + 1` in the plane; `ptr1` is `ptr` one
    // row, `p16` bytes, on), so a texel in bounds, aligned
    let rd = |p: *const f32x4, b: usize| -> __m128 { cast(unsafe { *p.wrapping_byte_add(b) }) };
    let pair = |p: *const f32x4, b0: usize, b1: usize| _mm256_set_m128(rd(p, b1), rd(p, b0));
    let acc = |x: __m256| _mm256_add_ps(zero, _mm256_mul_ps(c.weight, x));
    // `x.max(−1)` for SNORM, as `plane_quad_w`'s `fast_max`: −1 for a NaN x
    let clamp = |r: [__m256; 4]| {
        if snorm {
            r.map(|x| _mm256_max_ps(x, _mm256_set1_ps(-1.0)))
        } else {
            r
        }
    };
    let bytes = |v: __m256i| -> [u32; 8] { cast(_mm256_slli_epi32::<4>(v)) };
    if !LIN {
        // SAFETY: the CPU has AVX2 (this function's contract)
        let ((ui, _), (vi, _)) = unsafe { floor8(u, v) }?;
        // SAFETY: as above
        let (i, j) = unsafe { (wrap8::<M>(ui, c.w, c.wm), wrap8::<M>(vi, c.h, c.hm)) };
        let o = _mm256_add_epi32(_mm256_add_epi32(c.base, _mm256_mullo_epi32(j, c.w)), i);
        // SAFETY: as above
        if !unsafe { in_plane8(o, c.last) } {
            return None;
        }
        // lanes 2k and 2k + 1 (in storage order) per register
        let a = bytes(o);
        let r = std::array::from_fn(|k| acc(pair(ptr, a[2 * k] as usize, a[2 * k + 1] as usize)));
        return Some(clamp(r));
    }
    // SAFETY: the CPU has AVX2 (this function's contract)
    let (fa, fb, o00, others) = unsafe { footprint8::<M>(c, u, v) }?;
    let lerp8 =
        |a: __m256, b: __m256, w: __m256| _mm256_add_ps(a, _mm256_mul_ps(_mm256_sub_ps(b, a), w));
    if CMP {
        // the depths (channel 0) of the four corners of the eight lanes
        let dp = ptr as *const f32;
        let o = _mm256_slli_epi32::<4>(o00);
        let [o10, o01, o11] = match others {
            None => {
                let p = _mm256_set1_epi32(c.p16 as i32);
                let s16 = _mm256_set1_epi32(16);
                let op = _mm256_add_epi32(o, p);
                [_mm256_add_epi32(o, s16), op, _mm256_add_epi32(op, s16)]
            }
            Some(v) => v.map(|v| _mm256_slli_epi32::<4>(v)),
        };
        // SAFETY: every lane is the byte offset of a texel in bounds (see `rd`), whose first
        // f32 is read
        let g = |o: __m256i| unsafe { _mm256_i32gather_ps::<1>(dp, o) };
        let one = _mm256_set1_ps(1.0);
        let pass = |t: __m256| _mm256_and_ps(cmp8(op, dref, t), one);
        let (t00, t10, t01, t11) = (pass(g(o)), pass(g(o10)), pass(g(o01)), pass(g(o11)));
        let top = lerp8(t00, t10, fa);
        let bot = lerp8(t01, t11, fa);
        let c0 = acc(lerp8(top, bot, fb));
        let c3 = acc(one);
        // lane l: (c0, +0, +0, c3); lanes ordered so that the unpacks leave lanes 2k and
        // 2k + 1 in register k
        let c0 = _mm256_permutevar8x32_ps(c0, _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7));
        let lo = _mm256_castps_pd(_mm256_unpacklo_ps(c0, zero));
        let hi = _mm256_castps_pd(_mm256_unpackhi_ps(c0, zero));
        let w3 = _mm256_castps_pd(_mm256_unpacklo_ps(zero, c3));
        return Some([
            _mm256_castpd_ps(_mm256_unpacklo_pd(lo, w3)),
            _mm256_castpd_ps(_mm256_unpackhi_pd(lo, w3)),
            _mm256_castpd_ps(_mm256_unpacklo_pd(hi, w3)),
            _mm256_castpd_ps(_mm256_unpackhi_pd(hi, w3)),
        ]);
    }
    // lane `$l` of both quads (`$imm` broadcasts it within each half) from its corners' reads
    macro_rules! lane {
        ($imm:literal, $t00:expr, $t10:expr, $t01:expr, $t11:expr) => {{
            let (a, b) = (_mm256_permute_ps::<$imm>(fa), _mm256_permute_ps::<$imm>(fb));
            let top = lerp8($t00, $t10, a);
            let bot = lerp8($t01, $t11, a);
            acc(lerp8(top, bot, b))
        }};
    }
    let a00 = bytes(o00);
    let [l0, l1, l2, l3] = match others {
        None => {
            // the second row's reads from a base one row on
            let ptr1 = ptr.wrapping_byte_add(c.p16);
            macro_rules! adjacent {
                ($l:literal, $imm:literal) => {{
                    let (b0, b1) = (a00[$l] as usize, a00[4 + $l] as usize);
                    lane!(
                        $imm,
                        pair(ptr, b0, b1),
                        pair(ptr, b0 + 16, b1 + 16),
                        pair(ptr1, b0, b1),
                        pair(ptr1, b0 + 16, b1 + 16)
                    )
                }};
            }
            [
                adjacent!(0, 0x00),
                adjacent!(1, 0x55),
                adjacent!(2, 0xaa),
                adjacent!(3, 0xff),
            ]
        }
        Some([o10, o01, o11]) => {
            let (a10, a01, a11) = (bytes(o10), bytes(o01), bytes(o11));
            macro_rules! any {
                ($l:literal, $imm:literal) => {{
                    let k = |a: &[u32; 8]| pair(ptr, a[$l] as usize, a[4 + $l] as usize);
                    lane!($imm, k(&a00), k(&a10), k(&a01), k(&a11))
                }};
            }
            [any!(0, 0x00), any!(1, 0x55), any!(2, 0xaa), any!(3, 0xff)]
        }
    };
    // storage order: (q: 0, 1), (q: 2, 3), (q₁: 0, 1), (q₁: 2, 3)
    Some(clamp([
        _mm256_permute2f128_ps::<0x20>(l0, l1),
        _mm256_permute2f128_ps::<0x20>(l2, l3),
        _mm256_permute2f128_ps::<0x31>(l0, l1),
        _mm256_permute2f128_ps::<0x31>(l2, l3),
    ]))
}

/// `dref OP t` lane-wise as an all-ones / zero mask: [`compare4`]'s comparisons (ordered ones
/// false on NaN, `NotEqual` true).
///
/// # Safety
/// The CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn cmp8(
    op: CompareOp,
    r: std::arch::x86_64::__m256,
    t: std::arch::x86_64::__m256,
) -> std::arch::x86_64::__m256 {
    use std::arch::x86_64::*;
    match op {
        CompareOp::Never => _mm256_setzero_ps(),
        CompareOp::Less => _mm256_cmp_ps::<_CMP_LT_OQ>(r, t),
        CompareOp::Equal => _mm256_cmp_ps::<_CMP_EQ_OQ>(r, t),
        CompareOp::LessOrEqual => _mm256_cmp_ps::<_CMP_LE_OQ>(r, t),
        CompareOp::Greater => _mm256_cmp_ps::<_CMP_GT_OQ>(r, t),
        CompareOp::NotEqual => _mm256_cmp_ps::<_CMP_NEQ_UQ>(r, t),
        CompareOp::GreaterOrEqual => _mm256_cmp_ps::<_CMP_GE_OQ>(r, t),
        CompareOp::Always => _mm256_castsi256_ps(_mm256_set1_epi32(-1)),
    }
}

/// A one-level run two quads at a time: quads `0..n` while each is whole (mask `0xf`; mask 0
/// is skipped) and its lane-0 differences (lanes 1 and 2 of `c − c₀`, as bits) equal `prev`'s,
/// whose selection has slot `l` ([`pairs_serve`]), through [`pair8`]: quads `q` and `q + 1`
/// while both qualify, else `q` alone (in both halves; the high half's results dropped).
/// Returns the number of quads done; the caller takes the quad that stopped the run (a
/// partial mask, other differences, or a lane [`pair8`] does not serve) by the plane routine.
/// `dref`: the run's Dref row (`CMP`), 4 lanes a quad.
///
/// # Safety
/// The CPU has AVX2 and [`pairs_serve`]`::<M>(plane, l)` holds.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn one_level_pairs_avx2<const M: u8, const LIN: bool, const CMP: bool>(
    k: &Kernel,
    plane: &Plane,
    l: &Lv,
    prev: (wide::u32x4, wide::u32x4),
    s: &[[u32; 4]],
    t: &[[u32; 4]],
    dref: &[u32],
    masks: &[u8],
    out: &mut [[[u32; 4]; 4]],
) -> usize {
    use std::arch::x86_64::*;
    use wide::bytemuck::cast;
    let mut n = masks.len().min(s.len()).min(t.len()).min(out.len());
    if CMP {
        n = n.min(dref.len() / 4);
    }
    let (s, t, masks, out) = (&s[..n], &t[..n], &masks[..n], &mut out[..n]);
    let dref = &dref[..if CMP { 4 * n } else { 0 }];
    // SAFETY: the CPU has AVX2 (this function's contract)
    let c = unsafe { Slot8::new(plane, l) };
    let texels = &plane.texels[..];
    let (ps, pt): (__m128i, __m128i) = (cast(prev.0), cast(prev.1));
    let (ps, pt) = (_mm256_set_m128i(ps, ps), _mm256_set_m128i(pt, pt));
    let op = k.sampler.compare_op;
    let (unorm, snorm) = (!k.dref_raw(), k.snorm);
    // lanes 1 and 2 of each half of `c − c₀` (per quad) equal to `prev`'s: bits 1, 2, 5, 6
    let diffs = |sv: __m256, tv: __m256| -> i32 {
        let ds = _mm256_castps_si256(_mm256_sub_ps(sv, _mm256_permute_ps::<0>(sv)));
        let dt = _mm256_castps_si256(_mm256_sub_ps(tv, _mm256_permute_ps::<0>(tv)));
        let eq = _mm256_and_si256(_mm256_cmpeq_epi32(ds, ps), _mm256_cmpeq_epi32(dt, pt));
        _mm256_movemask_ps(_mm256_castsi256_ps(eq)) & 0b0110_0110
    };
    // the Dref operand of eight lanes as `Kernel::dref_value` makes it
    let drefs = |d: [u32; 8]| -> __m256 {
        let v: [f32; 8] = cast(d);
        if unorm {
            cast(v.map(|r| k.dref_value(r)))
        } else {
            cast(v)
        }
    };
    let quad = |x: &[u32], q: usize| -> [u32; 4] {
        match x.get(4 * q..4 * q + 4) {
            Some(&[a, b, c, d]) => [a, b, c, d],
            _ => [0; 4], // not reached: `x` has `4n` lanes and `q < n`
        }
    };
    let mut q = 0;
    while q < n {
        let m = masks[q] & 0xf;
        if m != 0xf {
            if m == 0 {
                q += 1;
                continue;
            }
            return q;
        }
        // quads `q` and `q₁ = q + 1` when that one is whole too, else `q` twice
        let q1 = if q + 1 < n && masks[q + 1] & 0xf == 0xf {
            q + 1
        } else {
            q
        };
        let (sv, tv): (__m256, __m256) = (cast([s[q], s[q1]]), cast([t[q], t[q1]]));
        let e = diffs(sv, tv);
        if e & 0b0110 != 0b0110 {
            return q;
        }
        // `q₁` stored only with the run's differences
        let two = q1 != q && e == 0b0110_0110;
        let d = if CMP {
            drefs(cast([quad(dref, q), quad(dref, q1)]))
        } else {
            _mm256_setzero_ps()
        };
        // SAFETY: the CPU has AVX2 (this function's contract); `c` is `plane`'s
        let Some(r) = (unsafe { pair8::<M, LIN, CMP>(texels, &c, sv, tv, d, op, snorm) }) else {
            return q;
        };
        out[q] = cast([r[0], r[1]]);
        if two {
            out[q + 1] = cast([r[2], r[3]]);
        }
        let done = 1 + two as usize;
        #[cfg(test)]
        PAIRS.with(|p| p.set(p.get() + done));
        q += done;
    }
    n
}

/// [`bilinear`] with a depth comparison per texel (`dref OP texel.r` → 1 or 0, then
/// filtered): channel 0 of each lane (the rest: [`cmp_rest`]); `None` also for NaN or
/// huge coordinates (the general path: its NaN weights reach every channel).
#[inline(always)]
fn bilinear_cmp<const M: u8, const UNI: bool, const CUBE: bool>(
    texels: &[f32x4],
    l: &Lv,
    u: f32x4,
    v: f32x4,
    dref: f32x4,
    op: CompareOp,
) -> Option<f32x4> {
    let f = footprint::<M, CUBE>(texels, l, u, v)?;
    if !f.finite {
        return None;
    }
    let ptr = texels.as_ptr() as *const f32;
    // SAFETY: as in `bilinear`: every offset is that of a texel in bounds; its first f32
    // (the depth) is read
    let d = |b: usize| unsafe { *ptr.byte_add(b) };
    let o = f.o00.to_array();
    let (mut c00, mut c10, mut c01, mut c11) = ([0f32; 4], [0f32; 4], [0f32; 4], [0f32; 4]);
    if f.adjacent {
        let wa = (l.v.w << 4u32).to_array();
        let p16 = l.v.pitch as usize * 16;
        for lane in 0..4 {
            let p = if UNI { p16 } else { wa[lane] as u32 as usize };
            let o = o[lane] as u32 as usize;
            (c00[lane], c10[lane]) = (d(o), d(o + 16));
            (c01[lane], c11[lane]) = (d(o + p), d(o + p + 16));
        }
    } else {
        let [o10, o01, o11] = f.hi.map(|v| v.to_array());
        for lane in 0..4 {
            let at = |v: [i32; 4]| d(v[lane] as u32 as usize);
            (c00[lane], c10[lane], c01[lane], c11[lane]) = (at(o), at(o10), at(o01), at(o11));
        }
    }
    let pass = |t: [f32; 4]| compare4(op, dref, f32x4::from(t));
    let (t00, t10, t01, t11) = (pass(c00), pass(c10), pass(c01), pass(c11));
    // the general path's lerps on channel 0, the four lanes at once
    let top = lerp(t00, t10, f.fa);
    let bot = lerp(t01, t11, f.fa);
    Some(lerp(top, bot, f.fb))
}

/// `dref OP t` lane-wise as 1.0 / 0.0 (`CompareOp::test`: ordered comparisons are false on
/// NaN, `NotEqual` true).
#[inline(always)]
fn compare4(op: CompareOp, r: f32x4, t: f32x4) -> f32x4 {
    let m = match op {
        CompareOp::Never => f32x4::ZERO,
        CompareOp::Less => r.simd_lt(t),
        CompareOp::Equal => r.simd_eq(t),
        CompareOp::LessOrEqual => r.simd_le(t),
        CompareOp::Greater => r.simd_gt(t),
        CompareOp::NotEqual => r.simd_ne(t),
        CompareOp::GreaterOrEqual => r.simd_ge(t),
        CompareOp::Always => return f32x4::ONE,
    };
    m & f32x4::ONE
}

/// Nearest texels of the four lanes at texel-space `(u, v)` on slot `l`.
#[inline(always)]
fn nearest<const M: u8>(texels: &[f32x4], l: &Lv, u: f32x4, v: f32x4) -> Option<[f32x4; 4]> {
    let (tu, ui, uf) = floor4x(u);
    let (tv, vi, vf) = floor4x(v);
    let (i, j) = if floor_ok(tu, tv) {
        (
            axis_lo::<M>(ui, uf, &l.v.x()).0,
            axis_lo::<M>(vi, vf, &l.v.y()).0,
        )
    } else {
        let (ua, va) = (u.to_array(), v.to_array());
        let (wa, ha) = (l.v.w.to_array(), l.v.h.to_array());
        let i: [i32; 4] = std::array::from_fn(|k| wrap::<M>(fl(ua[k]), wa[k], M));
        let j: [i32; 4] = std::array::from_fn(|k| wrap::<M>(fl(va[k]), ha[k], M));
        (i32x4::from(i), i32x4::from(j))
    };
    let o = rows(l.base, j, l.v.wf) + i;
    let len = i32x4::splat(texels.len().min(i32::MAX as usize) as i32);
    if !in_range(o, o, len) {
        return None;
    }
    // byte offsets (texel index · 16: one register per read)
    let o = (o << 4u32).to_array();
    let ptr = texels.as_ptr();
    let mut out = [f32x4::ZERO; 4];
    for lane in 0..4 {
        // SAFETY: `in_range` above: every lane of `o` is the byte offset of a texel index
        // in `0..texels.len()`
        out[lane] = unsafe { *ptr.byte_add(o[lane] as u32 as usize) };
    }
    Some(out)
}

/// [`nearest`] with a depth comparison per texel: channel 0 of each lane (`dref OP
/// texel.r` as 1 or 0).
#[inline(always)]
fn nearest_cmp<const M: u8>(
    texels: &[f32x4],
    l: &Lv,
    u: f32x4,
    v: f32x4,
    dref: f32x4,
    op: CompareOp,
) -> Option<f32x4> {
    let t = nearest::<M>(texels, l, u, v)?;
    let d = [
        t[0].to_array()[0],
        t[1].to_array()[0],
        t[2].to_array()[0],
        t[3].to_array()[0],
    ];
    Some(compare4(op, dref, f32x4::from(d)))
}

/// [`plane_quad_n`] with a depth comparison per texel (compare, then filter: 2×2 PCF for
/// linear footprints), `q.dref` the lanes' references. Every lane's result is the general
/// path's `(c, 0, 0, Σw)`: a compared texel is `(pass, 0, 0, 1)`, and with finite weights
/// the lerps keep channels 1 to 3 at +0, +0 and 1, so `acc += w·v` leaves +0, +0 and the sum
/// of the level weights there; channel 0 is filtered for the four lanes at once.
#[inline(always)]
pub(super) fn plane_quad_cmp<
    const M: u8,
    const LIN: bool,
    const UNI: bool,
    const N: usize,
    const CUBE: bool,
>(
    plane: &Plane,
    q: &QuadIn,
    lv: &PlaneLevels,
    op: CompareOp,
) -> Option<[f32x4; 4]> {
    let texels = &plane.texels[..];
    let s = f32x4::from(q.s);
    let t = f32x4::from(q.t);
    let dref = f32x4::from(q.dref);
    let mut acc0 = f32x4::ZERO;
    let mut acc3 = f32x4::ZERO;
    let n = if N > 0 { N } else { lv.0.min(2) };
    for slot in 0..n {
        let l = &lv.1[slot];
        let mut u = s * l.v.wf;
        let mut v = t * l.v.hf;
        if let Some((ou, ov)) = q.off {
            u += f32x4::from(ou);
            v += f32x4::from(ov);
        }
        let c = if LIN {
            bilinear_cmp::<M, UNI, CUBE>(texels, l, u, v, dref, op)?
        } else {
            nearest_cmp::<M>(texels, l, u, v, dref, op)?
        };
        if UNI || l.used == 0xf {
            acc0 += l.weight * c;
            acc3 += l.weight * f32x4::ONE;
        } else {
            let (mut a0, mut a3) = (acc0.to_array(), acc3.to_array());
            let (w, c) = (l.weight.to_array(), c.to_array());
            for i in 0..4 {
                if l.used & (1 << i) != 0 {
                    a0[i] += w[i] * c[i];
                    a3[i] += w[i] * 1.0;
                }
            }
            (acc0, acc3) = (a0.into(), a3.into());
        }
    }
    let (a0, a3) = (acc0.to_array(), acc3.to_array());
    Some(std::array::from_fn(|i| {
        f32x4::from([a0[i], 0.0, 0.0, a3[i]])
    }))
}

// Test hook: quads served by `one_level_pairs_avx2` on this thread (tests only), so that
// its tests can tell they reached it.
#[cfg(test)]
thread_local! {
    pub(super) static PAIRS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Whether `M` is one of the plane path's address modes.
pub(super) const fn plane_mode(m: u8) -> bool {
    m == REPEAT || m == MIRRORED || m == CLAMP
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor4x_is_the_scalar_floor() {
        let mut vals = vec![
            0.0f32, -0.0, 0.5, -0.5, 1.0, -1.0, 1.5, -1.5, 2.5, -2.5, 0.49999997,
        ];
        vals.extend([
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            2147483648.0,
            -2147483648.0,
        ]);
        for e in [8_388_608.0f32, 16_777_216.0, 2147483520.0] {
            for k in -3..=3 {
                let b = e.to_bits() as i32 + k;
                vals.extend([f32::from_bits(b as u32), -f32::from_bits(b as u32)]);
            }
        }
        let mut x = 0x1234_5678u32;
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let scale = [1.0, 100.0, 3e5, 2e9][(x % 4) as usize];
            vals.push(((x >> 8) as f32 / (1 << 24) as f32 - 0.5) * 2.0 * scale);
        }
        for c in vals.chunks(4) {
            let mut a = [0.25f32; 4];
            a[..c.len()].copy_from_slice(c);
            let (t, i, f) = floor4x(f32x4::from(a));
            let (t, i, f) = (t.to_array(), i.to_array(), f.to_array());
            for l in 0..4 {
                let marked = t[l] == i32::MIN;
                let exact = a[l].is_finite() && a[l].abs() < 2147483648.0;
                assert!(marked || exact, "{}", a[l]);
                if exact && a[l] != -2147483648.0 {
                    assert!(!marked);
                    assert_eq!(i[l], fl(a[l]), "{}", a[l]);
                    assert_eq!(f[l], fl(a[l]) as f32, "{}", a[l]);
                    assert_eq!((a[l] - f[l]).to_bits(), (a[l] - fl(a[l]) as f32).to_bits());
                }
            }
        }
    }

    #[test]
    fn lane_wraps_are_the_scalar_wrap() {
        for n in 1..=40i32 {
            let p2 = (n as u32).is_power_of_two();
            let a = Axis {
                n: i32x4::splat(n),
                last: i32x4::splat(n - 1),
                lastf: f32x4::splat(n as f32 - 1.0),
                nf: f32x4::splat(n as f32),
                p2,
            };
            for i in -200..200 {
                let x: [i32; 4] = [i, i + 1, i + 2, i + 3].map(|v| if v % 7 == 0 { i } else { v });
                let f = f32x4::from(x.map(|v| v as f32));
                macro_rules! check {
                    ($m:expr) => {{
                        let xi = i32x4::from(x);
                        let (lo, adj) = axis_lo::<{ $m }>(xi, f, &a);
                        let hi = axis_hi::<{ $m }>(xi, f, &a).to_array();
                        let lo = lo.to_array();
                        for l in 0..4 {
                            assert_eq!(lo[l], wrap::<{ $m }>(x[l], n, $m), "{} {x:?} {n}", $m);
                            assert_eq!(hi[l], wrap::<{ $m }>(x[l] + 1, n, $m), "{} {x:?} {n}", $m);
                        }
                        assert_eq!(adj, (0..4).all(|l| hi[l] == lo[l] + 1), "{} {x:?} {n}", $m);
                    }};
                }
                check!(REPEAT);
                check!(MIRRORED);
                check!(CLAMP);
            }
        }
    }
}
