//! The dx.op table: for every core DXIL operation, its opcode, name, class (the `dx.op.<class>`
//! function it is called through), minimum shader model, the stages that may use it and its
//! arguments after the opcode. Generated from DXC's `hctdb.py` by `tools/dxil/gen_ops.py`
//! into `table.rs`; a call is identified by its constant opcode (see
//! [`super::module::Module::dx_op`]), never by the callee's name.

mod table;

pub use table::OPS;

use super::shader::ShaderKind;

/// One operation of the table. Argument and result types use `hctdb.py`'s spelling: `f`
/// float, `i32`, `res` a handle, `$o` the overload type, `$r` a resource return struct…
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpInfo {
    pub opcode: u32,
    /// DXC's name (`SampleCmpLevel`).
    pub name: &'static str,
    /// The opcode class (`SampleCmpLevel`; `Unary` for `Exp`, the derivatives…).
    pub class: &'static str,
    /// Minimum shader model (major, minor).
    pub min_sm: (u8, u8),
    /// Stages allowed to use it, one bit per [`ShaderKind`] number; 0 for all.
    pub stages: u32,
    pub result: &'static str,
    /// `(name, type)` of each argument after the opcode.
    pub args: &'static [(&'static str, &'static str)],
}

impl OpInfo {
    /// Whether a shader of `kind` may use the operation.
    pub fn allowed_in(&self, kind: ShaderKind) -> bool {
        self.stages == 0 || (kind.raw() < 32 && self.stages & (1 << kind.raw()) != 0)
    }

    /// The index among the arguments after the opcode of the argument called `name`.
    pub fn arg(&self, name: &str) -> Option<usize> {
        self.args.iter().position(|a| a.0 == name)
    }
}

/// The operation with this opcode.
pub fn op_info(opcode: u32) -> Option<&'static OpInfo> {
    OPS.get(opcode as usize)
}

/// Opcodes the reader and `inspect` name.
pub mod opcode {
    pub const CREATE_HANDLE: u32 = 57;
    pub const SAMPLE: u32 = 60;
    pub const SAMPLE_BIAS: u32 = 61;
    pub const SAMPLE_CMP: u32 = 64;
    pub const SAMPLE_CMP_LEVEL_ZERO: u32 = 65;
    pub const TEXTURE_LOAD: u32 = 66;
    pub const CALCULATE_LOD: u32 = 81;
    pub const DERIV_COARSE_X: u32 = 83;
    pub const DERIV_COARSE_Y: u32 = 84;
    pub const DERIV_FINE_X: u32 = 85;
    pub const DERIV_FINE_Y: u32 = 86;
    pub const ANNOTATE_HANDLE: u32 = 216;
    pub const CREATE_HANDLE_FROM_BINDING: u32 = 217;
    pub const TEXTURE_GATHER_RAW: u32 = 223;
    pub const SAMPLE_CMP_LEVEL: u32 = 224;
    pub const TEXTURE_STORE_SAMPLE: u32 = 225;
    pub const SAMPLE_CMP_GRAD: u32 = 254;
    pub const SAMPLE_CMP_BIAS: u32 = 255;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spot checks against dxil.md's table (taken from dxil-spirv's `dxil.hpp`, a source
    /// independent of `hctdb.py`).
    #[test]
    fn table_agrees_with_the_documented_opcodes() {
        let expect = [
            (60, "Sample"),
            (61, "SampleBias"),
            (62, "SampleLevel"),
            (63, "SampleGrad"),
            (64, "SampleCmp"),
            (65, "SampleCmpLevelZero"),
            (73, "TextureGather"),
            (74, "TextureGatherCmp"),
            (81, "CalculateLOD"),
            (82, "Discard"),
            (83, "DerivCoarseX"),
            (86, "DerivFineY"),
            (122, "QuadReadLaneAt"),
            (123, "QuadOp"),
            (221, "IsHelperLane"),
            (222, "QuadVote"),
            (223, "TextureGatherRaw"),
            (224, "SampleCmpLevel"),
            (254, "SampleCmpGrad"),
            (255, "SampleCmpBias"),
            (4, "LoadInput"),
            (5, "StoreOutput"),
            (59, "CBufferLoadLegacy"),
        ];
        for (op, name) in expect {
            assert_eq!(op_info(op).map(|o| o.name), Some(name), "opcode {op}");
        }
        // The declarations in DXC's output (`ps_sample_cmp_grad_bias`): `sampleCmpGrad.f32`
        // takes 18 parameters, `sampleCmpBias.f32` 13, the opcode included.
        let grad = op_info(opcode::SAMPLE_CMP_GRAD).unwrap();
        assert_eq!(grad.args.len(), 17);
        assert_eq!(grad.min_sm, (6, 8));
        assert_eq!(op_info(opcode::SAMPLE_CMP_BIAS).unwrap().args.len(), 12);
        assert_eq!(op_info(opcode::SAMPLE_CMP_LEVEL).unwrap().min_sm, (6, 7));
        assert!(!op_info(opcode::SAMPLE_CMP_BIAS)
            .unwrap()
            .allowed_in(ShaderKind::Vertex));
        assert!(op_info(opcode::SAMPLE_CMP_GRAD)
            .unwrap()
            .allowed_in(ShaderKind::Vertex));
    }
}
