//! The DXIL front end's reader: a DXC container in, a decoded module and what its metadata
//! declares out. Lowering to [`crate::ir`] is separate (`lower*`) and consumes only the types
//! here.
//!
//! - [`container`]: the DXBC-style container and its parts (program header, signatures,
//!   feature flags, hashes);
//! - [`module`]: the decoded LLVM 3.7 module (types, constants, globals, functions with
//!   their instructions, metadata), operands resolved to typed references;
//! - [`shader`]: what the `dx.*` metadata declares (shader model, entry points, signatures,
//!   resources, raw shader flags).

pub mod container;
mod error;
pub mod lower;
pub mod module;
pub mod shader;

pub use error::{DxilError, Result};

use container::Container;
use module::Module;
use shader::ShaderInfo;

/// A read DXIL container: the container's parts, the decoded bitcode module and what the
/// module's `dx.*` metadata declares.
#[derive(Debug, Clone, PartialEq)]
pub struct DxilModule {
    pub container: Container,
    pub module: Module,
    pub shader: ShaderInfo,
}
