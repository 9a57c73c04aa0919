//! The interpreter's [`ImageUnit`] implemented with the texture unit.
//!
//! The interpreter hands over one image instruction for a whole batch ([`BatchOperands`]: the
//! operand registers' lane rows, read in place). Samples build the texture unit's
//! [`SampleArgs`] straight from those rows, with the bound image, its kernel and its read
//! lock looked up once per batch per (image, sampler) element pair; every other operation
//! takes the per-quad form ([`QuadOperands`], via `image_per_quad`), decoded into the texture
//! unit's plain per-quad arguments (coordinates, LOD mode, offsets, Dref, MinLod), resolving
//! the descriptor each lane names and calling [`Kernel::sample`], [`Kernel::gather`],
//! [`fetch_quad`] or a query. This is the only place that knows both the IR's image operands
//! and the texture unit's API. (Building a `QuadOperands` per quad and then a `SampleArgs`
//! from it, ~260 bytes each, would cost more than many samples themselves.) The per-quad path stays the
//! reference: a test checks the batch path against it bit for bit.
//!
//! Gathers whose image and sampler take no descriptor index go to [`Kernel::gather_batch`] on
//! the rows in place (`gather_batch`); `tests::batch_gathers_match_the_per_quad_path` holds them to the
//! per-quad path.
//!
//! The per-quad arguments are built in one place, `QuadOp::new`, and read through one
//! generic call, `ShaderImages::read`, asking either for the result (`Run`: `op_for_group`)
//! or for the texture unit's record of how it was made (`Explain`: the debugger's
//! [`ShaderImages::explain`], called only for the quad it traces), so the record is of the
//! question the run asked.
//!
//! Texel buffers (uniform and storage) take the per-quad path too: `op_for_group` hands a
//! texel buffer slot's instructions to `texel_buffer_op`, which fetches, reads, writes and
//! sizes the bound [`TexelBufferView`] directly in its buffer (no image, sampler or kernel).
//!
//! Kernels (the per (image, view, sampler) specialised routines) of combined image samplers
//! are built once when the descriptors are bound; pairs of separate images and samplers are
//! built on first use and memoised in a dense table of `OnceLock`s indexed by (image element,
//! sampler element) — no lock, hash or reference count per quad — or, when the descriptor
//! arrays are too large for a table, in a map behind a mutex.
//!
//! Every route writes all four components of each active lane, as
//! [`ImageUnit::image_batch`] requires (its `out` is not cleared per call): the per-quad
//! routes write whole quads (`image_per_quad`) or each lane group's lanes (`merge_lanes` over
//! the groups, which cover the active lanes), and [`Kernel::sample_batch`] and
//! [`Kernel::gather_batch`] write the active lanes. The tests start the batch routes from a
//! poisoned `out`.
//!
//! Per quad (callgrind on `render_scene`): the operands converted in place; lanes are grouped
//! by descriptor element so a uniform quad makes one texture-unit call. A sample whose image
//! and sampler take no descriptor index (the usual one) skips the grouping altogether: one
//! kernel for the batch, the arguments updated in place from the rows the instruction has,
//! each quad's lane mask read with one bounds check.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::descriptors::{Descriptor, ImageRead, ImageResource, TexelBufferView};
use crate::exec::{image_per_quad, BatchOperands, ImageUnit, QuadLod, QuadOperands};
use crate::ir::{ImageInst, ImageOpKind, Lod, Reg, Resource, ResourceKind, Shader};
use crate::texture::explain::QuadExplain;
use crate::texture::merge_lanes;
use crate::texture::{
    explain_fetch, fetch_quad, query_levels, query_samples, query_size, BatchArgs,
    BatchGatherOffsets, BatchLod, Config, FetchArgs, GatherArgs, GatherBatchArgs, GatherOffsets,
    GradRows, Image, ImageView, Kernel, LodMode, SampleArgs, Sampler, ViewType, WIDE_QUADS,
};
use crate::{Error, Result};

/// What one descriptor array element of an image-like slot resolves to.
#[derive(Clone)]
struct BoundImage {
    image: Arc<ImageResource>,
    /// For sampled (not storage) bindings: the image and its write generation at bind
    /// time, read without the lock while the generation is unchanged
    /// ([`ImageResource::snapshot`]).
    snap: Option<(u64, Arc<Image>)>,
    view: crate::texture::ImageView,
    sampler: Option<Sampler>,
    /// Prebuilt kernel for combined image samplers.
    kernel: Option<Arc<Kernel>>,
}

/// A bound image for reading: its snapshot or its read lock.
enum ImageRef<'a> {
    Snap(&'a Image),
    Locked(ImageRead<'a>),
}

impl std::ops::Deref for ImageRef<'_> {
    type Target = Image;
    fn deref(&self) -> &Image {
        match self {
            ImageRef::Snap(i) => i,
            ImageRef::Locked(g) => g,
        }
    }
}

impl BoundImage {
    /// The image for reading: the snapshot while no write has happened since the bind,
    /// else under the read lock.
    #[inline]
    fn read(&self) -> ImageRef<'_> {
        match &self.snap {
            Some((g, img)) if *g == self.image.generation() => ImageRef::Snap(img),
            _ => ImageRef::Locked(self.image.read()),
        }
    }
}

/// (image slot, image element, sampler slot, sampler element).
type KernelSlot = (u32, u32, u32, u32);

/// Largest (image elements × sampler elements) memoised in the lock-free table.
const MAX_DENSE_PAIRS: usize = 4096;

/// The images and samplers one shader sees, by resource slot and array element.
pub struct ShaderImages {
    images: Vec<Vec<Option<BoundImage>>>,
    /// Texel buffer views by slot and element (empty for other slots).
    texel_buffers: Vec<Vec<Option<TexelBufferView>>>,
    samplers: Vec<Vec<Option<Sampler>>>,
    config: Config,
    /// Flat index of element 0 of each slot among all image (resp. sampler) elements.
    image_base: Vec<usize>,
    sampler_base: Vec<usize>,
    sampler_total: usize,
    /// Separate image × sampler kernels, `[image flat index · sampler_total + sampler flat
    /// index]`; empty when too large (then `kernels` is used).
    dense: Vec<OnceLock<Arc<Kernel>>>,
    kernels: Mutex<HashMap<KernelSlot, Arc<Kernel>>>,
}

/// Prefix sums of the element counts.
/// A snapshot for bindings that only read (storage images are written through the lock, and
/// would copy a snapshotted image on their first write).
fn snap_of(kind: ResourceKind, image: &ImageResource) -> Option<(u64, Arc<Image>)> {
    match kind {
        ResourceKind::CombinedImageSampler | ResourceKind::SampledImage => Some(image.snapshot()),
        _ => None,
    }
}

fn bases<T>(v: &[Vec<T>]) -> (Vec<usize>, usize) {
    let mut total = 0;
    let b = v
        .iter()
        .map(|e| {
            let at = total;
            total += e.len();
            at
        })
        .collect();
    (b, total)
}

impl ShaderImages {
    /// Resolve the shader's image, sampler and texel-buffer slots against `lookup` (resource
    /// → descriptor array). Missing descriptors are only an error when used.
    pub fn new<'d>(
        shader: &Shader,
        lookup: impl Fn(&Resource) -> Option<&'d [Descriptor]>,
        config: Config,
    ) -> Result<ShaderImages> {
        let mut images = Vec::with_capacity(shader.resources.len());
        let mut samplers = Vec::with_capacity(shader.resources.len());
        let mut texel_buffers = Vec::with_capacity(shader.resources.len());
        for r in &shader.resources {
            let descs = lookup(r).unwrap_or(&[]);
            texel_buffers.push(texel_buffer_views(r, descs)?);
            let mut imgs = Vec::new();
            let mut smps = Vec::new();
            let image_like = matches!(
                r.kind,
                ResourceKind::CombinedImageSampler
                    | ResourceKind::SampledImage
                    | ResourceKind::StorageImage
            );
            for d in descs {
                match d {
                    Descriptor::Image { image, view } if image_like => {
                        imgs.push(Some(BoundImage {
                            image: image.clone(),
                            snap: snap_of(r.kind, image),
                            view: *view,
                            sampler: None,
                            kernel: None,
                        }));
                        smps.push(None);
                    }
                    Descriptor::CombinedImageSampler {
                        image,
                        view,
                        sampler,
                    } if image_like => {
                        let kernel = if r.kind == ResourceKind::CombinedImageSampler {
                            let img = image.read();
                            Some(Arc::new(Kernel::new(&img, view, sampler, config).map_err(
                                |e| {
                                    Error::Pipeline(format!(
                                        "set {} binding {}: {e}",
                                        r.set, r.binding
                                    ))
                                },
                            )?))
                        } else {
                            None
                        };
                        imgs.push(Some(BoundImage {
                            image: image.clone(),
                            snap: snap_of(r.kind, image),
                            view: *view,
                            sampler: Some(*sampler),
                            kernel,
                        }));
                        smps.push(Some(*sampler));
                    }
                    Descriptor::Sampler(s) => {
                        imgs.push(None);
                        smps.push(Some(*s));
                    }
                    // a separate sampler (D3D `sM`) reads a combined descriptor's sampler
                    Descriptor::CombinedImageSampler { sampler, .. }
                        if r.kind == ResourceKind::Sampler =>
                    {
                        imgs.push(None);
                        smps.push(Some(*sampler));
                    }
                    _ => {
                        imgs.push(None);
                        smps.push(None);
                    }
                }
            }
            images.push(imgs);
            samplers.push(smps);
        }
        let (image_base, image_total) = bases(&images);
        let (sampler_base, sampler_total) = bases(&samplers);
        let pairs = image_total.saturating_mul(sampler_total);
        let dense = if pairs <= MAX_DENSE_PAIRS {
            (0..pairs).map(|_| OnceLock::new()).collect()
        } else {
            Vec::new()
        };
        Ok(ShaderImages {
            images,
            texel_buffers,
            samplers,
            config,
            image_base,
            sampler_base,
            sampler_total,
            dense,
            kernels: Mutex::new(HashMap::new()),
        })
    }

    /// The texel buffer view at (slot, element): `Ok(None)` when the slot is not a texel
    /// buffer slot, an error when it is but nothing is bound there.
    fn texel_buffer(&self, slot: u32, index: u32) -> Result<Option<&TexelBufferView>> {
        let Some(v) = self.texel_buffers.get(slot as usize) else {
            return Ok(None);
        };
        if v.is_empty() {
            return Ok(None);
        }
        v.get(index as usize)
            .and_then(|o| o.as_ref())
            .map(Some)
            .ok_or_else(|| {
                Error::Exec(format!(
                    "no texel buffer bound at res{slot} element {index}"
                ))
            })
    }

    fn image(&self, slot: u32, index: u32) -> Result<&BoundImage> {
        self.images
            .get(slot as usize)
            .and_then(|v| v.get(index as usize))
            .and_then(|o| o.as_ref())
            .ok_or_else(|| Error::Exec(format!("no image bound at res{slot} element {index}")))
    }

    /// The kernel for `bound` (the image of `inst` at `image_index`) with the sampler the
    /// instruction names (separate sampler) or the combined one.
    fn kernel<'a>(
        &'a self,
        inst: &ImageInst,
        bound: &'a BoundImage,
        image_index: u32,
        sampler_index: u32,
    ) -> Result<KernelRef<'a>> {
        let Some(sref) = inst.sampler else {
            return match (&bound.kernel, &bound.sampler) {
                (Some(k), _) => Ok(KernelRef::Borrowed(k)),
                (None, Some(s)) => Ok(KernelRef::Owned(Arc::new(Kernel::new(
                    &bound.read(),
                    &bound.view,
                    s,
                    self.config,
                )?))),
                (None, None) => Err(Error::Exec(format!(
                    "the image at res{} element {image_index} has no sampler",
                    inst.image.slot
                ))),
            };
        };
        let dense = self.dense_slot(inst.image.slot, image_index, sref.slot, sampler_index);
        if let Some(cell) = dense {
            if let Some(k) = cell.get() {
                return Ok(KernelRef::Borrowed(k));
            }
        }
        let key = (inst.image.slot, image_index, sref.slot, sampler_index);
        if dense.is_none() {
            if let Some(k) = self.kernels.lock().map_err(poisoned)?.get(&key) {
                return Ok(KernelRef::Owned(k.clone()));
            }
        }
        let sampler = self
            .samplers
            .get(sref.slot as usize)
            .and_then(|v| v.get(sampler_index as usize))
            .and_then(|o| o.as_ref())
            .ok_or_else(|| {
                Error::Exec(format!(
                    "no sampler bound at res{} element {sampler_index}",
                    sref.slot
                ))
            })?;
        let k = Arc::new(Kernel::new(
            &bound.read(),
            &bound.view,
            sampler,
            self.config,
        )?);
        if let Some(cell) = dense {
            // another thread may have won the race with an equal kernel: use the stored one
            return Ok(KernelRef::Borrowed(cell.get_or_init(|| k)));
        }
        self.kernels
            .lock()
            .map_err(poisoned)?
            .insert(key, k.clone());
        Ok(KernelRef::Owned(k))
    }

    /// The lock-free memo cell of a (separate image, separate sampler) element pair, if the
    /// table exists and both indices are in range.
    fn dense_slot(
        &self,
        image_slot: u32,
        image_index: u32,
        sampler_slot: u32,
        sampler_index: u32,
    ) -> Option<&OnceLock<Arc<Kernel>>> {
        let n_img = self.images.get(image_slot as usize)?.len();
        let n_smp = self.samplers.get(sampler_slot as usize)?.len();
        if image_index as usize >= n_img || sampler_index as usize >= n_smp {
            return None;
        }
        let i = self.image_base[image_slot as usize] + image_index as usize;
        let s = self.sampler_base[sampler_slot as usize] + sampler_index as usize;
        self.dense.get(i * self.sampler_total + s)
    }
}

/// A kernel borrowed from the bindings or the memo table, or owned (built for this call).
enum KernelRef<'a> {
    Borrowed(&'a Kernel),
    Owned(Arc<Kernel>),
}

impl std::ops::Deref for KernelRef<'_> {
    type Target = Kernel;
    fn deref(&self) -> &Kernel {
        match self {
            KernelRef::Borrowed(k) => k,
            KernelRef::Owned(k) => k,
        }
    }
}

fn poisoned<T>(_: T) -> Error {
    Error::Exec("image kernel cache poisoned by an earlier panic".into())
}

fn f(bits: u32) -> f32 {
    f32::from_bits(bits)
}

/// Active lanes grouped by the (image, sampler) descriptor elements they index: usually one
/// group. At most four groups (one per lane); `(image index, sampler index, lane mask)`.
fn groups(
    active: [bool; 4],
    image_index: [u32; 4],
    sampler_index: [u32; 4],
) -> ([(u32, u32, u8); 4], usize) {
    let mut out = [(0u32, 0u32, 0u8); 4];
    // the usual quad: every active lane names the same elements
    let mask = (0..4).fold(0u8, |m, l| m | (active[l] as u8) << l);
    if mask == 0 {
        return (out, 0);
    }
    let first = mask.trailing_zeros() as usize;
    let key0 = (image_index[first], sampler_index[first]);
    if (0..4).all(|l| !active[l] || (image_index[l], sampler_index[l]) == key0) {
        out[0] = (key0.0, key0.1, mask);
        return (out, 1);
    }
    let mut n = 0;
    for lane in 0..4 {
        if !active[lane] {
            continue;
        }
        let key = (image_index[lane], sampler_index[lane]);
        match out[..n].iter_mut().find(|g| (g.0, g.1) == key) {
            Some(g) => g.2 |= 1 << lane,
            None => {
                out[n] = (key.0, key.1, 1 << lane);
                n += 1;
            }
        }
    }
    (out, n)
}

/// Coordinates as f32, divided by the projective divisor when present (Dref too).
fn float_coords(q: &QuadOperands) -> ([[f32; 4]; 4], Option<[f32; 4]>) {
    // fixed-size loops with the count as a mask: no slicing (a variable-length copy became
    // a `memcpy` call per lane)
    let n = q.coord_count;
    let mut c = q.coords.map(|l| {
        let mut v = l.map(f);
        for (k, x) in v.iter_mut().enumerate() {
            if k >= n {
                *x = 0.0;
            }
        }
        v
    });
    let mut dref = q.dref.map(|d| d.map(f));
    for (lane, cl) in c.iter_mut().enumerate() {
        if let Some(p) = q.proj {
            let w = f(p[lane]);
            // Projection divides the spatial coordinates, never the array layer.
            let spatial = q.coord_count.min(3);
            for v in cl.iter_mut().take(spatial) {
                *v /= w;
            }
            if let Some(d) = dref.as_mut() {
                d[lane] /= w;
            }
        }
    }
    (c, dref)
}

/// Integer-coordinate shape of a view: spatial components, then whether a layer follows
/// (cube faces count as layers for fetch, read and write).
fn int_dims(vt: ViewType) -> (usize, bool) {
    match vt {
        ViewType::D1 => (1, false),
        ViewType::D1Array => (1, true),
        ViewType::D2 => (2, false),
        ViewType::D2Array => (2, true),
        ViewType::D3 => (3, false),
        ViewType::Cube | ViewType::CubeArray => (2, true),
    }
}

fn offsets(q: &QuadOperands) -> [[i32; 3]; 4] {
    let n = q.offset_count;
    q.offset
        .map(|l| std::array::from_fn(|k| if k < n { l[k] as i32 } else { 0 }))
}

fn lod_mode(q: &QuadOperands) -> LodMode {
    match &q.lod {
        QuadLod::Implicit { bias } => LodMode::Implicit {
            bias: bias.map(|b| b.map(f)).unwrap_or([0.0; 4]),
            fine: false,
        },
        QuadLod::Explicit(l) => LodMode::Explicit(l.map(f)),
        QuadLod::Grad { count, dx, dy } => {
            let n = *count;
            let g = |d: &[[u32; 3]; 4]| {
                d.map(|l| std::array::from_fn(|k| if k < n { f(l[k]) } else { 0.0 }))
            };
            LodMode::Grad {
                dx: g(dx),
                dy: g(dy),
            }
        }
        QuadLod::None => LodMode::Explicit([0.0; 4]),
    }
}

/// One image instruction on one group of a quad's lanes, as the texture unit is asked it.
/// Made and consumed on the stack within one call: boxing the large variant would allocate
/// per quad on the per-quad path.
#[allow(clippy::large_enum_variant)]
enum QuadOp {
    /// A read the texture unit answers, and can explain.
    Read(ReadArgs),
    Other(Other),
}

/// The instructions the glue carries out itself, on the bound image.
enum Other {
    Write,
    Atomic(crate::ir::AtomicOp),
    QuerySize,
    QueryLevels,
    QuerySamples,
}

/// The texture unit's arguments of a read for one group of lanes: built once, here, for the
/// per-quad path (`op_for_group`) and for the debugger ([`ShaderImages::explain`]), so the
/// record is of the question the run asked.
enum ReadArgs {
    Sample(SampleArgs),
    Gather(GatherArgs),
    Fetch(FetchArgs),
    /// The coordinates of an implicit-LOD query (coarse derivatives).
    QueryLod([[f32; 4]; 4]),
}

impl QuadOp {
    /// `inst` on the lanes of `mask` of quad `q`.
    fn new(inst: &ImageInst, q: &QuadOperands, mask: u8) -> QuadOp {
        let read = match inst.kind {
            ImageOpKind::Sample => {
                let (coords, dref) = float_coords(q);
                ReadArgs::Sample(SampleArgs {
                    coords,
                    lod: lod_mode(q),
                    min_lod: q.min_lod.map(|m| m.map(f)),
                    offsets: offsets(q),
                    dref,
                    mask,
                })
            }
            ImageOpKind::Gather => {
                let (coords, dref) = float_coords(q);
                let offsets = if let Some(four) = inst.offsets4 {
                    GatherOffsets::Four(four)
                } else if q.offset_count > 0 {
                    GatherOffsets::Offset(offsets(q).map(|l| [l[0], l[1]]))
                } else {
                    GatherOffsets::None
                };
                ReadArgs::Gather(GatherArgs {
                    coords,
                    component: q.component.map(|c| c[0]).unwrap_or(0),
                    offsets,
                    dref,
                    mask,
                })
            }
            ImageOpKind::Fetch | ImageOpKind::Read => {
                let n = q.coord_count.min(4);
                let mut coords = [[0i32; 4]; 4];
                for (cl, ql) in coords.iter_mut().zip(&q.coords) {
                    for (v, &bits) in cl.iter_mut().zip(&ql[..n]) {
                        *v = bits as i32;
                    }
                }
                let lod = match &q.lod {
                    QuadLod::Explicit(l) => l.map(|v| v as i32),
                    _ => [0; 4],
                };
                ReadArgs::Fetch(FetchArgs {
                    coords,
                    lod,
                    sample: q.sample.unwrap_or([0; 4]),
                    offsets: offsets(q),
                    mask,
                })
            }
            ImageOpKind::QueryLod => ReadArgs::QueryLod(float_coords(q).0),
            ImageOpKind::Write => return QuadOp::Other(Other::Write),
            ImageOpKind::Atomic(op) => return QuadOp::Other(Other::Atomic(op)),
            ImageOpKind::QuerySize => return QuadOp::Other(Other::QuerySize),
            ImageOpKind::QueryLevels => return QuadOp::Other(Other::QueryLevels),
            ImageOpKind::QuerySamples => return QuadOp::Other(Other::QuerySamples),
        };
        QuadOp::Read(read)
    }
}

/// What a read asks of the texture unit: the operation's result ([`Run`]) or the record of
/// how it was made ([`Explain`]), from the same arguments, image and kernel.
trait Ask {
    type Out;
    fn sample(k: &Kernel, img: &Image, a: &SampleArgs) -> Result<Self::Out>;
    fn gather(k: &Kernel, img: &Image, a: &GatherArgs) -> Result<Self::Out>;
    fn query_lod(k: &Kernel, img: &Image, coords: &[[f32; 4]; 4]) -> Result<Self::Out>;
    fn fetch(img: &Image, view: &ImageView, a: &FetchArgs) -> Result<Self::Out>;
}

/// The operation itself.
struct Run;

impl Ask for Run {
    type Out = [[u32; 4]; 4];
    #[inline(always)]
    fn sample(k: &Kernel, img: &Image, a: &SampleArgs) -> Result<Self::Out> {
        k.sample(img, a)
    }
    #[inline(always)]
    fn gather(k: &Kernel, img: &Image, a: &GatherArgs) -> Result<Self::Out> {
        k.gather(img, a)
    }
    #[inline(always)]
    fn query_lod(k: &Kernel, img: &Image, coords: &[[f32; 4]; 4]) -> Result<Self::Out> {
        let r = k.query_lod(img, coords, false)?;
        Ok(r.map(|l| [l[0].to_bits(), l[1].to_bits(), 0, 0]))
    }
    #[inline(always)]
    fn fetch(img: &Image, view: &ImageView, a: &FetchArgs) -> Result<Self::Out> {
        fetch_quad(img, view, a)
    }
}

/// The texture unit's record of the operation (its result is [`Run`]'s, bit for bit).
struct Explain;

impl Ask for Explain {
    type Out = QuadExplain;
    fn sample(k: &Kernel, img: &Image, a: &SampleArgs) -> Result<Self::Out> {
        k.explain_sample(img, a)
    }
    fn gather(k: &Kernel, img: &Image, a: &GatherArgs) -> Result<Self::Out> {
        k.explain_gather(img, a)
    }
    fn query_lod(k: &Kernel, img: &Image, coords: &[[f32; 4]; 4]) -> Result<Self::Out> {
        k.explain_query_lod(img, coords, false)
    }
    fn fetch(img: &Image, view: &ImageView, a: &FetchArgs) -> Result<Self::Out> {
        explain_fetch(img, view, a)
    }
}

impl ShaderImages {
    /// `args` asked of the image (and, but for fetches, the kernel) that `inst` names at
    /// these descriptor elements.
    fn read<A: Ask>(
        &self,
        inst: &ImageInst,
        image_index: u32,
        sampler_index: u32,
        args: &ReadArgs,
    ) -> Result<A::Out> {
        let bound = self.image(inst.image.slot, image_index)?;
        let kernel = || self.kernel(inst, bound, image_index, sampler_index);
        match args {
            ReadArgs::Sample(a) => A::sample(&*kernel()?, &bound.read(), a),
            ReadArgs::Gather(a) => A::gather(&*kernel()?, &bound.read(), a),
            ReadArgs::QueryLod(c) => A::query_lod(&*kernel()?, &bound.read(), c),
            ReadArgs::Fetch(a) => A::fetch(&bound.read(), &bound.view, a),
        }
    }
}

/// What is bound where one image instruction of one quad reads (the debugger's question to
/// the image glue, `ShaderImages::explain`): one entry per group of active lanes naming the
/// same descriptor elements, usually one.
#[derive(Clone, Debug, PartialEq)]
pub struct ImageExplain {
    pub groups: Vec<BoundExplain>,
}

/// The descriptors a group of lanes reads.
#[derive(Clone, Debug, PartialEq)]
pub struct BoundExplain {
    /// Bit `i`: quad lane `i`.
    pub lanes: u8,
    pub image_index: u32,
    pub sampler_index: u32,
    /// The image (None for a texel buffer or an element nothing is bound at).
    pub image: Option<BoundImageInfo>,
    /// The sampler the lanes sample with (combined or separate), if any.
    pub sampler: Option<Sampler>,
    /// What the texture unit did for these lanes (samples, gathers, fetches, LOD queries;
    /// `None` for other instructions and texel buffers), or why it could not say.
    pub texture: Option<std::result::Result<QuadExplain, String>>,
}

/// A bound image view as the debugger shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct BoundImageInfo {
    pub format: crate::texture::Format,
    pub view: crate::texture::ImageView,
    /// Extent of each level of the view, from its base level.
    pub levels: Vec<[u32; 3]>,
}

impl ShaderImages {
    /// What `inst` reads for quad `q`'s active lanes: per group of lanes, the bound view and
    /// sampler, and for a read the texture unit answers its record of the operation, asked
    /// with the arguments the run's per-quad path builds. Reads nothing but the bindings and
    /// images; never writes. Only the debugger calls it, for the quads it traces.
    pub fn explain(&self, inst: &ImageInst, q: &QuadOperands) -> Result<ImageExplain> {
        let (groups, n) = groups(q.active, q.image_index, q.sampler_index);
        let mut out = Vec::with_capacity(n);
        for &(image_index, sampler_index, lanes) in &groups[..n] {
            let bound = self.image(inst.image.slot, image_index).ok();
            let image = bound.map(|b| {
                let img = b.read();
                let view = b.view;
                BoundImageInfo {
                    format: img.format(),
                    view,
                    levels: (0..view.level_count)
                        .map(|l| view.level_extent(&img, l))
                        .collect(),
                }
            });
            let sampler = match inst.sampler {
                Some(s) => self
                    .samplers
                    .get(s.slot as usize)
                    .and_then(|v| v.get(sampler_index as usize))
                    .copied()
                    .flatten(),
                None => bound.and_then(|b| b.sampler),
            };
            let texel_buffer = self.texel_buffer(inst.image.slot, image_index);
            let texture = match QuadOp::new(inst, q, lanes) {
                QuadOp::Read(args) if matches!(texel_buffer, Ok(None)) => Some(
                    self.read::<Explain>(inst, image_index, sampler_index, &args)
                        .map_err(|e| e.to_string()),
                ),
                _ => None,
            };
            out.push(BoundExplain {
                lanes,
                image_index,
                sampler_index,
                image,
                sampler,
                texture,
            });
        }
        Ok(ImageExplain { groups: out })
    }
}

impl ImageUnit for ShaderImages {
    fn image_op(&self, inst: &ImageInst, q: &QuadOperands, out: &mut [[u32; 4]; 4]) -> Result<()> {
        let (groups, n) = groups(q.active, q.image_index, q.sampler_index);
        for &(image_index, sampler_index, mask) in &groups[..n] {
            let part = self.op_for_group(inst, q, image_index, sampler_index, mask)?;
            merge_lanes(out, &part, mask);
        }
        Ok(())
    }

    /// Samples read the operand rows in place and build [`SampleArgs`] directly, with the
    /// bound image, its kernel and its read lock taken once per batch for each (image,
    /// sampler) element pair; other operations go through [`image_op`](Self::image_op) per
    /// quad.
    fn image_batch(
        &self,
        inst: &ImageInst,
        ops: &BatchOperands<'_>,
        out: &mut [[u32; 4]],
    ) -> Result<()> {
        if inst.kind == ImageOpKind::Gather {
            return self.gather_batch(inst, ops, out);
        }
        if inst.kind != ImageOpKind::Sample {
            return image_per_quad(self, inst, ops, out);
        }
        let rows = SampleRows::new(inst, ops);
        if rows.image_index.is_empty() && rows.sampler_index.is_empty() {
            return self.sample_one_pair(inst, &rows, ops, out);
        }
        let mut cur: Option<(u32, u32, &BoundImage, KernelRef<'_>)> = None;
        let mut guard = None;
        for (q, chunk) in out.chunks_exact_mut(4).enumerate().take(ops.quads()) {
            let active = ops.quad_mask(q);
            if active == 0 {
                continue;
            }
            let (groups, n) = groups(
                std::array::from_fn(|i| active & (1 << i) != 0),
                quad_bits(rows.image_index, q),
                quad_bits(rows.sampler_index, q),
            );
            for &(image_index, sampler_index, mask) in &groups[..n] {
                if !matches!(&cur, Some((i, s, ..)) if (*i, *s) == (image_index, sampler_index)) {
                    guard = None;
                    let bound = self.image(inst.image.slot, image_index)?;
                    let kernel = self.kernel(inst, bound, image_index, sampler_index)?;
                    cur = Some((image_index, sampler_index, bound, kernel));
                }
                let Some((_, _, bound, kernel)) = &cur else {
                    unreachable!("set above")
                };
                let img = guard.get_or_insert_with(|| bound.read());
                let args = rows.sample_args(q, mask);
                let part = kernel.sample(img, &args)?;
                merge_lanes(chunk, &part, mask);
            }
        }
        Ok(())
    }
}

/// The operand rows of a sample instruction, looked up once per batch (an empty row: the
/// instruction has no such operand, which reads as zero).
struct SampleRows<'a> {
    image_index: &'a [u32],
    sampler_index: &'a [u32],
    coord_count: usize,
    coords: [&'a [u32]; 4],
    proj: Option<&'a [u32]>,
    dref: Option<&'a [u32]>,
    lod: RowLod<'a>,
    min_lod: Option<&'a [u32]>,
    offsets: [&'a [u32]; 3],
}

enum RowLod<'a> {
    Implicit(&'a [u32]),
    Explicit(&'a [u32]),
    /// dx, dy; components past the instruction's dx count are empty.
    Grad(GradRows<'a>),
    Zero,
}

/// Lanes `4q..4q + 4` of `row` (zeros for an empty row).
#[inline(always)]
fn quad_bits(row: &[u32], q: usize) -> [u32; 4] {
    match row.get(q * 4..q * 4 + 4) {
        Some(s) => [s[0], s[1], s[2], s[3]],
        None => [0; 4],
    }
}

#[inline(always)]
fn quad_f32(row: &[u32], q: usize) -> [f32; 4] {
    let [a, b, c, d] = quad_bits(row, q);
    [f(a), f(b), f(c), f(d)]
}

/// Column `j` of `out` (lane by lane) from quad `q` of `rows[j]`, for each row the
/// instruction has; an absent (empty) row's column stays as it is.
#[inline(always)]
fn set_columns<const N: usize>(rows: &[&[u32]; N], q: usize, out: &mut [[f32; N]; 4]) {
    for (j, r) in rows.iter().enumerate() {
        if !r.is_empty() {
            let c = quad_f32(r, q);
            for (o, &v) in out.iter_mut().zip(&c) {
                o[j] = v;
            }
        }
    }
}

impl<'a> SampleRows<'a> {
    fn new(inst: &ImageInst, ops: &BatchOperands<'a>) -> Self {
        let row = |r: Option<Reg>| r.map_or(&[][..], |r| ops.row(r));
        let comps = |v: &[Reg], count: usize| -> [&'a [u32]; 3] {
            std::array::from_fn(|k| row(v.get(k).copied().filter(|_| k < count)))
        };
        SampleRows {
            image_index: row(inst.image.index),
            sampler_index: row(inst.sampler.and_then(|s| s.index)),
            coord_count: inst.coords.len(),
            coords: std::array::from_fn(|k| row(inst.coords.get(k).copied())),
            proj: inst.proj.map(|r| ops.row(r)),
            dref: inst.dref.map(|r| ops.row(r)),
            lod: match &inst.lod {
                Lod::Implicit { bias } => RowLod::Implicit(row(*bias)),
                Lod::Explicit(r) => RowLod::Explicit(ops.row(*r)),
                // Components past the dx count are zero in both (what `lod_mode` does).
                Lod::Grad { dx, dy } => RowLod::Grad(GradRows {
                    dx: comps(dx, dx.len()),
                    dy: comps(dy, dx.len()),
                }),
                Lod::None => RowLod::Zero,
            },
            min_lod: inst.min_lod.map(|r| ops.row(r)),
            offsets: std::array::from_fn(|k| row(inst.offset.get(k).copied())),
        }
    }

    /// The texture unit's arguments for quad `q`: the values `float_coords`, `lod_mode` and
    /// `offsets` derive from the quad's [`QuadOperands`].
    fn sample_args(&self, q: usize, mask: u8) -> SampleArgs {
        // [component][lane] first, then transposed to the texture unit's [lane][component]
        let cc = self.coords.map(|r| quad_f32(r, q));
        let mut coords: [[f32; 4]; 4] =
            std::array::from_fn(|l| [cc[0][l], cc[1][l], cc[2][l], cc[3][l]]);
        let mut dref = self.dref.map(|r| quad_f32(r, q));
        if let Some(p) = self.proj {
            let w = quad_f32(p, q);
            // Projection divides the spatial coordinates, never the array layer.
            let spatial = self.coord_count.min(3);
            for (cl, &w) in coords.iter_mut().zip(&w) {
                for v in cl.iter_mut().take(spatial) {
                    *v /= w;
                }
            }
            if let Some(d) = dref.as_mut() {
                for (d, &w) in d.iter_mut().zip(&w) {
                    *d /= w;
                }
            }
        }
        let grad = |g: &[&[u32]; 3]| -> [[f32; 3]; 4] {
            let c = g.map(|r| quad_f32(r, q));
            std::array::from_fn(|l| [c[0][l], c[1][l], c[2][l]])
        };
        let lod = match &self.lod {
            RowLod::Implicit(bias) => LodMode::Implicit {
                bias: quad_f32(bias, q),
                fine: false,
            },
            RowLod::Explicit(r) => LodMode::Explicit(quad_f32(r, q)),
            RowLod::Grad(GradRows { dx, dy }) => LodMode::Grad {
                dx: grad(dx),
                dy: grad(dy),
            },
            RowLod::Zero => LodMode::Explicit([0.0; 4]),
        };
        let oc = self.offsets.map(|r| quad_bits(r, q));
        SampleArgs {
            coords,
            lod,
            min_lod: self.min_lod.map(|r| quad_f32(r, q)),
            offsets: std::array::from_fn(|l| [oc[0][l] as i32, oc[1][l] as i32, oc[2][l] as i32]),
            dref,
            mask,
        }
    }

    /// [`SampleRows::sample_args`]`(q, mask)` written over `a`, the arguments these rows gave
    /// for another quad: the parts that come from absent operands (zeros, `None`) are
    /// already right and stay as they are. With a projective divisor everything is rebuilt
    /// (it divides the coordinates, present or not).
    #[inline(always)]
    fn update_args(&self, q: usize, mask: u8, a: &mut SampleArgs) {
        if self.proj.is_some() {
            *a = self.sample_args(q, mask);
            return;
        }
        a.mask = mask;
        set_columns(&self.coords, q, &mut a.coords);
        if let (Some(r), Some(d)) = (self.dref, a.dref.as_mut()) {
            *d = quad_f32(r, q);
        }
        if let (Some(r), Some(m)) = (self.min_lod, a.min_lod.as_mut()) {
            *m = quad_f32(r, q);
        }
        match (&self.lod, &mut a.lod) {
            (RowLod::Implicit(b), LodMode::Implicit { bias, .. }) if !b.is_empty() => {
                *bias = quad_f32(b, q)
            }
            (RowLod::Explicit(r), LodMode::Explicit(l)) => *l = quad_f32(r, q),
            (RowLod::Grad(GradRows { dx, dy }), LodMode::Grad { dx: gx, dy: gy }) => {
                set_columns(dx, q, gx);
                set_columns(dy, q, gy);
            }
            _ => {}
        }
        for (k, r) in self.offsets.iter().enumerate() {
            if !r.is_empty() {
                let o = quad_bits(r, q);
                for (ol, &v) in a.offsets.iter_mut().zip(&o) {
                    ol[k] = v as i32;
                }
            }
        }
    }
}

impl SampleRows<'_> {
    /// The batch form of the LOD operand when the instruction fits [`Kernel::sample_batch`]:
    /// no projection, `MinLod` or third offset component (Dref, `Grad` derivatives and `u`, `v`
    /// offsets go as their rows).
    fn wide_lod(&self) -> Option<BatchLod<'_>> {
        if self.proj.is_some() || self.min_lod.is_some() || !self.offsets[2].is_empty() {
            return None;
        }
        match &self.lod {
            RowLod::Implicit(bias) => Some(BatchLod::Implicit(bias)),
            RowLod::Explicit(r) => Some(BatchLod::Explicit(r)),
            RowLod::Zero => Some(BatchLod::Zero),
            RowLod::Grad(g) => Some(BatchLod::Grad(g)),
        }
    }
}

/// `row` from lane `lane` on (an empty row stays empty).
fn lanes_from(row: &[u32], lane: usize) -> &[u32] {
    row.get(lane..).unwrap_or(&[])
}

/// [`ShaderImages::sample_one_pair`] through [`Kernel::sample_batch`], [`WIDE_QUADS`] quads
/// at a time: the rows as they are (from the chunk's first lane), a lane mask per quad.
fn sample_wide(
    kernel: &Kernel,
    img: &Image,
    rows: &SampleRows<'_>,
    lod: BatchLod<'_>,
    quads: std::ops::Range<usize>,
    ops: &BatchOperands<'_>,
    out: &mut [[u32; 4]],
) -> Result<()> {
    let mut masks = [0u8; WIDE_QUADS];
    for q0 in quads.clone().step_by(WIDE_QUADS) {
        let nq = (quads.end - q0).min(WIDE_QUADS);
        ops.quad_masks(q0, &mut masks[..nq]);
        let grad = match lod {
            BatchLod::Grad(g) => GradRows {
                dx: g.dx.map(|r| lanes_from(r, 4 * q0)),
                dy: g.dy.map(|r| lanes_from(r, 4 * q0)),
            },
            _ => GradRows {
                dx: [&[]; 3],
                dy: [&[]; 3],
            },
        };
        let b = BatchArgs {
            coords: rows.coords.map(|r| lanes_from(r, 4 * q0)),
            masks: &masks[..nq],
            lod: match lod {
                BatchLod::Implicit(r) => BatchLod::Implicit(lanes_from(r, 4 * q0)),
                BatchLod::Explicit(r) => BatchLod::Explicit(lanes_from(r, 4 * q0)),
                BatchLod::Zero => BatchLod::Zero,
                BatchLod::Grad(_) => BatchLod::Grad(&grad),
            },
            dref: rows.dref.map_or(&[][..], |r| lanes_from(r, 4 * q0)),
            offsets: [0, 1].map(|k| lanes_from(rows.offsets[k], 4 * q0)),
        };
        kernel.sample_batch(img, &b, &mut out[4 * q0..4 * (q0 + nq)])?;
    }
    Ok(())
}

impl ShaderImages {
    /// [`ImageUnit::image_batch`] for a sample whose image and sampler take no descriptor
    /// index (the usual instruction): every quad names element 0 of both, so the bound
    /// image, its kernel and its read lock are looked up once (at the first active quad,
    /// where the general loop would), there is no per-quad grouping, and the arguments are
    /// updated in place, only from the operand rows the instruction has. When the kernel has
    /// a wide routine and the instruction has no projection, `MinLod` or 3D offset,
    /// the whole batch goes to [`Kernel::sample_batch`] instead (`sample_wide`).
    fn sample_one_pair(
        &self,
        inst: &ImageInst,
        rows: &SampleRows<'_>,
        ops: &BatchOperands<'_>,
        out: &mut [[u32; 4]],
    ) -> Result<()> {
        let quads = ops.quads().min(out.len() / 4);
        let quad_mask = |q: usize| ops.quad_mask(q);
        let Some(first) = (0..quads).find(|&q| quad_mask(q) != 0) else {
            return Ok(());
        };
        let bound = self.image(inst.image.slot, 0)?;
        let kernel = self.kernel(inst, bound, 0, 0)?;
        let img = bound.read();
        if kernel.has_wide_path() {
            if let Some(lod) = rows.wide_lod() {
                return sample_wide(&kernel, &img, rows, lod, first..quads, ops, out);
            }
        }
        let mut args = rows.sample_args(first, 0xf);
        for (q, chunk) in out.chunks_exact_mut(4).enumerate().take(quads).skip(first) {
            let mask = quad_mask(q);
            if mask == 0 {
                continue;
            }
            rows.update_args(q, mask, &mut args);
            let part = kernel.sample(&img, &args)?;
            if mask == 0xf {
                chunk.copy_from_slice(&part);
            } else {
                merge_lanes(chunk, &part, mask);
            }
        }
        Ok(())
    }

    /// [`ImageUnit::image_batch`] for a gather: when its image and sampler take no
    /// descriptor index (and the image is not a texel buffer), [`Kernel::gather_batch`] on
    /// the operand rows in place, [`WIDE_QUADS`] quads at a time, with the image, its kernel
    /// and its read lock looked up once; otherwise per quad. The arguments are those
    /// `op_for_group` builds per quad: component from each quad's lane 0, `ConstOffsets`,
    /// else `u`, `v` offset rows, Dref.
    fn gather_batch(
        &self,
        inst: &ImageInst,
        ops: &BatchOperands<'_>,
        out: &mut [[u32; 4]],
    ) -> Result<()> {
        let indexed = inst.image.index.is_some() || inst.sampler.is_some_and(|s| s.index.is_some());
        let quads = ops.quads().min(out.len() / 4);
        let Some(first) = (0..quads).find(|&q| ops.quad_mask(q) != 0) else {
            return Ok(());
        };
        if indexed || inst.proj.is_some() || self.texel_buffer(inst.image.slot, 0)?.is_some() {
            return image_per_quad(self, inst, ops, out);
        }
        let bound = self.image(inst.image.slot, 0)?;
        let kernel = self.kernel(inst, bound, 0, 0)?;
        let img = bound.read();
        let row = |r: Option<Reg>| r.map_or(&[][..], |r| ops.row(r));
        let coords: [&[u32]; 4] = std::array::from_fn(|k| row(inst.coords.get(k).copied()));
        let offset_rows = [0, 1].map(|k| row(inst.offset.get(k).copied()));
        let (component, dref) = (row(inst.component), row(inst.dref));
        let mut masks = [0u8; WIDE_QUADS];
        for q0 in (first..quads).step_by(WIDE_QUADS) {
            let nq = (quads - q0).min(WIDE_QUADS);
            ops.quad_masks(q0, &mut masks[..nq]);
            let from = |r| lanes_from(r, 4 * q0);
            let b = GatherBatchArgs {
                coords: coords.map(from),
                masks: &masks[..nq],
                component: from(component),
                offsets: match inst.offsets4 {
                    Some(four) => BatchGatherOffsets::Four(four),
                    None if !inst.offset.is_empty() => {
                        BatchGatherOffsets::Offset(offset_rows.map(from))
                    }
                    None => BatchGatherOffsets::None,
                },
                dref: from(dref),
            };
            kernel.gather_batch(&img, &b, &mut out[4 * q0..4 * (q0 + nq)])?;
        }
        Ok(())
    }

    fn op_for_group(
        &self,
        inst: &ImageInst,
        q: &QuadOperands,
        image_index: u32,
        sampler_index: u32,
        mask: u8,
    ) -> Result<[[u32; 4]; 4]> {
        if let Some(view) = self.texel_buffer(inst.image.slot, image_index)? {
            return texel_buffer_op(inst, q, view, mask);
        }
        let kind = match QuadOp::new(inst, q, mask) {
            QuadOp::Read(args) => {
                return self.read::<Run>(inst, image_index, sampler_index, &args);
            }
            QuadOp::Other(kind) => kind,
        };
        match kind {
            Other::Write => {
                let bound = self.image(inst.image.slot, image_index)?;
                let (sdims, arrayed) = int_dims(bound.view.view_type);
                let mut img = bound.image.write();
                for lane in 0..4 {
                    if mask & (1 << lane) == 0 || q.helper[lane] {
                        continue;
                    }
                    let c = q.coords[lane];
                    let mut xyz = [0u32; 3];
                    xyz[..sdims].copy_from_slice(&c[..sdims]);
                    let layer = if arrayed { c[sdims] } else { 0 };
                    // Out-of-bounds storage writes are dropped (robust behaviour): the
                    // texture unit refuses them and the error is deliberately ignored.
                    if layer >= bound.view.layer_count {
                        continue;
                    }
                    let layer = bound.view.base_layer + layer;
                    let _ = match q.sample {
                        // a multisampled storage image (single-level: base level 0)
                        Some(s) => img.write_sample(layer, xyz, s[lane], q.texel[lane]),
                        None => img.write_texel(bound.view.base_level, layer, xyz, q.texel[lane]),
                    };
                }
                Ok([[0; 4]; 4])
            }
            Other::Atomic(op) => {
                let bound = self.image(inst.image.slot, image_index)?;
                let (sdims, arrayed) = int_dims(bound.view.view_type);
                let mut img = bound.image.write();
                let level = bound.view.base_level;
                let mut res = [[0u32; 4]; 4];
                // lane by lane in quad order (the batch's quads come in order): helper lanes
                // change nothing and read 0, as for buffer atomics; a texel out of range is
                // neither read nor written
                for lane in (0..4).filter(|&l| mask & (1 << l) != 0 && !q.helper[l]) {
                    let c = q.coords[lane];
                    let mut xyz = [0u32; 3];
                    xyz[..sdims].copy_from_slice(&c[..sdims]);
                    let layer = if arrayed { c[sdims] } else { 0 };
                    if layer >= bound.view.layer_count {
                        continue;
                    }
                    let layer = bound.view.base_layer + layer;
                    let sample = q.sample.map_or(0, |s| s[lane]);
                    let format = img.format();
                    let Some(old) = img
                        .texel(level, layer, xyz, sample)
                        .map(|t| format.decode_raw(t)[0])
                    else {
                        continue;
                    };
                    let [a, b] = [q.texel[lane][0], q.texel[lane][1]].map(u64::from);
                    if let Some(new) = crate::exec::atomic_new(op, 32, old as u64, a, b) {
                        let v = [new as u32, 0, 0, 0];
                        let _ = match img.samples() {
                            1 => img.write_texel(level, layer, xyz, v),
                            _ => img.write_sample(layer, xyz, sample, v),
                        };
                    }
                    res[lane][0] = old;
                }
                Ok(res)
            }
            Other::QuerySize => {
                let bound = self.image(inst.image.slot, image_index)?;
                let img = bound.read();
                let vt = bound.view.view_type;
                let (sdims, arrayed) = int_dims(vt);
                let mut res = [[0u32; 4]; 4];
                for lane in 0..4 {
                    if mask & (1 << lane) == 0 {
                        continue;
                    }
                    let lod = match &q.lod {
                        QuadLod::Explicit(l) => l[lane],
                        _ => 0,
                    };
                    let size = query_size(&img, &bound.view, lod).unwrap_or([0; 3]);
                    let mut v = [0u32; 4];
                    v[..sdims].copy_from_slice(&size[..sdims]);
                    if arrayed && vt != ViewType::Cube {
                        v[sdims] = if vt.is_cube() {
                            bound.view.layer_count / 6
                        } else {
                            bound.view.layer_count
                        };
                    }
                    res[lane] = v;
                }
                Ok(res)
            }
            Other::QueryLevels => {
                let bound = self.image(inst.image.slot, image_index)?;
                let n = query_levels(&bound.view);
                Ok([[n, 0, 0, 0]; 4])
            }
            Other::QuerySamples => {
                let bound = self.image(inst.image.slot, image_index)?;
                let n = query_samples(&bound.read());
                Ok([[n, 0, 0, 0]; 4])
            }
        }
    }
}

/// The texel buffer views of a texel buffer resource's descriptors (empty for any other
/// resource kind); anything else bound there is an error naming the set and binding.
fn texel_buffer_views(
    r: &crate::ir::Resource,
    descs: &[Descriptor],
) -> Result<Vec<Option<TexelBufferView>>> {
    if !matches!(
        r.kind,
        ResourceKind::UniformTexelBuffer | ResourceKind::StorageTexelBuffer
    ) {
        return Ok(Vec::new());
    }
    descs
        .iter()
        .map(|d| match d {
            Descriptor::TexelBuffer(v) => Ok(Some(v.clone())),
            _ => Err(Error::Pipeline(format!(
                "set {} binding {} ('{}'): the shader expects a texel buffer, another \
                 descriptor kind is bound",
                r.set, r.binding, r.name
            ))),
        })
        .collect()
}

/// One image instruction on a texel buffer, for the lanes in `mask`: `OpImageFetch` and
/// `OpImageRead` read texel `coord.x` (out of range: zero, alpha 1 for formats without
/// alpha), `OpImageWrite` stores into the buffer (out of range: dropped; helper lanes never
/// write), `OpImageQuerySize` gives the element count. Texel buffers have no levels,
/// samples or sampler, so every other operation is an error.
fn texel_buffer_op(
    inst: &ImageInst,
    q: &QuadOperands,
    view: &TexelBufferView,
    mask: u8,
) -> Result<[[u32; 4]; 4]> {
    let mut res = [[0u32; 4]; 4];
    let lanes = (0..4).filter(|l| mask & (1 << l) != 0);
    match inst.kind {
        ImageOpKind::Fetch | ImageOpKind::Read => {
            for lane in lanes {
                res[lane] = view.fetch(q.coords[lane][0] as i32);
            }
        }
        ImageOpKind::Write => {
            for lane in lanes.filter(|&l| !q.helper[l]) {
                view.write(q.coords[lane][0] as i32, q.texel[lane]);
            }
        }
        ImageOpKind::QuerySize => {
            for lane in lanes {
                res[lane][0] = view.len();
            }
        }
        other => {
            return Err(Error::Exec(format!(
                "{other:?} is not an operation on a texel buffer (only fetch, read, write \
                 and size queries are)"
            )))
        }
    }
    Ok(res)
}

#[cfg(test)]
mod tests {
    //! The batch path (`image_batch`, operand rows read in place) against the per-quad path
    //! (`image_op` on each quad's `QuadOperands`, the form the interpreter used before), which
    //! serves as the reference: same result bits for every active lane.
    use super::*;
    use crate::ir::{ImageDim, ImageType, ResRef, Resource, ScalarTy, Stage};
    use crate::texture::{
        AddressMode, CompareOp, Filter, Format, Image, ImageView, MipmapMode, Sampler,
    };

    fn checker(shift: u32) -> Image {
        let mut img = Image::new_2d(Format::R8G8B8A8_UNORM, 16, 16, 1, 5).unwrap();
        for m in 0..5u32 {
            let n = 16u32 >> m;
            let texels: Vec<[f32; 4]> = (0..n * n)
                .map(|i| {
                    let v = ((i * 7 + m * 3 + shift) % 11) as f32 / 10.0;
                    [v, 1.0 - v, (i % 3) as f32 / 2.0, 1.0]
                })
                .collect();
            img.upload_f32(m, &texels).unwrap();
        }
        img
    }

    fn depth() -> Image {
        let mut img = Image::new_2d(Format::D32_SFLOAT, 16, 16, 1, 3).unwrap();
        for m in 0..3u32 {
            let n = 16u32 >> m;
            let texels: Vec<[f32; 4]> = (0..n * n)
                .map(|i| [((i * 5) % 13) as f32 / 12.0, 0.0, 0.0, 0.0])
                .collect();
            img.upload_f32(m, &texels).unwrap();
        }
        img
    }

    fn sampler(filter: Filter, address: AddressMode) -> Sampler {
        Sampler {
            mag_filter: filter,
            min_filter: filter,
            mipmap_mode: MipmapMode::Linear,
            address_mode: [address; 3],
            max_lod: 8.0,
            ..Sampler::default()
        }
    }

    fn combined(img: Image, s: Sampler) -> Descriptor {
        Descriptor::CombinedImageSampler {
            view: ImageView::whole(&img, ViewType::D2),
            image: ImageResource::new(img),
            sampler: s,
        }
    }

    fn resource(binding: u32, array_len: u32, depth: bool) -> Resource {
        Resource {
            kind: ResourceKind::CombinedImageSampler,
            set: 0,
            binding,
            array_len,
            image: Some(ImageType {
                dim: ImageDim::D2,
                arrayed: false,
                multisampled: false,
                depth,
                sampled_ty: ScalarTy::F32,
                signed: false,
            }),
            name: format!("t{binding}"),
            class: None,
        }
    }

    /// A fragment shader of 40 f32 registers with `resources` and no code (the image
    /// instructions are called directly).
    fn frag_shader(resources: Vec<Resource>) -> Shader {
        Shader {
            name: "t".into(),
            stage: Stage::Fragment,
            body: crate::ir::Function {
                regs: vec![ScalarTy::F32; 40],
                consts: vec![],
                blocks: vec![],
            },
            local_words: 0,
            workgroup_words: 0,
            inputs: vec![],
            outputs: vec![],
            resources,
            workgroup_size: [1, 1, 1],
            writes_depth: false,
            can_discard: false,
            early_fragment_tests: false,
            origin_upper_left: true,
            derivative_group: None,
            modes: Default::default(),
            source: Default::default(),
        }
    }

    fn sample(slot: u32, index: Option<Reg>, coords: Vec<Reg>, lod: Lod) -> ImageInst {
        ImageInst {
            kind: ImageOpKind::Sample,
            image: ResRef { slot, index },
            sampler: None,
            coords,
            proj: None,
            dref: None,
            lod,
            offset: vec![],
            offsets4: None,
            min_lod: None,
            sample: None,
            component: None,
            texel: vec![],
            dst: vec![30, 31, 32, 33],
            result_ty: ScalarTy::F32,
        }
    }

    #[test]
    fn batch_sampling_matches_the_per_quad_path() {
        let shader = frag_shader(vec![resource(0, 2, false), resource(1, 1, true)]);
        let arr = [
            combined(checker(0), sampler(Filter::Linear, AddressMode::Repeat)),
            combined(
                checker(5),
                sampler(Filter::Nearest, AddressMode::ClampToEdge),
            ),
        ];
        let cmp = Sampler {
            compare_enable: true,
            compare_op: CompareOp::LessOrEqual,
            ..sampler(Filter::Linear, AddressMode::ClampToEdge)
        };
        let shadow = [combined(depth(), cmp)];
        let images = ShaderImages::new(
            &shader,
            |r| {
                Some(if r.binding == 0 {
                    &arr[..]
                } else {
                    &shadow[..]
                })
            },
            Config::default(),
        )
        .unwrap();

        // Registers r0..r40, 16 lanes (4 quads). r0-r3 coordinates, r4 bias/LOD, r5 proj,
        // r6 dref, r7 min_lod, r8-r9 offsets, r10 descriptor index, r11-r14 gradients.
        let n = 16;
        let mut rng = fastrand::Rng::with_seed(0x1234_5678);
        let mut rnd = move || rng.f32();
        let mut r32 = vec![0u32; 40 * n];
        for l in 0..n {
            let mut set = |r: usize, v: u32| r32[r * n + l] = v;
            for c in 0..4 {
                set(c, (rnd() * 3.0 - 1.0).to_bits());
            }
            set(4, (rnd() * 6.0 - 2.0).to_bits());
            set(5, (rnd() * 1.5 + 0.5).to_bits());
            set(6, rnd().to_bits());
            set(7, (rnd() * 3.0).to_bits());
            set(8, ((rnd() * 16.0) as i32 - 8) as u32);
            set(9, ((rnd() * 16.0) as i32 - 8) as u32);
            set(10, (rnd() < 0.3) as u32);
            for g in 11..15 {
                set(g, (rnd() * 0.4 - 0.2).to_bits());
            }
        }
        let slots: Vec<(bool, u32)> = (0..40).map(|r| (false, r)).collect();
        let helper = vec![false; n];
        let masks: [[u32; 16]; 3] = [
            [!0; 16],
            std::array::from_fn(|l| if l / 4 == 2 || l % 3 == 0 { 0 } else { !0 }),
            std::array::from_fn(|l| if l == 5 || l == 14 { !0 } else { 0 }),
        ];
        let mut insts = [
            sample(0, None, vec![0, 1], Lod::Implicit { bias: None }),
            sample(0, Some(10), vec![0, 1], Lod::Implicit { bias: Some(4) }),
            sample(0, Some(10), vec![0, 1], Lod::Explicit(4)),
            sample(0, None, vec![0, 1], Lod::None),
            sample(
                0,
                None,
                vec![0, 1],
                Lod::Grad {
                    dx: vec![11, 12],
                    dy: vec![13],
                },
            ),
            sample(
                1,
                None,
                vec![2, 3],
                Lod::Grad {
                    dx: vec![11, 12],
                    dy: vec![13, 14],
                },
            ),
            sample(1, None, vec![0, 1], Lod::Implicit { bias: None }),
            // no descriptor index or other operands: `Kernel::sample_batch` (`sample_wide`)
            // with a bias row, an explicit LOD row and no LOD operand
            sample(0, None, vec![0, 1], Lod::Implicit { bias: Some(4) }),
            sample(0, None, vec![0, 1], Lod::Explicit(4)),
            sample(0, None, vec![0, 1], Lod::None),
            // with a Dref row (the shadow sampler): `sample_wide` too
            sample(1, None, vec![0, 1], Lod::Implicit { bias: None }),
            sample(1, None, vec![2, 3], Lod::Explicit(4)),
        ];
        insts[1].offset = vec![8, 9];
        insts[1].min_lod = Some(7);
        insts[2].proj = Some(5);
        insts[3].offset = vec![8];
        insts[5].dref = Some(6);
        insts[6].dref = Some(6);
        insts[6].proj = Some(5);
        insts[10].dref = Some(6);
        insts[11].dref = Some(6);
        for (i, inst) in insts.iter().enumerate() {
            for (m, active) in masks.iter().enumerate() {
                let ops = BatchOperands {
                    n,
                    slots: &slots,
                    r32: &r32,
                    active,
                    helper: &helper,
                    full: m == 0,
                };
                // `out` is not cleared before a call: start from poison
                let mut got = vec![[0xdead_beef_u32; 4]; n];
                let mut want = vec![[0u32; 4]; n];
                images.image_batch(inst, &ops, &mut got).unwrap();
                // arguments updated in place from quad to quad (any order) are the ones
                // built from scratch
                let rows = SampleRows::new(inst, &ops);
                let mut args = rows.sample_args(1, 0xf);
                for q in [0, 3, 2, 2, 1, 0] {
                    let mask = ops.quad_mask(q);
                    rows.update_args(q, mask, &mut args);
                    assert_eq!(
                        format!("{args:?}"),
                        format!("{:?}", rows.sample_args(q, mask)),
                        "instruction {i} mask {m} quad {q}"
                    );
                }
                image_per_quad(&images, inst, &ops, &mut want).unwrap();
                for l in 0..n {
                    if active[l] != 0 {
                        assert_eq!(got[l], want[l], "instruction {i} mask {m} lane {l}");
                    }
                }
                // the comparison is not vacuous: the full batch samples something
                if m == 0 {
                    assert!(
                        got.iter().filter(|v| v[0] != 0).count() >= n / 2,
                        "instruction {i}"
                    );
                }
            }
        }
    }

    #[test]
    fn batch_gathers_match_the_per_quad_path() {
        // gathers through `ShaderImages::gather_batch` (`Kernel::gather_batch`) against the
        // per-quad path, over components (per quad, read from lane 0), `ConstOffsets`, offset
        // rows, Dref, a descriptor index (per quad) and partial masks
        let shader = frag_shader(vec![resource(0, 2, false), resource(1, 1, true)]);
        let arr = [
            combined(checker(0), sampler(Filter::Linear, AddressMode::Repeat)),
            combined(
                checker(5),
                sampler(Filter::Nearest, AddressMode::ClampToBorder),
            ),
        ];
        let cmp = Sampler {
            compare_enable: true,
            compare_op: CompareOp::LessOrEqual,
            ..sampler(Filter::Linear, AddressMode::MirroredRepeat)
        };
        let shadow = [combined(depth(), cmp)];
        let images = ShaderImages::new(
            &shader,
            |r| {
                Some(if r.binding == 0 {
                    &arr[..]
                } else {
                    &shadow[..]
                })
            },
            Config::default(),
        )
        .unwrap();
        // r0-r1 coordinates, r6 dref, r8-r9 offsets, r10 descriptor index, r15 component
        let n = 32;
        let mut rng = fastrand::Rng::with_seed(0x9abc_def1);
        let mut rnd = move || rng.f32();
        let mut r32 = vec![0u32; 40 * n];
        for l in 0..n {
            let mut set = |r: usize, v: u32| r32[r * n + l] = v;
            set(0, (rnd() * 3.0 - 1.0).to_bits());
            set(1, (rnd() * 3.0 - 1.0).to_bits());
            set(6, rnd().to_bits());
            set(8, ((rnd() * 16.0) as i32 - 8) as u32);
            set(9, ((rnd() * 16.0) as i32 - 8) as u32);
            set(10, (rnd() < 0.3) as u32);
            set(15, ((l / 4 + l % 4) % 4) as u32);
        }
        let slots: Vec<(bool, u32)> = (0..40).map(|r| (false, r)).collect();
        let helper = vec![false; n];
        let masks: [[u32; 32]; 3] = [
            [!0; 32],
            std::array::from_fn(|l| if l / 4 == 2 || l % 3 == 0 { 0 } else { !0 }),
            std::array::from_fn(|l| if l == 5 || l == 30 { !0 } else { 0 }),
        ];
        let gather = |slot: u32, index: Option<Reg>| ImageInst {
            kind: ImageOpKind::Gather,
            lod: Lod::None,
            component: Some(15),
            ..sample(slot, index, vec![0, 1], Lod::None)
        };
        let mut insts = vec![
            gather(0, None),
            gather(0, None),
            gather(0, None),
            gather(0, Some(10)),
            gather(1, None),
            gather(1, None),
        ];
        insts[1].offset = vec![8, 9];
        insts[2].offsets4 = Some([[0, 1], [-3, 2], [1, 0], [7, -8]]);
        insts[3].offset = vec![8];
        insts[4].dref = Some(6);
        insts[5].dref = Some(6);
        insts[5].offset = vec![8, 9];
        let no_component = ImageInst {
            component: None,
            ..gather(0, None)
        };
        insts.push(no_component);
        for (i, inst) in insts.iter().enumerate() {
            for (m, active) in masks.iter().enumerate() {
                let ops = BatchOperands {
                    n,
                    slots: &slots,
                    r32: &r32,
                    active,
                    helper: &helper,
                    full: m == 0,
                };
                let mut got = vec![[0u32; 4]; n];
                let mut want = vec![[0u32; 4]; n];
                images.image_batch(inst, &ops, &mut got).unwrap();
                image_per_quad(&images, inst, &ops, &mut want).unwrap();
                assert_eq!(got, want, "instruction {i} mask {m}");
                // `out` is not cleared before a call: from poison, the active lanes the same
                let mut poisoned = vec![[0xdead_beef_u32; 4]; n];
                images.image_batch(inst, &ops, &mut poisoned).unwrap();
                for l in (0..n).filter(|&l| active[l] != 0) {
                    assert_eq!(poisoned[l], want[l], "instruction {i} mask {m} lane {l}");
                }
                if m == 0 {
                    assert!(
                        got.iter().filter(|v| v.iter().any(|&c| c != 0)).count() >= n / 2,
                        "instruction {i}"
                    );
                }
            }
        }
        // a component out of range is an error, as per quad
        let mut bad = r32.clone();
        bad[15 * n + 8] = 4;
        let ops = BatchOperands {
            n,
            slots: &slots,
            r32: &bad,
            active: &masks[0],
            helper: &helper,
            full: true,
        };
        let mut got = vec![[0u32; 4]; n];
        assert!(images.image_batch(&insts[0], &ops, &mut got).is_err());
        assert!(image_per_quad(&images, &insts[0], &ops, &mut got).is_err());
    }

    #[test]
    fn a_host_write_after_the_bind_is_seen_and_the_snapshot_is_never_changed() {
        // a sampled binding reads its bind-time snapshot without the lock; a write to the
        // image must still be seen by the next sample, and must not change the snapshot
        let shader = frag_shader(vec![resource(0, 1, false)]);
        let img = Image::new_2d(Format::R32G32B32A32_SFLOAT, 2, 2, 1, 1).unwrap();
        let view = ImageView::whole(&img, ViewType::D2);
        let res = ImageResource::new(img);
        let first: Vec<[f32; 4]> = (0..4).map(|i| [i as f32, 0.25, 0.5, 1.0]).collect();
        res.write().upload_f32(0, &first).unwrap();
        let descs = [Descriptor::CombinedImageSampler {
            image: res.clone(),
            view,
            sampler: sampler(Filter::Nearest, AddressMode::ClampToEdge),
        }];
        let images = ShaderImages::new(&shader, |_| Some(&descs[..]), Config::default()).unwrap();
        // one quad, every lane at texel (1, 0)'s centre: (0.75, 0.25)
        let n = 4;
        let mut r32 = vec![0u32; 40 * n];
        for l in 0..n {
            r32[l] = 0.75f32.to_bits();
            r32[n + l] = 0.25f32.to_bits();
        }
        let slots: Vec<(bool, u32)> = (0..40).map(|r| (false, r)).collect();
        let (helper, active) = (vec![false; n], vec![!0u32; n]);
        let ops = BatchOperands {
            n,
            slots: &slots,
            r32: &r32,
            active: &active,
            helper: &helper,
            full: true,
        };
        let inst = sample(0, None, vec![0, 1], Lod::None);
        let red = |images: &ShaderImages| {
            let mut got = vec![[0u32; 4]; n];
            images.image_batch(&inst, &ops, &mut got).unwrap();
            got.iter().map(|v| f32::from_bits(v[0])).collect::<Vec<_>>()
        };
        assert_eq!(red(&images), [1.0; 4], "texel (1, 0) as uploaded");
        let (_, before) = res.snapshot();
        let second: Vec<[f32; 4]> = (0..4).map(|i| [10.0 + i as f32, 0.0, 0.0, 1.0]).collect();
        res.write().upload_f32(0, &second).unwrap();
        assert_eq!(
            red(&images),
            [11.0; 4],
            "the write is seen through the same binding"
        );
        let (_, after) = res.snapshot();
        assert_eq!(before.read_texel_f32(0, 0, [1, 0, 0]).unwrap()[0], 1.0);
        assert_eq!(after.read_texel_f32(0, 0, [1, 0, 0]).unwrap()[0], 11.0);
    }
}
