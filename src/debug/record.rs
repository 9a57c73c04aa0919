//! The interpreter observer that records what some quads of one batch did: each block they
//! entered and each instruction they ran, with the four lanes' states, the values written
//! and the operand values read, and for an image instruction the operands, results and what
//! the image glue says is bound there.
//!
//! It keeps nothing but its quads' lanes, so watching a 64-quad batch costs about what
//! watching one quad does. Operand values are the registers before the instruction: the
//! executor reports registers after it, so the recorder remembers the last value it saw of
//! each register the quad wrote, which is what an operand that is also the destination
//! (`acc = acc + x`) held before.

use std::collections::HashMap;

use super::trace::{ImageStep, LaneState};
use crate::exec::{ImageEvent, InstEvent, LaneValues, Observer};
use crate::ir::opt::walk::{defs, for_each_use};
use crate::ir::{BlockId, Inst, Reg};
use crate::pipeline::ShaderImages;

/// What the recorder saw one quad do.
#[derive(Clone, Debug)]
pub(crate) enum Event {
    /// A block started with these lanes of the quad running.
    Block {
        id: BlockId,
        active: [bool; 4],
    },
    Inst(Box<Rec>),
}

/// One instruction the quad ran.
#[derive(Clone, Debug)]
pub(crate) struct Rec {
    pub block: BlockId,
    pub inst: Inst,
    pub lanes: [LaneState; 4],
    /// Values written, in the order of `walk::defs`.
    pub dst: Vec<(Reg, [u64; 4])>,
    /// Values read before it ran, in the order of `walk::for_each_use`.
    pub src: Vec<(Reg, [u64; 4])>,
    pub image: Option<ImageStep>,
}

/// One watched quad.
struct Watched {
    quad: usize,
    events: Vec<Event>,
    /// The last values the quad's instructions wrote to each register.
    written: HashMap<Reg, [u64; 4]>,
    pending_image: Option<ImageStep>,
    truncated: bool,
}

/// Records the quads `quads` of a batch (see the module documentation).
pub(crate) struct Recorder<'a> {
    watched: Vec<Watched>,
    images: Option<&'a ShaderImages>,
    max_events: usize,
}

/// The four lanes of quad `q` of a register view.
fn quad_values(v: LaneValues<'_>, q: usize) -> [u64; 4] {
    std::array::from_fn(|i| match v {
        LaneValues::W32(s) => s.get(q * 4 + i).map_or(0, |&x| x as u64),
        LaneValues::W64(s) => s.get(q * 4 + i).copied().unwrap_or(0),
    })
}

/// The registers an instruction reads, in visiting order.
pub(crate) fn uses(inst: &Inst) -> Vec<Reg> {
    let mut out = Vec::new();
    for_each_use(&mut inst.clone(), &mut |r, _| out.push(*r));
    out
}

impl<'a> Recorder<'a> {
    /// Watch `quads` (quad indices of the batch), at most `max_events` events each; image
    /// instructions are explained by `images`.
    pub fn new(quads: &[usize], images: Option<&'a ShaderImages>, max_events: usize) -> Self {
        Recorder {
            watched: quads
                .iter()
                .map(|&quad| Watched {
                    quad,
                    events: Vec::new(),
                    written: HashMap::new(),
                    pending_image: None,
                    truncated: false,
                })
                .collect(),
            images,
            max_events,
        }
    }

    /// The events of each watched quad, in the order given to [`Recorder::new`], and whether
    /// its recording stopped at the limit.
    pub fn finish(self) -> Vec<(Vec<Event>, bool)> {
        self.watched
            .into_iter()
            .map(|w| (w.events, w.truncated))
            .collect()
    }
}

impl Watched {
    fn push(&mut self, e: Event, max: usize) {
        if self.events.len() < max {
            self.events.push(e);
        } else {
            self.truncated = true;
        }
    }
}

impl Observer for Recorder<'_> {
    fn block(&mut self, block: BlockId, active: &[u32]) {
        let max = self.max_events;
        for w in &mut self.watched {
            let a: [bool; 4] =
                std::array::from_fn(|i| active.get(w.quad * 4 + i).is_some_and(|&m| m != 0));
            if a.iter().any(|&x| x) {
                w.push(
                    Event::Block {
                        id: block,
                        active: a,
                    },
                    max,
                );
            }
        }
    }

    fn inst(&mut self, ev: &InstEvent<'_>) {
        let max = self.max_events;
        for w in &mut self.watched {
            let q = w.quad;
            let flag = |v: &[bool], i: usize| v.get(q * 4 + i).copied().unwrap_or(false);
            let lanes: [LaneState; 4] = std::array::from_fn(|i| LaneState {
                active: ev.active.get(q * 4 + i).is_some_and(|&m| m != 0),
                helper: flag(ev.helper, i),
                demoted: flag(ev.demoted, i),
                killed: flag(ev.killed, i),
            });
            if !lanes.iter().any(|l| l.active) {
                continue;
            }
            if w.truncated {
                continue;
            }
            let dsts = defs(ev.inst);
            let now = |r: Reg| ev.regs.get(r).map_or([0; 4], |v| quad_values(v, q));
            let src = uses(ev.inst)
                .into_iter()
                .map(|r| {
                    let before = match w.written.get(&r) {
                        Some(v) if dsts.contains(&r) => *v,
                        _ => now(r),
                    };
                    (r, before)
                })
                .collect();
            let dst: Vec<(Reg, [u64; 4])> = dsts.iter().map(|&r| (r, now(r))).collect();
            for &(r, v) in &dst {
                w.written.insert(r, v);
            }
            let rec = Rec {
                block: ev.block,
                inst: ev.inst.clone(),
                lanes,
                dst,
                src,
                image: w.pending_image.take(),
            };
            w.push(Event::Inst(Box::new(rec)), max);
        }
    }

    fn image(&mut self, ev: &ImageEvent<'_>) {
        let images = self.images;
        for w in &mut self.watched {
            if ev.operands.quad as usize != w.quad || w.truncated {
                continue;
            }
            let bound = match images {
                Some(im) => im.explain(ev.inst, ev.operands).map_err(|e| e.to_string()),
                None => Err("no image unit to ask".to_string()),
            };
            w.pending_image = Some(ImageStep {
                operands: ev.operands.clone(),
                results: *ev.results,
                result_ty: ev.inst.result_ty,
                bound,
            });
        }
    }
}
