//! Constants and specialisation: `OpConstant*`, `OpSpecConstant*` (with overrides by SpecId) and
//! `OpSpecConstantOp` folded at lower time. Every constant id keeps its leaf bits (`cvals`, used
//! for array lengths, struct indices, workgroup sizes) and gets deduplicated constant registers.

use spirv::{Decoration, Op};

use crate::ir::ScalarTy;
use crate::Result;

use super::lower::{canon, Lower};
use super::parse::I;

fn sext(bits: u64, w: u32) -> i64 {
    if w >= 64 {
        bits as i64
    } else {
        ((bits << (64 - w)) as i64) >> (64 - w)
    }
}

impl Lower<'_> {
    fn set_const(&mut self, id: u32, ty: u32, bits: Vec<u64>) -> Result<()> {
        let leaves = self.leaves(ty)?;
        if leaves.len() != bits.len() {
            return Err(self.err(&format!("constant %{id} does not match its type %{ty}")));
        }
        let bits: Vec<u64> = leaves.iter().zip(bits).map(|(s, b)| canon(*s, b)).collect();
        let regs = self.const_regs(ty, &bits)?;
        self.cvals.insert(id, (ty, bits));
        self.def(id, ty, regs);
        Ok(())
    }

    fn cbits(&self, id: u32) -> Result<Vec<u64>> {
        self.cvals
            .get(&id)
            .map(|(_, v)| v.clone())
            .ok_or_else(|| self.err(&format!("%{id} is not a constant")))
    }

    fn spec_override(&self, id: u32) -> Option<u64> {
        let sid = self.m.deco(id, Decoration::SpecId)?.first()?;
        self.spec.get(sid).copied()
    }

    /// A constant-defining global instruction.
    pub(crate) fn constant(&mut self, i: &I) -> Result<()> {
        let (ty, id) = (i.w(0)?, i.w(1)?);
        match i.op {
            Op::ConstantTrue | Op::ConstantFalse | Op::SpecConstantTrue | Op::SpecConstantFalse => {
                if self.scalar_of(ty)? != ScalarTy::Bool {
                    return Err(i.err("boolean constant of a non-boolean type"));
                }
                let mut v = matches!(i.op, Op::ConstantTrue | Op::SpecConstantTrue) as u64;
                if matches!(i.op, Op::SpecConstantTrue | Op::SpecConstantFalse) {
                    if let Some(o) = self.spec_override(id) {
                        v = (o != 0) as u64;
                    }
                }
                self.set_const(id, ty, vec![v])
            }
            Op::Constant | Op::SpecConstant => {
                let s = self.scalar_of(ty)?;
                if s == ScalarTy::Bool {
                    return Err(i.err("OpConstant of boolean type"));
                }
                let lo = i.w(2)? as u64;
                let mut v = if s.is_wide() {
                    lo | (i.w(3)? as u64) << 32
                } else {
                    lo
                };
                if i.op == Op::SpecConstant {
                    if let Some(o) = self.spec_override(id) {
                        v = o;
                    }
                }
                self.set_const(id, ty, vec![v])
            }
            Op::ConstantComposite | Op::SpecConstantComposite => {
                let mut bits = Vec::new();
                for &c in i.rest(2) {
                    bits.extend(self.cbits(c)?);
                }
                self.set_const(id, ty, bits)
            }
            Op::ConstantNull => {
                let n = self.leaf_count(ty)?;
                self.set_const(id, ty, vec![0; n])
            }
            Op::SpecConstantOp => {
                let bits = self.fold(i, ty)?;
                self.set_const(id, ty, bits)
            }
            _ => Err(i.err("not a constant instruction")),
        }
    }

    /// Folds an `OpSpecConstantOp`.
    fn fold(&mut self, i: &I, ty: u32) -> Result<Vec<u64>> {
        let opc = i.w(2)?;
        let op = Op::from_u32(opc).ok_or_else(|| i.err(&format!("unknown opcode {opc}")))?;
        let args = i.rest(3);
        let arg = |k: usize| args.get(k).copied().ok_or_else(|| i.err("missing operand"));
        let rleaves = self.leaves(ty)?;
        match op {
            Op::VectorShuffle => {
                let a = self.cbits(arg(0)?)?;
                let b = self.cbits(arg(1)?)?;
                let all: Vec<u64> = a.iter().chain(&b).copied().collect();
                return args[2..]
                    .iter()
                    .map(|&k| {
                        if k == u32::MAX {
                            Ok(0)
                        } else {
                            all.get(k as usize)
                                .copied()
                                .ok_or_else(|| i.err("shuffle index out of range"))
                        }
                    })
                    .collect();
            }
            Op::CompositeExtract => {
                let c = arg(0)?;
                let (mut t, _) = self
                    .cvals
                    .get(&c)
                    .cloned()
                    .ok_or_else(|| i.err("not a constant"))?;
                let bits = self.cbits(c)?;
                let mut start = 0;
                let mut len = bits.len();
                for &k in &args[1..] {
                    let (ct, s, n) = self.child(t, k)?;
                    start += s;
                    len = n;
                    t = ct;
                }
                return Ok(bits[start..start + len].to_vec());
            }
            Op::CompositeInsert => {
                let obj = self.cbits(arg(0)?)?;
                let c = arg(1)?;
                let (mut t, _) = self
                    .cvals
                    .get(&c)
                    .cloned()
                    .ok_or_else(|| i.err("not a constant"))?;
                let mut bits = self.cbits(c)?;
                let mut start = 0;
                for &k in &args[2..] {
                    let (ct, s, _) = self.child(t, k)?;
                    start += s;
                    t = ct;
                }
                if start + obj.len() > bits.len() {
                    return Err(i.err("insert out of range"));
                }
                bits[start..start + obj.len()].copy_from_slice(&obj);
                return Ok(bits);
            }
            Op::Select => {
                let c = self.cbits(arg(0)?)?;
                let a = self.cbits(arg(1)?)?;
                let b = self.cbits(arg(2)?)?;
                return Ok((0..a.len())
                    .map(|k| {
                        let ck = if c.len() == 1 {
                            c[0]
                        } else {
                            c.get(k).copied().unwrap_or(0)
                        };
                        if ck != 0 {
                            a[k]
                        } else {
                            b.get(k).copied().unwrap_or(0)
                        }
                    })
                    .collect());
            }
            _ => {}
        }
        // Component-wise unary/binary ops.
        let a_id = arg(0)?;
        let a = self.cbits(a_id)?;
        let aty = self.cvals[&a_id].0;
        let aw = self.leaves(aty)?.first().map(|s| s.bits()).unwrap_or(32);
        let b = match args.get(1) {
            Some(&b) => Some(self.cbits(b)?),
            None => None,
        };
        let mut out = Vec::new();
        for (k, rl) in rleaves.iter().enumerate() {
            let x = *a.get(k).ok_or_else(|| i.err("operand size mismatch"))?;
            let y = match &b {
                Some(b) => *b.get(k).ok_or_else(|| i.err("operand size mismatch"))?,
                None => 0,
            };
            let w = aw;
            let (sx, sy) = (sext(x, w), sext(y, w));
            let rw = rl.bits();
            let v: u64 = match op {
                Op::SConvert => sext(x, w) as u64,
                Op::UConvert => x,
                Op::FConvert => return Err(i.unsup("OpSpecConstantOp FConvert")),
                Op::QuantizeToF16 => {
                    let f = f32::from_bits(x as u32);
                    half::f16::from_f32(f).to_f32().to_bits() as u64
                }
                Op::SNegate => (sx.wrapping_neg()) as u64,
                Op::Not => !x,
                Op::IAdd => x.wrapping_add(y),
                Op::ISub => x.wrapping_sub(y),
                Op::IMul => x.wrapping_mul(y),
                Op::UDiv => x.checked_div(y).unwrap_or(0),
                Op::SDiv => sx.checked_div(sy).unwrap_or(0) as u64,
                Op::UMod => x.checked_rem(y).unwrap_or(0),
                Op::SRem => sx.checked_rem(sy).unwrap_or(0) as u64,
                Op::SMod => {
                    let r = sx.checked_rem(sy).unwrap_or(0);
                    (if r != 0 && (r < 0) != (sy < 0) {
                        r + sy
                    } else {
                        r
                    }) as u64
                }
                Op::ShiftLeftLogical => {
                    if y >= w as u64 {
                        0
                    } else {
                        x << y
                    }
                }
                Op::ShiftRightLogical => {
                    if y >= w as u64 {
                        0
                    } else {
                        canon_w(x, w) >> y
                    }
                }
                Op::ShiftRightArithmetic => (sx >> y.min(63)) as u64,
                Op::BitwiseOr => x | y,
                Op::BitwiseXor => x ^ y,
                Op::BitwiseAnd => x & y,
                Op::LogicalOr => ((x != 0) || (y != 0)) as u64,
                Op::LogicalAnd => ((x != 0) && (y != 0)) as u64,
                Op::LogicalNot => (x == 0) as u64,
                Op::LogicalEqual => ((x != 0) == (y != 0)) as u64,
                Op::LogicalNotEqual => ((x != 0) != (y != 0)) as u64,
                Op::IEqual => (canon_w(x, w) == canon_w(y, w)) as u64,
                Op::INotEqual => (canon_w(x, w) != canon_w(y, w)) as u64,
                Op::ULessThan => (canon_w(x, w) < canon_w(y, w)) as u64,
                Op::UGreaterThan => (canon_w(x, w) > canon_w(y, w)) as u64,
                Op::ULessThanEqual => (canon_w(x, w) <= canon_w(y, w)) as u64,
                Op::UGreaterThanEqual => (canon_w(x, w) >= canon_w(y, w)) as u64,
                Op::SLessThan => (sx < sy) as u64,
                Op::SGreaterThan => (sx > sy) as u64,
                Op::SLessThanEqual => (sx <= sy) as u64,
                Op::SGreaterThanEqual => (sx >= sy) as u64,
                other => {
                    return Err(i.unsup(&format!("OpSpecConstantOp with Op{other:?}")));
                }
            };
            out.push(canon_w(v, rw));
        }
        Ok(out)
    }
}

fn canon_w(x: u64, w: u32) -> u64 {
    if w >= 64 {
        x
    } else {
        x & ((1u64 << w) - 1)
    }
}
