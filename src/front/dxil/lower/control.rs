//! Control flow: DXIL's basic blocks become IR blocks one for one, phis become copies on the
//! edges into their block, and branches, switches and returns become terminators.
//!
//! DXIL's control flow is unstructured LLVM; nothing here recovers structure, because the
//! interpreter derives reconvergence from the CFG alone. Blocks are lowered in reverse
//! postorder, so every value is lowered before its uses (a definition dominates them);
//! unreachable blocks stay `Unreachable`. Phi copies are parallel: every incoming value is
//! first copied to a temporary, then the temporaries to the phis, so a phi that reads another
//! phi of the same block sees its old value. An edge from a block with several successors into
//! a block with phis is split: the copies go into a new block on that edge only.

use std::collections::HashMap;

use crate::front::build::IrBuilder;
use crate::ir::{Inst, Reg, ScalarTy, Terminator, UnaryOp};

use super::super::module::{BlockId as DBlock, InstId, Instruction, Value};
use super::{LResult, Lower, Val};

impl<'a> Lower<'a> {
    /// Registers for every phi, before any block is lowered (a phi can be read in a block
    /// lowered before the edges that write it).
    pub(crate) fn control_prepare(&mut self) -> LResult<()> {
        for (i, inst) in self.func.insts.iter().enumerate() {
            if let Instruction::Phi { ty, .. } = inst {
                self.at = InstId(i as u32);
                let mut leaves = Vec::new();
                self.leaves(*ty, &mut leaves)?;
                let regs: Vec<Reg> = leaves.into_iter().map(|t| self.reg(t)).collect();
                let val = if regs.len() == 1 {
                    Val::Scalar(regs[0])
                } else {
                    Val::Agg(regs)
                };
                self.set(Value::Inst(InstId(i as u32)), val);
            }
        }
        Ok(())
    }

    /// DXIL block indices in reverse postorder from the entry.
    pub(crate) fn block_order(&self) -> Vec<usize> {
        let n = self.func.blocks.len();
        let mut seen = vec![false; n];
        let mut post = Vec::with_capacity(n);
        // iterative DFS: (block, next successor index)
        let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
        seen[0] = true;
        while let Some(&mut (b, ref mut k)) = stack.last_mut() {
            let succ = self.successors(b);
            if let Some(&s) = succ.get(*k) {
                *k += 1;
                if s < n && !seen[s] {
                    seen[s] = true;
                    stack.push((s, 0));
                }
            } else {
                post.push(b);
                stack.pop();
            }
        }
        post.reverse();
        post
    }

    fn successors(&self, b: usize) -> Vec<usize> {
        let block = &self.func.blocks[b];
        match block.end.0.checked_sub(1) {
            Some(last) if last >= block.start.0 => self
                .func
                .insts
                .get(last as usize)
                .map(|t| t.successors().into_iter().map(|s| s.index()).collect())
                .unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    /// The DXIL block being lowered (the one holding the current instruction).
    fn cur_dblock(&self) -> LResult<DBlock> {
        self.func
            .block_of(self.at)
            .ok_or_else(|| self.invalid("an instruction outside every block"))
    }

    /// The phi copies on the edge from `from` into `to`: (phi registers, incoming values).
    fn phi_copies(&mut self, from: DBlock, to: DBlock) -> LResult<Vec<(Reg, Reg, ScalarTy)>> {
        let block = self
            .func
            .blocks
            .get(to.index())
            .ok_or_else(|| self.invalid("a branch to a block that does not exist"))?;
        let mut copies = Vec::new();
        for id in block.inst_ids() {
            let Instruction::Phi { incoming, .. } = &self.func.insts[id.index()] else {
                break;
            };
            let Some(&(v, _)) = incoming.iter().find(|(_, b)| *b == from) else {
                return Err(self.invalid(format!(
                    "phi %{} has no value for the edge from block {}",
                    id.0, from.0
                )));
            };
            let dst = self.scalars(Value::Inst(id))?;
            let src = self.scalars(v)?;
            if dst.len() != src.len() {
                return Err(self.invalid("a phi value of the wrong size"));
            }
            for (d, s) in dst.into_iter().zip(src) {
                let ty = self.f.regs[d as usize];
                copies.push((d, s, ty));
            }
        }
        Ok(copies)
    }

    /// Parallel copies into the current IR block.
    fn emit_copies(&mut self, copies: &[(Reg, Reg, ScalarTy)]) {
        let temps: Vec<Reg> = copies
            .iter()
            .map(|&(_, s, ty)| {
                let t = self.reg(ty);
                self.mov(ty, t, s);
                t
            })
            .collect();
        for (&(d, _, ty), t) in copies.iter().zip(temps) {
            self.emit(Inst::Unary {
                op: UnaryOp::Mov,
                ty,
                dst: d,
                a: t,
            });
        }
    }

    /// The IR target of the edge from the current block into `to`; with `split`, an edge that
    /// carries phi copies gets its own block.
    fn edge(&mut self, to: DBlock, split: bool, made: &mut HashMap<DBlock, u32>) -> LResult<u32> {
        if let Some(&b) = made.get(&to) {
            return Ok(b);
        }
        let from = self.cur_dblock()?;
        let target = *self
            .block_map
            .get(to.index())
            .ok_or_else(|| self.invalid("a branch to a block that does not exist"))?;
        let copies = self.phi_copies(from, to)?;
        if copies.is_empty() {
            return Ok(target);
        }
        if !split {
            self.emit_copies(&copies);
            return Ok(target);
        }
        let here = self.cur;
        let e = self.new_block();
        self.cur = e;
        self.emit_copies(&copies);
        self.terminate(Terminator::Jump(target));
        self.cur = here;
        made.insert(to, e);
        Ok(e)
    }

    pub(crate) fn terminator(&mut self, inst: &Instruction) -> LResult<()> {
        let mut made = HashMap::new();
        let t = match inst {
            Instruction::Br { target } => Terminator::Jump(self.edge(*target, false, &mut made)?),
            Instruction::CondBr {
                cond,
                if_true,
                if_false,
            } => {
                let c = self.scalar(*cond)?;
                if if_true == if_false {
                    Terminator::Jump(self.edge(*if_true, false, &mut made)?)
                } else {
                    Terminator::Branch {
                        cond: c,
                        if_true: self.edge(*if_true, true, &mut made)?,
                        if_false: self.edge(*if_false, true, &mut made)?,
                    }
                }
            }
            Instruction::Switch {
                cond,
                default,
                cases,
            } => {
                let ty = self.ty_of(*cond)?;
                let sel = self.scalar(*cond)?;
                let default = self.edge(*default, true, &mut made)?;
                let mut out = Vec::with_capacity(cases.len());
                for (v, b) in cases {
                    let k = self
                        .m
                        .as_constant(*v)
                        .and_then(|c| c.as_u64(self.m))
                        .ok_or_else(|| self.invalid("a switch case that is not a constant"))?;
                    out.push((k, self.edge(*b, true, &mut made)?));
                }
                Terminator::Switch {
                    ty,
                    sel,
                    cases: out,
                    default,
                }
            }
            Instruction::Ret { .. } => Terminator::Return,
            _ => Terminator::Unreachable,
        };
        self.terminate(t);
        Ok(())
    }
}
