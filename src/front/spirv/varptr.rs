//! Pointers as run-time values (`VariablePointers`, `VariablePointersStorageBuffer`): what a
//! pointer becomes where it cannot be resolved while lowering, and memory accesses through it.
//!
//! Most pointers are static: a [`PtrVal`] names its space (a variable, a buffer slot) and its
//! address is a constant plus at most one register, so every access is one IR load or store.
//! A pointer chosen at run time — by `OpSelect`, `OpPhi`, a function returning one, a pointer
//! loaded from Function or Private memory — is instead two I32 registers, the pointer type's
//! two leaves (`types.rs`):
//!
//! - the **target**: 0 for the null pointer; 1 for per-lane (Local) or workgroup memory, of
//!   which a module has one space each; for a buffer, its resource slot + 1 in the low 16 bits
//!   and its descriptor array element in the high 16 bits;
//! - the **address** in the space's own units: bytes in buffers and explicit-layout workgroup
//!   memory, words in per-lane and implicit-layout workgroup memory.
//!
//! All-zero bits are the null pointer, so `OpConstantNull`, `OpUndef` and zeroed memory give
//! null. Such a value is a [`PtrVal`] in space [`PSpace::Var`] while it is being indexed, so
//! access chains go on adding constant and register offsets as for static pointers.
//!
//! An access through a run-time pointer is one IR access per space the pointer's storage class
//! can reach (every buffer slot of the class; the one Local or workgroup space), each at the
//! address where the target matches and at an address past every memory's end where it does not.
//! The IR's accesses are robust (loads out of bounds read 0, stores are dropped, atomics do
//! nothing and return 0), so the lanes aimed elsewhere, and every lane of a null pointer, touch
//! nothing; a load's result is picked from the access whose target matched. A lane whose own
//! address is out of bounds gets exactly what a static pointer out of bounds gets. Only shaders
//! with run-time pointers pay for this: static pointers lower as they always did.

use spirv::Op;

use crate::front::build::IrBuilder;
use crate::ir::{self, BinaryOp, Inst, Reg, ScalarTy, Space, TernaryOp};
use crate::Result;

use super::lower::{Lower, PSpace, PtrVal, Val};
use super::memory::{
    SC_FUNCTION, SC_PRIVATE, SC_PUSH_CONSTANT, SC_STORAGE_BUFFER, SC_UNIFORM, SC_WORKGROUP,
};
use super::parse::I;
use super::types::Type;

/// The target of per-lane and workgroup memory (one space each).
const TARGET_MEMORY: u32 = 1;
/// An address past the end of every memory: robust accesses there touch nothing.
const NOWHERE: u64 = u32::MAX as u64;

/// One IR access an access through a pointer becomes: where, and (for a run-time pointer) the
/// lanes whose target it is.
pub(crate) struct Access {
    pub ptr: ir::Ptr,
    pub hit: Option<Reg>,
}

impl Lower<'_> {
    /// The registers of an operand, a pointer as its run-time value (target, address).
    pub(crate) fn operand_regs(&mut self, id: u32) -> Result<Vec<Reg>> {
        match self.val(id)? {
            Val::Ptr(p) => {
                let p = p.clone();
                Ok(self.runtime_ptr(&p)?.to_vec())
            }
            _ => self.regs(id),
        }
    }

    /// A pointer value held in registers (`regs`: target, address) of pointer type `ty`.
    pub(crate) fn var_ptr(&self, id: u32, ty: u32, regs: &[Reg]) -> Result<PtrVal> {
        let (sc, pointee) = match self.ty(ty)? {
            Type::Pointer { sc, pointee } => (*sc, *pointee),
            _ => return Err(self.err(&format!("%{id} is not a pointer"))),
        };
        let [target, addr] = regs else {
            return Err(self.err(&format!("pointer %{id} is not a (target, address) pair")));
        };
        Ok(PtrVal {
            pointee,
            space: PSpace::Var {
                sc,
                target: *target,
            },
            base: Some(*addr),
            off: 0,
            mat: None,
            vec_stride: None,
            desc_array: false,
        })
    }

    /// Whether addresses of a pointer are bytes (buffers, explicit-layout workgroup memory)
    /// rather than words.
    pub(crate) fn ptr_in_bytes(&self, p: &PtrVal) -> bool {
        match p.space {
            PSpace::Buffer { .. } | PSpace::WorkgroupBlock => true,
            PSpace::Var { sc, .. } => {
                sc != SC_FUNCTION
                    && sc != SC_PRIVATE
                    && (sc != SC_WORKGROUP || self.workgroup_blocks)
            }
            _ => false,
        }
    }

    /// The address of a pointer in its space's units (bytes or words), as one register.
    fn unit_addr(&mut self, p: &PtrVal) -> Reg {
        match p.base {
            None => self.k32(p.off),
            Some(b) if p.off == 0 => b,
            Some(b) => {
                let k = self.k32(p.off);
                self.bin(BinaryOp::IAdd, ScalarTy::I32, b, k)
            }
        }
    }

    /// A pointer's run-time value: (target, address).
    pub(crate) fn runtime_ptr(&mut self, p: &PtrVal) -> Result<[Reg; 2]> {
        if p.desc_array {
            return Err(self.unsup("a pointer to a whole array of descriptors as a value"));
        }
        let target = match p.space {
            PSpace::Var { target, .. } => target,
            PSpace::Local | PSpace::Workgroup | PSpace::WorkgroupBlock => self.k32(TARGET_MEMORY),
            PSpace::Buffer { slot, index } => {
                if slot >= 0xFFFF {
                    return Err(self.unsup("a pointer into one of more than 65534 resources"));
                }
                let k = self.k32(slot + 1);
                match index {
                    None => k,
                    Some(e) => {
                        let sixteen = self.k32(16);
                        let hi = self.bin(BinaryOp::Shl, ScalarTy::I32, e, sixteen);
                        self.bin(BinaryOp::Or, ScalarTy::I32, hi, k)
                    }
                }
            }
            PSpace::Res { .. } | PSpace::Special(_) => {
                return Err(self.unsup("a pointer to an image, sampler or built-in as a value"))
            }
        };
        Ok([target, self.unit_addr(p)])
    }

    /// The spaces a run-time pointer of storage class `sc` can reach.
    fn reachable(&self, sc: u32) -> Result<Vec<PSpace>> {
        use ir::ResourceKind as K;
        let buffers = |want: &dyn Fn(K) -> bool| {
            self.resources
                .iter()
                .enumerate()
                .filter(|(_, r)| want(r.kind))
                .map(|(slot, _)| PSpace::Buffer {
                    slot: slot as u32,
                    index: None,
                })
                .collect()
        };
        Ok(match sc {
            SC_STORAGE_BUFFER => buffers(&|k| k == K::StorageBuffer),
            SC_UNIFORM => buffers(&|k| matches!(k, K::UniformBuffer | K::StorageBuffer)),
            SC_PUSH_CONSTANT => buffers(&|k| k == K::PushConstant),
            SC_WORKGROUP if self.workgroup_blocks => vec![PSpace::WorkgroupBlock],
            SC_WORKGROUP => vec![PSpace::Workgroup],
            SC_FUNCTION | SC_PRIVATE => vec![PSpace::Local],
            other => {
                return Err(self.unsup(&format!("a run-time pointer in storage class {other}")))
            }
        })
    }

    /// The IR accesses of the leaf at offset `o` (the space's units) under pointer `p`.
    pub(crate) fn accesses(&mut self, p: &PtrVal, o: u32) -> Result<Vec<Access>> {
        let PSpace::Var { sc, target } = p.space else {
            let space = self.ir_space(p)?;
            let addr = self.addr(p, o);
            return Ok(vec![Access {
                ptr: ir::Ptr { space, addr },
                hit: None,
            }]);
        };
        let at = PtrVal {
            off: p.off.wrapping_add(o),
            ..p.clone()
        };
        let addr = self.unit_addr(&at);
        let low_mask = self.k32(0xFFFF);
        let low = self.bin(BinaryOp::And, ScalarTy::I32, target, low_mask);
        let nowhere = self.konst(ScalarTy::I32, NOWHERE);
        let mut out = Vec::new();
        for s in self.reachable(sc)? {
            let (space, id, a) = match s {
                PSpace::Buffer { slot, .. } => {
                    let index = if self.resources[slot as usize].array_len == 1 {
                        None
                    } else {
                        let sixteen = self.k32(16);
                        Some(self.bin(BinaryOp::ShrL, ScalarTy::I32, target, sixteen))
                    };
                    (Space::Buffer { slot, index }, slot + 1, addr)
                }
                PSpace::WorkgroupBlock => {
                    let two = self.k32(2);
                    let w = self.bin(BinaryOp::ShrL, ScalarTy::I32, addr, two);
                    (Space::Workgroup, TARGET_MEMORY, w)
                }
                PSpace::Workgroup => (Space::Workgroup, TARGET_MEMORY, addr),
                _ => (Space::Local, TARGET_MEMORY, addr),
            };
            let id = self.k32(id);
            let hit = self.bin(BinaryOp::IEq, ScalarTy::I32, low, id);
            let addr = self.tern(TernaryOp::Select, ScalarTy::I32, hit, a, nowhere);
            out.push(Access {
                ptr: ir::Ptr { space, addr },
                hit: Some(hit),
            });
        }
        Ok(out)
    }

    /// Emit `inst(dst, ptr)` (a load or an atomic of type `ty`) for each access and return
    /// the value the one whose target matched produced (those that missed read 0; with no
    /// access at all, a pointer of a storage class with no memory in this shader, 0).
    pub(crate) fn emit_each(
        &mut self,
        ty: ScalarTy,
        accesses: &[Access],
        inst: impl Fn(Reg, ir::Ptr) -> Inst,
    ) -> Reg {
        let mut acc = None;
        for a in accesses {
            let dst = self.reg(ty);
            self.emit(inst(dst, a.ptr));
            acc = Some(match (acc, a.hit) {
                (Some(prev), Some(hit)) => self.tern(TernaryOp::Select, ty, hit, dst, prev),
                _ => dst,
            });
        }
        acc.unwrap_or_else(|| self.konst(ty, 0))
    }

    /// The element stride of pointer type `ty` pointing at `pointee`, for `OpPtrAccessChain`
    /// and `OpPtrDiff`: its `ArrayStride` in explicit layouts, the pointee's words in per-lane
    /// and implicit-layout workgroup memory (where `ArrayStride` is ignored).
    fn element_stride(&self, i: &I, p: &PtrVal, ptr_id: u32) -> Result<u32> {
        if !self.ptr_in_bytes(p) {
            return self.words(p.pointee);
        }
        let ty = self.m.result_types.get(&ptr_id).copied();
        if let Some(s) = ty.and_then(|t| self.m.deco(t, spirv::Decoration::ArrayStride)) {
            return Ok(s.first().copied().unwrap_or(0));
        }
        Err(i.err(&format!(
            "%{ptr_id} points into an explicit layout but its pointer type has no ArrayStride"
        )))
    }

    /// `OpPtrAccessChain` / `OpInBoundsPtrAccessChain`: the base moved by `Element` elements,
    /// then indexed as `OpAccessChain` indexes.
    pub(crate) fn ptr_access_chain(&mut self, i: &I) -> Result<()> {
        let base = i.w(2)?;
        let mut p = self.ptr(base)?;
        if matches!(p.space, PSpace::Res { .. } | PSpace::Special(_)) || p.desc_array {
            return Err(i.unsup("OpPtrAccessChain on a descriptor or built-in"));
        }
        let stride = self.element_stride(i, &p, base)?;
        let elem = i.w(3)?;
        match self.const_u64(elem) {
            Some(k) => p.off = p.off.wrapping_add((k as u32).wrapping_mul(stride)),
            None => self.add_dynamic(&mut p, elem, stride)?,
        }
        self.chain(i, p, 4)
    }

    /// `OpPtrDiff`: the number of elements between two pointers into one array.
    pub(crate) fn ptr_diff(&mut self, i: &I) -> Result<()> {
        let (rt, id, x, y) = (i.w(0)?, i.w(1)?, i.w(2)?, i.w(3)?);
        let (a, b) = (self.ptr(x)?, self.ptr(y)?);
        let stride = self.element_stride(i, &a, x)?;
        let [_, xa] = self.runtime_ptr(&a)?;
        let [_, ya] = self.runtime_ptr(&b)?;
        let mut d = self.bin(BinaryOp::ISub, ScalarTy::I32, xa, ya);
        if stride != 1 {
            let k = self.k32(stride.max(1));
            d = self.bin(BinaryOp::SDiv, ScalarTy::I32, d, k);
        }
        let to = self.scalar_of(rt)?;
        let d = self.conv(ir::ConvOp::SConvert, ScalarTy::I32, to, d);
        self.def_checked(id, rt, vec![d])
    }

    /// `OpPtrEqual` / `OpPtrNotEqual` where a pointer is a run-time value: equal targets and
    /// equal addresses.
    pub(crate) fn runtime_ptr_equal(&mut self, op: Op, a: &PtrVal, b: &PtrVal) -> Result<Reg> {
        let [ta, aa] = self.runtime_ptr(a)?;
        let [tb, ab] = self.runtime_ptr(b)?;
        let (cmp, join) = match op {
            Op::PtrEqual => (BinaryOp::IEq, BinaryOp::LogicalAnd),
            _ => (BinaryOp::INe, BinaryOp::LogicalOr),
        };
        let t = self.bin(cmp, ScalarTy::I32, ta, tb);
        let d = self.bin(cmp, ScalarTy::I32, aa, ab);
        Ok(self.bin(join, ScalarTy::Bool, t, d))
    }
}
