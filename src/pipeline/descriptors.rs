//! Descriptor sets: what a shader's `(set, binding)` resources are bound to.
//!
//! Buffers are the interpreter's [`Buffer`] (atomic words, safe to share across rayon
//! threads). Images sit behind a read/write lock because storage-image writes from fragment
//! shaders can come from any tile thread; sampling takes the (uncontended) read lock.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::exec::{Bindings, Buffer, ImageUnit};
use crate::ir::{ResourceKind, Shader};
use crate::texture::{Image, ImageView, Sampler};
use crate::{Error, Result};

/// An image shared between descriptors, render passes and the caller.
#[derive(Debug)]
pub struct ImageResource(RwLock<Image>);

impl ImageResource {
    /// Wrap an image.
    pub fn new(image: Image) -> Arc<ImageResource> {
        Arc::new(ImageResource(RwLock::new(image)))
    }
    /// Shared access (a poisoned lock still yields the image: texel data stays valid).
    pub fn read(&self) -> RwLockReadGuard<'_, Image> {
        self.0.read().unwrap_or_else(|e| e.into_inner())
    }
    /// Exclusive access.
    pub fn write(&self) -> RwLockWriteGuard<'_, Image> {
        self.0.write().unwrap_or_else(|e| e.into_inner())
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
}

/// Descriptor sets and push constants.
#[derive(Clone, Debug, Default)]
pub struct DescriptorSets {
    map: BTreeMap<(u32, u32), Vec<Descriptor>>,
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
    /// Set the push-constant block's bytes.
    pub fn set_push_constants(&mut self, bytes: &[u8]) -> &mut Self {
        self.push_constants = Some(Arc::new(Buffer::from_bytes(bytes)));
        self
    }
    /// The descriptors at (set, binding).
    pub fn get(&self, set: u32, binding: u32) -> Option<&[Descriptor]> {
        self.map.get(&(set, binding)).map(|v| v.as_slice())
    }

    /// The interpreter's bindings for `shader`: every buffer slot resolved. A buffer the
    /// shader declares but nobody bound is an error naming its set and binding.
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
                    let descs = self.get(r.set, r.binding).ok_or_else(|| {
                        Error::Pipeline(format!(
                            "shader '{}' uses a buffer at set {} binding {} ('{}') but none is bound",
                            shader.name, r.set, r.binding, r.name
                        ))
                    })?;
                    for (i, d) in descs.iter().enumerate() {
                        match d {
                            Descriptor::Buffer(buf) => {
                                b.bind_buffer(slot, i as u32, buf);
                            }
                            _ => {
                                return Err(Error::Pipeline(format!(
                                    "set {} binding {}: the shader expects a buffer, a {} is bound",
                                    r.set,
                                    r.binding,
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
    }
}
