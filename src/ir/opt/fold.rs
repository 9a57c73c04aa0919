//! Constant hoisting and copy propagation.
//!
//! Both rely on the per-lane path argument: a lane's register holds the value of the last
//! instruction that wrote it while the lane was active on its own path through the CFG. So a
//! register written by exactly one instruction that runs before every read (instruction-level
//! dominance) always holds that instruction's result at its reads. Registers read by a
//! cross-lane operand are left alone: a neighbour may read them in a lane that never ran the
//! definition.

use super::walk::{cross_lane_regs, def_sites, for_each_use, term_uses, Dom};
use crate::ir::*;

/// The value of every register that no instruction writes: its constant, else 0.
fn fixed_values(f: &Function, sites: &[(u32, (usize, usize))]) -> Vec<Option<u64>> {
    let mut v: Vec<Option<u64>> = sites
        .iter()
        .map(|s| if s.0 == 0 { Some(0) } else { None })
        .collect();
    for (r, c) in &f.consts {
        if let Some(e) = v.get_mut(*r as usize) {
            if e.is_some() {
                *e = Some(c.bits);
            }
        }
    }
    v
}

/// Places (block, index; index = length for the terminator) of the reads of every register in
/// reachable blocks.
fn use_sites(f: &mut Function, dom: &Dom) -> Vec<Vec<(usize, usize)>> {
    let mut u = vec![Vec::new(); f.regs.len()];
    for (bi, b) in f.blocks.iter_mut().enumerate() {
        if !dom.reachable(bi) {
            continue;
        }
        let len = b.insts.len();
        for (ii, inst) in b.insts.iter_mut().enumerate() {
            for_each_use(inst, &mut |r, _| {
                if let Some(e) = u.get_mut(*r as usize) {
                    e.push((bi, ii));
                }
            });
        }
        term_uses(&mut b.term, &mut |r| {
            if let Some(e) = u.get_mut(*r as usize) {
                e.push((bi, len));
            }
        });
    }
    u
}

/// The result bits of `inst` when all its operands have fixed values, for the few operations
/// whose interpreter semantics are simple and exactly known here (I32 integer arithmetic used
/// by address computations, copies and same-width bitcasts). Matches `exec::kernels`.
fn eval(inst: &Inst, val: &[Option<u64>]) -> Option<u64> {
    let get = |r: Reg| val.get(r as usize).copied().flatten();
    match *inst {
        Inst::Unary {
            op: UnaryOp::Mov,
            a,
            ..
        } => get(a),
        Inst::Convert {
            op: ConvOp::Bitcast,
            from,
            to,
            a,
            ..
        } if from.bits() == to.bits()
            && matches!(
                from,
                ScalarTy::I32 | ScalarTy::F32 | ScalarTy::I64 | ScalarTy::F64
            )
            && matches!(
                to,
                ScalarTy::I32 | ScalarTy::F32 | ScalarTy::I64 | ScalarTy::F64
            ) =>
        {
            get(a)
        }
        Inst::Binary {
            op,
            ty: ScalarTy::I32,
            a,
            b,
            ..
        } => {
            let (x, y) = (get(a)? as u32, get(b)? as u32);
            let r = match op {
                BinaryOp::IAdd => x.wrapping_add(y),
                BinaryOp::ISub => x.wrapping_sub(y),
                BinaryOp::IMul => x.wrapping_mul(y),
                BinaryOp::And => x & y,
                BinaryOp::Or => x | y,
                BinaryOp::Xor => x ^ y,
                BinaryOp::Shl => x.checked_shl(y).unwrap_or(0),
                BinaryOp::ShrL => x.checked_shr(y).unwrap_or(0),
                _ => return None,
            };
            Some(r as u64)
        }
        _ => None,
    }
}

/// Turns single-definition registers computed from constants into constants (their
/// definition is deleted). Returns the number of registers hoisted.
pub fn hoist_constants(f: &mut Function) -> usize {
    let mut total = 0;
    loop {
        let sites = def_sites(f);
        let cross = cross_lane_regs(f);
        let dom = Dom::new(f);
        let val = fixed_values(f, &sites);
        let uses = use_sites(f, &dom);
        let mut in_consts = vec![false; f.regs.len()];
        for (r, _) in &f.consts {
            if let Some(e) = in_consts.get_mut(*r as usize) {
                *e = true;
            }
        }
        let mut remove = Vec::new();
        for (bi, b) in f.blocks.iter().enumerate() {
            if !dom.reachable(bi) {
                continue;
            }
            for (ii, inst) in b.insts.iter().enumerate() {
                let d = super::walk::defs(inst);
                let [r] = d[..] else { continue };
                let ri = r as usize;
                if sites[ri].0 != 1 || cross[ri] || in_consts[ri] {
                    continue;
                }
                let Some(bits) = eval(inst, &val) else {
                    continue;
                };
                if uses[ri].iter().all(|&u| dom.inst_dominates((bi, ii), u)) {
                    remove.push((bi, ii, r, bits));
                }
            }
        }
        if remove.is_empty() {
            return total;
        }
        total += remove.len();
        for &(bi, ii, r, bits) in remove.iter().rev() {
            f.blocks[bi].insts.remove(ii);
            f.consts.push((
                r,
                Const {
                    ty: f.regs[r as usize],
                    bits,
                },
            ));
        }
    }
}

/// Within each block (one active mask throughout), rewrites own-lane reads of the destination
/// of a `Mov` to its source while neither has been written again since. Returns the number of
/// operands rewritten.
pub fn local_copies(f: &mut Function) -> usize {
    let mut n = 0;
    let regs = f.regs.clone();
    for b in &mut f.blocks {
        // avail[d] = s: d equals s in every active lane.
        let mut avail: Vec<(Reg, Reg)> = Vec::new();
        for inst in &mut b.insts {
            for_each_use(inst, &mut |r, cross| {
                if !cross {
                    if let Some(&(_, s)) = avail.iter().find(|(d, _)| d == r) {
                        *r = s;
                        n += 1;
                    }
                }
            });
            let d = super::walk::defs(inst);
            avail.retain(|(x, s)| !d.contains(x) && !d.contains(s));
            if let Inst::Unary {
                op: UnaryOp::Mov,
                dst,
                a,
                ..
            } = *inst
            {
                if dst != a && regs.get(dst as usize) == regs.get(a as usize) {
                    avail.push((dst, a));
                }
            }
        }
        term_uses(&mut b.term, &mut |r| {
            if let Some(&(_, s)) = avail.iter().find(|(d, _)| d == r) {
                *r = s;
                n += 1;
            }
        });
    }
    n
}

/// Replaces the reads of `d` by `a` for every `Mov d = a` where `d` is written only there, the
/// copy runs before every read of `d`, and `a` is never written or written once before the
/// copy (so it still holds the copied value at each read of `d`). Returns the number of
/// registers replaced (their copies become dead).
pub fn global_copies(f: &mut Function) -> usize {
    let sites = def_sites(f);
    let cross = cross_lane_regs(f);
    let dom = Dom::new(f);
    let uses = use_sites(f, &dom);
    let mut map: Vec<Option<Reg>> = vec![None; f.regs.len()];
    let mut count = 0;
    for (bi, b) in f.blocks.iter().enumerate() {
        if !dom.reachable(bi) {
            continue;
        }
        for (ii, inst) in b.insts.iter().enumerate() {
            let Inst::Unary {
                op: UnaryOp::Mov,
                dst,
                a,
                ..
            } = *inst
            else {
                continue;
            };
            let (di, ai) = (dst as usize, a as usize);
            if dst == a || sites[di].0 != 1 || cross[di] || f.regs[di] != f.regs[ai] {
                continue;
            }
            let a_ok =
                sites[ai].0 == 0 || (sites[ai].0 == 1 && dom.inst_dominates(sites[ai].1, (bi, ii)));
            if a_ok && uses[di].iter().all(|&u| dom.inst_dominates((bi, ii), u)) {
                map[di] = Some(a);
                count += 1;
            }
        }
    }
    if count == 0 {
        return 0;
    }
    let resolve = |mut r: Reg| {
        // Chains are acyclic (each link strictly dominates the next); bound the walk anyway.
        for _ in 0..map.len() {
            match map[r as usize] {
                Some(s) => r = s,
                None => break,
            }
        }
        r
    };
    for b in &mut f.blocks {
        for inst in &mut b.insts {
            for_each_use(inst, &mut |r, cross| {
                if !cross {
                    *r = resolve(*r);
                }
            });
        }
        term_uses(&mut b.term, &mut |r| *r = resolve(*r));
    }
    count
}
