//! The quad sampling operation (`OpImageSample*`, `Sample*`; sampling.md §1.1): per lane,
//! where the coordinate lands, λ and the level selection, then every footprint — probe
//! outer, level inner — through the kernel ([`filter`](super::filter)), summed as
//! `acc += (w_level / probes)·v` from zero, SNORM results clamped to −1.
//!
//! [`quad`] is the general path (one lane at a time, every rule at run time), generic over
//! the [`Recorder`] that `Kernel::explain_sample` fills.

use super::address::{self, by_mode};
use super::binding::{Binding, Route};
use super::explain::{NoRecord, Recorder};
use super::filter::{group_of, lane, lane_raw, At, General, Input};
use super::filter::{Fast, Note, Slot, Spec};
#[cfg(target_arch = "x86_64")]
use super::lanes::Avx;
use super::lanes::{four, Lanes, Quad};
use super::lod::{LodBase, LodMode, Selection};
use super::source::{Bytes, Plane, Source};
use super::{Image, QuadBits};
use wide::f32x4;

/// Inputs of one quad sampling instruction (`OpImageSample*`, `Sample*`).
///
/// Coordinates per lane: `(s[, t][, r])` then the array layer (`1D array: (s, layer)`, `2D
/// array: (s, t, layer)`, cube: direction `(x, y, z)`, cube array `(x, y, z, cube)`).
/// Projection is the caller's job: divide `s, t, r` (and Dref) by `q` before calling.
/// Offsets are integer texel offsets per lane (zeros when absent); the caller checks the
/// `[-8, 7]` range of constant offsets. Lanes not in `mask` get zeros (derivatives always use
/// all four lanes' coordinates).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SampleArgs {
    /// Per-lane coordinates.
    pub coords: [[f32; 4]; 4],
    /// LOD source.
    pub lod: LodMode,
    /// Per-lane `MinLod` operand / `clamp` argument.
    pub min_lod: Option<[f32; 4]>,
    /// Per-lane `ConstOffset`/`Offset` (u, v, w).
    pub offsets: [[i32; 3]; 4],
    /// Per-lane depth reference (compare sampler required).
    pub dref: Option<[f32; 4]>,
    /// Lanes that need results (bit i = lane i).
    pub mask: u8,
}

impl SampleArgs {
    /// Implicit LOD, no offsets, no Dref, all lanes.
    pub fn new(coords: [[f32; 4]; 4]) -> SampleArgs {
        SampleArgs {
            coords,
            lod: LodMode::IMPLICIT,
            min_lod: None,
            offsets: [[0; 3]; 4],
            dref: None,
            mask: 0xf,
        }
    }

    /// The lanes' shader bias (0 without a `Bias` operand).
    #[inline(always)]
    pub(super) fn biases(&self) -> [f32; 4] {
        match self.lod {
            LodMode::Implicit { bias, .. } => bias,
            _ => [0.0; 4],
        }
    }

    /// The lanes' `MinLod` (−∞ without one).
    #[inline(always)]
    pub(super) fn min_lods(&self) -> [f32; 4] {
        self.min_lod.unwrap_or([f32::NEG_INFINITY; 4])
    }
}

/// The general path: a quad, lane by lane, every rule read at run time from the binding,
/// reading the image's bytes (the operand checks are the caller's; a Dref operand here
/// compares).
pub(super) fn quad<R: Recorder>(b: &Binding, img: &Image, a: &SampleArgs, rec: &R) -> QuadBits {
    let (bases, derivs) = if b.sampler.unnormalized_coordinates {
        ([LodBase::iso(0.0); 4], [None; 4])
    } else {
        b.lod_bases(&a.coords, &a.lod, R::ON)
    };
    let src = Bytes(img.bytes());
    let mut out = [[0u32; 4]; 4];
    let (bias, min_lod) = (a.biases(), a.min_lods());
    for (l, o) in out.iter_mut().enumerate() {
        if a.mask & (1 << l) == 0 {
            continue;
        }
        if R::ON {
            rec.lane(l, a.coords[l]);
        }
        let base = &bases[l];
        if R::ON {
            rec.lod_base(derivs[l], base.rho, (base.lambda, base.probes, base.major));
        }
        *o = match b.select(base.lambda, bias[l], min_lod[l], rec) {
            Some(sel) => lane_sample(b, &src, a, l, base, &sel, rec),
            None => b.oob,
        };
        if R::ON {
            rec.result(*o);
        }
    }
    out
}

/// One lane of [`quad`]: its probes and levels summed, or an integer format's raw texel.
#[inline(always)]
fn lane_sample<R: Recorder>(
    b: &Binding,
    src: &Bytes,
    a: &SampleArgs,
    l: usize,
    base: &LodBase,
    sel: &Selection,
    rec: &R,
) -> [u32; 4] {
    let (st, layer, face) = b.locate(&a.coords[l]);
    let off = b.offset_bits(a.offsets[l], 4);
    let dref = a.dref.map(|d| b.dref_value(d[l]));
    if R::ON {
        rec.located(b.cube.then_some(face), layer, dref);
    }
    let levels = sel.levels;
    if b.integer {
        let level = b.view.base_level + levels.l[0].0;
        let at = At::new(b, src, level, layer, face);
        return lane_raw(b, src, &at, b.to_texel(level, st, off), rec);
    }
    let n = base.probes.max(1);
    let mut acc = [0.0f32; 4];
    for p in 0..n {
        let mut pst = st;
        if n > 1 {
            let k = -0.5 + (p + 1) as f32 / (n + 1) as f32;
            pst[0] += base.major[0] * k;
            pst[1] += base.major[1] * k;
        }
        for &(lv, wl) in &levels.l[..levels.n] {
            let level = b.view.base_level + lv;
            let at = At::new(b, src, level, layer, face);
            let u = b.to_texel(level, pst, off);
            let w = wl / n as f32;
            let note = Note {
                probe: p,
                weight: w,
            };
            let v = lane::<General, _, R>(b, src, &at, u, dref, sel.linear, note, rec);
            for c in 0..4 {
                acc[c] += w * v[c];
            }
        }
    }
    finish(f32x4::new(acc), b.snorm)
}

/// A lane's sum as result bits, clamped to −1 for an SNORM format (`fast_max` is `maxps`:
/// −1 for a NaN, as `f32::max(x, −1)`): the one SNORM rule every route follows.
#[inline(always)]
pub(super) fn finish(acc: f32x4, snorm: bool) -> [u32; 4] {
    let acc = if snorm {
        acc.fast_max(f32x4::splat(-1.0))
    } else {
        acc
    };
    acc.to_array().map(f32::to_bits)
}

/// A quad through the lane-wise kernel (spec `K`: exact, normalized, isotropic): one group
/// per level slot, each lane on its own levels ([`Binding::choose4`]), two groups when the
/// lanes disagree on the texel filter. With eight lanes, a quad on one filter with some
/// lane on two levels goes as one group: lanes `l` and `l + 4` on lane `l`'s first and
/// second level. [`quad`]'s operations in its order.
#[inline(always)]
pub(super) fn quad_lanes<K: Spec, S: Source, L: Lanes>(
    l8: L,
    b: &Binding,
    src: &S,
    plane: &[f32x4],
    a: &SampleArgs,
) -> QuadBits {
    let mut out = [[0u32; 4]; 4];
    let mask = a.mask & 0xf;
    if mask == 0 {
        return out;
    }
    let c = b.choose4(b.lambda_bases(&a.coords, &a.lod), a.biases(), a.min_lods());
    let live = mask & !c.out;
    if mask & c.out != 0 {
        for (l, o) in out.iter_mut().enumerate() {
            if (mask & c.out) >> l & 1 != 0 {
                *o = b.oob;
            }
        }
    }
    if live == 0 {
        return out;
    }
    let (mut linear, mut two, mut level, mut weight) = (c.linear, c.two, c.level, c.weight);
    let mut coords = a.coords;
    if live != 0xf {
        // other lanes take the leading live lane's coordinate and selection (their results
        // are dropped; they must not send the group lane by lane)
        let lead = live.trailing_zeros() as usize;
        for l in 0..4 {
            if live >> l & 1 == 0 {
                coords[l] = coords[lead];
                for k in 0..2 {
                    (level[k][l], weight[k][l]) = (level[k][lead], weight[k][lead]);
                }
                linear = linear & !(1 << l) | (linear >> lead & 1) << l;
                two = two & !(1 << l) | (two >> lead & 1) << l;
            }
        }
    }
    let loc = Quad::each(|l| b.locate(&coords[l]));
    let off = (!b.cube && a.offsets.iter().any(|o| o[0] != 0 || o[1] != 0))
        .then(|| Quad::each(|l| b.offset_bits(a.offsets[l], 4)));
    let dref = a.dref;
    let cmp = a.dref.is_some();
    let layer = b.view.base_layer;
    if L::W == 8 && two != 0 && (linear == 0 || linear == 0xf) {
        // (a one-level lane's second level is its first, read and not used)
        let q8 = Input::quad(l8, b, &loc, off, dref);
        let sl = Slot::quads(l8, b, level, layer);
        let v = group_of::<L, K, S>(b, src, plane, linear != 0, cmp, &sl, &q8);
        for l in 0..4 {
            if live & (1 << l) != 0 {
                let w = [weight[0][l], weight[1][l]];
                let mut acc = f32x4::splat(0.0) + f32x4::splat(w[0]) * v[l];
                if two & (1 << l) != 0 {
                    acc += f32x4::splat(w[1]) * v[l + 4];
                }
                out[l] = finish(acc, b.snorm);
            }
        }
        return out;
    }
    let slots = if two != 0 { 2 } else { 1 };
    let q = Input::quad(four(), b, &loc, off, dref);
    let mut acc = [f32x4::splat(0.0); 4];
    // by texel filter: one group, or two when the lanes disagree
    for lin in [false, true] {
        let part = live & if lin { linear } else { !linear };
        if part == 0 {
            continue;
        }
        for k in 0..slots {
            let sl = Slot::quads(four(), b, [level[k]; 2], layer);
            let v = group_of::<Quad, K, S>(b, src, plane, lin, cmp, &sl, &q);
            for l in 0..4 {
                if part & (1 << l) != 0 && (k == 0 || two & (1 << l) != 0) {
                    acc[l] += f32x4::splat(weight[k][l]) * v[l];
                }
            }
        }
    }
    for l in 0..4 {
        if live & (1 << l) != 0 {
            out[l] = finish(acc[l], b.snorm);
        }
    }
    out
}

/// A per-quad sampling route, chosen once per kernel.
pub(super) type QuadFn = fn(&Binding, &Image, &SampleArgs) -> QuadBits;

/// The general path as a [`QuadFn`].
pub(super) fn general(b: &Binding, img: &Image, a: &SampleArgs) -> QuadBits {
    quad(b, img, a, &NoRecord)
}

/// A quad on the image's plane through [`aniso_lanes`] (`ANISO`) or [`quad_lanes`] for
/// `Fast<M, CUBE, _>`, in its AVX2 form when the CPU has it; without a plane, [`quad`].
pub(super) fn plane_quad<const M: u8, const CUBE: bool, const ANISO: bool>(
    b: &Binding,
    img: &Image,
    a: &SampleArgs,
) -> QuadBits {
    let Some(p) = img.plane() else {
        return general(b, img, a);
    };
    #[cfg(target_arch = "x86_64")]
    if let Some(l) = Avx::new() {
        // SAFETY: `l` exists only when the CPU has AVX2
        return unsafe { plane_quad_avx2::<M, CUBE, ANISO>(l, b, &p.texels, a) };
    }
    plane_quad_in::<M, CUBE, ANISO, _>(four(), b, &p.texels, a)
}

/// [`plane_quad`] compiled for AVX2 (no FMA: the same roundings).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn plane_quad_avx2<const M: u8, const CUBE: bool, const ANISO: bool>(
    l: Avx,
    b: &Binding,
    texels: &[f32x4],
    a: &SampleArgs,
) -> QuadBits {
    plane_quad_in::<M, CUBE, ANISO, _>(l, b, texels, a)
}

/// [`plane_quad`]'s body on lanes `L`.
#[inline(always)]
fn plane_quad_in<const M: u8, const CUBE: bool, const ANISO: bool, L: Lanes>(
    l: L,
    b: &Binding,
    texels: &[f32x4],
    a: &SampleArgs,
) -> QuadBits {
    if ANISO {
        aniso_lanes::<Fast<M, false>, L>(l, b, texels, a)
    } else {
        quad_lanes::<Fast<M, CUBE>, _, L>(l, b, &Plane(texels), texels, a)
    }
}

/// A quad of an anisotropic kernel: per lane, its probes go through the kernel `W` at a time
/// as a group, summed in the general path's order (probe, then level).
#[inline(always)]
fn aniso_lanes<K: Spec, L: Lanes>(
    lanes: L,
    b: &Binding,
    plane: &[f32x4],
    a: &SampleArgs,
) -> QuadBits {
    let src = Plane(plane);
    let mut out = [[0u32; 4]; 4];
    let (bases, _) = b.lod_bases(&a.coords, &a.lod, false);
    let c = b.choose4(Quad::each(|l| bases[l].lambda), a.biases(), a.min_lods());
    for (l, o) in out.iter_mut().enumerate() {
        if a.mask & (1 << l) == 0 {
            continue;
        }
        if c.out >> l & 1 != 0 {
            *o = b.oob;
            continue;
        }
        let base = &bases[l];
        let (linear, levels) = (c.linear >> l & 1 != 0, 1 + (c.two >> l & 1) as usize);
        let (st, layer, _) = b.locate(&a.coords[l]);
        let off = b.offset_bits(a.offsets[l], 4);
        let off =
            (off[0] != 0 || off[1] != 0).then(|| (lanes.f(off[0] as f32), lanes.f(off[1] as f32)));
        let dref = lanes.f(a.dref.map_or(0.0, |d| b.dref_value(d[l])));
        let first = Slot::halves(lanes, b, [c.level[0][l]; 2], layer);
        let second = if levels == 2 {
            Slot::halves(lanes, b, [c.level[1][l]; 2], layer)
        } else {
            first
        };
        let slots = [first, second];
        let n = base.probes.max(1);
        let nf = lanes.f((n + 1) as f32);
        let (iota, last) = (lanes.i_of(|i| i as i32), lanes.i(n as i32 - 1));
        let mut acc = f32x4::splat(0.0);
        for p0 in (0..n).step_by(L::W) {
            // probe positions `st + major·(−1/2 + (p + 1)/(N + 1))`; past N the last repeats
            let p = (lanes.i(p0 as i32) + iota).min(last);
            let k = lanes.f(-0.5) + (p + lanes.i(1)).to_f32() / nf;
            let shift = |c: f32, m: f32| {
                if n > 1 {
                    lanes.f(c) + lanes.f(m) * k
                } else {
                    lanes.f(c)
                }
            };
            let q = Input {
                s: shift(st[0], base.major[0]),
                t: shift(st[1], base.major[1]),
                off,
                layer: None,
                face: lanes.i(0),
                dref,
            };
            let cmp = a.dref.is_some();
            let v0 = group_of::<L, K, _>(b, &src, plane, linear, cmp, &slots[0], &q);
            let v1 = if levels == 2 {
                group_of::<L, K, _>(b, &src, plane, linear, cmp, &slots[1], &q)
            } else {
                v0
            };
            for i in 0..(n - p0).min(L::W as u32) as usize {
                for (k, v) in [v0, v1].iter().enumerate().take(levels) {
                    acc += f32x4::splat(c.weight[k][l] / n as f32) * v[i];
                }
            }
        }
        *o = finish(acc, b.snorm);
    }
    out
}

/// The per-quad route of a binding: the lane-wise kernel on the plane where
/// [`Binding::lanewise`] (2D and 2D-array views: one instantiation per address mode of
/// both axes, isotropic or anisotropic), else the general path.
pub(super) fn pick(b: &Binding) -> (QuadFn, Route) {
    let m = b.mode_2d();
    if !b.lanewise() {
        (general, Route::General)
    } else if b.cube {
        (plane_quad::<{ address::CLAMP }, true, false>, Route::Cube)
    } else if b.aniso.is_some() {
        (
            by_mode!(m, plane_quad, false, true),
            Route::Aniso(address::instance(m)),
        )
    } else {
        (
            by_mode!(m, plane_quad, false, false),
            Route::Plane(address::instance(m)),
        )
    }
}
