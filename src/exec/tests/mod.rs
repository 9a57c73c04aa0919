//! Tests of the interpreter on hand-built IR. Expected values come from hand calculation, the
//! SPIR-V / GLSL.std.450 formulas, or naive per-lane reference code written here — never from
//! the code under test.

mod alu;
mod cflow;
mod entry;
mod fuse;
mod in_place;
mod memory;
mod quad;
mod reuse;
mod uniform;
mod uniform_load;

use super::*;
use crate::ir::*;

/// A tiny IR builder for tests.
pub(super) struct B {
    pub regs: Vec<ScalarTy>,
    pub consts: Vec<(Reg, Const)>,
    pub blocks: Vec<Block>,
    pub cur: usize,
    pub local_words: u32,
    pub workgroup_words: u32,
    pub resources: Vec<Resource>,
}

impl B {
    pub fn new() -> Self {
        B {
            regs: vec![],
            consts: vec![],
            blocks: vec![Block {
                insts: vec![],
                term: Terminator::Return,
            }],
            cur: 0,
            local_words: 16,
            workgroup_words: 0,
            resources: vec![],
        }
    }
    pub fn reg(&mut self, ty: ScalarTy) -> Reg {
        self.regs.push(ty);
        self.regs.len() as Reg - 1
    }
    pub fn k(&mut self, ty: ScalarTy, bits: u64) -> Reg {
        let r = self.reg(ty);
        self.consts.push((r, Const { ty, bits }));
        r
    }
    pub fn ki(&mut self, v: i32) -> Reg {
        self.k(ScalarTy::I32, v as u32 as u64)
    }
    pub fn kf(&mut self, v: f32) -> Reg {
        self.k(ScalarTy::F32, v.to_bits() as u64)
    }
    pub fn kb(&mut self, v: bool) -> Reg {
        self.k(ScalarTy::Bool, v as u64)
    }
    /// A new empty block (terminator Return).
    pub fn block(&mut self) -> BlockId {
        self.blocks.push(Block {
            insts: vec![],
            term: Terminator::Return,
        });
        self.blocks.len() as BlockId - 1
    }
    /// `N` new blocks.
    pub fn blocks<const N: usize>(&mut self) -> [BlockId; N] {
        std::array::from_fn(|_| self.block())
    }
    pub fn at(&mut self, b: BlockId) {
        self.cur = b as usize;
    }
    pub fn push(&mut self, i: Inst) {
        self.blocks[self.cur].insts.push(i);
    }
    pub fn term(&mut self, t: Terminator) {
        self.blocks[self.cur].term = t;
    }
    pub fn jump(&mut self, b: BlockId) {
        self.term(Terminator::Jump(b));
    }
    pub fn branch(&mut self, cond: Reg, t: BlockId, f: BlockId) {
        self.term(Terminator::Branch {
            cond,
            if_true: t,
            if_false: f,
        });
    }
    pub fn un(&mut self, op: UnaryOp, ty: ScalarTy, rty: ScalarTy, a: Reg) -> Reg {
        let dst = self.reg(rty);
        self.push(Inst::Unary { op, ty, dst, a });
        dst
    }
    pub fn bin(&mut self, op: BinaryOp, ty: ScalarTy, a: Reg, b: Reg) -> Reg {
        let rty = if op.is_comparison() {
            ScalarTy::Bool
        } else {
            ty
        };
        let dst = self.reg(rty);
        self.push(Inst::Binary { op, ty, dst, a, b });
        dst
    }
    /// `dst = op(a, b)` into an existing register.
    pub fn bin_to(&mut self, dst: Reg, op: BinaryOp, ty: ScalarTy, a: Reg, b: Reg) {
        self.push(Inst::Binary { op, ty, dst, a, b });
    }
    pub fn mov_to(&mut self, dst: Reg, ty: ScalarTy, a: Reg) {
        self.push(Inst::Unary {
            op: UnaryOp::Mov,
            ty,
            dst,
            a,
        });
    }
    /// Component 0 of a ballot of `a` (the subgroup's first 32 lanes).
    pub fn ballot(&mut self, a: Reg) -> Reg {
        let dst = self.reg(ScalarTy::I32);
        self.push(Inst::Group {
            op: GroupOp::Ballot(0),
            ty: ScalarTy::Bool,
            dst,
            a,
            b: a,
        });
        dst
    }
    pub fn load_local(&mut self, ty: ScalarTy, word: i32) -> Reg {
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
    pub fn store_local(&mut self, ty: ScalarTy, word: i32, src: Reg) {
        let addr = self.ki(word);
        self.push(Inst::Store {
            ty,
            ptr: Ptr {
                space: Space::Local,
                addr,
            },
            src,
        });
    }
    pub fn shader(&self, stage: Stage) -> Shader {
        Shader {
            name: "test".into(),
            stage,
            body: Function {
                regs: self.regs.clone(),
                consts: self.consts.clone(),
                blocks: self.blocks.clone(),
            },
            local_words: self.local_words,
            workgroup_words: self.workgroup_words,
            inputs: vec![],
            outputs: vec![],
            resources: self.resources.clone(),
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
    pub fn program(&self) -> Program {
        compile(&self.shader(Stage::Fragment)).expect("compile")
    }
}

/// Run `prog` on one lane per input row; row `i` gives Local words 0.. of lane `i`.
pub(super) fn run_lanes(prog: &Program, rows: &[Vec<u32>]) -> BatchState {
    let mut st = BatchState::new(prog, rows.len());
    for (l, row) in rows.iter().enumerate() {
        for (w, &v) in row.iter().enumerate() {
            st.set_local(l, w as u32, v);
        }
    }
    st.run(prog, &Bindings::default()).expect("run");
    st
}

fn split(v: u64) -> [u32; 2] {
    [v as u32, (v >> 32) as u32]
}

/// Evaluate `op(a, b)` of type `ty` for each case (raw bits in, raw bits out), all cases in one
/// batch (one lane each).
pub(super) fn eval_bin(op: BinaryOp, ty: ScalarTy, cases: &[(u64, u64)]) -> Vec<u64> {
    let mut b = B::new();
    let x = b.load_local(ty, 0);
    let y = b.load_local(ty, 2);
    let d = b.bin(op, ty, x, y);
    let p = b.program();
    let rows: Vec<Vec<u32>> = cases
        .iter()
        .map(|&(a, c)| [split(a), split(c)].concat())
        .collect();
    let st = run_lanes(&p, &rows);
    (0..cases.len()).map(|l| st.reg(&p, d, l)).collect()
}

pub(super) fn eval_un(op: UnaryOp, ty: ScalarTy, rty: ScalarTy, cases: &[u64]) -> Vec<u64> {
    let mut b = B::new();
    let x = b.load_local(ty, 0);
    let d = b.un(op, ty, rty, x);
    let p = b.program();
    let rows: Vec<Vec<u32>> = cases.iter().map(|&a| split(a).to_vec()).collect();
    let st = run_lanes(&p, &rows);
    (0..cases.len()).map(|l| st.reg(&p, d, l)).collect()
}

pub(super) fn eval_tern(
    op: TernaryOp,
    ty: ScalarTy,
    tys: [ScalarTy; 3],
    cases: &[(u64, u64, u64)],
) -> Vec<u64> {
    let mut b = B::new();
    let x = b.load_local(tys[0], 0);
    let y = b.load_local(tys[1], 2);
    let z = b.load_local(tys[2], 4);
    let d = b.reg(ty);
    b.push(Inst::Ternary {
        op,
        ty,
        dst: d,
        a: x,
        b: y,
        c: z,
    });
    let p = b.program();
    let rows: Vec<Vec<u32>> = cases
        .iter()
        .map(|&(a, c, e)| [split(a), split(c), split(e)].concat())
        .collect();
    let st = run_lanes(&p, &rows);
    (0..cases.len()).map(|l| st.reg(&p, d, l)).collect()
}

pub(super) fn eval_conv(op: ConvOp, from: ScalarTy, to: ScalarTy, cases: &[u64]) -> Vec<u64> {
    let mut b = B::new();
    let x = b.load_local(from, 0);
    let d = b.reg(to);
    b.push(Inst::Convert {
        op,
        from,
        to,
        dst: d,
        a: x,
    });
    let p = b.program();
    let rows: Vec<Vec<u32>> = cases.iter().map(|&a| split(a).to_vec()).collect();
    let st = run_lanes(&p, &rows);
    (0..cases.len()).map(|l| st.reg(&p, d, l)).collect()
}

pub(super) fn f(v: f32) -> u64 {
    v.to_bits() as u64
}
pub(super) fn d(v: f64) -> u64 {
    v.to_bits()
}
pub(super) fn i(v: i32) -> u64 {
    v as u32 as u64
}
pub(super) fn h(v: f32) -> u64 {
    half::f16::from_f32(v).to_bits() as u64
}
