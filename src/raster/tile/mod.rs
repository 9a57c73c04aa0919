//! Binning into 64x64 tiles and shading the tiles in parallel, in place.
//!
//! The attachments are cut into per-tile row slices (`TileView`), so every tile writes its own
//! pixels directly and tiles can run on any thread: there is no private copy and no serial
//! write-back. Each tile walks its bin (primitive indices in submission order) in 8x8 blocks:
//! a block outside one edge is skipped, a block inside all edges takes its quads whole, others
//! get per-quad coverage masks from edge values stepped across the block. Covered quads are
//! batched (16 at most, several primitives per batch when they do not overlap) into the
//! fragment stage, then go through the per-fragment operations. The attachments are
//! byte-identical at any thread count: tiles own disjoint pixels, and every per-pixel value is a
//! pure function of the primitive and the pixel (planes are evaluated at the quad's lane 0 and
//! stepped to its other lanes, never across quads).
//!
//! Per-pixel cost (callgrind, `benches/raster.rs`, 1024x1024, one thread, instructions per
//! frame: fullscreen quad 241.4 M -> 149.4 M, 10 000 small triangles 150.9 M -> 137.4 M,
//! depth-tested scene 719.5 M -> 476.6 M). The whole-quad paths, each held to the per-lane
//! path by a test below:
//! - shading a batch (interpolation, the stage run, colour writes): `shade.rs`, whose doc
//!   says how the batch crosses to the fragment stage in row form;
//! - depth: a fully covered quad on the depth-only early path is tested on its two 2-texel row
//!   pieces, with a float format's quantize / compare hoisted out of the lanes (per-lane format
//!   and compare-op dispatch was ~100 M of the depth scene) and done lane-parallel as integer
//!   compares of `total_cmp` order keys; early tests run as each quad is submitted, so quads
//!   that fail take no batch slot and their depth is computed once (depth scene, draw only:
//!   593.4 M -> 531.8 M); a whole 8x8 block on a float format goes a row of four quads at a
//!   time (`depth_row`): each quad's lane-0 depth is the same `Plane::at` expression, its
//!   other lanes the same steps (a bottom lane is its top lane plus `dy`), and the row's two
//!   8-texel depth pieces are quantized, compared and written in straight loops, with no
//!   per-quad slicing, clamp match or compare-op setup (whole run of one frame: depth scene
//!   483.5 M -> 404.2 M; small triangles 239.06 M -> 239.27 M and fullscreen 621.9 M ->
//!   622.2 M, which never take it);
//! - coverage: a block's trivial accept / reject evaluates each edge once and adds its steps
//!   across the block (was four evaluations), and a whole 8x8 block entering an empty batch is
//!   pushed as its 16 quads without per-quad masks (the same quads and order as 16 `push`es);
//! - batch building: `FragCoord`, `FrontFacing`, `PrimitiveId` and `PointCoord` only when the
//!   stage reads them (`FragmentStage::built_ins`; issue #3's frames through the interpreter,
//!   whose shaders read none: 27-33 M fewer instructions per frame).
//!
//! Per-quad trims for issue #3's frames (callgrind, `benches/raster_scenes.rs`, whole run of
//! one frame, one thread; depth scene 404.92 M -> 351.82 M, small triangles 237.43 M ->
//! 232.61 M, fullscreen 529.00 M -> 517.11 M, every image bit-identical at 1 and 2 threads):
//! - only the edges that cross a block get per-quad tests there: an edge whose minimum over
//!   the block is >= 0 passes every pixel of it, so its four compares per quad were wasted
//!   (a medium triangle's partial block is usually crossed by one edge of three); the depth
//!   scene's per-quad edge work went from ~25 M to ~9 M;
//! - with no discard and no late tests the post-shader walk over the quads (which only copied
//!   each mask back) is skipped (~20 instructions per quad, ~8 M on the depth scene);
//! - with the two steps above, the two below and shading trims since replaced by `shade.rs`'s
//!   row form: depth 404.92 -> 383.26 M, small 237.43 -> 234.28 M, fullscreen
//!   529.00 -> 518.47 M;
//! - the quads' depths are a fixed array (one store per quad, was an `extend_from_slice`);
//!   the depth test of a whole quad is inlined once: depth 383.26 ->
//!   375.07 M, small 234.28 -> 233.50 M, fullscreen 518.47 -> 518.25 M;
//! - a partly covered quad on the float depth-only path takes the lane-parallel whole-quad
//!   test with its uncovered lanes masked off (the per-lane path dispatched on the format and
//!   compare op per lane, ~100 instructions per lane), out of line; inlining it next to the
//!   whole-quad call made the whole quads' test ~40 instructions dearer (a variable mask), so
//!   the whole quads keep a constant one: depth 375.07 -> 372.99 M, small and fullscreen
//!   +0.005 M.
//!
//! - the early test of a quad on the float depth-only path is `float_quad`: the hoisted
//!   `FloatDepth` state (pass bits, write) and two fixed 8-byte row pieces, where
//!   `depth_quad` re-derived the compare op's pass bits, matched the format and sliced by
//!   the texel size per quad (`early_test` of a whole quad: ~195 instructions, ~125 now; the
//!   earlier finding that reading the pass bits from `self.float_depth` cost +3 M was made
//!   with that per-quad work left in); partly covered quads take it with the mask, out of
//!   line: depth 372.08 -> 356.48 M (`early_test` inclusive 41.4 -> 25.8 M), small
//!   233.34 -> 233.31 M, fullscreen unchanged. `depth_quad` keeps the unorm formats.
//!
//! - that whole-quad float test is inlined into the block walk (`early_test`; everything else
//!   goes to `early_test_rest`), and the per-quad walk of a partly covered block has two
//!   copies, with and without early tests (`partial_block::<EARLY>`): depth 356.25 ->
//!   351.82 M, small 233.35 -> 232.61 M, fullscreen 517.54 -> 517.11 M. Inlining the test
//!   into the one shared walk alone gave depth 351.79 M but small 234.36 M (+1.0 M: the
//!   walk without early tests paid for the inlined code).
//!
//! Tried and measured slower (callgrind, whole run of one frame, same scenes): per-lane edge
//! values stepped per quad with the lane mask taken from the OR of the edges' values (one sign
//! test per lane instead of one per lane and edge) stayed a scalar loop over the edges: small
//! triangles +2.7 M, depth scene +4.3 M. The per-quad edge test above is the cheaper form.
//!
//! Two threads: each pool thread keeps one `TileShader` and pulls tiles from a counter, most
//! expensive first (before: rayon `map_init` made a new shader, and its buffers, per tile);
//! binning runs per tile row in parallel; the vertex outputs are merged in parallel; setup's
//! per-chunk outputs are used in place (`Prims`) instead of being copied into one array, and
//! each quad carries a reference to its primitive. Work done on the calling thread outside the
//! parallel phases (the Amdahl serial part, callgrind `--separate-threads=yes`): small
//! triangles 7.20 M -> 1.62 M (4.8 % -> 1.2 % of the frame), depth scene 2.71 M -> 2.06 M
//! (0.4 % -> 0.4 %), fullscreen 0.84 M -> 0.80 M (0.3 % -> 0.5 %, the frame shrank). What is
//! left there is primitive assembly and cutting the attachments into tile views.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use rayon::prelude::*;
use rayon::ThreadPool;

use super::output::{depth_stencil, tests_enabled, write_color, DepthStencilBuf};
use super::setup::{Edge, PixRect, Plane, RasterPrim};
use super::stage::{FragInputs, FragmentStage, Interpolation, RowBatch, RowLayout, QUAD_BATCH};
use super::state::ColorBlendAttachment;
use super::state::PipelineState;
use super::target::{unorm8, ColorCodec, ColorFormat, DepthFormat, DepthStencilTarget};
use super::RenderTargets;
use crate::{Error, Result};

/// Tile side in pixels.
pub(crate) const TILE: i32 = 64;

/// The draw's raster primitives as setup made them, one `Vec` per parallel setup chunk, so
/// they need not be copied into one array on the calling thread (for 10 000 small triangles
/// that copy was ~4 M instructions, most of the serial part of the frame). A primitive's id is
/// its chunk shifted left by `bits` plus its offset in the chunk: ids grow in submission order.
pub(crate) struct Prims {
    chunks: Vec<Vec<RasterPrim>>,
    bits: u32,
}

impl Prims {
    pub fn new(mut chunks: Vec<Vec<RasterPrim>>) -> Prims {
        let max = chunks.iter().map(Vec::len).max().unwrap_or(0);
        let bits = usize::BITS - max.leading_zeros();
        if (chunks.len() as u64) << bits <= 1u64 << 32 {
            return Prims { chunks, bits };
        }
        // Too many chunks for the id: one chunk, the id is the index.
        let mut all = Vec::with_capacity(chunks.iter().map(Vec::len).sum());
        for c in chunks.drain(..) {
            all.extend(c);
        }
        Prims {
            chunks: vec![all],
            bits: 32,
        }
    }

    /// The primitive with this id.
    #[inline]
    pub fn get(&self, id: u32) -> &RasterPrim {
        let id = id as u64;
        &self.chunks[(id >> self.bits) as usize][(id & ((1u64 << self.bits) - 1)) as usize]
    }

    /// Every primitive with its id, in submission order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &RasterPrim)> {
        let bits = self.bits;
        self.chunks.iter().enumerate().flat_map(move |(c, v)| {
            v.iter()
                .enumerate()
                .map(move |(o, p)| (((c as u64) << bits | o as u64) as u32, p))
        })
    }
}

/// Everything the tiles read.
pub(crate) struct Scene<'a> {
    pub prims: &'a Prims,
    /// Shaded varyings, `varyings[slot * n_vary + location]`.
    pub varyings: &'a [[u32; 4]],
    pub n_vary: usize,
    pub state: &'a PipelineState,
    pub fs: &'a dyn FragmentStage,
    /// Depth clamp range, when depth clamp is on.
    pub depth_clamp: Option<(f32, f32)>,
}

/// A tile's pixels, borrowed in place from the attachments: one slice per row (the tile's
/// columns of that framebuffer row), so tiles can be shaded in parallel without copies.
struct TileView<'t> {
    rect: PixRect,
    /// `colors[attachment][row]`.
    colors: Vec<Vec<&'t mut [u8]>>,
    depth: Vec<&'t mut [u8]>,
    /// Empty when the attachment has no stencil.
    stencil: Vec<&'t mut [u8]>,
}

/// Cut every attachment into per-tile row slices (tile index `ty * tiles_x + tx`).
fn split_tiles<'t>(
    t: &'t mut RenderTargets,
    w: usize,
    tiles_x: usize,
    rects: &[PixRect],
) -> Vec<TileView<'t>> {
    let mut views: Vec<TileView> = rects
        .iter()
        .map(|&rect| TileView {
            rect,
            colors: Vec::new(),
            depth: Vec::new(),
            stencil: Vec::new(),
        })
        .collect();
    let tile = TILE as usize;
    for (a, c) in t.color.iter_mut().enumerate() {
        let bpp = c.format.bytes_per_texel();
        views
            .iter_mut()
            .for_each(|v| v.colors.push(Vec::with_capacity(tile)));
        for (y, row) in c.data.chunks_exact_mut(w * bpp).enumerate() {
            for (tx, seg) in row.chunks_mut(tile * bpp).enumerate() {
                views[y / tile * tiles_x + tx].colors[a].push(seg);
            }
        }
    }
    if let Some(d) = &mut t.depth_stencil {
        let db = d.format.depth_bytes();
        if db > 0 {
            for (y, row) in d.depth.chunks_exact_mut(w * db).enumerate() {
                for (tx, seg) in row.chunks_mut(tile * db).enumerate() {
                    views[y / tile * tiles_x + tx].depth.push(seg);
                }
            }
        }
        for (y, row) in d.stencil.chunks_exact_mut(w).enumerate() {
            for (tx, seg) in row.chunks_mut(tile).enumerate() {
                views[y / tile * tiles_x + tx].stencil.push(seg);
            }
        }
    }
    views
}

/// Per colour attachment: format, blend state, bytes per texel.
type Attachment = (ColorFormat, ColorBlendAttachment, usize);

/// Bin the primitives and shade every tile that has any, in place.
///
/// Binning runs one tile row per job (each job scans the primitives' bounding boxes; they are
/// in submission order, so every bin is too). Each pool thread then keeps one [`TileShader`]
/// (its batch buffers are allocated once per thread, not once per tile) and takes the next tile
/// from a shared counter, most expensive tiles first (covered bounding-box area as the
/// estimate), so the last tiles to finish are small ones and neither thread waits long for the
/// other at the end. Tiles own disjoint pixels, so the order they run in does not change any
/// byte; an error is reported for the lowest-numbered failing tile, as before.
pub(crate) fn render(pool: &ThreadPool, scene: &Scene, targets: &mut RenderTargets) -> Result<()> {
    let (w, h) = targets.size()?;
    let (tiles_x, tiles_y) = ((w as i32 + TILE - 1) / TILE, (h as i32 + TILE - 1) / TILE);
    let rows: Vec<Vec<(Vec<u32>, u64)>> = pool.install(|| {
        (0..tiles_y)
            .into_par_iter()
            .map(|ty| {
                let mut row = vec![(Vec::new(), 0u64); tiles_x as usize];
                let (ry0, ry1) = (ty * TILE, ty * TILE + TILE - 1);
                for (i, p) in scene.prims.iter() {
                    let b = &p.bbox;
                    if b.y1 < ry0 || b.y0 > ry1 {
                        continue;
                    }
                    let rows = (b.y1.min(ry1) - b.y0.max(ry0) + 1) as u64;
                    for tx in b.x0 / TILE..=b.x1 / TILE {
                        let (rx0, rx1) = (tx * TILE, tx * TILE + TILE - 1);
                        let cols = (b.x1.min(rx1) - b.x0.max(rx0) + 1) as u64;
                        let (bin, cost) = &mut row[tx as usize];
                        bin.push(i);
                        *cost += rows * cols;
                    }
                }
                row
            })
            .collect()
    });
    let (bins, costs): (Vec<Vec<u32>>, Vec<u64>) = rows.into_iter().flatten().unzip();
    let rects: Vec<PixRect> = (0..tiles_x * tiles_y)
        .map(|t| {
            let (tx, ty) = (t % tiles_x, t / tiles_x);
            PixRect {
                x0: tx * TILE,
                y0: ty * TILE,
                x1: (tx * TILE + TILE - 1).min(w as i32 - 1),
                y1: (ty * TILE + TILE - 1).min(h as i32 - 1),
            }
        })
        .collect();
    let atts: Vec<Attachment> = targets
        .color
        .iter()
        .enumerate()
        .map(|(a, c)| {
            let att = scene
                .state
                .blend_attachments
                .get(a)
                .copied()
                .unwrap_or_default();
            (c.format, att, c.format.bytes_per_texel())
        })
        .collect();
    let ds_format = targets.depth_stencil.as_ref().map(|d| d.format);
    let views = split_tiles(targets, w as usize, tiles_x as usize, &rects);
    let mut work: Vec<(usize, TileView)> = views
        .into_iter()
        .enumerate()
        .filter(|(t, _)| !bins[*t].is_empty())
        .collect();
    // Stable: equal costs keep tile order.
    work.sort_by_key(|(t, _)| std::cmp::Reverse(costs[*t]));
    let queue: Vec<Mutex<Option<(usize, TileView)>>> =
        work.into_iter().map(|w| Mutex::new(Some(w))).collect();
    let next = AtomicUsize::new(0);
    let failures: Vec<Option<(usize, Error)>> = pool.broadcast(|_| {
        let mut sh = TileShader::new(scene, &atts, ds_format);
        let mut first: Option<(usize, Error)> = None;
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(slot) = queue.get(i) else {
                return first;
            };
            let taken = slot.lock().unwrap_or_else(|e| e.into_inner()).take();
            let Some((t, mut view)) = taken else {
                continue;
            };
            if let Err(e) = sh.shade(&bins[t], &mut view) {
                if first.as_ref().is_none_or(|(f, _)| t < *f) {
                    first = Some((t, e));
                }
            }
        }
    });
    match failures.into_iter().flatten().min_by_key(|(t, _)| *t) {
        Some((_, e)) => Err(e),
        None => Ok(()),
    }
}

/// A 2x2 quad waiting for the fragment stage.
#[derive(Clone, Copy, Debug)]
struct Quad<'a> {
    /// Framebuffer position of lane 0 (even x and y).
    x: i32,
    y: i32,
    /// Covered lanes (bit k = lane k).
    mask: u8,
    /// Id of the primitive in `Scene::prims`.
    prim: u32,
    /// The primitive itself, looked up once per primitive and tile.
    p: &'a RasterPrim,
}

/// Side of the blocks a tile is walked in: each edge is evaluated at a block's corners, and a
/// block outside an edge is skipped, a block inside all edges takes its quads without per-lane
/// edge tests (llvmpipe's trivial reject / accept). 8x8 pixels = 16 quads = one full batch.
const BLOCK: i32 = 8;

/// Lane mask of the quad at (qx, qy) restricted to the pixels x0..=x1, y0..=y1.
#[inline]
fn rect_mask(qx: i32, qy: i32, x0: i32, y0: i32, x1: i32, y1: i32) -> u8 {
    let cols = (qx >= x0) as u8 | (((qx < x1) as u8) << 1);
    let rows = (qy >= y0) as u8 | (((qy < y1) as u8) << 1);
    let top = if rows & 1 != 0 { cols } else { 0 };
    let bottom = if rows & 2 != 0 { cols << 2 } else { 0 };
    top | bottom
}

/// Lanes of a quad whose edge value at lane 0 is `v` (steps `ex`, `ey`) are inside.
#[inline]
fn edge_mask(v: i64, ex: i64, ey: i64) -> u8 {
    (v >= 0) as u8
        | (((v + ex >= 0) as u8) << 1)
        | (((v + ey >= 0) as u8) << 2)
        | (((v + ex + ey >= 0) as u8) << 3)
}

/// Tile shading state; one per pool thread, reused across the tiles it shades so batch
/// buffers are allocated once per thread.
///
/// A batch may hold quads of several consecutive primitives as long as no two of its quads
/// cover the same quad position: then the order in which the batch's fragments are tested and
/// written does not matter, and the result equals submission order.
struct TileShader<'a> {
    scene: &'a Scene<'a>,
    atts: &'a [Attachment],
    ds_format: Option<DepthFormat>,
    early: bool,
    tests: bool,
    /// Depth test (and write) only, no stencil and no bounds: the inlined path.
    depth_only: bool,
    /// The fragment stage's interface layout (asked once per draw and thread) and the batch
    /// in that form; `layout_error`: what is wrong with a layout naming rows it does not have.
    layout: RowLayout,
    layout_error: Option<String>,
    batch: RowBatch,
    quads: Vec<Quad<'a>>,
    /// Quad positions used by the current batch: bit x of row y (tile-local quad units).
    occupied: [u32; (TILE / 2) as usize],
    /// The depths of `quads`, quad by quad (filled when `needs_z`); a fixed array, so adding
    /// a quad's depths is one store (`extend_from_slice` on a `Vec` was ~9 instructions).
    z: [[f32; 4]; QUAD_BATCH],
    /// Per lane of the current primitive run: 1 / denominator, smooth and noperspective.
    inv: [[[f64; 4]; QUAD_BATCH]; 2],
    /// The built-in inputs the fragment stage reads.
    built_ins: FragInputs,
    /// The `depth_only` test on a float format, hoisted (whole blocks take `depth_row`).
    float_depth: Option<FloatDepth>,
    /// Whether anything reads the quads' depths (`self.z`): the depth/stencil tests,
    /// `FragCoord`, or a `FragDepth` output (which starts as the interpolated depth).
    needs_z: bool,
}

impl<'a> TileShader<'a> {
    fn new(scene: &'a Scene<'a>, atts: &'a [Attachment], ds_format: Option<DepthFormat>) -> Self {
        let fs = scene.fs;
        let ds = &scene.state.depth_stencil;
        let tests = tests_enabled(ds, ds_format);
        let depth_only = tests
            && ds.depth_test
            && ds.depth_bounds.is_none()
            && !(ds.stencil_test && ds_format.is_some_and(|f| f.has_stencil()))
            && ds_format.is_some_and(|f| f.has_depth());
        let built_ins = fs.built_ins();
        let layout = fs.layout(atts.len());
        let float_format =
            ds_format.is_some_and(|f| f.depth_bytes() == 4 && f.unorm_bits().is_none());
        let float_depth = (depth_only && float_format).then(|| {
            use std::cmp::Ordering::{Equal, Greater, Less};
            FloatDepth {
                pass: [Less, Equal, Greater].map(|o| ds.depth_compare.test(o) as u32),
                write: ds.depth_write,
                clamp: scene.depth_clamp,
            }
        });
        TileShader {
            scene,
            atts,
            ds_format,
            early: !fs.writes_depth() && !fs.can_discard(),
            tests,
            depth_only,
            layout_error: shade::layout_error(&layout),
            layout,
            batch: RowBatch::default(),
            quads: Vec::with_capacity(QUAD_BATCH),
            occupied: [0; (TILE / 2) as usize],
            z: [[0.0; 4]; QUAD_BATCH],
            inv: [[[0.0; 4]; QUAD_BATCH]; 2],
            built_ins,
            needs_z: tests || built_ins.frag_coord || fs.writes_depth(),
            float_depth,
        }
    }

    fn shade(&mut self, bin: &[u32], view: &mut TileView) -> Result<()> {
        // A tile that failed part way may have left quads of its own behind.
        self.quads.clear();
        self.occupied = [0; (TILE / 2) as usize];
        let rect = view.rect;
        for &pi in bin {
            let scene: &'a Scene<'a> = self.scene;
            let p = scene.prims.get(pi);
            let Some(r) = p.bbox.intersect(&rect) else {
                continue;
            };
            let edges = &p.edges[..p.n_edges];
            let bx0 = rect.x0 + (r.x0 - rect.x0) / BLOCK * BLOCK;
            let mut by = rect.y0 + (r.y0 - rect.y0) / BLOCK * BLOCK;
            while by <= r.y1 {
                let (y0, y1) = (by.max(r.y0), (by + BLOCK - 1).min(r.y1));
                let mut bx = bx0;
                while bx <= r.x1 {
                    let (x0, x1) = (bx.max(r.x0), (bx + BLOCK - 1).min(r.x1));
                    bx += BLOCK;
                    // The edge functions are linear: their extremes over the block's pixel
                    // centres are at its corners.
                    let mut out = false;
                    // The edges that cross the block: only they can clear a lane of it (an
                    // edge whose minimum over the block is >= 0 passes every pixel in it).
                    let mut crossing = [Edge::default(); 4];
                    let mut n_cross = 0;
                    // One evaluation per edge: the corner values are that plus the steps
                    // across the block in x and in y (exact integers, so the same values).
                    let (w, h) = ((x1 - x0) as i64, (y1 - y0) as i64);
                    for e in edges {
                        let a = e.at(x0 as i64, y0 as i64);
                        let (sx, sy) = (e.ex * w, e.ey * h);
                        if a + sx.max(0) + sy.max(0) < 0 {
                            out = true;
                            break;
                        }
                        if a + sx.min(0) + sy.min(0) < 0 {
                            crossing[n_cross] = *e;
                            n_cross += 1;
                        }
                    }
                    if out {
                        continue;
                    }
                    let full = n_cross == 0;
                    let crossing = &crossing[..n_cross];
                    let whole = full && (x1 - x0, y1 - y0) == (BLOCK - 1, BLOCK - 1);
                    if whole && self.early_tests() {
                        if let Some(fd) = self.float_depth {
                            // Float depth only: a row of four quads at a time, depths and
                            // tests over the row's two 8-texel pieces (`depth_row`).
                            let lx0 = (x0 - rect.x0) as usize * 4;
                            for r in 0..BLOCK / 2 {
                                let qy = y0 + 2 * r;
                                let ly = (qy - rect.y0) as usize;
                                let (upper, lower) = view.depth.split_at_mut(ly + 1);
                                let (masks, zs) = depth_row(
                                    &fd,
                                    &p.z,
                                    p.z_offset,
                                    x0,
                                    qy,
                                    &mut upper[ly][lx0..lx0 + 4 * BLOCK as usize],
                                    &mut lower[0][lx0..lx0 + 4 * BLOCK as usize],
                                );
                                for (j, (&mask, z)) in masks.iter().zip(zs).enumerate() {
                                    if mask != 0 {
                                        let x = x0 + 2 * j as i32;
                                        let q = Quad {
                                            x,
                                            y: qy,
                                            mask,
                                            prim: pi,
                                            p,
                                        };
                                        self.enqueue(view, q, z)?;
                                    }
                                }
                            }
                            continue;
                        }
                        // A whole block with early tests: its quads go through the test one by
                        // one, only survivors into the batch (no per-quad masks to make).
                        for qy in (y0..=y1).step_by(2) {
                            for qx in (x0..=x1).step_by(2) {
                                let q = Quad {
                                    x: qx,
                                    y: qy,
                                    mask: 0xf,
                                    prim: pi,
                                    p,
                                };
                                self.submit::<true>(view, q)?;
                            }
                        }
                        continue;
                    }
                    if whole
                        && self.quads.is_empty()
                        && ((BLOCK / 2) * (BLOCK / 2)) as usize == QUAD_BATCH
                    {
                        // A whole block into an empty batch: exactly what its 16 `push`es
                        // would do (same quads, same order, one full batch), without the
                        // per-quad masks and occupancy checks.
                        for qy in (y0..=y1).step_by(2) {
                            for qx in (x0..=x1).step_by(2) {
                                let q = Quad {
                                    x: qx,
                                    y: qy,
                                    mask: 0xf,
                                    prim: pi,
                                    p,
                                };
                                if self.needs_z {
                                    self.z[self.quads.len()] = quad_depth(&q);
                                }
                                self.quads.push(q);
                            }
                        }
                        self.flush(view)?;
                        continue;
                    }
                    // Two copies of the per-quad walk, with and without early tests, so the
                    // inlined early test does not weigh on the walk without it.
                    let b = PixRect { x0, y0, x1, y1 };
                    if self.early_tests() {
                        self.partial_block::<true>(view, pi, p, crossing, b)?;
                    } else {
                        self.partial_block::<false>(view, pi, p, crossing, b)?;
                    }
                }
                by += BLOCK;
            }
        }
        if !self.quads.is_empty() {
            self.flush(view)?;
        }
        Ok(())
    }

    /// The quads of a block's pixels `b` that primitive `pi` covers, each submitted; only the
    /// `crossing` edges are tested (none: the block is inside every edge). `EARLY`: whether
    /// early tests run ([`Self::early_tests`]).
    #[inline(always)]
    fn partial_block<const EARLY: bool>(
        &mut self,
        view: &mut TileView,
        pi: u32,
        p: &'a RasterPrim,
        crossing: &[Edge],
        b: PixRect,
    ) -> Result<()> {
        let PixRect { x0, y0, x1, y1 } = b;
        let full = crossing.is_empty();
        let mut qy = y0 & !1;
        while qy <= y1 {
            let mut qx = x0 & !1;
            // Edge values at lane 0 of the row's first quad, stepped by 2 pixels.
            let mut v = [0i64; 4];
            for (v, e) in v.iter_mut().zip(crossing) {
                *v = e.at(qx as i64, qy as i64);
            }
            while qx <= x1 {
                let mut mask = rect_mask(qx, qy, x0, y0, x1, y1);
                if !full {
                    for (v, e) in v.iter_mut().zip(crossing) {
                        mask &= edge_mask(*v, e.ex, e.ey);
                        *v += 2 * e.ex;
                    }
                }
                if mask != 0 {
                    let q = Quad {
                        x: qx,
                        y: qy,
                        mask,
                        prim: pi,
                        p,
                    };
                    self.submit::<EARLY>(view, q)?;
                }
                qx += 2;
            }
            qy += 2;
        }
        Ok(())
    }

    /// Whether the depth/stencil tests run before the fragment shader.
    #[inline]
    fn early_tests(&self) -> bool {
        self.early && self.tests
    }

    /// A covered quad: its depth per lane, then (early tests) the tests, which may drop lanes
    /// or the whole quad; what is left goes into the batch. Testing here rather than when the
    /// batch is shaded gives the same results: the batch's quads sit at distinct positions
    /// (a quad at an occupied position flushes the batch first), so no pending quad touches
    /// the pixels tested, and each pixel still sees its tests in submission order. Quads that
    /// fail take no batch slot and are never interpolated.
    /// `EARLY` is [`Self::early_tests`], a constant so each caller's copy keeps only its path.
    #[inline(always)]
    fn submit<const EARLY: bool>(&mut self, view: &mut TileView, mut q: Quad<'a>) -> Result<()> {
        let z = if self.needs_z {
            quad_depth(&q)
        } else {
            [0.0; 4]
        };
        if EARLY {
            q.mask = self.early_test(view, &q, z);
            if q.mask == 0 {
                return Ok(());
            }
        }
        self.enqueue(view, q, z)
    }

    /// A quad past its early tests (if any) with its depths `z` into the batch: the batch is
    /// flushed first if it already has a quad at that position, and after if it is full.
    #[inline(always)]
    fn enqueue(&mut self, view: &mut TileView, q: Quad<'a>, z: [f32; 4]) -> Result<()> {
        let rect = view.rect;
        let (ox, oy) = (((q.x - rect.x0) / 2) as u32, ((q.y - rect.y0) / 2) as usize);
        if self.occupied[oy] & (1 << ox) != 0 {
            self.flush(view)?;
        }
        self.occupied[oy] |= 1 << ox;
        if self.needs_z {
            self.z[self.quads.len()] = z;
        }
        self.quads.push(q);
        if self.quads.len() == QUAD_BATCH {
            self.flush(view)?;
        }
        Ok(())
    }
}

/// A plane at the four lanes of a quad: evaluated at lane 0, stepped to the others.
#[inline]
fn quad_values(pl: &Plane, q: &Quad) -> [f64; 4] {
    let v = pl.at(q.x as f64 + 0.5, q.y as f64 + 0.5);
    [v, v + pl.dx, v + pl.dy, v + pl.dx + pl.dy]
}

mod depth;
mod shade;
use depth::*;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raster::*;
    use std::cmp::Ordering;

    /// Every depth compare op.
    const COMPARE_OPS: [CompareOp; 8] = [
        CompareOp::Less,
        CompareOp::LessOrEqual,
        CompareOp::Greater,
        CompareOp::GreaterOrEqual,
        CompareOp::Equal,
        CompareOp::NotEqual,
        CompareOp::Always,
        CompareOp::Never,
    ];

    fn dummy(id: u32) -> RasterPrim {
        use crate::raster::setup::{Edge, PrimInfo};
        RasterPrim {
            edges: [Edge::default(); 4],
            n_edges: 3,
            bbox: PixRect {
                x0: 0,
                y0: 0,
                x1: 0,
                y1: 0,
            },
            z: Plane::default(),
            z_offset: 0.0,
            inv_w: Plane::default(),
            bw: [Plane::default(); 3],
            info: PrimInfo {
                slots: [0; 3],
                n_verts: 3,
                orig_w: [1.0; 3],
                primitive_id: id,
                front: true,
            },
            point: None,
        }
    }

    /// Ids of chunked primitives: submission order, and `get` finds each one.
    fn check_prims(chunks: Vec<Vec<RasterPrim>>, want: u32) {
        let prims = Prims::new(chunks);
        let all: Vec<(u32, u32)> = prims
            .iter()
            .map(|(id, p)| (id, p.info.primitive_id))
            .collect();
        assert_eq!(all.len() as u32, want);
        for (n, &(id, pid)) in all.iter().enumerate() {
            assert_eq!(pid, n as u32, "submission order");
            assert_eq!(prims.get(id).info.primitive_id, pid);
            if n > 0 {
                assert!(id > all[n - 1].0, "ids grow");
            }
        }
    }

    #[test]
    fn chunked_primitive_ids() {
        // Chunks of uneven lengths, some empty.
        let mut next = 0;
        let mut chunks = Vec::new();
        for len in [3usize, 0, 7, 1, 0, 256, 5] {
            chunks.push(
                (0..len)
                    .map(|_| {
                        next += 1;
                        dummy(next - 1)
                    })
                    .collect(),
            );
        }
        check_prims(chunks, next);
        // So many chunks that chunk and offset do not fit in 32 bits (2^19 + 1 chunks, one of
        // 4096 primitives: 13 offset bits): the fallback of one flat chunk.
        let mut chunks: Vec<Vec<RasterPrim>> = vec![Vec::new(); (1 << 19) + 1];
        chunks[1] = (0..4096).map(dummy).collect();
        chunks[1 << 19] = vec![dummy(4096)];
        let prims = Prims::new(chunks);
        assert_eq!(prims.bits, 32);
        assert_eq!(prims.chunks.len(), 1);
        assert_eq!(prims.get(4096).info.primitive_id, 4096);
    }

    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> f32 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 40) as f32 / (1u64 << 24) as f32
        }
    }

    /// Overlapping triangles at random depths and perspective w, with colours out of [0, 1]
    /// (so the conversion clamps), drawn into an odd-sized target (partial quads at the edges).
    ///
    /// `redraw`: the same triangles again (same depths) in other colours, so a test's
    /// outcome on equal depths shows in the picture.
    fn scene(
        rt: &mut RenderTargets,
        ds: DepthStencilState,
        blend: bool,
        threads: usize,
        redraw: bool,
    ) {
        let mut r = Lcg(7);
        let mut pos = Vec::new();
        let mut col = Vec::new();
        for _ in 0..60 {
            let (cx, cy, z) = (r.next() * 2.0 - 1.0, r.next() * 2.0 - 1.0, r.next());
            let mut c = [r.next() * 1.4 - 0.2, r.next(), r.next() * 1.2, 1.0];
            if redraw {
                c[1] = 1.0 - c[1];
            }
            for _ in 0..3 {
                let w = 1.0 + r.next();
                let (x, y) = (r.next() - 0.5, r.next() - 0.5);
                pos.push([(cx + x) * w, (cy + y) * w, z * w, w]);
                col.push(c.map(f32::to_bits));
            }
        }
        let vs = VertexFn {
            varyings: 1,
            f: |i: &VertexBatch, o: &mut VertexOutputs| {
                for (v, &idx) in i.vertex_index.iter().enumerate() {
                    o.position[v] = pos[idx as usize];
                    o.varyings[0][v] = col[idx as usize];
                }
                Ok(())
            },
        };
        let fs = FragmentFn {
            interpolation: vec![Interpolation::Smooth],
            writes_depth: false,
            can_discard: false,
            f: |i: &QuadBatch, o: &mut QuadOutputs| {
                o.color[0].copy_from_slice(&i.varyings[0]);
                Ok(())
            },
        };
        let mut state = PipelineState {
            depth_stencil: ds,
            ..Default::default()
        };
        if blend {
            // One * src + Zero * dst: the blending write path, same bytes as a plain write.
            state.blend_attachments = vec![ColorBlendAttachment {
                blend_enable: true,
                src_color_factor: BlendFactor::One,
                dst_color_factor: BlendFactor::Zero,
                src_alpha_factor: BlendFactor::One,
                dst_alpha_factor: BlendFactor::Zero,
                ..Default::default()
            }];
        }
        let pipeline = Pipeline {
            state,
            vertex: &vs,
            fragment: &fs,
        };
        let raster = Rasterizer::new(threads).unwrap();
        let mut pass = raster.begin(rt);
        pass.bind_pipeline(&pipeline);
        pass.draw(pos.len() as u32, 1, 0, 0).unwrap();
    }

    #[test]
    fn order_keys_order_as_total_cmp() {
        // what an uploaded depth image may hold: negatives, -0, subnormals, infinities, NaNs
        let v = [
            f32::NEG_INFINITY,
            -1.5,
            -1e-40,
            -0.0,
            0.0,
            1e-40,
            0.25,
            1.0,
            2.0,
            f32::INFINITY,
            f32::NAN,
            -f32::NAN,
        ];
        for a in v {
            for b in v {
                let keys = order_key(a.to_bits()).cmp(&order_key(b.to_bits()));
                assert_eq!(keys, a.total_cmp(&b), "{a} {b}");
            }
        }
    }

    /// `depth_row` against quad-by-quad depths (`quad_depth`) and a per-lane test written from
    /// the format's own `quantize` / `cmp_stored` and the compare op.
    #[test]
    fn depth_row_matches_per_quad_depths_and_per_lane_tests() {
        let mut r = Lcg(11);
        let special = [
            f32::NAN,
            -0.0,
            0.0,
            1.0,
            -1.0,
            2.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            1e-40,
        ];
        let ops = COMPARE_OPS;
        let fmt = DepthFormat::D32Sfloat;
        let mut passed = 0;
        let mut failed = 0;
        for case in 0..4000 {
            let op = ops[case % ops.len()];
            let write = case % 3 != 0;
            let clamp = (case % 5 == 0).then_some((0.25f32, 0.75f32));
            let fd = FloatDepth {
                pass: [Ordering::Less, Ordering::Equal, Ordering::Greater]
                    .map(|o| op.test(o) as u32),
                write,
                clamp,
            };
            let scale = [1.0, 1e-3, 1e3][case % 3];
            let mut p = dummy(0);
            p.z = Plane {
                x0: r.next() as f64 * 300.0,
                y0: r.next() as f64 * 300.0,
                a: r.next() as f64 * 1.4 - 0.2,
                dx: (r.next() as f64 - 0.5) * 0.01 * scale,
                dy: (r.next() as f64 - 0.5) * 0.01 * scale,
            };
            p.z_offset = if case % 4 == 0 {
                r.next() as f64 * 1e-3
            } else {
                0.0
            };
            let (qx, qy) = (2 * (r.next() * 200.0) as i32, 2 * (r.next() * 200.0) as i32);
            // Stored depths: special values, and the quads' own depths now and then (equal).
            let own: Vec<f32> = (0..ROW / 2)
                .flat_map(|j| {
                    let q = Quad {
                        x: qx + 2 * j as i32,
                        y: qy,
                        mask: 0xf,
                        prim: 0,
                        p: &p,
                    };
                    quad_depth(&q)
                })
                .collect();
            let mut rows = [[0u8; 4 * ROW]; 2];
            for (y, row) in rows.iter_mut().enumerate() {
                for (k, t) in row.chunks_exact_mut(4).enumerate() {
                    let v = match (r.next() * 3.0) as u32 {
                        0 => special[(r.next() * special.len() as f32) as usize % special.len()],
                        1 => fmt.dequantize(fmt.quantize(own[k / 2 * 4 + y * 2 + k % 2])),
                        _ => r.next(),
                    };
                    t.copy_from_slice(&v.to_bits().to_le_bytes());
                }
            }
            let mut want_rows = rows;
            let mut want = Vec::new();
            for j in 0..ROW / 2 {
                let q = Quad {
                    x: qx + 2 * j as i32,
                    y: qy,
                    mask: 0xf,
                    prim: 0,
                    p: &p,
                };
                let z = quad_depth(&q);
                let mut mask = 0u8;
                for (k, &z) in z.iter().enumerate() {
                    let zc = match clamp {
                        Some((lo, hi)) => z.clamp(lo, hi),
                        None => z,
                    };
                    let qz = fmt.quantize(zc);
                    let (row, i) = (&mut want_rows[k >> 1], 2 * j + (k & 1));
                    let stored = DepthStencilTarget::stored_depth(row, fmt, i);
                    if op.test(fmt.cmp_stored(qz, stored)) {
                        mask |= 1 << k;
                        if write {
                            DepthStencilTarget::store_depth(row, fmt, i, qz);
                        }
                    }
                }
                want.push((mask, z.map(f32::to_bits)));
            }
            let [top, bottom] = &mut rows;
            let (masks, zs) = depth_row(&fd, &p.z, p.z_offset, qx, qy, top, bottom);
            let got: Vec<(u8, [u32; 4])> = masks
                .iter()
                .zip(zs)
                .map(|(&m, z)| (m, z.map(f32::to_bits)))
                .collect();
            assert_eq!(got, want, "case {case}");
            assert_eq!(rows, want_rows, "case {case}: stored depths");
            for &(m, _) in &want {
                passed += m.count_ones();
                failed += 4 - m.count_ones();
            }
        }
        assert!(passed > 10_000 && failed > 10_000, "{passed} {failed}");
    }

    /// Also holds the partly covered quads of the float depth-only path (masked lane-parallel
    /// test) to the per-lane test: the odd-sized target leaves partial quads at its edges.
    #[test]
    fn whole_quad_paths_match_the_per_lane_paths() {
        let (w, h) = (157, 93);
        let ops = COMPARE_OPS;
        let mut cases = vec![(DepthFormat::D16Unorm, CompareOp::Less, true, 1.0)];
        for op in ops {
            for write in [true, false] {
                // a clear in the middle of the scene's depths, so every op passes some
                // fragments and fails others
                cases.push((DepthFormat::D32Sfloat, op, write, 0.5));
            }
        }
        cases.push((DepthFormat::D32Sfloat, CompareOp::Less, true, 1.0));
        for (fmt, op, write, clear) in cases {
            let depth = DepthStencilState {
                depth_test: true,
                depth_write: write,
                depth_compare: op,
                ..Default::default()
            };
            let what = format!("{fmt:?} {op:?} write {write} clear {clear}");
            // Fast: plain RGBA8 writes and the depth-only test, both whole-quad.
            let mut fast = RenderTargets {
                color: vec![ColorTarget::new(ColorFormat::R8G8B8A8Unorm, w, h)],
                depth_stencil: Some(DepthStencilTarget::new(fmt, w, h)),
            };
            fast.depth_stencil.as_mut().unwrap().clear(clear, 0);
            scene(&mut fast, depth, false, 2, false);
            scene(&mut fast, depth, false, 2, true);
            // Per lane: the blend write path, and the general depth/stencil test (a stencil
            // test that always passes and keeps).
            let slow_fmt = match fmt {
                DepthFormat::D32Sfloat => DepthFormat::D32SfloatS8Uint,
                _ => DepthFormat::D24UnormS8Uint,
            };
            let mut slow = RenderTargets {
                color: vec![ColorTarget::new(ColorFormat::R8G8B8A8Unorm, w, h)],
                depth_stencil: Some(DepthStencilTarget::new(slow_fmt, w, h)),
            };
            slow.depth_stencil.as_mut().unwrap().clear(clear, 0);
            let stencil = DepthStencilState {
                stencil_test: true,
                ..depth
            };
            scene(&mut slow, stencil, true, 1, false);
            scene(&mut slow, stencil, true, 1, true);
            assert_eq!(fast.color[0].data, slow.color[0].data, "{what}: colour");
            let (fd, sd) = (fast.depth_stencil.unwrap(), slow.depth_stencil.unwrap());
            let covered = fast.color[0].data.chunks(4).filter(|t| t[3] != 0).count();
            let expect_some = !matches!(op, CompareOp::Never | CompareOp::Equal);
            assert!(
                !expect_some || covered > (w * h) as usize / 8,
                "{what}: the scene covers {covered} pixels"
            );
            for y in 0..h {
                for x in 0..w {
                    let (a, b) = (fd.read_depth(x, y), sd.read_depth(x, y));
                    match fmt {
                        DepthFormat::D32Sfloat => assert_eq!(a.to_bits(), b.to_bits(), "{what}"),
                        // D16 and D24 quantise differently: compare to D16's precision.
                        _ => assert!((a - b).abs() <= 0.5 / 65535.0 + 1e-7, "{what}: {a} {b}"),
                    }
                }
            }
        }
    }
}
