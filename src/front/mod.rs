//! Front ends: SPIR-V and DXIL read and lowered into [`crate::ir`], both through one IR
//! builder (`build`).
mod build;
pub mod dxil;
pub mod spirv;
pub mod spvasm;
