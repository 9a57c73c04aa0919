//! Interpreter throughput on hand-built IR: an ALU-heavy fragment-like program (a few hundred
//! arithmetic instructions with a divergent branch) and a loop-heavy compute program.
//! Criterion reports lanes per second (wall clock; fragment quads on one thread, compute
//! workgroups on rayon). The printed lines give single-thread on-CPU time (Linux schedstat, so
//! other processes' load does not count) per lane and per executed lane-instruction (counted
//! by an observer: the active lanes of every executed instruction).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use quadstep::exec::{
    compile, run_compute, run_compute_observed, run_fragment_quads, run_fragment_quads_observed,
    Bindings, Buffer, FragQuadInput, InstEvent, NoObserver, Observer, Program,
};
use quadstep::ir::*;

/// Counts executed lane-instructions (active lanes summed over executed instructions).
struct Count(u64);
impl Observer for Count {
    fn inst(&mut self, ev: &InstEvent<'_>) {
        self.0 += ev.active.iter().filter(|&&a| a != 0).count() as u64;
    }
}

/// On-CPU time of this thread in ns (Linux schedstat), so other processes' load does not count.
fn cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Single-threaded CPU time per lane and per executed lane-instruction of `run` (which runs
/// `lanes` lanes and executes `lane_insts` lane-instructions).
fn report(name: &str, lanes: u64, lane_insts: u64, mut run: impl FnMut()) {
    run();
    let reps = 20;
    let Some(t0) = cpu_ns() else { return };
    for _ in 0..reps {
        run();
    }
    let Some(t1) = cpu_ns() else { return };
    let ns = (t1 - t0) as f64 / reps as f64;
    println!(
        "{name}: {:.1} lane-instructions per lane; single-thread CPU time {:.1} ns/lane, {:.3} ns per lane-instruction",
        lane_insts as f64 / lanes as f64,
        ns / lanes as f64,
        ns / lane_insts as f64
    );
}

struct B {
    f: Function,
    cur: usize,
}
impl B {
    fn reg(&mut self, ty: ScalarTy) -> Reg {
        self.f.regs.push(ty);
        self.f.regs.len() as Reg - 1
    }
    fn k(&mut self, ty: ScalarTy, bits: u64) -> Reg {
        let r = self.reg(ty);
        self.f.consts.push((r, Const { ty, bits }));
        r
    }
    fn kf(&mut self, v: f32) -> Reg {
        self.k(ScalarTy::F32, v.to_bits() as u64)
    }
    fn ki(&mut self, v: i32) -> Reg {
        self.k(ScalarTy::I32, v as u32 as u64)
    }
    fn block(&mut self) -> BlockId {
        self.f.blocks.push(Block {
            insts: vec![],
            term: Terminator::Return,
        });
        self.f.blocks.len() as BlockId - 1
    }
    fn push(&mut self, i: Inst) {
        self.f.blocks[self.cur].insts.push(i);
    }
    fn bin(&mut self, op: BinaryOp, ty: ScalarTy, a: Reg, b: Reg) -> Reg {
        let dst = self.reg(if op.is_comparison() {
            ScalarTy::Bool
        } else {
            ty
        });
        self.push(Inst::Binary { op, ty, dst, a, b });
        dst
    }
    fn bin_to(&mut self, dst: Reg, op: BinaryOp, ty: ScalarTy, a: Reg, b: Reg) {
        self.push(Inst::Binary { op, ty, dst, a, b });
    }
    fn un(&mut self, op: UnaryOp, a: Reg) -> Reg {
        let dst = self.reg(ScalarTy::F32);
        self.push(Inst::Unary {
            op,
            ty: ScalarTy::F32,
            dst,
            a,
        });
        dst
    }
    fn load(&mut self, ty: ScalarTy, word: i32) -> Reg {
        let addr = self.ki(word);
        let dst = self.reg(ty);
        self.push(Inst::Load {
            ty,
            dst,
            ptr: Ptr {
                space: Space::Local,
                addr,
            },
        });
        dst
    }
    fn store(&mut self, word: i32, src: Reg) {
        let addr = self.ki(word);
        self.push(Inst::Store {
            ty: ScalarTy::F32,
            ptr: Ptr {
                space: Space::Local,
                addr,
            },
            src,
        });
    }
    fn insts_on_path(&self, blocks: &[usize]) -> usize {
        blocks
            .iter()
            .map(|&b| self.f.blocks[b].insts.len() + 1)
            .sum()
    }
}

fn shader(f: Function, stage: Stage, inputs: Vec<IoVar>, outputs: Vec<IoVar>) -> Shader {
    Shader {
        name: "bench".into(),
        stage,
        body: f,
        local_words: 8,
        workgroup_words: 0,
        inputs,
        outputs,
        resources: vec![],
        workgroup_size: [64, 1, 1],
        writes_depth: false,
        can_discard: false,
        early_fragment_tests: false,
        origin_upper_left: true,
        derivative_group: None,
        modes: Default::default(),
        source: Default::default(),
    }
}

/// `n` mixed float ALU ops (mul/add/fma/min/max/fract/compare+select) folding into `acc`.
fn alu_chain(b: &mut B, acc: Reg, x: Reg, y: Reg, n: usize) {
    use BinaryOp::*;
    let (c1, c2, c3) = (b.kf(1.0001), b.kf(0.37), b.kf(0.5));
    let mut i = 0;
    while i < n {
        b.bin_to(acc, FMul, ScalarTy::F32, acc, c1);
        b.bin_to(acc, FAdd, ScalarTy::F32, acc, x);
        let t = b.reg(ScalarTy::F32);
        b.push(Inst::Ternary {
            op: TernaryOp::Fma,
            ty: ScalarTy::F32,
            dst: t,
            a: acc,
            b: c2,
            c: y,
        });
        let m = b.bin(FMin, ScalarTy::F32, t, acc);
        let mx = b.bin(FMax, ScalarTy::F32, m, x);
        let fr = b.un(UnaryOp::Fract, mx);
        let lt = b.bin(FOrdLt, ScalarTy::F32, fr, c3);
        b.push(Inst::Ternary {
            op: TernaryOp::Select,
            ty: ScalarTy::F32,
            dst: acc,
            a: lt,
            b: fr,
            c: acc,
        });
        i += 8;
    }
}

/// Fragment-like: 160 ops, a branch on x > 0.5 with 96 ops per side, 64 more ops.
fn alu_program() -> (Program, usize) {
    let mut b = B {
        f: Function::default(),
        cur: 0,
    };
    b.block();
    let (then_b, else_b, merge) = (b.block(), b.block(), b.block());
    let x = b.load(ScalarTy::F32, 0);
    let y = b.load(ScalarTy::F32, 1);
    let acc = b.reg(ScalarTy::F32);
    b.push(Inst::Unary {
        op: UnaryOp::Mov,
        ty: ScalarTy::F32,
        dst: acc,
        a: x,
    });
    alu_chain(&mut b, acc, x, y, 160);
    let half = b.kf(0.5);
    let c = b.bin(BinaryOp::FOrdGt, ScalarTy::F32, x, half);
    b.f.blocks[0].term = Terminator::Branch {
        cond: c,
        if_true: then_b,
        if_false: else_b,
    };
    b.cur = then_b as usize;
    alu_chain(&mut b, acc, y, x, 96);
    b.f.blocks[then_b as usize].term = Terminator::Jump(merge);
    b.cur = else_b as usize;
    alu_chain(&mut b, acc, x, x, 96);
    b.f.blocks[else_b as usize].term = Terminator::Jump(merge);
    b.cur = merge as usize;
    alu_chain(&mut b, acc, x, y, 64);
    b.store(2, acc);
    let per_lane = b.insts_on_path(&[0, then_b as usize, merge as usize]);
    let io = |binding, word, count| IoVar {
        binding,
        ty: ScalarTy::F32,
        word,
        count,
        interp: Interp::Smooth,
        sampling: Default::default(),
        per: Default::default(),
        name: String::new(),
    };
    let sh = shader(
        b.f,
        Stage::Fragment,
        vec![io(
            IoBinding::Location {
                location: 0,
                component: 0,
            },
            0,
            2,
        )],
        vec![io(
            IoBinding::Location {
                location: 0,
                component: 0,
            },
            2,
            1,
        )],
    );
    (compile(&sh).unwrap(), per_lane)
}

/// Compute: each lane loops 1000 times over a 6-instruction body, then stores to a buffer.
fn loop_program() -> (Program, usize) {
    use BinaryOp::*;
    let mut b = B {
        f: Function::default(),
        cur: 0,
    };
    b.block();
    let (head, body, exit) = (b.block(), b.block(), b.block());
    let gid = b.reg(ScalarTy::I32);
    let a0 = b.ki(0);
    b.push(Inst::Load {
        ty: ScalarTy::I32,
        dst: gid,
        ptr: Ptr {
            space: Space::Local,
            addr: a0,
        },
    });
    let (i, acc) = (b.reg(ScalarTy::I32), b.reg(ScalarTy::F32));
    let (zero, one, n, k) = (b.ki(0), b.ki(1), b.ki(1000), b.kf(1.0001));
    b.push(Inst::Unary {
        op: UnaryOp::Mov,
        ty: ScalarTy::I32,
        dst: i,
        a: zero,
    });
    b.push(Inst::Convert {
        op: ConvOp::UToF,
        from: ScalarTy::I32,
        to: ScalarTy::F32,
        dst: acc,
        a: gid,
    });
    b.f.blocks[0].term = Terminator::Jump(head);
    b.cur = head as usize;
    let c = b.bin(SLt, ScalarTy::I32, i, n);
    b.f.blocks[head as usize].term = Terminator::Branch {
        cond: c,
        if_true: body,
        if_false: exit,
    };
    b.cur = body as usize;
    let fi = b.reg(ScalarTy::F32);
    b.push(Inst::Convert {
        op: ConvOp::SToF,
        from: ScalarTy::I32,
        to: ScalarTy::F32,
        dst: fi,
        a: i,
    });
    b.bin_to(acc, FMul, ScalarTy::F32, acc, k);
    b.bin_to(acc, FAdd, ScalarTy::F32, acc, fi);
    let bits = b.reg(ScalarTy::I32);
    b.push(Inst::Convert {
        op: ConvOp::Bitcast,
        from: ScalarTy::F32,
        to: ScalarTy::I32,
        dst: bits,
        a: acc,
    });
    b.bin_to(i, IAdd, ScalarTy::I32, i, one);
    b.f.blocks[body as usize].term = Terminator::Jump(head);
    b.cur = exit as usize;
    let four = b.ki(4);
    let addr = b.bin(IMul, ScalarTy::I32, gid, four);
    b.push(Inst::Store {
        ty: ScalarTy::F32,
        ptr: Ptr {
            space: Space::Buffer {
                slot: 0,
                index: None,
            },
            addr,
        },
        src: acc,
    });
    let per_lane = 1000 * b.insts_on_path(&[head as usize, body as usize])
        + b.insts_on_path(&[0, head as usize, exit as usize]);
    let gid_var = IoVar {
        binding: IoBinding::BuiltIn(BuiltIn::GlobalInvocationId),
        ty: ScalarTy::I32,
        word: 0,
        count: 3,
        interp: Interp::Flat,
        sampling: Default::default(),
        per: Default::default(),
        name: String::new(),
    };
    (
        compile(&shader(b.f, Stage::Compute, vec![gid_var], vec![])).unwrap(),
        per_lane,
    )
}

fn quads(n: usize) -> Vec<FragQuadInput> {
    (0..n)
        .map(|q| {
            let mut varyings = vec![0u32; 16];
            for l in 0..4 {
                let x = ((q * 4 + l) % 97) as f32 / 97.0;
                varyings[l * 4] = x.to_bits();
                varyings[l * 4 + 1] = (1.0 - x).to_bits();
            }
            FragQuadInput {
                varyings,
                ..Default::default()
            }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let (alu, alu_insts) = alu_program();
    let qs = quads(1024);
    let lanes = (qs.len() * 4) as u64;
    let bind = Bindings::default();
    let mut g = c.benchmark_group("interp");
    g.throughput(Throughput::Elements(lanes));
    g.bench_function("alu_fragment", |bch| {
        bch.iter(|| run_fragment_quads(&alu, &qs, &bind).unwrap())
    });
    let mut count = Count(0);
    run_fragment_quads_observed(&alu, &qs, &bind, &mut count).unwrap();
    println!("alu_fragment: {alu_insts} instructions on a lane's path");
    report("alu_fragment", lanes, count.0, || {
        run_fragment_quads_observed(&alu, &qs, &bind, &mut NoObserver).unwrap();
    });

    let (lp, loop_insts) = loop_program();
    let groups = 16u32;
    let buf = Buffer::new(4 * 64 * groups as usize);
    let mut bind = Bindings::default();
    bind.bind_buffer(0, 0, &buf);
    let lanes = 64 * groups as u64;
    g.throughput(Throughput::Elements(lanes));
    g.bench_function("loop_compute", |bch| {
        bch.iter(|| run_compute(&lp, [groups, 1, 1], &bind).unwrap())
    });
    let mut count = Count(0);
    run_compute_observed(&lp, [groups, 1, 1], &bind, &mut count).unwrap();
    println!("loop_compute: {loop_insts} instructions on a lane's path");
    report("loop_compute", lanes, count.0, || {
        run_compute_observed(&lp, [groups, 1, 1], &bind, &mut NoObserver).unwrap();
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
