//! Images (linear byte storage of every level/layer/sample) and view descriptions.
//!
//! Storage order: level-major; inside a level, layer, then z, y, x, then sample:
//! `offset(L) + ((((layer·D_L + z)·H_L + y)·W_L + x)·samples + s)·texel_size`.
//! Texel read/write are public and cheap so render targets and storage images can reuse them.
//!
//! An image also carries its decoded plane ([`Plane`]), the kernel's texel source for
//! float-kind images: every texel decoded once to f32 RGBA by the format's decoder, in
//! storage order, one 16-byte `f32x4` each. Decoding per read would cost a division (UNORM)
//! or a table lookup (sRGB) per channel, 32 texels per trilinear quad; a plane texel is one
//! aligned load. Built on first use, patched or dropped by every `&mut` method (a sample
//! always sees the bytes); a cache, so `PartialEq` ignores it and clones share it.

use super::format::{Aspect, Format, NumKind};
use crate::{Error, Result};
use std::sync::{Arc, OnceLock};
use wide::f32x4;

/// The largest decoded plane built (texels; 16 bytes each: 64 MiB). Larger images are
/// sampled from their bytes.
pub const PLANE_MAX_TEXELS: usize = 1 << 22;

/// Every texel of an image decoded to f32 RGBA by its format's decoder (colour, or depth for
/// depth formats), indexed as the bytes are (`byte offset / texel size`).
#[derive(Debug)]
pub(crate) struct Plane {
    pub texels: Box<[f32x4]>,
    /// The same texels component by component, built on first use ([`Plane::components`]).
    components: OnceLock<Box<[u32]>>,
}

impl Plane {
    pub(crate) fn new(texels: Box<[f32x4]>) -> Plane {
        Plane {
            texels,
            components: OnceLock::new(),
        }
    }

    /// Texel `i` takes the value `v`, in the plane and in its component copy if that is
    /// built (a gather reads the copy); false if there is no texel `i`.
    fn set(&mut self, i: usize, v: f32x4) -> bool {
        let n = self.texels.len();
        let Some(t) = self.texels.get_mut(i) else {
            return false;
        };
        *t = v;
        if let Some(c) = self.components.get_mut() {
            for (k, f) in v.to_array().into_iter().enumerate() {
                c[k * n + i] = f.to_bits();
            }
        }
        true
    }

    /// Every texel's bits component by component: component `c` of texel `t` is word
    /// `c·n + t` (`n = texels.len()`), so one component of two texels side by side on a row
    /// is one 64-bit word (a gather reads a footprint's row of one component in one load).
    /// Built on the first call, once per plane (as many bytes as the plane).
    pub(crate) fn components(&self) -> &[u32] {
        self.components.get_or_init(|| {
            let n = self.texels.len();
            let mut v = vec![0u32; 4 * n];
            for (t, x) in self.texels.iter().enumerate() {
                for (c, f) in x.to_array().into_iter().enumerate() {
                    v[c * n + t] = f.to_bits();
                }
            }
            v.into_boxed_slice()
        })
    }
}

/// The lazily built [`Plane`] of an image (`None` inside: the image has none).
#[derive(Clone, Default)]
struct PlaneCache(OnceLock<Option<Arc<Plane>>>);

impl PartialEq for PlaneCache {
    fn eq(&self, _: &PlaneCache) -> bool {
        true // a cache of the bytes, which are compared
    }
}

impl std::fmt::Debug for PlaneCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = match self.0.get() {
            None => "not built",
            Some(None) => "none",
            Some(Some(_)) => "built",
        };
        write!(f, "PlaneCache({state})")
    }
}

/// Dimensionality of an image (cube images are 2D images with 6·n layers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImageDim {
    /// 1D (height = depth = 1).
    D1,
    /// 2D (depth = 1); also the storage of cube maps.
    D2,
    /// 3D (one layer).
    D3,
}

/// How a view interprets an image.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ViewType {
    /// 1D, one layer. Coordinates (s).
    D1,
    /// 1D array. Coordinates (s, layer).
    D1Array,
    /// 2D, one layer. Coordinates (s, t).
    D2,
    /// 2D array. Coordinates (s, t, layer).
    D2Array,
    /// 3D. Coordinates (s, t, r).
    D3,
    /// Cube (6 layers). Coordinates: direction (x, y, z).
    Cube,
    /// Cube array (6·n layers). Coordinates (x, y, z, cube index).
    CubeArray,
}

impl ViewType {
    /// Number of spatial (non-layer) coordinate components: 1, 2 or 3 (cube: 3, a direction).
    pub fn spatial_dims(self) -> usize {
        match self {
            ViewType::D1 | ViewType::D1Array => 1,
            ViewType::D2 | ViewType::D2Array => 2,
            _ => 3,
        }
    }
    /// Index of the array-layer coordinate, if arrayed.
    pub fn layer_coord(self) -> Option<usize> {
        match self {
            ViewType::D1Array => Some(1),
            ViewType::D2Array => Some(2),
            ViewType::CubeArray => Some(3),
            _ => None,
        }
    }
    /// True for cube and cube-array views.
    pub fn is_cube(self) -> bool {
        matches!(self, ViewType::Cube | ViewType::CubeArray)
    }
}

/// A texel-storage image: format, extent, layers, mip levels, samples, bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    format: Format,
    dim: ImageDim,
    extent: [u32; 3],
    layers: u32,
    levels: u32,
    samples: u32,
    texel_size: usize,
    level_offsets: Vec<usize>,
    data: Vec<u8>,
    plane: PlaneCache,
}

/// The largest image quadstep allocates (4 GiB).
pub const MAX_IMAGE_BYTES: u64 = 1 << 32;

/// `max(1, x >> l)`.
#[inline]
pub fn mip_size(x: u32, l: u32) -> u32 {
    (x >> l.min(31)).max(1)
}

impl Image {
    /// Creates a zero-filled image. Errors on zero sizes, too many levels, multisampled mip
    /// chains or mismatched dimensionality (1D with height/depth > 1, 3D with layers > 1).
    pub fn new(
        format: Format,
        dim: ImageDim,
        extent: [u32; 3],
        layers: u32,
        levels: u32,
        samples: u32,
    ) -> Result<Image> {
        let bad = |m: String| Err(Error::Texture(m));
        if extent.contains(&0) || layers == 0 || levels == 0 || samples == 0 {
            return bad(format!("image extent {extent:?}, layers {layers}, levels {levels}, samples {samples}: all must be ≥ 1"));
        }
        if (dim == ImageDim::D1 && (extent[1] > 1 || extent[2] > 1))
            || (dim == ImageDim::D2 && extent[2] > 1)
            || (dim == ImageDim::D3 && layers > 1)
        {
            return bad(format!(
                "{dim:?} image cannot have extent {extent:?} with {layers} layers"
            ));
        }
        let max_dim = extent[0].max(extent[1]).max(extent[2]);
        let max_levels = 32 - max_dim.leading_zeros();
        if levels > max_levels {
            return bad(format!(
                "{levels} mip levels requested, extent {extent:?} allows {max_levels}"
            ));
        }
        if samples > 1 && (levels > 1 || dim != ImageDim::D2 || !samples.is_power_of_two()) {
            return bad(format!(
                "{samples} samples need a single-level 2D image and a power of two"
            ));
        }
        let ts = format.texel_size() as u64;
        let mut level_offsets = Vec::with_capacity(levels as usize);
        let mut total = 0u64;
        for l in 0..levels {
            level_offsets.push(total as usize);
            let e = extent.map(|x| mip_size(x, l) as u64);
            let bytes = [e[1], e[2], layers as u64, samples as u64, ts]
                .iter()
                .try_fold(e[0], |a, &b| a.checked_mul(b));
            total = match bytes.and_then(|b| total.checked_add(b)) {
                Some(t) if t <= MAX_IMAGE_BYTES => t,
                _ => return bad(format!("image {extent:?}×{layers} layers×{samples} samples is larger than {MAX_IMAGE_BYTES} bytes")),
            };
        }
        let total = total as usize;
        Ok(Image {
            format,
            dim,
            extent,
            layers,
            levels,
            samples,
            texel_size: ts as usize,
            level_offsets,
            data: vec![0; total],
            plane: PlaneCache::default(),
        })
    }

    /// A 2D image (`layers` ≥ 1, `levels` ≥ 1), single-sampled.
    pub fn new_2d(format: Format, w: u32, h: u32, layers: u32, levels: u32) -> Result<Image> {
        Image::new(format, ImageDim::D2, [w, h, 1], layers, levels, 1)
    }

    /// A cube-compatible image: `size`×`size`, `6·cubes` layers.
    pub fn new_cube(format: Format, size: u32, cubes: u32, levels: u32) -> Result<Image> {
        Image::new(format, ImageDim::D2, [size, size, 1], 6 * cubes, levels, 1)
    }

    /// The texel format.
    pub fn format(&self) -> Format {
        self.format
    }
    /// The dimensionality.
    pub fn dim(&self) -> ImageDim {
        self.dim
    }
    /// Level-0 extent (width, height, depth).
    pub fn extent(&self) -> [u32; 3] {
        self.extent
    }
    /// Extent of a mip level.
    pub fn level_extent(&self, level: u32) -> [u32; 3] {
        self.extent.map(|x| mip_size(x, level))
    }
    /// Array layers.
    pub fn layers(&self) -> u32 {
        self.layers
    }
    /// Mip levels.
    pub fn levels(&self) -> u32 {
        self.levels
    }
    /// Samples per texel.
    pub fn samples(&self) -> u32 {
        self.samples
    }
    /// All bytes (levels in order).
    pub fn bytes(&self) -> &[u8] {
        &self.data
    }

    /// Whether an image of this shape gets a decoded [`Plane`]: a float-kind format (its
    /// colour or depth aspect), one sample, at most [`PLANE_MAX_TEXELS`] texels.
    pub(crate) fn plane_eligible(&self) -> bool {
        self.format.kind() == NumKind::Float
            && self.samples == 1
            && self.data.len() / self.texel_size <= PLANE_MAX_TEXELS
    }

    /// The decoded plane, built on first use; `None` when the image is not
    /// [`plane_eligible`](Image::plane_eligible).
    #[inline]
    pub(crate) fn plane(&self) -> Option<&Plane> {
        self.plane.0.get_or_init(|| self.build_plane()).as_deref()
    }

    fn build_plane(&self) -> Option<Arc<Plane>> {
        if !self.plane_eligible() {
            return None;
        }
        let dec = self.format.decoder(self.value_aspect()).ok()?.f32;
        let texels = self
            .data
            .chunks_exact(self.texel_size)
            .map(|t| f32x4::from(dec(t)))
            .collect();
        Some(Arc::new(Plane::new(texels)))
    }

    /// The aspect the plane decodes and a whole view reads: depth for depth formats, else
    /// colour.
    fn value_aspect(&self) -> Aspect {
        if self.format.has_depth() {
            Aspect::Depth
        } else {
            Aspect::Color
        }
    }

    /// After a write of the texel at byte offset `o`: the plane, when built and not shared
    /// with a clone, takes the texel's new value; otherwise it is dropped.
    fn plane_patch(&mut self, o: usize) {
        let ts = self.texel_size;
        let dec = self.format.decoder(self.value_aspect());
        let patched = match self.plane.0.get_mut() {
            None | Some(None) => true, // nothing to patch
            Some(Some(p)) => match (Arc::get_mut(p), self.data.get(o..o + ts)) {
                (Some(p), Some(bytes)) => match dec {
                    Ok(d) => p.set(o / ts, f32x4::from((d.f32)(bytes))),
                    Err(_) => false,
                },
                _ => false,
            },
        };
        if !patched {
            self.plane = PlaneCache::default();
        }
    }

    /// Byte offset of a texel; `None` when any index is out of range.
    #[inline]
    pub fn texel_offset(
        &self,
        level: u32,
        layer: u32,
        xyz: [u32; 3],
        sample: u32,
    ) -> Option<usize> {
        if level >= self.levels || layer >= self.layers || sample >= self.samples {
            return None;
        }
        let e = self.level_extent(level);
        if xyz[0] >= e[0] || xyz[1] >= e[1] || xyz[2] >= e[2] {
            return None;
        }
        Some(self.offset_unchecked(level, layer, xyz, sample, e))
    }

    /// Offset without range checks (indices must be in range; `e` = level extent).
    #[inline(always)]
    pub(crate) fn offset_unchecked(
        &self,
        level: u32,
        layer: u32,
        xyz: [u32; 3],
        sample: u32,
        e: [u32; 3],
    ) -> usize {
        let idx = (((layer as usize * e[2] as usize + xyz[2] as usize) * e[1] as usize
            + xyz[1] as usize)
            * e[0] as usize
            + xyz[0] as usize)
            * self.samples as usize
            + sample as usize;
        self.level_offsets[level as usize] + idx * self.texel_size
    }

    /// Bytes of one texel, `None` when out of range.
    #[inline]
    pub fn texel(&self, level: u32, layer: u32, xyz: [u32; 3], sample: u32) -> Option<&[u8]> {
        let o = self.texel_offset(level, layer, xyz, sample)?;
        Some(&self.data[o..o + self.format.texel_size()])
    }

    /// Reads a texel as raw result bits (f32 bits for float kinds, integers for UINT/SINT).
    pub fn read_texel(&self, level: u32, layer: u32, xyz: [u32; 3]) -> Option<[u32; 4]> {
        self.texel(level, layer, xyz, 0)
            .map(|b| self.format.decode_raw(b))
    }

    /// Reads a texel as f32 RGBA.
    pub fn read_texel_f32(&self, level: u32, layer: u32, xyz: [u32; 3]) -> Option<[f32; 4]> {
        self.texel(level, layer, xyz, 0)
            .map(|b| self.format.decode_f32(b))
    }

    /// Writes sample `sample` of a texel by `encode` (the format's encoder into its bytes);
    /// the plane then takes its new value ([`Image::plane_patch`]; multisampled: has none).
    fn write(
        &mut self,
        level: u32,
        layer: u32,
        xyz: [u32; 3],
        sample: u32,
        encode: impl FnOnce(Format, &mut [u8]),
    ) -> Result<()> {
        let o = self.texel_offset(level, layer, xyz, sample).ok_or_else(|| {
            Error::Texture(format!(
                "texel write out of range: level {level} layer {layer} at {xyz:?} sample {sample} (image {:?}×{} layers, {} levels)",
                self.extent, self.layers, self.levels
            ))
        })?;
        encode(self.format, &mut self.data[o..o + self.texel_size]);
        self.plane_patch(o);
        Ok(())
    }

    /// Writes raw bits (integers for UINT/SINT, f32 bits for float kinds) to a texel.
    pub fn write_texel(
        &mut self,
        level: u32,
        layer: u32,
        xyz: [u32; 3],
        v: [u32; 4],
    ) -> Result<()> {
        self.write(level, layer, xyz, 0, |f, t| f.encode_raw(v, t))
    }

    /// Writes f32 RGBA to a texel (converted by the format's rules).
    pub fn write_texel_f32(
        &mut self,
        level: u32,
        layer: u32,
        xyz: [u32; 3],
        v: [f32; 4],
    ) -> Result<()> {
        self.write(level, layer, xyz, 0, |f, t| f.encode_f32(v, t))
    }

    /// Writes one sample of a texel (raw bits).
    pub fn write_sample(
        &mut self,
        layer: u32,
        xyz: [u32; 3],
        sample: u32,
        v: [u32; 4],
    ) -> Result<()> {
        self.write(0, layer, xyz, sample, |f, t| f.encode_raw(v, t))
    }

    /// Number of texels (incl. layers and samples) of a level.
    pub fn level_texels(&self, level: u32) -> usize {
        let e = self.level_extent(level).map(|x| x as usize);
        e[0] * e[1] * e[2] * self.layers as usize * self.samples as usize
    }

    /// Uploads f32 RGBA for all texels of a level (storage order: layer, z, y, x, sample).
    pub fn upload_f32(&mut self, level: u32, texels: &[[f32; 4]]) -> Result<()> {
        let n = self.check_level(level, texels.len())?;
        self.plane = PlaneCache::default();
        let (f, ts, o) = (
            self.format,
            self.texel_size,
            self.level_offsets[level as usize],
        );
        for (t, d) in texels
            .iter()
            .zip(self.data[o..o + n * ts].chunks_exact_mut(ts))
        {
            f.encode_f32(*t, d);
        }
        Ok(())
    }

    /// Uploads the raw bytes of one level (storage order).
    pub fn upload_bytes(&mut self, level: u32, bytes: &[u8]) -> Result<()> {
        let ts = self.format.texel_size();
        if !bytes.len().is_multiple_of(ts) {
            return Err(Error::Texture(format!(
                "upload of {} bytes is not a multiple of the {ts}-byte texel",
                bytes.len()
            )));
        }
        let n = self.check_level(level, bytes.len() / ts)?;
        self.plane = PlaneCache::default();
        let o = self.level_offsets[level as usize];
        self.data[o..o + n * ts].copy_from_slice(bytes);
        Ok(())
    }

    /// The raw bytes of one level.
    pub fn level_bytes(&self, level: u32) -> Result<&[u8]> {
        let n = self.check_level(level, self.level_texels(level.min(self.levels - 1)))?;
        let o = self.level_offsets[level as usize];
        Ok(&self.data[o..o + n * self.format.texel_size()])
    }

    fn check_level(&self, level: u32, n: usize) -> Result<usize> {
        if level >= self.levels {
            return Err(Error::Texture(format!(
                "mip level {level} out of range ({} levels)",
                self.levels
            )));
        }
        let want = self.level_texels(level);
        if n != want {
            return Err(Error::Texture(format!(
                "level {level} has {want} texels, got {n}"
            )));
        }
        Ok(n)
    }

    /// Fills levels 1.. from level 0 with a box filter: each texel of level L is the average of
    /// the 2×2 (3D: 2×2×2) texels of level L−1 at `2i, 2i+1` (clamped to the last texel for odd
    /// sizes, so a trailing odd row/column is not weighted in), averaged in f32 after decoding
    /// (sRGB decoded to linear first) and re-encoded. Integer formats take the first texel.
    pub fn generate_mips(&mut self) -> Result<()> {
        self.plane = PlaneCache::default();
        let int = self.format.kind() != super::format::NumKind::Float;
        for l in 1..self.levels {
            let src = self.level_extent(l - 1);
            let dst = self.level_extent(l);
            for layer in 0..self.layers {
                for z in 0..dst[2] {
                    for y in 0..dst[1] {
                        for x in 0..dst[0] {
                            let mut acc = [0.0f32; 4];
                            let mut first = None;
                            let mut n = 0.0;
                            // (z, y, x) of the 2×2×2 block in order, x fastest; a step past
                            // an axis of size 1 is not a texel
                            for d in 0..8 {
                                let k = [d & 1, d >> 1 & 1, d >> 2];
                                if (0..3).any(|a| k[a] == 1 && src[a] == 1) {
                                    continue;
                                }
                                let p: [u32; 3] = std::array::from_fn(|a| {
                                    (2 * [x, y, z][a] + k[a]).min(src[a] - 1)
                                });
                                let t = self.texel(l - 1, layer, p, 0).expect("in range");
                                if first.is_none() {
                                    first = Some(self.format.decode_raw(t));
                                }
                                let v = self.format.decode_f32(t);
                                for c in 0..4 {
                                    acc[c] += v[c];
                                }
                                n += 1.0;
                            }
                            if int {
                                self.write_texel(l, layer, [x, y, z], first.expect("≥1 tap"))?;
                            } else {
                                self.write_texel_f32(l, layer, [x, y, z], acc.map(|a| a / n))?;
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// A view of an image: type, level and layer ranges, aspect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ImageView {
    /// How coordinates are interpreted.
    pub view_type: ViewType,
    /// First mip level of the view (`level_base`).
    pub base_level: u32,
    /// Number of levels.
    pub level_count: u32,
    /// First array layer.
    pub base_layer: u32,
    /// Number of layers (cube: 6, cube array: 6·n).
    pub layer_count: u32,
    /// Which aspect is read (depth/stencil formats).
    pub aspect: Aspect,
}

impl ImageView {
    /// A view of every level and layer of `image`.
    pub fn whole(image: &Image, view_type: ViewType) -> ImageView {
        ImageView {
            view_type,
            base_level: 0,
            level_count: image.levels(),
            base_layer: 0,
            layer_count: image.layers(),
            aspect: image.value_aspect(),
        }
    }

    /// Checks the view against its image (ranges, cube shape, dimensionality, aspect).
    pub fn validate(&self, image: &Image) -> Result<()> {
        let bad = |m: String| Err(Error::Texture(format!("image view: {m}")));
        let ranges = [
            ("levels", self.base_level, self.level_count, image.levels()),
            ("layers", self.base_layer, self.layer_count, image.layers()),
        ];
        for (what, base, count, all) in ranges {
            if count == 0 || base as u64 + count as u64 > all as u64 {
                return bad(format!("{what} {base}+{count} exceed the image's {all}"));
            }
        }
        let ok_dim = match self.view_type {
            ViewType::D1 | ViewType::D1Array => image.dim() == ImageDim::D1,
            ViewType::D2 | ViewType::D2Array => image.dim() == ImageDim::D2,
            ViewType::D3 => image.dim() == ImageDim::D3,
            ViewType::Cube | ViewType::CubeArray => {
                image.dim() == ImageDim::D2 && image.extent()[0] == image.extent()[1]
            }
        };
        if !ok_dim {
            return bad(format!(
                "{:?} view of a {:?} image {:?}",
                self.view_type,
                image.dim(),
                image.extent()
            ));
        }
        let single = matches!(self.view_type, ViewType::D1 | ViewType::D2 | ViewType::D3);
        if (single && self.layer_count != 1)
            || (self.view_type == ViewType::Cube && self.layer_count != 6)
            || (self.view_type == ViewType::CubeArray && !self.layer_count.is_multiple_of(6))
        {
            return bad(format!(
                "{:?} view cannot have {} layers",
                self.view_type, self.layer_count
            ));
        }
        image.format().decoder(self.aspect).map(|_| ())
    }

    /// Extent of view level `l` (relative to `base_level`).
    pub fn level_extent(&self, image: &Image, l: u32) -> [u32; 3] {
        image.level_extent(self.base_level + l)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Image {
        /// All bytes, mutable (drops the decoded plane).
        pub(crate) fn bytes_mut(&mut self) -> &mut [u8] {
            self.plane = PlaneCache::default();
            &mut self.data
        }

        /// Downloads a level as f32 RGBA (storage order).
        fn download_f32(&self, level: u32) -> Result<Vec<[f32; 4]>> {
            let bytes = self.level_bytes(level)?;
            Ok(bytes
                .chunks_exact(self.texel_size)
                .map(|t| self.format.decode_f32(t))
                .collect())
        }
    }

    #[test]
    fn layout_and_rw() {
        let mut img = Image::new_2d(Format::R8G8B8A8_UINT, 4, 2, 3, 2).unwrap();
        // level 0: 4*2*3 texels * 4 bytes = 96; level 1: 2*1*3*4 = 24
        assert_eq!(img.bytes().len(), 120);
        assert_eq!(
            img.texel_offset(1, 2, [1, 0, 0], 0),
            Some(96 + (2 * 2 + 1) * 4)
        );
        img.write_texel(1, 2, [1, 0, 0], [1, 2, 3, 4]).unwrap();
        assert_eq!(img.read_texel(1, 2, [1, 0, 0]), Some([1, 2, 3, 4]));
        assert_eq!(img.read_texel(1, 2, [2, 0, 0]), None);
        assert!(img.write_texel(2, 0, [0, 0, 0], [0; 4]).is_err());
    }

    #[test]
    fn bad_images() {
        assert!(Image::new_2d(Format::R8_UNORM, 0, 1, 1, 1).is_err());
        assert!(Image::new_2d(Format::R8_UNORM, 4, 4, 1, 4).is_err()); // 4x4 allows 3 levels
        assert!(Image::new(Format::R8_UNORM, ImageDim::D3, [2, 2, 2], 2, 1, 1).is_err());
    }

    #[test]
    fn box_mips() {
        let mut img = Image::new_2d(Format::R32_SFLOAT, 4, 2, 1, 3).unwrap();
        let data: Vec<[f32; 4]> = (0..8).map(|i| [i as f32, 0.0, 0.0, 1.0]).collect();
        img.upload_f32(0, &data).unwrap();
        img.generate_mips().unwrap();
        // level 1 (2x1): (0+1+4+5)/4 = 2.5, (2+3+6+7)/4 = 4.5; level 2: (2.5+4.5)/2 = 3.5
        assert_eq!(img.read_texel_f32(1, 0, [0, 0, 0]).unwrap()[0], 2.5);
        assert_eq!(img.read_texel_f32(1, 0, [1, 0, 0]).unwrap()[0], 4.5);
        assert_eq!(img.read_texel_f32(2, 0, [0, 0, 0]).unwrap()[0], 3.5);
        assert_eq!(img.download_f32(2).unwrap(), vec![[3.5, 0.0, 0.0, 1.0]]);
    }

    #[test]
    fn view_validation() {
        let img = Image::new_cube(Format::R8_UNORM, 4, 2, 1).unwrap();
        assert!(ImageView::whole(&img, ViewType::CubeArray)
            .validate(&img)
            .is_ok());
        assert!(ImageView::whole(&img, ViewType::Cube)
            .validate(&img)
            .is_err());
        let v = ImageView {
            layer_count: 6,
            ..ImageView::whole(&img, ViewType::Cube)
        };
        assert!(v.validate(&img).is_ok());
        let v = ImageView {
            aspect: Aspect::Depth,
            ..v
        };
        assert!(v.validate(&img).is_err());
    }
}
