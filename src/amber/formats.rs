//! Amber `FORMAT` names (Vulkan format names) looked up in the crate's one format table
//! ([`crate::format::Format`]), with the use each unit accepts them for (colour and
//! depth/stencil attachments, vertex attributes, images, texel buffers). Data types of
//! `DATA_TYPE` buffers map to the format Amber gives them when a buffer is used as vertex or
//! index data.

use super::types::{DataType, ElemType, NumMode, Scalar};
use crate::format::Format as Texel;
use crate::raster;
use crate::{Error, Result};

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

/// The table's format of a name, for a use `check` accepts.
fn lookup(name: &str, what: &str, check: fn(Texel) -> Result<Texel>) -> Result<Texel> {
    Texel::from_vk_name(name)
        .and_then(check)
        .map_err(|_| unsupported(what, name))
}

/// A colour attachment format.
pub fn color_format(name: &str) -> Result<Texel> {
    lookup(name, "colour attachment", raster::color_attachment)
}

/// A depth/stencil attachment format.
pub fn depth_format(name: &str) -> Result<Texel> {
    lookup(name, "depth/stencil attachment", raster::depth_attachment)
}

/// A vertex attribute format.
pub fn vertex_format(name: &str) -> Result<Texel> {
    lookup(name, "vertex attribute", raster::vertex_attribute)
}

/// A texture-unit format (sampled and storage images, probes).
pub fn texture_format(name: &str) -> Result<Texel> {
    Texel::from_vk_name(name).map_err(|_| unsupported("image", name))
}

/// A texel buffer view format: one the texture unit decodes, and not depth/stencil
/// (unsupported ones give `Error::Unsupported` naming the format).
pub fn texel_buffer_format(name: &str) -> Result<Texel> {
    let f = texture_format(name).map_err(|_| unsupported("texel buffer", name))?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_types_map_to_amber_formats() {
        let d = DataType::parse("vec4<float>").unwrap();
        assert_eq!(data_type_format_name(&d).unwrap(), "R32G32B32A32_SFLOAT");
        let d = DataType::parse("vec2<int32>").unwrap();
        assert_eq!(data_type_format_name(&d).unwrap(), "R32G32_SINT");
    }
}
