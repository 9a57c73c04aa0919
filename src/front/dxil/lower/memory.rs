//! Memory that is not a resource: `alloca`s (local arrays), groupshared globals (address
//! space 3) and constant global arrays, with `getelementptr`, `load`, `store`, `atomicrmw` and
//! `cmpxchg` on them.
//!
//! A pointer is a word address: a constant part plus an optional per-lane register, in the
//! IR's per-lane (`Local`) or workgroup space. Every scalar takes one 32-bit word, 64-bit
//! scalars two, aggregates the sum of their members, so a GEP is integer arithmetic on word
//! counts. Constant global arrays are written into per-lane words by the prologue.

use crate::front::build::IrBuilder;
use crate::ir::{AtomicOp, BinaryOp, Inst, Ptr, Reg, ScalarTy, Space};

use super::super::module::{AtomicRmwOp, ConstKind, GlobalId, Instruction, Type, TypeId, Value};
use super::{LResult, Lower, Val};

/// Where memory has been handed out.
#[derive(Default)]
pub(crate) struct Memory {
    pub local_words: u32,
    pub workgroup_words: u32,
}

/// A pointer into per-lane or workgroup words.
#[derive(Clone, Debug)]
pub(crate) struct PtrVal {
    pub workgroup: bool,
    /// The per-lane part of the word address (I32), added to `off`.
    pub base: Option<Reg>,
    pub off: u32,
}

/// Words a memory object of this many words may take at most (per lane or per group).
const MAX_WORDS: u32 = 1 << 20;

impl<'a> Lower<'a> {
    /// Words a value of type `ty` takes in memory.
    pub(crate) fn words(&self, ty: TypeId) -> LResult<u32> {
        let mut leaves = Vec::new();
        match self.m.ty(ty) {
            Type::Array { len, elem } => {
                let e = self.words(*elem)?;
                let n = u32::try_from(*len)
                    .ok()
                    .and_then(|n| n.checked_mul(e))
                    .filter(|&n| n <= MAX_WORDS)
                    .ok_or_else(|| self.invalid("an array larger than quadstep's memory"))?;
                Ok(n)
            }
            _ => {
                self.leaves(ty, &mut leaves)?;
                Ok(leaves.iter().map(|t| if t.is_wide() { 2 } else { 1 }).sum())
            }
        }
    }

    /// `words` more words of per-lane or workgroup memory; `None` past the limit.
    fn alloc(&mut self, workgroup: bool, words: u32) -> Option<u32> {
        let at = if workgroup {
            &mut self.mem.workgroup_words
        } else {
            &mut self.mem.local_words
        };
        let start = *at;
        *at = at.checked_add(words).filter(|&n| n <= MAX_WORDS)?;
        Some(start)
    }

    /// The pointer value of a global, placing it on first use.
    pub(crate) fn global(&mut self, g: GlobalId) -> LResult<Val> {
        let gv = self
            .m
            .globals
            .get(g.index())
            .ok_or_else(|| self.invalid("a global id out of range"))?
            .clone();
        let words = self.words(gv.value_type)?;
        let workgroup = match gv.addrspace {
            3 => true,
            0 => false,
            n => return Err(self.not_run(format!("globals in address space {n}"))),
        };
        let off = self
            .alloc(workgroup, words)
            .ok_or_else(|| self.invalid("global memory larger than quadstep's limit"))?;
        if let Some(init) = gv.init.filter(|_| !workgroup) {
            let k = self.m.constant(init).clone();
            if !matches!(k.kind, ConstKind::Undef) {
                let vals = self.scalars(Value::Const(init))?;
                let here = self.cur;
                self.cur = 0;
                let mut w = off;
                for r in vals {
                    let ty = self.f.regs[r as usize];
                    let addr = self.k32(w);
                    self.emit(Inst::Store {
                        ty,
                        ptr: Ptr {
                            space: Space::Local,
                            addr,
                        },
                        src: r,
                    });
                    w += if ty.is_wide() { 2 } else { 1 };
                }
                self.cur = here;
            }
        }
        Ok(Val::Ptr(PtrVal {
            workgroup,
            base: None,
            off,
        }))
    }

    /// `getelementptr source_type, ptr, indices`.
    pub(crate) fn gep(
        &mut self,
        source_type: TypeId,
        ptr: Value,
        idx: &[Value],
    ) -> LResult<PtrVal> {
        let Val::Ptr(mut p) = self.val(ptr)? else {
            return Err(self.invalid("getelementptr of something that is not a pointer"));
        };
        let mut ty = source_type;
        for (k, &i) in idx.iter().enumerate() {
            let stride;
            if k == 0 {
                stride = self.words(ty)?;
            } else {
                match self.m.ty(ty).clone() {
                    Type::Struct { fields, .. } => {
                        let fi = self.const_u32(i)? as usize;
                        let mut off = 0;
                        for &f in fields.iter().take(fi) {
                            off += self.words(f)?;
                        }
                        p.off = p.off.wrapping_add(off);
                        ty = *fields
                            .get(fi)
                            .ok_or_else(|| self.invalid("a struct index out of range"))?;
                        continue;
                    }
                    Type::Array { elem, .. } | Type::Vector { elem, .. } => {
                        ty = elem;
                        stride = self.words(elem)?;
                    }
                    _ => return Err(self.invalid("getelementptr into a scalar")),
                }
            }
            match self.m.const_int(i) {
                Some(c) => {
                    p.off = p.off.wrapping_add((c as u32).wrapping_mul(stride));
                }
                None => {
                    let it = self.ty_of(i)?;
                    let mut r = self.scalar(i)?;
                    if it != ScalarTy::I32 {
                        r = self.convert(crate::ir::ConvOp::UConvert, it, ScalarTy::I32, r);
                    }
                    let s = self.k32(stride);
                    let scaled = self.bin(BinaryOp::IMul, ScalarTy::I32, r, s);
                    p.base = Some(match p.base {
                        None => scaled,
                        Some(b) => self.bin(BinaryOp::IAdd, ScalarTy::I32, b, scaled),
                    });
                }
            }
        }
        Ok(p)
    }

    /// The IR address of a pointer operand.
    fn address(&mut self, ptr: Value) -> LResult<Ptr> {
        let Val::Ptr(p) = self.val(ptr)? else {
            return Err(self.invalid("a memory access through something that is not a pointer"));
        };
        let k = self.k32(p.off);
        let addr = match p.base {
            None => k,
            Some(b) if p.off == 0 => b,
            Some(b) => self.bin(BinaryOp::IAdd, ScalarTy::I32, b, k),
        };
        Ok(Ptr {
            space: if p.workgroup {
                Space::Workgroup
            } else {
                Space::Local
            },
            addr,
        })
    }

    pub(crate) fn memory_inst(&mut self, inst: &Instruction) -> LResult<()> {
        match inst {
            Instruction::Alloca {
                allocated_type,
                size,
                ..
            } => {
                let n = self.m.const_int(*size).unwrap_or(1).max(1) as u32;
                let words = self
                    .words(*allocated_type)?
                    .checked_mul(n)
                    .ok_or_else(|| self.invalid("an alloca larger than quadstep's memory"))?;
                let off = self
                    .alloc(false, words)
                    .ok_or_else(|| self.invalid("local memory larger than quadstep's limit"))?;
                self.set_result(Val::Ptr(PtrVal {
                    workgroup: false,
                    base: None,
                    off,
                }));
            }
            Instruction::Load { ptr, ty, .. } => {
                let t = self.scalar_of(*ty)?;
                let p = self.address(*ptr)?;
                let dst = self.reg(t);
                self.emit(Inst::Load { ty: t, dst, ptr: p });
                self.set_scalar(dst);
            }
            Instruction::Store { ptr, value, .. } => {
                let t = self.ty_of(*value)?;
                let src = self.scalar(*value)?;
                let p = self.address(*ptr)?;
                self.emit(Inst::Store { ty: t, ptr: p, src });
            }
            Instruction::AtomicRmw {
                op, ptr, value, ty, ..
            } => {
                let t = self.scalar_of(*ty)?;
                let a = self.scalar(*value)?;
                let p = self.address(*ptr)?;
                let o = match op {
                    AtomicRmwOp::Xchg => AtomicOp::Exchange,
                    AtomicRmwOp::Add => AtomicOp::IAdd,
                    AtomicRmwOp::Sub => AtomicOp::ISub,
                    AtomicRmwOp::And => AtomicOp::And,
                    AtomicRmwOp::Or => AtomicOp::Or,
                    AtomicRmwOp::Xor => AtomicOp::Xor,
                    AtomicRmwOp::Max => AtomicOp::SMax,
                    AtomicRmwOp::Min => AtomicOp::SMin,
                    AtomicRmwOp::UMax => AtomicOp::UMax,
                    AtomicRmwOp::UMin => AtomicOp::UMin,
                    AtomicRmwOp::Nand => return Err(self.not_run("atomicrmw nand")),
                };
                let dst = self.reg(t);
                self.emit(Inst::Atomic {
                    op: o,
                    ty: t,
                    dst,
                    ptr: p,
                    a,
                    b: a,
                });
                self.set_scalar(dst);
            }
            Instruction::CmpXchg { ptr, cmp, new, .. } => {
                let t = self.ty_of(*new)?;
                let a = self.scalar(*new)?;
                let b = self.scalar(*cmp)?;
                let p = self.address(*ptr)?;
                let dst = self.reg(t);
                self.emit(Inst::Atomic {
                    op: AtomicOp::CompareExchange,
                    ty: t,
                    dst,
                    ptr: p,
                    a,
                    b,
                });
                let ok = self.bin(BinaryOp::IEq, t, dst, b);
                self.set_result(Val::Agg(vec![dst, ok]));
            }
            Instruction::Fence { .. } => {}
            _ => unreachable!("memory_inst is called for memory instructions only"),
        }
        Ok(())
    }
}
