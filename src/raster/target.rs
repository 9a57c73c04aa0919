//! Render targets: colour and depth/stencil attachments stored as bytes in a format of the
//! crate's one format table ([`Format`]), and what the pipeline needs of a format beyond its
//! codec: how a colour attachment's values behave ([`ColorClass`]), its codec resolved once
//! per draw for the colour writes ([`ColorCodec`]), and how the depth test stores and orders
//! depth ([`DepthAspect`]).

use crate::format::{unorm_encode, Decoder, EncodeF32, Format};
use crate::Result;

/// How a colour attachment's values behave in the pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorClass {
    /// Unsigned normalized (and sRGB): shader outputs are f32 bits, clamped to [0, 1] before
    /// blending.
    Unorm,
    /// Signed normalized: shader outputs are f32 bits, clamped to [-1, 1] before blending.
    Snorm,
    /// Floating point (and scaled integers): shader outputs are f32 bits, never clamped.
    Float,
    /// Unsigned integer: raw bits, never blended.
    Uint,
    /// Signed integer: raw bits, never blended.
    Sint,
}

impl ColorClass {
    /// The class of a colour format.
    pub fn of(format: Format) -> ColorClass {
        match format.kind() {
            crate::format::NumKind::Uint => ColorClass::Uint,
            crate::format::NumKind::Sint => ColorClass::Sint,
            crate::format::NumKind::Float if format.is_unorm() => ColorClass::Unorm,
            crate::format::NumKind::Float if format.is_snorm() => ColorClass::Snorm,
            crate::format::NumKind::Float => ColorClass::Float,
        }
    }

    /// Integer classes keep raw bits and are never blended.
    pub fn is_integer(self) -> bool {
        matches!(self, ColorClass::Uint | ColorClass::Sint)
    }

    /// Clamp blend inputs as the class requires (normalized formats; others unchanged).
    pub fn clamp(self, v: [f32; 4]) -> [f32; 4] {
        match self {
            ColorClass::Unorm => v.map(|x| x.clamp(0.0, 1.0)),
            ColorClass::Snorm => v.map(|x| x.clamp(-1.0, 1.0)),
            _ => v,
        }
    }
}

/// A colour attachment's format as its writes use it, resolved once per draw: its class and
/// the format table's decoders and encoder for it (plain `fn`s, monomorphised per layout), so
/// that blending and write masks, which read a texel back and write it again, branch on the
/// format once per draw and not per texel.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ColorCodec {
    pub format: Format,
    pub class: ColorClass,
    decoder: Decoder,
    encoder: EncodeF32,
}

impl ColorCodec {
    /// The codec of a colour attachment's format.
    pub fn of(format: Format) -> ColorCodec {
        ColorCodec {
            format,
            class: ColorClass::of(format),
            decoder: format.main_decoder(),
            encoder: format.encoder(),
        }
    }

    /// A texel as f32 RGBA ([`Format::decode_f32`]).
    #[inline]
    pub fn decode_f32(&self, texel: &[u8]) -> [f32; 4] {
        (self.decoder.f32)(texel)
    }

    /// A texel as raw bits ([`Format::decode_raw`]).
    #[inline]
    pub fn decode_raw(&self, texel: &[u8]) -> [u32; 4] {
        (self.decoder.raw)(texel)
    }

    /// f32 RGBA into a texel ([`Format::encode_f32`]).
    #[inline]
    pub fn encode_f32(&self, v: [f32; 4], texel: &mut [u8]) {
        (self.encoder)(self.format, v, texel)
    }

    /// A fragment's colour (raw output bits) into a texel as it is, without blending or a
    /// write mask: integer formats saturate to their components' ranges
    /// ([`Format::saturate_raw`]), float and normalized formats encode the f32 bits
    /// (normalized ones clamp and round), as [`Format::encode_raw`] does.
    #[inline]
    pub fn encode_output(&self, src: [u32; 4], texel: &mut [u8]) {
        match self.class.is_integer() {
            true => (self.format).encode_raw(self.format.saturate_raw(src), texel),
            false => self.encode_f32(src.map(f32::from_bits), texel),
        }
    }
}

/// Whether `format` can be a colour attachment (any colour format of the table), else
/// `Error::Unsupported` naming it.
pub fn color_attachment(format: Format) -> Result<Format> {
    if format.has_depth() || format.has_stencil() {
        return Err(crate::Error::Unsupported(format!(
            "{} is a depth/stencil format, not a colour attachment format",
            format.vk_name()
        )));
    }
    Ok(format)
}

/// Whether `format` can be a depth/stencil attachment, else `Error::Unsupported` naming it.
pub fn depth_attachment(format: Format) -> Result<Format> {
    if !(format.has_depth() || format.has_stencil()) {
        return Err(crate::Error::Unsupported(format!(
            "{} is not a depth/stencil attachment format",
            format.vk_name()
        )));
    }
    Ok(format)
}

/// A colour attachment: `width * height` pixels of `samples` texels each, rows top to
/// bottom, tightly packed; a pixel's samples are consecutive texels (sample `s` of pixel
/// (x, y) is texel `(y * width + x) * samples + s`, the texture unit's multisampled layout).
#[derive(Clone, Debug, PartialEq)]
pub struct ColorTarget {
    pub format: Format,
    pub width: u32,
    pub height: u32,
    /// Samples per pixel (1, 2, 4, 8 or 16).
    pub samples: u32,
    pub data: Vec<u8>,
}

impl ColorTarget {
    /// A zero-filled single-sample target (sizes from outside go through
    /// [`ColorTarget::try_new`]).
    pub fn new(format: Format, width: u32, height: u32) -> Self {
        Self::multisampled(format, width, height, 1)
    }

    /// A zero-filled target of `samples` samples per pixel.
    pub fn multisampled(format: Format, width: u32, height: u32, samples: u32) -> Self {
        let len = width as usize * height as usize * samples as usize * format.texel_size();
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
    pub fn try_new(format: Format, width: u32, height: u32) -> Result<Self> {
        Self::try_multisampled(format, width, height, 1)
    }

    /// [`ColorTarget::multisampled`], or an error instead of an abort when its bytes cannot
    /// be allocated.
    pub fn try_multisampled(format: Format, width: u32, height: u32, samples: u32) -> Result<Self> {
        let len = (width as usize)
            .saturating_mul(height as usize)
            .saturating_mul(samples as usize)
            .saturating_mul(format.texel_size());
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
        self.format.texel_size() * self.samples as usize
    }

    /// Bytes per row.
    pub fn row_pitch(&self) -> usize {
        self.width as usize * self.pixel_bytes()
    }

    fn texel_range(&self, x: u32, y: u32) -> std::ops::Range<usize> {
        self.sample_range(x, y, 0)
    }

    fn sample_range(&self, x: u32, y: u32, s: u32) -> std::ops::Range<usize> {
        let bpp = self.format.texel_size();
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
    ///
    /// Row kernels with the format resolved once: 8-bit unorm RGBA and BGRA average their
    /// bytes by table (`UNORM8`, the decoder's values; a component's bytes sit at the same
    /// offset in every sample and in the result, so the component order does not matter) and
    /// encode with the encoder's `unorm8`, with the sample count a constant; the other
    /// formats go through their codec.
    pub fn resolve(&self) -> ColorTarget {
        let mut out = ColorTarget::new(self.format, self.width, self.height);
        let (n, bpp) = (self.samples as usize, self.format.texel_size());
        let integer = ColorClass::of(self.format).is_integer();
        let pixels = self.data.chunks_exact(self.pixel_bytes().max(1));
        if integer || n == 1 {
            for (dst, px) in out.data.chunks_exact_mut(bpp.max(1)).zip(pixels) {
                dst.copy_from_slice(&px[..bpp]);
            }
            return out;
        }
        let unorm8 = matches!(self.format, Format::R8G8B8A8_UNORM | Format::B8G8R8A8_UNORM);
        match (unorm8, n) {
            (true, 2) => resolve_unorm8::<2>(&self.data, &mut out.data),
            (true, 4) => resolve_unorm8::<4>(&self.data, &mut out.data),
            (true, 8) => resolve_unorm8::<8>(&self.data, &mut out.data),
            (true, 16) => resolve_unorm8::<16>(&self.data, &mut out.data),
            _ => {
                let codec = ColorCodec::of(self.format);
                let scale = 1.0 / n as f32;
                for (dst, px) in out.data.chunks_exact_mut(bpp.max(1)).zip(pixels) {
                    let mut sum = [0.0f32; 4];
                    for t in px.chunks_exact(bpp) {
                        for (s, v) in sum.iter_mut().zip(codec.decode_f32(t)) {
                            *s += v;
                        }
                    }
                    codec.encode_f32(sum.map(|s| s * scale), dst);
                }
            }
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
        let mut texel = vec![0; self.format.texel_size()];
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
/// formats, raw bits for integer formats ([`Format::encode_raw`]'s rules).
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

/// How the depth test stores and orders a depth/stencil format's depth: the depth aspect
/// alone, little endian (D24 in the low 24 bits of 4 bytes), as a Vulkan copy of the depth
/// aspect lays it out; normalized depth as its integer, float depth as its f32 bits.
pub trait DepthAspect: Copy {
    /// Bytes of the depth aspect of one texel (0 for stencil-only formats).
    fn depth_bytes(self) -> usize;
    /// Bits of a normalized depth format, `None` for float depth (and stencil only).
    fn unorm_bits(self) -> Option<u32>;
    /// A depth value (clamped to [0, 1], NaN as 0) as stored: the format's UNORM encoding
    /// for normalized formats, the f32 bits (-0.0 as +0.0) for float formats.
    fn quantize(self, z: f32) -> u32;
    /// [`DepthAspect::quantize`] without the clamp to [0, 1] for float formats (NaN still 0),
    /// as a float attachment stores fragment depth under `VK_EXT_depth_range_unrestricted`;
    /// normalized formats clamp in their encoding either way.
    fn quantize_unrestricted(self, z: f32) -> u32;
    /// The depth value of a stored representation (the format's decoding).
    fn dequantize(self, bits: u32) -> f32;
    /// Order two stored representations (both from `quantize`): unorm integers and
    /// non-negative f32 compare alike by value.
    fn cmp_stored(self, a: u32, b: u32) -> std::cmp::Ordering;
}

impl DepthAspect for Format {
    fn depth_bytes(self) -> usize {
        match self {
            Format::D16_UNORM => 2,
            _ if self.has_depth() => 4,
            _ => 0,
        }
    }

    fn unorm_bits(self) -> Option<u32> {
        self.unorm_depth_bits()
    }

    fn quantize(self, z: f32) -> u32 {
        self.quantize_unrestricted(z.clamp(0.0, 1.0))
    }

    fn quantize_unrestricted(self, z: f32) -> u32 {
        let z = if z.is_nan() { 0.0 } else { z };
        match self.unorm_bits() {
            Some(n) => unorm_encode(z, ((1u64 << n) - 1) as u32),
            None => (z + 0.0).to_bits(), // + 0.0 turns -0.0 into +0.0
        }
    }

    fn dequantize(self, bits: u32) -> f32 {
        match self.unorm_bits() {
            Some(_) => self.decode_f32(&bits.to_le_bytes())[0],
            None => f32::from_bits(bits),
        }
    }

    fn cmp_stored(self, a: u32, b: u32) -> std::cmp::Ordering {
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
    pub format: Format,
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
    pub fn new(format: Format, width: u32, height: u32) -> Self {
        Self::multisampled(format, width, height, 1)
    }

    /// A target of `samples` samples per pixel cleared to depth 0, stencil 0.
    pub fn multisampled(format: Format, width: u32, height: u32, samples: u32) -> Self {
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
    pub fn try_new(format: Format, width: u32, height: u32) -> Result<Self> {
        Self::try_multisampled(format, width, height, 1)
    }

    /// [`DepthStencilTarget::multisampled`], or an error instead of an abort when its bytes
    /// cannot be allocated.
    pub fn try_multisampled(format: Format, width: u32, height: u32, samples: u32) -> Result<Self> {
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
    pub(crate) fn stored_depth(buf: &[u8], format: Format, i: usize) -> u32 {
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
    pub(crate) fn store_depth(buf: &mut [u8], format: Format, i: usize, v: u32) {
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

/// [`ColorTarget::resolve`] of a 4-byte 8-bit unorm format with `N` samples: per pixel and
/// byte, the samples' `UNORM8` values summed in sample order from 0.0 in f32, times
/// `1 / N`, encoded by `unorm8`, as the format's decoder, the f32 sum and its encoder do.
/// Four bytes as the lanes of an f32 vector (exact).
#[inline(always)]
fn bytes_f32(b: [u8; 4]) -> wide::f32x4 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        use wide::bytemuck::cast;
        // zero-extended twice (bytes to words to dwords), converted
        // SAFETY: SSE2 is part of x86-64; no memory is read or written
        unsafe {
            let z = _mm_setzero_si128();
            let v = _mm_cvtsi32_si128(i32::from_le_bytes(b));
            cast(_mm_cvtepi32_ps(_mm_unpacklo_epi16(
                _mm_unpacklo_epi8(v, z),
                z,
            )))
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    wide::f32x4::from(b.map(f32::from))
}

fn resolve_unorm8<const N: usize>(data: &[u8], out: &mut [u8]) {
    use crate::format::{unorm8_redo, unorm8_x4, Worst4};
    use wide::f32x4;
    // The scalar rule per pixel: each channel's bytes decoded (`UNORM8`: `b / 255` rounded
    // to f32, which `divps` gives too), summed in sample order, scaled by 1/N, encoded. The
    // four channels are one vector's lanes, the same operations per lane.
    let scale = f32x4::splat(1.0 / N as f32);
    let k = f32x4::splat(255.0);
    let mean = |px: &[[u8; 4]]| {
        let mut sum = f32x4::ZERO;
        for t in px {
            sum += bytes_f32(*t) / k;
        }
        sum * scale
    };
    let bytes = |n: wide::i32x4| n.to_array().map(|x| x as u8);
    let pixels = data.as_chunks::<4>().0.chunks_exact(N);
    for (d, px) in out.as_chunks_mut::<4>().0.iter_mut().zip(pixels) {
        let v = mean(px);
        let mut worst = Worst4::ZERO;
        let n = unorm8_x4::<false>(v, &mut worst);
        *d = bytes(if unorm8_redo(worst) {
            unorm8_x4::<true>(v, &mut worst)
        } else {
            n
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `resolve` against the per-texel rule written out with the format's own decode and
    /// encode, on random bytes, for the kernels' formats and the generic ones.
    #[test]
    fn resolve_averages_as_the_texel_rule_does() {
        let mut r = fastrand::Rng::with_seed(7);
        let formats = [
            Format::R8G8B8A8_UNORM,
            Format::B8G8R8A8_UNORM,
            Format::R8G8B8A8_SRGB,
            Format::R16G16B16A16_SFLOAT,
            Format::R32G32B32A32_SFLOAT,
            Format::R8G8B8A8_UINT,
        ];
        for format in formats {
            for n in [1u32, 2, 4, 8, 16] {
                let (w, h) = (5, 3);
                let mut t = ColorTarget::multisampled(format, w, h, n);
                for px in t.data.chunks_exact_mut(format.texel_size()) {
                    let v = [0; 4].map(|_| r.f32() * 1.2 - 0.1);
                    format.encode_f32(v, px);
                }
                let got = t.resolve();
                let bpp = format.texel_size();
                for (i, (dst, px)) in got
                    .data
                    .chunks_exact(bpp)
                    .zip(t.data.chunks_exact(bpp * n as usize))
                    .enumerate()
                {
                    let mut want = vec![0u8; bpp];
                    if format.kind() != crate::format::NumKind::Float || n == 1 {
                        want.copy_from_slice(&px[..bpp]);
                    } else {
                        let mut sum = [0.0f32; 4];
                        for s in px.chunks_exact(bpp) {
                            let v = format.decode_f32(s);
                            for c in 0..4 {
                                sum[c] += v[c];
                            }
                        }
                        format.encode_f32(sum.map(|s| s * (1.0 / n as f32)), &mut want);
                    }
                    assert_eq!(dst, &want[..], "{format:?} x{n} pixel {i}");
                }
            }
        }
    }

    /// 8-bit resolves of every pair of bytes (half the samples one, half the other), against
    /// the per-texel rule written out with the format's own decode and encode; among them
    /// the exact ties (0 and 255: a mean of 0.5, 127.5 on the 255 scale), which round to
    /// even, 128.
    #[test]
    fn unorm8_resolve_of_every_byte_pair() {
        let format = Format::R8G8B8A8_UNORM;
        for n in [2u32, 4, 8, 16] {
            let mut t = ColorTarget::multisampled(format, 256, 256, n);
            for (i, px) in t.data.chunks_exact_mut(4 * n as usize).enumerate() {
                let (a, b) = ((i % 256) as u8, (i / 256) as u8);
                for (s, texel) in px.chunks_exact_mut(4).enumerate() {
                    let (v, w) = if s % 2 == 0 { (a, 0) } else { (b, 255) };
                    texel.copy_from_slice(&[v, w, b, 7]);
                }
            }
            let got = t.resolve();
            for (i, (dst, px)) in got
                .data
                .chunks_exact(4)
                .zip(t.data.chunks_exact(4 * n as usize))
                .enumerate()
            {
                let mut sum = [0.0f32; 4];
                for s in px.chunks_exact(4) {
                    for (c, v) in sum.iter_mut().zip(format.decode_f32(s)) {
                        *c += v;
                    }
                }
                let mut want = [0u8; 4];
                format.encode_f32(sum.map(|s| s * (1.0 / n as f32)), &mut want);
                assert_eq!(dst, &want[..], "x{n} pixel {i}");
                assert_eq!(dst[1], 128, "x{n} pixel {i}: the tie 127.5 to even");
            }
        }
    }

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
                        ColorTarget::new(Format::R8G8B8A8_UNORM, w, h),
                        ColorTarget::new(Format::R32G32B32A32_UINT, w, h),
                    ],
                    depth_stencil: Some(DepthStencilTarget::new(Format::D24_UNORM_S8_UINT, w, h)),
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
            color: vec![ColorTarget::new(Format::R8G8B8A8_UNORM, 4, 4)],
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
        let f = Format::R8G8B8A8_UNORM;
        let mut t = [0u8; 4];
        // 0.5 * 255 = 127.5 -> 128; values clamp; NaN -> 0.
        f.encode_f32([0.5, 2.0, -1.0, f32::NAN], &mut t);
        assert_eq!(t, [128, 255, 0, 0]);
        for v in 0..=255u8 {
            let d = f.decode_f32(&[v, 0, 0, 0]);
            f.encode_f32(d, &mut t);
            assert_eq!(t[0], v);
        }
        let b = Format::B8G8R8A8_UNORM;
        b.encode_f32([1.0, 0.0, 0.2, 1.0], &mut t);
        assert_eq!(t, [51, 0, 255, 255]);
    }

    #[test]
    fn half_and_int_formats() {
        let f = Format::R16G16B16A16_SFLOAT;
        let mut t = [0u8; 8];
        f.encode_f32([1.0, -2.0, 0.5, 65504.0], &mut t);
        // 1.0 = 0x3c00, -2.0 = 0xc000, 0.5 = 0x3800, 65504 = 0x7bff
        assert_eq!(t, [0x00, 0x3c, 0x00, 0xc0, 0x00, 0x38, 0xff, 0x7b]);
        assert_eq!(f.decode_f32(&t), [1.0, -2.0, 0.5, 65504.0]);
        let u = Format::R8G8B8A8_UINT;
        let mut t = [0u8; 4];
        u.encode_raw([1, 256 + 7, 255, 0xffff_ffff], &mut t);
        assert_eq!(t, [1, 7, 255, 255]);
        let s = Format::R8G8B8A8_SINT;
        s.encode_raw([(-3i32) as u32, 127, 0, 0], &mut t);
        assert_eq!(s.decode_raw(&t), [(-3i32) as u32, 127, 0, 0]);
        assert_eq!(
            Format::R32_SFLOAT.decode_f32(&2.5f32.to_le_bytes()),
            [2.5, 0.0, 0.0, 1.0]
        );
    }

    #[test]
    fn depth_quantization() {
        assert_eq!(Format::D16_UNORM.quantize(1.0), 65535);
        assert_eq!(Format::D16_UNORM.quantize(0.5), 32768); // 32767.5 rounds up
        assert_eq!(Format::D24_UNORM_S8_UINT.quantize(1.0), 0xff_ffff);
        assert_eq!(Format::D32_SFLOAT.quantize(0.25), 0.25f32.to_bits());
        assert_eq!(Format::D32_SFLOAT.quantize(7.0), 1.0f32.to_bits());
        let mut t = DepthStencilTarget::new(Format::D24_UNORM_S8_UINT, 2, 1);
        t.clear(1.0, 9);
        assert_eq!(t.depth, vec![0xff, 0xff, 0xff, 0, 0xff, 0xff, 0xff, 0]);
        assert_eq!(t.read_stencil(1, 0), 9);
        // X8_D24: 24-bit depth in 4 bytes, top byte 0, no stencil;
        // 0.3f32 * (2^24 - 1) = 5033164.70 rounds to 5033165
        let x8 = Format::X8_D24_UNORM_PACK32;
        assert!(x8.has_depth() && !x8.has_stencil());
        assert_eq!((x8.depth_bytes(), x8.unorm_bits()), (4, Some(24)));
        assert_eq!(x8.quantize(0.3), 5_033_165);
        let mut t = DepthStencilTarget::new(x8, 1, 1);
        t.clear(1.0, 9);
        assert_eq!(t.depth, vec![0xff, 0xff, 0xff, 0]);
    }
}
