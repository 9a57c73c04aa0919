//! The DXIL reader's error: which layer refused the input, where, and why. Every truncated,
//! corrupted or unsupported input ends in one of these; nothing in the reader panics on input.

use thiserror::Error;

/// Why a DXIL container could not be read.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum DxilError {
    /// The container (header, part table, a part's layout) is malformed.
    #[error("DXIL container, byte {offset}: {msg}")]
    Container { offset: usize, msg: String },
    /// The LLVM bitstream is malformed (bad abbreviation, truncated record, bad nesting…).
    #[error("DXIL bitcode, bit {bit}: {msg}")]
    Bitstream { bit: u64, msg: String },
    /// The bitstream is well formed but its records do not make a valid module (bad type
    /// or value id, record too short, unsupported record form…); `context` names the block
    /// and record.
    #[error("DXIL module, {context}: {msg}")]
    Module { context: String, msg: String },
    /// The `dx.*` metadata is missing or malformed.
    #[error("DXIL metadata: {0}")]
    Metadata(String),
}

/// Short alias used across the reader.
pub type Result<T, E = DxilError> = std::result::Result<T, E>;
