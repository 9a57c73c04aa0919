//! Arithmetic: LLVM's binary operators, casts, comparisons and selects, and the math `dx.op`s
//! (unary, binary and tertiary float and integer ops, dots — packed ones included —, bit
//! fields, `Msad`, half and double packing).
//!
//! DXIL's own meanings win where they differ from GLSL's: `Exp` and `Log` are base 2,
//! `FirstbitHi`/`FirstbitSHi` count from the most significant bit (DXC adds the `31 - x`),
//! `Saturate` sends NaN to 0, `FMad` is an unfused multiply-add, and `Ibfe`/`Ubfe`/`Bfi` take
//! their width and offset modulo 32 as D3D's bit-field instructions do. LLVM's `i1` values
//! are the IR's `Bool`: their bitwise operators become logical ones.

use crate::front::build::IrBuilder;
use crate::ir::{BinaryOp as B, ConvOp, Reg, ScalarTy, TernaryOp, UnaryOp as U};

use super::super::module::{BinOp, CastOp, CmpPredicate, Instruction, Value};
use super::{LResult, Lower, Val};

impl<'a> Lower<'a> {
    pub(crate) fn llvm_math(&mut self, inst: &Instruction) -> LResult<()> {
        match inst {
            Instruction::Binary {
                op, lhs, rhs, ty, ..
            } => {
                let t = self.scalar_of(*ty)?;
                let a = self.scalar(*lhs)?;
                let b = self.scalar(*rhs)?;
                let r = self.binop(*op, t, a, b)?;
                self.set_scalar(r);
            }
            Instruction::Cast { op, value, ty } => {
                // pointer bitcasts (`[4 x float]*` to `float*`) keep the word address
                if let Val::Ptr(p) = self.val(*value)? {
                    self.set_result(Val::Ptr(p));
                    return Ok(());
                }
                let from = self.ty_of(*value)?;
                let to = self.scalar_of(*ty)?;
                let a = self.scalar(*value)?;
                let r = self.cast(*op, from, to, a)?;
                self.set_scalar(r);
            }
            Instruction::Cmp { pred, lhs, rhs, .. } => {
                let t = self.ty_of(*lhs)?;
                let a = self.scalar(*lhs)?;
                let b = self.scalar(*rhs)?;
                let r = self.cmp(*pred, t, a, b);
                self.set_scalar(r);
            }
            Instruction::Select {
                cond,
                if_true,
                if_false,
                ..
            } => {
                let c = self.scalar(*cond)?;
                let a = self.scalars(*if_true)?;
                let b = self.scalars(*if_false)?;
                if a.len() != b.len() {
                    return Err(self.invalid("select of values of different sizes"));
                }
                let out: Vec<Reg> = a
                    .iter()
                    .zip(&b)
                    .map(|(&x, &y)| {
                        let ty = self.f.regs[x as usize];
                        self.tern(TernaryOp::Select, ty, c, x, y)
                    })
                    .collect();
                self.set_result(if out.len() == 1 {
                    Val::Scalar(out[0])
                } else {
                    Val::Agg(out)
                });
            }
            _ => unreachable!("llvm_math is called for arithmetic instructions only"),
        }
        Ok(())
    }

    fn binop(&mut self, op: BinOp, t: ScalarTy, a: Reg, b: Reg) -> LResult<Reg> {
        if t == ScalarTy::Bool {
            let o = match op {
                BinOp::And | BinOp::Mul => B::LogicalAnd,
                BinOp::Or => B::LogicalOr,
                BinOp::Xor | BinOp::Add | BinOp::Sub => B::LogicalNotEqual,
                _ => return Err(self.not_run(format!("{op:?} on i1"))),
            };
            return Ok(self.bin(o, t, a, b));
        }
        let o = match op {
            BinOp::Add => B::IAdd,
            BinOp::FAdd => B::FAdd,
            BinOp::Sub => B::ISub,
            BinOp::FSub => B::FSub,
            BinOp::Mul => B::IMul,
            BinOp::FMul => B::FMul,
            BinOp::UDiv => B::UDiv,
            BinOp::SDiv => B::SDiv,
            BinOp::FDiv => B::FDiv,
            BinOp::URem => B::UMod,
            BinOp::SRem => B::SRem,
            BinOp::FRem => B::FRem,
            BinOp::Shl => B::Shl,
            BinOp::LShr => B::ShrL,
            BinOp::AShr => B::ShrA,
            BinOp::And => B::And,
            BinOp::Or => B::Or,
            BinOp::Xor => B::Xor,
        };
        Ok(self.bin(o, t, a, b))
    }

    fn cast(&mut self, op: CastOp, from: ScalarTy, to: ScalarTy, a: Reg) -> LResult<Reg> {
        use ScalarTy::Bool;
        Ok(match op {
            CastOp::ZExt | CastOp::SExt if from == Bool => {
                let one = self.konst(to, if op == CastOp::ZExt { 1 } else { u64::MAX });
                let zero = self.konst(to, 0);
                self.tern(TernaryOp::Select, to, a, one, zero)
            }
            CastOp::Trunc if to == Bool => {
                let one = self.konst(from, 1);
                let zero = self.konst(from, 0);
                let low = self.bin(B::And, from, a, one);
                self.bin(B::INe, from, low, zero)
            }
            CastOp::UiToFp | CastOp::SiToFp if from == Bool => {
                let one = self.konst(to, float_one(to));
                let zero = self.konst(to, 0);
                self.tern(TernaryOp::Select, to, a, one, zero)
            }
            CastOp::Trunc | CastOp::ZExt => self.convert(ConvOp::UConvert, from, to, a),
            CastOp::SExt => self.convert(ConvOp::SConvert, from, to, a),
            CastOp::FpToUi => self.convert(ConvOp::FToU, from, to, a),
            CastOp::FpToSi => self.convert(ConvOp::FToS, from, to, a),
            CastOp::UiToFp => self.convert(ConvOp::UToF, from, to, a),
            CastOp::SiToFp => self.convert(ConvOp::SToF, from, to, a),
            CastOp::FpTrunc | CastOp::FpExt => self.convert(ConvOp::FConvert, from, to, a),
            CastOp::BitCast if from == to => a,
            CastOp::BitCast => self.convert(ConvOp::Bitcast, from, to, a),
            other => return Err(self.not_run(format!("the cast {other:?}"))),
        })
    }

    fn cmp(&mut self, pred: CmpPredicate, t: ScalarTy, a: Reg, b: Reg) -> Reg {
        use CmpPredicate as P;
        let o = match pred {
            P::FFalse => return self.konst(ScalarTy::Bool, 0),
            P::FTrue => return self.konst(ScalarTy::Bool, 1),
            P::FOeq => B::FOrdEq,
            P::FOgt => B::FOrdGt,
            P::FOge => B::FOrdGe,
            P::FOlt => B::FOrdLt,
            P::FOle => B::FOrdLe,
            P::FOne => B::FOrdNe,
            P::FOrd => B::Ordered,
            P::FUno => B::Unordered,
            P::FUeq => B::FUnordEq,
            P::FUgt => B::FUnordGt,
            P::FUge => B::FUnordGe,
            P::FUlt => B::FUnordLt,
            P::FUle => B::FUnordLe,
            P::FUne => B::FUnordNe,
            P::IEq if t == ScalarTy::Bool => B::LogicalEqual,
            P::INe if t == ScalarTy::Bool => B::LogicalNotEqual,
            P::IEq => B::IEq,
            P::INe => B::INe,
            P::IUgt => B::UGt,
            P::IUge => B::UGe,
            P::IUlt => B::ULt,
            P::IUle => B::ULe,
            P::ISgt => B::SGt,
            P::ISge => B::SGe,
            P::ISlt => B::SLt,
            P::ISle => B::SLe,
        };
        self.bin(o, t, a, b)
    }

    /// The result type of the current call (its overload).
    pub(crate) fn result_ty(&self) -> LResult<ScalarTy> {
        let inst = &self.func.insts[self.at.index()];
        let ty = inst
            .result_type()
            .ok_or_else(|| self.invalid("a call without a result"))?;
        self.scalar_of(ty)
    }

    /// Math dx.ops. Returns `false` for other ops.
    pub(crate) fn math_op(&mut self, op: u32, args: &[Value]) -> LResult<bool> {
        let unary = |u: U| Some(u);
        let un = match op {
            6 => unary(U::FAbs),
            12 => unary(U::Cos),
            13 => unary(U::Sin),
            14 => unary(U::Tan),
            15 => unary(U::Acos),
            16 => unary(U::Asin),
            17 => unary(U::Atan),
            18 => unary(U::Cosh),
            19 => unary(U::Sinh),
            20 => unary(U::Tanh),
            21 => unary(U::Exp2),
            22 => unary(U::Fract),
            23 => unary(U::Log2),
            24 => unary(U::Sqrt),
            25 => unary(U::InverseSqrt),
            26 => unary(U::RoundEven),
            27 => unary(U::Floor),
            28 => unary(U::Ceil),
            29 => unary(U::Trunc),
            30 => unary(U::BitReverse),
            _ => None,
        };
        if let Some(u) = un {
            let t = self.ty_of(self.arg(args, 0)?)?;
            let a = self.scalar(self.arg(args, 0)?)?;
            let r = self.un(u, t, a);
            self.set_scalar(r);
            return Ok(true);
        }
        let bin = match op {
            35 => Some(B::FMax),
            36 => Some(B::FMin),
            37 => Some(B::SMax),
            38 => Some(B::SMin),
            39 => Some(B::UMax),
            40 => Some(B::UMin),
            _ => None,
        };
        if let Some(b) = bin {
            let t = self.ty_of(self.arg(args, 0)?)?;
            let a = self.scalar(self.arg(args, 0)?)?;
            let c = self.scalar(self.arg(args, 1)?)?;
            let r = self.bin(b, t, a, c);
            self.set_scalar(r);
            return Ok(true);
        }
        match op {
            // Saturate: max then min (minNum semantics send NaN to 0)
            7 => {
                let t = self.ty_of(self.arg(args, 0)?)?;
                let a = self.scalar(self.arg(args, 0)?)?;
                let zero = self.konst(t, 0);
                let one = self.konst(t, float_one(t));
                let lo = self.bin(B::FMax, t, a, zero);
                let r = self.bin(B::FMin, t, lo, one);
                self.set_scalar(r);
            }
            // IsNaN, IsInf, IsFinite
            8..=10 => {
                let t = self.ty_of(self.arg(args, 0)?)?;
                let a = self.scalar(self.arg(args, 0)?)?;
                let r = match op {
                    8 => self.un(U::IsNan, t, a),
                    9 => self.un(U::IsInf, t, a),
                    _ => {
                        let n = self.un(U::IsNan, t, a);
                        let i = self.un(U::IsInf, t, a);
                        let bad = self.bin(B::LogicalOr, ScalarTy::Bool, n, i);
                        self.un(U::LogicalNot, ScalarTy::Bool, bad)
                    }
                };
                self.set_scalar(r);
            }
            // Countbits, FirstbitLo, FirstbitHi, FirstbitSHi
            31..=34 => {
                let t = self.ty_of(self.arg(args, 0)?)?;
                let a = self.scalar(self.arg(args, 0)?)?;
                let r = match op {
                    31 => self.un(U::BitCount, t, a),
                    32 => self.un(U::FindILsb, t, a),
                    _ => {
                        let msb = self.un(if op == 33 { U::FindUMsb } else { U::FindSMsb }, t, a);
                        // counted from the top: (width - 1) - msb, -1 stays -1
                        let top = self.k32(t.bits() - 1);
                        let from_top = self.bin(B::ISub, ScalarTy::I32, top, msb);
                        let none = self.k32(u32::MAX);
                        let is_none = self.bin(B::IEq, ScalarTy::I32, msb, none);
                        self.tern(TernaryOp::Select, ScalarTy::I32, is_none, none, from_top)
                    }
                };
                self.set_scalar(r);
            }
            // IMul, UMul: {hi, lo}; UDiv: {quotient, remainder}; UAddc, USubb: {result, carry}
            41..=45 => {
                let t = self.ty_of(self.arg(args, 0)?)?;
                let a = self.scalar(self.arg(args, 0)?)?;
                let b = self.scalar(self.arg(args, 1)?)?;
                let (x, y) = match op {
                    41 => (self.bin(B::SMulHi, t, a, b), self.bin(B::IMul, t, a, b)),
                    42 => (self.bin(B::UMulHi, t, a, b), self.bin(B::IMul, t, a, b)),
                    43 => (self.bin(B::UDiv, t, a, b), self.bin(B::UMod, t, a, b)),
                    44 => (self.bin(B::IAdd, t, a, b), self.bin(B::AddCarry, t, a, b)),
                    _ => (self.bin(B::ISub, t, a, b), self.bin(B::SubBorrow, t, a, b)),
                };
                self.set_result(Val::Agg(vec![x, y]));
            }
            // FMad, Fma, IMad, UMad
            46..=49 => {
                let t = self.ty_of(self.arg(args, 0)?)?;
                let a = self.scalar(self.arg(args, 0)?)?;
                let b = self.scalar(self.arg(args, 1)?)?;
                let c = self.scalar(self.arg(args, 2)?)?;
                let r = match op {
                    47 => self.tern(TernaryOp::Fma, t, a, b, c),
                    46 => {
                        let p = self.bin(B::FMul, t, a, b);
                        self.bin(B::FAdd, t, p, c)
                    }
                    _ => {
                        let p = self.bin(B::IMul, t, a, b);
                        self.bin(B::IAdd, t, p, c)
                    }
                };
                self.set_scalar(r);
            }
            // Ibfe, Ubfe (width, offset, value)
            51 | 52 => {
                let w = self.scalar(self.arg(args, 0)?)?;
                let o = self.scalar(self.arg(args, 1)?)?;
                let v = self.scalar(self.arg(args, 2)?)?;
                let r = self.bit_extract(op == 51, w, o, v);
                self.set_scalar(r);
            }
            // Bfi (width, offset, value, replaced)
            53 => {
                let w = self.scalar(self.arg(args, 0)?)?;
                let o = self.scalar(self.arg(args, 1)?)?;
                let v = self.scalar(self.arg(args, 2)?)?;
                let base = self.scalar(self.arg(args, 3)?)?;
                let m31 = self.k32(31);
                let w = self.bin(B::And, ScalarTy::I32, w, m31);
                let o = self.bin(B::And, ScalarTy::I32, o, m31);
                let dst = self.reg(ScalarTy::I32);
                self.emit(crate::ir::Inst::BitFieldInsert {
                    ty: ScalarTy::I32,
                    dst,
                    base,
                    insert: v,
                    offset: o,
                    count: w,
                });
                self.set_scalar(dst);
            }
            // Dot2, Dot3, Dot4: (a0..an, b0..bn)
            54..=56 => {
                let n = (op - 52) as usize;
                let t = self.result_ty()?;
                let mut acc = None;
                for i in 0..n {
                    let a = self.scalar(self.arg(args, i)?)?;
                    let b = self.scalar(self.arg(args, n + i)?)?;
                    let p = self.bin(B::FMul, t, a, b);
                    acc = Some(match acc {
                        None => p,
                        Some(s) => self.bin(B::FAdd, t, s, p),
                    });
                }
                self.set_scalar(acc.expect("n >= 2"));
            }
            // MakeDouble (lo, hi), SplitDouble
            101 => {
                let lo = self.scalar(self.arg(args, 0)?)?;
                let hi = self.scalar(self.arg(args, 1)?)?;
                let r = self.bin(B::Join64, ScalarTy::F64, lo, hi);
                self.set_scalar(r);
            }
            102 => {
                let a = self.scalar(self.arg(args, 0)?)?;
                let lo = self.un(U::Lo32, ScalarTy::F64, a);
                let hi = self.un(U::Hi32, ScalarTy::F64, a);
                self.set_result(Val::Agg(vec![lo, hi]));
            }
            // bitcasts between same-width integers and floats
            124..=129 => {
                let a = self.scalar(self.arg(args, 0)?)?;
                let from = self.ty_of(self.arg(args, 0)?)?;
                let to = self.result_ty()?;
                let r = self.convert(ConvOp::Bitcast, from, to, a);
                self.set_scalar(r);
            }
            // LegacyF32ToF16: the half bits in the low 16 bits of an i32
            130 => {
                let a = self.scalar(self.arg(args, 0)?)?;
                let zero = self.kf32(0.0);
                let r = self.bin(B::PackHalf2x16, ScalarTy::F32, a, zero);
                self.set_scalar(r);
            }
            131 => {
                let a = self.scalar(self.arg(args, 0)?)?;
                let r = self.un(U::UnpackHalf2x16(0), ScalarTy::I32, a);
                self.set_scalar(r);
            }
            // LegacyDoubleToFloat / SInt32 / UInt32
            132..=134 => {
                let a = self.scalar(self.arg(args, 0)?)?;
                let to = self.result_ty()?;
                let c = match op {
                    132 => ConvOp::FConvert,
                    133 => ConvOp::FToS,
                    _ => ConvOp::FToU,
                };
                let r = self.convert(c, ScalarTy::F64, to, a);
                self.set_scalar(r);
            }
            // Unpack4x8(mode: 0 unsigned, 1 signed, packed) -> four bytes extended
            219 => {
                let signed = self.const_u32(self.arg(args, 0)?)? == 1;
                let pk = self.scalar(self.arg(args, 1)?)?;
                let inst = &self.func.insts[self.at.index()];
                let mut leaves = Vec::new();
                self.leaves(inst.result_type().expect("a call"), &mut leaves)?;
                let t = leaves.first().copied().unwrap_or(ScalarTy::I32);
                let i = ScalarTy::I32;
                let eight = self.k32(8);
                let mut out = Vec::new();
                for k in 0..4 {
                    let off = self.k32(8 * k);
                    let op = if signed {
                        TernaryOp::BitFieldSExtract
                    } else {
                        TernaryOp::BitFieldUExtract
                    };
                    let b = self.tern(op, i, pk, off, eight);
                    out.push(if t == i {
                        b
                    } else {
                        self.convert(ConvOp::UConvert, i, t, b)
                    });
                }
                self.set_result(Val::Agg(out));
            }
            // Pack4x8(mode: 0 truncate, 1 clamp to u8, 2 clamp to i8, x, y, z, w)
            220 => {
                let mode = self.const_u32(self.arg(args, 0)?)?;
                let i = ScalarTy::I32;
                let (lo, hi) = match mode {
                    1 => (Some(0u32), Some(255u32)),
                    2 => (Some(-128i32 as u32), Some(127u32)),
                    _ => (None, None),
                };
                let mask = self.k32(0xFF);
                let mut acc = self.k32(0);
                for k in 0..4 {
                    let v = self.arg(args, 1 + k)?;
                    let t = self.ty_of(v)?;
                    let mut x = self.scalar(v)?;
                    if t != i {
                        x = self.convert(ConvOp::SConvert, t, i, x);
                    }
                    if let (Some(lo), Some(hi)) = (lo, hi) {
                        let (lo, hi) = (self.k32(lo), self.k32(hi));
                        x = self.tern(TernaryOp::SClamp, i, x, lo, hi);
                    }
                    let byte = self.bin(B::And, i, x, mask);
                    let sh = self.k32(8 * k as u32);
                    let placed = self.bin(B::Shl, i, byte, sh);
                    acc = self.bin(B::Or, i, acc, placed);
                }
                self.set_scalar(acc);
            }
            // Msad(ref, src, accum): accum plus |ref byte - src byte| over the bytes where ref's
            // byte is not 0, wrapping at 32 bits
            50 => {
                let i = ScalarTy::I32;
                let r = self.scalar(self.arg(args, 0)?)?;
                let s = self.scalar(self.arg(args, 1)?)?;
                let mut acc = self.scalar(self.arg(args, 2)?)?;
                let zero = self.k32(0);
                for k in 0..4 {
                    let [rb, sb] = self.bytes(k, false, [r, s]);
                    let d = self.bin(B::ISub, i, rb, sb);
                    let d = self.un(U::SAbs, i, d);
                    let counted = self.bin(B::INe, i, rb, zero);
                    let d = self.tern(TernaryOp::Select, i, counted, d, zero);
                    acc = self.bin(B::IAdd, i, acc, d);
                }
                self.set_scalar(acc);
            }
            // Dot2AddHalf(acc, ax, ay, bx, by): acc + (ax·bx + ay·by), the halves widened to
            // f32 first (their products are exact there), the dot finished before the add
            162 => {
                let acc = self.scalar(self.arg(args, 0)?)?;
                let mut h = [0; 4];
                for (k, r) in h.iter_mut().enumerate() {
                    let v = self.scalar(self.arg(args, 1 + k)?)?;
                    *r = self.convert(ConvOp::FConvert, ScalarTy::F16, ScalarTy::F32, v);
                }
                let f = ScalarTy::F32;
                let x = self.bin(B::FMul, f, h[0], h[2]);
                let y = self.bin(B::FMul, f, h[1], h[3]);
                let dot = self.bin(B::FAdd, f, x, y);
                let r = self.bin(B::FAdd, f, acc, dot);
                self.set_scalar(r);
            }
            // Dot4AddI8Packed / Dot4AddU8Packed(acc, a, b): acc plus the products of the four
            // byte pairs (signed or unsigned bytes), wrapping at 32 bits
            163 | 164 => {
                let i = ScalarTy::I32;
                let mut acc = self.scalar(self.arg(args, 0)?)?;
                let a = self.scalar(self.arg(args, 1)?)?;
                let b = self.scalar(self.arg(args, 2)?)?;
                for k in 0..4 {
                    let [ab, bb] = self.bytes(k, op == 163, [a, b]);
                    let p = self.bin(B::IMul, i, ab, bb);
                    acc = self.bin(B::IAdd, i, acc, p);
                }
                self.set_scalar(acc);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Byte `k` of each of two packed words, sign- or zero-extended.
    fn bytes(&mut self, k: u32, signed: bool, words: [Reg; 2]) -> [Reg; 2] {
        let off = self.k32(8 * k);
        let eight = self.k32(8);
        let op = if signed {
            TernaryOp::BitFieldSExtract
        } else {
            TernaryOp::BitFieldUExtract
        };
        words.map(|w| self.tern(op, ScalarTy::I32, w, off, eight))
    }

    /// D3D's `ibfe`/`ubfe`: width and offset modulo 32; width 0 gives 0; a field running past
    /// bit 31 is `value >> offset` (arithmetic for `ibfe`).
    fn bit_extract(&mut self, signed: bool, w: Reg, o: Reg, v: Reg) -> Reg {
        let i = ScalarTy::I32;
        let m31 = self.k32(31);
        let w = self.bin(B::And, i, w, m31);
        let o = self.bin(B::And, i, o, m31);
        let end = self.bin(B::IAdd, i, w, o);
        let k32 = self.k32(32);
        let past = self.bin(B::UGe, i, end, k32);
        let shifted = self.bin(if signed { B::ShrA } else { B::ShrL }, i, v, o);
        let field = self.tern(
            if signed {
                TernaryOp::BitFieldSExtract
            } else {
                TernaryOp::BitFieldUExtract
            },
            i,
            v,
            o,
            w,
        );
        let picked = self.tern(TernaryOp::Select, i, past, shifted, field);
        let zero = self.k32(0);
        let is_zero = self.bin(B::IEq, i, w, zero);
        self.tern(TernaryOp::Select, i, is_zero, zero, picked)
    }
}

/// The bits of 1.0 in a float type (1 for integers).
pub(crate) fn float_one(t: ScalarTy) -> u64 {
    match t {
        ScalarTy::F16 => half::f16::ONE.to_bits() as u64,
        ScalarTy::F32 => 1f32.to_bits() as u64,
        ScalarTy::F64 => 1f64.to_bits(),
        _ => 1,
    }
}
