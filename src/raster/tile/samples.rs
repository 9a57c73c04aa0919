//! The per-sample path of the tiles: multisampled draws, and single-sample draws whose
//! fragment stage reads or writes what only this path provides (`SampleMask`, `SampleId`,
//! `SamplePosition`, `InterpolateAt*`, centroid or sample inputs: [`SampleUse`]).
//!
//! Shape: the same tiles, bins and primitives as the pixel path, walked quad by quad. Each
//! lane's coverage is a mask of samples, from the primitive's edges evaluated at the
//! standard sample locations ([`crate::raster::samples`], exact integer offsets of the
//! fixed-point edges, so the top-left rule holds per sample). The walk goes by rows of 8x8
//! blocks, each row classified first (outside an edge, inside all, or partial) so that only
//! the blocks between the first and last one not outside are visited and only partial ones
//! are tested sample by sample; the edge count is a const parameter ([`Cover`]), so a
//! triangle does three edges' arithmetic, not four. A quad becomes one batch entry
//! (one invocation per covered pixel, coverage per lane), or, when shading per sample, one
//! entry per sample index (the quad's four pixels at that sample: derivatives are taken
//! between pixels at one sample, as on GPUs). Depth is interpolated at every sample; early and
//! late depth/stencil tests, `SampleMask` output, alpha-to-coverage and blending are per sample,
//! on the attachments' `samples` consecutive texels per pixel.
//!
//! Ordering: an entry whose (pixel, sample) pairs meet one already in the batch flushes the
//! batch first, so every sample sees its tests and writes in submission order (the samples
//! taken are kept per tile quad, one lookup an entry); early tests run as entries are
//! submitted, as on the pixel path.
//!
//! A flush fills only the built-ins the stage reads (`FragmentStage::built_ins`, as the pixel
//! path does), array by array over whole quads, in buffers that live as long as the shader
//! (no allocation per batch).
//!
//! Why a path of its own: the pixel path's block masks, direct writes and SIMD interpolation are
//! shaped for one bit per pixel, and keeping them free of per-sample branches keeps the
//! single-sample frames as fast as they were. This path is plain scalar code, except for plain
//! RGBA8 writes, which convert the batch's rows with the pixel path's kernels
//! (`shade::convert_rgba8`) and write a pixel whose samples are all covered as one run, four
//! samples a store. With one sample it computes what the pixel path does, bit for bit (coverage at
//! the centre, planes evaluated at a quad's lane 0 and stepped to its other lanes; a test holds the
//! two to the same bytes), which is what lets a single-sample draw that reads `SampleMask` or
//! interpolates at an offset take it.

use super::*;
use crate::raster::samples::edge_offset;
use crate::stage::{InterpPlanes, SampleUse, Sampling};
use wide::bytemuck::cast;

/// A quad of one primitive waiting for the fragment stage: one invocation per lane.
#[derive(Clone, Copy, Debug)]
struct Entry<'a> {
    /// Framebuffer position of lane 0 (even x and y).
    x: i32,
    y: i32,
    /// The primitive.
    p: &'a RasterPrim,
    /// Per lane: the samples the invocation covers (after early tests).
    cover: [u32; 4],
    /// Per lane: every sample of the pixel the primitive covers (where a centroid goes).
    full: [u32; 4],
    /// The sample this entry shades, when shading per sample.
    sample: Option<u8>,
}

/// A shading point: offset (x, y) of lane 0 from the quad's origin pixel's corner.
type Point = (f64, f64);

/// One pool thread's state on the per-sample path, reused tile after tile.
pub(super) struct SampleShader<'a> {
    scene: &'a Scene<'a>,
    atts: &'a [Attachment],
    ds_format: Option<Format>,
    /// Samples per pixel and their locations (sixteenths).
    n: usize,
    locs: &'static [[u8; 2]],
    /// One invocation per sample rather than per pixel.
    per_sample: bool,
    early: bool,
    tests: bool,
    uses: SampleUse,
    layout: RowLayout,
    layout_error: Option<String>,
    batch: RowBatch,
    entries: Vec<Entry<'a>>,
    /// Per tile quad (row-major, [`quad_index`]), the samples the batch's entries hold in
    /// each of its pixels.
    taken: Vec<[u32; 4]>,
    /// The current row of 8x8 blocks of a primitive, classified against its edges.
    blocks: Vec<Block>,
    /// The built-in inputs the stage reads (the others keep stale values).
    built_ins: FragInputs,
    /// Per lane, the samples that survive a flush ([`Self::survivors`]' room).
    live: Vec<u32>,
    /// One input location's values per entry, `[component][lane]` ([`Self::fill_rows`]' room).
    values: Vec<[[u32; 4]; 4]>,
    /// The batch's colours as RGBA8 pixels, for plain 8-bit unorm writes
    /// (`shade::convert_rgba8`'s room).
    rgba8: Box<[[u8; 16]; QUAD_BATCH]>,
}

/// The covered samples `live` (per lane) of `entries`, converted to RGBA8 `pixels` (four
/// bytes per lane), into an attachment of `n` samples per pixel: a pixel whose every sample
/// is written takes its `n` texels as one run.
fn write_samples_rgba8(
    entries: &[Entry],
    pixels: &[[u8; 16]],
    live: &[u32],
    rows: &mut [&mut [u8]],
    n: usize,
    rect: PixRect,
) {
    let all = if n >= 32 { u32::MAX } else { (1u32 << n) - 1 };
    for ((e, px), live) in entries.iter().zip(pixels).zip(live.chunks_exact(4)) {
        for (k, &m) in live.iter().enumerate() {
            if m == 0 {
                continue;
            }
            let (lx, ly) = (
                (e.x - rect.x0) as usize + (k & 1),
                (e.y - rect.y0) as usize + (k >> 1),
            );
            let texel: [u8; 4] = px[4 * k..4 * k + 4].try_into().expect("four bytes");
            let pixel = &mut rows[ly][lx * n * 4..(lx + 1) * n * 4];
            if m & all == all {
                // four samples' texels a store
                let four = cast::<[u32; 4], [u8; 16]>([u32::from_ne_bytes(texel); 4]);
                let (fours, rest) = pixel.as_chunks_mut::<16>();
                fours.fill(four);
                rest.as_chunks_mut::<4>().0.fill(texel);
                continue;
            }
            let mut m = m;
            while m != 0 {
                let s = m.trailing_zeros() as usize;
                m &= m - 1;
                pixel[4 * s..4 * s + 4].copy_from_slice(&texel);
            }
        }
    }
}

impl<'a> SampleShader<'a> {
    pub(super) fn new(
        scene: &'a Scene<'a>,
        atts: &'a [Attachment],
        ds_format: Option<Format>,
    ) -> Self {
        let fs = scene.fs;
        let st = scene.state;
        let n = st.samples.max(1);
        let uses = fs.sample_use();
        let shading = st.sample_shading.is_some_and(|m| m * n as f32 > 1.0);
        let per_sample = n > 1 && (uses.per_sample || shading);
        let layout = fs.layout(atts.len());
        SampleShader {
            scene,
            atts,
            ds_format,
            n: n as usize,
            locs: crate::stage::sample_locations::locations(n),
            per_sample,
            // the shader's `SampleMask` and alpha change which samples are tested
            early: !fs.writes_depth()
                && !fs.can_discard()
                && !uses.mask_out
                && !st.alpha_to_coverage,
            tests: tests_enabled(&st.depth_stencil, ds_format),
            uses,
            layout_error: shade::layout_error(&layout),
            layout,
            batch: RowBatch::default(),
            entries: Vec::with_capacity(QUAD_BATCH),
            taken: vec![[0; 4]; (TILE * TILE / 4) as usize],
            blocks: Vec::new(),
            built_ins: fs.built_ins(),
            live: Vec::new(),
            values: Vec::new(),
            rgba8: Box::new([[0; 16]; QUAD_BATCH]),
        }
    }

    pub(super) fn shade(&mut self, bin: &[u32], view: &mut TileView) -> Result<()> {
        self.entries.clear();
        self.taken.fill([0; 4]);
        let scene = self.scene;
        for &pi in bin {
            let p = scene.prims.get(pi);
            if let Some(r) = p.bbox.intersect(&view.rect) {
                // triangles walk their three edges, the rest four (a missing one is zero)
                match p.n_edges {
                    3 => self.primitive::<3>(view, p, r)?,
                    _ => self.primitive::<4>(view, p, r)?,
                }
            }
        }
        self.flush(view)
    }

    /// Primitive `pi`'s pixels `r` of the tile, quad by quad in rows. Each row of 8x8 blocks
    /// the quads cross is classified first ([`Cover::classify_row`]): only the blocks between
    /// the first and the last one not outside an edge are walked, quads of a block outside an
    /// edge are skipped, pixels of a block inside every edge at every sample are covered
    /// without per-sample tests, and only the rest are tested sample by sample.
    fn primitive<const E: usize>(
        &mut self,
        view: &mut TileView,
        p: &'a RasterPrim,
        r: PixRect,
    ) -> Result<()> {
        let edges = &p.edges[..p.n_edges];
        let all = self.scene.state.sample_mask & sample_bits(self.n);
        let cover = Cover::<E>::new(edges, self.locs, self.n, all);
        let bx_first = r.x0 & !(BLOCK - 1);
        let mut class = std::mem::take(&mut self.blocks);
        class.clear();
        class.resize(((r.x1 - bx_first) / BLOCK + 1) as usize, Block::Outside);
        let mut span = 0..0;
        let mut qy = r.y0 & !1;
        while qy <= r.y1 {
            if qy == r.y0 & !1 || qy & (BLOCK - 1) == 0 {
                span = cover.classify_row(bx_first, qy & !(BLOCK - 1), &mut class);
            }
            // the quad's rows inside `r`, as pixel bits 0 1 / 2 3
            let rows = ((qy >= r.y0) as u8 * 0b0011) | ((qy < r.y1) as u8 * 0b1100);
            for (i, &block) in class[span.clone()].iter().enumerate() {
                if block == Block::Outside {
                    continue;
                }
                let bx = bx_first + (span.start + i) as i32 * BLOCK;
                let (mut qx, x_end) = (bx.max(r.x0 & !1), (bx + BLOCK - 1).min(r.x1));
                while qx <= x_end {
                    let cols = ((qx >= r.x0) as u8 * 0b0101) | ((qx < r.x1) as u8 * 0b1010);
                    let inside = rows & cols;
                    let full = if block == Block::Inside {
                        std::array::from_fn(|k| if inside >> k & 1 != 0 { all } else { 0 })
                    } else {
                        cover.quad(qx, qy, inside)
                    };
                    if full != [0; 4] {
                        let e = Entry {
                            x: qx,
                            y: qy,
                            p,
                            cover: full,
                            full,
                            sample: None,
                        };
                        if self.per_sample {
                            for s in 0..self.n {
                                let cover = full.map(|m| m & 1 << s);
                                if cover != [0; 4] {
                                    let sample = Some(s as u8);
                                    self.submit(view, Entry { cover, sample, ..e })?;
                                }
                            }
                        } else {
                            self.submit(view, e)?;
                        }
                    }
                    qx += 2;
                }
            }
            qy += 2;
        }
        self.blocks = class;
        Ok(())
    }

    /// An entry into the batch: the batch is flushed first if it holds one of the entry's
    /// (pixel, sample) pairs or is full; early tests, if any, then drop the samples that fail.
    fn submit(&mut self, view: &mut TileView, mut e: Entry<'a>) -> Result<()> {
        let qi = quad_index(&e, view.rect);
        let t = self.taken[qi];
        let c = e.cover;
        let conflict = (t[0] & c[0]) | (t[1] & c[1]) | (t[2] & c[2]) | (t[3] & c[3]) != 0;
        if conflict || self.entries.len() == QUAD_BATCH {
            self.flush(view)?;
        }
        if self.early && self.tests {
            for k in 0..4 {
                e.cover[k] = self.test_samples(view, &e, k, e.cover[k], None);
            }
            if e.cover == [0; 4] {
                return Ok(());
            }
        }
        for (t, c) in self.taken[qi].iter_mut().zip(e.cover) {
            *t |= c;
        }
        self.entries.push(e);
        Ok(())
    }

    /// The depth/stencil tests (and writes) of lane `k`'s samples `mask`, at the depth each
    /// sample interpolates to, or at `frag_depth` (a `FragDepth` output) for all of them;
    /// the samples that pass.
    fn test_samples(
        &self,
        view: &mut TileView,
        e: &Entry,
        k: usize,
        mask: u32,
        frag_depth: Option<f32>,
    ) -> u32 {
        let Some(format) = self.ds_format else {
            return mask;
        };
        let rect = view.rect;
        let (lx, ly) = (
            (e.x - rect.x0) as usize + (k & 1),
            (e.y - rect.y0) as usize + (k >> 1),
        );
        let st = &self.scene.state.depth_stencil;
        let mut no_stencil: [u8; 0] = [];
        let mut ds = DepthStencilBuf {
            format,
            depth: match view.depth.get_mut(ly) {
                Some(r) => r,
                None => &mut [],
            },
            stencil: match view.stencil.get_mut(ly) {
                Some(r) => r,
                None => &mut no_stencil,
            },
        };
        let mut pass = mask;
        let mut m = mask;
        while m != 0 {
            let s = m.trailing_zeros() as usize;
            m &= m - 1;
            let z = frag_depth.unwrap_or_else(|| {
                let z = lane_values(&e.p.z, e, self.sample_point(s))[k];
                (z + e.p.z_offset) as f32
            });
            let z = match self.scene.depth_clamp {
                Some((lo, hi)) => z.clamp(lo, hi),
                None => z,
            };
            if !depth_stencil(st, &mut ds, lx * self.n + s, z, e.p.info.front) {
                pass &= !(1 << s);
            }
        }
        pass
    }

    /// Sample `s`'s location as a shading point.
    fn sample_point(&self, s: usize) -> Point {
        let [x, y] = self.locs.get(s).copied().unwrap_or([8, 8]);
        (x as f64 / 16.0, y as f64 / 16.0)
    }

    /// Where entry `e`'s invocations run: its sample, or the pixel centre.
    fn shading_point(&self, e: &Entry) -> Point {
        match e.sample {
            Some(s) => self.sample_point(s as usize),
            None => (0.5, 0.5),
        }
    }

    /// Where lane `k` of `e` evaluates an input sampled `at`.
    fn input_point(&self, e: &Entry, k: usize, at: Sampling) -> Point {
        match (at, e.sample) {
            (Sampling::Centroid, None) => self.centroid(e.full[k]),
            _ => self.shading_point(e),
        }
    }

    /// The centroid of a pixel whose covered samples are `full`: the centre when all are,
    /// else the covered sample of lowest index.
    fn centroid(&self, full: u32) -> Point {
        if full == sample_bits(self.n) || full == 0 {
            (0.5, 0.5)
        } else {
            self.sample_point(full.trailing_zeros() as usize)
        }
    }

    /// Shade the batch's entries and write what survives.
    pub(super) fn flush(&mut self, view: &mut TileView) -> Result<()> {
        if self.entries.is_empty() {
            return Ok(());
        }
        if let Some(e) = &self.layout_error {
            self.entries.clear();
            return Err(Error::Exec(e.clone()));
        }
        let rect = view.rect;
        for e in &self.entries {
            self.taken[quad_index(e, rect)] = [0; 4];
        }
        self.build_input();
        let fs = self.scene.fs;
        let nq = self.entries.len();
        let lanes = 4 * nq;
        fs.run_rows(&self.layout, &mut self.batch)?;
        let b = &self.batch;
        if b.rows.len() != self.layout.rows * lanes
            || b.depth.len() != lanes
            || b.killed.len() != nq
            || b.sample_mask_out.len() != lanes
        {
            self.entries.clear();
            return Err(Error::Exec(format!(
                "raster/tile/samples.rs: the fragment stage resized its batch (expected {} \
                 rows x {lanes} lanes, {nq} quads)",
                self.layout.rows
            )));
        }
        let live = self.survivors(view);
        self.write_colors(view, &live);
        self.live = live;
        self.entries.clear();
        Ok(())
    }

    /// Per lane, the samples left after discard, the `SampleMask` output, alpha-to-coverage
    /// and the late tests.
    fn survivors(&mut self, view: &mut TileView) -> Vec<u32> {
        let st = self.scene.state;
        let fs = self.scene.fs;
        let b = &self.batch;
        let lanes = 4 * self.entries.len();
        let alpha = st
            .alpha_to_coverage
            .then(|| self.layout.colors.first().and_then(|c| c[3]))
            .flatten()
            .and_then(|r| RowLayout::row(&b.rows, Some(r), lanes));
        let late = !self.early && self.tests;
        let mut live = std::mem::take(&mut self.live);
        live.resize(lanes, 0);
        for (l, e) in live.chunks_exact_mut(4).zip(&self.entries) {
            l.copy_from_slice(&e.cover);
        }
        if fs.can_discard() {
            for (l, &killed) in live.chunks_exact_mut(4).zip(&b.killed) {
                for (k, l) in l.iter_mut().enumerate() {
                    if killed >> k & 1 != 0 {
                        *l = 0;
                    }
                }
            }
        }
        if self.uses.mask_out {
            for (l, &m) in live.iter_mut().zip(&b.sample_mask_out) {
                *l &= m;
            }
        }
        if let Some(a) = alpha {
            for (l, &a) in live.iter_mut().zip(a) {
                *l &= alpha_coverage(f32::from_bits(a), self.n);
            }
        }
        if late {
            let writes_depth = fs.writes_depth();
            for (q, e) in self.entries.iter().enumerate() {
                for k in 0..4 {
                    let lane = 4 * q + k;
                    if live[lane] != 0 {
                        let z = writes_depth.then(|| self.batch.depth[lane]);
                        live[lane] = self.test_samples(view, e, k, live[lane], z);
                    }
                }
            }
        }
        live
    }

    /// The colour writes of the surviving samples `live` (per lane), per sample texel.
    fn write_colors(&mut self, view: &mut TileView, live: &[u32]) {
        let st = self.scene.state;
        let b = &self.batch;
        let lanes = 4 * self.entries.len();
        let rect = view.rect;
        let comps = |words: Option<&[Option<u32>; 4]>| -> [Option<&[u32]>; 4] {
            let words = words.unwrap_or(&[None; 4]);
            std::array::from_fn(|c| RowLayout::row(&b.rows, words[c], lanes))
        };
        let src1 = comps(Some(&self.layout.color1));
        for (a, (codec, att, bpp)) in self.atts.iter().enumerate() {
            let bpp = *bpp;
            let src = comps(self.layout.colors.get(a));
            let rows = &mut view.colors[a];
            let one = st.alpha_to_one && !codec.class.is_integer();
            let plain =
                att.write_mask & 0xf == 0xf && (codec.class.is_integer() || !att.blend_enable);
            let bgra = shade::rgba8_order(codec.format);
            if let (true, false, Some(bgra)) = (plain, one, bgra) {
                let zero = &shade::ZERO_ROW[..lanes];
                let [r, g, b, a] = src.map(|r| r.unwrap_or(zero));
                let src = if bgra { [b, g, r, a] } else { [r, g, b, a] };
                let pixels = shade::convert_rgba8(self.entries.len(), src, &mut self.rgba8);
                write_samples_rgba8(&self.entries, pixels, live, rows, self.n, rect);
                continue;
            }
            for (q, e) in self.entries.iter().enumerate() {
                for k in 0..4 {
                    let lane = 4 * q + k;
                    if live[lane] == 0 {
                        continue;
                    }
                    let mut v = src.map(|r| r.map_or(0, |r| r[lane]));
                    let mut v1 = match a {
                        0 => src1.map(|r| r.map_or(0, |r| r[lane])),
                        _ => [0; 4],
                    };
                    if one {
                        v[3] = 1.0f32.to_bits();
                        v1[3] = 1.0f32.to_bits();
                    }
                    let (lx, ly) = (
                        (e.x - rect.x0) as usize + (k & 1),
                        (e.y - rect.y0) as usize + (k >> 1),
                    );
                    let row = &mut rows[ly];
                    let mut m = live[lane];
                    // without blending or a partial write mask every sample gets the same
                    // bytes: encode them once
                    let mut encoded = [0u8; 32];
                    let plain = plain && bpp <= encoded.len();
                    if plain {
                        codec.encode_output(v, &mut encoded[..bpp]);
                    }
                    while m != 0 {
                        let s = m.trailing_zeros() as usize;
                        m &= m - 1;
                        let t = (lx * self.n + s) * bpp;
                        let texel = &mut row[t..t + bpp];
                        if plain {
                            texel.copy_from_slice(&encoded[..bpp]);
                        } else {
                            write_color(codec, att, st.blend_constants, v, v1, texel);
                        }
                    }
                }
            }
        }
    }

    /// Fill the batch for the entries: coverage, built-ins, the sample inputs, every input
    /// row of the layout, and the planes when the stage interpolates at other points.
    fn build_input(&mut self) {
        let scene = self.scene;
        let nq = self.entries.len();
        let n = 4 * nq;
        let samples = self.n as u32;
        let entries = &self.entries;
        let b = &mut self.batch;
        b.quads = nq;
        b.samples = samples;
        b.coverage.resize(nq, 0);
        for (c, e) in b.coverage.iter_mut().zip(entries) {
            *c = (0..4).fold(0u8, |m, k| m | ((e.cover[k] != 0) as u8) << k);
        }
        b.frag_coord.resize(n, [0.0; 4]);
        b.front_facing.resize(n, false);
        b.primitive_id.resize(n, 0);
        b.point_coord.resize(n, [0.0; 2]);
        b.sample_id.resize(n, 0);
        b.sample_mask.resize(n, 0);
        let lanes = b.sample_id.chunks_exact_mut(4);
        for ((e, id), mask) in entries
            .iter()
            .zip(lanes)
            .zip(b.sample_mask.chunks_exact_mut(4))
        {
            id.fill(e.sample.unwrap_or(0) as u32);
            mask.copy_from_slice(&e.cover);
        }
        b.sample_mask_out.clone_from(&b.sample_mask);
        b.killed.clear();
        b.killed.resize(nq, 0);
        b.rows.resize(self.layout.rows * n, 0);
        b.depth.resize(n, 0.0);
        // The built-ins the stage reads, each in one zipped walk over whole quads; the others
        // keep stale values.
        let reads = self.built_ins;
        let writes_depth = scene.fs.writes_depth();
        if reads.frag_coord || writes_depth || reads.point_coord {
            let lanes = b
                .frag_coord
                .chunks_exact_mut(4)
                .zip(b.depth.chunks_exact_mut(4));
            let lanes = lanes.zip(b.point_coord.chunks_exact_mut(4));
            for (e, ((fc, depth), pc)) in entries.iter().zip(lanes) {
                let (sx, sy) = match e.sample {
                    Some(s) => {
                        let [x, y] = self.locs.get(s as usize).copied().unwrap_or([8, 8]);
                        (x as f64 / 16.0, y as f64 / 16.0)
                    }
                    None => (0.5, 0.5),
                };
                let z = lane_values(&e.p.z, e, (sx, sy));
                let inv_w = lane_values(&e.p.inv_w, e, (sx, sy));
                for k in 0..4 {
                    let (x, y) = (
                        (e.x + (k & 1) as i32) as f64 + sx,
                        (e.y + (k >> 1) as i32) as f64 + sy,
                    );
                    let zk = (z[k] + e.p.z_offset) as f32;
                    fc[k] = [x as f32, y as f32, zk, inv_w[k] as f32];
                    if writes_depth {
                        depth[k] = zk;
                    }
                    pc[k] = match e.p.point {
                        Some((l, t, s)) => [((x - l) / s) as f32, ((y - t) / s) as f32],
                        None => [0.0; 2],
                    };
                }
            }
        }
        super::shade::fill_primitive_built_ins(reads, entries.iter().map(|e| e.p), b);
        self.fill_rows();
        if self.uses.interpolate_at {
            self.fill_planes();
        }
    }

    /// Every input row of the layout, lane by lane, at the point each input is evaluated.
    fn fill_rows(&mut self) {
        let scene = self.scene;
        let modes = scene.fs.interpolation();
        let n = 4 * self.entries.len();
        let entries = std::mem::take(&mut self.entries);
        let mut values = std::mem::take(&mut self.values);
        for &(loc, words) in &self.layout.inputs {
            let l = loc as usize;
            let mode = modes.get(l).filter(|_| l < scene.n_vary);
            let at = self.uses.sampling.get(l).copied().unwrap_or_default();
            // The planes of the current primitive: a batch's entries come in runs of one
            // primitive, so they are combined once per run.
            let mut planes: Option<(&RasterPrim, ([Plane; 4], Plane))> = None;
            values.clear();
            for e in &entries {
                let p = e.p;
                let var = |j: usize| scene.varyings[p.info.slots[j] as usize * scene.n_vary + l];
                // [component][lane]
                let vals: [[u32; 4]; 4] = match mode {
                    None => [[0; 4]; 4],
                    Some(Interpolation::Flat) => var(0).map(|v| [v; 4]),
                    Some(&m) => {
                        let (num, den) = match planes {
                            Some((prim, pl)) if std::ptr::eq(prim, p) => pl,
                            _ => {
                                let pl = input_planes(scene, p, l, m);
                                planes = Some((p, pl));
                                pl
                            }
                        };
                        // the planes at the four lanes, from one point
                        let lanes = |pt| {
                            (
                                lane_values(&den, e, pt),
                                num.map(|pl| lane_values(&pl, e, pt)),
                            )
                        };
                        // every lane's point is the entry's shading point unless it is a centroid
                        let shared = (!matches!((at, e.sample), (Sampling::Centroid, None)))
                            .then(|| lanes(self.shading_point(e)));
                        // (a loop, not `array::from_fn`, whose closure is left out of line)
                        let mut vals = [[0; 4]; 4];
                        for k in 0..4 {
                            let (d, n) =
                                shared.unwrap_or_else(|| lanes(self.input_point(e, k, at)));
                            let inv = if d[k] == 0.0 { 1.0 } else { 1.0 / d[k] };
                            for (v, n) in vals.iter_mut().zip(&n) {
                                v[k] = ((n[k] * inv) as f32).to_bits();
                            }
                        }
                        vals
                    }
                };
                values.push(vals);
            }
            for (c, r) in words.iter().enumerate() {
                let Some(r) = r else { continue };
                let row = &mut self.batch.rows[*r as usize * n..][..n];
                for (lanes, v) in row.chunks_exact_mut(4).zip(&values) {
                    lanes.copy_from_slice(&v[c]);
                }
            }
        }
        self.values = values;
        self.entries = entries;
    }

    /// [`InterpPlanes`] for the batch: per quad the three denominators and every input row's
    /// numerator at the quad's lane 0 centre, and each lane's centroid offset.
    fn fill_planes(&mut self) {
        let scene = self.scene;
        let modes = scene.fs.interpolation();
        let mut planes = std::mem::take(&mut self.batch.planes);
        let pl = &mut planes;
        pl.rows.clear();
        pl.rows.resize(self.layout.rows, None);
        pl.modes.clear();
        // the named rows: (row, location, component)
        let mut named = Vec::new();
        for &(loc, words) in &self.layout.inputs {
            for (c, r) in words.iter().enumerate() {
                if let Some(r) = r {
                    if let Some(slot) = pl.rows.get_mut(*r as usize) {
                        *slot = Some(named.len() as u32);
                        let l = loc as usize;
                        let mode = match modes.get(l).filter(|_| l < scene.n_vary) {
                            Some(Interpolation::Smooth) => 0,
                            Some(Interpolation::NoPerspective) => 1,
                            _ => 2,
                        };
                        pl.modes.push(mode);
                        named.push((l, c));
                    }
                }
            }
        }
        pl.per_quad = InterpPlanes::DENOMINATORS + named.len();
        pl.values.clear();
        pl.centroid.clear();
        for e in &self.entries {
            let p = e.p;
            let at0 = |plane: &Plane| {
                let v = plane.at(e.x as f64 + 0.5, e.y as f64 + 0.5);
                [v, plane.dx, plane.dy]
            };
            let dens = [Interpolation::Smooth, Interpolation::NoPerspective]
                .map(|m| input_planes(scene, p, usize::MAX, m).1);
            pl.values.push(at0(&dens[0]));
            pl.values.push(at0(&dens[1]));
            pl.values.push([1.0, 0.0, 0.0]);
            for &(l, c) in &named {
                let value = match modes.get(l).filter(|_| l < scene.n_vary) {
                    None => [0.0; 3],
                    Some(Interpolation::Flat) => {
                        let v = scene.varyings[p.info.slots[0] as usize * scene.n_vary + l][c];
                        [f32::from_bits(v) as f64, 0.0, 0.0]
                    }
                    Some(&m) => at0(&input_planes(scene, p, l, m).0[c]),
                };
                pl.values.push(value);
            }
            for k in 0..4 {
                let (x, y) = match e.sample {
                    Some(_) => self.shading_point(e),
                    None => self.centroid(e.full[k]),
                };
                pl.centroid.push([(x - 0.5) as f32, (y - 0.5) as f32]);
            }
        }
        self.batch.planes = planes;
    }
}

/// A primitive's coverage of a quad's pixels at each sample, in straight-line integer
/// arithmetic: `E` edges (the primitive's, then zero ones, inside everywhere) and up to
/// sixteen samples. A sample is inside an edge when the edge's value at the pixel centre plus
/// its gain to the sample ([`edge_offset`]) is not negative, so inside every edge exactly when
/// the bitwise OR of the sums is not negative (the sign bit of any one sets the OR's). What
/// depends only on the primitive (each pixel's step from the quad's lane 0, the extremes over
/// a quad and over a block) is summed once here.
struct Cover<const E: usize> {
    edges: [Edge; E],
    /// Per sample, each edge's gain from the pixel centre.
    offs: [[i64; E]; 16],
    n: usize,
    /// Per lane, each edge's gain from lane 0's centre to the lane's centre.
    lane: [[i64; E]; 4],
    /// Per edge, the least of its gains to a sample.
    least: [i64; E],
    /// Per edge, the greatest gain from a quad's lane 0 centre to a sample of the quad.
    quad_reach: [i64; E],
    /// Per edge, the least and the greatest gain from a block's top-left pixel centre to a
    /// sample of the block.
    block_low: [i64; E],
    block_reach: [i64; E],
    /// The samples that count: the sample mask's of the `n`.
    all: u32,
}

/// The bitwise OR of `a[j] + b[j]` over the edges: negative exactly when one sum is.
#[inline(always)]
fn or_sums<const E: usize>(a: &[i64; E], b: &[i64; E]) -> i64 {
    a.iter().zip(b).fold(0, |v, (a, b)| v | (a + b))
}

impl<const E: usize> Cover<E> {
    /// `edges` (at most `E`), `n` samples (at most 16) at `locs` (a missing location: the
    /// pixel centre).
    fn new(edges: &[Edge], locs: &[[u8; 2]], n: usize, all: u32) -> Self {
        let mut ee = [Edge::default(); E];
        ee[..edges.len()].copy_from_slice(edges);
        let mut offs = [[0i64; E]; 16];
        for (o, &loc) in offs.iter_mut().zip(locs) {
            for (v, e) in o.iter_mut().zip(edges) {
                *v = edge_offset(e, loc);
            }
        }
        let mut gain = [(i64::MAX, i64::MIN); E];
        for o in &offs[..n] {
            for (g, &v) in gain.iter_mut().zip(o) {
                *g = (g.0.min(v), g.1.max(v));
            }
        }
        let lane = std::array::from_fn(|k| {
            let (dx, dy) = ((k & 1) as i64, (k >> 1) as i64);
            ee.map(|e| dx * e.ex + dy * e.ey)
        });
        let span = BLOCK as i64 - 1;
        Cover {
            edges: ee,
            offs,
            n,
            lane,
            least: gain.map(|g| g.0),
            quad_reach: std::array::from_fn(|i| ee[i].ex.max(0) + ee[i].ey.max(0) + gain[i].1),
            block_low: std::array::from_fn(|i| {
                (ee[i].ex * span).min(0) + (ee[i].ey * span).min(0) + gain[i].0
            }),
            block_reach: std::array::from_fn(|i| {
                (ee[i].ex * span).max(0) + (ee[i].ey * span).max(0) + gain[i].1
            }),
            all,
        }
    }

    /// The row of 8x8 blocks whose first top-left pixel is (bx, by), classified into
    /// `class` (one per block, left to right); the range of blocks from the first to the last
    /// one not outside. An edge is linear, so over a block's pixels it ranges from its value
    /// at the top-left pixel plus the negative, to that plus the positive, of its 7-pixel
    /// steps in x and y, widened by the gains to the samples (llvmpipe's trivial reject and
    /// accept); a block is outside when one edge's greatest value is negative, inside when
    /// every edge's least is not.
    fn classify_row(&self, bx: i32, by: i32, class: &mut [Block]) -> std::ops::Range<usize> {
        let mut c = self.edges.map(|e| e.at(bx as i64, by as i64));
        let step = self.edges.map(|e| e.ex * BLOCK as i64);
        let (mut first, mut end) = (class.len(), 0);
        for (i, class) in class.iter_mut().enumerate() {
            *class = if or_sums(&c, &self.block_reach) < 0 {
                Block::Outside
            } else {
                first = first.min(i);
                end = i + 1;
                if or_sums(&c, &self.block_low) >= 0 {
                    Block::Inside
                } else {
                    Block::Partial
                }
            };
            for (c, s) in c.iter_mut().zip(step) {
                *c += s;
            }
        }
        first.min(end)..end
    }

    /// The covered samples of the quad at (qx, qy) (even), per pixel; pixels whose bit is
    /// clear in `inside` (0 1 / 2 3) are left empty.
    #[inline]
    fn quad(&self, qx: i32, qy: i32, inside: u8) -> [u32; 4] {
        let a0 = self.edges.map(|e| e.at(qx as i64, qy as i64));
        // outside one edge at every sample of the four pixels
        if or_sums(&a0, &self.quad_reach) < 0 {
            return [0; 4];
        }
        // (a loop, not `array::from_fn`, whose closure is left out of line)
        let mut r = [0; 4];
        for (k, (r, d)) in r.iter_mut().zip(&self.lane).enumerate() {
            if inside >> k & 1 == 0 {
                continue;
            }
            let mut a = a0;
            for (a, d) in a.iter_mut().zip(d) {
                *a += d;
            }
            if or_sums(&a, &self.least) >= 0 {
                *r = self.all;
                continue;
            }
            let mut bits = 0;
            for (s, o) in self.offs[..self.n].iter().enumerate() {
                bits |= ((or_sums(&a, o) >= 0) as u32) << s;
            }
            *r = bits & self.all;
        }
        r
    }
}

/// Where an 8x8 block stands against a primitive's edges, at every sample of every pixel.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Block {
    /// Outside one edge: nothing covered.
    Outside,
    /// Inside every edge: everything covered.
    Inside,
    /// Either: test sample by sample.
    Partial,
}

/// Entry `e`'s quad's index in the tile at `rect` (row-major quads).
#[inline]
fn quad_index(e: &Entry, rect: PixRect) -> usize {
    (((e.y - rect.y0) >> 1) * (TILE >> 1) + ((e.x - rect.x0) >> 1)) as usize
}

/// The low `n` bits.
fn sample_bits(n: usize) -> u32 {
    if n >= 32 {
        u32::MAX
    } else {
        (1u32 << n) - 1
    }
}

/// Alpha-to-coverage: sample `s` of `n` is kept when `alpha > s / n` (llvmpipe's mapping).
fn alpha_coverage(alpha: f32, n: usize) -> u32 {
    let step = 1.0 / n as f32;
    (0..n).fold(0, |m, s| m | ((alpha > step * s as f32) as u32) << s)
}

/// A plane at each lane of `e` evaluated at the lane's pixel offset by `pt` from its corner:
/// at lane 0 (`Plane::at`), stepped to the others, as the pixel path steps (its lane 0 is at
/// `pt` = (0.5, 0.5)).
fn lane_values(pl: &Plane, e: &Entry, (px, py): Point) -> [f64; 4] {
    let v = pl.at(e.x as f64 + px, e.y as f64 + py);
    let v1 = v + pl.dx;
    [v + -0.0, v1, v + pl.dy, v1 + pl.dy]
}

/// The numerator planes of location `l` (four components) and the denominator of mode `m`
/// over primitive `p`: what the pixel path's interpolation combines (smooth: the weights
/// over w; noperspective: the same scaled by the vertices' w). `l` past the varyings gives
/// zero numerators.
fn input_planes(scene: &Scene, p: &RasterPrim, l: usize, m: Interpolation) -> ([Plane; 4], Plane) {
    let nv = p.info.n_verts as usize;
    let bw = &p.bw[..nv];
    let scale: [f64; 3] = match m {
        Interpolation::NoPerspective => p.info.orig_w,
        _ => [1.0; 3],
    };
    let den = Plane::combine(bw, |j| scale[j]);
    if l >= scene.n_vary {
        return ([Plane::default(); 4], den);
    }
    let vs: [[u32; 4]; 3] = std::array::from_fn(|j| {
        if j < nv {
            scene.varyings[p.info.slots[j] as usize * scene.n_vary + l]
        } else {
            [0; 4]
        }
    });
    let num =
        std::array::from_fn(|c| Plane::combine(bw, |j| scale[j] * f32::from_bits(vs[j][c]) as f64));
    (num, den)
}

#[cfg(test)]
mod tests {
    use crate::raster::*;
    use crate::Result;

    /// A closure fragment stage that says what it uses of multisampling.
    struct Uses<F> {
        inner: FragmentFn<F>,
        uses: SampleUse,
    }

    impl<F> FragmentStage for Uses<F>
    where
        F: Fn(&QuadBatch, &mut QuadOutputs) -> Result<()> + Sync,
    {
        fn interpolation(&self) -> &[Interpolation] {
            self.inner.interpolation()
        }
        fn writes_depth(&self) -> bool {
            self.inner.writes_depth()
        }
        fn can_discard(&self) -> bool {
            self.inner.can_discard()
        }
        fn sample_use(&self) -> SampleUse {
            self.uses.clone()
        }
        fn run(&self, input: &QuadBatch, output: &mut QuadOutputs) -> Result<()> {
            self.inner.run(input, output)
        }
    }

    /// Overlapping triangles at random depths with perspective w, colours out of [0, 1], a
    /// second (noperspective) varying.
    fn triangles(n: usize, seed: u64) -> (Vec<[f32; 4]>, Vec<[[u32; 4]; 2]>) {
        let mut rng = fastrand::Rng::with_seed(seed);
        let mut r = || rng.f32();
        let (mut pos, mut col) = (Vec::new(), Vec::new());
        for _ in 0..n {
            let (cx, cy, z) = (r() * 2.0 - 1.0, r() * 2.0 - 1.0, r());
            let c = [r() * 1.4 - 0.2, r(), r() * 1.2, 1.0];
            for _ in 0..3 {
                let w = 1.0 + r();
                let (x, y) = (r() - 0.5, r() - 0.5);
                pos.push([(cx + x) * w, (cy + y) * w, z * w, w]);
                let c2 = [r(), 0.5, x, y];
                col.push([c.map(f32::to_bits), c2.map(f32::to_bits)]);
            }
        }
        (pos, col)
    }

    /// With one sample, the per-sample path (taken because the stage says it reads the
    /// sample mask) gives the pixel path's bytes: colours, depth and stencil, over depth
    /// tests, stencil, blending, points and lines, a scissor, an odd size, 1 and 2 threads.
    #[test]
    fn one_sample_equals_the_pixel_path() {
        let (pos, col) = triangles(70, 5);
        let vs = VertexFn {
            varyings: 2,
            f: |i: &VertexBatch, o: &mut VertexOutputs| {
                for (v, &idx) in i.vertex_index.iter().enumerate() {
                    o.position[v] = pos[idx as usize];
                    o.point_size[v] = 1.0 + (idx % 5) as f32;
                    o.varyings[0][v] = col[idx as usize][0];
                    o.varyings[1][v] = col[idx as usize][1];
                }
                Ok(())
            },
        };
        let shade = |i: &QuadBatch, o: &mut QuadOutputs| {
            for l in 0..4 * i.quads {
                let v = i.varyings[0][l];
                let w = i.varyings[1][l].map(f32::from_bits);
                o.color[0][l] = v;
                let fc = i.frag_coord[l];
                o.color[1][l] = [fc[0], fc[1] + w[0], fc[2], fc[3]].map(f32::to_bits);
            }
            Ok(())
        };
        let modes = vec![Interpolation::Smooth, Interpolation::NoPerspective];
        let less = DepthStencilState {
            depth_test: true,
            depth_write: true,
            depth_compare: CompareOp::LessOrEqual,
            stencil_test: true,
            front: StencilOpState {
                pass_op: StencilOp::IncrementAndWrap,
                depth_fail_op: StencilOp::Invert,
                ..Default::default()
            },
            ..Default::default()
        };
        let blend = ColorBlendAttachment {
            blend_enable: true,
            src_color_factor: BlendFactor::SrcAlpha,
            dst_color_factor: BlendFactor::OneMinusSrcAlpha,
            ..Default::default()
        };
        for (topology, ds, blended, (w, h)) in [
            (Topology::TriangleList, None, false, (97, 61)),
            (
                Topology::TriangleList,
                Some(Format::D32_SFLOAT_S8_UINT),
                false,
                (130, 70),
            ),
            (
                Topology::TriangleList,
                Some(Format::D16_UNORM),
                true,
                (64, 64),
            ),
            (
                Topology::LineList,
                Some(Format::D24_UNORM_S8_UINT),
                false,
                (77, 50),
            ),
            (
                Topology::PointList,
                Some(Format::D32_SFLOAT),
                true,
                (80, 45),
            ),
        ] {
            let mut images = Vec::new();
            for (sampled, threads) in [(false, 1), (true, 1), (true, 2)] {
                let inner = FragmentFn {
                    interpolation: modes.clone(),
                    writes_depth: false,
                    can_discard: false,
                    f: shade,
                };
                let fs = Uses {
                    inner,
                    uses: SampleUse {
                        mask_in: sampled,
                        ..Default::default()
                    },
                };
                let mut rt = RenderTargets {
                    color: vec![
                        ColorTarget::new(Format::R8G8B8A8_UNORM, w, h),
                        ColorTarget::new(Format::R32G32B32A32_SFLOAT, w, h),
                    ],
                    depth_stencil: ds.map(|f| {
                        let mut d = DepthStencilTarget::new(f, w, h);
                        d.clear(0.7, 3);
                        d
                    }),
                };
                let state = PipelineState {
                    topology,
                    depth_stencil: if ds.is_some() {
                        less
                    } else {
                        Default::default()
                    },
                    blend_attachments: vec![if blended { blend } else { Default::default() }],
                    scissor: Some(Rect2D {
                        x: 2,
                        y: 3,
                        width: w - 4,
                        height: h - 5,
                    }),
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
                pass.draw(pos.len() as u32, 1, 0, 0).unwrap();
                drop(pass);
                images.push(rt);
            }
            let what = format!("{topology:?} {ds:?} blend {blended}");
            let drawn = images[0].color[0]
                .data
                .chunks(4)
                .filter(|t| t[3] != 0)
                .count();
            assert!(drawn > 50, "{what}: {drawn} pixels drawn");
            assert!(
                images[1] == images[0],
                "{what}: the per-sample path differs"
            );
            assert!(images[2] == images[0], "{what}: 2 threads differ");
        }
    }

    /// Whether the sample at sub-pixel point `p` is covered by triangle `t` (sub-pixel
    /// vertices), by the specification's rule: strictly inside, or on a top edge (horizontal,
    /// the triangle below it) or a left edge (not horizontal, the triangle to its right).
    fn covers(t: &[(i64, i64); 3], p: (i64, i64)) -> bool {
        let side = |a: (i64, i64), b: (i64, i64), q: (i64, i64)| {
            ((b.0 - a.0) * (q.1 - a.1) - (b.1 - a.1) * (q.0 - a.0)).signum()
        };
        for k in 0..3 {
            let (a, b, c) = (t[k], t[(k + 1) % 3], t[(k + 2) % 3]);
            let inner = side(a, b, c);
            let s = side(a, b, p);
            if s == -inner {
                return false;
            }
            if s == 0 {
                let top_or_left = if a.1 == b.1 {
                    side(a, b, (a.0, a.1 + 1)) == inner
                } else {
                    side(a, b, (a.0 + 1, a.1)) == inner
                };
                if !top_or_left {
                    return false;
                }
            }
        }
        true
    }

    /// Per-sample coverage at 2, 4, 8 and 16 samples against [`covers`] at the standard
    /// locations: triangles with vertices on the 1/256 grid (so the reference sees the very
    /// vertices the rasterizer snaps), some with edges through sample locations, each in its
    /// own flat colour id; the last triangle covering a sample owns it.
    #[test]
    fn coverage_follows_the_top_left_rule_at_every_sample() {
        let (w, h) = (48u32, 40u32);
        let mut r = fastrand::Rng::with_seed(11);
        let mut tris: Vec<[(i64, i64); 3]> = Vec::new();
        for t in 0..60 {
            // some vertices on sixteenths (edges through sample locations), the rest anywhere
            let grid = if t % 3 == 0 { 16 } else { 1 };
            let v =
                |r: &mut fastrand::Rng, n: u32| (r.f32() * (n * 256) as f32) as i64 / grid * grid;
            let (cx, cy) = (v(&mut r, w), v(&mut r, h));
            let mut tri = [(0, 0); 3];
            for p in &mut tri {
                let (dx, dy) = (v(&mut r, 12) - 1536, v(&mut r, 12) - 1536);
                *p = (cx + dx, cy + dy);
            }
            if t % 3 == 0 {
                // a right triangle: a horizontal and a vertical edge on sample rows/columns
                tri[1].1 = tri[0].1;
                tri[2].0 = tri[0].0;
            }
            tris.push(tri);
        }
        // window x = 24 (nx + 1) for width 48: nx = x / (24 * 256) - 1, exact in f32
        let clip = |p: (i64, i64)| {
            [
                p.0 as f32 / (w as f32 * 128.0) - 1.0,
                p.1 as f32 / (h as f32 * 128.0) - 1.0,
                0.5,
                1.0,
            ]
        };
        let vs = VertexFn {
            varyings: 1,
            f: |i: &VertexBatch, o: &mut VertexOutputs| {
                for (v, &idx) in i.vertex_index.iter().enumerate() {
                    o.position[v] = clip(tris[idx as usize / 3][idx as usize % 3]);
                    o.varyings[0][v] = [idx / 3 + 1, 0, 0, 0];
                }
                Ok(())
            },
        };
        let fs = FragmentFn {
            interpolation: vec![Interpolation::Flat],
            writes_depth: false,
            can_discard: false,
            f: |i: &QuadBatch, o: &mut QuadOutputs| {
                o.color[0].copy_from_slice(&i.varyings[0]);
                Ok(())
            },
        };
        for samples in [2, 4, 8, 16] {
            let state = PipelineState {
                samples,
                ..Default::default()
            };
            let pipeline = Pipeline {
                state,
                vertex: &vs,
                fragment: &fs,
                stages: Default::default(),
            };
            let mut rt = RenderTargets {
                color: vec![ColorTarget::multisampled(Format::R32_UINT, w, h, samples)],
                depth_stencil: None,
            };
            let raster = Rasterizer::new(2).unwrap();
            let mut pass = raster.begin(&mut rt);
            pass.bind_pipeline(&pipeline);
            pass.draw(3 * tris.len() as u32, 1, 0, 0).unwrap();
            drop(pass);
            let c = &rt.color[0];
            let (mut covered, mut edges) = (0, 0);
            for y in 0..h {
                for x in 0..w {
                    for s in 0..samples {
                        let [lx, ly] =
                            crate::stage::sample_locations::locations(samples)[s as usize];
                        let p = (
                            x as i64 * 256 + lx as i64 * 16,
                            y as i64 * 256 + ly as i64 * 16,
                        );
                        let want = tris.iter().rposition(|t| covers(t, p)).map_or(0, |t| t + 1);
                        let got = c.read_sample_raw(x, y, s)[0];
                        assert_eq!(got, want as u32, "{samples} samples: ({x}, {y}) sample {s}");
                        covered += (want != 0) as u32;
                        let on_edge = tris.iter().any(|t| {
                            (0..3).any(|k| {
                                let (a, b) = (t[k], t[(k + 1) % 3]);
                                (b.0 - a.0) * (p.1 - a.1) == (b.1 - a.1) * (p.0 - a.0)
                            })
                        });
                        edges += on_edge as u32;
                    }
                }
            }
            assert!(covered > w * h * samples / 8, "{samples}: {covered}");
            assert!(edges > 20, "{samples}: {edges} samples on an edge's line");
        }
    }

    #[test]
    fn resolve_averages_float_samples_and_takes_sample_zero_of_integers() {
        let mut c = ColorTarget::multisampled(Format::R8G8B8A8_UNORM, 2, 1, 4);
        // pixel 0: two red samples, two black; pixel 1: 0, 1, 2, 255 in red
        c.data[..16].copy_from_slice(&[255, 0, 0, 255, 255, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255]);
        c.data[16..].copy_from_slice(&[0, 9, 9, 9, 1, 9, 9, 9, 2, 9, 9, 9, 255, 9, 9, 9]);
        let r = c.resolve();
        assert_eq!((r.samples, r.data.len()), (1, 8));
        // (1 + 1 + 0 + 0) / 4 = 0.5 -> 127.5 rounds to 128; (0 + 1 + 2 + 255) / 255 / 4 =
        // 0.25294 -> 64.5 rounds to 65 (the f32 sum of k/255 lands just above); 9 stays 9
        assert_eq!(r.data, [128, 0, 0, 255, 65, 9, 9, 9]);
        let mut u = ColorTarget::multisampled(Format::R32_UINT, 1, 1, 2);
        u.data.copy_from_slice(&[7, 0, 0, 0, 9, 0, 0, 0]);
        assert_eq!(u.resolve().data, [7, 0, 0, 0]);
    }

    /// A fullscreen pair of triangles at `samples` samples through `fs` into an RGBA32F
    /// attachment (and a D32 one, cleared to `clear`, tested LESS when `depth`), with
    /// window depth `x / 32` (so the depth of a sample is exact).
    fn fullscreen(
        samples: u32,
        fs: &dyn FragmentStage,
        state: PipelineState,
        clear: Option<f32>,
    ) -> RenderTargets {
        let (w, h) = (16, 8);
        let vs = VertexFn {
            varyings: 0,
            f: |i: &VertexBatch, o: &mut VertexOutputs| {
                for (v, &idx) in i.vertex_index.iter().enumerate() {
                    o.position[v] = [
                        [-1.0, -1.0, 0.0, 1.0],
                        [3.0, -1.0, 1.0, 1.0],
                        [-1.0, 3.0, 0.0, 1.0],
                    ][idx as usize % 3];
                }
                Ok(())
            },
        };
        let pipeline = Pipeline {
            state: PipelineState {
                samples,
                depth_stencil: DepthStencilState {
                    depth_test: clear.is_some(),
                    depth_write: true,
                    depth_compare: CompareOp::Less,
                    ..Default::default()
                },
                ..state
            },
            vertex: &vs,
            fragment: fs,
            stages: Default::default(),
        };
        let mut rt = RenderTargets {
            color: vec![ColorTarget::multisampled(
                Format::R32G32B32A32_SFLOAT,
                w,
                h,
                samples,
            )],
            depth_stencil: clear.map(|d| {
                let mut t = DepthStencilTarget::multisampled(Format::D32_SFLOAT, w, h, samples);
                t.clear(d, 0);
                t
            }),
        };
        let raster = Rasterizer::new(2).unwrap();
        let mut pass = raster.begin(&mut rt);
        pass.bind_pipeline(&pipeline);
        pass.draw(3, 1, 0, 0).unwrap();
        drop(pass);
        rt
    }

    /// Sample shading: every covered sample runs once, at its location (`FragCoord`), with
    /// its index and only its bit in the input mask.
    #[test]
    fn sample_shading_runs_once_per_sample_at_its_location() {
        let fs = Uses {
            inner: FragmentFn {
                interpolation: vec![],
                writes_depth: false,
                can_discard: false,
                f: |i: &QuadBatch, o: &mut QuadOutputs| {
                    for l in 0..4 * i.quads {
                        let fc = i.frag_coord[l];
                        let id = i.sample_id[l] as f32;
                        o.color[0][l] =
                            [id, fc[0], fc[1], i.sample_mask[l] as f32].map(f32::to_bits);
                    }
                    Ok(())
                },
            },
            uses: SampleUse {
                per_sample: true,
                ..Default::default()
            },
        };
        for samples in [2, 4, 8, 16] {
            let rt = fullscreen(samples, &fs, PipelineState::default(), None);
            let c = &rt.color[0];
            for (y, x, s) in
                (0..8).flat_map(|y| (0..16).flat_map(move |x| (0..samples).map(move |s| (y, x, s))))
            {
                let [lx, ly] = crate::stage::sample_locations::location(samples, s);
                let want = [s as f32, x as f32 + lx, y as f32 + ly, (1u32 << s) as f32];
                assert_eq!(
                    c.read_sample_raw(x, y, s),
                    want.map(f32::to_bits),
                    "{samples}: ({x}, {y}) {s}"
                );
            }
        }
        // the pipeline's minSampleShading asks for it too; without it, one invocation covers
        // every sample at the centre
        let plain = Uses {
            inner: FragmentFn { ..fs.inner },
            uses: SampleUse {
                mask_in: true,
                ..Default::default()
            },
        };
        let st = |m| PipelineState {
            sample_shading: Some(m),
            ..Default::default()
        };
        let per = fullscreen(4, &plain, st(0.5), None);
        assert_eq!(
            per.color[0].read_sample_raw(3, 2, 1)[..2],
            [1.0f32.to_bits(), 3.875f32.to_bits()]
        );
        let once = fullscreen(4, &plain, st(0.25), None);
        let v = [0.0, 3.5, 2.5, 15.0].map(f32::to_bits);
        assert!((0..4).all(|s| once.color[0].read_sample_raw(3, 2, s) == v));
    }

    /// The `SampleMask` output and alpha-to-coverage keep only some samples, and alpha to
    /// one replaces the written alpha.
    #[test]
    fn sample_mask_output_and_alpha_to_coverage_drop_samples() {
        let fs = |mask: u32| Uses {
            inner: FragmentFn {
                interpolation: vec![],
                writes_depth: false,
                can_discard: false,
                f: move |i: &QuadBatch, o: &mut QuadOutputs| {
                    for l in 0..4 * i.quads {
                        o.color[0][l] = [1.0, 0.25, 0.5, 0.5].map(f32::to_bits);
                        o.sample_mask[l] = mask;
                    }
                    Ok(())
                },
            },
            uses: SampleUse {
                mask_out: true,
                ..Default::default()
            },
        };
        let written = |rt: &RenderTargets| -> Vec<u32> {
            (0..4)
                .filter(|&s| rt.color[0].read_sample_raw(5, 5, s)[0] != 0)
                .collect()
        };
        let rt = fullscreen(4, &fs(0b0101), PipelineState::default(), None);
        assert_eq!(written(&rt), [0, 2]);
        // alpha 0.5 keeps samples whose s / 4 is below it: 0 and 1
        let a2c = PipelineState {
            alpha_to_coverage: true,
            ..Default::default()
        };
        let rt = fullscreen(4, &fs(!0), a2c.clone(), None);
        assert_eq!(written(&rt), [0, 1]);
        assert_eq!(rt.color[0].read_sample_raw(5, 5, 0)[3], 0.5f32.to_bits());
        let rt = fullscreen(
            4,
            &fs(0b1110),
            PipelineState {
                alpha_to_one: true,
                ..a2c
            },
            None,
        );
        assert_eq!(written(&rt), [1]);
        assert_eq!(rt.color[0].read_sample_raw(5, 5, 1)[3], 1.0f32.to_bits());
        // the pipeline's sample mask
        let rt = fullscreen(
            4,
            &fs(!0),
            PipelineState {
                sample_mask: 0b1000,
                ..Default::default()
            },
            None,
        );
        assert_eq!(written(&rt), [3]);
    }

    /// Depth is interpolated, tested and written per sample: with window depth `x / 32` and
    /// the attachment cleared to `7.5 / 32`, LESS passes exactly the samples left of x = 7.5,
    /// half of pixel 7's; early (pixel-rate shading) and late (the stage writes the mask).
    #[test]
    fn depth_is_tested_per_sample() {
        for late in [false, true] {
            let fs = Uses {
                inner: FragmentFn {
                    interpolation: vec![],
                    writes_depth: false,
                    can_discard: false,
                    f: |i: &QuadBatch, o: &mut QuadOutputs| {
                        for l in 0..4 * i.quads {
                            o.color[0][l] = [1.0; 4].map(f32::to_bits);
                        }
                        Ok(())
                    },
                },
                uses: SampleUse {
                    mask_out: late,
                    ..Default::default()
                },
            };
            for samples in [1, 4, 8] {
                let rt = fullscreen(samples, &fs, PipelineState::default(), Some(7.5 / 32.0));
                let ds = rt.depth_stencil.as_ref().unwrap();
                for x in 0..16 {
                    for s in 0..samples {
                        let sx = x as f32 + crate::stage::sample_locations::location(samples, s)[0];
                        let pass = sx < 7.5;
                        let what = format!("late {late}, {samples} samples, x {x} sample {s}");
                        let c = rt.color[0].read_sample_raw(x, 3, s)[0];
                        assert_eq!(c != 0, pass, "{what}");
                        let want = if pass { sx / 32.0 } else { 7.5 / 32.0 };
                        assert_eq!(ds.read_sample_depth(x, 3, s), want, "{what}");
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod cover_tests {
    use super::*;
    use crate::stage::sample_locations::locations;

    const ONE: i64 = 1 << crate::raster::setup::SUBPIXEL_BITS;

    /// An edge from `a` to `b` (sub-pixel units), written from its definition: the value at a
    /// sub-pixel point p is `dx (p.y - a.y) - dy (p.x - a.x)`, less one unless the edge is a
    /// top or left one.
    #[derive(Clone, Copy)]
    struct RefEdge {
        a: (i64, i64),
        b: (i64, i64),
    }

    impl RefEdge {
        fn value(&self, x: i64, y: i64) -> i64 {
            let (dx, dy) = (self.b.0 - self.a.0, self.b.1 - self.a.1);
            let top_left = dy < 0 || (dy == 0 && dx > 0);
            dx * (y - self.a.1) - dy * (x - self.a.0) - if top_left { 0 } else { 1 }
        }

        /// The rasterizer's form: the value at pixel (0, 0)'s centre and the steps per pixel.
        fn edge(&self) -> Edge {
            let (dx, dy) = (self.b.0 - self.a.0, self.b.1 - self.a.1);
            Edge {
                e0: self.value(ONE / 2, ONE / 2),
                ex: -dy * ONE,
                ey: dx * ONE,
            }
        }
    }

    /// The samples of pixel (px, py) inside every edge, each evaluated at the sample's own
    /// sub-pixel point.
    fn naive(edges: &[RefEdge], px: i32, py: i32, n: usize, all: u32) -> u32 {
        let mut m = 0;
        for (s, loc) in locations(n as u32).iter().enumerate() {
            let x = px as i64 * ONE + loc[0] as i64 * ONE / 16;
            let y = py as i64 * ONE + loc[1] as i64 * ONE / 16;
            if edges.iter().all(|e| e.value(x, y) >= 0) {
                m |= 1 << s;
            }
        }
        m & all
    }

    /// Random convex shapes: triangles (three edges, or four with a zero one) and triangles
    /// cut by a fourth half-plane, some with vertices on the sample grid (sixteenths) so that
    /// samples fall exactly on edges.
    fn shapes(seed: u64) -> Vec<Vec<RefEdge>> {
        let mut rng = fastrand::Rng::with_seed(seed);
        let mut out = Vec::new();
        for i in 0..60 {
            let grid = if i % 2 == 0 { ONE / 16 } else { 1 };
            let mut p = || {
                let v = |rng: &mut fastrand::Rng| rng.i64(-8 * ONE..40 * ONE) / grid * grid;
                (v(&mut rng), v(&mut rng))
            };
            let (a, mut b, mut c) = (p(), p(), p());
            let thin = i % 3 == 0;
            if thin {
                // a sliver: c near the line a-b
                c = ((a.0 + b.0) / 2 + ONE / 4, (a.1 + b.1) / 2);
            }
            let e0 = RefEdge { a, b };
            let centroid = ((a.0 + b.0 + c.0) / 3, (a.1 + b.1 + c.1) / 3);
            if e0.value(centroid.0, centroid.1) < 0 {
                std::mem::swap(&mut b, &mut c);
            }
            let mut edges = vec![
                RefEdge { a, b },
                RefEdge { a: b, b: c },
                RefEdge { a: c, b: a },
            ];
            if i % 4 == 1 {
                let (d, e) = (p(), p());
                edges.push(RefEdge { a: d, b: e });
            }
            out.push(edges);
        }
        out
    }

    /// `Cover::quad` and `Cover::classify_row` against the naive per-sample evaluation, for
    /// every standard sample count, a full and a partial sample mask, three and four edges.
    fn check<const E: usize>(edges: &[RefEdge]) {
        let ee: Vec<Edge> = edges.iter().map(RefEdge::edge).collect();
        for n in [1usize, 2, 4, 8, 16] {
            for all in [sample_bits(n), sample_bits(n) & 0b1010_0110_1101] {
                let cover = Cover::<E>::new(&ee, locations(n as u32), n, all);
                // quads, with every pixel and with some left out
                for qy in (-16..56).step_by(2) {
                    for qx in (-16..56).step_by(2) {
                        for inside in [0b1111u8, 0b0110, 0b1001] {
                            let want: [u32; 4] = std::array::from_fn(|k| {
                                let (px, py) = (qx + (k & 1) as i32, qy + (k >> 1) as i32);
                                match inside >> k & 1 {
                                    0 => 0,
                                    _ => naive(edges, px, py, n, all),
                                }
                            });
                            assert_eq!(cover.quad(qx, qy, inside), want, "quad ({qx}, {qy})");
                        }
                    }
                }
                // rows of blocks
                let bx0 = -16;
                let mut class = vec![Block::Partial; 9];
                for by in (-16..56).step_by(BLOCK as usize) {
                    let span = cover.classify_row(bx0, by, &mut class);
                    for (i, &c) in class.iter().enumerate() {
                        let bx = bx0 + i as i32 * BLOCK;
                        let masks = (0..BLOCK * BLOCK)
                            .map(|p| naive(edges, bx + p % BLOCK, by + p / BLOCK, n, all));
                        match c {
                            Block::Outside => assert!(masks.clone().all(|m| m == 0)),
                            Block::Inside => assert!(masks.clone().all(|m| m == all)),
                            Block::Partial => {}
                        }
                        if !span.contains(&i) {
                            assert_eq!(c, Block::Outside, "block {i} outside the span");
                        }
                    }
                    if !span.is_empty() {
                        assert_ne!(class[span.start], Block::Outside);
                        assert_ne!(class[span.end - 1], Block::Outside);
                    }
                }
            }
        }
    }

    /// Coverage per sample from the fixed-point edges plus exact offsets, and the block
    /// classification, agree with the edges evaluated at each sample's own point.
    #[test]
    fn cover_is_the_edges_at_each_sample() {
        for edges in shapes(11) {
            if edges.len() == 3 {
                check::<3>(&edges);
            }
            check::<4>(&edges);
        }
    }
}
