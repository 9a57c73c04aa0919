//! quadstep's own SPIR-V assembler and disassembler (the `spirv-as` / `spirv-dis` text form), so
//! `.spvasm` files and Amber `SPIRV-ASM` shader blocks need no external tool.
//!
//! Shape: the syntax of every instruction comes from rspirv's grammar tables
//! ([`rspirv::grammar::INSTRUCTION_TABLE`], the extended-instruction tables such as GLSL.std.450)
//! so operands are parsed and printed generically, driven by their [`OperandKind`] and
//! quantifier. Enumerant names come from the `spirv` crate (value enums) and rspirv's
//! `Disassemble` impls (mask bits). What those crates do not expose as data — which enumerants
//! carry extra parameters (`BuiltIn` after `Decoration BuiltIn`, the ids after `Bias|Grad`, …) —
//! is the one hand-written table here, `enum_params`, transcribed from the SPIR-V grammar.
//!
//! - `assemble.rs`: lexer and assembler (text → words). Ids are numbered in order of first
//!   appearance, as `spirv-as` does by default, or kept as written with
//!   [`assemble_preserving_ids`] (`spirv-as --preserve-numeric-ids`). The header's generator
//!   word is 0 (spirv-as writes 0x70000); everything else matches spirv-as word for word on the
//!   Amber corpus (tests/spvasm_oracle.rs).
//! - `disassemble.rs`: words → text with numeric `%N` ids that the assembler reads back.
//!
//! Everything returns [`crate::Error::Spirv`] with `source:line:column` (assembler) or the word
//! offset (disassembler) and the rule broken; nothing panics on bad input.

mod assemble;
mod disassemble;

pub use disassemble::DisInst;

use rspirv::binary::Disassemble;
use rspirv::grammar::{Instruction, OperandKind, INSTRUCTION_TABLE};
use rspirv::spirv;
use std::collections::HashMap;
use std::sync::OnceLock;

/// Assembles `spirv-as` text. The header's version is SPIR-V 1.0 unless the leading comment
/// block carries a `; Version: M.m` line (as `spirv-dis` writes and newer `spirv-as` reads).
/// `source_name` is only used in error messages (`source_name:line:column: …`).
pub fn assemble(text: &str, source_name: &str) -> crate::Result<Vec<u32>> {
    let version = assemble::version_from_header_comment(text).unwrap_or((1, 0));
    assemble::assemble(text, source_name, version, false)
}

/// Assembles `spirv-as` text for an explicit SPIR-V version (`(1, 3)` for SPIR-V 1.3); the
/// header comment is then ignored, like `spirv-as --target-env`.
pub fn assemble_with(text: &str, source_name: &str, version: (u8, u8)) -> crate::Result<Vec<u32>> {
    assemble::assemble(text, source_name, version, false)
}

/// Like `spirv-as --preserve-numeric-ids`: `%12` becomes id 12 and named ids fill the unused
/// numbers from 1 up. The version is taken as in [`assemble`] unless `version` is given.
/// [`disassemble`]'s output goes back to exactly the same words through this, whatever the
/// module's id numbering; through [`assemble`] only when ids first appear in increasing order.
pub fn assemble_preserving_ids(
    text: &str,
    source_name: &str,
    version: Option<(u8, u8)>,
) -> crate::Result<Vec<u32>> {
    let version = version
        .or_else(|| assemble::version_from_header_comment(text))
        .unwrap_or((1, 0));
    assemble::assemble(text, source_name, version, true)
}

/// Disassembles a SPIR-V module into text that [`assemble_preserving_ids`] turns back into the
/// same words (ids are printed as their numbers; the header comment carries the version).
pub fn disassemble(words: &[u32]) -> crate::Result<String> {
    disassemble::disassemble(words, &mut |_| String::new())
}

/// [`disassemble`] with `note(offset)` (when not empty) at the end of the line of the
/// instruction at word `offset`, e.g. a `; @offset` comment (the text stays assembly).
pub fn disassemble_with(
    words: &[u32],
    note: &mut dyn FnMut(u32) -> String,
) -> crate::Result<String> {
    disassemble::disassemble(words, note)
}

/// The instructions [`disassemble`] prints, one by one with their word offsets (what the IR's
/// `Source { offset }` markers name; the debugger's listing is built on it).
pub fn disassemble_instructions(words: &[u32]) -> crate::Result<Vec<DisInst>> {
    disassemble::instructions(words)
}

/// The SPIR-V version a `spirv-as --target-env` / Amber `TARGET_ENV` name stands for
/// (`spv1.3`, `vulkan1.1`, `vulkan1.1spv1.4`, …); `None` for names it does not know.
pub fn target_env_version(name: &str) -> Option<(u8, u8)> {
    Some(match name {
        "vulkan1.0" => (1, 0),
        "vulkan1.1" => (1, 3),
        "vulkan1.1spv1.4" => (1, 4),
        "vulkan1.2" => (1, 5),
        "vulkan1.3" | "vulkan1.4" => (1, 6),
        _ => {
            let v = name.strip_prefix("spv1.")?;
            let minor: u8 = v.parse().ok()?;
            if minor > 6 || v.len() != 1 {
                return None;
            }
            (1, minor)
        }
    })
}

// ---------------------------------------------------------------------------------------------
// Grammar helpers shared by the assembler and the disassembler.

/// The core instruction grammar entry named `name` (without the `Op` prefix).
fn opcode_by_name(name: &str) -> Option<&'static Instruction<'static>> {
    static MAP: OnceLock<HashMap<&'static str, &'static Instruction<'static>>> = OnceLock::new();
    MAP.get_or_init(|| INSTRUCTION_TABLE.iter().map(|i| (i.opname, i)).collect())
        .get(name)
        .copied()
}

/// The core instruction grammar entry for `opcode`.
fn opcode_by_number(opcode: u32) -> Option<&'static Instruction<'static>> {
    static MAP: OnceLock<HashMap<u32, &'static Instruction<'static>>> = OnceLock::new();
    MAP.get_or_init(|| {
        INSTRUCTION_TABLE
            .iter()
            .map(|i| (i.opcode as u32, i))
            .collect()
    })
    .get(&opcode)
    .copied()
}

macro_rules! value_enums {
    ($($kind:ident),* $(,)?) => {
        /// For a value-enum kind: `Some(value of name)` (`Some(None)` if unknown); `None` if
        /// `kind` is not a value enum.
        fn value_enum_parse(kind: OperandKind, name: &str) -> Option<Option<u32>> {
            match kind {
                OperandKind::Dim => Some(
                    format!("Dim{name}").parse::<spirv::Dim>().ok().map(|v| v as u32),
                ),
                $(OperandKind::$kind => {
                    Some(name.parse::<spirv::$kind>().ok().map(|v| v as u32))
                })*
                _ => None,
            }
        }
        /// For a value-enum kind: `Some(name of value)` (`Some(None)` if unknown).
        fn value_enum_name(kind: OperandKind, value: u32) -> Option<Option<String>> {
            match kind {
                OperandKind::Dim => Some(spirv::Dim::from_u32(value).map(|v| {
                    let s = format!("{v:?}");
                    s.strip_prefix("Dim").unwrap_or(&s).to_string()
                })),
                $(OperandKind::$kind => Some(spirv::$kind::from_u32(value).map(|v| format!("{v:?}"))),)*
                _ => None,
            }
        }
    };
}

value_enums!(
    SourceLanguage,
    ExecutionModel,
    AddressingModel,
    MemoryModel,
    ExecutionMode,
    StorageClass,
    SamplerAddressingMode,
    SamplerFilterMode,
    ImageFormat,
    ImageChannelOrder,
    ImageChannelDataType,
    FPRoundingMode,
    FPDenormMode,
    QuantizationModes,
    FPOperationMode,
    OverflowModes,
    LinkageType,
    AccessQualifier,
    HostAccessQualifier,
    FunctionParameterAttribute,
    Decoration,
    BuiltIn,
    Scope,
    GroupOperation,
    KernelEnqueueFlags,
    Capability,
    RayQueryIntersection,
    RayQueryCommittedIntersectionType,
    RayQueryCandidateIntersectionType,
    PackedVectorFormat,
    CooperativeMatrixLayout,
    CooperativeMatrixUse,
    TensorClampMode,
    InitializationModeQualifier,
    LoadCacheControl,
    StoreCacheControl,
    NamedMaximumNumberOfRegisters,
    FPEncoding,
    CooperativeVectorMatrixLayout,
    ComponentType,
);

macro_rules! mask_enums {
    ($($kind:ident),* $(,)?) => {
        /// For a mask kind: `Some(name of the single bit)` (`Some(None)` if unnamed); `None`
        /// if `kind` is not a mask.
        fn mask_bit_name(kind: OperandKind, bit: u32) -> Option<Option<String>> {
            let s = match kind {
                $(OperandKind::$kind => spirv::$kind::from_bits_retain(bit).disassemble(),)*
                _ => return None,
            };
            Some((!s.is_empty() && !s.contains('|') && s != "None" && bit != 0).then_some(s))
        }
    };
}

mask_enums!(
    ImageOperands,
    FPFastMathMode,
    SelectionControl,
    LoopControl,
    FunctionControl,
    MemorySemantics,
    MemoryAccess,
    KernelProfilingInfo,
    RayFlags,
    FragmentShadingRate,
    RawAccessChainOperands,
    CooperativeMatrixOperands,
    CooperativeMatrixReduce,
    TensorAddressingOperands,
    MatrixMultiplyAccumulateOperands,
    TensorOperands,
);

fn is_mask(kind: OperandKind) -> bool {
    mask_bit_name(kind, 1).is_some()
}

fn is_value_enum(kind: OperandKind) -> bool {
    value_enum_name(kind, 0).is_some()
}

/// The value of one mask bit name (`Bias`, `DontUnroll`; `None` is 0).
fn mask_bit_parse(kind: OperandKind, name: &str) -> Option<u32> {
    if name == "None" || name == "NoneKHR" {
        return Some(0);
    }
    (0..32)
        .map(|i| 1u32 << i)
        .find(|&bit| mask_bit_name(kind, bit).flatten().as_deref() == Some(name))
}

/// The operands that follow an enumerant (for masks: one set bit), in order.
/// Transcribed from the SPIR-V grammar's `parameters` of each enumerant.
fn enum_params(kind: OperandKind, value: u32) -> &'static [OperandKind] {
    use OperandKind as K;
    const INT: &[K] = &[K::LiteralInteger];
    const INT2: &[K] = &[K::LiteralInteger, K::LiteralInteger];
    const INT3: &[K] = &[K::LiteralInteger, K::LiteralInteger, K::LiteralInteger];
    const ID: &[K] = &[K::IdRef];
    const ID2: &[K] = &[K::IdRef, K::IdRef];
    const ID3: &[K] = &[K::IdRef, K::IdRef, K::IdRef];
    const SCOPE: &[K] = &[K::IdScope];
    const STR: &[K] = &[K::LiteralString];
    match kind {
        K::ImageOperands => match value {
            0x1 | 0x2 | 0x8 | 0x10 | 0x20 | 0x40 | 0x80 | 0x10000 => ID,
            0x4 => ID2,
            0x100 | 0x200 => SCOPE,
            _ => &[],
        },
        K::LoopControl => match value {
            0x8 | 0x10 | 0x20 | 0x40 | 0x80 | 0x100 => INT,
            v if (0x10000..=0x2000000).contains(&v) && v != 0x800000 => INT,
            _ => &[],
        },
        K::MemoryAccess => match value {
            0x2 => INT,
            0x8 | 0x10 => SCOPE,
            0x10000 | 0x20000 => ID,
            _ => &[],
        },
        K::TensorAddressingOperands => match value {
            0x1 | 0x2 => ID,
            _ => &[],
        },
        K::TensorOperands => match value {
            0x1..=0x4 => ID,
            _ => &[],
        },
        K::ExecutionMode => {
            use spirv::ExecutionMode as E;
            let Some(m) = E::from_u32(value) else {
                return &[];
            };
            match m {
                E::Invocations
                | E::OutputVertices
                | E::VecTypeHint
                | E::SubgroupSize
                | E::SubgroupsPerWorkgroup
                | E::DenormPreserve
                | E::DenormFlushToZero
                | E::SignedZeroInfNanPreserve
                | E::RoundingModeRTE
                | E::RoundingModeRTZ
                | E::OutputPrimitivesEXT
                | E::SharedLocalMemorySizeINTEL
                | E::RoundingModeRTPINTEL
                | E::RoundingModeRTNINTEL
                | E::FloatingPointModeALTINTEL
                | E::FloatingPointModeIEEEINTEL
                | E::MaxWorkDimINTEL
                | E::NumSIMDWorkitemsINTEL
                | E::SchedulerTargetFmaxMhzINTEL
                | E::StreamingInterfaceINTEL
                | E::RegisterMapInterfaceINTEL
                | E::NamedBarrierCountINTEL
                | E::MaximumRegistersINTEL => INT,
                E::LocalSize | E::LocalSizeHint | E::MaxWorkgroupSizeINTEL => INT3,
                E::TileShadingRateQCOM => INT3,
                E::SubgroupsPerWorkgroupId
                | E::IsApiEntryAMDX
                | E::MaxNodeRecursionAMDX
                | E::ShaderIndexAMDX
                | E::MaximumRegistersIdINTEL => ID,
                E::LocalSizeId
                | E::LocalSizeHintId
                | E::StaticNumWorkgroupsAMDX
                | E::MaxNumWorkgroupsAMDX => ID3,
                E::SharesInputWithAMDX | E::FPFastMathDefault => ID2,
                E::NamedMaximumRegistersINTEL => &[K::NamedMaximumNumberOfRegisters],
                _ => &[],
            }
        }
        K::Decoration => {
            use spirv::Decoration as D;
            let Some(d) = D::from_u32(value) else {
                return &[];
            };
            match d {
                D::SpecId
                | D::ArrayStride
                | D::MatrixStride
                | D::Stream
                | D::Location
                | D::Component
                | D::Index
                | D::Binding
                | D::DescriptorSet
                | D::Offset
                | D::XfbBuffer
                | D::XfbStride
                | D::InputAttachmentIndex
                | D::Alignment
                | D::MaxByteOffset
                | D::SecondaryViewportRelativeNV
                | D::MemberOffsetNV
                | D::BankNV
                | D::SIMTCallINTEL
                | D::FuncParamIOKindINTEL
                | D::GlobalVariableOffsetINTEL
                | D::NumbanksALTERA
                | D::BankwidthALTERA
                | D::MaxPrivateCopiesALTERA
                | D::MaxReplicatesALTERA
                | D::BankBitsALTERA
                | D::ForcePow2DepthALTERA
                | D::StridesizeALTERA
                | D::WordsizeALTERA
                | D::CacheSizeALTERA
                | D::PrefetchALTERA
                | D::InitiationIntervalALTERA
                | D::MaxConcurrencyALTERA
                | D::PipelineEnableALTERA
                | D::BufferLocationALTERA
                | D::IOPipeStorageALTERA
                | D::FPMaxErrorDecorationINTEL
                | D::LatencyControlLabelALTERA
                | D::MMHostInterfaceAddressWidthALTERA
                | D::MMHostInterfaceDataWidthALTERA
                | D::MMHostInterfaceLatencyALTERA
                | D::MMHostInterfaceMaxBurstALTERA
                | D::MMHostInterfaceWaitRequestALTERA
                | D::ImplementInRegisterMapALTERA => INT,
                D::MathOpDSPModeALTERA => INT2,
                D::LatencyControlConstraintALTERA => INT3,
                D::BuiltIn => &[K::BuiltIn],
                D::UniformId => SCOPE,
                D::FuncParamAttr => &[K::FunctionParameterAttribute],
                D::FPRoundingMode => &[K::FPRoundingMode],
                D::FPFastMathMode => &[K::FPFastMathMode],
                D::LinkageAttributes => &[K::LiteralString, K::LinkageType],
                D::AlignmentId
                | D::MaxByteOffsetId
                | D::NodeSharesPayloadLimitsWithAMDX
                | D::NodeMaxPayloadsAMDX
                | D::PayloadNodeNameAMDX
                | D::PayloadNodeBaseIndexAMDX
                | D::PayloadNodeArraySizeAMDX
                | D::ArrayStrideIdEXT
                | D::OffsetIdEXT
                | D::CounterBuffer
                | D::AliasScopeINTEL
                | D::NoAliasINTEL
                | D::ConditionalINTEL => ID,
                D::ClobberINTEL | D::UserSemantic | D::UserTypeGOOGLE | D::MemoryALTERA => STR,
                D::MergeALTERA => &[K::LiteralString, K::LiteralString],
                D::FunctionRoundingModeINTEL => &[K::LiteralInteger, K::FPRoundingMode],
                D::FunctionDenormModeINTEL => &[K::LiteralInteger, K::FPDenormMode],
                D::FunctionFloatingPointModeINTEL => &[K::LiteralInteger, K::FPOperationMode],
                D::MMHostInterfaceReadWriteModeALTERA => &[K::AccessQualifier],
                D::HostAccessINTEL => &[K::HostAccessQualifier, K::LiteralString],
                D::InitModeALTERA => &[K::InitializationModeQualifier],
                D::CacheControlLoadINTEL => &[K::LiteralInteger, K::LoadCacheControl],
                D::CacheControlStoreINTEL => &[K::LiteralInteger, K::StoreCacheControl],
                _ => &[],
            }
        }
        _ => &[],
    }
}

/// A scalar numeric type, as far as literal widths are concerned.
#[derive(Clone, Copy, Debug, PartialEq)]
enum NumType {
    Int { width: u32, signed: bool },
    Float { width: u32 },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enumerant_names_round_trip() {
        // Values from the SPIR-V specification's enumerant tables.
        assert_eq!(
            value_enum_parse(OperandKind::ExecutionModel, "Fragment"),
            Some(Some(4))
        );
        assert_eq!(
            value_enum_parse(OperandKind::Decoration, "Location"),
            Some(Some(30))
        );
        assert_eq!(
            value_enum_parse(OperandKind::StorageClass, "Function"),
            Some(Some(7))
        );
        assert_eq!(value_enum_parse(OperandKind::Dim, "2D"), Some(Some(1)));
        assert_eq!(value_enum_parse(OperandKind::Dim, "Cube"), Some(Some(3)));
        assert_eq!(
            value_enum_name(OperandKind::Dim, 5),
            Some(Some("Buffer".into()))
        );
        assert_eq!(
            value_enum_parse(OperandKind::Capability, "Bogus"),
            Some(None)
        );
        assert_eq!(value_enum_parse(OperandKind::IdRef, "x"), None);
        assert_eq!(
            mask_bit_parse(OperandKind::ImageOperands, "ConstOffset"),
            Some(8)
        );
        assert_eq!(
            mask_bit_parse(OperandKind::LoopControl, "DontUnroll"),
            Some(2)
        );
        assert_eq!(
            mask_bit_parse(OperandKind::FPFastMathMode, "NotNaN"),
            Some(1)
        );
        assert_eq!(
            mask_bit_parse(OperandKind::FunctionControl, "None"),
            Some(0)
        );
        assert!(is_mask(OperandKind::MemoryAccess));
        assert!(!is_mask(OperandKind::Decoration));
        assert!(is_value_enum(OperandKind::Decoration));
    }

    /// Encodings worked out by hand from the SPIR-V specification (opcode numbers, word counts,
    /// enumerant values, IEEE-754 bits).
    #[test]
    fn hand_encoded_instructions() {
        let text = "%f = OpTypeFloat 32\n%d = OpTypeFloat 64\n%c = OpConstant %f 1.5\n\
                    %e = OpConstant %d -2\n%g = OpExtInstImport \"GLSL.std.450\"\n\
                    %s = OpExtInst %f %g Sqrt %c\nOpDecorate %c BuiltIn FragCoord\n\
                    OpLoopMerge %c %e Unroll|MaxIterations 9";
        let w = assemble(text, "hand").unwrap();
        let body: Vec<u32> = vec![
            0x0003_0016,
            1,
            32, // OpTypeFloat (22) %1 32
            0x0003_0016,
            2,
            64, // OpTypeFloat %2 64
            0x0004_002b,
            1,
            3,
            0x3fc0_0000, // OpConstant (43) %1 %3 1.5f
            0x0005_002b,
            2,
            4,
            0,
            0xc000_0000, // OpConstant %2 %4 -2.0 (low word first)
            0x0006_000b,
            5,
            0x4c53_4c47,
            0x6474_732e,
            0x3035_342e,
            0, // OpExtInstImport (11)
            0x0006_000c,
            1,
            6,
            5,
            31,
            3, // OpExtInst (12) %1 %6 %5 Sqrt=31 %3
            0x0004_0047,
            3,
            11,
            15, // OpDecorate (71) %3 BuiltIn=11 FragCoord=15
            0x0005_00f6,
            3,
            4,
            0x21,
            9, // OpLoopMerge (246) Unroll=1|MaxIterations=0x20, 9
        ];
        assert_eq!(&w[..5], &[0x0723_0203, 0x0001_0000, 0, 7, 0]);
        assert_eq!(&w[5..], &body[..]);
    }

    #[test]
    fn target_envs() {
        assert_eq!(target_env_version("spv1.0"), Some((1, 0)));
        assert_eq!(target_env_version("spv1.4"), Some((1, 4)));
        assert_eq!(target_env_version("vulkan1.1"), Some((1, 3)));
        assert_eq!(target_env_version("vulkan1.1spv1.4"), Some((1, 4)));
        assert_eq!(target_env_version("spv1.7"), None);
        assert_eq!(target_env_version("spv1.10"), None);
    }
}
