//! Binning into 64x64 tiles and shading the tiles in parallel.
//!
//! Each tile copies its pixels out of the attachments, walks its bin (primitive indices in
//! submission order) 2x2 quad by quad, runs the fragment stage on batches of quads of one
//! primitive, applies the per-fragment operations to its private copy, and hands the copy back.
//! The copies are written back in tile order after all tiles finished, so the attachments are
//! byte-identical at any thread count (tiles own disjoint pixels; every per-pixel value is a
//! pure function of the primitive and the pixel).

use rayon::prelude::*;
use rayon::ThreadPool;

use super::output::{depth_stencil, tests_enabled, write_color, DepthStencilBuf};
use super::setup::{PixRect, Plane, RasterPrim};
use super::stage::{FragmentStage, Interpolation, QuadBatch, QuadOutputs, QUAD_BATCH};
use super::state::ColorBlendAttachment;
use super::state::PipelineState;
use super::target::{ColorCodec, ColorFormat};
use super::RenderTargets;
use crate::{Error, Result};

/// Tile side in pixels.
pub(crate) const TILE: i32 = 64;

/// Everything the tiles read.
pub(crate) struct Scene<'a> {
    pub prims: &'a [RasterPrim],
    /// Shaded varyings, `varyings[slot * n_vary + location]`.
    pub varyings: &'a [[u32; 4]],
    pub n_vary: usize,
    pub state: &'a PipelineState,
    pub fs: &'a dyn FragmentStage,
    /// Depth clamp range, when depth clamp is on.
    pub depth_clamp: Option<(f32, f32)>,
}

/// A tile's private copy of the attachments.
struct TileData {
    rect: PixRect,
    colors: Vec<Vec<u8>>,
    depth: Vec<u8>,
    stencil: Vec<u8>,
}

fn copy_rect(src: &[u8], src_w: usize, bpp: usize, r: &PixRect) -> Vec<u8> {
    let tw = (r.x1 - r.x0 + 1) as usize;
    let mut out = Vec::with_capacity(tw * (r.y1 - r.y0 + 1) as usize * bpp);
    for y in r.y0..=r.y1 {
        let o = (y as usize * src_w + r.x0 as usize) * bpp;
        out.extend_from_slice(&src[o..o + tw * bpp]);
    }
    out
}

fn paste_rect(dst: &mut [u8], dst_w: usize, bpp: usize, r: &PixRect, src: &[u8]) {
    let tw = (r.x1 - r.x0 + 1) as usize;
    for (row, y) in (r.y0..=r.y1).enumerate() {
        let o = (y as usize * dst_w + r.x0 as usize) * bpp;
        dst[o..o + tw * bpp].copy_from_slice(&src[row * tw * bpp..(row + 1) * tw * bpp]);
    }
}

impl TileData {
    fn load(t: &RenderTargets, rect: PixRect) -> TileData {
        let colors = t
            .color
            .iter()
            .map(|c| copy_rect(&c.data, c.width as usize, c.format.bytes_per_texel(), &rect))
            .collect();
        let (depth, stencil) = match &t.depth_stencil {
            Some(d) => (
                copy_rect(&d.depth, d.width as usize, d.format.depth_bytes(), &rect),
                if d.stencil.is_empty() {
                    Vec::new()
                } else {
                    copy_rect(&d.stencil, d.width as usize, 1, &rect)
                },
            ),
            None => (Vec::new(), Vec::new()),
        };
        TileData {
            rect,
            colors,
            depth,
            stencil,
        }
    }

    fn store(&self, t: &mut RenderTargets) {
        for (c, data) in t.color.iter_mut().zip(&self.colors) {
            let bpp = c.format.bytes_per_texel();
            paste_rect(&mut c.data, c.width as usize, bpp, &self.rect, data);
        }
        if let Some(d) = &mut t.depth_stencil {
            let db = d.format.depth_bytes();
            paste_rect(&mut d.depth, d.width as usize, db, &self.rect, &self.depth);
            if !d.stencil.is_empty() {
                paste_rect(
                    &mut d.stencil,
                    d.width as usize,
                    1,
                    &self.rect,
                    &self.stencil,
                );
            }
        }
    }
}

/// Bin the primitives, shade every tile that has any, write the tiles back.
pub(crate) fn render(pool: &ThreadPool, scene: &Scene, targets: &mut RenderTargets) -> Result<()> {
    let (w, h) = targets.size()?;
    let (tiles_x, tiles_y) = ((w as i32 + TILE - 1) / TILE, (h as i32 + TILE - 1) / TILE);
    let mut bins: Vec<Vec<u32>> = vec![Vec::new(); (tiles_x * tiles_y) as usize];
    for (i, p) in scene.prims.iter().enumerate() {
        for ty in p.bbox.y0 / TILE..=p.bbox.y1 / TILE {
            for tx in p.bbox.x0 / TILE..=p.bbox.x1 / TILE {
                bins[(ty * tiles_x + tx) as usize].push(i as u32);
            }
        }
    }
    let work: Vec<usize> = (0..bins.len()).filter(|&t| !bins[t].is_empty()).collect();
    let shared: &RenderTargets = targets;
    let results: Vec<Result<TileData>> = pool.install(|| {
        work.par_iter()
            .map(|&t| {
                let (tx, ty) = (t as i32 % tiles_x, t as i32 / tiles_x);
                let rect = PixRect {
                    x0: tx * TILE,
                    y0: ty * TILE,
                    x1: (tx * TILE + TILE - 1).min(w as i32 - 1),
                    y1: (ty * TILE + TILE - 1).min(h as i32 - 1),
                };
                let mut data = TileData::load(shared, rect);
                TileShader::new(scene, shared).shade(&bins[t], &mut data)?;
                Ok(data)
            })
            .collect()
    });
    let tiles = results.into_iter().collect::<Result<Vec<_>>>()?;
    for t in &tiles {
        t.store(targets);
    }
    Ok(())
}

/// A 2x2 quad waiting for the fragment stage.
#[derive(Clone, Copy, Debug)]
struct Quad {
    /// Framebuffer position of lane 0 (even x and y).
    x: i32,
    y: i32,
    /// Covered lanes (bit k = lane k).
    mask: u8,
    /// Index of the primitive in `Scene::prims`.
    prim: u32,
}

/// Per-tile shading state (reused batch buffers).
///
/// A batch may hold quads of several consecutive primitives as long as no two of its quads
/// cover the same quad position: then the order in which the batch's fragments are tested and
/// written does not matter, and the result equals submission order.
struct TileShader<'a> {
    scene: &'a Scene<'a>,
    targets: &'a RenderTargets,
    early: bool,
    tests: bool,
    input: QuadBatch,
    output: QuadOutputs,
    quads: Vec<Quad>,
    /// Quad positions used by the current batch: bit x of row y (tile-local quad units).
    occupied: [u32; (TILE / 2) as usize],
    z: Vec<f32>,
    xy: Vec<(f64, f64)>,
    /// Per colour attachment: format, blend state, bytes per texel.
    atts: Vec<(ColorFormat, ColorBlendAttachment, usize)>,
}

impl<'a> TileShader<'a> {
    fn new(scene: &'a Scene<'a>, targets: &'a RenderTargets) -> Self {
        let fs = scene.fs;
        TileShader {
            scene,
            targets,
            early: !fs.writes_depth() && !fs.can_discard(),
            tests: tests_enabled(
                &scene.state.depth_stencil,
                targets.depth_stencil.as_ref().map(|d| d.format),
            ),
            input: QuadBatch::default(),
            output: QuadOutputs::default(),
            quads: Vec::with_capacity(QUAD_BATCH),
            occupied: [0; (TILE / 2) as usize],
            z: Vec::new(),
            xy: Vec::new(),
            atts: targets
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
                .collect(),
        }
    }

    fn shade(&mut self, bin: &[u32], data: &mut TileData) -> Result<()> {
        let rect = data.rect;
        for &pi in bin {
            let p = &self.scene.prims[pi as usize];
            let Some(r) = p.bbox.intersect(&rect) else {
                continue;
            };
            let b = p.bbox;
            let mut qy = r.y0 & !1;
            while qy <= r.y1 {
                let mut qx = r.x0 & !1;
                while qx <= r.x1 {
                    let mut mask = 0u8;
                    for k in 0..4 {
                        let (px, py) = (qx + (k & 1), qy + (k >> 1));
                        if px >= b.x0
                            && px <= b.x1
                            && py >= b.y0
                            && py <= b.y1
                            && p.inside(px as i64, py as i64)
                        {
                            mask |= 1 << k;
                        }
                    }
                    if mask != 0 {
                        let (ox, oy) = (((qx - rect.x0) / 2) as u32, ((qy - rect.y0) / 2) as usize);
                        if self.occupied[oy] & (1 << ox) != 0 {
                            self.flush(data)?;
                        }
                        self.occupied[oy] |= 1 << ox;
                        self.quads.push(Quad {
                            x: qx,
                            y: qy,
                            mask,
                            prim: pi,
                        });
                        if self.quads.len() == QUAD_BATCH {
                            self.flush(data)?;
                        }
                    }
                    qx += 2;
                }
                qy += 2;
            }
        }
        if !self.quads.is_empty() {
            self.flush(data)?;
        }
        Ok(())
    }

    fn lane_z(&self, p: &RasterPrim, x: f64, y: f64) -> f32 {
        let z = (p.z.at(x, y) + p.z_offset) as f32;
        match self.scene.depth_clamp {
            Some((lo, hi)) => z.clamp(lo, hi),
            None => z,
        }
    }

    fn ds_buf<'b>(targets: &RenderTargets, data: &'b mut TileData) -> Option<DepthStencilBuf<'b>> {
        targets.depth_stencil.as_ref().map(|d| DepthStencilBuf {
            format: d.format,
            depth: &mut data.depth,
            stencil: &mut data.stencil,
        })
    }

    fn flush(&mut self, data: &mut TileData) -> Result<()> {
        self.occupied = [0; (TILE / 2) as usize];
        let scene = self.scene;
        let state = scene.state;
        let tw = (data.rect.x1 - data.rect.x0 + 1) as usize;
        let (rx, ry) = (data.rect.x0, data.rect.y0);
        let index = |px: i32, py: i32| (py - ry) as usize * tw + (px - rx) as usize;
        let front = |q: &Quad| scene.prims[q.prim as usize].info.front;

        // Depth per lane, then the early tests.
        self.z.clear();
        for q in &self.quads {
            let p = &scene.prims[q.prim as usize];
            for k in 0..4 {
                let (x, y) = ((q.x + (k & 1)) as f64 + 0.5, (q.y + (k >> 1)) as f64 + 0.5);
                let z = self.lane_z(p, x, y);
                self.z.push(z);
            }
        }
        if self.early && self.tests {
            let mut ds = Self::ds_buf(self.targets, data).expect("tests imply an attachment");
            for (qi, q) in self.quads.iter_mut().enumerate() {
                let f = front(q);
                for k in 0..4 {
                    if q.mask & (1 << k) != 0 {
                        let i = index(q.x + (k & 1), q.y + (k >> 1));
                        let z = self.z[qi * 4 + k as usize];
                        if !depth_stencil(&state.depth_stencil, &mut ds, i, z, f) {
                            q.mask &= !(1 << k);
                        }
                    }
                }
            }
            let mut qi = 0;
            let z = &mut self.z;
            self.quads.retain(|q| {
                let keep = q.mask != 0;
                if !keep {
                    z.drain(qi * 4..qi * 4 + 4);
                } else {
                    qi += 1;
                }
                keep
            });
            if self.quads.is_empty() {
                return Ok(());
            }
        }

        self.build_input();
        let lanes = self.quads.len() * 4;
        let n_att = self.targets.color.len();
        let out = &mut self.output;
        out.color.resize(n_att, Vec::new());
        for c in &mut out.color {
            c.clear();
            c.resize(lanes, [0; 4]);
        }
        out.color1.clear();
        out.color1.resize(lanes, [0; 4]);
        out.depth.clear();
        out.depth.extend_from_slice(&self.z);
        out.killed.clear();
        out.killed.resize(self.quads.len(), 0);
        scene.fs.run(&self.input, out)?;
        let bad = out.color.len() != n_att
            || out.color.iter().any(|c| c.len() != lanes)
            || out.color1.len() != lanes
            || out.depth.len() != lanes
            || out.killed.len() != self.quads.len();
        if bad {
            return Err(Error::Exec(format!(
                "raster/tile.rs: the fragment stage resized its outputs (expected {n_att} \
                 attachments x {lanes} lanes, {} quads)",
                self.quads.len()
            )));
        }

        let discard = scene.fs.can_discard();
        let writes_depth = scene.fs.writes_depth();
        for (qi, q) in self.quads.iter().enumerate() {
            let mut live = q.mask;
            if discard {
                live &= !self.output.killed[qi];
            }
            for k in 0..4 {
                if live & (1 << k) == 0 {
                    continue;
                }
                let lane = qi * 4 + k as usize;
                let i = index(q.x + (k & 1), q.y + (k >> 1));
                if !self.early && self.tests {
                    let z = if writes_depth {
                        let z = self.output.depth[lane];
                        match scene.depth_clamp {
                            Some((lo, hi)) => z.clamp(lo, hi),
                            None => z,
                        }
                    } else {
                        self.z[lane]
                    };
                    let mut ds =
                        Self::ds_buf(self.targets, data).expect("tests imply an attachment");
                    if !depth_stencil(&state.depth_stencil, &mut ds, i, z, front(q)) {
                        continue;
                    }
                }
                for (a, &(format, att, bpp)) in self.atts.iter().enumerate() {
                    let src1 = if a == 0 {
                        self.output.color1[lane]
                    } else {
                        [0; 4]
                    };
                    write_color(
                        format,
                        &att,
                        state.blend_constants,
                        self.output.color[a][lane],
                        src1,
                        &mut data.colors[a][i * bpp..(i + 1) * bpp],
                    );
                }
            }
        }
        self.quads.clear();
        Ok(())
    }

    /// Fill `self.input` for the current quads.
    fn build_input(&mut self) {
        let scene = self.scene;
        let modes = scene.fs.interpolation();
        let inp = &mut self.input;
        inp.quads = self.quads.len();
        inp.frag_coord.clear();
        inp.point_coord.clear();
        inp.coverage.clear();
        inp.front_facing.clear();
        inp.primitive_id.clear();
        inp.varyings.resize(modes.len(), Vec::new());
        inp.varyings.iter_mut().for_each(Vec::clear);
        self.xy.clear();
        for (qi, q) in self.quads.iter().enumerate() {
            let p = &scene.prims[q.prim as usize];
            inp.coverage.push(q.mask);
            for k in 0..4 {
                let (x, y) = ((q.x + (k & 1)) as f64 + 0.5, (q.y + (k >> 1)) as f64 + 0.5);
                self.xy.push((x, y));
                let inv_w = p.inv_w.at(x, y);
                inp.frag_coord.push([
                    x as f32,
                    y as f32,
                    self.z[qi * 4 + k as usize],
                    inv_w as f32,
                ]);
                inp.point_coord.push(match p.point {
                    Some((l, t, s)) => [((x - l) / s) as f32, ((y - t) / s) as f32],
                    None => [0.0, 0.0],
                });
                inp.front_facing.push(p.info.front);
                inp.primitive_id.push(p.info.primitive_id);
            }
        }
        // Smooth: sum_k v_k (b_k / w) / sum_k (b_k / w), with b the clip-space weights of the
        // original vertices. Noperspective: the same with every term scaled by the original
        // vertex's w, which turns the weights into window-space ones. Both are ratios of
        // planes, so the per-primitive work is combining planes and the per-lane work is two
        // plane evaluations and a division.
        let mut start = 0;
        while start < self.quads.len() {
            let prim = self.quads[start].prim;
            let end = start
                + self.quads[start..]
                    .iter()
                    .take_while(|q| q.prim == prim)
                    .count();
            let p = &scene.prims[prim as usize];
            let lanes = &self.xy[start * 4..end * 4];
            let n = p.info.n_verts as usize;
            let bw = &p.bw[..n];
            let ones = [1.0; 3];
            let w = p.info.orig_w;
            let slots = p.info.slots;
            for (loc, mode) in modes.iter().enumerate() {
                let out = &mut inp.varyings[loc];
                if loc >= scene.n_vary {
                    out.extend(std::iter::repeat_n([0; 4], lanes.len()));
                    continue;
                }
                let var = |j: usize| scene.varyings[slots[j] as usize * scene.n_vary + loc];
                let scale = match mode {
                    Interpolation::Flat => {
                        out.extend(std::iter::repeat_n(var(0), lanes.len()));
                        continue;
                    }
                    Interpolation::Smooth => &ones,
                    Interpolation::NoPerspective => &w,
                };
                let den = Plane::combine(bw, |j| scale[j]);
                let num: [Plane; 4] = std::array::from_fn(|c| {
                    Plane::combine(bw, |j| scale[j] * f32::from_bits(var(j)[c]) as f64)
                });
                for &(x, y) in lanes {
                    let d = den.at(x, y);
                    let d = if d == 0.0 { 1.0 } else { d };
                    out.push(num.map(|pl| ((pl.at(x, y) / d) as f32).to_bits()));
                }
            }
            start = end;
        }
    }
}
