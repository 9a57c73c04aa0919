//! Memory: variables in every supported storage class, access chains (constant and dynamic
//! indices) turned into address arithmetic, loads and stores of whole composites leaf by leaf,
//! `OpCopyMemory`, `OpArrayLength` and atomics.
//!
//! Per-lane (Function, Private, Input, Output) and Workgroup addresses are word indices in the
//! packed word layout of `types.rs`; buffer addresses are byte offsets in the explicit layout.
//! A pointer keeps its constant part apart from its dynamic part so that constant access chains
//! cost no instructions.
//!
//! Workgroup `Block` variables (`WorkgroupMemoryExplicitLayoutKHR`) are laid out like buffers
//! and all start at the first word of the workgroup's memory, so they alias one another as
//! SPV_KHR_workgroup_memory_explicit_layout says (Mesa: "shared blocks alias each other. We
//! will have either all blocks or all non-blocks"). The IR's workgroup memory is words, so
//! their byte addresses are divided by 4 at each access; members narrower than 32 bits
//! (the extension's 8- and 16-bit access capabilities) are not supported.

use spirv::{Decoration, Op};

use crate::front::build::IrBuilder;
use crate::ir::{self, AtomicOp, BinaryOp, Inst, Reg, ScalarTy, Space};
use crate::Result;

use super::lower::{Lower, PSpace, PtrVal, Special, TexelPtr, Val};
use super::parse::I;
use super::types::Type;

pub(crate) const SC_UNIFORM_CONSTANT: u32 = 0;
pub(crate) const SC_INPUT: u32 = 1;
pub(crate) const SC_UNIFORM: u32 = 2;
pub(crate) const SC_OUTPUT: u32 = 3;
pub(crate) const SC_WORKGROUP: u32 = 4;
pub(crate) const SC_PRIVATE: u32 = 6;
pub(crate) const SC_FUNCTION: u32 = 7;
pub(crate) const SC_PUSH_CONSTANT: u32 = 9;
pub(crate) const SC_STORAGE_BUFFER: u32 = 12;

const BLOCKS_AND_NOT: &str =
    "Workgroup variables with and without the Block decoration in one module";

impl Lower<'_> {
    fn pointee_of(&self, ptr_ty: u32) -> Result<(u32, u32)> {
        match self.ty(ptr_ty)? {
            Type::Pointer { sc, pointee } => Ok((*sc, *pointee)),
            _ => Err(self.err(&format!("%{ptr_ty} is not a pointer type"))),
        }
    }

    pub(crate) fn local_ptr(&mut self, pointee: u32, workgroup: bool) -> Result<PtrVal> {
        let n = self.words(pointee)?;
        if workgroup && self.workgroup_blocks {
            return Err(self.err(BLOCKS_AND_NOT));
        }
        let off = if workgroup {
            let o = self.workgroup_words;
            self.workgroup_words = o
                .checked_add(n)
                .ok_or_else(|| self.unsup("workgroup memory too large"))?;
            o
        } else {
            let o = self.local_words;
            self.local_words = o
                .checked_add(n)
                .ok_or_else(|| self.unsup("per-lane memory too large"))?;
            o
        };
        if self.local_words > 1 << 20 || self.workgroup_words > 1 << 20 {
            return Err(self.unsup("variables need more than 1M words of memory"));
        }
        Ok(PtrVal {
            pointee,
            space: if workgroup {
                PSpace::Workgroup
            } else {
                PSpace::Local
            },
            base: None,
            off,
            mat: None,
            vec_stride: None,
            desc_array: false,
        })
    }

    /// A Workgroup `Block` variable: at byte 0 of the workgroup memory, which grows to hold
    /// it.
    fn workgroup_block_ptr(&mut self, pointee: u32) -> Result<PtrVal> {
        if self.workgroup_words > 0 && !self.workgroup_blocks {
            return Err(self.err(BLOCKS_AND_NOT));
        }
        self.workgroup_blocks = true;
        let leaves = self.byte_leaves(pointee, None, None)?;
        let mut end = 0u32;
        for (ty, o) in leaves {
            let n = Self::scalar_bytes(ty);
            if n < 4 || o % 4 != 0 {
                return Err(self.unsup(
                    "a workgroup Block member narrower than 32 bits or not 4-byte aligned \
                     (WorkgroupMemoryExplicitLayout8BitAccessKHR / 16BitAccessKHR)",
                ));
            }
            end = end.max(o.saturating_add(n));
        }
        self.workgroup_words = self.workgroup_words.max(end.div_ceil(4));
        if self.workgroup_words > 1 << 20 {
            return Err(self.unsup("variables need more than 1M words of memory"));
        }
        Ok(PtrVal {
            pointee,
            space: PSpace::WorkgroupBlock,
            base: None,
            off: 0,
            mat: None,
            vec_stride: None,
            desc_array: false,
        })
    }

    fn init_var(&mut self, p: &PtrVal, init: Option<u32>) -> Result<()> {
        if let Some(init) = init {
            let regs = self.operand_regs(init)?;
            self.store_ptr(p, &regs)?;
        }
        Ok(())
    }

    /// A module-scope `OpVariable`.
    pub(crate) fn global_var(&mut self, i: &I) -> Result<()> {
        let (sc, pointee) = self.pointee_of(i.w(0)?)?;
        let id = i.w(1)?;
        if i.w(2)? != sc {
            return Err(i.err("storage class differs from the pointer type's"));
        }
        let init = i.w.get(3).copied();
        // Variables the entry point never references take no memory and no descriptor slot.
        if sc != SC_INPUT && sc != SC_OUTPUT && !self.used.contains(&id) {
            return Ok(());
        }
        let p = match sc {
            SC_PRIVATE => self.local_ptr(pointee, false)?,
            SC_WORKGROUP if self.m.deco(pointee, Decoration::Block).is_some() => {
                self.workgroup_block_ptr(pointee)?
            }
            SC_WORKGROUP => self.local_ptr(pointee, true)?,
            SC_INPUT | SC_OUTPUT => self.io_var(id, pointee, sc == SC_INPUT)?,
            SC_UNIFORM_CONSTANT | SC_UNIFORM | SC_STORAGE_BUFFER | SC_PUSH_CONSTANT => {
                self.resource_var(id, pointee, sc)?
            }
            SC_FUNCTION => return Err(i.err("Function storage class at module scope")),
            other => return Err(i.unsup(&format!("storage class {other}"))),
        };
        if matches!(
            p.space,
            PSpace::Local | PSpace::Workgroup | PSpace::WorkgroupBlock
        ) {
            self.init_var(&p, init)?;
        }
        self.vals.insert(id, Val::Ptr(p));
        Ok(())
    }

    /// A function-scope `OpVariable` (allocated anew at each inlined call).
    pub(crate) fn function_var(&mut self, i: &I) -> Result<()> {
        let (sc, pointee) = self.pointee_of(i.w(0)?)?;
        if sc != SC_FUNCTION || i.w(2)? != SC_FUNCTION {
            return Err(i.err("OpVariable inside a function must use the Function storage class"));
        }
        let p = self.local_ptr(pointee, false)?;
        self.init_var(&p, i.w.get(3).copied())?;
        self.vals.insert(i.w(1)?, Val::Ptr(p));
        Ok(())
    }

    pub(crate) fn ir_space(&self, p: &PtrVal) -> Result<Space> {
        Ok(match p.space {
            PSpace::Local => Space::Local,
            PSpace::Workgroup | PSpace::WorkgroupBlock => Space::Workgroup,
            PSpace::Buffer { slot, index } => Space::Buffer { slot, index },
            _ => return Err(self.err("pointer to a descriptor or built-in used as memory")),
        })
    }

    /// Address register of the pointer plus a constant offset (the word of a byte address
    /// into a workgroup block).
    pub(crate) fn addr(&mut self, p: &PtrVal, k: u32) -> Reg {
        let c = p.off.wrapping_add(k);
        let bytes = p.space == PSpace::WorkgroupBlock;
        match p.base {
            None if bytes => self.k32(c / 4),
            None => self.k32(c),
            Some(b) if c == 0 && !bytes => b,
            Some(b) => {
                let kc = self.k32(c);
                let a = self.bin(BinaryOp::IAdd, ScalarTy::I32, b, kc);
                if bytes {
                    let two = self.k32(2);
                    self.bin(BinaryOp::ShrL, ScalarTy::I32, a, two)
                } else {
                    a
                }
            }
        }
    }

    /// (leaf type, offset) of each leaf under the pointer, in its space's units.
    fn leaf_offsets(&self, p: &PtrVal) -> Result<Vec<(ScalarTy, u32)>> {
        match p.space {
            PSpace::Res { .. } | PSpace::Special(_) => Err(self.err("not a memory pointer")),
            _ if self.ptr_in_bytes(p) => self.byte_leaves(p.pointee, p.mat, p.vec_stride),
            _ => self.word_leaves(p.pointee),
        }
    }

    pub(crate) fn load_ptr(&mut self, p: &PtrVal) -> Result<Vec<Reg>> {
        if let PSpace::Special(s) = p.space {
            let n = self.leaf_count(p.pointee)?;
            return (0..n as u32)
                .map(|k| self.special_leaf(s, p.off + k))
                .collect();
        }
        let leaves = self.leaf_offsets(p)?;
        let mut out = Vec::with_capacity(leaves.len());
        for (ty, o) in leaves {
            let accesses = self.accesses(p, o)?;
            out.push(self.emit_each(ty, &accesses, |dst, ptr| Inst::Load { ty, dst, ptr }));
        }
        Ok(out)
    }

    pub(crate) fn store_ptr(&mut self, p: &PtrVal, src: &[Reg]) -> Result<()> {
        if matches!(p.space, PSpace::Special(_)) {
            return Err(self.err("store to a read-only built-in"));
        }
        let leaves = self.leaf_offsets(p)?;
        if leaves.len() != src.len() {
            return Err(self.err(&format!(
                "stored value has {} components, the pointee %{} has {}",
                src.len(),
                p.pointee,
                leaves.len()
            )));
        }
        for ((ty, o), &r) in leaves.into_iter().zip(src) {
            for a in self.accesses(p, o)? {
                self.emit(Inst::Store {
                    ty,
                    ptr: a.ptr,
                    src: r,
                });
            }
        }
        Ok(())
    }

    fn special_leaf(&mut self, s: Special, k: u32) -> Result<Reg> {
        if s == Special::Helper {
            let dst = self.reg(ScalarTy::Bool);
            self.emit(Inst::IsHelper { dst });
            return Ok(dst);
        }
        let c = k as u8;
        let what = match s {
            Special::SubgroupId => ir::LaneInfo::SubgroupInvocationId,
            Special::SubgroupSize => ir::LaneInfo::SubgroupSize,
            Special::Mask(0) => ir::LaneInfo::SubgroupEqMask(c),
            Special::Mask(1) => ir::LaneInfo::SubgroupGeMask(c),
            Special::Mask(2) => ir::LaneInfo::SubgroupGtMask(c),
            Special::Mask(3) => ir::LaneInfo::SubgroupLeMask(c),
            _ => ir::LaneInfo::SubgroupLtMask(c),
        };
        let dst = self.reg(ScalarTy::I32);
        self.emit(Inst::LaneInfo { what, dst });
        Ok(dst)
    }

    pub(crate) fn load(&mut self, i: &I) -> Result<()> {
        let (rt, id, ptr) = (i.w(0)?, i.w(1)?, i.w(2)?);
        let p = self.ptr(ptr)?;
        if let PSpace::Res { slot, index } = p.space {
            if p.desc_array {
                return Err(i.unsup("loading a whole array of descriptors"));
            }
            let r = ir::ResRef { slot, index };
            let rv = match self.ty(p.pointee)? {
                Type::Sampler => super::lower::ResVal {
                    ty: rt,
                    image: None,
                    sampler: Some(r),
                },
                _ => super::lower::ResVal {
                    ty: rt,
                    image: Some(r),
                    sampler: None,
                },
            };
            self.vals.insert(id, Val::Res(rv));
            return Ok(());
        }
        let regs = self.load_ptr(&p)?;
        self.def_checked(id, rt, regs)
    }

    pub(crate) fn store(&mut self, i: &I) -> Result<()> {
        let p = self.ptr(i.w(0)?)?;
        let src = self.operand_regs(i.w(1)?)?;
        self.store_ptr(&p, &src)
    }

    pub(crate) fn copy_memory(&mut self, i: &I) -> Result<()> {
        let dst = self.ptr(i.w(0)?)?;
        let src = self.ptr(i.w(1)?)?;
        let regs = self.load_ptr(&src)?;
        self.store_ptr(&dst, &regs)
    }

    pub(crate) fn add_dynamic(&mut self, p: &mut PtrVal, idx: u32, stride: u32) -> Result<()> {
        let r = self.reg1(idx)?;
        let r = self.as_i32(r);
        let ks = self.k32(stride);
        let d = if stride == 1 {
            r
        } else {
            self.bin(BinaryOp::IMul, ScalarTy::I32, r, ks)
        };
        p.base = Some(match p.base {
            None => d,
            Some(b) => self.bin(BinaryOp::IAdd, ScalarTy::I32, b, d),
        });
        Ok(())
    }

    pub(crate) fn access_chain(&mut self, i: &I) -> Result<()> {
        let p = self.ptr(i.w(2)?)?;
        self.chain(i, p, 3)
    }

    /// Index pointer `p` by the operands of `i` from word `first` on (an access chain's
    /// indexes) and define `i`'s result.
    pub(crate) fn chain(&mut self, i: &I, mut p: PtrVal, first: usize) -> Result<()> {
        let id = i.w(1)?;
        for &idx in i.rest(first) {
            let konst = self.const_u64(idx);
            if p.desc_array {
                let elem = match self.ty(p.pointee)? {
                    Type::Array { elem, .. } | Type::RuntimeArray { elem } => *elem,
                    _ => return Err(i.err("descriptor array is not an array")),
                };
                let r = self.reg1(idx)?;
                let r = self.as_i32(r);
                p.space = match p.space {
                    PSpace::Buffer { slot, .. } => PSpace::Buffer {
                        slot,
                        index: Some(r),
                    },
                    PSpace::Res { slot, .. } => PSpace::Res {
                        slot,
                        index: Some(r),
                    },
                    s => s,
                };
                p.pointee = elem;
                p.desc_array = false;
                continue;
            }
            let memory = !matches!(p.space, PSpace::Res { .. } | PSpace::Special(_));
            let bytes = memory && self.ptr_in_bytes(&p);
            let unit_local = memory && !bytes;
            let special = matches!(p.space, PSpace::Special(_));
            if !unit_local && !special && !bytes {
                return Err(i.err("access chain into a descriptor"));
            }
            let t = self.ty(p.pointee)?.clone();
            let (child, stride) = match t {
                Type::Struct { ref members } => {
                    let k = konst.ok_or_else(|| i.err("struct index must be a constant"))?;
                    let m = *members
                        .get(k as usize)
                        .ok_or_else(|| i.err(&format!("struct member index {k} out of range")))?;
                    if unit_local {
                        let (_, o) = self.word_child(p.pointee, k as u32)?;
                        p.off = p.off.wrapping_add(o);
                    } else if special {
                        let (_, o, _) = self.child(p.pointee, k as u32)?;
                        p.off += o as u32;
                    } else {
                        let o = self.member_offset(p.pointee, k as u32)?;
                        p.mat = self.member_mat(p.pointee, k as u32);
                        p.off = p.off.wrapping_add(o);
                    }
                    p.vec_stride = None;
                    p.pointee = m;
                    continue;
                }
                Type::Array { elem, .. } | Type::RuntimeArray { elem } => {
                    let s = if unit_local {
                        self.words(elem)?
                    } else if special {
                        self.leaf_count(elem)? as u32
                    } else {
                        self.array_stride(p.pointee)?
                    };
                    p.vec_stride = None;
                    (elem, s)
                }
                Type::Matrix { col, .. } => {
                    let s = if unit_local {
                        self.words(col)?
                    } else if special {
                        self.leaf_count(col)? as u32
                    } else {
                        let (cs, comp) = self.matrix_strides(col, p.mat)?;
                        p.vec_stride = Some(comp);
                        cs
                    };
                    (col, s)
                }
                Type::Vector { elem, .. } => {
                    let s = if unit_local {
                        self.words(elem)?
                    } else if special {
                        1
                    } else {
                        p.vec_stride
                            .unwrap_or(Self::scalar_bytes(self.scalar_of(elem)?))
                    };
                    p.vec_stride = None;
                    (elem, s)
                }
                _ => return Err(i.err("access chain indexes into a non-composite type")),
            };
            let block = matches!(
                p.space,
                PSpace::WorkgroupBlock
                    | PSpace::Var {
                        sc: SC_WORKGROUP,
                        ..
                    }
            );
            if bytes && block && stride % 4 != 0 {
                return Err(i.unsup(&format!(
                    "a workgroup Block element stride of {stride} bytes (not a multiple of 4)"
                )));
            }
            match konst {
                Some(k) => p.off = p.off.wrapping_add((k as u32).wrapping_mul(stride)),
                None if special => return Err(i.unsup("dynamic index into a built-in")),
                None => self.add_dynamic(&mut p, idx, stride)?,
            }
            p.pointee = child;
        }
        let (_, want) = self.pointee_of(i.w(0)?)?;
        if want != p.pointee && self.leaf_count(want).ok() != self.leaf_count(p.pointee).ok() {
            return Err(i.err("access chain result type does not match the indexed type"));
        }
        p.pointee = want;
        self.vals.insert(id, Val::Ptr(p));
        Ok(())
    }

    /// `OpPtrEqual` / `OpPtrNotEqual` (SPIR-V 1.4, logical pointers): pointers into different
    /// variables differ; into the same one they compare by address.
    pub(crate) fn ptr_equal(&mut self, i: &I) -> Result<()> {
        let (rt, id) = (i.w(0)?, i.w(1)?);
        let a = self.ptr(i.w(2)?)?;
        let b = self.ptr(i.w(3)?)?;
        let eq = i.op == Op::PtrEqual;
        if matches!(a.space, PSpace::Var { .. }) || matches!(b.space, PSpace::Var { .. }) {
            let r = self.runtime_ptr_equal(i.op, &a, &b)?;
            return self.def_checked(id, rt, vec![r]);
        }
        let same_space = match (a.space, b.space) {
            (PSpace::Buffer { slot: s, index: x }, PSpace::Buffer { slot: t, index: y }) => {
                s == t && x == y
            }
            (x, y) => x == y,
        };
        // Local/Workgroup addresses identify the variable; buffers compare within one slot.
        let r = if !same_space || matches!(a.space, PSpace::Res { .. } | PSpace::Special(_)) {
            let same = same_space && a.off == b.off && a.base == b.base;
            self.konst(ScalarTy::Bool, (same == eq) as u64)
        } else {
            let (x, y) = (self.addr(&a, 0), self.addr(&b, 0));
            let op = if eq { BinaryOp::IEq } else { BinaryOp::INe };
            self.bin(op, ScalarTy::I32, x, y)
        };
        self.def_checked(id, rt, vec![r])
    }

    pub(crate) fn array_length(&mut self, i: &I) -> Result<()> {
        let (rt, id, sp, k) = (i.w(0)?, i.w(1)?, i.w(2)?, i.w(3)?);
        let p = self.ptr(sp)?;
        let (slot, index) = match p.space {
            PSpace::Buffer { slot, index } => (slot, index),
            _ => return Err(i.err("OpArrayLength of a non-buffer pointer")),
        };
        let members = match self.ty(p.pointee)? {
            Type::Struct { members } => members.clone(),
            _ => return Err(i.err("OpArrayLength structure is not a struct")),
        };
        let mty = *members
            .get(k as usize)
            .ok_or_else(|| i.err("member index out of range"))?;
        if !matches!(self.ty(mty)?, Type::RuntimeArray { .. }) {
            return Err(i.err("OpArrayLength member is not a runtime array"));
        }
        let offset = p.off.wrapping_add(self.member_offset(p.pointee, k)?);
        let stride = self.array_stride(mty)?;
        if stride == 0 || p.base.is_some() {
            return Err(i.err("OpArrayLength with zero stride or dynamic base"));
        }
        let dst = self.reg(ScalarTy::I32);
        self.emit(Inst::ArrayLength {
            dst,
            slot,
            index,
            offset,
            stride,
        });
        self.def_checked(id, rt, vec![dst])
    }

    pub(crate) fn atomic(&mut self, i: &I) -> Result<()> {
        let (op, ptr_at) = match i.op {
            Op::AtomicStore => (AtomicOp::Store, 0),
            Op::AtomicLoad => (AtomicOp::Load, 2),
            Op::AtomicExchange => (AtomicOp::Exchange, 2),
            Op::AtomicCompareExchange => (AtomicOp::CompareExchange, 2),
            Op::AtomicIIncrement => (AtomicOp::IIncrement, 2),
            Op::AtomicIDecrement => (AtomicOp::IDecrement, 2),
            Op::AtomicIAdd => (AtomicOp::IAdd, 2),
            Op::AtomicISub => (AtomicOp::ISub, 2),
            Op::AtomicSMin => (AtomicOp::SMin, 2),
            Op::AtomicUMin => (AtomicOp::UMin, 2),
            Op::AtomicSMax => (AtomicOp::SMax, 2),
            Op::AtomicUMax => (AtomicOp::UMax, 2),
            Op::AtomicAnd => (AtomicOp::And, 2),
            Op::AtomicOr => (AtomicOp::Or, 2),
            Op::AtomicXor => (AtomicOp::Xor, 2),
            _ => return Err(i.err("not an atomic")),
        };
        if let Val::Texel(t) = self.val(i.w(ptr_at)?)? {
            return self.image_atomic(i, op, t.clone());
        }
        let p = self.ptr(i.w(ptr_at)?)?;
        let ty = self.scalar_of(p.pointee)?;
        let float_ok = matches!(op, AtomicOp::Load | AtomicOp::Store | AtomicOp::Exchange);
        if !(ty.is_int() || ty.is_float() && float_ok) {
            return Err(i.unsup("atomic on a non-integer type"));
        }
        let accesses = self.accesses(&p, 0)?;
        let zero = self.konst(ty, 0);
        let (a, b) = match op {
            AtomicOp::Store => (self.reg1(i.w(3)?)?, zero),
            AtomicOp::Load | AtomicOp::IIncrement | AtomicOp::IDecrement => (zero, zero),
            AtomicOp::CompareExchange => (self.reg1(i.w(6)?)?, self.reg1(i.w(7)?)?),
            _ => (self.reg1(i.w(5)?)?, zero),
        };
        let dst = self.emit_each(ty, &accesses, |dst, ptr| Inst::Atomic {
            op,
            ty,
            dst,
            ptr,
            a,
            b,
        });
        if op != AtomicOp::Store {
            self.def_checked(i.w(1)?, i.w(0)?, vec![dst])?;
        }
        Ok(())
    }

    /// `OpImageTexelPointer`: remembered, for the atomics that use it.
    pub(crate) fn texel_pointer(&mut self, i: &I) -> Result<()> {
        let (_, pointee) = self.pointee_of(i.w(0)?)?;
        let ty = self.scalar_of(pointee)?;
        let image = match self.ptr(i.w(2)?)?.space {
            PSpace::Res { slot, index } => ir::ResRef { slot, index },
            _ => return Err(i.err("OpImageTexelPointer of something not an image variable")),
        };
        let coords = self
            .regs(i.w(3)?)?
            .into_iter()
            .map(|r| self.as_i32(r))
            .collect();
        let sample = self.reg1(i.w(4)?)?;
        let sample = self.as_i32(sample);
        self.vals.insert(
            i.w(1)?,
            Val::Texel(TexelPtr {
                image,
                coords,
                sample,
                ty,
            }),
        );
        Ok(())
    }

    /// An atomic on an image texel: an image instruction (32-bit integer texels).
    fn image_atomic(&mut self, i: &I, op: AtomicOp, t: TexelPtr) -> Result<()> {
        if !matches!(t.ty, ScalarTy::I32) {
            return Err(i.unsup(&format!("image atomic on a {:?} texel", t.ty)));
        }
        let zero = self.konst(t.ty, 0);
        let (a, b) = match op {
            AtomicOp::Store => (self.reg1(i.w(3)?)?, zero),
            AtomicOp::Load | AtomicOp::IIncrement | AtomicOp::IDecrement => (zero, zero),
            AtomicOp::CompareExchange => (self.reg1(i.w(6)?)?, self.reg1(i.w(7)?)?),
            _ => (self.reg1(i.w(5)?)?, zero),
        };
        let dst = self.reg(t.ty);
        let inst = ir::ImageInst {
            kind: ir::ImageOpKind::Atomic(op),
            image: t.image,
            sampler: None,
            coords: t.coords,
            proj: None,
            dref: None,
            lod: ir::Lod::None,
            offset: Vec::new(),
            offsets4: None,
            min_lod: None,
            sample: Some(t.sample),
            component: None,
            texel: vec![a, b],
            dst: vec![dst],
            result_ty: t.ty,
        };
        self.emit(Inst::Image(Box::new(inst)));
        if op != AtomicOp::Store {
            self.def_checked(i.w(1)?, i.w(0)?, vec![dst])?;
        }
        Ok(())
    }

    /// Whether a variable is a `Block`/`BufferBlock` decorated struct (or array of them).
    pub(crate) fn block_kind(&self, pointee: u32) -> Result<(u32, bool, bool)> {
        let (st, arrayed) = match self.ty(pointee)? {
            Type::Array { elem, .. } | Type::RuntimeArray { elem } => (*elem, true),
            _ => (pointee, false),
        };
        let buffer_block = self.m.deco(st, Decoration::BufferBlock).is_some();
        Ok((st, arrayed, buffer_block))
    }
}
