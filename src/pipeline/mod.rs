//! The glue between the modules and the public objects users hold: compiled shaders,
//! descriptor sets, the interpreter's image unit over the texture unit, the rasterizer's
//! stages over the interpreter, and compute dispatch.
//!
//! Why a separate module: `exec` must not know image formats, `texture` must not know the IR,
//! and `raster` must not know how shaders are encoded (ARCHITECTURE.md). Something has to
//! know all three; keeping that here leaves each of them testable alone.

mod descriptors;
mod images;
mod shader;
mod stages;

pub use descriptors::{
    Descriptor, DescriptorSets, ImageRead, ImageResource, ImageWrite, TexelBufferView,
};
/// The interpreter's image unit over bound descriptors (for tests that run the interpreter
/// directly).
#[doc(hidden)]
pub use images::ShaderImages;
pub use images::{BoundExplain, BoundImageInfo, ImageExplain};
pub use shader::Shader;
pub use stages::BoundStage;

use crate::exec;
use crate::ir::Stage;
use crate::limits::Limits;
use crate::texture::Config;
use crate::{Error, Result};

/// Run a compute shader over `groups` workgroups with the given descriptors, within the
/// default [`Limits`] (lavapipe's). A dispatch stops early when the shader's cancel token
/// ([`Shader::set_cancel`]) is stopped.
pub fn dispatch(
    shader: &Shader,
    groups: [u32; 3],
    sets: &DescriptorSets,
    config: Config,
) -> Result<()> {
    dispatch_with(shader, groups, sets, config, &Limits::default())
}

/// [`dispatch`] within `limits` (workgroup counts and sizes).
pub fn dispatch_with(
    shader: &Shader,
    groups: [u32; 3],
    sets: &DescriptorSets,
    config: Config,
    limits: &Limits,
) -> Result<()> {
    let images = ShaderImages::new(shader.ir(), |r| sets.lookup(r), config)?;
    dispatch_observed(
        shader,
        groups,
        sets,
        &images,
        limits,
        u64::MAX,
        &mut exec::NoObserver,
    )
}

/// [`dispatch_with`] through the image unit `images` (made for `shader` from `sets`), with
/// workgroup `watched` (index `x + y * X + z * X * Y`) run under `observer`: the debugger's
/// form, whose observer asks `images` to explain image instructions.
pub(crate) fn dispatch_observed<O: exec::Observer + Send>(
    shader: &Shader,
    groups: [u32; 3],
    sets: &DescriptorSets,
    images: &ShaderImages,
    limits: &Limits,
    watched: u64,
    observer: &mut O,
) -> Result<()> {
    if shader.stage() != Stage::Compute {
        return Err(Error::Pipeline(format!(
            "dispatch needs a compute shader; '{}' is a {:?} shader",
            shader.ir().name,
            shader.stage()
        )));
    }
    limits.check_dispatch(groups, shader.ir().workgroup_size)?;
    let bindings = sets.bindings(shader.ir(), images)?;
    exec::run_compute_watching(shader.program(), groups, &bindings, watched, observer)
}
