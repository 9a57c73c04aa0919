//! A semantics-preserving optimiser over [`crate::ir::Shader`].
//!
//! Front ends lower every GLSL local into per-lane memory and every access chain into address
//! arithmetic, so an unoptimised shader spends its time on `Load`/`Store`, copies and constant
//! address computations. The passes here remove that overhead without changing any result bit,
//! under divergence, helper lanes, kills and demotes:
//!
//! - `fold::hoist_constants`: a register written once, from constants, before all its reads
//!   becomes a constant (address arithmetic folds away).
//! - `promote::promote_locals`: Local words with constant addresses become registers.
//! - `fold::local_copies` / `fold::global_copies`: copy propagation (within a block; across
//!   blocks only for single-definition registers whose copy dominates every read).
//! - `block::cse`: a repeated lane operation on the same operands within a block becomes a
//!   copy of the first result; so does a repeated load of the lane's Local words or of a
//!   read-only buffer (push constants, uniform buffers) with no memory write in between.
//! - `block::coalesce_copies`: `t = op(..); x = Mov t` with `t` read only in that block, the
//!   copy first, becomes `x = op(..)` and `t`'s later reads read `x` (loop-carried
//!   `acc = acc + s` and `p = f(p)` in one dispatch instead of two).
//! - `licm::hoist_invariants`: lane operations whose operands the loop never writes move to
//!   the loop's preheader, and Local loads too in loops that write no memory.
//! - `dce::eliminate`: removal of side-effect-free instructions and of Local and read-only
//!   buffer loads whose results are dead.
//! - `dce::tidy_sources`: at most one `Source` marker before each instruction.
//!
//! The argument behind each pass is written at its top. The key facts of the interpreter
//! (`exec::run`): a block runs with one active mask; every register write and every Local store
//! writes exactly the active lanes (helpers included); registers and memory start at zero; only
//! cross-lane operands (derivatives, quad/subgroup operations, image operands) read other lanes'
//! registers, so registers they read are never rewritten or removed.
//!
//! Shaped as small passes over the plain IR (no SSA): registers are not single-assignment and
//! the interpreter's masking makes SSA reconstruction delicate; these conservative passes get
//! most of the win.

mod block;
mod dce;
mod fold;
mod licm;
mod promote;
pub(crate) mod walk;

use crate::ir::Shader;

/// What [`optimize`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Instructions before and after (all blocks, `Source` markers included).
    pub insts_before: usize,
    pub insts_after: usize,
    /// Local words turned into registers.
    pub words_promoted: usize,
    /// Registers turned into constants.
    pub consts_hoisted: usize,
    /// Copies propagated (operands rewritten within blocks plus registers replaced globally).
    pub copies: usize,
    /// Dead instructions removed (markers not counted).
    pub dead_removed: usize,
    /// Repeated computations turned into copies.
    pub cse: usize,
    /// Copies folded into the definition of their source.
    pub coalesced: usize,
    /// Loop-invariant instructions moved to a preheader.
    pub hoisted: usize,
}

fn count(sh: &Shader) -> usize {
    sh.body.blocks.iter().map(|b| b.insts.len()).sum()
}

/// Optimises `sh` in place. Results stay bit-identical to the unoptimised shader.
pub fn optimize(sh: &mut Shader) -> Stats {
    let mut st = Stats {
        insts_before: count(sh),
        ..Stats::default()
    };
    let ro = walk::read_only_slots(sh);
    st.consts_hoisted += fold::hoist_constants(&mut sh.body);
    st.words_promoted = promote::promote_locals(sh);
    for _ in 0..6 {
        let mut step = fold::local_copies(&mut sh.body);
        step += fold::global_copies(&mut sh.body);
        st.copies += step;
        let c = block::cse(&mut sh.body, &ro);
        st.cse += c;
        let h = fold::hoist_constants(&mut sh.body);
        st.consts_hoisted += h;
        let d = dce::eliminate(&mut sh.body, &ro);
        st.dead_removed += d;
        let m = block::coalesce_copies(&mut sh.body);
        st.coalesced += m;
        let l = licm::hoist_invariants(&mut sh.body);
        st.hoisted += l;
        if step + c + h + d + m + l == 0 {
            break;
        }
    }
    dce::tidy_sources(&mut sh.body);
    st.insts_after = count(sh);
    st
}

/// Whether the `QUADSTEP_NO_OPT=1` environment variable turns the optimiser off.
pub fn disabled_by_env() -> bool {
    std::env::var("QUADSTEP_NO_OPT").is_ok_and(|v| v == "1")
}
