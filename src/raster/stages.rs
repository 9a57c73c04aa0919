//! The stages between vertex shading and setup: tessellation (control shader, the fixed
//! tessellator, evaluation shader) and geometry shading, with the primitive assembly that goes
//! with them (patches, adjacency, a geometry shader's strips, its streams).
//!
//! In: the vertex stage's outputs and the draw's vertex stream. Out: new vertices and the
//! primitives that name them, which setup takes as it takes a plain draw's. Each stage runs in
//! parallel over chunks of its input primitives (patches, primitives), every chunk's output
//! is kept in order and the chunks are joined in order, so the result does not depend on the
//! thread count. Primitive ids count per instance, as the vertex stage's primitives do: a
//! patch's id goes to what it tessellates into, and a geometry shader's output primitive
//! takes its `PrimitiveId` output if it writes one, its input primitive's id otherwise.
//!
//! Choices where Vulkan leaves room: only stream 0 is rasterized (there is no transform
//! feedback to take the others); `Layer` and `ViewportIndex` come from a primitive's first
//! (provoking) vertex and reach the fragment shader, while the framebuffer has one layer and
//! the pipeline one viewport; a geometry invocation's emits past its `max_vertices` are
//! dropped.

use rayon::prelude::*;
use rayon::ThreadPool;

use super::assemble::{assemble, assemble_full, full_size, Assembled, Stream};
use super::geometry::Shaded;
use super::state::Topology;
use super::tessellator::{tessellate, Output};
use super::Stages;
use crate::stage::{
    Domain, DomainBatch, Emitted, GeometryOutput, GeometryStage, PatchBatch, Patches,
    PrimitiveBatch, Spacing, TessControlStage, TessEvalStage, Vertices,
};
use crate::{Error, Result};

/// Patches per tessellation job, primitives per geometry job.
const CHUNK: usize = 64;

/// Primitives: `per` slots each into some vertices, an id each.
struct Prims {
    slots: Vec<u32>,
    per: usize,
    ids: Vec<u32>,
}

impl Prims {
    fn len(&self) -> usize {
        self.ids.len()
    }
}

/// Run the draw's tessellation and geometry stages on the vertex stage's output `vs` (the
/// `stream` shaded `instances` times, instance after instance): the vertices and primitives
/// to set up.
pub(crate) fn run(
    pool: &ThreadPool,
    stages: &Stages,
    topology: Topology,
    patch_size: u32,
    stream: &Stream,
    instances: u32,
    vs: Shaded,
) -> Result<(Shaded, Vec<Assembled>)> {
    let patch = patch_size as usize;
    if stages.tessellation.is_some() != (topology == Topology::PatchList) {
        return Err(Error::Pipeline(format!(
            "raster: a {topology:?} draw {} tessellation shaders (patch lists go with them)",
            if stages.tessellation.is_some() {
                "with"
            } else {
                "without"
            }
        )));
    }
    if topology == Topology::PatchList && !(1..=32).contains(&patch) {
        return Err(Error::Pipeline(format!(
            "raster: {patch} control points a patch (1 to 32)"
        )));
    }
    let per = full_size(topology, patch);
    let mut input = Prims {
        slots: Vec::new(),
        per,
        ids: Vec::new(),
    };
    let n = stream.vertex_index.len() as u32;
    for i in 0..instances {
        assemble_full(
            topology,
            stream,
            i * n,
            per,
            &mut input.slots,
            &mut input.ids,
        );
    }
    let (vertices, prims) = match stages.tessellation {
        Some((tcs, tes)) => pool.install(|| tessellation(tcs, tes, &vs, &input))?,
        None => (vs, input),
    };
    match stages.geometry {
        Some(gs) => pool.install(|| geometry(gs, &vertices, &prims)),
        None => Ok((vertices, plain(&prims)?)),
    }
}

/// Primitives of 1, 2 or 3 vertices as raster primitives.
fn plain(p: &Prims) -> Result<Vec<Assembled>> {
    if !(1..=3).contains(&p.per) {
        return Err(Error::Pipeline(format!(
            "raster: primitives of {} vertices cannot be rasterized",
            p.per
        )));
    }
    Ok(p.slots
        .chunks_exact(p.per)
        .zip(&p.ids)
        .map(|(s, &id)| {
            let mut slots = [0; 3];
            slots[..s.len()].copy_from_slice(s);
            Assembled {
                slots,
                count: s.len() as u8,
                primitive_id: id,
                layer: 0,
                viewport: 0,
            }
        })
        .collect())
}

/// Vertices and primitives made by a chunk of work, slots local to the chunk.
type Part = (Vertices, Prims);

/// Join parts in order, each one's slots shifted by the vertices before it.
fn join(parts: Vec<Part>, n_vary: usize, per: usize) -> (Vertices, Prims) {
    let mut vs = Vertices {
        n_vary,
        ..Default::default()
    };
    let mut prims = Prims {
        slots: Vec::new(),
        per,
        ids: Vec::new(),
    };
    for (v, p) in parts {
        let base = vs.len() as u32;
        prims.slots.extend(p.slots.iter().map(|s| s + base));
        prims.ids.extend(p.ids);
        vs.position.extend(v.position);
        vs.point_size.extend(v.point_size);
        vs.varyings.extend(v.varyings);
    }
    (vs, prims)
}

/// Tessellate every patch: the control shader per chunk of patches, the tessellator per
/// patch, the evaluation shader on every domain point of the chunk.
fn tessellation(
    tcs: &dyn TessControlStage,
    tes: &dyn TessEvalStage,
    vs: &Vertices,
    patches: &Prims,
) -> Result<(Vertices, Prims)> {
    let modes = tes.modes().or(tcs.modes());
    let domain = modes.domain.unwrap_or(Domain::Triangles);
    let spacing = modes.spacing.unwrap_or(Spacing::Equal);
    // llvmpipe's convention with the Direct3D reference: clockwise output for VertexOrderCcw
    let output = match (modes.point_mode, domain) {
        (true, _) => Output::Points,
        (false, Domain::Isolines) => Output::Lines,
        (false, _) => Output::Triangles {
            cw: modes.ccw.unwrap_or(true),
        },
    };
    let per_out = match output {
        Output::Points => 1,
        Output::Lines => 2,
        Output::Triangles { .. } => 3,
    };
    let out_points = tcs.output_vertices();
    if !(1..=32).contains(&out_points) {
        return Err(Error::Pipeline(format!(
            "raster: a tessellation control shader of {out_points} output control points"
        )));
    }
    let n_vary = tes.varying_count();
    let chunks: Vec<usize> = (0..patches.len()).step_by(CHUNK).collect();
    let parts: Vec<Result<Part>> = chunks
        .par_iter()
        .map(|&first| {
            let count = CHUNK.min(patches.len() - first);
            let slots = &patches.slots[first * patches.per..(first + count) * patches.per];
            let ids = &patches.ids[first..first + count];
            let batch = PatchBatch {
                vertices: vs,
                slots,
                patch_size: patches.per,
                primitive_id: ids,
            };
            let mut control = Patches::default();
            tcs.run(&batch, &mut control)?;
            if control.levels.len() != count || control.points.len() != count * out_points {
                return Err(Error::Exec(format!(
                    "raster/stages.rs: the tessellation control stage made {} patches of {} \
                     points for {count} patches of {out_points}",
                    control.levels.len(),
                    control.points.len()
                )));
            }
            // every patch's domain points and primitives, points numbered within the chunk
            let (mut patch_of, mut coord) = (Vec::new(), Vec::new());
            let mut prims = Prims {
                slots: Vec::new(),
                per: per_out,
                ids: Vec::new(),
            };
            for (q, levels) in control.levels.iter().enumerate() {
                let outer = [levels[0], levels[1], levels[2], levels[3]];
                let t = tessellate(domain, spacing, output, outer, [levels[4], levels[5]]);
                let base = coord.len() as u32;
                for &[u, v] in &t.points {
                    let w = match domain {
                        Domain::Triangles => 1.0 - u - v,
                        _ => 0.0,
                    };
                    coord.push([u, v, w]);
                    patch_of.push(q as u32);
                }
                prims.slots.extend(t.indices.iter().map(|i| i + base));
                prims
                    .ids
                    .extend(std::iter::repeat_n(ids[q], t.indices.len() / per_out));
            }
            let mut out = Vertices::fresh(coord.len(), n_vary);
            if !coord.is_empty() {
                let batch = DomainBatch {
                    patches: &control,
                    patch_vertices: out_points,
                    patch: &patch_of,
                    coord: &coord,
                    primitive_id: ids,
                };
                tes.run(&batch, &mut out)?;
                if !out.consistent() || out.len() != coord.len() || out.n_vary != n_vary {
                    return Err(Error::Exec(
                        "raster/stages.rs: the tessellation evaluation stage resized its output"
                            .into(),
                    ));
                }
            }
            Ok((out, prims))
        })
        .collect();
    let parts = parts.into_iter().collect::<Result<Vec<_>>>()?;
    Ok(join(parts, n_vary, per_out))
}

/// Run the geometry shader on every primitive and assemble what it emits on stream 0 into
/// points, lines or triangles.
fn geometry(
    gs: &dyn GeometryStage,
    vs: &Vertices,
    prims: &Prims,
) -> Result<(Vertices, Vec<Assembled>)> {
    let modes = gs.modes();
    if modes.input_vertices != prims.per {
        return Err(Error::Pipeline(format!(
            "raster: the geometry shader takes primitives of {} vertices, the draw makes \
             primitives of {}",
            modes.input_vertices, prims.per
        )));
    }
    let invocations = modes.invocations.max(1);
    let n_vary = gs.varying_count();
    let chunks: Vec<usize> = (0..prims.len()).step_by(CHUNK).collect();
    let parts: Vec<Result<(Vertices, Vec<Assembled>)>> = chunks
        .par_iter()
        .map(|&first| {
            let count = CHUNK.min(prims.len() - first);
            let batch = PrimitiveBatch {
                vertices: vs,
                slots: &prims.slots[first * prims.per..(first + count) * prims.per],
                per_primitive: prims.per,
                primitive_id: &prims.ids[first..first + count],
                invocations,
            };
            let mut out = Emitted {
                vertices: Vertices::fresh(0, n_vary),
                ..Default::default()
            };
            gs.run(&batch, &mut out)?;
            let nv = out.vertices.len();
            if !out.vertices.consistent()
                || out.vertices.n_vary != n_vary
                || out.layer.len() != nv
                || out.viewport.len() != nv
                || out.primitive_id.len() != nv
            {
                return Err(Error::Exec(
                    "raster/stages.rs: the geometry stage's outputs disagree in length".into(),
                ));
            }
            let assembled = strips(&out, modes.output, |inv| {
                batch.primitive_id[(inv as usize / invocations).min(count - 1)]
            })?;
            Ok((out.vertices, assembled))
        })
        .collect();
    let mut vertices = Vertices {
        n_vary,
        ..Default::default()
    };
    let mut all = Vec::new();
    for part in parts {
        let (v, a) = part?;
        let base = vertices.len() as u32;
        all.extend(a.into_iter().map(|mut a| {
            a.slots = a.slots.map(|s| s + base);
            a
        }));
        vertices.position.extend(v.position);
        vertices.point_size.extend(v.point_size);
        vertices.varyings.extend(v.varyings);
    }
    Ok((vertices, all))
}

/// Points, lines or triangles from a geometry call's emits on stream 0: a strip runs from an
/// invocation's first emit to a cut or the invocation's end. `input_id`: the id of the
/// input primitive of an invocation.
fn strips(
    out: &Emitted,
    output: GeometryOutput,
    input_id: impl Fn(u32) -> u32,
) -> Result<Vec<Assembled>> {
    let topology = match output {
        GeometryOutput::Points => Topology::PointList,
        GeometryOutput::LineStrip => Topology::LineStrip,
        GeometryOutput::TriangleStrip => Topology::TriangleStrip,
    };
    let mut assembled = Vec::new();
    let mut strip: Vec<u32> = Vec::new();
    let mut current = None;
    let mut flush = |strip: &mut Vec<u32>, inv: Option<u32>| -> Result<()> {
        if let (false, Some(inv)) = (strip.is_empty(), inv) {
            let run = Stream {
                vertex_index: Vec::new(),
                runs: vec![(0, strip.len())],
            };
            for a in assemble(topology, &run, 0) {
                let slots = a.slots.map(|s| strip.get(s as usize).copied().unwrap_or(0));
                let first = slots[0] as usize;
                assembled.push(Assembled {
                    slots,
                    primitive_id: out.primitive_id[first].unwrap_or_else(|| input_id(inv)),
                    layer: out.layer[first].min(u16::MAX as u32) as u16,
                    viewport: out.viewport[first].min(u8::MAX as u32) as u8,
                    ..a
                });
            }
        }
        strip.clear();
        Ok(())
    };
    for e in out.events.iter().filter(|e| e.stream == 0) {
        if current != Some(e.invocation) {
            flush(&mut strip, current)?;
            current = Some(e.invocation);
        }
        match e.vertex {
            Some(v) => strip.push(v),
            None => flush(&mut strip, current)?,
        }
    }
    flush(&mut strip, current)?;
    Ok(assembled)
}
