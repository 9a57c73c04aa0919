//! Descriptor sets: what a shader's `(set, binding)` resources are bound to.
//!
//! Buffers are the interpreter's [`Buffer`] (atomic words, safe to share across rayon
//! threads). Images sit behind a read/write lock because storage-image writes from fragment
//! shaders can come from any tile thread; sampling takes the (uncontended) read lock.
//!
//! D3D registers sit on the same sets: register M of class `t`, `s`, `b` or `u` in space N is
//! set N, binding M. A descriptor bound plainly at (N, M) serves every class there (a combined
//! image sampler is both `tM` and `sM`, as spirv-to-dxil compiles a combined sampler), so a
//! SPIR-V shader and its DXIL translation read the same sets. Where a D3D shader uses two
//! classes of one register number (`t0` and `u0`), [`DescriptorSets::bind_register`] binds a
//! descriptor for one class, which that class reads before the plain binding.
//!
//! Texel buffers ([`TexelBufferView`], Vulkan's `VkBufferView`) are a window of a [`Buffer`]
//! read and written in place, texel by texel, through the texture unit's format codecs: no
//! copy into an image, so storage texel buffer writes land in the very buffer a storage
//! buffer binding of the same bytes sees, with the buffer's per-access atomicity.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::exec::{Bindings, Buffer, ImageUnit};
use crate::ir::{RegisterClass, Resource, ResourceKind, Shader};
use crate::texture::{out_of_range_texel, Aspect, Decoder, Format, Image, ImageView, Sampler};
use crate::{Error, Result};

/// An image shared between descriptors, render passes and the caller.
///
/// Readers normally take the lock, but a binding that only samples the image keeps a
/// snapshot (`snapshot`: the image's `Arc` and its write generation at bind time) and reads
/// it without the lock while the generation is unchanged. Every `write` bumps the
/// generation and writes through `Arc::make_mut`, so a snapshot is never changed under a
/// reader: after a write, snapshot holders see a new generation and go back to the lock
/// (the first write while a snapshot is held copies the image once). Why: a read lock per
/// fragment batch and image instruction would have every thread doing atomic lock and
/// unlock operations on one cache line.
#[derive(Debug)]
pub struct ImageResource {
    image: RwLock<Arc<Image>>,
    generation: AtomicU64,
}

/// Shared access to an [`ImageResource`]'s image.
pub struct ImageRead<'a>(RwLockReadGuard<'a, Arc<Image>>);

impl std::ops::Deref for ImageRead<'_> {
    type Target = Image;
    fn deref(&self) -> &Image {
        &self.0
    }
}

/// Exclusive access to an [`ImageResource`]'s image (copy-on-write while a snapshot is
/// held).
pub struct ImageWrite<'a>(RwLockWriteGuard<'a, Arc<Image>>);

impl std::ops::Deref for ImageWrite<'_> {
    type Target = Image;
    fn deref(&self) -> &Image {
        &self.0
    }
}

impl std::ops::DerefMut for ImageWrite<'_> {
    fn deref_mut(&mut self) -> &mut Image {
        Arc::make_mut(&mut self.0)
    }
}

impl ImageResource {
    /// Wrap an image.
    pub fn new(image: Image) -> Arc<ImageResource> {
        Arc::new(ImageResource {
            image: RwLock::new(Arc::new(image)),
            generation: AtomicU64::new(0),
        })
    }
    /// Shared access (a poisoned lock still yields the image: texel data stays valid).
    pub fn read(&self) -> ImageRead<'_> {
        ImageRead(self.image.read().unwrap_or_else(|e| e.into_inner()))
    }
    /// Exclusive access.
    pub fn write(&self) -> ImageWrite<'_> {
        let guard = self.image.write().unwrap_or_else(|e| e.into_inner());
        // under the write lock, so `snapshot` (under the read lock) sees a matching pair
        self.generation.fetch_add(1, Ordering::AcqRel);
        ImageWrite(guard)
    }
    /// The image now and its write generation, as one consistent pair.
    pub(crate) fn snapshot(&self) -> (u64, Arc<Image>) {
        let guard = self.image.read().unwrap_or_else(|e| e.into_inner());
        (self.generation.load(Ordering::Acquire), Arc::clone(&guard))
    }
    /// The write generation (see [`ImageResource::snapshot`]).
    pub(crate) fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }
}

/// One descriptor.
#[derive(Clone, Debug)]
pub enum Descriptor {
    /// Uniform or storage buffer (also texel buffers' backing store).
    Buffer(Arc<Buffer>),
    /// Sampled or storage image.
    Image {
        image: Arc<ImageResource>,
        view: ImageView,
    },
    /// Image with its sampler.
    CombinedImageSampler {
        image: Arc<ImageResource>,
        view: ImageView,
        sampler: Sampler,
    },
    /// Separate sampler.
    Sampler(Sampler),
    /// Uniform or storage texel buffer: a formatted view of a buffer.
    TexelBuffer(TexelBufferView),
}

/// A buffer view: `texels` texels of `format` starting at byte `offset` of `buffer`
/// (Vulkan's `VkBufferView`, its range given in texels).
#[derive(Clone, Debug)]
pub struct TexelBufferView {
    buffer: Arc<Buffer>,
    format: Format,
    decoder: Decoder,
    offset: u64,
    texels: u32,
}

impl TexelBufferView {
    /// A view of `texels` texels of `format` at byte `offset` of `buffer`. Errors when the
    /// format has no colour decoder (depth/stencil formats) or the range passes the end of
    /// the buffer.
    pub fn new(buffer: Arc<Buffer>, format: Format, offset: u64, texels: u32) -> Result<Self> {
        if format.has_depth() || format.has_stencil() {
            return Err(Error::Pipeline(format!(
                "texel buffer format {} is a depth/stencil format",
                format.vk_name()
            )));
        }
        let decoder = format.decoder(Aspect::Color)?;
        let end = offset.checked_add(texels as u64 * format.texel_size() as u64);
        if end.is_none_or(|e| e > buffer.len() as u64) {
            let end = end.map_or("beyond 2^64".to_string(), |e| e.to_string());
            return Err(Error::Pipeline(format!(
                "texel buffer view of {texels} {} texels at byte {offset} ends at byte {end}, \
                 past the end of its {}-byte buffer",
                format.vk_name(),
                buffer.len()
            )));
        }
        Ok(TexelBufferView {
            buffer,
            format,
            decoder,
            offset,
            texels,
        })
    }

    /// The view of the whole buffer (from `offset`): as many whole texels as fit.
    pub fn whole(buffer: Arc<Buffer>, format: Format, offset: u64) -> Result<Self> {
        let avail = (buffer.len() as u64).saturating_sub(offset);
        let n = (avail / format.texel_size() as u64).min(u32::MAX as u64) as u32;
        Self::new(buffer, format, offset, n)
    }

    /// The element count (`OpImageQuerySize`).
    pub fn len(&self) -> u32 {
        self.texels
    }

    /// Whether the view has no texels.
    pub fn is_empty(&self) -> bool {
        self.texels == 0
    }

    /// The view's format.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The backing buffer.
    pub fn buffer(&self) -> &Arc<Buffer> {
        &self.buffer
    }

    /// Byte offset of texel `i`, or `None` outside the view.
    fn at(&self, i: i32) -> Option<u64> {
        let i = u32::try_from(i).ok().filter(|&i| i < self.texels)?;
        Some(self.offset + i as u64 * self.format.texel_size() as u64)
    }

    /// Texel `i` as raw result bits (f32 bits for float/normalized formats, sRGB decoded to
    /// linear; integers for UINT/SINT), missing components filled as (0, 0, 0, 1). Outside
    /// the view: zero, with alpha 1 for formats without alpha (robust buffer access 2).
    pub fn fetch(&self, i: i32) -> [u32; 4] {
        let Some(off) = self.at(i) else {
            return out_of_range_texel(self.format.components(), self.decoder.kind);
        };
        let mut bytes = [0u8; 16];
        let ts = self.format.texel_size();
        self.read_bytes(off, &mut bytes[..ts]);
        (self.decoder.raw)(&bytes[..ts])
    }

    /// Store `v` (raw bits as [`Format::encode_raw`] takes them) into texel `i`; writes
    /// outside the view are dropped (robust buffer access).
    pub fn write(&self, i: i32, v: [u32; 4]) {
        let Some(off) = self.at(i) else { return };
        let ts = self.format.texel_size();
        let mut bytes = [0u8; 16];
        // keep bits of components a partial encoder leaves alone (none today)
        self.read_bytes(off, &mut bytes[..ts]);
        self.format.encode_raw(v, &mut bytes[..ts]);
        let step = access_size(off, ts);
        for (k, c) in bytes[..ts].chunks(step).enumerate() {
            let mut w = [0u8; 8];
            w[..step].copy_from_slice(c);
            self.buffer
                .store(off + (k * step) as u64, step as u32, u64::from_le_bytes(w));
        }
    }

    fn read_bytes(&self, off: u64, out: &mut [u8]) {
        let step = access_size(off, out.len());
        for (k, c) in out.chunks_mut(step).enumerate() {
            let v = self.buffer.load(off + (k * step) as u64, step as u32);
            c.copy_from_slice(&v.to_le_bytes()[..step]);
        }
    }
}

/// The widest of 4, 2, 1 bytes dividing both the offset and the texel size: the buffer's
/// load/store unit for one texel.
fn access_size(off: u64, ts: usize) -> usize {
    [4usize, 2, 1]
        .into_iter()
        .find(|&s| ts.is_multiple_of(s) && off.is_multiple_of(s as u64))
        .unwrap_or(1)
}

/// Descriptor sets and push constants.
#[derive(Clone, Debug, Default)]
pub struct DescriptorSets {
    map: BTreeMap<(u32, u32), Vec<Descriptor>>,
    /// Descriptors bound for one D3D register class: (class, space, register).
    classed: BTreeMap<(RegisterClass, u32, u32), Vec<Descriptor>>,
    push_constants: Option<Arc<Buffer>>,
}

impl DescriptorSets {
    /// No descriptors.
    pub fn new() -> Self {
        Self::default()
    }
    /// Bind a single descriptor at (set, binding).
    pub fn bind(&mut self, set: u32, binding: u32, d: Descriptor) -> &mut Self {
        self.map.insert((set, binding), vec![d]);
        self
    }
    /// Bind a descriptor array at (set, binding).
    pub fn bind_array(&mut self, set: u32, binding: u32, ds: Vec<Descriptor>) -> &mut Self {
        self.map.insert((set, binding), ds);
        self
    }
    /// Bind a single descriptor to D3D register `class` `register` in `space` (set `space`,
    /// binding `register`, read by resources of that class only).
    pub fn bind_register(
        &mut self,
        class: RegisterClass,
        space: u32,
        register: u32,
        d: Descriptor,
    ) -> &mut Self {
        self.classed.insert((class, space, register), vec![d]);
        self
    }
    /// Bind a descriptor array to D3D registers `class` `register..` in `space`.
    pub fn bind_register_array(
        &mut self,
        class: RegisterClass,
        space: u32,
        register: u32,
        ds: Vec<Descriptor>,
    ) -> &mut Self {
        self.classed.insert((class, space, register), ds);
        self
    }
    /// Set the push-constant block's bytes.
    pub fn set_push_constants(&mut self, bytes: &[u8]) -> &mut Self {
        self.push_constants = Some(Arc::new(Buffer::from_bytes(bytes)));
        self
    }
    /// The descriptors at (set, binding).
    pub fn get(&self, set: u32, binding: u32) -> Option<&[Descriptor]> {
        self.map.get(&(set, binding)).map(|v| v.as_slice())
    }
    /// The descriptors resource `r` reads: those bound for its register class, if it has one
    /// and any are, else those at its (set, binding).
    pub fn lookup(&self, r: &Resource) -> Option<&[Descriptor]> {
        r.class
            .and_then(|c| self.classed.get(&(c, r.set, r.binding)))
            .or_else(|| self.map.get(&(r.set, r.binding)))
            .map(|v| v.as_slice())
    }

    /// The interpreter's bindings for `shader`: every buffer slot resolved. A buffer the
    /// shader declares but nobody bound is an error naming its set and binding.
    #[doc(hidden)]
    pub fn bindings<'a>(
        &'a self,
        shader: &Shader,
        images: &'a dyn ImageUnit,
    ) -> Result<Bindings<'a>> {
        let mut b = Bindings::new(images);
        for (slot, r) in shader.resources.iter().enumerate() {
            let slot = slot as u32;
            match r.kind {
                ResourceKind::PushConstant => {
                    static EMPTY: std::sync::OnceLock<Buffer> = std::sync::OnceLock::new();
                    let buf = match &self.push_constants {
                        Some(p) => p.as_ref(),
                        None => EMPTY.get_or_init(|| Buffer::new(0)),
                    };
                    b.bind_buffer(slot, 0, buf);
                }
                ResourceKind::UniformBuffer | ResourceKind::StorageBuffer => {
                    let descs = self.lookup(r).ok_or_else(|| {
                        Error::Pipeline(format!(
                            "{} '{}' uses a buffer at {} but none is bound",
                            shader.stage.shader_name(),
                            shader.name,
                            r.describe()
                        ))
                    })?;
                    for (i, d) in descs.iter().enumerate() {
                        match d {
                            Descriptor::Buffer(buf) => {
                                b.bind_buffer(slot, i as u32, buf);
                            }
                            _ => {
                                return Err(Error::Pipeline(format!(
                                    "{}: the {} '{}' expects a buffer, a {} is bound",
                                    r.describe(),
                                    shader.stage.shader_name(),
                                    shader.name,
                                    kind_name(d)
                                )))
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(b)
    }
}

fn kind_name(d: &Descriptor) -> &'static str {
    match d {
        Descriptor::Buffer(_) => "buffer",
        Descriptor::Image { .. } => "image",
        Descriptor::CombinedImageSampler { .. } => "combined image sampler",
        Descriptor::Sampler(_) => "sampler",
        Descriptor::TexelBuffer(_) => "texel buffer",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn res(kind: ResourceKind, set: u32, binding: u32, class: Option<RegisterClass>) -> Resource {
        Resource {
            kind,
            set,
            binding,
            array_len: 1,
            image: None,
            name: String::new(),
            class,
        }
    }

    #[test]
    fn a_register_class_reads_its_own_binding_before_the_plain_one() {
        let (plain, t0, u0) = (
            Arc::new(Buffer::new(4)),
            Arc::new(Buffer::new(8)),
            Arc::new(Buffer::new(12)),
        );
        let mut sets = DescriptorSets::new();
        sets.bind(2, 0, Descriptor::Buffer(plain))
            .bind_register(RegisterClass::T, 2, 0, Descriptor::Buffer(t0))
            .bind_register(RegisterClass::U, 2, 0, Descriptor::Buffer(u0));
        let len = |r: &Resource| match sets.lookup(r) {
            Some([Descriptor::Buffer(b)]) => b.len(),
            _ => 0,
        };
        let sb = ResourceKind::StorageBuffer;
        assert_eq!(len(&res(sb, 2, 0, Some(RegisterClass::T))), 8);
        assert_eq!(len(&res(sb, 2, 0, Some(RegisterClass::U))), 12);
        // no class-specific binding for b0: the plain one; SPIR-V resources: the plain one
        assert_eq!(len(&res(sb, 2, 0, Some(RegisterClass::B))), 4);
        assert_eq!(len(&res(sb, 2, 0, None)), 4);
        // another space is another set
        assert_eq!(len(&res(sb, 1, 0, Some(RegisterClass::T))), 0);
    }

    #[test]
    fn texel_buffer_view_reads_and_writes_its_window_of_the_buffer() {
        // 12 bytes 0..11; an R16G16_UINT view of 2 texels from byte 2 covers bytes 2..10.
        let bytes: Vec<u8> = (0..12).collect();
        let buf = Arc::new(Buffer::from_bytes(&bytes));
        let f = Format::from_vk_name("R16G16_UINT").unwrap();
        let v = TexelBufferView::new(buf.clone(), f, 2, 2).unwrap();
        assert_eq!(v.len(), 2);
        // texel 0 = bytes 2, 3 | 4, 5 little-endian: R = 0x0302, G = 0x0504; B 0, A 1.
        assert_eq!(v.fetch(0), [0x0302, 0x0504, 0, 1]);
        // outside the view (texel 2 is bytes 10..14, texel -1 bytes 0..4): zero, alpha 1.
        assert_eq!(v.fetch(2), [0, 0, 0, 1]);
        assert_eq!(v.fetch(-1), [0, 0, 0, 1]);
        // texel 1 = bytes 6..10 <- (0x1234, 0xABCD); the rest of the buffer is untouched.
        v.write(1, [0x1234, 0xABCD, 0, 0]);
        v.write(2, [0xFFFF; 4]);
        let want = [0, 1, 2, 3, 4, 5, 0x34, 0x12, 0xCD, 0xAB, 10, 11];
        assert_eq!(buf.to_bytes(), want);
        // odd offset: an R8G8B8A8_UNORM texel at byte 1 (byte-wise access).
        let f = Format::from_vk_name("R8G8B8A8_UNORM").unwrap();
        let v = TexelBufferView::whole(buf.clone(), f, 1).unwrap();
        assert_eq!(v.len(), 2); // 11 bytes left: two whole texels
        v.write(0, [1.0f32, 0.0, 0.2, 1.0].map(f32::to_bits)); // 255, 0, 51, 255
        assert_eq!(&buf.to_bytes()[..6], &[0, 255, 0, 51, 255, 5]);
        // a view past the end is refused
        assert!(TexelBufferView::new(buf, f, 4, 3).is_err());
    }
}
