//! Binning into 64x64 tiles and shading the tiles in parallel, in place: from set-up primitives
//! to covered, early-tested quads in fragment batches.
//!
//! - **Tiles own their pixels.** The attachments are cut into per-tile row slices
//!   (`TileView`), so every tile writes its own pixels directly, on any thread, with no copy
//!   and no serial write-back. Binning is a parallel counting sort of the primitives'
//!   compact bounding boxes (`bin`), beside the cutting of the views (band by band in
//!   parallel); each pool thread keeps one `TileShader` and pulls tiles from a queue, most
//!   expensive first (covered bbox area), so the last tiles to finish are small, and never
//!   beside another thread's tile while a tile elsewhere is free (`queue`: their boundary
//!   cache lines are shared). Tiles keep their primitives in submission order and every
//!   per-pixel value is a pure function of primitive and pixel (planes evaluated at a quad's
//!   lane 0 and stepped to its other lanes, never across quads), so the bytes
//!   are the same at any thread count.
//! - **Clears are tile work.** The render pass's clears are recorded, not written
//!   (`super::Clears`), and every tile (those no primitive touches too) fills its own
//!   rectangle just before it is shaded, as llvmpipe's clear bin command does: a 1024x1024
//!   frame's attachments are written once, from cache, instead of filled in memory and read
//!   back by the draw (at the price of a fill call per row).
//! - **The next tile is prefetched.** Each thread claims its next tile before it shades the
//!   current one and prefetches one of its pixel rows (into L2) per block visit (`Ahead`).
//!   A tile row is 256 bytes of a 4 KiB page, so neither the stores of the clear nor the
//!   hardware prefetchers run ahead of the page misses; the prefetch takes the page walks
//!   off the fills. The bin's primitive after next is prefetched too (`PRIM_PREFETCH`): a
//!   bin's ~400-byte primitives lie scattered over the setup chunks, and rasterising one is
//!   too long for the out-of-order window to reach the next one's misses (the setup loop
//!   likewise prefetches its output slot two ahead). The next primitive's vertex varyings
//!   are prefetched as well (by then its record has arrived, so its slots can be read):
//!   they too were made by either thread, and the colour planes read them first thing.
//! - **The 8x8 block is the unit** of coverage and early depth: 16 quads; a batch is up to
//!   four of them (64 quads, `QUAD_BATCH`: each batch pays the stage entry, the
//!   interpreter's per-instruction dispatch and the sampler's call once; at one block per
//!   batch that overhead would be a large part of a fullscreen frame).
//!   A block's coverage is one 64-bit mask in quad order (`cover`: bit 4k + lane is
//!   lane `lane` of quad k), which is what the depth test and the batch consume, so no
//!   per-quad masks are ever made. Per primitive and tile the four edge values at a
//!   block's corner are two `i64x2`s stepped block by block (exact integers); a block is
//!   outside if an edge's maximum over it is negative, and only the edges whose minimum is
//!   negative (crossing it) are evaluated at its 64 pixels, as `i32x4` quads OR-ed over the
//!   edges and packed to the mask with one byte movemask (i64 per pixel for edges too steep
//!   for i32). A rectangle mask from a table clips blocks the bbox, scissor or framebuffer
//!   cut. llvmpipe's rasterizer is the model; per quad and edge the scalar tests had cost
//!   ~25 instructions.
//! - **Early tests at submission, a block at a time.** With early fragment tests a block's
//!   covered pixels are tested (and written) before its quads take batch slots: the
//!   batch's quads sit at distinct positions (a quad at an occupied one flushes the batch
//!   first), so each pixel still sees its tests in submission order, and quads that fail
//!   are never interpolated or shaded. The float depth-only test of a block inside the
//!   tile is `depth::depth_block` (f64x2 planes, integer compares of raw bits, the compare
//!   op a constant); the other tests go quad by quad (`early_test`). They compute their own
//!   depths: the batch carries depths (`needs_z`) only for late tests, `FragCoord` or
//!   `FragDepth`.
//! - **Batching without per-quad bookkeeping.** A block's surviving quads enter the batch
//!   in quad order in one call: its 16 occupancy bits are one field of `occupied`, read and
//!   written once, and the quads are pushed by a call-free loop between flushes. The batch
//!   composition (which quads, in which order, where it is flushed) is what the per-quad
//!   walk made, so subgroup-visible batching is unchanged too.
//!
//! Cost (callgrind, the depth frame of `benches/raster_scenes.rs`, one thread): the walk,
//! masks, early tests and batching come to about 80 instructions per depth-tested quad, of
//! which `depth_block`'s tests are about 8 per tested pixel. Callgrind totals of two builds of one
//! source can differ by a few million instructions from codegen-unit partitioning alone, so
//! compare the functions involved, not only totals.
//!
//! Deliberately not here: a hierarchical depth bound per block (keeping the bounds costs
//! more than the rejected blocks save at the overdraw of typical scenes), and AVX2 forms of
//! the walk (its work is scalar and i64x2, which VEX encodings do not speed up).
//!
//! The shading side (interpolation, the row-form stage run, colour writes) is `shade.rs`,
//! whose doc holds its figures. A pass-through stage (`color = v`: its row form runs
//! nothing) takes no batch at all: each block's surviving pixels are interpolated, converted
//! and written by the walk (`direct.rs`).

use std::sync::Mutex;

use rayon::prelude::*;
use rayon::ThreadPool;

use super::blend_rows::{BlendRows, Equation};
use super::output::{depth_stencil, tests_enabled, write_color, DepthStencilBuf};
use super::setup::{Edge, PixRect, Plane, RasterPrim};
use super::state::ColorBlendAttachment;
use super::state::PipelineState;
use super::target::{ColorCodec, DepthAspect, DepthStencilTarget};
use super::{Clears, RenderTargets};
use crate::cpu::Cache;
use crate::format::{unorm8, unorm8_redo, unorm8_x4, Format, Worst4};
#[cfg(target_arch = "x86_64")]
use crate::format::{unorm8_redo_avx2, unorm8_x8_avx2, Worst8};
use crate::limits::Cancel;
use crate::stage::{FragInputs, FragmentStage, Interpolation, RowBatch, RowLayout, QUAD_BATCH};
use crate::{Error, Result};

/// How many primitives ahead of the one being rasterised a tile prefetches (see `shade`).
const PRIM_PREFETCH: usize = 2;

/// Tile side in pixels.
pub(crate) const TILE: i32 = 64;

/// The draw's raster primitives as setup made them, one `Vec` per parallel setup chunk, so
/// they need not be copied into one array on the calling thread (for many small triangles
/// that copy would be most of the serial part of the frame). A primitive's id is
/// its chunk shifted left by `bits` plus its offset in the chunk: ids grow in submission order.
///
/// `boxes` holds each chunk's bounding boxes on their own (16 bytes a primitive, made by the
/// setup job that made the chunk, while the primitives are in its cache), so binning reads
/// 16 bytes a primitive rather than a line of a ~400-byte primitive.
pub(crate) struct Prims {
    chunks: Vec<Vec<RasterPrim>>,
    boxes: Vec<Vec<PixRect>>,
    bits: u32,
}

impl Prims {
    /// The chunks with their bounding boxes made here (tests).
    #[cfg(test)]
    pub fn new(chunks: Vec<Vec<RasterPrim>>) -> Prims {
        let boxes = chunks
            .iter()
            .map(|c| c.iter().map(|p| p.bbox).collect())
            .collect();
        Prims::with_boxes(chunks, boxes)
    }

    /// `boxes[c][o]` must be `chunks[c][o].bbox`.
    pub fn with_boxes(mut chunks: Vec<Vec<RasterPrim>>, mut boxes: Vec<Vec<PixRect>>) -> Prims {
        debug_assert!(chunks.iter().zip(&boxes).all(|(c, b)| c.len() == b.len()));
        let max = chunks.iter().map(Vec::len).max().unwrap_or(0);
        let bits = usize::BITS - max.leading_zeros();
        if (chunks.len() as u64) << bits <= 1u64 << 32 {
            return Prims {
                chunks,
                boxes,
                bits,
            };
        }
        // Too many chunks for the id: one chunk, the id is the index.
        let mut all = Vec::with_capacity(chunks.iter().map(Vec::len).sum());
        for c in chunks.drain(..) {
            all.extend(c);
        }
        let all_boxes = boxes.drain(..).flatten().collect();
        Prims {
            chunks: vec![all],
            boxes: vec![all_boxes],
            bits: 32,
        }
    }

    /// The chunks and their boxes back, for the next draw to reuse.
    pub fn into_chunks(self) -> (Vec<Vec<RasterPrim>>, Vec<Vec<PixRect>>) {
        (self.chunks, self.boxes)
    }

    /// The primitive with this id.
    #[inline]
    pub fn get(&self, id: u32) -> &RasterPrim {
        let id = id as u64;
        &self.chunks[(id >> self.bits) as usize][(id & ((1u64 << self.bits) - 1)) as usize]
    }

    /// The id of chunk `c`'s primitive `o`.
    #[inline]
    fn id(&self, c: usize, o: usize) -> u32 {
        ((c as u64) << self.bits | o as u64) as u32
    }

    /// Every primitive's bounding box with its id, in submission order.
    #[cfg(test)]
    pub fn boxes(&self) -> impl Iterator<Item = (u32, &PixRect)> {
        self.boxes
            .iter()
            .enumerate()
            .flat_map(move |(c, v)| v.iter().enumerate().map(move |(o, b)| (self.id(c, o), b)))
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
    /// Polled before every tile; its progress counts tiles.
    pub cancel: &'a Cancel,
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

impl TileView<'_> {
    /// Write the pending clears to the tile's pixels.
    fn clear(&mut self, clears: &Clears) {
        for (rows, fill) in self.colors.iter_mut().zip(&clears.color) {
            if let Some(fill) = fill {
                rows.iter_mut().for_each(|r| fill.fill(r));
            }
        }
        if let Some(fill) = &clears.depth {
            self.depth.iter_mut().for_each(|r| fill.fill(r));
        }
        if let Some(fill) = &clears.stencil {
            self.stencil.iter_mut().for_each(|r| fill.fill(r));
        }
    }
}

/// The tile a thread shades next, its rows prefetched into the cache (L2) one per block
/// visit of the current tile, so its clear writes lines in cache (one row per visit: all
/// of them at once stalled the thread on the misses).
struct Ahead<'v, 't> {
    view: &'v TileView<'t>,
    /// The next row to prefetch: row `row` of section `section` (the colour attachments',
    /// then depth, then stencil); `sections` of them.
    section: usize,
    row: usize,
    sections: usize,
}

impl<'v, 't> Ahead<'v, 't> {
    fn new(view: &'v TileView<'t>) -> Self {
        let sections = view.colors.len() + 2;
        Ahead {
            view,
            section: 0,
            row: 0,
            sections,
        }
    }

    /// Prefetch the next row's lines, if any is left.
    #[inline(always)]
    fn step(&mut self) {
        if self.section < self.sections {
            self.prefetch_row();
        }
    }

    #[inline(never)]
    fn prefetch_row(&mut self) {
        let v = self.view;
        let rows = match self.section.checked_sub(v.colors.len()) {
            None => &v.colors[self.section],
            Some(0) => &v.depth,
            Some(_) => &v.stencil,
        };
        let Some(r) = rows.get(self.row) else {
            (self.section, self.row) = (self.section + 1, 0);
            return;
        };
        self.row += 1;
        crate::cpu::prefetch(r.as_ptr(), r.len(), Cache::L2);
    }
}

/// Cut every attachment into per-tile row slices (tile index `ty * tiles_x + tx`).
///
/// Band by band (TILE rows of every attachment), the bands in parallel: serial, the cut was
/// the critical path of the binning step (0.06-0.14 ms per frame, beside a bin of 0.03-0.15
/// ms; 32 768 row slices for two attachments of a 1024x1024 frame).
fn split_tiles<'t>(
    t: &'t mut RenderTargets,
    w: usize,
    tiles_x: usize,
    rects: &[PixRect],
) -> Vec<TileView<'t>> {
    let tile = TILE as usize;
    let n_colors = t.color.len();
    let n_bands = rects.len().div_ceil(tiles_x.max(1));
    // every band's piece of every attachment
    let mut bands: Vec<Vec<Piece>> = (0..n_bands).map(|_| Vec::new()).collect();
    let mut cut = |data: &'t mut [u8], bpp: usize, which: Att| {
        for (band, piece) in bands.iter_mut().zip(data.chunks_mut(w * bpp * tile)) {
            band.push((which, piece, bpp));
        }
    };
    for (a, c) in t.color.iter_mut().enumerate() {
        let bpp = c.pixel_bytes();
        cut(&mut c.data, bpp, Att::Color(a));
    }
    if let Some(d) = &mut t.depth_stencil {
        let (db, n) = (d.format.depth_bytes(), d.samples as usize);
        if db > 0 {
            cut(&mut d.depth, db * n, Att::Depth);
        }
        if !d.stencil.is_empty() {
            cut(&mut d.stencil, n, Att::Stencil);
        }
    }
    let per_band: Vec<Vec<TileView>> = bands
        .into_par_iter()
        .zip(rects.par_chunks(tiles_x.max(1)))
        .map(|(pieces, rects)| band_views(pieces, rects, w, n_colors))
        .collect();
    per_band.into_iter().flatten().collect()
}

/// One band (TILE rows) of one attachment: which, its bytes, bytes per texel.
type Piece<'t> = (Att, &'t mut [u8], usize);

/// A band's tile views, left to right (`rects` are its tiles'), from its `pieces`.
fn band_views<'t>(
    pieces: Vec<Piece<'t>>,
    rects: &[PixRect],
    w: usize,
    n_colors: usize,
) -> Vec<TileView<'t>> {
    let has = |att: Att| pieces.iter().any(|(a, ..)| *a == att);
    // every row list made at its final size (pushing grew them by doubling)
    let rows = |on: bool| Vec::with_capacity(if on { TILE as usize } else { 0 });
    let (depth, stencil) = (has(Att::Depth), has(Att::Stencil));
    let mut views: Vec<TileView> = rects
        .iter()
        .map(|&rect| TileView {
            rect,
            colors: (0..n_colors).map(|_| rows(true)).collect(),
            depth: rows(depth),
            stencil: rows(stencil),
        })
        .collect();
    for (which, piece, bpp) in pieces {
        split_rows(&mut views, (piece, bpp), w, which);
    }
    views
}

/// Which attachment's row lists `split_rows` fills.
#[derive(Clone, Copy, PartialEq)]
enum Att {
    Color(usize),
    Depth,
    Stencil,
}

/// Row by row, each row's segments (TILE texels) of `piece` to the views' row lists of
/// attachment `which`.
fn split_rows<'t>(
    views: &mut [TileView<'t>],
    (piece, bpp): (&'t mut [u8], usize),
    w: usize,
    which: Att,
) {
    for r in piece.chunks_exact_mut(w * bpp) {
        for (v, seg) in views.iter_mut().zip(r.chunks_mut(TILE as usize * bpp)) {
            match which {
                Att::Color(a) => v.colors[a].push(seg),
                Att::Depth => v.depth.push(seg),
                Att::Stencil => v.stencil.push(seg),
            }
        }
    }
}

/// Per colour attachment: its format's codec (resolved once per draw), blend state, bytes
/// per texel.
type Attachment = (ColorCodec, ColorBlendAttachment, usize);

/// Bin the primitives and shade every tile that has any, in place.
///
/// Binning (`bin`) keeps every bin in submission order. Each pool thread then keeps one [`TileShader`]
/// (its batch buffers are allocated once per thread, not once per tile) and takes the next tile
/// from a shared queue (`queue::TileQueue`), most expensive tiles first (covered bounding-box
/// area as the estimate; equal costs column by column), so the last tiles to finish are
/// small ones and neither thread waits long for the other at the end, skipping tiles beside
/// another thread's (shared cache lines). Tiles own disjoint pixels, so the order they run in
/// does not change any byte; an error is reported for the lowest-numbered failing tile, as
/// before.
///
/// `clears`: the render pass's pending clears; every tile (those no primitive touches too)
/// writes them to its own pixels just before it is shaded, so each tile's bytes are written
/// while in cache rather than filled in memory beforehand and read back (see [`Clears`]).
/// Every tile is taken even when some fail, so the clears are all written.
///
/// `binned`: set to when binning (and cutting the attachments) ended, for [`DrawTimes`].
///
/// [`DrawTimes`]: super::DrawTimes
pub(crate) fn render(
    pool: &ThreadPool,
    scene: &Scene,
    clears: &Clears,
    targets: &mut RenderTargets,
    binned: &mut std::time::Instant,
) -> Result<()> {
    let (w, h) = targets.size()?;
    let (tiles_x, tiles_y) = ((w as i32 + TILE - 1) / TILE, (h as i32 + TILE - 1) / TILE);
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
            (ColorCodec::of(c.format), att, c.format.texel_size())
        })
        .collect();
    let ds_format = targets.depth_stencil.as_ref().map(|d| d.format);
    // Cutting the attachments into tiles is serial; it runs beside the binning.
    let ((flat, base, costs), views) = pool.install(|| {
        rayon::join(
            || bin(pool, scene.prims, tiles_x, tiles_y),
            || split_tiles(targets, w as usize, tiles_x as usize, &rects),
        )
    });
    *binned = std::time::Instant::now();
    let bins: Vec<&[u32]> = base.windows(2).map(|r| &flat[r[0]..r[1]]).collect();
    let clearing = !clears.is_empty();
    let mut work: Vec<(usize, TileView)> = views
        .into_iter()
        .enumerate()
        .filter(|(t, _)| clearing || !bins[*t].is_empty())
        .collect();
    // Most expensive first; equal costs column by column (`queue` says why).
    let tx = tiles_x as usize;
    work.sort_by_key(|(t, _)| (std::cmp::Reverse(costs[*t]), *t % tx, *t / tx));
    // One lock per claim (a few hundred per frame); `queue` says why claims look at neighbours.
    scene.cancel.begin_work(work.len() as u64);
    let queue = Mutex::new(TileQueue::new(work, tx, tiles_y as usize));
    // multisampled draws, and stages that use what only per-sample shading provides, take
    // the per-sample path (`samples`)
    let per_sample = scene.state.samples > 1 || scene.fs.sample_use().any();
    let failures: Vec<Option<(usize, Error)>> = pool.broadcast(|ctx| {
        let mut sh = match per_sample {
            false => Tiles::Pixels(TileShader::new(scene, &atts, ds_format)),
            true => Tiles::Samples(samples::SampleShader::new(scene, &atts, ds_format)),
        };
        let mut first: Option<(usize, Error)> = None;
        let who = ctx.index();
        let claim = |done| {
            let mut q = queue.lock().unwrap_or_else(|e| e.into_inner());
            q.claim(who, done)
        };
        let mut ahead = claim(None);
        let mut done = None;
        loop {
            let Some((t, mut view)) = ahead.take() else {
                return first;
            };
            if clearing {
                view.clear(clears);
            }
            ahead = claim(done);
            done = Some(t);
            scene.cancel.advance(1);
            if bins[t].is_empty() {
                continue;
            }
            if let Err(e) = scene.cancel.check() {
                first.get_or_insert((t, e));
                continue;
            }
            let mut next_rows = ahead.as_ref().map(|(_, view)| Ahead::new(view));
            let shaded = match &mut sh {
                Tiles::Pixels(sh) => sh.shade(bins[t], &mut view, next_rows.as_mut()),
                Tiles::Samples(sh) => sh.shade(bins[t], &mut view),
            };
            if let Err(e) = shaded {
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

/// Bin the primitives: every tile's primitive ids in submission order, as one array (`flat`,
/// tile `t`'s ids at `base[t]..base[t + 1]`), and each tile's cost estimate (the area of the
/// primitives' bounding boxes in it, for the tile order).
///
/// A counting sort over groups of consecutive setup chunks (a few per pool thread): each
/// group counts its primitives per tile, the offsets follow (tile by tile, group by group, so
/// every tile's ids stay in submission order), then each group writes its ids into its own
/// segments. Every primitive is visited twice. Binning tile row by tile row instead (each row
/// scanning every bounding box) was 16 visits per primitive on a 1024-row frame: 0.7 ms of
/// the 9.4 ms of 10 000 small triangles at one thread.
fn bin(
    pool: &ThreadPool,
    prims: &Prims,
    tiles_x: i32,
    tiles_y: i32,
) -> (Vec<u32>, Vec<usize>, Vec<u64>) {
    let nt = (tiles_x * tiles_y) as usize;
    let chunks = &prims.boxes;
    let groups = chunks.len().clamp(1, 4 * pool.current_num_threads());
    let per = chunks.len().div_ceil(groups).max(1);
    let group_chunks: Vec<(usize, &[Vec<PixRect>])> = chunks
        .chunks(per)
        .enumerate()
        .map(|(g, c)| (g * per, c))
        .collect();
    let counted: Vec<(Vec<u32>, Vec<u64>)> = pool.install(|| {
        group_chunks
            .par_iter()
            .map(|&(_, cs)| {
                let (mut n, mut cost) = (vec![0u32; nt], vec![0u64; nt]);
                for b in cs.iter().flatten() {
                    for ty in b.y0 / TILE..=b.y1 / TILE {
                        let rows =
                            (b.y1.min(ty * TILE + TILE - 1) - b.y0.max(ty * TILE) + 1) as u64;
                        for tx in b.x0 / TILE..=b.x1 / TILE {
                            let cols =
                                (b.x1.min(tx * TILE + TILE - 1) - b.x0.max(tx * TILE) + 1) as u64;
                            let t = (ty * tiles_x + tx) as usize;
                            n[t] += 1;
                            cost[t] += rows * cols;
                        }
                    }
                }
                (n, cost)
            })
            .collect()
    });
    let mut base = Vec::with_capacity(nt + 1);
    let mut costs = vec![0u64; nt];
    base.push(0usize);
    for t in 0..nt {
        let total: usize = counted.iter().map(|(n, _)| n[t] as usize).sum();
        costs[t] = counted.iter().map(|(_, c)| c[t]).sum();
        base.push(base[t] + total);
    }
    let mut flat = vec![0u32; base[nt]];
    // every group's segment of every tile, cut in layout order (tile-major, then group)
    let mut segs: Vec<Vec<&mut [u32]>> =
        (0..counted.len()).map(|_| Vec::with_capacity(nt)).collect();
    let mut rest = flat.as_mut_slice();
    for t in 0..nt {
        for (g, (n, _)) in counted.iter().enumerate() {
            let (seg, r) = std::mem::take(&mut rest).split_at_mut(n[t] as usize);
            segs[g].push(seg);
            rest = r;
        }
    }
    pool.install(|| {
        group_chunks
            .par_iter()
            .zip(segs.par_iter_mut())
            .for_each(|(&(c0, cs), seg)| {
                let mut at = vec![0usize; nt];
                for (k, c) in cs.iter().enumerate() {
                    for (o, b) in c.iter().enumerate() {
                        let id = prims.id(c0 + k, o);
                        for ty in b.y0 / TILE..=b.y1 / TILE {
                            for tx in b.x0 / TILE..=b.x1 / TILE {
                                let t = (ty * tiles_x + tx) as usize;
                                seg[t][at[t]] = id;
                                at[t] += 1;
                            }
                        }
                    }
                }
            })
    });
    (flat, base, costs)
}

/// Ask for the shaded varyings of `p`'s vertices (`n_vary` slots of 16 bytes each, made by
/// whichever thread shaded that batch).
#[inline]
fn prefetch_varyings(scene: &Scene, p: &RasterPrim) {
    let n = scene.n_vary;
    for &slot in &p.info.slots[..(p.info.n_verts as usize).min(3)] {
        let at = slot as usize * n;
        if let Some(v) = scene.varyings.get(at..at + n) {
            crate::cpu::prefetch(v.as_ptr(), size_of_val(v), Cache::L1);
        }
    }
}

/// A pool thread's tile shader: the pixel path, or the per-sample path (`samples`).
/// (One per thread for a whole tile pass, so the pixel path keeps its shader unboxed.)
#[allow(clippy::large_enum_variant)]
enum Tiles<'a> {
    Pixels(TileShader<'a>),
    Samples(samples::SampleShader<'a>),
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
/// edge tests (llvmpipe's trivial reject / accept). 8x8 pixels = 16 quads, a quarter batch.
const BLOCK: i32 = 8;

/// Tile shading state; one per pool thread, reused across the tiles it shades so batch
/// buffers are allocated once per thread.
///
/// A batch may hold quads of several consecutive primitives as long as no two of its quads
/// cover the same quad position: then the order in which the batch's fragments are tested and
/// written does not matter, and the result equals submission order.
struct TileShader<'a> {
    scene: &'a Scene<'a>,
    atts: &'a [Attachment],
    ds_format: Option<Format>,
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
    /// Quad positions used by the current batch, block by block: the tile's 8x8-pixel block
    /// b (row by row) has its 16 quads (quad order, see `cover`) at bits 16 (b % 2).. of
    /// word b / 2, so a block's occupancy is read and updated as one 16-bit field.
    occupied: [u32; (TILE / 2) as usize],
    /// The depths of `quads`, quad by quad (filled when `needs_z`); a fixed array, so adding
    /// a quad's depths is one store (not `extend_from_slice` on a `Vec`).
    z: [[f32; 4]; QUAD_BATCH],
    /// Per lane of the current primitive run: 1 / denominator, smooth and noperspective.
    inv: [[[f64; 4]; QUAD_BATCH]; 2],
    /// The built-in inputs the fragment stage reads.
    built_ins: FragInputs,
    /// The `depth_only` test on a float format, hoisted (whole blocks take `depth_block`).
    float_depth: Option<FloatDepth>,
    /// Whether anything reads the quads' depths in the batch (`self.z`): late depth/stencil
    /// tests, `FragCoord`, or a `FragDepth` output (which starts as the interpolated depth).
    /// Early tests compute the depths they test themselves.
    needs_z: bool,
    /// A pass-through stage's colour attachments, written straight from the walk with no
    /// batch (`direct`), and their planes for the current primitive.
    direct: Option<Vec<DirectAtt>>,
    planes: Vec<ColorPlanes>,
    /// The current batch's quads as RGBA8 pixels (`shade::write_rgba8`'s room).
    rgba8: Box<[[u8; 16]; QUAD_BATCH]>,
    /// Per attachment, its blend equation when its writes read the texels back
    /// (`Equation::of`), and the rows a batch blends in (made with the first such batch).
    blends: Vec<Option<Equation>>,
    blend_rows: Option<Box<BlendRows>>,
}

impl<'a> TileShader<'a> {
    fn new(scene: &'a Scene<'a>, atts: &'a [Attachment], ds_format: Option<Format>) -> Self {
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
        let early = !fs.writes_depth() && !fs.can_discard();
        let float_format =
            ds_format.is_some_and(|f| f.depth_bytes() == 4 && f.unorm_bits().is_none());
        // (the hoisted float test clamps depth to [0, 1]: restricted pipelines only)
        let float_depth = (depth_only && float_format && !ds.unrestricted_depth).then(|| {
            use std::cmp::Ordering::{Equal, Greater, Less};
            FloatDepth {
                pass: [Less, Equal, Greater].map(|o| ds.depth_compare.test(o) as u32),
                write: ds.depth_write,
                clamp: scene.depth_clamp,
            }
        });
        let layout_error = shade::layout_error(&layout);
        let direct = direct::plan(scene, &layout, layout_error.is_none(), atts, early);
        TileShader {
            scene,
            atts,
            ds_format,
            early,
            tests,
            depth_only,
            layout_error,
            layout,
            batch: RowBatch::default(),
            quads: Vec::with_capacity(QUAD_BATCH),
            occupied: [0; (TILE / 2) as usize],
            z: [[0.0; 4]; QUAD_BATCH],
            inv: [[[0.0; 4]; QUAD_BATCH]; 2],
            built_ins,
            // early tests compute their own depths at submission
            needs_z: (tests && !early) || built_ins.frag_coord || fs.writes_depth(),
            float_depth,
            direct,
            planes: Vec::new(),
            rgba8: Box::new([[0; 16]; QUAD_BATCH]),
            blends: atts
                .iter()
                .map(|(codec, att, _)| Equation::of(codec, att, scene.state.blend_constants))
                .collect(),
            blend_rows: None,
        }
    }

    fn shade(
        &mut self,
        bin: &[u32],
        view: &mut TileView,
        mut ahead: Option<&mut Ahead>,
    ) -> Result<()> {
        // A tile that failed part way may have left quads of its own behind.
        self.quads.clear();
        self.occupied = [0; (TILE / 2) as usize];
        let rect = view.rect;
        let scene: &'a Scene<'a> = self.scene;
        for (k, &pi) in bin.iter().enumerate() {
            // The primitives of a bin are scattered over the setup chunks (~400 bytes each,
            // made by either thread), and rasterising one is too long for the out-of-order
            // window to reach the next one's misses: ask for the one after next now.
            if let Some(&later) = bin.get(k + PRIM_PREFETCH) {
                let later = scene.prims.get(later);
                crate::cpu::prefetch(later, size_of::<RasterPrim>(), Cache::L1);
            }
            // and the next one's vertex varyings (its record, asked for two primitives ago,
            // is in by now), which `direct::planes` and the batch inputs read first thing
            if let Some(&next) = bin.get(k + 1) {
                prefetch_varyings(scene, scene.prims.get(next));
            }
            let p = scene.prims.get(pi);
            if let Some(r) = p.bbox.intersect(&rect) {
                self.walk(view, pi, p, r, ahead.as_deref_mut())?;
            }
        }
        if !self.quads.is_empty() {
            self.flush(view)?;
        }
        Ok(())
    }

    /// Primitive `pi`'s pixels `r` of this tile, block by block: a block outside an edge is
    /// skipped; otherwise its coverage is one block mask (all of it, or the rectangle `r`
    /// leaves of it, when no edge crosses it; else that and the crossing edges' SIMD mask),
    /// and [`Self::block`] takes it from there.
    ///
    /// The four edge values at a block's pixel (0, 0) (a triangle's fourth edge is inside
    /// everywhere: value 1, no steps) are two `i64x2`s stepped block by block (exact
    /// integers, so the same values as evaluating the edges there), and an edge's range
    /// over the block is that plus per-edge constants, so classifying a block is four adds
    /// and two sign movemasks. A block the rectangle `r` cuts is classified over all its
    /// pixels too: that can only report an edge as crossing where it is not (its SIMD mask
    /// then clears nothing the rectangle keeps) or miss that the part in `r` is outside
    /// (the masks then leave nothing).
    #[inline(never)]
    fn walk(
        &mut self,
        view: &mut TileView,
        pi: u32,
        p: &'a RasterPrim,
        r: PixRect,
        mut ahead: Option<&mut Ahead>,
    ) -> Result<()> {
        let rect = view.rect;
        let edges = &p.edges[..p.n_edges];
        let depth = self.float_depth.map(|fd| depth_block_fn(fd.pass));
        if let Some(d) = &self.direct {
            let scene = self.scene;
            self.planes.clear();
            self.planes
                .extend(d.iter().map(|d| direct::planes(scene, p, d)));
        }
        let bx0 = rect.x0 + (r.x0 - rect.x0) / BLOCK * BLOCK;
        let by0 = rect.y0 + (r.y0 - rect.y0) / BLOCK * BLOCK;
        // per edge: value at the first block's pixel (0, 0), range over a block relative to
        // that, steps per block; a triangle's fourth edge is 1 everywhere
        let (mut start, mut lo, mut hi) = ([1i64; 4], [0i64; 4], [0i64; 4]);
        let (mut step_x, mut step_y) = ([0i64; 4], [0i64; 4]);
        // and its i32 lanes and steps over a block, and how far its values move over one
        let mut lanes = Lanes::default();
        for (k, e) in edges.iter().enumerate() {
            let (x, y) = (e.ex * (BLOCK - 1) as i64, e.ey * (BLOCK - 1) as i64);
            start[k] = e.at(bx0 as i64, by0 as i64);
            lo[k] = x.min(0) + y.min(0);
            hi[k] = x.max(0) + y.max(0);
            step_x[k] = e.ex * BLOCK as i64;
            step_y[k] = e.ey * BLOCK as i64;
            lanes.steps[k] = BlockEdge::steps(e.ex, e.ey);
            lanes.reach[k] = x.unsigned_abs() + y.unsigned_abs();
        }
        let pair = |v: [i64; 4]| [i64x2::new([v[0], v[1]]), i64x2::new([v[2], v[3]])];
        let (lo, hi, step_x, step_y) = (pair(lo), pair(hi), pair(step_x), pair(step_y));
        let mut row = pair(start);
        let sign = |v: [i64x2; 2]| v[0].to_bitmask() | v[1].to_bitmask() << 2;
        let mut by = by0;
        while by <= r.y1 {
            let full_rows = by >= r.y0 && by + BLOCK - 1 <= r.y1;
            let mut at = row;
            row = [row[0] + step_y[0], row[1] + step_y[1]];
            let mut bx = bx0;
            while bx <= r.x1 {
                let corner = at;
                at = [at[0] + step_x[0], at[1] + step_x[1]];
                let b = bx;
                bx += BLOCK;
                // an edge negative at every pixel: nothing of the block is left
                if sign([corner[0] + hi[0], corner[1] + hi[1]]) != 0 {
                    continue;
                }
                // the edges negative at some pixel: only they can clear a pixel
                let crossing = sign([corner[0] + lo[0], corner[1] + lo[1]]);
                let bx = b;
                let whole = full_rows && bx >= r.x0 && bx + BLOCK - 1 <= r.x1;
                let mut cov = if whole {
                    u64::MAX
                } else {
                    let (cx0, cy0) = (r.x0.max(bx) - bx, r.y0.max(by) - by);
                    let (cx1, cy1) = (r.x1.min(bx + BLOCK - 1) - bx, r.y1.min(by + BLOCK - 1) - by);
                    let c = |v: i32| v as u32;
                    cover::rect_mask(c(cx0), c(cy0), c(cx1), c(cy1))
                };
                if crossing != 0 {
                    cov &= crossing_mask(&lanes, edges, corner, crossing, (bx, by));
                    if cov == 0 {
                        continue;
                    }
                }
                if let Some(a) = ahead.as_deref_mut() {
                    a.step();
                }
                self.block(view, pi, p, bx, by, cov, depth)?;
            }
            by += BLOCK;
        }
        Ok(())
    }

    /// A block's covered pixels `cov` (a block mask) of primitive `pi`: early tests if any,
    /// then the quads left into the batch.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn block(
        &mut self,
        view: &mut TileView,
        pi: u32,
        p: &'a RasterPrim,
        bx: i32,
        by: i32,
        mut cov: u64,
        depth: Option<DepthBlockFn>,
    ) -> Result<()> {
        if self.early_tests() {
            cov = self.early_block(view, p, (bx, by), cov, depth);
        }
        if self.direct.is_some() {
            self.direct_block(view, (bx, by), cov);
            return Ok(());
        }
        self.enqueue_block(view, pi, p, bx, by, cov)
    }

    /// A block's surviving pixels `cov` of a pass-through stage, straight into the colour
    /// attachments (`direct`).
    #[inline(never)]
    fn direct_block(&self, view: &mut TileView, (bx, by): (i32, i32), cov: u64) {
        if cov == 0 {
            return;
        }
        let rect = view.rect;
        let inside = bx + BLOCK - 1 <= rect.x1 && by + BLOCK - 1 <= rect.y1;
        let Some(atts) = &self.direct else { return };
        for (d, pl) in atts.iter().zip(&self.planes) {
            let rows = &mut view.colors[d.att];
            direct::write_block(pl, (bx, by), cov, rows, (rect.x0, rect.y0), inside);
        }
    }

    /// The early tests of a block's covered pixels `cov`; the pixels that pass. Whole blocks
    /// inside the tile on the float depth-only path take [`depth_block`], the rest
    /// [`Self::early_quads`]; `f` is [`depth_block_fn`] of the float depth-only test. Out of
    /// line, so the walk does not carry its set-up.
    #[inline(never)]
    fn early_block(
        &self,
        view: &mut TileView,
        p: &RasterPrim,
        (bx, by): (i32, i32),
        cov: u64,
        f: Option<DepthBlockFn>,
    ) -> u64 {
        let rect = view.rect;
        let inside = bx + BLOCK - 1 <= rect.x1 && by + BLOCK - 1 <= rect.y1;
        match (self.float_depth, f) {
            (Some(fd), Some(f)) if inside => {
                let (lx0, ly0) = ((bx - rect.x0) as usize * 4, (by - rect.y0) as usize);
                let b = BlockRows {
                    pl: &p.z,
                    z_offset: p.z_offset,
                    bx,
                    by,
                    cov,
                    lx0,
                };
                // SAFETY: `f` is from `depth_block_fn`, which returns an AVX2 instance only
                // when run-time detection found AVX2 on this CPU; the other instances are
                // safe functions.
                unsafe { f(&fd, &b, &mut view.depth[ly0..ly0 + BLOCK as usize]) }
            }
            _ => self.early_quads(view, p, bx, by, cov),
        }
    }

    /// The early tests of a block's covered quads one by one ([`Self::early_test`]), for the
    /// tests [`depth_block`] does not take; the pixels that pass, as a block mask.
    #[inline(never)]
    fn early_quads(&self, view: &mut TileView, p: &RasterPrim, bx: i32, by: i32, cov: u64) -> u64 {
        let mut pass = 0u64;
        let mut m = cov;
        while m != 0 {
            let k = m.trailing_zeros() / 4;
            let q = Quad {
                x: bx + 2 * (k & 3) as i32,
                y: by + 2 * (k >> 2) as i32,
                mask: (m >> (4 * k)) as u8 & 0xf,
                prim: 0,
                p,
            };
            m &= !(0xf << (4 * k));
            pass |= (self.early_test(view, &q, quad_depth(&q)) as u64) << (4 * k);
        }
        pass
    }

    /// Whether the depth/stencil tests run before the fragment shader.
    #[inline]
    fn early_tests(&self) -> bool {
        self.early && self.tests
    }

    /// The quads of block mask `cov` of the block at (bx, by), past their early tests if
    /// any, into the batch in quad order: the batch is flushed first if it already has a quad
    /// at a quad's position, and after any quad that fills it. Testing at submission rather
    /// than when the batch is shaded gives the same results: the batch's quads sit at
    /// distinct positions, so no pending quad touches the pixels tested, and each pixel still
    /// sees its tests in submission order. Quads that fail take no batch slot and are never
    /// interpolated. The occupancy of the block's 16 positions is read and written once.
    #[inline(never)]
    fn enqueue_block(
        &mut self,
        view: &mut TileView,
        pi: u32,
        p: &'a RasterPrim,
        bx: i32,
        by: i32,
        cov: u64,
    ) -> Result<()> {
        if cov == 0 {
            return Ok(());
        }
        let rect = view.rect;
        let b = ((by - rect.y0) / BLOCK * (TILE / BLOCK) + (bx - rect.x0) / BLOCK) as usize;
        let (word, shift) = (b / 2, 16 * (b % 2) as u32);
        // bit k: quad k has a covered lane / its position is taken in the batch
        let mut quads = cover::quads(cov);
        let mut taken = (self.occupied[word] >> shift) & 0xffff;
        // the quads pushed since the batch was last flushed
        let mut added = 0;
        while quads != 0 {
            // the quads before the first one whose position is taken go in as they are
            let conflict = quads & taken;
            let now = match conflict {
                0 => quads,
                c => quads & ((c & c.wrapping_neg()) - 1),
            };
            let pushed = self.push_quads(now, pi, p, (bx, by), cov);
            quads &= !pushed;
            added |= pushed;
            // the next quad's position is taken, or the batch is full: flushing empties it
            if quads != 0 || self.quads.len() == QUAD_BATCH {
                self.flush(view)?;
                (taken, added) = (0, 0);
            }
        }
        self.occupied[word] |= added << shift;
        Ok(())
    }

    /// The quads `now` (bit k: quad k of the block at (bx, by), lanes from block mask `cov`)
    /// into the batch in quad order, as many as it has room for; the ones pushed. Out of
    /// line and call-free, so its state stays in registers (inlined next to the flush calls,
    /// it reloaded its block's constants from the stack).
    #[inline(never)]
    fn push_quads(&mut self, now: u32, pi: u32, p: &'a RasterPrim, b: (i32, i32), cov: u64) -> u32 {
        let (bx, by) = b;
        let mut m = now;
        let mut room = QUAD_BATCH - self.quads.len();
        if self.needs_z {
            while m != 0 && room > 0 {
                let k = m.trailing_zeros();
                m &= m - 1;
                room -= 1;
                let q = Quad {
                    x: bx + 2 * (k & 3) as i32,
                    y: by + 2 * (k >> 2) as i32,
                    mask: (cov >> (4 * k)) as u8 & 0xf,
                    prim: pi,
                    p,
                };
                self.z[self.quads.len()] = quad_depth(&q);
                self.quads.push(q);
            }
        } else {
            while m != 0 && room > 0 {
                let k = m.trailing_zeros();
                m &= m - 1;
                room -= 1;
                self.quads.push(Quad {
                    x: bx + 2 * (k & 3) as i32,
                    y: by + 2 * (k >> 2) as i32,
                    mask: (cov >> (4 * k)) as u8 & 0xf,
                    prim: pi,
                    p,
                });
            }
        }
        now & !m
    }
}

/// Per edge of a primitive: its i32 lanes and steps over a block less the value at the
/// block's pixel (0, 0), and `7 (|ex| + |ey|)`, how far its values move over a block.
#[derive(Clone, Copy, Debug, Default)]
struct Lanes {
    steps: [BlockEdge; 4],
    reach: [u64; 4],
}

/// The pixels of the block at (bx, by) inside the edges `crossing` (bit k: `edges[k]`, whose
/// value at the block's pixel (0, 0) is lane k of `corner`): SIMD in i32 when every crossing
/// edge's values over the block fit (`|a| + reach`, [`cover::edges_mask`]), else all of
/// `edges` in i64.
#[inline]
fn crossing_mask(
    lanes: &Lanes,
    edges: &[Edge],
    corner: [i64x2; 2],
    crossing: u32,
    (bx, by): (i32, i32),
) -> u64 {
    let [c01, c23] = corner.map(|v| v.to_array());
    let corner = [c01[0], c01[1], c23[0], c23[1]];
    let mut block = [BlockEdge::default(); 4];
    let mut n = 0;
    let mut steep = false;
    for (k, &a) in corner.iter().enumerate() {
        if crossing >> k & 1 != 0 {
            steep |= a.unsigned_abs() + lanes.reach[k] > i32::MAX as u64;
            block[n] = lanes.steps[k].at(a as i32);
            n += 1;
        }
    }
    if steep {
        cover::edges_mask_i64(edges, bx, by)
    } else {
        cover::edges_mask(&block[..n])
    }
}

/// A plane at the four lanes of a quad: evaluated at lane 0, stepped to the others.
#[inline]
fn quad_values(pl: &Plane, q: &Quad) -> [f64; 4] {
    let v = pl.at(q.x as f64 + 0.5, q.y as f64 + 0.5);
    [v, v + pl.dx, v + pl.dy, v + pl.dx + pl.dy]
}

mod cover;
mod depth;
mod direct;
mod queue;
mod samples;
mod shade;
use cover::BlockEdge;
use depth::*;
use direct::{ColorPlanes, DirectAtt};
use queue::TileQueue;
use wide::i64x2;

#[cfg(test)]
pub(in crate::raster) mod tests {
    use super::*;
    use crate::raster::*;
    use approx::abs_diff_eq;
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

    /// A triangle with no area and primitive id `id` (shade.rs's tests use it too).
    pub(in crate::raster) fn dummy(id: u32) -> RasterPrim {
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
                layer: 0,
                viewport: 0,
            },
            point: None,
        }
    }

    /// Ids of chunked primitives: submission order, and `get` finds each one with its box.
    fn check_prims(chunks: Vec<Vec<RasterPrim>>, want: u32) {
        let prims = Prims::new(chunks);
        let all: Vec<(u32, u32)> = prims
            .boxes()
            .map(|(id, b)| {
                assert_eq!(*b, prims.get(id).bbox, "the box is the primitive's");
                (id, prims.get(id).info.primitive_id)
            })
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

    /// Binning against a direct reference: tile `t` holds, in id order, every primitive
    /// whose bounding box meets it, and its cost is the area of those boxes inside it.
    #[test]
    fn bins_hold_every_overlapping_primitive_in_submission_order() {
        let mut rng = fastrand::Rng::with_seed(7);
        let (tiles_x, tiles_y) = (5, 3);
        for (chunk_lens, threads) in [
            (vec![3usize, 0, 7, 1, 0, 256, 5], 1),
            (vec![40; 13], 2),
            (vec![1], 3),
            (vec![0, 0], 2),
        ] {
            let mut next = 0;
            let chunks: Vec<Vec<RasterPrim>> = chunk_lens
                .iter()
                .map(|&len| {
                    (0..len)
                        .map(|_| {
                            let mut p = dummy(next);
                            next += 1;
                            let x0 = (rng.f32() * 320.0) as i32;
                            let y0 = (rng.f32() * 192.0) as i32;
                            let (w, h) = ((rng.f32() * 90.0) as i32, (rng.f32() * 90.0) as i32);
                            p.bbox = PixRect {
                                x0,
                                y0,
                                x1: (x0 + w).min(319),
                                y1: (y0 + h).min(191),
                            };
                            p
                        })
                        .collect()
                })
                .collect();
            let prims = Prims::new(chunks);
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let (flat, base, costs) = bin(&pool, &prims, tiles_x, tiles_y);
            assert_eq!(base.len(), (tiles_x * tiles_y) as usize + 1);
            let all: Vec<(u32, PixRect)> = prims.boxes().map(|(id, b)| (id, *b)).collect();
            for t in 0..(tiles_x * tiles_y) as usize {
                let tile = PixRect {
                    x0: t as i32 % tiles_x * TILE,
                    y0: t as i32 / tiles_x * TILE,
                    x1: t as i32 % tiles_x * TILE + TILE - 1,
                    y1: t as i32 / tiles_x * TILE + TILE - 1,
                };
                let mut want = Vec::new();
                let mut area = 0u64;
                for (id, b) in &all {
                    if let Some(r) = b.intersect(&tile) {
                        want.push(*id);
                        area += ((r.x1 - r.x0 + 1) * (r.y1 - r.y0 + 1)) as u64;
                    }
                }
                assert_eq!(&flat[base[t]..base[t + 1]], &want[..], "tile {t}");
                assert_eq!(costs[t], area, "tile {t}");
            }
        }
    }

    /// Overlapping triangles at random depths and perspective w (rasterization state `raster`:
    /// depth clamp, depth bias), with colours out of [0, 1]
    /// (so the conversion clamps), drawn into an odd-sized target (partial quads at the edges).
    ///
    /// `redraw`: the same triangles again (same depths) in other colours, so a test's
    /// outcome on equal depths shows in the picture.
    fn scene(
        rt: &mut RenderTargets,
        ds: DepthStencilState,
        raster: RasterizationState,
        blend: bool,
        threads: usize,
        redraw: bool,
    ) {
        let mut r = fastrand::Rng::with_seed(7);
        let mut pos = Vec::new();
        let mut col = Vec::new();
        for _ in 0..60 {
            let (cx, cy, z) = (r.f32() * 2.0 - 1.0, r.f32() * 2.0 - 1.0, r.f32());
            let mut c = [r.f32() * 1.4 - 0.2, r.f32(), r.f32() * 1.2, 1.0];
            if redraw {
                c[1] = 1.0 - c[1];
            }
            for _ in 0..3 {
                let w = 1.0 + r.f32();
                let (x, y) = (r.f32() - 0.5, r.f32() - 0.5);
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
            rasterization: raster,
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
            stages: Default::default(),
        };
        let raster = Rasterizer::new(threads).unwrap();
        let mut pass = raster.begin(rt);
        pass.bind_pipeline(&pipeline);
        pass.draw(pos.len() as u32, 1, 0, 0).unwrap();
    }

    #[test]
    fn zero_sized_attachments_draw_and_clear_without_a_panic() {
        // 0xN and Nx0 attachments have no tiles: a clear and a draw are no-ops, not a panic
        // in the cutting of the attachments into tiles (rows of zero bytes)
        for (w, h) in [(0, 5), (5, 0), (0, 0)] {
            for threads in [1, 2] {
                let mut rt = RenderTargets {
                    color: vec![ColorTarget::new(Format::R8G8B8A8_UNORM, w, h)],
                    depth_stencil: Some(DepthStencilTarget::new(Format::D32_SFLOAT, w, h)),
                };
                scene(
                    &mut rt,
                    DepthStencilState::default(),
                    RasterizationState::default(),
                    false,
                    threads,
                    false,
                );
                let raster = Rasterizer::new(threads).unwrap();
                let mut pass = raster.begin(&mut rt);
                pass.clear_color(0, ClearColor::Float([1.0; 4])).unwrap();
                pass.clear_depth_stencil(0.5, 0).unwrap();
                drop(pass);
                assert!(rt.color[0].data.is_empty() && rt.depth_stencil.unwrap().depth.is_empty());
            }
        }
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

    /// `depth_block` against a per-lane reference written from `Plane::at` at each pixel's
    /// quad's lane 0 (stepped to the lane), the format's own `quantize` / `cmp_stored` and
    /// the compare op: every op, writes on and off, depth clamp, depth bias, random coverage
    /// (empty, full and partial quad rows), stored values an upload may leave (NaN, -0,
    /// infinities, subnormals, negatives) and planes that give NaN, infinite, negative and
    /// subnormal depths.
    #[test]
    fn depth_block_matches_a_per_lane_reference() {
        let mut r = fastrand::Rng::with_seed(11);
        let special = [
            f32::NAN,
            -f32::NAN,
            -0.0,
            0.0,
            1.0,
            -1.0,
            2.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            1e-40,
            -1e-40,
            f32::MIN_POSITIVE,
            1.0f32.next_down(),
        ];
        let fmt = Format::D32_SFLOAT;
        let (mut passed, mut failed) = (0, 0);
        for case in 0..6000 {
            let op = COMPARE_OPS[case % COMPARE_OPS.len()];
            let write = case % 3 != 0;
            let clamp = (case % 5 == 0).then_some((0.25f32, 0.75f32));
            let fd = FloatDepth {
                pass: [Ordering::Less, Ordering::Equal, Ordering::Greater]
                    .map(|o| op.test(o) as u32),
                write,
                clamp,
            };
            let scale = [1.0, 1e-3, 1e3, 1e-300][case % 4];
            let mut pl = Plane {
                x0: r.f32() as f64 * 300.0,
                y0: r.f32() as f64 * 300.0,
                a: r.f32() as f64 * 1.4 - 0.2,
                dx: (r.f32() as f64 - 0.5) * 0.01 * scale,
                dy: (r.f32() as f64 - 0.5) * 0.01 * scale,
            };
            match case % 23 {
                0 => pl.a = f64::NAN,
                1 => pl.dx = f64::INFINITY,
                2 => pl.a = -0.0,
                3 => (pl.a, pl.dx, pl.dy) = (0.0, 0.0, -0.0),
                4 => pl.a = 1e-39,
                5 => pl.a = -1e-39,
                _ => {}
            }
            let z_offset = match case % 4 {
                0 => r.f32() as f64 * 1e-3,
                1 => -0.0,
                _ => 0.0,
            };
            let (bx, by) = (8 * (r.f32() * 40.0) as i32, 8 * (r.f32() * 40.0) as i32);
            let cov = match case % 7 {
                0 => u64::MAX,
                1 => 0,
                2 => 0xffff_0000_ffff_0000,
                _ => r.u64(..),
            };
            // The reference depth of a pixel: its quad's lane 0 at the pixel centre, stepped.
            let depth = |px: i32, py: i32| {
                let (qx, qy) = (px & !1, py & !1);
                let v = pl.at(qx as f64 + 0.5, qy as f64 + 0.5);
                let v = match (px & 1, py & 1) {
                    (0, 0) => v,
                    (1, 0) => v + pl.dx,
                    (0, _) => v + pl.dy,
                    _ => v + pl.dx + pl.dy,
                };
                (v + z_offset) as f32
            };
            // Stored depths (a row is wider than the block: bytes 12.. are the block's):
            // special values, random ones, and the pixel's own quantized depth (equal).
            let lx0 = 12;
            let mut rows: Vec<Vec<u8>> = (0..8)
                .map(|py| {
                    let mut row = vec![0xa5u8; lx0 + 32 + 8];
                    for px in 0..8 {
                        let v = match (r.f32() * 3.0) as u32 {
                            0 => special[(r.f32() * special.len() as f32) as usize % 13],
                            1 => fmt.dequantize(fmt.quantize(depth(bx + px, by + py))),
                            _ => r.f32(),
                        };
                        let t = lx0 + 4 * px as usize;
                        row[t..t + 4].copy_from_slice(&v.to_bits().to_le_bytes());
                    }
                    row
                })
                .collect();
            let mut want_rows = rows.clone();
            let mut want = 0u64;
            for py in 0..8 {
                for px in 0..8 {
                    let bit = cover::bit(px as u32, py as u32);
                    if cov >> bit & 1 == 0 {
                        continue;
                    }
                    let z = depth(bx + px, by + py);
                    let z = match clamp {
                        Some((lo, hi)) => z.clamp(lo, hi),
                        None => z,
                    };
                    let q = fmt.quantize(z);
                    let row = &mut want_rows[py as usize][lx0..];
                    let stored = DepthStencilTarget::stored_depth(row, fmt, px as usize);
                    if op.test(fmt.cmp_stored(q, stored)) {
                        want |= 1 << bit;
                        if write {
                            DepthStencilTarget::store_depth(row, fmt, px as usize, q);
                        }
                    }
                }
            }
            let b = BlockRows {
                pl: &pl,
                z_offset,
                bx,
                by,
                cov,
                lx0,
            };
            // both instances where the CPU has AVX2, each on its own copy of the rows
            #[cfg(target_arch = "x86_64")]
            let avx2 = std::is_x86_feature_detected!("avx2");
            #[cfg(not(target_arch = "x86_64"))]
            let avx2 = false;
            let start = rows.clone();
            for wide in [false, true] {
                if wide && !avx2 {
                    continue;
                }
                rows = start.clone();
                let mut views: Vec<&mut [u8]> = rows.iter_mut().map(|r| &mut r[..]).collect();
                // SAFETY: the AVX2 instance only when the CPU has AVX2 (checked above).
                let got = unsafe { depth_block_fn_for(fd.pass, wide)(&fd, &b, &mut views) };
                assert_eq!(
                    got, want,
                    "case {case}: {op:?} {pl:?} {z_offset} avx2 {wide}"
                );
                assert_eq!(rows, want_rows, "case {case}: stored depths, avx2 {wide}");
            }
            passed += want.count_ones();
            failed += cov.count_ones() - want.count_ones();
        }
        assert!(passed > 50_000 && failed > 50_000, "{passed} {failed}");
    }

    /// A pass-through stage in row form: input location `l` in rows `4l..4l + 4`, every
    /// colour attachment read from location `from`'s rows, and a `run_rows` that does
    /// nothing (or fails, `fail`: then a draw that succeeds never called it). `claim`: what
    /// it answers to `rows_pass_through`.
    struct PassThrough {
        modes: Vec<Interpolation>,
        from: u32,
        claim: bool,
        fail: bool,
    }

    impl FragmentStage for PassThrough {
        fn interpolation(&self) -> &[Interpolation] {
            &self.modes
        }
        fn built_ins(&self) -> FragInputs {
            FragInputs {
                frag_coord: false,
                front_facing: false,
                primitive_id: false,
                point_coord: false,
                layer: false,
            }
        }
        fn layout(&self, attachments: usize) -> RowLayout {
            let four = |l: u32| std::array::from_fn(|c| Some(4 * l + c as u32));
            let n = self.modes.len() as u32;
            RowLayout {
                rows: 4 * n as usize,
                inputs: (0..n).map(|l| (l, four(l))).collect(),
                colors: vec![four(self.from); attachments],
                color1: [None; 4],
            }
        }
        fn run(&self, _: &QuadBatch, _: &mut QuadOutputs) -> Result<()> {
            unreachable!("run_rows is overridden")
        }
        fn run_rows(&self, _: &RowLayout, _: &mut RowBatch) -> Result<()> {
            match self.fail {
                true => Err(Error::Exec("run_rows called".into())),
                false => Ok(()),
            }
        }
        fn rows_pass_through(&self) -> bool {
            self.claim
        }
    }

    /// The direct writes of a pass-through stage (`direct`) against the batch path the same
    /// stage takes when it does not claim to pass through (interpolation into its rows, colours
    /// converted from them), byte for byte: triangles (overlapping, perspective w, colours out
    /// of [0, 1]), lines and points, smooth and noperspective, a second location, depth tests
    /// (the float block test, D16's per-quad one, a stencil test) or none, a scissor, an odd
    /// framebuffer size (blocks the tiles cut: the portable form), 1 and 2 threads. Where the
    /// direct path applies the claiming stage fails if run, so the draw shows it was taken;
    /// with blending, another format or several attachments it must not be (it would be
    /// wrong for blending) and the draw goes through the batch as before.
    #[test]
    fn direct_writes_match_the_batch_path() {
        let mut r = fastrand::Rng::with_seed(23);
        let mut pos = Vec::new();
        let mut col = Vec::new();
        for _ in 0..90 {
            let (cx, cy, z) = (r.f32() * 2.0 - 1.0, r.f32() * 2.0 - 1.0, r.f32());
            let c = [r.f32() * 1.4 - 0.2, r.f32(), r.f32() * 1.2, 1.0];
            let c2 = [r.f32(), 1.0 - c[0], 0.25, r.f32()];
            for _ in 0..3 {
                let w = 1.0 + r.f32();
                let (x, y) = (r.f32() - 0.5, r.f32() - 0.5);
                pos.push([(cx + x) * w, (cy + y) * w, z * w, w]);
                col.push([c.map(f32::to_bits), c2.map(f32::to_bits)]);
            }
        }
        let vs = VertexFn {
            varyings: 2,
            f: |i: &VertexBatch, o: &mut VertexOutputs| {
                for (v, &idx) in i.vertex_index.iter().enumerate() {
                    o.position[v] = pos[idx as usize];
                    o.point_size[v] = 1.0 + (idx % 9) as f32;
                    o.varyings[0][v] = col[idx as usize][0];
                    o.varyings[1][v] = col[idx as usize][1];
                }
                Ok(())
            },
        };
        let less = DepthStencilState {
            depth_test: true,
            depth_write: true,
            depth_compare: CompareOp::Less,
            ..Default::default()
        };
        let gequal = DepthStencilState {
            depth_compare: CompareOp::GreaterOrEqual,
            ..less
        };
        let stencil = DepthStencilState {
            stencil_test: true,
            ..less
        };
        let blend = ColorBlendAttachment {
            blend_enable: true,
            src_color_factor: BlendFactor::One,
            dst_color_factor: BlendFactor::One,
            src_alpha_factor: BlendFactor::One,
            dst_alpha_factor: BlendFactor::One,
            ..Default::default()
        };
        let rgba = Format::R8G8B8A8_UNORM;
        let float = Format::R32G32B32A32_SFLOAT;
        type Case = (
            Option<(Format, DepthStencilState)>,
            Topology,
            Interpolation,
            u32,
            Vec<Format>,
            bool,
            (u32, u32),
        );
        let d32 = Format::D32_SFLOAT;
        let tri = Topology::TriangleList;
        let (smooth, linear) = (Interpolation::Smooth, Interpolation::NoPerspective);
        let cases: Vec<Case> = vec![
            // the direct path
            (
                Some((d32, less)),
                tri,
                smooth,
                0,
                vec![rgba],
                false,
                (256, 192),
            ),
            (
                Some((d32, less)),
                tri,
                smooth,
                0,
                vec![rgba],
                false,
                (157, 93),
            ),
            (
                Some((d32, gequal)),
                tri,
                linear,
                1,
                vec![rgba],
                false,
                (157, 93),
            ),
            (None, tri, smooth, 1, vec![rgba], false, (200, 130)),
            (
                None,
                Topology::LineList,
                linear,
                0,
                vec![rgba],
                false,
                (157, 93),
            ),
            (
                None,
                Topology::PointList,
                smooth,
                0,
                vec![rgba],
                false,
                (157, 93),
            ),
            (
                Some((Format::D16_UNORM, less)),
                tri,
                smooth,
                0,
                vec![rgba],
                false,
                (99, 77),
            ),
            (
                Some((Format::D32_SFLOAT_S8_UINT, stencil)),
                tri,
                smooth,
                1,
                vec![rgba; 2],
                false,
                (130, 66),
            ),
            (Some((d32, less)), tri, smooth, 0, vec![], false, (64, 64)),
            // the batch path
            (
                Some((d32, less)),
                tri,
                smooth,
                0,
                vec![rgba],
                true,
                (157, 93),
            ),
            (None, tri, smooth, 0, vec![float], false, (100, 100)),
            (None, tri, smooth, 0, vec![rgba, float], false, (100, 100)),
        ];
        for (depth, topology, mode, from, formats, blended, (w, h)) in cases {
            let direct = !blended && formats.iter().all(|&f| f == rgba);
            let what =
                format!("{w}x{h} {topology:?} {mode:?} {from} {formats:?} {blended} {depth:?}");
            let mut images = Vec::new();
            for (claim, threads) in [(false, 1), (true, 1), (true, 2)] {
                let mut rt = RenderTargets {
                    color: formats.iter().map(|&f| ColorTarget::new(f, w, h)).collect(),
                    depth_stencil: depth.map(|(f, _)| {
                        let mut d = DepthStencilTarget::new(f, w, h);
                        d.clear(0.6, 0);
                        d
                    }),
                };
                let fs = PassThrough {
                    modes: vec![mode, Interpolation::Smooth],
                    from,
                    claim,
                    fail: claim && direct,
                };
                let state = PipelineState {
                    topology,
                    depth_stencil: depth.map(|d| d.1).unwrap_or_default(),
                    scissor: Some(Rect2D {
                        x: 3,
                        y: 1,
                        width: w - 5,
                        height: h - 2,
                    }),
                    blend_attachments: vec![
                        if blended { blend } else { Default::default() };
                        formats.len()
                    ],
                    ..Default::default()
                };
                let pipeline = Pipeline {
                    state,
                    vertex: &vs,
                    fragment: &fs,
                    stages: Default::default(),
                };
                let raster = Rasterizer::new(threads).unwrap();
                let mut pass = raster.begin(&mut rt);
                pass.bind_pipeline(&pipeline);
                pass.draw(pos.len() as u32, 1, 0, 0)
                    .unwrap_or_else(|e| panic!("{what}: claim {claim}: {e}"));
                drop(pass);
                let depth = rt.depth_stencil.map(|d| d.depth);
                images.push((
                    rt.color.into_iter().map(|c| c.data).collect::<Vec<_>>(),
                    depth,
                ));
            }
            let covered = images[0]
                .0
                .first()
                .map_or(1, |c| c.chunks(4).filter(|t| t[3] != 0).count());
            assert!(covered > 0, "{what}: nothing drawn");
            assert!(images[1] == images[0], "{what}: direct (1 thread) vs batch");
            assert!(
                images[2] == images[0],
                "{what}: direct (2 threads) vs batch"
            );
        }
    }

    /// Also holds the partly covered quads of the float depth-only path (masked lane-parallel
    /// test) to the per-lane test: the odd-sized target leaves partial quads at its edges.
    #[test]
    fn whole_quad_paths_match_the_per_lane_paths() {
        let (w, h) = (157, 93);
        let ops = COMPARE_OPS;
        let plain = RasterizationState::default();
        // depth clamp to the viewport's [0, 1] and a depth bias that pushes some depths past 1
        let adjusted = RasterizationState {
            depth_clamp: true,
            depth_bias: Some(DepthBias {
                constant_factor: 3e5,
                clamp: 0.0,
                slope_factor: 2.0,
            }),
            ..Default::default()
        };
        let mut cases = vec![(Format::D16_UNORM, CompareOp::Less, true, 1.0, plain)];
        for op in ops {
            for write in [true, false] {
                // a clear in the middle of the scene's depths, so every op passes some
                // fragments and fails others
                cases.push((Format::D32_SFLOAT, op, write, 0.5, plain));
            }
            cases.push((Format::D32_SFLOAT, op, true, 0.5, adjusted));
        }
        cases.push((Format::D32_SFLOAT, CompareOp::Less, true, 1.0, plain));
        for (fmt, op, write, clear, raster) in cases {
            let depth = DepthStencilState {
                depth_test: true,
                depth_write: write,
                depth_compare: op,
                ..Default::default()
            };
            let what = format!("{fmt:?} {op:?} write {write} clear {clear} {raster:?}");
            // Fast: plain RGBA8 writes and the depth-only test, both whole-quad.
            let mut fast = RenderTargets {
                color: vec![ColorTarget::new(Format::R8G8B8A8_UNORM, w, h)],
                depth_stencil: Some(DepthStencilTarget::new(fmt, w, h)),
            };
            fast.depth_stencil.as_mut().unwrap().clear(clear, 0);
            scene(&mut fast, depth, raster, false, 2, false);
            scene(&mut fast, depth, raster, false, 2, true);
            // Per lane: the blend write path, and the general depth/stencil test (a stencil
            // test that always passes and keeps).
            let slow_fmt = match fmt {
                Format::D32_SFLOAT => Format::D32_SFLOAT_S8_UINT,
                _ => Format::D24_UNORM_S8_UINT,
            };
            let mut slow = RenderTargets {
                color: vec![ColorTarget::new(Format::R8G8B8A8_UNORM, w, h)],
                depth_stencil: Some(DepthStencilTarget::new(slow_fmt, w, h)),
            };
            slow.depth_stencil.as_mut().unwrap().clear(clear, 0);
            let stencil = DepthStencilState {
                stencil_test: true,
                ..depth
            };
            scene(&mut slow, stencil, raster, true, 1, false);
            scene(&mut slow, stencil, raster, true, 1, true);
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
                        Format::D32_SFLOAT => assert_eq!(a.to_bits(), b.to_bits(), "{what}"),
                        // D16 and D24 quantise differently: compare to D16's precision.
                        _ => assert!(
                            abs_diff_eq!(a, b, epsilon = 0.5 / 65535.0 + 1e-7),
                            "{what}: {a} {b}"
                        ),
                    }
                }
            }
        }
    }
}
