//! Resources: `dx.resources` ranges become [`ir::Resource`]s (on first use, so a declared but
//! unused range needs no descriptor), handles (`createHandle`, `createHandleFromBinding`,
//! `annotateHandle`, `createHandleFromHeap`) become a slot and an array element, and buffer
//! access (constant, raw, structured and typed buffers, their stores and atomics, UAV
//! counters) becomes IR loads, stores, atomics and texel-buffer image ops.
//!
//! The binding model (README, ARCHITECTURE): register M of space N is set N, binding M, and
//! the resource carries its register class, so descriptors bound for one class
//! ([`crate::DescriptorSets::bind_register`]) win over a plain binding shared by all.
//! Raw buffers address bytes; a structured buffer's element `i`, byte `o` is byte
//! `i * stride + o`. SM 6.6's descriptor heaps are descriptor arrays in two reserved sets
//! ([`RESOURCE_HEAP_SET`], [`SAMPLER_HEAP_SET`]), one binding per D3D descriptor type
//! ([`heap_binding`]), indexed by the heap index: a heap handle is what its `annotateHandle`'s
//! resource properties say it is. A UAV's hidden counter is a buffer beside it
//! ([`COUNTER_BINDING`]).

use std::collections::HashMap;

use crate::front::build::IrBuilder;
use crate::ir::{
    self, AtomicOp, BinaryOp, ImageDim, ImageOpKind, ImageType, Inst, Ptr, Reg, RegisterClass,
    ResRef, ResourceKind as RK, ScalarTy, Space,
};

use super::super::handle::from_properties;
use super::super::module::{ConstKind, Value};
use super::super::shader::{ComponentType, Resource, ResourceClass, ResourceKind as DK};
use super::{LResult, Lower, Val};

/// A lowered handle: which resource slot and element, and what kind of resource it is.
#[derive(Clone, Debug)]
pub(crate) struct Handle {
    pub slot: u32,
    pub index: Option<Reg>,
    pub kind: DK,
    pub class: ResourceClass,
    /// Structured buffers: the element stride in bytes.
    pub stride: u32,
    /// The element type of typed resources.
    pub elem: ScalarTy,
}

/// A `CreateHandleFromHeap` handle, before its `AnnotateHandle` says what it refers to.
#[derive(Clone, Debug)]
pub(crate) struct HeapIndex {
    pub index: Reg,
    /// From the sampler heap (`SamplerDescriptorHeap`) rather than the resource heap.
    pub sampler: bool,
}

/// The descriptor set the resource heap (`ResourceDescriptorHeap`, SM 6.6) sits in; D3D
/// reserves register spaces from 0xFFFFFFF0 up for the system, so no register shares it.
pub const RESOURCE_HEAP_SET: u32 = 0xFFFF_FFF0;
/// The descriptor set of the sampler heap (`SamplerDescriptorHeap`), binding 0.
pub const SAMPLER_HEAP_SET: u32 = 0xFFFF_FFF1;

/// Where heap descriptors of a class and kind are read: one binding per D3D descriptor type,
/// each an array indexed by the heap index (README, "DXIL").
pub fn heap_binding(class: ResourceClass, kind: DK) -> Option<(u32, u32)> {
    let buffer = matches!(kind, DK::RawBuffer | DK::StructuredBuffer);
    let typed = kind == DK::TypedBuffer;
    let binding = match class {
        ResourceClass::Sampler => return Some((SAMPLER_HEAP_SET, 0)),
        ResourceClass::Cbv => 6,
        ResourceClass::Srv if buffer => 4,
        ResourceClass::Uav if buffer => 5,
        ResourceClass::Srv if typed => 2,
        ResourceClass::Uav if typed => 3,
        _ if shape(kind).is_none() => return None,
        ResourceClass::Srv => 0,
        ResourceClass::Uav => 1,
    };
    Some((RESOURCE_HEAP_SET, binding))
}

fn register_class(c: ResourceClass) -> RegisterClass {
    match c {
        ResourceClass::Srv => RegisterClass::T,
        ResourceClass::Uav => RegisterClass::U,
        ResourceClass::Cbv => RegisterClass::B,
        ResourceClass::Sampler => RegisterClass::S,
    }
}

/// The bit that puts a UAV's hidden counter (`IncrementCounter`, `DecrementCounter`) beside
/// it: the counters of `uM` in space N are the 32-bit words at byte 0 of buffers bound at set
/// N, binding `M | COUNTER_BINDING`, one per element of the UAV's range.
pub const COUNTER_BINDING: u32 = 1 << 31;

/// The resources made so far.
#[derive(Default)]
pub(crate) struct Resources {
    pub list: Vec<ir::Resource>,
    by_range: HashMap<(u8, u32), u32>,
}

impl Resources {
    /// The slot of a resource equal to `res`, made if there is none.
    fn find_or_push(&mut self, res: ir::Resource) -> u32 {
        let at = match self.list.iter().position(|r| *r == res) {
            Some(s) => s,
            None => {
                self.list.push(res);
                self.list.len() - 1
            }
        };
        at as u32
    }
}

fn class_code(c: ResourceClass) -> u8 {
    match c {
        ResourceClass::Srv => 0,
        ResourceClass::Uav => 1,
        ResourceClass::Cbv => 2,
        ResourceClass::Sampler => 3,
    }
}

fn class_of(code: u32) -> Option<ResourceClass> {
    Some(match code {
        0 => ResourceClass::Srv,
        1 => ResourceClass::Uav,
        2 => ResourceClass::Cbv,
        3 => ResourceClass::Sampler,
        _ => return None,
    })
}

/// The IR scalar type of a typed resource's elements (normalized and float kinds read as F32).
pub(crate) fn elem_scalar(c: Option<ComponentType>) -> (ScalarTy, bool) {
    match c {
        Some(ComponentType::I32 | ComponentType::I16 | ComponentType::I64) => (ScalarTy::I32, true),
        Some(ComponentType::U32 | ComponentType::U16 | ComponentType::U64 | ComponentType::I1) => {
            (ScalarTy::I32, false)
        }
        _ => (ScalarTy::F32, false),
    }
}

/// The image shape of a texture or typed-buffer kind: (dim, arrayed, multisampled).
fn shape(kind: DK) -> Option<(ImageDim, bool, bool)> {
    Some(match kind {
        DK::Texture1D => (ImageDim::D1, false, false),
        DK::Texture1DArray => (ImageDim::D1, true, false),
        DK::Texture2D => (ImageDim::D2, false, false),
        DK::Texture2DArray => (ImageDim::D2, true, false),
        DK::Texture2DMS => (ImageDim::D2, false, true),
        DK::Texture2DMSArray => (ImageDim::D2, true, true),
        DK::Texture3D => (ImageDim::D3, false, false),
        DK::TextureCube => (ImageDim::Cube, false, false),
        DK::TextureCubeArray => (ImageDim::Cube, true, false),
        DK::TypedBuffer => (ImageDim::Buffer, false, false),
        _ => return None,
    })
}

impl<'a> Lower<'a> {
    /// The resource range of `class` with range id `id`: the entry point's list, else the
    /// module's `dx.resources`.
    fn range(&self, class: ResourceClass, id: u32) -> LResult<&'a Resource> {
        let ep: &'a [Resource] = self.ep.resources.of_class(class);
        let module: &'a [Resource] = self.dxil.shader.resources.of_class(class);
        ep.iter().chain(module).find(|r| r.id == id).ok_or_else(|| {
            self.invalid(format!(
                "no {} resource range with id {id}",
                class.register_letter()
            ))
        })
    }

    /// The slot of a resource range, made on first use.
    fn slot(&mut self, r: &Resource) -> LResult<u32> {
        let key = (class_code(r.class), r.id);
        if let Some(&s) = self.res.by_range.get(&key) {
            return Ok(s);
        }
        let (kind, image) = self.ir_kind(r.class, r.kind, r.element_type, &r.name)?;
        let slot = self.res.list.len() as u32;
        self.res.list.push(ir::Resource {
            kind,
            set: r.space,
            binding: r.lower_bound,
            array_len: if r.range_size == u32::MAX {
                0
            } else {
                r.range_size
            },
            image,
            name: r.name.clone(),
            class: Some(register_class(r.class)),
        });
        self.res.by_range.insert(key, slot);
        Ok(slot)
    }

    /// The IR descriptor kind and image type of a resource of `class` and `kind`.
    fn ir_kind(
        &self,
        class: ResourceClass,
        kind: DK,
        element: Option<ComponentType>,
        name: &str,
    ) -> LResult<(RK, Option<ImageType>)> {
        let (elem, signed) = elem_scalar(element);
        let uav = class == ResourceClass::Uav;
        Ok(match (class, kind) {
            (ResourceClass::Cbv, _) => (RK::UniformBuffer, None),
            (ResourceClass::Sampler, _) => (RK::Sampler, None),
            (_, DK::RawBuffer | DK::StructuredBuffer) => (RK::StorageBuffer, None),
            (_, k) => {
                let (dim, arrayed, multisampled) = shape(k)
                    .ok_or_else(|| self.not_run(format!("{} resources ('{name}')", k.name())))?;
                let kind = match (dim, uav) {
                    (ImageDim::Buffer, false) => RK::UniformTexelBuffer,
                    (ImageDim::Buffer, true) => RK::StorageTexelBuffer,
                    (_, false) => RK::SampledImage,
                    (_, true) => RK::StorageImage,
                };
                let it = ImageType {
                    dim,
                    arrayed,
                    multisampled,
                    depth: false,
                    sampled_ty: elem,
                    signed,
                };
                (kind, Some(it))
            }
        })
    }

    /// The handle `AnnotateHandle` makes of a descriptor-heap handle: the heap binding of the
    /// kind its properties (`%dx.types.ResourceProperties`) name, element `heap.index`.
    fn heap_handle(&mut self, heap: &HeapIndex, props: Value) -> LResult<Handle> {
        let fields: Vec<u32> = match self.m.as_constant(props).map(|c| &c.kind) {
            Some(ConstKind::Aggregate(es)) => es
                .iter()
                .map(|&e| self.m.const_int(e).unwrap_or(0) as u32)
                .collect(),
            Some(ConstKind::Null) => vec![0; 2],
            _ => return Err(self.invalid("resource properties that are not a constant")),
        };
        let [dword0, dword1] = fields[..] else {
            return Err(self.invalid("resource properties without two fields"));
        };
        let info = from_properties(dword0, dword1);
        if heap.sampler != (info.class == ResourceClass::Sampler) {
            return Err(self.invalid(format!(
                "a handle from the {} heap annotated as a {} resource",
                if heap.sampler { "sampler" } else { "resource" },
                info.kind.name()
            )));
        }
        let (set, binding) = heap_binding(info.class, info.kind).ok_or_else(|| {
            self.not_run(format!(
                "{} resources in the descriptor heap",
                info.kind.name()
            ))
        })?;
        let name = if heap.sampler {
            "SamplerDescriptorHeap"
        } else {
            "ResourceDescriptorHeap"
        };
        let (kind, image) = self.ir_kind(info.class, info.kind, info.component_type, name)?;
        let res = ir::Resource {
            kind,
            set,
            binding,
            array_len: 0,
            image,
            name: name.into(),
            class: Some(register_class(info.class)),
        };
        Ok(Handle {
            slot: self.res.find_or_push(res),
            index: Some(heap.index),
            kind: info.kind,
            class: info.class,
            stride: info.stride,
            elem: elem_scalar(info.component_type).0,
        })
    }

    /// The slot of the hidden counters of the UAVs in `slot`: a 4-byte buffer per element at
    /// binding [`COUNTER_BINDING`] | the UAVs' binding, same set, same array length.
    fn counter_slot(&mut self, slot: u32) -> LResult<u32> {
        let uav = self
            .res
            .list
            .get(slot as usize)
            .filter(|r| r.class == Some(RegisterClass::U))
            .ok_or_else(|| self.invalid("a counter of a resource that is not a UAV"))?;
        let res = ir::Resource {
            kind: RK::StorageBuffer,
            set: uav.set,
            binding: uav.binding | COUNTER_BINDING,
            array_len: uav.array_len,
            image: None,
            name: format!("{}.counter", uav.name),
            class: Some(RegisterClass::U),
        };
        Ok(self.res.find_or_push(res))
    }

    /// The handle for register `index` (absolute, an operand) of range `r`.
    fn make_handle(&mut self, r: &Resource, index: Value) -> LResult<Handle> {
        let slot = self.slot(r)?;
        let element = match self.m.const_int(index) {
            Some(i) if i as u64 as u32 == r.lower_bound => None,
            Some(i) => Some(self.k32((i as u32).wrapping_sub(r.lower_bound))),
            None => {
                let i = self.scalar(index)?;
                let lb = self.k32(r.lower_bound);
                Some(self.bin(BinaryOp::ISub, ScalarTy::I32, i, lb))
            }
        };
        Ok(Handle {
            slot,
            index: element,
            kind: r.kind,
            class: r.class,
            stride: r.element_stride.unwrap_or(0),
            elem: elem_scalar(r.element_type).0,
        })
    }

    /// An operand that must be a handle.
    pub(crate) fn handle(&mut self, v: Value) -> LResult<Handle> {
        match self.val(v)? {
            Val::Handle(h) => Ok(h),
            _ => Err(self.invalid("an operand that must be a resource handle is not")),
        }
    }

    pub(crate) fn res_ref(h: &Handle) -> ResRef {
        ResRef {
            slot: h.slot,
            index: h.index,
        }
    }

    /// Handle creation and buffer access. Returns `false` for other ops.
    pub(crate) fn resource_op(&mut self, op: u32, args: &[Value]) -> LResult<bool> {
        match op {
            // CreateHandle(class, rangeId, index, nonUniform)
            57 => {
                let class = class_of(self.const_u32(self.arg(args, 0)?)?)
                    .ok_or_else(|| self.invalid("a bad resource class"))?;
                let id = self.const_u32(self.arg(args, 1)?)?;
                let r = self.range(class, id)?;
                let h = self.make_handle(r, self.arg(args, 2)?)?;
                self.set_result(Val::Handle(h));
            }
            // CreateHandleFromBinding(ResBind{lower, upper, space, class}, index, nonUniform)
            217 => {
                let bind = self.arg(args, 0)?;
                let fields: Vec<u32> = match self.m.as_constant(bind).map(|c| &c.kind) {
                    Some(ConstKind::Aggregate(es)) => es
                        .iter()
                        .map(|&e| self.m.const_int(e).unwrap_or(0) as u32)
                        .collect(),
                    Some(ConstKind::Null) => vec![0; 4],
                    _ => return Err(self.invalid("a ResBind that is not a constant")),
                };
                let [lower, upper, space, class] = fields[..] else {
                    return Err(self.invalid("a ResBind without four fields"));
                };
                let class = class_of(class).ok_or_else(|| self.invalid("a bad resource class"))?;
                let ep: &'a [Resource] = self.ep.resources.of_class(class);
                let module: &'a [Resource] = self.dxil.shader.resources.of_class(class);
                let r = ep
                    .iter()
                    .chain(module)
                    .find(|r| {
                        r.space == space
                            && r.lower_bound == lower
                            && (r.range_size == u32::MAX
                                || r.lower_bound.wrapping_add(r.range_size).wrapping_sub(1)
                                    == upper)
                    })
                    .ok_or_else(|| {
                        self.invalid(format!(
                            "no {}{lower} range in space {space}",
                            class.register_letter()
                        ))
                    })?;
                let h = self.make_handle(r, self.arg(args, 1)?)?;
                self.set_result(Val::Handle(h));
            }
            // AnnotateHandle(handle, properties): a heap handle takes its kind from them
            216 => {
                let h = match self.val(self.arg(args, 0)?)? {
                    Val::Heap(heap) => self.heap_handle(&heap, self.arg(args, 1)?)?,
                    _ => self.handle(self.arg(args, 0)?)?,
                };
                self.set_result(Val::Handle(h));
            }
            // CreateHandleFromHeap(index, samplerHeap, nonUniform)
            218 => {
                let index = self.scalar(self.arg(args, 0)?)?;
                let sampler = self.const_u32(self.arg(args, 1)?)? != 0;
                self.set_result(Val::Heap(HeapIndex { index, sampler }));
            }
            // CBufferLoadLegacy(handle, row)
            59 => {
                let h = self.handle(self.arg(args, 0)?)?;
                let row = self.scalar(self.arg(args, 1)?)?;
                let inst = &self.func.insts[self.at.index()];
                let mut leaves = Vec::new();
                self.leaves(inst.result_type().expect("a call"), &mut leaves)?;
                let sixteen = self.k32(16);
                let base = self.bin(BinaryOp::IMul, ScalarTy::I32, row, sixteen);
                let out = self.buffer_loads(&h, base, &leaves)?;
                self.set_result(Val::Agg(out));
            }
            // CBufferLoad(handle, byteOffset, alignment)
            58 => {
                let h = self.handle(self.arg(args, 0)?)?;
                let off = self.scalar(self.arg(args, 1)?)?;
                let t = self.result_ty()?;
                let out = self.buffer_loads(&h, off, &[t])?;
                self.set_scalar(out[0]);
            }
            // BufferLoad(handle, index, wot) / RawBufferLoad(handle, index, offset, mask, align)
            68 | 139 => {
                let h = self.handle(self.arg(args, 0)?)?;
                let t = self.res_ret_ty()?;
                if h.kind == DK::TypedBuffer {
                    let i = self.scalar(self.arg(args, 1)?)?;
                    let out = self.texel_buffer(&h, i, None)?;
                    self.set_res_ret(out);
                } else {
                    let n = if op == 139 {
                        (self.const_u32(self.arg(args, 3)?)? & 0xF)
                            .count_ones()
                            .max(1) as usize
                    } else {
                        4
                    };
                    let addr = self.buffer_address(&h, self.arg(args, 1)?, self.arg(args, 2)?)?;
                    let mut out = self.buffer_loads(&h, addr, &vec![t; n])?;
                    while out.len() < 4 {
                        out.push(self.konst(t, 0));
                    }
                    self.set_res_ret(out);
                }
            }
            // BufferStore(handle, c0, c1, v0..v3, mask) / RawBufferStore(.., mask, align)
            69 | 140 => {
                let h = self.handle(self.arg(args, 0)?)?;
                let mask = self.const_u32(self.arg(args, 7)?)? & 0xF;
                let vals: Vec<Value> = (3..7).map(|i| self.arg(args, i)).collect::<LResult<_>>()?;
                if h.kind == DK::TypedBuffer {
                    let i = self.scalar(self.arg(args, 1)?)?;
                    let mut texel = Vec::new();
                    for &v in &vals {
                        texel.push(self.scalar(v)?);
                    }
                    self.texel_buffer(&h, i, Some(texel))?;
                } else {
                    let addr = self.buffer_address(&h, self.arg(args, 1)?, self.arg(args, 2)?)?;
                    for (c, &v) in vals.iter().enumerate() {
                        if mask & (1 << c) == 0 {
                            continue;
                        }
                        let t = self.ty_of(v)?;
                        let src = self.scalar(v)?;
                        let a = self.offset(addr, c as u32 * (t.bits() / 8));
                        self.emit(Inst::Store {
                            ty: t,
                            ptr: Self::buffer_ptr(&h, a),
                            src,
                        });
                    }
                }
            }
            // AtomicBinOp(handle, op, c0, c1, c2, value) / AtomicCompareExchange(handle, c0,
            // c1, c2, cmp, new)
            78 | 79 => {
                let h = self.handle(self.arg(args, 0)?)?;
                let (o, coords, a, b) = if op == 78 {
                    let o = match self.const_u32(self.arg(args, 1)?)? {
                        0 => AtomicOp::IAdd,
                        1 => AtomicOp::And,
                        2 => AtomicOp::Or,
                        3 => AtomicOp::Xor,
                        4 => AtomicOp::SMin,
                        5 => AtomicOp::SMax,
                        6 => AtomicOp::UMin,
                        7 => AtomicOp::UMax,
                        8 => AtomicOp::Exchange,
                        n => return Err(self.invalid(format!("atomic op {n}"))),
                    };
                    let v = self.scalar(self.arg(args, 5)?)?;
                    (o, 2, v, v)
                } else {
                    let cmp = self.scalar(self.arg(args, 4)?)?;
                    let new = self.scalar(self.arg(args, 5)?)?;
                    (AtomicOp::CompareExchange, 1, new, cmp)
                };
                let t = self.result_ty()?;
                let dst = match h.kind {
                    DK::RawBuffer | DK::StructuredBuffer => {
                        let (c0, c1) = (self.arg(args, coords)?, self.arg(args, coords + 1)?);
                        let addr = self.buffer_address(&h, c0, c1)?;
                        let dst = self.reg(t);
                        self.emit(Inst::Atomic {
                            op: o,
                            ty: t,
                            dst,
                            ptr: Self::buffer_ptr(&h, addr),
                            a,
                            b,
                        });
                        dst
                    }
                    k => return Err(self.not_run(format!("atomics on {} resources", k.name()))),
                };
                self.set_scalar(dst);
            }
            // BufferUpdateCounter(handle, +1 or -1): IncrementCounter gives the count before,
            // DecrementCounter the count after
            70 => {
                let h = self.handle(self.arg(args, 0)?)?;
                let step = self.const_u32(self.arg(args, 1)?)? as u8 as i8;
                let slot = self.counter_slot(h.slot)?;
                let addr = self.k32(0);
                let one = self.k32(1);
                let before = self.reg(ScalarTy::I32);
                let op = if step < 0 {
                    AtomicOp::ISub
                } else {
                    AtomicOp::IAdd
                };
                self.emit(Inst::Atomic {
                    op,
                    ty: ScalarTy::I32,
                    dst: before,
                    ptr: Ptr {
                        space: Space::Buffer {
                            slot,
                            index: h.index,
                        },
                        addr,
                    },
                    a: one,
                    b: one,
                });
                let r = if step < 0 {
                    self.bin(BinaryOp::ISub, ScalarTy::I32, before, one)
                } else {
                    before
                };
                self.set_scalar(r);
            }
            // CheckAccessFullyMapped(status): every access here is to mapped memory
            71 => {
                let t = self.konst(ScalarTy::Bool, 1);
                self.set_scalar(t);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The element type of the current call's `ResRet` result.
    pub(crate) fn res_ret_ty(&self) -> LResult<ScalarTy> {
        let inst = &self.func.insts[self.at.index()];
        let mut leaves = Vec::new();
        self.leaves(inst.result_type().expect("a call"), &mut leaves)?;
        leaves
            .first()
            .copied()
            .ok_or_else(|| self.invalid("a ResRet without fields"))
    }

    /// Sets a `ResRet` result: the four values and a status.
    pub(crate) fn set_res_ret(&mut self, mut vals: Vec<Reg>) {
        let status = self.k32(0);
        vals.truncate(4);
        vals.push(status);
        self.set_result(Val::Agg(vals));
    }

    fn offset(&mut self, addr: Reg, bytes: u32) -> Reg {
        if bytes == 0 {
            return addr;
        }
        let k = self.k32(bytes);
        self.bin(BinaryOp::IAdd, ScalarTy::I32, addr, k)
    }

    fn buffer_ptr(h: &Handle, addr: Reg) -> Ptr {
        Ptr {
            space: Space::Buffer {
                slot: h.slot,
                index: h.index,
            },
            addr,
        }
    }

    /// The byte address of (index, offset) in a raw or structured buffer.
    fn buffer_address(&mut self, h: &Handle, index: Value, offset: Value) -> LResult<Reg> {
        let i = self.scalar(index)?;
        if h.kind != DK::StructuredBuffer {
            return Ok(i);
        }
        let stride = self.k32(h.stride);
        let base = self.bin(BinaryOp::IMul, ScalarTy::I32, i, stride);
        if self.is_undef(offset) {
            return Ok(base);
        }
        let o = self.scalar(offset)?;
        Ok(self.bin(BinaryOp::IAdd, ScalarTy::I32, base, o))
    }

    /// Consecutive loads of `tys` from byte `addr` of a buffer.
    fn buffer_loads(&mut self, h: &Handle, addr: Reg, tys: &[ScalarTy]) -> LResult<Vec<Reg>> {
        let mut out = Vec::with_capacity(tys.len());
        let mut at = 0;
        for &t in tys {
            let a = self.offset(addr, at);
            let dst = self.reg(t);
            self.emit(Inst::Load {
                ty: t,
                dst,
                ptr: Self::buffer_ptr(h, a),
            });
            out.push(dst);
            at += t.bits() / 8;
        }
        Ok(out)
    }

    /// A typed-buffer element: read (`texel` None, four results) or written.
    fn texel_buffer(&mut self, h: &Handle, i: Reg, texel: Option<Vec<Reg>>) -> LResult<Vec<Reg>> {
        let t = h.elem;
        let write = texel.is_some();
        let dst: Vec<Reg> = if write {
            Vec::new()
        } else {
            (0..4).map(|_| self.reg(t)).collect()
        };
        let kind = match (write, h.class) {
            (true, _) => ImageOpKind::Write,
            (false, ResourceClass::Uav) => ImageOpKind::Read,
            (false, _) => ImageOpKind::Fetch,
        };
        let mut ii = super::image::image_inst(kind, h, t);
        ii.coords = vec![i];
        ii.texel = texel.unwrap_or_default();
        ii.dst = dst.clone();
        self.emit(Inst::Image(Box::new(ii)));
        Ok(dst)
    }
}
