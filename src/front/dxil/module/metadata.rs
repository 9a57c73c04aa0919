//! Metadata: strings, values, nodes (distinct or not), named metadata and kind names. Debug
//! info records (`DI*`, from `-Zi`) keep their place in the id space as [`Metadata::Debug`]
//! but are not decoded.

use super::{MdId, TypeId, Value};

/// One metadata item.
#[derive(Debug, Clone, PartialEq)]
pub enum Metadata {
    /// `!"text"` (raw bytes; DXC writes ASCII).
    String(Vec<u8>),
    /// `T value` (a constant, global or function; inside a function also a local value).
    Value { ty: TypeId, value: Value },
    /// `!{...}` / `distinct !{...}`; `None` operands are `null`.
    Node {
        distinct: bool,
        operands: Vec<Option<MdId>>,
    },
    /// A debug-info record, by its bitcode record code; not decoded.
    Debug(u32),
}

impl Metadata {
    /// The text of a string, if it is valid UTF-8.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Metadata::String(s) => std::str::from_utf8(s).ok(),
            _ => None,
        }
    }

    /// The operands of a node.
    pub fn operands(&self) -> Option<&[Option<MdId>]> {
        match self {
            Metadata::Node { operands, .. } => Some(operands),
            _ => None,
        }
    }
}

/// `!name = !{!a, !b, ...}`.
#[derive(Debug, Clone, PartialEq)]
pub struct NamedMetadata {
    pub name: String,
    pub operands: Vec<MdId>,
}
