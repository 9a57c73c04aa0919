//! The geometry half of a draw: vertex fetch and shading in batches, primitive assembly,
//! clipping, perspective divide, viewport transform, facing and culling, setup.

use rayon::prelude::*;
use rayon::ThreadPool;

use super::assemble::{assemble, Assembled, Stream};
use super::clip::{self, ClipVert, PlaneSet, GUARD_BAND};
use super::fetch::{fetch, VertexBuffer};
use super::setup::{self, area2, snap, PrimInfo, RasterPrim, SetupCtx, WinVert};
use super::stage::{VertexBatch, VertexOutputs, VertexStage, VERTEX_BATCH};
use super::state::{CullMode, FrontFace, PipelineState, PolygonMode, Topology, Viewport};
use crate::{Error, Result};

/// Shaded vertices of a whole draw (all instances), indexed by slot.
pub(crate) struct Shaded {
    pub position: Vec<[f32; 4]>,
    pub point_size: Vec<f32>,
    /// `varyings[slot * n_vary + location]`.
    pub varyings: Vec<[u32; 4]>,
    pub n_vary: usize,
}

/// Fetch and shade `stream` for every instance; slot = instance * stream length + position.
pub(crate) fn shade_vertices(
    pool: &ThreadPool,
    state: &PipelineState,
    vs: &dyn VertexStage,
    buffers: &[VertexBuffer],
    stream: &Stream,
    instances: (u32, u32),
) -> Result<Shaded> {
    let n = stream.vertex_index.len();
    let total = n * instances.1 as usize;
    let n_vary = vs.varying_count();
    let batches: Vec<usize> = (0..total).step_by(VERTEX_BATCH).collect();
    let outs: Vec<Result<VertexOutputs>> = pool.install(|| {
        batches
            .par_iter()
            .map(|&start| {
                let end = (start + VERTEX_BATCH).min(total);
                let mut input = VertexBatch::default();
                // grown once, not by doubling (~2.7 M instructions of reallocation for
                // 30 000 vertices)
                input.vertex_index.reserve_exact(end - start);
                input.instance_index.reserve_exact(end - start);
                for s in start..end {
                    // (no division in the first instance)
                    let (inst, k) = if s < n { (0, s) } else { (s / n, s % n) };
                    input.vertex_index.push(stream.vertex_index[k]);
                    input
                        .instance_index
                        .push(instances.0.wrapping_add(inst as u32));
                }
                input.attributes =
                    fetch(state, buffers, &input.vertex_index, &input.instance_index)?;
                let len = end - start;
                let mut out = VertexOutputs {
                    position: vec![[0.0; 4]; len],
                    point_size: vec![1.0; len],
                    varyings: vec![vec![[0; 4]; len]; n_vary],
                };
                vs.run(&input, &mut out)?;
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
                Ok(out)
            })
            .collect()
    });
    // The batches' outputs are gathered into the draw-wide arrays in parallel too (on the
    // calling thread this was the largest serial piece of 10 000 small triangles), by indexed
    // parallel collects: each element written once into the new array, which is never zeroed
    // first (zeroing it on the calling thread was ~1.1 M instructions of memset there).
    let outs = outs.into_iter().collect::<Result<Vec<VertexOutputs>>>()?;
    let at = |s: usize| (&outs[s / VERTEX_BATCH], s % VERTEX_BATCH);
    let shaded = pool.install(|| {
        let position = (0..total)
            .into_par_iter()
            .map(|s| {
                let (o, v) = at(s);
                o.position[v]
            })
            .collect();
        let point_size = (0..total)
            .into_par_iter()
            .map(|s| {
                let (o, v) = at(s);
                o.point_size[v]
            })
            .collect();
        // one location: indexed too; more: in order, gathered per piece (a copy of each)
        let varyings = match n_vary {
            0 => Vec::new(),
            1 => (0..total)
                .into_par_iter()
                .map(|s| {
                    let (o, v) = at(s);
                    o.varyings[0][v]
                })
                .collect(),
            _ => (0..total)
                .into_par_iter()
                .flat_map_iter(|s| {
                    let (o, v) = at(s);
                    o.varyings.iter().map(move |l| l[v])
                })
                .collect(),
        };
        Shaded {
            position,
            point_size,
            varyings,
            n_vary,
        }
    });
    Ok(shaded)
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
    sh: &Shaded,
    a: &Assembled,
    out: &mut Vec<RasterPrim>,
) {
    let n = a.count as usize;
    // Fixed-size arrays, not `Vec`s, for the usual unclipped triangle: the five small
    // allocations per primitive were ~8 % of a frame of 10 000 small triangles.
    let mut verts = [ClipVert {
        pos: [0.0; 4],
        bary: [0.0; 3],
    }; 3];
    for (k, &s) in a.slots[..n].iter().enumerate() {
        let p = sh.position[s as usize];
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
    };
    match n {
        1 => {
            if clip::point_inside(&verts[0].pos, &ctx.planes.list) {
                let size = sh.point_size[a.slots[0] as usize];
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
                            let size = point_size(sh.point_size[a.slots[k] as usize]);
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
