//! The DXIL front end's reader: a DXC container in, a decoded module and what its metadata
//! declares out. Lowering to [`crate::ir`] is separate (`lower*`) and consumes only the types
//! here.
//!
//! - [`container`]: the DXBC-style container and its parts (program header, signatures,
//!   feature flags, hashes);
//! - [`module`]: the decoded LLVM 3.7 module (types, constants, globals, functions with
//!   their instructions, metadata), operands resolved to typed references;
//! - [`shader`]: what the `dx.*` metadata declares (shader model, entry points, signatures,
//!   resources, raw shader flags);
//! - [`print`](mod@print): the module in `llvm-dis` syntax;
//! - `ops`: the dx.op table (opcode → name, class, shader model, stages, arguments);
//! - `handle`: what a resource handle operand refers to;
//! - [`flags`] and [`inspect`]: the shader-flag bits, and the check of declared flags and
//!   availability rules against the code (`quadstep inspect`).
//!
//! Inside, `bitstream` reads LLVM's bitstream as records, `decode` turns the records into
//! the module (the LLVM 3.7 subset DXC writes: relative value ids, forward references, typed
//! pointers, 3.7 record forms), and `meta` reads the `dx.*` metadata.

mod bitstream;
pub mod container;
mod decode;
mod error;
pub mod flags;
mod handle;
pub mod inspect;
pub mod lower;
mod meta;
pub mod module;
mod ops;
pub mod print;
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

impl DxilModule {
    /// The bitcode of the `DXIL` part.
    pub fn bitcode<'a>(&self, container_bytes: &'a [u8]) -> &'a [u8] {
        let p = &self.container.program;
        &container_bytes[p.bitcode_offset..p.bitcode_offset + p.bitcode_size]
    }
}

/// Reads a DXIL container: its parts, its bitcode module and the module's `dx.*` metadata.
/// Any malformed input gives an error, never a panic.
pub fn read(bytes: &[u8]) -> Result<DxilModule> {
    let container = container::read_container(bytes)?;
    let p = &container.program;
    let module = decode::decode(&bytes[p.bitcode_offset..p.bitcode_offset + p.bitcode_size])?;
    let shader = meta::read_shader_info(&module)?;
    Ok(DxilModule {
        container,
        module,
        shader,
    })
}

/// Decodes bare LLVM 3.7 bitcode (a `DXIL` part's payload) into a module.
pub fn decode_bitcode(bitcode: &[u8]) -> Result<Module> {
    decode::decode(bitcode)
}
