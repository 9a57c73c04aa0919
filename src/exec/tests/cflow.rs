//! Divergent control flow: each program reads `x` from Local word 0 and writes Local word 1.
//! The batch result must equal (a) a plain Rust reference and (b) running each lane alone.

use super::*;
use BinaryOp as Bo;
use ScalarTy::*;

/// Run `p` on a 16-lane batch with x = xs[lane], and on each lane alone; return per lane
/// (word 1, word 2, killed) of the batch run after checking it equals the solo runs.
fn run_both(p: &Program, xs: &[i32]) -> Vec<(u32, u32, bool)> {
    let rows: Vec<Vec<u32>> = xs.iter().map(|&x| vec![x as u32]).collect();
    let st = run_lanes(p, &rows);
    let batch: Vec<(u32, u32, bool)> = (0..xs.len())
        .map(|l| (st.local(l, 1), st.local(l, 2), st.killed(l)))
        .collect();
    for (l, &x) in xs.iter().enumerate() {
        let mut solo = BatchState::new(p, 1);
        solo.set_local(0, 0, x as u32);
        solo.run(p, &Bindings::default()).unwrap();
        assert_eq!(
            (solo.local(0, 1), solo.killed(0)),
            (batch[l].0, batch[l].2),
            "lane {l} (x = {x}) differs between the batch and running alone"
        );
    }
    batch
}

const XS: [i32; 16] = [0, 7, 3, 12, 1, 5, 9, 2, 4, 15, 6, 8, 11, 10, 13, 14];

#[test]
fn nested_loops_with_break_and_continue() {
    fn reference(x: i32) -> i32 {
        let (mut sum, mut i) = (0, 0);
        while i < x {
            if i != 3 {
                let mut j = 0;
                while j < i {
                    if j * i > 6 {
                        break;
                    }
                    sum += j;
                    j += 1;
                }
                if sum > 20 {
                    break;
                }
            }
            i += 1;
        }
        sum
    }
    let mut b = B::new();
    let (h1, body1, inner_init, h2, body2, body2b, after, cont, exit) = (
        b.block(),
        b.block(),
        b.block(),
        b.block(),
        b.block(),
        b.block(),
        b.block(),
        b.block(),
        b.block(),
    );
    let (c0, c1, c3, c6, c20) = (b.ki(0), b.ki(1), b.ki(3), b.ki(6), b.ki(20));
    let (sum, iv, jv) = (b.reg(I32), b.reg(I32), b.reg(I32));
    let x = b.load_local(I32, 0);
    b.mov_to(sum, I32, c0);
    b.mov_to(iv, I32, c0);
    b.jump(h1);
    b.at(h1);
    let lt = b.bin(Bo::SLt, I32, iv, x);
    b.branch(lt, body1, exit);
    b.at(body1);
    let is3 = b.bin(Bo::IEq, I32, iv, c3);
    b.branch(is3, cont, inner_init);
    b.at(inner_init);
    b.mov_to(jv, I32, c0);
    b.jump(h2);
    b.at(h2);
    let lt2 = b.bin(Bo::SLt, I32, jv, iv);
    b.branch(lt2, body2, after);
    b.at(body2);
    let prod = b.bin(Bo::IMul, I32, jv, iv);
    let big = b.bin(Bo::SGt, I32, prod, c6);
    b.branch(big, after, body2b);
    b.at(body2b);
    b.bin_to(sum, Bo::IAdd, I32, sum, jv);
    b.bin_to(jv, Bo::IAdd, I32, jv, c1);
    b.jump(h2);
    b.at(after);
    let over = b.bin(Bo::SGt, I32, sum, c20);
    b.branch(over, exit, cont);
    b.at(cont);
    b.bin_to(iv, Bo::IAdd, I32, iv, c1);
    b.jump(h1);
    b.at(exit);
    b.store_local(I32, 1, sum);
    // Reconvergence: a ballot of `true` at the exit sees all 16 lanes together.
    let t = b.kb(true);
    let ballot = b.ballot(t);
    b.store_local(I32, 2, ballot);
    let p = b.program();
    let got = run_both(&p, &XS);
    for (l, &x) in XS.iter().enumerate() {
        assert_eq!(got[l].0 as i32, reference(x), "x = {x}");
        assert_eq!(
            got[l].1, 0xFFFF,
            "lanes did not reconverge at the loop exit"
        );
    }
}

#[test]
fn switch_with_fallthrough() {
    let mut b = B::new();
    let (c0, c1, c2, dflt, merge) = (b.block(), b.block(), b.block(), b.block(), b.block());
    let x = b.load_local(I32, 0);
    let three = b.ki(3);
    let s = b.bin(Bo::And, I32, x, three);
    let y = b.reg(I32);
    let zero = b.ki(0);
    b.mov_to(y, I32, zero);
    b.term(Terminator::Switch {
        ty: I32,
        sel: s,
        cases: vec![(0, c0), (1, c1), (2, c2)],
        default: dflt,
    });
    for (blk, add, next) in [
        (c0, 1, c1),
        (c1, 10, merge),
        (c2, 100, dflt),
        (dflt, 1000, merge),
    ] {
        b.at(blk);
        let k = b.ki(add);
        b.bin_to(y, Bo::IAdd, I32, y, k);
        b.jump(next);
    }
    b.at(merge);
    b.store_local(I32, 1, y);
    let p = b.program();
    let got = run_both(&p, &XS);
    for (l, &x) in XS.iter().enumerate() {
        let want = match x & 3 {
            0 => 11,
            1 => 10,
            2 => 1100,
            _ => 1000,
        };
        assert_eq!(got[l].0, want, "x = {x}");
    }
}

#[test]
fn early_return_inside_loop() {
    let mut b = B::new();
    let (h, body, step, ret, exit) = (b.block(), b.block(), b.block(), b.block(), b.block());
    let x = b.load_local(I32, 0);
    let (c0, c1, c10, c100) = (b.ki(0), b.ki(1), b.ki(10), b.ki(100));
    let iv = b.reg(I32);
    b.mov_to(iv, I32, c0);
    b.jump(h);
    b.at(h);
    let lt = b.bin(Bo::SLt, I32, iv, c10);
    b.branch(lt, body, exit);
    b.at(body);
    let hit = b.bin(Bo::IEq, I32, iv, x);
    b.branch(hit, ret, step);
    b.at(step);
    b.bin_to(iv, Bo::IAdd, I32, iv, c1);
    b.jump(h);
    b.at(ret);
    let v = b.bin(Bo::IAdd, I32, iv, c100);
    b.store_local(I32, 1, v);
    b.term(Terminator::Return);
    b.at(exit);
    b.store_local(I32, 1, iv);
    let t = b.kb(true);
    let ballot = b.ballot(t);
    b.store_local(I32, 2, ballot);
    let p = b.program();
    let got = run_both(&p, &XS);
    let mut reached_exit = 0u32;
    for (l, &x) in XS.iter().enumerate() {
        let want = if x < 10 { 100 + x } else { 10 };
        assert_eq!(got[l].0 as i32, want, "x = {x}");
        if x >= 10 {
            reached_exit |= 1 << l;
        }
    }
    for (l, &x) in XS.iter().enumerate() {
        if x >= 10 {
            assert_eq!(
                got[l].1, reached_exit,
                "only the lanes that did not return meet at the exit"
            );
        }
    }
}

#[test]
fn kill_inside_loop() {
    let mut b = B::new();
    let (h, body, step, kill, exit) = (b.block(), b.block(), b.block(), b.block(), b.block());
    let x = b.load_local(I32, 0);
    let (c0, c1, c6, c1000) = (b.ki(0), b.ki(1), b.ki(6), b.ki(1000));
    let (iv, acc) = (b.reg(I32), b.reg(I32));
    b.mov_to(iv, I32, c0);
    b.mov_to(acc, I32, c0);
    b.jump(h);
    b.at(h);
    let lt = b.bin(Bo::SLt, I32, iv, c6);
    b.branch(lt, body, exit);
    b.at(body);
    let hit = b.bin(Bo::IEq, I32, iv, x);
    b.branch(hit, kill, step);
    b.at(kill);
    b.term(Terminator::Kill { resume: None });
    b.at(step);
    b.bin_to(acc, Bo::IAdd, I32, acc, iv);
    b.store_local(I32, 1, acc);
    b.bin_to(iv, Bo::IAdd, I32, iv, c1);
    b.jump(h);
    b.at(exit);
    let v = b.bin(Bo::IAdd, I32, acc, c1000);
    b.store_local(I32, 1, v);
    let p = b.program();
    let got = run_both(&p, &XS);
    for (l, &x) in XS.iter().enumerate() {
        let killed = (0..6).contains(&x);
        assert_eq!(got[l].2, killed, "x = {x}");
        let want = if killed {
            (0..x).sum::<i32>()
        } else {
            15 + 1000
        };
        assert_eq!(got[l].0 as i32, want, "x = {x}");
    }
}

#[test]
fn schedule_is_reverse_post_order() {
    // b0 -> b2 -> b1 (ids deliberately out of order): RPO is [0, 2, 1].
    let mut b = B::new();
    let b1 = b.block();
    let b2 = b.block();
    b.jump(b2);
    b.at(b2);
    b.jump(b1);
    assert_eq!(b.program().schedule(), vec![0, 2, 1]);
}

#[test]
fn budget_stops_infinite_loop() {
    let mut b = B::new();
    let h = b.block();
    b.jump(h);
    b.at(h);
    let one = b.ki(1);
    let r = b.reg(I32);
    b.bin_to(r, Bo::IAdd, I32, r, one);
    b.jump(h);
    let mut p = b.program();
    assert_eq!(p.budget(), DEFAULT_BUDGET);
    p.set_budget(10_000);
    let mut st = BatchState::new(&p, 8);
    match st.run(&p, &Bindings::default()) {
        Err(crate::Error::Exec(m)) => assert!(m.contains("budget"), "{m}"),
        r => panic!("expected a budget error, got {r:?}"),
    }
}

#[test]
fn unreachable_is_an_error() {
    let mut b = B::new();
    b.term(Terminator::Unreachable);
    let p = b.program();
    assert!(matches!(
        BatchState::new(&p, 4).run(&p, &Bindings::default()),
        Err(crate::Error::Exec(_))
    ));
}

/// An unstructured CFG (no merge declarations, an edge into the middle of the other side and
/// a loop with two exits that meet later): lanes still meet at every join, and each lane's
/// result equals running it alone.
#[test]
fn unstructured_cfg_reconverges_at_joins() {
    // b0: y = 0; if x odd -> b1 else b2
    // b1: y += 1; -> b2            (edge into the other side)
    // b2: ballot -> word 2; i = 0 -> b3
    // b3 (loop): i += 1; if i == x -> b5 (exit A); if i >= 4 -> b6 (exit B) else b3 (via b4)
    // b5: y += 100 -> b7;  b6: y += 1000 -> b7
    // b7: ballot -> word 3; store y + 10 * i
    let mut b = B::new();
    let ids: Vec<BlockId> = (0..8).map(|_| b.block()).collect();
    let (b1, b2, b3, b4, b5, b6, b7) = (ids[1], ids[2], ids[3], ids[4], ids[5], ids[6], ids[7]);
    let x = b.load_local(I32, 0);
    let (c0, c1, c4, c10, c100, c1000) =
        (b.ki(0), b.ki(1), b.ki(4), b.ki(10), b.ki(100), b.ki(1000));
    let t = b.kb(true);
    let (y, iv) = (b.reg(I32), b.reg(I32));
    b.mov_to(y, I32, c0);
    let odd = b.bin(Bo::And, I32, x, c1);
    let is_odd = b.bin(Bo::INe, I32, odd, c0);
    b.jump(ids[0]);
    b.at(ids[0]);
    b.branch(is_odd, b1, b2);
    b.at(b1);
    b.bin_to(y, Bo::IAdd, I32, y, c1);
    b.jump(b2);
    b.at(b2);
    let w2 = b.ballot(t);
    b.store_local(I32, 2, w2);
    b.mov_to(iv, I32, c0);
    b.jump(b3);
    b.at(b3);
    b.bin_to(iv, Bo::IAdd, I32, iv, c1);
    let hit = b.bin(Bo::IEq, I32, iv, x);
    b.branch(hit, b5, b4);
    b.at(b4);
    let done = b.bin(Bo::SGe, I32, iv, c4);
    b.branch(done, b6, b3);
    b.at(b5);
    b.bin_to(y, Bo::IAdd, I32, y, c100);
    b.jump(b7);
    b.at(b6);
    b.bin_to(y, Bo::IAdd, I32, y, c1000);
    b.jump(b7);
    b.at(b7);
    let w3 = b.ballot(t);
    b.store_local(I32, 3, w3);
    let ten_i = b.bin(Bo::IMul, I32, iv, c10);
    let out = b.bin(Bo::IAdd, I32, y, ten_i);
    b.store_local(I32, 1, out);
    let p = b.program();
    let got = run_both(&p, &XS);
    let rows: Vec<Vec<u32>> = XS.iter().map(|&x| vec![x as u32]).collect();
    let st = run_lanes(&p, &rows);
    for (l, &x) in XS.iter().enumerate() {
        let mut y = (x & 1) as u32;
        let mut i = 0;
        loop {
            i += 1;
            if i == x {
                y += 100;
                break;
            }
            if i >= 4 {
                y += 1000;
                break;
            }
        }
        assert_eq!(got[l].0, y + 10 * i as u32, "x = {x}");
        assert_eq!(got[l].1, 0xFFFF, "join after the if (x = {x})");
        assert_eq!(
            st.local(l, 3),
            0xFFFF,
            "join after the two loop exits (x = {x})"
        );
    }
}

/// `loop { if i >= x { break } i += 1 }`: the header's only exit is the `break` edge, taken as
/// the branch's first successor. A plain reverse post-order puts the exit before the
/// increment block, so lanes that break would run the exit alone; the loop-contiguous
/// schedule keeps them waiting until every lane has left the loop.
#[test]
fn break_as_first_successor_still_reconverges() {
    let mut b = B::new();
    let (h, inc, exit) = (b.block(), b.block(), b.block());
    let x = b.load_local(I32, 0);
    let (c0, c1) = (b.ki(0), b.ki(1));
    let iv = b.reg(I32);
    b.mov_to(iv, I32, c0);
    b.jump(h);
    b.at(h);
    let ge = b.bin(Bo::SGe, I32, iv, x);
    b.branch(ge, exit, inc);
    b.at(inc);
    b.bin_to(iv, Bo::IAdd, I32, iv, c1);
    b.jump(h);
    b.at(exit);
    b.store_local(I32, 1, iv);
    let t = b.kb(true);
    let ballot = b.ballot(t);
    b.store_local(I32, 2, ballot);
    let p = b.program();
    let pos = |id| p.schedule().iter().position(|&s| s == id).unwrap();
    assert!(pos(inc) < pos(exit), "schedule {:?}", p.schedule());
    let got = run_both(&p, &XS);
    for (l, &x) in XS.iter().enumerate() {
        assert_eq!(got[l], (x as u32, 0xFFFF, false), "x = {x}");
    }
}

/// Jumps through instruction-free blocks (`program::thread_jumps`): a loop whose back edge,
/// entry and body exit pass through empty blocks, divergent per lane, with a ballot in the
/// body and after the loop (results that show how lanes were grouped). The threaded run (no
/// observer) must give what the observed run, which takes every jump to its IR target,
/// gives, with helper lanes and a partial last quad, and the budget must count the same
/// instructions: the smallest budget that lets the run finish is the same for both.
#[test]
fn threaded_jumps_keep_results_grouping_and_budget() {
    use crate::exec::program::{CTerm, DONE};
    use crate::exec::run::Batch;
    let mut b = B::new();
    let [h0, cond, body, mid, cont, exit] = b.blocks();
    let x = b.load_local(I32, 0);
    let (c0, c1) = (b.ki(0), b.ki(1));
    let t = b.kb(true);
    let (iv, acc) = (b.reg(I32), b.reg(I32));
    b.mov_to(iv, I32, c0);
    b.mov_to(acc, I32, c0);
    b.jump(h0);
    b.at(h0);
    b.jump(cond);
    b.at(cond);
    let ge = b.bin(Bo::SGe, I32, iv, x);
    b.branch(ge, exit, body);
    b.at(body);
    let ballot = b.ballot(t);
    let mixed = b.bin(Bo::IMul, I32, ballot, iv);
    b.bin_to(acc, Bo::IAdd, I32, acc, mixed);
    b.jump(mid);
    b.at(mid);
    b.jump(cont);
    b.at(cont);
    b.bin_to(iv, Bo::IAdd, I32, iv, c1);
    b.jump(h0);
    b.at(exit);
    b.store_local(I32, 1, acc);
    let last = b.ballot(t);
    b.store_local(I32, 2, last);
    let mut p = b.program();
    let threaded = p
        .blocks
        .iter()
        .filter(|blk| matches!(blk.term, CTerm::Jump(t) if t != blk.plain_jump))
        .count();
    // the entry, the back edge and the body's exit
    assert_eq!(threaded, 3, "schedule {:?}", p.schedule());

    struct Blocks(usize);
    impl Observer for Blocks {
        fn block(&mut self, _: BlockId, _: &[u32]) {
            self.0 += 1;
        }
        fn wants_insts(&self) -> bool {
            false
        }
    }
    // 14 lanes: the last quad half covered; helpers in the second quad
    let run = |p: &Program, observed: bool| -> crate::Result<Vec<u32>> {
        let mut bt = Batch::new();
        bt.reset(p, 14);
        let n = bt.n;
        for (l, &x) in XS.iter().enumerate().take(14) {
            bt.local[l] = x as u32;
            bt.helper[l] = (4..8).contains(&l) && l % 2 == 0;
        }
        for l in 14..n {
            bt.pc[l] = DONE;
        }
        if observed {
            let mut obs = Blocks(0);
            bt.run(p, &Bindings::default(), &mut obs)?;
            assert!(obs.0 > 0);
        } else {
            bt.run(p, &Bindings::default(), &mut NoObserver)?;
        }
        Ok(bt.local[n..3 * n].to_vec())
    };
    let (fast, plain) = (run(&p, false).unwrap(), run(&p, true).unwrap());
    assert_eq!(fast, plain);
    // lane 0 has x = 0: leaves at once, alone with the lanes that also had x = 0
    assert_eq!(fast[0], 0);
    let need = |p: &mut Program, observed: bool| {
        let (mut lo, mut hi) = (0u64, 100_000u64);
        while lo < hi {
            let mid = (lo + hi) / 2;
            p.set_budget(mid);
            if run(p, observed).is_ok() {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        lo
    };
    let (fast_need, plain_need) = (need(&mut p, false), need(&mut p, true));
    assert!(fast_need > 0 && fast_need < 100_000);
    assert_eq!(fast_need, plain_need);
}
