//! What a run may use: the sizes and counts it may ask for ([`Limits`], a device's limits
//! table), the bytes it may hold ([`MemoryBudget`]), and how long it may go on ([`Cancel`]).
//!
//! Why one module: these are the three guards between hostile input and the machine, and
//! every entry point (the library API, the Amber runner, the command line) applies the same
//! three. Sizes are checked against [`Limits`] before anything is allocated, so a script or
//! API call asking for a 4-billion-pixel framebuffer gets an [`Error::Limit`] naming the
//! value and the limit instead of an allocation failure. What passes the limits can still be
//! too much together; the bytes a run allocates for buffers, images and attachments are
//! charged to a [`MemoryBudget`] first and allocated with `try_reserve`, so going over is an
//! [`Error::Memory`], never an abort. A run that is too long is stopped by a [`Cancel`]
//! token: a flag the interpreter and the rasterizer's workers read between workgroups,
//! batches and tiles (one relaxed load), set by a deadline, by a parent token (Ctrl-C), or
//! by the caller.
//!
//! The default limits are lavapipe's (Mesa's Vulkan driver on the CPU, as `vulkaninfo`
//! reports them), so a script that runs on lavapipe runs here; the few rows Vulkan has no
//! limit for are quadstep's own and say so ([`Origin`]).
//!
//! [`Error::Limit`]: crate::Error::Limit
//! [`Error::Memory`]: crate::Error::Memory

mod cancel;
mod device;
mod memory;

pub use cancel::{Cancel, StopReason};
pub use device::{Limit, Limits, Origin};
pub(crate) use memory::try_zeroed;
pub use memory::{machine_memory, memory_available, Charge, MemoryBudget};

/// The three guards together, for calls that take all of them.
#[derive(Clone, Debug, Default)]
pub struct Guards {
    pub limits: Limits,
    pub memory: MemoryBudget,
    pub cancel: Cancel,
}
