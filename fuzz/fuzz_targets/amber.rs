//! The Amber parser and runner end to end: any bytes as an AmberScript or VkScript file,
//! parsed and run under low limits (small framebuffers and dispatches, a 64 MiB memory
//! budget, a 100 000-instruction batch budget, a 2 s time limit), so each input runs in
//! milliseconds. A panic inside the runner is caught and reported as an internal error; this
//! target turns that into a crash too.
#![no_main]

use std::path::Path;
use std::sync::OnceLock;
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use quadstep::amber::{self, FailKind, RunOptions};
use quadstep::limits::{Limit, Limits};

fn options() -> &'static RunOptions {
    static OPTS: OnceLock<RunOptions> = OnceLock::new();
    OPTS.get_or_init(|| {
        let mut limits = Limits::default();
        for (l, v) in [
            (Limit::MaxFramebufferWidth, 64),
            (Limit::MaxFramebufferHeight, 64),
            (Limit::MaxImageDimension1D, 256),
            (Limit::MaxImageDimension2D, 256),
            (Limit::MaxImageDimension3D, 32),
            (Limit::MaxImageDimensionCube, 64),
            (Limit::MaxComputeWorkGroupCountX, 64),
            (Limit::MaxComputeWorkGroupCountY, 64),
            (Limit::MaxComputeWorkGroupCountZ, 64),
            (Limit::MaxDrawVertices, 1 << 14),
            (Limit::MaxDrawGridCells, 256),
            (Limit::MaxMemoryAllocationSize, 16 << 20),
            (Limit::MaxFileBytes, 1 << 20),
        ] {
            limits.set(l, v);
        }
        RunOptions {
            budget: 100_000,
            time_limit: Duration::from_secs(2),
            limits,
            memory_limit: 64 << 20,
            cache_dir: std::env::temp_dir().join("quadstep-fuzz-cache"),
            ..RunOptions::default()
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let opts = options();
    let Ok(script) = amber::parse_with(text, Path::new("fuzz.amber"), &opts.limits) else {
        return;
    };
    let r = amber::run_script(&script, opts);
    assert_ne!(r.status.kind(), Some(FailKind::Internal), "{}", r.status.detail());
});
