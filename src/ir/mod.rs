//! The one small IR that every front end lowers into and the interpreter runs.
//!
//! Principles (see ARCHITECTURE.md):
//! - **Scalarised.** A register holds one scalar per lane. SPIR-V vectors, matrices and structs are
//!   split into components by the front end; DXIL is scalar already. The interpreter therefore has
//!   one loop shape, `dst[lane] = op(a[lane], b[lane])`, over a whole batch of lanes.
//! - **Typed, pre-resolved.** Every register has a fixed [`ScalarTy`]; every instruction names the
//!   type it operates on. Constants are registers initialised once per shader ([`Function::consts`]).
//!   There are no ids, names or type trees left at run time.
//! - **One function.** Calls are inlined by the front end (shaders cannot recurse), so the
//!   interpreter never keeps a call stack; a callee's `return` becomes a jump to its continuation.
//! - **A CFG, not a tree.** Blocks end in a [`Terminator`]; `OpPhi` is lowered to copies on edges.
//!   Reconvergence is the interpreter's business and is derived from the CFG alone, so the same IR
//!   serves structured SPIR-V and unstructured DXIL.
//! - **Memory is explicit.** Per-lane memory (Function, Private, Input, Output variables) is an
//!   array of 32-bit words per lane; buffers are byte-addressed with the layout the shader
//!   declares; workgroup memory is words shared by the lanes of a workgroup. Access chains become
//!   integer address arithmetic in ordinary registers.
//!
//! Register encoding (the contract between front ends and the interpreter):
//! - `Bool`: 0 or 1 in a 32-bit slot.
//! - `I8`/`I16`: the bits zero-extended in a 32-bit slot (ops re-canonicalise their result).
//! - `I32`, `F32`: the 32 bits. `F16`: the half-float bits zero-extended in a 32-bit slot.
//! - `I64`, `F64`: 64 bits.
//!
//! Integer types are signless, like SPIR-V's operations: signedness lives in the op (`SDiv` vs
//! `UDiv`), not in the type.

pub mod opt;
mod print;
mod source;
mod verify;

pub use print::{print_function, print_function_with, print_inst};
pub use source::{OffsetUnit, SourceFile, SourceMap, NO_FILE};
pub use verify::verify;

/// A virtual register: one scalar per lane. Index into [`Function::regs`].
pub type Reg = u32;
/// A basic block. Index into [`Function::blocks`].
pub type BlockId = u32;

/// The scalar types a register can hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarTy {
    Bool,
    I8,
    I16,
    I32,
    I64,
    F16,
    F32,
    F64,
}

impl ScalarTy {
    /// Width in bits of the value (Bool counts as 32: it occupies a word in memory).
    pub fn bits(self) -> u32 {
        match self {
            ScalarTy::I8 => 8,
            ScalarTy::I16 | ScalarTy::F16 => 16,
            ScalarTy::Bool | ScalarTy::I32 | ScalarTy::F32 => 32,
            ScalarTy::I64 | ScalarTy::F64 => 64,
        }
    }
    /// Whether the register lives in the 64-bit register file.
    pub fn is_wide(self) -> bool {
        self.bits() == 64
    }
    pub fn is_float(self) -> bool {
        matches!(self, ScalarTy::F16 | ScalarTy::F32 | ScalarTy::F64)
    }
    pub fn is_int(self) -> bool {
        matches!(
            self,
            ScalarTy::I8 | ScalarTy::I16 | ScalarTy::I32 | ScalarTy::I64
        )
    }
}

/// A constant value as the register encoding above defines it (raw bits, zero-extended).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Const {
    pub ty: ScalarTy,
    pub bits: u64,
}

/// Unary operations. The operand and result have the instruction's `ty`, except where noted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// Plain copy.
    Mov,
    FNeg,
    SNeg,
    /// Bitwise not (ints).
    Not,
    LogicalNot,
    FAbs,
    SAbs,
    FSign,
    SSign,
    Floor,
    Ceil,
    Trunc,
    /// Round half away from zero (GLSL `Round`, a permitted choice).
    Round,
    RoundEven,
    Fract,
    Sqrt,
    InverseSqrt,
    Exp,
    Exp2,
    Log,
    Log2,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Asinh,
    Acosh,
    Atanh,
    Radians,
    Degrees,
    BitReverse,
    /// Result is I32 whatever the operand width.
    BitCount,
    /// Result I32; -1 when no bit is set.
    FindILsb,
    FindSMsb,
    FindUMsb,
    /// Result Bool.
    IsNan,
    /// Result Bool.
    IsInf,
    /// `frexp` significand (GLSL Frexp first result), and exponent (I32 result).
    FrexpMant,
    FrexpExp,
    /// Component `c` of `UnpackHalf2x16(a)` and friends (F32 results, I32 operand): one
    /// instruction per component of the vector result.
    UnpackHalf2x16(u8),
    UnpackUnorm2x16(u8),
    UnpackSnorm2x16(u8),
    UnpackUnorm4x8(u8),
    UnpackSnorm4x8(u8),
    /// Low / high 32 bits of a 64-bit value (operand `ty` is I64 or F64; result I32).
    Lo32,
    Hi32,
}

/// Binary operations. Operands have the instruction's `ty`; comparisons yield `Bool`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    FAdd,
    FSub,
    FMul,
    FDiv,
    /// Sign of the result follows the dividend (SPIR-V `OpFRem`).
    FRem,
    /// Sign of the result follows the divisor (SPIR-V `OpFMod`, GLSL `mod`).
    FMod,
    IAdd,
    ISub,
    IMul,
    SDiv,
    UDiv,
    SRem,
    SMod,
    UMod,
    /// High half of the full-width product (for `OpUMulExtended`/`OpSMulExtended`).
    UMulHi,
    SMulHi,
    /// Carry out of `a + b` (0/1 in `ty`), for `OpIAddCarry`.
    AddCarry,
    /// Borrow of `a - b` (0/1 in `ty`), for `OpISubBorrow`.
    SubBorrow,
    /// Shift amount is taken modulo nothing: amounts >= width give 0 (logical) or sign fill
    /// (arithmetic); SPIR-V leaves them undefined, this is our documented choice.
    Shl,
    ShrL,
    ShrA,
    And,
    Or,
    Xor,
    LogicalAnd,
    LogicalOr,
    LogicalEqual,
    LogicalNotEqual,
    /// GLSL FMin/FMax: if one operand is NaN, the other is returned (IEEE minNum).
    FMin,
    FMax,
    /// NMin/NMax: NaN-avoiding, same as FMin/FMax in our implementation.
    NMin,
    NMax,
    SMin,
    SMax,
    UMin,
    UMax,
    Pow,
    Atan2,
    /// `b < a ? 0 : 1` (GLSL step(edge = a, x = b)).
    Step,
    /// a * 2^b, b is I32.
    Ldexp,
    /// Join two I32 halves (a = low, b = high) into `ty` (I64 or F64).
    Join64,
    PackHalf2x16,
    PackUnorm2x16,
    PackSnorm2x16,
    // Comparisons: result Bool.
    FOrdEq,
    FOrdNe,
    FOrdLt,
    FOrdGt,
    FOrdLe,
    FOrdGe,
    FUnordEq,
    FUnordNe,
    FUnordLt,
    FUnordGt,
    FUnordLe,
    FUnordGe,
    /// Both ordered (neither NaN).
    Ordered,
    Unordered,
    IEq,
    INe,
    SLt,
    SGt,
    SLe,
    SGe,
    ULt,
    UGt,
    ULe,
    UGe,
}

impl BinaryOp {
    /// Whether the result is `Bool` rather than the operand type.
    pub fn is_comparison(self) -> bool {
        use BinaryOp::*;
        matches!(
            self,
            FOrdEq
                | FOrdNe
                | FOrdLt
                | FOrdGt
                | FOrdLe
                | FOrdGe
                | FUnordEq
                | FUnordNe
                | FUnordLt
                | FUnordGt
                | FUnordLe
                | FUnordGe
                | Ordered
                | Unordered
                | IEq
                | INe
                | SLt
                | SGt
                | SLe
                | SGe
                | ULt
                | UGt
                | ULe
                | UGe
                | LogicalEqual
                | LogicalNotEqual
        )
    }
}

/// Three-operand operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TernaryOp {
    /// a * b + c (single rounding).
    Fma,
    FClamp,
    NClamp,
    SClamp,
    UClamp,
    /// a * (1 - c) + b * c.
    FMix,
    /// smoothstep(edge0 = a, edge1 = b, x = c).
    SmoothStep,
    /// `a ? b : c`; `a` is Bool, `ty` is the type of b and c.
    Select,
    /// BitFieldSExtract(base = a, offset = b, count = c); offset and count are I32.
    BitFieldSExtract,
    BitFieldUExtract,
}

/// Numeric conversions. `from` is the operand type, the instruction's `to` the result type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConvOp {
    /// Float to signed int, truncating; out of range saturates, NaN gives 0 (documented choice).
    FToS,
    FToU,
    SToF,
    UToF,
    /// Zero-extend or truncate.
    UConvert,
    /// Sign-extend or truncate.
    SConvert,
    /// Float to float of another width (round to nearest even).
    FConvert,
    /// Reinterpret bits; widths must match.
    Bitcast,
}

/// Direction of a derivative.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Axis {
    X,
    Y,
}

/// Derivative flavour (sampling.md §3.2). `Coarse` uses lane 0's fine values for the whole quad.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DerivKind {
    Fine,
    Coarse,
}

/// The operation of a subgroup reduction or scan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GroupArith {
    IAdd,
    FAdd,
    IMul,
    FMul,
    SMin,
    UMin,
    FMin,
    SMax,
    UMax,
    FMax,
    And,
    Or,
    Xor,
    LogicalAnd,
    LogicalOr,
    LogicalXor,
}

/// How a subgroup arithmetic op combines lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GroupScan {
    Reduce,
    Inclusive,
    Exclusive,
    /// Reduce within clusters of this many lanes (a power of two).
    Clustered(u32),
}

/// Subgroup operations other than arithmetic. Operands as noted; inactive lanes never contribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GroupOp {
    /// Bool: true in exactly one active lane (the lowest).
    Elect,
    /// Bool(a) over active lanes.
    All,
    Any,
    /// Bool: all active lanes hold the same `a`.
    AllEqual,
    /// `a` from lane `b` (dynamically uniform index).
    Broadcast,
    /// `a` from the lowest active lane.
    BroadcastFirst,
    /// Component `c` (0..4) of the ballot of Bool `a`: I32 bit mask of lanes 32c..32c+31.
    Ballot(u8),
    /// Bool: bit (subgroup lane id) of ballot component `a` .. given as four regs: see Inst.
    InverseBallot,
    /// `a` from lane `b` (any index).
    Shuffle,
    /// `a` from lane `id ^ b`.
    ShuffleXor,
    /// `a` from lane `id - b`.
    ShuffleUp,
    /// `a` from lane `id + b`.
    ShuffleDown,
}

/// Where a memory access goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// Per-lane words: Function, Private, Input and Output variables. Addresses are word indices.
    Local,
    /// Words shared by the lanes of one workgroup. Addresses are word indices.
    Workgroup,
    /// A buffer resource (uniform, storage, push constant): addresses are byte offsets.
    /// `slot` indexes [`Shader::resources`]; `index` is the descriptor array element (a register,
    /// or `None` for element 0).
    Buffer { slot: u32, index: Option<Reg> },
}

/// A memory address: a space and a per-lane address register (words for Local/Workgroup, bytes
/// for Buffer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ptr {
    pub space: Space,
    pub addr: Reg,
}

/// Atomic read-modify-write operations (result: the old value).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    Exchange,
    /// Compare-exchange: operand `b` is the comparator, `a` the value.
    CompareExchange,
    IAdd,
    ISub,
    SMin,
    UMin,
    SMax,
    UMax,
    And,
    Or,
    Xor,
    IIncrement,
    IDecrement,
    /// Plain atomic load / store.
    Load,
    Store,
}

/// A texture/image resource reference: a slot in [`Shader::resources`] plus the array element.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ResRef {
    pub slot: u32,
    pub index: Option<Reg>,
}

/// What an image instruction does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImageOpKind {
    /// Filtered sample (with `dref` set: depth comparison).
    Sample,
    /// Gather of one component (`component` register), or depth gather when `dref` is set.
    Gather,
    /// Texel fetch with integer coordinates (OpImageFetch).
    Fetch,
    /// Storage image read (OpImageRead).
    Read,
    /// Storage image write (OpImageWrite): `texel` holds the value.
    Write,
    /// LOD query: result 0 = clamped level, 1 = unclamped λ.
    QueryLod,
    /// Size query at `lod` (or without LOD for non-mipmapped / storage images).
    QuerySize,
    QueryLevels,
    QuerySamples,
    /// An atomic on a storage image texel (`OpImageTexelPointer` + `OpAtomic*`): `texel[0]`
    /// is the operand, `texel[1]` a compare-exchange's comparator; `dst[0]` gets the old
    /// value (32-bit integer texels).
    Atomic(AtomicOp),
}

/// How the level of detail is chosen.
#[derive(Clone, Debug, PartialEq)]
pub enum Lod {
    /// Implicit (from quad derivatives of the coordinates), with optional bias.
    Implicit { bias: Option<Reg> },
    /// Explicit LOD.
    Explicit(Reg),
    /// Explicit gradients (one register per coordinate dimension).
    Grad { dx: Vec<Reg>, dy: Vec<Reg> },
    /// No LOD applies (fetch without Lod, storage images, queries).
    None,
}

/// One image instruction with all its operands (boxed in [`Inst::Image`] to keep `Inst` small).
#[derive(Clone, Debug, PartialEq)]
pub struct ImageInst {
    pub kind: ImageOpKind,
    pub image: ResRef,
    /// Separate sampler, when the image is not a combined image sampler.
    pub sampler: Option<ResRef>,
    /// Coordinates: F32 for sampling, I32 for fetch/read/write. Array layer last.
    pub coords: Vec<Reg>,
    /// Projective divisor (the `Proj` variants): coordinates are divided by it first.
    pub proj: Option<Reg>,
    pub dref: Option<Reg>,
    pub lod: Lod,
    /// Per-lane or constant integer offset (one register per dimension).
    pub offset: Vec<Reg>,
    /// Four (u, v) offsets for `ConstOffsets` gathers.
    pub offsets4: Option<[[i32; 2]; 4]>,
    pub min_lod: Option<Reg>,
    pub sample: Option<Reg>,
    /// Gather component (I32 register).
    pub component: Option<Reg>,
    /// Texel to write (Write): four registers.
    pub texel: Vec<Reg>,
    /// Result registers (up to four components, scalar results use one).
    pub dst: Vec<Reg>,
    /// The scalar type of each result component (F32, I32...).
    pub result_ty: ScalarTy,
}

/// One pre-decoded instruction.
#[derive(Clone, Debug, PartialEq)]
pub enum Inst {
    Unary {
        op: UnaryOp,
        ty: ScalarTy,
        dst: Reg,
        a: Reg,
    },
    Binary {
        op: BinaryOp,
        ty: ScalarTy,
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    Ternary {
        op: TernaryOp,
        ty: ScalarTy,
        dst: Reg,
        a: Reg,
        b: Reg,
        c: Reg,
    },
    /// BitFieldInsert(base, insert, offset, count).
    BitFieldInsert {
        ty: ScalarTy,
        dst: Reg,
        base: Reg,
        insert: Reg,
        offset: Reg,
        count: Reg,
    },
    /// PackUnorm4x8 / PackSnorm4x8 of four F32 registers into one I32.
    Pack4x8 {
        snorm: bool,
        dst: Reg,
        src: [Reg; 4],
    },
    Convert {
        op: ConvOp,
        from: ScalarTy,
        to: ScalarTy,
        dst: Reg,
        a: Reg,
    },
    Load {
        ty: ScalarTy,
        dst: Reg,
        ptr: Ptr,
    },
    /// Stores are masked by `active & !helper` (helper lanes never store).
    Store {
        ty: ScalarTy,
        ptr: Ptr,
        src: Reg,
    },
    Atomic {
        op: AtomicOp,
        ty: ScalarTy,
        dst: Reg,
        ptr: Ptr,
        a: Reg,
        b: Reg,
    },
    /// Number of elements of the runtime array at the end of a buffer: (size - offset) / stride.
    ArrayLength {
        dst: Reg,
        slot: u32,
        index: Option<Reg>,
        offset: u32,
        stride: u32,
    },
    Deriv {
        axis: Axis,
        kind: DerivKind,
        ty: ScalarTy,
        dst: Reg,
        a: Reg,
    },
    /// `InterpolateAtCentroid` / `AtSample` / `AtOffset`: the fragment input scalar at Local
    /// word `addr` (an input variable's word) evaluated at another point of the lane's pixel
    /// (F32 result; a flat input gives its value).
    InterpolateAt {
        at: InterpAt,
        dst: Reg,
        addr: Reg,
    },
    /// Geometry `EmitVertex` / `EmitStreamVertex`: the lane's output words become a vertex of
    /// `stream`.
    Emit {
        stream: u32,
    },
    /// Geometry `EndPrimitive` / `EndStreamPrimitive`: the lane's current strip on `stream`
    /// ends.
    EndPrimitive {
        stream: u32,
    },
    /// Value of the quad lane `lane ^ (direction + 1)`: 0 = across X, 1 = across Y, 2 = diagonal.
    QuadSwap {
        direction: u8,
        ty: ScalarTy,
        dst: Reg,
        a: Reg,
    },
    /// Value of quad lane `index` (I32 register, dynamically uniform).
    QuadBroadcast {
        ty: ScalarTy,
        dst: Reg,
        a: Reg,
        index: Reg,
    },
    /// QuadAll / QuadAny (Bool).
    QuadVote {
        all: bool,
        dst: Reg,
        a: Reg,
    },
    Group {
        op: GroupOp,
        ty: ScalarTy,
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    GroupArith {
        op: GroupArith,
        scan: GroupScan,
        ty: ScalarTy,
        dst: Reg,
        a: Reg,
    },
    /// Ballot queries over a 4×I32 ballot `[a0, a1, a2, a3]`.
    BallotQuery {
        query: BallotQuery,
        dst: Reg,
        ballot: [Reg; 4],
        /// The bit index for `BitExtract`.
        b: Reg,
    },
    Image(Box<ImageInst>),
    /// Current helper state of the lane (`HelperInvocation`, `OpIsHelperInvocationEXT`).
    IsHelper {
        dst: Reg,
    },
    /// Per-lane built-in values that the interpreter, not the caller, knows.
    LaneInfo {
        what: LaneInfo,
        dst: Reg,
    },
    /// `OpDemoteToHelperInvocation` (and DXIL `discard`): the lane becomes a helper and goes on.
    Demote,
    /// Workgroup barrier (`OpControlBarrier` with Workgroup execution scope).
    Barrier,
    /// A no-op marker kept for the debugger: the source instruction (SPIR-V word offset, or
    /// DXIL instruction index) the following instructions came from.
    Source {
        offset: u32,
    },
}

/// Queries on a ballot value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BallotQuery {
    /// Bool: bit `b` set.
    BitExtract,
    /// I32: count of set bits among all lanes / lanes <= id / lanes < id.
    BitCountReduce,
    BitCountInclusive,
    BitCountExclusive,
    FindLsb,
    FindMsb,
    /// Bool: this lane's bit set.
    Inverse,
}

/// Built-ins computed by the interpreter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LaneInfo {
    /// Lane index within the subgroup (I32).
    SubgroupInvocationId,
    /// Subgroup size (I32).
    SubgroupSize,
    /// Masks of lanes (eq, ge, gt, le, lt) component c (I32).
    SubgroupEqMask(u8),
    SubgroupGeMask(u8),
    SubgroupGtMask(u8),
    SubgroupLeMask(u8),
    SubgroupLtMask(u8),
}

/// Where [`Inst::InterpolateAt`] evaluates an input, in the lane's pixel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InterpAt {
    /// The centroid of the pixel's covered samples.
    Centroid,
    /// The location of sample `index` (I32 register).
    Sample(Reg),
    /// The pixel centre plus an offset in pixels (two F32 registers, x and y).
    Offset(Reg, Reg),
}

/// How a block ends.
#[derive(Clone, Debug, PartialEq)]
pub enum Terminator {
    Jump(BlockId),
    Branch {
        cond: Reg,
        if_true: BlockId,
        if_false: BlockId,
    },
    /// `sel` is compared with each case literal (in `ty`); no match goes to `default`.
    Switch {
        ty: ScalarTy,
        sel: Reg,
        cases: Vec<(u64, BlockId)>,
        default: BlockId,
    },
    /// The entry point returns for these lanes (outputs written so far stand).
    Return,
    /// `OpKill`/`OpTerminateInvocation`: the lane's outputs are discarded. It goes on as a
    /// helper at `resume` (the merge of the innermost selection construct around the kill,
    /// the continue target of a loop body, a callee's call continuation; `None`: nowhere left
    /// to go), feeding its quad's derivatives and quad operations as lavapipe and D3D's
    /// `discard` do; with the interpreter's strict discard it stops there instead and its
    /// registers stay frozen (`exec::Discard`).
    Kill {
        resume: Option<BlockId>,
    },
    /// `OpUnreachable`: reaching it is an error.
    Unreachable,
}

impl Terminator {
    /// The blocks control may go to next, in order (a branch's true target first, a switch's
    /// cases before its default).
    pub fn successors(&self) -> Vec<BlockId> {
        match self {
            Terminator::Jump(b) => vec![*b],
            Terminator::Branch {
                if_true, if_false, ..
            } => vec![*if_true, *if_false],
            Terminator::Switch { cases, default, .. } => {
                let mut v: Vec<BlockId> = cases.iter().map(|c| c.1).collect();
                v.push(*default);
                v
            }
            Terminator::Kill { resume } => resume.iter().copied().collect(),
            Terminator::Return | Terminator::Unreachable => vec![],
        }
    }
}

/// A basic block.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub insts: Vec<Inst>,
    pub term: Terminator,
}

/// A whole (inlined) entry point body. Block 0 is the entry.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Function {
    /// Type of every register.
    pub regs: Vec<ScalarTy>,
    /// Registers initialised before the first instruction (constants, spec constants).
    pub consts: Vec<(Reg, Const)>,
    pub blocks: Vec<Block>,
}

/// Which shader stage an entry point is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    Vertex,
    Fragment,
    Compute,
    TessControl,
    TessEval,
    Geometry,
}

impl Stage {
    /// The stage as people name it: `vertex shader`, `fragment shader`…
    pub fn shader_name(self) -> &'static str {
        match self {
            Stage::Vertex => "vertex shader",
            Stage::Fragment => "fragment shader",
            Stage::Compute => "compute shader",
            Stage::TessControl => "tessellation control shader",
            Stage::TessEval => "tessellation evaluation shader",
            Stage::Geometry => "geometry shader",
        }
    }
}

/// Built-in variables the caller provides or reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BuiltIn {
    Position,
    PointSize,
    VertexIndex,
    InstanceIndex,
    FragCoord,
    FrontFacing,
    PrimitiveId,
    /// Fragment input: where the fragment sits in its point, (0, 0) to (1, 1) left to right and
    /// top to bottom; (0, 0) for lines and triangles.
    PointCoord,
    FragDepth,
    SampleId,
    SampleMask,
    /// Fragment input: the sample's location in the pixel, (0, 0) to (1, 1).
    SamplePosition,
    /// Tessellation control / geometry input: the invocation's index in its patch or
    /// primitive.
    InvocationId,
    /// Tessellation evaluation input: the point's (u, v, w) in its domain.
    TessCoord,
    /// Tessellation control output, evaluation input (per patch): 4 and 2 floats.
    TessLevelOuter,
    TessLevelInner,
    /// Tessellation input: the input patch's vertex count.
    PatchVertices,
    LocalInvocationId,
    GlobalInvocationId,
    WorkgroupId,
    NumWorkgroups,
    LocalInvocationIndex,
    WorkgroupSize,
    ClipDistance,
    CullDistance,
    Layer,
    ViewportIndex,
    BaseVertex,
    BaseInstance,
    DrawIndex,
    SubgroupId,
    NumSubgroups,
}

/// Interpolation of a fragment input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Interp {
    Smooth,
    NoPerspective,
    Flat,
}

/// Whose value an interface variable of a tessellation or geometry stage is: the
/// invocation's own (every variable of the other stages), one vertex's of a per-vertex
/// array (`in T x[]`, `gl_in[]`; the tessellation control stage's `out T x[]`, `gl_out[]`),
/// or the patch's (`Patch`-decorated variables, `TessLevelOuter` / `TessLevelInner`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum IoPer {
    #[default]
    Invocation,
    /// Element `i` of a per-vertex array: vertex `i` of the patch or primitive.
    Vertex(u32),
    Patch,
}

/// Where a fragment input is evaluated in its pixel when the framebuffer has several samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Sampling {
    /// The pixel centre (the invocation's sample under sample shading).
    #[default]
    Center,
    /// `Centroid`: inside the covered part of the pixel.
    Centroid,
    /// `Sample`: the invocation's sample (the shader runs per sample).
    Sample,
}

/// What an interface variable is bound to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IoBinding {
    Location { location: u32, component: u32 },
    BuiltIn(BuiltIn),
}

/// One scalar component of an input or output variable, at a word address in per-lane memory.
#[derive(Clone, Debug, PartialEq)]
pub struct IoVar {
    pub binding: IoBinding,
    pub ty: ScalarTy,
    /// Word address of the first scalar in per-lane memory.
    pub word: u32,
    /// Number of scalars (vector/array components laid out contiguously: component `i` at
    /// `word + i * words_per_scalar`). Arrays of vectors use consecutive locations.
    pub count: u32,
    pub interp: Interp,
    /// Fragment inputs: `Centroid` / `Sample` qualification.
    pub sampling: Sampling,
    /// Tessellation and geometry stages: per vertex, per patch or the invocation's own. (A
    /// tessellation control shader's outputs, shared by a patch's invocations, are words of
    /// workgroup memory; every other variable's words are per-lane memory.)
    pub per: IoPer,
    pub name: String,
}

/// The kind of a descriptor resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResourceKind {
    UniformBuffer,
    StorageBuffer,
    PushConstant,
    /// Sampled image with its sampler (combined image sampler).
    CombinedImageSampler,
    SampledImage,
    Sampler,
    StorageImage,
    UniformTexelBuffer,
    StorageTexelBuffer,
}

/// Image dimensionality as declared by the shader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImageDim {
    D1,
    D2,
    D3,
    Cube,
    Buffer,
    SubpassData,
}

/// A shader's image type, as the texture glue needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ImageType {
    pub dim: ImageDim,
    pub arrayed: bool,
    pub multisampled: bool,
    pub depth: bool,
    /// Sampled component type (F32, I32 with `signed`).
    pub sampled_ty: ScalarTy,
    pub signed: bool,
}

/// A descriptor the shader uses.
#[derive(Clone, Debug, PartialEq)]
pub struct Resource {
    pub kind: ResourceKind,
    pub set: u32,
    pub binding: u32,
    /// Descriptor array length (1 for a single descriptor; 0 for runtime arrays).
    pub array_len: u32,
    pub image: Option<ImageType>,
    pub name: String,
    /// The D3D register class a DXIL resource was declared in (`None` for SPIR-V). D3D's
    /// `tM`/`sM`/`bM`/`uM` in `spaceN` all sit at (`set` N, `binding` M); the class tells the
    /// descriptor sets which of several descriptors bound there by class this one reads.
    pub class: Option<RegisterClass>,
}

impl Resource {
    /// The descriptor as people name it: `set 0 binding 1 'tex'` (D3D: `set 0 binding 1
    /// (t1 space0) 'tex'`).
    pub fn describe(&self) -> String {
        let mut s = format!("set {} binding {}", self.set, self.binding);
        if let Some(c) = self.class {
            s += &format!(" ({}{} space{})", c.letter(), self.binding, self.set);
        }
        if !self.name.is_empty() {
            s += &format!(" '{}'", self.name);
        }
        s
    }
}

/// D3D's register classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegisterClass {
    /// `t`: shader resource views (textures, buffers read by the shader).
    T,
    /// `s`: samplers.
    S,
    /// `b`: constant buffers.
    B,
    /// `u`: unordered access views (read-write textures and buffers).
    U,
}

impl RegisterClass {
    /// The register letter.
    pub fn letter(self) -> char {
        match self {
            RegisterClass::T => 't',
            RegisterClass::S => 's',
            RegisterClass::B => 'b',
            RegisterClass::U => 'u',
        }
    }
}

/// A lowered entry point: everything the interpreter and the pipeline need.
#[derive(Clone, Debug, PartialEq)]
pub struct Shader {
    pub name: String,
    pub stage: Stage,
    pub body: Function,
    /// Words of per-lane memory (all Function/Private/Input/Output variables).
    pub local_words: u32,
    /// Words of workgroup memory.
    pub workgroup_words: u32,
    pub inputs: Vec<IoVar>,
    pub outputs: Vec<IoVar>,
    pub resources: Vec<Resource>,
    /// Compute workgroup size.
    pub workgroup_size: [u32; 3],
    /// Fragment: the shader writes FragDepth / may discard (disables early depth test).
    pub writes_depth: bool,
    pub can_discard: bool,
    /// Fragment: `EarlyFragmentTests` execution mode.
    pub early_fragment_tests: bool,
    /// Fragment: `OriginUpperLeft` (Vulkan requires it).
    pub origin_upper_left: bool,
    /// Compute with derivatives: quads from `DerivativeGroupQuadsKHR` / `...LinearKHR`.
    pub derivative_group: Option<DerivativeGroup>,
    /// Tessellation and geometry execution modes (default elsewhere).
    pub modes: StageModes,
    /// What the `Source` markers' offsets count, and the source lines they come from.
    pub source: SourceMap,
}

/// The execution modes of the tessellation and geometry stages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct StageModes {
    /// Tessellation control: `OutputVertices` (the output patch size); geometry: the most
    /// vertices an invocation emits.
    pub output_vertices: u32,
    /// Geometry: `Invocations` per input primitive (0: not given, one).
    pub invocations: u32,
    /// Geometry: the input primitive.
    pub input: Option<GeomInput>,
    /// Geometry: the output primitive.
    pub output: Option<GeomOutput>,
    /// Tessellation (either stage may give these; the pipeline takes the union).
    pub domain: Option<TessDomain>,
    pub spacing: Option<TessSpacing>,
    /// `VertexOrderCcw` (`Some(true)`) or `VertexOrderCw`.
    pub ccw: Option<bool>,
    pub point_mode: bool,
}

/// A geometry shader's input primitive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GeomInput {
    Points,
    Lines,
    LinesAdjacency,
    Triangles,
    TrianglesAdjacency,
}

impl GeomInput {
    /// Vertices per input primitive.
    pub fn vertices(self) -> usize {
        match self {
            GeomInput::Points => 1,
            GeomInput::Lines => 2,
            GeomInput::LinesAdjacency => 4,
            GeomInput::Triangles => 3,
            GeomInput::TrianglesAdjacency => 6,
        }
    }
}

/// A geometry shader's output primitive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GeomOutput {
    Points,
    LineStrip,
    TriangleStrip,
}

/// The tessellation domain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TessDomain {
    Triangles,
    Quads,
    Isolines,
}

/// Tessellation spacing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TessSpacing {
    Equal,
    FractionalEven,
    FractionalOdd,
}

/// How compute invocations form quads for derivatives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DerivativeGroup {
    Quads,
    Linear,
}
