//! Uniform 32-bit registers kept as one value: the scalar form of a register row and the one
//! function that makes such a row real.
//!
//! A uniform result (a lane kernel of uniform operands over every lane, a load at a uniform
//! address with every lane running, a constant or a zeroed row at `Batch::reset`) is stored
//! as its value in `uni32[slot].val`, with `uni` and `lazy` set there, and its row
//! `r32[slot * n..][..n]` is left as it was (stale): filling a 256-lane row with one value
//! costs far more than the one-lane arithmetic that made it. A slot's flags and value are
//! one [`Uni32`], so an instruction looks each operand up once.
//!
//! # The invariant
//! - `uni32[s].uni`: every lane of register `s` holds `uni32[s].val`.
//! - `uni32[s].lazy` (only with `uni`): the row does not hold it yet; `pending32` lists `s`.
//! - With `uni` and not `lazy`, the row holds `val` in every lane.
//!
//! Every reader of a 32-bit row either knows the scalar form (the hot lane kernels, which
//! take a uniform operand as a splat, `Batch::get`, the uniform-address loads, a uniform
//! branch) or first makes the row real through [`Batch::realize32`] /
//! [`Batch::realize_all32`]: `exec` before any instruction other than the hot lane kernels
//! and image instructions (so every other cold path, cross-lane operations, stores,
//! atomics), an image instruction's operands (`CImage::reads32`: it reads no other row), the
//! observed run before every instruction event (the debugger sees the same values), a
//! Local store of a uniform row under a mask, a non-lane (cross-lane) kernel's operands, a
//! branch or switch on a row. Every writer of a row other than the scalar form's either
//! writes every lane or first makes the row real (`Batch::write32`), so the lanes it
//! leaves keep the uniform value.

use super::rows;
use super::run::Batch;

/// The scalar form of one 32-bit register (see the module comment).
#[derive(Clone, Copy, Default)]
pub(super) struct Uni32 {
    /// Every lane holds `val`.
    pub uni: bool,
    /// With `uni`: the row does not hold `val` yet.
    pub lazy: bool,
    /// The slot is in `pending32` (which holds every `lazy` slot, and maybe others).
    pub listed: bool,
    pub val: u32,
}

impl Batch {
    /// Register `dst` holds `v` in every lane: kept as the value, its row not filled.
    #[inline(always)]
    pub(super) fn set_uniform32(&mut self, dst: u32, v: u32) {
        let u = &mut self.uni32[dst as usize];
        u.uni = true;
        u.val = v;
        u.lazy = true;
        if !u.listed {
            u.listed = true;
            self.pending32.push(dst);
        }
    }

    /// Whether register `s` is known to hold one value in every lane.
    #[inline(always)]
    pub(super) fn is_uniform32(&self, s: u32) -> bool {
        self.uni32.get(s as usize).is_some_and(|u| u.uni)
    }

    /// Make row `s` hold its register's value in every lane (a no-op unless it is in the
    /// scalar form with its row not filled).
    #[inline(always)]
    pub(super) fn realize32(&mut self, s: u32) {
        let s = s as usize;
        if self.uni32.get(s).is_some_and(|u| u.lazy) {
            self.fill32(s);
        }
    }

    #[inline(never)]
    fn fill32(&mut self, s: usize) {
        let n = self.n;
        rows::fill(&mut self.r32[s * n..][..n], self.uni32[s].val);
        self.uni32[s].lazy = false;
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
            self.uni32[s as usize].listed = false;
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
        if self.uni32[d].lazy {
            if !full {
                self.fill32(d);
            }
            self.uni32[d].lazy = false;
        }
        self.uni32[d].uni = false;
    }

    /// Register `d` (if it is a 32-bit slot) is no longer known uniform. Only for a row
    /// whose scalar form is not pending (after [`Batch::realize_all32`]).
    #[inline(always)]
    pub(super) fn forget32(&mut self, d: usize) {
        if let Some(u) = self.uni32.get_mut(d) {
            u.uni = false;
        }
    }

    /// Forget every register's scalar form (the rows are then stale, as after any run:
    /// `reset` sets what is read before written). Only the flags are written: a memset
    /// of whole records (`clear` + `resize`) is `rep stosb` in glibc from 2 KiB on (256
    /// slots), which callgrind counts byte by byte.
    pub(super) fn clear_uniform32(&mut self, slots: usize) {
        for u in &mut self.uni32 {
            (u.uni, u.lazy, u.listed) = (false, false, false);
        }
        self.uni32.resize(slots, Uni32::default());
        self.pending32.clear();
    }
}
