//! `ir::opt`: hand-built IR checked against values worked out by hand, and differential runs
//! (optimised vs not, bit for bit) over every SPIR-V shader we have: `shaders/`,
//! `tests/lavapipe/spv/`, the compute and fragment shaders of the Amber corpus (SPIRV-ASM, and
//! GLSL through `glslangValidator` when installed), and every lavapipe and demo scene rendered
//! through the pipeline with and without `QUADSTEP_NO_OPT=1`.

mod common;
mod lavapipe_support;

use common::tools::{self, Tool};

use std::path::{Path, PathBuf};

use quadstep::amber::ast::{ShaderFormat, ShaderSource, ShaderType};
use quadstep::exec::{self, Bindings, Buffer, FragQuadInput, NoObserver};
use quadstep::front::spirv::{Module, SpecConstants};
use quadstep::front::spvasm;
use quadstep::ir::{self, opt, *};

// ---------------------------------------------------------------------------------------------
// Hand-built shaders.

fn frag(regs: Vec<ScalarTy>, consts: Vec<(Reg, Const)>, blocks: Vec<Block>, words: u32) -> Shader {
    Shader {
        name: "t".into(),
        stage: Stage::Fragment,
        body: Function {
            regs,
            consts,
            blocks,
        },
        local_words: words,
        workgroup_words: 0,
        inputs: vec![IoVar {
            binding: IoBinding::Location {
                location: 0,
                component: 0,
            },
            ty: ScalarTy::F32,
            word: 0,
            count: 1,
            interp: Interp::Smooth,
            sampling: Default::default(),
            per: Default::default(),
            name: "x".into(),
        }],
        outputs: vec![IoVar {
            binding: IoBinding::Location {
                location: 0,
                component: 0,
            },
            ty: ScalarTy::F32,
            word: 1,
            count: 1,
            interp: Interp::Smooth,
            sampling: Default::default(),
            per: Default::default(),
            name: "o".into(),
        }],
        resources: vec![],
        workgroup_size: [1, 1, 1],
        writes_depth: false,
        can_discard: false,
        early_fragment_tests: false,
        origin_upper_left: true,
        derivative_group: None,
        modes: Default::default(),
        source: Default::default(),
    }
}

fn c32(bits: u32) -> Const {
    Const {
        ty: ScalarTy::I32,
        bits: bits as u64,
    }
}
fn f32c(v: f32) -> Const {
    Const {
        ty: ScalarTy::F32,
        bits: v.to_bits() as u64,
    }
}
fn local(addr: Reg) -> Ptr {
    Ptr {
        space: Space::Local,
        addr,
    }
}

/// Runs one quad with input x per lane; returns output word per lane.
fn run1(sh: &Shader, xs: [f32; 4]) -> [u32; 4] {
    ir::verify(sh).expect("verifies");
    let p = exec::compile(sh).expect("compiles");
    let q = FragQuadInput {
        varyings: (0..4).flat_map(|i| [xs[i].to_bits(), 0, 0, 0]).collect(),
        ..Default::default()
    };
    let out = exec::run_fragment_quads(&p, &[q], &Bindings::default()).expect("runs");
    let s = out[0].outputs.len() / 4;
    [0, 1, 2, 3].map(|i| out[0].outputs[i * s])
}

fn count(sh: &Shader, f: impl Fn(&Inst) -> bool) -> usize {
    sh.body
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter(|i| f(i))
        .count()
}
fn is_local_mem(i: &Inst) -> bool {
    matches!(i, Inst::Load { ptr, .. } | Inst::Store { ptr, .. } if ptr.space == Space::Local)
}

/// Block 0: t = x (from input word 0); if t < 0.5 goto 1 else 2.
/// Block 1: store 3.0 to word 2 (address computed as 1 + 1). Block 2: o = load word 2 + t.
/// Lanes with x < 0.5 output 3 + x, the others 0 + x (word 2 starts zeroed).
fn divergent_local() -> Shader {
    use ScalarTy::*;
    // r0 addr0, r1 addr1, r2 one, r3 half, r4 three, r5 x, r6 cond, r7 addr2, r8 loaded,
    // r9 sum.
    let regs = vec![I32, I32, I32, F32, F32, F32, Bool, I32, F32, F32];
    let consts = vec![
        (0, c32(0)),
        (1, c32(1)),
        (2, c32(1)),
        (3, f32c(0.5)),
        (4, f32c(3.0)),
    ];
    let blocks = vec![
        Block {
            insts: vec![
                Inst::Source { offset: 10 },
                Inst::Source { offset: 11 },
                load(5, 0),
                Inst::Binary {
                    op: BinaryOp::IAdd,
                    ty: I32,
                    dst: 7,
                    a: 1,
                    b: 2,
                },
                bin(BinaryOp::FOrdLt, 6, 5, 3),
            ],
            term: Terminator::Branch {
                cond: 6,
                if_true: 1,
                if_false: 2,
            },
        },
        Block {
            insts: vec![store(7, 4)],
            term: Terminator::Jump(2),
        },
        Block {
            insts: vec![load(8, 7), bin(BinaryOp::FAdd, 9, 8, 5), store(1, 9)],
            term: Terminator::Return,
        },
    ];
    frag(regs, consts, blocks, 3)
}

#[test]
fn promotes_constant_address_word_and_keeps_io() {
    let sh = divergent_local();
    let xs = [0.25, 0.75, 0.0, 2.0];
    let want = [3.25f32, 0.75, 3.0, 2.0].map(f32::to_bits);
    assert_eq!(run1(&sh, xs), want, "reference run");
    let mut o = sh.clone();
    let st = opt::optimize(&mut o);
    assert_eq!(st.words_promoted, 1, "{st:?}");
    // The input load (word 0) and output store (word 1) stay; word 2's accesses are gone.
    assert_eq!(count(&o, is_local_mem), 2, "{:#?}", o.body);
    // The address add was folded away.
    assert_eq!(
        count(&o, |i| matches!(
            i,
            Inst::Binary {
                op: BinaryOp::IAdd,
                ..
            }
        )),
        0
    );
    // One Source marker left before the first instruction.
    assert_eq!(count(&o, |i| matches!(i, Inst::Source { .. })), 1);
    assert!(matches!(
        o.body.blocks[0].insts[0],
        Inst::Source { offset: 11 }
    ));
    assert_eq!(run1(&o, xs), want, "optimised run");
}

#[test]
fn dynamic_local_address_keeps_memory() {
    let mut sh = divergent_local();
    // Block 1 now stores through an address read from memory word 0 bits (dynamic).
    sh.body.regs.push(ScalarTy::I32); // r10
    sh.body.blocks[1].insts.insert(
        0,
        Inst::Convert {
            op: ConvOp::FToS,
            from: ScalarTy::F32,
            to: ScalarTy::I32,
            dst: 10,
            a: 5,
        },
    );
    if let Inst::Store { ptr, .. } = &mut sh.body.blocks[1].insts[1] {
        ptr.addr = 10;
    }
    // FToS(0.25) = 0 -> store 3.0 to word 0 (the input) then word 2 stays 0: x outputs x.
    let xs = [0.25, 0.75, 0.0, 2.0];
    let want = xs.map(f32::to_bits);
    assert_eq!(run1(&sh, xs), want);
    let mut o = sh.clone();
    let st = opt::optimize(&mut o);
    assert_eq!(st.words_promoted, 0);
    assert_eq!(count(&o, is_local_mem), count(&sh, is_local_mem));
    assert_eq!(run1(&o, xs), want);
}

#[test]
fn dead_code_removed_but_stores_and_derivative_operands_kept() {
    use ScalarTy::*;
    // r0 x, r1 dead product, r2 addr1 (const), r3 copy of x, r4 dFdx(copy), r5 addr0.
    let regs = vec![F32, F32, I32, F32, F32, I32];
    let consts = vec![(2, c32(1)), (5, c32(0))];
    let blocks = vec![Block {
        insts: vec![
            load(0, 5),
            bin(BinaryOp::FMul, 1, 0, 0),
            Inst::Unary {
                op: UnaryOp::Mov,
                ty: F32,
                dst: 3,
                a: 0,
            },
            Inst::Deriv {
                axis: Axis::X,
                kind: DerivKind::Fine,
                ty: F32,
                dst: 4,
                a: 3,
            },
            store(2, 4),
        ],
        term: Terminator::Return,
    }];
    let sh = frag(regs, consts, blocks, 2);
    // Fine dFdx: lane 1 - lane 0 for the top row, lane 3 - lane 2 for the bottom row.
    let xs = [1.0, 4.0, 2.0, 10.0];
    let want = [3.0f32, 3.0, 8.0, 8.0].map(f32::to_bits);
    assert_eq!(run1(&sh, xs), want);
    let mut o = sh.clone();
    let st = opt::optimize(&mut o);
    assert_eq!(st.dead_removed, 1, "{:#?}", o.body);
    assert_eq!(count(&o, |i| matches!(i, Inst::Binary { .. })), 0);
    // The copy read by the derivative stays, and so does the derivative's operand.
    assert!(o.body.blocks[0].insts.iter().any(|i| matches!(
        i,
        Inst::Unary {
            op: UnaryOp::Mov,
            dst: 3,
            a: 0,
            ..
        }
    )));
    assert!(o.body.blocks[0]
        .insts
        .iter()
        .any(|i| matches!(i, Inst::Deriv { a: 3, .. })));
    assert_eq!(run1(&o, xs), want);
}

#[test]
fn copy_in_branch_not_propagated_to_join() {
    use ScalarTy::*;
    // b0: x = load w0; c = x < 0.5; r = 7.0 (Mov from const); branch c ? b1 : b2
    // b1: r = Mov x; jump b2.  b2: store r to w1.  r has two definitions: nothing folds into
    // the join. Lanes x < 0.5 output x, the others 7.
    let regs = vec![F32, Bool, F32, F32, I32, I32, F32];
    let consts = vec![(3, f32c(7.0)), (4, c32(0)), (5, c32(1)), (6, f32c(0.5))];
    let blocks = vec![
        Block {
            insts: vec![
                load(0, 4),
                bin(BinaryOp::FOrdLt, 1, 0, 6),
                Inst::Unary {
                    op: UnaryOp::Mov,
                    ty: F32,
                    dst: 2,
                    a: 3,
                },
            ],
            term: Terminator::Branch {
                cond: 1,
                if_true: 1,
                if_false: 2,
            },
        },
        Block {
            insts: vec![Inst::Unary {
                op: UnaryOp::Mov,
                ty: F32,
                dst: 2,
                a: 0,
            }],
            term: Terminator::Jump(2),
        },
        Block {
            insts: vec![store(5, 2)],
            term: Terminator::Return,
        },
    ];
    let sh = frag(regs, consts, blocks, 2);
    let xs = [0.25, 0.75, 0.0, 2.0];
    let want = [0.25f32, 7.0, 0.0, 7.0].map(f32::to_bits);
    assert_eq!(run1(&sh, xs), want);
    let mut o = sh.clone();
    opt::optimize(&mut o);
    assert_eq!(count(&o, |i| matches!(i, Inst::Unary { .. })), 2);
    assert_eq!(run1(&o, xs), want);
}

fn bin(op: BinaryOp, dst: Reg, a: Reg, b: Reg) -> Inst {
    Inst::Binary {
        op,
        ty: ScalarTy::F32,
        dst,
        a,
        b,
    }
}
/// `dst = w[addr]`: an F32 load of a Local word.
fn load(dst: Reg, addr: Reg) -> Inst {
    Inst::Load {
        ty: ScalarTy::F32,
        dst,
        ptr: local(addr),
    }
}
/// `w[addr] = src`: an F32 store to a Local word.
fn store(addr: Reg, src: Reg) -> Inst {
    Inst::Store {
        ty: ScalarTy::F32,
        ptr: local(addr),
        src,
    }
}
fn mov(dst: Reg, a: Reg) -> Inst {
    Inst::Unary {
        op: UnaryOp::Mov,
        ty: ScalarTy::F32,
        dst,
        a,
    }
}

#[test]
fn repeated_product_reused_until_its_operand_changes() {
    use BinaryOp::*;
    use ScalarTy::*;
    // x = w0; a = 2x; b = 2x (the same: a copy); x = x + 1; c = 2x (not the same);
    // o = (a + b) + c = 6x + 2.
    let regs = vec![F32, I32, I32, F32, F32, F32, F32, F32, F32, F32];
    let consts = vec![(1, c32(0)), (2, c32(1)), (3, f32c(2.0)), (8, f32c(1.0))];
    let blocks = vec![Block {
        insts: vec![
            load(0, 1),
            bin(FMul, 4, 0, 3),
            bin(FMul, 5, 0, 3),
            bin(FAdd, 0, 0, 8),
            bin(FMul, 6, 0, 3),
            bin(FAdd, 7, 4, 5),
            bin(FAdd, 9, 7, 6),
            store(2, 9),
        ],
        term: Terminator::Return,
    }];
    let sh = frag(regs, consts, blocks, 2);
    let xs = [1.0, 0.5, -2.0, 3.0];
    let want = [8.0f32, 5.0, -10.0, 20.0].map(f32::to_bits);
    assert_eq!(run1(&sh, xs), want);
    let mut o = sh.clone();
    let st = opt::optimize(&mut o);
    assert_eq!(st.cse, 1, "{:#?}", o.body);
    let fmul = |i: &Inst| matches!(i, Inst::Binary { op: FMul, .. });
    assert_eq!(count(&o, fmul), 2, "{:#?}", o.body);
    assert_eq!(run1(&o, xs), want);
}

/// b0: x = w0; acc = 0; i = 0.  b1: while i < x:  b2: inv = x / 2 (invariant); acc = acc + inv
/// (through a temporary and a copy); w = 4x; dw = dFdx(w) (cross-lane: stays in the loop);
/// i = i + 1 (through a copy).  b3: o = acc + dw.
/// x = [-1, 2.5, 1, 3]: 0, 3, 1 and 3 trips; acc = trips * x / 2 = [0, 3.75, 0.5, 4.5].
/// dFdx (fine) is lane 1 - lane 0 on the top row, lane 3 - lane 2 on the bottom: lane 0 never
/// writes w (0), lane 2 keeps its one-trip w = 4 while lane 3 goes on, so dw = 10 for lane
/// 1 and 8 for lanes 2 and 3; lane 0 never writes dw (0). o = [0, 13.75, 8.5, 12.5].
/// Hoisting w would give lane 0 w = -4 and lane 1 o = 17.75.
fn invariant_loop() -> Shader {
    use BinaryOp::*;
    use ScalarTy::*;
    let regs = vec![
        F32, I32, I32, F32, F32, F32, F32, F32, F32, Bool, F32, F32, F32, F32, F32, F32,
    ];
    let consts = vec![
        (1, c32(0)),
        (2, c32(1)),
        (3, f32c(0.5)),
        (4, f32c(4.0)),
        (5, f32c(1.0)),
        (6, f32c(0.0)),
    ];
    let blocks = vec![
        Block {
            insts: vec![load(0, 1), mov(7, 6), mov(8, 6)],
            term: Terminator::Jump(1),
        },
        Block {
            insts: vec![bin(FOrdLt, 9, 8, 0)],
            term: Terminator::Branch {
                cond: 9,
                if_true: 2,
                if_false: 3,
            },
        },
        Block {
            insts: vec![
                Inst::Source { offset: 42 },
                bin(FMul, 10, 0, 3),
                bin(FAdd, 11, 7, 10),
                mov(7, 11),
                bin(FMul, 12, 0, 4),
                Inst::Deriv {
                    axis: Axis::X,
                    kind: DerivKind::Fine,
                    ty: F32,
                    dst: 13,
                    a: 12,
                },
                bin(FAdd, 14, 8, 5),
                mov(8, 14),
            ],
            term: Terminator::Jump(1),
        },
        Block {
            insts: vec![bin(FAdd, 15, 7, 13), store(2, 15)],
            term: Terminator::Return,
        },
    ];
    frag(regs, consts, blocks, 2)
}

#[test]
fn loop_invariant_moves_out_and_copies_fold_but_cross_lane_stays() {
    let sh = invariant_loop();
    let xs = [-1.0, 2.5, 1.0, 3.0];
    let want = [0.0f32, 13.75, 8.5, 12.5].map(f32::to_bits);
    assert_eq!(run1(&sh, xs), want);
    let mut o = sh.clone();
    let st = opt::optimize(&mut o);
    let b = &o.body.blocks;
    assert_eq!(st.hoisted, 1, "{b:#?}");
    assert_eq!(st.coalesced, 2, "{b:#?}");
    // x / 2 runs in the preheader, with its source marker
    let half = |i: &Inst| matches!(i, Inst::Binary { a: 0, b: 3, .. });
    assert!(b[0].insts.iter().any(half), "{b:#?}");
    assert!(b[0].insts.contains(&Inst::Source { offset: 42 }), "{b:#?}");
    // the body: acc += inv and i += 1 in place, no copies; 4x stays beside its derivative
    assert!(!b[2].insts.iter().any(half));
    assert!(!b[2].insts.iter().any(|i| matches!(
        i,
        Inst::Unary {
            op: UnaryOp::Mov,
            ..
        }
    )));
    assert!(b[2]
        .insts
        .iter()
        .any(|i| matches!(i, Inst::Binary { dst: 7, a: 7, .. })));
    assert!(b[2]
        .insts
        .iter()
        .any(|i| matches!(i, Inst::Binary { dst: 8, a: 8, .. })));
    assert!(b[2]
        .insts
        .iter()
        .any(|i| matches!(i, Inst::Binary { a: 0, b: 4, .. })));
    assert_eq!(run1(&o, xs), want);
}

/// o = x + (a + b) with a = b = the buffer's word 0, and a dead read of its word 1; `kind`
/// is the buffer's resource kind. Bound to [2.0, 3.0]: o = x + 4.
fn repeated_buffer_reads(kind: ResourceKind) -> Shader {
    use BinaryOp::*;
    use ScalarTy::*;
    let regs = vec![F32, I32, I32, F32, F32, F32, F32, F32, I32];
    let consts = vec![(1, c32(0)), (2, c32(4)), (8, c32(1))];
    let pc = |addr| Ptr {
        space: Space::Buffer {
            slot: 0,
            index: None,
        },
        addr,
    };
    let blocks = vec![Block {
        insts: vec![
            load(0, 1),
            Inst::Load {
                ty: F32,
                dst: 3,
                ptr: pc(1),
            },
            Inst::Load {
                ty: F32,
                dst: 4,
                ptr: pc(1),
            },
            Inst::Load {
                ty: F32,
                dst: 5,
                ptr: pc(2),
            },
            bin(FAdd, 6, 3, 4),
            bin(FAdd, 7, 0, 6),
            store(8, 7),
        ],
        term: Terminator::Return,
    }];
    let mut sh = frag(regs, consts, blocks, 2);
    sh.resources = vec![Resource {
        kind,
        set: 0,
        binding: 0,
        array_len: 1,
        image: None,
        name: "pc".into(),
        class: None,
    }];
    sh
}

fn run_with_buffer(sh: &Shader, words: &[u32], xs: [f32; 4]) -> [u32; 4] {
    ir::verify(sh).expect("verifies");
    let p = exec::compile(sh).expect("compiles");
    let q = FragQuadInput {
        varyings: (0..4).flat_map(|i| [xs[i].to_bits(), 0, 0, 0]).collect(),
        ..Default::default()
    };
    let buf = Buffer::from_u32s(words);
    let mut bind = Bindings::default();
    bind.bind_buffer(0, 0, &buf);
    let out = exec::run_fragment_quads(&p, &[q], &bind).expect("runs");
    let s = out[0].outputs.len() / 4;
    [0, 1, 2, 3].map(|i| out[0].outputs[i * s])
}

#[test]
fn read_only_buffer_reads_reused_and_dead_ones_dropped_storage_reads_kept() {
    let words = [2.0f32.to_bits(), 3.0f32.to_bits()];
    let xs = [1.0, 0.5, -2.0, 3.0];
    let want = [5.0f32, 4.5, 2.0, 7.0].map(f32::to_bits);
    let buffer_load =
        |i: &Inst| matches!(i, Inst::Load { ptr, .. } if matches!(ptr.space, Space::Buffer { .. }));
    for (kind, loads_after) in [
        (ResourceKind::PushConstant, 1),
        (ResourceKind::UniformBuffer, 1),
        (ResourceKind::StorageBuffer, 3),
    ] {
        let sh = repeated_buffer_reads(kind);
        assert_eq!(run_with_buffer(&sh, &words, xs), want, "{kind:?}");
        let mut o = sh.clone();
        opt::optimize(&mut o);
        assert_eq!(
            count(&o, buffer_load),
            loads_after,
            "{kind:?}: {:#?}",
            o.body
        );
        assert_eq!(run_with_buffer(&o, &words, xs), want, "{kind:?}");
    }
}

/// b0: acc = 0; i = 0.  b1: while i < 3:  b2: x = w0 (the input); acc = acc + x; i = i + 1;
/// with `store_in_loop`, also w1 = acc.  b3: w1 = acc. o = 3x either way.
fn loop_reading_the_input(store_in_loop: bool) -> Shader {
    use BinaryOp::*;
    use ScalarTy::*;
    let regs = vec![F32, I32, I32, F32, F32, F32, F32, F32, F32, Bool];
    let consts = vec![
        (1, c32(0)),
        (2, c32(1)),
        (3, f32c(3.0)),
        (4, f32c(1.0)),
        (5, f32c(0.0)),
    ];
    let mut body = vec![load(0, 1), bin(FAdd, 6, 6, 0), bin(FAdd, 7, 7, 4)];
    if store_in_loop {
        body.push(store(2, 6));
    }
    let blocks = vec![
        Block {
            insts: vec![mov(6, 5), mov(7, 5)],
            term: Terminator::Jump(1),
        },
        Block {
            insts: vec![bin(FOrdLt, 9, 7, 3)],
            term: Terminator::Branch {
                cond: 9,
                if_true: 2,
                if_false: 3,
            },
        },
        Block {
            insts: body,
            term: Terminator::Jump(1),
        },
        Block {
            insts: vec![store(2, 6)],
            term: Terminator::Return,
        },
    ];
    frag(regs, consts, blocks, 2)
}

#[test]
fn input_read_leaves_a_loop_that_writes_no_memory() {
    let xs = [1.0, 0.5, -2.0, 3.0];
    let want = [3.0f32, 1.5, -6.0, 9.0].map(f32::to_bits);
    for store_in_loop in [false, true] {
        let sh = loop_reading_the_input(store_in_loop);
        assert_eq!(run1(&sh, xs), want);
        let mut o = sh.clone();
        opt::optimize(&mut o);
        let b = &o.body.blocks;
        let load = |i: &Inst| matches!(i, Inst::Load { .. });
        assert_eq!(
            b[0].insts.iter().any(load),
            !store_in_loop,
            "store in the loop: {store_in_loop}: {b:#?}"
        );
        assert_eq!(b[2].insts.iter().any(load), store_in_loop, "{b:#?}");
        assert_eq!(run1(&o, xs), want);
    }
}

/// b0: x = w0; y = 0; z = 0; if x < 0 goto b2.  b1: t = 2x; y = t (a copy); with `rewrite`,
/// y = y + 5; z = t + 1.  b2: o = y + z.
/// o = 4x + 1 for x >= 0 (4x + 6 with the rewrite, which must not reach the read of `t`: a
/// wrong fold gives 4x + 11), 0 for x < 0. `y` is written in two blocks, so no copy
/// propagation removes the copy: only folding it into `t`'s definition does.
fn copy_then_more_reads(rewrite: bool) -> Shader {
    use BinaryOp::*;
    use ScalarTy::*;
    let regs = vec![F32, I32, I32, F32, F32, F32, F32, F32, F32, F32, Bool, F32];
    let consts = vec![
        (1, c32(0)),
        (2, c32(1)),
        (3, f32c(2.0)),
        (4, f32c(1.0)),
        (5, f32c(0.0)),
        (11, f32c(5.0)),
    ];
    let mut b1 = vec![bin(FMul, 6, 0, 3), mov(7, 6)];
    if rewrite {
        b1.push(bin(FAdd, 7, 7, 11));
    }
    b1.push(bin(FAdd, 8, 6, 4));
    let blocks = vec![
        Block {
            insts: vec![load(0, 1), mov(7, 5), mov(8, 5), bin(FOrdLt, 10, 0, 5)],
            term: Terminator::Branch {
                cond: 10,
                if_true: 2,
                if_false: 1,
            },
        },
        Block {
            insts: b1,
            term: Terminator::Jump(2),
        },
        Block {
            insts: vec![bin(FAdd, 9, 7, 8), store(2, 9)],
            term: Terminator::Return,
        },
    ];
    frag(regs, consts, blocks, 2)
}

#[test]
fn a_copy_folds_into_its_definition_when_later_reads_can_take_the_copy() {
    let xs = [1.0, 0.5, -2.0, 3.0];
    let copy_of_t = |i: &Inst| {
        matches!(
            i,
            Inst::Unary {
                op: UnaryOp::Mov,
                a: 6,
                ..
            }
        )
    };
    for (rewrite, want) in [
        (false, [5.0f32, 3.0, 0.0, 13.0]),
        (true, [10.0f32, 8.0, 0.0, 18.0]),
    ] {
        let sh = copy_then_more_reads(rewrite);
        let want = want.map(f32::to_bits);
        assert_eq!(run1(&sh, xs), want, "rewrite {rewrite}");
        let mut o = sh.clone();
        opt::optimize(&mut o);
        if !rewrite {
            assert_eq!(count(&o, copy_of_t), 0, "{:#?}", o.body);
        }
        assert_eq!(run1(&o, xs), want, "rewrite {rewrite}");
    }
}

// ---------------------------------------------------------------------------------------------
// Differential runs.

/// An input word: small ints and small floats, mixed, so loop bounds stay small and arithmetic
/// is exercised.
fn word(rng: &mut fastrand::Rng) -> u32 {
    match rng.u32(..4) {
        0 => rng.u32(..8),
        1 => (rng.f32() * 4.0 - 2.0).to_bits(),
        2 => (rng.u32(..256) as f32).to_bits(),
        _ => rng.u32(..),
    }
}

fn buffer_resource(k: ResourceKind) -> bool {
    matches!(
        k,
        ResourceKind::UniformBuffer | ResourceKind::StorageBuffer | ResourceKind::PushConstant
    )
}

/// The observable result of one run: output words (fragment: per quad all outputs and flags;
/// compute: all buffers' final contents), or the error.
fn run_shader(sh: &Shader, seed: u64) -> Result<Vec<u32>, String> {
    let mut p = exec::compile(sh).map_err(|e| e.to_string())?;
    // Corpus shaders are run on made-up inputs: some loop forever on them.
    p.set_budget(2_000_000);
    let mut rng = fastrand::Rng::with_seed(seed);
    let bufs: Vec<Vec<Buffer>> = sh
        .resources
        .iter()
        .map(|r| {
            let n = r.array_len.clamp(1, 4);
            (0..n)
                .map(|_| Buffer::from_u32s(&(0..1024).map(|_| word(&mut rng)).collect::<Vec<_>>()))
                .collect()
        })
        .collect();
    let mut bind = Bindings::default();
    for (s, v) in bufs.iter().enumerate() {
        for (i, b) in v.iter().enumerate() {
            bind.bind_buffer(s as u32, i as u32, b);
        }
    }
    let mut out = Vec::new();
    match sh.stage {
        Stage::Fragment => {
            let stride = exec::location_stride(&sh.inputs).max(1);
            let quads: Vec<FragQuadInput> = (0..16)
                .map(|q| {
                    let (qx, qy) = ((q % 4) as f32 * 2.0, (q / 4) as f32 * 2.0);
                    let mut helper = [false; 4];
                    if q % 3 == 1 {
                        helper[rng.usize(..4)] = true;
                    }
                    FragQuadInput {
                        frag_coord: [0, 1, 2, 3].map(|i| {
                            [
                                qx + (i % 2) as f32 + 0.5,
                                qy + (i / 2) as f32 + 0.5,
                                rng.u32(..1000) as f32 / 1000.0,
                                1.0,
                            ]
                        }),
                        front_facing: q % 2 == 0,
                        point_coord: [[0.25, 0.75]; 4],
                        helper,
                        primitive_id: q,
                        sample_id: 0,
                        sample_mask: [1; 4],
                        varyings: (0..stride * 4).map(|_| word(&mut rng)).collect(),
                    }
                })
                .collect();
            let res = exec::run_fragment_quads(&p, &quads, &bind).map_err(|e| e.to_string())?;
            for o in res {
                out.extend(&o.outputs);
                out.extend(o.frag_depth.map(f32::to_bits));
                out.extend(o.sample_mask);
                out.extend(o.discarded.map(u32::from));
                out.extend(o.helper.map(u32::from));
            }
        }
        Stage::Compute => {
            exec::run_compute_observed(&p, [2, 1, 1], &bind, &mut NoObserver)
                .map_err(|e| e.to_string())?;
        }
        Stage::Vertex | Stage::TessControl | Stage::TessEval | Stage::Geometry => {
            return Err("vertex processing stages: not compared".into())
        }
    }
    for v in &bufs {
        for b in v {
            out.extend(b.to_u32s());
        }
    }
    Ok(out)
}

#[derive(Default, Debug)]
struct Tally {
    compared: usize,
    skipped: usize,
    both_failed: usize,
    insts_before: usize,
    insts_after: usize,
    mismatches: Vec<String>,
}

/// Compare one lowered shader, optimised vs not. Shaders with image resources are skipped.
fn compare(sh: &Shader, what: &str, t: &mut Tally) {
    let fragment_or_compute = matches!(sh.stage, Stage::Fragment | Stage::Compute);
    if sh.resources.iter().any(|r| !buffer_resource(r.kind)) || !fragment_or_compute {
        t.skipped += 1;
        return;
    }
    let mut o = sh.clone();
    let st = opt::optimize(&mut o);
    if let Err(e) = ir::verify(&o) {
        t.mismatches
            .push(format!("{what}: optimised IR fails verify: {e}"));
        return;
    }
    for seed in [1u64, 2] {
        let a = run_shader(sh, seed);
        let b = run_shader(&o, seed);
        match (&a, &b) {
            (Ok(x), Ok(y)) if x == y => {}
            (Ok(x), Ok(y)) => {
                let i = x.iter().zip(y).position(|(p, q)| p != q).unwrap_or(x.len());
                t.mismatches.push(format!(
                    "{what}: seed {seed}: results differ at word {i} of {}",
                    x.len()
                ));
                return;
            }
            // The optimised shader runs fewer instructions: an unoptimised budget overrun may
            // pass optimised. Any other difference in failure is a mismatch.
            (Err(_), Err(_)) => {
                t.both_failed += 1;
                return;
            }
            (Err(e), Ok(_)) if e.contains("budget") => {
                t.both_failed += 1;
                return;
            }
            _ => {
                t.mismatches.push(format!(
                    "{what}: seed {seed}: {a:?} vs {b:?}",
                    a = a.as_ref().err(),
                    b = b.as_ref().err()
                ));
                return;
            }
        }
    }
    t.compared += 1;
    t.insts_before += st.insts_before;
    t.insts_after += st.insts_after;
}

fn compare_module(words: &[u32], what: &str, t: &mut Tally) {
    let Ok(m) = Module::load(words) else {
        t.skipped += 1;
        return;
    };
    for (entry, stage) in m.entry_points() {
        match m.lower(&entry, Some(stage), &SpecConstants::new()) {
            Ok(sh) => compare(&sh, &format!("{what}:{entry}"), t),
            Err(_) => t.skipped += 1,
        }
    }
}

fn collect(dir: &Path, exts: &[&str], out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut v: Vec<_> = rd.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    v.sort();
    for p in v {
        if p.is_dir() {
            collect(&p, exts, out);
        } else if p.extension().is_some_and(|e| exts.iter().any(|x| e == *x)) {
            out.push(p);
        }
    }
}

fn report(name: &str, t: &Tally) {
    eprintln!(
        "{name}: compared {} (static insts {} -> {}), skipped {}, failed both ways {}, mismatches {}",
        t.compared,
        t.insts_before,
        t.insts_after,
        t.skipped,
        t.both_failed,
        t.mismatches.len()
    );
    for m in &t.mismatches {
        eprintln!("  {m}");
    }
}

#[test]
fn differential_repo_spirv() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    collect(&root.join("shaders"), &["spv"], &mut files);
    collect(&root.join("tests/lavapipe/spv"), &["spv"], &mut files);
    let mut t = Tally::default();
    for f in &files {
        let words = tools::words(&std::fs::read(f).unwrap());
        compare_module(&words, &f.display().to_string(), &mut t);
    }
    report("repo SPIR-V", &t);
    assert!(t.mismatches.is_empty());
    assert!(t.compared >= 1, "{t:?}");
}

/// GLSL to SPIR-V with `glslangValidator` (None when it is missing or rejects the shader).
fn glslang(text: &str, compute: bool) -> Option<Vec<u32>> {
    let stage = if compute { "comp" } else { "frag" };
    let args = ["-V", "--target-env", "vulkan1.1", "-S", stage];
    let bytes = Tool::Glslang.compile(&args, stage, text).ok()?;
    Some(tools::words(&bytes))
}

#[test]
fn differential_amber_corpus() {
    let Some(dir) = common::amber_dir_or_skip("ir_opt") else {
        return;
    };
    let mut files = Vec::new();
    collect(&dir, &["amber", "vkscript"], &mut files);
    let mut t = Tally::default();
    let mut glsl = Tally::default();
    for f in &files {
        let Ok(script) = quadstep::amber::parse_file(f) else {
            continue;
        };
        for s in script.shaders() {
            if !matches!(s.stage, ShaderType::Compute | ShaderType::Fragment) {
                continue;
            }
            let ShaderSource::Text(text) = &s.source else {
                continue;
            };
            let what = format!("{}:{}", f.display(), s.name);
            if s.format == ShaderFormat::Glsl {
                match glslang(text, s.stage == ShaderType::Compute) {
                    Some(w) => compare_module(&w, &what, &mut glsl),
                    None => glsl.skipped += 1,
                }
                continue;
            }
            if s.format != ShaderFormat::SpirvAsm {
                continue;
            }
            let version = match s.target_env.as_deref() {
                Some("spv1.1") => (1, 1),
                Some("spv1.2") => (1, 2),
                Some("spv1.3") | Some("vulkan1.1") => (1, 3),
                Some("spv1.4") => (1, 4),
                Some("spv1.5") | Some("vulkan1.2") => (1, 5),
                Some("spv1.6") | Some("vulkan1.3") => (1, 6),
                _ => (1, 0),
            };
            let words = spvasm::assemble_with(text, &what, version)
                .or_else(|_| spvasm::assemble(text, &what));
            match words {
                Ok(w) => compare_module(&w, &what, &mut t),
                Err(_) => t.skipped += 1,
            }
        }
    }
    report("Amber corpus, SPIRV-ASM", &t);
    report("Amber corpus, GLSL (glslangValidator)", &glsl);
    assert!(t.mismatches.is_empty() && glsl.mismatches.is_empty());
}

/// Renders every lavapipe scene (images included) and every demo scene through the pipeline
/// (`Shader::from_ir`) with `QUADSTEP_NO_OPT=1` and without: the images must be bit-identical.
/// The only test of this file that touches the variable (the others compile IR directly).
#[test]
fn scenes_bit_identical_with_and_without_optimiser() {
    use lavapipe_support::{scene_names, Scene};
    type Images = Vec<(String, Result<Vec<u32>, String>)>;
    let render_all = |no_opt: bool| -> Images {
        if no_opt {
            std::env::set_var("QUADSTEP_NO_OPT", "1");
        } else {
            std::env::remove_var("QUADSTEP_NO_OPT");
        }
        let mut out = Vec::new();
        for name in scene_names() {
            let img = Scene::load(&name).and_then(|s| s.render(1));
            let bits = img.map(|i| i.px.iter().flat_map(|p| p.map(f32::to_bits)).collect());
            out.push((name, bits));
        }
        let raster = quadstep::raster::Rasterizer::new(1).expect("rasterizer");
        for s in quadstep::demo::all(32).expect("demo scenes") {
            let t = quadstep::demo::render(&s, &raster)
                .map(|t| t.data.iter().map(|&b| b as u32).collect())
                .map_err(|e| e.to_string());
            out.push((s.name.to_string(), t));
        }
        out
    };
    let plain = render_all(true);
    let opt = render_all(false);
    std::env::remove_var("QUADSTEP_NO_OPT");
    assert_eq!(plain.len(), opt.len());
    let mut rendered = 0;
    for ((name, a), (_, b)) in plain.iter().zip(&opt) {
        assert_eq!(a, b, "scene {name}: optimised render differs");
        rendered += a.is_ok() as usize;
    }
    eprintln!(
        "scenes: {rendered} of {} rendered, all bit-identical",
        plain.len()
    );
    assert!(rendered > 0);
}
