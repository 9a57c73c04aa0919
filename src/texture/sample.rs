//! The per-(view, sampler) [`Kernel`] and the quad sampling operation (sampling.md §1.1).
//!
//! The general lane loop ([`Kernel::sample_lanes`]) is generic over the [`Recorder`] it
//! reports each step to: normal runs instantiate it with [`NoRecord`] (the kernel's picked
//! routine, `sample_filtered`), [`Kernel::explain_sample`] with [`Log`], so the debugger's
//! record is of this same code.

use super::cube::{select_face, transform_deriv};
use super::explain::{FootprintExplain, Log, NoRecord, Operation, QuadExplain, Recorder};
use super::explain::{TapExplain, Texel};
use super::fast::{pick_fast, FastFn};
use super::fast_gather::{pick_fast_gather, GatherFn};
use super::fast_plane::LevelVecs;
use super::fast_wide::{pick_usual, pick_wide, UsualFnDbg, WideFnDbg};
use super::filter::{fl, format_class, pick, pick_explain, LevelFilter, LevelInfo, Note};
use super::filter::{QuadFn, Tap, FC_RGBA8};
use super::format::{Decoder, Format, NumKind, UNORM8};
use super::image::{Image, ImageView, ViewType};
use super::lod::{
    biased, clamped, lod_base, quad_derivs, rho, select_levels, snap_lod, Levels, LodBase, LodFrom,
    LodMode, LodSink,
};
use super::sampler::{Config, Filter, LodPrecision, MipmapMode, Policy, Sampler};
use super::{address, QuadBits};
use crate::{Error, Result};
use std::cell::Cell;

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
}

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
}

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

/// Lane 0's λ_base in every lane (each branch of `Kernel::lod_bases_from` stores its own
/// four: a shared tail cost a round trip through the stack per quad).
#[inline(always)]
fn shared<S: LodSink>(b: LodBase, from: &S) -> [LodBase; 4] {
    (1..4).for_each(|i| from.share(i));
    [b; 4]
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
        };
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
        self.lod_texel(c, dx, dy, aniso, |_, _, _| {})
    }

    /// [`Kernel::lod_from_derivs`] and ρ.
    #[inline(always)]
    fn lod_and_rho(
        &self,
        c: &[f32; 4],
        dx: [f32; 3],
        dy: [f32; 3],
        aniso: bool,
    ) -> (LodBase, [f32; 2]) {
        let mut r = [0.0; 2];
        let b = self.lod_texel(c, dx, dy, aniso, |mx, my, n| r = rho(mx, my, n));
        (b, r)
    }

    /// The rule of [`Kernel::lod_from_derivs`]: the texel-space derivatives (cube: through
    /// the face of the lane's coordinate `c`), shown to `texel` (the debugger's ρ), then
    /// [`lod_base`] of them.
    #[inline(always)]
    fn lod_texel(
        &self,
        c: &[f32; 4],
        dx: [f32; 3],
        dy: [f32; 3],
        aniso: bool,
        texel: impl FnOnce(&[f32; 3], &[f32; 3], usize),
    ) -> LodBase {
        let s = self.size0;
        if self.cube {
            let fc = select_face([c[0], c[1], c[2]]);
            let (a, b) = (transform_deriv(&fc, dx), transform_deriv(&fc, dy));
            let mx = [a[0] * s[0], a[1] * s[0], 0.0];
            let my = [b[0] * s[0], b[1] * s[0], 0.0];
            texel(&mx, &my, 2);
            return lod_base(mx, my, 2, None, [0.0; 3], [0.0; 3]);
        }
        let mut mx = [0.0; 3];
        let mut my = [0.0; 3];
        for i in 0..self.dims {
            mx[i] = dx[i] * s[i];
            my[i] = dy[i] * s[i];
        }
        texel(&mx, &my, self.dims);
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
        self.lod_texel_2d(dx, dy, aniso, |_, _| {})
    }

    /// [`Kernel::lod_from_derivs_2d`] and ρ.
    #[inline(always)]
    fn lod_and_rho_2d(&self, dx: [f32; 3], dy: [f32; 3], aniso: bool) -> (LodBase, [f32; 2]) {
        let mut r = [0.0; 2];
        let b = self.lod_texel_2d(dx, dy, aniso, |mx, my| r = rho(mx, my, 2));
        (b, r)
    }

    /// The rule of [`Kernel::lod_from_derivs_2d`], the texel-space derivatives shown to
    /// `texel`.
    #[inline(always)]
    fn lod_texel_2d(
        &self,
        dx: [f32; 3],
        dy: [f32; 3],
        aniso: bool,
        texel: impl FnOnce(&[f32; 3], &[f32; 3]),
    ) -> LodBase {
        let s = self.size0;
        let mx = [dx[0] * s[0], dx[1] * s[1], 0.0];
        let my = [dy[0] * s[0], dy[1] * s[1], 0.0];
        texel(&mx, &my);
        lod_base(mx, my, 2, if aniso { self.aniso } else { None }, dx, dy)
    }

    /// Per-lane λ_base (+ probes) for a LOD mode; hardware precision shares lane 0's implicit λ.
    /// Kept out of line: `sample` calls it once per quad and stays small.
    #[inline(never)]
    pub(super) fn lod_bases(&self, coords: &[[f32; 4]; 4], lod: &LodMode) -> [LodBase; 4] {
        self.lod_bases_from(coords, lod, &NoRecord)
    }

    /// [`Kernel::lod_bases`], keeping what each lane's λ_base came from (its derivatives and
    /// ρ) in `from` (normal runs keep nothing: [`NoRecord`]).
    #[inline(always)]
    pub(super) fn lod_bases_from<S: LodSink>(
        &self,
        coords: &[[f32; 4]; 4],
        lod: &LodMode,
        from: &S,
    ) -> [LodBase; 4] {
        match *lod {
            LodMode::Explicit(l) => l.map(LodBase::iso),
            LodMode::Zero => [LodBase::iso(0.0); 4],
            LodMode::Grad { dx, dy } if !self.cube => {
                // off cubes λ and the probes depend on the derivatives alone: lanes whose
                // derivatives are lane 0's (bit for bit; the usual `Grad`) share its result
                let one = |i: usize| {
                    if self.dims == 2 {
                        self.derived_2d(i, dx[i], dy[i], from)
                    } else {
                        self.derived(i, &coords[i], dx[i], dy[i], from)
                    }
                };
                let b0 = one(0);
                let bits = |v: [f32; 3]| v.map(f32::to_bits);
                let same = |i: usize| bits(dx[i]) == bits(dx[0]) && bits(dy[i]) == bits(dy[0]);
                let bases = std::array::from_fn(|i| if i == 0 || same(i) { b0 } else { one(i) });
                if S::ON {
                    (1..4).filter(|&i| same(i)).for_each(|i| from.share(i));
                }
                bases
            }
            LodMode::Grad { dx, dy } => {
                std::array::from_fn(|i| self.derived(i, &coords[i], dx[i], dy[i], from))
            }
            LodMode::Implicit { fine, .. } => {
                // coarse derivatives are the same in every lane and, off cubes, λ does not
                // depend on the coordinate: per-lane evaluation would give four equal values
                if self.dims == 2 && !self.cube && (self.hw || !fine) {
                    let d = |b: usize| std::array::from_fn(|i| coords[b][i] - coords[0][i]);
                    shared(self.derived_2d(0, d(1), d(2), from), from)
                } else if self.hw || (!fine && !self.cube) {
                    let d = |b: usize| std::array::from_fn(|i| coords[b][i] - coords[0][i]);
                    shared(self.derived(0, &coords[0], d(1), d(2), from), from)
                } else {
                    let d = quad_derivs(coords, fine);
                    std::array::from_fn(|i| self.derived(i, &coords[i], d[i].0, d[i].1, from))
                }
            }
        }
    }

    /// λ_base of lane `i` from its derivatives, through the face of coordinate `c` (the
    /// out-of-line [`Kernel::lod_from_derivs`] in normal runs); derivatives and ρ into `from`.
    #[inline(always)]
    fn derived<S: LodSink>(
        &self,
        i: usize,
        c: &[f32; 4],
        dx: [f32; 3],
        dy: [f32; 3],
        from: &S,
    ) -> LodBase {
        if !S::ON {
            return self.lod_from_derivs(c, dx, dy, true);
        }
        let (b, rho) = self.lod_and_rho(c, dx, dy, true);
        let derivs = Some((dx, dy));
        from.set(i, LodFrom { derivs, rho });
        b
    }

    /// [`Kernel::derived`] for a 2D / 2D-array view.
    #[inline(always)]
    fn derived_2d<S: LodSink>(&self, i: usize, dx: [f32; 3], dy: [f32; 3], from: &S) -> LodBase {
        let (b, rho) = self.lod_and_rho_2d(dx, dy, true);
        if S::ON {
            let derivs = Some((dx, dy));
            from.set(i, LodFrom { derivs, rho });
        }
        b
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

    /// The operand rule of a Dref operand against the sampler's `compareEnable` (`what`: the
    /// operation): `Ok(dref)`, dropped where no comparison is made. A Dref through a sampler
    /// whose `compareEnable` is off is undefined in Vulkan; quadstep then does what lavapipe
    /// and SwiftShader do, no comparison. Under the D3D policy it is an error (the DXIL
    /// validator requires a `SamplerComparisonState` for `SampleCmp*` and `GatherCmp*`). A
    /// comparison sampler without a Dref operand is always an error.
    #[inline]
    pub(super) fn dref_operand<T>(&self, dref: Option<T>, what: &str) -> Result<Option<T>> {
        match (dref.is_some(), self.sampler.compare_enable) {
            (true, false) if self.cfg.policy == Policy::D3D => Err(Error::Texture(format!(
                "a Dref {what} through a sampler with compareEnable off (D3D: needs a \
                 SamplerComparisonState)"
            ))),
            (false, true) => Err(Error::Texture(format!(
                "a {what} without a Dref operand through a sampler with compareEnable"
            ))),
            (_, cmp) => Ok(dref.filter(|_| cmp)),
        }
    }

    /// Samples a quad. Results are raw bits per lane: f32 bits for float/normalized/depth
    /// formats, integers for UINT/SINT (integer formats use nearest texels and the nearest
    /// level whatever the filters say; they are not filterable). With Dref the result is
    /// `(c, 0, 0, 1)` with `c` the filtered pass fraction (compare each tap, then filter).
    /// The Dref operand's rule against `compareEnable` is `Kernel::dref_operand`'s.
    pub fn sample(&self, img: &Image, a: &SampleArgs) -> Result<QuadBits> {
        self.check(img)?;
        if a.dref.is_some() != self.sampler.compare_enable {
            // an error, or the sample without its Dref
            let dref = self.dref_operand(a.dref, "sample")?;
            return self.sample(img, &SampleArgs { dref, ..*a });
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

    /// What [`Kernel::sample`] does for this quad, step by step: the general lane loop
    /// (`Kernel::sample_lanes`, with the kernel's format class and view shape, every
    /// address mode read at run time) run with a recording recorder (see
    /// [`super::explain`]). The record's result is what [`Kernel::sample`] returns; the
    /// errors are its errors.
    pub fn explain_sample(&self, img: &Image, a: &SampleArgs) -> Result<QuadExplain> {
        self.check(img)?;
        let a = SampleArgs {
            dref: self.dref_operand(a.dref, "sample")?,
            ..*a
        };
        let from: [Cell<LodFrom>; 4] = Default::default();
        let bases = if self.sampler.unnormalized_coordinates {
            [LodBase::iso(0.0); 4]
        } else {
            self.lod_bases_from(&a.coords, &a.lod, &from)
        };
        let from = from.map(Cell::into_inner);
        let log = Log::new(Operation::Sample);
        let run = pick_explain(
            self.dims,
            self.cube,
            format_class(self.format, self.view.aspect),
        );
        let r = run(self, img, &a, &bases, &from, &log);
        Ok(log.finish(r))
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
            ..self.clone()
        };
        k.sample(img, a)
    }

    /// The lanes of [`Kernel::sample`], monomorphised over the (nearest, linear) level
    /// filters the kernel picked: [`Kernel::sample_lanes`] recording nothing.
    pub(super) fn sample_filtered<N: LevelFilter, L: LevelFilter>(
        &self,
        img: &Image,
        a: &SampleArgs,
        bases: &[LodBase; 4],
    ) -> QuadBits {
        self.sample_lanes::<N, L, NoRecord>(img, a, bases, &[LodFrom::default(); 4], &NoRecord)
    }

    /// The general lane loop: per active lane, its λ steps and levels ([`Kernel::select`])
    /// and its footprints ([`Kernel::sample_lane`]), each step reported to `rec` (`from`:
    /// what each lane's λ_base came from, read only when `R` records).
    #[inline(always)]
    pub(super) fn sample_lanes<N: LevelFilter, L: LevelFilter, R: Recorder>(
        &self,
        img: &Image,
        a: &SampleArgs,
        bases: &[LodBase; 4],
        from: &[LodFrom; 4],
        rec: &R,
    ) -> QuadBits {
        let mut out = [[0u32; 4]; 4];
        // level selection depends only on (λ_base, bias, MinLod), which usually agree across
        // the quad (coarse implicit LOD, no per-lane operands): reuse the previous lane's
        // (a recording run selects per lane, to record each lane's steps)
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
            if R::ON {
                rec.lane(lane, a.coords[lane]);
                let f = &from[lane];
                rec.lod_base(f.derivs, f.rho, (base.lambda, base.probes, base.major));
            }
            let key = [base.lambda, bias, min_lod].map(f32::to_bits);
            let ll = match prev {
                Some((k, ll)) if k == key && !R::ON => ll,
                _ => self.select(base.lambda, bias, min_lod, rec),
            };
            prev = Some((key, ll));
            out[lane] = match ll {
                Some(ll) => self.sample_lane::<N, L, R>(img, a, lane, base, &ll, rec),
                None => self.oob_raw,
            };
            if R::ON {
                rec.result(out[lane]);
            }
        }
        out
    }

    /// Filter choice and levels of one lane; `None`: the D3D out-of-range MinLod result.
    #[inline(always)]
    pub(super) fn lane_lod(&self, base_lambda: f32, bias: f32, min_lod: f32) -> Option<LaneLod> {
        self.select(base_lambda, bias, min_lod, &NoRecord)
    }

    /// [`Kernel::lane_lod`], its steps reported to `rec` (a recording run works them out
    /// for the out-of-range MinLod result too).
    #[inline(always)]
    pub(super) fn select<R: Recorder>(
        &self,
        base_lambda: f32,
        bias: f32,
        min_lod: f32,
        rec: &R,
    ) -> Option<LaneLod> {
        let s = &self.sampler;
        let q = self.view.level_count - 1;
        let out_of_range = self.cfg.policy == Policy::D3D && min_lod > q as f32;
        if out_of_range && !R::ON {
            return None;
        }
        let (biased, lambda) = if s.unnormalized_coordinates {
            (0.0, 0.0)
        } else {
            self.lambdas(base_lambda, bias, min_lod)
        };
        let minify = lambda > 0.0;
        let filter = if minify { s.min_filter } else { s.mag_filter };
        let integer = self.dec.kind != NumKind::Float;
        let mode = if integer {
            MipmapMode::Nearest
        } else {
            s.mipmap_mode
        };
        let ll = LaneLod {
            linear: filter == Filter::Linear,
            levels: select_levels(lambda, self.view.level_count, mode),
        };
        if R::ON {
            rec.lod(&|l| {
                l.shader_bias = bias;
                l.sampler_bias = s.mip_lod_bias;
                l.lambda_biased = biased;
                l.sampler_min_lod = s.min_lod;
                l.shader_min_lod = (min_lod != f32::NEG_INFINITY).then_some(min_lod);
                l.sampler_max_lod = s.max_lod;
                l.lambda = lambda;
                l.minified = minify;
                l.filter = if integer { Filter::Nearest } else { filter };
                l.mipmap_mode = mode;
                l.levels = ll.levels.l[..ll.levels.n].to_vec();
                l.out_of_range = out_of_range;
            });
        }
        (!out_of_range).then_some(ll)
    }

    /// One lane of [`Kernel::sample_lanes`]: its probes and levels summed, or an integer
    /// format's raw texel.
    #[inline(always)]
    fn sample_lane<N: LevelFilter, L: LevelFilter, R: Recorder>(
        &self,
        img: &Image,
        a: &SampleArgs,
        lane: usize,
        base: &LodBase,
        ll: &LaneLod,
        rec: &R,
    ) -> [u32; 4] {
        let unnorm = self.sampler.unnormalized_coordinates;
        let levels = ll.levels;
        let (st, layer, face) = self.locate(&a.coords[lane]);
        let off = self.offset_bits(a.offsets[lane], 4);
        let integer = self.dec.kind != NumKind::Float;
        let dref = a.dref.map(|d| self.dref_value(d[lane]));
        if R::ON {
            rec.located(self.cube.then_some(face), layer, dref);
        }
        if integer {
            let level = self.view.base_level + levels.l[0].0;
            return self.nearest_raw(img, level, layer, face, st, off, unnorm, rec);
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
                let w = wl / n as f32;
                let note = Note {
                    probe: p,
                    weight: w,
                };
                let v = if linear {
                    L::filter(self, img, &tap, note, rec)
                } else {
                    N::filter(self, img, &tap, note, rec)
                };
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

    /// Texel `ijk` of absolute `level` after the sampler's wrap per axis; `None`: the border.
    #[inline]
    pub(super) fn wrapped(&self, level: u32, ijk: [i32; 3]) -> Option<[i32; 3]> {
        let lv = &self.lv[level as usize];
        let mut w = [0i32; 3];
        for d in 0..self.dims.min(3) {
            w[d] = address::wrap::<{ address::DYN }>(ijk[d], lv.size[d], self.modes[d]);
            if w[d] < 0 {
                return None;
            }
        }
        Some(w)
    }

    /// Reads raw texel `ijk` with the sampler's wrap: the texel read (`None`: the border)
    /// and its bits (border: the border bits).
    #[inline]
    pub(super) fn raw_at(
        &self,
        img: &Image,
        level: u32,
        layer: u32,
        ijk: [i32; 3],
    ) -> (Option<[i32; 3]>, [u32; 4]) {
        let w = self.wrapped(level, ijk);
        let v = match w {
            Some(w) => {
                let o = self.lv[level as usize]
                    .layout(layer)
                    .offset(w, self.texel_size);
                self.raw_texel(img.bytes(), o)
            }
            None => self.border_raw,
        };
        (w, v)
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

    /// An integer format's lane: the nearest texel's raw bits at `level` (cube views: clamped
    /// to the face), border bits outside a border-mode level.
    #[allow(clippy::too_many_arguments)]
    fn nearest_raw<R: Recorder>(
        &self,
        img: &Image,
        level: u32,
        layer: u32,
        face: u32,
        st: [f32; 3],
        off: [i32; 3],
        unnorm: bool,
        rec: &R,
    ) -> [u32; 4] {
        let uvw = self.to_texel(level, st, off, unnorm);
        let ijk = uvw.map(|x| fl(self.snap(x)));
        let (at, v) = if self.cube {
            let lv = &self.lv[level as usize];
            let n = lv.size[0];
            let (i, j) = (ijk[0].clamp(0, n - 1), ijk[1].clamp(0, n - 1));
            let o = lv.layout(layer).offset([i, j, 0], self.texel_size);
            (
                Some([i, j, 0]),
                (self.dec.raw)(&img.bytes()[o..o + self.texel_size]),
            )
        } else {
            self.raw_at(img, level, layer, ijk)
        };
        if R::ON {
            rec.footprint(FootprintExplain {
                level,
                weight: 1.0,
                position: uvw,
                ..FootprintExplain::default()
            });
            rec.tap(TapExplain {
                unwrapped: ijk,
                texel: match at {
                    Some(ijk) => Texel::At {
                        layer,
                        face: self.cube.then_some(face),
                        ijk,
                    },
                    None => Texel::Border,
                },
                weight: 1.0,
                value: v,
                compare: None,
            });
        }
        v
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
        Ok(self.query_lod_lanes(coords, fine, &NoRecord))
    }

    /// What [`Kernel::query_lod`] does for this quad: each lane's LOD steps; the record's
    /// result holds lane `i`'s `(level, λ')` bits in its first two components.
    pub fn explain_query_lod(
        &self,
        img: &Image,
        coords: &[[f32; 4]; 4],
        fine: bool,
    ) -> Result<QuadExplain> {
        self.check(img)?;
        let log = Log::new(Operation::QueryLod);
        let r = self.query_lod_lanes(coords, fine, &log);
        Ok(log.finish(r.map(|l| [l[0].to_bits(), l[1].to_bits(), 0, 0])))
    }

    /// [`Kernel::query_lod`]'s lanes, each lane's λ steps reported to `rec` (with the levels
    /// a sample would select).
    fn query_lod_lanes<R: Recorder>(
        &self,
        coords: &[[f32; 4]; 4],
        fine: bool,
        rec: &R,
    ) -> [[f32; 2]; 4] {
        let lod = LodMode::Implicit {
            bias: [0.0; 4],
            fine,
        };
        let from: [Cell<LodFrom>; 4] = Default::default();
        let bases = if R::ON {
            self.lod_bases_from(coords, &lod, &from)
        } else {
            self.lod_bases(coords, &lod)
        };
        let from = from.map(Cell::into_inner);
        std::array::from_fn(|lane| {
            let b = &bases[lane];
            let (l1, l) = self.lambdas(b.lambda, 0.0, f32::NEG_INFINITY);
            let r = match self.cfg.policy {
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
            };
            if R::ON {
                rec.lane(lane, coords[lane]);
                let f = &from[lane];
                rec.lod_base(f.derivs, f.rho, (b.lambda, b.probes, b.major));
                let _ = self.select(b.lambda, 0.0, f32::NEG_INFINITY, rec);
                rec.result([r[0].to_bits(), r[1].to_bits(), 0, 0]);
            }
            r
        })
    }
}
