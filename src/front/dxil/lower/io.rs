//! The interface: the entry point's signature elements become [`IoVar`]s in per-lane words,
//! `loadInput`/`storeOutput` become loads and stores of those words, and system values and
//! thread ids become the IR's built-ins.
//!
//! D3D links stages by semantic, the IR by location, so user semantics get locations by one
//! fixed rule (README, "DXIL"): `TEXCOORDn` is location n (n from the semantic index, or from
//! digits ending the name), `COLORn` location 16 + n, any other name 24 + n; each further row
//! of an element is the next location, and its first column is its component. `SV_Target`n is
//! colour attachment n. A DXIL vertex shader's attributes take locations by the same rule.
//!
//! Values are kept as 32-bit words (F32, I32; `i1` as `Bool`); 16-bit overloads of
//! `loadInput`/`storeOutput` convert at the access. `SV_Position` in a pixel shader is D3D's:
//! its `w` is the clip-space w, the reciprocal of the IR's `FragCoord.w`; `SV_InstanceID`
//! excludes the start instance, so it is `InstanceIndex - BaseInstance`. There is one view
//! (`ViewID` is 0) and one shading rate (`SV_ShadingRate` reads 1×1, and writes of it are
//! dropped).

use std::collections::HashMap;

use crate::front::build::IrBuilder;
use crate::ir::{
    BinaryOp, BuiltIn, ConvOp, Inst, Interp, IoBinding, IoPer, IoVar, Ptr, Reg, Sampling, ScalarTy,
    Space, Stage,
};

use super::super::module::Value;
use super::super::shader::{ComponentType, InterpolationMode, SemanticKind, SignatureElement};
use super::{LResult, Lower};

/// The interface made so far.
#[derive(Default)]
pub(crate) struct Io {
    pub inputs: Vec<IoVar>,
    pub outputs: Vec<IoVar>,
    pub writes_depth: bool,
    /// Signature element id → its words.
    input_words: HashMap<u32, Slot>,
    output_words: HashMap<u32, Slot>,
    /// Built-ins read through dx.ops, by built-in.
    built_ins: HashMap<BuiltIn, (u32, ScalarTy)>,
}

/// Where a signature element lives: first word, columns per row, stored type, and what a
/// read of it means beyond the word.
#[derive(Clone, Copy)]
struct Slot {
    word: u32,
    cols: u32,
    ty: ScalarTy,
    fix: Fix,
}

/// Adjustments of D3D system values over the IR's built-ins.
#[derive(Clone, Copy, PartialEq)]
enum Fix {
    None,
    /// `SV_Position.w` is `1 / FragCoord.w`.
    PositionW,
    /// `SV_InstanceID` is `InstanceIndex - BaseInstance` (word of BaseInstance).
    InstanceId(u32),
    /// Reads as 0: `SV_ShadingRate` in a pixel shader (the one rate is 1×1,
    /// `D3D12_SHADING_RATE_1X1`).
    Zero,
}

/// The location of a user semantic (see the module doc).
pub fn semantic_location(name: &str, index: u32) -> u32 {
    let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let (base, extra) = name.split_at(name.len() - digits);
    let extra: u32 = extra.parse().unwrap_or(0);
    let n = index.saturating_add(extra);
    match base.to_ascii_uppercase().as_str() {
        "TEXCOORD" => n,
        "COLOR" => 16u32.saturating_add(n),
        _ => 24u32.saturating_add(n),
    }
}

fn stored_ty(c: ComponentType) -> ScalarTy {
    match c {
        ComponentType::I1 => ScalarTy::Bool,
        ComponentType::I16
        | ComponentType::U16
        | ComponentType::I32
        | ComponentType::U32
        | ComponentType::I64
        | ComponentType::U64 => ScalarTy::I32,
        _ => ScalarTy::F32,
    }
}

fn interp_of(m: InterpolationMode) -> Interp {
    match m {
        InterpolationMode::Constant => Interp::Flat,
        InterpolationMode::LinearNoperspective
        | InterpolationMode::LinearNoperspectiveCentroid
        | InterpolationMode::LinearNoperspectiveSample => Interp::NoPerspective,
        _ => Interp::Smooth,
    }
}

/// Where in the pixel a pixel-shader input is evaluated (its `centroid` / `sample` qualifier).
fn sampling_of(m: InterpolationMode) -> Sampling {
    match m {
        InterpolationMode::LinearCentroid | InterpolationMode::LinearNoperspectiveCentroid => {
            Sampling::Centroid
        }
        InterpolationMode::LinearSample | InterpolationMode::LinearNoperspectiveSample => {
            Sampling::Sample
        }
        _ => Sampling::Center,
    }
}

/// Words a run of `n` scalars of a stored type takes.
const MAX_ELEMENT_WORDS: u32 = 4096;

impl<'a> Lower<'a> {
    fn local_words(&mut self, n: u32) -> LResult<u32> {
        let at = self.mem.local_words;
        self.mem.local_words = at
            .checked_add(n)
            .filter(|&w| w <= 1 << 20)
            .ok_or_else(|| self.invalid("the interface takes too much memory"))?;
        Ok(at)
    }

    /// IoVars for every signature element of the entry point.
    pub(crate) fn declare_io(&mut self) -> LResult<()> {
        let sigs = &self.ep.signatures;
        for (input, list) in [(true, &sigs.inputs), (false, &sigs.outputs)] {
            for e in list {
                self.declare_element(input, e)?;
            }
        }
        Ok(())
    }

    fn declare_element(&mut self, input: bool, e: &SignatureElement) -> LResult<()> {
        let rows = e.rows.max(1);
        let cols = e.cols.max(1);
        let words = rows
            .checked_mul(cols)
            .filter(|&w| w <= MAX_ELEMENT_WORDS)
            .ok_or_else(|| self.invalid(format!("signature element {} is too large", e.name)))?;
        let mut ty = stored_ty(e.component_type);
        let word = self.local_words(words)?;
        let mut fix = Fix::None;
        if e.semantic_kind == SemanticKind::ShadingRate {
            // no variable-rate shading: every pixel is shaded at 1×1, and a rate a vertex shader
            // writes has nothing to change (its words are bound to nothing)
            let slot = Slot {
                word,
                cols,
                ty,
                fix: Fix::Zero,
            };
            let words = if input {
                &mut self.io.input_words
            } else {
                &mut self.io.output_words
            };
            words.insert(e.id, slot);
            return Ok(());
        }
        let built_in = match e.semantic_kind {
            SemanticKind::Arbitrary => None,
            SemanticKind::Target if !input => None,
            SemanticKind::Position if input && self.stage == Stage::Fragment => {
                fix = Fix::PositionW;
                Some(BuiltIn::FragCoord)
            }
            SemanticKind::Position if input => None, // a vertex attribute named SV_Position
            SemanticKind::Position => Some(BuiltIn::Position),
            SemanticKind::VertexID => Some(BuiltIn::VertexIndex),
            SemanticKind::InstanceID => {
                let base = self.built_in_word(BuiltIn::BaseInstance, ScalarTy::I32, 1)?;
                fix = Fix::InstanceId(base);
                Some(BuiltIn::InstanceIndex)
            }
            SemanticKind::IsFrontFace => {
                ty = ScalarTy::Bool;
                Some(BuiltIn::FrontFacing)
            }
            SemanticKind::PrimitiveID => Some(BuiltIn::PrimitiveId),
            SemanticKind::SampleIndex => Some(BuiltIn::SampleId),
            SemanticKind::Coverage => Some(BuiltIn::SampleMask),
            SemanticKind::Depth
            | SemanticKind::DepthLessEqual
            | SemanticKind::DepthGreaterEqual => {
                self.io.writes_depth = true;
                Some(BuiltIn::FragDepth)
            }
            SemanticKind::ClipDistance => Some(BuiltIn::ClipDistance),
            SemanticKind::CullDistance => Some(BuiltIn::CullDistance),
            SemanticKind::RenderTargetArrayIndex => Some(BuiltIn::Layer),
            SemanticKind::ViewPortArrayIndex => Some(BuiltIn::ViewportIndex),
            other => {
                return Err(self.not_run(format!("the system value {} ({})", e.name, other.name())))
            }
        };
        let interp = if built_in.is_some() {
            Interp::Flat
        } else {
            interp_of(e.interpolation)
        };
        match built_in {
            Some(b) => {
                let v = IoVar {
                    binding: IoBinding::BuiltIn(b),
                    ty,
                    word,
                    count: words,
                    interp,
                    sampling: Sampling::Center,
                    per: IoPer::Invocation,
                    name: e.name.clone(),
                };
                self.push_io(input, v);
            }
            None => {
                let base = if e.semantic_kind == SemanticKind::Target {
                    e.semantic_indices.first().copied().unwrap_or(0)
                } else {
                    semantic_location(&e.name, e.semantic_indices.first().copied().unwrap_or(0))
                };
                for r in 0..rows {
                    let location = match e.semantic_indices.get(r as usize) {
                        Some(&i) if e.semantic_kind != SemanticKind::Target => {
                            semantic_location(&e.name, i)
                        }
                        _ => base.saturating_add(r),
                    };
                    let v = IoVar {
                        binding: IoBinding::Location {
                            location,
                            component: e.start_col.clamp(0, 3) as u32,
                        },
                        ty,
                        word: word + r * cols,
                        count: cols,
                        interp,
                        sampling: sampling_of(e.interpolation),
                        per: IoPer::Invocation,
                        name: e.name.clone(),
                    };
                    self.push_io(input, v);
                }
            }
        }
        let slot = Slot {
            word,
            cols,
            ty,
            fix,
        };
        if input {
            self.io.input_words.insert(e.id, slot);
        } else {
            self.io.output_words.insert(e.id, slot);
        }
        Ok(())
    }

    fn push_io(&mut self, input: bool, v: IoVar) {
        if input {
            self.io.inputs.push(v);
        } else {
            self.io.outputs.push(v);
        }
    }

    /// The words of a built-in input read through a dx.op, declared on first use.
    fn built_in_word(&mut self, b: BuiltIn, ty: ScalarTy, count: u32) -> LResult<u32> {
        if let Some(&(w, _)) = self.io.built_ins.get(&b) {
            return Ok(w);
        }
        let word = self.local_words(count)?;
        self.io.inputs.push(IoVar {
            binding: IoBinding::BuiltIn(b),
            ty,
            word,
            count,
            interp: Interp::Flat,
            sampling: Sampling::Center,
            per: IoPer::Invocation,
            name: String::new(),
        });
        self.io.built_ins.insert(b, (word, ty));
        Ok(word)
    }

    fn load_word(&mut self, ty: ScalarTy, addr: Reg) -> Reg {
        let dst = self.reg(ty);
        self.emit(Inst::Load {
            ty,
            dst,
            ptr: Ptr {
                space: Space::Local,
                addr,
            },
        });
        dst
    }

    /// `base + row * cols + col` as a word address.
    fn element_address(&mut self, slot: Slot, row: Value, col: Value) -> LResult<Reg> {
        let col = self.const_u32(col)?;
        if col >= slot.cols {
            return Err(self.invalid(format!("column {col} of a {}-column element", slot.cols)));
        }
        match self.m.const_int(row) {
            Some(r) => Ok(self.k32(slot.word + (r as u32) * slot.cols + col)),
            None => {
                let r = self.scalar(row)?;
                let c = self.k32(slot.cols);
                let scaled = self.bin(BinaryOp::IMul, ScalarTy::I32, r, c);
                let k = self.k32(slot.word + col);
                Ok(self.bin(BinaryOp::IAdd, ScalarTy::I32, scaled, k))
            }
        }
    }

    /// Converts a stored word of type `from` to the access type `to`.
    fn adapt(&mut self, from: ScalarTy, to: ScalarTy, a: Reg) -> Reg {
        use ScalarTy::*;
        match (from, to) {
            _ if from == to => a,
            (Bool, t) => {
                let one = self.konst(t, super::math::float_one(t));
                let zero = self.konst(t, 0);
                self.tern(crate::ir::TernaryOp::Select, t, a, one, zero)
            }
            (t, Bool) => {
                let zero = self.konst(t, 0);
                self.bin(BinaryOp::INe, t, a, zero)
            }
            (F32 | F64 | F16, F32 | F64 | F16) => self.convert(ConvOp::FConvert, from, to, a),
            (_, F32 | F64 | F16) => self.convert(ConvOp::Bitcast, from, to, a),
            (F32 | F64 | F16, _) => self.convert(ConvOp::Bitcast, from, to, a),
            _ => self.convert(ConvOp::UConvert, from, to, a),
        }
    }

    /// Interface ops. Returns `false` for other ops.
    pub(crate) fn io_op(&mut self, op: u32, args: &[Value]) -> LResult<bool> {
        match op {
            // LoadInput(id, row, col, vertex)
            4 => {
                let id = self.const_u32(self.arg(args, 0)?)?;
                let slot = *self
                    .io
                    .input_words
                    .get(&id)
                    .ok_or_else(|| self.invalid(format!("no input signature element {id}")))?;
                let col = self.arg(args, 2)?;
                let addr = self.element_address(slot, self.arg(args, 1)?, col)?;
                let mut v = self.load_word(slot.ty, addr);
                let c = self.const_u32(col)?;
                match slot.fix {
                    Fix::Zero => v = self.konst(slot.ty, 0),
                    Fix::PositionW if c == 3 => {
                        let one = self.kf32(1.0);
                        v = self.bin(BinaryOp::FDiv, ScalarTy::F32, one, v);
                    }
                    Fix::InstanceId(base) => {
                        let a = self.k32(base);
                        let b = self.load_word(ScalarTy::I32, a);
                        v = self.bin(BinaryOp::ISub, ScalarTy::I32, v, b);
                    }
                    _ => {}
                }
                let to = self.result_ty()?;
                let r = self.adapt(slot.ty, to, v);
                self.set_scalar(r);
            }
            // StoreOutput(id, row, col, value)
            5 => {
                let id = self.const_u32(self.arg(args, 0)?)?;
                let slot = *self
                    .io
                    .output_words
                    .get(&id)
                    .ok_or_else(|| self.invalid(format!("no output signature element {id}")))?;
                let addr = self.element_address(slot, self.arg(args, 1)?, self.arg(args, 2)?)?;
                let v = self.arg(args, 3)?;
                let from = self.ty_of(v)?;
                let src = self.scalar(v)?;
                let src = self.adapt(from, slot.ty, src);
                self.emit(Inst::Store {
                    ty: slot.ty,
                    ptr: Ptr {
                        space: Space::Local,
                        addr,
                    },
                    src,
                });
            }
            // ThreadId, GroupId, ThreadIdInGroup (component); FlattenedThreadIdInGroup
            93..=96 => {
                let (b, comp) = match op {
                    93 => (BuiltIn::GlobalInvocationId, Some(self.arg(args, 0)?)),
                    94 => (BuiltIn::WorkgroupId, Some(self.arg(args, 0)?)),
                    95 => (BuiltIn::LocalInvocationId, Some(self.arg(args, 0)?)),
                    _ => (BuiltIn::LocalInvocationIndex, None),
                };
                let count = if comp.is_some() { 3 } else { 1 };
                let word = self.built_in_word(b, ScalarTy::I32, count)?;
                let c = match comp {
                    Some(c) => self.const_u32(c)?,
                    None => 0,
                };
                if c >= count {
                    return Err(self.invalid(format!("component {c} of a thread id")));
                }
                let a = self.k32(word + c);
                let r = self.load_word(ScalarTy::I32, a);
                self.set_scalar(r);
            }
            // SampleIndex, Coverage, StartVertexLocation, StartInstanceLocation
            90 | 91 | 256 | 257 => {
                let b = match op {
                    90 => BuiltIn::SampleId,
                    91 => BuiltIn::SampleMask,
                    256 => BuiltIn::BaseVertex,
                    _ => BuiltIn::BaseInstance,
                };
                let word = self.built_in_word(b, ScalarTy::I32, 1)?;
                let a = self.k32(word);
                let r = self.load_word(ScalarTy::I32, a);
                self.set_scalar(r);
            }
            // ViewID: one view, view 0
            138 => {
                let r = self.k32(0);
                self.set_scalar(r);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}
