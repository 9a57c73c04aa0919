//! The texture unit: images, formats, samplers and every sampling operation on a 2×2 quad, by
//! the Vulkan rules with a D3D policy switch (`/work/shared/docs/sampling.md`).
//!
//! It owns texel storage ([`Image`], [`ImageView`]), texel formats ([`Format`]: decode/encode
//! with the exact Vulkan conversions), sampler state ([`Sampler`]) and the quad operations.
//! It knows nothing about SPIR-V, DXIL or the interpreter: the glue hands it plain per-lane
//! data for one quad (lane `i` at quad position `(i & 1, i >> 1)`) and gets back
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
//! Why (callgrind instructions per quad, `benches/sampler.rs` driver, see there): the first
//! version called a `fn` pointer per lane and level that re-derived the level extent (`max(1,
//! x >> l)`) and byte offsets, called libm `floorf` for level selection, averaged cube corners
//! even when no tap left the face and allocated a `Vec` per gather lane. Removing those took
//! nearest 2232 → 1499, bilinear 3000 → 2063, trilinear 4612 → 3036, aniso 16:1 27782 →
//! 18234, Dref PCF 3167 → 2091, cube trilinear 7050 → 5540, gather 4962 → 2449. What is left
//! (~250 instructions per lane outside texel reads) is the generic lane loop testing run-time
//! view/sampler flags (cube, array, hardware snapping, offsets, Dref, probes).
//!
//! Quad-wide fast path (`fast.rs`, chosen in [`Kernel::new`] next to the general
//! routine): 2D / 2D-array views of R8G8B8A8/B8G8R8A8 UNORM/SRGB and R32_SFLOAT / D32 depth
//! (with or without Dref), one address mode of repeat, mirrored repeat or clamp-to-edge,
//! and cube / cube-array views of the same formats; exact precision, no anisotropy (see the
//! anisotropic route below), normalized coordinates. It works on the four lanes as `[f32; 4]` / `[i32; 4]` arrays
//! (vectorised floor, coordinates, UNORM decode and lerps), selects levels once for uniform
//! quads (then with scalar level addressing) and skips the wraps when the whole footprint is
//! inside the level; arithmetic is operation-for-operation the general path's, and property
//! tests demand bit-identical results. Quads it does not take (lanes disagreeing on the
//! texel filter, D3D out-of-range MinLod, cube linear footprints leaving their face) and
//! every other kernel run the general routine. Callgrind per quad (bench driver): nearest
//! 1499 → 911 → 756 → 735, bilinear 2063 → 1180 → 996 → 981 → 941, trilinear 3036 → 1686
//! → 1417 → 1382 → 1317, Dref PCF 2091 → 1327 → 1155 → 981, cube trilinear 5541 → 2467 →
//! 2425 → 2343 (the cube route; its λ is still the general per-lane cube LOD); the
//! second-last step reads an unwrapped 8-bit footprint's texel pairs with one bounds check
//! each, the last one is the shared `quad_in` (mask wraps then pair reads, plain pair reads,
//! masked-index reads for f32 formats, repeat seams tested on the wrapped lower texel).
//!
//! Gather fast path (`fast_gather.rs`): 2D / 2D-array views of the same formats (Dref for
//! depth), any address modes, exact precision, every offset form; the four lanes' footprints
//! in structure-of-arrays form, one in-level test per lane instead of a wrap per tap, and
//! the gathered component read from its byte through one table. Bit-identical to the
//! general gather by a property test. Gather 2449 → 699 instructions per quad.
//!
//! Anisotropic route (`fast_aniso.rs`): 2D / 2D-array views of the same formats, one address
//! mode of repeat, mirrored repeat, clamp-to-edge or mirror-clamp, exact precision; lane by
//! lane, probes four at a time, the general path's operations in its order (probe outer,
//! level inner), bit-identical by a property test. Aniso 16:1 18181 → 6726 per quad.
//!
//! Batch path (`fast_wide.rs`): [`Kernel::sample_batch`] takes a batch of quads in the
//! interpreter's structure-of-arrays rows (coordinates, lane masks, implicit/explicit/zero
//! LOD; no Dref, offsets, MinLod, Grad) and, for the fast path's 2D formats and address
//! modes, computes λ for the whole chunk (reusing the previous quad's λ when its lane-0
//! differences have the same bits), selects levels per quad (reusing the previous quad's
//! selection and level data when its inputs repeat) and calls the fast path's quad routine
//! (`quad_in`, on taken-apart operands, shared with the per-quad path) directly: bit-identical
//! to [`Kernel::sample`] by a property test. Per quad: nearest 741 → 524 → 348, bilinear 980 →
//! 741 → 548, trilinear 1381 → 1126 → 894 (the second step: no `SampleArgs` per quad, mask
//! wraps then paired reads for tiled footprints too, λ and level-data reuse; details in
//! `fast.rs` and `fast_wide.rs`); running the texel phases lane-wide over the whole chunk
//! measured worse and was dropped.
//!
//! Operations:
//! [`Kernel::sample`], [`Kernel::sample_batch`], [`Kernel::gather`], [`Kernel::query_lod`]; sampler-free
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
//!   Dref to [0,1]; D3D also quantizes it to the depth bits.
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
mod fast;
mod fast_aniso;
mod fast_gather;
mod fast_plane;
mod fast_wide;
mod filter;
mod format;
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
    fetch_quad, out_of_range_texel, query_levels, query_samples, query_size, FetchArgs, GatherArgs,
    GatherOffsets,
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
