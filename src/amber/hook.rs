//! A way for a tool to watch a script's draws and dispatches as the runner performs them,
//! without the runner knowing the tool: the shader debugger wraps one draw's stages or runs
//! one dispatch itself, and reads the attachments after a draw. The runner numbers draw and
//! dispatch commands in the order it runs them ([`Command::index`]). A benchmark asks for a
//! command to be repeated ([`RunHook::repetitions`]) and receives the time of each
//! repetition's draw or dispatch alone ([`RunHook::timed`]). A test counts the textures the
//! runner makes from a script's buffers ([`RunHook::image_uploaded`]).

use std::time::Duration;

use crate::limits::Limits;
use crate::pipeline::{BoundStage, DescriptorSets, Shader};
use crate::raster::{FragmentStage, RenderTargets, VertexStage};
use crate::texture::Config;
use crate::Result;

/// The draw or dispatch command being run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Command {
    /// Draw and dispatch commands run so far before this one (0-based; a `REPEAT` body counts
    /// once per repetition).
    pub index: usize,
    /// Its line in the script.
    pub line: usize,
    pub pipeline: String,
    /// Framebuffer size of a graphics pipeline.
    pub framebuffer: (u32, u32),
    /// Colour attachments by location (Amber buffer names; None: a gap).
    pub attachments: Vec<Option<String>>,
    /// Invocations of a dispatch (workgroups times the workgroup size); None for a draw.
    pub invocations: Option<u64>,
}

/// Stages a hook puts in place of a draw's (None: the bound stage as it is).
#[derive(Default)]
pub struct HookStages<'a> {
    pub vertex: Option<Box<dyn VertexStage + 'a>>,
    pub fragment: Option<Box<dyn FragmentStage + 'a>>,
}

/// Watches a run ([`super::RunOptions::hook`]). Every method has a default that changes
/// nothing.
pub trait RunHook: Send + Sync {
    /// The stages to draw `command` with, given the bound ones.
    fn stages<'a>(
        &'a self,
        _command: &Command,
        _vertex: &'a BoundStage<'a>,
        _fragment: Option<&'a BoundStage<'a>>,
    ) -> HookStages<'a> {
        HookStages::default()
    }

    /// `command` has drawn into `targets` (colour attachments by location, as in
    /// [`Command::attachments`]).
    fn after_draw(&self, _command: &Command, _targets: &RenderTargets) {}

    /// How many times to perform `command`'s draw or dispatch (default 1). Every repetition
    /// starts from the same state: what the command may write (its attachments, storage
    /// buffers and storage images) is copied before the first and put back before each
    /// further one, outside the timed region; the script goes on from the last one's
    /// results, so they are the results of a single run.
    fn repetitions(&self, _command: &Command) -> usize {
        1
    }

    /// Wall time of each repetition of `command`, in order: the draw alone (from the start
    /// of the render pass through binding the pipeline and vertex buffers, the draw call and
    /// the end of the pass, every attachment write done) or the dispatch alone. Copying
    /// resources in and out, compiling and restoring state are outside it.
    fn timed(&self, _command: &Command, _times: &[Duration]) {}

    /// Run dispatch `command` (Some: done, with its result) or leave it to the runner (None).
    fn dispatch(
        &self,
        _command: &Command,
        _shader: &Shader,
        _groups: [u32; 3],
        _sets: &DescriptorSets,
        _config: Config,
        _limits: &Limits,
    ) -> Option<Result<()>> {
        None
    }

    /// The runner has made a texture from buffer `buffer`'s contents (uploaded level 0,
    /// generated or uploaded the other levels). It does so once for each contents a buffer
    /// has: the commands that sample it share the texture until something writes the
    /// buffer.
    fn image_uploaded(&self, _buffer: &str) {}
}

impl std::fmt::Debug for dyn RunHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RunHook")
    }
}
