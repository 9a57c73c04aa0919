//! Subgroup operations. A subgroup is the program's subgroup size of consecutive batch lanes
//! (16, 4 quads, unless set: [`Program::set_subgroup_size`](super::Program::set_subgroup_size)).
//! Ballots are 128-bit masks in four 32-bit components; a subgroup of up to 64 lanes fills the
//! first two.
//! Participating lanes are the active, non-helper lanes; helper lanes still receive a result
//! (the value computed over the participating lanes) so their registers stay defined.

use super::kernels::{raw_from_f64, raw_mask, raw_sext, raw_to_f64};
use super::run::Batch;
use crate::ir::{BallotQuery, GroupArith, GroupOp, GroupScan, ScalarTy};

fn identity(op: GroupArith, ty: ScalarTy) -> u64 {
    let bits = ty.bits();
    let m = raw_mask(bits);
    match op {
        GroupArith::IAdd | GroupArith::Or | GroupArith::Xor | GroupArith::UMax => 0,
        GroupArith::LogicalOr | GroupArith::LogicalXor => 0,
        GroupArith::IMul => 1,
        GroupArith::LogicalAnd => 1,
        GroupArith::And | GroupArith::UMin => {
            if ty == ScalarTy::Bool {
                1
            } else {
                m
            }
        }
        GroupArith::SMin => m >> 1,
        GroupArith::SMax => (m >> 1) + 1,
        GroupArith::FAdd => raw_from_f64(ty, 0.0),
        GroupArith::FMul => raw_from_f64(ty, 1.0),
        GroupArith::FMin => raw_from_f64(ty, f64::INFINITY),
        GroupArith::FMax => raw_from_f64(ty, f64::NEG_INFINITY),
    }
}

fn combine(op: GroupArith, ty: ScalarTy, x: u64, y: u64) -> u64 {
    let bits = ty.bits();
    let m = raw_mask(bits);
    let f = |g: fn(f64, f64) -> f64| raw_from_f64(ty, g(raw_to_f64(ty, x), raw_to_f64(ty, y)));
    match op {
        GroupArith::IAdd => x.wrapping_add(y) & m,
        GroupArith::IMul => x.wrapping_mul(y) & m,
        GroupArith::SMin => (raw_sext(bits, x).min(raw_sext(bits, y)) as u64) & m,
        GroupArith::SMax => (raw_sext(bits, x).max(raw_sext(bits, y)) as u64) & m,
        GroupArith::UMin => x.min(y),
        GroupArith::UMax => x.max(y),
        GroupArith::And | GroupArith::LogicalAnd => x & y,
        GroupArith::Or | GroupArith::LogicalOr => x | y,
        GroupArith::Xor | GroupArith::LogicalXor => x ^ y,
        GroupArith::FAdd => f(|a, b| a + b),
        GroupArith::FMul => f(|a, b| a * b),
        GroupArith::FMin => f(f64::min),
        GroupArith::FMax => f(f64::max),
    }
}

impl Batch {
    fn participates(&self, l: usize) -> bool {
        self.is_active(l) && !self.helper[l]
    }

    pub(crate) fn group(&mut self, op: GroupOp, ty: ScalarTy, dst: u32, a: u32, b: u32) {
        let (n, size) = (self.n, self.subgroup);
        let w = ty.is_wide();
        for g in (0..n).step_by(size) {
            let end = (g + size).min(n);
            let part: Vec<usize> = (g..end).filter(|&l| self.participates(l)).collect();
            let vals: Vec<u64> = part
                .iter()
                .map(|&l| {
                    self.get(
                        w && !matches!(
                            op,
                            GroupOp::All
                                | GroupOp::Any
                                | GroupOp::Ballot(_)
                                | GroupOp::InverseBallot
                                | GroupOp::Elect
                        ),
                        a,
                        l,
                    )
                })
                .collect();
            for l in g..end {
                if !self.is_active(l) {
                    continue;
                }
                let id = l - g;
                let lane_val = |src: usize| -> u64 {
                    if src < end - g {
                        self.get(w, a, g + src)
                    } else {
                        0
                    }
                };
                let bi = || self.r32[b as usize * n + l] as usize;
                let (dw, v) = match op {
                    GroupOp::Elect => (false, (part.first() == Some(&l)) as u64),
                    GroupOp::All => (false, vals.iter().all(|&v| v != 0) as u64),
                    GroupOp::Any => (false, vals.iter().any(|&v| v != 0) as u64),
                    GroupOp::AllEqual => {
                        let eq = |x: u64, y: u64| {
                            if ty.is_float() {
                                raw_to_f64(ty, x) == raw_to_f64(ty, y)
                            } else {
                                x == y
                            }
                        };
                        (false, vals.iter().all(|&v| eq(v, vals[0])) as u64)
                    }
                    GroupOp::Broadcast | GroupOp::Shuffle => (w, lane_val(bi())),
                    GroupOp::BroadcastFirst => (w, part.first().map_or(0, |&f| self.get(w, a, f))),
                    GroupOp::Ballot(c) => {
                        let mut m = 0u128;
                        for (&pl, &v) in part.iter().zip(&vals) {
                            if v != 0 {
                                m |= 1 << (pl - g);
                            }
                        }
                        (false, (m >> (32 * c as u32)) as u32 as u64)
                    }
                    GroupOp::InverseBallot => {
                        // `a` is the ballot's first component: lanes 32 and up read 0 (the
                        // front ends use the four-component `BallotQuery::Inverse` instead)
                        let bit = (self.r32[a as usize * n + l] as u64) >> id.min(63);
                        (false, bit & (id < 32) as u64)
                    }
                    GroupOp::ShuffleXor => (w, lane_val(id ^ bi())),
                    GroupOp::ShuffleUp => (w, id.checked_sub(bi()).map_or(0, lane_val)),
                    GroupOp::ShuffleDown => (w, lane_val(id.saturating_add(bi()))),
                };
                self.set(dw, dst, l, v);
            }
        }
    }

    pub(crate) fn group_arith(
        &mut self,
        op: GroupArith,
        scan: GroupScan,
        ty: ScalarTy,
        dst: u32,
        a: u32,
    ) {
        let n = self.n;
        let w = ty.is_wide();
        let id0 = identity(op, ty);
        let mut out = vec![0u64; n];
        let size = self.subgroup;
        for g in (0..n).step_by(size) {
            let end = (g + size).min(n);
            let cluster = match scan {
                GroupScan::Clustered(c) => (c as usize).clamp(1, size),
                _ => size,
            };
            for c0 in (g..end).step_by(cluster) {
                let c1 = (c0 + cluster).min(end);
                let mut acc = id0;
                for (l, o) in out.iter_mut().enumerate().take(c1).skip(c0) {
                    let before = acc;
                    if self.participates(l) {
                        acc = combine(op, ty, acc, self.get(w, a, l));
                    }
                    *o = match scan {
                        GroupScan::Inclusive => acc,
                        GroupScan::Exclusive => before,
                        _ => 0,
                    };
                }
                if matches!(scan, GroupScan::Reduce | GroupScan::Clustered(_)) {
                    out[c0..c1].fill(acc);
                }
            }
        }
        for (l, &v) in out.iter().enumerate() {
            if self.is_active(l) {
                self.set(w, dst, l, v);
            }
        }
    }

    pub(crate) fn ballot_query(&mut self, query: BallotQuery, dst: u32, ballot: [u32; 4], b: u32) {
        let n = self.n;
        for l in 0..n {
            if !self.is_active(l) {
                continue;
            }
            let mut v = 0u128;
            for (c, &s) in ballot.iter().enumerate() {
                v |= (self.r32[s as usize * n + l] as u128) << (32 * c);
            }
            v &= (1u128 << self.subgroup) - 1;
            let id = (l % self.subgroup) as u32;
            let r = match query {
                BallotQuery::BitExtract => {
                    let bit = self.r32[b as usize * n + l];
                    (bit < 128 && (v >> bit) & 1 != 0) as u32
                }
                BallotQuery::BitCountReduce => v.count_ones(),
                BallotQuery::BitCountInclusive => (v & ((2u128 << id) - 1)).count_ones(),
                BallotQuery::BitCountExclusive => (v & ((1u128 << id) - 1)).count_ones(),
                BallotQuery::FindLsb => {
                    if v == 0 {
                        u32::MAX
                    } else {
                        v.trailing_zeros()
                    }
                }
                BallotQuery::FindMsb => {
                    if v == 0 {
                        u32::MAX
                    } else {
                        127 - v.leading_zeros()
                    }
                }
                BallotQuery::Inverse => ((v >> id) & 1) as u32,
            };
            self.r32[dst as usize * n + l] = r;
        }
    }
}
