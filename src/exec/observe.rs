//! The observer hook for the debugger. The executor is generic over `O: Observer`; with
//! [`NoObserver`] (zero-sized, empty `#[inline(always)]` methods) the calls compile away.

use super::image::QuadOperands;
use crate::ir::{BlockId, ImageInst, Inst, Reg};

/// The lane values of one register.
#[derive(Clone, Copy, Debug)]
pub enum LaneValues<'a> {
    W32(&'a [u32]),
    W64(&'a [u64]),
}

/// Read access to the register file of a batch after an instruction.
pub struct RegView<'a> {
    pub(crate) slots: &'a [(bool, u32)],
    pub(crate) r32: &'a [u32],
    pub(crate) r64: &'a [u64],
    pub(crate) n: usize,
}

impl<'a> RegView<'a> {
    /// All lanes of register `r` (None if `r` is out of range).
    pub fn get(&self, r: Reg) -> Option<LaneValues<'a>> {
        let &(w, s) = self.slots.get(r as usize)?;
        let s = s as usize * self.n;
        Some(if w {
            LaneValues::W64(&self.r64[s..s + self.n])
        } else {
            LaneValues::W32(&self.r32[s..s + self.n])
        })
    }
    /// Number of lanes in the batch.
    pub fn lanes(&self) -> usize {
        self.n
    }
}

/// One executed instruction.
pub struct InstEvent<'a> {
    /// IR block id and instruction index within it.
    pub block: BlockId,
    pub index: usize,
    pub inst: &'a Inst,
    /// Per lane: executing this instruction (nonzero = active).
    pub active: &'a [u32],
    /// Per lane: helper (not covered, demoted or killed).
    pub helper: &'a [bool],
    /// Per lane: demoted (`OpDemoteToHelperInvocation`) / killed (`OpKill`: with
    /// [`crate::exec::Discard::Helper`] the lane goes on as a helper).
    pub demoted: &'a [bool],
    pub killed: &'a [bool],
    /// Registers after the instruction (the destination holds its new values).
    pub regs: RegView<'a>,
}

/// One image instruction on one quad.
pub struct ImageEvent<'a> {
    pub block: BlockId,
    pub index: usize,
    pub inst: &'a ImageInst,
    pub operands: &'a QuadOperands,
    /// Results `[lane][component]` as raw bits.
    pub results: &'a [[u32; 4]; 4],
}

/// Called by the executor; every method has an empty default.
pub trait Observer {
    /// A block starts with these active lanes.
    #[inline(always)]
    fn block(&mut self, _block: BlockId, _active: &[u32]) {}
    #[inline(always)]
    fn inst(&mut self, _ev: &InstEvent<'_>) {}
    #[inline(always)]
    fn image(&mut self, _ev: &ImageEvent<'_>) {}
    /// Whether `inst` is wanted at all (lets the executor skip building the event).
    #[inline(always)]
    fn wants_insts(&self) -> bool {
        true
    }
    /// Whether `block` is wanted at all (without it and without `inst`, a run may skip
    /// blocks that have no instructions and only jump to a later block).
    #[inline(always)]
    fn wants_blocks(&self) -> bool {
        true
    }
    /// Whether `image` is wanted at all (the per-quad operands are only built for it).
    #[inline(always)]
    fn wants_images(&self) -> bool {
        true
    }
}

/// Observes nothing, costs nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoObserver;

impl Observer for NoObserver {
    #[inline(always)]
    fn wants_insts(&self) -> bool {
        false
    }
    #[inline(always)]
    fn wants_blocks(&self) -> bool {
        false
    }
    #[inline(always)]
    fn wants_images(&self) -> bool {
        false
    }
}
