//! The crate-wide error type. Every error names where it happened (file, word offset, line) and
//! the rule that was broken; nothing reachable from user input panics.

use thiserror::Error;

/// Every way quadstep can refuse input or fail to run it.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum Error {
    /// Malformed or unsupported SPIR-V (binary or text).
    #[error("SPIR-V: {0}")]
    Spirv(String),
    /// A shader feature quadstep does not implement (capability, opcode, operand, format…).
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// A run-time failure of a shader: instruction budget exhausted, bad resource binding…
    #[error("execution: {0}")]
    Exec(String),
    /// Bad texture / image / sampler description.
    #[error("texture: {0}")]
    Texture(String),
    /// Misuse of the pipeline API.
    #[error("pipeline: {0}")]
    Pipeline(String),
    /// Amber script errors (file:line: message).
    #[error("amber: {0}")]
    Amber(String),
    /// I/O and image-file errors, with the path.
    #[error("io: {0}")]
    Io(String),
}

/// Short alias used across the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
