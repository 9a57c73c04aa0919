//! The geometry half of a draw: vertex fetch and shading in batches, primitive assembly,
//! clipping, perspective divide, viewport transform, facing and culling, setup.
//!
//! Two shapes: shading every vertex (`shade_vertices`) and then setting up the primitives
//! in chunks (`set_up_chunk`), or, for list topologies where each chunk's primitives own a
//! run of whole vertex batches, both in one parallel pass (`shade_and_set_up`), so a
//! chunk's setup reads vertices its own core just shaded. Both make the same batches, chunks
//! and values.

use rayon::prelude::*;
use rayon::ThreadPool;

use super::assemble::{assemble, list_primitives, Assembled, Stream};
use super::clip::{self, ClipVert, PlaneSet, GUARD_BAND};
use super::fetch::{fetch, VertexBuffer};
use super::setup::{self, area2, snap, PixRect, PrimInfo, RasterPrim, SetupCtx, WinVert};
use super::state::{CullMode, FrontFace, PipelineState, PolygonMode, Topology, Viewport};
use crate::limits::Cancel;
use crate::stage::{VertexBatch, VertexOutputs, VertexStage, VERTEX_BATCH};
use crate::{Error, Result};

/// Shaded vertices of a whole draw (all instances), indexed by slot: the vertex stage's
/// outputs, or the last of the tessellation and geometry stages'.
pub(crate) type Shaded = crate::stage::Vertices;

/// An estimate of the bytes a draw of `slots` vertex invocations with `n_vary` varyings
/// holds in its vertex arrays ([`Shaded`]), its primitives and their bounding boxes (one
/// primitive per slot for strips, fans and points, fewer for lists; clipping rarely adds
/// any), for the draw's charge to the memory budget.
pub(crate) fn draw_bytes(slots: u64, n_vary: usize, topology: Topology) -> u64 {
    let per_slot =
        (size_of::<[f32; 4]>() + size_of::<f32>() + n_vary * size_of::<[u32; 4]>()) as u64;
    let prims = slots / list_size(topology).unwrap_or(1) as u64;
    let per_prim = (size_of::<RasterPrim>() + size_of::<PixRect>() + size_of::<Assembled>()) as u64;
    slots
        .saturating_mul(per_slot)
        .saturating_add(prims.saturating_mul(per_prim))
}

/// Primitives per setup chunk: one output `Vec` per chunk rather than one per primitive
/// (10 000 small triangles: malloc/free fell from ~33 M to ~12 M instructions).
pub(crate) const SETUP_CHUNK: usize = 256;

/// A draw's vertex work: what every vertex batch shares.
pub(crate) struct VertexWork<'a> {
    pub state: &'a PipelineState,
    pub vs: &'a dyn VertexStage,
    pub buffers: &'a [VertexBuffer<'a>],
    pub stream: &'a Stream,
    /// (first instance, instance count)
    pub instances: (u32, u32),
    /// Polled before every batch.
    pub cancel: &'a Cancel,
}

impl VertexWork<'_> {
    /// Fetch and shade batch `b` (slots `b * VERTEX_BATCH..`, as many as `pos` holds) into its
    /// chunks of the draw-wide arrays, through the reused `input` and `out`.
    fn shade(
        &self,
        b: usize,
        (pos, size, vary): (&mut [[f32; 4]], &mut [f32], &mut [[u32; 4]]),
        input: &mut VertexBatch,
        out: &mut VertexOutputs,
    ) -> Result<()> {
        self.cancel.check()?;
        let (n, n_vary) = (self.stream.vertex_index.len(), self.vs.varying_count());
        let start = b * VERTEX_BATCH;
        let len = pos.len();
        input.vertex_index.clear();
        input.instance_index.clear();
        for s in start..start + len {
            // (no division in the first instance)
            let (inst, k) = if s < n { (0, s) } else { (s / n, s % n) };
            input.vertex_index.push(self.stream.vertex_index[k]);
            input
                .instance_index
                .push(self.instances.0.wrapping_add(inst as u32));
        }
        input.attributes = fetch(
            self.state,
            self.buffers,
            &input.vertex_index,
            &input.instance_index,
        )?;
        // what a fresh output holds: zeros, point size 1.0
        out.position.clear();
        out.position.resize(len, [0.0; 4]);
        out.point_size.clear();
        out.point_size.resize(len, 1.0);
        out.varyings.resize_with(n_vary, Vec::new);
        for v in &mut out.varyings {
            v.clear();
            v.resize(len, [0; 4]);
        }
        self.vs.run(input, out)?;
        if out.position.len() != len
            || out.point_size.len() != len
            || out.varyings.len() != n_vary
            || out.varyings.iter().any(|v| v.len() != len)
        {
            return Err(Error::Exec(format!(
                "raster/geometry.rs: the vertex stage resized its outputs (expected \
                 {len} vertices x {n_vary} varyings)"
            )));
        }
        pos.copy_from_slice(&out.position);
        size.copy_from_slice(&out.point_size);
        for (v, slot) in vary.chunks_exact_mut(n_vary.max(1)).enumerate() {
            for (dst, l) in slot.iter_mut().zip(&out.varyings) {
                *dst = l[v];
            }
        }
        Ok(())
    }
}

/// The draw-wide vertex arrays for `total` slots: an earlier draw's (`spare`), cut to size or
/// grown by parallel fills (with what a fresh vertex output holds: zeros, point size 1.0).
/// Every batch overwrites all of its slots ([`VertexWork::shade`] rejects a stage that leaves
/// any output short), so what a reused slot held is never read.
///
/// Why reuse: made afresh, the three arrays cost every draw three fork-joins before the first
/// batch could start, and their frees at the end (10 000 small triangles at two threads: the
/// first batch began ~108 µs into the draw, ~45 µs of it here).
fn vertex_arrays(total: usize, n_vary: usize, spare: Shaded) -> Shaded {
    fn fit<T: Copy + Send + Sync>(v: &mut Vec<T>, len: usize, fill: T) {
        if v.len() >= len {
            v.truncate(len);
        } else {
            let more = len - v.len();
            v.par_extend(rayon::iter::repeat_n(fill, more));
        }
    }
    let Shaded {
        mut position,
        mut point_size,
        mut varyings,
        ..
    } = spare;
    fit(&mut position, total, [0.0; 4]);
    fit(&mut point_size, total, 1.0);
    fit(&mut varyings, total * n_vary, [0; 4]);
    Shaded {
        position,
        point_size,
        varyings,
        n_vary,
    }
}

/// `varyings` cut into `count` pieces of `slots` slots each (empty pieces when there are no
/// varyings).
fn vary_pieces(
    varyings: &mut [[u32; 4]],
    n_vary: usize,
    slots: usize,
    count: usize,
) -> Vec<&mut [[u32; 4]]> {
    if n_vary == 0 {
        (0..count).map(|_| <&mut [[u32; 4]]>::default()).collect()
    } else {
        varyings.chunks_mut(slots * n_vary).collect()
    }
}

/// Fetch and shade `stream` for every instance; slot = instance * stream length + position.
///
/// The draw-wide arrays are made first (from `spare`, see [`vertex_arrays`]) and every
/// batch copies its outputs straight into its own chunk of them, from one reused input and
/// output per rayon job. Gathering per-batch outputs afterwards (a second parallel pass, and
/// ~470 batch outputs freed on the calling thread) cost 10 000 small triangles ~0.19 ms of a
/// 1.2 ms vertex phase at one thread; now the frame is 0.2-0.25 ms faster at one thread
/// (callgrind: 2.9 M instructions fewer) but no faster at two, where the batches' writes
/// into the shared arrays cost what the gather did (writing the arrays' spare capacity
/// instead, with no zero-fill, was no faster either, so no `unsafe` for it).
pub(crate) fn shade_vertices(pool: &ThreadPool, job: &VertexWork, spare: Shaded) -> Result<Shaded> {
    let total = job.stream.vertex_index.len() * job.instances.1 as usize;
    let n_vary = job.vs.varying_count();
    pool.install(|| {
        let mut sh = vertex_arrays(total, n_vary, spare);
        let batches = total.div_ceil(VERTEX_BATCH);
        let vary = vary_pieces(&mut sh.varyings, n_vary, VERTEX_BATCH, batches);
        let results: Vec<Result<()>> = sh
            .position
            .par_chunks_mut(VERTEX_BATCH)
            .zip(sh.point_size.par_chunks_mut(VERTEX_BATCH))
            .zip(vary)
            .enumerate()
            .map_init(
                || (VertexBatch::default(), VertexOutputs::default()),
                |(input, out), (b, ((pos, size), vary))| {
                    job.shade(b, (pos, size, vary), input, out)
                },
            )
            .collect();
        // the first failing batch's error, whichever thread ran it
        results.into_iter().collect::<Result<()>>()?;
        Ok(sh)
    })
}

/// Setup chunks per item of [`shade_and_set_up`].
const FUSED_GROUP: usize = 4;

/// Whether a draw's vertex shading and setup can run as one pass ([`shade_and_set_up`]):
/// a list topology, one instance, one run from slot 0 (no restart), so primitive `p` is slots
/// `k p .. k p + k` and every setup chunk's primitives are one run of whole vertex batches.
pub(crate) fn fusable(topology: Topology, stream: &Stream, instances: (u32, u32)) -> bool {
    list_size(topology).is_some()
        && instances.1 == 1
        && stream.runs.as_slice() == [(0, stream.vertex_index.len())]
}

/// Vertices per primitive of a list topology.
fn list_size(t: Topology) -> Option<usize> {
    match t {
        Topology::PointList => Some(1),
        Topology::LineList => Some(2),
        Topology::TriangleList => Some(3),
        _ => None,
    }
}

/// Shade and set up a [`fusable`] draw in one parallel pass over the setup chunks: each
/// chunk shades the vertex batches of its own primitives, then sets them up from those
/// vertices, still in its core's cache. The batches, the chunks and every value are those
/// of [`shade_vertices`] followed by [`set_up_chunk`] over [`assemble_all`] in chunks of
/// [`SETUP_CHUNK`]; only which thread runs what changes. Each item assembles its own
/// chunks' primitives ([`list_primitives`]), so that no assembly on one thread holds up the
/// first batch.
///
/// Why: as separate passes, many small triangles' vertex phase scales poorly over threads
/// (many short batches, the setup reading what the other core shaded), while the setup in
/// chunks scales well; in one pass the setup reads what its own thread just shaded. An item
/// is up to [`FUSED_GROUP`] chunks (while every thread still gets four items), so that a
/// thread does not alternate between the interpreter and the setup for every chunk.
pub(crate) fn shade_and_set_up(
    pool: &ThreadPool,
    ctx: &GeomCtx,
    job: &VertexWork,
    spare: Spare,
) -> Result<(Shaded, SetUp)> {
    let total = job.stream.vertex_index.len();
    let n_vary = job.vs.varying_count();
    let size = list_size(ctx.state.topology).unwrap_or(1);
    let n_prims = total / size;
    // slots per chunk: whole batches (SETUP_CHUNK * k is a multiple of VERTEX_BATCH)
    let per = SETUP_CHUNK * size;
    debug_assert!(per.is_multiple_of(VERTEX_BATCH));
    let chunks = total.div_ceil(per);
    // up to FUSED_GROUP chunks per item, while every thread still gets four items or more
    let fused_group = (chunks / (4 * pool.current_num_threads())).clamp(1, FUSED_GROUP);
    let group = per * fused_group;
    pool.install(|| {
        let mut sh = vertex_arrays(total, n_vary, spare.vertices);
        let items = total.div_ceil(group);
        let vary = vary_pieces(&mut sh.varyings, n_vary, group, items);
        let mut bufs = spare_chunks(spare.chunks, chunks).into_iter();
        let bufs: Vec<Vec<_>> = (0..items)
            .map(|_| bufs.by_ref().take(fused_group).collect())
            .collect();
        let done: Vec<Result<SetUp>> = sh
            .position
            .par_chunks_mut(group)
            .zip(sh.point_size.par_chunks_mut(group))
            .zip(vary)
            .zip(bufs)
            .enumerate()
            .map_init(
                || (VertexBatch::default(), VertexOutputs::default(), Vec::new()),
                |(input, out, assembled), (c, (((pos, sizes), vary), bufs))| {
                    let first_batch = c * group / VERTEX_BATCH;
                    let batches = pos.len().div_ceil(VERTEX_BATCH);
                    let vary = vary_pieces(vary, n_vary, VERTEX_BATCH, batches);
                    for (j, ((p, s), v)) in pos
                        .chunks_mut(VERTEX_BATCH)
                        .zip(sizes.chunks_mut(VERTEX_BATCH))
                        .zip(vary)
                        .enumerate()
                    {
                        job.shade(first_batch + j, (p, s, v), input, out)?;
                    }
                    let view = VertexView {
                        position: pos,
                        point_size: sizes,
                        first: c * group,
                    };
                    let mut set_up: SetUp = Default::default();
                    for (g, bufs) in bufs.into_iter().enumerate() {
                        let k = c * fused_group + g;
                        let lo = (k * SETUP_CHUNK).min(n_prims);
                        let hi = ((k + 1) * SETUP_CHUNK).min(n_prims);
                        list_primitives(size, lo..hi, assembled);
                        let (p, b) = set_up_chunk(ctx, &view, assembled, bufs);
                        set_up.0.push(p);
                        set_up.1.push(b);
                    }
                    Ok(set_up)
                },
            )
            .collect();
        let mut prims = Vec::with_capacity(chunks);
        let mut boxes = Vec::with_capacity(chunks);
        // the first failing batch's error: items hold their batches in order
        for d in done {
            let (p, b) = d?;
            prims.extend(p);
            boxes.extend(b);
        }
        Ok((sh, (prims, boxes)))
    })
}

/// Set-up primitives in chunks, and the chunks' bounding boxes apart (see `tile::Prims`).
pub(crate) type SetUp = (Vec<Vec<RasterPrim>>, Vec<Vec<PixRect>>);

/// A draw's buffers, kept for the next draw on the same rasterizer: its setup chunks
/// ([`spare_chunks`]) and vertex arrays ([`vertex_arrays`]), each says why.
#[derive(Default)]
pub(crate) struct Spare {
    pub chunks: SetUp,
    pub vertices: Shaded,
}

impl Spare {
    /// Bytes of buffer held.
    pub fn bytes(&self) -> usize {
        let v = &self.vertices;
        self.chunks
            .0
            .iter()
            .map(|c| c.capacity() * size_of::<RasterPrim>())
            .sum::<usize>()
            + self
                .chunks
                .1
                .iter()
                .map(|c| c.capacity() * size_of::<PixRect>())
                .sum::<usize>()
            + v.position.capacity() * size_of::<[f32; 4]>()
            + v.point_size.capacity() * size_of::<f32>()
            + v.varyings.capacity() * size_of::<[u32; 4]>()
    }
}

/// The shaded vertices setup reads: positions and point sizes of slots `first..`.
pub(crate) struct VertexView<'a> {
    pub position: &'a [[f32; 4]],
    pub point_size: &'a [f32],
    pub first: usize,
}

impl Shaded {
    /// All of the draw's vertices.
    pub(crate) fn view(&self) -> VertexView<'_> {
        VertexView {
            position: &self.position,
            point_size: &self.point_size,
            first: 0,
        }
    }
}

impl VertexView<'_> {
    /// A slot's position; `None` outside the view (a fused chunk holds every slot of its
    /// primitives, see [`fusable`]).
    #[inline]
    fn position(&self, slot: u32) -> Option<[f32; 4]> {
        let i = (slot as usize).checked_sub(self.first)?;
        self.position.get(i).copied()
    }

    /// A slot's point size; 1.0 outside the view.
    #[inline]
    fn point_size(&self, slot: u32) -> f32 {
        let i = (slot as usize).checked_sub(self.first);
        i.and_then(|i| self.point_size.get(i))
            .copied()
            .unwrap_or(1.0)
    }
}

/// Clip and set up one chunk of assembled primitives into `out`, and their bounding boxes
/// apart into `boxes` (for binning, see `tile::Prims`); both are emptied first (an earlier
/// draw's, see [`spare_chunks`]).
pub(crate) fn set_up_chunk(
    ctx: &GeomCtx,
    sh: &VertexView,
    chunk: &[Assembled],
    (mut out, mut boxes): (Vec<RasterPrim>, Vec<PixRect>),
) -> (Vec<RasterPrim>, Vec<PixRect>) {
    out.clear();
    out.reserve(chunk.len());
    for a in chunk {
        // the output slot two ahead, so its stores do not wait for the line
        if let Some(slot) = out.spare_capacity_mut().get(2) {
            let bytes = size_of::<RasterPrim>();
            crate::cpu::prefetch(slot, bytes, crate::cpu::Cache::L1);
        }
        setup_primitive(ctx, sh, a, &mut out);
    }
    boxes.clear();
    boxes.extend(out.iter().map(|p| p.bbox));
    (out, boxes)
}

/// `count` output buffers for [`set_up_chunk`]: an earlier draw's chunks (`spare`), then empty
/// ones. Reusing them keeps a draw's ~100 KiB chunks out of the allocator: freed and made
/// again every frame, glibc gave the top of the heap back to the kernel after each one and
/// took it again page by page (10 000 small triangles at one thread, shading and setup in one
/// pass: ~860 page faults a frame, +0.8 ms).
pub(crate) fn spare_chunks(spare: SetUp, count: usize) -> Vec<(Vec<RasterPrim>, Vec<PixRect>)> {
    let (prims, boxes) = spare;
    let mut v: Vec<_> = prims.into_iter().zip(boxes).take(count).collect();
    v.resize_with(count, Default::default);
    v
}

/// Assembled primitives of every instance, in submission order.
pub(crate) fn assemble_all(topology: Topology, stream: &Stream, instances: u32) -> Vec<Assembled> {
    let n = stream.vertex_index.len() as u32;
    let mut all = assemble(topology, stream, 0);
    all.reserve(all.len() * (instances as usize).saturating_sub(1));
    for i in 1..instances {
        all.extend(assemble(topology, stream, i * n));
    }
    all
}

/// Per-draw constants of the geometry stage.
pub(crate) struct GeomCtx<'a> {
    pub state: &'a PipelineState,
    pub viewport: Viewport,
    pub planes: PlaneSet,
    pub setup: SetupCtx,
}

impl GeomCtx<'_> {
    fn window(&self, v: &ClipVert) -> WinVert {
        let vp = &self.viewport;
        let inv_w = 1.0 / v.pos[3];
        let (nx, ny, nz) = (v.pos[0] * inv_w, v.pos[1] * inv_w, v.pos[2] * inv_w);
        let x = vp.x as f64 + vp.width as f64 / 2.0 * (nx + 1.0);
        let y = vp.y as f64 + vp.height as f64 / 2.0 * (ny + 1.0);
        let z = vp.min_depth as f64 + (vp.max_depth as f64 - vp.min_depth as f64) * nz;
        WinVert {
            x: x.clamp(-GUARD_BAND, GUARD_BAND),
            y: y.clamp(-GUARD_BAND, GUARD_BAND),
            z,
            inv_w,
            bary: v.bary,
        }
    }
}

/// Clip and set up one assembled primitive.
pub(crate) fn setup_primitive(
    ctx: &GeomCtx,
    sh: &VertexView,
    a: &Assembled,
    out: &mut Vec<RasterPrim>,
) {
    let n = a.count as usize;
    // Fixed-size arrays, not `Vec`s, for the usual unclipped triangle: no small allocations
    // per primitive.
    let mut verts = [ClipVert {
        pos: [0.0; 4],
        bary: [0.0; 3],
    }; 3];
    for (k, &s) in a.slots[..n].iter().enumerate() {
        let Some(p) = sh.position(s) else {
            return;
        };
        if !p.iter().all(|c| c.is_finite()) {
            return;
        }
        // written out: the array `map`s here and below stayed calls (~230 instructions a
        // triangle)
        verts[k].pos = [p[0] as f64, p[1] as f64, p[2] as f64, p[3] as f64];
        verts[k].bary[k] = 1.0;
    }
    let w = |k: usize| if k < n { verts[k].pos[3] } else { 1.0 };
    let mut info = PrimInfo {
        slots: a.slots,
        n_verts: a.count,
        orig_w: [w(0), w(1), w(2)],
        primitive_id: a.primitive_id,
        front: true,
        layer: a.layer,
        viewport: a.viewport,
    };
    match n {
        1 => {
            if clip::point_inside(&verts[0].pos, &ctx.planes.list) {
                let size = sh.point_size(a.slots[0]);
                let size = if size.is_nan() {
                    1.0
                } else {
                    size.clamp(1.0, 255.0)
                } as f64;
                let w = ctx.window(&verts[0]);
                out.extend(setup::point(&w, size, info, &ctx.setup));
            }
        }
        2 => {
            if let Some((p, q)) = clip::clip_line(verts[0], verts[1], &ctx.planes.list) {
                let (wp, wq) = (ctx.window(&p), ctx.window(&q));
                out.extend(setup::line(&wp, &wq, info, &ctx.setup));
            }
        }
        _ => {
            let poly = clip::clip_polygon(&verts[..n], &ctx.planes);
            if poly.len() < 3 {
                return;
            }
            let (win3, win_clipped);
            let win: &[WinVert] = if let [a, b, c] = &*poly {
                win3 = [ctx.window(a), ctx.window(b), ctx.window(c)];
                &win3
            } else {
                win_clipped = poly.iter().map(|v| ctx.window(v)).collect::<Vec<_>>();
                &win_clipped
            };
            let (fixed3, fixed_clipped);
            let fixed: &[(i64, i64)] = if let [a, b, c] = win {
                let s = |w: &WinVert| (snap(w.x), snap(w.y));
                fixed3 = [s(a), s(b), s(c)];
                &fixed3
            } else {
                fixed_clipped = win
                    .iter()
                    .map(|w| (snap(w.x), snap(w.y)))
                    .collect::<Vec<_>>();
                &fixed_clipped
            };
            let a2 = area2(fixed);
            if a2 == 0 {
                return;
            }
            // Vulkan: a = -area2 / 2 in y-down framebuffer coordinates; a > 0 is
            // counter-clockwise.
            let ccw = a2 < 0;
            let front = match ctx.state.rasterization.front_face {
                FrontFace::CounterClockwise => ccw,
                FrontFace::Clockwise => !ccw,
            };
            let culled = match ctx.state.rasterization.cull_mode {
                CullMode::None => false,
                CullMode::Front => front,
                CullMode::Back => !front,
                CullMode::FrontAndBack => true,
            };
            if culled {
                return;
            }
            info.front = front;
            match ctx.state.rasterization.polygon_mode {
                PolygonMode::Fill => {
                    if let (Ok(v), Ok(f)) = (<&[WinVert; 3]>::try_from(win), fixed.try_into()) {
                        // the one triangle of an unclipped polygon: its snapped vertices and
                        // area are the ones just computed
                        if let Some(p) = setup::triangle_snapped(v, f, a2, info, &ctx.setup) {
                            out.push(p);
                        }
                        return;
                    }
                    for i in 1..win.len() - 1 {
                        out.extend(setup::triangle(
                            &[win[0], win[i], win[i + 1]],
                            info,
                            &ctx.setup,
                        ));
                    }
                }
                // Edges that lie on an edge of the original triangle (both ends have a zero
                // weight for the same original vertex), not the ones the clipper made.
                // They get the triangle's depth bias.
                PolygonMode::Line => {
                    let bias = setup::polygon_depth_bias(win, &ctx.setup);
                    for i in 0..win.len() {
                        let (u, v) = (&win[i], &win[(i + 1) % win.len()]);
                        if (0..3).any(|k| u.bary[k] == 0.0 && v.bary[k] == 0.0) {
                            let p = setup::line(u, v, info, &ctx.setup);
                            out.extend(p.map(|p| RasterPrim {
                                z_offset: bias,
                                ..p
                            }));
                        }
                    }
                }
                // Original vertices that survived clipping, with the triangle's depth bias.
                PolygonMode::Point => {
                    let bias = setup::polygon_depth_bias(win, &ctx.setup);
                    for v in win {
                        if let Some(k) = (0..3).find(|&k| v.bary[k] == 1.0) {
                            let size = point_size(sh.point_size(a.slots[k]));
                            let p = setup::point(v, size, info, &ctx.setup);
                            out.extend(p.map(|p| RasterPrim {
                                z_offset: bias,
                                ..p
                            }));
                        }
                    }
                }
            }
        }
    }
}

/// `PointSize` clamped to the supported range [1, 255] (NaN -> 1).
fn point_size(size: f32) -> f64 {
    if size.is_nan() {
        1.0
    } else {
        size.clamp(1.0, 255.0) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raster::assemble::linear_stream;
    use crate::stage::VertexFn;

    fn pool(threads: usize) -> ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
    }

    static NEVER: Cancel = Cancel::never();

    fn work<'a>(
        state: &'a PipelineState,
        vs: &'a dyn VertexStage,
        stream: &'a Stream,
        instances: (u32, u32),
    ) -> VertexWork<'a> {
        VertexWork {
            state,
            vs,
            buffers: &[],
            stream,
            instances,
            cancel: &NEVER,
        }
    }

    /// Vertex i at a scattered place around a 100x80 viewport (some outside it, some behind
    /// the eye, so clipping and culling drop some primitives), with two varyings and a point
    /// size; batches whose first vertex index is `fail_at` fail.
    fn scattered(fail_at: u32) -> impl VertexStage {
        VertexFn {
            varyings: 2,
            f: move |i: &VertexBatch, o: &mut VertexOutputs| {
                if i.vertex_index[0] == fail_at {
                    return Err(Error::Exec(format!("batch at {fail_at} failed")));
                }
                for (v, &idx) in i.vertex_index.iter().enumerate() {
                    let h = idx.wrapping_mul(2_654_435_761);
                    let f = |s: u32| ((h >> s) & 0xff) as f32 / 128.0 - 1.0;
                    let w = if h % 17 == 0 { -0.5 } else { 1.0 + f(3).abs() };
                    o.position[v] = [1.3 * f(0) * w, 1.3 * f(8) * w, 0.5 * (f(16) + 1.0) * w, w];
                    o.point_size[v] = 1.0 + (h % 5) as f32;
                    o.varyings[0][v] = [idx, h, i.instance_index[v], 7];
                    o.varyings[1][v] = [h >> 3, 1, 2, idx ^ 0x55];
                }
                Ok(())
            },
        }
    }

    fn ctx(state: &PipelineState) -> GeomCtx<'_> {
        let viewport = Viewport::full(100, 80);
        GeomCtx {
            state,
            viewport,
            planes: PlaneSet::viewport(&viewport, false),
            setup: SetupCtx {
                clip: PixRect {
                    x0: 0,
                    y0: 0,
                    x1: 99,
                    y1: 79,
                },
                depth_bias: None,
                depth_unorm_bits: None,
                multisample: false,
            },
        }
    }

    #[test]
    fn shading_and_setup_in_one_pass_equal_the_two_passes() {
        // point, line and triangle lists; vertex counts with trailing vertices no primitive
        // uses, one group of chunks, several, and a partial last one; an earlier draw's
        // chunks and vertex arrays as the spare, larger and smaller; 1, 2 and 8 threads
        let vs = scattered(u32::MAX);
        let stale = |n: usize, slots: usize| -> Spare {
            let mut c = vec![Vec::new(); n];
            let mut b = vec![Vec::new(); n];
            for (c, b) in c.iter_mut().zip(&mut b) {
                c.push(crate::raster::tile::tests::dummy(99));
                b.push(PixRect {
                    x0: 1,
                    y0: 2,
                    x1: 3,
                    y1: 4,
                });
            }
            let vertices = Shaded {
                position: vec![[f32::NAN; 4]; slots],
                point_size: vec![-3.0; slots],
                varyings: vec![[0xdead; 4]; 5 * slots],
                n_vary: 5,
            };
            Spare {
                chunks: (c, b),
                vertices,
            }
        };
        for topology in [
            Topology::PointList,
            Topology::LineList,
            Topology::TriangleList,
        ] {
            let state = PipelineState {
                topology,
                ..Default::default()
            };
            let ctx = ctx(&state);
            for count in [1u32, 5, 770, 3 * 256 * 9 + 2, 3 * 256 * 40 + 1] {
                let stream = linear_stream(3, count);
                assert!(fusable(topology, &stream, (2, 1)));
                let w = work(&state, &vs, &stream, (2, 1));
                let assembled = assemble_all(topology, &stream, 1);
                for (threads, spare_slots) in [(1, 5000), (2, 0), (2, 700), (8, 30_000)] {
                    let p = pool(threads);
                    let sh = shade_vertices(&p, &w, Default::default()).unwrap();
                    let view = sh.view();
                    let (want_p, want_b): SetUp = assembled
                        .chunks(SETUP_CHUNK)
                        .map(|c| set_up_chunk(&ctx, &view, c, Default::default()))
                        .unzip();
                    assert!(want_p.iter().flatten().count() > 0 || count < 3, "{count}");
                    let (got, (got_p, got_b)) =
                        shade_and_set_up(&p, &ctx, &w, stale(60, spare_slots)).unwrap();
                    let what = format!(
                        "{topology:?}, {count} vertices, {threads} threads, spare {spare_slots}"
                    );
                    assert_eq!(got.n_vary, 2, "{what}");
                    let again = shade_vertices(&p, &w, stale(0, spare_slots).vertices).unwrap();
                    assert_eq!(again.position, sh.position, "{what}");
                    assert_eq!(again.point_size, sh.point_size, "{what}");
                    assert_eq!(again.varyings, sh.varyings, "{what}");
                    assert_eq!(got.position, sh.position, "{what}");
                    assert_eq!(got.point_size, sh.point_size, "{what}");
                    assert_eq!(got.varyings, sh.varyings, "{what}");
                    assert!(got_p.len() >= want_p.len(), "{what}");
                    assert_eq!(got_p[..want_p.len()], want_p[..], "{what}");
                    assert_eq!(got_b[..want_b.len()], want_b[..], "{what}");
                    // a chunk past the last primitive (trailing vertices) is empty
                    assert!(got_p[want_p.len()..].iter().all(Vec::is_empty), "{what}");
                }
            }
        }
    }

    #[test]
    fn one_pass_reports_the_first_failing_batch_at_any_thread_count() {
        // batches at slots 64 * 40 and 64 * 3 fail (vertex index = slot, first vertex 0)
        let state = PipelineState::default();
        let ctx = ctx(&state);
        let stream = linear_stream(0, 3 * 256 * 20);
        for threads in [1, 2, 8] {
            for fail_at in [64 * 40, 64 * 3] {
                let vs = scattered(fail_at);
                let w = work(&state, &vs, &stream, (0, 1));
                let e = shade_and_set_up(&pool(threads), &ctx, &w, Default::default())
                    .expect_err("an error");
                assert_eq!(
                    e.to_string(),
                    Error::Exec(format!("batch at {fail_at} failed")).to_string()
                );
            }
        }
    }

    #[test]
    fn strips_fans_restarts_and_instances_are_not_fused() {
        let stream = linear_stream(0, 9);
        assert!(!fusable(Topology::TriangleStrip, &stream, (0, 1)));
        assert!(!fusable(Topology::TriangleFan, &stream, (0, 1)));
        assert!(!fusable(Topology::LineStrip, &stream, (0, 1)));
        assert!(!fusable(Topology::TriangleList, &stream, (0, 2)));
        let restarted = Stream {
            vertex_index: (0..9).collect(),
            runs: vec![(0, 3), (4, 5)],
        };
        assert!(!fusable(Topology::TriangleList, &restarted, (0, 1)));
        assert!(fusable(Topology::TriangleList, &stream, (5, 1)));
    }

    #[test]
    fn every_batch_starts_from_fresh_outputs() {
        // a stage that writes its outputs only in even batches (batches are cut over the
        // slots of all instances): the odd batches' vertices must keep a fresh output's
        // values (zeros, point size 1.0), not an earlier batch's, whichever thread runs them
        let n = 5 * VERTEX_BATCH as u32 + 3;
        let vs = VertexFn {
            varyings: 2,
            f: |i: &VertexBatch, o: &mut VertexOutputs| {
                let slot0 = (i.instance_index[0] - 4) * n + i.vertex_index[0];
                if (slot0 as usize / VERTEX_BATCH).is_multiple_of(2) {
                    for (v, &idx) in i.vertex_index.iter().enumerate() {
                        let inst = i.instance_index[v];
                        o.position[v] = [idx as f32, inst as f32, 0.5, 1.0];
                        o.point_size[v] = 2.0 + idx as f32;
                        o.varyings[0][v] = [idx, inst, 7, 8];
                        o.varyings[1][v] = [idx + 1, 0, 0, inst];
                    }
                }
                Ok(())
            },
        };
        let stream = linear_stream(0, n);
        for threads in [1, 2, 8] {
            let state = PipelineState::default();
            let shaded = shade_vertices(
                &pool(threads),
                &work(&state, &vs, &stream, (4, 2)),
                Default::default(),
            )
            .unwrap();
            assert_eq!(shaded.n_vary, 2);
            assert_eq!(shaded.position.len(), 2 * n as usize);
            assert_eq!(shaded.varyings.len(), 2 * 2 * n as usize);
            for slot in 0..2 * n as usize {
                let (inst, idx) = (4 + slot as u32 / n, slot as u32 % n);
                let vary = &shaded.varyings[slot * 2..slot * 2 + 2];
                if (slot / VERTEX_BATCH).is_multiple_of(2) {
                    assert_eq!(shaded.position[slot], [idx as f32, inst as f32, 0.5, 1.0]);
                    assert_eq!(shaded.point_size[slot], 2.0 + idx as f32);
                    assert_eq!(vary, [[idx, inst, 7, 8], [idx + 1, 0, 0, inst]]);
                } else {
                    assert_eq!(shaded.position[slot], [0.0; 4], "slot {slot}");
                    assert_eq!(shaded.point_size[slot], 1.0, "slot {slot}");
                    assert_eq!(vary, [[0; 4]; 2], "slot {slot}");
                }
            }
        }
    }

    #[test]
    fn the_first_failing_batch_is_reported_at_any_thread_count() {
        // batches 3 and 7 fail; batch 3's error is the draw's, at 1, 2 and 8 threads
        let vs = VertexFn {
            varyings: 0,
            f: |i: &VertexBatch, _: &mut VertexOutputs| {
                let b = i.vertex_index[0] as usize / VERTEX_BATCH;
                if b == 3 || b == 7 {
                    return Err(Error::Exec(format!("batch {b} failed")));
                }
                Ok(())
            },
        };
        let stream = linear_stream(0, 10 * VERTEX_BATCH as u32);
        for threads in [1, 2, 8] {
            let state = PipelineState::default();
            let e = shade_vertices(
                &pool(threads),
                &work(&state, &vs, &stream, (0, 1)),
                Default::default(),
            )
            .expect_err("an error");
            assert_eq!(
                e.to_string(),
                Error::Exec("batch 3 failed".into()).to_string()
            );
        }
    }

    #[test]
    fn a_stage_that_resizes_its_outputs_is_an_error() {
        let vs = VertexFn {
            varyings: 1,
            f: |_: &VertexBatch, o: &mut VertexOutputs| {
                o.varyings[0].pop();
                Ok(())
            },
        };
        let stream = linear_stream(0, 10);
        let state = PipelineState::default();
        let e = shade_vertices(
            &pool(2),
            &work(&state, &vs, &stream, (0, 1)),
            Default::default(),
        )
        .expect_err("an error");
        assert!(e.to_string().contains("resized its outputs"), "{e}");
    }
}
