//! Cross-module tests of the quad operations.
