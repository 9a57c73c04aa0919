//! A reused batch (the rasterizer's per-thread scratch) must give the results of a fresh one:
//! `Batch::reset` zeroes only the registers `program::read_before_write` lists. Expected values
//! are those of a fresh, all-zero batch; the register sets are worked out by hand.

use super::B;
use crate::exec::program::read_before_write;
use crate::exec::run::Batch;
use crate::exec::{Bindings, NoObserver, Program};
use crate::ir::*;

use ScalarTy::{F32, I32};

/// Registers of the test program, by role.
struct Regs {
    x: Reg,
    y: Reg,
    p: Reg,
    u: Reg,
    w: Reg,
    acc: Reg,
    i: Reg,
}

/// A fragment program with divergence, a phi-style register written on both sides of a
/// branch, a derivative and a quad swap of registers only some lanes define, a register read
/// before any write (reads 0), and a loop whose body reads a register it writes only later.
///
/// ```text
/// b0: x = local[0]; n = local[1] (i32); c = x > 0.5; br c b1 b2
/// b1: y = x * 2; p = y; local[2] = ddx_fine(y); jump b3
/// b2: p = x + 1; jump b3
/// b3: local[3] = u + x; local[4] = quad_swap_x(p); acc = 0; i = 0; jump b4
/// b4: acc = acc + w; w = x; i = i + 1; br (i < n) b4 b5
/// b5: local[5] = p; local[6] = acc; local[7] = w
/// ```
fn program() -> (Program, Regs) {
    let mut b = B::new();
    let half = b.kf(0.5);
    let two = b.kf(2.0);
    let one = b.kf(1.0);
    let zero_f = b.kf(0.0);
    let zero_i = b.ki(0);
    let one_i = b.ki(1);
    let (b1, b2, b3, b4, b5) = (b.block(), b.block(), b.block(), b.block(), b.block());
    let p = b.reg(F32);
    let u = b.reg(F32);
    let w = b.reg(F32);
    let acc = b.reg(F32);
    let i = b.reg(I32);
    let x = b.load_local(F32, 0);
    let n = b.load_local(I32, 1);
    let c = b.bin(BinaryOp::FOrdGt, F32, x, half);
    b.branch(c, b1, b2);
    b.at(b1);
    let y = b.bin(BinaryOp::FMul, F32, x, two);
    b.mov_to(p, F32, y);
    let d = b.reg(F32);
    b.push(Inst::Deriv {
        axis: Axis::X,
        kind: DerivKind::Fine,
        ty: F32,
        dst: d,
        a: y,
    });
    b.store_local(F32, 2, d);
    b.jump(b3);
    b.at(b2);
    b.bin_to(p, BinaryOp::FAdd, F32, x, one);
    b.jump(b3);
    b.at(b3);
    let s = b.bin(BinaryOp::FAdd, F32, u, x);
    b.store_local(F32, 3, s);
    let q = b.reg(F32);
    b.push(Inst::QuadSwap {
        direction: 0,
        ty: F32,
        dst: q,
        a: p,
    });
    b.store_local(F32, 4, q);
    b.mov_to(acc, F32, zero_f);
    b.mov_to(i, I32, zero_i);
    b.jump(b4);
    b.at(b4);
    b.bin_to(acc, BinaryOp::FAdd, F32, acc, w);
    b.mov_to(w, F32, x);
    b.bin_to(i, BinaryOp::IAdd, I32, i, one_i);
    let more = b.bin(BinaryOp::SLt, I32, i, n);
    b.branch(more, b4, b5);
    b.at(b5);
    b.store_local(F32, 5, p);
    b.store_local(F32, 6, acc);
    b.store_local(F32, 7, w);
    (
        b.program(),
        Regs {
            x,
            y,
            p,
            u,
            w,
            acc,
            i,
        },
    )
}

/// Per-lane inputs: `x` and the loop count (`seed` varies them between runs).
fn inputs(lanes: usize, seed: u32) -> Vec<(f32, i32)> {
    (0..lanes as u32)
        .map(|l| {
            let h = (l.wrapping_mul(2654435761) ^ seed.wrapping_mul(40503)) >> 7;
            ((h % 97) as f32 / 96.0, (h % 5) as i32)
        })
        .collect()
}

/// Set up `b` for `ins` (helpers on lanes 4k+3 of odd quads), run, return the Local words the
/// program touches (0..8; the other words of its 16 are neither read nor written by it, and
/// `Batch::reset` leaves them stale).
fn run_on(b: &mut Batch, prog: &Program, ins: &[(f32, i32)]) -> Vec<u32> {
    b.reset(prog, ins.len());
    let n = b.n;
    for (l, &(x, c)) in ins.iter().enumerate() {
        b.local[l] = x.to_bits();
        b.local[n + l] = c as u32;
        b.helper[l] = l % 8 == 7;
    }
    b.run(prog, &Bindings::default(), &mut NoObserver)
        .expect("run");
    b.local[..8 * n].to_vec()
}

fn fresh(prog: &Program, ins: &[(f32, i32)]) -> Vec<u32> {
    run_on(&mut Batch::new(), prog, ins)
}

/// Fill every register row and scratch row with a pattern no correct run produces.
fn poison(b: &mut Batch) {
    b.poison_registers();
}

#[test]
fn read_before_write_registers_by_hand() {
    let (p, r) = program();
    let need = read_before_write(&p.shader.body, &p.schedule());
    // u: never written. w: read in b4 before its write on the first iteration. y: a
    // derivative operand (cross-lane; lanes of b2 never define it). p: a quad swap operand.
    for (reg, want, what) in [
        (r.u, true, "u"),
        (r.w, true, "w"),
        (r.y, true, "y"),
        (r.p, true, "p"),
        (r.x, false, "x"),
        (r.acc, false, "acc"),
        (r.i, false, "i"),
    ] {
        assert_eq!(need[r_idx(reg)], want, "register {what}");
    }
    // Only the registers above (and constants, which are set anyway) may need zeroing.
    let marked: Vec<usize> = (0..need.len()).filter(|&k| need[k]).collect();
    let consts: Vec<usize> = p.shader.body.consts.iter().map(|c| c.0 as usize).collect();
    for k in marked {
        assert!(
            [r.u, r.w, r.y, r.p].iter().any(|&x| r_idx(x) == k) || consts.contains(&k),
            "r{k} marked read-before-write"
        );
    }
}

fn r_idx(r: Reg) -> usize {
    r as usize
}

#[test]
fn expected_values_by_hand() {
    // One quad: x = 0.25, 0.75, 0.9, 0.1; loop counts 0, 1, 2, 3; no helpers in quad 0.
    let (p, _) = program();
    let ins = [(0.25f32, 0), (0.75, 1), (0.9, 2), (0.1, 3)];
    let mem = fresh(&p, &ins);
    let n = 4;
    let word = |w: usize, l: usize| f32::from_bits(mem[w * n + l]);
    // ddx_fine(y) (b1 lanes only): lane 1 = y1 - y0, lane 2 = y3 - y2, where y0 and y3 were
    // never written (0).
    assert_eq!(word(2, 1), 1.5);
    assert_eq!(word(2, 2), -1.8);
    assert_eq!(word(2, 0), 0.0);
    // u reads 0.
    for (l, &(x, _)) in ins.iter().enumerate() {
        assert_eq!(word(3, l), x);
    }
    // p = 2x (x > 0.5) else x + 1; the quad swap in x reads the neighbour.
    let pv = [1.25f32, 1.5, 1.8, 1.1];
    for l in 0..4 {
        assert_eq!(word(5, l), pv[l]);
        assert_eq!(word(4, l), pv[l ^ 1]);
    }
    // The loop runs max(1, count) times; acc sums w, which is 0 on the first pass then x.
    for (l, &(x, c)) in ins.iter().enumerate() {
        let iters = c.max(1);
        assert_eq!(word(6, l), (iters - 1) as f32 * x, "lane {l}");
        assert_eq!(word(7, l), x);
    }
}

#[test]
fn reused_and_poisoned_batches_match_a_fresh_batch() {
    let (p, _) = program();
    for lanes in [4usize, 8, 24, 64] {
        let a = inputs(lanes, 1);
        let bi = inputs(lanes, 2);
        let want_a = fresh(&p, &a);
        let want_b = fresh(&p, &bi);
        // The same batch twice in a row with different inputs.
        let mut batch = Batch::new();
        assert_eq!(
            run_on(&mut batch, &p, &a),
            want_a,
            "{lanes} lanes, first run"
        );
        assert_eq!(run_on(&mut batch, &p, &bi), want_b, "{lanes} lanes, reused");
        // Garbage in every register row, left by a larger batch.
        let mut batch = Batch::new();
        run_on(&mut batch, &p, &inputs(64, 3));
        poison(&mut batch);
        assert_eq!(
            run_on(&mut batch, &p, &a),
            want_a,
            "{lanes} lanes, poisoned"
        );
        poison(&mut batch);
        assert_eq!(
            run_on(&mut batch, &p, &bi),
            want_b,
            "{lanes} lanes, poisoned"
        );
    }
}

#[test]
fn observers_see_zeroed_registers() {
    // An observer of every instruction sees the registers of an all-zero start.
    struct Seen(Vec<u64>, Reg);
    impl crate::exec::Observer for Seen {
        fn inst(&mut self, ev: &crate::exec::InstEvent<'_>) {
            if let Some(crate::exec::LaneValues::W32(v)) = ev.regs.get(self.1) {
                self.0.extend(v.iter().map(|&x| x as u64));
            }
        }
        fn wants_insts(&self) -> bool {
            true
        }
    }
    let (p, r) = program();
    let ins = inputs(4, 5);
    let mut runs = Vec::new();
    for poisoned in [false, true] {
        let mut b = Batch::new();
        b.reset(&p, 4);
        if poisoned {
            poison(&mut b);
        }
        b.reset(&p, 4);
        for (l, &(x, c)) in ins.iter().enumerate() {
            b.local[l] = x.to_bits();
            b.local[4 + l] = c as u32;
        }
        let mut obs = Seen(Vec::new(), r.acc);
        b.run(&p, &Bindings::default(), &mut obs).expect("run");
        runs.push(obs.0);
    }
    assert_eq!(runs[0], runs[1]);
}

#[test]
fn only_touched_local_words_are_zeroed() {
    // The program loads words 0 and 1 and stores words 2..=7 at constant addresses; words
    // 8..16 of its 16-word Local memory are touched by nothing.
    let (p, _) = program();
    assert_eq!(p.zero_local, Some(vec![(0, 8)]));
    // Stale values in every Local word must not change what the program computes.
    let ins = inputs(64, 3);
    let want = fresh(&p, &ins);
    let mut b = Batch::new();
    run_on(&mut b, &p, &ins);
    b.local.fill(0xA5A5_A5A5);
    assert_eq!(run_on(&mut b, &p, &ins), want);
}

#[test]
fn a_computed_local_address_zeroes_all_local_memory() {
    let mut b = B::new();
    let i = b.load_local(I32, 0);
    let v = b.reg(F32);
    b.push(Inst::Load {
        ty: F32,
        dst: v,
        ptr: Ptr {
            space: Space::Local,
            addr: i,
        },
    });
    b.store_local(F32, 1, v);
    assert_eq!(b.program().zero_local, None);
}

#[test]
fn threaded_entry_and_row_free_constants_match_an_observed_run() {
    // b0: jump b1 (no instructions); b1: Source; x = local[0]; y = x * 3.0; local[1] = y;
    // local[2] = x; return. Without an observer the run starts at b1, skips the Source
    // marker and leaves the rows of the three address constants alone (poisoned here).
    // Expected: by hand, and the same as a run with an observer that sees every block and
    // instruction (the entry block run, every constant row filled).
    let mut b = B::new();
    let b1 = b.block();
    b.jump(b1);
    b.at(b1);
    b.push(Inst::Source { offset: 3 });
    let x = b.load_local(F32, 0);
    let three = b.kf(3.0);
    let y = b.bin(BinaryOp::FMul, F32, x, three);
    b.store_local(F32, 1, y);
    b.store_local(F32, 2, x);
    b.term(Terminator::Return);
    let p = b.program();
    assert_eq!((p.start, p.start_cost), (1, 1));
    assert_eq!(p.consts32.len(), 4);
    assert_eq!(
        p.row_consts32,
        vec![(p.slots[three as usize].1, 3f32.to_bits())]
    );
    assert_eq!(p.blocks[1].ops.len() + 1, p.blocks[1].code.len());
    struct All(usize);
    impl crate::exec::Observer for All {
        fn block(&mut self, _: BlockId, _: &[u32]) {
            self.0 += 1;
        }
    }
    let xs: Vec<f32> = (0..8).map(|l| l as f32 * 0.75 - 2.0).collect();
    let mut runs = Vec::new();
    for observed in [false, true] {
        let mut bt = Batch::new();
        bt.reset(&p, 8);
        bt.poison_registers();
        bt.reset(&p, 8);
        for (l, &x) in xs.iter().enumerate() {
            bt.local[l] = x.to_bits();
        }
        let bind = Bindings::default();
        if observed {
            let mut obs = All(0);
            bt.run(&p, &bind, &mut obs).expect("run");
            assert_eq!(obs.0, 2, "both blocks seen");
        } else {
            bt.run(&p, &bind, &mut NoObserver).expect("run");
        }
        runs.push(bt.local[..3 * 8].to_vec());
    }
    assert_eq!(runs[0], runs[1]);
    for (l, &x) in xs.iter().enumerate() {
        assert_eq!(f32::from_bits(runs[0][8 + l]), x * 3.0);
        assert_eq!(f32::from_bits(runs[0][16 + l]), x);
    }
}
