//! Loop-invariant code motion: lane-wise computations whose operands no instruction of the
//! loop writes move to the loop's preheader, so they run once per loop entry instead of once
//! per iteration (`p * SCALE` in a sampling loop, address bases, constant folds the front end
//! left in the body).
//!
//! Only natural loops with a preheader are touched: a header `h` with back edges, and exactly
//! one predecessor `p` outside the loop whose only successor is `h`. The CFG is never changed
//! (block order decides the interpreter's reconvergence), so loops without such a `p` stay as
//! they are.
//!
//! Why the move preserves every result, for `d = op(a, b)` in the loop, with `d` written only
//! there, never read cross-lane, and every read of `d` dominated by the instruction:
//! - A lane that reads `d` ran `op` after its last pass through `p`: the path from the entry to
//!   `p` that avoids the loop (one exists: `p` dominates `h`, and every loop block is entered
//!   through `h`), followed by the lane's own path from `p` to the read, is a CFG path, so it
//!   contains `op`, which cannot be in the loop-free prefix. The operands are not written in
//!   the loop, so they held at that `op` the values they hold at the end of `p`: the hoisted
//!   `op` computes the same bits.
//! - Lanes that pass `p` but never run `op` now get `d` written; they never read it (above),
//!   and no neighbour reads it (not cross-lane).
//! - Lane operations are total (`exec::kernels`): running one in more lanes raises nothing.
//!
//! Loads of the lane's own Local words move too when no instruction of the loop may write
//! memory ([`super::walk::may_write_memory`]): the words hold at the preheader's end the
//! values they hold anywhere in the loop, and a Local load outside the lane's words reads zero
//! rather than failing, so running it in more lanes raises nothing either.
//!
//! Moved instructions take their `Source` marker with them, so the debugger still names the
//! line they came from.

use super::block::{is_lane_op, uses};
use super::walk::{cross_lane_regs, def_sites, defs, may_write_memory, Dom};
use crate::ir::*;

/// A loop: its blocks and its preheader.
struct Loop {
    blocks: Vec<bool>,
    pre: usize,
}

fn loops(f: &Function, dom: &Dom) -> Vec<Loop> {
    let n = f.blocks.len();
    let mut out = Vec::new();
    for h in 0..n {
        let latches: Vec<usize> = dom
            .preds(h)
            .iter()
            .copied()
            .filter(|&u| dom.dominates(h, u))
            .collect();
        if latches.is_empty() {
            continue;
        }
        // the natural loop: blocks reaching a latch without passing `h`
        let mut body = vec![false; n];
        body[h] = true;
        let mut stack = latches;
        while let Some(b) = stack.pop() {
            if !body[b] {
                body[b] = true;
                stack.extend(dom.preds(b).iter().copied());
            }
        }
        let outside: Vec<usize> = dom.preds(h).iter().copied().filter(|&p| !body[p]).collect();
        if let [p] = outside[..] {
            if dom.succ(p) == [h] {
                out.push(Loop {
                    blocks: body,
                    pre: p,
                });
            }
        }
    }
    out
}

/// Hoists invariant lane operations out of loops (see the module comment). Returns the
/// number of instructions moved.
pub fn hoist_invariants(f: &mut Function) -> usize {
    let mut total = 0;
    // each round moves the instructions whose operands became invariant in the last one
    for _ in 0..8 {
        let dom = Dom::new(f);
        let sites = def_sites(f);
        let cross = cross_lane_regs(f);
        // every read of every register: (block, index; index = length for the terminator)
        let mut reads: Vec<Vec<(usize, usize)>> = vec![Vec::new(); f.regs.len()];
        for (bi, b) in f.blocks.iter().enumerate() {
            for (ii, inst) in b.insts.iter().enumerate() {
                for r in uses(inst) {
                    if let Some(e) = reads.get_mut(r as usize) {
                        e.push((bi, ii));
                    }
                }
            }
            let mut t = b.term.clone();
            super::walk::term_uses(&mut t, &mut |r| {
                if let Some(e) = reads.get_mut(*r as usize) {
                    e.push((bi, b.insts.len()));
                }
            });
        }
        let mut moves: Vec<(usize, usize, usize)> = Vec::new(); // (block, index, preheader)
        for lp in loops(f, &dom) {
            let mut written = vec![false; f.regs.len()];
            let mut memory_written = false;
            for (bi, b) in f.blocks.iter().enumerate() {
                if lp.blocks[bi] {
                    for inst in &b.insts {
                        memory_written |= may_write_memory(inst);
                        for d in defs(inst) {
                            if let Some(e) = written.get_mut(d as usize) {
                                *e = true;
                            }
                        }
                    }
                }
            }
            for (bi, b) in f.blocks.iter().enumerate() {
                if !lp.blocks[bi] || !dom.reachable(bi) {
                    continue;
                }
                for (ii, inst) in b.insts.iter().enumerate() {
                    let local_load = matches!(
                        inst,
                        Inst::Load {
                            ptr: Ptr {
                                space: Space::Local,
                                ..
                            },
                            ..
                        }
                    );
                    if !(is_lane_op(inst) || local_load && !memory_written) {
                        continue;
                    }
                    let d = defs(inst)[0] as usize;
                    let ok = sites.get(d).map(|s| s.0) == Some(1)
                        && !cross[d]
                        && uses(inst).iter().all(|&r| !written[r as usize])
                        && reads[d].iter().all(|&u| dom.inst_dominates((bi, ii), u));
                    if ok && !moves.iter().any(|m| m.0 == bi && m.1 == ii) {
                        moves.push((bi, ii, lp.pre));
                    }
                }
            }
        }
        if moves.is_empty() {
            break;
        }
        total += moves.len();
        // take the instructions out (back to front keeps the indices valid), then append them
        // to their preheaders in program order
        moves.sort_unstable();
        let mut taken = Vec::with_capacity(moves.len());
        for &(bi, ii, pre) in moves.iter().rev() {
            let src = f.blocks[bi].insts[..ii]
                .iter()
                .rev()
                .find(|i| matches!(i, Inst::Source { .. }))
                .cloned();
            let inst = f.blocks[bi].insts.remove(ii);
            taken.push((pre, src, inst));
        }
        for (pre, src, inst) in taken.into_iter().rev() {
            let insts = &mut f.blocks[pre].insts;
            let last = insts
                .iter()
                .rev()
                .find(|i| matches!(i, Inst::Source { .. }));
            if let Some(s) = src.filter(|s| last != Some(s)) {
                insts.push(s);
            }
            insts.push(inst);
        }
    }
    total
}
