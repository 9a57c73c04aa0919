//! What sampling knows about one (image shape, view, sampler, config) once it is bound: the
//! validated state and what the per-sample code would otherwise recompute (each level's
//! extent and addressing, border and out-of-bounds bits, address-mode codes, the format
//! class of byte reads), plus the per-lane steps every operation shares (where a coordinate
//! lands, offsets and Dref by policy).
//!
//! A type of its own so that the routines (`filter`, `sample`, `batch`, `gather`) take a
//! `&Binding` and never import the [`Kernel`](super::Kernel) that picks them.

use super::address;
use super::cube::select_face;
use super::cube::EdgeIndex;
use super::fetch::{out_of_range_texel, present, result_bits};
use super::format::{Aspect, Decoder, Format, NumKind};
use super::image::{Image, ImageView, ViewType};
use super::lanes::{Lanes, F, I};
use super::sampler::{Config, LodPrecision, Policy, Sampler};
use crate::{Error, Result};

/// Size and addressing of one absolute mip level, computed once (the image shape is part of
/// the kernel's key), so taps never recompute `max(1, x >> l)` or offsets.
#[derive(Clone, Copy, Debug)]
pub(super) struct Level {
    /// Extent in texels.
    pub size: [i32; 3],
    /// Extent as f32 (normalized → texel scale).
    pub sizef: [f32; 3],
    /// Byte offset of (level, layer 0, texel 0), and bytes per layer, row and z slice.
    pub base: usize,
    pub layer: usize,
    pub row: usize,
    pub slice: usize,
    /// The same as texel indices (the decoded plane's units).
    pub tbase: usize,
    pub tlayer: usize,
    /// Width and height are powers of two (repeat wraps as a mask).
    pub pow2: bool,
    /// The cube edge table of a face of this level's width (meaningful on cube views).
    pub edges: EdgeIndex,
}

impl Level {
    fn new(img: &Image, level: u32) -> Level {
        let e = img.level_extent(level);
        let ts = img.format().texel_size();
        let row = e[0] as usize * ts;
        let slice = row * e[1] as usize;
        let base = img.offset_unchecked(level, 0, [0, 0, 0], 0, e);
        Level {
            size: e.map(|x| x as i32),
            sizef: e.map(|x| x as f32),
            base,
            layer: slice * e[2] as usize,
            row,
            slice,
            tbase: base / ts,
            tlayer: slice * e[2] as usize / ts,
            pow2: e[0].is_power_of_two() && e[1].is_power_of_two(),
            edges: EdgeIndex::new(e[0] as i32, (slice * e[2] as usize / ts) as i32),
        }
    }
}

/// Format class of the byte reads: R8G8B8A8_UNORM decoded inline.
pub(super) const FC_RGBA8: u8 = 1;
/// Format class: one f32 in the first four bytes (R32_SFLOAT, the depth of D32 formats).
pub(super) const FC_R32F: u8 = 2;
/// Format class: anything else, through the decoder's `fn` pointers.
pub(super) const FC_ANY: u8 = 0;

/// A kernel's identity, the key of the batch path's per-thread memos: drawn from a
/// process-wide counter at construction and by every clone, so equal ids mean the same
/// binding; never 0.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct KernelId(pub u64);

impl KernelId {
    fn fresh() -> KernelId {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        KernelId(NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
    }
}

impl Clone for KernelId {
    fn clone(&self) -> KernelId {
        KernelId::fresh()
    }
}

/// The instantiation an operation's `pick` (in `sample`, `batch`, `gather`) chose for a
/// binding, by name: what the [`Kernel`](super::Kernel) reports and the tests count. A name,
/// not a comparison of function addresses (which the compiler may merge or duplicate).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Route {
    /// The general path; for a batch, quad after quad through the per-quad route.
    General,
    /// The plane kernel of a 2D or 2D-array view, address-mode instantiation `M`
    /// ([`address::instance`]).
    Plane(u8),
    /// The plane kernel with anisotropy, address-mode instantiation `M`.
    Aniso(u8),
    /// The plane kernel of a cube or cube-array view.
    Cube,
}

/// The bound state (see the module doc).
#[derive(Clone, Debug)]
pub(super) struct Binding {
    pub view: ImageView,
    format: Format,
    extent: [u32; 3],
    levels: u32,
    layers: u32,
    pub sampler: Sampler,
    pub cfg: Config,
    /// Hardware LOD precision (8.8 λ, 1/256 texel snapping).
    pub hw: bool,
    pub dec: Decoder,
    pub texel_size: usize,
    /// Format class of the byte reads ([`FC_RGBA8`], [`FC_R32F`], [`FC_ANY`]).
    pub class: u8,
    /// The border colour as f32 and as result bits (present components; 0,0,0,1 rule).
    pub border: [f32; 4],
    pub border_raw: [u32; 4],
    /// What an out-of-bounds read returns.
    pub oob: [u32; 4],
    /// The view's base-level extent as f32.
    pub size0: [f32; 3],
    /// Spatial dimensions of the view (cube: 3, a direction).
    pub dims: usize,
    pub cube: bool,
    pub snorm: bool,
    /// UINT/SINT: nearest texel of the nearest level, raw bits.
    pub integer: bool,
    /// The image has a decoded plane and this binding reads a float aspect.
    pub plane: bool,
    /// Address-mode codes per axis (`AddressMode as u8`, [`address`]'s).
    pub modes: [u8; 3],
    /// Every absolute level of the image.
    pub lv: Vec<Level>,
    dref_unorm_bits: Option<u32>,
    /// `Some(maxAnisotropy)` when anisotropic filtering applies (2D / 2D-array views).
    pub aniso: Option<f32>,
    pub id: KernelId,
}

/// Array layer from a coordinate: round to nearest even, clamp to `[0, count − 1]` (NaN → 0).
#[inline(always)]
pub(super) fn layer_index(a: f32, count: u32) -> u32 {
    let r = a.round_ties_even();
    if r.is_nan() || r <= 0.0 {
        0
    } else {
        (r as u32).min(count - 1)
    }
}

impl Binding {
    /// Validates the view and sampler against the image and derives the state.
    pub fn new(img: &Image, view: &ImageView, sampler: &Sampler, cfg: Config) -> Result<Binding> {
        view.validate(img)?;
        let dec = img.format().decoder(view.aspect)?;
        sampler.validate(view, dec.kind)?;
        if img.samples() > 1 {
            return Err(Error::Texture(
                "multisampled images cannot be sampled (fetch only)".into(),
            ));
        }
        let format = img.format();
        let comps = if view.aspect == Aspect::Color {
            format.components()
        } else {
            1
        };
        let border = present(comps, sampler.border_color.rgba());
        let class = match (format, view.aspect) {
            (Format::R8G8B8A8_UNORM, _) => FC_RGBA8,
            (Format::R32_SFLOAT, _)
            | (Format::D32_SFLOAT | Format::D32_SFLOAT_S8_UINT, Aspect::Depth | Aspect::Color) => {
                FC_R32F
            }
            _ => FC_ANY,
        };
        Ok(Binding {
            view: *view,
            format,
            extent: img.extent(),
            levels: img.levels(),
            layers: img.layers(),
            sampler: *sampler,
            cfg,
            hw: cfg.precision == LodPrecision::Hardware,
            dec,
            texel_size: format.texel_size(),
            class,
            border,
            border_raw: result_bits(dec.kind, border),
            oob: out_of_range_texel(comps, dec.kind),
            size0: view.level_extent(img, 0).map(|x| x as f32),
            dims: view.view_type.spatial_dims(),
            cube: view.view_type.is_cube(),
            snorm: format.is_snorm(),
            integer: dec.kind != NumKind::Float,
            plane: img.plane_eligible() && dec.kind == NumKind::Float,
            modes: sampler.address_mode.map(|m| m as u8),
            lv: (0..img.levels()).map(|l| Level::new(img, l)).collect(),
            dref_unorm_bits: format
                .unorm_depth_bits()
                .filter(|_| view.aspect != Aspect::Stencil),
            aniso: (sampler.anisotropy_enable
                && sampler.max_anisotropy > 1.0
                && matches!(view.view_type, ViewType::D2 | ViewType::D2Array))
            .then_some(sampler.max_anisotropy),
            id: KernelId::fresh(),
        })
    }

    /// The image must have the shape the binding was made for.
    pub fn check(&self, img: &Image) -> Result<()> {
        if img.format() != self.format
            || img.extent() != self.extent
            || img.levels() != self.levels
            || img.layers() != self.layers
        {
            return Err(Error::Texture(format!(
                "image {:?} {:?} does not match the kernel's {:?} {:?}",
                img.format(),
                img.extent(),
                self.format,
                self.extent
            )));
        }
        Ok(())
    }

    /// Whether the lane-group kernel on the plane serves this binding: exact precision,
    /// normalized coordinates, a decoded plane, a 2D, 2D-array or cube view.
    pub fn lanewise(&self) -> bool {
        !self.hw
            && !self.sampler.unnormalized_coordinates
            && self.plane
            && (self.cube || matches!(self.view.view_type, ViewType::D2 | ViewType::D2Array))
    }

    /// The address mode of both axes of a 2D footprint, or `DYN` when they differ.
    pub fn mode_2d(&self) -> u8 {
        if self.modes[0] == self.modes[1] {
            self.modes[0]
        } else {
            address::DYN
        }
    }

    /// The errors and the Vulkan fallback of a Dref operand against `compareEnable`: `Ok(true)`
    /// compares, `Ok(false)` does not (a Dref through a non-comparing sampler under the Vulkan
    /// policy: what lavapipe and SwiftShader do); `what` names the operation.
    pub fn compares(&self, dref: bool, what: &str) -> Result<bool> {
        match (dref, self.sampler.compare_enable) {
            (true, false) if self.cfg.policy == Policy::D3D => Err(Error::Texture(format!(
                "a Dref {what} through a sampler with compareEnable off (D3D: needs a \
                 SamplerComparisonState)"
            ))),
            (false, true) => Err(Error::Texture(format!(
                "a {what} without a Dref operand through a sampler with compareEnable"
            ))),
            (true, true) => Ok(true),
            _ => Ok(false),
        }
    }

    /// Spatial coordinates (normalized, or face coordinates), absolute layer and face of one
    /// lane's coordinate operand.
    #[inline(always)]
    pub fn locate(&self, c: &[f32; 4]) -> ([f32; 3], u32, u32) {
        let v = &self.view;
        if self.cube {
            let fc = select_face([c[0], c[1], c[2]]);
            let st = fc.st();
            let cube = if v.view_type == ViewType::CubeArray {
                layer_index(c[3], v.layer_count / 6)
            } else {
                0
            };
            return (
                [st[0], st[1], 0.0],
                v.base_layer + 6 * cube + fc.face,
                fc.face,
            );
        }
        let layer = match v.view_type.layer_coord() {
            Some(i) => v.base_layer + layer_index(c[i], v.layer_count),
            None => v.base_layer,
        };
        let d = self.dims;
        let st = [
            c[0],
            if d >= 2 { c[1] } else { 0.0 },
            if d >= 3 { c[2] } else { 0.0 },
        ];
        (st, layer, 0)
    }

    /// D3D honours only the low `bits` bits of programmable offsets (sign-extended: 4 for
    /// sample ops, 6 for gathers); Vulkan uses them as given (the caller range-checks).
    #[inline]
    pub fn offset_bits(&self, o: [i32; 3], bits: u32) -> [i32; 3] {
        match self.cfg.policy {
            Policy::Vulkan => o,
            Policy::D3D => o.map(|x| (x << (32 - bits)) >> (32 - bits)),
        }
    }

    /// [`Binding::offset_bits`] of the lanes' offsets on one axis, as f32.
    #[inline(always)]
    pub(super) fn offset_lanes<L: Lanes>(&self, o: I<L>, bits: u32) -> F<L> {
        match self.cfg.policy {
            Policy::Vulkan => o.to_f32(),
            Policy::D3D => {
                let x = o.arr();
                o.lanes()
                    .f_of(|k| self.offset_bits([x[k], 0, 0], bits)[0] as f32)
            }
        }
    }

    /// Dref after the UNORM clamp (and D3D quantization).
    #[inline]
    pub fn dref_value(&self, r: f32) -> f32 {
        match self.dref_unorm_bits {
            None => r,
            Some(bits) => {
                let r = r.clamp(0.0, 1.0);
                if self.cfg.policy == Policy::D3D {
                    // same arithmetic as the UNORM decoder: integer code / max in f32
                    let m = ((1u64 << bits) - 1) as f64;
                    (r as f64 * m).round_ties_even() as f32 / m as f32
                } else {
                    r
                }
            }
        }
    }

    /// [`Binding::dref_value`] of every lane: no clamp, the Vulkan clamp lane-wise
    /// (`f32::clamp`'s result: a NaN stays, −0 stays), or lane by lane.
    #[inline(always)]
    pub(super) fn dref_lanes<L: Lanes>(&self, d: F<L>) -> F<L> {
        let l = d.lanes();
        match self.dref_unorm_bits {
            None => d,
            Some(_) if self.cfg.policy == Policy::Vulkan => {
                let (zero, one) = (l.f(0.0), l.f(1.0));
                let d = F::select(d.lt(zero), zero, d);
                F::select(one.lt(d), one, d)
            }
            Some(_) => {
                let r = d.arr();
                l.f_of(|k| self.dref_value(r[k]))
            }
        }
    }

    /// Normalized → texel space at absolute `level`, plus offsets (cube faces: square, no
    /// offsets; unnormalized coordinates are texel space already).
    #[inline(always)]
    pub fn to_texel(&self, level: u32, st: [f32; 3], off: [i32; 3]) -> [f32; 3] {
        if self.sampler.unnormalized_coordinates {
            return st;
        }
        let e = self.lv[level as usize].sizef;
        if self.cube {
            return [st[0] * e[0], st[1] * e[0], 0.0];
        }
        [
            st[0] * e[0] + off[0] as f32,
            st[1] * e[1] + off[1] as f32,
            st[2] * e[2] + off[2] as f32,
        ]
    }

    /// Snaps a texel-space coordinate to 1/256 (RNE) in hardware precision.
    #[inline(always)]
    pub fn snap(&self, x: f32) -> f32 {
        if self.hw {
            (x * 256.0).round_ties_even() / 256.0
        } else {
            x
        }
    }
}
