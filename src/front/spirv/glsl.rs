//! `OpExtInst` of GLSL.std.450: most instructions map one-to-one to IR ops per component; the
//! geometric and matrix ones (Length, Distance, Cross, Normalize, FaceForward, Reflect, Refract,
//! Determinant, MatrixInverse), Modf/Frexp (and their Struct forms) and the packing ones are
//! expanded here. Instructions of NonSemantic sets are ignored.

use crate::front::build::IrBuilder;
use crate::ir::{BinaryOp, ConvOp, Inst, InterpAt, Reg, ScalarTy, TernaryOp, UnaryOp};
use crate::Result;

use super::lower::{Lower, PSpace, Val};
use super::parse::I;

fn glsl_unary(n: u32) -> Option<UnaryOp> {
    use UnaryOp as U;
    Some(match n {
        1 => U::Round,
        2 => U::RoundEven,
        3 => U::Trunc,
        4 => U::FAbs,
        5 => U::SAbs,
        6 => U::FSign,
        7 => U::SSign,
        8 => U::Floor,
        9 => U::Ceil,
        10 => U::Fract,
        11 => U::Radians,
        12 => U::Degrees,
        13 => U::Sin,
        14 => U::Cos,
        15 => U::Tan,
        16 => U::Asin,
        17 => U::Acos,
        18 => U::Atan,
        19 => U::Sinh,
        20 => U::Cosh,
        21 => U::Tanh,
        22 => U::Asinh,
        23 => U::Acosh,
        24 => U::Atanh,
        27 => U::Exp,
        28 => U::Log,
        29 => U::Exp2,
        30 => U::Log2,
        31 => U::Sqrt,
        32 => U::InverseSqrt,
        73 => U::FindILsb,
        74 => U::FindSMsb,
        75 => U::FindUMsb,
        _ => return None,
    })
}

fn glsl_binary(n: u32) -> Option<BinaryOp> {
    use BinaryOp as B;
    Some(match n {
        25 => B::Atan2,
        26 => B::Pow,
        37 => B::FMin,
        38 => B::UMin,
        39 => B::SMin,
        40 => B::FMax,
        41 => B::UMax,
        42 => B::SMax,
        48 => B::Step,
        53 => B::Ldexp,
        79 => B::NMin,
        80 => B::NMax,
        _ => return None,
    })
}

fn glsl_ternary(n: u32) -> Option<TernaryOp> {
    use TernaryOp as T;
    Some(match n {
        43 => T::FClamp,
        44 => T::UClamp,
        45 => T::SClamp,
        46 => T::FMix,
        49 => T::SmoothStep,
        50 => T::Fma,
        81 => T::NClamp,
        _ => return None,
    })
}

/// Broadcasts a scalar operand to `n` components.
fn widen(v: Vec<Reg>, n: usize) -> Vec<Reg> {
    if v.len() == 1 && n > 1 {
        vec![v[0]; n]
    } else {
        v
    }
}

impl Lower<'_> {
    pub(crate) fn ext_inst(&mut self, i: &I) -> Result<()> {
        let (rt, id, set, n) = (i.w(0)?, i.w(1)?, i.w(2)?, i.w(3)?);
        match self.val(set)? {
            Val::ExtSet(true) => {}
            Val::ExtSet(false) => return Ok(()),
            _ => return Err(i.err("OpExtInst set is not an OpExtInstImport")),
        }
        let arg = |k: usize| i.w(4 + k);
        if let Some(op) = glsl_unary(n) {
            let a = self.regs(arg(0)?)?;
            let rs = self.leaves(rt)?;
            let mut out = Vec::new();
            for (k, &x) in a.iter().enumerate() {
                let ty = self.rty(x);
                let mut r = self.un(op, ty, x);
                let want = *rs.get(k).ok_or_else(|| i.err("result type too small"))?;
                if self.rty(r) != want {
                    r = self.conv(ConvOp::SConvert, self.rty(r), want, r);
                }
                out.push(r);
            }
            return self.def_checked(id, rt, out);
        }
        if let Some(op) = glsl_binary(n) {
            let a = self.regs(arg(0)?)?;
            let b = self.regs(arg(1)?)?;
            let nn = a.len().max(b.len());
            let (a, mut b) = (widen(a, nn), widen(b, nn));
            if op == BinaryOp::Ldexp {
                for x in b.iter_mut() {
                    // A 64-bit exponent is clamped into i32 first: any exponent beyond ±2^31
                    // already flushes to zero or overflows to infinity, so the clamp is exact,
                    // where a plain truncation would turn e.g. -2^32 into 0.
                    if self.rty(*x) == ScalarTy::I64 {
                        let lo = self.konst(ScalarTy::I64, i32::MIN as i64 as u64);
                        let hi = self.konst(ScalarTy::I64, i32::MAX as u64);
                        *x = self.tern(crate::ir::TernaryOp::SClamp, ScalarTy::I64, *x, lo, hi);
                    }
                    *x = self.as_i32(*x);
                }
                let out = a
                    .iter()
                    .zip(&b)
                    .map(|(&x, &e)| {
                        let ty = self.rty(x);
                        self.bin(op, ty, x, e)
                    })
                    .collect();
                return self.def_checked(id, rt, out);
            }
            let out = self.map2(op, &a, &b)?;
            return self.def_checked(id, rt, out);
        }
        if let Some(op) = glsl_ternary(n) {
            let a = self.regs(arg(0)?)?;
            let b = self.regs(arg(1)?)?;
            let c = self.regs(arg(2)?)?;
            let nn = a.len().max(b.len()).max(c.len());
            let (a, b, c) = (widen(a, nn), widen(b, nn), widen(c, nn));
            if a.len() != nn || b.len() != nn || c.len() != nn {
                return Err(i.err("operands have different component counts"));
            }
            let out = (0..nn)
                .map(|k| {
                    let ty = self.rty(if op == TernaryOp::SmoothStep {
                        c[k]
                    } else {
                        a[k]
                    });
                    self.tern(op, ty, a[k], b[k], c[k])
                })
                .collect();
            return self.def_checked(id, rt, out);
        }
        let out = match n {
            // InterpolateAtCentroid / AtSample / AtOffset of an Input variable
            76..=78 => {
                let p = match self.val(arg(0)?)? {
                    Val::Ptr(p) if p.space == PSpace::Local => p.clone(),
                    _ => return Err(i.err("InterpolateAt* of something not an input variable")),
                };
                let at = match n {
                    76 => InterpAt::Centroid,
                    77 => InterpAt::Sample(self.as_i32(self.regs(arg(1)?)?[0])),
                    _ => match self.regs(arg(1)?)?[..] {
                        [x, y] => InterpAt::Offset(x, y),
                        _ => return Err(i.err("InterpolateAtOffset needs a 2-component offset")),
                    },
                };
                let mut out = Vec::new();
                for (ty, o) in self.word_leaves(p.pointee)? {
                    if ty != ScalarTy::F32 {
                        return Err(i.unsup("InterpolateAt* of a value that is not 32-bit float"));
                    }
                    let addr = self.addr(&p, o);
                    let dst = self.reg(ScalarTy::F32);
                    self.emit(Inst::InterpolateAt { at, dst, addr });
                    out.push(dst);
                }
                out
            }
            33 | 34 => {
                let m = arg(0)?;
                let (c, r) = self.mat_dims(self.vty(m)?)?;
                if c != r {
                    let what = if n == 33 {
                        "Determinant"
                    } else {
                        "MatrixInverse"
                    };
                    return Err(i.err(&format!("{what} of a non-square matrix")));
                }
                let regs = self.regs(m)?;
                self.in_f32_for_f16(&regs, |l, m| {
                    let all: Vec<usize> = (0..r).collect();
                    if n == 33 {
                        vec![l.det(m, r, &all, &all)]
                    } else {
                        l.inverse(m, r)
                    }
                })
            }
            35 | 36 => {
                let x = self.regs(arg(0)?)?;
                let whole: Vec<Reg> = x
                    .iter()
                    .map(|&v| {
                        let ty = self.rty(v);
                        self.un(UnaryOp::Trunc, ty, v)
                    })
                    .collect();
                let fract = self.map2(BinaryOp::FSub, &x, &whole)?;
                if n == 35 {
                    let p = self.ptr(arg(1)?)?;
                    self.store_ptr(&p, &whole)?;
                    fract
                } else {
                    fract.into_iter().chain(whole).collect()
                }
            }
            51 | 52 => {
                let x = self.regs(arg(0)?)?;
                let mant: Vec<Reg> = x
                    .iter()
                    .map(|&v| {
                        let ty = self.rty(v);
                        self.un(UnaryOp::FrexpMant, ty, v)
                    })
                    .collect();
                let exp: Vec<Reg> = x
                    .iter()
                    .map(|&v| {
                        let ty = self.rty(v);
                        self.un(UnaryOp::FrexpExp, ty, v)
                    })
                    .collect();
                if n == 51 {
                    let p = self.ptr(arg(1)?)?;
                    let et = self.leaves(p.pointee)?;
                    let exp: Vec<Reg> = exp
                        .iter()
                        .zip(&et)
                        .map(|(&e, &t)| self.conv(ConvOp::SConvert, ScalarTy::I32, t, e))
                        .collect();
                    self.store_ptr(&p, &exp)?;
                    mant
                } else {
                    mant.into_iter().chain(exp).collect()
                }
            }
            54 | 55 => {
                let v = self.regs(arg(0)?)?;
                if v.len() != 4 {
                    return Err(i.err("Pack*4x8 needs a vec4"));
                }
                let dst = self.reg(ScalarTy::I32);
                self.emit(Inst::Pack4x8 {
                    snorm: n == 54,
                    dst,
                    src: [v[0], v[1], v[2], v[3]],
                });
                vec![dst]
            }
            56..=58 => {
                let v = self.regs(arg(0)?)?;
                if v.len() != 2 {
                    return Err(i.err("Pack*2x16 needs a vec2"));
                }
                let op = match n {
                    56 => BinaryOp::PackSnorm2x16,
                    57 => BinaryOp::PackUnorm2x16,
                    _ => BinaryOp::PackHalf2x16,
                };
                vec![self.bin(op, ScalarTy::F32, v[0], v[1])]
            }
            59 => {
                let v = self.regs(arg(0)?)?;
                if v.len() != 2 {
                    return Err(i.err("PackDouble2x32 needs a uvec2"));
                }
                vec![self.bin(BinaryOp::Join64, ScalarTy::F64, v[0], v[1])]
            }
            60..=64 => {
                let x = self.reg1(arg(0)?)?;
                let (count, f): (u8, fn(u8) -> UnaryOp) = match n {
                    60 => (2, UnaryOp::UnpackSnorm2x16),
                    61 => (2, UnaryOp::UnpackUnorm2x16),
                    62 => (2, UnaryOp::UnpackHalf2x16),
                    63 => (4, UnaryOp::UnpackSnorm4x8),
                    _ => (4, UnaryOp::UnpackUnorm4x8),
                };
                (0..count)
                    .map(|c| self.un(f(c), ScalarTy::I32, x))
                    .collect()
            }
            65 => {
                let x = self.reg1(arg(0)?)?;
                let lo = self.un(UnaryOp::Lo32, ScalarTy::F64, x);
                let hi = self.un(UnaryOp::Hi32, ScalarTy::F64, x);
                vec![lo, hi]
            }
            66 => {
                let x = self.regs(arg(0)?)?;
                vec![self.length(&x)?]
            }
            67 => {
                let a = self.regs(arg(0)?)?;
                let b = self.regs(arg(1)?)?;
                let d = self.map2(BinaryOp::FSub, &a, &b)?;
                vec![self.length(&d)?]
            }
            68 => {
                let a = self.regs(arg(0)?)?;
                let b = self.regs(arg(1)?)?;
                if a.len() != 3 || b.len() != 3 {
                    return Err(i.err("Cross needs two 3-component vectors"));
                }
                let ty = self.rty(a[0]);
                let mut out = Vec::new();
                for (p, q) in [(1, 2), (2, 0), (0, 1)] {
                    let l = self.bin(BinaryOp::FMul, ty, a[p], b[q]);
                    let r = self.bin(BinaryOp::FMul, ty, b[p], a[q]);
                    out.push(self.bin(BinaryOp::FSub, ty, l, r));
                }
                out
            }
            69 => {
                let x = self.regs(arg(0)?)?;
                let len = self.length(&x)?;
                x.iter()
                    .map(|&v| {
                        let ty = self.rty(v);
                        self.bin(BinaryOp::FDiv, ty, v, len)
                    })
                    .collect()
            }
            70 => {
                let nv = self.regs(arg(0)?)?;
                let iv = self.regs(arg(1)?)?;
                let nref = self.regs(arg(2)?)?;
                let ty = self.rty(nv[0]);
                let d = self.dot(&nref, &iv)?;
                let zero = self.konst_f(ty, 0.0);
                let lt = self.bin(BinaryOp::FOrdLt, ty, d, zero);
                nv.iter()
                    .map(|&x| {
                        let neg = self.un(UnaryOp::FNeg, ty, x);
                        self.tern(TernaryOp::Select, ty, lt, x, neg)
                    })
                    .collect()
            }
            71 => {
                let iv = self.regs(arg(0)?)?;
                let nv = self.regs(arg(1)?)?;
                let ty = self.rty(iv[0]);
                let d = self.dot(&nv, &iv)?;
                let two = self.konst_f(ty, 2.0);
                let d2 = self.bin(BinaryOp::FMul, ty, two, d);
                let mut out = Vec::new();
                for (&x, &nn) in iv.iter().zip(&nv) {
                    let s = self.bin(BinaryOp::FMul, ty, d2, nn);
                    out.push(self.bin(BinaryOp::FSub, ty, x, s));
                }
                out
            }
            72 => {
                let iv = self.regs(arg(0)?)?;
                let nv = self.regs(arg(1)?)?;
                let eta = self.reg1(arg(2)?)?;
                let ty = self.rty(iv[0]);
                let eta = if self.rty(eta) != ty {
                    let f = self.rty(eta);
                    self.conv(ConvOp::FConvert, f, ty, eta)
                } else {
                    eta
                };
                let d = self.dot(&nv, &iv)?;
                let one = self.konst_f(ty, 1.0);
                let zero = self.konst_f(ty, 0.0);
                let d2 = self.bin(BinaryOp::FMul, ty, d, d);
                let t = self.bin(BinaryOp::FSub, ty, one, d2);
                let e2 = self.bin(BinaryOp::FMul, ty, eta, eta);
                let e2t = self.bin(BinaryOp::FMul, ty, e2, t);
                let k = self.bin(BinaryOp::FSub, ty, one, e2t);
                let neg = self.bin(BinaryOp::FOrdLt, ty, k, zero);
                let sk = self.un(UnaryOp::Sqrt, ty, k);
                let ed = self.bin(BinaryOp::FMul, ty, eta, d);
                let f = self.bin(BinaryOp::FAdd, ty, ed, sk);
                let mut out = Vec::new();
                for (&x, &nn) in iv.iter().zip(&nv) {
                    let a = self.bin(BinaryOp::FMul, ty, eta, x);
                    let b = self.bin(BinaryOp::FMul, ty, f, nn);
                    let r = self.bin(BinaryOp::FSub, ty, a, b);
                    out.push(self.tern(TernaryOp::Select, ty, neg, zero, r));
                }
                out
            }
            other => {
                return Err(i.unsup(&format!("GLSL.std.450 instruction {other}")));
            }
        };
        self.def_checked(id, rt, out)
    }

    /// A float constant of type `ty` (F16/F32/F64).
    pub(crate) fn konst_f(&mut self, ty: ScalarTy, v: f64) -> Reg {
        let bits = match ty {
            ScalarTy::F64 => v.to_bits(),
            ScalarTy::F16 => half::f16::from_f64(v).to_bits() as u64,
            _ => (v as f32).to_bits() as u64,
        };
        self.konst(ty, bits)
    }

    fn length(&mut self, x: &[Reg]) -> Result<Reg> {
        let ty = self.rty(x[0]);
        if x.len() == 1 {
            return Ok(self.un(UnaryOp::FAbs, ty, x[0]));
        }
        let d = self.dot(x, x)?;
        Ok(self.un(UnaryOp::Sqrt, ty, d))
    }

    /// `f(m)` for a matrix `m`, with f16 matrices taken to f32 and the results rounded back to
    /// f16 once. Determinant and MatrixInverse of f16 matrices are computed so: rounding every
    /// product and sum of the cofactor expansion to f16 loses several bits on ill-conditioned
    /// matrices (the CTS's fp16 inverse Amber scripts expect results within an f16 ulp of the
    /// exact inverse). A result computed in f32 and rounded once lies inside the bound the CTS
    /// grants: it evaluates its own formula (a block inverse through the Schur complement) in
    /// f16 interval arithmetic, which gives an interval around the exact value whose ends are
    /// f16 values.
    fn in_f32_for_f16(
        &mut self,
        m: &[Reg],
        f: impl FnOnce(&mut Self, &[Reg]) -> Vec<Reg>,
    ) -> Vec<Reg> {
        if self.rty(m[0]) != ScalarTy::F16 {
            return f(self, m);
        }
        let (h, s) = (ScalarTy::F16, ScalarTy::F32);
        let wide: Vec<Reg> = m
            .iter()
            .map(|&x| self.conv(ConvOp::FConvert, h, s, x))
            .collect();
        let out = f(self, &wide);
        out.into_iter()
            .map(|x| self.conv(ConvOp::FConvert, s, h, x))
            .collect()
    }

    /// The inverse of the column-major `n` × `n` matrix `m`: each cofactor over the
    /// determinant, column-major.
    fn inverse(&mut self, m: &[Reg], n: usize) -> Vec<Reg> {
        let ty = self.rty(m[0]);
        let all: Vec<usize> = (0..n).collect();
        let d = self.det(m, n, &all, &all);
        let mut out = vec![0; n * n];
        for row in 0..n {
            for col in 0..n {
                // inv(row, col) = cofactor(col, row) / det
                let rs: Vec<usize> = (0..n).filter(|&x| x != col).collect();
                let cs: Vec<usize> = (0..n).filter(|&x| x != row).collect();
                let mut cof = if n == 1 {
                    self.konst_f(ty, 1.0)
                } else {
                    self.det(m, n, &rs, &cs)
                };
                if (row + col) % 2 == 1 {
                    cof = self.un(UnaryOp::FNeg, ty, cof);
                }
                out[col * n + row] = self.bin(BinaryOp::FDiv, ty, cof, d);
            }
        }
        out
    }

    /// Determinant of the sub-matrix of column-major `m` (n rows) on `rows` × `cols`
    /// (Laplace expansion along the first row).
    fn det(&mut self, m: &[Reg], n: usize, rows: &[usize], cols: &[usize]) -> Reg {
        let at = |r: usize, c: usize| m[c * n + r];
        let ty = self.rty(m[0]);
        if rows.len() == 1 {
            return at(rows[0], cols[0]);
        }
        if rows.len() == 2 {
            let a = self.bin(
                BinaryOp::FMul,
                ty,
                at(rows[0], cols[0]),
                at(rows[1], cols[1]),
            );
            let b = self.bin(
                BinaryOp::FMul,
                ty,
                at(rows[0], cols[1]),
                at(rows[1], cols[0]),
            );
            return self.bin(BinaryOp::FSub, ty, a, b);
        }
        let mut acc = None;
        for (k, &c) in cols.iter().enumerate() {
            let sub_cols: Vec<usize> = cols.iter().copied().filter(|&x| x != c).collect();
            let minor = self.det(m, n, &rows[1..], &sub_cols);
            let term = self.bin(BinaryOp::FMul, ty, at(rows[0], c), minor);
            acc = Some(match acc {
                None => term,
                Some(a) => {
                    let op = if k % 2 == 1 {
                        BinaryOp::FSub
                    } else {
                        BinaryOp::FAdd
                    };
                    self.bin(op, ty, a, term)
                }
            });
        }
        acc.unwrap_or(m[0])
    }
}
