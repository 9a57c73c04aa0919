//! Arithmetic, bitwise, logical, relational and conversion instructions, composites
//! (construct/extract/insert/shuffle/dynamic extract and insert/copy), `OpSelect`, and the
//! vector/matrix products, all expanded to scalar IR instructions leaf by leaf.

use spirv::Op;

use crate::front::build::IrBuilder;
use crate::ir::{BinaryOp, ConvOp, Inst, Reg, ScalarTy, TernaryOp, UnaryOp};
use crate::Result;

use super::lower::{Lower, Val};
use super::parse::I;
use super::types::Type;

fn binary_op(op: Op) -> Option<BinaryOp> {
    use BinaryOp as B;
    Some(match op {
        Op::IAdd => B::IAdd,
        Op::FAdd => B::FAdd,
        Op::ISub => B::ISub,
        Op::FSub => B::FSub,
        Op::IMul => B::IMul,
        Op::FMul => B::FMul,
        Op::UDiv => B::UDiv,
        Op::SDiv => B::SDiv,
        Op::FDiv => B::FDiv,
        Op::UMod => B::UMod,
        Op::SRem => B::SRem,
        Op::SMod => B::SMod,
        Op::FRem => B::FRem,
        Op::FMod => B::FMod,
        Op::ShiftRightLogical => B::ShrL,
        Op::ShiftRightArithmetic => B::ShrA,
        Op::ShiftLeftLogical => B::Shl,
        Op::BitwiseOr => B::Or,
        Op::BitwiseXor => B::Xor,
        Op::BitwiseAnd => B::And,
        Op::LogicalEqual => B::LogicalEqual,
        Op::LogicalNotEqual => B::LogicalNotEqual,
        Op::LogicalOr => B::LogicalOr,
        Op::LogicalAnd => B::LogicalAnd,
        Op::IEqual => B::IEq,
        Op::INotEqual => B::INe,
        Op::UGreaterThan => B::UGt,
        Op::SGreaterThan => B::SGt,
        Op::UGreaterThanEqual => B::UGe,
        Op::SGreaterThanEqual => B::SGe,
        Op::ULessThan => B::ULt,
        Op::SLessThan => B::SLt,
        Op::ULessThanEqual => B::ULe,
        Op::SLessThanEqual => B::SLe,
        Op::FOrdEqual => B::FOrdEq,
        Op::FUnordEqual => B::FUnordEq,
        Op::FOrdNotEqual => B::FOrdNe,
        Op::FUnordNotEqual => B::FUnordNe,
        Op::FOrdLessThan => B::FOrdLt,
        Op::FUnordLessThan => B::FUnordLt,
        Op::FOrdGreaterThan => B::FOrdGt,
        Op::FUnordGreaterThan => B::FUnordGt,
        Op::FOrdLessThanEqual => B::FOrdLe,
        Op::FUnordLessThanEqual => B::FUnordLe,
        Op::FOrdGreaterThanEqual => B::FOrdGe,
        Op::FUnordGreaterThanEqual => B::FUnordGe,
        Op::Ordered => B::Ordered,
        Op::Unordered => B::Unordered,
        _ => return None,
    })
}

fn unary_op(op: Op) -> Option<UnaryOp> {
    Some(match op {
        Op::SNegate => UnaryOp::SNeg,
        Op::FNegate => UnaryOp::FNeg,
        Op::Not => UnaryOp::Not,
        Op::LogicalNot => UnaryOp::LogicalNot,
        Op::IsNan => UnaryOp::IsNan,
        Op::IsInf => UnaryOp::IsInf,
        Op::BitReverse => UnaryOp::BitReverse,
        Op::BitCount => UnaryOp::BitCount,
        _ => return None,
    })
}

impl Lower<'_> {
    /// (columns, rows) of a matrix type.
    pub(crate) fn mat_dims(&self, ty: u32) -> Result<(usize, usize)> {
        match self.ty(ty)? {
            Type::Matrix { col, n } => match self.ty(*col)? {
                Type::Vector { n: r, .. } => Ok((*n as usize, *r as usize)),
                _ => Err(self.err("matrix column is not a vector")),
            },
            _ => Err(self.err(&format!("%{ty} is not a matrix"))),
        }
    }

    /// Leaf-wise binary op over two equally sized operand lists.
    pub(crate) fn map2(&mut self, op: BinaryOp, a: &[Reg], b: &[Reg]) -> Result<Vec<Reg>> {
        if a.len() != b.len() {
            return Err(self.err("operands have different component counts"));
        }
        Ok(a.iter()
            .zip(b)
            .map(|(&x, &y)| {
                let ty = self.rty(x);
                self.bin(op, ty, x, y)
            })
            .collect())
    }

    /// Sum of products (a dot product), FMul then FAdd.
    pub(crate) fn dot(&mut self, a: &[Reg], b: &[Reg]) -> Result<Reg> {
        let p = self.map2(BinaryOp::FMul, a, b)?;
        let ty = self.rty(p[0]);
        let mut acc = p[0];
        for &x in &p[1..] {
            acc = self.bin(BinaryOp::FAdd, ty, acc, x);
        }
        Ok(acc)
    }

    pub(crate) fn arith(&mut self, i: &I) -> Result<()> {
        if let Some(op) = binary_op(i.op) {
            let (rt, id) = (i.w(0)?, i.w(1)?);
            let a = self.regs(i.w(2)?)?;
            let mut b = self.regs(i.w(3)?)?;
            if a.len() != b.len() {
                return Err(i.err("operands have different component counts"));
            }
            if matches!(op, BinaryOp::Shl | BinaryOp::ShrL | BinaryOp::ShrA) {
                for k in 0..b.len() {
                    let (ta, tb) = (self.rty(a[k]), self.rty(b[k]));
                    if ta != tb {
                        b[k] = self.conv(ConvOp::UConvert, tb, ta, b[k]);
                    }
                }
            }
            let out = self.map2(op, &a, &b)?;
            return self.def_checked(id, rt, out);
        }
        if let Some(op) = unary_op(i.op) {
            let (rt, id) = (i.w(0)?, i.w(1)?);
            let a = self.regs(i.w(2)?)?;
            let rs = self.leaves(rt)?;
            let mut out = Vec::new();
            for (k, &x) in a.iter().enumerate() {
                let ty = self.rty(x);
                let mut r = self.un(op, ty, x);
                let want = *rs.get(k).ok_or_else(|| i.err("result type too small"))?;
                if self.rty(r) != want {
                    r = self.conv(ConvOp::UConvert, self.rty(r), want, r);
                }
                out.push(r);
            }
            return self.def_checked(id, rt, out);
        }
        let (rt, id) = (i.w(0)?, i.w(1)?);
        match i.op {
            Op::ConvertFToU
            | Op::ConvertFToS
            | Op::ConvertSToF
            | Op::ConvertUToF
            | Op::UConvert
            | Op::SConvert
            | Op::FConvert => {
                let op = match i.op {
                    Op::ConvertFToU => ConvOp::FToU,
                    Op::ConvertFToS => ConvOp::FToS,
                    Op::ConvertSToF => ConvOp::SToF,
                    Op::ConvertUToF => ConvOp::UToF,
                    Op::UConvert => ConvOp::UConvert,
                    Op::SConvert => ConvOp::SConvert,
                    _ => ConvOp::FConvert,
                };
                let a = self.regs(i.w(2)?)?;
                let to = self.elem_scalar(rt)?;
                let out = a
                    .iter()
                    .map(|&x| {
                        let from = self.rty(x);
                        if from == to && op == ConvOp::FConvert {
                            x
                        } else {
                            self.conv(op, from, to, x)
                        }
                    })
                    .collect();
                self.def_checked(id, rt, out)
            }
            Op::QuantizeToF16 => {
                let a = self.regs(i.w(2)?)?;
                let out = a
                    .iter()
                    .map(|&x| {
                        let h = self.conv(ConvOp::FConvert, ScalarTy::F32, ScalarTy::F16, x);
                        self.conv(ConvOp::FConvert, ScalarTy::F16, ScalarTy::F32, h)
                    })
                    .collect();
                self.def_checked(id, rt, out)
            }
            Op::Bitcast => {
                let a = self.regs(i.w(2)?)?;
                let out = self.bitcast(&a, rt)?;
                self.def_checked(id, rt, out)
            }
            Op::CompositeConstruct => {
                let mut out = Vec::new();
                for &c in i.rest(2) {
                    out.extend(self.operand_regs(c)?);
                }
                self.def_checked(id, rt, out)
            }
            Op::CompositeExtract => {
                let c = i.w(2)?;
                let mut t = self.vty(c)?;
                let regs = self.regs(c)?;
                let (mut start, mut len) = (0, regs.len());
                for &k in i.rest(3) {
                    let (ct, s, n) = self.child(t, k)?;
                    start += s;
                    len = n;
                    t = ct;
                }
                let part = regs
                    .get(start..start + len)
                    .ok_or_else(|| i.err("extracted part does not fit the composite"))?;
                self.def_checked(id, rt, part.to_vec())
            }
            Op::CompositeInsert => {
                let obj = self.regs(i.w(2)?)?;
                let c = i.w(3)?;
                let mut t = self.vty(c)?;
                let mut regs = self.regs(c)?;
                let mut start = 0;
                for &k in i.rest(4) {
                    let (ct, s, _) = self.child(t, k)?;
                    start += s;
                    t = ct;
                }
                if start + obj.len() > regs.len() {
                    return Err(i.err("inserted object does not fit"));
                }
                regs[start..start + obj.len()].copy_from_slice(&obj);
                self.def_checked(id, rt, regs)
            }
            Op::CopyObject | Op::CopyLogical => match self.val(i.w(2)?)?.clone() {
                Val::Regs { regs, .. } => self.def_checked(id, rt, regs),
                other => {
                    self.vals.insert(id, other);
                    Ok(())
                }
            },
            Op::VectorShuffle => {
                let a = self.regs(i.w(2)?)?;
                let b = self.regs(i.w(3)?)?;
                let all: Vec<Reg> = a.iter().chain(&b).copied().collect();
                let ety = self.elem_scalar(rt)?;
                let mut out = Vec::new();
                for &k in i.rest(4) {
                    if k == u32::MAX {
                        out.push(self.konst(ety, 0));
                    } else {
                        out.push(
                            *all.get(k as usize)
                                .ok_or_else(|| i.err("shuffle component out of range"))?,
                        );
                    }
                }
                self.def_checked(id, rt, out)
            }
            Op::VectorExtractDynamic => {
                let v = self.regs(i.w(2)?)?;
                let idx = self.reg1(i.w(3)?)?;
                let it = self.rty(idx);
                let ty = self.rty(v[0]);
                let mut acc = v[0];
                for (k, &x) in v.iter().enumerate().skip(1) {
                    let kc = self.konst(it, k as u64);
                    let c = self.bin(BinaryOp::IEq, it, idx, kc);
                    acc = self.tern(TernaryOp::Select, ty, c, x, acc);
                }
                self.def_checked(id, rt, vec![acc])
            }
            Op::VectorInsertDynamic => {
                let v = self.regs(i.w(2)?)?;
                let c = self.reg1(i.w(3)?)?;
                let idx = self.reg1(i.w(4)?)?;
                let it = self.rty(idx);
                let mut out = Vec::new();
                for (k, &x) in v.iter().enumerate() {
                    let ty = self.rty(x);
                    let kc = self.konst(it, k as u64);
                    let cond = self.bin(BinaryOp::IEq, it, idx, kc);
                    out.push(self.tern(TernaryOp::Select, ty, cond, c, x));
                }
                self.def_checked(id, rt, out)
            }
            Op::Select => {
                let c = self.regs(i.w(2)?)?;
                let a = self.operand_regs(i.w(3)?)?;
                let b = self.operand_regs(i.w(4)?)?;
                if a.len() != b.len() || (c.len() != 1 && c.len() != a.len()) {
                    return Err(i.err("OpSelect operands have different sizes"));
                }
                let out = (0..a.len())
                    .map(|k| {
                        let ck = if c.len() == 1 { c[0] } else { c[k] };
                        let ty = self.rty(a[k]);
                        self.tern(TernaryOp::Select, ty, ck, a[k], b[k])
                    })
                    .collect();
                self.def_checked(id, rt, out)
            }
            Op::Transpose => {
                let m = i.w(2)?;
                let (c, r) = self.mat_dims(self.vty(m)?)?;
                let regs = self.regs(m)?;
                let mut out = Vec::new();
                for row in 0..r {
                    for col in 0..c {
                        out.push(regs[col * r + row]);
                    }
                }
                self.def_checked(id, rt, out)
            }
            Op::Dot => {
                let a = self.regs(i.w(2)?)?;
                let b = self.regs(i.w(3)?)?;
                let d = self.dot(&a, &b)?;
                self.def_checked(id, rt, vec![d])
            }
            Op::VectorTimesScalar | Op::MatrixTimesScalar => {
                let a = self.regs(i.w(2)?)?;
                let s = self.reg1(i.w(3)?)?;
                let out = a
                    .iter()
                    .map(|&x| {
                        let ty = self.rty(x);
                        self.bin(BinaryOp::FMul, ty, x, s)
                    })
                    .collect();
                self.def_checked(id, rt, out)
            }
            Op::VectorTimesMatrix => {
                let v = self.regs(i.w(2)?)?;
                let mid = i.w(3)?;
                let (c, r) = self.mat_dims(self.vty(mid)?)?;
                let m = self.regs(mid)?;
                if v.len() != r {
                    return Err(i.err("vector size does not match the matrix rows"));
                }
                let mut out = Vec::new();
                for col in 0..c {
                    out.push(self.dot(&v, &m[col * r..(col + 1) * r])?);
                }
                self.def_checked(id, rt, out)
            }
            Op::MatrixTimesVector => {
                let mid = i.w(2)?;
                let (c, r) = self.mat_dims(self.vty(mid)?)?;
                let m = self.regs(mid)?;
                let v = self.regs(i.w(3)?)?;
                if v.len() != c {
                    return Err(i.err("vector size does not match the matrix columns"));
                }
                let mut out = Vec::new();
                for row in 0..r {
                    let rowv: Vec<Reg> = (0..c).map(|col| m[col * r + row]).collect();
                    out.push(self.dot(&rowv, &v)?);
                }
                self.def_checked(id, rt, out)
            }
            Op::MatrixTimesMatrix => {
                let (aid, bid) = (i.w(2)?, i.w(3)?);
                let (ac, ar) = self.mat_dims(self.vty(aid)?)?;
                let (bc, br) = self.mat_dims(self.vty(bid)?)?;
                if ac != br {
                    return Err(i.err("matrix sizes do not agree"));
                }
                let a = self.regs(aid)?;
                let b = self.regs(bid)?;
                let mut out = Vec::new();
                for j in 0..bc {
                    for row in 0..ar {
                        let rowv: Vec<Reg> = (0..ac).map(|l| a[l * ar + row]).collect();
                        out.push(self.dot(&rowv, &b[j * br..(j + 1) * br])?);
                    }
                }
                self.def_checked(id, rt, out)
            }
            Op::OuterProduct => {
                let a = self.regs(i.w(2)?)?;
                let b = self.regs(i.w(3)?)?;
                let mut out = Vec::new();
                for &y in &b {
                    for &x in &a {
                        let ty = self.rty(x);
                        out.push(self.bin(BinaryOp::FMul, ty, x, y));
                    }
                }
                self.def_checked(id, rt, out)
            }
            Op::IAddCarry | Op::ISubBorrow | Op::UMulExtended | Op::SMulExtended => {
                let (lo_op, hi_op) = match i.op {
                    Op::IAddCarry => (BinaryOp::IAdd, BinaryOp::AddCarry),
                    Op::ISubBorrow => (BinaryOp::ISub, BinaryOp::SubBorrow),
                    Op::UMulExtended => (BinaryOp::IMul, BinaryOp::UMulHi),
                    _ => (BinaryOp::IMul, BinaryOp::SMulHi),
                };
                let a = self.regs(i.w(2)?)?;
                let b = self.regs(i.w(3)?)?;
                let mut out = self.map2(lo_op, &a, &b)?;
                out.extend(self.map2(hi_op, &a, &b)?);
                self.def_checked(id, rt, out)
            }
            Op::Any | Op::All => {
                let v = self.regs(i.w(2)?)?;
                let op = if i.op == Op::Any {
                    BinaryOp::LogicalOr
                } else {
                    BinaryOp::LogicalAnd
                };
                let mut acc = v[0];
                for &x in &v[1..] {
                    acc = self.bin(op, ScalarTy::Bool, acc, x);
                }
                self.def_checked(id, rt, vec![acc])
            }
            Op::BitFieldInsert => {
                let base = self.regs(i.w(2)?)?;
                let ins = self.regs(i.w(3)?)?;
                let off = self.reg1(i.w(4)?)?;
                let cnt = self.reg1(i.w(5)?)?;
                let (off, cnt) = (self.as_i32(off), self.as_i32(cnt));
                if base.len() != ins.len() {
                    return Err(i.err("operands have different component counts"));
                }
                let mut out = Vec::new();
                for (&b, &x) in base.iter().zip(&ins) {
                    let ty = self.rty(b);
                    let dst = self.reg(ty);
                    self.emit(Inst::BitFieldInsert {
                        ty,
                        dst,
                        base: b,
                        insert: x,
                        offset: off,
                        count: cnt,
                    });
                    out.push(dst);
                }
                self.def_checked(id, rt, out)
            }
            Op::BitFieldSExtract | Op::BitFieldUExtract => {
                let op = if i.op == Op::BitFieldSExtract {
                    TernaryOp::BitFieldSExtract
                } else {
                    TernaryOp::BitFieldUExtract
                };
                let base = self.regs(i.w(2)?)?;
                let off = self.reg1(i.w(3)?)?;
                let cnt = self.reg1(i.w(4)?)?;
                let (off, cnt) = (self.as_i32(off), self.as_i32(cnt));
                let out = base
                    .iter()
                    .map(|&b| {
                        let ty = self.rty(b);
                        self.tern(op, ty, b, off, cnt)
                    })
                    .collect();
                self.def_checked(id, rt, out)
            }
            _ => Err(i.unsup("opcode is not lowered")),
        }
    }

    /// `OpBitcast` between equal-sized types, also between different component counts.
    fn bitcast(&mut self, a: &[Reg], rt: u32) -> Result<Vec<Reg>> {
        let to = self.leaves(rt)?;
        if to.len() == a.len() {
            return Ok(a
                .iter()
                .zip(&to)
                .map(|(&x, &t)| {
                    let f = self.rty(x);
                    self.conv(ConvOp::Bitcast, f, t, x)
                })
                .collect());
        }
        // Through a stream of 32-bit words.
        let mut words = Vec::new();
        let mut pending: Vec<Reg> = Vec::new();
        for &x in a {
            let f = self.rty(x);
            match f.bits() {
                64 => {
                    words.push(self.un(UnaryOp::Lo32, f, x));
                    words.push(self.un(UnaryOp::Hi32, f, x));
                }
                32 => words.push(self.conv(ConvOp::Bitcast, f, ScalarTy::I32, x)),
                w => {
                    let it = if w == 16 { ScalarTy::I16 } else { ScalarTy::I8 };
                    let xi = self.conv(ConvOp::Bitcast, f, it, x);
                    pending.push(self.conv(ConvOp::UConvert, it, ScalarTy::I32, xi));
                    if pending.len() as u32 * w == 32 {
                        let mut acc = pending[0];
                        for (k, &p) in pending.iter().enumerate().skip(1) {
                            let sh = self.k32(k as u32 * w);
                            let s = self.bin(BinaryOp::Shl, ScalarTy::I32, p, sh);
                            acc = self.bin(BinaryOp::Or, ScalarTy::I32, acc, s);
                        }
                        words.push(acc);
                        pending.clear();
                    }
                }
            }
        }
        let mut out = Vec::new();
        let mut wi = 0;
        let mut sub = 0;
        for &t in &to {
            let next = |wi: usize| {
                words
                    .get(wi)
                    .copied()
                    .ok_or_else(|| self.err("OpBitcast between types of different sizes"))
            };
            match t.bits() {
                64 => {
                    let (lo, hi) = (next(wi)?, next(wi + 1)?);
                    out.push(self.bin(BinaryOp::Join64, t, lo, hi));
                    wi += 2;
                }
                32 => {
                    let w = next(wi)?;
                    out.push(self.conv(ConvOp::Bitcast, ScalarTy::I32, t, w));
                    wi += 1;
                }
                w => {
                    let word = next(wi)?;
                    let sh = self.k32(sub * w);
                    let s = self.bin(BinaryOp::ShrL, ScalarTy::I32, word, sh);
                    let it = if w == 16 { ScalarTy::I16 } else { ScalarTy::I8 };
                    let n = self.conv(ConvOp::UConvert, ScalarTy::I32, it, s);
                    out.push(self.conv(ConvOp::Bitcast, it, t, n));
                    sub += 1;
                    if sub * w == 32 {
                        sub = 0;
                        wi += 1;
                    }
                }
            }
        }
        if wi != words.len() || !pending.is_empty() {
            return Err(self.err("OpBitcast between types of different sizes"));
        }
        Ok(out)
    }
}
