//! Cross-lane operations: derivatives (83–86), quad ops (`QuadReadLaneAt` 122, `QuadOp` 123,
//! `QuadVote` 222), wave ops (110–121, 135, 136, `WaveMatch` 165, the multi-prefix ops 166
//! and 167), `IsHelperLane` 221, `Discard` 82 and `Barrier` 80.
//!
//! `Discard` demotes (SM 6.x: the lane becomes a helper and goes on, its quad's derivatives
//! still see it); it is lowered as a branch around an [`Inst::Demote`], because the IR's demote
//! is unconditional. Wave ops see the interpreter's subgroup (16 lanes): helper lanes take
//! part in quad ops and derivatives only, as D3D and Vulkan both require.

use crate::front::build::IrBuilder;
use crate::ir::{
    Axis, BallotQuery, BinaryOp, ConvOp, DerivKind, GroupArith, GroupOp, GroupScan, Inst, LaneInfo,
    Reg, ScalarTy, Terminator, TernaryOp, UnaryOp,
};

use super::super::module::Value;
use super::{LResult, Lower, Val};

/// The most lanes a D3D wave has: `WaveMatch` and the multi-prefix ops take their masks as
/// four 32-bit words, and are lowered lane by lane up to this count (lanes the interpreter's
/// subgroup does not have are never active).
const MAX_WAVE_LANES: u32 = 128;

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
            // WaveMatch(value): the mask of the active lanes holding the same bits
            165 => {
                let v = self.arg(args, 0)?;
                let ty = self.ty_of(v)?;
                let a = self.scalar(v)?;
                let (ty, a) = self.as_bits(ty, a);
                let active = self.active_lanes();
                let zero = self.k32(0);
                let mut words = [zero; 4];
                for lane in 0..MAX_WAVE_LANES {
                    let idx = self.k32(lane);
                    let other = self.group(GroupOp::Shuffle, ty, a, idx);
                    let same = self.bin(BinaryOp::IEq, ty, other, a);
                    let bit = self.k32(1 << (lane % 32));
                    let bit = self.tern(TernaryOp::Select, ScalarTy::I32, same, bit, zero);
                    let w = &mut words[(lane / 32) as usize];
                    *w = self.bin(BinaryOp::Or, ScalarTy::I32, *w, bit);
                }
                let out = (0..4)
                    .map(|c| self.bin(BinaryOp::And, ScalarTy::I32, words[c], active[c]))
                    .collect();
                self.set_result(Val::Agg(out));
            }
            // WaveMultiPrefixOp(value, mask0..3, op: 0 sum, 1 and, 2 or, 3 xor, 4 product, sop):
            // the op over the lanes below this one that are active and in its mask
            166 => {
                let v = self.arg(args, 0)?;
                let ty = self.ty_of(v)?;
                let a = self.scalar(v)?;
                let f = ty.is_float();
                let (op, identity) = match (self.const_u32(self.arg(args, 5)?)?, f) {
                    (0, true) => (BinaryOp::FAdd, 0),
                    (0, false) => (BinaryOp::IAdd, 0),
                    (1, false) => (BinaryOp::And, u64::MAX),
                    (2, false) => (BinaryOp::Or, 0),
                    (3, false) => (BinaryOp::Xor, 0),
                    (4, _) => (
                        if f { BinaryOp::FMul } else { BinaryOp::IMul },
                        super::math::float_one(ty),
                    ),
                    (k, _) => return Err(self.invalid(format!("WaveMultiPrefixOp kind {k}"))),
                };
                let prior = self.prior_in_mask(args)?;
                let mut acc = self.konst(ty, identity);
                let zero = self.k32(0);
                for lane in 0..MAX_WAVE_LANES {
                    let idx = self.k32(lane);
                    let other = self.group(GroupOp::Shuffle, ty, a, idx);
                    let next = self.bin(op, ty, acc, other);
                    let bit = self.k32(1 << (lane % 32));
                    let hit = self.bin(
                        BinaryOp::And,
                        ScalarTy::I32,
                        prior[(lane / 32) as usize],
                        bit,
                    );
                    let counted = self.bin(BinaryOp::INe, ScalarTy::I32, hit, zero);
                    acc = self.tern(TernaryOp::Select, ty, counted, next, acc);
                }
                self.set_scalar(acc);
            }
            // WaveMultiPrefixBitCount(cond, mask0..3): how many of those lanes hold true
            167 => {
                let cond = self.scalar(self.arg(args, 0)?)?;
                let prior = self.prior_in_mask(args)?;
                let ballot = self.ballot(cond);
                let mut total = self.k32(0);
                for c in 0..4 {
                    let w = self.bin(BinaryOp::And, ScalarTy::I32, ballot[c], prior[c]);
                    let n = self.un(UnaryOp::BitCount, ScalarTy::I32, w);
                    total = self.bin(BinaryOp::IAdd, ScalarTy::I32, total, n);
                }
                self.set_scalar(total);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The wave's active lanes (helpers excluded) as four mask words.
    fn active_lanes(&mut self) -> [Reg; 4] {
        let yes = self.konst(ScalarTy::Bool, 1);
        self.ballot(yes)
    }

    /// The lanes a multi-prefix op of this lane takes in: below it, active, and in the mask
    /// operands `args[1..5]`, as four mask words.
    fn prior_in_mask(&mut self, args: &[Value]) -> LResult<[Reg; 4]> {
        let active = self.active_lanes();
        let mut out = active;
        for (c, w) in out.iter_mut().enumerate() {
            let m = self.scalar(self.arg(args, 1 + c)?)?;
            let below = self.lane_info(LaneInfo::SubgroupLtMask(c as u8));
            let m = self.bin(BinaryOp::And, ScalarTy::I32, m, below);
            *w = self.bin(BinaryOp::And, ScalarTy::I32, m, active[c]);
        }
        Ok(out)
    }

    /// A value as integer bits of its width, for bitwise comparison.
    fn as_bits(&mut self, ty: ScalarTy, a: Reg) -> (ScalarTy, Reg) {
        let int = match ty {
            ScalarTy::F16 => ScalarTy::I16,
            ScalarTy::F32 => ScalarTy::I32,
            ScalarTy::F64 => ScalarTy::I64,
            ScalarTy::Bool => {
                let (one, zero) = (self.k32(1), self.k32(0));
                let i = ScalarTy::I32;
                return (i, self.tern(TernaryOp::Select, i, a, one, zero));
            }
            _ => return (ty, a),
        };
        (int, self.convert(ConvOp::Bitcast, ty, int, a))
    }
}
