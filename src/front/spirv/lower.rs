//! The lowering driver: the `Lower` state (the function being built, through
//! `front::build`'s builder; value map, type table), global declarations, and the
//! per-instruction dispatch to the files that own each concern.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use spirv::Op;

use crate::front::build::IrBuilder;
use crate::ir::{self, Block, BlockId, Const, Inst, Reg, ScalarTy, Terminator, UnaryOp};
use crate::{Error, Result};

use super::parse::{Parsed, I};
use super::types::{MatLayout, Type};
use super::SpecConstants;

/// Built-ins whose loads become instructions rather than memory reads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Special {
    Helper,
    SubgroupId,
    SubgroupSize,
    /// 0 = eq, 1 = ge, 2 = gt, 3 = le, 4 = lt.
    Mask(u8),
}

/// Where a pointer points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum PSpace {
    Local,
    Workgroup,
    /// Workgroup memory in explicit layout (a `Block` variable, `WorkgroupMemoryExplicitLayoutKHR`):
    /// byte offsets as in a buffer, every such variable starting at the workgroup memory's
    /// first word, so that they alias.
    WorkgroupBlock,
    Buffer {
        slot: u32,
        index: Option<Reg>,
    },
    /// A descriptor (image/sampler) variable.
    Res {
        slot: u32,
        index: Option<Reg>,
    },
    Special(Special),
    /// A pointer chosen at run time (`varptr.rs`): `target` says which space of storage class
    /// `sc` it points into; its address is `base` + `off`.
    Var {
        sc: u32,
        target: Reg,
    },
}

/// A pointer value: an address (constant part plus optional dynamic part) into a space.
#[derive(Clone, Debug)]
pub(crate) struct PtrVal {
    pub pointee: u32,
    pub space: PSpace,
    /// Dynamic part of the address (I32), added to `off`.
    pub base: Option<Reg>,
    /// Constant part: words (Local/Workgroup), bytes (Buffer/WorkgroupBlock), leaf index
    /// (Special).
    pub off: u32,
    /// Buffer layout context for matrices under this pointer.
    pub mat: Option<MatLayout>,
    /// Component stride of a vector that is a row-major matrix column.
    pub vec_stride: Option<u32>,
    /// The pointee is an array of descriptors: the first index selects the descriptor.
    pub desc_array: bool,
}

/// An image, sampler or sampled-image handle.
#[derive(Clone, Debug)]
pub(crate) struct ResVal {
    pub ty: u32,
    pub image: Option<ir::ResRef>,
    pub sampler: Option<ir::ResRef>,
}

/// What a SPIR-V id stands for during lowering.
#[derive(Clone, Debug)]
pub(crate) enum Val {
    /// A (scalarised) value of type `ty`: one register per leaf.
    Regs {
        ty: u32,
        regs: Vec<Reg>,
    },
    Ptr(PtrVal),
    Res(ResVal),
    /// An extended instruction set (true: GLSL.std.450).
    ExtSet(bool),
    /// An `OpImageTexelPointer`: the storage image texel an atomic works on.
    Texel(TexelPtr),
}

/// The texel of an `OpImageTexelPointer`: image, integer coordinates (array layer last) and
/// sample, and the texel's scalar type.
#[derive(Clone, Debug)]
pub(crate) struct TexelPtr {
    pub image: ir::ResRef,
    pub coords: Vec<Reg>,
    pub sample: Reg,
    pub ty: ScalarTy,
}

/// A phi to resolve on the edges into a block.
#[derive(Clone, Debug)]
pub(crate) struct PhiInfo {
    pub regs: Vec<Reg>,
    /// (value id, predecessor label)
    pub incoming: Vec<(u32, u32)>,
}

/// One inlined function's return point.
pub(crate) struct Frame {
    pub func: u32,
    /// Which inlined instance of `func` this is (numbers every `inline_function` call).
    pub instance: u32,
    pub ret_block: Option<BlockId>,
    pub ret_regs: Vec<Reg>,
}

/// A structured construct of one inlined function instance, as IR blocks: its header, its
/// merge block and, for a loop, its continue target.
pub(crate) struct Construct {
    pub instance: u32,
    pub header: BlockId,
    pub merge: BlockId,
    pub cont: Option<BlockId>,
}

/// An `OpKill` / `OpTerminateInvocation` block of an inlined function instance, and where its
/// lanes go on if no construct of the instance holds it (the call's continuation).
pub(crate) struct KillSite {
    pub instance: u32,
    pub block: BlockId,
    pub ret: Option<BlockId>,
}

pub(crate) struct Lower<'m> {
    pub m: &'m Parsed,
    pub spec: &'m SpecConstants,
    pub stage: ir::Stage,
    pub entry_func: u32,
    pub derivative_group: Option<ir::DerivativeGroup>,
    pub types: HashMap<u32, Type>,
    /// Scalar leaves per type id (types never change once declared).
    pub leaf_cache: RefCell<HashMap<u32, Vec<ScalarTy>>>,
    pub vals: HashMap<u32, Val>,
    /// Constant ids: their type and leaf bits (for array lengths, indices, spec folding).
    pub cvals: HashMap<u32, (u32, Vec<u64>)>,
    pub f: ir::Function,
    pub const_regs: HashMap<Const, Reg>,
    pub cur: BlockId,
    /// Whether the current block has been given its terminator.
    pub terminated: bool,
    pub cur_label: u32,
    pub cur_off: u32,
    pub labels: HashMap<u32, BlockId>,
    pub phis: HashMap<u32, Vec<PhiInfo>>,
    pub frames: Vec<Frame>,
    pub local_words: u32,
    pub workgroup_words: u32,
    /// The Workgroup variables are `Block`s in explicit layout (they alias one another and
    /// a module has either only those or none).
    pub workgroup_blocks: bool,
    pub inputs: Vec<ir::IoVar>,
    pub outputs: Vec<ir::IoVar>,
    pub resources: Vec<ir::Resource>,
    pub writes_depth: bool,
    pub can_discard: bool,
    /// Whose value the interface variable being declared is (`IoVar::per` of what it adds).
    pub io_per: ir::IoPer,
    /// Interface ids of the entry point.
    pub interface: Vec<u32>,
    /// Inlined function instances so far, and their structured constructs and kills (the
    /// kills' resume blocks are found once the whole body is lowered: `resolve_kills`).
    pub instances: u32,
    pub constructs: Vec<Construct>,
    pub kills: Vec<KillSite>,
    /// Every id mentioned by the functions the entry point can reach (over-approximation:
    /// literal words count too), to skip globals the entry point never uses.
    pub used: HashSet<u32>,
}

crate::front::build::builder_in_fields!(Lower<'_>);

impl<'m> Lower<'m> {
    pub(crate) fn new(m: &'m Parsed, spec: &'m SpecConstants, stage: ir::Stage) -> Self {
        let mut f = ir::Function::default();
        f.blocks.push(Block {
            insts: Vec::new(),
            term: Terminator::Unreachable,
        });
        Lower {
            m,
            spec,
            stage,
            entry_func: 0,
            derivative_group: None,
            types: HashMap::new(),
            leaf_cache: RefCell::new(HashMap::new()),
            vals: HashMap::new(),
            cvals: HashMap::new(),
            f,
            const_regs: HashMap::new(),
            cur: 0,
            terminated: false,
            cur_label: 0,
            cur_off: 0,
            labels: HashMap::new(),
            phis: HashMap::new(),
            frames: Vec::new(),
            local_words: 0,
            workgroup_words: 0,
            workgroup_blocks: false,
            inputs: Vec::new(),
            outputs: Vec::new(),
            resources: Vec::new(),
            writes_depth: false,
            can_discard: false,
            io_per: ir::IoPer::Invocation,
            interface: Vec::new(),
            instances: 0,
            constructs: Vec::new(),
            kills: Vec::new(),
            used: HashSet::new(),
        }
    }

    /// " (at word offset N)" for error messages.
    pub(crate) fn at(&self) -> String {
        format!(" (at word offset {})", self.cur_off)
    }

    pub(crate) fn err(&self, msg: &str) -> Error {
        Error::Spirv(format!("word offset {}: {msg}", self.cur_off))
    }

    pub(crate) fn unsup(&self, msg: &str) -> Error {
        Error::Unsupported(format!("SPIR-V word offset {}: {msg}", self.cur_off))
    }

    // ---- builder ----

    /// A geometry shader's `EmitVertex` (`vertex`) or `EndPrimitive` on `stream`.
    pub(crate) fn emit_geometry(&mut self, vertex: bool, stream: u32) {
        self.emit(match vertex {
            true => Inst::Emit { stream },
            false => Inst::EndPrimitive { stream },
        });
    }

    pub(crate) fn terminate(&mut self, t: Terminator) {
        let b = self.cur as usize;
        self.f.blocks[b].term = t;
        self.terminated = true;
    }

    pub(crate) fn conv(&mut self, op: ir::ConvOp, from: ScalarTy, to: ScalarTy, a: Reg) -> Reg {
        if from == to
            && matches!(
                op,
                ir::ConvOp::UConvert | ir::ConvOp::SConvert | ir::ConvOp::Bitcast
            )
        {
            return a;
        }
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

    pub(crate) fn mov(&mut self, ty: ScalarTy, a: Reg) -> Reg {
        let dst = self.reg(ty);
        self.emit(Inst::Unary {
            op: UnaryOp::Mov,
            ty,
            dst,
            a,
        });
        dst
    }

    /// Register type.
    pub(crate) fn rty(&self, r: Reg) -> ScalarTy {
        self.f.regs[r as usize]
    }

    /// Converts an integer register to I32 (indices, offsets, counts).
    pub(crate) fn as_i32(&mut self, r: Reg) -> Reg {
        let t = self.rty(r);
        match t {
            ScalarTy::I32 => r,
            ScalarTy::I8 | ScalarTy::I16 | ScalarTy::I64 => {
                self.conv(ir::ConvOp::SConvert, t, ScalarTy::I32, r)
            }
            _ => r,
        }
    }

    // ---- values ----

    pub(crate) fn val(&self, id: u32) -> Result<&Val> {
        self.vals.get(&id).ok_or_else(|| {
            if id >= self.m.bound {
                self.err(&format!(
                    "id %{id} is out of bounds (bound {})",
                    self.m.bound
                ))
            } else {
                self.err(&format!(
                    "id %{id} is used but not defined (or not before its use)"
                ))
            }
        })
    }

    /// The registers of a value id.
    pub(crate) fn regs(&self, id: u32) -> Result<Vec<Reg>> {
        match self.val(id)? {
            Val::Regs { regs, .. } => Ok(regs.clone()),
            _ => Err(self.err(&format!(
                "%{id} is not a value (pointer or handle used as a value)"
            ))),
        }
    }

    /// The type id of a value id.
    pub(crate) fn vty(&self, id: u32) -> Result<u32> {
        match self.val(id)? {
            Val::Regs { ty, .. } => Ok(*ty),
            Val::Ptr(_) | Val::Texel(_) => {
                Err(self.err(&format!("%{id} is a pointer, a value was expected")))
            }
            Val::Res(r) => Ok(r.ty),
            Val::ExtSet(_) => Err(self.err(&format!("%{id} is an instruction set"))),
        }
    }

    /// A single scalar register of a value id.
    pub(crate) fn reg1(&self, id: u32) -> Result<Reg> {
        let r = self.regs(id)?;
        if r.len() != 1 {
            return Err(self.err(&format!("%{id} must be a scalar")));
        }
        Ok(r[0])
    }

    pub(crate) fn ptr(&self, id: u32) -> Result<PtrVal> {
        match self.val(id)? {
            Val::Ptr(p) => Ok(p.clone()),
            Val::Regs { ty, regs } if matches!(self.ty(*ty), Ok(Type::Pointer { .. })) => {
                self.var_ptr(id, *ty, regs)
            }
            _ => Err(self.err(&format!("%{id} is not a pointer"))),
        }
    }

    pub(crate) fn def(&mut self, id: u32, ty: u32, regs: Vec<Reg>) {
        self.vals.insert(id, Val::Regs { ty, regs });
    }

    /// Checks that `regs` matches the leaves of type `ty`, then defines `id`.
    pub(crate) fn def_checked(&mut self, id: u32, ty: u32, regs: Vec<Reg>) -> Result<()> {
        let n = self.leaf_count(ty)?;
        if n != regs.len() {
            return Err(self.err(&format!(
                "result %{id} has {} components but its type %{ty} has {n}",
                regs.len()
            )));
        }
        self.def(id, ty, regs);
        Ok(())
    }

    /// An integer constant id's value (zero-extended bits), if `id` is a scalar constant.
    pub(crate) fn const_u64(&self, id: u32) -> Option<u64> {
        let (_, v) = self.cvals.get(&id)?;
        if v.len() == 1 {
            Some(v[0])
        } else {
            None
        }
    }

    /// Registers for a constant with the given leaf bits.
    pub(crate) fn const_regs(&mut self, ty: u32, bits: &[u64]) -> Result<Vec<Reg>> {
        let leaves = self.leaves(ty)?;
        if leaves.len() != bits.len() {
            return Err(self.err("constant does not match its type"));
        }
        Ok(leaves
            .iter()
            .zip(bits)
            .map(|(s, b)| self.konst(*s, *b))
            .collect())
    }

    // ---- globals ----

    /// Declares types, constants and global variables in module order.
    pub(crate) fn declare_globals(&mut self) -> Result<()> {
        let m = self.m;
        for (&id, &is_glsl) in &m.ext_sets {
            self.vals.insert(id, Val::ExtSet(is_glsl));
        }
        for &idx in &m.globals {
            let i = m.inst(idx);
            self.cur_off = i.off;
            match i.op {
                Op::TypeVoid
                | Op::TypeBool
                | Op::TypeInt
                | Op::TypeFloat
                | Op::TypeVector
                | Op::TypeMatrix
                | Op::TypeImage
                | Op::TypeSampler
                | Op::TypeSampledImage
                | Op::TypeArray
                | Op::TypeRuntimeArray
                | Op::TypeStruct
                | Op::TypePointer
                | Op::TypeFunction => self.declare_type(&i)?,
                Op::Variable => self.global_var(&i)?,
                Op::Undef => {
                    let ty = i.w(0)?;
                    let n = self.leaf_count(ty)?;
                    self.cvals.insert(i.w(1)?, (ty, vec![0; n]));
                    let regs = self.const_regs(ty, &vec![0; n])?;
                    self.def(i.w(1)?, ty, regs);
                }
                _ => self.constant(&i)?,
            }
        }
        Ok(())
    }

    // ---- dispatch ----

    /// Lowers one instruction of a function body (terminators and phis excluded).
    pub(crate) fn lower_inst(&mut self, i: &I) -> Result<()> {
        self.cur_off = i.off;
        match i.op {
            Op::Nop
            | Op::Line
            | Op::NoLine
            | Op::LoopMerge
            | Op::SelectionMerge
            | Op::MemoryBarrier
            | Op::Phi
            | Op::Name
            | Op::ModuleProcessed
            | Op::Source
            | Op::SourceContinued
            | Op::String => Ok(()),
            Op::Variable => self.function_var(i),
            Op::Undef => {
                let ty = i.w(0)?;
                let n = self.leaf_count(ty)?;
                let regs = self.const_regs(ty, &vec![0; n])?;
                self.def(i.w(1)?, ty, regs);
                Ok(())
            }
            Op::Load => self.load(i),
            Op::Store => self.store(i),
            Op::CopyMemory => self.copy_memory(i),
            Op::AccessChain | Op::InBoundsAccessChain => self.access_chain(i),
            Op::ArrayLength => self.array_length(i),
            Op::PtrEqual | Op::PtrNotEqual => self.ptr_equal(i),
            Op::PtrAccessChain | Op::InBoundsPtrAccessChain => self.ptr_access_chain(i),
            Op::PtrDiff => self.ptr_diff(i),
            Op::AtomicLoad
            | Op::AtomicStore
            | Op::AtomicExchange
            | Op::AtomicCompareExchange
            | Op::AtomicIIncrement
            | Op::AtomicIDecrement
            | Op::AtomicIAdd
            | Op::AtomicISub
            | Op::AtomicSMin
            | Op::AtomicUMin
            | Op::AtomicSMax
            | Op::AtomicUMax
            | Op::AtomicAnd
            | Op::AtomicOr
            | Op::AtomicXor => self.atomic(i),
            Op::ImageTexelPointer => self.texel_pointer(i),
            Op::EmitVertex | Op::EndPrimitive => {
                self.emit_geometry(i.op == Op::EmitVertex, 0);
                Ok(())
            }
            Op::EmitStreamVertex | Op::EndStreamPrimitive => {
                let stream = self
                    .const_u64(i.w(0)?)
                    .ok_or_else(|| i.err("the stream of a geometry emit is not a constant"))?;
                self.emit_geometry(i.op == Op::EmitStreamVertex, stream as u32);
                Ok(())
            }
            Op::FunctionCall => self.call(i),
            Op::ExtInst => self.ext_inst(i),
            Op::SampledImage
            | Op::Image
            | Op::ImageSampleImplicitLod
            | Op::ImageSampleExplicitLod
            | Op::ImageSampleDrefImplicitLod
            | Op::ImageSampleDrefExplicitLod
            | Op::ImageSampleProjImplicitLod
            | Op::ImageSampleProjExplicitLod
            | Op::ImageSampleProjDrefImplicitLod
            | Op::ImageSampleProjDrefExplicitLod
            | Op::ImageFetch
            | Op::ImageGather
            | Op::ImageDrefGather
            | Op::ImageRead
            | Op::ImageWrite
            | Op::ImageQuerySizeLod
            | Op::ImageQuerySize
            | Op::ImageQueryLod
            | Op::ImageQueryLevels
            | Op::ImageQuerySamples => self.image(i),
            Op::DPdx
            | Op::DPdy
            | Op::Fwidth
            | Op::DPdxFine
            | Op::DPdyFine
            | Op::FwidthFine
            | Op::DPdxCoarse
            | Op::DPdyCoarse
            | Op::FwidthCoarse => self.deriv(i),
            Op::ControlBarrier => {
                self.emit(Inst::Barrier);
                Ok(())
            }
            Op::DemoteToHelperInvocation => {
                self.can_discard = true;
                self.emit(Inst::Demote);
                Ok(())
            }
            Op::GroupNonUniformQuadAllKHR | Op::GroupNonUniformQuadAnyKHR => {
                let a = self.reg1(i.w(2)?)?;
                let dst = self.reg(ScalarTy::Bool);
                self.emit(Inst::QuadVote {
                    all: i.op == Op::GroupNonUniformQuadAllKHR,
                    dst,
                    a,
                });
                self.def_checked(i.w(1)?, i.w(0)?, vec![dst])
            }
            Op::IsHelperInvocationEXT => {
                let dst = self.reg(ScalarTy::Bool);
                self.emit(Inst::IsHelper { dst });
                self.def_checked(i.w(1)?, i.w(0)?, vec![dst])
            }
            op if (op as u32) >= Op::GroupNonUniformElect as u32
                && (op as u32) <= Op::GroupNonUniformQuadSwap as u32 =>
            {
                self.group(i)
            }
            _ => self.arith(i),
        }
    }
}

/// Canonical constant bits: zero-extended to the type's width (Bool: 0/1).
pub(crate) use crate::front::build::canon;
