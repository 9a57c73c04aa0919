//! The graphics pipeline: from vertex fetch to blended pixels, modelled on llvmpipe.
//!
//! `raster` owns the pipeline state and the draw: vertex fetch ([`fetch`]), vertex shading in
//! batches, primitive assembly ([`assemble`]), clipping ([`clip`]), fixed-point setup with the
//! top-left rule ([`setup`]), 64x64 tile bins shaded in parallel with rayon, in place in the
//! attachments, walked in 8x8 blocks with trivial accept/reject ([`tile`]), 2x2 quads with
//! helper lanes batched (16 quads) into the fragment stage, and the per-fragment operations
//! ([`output`]). It knows nothing of how shaders are encoded: it talks to them through the two
//! traits in [`stage`], which the interpreter glue implements (tests use closures). The texel
//! codecs for attachments live in [`target`] so they can later be replaced by the texture
//! module's formats.
//!
//! Shape: a [`Rasterizer`] owns the thread pool; [`Rasterizer::begin`] opens a [`RenderPass`]
//! on some [`RenderTargets`]; the pass takes Vulkan-like binds and `draw` / `draw_indexed`
//! calls. The result is byte-identical at any thread count: vertex batches and geometry are
//! gathered in order, tiles own disjoint pixels and keep primitives in submission order.
//! Fragment inputs are interpolated in f64 from per-primitive planes (one reciprocal per lane
//! and mode, planes stepped only within a quad): depth must hold 1e-6 (tests/raster_ops.rs),
//! and in the profile the f64 arithmetic is a small share next to the batch bookkeeping.
//! Per-pixel and two-thread costs, and what was done about them, are measured in [`tile`]:
//! fully covered quads are written, depth-tested and batched whole (fullscreen quad 241 -> 149
//! M instructions per 1024x1024 frame), and each pool thread keeps one tile shader and pulls
//! tiles most expensive first, after parallel binning and vertex-output merging.
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
//! let pipeline = Pipeline { state: PipelineState::default(), vertex: &vs, fragment: &fs };
//! let mut targets = RenderTargets {
//!     color: vec![ColorTarget::new(ColorFormat::R8G8B8A8Unorm, 16, 16)],
//!     depth_stencil: None,
//! };
//! let raster = Rasterizer::new(2)?;
//! let mut pass = raster.begin(&mut targets);
//! pass.bind_pipeline(&pipeline);
//! pass.draw(3, 1, 0, 0)?;
//! assert_eq!(targets.color[0].data[..4], [255, 128, 0, 255]);
//! # Ok::<(), quadstep::Error>(())
//! ```

pub mod assemble;
pub mod clip;
pub mod fetch;
pub mod geometry;
pub mod output;
pub mod setup;
pub mod stage;
pub mod state;
pub mod target;
pub mod tile;

use std::sync::Arc;

use rayon::prelude::*;
use rayon::ThreadPool;

pub use assemble::{IndexBuffer, IndexType};
pub use fetch::{VertexBuffer, VertexFormat};
pub use stage::{
    AttributeStream, FragInputs, FragmentFn, FragmentStage, Interpolation, QuadBatch, QuadOutputs,
    VertexBatch, VertexFn, VertexOutputs, VertexStage, QUAD_BATCH, VERTEX_BATCH,
};
pub use state::*;
pub use target::{
    ClearColor, ColorClass, ColorCodec, ColorFormat, ColorTarget, DepthFormat, DepthStencilTarget,
};

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

/// A graphics pipeline: fixed-function state plus the two shader stages.
pub struct Pipeline<'a> {
    pub state: PipelineState,
    pub vertex: &'a dyn VertexStage,
    pub fragment: &'a dyn FragmentStage,
}

/// Owns the worker threads draws run on.
#[derive(Clone)]
pub struct Rasterizer {
    pool: Arc<ThreadPool>,
}

impl Rasterizer {
    /// A rasterizer with its own pool of `threads` workers (0 = rayon's default).
    pub fn new(threads: usize) -> Result<Self> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| Error::Pipeline(format!("raster: cannot start {threads} threads: {e}")))?;
        Ok(Rasterizer {
            pool: Arc::new(pool),
        })
    }

    /// A rasterizer on an existing pool.
    pub fn with_pool(pool: Arc<ThreadPool>) -> Self {
        Rasterizer { pool }
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
        }
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

    /// The attachments (for reading back between draws).
    pub fn targets(&self) -> &RenderTargets {
        self.targets
    }

    /// A render pass's `loadOp = CLEAR` (or `vkCmdClearAttachments` over the whole area) of
    /// colour attachment `index`, in bands of tile rows on the pool's threads.
    pub fn clear_color(&mut self, index: usize, value: ClearColor) -> Result<()> {
        let n = self.targets.color.len();
        let c = self.targets.color.get_mut(index).ok_or_else(|| {
            Error::Pipeline(format!(
                "raster: clear_color: no colour attachment {index} (the pass has {n})"
            ))
        })?;
        let texel = c.clear_texel(value);
        let band = c.row_pitch() * tile::TILE as usize;
        target::fill_texels_parallel(&self.raster.pool, &mut c.data, &texel, band);
        Ok(())
    }

    /// The same for the depth/stencil attachment: depth quantized to its format, and the
    /// stencil value where the format has stencil.
    pub fn clear_depth_stencil(&mut self, depth: f32, stencil: u8) -> Result<()> {
        let ds = self.targets.depth_stencil.as_mut().ok_or_else(|| {
            Error::Pipeline(
                "raster: clear_depth_stencil: the pass has no depth/stencil attachment".into(),
            )
        })?;
        let rows = ds.width as usize * tile::TILE as usize;
        if ds.format.depth_bytes() > 0 {
            let texel = ds.depth_texel(depth);
            let band = rows * texel.len();
            target::fill_texels_parallel(&self.raster.pool, &mut ds.depth, &texel, band);
        }
        target::fill_texels_parallel(&self.raster.pool, &mut ds.stencil, &[stencil], rows);
        Ok(())
    }

    /// `vkCmdDraw`.
    pub fn draw(
        &mut self,
        vertex_count: u32,
        instance_count: u32,
        first_vertex: u32,
        first_instance: u32,
    ) -> Result<()> {
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

    fn run(&mut self, stream: &Stream, first_instance: u32, instance_count: u32) -> Result<()> {
        let pipeline = self.pipeline.ok_or_else(no_pipeline)?;
        let state = &pipeline.state;
        validate(state, self.targets)?;
        if instance_count == 0 || stream.vertex_index.is_empty() {
            return Ok(());
        }
        let (w, h) = self.targets.size()?;
        let pool = &self.raster.pool;
        let shaded = geometry::shade_vertices(
            pool,
            state,
            pipeline.vertex,
            &self.vertex_buffers,
            stream,
            (first_instance, instance_count),
        )?;
        if state.rasterization.rasterizer_discard {
            return Ok(());
        }
        let viewport = state.viewport.unwrap_or_else(|| Viewport::full(w, h));
        let Some(clip_rect) = clip_rect(state, &viewport, w, h) else {
            return Ok(());
        };
        let ctx = geometry::GeomCtx {
            state,
            viewport,
            planes: clip::PlaneSet::viewport(&viewport, state.rasterization.depth_clamp),
            setup: setup::SetupCtx {
                clip: clip_rect,
                depth_bias: state.rasterization.depth_bias,
                depth_unorm_bits: self
                    .targets
                    .depth_stencil
                    .as_ref()
                    .and_then(|d| d.format.unorm_bits()),
            },
        };
        let assembled = geometry::assemble_all(state.topology, stream, instance_count);
        // Chunks of primitives, one output Vec each rather than one per primitive (10 000 small
        // triangles: malloc/free fell from ~33 M to ~12 M instructions).
        let prims: Vec<Vec<setup::RasterPrim>> = pool.install(|| {
            assembled
                .par_chunks(256)
                .map(|chunk| {
                    let mut out = Vec::with_capacity(chunk.len());
                    for a in chunk {
                        geometry::setup_primitive(&ctx, &shaded, a, &mut out);
                    }
                    out
                })
                .collect()
        });
        // Kept as chunks: no copy into one array on the calling thread.
        let prims = tile::Prims::new(prims);
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
        };
        tile::render(pool, &scene, self.targets)
    }
}

fn no_pipeline() -> Error {
    Error::Pipeline("raster: draw without a bound pipeline".into())
}

/// Reject state the rasterizer does not implement, with the reason.
fn validate(state: &PipelineState, targets: &RenderTargets) -> Result<()> {
    if state.samples > 1 {
        return Err(Error::Unsupported(format!(
            "multisampling: rasterizationSamples = {} (only 1 sample is implemented)",
            state.samples
        )));
    }
    for (i, c) in targets.color.iter().enumerate() {
        let want = c.width as usize * c.height as usize * c.format.bytes_per_texel();
        if c.data.len() != want {
            return Err(Error::Pipeline(format!(
                "raster: colour attachment {i} holds {} bytes, {}x{} {:?} needs {want}",
                c.data.len(),
                c.width,
                c.height,
                c.format
            )));
        }
    }
    if let Some(d) = &targets.depth_stencil {
        let n = d.width as usize * d.height as usize;
        let s = if d.format.has_stencil() { n } else { 0 };
        if d.depth.len() != n * d.format.depth_bytes() || d.stencil.len() != s {
            return Err(Error::Pipeline(format!(
                "raster: depth/stencil attachment buffers do not match {}x{} {:?}",
                d.width, d.height, d.format
            )));
        }
    }
    targets.size()?;
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
