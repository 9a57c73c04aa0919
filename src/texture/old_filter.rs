//! Filtering inside one level: nearest / linear taps, wrap, border, per-tap depth compare
//! (PCF), seamless cube edges and corners (sampling.md §4.3, §7, §8, §10).
//!
//! Each function is monomorphised over (format class, dimensions, linear, address mode per
//! axis) and wrapped as a [`LevelFilter`] type; a [`Kernel`] picks one quad routine
//! ([`pick`]) with the nearest and linear instantiations inlined, so the per-tap code has no
//! branch on the format class or the wrap mode and no call.

use super::address::{wrap, BORDER, DYN};
use super::cube::remap_edge;
use super::format::{Aspect, Format, UNORM8};
use super::image::Image;
use super::lod::LodBase;
use super::old_sample::{Kernel, SampleArgs};
use super::QuadBits;

/// One probe at one level: absolute level and layer, texel-space coordinates (offsets
/// included, before the −0.5 shift of linear filtering), cube face, per-lane Dref.
#[derive(Clone, Copy, Debug)]
pub struct Tap {
    /// Absolute mip level.
    pub level: u32,
    /// Absolute layer (cube: the face's layer).
    pub layer: u32,
    /// Cube face (0 for non-cube views).
    pub face: u32,
    /// Texel-space coordinates.
    pub uvw: [f32; 3],
    /// Dref (already clamped/quantized), for compare-then-filter.
    pub dref: Option<f32>,
}

/// Size and byte addressing of one absolute mip level, computed once per kernel (the image
/// shape is part of the kernel key), so taps never recompute `max(1, x >> l)` or offsets.
#[derive(Clone, Copy, Debug)]
pub(super) struct LevelInfo {
    /// Extent in texels.
    pub size: [i32; 3],
    /// Extent as f32 (normalized → texel scale).
    pub sizef: [f32; 3],
    /// Byte offset of (level, layer 0, texel 0).
    pub base: usize,
    /// Bytes per layer.
    pub layer_stride: usize,
    /// Bytes per row.
    pub pitch: usize,
    /// Bytes per z slice.
    slice: usize,
    /// [`LevelInfo::base`] in texels (the decoded plane's index of (level, layer 0, texel 0)).
    pub tbase: usize,
    /// [`LevelInfo::layer_stride`] in texels.
    pub tlayer: usize,
}

impl LevelInfo {
    /// The level's addressing in a single-sampled image.
    pub fn new(img: &Image, level: u32) -> LevelInfo {
        let e = img.level_extent(level);
        let ts = img.format().texel_size();
        let pitch = e[0] as usize * ts;
        let slice = pitch * e[1] as usize;
        LevelInfo {
            size: e.map(|x| x as i32),
            sizef: e.map(|x| x as f32),
            base: img.offset_unchecked(level, 0, [0, 0, 0], 0, e),
            layer_stride: slice * e[2] as usize,
            pitch,
            slice,
            tbase: img.offset_unchecked(level, 0, [0, 0, 0], 0, e) / ts,
            tlayer: slice * e[2] as usize / ts,
        }
    }

    /// Addressing of one layer of this level.
    #[inline(always)]
    pub fn layout(&self, layer: u32) -> Layout {
        Layout {
            base: self.base + layer as usize * self.layer_stride,
            pitch: self.pitch,
            slice: self.slice,
        }
    }
}

/// Byte addressing of one (level, layer) of a single-sampled image.
pub(super) struct Layout {
    base: usize,
    pitch: usize,
    slice: usize,
}

impl Layout {
    /// Byte offset of in-range texel `ijk` (`texel_size` bytes per texel).
    #[inline(always)]
    pub fn offset(&self, ijk: [i32; 3], texel_size: usize) -> usize {
        self.base
            + ijk[2] as usize * self.slice
            + ijk[1] as usize * self.pitch
            + ijk[0] as usize * texel_size
    }
}

impl Kernel {
    /// Reads a texel (or the border when any index is −1), decodes it, compares if Dref.
    #[inline(always)]
    pub(super) fn texel<const F: u8>(&self, img: &Image, t: &Tap, ijk: [i32; 3]) -> [f32; 4] {
        let lay = self.lv[t.level as usize].layout(t.layer);
        self.texel_in::<F>(img.bytes(), &lay, ijk, t.dref, true)
    }

    /// As [`Kernel::texel`] with the level/layer addressing precomputed. `may_border`: an
    /// index may be −1 (a border address mode); constant per instantiation, so the check
    /// vanishes for the other modes.
    #[inline(always)]
    pub(super) fn texel_in<const F: u8>(
        &self,
        data: &[u8],
        lay: &Layout,
        ijk: [i32; 3],
        dref: Option<f32>,
        may_border: bool,
    ) -> [f32; 4] {
        let v = if may_border && (ijk[0] | ijk[1] | ijk[2]) < 0 {
            self.border
        } else {
            let o = lay.offset(ijk, self.texel_size);
            // the inline classes read 4 bytes (D32_SFLOAT_S8_UINT: depth first)
            let len = if F == FC_ANY { self.texel_size } else { 4 };
            let b = &data[o..o + len];
            match F {
                FC_RGBA8 => [
                    UNORM8[b[0] as usize],
                    UNORM8[b[1] as usize],
                    UNORM8[b[2] as usize],
                    UNORM8[b[3] as usize],
                ],
                FC_R32F => [f32::from_le_bytes([b[0], b[1], b[2], b[3]]), 0.0, 0.0, 1.0],
                _ => (self.dec.f32)(b),
            }
        };
        match dref {
            None => v,
            Some(r) => [
                if self.sampler.compare_op.test(r, v[0]) {
                    1.0
                } else {
                    0.0
                },
                0.0,
                0.0,
                1.0,
            ],
        }
    }

    /// Snaps a texel-space coordinate to 1/256 (RNE) in hardware precision.
    #[inline(always)]
    pub(super) fn snap(&self, x: f32) -> f32 {
        if self.hw {
            (x * 256.0).round_ties_even() / 256.0
        } else {
            x
        }
    }
}

/// Whether address mode `m` (a const-generic code) can produce the border index −1.
#[inline(always)]
const fn may_border(m: u8) -> bool {
    m == BORDER || m == DYN
}

/// `floor(x)` as i32 without a libm call (baseline x86-64 has no SSE4.1 `roundss`):
/// saturating for huge values, 0 for NaN.
#[inline(always)]
pub(super) fn fl(x: f32) -> i32 {
    let i = x as i32;
    if (i as f32) > x {
        i.saturating_sub(1)
    } else {
        i
    }
}

/// `(floor(x), frac(x))` with the fraction clamped to [0, 1] (only matters past ±2³¹).
#[inline(always)]
fn split(x: f32) -> (i32, f32) {
    let i = fl(x);
    (i, (x - i as f32).clamp(0.0, 1.0))
}

/// `a + (b − a)·w` per component (shared with the fast path, which must round the same way).
#[inline(always)]
pub(super) fn lerp4(a: [f32; 4], b: [f32; 4], w: f32) -> [f32; 4] {
    [
        a[0] + (b[0] - a[0]) * w,
        a[1] + (b[1] - a[1]) * w,
        a[2] + (b[2] - a[2]) * w,
        a[3] + (b[3] - a[3]) * w,
    ]
}

/// 1D/2D/3D filter with address modes `MU`, `MV`, `MW` (`DYN` → read from the kernel).
#[inline(always)]
pub fn level_nd<
    const F: u8,
    const D: usize,
    const LIN: bool,
    const MU: u8,
    const MV: u8,
    const MW: u8,
>(
    k: &Kernel,
    img: &Image,
    t: &Tap,
) -> [f32; 4] {
    let lv = &k.lv[t.level as usize];
    let size = lv.size;
    let lay = lv.layout(t.layer);
    let data = img.bytes();
    let m = k.modes;
    let mb = may_border(MU) || (D >= 2 && may_border(MV)) || (D >= 3 && may_border(MW));
    let wu = |i: i32| wrap::<MU>(i, size[0], m[0]);
    let wv = |i: i32| {
        if D >= 2 {
            wrap::<MV>(i, size[1], m[1])
        } else {
            0
        }
    };
    let ww = |i: i32| {
        if D >= 3 {
            wrap::<MW>(i, size[2], m[2])
        } else {
            0
        }
    };
    if !LIN {
        let u = k.snap(t.uvw[0]);
        let v = k.snap(t.uvw[1]);
        let w = k.snap(t.uvw[2]);
        return k.texel_in::<F>(data, &lay, [wu(fl(u)), wv(fl(v)), ww(fl(w))], t.dref, mb);
    }
    let x = k.snap(t.uvw[0] - 0.5);
    let (i0, a) = split(x);
    let (iu0, iu1) = (wu(i0), wu(i0.saturating_add(1)));
    if D == 1 {
        return lerp4(
            k.texel_in::<F>(data, &lay, [iu0, 0, 0], t.dref, mb),
            k.texel_in::<F>(data, &lay, [iu1, 0, 0], t.dref, mb),
            a,
        );
    }
    let y = k.snap(t.uvw[1] - 0.5);
    let (j0, b) = split(y);
    let (jv0, jv1) = (wv(j0), wv(j0.saturating_add(1)));
    let plane = |kk: i32| {
        let top = lerp4(
            k.texel_in::<F>(data, &lay, [iu0, jv0, kk], t.dref, mb),
            k.texel_in::<F>(data, &lay, [iu1, jv0, kk], t.dref, mb),
            a,
        );
        let bot = lerp4(
            k.texel_in::<F>(data, &lay, [iu0, jv1, kk], t.dref, mb),
            k.texel_in::<F>(data, &lay, [iu1, jv1, kk], t.dref, mb),
            a,
        );
        lerp4(top, bot, b)
    };
    if D == 2 {
        return plane(0);
    }
    let z = k.snap(t.uvw[2] - 0.5);
    let (k0, c) = split(z);
    lerp4(plane(ww(k0)), plane(ww(k0.saturating_add(1))), c)
}

/// Seamless cube filter on one face (`uvw[0..2]` face texel coordinates).
#[inline]
pub fn level_cube<const F: u8, const LIN: bool>(k: &Kernel, img: &Image, t: &Tap) -> [f32; 4] {
    let lv = &k.lv[t.level as usize];
    let n = lv.size[0];
    let lay = lv.layout(t.layer);
    let data = img.bytes();
    if !LIN {
        let i = fl(k.snap(t.uvw[0])).clamp(0, n - 1);
        let j = fl(k.snap(t.uvw[1])).clamp(0, n - 1);
        return k.texel_in::<F>(data, &lay, [i, j, 0], t.dref, false);
    }
    let x = k.snap(t.uvw[0] - 0.5);
    let y = k.snap(t.uvw[1] - 0.5);
    let (i0, a) = split(x);
    let (j0, b) = split(y);
    let (i1, j1) = (i0.saturating_add(1), j0.saturating_add(1));
    let inside = i0 >= 0 && j0 >= 0 && i1 < n && j1 < n;
    let fetch = |i: i32, j: i32| -> Option<[f32; 4]> {
        if inside {
            return Some(k.texel_in::<F>(data, &lay, [i, j, 0], t.dref, false));
        }
        let (f, ni, nj) = remap_edge(t.face, i, j, n)?;
        let tap = Tap {
            layer: t.layer - t.face + f,
            face: f,
            ..*t
        };
        Some(k.texel::<F>(img, &tap, [ni, nj, 0]))
    };
    let q = [fetch(i0, j0), fetch(i1, j0), fetch(i0, j1), fetch(i1, j1)];
    if let [Some(t00), Some(t10), Some(t01), Some(t11)] = q {
        return lerp4(lerp4(t00, t10, a), lerp4(t01, t11, a), b);
    }
    // corner: the missing texel is the average of the three real ones (in f64, so three
    // equal texels average to exactly themselves)
    let mut s = [0.0f64; 4];
    for v in q.iter().flatten() {
        for c in 0..4 {
            s[c] += v[c] as f64;
        }
    }
    let s = s.map(|x| (x / 3.0) as f32);
    let q = q.map(|v| v.unwrap_or(s));
    lerp4(lerp4(q[0], q[1], a), lerp4(q[2], q[3], a), b)
}

/// Format class: any format, decoded through the `fn` pointer.
pub const FC_ANY: u8 = 0;
/// Format class: R8G8B8A8_UNORM, decoded inline.
pub const FC_RGBA8: u8 = 1;
/// Format class: one f32 component (R32_SFLOAT, depth of D32_SFLOAT[_S8_UINT]), inline.
pub const FC_R32F: u8 = 2;

/// The format class of a (format, aspect).
pub fn format_class(f: Format, aspect: Aspect) -> u8 {
    match (f, aspect) {
        (Format::R8G8B8A8_UNORM, _) => FC_RGBA8,
        (Format::R32_SFLOAT, _)
        | (Format::D32_SFLOAT | Format::D32_SFLOAT_S8_UINT, Aspect::Depth | Aspect::Color) => {
            FC_R32F
        }
        _ => FC_ANY,
    }
}

/// One level filter as a type, so the quad routine is monomorphised over it and the filter
/// inlines into the per-lane loop (a `fn` pointer per tap cost a call, a register spill and
/// the re-derivation of the level's addressing every tap).
pub trait LevelFilter {
    /// Filters one tap.
    fn filter(k: &Kernel, img: &Image, t: &Tap) -> [f32; 4];
}

/// [`level_nd`] as a [`LevelFilter`].
pub struct Nd<
    const F: u8,
    const D: usize,
    const LIN: bool,
    const MU: u8,
    const MV: u8,
    const MW: u8,
>;

impl<const F: u8, const D: usize, const LIN: bool, const MU: u8, const MV: u8, const MW: u8>
    LevelFilter for Nd<F, D, LIN, MU, MV, MW>
{
    #[inline(always)]
    fn filter(k: &Kernel, img: &Image, t: &Tap) -> [f32; 4] {
        level_nd::<F, D, LIN, MU, MV, MW>(k, img, t)
    }
}

/// [`level_cube`] as a [`LevelFilter`].
pub struct CubeFilter<const F: u8, const LIN: bool>;

impl<const F: u8, const LIN: bool> LevelFilter for CubeFilter<F, LIN> {
    #[inline(always)]
    fn filter(k: &Kernel, img: &Image, t: &Tap) -> [f32; 4] {
        level_cube::<F, LIN>(k, img, t)
    }
}

/// The quad routine for a (nearest, linear) filter pair.
pub type QuadFn = fn(&Kernel, &Image, &SampleArgs, &[LodBase; 4]) -> QuadBits;

macro_rules! nd {
    ($f:ident, $d:literal, $m:ident) => {
        Kernel::sample_filtered::<Nd<$f, $d, false, $m, $m, $m>, Nd<$f, $d, true, $m, $m, $m>>
            as QuadFn
    };
}

macro_rules! inst {
    ($f:ident, $d:literal, $m:expr) => {
        match $m {
            REPEAT => nd!($f, $d, REPEAT),
            MIRRORED => nd!($f, $d, MIRRORED),
            CLAMP => nd!($f, $d, CLAMP),
            BORDER => nd!($f, $d, BORDER),
            MIRROR_CLAMP => nd!($f, $d, MIRROR_CLAMP),
            _ => nd!($f, $d, DYN),
        }
    };
}

macro_rules! per_class {
    ($f:ident, $dims:expr, $cube:expr, $m:expr) => {
        if $cube {
            Kernel::sample_filtered::<CubeFilter<$f, false>, CubeFilter<$f, true>> as QuadFn
        } else {
            match $dims {
                1 => inst!($f, 1, $m),
                2 => inst!($f, 2, $m),
                _ => inst!($f, 3, $m),
            }
        }
    };
}

/// The quad routine for a view with `dims` spatial dimensions, address modes and format
/// class: one monomorphised routine per (class, dims, mode), containing both filters.
pub fn pick(dims: usize, cube: bool, modes: [u8; 3], fc: u8) -> QuadFn {
    use super::address::{CLAMP, MIRRORED, MIRROR_CLAMP, REPEAT};
    let uniform = modes[..dims].iter().all(|&m| m == modes[0]);
    let m = if uniform { modes[0] } else { DYN };
    match fc {
        FC_RGBA8 => per_class!(FC_RGBA8, dims, cube, m),
        FC_R32F => per_class!(FC_R32F, dims, cube, m),
        _ => per_class!(FC_ANY, dims, cube, m),
    }
}
