//! Sampler state (every `VkSamplerCreateInfo` field the texture unit honours) and the two
//! switches that are not sampler state: the API [`Policy`] and the [`LodPrecision`].

use super::format::NumKind;
use super::image::{ImageView, ViewType};
use super::lanes::{Arr, Lanes, F, M};
use crate::{Error, Result};

/// Texel filter within a level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Filter {
    /// One texel.
    #[default]
    Nearest,
    /// 2 (1D), 4 (2D/cube) or 8 (3D) texels.
    Linear,
}

/// Filter across mip levels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum MipmapMode {
    /// `d = floor(d' + 0.5)` (allowed by Vulkan, required by D3D).
    #[default]
    Nearest,
    /// Blend `d_hi = floor(d')` and `d_hi + 1` by `frac(d')`.
    Linear,
}

/// Wrap modes (Vulkan order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum AddressMode {
    /// `i mod size`.
    #[default]
    Repeat,
    /// `(size−1) − mirror((i mod 2·size) − size)`.
    MirroredRepeat,
    /// `clamp(i, 0, size−1)`.
    ClampToEdge,
    /// Outside `[0, size)` → border colour.
    ClampToBorder,
    /// `clamp(mirror(i), 0, size−1)`.
    MirrorClampToEdge,
}

/// Depth comparison: `reference OP texel`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum CompareOp {
    /// Always 0.
    #[default]
    Never,
    /// `ref < texel`.
    Less,
    /// `ref == texel`.
    Equal,
    /// `ref <= texel`.
    LessOrEqual,
    /// `ref > texel`.
    Greater,
    /// `ref != texel` (true for NaN).
    NotEqual,
    /// `ref >= texel`.
    GreaterOrEqual,
    /// Always 1.
    Always,
}

impl CompareOp {
    /// Applies the comparison with IEEE rules (NaN compares false except `NotEqual`).
    #[inline(always)]
    pub fn test(self, reference: f32, texel: f32) -> bool {
        compare(self, Arr::<1>.f(reference), Arr::<1>.f(texel)).all()
    }
}

/// `ref OP texel` lane-wise (IEEE: NaN compares false except `NotEqual`): the one form of
/// every compare of the texture unit.
#[inline(always)]
pub(super) fn compare<L: Lanes>(op: CompareOp, r: F<L>, t: F<L>) -> M<L> {
    match op {
        CompareOp::Never => M::splat(r.lanes(), false),
        CompareOp::Less => r.lt(t),
        CompareOp::Equal => r.eq(t),
        CompareOp::LessOrEqual => r.le(t),
        CompareOp::Greater => t.lt(r),
        CompareOp::NotEqual => !r.eq(t),
        CompareOp::GreaterOrEqual => t.le(r),
        CompareOp::Always => M::splat(r.lanes(), true),
    }
}

/// The six predefined Vulkan border colours.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum BorderColor {
    /// (0,0,0,0) float.
    #[default]
    FloatTransparentBlack,
    /// (0,0,0,0) integer.
    IntTransparentBlack,
    /// (0,0,0,1) float.
    FloatOpaqueBlack,
    /// (0,0,0,1) integer.
    IntOpaqueBlack,
    /// (1,1,1,1) float.
    FloatOpaqueWhite,
    /// (1,1,1,1) integer.
    IntOpaqueWhite,
}

impl BorderColor {
    /// The colour as f32 RGBA (int flavours give the same numbers).
    pub fn rgba(self) -> [f32; 4] {
        match self {
            BorderColor::FloatTransparentBlack | BorderColor::IntTransparentBlack => [0.0; 4],
            BorderColor::FloatOpaqueBlack | BorderColor::IntOpaqueBlack => [0.0, 0.0, 0.0, 1.0],
            BorderColor::FloatOpaqueWhite | BorderColor::IntOpaqueWhite => [1.0; 4],
        }
    }
}

/// `VK_LOD_CLAMP_NONE`.
pub const LOD_CLAMP_NONE: f32 = 1000.0;
/// The `maxSamplerLodBias` the Vulkan policy clamps the bias sum to.
pub const MAX_SAMPLER_LOD_BIAS: f32 = 16.0;
/// D3D per-term bias range.
pub const D3D_MIN_LOD_BIAS: f32 = -16.0;
/// D3D per-term bias range (upper end).
pub const D3D_MAX_LOD_BIAS: f32 = 15.99;

/// Sampler state, mirroring `VkSamplerCreateInfo`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sampler {
    /// Filter when λ ≤ 0.
    pub mag_filter: Filter,
    /// Filter when λ > 0.
    pub min_filter: Filter,
    /// Filter across levels.
    pub mipmap_mode: MipmapMode,
    /// Wrap along u, v, w.
    pub address_mode: [AddressMode; 3],
    /// `mipLodBias`.
    pub mip_lod_bias: f32,
    /// `anisotropyEnable`.
    pub anisotropy_enable: bool,
    /// `maxAnisotropy`, 1..=16.
    pub max_anisotropy: f32,
    /// `compareEnable`.
    pub compare_enable: bool,
    /// `compareOp`.
    pub compare_op: CompareOp,
    /// `minLod`.
    pub min_lod: f32,
    /// `maxLod` (`LOD_CLAMP_NONE` = no clamp).
    pub max_lod: f32,
    /// `borderColor`.
    pub border_color: BorderColor,
    /// `unnormalizedCoordinates`.
    pub unnormalized_coordinates: bool,
}

impl Default for Sampler {
    fn default() -> Self {
        Sampler {
            mag_filter: Filter::Nearest,
            min_filter: Filter::Nearest,
            mipmap_mode: MipmapMode::Nearest,
            address_mode: [AddressMode::Repeat; 3],
            mip_lod_bias: 0.0,
            anisotropy_enable: false,
            max_anisotropy: 1.0,
            compare_enable: false,
            compare_op: CompareOp::Never,
            min_lod: 0.0,
            max_lod: LOD_CLAMP_NONE,
            border_color: BorderColor::FloatTransparentBlack,
            unnormalized_coordinates: false,
        }
    }
}

impl Sampler {
    /// Linear min/mag/mip (trilinear) with one address mode.
    pub fn trilinear(mode: AddressMode) -> Sampler {
        Sampler {
            mag_filter: Filter::Linear,
            min_filter: Filter::Linear,
            mipmap_mode: MipmapMode::Linear,
            address_mode: [mode; 3],
            ..Sampler::default()
        }
    }

    /// Checks the state on its own and against a view (Vulkan valid-usage rules that would
    /// otherwise give undefined results): anisotropy range, bias range, unnormalized
    /// restrictions, comparison on integer formats. `MinLod > MaxLod` is *not* an error; the
    /// policy decides (see [`Policy`]).
    pub fn validate(&self, view: &ImageView, kind: NumKind) -> Result<()> {
        let bad = |m: &str| Err(Error::Texture(format!("sampler: {m}")));
        if self.anisotropy_enable && !(1.0..=16.0).contains(&self.max_anisotropy) {
            return bad("maxAnisotropy must be in [1, 16]");
        }
        if self.mip_lod_bias.is_nan() || self.mip_lod_bias.abs() > MAX_SAMPLER_LOD_BIAS {
            return bad("|mipLodBias| must be ≤ 16");
        }
        if self.min_lod.is_nan() || self.max_lod.is_nan() {
            return bad("minLod/maxLod must not be NaN");
        }
        if self.compare_enable && kind != NumKind::Float {
            return bad("depth comparison needs a float/normalized/depth format");
        }
        if self.unnormalized_coordinates {
            let ok = matches!(view.view_type, ViewType::D1 | ViewType::D2)
                && view.level_count == 1
                && view.layer_count == 1
                && self.min_filter == self.mag_filter
                && self.mipmap_mode == MipmapMode::Nearest
                && self.min_lod == 0.0
                && self.max_lod == 0.0
                && self.address_mode[..2]
                    .iter()
                    .all(|m| matches!(m, AddressMode::ClampToEdge | AddressMode::ClampToBorder))
                && !self.anisotropy_enable
                && !self.compare_enable;
            if !ok {
                return bad("unnormalizedCoordinates restrictions violated (1D/2D, 1 level, 1 layer, min==mag filter, nearest mip, min/maxLod 0, clamp modes, no aniso/compare)");
            }
        }
        Ok(())
    }
}

/// Which API's rules apply where Vulkan and D3D differ (sampling.md §17).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Policy {
    /// Bias sum clamped to ±16; `λ = min(max(λ', lodMin), maxLod)` (maxLod wins when
    /// crossed); λ beyond the last level clamps to it; Dref clamped to [0, 1] for UNORM depth.
    #[default]
    Vulkan,
    /// Each bias term clamped to [−16, 15.99], sum unclamped; `λ = max(lodMin, min(maxLod, λ'))`
    /// (MinLOD wins); a shader MinLod clamp beyond the last level returns the out-of-bounds
    /// result (zeros + defaults); Dref clamped and quantized to the depth format's precision;
    /// programmable offsets keep only their low 4 (sample) or 6 (gather) bits, sign-extended.
    D3D,
}

/// Arithmetic precision of LOD and filter weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum LodPrecision {
    /// Per-lane f32 LOD and f32 weights (the default; the most accurate).
    #[default]
    Exact,
    /// GPU-like: one λ_base per quad for implicit LOD (lane 0's; bias and clamps stay per
    /// lane), λ snapped to 8.8 fixed point, texel coordinates snapped to 1/256 (16.8, RNE)
    /// so filter weights are multiples of 1/256.
    Hardware,
}

/// Device-level switches that are not sampler state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Config {
    /// Vulkan or D3D rules.
    pub policy: Policy,
    /// Exact or hardware-like arithmetic.
    pub precision: LodPrecision,
}
