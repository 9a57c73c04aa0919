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
//! holds it to [`Kernel::gather`]. Callgrind: 735 instructions per quad
//! (`gather_rgba8_2d_wide`; the per-quad byte route 674), but in the pipeline it replaces the
//! per-quad hand-over (`BatchOperands::quad`, grouping, `GatherArgs`): lavapipe's gather scene
//! 604 → 341 instructions per sample. Left: the tap loop is scalar with a run-time compare
//! flag and a bounds check per tap.

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
        // of the general loop below (batch bench ~730 → ~360 instructions per quad, lavapipe's
        // gather scene 303 → 191 per sample). Either every lane's footprint is inside the
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
