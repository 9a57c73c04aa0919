//! The switches of every subcommand that runs scripts (`amber`, `render`), declared once so
//! they are named and mean the same everywhere: the texture unit's rules (`--policy`,
//! `--lod-precision`), the rasterizer's threads (`--threads`), `--discard`, the compile cache
//! (`--cache-dir`) and the guards (`--budget`, `--time-limit`, `--memory-limit`, `--limit`).
//! `--jobs` (scripts in parallel) belongs to `amber` alone.

use std::path::PathBuf;

use quadstep::amber::{run_shaders, RunOptions};
use quadstep::texture::LodPrecision;

#[derive(clap::Args)]
pub struct RunArgs {
    /// Rasterizer threads per script (0 = one per core). Pictures do not depend on it.
    /// Default: 1 for `amber` (its scripts run in parallel, `--jobs`), one per core for
    /// `render`.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Texture rules where Vulkan and D3D differ (default: each shader's own, D3D for DXIL,
    /// Vulkan for SPIR-V).
    #[arg(long, value_enum)]
    pub policy: Option<super::policy_arg::PolicyArg>,
    /// Implicit-LOD arithmetic: `exact` (per-lane f32, the default) or `hardware` (one λ per
    /// quad, snapped to 8.8 fixed point, as GPUs compute it).
    #[arg(long, value_enum)]
    pub lod_precision: Option<LodPrecisionArg>,
    /// What a lane does after `OpKill` (GLSL `discard`).
    #[arg(long, value_enum, default_value_t)]
    pub discard: super::discard_arg::DiscardArg,
    /// Where compiled GLSL/HLSL is cached (default: `$QUADSTEP_CACHE_DIR`, else
    /// `$XDG_CACHE_HOME/quadstep`, else `~/.cache/quadstep`).
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    #[command(flatten)]
    pub guards: super::guard_args::GuardArgs,
}

/// The values of `--lod-precision`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LodPrecisionArg {
    Exact,
    Hardware,
}

impl From<LodPrecisionArg> for LodPrecision {
    fn from(p: LodPrecisionArg) -> LodPrecision {
        match p {
            LodPrecisionArg::Exact => LodPrecision::Exact,
            LodPrecisionArg::Hardware => LodPrecision::Hardware,
        }
    }
}

impl RunArgs {
    /// `RunOptions` for `parallel` scripts at once, each drawing on `--threads` threads (or
    /// `default_threads`; 0 means one per core).
    pub fn run_options(
        &self,
        parallel: usize,
        default_threads: usize,
    ) -> Result<RunOptions, String> {
        let mut o = self.guards.run_options(parallel)?;
        o.raster_threads = super::threads_or_cores(self.threads.unwrap_or(default_threads));
        o.policy = self.policy.map(Into::into);
        o.lod_precision = self.lod_precision.map(Into::into);
        o.discard = self.discard.into();
        o.cache_dir = self
            .cache_dir
            .clone()
            .unwrap_or_else(run_shaders::default_cache_dir);
        Ok(o)
    }
}
