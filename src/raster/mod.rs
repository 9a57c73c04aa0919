//! The graphics pipeline: from vertex fetch to blended pixels, modelled on llvmpipe.
//!
//! `raster` owns the pipeline state and the draw: vertex fetch (`fetch`), vertex shading in
//! batches, primitive assembly (`assemble`), clipping (`clip`), fixed-point setup with the
//! top-left rule (`setup`), 64x64 tile bins shaded in parallel with rayon, in place in the
//! attachments, walked in 8x8 blocks with trivial accept/reject (`tile`), 2x2 quads with
//! helper lanes batched (64 quads) into the fragment stage, and the per-fragment operations
//! (`output`). It knows nothing of how shaders are encoded: it talks to them through the stage
//! traits ([`VertexStage`], [`FragmentStage`] and the optional tessellation and geometry
//! stages), which the interpreter glue implements (tests use closures, [`VertexFn`] and
//! [`FragmentFn`]). Attachments are read and written through the crate's format table
//! (`target`).
//!
//! Shape: a [`Rasterizer`] owns the thread pool; [`Rasterizer::begin`] opens a [`RenderPass`]
//! on some [`RenderTargets`]; the pass takes Vulkan-like binds and `draw` / `draw_indexed`
//! calls; its clears are recorded and written by the next draw's tiles (see `tile`), or
//! when the attachments are read back or the pass ends. The result is byte-identical at any
//! thread count: vertex batches and geometry are
//! gathered in order, tiles own disjoint pixels and keep primitives in submission order.
//! Fragment inputs are interpolated in f64 from per-primitive planes (one reciprocal per lane
//! and mode, planes stepped only within a quad): depth must hold 1e-6 (tests/raster_ops.rs),
//! and in the profile the f64 arithmetic is a small share next to the batch bookkeeping.
//! Fully covered quads are written, depth-tested and batched whole, and each pool thread keeps
//! one tile shader and pulls tiles most expensive first, after parallel binning and
//! vertex-output merging (`tile`).
//!
//! ```
//! use quadstep::raster::*;
//!
//! // A vertex stage that makes a triangle from VertexIndex, and a constant-colour fragment stage.
//! let vs = VertexFn {
//!     varyings: 0,
//!     f: |i: &VertexBatch, o: &mut VertexOutputs| {
//!         for (v, &idx) in i.vertex_index.iter().enumerate() {
//!             o.position[v] = [[-1.0, -1.0, 0.5, 1.0], [3.0, -1.0, 0.5, 1.0], [-1.0, 3.0, 0.5, 1.0]]
//!                 [idx as usize % 3];
//!         }
//!         Ok(())
//!     },
//! };
//! let fs = FragmentFn {
//!     interpolation: vec![],
//!     writes_depth: false,
//!     can_discard: false,
//!     f: |_: &QuadBatch, o: &mut QuadOutputs| {
//!         o.color[0].iter_mut().for_each(|c| *c = [1.0f32, 0.5, 0.0, 1.0].map(f32::to_bits));
//!         Ok(())
//!     },
//! };
//! let pipeline = Pipeline {
//!     state: PipelineState::default(),
//!     vertex: &vs,
//!     fragment: &fs,
//!     stages: Default::default(),
//! };
//! let mut targets = RenderTargets {
//!     color: vec![ColorTarget::new(Format::R8G8B8A8_UNORM, 16, 16)],
//!     depth_stencil: None,
//! };
//! let raster = Rasterizer::new(2)?;
//! let mut pass = raster.begin(&mut targets);
//! pass.bind_pipeline(&pipeline);
//! pass.draw(3, 1, 0, 0)?;
//! drop(pass); // the end of the pass
//! assert_eq!(targets.color[0].data[..4], [255, 128, 0, 255]);
//! # Ok::<(), quadstep::Error>(())
//! ```

mod assemble;
mod blend_rows;
mod clip;
mod fetch;
mod geometry;
mod output;
mod samples;
mod setup;
mod stages;
mod state;
mod target;
#[doc(hidden)]
pub mod tessellator;
mod tile;

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use rayon::ThreadPool;

pub use crate::format::Format;
pub use crate::stage::{
    AttributeStream, Domain, DomainBatch, Emitted, FragInputs, FragmentFn, FragmentStage,
    GeometryEvent, GeometryModes, GeometryOutput, GeometryStage, InterpPlanes, Interpolation,
    PatchBatch, Patches, PrimitiveBatch, QuadBatch, QuadOutputs, RowBatch, RowLayout, SampleUse,
    Sampling, Spacing, TessControlStage, TessEvalStage, TessModes, VertexBatch, VertexFn,
    VertexOutputs, VertexStage, Vertices, QUAD_BATCH, VERTEX_BATCH,
};
pub use assemble::{IndexBuffer, IndexType};
pub use fetch::{vertex_attribute, VertexBuffer};
pub use state::*;
pub use target::{
    color_attachment, depth_attachment, ClearColor, ColorClass, ColorTarget, DepthAspect,
    DepthStencilTarget,
};

use crate::limits::{Guards, Limit, Limits};
use crate::{Error, Result};
use assemble::Stream;
use setup::PixRect;

/// The attachments of a render pass; all must have the same size.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RenderTargets {
    pub color: Vec<ColorTarget>,
    pub depth_stencil: Option<DepthStencilTarget>,
}

impl RenderTargets {
    /// The common size of the attachments.
    pub fn size(&self) -> Result<(u32, u32)> {
        let mut sizes = self
            .color
            .iter()
            .map(|c| (c.width, c.height))
            .chain(self.depth_stencil.iter().map(|d| (d.width, d.height)));
        let first = sizes.next().ok_or_else(|| {
            Error::Pipeline("raster: a render pass needs at least one attachment".into())
        })?;
        if let Some(other) = sizes.find(|s| *s != first) {
            return Err(Error::Pipeline(format!(
                "raster: attachments differ in size ({}x{} and {}x{})",
                first.0, first.1, other.0, other.1
            )));
        }
        Ok(first)
    }
}

/// A graphics pipeline: fixed-function state plus the shader stages.
pub struct Pipeline<'a> {
    pub state: PipelineState,
    pub vertex: &'a dyn VertexStage,
    pub fragment: &'a dyn FragmentStage,
    /// Tessellation and geometry shaders, if any.
    pub stages: Stages<'a>,
}

/// The optional stages between vertex shading and rasterization (`Default`: none). With
/// tessellation the pipeline's topology must be `PatchList`; a geometry shader's input
/// primitive must be what the topology (or the tessellator) makes.
#[derive(Clone, Copy, Default)]
pub struct Stages<'a> {
    /// Tessellation control and evaluation: both or neither.
    pub tessellation: Option<(&'a dyn TessControlStage, &'a dyn TessEvalStage)>,
    pub geometry: Option<&'a dyn GeometryStage>,
}

impl Stages<'_> {
    /// Whether there are any.
    pub fn any(&self) -> bool {
        self.tessellation.is_some() || self.geometry.is_some()
    }
}

/// Owns the worker threads draws run on, and the guards draws run under.
#[derive(Clone)]
pub struct Rasterizer {
    pool: Arc<ThreadPool>,
    /// The last draw's primitive chunks and vertex arrays, reused by the next
    /// (`geometry::Spare`).
    spare: Arc<Mutex<geometry::Spare>>,
    /// Limits on framebuffers, vertex input and draw sizes; the budget a draw's vertex and
    /// primitive arrays are charged to; the token polled between vertex batches and tiles.
    guards: Guards,
}

/// Most bytes of buffers a rasterizer keeps between draws.
const SPARE_BYTES: usize = 64 << 20;

impl Rasterizer {
    /// A rasterizer with its own pool of `threads` workers (0 = rayon's default).
    pub fn new(threads: usize) -> Result<Self> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| Error::Pipeline(format!("raster: cannot start {threads} threads: {e}")))?;
        Ok(Rasterizer::with_pool(Arc::new(pool)))
    }

    /// A rasterizer on an existing pool.
    pub fn with_pool(pool: Arc<ThreadPool>) -> Self {
        Rasterizer {
            pool,
            spare: Arc::default(),
            guards: Guards::default(),
        }
    }

    /// Draws check their sizes against `guards.limits`, charge their vertex and primitive
    /// arrays to `guards.memory`, and stop soon after `guards.cancel` is stopped.
    pub fn set_guards(&mut self, guards: Guards) {
        self.guards = guards;
    }

    /// The guards draws run under ([`Guards::default`] unless set).
    pub fn guards(&self) -> &Guards {
        &self.guards
    }

    fn spare_lock(&self) -> MutexGuard<'_, geometry::Spare> {
        // plain buffers: a holder that panicked left nothing half-made behind
        self.spare.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Number of worker threads.
    pub fn threads(&self) -> usize {
        self.pool.current_num_threads()
    }

    /// Start recording draws into `targets`.
    pub fn begin<'a>(&'a self, targets: &'a mut RenderTargets) -> RenderPass<'a> {
        RenderPass {
            raster: self,
            targets,
            pipeline: None,
            vertex_buffers: Vec::new(),
            index_buffer: None,
            pending: Clears::default(),
            last_times: None,
        }
    }
}

/// The render pass's clears not yet written: per colour attachment and for depth and stencil,
/// the value every texel is to hold. The next draw's tile pass writes them, each tile its own
/// rectangle just before shading it (llvmpipe's clear bin command), so a 1024x1024 frame's
/// 4 MiB attachments are written once, from cache, rather than filled in memory and read back.
#[derive(Debug, Default)]
pub(crate) struct Clears {
    /// `color[attachment]` (shorter than the attachment list when the last ones have none).
    pub color: Vec<Option<target::TexelFill>>,
    pub depth: Option<target::TexelFill>,
    pub stencil: Option<target::TexelFill>,
}

impl Clears {
    pub fn is_empty(&self) -> bool {
        self.color.iter().all(Option::is_none) && self.depth.is_none() && self.stencil.is_none()
    }
}

/// Draws into a set of render targets (like a command buffer inside a render pass, executed
/// immediately).
pub struct RenderPass<'a> {
    raster: &'a Rasterizer,
    targets: &'a mut RenderTargets,
    pipeline: Option<&'a Pipeline<'a>>,
    vertex_buffers: Vec<VertexBuffer<'a>>,
    index_buffer: Option<IndexBuffer<'a>>,
    /// Clears recorded and not yet written (see [`Clears`]); every way to observe the
    /// attachments writes them first: [`RenderPass::targets`], the end of the pass (`Drop`).
    pending: Clears,
    last_times: Option<DrawTimes>,
}

/// Wall time of each phase of a draw, for finding where a frame's time goes (what
/// `GALLIUM_HUD` shows for llvmpipe) and how each phase scales with threads. The phases run
/// one after the other; each is parallel inside except where noted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DrawTimes {
    /// Vertex fetch and shading in batches (primitive assembly, serial, runs beside them).
    /// Point, line and triangle lists drawn once without restart are shaded and set up in
    /// one pass, all of it counted here (and `setup` is zero).
    pub vertex: Duration,
    /// Clipping, the perspective divide, viewport transform, culling, primitive setup.
    pub setup: Duration,
    /// Binning primitives into tiles, beside cutting the attachments into tiles (serial).
    pub bin: Duration,
    /// The tiles: pending clears, coverage, early tests, fragment stage, late tests, blend.
    pub tiles: Duration,
}

impl Drop for RenderPass<'_> {
    /// The end of the pass: clears no draw has written yet are written now.
    fn drop(&mut self) {
        self.apply_clears();
    }
}

impl<'a> RenderPass<'a> {
    /// `vkCmdBindPipeline`.
    pub fn bind_pipeline(&mut self, pipeline: &'a Pipeline<'a>) {
        self.pipeline = Some(pipeline);
    }

    /// `vkCmdBindVertexBuffers`: each buffer replaces any buffer at its binding.
    pub fn bind_vertex_buffers(&mut self, buffers: &[VertexBuffer<'a>]) {
        for b in buffers {
            self.vertex_buffers.retain(|o| o.binding != b.binding);
            self.vertex_buffers.push(*b);
        }
    }

    /// `vkCmdBindIndexBuffer`.
    pub fn bind_index_buffer(&mut self, buffer: IndexBuffer<'a>) {
        self.index_buffer = Some(buffer);
    }

    /// The attachments (for reading back between draws), with every clear recorded so far
    /// written (hence `&mut self`).
    pub fn targets(&mut self) -> &RenderTargets {
        self.apply_clears();
        self.targets
    }

    /// A render pass's `loadOp = CLEAR` (or `vkCmdClearAttachments` over the whole area) of
    /// colour attachment `index`. Recorded, not written: the next draw's tiles write it (see
    /// `Clears`), or the end of the pass or [`RenderPass::targets`] does; a later clear of
    /// the attachment replaces it. The result is that of filling the attachment now.
    pub fn clear_color(&mut self, index: usize, value: ClearColor) -> Result<()> {
        let n = self.targets.color.len();
        let c = self.targets.color.get(index).ok_or_else(|| {
            Error::Pipeline(format!(
                "raster: clear_color: no colour attachment {index} (the pass has {n})"
            ))
        })?;
        let fill = target::TexelFill::new(&c.clear_texel(value));
        if self.pending.color.len() <= index {
            self.pending.color.resize(index + 1, None);
        }
        self.pending.color[index] = Some(fill);
        Ok(())
    }

    /// The same for the depth/stencil attachment: depth quantized to its format, and the
    /// stencil value where the format has stencil.
    pub fn clear_depth_stencil(&mut self, depth: f32, stencil: u8) -> Result<()> {
        let ds = self.targets.depth_stencil.as_ref().ok_or_else(|| {
            Error::Pipeline(
                "raster: clear_depth_stencil: the pass has no depth/stencil attachment".into(),
            )
        })?;
        if ds.format.depth_bytes() > 0 {
            self.pending.depth = Some(target::TexelFill::new(&ds.depth_texel(depth)));
        }
        if !ds.stencil.is_empty() {
            self.pending.stencil = Some(target::TexelFill::new(&[stencil]));
        }
        Ok(())
    }

    /// Write the pending clears over whole attachments, in bands of tile rows on the pool's
    /// threads (a clear observed before any draw wrote it).
    fn apply_clears(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let clears = std::mem::take(&mut self.pending);
        let pool = &self.raster.pool;
        let rows = tile::TILE as usize;
        for (c, fill) in self.targets.color.iter_mut().zip(&clears.color) {
            if let Some(fill) = fill {
                let band = c.row_pitch() * rows;
                target::fill_texels_parallel(pool, &mut c.data, fill, band);
            }
        }
        if let Some(ds) = &mut self.targets.depth_stencil {
            let band = ds.width as usize * ds.samples as usize * rows;
            if let Some(fill) = &clears.depth {
                let band = band * ds.format.depth_bytes();
                target::fill_texels_parallel(pool, &mut ds.depth, fill, band);
            }
            if let Some(fill) = &clears.stencil {
                target::fill_texels_parallel(pool, &mut ds.stencil, fill, band);
            }
        }
    }

    /// The phase times of the last draw of this pass that succeeded (`None` before one, or
    /// when the last one failed). A draw that ends early (rasterizer discard, nothing
    /// visible) has zero times for the phases it skipped.
    pub fn last_draw_times(&self) -> Option<DrawTimes> {
        self.last_times
    }

    /// `vkCmdDraw`.
    pub fn draw(
        &mut self,
        vertex_count: u32,
        instance_count: u32,
        first_vertex: u32,
        first_instance: u32,
    ) -> Result<()> {
        // (checked before the stream of vertex indices is built, which holds one per vertex)
        check_invocations(
            &self.raster.guards.limits,
            vertex_count as u64,
            instance_count,
        )?;
        let stream = assemble::linear_stream(first_vertex, vertex_count);
        self.run(&stream, first_instance, instance_count)
    }

    /// `vkCmdDrawIndexed`; primitive restart follows the pipeline's `primitive_restart`.
    pub fn draw_indexed(
        &mut self,
        index_count: u32,
        instance_count: u32,
        first_index: u32,
        vertex_offset: i32,
        first_instance: u32,
    ) -> Result<()> {
        let pipeline = self.pipeline.ok_or_else(no_pipeline)?;
        let ib = self.index_buffer.ok_or_else(|| {
            Error::Pipeline("raster: draw_indexed without a bound index buffer".into())
        })?;
        let stream = assemble::indexed_stream(
            &ib,
            first_index,
            index_count,
            vertex_offset,
            pipeline.state.primitive_restart,
        )?;
        self.run(&stream, first_instance, instance_count)
    }

    /// The draw, all of it inside the pool. Its parallel phases (vertex batches, their
    /// merge, setup, binning, tiles) are fork-joins; entered from outside the pool, each one
    /// first waited for a sleeping worker to wake (an empty `install` there took 35-85 µs, five
    /// a draw). Inside, the thread that runs the serial parts is a worker and goes straight on:
    /// the vertex phase of 10 000 small triangles went from ~1.5 to ~1.3 ms at one thread.
    fn run(&mut self, stream: &Stream, first_instance: u32, instance_count: u32) -> Result<()> {
        let raster = self.raster;
        self.last_times = None;
        let times = raster
            .pool
            .install(|| self.run_in_pool(stream, first_instance, instance_count))?;
        self.last_times = Some(times);
        Ok(())
    }

    fn run_in_pool(
        &mut self,
        stream: &Stream,
        first_instance: u32,
        instance_count: u32,
    ) -> Result<DrawTimes> {
        let start = Instant::now();
        let mut times = DrawTimes::default();
        let pipeline = self.pipeline.ok_or_else(no_pipeline)?;
        let state = &pipeline.state;
        let guards = &self.raster.guards;
        validate(state, self.targets, &guards.limits)?;
        if instance_count == 0 || stream.vertex_index.is_empty() {
            return Ok(times);
        }
        let slots = check_invocations(
            &guards.limits,
            stream.vertex_index.len() as u64,
            instance_count,
        )?;
        let n_vary = pipeline.vertex.varying_count();
        let _arrays = guards.memory.charge(
            geometry::draw_bytes(slots, n_vary, state.topology),
            "the draw's vertex and primitive arrays",
        )?;
        let (w, h) = self.targets.size()?;
        let pool = &self.raster.pool;
        let viewport = state.viewport.unwrap_or_else(|| Viewport::full(w, h));
        let clip_rect = clip_rect(state, &viewport, w, h);
        let ctx = clip_rect.map(|clip| geometry::GeomCtx {
            state,
            viewport,
            planes: clip::PlaneSet::viewport(&viewport, state.rasterization.depth_clamp),
            setup: setup::SetupCtx {
                clip,
                depth_bias: state.rasterization.depth_bias,
                depth_unorm_bits: self
                    .targets
                    .depth_stencil
                    .as_ref()
                    .and_then(|d| d.format.unorm_bits()),
                multisample: state.samples > 1,
            },
        });
        let instances = (first_instance, instance_count);
        let work = geometry::VertexWork {
            state,
            vs: pipeline.vertex,
            buffers: &self.vertex_buffers,
            stream,
            instances,
            cancel: &guards.cancel,
        };
        let fused = ctx.as_ref().filter(|_| {
            !state.rasterization.rasterizer_discard
                && !pipeline.stages.any()
                && geometry::fusable(state.topology, stream, instances)
        });
        let spare = std::mem::take(&mut *self.raster.spare_lock());
        let (shaded, prims, boxes) = if let Some(ctx) = fused {
            // vertex shading and setup in one pass (`geometry::shade_and_set_up`)
            let (shaded, (prims, boxes)) = geometry::shade_and_set_up(pool, ctx, &work, spare)?;
            times.vertex = start.elapsed();
            (shaded, prims, boxes)
        } else {
            let (shaded, assembled) = if pipeline.stages.any() {
                // tessellation and geometry shading make the primitives (`stages`)
                let shaded = geometry::shade_vertices(pool, &work, spare.vertices)?;
                let (topology, patch) = (state.topology, state.patch_control_points);
                let stages = &pipeline.stages;
                stages::run(
                    pool,
                    stages,
                    topology,
                    patch,
                    stream,
                    instance_count,
                    shaded,
                )?
            } else {
                if state.topology == Topology::PatchList {
                    return Err(Error::Pipeline(
                        "raster: a patch list draw without tessellation shaders".into(),
                    ));
                }
                // primitive assembly (serial) runs beside the vertex batches
                let (shaded, assembled) = rayon::join(
                    || geometry::shade_vertices(pool, &work, spare.vertices),
                    || geometry::assemble_all(state.topology, stream, instance_count),
                );
                (shaded?, assembled)
            };
            let shaded_at = Instant::now();
            times.vertex = shaded_at - start;
            let Some(ctx) = ctx
                .as_ref()
                .filter(|_| !state.rasterization.rasterizer_discard)
            else {
                return Ok(times);
            };
            let view = shaded.view();
            let (prims, boxes): geometry::SetUp = pool.install(|| {
                let chunks = assembled.len().div_ceil(geometry::SETUP_CHUNK);
                assembled
                    .par_chunks(geometry::SETUP_CHUNK)
                    .zip(geometry::spare_chunks(spare.chunks, chunks))
                    .map(|(chunk, bufs)| geometry::set_up_chunk(ctx, &view, chunk, bufs))
                    .unzip()
            });
            times.setup = shaded_at.elapsed();
            (shaded, prims, boxes)
        };
        // Kept as chunks: no copy into one array on the calling thread.
        let prims = tile::Prims::with_boxes(prims, boxes);
        let set_up = Instant::now();
        let (lo, hi) = (viewport.min_depth, viewport.max_depth);
        let scene = tile::Scene {
            prims: &prims,
            varyings: &shaded.varyings,
            n_vary: shaded.n_vary,
            state,
            fs: pipeline.fragment,
            depth_clamp: state
                .rasterization
                .depth_clamp
                .then_some((lo.min(hi), lo.max(hi))),
            cancel: &guards.cancel,
        };
        // the tile pass writes the pending clears, every tile its own (even when the draw
        // fails: every tile is still taken)
        let clears = std::mem::take(&mut self.pending);
        let mut binned = set_up;
        let drawn = tile::render(pool, &scene, &clears, self.targets, &mut binned);
        times.bin = binned - set_up;
        times.tiles = binned.elapsed();
        let spare = geometry::Spare {
            chunks: prims.into_chunks(),
            vertices: shaded,
        };
        if spare.bytes() <= SPARE_BYTES {
            *self.raster.spare_lock() = spare;
        }
        drawn.map(|()| times)
    }
}

/// Hold a draw's vertex shader invocations (vertices times instances) to the limits; the
/// count, when it passes.
fn check_invocations(limits: &Limits, vertices: u64, instances: u32) -> Result<u64> {
    let slots = vertices * instances as u64;
    limits.check(
        Limit::MaxDrawVertices,
        slots,
        "vertex shader invocations of the draw (vertices times instances)",
    )?;
    Ok(slots)
}

fn no_pipeline() -> Error {
    Error::Pipeline("raster: draw without a bound pipeline".into())
}

/// Reject state the rasterizer does not implement, with the reason, and sizes above the
/// limits.
fn validate(state: &PipelineState, targets: &RenderTargets, limits: &Limits) -> Result<()> {
    let (w, h) = targets.size()?;
    limits.check_framebuffer(w, h, targets.color.len())?;
    limits.check(
        Limit::MaxVertexInputBindings,
        state.vertex_bindings.len() as u64,
        "vertex buffer bindings",
    )?;
    limits.check(
        Limit::MaxVertexInputAttributes,
        state.vertex_attributes.len() as u64,
        "vertex attributes",
    )?;
    for b in &state.vertex_bindings {
        limits.check(
            Limit::MaxVertexInputBindingStride,
            b.stride as u64,
            format_args!("the stride of vertex binding {}", b.binding),
        )?;
    }
    for a in &state.vertex_attributes {
        limits.check_index(
            Limit::MaxVertexInputAttributes,
            a.location as u64,
            "the location of a vertex attribute",
        )?;
        limits.check(
            Limit::MaxVertexInputAttributeOffset,
            a.offset as u64,
            format_args!("the offset of vertex attribute {}", a.location),
        )?;
    }
    let n = state.samples;
    if !crate::stage::sample_locations::supported(n) {
        return Err(Error::Unsupported(format!(
            "multisampling: rasterizationSamples = {n} (1, 2, 4, 8 and 16 are implemented)"
        )));
    }
    for (i, c) in targets.color.iter().enumerate() {
        if c.samples != n {
            return Err(Error::Pipeline(format!(
                "raster: colour attachment {i} has {} samples, the pipeline rasterizes {n}",
                c.samples
            )));
        }
        let want = c.height as usize * c.row_pitch();
        if c.data.len() != want {
            return Err(Error::Pipeline(format!(
                "raster: colour attachment {i} holds {} bytes, {}x{} {:?} with {n} samples \
                 needs {want}",
                c.data.len(),
                c.width,
                c.height,
                c.format
            )));
        }
    }
    if let Some(d) = &targets.depth_stencil {
        if d.samples != n {
            return Err(Error::Pipeline(format!(
                "raster: the depth/stencil attachment has {} samples, the pipeline \
                 rasterizes {n}",
                d.samples
            )));
        }
        let texels = d.width as usize * d.height as usize * n as usize;
        let s = if d.format.has_stencil() { texels } else { 0 };
        if d.depth.len() != texels * d.format.depth_bytes() || d.stencil.len() != s {
            return Err(Error::Pipeline(format!(
                "raster: depth/stencil attachment buffers do not match {}x{} {:?} with {n} \
                 samples",
                d.width, d.height, d.format
            )));
        }
    }
    Ok(())
}

/// Framebuffer intersected with the scissor and the viewport rectangle (pixel centres).
fn clip_rect(state: &PipelineState, vp: &Viewport, w: u32, h: u32) -> Option<PixRect> {
    let fb = PixRect {
        x0: 0,
        y0: 0,
        x1: w as i32 - 1,
        y1: h as i32 - 1,
    };
    let mut r = fb;
    if let Some(s) = state.scissor {
        let sx1 = s.x as i64 + s.width as i64 - 1;
        let sy1 = s.y as i64 + s.height as i64 - 1;
        if s.width == 0 || s.height == 0 {
            return None;
        }
        r = r.intersect(&PixRect {
            x0: s.x,
            y0: s.y,
            x1: sx1.min(i32::MAX as i64) as i32,
            y1: sy1.min(i32::MAX as i64) as i32,
        })?;
    }
    // Pixels whose centre lies in [a, b): ceil(a - 0.5) ..= ceil(b - 0.5) - 1.
    let span = |a: f32, len: f32| {
        let (a, b) = if len < 0.0 {
            (a + len, a)
        } else {
            (a, a + len)
        };
        let lo = (a as f64 - 0.5).ceil();
        let hi = (b as f64 - 0.5).ceil() - 1.0;
        (lo.clamp(-1e9, 1e9) as i32, hi.clamp(-1e9, 1e9) as i32)
    };
    let (x0, x1) = span(vp.x, vp.width);
    let (y0, y1) = span(vp.y, vp.height);
    r.intersect(&PixRect { x0, y0, x1, y1 })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a test frame does, in order.
    #[derive(Clone, Copy, Debug)]
    enum Op {
        Color(usize, ClearColor),
        DepthStencil(f32, u8),
        /// Triangles at depth `z` in colour `c` (inside the scissor `scissor`, if set): the
        /// fragment stage fails when `fail`.
        Draw {
            z: f32,
            c: f32,
            scissor: bool,
            fail: bool,
        },
        /// A draw whose vertex stage fails (nothing reaches the tiles).
        VertexFails,
        /// A draw whose triangles are all outside the framebuffer.
        Offscreen,
        /// Read the attachments back through the pass.
        Read,
    }

    /// Attachments: an RGBA8 and an RGBA32 uint colour attachment, and `ds` if any; odd sizes,
    /// so some tiles are partial and some no primitive touches.
    fn targets(ds: Option<Format>) -> RenderTargets {
        let (w, h) = (150, 97);
        let mut t = RenderTargets {
            color: vec![
                ColorTarget::new(Format::R8G8B8A8_UNORM, w, h),
                ColorTarget::new(Format::R32G32B32A32_UINT, w, h),
            ],
            depth_stencil: ds.map(|f| DepthStencilTarget::new(f, w, h)),
        };
        // something a clear must replace
        t.color[0]
            .data
            .iter_mut()
            .enumerate()
            .for_each(|(i, b)| *b = i as u8);
        t.color[1].data.fill(0xa5);
        if let Some(d) = &mut t.depth_stencil {
            d.clear(0.25, 0x33);
        }
        t
    }

    /// Run `ops` on `rt` with `threads` threads. `eager`: every clear is done by the targets'
    /// own fills (`ColorTarget::clear_f32` / `clear_raw`, `DepthStencilTarget::clear`) between
    /// passes, the reference; else by the pass's `clear_color` / `clear_depth_stencil` in one
    /// pass. Returns the attachments at every `Read` and the result of every draw.
    fn run(rt: &mut RenderTargets, ops: &[Op], threads: usize, eager: bool) -> Vec<String> {
        // every draw's stages and state, made before any pass (a pass borrows its pipeline)
        let stages: Vec<_> = ops
            .iter()
            .map(|&op| match op {
                Op::Draw {
                    z,
                    c,
                    scissor,
                    fail,
                } => Some(stages(z, c, scissor, fail, false, false)),
                Op::VertexFails => Some(stages(0.5, 0.0, false, false, true, false)),
                Op::Offscreen => Some(stages(0.5, 0.0, false, false, false, true)),
                _ => None,
            })
            .collect();
        let pipelines: Vec<Option<Pipeline>> = stages
            .iter()
            .map(|s| {
                s.as_ref().map(|(vs, fs, state)| Pipeline {
                    state: state.clone(),
                    vertex: vs,
                    fragment: fs,
                    stages: Default::default(),
                })
            })
            .collect();
        let mut log = Vec::new();
        let raster = Rasterizer::new(threads).unwrap();
        let is_clear = |o: &Op| matches!(o, Op::Color(..) | Op::DepthStencil(..));
        let mut ops = ops.iter().copied().zip(&pipelines).peekable();
        while ops.peek().is_some() {
            // the reference's clears, outside any pass
            while let Some((op, _)) = ops.next_if(|(o, _)| eager && is_clear(o)) {
                match op {
                    Op::Color(i, ClearColor::Float(f)) => rt.color[i].clear_f32(f),
                    Op::Color(i, ClearColor::Raw(r)) => rt.color[i].clear_raw(r),
                    Op::DepthStencil(d, s) => rt.depth_stencil.as_mut().unwrap().clear(d, s),
                    _ => unreachable!(),
                }
            }
            let mut pass = raster.begin(rt);
            while let Some((op, pipeline)) = ops.next_if(|(o, _)| !(eager && is_clear(o))) {
                match op {
                    Op::Color(i, v) => pass.clear_color(i, v).unwrap(),
                    Op::DepthStencil(d, s) => pass.clear_depth_stencil(d, s).unwrap(),
                    Op::Read => log.push(format!("{:?}", pass.targets())),
                    _ => {
                        pass.bind_pipeline(pipeline.as_ref().unwrap());
                        log.push(format!("{:?}", pass.draw(6, 1, 0, 0)));
                    }
                }
            }
        }
        log
    }

    /// A draw's stages and state: two triangles (`off`: moved off screen) at depths around
    /// `z`, colour `c` and the pixel position; the vertex stage fails when `vfail`, the
    /// fragment stage when `fail`; depth test less with writes, stencil increments (front)
    /// or inverts (back); a small scissor when `scissor`.
    fn stages(
        z: f32,
        c: f32,
        scissor: bool,
        fail: bool,
        vfail: bool,
        off: bool,
    ) -> (impl VertexStage, impl FragmentStage, PipelineState) {
        let tris: [[f32; 2]; 6] = [
            [-0.9, -0.95],
            [0.7, -0.6],
            [-0.2, 0.8],
            [0.9, 0.9],
            [0.1, 0.95],
            [0.95, -0.3],
        ];
        let vs = VertexFn {
            varyings: 0,
            f: move |i: &VertexBatch, o: &mut VertexOutputs| {
                if vfail {
                    return Err(Error::Exec("vertex".into()));
                }
                for (v, &idx) in i.vertex_index.iter().enumerate() {
                    let [x, y] = tris[idx as usize % 6];
                    let x = if off { x + 3.0 } else { x };
                    // the triangles' depths vary over them
                    o.position[v] = [x, y, z * (0.8 + 0.3 * x), 1.0];
                }
                Ok(())
            },
        };
        let fs = FragmentFn {
            interpolation: vec![],
            writes_depth: false,
            can_discard: false,
            f: move |b: &QuadBatch, o: &mut QuadOutputs| {
                if fail {
                    return Err(Error::Exec("fragment".into()));
                }
                for (l, fc) in b.frag_coord.iter().enumerate() {
                    o.color[0][l] = [c, fc[0] / 150.0, 0.5, 1.0].map(f32::to_bits);
                    o.color[1][l] = [fc[0] as u32, fc[1] as u32, c.to_bits(), 7];
                }
                Ok(())
            },
        };
        let state = PipelineState {
            depth_stencil: DepthStencilState {
                depth_test: true,
                depth_write: true,
                depth_compare: CompareOp::Less,
                stencil_test: true,
                front: StencilOpState {
                    pass_op: StencilOp::IncrementAndClamp,
                    ..Default::default()
                },
                back: StencilOpState {
                    pass_op: StencilOp::Invert,
                    ..Default::default()
                },
                ..Default::default()
            },
            scissor: scissor.then_some(Rect2D {
                x: 70,
                y: 10,
                width: 10,
                height: 20,
            }),
            ..Default::default()
        };
        (vs, fs, state)
    }

    #[test]
    fn a_draw_after_a_larger_one_equals_it_on_a_fresh_rasterizer() {
        // the larger draw leaves its primitive chunks and vertex arrays to the rasterizer
        // (`spare`); the next draw refills them, and must not see any of their old contents
        let (vs, fs, state) = stages(0.5, 0.25, false, false, false, false);
        let (vs2, fs2, _) = stages(0.3, 0.75, true, false, false, false);
        let big = Pipeline {
            state: state.clone(),
            vertex: &vs,
            fragment: &fs,
            stages: Default::default(),
        };
        let small = Pipeline {
            state: state.clone(),
            vertex: &vs2,
            fragment: &fs2,
            stages: Default::default(),
        };
        for threads in [1, 2, 8] {
            let raster = Rasterizer::new(threads).unwrap();
            let mut after = targets(Some(Format::D32_SFLOAT));
            let mut pass = raster.begin(&mut after);
            pass.clear_depth_stencil(1.0, 0).unwrap();
            pass.bind_pipeline(&big);
            pass.draw(3 * 256 * 3 + 6, 1, 0, 0).unwrap();
            drop(pass);
            assert_ne!(
                after,
                targets(Some(Format::D32_SFLOAT)),
                "the big draw wrote"
            );
            // a pass that clears everything and makes the small draw
            let small_pass = |raster: &Rasterizer, rt: &mut RenderTargets| {
                let mut pass = raster.begin(rt);
                pass.clear_color(0, ClearColor::Float([0.0; 4])).unwrap();
                pass.clear_color(1, ClearColor::Raw([9, 8, 7, 6])).unwrap();
                pass.clear_depth_stencil(1.0, 0).unwrap();
                pass.bind_pipeline(&small);
                pass.draw(6, 1, 0, 0).unwrap();
            };
            small_pass(&raster, &mut after);
            let mut fresh = targets(Some(Format::D32_SFLOAT));
            small_pass(&Rasterizer::new(threads).unwrap(), &mut fresh);
            assert_eq!(after, fresh, "{threads} threads");
        }
    }

    #[test]
    fn draw_times_cover_the_phases_each_draw_ran_and_fit_inside_the_call() {
        let mut rt = targets(Some(Format::D32_SFLOAT));
        let (vs, fs, state) = stages(0.5, 0.25, false, false, false, false);
        let ok = Pipeline {
            state: state.clone(),
            vertex: &vs,
            fragment: &fs,
            stages: Default::default(),
        };
        let (vs_bad, fs_bad, _) = stages(0.5, 0.25, false, false, true, false);
        let bad = Pipeline {
            state: state.clone(),
            vertex: &vs_bad,
            fragment: &fs_bad,
            stages: Default::default(),
        };
        let (vs_off, fs_off, _) = stages(0.5, 0.25, false, false, false, true);
        let discard = Pipeline {
            state: PipelineState {
                rasterization: RasterizationState {
                    rasterizer_discard: true,
                    ..Default::default()
                },
                ..state.clone()
            },
            vertex: &vs_off,
            fragment: &fs_off,
            stages: Default::default(),
        };
        for threads in [1, 2] {
            let raster = Rasterizer::new(threads).unwrap();
            let mut pass = raster.begin(&mut rt);
            assert_eq!(pass.last_draw_times(), None, "before any draw");
            pass.bind_pipeline(&ok);
            let t = std::time::Instant::now();
            pass.draw(6, 1, 0, 0).unwrap();
            let call = t.elapsed();
            let d = pass.last_draw_times().expect("times of the draw");
            // the phases run one after the other inside the call
            assert!(
                d.vertex + d.setup + d.bin + d.tiles <= call,
                "{d:?} in {call:?}"
            );
            assert!(d.tiles > Duration::ZERO, "{d:?}");
            // a failed draw has none
            pass.bind_pipeline(&bad);
            assert!(pass.draw(6, 1, 0, 0).is_err());
            assert_eq!(pass.last_draw_times(), None);
            // rasterizer discard stops after the vertex stage
            pass.bind_pipeline(&discard);
            pass.draw(6, 1, 0, 0).unwrap();
            let d = pass.last_draw_times().expect("times of the draw");
            assert_eq!(
                (d.setup, d.bin, d.tiles),
                (Duration::ZERO, Duration::ZERO, Duration::ZERO)
            );
        }
    }

    /// Clears recorded by the pass and written by the next draw's tiles (or when the
    /// attachments are read, or at the end of the pass) give byte for byte what clearing
    /// the attachments first gives: with and without depth/stencil, several colour
    /// attachments, a second clear replacing a first, clears without a draw, two draws, draws
    /// that fail in the vertex or the fragment stage, a scissored draw and one with nothing on
    /// screen, and reads in between.
    #[test]
    fn recorded_clears_equal_eager_clears() {
        use ClearColor::{Float, Raw};
        let draw = |z, c| Op::Draw {
            z,
            c,
            scissor: false,
            fail: false,
        };
        let clear_all = [
            Op::Color(0, Float([0.1, 0.2, 0.3, 0.4])),
            Op::Color(1, Raw([1, 2, 3, 4])),
            Op::DepthStencil(0.75, 0x5a),
        ];
        let mut cases: Vec<Vec<Op>> = vec![
            clear_all.to_vec(),
            [&clear_all[..], &[draw(0.5, 0.25)]].concat(),
            [&clear_all[..], &[draw(0.5, 0.25), draw(0.4, 0.75)]].concat(),
            // the second clear replaces the first, before and after a draw
            vec![
                Op::Color(0, Float([1.0, 0.0, 0.0, 1.0])),
                Op::DepthStencil(0.1, 1),
                Op::Color(0, Float([0.0, 1.0, 0.0, 0.5])),
                Op::DepthStencil(0.9, 2),
                draw(0.5, 0.25),
                Op::Color(1, Raw([9; 4])),
                Op::DepthStencil(1.0, 3),
                Op::Color(1, Raw([8; 4])),
                draw(0.3, 0.5),
                Op::Color(0, Float([0.5; 4])),
            ],
            // only some attachments cleared, reads in between
            vec![
                Op::Color(1, Raw([5, 6, 7, 8])),
                Op::Read,
                Op::Color(0, Float([0.2; 4])),
                draw(0.6, 1.0),
                Op::Read,
                Op::DepthStencil(0.7, 4),
                Op::Read,
                draw(0.6, 0.0),
            ],
            // draws that write nothing, fail, or touch a few tiles
            vec![
                Op::Color(0, Float([0.3; 4])),
                Op::DepthStencil(0.8, 6),
                Op::VertexFails,
                Op::Offscreen,
                Op::Read,
                Op::Color(1, Raw([1; 4])),
                Op::Draw {
                    z: 0.5,
                    c: 0.5,
                    scissor: false,
                    fail: true,
                },
                Op::Color(0, Float([0.6; 4])),
                Op::Draw {
                    z: 0.2,
                    c: 0.5,
                    scissor: true,
                    fail: false,
                },
                Op::Color(1, Raw([2; 4])),
                Op::DepthStencil(0.6, 7),
                Op::Offscreen,
            ],
        ];
        // and each case with its depth/stencil clears left out (what a colour-only pass does)
        let colour_only: Vec<Vec<Op>> = cases
            .iter()
            .map(|c| {
                c.iter()
                    .copied()
                    .filter(|o| !matches!(o, Op::DepthStencil(..)))
                    .collect()
            })
            .collect();
        cases.extend(colour_only.iter().cloned());
        let formats = [
            None,
            Some(Format::D32_SFLOAT),
            Some(Format::D24_UNORM_S8_UINT),
            Some(Format::D16_UNORM),
            Some(Format::S8_UINT),
        ];
        for ds in formats {
            for (n, ops) in cases.iter().enumerate() {
                let ops: Vec<Op> = ops
                    .iter()
                    .copied()
                    .filter(|o| ds.is_some() || !matches!(o, Op::DepthStencil(..)))
                    .collect();
                let mut want = targets(ds);
                let want_log = run(&mut want, &ops, 1, true);
                for threads in [1, 2, 3] {
                    let mut got = targets(ds);
                    let got_log = run(&mut got, &ops, threads, false);
                    assert_eq!(got_log, want_log, "{ds:?} case {n} {threads}t");
                    assert!(got == want, "{ds:?} case {n} {threads}t");
                }
                // the draws draw something, and the clears did clear
                if n == 1 {
                    assert!(want.color[0]
                        .data
                        .chunks(4)
                        .any(|t| *t != want.color[0].data[..4]));
                    assert_eq!(
                        want.color[1].data[..16],
                        [1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0]
                    );
                }
            }
        }
    }
}
