//! Fused multiply-then-add/subtract (`exec::fuse`): the executed list holds one fused
//! instruction where the IR has a multiply whose one read is an add or subtract, and each
//! lane's result is the two roundings a naive per-lane reference computes here (`a * b`
//! rounded, then the sum), for f32 and f64, special operands (NaN payloads, ±∞, ±0,
//! subnormals), uniform operands, the destination also an operand, and masked lanes, which
//! keep their old words.

use super::*;
use crate::ir::BinaryOp::{FAdd, FMul, FSub};
use crate::ir::ScalarTy::{F32, F64, I32};

/// The special values the operands are drawn from (besides random bits), as f64; the f32
/// cases are these rounded (a NaN keeps a payload).
const SPECIAL32: [u32; 14] = [
    0x7fc0_0001,
    0xffc0_0000,
    0x7f80_0001,
    0x7f80_0000,
    0xff80_0000,
    0x8000_0000,
    0,
    1,
    0x8000_0001,
    0x7f7f_ffff,
    0x3f80_0000,
    0xbf80_0000,
    0x5f00_0000,
    0x3dcc_cccd,
];
const SPECIAL64: [u64; 10] = [
    0x7ff8_0000_0000_0001,
    0xfff8_0000_0000_0000,
    0x7ff0_0000_0000_0000,
    0xfff0_0000_0000_0000,
    0x8000_0000_0000_0000,
    0,
    1,
    0x7fef_ffff_ffff_ffff,
    0x3ff0_0000_0000_0000,
    0x3fb9_9999_9999_999a,
];

/// One operand word: a special value, a small float, or any bits.
fn operand(r: &mut fastrand::Rng, wide: bool) -> u64 {
    match (r.u32(..3), wide) {
        (0, false) => SPECIAL32[r.usize(..SPECIAL32.len())] as u64,
        (0, true) => SPECIAL64[r.usize(..SPECIAL64.len())],
        (1, false) => (r.f32() * 8.0 - 4.0).to_bits() as u64,
        (1, true) => (r.f64() * 8.0 - 4.0).to_bits(),
        (_, false) => r.u32(..) as u64,
        (_, true) => r.u64(..),
    }
}

/// The naive per-lane reference: the product rounded to the type, then added or subtracted
/// (`then`: FAdd or FSub; `after`: the product is the first operand).
fn reference(wide: bool, then: BinaryOp, after: bool, a: u64, b: u64, c: u64) -> u64 {
    if wide {
        let (a, b, c) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
        let t = a * b;
        let (x, y) = if after { (t, c) } else { (c, t) };
        (if then == FAdd { x + y } else { x - y }).to_bits()
    } else {
        let (a, b, c) = (
            f32::from_bits(a as u32),
            f32::from_bits(b as u32),
            f32::from_bits(c as u32),
        );
        let t = a * b;
        let (x, y) = if after { (t, c) } else { (c, t) };
        (if then == FAdd { x + y } else { x - y }).to_bits() as u64
    }
}

/// Equal bits, or both NaN (which NaN an operation on two NaNs returns is the operand order
/// the compiler chose; the unfused kernels promise no more).
fn same(wide: bool, got: u64, want: u64) -> bool {
    let nan = |v: u64| {
        if wide {
            f64::from_bits(v).is_nan()
        } else {
            f32::from_bits(v as u32).is_nan()
        }
    };
    got == want || (nan(got) && nan(want))
}

/// The operand and result layout of one case: which operand is a constant (uniform), and
/// whether the sum's other operand is the destination itself (`d = d ± a·b`).
#[derive(Clone, Copy, Debug)]
struct Case {
    ty: ScalarTy,
    then: BinaryOp,
    after: bool,
    uniform_b: bool,
    accumulate: bool,
}

/// Builds: `d = load w6; x = load w0; y = load w2 (or a constant); z = load w4;` then, on the
/// lanes whose word 8 is nonzero, `t = x * y; d = t ± z` (or `z ± t`, or with `d` for `z`;
/// the multiply is `FMul` or `IMul` by the type), and returns the program and the register
/// `d`.
fn program(case: Case, k: u64) -> (Program, Reg) {
    let mut b = B::new();
    let ty = case.ty;
    let d = b.load_local(ty, 6);
    let x = b.load_local(ty, 0);
    let y = if case.uniform_b {
        b.k(ty, k)
    } else {
        b.load_local(ty, 2)
    };
    let z = if case.accumulate {
        d
    } else {
        b.load_local(ty, 4)
    };
    let sel = b.load_local(I32, 8);
    let zero = b.ki(0);
    let cond = b.bin(BinaryOp::INe, I32, sel, zero);
    let (body, join) = (b.block(), b.block());
    b.branch(cond, body, join);
    b.at(body);
    let mul = if ty.is_float() { FMul } else { BinaryOp::IMul };
    let t = b.bin(mul, ty, x, y);
    if case.after {
        b.bin_to(d, case.then, ty, t, z);
    } else {
        b.bin_to(d, case.then, ty, z, t);
    }
    b.jump(join);
    b.at(join);
    (b.program(), d)
}

#[test]
fn fused_multiply_add_is_the_two_roundings_on_every_lane() {
    let mut r = fastrand::Rng::with_seed(0x2545_f491_4f6c_dd1d);
    let mut cases = 0;
    for ty in [F32, F64] {
        let wide = ty == F64;
        for then in [FAdd, FSub] {
            for after in [true, false] {
                for uniform_b in [false, true] {
                    for accumulate in [false, true] {
                        let case = Case {
                            ty,
                            then,
                            after,
                            uniform_b,
                            accumulate,
                        };
                        // every lane running, then about a third masked off
                        for masked in [false, true] {
                            check(&mut r, case, masked, wide);
                            cases += 1;
                        }
                    }
                }
            }
        }
    }
    assert_eq!(cases, 64);
}

fn check(r: &mut fastrand::Rng, case: Case, masked: bool, wide: bool) {
    let k = operand(r, wide);
    let (p, d) = program(case, k);
    // the multiply is folded into the add: one instruction fewer in the body's executed list
    let body = p.blocks.iter().find(|blk| blk.id == 1).expect("body block");
    assert_eq!(body.ops.len() + 1, body.code.len(), "{case:?}: not fused");
    // more than a 64-lane word of the masks; 67 (not a multiple of 8) leaves lane 67 out,
    // so the masked form runs even where every lane that runs takes the branch
    let lanes = if masked { 67 } else { 68 };
    let split = |v: u64| [v as u32, (v >> 32) as u32];
    let rows: Vec<Vec<u32>> = (0..lanes)
        .map(|_| {
            let (x, y, z, old) = (
                operand(r, wide),
                operand(r, wide),
                operand(r, wide),
                operand(r, wide),
            );
            let run = !masked || r.u32(..3) != 0;
            [split(x), split(y), split(z), split(old), [run as u32, 0]].concat()
        })
        .collect();
    let st = run_lanes(&p, &rows);
    let word = |row: &[u32], w: usize| {
        if wide {
            row[w] as u64 | (row[w + 1] as u64) << 32
        } else {
            row[w] as u64
        }
    };
    for (l, row) in rows.iter().enumerate() {
        let (x, y, z, old) = (word(row, 0), word(row, 2), word(row, 4), word(row, 6));
        let y = if case.uniform_b { k } else { y };
        let z = if case.accumulate { old } else { z };
        let want = if row[8] != 0 {
            reference(wide, case.then, case.after, x, y, z)
        } else {
            old
        };
        let got = st.reg(&p, d, l);
        assert!(
            same(wide, got, want),
            "{case:?} masked {masked} lane {l}: {x:#x} * {y:#x} with {z:#x} gave {got:#x}, \
             want {want:#x}"
        );
    }
}

/// A product read twice, a product whose operand is rewritten before the add, and a product
/// read by a later block stay two instructions (and still compute right).
#[test]
fn multiply_with_another_reader_is_not_fused() {
    let mut b = B::new();
    let x = b.load_local(F32, 0);
    let y = b.load_local(F32, 1);
    let t = b.bin(FMul, F32, x, y);
    let s = b.bin(FAdd, F32, t, y);
    let u = b.bin(FAdd, F32, t, x); // second read of `t`
    let t2 = b.bin(FMul, F32, x, y);
    b.bin_to(x, FAdd, F32, y, y); // `x` rewritten between the product and its read
    let v = b.bin(FSub, F32, t2, x);
    let next = b.block();
    let t3 = b.bin(FMul, F32, y, y);
    b.jump(next);
    b.at(next);
    let w = b.bin(FAdd, F32, t3, y); // read in another block
    let p = b.program();
    for blk in &p.blocks {
        assert_eq!(blk.ops.len(), blk.code.len(), "block {}", blk.id);
    }
    let (a, c) = (1.5f32, 3.25f32);
    let st = run_lanes(&p, &[vec![a.to_bits(), c.to_bits()]]);
    let get = |r: Reg| f32::from_bits(st.reg(&p, r, 0) as u32);
    assert_eq!(get(s), a * c + c);
    assert_eq!(get(u), a * c + a);
    assert_eq!(get(v), a * c - (c + c));
    assert_eq!(get(w), c * c + c);
}

/// Integer multiply-add and multiply-subtract (I32, I64) wrap as the two instructions do,
/// both orders of the subtract, with masked lanes keeping their words.
#[test]
fn fused_integer_multiply_add_wraps() {
    use crate::ir::BinaryOp::{IAdd, ISub};
    let mut r = fastrand::Rng::with_seed(0x9e37_79b9);
    for (ty, wide) in [(I32, false), (crate::ir::ScalarTy::I64, true)] {
        for (then, after) in [(IAdd, true), (IAdd, false), (ISub, true), (ISub, false)] {
            let case = Case {
                ty,
                then,
                after,
                uniform_b: false,
                accumulate: false,
            };
            let (p, d) = program(case, 0);
            let blk = p.blocks.iter().find(|blk| blk.id == 1).expect("body");
            assert_eq!(
                blk.ops.len() + 1,
                blk.code.len(),
                "{ty:?} {then:?}: not fused"
            );
            let special = [
                0,
                1,
                u64::MAX,
                1 << 63,
                0x8000_0000,
                0x7fff_ffff,
                0xffff_ffff,
            ];
            let mut v = || {
                let v = if r.bool() {
                    special[r.usize(..special.len())]
                } else {
                    r.u64(..)
                };
                if wide {
                    v
                } else {
                    v as u32 as u64
                }
            };
            let rows: Vec<Vec<u32>> = (0..40)
                .map(|l| {
                    let w = [v(), v(), v(), v()];
                    let mut row: Vec<u32> = w
                        .iter()
                        .flat_map(|&x| [x as u32, (x >> 32) as u32])
                        .collect();
                    row.push((l % 3 != 0) as u32);
                    row
                })
                .collect();
            let st = run_lanes(&p, &rows);
            for (l, row) in rows.iter().enumerate() {
                let word =
                    |w: usize| row[w] as u64 | if wide { (row[w + 1] as u64) << 32 } else { 0 };
                let (x, y, z, old) = (word(0), word(2), word(4), word(6));
                let t = x.wrapping_mul(y);
                let want = match (row[8] != 0, then, after) {
                    (false, ..) => old,
                    (true, IAdd, _) => t.wrapping_add(z),
                    (true, _, true) => t.wrapping_sub(z),
                    (true, _, false) => z.wrapping_sub(t),
                };
                let want = if wide { want } else { want as u32 as u64 };
                assert_eq!(
                    st.reg(&p, d, l),
                    want,
                    "{ty:?} {then:?} after {after} lane {l}"
                );
            }
        }
    }
}
