//! Front ends: SPIR-V and DXIL read and lowered into [`crate::ir`].
pub mod dxil;
pub mod spirv;
pub mod spvasm;
