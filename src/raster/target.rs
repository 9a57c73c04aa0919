//! Render targets: colour and depth/stencil attachments stored as bytes in a format, and the
//! small texel codecs the pipeline needs to read and write them.
//!
//! This file stands in for the texture module's formats until they exist: everything else in
//! `raster` touches texel bytes only through [`ColorCodec`] and the [`DepthFormat`] methods, so
//! swapping the formats later means implementing `ColorCodec` for the texture module's type.

use crate::{Error, Result};
use half::f16;

/// How a colour attachment's values behave in the pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorClass {
    /// Unsigned normalized: shader outputs are f32 bits, clamped to [0, 1] before blending.
    Unorm,
    /// Floating point: shader outputs are f32 bits, never clamped.
    Float,
    /// Unsigned integer: raw bits, never blended.
    Uint,
    /// Signed integer: raw bits, never blended.
    Sint,
}

impl ColorClass {
    /// Integer classes keep raw bits and are never blended.
    pub fn is_integer(self) -> bool {
        matches!(self, ColorClass::Uint | ColorClass::Sint)
    }
}

/// A colour attachment's texel codec. Float and normalized formats go through `[f32; 4]`;
/// integer formats through raw `[u32; 4]` bits. Missing components decode as (0, 0, 0, 1).
pub trait ColorCodec {
    /// Bytes of one texel.
    fn bytes_per_texel(&self) -> usize;
    /// How values behave (clamping, blending).
    fn class(&self) -> ColorClass;
    /// Decode one texel (float/normalized formats).
    fn decode_f32(&self, texel: &[u8]) -> [f32; 4];
    /// Encode one texel (float/normalized formats); normalized values are clamped and rounded.
    fn encode_f32(&self, value: [f32; 4], texel: &mut [u8]);
    /// Decode one texel as raw bits: integers for integer formats, f32 bits otherwise.
    fn decode_raw(&self, texel: &[u8]) -> [u32; 4];
    /// Encode raw bits: integers are truncated to the component width; float/normalized
    /// formats take f32 bits.
    fn encode_raw(&self, value: [u32; 4], texel: &mut [u8]);
}

/// The colour formats the rasterizer can render to (Vulkan names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorFormat {
    R8G8B8A8Unorm,
    B8G8R8A8Unorm,
    R8G8B8A8Uint,
    R8G8B8A8Sint,
    R16G16B16A16Sfloat,
    R32Sfloat,
    R32Uint,
    R32G32B32A32Sfloat,
    R32G32B32A32Uint,
    R32G32B32A32Sint,
}

impl ColorFormat {
    /// The format with this `VkFormat` number, or `Error::Unsupported`.
    pub fn from_vk(vk_format: u32) -> Result<Self> {
        Ok(match vk_format {
            37 => ColorFormat::R8G8B8A8Unorm,
            44 => ColorFormat::B8G8R8A8Unorm,
            41 => ColorFormat::R8G8B8A8Uint,
            42 => ColorFormat::R8G8B8A8Sint,
            97 => ColorFormat::R16G16B16A16Sfloat,
            100 => ColorFormat::R32Sfloat,
            98 => ColorFormat::R32Uint,
            109 => ColorFormat::R32G32B32A32Sfloat,
            107 => ColorFormat::R32G32B32A32Uint,
            108 => ColorFormat::R32G32B32A32Sint,
            _ => {
                return Err(Error::Unsupported(format!(
                    "raster/target.rs: colour attachment format VkFormat {vk_format} is not \
                     implemented"
                )))
            }
        })
    }
}

#[inline]
pub(crate) fn unorm8(v: f32) -> u8 {
    // Round to nearest: `as` truncates and saturates, so below 0 (and NaN) give 0, above 1
    // gives 255, exactly as clamping to [0, 1] first would (this is the colour write's hot path).
    (v * 255.0 + 0.5) as u8
}

fn rd32(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])
}

fn wr32(b: &mut [u8], i: usize, v: u32) {
    b[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
}

const ONE: u32 = 0x3f80_0000;

impl ColorCodec for ColorFormat {
    fn bytes_per_texel(&self) -> usize {
        use ColorFormat::*;
        match self {
            R8G8B8A8Unorm | B8G8R8A8Unorm | R8G8B8A8Uint | R8G8B8A8Sint | R32Sfloat | R32Uint => 4,
            R16G16B16A16Sfloat => 8,
            R32G32B32A32Sfloat | R32G32B32A32Uint | R32G32B32A32Sint => 16,
        }
    }

    fn class(&self) -> ColorClass {
        use ColorFormat::*;
        match self {
            R8G8B8A8Unorm | B8G8R8A8Unorm => ColorClass::Unorm,
            R16G16B16A16Sfloat | R32Sfloat | R32G32B32A32Sfloat => ColorClass::Float,
            R8G8B8A8Uint | R32Uint | R32G32B32A32Uint => ColorClass::Uint,
            R8G8B8A8Sint | R32G32B32A32Sint => ColorClass::Sint,
        }
    }

    fn decode_f32(&self, t: &[u8]) -> [f32; 4] {
        use ColorFormat::*;
        match self {
            R8G8B8A8Unorm => [0, 1, 2, 3].map(|i| t[i] as f32 / 255.0),
            B8G8R8A8Unorm => [2, 1, 0, 3].map(|i| t[i] as f32 / 255.0),
            R16G16B16A16Sfloat => {
                [0, 1, 2, 3].map(|i| f16::from_le_bytes([t[2 * i], t[2 * i + 1]]).to_f32())
            }
            R32Sfloat => [f32::from_bits(rd32(t, 0)), 0.0, 0.0, 1.0],
            R32G32B32A32Sfloat => [0, 1, 2, 3].map(|i| f32::from_bits(rd32(t, i))),
            _ => self.decode_raw(t).map(f32::from_bits),
        }
    }

    fn encode_f32(&self, v: [f32; 4], t: &mut [u8]) {
        use ColorFormat::*;
        match self {
            R8G8B8A8Unorm => t[..4].copy_from_slice(&v.map(unorm8)),
            B8G8R8A8Unorm => t[..4].copy_from_slice(&[v[2], v[1], v[0], v[3]].map(unorm8)),
            R16G16B16A16Sfloat => (0..4).for_each(|i| {
                t[2 * i..2 * i + 2].copy_from_slice(&f16::from_f32(v[i]).to_le_bytes())
            }),
            R32Sfloat => wr32(t, 0, v[0].to_bits()),
            R32G32B32A32Sfloat => (0..4).for_each(|i| wr32(t, i, v[i].to_bits())),
            _ => self.encode_raw(v.map(f32::to_bits), t),
        }
    }

    fn decode_raw(&self, t: &[u8]) -> [u32; 4] {
        use ColorFormat::*;
        match self {
            R8G8B8A8Uint => [0, 1, 2, 3].map(|i| t[i] as u32),
            R8G8B8A8Sint => [0, 1, 2, 3].map(|i| t[i] as i8 as i32 as u32),
            R32Uint => [rd32(t, 0), 0, 0, 1],
            R32G32B32A32Uint | R32G32B32A32Sint => [0, 1, 2, 3].map(|i| rd32(t, i)),
            R32Sfloat => [rd32(t, 0), 0, 0, ONE],
            _ => self.decode_f32(t).map(f32::to_bits),
        }
    }

    fn encode_raw(&self, v: [u32; 4], t: &mut [u8]) {
        use ColorFormat::*;
        match self {
            R8G8B8A8Uint | R8G8B8A8Sint => (0..4).for_each(|i| t[i] = v[i] as u8),
            R32Uint => wr32(t, 0, v[0]),
            R32G32B32A32Uint | R32G32B32A32Sint => (0..4).for_each(|i| wr32(t, i, v[i])),
            _ => self.encode_f32(v.map(f32::from_bits), t),
        }
    }
}

/// A colour attachment: `width * height` pixels of `samples` texels each, rows top to
/// bottom, tightly packed; a pixel's samples are consecutive texels (sample `s` of pixel
/// (x, y) is texel `(y * width + x) * samples + s`, the texture unit's multisampled layout).
#[derive(Clone, Debug, PartialEq)]
pub struct ColorTarget {
    pub format: ColorFormat,
    pub width: u32,
    pub height: u32,
    /// Samples per pixel (1, 2, 4, 8 or 16).
    pub samples: u32,
    pub data: Vec<u8>,
}

impl ColorTarget {
    /// A zero-filled single-sample target (sizes from outside go through
    /// [`ColorTarget::try_new`]).
    pub fn new(format: ColorFormat, width: u32, height: u32) -> Self {
        Self::multisampled(format, width, height, 1)
    }

    /// A zero-filled target of `samples` samples per pixel.
    pub fn multisampled(format: ColorFormat, width: u32, height: u32, samples: u32) -> Self {
        let len = width as usize * height as usize * samples as usize * format.bytes_per_texel();
        ColorTarget {
            format,
            width,
            height,
            samples,
            data: vec![0; len],
        }
    }

    /// A zero-filled single-sample target, or an error instead of an abort when its bytes
    /// cannot be allocated ([`Error::Memory`](crate::Error::Memory)).
    pub fn try_new(format: ColorFormat, width: u32, height: u32) -> Result<Self> {
        Self::try_multisampled(format, width, height, 1)
    }

    /// [`ColorTarget::multisampled`], or an error instead of an abort when its bytes cannot
    /// be allocated.
    pub fn try_multisampled(
        format: ColorFormat,
        width: u32,
        height: u32,
        samples: u32,
    ) -> Result<Self> {
        let len = (width as usize)
            .saturating_mul(height as usize)
            .saturating_mul(samples as usize)
            .saturating_mul(format.bytes_per_texel());
        let what = format!("a {width}x{height} {format:?} colour attachment");
        Ok(ColorTarget {
            format,
            width,
            height,
            samples,
            data: crate::limits::try_zeroed(len, what)?,
        })
    }

    /// Bytes per pixel (all its samples).
    pub fn pixel_bytes(&self) -> usize {
        self.format.bytes_per_texel() * self.samples as usize
    }

    /// Bytes per row.
    pub fn row_pitch(&self) -> usize {
        self.width as usize * self.pixel_bytes()
    }

    fn texel_range(&self, x: u32, y: u32) -> std::ops::Range<usize> {
        self.sample_range(x, y, 0)
    }

    fn sample_range(&self, x: u32, y: u32, s: u32) -> std::ops::Range<usize> {
        let bpp = self.format.bytes_per_texel();
        let o =
            (y as usize * self.width as usize + x as usize) * self.pixel_bytes() + s as usize * bpp;
        o..o + bpp
    }

    /// Sample `s` of pixel (x, y) as raw bits. Panics if out of range (readback helper).
    pub fn read_sample_raw(&self, x: u32, y: u32, s: u32) -> [u32; 4] {
        assert!(s < self.samples, "sample {s} of {}", self.samples);
        self.format
            .decode_raw(&self.data[self.sample_range(x, y, s)])
    }

    /// The single-sample image a resolve makes of this one (`vkCmdResolveImage`): per pixel
    /// the average of its samples for float and normalized formats (summed in sample order
    /// in f32, times `1 / samples`, then encoded with the format's rounding: what Mesa's
    /// resolve shader computes), sample 0 for integer formats (which Vulkan resolves by
    /// taking one sample). A single-sample target resolves to a copy.
    pub fn resolve(&self) -> ColorTarget {
        let mut out = ColorTarget::new(self.format, self.width, self.height);
        let (n, bpp) = (self.samples as usize, self.format.bytes_per_texel());
        let integer = self.format.class().is_integer();
        let pixels = self.data.chunks_exact(self.pixel_bytes().max(1));
        for (dst, px) in out.data.chunks_exact_mut(bpp.max(1)).zip(pixels) {
            if integer || n == 1 {
                dst.copy_from_slice(&px[..bpp]);
                continue;
            }
            let mut sum = [0.0f32; 4];
            for t in px.chunks_exact(bpp) {
                let v = self.format.decode_f32(t);
                for (s, v) in sum.iter_mut().zip(v) {
                    *s += v;
                }
            }
            let scale = 1.0 / n as f32;
            self.format.encode_f32(sum.map(|s| s * scale), dst);
        }
        out
    }

    /// Fill every texel with a float value (float/normalized formats).
    pub fn clear_f32(&mut self, v: [f32; 4]) {
        let texel = self.clear_texel(ClearColor::Float(v));
        fill_texels(&mut self.data, &texel);
    }

    /// Fill every texel with raw bits (integer formats).
    pub fn clear_raw(&mut self, v: [u32; 4]) {
        let texel = self.clear_texel(ClearColor::Raw(v));
        fill_texels(&mut self.data, &texel);
    }

    /// The bytes of one texel holding a clear value.
    pub(crate) fn clear_texel(&self, value: ClearColor) -> Vec<u8> {
        let mut texel = vec![0; self.format.bytes_per_texel()];
        match value {
            ClearColor::Float(v) => self.format.encode_f32(v, &mut texel),
            ClearColor::Raw(v) => self.format.encode_raw(v, &mut texel),
        }
        texel
    }

    /// The texel at (x, y) as floats. Panics if out of range (test/readback helper).
    pub fn read_f32(&self, x: u32, y: u32) -> [f32; 4] {
        self.format.decode_f32(&self.data[self.texel_range(x, y)])
    }

    /// The texel at (x, y) as raw bits. Panics if out of range (test/readback helper).
    pub fn read_raw(&self, x: u32, y: u32) -> [u32; 4] {
        self.format.decode_raw(&self.data[self.texel_range(x, y)])
    }
}

/// A colour clear value (Vulkan's `VkClearColorValue`): floats for float and normalized
/// formats, raw bits for integer formats ([`ColorCodec::encode_raw`]'s rules).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ClearColor {
    Float([f32; 4]),
    Raw([u32; 4]),
}

/// A clear value ready to be repeated over texel rows: texel sizes that divide 64 (all but
/// 3-byte formats) are stored as one 64-byte block, so a fill is fixed-size copies LLVM turns
/// into vector stores (the doubling `copy_within` of `fill_texels` is a `rep movsb` memmove,
/// which callgrind counts per byte: +4 M per 4 MiB clear).
#[derive(Clone, Debug)]
pub(crate) struct TexelFill {
    texel: Vec<u8>,
    block: Option<[u8; 64]>,
}

impl TexelFill {
    pub fn new(texel: &[u8]) -> TexelFill {
        let block = (!texel.is_empty() && 64 % texel.len() == 0).then(|| {
            let mut block = [0u8; 64];
            fill_texels(&mut block, texel);
            block
        });
        TexelFill {
            texel: texel.to_vec(),
            block,
        }
    }

    /// Repeat the texel over `data` (a whole number of texels).
    #[inline]
    pub fn fill(&self, data: &mut [u8]) {
        let Some(block) = &self.block else {
            return fill_texels(data, &self.texel);
        };
        let mut it = data.chunks_exact_mut(64);
        it.by_ref().for_each(|c| c.copy_from_slice(block));
        let rest = it.into_remainder();
        if !rest.is_empty() {
            let n = rest.len();
            rest.copy_from_slice(&block[..n]);
        }
    }
}

/// Repeat `fill`'s texel over `data` in bands of `band` bytes (a whole number of texels) on
/// the pool's threads: a clear observed before any draw (the eager path of the render pass's
/// pending clears) done on the calling thread was the largest serial piece of a 1024x1024
/// frame (a 4 MiB copy).
pub(crate) fn fill_texels_parallel(
    pool: &rayon::ThreadPool,
    data: &mut [u8],
    fill: &TexelFill,
    band: usize,
) {
    use rayon::prelude::*;
    let band = band.max(fill.texel.len()).max(1);
    pool.install(|| data.par_chunks_mut(band).for_each(|chunk| fill.fill(chunk)));
}

/// Repeat `texel` over `data` (a whole number of texels). The filled prefix is doubled, so a
/// clear is a few dozen large copies (a `copy_from_slice` per texel of a run-time size was a
/// `memcpy` call per pixel: 14.7 M instructions per 1024x1024 clear under callgrind).
fn fill_texels(data: &mut [u8], texel: &[u8]) {
    let n = texel.len().min(data.len());
    data[..n].copy_from_slice(&texel[..n]);
    let mut done = n;
    while done < data.len() {
        let len = done.min(data.len() - done);
        data.copy_within(..len, done);
        done += len;
    }
}

/// Depth/stencil formats (Vulkan names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DepthFormat {
    D16Unorm,
    D32Sfloat,
    /// 24-bit normalized depth in the low bits of 4 bytes, no stencil.
    X8D24UnormPack32,
    D24UnormS8Uint,
    D32SfloatS8Uint,
    S8Uint,
}

impl DepthFormat {
    /// The format with this `VkFormat` number, or `Error::Unsupported`.
    pub fn from_vk(vk_format: u32) -> Result<Self> {
        Ok(match vk_format {
            124 => DepthFormat::D16Unorm,
            126 => DepthFormat::D32Sfloat,
            125 => DepthFormat::X8D24UnormPack32,
            129 => DepthFormat::D24UnormS8Uint,
            130 => DepthFormat::D32SfloatS8Uint,
            127 => DepthFormat::S8Uint,
            _ => {
                return Err(Error::Unsupported(format!(
                    "raster/target.rs: depth/stencil format VkFormat {vk_format} is not implemented"
                )))
            }
        })
    }

    pub fn has_depth(self) -> bool {
        self != DepthFormat::S8Uint
    }

    pub fn has_stencil(self) -> bool {
        matches!(
            self,
            DepthFormat::D24UnormS8Uint | DepthFormat::D32SfloatS8Uint | DepthFormat::S8Uint
        )
    }

    /// Bytes of the depth aspect of one texel (D24 is stored in the low 24 bits of 4 bytes).
    pub fn depth_bytes(self) -> usize {
        match self {
            DepthFormat::D16Unorm => 2,
            DepthFormat::S8Uint => 0,
            _ => 4,
        }
    }

    /// Bits of a normalized depth format, `None` for float depth.
    pub fn unorm_bits(self) -> Option<u32> {
        match self {
            DepthFormat::D16Unorm => Some(16),
            DepthFormat::X8D24UnormPack32 | DepthFormat::D24UnormS8Uint => Some(24),
            _ => None,
        }
    }

    /// Convert a depth value (clamped to [0, 1]) to the stored representation: the integer for
    /// normalized formats, the f32 bits for float formats.
    pub fn quantize(self, z: f32) -> u32 {
        let z = if z.is_nan() { 0.0 } else { z.clamp(0.0, 1.0) };
        match self.unorm_bits() {
            Some(n) => {
                let max = ((1u64 << n) - 1) as f64;
                (z as f64 * max + 0.5).floor() as u32
            }
            None => (z + 0.0).to_bits(), // + 0.0 turns -0.0 into +0.0
        }
    }

    /// The depth value of a stored representation.
    pub fn dequantize(self, bits: u32) -> f32 {
        match self.unorm_bits() {
            Some(n) => (bits as f64 / ((1u64 << n) - 1) as f64) as f32,
            None => f32::from_bits(bits),
        }
    }

    /// Order two stored representations (both from `quantize`): unorm integers and
    /// non-negative f32 compare alike by value.
    pub fn cmp_stored(self, a: u32, b: u32) -> std::cmp::Ordering {
        match self.unorm_bits() {
            Some(_) => a.cmp(&b),
            None => f32::from_bits(a).total_cmp(&f32::from_bits(b)),
        }
    }
}

/// A depth/stencil attachment. The depth aspect is stored in `depth` (`depth_bytes()` per texel,
/// little endian, as a Vulkan copy of the depth aspect lays it out); stencil in `stencil`, one
/// byte per texel (empty for formats without stencil). A pixel's `samples` texels are
/// consecutive, as in [`ColorTarget`].
#[derive(Clone, Debug, PartialEq)]
pub struct DepthStencilTarget {
    pub format: DepthFormat,
    pub width: u32,
    pub height: u32,
    /// Samples per pixel (1, 2, 4, 8 or 16).
    pub samples: u32,
    pub depth: Vec<u8>,
    pub stencil: Vec<u8>,
}

impl DepthStencilTarget {
    /// A single-sample target cleared to depth 0, stencil 0 (sizes from outside go through
    /// [`DepthStencilTarget::try_new`]).
    pub fn new(format: DepthFormat, width: u32, height: u32) -> Self {
        Self::multisampled(format, width, height, 1)
    }

    /// A target of `samples` samples per pixel cleared to depth 0, stencil 0.
    pub fn multisampled(format: DepthFormat, width: u32, height: u32, samples: u32) -> Self {
        let n = width as usize * height as usize * samples as usize;
        let s = if format.has_stencil() { n } else { 0 };
        DepthStencilTarget {
            format,
            width,
            height,
            samples,
            depth: vec![0; n * format.depth_bytes()],
            stencil: vec![0; s],
        }
    }

    /// [`DepthStencilTarget::new`], or an error instead of an abort when its bytes cannot
    /// be allocated ([`Error::Memory`](crate::Error::Memory)).
    pub fn try_new(format: DepthFormat, width: u32, height: u32) -> Result<Self> {
        Self::try_multisampled(format, width, height, 1)
    }

    /// [`DepthStencilTarget::multisampled`], or an error instead of an abort when its bytes
    /// cannot be allocated.
    pub fn try_multisampled(
        format: DepthFormat,
        width: u32,
        height: u32,
        samples: u32,
    ) -> Result<Self> {
        let n = (width as usize)
            .saturating_mul(height as usize)
            .saturating_mul(samples as usize);
        let s = if format.has_stencil() { n } else { 0 };
        let what = format!("a {width}x{height} {format:?} depth/stencil attachment");
        Ok(DepthStencilTarget {
            format,
            width,
            height,
            samples,
            depth: crate::limits::try_zeroed(n.saturating_mul(format.depth_bytes()), &what)?,
            stencil: crate::limits::try_zeroed(s, &what)?,
        })
    }

    /// The stored bytes of one depth texel holding `depth` (quantized to the format).
    pub(crate) fn depth_texel(&self, depth: f32) -> Vec<u8> {
        let bytes = self.format.quantize(depth).to_le_bytes();
        bytes[..self.format.depth_bytes()].to_vec()
    }

    /// Fill every texel with a depth value and a stencil value.
    pub fn clear(&mut self, depth: f32, stencil: u8) {
        let q = self.format.quantize(depth);
        let db = self.format.depth_bytes();
        if db == 4 {
            let bytes = q.to_le_bytes();
            self.depth
                .chunks_exact_mut(4)
                .for_each(|c| c.copy_from_slice(&bytes));
        } else if db > 0 {
            let bytes = q.to_le_bytes();
            self.depth
                .chunks_exact_mut(db)
                .for_each(|c| c.copy_from_slice(&bytes[..db]));
        }
        self.stencil.iter_mut().for_each(|s| *s = stencil);
    }

    /// Stored depth representation at texel index `i`.
    pub(crate) fn stored_depth(buf: &[u8], format: DepthFormat, i: usize) -> u32 {
        let db = format.depth_bytes();
        if db == 4 {
            // Fixed-size copy: the variable-length one below is a memcpy call per texel.
            let t: [u8; 4] = buf[4 * i..4 * i + 4].try_into().expect("4 bytes");
            return u32::from_le_bytes(t);
        }
        let mut b = [0u8; 4];
        b[..db].copy_from_slice(&buf[i * db..i * db + db]);
        u32::from_le_bytes(b)
    }

    /// Write a stored depth representation at texel index `i`.
    pub(crate) fn store_depth(buf: &mut [u8], format: DepthFormat, i: usize, v: u32) {
        let db = format.depth_bytes();
        if db == 4 {
            buf[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
            return;
        }
        buf[i * db..i * db + db].copy_from_slice(&v.to_le_bytes()[..db]);
    }

    /// Depth at (x, y) (sample 0) as a float. Panics if out of range (readback helper).
    pub fn read_depth(&self, x: u32, y: u32) -> f32 {
        self.read_sample_depth(x, y, 0)
    }

    /// Depth of sample `s` at (x, y) as a float. Panics if out of range (readback helper).
    pub fn read_sample_depth(&self, x: u32, y: u32, s: u32) -> f32 {
        let i = self.texel_index(x, y, s);
        self.format
            .dequantize(Self::stored_depth(&self.depth, self.format, i))
    }

    /// Stencil at (x, y) (sample 0). Panics if out of range or without stencil (readback
    /// helper).
    pub fn read_stencil(&self, x: u32, y: u32) -> u8 {
        self.stencil[self.texel_index(x, y, 0)]
    }

    /// Index of sample `s` of pixel (x, y) among the texels. Panics if `s` is out of range.
    fn texel_index(&self, x: u32, y: u32, s: u32) -> usize {
        assert!(s < self.samples, "sample {s} of {}", self.samples);
        (y as usize * self.width as usize + x as usize) * self.samples as usize + s as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_texels_repeats_the_texel_everywhere() {
        for bpp in [1usize, 2, 4, 8, 16] {
            let texel: Vec<u8> = (0..bpp as u8)
                .map(|b| b.wrapping_mul(17).wrapping_add(3))
                .collect();
            for count in [0usize, 1, 2, 3, 5, 64, 1000, 1023] {
                let mut data = vec![0xAAu8; count * bpp];
                fill_texels(&mut data, &texel);
                for (i, b) in data.iter().enumerate() {
                    assert_eq!(*b, texel[i % bpp], "bpp {bpp}, {count} texels, byte {i}");
                }
            }
        }
    }

    #[test]
    fn render_pass_clears_every_texel_at_any_thread_count() {
        use crate::raster::{Rasterizer, RenderTargets};
        // odd sizes, so the tile-row bands do not divide the attachments evenly
        for (w, h) in [(67u32, 45u32), (1, 130), (200, 1)] {
            for threads in [1, 2, 3] {
                let raster = Rasterizer::new(threads).unwrap();
                let mut targets = RenderTargets {
                    color: vec![
                        ColorTarget::new(ColorFormat::R8G8B8A8Unorm, w, h),
                        ColorTarget::new(ColorFormat::R32G32B32A32Uint, w, h),
                    ],
                    depth_stencil: Some(DepthStencilTarget::new(DepthFormat::D24UnormS8Uint, w, h)),
                };
                let mut pass = raster.begin(&mut targets);
                pass.clear_color(0, ClearColor::Float([1.0, 0.5, 0.0, 0.25]))
                    .unwrap();
                pass.clear_color(1, ClearColor::Raw([7, 0xffff_ffff, 0, 1 << 31]))
                    .unwrap();
                pass.clear_depth_stencil(0.5, 0x5a).unwrap();
                let e = pass.clear_color(2, ClearColor::Raw([0; 4])).unwrap_err();
                assert!(e.to_string().contains("no colour attachment 2"), "{e}");
                // the pass ends without a draw: the recorded clears are written now
                drop(pass);
                // by hand: 0.5·255 = 127.5 rounds to 128, 0.25·255 = 63.75 to 64
                assert!(targets.color[0]
                    .data
                    .chunks(4)
                    .all(|t| t == [255, 128, 0, 64]));
                let raw: Vec<u8> = [7u32, 0xffff_ffff, 0, 1 << 31]
                    .iter()
                    .flat_map(|v| v.to_le_bytes())
                    .collect();
                assert!(targets.color[1].data.chunks(16).all(|t| t == raw));
                // 0.5·(2²⁴ − 1) = 8388607.5 rounds to 8388608 = 0x800000
                let ds = targets.depth_stencil.as_ref().unwrap();
                assert!(
                    ds.depth.chunks(4).all(|t| t == [0, 0, 0x80, 0]),
                    "{w}x{h} {threads}t"
                );
                assert!(ds.stencil.iter().all(|&s| s == 0x5a));
                assert_eq!(ds.stencil.len(), (w * h) as usize);
            }
        }
        let raster = Rasterizer::new(1).unwrap();
        let mut targets = RenderTargets {
            color: vec![ColorTarget::new(ColorFormat::R8G8B8A8Unorm, 4, 4)],
            depth_stencil: None,
        };
        let e = raster
            .begin(&mut targets)
            .clear_depth_stencil(1.0, 0)
            .unwrap_err();
        assert!(e.to_string().contains("no depth/stencil attachment"), "{e}");
    }

    #[test]
    fn unorm8_round_trip_and_rounding() {
        let f = ColorFormat::R8G8B8A8Unorm;
        let mut t = [0u8; 4];
        // 0.5 * 255 = 127.5 -> 128; values clamp; NaN -> 0.
        f.encode_f32([0.5, 2.0, -1.0, f32::NAN], &mut t);
        assert_eq!(t, [128, 255, 0, 0]);
        for v in 0..=255u8 {
            let d = f.decode_f32(&[v, 0, 0, 0]);
            f.encode_f32(d, &mut t);
            assert_eq!(t[0], v);
        }
        let b = ColorFormat::B8G8R8A8Unorm;
        b.encode_f32([1.0, 0.0, 0.2, 1.0], &mut t);
        assert_eq!(t, [51, 0, 255, 255]);
    }

    #[test]
    fn half_and_int_formats() {
        let f = ColorFormat::R16G16B16A16Sfloat;
        let mut t = [0u8; 8];
        f.encode_f32([1.0, -2.0, 0.5, 65504.0], &mut t);
        // 1.0 = 0x3c00, -2.0 = 0xc000, 0.5 = 0x3800, 65504 = 0x7bff
        assert_eq!(t, [0x00, 0x3c, 0x00, 0xc0, 0x00, 0x38, 0xff, 0x7b]);
        assert_eq!(f.decode_f32(&t), [1.0, -2.0, 0.5, 65504.0]);
        let u = ColorFormat::R8G8B8A8Uint;
        let mut t = [0u8; 4];
        u.encode_raw([1, 256 + 7, 255, 0xffff_ffff], &mut t);
        assert_eq!(t, [1, 7, 255, 255]);
        let s = ColorFormat::R8G8B8A8Sint;
        s.encode_raw([(-3i32) as u32, 127, 0, 0], &mut t);
        assert_eq!(s.decode_raw(&t), [(-3i32) as u32, 127, 0, 0]);
        assert_eq!(
            ColorFormat::R32Sfloat.decode_f32(&2.5f32.to_le_bytes()),
            [2.5, 0.0, 0.0, 1.0]
        );
    }

    #[test]
    fn depth_quantization() {
        assert_eq!(DepthFormat::D16Unorm.quantize(1.0), 65535);
        assert_eq!(DepthFormat::D16Unorm.quantize(0.5), 32768); // 32767.5 rounds up
        assert_eq!(DepthFormat::D24UnormS8Uint.quantize(1.0), 0xff_ffff);
        assert_eq!(DepthFormat::D32Sfloat.quantize(0.25), 0.25f32.to_bits());
        assert_eq!(DepthFormat::D32Sfloat.quantize(7.0), 1.0f32.to_bits());
        let mut t = DepthStencilTarget::new(DepthFormat::D24UnormS8Uint, 2, 1);
        t.clear(1.0, 9);
        assert_eq!(t.depth, vec![0xff, 0xff, 0xff, 0, 0xff, 0xff, 0xff, 0]);
        assert_eq!(t.read_stencil(1, 0), 9);
        assert!(ColorFormat::from_vk(12345).is_err());
        // X8_D24 (VkFormat 125): 24-bit depth in 4 bytes, top byte 0, no stencil;
        // 0.3 * (2^24 - 1) = 5033164.5 rounds up to 5033165
        let x8 = DepthFormat::from_vk(125).unwrap();
        assert_eq!(x8, DepthFormat::X8D24UnormPack32);
        assert!(x8.has_depth() && !x8.has_stencil());
        assert_eq!((x8.depth_bytes(), x8.unorm_bits()), (4, Some(24)));
        assert_eq!(x8.quantize(0.3), 5_033_165);
        let mut t = DepthStencilTarget::new(x8, 1, 1);
        t.clear(1.0, 9);
        assert_eq!(t.depth, vec![0xff, 0xff, 0xff, 0]);
    }
}
