//! `exec`: the lock-step interpreter that runs an [`ir::Shader`](crate::ir::Shader) over a
//! batch of lanes. It owns masks, divergence and reconvergence, derivatives, quad and subgroup
//! operations, memory (per-lane, workgroup, buffers) and the instruction budget; it knows
//! nothing about image formats (images go through the caller's [`ImageUnit`]) or the
//! rasterizer (which calls [`run_fragment_rows`] / [`run_vertex`]; [`run_fragment_quads`] is
//! the per-quad form for tests and tools).
//!
//! # Shape
//! - [`compile`] turns the IR into a [`Program`]: registers become slots of a 32-bit and a
//!   64-bit register file, blocks are put in schedule order (see below), every instruction becomes
//!   a compact `Code` holding slot indices and a function pointer to a lane kernel
//!   monomorphised for its (operation, type). Bad register/block indices and operand widths
//!   are compile errors, so running never panics.
//! - A batch is `n` lanes (a multiple of 4); lanes `4k..4k+3` are quad `k` laid out `0 1 / 2 3`
//!   (x right, y down). Registers are SoA: `regs32[slot * n + lane]`, so an instruction is one
//!   tight, branch-free loop over the batch that the compiler vectorises: the kernel computes
//!   every lane and writes the destination row directly, blending under the active mask unless
//!   every lane is active (an operand that is the destination itself is read from that row in
//!   place, lane by lane before the lane is written; a cross-lane kernel, or one with two
//!   operands that are the destination, writes a scratch row that is then blended in).
//!   Fragment batches are up to 64 quads, vertex batches up to 64
//!   lanes, a compute batch is one whole workgroup. Per batch the scheduler costs a few
//!   vectorised passes over the lane states per executed block (one, when the previous block
//!   ran on every lane and sent them all to the same successor).
//! - What keeps the per-batch overhead down (callgrind on `render_scene textured 256 1` /
//!   `alu 256 1` is where it shows):
//!   - A batch is reused (per-thread scratch) and `Batch::reset` zeroes only the register
//!     rows `compile` lists as possibly read before written (a must-define dataflow over the
//!     schedule, plus every cross-lane operand). Results are those of an all-zero start (tests
//!     poison a reused batch).
//!   - Image instructions call [`ImageUnit::image_batch`] once per batch with the operand rows in
//!     place ([`BatchOperands`]) instead of a per-quad operand struct.
//!   - Local loads/stores at a constant in-range word are row copies (`Code::LoadLocal` /
//!     `StoreLocal`) rather than the per-lane generic memory path (the Input/Output accesses the
//!     optimiser leaves).
//!   - A 32-bit buffer load without a descriptor index register (push constants, uniform
//!     parameters) is a `Code::LoadWord`: its read at a uniform address, inline in the block
//!     loop, has a constant access size and no space or index test.
//!   - A jump to a block that runs nothing and only jumps to a later block goes straight
//!     to where that one goes (`program::thread_jumps`; loop back edges through the empty
//!     header structured code leaves), the budget still counting the skipped blocks.
//!   - The hot `exec` handles only lane kernels, Local row copies and `Nop` (`Source` markers);
//!     the rest is out of line in `exec_cold`, which keeps the per-instruction dispatch small.
//!   - A uniform 32-bit value (a lane kernel of uniform operands, a load at a uniform address,
//!     a constant, a zeroed register) is kept as one value per register, its row filled only
//!     when something reads it as a row (`uniform`), and the common two- and three-operand
//!     lane kernels take such an operand as a splat: `c += tint * f` with `tint` uniform reads
//!     no `tint` row. A lane kernel of uniform operands runs its form on one value (a plain
//!     call generated from the same rule as its row loop), not the row loop on one lane.
//! - Fixed costs per batch are kept small, because a draw of small triangles runs thousands
//!   of nearly empty batches: `reset` sets only the constants an instruction reads from a row (not the constant Local
//!   addresses folded into `LoadLocal` / `StoreLocal`; observers and `BatchState` see all), a
//!   run without an observer skips `Nop`s and an instruction-free entry block that only jumps
//!   forward, 32-bit Local row copies run in the block loop rather than through `exec`, and a
//!   fragment batch whose quads all have a covered lane skips the first dead-quad search.
//!   In row form an image instruction whose four results only feed one store each to a
//!   colour word writes those Local rows itself (`Code::ImageLocal`, the stores dropped),
//!   saving four row copies a batch.
//!
//! # Masks and lane states
//! - *active*: the lanes executing the current block. Inactive lanes' registers never change.
//! - *helper*: not covered (set by the caller) or demoted ([`Inst::Demote`](crate::ir::Inst::Demote)); helpers run
//!   everything, but never store to workgroup or buffer memory and never perform atomics there
//!   (they get 0 as the atomic result). They do write their own per-lane (Local) memory —
//!   Function/Private variables must work for their derivatives to be right; their Output
//!   words are ignored by the caller, who gets the helper/discarded flags.
//! - *killed*: `Kill` terminator (`OpKill`, `OpTerminateInvocation`): the lane's outputs are
//!   dropped and it goes on as a helper from the kill's `resume` block (the merge of the
//!   selection around the `discard`), so a neighbour's derivative or quad op after the
//!   `discard` reads what the lane goes on computing, as on lavapipe and under D3D's
//!   `discard` ([`Discard::Helper`], the default). With [`Discard::Strict`] it stops there
//!   for good and its registers stay frozen: derivatives and quad ops read every lane of the
//!   quad whatever its state, so it contributes its last value (sampling.md §3.3: undefined).
//! - *returned*: `Return`: the lane is finished; outputs written so far stand.
//! - A quad stops as soon as none of its lanes is both still running and not a helper
//!   (helpers only exist to feed derivatives of live lanes).
//!
//! # Divergence and reconvergence
//! Each lane records the block it waits at. The scheduler repeatedly runs **the waiting block
//! with the lowest schedule index, with all the lanes waiting at it**, then sends each of those
//! lanes to its own successor. The schedule is a reverse post-order (RPO) of the CFG refined
//! so that every natural loop's blocks are contiguous: a topological order of the forward
//! edges (edges to a later RPO block) that, once a loop header is placed, places the rest of
//! that loop before anything outside it. (Plain RPO is not enough: for
//! `loop { if c { break } i += 1 }` a depth-first search can finish the increment block before
//! it discovers the exit, so RPO puts the exit first and lanes that break would run it alone
//! while others still loop; the test `break_as_first_successor_still_reconverges` fails with
//! plain RPO.) Loops work
//! through back edges: a back edge targets an earlier block, so the loop body runs again
//! before anything after the loop. Every block of a region precedes its merge block in a
//! topological order, so lanes that split at a branch all arrive at the merge (the immediate
//! post-dominator) before it runs, and continue together. The rule needs only the CFG, so it
//! serves structured SPIR-V and unstructured CFGs alike; for irreducible CFGs it stays correct
//! per lane and only reconverges less. Per-lane results are those of running each lane alone
//! (tests check this); only cross-lane operations see the grouping.
//!
//! # Numerics (choices Vulkan leaves open)
//! - Denormals are preserved (never flushed), for f16, f32 and f64.
//! - F16 computes each op in f32 and rounds the result to f16 (RNE); for + − × ÷ and sqrt this
//!   equals correctly rounded f16. F32 (and F16) fma computes `a * b` exactly in f64 and
//!   rounds the sum to f64 and then to the type: fused except in rare double-rounding ties,
//!   and more precise than Vulkan requires (OpFMul then OpFAdd). F64 fma is fused.
//! - Floor/Ceil/Trunc/Fract use a branch-free integer-conversion form (exact, keeps the sign
//!   of zero) so they vectorise without SSE4.1.
//! - FMin/FMax/NMin/NMax return the non-NaN operand (IEEE minNum); FClamp/NClamp are
//!   `min(max(x, lo), hi)` with those, so a NaN `x` gives `lo`.
//! - FSign of NaN/±0 returns the operand. `Fract(x) = x - floor(x)`. `Round` is half away
//!   from zero. FMod = `a - b * floor(a / b)` (sign of b), FRem = C fmod (sign of a).
//! - Float→int conversion truncates and saturates to the target range; NaN gives 0.
//! - Integer division by zero: quotient all ones (UDiv/SDiv), remainder (UMod/SRem/SMod) =
//!   the dividend (so `a == q * b + r` still holds). `INT_MIN / -1 = INT_MIN`, rem 0.
//! - Shifts by amounts >= the width give 0 (Shl/ShrL) or the sign fill (ShrA).
//! - Bitfield ops clamp offset to the width and count to `width - offset`.
//! - FindILsb/FindUMsb/FindSMsb return -1 when no bit qualifies.
//! - pack/unpack follow the GLSL.std.450 formulas (round half away from zero).
//!
//! # Memory
//! - Local (per-lane) words: Function/Private/Input/Output variables; a 64-bit value is two
//!   words (low first). Workgroup words are shared by the batch (= the workgroup). Out-of-range
//!   word addresses read 0 and drop writes.
//! - Buffers ([`Buffer`]): byte addressed, little-endian, 8/16/32/64-bit accesses; an access not
//!   entirely inside the buffer reads 0 / is dropped. Atomics are real atomics, so workgroups
//!   running in parallel can share buffers. Workgroup atomics run lane by lane in lane order.
//!
//! # Cross-lane operations
//! - Derivatives (sampling.md §3.2): Fine per lane pair (`P1-P0` for lanes 0,1 in x, …);
//!   Coarse uses lane 0's fine values for the whole quad.
//! - QuadSwap direction d reads quad lane `lane ^ (d + 1)` (0: horizontal, 1: vertical,
//!   2: diagonal); QuadBroadcast reads quad lane `index & 3`. QuadVote is over the active lanes
//!   of the quad (helpers included).
//! - Subgroups are [`SUBGROUP_SIZE`] = 16 consecutive lanes (4 quads) in every stage unless
//!   the program asks for another power of two from 4 to 64 ([`Program::set_subgroup_size`]);
//!   compute workgroups are split into subgroups of that many local invocations. Non-quad group operations
//!   consider active non-helper lanes only; reading an out-of-range shuffle lane gives 0.
//! - Barrier: a compute workgroup is one batch run in lock-step, so a barrier reached in
//!   uniform control flow is satisfied by construction; it is a no-op.
//!
//! # Budget and observer
//! A batch that executes more than [`Program::budget`] instructions (each instruction counted
//! once per batch; default [`DEFAULT_BUDGET`]) fails with `Error::Exec`: runaway shaders never
//! hang. The executor is generic over an [`Observer`]; [`NoObserver`] compiles to nothing.

mod entry;
mod fuse;
mod group;
mod image;
mod kernels;
mod mask;
mod memory;
mod observe;
mod place;
mod program;
mod rows;
mod run;
mod stages;
mod uniform;

#[cfg(test)]
mod tests;

pub use entry::{
    compute_lane, compute_local_id, fragment_row_layout, fragment_rows_run_nothing,
    location_stride, run_compute, run_compute_observed, run_compute_watching, run_fragment_quads,
    run_fragment_quads_observed, run_fragment_rows, run_fragment_rows_observed, run_vertex,
    run_vertex_observed, BatchState, FragQuadInput, FragQuadOutput, VertexIds, VertexOutputs,
    FRAG_QUADS_PER_BATCH, MAX_WORKGROUP_LANES, VERTEX_LANES_PER_BATCH,
};
pub use image::{image_per_quad, BatchOperands, ImageUnit, NoImages, QuadLod, QuadOperands};
pub use memory::{Bindings, Buffer};
pub use observe::{ImageEvent, InstEvent, LaneValues, NoObserver, Observer, RegView};
pub use program::{
    compile, Discard, Program, DEFAULT_BUDGET, MAX_LOCAL_WORDS, MAX_WORKGROUP_WORDS,
};
pub use run::{atomic_new, SUBGROUP_SIZE, SUBGROUP_SIZES};
pub use stages::{run_geometry, run_tess_control, run_tess_eval};
