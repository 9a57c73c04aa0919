//! The crate's one texel format table: every format's Vulkan name (Amber's `FORMAT` names are
//! the same), its `VkFormat` number, size, component kinds, decode and encode. The texture
//! unit's images, the rasterizer's colour and depth attachments and vertex attributes, and the
//! Amber runner's buffers all go through it, so a conversion rule exists once; it is a leaf
//! (it imports nothing else of the crate but the error type).
//!
//! Every format gets one monomorphised decoder per aspect (`Format::decoder`) so the sampling
//! kernels pick a plain `fn` pointer once and never branch on the format per texel.
//! Conversions follow the Vulkan "Fixed-Point Data Conversions" and "Floating-Point Formats"
//! rules: UNORM `round(clamp(v,0,1)·max)`, SNORM `round(clamp(v,−1,1)·max)` and decode
//! `max(c/max, −1)`, sRGB with the exact piecewise curves (decode through an f64-computed
//! table), f16 round-to-nearest-even (`half`), unsigned 11/10-bit floats rounded to the nearest
//! finite value, E5B9G9R9 by the spec's shared-exponent algorithm.

use crate::{Error, Result};
use half::f16;
use std::sync::LazyLock;

mod unorm8;
pub use unorm8::unorm8;
pub(crate) use unorm8::{unorm8_redo, unorm8_x4, Worst4};
#[cfg(target_arch = "x86_64")]
pub(crate) use unorm8::{unorm8_redo_avx2, unorm8_x8_avx2, Worst8};

/// How a format's components read back in a shader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NumKind {
    /// Float, UNORM, SNORM, sRGB and depth: results are f32 bits.
    Float,
    /// Unsigned integer components (and the stencil aspect).
    Uint,
    /// Signed integer components.
    Sint,
}

/// Which aspect of a (depth/stencil) format a view reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Aspect {
    /// Colour formats (and, for depth formats, the same as `Depth`).
    #[default]
    Color,
    /// The depth component (returned in R, missing components (0,0,1)).
    Depth,
    /// The stencil component (returned as an unsigned integer in R).
    Stencil,
}

/// Per-component element encodings of the plain (non-packed) formats.
mod el {
    pub const UN8: u8 = 0;
    pub const SN8: u8 = 1;
    pub const U8: u8 = 2;
    pub const S8: u8 = 3;
    pub const SRGB8: u8 = 4;
    pub const UN16: u8 = 5;
    pub const SN16: u8 = 6;
    pub const U16: u8 = 7;
    pub const S16: u8 = 8;
    pub const F16: u8 = 9;
    pub const U32: u8 = 10;
    pub const S32: u8 = 11;
    pub const F32: u8 = 12;
    pub const US8: u8 = 13;
    pub const SS8: u8 = 14;
    pub const US16: u8 = 15;
    pub const SS16: u8 = 16;
}

/// How a format is laid out in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    /// `n` components of one element kind, in R,G,B,A order, or B,G,R,A when `bgra`.
    Plain {
        el: u8,
        n: u8,
        bgra: bool,
    },
    A2B10G10R10Unorm,
    A2B10G10R10Snorm,
    /// `A2B10G10R10Snorm` with R and B exchanged: B in the low bits.
    A2R10G10B10Snorm,
    A2B10G10R10Uint,
    B10G11R11,
    E5B9G9R9,
    D16,
    D32F,
    /// 24-bit normalized depth in the low bits of a 32-bit word, the top byte unused.
    X8D24,
    D24S8,
    D32FS8,
    /// Stencil only: one unsigned byte.
    S8,
}

macro_rules! formats {
    ($($v:ident = $name:literal, $vk:literal => $lay:expr;)*) => {
        /// Supported texel formats (Vulkan names without the `VK_FORMAT_` prefix).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[allow(non_camel_case_types)]
        pub enum Format { $($v),* }
        impl Format {
            /// Every supported format.
            pub const ALL: &'static [Format] = &[$(Format::$v),*];
            /// The Vulkan name without `VK_FORMAT_`, e.g. `"R8G8B8A8_UNORM"`.
            pub fn vk_name(self) -> &'static str { match self { $(Format::$v => $name),* } }
            /// The `VkFormat` number, e.g. 37 for `R8G8B8A8_UNORM`.
            pub fn vk_number(self) -> u32 { match self { $(Format::$v => $vk),* } }
            /// The format with this `VkFormat` number, if quadstep implements it.
            pub fn from_vk_number(vk: u32) -> Option<Format> {
                match vk { $($vk => Some(Format::$v),)* _ => None }
            }
            fn layout(self) -> Layout { match self { $(Format::$v => $lay),* } }
        }
    };
}

const fn p(el: u8, n: u8) -> Layout {
    Layout::Plain { el, n, bgra: false }
}
const fn bgra(el: u8, n: u8) -> Layout {
    Layout::Plain { el, n, bgra: true }
}

use el::*;
formats! {
    R8_UNORM = "R8_UNORM", 9 => p(UN8, 1);
    R8_SNORM = "R8_SNORM", 10 => p(SN8, 1);
    R8_USCALED = "R8_USCALED", 11 => p(US8, 1);
    R8_SSCALED = "R8_SSCALED", 12 => p(SS8, 1);
    R8_UINT = "R8_UINT", 13 => p(U8, 1);
    R8_SINT = "R8_SINT", 14 => p(S8, 1);
    R8_SRGB = "R8_SRGB", 15 => p(SRGB8, 1);
    R8G8_UNORM = "R8G8_UNORM", 16 => p(UN8, 2);
    R8G8_SNORM = "R8G8_SNORM", 17 => p(SN8, 2);
    R8G8_USCALED = "R8G8_USCALED", 18 => p(US8, 2);
    R8G8_SSCALED = "R8G8_SSCALED", 19 => p(SS8, 2);
    R8G8_UINT = "R8G8_UINT", 20 => p(U8, 2);
    R8G8_SINT = "R8G8_SINT", 21 => p(S8, 2);
    R8G8_SRGB = "R8G8_SRGB", 22 => p(SRGB8, 2);
    R8G8B8_UNORM = "R8G8B8_UNORM", 23 => p(UN8, 3);
    R8G8B8_SNORM = "R8G8B8_SNORM", 24 => p(SN8, 3);
    R8G8B8_USCALED = "R8G8B8_USCALED", 25 => p(US8, 3);
    R8G8B8_SSCALED = "R8G8B8_SSCALED", 26 => p(SS8, 3);
    R8G8B8_UINT = "R8G8B8_UINT", 27 => p(U8, 3);
    R8G8B8_SINT = "R8G8B8_SINT", 28 => p(S8, 3);
    R8G8B8_SRGB = "R8G8B8_SRGB", 29 => p(SRGB8, 3);
    B8G8R8_UNORM = "B8G8R8_UNORM", 30 => bgra(UN8, 3);
    B8G8R8_SNORM = "B8G8R8_SNORM", 31 => bgra(SN8, 3);
    B8G8R8_USCALED = "B8G8R8_USCALED", 32 => bgra(US8, 3);
    B8G8R8_SSCALED = "B8G8R8_SSCALED", 33 => bgra(SS8, 3);
    B8G8R8_UINT = "B8G8R8_UINT", 34 => bgra(U8, 3);
    B8G8R8_SINT = "B8G8R8_SINT", 35 => bgra(S8, 3);
    B8G8R8_SRGB = "B8G8R8_SRGB", 36 => bgra(SRGB8, 3);
    R8G8B8A8_UNORM = "R8G8B8A8_UNORM", 37 => p(UN8, 4);
    R8G8B8A8_SNORM = "R8G8B8A8_SNORM", 38 => p(SN8, 4);
    R8G8B8A8_USCALED = "R8G8B8A8_USCALED", 39 => p(US8, 4);
    R8G8B8A8_SSCALED = "R8G8B8A8_SSCALED", 40 => p(SS8, 4);
    R8G8B8A8_UINT = "R8G8B8A8_UINT", 41 => p(U8, 4);
    R8G8B8A8_SINT = "R8G8B8A8_SINT", 42 => p(S8, 4);
    R8G8B8A8_SRGB = "R8G8B8A8_SRGB", 43 => p(SRGB8, 4);
    B8G8R8A8_UNORM = "B8G8R8A8_UNORM", 44 => bgra(UN8, 4);
    B8G8R8A8_SNORM = "B8G8R8A8_SNORM", 45 => bgra(SN8, 4);
    B8G8R8A8_USCALED = "B8G8R8A8_USCALED", 46 => bgra(US8, 4);
    B8G8R8A8_SSCALED = "B8G8R8A8_SSCALED", 47 => bgra(SS8, 4);
    B8G8R8A8_UINT = "B8G8R8A8_UINT", 48 => bgra(U8, 4);
    B8G8R8A8_SINT = "B8G8R8A8_SINT", 49 => bgra(S8, 4);
    B8G8R8A8_SRGB = "B8G8R8A8_SRGB", 50 => bgra(SRGB8, 4);
    // A packed 32-bit word with R in its low byte: on a little-endian host, R8G8B8A8's bytes.
    A8B8G8R8_UNORM_PACK32 = "A8B8G8R8_UNORM_PACK32", 51 => p(UN8, 4);
    A8B8G8R8_SNORM_PACK32 = "A8B8G8R8_SNORM_PACK32", 52 => p(SN8, 4);
    A8B8G8R8_USCALED_PACK32 = "A8B8G8R8_USCALED_PACK32", 53 => p(US8, 4);
    A8B8G8R8_SSCALED_PACK32 = "A8B8G8R8_SSCALED_PACK32", 54 => p(SS8, 4);
    A8B8G8R8_UINT_PACK32 = "A8B8G8R8_UINT_PACK32", 55 => p(U8, 4);
    A8B8G8R8_SINT_PACK32 = "A8B8G8R8_SINT_PACK32", 56 => p(S8, 4);
    A8B8G8R8_SRGB_PACK32 = "A8B8G8R8_SRGB_PACK32", 57 => p(SRGB8, 4);
    R16_UNORM = "R16_UNORM", 70 => p(UN16, 1);
    R16_SNORM = "R16_SNORM", 71 => p(SN16, 1);
    R16_USCALED = "R16_USCALED", 72 => p(US16, 1);
    R16_SSCALED = "R16_SSCALED", 73 => p(SS16, 1);
    R16_UINT = "R16_UINT", 74 => p(U16, 1);
    R16_SINT = "R16_SINT", 75 => p(S16, 1);
    R16_SFLOAT = "R16_SFLOAT", 76 => p(F16, 1);
    R16G16_UNORM = "R16G16_UNORM", 77 => p(UN16, 2);
    R16G16_SNORM = "R16G16_SNORM", 78 => p(SN16, 2);
    R16G16_USCALED = "R16G16_USCALED", 79 => p(US16, 2);
    R16G16_SSCALED = "R16G16_SSCALED", 80 => p(SS16, 2);
    R16G16_UINT = "R16G16_UINT", 81 => p(U16, 2);
    R16G16_SINT = "R16G16_SINT", 82 => p(S16, 2);
    R16G16_SFLOAT = "R16G16_SFLOAT", 83 => p(F16, 2);
    R16G16B16_UNORM = "R16G16B16_UNORM", 84 => p(UN16, 3);
    R16G16B16_SNORM = "R16G16B16_SNORM", 85 => p(SN16, 3);
    R16G16B16_USCALED = "R16G16B16_USCALED", 86 => p(US16, 3);
    R16G16B16_SSCALED = "R16G16B16_SSCALED", 87 => p(SS16, 3);
    R16G16B16_UINT = "R16G16B16_UINT", 88 => p(U16, 3);
    R16G16B16_SINT = "R16G16B16_SINT", 89 => p(S16, 3);
    R16G16B16_SFLOAT = "R16G16B16_SFLOAT", 90 => p(F16, 3);
    R16G16B16A16_UNORM = "R16G16B16A16_UNORM", 91 => p(UN16, 4);
    R16G16B16A16_SNORM = "R16G16B16A16_SNORM", 92 => p(SN16, 4);
    R16G16B16A16_USCALED = "R16G16B16A16_USCALED", 93 => p(US16, 4);
    R16G16B16A16_SSCALED = "R16G16B16A16_SSCALED", 94 => p(SS16, 4);
    R16G16B16A16_UINT = "R16G16B16A16_UINT", 95 => p(U16, 4);
    R16G16B16A16_SINT = "R16G16B16A16_SINT", 96 => p(S16, 4);
    R16G16B16A16_SFLOAT = "R16G16B16A16_SFLOAT", 97 => p(F16, 4);
    R32_UINT = "R32_UINT", 98 => p(U32, 1);
    R32_SINT = "R32_SINT", 99 => p(S32, 1);
    R32_SFLOAT = "R32_SFLOAT", 100 => p(F32, 1);
    R32G32_UINT = "R32G32_UINT", 101 => p(U32, 2);
    R32G32_SINT = "R32G32_SINT", 102 => p(S32, 2);
    R32G32_SFLOAT = "R32G32_SFLOAT", 103 => p(F32, 2);
    R32G32B32_UINT = "R32G32B32_UINT", 104 => p(U32, 3);
    R32G32B32_SINT = "R32G32B32_SINT", 105 => p(S32, 3);
    R32G32B32_SFLOAT = "R32G32B32_SFLOAT", 106 => p(F32, 3);
    R32G32B32A32_UINT = "R32G32B32A32_UINT", 107 => p(U32, 4);
    R32G32B32A32_SINT = "R32G32B32A32_SINT", 108 => p(S32, 4);
    R32G32B32A32_SFLOAT = "R32G32B32A32_SFLOAT", 109 => p(F32, 4);
    A2R10G10B10_SNORM_PACK32 = "A2R10G10B10_SNORM_PACK32", 59 => Layout::A2R10G10B10Snorm;
    A2B10G10R10_UNORM_PACK32 = "A2B10G10R10_UNORM_PACK32", 64 => Layout::A2B10G10R10Unorm;
    A2B10G10R10_SNORM_PACK32 = "A2B10G10R10_SNORM_PACK32", 65 => Layout::A2B10G10R10Snorm;
    A2B10G10R10_UINT_PACK32 = "A2B10G10R10_UINT_PACK32", 68 => Layout::A2B10G10R10Uint;
    B10G11R11_UFLOAT_PACK32 = "B10G11R11_UFLOAT_PACK32", 122 => Layout::B10G11R11;
    E5B9G9R9_UFLOAT_PACK32 = "E5B9G9R9_UFLOAT_PACK32", 123 => Layout::E5B9G9R9;
    D16_UNORM = "D16_UNORM", 124 => Layout::D16;
    D32_SFLOAT = "D32_SFLOAT", 126 => Layout::D32F;
    X8_D24_UNORM_PACK32 = "X8_D24_UNORM_PACK32", 125 => Layout::X8D24;
    D24_UNORM_S8_UINT = "D24_UNORM_S8_UINT", 129 => Layout::D24S8;
    D32_SFLOAT_S8_UINT = "D32_SFLOAT_S8_UINT", 130 => Layout::D32FS8;
    S8_UINT = "S8_UINT", 127 => Layout::S8;
}

/// Decoder to f32 (float-kind formats; integer formats give the integer value as f32).
pub type DecodeF32 = fn(&[u8]) -> [f32; 4];
/// Decoder to raw result bits (f32 bits for float kinds, integer bits for UINT/SINT).
pub type DecodeRaw = fn(&[u8]) -> [u32; 4];

/// Encoder of f32 RGBA into one texel of the given format (`Format::encode_f32`), chosen
/// once by [`Format::encoder`]: a monomorphised `fn` per plain layout (the format argument
/// unused), the layout's rule for the others.
pub type EncodeF32 = fn(Format, [f32; 4], &mut [u8]);

/// The two decoders of one (format, aspect), chosen once.
#[derive(Clone, Copy)]
pub struct Decoder {
    /// Texel → f32 RGBA (defaults (0,0,0,1) for missing components).
    pub f32: DecodeF32,
    /// Texel → raw result bits.
    pub raw: DecodeRaw,
    /// The component kind of this aspect.
    pub kind: NumKind,
}

impl std::fmt::Debug for Decoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Decoder({:?})", self.kind)
    }
}

impl Format {
    /// Parses a Vulkan format name, with or without `VK_FORMAT_`, case-insensitively.
    /// Unknown or unsupported names give `Error::Texture` naming them.
    pub fn from_vk_name(name: &str) -> Result<Format> {
        let up = name.trim().to_ascii_uppercase();
        let bare = up.strip_prefix("VK_FORMAT_").unwrap_or(&up);
        Format::ALL
            .iter()
            .copied()
            .find(|f| f.vk_name() == bare)
            .ok_or_else(|| Error::Texture(format!("unsupported format `{name}`")))
    }

    /// Bytes per texel.
    pub fn texel_size(self) -> usize {
        match self.layout() {
            Layout::Plain { el, n, .. } => {
                let e = match el {
                    UN8 | SN8 | US8 | SS8 | U8 | S8 | SRGB8 => 1,
                    UN16 | SN16 | US16 | SS16 | U16 | S16 | F16 => 2,
                    _ => 4,
                };
                e * n as usize
            }
            Layout::D16 => 2,
            Layout::S8 => 1,
            Layout::D32FS8 => 8,
            _ => 4,
        }
    }

    /// Number of components the format stores (depth/stencil: 1 per aspect).
    pub fn components(self) -> usize {
        match self.layout() {
            Layout::Plain { n, .. } => n as usize,
            Layout::A2B10G10R10Unorm
            | Layout::A2B10G10R10Snorm
            | Layout::A2R10G10B10Snorm
            | Layout::A2B10G10R10Uint => 4,
            Layout::B10G11R11 | Layout::E5B9G9R9 => 3,
            _ => 1,
        }
    }

    /// Component kind of the colour (or depth) aspect.
    pub fn kind(self) -> NumKind {
        match self.layout() {
            Layout::Plain {
                el: U8 | U16 | U32, ..
            }
            | Layout::A2B10G10R10Uint
            | Layout::S8 => NumKind::Uint,
            Layout::Plain {
                el: S8 | S16 | S32, ..
            } => NumKind::Sint,
            _ => NumKind::Float,
        }
    }

    /// True for formats with a depth aspect.
    pub fn has_depth(self) -> bool {
        matches!(
            self.layout(),
            Layout::D16 | Layout::D32F | Layout::X8D24 | Layout::D24S8 | Layout::D32FS8
        )
    }

    /// True for formats with a stencil aspect.
    pub fn has_stencil(self) -> bool {
        matches!(self.layout(), Layout::D24S8 | Layout::D32FS8 | Layout::S8)
    }

    /// True for UNORM depth (Dref is clamped to [0, 1]); gives the bit depth.
    pub fn unorm_depth_bits(self) -> Option<u32> {
        match self.layout() {
            Layout::D16 => Some(16),
            Layout::X8D24 | Layout::D24S8 => Some(24),
            _ => None,
        }
    }

    /// True for sRGB formats.
    pub fn is_srgb(self) -> bool {
        matches!(self.layout(), Layout::Plain { el: SRGB8, .. })
    }

    /// True for UNORM colour formats, sRGB included (values in [0, 1]).
    pub fn is_unorm(self) -> bool {
        matches!(
            self.layout(),
            Layout::Plain {
                el: UN8 | UN16 | SRGB8,
                ..
            } | Layout::A2B10G10R10Unorm
        )
    }

    /// True for SNORM formats (filtered results are clamped to ≥ −1).
    pub fn is_snorm(self) -> bool {
        matches!(
            self.layout(),
            Layout::Plain { el: SN8 | SN16, .. }
                | Layout::A2B10G10R10Snorm
                | Layout::A2R10G10B10Snorm
        )
    }

    /// The decoders for an aspect; `Error::Texture` when the aspect does not exist.
    pub fn decoder(self, aspect: Aspect) -> Result<Decoder> {
        let kind = self.kind();
        let d = |f: DecodeF32, raw: DecodeRaw, kind| Ok(Decoder { f32: f, raw, kind });
        match (self.layout(), aspect) {
            (
                Layout::D16 | Layout::D32F | Layout::X8D24 | Layout::D24S8 | Layout::D32FS8,
                Aspect::Stencil,
            ) if !self.has_stencil() => Err(Error::Texture(format!(
                "{} has no stencil aspect",
                self.vk_name()
            ))),
            (Layout::D24S8, Aspect::Stencil) => d(dec_s8_f32::<3>, dec_s8_raw::<3>, NumKind::Uint),
            (Layout::D32FS8, Aspect::Stencil) => d(dec_s8_f32::<4>, dec_s8_raw::<4>, NumKind::Uint),
            (Layout::S8, Aspect::Stencil | Aspect::Color) => {
                d(dec_s8_f32::<0>, dec_s8_raw::<0>, NumKind::Uint)
            }
            (Layout::S8, Aspect::Depth) => Err(Error::Texture(format!(
                "{} has no depth aspect",
                self.vk_name()
            ))),
            (_, Aspect::Stencil) | (Layout::Plain { .. }, Aspect::Depth) => Err(Error::Texture(
                format!("{} has no {:?} aspect", self.vk_name(), aspect),
            )),
            (Layout::Plain { el, n, bgra }, _) => Ok(plain_decoder(el, n, bgra, kind)),
            (Layout::A2B10G10R10Unorm, _) => d(dec_a2_unorm, raw_of::<100>, kind),
            (Layout::A2B10G10R10Snorm, _) => d(dec_a2_snorm, raw_of::<106>, kind),
            (Layout::A2R10G10B10Snorm, _) => d(dec_a2r_snorm, raw_of::<107>, kind),
            (Layout::A2B10G10R10Uint, _) => d(dec_a2_uint_f32, dec_a2_uint_raw, kind),
            (Layout::B10G11R11, _) => d(dec_b10g11r11, raw_of::<101>, kind),
            (Layout::E5B9G9R9, _) => d(dec_e5b9g9r9, raw_of::<102>, kind),
            (Layout::D16, _) => d(dec_d16, raw_of::<103>, kind),
            (Layout::D32F | Layout::D32FS8, _) => d(dec_d32f, raw_of::<104>, kind),
            (Layout::X8D24 | Layout::D24S8, _) => d(dec_d24, raw_of::<105>, kind),
        }
    }

    /// The decoders of the aspect a plain read sees: depth for depth formats, else colour
    /// (the stencil byte of `S8_UINT`).
    pub(crate) fn main_decoder(self) -> Decoder {
        let asp = if self.has_depth() {
            Aspect::Depth
        } else {
            Aspect::Color
        };
        self.decoder(asp)
            .expect("every format has its colour or depth aspect")
    }

    /// Decodes one texel of the colour/depth aspect to f32 RGBA.
    pub fn decode_f32(self, bytes: &[u8]) -> [f32; 4] {
        (self.main_decoder().f32)(bytes)
    }

    /// Decodes one texel to raw result bits (f32 bits for float kinds).
    pub fn decode_raw(self, bytes: &[u8]) -> [u32; 4] {
        (self.main_decoder().raw)(bytes)
    }

    /// Decodes an unsigned-integer texel (UINT formats; stencil of depth/stencil formats).
    pub fn decode_u32(self, bytes: &[u8]) -> [u32; 4] {
        self.decode_raw(bytes)
    }

    /// Decodes a signed-integer texel (SINT formats).
    pub fn decode_i32(self, bytes: &[u8]) -> [i32; 4] {
        self.decode_raw(bytes).map(|x| x as i32)
    }

    /// Encodes f32 RGBA into one texel (float-kind formats; integer formats convert with
    /// saturation and round-to-nearest-even; depth formats take R as depth). Stencil is
    /// left unchanged.
    pub fn encode_f32(self, v: [f32; 4], out: &mut [u8]) {
        (self.encoder())(self, v, out)
    }

    /// [`Format::encode_f32`]'s encoder, for callers that encode many texels of one format:
    /// chosen here once, so that no per-texel call branches on the format.
    pub fn encoder(self) -> EncodeF32 {
        match (self.kind(), self.layout()) {
            (NumKind::Float, Layout::Plain { el, n, bgra }) => plain_encoder(el, n, bgra),
            (NumKind::Float, _) => encode_float,
            _ => encode_integer,
        }
    }

    /// Encodes raw bits: integer values (wrapped to the component width) for UINT/SINT
    /// formats, f32 bits (converted as `encode_f32`) for float kinds.
    pub fn encode_raw(self, v: [u32; 4], out: &mut [u8]) {
        match self.layout() {
            Layout::Plain { el, n, bgra } if matches!(el, U8 | S8 | U16 | S16 | U32 | S32) => {
                let v = if bgra { [v[2], v[1], v[0], v[3]] } else { v };
                for (c, &x) in v.iter().enumerate().take(n as usize) {
                    match el {
                        U8 | S8 => out[c] = x as u8,
                        U16 | S16 => {
                            out[c * 2..c * 2 + 2].copy_from_slice(&(x as u16).to_le_bytes())
                        }
                        _ => out[c * 4..c * 4 + 4].copy_from_slice(&x.to_le_bytes()),
                    }
                }
            }
            Layout::A2B10G10R10Uint => {
                let w =
                    (v[0] & 0x3ff) | (v[1] & 0x3ff) << 10 | (v[2] & 0x3ff) << 20 | (v[3] & 3) << 30;
                out[..4].copy_from_slice(&w.to_le_bytes());
            }
            Layout::S8 => out[0] = v[0] as u8,
            _ => encode_float(self, v.map(f32::from_bits), out),
        }
    }

    /// Raw integer values clamped to the components' ranges (UINT `0..=max`, SINT
    /// `min..=max` as two's complement bits); 32-bit components, float-kind formats and
    /// missing components pass unchanged. Colour attachment writes saturate this way (Vulkan
    /// leaves out-of-range integer colour writes undefined; GPUs saturate, and the CTS
    /// `R16G16B16A16_UINT` frame script writes 65536 and probes 65535).
    pub fn saturate_raw(self, v: [u32; 4]) -> [u32; 4] {
        let (bits, signed): ([u32; 4], bool) = match self.layout() {
            Layout::Plain { el: U8, .. } | Layout::S8 => ([8; 4], false),
            Layout::Plain { el: S8, .. } => ([8; 4], true),
            Layout::Plain { el: U16, .. } => ([16; 4], false),
            Layout::Plain { el: S16, .. } => ([16; 4], true),
            Layout::A2B10G10R10Uint => ([10, 10, 10, 2], false),
            _ => return v,
        };
        std::array::from_fn(|c| {
            let b = bits[c];
            if signed {
                let (lo, hi) = (-(1i64 << (b - 1)), (1i64 << (b - 1)) - 1);
                (v[c] as i32 as i64).clamp(lo, hi) as i32 as u32
            } else {
                v[c].min((1u32 << b) - 1)
            }
        })
    }

    /// Writes the stencil value of a depth/stencil texel (no-op for other formats).
    pub fn encode_stencil(self, s: u8, out: &mut [u8]) {
        match self.layout() {
            Layout::D24S8 => out[3] = s,
            Layout::D32FS8 => out[4] = s,
            Layout::S8 => out[0] = s,
            _ => {}
        }
    }
}

/// Integer formats' encoder: each value rounded to nearest even and saturated to u32 or
/// i32, then written as [`Format::encode_raw`] writes integers.
fn encode_integer(f: Format, v: [f32; 4], out: &mut [u8]) {
    match f.kind() {
        NumKind::Sint => f.encode_raw(v.map(|x| sat_i(x) as u32), out),
        _ => f.encode_raw(v.map(|x| sat_u(x) as u32), out),
    }
}

fn sat_u(x: f32) -> f64 {
    if x.is_nan() {
        0.0
    } else {
        round_ne((x as f64).clamp(0.0, u32::MAX as f64))
    }
}
fn sat_i(x: f32) -> i32 {
    if x.is_nan() {
        0
    } else {
        round_ne((x as f64).clamp(i32::MIN as f64, i32::MAX as f64)) as i32
    }
}

/// `x` rounded to the nearest integer, ties to even, for `|x| <= 2^51`: adding and taking
/// away 1.5 · 2^52 (the sum lies in [2^52, 2^53], where f64 holds integers only). Inline,
/// where `f64::round_ties_even` is a libm call on baseline x86-64.
#[inline(always)]
fn round_ne(x: f64) -> f64 {
    const M: f64 = 6_755_399_441_055_744.0;
    (x + M) - M
}

// ----------------------------------------------------------------------------------------------
// Plain formats: one generic decoder per (element, count, order).

/// `$f::<E, N, BGRA>` for the plain layout `($el, $n, $bgra)`, among the elements `$e`
/// (the table's component counts and orders: 1-4 components, BGR(A) with 3 or 4), else
/// `$other`.
macro_rules! plain_fn {
    ($f:ident, ($el:expr, $n:expr, $bgra:expr), $other:expr, [$($e:ident),*]) => {
        match ($el, $n, $bgra) {
            $( ($e, 1, false) => $f::<$e, 1, false>,
               ($e, 2, false) => $f::<$e, 2, false>,
               ($e, 3, false) => $f::<$e, 3, false>,
               ($e, 3, true) => $f::<$e, 3, true>,
               ($e, 4, false) => $f::<$e, 4, false>,
               ($e, 4, true) => $f::<$e, 4, true>, )*
            _ => $other,
        }
    };
}

fn plain_decoder(el: u8, n: u8, bgra: bool, kind: NumKind) -> Decoder {
    macro_rules! pick {
        ($f:ident) => {
            plain_fn!(
                $f,
                (el, n, bgra),
                unreachable!("format table only has 1-4 components, BGR(A) with 3 or 4"),
                [
                    UN8, SN8, US8, SS8, U8, S8, SRGB8, UN16, SN16, US16, SS16, U16, S16, F16, U32,
                    S32, F32
                ]
            )
        };
    }
    let f: DecodeF32 = pick!(dec_plain);
    let raw: DecodeRaw = pick!(raw_plain);
    Decoder { f32: f, raw, kind }
}

/// The encoder of a plain layout of float-kind elements (integer elements, which never
/// reach here, get the integer formats' encoder).
fn plain_encoder(el: u8, n: u8, bgra: bool) -> EncodeF32 {
    plain_fn!(
        enc_plain,
        (el, n, bgra),
        encode_integer,
        [UN8, SN8, US8, SS8, SRGB8, UN16, SN16, US16, SS16, F16, F32]
    )
}

/// sRGB → linear for all 256 codes, computed in f64 from the exact curve.
pub(crate) static SRGB_TABLE: LazyLock<[f32; 256]> = LazyLock::new(|| {
    let mut t = [0.0f32; 256];
    for (i, e) in t.iter_mut().enumerate() {
        *e = srgb_to_linear(i as f64 / 255.0) as f32;
    }
    t
});

/// The exact sRGB EOTF used by Vulkan, in f64. `pow` is the `libm` crate's (plain
/// arithmetic): the platform's `pow` may pick an FMA variant at run time, which would make
/// the results machine-dependent.
pub fn srgb_to_linear(c: f64) -> f64 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        libm::pow((c + 0.055) / 1.055, 2.4)
    }
}

/// The exact inverse (linear → sRGB-encoded value in [0, 1]), `pow` as in
/// [`srgb_to_linear`].
pub fn linear_to_srgb(l: f64) -> f64 {
    if l.is_nan() || l <= 0.0 {
        0.0
    } else if l <= 0.0031308 {
        l * 12.92
    } else if l >= 1.0 {
        1.0
    } else {
        1.055 * libm::pow(l, 1.0 / 2.4) - 0.055
    }
}

/// `i / 255` for every 8-bit code (exact f32 division, evaluated at compile time).
pub(crate) static UNORM8: [f32; 256] = {
    let mut t = [0.0f32; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = i as f32 / 255.0;
        i += 1;
    }
    t
};

#[inline(always)]
fn elem_f32<const E: u8>(b: &[u8], c: usize, alpha: bool) -> f32 {
    match E {
        UN8 => UNORM8[b[c] as usize],
        SN8 => (b[c] as i8 as f32 / 127.0).max(-1.0),
        U8 | US8 => b[c] as f32,
        S8 | SS8 => b[c] as i8 as f32,
        SRGB8 => {
            if alpha {
                UNORM8[b[c] as usize]
            } else {
                SRGB_TABLE[b[c] as usize]
            }
        }
        UN16 => u16::from_le_bytes([b[2 * c], b[2 * c + 1]]) as f32 / 65535.0,
        SN16 => (i16::from_le_bytes([b[2 * c], b[2 * c + 1]]) as f32 / 32767.0).max(-1.0),
        U16 | US16 => u16::from_le_bytes([b[2 * c], b[2 * c + 1]]) as f32,
        S16 | SS16 => i16::from_le_bytes([b[2 * c], b[2 * c + 1]]) as f32,
        F16 => f16::from_bits(u16::from_le_bytes([b[2 * c], b[2 * c + 1]])).to_f32(),
        U32 => u32::from_le_bytes(b[4 * c..4 * c + 4].try_into().unwrap()) as f32,
        S32 => i32::from_le_bytes(b[4 * c..4 * c + 4].try_into().unwrap()) as f32,
        _ => f32::from_le_bytes(b[4 * c..4 * c + 4].try_into().unwrap()),
    }
}

#[inline(always)]
fn elem_raw<const E: u8>(b: &[u8], c: usize) -> u32 {
    match E {
        U8 => b[c] as u32,
        S8 => b[c] as i8 as i32 as u32,
        U16 => u16::from_le_bytes([b[2 * c], b[2 * c + 1]]) as u32,
        S16 => i16::from_le_bytes([b[2 * c], b[2 * c + 1]]) as i32 as u32,
        U32 | S32 | F32 => u32::from_le_bytes(b[4 * c..4 * c + 4].try_into().unwrap()),
        _ => elem_f32::<E>(b, c, c == 3).to_bits(),
    }
}

fn dec_plain<const E: u8, const N: usize, const BGRA: bool>(b: &[u8]) -> [f32; 4] {
    let mut o = [0.0, 0.0, 0.0, 1.0];
    for (c, slot) in o.iter_mut().enumerate().take(N) {
        *slot = elem_f32::<E>(b, c, c == 3);
    }
    if BGRA {
        o.swap(0, 2);
    }
    o
}

fn raw_plain<const E: u8, const N: usize, const BGRA: bool>(b: &[u8]) -> [u32; 4] {
    let int = matches!(E, U8 | S8 | U16 | S16 | U32 | S32);
    let one = if int { 1 } else { 1.0f32.to_bits() };
    let mut o = [0, 0, 0, one];
    for (c, slot) in o.iter_mut().enumerate().take(N) {
        *slot = elem_raw::<E>(b, c);
    }
    if BGRA {
        o.swap(0, 2);
    }
    o
}

fn word(b: &[u8]) -> u32 {
    u32::from_le_bytes(b[..4].try_into().unwrap())
}

fn dec_a2_unorm(b: &[u8]) -> [f32; 4] {
    let w = word(b);
    [
        (w & 0x3ff) as f32 / 1023.0,
        (w >> 10 & 0x3ff) as f32 / 1023.0,
        (w >> 20 & 0x3ff) as f32 / 1023.0,
        (w >> 30) as f32 / 3.0,
    ]
}
/// A2B10G10R10_SNORM: two's-complement fields, `max(c / (2^(b−1) − 1), −1)` (Vulkan's
/// signed normalized conversion): 511 for the 10-bit fields, 1 for the 2-bit alpha.
fn dec_a2_snorm(b: &[u8]) -> [f32; 4] {
    let w = word(b);
    let field = |shift: u32, bits: u32| ((w << (32 - shift - bits)) as i32 >> (32 - bits)) as f32;
    [
        (field(0, 10) / 511.0).max(-1.0),
        (field(10, 10) / 511.0).max(-1.0),
        (field(20, 10) / 511.0).max(-1.0),
        field(30, 2).max(-1.0),
    ]
}
/// A2R10G10B10_SNORM: [`dec_a2_snorm`]'s fields, the low one being B.
fn dec_a2r_snorm(b: &[u8]) -> [f32; 4] {
    let [b, g, r, a] = dec_a2_snorm(b);
    [r, g, b, a]
}
fn dec_a2_uint_raw(b: &[u8]) -> [u32; 4] {
    let w = word(b);
    [w & 0x3ff, w >> 10 & 0x3ff, w >> 20 & 0x3ff, w >> 30]
}
fn dec_a2_uint_f32(b: &[u8]) -> [f32; 4] {
    dec_a2_uint_raw(b).map(|x| x as f32)
}

/// Decodes an unsigned small float with 5 exponent bits (bias 15) and `m` mantissa bits.
pub fn decode_ufloat(x: u32, m: u32) -> f32 {
    let e = x >> m;
    let mant = x & ((1 << m) - 1);
    if e == 0 {
        mant as f32 * 2f32.powi(-14 - m as i32)
    } else if e == 31 {
        if mant == 0 {
            f32::INFINITY
        } else {
            f32::NAN
        }
    } else {
        2f32.powi(e as i32 - 15) * (1.0 + mant as f32 / (1u32 << m) as f32)
    }
}

/// Encodes an f32 as an unsigned small float (5-bit exponent, `m` mantissa bits): negative and
/// −0 → 0, NaN → NaN, +Inf → Inf, finite values round to the nearest finite value (ties even).
pub fn encode_ufloat(v: f32, m: u32) -> u32 {
    if v.is_nan() {
        return (0x1f << m) | (1 << (m - 1));
    }
    if v.is_sign_negative() || v == 0.0 {
        return 0;
    }
    if v.is_infinite() {
        return 0x1f << m;
    }
    let max_finite = (2.0 - 2f64.powi(-(m as i32))) * 32768.0;
    if v as f64 >= max_finite {
        return (0x1e << m) | ((1 << m) - 1);
    }
    let bits = v.to_bits();
    let e = ((bits >> 23) & 0xff) as i32 - 127;
    if e < -14 {
        // denormal (the carry into 1<<m is the smallest normal, as wanted)
        return round_ne(v as f64 * 2f64.powi(14 + m as i32)) as u32;
    }
    let mant = bits & 0x7f_ffff;
    let shift = 23 - m;
    let mut r = ((e + 15) as u32) << m | (mant >> shift);
    let rem = mant & ((1 << shift) - 1);
    let half = 1 << (shift - 1);
    if rem > half || (rem == half && r & 1 == 1) {
        r += 1;
    }
    r
}

fn dec_b10g11r11(b: &[u8]) -> [f32; 4] {
    let w = word(b);
    [
        decode_ufloat(w & 0x7ff, 6),
        decode_ufloat(w >> 11 & 0x7ff, 6),
        decode_ufloat(w >> 22, 5),
        1.0,
    ]
}

fn dec_e5b9g9r9(b: &[u8]) -> [f32; 4] {
    let w = word(b);
    let scale = 2f32.powi((w >> 27) as i32 - 15 - 9);
    [
        (w & 0x1ff) as f32 * scale,
        (w >> 9 & 0x1ff) as f32 * scale,
        (w >> 18 & 0x1ff) as f32 * scale,
        1.0,
    ]
}

/// Encodes RGB with the Vulkan shared-exponent algorithm (N=9, B=15, Emax=31).
pub fn encode_e5b9g9r9(rgb: [f32; 3]) -> u32 {
    const N: i32 = 9;
    const B: i32 = 15;
    let max_v = 511.0 / 512.0 * 65536.0f64;
    let c = rgb.map(|x| {
        if x.is_nan() {
            0.0
        } else {
            (x as f64).clamp(0.0, max_v)
        }
    });
    let max_c = c[0].max(c[1]).max(c[2]);
    // floor(log2(max_c)), exactly: the f64 exponent field (an f32 value widened to f64 is
    // never subnormal)
    let fl = if max_c == 0.0 {
        -B - 1
    } else {
        ((max_c.to_bits() >> 52) & 0x7ff) as i32 - 1023
    };
    let exp_p = (-B - 1).max(fl) + 1 + B;
    let max_s = (max_c / 2f64.powi(exp_p - B - N) + 0.5).floor();
    let exp_s = if max_s >= 512.0 { exp_p + 1 } else { exp_p };
    let s = c.map(|x| ((x / 2f64.powi(exp_s - B - N) + 0.5).floor() as u32).min(511));
    s[0] | s[1] << 9 | s[2] << 18 | (exp_s as u32) << 27
}

fn dec_d16(b: &[u8]) -> [f32; 4] {
    [
        u16::from_le_bytes([b[0], b[1]]) as f32 / 65535.0,
        0.0,
        0.0,
        1.0,
    ]
}
fn dec_d32f(b: &[u8]) -> [f32; 4] {
    [
        f32::from_le_bytes(b[..4].try_into().unwrap()),
        0.0,
        0.0,
        1.0,
    ]
}
fn dec_d24(b: &[u8]) -> [f32; 4] {
    [(word(b) & 0xff_ffff) as f32 / 16_777_215.0, 0.0, 0.0, 1.0]
}
fn dec_s8_raw<const AT: usize>(b: &[u8]) -> [u32; 4] {
    [b[AT] as u32, 0, 0, 1]
}
fn dec_s8_f32<const AT: usize>(b: &[u8]) -> [f32; 4] {
    [b[AT] as f32, 0.0, 0.0, 1.0]
}

/// Raw decoder for the packed/depth float formats: f32 bits of the f32 decode.
fn raw_of<const ID: u8>(b: &[u8]) -> [u32; 4] {
    let f = match ID {
        100 => dec_a2_unorm(b),
        101 => dec_b10g11r11(b),
        102 => dec_e5b9g9r9(b),
        103 => dec_d16(b),
        104 => dec_d32f(b),
        106 => dec_a2_snorm(b),
        107 => dec_a2r_snorm(b),
        _ => dec_d24(b),
    };
    f.map(f32::to_bits)
}

// ----------------------------------------------------------------------------------------------
// Encoding of float-kind values.

/// `round(clamp(v,0,1)·max)` (NaN → 0), round-to-nearest-even on the exact product.
pub fn unorm_encode(v: f32, max: u32) -> u32 {
    if v.is_nan() {
        return 0;
    }
    round_ne((v as f64).clamp(0.0, 1.0) * max as f64) as u32
}

/// `round(clamp(v,−1,1)·max)` as two's complement (NaN → 0).
pub fn snorm_encode(v: f32, max: u32) -> i32 {
    if v.is_nan() {
        return 0;
    }
    round_ne((v as f64).clamp(-1.0, 1.0) * max as f64) as i32
}

/// One component of a plain layout of float-kind elements `E`: component `c` (3 is alpha,
/// linear in sRGB formats) into its bytes of `out`.
#[inline(always)]
fn enc_elem<const E: u8>(x: f32, c: usize, out: &mut [u8]) {
    match E {
        UN8 => out[c] = unorm8(x),
        SN8 => out[c] = snorm_encode(x, 127) as u8,
        SRGB8 if c == 3 => out[c] = unorm8(x),
        // exact curve and rounding in f64 (no f32 detour)
        SRGB8 => out[c] = round_ne(linear_to_srgb(x as f64) * 255.0) as u8,
        US8 => out[c] = sat_u(x).min(255.0) as u8,
        SS8 => out[c] = sat_i(x).clamp(-128, 127) as u8,
        UN16 => put16(out, c, unorm_encode(x, 65535) as u16),
        US16 => put16(out, c, sat_u(x).min(65535.0) as u16),
        SS16 => put16(out, c, sat_i(x).clamp(-32768, 32767) as u16),
        SN16 => put16(out, c, snorm_encode(x, 32767) as u16),
        F16 => put16(out, c, f16::from_f32(x).to_bits()),
        _ => out[4 * c..4 * c + 4].copy_from_slice(&x.to_le_bytes()),
    }
}

/// A plain layout's encoder: `N` components of element `E`, in B, G, R, A order when `BGRA`.
fn enc_plain<const E: u8, const N: usize, const BGRA: bool>(
    _: Format,
    v: [f32; 4],
    out: &mut [u8],
) {
    let v = if BGRA { [v[2], v[1], v[0], v[3]] } else { v };
    for (c, &x) in v.iter().enumerate().take(N) {
        enc_elem::<E>(x, c, out);
    }
}

/// The float-kind formats' encoding rules (the plain layouts through their monomorphised
/// encoders).
fn encode_float(f: Format, v: [f32; 4], out: &mut [u8]) {
    match f.layout() {
        Layout::Plain { el, n, bgra } => plain_encoder(el, n, bgra)(f, v, out),
        Layout::A2B10G10R10Unorm => {
            let w = unorm_encode(v[0], 1023)
                | unorm_encode(v[1], 1023) << 10
                | unorm_encode(v[2], 1023) << 20
                | unorm_encode(v[3], 3) << 30;
            out[..4].copy_from_slice(&w.to_le_bytes());
        }
        Layout::A2B10G10R10Snorm => {
            let w = (snorm_encode(v[0], 511) as u32 & 0x3ff)
                | (snorm_encode(v[1], 511) as u32 & 0x3ff) << 10
                | (snorm_encode(v[2], 511) as u32 & 0x3ff) << 20
                | (snorm_encode(v[3], 1) as u32 & 3) << 30;
            out[..4].copy_from_slice(&w.to_le_bytes());
        }
        Layout::A2R10G10B10Snorm => encode_float(
            Format::A2B10G10R10_SNORM_PACK32,
            [v[2], v[1], v[0], v[3]],
            out,
        ),
        Layout::A2B10G10R10Uint | Layout::S8 => unreachable!("integer format"),
        Layout::B10G11R11 => {
            let w = encode_ufloat(v[0], 6)
                | encode_ufloat(v[1], 6) << 11
                | encode_ufloat(v[2], 5) << 22;
            out[..4].copy_from_slice(&w.to_le_bytes());
        }
        Layout::E5B9G9R9 => {
            out[..4].copy_from_slice(&encode_e5b9g9r9([v[0], v[1], v[2]]).to_le_bytes())
        }
        Layout::D16 => put16(out, 0, unorm_encode(v[0], 65535) as u16),
        Layout::D32F | Layout::D32FS8 => out[..4].copy_from_slice(&v[0].to_le_bytes()),
        Layout::X8D24 => {
            // the unused top byte is written as 0
            let d = unorm_encode(v[0], 16_777_215);
            out[..4].copy_from_slice(&d.to_le_bytes());
        }
        Layout::D24S8 => {
            let d = unorm_encode(v[0], 16_777_215);
            out[..3].copy_from_slice(&d.to_le_bytes()[..3]);
        }
    }
}

fn put16(out: &mut [u8], c: usize, x: u16) {
    out[2 * c..2 * c + 2].copy_from_slice(&x.to_le_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_values_saturate_to_the_component_width() {
        // 65536 = 2^16 does not fit 16 bits: 65535; smaller values pass unchanged
        let v = [65536, 65535, 7, u32::MAX];
        let got = Format::R16G16B16A16_UINT.saturate_raw(v);
        assert_eq!(got, [65535, 65535, 7, 65535]);
        let v = [200u32, (-200i32) as u32, (-128i32) as u32, 127];
        let want = [127, (-128i32) as u32, (-128i32) as u32, 127];
        assert_eq!(Format::R8G8B8A8_SINT.saturate_raw(v), want);
        // 10-bit colour, 2-bit alpha
        let v = [5000, 1023, 0, 9];
        assert_eq!(
            Format::A2B10G10R10_UINT_PACK32.saturate_raw(v),
            [1023, 1023, 0, 3]
        );
        // 32-bit components and float kinds are left alone
        let v = [u32::MAX, 1 << 31, 3, 4];
        assert_eq!(Format::R32G32B32A32_UINT.saturate_raw(v), v);
        assert_eq!(Format::R16G16B16A16_SFLOAT.saturate_raw(v), v);
    }

    /// Every format's `VkFormat` number against the Vulkan headers where they are installed
    /// (`vulkan_core.h`, Debian's libvulkan-dev), and a few by hand from the specification.
    #[test]
    fn vk_numbers_match_the_vulkan_headers() {
        for (f, n) in [
            (Format::R8_UNORM, 9),
            (Format::R8G8B8A8_UNORM, 37),
            (Format::B8G8R8A8_SRGB, 50),
            (Format::R16G16B16A16_SFLOAT, 97),
            (Format::R32G32B32A32_SFLOAT, 109),
            (Format::B10G11R11_UFLOAT_PACK32, 122),
            (Format::D32_SFLOAT_S8_UINT, 130),
        ] {
            assert_eq!(f.vk_number(), n, "{f:?}");
            assert_eq!(Format::from_vk_number(n), Some(f));
        }
        assert_eq!(Format::from_vk_number(0), None);
        let Ok(h) = std::fs::read_to_string("/usr/include/vulkan/vulkan_core.h") else {
            eprintln!("vulkan_core.h not installed: checked the hand-written numbers only");
            return;
        };
        for &f in Format::ALL {
            let key = format!("VK_FORMAT_{} = ", f.vk_name());
            let at = h
                .find(&key)
                .unwrap_or_else(|| panic!("{key} not in vulkan_core.h"));
            let rest = &h[at + key.len()..];
            let n: u32 = rest[..rest.find(',').unwrap()].trim().parse().unwrap();
            assert_eq!(f.vk_number(), n, "{f:?}");
        }
    }

    #[test]
    fn scaled_and_stencil_formats_by_hand() {
        // USCALED/SSCALED read the integer as a float
        let v = Format::R8G8B8A8_SSCALED.decode_f32(&[0xff, 2, 0x80, 127]);
        assert_eq!(v, [-1.0, 2.0, -128.0, 127.0]);
        let v = Format::R16G16_USCALED.decode_f32(&[0xff, 0xff, 3, 0]);
        assert_eq!(v, [65535.0, 3.0, 0.0, 1.0]);
        let mut b = [0u8; 4];
        Format::R8G8B8A8_USCALED.encode_f32([2.5, 300.0, -1.0, 3.5], &mut b);
        assert_eq!(b, [2, 255, 0, 4]); // ties to even, saturated
                                       // S8_UINT: the stencil byte, as the colour or the stencil aspect
        let s = Format::S8_UINT;
        assert_eq!(
            (s.texel_size(), s.has_stencil(), s.has_depth()),
            (1, true, false)
        );
        assert_eq!(
            (s.decoder(Aspect::Stencil).unwrap().raw)(&[9]),
            [9, 0, 0, 1]
        );
        assert!(s.decoder(Aspect::Depth).is_err());
    }

    /// `round_ne` against the standard library's `round_ties_even` (a libm call), on ties,
    /// integers, their neighbours and random values within its range.
    #[test]
    fn round_ne_rounds_ties_to_even() {
        let mut r = fastrand::Rng::with_seed(52);
        let mut values = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.5,
            2.5,
            -2.5,
            2f64.powi(51),
            -2f64.powi(51),
        ];
        for k in -70..70 {
            let x = k as f64 * 0.5;
            values.extend([x, x.next_up(), x.next_down()]);
        }
        values.extend((0..100_000).map(|_| (r.f64() - 0.5) * 2f64.powi(r.i32(0..=52))));
        for x in values {
            assert_eq!(round_ne(x), x.round_ties_even(), "{x:e}");
        }
    }

    /// Every plain float-kind format's encoder against the Vulkan rule per element written
    /// here from the standard library (f64 `round_ties_even`, `half`): UNORM/SNORM
    /// `round(clamp(v)·max)`, sRGB through `linear_to_srgb` (alpha linear), scaled integers
    /// rounded and saturated, floats converted; B, G, R order for the BGR(A) formats.
    #[test]
    fn plain_encoders_follow_the_element_rules() {
        let rne = |x: f64| x.round_ties_even();
        let reference = |el: u8, c: usize, x: f32| -> Vec<u8> {
            let xd = x as f64;
            let norm = |lo: f64, max: f64| {
                if x.is_nan() {
                    0.0
                } else {
                    rne(xd.clamp(lo, 1.0) * max)
                }
            };
            let sat = |lo: f64, hi: f64| {
                if x.is_nan() {
                    0.0
                } else {
                    rne(xd).clamp(lo, hi)
                }
            };
            match el {
                UN8 => vec![norm(0.0, 255.0) as u8],
                SRGB8 if c == 3 => vec![norm(0.0, 255.0) as u8],
                SRGB8 => vec![rne(linear_to_srgb(xd) * 255.0) as u8],
                SN8 => vec![norm(-1.0, 127.0) as i8 as u8],
                US8 => vec![sat(0.0, 255.0) as u8],
                SS8 => vec![sat(-128.0, 127.0) as i8 as u8],
                UN16 => (norm(0.0, 65535.0) as u16).to_le_bytes().to_vec(),
                SN16 => (norm(-1.0, 32767.0) as i16).to_le_bytes().to_vec(),
                US16 => (sat(0.0, 65535.0) as u16).to_le_bytes().to_vec(),
                SS16 => (sat(-32768.0, 32767.0) as i16).to_le_bytes().to_vec(),
                F16 => f16::from_f32(x).to_bits().to_le_bytes().to_vec(),
                _ => x.to_le_bytes().to_vec(),
            }
        };
        let mut r = fastrand::Rng::with_seed(37);
        let specials = [
            f32::NAN,
            -1.5,
            -1.0,
            -0.0,
            0.0,
            0.5,
            1.0,
            1.5,
            300.0,
            -40000.0,
            1e30,
        ];
        let mut checked = 0;
        for &f in Format::ALL {
            let (Layout::Plain { el, n, bgra }, NumKind::Float) = (f.layout(), f.kind()) else {
                continue;
            };
            for i in 0..2000 {
                let v: [f32; 4] = std::array::from_fn(|c| match (i + c) % 7 {
                    0 => specials[r.usize(..specials.len())],
                    1 => r.f32() * 600.0 - 300.0,
                    _ => r.f32() * 2.4 - 1.2,
                });
                let order = if bgra { [v[2], v[1], v[0], v[3]] } else { v };
                let want: Vec<u8> = (0..n as usize)
                    .flat_map(|c| reference(el, c, order[c]))
                    .collect();
                let mut got = vec![0u8; f.texel_size()];
                f.encode_f32(v, &mut got);
                assert_eq!(got, want, "{f:?} {v:?}");
                (f.encoder())(f, v, &mut got);
                assert_eq!(got, want, "{f:?} {v:?}: the encoder");
            }
            checked += 1;
        }
        assert!(checked >= 40, "{checked} plain float-kind formats");
    }

    fn rt(f: Format, v: [f32; 4]) -> [f32; 4] {
        let mut b = vec![0u8; f.texel_size()];
        f.encode_f32(v, &mut b);
        f.decode_f32(&b)
    }

    #[test]
    fn names_round_trip_and_unknown_is_error() {
        for &f in Format::ALL {
            assert_eq!(Format::from_vk_name(f.vk_name()).unwrap(), f);
        }
        assert_eq!(
            Format::from_vk_name("VK_FORMAT_r8g8b8a8_unorm").unwrap(),
            Format::R8G8B8A8_UNORM
        );
        let e = Format::from_vk_name("BC1_RGB_UNORM_BLOCK").unwrap_err();
        assert!(matches!(e, Error::Texture(ref m) if m.contains("BC1_RGB_UNORM_BLOCK")));
    }

    #[test]
    fn sizes() {
        assert_eq!(Format::R8_UNORM.texel_size(), 1);
        assert_eq!(Format::R16G16_SFLOAT.texel_size(), 4);
        assert_eq!(Format::R32G32B32A32_SFLOAT.texel_size(), 16);
        assert_eq!(Format::D32_SFLOAT_S8_UINT.texel_size(), 8);
        assert_eq!(Format::E5B9G9R9_UFLOAT_PACK32.texel_size(), 4);
    }

    #[test]
    fn unorm_snorm_edges() {
        // hand values: 0.5*255 = 127.5 -> RNE 128; 1.2 clamps to 255; -1 -> 0
        let mut b = [0u8; 4];
        Format::R8G8B8A8_UNORM.encode_f32([0.5, 1.2, -1.0, 1.0], &mut b);
        assert_eq!(b, [128, 255, 0, 255]);
        assert_eq!(Format::R8_UNORM.decode_f32(&[255]), [1.0, 0.0, 0.0, 1.0]);
        // SNORM: -128 decodes to -1 (clamped), 127 to 1, -0.5*127=-63.5 -> RNE -64
        assert_eq!(Format::R8_SNORM.decode_f32(&[0x80])[0], -1.0);
        assert_eq!(Format::R8_SNORM.decode_f32(&[127])[0], 1.0);
        let mut b = [0u8; 1];
        Format::R8_SNORM.encode_f32([-0.5, 0.0, 0.0, 0.0], &mut b);
        assert_eq!(b[0] as i8, -64);
        assert_eq!(Format::R16_UNORM.decode_f32(&[0xff, 0xff])[0], 1.0);
    }

    #[test]
    fn bgra_order_and_defaults() {
        let v = Format::B8G8R8A8_UNORM.decode_f32(&[0, 0, 255, 51]);
        assert_eq!(v, [1.0, 0.0, 0.0, 0.2]);
        assert_eq!(
            Format::R8G8_UNORM.decode_f32(&[0, 255]),
            [0.0, 1.0, 0.0, 1.0]
        );
        assert_eq!(Format::R8G8_UINT.decode_raw(&[7, 9]), [7, 9, 0, 1]);
        assert_eq!(
            Format::R16_SINT.decode_i32(&(-5i16).to_le_bytes()),
            [-5, 0, 0, 1]
        );
        let mut b = [0u8; 4];
        Format::B8G8R8A8_UINT.encode_raw([1, 2, 3, 4], &mut b);
        assert_eq!(b, [3, 2, 1, 4]);
    }

    #[test]
    fn srgb_known_values() {
        // 0.5 linear -> 1.055*0.5^(1/2.4)-0.055 = 0.735357 -> *255 = 187.516 -> 188
        let mut b = [0u8; 4];
        Format::R8G8B8A8_SRGB.encode_f32([0.5, 0.0, 1.0, 0.5], &mut b);
        assert_eq!(b, [188, 0, 255, 128]);
        // code 188 = 0.737255 -> ((0.737255+0.055)/1.055)^2.4 = 0.502886
        let d = Format::R8G8B8A8_SRGB.decode_f32(&[188, 10, 255, 128]);
        approx::assert_abs_diff_eq!(d[0], 0.502886, epsilon = 1e-5);
        // code 10 = 0.0392157 (< 0.04045) -> /12.92 = 0.00303527
        approx::assert_abs_diff_eq!(d[1], 0.003_035_27, epsilon = 1e-7);
        assert_eq!(d[2], 1.0);
        assert_eq!(d[3], 128.0 / 255.0); // alpha is linear
    }

    #[test]
    fn f16_rne_and_denormals() {
        let mut b = [0u8; 2];
        // smallest f16 denormal is 2^-24 = 5.96e-8
        Format::R16_SFLOAT.encode_f32([2f32.powi(-24), 0.0, 0.0, 0.0], &mut b);
        assert_eq!(u16::from_le_bytes(b), 1);
        // 2^-25 is a tie between 0 and 2^-24: RNE -> 0
        Format::R16_SFLOAT.encode_f32([2f32.powi(-25), 0.0, 0.0, 0.0], &mut b);
        assert_eq!(u16::from_le_bytes(b), 0);
        // 1 + 2^-11 ties between 1.0 (0x3c00) and 1+2^-10 (0x3c01): even -> 0x3c00
        Format::R16_SFLOAT.encode_f32([1.0 + 2f32.powi(-11), 0.0, 0.0, 0.0], &mut b);
        assert_eq!(u16::from_le_bytes(b), 0x3c00);
        assert_eq!(
            Format::R16_SFLOAT.decode_f32(&0x0200u16.to_le_bytes())[0],
            2f32.powi(-15)
        );
    }

    #[test]
    fn small_floats() {
        // 11-bit: 1.0 = exp 15, mant 0 -> 15<<6 = 960; max finite = 65024
        assert_eq!(encode_ufloat(1.0, 6), 960);
        assert_eq!(encode_ufloat(-3.0, 6), 0);
        assert_eq!(encode_ufloat(1e9, 6), 0x7bf);
        assert_eq!(decode_ufloat(0x7bf, 6), 65024.0);
        assert_eq!(decode_ufloat(1, 6), 2f32.powi(-20));
        assert_eq!(decode_ufloat(1, 5), 2f32.powi(-19));
        assert_eq!(encode_ufloat(2f32.powi(-20), 6), 1);
        assert!(decode_ufloat(encode_ufloat(f32::NAN, 5), 5).is_nan());
        let v = rt(Format::B10G11R11_UFLOAT_PACK32, [0.5, 2.0, 3.0, 0.0]);
        assert_eq!(v, [0.5, 2.0, 3.0, 1.0]);
    }

    #[test]
    fn e5b9g9r9_known() {
        // (1,0,0): max_c=1, floor(log2)=0, exp'=16, max_s=floor(1/2^-8+0.5)=256 -> R=256, E=16
        assert_eq!(encode_e5b9g9r9([1.0, 0.0, 0.0]), 256 | 16 << 27);
        // (0.5,0.25,0) : exp'=15, scale 2^-9: R=256, G=128
        assert_eq!(encode_e5b9g9r9([0.5, 0.25, 0.0]), 256 | 128 << 9 | 15 << 27);
        // all zero -> exponent 0
        assert_eq!(encode_e5b9g9r9([0.0, 0.0, 0.0]), 0);
        // 511/256 = 1.99609: exp'=16, max_s = 511 -> fits
        assert_eq!(encode_e5b9g9r9([511.0 / 256.0, 0.0, 0.0]), 511 | 16 << 27);
        // 1.999: max_s = floor(511.744+0.5) = 512 -> exp_s=17, R = floor(255.87+0.5)=256
        assert_eq!(encode_e5b9g9r9([1.999, 0.0, 0.0]), 256 | 17 << 27);
        let d = Format::E5B9G9R9_UFLOAT_PACK32.decode_f32(&(256u32 | 15 << 27).to_le_bytes());
        assert_eq!(d, [0.5, 0.0, 0.0, 1.0]);
    }

    /// The shared-exponent encode against the spec's algorithm written naively (floor(log2)
    /// found by stepping through powers of two), over powers of two, their f32 neighbours
    /// and a spread of other values in every channel position.
    #[test]
    fn e5b9g9r9_against_naive_spec() {
        fn naive(rgb: [f32; 3]) -> u32 {
            let max_v = 511.0 / 512.0 * 65536.0f64;
            let c = rgb.map(|x| {
                if x.is_nan() {
                    0.0
                } else {
                    (x as f64).clamp(0.0, max_v)
                }
            });
            let max_c = c[0].max(c[1]).max(c[2]);
            let mut fl = -16;
            if max_c > 0.0 {
                fl = -160;
                while 2f64.powi(fl + 1) <= max_c {
                    fl += 1;
                }
            }
            let exp_p = fl.max(-16) + 16;
            let max_s = (max_c / 2f64.powi(exp_p - 24) + 0.5).floor();
            let exp_s = if max_s >= 512.0 { exp_p + 1 } else { exp_p };
            let s = c.map(|x| ((x / 2f64.powi(exp_s - 24) + 0.5).floor() as u32).min(511));
            s[0] | s[1] << 9 | s[2] << 18 | (exp_s as u32) << 27
        }
        let mut values = vec![
            0.0,
            -1.0,
            f32::NAN,
            f32::INFINITY,
            f32::MAX,
            f32::MIN_POSITIVE,
        ];
        for e in -150..=17 {
            let p = 2f32.powi(e);
            values.extend([
                p,
                f32::from_bits(p.to_bits() + 1),
                f32::from_bits(p.to_bits() - 1),
            ]);
        }
        let mut r = fastrand::Rng::with_seed(71);
        values.extend((0..2000).map(|_| f32::from_bits(r.u32(0..0x4800_0000))));
        for (i, &x) in values.iter().enumerate() {
            let y = values[(i * 7 + 3) % values.len()] * 0.75;
            for rgb in [[x, 0.0, 0.0], [0.25, x, y], [y, 0.125, x]] {
                assert_eq!(encode_e5b9g9r9(rgb), naive(rgb), "{rgb:?}");
            }
        }
    }

    /// The sRGB curve through the `libm` crate's `pow` against the platform's f64 `powf`:
    /// every 8-bit decode and the 8-bit encode of a dense sweep of f32 values in [0, 1]
    /// (every 61st encoding) agree.
    #[test]
    fn srgb_curve_matches_platform_pow() {
        for i in 0..256 {
            let c = i as f64 / 255.0;
            let want = if c <= 0.04045 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            };
            assert_eq!(SRGB_TABLE[i], want as f32, "code {i}");
        }
        let mut b = 0u32;
        while b <= 1f32.to_bits() {
            let l = f32::from_bits(b) as f64;
            let e = if l <= 0.0031308 {
                l * 12.92
            } else {
                1.055 * l.powf(1.0 / 2.4) - 0.055
            };
            let want = (e.min(1.0) * 255.0).round_ties_even();
            assert_eq!((linear_to_srgb(l) * 255.0).round_ties_even(), want, "{l:e}");
            b += 61;
        }
    }

    #[test]
    fn three_component_formats() {
        // 3 bytes / 6 bytes / 12 bytes per texel, alpha defaults to 1
        assert_eq!(Format::R8G8B8_UNORM.texel_size(), 3);
        assert_eq!(Format::B8G8R8_SRGB.texel_size(), 3);
        assert_eq!(Format::R16G16B16_SFLOAT.texel_size(), 6);
        assert_eq!(Format::R32G32B32_SFLOAT.texel_size(), 12);
        assert_eq!(Format::R8G8B8_SNORM.components(), 3);
        // SNORM: -128 and -127 both decode to -1, 127 to 1 (hand values)
        assert_eq!(
            Format::R8G8B8_SNORM.decode_f32(&[0x80, 0x81, 0x7f]),
            [-1.0, -1.0, 1.0, 1.0]
        );
        // BGR: memory order B, G, R; 51 / 255 = 0.2, 255 / 255 = 1
        assert_eq!(
            Format::B8G8R8_UNORM.decode_f32(&[255, 0, 51]),
            [51.0 / 255.0, 0.0, 1.0, 1.0]
        );
        assert_eq!(Format::B8G8R8_UINT.decode_u32(&[7, 8, 9]), [9, 8, 7, 1]);
        let mut b = [0u8; 3];
        Format::B8G8R8_SINT.encode_raw([(-2i32) as u32, 3, 4, 0], &mut b);
        assert_eq!(b, [4, 3, 0xfe]);
        // sRGB: code 255 -> 1.0 and code 0 -> 0 on every colour channel
        assert_eq!(
            Format::B8G8R8_SRGB.decode_f32(&[0, 255, 0]),
            [0.0, 1.0, 0.0, 1.0]
        );
        let mut w = [0u8; 12];
        Format::R32G32B32_SFLOAT.encode_f32([1.5, -2.0, 0.25, 9.0], &mut w);
        assert_eq!(&w[..4], &1.5f32.to_le_bytes());
        assert_eq!(&w[8..], &0.25f32.to_le_bytes());
        assert_eq!(
            Format::R32G32B32_SFLOAT.decode_f32(&w),
            [1.5, -2.0, 0.25, 1.0]
        );
        // R16G16B16_UNORM: 0xffff -> 1, 0 -> 0, 0x8000 -> 32768 / 65535
        assert_eq!(
            Format::R16G16B16_UNORM.decode_f32(&[0xff, 0xff, 0, 0, 0, 0x80]),
            [1.0, 0.0, 32768.0 / 65535.0, 1.0]
        );
    }

    #[test]
    fn x8_d24() {
        let f = Format::X8_D24_UNORM_PACK32;
        assert!(f.has_depth() && !f.has_stencil());
        assert_eq!((f.texel_size(), f.unorm_depth_bits()), (4, Some(24)));
        // the top byte is ignored: 0x80_0000 / (2^24 - 1)
        let d = f.decode_f32(&0xAB80_0000u32.to_le_bytes());
        assert_eq!(d, [(8_388_608.0f64 / 16_777_215.0) as f32, 0.0, 0.0, 1.0]);
        assert!(f.decoder(Aspect::Stencil).is_err());
        // encode: round(0.5 * (2^24 - 1)) = 8388608 (8388607.5, ties even), top byte 0
        let mut b = [0xffu8; 4];
        f.encode_f32([0.5, 0.0, 0.0, 0.0], &mut b);
        assert_eq!(u32::from_le_bytes(b), 8_388_608);
    }

    #[test]
    fn a2b10g10r10_snorm() {
        // the CTS snorm_clamp word 0xA0080200: R = G = B = 0x200 (-512), A = 0b10 (-2); every
        // field is the most negative code and clamps to -1
        let d = Format::A2B10G10R10_SNORM_PACK32.decode_f32(&0xA008_0200u32.to_le_bytes());
        assert_eq!(d, [-1.0; 4]);
        // R = 511 -> 1, G = 1 -> 1/511, B = 0x3ff (-1) -> -1/511, A = 1 -> 1
        let w: u32 = 511 | 1 << 10 | 0x3ff << 20 | 1 << 30;
        let d = Format::A2B10G10R10_SNORM_PACK32.decode_f32(&w.to_le_bytes());
        assert_eq!(d, [1.0, 1.0 / 511.0, -1.0 / 511.0, 1.0]);
        assert!(Format::A2B10G10R10_SNORM_PACK32.is_snorm());
        // encode: round(v * 511) in two's complement, alpha round(v * 1)
        let mut b = [0u8; 4];
        Format::A2B10G10R10_SNORM_PACK32.encode_f32([1.0, 1.0 / 511.0, -1.0 / 511.0, 1.0], &mut b);
        assert_eq!(u32::from_le_bytes(b), w);
        Format::A2B10G10R10_SNORM_PACK32.encode_f32([-1.0, -2.0, 0.0, -1.0], &mut b);
        // -511 = 0x201 in 10 bits; -1 alpha = 0b11
        assert_eq!(u32::from_le_bytes(b), 0x201 | 0x201 << 10 | 3 << 30);
    }

    /// A2R10G10B10_SNORM_PACK32: the spec's layout, A in bits 30..31, R in 20..29, G in
    /// 10..19, B in 0..9 (each field written by hand here), the SNORM rule per field.
    #[test]
    fn a2r10g10b10_snorm() {
        // R = 511 -> 1, G = 1 -> 1/511, B = 0x3ff (-1) -> -1/511, A = 1 -> 1
        let w: u32 = 511 << 20 | 1 << 10 | 0x3ff | 1 << 30;
        let f = Format::A2R10G10B10_SNORM_PACK32;
        assert_eq!(
            f.decode_f32(&w.to_le_bytes()),
            [1.0, 1.0 / 511.0, -1.0 / 511.0, 1.0]
        );
        assert_eq!(
            f.decode_raw(&w.to_le_bytes()),
            [1.0, 1.0 / 511.0, -1.0 / 511.0, 1.0].map(f32::to_bits)
        );
        // the CTS snorm_clamp FILL 2684879360 = 0xA0080200: every field its most negative code
        assert_eq!(f.decode_f32(&0xA008_0200u32.to_le_bytes()), [-1.0; 4]);
        assert!(f.is_snorm() && f.components() == 4 && f.texel_size() == 4);
        let mut b = [0u8; 4];
        f.encode_f32([1.0, 1.0 / 511.0, -1.0 / 511.0, 1.0], &mut b);
        assert_eq!(u32::from_le_bytes(b), w);
        // R = -1 -> -511 = 0x201 (bits 20..29), B = 0.5 -> round(255.5) = 256 (ties to even)
        f.encode_f32([-1.0, 0.0, 0.5, -1.0], &mut b);
        assert_eq!(u32::from_le_bytes(b), 0x201 << 20 | 256 | 3 << 30);
    }

    /// A8B8G8R8_*_PACK32: R in bits 0..7 of the little-endian word (byte 0), A in 24..31.
    #[test]
    fn a8b8g8r8_pack32() {
        // R = 0x81 (-127) -> -1, G = 0x7f -> 1, B = 0 -> 0, A = 0xc1 (-63) -> -63/127
        let w: u32 = 0x81 | 0x7f << 8 | 0xc1 << 24;
        let d = Format::A8B8G8R8_SNORM_PACK32.decode_f32(&w.to_le_bytes());
        assert_eq!(d, [-1.0, 1.0, 0.0, -63.0 / 127.0]);
        let u = Format::A8B8G8R8_UINT_PACK32.decode_u32(&w.to_le_bytes());
        assert_eq!(u, [0x81, 0x7f, 0, 0xc1]);
        let i = Format::A8B8G8R8_SINT_PACK32.decode_i32(&w.to_le_bytes());
        assert_eq!(i, [-127, 127, 0, -63]);
        let mut b = [0u8; 4];
        Format::A8B8G8R8_UNORM_PACK32.encode_f32([1.0, 0.0, 0.5, 0.2], &mut b);
        // 0.5 * 255 = 127.5 -> 128 (ties to even), 0.2 * 255 = 51
        assert_eq!(u32::from_le_bytes(b), 255 | 128 << 16 | 51 << 24);
    }

    #[test]
    fn packed_and_depth() {
        let w: u32 = 1023 | (512 << 20) | (3 << 30); // G = 0
        let d = Format::A2B10G10R10_UNORM_PACK32.decode_f32(&w.to_le_bytes());
        assert_eq!(d, [1.0, 0.0, 512.0 / 1023.0, 1.0]);
        assert_eq!(
            Format::A2B10G10R10_UINT_PACK32.decode_u32(&w.to_le_bytes()),
            [1023, 0, 512, 3]
        );
        let mut b = [0u8; 4];
        Format::D24_UNORM_S8_UINT.encode_f32([1.0, 0.0, 0.0, 0.0], &mut b);
        Format::D24_UNORM_S8_UINT.encode_stencil(0x5a, &mut b);
        assert_eq!(b, [0xff, 0xff, 0xff, 0x5a]);
        let st = Format::D24_UNORM_S8_UINT.decoder(Aspect::Stencil).unwrap();
        assert_eq!((st.raw)(&b), [0x5a, 0, 0, 1]);
        assert_eq!(
            Format::D16_UNORM.decode_f32(&[0xff, 0xff]),
            [1.0, 0.0, 0.0, 1.0]
        );
        assert!(Format::D16_UNORM.decoder(Aspect::Stencil).is_err());
        assert!(Format::R8_UNORM.decoder(Aspect::Depth).is_err());
    }
}
