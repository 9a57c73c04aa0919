//! A lane that executes `discard` (OpKill) goes on as a helper for its quad's derivatives:
//! `tests/data/discard_resume.amber` checks, with hand-derived values that lavapipe renders
//! too, fine `dFdy` across the discarded lane after a plain `if`, inside a loop, and after a
//! function that discards. With the strict reading (`Discard::Strict`) the lane stops and its
//! quad reads its frozen registers instead: the first probe then sees 0 - P(1, 0) = -2.8125.

mod common;

use std::path::Path;

use common::tools::{self, Tool};

use quadstep::amber::{run_file, RunOptions, Status};
use quadstep::Discard;

fn run(discard: Discard) -> Status {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/discard_resume.amber");
    let opts = RunOptions {
        discard,
        ..RunOptions::default()
    };
    run_file(&script, &opts).status
}

#[test]
fn discarded_lanes_feed_derivatives_as_helpers() {
    if !tools::have("discard_resume", &[Tool::Glslang]) {
        return;
    }
    assert_eq!(run(Discard::Helper), Status::Pass);
    match run(Discard::Strict) {
        Status::Fail { message, .. } => {
            assert!(
                message.contains("got -2.8125, expected == 4.5"),
                "{message}"
            );
        }
        other => panic!("strict discard: {other:?}"),
    }
}
