//! Parsing: header checks, instruction framing, grammar validation (via `rspirv`'s parser), the
//! supported-subset gate (capabilities and opcodes), and the module-level tables the lowering
//! reads (decorations, names, entry points, execution modes, functions and their blocks).
//!
//! We keep the raw words and index them ourselves: every instruction keeps its word offset, so
//! every later error can name where it happened. `rspirv` checks operand counts and kinds
//! against the SPIR-V grammar; we check the id bound and the logical layout ourselves.

use std::collections::{HashMap, HashSet};

use rspirv::binary::{Consumer, ParseAction as Action};
use rspirv::dr;
use spirv::{Capability, Op};

use crate::{Error, Result};

pub(crate) const MAGIC: u32 = 0x0723_0203;

/// One instruction's position in the word stream.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RawInst {
    pub op: u16,
    /// Word offset of the instruction's first word.
    pub off: u32,
    /// Word count including the first word.
    pub len: u32,
}

/// A view of one instruction: opcode, offset, operand words (after the first word).
#[derive(Clone, Copy)]
pub(crate) struct I<'a> {
    pub op: Op,
    pub off: u32,
    pub w: &'a [u32],
}

impl<'a> I<'a> {
    /// Operand word `i` (bounds-checked).
    pub fn w(&self, i: usize) -> Result<u32> {
        self.w
            .get(i)
            .copied()
            .ok_or_else(|| self.err(&format!("operand {i} is missing (wrong operand count)")))
    }
    /// Operand words from `i` on.
    pub fn rest(&self, i: usize) -> &'a [u32] {
        self.w.get(i..).unwrap_or(&[])
    }
    /// A literal string starting at operand `i`; returns it and the index after it.
    pub fn string(&self, i: usize) -> Result<(String, usize)> {
        let mut bytes = Vec::new();
        let mut j = i;
        loop {
            let w = self.w(j)?;
            j += 1;
            for b in w.to_le_bytes() {
                if b == 0 {
                    let s = String::from_utf8_lossy(&bytes).into_owned();
                    return Ok((s, j));
                }
                bytes.push(b);
            }
        }
    }
    pub fn err(&self, msg: &str) -> Error {
        Error::Spirv(format!("word offset {} (Op{:?}): {msg}", self.off, self.op))
    }
    pub fn unsup(&self, msg: &str) -> Error {
        Error::Unsupported(format!(
            "SPIR-V word offset {} (Op{:?}): {msg}",
            self.off, self.op
        ))
    }
}

/// A decoration (on an id or a struct member).
#[derive(Clone, Debug)]
pub(crate) struct Deco {
    pub member: Option<u32>,
    pub kind: u32,
    pub args: Vec<u32>,
}

#[derive(Clone, Debug)]
pub(crate) struct EntryDef {
    pub model: u32,
    pub func: u32,
    pub name: String,
    pub interface: Vec<u32>,
    pub off: u32,
}

#[derive(Clone, Debug)]
pub(crate) struct ModeDef {
    pub func: u32,
    pub mode: u32,
    pub args: Vec<u32>,
    pub by_id: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct BlockDef {
    pub label: u32,
    /// Instruction indices (into `Parsed::insts`) of the block body, label excluded.
    pub first: usize,
    pub end: usize,
}

#[derive(Clone, Debug)]
pub(crate) struct FuncDef {
    pub off: u32,
    pub result_ty: u32,
    pub params: Vec<(u32, u32)>,
    pub blocks: Vec<BlockDef>,
}

/// Everything the lowering needs, stage-independent.
pub(crate) struct Parsed {
    pub words: Vec<u32>,
    pub version: (u8, u8),
    pub bound: u32,
    pub insts: Vec<RawInst>,
    pub caps: Vec<Capability>,
    /// Extended instruction sets: id → is it GLSL.std.450 (false: a NonSemantic set, ignored).
    pub ext_sets: HashMap<u32, bool>,
    pub entries: Vec<EntryDef>,
    pub modes: Vec<ModeDef>,
    pub names: HashMap<u32, String>,
    pub decos: HashMap<u32, Vec<Deco>>,
    /// Indices of global instructions (types, constants, global variables, undefs) in order.
    pub globals: Vec<usize>,
    pub funcs: HashMap<u32, FuncDef>,
    /// Result id → result type id of the instructions that can yield a pointer (the stride of
    /// `OpPtrAccessChain` / `OpPtrDiff` is a decoration of their operand's pointer type).
    pub result_types: HashMap<u32, u32>,
}

impl Parsed {
    pub fn inst(&self, idx: usize) -> I<'_> {
        view(&self.words, self.insts[idx])
    }

    /// Decorations of `id` (not of its members).
    pub fn deco(&self, id: u32, kind: spirv::Decoration) -> Option<&[u32]> {
        self.decos.get(&id).and_then(|v| {
            v.iter()
                .find(|d| d.member.is_none() && d.kind == kind as u32)
                .map(|d| d.args.as_slice())
        })
    }
    pub fn member_deco(&self, id: u32, member: u32, kind: spirv::Decoration) -> Option<&[u32]> {
        self.decos.get(&id).and_then(|v| {
            v.iter()
                .find(|d| d.member == Some(member) && d.kind == kind as u32)
                .map(|d| d.args.as_slice())
        })
    }
}

fn view(words: &[u32], r: RawInst) -> I<'_> {
    let start = (r.off + 1) as usize;
    let end = (r.off + r.len) as usize;
    I {
        op: Op::from_u32(r.op as u32).unwrap_or(Op::Nop),
        off: r.off,
        w: &words[start..end],
    }
}

impl Parsed {
    /// Ids (and literal words) mentioned by the functions reachable from `entry`.
    pub fn used_ids(&self, entry: u32) -> HashSet<u32> {
        let mut used = HashSet::new();
        let mut todo = vec![entry];
        let mut seen = HashSet::new();
        while let Some(f) = todo.pop() {
            if !seen.insert(f) {
                continue;
            }
            let Some(def) = self.funcs.get(&f) else {
                continue;
            };
            for b in &def.blocks {
                for idx in b.first..b.end {
                    let i = self.inst(idx);
                    if i.op == Op::FunctionCall {
                        if let Ok(callee) = i.w(2) {
                            todo.push(callee);
                        }
                    }
                    used.extend(i.w.iter().copied());
                }
            }
        }
        used
    }
}

/// Checks the header and frames the instructions; returns (version, bound, insts).
fn frame(words: &[u32]) -> Result<((u8, u8), u32, Vec<RawInst>)> {
    if words.len() < 5 {
        return Err(Error::Spirv(format!(
            "word offset 0: truncated header ({} words, a module header needs 5)",
            words.len()
        )));
    }
    if words[0] != MAGIC {
        return Err(Error::Spirv(format!(
            "word offset 0: bad magic number {:#010x} (expected {MAGIC:#010x})",
            words[0]
        )));
    }
    let major = ((words[1] >> 16) & 0xff) as u8;
    let minor = ((words[1] >> 8) & 0xff) as u8;
    if major != 1 || minor > 6 {
        return Err(Error::Unsupported(format!(
            "SPIR-V word offset 1: version {major}.{minor} (1.0 to 1.6 are supported)"
        )));
    }
    let bound = words[3];
    if bound == 0 || bound > 1 << 22 {
        return Err(Error::Spirv(format!(
            "word offset 3: id bound {bound} is out of range (1..=4194304)"
        )));
    }
    let mut insts = Vec::new();
    let mut off = 5usize;
    while off < words.len() {
        let first = words[off];
        let len = (first >> 16) as usize;
        let op = (first & 0xffff) as u16;
        if len == 0 {
            return Err(Error::Spirv(format!(
                "word offset {off}: instruction word count is 0"
            )));
        }
        if off + len > words.len() {
            return Err(Error::Spirv(format!(
                "word offset {off}: instruction (opcode {op}) has {len} words but only {} remain (truncated module)",
                words.len() - off
            )));
        }
        insts.push(RawInst {
            op,
            off: off as u32,
            len: len as u32,
        });
        off += len;
    }
    Ok(((major, minor), bound, insts))
}

/// Checks ids against the bound as rspirv decodes each instruction.
struct BoundCheck<'a> {
    bound: u32,
    insts: &'a [RawInst],
    index: usize,
    error: Option<String>,
}

impl Consumer for BoundCheck<'_> {
    fn initialize(&mut self) -> Action {
        Action::Continue
    }
    fn finalize(&mut self) -> Action {
        Action::Continue
    }
    fn consume_header(&mut self, _: dr::ModuleHeader) -> Action {
        Action::Continue
    }
    fn consume_instruction(&mut self, inst: dr::Instruction) -> Action {
        let off = self.insts.get(self.index).map(|r| r.off).unwrap_or(0);
        self.index += 1;
        let mut ids: Vec<u32> = inst.result_type.into_iter().chain(inst.result_id).collect();
        for o in &inst.operands {
            match o {
                dr::Operand::IdRef(v)
                | dr::Operand::IdScope(v)
                | dr::Operand::IdMemorySemantics(v) => ids.push(*v),
                _ => {}
            }
        }
        for id in ids {
            if id == 0 || id >= self.bound {
                self.error = Some(format!(
                    "word offset {off} (Op{:?}): id {id} is out of bounds (bound {})",
                    inst.class.opcode, self.bound
                ));
                return Action::Stop;
            }
        }
        Action::Continue
    }
}

fn rspirv_error(e: rspirv::binary::ParseState, insts: &[RawInst]) -> Error {
    use rspirv::binary::ParseState as S;
    // Name the instruction containing the byte offset rspirv reports.
    let at = |byte: usize| {
        let w = (byte / 4) as u32;
        let k = insts.partition_point(|r| r.off <= w);
        if k == 0 {
            w
        } else {
            insts[k - 1].off
        }
    };
    match e {
        S::WordCountZero(b, _) => Error::Spirv(format!("word offset {}: word count 0", at(b))),
        S::OpcodeUnknown(b, _, op) => {
            Error::Spirv(format!("word offset {}: unknown opcode {op}", at(b)))
        }
        S::OperandExpected(b, _) => Error::Spirv(format!(
            "word offset {}: wrong operand count (more operands expected by the grammar)",
            at(b.saturating_sub(1))
        )),
        S::OperandExceeded(b, _) => Error::Spirv(format!(
            "word offset {}: wrong operand count (more operands than the grammar allows)",
            at(b.saturating_sub(1))
        )),
        S::TypeUnsupported(b, _) => Error::Spirv(format!(
            "word offset {}: constant of a type that does not exist or is not numeric",
            at(b)
        )),
        S::SpecConstantOpIntegerIncorrect(b, _) => Error::Spirv(format!(
            "word offset {}: bad OpSpecConstantOp opcode",
            at(b)
        )),
        other => Error::Spirv(format!("malformed module: {other}")),
    }
}

/// Capabilities quadstep implements.
fn cap_supported(c: Capability) -> bool {
    use Capability as C;
    matches!(
        c,
        C::Shader
            | C::Matrix
            | C::Float16
            | C::Float64
            | C::Int64
            | C::Int16
            | C::Int8
            | C::StorageBuffer16BitAccess
            | C::UniformAndStorageBuffer16BitAccess
            | C::StoragePushConstant16
            | C::StorageInputOutput16
            | C::StorageBuffer8BitAccess
            | C::UniformAndStorageBuffer8BitAccess
            | C::StoragePushConstant8
            | C::Int64Atomics
            | C::ImageQuery
            | C::DerivativeControl
            | C::SampledCubeArray
            | C::ImageCubeArray
            | C::Sampled1D
            | C::Image1D
            | C::SampledBuffer
            | C::ImageBuffer
            | C::MinLod
            | C::ImageGatherExtended
            | C::StorageImageExtendedFormats
            | C::StorageImageReadWithoutFormat
            | C::StorageImageWriteWithoutFormat
            | C::GroupNonUniform
            | C::GroupNonUniformVote
            | C::GroupNonUniformArithmetic
            | C::GroupNonUniformBallot
            | C::GroupNonUniformShuffle
            | C::GroupNonUniformShuffleRelative
            | C::GroupNonUniformClustered
            | C::GroupNonUniformQuad
            | C::DemoteToHelperInvocation
            | C::ComputeDerivativeGroupQuadsKHR
            | C::ComputeDerivativeGroupLinearKHR
            | C::DrawParameters
            | C::SampleRateShading
            | C::InterpolationFunction
            | C::Tessellation
            | C::TessellationPointSize
            | C::GeometryPointSize
            | C::GeometryStreams
            | C::MultiViewport
            | C::ClipDistance
            | C::CullDistance
            | C::ImageMSArray
            | C::StorageImageMultisample
            | C::SampledImageArrayDynamicIndexing
            | C::StorageImageArrayDynamicIndexing
            | C::UniformBufferArrayDynamicIndexing
            | C::StorageBufferArrayDynamicIndexing
            | C::ShaderNonUniform
            | C::RuntimeDescriptorArray
            | C::VulkanMemoryModel
            | C::VulkanMemoryModelDeviceScope
            | C::Linkage
            | C::Geometry
            | C::ShaderLayer
            | C::ShaderViewportIndex
            | C::UniformTexelBufferArrayDynamicIndexing
            | C::StorageTexelBufferArrayDynamicIndexing
            | C::UniformBufferArrayNonUniformIndexing
            | C::SampledImageArrayNonUniformIndexing
            | C::StorageBufferArrayNonUniformIndexing
            | C::StorageImageArrayNonUniformIndexing
            | C::UniformTexelBufferArrayNonUniformIndexing
            | C::StorageTexelBufferArrayNonUniformIndexing
            | C::QuadControlKHR
            | C::WorkgroupMemoryExplicitLayoutKHR
            | C::VariablePointersStorageBuffer
            | C::VariablePointers
            // Float arithmetic is IEEE 754 without flush-to-zero or fast-math folds, so signed
            // zeros, infinities, NaNs and denormals are already preserved (the execution modes
            // need nothing).
            | C::SignedZeroInfNanPreserve
            | C::DenormPreserve
    )
}

/// Opcodes whose result can be a pointer (all have a result type and a result id).
fn yields_pointer(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        Variable
            | AccessChain
            | InBoundsAccessChain
            | PtrAccessChain
            | InBoundsPtrAccessChain
            | FunctionParameter
            | FunctionCall
            | Phi
            | Select
            | Load
            | CopyObject
            | ConstantNull
            | Undef
    )
}

/// Opcodes the lowering handles (plus module-level ones it reads or ignores).
fn op_supported(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        Nop | Undef
            | SourceContinued
            | Source
            | SourceExtension
            | Name
            | MemberName
            | String
            | Line
            | NoLine
            | ModuleProcessed
            | Extension
            | ExtInstImport
            | ExtInst
            | MemoryModel
            | EntryPoint
            | ExecutionMode
            | ExecutionModeId
            | Capability
            | Decorate
            | MemberDecorate
            | DecorateId
            | DecorateString
            | MemberDecorateString
            | DecorationGroup
            | GroupDecorate
            | GroupMemberDecorate
            | TypeVoid
            | TypeBool
            | TypeInt
            | TypeFloat
            | TypeVector
            | TypeMatrix
            | TypeImage
            | TypeSampler
            | TypeSampledImage
            | TypeArray
            | TypeRuntimeArray
            | TypeStruct
            | TypePointer
            | TypeFunction
            | ConstantTrue
            | ConstantFalse
            | Constant
            | ConstantComposite
            | ConstantNull
            | SpecConstantTrue
            | SpecConstantFalse
            | SpecConstant
            | SpecConstantComposite
            | SpecConstantOp
            | Function
            | FunctionParameter
            | FunctionEnd
            | FunctionCall
            | Variable
            | Load
            | Store
            | CopyMemory
            | AccessChain
            | InBoundsAccessChain
            | ArrayLength
            | PtrEqual
            | PtrNotEqual
            | PtrDiff
            | PtrAccessChain
            | InBoundsPtrAccessChain
            | VectorExtractDynamic
            | VectorInsertDynamic
            | VectorShuffle
            | CompositeConstruct
            | CompositeExtract
            | CompositeInsert
            | CopyObject
            | Transpose
            | CopyLogical
            | SampledImage
            | ImageSampleImplicitLod
            | ImageSampleExplicitLod
            | ImageSampleDrefImplicitLod
            | ImageSampleDrefExplicitLod
            | ImageSampleProjImplicitLod
            | ImageSampleProjExplicitLod
            | ImageSampleProjDrefImplicitLod
            | ImageSampleProjDrefExplicitLod
            | ImageFetch
            | ImageGather
            | ImageDrefGather
            | ImageRead
            | ImageWrite
            | ImageTexelPointer
            | EmitVertex
            | EndPrimitive
            | EmitStreamVertex
            | EndStreamPrimitive
            | Image
            | ImageQuerySizeLod
            | ImageQuerySize
            | ImageQueryLod
            | ImageQueryLevels
            | ImageQuerySamples
            | ConvertFToU
            | ConvertFToS
            | ConvertSToF
            | ConvertUToF
            | UConvert
            | SConvert
            | FConvert
            | QuantizeToF16
            | Bitcast
            | SNegate
            | FNegate
            | IAdd
            | FAdd
            | ISub
            | FSub
            | IMul
            | FMul
            | UDiv
            | SDiv
            | FDiv
            | UMod
            | SRem
            | SMod
            | FRem
            | FMod
            | VectorTimesScalar
            | MatrixTimesScalar
            | VectorTimesMatrix
            | MatrixTimesVector
            | MatrixTimesMatrix
            | OuterProduct
            | Dot
            | IAddCarry
            | ISubBorrow
            | UMulExtended
            | SMulExtended
            | Any
            | All
            | IsNan
            | IsInf
            | LogicalEqual
            | LogicalNotEqual
            | LogicalOr
            | LogicalAnd
            | LogicalNot
            | Select
            | IEqual
            | INotEqual
            | UGreaterThan
            | SGreaterThan
            | UGreaterThanEqual
            | SGreaterThanEqual
            | ULessThan
            | SLessThan
            | ULessThanEqual
            | SLessThanEqual
            | FOrdEqual
            | FUnordEqual
            | FOrdNotEqual
            | FUnordNotEqual
            | FOrdLessThan
            | FUnordLessThan
            | FOrdGreaterThan
            | FUnordGreaterThan
            | FOrdLessThanEqual
            | FUnordLessThanEqual
            | FOrdGreaterThanEqual
            | FUnordGreaterThanEqual
            | Ordered
            | Unordered
            | ShiftRightLogical
            | ShiftRightArithmetic
            | ShiftLeftLogical
            | BitwiseOr
            | BitwiseXor
            | BitwiseAnd
            | Not
            | BitFieldInsert
            | BitFieldSExtract
            | BitFieldUExtract
            | BitReverse
            | BitCount
            | DPdx
            | DPdy
            | Fwidth
            | DPdxFine
            | DPdyFine
            | FwidthFine
            | DPdxCoarse
            | DPdyCoarse
            | FwidthCoarse
            | ControlBarrier
            | MemoryBarrier
            | AtomicLoad
            | AtomicStore
            | AtomicExchange
            | AtomicCompareExchange
            | AtomicIIncrement
            | AtomicIDecrement
            | AtomicIAdd
            | AtomicISub
            | AtomicSMin
            | AtomicUMin
            | AtomicSMax
            | AtomicUMax
            | AtomicAnd
            | AtomicOr
            | AtomicXor
            | Phi
            | LoopMerge
            | SelectionMerge
            | Label
            | Branch
            | BranchConditional
            | Switch
            | Kill
            | Return
            | ReturnValue
            | Unreachable
            | TerminateInvocation
            | DemoteToHelperInvocation
            | IsHelperInvocationEXT
            | GroupNonUniformElect
            | GroupNonUniformAll
            | GroupNonUniformAny
            | GroupNonUniformAllEqual
            | GroupNonUniformBroadcast
            | GroupNonUniformBroadcastFirst
            | GroupNonUniformBallot
            | GroupNonUniformInverseBallot
            | GroupNonUniformBallotBitExtract
            | GroupNonUniformBallotBitCount
            | GroupNonUniformBallotFindLSB
            | GroupNonUniformBallotFindMSB
            | GroupNonUniformShuffle
            | GroupNonUniformShuffleXor
            | GroupNonUniformShuffleUp
            | GroupNonUniformShuffleDown
            | GroupNonUniformIAdd
            | GroupNonUniformFAdd
            | GroupNonUniformIMul
            | GroupNonUniformFMul
            | GroupNonUniformSMin
            | GroupNonUniformUMin
            | GroupNonUniformFMin
            | GroupNonUniformSMax
            | GroupNonUniformUMax
            | GroupNonUniformFMax
            | GroupNonUniformBitwiseAnd
            | GroupNonUniformBitwiseOr
            | GroupNonUniformBitwiseXor
            | GroupNonUniformLogicalAnd
            | GroupNonUniformLogicalOr
            | GroupNonUniformLogicalXor
            | GroupNonUniformQuadBroadcast
            | GroupNonUniformQuadSwap
            | GroupNonUniformQuadAllKHR
            | GroupNonUniformQuadAnyKHR
    )
}

/// Opcodes `OpSpecConstantOp` may wrap in shaders (SPIR-V spec, OpSpecConstantOp).
fn spec_op_allowed(op: u32) -> bool {
    use Op::*;
    Op::from_u32(op).is_some_and(|o| {
        matches!(
            o,
            SConvert
                | UConvert
                | FConvert
                | SNegate
                | Not
                | IAdd
                | ISub
                | IMul
                | UDiv
                | SDiv
                | UMod
                | SRem
                | SMod
                | ShiftRightLogical
                | ShiftRightArithmetic
                | ShiftLeftLogical
                | BitwiseOr
                | BitwiseXor
                | BitwiseAnd
                | VectorShuffle
                | CompositeExtract
                | CompositeInsert
                | LogicalOr
                | LogicalAnd
                | LogicalNot
                | LogicalEqual
                | LogicalNotEqual
                | Select
                | IEqual
                | INotEqual
                | ULessThan
                | SLessThan
                | UGreaterThan
                | SGreaterThan
                | ULessThanEqual
                | SLessThanEqual
                | UGreaterThanEqual
                | SGreaterThanEqual
                | QuantizeToF16
        )
    })
}

/// Parses and validates a module given as words (already in host order).
pub(crate) fn parse(words: &[u32]) -> Result<Parsed> {
    let (version, bound, insts) = frame(words)?;
    // rspirv's parser panics on OpSpecConstantOp wrapping opcodes with context-dependent
    // operands (OpConstant, OpSwitch, nested OpSpecConstantOp): reject those first.
    for r in &insts {
        if r.op == Op::SpecConstantOp as u16 && r.len >= 4 {
            let inner = words[r.off as usize + 3];
            if !spec_op_allowed(inner) {
                return Err(Error::Spirv(format!(
                    "word offset {}: OpSpecConstantOp may not wrap opcode {inner} in a shader",
                    r.off
                )));
            }
        }
    }
    // Grammar validation and id-bound check, instruction by instruction.
    let mut check = BoundCheck {
        bound,
        insts: &insts,
        index: 0,
        error: None,
    };
    if let Err(e) = rspirv::binary::parse_words(words, &mut check) {
        if let Some(msg) = check.error.take() {
            return Err(Error::Spirv(msg));
        }
        return Err(rspirv_error(e, &insts));
    }
    if let Some(msg) = check.error {
        return Err(Error::Spirv(msg));
    }
    let mut p = Parsed {
        words: words.to_vec(),
        version,
        bound,
        insts,
        caps: Vec::new(),
        ext_sets: HashMap::new(),
        entries: Vec::new(),
        modes: Vec::new(),
        names: HashMap::new(),
        decos: HashMap::new(),
        globals: Vec::new(),
        funcs: HashMap::new(),
        result_types: HashMap::new(),
    };
    let mut groups: HashMap<u32, Vec<Deco>> = HashMap::new();
    let mut cur_func: Option<(u32, FuncDef)> = None;
    let mut cur_block: Option<BlockDef> = None;
    for idx in 0..p.insts.len() {
        let i = view(words, p.insts[idx]);
        let raw_op = p.insts[idx].op;
        if Op::from_u32(raw_op as u32).is_none() {
            return Err(Error::Spirv(format!(
                "word offset {}: unknown opcode {raw_op}",
                i.off
            )));
        }
        if !op_supported(i.op) {
            return Err(i.unsup("opcode is not supported"));
        }
        if yields_pointer(i.op) {
            p.result_types.insert(i.w(1)?, i.w(0)?);
        }
        match i.op {
            Op::Capability => {
                let c = i.w(0)?;
                let cap = Capability::from_u32(c)
                    .ok_or_else(|| i.err(&format!("unknown capability {c}")))?;
                if !cap_supported(cap) {
                    return Err(i.unsup(&format!("capability {cap:?} is not supported")));
                }
                p.caps.push(cap);
            }
            Op::ExtInstImport => {
                let (name, _) = i.string(1)?;
                let glsl = name == "GLSL.std.450";
                if !glsl && !name.starts_with("NonSemantic.") {
                    return Err(i.unsup(&format!("extended instruction set {name:?}")));
                }
                p.ext_sets.insert(i.w(0)?, glsl);
            }
            Op::EntryPoint => {
                let (name, next) = i.string(2)?;
                p.entries.push(EntryDef {
                    model: i.w(0)?,
                    func: i.w(1)?,
                    name,
                    interface: i.rest(next).to_vec(),
                    off: i.off,
                });
            }
            Op::ExecutionMode | Op::ExecutionModeId => p.modes.push(ModeDef {
                func: i.w(0)?,
                mode: i.w(1)?,
                args: i.rest(2).to_vec(),
                by_id: i.op == Op::ExecutionModeId,
            }),
            Op::Name => {
                let (s, _) = i.string(1)?;
                p.names.insert(i.w(0)?, s);
            }
            Op::Decorate | Op::DecorateId | Op::DecorateString => {
                let d = Deco {
                    member: None,
                    kind: i.w(1)?,
                    args: i.rest(2).to_vec(),
                };
                p.decos.entry(i.w(0)?).or_default().push(d);
            }
            Op::MemberDecorate | Op::MemberDecorateString => {
                let d = Deco {
                    member: Some(i.w(1)?),
                    kind: i.w(2)?,
                    args: i.rest(3).to_vec(),
                };
                p.decos.entry(i.w(0)?).or_default().push(d);
            }
            Op::DecorationGroup => {
                let g = i.w(0)?;
                let ds = p.decos.remove(&g).unwrap_or_default();
                groups.insert(g, ds);
            }
            Op::GroupDecorate => {
                let g = groups
                    .get(&i.w(0)?)
                    .cloned()
                    .ok_or_else(|| i.err("decoration group is not an OpDecorationGroup"))?;
                for &t in i.rest(1) {
                    p.decos.entry(t).or_default().extend(g.iter().cloned());
                }
            }
            Op::GroupMemberDecorate => {
                let g = groups
                    .get(&i.w(0)?)
                    .cloned()
                    .ok_or_else(|| i.err("decoration group is not an OpDecorationGroup"))?;
                for pair in i.rest(1).chunks(2) {
                    if let [t, m] = pair {
                        for d in &g {
                            let mut d = d.clone();
                            d.member = Some(*m);
                            p.decos.entry(*t).or_default().push(d);
                        }
                    }
                }
            }
            Op::Function => {
                if cur_func.is_some() {
                    return Err(i.err("nested OpFunction"));
                }
                cur_func = Some((
                    i.w(1)?,
                    FuncDef {
                        off: i.off,
                        result_ty: i.w(0)?,
                        params: Vec::new(),
                        blocks: Vec::new(),
                    },
                ));
            }
            Op::FunctionParameter => match &mut cur_func {
                Some((_, f)) if f.blocks.is_empty() => f.params.push((i.w(0)?, i.w(1)?)),
                _ => return Err(i.err("OpFunctionParameter outside a function header")),
            },
            Op::Label => {
                if cur_func.is_none() || cur_block.is_some() {
                    return Err(i.err("OpLabel outside a function or inside an open block"));
                }
                cur_block = Some(BlockDef {
                    label: i.w(0)?,
                    first: idx + 1,
                    end: idx + 1,
                });
            }
            Op::FunctionEnd => {
                if cur_block.is_some() {
                    return Err(i.err("OpFunctionEnd inside an unterminated block"));
                }
                let (id, f) = cur_func
                    .take()
                    .ok_or_else(|| i.err("OpFunctionEnd without OpFunction"))?;
                if p.funcs.insert(id, f).is_some() {
                    return Err(i.err(&format!("function %{id} defined twice")));
                }
            }
            _ => {
                if let Some(b) = &mut cur_block {
                    if is_terminator(i.op) {
                        b.end = idx + 1;
                        let b = cur_block.take().unwrap_or_else(|| unreachable!());
                        if let Some((_, f)) = &mut cur_func {
                            f.blocks.push(b);
                        }
                    }
                } else if cur_func.is_some() && !matches!(i.op, Op::Line | Op::NoLine) {
                    // (debug lines may stand between blocks: glslang -g puts OpNoLine there)
                    return Err(i.err("instruction inside a function but outside a block"));
                } else if is_global(i.op) {
                    p.globals.push(idx);
                }
            }
        }
    }
    if cur_func.is_some() || cur_block.is_some() {
        return Err(Error::Spirv(format!(
            "word offset {}: unterminated function at end of module",
            words.len()
        )));
    }
    Ok(p)
}

pub(crate) fn is_terminator(op: Op) -> bool {
    matches!(
        op,
        Op::Branch
            | Op::BranchConditional
            | Op::Switch
            | Op::Kill
            | Op::Return
            | Op::ReturnValue
            | Op::Unreachable
            | Op::TerminateInvocation
    )
}

fn is_global(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        TypeVoid
            | TypeBool
            | TypeInt
            | TypeFloat
            | TypeVector
            | TypeMatrix
            | TypeImage
            | TypeSampler
            | TypeSampledImage
            | TypeArray
            | TypeRuntimeArray
            | TypeStruct
            | TypePointer
            | TypeFunction
            | ConstantTrue
            | ConstantFalse
            | Constant
            | ConstantComposite
            | ConstantNull
            | SpecConstantTrue
            | SpecConstantFalse
            | SpecConstant
            | SpecConstantComposite
            | SpecConstantOp
            | Variable
            | Undef
    )
}
