//! The anisotropic route of [`Kernel::sample`]: 2D / 2D-array views of the fast path's
//! formats (R8G8B8A8/B8G8R8A8 UNORM/SRGB, single-f32 with or without Dref), exact precision,
//! normalized coordinates, one address mode on both axes out of repeat, mirrored repeat,
//! clamp-to-edge and mirror-clamp-to-edge, with anisotropy enabled.
//!
//! Shape: lane by lane (lanes may differ in probe count, texel filter and levels), the
//! lane's levels are addressed once (scalar size, row pitch, layer base and weight
//! `wl / N`), then its `N` probes go four at a time: the four probe positions
//! `st + major·(−1/2 + (p+1)/(N+1))`, their texel-space coordinates, floors, fractions and
//! the in-level test are `[f32; 4]` / `[i32; 4]` steps over the probes (wraps only when a
//! footprint leaves the level), then each probe's texels are read as 4-byte words and decoded
//! inline. Every value is computed by the general path's operations in the general path's
//! order ([`Kernel::sample_filtered`]: probe outer, level inner, `acc += (wl/N)·v` from
//! `acc = 0`; the same `a + (b − a)·w` lerps), so results are bit-identical to it —
//! `tests::aniso_route_equals_general_path` holds it to that over random views, samplers,
//! anisotropy ratios and LOD sources. Lanes with one probe (an isotropic footprint) take the
//! same route without the probe shift, as the general path does.
//!
//! Not covered (the general path): border addressing, different modes on u and v, hardware
//! LOD precision, other formats. Every quad of a covered kernel takes the route (lanes with
//! the D3D out-of-range-MinLod result get it here as in the general loop).
//!
//! Per lane, the probe offsets are one word offset per probe plus column/row steps, the
//! level count a constant and the probe positions a const table; 8-bit formats read one word
//! per texel. Where the image has a decoded plane, texels come from it (one 16-byte load a
//! texel, `PL`). Bilinear lanes take eight probes at a time with AVX2 ([`probes8_avx2`]:
//! positions, floors, fractions and the in-level test eight lanes wide, one range check for
//! all the texel loads, the lerps two probes a vector, one or two levels) wherever the eight
//! footprints lie inside the level(s), the four-probe route otherwise.
//! `tests::eight_probe_route_equals_general_path` holds it to the general path on quads
//! generated to reach it (a swapped lerp weight or level order fails it).

use super::address::{wrap, CLAMP, MIRRORED, MIRROR_CLAMP, REPEAT};
use super::fast::{
    bilinear4, colour_table, compare, compare_bits, decode, fast_format, floor4, FastFn, R32F,
    R32F_CMP,
};
use super::fast::{SBGRA8, SRGBA8};
use super::filter::lerp4;
use super::image::{Image, Plane, ViewType};
use super::lod::{LodBase, LodMode};
use super::sample::{layer_index, Kernel, LaneLod, SampleArgs};
use super::sampler::LodPrecision;
use super::QuadBits;
use wide::f32x4;

/// The probe positions along the major axis, `k = −1/2 + (p+1)/(N+1)` for `N` probes
/// (row `N ≤ 16`, the cap of `lod_base`) and probe `p < N`, by the general path's f32
/// operations (const evaluation is IEEE f32 arithmetic; `tests::probe_table_is_the_formula`
/// checks it against run time). Entries `p ≥ N` repeat the last probe: a group of four
/// probes may run past `N`, and those are not read.
const PROBE_K: [[f32; 16]; 17] = {
    let mut t = [[0.0f32; 16]; 17];
    let mut n = 1;
    while n <= 16 {
        let mut p = 0;
        while p < 16 {
            let q = if p < n { p } else { n - 1 };
            t[n][p] = -0.5 + (q + 1) as f32 / (n + 1) as f32;
            p += 1;
        }
        n += 1;
    }
    t
};

/// The anisotropic routine for a kernel, if its (view, sampler, format, config) is covered.
pub(super) fn pick_fast_aniso(k: &Kernel) -> Option<FastFn> {
    let s = &k.sampler;
    if k.aniso.is_none()
        || k.cfg.precision != LodPrecision::Exact
        || s.unnormalized_coordinates
        || !matches!(k.view.view_type, ViewType::D2 | ViewType::D2Array)
    {
        return None;
    }
    let f = fast_format(k)?;
    let m = k.modes[0];
    if k.modes[1] != m {
        return None;
    }
    macro_rules! by_mode {
        ($f:expr) => {
            match m {
                REPEAT => aniso_quad::<{ $f }, REPEAT> as FastFn,
                MIRRORED => aniso_quad::<{ $f }, MIRRORED> as FastFn,
                CLAMP => aniso_quad::<{ $f }, CLAMP> as FastFn,
                MIRROR_CLAMP => aniso_quad::<{ $f }, MIRROR_CLAMP> as FastFn,
                _ => return None, // border: the general path
            }
        };
    }
    use super::fast::{BGRA8, RGBA8};
    Some(match f {
        RGBA8 => by_mode!(RGBA8),
        BGRA8 => by_mode!(BGRA8),
        SRGBA8 => by_mode!(SRGBA8),
        SBGRA8 => by_mode!(SBGRA8),
        R32F => by_mode!(R32F),
        _ => by_mode!(R32F_CMP),
    })
}

/// The lanes: level selection exactly as [`Kernel::sample_filtered`] (shared between lanes
/// with equal inputs), then each active lane's probes. Always serves the quad.
fn aniso_quad<const F: u8, const M: u8>(
    k: &Kernel,
    img: &Image,
    a: &SampleArgs,
    bases: &[LodBase; 4],
) -> Option<QuadBits> {
    let mut out = [[0u32; 4]; 4];
    let bias = match a.lod {
        LodMode::Implicit { bias, .. } => bias,
        _ => [0.0; 4],
    };
    let min_lod = a.min_lod.unwrap_or([f32::NEG_INFINITY; 4]);
    let mut prev: Option<([u32; 3], Option<LaneLod>)> = None;
    // the decoded plane (every covered format has one unless the image is too large for it)
    let plane = img.plane();
    for lane in 0..4 {
        if a.mask & (1 << lane) == 0 {
            continue;
        }
        let base = &bases[lane];
        let key = [base.lambda, bias[lane], min_lod[lane]].map(f32::to_bits);
        let ll = match prev {
            Some((kk, ll)) if kk == key => ll,
            _ => k.lane_lod(base.lambda, bias[lane], min_lod[lane]),
        };
        prev = Some((key, ll));
        out[lane] = match ll {
            Some(ll) => match (ll.linear, ll.levels.n == 2) {
                (true, false) => {
                    by_source::<F, M, true, false>(k, (img, plane), a, lane, base, &ll)
                }
                (true, true) => by_source::<F, M, true, true>(k, (img, plane), a, lane, base, &ll),
                (false, false) => {
                    by_source::<F, M, false, false>(k, (img, plane), a, lane, base, &ll)
                }
                (false, true) => {
                    by_source::<F, M, false, true>(k, (img, plane), a, lane, base, &ll)
                }
            },
            None => k.oob_raw,
        };
    }
    Some(out)
}

/// One level of a lane: extent (texels, and as f32 for the scale), word addressing of the
/// lane's layer, and the probe weight `wl / N`.
#[derive(Clone, Copy)]
struct Lvl {
    size: [i32; 2],
    scale: [f32; 2],
    base: usize,
    pitch: usize,
    weight: f32,
}

/// Where four probes read one level: each probe's first texel `(i0, j0)` (nearest: its only
/// one; wrapped when the footprint leaves the level), the word steps to `(i1, ·)` and
/// `(·, j1)` (the texel size and the row pitch inside the level; wrapping differences after
/// a wrap) and the linear weights. The word offset `j0·pitch + i0·ts` is formed per probe
/// when its texels are read (a scalar multiply; four 64-bit products in SSE2 cost more).
#[derive(Clone, Copy)]
struct Footprint {
    i0: [i32; 4],
    j0: [i32; 4],
    di: [usize; 4],
    dj: [usize; 4],
    fa: [f32; 4],
    fb: [f32; 4],
}

/// The texel-space footprints of four probes at `(ps, pt)` (normalized) in one level: the
/// general path's `to_texel` (`s·w + offset`), then `level_nd`'s floor, clamped fraction and
/// wraps (`LIN`: after the −0.5 shift).
#[inline(always)]
fn footprint<const M: u8, const LIN: bool>(
    lv: &Lvl,
    ts: usize,
    ps: [f32; 4],
    pt: [f32; 4],
    off: [f32; 2],
) -> Footprint {
    let mut u = [0f32; 4];
    let mut v = [0f32; 4];
    for i in 0..4 {
        u[i] = ps[i] * lv.scale[0] + off[0];
        v[i] = pt[i] * lv.scale[1] + off[1];
    }
    let [w, h] = lv.size;
    let pitch = lv.pitch;
    if !LIN {
        let i = floor4(u);
        let j = floor4(v);
        let inside = (0..4).fold(true, |ok, p| {
            ok & (i[p] >= 0) & (i[p] < w) & (j[p] >= 0) & (j[p] < h)
        });
        let (i, j) = if inside {
            (i, j)
        } else {
            (i.map(|i| wrap::<M>(i, w, M)), j.map(|j| wrap::<M>(j, h, M)))
        };
        return Footprint {
            i0: i,
            j0: j,
            di: [0; 4],
            dj: [0; 4],
            fa: [0.0; 4],
            fb: [0.0; 4],
        };
    }
    let ([i0, j0], [fa, fb]) = bilinear4(u, v);
    // every footprint inside the level (the usual case; `i0 < w − 1` is the general path's
    // `i0.saturating_add(1) < w`): every wrap mode is the identity, the second column and
    // row are one texel and one row on
    // (as unsigned compares: `0 ≤ i0 < w − 1` ⇔ `i0 as u32 < (w − 1) as u32`, w ≥ 1)
    let (wm, hm) = ((w - 1) as u32, (h - 1) as u32);
    let out = (0..4).fold(false, |o, i| {
        o | (i0[i] as u32 >= wm) | (j0[i] as u32 >= hm)
    });
    if !out {
        return Footprint {
            i0,
            j0,
            di: [ts; 4],
            dj: [pitch; 4],
            fa,
            fb,
        };
    }
    let mut fp = Footprint {
        i0,
        j0,
        di: [0; 4],
        dj: [0; 4],
        fa,
        fb,
    };
    for i in 0..4 {
        let iw0 = wrap::<M>(i0[i], w, M);
        let iw1 = wrap::<M>(i0[i].saturating_add(1), w, M);
        let jw0 = wrap::<M>(j0[i], h, M);
        let jw1 = wrap::<M>(j0[i].saturating_add(1), h, M);
        fp.i0[i] = iw0;
        fp.j0[i] = jw0;
        fp.di[i] = (iw1 as usize * ts).wrapping_sub(iw0 as usize * ts);
        fp.dj[i] = (jw1 as usize * pitch).wrapping_sub(jw0 as usize * pitch);
    }
    fp
}

/// [`lane_probes`] from the decoded plane if the image has one, else from its bytes.
#[inline(always)]
fn by_source<const F: u8, const M: u8, const LIN: bool, const TWO: bool>(
    k: &Kernel,
    (img, plane): (&Image, Option<&Plane>),
    a: &SampleArgs,
    lane: usize,
    base: &LodBase,
    ll: &LaneLod,
) -> [u32; 4] {
    match plane {
        Some(p) => lane_probes::<F, M, LIN, TWO, true>(k, (img, &p.texels), a, lane, base, ll),
        None => lane_probes::<F, M, LIN, TWO, false>(k, (img, &[]), a, lane, base, ll),
    }
}

/// One lane's probes: the general path's `sample_lane` for a covered kernel, with the
/// lane's texel filter (`LIN`), level count (`TWO`: two levels) and texel source (`PL`:
/// the decoded plane, one 16-byte load a texel; else the bytes, decoded inline) as
/// constants.
#[inline(always)]
fn lane_probes<const F: u8, const M: u8, const LIN: bool, const TWO: bool, const PL: bool>(
    k: &Kernel,
    (img, texels): (&Image, &[f32x4]),
    a: &SampleArgs,
    lane: usize,
    base: &LodBase,
    ll: &LaneLod,
) -> [u32; 4] {
    // texels as 4-byte words (see `fast.rs`), or the plane's texels
    let (words, _) = img.bytes().as_chunks::<4>();
    let srgb = colour_table::<F>();
    let view = &k.view;
    let c = &a.coords[lane];
    let layer = if view.view_type == ViewType::D2Array {
        view.base_layer + layer_index(c[2], view.layer_count)
    } else {
        view.base_layer
    };
    let off = k.offset_bits(a.offsets[lane], 4);
    let off = [off[0] as f32, off[1] as f32];
    let dref = match (F, a.dref) {
        (R32F_CMP, Some(d)) => k.dref_value(d[lane]),
        _ => 0.0,
    };
    let op = compare_bits(k.sampler.compare_op);
    let cmp = |v: [f32; 4]| -> [f32; 4] {
        if F == R32F_CMP {
            let pass = compare(op, dref, v[0]);
            [if pass { 1.0 } else { 0.0 }, 0.0, 0.0, 1.0]
        } else {
            v
        }
    };
    // the plane's texels are the format decoder's values, as `decode` gives them
    let fetch = |o: usize| {
        if PL {
            cmp(texels[o].to_array())
        } else {
            cmp(decode::<F>(words[o], srgb))
        }
    };
    // words per texel: 1 for the 8-bit formats (a constant), 1 or 2 for the f32 ones
    // (D32_SFLOAT_S8_UINT); one plane texel
    let ts = if PL {
        1
    } else if F == R32F || F == R32F_CMP {
        k.texel_size / 4
    } else {
        1
    };
    // one probe's filtered value in one level
    let tap = |lv: &Lvl, fp: &Footprint, i: usize| -> [f32; 4] {
        let o = lv.base + fp.j0[i] as usize * lv.pitch + fp.i0[i] as usize * ts;
        if LIN {
            let o01 = o.wrapping_add(fp.dj[i]);
            let top = lerp4(fetch(o), fetch(o.wrapping_add(fp.di[i])), fp.fa[i]);
            let bot = lerp4(fetch(o01), fetch(o01.wrapping_add(fp.di[i])), fp.fa[i]);
            lerp4(top, bot, fp.fb[i])
        } else {
            fetch(o)
        }
    };
    let n = base.probes.max(1);
    let levels = &ll.levels;
    let lvs: [Lvl; 2] = std::array::from_fn(|slot| {
        let (level, wl) = levels.l[if TWO { slot } else { 0 }];
        let info = &k.lv[(view.base_level + level) as usize];
        let (base, pitch) = if PL {
            (
                info.tbase + layer as usize * info.tlayer,
                info.size[0] as usize,
            )
        } else {
            (
                (info.base + layer as usize * info.layer_stride) / 4,
                info.pitch / 4,
            )
        };
        Lvl {
            size: [info.size[0], info.size[1]],
            scale: [info.sizef[0], info.sizef[1]],
            base,
            pitch,
            weight: wl / n as f32,
        }
    });
    let mut acc = [0.0f32; 4];
    let mut p0 = 0;
    // eight bilinear probes at a time from the plane where they all fall inside the level
    #[cfg(target_arch = "x86_64")]
    let wide = PL && LIN && F != R32F_CMP && crate::cpu::avx2();
    while p0 < n {
        #[cfg(target_arch = "x86_64")]
        if wide && p0 <= 8 {
            // SAFETY: the CPU has AVX2 (`cpu::avx2()` is true only then)
            if unsafe { probes8_avx2::<TWO>(texels, &lvs, [c[0], c[1]], base, p0, off, &mut acc) } {
                p0 += 8;
                continue;
            }
        }
        let cnt = (n - p0).min(4) as usize;
        let mut ps = [c[0]; 4];
        let mut pt = [c[1]; 4];
        if n > 1 {
            let p = p0 as usize;
            let kk: [f32; 4] = PROBE_K[n as usize][p..p + 4].try_into().unwrap();
            for i in 0..4 {
                ps[i] += base.major[0] * kk[i];
                pt[i] += base.major[1] * kk[i];
            }
        }
        // probe outer, level inner: the general path's summation order
        let fp0 = footprint::<M, LIN>(&lvs[0], ts, ps, pt, off);
        if TWO {
            let fp1 = footprint::<M, LIN>(&lvs[1], ts, ps, pt, off);
            for i in 0..cnt {
                let v = tap(&lvs[0], &fp0, i);
                for ch in 0..4 {
                    acc[ch] += lvs[0].weight * v[ch];
                }
                let v = tap(&lvs[1], &fp1, i);
                for ch in 0..4 {
                    acc[ch] += lvs[1].weight * v[ch];
                }
            }
        } else {
            for i in 0..cnt {
                let v = tap(&lvs[0], &fp0, i);
                for ch in 0..4 {
                    acc[ch] += lvs[0].weight * v[ch];
                }
            }
        }
        p0 += 4;
    }
    acc.map(f32::to_bits)
}

/// Probes `p0 .. min(p0 + 8, N)` of a lane, bilinear in one or (`TWO`) two levels of the
/// decoded plane, added to `acc` — if every one of the eight probe positions (those past `N`
/// repeat the last) has `|x|, |y| < 2²¹` and its footprint inside each level; otherwise
/// nothing is added and it returns false (the four-probe route then takes them, wrapping).
/// The general path's operations in its order, eight lanes wide: positions `c + major·k`
/// (`c` alone for one probe), per level `s·w + offset − 0.5`, floor (exact in that range),
/// fractions `x − i0` (in [0, 1] there, so the clamp is the identity), then two probes a
/// vector for the three `a + (b − a)·w` lerps and `weight·v`, added to `acc` probe after
/// probe, level after level within a probe.
///
/// Why: the four-probe route spends ~97 instructions a probe on scalar offsets, a bounds
/// check per texel and `[f32; 4]` lerps.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn probes8_avx2<const TWO: bool>(
    texels: &[f32x4],
    lvs: &[Lvl; 2],
    c: [f32; 2],
    base: &LodBase,
    p0: u32,
    off: [f32; 2],
    acc: &mut [f32; 4],
) -> bool {
    use std::arch::x86_64::*;
    let n = base.probes.max(1);
    if n > 16 || p0 > 8 || texels.len() > i32::MAX as usize {
        return false;
    }
    let (ps, pt) = if n > 1 {
        let kk: &[f32; 8] = PROBE_K[n as usize][p0 as usize..p0 as usize + 8]
            .try_into()
            .unwrap();
        // SAFETY: eight f32 from an eight-f32 array
        let kk = unsafe { _mm256_loadu_ps(kk.as_ptr()) };
        (
            _mm256_add_ps(
                _mm256_set1_ps(c[0]),
                _mm256_mul_ps(_mm256_set1_ps(base.major[0]), kk),
            ),
            _mm256_add_ps(
                _mm256_set1_ps(c[1]),
                _mm256_mul_ps(_mm256_set1_ps(base.major[1]), kk),
            ),
        )
    } else {
        (_mm256_set1_ps(c[0]), _mm256_set1_ps(c[1]))
    };
    let Some(f0) = footprint8(texels.len(), &lvs[0], ps, pt, off) else {
        return false;
    };
    let f1 = if TWO {
        let Some(f1) = footprint8(texels.len(), &lvs[1], ps, pt, off) else {
            return false;
        };
        f1
    } else {
        f0
    };
    let tp = texels.as_ptr().cast::<f32>();
    // every `o` of a footprint is `lv.base + j0·w + i0` with `0 ≤ i0 ≤ w − 2`,
    // `0 ≤ j0 ≤ h − 2` and `lv.base + w·h ≤ texels.len()` (`footprint8`), so the texels
    // `o + d` read below (`d ≤ w + 1`) are plane texels, four f32 each
    let tex = |o: i32, d: usize| tp.wrapping_add(4 * (o as usize + d));
    // SAFETY: four f32 from (and, below, to) a four-f32 array
    let mut a = unsafe { _mm_loadu_ps(acc.as_ptr()) };
    let cnt = (n - p0).min(8) as usize;
    // probes `p` and `q` in one level: `weight·v` of each, in the two halves (`q = p`: one
    // probe, in the low half)
    let pair = |f: &Foot8, wt: __m256, p: usize, q: usize| {
        let (o0, o1) = (f.o[p], f.o[q]);
        // SAFETY: plane texels (above)
        let ld = |d: usize| unsafe { _mm256_loadu2_m128(tex(o1, d), tex(o0, d)) };
        let two = |v: &[f32; 8]| _mm256_set_m128(_mm_set1_ps(v[q]), _mm_set1_ps(v[p]));
        let (wa, wb) = (two(&f.fa), two(&f.fb));
        let (t00, t10, t01, t11) = (ld(0), ld(1), ld(f.pitch), ld(f.pitch + 1));
        let top = _mm256_add_ps(t00, _mm256_mul_ps(_mm256_sub_ps(t10, t00), wa));
        let bot = _mm256_add_ps(t01, _mm256_mul_ps(_mm256_sub_ps(t11, t01), wa));
        let v = _mm256_add_ps(top, _mm256_mul_ps(_mm256_sub_ps(bot, top), wb));
        let wv = _mm256_mul_ps(wt, v);
        (_mm256_castps256_ps128(wv), _mm256_extractf128_ps::<1>(wv))
    };
    let (w0, w1) = (_mm256_set1_ps(lvs[0].weight), _mm256_set1_ps(lvs[1].weight));
    let mut p = 0;
    while p + 1 < cnt {
        let (x0, y0) = pair(&f0, w0, p, p + 1);
        if TWO {
            let (x1, y1) = pair(&f1, w1, p, p + 1);
            a = _mm_add_ps(_mm_add_ps(a, x0), x1);
            a = _mm_add_ps(_mm_add_ps(a, y0), y1);
        } else {
            a = _mm_add_ps(_mm_add_ps(a, x0), y0);
        }
        p += 2;
    }
    if p < cnt {
        a = _mm_add_ps(a, pair(&f0, w0, p, p).0);
        if TWO {
            a = _mm_add_ps(a, pair(&f1, w1, p, p).0);
        }
    }
    // SAFETY: as the load above
    unsafe { _mm_storeu_ps(acc.as_mut_ptr(), a) };
    #[cfg(test)]
    WIDE_PROBES.with(|c| c.set(c.get() + cnt));
    true
}

/// Eight probes' bilinear footprints in one level: each one's first plane texel `o`
/// (`(i0, j0)`), the row step and the two fractions.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct Foot8 {
    o: [i32; 8],
    pitch: usize,
    fa: [f32; 8],
    fb: [f32; 8],
}

/// [`probes8_avx2`]'s footprints of eight probe positions `(ps, pt)` in level `lv` of a plane
/// of `len` texels, if every one is in range (`|x|, |y| < 2²¹`) and inside the level.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn footprint8(
    len: usize,
    lv: &Lvl,
    ps: std::arch::x86_64::__m256,
    pt: std::arch::x86_64::__m256,
    off: [f32; 2],
) -> Option<Foot8> {
    use std::arch::x86_64::*;
    let [w, h] = lv.size;
    // the level's rows are `pitch = w` plane texels from `lv.base`, all within the plane
    if w < 2 || h < 2 || lv.pitch != w as usize || lv.base + lv.pitch * h as usize > len {
        return None;
    }
    let half = _mm256_set1_ps(0.5);
    let x = _mm256_sub_ps(
        _mm256_add_ps(
            _mm256_mul_ps(ps, _mm256_set1_ps(lv.scale[0])),
            _mm256_set1_ps(off[0]),
        ),
        half,
    );
    let y = _mm256_sub_ps(
        _mm256_add_ps(
            _mm256_mul_ps(pt, _mm256_set1_ps(lv.scale[1])),
            _mm256_set1_ps(off[1]),
        ),
        half,
    );
    let abs = _mm256_castsi256_ps(_mm256_set1_epi32(i32::MAX));
    let small = _mm256_set1_ps(2_097_152.0);
    let fine = _mm256_and_ps(
        _mm256_cmp_ps::<_CMP_LT_OQ>(_mm256_and_ps(x, abs), small),
        _mm256_cmp_ps::<_CMP_LT_OQ>(_mm256_and_ps(y, abs), small),
    );
    let i0 = _mm256_cvttps_epi32(_mm256_floor_ps(x));
    let j0 = _mm256_cvttps_epi32(_mm256_floor_ps(y));
    // inside: `0 ≤ i0 < w − 1` ⇔ `min(i0, w − 2) = i0` as unsigned (a negative one is huge)
    let below =
        |v: __m256i, m: i32| _mm256_cmpeq_epi32(_mm256_min_epu32(v, _mm256_set1_epi32(m)), v);
    let ok = _mm256_and_si256(
        _mm256_castps_si256(fine),
        _mm256_and_si256(below(i0, w - 2), below(j0, h - 2)),
    );
    if _mm256_movemask_ps(_mm256_castsi256_ps(ok)) != 0xff {
        return None;
    }
    // `x − i0` with `i0` converted back, as the general path's `x − i0 as f32`
    let fa = _mm256_sub_ps(x, _mm256_cvtepi32_ps(i0));
    let fb = _mm256_sub_ps(y, _mm256_cvtepi32_ps(j0));
    // `lv.base + w·h ≤ len ≤ i32::MAX` (checked by the caller), so no sum overflows
    let o = _mm256_add_epi32(
        _mm256_set1_epi32(lv.base as i32),
        _mm256_add_epi32(_mm256_mullo_epi32(j0, _mm256_set1_epi32(w)), i0),
    );
    let mut f = Foot8 {
        o: [0; 8],
        pitch: lv.pitch,
        fa: [0.0; 8],
        fb: [0.0; 8],
    };
    // SAFETY: 32-byte stores into 32-byte arrays
    unsafe {
        _mm256_storeu_si256(f.o.as_mut_ptr().cast(), o);
        _mm256_storeu_ps(f.fa.as_mut_ptr(), fa);
        _mm256_storeu_ps(f.fb.as_mut_ptr(), fb);
    }
    Some(f)
}

// Test hook: probes [`probes8_avx2`] has added on this thread (tests check that their random
// quads reach it).
#[cfg(test)]
thread_local! {
    static WIDE_PROBES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

#[cfg(test)]
mod tests {
    //! The anisotropic route against the general path (which `super::super::tests` holds to
    //! the f64 reference sampler): the same bits, lane for lane, over random views, formats,
    //! samplers, policies, anisotropy ratios (1 to far past 16) and LOD sources.

    use super::super::fast::tests::{
        coord, fast_matches_general, lane4, random_2d_args, random_2d_view, random_config,
        random_lod, random_modes, random_sampler, Rng, BYTE_FORMATS,
    };
    use super::super::*;
    use proptest::prelude::*;

    /// Normalized derivatives `(dX, dY)` of an elliptical footprint on a `size` texel level:
    /// a major axis of 1/4 to 64 texels at a random angle and a minor axis `ratio` times
    /// shorter, the ratio spread over isotropic, below, at and far past 16:1 (sometimes
    /// degenerate: a zero minor axis); either axis may be the major one.
    fn aniso_derivs(r: &mut Rng, size: [f32; 2]) -> ([f32; 3], [f32; 3]) {
        let major = 2f32.powf(r.f(-2.0, 6.0));
        let ratio = match r.below(8) {
            0 => 1.0,
            1 => r.f(1.0, 2.0),
            2 => r.f(2.0, 8.0),
            3 => r.f(8.0, 16.0),
            4 => 16.0,
            5 => r.f(16.0, 64.0),
            6 => 1000.0,
            _ => f32::INFINITY, // minor axis 0
        };
        let angle = if r.chance(30) {
            (r.below(4) as f32) * std::f32::consts::FRAC_PI_2 // axis-aligned
        } else {
            r.f(0.0, std::f32::consts::TAU)
        };
        let (sin, cos) = angle.sin_cos();
        let minor = major / ratio;
        let a = [major * cos / size[0], major * sin / size[1], 0.0];
        let b = [-minor * sin / size[0], minor * cos / size[1], 0.0];
        if r.chance(50) {
            (a, b)
        } else {
            (b, a)
        }
    }

    /// One random anisotropic quad; returns whether the route served it, after checking it
    /// gives the general path's bits.
    fn one(seed: u64) -> bool {
        let mut r = Rng(seed | 1);
        let fmt = BYTE_FORMATS[r.below(BYTE_FORMATS.len() as u64) as usize];
        let (img, view) = random_2d_view(&mut r, fmt);
        let modes = random_modes(&mut r);
        let mut sampler = random_sampler(&mut r, fmt, modes, 100);
        sampler.max_anisotropy = match r.below(5) {
            0 => 2.0,
            1 => 4.0,
            2 => 16.0,
            _ => r.f(2.0, 16.0),
        };
        let cfg = random_config(&mut r);
        let e = view.level_extent(&img, 0);
        let size = [e[0] as f32, e[1] as f32];
        // lane 0 plus the footprint's axes (sometimes bent per lane, for fine derivatives)
        let c0 = [coord(&mut r), coord(&mut r), r.f(-1.0, 4.0), 0.0];
        let (dx, dy) = aniso_derivs(&mut r, size);
        let bend = if r.chance(30) { r.f(0.0, 0.01) } else { 0.0 };
        let mut coords = [c0; 4];
        for (lane, c) in coords.iter_mut().enumerate() {
            let (x, y) = ((lane & 1) as f32, (lane >> 1) as f32);
            c[0] += x * dx[0] + y * dy[0] + bend * r.f(-1.0, 1.0);
            c[1] += x * dx[1] + y * dy[1] + bend * r.f(-1.0, 1.0);
        }
        let lod = match r.below(10) {
            0..=3 => LodMode::Implicit {
                bias: if r.chance(60) {
                    [0.0; 4]
                } else {
                    lane4(&mut r, -2.0, 2.0)
                },
                fine: r.chance(30),
            },
            4 | 5 => LodMode::Grad {
                dx: [dx; 4],
                dy: [dy; 4],
            },
            6 | 7 => {
                // per-lane footprints: lanes differ in probe count and level
                let d: [_; 4] = std::array::from_fn(|_| aniso_derivs(&mut r, size));
                LodMode::Grad {
                    dx: d.map(|d| d.0),
                    dy: d.map(|d| d.1),
                }
            }
            _ => random_lod(&mut r, 2),
        };
        let a = random_2d_args(&mut r, coords, lod, &sampler);
        fast_matches_general(seed, fmt, (&img, &view), &sampler, cfg, &a)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(6000))]
        #[test]
        fn aniso_route_equals_general_path(seed in any::<u64>()) {
            one(seed);
        }
    }

    #[test]
    fn most_random_aniso_quads_take_the_route() {
        let served = (1..=3000u64)
            .filter(|&s| one(s.wrapping_mul(0x9e37_79b9_7f4a_7c15)))
            .count();
        assert!(
            served > 1500,
            "the anisotropic route served {served} of 3000"
        );
    }

    /// One random quad of the eight-probe route's kind (bilinear in one or two levels of a
    /// 16 to 96 texel image, footprints of 1/4 to 64 texels near the middle, any non-border address
    /// mode, a byte route's format without compare); returns whether the route served it,
    /// after checking it gives the general path's bits.
    fn wide_one(seed: u64) -> bool {
        let mut r = Rng(seed | 1);
        let fmt = BYTE_FORMATS[r.below(BYTE_FORMATS.len() as u64) as usize];
        let (w, h) = (16 + r.below(81) as u32, 16 + r.below(81) as u32);
        let layers = 1 + r.below(2) as u32;
        let mut img = Image::new_2d(fmt, w, h, layers, 3).unwrap();
        for b in img.bytes_mut() {
            *b = r.next() as u8;
        }
        let array = r.chance(50);
        let view = ImageView::whole(
            &img,
            if array {
                ViewType::D2Array
            } else {
                ViewType::D2
            },
        );
        let mode = [
            AddressMode::Repeat,
            AddressMode::MirroredRepeat,
            AddressMode::ClampToEdge,
            AddressMode::MirrorClampToEdge,
        ][r.below(4) as usize];
        let sampler = Sampler {
            anisotropy_enable: true,
            max_anisotropy: if r.chance(50) { 16.0 } else { r.f(2.0, 16.0) },
            mipmap_mode: if r.chance(50) {
                MipmapMode::Nearest
            } else {
                MipmapMode::Linear
            },
            mip_lod_bias: if r.chance(70) { 0.0 } else { r.f(-1.0, 1.0) },
            ..Sampler::trilinear(mode)
        };
        let size = [w as f32, h as f32];
        let c0 = [r.f(0.2, 0.8), r.f(0.2, 0.8), r.f(0.0, 2.0), 0.0];
        let (dx, dy) = aniso_derivs(&mut r, size);
        let mut coords = [c0; 4];
        for (lane, c) in coords.iter_mut().enumerate() {
            let (x, y) = ((lane & 1) as f32, (lane >> 1) as f32);
            c[0] += x * dx[0] + y * dy[0];
            c[1] += x * dx[1] + y * dy[1];
        }
        let lod = if r.chance(50) {
            LodMode::Implicit {
                bias: [0.0; 4],
                fine: r.chance(30),
            }
        } else {
            let d: [_; 4] = std::array::from_fn(|_| aniso_derivs(&mut r, size));
            LodMode::Grad {
                dx: d.map(|d| d.0),
                dy: d.map(|d| d.1),
            }
        };
        let mut a = SampleArgs::new(coords);
        a.lod = lod;
        a.mask = 1 + r.below(15) as u8;
        if r.chance(20) {
            a.offsets = [[r.below(5) as i32 - 2, r.below(5) as i32 - 2, 0]; 4];
        }
        fast_matches_general(seed, fmt, (&img, &view), &sampler, Config::default(), &a)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        #[test]
        fn eight_probe_route_equals_general_path(seed in any::<u64>()) {
            wide_one(seed);
        }
    }

    #[test]
    fn random_wide_quads_reach_the_eight_probe_route() {
        if !crate::cpu::avx2() {
            return;
        }
        let before = super::WIDE_PROBES.with(|c| c.get());
        for s in 1..=2000u64 {
            wide_one(s.wrapping_mul(0x2545_f491_4f6c_dd1d));
        }
        let wide = super::WIDE_PROBES.with(|c| c.get()) - before;
        assert!(wide > 5_000, "the eight-probe route added {wide} probes");
    }

    #[test]
    fn probe_table_is_the_formula() {
        for n in 2..=16u32 {
            for p in 0..n {
                // the general path's expression, evaluated at run time
                let k = -0.5 + std::hint::black_box(p + 1) as f32 / (n + 1) as f32;
                assert_eq!(
                    super::PROBE_K[n as usize][p as usize].to_bits(),
                    k.to_bits(),
                    "{n} {p}"
                );
            }
            let last = super::PROBE_K[n as usize][n as usize - 1];
            assert!(super::PROBE_K[n as usize][n as usize..]
                .iter()
                .all(|&k| k == last));
        }
    }

    /// The bench's quad (16:1 footprint, 16 probes at λ = 0, bilinear) with per-lane probe
    /// counts: lane 1's footprint 3:1, lane 2's 40:1 clamped to 16, lane 3 isotropic.
    #[test]
    fn mixed_probe_counts_equal_the_general_path() {
        let mut img = Image::new_2d(Format::R8G8B8A8_UNORM, 64, 32, 1, 7).unwrap();
        let mut r = Rng(99);
        for b in img.bytes_mut() {
            *b = r.next() as u8;
        }
        let view = ImageView::whole(&img, ViewType::D2);
        let s = Sampler {
            anisotropy_enable: true,
            max_anisotropy: 16.0,
            ..Sampler::trilinear(AddressMode::Repeat)
        };
        let k = Kernel::new(&img, &view, &s, Config::default()).unwrap();
        assert!(k.has_fast_path());
        let mut a = SampleArgs::new(std::array::from_fn(|l| {
            [0.3 + 0.1 * l as f32, 0.6 - 0.07 * l as f32, 0.0, 0.0]
        }));
        let t = |x: f32, y: f32| [x / 64.0, y / 32.0, 0.0];
        a.lod = LodMode::Grad {
            dx: [t(16.0, 0.0), t(3.0, 3.0), t(0.0, 40.0), t(2.0, 0.0)],
            dy: [t(0.0, 1.0), t(-1.0, 1.0), t(1.0, 0.0), t(0.0, 2.0)],
        };
        let bases = k.lod_bases(&a.coords, &a.lod);
        assert_eq!(bases.map(|b| b.probes), [16, 3, 16, 1]);
        let fast = k.sample_fast_only(&img, &a).unwrap();
        assert_eq!(fast, k.sample_general(&img, &a).unwrap());
        assert_eq!(k.sample(&img, &a).unwrap(), fast);
    }
}
