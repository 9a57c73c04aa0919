//! From recorded events to [`Step`]s: the IR instructions of one block execution are grouped
//! by the `Source` marker before them (one SPIR-V instruction each), named from the listing,
//! and checked by [`super::warn`]. A block that ends in a kill marks its running lanes as
//! killed at its last step, which the warnings about reading a lane past its `discard` name.

use super::listing::Listing;
use super::record::{Event, Rec};
use super::trace::{Step, Value};
use super::warn;
use crate::ir::{self, Inst, Reg, ScalarTy, Terminator};

/// What the steps are named and checked with.
pub(crate) struct Naming<'a> {
    /// The module's listing (None: a shader made from IR; steps show IR text).
    pub listing: Option<&'a Listing>,
    /// The IR the program runs (register types, block terminators).
    pub ir: &'a ir::Shader,
    /// Bytes of the buffer at (resource slot, element), when known.
    pub buffer_len: &'a dyn Fn(u32, u32) -> Option<u64>,
}

/// The steps of one quad's events.
pub(crate) fn steps(events: &[Event], n: &Naming<'_>) -> Vec<Step> {
    let regs = &n.ir.body.regs;
    let mut out: Vec<Step> = Vec::new();
    let mut open = false;
    // the register each value of the open step came from (None: a stored value)
    let mut from: Vec<Option<Reg>> = Vec::new();
    let mut killed_at: [Option<usize>; 4] = [None; 4];
    // the running block, if it ends in a kill, and its lanes
    let mut killing: Option<[bool; 4]> = None;
    for e in events {
        match e {
            Event::Block { id, active } => {
                open = false;
                if let (Some(act), Some(last)) = (killing.take(), out.len().checked_sub(1)) {
                    for (k, &a) in killed_at.iter_mut().zip(&act) {
                        if a && k.is_none() {
                            *k = Some(last);
                        }
                    }
                }
                let term = n.ir.body.blocks.get(*id as usize).map(|b| &b.term);
                if matches!(term, Some(Terminator::Kill { .. })) {
                    killing = Some(*active);
                }
            }
            Event::Inst(rec) => {
                if let Inst::Source { offset } = rec.inst {
                    out.push(new_step(out.len(), rec, Some(offset), n));
                    (open, from) = (true, Vec::new());
                    continue;
                }
                if !open {
                    out.push(new_step(out.len(), rec, None, n));
                    (open, from) = (true, Vec::new());
                }
                let step = out.last_mut().expect("a step is open");
                add(step, &mut from, rec, regs);
                let cx = warn::Context {
                    regs,
                    local_words: n.ir.local_words,
                    buffer_len: n.buffer_len,
                    killed_at,
                };
                let mut w = warn::check(rec, &cx);
                // a killed lane's own results are dropped: only its neighbours' matter
                w.retain(|w| killed_at[w.lane].is_none());
                step.warnings.extend(w);
                if rec.image.is_some() {
                    step.image = rec.image.clone();
                }
            }
        }
    }
    out
}

fn new_step(index: usize, rec: &Rec, offset: Option<u32>, n: &Naming<'_>) -> Step {
    let listed = offset.and_then(|o| n.listing?.get(o));
    let text = match (listed, offset) {
        (Some(l), _) => l.text.clone(),
        (None, Some(o)) => format!("(source instruction {o})"),
        (None, None) => "(no source instruction)".to_string(),
    };
    Step {
        index,
        block: rec.block,
        offset,
        text,
        line: listed.and_then(|l| l.line.clone()),
        writes: listed.map(|l| l.writes.clone()).unwrap_or_default(),
        lanes: rec.lanes,
        values: Vec::new(),
        ir: Vec::new(),
        image: None,
        warnings: Vec::new(),
    }
}

/// One IR instruction's results (a store: the stored value) into its step. A step shows
/// what its source instruction produced, so a value a later IR instruction of the same step
/// reads (an address, a partial sum of a dot product) is dropped from it; `from` names each
/// value's register.
fn add(step: &mut Step, from: &mut Vec<Option<Reg>>, rec: &Rec, regs: &[ScalarTy]) {
    step.ir.push(ir::print_inst(&rec.inst));
    let live = |v: [u64; 4]| std::array::from_fn(|l| rec.lanes[l].active.then_some(v[l]));
    let read = |r: &Option<Reg>| r.is_some_and(|r| rec.src.iter().any(|s| s.0 == r));
    let mut k = 0;
    step.values.retain(|_| {
        k += 1;
        !read(&from[k - 1])
    });
    from.retain(|r| !read(r));
    match &rec.inst {
        Inst::Store { ty, .. } => {
            if let Some(&(_, v)) = rec.src.last() {
                step.values.push(Value {
                    ty: *ty,
                    lanes: live(v),
                });
                from.push(None);
            }
        }
        _ => {
            for &(r, v) in &rec.dst {
                step.values.push(Value {
                    ty: regs.get(r as usize).copied().unwrap_or(ScalarTy::I32),
                    lanes: live(v),
                });
                from.push(Some(r));
            }
        }
    }
}
