//! Front ends: SPIR-V (and later DXIL) lowered into [`crate::ir`].
pub mod spirv;
pub mod spvasm;
