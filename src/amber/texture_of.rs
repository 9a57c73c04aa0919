//! A script buffer as the texture unit sees it: its dimensionality, extent, layers, levels
//! and samples from the declaration and the size it ends with, level 0 from its bytes, the
//! other levels generated from level 0 except those rendered as attachments
//! (`BASE_MIP_LEVEL n`), which replace the generated ones. One rule for the runner, which
//! makes the texture a shader samples (with its own limit checks and memory charges around
//! it), and for [`super::BufferDump::texture`], which rebuilds it after the run for a user who
//! asks for a level or a layer (`quadstep render --level/--layer`).

use std::collections::BTreeMap;

use super::ast::ImageDim;
use crate::texture::{self, Format, Image};
use crate::Result;

/// The texture-unit image a buffer declared with `dim`, `mip_levels` and `samples` becomes at
/// `width` x `height` x `depth` texels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Geometry {
    pub dim: texture::ImageDim,
    pub extent: [u32; 3],
    pub layers: u32,
    pub levels: u32,
    pub samples: u32,
}

pub(crate) fn geometry(
    dim: Option<ImageDim>,
    [width, height, depth]: [u32; 3],
    mip_levels: u32,
    samples: u32,
) -> Geometry {
    let (w, h, d) = (width.max(1), height.max(1), depth.max(1));
    let (dim, extent, layers) = match dim {
        Some(ImageDim::Cube) => (texture::ImageDim::D2, [w, h, 1], 6),
        Some(ImageDim::D1) => (texture::ImageDim::D1, [w, 1, 1], 1),
        Some(ImageDim::D3) => (texture::ImageDim::D3, [w, h, d], 1),
        _ => (texture::ImageDim::D2, [w, h, 1], 1),
    };
    Geometry {
        dim,
        extent,
        layers,
        levels: mip_levels.max(1),
        samples: samples.max(1),
    }
}

impl Geometry {
    /// A zero-filled image of this shape.
    pub fn image(&self, format: Format) -> Result<Image> {
        Image::new(
            format,
            self.dim,
            self.extent,
            self.layers,
            self.levels,
            self.samples,
        )
    }
}

/// Fill `img`: level 0 from `level0` (exactly its size), then, for a mip chain, `before_mips`
/// (the runner polls its cancel token there), the levels generated, and the rendered ones of
/// `mips` in their place (cut or zero-padded to their size).
pub(crate) fn fill(
    img: &mut Image,
    level0: &[u8],
    mips: &BTreeMap<u32, Vec<u8>>,
    before_mips: impl FnOnce() -> Result<()>,
) -> Result<()> {
    img.upload_bytes(0, level0)?;
    let levels = img.levels();
    if levels > 1 {
        before_mips()?;
        img.generate_mips()?;
        let ts = img.format().texel_size();
        for (&l, bytes) in mips.range(1..levels) {
            let mut b = bytes.clone();
            b.resize(img.level_texels(l) * ts, 0);
            img.upload_bytes(l, &b)?;
        }
    }
    Ok(())
}
