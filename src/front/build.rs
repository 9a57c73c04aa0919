//! The IR builder both front ends lower through: registers, deduplicated constants, blocks,
//! and the one-instruction helpers whose result register takes the type the op gives.
//!
//! It is a trait with provided methods rather than a struct both lowerings embed, so that
//! each lowering state keeps the function it is building as its own field and every
//! `self.bin(..)` in its instruction-family files stays as it is: a state names where its
//! function, current block and constant table are, and gets the rest.

use std::collections::HashMap;

use crate::ir::{BinaryOp, Block, BlockId, Const, Function, Inst, Reg, ScalarTy, Terminator};
use crate::ir::{TernaryOp, UnaryOp};

/// The bits of a constant of `ty` as its register holds them: `Bool` as 0/1, narrower types
/// zero-extended (so equal constants deduplicate).
pub(crate) fn canon(ty: ScalarTy, bits: u64) -> u64 {
    match ty {
        ScalarTy::Bool => (bits != 0) as u64,
        ScalarTy::I8 => bits & 0xff,
        ScalarTy::I16 | ScalarTy::F16 => bits & 0xffff,
        ScalarTy::I32 | ScalarTy::F32 => bits & 0xffff_ffff,
        ScalarTy::I64 | ScalarTy::F64 => bits,
    }
}

/// What a lowering state provides to build IR; the helpers come with it.
pub(crate) trait IrBuilder {
    /// The function being built.
    fn func(&mut self) -> &mut Function;
    /// The block instructions go to now.
    fn current_block(&self) -> BlockId;
    /// The registers made for constants so far.
    fn const_regs(&mut self) -> &mut HashMap<Const, Reg>;

    /// A new register of `ty`.
    fn reg(&mut self, ty: ScalarTy) -> Reg {
        let f = self.func();
        f.regs.push(ty);
        (f.regs.len() - 1) as Reg
    }

    /// A register holding a constant (deduplicated).
    fn konst(&mut self, ty: ScalarTy, bits: u64) -> Reg {
        let c = Const {
            ty,
            bits: canon(ty, bits),
        };
        if let Some(r) = self.const_regs().get(&c) {
            return *r;
        }
        let r = self.reg(ty);
        self.func().consts.push((r, c));
        self.const_regs().insert(c, r);
        r
    }

    fn k32(&mut self, v: u32) -> Reg {
        self.konst(ScalarTy::I32, v as u64)
    }

    /// Appends `inst` to the current block.
    fn emit(&mut self, inst: Inst) {
        let b = self.current_block() as usize;
        self.func().blocks[b].insts.push(inst);
    }

    /// A new empty block (ending in `Unreachable` until terminated).
    fn new_block(&mut self) -> BlockId {
        let f = self.func();
        f.blocks.push(Block {
            insts: Vec::new(),
            term: Terminator::Unreachable,
        });
        (f.blocks.len() - 1) as BlockId
    }

    /// `dst = op(a)` into a new register of the op's result type.
    fn un(&mut self, op: UnaryOp, ty: ScalarTy, a: Reg) -> Reg {
        use UnaryOp::*;
        let rty = match op {
            BitCount | FindILsb | FindSMsb | FindUMsb | FrexpExp | Lo32 | Hi32 => ScalarTy::I32,
            IsNan | IsInf => ScalarTy::Bool,
            UnpackHalf2x16(_) | UnpackUnorm2x16(_) | UnpackSnorm2x16(_) | UnpackUnorm4x8(_)
            | UnpackSnorm4x8(_) => ScalarTy::F32,
            _ => ty,
        };
        let dst = self.reg(rty);
        self.emit(Inst::Unary { op, ty, dst, a });
        dst
    }

    /// `dst = op(a, b)` into a new register of the op's result type.
    fn bin(&mut self, op: BinaryOp, ty: ScalarTy, a: Reg, b: Reg) -> Reg {
        let rty = if op.is_comparison() {
            ScalarTy::Bool
        } else {
            match op {
                BinaryOp::PackHalf2x16 | BinaryOp::PackUnorm2x16 | BinaryOp::PackSnorm2x16 => {
                    ScalarTy::I32
                }
                _ => ty,
            }
        };
        let dst = self.reg(rty);
        self.emit(Inst::Binary { op, ty, dst, a, b });
        dst
    }

    /// `dst = op(a, b, c)` into a new register of `ty`.
    fn tern(&mut self, op: TernaryOp, ty: ScalarTy, a: Reg, b: Reg, c: Reg) -> Reg {
        let dst = self.reg(ty);
        self.emit(Inst::Ternary {
            op,
            ty,
            dst,
            a,
            b,
            c,
        });
        dst
    }
}

/// Implements [`IrBuilder`] for a lowering state that holds its function, current block and
/// constant table in fields named `f`, `cur` and `const_regs` (both front ends' do).
macro_rules! builder_in_fields {
    ($state:ty) => {
        impl $crate::front::build::IrBuilder for $state {
            fn func(&mut self) -> &mut $crate::ir::Function {
                &mut self.f
            }
            fn current_block(&self) -> $crate::ir::BlockId {
                self.cur
            }
            fn const_regs(
                &mut self,
            ) -> &mut std::collections::HashMap<$crate::ir::Const, $crate::ir::Reg> {
                &mut self.const_regs
            }
        }
    };
}
pub(crate) use builder_in_fields;
