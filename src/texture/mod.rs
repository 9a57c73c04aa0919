//! Texture unit (in progress).
pub mod format;
pub use format::{Aspect, Format, NumKind};
