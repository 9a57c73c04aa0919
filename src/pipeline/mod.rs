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
pub use images::ShaderImages;
pub use shader::Shader;
pub use stages::BoundStage;

use crate::exec;
use crate::ir::Stage;
use crate::texture::Config;
use crate::{Error, Result};

/// Run a compute shader over `groups` workgroups with the given descriptors.
pub fn dispatch(
    shader: &Shader,
    groups: [u32; 3],
    sets: &DescriptorSets,
    config: Config,
) -> Result<()> {
    if shader.stage() != Stage::Compute {
        return Err(Error::Pipeline(format!(
            "dispatch needs a compute shader; '{}' is a {:?} shader",
            shader.ir().name,
            shader.stage()
        )));
    }
    let images = ShaderImages::new(shader.ir(), |r| sets.lookup(r), config)?;
    let bindings = sets.bindings(shader.ir(), &images)?;
    exec::run_compute(shader.program(), groups, &bindings)
}
