//! The quad-wide fast path of [`Kernel::gather`]: 2D and 2D-array views of the fast formats
//! of [`super::fast`] (R8G8B8A8/B8G8R8A8 UNORM/SRGB, R32_SFLOAT, D32 depth with or without
//! Dref), any address modes, exact precision, normalized coordinates, every offset form
//! (`None`, `Offset`, `ConstOffsets`).
//!
//! Same rules and arithmetic as the general gather (texel-space `s·w + offset`, `−0.5`,
//! floor, the `(i0,j1) (i1,j1) (i1,j0) (i0,j0)` footprint or `(i0,j0) + offsets[k]`, wrap
//! per axis with the border's raw bits, compare of the raw depth), but structure-of-arrays
//! over the four lanes: one vectorised floor, one bounds test for all sixteen taps (wraps only
//! when a tap leaves the level), and the gathered component read straight from the texel's
//! byte (one table look-up) instead of decoding all four components through the kernel's
//! general raw decoder. `tests::fast_gather_equals_general_gather` holds it bit-identical to
//! the general routine.
//!
//! [`Kernel::gather_batch`]'s plane route ([`plane_gather`]): 2D / 2D-array views of every
//! float-kind format with a decoded plane, the same steps lane by lane, each tap one f32 of
//! a plane texel (its bits are the raw result). `tests::gather_batches_equal_the_per_quad_path`
//! holds it to [`Kernel::gather`]. In the pipeline it replaces the per-quad hand-over
//! (`BatchOperands::quad`, grouping, `GatherArgs`). Its tap loop is scalar, with a run-time
//! compare flag and a bounds check per tap.
//!
//! The lane route ([`plane_gather_lanes`], AVX2): the common batch — 2D view, no compare, no
//! offsets, one component — two quads at a time: the footprint arithmetic as eight-lane
//! vector operations, the row loads and stores unchecked after the range checks on entry.
//! Lanes whose footprint needs a wrap other than power-of-two repeat, or whose coordinates
//! are NaN or huge, leave their quad to [`plane_gather`].
//! `tests::lane_gathers_equal_the_per_quad_path` holds it to [`Kernel::gather`]. Two whole,
//! served quads are known by two compares (the mask table and the per-quad test only
//! otherwise). The gathers' loads set the pace there, so the taps come from
//! [`Plane::components`]: the plane component by component, forward and backward, where a
//! row's two taps are one 64-bit word, and row j0's backward word is `(i1,j0 · i0,j0)`. So a
//! `vpgatherdq` of the indices `j1, j0` of two lanes side by side yields those lanes'
//! results as stored: four such gathers a pair (16 loads) and no shuffles after them. A pair
//! with a lane in the last column under repeat (its row wraps) takes four 32-bit gathers
//! from the forward words and a 4×8 transpose.

use super::address::{wrap, DYN, REPEAT};
use super::fast::{
    compare, compare_bits, fast_format, floor4, BGRA8, R32F, R32F_CMP, RGBA8, SBGRA8, SRGBA8,
};
use super::format::{SRGB_TABLE, UNORM8};
use super::gather::{BatchGatherOffsets, GatherArgs, GatherBatchArgs, GatherOffsets};
use super::image::{Image, Plane, ViewType};
use super::sample::{layer_index, Kernel};
use super::QuadBits;

/// A fast gather routine (always serves the quad).
pub(super) type GatherFn = fn(&Kernel, &Image, &GatherArgs) -> QuadBits;

/// The fast gather routine for a kernel, if its (view, sampler, format, config) is covered.
pub(super) fn pick_fast_gather(k: &Kernel) -> Option<GatherFn> {
    if k.hw
        || k.sampler.unnormalized_coordinates
        || !matches!(k.view.view_type, ViewType::D2 | ViewType::D2Array)
    {
        return None;
    }
    Some(match fast_format(k)? {
        RGBA8 => gather_quad::<RGBA8>,
        BGRA8 => gather_quad::<BGRA8>,
        SRGBA8 => gather_quad::<SRGBA8>,
        SBGRA8 => gather_quad::<SBGRA8>,
        R32F => gather_quad::<R32F>,
        _ => gather_quad::<R32F_CMP>,
    })
}

/// Gathers the quad (component and compare rules of [`Kernel::gather`], which has validated
/// the arguments).
fn gather_quad<const F: u8>(k: &Kernel, img: &Image, a: &GatherArgs) -> QuadBits {
    let mask = a.mask & 0xf;
    if mask == 0 {
        return [[0; 4]; 4];
    }
    let view = &k.view;
    let info = &k.lv[view.base_level as usize];
    let (words, _) = img.bytes().as_chunks::<4>();
    let ts = k.texel_size / 4;
    let pitch = info.pitch / 4;
    let [w, h, _] = info.size;
    let c = &a.coords;
    let base: [usize; 4] = if view.view_type == ViewType::D2Array {
        std::array::from_fn(|l| {
            let layer = view.base_layer + layer_index(c[l][2], view.layer_count);
            (info.base + layer as usize * info.layer_stride) / 4
        })
    } else {
        [(info.base + view.base_layer as usize * info.layer_stride) / 4; 4]
    };
    let one: [[i32; 3]; 4] = match a.offsets {
        GatherOffsets::Offset(o) => {
            std::array::from_fn(|l| k.offset_bits([o[l][0], o[l][1], 0], 6))
        }
        _ => [[0; 3]; 4],
    };
    // the general path's `to_texel` (`s·w + offset`) then `−0.5`
    let mut x = [0f32; 4];
    let mut y = [0f32; 4];
    for l in 0..4 {
        x[l] = (c[l][0] * info.sizef[0] + one[l][0] as f32) - 0.5;
        y[l] = (c[l][1] * info.sizef[1] + one[l][1] as f32) - 0.5;
    }
    let i0 = floor4(x);
    let j0 = floor4(y);
    let four = match a.offsets {
        GatherOffsets::Four(o) => Some(o),
        _ => None,
    };
    // every tap inside the level (the usual case): every wrap mode is the identity there, so
    // one test per lane replaces the wraps
    let (mut pi, mut pj) = ([[0i32; 4]; 4], [[0i32; 4]; 4]);
    let inside = taps(k, i0, j0, four, (w, h), (&mut pi, &mut pj));
    // the component's byte and table (8-bit formats), or f32 word / constant (R32F)
    let comp = if F == R32F_CMP {
        0
    } else {
        a.component as usize
    };
    let byte = match F {
        BGRA8 | SBGRA8 => [2, 1, 0, 3][comp],
        _ => comp,
    };
    let table: &[f32; 256] = if (F == SRGBA8 || F == SBGRA8) && comp < 3 {
        &SRGB_TABLE
    } else {
        &UNORM8
    };
    let r32_const = if comp == 3 { 1.0f32.to_bits() } else { 0 };
    let raw = |o: usize| -> u32 {
        let b: [u8; 4] = words[o];
        match F {
            R32F | R32F_CMP => {
                if comp == 0 {
                    u32::from_le_bytes(b)
                } else {
                    r32_const
                }
            }
            _ => table[b[byte] as usize].to_bits(),
        }
    };
    let dref: [f32; 4] = match (F, a.dref) {
        (R32F_CMP, Some(d)) => d.map(|r| k.dref_value(r)),
        _ => [0.0; 4],
    };
    let op = compare_bits(k.sampler.compare_op);
    let pick = |lane: usize, v: u32| -> u32 {
        if F == R32F_CMP {
            if compare(op, dref[lane], f32::from_bits(v)) {
                1.0f32.to_bits()
            } else {
                0
            }
        } else {
            v
        }
    };
    let mut out = [[0u32; 4]; 4];
    for l in 0..4 {
        for kk in 0..4 {
            let (i, j) = (pi[l][kk], pj[l][kk]);
            let v = if inside {
                raw(base[l] + j as usize * pitch + i as usize * ts)
            } else {
                let wi = wrap::<DYN>(i, w, k.modes[0]);
                let wj = wrap::<DYN>(j, h, k.modes[1]);
                if wi < 0 || wj < 0 {
                    k.border_raw[comp]
                } else {
                    raw(base[l] + wj as usize * pitch + wi as usize * ts)
                }
            };
            out[l][kk] = pick(l, v);
        }
    }
    for (l, o) in out.iter_mut().enumerate() {
        if mask & (1 << l) == 0 {
            *o = [0; 4];
        }
    }
    out
}

impl Kernel {
    /// Whether [`Kernel::gather_batch`] takes the plane route ([`plane_gather`]): a 2D or
    /// 2D-array view of an image with a decoded plane, exact precision, normalized
    /// coordinates.
    pub(super) fn plane_gather(&self) -> bool {
        self.plane
            && !self.hw
            && !self.sampler.unnormalized_coordinates
            && matches!(self.view.view_type, ViewType::D2 | ViewType::D2Array)
    }
}

/// Quad `q` of a batch gathered from the decoded plane (a [`Kernel::plane_gather`] kernel,
/// `comp` ≤ 3, the batch's operands checked): the general gather's rules and arithmetic
/// (`s·w + offset − 0.5`, floor, the footprint or `ConstOffsets` taps, wrap per axis with the
/// border's raw bits, compare of the depth), the taps read from the plane, whose texels are
/// the raw results' f32 bits for every float-kind format. Inactive lanes are zeros.
#[inline]
pub(super) fn plane_gather(
    k: &Kernel,
    plane: &Plane,
    b: &GatherBatchArgs,
    q: usize,
    comp: usize,
) -> QuadBits {
    let texels = &plane.texels[..];
    let view = &k.view;
    let info = &k.lv[view.base_level as usize];
    let [w, h, _] = info.size;
    let lane4 = |r: &[u32]| -> [u32; 4] {
        match r.get(4 * q..4 * q + 4) {
            Some(s) => [s[0], s[1], s[2], s[3]],
            None => [0; 4],
        }
    };
    let (s, t) = (lane4(b.coords[0]), lane4(b.coords[1]));
    let base: [usize; 4] = if view.view_type == ViewType::D2Array {
        let c = lane4(b.coords[2]);
        c.map(|c| {
            let layer = view.base_layer + layer_index(f32::from_bits(c), view.layer_count);
            info.tbase + layer as usize * info.tlayer
        })
    } else {
        [info.tbase + view.base_layer as usize * info.tlayer; 4]
    };
    // the general path's `to_texel` (`s·w + offset`; `+ 0` changes only −0, which floors as
    // +0 after the `− 0.5`) then `− 0.5`
    let mut x = [0f32; 4];
    let mut y = [0f32; 4];
    for l in 0..4 {
        x[l] = f32::from_bits(s[l]) * info.sizef[0];
        y[l] = f32::from_bits(t[l]) * info.sizef[1];
    }
    if let BatchGatherOffsets::Offset([u, v]) = b.offsets {
        let (u, v) = (lane4(u), lane4(v));
        for l in 0..4 {
            let o = k.offset_bits([u[l] as i32, v[l] as i32, 0], 6);
            x[l] += o[0] as f32;
            y[l] += o[1] as f32;
        }
    }
    let i0 = floor4(x.map(|x| x - 0.5));
    let j0 = floor4(y.map(|y| y - 0.5));
    let four = match b.offsets {
        BatchGatherOffsets::Four(o) => Some(o),
        _ => None,
    };
    let cmp = k.sampler.compare_enable;
    let comp = if cmp { 0 } else { comp & 3 };
    if four.is_none() && !cmp {
        // the common cases, no compare and the 2×2 footprint: raw bits out through two row
        // addresses and four reads per lane, without the per-tap wrap, compare and mask tests
        // of the general loop below. Either every lane's footprint is inside the
        // level (each wrap mode the identity) or both axes repeat over a power-of-two size.
        let inside = (0..4).fold(true, |ok, l| {
            ok & (i0[l] >= 0) & (i0[l] < w - 1) & (j0[l] >= 0) & (j0[l] < h - 1)
        });
        // Repeat over a power-of-two size wraps by a mask (`rem_euclid` for every i32, the
        // saturated `i32::MAX` included), the same value the general loop's `wrap` gives.
        let pow2 = |n: i32| n > 0 && n & (n - 1) == 0;
        let masks = if inside {
            Some((-1, -1))
        } else if k.modes[0] == REPEAT && k.modes[1] == REPEAT && pow2(w) && pow2(h) {
            Some((w - 1, h - 1))
        } else {
            None
        };
        if let Some((mw, mh)) = masks {
            let read = |at: usize| -> u32 {
                texels
                    .get(at)
                    .map_or(0, |t| wide::bytemuck::cast::<_, [u32; 4]>(*t)[comp])
            };
            let mut out = [[0u32; 4]; 4];
            if inside {
                for l in 0..4 {
                    // 0 ≤ i0 < w − 1 and 0 ≤ j0 < h − 1: j0·w + i0 + w + 1 < w·h
                    let r0 = base[l] + (j0[l] * w + i0[l]) as usize;
                    let r1 = r0 + w as usize;
                    // i0j1, i1j1, i1j0, i0j0
                    out[l] = [read(r1), read(r1 + 1), read(r0 + 1), read(r0)];
                }
            } else {
                for l in 0..4 {
                    // every tap in [0, w) × [0, h): the products stay below w·h
                    let (a0, a1) = (i0[l] & mw, i0[l].saturating_add(1) & mw);
                    let (b0, b1) = (j0[l] & mh, j0[l].saturating_add(1) & mh);
                    let r0 = base[l] + (b0 * w) as usize;
                    let r1 = base[l] + (b1 * w) as usize;
                    let (a0, a1) = (a0 as usize, a1 as usize);
                    out[l] = [read(r1 + a0), read(r1 + a1), read(r0 + a1), read(r0 + a0)];
                }
            }
            let mask = b.masks[q];
            for (l, o) in out.iter_mut().enumerate() {
                if mask & (1 << l) == 0 {
                    *o = [0; 4];
                }
            }
            return out;
        }
    }
    // every tap inside the level: every wrap mode is the identity there (`gather_quad`)
    let (mut pi, mut pj) = ([[0i32; 4]; 4], [[0i32; 4]; 4]);
    let inside = taps(k, i0, j0, four, (w, h), (&mut pi, &mut pj));
    let dref: [f32; 4] = if cmp {
        lane4(b.dref).map(|r| k.dref_value(f32::from_bits(r)))
    } else {
        [0.0; 4]
    };
    let op = k.sampler.compare_op;
    let read = |at: usize| -> u32 {
        texels
            .get(at)
            .map_or(0, |t| wide::bytemuck::cast::<_, [u32; 4]>(*t)[comp])
    };
    let mut out = [[0u32; 4]; 4];
    for l in 0..4 {
        if b.masks[q] & (1 << l) == 0 {
            continue;
        }
        for kk in 0..4 {
            let (i, j) = (pi[l][kk], pj[l][kk]);
            let v = if inside {
                read(base[l] + (j * w + i) as usize)
            } else {
                let wi = wrap::<DYN>(i, w, k.modes[0]);
                let wj = wrap::<DYN>(j, h, k.modes[1]);
                if wi < 0 || wj < 0 {
                    k.border_raw[comp]
                } else {
                    read(base[l] + (wj * w + wi) as usize)
                }
            };
            out[l][kk] = if cmp {
                if op.test(dref[l], f32::from_bits(v)) {
                    1.0f32.to_bits()
                } else {
                    0
                }
            } else {
                v
            };
        }
    }
    out
}

/// Quads served per call of [`plane_gather_lanes`] at most (the bits of its answer).
pub(super) const LANE_QUADS: usize = 64;

/// The lane-wide form of [`plane_gather`]'s common cases, two quads (eight lanes) per step,
/// for quads `q0..q1` (at most [`LANE_QUADS`]) of a batch: a 2D view of a
/// [`Kernel::plane_gather`] kernel, no compare, no offsets, each pair's quads naming the same
/// component. Returns the quads it is done with (bit `q − q0`: written, or no active lane);
/// the caller takes the rest per quad.
///
/// Same values as [`plane_gather`]'s footprint route, lane by lane: `x = s·w − 0.5` and
/// `y = t·h − 0.5` (two roundings, as there), floor, then the `(i0,j1) (i1,j1) (i1,j0)
/// (i0,j0)` taps either all inside the level (every wrap mode the identity there) or, with
/// repeat on both axes over power-of-two sizes, wrapped by a mask. A pair is served where
/// every active lane has `|x|, |y| < 2²¹` (NaN fails: the floor is then exact and `+ 1`
/// cannot overflow, so `floor` + `cvttps` is [`floor4`]'s value) and, without the repeat
/// masks, an inside footprint; other quads are left to the per-quad route, which owns the
/// huge, NaN and wrapping cases. Each row's two taps are one 64-bit word of
/// [`Plane::components`], row j1's forward and row j0's backward, so one AVX2 gather of two
/// lanes' four words is their `[u32; 4]` results in place (a pair with a lane whose row wraps
/// under repeat: four 32-bit gathers and a transpose).
///
/// Why: the per-quad route read each tap through a bounds-checked slice look-up and built its
/// results lane by lane (~360 instructions per quad in the batch bench).
pub(super) fn plane_gather_lanes(
    k: &Kernel,
    plane: &Plane,
    b: &GatherBatchArgs,
    (q0, q1): (usize, usize),
    out: &mut [[u32; 4]],
) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::avx2() {
        // SAFETY: the CPU has AVX2 (`cpu::avx2()` is true only then)
        return unsafe { plane_gather_lanes_avx2(k, plane, b, (q0, q1), out) };
    }
    let _ = (k, plane, b, q0, q1, out);
    0
}

/// [`plane_gather_lanes`] with AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn plane_gather_lanes_avx2(
    k: &Kernel,
    plane: &Plane,
    b: &GatherBatchArgs,
    (q0, q1): (usize, usize),
    out: &mut [[u32; 4]],
) -> u64 {
    use std::arch::x86_64::*;
    let view = &k.view;
    let texels = &plane.texels[..];
    let info = &k.lv[view.base_level as usize];
    let [w, h, _] = info.size;
    let base = info.tbase + view.base_layer as usize * info.tlayer;
    let (s_row, t_row) = (b.coords[0], b.coords[1]);
    let q1 = q1.min(q0 + LANE_QUADS).min(b.masks.len());
    if view.view_type != ViewType::D2
        || k.sampler.compare_enable
        || b.offsets != BatchGatherOffsets::None
        || w < 2
        || h < 2
        || q0 >= q1
        // every tap index below is < base + w·h, and every word index (< 8n + 2) fits an i32
        || base + (w as usize) * (h as usize) > texels.len()
        || texels.len() > (i32::MAX as usize - 2) / 8
        || s_row.len() < 4 * q1
        || t_row.len() < 4 * q1
        || out.len() < 4 * q1
    {
        return 0;
    }
    // one component for the range (SPIR-V's is a constant: per pair checks are not worth it)
    let comp = |q: usize| b.component.get(4 * q).copied().unwrap_or(0);
    let c = comp(q0);
    // every lane's entry equal (one vectorised pass, the usual row) or else each quad's first
    let same = match b.component.get(4 * q0..4 * q1) {
        Some(r) => r.iter().fold(true, |ok, &x| ok & (x == c)),
        None => false,
    };
    if c > 3 || !same && (q0 + 1..q1).any(|q| comp(q) != c) {
        return 0;
    }
    let pow2 = |n: i32| n & (n - 1) == 0;
    let rep = k.modes[0] == REPEAT && k.modes[1] == REPEAT && pow2(w) && pow2(h);
    let wf = _mm256_set1_ps(info.sizef[0]);
    let hf = _mm256_set1_ps(info.sizef[1]);
    let half = _mm256_set1_ps(0.5);
    let abs = _mm256_castsi256_ps(_mm256_set1_epi32(i32::MAX));
    let small = _mm256_set1_ps(2_097_152.0);
    let (wv, one) = (_mm256_set1_epi32(w), _mm256_set1_epi32(1));
    let (wm1, hm1) = (_mm256_set1_epi32(w - 1), _mm256_set1_epi32(h - 1));
    // the plane component by component (`Plane::components`): component `c` of texel `t` is
    // word `c·len + t`, so a row's two taps are one 64-bit word where the row does not wrap
    let comps = plane.components();
    // `c·len + base`, and a row's word offset as a shift under repeat (w a power of two)
    let cb = _mm256_set1_epi32((c as usize * texels.len() + base) as i32);
    // row j0's backward word is `8n − 1 − t`
    let rev = _mm256_set1_epi32((8 * texels.len() - 1) as i32);
    let lw = _mm_cvtsi32_si128(w.trailing_zeros() as i32);
    let ptr = comps.as_ptr().cast::<i32>();
    let ptr64 = comps.as_ptr().cast::<i64>();
    // `v < n` as unsigned, lane-wise (a negative `v` is huge): `min(v, n − 1) = v`; inside
    // is `i0 < w − 1`, i.e. `min(i0, w − 2) = i0`
    let (wm2, hm2) = (_mm256_sub_epi32(wm1, one), _mm256_sub_epi32(hm1, one));
    let below = |v: __m256i, nm1: __m256i| _mm256_cmpeq_epi32(_mm256_min_epu32(v, nm1), v);
    // the quads not served (bit `q − q0`), set on the rare paths only
    let mut left = 0u64;
    let mp = b.masks.as_ptr();
    let mut q = q0;
    while q < q1 {
        let pair = q + 1 < q1;
        // SAFETY: `q < q1 ≤ b.masks.len()` and, for a pair, `q + 1 < q1`
        let (m0, m1) = unsafe {
            (
                *mp.add(q) & 0xf,
                if pair { *mp.add(q + 1) & 0xf } else { 0 },
            )
        };
        let m = m0 as u32 | (m1 as u32) << 4;
        if m == 0 {
            // nothing to write: served
            q += 2;
            continue;
        }
        // SAFETY: `s_row` and `t_row` hold at least `4·q1` words (checked above): a pair
        // (`q + 1 < q1`) reads words `4q .. 4q + 8` (one unaligned 32-byte load each), a lone
        // last quad words `4q .. 4q + 4` (16 bytes)
        let (s, t) = unsafe {
            let (ps, pt) = (s_row.as_ptr().add(4 * q), t_row.as_ptr().add(4 * q));
            if pair {
                (_mm256_loadu_ps(ps.cast()), _mm256_loadu_ps(pt.cast()))
            } else {
                (
                    _mm256_zextps128_ps256(_mm_loadu_ps(ps.cast())),
                    _mm256_zextps128_ps256(_mm_loadu_ps(pt.cast())),
                )
            }
        };
        let x = _mm256_sub_ps(_mm256_mul_ps(s, wf), half);
        let y = _mm256_sub_ps(_mm256_mul_ps(t, hf), half);
        let fine = _mm256_and_ps(
            _mm256_cmp_ps::<_CMP_LT_OQ>(_mm256_and_ps(x, abs), small),
            _mm256_cmp_ps::<_CMP_LT_OQ>(_mm256_and_ps(y, abs), small),
        );
        let i0 = _mm256_cvttps_epi32(_mm256_floor_ps(x));
        let j0 = _mm256_cvttps_epi32(_mm256_floor_ps(y));
        let ok = if rep {
            _mm256_castps_si256(fine)
        } else {
            _mm256_and_si256(
                _mm256_castps_si256(fine),
                _mm256_and_si256(below(i0, wm2), below(j0, hm2)),
            )
        };
        // served lanes: quad q's are bits 0..4, quad q + 1's 4..8
        let okbits = _mm256_movemask_ps(_mm256_castsi256_ps(ok)) as u32;
        // two whole quads, every lane served (the usual pair: two compares), or which quads
        // have every active lane served (a quad without one: nothing to write)
        let whole = m == 0xff && okbits == 0xff;
        let take = if whole {
            [true; 2]
        } else {
            let take = [okbits & m & 0xf == m & 0xf, okbits & m & 0xf0 == m & 0xf0];
            left |= (!take[0] as u64 | (!take[1] as u64) << 1) << (q - q0);
            if !take[0] && !take[1] {
                q += 2;
                continue;
            }
            take
        };
        // each lane's (i0, j1) and (i0, j0) words, `c·len + base + row·w + column`
        let (t01, t00, c0) = if rep {
            // columns and rows wrapped by the masks (always inside the level, whatever the
            // lane's value)
            let c0 = _mm256_and_si256(i0, wm1);
            let j1 = _mm256_add_epi32(j0, one);
            let r0 = _mm256_add_epi32(cb, _mm256_sll_epi32(_mm256_and_si256(j0, hm1), lw));
            let r1 = _mm256_add_epi32(cb, _mm256_sll_epi32(_mm256_and_si256(j1, hm1), lw));
            (_mm256_add_epi32(r1, c0), _mm256_add_epi32(r0, c0), c0)
        } else {
            // inside (a lane not served: texel `base`, column 0 of the level's first row)
            let t00 = _mm256_add_epi32(
                cb,
                _mm256_and_si256(ok, _mm256_add_epi32(_mm256_mullo_epi32(j0, wv), i0)),
            );
            (_mm256_add_epi32(t00, wv), t00, _mm256_setzero_si256())
        };
        // a served, active lane in the last column under repeat: its row wraps to column 0
        let wraps = if rep {
            _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(c0, wm1))) as u32 & m
        } else {
            0
        };
        // `v[k]`: lane 2k's four taps (i0,j1) (i1,j1) (i1,j0) (i0,j0), then lane 2k + 1's
        let v = if wraps == 0 {
            // each row's two taps as one 64-bit word, row j1's forward (word `t01`: its
            // (i0, i1)), row j0's from the backward copy (word `8n − 1 − t00`: its (i1, i0)),
            // so a gather of the words `t01[l] r0[l] t01[l + 1] r0[l + 1]` is lanes l and
            // l + 1 as they are stored; `t + 1` lies in `t`'s row (inside: column ≤ w − 2;
            // repeat: no lane in the last column but inactive ones, whose results are not
            // written)
            let r0 = _mm256_sub_epi32(rev, t00);
            let (a, b) = (
                _mm256_unpacklo_epi32(t01, r0),
                _mm256_unpackhi_epi32(t01, r0),
            );
            // SAFETY: every `t` is `c·n + p` with `p` a texel of the level (row < h, column <
            // w; inside: row ≤ h − 1, column ≤ w − 2; a lane not served: `base`, and
            // `base + 1 < base + w·h ≤ n`), so `t + 1 < 4n`: forward words `t`, `t + 1` and
            // backward words `8n − 1 − t`, `8n − t` (in `4n + 1 .. 8n + 1`) lie within the
            // `8n + 2` of `comps`
            unsafe {
                [
                    _mm256_i32gather_epi64::<4>(ptr64, _mm256_castsi256_si128(a)),
                    _mm256_i32gather_epi64::<4>(ptr64, _mm256_castsi256_si128(b)),
                    _mm256_i32gather_epi64::<4>(ptr64, _mm256_extracti128_si256::<1>(a)),
                    _mm256_i32gather_epi64::<4>(ptr64, _mm256_extracti128_si256::<1>(b)),
                ]
            }
        } else {
            // four 32-bit gathers, the (i1, ·) taps at the wrapped column
            let c1 = _mm256_and_si256(_mm256_add_epi32(i0, one), wm1);
            let (d01, d00) = (
                _mm256_add_epi32(t01, _mm256_sub_epi32(c1, c0)),
                _mm256_add_epi32(t00, _mm256_sub_epi32(c1, c0)),
            );
            // SAFETY: every index is `c·len + p` with `p` a texel of the level (repeat masks:
            // row < h, column < w), within `comps`
            let g = unsafe {
                [
                    _mm256_i32gather_epi32::<4>(ptr, t01),
                    _mm256_i32gather_epi32::<4>(ptr, d01),
                    _mm256_i32gather_epi32::<4>(ptr, d00),
                    _mm256_i32gather_epi32::<4>(ptr, t00),
                ]
            };
            // the 4×8 transpose
            let lo01 = _mm256_unpacklo_epi32(g[0], g[1]);
            let hi01 = _mm256_unpackhi_epi32(g[0], g[1]);
            let lo23 = _mm256_unpacklo_epi32(g[2], g[3]);
            let hi23 = _mm256_unpackhi_epi32(g[2], g[3]);
            let l04 = _mm256_unpacklo_epi64(lo01, lo23);
            let l15 = _mm256_unpackhi_epi64(lo01, lo23);
            let l26 = _mm256_unpacklo_epi64(hi01, hi23);
            let l37 = _mm256_unpackhi_epi64(hi01, hi23);
            [
                _mm256_permute2x128_si256::<0x20>(l04, l15),
                _mm256_permute2x128_si256::<0x20>(l26, l37),
                _mm256_permute2x128_si256::<0x31>(l04, l15),
                _mm256_permute2x128_si256::<0x31>(l26, l37),
            ]
        };
        if whole {
            // both quads whole and served: eight lanes' results in four stores
            // SAFETY: a pair, so `q + 1 < q1` and `out` holds at least `4·q1` lanes (checked
            // above): lanes `4q .. 4q + 8` are 8 × 16 bytes, four unaligned 32-byte stores
            unsafe {
                let p = out.as_mut_ptr().add(4 * q).cast::<__m256i>();
                _mm256_storeu_si256(p, v[0]);
                _mm256_storeu_si256(p.add(1), v[1]);
                _mm256_storeu_si256(p.add(2), v[2]);
                _mm256_storeu_si256(p.add(3), v[3]);
            }
            q += 2;
            continue;
        }
        // a quad at a time: its two vectors, its mask (none past the range), whether served
        let mut part = |hq: usize, lanes: [__m256i; 2]| {
            let mask = (m >> (4 * hq)) as u8;
            if take[hq] && mask != 0 {
                // SAFETY: two `__m256i` are 64 bytes of plain integers, as `[[u32; 4]; 4]` is
                let r: QuadBits = unsafe { std::mem::transmute::<[__m256i; 2], QuadBits>(lanes) };
                let qq = q + hq;
                super::merge_lanes(&mut out[4 * qq..4 * qq + 4], &r, mask);
            }
        };
        part(0, [v[0], v[1]]);
        part(1, [v[2], v[3]]);
        q += 2;
    }
    // every quad of the range not left (a lone last quad's partner is past it)
    let n = q1 - q0;
    let served = !left & if n < 64 { (1 << n) - 1 } else { u64::MAX };
    #[cfg(test)]
    LANES_SERVED.with(|c| c.set(c.get() + served.count_ones() as usize));
    served
}

// Test hook: quads [`plane_gather_lanes`] has served on this thread (tests check that their
// random batches reach it).
#[cfg(test)]
thread_local! {
    pub(super) static LANES_SERVED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The four lanes' gather taps into `pi`, `pj`, `[lane][component]` (the spec's i0j1, i1j1, i1j0, i0j0 order,
/// or `(i0, j0)` plus each of `ConstOffsets`' four offsets); returns whether every tap of
/// every lane lies inside the `w`×`h` level. Saturating adds keep the sign and pin overflows at
/// `i32::MAX` ≥ the extent, so the saturated extremes answer the inside test as the exact ones
/// would.
#[inline(always)]
fn taps(
    k: &Kernel,
    i0: [i32; 4],
    j0: [i32; 4],
    four: Option<[[i32; 2]; 4]>,
    (w, h): (i32, i32),
    (pi, pj): (&mut [[i32; 4]; 4], &mut [[i32; 4]; 4]),
) -> bool {
    // the taps' extent relative to (i0, j0): lo..=hi per axis
    let (lo, hi) = match four {
        Some(o) => {
            let d = o.map(|d| k.offset_bits([d[0], d[1], 0], 6));
            for l in 0..4 {
                for kk in 0..4 {
                    pi[l][kk] = i0[l].saturating_add(d[kk][0]);
                    pj[l][kk] = j0[l].saturating_add(d[kk][1]);
                }
            }
            let mut lo = d[0];
            let mut hi = d[0];
            for dk in &d[1..] {
                for ax in 0..2 {
                    lo[ax] = lo[ax].min(dk[ax]);
                    hi[ax] = hi[ax].max(dk[ax]);
                }
            }
            ([lo[0], lo[1]], [hi[0], hi[1]])
        }
        None => {
            for l in 0..4 {
                let (i1, j1) = (i0[l].saturating_add(1), j0[l].saturating_add(1));
                pi[l] = [i0[l], i1, i1, i0[l]];
                pj[l] = [j1, j1, j0[l], j0[l]];
            }
            ([0, 0], [1, 1])
        }
    };
    (0..4).fold(true, |ok, l| {
        ok & (i0[l].saturating_add(lo[0]) >= 0)
            & (i0[l].saturating_add(hi[0]) < w)
            & (j0[l].saturating_add(lo[1]) >= 0)
            & (j0[l].saturating_add(hi[1]) < h)
    })
}

#[cfg(test)]
mod tests {
    //! The fast gather against the general gather (which `super::super::tests` holds to the
    //! f64 reference sampler's `ref_gather`): random images, views, samplers, policies,
    //! components, offsets and quads (NaN and huge coordinates included) give the same bits.

    use super::super::fast::tests::{nan_as_one, random_2d_view, random_config, Rng, OPS};
    use super::super::*;
    use proptest::prelude::*;

    const FORMATS: [Format; 8] = [
        Format::R8G8B8A8_UNORM,
        Format::B8G8R8A8_UNORM,
        Format::R8G8B8A8_SRGB,
        Format::B8G8R8A8_SRGB,
        Format::R32_SFLOAT,
        Format::D32_SFLOAT,
        Format::D32_SFLOAT_S8_UINT,
        Format::R8G8B8A8_UINT,
    ];

    const MODES: [AddressMode; 5] = [
        AddressMode::Repeat,
        AddressMode::MirroredRepeat,
        AddressMode::ClampToEdge,
        AddressMode::ClampToBorder,
        AddressMode::MirrorClampToEdge,
    ];

    const BORDERS: [BorderColor; 4] = [
        BorderColor::FloatTransparentBlack,
        BorderColor::FloatOpaqueBlack,
        BorderColor::FloatOpaqueWhite,
        BorderColor::IntOpaqueWhite,
    ];

    fn coord(r: &mut Rng) -> f32 {
        match r.below(20) {
            0 => f32::NAN,
            1 => r.f(-1e9, 1e9),
            2 => 0.5,
            3 => f32::INFINITY,
            _ => r.f(-2.5, 2.5),
        }
    }

    /// One random gather; returns whether the fast path served it, after checking that the
    /// fast and general routines agree bit for bit (every NaN counted as one).
    fn one(seed: u64) -> bool {
        let mut r = Rng(seed | 1);
        let fmt = FORMATS[r.below(FORMATS.len() as u64) as usize];
        let (img, view) = random_2d_view(&mut r, fmt);
        let mut address_mode = [MODES[r.below(5) as usize]; 3];
        if r.chance(30) {
            address_mode[1] = MODES[r.below(5) as usize];
        }
        let integer = fmt == Format::R8G8B8A8_UINT;
        let sampler = Sampler {
            address_mode,
            border_color: BORDERS[r.below(2) as usize + 2 * integer as usize],
            compare_enable: !integer
                && (fmt.has_depth() || fmt == Format::R32_SFLOAT || r.chance(10))
                && r.chance(60),
            compare_op: OPS[r.below(8) as usize],
            ..Sampler::default()
        };
        let cfg = random_config(&mut r);
        let c0 = [coord(&mut r), coord(&mut r), r.f(-1.0, 4.0), 0.0];
        let step = r.f(-0.5, 0.5) * r.f(0.0, 1.0).powi(3);
        let mut coords = [c0; 4];
        for (lane, c) in coords.iter_mut().enumerate() {
            c[0] += (lane & 1) as f32 * step;
            c[1] += (lane >> 1) as f32 * step;
            if r.chance(5) {
                c[1] = coord(&mut r);
            }
            if r.chance(10) {
                c[2] = r.f(-1.0, 4.0);
            }
        }
        // offsets beyond [-8, 7] too: D3D keeps their low 6 bits, Vulkan uses them as given
        let off = |r: &mut Rng| {
            if r.chance(80) {
                r.below(5) as i32 - 2
            } else {
                r.below(80) as i32 - 40
            }
        };
        let offsets = match r.below(3) {
            0 => GatherOffsets::None,
            1 => GatherOffsets::Offset(if r.chance(50) {
                [[off(&mut r), off(&mut r)]; 4]
            } else {
                std::array::from_fn(|_| [off(&mut r), off(&mut r)])
            }),
            _ => GatherOffsets::Four(std::array::from_fn(|_| [off(&mut r), off(&mut r)])),
        };
        let lane4 = |r: &mut Rng| -> [f32; 4] { std::array::from_fn(|_| r.f(-0.2, 1.2)) };
        let a = GatherArgs {
            coords,
            component: r.below(4) as u32,
            offsets,
            dref: (sampler.compare_enable || r.chance(10)).then(|| lane4(&mut r)),
            mask: if r.chance(70) { 0xf } else { r.below(16) as u8 },
        };
        let Ok(k) = Kernel::new(&img, &view, &sampler, cfg) else {
            return false;
        };
        let general = k.gather_general(&img, &a);
        let fast = k.gather(&img, &a);
        let (Ok(general), Ok(fast)) = (general, fast) else {
            assert_eq!(
                k.gather(&img, &a).is_err(),
                k.gather_general(&img, &a).is_err()
            );
            return false;
        };
        // integer texels are compared exactly (no NaN there to count as one)
        let bits = |q: QuadBits| {
            if integer {
                q.map(|l| l.map(|x| format!("{x:08x}")))
            } else {
                nan_as_one(q)
            }
        };
        assert_eq!(
            bits(fast),
            bits(general),
            "seed {seed}: {fmt:?} {:?}x{} L{} {view:?} {sampler:?} {cfg:?} {a:?}",
            img.extent(),
            img.layers(),
            img.levels()
        );
        k.has_fast_gather()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]
        #[test]
        fn fast_gather_equals_general_gather(seed in any::<u64>()) {
            one(seed);
        }
    }

    /// One random batch of the lane route's shape (2D view, no compare, no offsets, one
    /// component): `gather_batch` against `Kernel::gather` per quad, every active lane's bits,
    /// the other lanes untouched. Returns the quads with an active lane.
    fn one_lane_batch(seed: u64) -> usize {
        use super::super::fast::tests::image;
        const UNTOUCHED: [u32; 4] = [0xdead_beef; 4];
        let mut r = Rng(seed | 1);
        let fmt = FORMATS[r.below(FORMATS.len() as u64) as usize];
        let p2 = r.chance(70);
        let side = |r: &mut Rng| {
            if p2 {
                1 << r.below(7)
            } else {
                1 + r.below(70) as u32
            }
        };
        let (w, h) = (side(&mut r), side(&mut r));
        let layers = 1 + r.below(3) as u32;
        let levels = 1 + r.below((32 - w.max(h).leading_zeros()) as u64) as u32;
        let img = image(&mut r, fmt, w, h, layers, levels);
        let view = ImageView {
            view_type: ViewType::D2,
            base_level: if r.chance(70) {
                0
            } else {
                r.below(levels as u64) as u32
            },
            level_count: 1,
            base_layer: r.below(layers as u64) as u32,
            layer_count: 1,
            aspect: if fmt.has_depth() {
                Aspect::Depth
            } else {
                Aspect::Color
            },
        };
        let mode = if r.chance(60) {
            AddressMode::Repeat
        } else {
            MODES[r.below(5) as usize]
        };
        let sampler = Sampler {
            address_mode: [
                mode,
                if r.chance(80) {
                    mode
                } else {
                    MODES[r.below(5) as usize]
                },
                mode,
            ],
            border_color: BORDERS[r.below(2) as usize],
            ..Sampler::default()
        };
        let Ok(k) = Kernel::new(&img, &view, &sampler, Config::default()) else {
            return 0;
        };
        // past one `LANE_QUADS` range now and then
        let quads = 1 + r.below(90) as usize;
        let component = r.below(4) as u32;
        let (mut s_row, mut t_row, mut comp, mut masks) = (vec![], vec![], vec![], vec![]);
        let (lo, hi) = if r.chance(50) {
            (0.0, 1.0)
        } else {
            (-1.5, 2.5)
        };
        for _ in 0..quads {
            // in the level, past it (repeat), or now and then NaN, huge or infinite
            let c0 = [r.f(lo, hi), r.f(lo, hi)];
            let step = r.f(-0.2, 0.2) * r.f(0.0, 1.0).powi(2);
            for lane in 0..4 {
                let mut c = [
                    c0[0] + (lane & 1) as f32 * step,
                    c0[1] + (lane >> 1) as f32 * step,
                ];
                if r.chance(3) {
                    c[r.below(2) as usize] = coord(&mut r);
                }
                s_row.push(c[0].to_bits());
                t_row.push(c[1].to_bits());
                comp.push(if lane == 0 {
                    component
                } else {
                    r.below(8) as u32
                });
            }
            masks.push(if r.chance(70) { 0xf } else { r.below(16) as u8 });
        }
        let b = GatherBatchArgs {
            coords: [&s_row, &t_row, &[], &[]],
            masks: &masks,
            component: if r.chance(10) { &[] } else { &comp },
            offsets: BatchGatherOffsets::None,
            dref: &[],
        };
        let mut out = vec![UNTOUCHED; 4 * quads];
        k.gather_batch(&img, &b, &mut out).unwrap();
        for (q, &m) in masks.iter().enumerate() {
            let want = k.gather(&img, &b.quad_args(q)).unwrap();
            for lane in 0..4 {
                let expect = if m & (1 << lane) != 0 {
                    want[lane]
                } else {
                    UNTOUCHED
                };
                assert_eq!(
                    out[4 * q + lane],
                    expect,
                    "seed {seed}: quad {q} lane {lane} of {quads}, {fmt:?} {w}x{h} {view:?} \
                     {sampler:?} {:?}",
                    b.quad_args(q)
                );
            }
        }
        masks.iter().filter(|&&m| m & 0xf != 0).count()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        #[test]
        fn lane_gathers_equal_the_per_quad_path(seed in any::<u64>()) {
            one_lane_batch(seed);
        }
    }

    /// The lane route is reached (with AVX2): it serves over a third of the random lane
    /// batches' quads (~40 %; the rest: formats without a plane, levels under 2×2, lanes
    /// outside the level without power-of-two repeat, NaN or huge coordinates).
    #[test]
    fn random_lane_batches_reach_the_lane_route() {
        super::LANES_SERVED.with(|c| c.set(0));
        let quads: usize = (1..=1000u64)
            .map(|s| one_lane_batch(s.wrapping_mul(0x9e37_79b9_7f4a_7c15)))
            .sum();
        let served = super::LANES_SERVED.with(|c| c.get());
        if crate::cpu::avx2() {
            assert!(
                served * 3 > quads,
                "the lane route served {served} of {quads} quads"
            );
        } else {
            assert_eq!(served, 0);
        }
    }

    /// A texel written after a batch gather (which built the plane's component copy) is what
    /// the next batch gathers: the expected bits are the written value's, read back from the
    /// image's bytes, not from the plane.
    #[test]
    fn a_texel_written_after_a_gather_is_gathered() {
        let mut img = Image::new_2d(Format::R8G8B8A8_UNORM, 4, 4, 1, 1).unwrap();
        let view = ImageView::whole(&img, ViewType::D2);
        let k = Kernel::new(&img, &view, &Sampler::default(), Config::default()).unwrap();
        // one quad, every lane's footprint the texels (1, 1) (2, 1) (2, 2) (1, 2)
        let (s, t) = ([0.5f32.to_bits(); 4], [0.5f32.to_bits(); 4]);
        let comp = [1u32; 4];
        let b = GatherBatchArgs {
            coords: [&s, &t, &[], &[]],
            masks: &[0xf],
            component: &comp,
            offsets: BatchGatherOffsets::None,
            dref: &[],
        };
        let mut out = vec![[0u32; 4]; 4];
        k.gather_batch(&img, &b, &mut out).unwrap();
        assert_eq!(out[0], [0; 4]);
        img.write_texel_f32(0, 0, [2, 2, 0], [0.1, 0.2, 0.3, 0.4])
            .unwrap();
        let g = img.read_texel_f32(0, 0, [2, 2, 0]).unwrap()[1].to_bits();
        assert_ne!(g, 0);
        k.gather_batch(&img, &b, &mut out).unwrap();
        // the footprint order (i0,j1) (i1,j1) (i1,j0) (i0,j0): (2, 2) is the second tap
        for lane in &out {
            assert_eq!(*lane, [0, g, 0, 0]);
        }
        // and a texel of row j0, which the lane route reads from the backward copy: (2, 1)
        // is the third tap
        img.write_texel_f32(0, 0, [2, 1, 0], [0.5, 0.6, 0.7, 0.8])
            .unwrap();
        let g1 = img.read_texel_f32(0, 0, [2, 1, 0]).unwrap()[1].to_bits();
        assert_ne!(g1, 0);
        k.gather_batch(&img, &b, &mut out).unwrap();
        for lane in out {
            assert_eq!(lane, [0, g, g1, 0]);
        }
    }

    #[test]
    fn most_random_gathers_take_the_fast_path() {
        let served = (1..=2000u64)
            .filter(|&s| one(s.wrapping_mul(0x9e37_79b9_7f4a_7c15)))
            .count();
        assert!(
            served > 1000,
            "the fast gather served only {served} of 2000"
        );
    }

    #[test]
    fn gather_coverage_by_configuration() {
        let img = Image::new_2d(Format::B8G8R8A8_SRGB, 8, 8, 2, 4).unwrap();
        let v2 = ImageView::whole(&img, ViewType::D2Array);
        let s = Sampler::trilinear(AddressMode::ClampToBorder);
        let k = |s: &Sampler, cfg: Config| Kernel::new(&img, &v2, s, cfg).unwrap();
        assert!(k(&s, Config::default()).has_fast_gather());
        let hw = Config {
            precision: LodPrecision::Hardware,
            ..Config::default()
        };
        assert!(!k(&s, hw).has_fast_gather());
        let snorm = Image::new_2d(Format::R8G8B8A8_SNORM, 8, 8, 1, 1).unwrap();
        let vs = ImageView::whole(&snorm, ViewType::D2);
        assert!(!Kernel::new(&snorm, &vs, &s, Config::default())
            .unwrap()
            .has_fast_gather());
    }
}
