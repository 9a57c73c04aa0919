//! Fused lane operations: the instruction list a run without an instruction observer
//! executes (`CBlock::ops`), with a multiply (float, or I32/I64) whose only read is an add or
//! subtract of its type later in its block folded into that add or subtract as one
//! three-operand kernel (`kernels::mul_then`). The interpreter then makes one pass over the rows instead of two,
//! with no product row written and read back in between, and dispatches one instruction.
//!
//! Why the result is the same: the fused kernel rounds the product to the register type and
//! then adds, as the two instructions do (never an FMA; integers wrap as they do). It runs at the add's place with the
//! add's mask, which is the multiply's (a block runs with one active mask), and reads the
//! multiply's operands there, which is sound because no instruction between the two writes
//! them. The product's register is read by nothing else in the whole function (terminators,
//! cross-lane operands and stores count as reads), so leaving its row unwritten changes no
//! value any instruction reads. Only an observer of every instruction (the debugger) sees
//! registers between instructions; it runs the unfused list (`CBlock::code`), so its traces
//! hold the product too.

use super::kernels::{self, MulThen, K3};
use super::program::Code;
use crate::ir::{opt::walk, BinaryOp, Function, Inst, Reg};
use std::collections::HashMap;

/// Per register of `f`: how many times an instruction or a terminator reads it.
pub(super) fn reads(f: &Function) -> Vec<u32> {
    let mut reads = vec![0u32; f.regs.len()];
    let mut count = |r: Reg| {
        if let Some(c) = reads.get_mut(r as usize) {
            *c = c.saturating_add(1);
        }
    };
    for b in &f.blocks {
        for inst in &b.insts {
            walk::for_each_use(&mut inst.clone(), &mut |r, _| count(*r));
        }
        walk::term_uses(&mut b.term.clone(), &mut |r| count(*r));
    }
    reads
}

/// A block's executed list: `code` (one entry per instruction of `insts`) without its
/// `Nop`s, each with its instruction index, and each fusable multiply folded into the add or
/// subtract that reads it (see the module comment). `reads` is [`reads`] of the function.
pub(super) fn ops(insts: &[Inst], code: &[Code], reads: &[u32]) -> Vec<(u32, Code)> {
    let mut out: Vec<Option<Code>> = code.iter().map(|c| Some(*c)).collect();
    // the index of the last instruction so far that writes each register
    let mut last_def: HashMap<Reg, usize> = HashMap::new();
    for (j, inst) in insts.iter().enumerate().take(code.len()) {
        if let Some((i, fused)) = fuse_at(insts, code, reads, &last_def, j) {
            out[i] = None;
            out[j] = Some(fused);
        }
        for d in walk::defs(inst) {
            last_def.insert(d, j);
        }
    }
    out.into_iter()
        .enumerate()
        .filter_map(|(i, c)| c.map(|c| (i as u32, c)))
        .filter(|(_, c)| !matches!(c, Code::Nop))
        .collect()
}

/// The multiply (its index) folded into instruction `j` and the fused instruction, if `j`
/// is an add or subtract one of whose operands is such a multiply's product. The
/// second operand is tried first (`acc + x·y`).
fn fuse_at(
    insts: &[Inst],
    code: &[Code],
    reads: &[u32],
    last_def: &HashMap<Reg, usize>,
    j: usize,
) -> Option<(usize, Code)> {
    let Inst::Binary { op, ty, a, b, .. } = insts[j] else {
        return None;
    };
    let (mul, sub) = match op {
        BinaryOp::FAdd => (BinaryOp::FMul, false),
        BinaryOp::FSub => (BinaryOp::FMul, true),
        BinaryOp::IAdd => (BinaryOp::IMul, false),
        BinaryOp::ISub => (BinaryOp::IMul, true),
        _ => return None,
    };
    for (t, after) in [(b, false), (a, true)] {
        let Some(&i) = last_def.get(&t) else {
            continue;
        };
        let Inst::Binary {
            op: pop,
            ty: pty,
            a: pa,
            b: pb,
            ..
        } = insts[i]
        else {
            continue;
        };
        // one read (this one: so not both operands), operands unchanged since the multiply
        let unchanged = |r: Reg| last_def.get(&r).is_none_or(|&d| d < i);
        if pop != mul
            || pty != ty
            || reads.get(t as usize) != Some(&1)
            || !unchanged(pa)
            || !unchanged(pb)
        {
            continue;
        }
        let shape = match (sub, after) {
            (false, true) => MulThen::AddAfter,
            (false, false) => MulThen::AddBefore,
            (true, true) => MulThen::SubAfter,
            (true, false) => MulThen::SubBefore,
        };
        let fused = match (kernels::mul_then(shape, ty)?, code[i], code[j]) {
            (
                K3::NNNN(k),
                Code::N2 { a: ma, b: mb, .. },
                Code::N2 {
                    dst, a: sa, b: sb, ..
                },
            ) => Code::N3 {
                k,
                dst,
                a: ma,
                b: mb,
                c: if after { sb } else { sa },
            },
            (
                K3::W(k),
                Code::K2 { a: ma, b: mb, .. },
                Code::K2 {
                    dst, a: sa, b: sb, ..
                },
            ) => Code::K3 {
                k,
                dst,
                a: ma,
                b: mb,
                c: if after { sb } else { sa },
            },
            _ => continue,
        };
        return Some((i, fused));
    }
    None
}
