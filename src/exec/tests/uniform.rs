//! Uniform registers kept as one value (`exec::uniform`): every way a row is read — a lane
//! kernel taking it as a splat, a Local store (every lane and masked), a store at a computed
//! address, an image operand, a masked write over it, a branch, the observer's register view
//! and `BatchState`-style register reads — sees the value, on a batch whose rows hold poison.
//! Expected values are computed lane by lane in the test.

use super::B;
use crate::exec::run::Batch;
use crate::exec::{
    Bindings, ImageUnit, InstEvent, LaneValues, NoObserver, Observer, Program, QuadOperands,
};
use crate::ir::*;

use ScalarTy::{F32, I32};

/// Result component `c` of a lane: its first coordinate + 1000 * c.
struct CoordImages;
impl ImageUnit for CoordImages {
    fn image_op(
        &self,
        _: &ImageInst,
        q: &QuadOperands,
        out: &mut [[u32; 4]; 4],
    ) -> crate::Result<()> {
        for (o, c) in out.iter_mut().zip(&q.coords) {
            *o = std::array::from_fn(|k| c[0].wrapping_add(1000 * k as u32));
        }
        Ok(())
    }
}

/// Registers whose lanes the test reads.
struct Regs {
    t: Reg,
    w: Reg,
    img: Reg,
}

/// ```text
/// x = local[0] (f32); t = 1.5 * 2.0 (uniform); i = 2 + 3 (uniform i32)
/// y = x * t; y = y + t (the destination an operand); local[1] = y; local[2] = t - x; local[3] = clamp(x, 0.25, t); local[4] = t
/// local[i] = t                              (a store at a computed address: word 5)
/// img = fetch(coords (i, 0))[0]; local[6] = img
/// c = t > 2.0 (uniform); br c b1 b3
/// b1: d = x > 0.5; br d b2 b3
/// b2: w = t + 1.0 (uniform operands, some lanes); w = w * t; local[7] = t (masked); jump b3
/// b3: local[8] = w
/// ```
fn program() -> (Program, Regs) {
    let mut b = B::new();
    let (b1, b2, b3) = (b.block(), b.block(), b.block());
    let (k15, k2, k025, k1) = (b.kf(1.5), b.kf(2.0), b.kf(0.25), b.kf(1.0));
    let half = b.kf(0.5);
    let (two, three, zero) = (b.ki(2), b.ki(3), b.ki(0));
    let w = b.reg(F32);
    let x = b.load_local(F32, 0);
    let t = b.bin(BinaryOp::FMul, F32, k15, k2);
    let i = b.bin(BinaryOp::IAdd, I32, two, three);
    let y = b.bin(BinaryOp::FMul, F32, x, t);
    b.bin_to(y, BinaryOp::FAdd, F32, y, t);
    b.store_local(F32, 1, y);
    let z = b.bin(BinaryOp::FSub, F32, t, x);
    b.store_local(F32, 2, z);
    let cl = b.reg(F32);
    b.push(Inst::Ternary {
        op: TernaryOp::FClamp,
        ty: F32,
        dst: cl,
        a: x,
        b: k025,
        c: t,
    });
    b.store_local(F32, 3, cl);
    b.store_local(F32, 4, t);
    b.push(Inst::Store {
        ty: F32,
        ptr: Ptr {
            space: Space::Local,
            addr: i,
        },
        src: t,
    });
    let img: Vec<Reg> = (0..4).map(|_| b.reg(I32)).collect();
    b.push(Inst::Image(Box::new(ImageInst {
        kind: ImageOpKind::Fetch,
        image: ResRef {
            slot: 0,
            index: None,
        },
        sampler: None,
        coords: vec![i, zero],
        proj: None,
        dref: None,
        lod: Lod::Explicit(zero),
        offset: vec![],
        offsets4: None,
        min_lod: None,
        sample: None,
        component: None,
        texel: vec![],
        dst: img.clone(),
        result_ty: I32,
    })));
    b.store_local(I32, 6, img[0]);
    let c = b.bin(BinaryOp::FOrdGt, F32, t, k2);
    b.branch(c, b1, b3);
    b.at(b1);
    let d = b.bin(BinaryOp::FOrdGt, F32, x, half);
    b.branch(d, b2, b3);
    b.at(b2);
    b.bin_to(w, BinaryOp::FAdd, F32, t, k1);
    b.bin_to(w, BinaryOp::FMul, F32, w, t);
    b.store_local(F32, 7, t);
    b.jump(b3);
    b.at(b3);
    b.store_local(F32, 8, w);
    let img = img[0];
    (b.program(), Regs { t, w, img })
}

fn input(l: usize) -> f32 {
    l as f32 * 0.125 - 0.25
}

/// Local words 1..=8 of lane `l`, lane by lane.
fn expected(l: usize) -> [u32; 8] {
    let x = input(l);
    let t = 1.5f32 * 2.0;
    let taken = x > 0.5;
    let w = if taken { (t + 1.0) * t } else { 0.0 };
    [
        (x * t + t).to_bits(),
        (t - x).to_bits(),
        x.max(0.25).min(t).to_bits(),
        t.to_bits(),
        t.to_bits(),
        5,
        if taken { t.to_bits() } else { 0 },
        w.to_bits(),
    ]
}

/// Every 32-bit register's lanes after each instruction (the observer's view).
#[derive(Default)]
struct Seen(Vec<(Reg, Vec<u32>)>);
impl Observer for Seen {
    fn inst(&mut self, ev: &InstEvent<'_>) {
        let dst = match ev.inst {
            Inst::Binary { dst, .. } | Inst::Ternary { dst, .. } => *dst,
            _ => return,
        };
        if let Some(LaneValues::W32(v)) = ev.regs.get(dst) {
            self.0.push((dst, v.to_vec()));
        }
    }
}

/// Run on `batch` (its rows poisoned after a first reset, so every row the run does not
/// write holds garbage): Local words 1..=8 per lane.
fn run<O: Observer>(batch: &mut Batch, p: &Program, lanes: usize, obs: &mut O) -> Vec<[u32; 8]> {
    batch.reset(p, lanes);
    batch.poison_registers();
    batch.reset(p, lanes);
    let n = batch.n;
    for l in 0..n {
        batch.local[l] = input(l).to_bits();
    }
    batch
        .run(p, &Bindings::new(&CoordImages), obs)
        .expect("run");
    (0..n)
        .map(|l| std::array::from_fn(|w| batch.local[(w + 1) * n + l]))
        .collect()
}

#[test]
fn uniform_scalars_read_alike_through_every_path() {
    let (p, r) = program();
    for lanes in [4usize, 8, 64, 256] {
        let want: Vec<[u32; 8]> = (0..lanes).map(expected).collect();
        let mut batch = Batch::new();
        assert_eq!(run(&mut batch, &p, lanes, &mut NoObserver), want, "{lanes}");
        // register reads after the run (`BatchState::reg`)
        let reg = |b: &Batch, r: Reg, l: usize| {
            let (wide, s) = p.slots[r as usize];
            b.get(wide, s, l) as u32
        };
        for (l, w) in want.iter().enumerate() {
            assert_eq!(reg(&batch, r.t, l), 3.0f32.to_bits(), "t, lane {l}");
            assert_eq!(reg(&batch, r.w, l), w[7], "w, lane {l}");
            assert_eq!(reg(&batch, r.img, l), 5, "image result, lane {l}");
        }
        // the observed run: same memory, and every result the observer sees is the value
        // computed lane by lane
        let mut seen = Seen::default();
        assert_eq!(
            run(&mut batch, &p, lanes, &mut seen),
            want,
            "{lanes}, observed"
        );
        let t_rows: Vec<_> = seen.0.iter().filter(|(d, _)| *d == r.t).collect();
        assert_eq!(t_rows.len(), 1);
        assert!(t_rows[0].1.iter().all(|&v| v == 3.0f32.to_bits()));
        let w_rows: Vec<_> = seen.0.iter().filter(|(d, _)| *d == r.w).collect();
        assert_eq!(w_rows.len(), 2 * (lanes > 6) as usize, "{lanes}");
        if let Some((_, v)) = w_rows.last() {
            for (l, &x) in v.iter().enumerate() {
                assert_eq!(x, want[l][7], "observed w, lane {l}");
            }
        }
    }
}
