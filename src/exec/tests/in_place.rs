//! Lane kernels whose destination is one of their operands (`c = c + x`, written in place by
//! `Batch::lane_kernel32`, or through the scratch row when two operands are the destination)
//! and results of uniform operands (the kernels' form on one value): the destination as the
//! first, second and third operand, as two operands at once, as the operand of a one-operand
//! kernel, next to splat operands, as a uniform register (once and twice), every lane active
//! and under a partial mask, on a batch whose rows hold
//! poison; the unfused list an observer runs gives the same. Expected values are computed
//! lane by lane in the test with plain `f32` / `i32` arithmetic.

use super::B;
use crate::exec::run::Batch;
use crate::exec::{Bindings, InstEvent, NoImages, NoObserver, Observer, Program};
use crate::ir::*;

use ScalarTy::{Bool, F32, I32};

/// ```text
/// x = local[0]; y = local[1]; i = local[2] (i32); t = 1.5 * 2.0 (uniform)
/// a = x; a = a + y; a = y - a; a = a * t; a = a + x * y (fused, a the third operand)
/// a = x * t - a (fused); a = clamp(a, x, y); a = clamp(y, a, 4.0); a = clamp(x, -8.0, a)
/// a = -a (one operand); s = y; s = s * s (both operands); s = clamp(s, s, x) (two of three)
/// v = t; v = clamp(v, v, x) (a uniform destination as two of three)
/// j = i; j = j + i; j = 7 & j; j = (j > 3) ? j : i (select, the destination third)
/// u = t + 1.0 (uniform); u = u * t (uniform destination operand); k = 5; k = k << 1
/// br x > 0.5 ? b1 : b2
/// b1: a = a + y; a = t - a; a = a * a; a = -a; u = u + x (uniform destination, some lanes);
///     j = j ^ i; k = k + i (uniform destination, some lanes); jump b2
/// b2: local[3..] = a, s, j, u, k, v
/// ```
fn program() -> Program {
    let mut b = B::new();
    let (b1, b2) = (b.block(), b.block());
    let (k15, k2, k1, kneg8, k4) = (b.kf(1.5), b.kf(2.0), b.kf(1.0), b.kf(-8.0), b.kf(4.0));
    let (half, k7, k3, k5, one) = (b.kf(0.5), b.ki(7), b.ki(3), b.ki(5), b.ki(1));
    let x = b.load_local(F32, 0);
    let y = b.load_local(F32, 1);
    let i = b.load_local(I32, 2);
    let t = b.bin(BinaryOp::FMul, F32, k15, k2);
    let a = b.reg(F32);
    b.mov_to(a, F32, x);
    b.bin_to(a, BinaryOp::FAdd, F32, a, y);
    b.bin_to(a, BinaryOp::FSub, F32, y, a);
    b.bin_to(a, BinaryOp::FMul, F32, a, t);
    let p = b.bin(BinaryOp::FMul, F32, x, y);
    b.bin_to(a, BinaryOp::FAdd, F32, a, p);
    let q = b.bin(BinaryOp::FMul, F32, x, t);
    b.bin_to(a, BinaryOp::FSub, F32, q, a);
    let clamp = |b: &mut B, dst: Reg, a: Reg, lo: Reg, hi: Reg| {
        b.push(Inst::Ternary {
            op: TernaryOp::FClamp,
            ty: F32,
            dst,
            a,
            b: lo,
            c: hi,
        })
    };
    clamp(&mut b, a, a, x, y);
    clamp(&mut b, a, y, a, k4);
    clamp(&mut b, a, x, kneg8, a);
    let neg = |b: &mut B, a: Reg| {
        b.push(Inst::Unary {
            op: UnaryOp::FNeg,
            ty: F32,
            dst: a,
            a,
        })
    };
    neg(&mut b, a);
    let s = b.reg(F32);
    b.mov_to(s, F32, y);
    b.bin_to(s, BinaryOp::FMul, F32, s, s);
    clamp(&mut b, s, s, s, x);
    let j = b.reg(I32);
    b.mov_to(j, I32, i);
    b.bin_to(j, BinaryOp::IAdd, I32, j, i);
    b.bin_to(j, BinaryOp::And, I32, k7, j);
    let big = b.bin(BinaryOp::SGt, I32, j, k3);
    b.push(Inst::Ternary {
        op: TernaryOp::Select,
        ty: I32,
        dst: j,
        a: big,
        b: j,
        c: i,
    });
    let u = b.bin(BinaryOp::FAdd, F32, t, k1);
    b.bin_to(u, BinaryOp::FMul, F32, u, t);
    let k = b.reg(I32);
    b.mov_to(k, I32, k5);
    b.bin_to(k, BinaryOp::Shl, I32, k, one);
    let v = b.reg(F32);
    b.mov_to(v, F32, t);
    clamp(&mut b, v, v, v, x);
    let c = b.bin(BinaryOp::FOrdGt, F32, x, half);
    assert_eq!(b.regs[c as usize], Bool);
    b.branch(c, b1, b2);
    b.at(b1);
    b.bin_to(a, BinaryOp::FAdd, F32, a, y);
    b.bin_to(a, BinaryOp::FSub, F32, t, a);
    b.bin_to(a, BinaryOp::FMul, F32, a, a);
    neg(&mut b, a);
    b.bin_to(u, BinaryOp::FAdd, F32, u, x);
    b.bin_to(j, BinaryOp::Xor, I32, j, i);
    b.bin_to(k, BinaryOp::IAdd, I32, k, i);
    b.jump(b2);
    b.at(b2);
    for (w, (ty, r)) in [(F32, a), (F32, s), (I32, j), (F32, u), (I32, k), (F32, v)]
        .into_iter()
        .enumerate()
    {
        b.store_local(ty, 3 + w as i32, r);
    }
    b.program()
}

fn inputs(l: usize) -> (f32, f32, i32) {
    let x = (l % 11) as f32 * 0.125 - 0.25;
    let y = (l % 7) as f32 * 0.75 - 1.5;
    (x, y, (l % 13) as i32 - 5)
}

/// Local words 3..9 of lane `l`, lane by lane.
fn expected(l: usize) -> [u32; 6] {
    let (x, y, i) = inputs(l);
    let t = 1.5f32 * 2.0;
    let clamp = |v: f32, lo: f32, hi: f32| v.max(lo).min(hi);
    let mut a = x;
    a += y;
    a = y - a;
    a *= t;
    a += x * y;
    a = x * t - a;
    a = clamp(a, x, y);
    a = clamp(y, a, 4.0);
    a = clamp(x, -8.0, a);
    a = -a;
    let mut s = y * y;
    s = clamp(s, s, x);
    let mut j = i.wrapping_add(i) & 7;
    j = if j > 3 { j } else { i };
    let mut u = (t + 1.0) * t;
    let mut k = 5i32 << 1;
    let v = clamp(t, t, x);
    if x > 0.5 {
        a += y;
        a = t - a;
        a *= a;
        a = -a;
        u += x;
        j ^= i;
        k = k.wrapping_add(i);
    }
    [
        a.to_bits(),
        s.to_bits(),
        j as u32,
        u.to_bits(),
        k as u32,
        v.to_bits(),
    ]
}

/// Counts the instructions an observer sees (the unfused list runs).
#[derive(Default)]
struct Count(usize);
impl Observer for Count {
    fn inst(&mut self, _: &InstEvent<'_>) {
        self.0 += 1;
    }
}

/// Run on `batch` (its rows poisoned after a first reset): Local words 3..9 per lane.
fn run<O: Observer>(batch: &mut Batch, p: &Program, lanes: usize, obs: &mut O) -> Vec<[u32; 6]> {
    batch.reset(p, lanes);
    batch.poison_registers();
    batch.reset(p, lanes);
    let n = batch.n;
    for l in 0..n {
        let (x, y, i) = inputs(l);
        batch.local[l] = x.to_bits();
        batch.local[n + l] = y.to_bits();
        batch.local[2 * n + l] = i as u32;
    }
    batch.run(p, &Bindings::new(&NoImages), obs).expect("run");
    (0..n)
        .map(|l| std::array::from_fn(|w| batch.local[(w + 3) * n + l]))
        .collect()
}

#[test]
fn destination_operands_and_uniform_results_match_a_lane_by_lane_reference() {
    let p = program();
    for plain in [false, true] {
        crate::exec::kernels::tests::PLAIN.with(|c| c.set(plain));
        for lanes in [4usize, 12, 64, 256] {
            let want: Vec<[u32; 6]> = (0..lanes).map(expected).collect();
            let mut batch = Batch::new();
            let got = run(&mut batch, &p, lanes, &mut NoObserver);
            for (l, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g, w, "lane {l} of {lanes}, plain {plain}");
            }
            let mut count = Count::default();
            let observed = run(&mut batch, &p, lanes, &mut count);
            assert_eq!(observed, want, "{lanes} lanes observed, plain {plain}");
            assert!(count.0 > 30, "{}", count.0);
        }
    }
    crate::exec::kernels::tests::PLAIN.with(|c| c.set(false));
}
