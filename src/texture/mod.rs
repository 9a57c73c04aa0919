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
//! Shape: one sampling kernel, written once, and the layers around it. `filter` is the
//! kernel (one footprint from texel-space position to filtered value), generic over what an
//! instantiation knows at compile time, the lane count (`lanes`), the texel source
//! (`source`: the bytes or the decoded plane [`Image`] keeps) and a recorder (`explain`);
//! beside it `address`, `cube`, `lod` and `binding`. The operations call it: `sample`,
//! `gather`, `fetch` and `batch` (the one place that reuses λ and level selection between
//! quads). `kernel` is the dispatcher: [`Kernel::new`] picks one route per operation, an
//! instantiation for the binding (plain and AVX2, no FMA) or the general path, and nothing
//! it picks imports it. Each rule exists once and the compiler makes the specialised code;
//! every route gives the general path's bits (a property test holds every route to it, and
//! the general path is held to an f64 reference). [`KernelCache`] memoises kernels by key.
//!
//! Operations: [`Kernel::sample`], [`Kernel::sample_batch`], [`Kernel::gather`],
//! [`Kernel::gather_batch`], [`Kernel::query_lod`] and their `explain_*` forms (the
//! debugger's step-by-step record, [`explain`]); sampler-free [`fetch_quad`] (and
//! [`explain_fetch`]), [`query_size`], [`query_levels`], [`query_samples`].
//!
//! Conventions (decided once, see sampling.md §16/§17):
//! - Projection is done by the caller (divide s,t,r and Dref by q first).
//! - Implicit LOD uses coarse lane-0 derivatives (`dX = P1−P0`, `dY = P2−P0`) unless `fine`;
//!   ρ uses Euclidean lengths and quadstep's own `log2` (`crate::math`: ≤ 1 ULP, the same
//!   bits on every x86-64 CPU, unlike libm's); bias, clamps and the cube derivative
//!   transform are per lane. Non-finite ρ counts as 0.
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
//! - [`LodPrecision`]: exact per-lane f32 λ and weights (default), or hardware-like 8.8 λ
//!   and 1/256 texel snapping for GPU comparisons.

mod address;
mod batch;
mod binding;
mod cube;
pub mod explain;
mod fetch;
mod filter;
use crate::format;
mod gather;
mod image;
mod kernel;
mod lanes;
mod lod;
mod sample;
mod sampler;
mod source;

#[cfg(test)]
mod reference;
#[cfg(test)]
mod testgen;
#[cfg(test)]
mod tests;

pub use batch::{BatchArgs, BatchLod, GradRows, WIDE_QUADS};
pub use cube::{select_face, FaceCoord};
pub use fetch::{
    explain_fetch, fetch_quad, out_of_range_texel, query_levels, query_samples, query_size,
    FetchArgs,
};
pub use format::{
    decode_ufloat, encode_e5b9g9r9, encode_ufloat, linear_to_srgb, srgb_to_linear, Aspect, Decoder,
    Format, NumKind,
};
pub use gather::{BatchGatherOffsets, GatherArgs, GatherBatchArgs, GatherOffsets};
pub use image::{mip_size, Image, ImageDim, ImageView, ViewType};
pub use kernel::Kernel;
pub use lod::LodMode;
pub use sample::SampleArgs;
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
    if let (0xf, Some(o)) = (mask & 0xf, out.get_mut(..4)) {
        o.copy_from_slice(part);
        return;
    }
    for (lane, (o, p)) in out.iter_mut().zip(part).enumerate() {
        if mask & (1 << lane) != 0 {
            *o = *p;
        }
    }
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
