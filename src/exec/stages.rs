//! Entry points of the stages between vertex shading and rasterization: tessellation
//! control, tessellation evaluation and geometry. They fill the interface variables from the
//! rasterizer's vertex records (`stage::Vertices`), run, and read the results back
//! into them.
//!
//! Shape, and why:
//! - **Tessellation control: one patch per batch.** A patch's invocations share their
//!   outputs (each writes its own control point, any reads the others' after a barrier), which
//!   the front end places in workgroup memory; a batch is one workgroup, so a patch per batch
//!   makes `OpControlBarrier` hold by construction, as compute workgroups do.
//! - **Evaluation and geometry: 64 lanes a batch**, like vertex batches: one domain point, or
//!   one (primitive, invocation), per lane. Per-vertex inputs (`gl_in[]`, `in T x[]`) are
//!   every lane's own copy of its patch's or primitive's vertices.
//! - **Emits are a log.** `EmitVertex` / `EndPrimitive` append to the batch's log in the order
//!   lanes reach them (lock-step: each lane's own events stay in its program order), with a
//!   copy of the lane's output words per vertex; the log is then split per lane, so the
//!   output is invocation after invocation, each in emission order, whatever the lanes'
//!   interleaving.

use super::entry::{check_stage, get_var, put_var, words_per_scalar};
use super::memory::Bindings;
use super::observe::NoObserver;
use super::program::{Program, DONE};
use super::run::Batch;
use crate::ir::{BuiltIn, IoBinding, IoPer, IoVar, Stage};
use crate::stage::{
    DomainBatch, Emitted, GeometryEvent, PatchBatch, Patches, PrimitiveBatch, Vertices,
};
use crate::Result;

/// Lanes per evaluation or geometry batch.
const LANES: usize = 64;

/// The words of variable `var` taken from vertex `v` of `vs` (its location's components from
/// `var`'s component on, spilling into the next locations; `Position`, `PointSize`; zeros for
/// what vertex records do not carry).
fn record_words(var: &IoVar, vs: &Vertices, v: usize) -> Vec<u32> {
    let n = var.count as usize * words_per_scalar(var);
    match var.binding {
        IoBinding::Location {
            location,
            component,
        } => {
            let base = location as usize * 4 + component as usize;
            (base..base + n)
                .map(|w| vs.varying(v, w / 4)[w % 4])
                .collect()
        }
        IoBinding::BuiltIn(BuiltIn::Position) => {
            let p = vs.position.get(v).copied().unwrap_or([0.0; 4]);
            (0..n)
                .map(|k| p.get(k).map_or(0, |c| c.to_bits()))
                .collect()
        }
        IoBinding::BuiltIn(BuiltIn::PointSize) => {
            let s = vs.point_size.get(v).copied().unwrap_or(1.0);
            std::iter::once(s.to_bits())
                .chain(std::iter::repeat(0))
                .take(n)
                .collect()
        }
        IoBinding::BuiltIn(_) => vec![0; n],
    }
}

/// Store `words` (an output variable's) into vertex `v` of `vs`: a location's components, or
/// `Position` / `PointSize`; other built-ins are not vertex record fields.
fn store_record(var: &IoVar, words: impl Iterator<Item = u32>, vs: &mut Vertices, v: usize) {
    match var.binding {
        IoBinding::Location {
            location,
            component,
        } => {
            let base = location as usize * 4 + component as usize;
            for (k, x) in words.enumerate() {
                let (l, c) = ((base + k) / 4, (base + k) % 4);
                if l < vs.n_vary {
                    if let Some(slot) = vs.varyings.get_mut(v * vs.n_vary + l) {
                        slot[c] = x;
                    }
                }
            }
        }
        IoBinding::BuiltIn(BuiltIn::Position) => {
            if let Some(p) = vs.position.get_mut(v) {
                for (c, x) in p.iter_mut().zip(words) {
                    *c = f32::from_bits(x);
                }
            }
        }
        IoBinding::BuiltIn(BuiltIn::PointSize) => {
            if let (Some(s), Some(x)) = (vs.point_size.get_mut(v), words.into_iter().next()) {
                *s = f32::from_bits(x);
            }
        }
        IoBinding::BuiltIn(_) => {}
    }
}

/// The value of a per-invocation built-in input, if `bi` is one the caller gives here.
type BuiltIns<'a> = &'a dyn Fn(BuiltIn) -> Option<Vec<u32>>;

/// Fill lane `l`'s inputs: per-vertex variables from `vertex(i)`'s record, per-patch ones
/// from `patch`, built-ins from `builtins`.
fn fill_inputs<'v>(
    b: &mut Batch,
    p: &Program,
    l: usize,
    vertex: &dyn Fn(u32) -> Option<(&'v Vertices, usize)>,
    patch: Option<(&Patches, usize)>,
    builtins: BuiltIns,
) {
    for var in &p.shader.inputs {
        let words = match (var.per, var.binding) {
            (IoPer::Vertex(i), _) => match vertex(i) {
                Some((vs, v)) => record_words(var, vs, v),
                None => continue,
            },
            (IoPer::Patch, binding) => match (patch, binding) {
                (Some((ps, q)), IoBinding::BuiltIn(BuiltIn::TessLevelOuter)) => {
                    ps.levels[q][..4].iter().map(|x| x.to_bits()).collect()
                }
                (Some((ps, q)), IoBinding::BuiltIn(BuiltIn::TessLevelInner)) => {
                    ps.levels[q][4..].iter().map(|x| x.to_bits()).collect()
                }
                (Some((ps, q)), IoBinding::Location { .. }) => {
                    let view = Vertices {
                        varyings: ps.patch[q * ps.n_patch..(q + 1) * ps.n_patch].to_vec(),
                        n_vary: ps.n_patch,
                        ..Default::default()
                    };
                    record_words(var, &view, 0)
                }
                _ => continue,
            },
            (IoPer::Invocation, IoBinding::BuiltIn(bi)) => match builtins(bi) {
                Some(v) => v,
                None => continue,
            },
            (IoPer::Invocation, IoBinding::Location { .. }) => continue,
        };
        put_var(b, var, l, words);
    }
}

/// Shade `input`'s patches, one batch each, into `out` (patch after patch).
pub fn run_tess_control(
    program: &Program,
    input: &PatchBatch,
    bindings: &Bindings,
    out: &mut Patches,
) -> Result<()> {
    check_stage(program, Stage::TessControl)?;
    let sh = &program.shader;
    let nv = sh.modes.output_vertices.max(1) as usize;
    if nv > 64 {
        return Err(crate::Error::Exec(format!(
            "shader '{}': {nv} output control points (64 at most)",
            sh.name
        )));
    }
    let (n_vary, n_patch) = (out.points.n_vary, out.n_patch);
    let np = input.patches();
    out.points = Vertices::fresh(np * nv, n_vary);
    out.levels = vec![[0.0; 6]; np];
    out.patch = vec![[0; 4]; np * n_patch];
    let mut b = Batch::new();
    for q in 0..np {
        b.reset(program, nv);
        for l in nv..b.n {
            b.pc[l] = DONE;
        }
        let ps = input.patch_size;
        let vertex = |i: u32| {
            let i = i as usize;
            (i < ps).then(|| (input.vertices, input.slots[q * ps + i] as usize))
        };
        for l in 0..nv {
            let builtins = |bi: BuiltIn| match bi {
                BuiltIn::InvocationId => Some(vec![l as u32]),
                BuiltIn::PrimitiveId => Some(vec![input.primitive_id[q]]),
                BuiltIn::PatchVertices => Some(vec![ps as u32]),
                _ => None,
            };
            fill_inputs(&mut b, program, l, &vertex, None, &builtins);
        }
        b.run(program, bindings, &mut NoObserver)?;
        // the outputs are workgroup words
        let shared = &b.workgroup;
        let wg = |var: &IoVar| {
            let n = var.count as usize * words_per_scalar(var);
            let w = var.word as usize;
            (0..n).map(move |k| shared.get(w + k).copied().unwrap_or(0))
        };
        for var in &sh.outputs {
            match (var.per, var.binding) {
                (IoPer::Vertex(i), _) if (i as usize) < nv => {
                    store_record(var, wg(var), &mut out.points, q * nv + i as usize)
                }
                (IoPer::Patch, IoBinding::BuiltIn(BuiltIn::TessLevelOuter)) => {
                    for (d, x) in out.levels[q][..4].iter_mut().zip(wg(var)) {
                        *d = f32::from_bits(x);
                    }
                }
                (IoPer::Patch, IoBinding::BuiltIn(BuiltIn::TessLevelInner)) => {
                    for (d, x) in out.levels[q][4..].iter_mut().zip(wg(var)) {
                        *d = f32::from_bits(x);
                    }
                }
                (IoPer::Patch, IoBinding::Location { .. }) => {
                    let mut one = Vertices::fresh(1, n_patch);
                    store_record(var, wg(var), &mut one, 0);
                    out.patch[q * n_patch..(q + 1) * n_patch].copy_from_slice(&one.varyings);
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// Read lane `l`'s per-invocation outputs into vertex `v` of `vs`.
fn read_outputs(b: &Batch, p: &Program, l: usize, vs: &mut Vertices, v: usize) {
    for var in &p.shader.outputs {
        if var.per == IoPer::Invocation {
            let words: Vec<u32> = get_var(b, var, l).collect();
            store_record(var, words.into_iter(), vs, v);
        }
    }
}

/// Shade one vertex per domain point of `input` into `out` (sized by the caller to the
/// points, fresh).
pub fn run_tess_eval(
    program: &Program,
    input: &DomainBatch,
    bindings: &Bindings,
    out: &mut Vertices,
) -> Result<()> {
    check_stage(program, Stage::TessEval)?;
    let pv = input.patch_vertices;
    let mut b = Batch::new();
    for (c, chunk) in input.coord.chunks(LANES).enumerate() {
        let first = c * LANES;
        b.reset(program, chunk.len());
        for l in chunk.len()..b.n {
            b.pc[l] = DONE;
        }
        for (l, coord) in chunk.iter().enumerate() {
            let q = input.patch[first + l] as usize;
            let vertex = |i: u32| {
                let i = i as usize;
                (i < pv).then(|| (&input.patches.points, q * pv + i))
            };
            let builtins = |bi: BuiltIn| match bi {
                BuiltIn::TessCoord => Some(coord.iter().map(|x| x.to_bits()).collect()),
                BuiltIn::PrimitiveId => Some(vec![input.primitive_id[q]]),
                BuiltIn::PatchVertices => Some(vec![pv as u32]),
                _ => None,
            };
            fill_inputs(
                &mut b,
                program,
                l,
                &vertex,
                Some((input.patches, q)),
                &builtins,
            );
            point_size_starts_at_one(&mut b, program, l);
        }
        b.run(program, bindings, &mut NoObserver)?;
        for l in 0..chunk.len() {
            read_outputs(&b, program, l, out, first + l);
        }
    }
    Ok(())
}

/// `PointSize` outputs start at 1 (what the vertex stage does too).
fn point_size_starts_at_one(b: &mut Batch, p: &Program, l: usize) {
    for var in &p.shader.outputs {
        if var.binding == IoBinding::BuiltIn(BuiltIn::PointSize) && var.count > 0 {
            put_var(b, var, l, [1.0f32.to_bits()]);
        }
    }
}

/// Shade `input`'s primitives, `invocations` times each, into `out`: the emitted vertices
/// (at most `max_vertices` per invocation) and the emits and cuts in order, invocation
/// after invocation.
pub fn run_geometry(
    program: &Program,
    input: &PrimitiveBatch,
    max_vertices: usize,
    bindings: &Bindings,
    out: &mut Emitted,
) -> Result<()> {
    check_stage(program, Stage::Geometry)?;
    let sh = &program.shader;
    let n_vary = out.vertices.n_vary;
    *out = Emitted {
        vertices: Vertices::fresh(0, n_vary),
        ..Default::default()
    };
    let inv = input.invocations.max(1);
    let total = input.primitive_id.len() * inv;
    let per = input.per_primitive;
    let mut b = Batch::new();
    // where each emitted vertex's output words sit in the emitted copy
    let mut at = Vec::new();
    let mut o = 0;
    for var in &sh.outputs {
        let n = var.count as usize * words_per_scalar(var);
        at.push(o);
        o += n;
    }
    for first in (0..total).step_by(LANES) {
        let lanes = LANES.min(total - first);
        b.reset(program, lanes);
        for l in lanes..b.n {
            b.pc[l] = DONE;
        }
        b.emits.clear();
        b.emitted.clear();
        for l in 0..lanes {
            let (prim, invocation) = ((first + l) / inv, (first + l) % inv);
            let vertex = |i: u32| {
                let i = i as usize;
                (i < per).then(|| (input.vertices, input.slots[prim * per + i] as usize))
            };
            let builtins = |bi: BuiltIn| match bi {
                BuiltIn::InvocationId => Some(vec![invocation as u32]),
                BuiltIn::PrimitiveId => Some(vec![input.primitive_id[prim]]),
                _ => None,
            };
            fill_inputs(&mut b, program, l, &vertex, None, &builtins);
            point_size_starts_at_one(&mut b, program, l);
        }
        b.run(program, bindings, &mut NoObserver)?;
        // the log split per lane, in lane order, each lane's events in its order
        let mut copy = 0;
        let mut per_lane: Vec<Vec<(u32, Option<usize>)>> = vec![Vec::new(); lanes];
        for e in &b.emits {
            let words = e.vertex.then(|| {
                copy += 1;
                copy - 1
            });
            if let Some(events) = per_lane.get_mut(e.lane as usize) {
                events.push((e.stream, words));
            }
        }
        let stride = o;
        for (l, events) in per_lane.iter().enumerate() {
            let invocation = (first + l) as u32;
            let mut emitted = 0;
            for &(stream, words) in events {
                let vertex = match words {
                    Some(w) if emitted < max_vertices => {
                        emitted += 1;
                        let words = &b.emitted[w * stride..(w + 1) * stride];
                        Some(push_emitted(sh, &at, words, out))
                    }
                    Some(_) => continue,
                    None => None,
                };
                out.events.push(GeometryEvent {
                    invocation,
                    stream,
                    vertex,
                });
            }
        }
    }
    Ok(())
}

/// One emitted vertex (`words`: every output's words, at `at`) into `out`; its index.
fn push_emitted(sh: &crate::ir::Shader, at: &[usize], words: &[u32], out: &mut Emitted) -> u32 {
    let v = out.vertices.len();
    let vs = &mut out.vertices;
    vs.position.push([0.0; 4]);
    vs.point_size.push(1.0);
    vs.varyings.extend(std::iter::repeat_n([0; 4], vs.n_vary));
    let (mut layer, mut viewport, mut id) = (0, 0, None);
    for (var, &o) in sh.outputs.iter().zip(at) {
        let n = var.count as usize * words_per_scalar(var);
        let w = &words[o.min(words.len())..(o + n).min(words.len())];
        match var.binding {
            IoBinding::BuiltIn(BuiltIn::Layer) => layer = w.first().copied().unwrap_or(0),
            IoBinding::BuiltIn(BuiltIn::ViewportIndex) => {
                viewport = w.first().copied().unwrap_or(0)
            }
            IoBinding::BuiltIn(BuiltIn::PrimitiveId) => id = w.first().copied(),
            _ => store_record(var, w.iter().copied(), vs, v),
        }
    }
    out.layer.push(layer);
    out.viewport.push(viewport);
    out.primitive_id.push(id);
    v as u32
}
