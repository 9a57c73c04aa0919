//! `--discard helper|strict`, shared by the subcommands that run scripts: what a lane that
//! executes `OpKill` (GLSL `discard`) does (`quadstep::Discard`).

use quadstep::Discard;

/// The values of `--discard`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum DiscardArg {
    /// It goes on as a helper for its quad's derivatives and quad ops (lavapipe, D3D).
    #[default]
    Helper,
    /// It stops and its values freeze (Vulkan's reading: derivatives across it undefined).
    Strict,
}

impl From<DiscardArg> for Discard {
    fn from(d: DiscardArg) -> Discard {
        match d {
            DiscardArg::Helper => Discard::Helper,
            DiscardArg::Strict => Discard::Strict,
        }
    }
}
