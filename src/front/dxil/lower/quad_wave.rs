//! Cross-lane operations: derivatives (83–86), quad ops (`QuadReadLaneAt` 122, `QuadOp` 123,
//! `QuadVote` 222), wave ops (110–121, 135, 136), `IsHelperLane` 221, `Discard` 82 and
//! `Barrier` 80.
//!
//! `Discard` demotes (SM 6.x: the lane becomes a helper and goes on, its quad's derivatives
//! still see it); it is lowered as a branch around an [`Inst::Demote`], because the IR's demote
//! is unconditional. Wave ops see the interpreter's subgroup (16 lanes): helper lanes take
//! part in quad ops and derivatives only, as D3D and Vulkan both require.

use crate::ir::{
    Axis, BallotQuery, DerivKind, GroupArith, GroupOp, GroupScan, Inst, LaneInfo, Reg, ScalarTy,
    Terminator,
};

use super::super::module::Value;
use super::{LResult, Lower, Val};

impl<'a> Lower<'a> {
    fn group(&mut self, op: GroupOp, ty: ScalarTy, a: Reg, b: Reg) -> Reg {
        let rty = match op {
            GroupOp::Elect | GroupOp::All | GroupOp::Any | GroupOp::AllEqual => ScalarTy::Bool,
            GroupOp::Ballot(_) => ScalarTy::I32,
            _ => ty,
        };
        let dst = self.reg(rty);
        self.emit(Inst::Group { op, ty, dst, a, b });
        dst
    }

    fn ballot(&mut self, cond: Reg) -> [Reg; 4] {
        std::array::from_fn(|c| self.group(GroupOp::Ballot(c as u8), ScalarTy::Bool, cond, cond))
    }

    fn lane_info(&mut self, what: LaneInfo) -> Reg {
        let dst = self.reg(ScalarTy::I32);
        self.emit(Inst::LaneInfo { what, dst });
        dst
    }

    /// The reduction of a `WaveActiveOp`/`WavePrefixOp` (op: 0 sum, 1 product, 2 min, 3 max;
    /// sign: 0 signed, 1 unsigned).
    fn wave_arith(&mut self, op: u32, signed: bool, ty: ScalarTy) -> LResult<GroupArith> {
        let f = ty.is_float();
        Ok(match (op, f, signed) {
            (0, true, _) => GroupArith::FAdd,
            (0, false, _) => GroupArith::IAdd,
            (1, true, _) => GroupArith::FMul,
            (1, false, _) => GroupArith::IMul,
            (2, true, _) => GroupArith::FMin,
            (2, false, true) => GroupArith::SMin,
            (2, false, false) => GroupArith::UMin,
            (3, true, _) => GroupArith::FMax,
            (3, false, true) => GroupArith::SMax,
            (3, false, false) => GroupArith::UMax,
            _ => return Err(self.invalid(format!("wave op kind {op}"))),
        })
    }

    fn arith(&mut self, op: GroupArith, scan: GroupScan, ty: ScalarTy, a: Reg) -> Reg {
        let dst = self.reg(ty);
        self.emit(Inst::GroupArith {
            op,
            scan,
            ty,
            dst,
            a,
        });
        dst
    }

    /// Cross-lane ops. Returns `false` for other ops.
    pub(crate) fn quad_wave_op(&mut self, op: u32, args: &[Value]) -> LResult<bool> {
        match op {
            83..=86 => {
                let v = self.arg(args, 0)?;
                let ty = self.ty_of(v)?;
                let a = self.scalar(v)?;
                let (axis, kind) = match op {
                    83 => (Axis::X, DerivKind::Coarse),
                    84 => (Axis::Y, DerivKind::Coarse),
                    85 => (Axis::X, DerivKind::Fine),
                    _ => (Axis::Y, DerivKind::Fine),
                };
                let dst = self.reg(ty);
                self.emit(Inst::Deriv {
                    axis,
                    kind,
                    ty,
                    dst,
                    a,
                });
                self.uses_quads = true;
                self.set_scalar(dst);
            }
            // QuadReadLaneAt(value, lane)
            122 => {
                let v = self.arg(args, 0)?;
                let ty = self.ty_of(v)?;
                let a = self.scalar(v)?;
                let index = self.scalar(self.arg(args, 1)?)?;
                let dst = self.reg(ty);
                self.emit(Inst::QuadBroadcast { ty, dst, a, index });
                self.uses_quads = true;
                self.set_scalar(dst);
            }
            // QuadOp(value, kind: 0 across X, 1 across Y, 2 diagonal)
            123 => {
                let v = self.arg(args, 0)?;
                let ty = self.ty_of(v)?;
                let a = self.scalar(v)?;
                let direction = self.const_u32(self.arg(args, 1)?)?;
                if direction > 2 {
                    return Err(self.invalid(format!("QuadOp kind {direction}")));
                }
                let dst = self.reg(ty);
                self.emit(Inst::QuadSwap {
                    direction: direction as u8,
                    ty,
                    dst,
                    a,
                });
                self.uses_quads = true;
                self.set_scalar(dst);
            }
            // QuadVote(cond, op: 0 any, 1 all)
            222 => {
                let a = self.scalar(self.arg(args, 0)?)?;
                let all = self.const_u32(self.arg(args, 1)?)? == 1;
                let dst = self.reg(ScalarTy::Bool);
                self.emit(Inst::QuadVote { all, dst, a });
                self.uses_quads = true;
                self.set_scalar(dst);
            }
            221 => {
                let dst = self.reg(ScalarTy::Bool);
                self.emit(Inst::IsHelper { dst });
                self.set_scalar(dst);
            }
            // Discard(cond): demote the lanes where cond holds
            82 => {
                let cond = self.scalar(self.arg(args, 0)?)?;
                let demote = self.new_block();
                let after = self.new_block();
                self.terminate(Terminator::Branch {
                    cond,
                    if_true: demote,
                    if_false: after,
                });
                self.cur = demote;
                self.emit(Inst::Demote);
                self.terminate(Terminator::Jump(after));
                self.cur = after;
                self.can_discard = true;
            }
            // Barrier(mode): every mode with a group sync is a workgroup barrier here; memory
            // is coherent in the interpreter, so fences alone are nothing
            80 => {
                let mode = self.const_u32(self.arg(args, 0)?)?;
                if mode & 1 != 0 {
                    self.emit(Inst::Barrier);
                }
            }
            110 => {
                let z = self.k32(0);
                let r = self.group(GroupOp::Elect, ScalarTy::Bool, z, z);
                self.set_scalar(r);
            }
            111 => {
                let r = self.lane_info(LaneInfo::SubgroupInvocationId);
                self.set_scalar(r);
            }
            112 => {
                let r = self.lane_info(LaneInfo::SubgroupSize);
                self.set_scalar(r);
            }
            113..=115 | 117 | 118 => {
                let v = self.arg(args, 0)?;
                let ty = self.ty_of(v)?;
                let a = self.scalar(v)?;
                let (g, b) = match op {
                    113 => (GroupOp::Any, a),
                    114 => (GroupOp::All, a),
                    115 => (GroupOp::AllEqual, a),
                    117 => (GroupOp::Shuffle, self.scalar(self.arg(args, 1)?)?),
                    _ => (GroupOp::BroadcastFirst, a),
                };
                let r = self.group(g, ty, a, b);
                self.set_scalar(r);
            }
            116 => {
                let a = self.scalar(self.arg(args, 0)?)?;
                let b = self.ballot(a);
                self.set_result(Val::Agg(b.to_vec()));
            }
            // WaveActiveOp / WavePrefixOp (value, op, sign)
            119 | 121 => {
                let v = self.arg(args, 0)?;
                let ty = self.ty_of(v)?;
                let a = self.scalar(v)?;
                let kind = self.const_u32(self.arg(args, 1)?)?;
                let signed = self.const_u32(self.arg(args, 2)?)? == 0;
                let g = self.wave_arith(kind, signed, ty)?;
                let scan = if op == 119 {
                    GroupScan::Reduce
                } else {
                    GroupScan::Exclusive
                };
                let r = self.arith(g, scan, ty, a);
                self.set_scalar(r);
            }
            // WaveActiveBit (value, op: 0 and, 1 or, 2 xor)
            120 => {
                let v = self.arg(args, 0)?;
                let ty = self.ty_of(v)?;
                let a = self.scalar(v)?;
                let g = match self.const_u32(self.arg(args, 1)?)? {
                    0 => GroupArith::And,
                    1 => GroupArith::Or,
                    2 => GroupArith::Xor,
                    k => return Err(self.invalid(format!("WaveActiveBit kind {k}"))),
                };
                let r = self.arith(g, GroupScan::Reduce, ty, a);
                self.set_scalar(r);
            }
            // WaveAllBitCount / WavePrefixBitCount (bool)
            135 | 136 => {
                let a = self.scalar(self.arg(args, 0)?)?;
                let ballot = self.ballot(a);
                let query = if op == 135 {
                    BallotQuery::BitCountReduce
                } else {
                    BallotQuery::BitCountExclusive
                };
                let dst = self.reg(ScalarTy::I32);
                let b = self.k32(0);
                self.emit(Inst::BallotQuery {
                    query,
                    dst,
                    ballot,
                    b,
                });
                self.set_scalar(dst);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}
