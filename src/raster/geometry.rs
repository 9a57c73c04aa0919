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
///
/// The draw-wide arrays are made first (zero-filled by parallel indexed collects) and every
/// batch copies its outputs straight into its own chunk of them, from one reused input and
/// output per rayon job. Gathering per-batch outputs afterwards (a second parallel pass, and
/// ~470 batch outputs freed on the calling thread) cost 10 000 small triangles ~0.19 ms of a
/// 1.2 ms vertex phase at one thread; now the frame is 0.2-0.25 ms faster at one thread
/// (callgrind: 2.9 M instructions fewer) but no faster at two, where the batches' writes
/// into the shared arrays cost what the gather did (writing the arrays' spare capacity
/// instead, with no zero-fill, was no faster either, so no `unsafe` for it).
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
    pool.install(|| {
        let mut position: Vec<[f32; 4]> = (0..total).into_par_iter().map(|_| [0.0; 4]).collect();
        let mut point_size: Vec<f32> = (0..total).into_par_iter().map(|_| 1.0).collect();
        let mut varyings: Vec<[u32; 4]> = (0..total * n_vary)
            .into_par_iter()
            .map(|_| [0; 4])
            .collect();
        // every batch's piece of the varyings (empty pieces when there are none)
        let batches = total.div_ceil(VERTEX_BATCH);
        let vary_pieces: Vec<&mut [[u32; 4]]> = if n_vary == 0 {
            (0..batches).map(|_| <&mut [[u32; 4]]>::default()).collect()
        } else {
            varyings.chunks_mut(VERTEX_BATCH * n_vary).collect()
        };
        let results: Vec<Result<()>> = position
            .par_chunks_mut(VERTEX_BATCH)
            .zip(point_size.par_chunks_mut(VERTEX_BATCH))
            .zip(vary_pieces)
            .enumerate()
            .map_init(
                || (VertexBatch::default(), VertexOutputs::default()),
                |(input, out), (b, ((pos, size), vary))| {
                    let start = b * VERTEX_BATCH;
                    let len = pos.len();
                    input.vertex_index.clear();
                    input.instance_index.clear();
                    for s in start..start + len {
                        // (no division in the first instance)
                        let (inst, k) = if s < n { (0, s) } else { (s / n, s % n) };
                        input.vertex_index.push(stream.vertex_index[k]);
                        input
                            .instance_index
                            .push(instances.0.wrapping_add(inst as u32));
                    }
                    input.attributes =
                        fetch(state, buffers, &input.vertex_index, &input.instance_index)?;
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
                    vs.run(input, out)?;
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
                },
            )
            .collect();
        // the first failing batch's error, whichever thread ran it
        results.into_iter().collect::<Result<()>>()?;
        Ok(Shaded {
            position,
            point_size,
            varyings,
            n_vary,
        })
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raster::assemble::linear_stream;
    use crate::raster::stage::VertexFn;

    fn pool(threads: usize) -> ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
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
            let shaded = shade_vertices(&pool(threads), &state, &vs, &[], &stream, (4, 2)).unwrap();
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
            let e = shade_vertices(&pool(threads), &state, &vs, &[], &stream, (0, 1))
                .err()
                .expect("an error");
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
        let e = shade_vertices(&pool(2), &state, &vs, &[], &stream, (0, 1))
            .err()
            .expect("an error");
        assert!(e.to_string().contains("resized its outputs"), "{e}");
    }
}
