//! The per-(view, sampler) [`Kernel`] and the quad sampling operation (sampling.md §1.1).

use super::cube::{select_face, transform_deriv};
use super::fast::{pick_fast, FastFn};
use super::fast_gather::{pick_fast_gather, GatherFn};
use super::fast_plane::LevelVecs;
use super::fast_wide::{pick_usual, pick_wide, UsualFnDbg, WideFnDbg};
use super::old_filter::{fl, format_class, pick, LevelFilter, LevelInfo, QuadFn, Tap, FC_RGBA8};
use super::format::{Decoder, Format, NumKind, UNORM8};
use super::image::{Image, ImageView, ViewType};
use super::lod::{
    biased, clamped, lod_base, quad_derivs, select_levels, snap_lod, Levels, LodBase, LodMode,
};
use super::sampler::{Config, Filter, LodPrecision, MipmapMode, Policy, Sampler};
use super::{address, QuadBits};
use crate::{Error, Result};

pub use super::sample::SampleArgs;

/// Everything about a (image shape, view, sampler, config) chosen once: decoders, border
/// values, filter instantiations. Build with [`Kernel::new`] (or through a
/// [`KernelCache`](super::KernelCache)); then call the quad operations with the image.
#[derive(Clone, Debug)]
pub struct Kernel {
    pub(super) view: ImageView,
    pub(super) format: Format,
    extent: [u32; 3],
    levels: u32,
    layers: u32,
    pub(super) sampler: Sampler,
    pub(super) cfg: Config,
    pub(super) hw: bool,
    pub(super) dec: Decoder,
    pub(super) texel_size: usize,
    pub(super) border: [f32; 4],
    pub(super) border_raw: [u32; 4],
    pub(super) oob_raw: [u32; 4],
    pub(super) size0: [f32; 3],
    pub(super) dims: usize,
    pub(super) cube: bool,
    pub(super) snorm: bool,
    rgba8: bool,
    /// The image has a decoded plane ([`Image::plane`]) and this kernel reads it (a float
    /// aspect): the fast paths' plane routines apply.
    pub(super) plane: bool,
    pub(super) modes: [u8; 3],
    /// Size and addressing of every absolute level of the image.
    pub(super) lv: Vec<LevelInfo>,
    /// The same extents lane-wise, for the plane routines (empty without a plane).
    pub(super) plane_levels: Vec<LevelVecs>,
    /// Bit `l`: absolute level `l` has a power-of-two width and height (repeat wraps as a
    /// mask, `address::wrap4`). Kept here because `n & (n − 1) == 0` compiles to a bit-count
    /// expansion (~17 instructions) on baseline x86-64.
    pub(super) pow2_levels: u64,
    quad_fn: QuadFnDbg,
    /// The quad-wide routine when the (view, sampler) is covered ([`super::fast`]).
    fast: Option<FastFnDbg>,
    /// The quad-wide gather when the (view, sampler) is covered ([`super::fast_gather`]).
    fast_gather: Option<GatherFnDbg>,
    /// The batch-wide routine when the (view, sampler) is covered ([`super::fast_wide`]).
    pub(super) wide: Option<WideFnDbg>,
    /// The lean batch entry of the usual instruction (2D view, implicit LOD without bias, no
    /// offsets) on a plane kernel ([`super::fast_wide`]'s `pick_usual`).
    pub(super) usual: Option<UsualFnDbg>,
    dref_unorm_bits: Option<u32>,
    pub(super) aniso: Option<f32>,
    /// This kernel's identity (no other kernel, clones included, ever has it): the key of the
    /// batch path's per-thread λ memo (`fast_wide.rs`).
    pub(super) id: KernelId,
    /// The bound state of the sampling kernel.
    pub(super) bind: super::binding::Binding,
    pub(super) quad_route: super::sample::QuadFn,
    pub(super) batch_route: super::batch::BatchFn,
    pub(super) gather_route: super::gather::GatherFn,
    pub(super) gather_batch_route: super::gather::BatchFn,
    pub(super) legacy: bool,
}

/// Transition switch: the new kernel's routes serve `Kernel::sample`.
pub(super) static NEW_ROUTES: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// A kernel's identity: drawn from a process-wide counter at construction and again by
/// every clone (a clone may be changed before use, e.g. the tests' `fast: None` copies), so
/// that equal ids mean the same kernel, whose λ and level selection are fixed; never 0.
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

#[derive(Clone, Copy)]
struct QuadFnDbg(QuadFn);
impl std::fmt::Debug for QuadFnDbg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("QuadFn")
    }
}

#[derive(Clone, Copy)]
struct GatherFnDbg(GatherFn);
impl std::fmt::Debug for GatherFnDbg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("GatherFn")
    }
}

#[derive(Clone, Copy)]
struct FastFnDbg(FastFn);
impl std::fmt::Debug for FastFnDbg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FastFn")
    }
}

/// What one lane's λ selects: the level filter and the levels with their weights.
#[derive(Clone, Copy, Debug)]
pub(super) struct LaneLod {
    /// Linear (else nearest) texel filter.
    pub linear: bool,
    /// Levels (view-relative) and weights.
    pub levels: Levels,
}

impl Default for LaneLod {
    fn default() -> LaneLod {
        LaneLod {
            linear: false,
            levels: Levels {
                l: [(0, 1.0), (0, 0.0)],
                n: 1,
            },
        }
    }
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

/// Missing-component defaults after replacing the present ones (0,0,0,1 rule).
fn present(comps: usize, v: [f32; 4]) -> [f32; 4] {
    let mut o = [0.0, 0.0, 0.0, 1.0];
    o[..comps].copy_from_slice(&v[..comps]);
    o
}

impl Kernel {
    /// Validates the view and sampler against the image and picks the specialised routines.
    pub fn new(img: &Image, view: &ImageView, sampler: &Sampler, cfg: Config) -> Result<Kernel> {
        view.validate(img)?;
        let dec = img.format().decoder(view.aspect)?;
        sampler.validate(view, dec.kind)?;
        if img.samples() > 1 {
            return Err(Error::Texture(
                "multisampled images cannot be sampled (fetch only)".into(),
            ));
        }
        let format = img.format();
        let comps = if view.aspect == super::Aspect::Color {
            format.components()
        } else {
            1
        };
        let border = present(comps, sampler.border_color.rgba());
        let border_raw = match dec.kind {
            NumKind::Float => border.map(f32::to_bits),
            _ => border.map(|x| x as u32),
        };
        let one = if dec.kind == NumKind::Float {
            1.0f32.to_bits()
        } else {
            1
        };
        let oob_raw = if comps == 4 { [0; 4] } else { [0, 0, 0, one] };
        let e = view.level_extent(img, 0);
        let dims = view.view_type.spatial_dims();
        let cube = view.view_type.is_cube();
        let modes = sampler.address_mode.map(address::code);
        let aniso = (sampler.anisotropy_enable
            && sampler.max_anisotropy > 1.0
            && matches!(view.view_type, ViewType::D2 | ViewType::D2Array))
        .then_some(sampler.max_anisotropy);
        let mut k = Kernel {
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
            border,
            border_raw,
            oob_raw,
            size0: e.map(|x| x as f32),
            dims,
            cube,
            snorm: format.is_snorm(),
            plane: img.plane_eligible() && dec.kind == NumKind::Float,
            rgba8: format_class(format, view.aspect) == FC_RGBA8,
            modes,
            lv: (0..img.levels()).map(|l| LevelInfo::new(img, l)).collect(),
            plane_levels: Vec::new(),
            pow2_levels: (0..img.levels().min(64)).fold(0, |bits, l| {
                let e = img.level_extent(l);
                let p = e[0].is_power_of_two() && e[1].is_power_of_two();
                bits | (p as u64) << l
            }),
            quad_fn: QuadFnDbg(pick(dims, cube, modes, format_class(format, view.aspect))),
            fast: None,
            fast_gather: None,
            wide: None,
            usual: None,
            dref_unorm_bits: format
                .unorm_depth_bits()
                .filter(|_| view.aspect != super::Aspect::Stencil),
            aniso,
            id: KernelId::fresh(),
            bind: super::binding::Binding::new(img, view, sampler, cfg)?,
            quad_route: super::sample::general,
            batch_route: super::batch::per_quad,
            gather_route: super::gather::general,
            gather_batch_route: super::gather::per_quad,
            legacy: false,
        };
        k.gather_route = super::gather::pick(&k.bind);
        k.gather_batch_route = super::gather::pick_batch(&k.bind);
        k.quad_route = super::sample::pick(&k.bind);
        k.batch_route = super::batch::pick(&k.bind);
        if k.plane {
            k.plane_levels = LevelVecs::of_kernel(&k);
        }
        k.fast = pick_fast(&k).map(FastFnDbg);
        k.fast_gather = pick_fast_gather(&k).map(GatherFnDbg);
        k.wide = pick_wide(&k);
        k.usual = pick_usual(&k);
        Ok(k)
    }

    /// Whether absolute level `level` has a power-of-two width and height.
    #[inline(always)]
    pub(super) fn pow2_level(&self, level: u32) -> bool {
        self.pow2_levels.checked_shr(level).unwrap_or(0) & 1 != 0
    }

    /// Whether the quad-wide fast path covers this kernel's (view, sampler, format, config).
    pub fn has_fast_path(&self) -> bool {
        self.fast.is_some()
    }

    /// Whether the quad-wide gather fast path covers this kernel.
    pub fn has_fast_gather(&self) -> bool {
        self.fast_gather.is_some()
    }

    /// The fast gather routine, if any.
    pub(super) fn fast_gather_fn(&self) -> Option<GatherFn> {
        self.fast_gather.map(|f| f.0)
    }

    /// [`Kernel::gather`] without the fast path (for tests holding the two to each other).
    #[cfg(test)]
    pub(super) fn gather_general(&self, img: &Image, a: &super::GatherArgs) -> Result<QuadBits> {
        let k = Kernel {
            fast_gather: None,
            legacy: true,
            ..self.clone()
        };
        k.gather(img, a)
    }

    /// Whether the image has the shape the kernel was built for.
    #[inline(always)]
    pub(super) fn same_shape(&self, img: &Image) -> bool {
        img.format() == self.format
            && img.extent() == self.extent
            && img.levels() == self.levels
            && img.layers() == self.layers
    }

    /// The image must have the shape the kernel was built for.
    pub(super) fn check(&self, img: &Image) -> Result<()> {
        if !self.same_shape(img) {
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

    /// The out-of-bounds result (zeros in present components, (0,0,0,1) defaults).
    pub fn oob(&self) -> [u32; 4] {
        self.oob_raw
    }

    /// Spatial coordinates (normalized or face), absolute layer and face of one lane.
    #[inline(always)]
    pub(super) fn locate(&self, c: &[f32; 4]) -> ([f32; 3], u32, u32) {
        let v = &self.view;
        let clamp_layer = layer_index;
        if self.cube {
            let fc = select_face([c[0], c[1], c[2]]);
            let st = fc.st();
            let cube = if v.view_type == ViewType::CubeArray {
                clamp_layer(c[3], v.layer_count / 6)
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
            Some(i) => v.base_layer + clamp_layer(c[i], v.layer_count),
            None => v.base_layer,
        };
        let st = std::array::from_fn(|i| if i < self.dims { c[i] } else { 0.0 });
        (st, layer, 0)
    }

    /// λ_base for one lane from normalized derivatives (cube: direction derivatives).
    pub(super) fn lod_from_derivs(
        &self,
        c: &[f32; 4],
        dx: [f32; 3],
        dy: [f32; 3],
        aniso: bool,
    ) -> LodBase {
        let s = self.size0;
        if self.cube {
            let fc = select_face([c[0], c[1], c[2]]);
            let (a, b) = (transform_deriv(&fc, dx), transform_deriv(&fc, dy));
            let mx = [a[0] * s[0], a[1] * s[0], 0.0];
            let my = [b[0] * s[0], b[1] * s[0], 0.0];
            return lod_base(mx, my, 2, None, [0.0; 3], [0.0; 3]);
        }
        let mut mx = [0.0; 3];
        let mut my = [0.0; 3];
        for i in 0..self.dims {
            mx[i] = dx[i] * s[i];
            my[i] = dy[i] * s[i];
        }
        lod_base(
            mx,
            my,
            self.dims,
            if aniso { self.aniso } else { None },
            dx,
            dy,
        )
    }

    /// [`Kernel::lod_from_derivs`] for a 2D / 2D-array view: the same products and the same
    /// [`lod_base`], with the dimension count a constant so both inline (the common case).
    #[inline(always)]
    pub(super) fn lod_from_derivs_2d(&self, dx: [f32; 3], dy: [f32; 3], aniso: bool) -> LodBase {
        let s = self.size0;
        let mx = [dx[0] * s[0], dx[1] * s[1], 0.0];
        let my = [dy[0] * s[0], dy[1] * s[1], 0.0];
        lod_base(mx, my, 2, if aniso { self.aniso } else { None }, dx, dy)
    }

    /// Per-lane λ_base (+ probes) for a LOD mode; hardware precision shares lane 0's implicit λ.
    pub(super) fn lod_bases(&self, coords: &[[f32; 4]; 4], lod: &LodMode) -> [LodBase; 4] {
        match *lod {
            LodMode::Explicit(l) => l.map(LodBase::iso),
            LodMode::Zero => [LodBase::iso(0.0); 4],
            LodMode::Grad { dx, dy } if !self.cube => {
                // off cubes λ and the probes depend on the derivatives alone: lanes whose
                // derivatives are lane 0's (bit for bit; the usual `Grad`) share its result
                let one = |i: usize| {
                    if self.dims == 2 {
                        self.lod_from_derivs_2d(dx[i], dy[i], true)
                    } else {
                        self.lod_from_derivs(&coords[i], dx[i], dy[i], true)
                    }
                };
                let b0 = one(0);
                let bits = |v: [f32; 3]| v.map(f32::to_bits);
                let same = |i: usize| bits(dx[i]) == bits(dx[0]) && bits(dy[i]) == bits(dy[0]);
                std::array::from_fn(|i| if i == 0 || same(i) { b0 } else { one(i) })
            }
            LodMode::Grad { dx, dy } => {
                std::array::from_fn(|i| self.lod_from_derivs(&coords[i], dx[i], dy[i], true))
            }
            LodMode::Implicit { fine, .. } => {
                // coarse derivatives are the same in every lane and, off cubes, λ does not
                // depend on the coordinate: per-lane evaluation would give four equal values
                if self.dims == 2 && !self.cube && (self.hw || !fine) {
                    let d = |b: usize| std::array::from_fn(|i| coords[b][i] - coords[0][i]);
                    [self.lod_from_derivs_2d(d(1), d(2), true); 4]
                } else if self.hw || (!fine && !self.cube) {
                    let d = |b: usize| std::array::from_fn(|i| coords[b][i] - coords[0][i]);
                    [self.lod_from_derivs(&coords[0], d(1), d(2), true); 4]
                } else {
                    let d = quad_derivs(coords, fine);
                    std::array::from_fn(|i| self.lod_from_derivs(&coords[i], d[i].0, d[i].1, true))
                }
            }
        }
    }

    /// λ' (biased, unclamped) and λ (clamped) for one lane.
    pub(super) fn lambdas(&self, base: f32, shader_bias: f32, shader_min_lod: f32) -> (f32, f32) {
        let p = self.cfg.policy;
        let l1 = biased(p, base, self.sampler.mip_lod_bias, shader_bias);
        (
            l1,
            snap_lod(&self.cfg, clamped(p, l1, &self.sampler, shader_min_lod)),
        )
    }

    /// D3D honours only the low `bits` bits of programmable offsets (sign-extended: 4 for
    /// sample ops, 6 for gathers); Vulkan uses them as given (the caller range-checks).
    #[inline]
    pub(super) fn offset_bits(&self, o: [i32; 3], bits: u32) -> [i32; 3] {
        match self.cfg.policy {
            Policy::Vulkan => o,
            Policy::D3D => o.map(|x| (x << (32 - bits)) >> (32 - bits)),
        }
    }

    /// Whether [`Kernel::dref_value`] is the identity (no UNORM depth: no clamp).
    pub(super) fn dref_raw(&self) -> bool {
        self.dref_unorm_bits.is_none()
    }

    /// Dref after the UNORM clamp (and D3D quantization).
    pub(super) fn dref_value(&self, r: f32) -> f32 {
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

    /// Samples a quad. Results are raw bits per lane: f32 bits for float/normalized/depth
    /// formats, integers for UINT/SINT (integer formats use nearest texels and the nearest
    /// level whatever the filters say; they are not filterable). With Dref the result is
    /// `(c, 0, 0, 1)` with `c` the filtered pass fraction (compare each tap, then filter).
    ///
    /// A Dref operand through a sampler whose `compareEnable` is off is undefined in Vulkan;
    /// under the Vulkan policy quadstep then does what lavapipe and SwiftShader do, no
    /// comparison: the filtered texel (its first component being the depth). Under the D3D
    /// policy it is an error (the DXIL validator requires a `SamplerComparisonState` for
    /// `SampleCmp*`). A sample without Dref through a comparison sampler is always an error.
    pub fn sample(&self, img: &Image, a: &SampleArgs) -> Result<QuadBits> {
        self.check(img)?;
        if a.dref.is_some() && !self.sampler.compare_enable {
            if self.cfg.policy == Policy::D3D {
                return Err(Error::Texture(
                    "a Dref operand (SampleCmp*) through a sampler with compareEnable off \
                     (D3D: needs a SamplerComparisonState)"
                        .into(),
                ));
            }
            return self.sample(img, &SampleArgs { dref: None, ..*a });
        }
        if a.dref.is_none() && self.sampler.compare_enable {
            return Err(Error::Texture(
                "a sample without a Dref operand through a sampler with compareEnable".into(),
            ));
        }
        if NEW_ROUTES.load(std::sync::atomic::Ordering::Relaxed) && !self.legacy {
            return Ok((self.quad_route)(&self.bind, img, a));
        }
        let bases = if self.sampler.unnormalized_coordinates {
            [LodBase::iso(0.0); 4]
        } else {
            self.lod_bases(&a.coords, &a.lod)
        };
        if let Some(fast) = self.fast {
            if let Some(r) = (fast.0)(self, img, a, &bases) {
                return Ok(r);
            }
        }
        Ok((self.quad_fn.0)(self, img, a, &bases))
    }

    /// What [`Kernel::sample`] does for this quad, step by step: the general path run with
    /// a recording [`Recorder`](super::explain::Recorder) (see [`super::explain`]). The
    /// record's result is what [`Kernel::sample`] returns; the errors are its errors.
    pub fn explain_sample(&self, img: &Image, a: &SampleArgs) -> Result<super::explain::QuadExplain> {
        use super::explain::{Log, Operation};
        let b = &self.bind;
        b.check(img)?;
        let cmp = b.compares(a.dref.is_some(), "sample")?;
        let a = SampleArgs {
            dref: a.dref.filter(|_| cmp),
            ..*a
        };
        let log = Log::new(Operation::Sample);
        let r = super::sample::quad(b, img, &a, &log);
        Ok(log.finish(r))
    }

    /// What [`Kernel::gather`] does for this quad, step by step (see
    /// [`Kernel::explain_sample`]).
    pub fn explain_gather(
        &self,
        img: &Image,
        a: &super::GatherArgs,
    ) -> Result<super::explain::QuadExplain> {
        use super::explain::{Log, Operation};
        let b = &self.bind;
        b.check(img)?;
        if a.component > 3 {
            return Err(Error::Texture(format!(
                "gather component {} out of range 0..=3",
                a.component
            )));
        }
        let cmp = b.compares(a.dref.is_some(), "gather")?;
        let a = super::GatherArgs {
            dref: a.dref.filter(|_| cmp),
            ..*a
        };
        let log = Log::new(Operation::Gather {
            component: a.component,
        });
        let r = super::gather::quad(b, img, &a, &log);
        Ok(log.finish(r))
    }

    /// What [`Kernel::query_lod`] does for this quad: each lane's LOD steps; the record's
    /// result holds lane `i`'s `(level, λ′)` bits in its first two components.
    pub fn explain_query_lod(
        &self,
        img: &Image,
        coords: &[[f32; 4]; 4],
        fine: bool,
    ) -> Result<super::explain::QuadExplain> {
        use super::explain::{Log, Operation};
        self.bind.check(img)?;
        let log = Log::new(Operation::QueryLod);
        let r = self.bind.query_lod(coords, fine, &log);
        Ok(log.finish(r.map(|l| [l[0].to_bits(), l[1].to_bits(), 0, 0])))
    }

    /// [`Kernel::sample`] on the new kernel's general path (tests).
    #[cfg(test)]
    pub(super) fn sample_new_general(&self, img: &Image, a: &SampleArgs) -> Result<QuadBits> {
        let log = super::explain::NoRecord;
        self.explain_sample(img, a)?;
        let b = &self.bind;
        let a = SampleArgs {
            dref: a.dref.filter(|_| b.sampler.compare_enable),
            ..*a
        };
        Ok(super::sample::quad(b, img, &a, &log))
    }

    /// The fast path alone: `None` when the kernel has none or this quad leaves it.
    #[cfg(test)]
    pub(super) fn sample_fast_only(&self, img: &Image, a: &SampleArgs) -> Option<QuadBits> {
        let bases = self.lod_bases(&a.coords, &a.lod);
        (self.fast?.0)(self, img, a, &bases)
    }

    /// [`Kernel::sample`] without the fast path (for tests holding the two to each other).
    #[cfg(test)]
    pub(super) fn sample_general(&self, img: &Image, a: &SampleArgs) -> Result<QuadBits> {
        let k = Kernel {
            fast: None,
            legacy: true,
            ..self.clone()
        };
        k.sample(img, a)
    }

    /// The lanes of [`Kernel::sample`], monomorphised over the (nearest, linear) level
    /// filters the kernel picked.
    pub(super) fn sample_filtered<N: LevelFilter, L: LevelFilter>(
        &self,
        img: &Image,
        a: &SampleArgs,
        bases: &[LodBase; 4],
    ) -> QuadBits {
        let mut out = [[0u32; 4]; 4];
        // level selection depends only on (λ_base, bias, MinLod), which usually agree across
        // the quad (coarse implicit LOD, no per-lane operands): reuse the previous lane's
        let mut prev: Option<([u32; 3], Option<LaneLod>)> = None;
        for lane in 0..4 {
            if a.mask & (1 << lane) == 0 {
                continue;
            }
            let bias = match a.lod {
                LodMode::Implicit { bias, .. } => bias[lane],
                _ => 0.0,
            };
            let min_lod = a.min_lod.map_or(f32::NEG_INFINITY, |m| m[lane]);
            let base = &bases[lane];
            let key = [base.lambda, bias, min_lod].map(f32::to_bits);
            let ll = match prev {
                Some((k, ll)) if k == key => ll,
                _ => self.lane_lod(base.lambda, bias, min_lod),
            };
            prev = Some((key, ll));
            out[lane] = match ll {
                Some(ll) => self.sample_lane::<N, L>(img, a, lane, base, &ll),
                None => self.oob_raw,
            };
        }
        out
    }

    /// Filter choice and levels of one lane; `None`: the D3D out-of-range MinLod result.
    #[inline(always)]
    pub(super) fn lane_lod(&self, base_lambda: f32, bias: f32, min_lod: f32) -> Option<LaneLod> {
        let s = &self.sampler;
        let q = self.view.level_count - 1;
        if self.cfg.policy == Policy::D3D && min_lod > q as f32 {
            return None;
        }
        let lambda = if s.unnormalized_coordinates {
            0.0
        } else {
            self.lambdas(base_lambda, bias, min_lod).1
        };
        let minify = lambda > 0.0;
        let filter = if minify { s.min_filter } else { s.mag_filter };
        let mode = if self.dec.kind != NumKind::Float {
            MipmapMode::Nearest
        } else {
            s.mipmap_mode
        };
        Some(LaneLod {
            linear: filter == Filter::Linear,
            levels: select_levels(lambda, self.view.level_count, mode),
        })
    }

    #[inline(always)]
    fn sample_lane<N: LevelFilter, L: LevelFilter>(
        &self,
        img: &Image,
        a: &SampleArgs,
        lane: usize,
        base: &LodBase,
        ll: &LaneLod,
    ) -> [u32; 4] {
        let unnorm = self.sampler.unnormalized_coordinates;
        let levels = ll.levels;
        let (st, layer, face) = self.locate(&a.coords[lane]);
        let off = self.offset_bits(a.offsets[lane], 4);
        let integer = self.dec.kind != NumKind::Float;
        let dref = a.dref.map(|d| self.dref_value(d[lane]));
        if integer {
            let level = self.view.base_level + levels.l[0].0;
            return self.nearest_raw(img, level, layer, face, st, off, unnorm);
        }
        let linear = ll.linear;
        let n = base.probes.max(1);
        let mut acc = [0.0f32; 4];
        for p in 0..n {
            let mut pst = st;
            if n > 1 {
                let k = -0.5 + (p + 1) as f32 / (n + 1) as f32;
                pst[0] += base.major[0] * k;
                pst[1] += base.major[1] * k;
            }
            for &(l, wl) in &levels.l[..levels.n] {
                let level = self.view.base_level + l;
                let uvw = self.to_texel(level, pst, off, unnorm);
                let tap = Tap {
                    level,
                    layer,
                    face,
                    uvw,
                    dref,
                };
                let v = if linear {
                    L::filter(self, img, &tap)
                } else {
                    N::filter(self, img, &tap)
                };
                let w = wl / n as f32;
                for c in 0..4 {
                    acc[c] += w * v[c];
                }
            }
        }
        if self.snorm {
            acc = acc.map(|x| x.max(-1.0));
        }
        acc.map(f32::to_bits)
    }

    /// Normalized → texel-space at an absolute level, plus offsets.
    #[inline(always)]
    pub(super) fn to_texel(
        &self,
        level: u32,
        st: [f32; 3],
        off: [i32; 3],
        unnorm: bool,
    ) -> [f32; 3] {
        if unnorm {
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

    /// Reads a raw texel with the sampler's wrap (border → border bits).
    #[inline]
    pub(super) fn raw_at(&self, img: &Image, level: u32, layer: u32, ijk: [i32; 3]) -> [u32; 4] {
        let lv = &self.lv[level as usize];
        let mut w = [0i32; 3];
        for d in 0..self.dims.min(3) {
            w[d] = address::wrap::<{ address::DYN }>(ijk[d], lv.size[d], self.modes[d]);
            if w[d] < 0 {
                return self.border_raw;
            }
        }
        let o = lv.layout(layer).offset(w, self.texel_size);
        self.raw_texel(img.bytes(), o)
    }

    /// Raw bits of the texel at byte offset `o`: R8G8B8A8_UNORM inline (the same table as its
    /// decoder), every other format through the decoder's `fn` pointer.
    #[inline(always)]
    pub(super) fn raw_texel(&self, data: &[u8], o: usize) -> [u32; 4] {
        if self.rgba8 {
            let b = &data[o..o + 4];
            return [b[0], b[1], b[2], b[3]].map(|x| UNORM8[x as usize].to_bits());
        }
        (self.dec.raw)(&data[o..o + self.texel_size])
    }

    #[allow(clippy::too_many_arguments)]
    fn nearest_raw(
        &self,
        img: &Image,
        level: u32,
        layer: u32,
        _face: u32,
        st: [f32; 3],
        off: [i32; 3],
        unnorm: bool,
    ) -> [u32; 4] {
        let uvw = self.to_texel(level, st, off, unnorm);
        let ijk = uvw.map(|x| fl(self.snap(x)));
        if self.cube {
            let lv = &self.lv[level as usize];
            let n = lv.size[0];
            let (i, j) = (ijk[0].clamp(0, n - 1), ijk[1].clamp(0, n - 1));
            let o = lv.layout(layer).offset([i, j, 0], self.texel_size);
            return (self.dec.raw)(&img.bytes()[o..o + self.texel_size]);
        }
        self.raw_at(img, level, layer, ijk)
    }

    /// `OpImageQueryLod` / `CalculateLevelOfDetail[Unclamped]` for a quad (implicit
    /// derivatives). Vulkan: `(d_l − level_base, λ')` with d_l the clamped level (rounded for
    /// NEAREST mip mode). D3D: `(max(MinLOD, min(MaxLOD, λ')), λ')` (no per-sample clamp).
    /// λ' includes the sampler bias; anisotropic samplers report the minor-axis LOD.
    pub fn query_lod(
        &self,
        img: &Image,
        coords: &[[f32; 4]; 4],
        fine: bool,
    ) -> Result<[[f32; 2]; 4]> {
        self.check(img)?;
        let bases = self.lod_bases(
            coords,
            &LodMode::Implicit {
                bias: [0.0; 4],
                fine,
            },
        );
        Ok(bases.map(|b| {
            let (l1, l) = self.lambdas(b.lambda, 0.0, f32::NEG_INFINITY);
            match self.cfg.policy {
                Policy::Vulkan => {
                    let q = (self.view.level_count - 1) as f32;
                    let d = if l.is_nan() { 0.0 } else { l.clamp(0.0, q) };
                    let d = match self.sampler.mipmap_mode {
                        MipmapMode::Nearest => (d + 0.5).floor().min(q),
                        MipmapMode::Linear => d,
                    };
                    [d, l1]
                }
                Policy::D3D => [l, l1],
            }
        }))
    }
}
