//! The quad-wide fast paths of [`Kernel::sample`]: chosen once per kernel ([`pick_fast`]),
//! they serve exact-precision, normalized, non-anisotropic quads (anisotropic kernels get
//! `fast_aniso.rs`'s route) and leave the rest to the general path.
//!
//! Routes, by what the kernel's image has:
//! - **Plane** ([`PLANE`], [`PLANE_CMP`]): every float-kind format whose image has a decoded
//!   plane (`Image::plane`, at most `PLANE_MAX_TEXELS`), 2D / 2D-array views with one address
//!   mode on both axes out of repeat, mirrored repeat, clamp-to-edge, and cube / cube-array
//!   views; with or without Dref. The quad routine is `fast_plane.rs`'s.
//! - **Bytes** (the other codes): images over the plane bound, R8G8B8A8/B8G8R8A8 UNORM/SRGB
//!   and single-f32 formats read and decoded per texel by [`quad_in`] (also the batch path's
//!   `wide` for them).
//!
//! [`fast_quad`] selects levels once for a quad whose active lanes share (λ_base, bias,
//! MinLod) — then level addressing is scalar (`UNI`) — and per lane otherwise; [`quad`]
//! takes the operands apart ([`QuadIn`]: lane-wise coordinates, absolute layers, offsets
//! only when some are non-zero, Dref after the UNORM clamp; cubes: face coordinates from
//! [`Kernel::locate`], λ from the general per-lane cube LOD). A quad leaves the fast path
//! (`None`) when its lanes disagree on the texel filter (λ crossing 0 with min ≠ mag), when
//! a lane gets the D3D out-of-range-MinLod result, or when the route returns `None` (cube
//! footprints leaving their face). Arithmetic is the general path's operation for
//! operation, and `tests::fast_path_equals_general_path` and
//! `tests::cube_fast_path_equals_general_path` demand its bits.
//!
//! The byte routes (figures before the plane; callgrind instructions per quad): wraps are
//! lane-wise (`wrap4`) and footprints of neighbouring texels are read as pairs with one bounds
//! check; 8-bit formats have a one-word texel; f32 formats on a tightly packed power-of-two
//! level read `lvl[o & (len − 1)]`. Per quad they stood at trilinear 1317, bilinear 941,
//! nearest 735, Dref PCF 981, cube trilinear 2343; the plane routes (with AVX2) take them to
//! 1006, 804, 691, 799, 2029 — the rest of the per-quad entry is `Kernel::sample`'s own
//! (λ per quad with `log2f`, level selection, clamps), which the batch path amortises.

use super::address::{wrap4, CLAMP, MIRRORED, REPEAT};
use super::fast_plane::{lane_levels, plane_mode, plane_quad_cmp, plane_quad_n, uni_levels};
use super::filter::{lerp4, LevelInfo};
use super::format::{Aspect, Format, SRGB_TABLE, UNORM8};
use super::image::{Image, ViewType};
use super::lod::{LodBase, LodMode};
use super::sample::{layer_index, Kernel, LaneLod, SampleArgs};
use super::sampler::{CompareOp, LodPrecision};
use super::QuadBits;

/// A fast quad routine; `None`: this quad needs the general path.
pub(super) type FastFn = fn(&Kernel, &Image, &SampleArgs, &[LodBase; 4]) -> Option<QuadBits>;

/// Fast format: R8G8B8A8_UNORM.
pub(super) const RGBA8: u8 = 0;
/// Fast format: B8G8R8A8_UNORM.
pub(super) const BGRA8: u8 = 1;
/// Fast format: R8G8B8A8_SRGB.
pub(super) const SRGBA8: u8 = 2;
/// Fast format: B8G8R8A8_SRGB.
pub(super) const SBGRA8: u8 = 3;
/// Fast format: one f32 in the first 4 bytes (R32_SFLOAT, depth of D32_SFLOAT[_S8_UINT]).
pub(super) const R32F: u8 = 4;
/// [`R32F`] with a depth comparison per texel (compare, then filter).
pub(super) const R32F_CMP: u8 = 5;
/// Any float-kind format, read from the image's decoded plane (`fast_plane.rs`).
pub(super) const PLANE: u8 = 6;
/// [`PLANE`] with a depth comparison per texel.
pub(super) const PLANE_CMP: u8 = 7;

/// `CompareOp` as a bit set over the outcomes (less, equal, greater, unordered), so a test
/// is branch-free: `ref OP texel` ⇔ the bit of the outcome is set.
pub(super) fn compare_bits(op: CompareOp) -> u32 {
    const LT: u32 = 1;
    const EQ: u32 = 2;
    const GT: u32 = 4;
    const UN: u32 = 8;
    match op {
        CompareOp::Never => 0,
        CompareOp::Less => LT,
        CompareOp::Equal => EQ,
        CompareOp::LessOrEqual => LT | EQ,
        CompareOp::Greater => GT,
        CompareOp::NotEqual => LT | GT | UN,
        CompareOp::GreaterOrEqual => GT | EQ,
        CompareOp::Always => LT | EQ | GT | UN,
    }
}

/// `ref OP texel` for an op given by [`compare_bits`].
#[inline(always)]
pub(super) fn compare(bits: u32, r: f32, t: f32) -> bool {
    let outcome = (r < t) as u32 | ((r == t) as u32) << 1 | ((r > t) as u32) << 2;
    let outcome = if outcome == 0 { 8 } else { outcome };
    bits & outcome != 0
}

/// The fast format code of a kernel's (format, aspect, compare), if it is covered.
pub(super) fn fast_format(k: &Kernel) -> Option<u8> {
    let s = &k.sampler;
    let f = match (k.format, k.view.aspect) {
        (Format::R8G8B8A8_UNORM, _) => RGBA8,
        (Format::B8G8R8A8_UNORM, _) => BGRA8,
        (Format::R8G8B8A8_SRGB, _) => SRGBA8,
        (Format::B8G8R8A8_SRGB, _) => SBGRA8,
        (Format::R32_SFLOAT, _)
        | (Format::D32_SFLOAT | Format::D32_SFLOAT_S8_UINT, Aspect::Depth | Aspect::Color) => {
            if s.compare_enable {
                R32F_CMP
            } else {
                R32F
            }
        }
        _ => return None,
    };
    if s.compare_enable && f != R32F_CMP {
        return None; // compare on colour formats: the general path
    }
    Some(f)
}

/// The fast routine for a kernel, if its (view, sampler, format, config) is covered.
pub(super) fn pick_fast(k: &Kernel) -> Option<FastFn> {
    let s = &k.sampler;
    if k.aniso.is_some() {
        return super::fast_aniso::pick_fast_aniso(k);
    }
    if k.cfg.precision != LodPrecision::Exact || s.unnormalized_coordinates {
        return None;
    }
    if k.cube && k.plane {
        return Some(if s.compare_enable {
            plane_fast::<PLANE_CMP, CLAMP, true> as FastFn
        } else {
            plane_fast::<PLANE, CLAMP, true>
        });
    }
    if k.cube {
        let f = fast_format(k)?;
        // cube faces clamp (seamless edges are the general path's): address modes unused
        return Some(match f {
            RGBA8 => fast_quad::<RGBA8, CLAMP, true>,
            BGRA8 => fast_quad::<BGRA8, CLAMP, true>,
            SRGBA8 => fast_quad::<SRGBA8, CLAMP, true>,
            SBGRA8 => fast_quad::<SBGRA8, CLAMP, true>,
            R32F => fast_quad::<R32F, CLAMP, true>,
            _ => fast_quad::<R32F_CMP, CLAMP, true>,
        });
    }
    if !matches!(k.view.view_type, ViewType::D2 | ViewType::D2Array) {
        return None;
    }
    let m = k.modes[0];
    if k.modes[1] != m {
        return None;
    }
    if k.plane && plane_mode(m) {
        return Some(match (m, s.compare_enable) {
            (REPEAT, false) => plane_fast::<PLANE, REPEAT, false> as FastFn,
            (MIRRORED, false) => plane_fast::<PLANE, MIRRORED, false>,
            (_, false) => plane_fast::<PLANE, CLAMP, false>,
            (REPEAT, true) => plane_fast::<PLANE_CMP, REPEAT, false>,
            (MIRRORED, true) => plane_fast::<PLANE_CMP, MIRRORED, false>,
            (_, true) => plane_fast::<PLANE_CMP, CLAMP, false>,
        });
    }
    let f = fast_format(k)?;
    macro_rules! by_mode {
        ($f:ident) => {
            match m {
                REPEAT => fast_quad::<$f, REPEAT, false> as FastFn,
                MIRRORED => fast_quad::<$f, MIRRORED, false> as FastFn,
                CLAMP => fast_quad::<$f, CLAMP, false> as FastFn,
                _ => return None,
            }
        };
    }
    Some(match f {
        RGBA8 => by_mode!(RGBA8),
        BGRA8 => by_mode!(BGRA8),
        SRGBA8 => by_mode!(SRGBA8),
        SBGRA8 => by_mode!(SBGRA8),
        R32F => by_mode!(R32F),
        _ => by_mode!(R32F_CMP),
    })
}

/// [`fast_quad`] for the plane routes ([`PLANE`], [`PLANE_CMP`]): compiled for AVX2 (VEX
/// encoding, no FMA: the same roundings) when the CPU has it.
fn plane_fast<const F: u8, const M: u8, const CUBE: bool>(
    k: &Kernel,
    img: &Image,
    a: &SampleArgs,
    bases: &[LodBase; 4],
) -> Option<QuadBits> {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::avx2() {
        // SAFETY: the CPU has AVX2 (`cpu::avx2()` is true only then)
        return unsafe { plane_fast_avx2::<F, M, CUBE>(k, img, a, bases) };
    }
    fast_quad::<F, M, CUBE>(k, img, a, bases)
}

/// [`fast_quad`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn plane_fast_avx2<const F: u8, const M: u8, const CUBE: bool>(
    k: &Kernel,
    img: &Image,
    a: &SampleArgs,
    bases: &[LodBase; 4],
) -> Option<QuadBits> {
    fast_quad::<F, M, CUBE>(k, img, a, bases)
}

/// Level selection for the quad (shared between lanes with equal inputs, as in the general
/// path), then the quad-wide filter for the common texel filter.
#[inline(always)]
fn fast_quad<const F: u8, const M: u8, const CUBE: bool>(
    k: &Kernel,
    img: &Image,
    a: &SampleArgs,
    bases: &[LodBase; 4],
) -> Option<QuadBits> {
    let mask = a.mask & 0xf;
    if mask == 0 {
        return Some([[0; 4]; 4]);
    }
    let first = mask.trailing_zeros() as usize;
    let bias = match a.lod {
        LodMode::Implicit { bias, .. } => bias,
        _ => [0.0; 4],
    };
    let min_lod = a.min_lod.unwrap_or([f32::NEG_INFINITY; 4]);
    let key = |l: usize| [bases[l].lambda, bias[l], min_lod[l]].map(f32::to_bits);
    let k0 = key(first);
    let uniform = (0..4).all(|l| mask & (1 << l) == 0 || key(l) == k0);
    let mut lods = [k.lane_lod(bases[first].lambda, bias[first], min_lod[first])?; 4];
    if !uniform {
        // per-lane λ (explicit Lod, Grad, fine derivatives, per-lane bias or MinLod)
        for lane in first + 1..4 {
            if mask & (1 << lane) != 0 {
                lods[lane] = k.lane_lod(bases[lane].lambda, bias[lane], min_lod[lane])?;
            }
        }
    }
    let linear = lods[first].linear;
    for lane in 0..4 {
        if mask & (1 << lane) == 0 {
            lods[lane] = lods[first]; // any valid level: the result is dropped
        } else if lods[lane].linear != linear {
            return None;
        }
    }
    // `uniform` as a const parameter: the one-level-set quad (the usual one) gets a routine
    // whose level addressing is scalar
    let mut out = match (linear, uniform) {
        (true, true) => quad::<F, M, true, CUBE, true>(k, img, a, &lods)?,
        (true, false) => quad::<F, M, true, CUBE, false>(k, img, a, &lods)?,
        (false, true) => quad::<F, M, false, CUBE, true>(k, img, a, &lods)?,
        (false, false) => quad::<F, M, false, CUBE, false>(k, img, a, &lods)?,
    };
    for (lane, o) in out.iter_mut().enumerate() {
        if mask & (1 << lane) == 0 {
            *o = [0; 4];
        }
    }
    Some(out)
}

/// Decodes the first four bytes of a texel to f32 RGBA. UNORM is `c / 255` in f32, which is
/// exactly the decoder's table entry (`UNORM8[c] = c as f32 / 255.0`) but vectorises (one
/// widening, one conversion, one division for the four components); sRGB uses the decoder's
/// table for R, G, B.
#[inline(always)]
pub(super) fn decode<const F: u8>(b: [u8; 4], srgb: &[f32; 256]) -> [f32; 4] {
    let n = |i: usize| b[i] as f32 / 255.0;
    let s = |i: usize| srgb[b[i] as usize];
    match F {
        RGBA8 => [n(0), n(1), n(2), n(3)],
        BGRA8 => [n(2), n(1), n(0), n(3)],
        SRGBA8 => [s(0), s(1), s(2), UNORM8[b[3] as usize]],
        SBGRA8 => [s(2), s(1), s(0), UNORM8[b[3] as usize]],
        _ => [f32::from_le_bytes(b), 0.0, 0.0, 1.0],
    }
}

/// The decode table [`decode`] reads a fast 8-bit format's colour channels through: sRGB
/// for the sRGB formats, UNORM otherwise (their alpha always decodes as UNORM).
#[inline(always)]
pub(super) fn colour_table<const F: u8>() -> &'static [f32; 256] {
    if F == SRGBA8 || F == SBGRA8 {
        &SRGB_TABLE
    } else {
        &UNORM8
    }
}

/// The bilinear footprints of four texel-space positions `(u, v)`: the lower texel of each
/// axis, `floor(u − 0.5)`, and the weight toward the upper one, `(u − 0.5) − floor` clamped to
/// [0, 1] (the general path's `split` of `u − 0.5` in `filter.rs`, on both axes, lane-wise).
#[inline(always)]
pub(super) fn bilinear4(u: [f32; 4], v: [f32; 4]) -> ([[i32; 4]; 2], [[f32; 4]; 2]) {
    let mut x = [0f32; 4];
    let mut y = [0f32; 4];
    for l in 0..4 {
        x[l] = u[l] - 0.5;
        y[l] = v[l] - 0.5;
    }
    let i0 = floor4(x);
    let j0 = floor4(y);
    let mut fa = [0f32; 4];
    let mut fb = [0f32; 4];
    for l in 0..4 {
        fa[l] = (x[l] - i0[l] as f32).clamp(0.0, 1.0);
        fb[l] = (y[l] - j0[l] as f32).clamp(0.0, 1.0);
    }
    ([i0, j0], [fa, fb])
}

/// `floor(x)` as i32, saturating, NaN → 0 (the general path's `fl`), four lanes.
///
/// When every `|x| < 2²¹` (the usual case) it avoids the saturating conversion: adding
/// `1.5·2²³` rounds `x` to the nearest integer `r` in the low mantissa bits (exact in this
/// range), and `floor = r − (r > x)`; all steps are plain SSE2 lane operations. Otherwise
/// (huge or NaN coordinates) it takes the scalar saturating route.
#[inline(always)]
pub(super) fn floor4(x: [f32; 4]) -> [i32; 4] {
    const MAGIC: f32 = 12_582_912.0; // 1.5·2²³
    let small = x.iter().fold(true, |ok, v| ok & (v.abs() < 2_097_152.0));
    let mut o = [0i32; 4];
    if small {
        for l in 0..4 {
            let y = x[l] + MAGIC;
            let r = (y.to_bits() as i32).wrapping_sub(MAGIC.to_bits() as i32);
            o[l] = r - ((y - MAGIC > x[l]) as i32);
        }
        return o;
    }
    for l in 0..4 {
        let i = x[l] as i32;
        o[l] = if (i as f32) > x[l] {
            i.saturating_sub(1)
        } else {
            i
        };
    }
    o
}

/// `floor(x)` and `floor(x) + 1` (saturating) as i32, four lanes ([`floor4`]'s two routes:
/// in the usual `|x| < 2²¹` range the `+ 1` cannot overflow, so it is a plain add there
/// instead of a lane-wise saturating add, ~8 SSE2 instructions per axis).
#[inline(always)]
fn floor4_next(x: [f32; 4]) -> ([i32; 4], [i32; 4]) {
    const MAGIC: f32 = 12_582_912.0; // 1.5·2²³
    let small = x.iter().fold(true, |ok, v| ok & (v.abs() < 2_097_152.0));
    let mut o = [0i32; 4];
    let mut n = [0i32; 4];
    if small {
        for l in 0..4 {
            let y = x[l] + MAGIC;
            let r = (y.to_bits() as i32).wrapping_sub(MAGIC.to_bits() as i32);
            o[l] = r - ((y - MAGIC > x[l]) as i32);
            n[l] = o[l] + 1;
        }
        return (o, n);
    }
    let o = floor4(x);
    (o, o.map(|i| i.saturating_add(1)))
}

/// A quad's operands as [`quad_in`] reads them, lane-wise (what [`quad`] takes out of a
/// [`SampleArgs`], and what the batch path has in its rows).
#[derive(Clone, Copy, Debug)]
pub(super) struct QuadIn {
    /// Texture coordinates (cubes: face coordinates in [0, 1]).
    pub s: [f32; 4],
    /// Second coordinate.
    pub t: [f32; 4],
    /// Absolute array layers (cubes: `6·cube + face`).
    pub layer: [u32; 4],
    /// Every lane has `layer[0]` (a scalar level base for uniform levels).
    pub one_layer: bool,
    /// Texel offsets as f32; `None` when every lane's are zero, and then `u = s·w` alone:
    /// `s·w + 0` differs from it only for `s·w = −0`, which floors and splits as +0 does.
    pub off: Option<([f32; 4], [f32; 4])>,
    /// Dref per lane (after [`Kernel::dref_value`]), for [`R32F_CMP`].
    pub dref: [f32; 4],
}

/// The four lanes with one texel filter (`LIN`) and per-lane levels. `CUBE`: face
/// coordinates and layers from [`Kernel::locate`] (face selection and the `0.5·(sc/|ma| + 1)`
/// mapping of `cube.rs`), no offsets, clamped nearest texels, and `None` when a linear
/// footprint leaves its face (seamless edges and corners: the general path). `UNI`: every
/// lane has the same levels (lane `first`'s, as for inactive lanes), so level addressing is
/// scalar.
#[inline(always)]
pub(super) fn quad<const F: u8, const M: u8, const LIN: bool, const CUBE: bool, const UNI: bool>(
    k: &Kernel,
    img: &Image,
    a: &SampleArgs,
    lods: &[LaneLod; 4],
) -> Option<QuadBits> {
    let view = &k.view;
    let c = &a.coords;
    let mut q = QuadIn {
        s: std::array::from_fn(|l| c[l][0]),
        t: std::array::from_fn(|l| c[l][1]),
        layer: [view.base_layer; 4],
        one_layer: true,
        off: None,
        dref: [0.0; 4],
    };
    if CUBE {
        // inactive lanes take the first active lane's direction (their result is dropped; it
        // must not send the quad to the general path)
        let mask = a.mask & 0xf;
        let first = mask.trailing_zeros() as usize & 3;
        for l in 0..4 {
            let lane = if mask & (1 << l) != 0 { l } else { first };
            let (st, lay, _) = k.locate(&c[lane]);
            q.s[l] = st[0];
            q.t[l] = st[1];
            q.layer[l] = lay;
        }
        q.one_layer = false;
    } else {
        if view.view_type == ViewType::D2Array {
            q.layer =
                std::array::from_fn(|l| view.base_layer + layer_index(c[l][2], view.layer_count));
            q.one_layer = false;
        }
        if a.offsets.iter().any(|o| o[0] != 0 || o[1] != 0) {
            let off: [[i32; 3]; 4] = std::array::from_fn(|l| k.offset_bits(a.offsets[l], 4));
            q.off = Some((off.map(|o| o[0] as f32), off.map(|o| o[1] as f32)));
        }
    }
    if let (R32F_CMP | PLANE_CMP, Some(d)) = (F, a.dref) {
        q.dref = d.map(|r| k.dref_value(r));
    }
    if F == PLANE || F == PLANE_CMP {
        let plane = img.plane()?;
        let mut scratch = [k.plane_levels.first().copied()?; 2];
        let lv = if UNI {
            uni_levels(k, &lods[0], q.layer, q.one_layer)?
        } else {
            lane_levels(k, lods, q.layer, &mut scratch)?
        };
        let acc = if F == PLANE_CMP {
            plane_quad_cmp::<M, LIN, UNI, 0, CUBE>(plane, &q, &lv, k.sampler.compare_op)?
        } else {
            plane_quad_n::<M, LIN, UNI, 0, CUBE>(plane, &q, &lv, k.snorm)?
        };
        return Some(wide::bytemuck::cast(acc));
    }
    // (levels looked up inside: doing it first with `slot_levels` cost the per-quad path
    // ~10 instructions per quad)
    let acc = quad_in::<F, M, LIN, CUBE, UNI>(k, img, &q, lods, None)?;
    Some(to_bits(&acc))
}

/// The bits of four RGBA f32 results (a plain loop: `acc.map(|l| l.map(f32::to_bits))`
/// compiled to four out-of-line `try_map` calls per quad).
#[inline(always)]
pub(super) fn to_bits(acc: &[[f32; 4]; 4]) -> QuadBits {
    let mut o = [[0u32; 4]; 4];
    for l in 0..4 {
        for ch in 0..4 {
            o[l][ch] = acc[l][ch].to_bits();
        }
    }
    o
}

/// A uniform quad's level in one slot, looked up once ([`slot_levels`]; the batch path
/// keeps it while neighbouring quads select the same levels).
#[derive(Clone, Copy, Debug)]
pub(super) struct SlotLevel<'k> {
    /// The level's weight.
    pub weight: f32,
    /// Size and addressing of the (absolute) level.
    pub info: &'k LevelInfo,
    /// The level is a power of two on both axes ([`wrap4`]'s mask forms).
    pub p2: bool,
    /// Word offset of the level's texel 0 on the layer the levels were looked up for.
    pub base0: usize,
}

/// Uniform levels (`lod`: every lane's) looked up for [`quad_in`]: how many, and each one's
/// [`SlotLevel`] with its base on absolute layer `layer0`.
#[inline(always)]
pub(super) fn slot_levels<'k>(
    k: &'k Kernel,
    lod: &LaneLod,
    layer0: u32,
) -> (usize, [SlotLevel<'k>; 2]) {
    let one = |(level, weight): (u32, f32)| {
        let abs = k.view.base_level + level;
        let info = &k.lv[abs as usize];
        SlotLevel {
            weight,
            info,
            p2: k.pow2_level(abs),
            base0: (info.base + layer0 as usize * info.layer_stride) / 4,
        }
    };
    let l0 = one(lod.levels.l[0]);
    let l1 = if lod.levels.n == 2 {
        one(lod.levels.l[1])
    } else {
        l0
    };
    (lod.levels.n, [l0, l1])
}

/// [`quad`] on operands already taken apart ([`QuadIn`]): the per-quad path's and the batch
/// path's shared routine. `lods`: four lanes' levels (`UNI`: lane 0's are every lane's);
/// `uni` (`UNI` only): the uniform quad's levels already looked up ([`slot_levels`] for
/// its layer `q.layer[0]`), then `lods` is not read.
#[inline(always)]
pub(super) fn quad_in<
    const F: u8,
    const M: u8,
    const LIN: bool,
    const CUBE: bool,
    const UNI: bool,
>(
    k: &Kernel,
    img: &Image,
    q: &QuadIn,
    lods: &[LaneLod],
    uni: Option<&(usize, [SlotLevel; 2])>,
) -> Option<[[f32; 4]; 4]> {
    // texels as 4-byte words: one bounds check per read (every fast format's texel starts
    // on a 4-byte boundary and its first 4 bytes hold what is read)
    let (words, _) = img.bytes().as_chunks::<4>();
    let srgb = colour_table::<F>();
    let view = &k.view;
    // texel size in words: one for the 8-bit formats (a constant, no multiplies)
    let ts = if F < R32F { 1 } else { k.texel_size / 4 };
    let (s, t, layer) = (q.s, q.t, q.layer);
    let dref = q.dref;
    let op = compare_bits(k.sampler.compare_op);
    let texel = |b: [u8; 4], lane: usize| -> [f32; 4] {
        let v = decode::<F>(b, srgb);
        if F == R32F_CMP {
            let pass = compare(op, dref[lane], v[0]);
            [if pass { 1.0 } else { 0.0 }, 0.0, 0.0, 1.0]
        } else {
            v
        }
    };
    let fetch = |o: usize, lane: usize| texel(words[o], lane);
    // two horizontally adjacent texels of a one-word format (two plain reads: the slice
    // `&words[o..o + 2]` checks `o + 2` for overflow as well as against the length)
    let pair = |o: usize, lane: usize| (texel(words[o], lane), texel(words[o + 1], lane));
    let lods4: &[LaneLod; 4] = if UNI {
        &[LaneLod::default(); 4] // unused
    } else {
        lods.try_into().ok()?
    };
    let slots = if UNI {
        match uni {
            Some(u) => u.0,
            None => lods.first()?.levels.n,
        }
    } else if lods4.iter().any(|l| l.levels.n == 2) {
        2
    } else {
        1
    };
    let mut acc = [[0.0f32; 4]; 4];
    for slot in 0..slots {
        let mut size = [[0i32; 2]; 4];
        let mut e0 = [0f32; 4];
        let mut e1 = [0f32; 4];
        let mut base = [0usize; 4];
        let mut pitch = [0usize; 4];
        let mut wl = [0f32; 4];
        let mut used = [true; 4];
        // every lane's level a power of two on both axes ([`wrap4`]'s mask forms): the
        // non-uniform quad's, and the uniform quad's (absolute) level
        let mut p2 = true;
        if UNI {
            // one level for the whole quad (every lane has lane `first`'s levels)
            // (looked up by the caller, or here from lane 0's levels)
            let (weight, info, base0) = match uni {
                Some((_, ul)) => {
                    let sl = &ul[slot & 1];
                    p2 = sl.p2;
                    (sl.weight, sl.info, Some(sl.base0))
                }
                None => {
                    let (level, w) = lods.first()?.levels.l[slot];
                    let abs = view.base_level + level;
                    p2 = k.pow2_level(abs);
                    (w, &k.lv[abs as usize], None)
                }
            };
            let y = if CUBE { 0 } else { 1 }; // a cube face is square: the general path uses w
            wl = [weight; 4];
            size = [[info.size[0], info.size[y]]; 4];
            e0 = [info.sizef[0]; 4];
            e1 = [info.sizef[y]; 4];
            if q.one_layer {
                let b = base0
                    .unwrap_or_else(|| (info.base + layer[0] as usize * info.layer_stride) / 4);
                base = [b; 4];
            } else {
                for l in 0..4 {
                    base[l] = (info.base + layer[l] as usize * info.layer_stride) / 4;
                }
            }
            pitch = [info.pitch / 4; 4];
        } else {
            for l in 0..4 {
                let lv = &lods4[l].levels;
                used[l] = slot < lv.n;
                let (level, w) = lv.l[if used[l] { slot } else { 0 }];
                wl[l] = w;
                let info = &k.lv[(view.base_level + level) as usize];
                let y = if CUBE { 0 } else { 1 };
                size[l] = [info.size[0], info.size[y]];
                p2 &= k.pow2_level(view.base_level + level);
                e0[l] = info.sizef[0];
                e1[l] = info.sizef[y];
                base[l] = (info.base + layer[l] as usize * info.layer_stride) / 4;
                pitch[l] = info.pitch / 4;
            }
        }
        // the row pitch: one value for uniform levels
        let pitch_of = |l: usize| if UNI { pitch[0] } else { pitch[l] };
        let mut u = [0f32; 4];
        let mut v = [0f32; 4];
        for l in 0..4 {
            u[l] = s[l] * e0[l];
            v[l] = t[l] * e1[l];
        }
        if let (false, Some((ou, ov))) = (CUBE, q.off) {
            for l in 0..4 {
                u[l] += ou[l];
                v[l] += ov[l];
            }
        }
        // wraps as lane-wise integer operations: clamp-to-edge, or repeat and mirrored
        // repeat over power-of-two levels (`wrap4`)
        let lanewise = M == CLAMP || ((M == REPEAT || M == MIRRORED) && p2);
        let (w, h) = (size.map(|e| e[0]), size.map(|e| e[1]));
        // f32 formats, uniform levels on one layer whose rows span a power-of-two number of
        // words (a power-of-two level, tightly packed): every texel read is
        // `lvl[o & (len − 1)]` with `o < len` (so the mask changes nothing), a read the
        // compiler knows to be in bounds — an `and` instead of a compare and branch per
        // texel (not for the 8-bit formats, whose lane loops the compiler then unrolls into
        // worse code)
        let masked = if F >= R32F && UNI && q.one_layer {
            let len = pitch[0] * h[0] as usize;
            if len != 0 && len & (len - 1) == 0 {
                words.get(base[0]..base[0] + len)
            } else {
                None
            }
        } else {
            None
        };
        let mut val = [[0f32; 4]; 4];
        if LIN {
            let mut x = [0f32; 4];
            let mut y = [0f32; 4];
            for l in 0..4 {
                x[l] = u[l] - 0.5;
                y[l] = v[l] - 0.5;
            }
            let (mut i0, mut i1) = floor4_next(x);
            let (mut j0, mut j1) = floor4_next(y);
            let mut fa = [0f32; 4];
            let mut fb = [0f32; 4];
            for l in 0..4 {
                fa[l] = (x[l] - i0[l] as f32).clamp(0.0, 1.0);
                fb[l] = (y[l] - j0[l] as f32).clamp(0.0, 1.0);
            }
            // `adjacent`: every lane's footprint is two neighbouring columns of two
            // neighbouring rows (`i1 = i0 + 1`, `j1 = j0 + 1`), read as two pairs
            let adjacent = if lanewise && M != CLAMP {
                // repeat / mirrored repeat as masks: cheaper to wrap always than to test
                // whether every footprint is inside its level first (a texture tiled 45
                // times: no footprint is)
                i0 = wrap4::<M>(i0, w, true);
                j0 = wrap4::<M>(j0, h, true);
                if M == REPEAT && F < R32F {
                    // `i1` is `i0 + 1` (or `i0 = i1 = i32::MAX`, whose wrap is `w − 1`), so
                    // its wrap is `i0`'s plus one unless `i0` wraps to the last column:
                    // test the wrapped `i0`, `j0` alone and wrap `i1`, `j1` only when
                    // some footprint straddles a seam (8-bit formats: D32's masked reads
                    // need `i1`, `j1` always, and the branch costs more than it saves there)
                    let adj =
                        (0..4).fold(true, |ok, l| ok & (i0[l] != w[l] - 1) & (j0[l] != h[l] - 1));
                    if !adj {
                        i1 = wrap4::<M>(i1, w, true);
                        j1 = wrap4::<M>(j1, h, true);
                    }
                    adj
                } else {
                    i1 = wrap4::<M>(i1, w, true);
                    j1 = wrap4::<M>(j1, h, true);
                    masked.is_none()
                        && (0..4).fold(true, |ok, l| {
                            ok & (i1[l] == i0[l] + 1) & (j1[l] == j0[l] + 1)
                        })
                }
            } else {
                // every footprint inside its level (the usual case): every wrap mode is
                // the identity there, so one lane-parallel test replaces sixteen wraps
                let inside = (0..4).fold(true, |ok, l| {
                    ok & (i0[l] >= 0) & (i1[l] < w[l]) & (j0[l] >= 0) & (j1[l] < h[l])
                });
                if !inside {
                    if CUBE {
                        return None; // a tap on a neighbouring face
                    }
                    i0 = wrap4::<M>(i0, w, lanewise);
                    i1 = wrap4::<M>(i1, w, lanewise);
                    j0 = wrap4::<M>(j0, h, lanewise);
                    j1 = wrap4::<M>(j1, h, lanewise);
                }
                inside
            };
            if let Some(lvl) = masked {
                let m = lvl.len() - 1;
                let p = pitch[0];
                for l in 0..4 {
                    let iu0 = i0[l] as usize * ts;
                    let iu1 = i1[l] as usize * ts;
                    let r0 = j0[l] as usize * p;
                    let r1 = j1[l] as usize * p;
                    let rd = |o: usize| texel(lvl[o & m], l);
                    let top = lerp4(rd(r0 + iu0), rd(r0 + iu1), fa[l]);
                    let bot = lerp4(rd(r1 + iu0), rd(r1 + iu1), fa[l]);
                    val[l] = lerp4(top, bot, fb[l]);
                }
            } else if F < R32F && adjacent {
                // 8-bit formats, neighbouring texels: the offsets below with half the
                // bounds checks (D32 Dref PCF got worse this way, so D32 stays below)
                for l in 0..4 {
                    let p = pitch_of(l);
                    let r0 = base[l] + j0[l] as usize * p + i0[l] as usize;
                    let (t0, t1) = pair(r0, l);
                    let (b0, b1) = pair(r0 + p, l);
                    let top = lerp4(t0, t1, fa[l]);
                    let bot = lerp4(b0, b1, fa[l]);
                    val[l] = lerp4(top, bot, fb[l]);
                }
            } else {
                for l in 0..4 {
                    let p = pitch_of(l);
                    let iu0 = i0[l] as usize * ts;
                    let iu1 = i1[l] as usize * ts;
                    let r0 = base[l] + j0[l] as usize * p;
                    let r1 = base[l] + j1[l] as usize * p;
                    let top = lerp4(fetch(r0 + iu0, l), fetch(r0 + iu1, l), fa[l]);
                    let bot = lerp4(fetch(r1 + iu0, l), fetch(r1 + iu1, l), fa[l]);
                    val[l] = lerp4(top, bot, fb[l]);
                }
            }
        } else {
            let mut i = floor4(u);
            let mut j = floor4(v);
            // lane-wise wraps are no dearer than testing whether every texel is inside its
            // level (cube faces: `M` is clamp-to-edge, the general path's nearest texel on a
            // face)
            if lanewise {
                i = wrap4::<M>(i, w, true);
                j = wrap4::<M>(j, h, true);
            } else {
                let inside = (0..4).fold(true, |ok, l| {
                    ok & (i[l] >= 0) & (i[l] < w[l]) & (j[l] >= 0) & (j[l] < h[l])
                });
                if !inside {
                    i = wrap4::<M>(i, w, false);
                    j = wrap4::<M>(j, h, false);
                }
            }
            if let Some(lvl) = masked {
                let m = lvl.len() - 1;
                for l in 0..4 {
                    let o = j[l] as usize * pitch[0] + i[l] as usize * ts;
                    val[l] = texel(lvl[o & m], l);
                }
            } else {
                for l in 0..4 {
                    let o = base[l] + j[l] as usize * pitch_of(l) + i[l] as usize * ts;
                    val[l] = fetch(o, l);
                }
            }
        }
        for l in 0..4 {
            // the general path's `acc += w·v` from acc = 0 (kept as `0 + w·v`: −0 → +0)
            if slot == 0 || used[l] {
                for ch in 0..4 {
                    acc[l][ch] += wl[l] * val[l][ch];
                }
            }
        }
    }
    Some(acc)
}

#[cfg(test)]
pub(super) mod tests {
    //! The fast path against the general path (which `super::super::tests` holds to the f64
    //! reference sampler): random images, views, samplers, policies and quads must give the
    //! same bits, lane for lane.

    use super::super::*;
    use proptest::prelude::*;

    /// The 8-bit and single-f32 formats of the byte routes, and formats only the plane
    /// route covers (normalized, float, packed, depth; 1 to 4 channels), plus an integer
    /// format no fast route takes (the general path must then be the only one).
    pub(in crate::texture) const FORMATS: [Format; 20] = [
        Format::R8G8B8A8_UNORM,
        Format::B8G8R8A8_UNORM,
        Format::R8G8B8A8_SRGB,
        Format::B8G8R8A8_SRGB,
        Format::R32_SFLOAT,
        Format::D32_SFLOAT,
        Format::D32_SFLOAT_S8_UINT,
        Format::R8G8B8A8_SNORM,
        Format::R8_UNORM,
        Format::R8G8_SNORM,
        Format::B8G8R8_SRGB,
        Format::R16_SFLOAT,
        Format::R16G16B16A16_UNORM,
        Format::R32G32B32A32_SFLOAT,
        Format::A2B10G10R10_UNORM_PACK32,
        Format::B10G11R11_UFLOAT_PACK32,
        Format::E5B9G9R9_UFLOAT_PACK32,
        Format::D16_UNORM,
        Format::X8_D24_UNORM_PACK32,
        Format::R8G8B8A8_UINT,
    ];

    /// [`FORMATS`]' first eight: the formats of the byte routes (anisotropic).
    pub(in crate::texture) const BYTE_FORMATS: [Format; 8] = {
        let mut f = [Format::R8G8B8A8_UNORM; 8];
        let mut i = 0;
        while i < 8 {
            f[i] = FORMATS[i];
            i += 1;
        }
        f
    };

    const MODES: [AddressMode; 5] = [
        AddressMode::Repeat,
        AddressMode::MirroredRepeat,
        AddressMode::ClampToEdge,
        AddressMode::ClampToBorder,
        AddressMode::MirrorClampToEdge,
    ];

    pub(in super::super) const OPS: [CompareOp; 8] = [
        CompareOp::Never,
        CompareOp::Less,
        CompareOp::Equal,
        CompareOp::LessOrEqual,
        CompareOp::Greater,
        CompareOp::NotEqual,
        CompareOp::GreaterOrEqual,
        CompareOp::Always,
    ];

    /// xorshift64 stream.
    pub(in super::super) struct Rng(pub u64);
    impl Rng {
        pub fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        pub fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
        /// Uniform in [lo, hi).
        pub fn f(&mut self, lo: f32, hi: f32) -> f32 {
            lo + (hi - lo) * (self.below(1 << 24) as f32 / (1u32 << 24) as f32)
        }
        pub fn chance(&mut self, pct: u64) -> bool {
            self.below(100) < pct
        }
    }

    /// Image of random texels: any bytes for 8-bit formats, finite or infinite f32 (with
    /// ±0 and subnormals) for the f32 ones. No NaN texels: NaN payload propagation is not
    /// pinned down by Rust, so it could differ between two correct instruction orders.
    pub(in super::super) fn image(
        r: &mut Rng,
        fmt: Format,
        w: u32,
        h: u32,
        layers: u32,
        levels: u32,
    ) -> Image {
        let mut img = Image::new_2d(fmt, w, h, layers, levels).unwrap();
        let f32_texels = fmt.texel_size() >= 4 && !matches!(fmt.components(), 4);
        let ts = fmt.texel_size();
        let bytes = img.bytes_mut();
        if f32_texels {
            for t in bytes.chunks_mut(ts) {
                let v = match r.below(10) {
                    0 => 0.0,
                    1 => -0.0,
                    2 => f32::INFINITY,
                    3 => f32::from_bits(r.below(0x007f_ffff) as u32 + 1), // subnormal
                    4 => r.f(-1e6, 1e6),
                    _ => r.f(-0.25, 1.25),
                };
                t[..4].copy_from_slice(&v.to_le_bytes());
            }
        } else {
            for b in bytes.iter_mut() {
                *b = r.next() as u8;
            }
        }
        img
    }

    /// A random 2D or 2D-array view (any base level and layers) of a random image of `fmt`.
    pub(in crate::texture) fn random_2d_view(r: &mut Rng, fmt: Format) -> (Image, ImageView) {
        let wmax = if r.chance(30) { 40 } else { 9 };
        let w = 1 + r.below(wmax) as u32;
        let h = 1 + r.below(9) as u32;
        let layers = 1 + r.below(3) as u32;
        let maxl = 32 - w.max(h).leading_zeros();
        let levels = 1 + r.below(maxl as u64) as u32;
        let img = image(r, fmt, w, h, layers, levels);
        let array = r.chance(50);
        let base_level = r.below(levels as u64) as u32;
        let base_layer = r.below(layers as u64) as u32;
        let view = ImageView {
            view_type: if array {
                ViewType::D2Array
            } else {
                ViewType::D2
            },
            base_level,
            level_count: 1 + r.below((levels - base_level) as u64) as u32,
            base_layer,
            layer_count: if array {
                1 + r.below((layers - base_layer) as u64) as u32
            } else {
                1
            },
            aspect: if fmt.has_depth() {
                Aspect::Depth
            } else {
                Aspect::Color
            },
        };
        (img, view)
    }

    /// A random policy (70 % Vulkan) and LOD precision (95 % exact).
    pub(in crate::texture) fn random_config(r: &mut Rng) -> Config {
        Config {
            policy: if r.chance(70) {
                Policy::Vulkan
            } else {
                Policy::D3D
            },
            precision: if r.chance(95) {
                LodPrecision::Exact
            } else {
                LodPrecision::Hardware
            },
        }
    }

    /// A random filtering sampler for `fmt` with the given address modes; anisotropy in
    /// `aniso_pct` % of the cases, a comparison mostly on depth and R32 formats.
    pub(in crate::texture) fn random_sampler(
        r: &mut Rng,
        fmt: Format,
        address_mode: [AddressMode; 3],
        aniso_pct: u64,
    ) -> Sampler {
        let filt = |r: &mut Rng| {
            if r.chance(50) {
                Filter::Linear
            } else {
                Filter::Nearest
            }
        };
        let min_lod = if r.chance(70) { 0.0 } else { r.f(0.0, 4.0) };
        Sampler {
            mag_filter: filt(r),
            min_filter: filt(r),
            mipmap_mode: if r.chance(50) {
                MipmapMode::Linear
            } else {
                MipmapMode::Nearest
            },
            address_mode,
            mip_lod_bias: if r.chance(60) { 0.0 } else { r.f(-4.0, 4.0) },
            anisotropy_enable: r.chance(aniso_pct),
            max_anisotropy: 4.0,
            compare_enable: (fmt.has_depth() || fmt == Format::R32_SFLOAT || r.chance(10))
                && r.chance(60),
            compare_op: OPS[r.below(8) as usize],
            min_lod,
            max_lod: if r.chance(50) {
                LOD_CLAMP_NONE
            } else {
                min_lod + r.f(-1.0, 5.0)
            },
            ..Sampler::default()
        }
    }

    /// Four lane values in [lo, hi): half the time one value for the quad.
    pub(in crate::texture) fn lane4(r: &mut Rng, lo: f32, hi: f32) -> [f32; 4] {
        let v = r.f(lo, hi);
        if r.chance(50) {
            [v; 4]
        } else {
            std::array::from_fn(|_| r.f(lo, hi))
        }
    }

    /// A random LOD source; explicit gradients have `dims` non-zero components (2 or 3).
    pub(in crate::texture) fn random_lod(r: &mut Rng, dims: usize) -> LodMode {
        let g = |r: &mut Rng| -> [f32; 3] {
            std::array::from_fn(|i| if i < dims { r.f(-0.6, 0.6) } else { 0.0 })
        };
        match r.below(5) {
            0 | 1 => LodMode::Implicit {
                bias: if r.chance(50) {
                    [0.0; 4]
                } else {
                    lane4(r, -3.0, 3.0)
                },
                fine: r.chance(30),
            },
            2 => LodMode::Explicit(lane4(r, -1.0, 6.0)),
            3 => LodMode::Grad {
                dx: std::array::from_fn(|_| g(r)),
                dy: std::array::from_fn(|_| g(r)),
            },
            _ => LodMode::Zero,
        }
    }

    pub(in crate::texture) fn coord(r: &mut Rng) -> f32 {
        match r.below(20) {
            0 => f32::NAN,
            1 => r.f(-1e9, 1e9),
            2 => 0.5,
            _ => r.f(-2.5, 2.5),
        }
    }

    /// Address modes for a 2D view: mostly one of repeat, mirrored repeat, clamp-to-edge on
    /// both axes, sometimes border or mirror-clamp, sometimes a different mode for v.
    pub(in crate::texture) fn random_modes(r: &mut Rng) -> [AddressMode; 3] {
        let m = if r.chance(85) {
            MODES[r.below(3) as usize]
        } else {
            MODES[r.below(5) as usize]
        };
        let mut address_mode = [m; 3];
        if r.chance(10) {
            address_mode[1] = MODES[r.below(5) as usize];
        }
        address_mode
    }

    /// The operands of a random 2D quad around `coords`: offsets (none, per quad or per
    /// lane), `MinLod` in 30 %, Dref when the sampler compares, 30 % partial masks.
    pub(in crate::texture) fn random_2d_args(
        r: &mut Rng,
        coords: [[f32; 4]; 4],
        lod: LodMode,
        sampler: &Sampler,
    ) -> SampleArgs {
        let off = |r: &mut Rng| r.below(16) as i32 - 8;
        let offsets = if r.chance(60) {
            [[0; 3]; 4]
        } else if r.chance(70) {
            [[off(r), off(r), 0]; 4]
        } else {
            std::array::from_fn(|_| [off(r), off(r), 0])
        };
        SampleArgs {
            coords,
            lod,
            min_lod: r.chance(30).then(|| lane4(r, -1.0, 4.0)),
            offsets,
            dref: sampler.compare_enable.then(|| lane4(r, -0.2, 1.2)),
            mask: if r.chance(70) { 0xf } else { r.below(16) as u8 },
        }
    }

    /// One random (image, view, sampler, config, quad); returns whether the fast path served
    /// the quad, after checking the two paths agree.
    fn one(seed: u64) -> bool {
        let mut r = Rng(seed | 1);
        let fmt = FORMATS[r.below(FORMATS.len() as u64) as usize];
        let (img, view) = random_2d_view(&mut r, fmt);
        let address_mode = random_modes(&mut r);
        let sampler = random_sampler(&mut r, fmt, address_mode, 5);
        let cfg = random_config(&mut r);
        // a quad: lane 0 plus small steps (sometimes bent, sometimes wild)
        let c0 = [coord(&mut r), coord(&mut r), r.f(-1.0, 4.0), 0.0];
        let step = r.f(-0.5, 0.5) * r.f(0.0, 1.0).powi(3);
        let mut coords = [c0; 4];
        for (lane, c) in coords.iter_mut().enumerate() {
            c[0] += (lane & 1) as f32 * step + r.f(-0.01, 0.01) * r.below(2) as f32;
            c[1] += (lane >> 1) as f32 * step * r.f(0.2, 2.0);
            if r.chance(5) {
                c[0] = coord(&mut r);
            }
        }
        let lod = random_lod(&mut r, 2);
        let a = random_2d_args(&mut r, coords, lod, &sampler);
        fast_matches_general(seed, fmt, (&img, &view), &sampler, cfg, &a)
    }

    /// Sample `a` through the kernel's fast routine and the general path; whether the fast
    /// routine served the quad, after checking it gave the general path's bits (every NaN
    /// counting as one, see `nan_as_one`). Shared by the fast-path proptests.
    pub(in crate::texture) fn fast_matches_general(
        seed: u64,
        fmt: Format,
        (img, view): (&Image, &ImageView),
        sampler: &Sampler,
        cfg: Config,
        a: &SampleArgs,
    ) -> bool {
        let Ok(k) = Kernel::new(img, view, sampler, cfg) else {
            return false;
        };
        let general = k.sample_general(img, a).unwrap();
        let Some(fast) = k.sample_fast_only(img, a) else {
            assert_eq!(k.sample(img, a).unwrap(), general);
            return false;
        };
        assert_eq!(
            nan_as_one(fast),
            nan_as_one(general),
            "seed {seed}: {fmt:?} {:?}x{} L{} {view:?} {sampler:?} {cfg:?} {a:?}",
            img.extent(),
            img.layers(),
            img.levels()
        );
        true
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]
        #[test]
        fn fast_path_equals_general_path(seed in any::<u64>()) {
            one(seed);
        }

        #[test]
        fn cube_fast_path_equals_general_path(seed in any::<u64>()) {
            one_cube(seed);
        }
    }

    /// Result bits as hex, with every NaN as one: which NaN (sign, payload) an f32 operation
    /// returns is not fixed by Rust or LLVM, and differs between the debug and release builds
    /// of the same expression; Vulkan leaves NaN bits unspecified too.
    pub(in crate::texture) fn nan_as_one(q: QuadBits) -> [[String; 4]; 4] {
        q.map(|l| {
            l.map(|x| {
                let x = if f32::from_bits(x).is_nan() {
                    0x7fc0_0000
                } else {
                    x
                };
                format!("{x:08x}")
            })
        })
    }

    /// A direction component: mostly moderate, sometimes exactly on a face edge or corner
    /// (|component| equal to the major one), zero, huge, tiny or NaN.
    fn dir(r: &mut Rng) -> [f32; 3] {
        let mut d = [r.f(-1.0, 1.0), r.f(-1.0, 1.0), r.f(-1.0, 1.0)];
        let major = r.below(3) as usize;
        let sign = if r.chance(50) { 1.0 } else { -1.0 };
        d[major] = sign * r.f(0.5, 2.0);
        match r.below(12) {
            // near an edge: one minor component close to ±major
            0..=2 => {
                let m = (major + 1 + r.below(2) as usize) % 3;
                d[m] = d[major].abs() * r.f(0.97, 1.0) * if r.chance(50) { 1.0 } else { -1.0 };
            }
            // near a corner: both minor components close to ±major
            3 => {
                for m in [(major + 1) % 3, (major + 2) % 3] {
                    d[m] = d[major].abs() * r.f(0.97, 1.0) * if r.chance(50) { 1.0 } else { -1.0 };
                }
            }
            // exactly on an edge (a face-selection tie)
            4 => d[(major + 1) % 3] = d[major],
            5 => d = d.map(|x| x * 1e30),
            6 => d = d.map(|x| x * 1e-30),
            7 if r.chance(30) => d[r.below(3) as usize] = f32::NAN,
            8 if r.chance(30) => d = [0.0; 3],
            _ => {}
        }
        d
    }

    /// One random cube / cube-array quad (see [`one`]); returns whether the fast path
    /// served it.
    fn one_cube(seed: u64) -> bool {
        let mut r = Rng(seed | 1);
        let fmt = FORMATS[r.below(FORMATS.len() as u64) as usize];
        let nmax = if r.chance(30) { 33 } else { 8 };
        let n = 1 + r.below(nmax) as u32;
        let cubes = 1 + r.below(2) as u32;
        let layers = 6 * cubes + r.below(2) as u32;
        let levels = 1 + r.below((32 - n.leading_zeros()) as u64) as u32;
        let img = image(&mut r, fmt, n, n, layers, levels);
        let array = r.chance(40);
        let base_level = r.below(levels as u64) as u32;
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
            base_level,
            level_count: 1 + r.below((levels - base_level) as u64) as u32,
            base_layer: r.below((layers - layer_count + 1) as u64) as u32,
            layer_count,
            aspect: if fmt.has_depth() {
                Aspect::Depth
            } else {
                Aspect::Color
            },
        };
        let address_mode = [MODES[r.below(5) as usize]; 3];
        let sampler = random_sampler(&mut r, fmt, address_mode, 10);
        let cfg = random_config(&mut r);
        // a quad: lane 0's direction plus small steps (sometimes one lane elsewhere)
        let d0 = dir(&mut r);
        let scale = d0.iter().fold(0.0f32, |m, x| m.max(x.abs()));
        let step = r.f(-0.3, 0.3) * r.f(0.0, 1.0).powi(3) * scale;
        let cube_index = r.f(-1.0, 3.0);
        let mut coords = [[0.0; 4]; 4];
        for (lane, c) in coords.iter_mut().enumerate() {
            let (x, y) = ((lane & 1) as f32, (lane >> 1) as f32);
            *c = [
                d0[0] + x * step,
                d0[1] + y * step * r.f(0.2, 2.0),
                d0[2] + x * step * r.f(-1.0, 1.0),
                if r.chance(90) {
                    cube_index
                } else {
                    r.f(-1.0, 3.0)
                },
            ];
            if r.chance(5) {
                let d = dir(&mut r);
                c[..3].copy_from_slice(&d);
            }
        }
        let lod = random_lod(&mut r, 3);
        let a = SampleArgs {
            coords,
            lod,
            min_lod: r.chance(30).then(|| lane4(&mut r, -1.0, 4.0)),
            // offsets are invalid on cubes; both paths ignore them
            offsets: if r.chance(90) {
                [[0; 3]; 4]
            } else {
                [[1, -2, 0]; 4]
            },
            dref: sampler.compare_enable.then(|| lane4(&mut r, -0.2, 1.2)),
            mask: if r.chance(70) { 0xf } else { r.below(16) as u8 },
        };
        let Ok(k) = Kernel::new(&img, &view, &sampler, cfg) else {
            return false;
        };
        let general = k.sample_general(&img, &a).unwrap();
        let Some(fast) = k.sample_fast_only(&img, &a) else {
            assert_eq!(k.sample(&img, &a).unwrap(), general);
            return false;
        };
        assert_eq!(
            nan_as_one(fast),
            nan_as_one(general),
            "seed {seed}: {fmt:?} {n} L{levels} {view:?} {sampler:?} {cfg:?} {a:?}"
        );
        true
    }

    #[test]
    fn most_random_cube_quads_take_the_fast_path() {
        let served = (1..=2000u64)
            .filter(|&s| one_cube(s.wrapping_mul(0x9e37_79b9_7f4a_7c15)))
            .count();
        assert!(
            served > 600,
            "the cube fast path served only {served} of 2000 quads"
        );
    }

    #[test]
    fn most_random_cases_take_the_fast_path() {
        let served = (1..=2000u64)
            .filter(|&s| one(s.wrapping_mul(0x9e37_79b9_7f4a_7c15)))
            .count();
        assert!(
            served > 800,
            "the fast path served only {served} of 2000 quads"
        );
    }

    #[test]
    fn floor4_is_the_scalar_floor() {
        use super::super::filter::fl;
        use super::floor4;
        let mut r = Rng(7);
        let mut vals = vec![0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 1.5, -1.5, 2.5, f32::NAN];
        for e in [2_097_152.0f32, 4_194_304.0, 8_388_608.0, 2147483648.0] {
            for k in -3..=3 {
                let b = e.to_bits() as i32 + k;
                vals.extend([f32::from_bits(b as u32), -f32::from_bits(b as u32)]);
            }
        }
        for _ in 0..200_000 {
            let scale = [1.0, 100.0, 3e6, 1e10][r.below(4) as usize];
            vals.push(r.f(-1.0, 1.0) * scale);
        }
        for (i, chunk) in vals.chunks(4).enumerate() {
            let mut x = [0.25f32; 4];
            x[..chunk.len()].copy_from_slice(chunk);
            if i % 2 == 0 {
                x[3] = 0.75; // keep some chunks on the small-range route
            }
            let want = x.map(fl);
            assert_eq!(floor4(x), want, "{x:?}");
        }
    }

    #[test]
    fn power_of_two_levels_by_hand() {
        // 12×8: 12×8, 6×4, 3×2, 1×1 — only the last is a power of two on both axes;
        // 16×4: 16×4, 8×2, 4×1, 2×1, 1×1 — all are
        let k = |w, h, levels| {
            let img = Image::new_2d(Format::R8G8B8A8_UNORM, w, h, 1, levels).unwrap();
            let v = ImageView::whole(&img, ViewType::D2);
            Kernel::new(&img, &v, &Sampler::default(), Config::default()).unwrap()
        };
        let a = k(12, 8, 4);
        assert_eq!(
            (0..5).map(|l| a.pow2_level(l)).collect::<Vec<_>>(),
            [false, false, false, true, false]
        );
        let b = k(16, 4, 5);
        assert!((0..5).all(|l| b.pow2_level(l)));
        assert!(!b.pow2_level(5) && !b.pow2_level(64) && !b.pow2_level(u32::MAX));
    }

    #[test]
    fn compare_bits_match_compare_op() {
        for op in OPS {
            let bits = super::compare_bits(op);
            for r in [0.0f32, 0.5, 1.0, f32::NAN, -0.0] {
                for t in [0.0f32, 0.5, 1.0, f32::NAN, -0.0, f32::INFINITY] {
                    assert_eq!(super::compare(bits, r, t), op.test(r, t), "{op:?} {r} {t}");
                }
            }
        }
    }

    #[test]
    fn coverage_by_configuration() {
        let img = Image::new_2d(Format::R8G8B8A8_SRGB, 8, 8, 2, 4).unwrap();
        let v2 = ImageView::whole(&img, ViewType::D2Array);
        let tri = Sampler::trilinear(AddressMode::MirroredRepeat);
        let k = |s: &Sampler, cfg: Config| Kernel::new(&img, &v2, s, cfg).unwrap();
        assert!(k(&tri, Config::default()).has_fast_path());
        let hw = Config {
            precision: LodPrecision::Hardware,
            ..Config::default()
        };
        assert!(!k(&tri, hw).has_fast_path());
        let border = Sampler::trilinear(AddressMode::ClampToBorder);
        assert!(!k(&border, Config::default()).has_fast_path());
        // anisotropy: the probe route of `fast_aniso.rs` (not with border or hardware LOD)
        let aniso = Sampler {
            anisotropy_enable: true,
            max_anisotropy: 8.0,
            ..tri
        };
        assert!(k(&aniso, Config::default()).has_fast_path());
        assert!(!k(&aniso, hw).has_fast_path());
        let aniso_border = Sampler {
            anisotropy_enable: true,
            max_anisotropy: 8.0,
            ..border
        };
        assert!(!k(&aniso_border, Config::default()).has_fast_path());
        let cube = Image::new_cube(Format::R8G8B8A8_UNORM, 4, 1, 1).unwrap();
        let vc = ImageView::whole(&cube, ViewType::Cube);
        // cubes: the fast path serves quads whose footprints stay inside their faces
        assert!(Kernel::new(&cube, &vc, &tri, Config::default())
            .unwrap()
            .has_fast_path());
        // every float-kind format through the decoded plane; not integer formats
        let snorm = Image::new_cube(Format::R8G8B8A8_SNORM, 4, 1, 1).unwrap();
        let vs = ImageView::whole(&snorm, ViewType::Cube);
        assert!(Kernel::new(&snorm, &vs, &tri, Config::default())
            .unwrap()
            .has_fast_path());
        let uint = Image::new_cube(Format::R8G8B8A8_UINT, 4, 1, 1).unwrap();
        let vu = ImageView::whole(&uint, ViewType::Cube);
        let near = Sampler::default();
        assert!(!Kernel::new(&uint, &vu, &near, Config::default())
            .unwrap()
            .has_fast_path());
    }
}
