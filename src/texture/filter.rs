//! Filtering inside one level: nearest / linear taps, wrap, border, per-tap depth compare
//! (PCF), seamless cube edges and corners (sampling.md §4.3, §7, §8, §10).
//!
//! Each function is monomorphised over (format class, dimensions, linear, address mode per
//! axis) and wrapped as a [`LevelFilter`] type; a [`Kernel`] picks one quad routine
//! ([`pick`]) with the nearest and linear instantiations inlined, so the per-tap code has no
//! branch on the format class or the wrap mode and no call.
//!
//! The filters are generic over a [`Recorder`] too: they report each footprint, its
//! fractions, every tap (where it read, before and after wrapping, its value, comparison and
//! weight) and the filtered value. Normal runs pass `NoRecord`, whose calls compile away;
//! [`pick_explain`] gives the debugger's instantiations (`Kernel::explain_sample`).

use super::address::{wrap, BORDER, DYN};
use super::cube::remap_edge;
use super::explain::{FootprintExplain, Log, Recorder, TapExplain, Texel};
use super::format::{Aspect, Format, UNORM8};
use super::image::Image;
use super::lod::{LodBase, LodFrom};
use super::sample::{Kernel, SampleArgs};
use super::sampler::Filter;
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

/// What a footprint reports besides its taps: its anisotropic probe and its weight in the
/// lane's sum.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Note {
    pub probe: u32,
    pub weight: f32,
}

/// Where a tap reads, for the record: its coordinates before wrapping, the absolute layer
/// and cube face of the texel, its weight in the footprint.
#[derive(Clone, Copy)]
pub(super) struct TapAt {
    unwrapped: [i32; 3],
    layer: u32,
    face: Option<u32>,
    weight: f32,
}

/// The weight of the tap on the upper side (`upper`) or the lower of an axis with
/// fraction `f`.
#[inline(always)]
fn side(f: f32, upper: bool) -> f32 {
    if upper {
        f
    } else {
        1.0 - f
    }
}

impl Kernel {
    /// Reads a texel of a level/layer addressed by `lay` (or the border when any index is −1),
    /// decodes it, compares if Dref. `may_border`: an index may be −1 (a border address mode);
    /// constant per instantiation, so the check vanishes for the other modes.
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
            Some(r) => self.compared(r, v),
        }
    }

    /// `Dref OP texel` as the filtered value of a compared texel: `(pass, 0, 0, 1)`.
    #[inline(always)]
    fn compared(&self, r: f32, v: [f32; 4]) -> [f32; 4] {
        let pass = self.sampler.compare_op.test(r, v[0]);
        [if pass { 1.0 } else { 0.0 }, 0.0, 0.0, 1.0]
    }

    /// [`Kernel::texel_in`] for one tap of a footprint, reported to `rec` with where it read
    /// (`at`, a border when `may_border` and an index is −1), the texel's value and, for Dref,
    /// its comparison.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn tap<const F: u8, R: Recorder>(
        &self,
        data: &[u8],
        lay: &Layout,
        ijk: [i32; 3],
        dref: Option<f32>,
        may_border: bool,
        at: TapAt,
        rec: &R,
    ) -> [f32; 4] {
        if !R::ON {
            return self.texel_in::<F>(data, lay, ijk, dref, may_border);
        }
        let v = self.texel_in::<F>(data, lay, ijk, None, may_border);
        let out = match dref {
            Some(r) => self.compared(r, v),
            None => v,
        };
        let border = may_border && (ijk[0] | ijk[1] | ijk[2]) < 0;
        rec.tap(TapExplain {
            unwrapped: at.unwrapped,
            texel: if border {
                Texel::Border
            } else {
                Texel::At {
                    layer: at.layer,
                    face: at.face,
                    ijk,
                }
            },
            weight: at.weight,
            value: v.map(f32::to_bits),
            compare: dref.map(|_| out[0] == 1.0),
        });
        out
    }

    /// The start of a footprint's record: `t` with `note`, filtered by `linear` or nearest.
    #[inline(always)]
    fn footprint<R: Recorder>(t: &Tap, note: Note, linear: bool, rec: &R) {
        rec.footprint(FootprintExplain {
            probe: note.probe,
            level: t.level,
            weight: note.weight,
            position: t.uvw,
            filter: if linear {
                Filter::Linear
            } else {
                Filter::Nearest
            },
            ..FootprintExplain::default()
        });
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

/// 1D/2D/3D filter with address modes `MU`, `MV`, `MW` (`DYN` → read from the kernel); the
/// footprint reported to `rec` (taps x fastest, then y, then z).
#[inline(always)]
pub fn level_nd<
    const F: u8,
    const D: usize,
    const LIN: bool,
    const MU: u8,
    const MV: u8,
    const MW: u8,
    R: Recorder,
>(
    k: &Kernel,
    img: &Image,
    t: &Tap,
    note: Note,
    rec: &R,
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
    if R::ON {
        Kernel::footprint(t, note, LIN, rec);
    }
    // texel `ijk` (wrapped) read from `unwrapped` with `weight` in the footprint
    let read = |ijk: [i32; 3], unwrapped: [i32; 3], weight: f32| {
        let at = TapAt {
            unwrapped,
            layer: t.layer,
            face: None,
            weight,
        };
        k.tap::<F, R>(data, &lay, ijk, t.dref, mb, at, rec)
    };
    let v = if !LIN {
        let u = k.snap(t.uvw[0]);
        let v = k.snap(t.uvw[1]);
        let w = k.snap(t.uvw[2]);
        let c = [fl(u), fl(v), fl(w)];
        let unwrapped = std::array::from_fn(|d| if d < D { c[d] } else { 0 });
        read([wu(c[0]), wv(c[1]), ww(c[2])], unwrapped, 1.0)
    } else {
        let x = k.snap(t.uvw[0] - 0.5);
        let (i0, a) = split(x);
        let i1 = i0.saturating_add(1);
        let (iu0, iu1) = (wu(i0), wu(i1));
        let (j0, b) = if D >= 2 {
            split(k.snap(t.uvw[1] - 0.5))
        } else {
            (0, 0.0)
        };
        let j1 = if D >= 2 { j0.saturating_add(1) } else { 0 };
        let (jv0, jv1) = (wv(j0), wv(j1));
        let (k0, c) = if D >= 3 {
            split(k.snap(t.uvw[2] - 0.5))
        } else {
            (0, 0.0)
        };
        let k1 = if D >= 3 { k0.saturating_add(1) } else { 0 };
        if R::ON {
            rec.fractions([a, b, c]);
        }
        // the weight of the tap on the upper (`1`) or lower (`0`) side of each axis
        let weight = |x: u8, y: u8, z: u8| {
            let wy = if D >= 2 { side(b, y == 1) } else { 1.0 };
            let wz = if D >= 3 { side(c, z == 1) } else { 1.0 };
            side(a, x == 1) * wy * wz
        };
        if D == 1 {
            lerp4(
                read([iu0, 0, 0], [i0, 0, 0], weight(0, 0, 0)),
                read([iu1, 0, 0], [i1, 0, 0], weight(1, 0, 0)),
                a,
            )
        } else {
            // the four taps of slice `kk` (unwrapped `ku`, side `z`)
            let plane = |kk: i32, ku: i32, z: u8| {
                let top = lerp4(
                    read([iu0, jv0, kk], [i0, j0, ku], weight(0, 0, z)),
                    read([iu1, jv0, kk], [i1, j0, ku], weight(1, 0, z)),
                    a,
                );
                let bot = lerp4(
                    read([iu0, jv1, kk], [i0, j1, ku], weight(0, 1, z)),
                    read([iu1, jv1, kk], [i1, j1, ku], weight(1, 1, z)),
                    a,
                );
                lerp4(top, bot, b)
            };
            if D == 2 {
                plane(0, 0, 0)
            } else {
                lerp4(plane(ww(k0), k0, 0), plane(ww(k1), k1, 1), c)
            }
        }
    };
    if R::ON {
        rec.value(v);
    }
    v
}

/// Seamless cube filter on one face (`uvw[0..2]` face texel coordinates); the footprint
/// reported to `rec` (a corner's missing tap after the three it averages).
#[inline]
pub fn level_cube<const F: u8, const LIN: bool, R: Recorder>(
    k: &Kernel,
    img: &Image,
    t: &Tap,
    note: Note,
    rec: &R,
) -> [f32; 4] {
    let lv = &k.lv[t.level as usize];
    let n = lv.size[0];
    let lay = lv.layout(t.layer);
    let data = img.bytes();
    if R::ON {
        Kernel::footprint(t, note, LIN, rec);
    }
    // a tap of this face: texel `(i, j)`, from `(ui, uj)`, with `weight`
    let here = |i: i32, j: i32, ui: i32, uj: i32, weight: f32| {
        let at = TapAt {
            unwrapped: [ui, uj, 0],
            layer: t.layer,
            face: Some(t.face),
            weight,
        };
        k.tap::<F, R>(data, &lay, [i, j, 0], t.dref, false, at, rec)
    };
    let v = if !LIN {
        let (ui, uj) = (fl(k.snap(t.uvw[0])), fl(k.snap(t.uvw[1])));
        here(ui.clamp(0, n - 1), uj.clamp(0, n - 1), ui, uj, 1.0)
    } else {
        let x = k.snap(t.uvw[0] - 0.5);
        let y = k.snap(t.uvw[1] - 0.5);
        let (i0, a) = split(x);
        let (j0, b) = split(y);
        let (i1, j1) = (i0.saturating_add(1), j0.saturating_add(1));
        let inside = i0 >= 0 && j0 >= 0 && i1 < n && j1 < n;
        if R::ON {
            rec.fractions([a, b, 0.0]);
        }
        let weight = |i: i32, j: i32| side(a, i == i1) * side(b, j == j1);
        let fetch = |i: i32, j: i32| -> Option<[f32; 4]> {
            if inside {
                return Some(here(i, j, i, j, weight(i, j)));
            }
            let (f, ni, nj) = remap_edge(t.face, i, j, n)?;
            let layer = t.layer - t.face + f;
            let at = TapAt {
                unwrapped: [i, j, 0],
                layer,
                face: Some(f),
                weight: weight(i, j),
            };
            let lay = lv.layout(layer);
            Some(k.tap::<F, R>(data, &lay, [ni, nj, 0], t.dref, true, at, rec))
        };
        let q = [fetch(i0, j0), fetch(i1, j0), fetch(i0, j1), fetch(i1, j1)];
        if let [Some(t00), Some(t10), Some(t01), Some(t11)] = q {
            lerp4(lerp4(t00, t10, a), lerp4(t01, t11, a), b)
        } else {
            // corner: the missing texel is the average of the three real ones (in f64, so
            // three equal texels average to exactly themselves)
            let mut s = [0.0f64; 4];
            for v in q.iter().flatten() {
                for c in 0..4 {
                    s[c] += v[c] as f64;
                }
            }
            let s = s.map(|x| (x / 3.0) as f32);
            if R::ON {
                let corners = [(i0, j0), (i1, j0), (i0, j1), (i1, j1)];
                for (&(i, j), v) in corners.iter().zip(&q) {
                    if v.is_none() {
                        rec.tap(TapExplain {
                            unwrapped: [i, j, 0],
                            texel: Texel::CornerAverage,
                            weight: weight(i, j),
                            value: s.map(f32::to_bits),
                            compare: None,
                        });
                    }
                }
            }
            let q = q.map(|v| v.unwrap_or(s));
            lerp4(lerp4(q[0], q[1], a), lerp4(q[2], q[3], a), b)
        }
    };
    if R::ON {
        rec.value(v);
    }
    v
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
pub(super) trait LevelFilter {
    /// Filters one tap, reporting its footprint (probe and weight: `note`) to `rec`.
    fn filter<R: Recorder>(k: &Kernel, img: &Image, t: &Tap, note: Note, rec: &R) -> [f32; 4];
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
    fn filter<R: Recorder>(k: &Kernel, img: &Image, t: &Tap, note: Note, rec: &R) -> [f32; 4] {
        level_nd::<F, D, LIN, MU, MV, MW, R>(k, img, t, note, rec)
    }
}

/// [`level_cube`] as a [`LevelFilter`].
pub struct CubeFilter<const F: u8, const LIN: bool>;

impl<const F: u8, const LIN: bool> LevelFilter for CubeFilter<F, LIN> {
    #[inline(always)]
    fn filter<R: Recorder>(k: &Kernel, img: &Image, t: &Tap, note: Note, rec: &R) -> [f32; 4] {
        level_cube::<F, LIN, R>(k, img, t, note, rec)
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

/// The routine of `Kernel::explain_sample`: the general lane loop recording into a [`Log`].
pub(super) type ExplainFn =
    fn(&Kernel, &Image, &SampleArgs, &[LodBase; 4], &[LodFrom; 4], &Log) -> QuadBits;

/// The explain routine of a view with `dims` spatial dimensions (or a cube) and format class
/// `fc`: the quad routine [`pick`] gives for its class and view shape, with every address
/// mode read at run time (the same wrap rules; one instantiation per class and shape).
pub(super) fn pick_explain(dims: usize, cube: bool, fc: u8) -> ExplainFn {
    macro_rules! lanes {
        ($n:ty, $l:ty) => {
            Kernel::sample_lanes::<$n, $l, Log> as ExplainFn
        };
    }
    macro_rules! shape {
        ($f:ident) => {
            if cube {
                lanes!(CubeFilter<$f, false>, CubeFilter<$f, true>)
            } else {
                match dims {
                    1 => lanes!(Nd<$f, 1, false, DYN, DYN, DYN>, Nd<$f, 1, true, DYN, DYN, DYN>),
                    2 => lanes!(Nd<$f, 2, false, DYN, DYN, DYN>, Nd<$f, 2, true, DYN, DYN, DYN>),
                    _ => lanes!(Nd<$f, 3, false, DYN, DYN, DYN>, Nd<$f, 3, true, DYN, DYN, DYN>),
                }
            }
        };
    }
    match fc {
        FC_RGBA8 => shape!(FC_RGBA8),
        FC_R32F => shape!(FC_R32F),
        _ => shape!(FC_ANY),
    }
}
