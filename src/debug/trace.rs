//! The trace as tools see it: plain public data, built after the run from what the recorder
//! saw (`super::record`) and the module's listing ([`super::listing`]).
//!
//! A [`Step`] is one execution of one source instruction (a SPIR-V instruction: the IR
//! instructions between two `Source` markers of one block execution, such as the four
//! components of a vector add), with the lanes' states when it ran, the values it produced in
//! each of the four lanes, what the image glue had bound for an image instruction, and the
//! warnings it raised. Values are kept as raw bits with their IR type, and formatted by
//! [`Value::show`], so the text, JSON and HTML forms print them alike.

use crate::exec::QuadOperands;
use crate::ir::{BlockId, ScalarTy, Stage};
use crate::pipeline::ImageExplain;

pub use super::listing::SourceLine;

/// What is traced: the quad of a pixel, of a compute invocation, or of a vertex.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Pixel (x, y) of the framebuffer (y down), its fragment shader invocations.
    Pixel { x: u32, y: u32 },
    /// Compute invocation with this `GlobalInvocationId`.
    Invocation { x: u32, y: u32, z: u32 },
    /// The first vertex shader invocation with this `VertexIndex`.
    Vertex { index: u32 },
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Pixel { x, y } => write!(f, "pixel ({x}, {y})"),
            Target::Invocation { x, y, z } => write!(f, "invocation ({x}, {y}, {z})"),
            Target::Vertex { index } => write!(f, "vertex {index}"),
        }
    }
}

/// A lane's state when an instruction ran.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LaneState {
    /// Running this instruction (control flow).
    pub active: bool,
    /// A helper: not covered, demoted or killed (feeds derivatives, writes nothing shared).
    pub helper: bool,
    /// Demoted (`OpDemoteToHelperInvocation`).
    pub demoted: bool,
    /// Killed (`OpKill`: it goes on as a helper, or stopped under the strict reading).
    pub killed: bool,
}

impl LaneState {
    /// One letter for tables: `*` running, `h` helper, `d` demoted, `k` killed, `.` not
    /// running this instruction.
    pub fn letter(self) -> char {
        match self {
            LaneState { active: false, .. } => '.',
            LaneState { killed: true, .. } => 'k',
            LaneState { demoted: true, .. } => 'd',
            LaneState { helper: true, .. } => 'h',
            _ => '*',
        }
    }
}

/// One component of a step's result in the four lanes (`None`: the lane did not run it).
#[derive(Clone, Debug, PartialEq)]
pub struct Value {
    pub ty: ScalarTy,
    pub lanes: [Option<u64>; 4],
}

impl Value {
    /// `bits` of type `ty` as a reader wants it: floats in their shortest exact decimal,
    /// integers signed, booleans as words.
    pub fn show(ty: ScalarTy, bits: u64) -> String {
        match ty {
            ScalarTy::Bool => (bits != 0).to_string(),
            ScalarTy::F32 => float(
                f32::from_bits(bits as u32) as f64,
                f32::from_bits(bits as u32),
            ),
            ScalarTy::F64 => float(f64::from_bits(bits), f64::from_bits(bits)),
            ScalarTy::F16 => {
                let h = half::f16::from_bits(bits as u16);
                float(h.to_f64(), h)
            }
            ScalarTy::I32 => (bits as u32 as i32).to_string(),
            ScalarTy::I64 => (bits as i64).to_string(),
            ScalarTy::I8 | ScalarTy::I16 => bits.to_string(),
        }
    }
}

/// A float by its own `Display` (the shortest decimal that reads back exactly), `inf` and
/// `nan` spelled out.
fn float<T: std::fmt::Display>(v: f64, shown: T) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 { "+Inf" } else { "-Inf" }.into()
    } else {
        shown.to_string()
    }
}

/// What an image instruction of the quad did and read.
#[derive(Clone, Debug, PartialEq)]
pub struct ImageStep {
    /// The operands as the interpreter handed them over (raw bits, per lane).
    pub operands: QuadOperands,
    /// Results `[lane][component]` as raw bits of the instruction's result type.
    pub results: [[u32; 4]; 4],
    pub result_ty: ScalarTy,
    /// What was bound, per group of lanes (an error text if the glue could not say).
    pub bound: Result<ImageExplain, String>,
}

/// Why a warning was raised.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WarningKind {
    /// A derivative, quad operation or implicit LOD read a lane that is not running the
    /// instruction (non-uniform control flow): undefined.
    InactiveLane,
    /// It read a lane past its `discard` (what the lane computed as a helper since, or its
    /// frozen value under the strict reading: undefined in Vulkan).
    DiscardedLane,
    /// An implicit-LOD sample (or LOD query) in control flow not uniform over the quad.
    NonUniformImplicitLod,
    /// A NaN or an infinity came out of operands that were neither.
    NanOrInf,
    DivisionByZero,
    /// A buffer, private memory or image access outside what is bound (robust behaviour:
    /// reads 0, writes dropped).
    OutOfBounds,
    /// `sqrt`, `log`, `pow`, `asin`, `acos`, … outside their domain.
    Domain,
    /// `clamp` with min > max.
    ClampBounds,
}

impl WarningKind {
    /// A short name for the JSON form and filters.
    pub fn name(self) -> &'static str {
        match self {
            WarningKind::InactiveLane => "inactive-lane",
            WarningKind::DiscardedLane => "discarded-lane",
            WarningKind::NonUniformImplicitLod => "non-uniform-implicit-lod",
            WarningKind::NanOrInf => "nan-or-inf",
            WarningKind::DivisionByZero => "division-by-zero",
            WarningKind::OutOfBounds => "out-of-bounds",
            WarningKind::Domain => "domain",
            WarningKind::ClampBounds => "clamp-bounds",
        }
    }
}

/// A warning at a step, for one lane of the quad.
#[derive(Clone, Debug, PartialEq)]
pub struct Warning {
    pub kind: WarningKind,
    /// The lane whose result is affected (or which is missing, for non-uniform LOD).
    pub lane: usize,
    pub message: String,
}

/// One executed source instruction of the quad.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// Position in the trace (from 0).
    pub index: usize,
    /// The IR block it ran in.
    pub block: BlockId,
    /// Its SPIR-V word offset (None: IR the front end made without a source, such as phi
    /// copies on an edge).
    pub offset: Option<u32>,
    /// The instruction's text (SPIR-V with names; the IR's when there is no source).
    pub text: String,
    /// Source position (`OpLine`), with the line's text when the module embeds its source.
    pub line: Option<SourceLine>,
    /// Named values it writes (its result's name, variables its result is stored into).
    pub writes: Vec<String>,
    pub lanes: [LaneState; 4],
    /// The values it produced, one per result component (a store: the stored value).
    pub values: Vec<Value>,
    /// The IR instructions it ran, as `ir::print_inst` prints them (none: the optimiser
    /// folded the instruction into others, or it needs no work, such as a constant's load).
    pub ir: Vec<String>,
    pub image: Option<ImageStep>,
    pub warnings: Vec<Warning>,
}

/// Where each lane of the quad is.
#[derive(Clone, Debug, PartialEq)]
pub enum LanePlace {
    /// A fragment at pixel (x, y); `covered` false: a helper lane from the start.
    Pixel { x: i64, y: i64, covered: bool },
    /// A compute invocation (`GlobalInvocationId`), or a padding lane (None).
    Invocation(Option<[u32; 3]>),
    /// A vertex shader invocation and its `VertexIndex` (None: past the batch's vertices).
    Vertex(Option<u32>),
}

/// What the traced fragment left behind.
#[derive(Clone, Debug, PartialEq)]
pub struct FragmentResult {
    /// Per colour attachment (location), the four output words of each lane as raw bits,
    /// and their type as the shader declares it.
    pub outputs: Vec<[[u32; 4]; 4]>,
    pub output_types: Vec<ScalarTy>,
    /// Per lane: discarded (killed or demoted), so its outputs were dropped.
    pub discarded: [bool; 4],
    /// Per lane: the depth the fragment carries into the depth test.
    pub depth: [f32; 4],
    /// Per colour attachment, the traced pixel after the draw (float value of each channel;
    /// integer formats as their integer values), filled once the draw is done.
    pub attachment: Vec<Option<[f64; 4]>>,
    /// The pixels around it in the first attachment after the draw.
    pub around: Option<Crop>,
}

/// A rectangle of an attachment as RGBA8 (floats clamped to [0, 1], integers / 255).
#[derive(Clone, Debug, PartialEq)]
pub struct Crop {
    /// Its top-left pixel and size.
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
    /// `width * height` pixels, rows top to bottom.
    pub rgba: Vec<u8>,
}

/// A trace of one quad of one draw or dispatch.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    pub target: Target,
    pub stage: Stage,
    /// The entry point.
    pub entry: String,
    /// Which draw or dispatch of the script (0-based, in script order) and its line.
    pub draw: usize,
    pub line: usize,
    pub pipeline: String,
    /// Colour attachments by location (Amber buffer names).
    pub attachments: Vec<Option<String>>,
    /// The quad lane the target is.
    pub lane: usize,
    /// Vertex traces: the instance.
    pub instance: Option<u32>,
    pub places: [LanePlace; 4],
    pub steps: Vec<Step>,
    /// The recording stopped at the step limit (the run itself went on).
    pub truncated: bool,
    /// Fragment traces: what the quad left behind.
    pub fragment: Option<FragmentResult>,
    /// Whether a killed lane goes on as a helper (the run's `exec::Discard`).
    pub discard: crate::exec::Discard,
}

impl Trace {
    /// Every warning, with the step it is at.
    pub fn warnings(&self) -> impl Iterator<Item = (&Step, &Warning)> {
        self.steps
            .iter()
            .flat_map(|s| s.warnings.iter().map(move |w| (s, w)))
    }

    /// The steps that write the named value `name` (`--watch`).
    pub fn writing<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Step> {
        self.steps
            .iter()
            .filter(move |s| s.writes.iter().any(|w| w == name))
    }
}
