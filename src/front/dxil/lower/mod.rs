//! Lowering a read DXIL module ([`DxilModule`]) into [`crate::ir`]: one entry point of a pixel,
//! vertex or compute shader becomes an [`ir::Shader`] that the interpreter runs like any other.
//!
//! DXIL is scalar LLVM already, so the lowering is mostly a one-to-one walk: every SSA value
//! becomes a register (aggregates — `dx.types.ResRet`, `CBufRet`, the few vectors — a list of
//! registers), every basic block an IR block, and every `dx.op` call the IR instruction of its
//! meaning. The files split by instruction family, as the SPIR-V front end does:
//! - `mod.rs` (here) — the state, the value map, constants, and the per-instruction dispatch;
//! - `control.rs` — blocks, phis as edge copies (critical edges split, parallel copies),
//!   branches, switches, returns;
//! - `math.rs` — LLVM's arithmetic, casts and comparisons and the math `dx.op`s;
//! - `memory.rs` — allocas, globals (groupshared and constant arrays), GEPs, loads, stores and
//!   their atomics;
//! - `resources.rs` — `dx.resources`, handles, and constant/raw/structured/typed buffer
//!   access;
//! - `image.rs` — texture loads and stores, every sample and gather op, `CalculateLOD`,
//!   `GetDimensions`;
//! - `quad_wave.rs` — derivatives, quad ops, wave ops, helper lanes, `Discard`;
//! - `io.rs` — signatures, `loadInput`/`storeOutput`, system values and thread ids.
//!
//! Choices the rest of the crate can rely on:
//! - IR block 0 is a prologue (constant global arrays are written there); it jumps to the
//!   entry block. Blocks made for split edges and for `Discard` come after the function's.
//! - Each lowered DXIL instruction is preceded by an [`ir::Inst::Source`] holding its index
//!   in the function.
//! - `undef` reads as zero.
//! - A `dx.op` this lowering does not run is an error naming the op and the shader.

mod control;
mod image;
mod io;
mod math;
mod memory;
mod quad_wave;
mod resources;

pub use resources::{heap_binding, COUNTER_BINDING, RESOURCE_HEAP_SET, SAMPLER_HEAP_SET};

use std::collections::HashMap;

use crate::front::build::IrBuilder;
use crate::ir::{self, BlockId, Const, Inst, Reg, ScalarTy, Terminator};

use super::module::{
    ConstId, ConstKind, Function, InstId, Instruction, Module, Type, TypeId, Value,
};
use super::shader::{EntryPoint, ShaderKind};
use super::DxilModule;

/// Why a DXIL shader could not be lowered.
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum LowerError {
    /// A shader kind quadstep does not execute (mesh, hull, libraries…).
    #[error("shader '{shader}': {kind} shaders are decoded but not executed")]
    NotExecuted { shader: String, kind: String },
    /// A `dx.op` (or LLVM instruction) that is not run.
    #[error("shader '{shader}': {what} is not run by quadstep")]
    NotRun { shader: String, what: String },
    /// The module breaks a rule lowering relies on (a bad operand, a missing resource…).
    #[error("shader '{shader}', {at}: {msg}")]
    Invalid {
        shader: String,
        at: String,
        msg: String,
    },
}

impl From<LowerError> for crate::Error {
    fn from(e: LowerError) -> Self {
        match e {
            LowerError::NotExecuted { .. } | LowerError::NotRun { .. } => {
                crate::Error::Unsupported(format!("DXIL: {e}"))
            }
            LowerError::Invalid { .. } => crate::Error::Unsupported(format!("DXIL: {e}")),
        }
    }
}

pub(crate) type LResult<T> = std::result::Result<T, LowerError>;

/// What an LLVM value lowered to.
#[derive(Clone, Debug)]
pub(crate) enum Val {
    /// One scalar.
    Scalar(Reg),
    /// The scalars of an aggregate or vector, in order (a struct's fields flattened).
    Agg(Vec<Reg>),
    /// A resource handle.
    Handle(resources::Handle),
    /// A descriptor-heap handle not yet annotated.
    Heap(resources::HeapIndex),
    /// A pointer into per-lane or workgroup words.
    Ptr(memory::PtrVal),
}

/// Entry points quadstep runs, and their IR stage.
fn stage_of(kind: ShaderKind) -> Option<ir::Stage> {
    match kind {
        ShaderKind::Pixel => Some(ir::Stage::Fragment),
        ShaderKind::Vertex => Some(ir::Stage::Vertex),
        ShaderKind::Compute => Some(ir::Stage::Compute),
        _ => None,
    }
}

/// The names of the entry points a DXIL module has, with their stages (only those quadstep
/// runs).
pub fn entry_points(dxil: &DxilModule) -> Vec<(String, ir::Stage)> {
    let Some(stage) = stage_of(dxil.shader.shader_model.kind) else {
        return Vec::new();
    };
    dxil.shader
        .entry_points
        .iter()
        .filter(|e| e.function.is_some())
        .map(|e| (e.name.clone(), stage))
        .collect()
}

/// The entry point `lower` takes: the one named `entry`, or the first with a function.
pub fn entry_point<'a>(
    dxil: &'a DxilModule,
    entry: Option<&str>,
) -> Option<&'a crate::front::dxil::shader::EntryPoint> {
    dxil.shader
        .entry_points
        .iter()
        .find(|e| e.function.is_some() && entry.is_none_or(|n| n == e.name))
}

/// Lowers entry point `entry` (the first one when `None`) of a DXIL module.
pub fn lower(dxil: &DxilModule, entry: Option<&str>) -> LResult<ir::Shader> {
    let sm = dxil.shader.shader_model;
    let first_name = dxil
        .shader
        .entry_points
        .first()
        .map(|e| e.name.clone())
        .unwrap_or_default();
    let stage = stage_of(sm.kind).ok_or_else(|| LowerError::NotExecuted {
        shader: entry.map_or(first_name.clone(), str::to_string),
        kind: sm.to_string(),
    })?;
    let ep = entry_point(dxil, entry).ok_or_else(|| LowerError::Invalid {
        shader: entry.unwrap_or("").to_string(),
        at: "dx.entryPoints".into(),
        msg: match entry {
            Some(n) => format!("no entry point named {n:?}"),
            None => "no entry point with a function".into(),
        },
    })?;
    let fid = ep.function.expect("filtered above");
    let func = dxil
        .module
        .functions
        .get(fid.index())
        .filter(|f| !f.is_declaration)
        .ok_or_else(|| LowerError::Invalid {
            shader: ep.name.clone(),
            at: "dx.entryPoints".into(),
            msg: "the entry point's function has no body".into(),
        })?;
    let mut l = Lower::new(dxil, ep, func, stage);
    l.run()?;
    Ok(l.finish())
}

crate::front::build::builder_in_fields!(Lower<'_>);

/// The lowering state of one entry point.
pub(crate) struct Lower<'a> {
    pub(crate) dxil: &'a DxilModule,
    pub(crate) m: &'a Module,
    pub(crate) ep: &'a EntryPoint,
    pub(crate) func: &'a Function,
    pub(crate) stage: ir::Stage,
    pub(crate) f: ir::Function,
    /// The IR block instructions go to now.
    pub(crate) cur: BlockId,
    /// Values of the function's instructions and arguments.
    vals: HashMap<Value, Val>,
    const_regs: HashMap<Const, Reg>,
    /// IR block of each DXIL block.
    pub(crate) block_map: Vec<BlockId>,
    /// The DXIL instruction being lowered (for errors and `Source`).
    pub(crate) at: InstId,
    pub(crate) io: io::Io,
    pub(crate) res: resources::Resources,
    pub(crate) mem: memory::Memory,
    pub(crate) can_discard: bool,
    /// The shader uses derivatives or quad ops (compute: quads are then 2×2 tiles when the
    /// group's X and Y are even).
    pub(crate) uses_quads: bool,
}

impl<'a> Lower<'a> {
    fn new(dxil: &'a DxilModule, ep: &'a EntryPoint, func: &'a Function, stage: ir::Stage) -> Self {
        Lower {
            dxil,
            m: &dxil.module,
            ep,
            func,
            stage,
            f: ir::Function::default(),
            cur: 0,
            vals: HashMap::new(),
            const_regs: HashMap::new(),
            block_map: Vec::new(),
            at: InstId(0),
            io: io::Io::default(),
            res: resources::Resources::default(),
            mem: memory::Memory::default(),
            can_discard: false,
            uses_quads: false,
        }
    }

    fn finish(self) -> ir::Shader {
        let workgroup_size = self.ep.properties.num_threads.unwrap_or([1, 1, 1]);
        let derivative_group = (self.stage == ir::Stage::Compute
            && self.uses_quads
            && workgroup_size[0].is_multiple_of(2)
            && workgroup_size[1].is_multiple_of(2))
        .then_some(ir::DerivativeGroup::Quads);
        ir::Shader {
            name: self.ep.name.clone(),
            stage: self.stage,
            body: self.f,
            local_words: self.mem.local_words,
            workgroup_words: self.mem.workgroup_words,
            writes_depth: self.io.writes_depth,
            inputs: self.io.inputs,
            outputs: self.io.outputs,
            resources: self.res.list,
            workgroup_size,
            can_discard: self.can_discard,
            // raw shader flag 3: ForceEarlyDepthStencil ([earlydepthstencil])
            early_fragment_tests: self.ep.properties.shader_flags & (1 << 3) != 0,
            // pixel, vertex and compute shaders have no tessellation or geometry modes
            modes: ir::StageModes::default(),
            source: ir::SourceMap {
                unit: ir::OffsetUnit::DxilInst,
                ..Default::default()
            },
            origin_upper_left: true,
            derivative_group,
        }
    }

    // ---- errors ----

    /// Where we are, for messages: the instruction index and its DXIL spelling.
    pub(crate) fn here(&self) -> String {
        let what = self
            .func
            .insts
            .get(self.at.index())
            .map(|i| match self.m.dx_op(i) {
                Some((op, _)) => format!("dx.op {} ({op})", op_name(op)),
                None => inst_kind(i).to_string(),
            })
            .unwrap_or_default();
        format!("instruction {} ({what})", self.at.0)
    }

    pub(crate) fn invalid(&self, msg: impl Into<String>) -> LowerError {
        LowerError::Invalid {
            shader: self.ep.name.clone(),
            at: self.here(),
            msg: msg.into(),
        }
    }

    pub(crate) fn not_run(&self, what: impl Into<String>) -> LowerError {
        LowerError::NotRun {
            shader: self.ep.name.clone(),
            what: what.into(),
        }
    }

    // ---- builder ----

    pub(crate) fn kf32(&mut self, v: f32) -> Reg {
        self.konst(ScalarTy::F32, v.to_bits() as u64)
    }

    pub(crate) fn terminate(&mut self, t: Terminator) {
        self.f.blocks[self.cur as usize].term = t;
    }

    pub(crate) fn convert(&mut self, op: ir::ConvOp, from: ScalarTy, to: ScalarTy, a: Reg) -> Reg {
        let dst = self.reg(to);
        self.emit(Inst::Convert {
            op,
            from,
            to,
            dst,
            a,
        });
        dst
    }

    pub(crate) fn mov(&mut self, ty: ScalarTy, dst: Reg, a: Reg) {
        self.emit(Inst::Unary {
            op: ir::UnaryOp::Mov,
            ty,
            dst,
            a,
        });
    }

    // ---- types ----

    /// The IR scalar type of an LLVM scalar type.
    pub(crate) fn scalar_of(&self, ty: TypeId) -> LResult<ScalarTy> {
        Ok(match self.m.types.get(ty.index()) {
            Some(Type::Int(1)) => ScalarTy::Bool,
            Some(Type::Int(8)) => ScalarTy::I8,
            Some(Type::Int(16)) => ScalarTy::I16,
            Some(Type::Int(32)) => ScalarTy::I32,
            Some(Type::Int(64)) => ScalarTy::I64,
            Some(Type::Half) => ScalarTy::F16,
            Some(Type::Float) => ScalarTy::F32,
            Some(Type::Double) => ScalarTy::F64,
            other => return Err(self.invalid(format!("{other:?} is not a scalar type"))),
        })
    }

    /// The scalar leaves of a type, in order (structs flattened, arrays and vectors
    /// expanded).
    pub(crate) fn leaves(&self, ty: TypeId, out: &mut Vec<ScalarTy>) -> LResult<()> {
        if out.len() > 4096 {
            return Err(self.invalid("an aggregate with more than 4096 scalars"));
        }
        match self.m.types.get(ty.index()) {
            Some(Type::Struct { fields, .. }) => {
                for &f in fields {
                    self.leaves(f, out)?;
                }
            }
            Some(Type::Array { len, elem }) => {
                for _ in 0..*len.min(&4097) {
                    self.leaves(*elem, out)?;
                }
            }
            Some(Type::Vector { len, elem }) => {
                for _ in 0..*len {
                    self.leaves(*elem, out)?;
                }
            }
            _ => out.push(self.scalar_of(ty)?),
        }
        Ok(())
    }

    // ---- values ----

    pub(crate) fn set(&mut self, v: Value, val: Val) {
        self.vals.insert(v, val);
    }

    /// Sets the result of the current instruction.
    pub(crate) fn set_result(&mut self, val: Val) {
        self.vals.insert(Value::Inst(self.at), val);
    }

    pub(crate) fn set_scalar(&mut self, r: Reg) {
        self.set_result(Val::Scalar(r));
    }

    /// The lowered form of an operand.
    pub(crate) fn val(&mut self, v: Value) -> LResult<Val> {
        if let Some(x) = self.vals.get(&v) {
            return Ok(x.clone());
        }
        match v {
            Value::Const(c) => {
                let x = self.constant(c)?;
                self.vals.insert(v, x.clone());
                Ok(x)
            }
            Value::Global(g) => {
                let x = self.global(g)?;
                self.vals.insert(v, x.clone());
                Ok(x)
            }
            _ => Err(self.invalid(format!("operand {v:?} is used before it is defined"))),
        }
    }

    /// An operand that must be one scalar.
    pub(crate) fn scalar(&mut self, v: Value) -> LResult<Reg> {
        match self.val(v)? {
            Val::Scalar(r) => Ok(r),
            Val::Agg(rs) if rs.len() == 1 => Ok(rs[0]),
            other => Err(self.invalid(format!("expected a scalar operand, found {other:?}"))),
        }
    }

    /// An operand's scalars (one for a scalar).
    pub(crate) fn scalars(&mut self, v: Value) -> LResult<Vec<Reg>> {
        match self.val(v)? {
            Val::Scalar(r) => Ok(vec![r]),
            Val::Agg(rs) => Ok(rs),
            other => Err(self.invalid(format!("expected a value operand, found {other:?}"))),
        }
    }

    /// The IR type of a scalar operand.
    pub(crate) fn ty_of(&self, v: Value) -> LResult<ScalarTy> {
        self.scalar_of(self.m.value_type(self.func, v))
    }

    /// An operand that must be a constant integer.
    pub(crate) fn const_u32(&self, v: Value) -> LResult<u32> {
        self.m
            .const_int(v)
            .and_then(|x| u32::try_from(x as u64 & 0xFFFF_FFFF).ok())
            .ok_or_else(|| self.invalid("an operand that must be a constant integer is not"))
    }

    /// Whether an operand is `undef` (unused optional operands of dx.ops).
    pub(crate) fn is_undef(&self, v: Value) -> bool {
        self.m.is_undef(v)
    }

    fn constant(&mut self, c: ConstId) -> LResult<Val> {
        let k = self
            .m
            .constants
            .get(c.index())
            .ok_or_else(|| self.invalid("a constant id out of range"))?
            .clone();
        match &k.kind {
            ConstKind::Int(bits) | ConstKind::Float(bits) => {
                let ty = self.scalar_of(k.ty)?;
                Ok(Val::Scalar(self.konst(ty, *bits)))
            }
            ConstKind::Null | ConstKind::Undef => {
                let mut leaves = Vec::new();
                if matches!(self.m.ty(k.ty), Type::Pointer { .. }) {
                    return Err(self.invalid("a null or undef pointer"));
                }
                self.leaves(k.ty, &mut leaves)?;
                let regs: Vec<Reg> = leaves.into_iter().map(|t| self.konst(t, 0)).collect();
                Ok(if regs.len() == 1 && self.m.ty(k.ty).element().is_none() {
                    Val::Scalar(regs[0])
                } else {
                    Val::Agg(regs)
                })
            }
            ConstKind::Aggregate(elems) => {
                let mut regs = Vec::new();
                for &e in elems {
                    regs.extend(self.scalars(e)?);
                }
                Ok(Val::Agg(regs))
            }
            ConstKind::Data(elems) => {
                let ety =
                    self.m.ty(k.ty).element().ok_or_else(|| {
                        self.invalid("constant data that is not an array or vector")
                    })?;
                let ty = self.scalar_of(ety)?;
                Ok(Val::Agg(elems.iter().map(|&b| self.konst(ty, b)).collect()))
            }
            ConstKind::Gep {
                source_type,
                operands,
                ..
            } => {
                let (&base, idx) = operands
                    .split_first()
                    .ok_or_else(|| self.invalid("a constant GEP without a pointer"))?;
                let idx = idx.to_vec();
                self.gep(*source_type, base, &idx).map(Val::Ptr)
            }
            ConstKind::Cast { value, .. } => {
                // pointer casts of globals (`bitcast [N x float]* @g to ...`) keep the address
                let x = self.val(*value)?;
                match x {
                    Val::Ptr(_) => Ok(x),
                    _ => Err(self.not_run("a constant cast expression")),
                }
            }
            _ => Err(self.not_run("a constant expression")),
        }
    }

    // ---- the walk ----

    fn run(&mut self) -> LResult<()> {
        let prologue = self.new_block();
        self.cur = prologue;
        for _ in &self.func.blocks {
            let b = self.new_block();
            self.block_map.push(b);
        }
        if self.block_map.is_empty() {
            return Err(self.invalid("the entry point has no blocks"));
        }
        self.declare_io()?;
        let entry = self.block_map[0];
        self.terminate(Terminator::Jump(entry));
        self.control_prepare()?;
        for bi in self.block_order() {
            self.cur = self.block_map[bi];
            let block = &self.func.blocks[bi];
            for id in block.inst_ids() {
                self.at = id;
                let inst = &self.func.insts[id.index()];
                if !matches!(inst, Instruction::Phi { .. }) {
                    self.emit(Inst::Source { offset: id.0 });
                }
                self.inst(inst)?;
            }
        }
        Ok(())
    }

    fn inst(&mut self, inst: &'a Instruction) -> LResult<()> {
        use Instruction as I;
        match inst {
            I::Binary { .. } | I::Cast { .. } | I::Cmp { .. } | I::Select { .. } => {
                self.llvm_math(inst)
            }
            I::ExtractValue {
                aggregate, indices, ..
            } => {
                let regs = self.scalars(*aggregate)?;
                let aty = self.m.value_type(self.func, *aggregate);
                let (start, n) = self.flat_range(aty, indices)?;
                let part = regs
                    .get(start..start + n)
                    .ok_or_else(|| self.invalid("extractvalue out of range"))?
                    .to_vec();
                self.set_result(if n == 1 {
                    Val::Scalar(part[0])
                } else {
                    Val::Agg(part)
                });
                Ok(())
            }
            I::InsertValue {
                aggregate,
                value,
                indices,
                ..
            } => {
                let mut regs = self.scalars(*aggregate)?;
                let aty = self.m.value_type(self.func, *aggregate);
                let (start, n) = self.flat_range(aty, indices)?;
                let new = self.scalars(*value)?;
                if new.len() != n || start + n > regs.len() {
                    return Err(self.invalid("insertvalue of a wrong size"));
                }
                regs.splice(start..start + n, new);
                self.set_result(Val::Agg(regs));
                Ok(())
            }
            I::ExtractElement { vector, index, .. } => {
                let regs = self.scalars(*vector)?;
                let i = self.const_u32(*index)? as usize;
                let r = *regs
                    .get(i)
                    .ok_or_else(|| self.invalid("extractelement index out of range"))?;
                self.set_scalar(r);
                Ok(())
            }
            I::InsertElement {
                vector,
                value,
                index,
                ..
            } => {
                let mut regs = self.scalars(*vector)?;
                let i = self.const_u32(*index)? as usize;
                let r = self.scalar(*value)?;
                *regs
                    .get_mut(i)
                    .ok_or_else(|| self.invalid("insertelement index out of range"))? = r;
                self.set_result(Val::Agg(regs));
                Ok(())
            }
            I::ShuffleVector { a, b, mask, .. } => {
                let mut both = self.scalars(*a)?;
                both.extend(self.scalars(*b)?);
                let mask = self.scalars_const(*mask)?;
                let mut out = Vec::new();
                for m in mask {
                    let r = match m {
                        Some(i) => *both
                            .get(i as usize)
                            .ok_or_else(|| self.invalid("shufflevector index out of range"))?,
                        None => both[0],
                    };
                    out.push(r);
                }
                self.set_result(Val::Agg(out));
                Ok(())
            }
            I::Gep {
                source_type,
                ptr,
                indices,
                ..
            } => {
                let p = self.gep(*source_type, *ptr, indices)?;
                self.set_result(Val::Ptr(p));
                Ok(())
            }
            I::Load { .. }
            | I::Store { .. }
            | I::Alloca { .. }
            | I::AtomicRmw { .. }
            | I::CmpXchg { .. }
            | I::Fence { .. } => self.memory_inst(inst),
            I::Call { callee, args, .. } => match self.m.dx_op(inst) {
                Some((op, rest)) => self.dx_op(op, rest),
                None => {
                    let name = match callee {
                        Value::Function(f) => self
                            .m
                            .functions
                            .get(f.index())
                            .and_then(|f| f.name.clone())
                            .unwrap_or_default(),
                        _ => "an indirect function".into(),
                    };
                    let _ = args;
                    if name.starts_with("llvm.lifetime.") {
                        // lifetime markers say nothing about values
                        return Ok(());
                    }
                    Err(self.not_run(format!("a call of {name}")))
                }
            },
            I::Phi { .. } => Ok(()), // registers made by control_prepare
            I::Br { .. } | I::CondBr { .. } | I::Switch { .. } | I::Ret { .. } | I::Unreachable => {
                self.terminator(inst)
            }
        }
    }

    /// Where the scalars of `aggregate.indices` lie among the flattened scalars of `ty`.
    fn flat_range(&self, ty: TypeId, indices: &[u32]) -> LResult<(usize, usize)> {
        let mut start = 0;
        let mut ty = ty;
        for &i in indices {
            match self.m.ty(ty) {
                Type::Struct { fields, .. } => {
                    for &f in fields.iter().take(i as usize) {
                        let mut v = Vec::new();
                        self.leaves(f, &mut v)?;
                        start += v.len();
                    }
                    ty = *fields
                        .get(i as usize)
                        .ok_or_else(|| self.invalid("a struct index out of range"))?;
                }
                Type::Array { elem, .. } | Type::Vector { elem, .. } => {
                    let mut v = Vec::new();
                    self.leaves(*elem, &mut v)?;
                    start += v.len() * i as usize;
                    ty = *elem;
                }
                _ => return Err(self.invalid("an index into a scalar")),
            }
        }
        let mut v = Vec::new();
        self.leaves(ty, &mut v)?;
        Ok((start, v.len()))
    }

    /// The elements of a constant vector of integers (`None` for undef elements).
    fn scalars_const(&self, v: Value) -> LResult<Vec<Option<u32>>> {
        let k = self
            .m
            .as_constant(v)
            .ok_or_else(|| self.invalid("a shuffle mask that is not a constant"))?;
        Ok(match &k.kind {
            ConstKind::Data(d) => d.iter().map(|&x| Some(x as u32)).collect(),
            ConstKind::Aggregate(es) => es
                .iter()
                .map(|&e| self.m.const_int(e).map(|x| x as u32))
                .collect(),
            ConstKind::Null => {
                let n = match self.m.ty(k.ty) {
                    Type::Vector { len, .. } => *len as usize,
                    _ => 0,
                };
                vec![Some(0); n]
            }
            _ => return Err(self.invalid("an unsupported shuffle mask")),
        })
    }

    /// Lowers one `dx.op` call (`args` after the opcode).
    fn dx_op(&mut self, op: u32, args: &[Value]) -> LResult<()> {
        if self.io_op(op, args)?
            || self.resource_op(op, args)?
            || self.image_op(op, args)?
            || self.quad_wave_op(op, args)?
            || self.math_op(op, args)?
        {
            Ok(())
        } else {
            Err(self.not_run(format!("dx.op {} ({op})", op_name(op))))
        }
    }

    /// The `i`-th argument, or an error naming the op.
    pub(crate) fn arg(&self, args: &[Value], i: usize) -> LResult<Value> {
        args.get(i)
            .copied()
            .ok_or_else(|| self.invalid(format!("missing argument {}", i + 1)))
    }
}

/// The LLVM spelling of an instruction's kind, for messages.
fn inst_kind(i: &Instruction) -> &'static str {
    use Instruction as I;
    match i {
        I::Binary { .. } => "binary operator",
        I::Cast { .. } => "cast",
        I::Cmp { .. } => "comparison",
        I::Select { .. } => "select",
        I::ExtractValue { .. } => "extractvalue",
        I::InsertValue { .. } => "insertvalue",
        I::ExtractElement { .. } => "extractelement",
        I::InsertElement { .. } => "insertelement",
        I::ShuffleVector { .. } => "shufflevector",
        I::Gep { .. } => "getelementptr",
        I::Load { .. } => "load",
        I::Store { .. } => "store",
        I::Alloca { .. } => "alloca",
        I::Call { .. } => "call",
        I::Phi { .. } => "phi",
        I::AtomicRmw { .. } => "atomicrmw",
        I::CmpXchg { .. } => "cmpxchg",
        I::Fence { .. } => "fence",
        I::Br { .. } | I::CondBr { .. } => "br",
        I::Switch { .. } => "switch",
        I::Ret { .. } => "ret",
        I::Unreachable => "unreachable",
    }
}

/// DXC's name of a dx.op opcode, for messages.
fn op_name(op: u32) -> &'static str {
    super::ops::op_info(op).map_or("(not a dx.op opcode)", |o| o.name)
}
