//! Dead-code elimination by register liveness, and `Source` marker clean-up.
//!
//! A lane's register value is read only on the lane's own path, except through cross-lane
//! operands (a neighbour's derivative, quad or subgroup operation reads it wherever the lane
//! is); registers read that way are treated as live everywhere. A write kills liveness because
//! it overwrites the value in every lane that executes it.

use super::walk::{cross_lane_regs, defs, for_each_use, is_plain_load, is_pure, succs, term_uses};
use crate::ir::*;

struct Bits(Vec<u64>);

impl Bits {
    fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }
    fn get(&self, r: Reg) -> bool {
        self.0
            .get(r as usize / 64)
            .is_some_and(|w| w >> (r % 64) & 1 != 0)
    }
    fn set(&mut self, r: Reg, v: bool) {
        if let Some(w) = self.0.get_mut(r as usize / 64) {
            if v {
                *w |= 1 << (r % 64);
            } else {
                *w &= !(1 << (r % 64));
            }
        }
    }
    fn or(&mut self, o: &Bits) -> bool {
        let mut ch = false;
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            let n = *a | b;
            ch |= n != *a;
            *a = n;
        }
        ch
    }
}

/// Registers live at a block's start, given those live at its end.
fn transfer(b: &Block, mut live: Bits) -> Bits {
    let mut t = b.term.clone();
    term_uses(&mut t, &mut |r| live.set(*r, true));
    for inst in b.insts.iter().rev() {
        for d in defs(inst) {
            live.set(d, false);
        }
        let mut i = inst.clone();
        for_each_use(&mut i, &mut |r, _| live.set(*r, true));
    }
    live
}

/// Removes pure instructions and plain loads ([`is_plain_load`]) whose results are dead.
/// A dead read-only buffer load goes with the error it would raise with nothing bound at its
/// slot, as a driver's compiler drops the access. Returns the number removed.
pub fn eliminate(f: &mut Function, ro: &[bool]) -> usize {
    let mut total = 0;
    loop {
        let n = f.regs.len();
        let cross = cross_lane_regs(f);
        let mut pinned = Bits::new(n);
        for (r, &c) in cross.iter().enumerate() {
            pinned.set(r as Reg, c);
        }
        let succ: Vec<Vec<usize>> = f
            .blocks
            .iter()
            .map(|b| succs(&b.term).into_iter().map(|s| s as usize).collect())
            .collect();
        let mut live_in: Vec<Bits> = (0..f.blocks.len()).map(|_| Bits::new(n)).collect();
        let mut changed = true;
        while changed {
            changed = false;
            for bi in (0..f.blocks.len()).rev() {
                let mut out = Bits::new(n);
                for &s in &succ[bi] {
                    if let Some(l) = live_in.get(s) {
                        out.or(l);
                    }
                }
                let li = transfer(&f.blocks[bi], out);
                changed |= live_in[bi].or(&li);
            }
        }
        let mut removed = 0;
        for (bi, b) in f.blocks.iter_mut().enumerate() {
            let mut live = Bits::new(n);
            for &s in &succ[bi] {
                if let Some(l) = live_in.get(s) {
                    live.or(l);
                }
            }
            live.or(&pinned);
            term_uses(&mut b.term, &mut |r| live.set(*r, true));
            let mut keep = vec![true; b.insts.len()];
            for (ii, inst) in b.insts.iter_mut().enumerate().rev() {
                let d = defs(inst);
                if (is_pure(inst) || is_plain_load(inst, ro))
                    && !d.is_empty()
                    && d.iter().all(|&r| !live.get(r))
                {
                    keep[ii] = false;
                    removed += 1;
                    continue;
                }
                for r in d {
                    if !pinned.get(r) {
                        live.set(r, false);
                    }
                }
                for_each_use(inst, &mut |r, _| live.set(*r, true));
            }
            let mut it = keep.iter();
            b.insts.retain(|_| *it.next().unwrap_or(&true));
        }
        if removed == 0 {
            return total;
        }
        total += removed;
    }
}

/// Keeps at most one `Source` marker before each instruction (the last of a run: it names the
/// source the following instruction came from). Returns the number removed.
pub fn tidy_sources(f: &mut Function) -> usize {
    let mut removed = 0;
    for b in &mut f.blocks {
        let len = b.insts.len();
        let next_is_source: Vec<bool> = (0..len)
            .map(|i| matches!(b.insts.get(i + 1), Some(Inst::Source { .. })))
            .collect();
        let mut i = 0;
        b.insts.retain(|inst| {
            let drop = matches!(inst, Inst::Source { .. }) && next_is_source[i];
            i += 1;
            removed += drop as usize;
            !drop
        });
    }
    removed
}
