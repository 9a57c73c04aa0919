//! The texture unit: images, formats, samplers and every sampling operation on a 2×2 quad, by
//! the Vulkan rules with a D3D policy switch.
//!
//! It owns texel storage ([`Image`], [`ImageView`]), texel formats ([`Format`]: decode/encode
//! with the exact Vulkan conversions), sampler state ([`Sampler`]) and the quad operations.
//! It knows nothing about SPIR-V, DXIL or the interpreter: the glue hands it plain per-lane
//! data for one quad (lane `i` at quad position `(i & 1, i >> 1)`), or a batch of quads as
//! operand rows ([`BatchArgs`]), and gets back
//! `[[u32; 4]; 4]` raw bits (f32 bits for float/normalized/depth formats, integers for
//! UINT/SINT), so integer results stay exact.
//!
//! Shape: a [`Kernel`] is built once per (image shape, view, sampler, [`Config`]) — it
//! validates everything, precomputes every level's extent and byte addressing, and picks one
//! monomorphised quad routine per (format class, dimensionality/cube, address mode) holding
//! the whole lane loop with both level filters (nearest, linear) inlined: R8G8B8A8_UNORM and
//! single-f32 formats decode inline, every other format through a per-format monomorphised
//! `fn` pointer; mixed address modes use a run-time-mode instantiation. One indirect call per
//! quad; no per-sample branch looks at the format or wrap mode, and border checks exist only
//! in border-mode instantiations. Lanes with equal (λ_base, bias, MinLod) — the usual quad —
//! share level selection. [`KernelCache`] memoises kernels by key.
//!
//! The levels' extents and byte offsets are looked up, not re-derived per lane; level
//! selection floors without libm; cube corners are averaged only when a tap leaves the face.
//! What is left in the general lane loop is testing run-time view/sampler flags (cube, array,
//! hardware snapping, offsets, Dref, probes), which the fast paths below compile away.
//!
//! Fast paths, chosen in [`Kernel::new`] next to the general routine and held to its bits
//! by property tests (they do the general path's operations in its order):
//! - **Decoded plane** ([`Image`] caches every texel of a float-kind image decoded to f32
//!   RGBA, one `f32x4` each, built on first sample, patched or dropped by every `&mut`
//!   method, at most 2²² texels). The plane routes (`fast_plane.rs`) serve every float-kind
//!   format — 2D, 2D-array, cube and cube-array views, one address mode out of repeat,
//!   mirrored repeat, clamp-to-edge, Dref (2×2 PCF), offsets — with SSE2 lane operations for
//!   the four lanes' footprints and `f32x4` RGBA lerps per lane, and are also compiled for
//!   AVX2 (VEX encoding, no FMA), chosen at run time. Decoding per texel per sample (a
//!   `divps` per 8-bit UNORM texel, a table load per sRGB channel) is the bulk of the byte
//!   routes' work; with the plane a texel is one aligned load for every format.
//! - **Byte routes** (`fast.rs`, images over the plane bound): R8G8B8A8/B8G8R8A8 UNORM/SRGB
//!   and single-f32 formats decoded per texel in `[f32; 4]` lane loops.
//! - **Gather** (`fast_gather.rs`): 2D / 2D-array views of the byte formats (Dref for
//!   depth), any address modes, every offset form; four lanes' footprints in
//!   structure-of-arrays form, the gathered component read from its byte through one table.
//! - **Anisotropic** (`fast_aniso.rs`): 2D / 2D-array views of the byte formats, one of four
//!   address modes; lane by lane, probes four at a time.
//! - **Batch** (`fast_wide.rs`, [`Kernel::sample_batch`]): a batch of quads in the
//!   interpreter's structure-of-arrays rows (coordinates, masks, implicit/explicit/zero LOD,
//!   Dref, offsets); checks once per batch, λ, level selection and looked-up levels reused
//!   while the quads' inputs repeat bit for bit, then the quad routines. Cube and
//!   cube-array views (`fast_cube.rs`): face selection, the derivative transform and λ
//!   lane-wise, seamless edge lanes on the plane.
//!   Gathers: [`Kernel::gather_batch`] (plane route in `fast_gather.rs`).
//!
//! The per-quad entry's remainder is [`Kernel::sample`]'s own λ, level selection and clamps
//! per quad; the cube's, its per-lane cube LOD (four `log2f` and derivative transforms).
//! BENCHMARKS.md has the instructions per quad of each case.
//!
//! The debugger's view: [`Kernel::explain_sample`], [`Kernel::explain_gather`],
//! [`Kernel::explain_query_lod`] and [`explain_fetch`] run the general path with a recording
//! recorder ([`explain`]: the general lane loop, level selection, filters, gather and fetch
//! are generic over it, and normal runs pass a zero-sized one that records nothing) and
//! return [`explain::QuadExplain`]: per lane the derivatives, ρ and λ through bias and
//! clamps, the filter and levels with their weights, every texel (wrapped coordinates or
//! border), its value, its comparison and its weight, and the result, which is the
//! operation's result bit for bit. The fast paths never record.
//!
//! Operations:
//! [`Kernel::sample`], [`Kernel::sample_batch`], [`Kernel::gather`], [`Kernel::gather_batch`],
//! [`Kernel::query_lod`] and their `explain_*` forms; sampler-free
//! [`fetch_quad`], [`query_size`], [`query_levels`], [`query_samples`].
//!
//! Conventions (decided once, see sampling.md §16/§17):
//! - Projection is done by the caller (divide s,t,r and Dref by q first).
//! - Implicit LOD uses coarse lane-0 derivatives (`dX = P1−P0`, `dY = P2−P0`) unless `fine`;
//!   ρ uses Euclidean lengths and exact `log2`; bias, clamps and the cube derivative transform
//!   are per lane. Non-finite ρ counts as 0.
//! - Nearest mip: `floor(d' + 0.5)`; array layer: RNE then clamp; cube ties Z > Y > X,
//!   seamless with a three-texel corner average.
//! - Compare: each tap is compared (`ref OP texel`), then filtered (PCF); UNORM depth clamps
//!   Dref to [0, 1]; D3D also quantizes it to the depth bits.
//! - Anisotropy (2D / 2D-array views only): D3D's LOD (`ratio = major²/det`, clamped to
//!   maxAnisotropy, `λ = log2(minor)`), then `N = ceil(ratio)` equally weighted isotropic
//!   probes along the major-axis derivative at `−1/2 + i/(N+1)`, `i = 1..N` (the Vulkan spec's
//!   illustrative scheme). Cubes and 1D/3D stay isotropic.
//! - Integer formats are not filterable: they always read the nearest texel of the nearest
//!   level. Offsets are integers in texel space of each level; the caller range-checks
//!   constant offsets (`[-8, 7]`). There is no view component swizzle (identity).
//! - [`LodPrecision::Exact`] (default): per-lane f32 λ and f32 weights.
//!   [`LodPrecision::Hardware`]: one implicit λ_base per quad (lane 0's), λ snapped to 8.8,
//!   texel coordinates snapped to 1/256 (RNE), hence 8-bit weights — for GPU comparisons.

mod address;
mod cube;
pub mod explain;
mod fast;
mod fast_aniso;
mod fast_cube;
mod fast_gather;
mod fast_plane;
mod fast_wide;
mod filter;
use crate::format;
mod gather;
mod image;
mod lod;
mod sample;
mod sampler;

#[cfg(test)]
mod reference;
#[cfg(test)]
mod tests;

pub use address::wrap_mode;
pub use cube::{select_face, FaceCoord};
pub use fast_wide::{BatchArgs, BatchLod, WIDE_QUADS};
pub use format::{
    decode_ufloat, encode_e5b9g9r9, encode_ufloat, linear_to_srgb, srgb_to_linear, Aspect, Decoder,
    Format, NumKind,
};
pub use gather::{
    explain_fetch, fetch_quad, out_of_range_texel, query_levels, query_samples, query_size,
    BatchGatherOffsets, FetchArgs, GatherArgs, GatherBatchArgs, GatherOffsets,
};
pub use image::{mip_size, Image, ImageDim, ImageView, ViewType};
pub use lod::LodMode;
pub use sample::{Kernel, SampleArgs};
pub use sampler::{
    AddressMode, BorderColor, CompareOp, Config, Filter, LodPrecision, MipmapMode, Policy, Sampler,
    LOD_CLAMP_NONE, MAX_SAMPLER_LOD_BIAS,
};

use crate::Result;
use std::collections::HashMap;
use std::sync::Arc;

/// Four lanes of raw result bits.
pub type QuadBits = [[u32; 4]; 4];

/// `out[lane] = part[lane]` for the lanes set in `mask` (bit `lane`); `out` is a quad's
/// four lanes (or fewer at a batch's end).
#[inline(always)]
pub(crate) fn merge_lanes(out: &mut [[u32; 4]], part: &QuadBits, mask: u8) {
    for (lane, (o, p)) in out.iter_mut().zip(part).enumerate() {
        if mask & (1 << lane) != 0 {
            *o = *p;
        }
    }
}

/// Views raw result bits as f32.
pub fn quad_f32(q: &QuadBits) -> [[f32; 4]; 4] {
    q.map(|l| l.map(f32::from_bits))
}

/// Views raw result bits as i32.
pub fn quad_i32(q: &QuadBits) -> [[i32; 4]; 4] {
    q.map(|l| l.map(|x| x as i32))
}

/// Everything a [`Kernel`] depends on, hashable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KernelKey {
    format: Format,
    extent: [u32; 3],
    layers: u32,
    levels: u32,
    view: ImageView,
    sampler: [u32; 14],
    config: Config,
}

impl KernelKey {
    /// The key of (image shape, view, sampler, config).
    pub fn new(img: &Image, view: &ImageView, s: &Sampler, config: Config) -> KernelKey {
        let sampler = [
            s.mag_filter as u32,
            s.min_filter as u32,
            s.mipmap_mode as u32,
            s.address_mode[0] as u32,
            s.address_mode[1] as u32,
            s.address_mode[2] as u32,
            s.mip_lod_bias.to_bits(),
            s.anisotropy_enable as u32
                | (s.compare_enable as u32) << 1
                | (s.unnormalized_coordinates as u32) << 2,
            s.max_anisotropy.to_bits(),
            s.compare_op as u32,
            s.min_lod.to_bits(),
            s.max_lod.to_bits(),
            s.border_color as u32,
            0,
        ];
        KernelKey {
            format: img.format(),
            extent: img.extent(),
            layers: img.layers(),
            levels: img.levels(),
            view: *view,
            sampler,
            config,
        }
    }
}

/// A memo of kernels: `KernelKey → Arc<Kernel>`.
#[derive(Default, Debug)]
pub struct KernelCache {
    map: HashMap<KernelKey, Arc<Kernel>>,
}

impl KernelCache {
    /// An empty cache.
    pub fn new() -> KernelCache {
        KernelCache::default()
    }
    /// The kernel for (image, view, sampler, config), built on first use.
    pub fn get(
        &mut self,
        img: &Image,
        view: &ImageView,
        s: &Sampler,
        config: Config,
    ) -> Result<Arc<Kernel>> {
        let key = KernelKey::new(img, view, s, config);
        if let Some(k) = self.map.get(&key) {
            return Ok(k.clone());
        }
        let k = Arc::new(Kernel::new(img, view, s, config)?);
        self.map.insert(key, k.clone());
        Ok(k)
    }
}

/// One-shot convenience: builds the kernel and samples (prefer a cached [`Kernel`]).
pub fn sample_quad(
    img: &Image,
    view: &ImageView,
    s: &Sampler,
    config: Config,
    a: &SampleArgs,
) -> Result<QuadBits> {
    Kernel::new(img, view, s, config)?.sample(img, a)
}

/// One-shot convenience: builds the kernel and gathers.
pub fn gather_quad(
    img: &Image,
    view: &ImageView,
    s: &Sampler,
    config: Config,
    a: &GatherArgs,
) -> Result<QuadBits> {
    Kernel::new(img, view, s, config)?.gather(img, a)
}
