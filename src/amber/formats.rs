//! Amber `FORMAT` names (Vulkan format names) mapped to what quadstep's units accept: the
//! `VkFormat` numbers the rasterizer's colour, depth and vertex formats are keyed by, and the
//! texture unit's [`texture::Format`](crate::texture::Format). Data types of `DATA_TYPE`
//! buffers map to the format Amber gives them when a buffer is used as vertex or index data.

use super::types::{DataType, ElemType, Format, NumMode, Scalar};
use crate::raster::{ColorFormat, DepthFormat, VertexFormat};
use crate::{Error, Result};

/// `VkFormat` numbers of the formats any quadstep unit renders to or fetches from.
const VK_FORMATS: &[(&str, u32)] = &[
    ("R8_UNORM", 9),
    ("R8_SNORM", 10),
    ("R8_UINT", 13),
    ("R8_SINT", 14),
    ("R8G8_UNORM", 16),
    ("R8G8_UINT", 20),
    ("R8G8_SINT", 21),
    ("R8G8B8A8_UNORM", 37),
    ("R8G8B8A8_SNORM", 38),
    ("R8G8B8A8_USCALED", 39),
    ("R8G8B8A8_SSCALED", 40),
    ("R8G8B8A8_UINT", 41),
    ("R8G8B8A8_SINT", 42),
    ("R8G8B8A8_SRGB", 43),
    ("B8G8R8A8_UNORM", 44),
    ("B8G8R8A8_SRGB", 50),
    ("R16_UNORM", 70),
    ("R16_UINT", 74),
    ("R16_SINT", 75),
    ("R16_SFLOAT", 76),
    ("R16G16_UNORM", 77),
    ("R16G16_SNORM", 78),
    ("R16G16_UINT", 81),
    ("R16G16_SINT", 82),
    ("R16G16_SFLOAT", 83),
    ("R16G16B16A16_UNORM", 91),
    ("R16G16B16A16_SNORM", 92),
    ("R16G16B16A16_UINT", 95),
    ("R16G16B16A16_SINT", 96),
    ("R16G16B16A16_SFLOAT", 97),
    ("R32_UINT", 98),
    ("R32_SINT", 99),
    ("R32_SFLOAT", 100),
    ("R32G32_UINT", 101),
    ("R32G32_SINT", 102),
    ("R32G32_SFLOAT", 103),
    ("R32G32B32_UINT", 104),
    ("R32G32B32_SINT", 105),
    ("R32G32B32_SFLOAT", 106),
    ("R32G32B32A32_UINT", 107),
    ("R32G32B32A32_SINT", 108),
    ("R32G32B32A32_SFLOAT", 109),
    ("D16_UNORM", 124),
    ("X8_D24_UNORM_PACK32", 125),
    ("D32_SFLOAT", 126),
    ("S8_UINT", 127),
    ("D16_UNORM_S8_UINT", 128),
    ("D24_UNORM_S8_UINT", 129),
    ("D32_SFLOAT_S8_UINT", 130),
];

/// The `VkFormat` number of a format name.
pub fn vk_number(name: &str) -> Option<u32> {
    VK_FORMATS.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
}

/// The Vulkan format name Amber gives a `DATA_TYPE` (`vec4<float>` → `R32G32B32A32_SFLOAT`).
pub fn data_type_format_name(d: &DataType) -> Option<String> {
    if d.cols != 1 {
        return None;
    }
    let (bits, suffix) = match d.scalar {
        Scalar::I8 => (8, "SINT"),
        Scalar::I16 => (16, "SINT"),
        Scalar::I32 => (32, "SINT"),
        Scalar::I64 => (64, "SINT"),
        Scalar::U8 => (8, "UINT"),
        Scalar::U16 => (16, "UINT"),
        Scalar::U32 => (32, "UINT"),
        Scalar::U64 => (64, "UINT"),
        Scalar::F16 => (16, "SFLOAT"),
        Scalar::F32 => (32, "SFLOAT"),
        Scalar::F64 => (64, "SFLOAT"),
    };
    let mut s = String::new();
    for c in ["R", "G", "B", "A"].iter().take(d.rows as usize) {
        s.push_str(&format!("{c}{bits}"));
    }
    Some(format!("{s}_{suffix}"))
}

/// The format name of a buffer's element type (its `FORMAT`, or the one of its `DATA_TYPE`).
pub fn elem_format_name(e: &ElemType) -> Option<String> {
    match e {
        ElemType::Format(f) => Some(f.name.clone()),
        ElemType::Data(d) => data_type_format_name(d),
        ElemType::Struct(_) => None,
    }
}

fn unsupported(what: &str, name: &str) -> Error {
    Error::Unsupported(format!("{what} format {name}"))
}

/// A colour attachment format.
pub fn color_format(name: &str) -> Result<ColorFormat> {
    let n = vk_number(name).ok_or_else(|| unsupported("colour attachment", name))?;
    ColorFormat::from_vk(n).map_err(|_| unsupported("colour attachment", name))
}

/// A depth/stencil attachment format.
pub fn depth_format(name: &str) -> Result<DepthFormat> {
    let n = vk_number(name).ok_or_else(|| unsupported("depth/stencil attachment", name))?;
    DepthFormat::from_vk(n).map_err(|_| unsupported("depth/stencil attachment", name))
}

/// A vertex attribute format.
pub fn vertex_format(name: &str) -> Result<VertexFormat> {
    let n = vk_number(name).ok_or_else(|| unsupported("vertex attribute", name))?;
    VertexFormat::from_vk(n).map_err(|_| unsupported("vertex attribute", name))
}

/// A texture-unit format (sampled and storage images, probes).
pub fn texture_format(name: &str) -> Result<crate::texture::Format> {
    crate::texture::Format::from_vk_name(name).map_err(|_| unsupported("image", name))
}

/// A texel buffer view format: one the texture unit decodes, and not depth/stencil
/// (unsupported ones give `Error::Unsupported` naming the format).
/// `A8B8G8R8_*_PACK32` reads as `R8G8B8A8_*`: on a little-endian host the packed word's
/// low byte is R, so the two have the same bytes (the Vulkan spec says so of these formats).
pub fn texel_buffer_format(name: &str) -> Result<crate::texture::Format> {
    let alias = name
        .strip_prefix("A8B8G8R8_")
        .and_then(|m| m.strip_suffix("_PACK32"))
        .map(|mode| format!("R8G8B8A8_{mode}"));
    let f = crate::texture::Format::from_vk_name(alias.as_deref().unwrap_or(name))
        .map_err(|_| unsupported("texel buffer", name))?;
    if f.has_depth() || f.has_stencil() {
        return Err(Error::Amber(format!(
            "{name} is a depth/stencil format, not a texel buffer format"
        )));
    }
    Ok(f)
}

/// How to read one scalar of a buffer for `EXPECT … IDX` comparisons.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScalarRead {
    pub bytes: u32,
    pub mode: NumMode,
}

/// The scalar an element type is compared as (Amber compares buffers scalar by scalar).
pub fn scalar_of(e: &ElemType) -> Option<ScalarRead> {
    match e {
        ElemType::Data(d) => Some(ScalarRead {
            bytes: d.scalar.bytes(),
            mode: d.scalar.mode(),
        }),
        ElemType::Format(f) => {
            let c = f.components.first()?;
            if c.bits % 8 != 0 || f.pack_bits.is_some() {
                return None;
            }
            Some(ScalarRead {
                bytes: c.bits / 8,
                mode: c.mode,
            })
        }
        ElemType::Struct(_) => None,
    }
}

/// Texel size and numeric kind of a plain (byte-aligned, unpacked, same-kind) format such as
/// `R8G8B8_UNORM`, which the texture unit does not store but vertex data may use.
pub fn plain_layout(f: &Format) -> Option<(usize, crate::texture::NumKind)> {
    use crate::texture::NumKind;
    if f.pack_bits.is_some() || f.components.iter().any(|c| c.bits % 8 != 0 || c.bits > 32) {
        return None;
    }
    let kind = match f.components.first()?.mode {
        NumMode::Uint | NumMode::Uscaled => NumKind::Uint,
        NumMode::Sint | NumMode::Sscaled => NumKind::Sint,
        NumMode::Unorm | NumMode::Snorm | NumMode::Sfloat | NumMode::Srgb => NumKind::Float,
        NumMode::Ufloat => return None,
    };
    Some((f.texel_bytes() as usize, kind))
}

/// Decode one texel of a plain format to raw words: f32 bits for normalized and float
/// components (UNORM `v / max`, SNORM `max(v / max, -1)`), integers otherwise; missing
/// components are (0, 0, 0, 1).
pub fn decode_plain(f: &Format, b: &[u8]) -> [u32; 4] {
    let int = matches!(
        f.components.first().map(|c| c.mode),
        Some(NumMode::Uint | NumMode::Sint | NumMode::Uscaled | NumMode::Sscaled)
    );
    let mut out = [0, 0, 0, if int { 1 } else { 1f32.to_bits() }];
    let mut at = 0usize;
    for c in &f.components {
        let n = (c.bits / 8) as usize;
        let mut raw = [0u8; 4];
        raw[..n].copy_from_slice(&b[at..at + n]);
        at += n;
        let u = u32::from_le_bytes(raw);
        let max = if c.bits >= 32 {
            u32::MAX
        } else {
            (1u32 << c.bits) - 1
        };
        let signed = {
            let shift = 32 - c.bits;
            ((u << shift) as i32) >> shift
        };
        let v = match c.mode {
            NumMode::Unorm | NumMode::Srgb => (u as f64 / max as f64) as f32,
            NumMode::Snorm => ((signed as f64) / (max >> 1) as f64).max(-1.0) as f32,
            NumMode::Sfloat if c.bits == 16 => half::f16::from_bits(u as u16).to_f32(),
            NumMode::Sfloat => f32::from_bits(u),
            NumMode::Uscaled => u as f32,
            NumMode::Sscaled => signed as f32,
            NumMode::Sint => {
                let idx = "RGBA".find(c.name);
                if let Some(i) = idx {
                    out[i] = signed as u32;
                }
                continue;
            }
            _ => {
                if let Some(i) = "RGBA".find(c.name) {
                    out[i] = u;
                }
                continue;
            }
        };
        if let Some(i) = "RGBA".find(c.name) {
            out[i] = v.to_bits();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_types_map_to_amber_formats() {
        let d = DataType::parse("vec4<float>").unwrap();
        assert_eq!(data_type_format_name(&d).unwrap(), "R32G32B32A32_SFLOAT");
        let d = DataType::parse("vec2<int32>").unwrap();
        assert_eq!(data_type_format_name(&d).unwrap(), "R32G32_SINT");
        assert_eq!(vk_number("R8G8B8A8_UNORM"), Some(37));
        assert_eq!(vk_number("D32_SFLOAT_S8_UINT"), Some(130));
    }

    #[test]
    fn plain_formats_decode_by_hand() {
        let f = Format::parse("R8G8B8_UNORM").unwrap();
        assert_eq!(plain_layout(&f).unwrap().0, 3);
        // 255 → 1.0, 0 → 0.0, 51 → 0.2; alpha defaults to 1.0.
        let v = decode_plain(&f, &[255, 0, 51]).map(f32::from_bits);
        assert_eq!(v, [1.0, 0.0, 51.0 / 255.0, 1.0]);
        let s = Format::parse("R8G8_SNORM").unwrap();
        // -128 clamps to -1, 127 → 1.
        let v = decode_plain(&s, &[0x80, 0x7f]).map(f32::from_bits);
        assert_eq!(v, [-1.0, 1.0, 0.0, 1.0]);
    }
}
