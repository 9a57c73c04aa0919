//! Control flow: functions are inlined at their call sites (arguments by value or by pointer),
//! each SPIR-V block becomes an IR block, `OpPhi` becomes parallel copies on the incoming
//! edges (conditional edges into blocks with phis are split so copies run only on that edge),
//! `OpReturn`/`OpReturnValue` of a callee jump to the call's continuation block, and
//! `OpKill`/`OpTerminateInvocation`/`OpUnreachable` map to their terminators. Merge
//! instructions only serve to find where a killed lane goes on as a helper
//! ([`Lower::resolve_kills`]): reconvergence is computed by the interpreter from the CFG.

use std::collections::HashSet;

use spirv::Op;

use crate::front::build::IrBuilder;
use crate::ir::{BlockId, Inst, Reg, ScalarTy, Terminator, UnaryOp};
use crate::{Error, Result};

use super::lower::{Construct, Frame, KillSite, Lower, PhiInfo, Val};
use super::parse::I;

impl Lower<'_> {
    /// Inlines function `fid` with `args` at the current block; afterwards the current block is
    /// the continuation. Returns the return-value registers.
    pub(crate) fn inline_function(
        &mut self,
        fid: u32,
        args: Vec<Val>,
        entry: bool,
    ) -> Result<Vec<Reg>> {
        let m = self.m;
        let f = m
            .funcs
            .get(&fid)
            .ok_or_else(|| self.err(&format!("%{fid} is not a defined function")))?;
        if self.frames.iter().any(|fr| fr.func == fid) {
            return Err(self.err(&format!("recursive call of function %{fid}")));
        }
        if self.frames.len() > 64 {
            return Err(self.unsup("call depth above 64"));
        }
        if f.params.len() != args.len() {
            return Err(self.err(&format!(
                "function %{fid} takes {} arguments, {} given",
                f.params.len(),
                args.len()
            )));
        }
        if f.blocks.is_empty() {
            return Err(Error::Spirv(format!(
                "word offset {}: function %{fid} has no body",
                f.off
            )));
        }
        self.ty(f.result_ty).map_err(|_| {
            Error::Spirv(format!(
                "word offset {}: function result type %{} is not a type",
                f.off, f.result_ty
            ))
        })?;
        for ((pty, pid), a) in f.params.iter().zip(args) {
            self.ty(*pty)?;
            self.vals.insert(*pid, a);
        }
        let ret_regs = if entry
            || self
                .ty(f.result_ty)
                .map(|t| matches!(t, super::types::Type::Void))
                .unwrap_or(false)
        {
            Vec::new()
        } else {
            let leaves = self.leaves(f.result_ty)?;
            leaves.into_iter().map(|t| self.reg(t)).collect()
        };
        // Fresh IR blocks for this instance.
        let mut seen = HashSet::new();
        for b in &f.blocks {
            if !seen.insert(b.label) {
                return Err(self.err(&format!("label %{} defined twice", b.label)));
            }
            let nb = self.new_block();
            self.labels.insert(b.label, nb);
        }
        // Phi registers, allocated before any block is lowered (forward edges need them).
        for b in &f.blocks {
            let mut list = Vec::new();
            for idx in b.first..b.end {
                let i = m.inst(idx);
                if i.op != Op::Phi {
                    continue;
                }
                self.cur_off = i.off;
                let (ty, id) = (i.w(0)?, i.w(1)?);
                let leaves = self.leaves(ty)?;
                let regs: Vec<Reg> = leaves.into_iter().map(|t| self.reg(t)).collect();
                let incoming = i
                    .rest(2)
                    .chunks(2)
                    .filter(|c| c.len() == 2)
                    .map(|c| (c[0], c[1]))
                    .collect();
                self.def(id, ty, regs.clone());
                list.push(PhiInfo { regs, incoming });
            }
            self.phis.insert(b.label, list);
        }
        let ret_block = if entry { None } else { Some(self.new_block()) };
        let saved_label = self.cur_label;
        let instance = self.instances;
        self.instances += 1;
        self.frames.push(Frame {
            func: fid,
            instance,
            ret_block,
            ret_regs: ret_regs.clone(),
        });
        let first = self.labels[&f.blocks[0].label];
        self.terminate(Terminator::Jump(first));
        for b in &f.blocks {
            self.cur = self.labels[&b.label];
            self.cur_label = b.label;
            self.terminated = false;
            for idx in b.first..b.end {
                let i = m.inst(idx);
                if matches!(i.op, Op::SelectionMerge | Op::LoopMerge) {
                    let header = self.labels[&b.label];
                    let merge = self.label(i.w(0)?)?;
                    let cont = match i.op {
                        Op::LoopMerge => Some(self.label(i.w(1)?)?),
                        _ => None,
                    };
                    self.constructs.push(Construct {
                        instance,
                        header,
                        merge,
                        cont,
                    });
                }
                if super::parse::is_terminator(i.op) {
                    self.terminator(&i)?;
                } else {
                    self.lower_with_marker(&i)?;
                }
            }
            if !self.terminated {
                return Err(self.err(&format!("block %{} has no terminator", b.label)));
            }
        }
        self.frames.pop();
        self.cur_label = saved_label;
        if let Some(rb) = ret_block {
            self.cur = rb;
            self.terminated = false;
        }
        Ok(ret_regs)
    }

    /// Lowers an instruction and puts a `Source` marker before what it produced.
    fn lower_with_marker(&mut self, i: &I) -> Result<()> {
        let block = self.cur;
        let before = self.f.blocks[block as usize].insts.len();
        self.lower_inst(i)?;
        if self.cur == block && self.f.blocks[block as usize].insts.len() > before {
            self.f.blocks[block as usize]
                .insts
                .insert(before, Inst::Source { offset: i.off });
        }
        Ok(())
    }

    pub(crate) fn call(&mut self, i: &I) -> Result<()> {
        let (rt, id, fid) = (i.w(0)?, i.w(1)?, i.w(2)?);
        let mut args = Vec::new();
        for &a in i.rest(3) {
            args.push(self.val(a)?.clone());
        }
        let regs = self.inline_function(fid, args, false)?;
        if !regs.is_empty() {
            self.def_checked(id, rt, regs)?;
        }
        Ok(())
    }

    fn label(&self, l: u32) -> Result<BlockId> {
        self.labels
            .get(&l)
            .copied()
            .ok_or_else(|| self.err(&format!("%{l} is not a label of this function")))
    }

    /// The block to branch to for the edge current → `to`, with phi copies placed on it.
    /// `split`: the edge is one of several out of the current block.
    fn edge(&mut self, to: u32, split: bool) -> Result<BlockId> {
        let target = self.label(to)?;
        let phis = self.phis.get(&to).cloned().unwrap_or_default();
        if phis.is_empty() {
            return Ok(target);
        }
        let from = self.cur_label;
        let mut srcs = Vec::new();
        for p in &phis {
            let v = p
                .incoming
                .iter()
                .find(|(_, pred)| *pred == from)
                .map(|(v, _)| *v)
                .ok_or_else(|| {
                    self.err(&format!(
                        "OpPhi in %{to} has no value for predecessor %{from}"
                    ))
                })?;
            let r = self.operand_regs(v)?;
            if r.len() != p.regs.len() {
                return Err(self.err("OpPhi incoming value has the wrong type"));
            }
            srcs.push(r);
        }
        let saved = self.cur;
        let edge_block = if split {
            let b = self.new_block();
            self.cur = b;
            Some(b)
        } else {
            None
        };
        // Parallel copy: go through temporaries when a source is one of the destinations.
        let dsts: HashSet<Reg> = phis.iter().flat_map(|p| p.regs.iter().copied()).collect();
        let clash = srcs.iter().flatten().any(|r| dsts.contains(r));
        let mut pairs = Vec::new();
        for (p, s) in phis.iter().zip(&srcs) {
            for (&d, &s) in p.regs.iter().zip(s) {
                let ty = self.rty(d);
                let s = if clash { self.mov(ty, s) } else { s };
                pairs.push((d, s, ty));
            }
        }
        for (d, s, ty) in pairs {
            self.emit(Inst::Unary {
                op: UnaryOp::Mov,
                ty,
                dst: d,
                a: s,
            });
        }
        match edge_block {
            Some(b) => {
                self.terminate(Terminator::Jump(target));
                self.cur = saved;
                Ok(b)
            }
            None => Ok(target),
        }
    }

    fn terminator(&mut self, i: &I) -> Result<()> {
        self.cur_off = i.off;
        let t = match i.op {
            Op::Branch => Terminator::Jump(self.edge(i.w(0)?, false)?),
            Op::BranchConditional => {
                let cond = self.reg1(i.w(0)?)?;
                if self.rty(cond) != ScalarTy::Bool {
                    return Err(i.err("branch condition is not a boolean"));
                }
                let (a, b) = (i.w(1)?, i.w(2)?);
                let if_true = self.edge(a, true)?;
                let if_false = self.edge(b, true)?;
                Terminator::Branch {
                    cond,
                    if_true,
                    if_false,
                }
            }
            Op::Switch => {
                let sel = self.reg1(i.w(0)?)?;
                let ty = self.rty(sel);
                if !ty.is_int() {
                    return Err(i.err("switch selector is not an integer"));
                }
                let default = self.edge(i.w(1)?, true)?;
                let lit_words = if ty.is_wide() { 2 } else { 1 };
                let rest = i.rest(2);
                let step = lit_words + 1;
                if !rest.len().is_multiple_of(step) {
                    return Err(i.err("OpSwitch literal/label pairs are malformed"));
                }
                let mut cases = Vec::new();
                for c in rest.chunks(step) {
                    let lit = if lit_words == 2 {
                        c[0] as u64 | (c[1] as u64) << 32
                    } else {
                        c[0] as u64
                    };
                    let lit = super::lower::canon(ty, lit);
                    let b = self.edge(c[lit_words], true)?;
                    cases.push((lit, b));
                }
                Terminator::Switch {
                    ty,
                    sel,
                    cases,
                    default,
                }
            }
            Op::Return | Op::ReturnValue => {
                let frame = self
                    .frames
                    .last()
                    .ok_or_else(|| i.err("return outside a function"))?;
                match frame.ret_block {
                    None => Terminator::Return,
                    Some(rb) => {
                        if i.op == Op::ReturnValue {
                            let dsts = frame.ret_regs.clone();
                            let src = self.operand_regs(i.w(0)?)?;
                            if src.len() != dsts.len() {
                                return Err(
                                    i.err("returned value does not match the function type")
                                );
                            }
                            for (d, s) in dsts.into_iter().zip(src) {
                                let ty = self.rty(d);
                                self.emit(Inst::Unary {
                                    op: UnaryOp::Mov,
                                    ty,
                                    dst: d,
                                    a: s,
                                });
                            }
                        }
                        Terminator::Jump(rb)
                    }
                }
            }
            Op::Kill | Op::TerminateInvocation => {
                self.can_discard = true;
                let frame = self
                    .frames
                    .last()
                    .ok_or_else(|| i.err("kill outside a function"))?;
                self.kills.push(KillSite {
                    instance: frame.instance,
                    block: self.cur,
                    ret: frame.ret_block,
                });
                // names the kill for the debugger (a `Kill` block is often otherwise empty)
                self.emit(Inst::Source { offset: i.off });
                Terminator::Kill { resume: None }
            }
            Op::Unreachable => {
                // names the instruction when a lane reaches it
                self.emit(Inst::Source { offset: i.off });
                Terminator::Unreachable
            }
            _ => return Err(i.err("not a terminator")),
        };
        self.terminate(t);
        Ok(())
    }

    /// Where each killed lane goes on as a helper, once the whole body is lowered: what
    /// lavapipe does with SPIR-V's structure (its `discard` ends the innermost construct's
    /// block list, and the lane carries on after it). Resume blocks: the merge of the
    /// innermost selection or switch construct of the same function instance around the kill;
    /// in a loop, the continue target (the header, from the continue construct); outside any
    /// construct, the call's continuation (the entry point: nowhere, the lane stops). A merge
    /// that is `OpUnreachable` (both sides of the `if` end the invocation) is nowhere too.
    /// Constructs are found on the CFG without the resume edges, as SPIR-V defines them.
    pub(crate) fn resolve_kills(&mut self) {
        if self.kills.is_empty() {
            return;
        }
        let dom = crate::ir::opt::walk::Dom::new(&self.f);
        let dominates = |a: BlockId, b: BlockId| dom.dominates(a as usize, b as usize);
        for k in &self.kills {
            let holds = |c: &&Construct| {
                c.instance == k.instance
                    && dominates(c.header, k.block)
                    && !dominates(c.merge, k.block)
            };
            let inner = self.constructs.iter().filter(holds).reduce(|a, c| {
                if dominates(a.header, c.header) {
                    c
                } else {
                    a
                }
            });
            let resume = match inner {
                None => k.ret,
                Some(c) => Some(match c.cont {
                    None => c.merge,
                    Some(t) if dominates(t, k.block) => c.header,
                    Some(t) => t,
                }),
            };
            let resume =
                resume.filter(|&b| self.f.blocks[b as usize].term != Terminator::Unreachable);
            self.f.blocks[k.block as usize].term = Terminator::Kill { resume };
        }
    }
}
