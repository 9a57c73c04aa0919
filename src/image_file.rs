//! Writing a rendered picture to a file without losing what the attachment holds: [`Pixels`]
//! (decoded RGBA texels and how precise their format is) and the files it writes,
//! [`FileFormat`]:
//! - PNG, 8 bits a channel for formats of at most 8 bits a channel (UNORM, SRGB, 8-bit
//!   integers), 16 bits for the others (16-bit UNORM, packed 10/11-bit, float, 16/32-bit
//!   integers); normalized and float values are clamped to [0, 1], SRGB values written in sRGB
//!   encoding (as PNG expects), integers clamped to the channel's range;
//! - OpenEXR, 32-bit float RGBA (the values as they are: floats unclamped, integers as
//!   numbers);
//! - `.f32` (or `.npy`): the same float values in NumPy's `.npy` layout: a header of 128 bytes
//!   (magic `\x93NUMPY`, version 1.0, and the text
//!   `{'descr': '<f4', 'fortran_order': False, 'shape': (H, W, 4), }` padded with spaces), then
//!   H x W x 4 little-endian f32, rows top to bottom, R G B A per pixel. `numpy.load(path)`
//!   reads it in one call; without NumPy, skip the header (its length is the little-endian
//!   u16 at byte 8, plus 10).
//!
//! Shaped this way so that every source of pictures (a colour attachment in the library, a
//! level or layer of any image a script ends with in `quadstep render`) turns into one
//! [`Pixels`] and shares one encoder per file format.

use std::path::Path;

use crate::raster::{ColorClass, ColorTarget};
use crate::texture::{self, Image, NumKind};
use crate::{Error, Result};

/// The kinds of file a picture is written as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileFormat {
    /// PNG, 8 or 16 bits a channel by the source's precision.
    Png,
    /// OpenEXR, 32-bit float RGBA.
    Exr,
    /// 32-bit float RGBA after a NumPy `.npy` header.
    F32,
}

impl FileFormat {
    /// The format a file name's extension asks for (`png`, `exr`, `f32` or `npy`, any case).
    pub fn from_path(path: &Path) -> Option<FileFormat> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "png" => Some(FileFormat::Png),
            "exr" => Some(FileFormat::Exr),
            "f32" | "npy" => Some(FileFormat::F32),
            _ => None,
        }
    }
}

/// What the channels of a picture's source are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Channels {
    /// Normalized or float values (sRGB formats decoded to linear).
    Float { srgb: bool },
    /// Unsigned or signed integers, held exactly in the f32 values.
    Integer,
}

/// A picture as f32 RGBA texels, rows top to bottom, with the precision of the format it
/// came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Pixels {
    pub width: u32,
    pub height: u32,
    pub texels: Vec<[f32; 4]>,
    pub channels: Channels,
    /// Bits of the source's widest channel: 8 or fewer make an 8-bit PNG, more a 16-bit one.
    pub bits: u32,
}

/// The widest channel of a Vulkan format name's bit layout (`R8G8B8A8_UNORM` 8,
/// `A2B10G10R10_UNORM_PACK32` 10, `R16G16B16A16_SFLOAT` 16, `D32_SFLOAT` 32).
fn channel_bits(vk_name: &str) -> u32 {
    let layout = vk_name.split('_').next().unwrap_or("");
    layout
        .split(|c: char| c.is_ascii_alphabetic())
        .filter_map(|d| d.parse::<u32>().ok())
        .max()
        .unwrap_or(8)
}

impl Pixels {
    /// Level `level`, layer `layer` (a cube's face, an array's layer, or a 3D image's slice)
    /// of `img`. A multisampled image (level 0, layer 0 only) is resolved as the rasterizer
    /// resolves an attachment: the mean of each pixel's samples, stored in the image's
    /// format; integers take sample 0.
    pub fn from_image(img: &Image, level: u32, layer: u32) -> Result<Pixels> {
        let format = img.format();
        if level >= img.levels() {
            return Err(Error::Texture(format!(
                "level {level}: the image has {} level(s)",
                img.levels()
            )));
        }
        let [w, h, d] = img.level_extent(level);
        let (layers, is_3d) = if img.dim() == texture::ImageDim::D3 {
            (d, true)
        } else {
            (img.layers(), false)
        };
        if layer >= layers {
            let what = if is_3d { "slice(s)" } else { "layer(s)" };
            return Err(Error::Texture(format!(
                "layer {layer}: level {level} has {layers} {what}"
            )));
        }
        let integer = format.kind() != NumKind::Float;
        let n = img.samples();
        let mut texel = vec![0u8; format.texel_size()];
        let mut texels = Vec::with_capacity(w as usize * h as usize);
        for y in 0..h {
            for x in 0..w {
                let (xyz, l) = if is_3d {
                    ([x, y, layer], 0)
                } else {
                    ([x, y, 0], layer)
                };
                let at = |s: u32| {
                    img.texel(level, l, xyz, s).ok_or_else(|| {
                        Error::Texture(format!("texel ({x}, {y}) of level {level} layer {layer}"))
                    })
                };
                let v = if integer {
                    let raw = format.decode_raw(at(0)?);
                    match format.kind() {
                        NumKind::Sint => raw.map(|c| c as i32 as f32),
                        _ => raw.map(|c| c as f32),
                    }
                } else if n == 1 {
                    format.decode_f32(at(0)?)
                } else {
                    let mut sum = [0.0f32; 4];
                    for s in 0..n {
                        for (a, v) in sum.iter_mut().zip(format.decode_f32(at(s)?)) {
                            *a += v;
                        }
                    }
                    let scale = 1.0 / n as f32;
                    format.encode_f32(sum.map(|a| a * scale), &mut texel);
                    format.decode_f32(&texel)
                };
                texels.push(v);
            }
        }
        Ok(Pixels {
            width: w,
            height: h,
            texels,
            channels: if integer {
                Channels::Integer
            } else {
                Channels::Float {
                    srgb: format.is_srgb(),
                }
            },
            bits: channel_bits(format.vk_name()),
        })
    }

    /// A colour attachment's texels (a multisampled one resolved).
    pub fn from_target(target: &ColorTarget) -> Pixels {
        let t = target.resolve();
        let class = ColorClass::of(t.format);
        let bits = channel_bits(t.format.vk_name());
        let mut texels = Vec::with_capacity(t.width as usize * t.height as usize);
        for y in 0..t.height {
            for x in 0..t.width {
                texels.push(match class {
                    ColorClass::Uint => t.read_raw(x, y).map(|c| c as f32),
                    ColorClass::Sint => t.read_raw(x, y).map(|c| c as i32 as f32),
                    _ => t.read_f32(x, y),
                });
            }
        }
        Pixels {
            width: t.width,
            height: t.height,
            texels,
            channels: if class.is_integer() {
                Channels::Integer
            } else {
                Channels::Float {
                    srgb: t.format.is_srgb(),
                }
            },
            bits,
        }
    }

    /// Write as `format`, creating parent folders. Errors (`Error::Io`) name the path.
    pub fn save(&self, path: &Path, format: FileFormat) -> Result<()> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| Error::Io(format!("{}: {e}", dir.display())))?;
        }
        let io = |e: &dyn std::fmt::Display| Error::Io(format!("{}: {e}", path.display()));
        match format {
            FileFormat::Png if self.bits <= 8 => {
                let data = self.quantized(255).map(|v| v as u8).collect();
                image::RgbaImage::from_raw(self.width, self.height, data)
                    .ok_or_else(|| io(&"wrong picture size"))?
                    .save_with_format(path, image::ImageFormat::Png)
                    .map_err(|e| io(&e))
            }
            FileFormat::Png => {
                let data = self.quantized(65535).map(|v| v as u16).collect();
                image::ImageBuffer::<image::Rgba<u16>, Vec<u16>>::from_raw(
                    self.width,
                    self.height,
                    data,
                )
                .ok_or_else(|| io(&"wrong picture size"))?
                .save_with_format(path, image::ImageFormat::Png)
                .map_err(|e| io(&e))
            }
            FileFormat::Exr => {
                let data = self.texels.iter().flatten().copied().collect();
                image::Rgba32FImage::from_raw(self.width, self.height, data)
                    .ok_or_else(|| io(&"wrong picture size"))?
                    .save_with_format(path, image::ImageFormat::OpenExr)
                    .map_err(|e| io(&e))
            }
            FileFormat::F32 => std::fs::write(path, self.npy()).map_err(|e| io(&e)),
        }
    }

    /// Write as PNG (8 or 16 bits a channel, as [`Pixels::bits`] says).
    pub fn save_png(&self, path: &Path) -> Result<()> {
        self.save(path, FileFormat::Png)
    }

    /// The channels in `0..=max`: normalized and float values clamped to [0, 1] (sRGB ones
    /// encoded) and scaled, integers clamped.
    fn quantized(&self, max: u32) -> impl Iterator<Item = u32> + '_ {
        let channels = self.channels;
        self.texels.iter().flat_map(move |t| {
            (0..4).map(move |c| {
                let v = t[c];
                match channels {
                    Channels::Integer => v.clamp(0.0, max as f32) as u32,
                    Channels::Float { srgb } => {
                        let v = if srgb && c < 3 {
                            texture::linear_to_srgb(v.clamp(0.0, 1.0) as f64) as f32
                        } else {
                            v
                        };
                        (v.clamp(0.0, 1.0) * max as f32 + 0.5) as u32
                    }
                }
            })
        })
    }

    /// The `.npy` bytes: header, then the texels as little-endian f32.
    fn npy(&self) -> Vec<u8> {
        let dict = format!(
            "{{'descr': '<f4', 'fortran_order': False, 'shape': ({}, {}, 4), }}",
            self.height, self.width
        );
        // magic (6) + version (2) + length (2) + dict + padding + '\n', a multiple of 64
        let len = (10 + dict.len() + 1).div_ceil(64) * 64 - 10;
        let mut out = Vec::with_capacity(10 + len + self.texels.len() * 16);
        out.extend_from_slice(b"\x93NUMPY\x01\x00");
        out.extend_from_slice(&(len as u16).to_le_bytes());
        out.extend_from_slice(dict.as_bytes());
        out.resize(10 + len - 1, b' ');
        out.push(b'\n');
        for t in &self.texels {
            for c in t {
                out.extend_from_slice(&c.to_le_bytes());
            }
        }
        out
    }
}

impl ColorTarget {
    /// Write the attachment as PNG (resolved when multisampled): 8 bits a channel for
    /// 8-bit formats, 16 for the others, float values clamped to [0, 1].
    pub fn save_png(&self, path: &Path) -> Result<()> {
        Pixels::from_target(self).save_png(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channel_bits_of_names() {
        assert_eq!(channel_bits("R8G8B8A8_UNORM"), 8);
        assert_eq!(channel_bits("B8G8R8A8_SRGB"), 8);
        assert_eq!(channel_bits("A2B10G10R10_UNORM_PACK32"), 10);
        assert_eq!(channel_bits("R16G16B16A16_SFLOAT"), 16);
        assert_eq!(channel_bits("R32G32B32A32_SFLOAT"), 32);
        assert_eq!(channel_bits("B10G11R11_UFLOAT_PACK32"), 11);
    }

    #[test]
    fn npy_header_is_numpys_layout() {
        let p = Pixels {
            width: 3,
            height: 2,
            texels: vec![[0.5, -1.0, 2.0, 1.0]; 6],
            channels: Channels::Float { srgb: false },
            bits: 32,
        };
        let b = p.npy();
        assert_eq!(&b[..8], b"\x93NUMPY\x01\x00");
        let len = u16::from_le_bytes([b[8], b[9]]) as usize;
        assert_eq!((10 + len) % 64, 0);
        let header = std::str::from_utf8(&b[10..10 + len]).unwrap();
        assert!(
            header.starts_with("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3, 4), }")
        );
        assert!(header.ends_with('\n'));
        assert_eq!(b.len(), 10 + len + 6 * 16);
        assert_eq!(&b[10 + len..10 + len + 4], &0.5f32.to_le_bytes());
    }
}
