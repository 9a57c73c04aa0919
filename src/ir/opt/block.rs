//! Block-local value reuse: common subexpressions and copies folded into the definition.
//!
//! Both passes stay inside one block, where every instruction runs with the same active mask,
//! so a register written earlier in the block holds, in every active lane, exactly the value
//! the earlier instruction computed (until something writes it or its operands again).
//!
//! - [`cse`]: a second computation of the same lane-wise operation on the same operand
//!   registers becomes a `Mov` of the first result (copy propagation and DCE then drop it).
//!   Same-mask, same-inputs, deterministic operation: the same bits in every active lane;
//!   inactive lanes are written by neither form. Operands are not reordered (x + y and y + x
//!   differ in the NaN payload they return).
//! - [`coalesce_copies`]: `t = op(..); …; x = Mov t` with `t` written once and read only in
//!   this block, the copy first, becomes `x = op(..)`, and the later reads of `t` read `x`,
//!   when nothing between the definition and the copy reads or writes `x` and nothing before
//!   the last read of `t` writes it. `x` then holds, from the definition on, the value it held
//!   from the copy on and `t` held from the definition on; nothing looks at it before the
//!   copy; `t` is never read again. `op` may read `x` itself: lane kernels read every operand
//!   before writing (the executor takes its scratch path when an operand aliases the
//!   destination). This turns the front end's `tmp = acc + s; acc = tmp` into
//!   `acc = acc + s`, and `p' = f(p); p = p'; … p' …` into `p = f(p); … p …`: one
//!   interpreter dispatch instead of two in every loop-carried update.

use super::walk::{
    cross_lane_regs, def_sites, defs, for_each_use, is_plain_load, may_write_memory, term_uses,
};
use crate::ir::*;

/// Lane-wise, side-effect-free, total operations: the result in a lane depends only on the
/// lane's own operand registers (no memory, no lane state, no neighbour).
pub(super) fn is_lane_op(inst: &Inst) -> bool {
    matches!(
        inst,
        Inst::Unary { .. }
            | Inst::Binary { .. }
            | Inst::Ternary { .. }
            | Inst::BitFieldInsert { .. }
            | Inst::Pack4x8 { .. }
            | Inst::Convert { .. }
    )
}

/// The registers `inst` reads.
pub(super) fn uses(inst: &Inst) -> Vec<Reg> {
    let mut v = Vec::new();
    let mut i = inst.clone();
    for_each_use(&mut i, &mut |r, _| v.push(*r));
    v
}

fn set_dst(inst: &mut Inst, r: Reg) {
    match inst {
        Inst::Unary { dst, .. }
        | Inst::Binary { dst, .. }
        | Inst::Ternary { dst, .. }
        | Inst::BitFieldInsert { dst, .. }
        | Inst::Pack4x8 { dst, .. }
        | Inst::Convert { dst, .. }
        | Inst::Load { dst, .. } => *dst = r,
        _ => {}
    }
}

/// The instruction with its destination zeroed: equal keys compute equal values from equal
/// operand values.
fn key(inst: &Inst) -> Inst {
    let mut k = inst.clone();
    set_dst(&mut k, 0);
    k
}

/// Local common-subexpression elimination: repeated lane operations, and repeated plain loads
/// ([`is_plain_load`]: the lane's Local words, read-only buffers) with nothing in between that
/// may write memory. Returns the number of instructions turned into copies.
pub fn cse(f: &mut Function, ro: &[bool]) -> usize {
    let regs = f.regs.clone();
    let mut n = 0;
    for b in &mut f.blocks {
        // (key, its operands, the register holding its value, whether it is a load)
        let mut avail: Vec<(Inst, Vec<Reg>, Reg, bool)> = Vec::new();
        for inst in &mut b.insts {
            let load = is_plain_load(inst, ro);
            if is_lane_op(inst) || load {
                let d = defs(inst)[0];
                let k = key(inst);
                if let Some(&(_, _, s, _)) = avail.iter().find(|e| e.0 == k) {
                    if s != d && regs.get(s as usize) == regs.get(d as usize) {
                        *inst = Inst::Unary {
                            op: UnaryOp::Mov,
                            ty: regs[d as usize],
                            dst: d,
                            a: s,
                        };
                        n += 1;
                    }
                }
            }
            let d = defs(inst);
            avail.retain(|(_, ops, s, _)| !d.contains(s) && !ops.iter().any(|o| d.contains(o)));
            if may_write_memory(inst) {
                avail.retain(|e| !e.3);
            }
            let load = is_plain_load(inst, ro);
            if (is_lane_op(inst) || load)
                && !matches!(
                    inst,
                    Inst::Unary {
                        op: UnaryOp::Mov,
                        ..
                    }
                )
            {
                let ops = uses(inst);
                // `r = r + x` describes the old `r`, not the new one
                if !ops.contains(&d[0]) && avail.len() < 256 {
                    avail.push((key(inst), ops, d[0], load));
                }
            }
        }
    }
    n
}

/// How far after a definition [`coalesce_copies`] looks for its copy.
const WINDOW: usize = 64;

/// Folds `x = Mov t` into `t`'s definition (see the module comment). Returns the number of
/// copies removed.
pub fn coalesce_copies(f: &mut Function) -> usize {
    let sites = def_sites(f);
    let cross = cross_lane_regs(f);
    let mut reads = vec![0u32; f.regs.len()];
    for b in &f.blocks {
        for inst in &b.insts {
            for r in uses(inst) {
                if let Some(e) = reads.get_mut(r as usize) {
                    *e += 1;
                }
            }
        }
        let mut t = b.term.clone();
        term_uses(&mut t, &mut |r| {
            if let Some(e) = reads.get_mut(*r as usize) {
                *e += 1;
            }
        });
    }
    let regs = f.regs.clone();
    let mut n = 0;
    for b in &mut f.blocks {
        let mut i = 0;
        while i < b.insts.len() {
            let cand = is_lane_op(&b.insts[i]);
            let t = defs(&b.insts[i]).first().copied();
            i += 1;
            let Some(t) = t.filter(|_| cand) else {
                continue;
            };
            let ti = t as usize;
            if sites.get(ti).map(|s| s.0) != Some(1) || reads[ti] == 0 || cross[ti] {
                continue;
            }
            // the first read of `t`: a copy in this block, with `x` untouched in between
            let end = b.insts.len().min(i + WINDOW);
            let Some(j) = (i..end).find(|&j| uses(&b.insts[j]).contains(&t)) else {
                continue;
            };
            let Inst::Unary {
                op: UnaryOp::Mov,
                dst: x,
                ..
            } = b.insts[j]
            else {
                continue;
            };
            let clear = b.insts[i..j]
                .iter()
                .all(|k| !uses(k).contains(&x) && !defs(k).contains(&x));
            // the other reads of `t`: after the copy in this block, with `x` not written
            // before the last of them (which may itself write `x`: operands are read first)
            let count = |k: &Inst| uses(k).iter().filter(|&&r| r == t).count() as u32;
            let mut term = b.term.clone();
            let mut in_term = 0;
            term_uses(&mut term, &mut |r| in_term += (*r == t) as u32);
            let after = &b.insts[j + 1..];
            let rest = after.iter().map(count).sum::<u32>() + in_term;
            let last = if in_term > 0 {
                after.len()
            } else {
                after.iter().rposition(|k| count(k) > 0).unwrap_or(0)
            };
            let kept = after[..last].iter().all(|k| !defs(k).contains(&x));
            if x != t
                && regs.get(x as usize) == regs.get(ti)
                && clear
                && kept
                && 1 + rest == reads[ti]
            {
                set_dst(&mut b.insts[i - 1], x);
                b.insts.remove(j);
                for k in &mut b.insts[j..] {
                    for_each_use(k, &mut |r, _| {
                        if *r == t {
                            *r = x;
                        }
                    });
                }
                term_uses(&mut b.term, &mut |r| {
                    if *r == t {
                        *r = x;
                    }
                });
                reads[x as usize] += rest;
                reads[ti] = 0;
                n += 1;
            }
        }
    }
    n
}
