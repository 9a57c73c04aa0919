//! One debugging run of an Amber script: the [`RunHook`] that puts the traced stages in
//! place for the draws that can reach the target, runs a watched dispatch itself, reads the
//! traced pixel back after each draw, and keeps the traces.
//!
//! Without `--draw`, every draw and dispatch that reaches the target is traced (only its
//! target's batch is watched, so this costs little) and the traces of the latest one are
//! kept: the pixel's final state is usually the last draw's doing. Fragment traces of one
//! draw come from one tile, shaded by one thread in primitive order, and vertex traces are
//! kept by the lowest instance, so what is kept never depends on the thread count.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::listing::Listing;
use super::record::Event;
use super::stages::{TracedFragment, TracedVertex};
use super::steps::{steps, Naming};
use super::trace::{Crop, FragmentResult, LanePlace, Target, Trace};
use crate::amber::{Command, HookStages, RunHook};
use crate::exec::{self, Discard};
use crate::ir::{IoBinding, ScalarTy, Stage};
use crate::limits::Limits;
use crate::pipeline::{self, BoundStage, Descriptor, DescriptorSets, Shader, ShaderImages};
use crate::raster::{ColorClass, RenderTargets, VertexBatch};
use crate::stage::{RowBatch, RowLayout};
use crate::texture::Config;
use crate::Result;

/// What to trace.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub target: Target,
    /// Only this draw or dispatch command (0-based, in the order the script runs them).
    pub draw: Option<usize>,
    /// Instructions recorded per quad at most (the run goes on past it, untraced).
    pub max_steps: usize,
    /// The run's discard reading (recorded in the traces).
    pub discard: Discard,
}

impl Request {
    /// Trace `target` in every draw or dispatch that reaches it, up to a million instructions.
    pub fn new(target: Target) -> Request {
        Request {
            target,
            draw: None,
            max_steps: 1_000_000,
            discard: Discard::default(),
        }
    }
}

/// Whether a new trace is better than the one kept (`Session::keep`).
type Better<'a> = dyn Fn(&Trace, &Trace) -> bool + 'a;

/// Half the side of the square of pixels around the target kept for the HTML page.
const CROP_RADIUS: u32 = 7;

#[derive(Default)]
struct State {
    traces: Vec<Trace>,
    /// (command index, line) of every draw or dispatch that reached the target.
    reached: Vec<(usize, usize)>,
}

/// A debugging run in progress (see the module documentation).
pub struct Session {
    request: Request,
    /// Listings by the address of the shader's SPIR-V words or DXIL container.
    listings: Mutex<HashMap<usize, Arc<Listing>>>,
    state: Mutex<State>,
}

/// Bytes of the buffer bound at (resource slot, element) of `shader` in `sets`.
fn buffer_len(shader: &Shader, sets: &DescriptorSets, slot: u32, index: u32) -> Option<u64> {
    let r = shader.ir().resources.get(slot as usize)?;
    match sets.lookup(r)?.get(index as usize)? {
        Descriptor::Buffer(b) => Some(b.len() as u64),
        _ => None,
    }
}

impl Session {
    pub fn new(request: Request) -> Session {
        Session {
            request,
            listings: Mutex::new(HashMap::new()),
            state: Mutex::new(State::default()),
        }
    }

    pub(crate) fn max_events(&self) -> usize {
        self.request.max_steps
    }

    /// The traces kept, and the (command index, line) of every command that reached the
    /// target.
    pub fn finish(&self) -> (Vec<Trace>, Vec<(usize, usize)>) {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let s = std::mem::take(&mut *s);
        (s.traces, s.reached)
    }

    fn wants(&self, command: &Command) -> bool {
        self.request.draw.is_none_or(|d| d == command.index)
    }

    fn listing(&self, shader: &Shader) -> Option<Arc<Listing>> {
        let key = match (shader.spirv(), shader.dxil()) {
            (Some(words), _) => words.as_ptr() as usize,
            (None, Some((bytes, _))) => bytes.as_ptr() as usize,
            (None, None) => return None,
        };
        let mut cache = self.listings.lock().ok()?;
        if let Some(l) = cache.get(&key) {
            return Some(l.clone());
        }
        let listed = match (shader.spirv(), shader.dxil()) {
            (Some(words), _) => Listing::new(words),
            (None, Some((bytes, entry))) => Listing::from_dxil(bytes, entry),
            (None, None) => return None,
        };
        let l = Arc::new(listed.ok()?);
        cache.insert(key, l.clone());
        Some(l)
    }

    /// A trace of `events` (one quad of `shader`'s batch).
    #[allow(clippy::too_many_arguments)]
    fn trace(
        &self,
        command: &Command,
        shader: &Shader,
        sets: &DescriptorSets,
        lane: usize,
        places: [LanePlace; 4],
        (events, truncated): (Vec<Event>, bool),
        fragment: Option<FragmentResult>,
    ) -> Trace {
        let listing = self.listing(shader);
        let len = |slot, index| buffer_len(shader, sets, slot, index);
        let naming = Naming {
            listing: listing.as_deref(),
            ir: shader.ir(),
            buffer_len: &len,
        };
        Trace {
            target: self.request.target,
            stage: shader.stage(),
            entry: shader.ir().name.clone(),
            draw: command.index,
            line: command.line,
            pipeline: command.pipeline.clone(),
            attachments: command.attachments.clone(),
            lane,
            instance: None,
            places,
            steps: steps(&events, &naming),
            truncated,
            fragment,
            discard: self.request.discard,
        }
    }

    /// Keep `new` traces of `command`, which replace older commands' traces. With `better`,
    /// the command has one trace: a new one replaces it only if `better(new, old)` (batches
    /// that may arrive in any order); otherwise they add up in arrival order.
    fn keep(&self, command: &Command, new: Vec<Trace>, better: Option<&Better<'_>>) {
        let Ok(mut s) = self.state.lock() else {
            return;
        };
        if !s.reached.iter().any(|r| r.0 == command.index) {
            s.reached.push((command.index, command.line));
        }
        s.traces.retain(|t| t.draw == command.index);
        for t in new {
            match (better, s.traces.first_mut()) {
                (Some(better), Some(old)) => {
                    if better(&t, old) {
                        *old = t;
                    }
                }
                _ => s.traces.push(t),
            }
        }
    }

    /// The pixel's quads of a fragment batch have run (`recorded`: their events).
    pub(crate) fn fragments(
        &self,
        command: &Command,
        stage: &BoundStage<'_>,
        layout: &RowLayout,
        batch: &RowBatch,
        quads: &[usize],
        recorded: Vec<(Vec<Event>, bool)>,
    ) {
        let Target::Pixel { x, y } = self.request.target else {
            return;
        };
        let lane = (x & 1) as usize + 2 * (y & 1) as usize;
        let lanes = batch.lanes();
        let mut traces = Vec::new();
        for (&q, rec) in quads.iter().zip(recorded) {
            let places = std::array::from_fn(|i| {
                let f = batch.frag_coord.get(q * 4 + i).copied().unwrap_or_default();
                LanePlace::Pixel {
                    x: f[0].floor() as i64,
                    y: f[1].floor() as i64,
                    covered: batch.coverage.get(q).is_some_and(|c| c & (1 << i) != 0),
                }
            });
            let outputs = layout
                .colors
                .iter()
                .map(|words| {
                    std::array::from_fn(|i| {
                        std::array::from_fn(|c| {
                            RowLayout::row(&batch.rows, words[c], lanes).map_or(0, |r| r[q * 4 + i])
                        })
                    })
                })
                .collect();
            let killed = batch.killed.get(q).copied().unwrap_or(0);
            let fragment = FragmentResult {
                outputs,
                output_types: output_types(stage.shader(), layout.colors.len()),
                discarded: std::array::from_fn(|i| killed & (1 << i) != 0),
                depth: std::array::from_fn(|i| batch.depth.get(q * 4 + i).copied().unwrap_or(0.0)),
                attachment: Vec::new(),
                around: None,
            };
            let (shader, sets) = (stage.shader(), stage.sets());
            traces.push(self.trace(command, shader, sets, lane, places, rec, Some(fragment)));
        }
        // one tile's batches arrive in primitive order: keep them all, in that order
        self.keep(command, traces, None);
    }

    /// The vertex's batch has run (`lane`: the vertex's lane in it).
    pub(crate) fn vertex(
        &self,
        command: &Command,
        stage: &BoundStage<'_>,
        input: &VertexBatch,
        lane: usize,
        mut recorded: Vec<(Vec<Event>, bool)>,
    ) {
        let Some(rec) = recorded.pop() else {
            return;
        };
        let q = lane / 4;
        let ids: [Option<u32>; 4] =
            std::array::from_fn(|i| input.vertex_index.get(q * 4 + i).copied());
        let places = ids.map(LanePlace::Vertex);
        let instance = input.instance_index.get(lane).copied().unwrap_or(0);
        let (shader, sets) = (stage.shader(), stage.sets());
        let mut t = self.trace(command, shader, sets, lane % 4, places, rec, None);
        t.instance = Some(instance);
        // batches run in parallel: the lowest instance wins, then the lowest neighbours
        let key = |t: &Trace| {
            let ids: Vec<Option<u32>> = t
                .places
                .iter()
                .map(|p| match p {
                    LanePlace::Vertex(v) => *v,
                    _ => None,
                })
                .collect();
            (t.instance, ids)
        };
        self.keep(command, vec![t], Some(&|new, old| key(new) < key(old)));
    }
}

/// The type of each colour output location `0..n` (F32 where none is declared).
fn output_types(shader: &Shader, n: usize) -> Vec<ScalarTy> {
    (0..n as u32)
        .map(|loc| {
            let outs = shader.ir().outputs.iter();
            outs.filter_map(|v| match v.binding {
                IoBinding::Location { location, .. } if location == loc => Some(v.ty),
                _ => None,
            })
            .next()
            .unwrap_or(ScalarTy::F32)
        })
        .collect()
}

/// The pixel's value in a colour attachment: floats, or integers as floats.
fn read_pixel(t: &crate::raster::ColorTarget, x: u32, y: u32) -> Option<[f64; 4]> {
    if x >= t.width || y >= t.height {
        return None;
    }
    Some(match ColorClass::of(t.format) {
        ColorClass::Uint => t.read_raw(x, y).map(|v| v as f64),
        ColorClass::Sint => t.read_raw(x, y).map(|v| v as i32 as f64),
        _ => t.read_f32(x, y).map(|v| v as f64),
    })
}

/// The square of pixels around (x, y) as RGBA8 (floats clamped to [0, 1], integers / 255).
fn crop(t: &crate::raster::ColorTarget, x: u32, y: u32) -> Crop {
    let x0 = x.saturating_sub(CROP_RADIUS);
    let y0 = y.saturating_sub(CROP_RADIUS);
    let x1 = (x + CROP_RADIUS + 1).min(t.width);
    let y1 = (y + CROP_RADIUS + 1).min(t.height);
    let mut rgba = Vec::new();
    for py in y0..y1 {
        for px in x0..x1 {
            let v = read_pixel(t, px, py).unwrap_or_default();
            let scale = if ColorClass::of(t.format).is_integer() {
                1.0 / 255.0
            } else {
                1.0
            };
            rgba.extend(v.map(|c| ((c * scale).clamp(0.0, 1.0) * 255.0).round() as u8));
        }
    }
    Crop {
        x: x0,
        y: y0,
        width: x1 - x0,
        height: y1.saturating_sub(y0),
        rgba,
    }
}

impl RunHook for Session {
    fn stages<'a>(
        &'a self,
        command: &Command,
        vertex: &'a BoundStage<'a>,
        fragment: Option<&'a BoundStage<'a>>,
    ) -> HookStages<'a> {
        let mut out = HookStages::default();
        if !self.wants(command) {
            return out;
        }
        match self.request.target {
            Target::Pixel { x, y } => {
                let (w, h) = command.framebuffer;
                if let Some(f) = fragment.filter(|_| x < w && y < h) {
                    out.fragment = Some(Box::new(TracedFragment {
                        inner: f,
                        session: self,
                        command: command.clone(),
                        pixel: (x, y),
                    }));
                }
            }
            Target::Vertex { index } => {
                out.vertex = Some(Box::new(TracedVertex {
                    inner: vertex,
                    session: self,
                    command: command.clone(),
                    index,
                }));
            }
            Target::Invocation { .. } => {}
        }
        out
    }

    fn after_draw(&self, command: &Command, targets: &RenderTargets) {
        let Target::Pixel { x, y } = self.request.target else {
            return;
        };
        let Ok(mut s) = self.state.lock() else {
            return;
        };
        for t in s.traces.iter_mut().filter(|t| t.draw == command.index) {
            if let Some(f) = &mut t.fragment {
                f.attachment = targets.color.iter().map(|c| read_pixel(c, x, y)).collect();
                f.around = targets.color.first().map(|c| crop(c, x, y));
            }
        }
    }

    fn dispatch(
        &self,
        command: &Command,
        shader: &Shader,
        groups: [u32; 3],
        sets: &DescriptorSets,
        config: Config,
        limits: &Limits,
    ) -> Option<Result<()>> {
        let Target::Invocation { x, y, z } = self.request.target else {
            return None;
        };
        if !self.wants(command) || shader.stage() != Stage::Compute {
            return None;
        }
        let size = shader.ir().workgroup_size;
        let gid = [x, y, z];
        let wg: [u32; 3] = std::array::from_fn(|k| gid[k] / size[k].max(1));
        if (0..3).any(|k| wg[k] >= groups[k]) {
            return None;
        }
        let local = std::array::from_fn(|k| gid[k] % size[k].max(1));
        let lane = exec::compute_lane(shader.program(), local)?;
        let watched = wg[0] as u64
            + wg[1] as u64 * groups[0] as u64
            + wg[2] as u64 * groups[0] as u64 * groups[1] as u64;
        let run = || -> Result<Trace> {
            let images = ShaderImages::new(shader.ir(), |r| sets.lookup(r), config)?;
            let max = self.max_events();
            let mut rec = super::record::Recorder::new(&[lane / 4], Some(&images), max);
            pipeline::dispatch_observed(shader, groups, sets, &images, limits, watched, &mut rec)?;
            let recorded = rec.finish().pop().unwrap_or_default();
            let places = std::array::from_fn(|i| {
                let id = exec::compute_local_id(shader.program(), lane / 4 * 4 + i);
                LanePlace::Invocation(id.map(|l| std::array::from_fn(|k| wg[k] * size[k] + l[k])))
            });
            Ok(self.trace(command, shader, sets, lane % 4, places, recorded, None))
        };
        Some(run().map(|t| self.keep(command, vec![t], None)))
    }
}
