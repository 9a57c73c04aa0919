//! Cross-lane operations: derivatives (`OpDPdx`… — plain `OpDPdx`/`OpDPdy`/`OpFwidth` are
//! lowered as Coarse, which the spec allows and what most drivers do), quad operations, and the
//! `OpGroupNonUniform*` family (basic, vote, ballot, arithmetic with scans and clusters,
//! shuffles). Only the Subgroup scope is supported.

use spirv::Op;

use crate::front::build::IrBuilder;
use crate::ir::{
    Axis, BallotQuery, BinaryOp, DerivKind, GroupArith, GroupOp, GroupScan, Inst, Reg, ScalarTy,
    UnaryOp,
};
use crate::Result;

use super::lower::Lower;
use super::parse::I;

const SCOPE_SUBGROUP: u64 = 3;

impl Lower<'_> {
    pub(crate) fn deriv(&mut self, i: &I) -> Result<()> {
        if self.stage != crate::ir::Stage::Fragment && self.derivative_group.is_none() {
            return Err(i.err(&format!(
                "derivative in a {:?} entry point without a DerivativeGroup execution mode",
                self.stage
            )));
        }
        let (rt, id) = (i.w(0)?, i.w(1)?);
        let a = self.regs(i.w(2)?)?;
        let kind = match i.op {
            Op::DPdxFine | Op::DPdyFine | Op::FwidthFine => DerivKind::Fine,
            _ => DerivKind::Coarse,
        };
        let mut out = Vec::new();
        for &x in &a {
            let ty = self.rty(x);
            let d = |s: &mut Self, axis| {
                let dst = s.reg(ty);
                s.emit(Inst::Deriv {
                    axis,
                    kind,
                    ty,
                    dst,
                    a: x,
                });
                dst
            };
            let r = match i.op {
                Op::DPdx | Op::DPdxFine | Op::DPdxCoarse => d(self, Axis::X),
                Op::DPdy | Op::DPdyFine | Op::DPdyCoarse => d(self, Axis::Y),
                _ => {
                    let dx = d(self, Axis::X);
                    let dy = d(self, Axis::Y);
                    let ax = self.un(UnaryOp::FAbs, ty, dx);
                    let ay = self.un(UnaryOp::FAbs, ty, dy);
                    self.bin(BinaryOp::FAdd, ty, ax, ay)
                }
            };
            out.push(r);
        }
        self.def_checked(id, rt, out)
    }

    fn group_inst(&mut self, op: GroupOp, ty: ScalarTy, a: Reg, b: Reg, rty: ScalarTy) -> Reg {
        let dst = self.reg(rty);
        self.emit(Inst::Group { op, ty, dst, a, b });
        dst
    }

    fn ballot_regs(&self, id: u32) -> Result<[Reg; 4]> {
        let v = self.regs(id)?;
        if v.len() != 4 {
            return Err(self.err("ballot value must be a 4-component vector"));
        }
        Ok([v[0], v[1], v[2], v[3]])
    }

    fn ballot_query(&mut self, query: BallotQuery, ballot: [Reg; 4], b: Reg, rty: ScalarTy) -> Reg {
        let dst = self.reg(rty);
        self.emit(Inst::BallotQuery {
            query,
            dst,
            ballot,
            b,
        });
        dst
    }

    pub(crate) fn group(&mut self, i: &I) -> Result<()> {
        let (rt, id) = (i.w(0)?, i.w(1)?);
        let scope = self
            .const_u64(i.w(2)?)
            .ok_or_else(|| i.err("scope is not a constant"))?;
        if scope != SCOPE_SUBGROUP {
            return Err(i.unsup(&format!(
                "group operation with scope {scope} (only Subgroup)"
            )));
        }
        let zero = self.k32(0);
        let out: Vec<Reg> = match i.op {
            Op::GroupNonUniformElect => {
                vec![self.group_inst(GroupOp::Elect, ScalarTy::Bool, zero, zero, ScalarTy::Bool)]
            }
            Op::GroupNonUniformAll | Op::GroupNonUniformAny => {
                let p = self.reg1(i.w(3)?)?;
                let op = if i.op == Op::GroupNonUniformAll {
                    GroupOp::All
                } else {
                    GroupOp::Any
                };
                vec![self.group_inst(op, ScalarTy::Bool, p, zero, ScalarTy::Bool)]
            }
            Op::GroupNonUniformAllEqual => {
                let v = self.regs(i.w(3)?)?;
                let mut acc = None;
                for x in v {
                    let ty = self.rty(x);
                    let e = self.group_inst(GroupOp::AllEqual, ty, x, zero, ScalarTy::Bool);
                    acc = Some(match acc {
                        None => e,
                        Some(a) => self.bin(BinaryOp::LogicalAnd, ScalarTy::Bool, a, e),
                    });
                }
                vec![acc.ok_or_else(|| i.err("empty value"))?]
            }
            Op::GroupNonUniformBroadcast
            | Op::GroupNonUniformShuffle
            | Op::GroupNonUniformShuffleXor
            | Op::GroupNonUniformShuffleUp
            | Op::GroupNonUniformShuffleDown => {
                let op = match i.op {
                    Op::GroupNonUniformBroadcast => GroupOp::Broadcast,
                    Op::GroupNonUniformShuffle => GroupOp::Shuffle,
                    Op::GroupNonUniformShuffleXor => GroupOp::ShuffleXor,
                    Op::GroupNonUniformShuffleUp => GroupOp::ShuffleUp,
                    _ => GroupOp::ShuffleDown,
                };
                let v = self.regs(i.w(3)?)?;
                let b = self.reg1(i.w(4)?)?;
                let b = self.as_i32(b);
                v.iter()
                    .map(|&x| {
                        let ty = self.rty(x);
                        self.group_inst(op, ty, x, b, ty)
                    })
                    .collect()
            }
            Op::GroupNonUniformBroadcastFirst => {
                let v = self.regs(i.w(3)?)?;
                v.iter()
                    .map(|&x| {
                        let ty = self.rty(x);
                        self.group_inst(GroupOp::BroadcastFirst, ty, x, zero, ty)
                    })
                    .collect()
            }
            Op::GroupNonUniformBallot => {
                let p = self.reg1(i.w(3)?)?;
                (0..4)
                    .map(|c| {
                        self.group_inst(GroupOp::Ballot(c), ScalarTy::Bool, p, zero, ScalarTy::I32)
                    })
                    .collect()
            }
            Op::GroupNonUniformInverseBallot => {
                let b = self.ballot_regs(i.w(3)?)?;
                vec![self.ballot_query(BallotQuery::Inverse, b, zero, ScalarTy::Bool)]
            }
            Op::GroupNonUniformBallotBitExtract => {
                let b = self.ballot_regs(i.w(3)?)?;
                let idx = self.reg1(i.w(4)?)?;
                let idx = self.as_i32(idx);
                vec![self.ballot_query(BallotQuery::BitExtract, b, idx, ScalarTy::Bool)]
            }
            Op::GroupNonUniformBallotBitCount => {
                let q = match i.w(3)? {
                    0 => BallotQuery::BitCountReduce,
                    1 => BallotQuery::BitCountInclusive,
                    2 => BallotQuery::BitCountExclusive,
                    g => return Err(i.unsup(&format!("group operation {g} for BallotBitCount"))),
                };
                let b = self.ballot_regs(i.w(4)?)?;
                vec![self.ballot_query(q, b, zero, ScalarTy::I32)]
            }
            Op::GroupNonUniformBallotFindLSB | Op::GroupNonUniformBallotFindMSB => {
                let q = if i.op == Op::GroupNonUniformBallotFindLSB {
                    BallotQuery::FindLsb
                } else {
                    BallotQuery::FindMsb
                };
                let b = self.ballot_regs(i.w(3)?)?;
                vec![self.ballot_query(q, b, zero, ScalarTy::I32)]
            }
            Op::GroupNonUniformQuadBroadcast => {
                let v = self.regs(i.w(3)?)?;
                let idx = self.reg1(i.w(4)?)?;
                let idx = self.as_i32(idx);
                v.iter()
                    .map(|&x| {
                        let ty = self.rty(x);
                        let dst = self.reg(ty);
                        self.emit(Inst::QuadBroadcast {
                            ty,
                            dst,
                            a: x,
                            index: idx,
                        });
                        dst
                    })
                    .collect()
            }
            Op::GroupNonUniformQuadSwap => {
                let v = self.regs(i.w(3)?)?;
                let dir = self
                    .const_u64(i.w(4)?)
                    .ok_or_else(|| i.err("QuadSwap direction must be a constant"))?;
                if dir > 2 {
                    return Err(i.err(&format!("QuadSwap direction {dir} (0..2 allowed)")));
                }
                v.iter()
                    .map(|&x| {
                        let ty = self.rty(x);
                        let dst = self.reg(ty);
                        self.emit(Inst::QuadSwap {
                            direction: dir as u8,
                            ty,
                            dst,
                            a: x,
                        });
                        dst
                    })
                    .collect()
            }
            op => {
                let arith = match op {
                    Op::GroupNonUniformIAdd => GroupArith::IAdd,
                    Op::GroupNonUniformFAdd => GroupArith::FAdd,
                    Op::GroupNonUniformIMul => GroupArith::IMul,
                    Op::GroupNonUniformFMul => GroupArith::FMul,
                    Op::GroupNonUniformSMin => GroupArith::SMin,
                    Op::GroupNonUniformUMin => GroupArith::UMin,
                    Op::GroupNonUniformFMin => GroupArith::FMin,
                    Op::GroupNonUniformSMax => GroupArith::SMax,
                    Op::GroupNonUniformUMax => GroupArith::UMax,
                    Op::GroupNonUniformFMax => GroupArith::FMax,
                    Op::GroupNonUniformBitwiseAnd => GroupArith::And,
                    Op::GroupNonUniformBitwiseOr => GroupArith::Or,
                    Op::GroupNonUniformBitwiseXor => GroupArith::Xor,
                    Op::GroupNonUniformLogicalAnd => GroupArith::LogicalAnd,
                    Op::GroupNonUniformLogicalOr => GroupArith::LogicalOr,
                    Op::GroupNonUniformLogicalXor => GroupArith::LogicalXor,
                    _ => return Err(i.unsup("group operation is not lowered")),
                };
                let scan = match i.w(3)? {
                    0 => GroupScan::Reduce,
                    1 => GroupScan::Inclusive,
                    2 => GroupScan::Exclusive,
                    3 => {
                        let n = self
                            .const_u64(i.w(5)?)
                            .ok_or_else(|| i.err("ClusterSize must be a constant"))?;
                        if n == 0 || !n.is_power_of_two() || n > 128 {
                            return Err(i.err(&format!("ClusterSize {n} is not a power of two")));
                        }
                        GroupScan::Clustered(n as u32)
                    }
                    g => return Err(i.unsup(&format!("group operation {g}"))),
                };
                let v = self.regs(i.w(4)?)?;
                v.iter()
                    .map(|&x| {
                        let ty = self.rty(x);
                        let dst = self.reg(ty);
                        self.emit(Inst::GroupArith {
                            op: arith,
                            scan,
                            ty,
                            dst,
                            a: x,
                        });
                        dst
                    })
                    .collect()
            }
        };
        self.def_checked(id, rt, out)
    }
}
