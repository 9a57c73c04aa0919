//! IR verifier: structural checks every front end's output must pass before it is run.
//!
//! Checked: every register index is below `regs.len()`, every block id is valid, constants'
//! types match their registers, and operand/result types agree with the instruction's `ty`
//! where the rule is simple (elementwise ops, loads/stores, conversions, branch conditions,
//! address registers). Ops with mixed operand types (Ldexp, Join64, packing, frexp…) are only
//! checked for register bounds.

use super::*;
use crate::{Error, Result};

struct V<'a> {
    f: &'a Function,
    block: usize,
    inst: usize,
}

impl V<'_> {
    fn err(&self, msg: &str) -> Error {
        Error::Exec(format!(
            "IR verify: block {} instruction {}: {msg}",
            self.block, self.inst
        ))
    }
    fn reg(&self, r: Reg) -> Result<ScalarTy> {
        self.f.regs.get(r as usize).copied().ok_or_else(|| {
            self.err(&format!(
                "register r{r} out of range ({})",
                self.f.regs.len()
            ))
        })
    }
    fn is(&self, r: Reg, ty: ScalarTy) -> Result<()> {
        let t = self.reg(r)?;
        if t != ty {
            return Err(self.err(&format!("register r{r} has type {t:?}, expected {ty:?}")));
        }
        Ok(())
    }
    fn block(&self, b: BlockId) -> Result<()> {
        if (b as usize) < self.f.blocks.len() {
            Ok(())
        } else {
            Err(self.err(&format!("block {b} out of range ({})", self.f.blocks.len())))
        }
    }
    fn ptr(&self, p: &Ptr) -> Result<()> {
        self.is(p.addr, ScalarTy::I32)?;
        if let Space::Buffer { index: Some(i), .. } = p.space {
            self.is(i, ScalarTy::I32)?;
        }
        Ok(())
    }
}

/// Checks a shader's body (and its resource references) for structural consistency.
pub fn verify(shader: &Shader) -> Result<()> {
    let f = &shader.body;
    let mut v = V {
        f,
        block: 0,
        inst: 0,
    };
    if f.blocks.is_empty() {
        return Err(Error::Exec("IR verify: function has no blocks".into()));
    }
    for (r, c) in &f.consts {
        v.is(*r, c.ty)?;
    }
    let nres = shader.resources.len() as u32;
    for (bi, b) in f.blocks.iter().enumerate() {
        v.block = bi;
        for (ii, inst) in b.insts.iter().enumerate() {
            v.inst = ii;
            check_inst(&v, inst, nres)?;
        }
        v.inst = b.insts.len();
        match &b.term {
            Terminator::Jump(t) => v.block(*t)?,
            Terminator::Branch {
                cond,
                if_true,
                if_false,
            } => {
                v.is(*cond, ScalarTy::Bool)?;
                v.block(*if_true)?;
                v.block(*if_false)?;
            }
            Terminator::Switch {
                ty,
                sel,
                cases,
                default,
            } => {
                v.is(*sel, *ty)?;
                v.block(*default)?;
                for (_, c) in cases {
                    v.block(*c)?;
                }
            }
            Terminator::Kill { resume } => {
                if let Some(t) = resume {
                    v.block(*t)?;
                }
            }
            Terminator::Return | Terminator::Unreachable => {}
        }
    }
    Ok(())
}

fn check_inst(v: &V, inst: &Inst, nres: u32) -> Result<()> {
    let slot = |s: u32| {
        if s < nres {
            Ok(())
        } else {
            Err(v.err(&format!("resource slot {s} out of range ({nres})")))
        }
    };
    match inst {
        Inst::Unary { op, ty, dst, a } => {
            v.reg(*dst)?;
            v.is(*a, *ty)?;
            if matches!(
                op,
                UnaryOp::Mov | UnaryOp::FNeg | UnaryOp::SNeg | UnaryOp::Not | UnaryOp::Floor
            ) {
                v.is(*dst, *ty)?;
            }
        }
        Inst::Binary { op, ty, dst, a, b } => {
            v.reg(*dst)?;
            v.reg(*b)?;
            match op {
                BinaryOp::Join64 => {
                    v.is(*a, ScalarTy::I32)?;
                    v.is(*b, ScalarTy::I32)?;
                    v.is(*dst, *ty)?;
                }
                BinaryOp::Ldexp => {
                    v.is(*a, *ty)?;
                    v.is(*b, ScalarTy::I32)?;
                }
                BinaryOp::PackHalf2x16 | BinaryOp::PackSnorm2x16 | BinaryOp::PackUnorm2x16 => {
                    v.is(*dst, ScalarTy::I32)?;
                }
                _ => {
                    v.is(*a, *ty)?;
                    v.is(*b, *ty)?;
                    let want = if op.is_comparison() {
                        ScalarTy::Bool
                    } else {
                        *ty
                    };
                    v.is(*dst, want)?;
                }
            }
        }
        Inst::Ternary {
            op,
            ty,
            dst,
            a,
            b,
            c,
        } => {
            v.is(*dst, *ty)?;
            match op {
                TernaryOp::Select => {
                    v.is(*a, ScalarTy::Bool)?;
                    v.is(*b, *ty)?;
                    v.is(*c, *ty)?;
                }
                TernaryOp::BitFieldSExtract | TernaryOp::BitFieldUExtract => {
                    v.is(*a, *ty)?;
                    v.is(*b, ScalarTy::I32)?;
                    v.is(*c, ScalarTy::I32)?;
                }
                _ => {
                    v.is(*a, *ty)?;
                    v.is(*b, *ty)?;
                    v.is(*c, *ty)?;
                }
            }
        }
        Inst::BitFieldInsert {
            ty,
            dst,
            base,
            insert,
            offset,
            count,
        } => {
            v.is(*dst, *ty)?;
            v.is(*base, *ty)?;
            v.is(*insert, *ty)?;
            v.is(*offset, ScalarTy::I32)?;
            v.is(*count, ScalarTy::I32)?;
        }
        Inst::Pack4x8 { dst, src, .. } => {
            v.is(*dst, ScalarTy::I32)?;
            for s in src {
                v.is(*s, ScalarTy::F32)?;
            }
        }
        Inst::Convert {
            op,
            from,
            to,
            dst,
            a,
        } => {
            v.is(*a, *from)?;
            v.is(*dst, *to)?;
            if *op == ConvOp::Bitcast && from.bits() != to.bits() {
                return Err(v.err("bitcast between different widths"));
            }
        }
        Inst::Load { ty, dst, ptr } => {
            v.is(*dst, *ty)?;
            v.ptr(ptr)?;
            if let Space::Buffer { slot: s, .. } = ptr.space {
                slot(s)?;
            }
        }
        Inst::Store { ty, ptr, src } => {
            v.is(*src, *ty)?;
            v.ptr(ptr)?;
            if let Space::Buffer { slot: s, .. } = ptr.space {
                slot(s)?;
            }
        }
        Inst::Atomic {
            ty, dst, ptr, a, b, ..
        } => {
            v.is(*dst, *ty)?;
            v.is(*a, *ty)?;
            v.is(*b, *ty)?;
            v.ptr(ptr)?;
        }
        Inst::ArrayLength {
            dst,
            slot: s,
            index,
            ..
        } => {
            v.is(*dst, ScalarTy::I32)?;
            slot(*s)?;
            if let Some(i) = index {
                v.is(*i, ScalarTy::I32)?;
            }
        }
        Inst::Deriv { ty, dst, a, .. } | Inst::QuadSwap { ty, dst, a, .. } => {
            v.is(*dst, *ty)?;
            v.is(*a, *ty)?;
        }
        Inst::QuadBroadcast { ty, dst, a, index } => {
            v.is(*dst, *ty)?;
            v.is(*a, *ty)?;
            v.is(*index, ScalarTy::I32)?;
        }
        Inst::QuadVote { dst, a, .. } => {
            v.is(*dst, ScalarTy::Bool)?;
            v.is(*a, ScalarTy::Bool)?;
        }
        Inst::Group { ty, dst, a, b, .. } => {
            v.reg(*dst)?;
            v.reg(*a)?;
            v.reg(*b)?;
            let _ = ty;
        }
        Inst::GroupArith { ty, dst, a, .. } => {
            v.is(*dst, *ty)?;
            v.is(*a, *ty)?;
        }
        Inst::BallotQuery { dst, ballot, b, .. } => {
            v.reg(*dst)?;
            v.reg(*b)?;
            for r in ballot {
                v.is(*r, ScalarTy::I32)?;
            }
        }
        Inst::Image(im) => {
            slot(im.image.slot)?;
            if let Some(s) = im.sampler {
                slot(s.slot)?;
            }
            let mut regs: Vec<Reg> = Vec::new();
            regs.extend(&im.coords);
            regs.extend(im.proj);
            regs.extend(im.dref);
            regs.extend(&im.offset);
            regs.extend(im.min_lod);
            regs.extend(im.sample);
            regs.extend(im.component);
            regs.extend(&im.texel);
            regs.extend(im.image.index);
            regs.extend(im.sampler.and_then(|s| s.index));
            match &im.lod {
                Lod::Implicit { bias } => regs.extend(*bias),
                Lod::Explicit(r) => regs.push(*r),
                Lod::Grad { dx, dy } => {
                    regs.extend(dx);
                    regs.extend(dy);
                }
                Lod::None => {}
            }
            for r in regs {
                v.reg(r)?;
            }
            for d in &im.dst {
                v.reg(*d)?;
            }
        }
        Inst::IsHelper { dst } => v.is(*dst, ScalarTy::Bool)?,
        Inst::Emit { .. } | Inst::EndPrimitive { .. } => {}
        Inst::InterpolateAt { at, dst, addr } => {
            v.is(*dst, ScalarTy::F32)?;
            v.is(*addr, ScalarTy::I32)?;
            match *at {
                InterpAt::Centroid => {}
                InterpAt::Sample(i) => v.is(i, ScalarTy::I32)?,
                InterpAt::Offset(x, y) => {
                    v.is(x, ScalarTy::F32)?;
                    v.is(y, ScalarTy::F32)?;
                }
            }
        }
        Inst::LaneInfo { dst, .. } => v.is(*dst, ScalarTy::I32)?,
        Inst::Demote | Inst::Barrier | Inst::Source { .. } => {}
    }
    Ok(())
}
