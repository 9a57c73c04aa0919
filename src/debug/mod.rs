//! The shader debugger: for the quad that holds one pixel (or a compute invocation, or a
//! vertex), every instruction the interpreter ran, with its source text, the value each of
//! the four lanes produced, which lanes were running, helpers, demoted or killed, what the
//! image glue had bound for each image instruction, and warnings at the instruction and lane
//! that caused them. The trace is of the run that makes the image: the traced batch is run
//! under an interpreter observer inside the draw itself, and its results are the draw's.
//!
//! Shape, in the order data flows:
//! - [`session`]: the Amber run hook: which draws and dispatches can reach the target, the
//!   traced stages put in place for them, the pixel read back after each draw;
//! - `stages`: rasterizer stages in front of a bound stage that watch the target's batch;
//! - `record`: the `exec` observer that records the watched quads (lane states, values
//!   written, operands read, image operands and bindings);
//! - [`listing`]: SPIR-V text, names and source lines by word offset (from the module's
//!   words, through the disassembler), or a DXIL function's instructions by number (through
//!   the DXIL printer), which names the IR's `Source` markers;
//! - `steps` and `warn`: recorded instructions grouped into source steps, and checked;
//! - [`trace`]: the public result types;
//! - [`text`], [`json`], [`html`]: what `quadstep debug` prints or writes.
//!
//! The interpreter carries no debug information and the texture unit never calls back into
//! it: the observer hook and the image glue's `explain` are the only seams.

pub mod html;
pub mod json;
pub mod listing;
mod record;
pub mod session;
mod stages;
mod steps;
pub mod text;
pub mod trace;
mod warn;

use std::path::Path;
use std::sync::Arc;

pub use listing::{ListedInst, Listing, SourceLine};
pub use session::{Request, Session};
pub use trace::{
    Crop, FragmentResult, ImageStep, LanePlace, LaneState, Step, Target, Trace, Value, Warning,
    WarningKind,
};

use crate::amber::{run_file, RunOptions, ScriptResult};

/// What tracing a script gave.
#[derive(Debug)]
pub struct Report {
    /// The script's own outcome (a failed `EXPECT` does not stop the trace).
    pub script: ScriptResult,
    /// The traces of the last draw or dispatch that reached the target (with
    /// [`Request::draw`], of that one): several fragments when several primitives cover the
    /// pixel, in the order they were shaded.
    pub traces: Vec<Trace>,
    /// (command index, script line) of every draw or dispatch that reached the target.
    pub reached: Vec<(usize, usize)>,
}

/// Run the Amber script at `path` with `opts` (compiled with debug information, its hook
/// replaced by the debugger's), tracing what `request` asks.
pub fn trace_script(path: &Path, request: Request, opts: RunOptions) -> Report {
    let session = Arc::new(Session::new(Request {
        discard: opts.discard,
        ..request
    }));
    let opts = RunOptions {
        hook: Some(session.clone()),
        debug_info: true,
        ..opts
    };
    let script = run_file(path, &opts);
    let (traces, reached) = session.finish();
    Report {
        script,
        traces,
        reached,
    }
}
