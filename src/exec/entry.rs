//! Entry points that run one shader: compute dispatches, fragment quads and batches, vertex
//! batches. They fill the interface variables (IoVar words in per-lane memory) before a run
//! and read the outputs after it.
//!
//! The rasterizer's fragment batches come in row form (`stage::RowBatch`): the
//! caller's rows are the batch's per-lane memory for the run ([`run_fragment_rows`] swaps them
//! in and out), laid out by [`fragment_row_layout`], so inputs and colours cross without a copy;
//! [`run_fragment_quads`] fills and reads each lane's words itself and stays as the independent
//! form tests compare the row form against.

use super::memory::Bindings;
use super::observe::{NoObserver, Observer};
use super::program::{Program, DONE};
use super::run::{zero, Batch};
use crate::ir::{BuiltIn, DerivativeGroup, IoBinding, IoVar, Stage};
use crate::stage::{RowBatch, RowLayout};
use crate::{Error, Result};
use rayon::prelude::*;
use std::cell::RefCell;

/// Quads per fragment batch (64 lanes = 4 subgroups).
pub const FRAG_QUADS_PER_BATCH: usize = 16;
/// Lanes per vertex batch.
pub const VERTEX_LANES_PER_BATCH: usize = 64;
/// Largest compute workgroup (lanes in one batch).
pub const MAX_WORKGROUP_LANES: u32 = 4096;

pub(super) fn words_per_scalar(v: &IoVar) -> usize {
    if v.ty.is_wide() {
        2
    } else {
        1
    }
}

/// Write `vals` to the words of `var` for lane `l` (extra values and words beyond local memory
/// are ignored).
pub(super) fn put_var(b: &mut Batch, var: &IoVar, l: usize, vals: impl IntoIterator<Item = u32>) {
    let total = var.count as usize * words_per_scalar(var);
    for (i, v) in vals.into_iter().take(total).enumerate() {
        let w = var.word as usize + i;
        if w < b.local_words {
            b.local[w * b.n + l] = v;
        }
    }
}
pub(super) fn get_var<'a>(b: &'a Batch, var: &IoVar, l: usize) -> impl Iterator<Item = u32> + 'a {
    let total = var.count as usize * words_per_scalar(var);
    let (word, n, lw) = (var.word as usize, b.n, b.local_words);
    (0..total).map(move |i| {
        if word + i < lw {
            b.local[(word + i) * n + l]
        } else {
            0
        }
    })
}

/// Words per lane of a location-keyed interface array (`location * 4 + component`) covering
/// every Location variable in `vars`.
pub fn location_stride(vars: &[IoVar]) -> usize {
    let mut end = 0;
    for v in vars {
        if let IoBinding::Location {
            location,
            component,
        } = v.binding
        {
            end = end.max(
                location as usize * 4 + component as usize + v.count as usize * words_per_scalar(v),
            );
        }
    }
    end.div_ceil(4) * 4
}

fn fill_locations(b: &mut Batch, vars: &[IoVar], l: usize, src: &[u32]) {
    for v in vars {
        if let IoBinding::Location {
            location,
            component,
        } = v.binding
        {
            let base = location as usize * 4 + component as usize;
            let vals = (0..v.count as usize * words_per_scalar(v))
                .map(|i| src.get(base + i).copied().unwrap_or(0));
            put_var(b, v, l, vals);
        }
    }
}
fn read_locations(b: &Batch, vars: &[IoVar], l: usize, dst: &mut [u32]) {
    for v in vars {
        if let IoBinding::Location {
            location,
            component,
        } = v.binding
        {
            let base = location as usize * 4 + component as usize;
            for (i, x) in get_var(b, v, l).enumerate() {
                if let Some(d) = dst.get_mut(base + i) {
                    *d = x;
                }
            }
        }
    }
}

pub(super) fn check_stage(p: &Program, s: Stage) -> Result<()> {
    if p.shader.stage != s {
        return Err(Error::Exec(format!(
            "shader '{}' is a {:?} shader, not {s:?}",
            p.shader.name, p.shader.stage
        )));
    }
    Ok(())
}

/// Local invocation id of batch lane `l` (None for padding lanes). With
/// `DerivativeGroupQuadsKHR` (and even X and Y sizes) each quad is a 2×2 tile of local ids;
/// otherwise lanes follow `LocalInvocationIndex`.
fn local_id(size: [u32; 3], quads: bool, l: usize) -> Option<[u32; 3]> {
    let [sx, sy, sz] = size.map(|v| v as usize);
    if l >= sx * sy * sz {
        return None;
    }
    let id = if quads {
        let (q, i) = (l / 4, l % 4);
        let qx = q % (sx / 2);
        let qy = (q / (sx / 2)) % (sy / 2);
        let z = q / ((sx / 2) * (sy / 2));
        [2 * qx + (i & 1), 2 * qy + (i >> 1), z]
    } else {
        [l % sx, (l / sx) % sy, l / (sx * sy)]
    };
    Some(id.map(|v| v as u32))
}

/// Run a compute dispatch of `workgroups` workgroups. Each workgroup is one batch (so
/// barriers in uniform control flow hold by construction); workgroups run in parallel on
/// rayon. Results are deterministic for shaders without races between workgroups.
///
/// The program's [`Cancel`](crate::limits::Cancel) token is polled before every workgroup
/// and gets the dispatch's progress in workgroups (counted in steps of `PROGRESS_STEP`
/// per thread, so the shared counter is not written for every small workgroup).
pub fn run_compute(program: &Program, workgroups: [u32; 3], bindings: &Bindings) -> Result<()> {
    run_compute_watching(program, workgroups, bindings, u64::MAX, &mut NoObserver)
}

/// [`run_compute`] with one workgroup (index `x + y * X + z * X * Y`) run under `observer`:
/// the same parallel run, the watched workgroup on whichever thread takes it.
pub fn run_compute_watching<O: Observer + Send>(
    program: &Program,
    workgroups: [u32; 3],
    bindings: &Bindings,
    watched: u64,
    observer: &mut O,
) -> Result<()> {
    compute_prepare(program)?;
    let total = workgroups.iter().map(|&v| v as u64).product::<u64>();
    let cancel = program.cancel();
    cancel.begin_work(total);
    let observer = std::sync::Mutex::new(observer);
    (0..total).into_par_iter().try_for_each_init(
        || (Batch::new(), 0),
        |(batch, since), i| {
            cancel.check()?;
            if i == watched {
                let mut o = observer
                    .lock()
                    .map_err(|_| Error::Exec("compute observer poisoned by a panic".into()))?;
                run_workgroup(program, workgroups, i, bindings, batch, &mut **o)?;
            } else {
                run_workgroup(program, workgroups, i, bindings, batch, &mut NoObserver)?;
            }
            *since += 1;
            if *since == PROGRESS_STEP {
                cancel.advance(PROGRESS_STEP);
                *since = 0;
            }
            Ok(())
        },
    )
}

/// Workgroups a thread runs between two updates of a dispatch's progress.
const PROGRESS_STEP: u64 = 64;

/// The local invocation id batch lane `lane` of a workgroup of `program` runs (None for a
/// padding lane): lanes follow `LocalInvocationIndex`, or 2×2 tiles of local ids with
/// `DerivativeGroupQuadsKHR`.
pub fn compute_local_id(program: &Program, lane: usize) -> Option<[u32; 3]> {
    let size = program.shader.workgroup_size;
    let quads = program.shader.derivative_group == Some(DerivativeGroup::Quads)
        && size[0].is_multiple_of(2)
        && size[1].is_multiple_of(2);
    local_id(size, quads, lane)
}

/// The batch lane that runs local invocation `local` (None when `local` is outside the
/// workgroup size): the inverse of [`compute_local_id`].
pub fn compute_lane(program: &Program, local: [u32; 3]) -> Option<usize> {
    let lanes = program.shader.workgroup_size.iter().map(|&v| v as usize);
    let lanes = lanes.product::<usize>().min(MAX_WORKGROUP_LANES as usize);
    (0..lanes).find(|&l| compute_local_id(program, l) == Some(local))
}

/// [`run_compute`] with an observer: workgroups run one after another.
pub fn run_compute_observed<O: Observer>(
    program: &Program,
    workgroups: [u32; 3],
    bindings: &Bindings,
    observer: &mut O,
) -> Result<()> {
    compute_prepare(program)?;
    let total = workgroups.iter().map(|&v| v as u64).product::<u64>();
    let mut batch = Batch::new();
    for i in 0..total {
        run_workgroup(program, workgroups, i, bindings, &mut batch, observer)?;
    }
    Ok(())
}

fn compute_prepare(p: &Program) -> Result<()> {
    check_stage(p, Stage::Compute)?;
    let lanes = p
        .shader
        .workgroup_size
        .iter()
        .map(|&v| v as u64)
        .product::<u64>();
    if lanes == 0 || lanes > MAX_WORKGROUP_LANES as u64 {
        return Err(Error::Exec(format!(
            "shader '{}': workgroup size {:?} has {lanes} invocations (1..={MAX_WORKGROUP_LANES} supported)",
            p.shader.name, p.shader.workgroup_size
        )));
    }
    Ok(())
}

fn run_workgroup<O: Observer>(
    p: &Program,
    counts: [u32; 3],
    i: u64,
    bindings: &Bindings,
    b: &mut Batch,
    obs: &mut O,
) -> Result<()> {
    let size = p.shader.workgroup_size;
    let lanes = (size[0] * size[1] * size[2]) as usize;
    let wg = [
        (i % counts[0] as u64) as u32,
        ((i / counts[0] as u64) % counts[1] as u64) as u32,
        (i / (counts[0] as u64 * counts[1] as u64)) as u32,
    ];
    let quads = p.shader.derivative_group == Some(DerivativeGroup::Quads)
        && size[0].is_multiple_of(2)
        && size[1].is_multiple_of(2);
    b.reset(p, lanes);
    let n = b.n;
    for l in 0..n {
        let Some(lid) = local_id(size, quads, l) else {
            b.pc[l] = DONE;
            continue;
        };
        for var in &p.shader.inputs {
            let IoBinding::BuiltIn(bi) = var.binding else {
                continue;
            };
            let one = |v: u32| [v, 0, 0];
            let v: [u32; 3] = match bi {
                BuiltIn::LocalInvocationId => lid,
                BuiltIn::GlobalInvocationId => {
                    std::array::from_fn(|k| wg[k].wrapping_mul(size[k]).wrapping_add(lid[k]))
                }
                BuiltIn::WorkgroupId => wg,
                BuiltIn::NumWorkgroups => counts,
                BuiltIn::WorkgroupSize => size,
                BuiltIn::LocalInvocationIndex => {
                    one(lid[0] + lid[1] * size[0] + lid[2] * size[0] * size[1])
                }
                BuiltIn::SubgroupId => one((l / p.subgroup_size) as u32),
                BuiltIn::NumSubgroups => one(n.div_ceil(p.subgroup_size) as u32),
                _ => continue,
            };
            put_var(b, var, l, v);
        }
    }
    b.run(p, bindings, obs)
}

/// One 2×2 quad of fragments to shade. Lanes are `0 1 / 2 3` (x right, y down).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FragQuadInput {
    /// Per lane: FragCoord (x, y, z, 1/w).
    pub frag_coord: [[f32; 4]; 4],
    pub front_facing: bool,
    /// Per lane: PointCoord (points; (0, 0) for lines and triangles).
    pub point_coord: [[f32; 2]; 4],
    /// Per lane: not covered (a helper lane from the start).
    pub helper: [bool; 4],
    pub primitive_id: u32,
    pub sample_id: u32,
    /// Per lane: input SampleMask (also the default output SampleMask).
    pub sample_mask: [u32; 4],
    /// Interpolated inputs, lane-major: `varyings[lane * (varyings.len() / 4) + location * 4 +
    /// component]`, raw register bits (missing words read as 0).
    pub varyings: Vec<u32>,
}

/// The results of one quad.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FragQuadOutput {
    /// Output words, `outputs[lane * stride + location * 4 + component]`, `stride =
    /// location_stride(&shader.outputs)`.
    pub outputs: Vec<u32>,
    /// Per lane: FragDepth as written, else the input FragCoord.z.
    pub frag_depth: [f32; 4],
    /// Per lane: output SampleMask as written, else the input mask.
    pub sample_mask: [u32; 4],
    /// Per lane: killed (OpKill/TerminateInvocation) or demoted: outputs must be dropped.
    pub discarded: [bool; 4],
    /// Per lane: helper at the end (not covered from the start, or demoted).
    pub helper: [bool; 4],
}

/// Shade `quads` (several per batch). Quads run in order on the calling thread.
pub fn run_fragment_quads(
    program: &Program,
    quads: &[FragQuadInput],
    bindings: &Bindings,
) -> Result<Vec<FragQuadOutput>> {
    run_fragment_quads_observed(program, quads, bindings, &mut NoObserver)
}

/// [`run_fragment_quads`] with an observer.
pub fn run_fragment_quads_observed<O: Observer>(
    program: &Program,
    quads: &[FragQuadInput],
    bindings: &Bindings,
    observer: &mut O,
) -> Result<Vec<FragQuadOutput>> {
    check_stage(program, Stage::Fragment)?;
    let sh = &program.shader;
    let stride = location_stride(&sh.outputs);
    let mut out = Vec::with_capacity(quads.len());
    let mut b = Batch::new();
    for chunk in quads.chunks(FRAG_QUADS_PER_BATCH) {
        b.reset(program, chunk.len() * 4);
        for (q, qi) in chunk.iter().enumerate() {
            let vstride = qi.varyings.len() / 4;
            for i in 0..4 {
                let l = q * 4 + i;
                b.helper[l] = qi.helper[i];
                fill_locations(
                    &mut b,
                    &sh.inputs,
                    l,
                    &qi.varyings[i * vstride..(i + 1) * vstride],
                );
                for var in &sh.inputs {
                    let IoBinding::BuiltIn(bi) = var.binding else {
                        continue;
                    };
                    let one = |v: u32| [v, 0, 0, 0];
                    let v: [u32; 4] = match bi {
                        BuiltIn::FragCoord => qi.frag_coord[i].map(f32::to_bits),
                        BuiltIn::FrontFacing => one(qi.front_facing as u32),
                        BuiltIn::PrimitiveId => one(qi.primitive_id),
                        BuiltIn::PointCoord => {
                            let [x, y] = qi.point_coord[i];
                            [x.to_bits(), y.to_bits(), 0, 0]
                        }
                        BuiltIn::SampleId => one(qi.sample_id),
                        BuiltIn::SampleMask => one(qi.sample_mask[i]),
                        _ => continue,
                    };
                    put_var(&mut b, var, l, v);
                }
                for var in &sh.outputs {
                    match var.binding {
                        IoBinding::BuiltIn(BuiltIn::FragDepth) => {
                            put_var(&mut b, var, l, [qi.frag_coord[i][2].to_bits()])
                        }
                        IoBinding::BuiltIn(BuiltIn::SampleMask) => {
                            put_var(&mut b, var, l, [qi.sample_mask[i]])
                        }
                        _ => {}
                    }
                }
            }
        }
        b.run(program, bindings, observer)?;
        for (q, qi) in chunk.iter().enumerate() {
            let mut o = FragQuadOutput {
                outputs: vec![0; stride * 4],
                ..Default::default()
            };
            for i in 0..4 {
                let l = q * 4 + i;
                read_locations(
                    &b,
                    &sh.outputs,
                    l,
                    &mut o.outputs[i * stride..(i + 1) * stride],
                );
                o.frag_depth[i] = qi.frag_coord[i][2];
                o.sample_mask[i] = qi.sample_mask[i];
                for var in &sh.outputs {
                    match var.binding {
                        IoBinding::BuiltIn(BuiltIn::FragDepth) => {
                            if let Some(v) = get_var(&b, var, l).next() {
                                o.frag_depth[i] = f32::from_bits(v);
                            }
                        }
                        IoBinding::BuiltIn(BuiltIn::SampleMask) => {
                            if let Some(v) = get_var(&b, var, l).next() {
                                o.sample_mask[i] = v;
                            }
                        }
                        _ => {}
                    }
                }
                o.discarded[i] = b.killed[l] || b.demoted[l];
                o.helper[i] = b.helper[l];
            }
            out.push(o);
        }
    }
    Ok(out)
}

thread_local! {
    /// The fragment batch reused by [`run_fragment_rows`] on each thread (rasterizer tile
    /// workers), so shading a batch allocates nothing once the buffers have grown.
    static FRAG_SCRATCH: RefCell<Batch> = RefCell::new(Batch::new());
}

/// Where a fragment shader's interface words live in row form: its own Local words, one row
/// of lanes each (`rows` = the shader's Local words). Inputs: every word of a Location input
/// variable that some instruction loads, under its location and component; colours: attachment `a` is location `a` of the
/// location-keyed outputs ([`location_stride`] of them), the last output declared over a
/// component giving its row (none, or a word past Local memory: 0). The second colour of
/// dual-source blending is not an output of the interpreter (0).
pub fn fragment_row_layout(program: &Program) -> RowLayout {
    let sh = &program.shader;
    let lw = sh.local_words as usize;
    let row = |w: usize| (w < lw).then_some(w as u32);
    let mut inputs: Vec<(u32, [Option<u32>; 4])> = Vec::new();
    for var in &sh.inputs {
        let IoBinding::Location {
            location,
            component,
        } = var.binding
        else {
            continue;
        };
        let base = location as usize * 4 + component as usize;
        // one entry per location the variable spans
        let mut entry: Option<(u32, [Option<u32>; 4])> = None;
        for i in 0..var.count as usize * words_per_scalar(var) {
            let (loc, c) = (((base + i) / 4) as u32, (base + i) % 4);
            let e = match entry {
                Some(ref mut e) if e.0 == loc => e,
                _ => {
                    inputs.extend(entry.take());
                    entry.insert((loc, [None; 4]))
                }
            };
            // a word no instruction loads needs no row (`Program::row_unread`)
            let w = var.word as usize + i;
            e.1[c] = row(w).filter(|&w| !program.row_unread.contains(&w));
        }
        inputs.extend(entry);
    }
    let mut colors = vec![[None; 4]; location_stride(&sh.outputs) / 4];
    for var in &sh.outputs {
        let IoBinding::Location {
            location,
            component,
        } = var.binding
        else {
            continue;
        };
        let base = location as usize * 4 + component as usize;
        for i in 0..var.count as usize * words_per_scalar(var) {
            if let Some(att) = colors.get_mut((base + i) / 4) {
                att[(base + i) % 4] = row(var.word as usize + i);
            }
        }
    }
    // outputs the row form reads from an input's row (`Program::row_alias`)
    for w in colors.iter_mut().flatten().flatten() {
        if let Some(&(_, w_in)) = program.row_alias.iter().find(|a| a.0 == *w) {
            *w = w_in;
        }
    }
    RowLayout {
        rows: lw,
        inputs,
        colors,
        color1: [None; 4],
    }
}

/// Shade one rasterizer batch in row form ([`fragment_row_layout`]'s): `batch.rows` becomes
/// the interpreter's per-lane memory for the run (swapped in and out, not copied), so the
/// interpolated inputs are read and the colours written where the rasterizer has them. The
/// batch is one interpreter batch whatever its size.
///
/// Same results as [`run_fragment_quads`] on the equivalent [`FragQuadInput`]s (the per-quad
/// path is kept as the independent form tests compare against), with `FrontFacing` and
/// `PrimitiveId` taken from lane 0 of each quad, `SampleId` 0 and `SampleMask` 1; `depth[lane]`
/// gets the written FragDepth (if the shader has that output), `killed[q]` the killed or
/// demoted lanes. Rows of the layout's inputs must hold every lane's value; the shader's other
/// words are the interpreter's.
pub fn run_fragment_rows(
    program: &Program,
    batch: &mut RowBatch,
    bindings: &Bindings,
) -> Result<()> {
    run_fragment_rows_observed(program, batch, bindings, &mut NoObserver)
}

/// [`run_fragment_rows`] with an observer (which sees every instruction run, also where a
/// pass-through shader's row form would run none).
pub fn run_fragment_rows_observed<O: Observer>(
    program: &Program,
    batch: &mut RowBatch,
    bindings: &Bindings,
    observer: &mut O,
) -> Result<()> {
    check_stage(program, Stage::Fragment)?;
    let (quads, lanes) = (batch.quads, batch.lanes());
    let short = batch.frag_coord.len() < lanes
        || batch.front_facing.len() < lanes
        || batch.primitive_id.len() < lanes
        || batch.point_coord.len() < lanes
        || batch.coverage.len() < quads
        || batch.depth.len() < lanes
        || batch.killed.len() < quads;
    if short {
        return Err(Error::Exec(format!(
            "exec/entry.rs: run_fragment_rows: a RowBatch array is shorter than its {quads} \
             quads ({lanes} lanes)"
        )));
    }
    let words = program.shader.local_words as usize;
    if batch.rows.len() != words * lanes {
        return Err(Error::Exec(format!(
            "exec/entry.rs: run_fragment_rows: {} row words for {words} rows of {lanes} lanes",
            batch.rows.len()
        )));
    }
    if !observer.wants_insts() && fragment_rows_run_nothing(program) {
        // Nothing to run (a pass-through shader whose outputs are read from its inputs'
        // rows): only the words the run would have zeroed, and no scratch batch to borrow
        // (a reset, a run and a thread-local borrow would each cost more than this).
        let n = lanes;
        for &(w, count) in &program.zero_rows {
            zero(&mut batch.rows[w as usize * n..][..count as usize * n]);
        }
        batch.killed[..quads].fill(0);
        return Ok(());
    }
    FRAG_SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut b) => frag_rows(program, batch, bindings, &mut b, observer),
        // Re-entered on this thread (an image unit shading fragments?): a private batch.
        Err(_) => frag_rows(program, batch, bindings, &mut Batch::new(), observer),
    })
}

/// Whether [`run_fragment_rows`] runs nothing for `program` (a pass-through shader whose
/// outputs are read from its inputs' rows, within its budget): then it reads no bindings, and a
/// caller may pass `Bindings::default()` instead of building them per batch.
pub fn fragment_rows_run_nothing(program: &Program) -> bool {
    program
        .row_noop_cost
        .is_some_and(|cost| cost <= program.budget)
}

/// [`run_fragment_rows`] on `b`, with `batch.rows` as its Local memory for the run.
fn frag_rows<O: Observer>(
    p: &Program,
    batch: &mut RowBatch,
    bindings: &Bindings,
    b: &mut Batch,
    observer: &mut O,
) -> Result<()> {
    let (quads, n) = (batch.quads, batch.lanes());
    let coverage = &batch.coverage[..quads];
    // every quad has a covered (non-helper) lane (a branch-free fold: `all` stops early and
    // tests each quad on its own)
    let live = coverage.iter().fold(true, |l, &cov| l & (cov & 0xf != 0));
    b.reset_frag(p, n, live);
    std::mem::swap(&mut b.local, &mut batch.rows);
    std::mem::swap(&mut b.planes, &mut batch.planes);
    b.samples = batch.samples;
    b.row_form = true;
    let result = frag_rows_run(p, batch, bindings, b, observer);
    b.row_form = false;
    std::mem::swap(&mut b.local, &mut batch.rows);
    std::mem::swap(&mut b.planes, &mut batch.planes);
    result
}

fn frag_rows_run<O: Observer>(
    p: &Program,
    batch: &mut RowBatch,
    bindings: &Bindings,
    b: &mut Batch,
    observer: &mut O,
) -> Result<()> {
    let sh = &p.shader;
    let (quads, n, lw) = (batch.quads, b.n, b.local_words);
    for &(w, count) in &p.zero_rows {
        zero(&mut b.local[w as usize * n..][..count as usize * n]);
    }
    // a quad's four flags as one `[bool; 4]`: the coverage bits spread to the bytes of a word
    // (bit k to bit 8k) and inverted: one multiply and mask, not four compare-and-stores
    let helper = b.helper.as_chunks_mut::<4>().0;
    for (h, &cov) in helper.iter_mut().zip(&batch.coverage) {
        let spread = ((cov & 0xf) as u32).wrapping_mul(0x0020_4081) & 0x0101_0101;
        *h = (spread ^ 0x0101_0101).to_le_bytes().map(|b| b != 0);
    }
    // The inputs are in place; then the built-ins and the outputs that start with a value
    // (the order of the per-quad path, which matters only if words overlap), out of line:
    // their loops' setup is not paid by shaders that have none.
    let builtin = |v: &IoVar| matches!(v.binding, IoBinding::BuiltIn(_));
    let frag_depth = if sh.inputs.iter().chain(&sh.outputs).any(builtin) {
        frag_builtins(p, batch, b)
    } else {
        None
    };

    b.run(p, bindings, observer)?;

    // The SampleMask output (its first word: up to 32 samples), for the rasterizer.
    let mask_word = sh.outputs.iter().rev().find_map(|v| {
        (v.count > 0 && v.binding == IoBinding::BuiltIn(BuiltIn::SampleMask))
            .then_some(v.word as usize)
    });
    if let Some(w) = mask_word.filter(|&w| w < lw) {
        batch.sample_mask_out.resize(n, 0);
        batch.sample_mask_out[..n].copy_from_slice(&b.local[w * n..][..n]);
    }
    // The last FragDepth output declared (as the per-quad path reads them).
    match frag_depth {
        Some(w) if w < lw => {
            for (d, &s) in batch.depth[..n].iter_mut().zip(&b.local[w * n..][..n]) {
                *d = f32::from_bits(s);
            }
        }
        Some(_) => batch.depth[..n].fill(0.0),
        None => {}
    }
    let killed = &mut batch.killed[..quads];
    if !p.discards {
        // no reachable kill or demote in the program: nothing to collect
        killed.fill(0);
        return Ok(());
    }
    for (q, k) in killed.iter_mut().enumerate() {
        let mut bits = 0;
        for i in 0..4 {
            let l = q * 4 + i;
            if b.killed[l] || b.demoted[l] {
                bits |= 1 << i;
            }
        }
        *k = bits;
    }
    Ok(())
}

/// The built-in inputs and the outputs that start with a value (FragDepth: the interpolated
/// depth; SampleMask: 1) into their words; returns the word of the last FragDepth output.
#[inline(never)]
fn frag_builtins(p: &Program, batch: &RowBatch, b: &mut Batch) -> Option<usize> {
    let sh = &p.shader;
    let (n, lw) = (b.n, b.local_words);
    for var in &sh.inputs {
        let IoBinding::BuiltIn(bi) = var.binding else {
            continue;
        };
        if !matches!(
            bi,
            BuiltIn::FragCoord
                | BuiltIn::FrontFacing
                | BuiltIn::PrimitiveId
                | BuiltIn::PointCoord
                | BuiltIn::SampleId
                | BuiltIn::SampleMask
                | BuiltIn::SamplePosition
                | BuiltIn::Layer
                | BuiltIn::ViewportIndex
        ) {
            continue;
        }
        for i in 0..(var.count as usize * words_per_scalar(var)).min(4) {
            let w = var.word as usize + i;
            if w >= lw {
                continue;
            }
            let dst = &mut b.local[w * n..][..n];
            for (l, d) in dst.iter_mut().enumerate() {
                let quad_lane0 = l / 4 * 4;
                *d = match (bi, i) {
                    (BuiltIn::FragCoord, _) => batch.frag_coord[l][i].to_bits(),
                    (BuiltIn::FrontFacing, 0) => batch.front_facing[quad_lane0] as u32,
                    (BuiltIn::PrimitiveId, 0) => batch.primitive_id[quad_lane0],
                    (BuiltIn::PointCoord, 0 | 1) => batch.point_coord[l][i].to_bits(),
                    // the per-sample path fills these; a single-sample pixel batch has one
                    // sample, 0, covered by every covered lane
                    (BuiltIn::SampleId, 0) => batch.sample_id.get(l).copied().unwrap_or(0),
                    (BuiltIn::SampleMask, 0) => batch.sample_mask.get(l).copied().unwrap_or(1),
                    (BuiltIn::Layer, 0) => batch.layer.get(l).copied().unwrap_or(0),
                    (BuiltIn::ViewportIndex, 0) => batch.viewport.get(l).copied().unwrap_or(0),
                    (BuiltIn::SamplePosition, 0 | 1) => {
                        let s = batch.sample_id.get(l).copied().unwrap_or(0);
                        crate::stage::sample_locations::location(batch.samples, s)[i].to_bits()
                    }
                    _ => 0,
                };
            }
        }
    }
    let mut frag_depth = None;
    for var in &sh.outputs {
        let w = var.word as usize;
        if var.count > 0 && var.binding == IoBinding::BuiltIn(BuiltIn::FragDepth) {
            frag_depth = Some(w);
        }
        if var.count == 0 || w >= lw {
            continue;
        }
        let dst = &mut b.local[w * n..][..n];
        match var.binding {
            IoBinding::BuiltIn(BuiltIn::FragDepth) => {
                for (d, fc) in dst.iter_mut().zip(&batch.frag_coord[..n]) {
                    *d = fc[2].to_bits();
                }
            }
            // the samples the invocation covers (the mask is undefined until written)
            IoBinding::BuiltIn(BuiltIn::SampleMask) => {
                for (l, d) in dst.iter_mut().enumerate() {
                    *d = batch.sample_mask.get(l).copied().unwrap_or(1);
                }
            }
            _ => {}
        }
    }

    frag_depth
}

/// Per-vertex built-in inputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VertexIds {
    pub vertex_index: u32,
    pub instance_index: u32,
    pub base_vertex: u32,
    pub base_instance: u32,
    pub draw_index: u32,
}

/// Vertex shader results, vertex-major.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VertexOutputs {
    /// Words per vertex of `varyings` (`location_stride(&shader.outputs)`).
    pub stride: usize,
    /// `varyings[v * stride + location * 4 + component]`.
    pub varyings: Vec<u32>,
    pub position: Vec<[f32; 4]>,
    /// 1.0 unless written.
    pub point_size: Vec<f32>,
    /// Clip / cull distances per vertex: `clip_distances[v * clip_count + i]`.
    pub clip_count: usize,
    pub clip_distances: Vec<f32>,
    pub cull_count: usize,
    pub cull_distances: Vec<f32>,
}

/// Run the vertex shader for every vertex; `attributes[v * attr_stride + location * 4 +
/// component]` are the input attribute words. Batches of 64 vertices, on the calling thread.
pub fn run_vertex(
    program: &Program,
    vertices: &[VertexIds],
    attributes: &[u32],
    attr_stride: usize,
    bindings: &Bindings,
) -> Result<VertexOutputs> {
    // One batch per thread, reused: a fresh batch per call (the rasterizer calls once per 64
    // vertices) spent ~19 000 instructions growing and zeroing its rows, half the vertex
    // stage's cost for a pass-through shader.
    VERTEX_SCRATCH.with(|cell| {
        let (mut own, mut shared);
        let b: &mut Batch = match cell.try_borrow_mut() {
            Ok(b) => {
                shared = b;
                &mut shared
            }
            Err(_) => {
                own = Batch::new();
                &mut own
            }
        };
        vertex_lanes(
            program,
            vertices,
            attributes,
            attr_stride,
            bindings,
            b,
            &mut NoObserver,
        )
    })
}

thread_local! {
    /// The batch [`run_vertex`] reuses on each thread (the vertex shading jobs' threads).
    static VERTEX_SCRATCH: RefCell<Batch> = RefCell::new(Batch::new());
}

/// [`run_vertex`] with an observer.
pub fn run_vertex_observed<O: Observer>(
    program: &Program,
    vertices: &[VertexIds],
    attributes: &[u32],
    attr_stride: usize,
    bindings: &Bindings,
    observer: &mut O,
) -> Result<VertexOutputs> {
    let mut b = Batch::new();
    vertex_lanes(
        program,
        vertices,
        attributes,
        attr_stride,
        bindings,
        &mut b,
        observer,
    )
}

/// The vertex stage on `b`, which [`Batch::reset`] makes as good as new for each chunk.
fn vertex_lanes<O: Observer>(
    program: &Program,
    vertices: &[VertexIds],
    attributes: &[u32],
    attr_stride: usize,
    bindings: &Bindings,
    b: &mut Batch,
    observer: &mut O,
) -> Result<VertexOutputs> {
    check_stage(program, Stage::Vertex)?;
    let sh = &program.shader;
    let stride = location_stride(&sh.outputs);
    let count_of = |bi: BuiltIn| {
        sh.outputs
            .iter()
            .filter(|v| v.binding == IoBinding::BuiltIn(bi))
            .map(|v| v.count as usize)
            .sum::<usize>()
    };
    let nv = vertices.len();
    let mut o = VertexOutputs {
        stride,
        varyings: vec![0; stride * nv],
        position: vec![[0.0; 4]; nv],
        point_size: vec![1.0; nv],
        clip_count: count_of(BuiltIn::ClipDistance),
        cull_count: count_of(BuiltIn::CullDistance),
        ..Default::default()
    };
    o.clip_distances = vec![0.0; o.clip_count * nv];
    o.cull_distances = vec![0.0; o.cull_count * nv];
    for (c, chunk) in vertices.chunks(VERTEX_LANES_PER_BATCH).enumerate() {
        b.reset(program, chunk.len());
        for l in chunk.len()..b.n {
            b.pc[l] = DONE;
        }
        // The interface word by word over the chunk's lanes (one row each), in the order a
        // lane sees it: locations, built-ins, then outputs that start with a value (not a walk
        // of every variable per lane, which a pass-through shader would pay per vertex).
        let (n, lw, nl) = (b.n, b.local_words, chunk.len());
        let v0 = c * VERTEX_LANES_PER_BATCH;
        for var in &sh.inputs {
            match var.binding {
                IoBinding::Location {
                    location,
                    component,
                } => {
                    let base = location as usize * 4 + component as usize;
                    for i in 0..var.count as usize * words_per_scalar(var) {
                        let w = var.word as usize + i;
                        if w >= lw {
                            continue;
                        }
                        for (j, d) in b.local[w * n..][..nl].iter_mut().enumerate() {
                            // a vertex without a whole attribute record reads zeros
                            let v = v0 + j;
                            *d = if base + i < attr_stride
                                && (v + 1) * attr_stride <= attributes.len()
                            {
                                attributes[v * attr_stride + base + i]
                            } else {
                                0
                            };
                        }
                    }
                }
                IoBinding::BuiltIn(bi) => {
                    let id: fn(&VertexIds) -> u32 = match bi {
                        BuiltIn::VertexIndex => |v| v.vertex_index,
                        BuiltIn::InstanceIndex => |v| v.instance_index,
                        BuiltIn::BaseVertex => |v| v.base_vertex,
                        BuiltIn::BaseInstance => |v| v.base_instance,
                        BuiltIn::DrawIndex => |v| v.draw_index,
                        _ => continue,
                    };
                    let w = var.word as usize;
                    if var.count == 0 || w >= lw {
                        continue;
                    }
                    for (d, ids) in b.local[w * n..][..nl].iter_mut().zip(chunk) {
                        *d = id(ids);
                    }
                }
            }
        }
        for var in &sh.outputs {
            let w = var.word as usize;
            if var.binding == IoBinding::BuiltIn(BuiltIn::PointSize) && var.count > 0 && w < lw {
                b.local[w * n..][..nl].fill(1.0f32.to_bits());
            }
        }
        b.run(program, bindings, observer)?;
        // Word `i` of `var` in every lane of the chunk (0 beyond local memory).
        let row = |var: &IoVar, i: usize| -> Option<&[u32]> {
            let w = var.word as usize + i;
            (w < lw).then(|| &b.local[w * n..][..nl])
        };
        let (mut ci, mut ki) = (0, 0);
        for var in &sh.outputs {
            let words = var.count as usize * words_per_scalar(var);
            match var.binding {
                IoBinding::Location {
                    location,
                    component,
                } => {
                    let base = location as usize * 4 + component as usize;
                    for i in 0..words.min(stride.saturating_sub(base)) {
                        let dst = o.varyings[v0 * stride..(v0 + nl) * stride]
                            .iter_mut()
                            .skip(base + i)
                            .step_by(stride);
                        match row(var, i) {
                            Some(src) => dst.zip(src).for_each(|(d, &s)| *d = s),
                            None => dst.for_each(|d| *d = 0),
                        }
                    }
                }
                IoBinding::BuiltIn(BuiltIn::Position) => {
                    for k in 0..words.min(4) {
                        let dst = o.position[v0..v0 + nl].iter_mut();
                        match row(var, k) {
                            Some(src) => dst.zip(src).for_each(|(d, &s)| d[k] = f32::from_bits(s)),
                            None => dst.for_each(|d| d[k] = 0.0),
                        }
                    }
                }
                IoBinding::BuiltIn(BuiltIn::PointSize) => {
                    let dst = o.point_size[v0..v0 + nl].iter_mut();
                    match (words, row(var, 0)) {
                        (0, _) => dst.for_each(|d| *d = 1.0),
                        (_, Some(src)) => dst.zip(src).for_each(|(d, &s)| *d = f32::from_bits(s)),
                        (_, None) => dst.for_each(|d| *d = 0.0),
                    }
                }
                IoBinding::BuiltIn(bi @ (BuiltIn::ClipDistance | BuiltIn::CullDistance)) => {
                    let (count, next, out) = if bi == BuiltIn::ClipDistance {
                        (o.clip_count, &mut ci, &mut o.clip_distances)
                    } else {
                        (o.cull_count, &mut ki, &mut o.cull_distances)
                    };
                    for i in 0..words.min(count.saturating_sub(*next)) {
                        let dst = out[v0 * count..(v0 + nl) * count]
                            .iter_mut()
                            .skip(*next)
                            .step_by(count);
                        match row(var, i) {
                            Some(src) => dst.zip(src).for_each(|(d, &s)| *d = f32::from_bits(s)),
                            None => dst.for_each(|d| *d = 0.0),
                        }
                        *next += 1;
                    }
                }
                _ => {}
            }
        }
    }
    Ok(o)
}

/// A batch of lanes driven directly (tests, the debugger, custom glue): set per-lane memory
/// and helper flags, run, read registers and memory. Lane `4k + i` is lane `i` of quad `k`.
pub struct BatchState {
    b: Batch,
}

impl BatchState {
    /// `lanes` lanes (rounded up to whole quads; the extra lanes do not run), all waiting at
    /// the entry block, registers zero except constants, memory zero.
    pub fn new(program: &Program, lanes: usize) -> Self {
        let mut b = Batch::new();
        b.reset(program, lanes);
        b.fill_consts(program);
        for l in lanes..b.n {
            b.pc[l] = DONE;
        }
        BatchState { b }
    }
    /// Lanes in the batch (a multiple of 4).
    pub fn lanes(&self) -> usize {
        self.b.n
    }
    /// Per-lane (Local) memory word; out-of-range reads 0, writes are dropped.
    pub fn local(&self, lane: usize, word: u32) -> u32 {
        let w = word as usize;
        if lane < self.b.n && w < self.b.local_words {
            self.b.local[w * self.b.n + lane]
        } else {
            0
        }
    }
    pub fn set_local(&mut self, lane: usize, word: u32, value: u32) {
        let w = word as usize;
        if lane < self.b.n && w < self.b.local_words {
            self.b.local[w * self.b.n + lane] = value;
        }
    }
    /// Workgroup memory words.
    pub fn workgroup(&mut self) -> &mut [u32] {
        &mut self.b.workgroup
    }
    pub fn set_helper(&mut self, lane: usize, helper: bool) {
        if lane < self.b.n {
            self.b.helper[lane] = helper;
        }
    }
    /// Exclude a lane from the run (it never executes; its registers stay zero/constant).
    pub fn disable(&mut self, lane: usize) {
        if lane < self.b.n {
            self.b.pc[lane] = DONE;
        }
    }
    pub fn run(&mut self, program: &Program, bindings: &Bindings) -> Result<()> {
        self.b.run(program, bindings, &mut NoObserver)
    }
    pub fn run_observed<O: Observer>(
        &mut self,
        program: &Program,
        bindings: &Bindings,
        obs: &mut O,
    ) -> Result<()> {
        self.b.run(program, bindings, obs)
    }
    /// Raw bits of register `r` in `lane` (zero-extended; 0 if out of range).
    pub fn reg(&self, program: &Program, r: crate::ir::Reg, lane: usize) -> u64 {
        match program.slots.get(r as usize) {
            Some(&(w, s)) if lane < self.b.n => self.b.get(w, s, lane),
            _ => 0,
        }
    }
    pub fn helper(&self, lane: usize) -> bool {
        self.b.helper.get(lane).copied().unwrap_or(false)
    }
    pub fn demoted(&self, lane: usize) -> bool {
        self.b.demoted.get(lane).copied().unwrap_or(false)
    }
    /// Terminated by a Kill terminator.
    pub fn killed(&self, lane: usize) -> bool {
        self.b.killed.get(lane).copied().unwrap_or(false)
    }
}
