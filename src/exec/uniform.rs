//! Uniform 32-bit registers kept as one value: the scalar form of a register row and the one
//! function that makes such a row real.
//!
//! A uniform result (a lane kernel of uniform operands over every lane, a load at a uniform
//! address with every lane running, a constant or a zeroed row at `Batch::reset`) is stored
//! as its value in `uval32[slot]`, with `uni32[slot]` and `lazy32[slot]` set, and its row
//! `r32[slot * n..][..n]` is left as it was (stale): filling a 256-lane row with one value
//! costs far more than the one-lane arithmetic that made it.
//!
//! # The invariant
//! - `uni32[s]`: every lane of register `s` holds `uval32[s]`.
//! - `lazy32[s]` (only with `uni32[s]`): the row does not hold it yet; `pending32` lists `s`.
//! - With `uni32[s]` and not `lazy32[s]`, the row holds `uval32[s]` in every lane.
//!
//! Every reader of a 32-bit row either knows the scalar form (the hot lane kernels, which
//! take a uniform operand as a splat, `Batch::get`, the uniform-address loads, a uniform
//! branch) or first makes the row real through [`Batch::realize32`] /
//! [`Batch::realize_all32`]: `exec` before any instruction other than the hot lane kernels
//! (so every cold path, image operands, cross-lane operations, stores, atomics), the
//! observed run before every instruction event (the debugger sees the same values), a
//! Local store of a uniform row under a mask, a non-lane (cross-lane) kernel's operands, a
//! branch or switch on a row. Every writer of a row other than the scalar form's either
//! writes every lane or first makes the row real (`Batch::write32`), so the lanes it
//! leaves keep the uniform value.

use super::rows;
use super::run::Batch;

impl Batch {
    /// Register `dst` holds `v` in every lane: kept as the value, its row not filled.
    #[inline(always)]
    pub(super) fn set_uniform32(&mut self, dst: u32, v: u32) {
        let d = dst as usize;
        self.uni32[d] = true;
        self.uval32[d] = v;
        self.lazy32[d] = true;
        if !self.listed32[d] {
            self.listed32[d] = true;
            self.pending32.push(dst);
        }
    }

    /// Make row `s` hold its register's value in every lane (a no-op unless it is in the
    /// scalar form with its row not filled).
    #[inline(always)]
    pub(super) fn realize32(&mut self, s: u32) {
        let s = s as usize;
        if self.lazy32.get(s) == Some(&true) {
            self.fill32(s);
        }
    }

    #[inline(never)]
    fn fill32(&mut self, s: usize) {
        let n = self.n;
        rows::fill(&mut self.r32[s * n..][..n], self.uval32[s]);
        self.lazy32[s] = false;
    }

    /// [`Batch::realize32`] for every register in the scalar form: afterwards every row is
    /// real, for code that reads rows generically.
    #[inline(always)]
    pub(super) fn realize_all32(&mut self) {
        if !self.pending32.is_empty() {
            self.realize_pending32();
        }
    }

    #[inline(never)]
    fn realize_pending32(&mut self) {
        let mut pending = std::mem::take(&mut self.pending32);
        for &s in &pending {
            self.listed32[s as usize] = false;
            self.realize32(s);
        }
        pending.clear();
        self.pending32 = pending;
    }

    /// Row `d` is about to be written by a row writer (every lane with `full`, else the
    /// active lanes): a row in the scalar form is made real first unless every lane is
    /// written, and the register is no longer known uniform.
    #[inline(always)]
    pub(super) fn write32(&mut self, d: u32, full: bool) {
        let d = d as usize;
        if self.lazy32[d] {
            if !full {
                self.fill32(d);
            }
            self.lazy32[d] = false;
        }
        self.uni32[d] = false;
    }

    /// Forget every register's scalar form (the rows are then stale, as after any run:
    /// `reset` sets what is read before written).
    pub(super) fn clear_uniform32(&mut self, slots: usize) {
        for v in [&mut self.uni32, &mut self.lazy32, &mut self.listed32] {
            v.clear();
            v.resize(slots, false);
        }
        self.uval32.resize(slots, 0);
        self.pending32.clear();
    }
}
