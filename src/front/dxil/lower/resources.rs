//! Resources: `dx.resources` ranges become [`ir::Resource`]s (on first use, so a declared but
//! unused range needs no descriptor), handles (`createHandle`, `createHandleFromBinding`,
//! `annotateHandle`) become a slot and an array element, and buffer access (constant,
//! raw, structured and typed buffers, their stores and atomics) becomes IR loads, stores,
//! atomics and texel-buffer image ops.
//!
//! The binding model (README, ARCHITECTURE): register M of space N is set N, binding M, and
//! the resource carries its register class, so descriptors bound for one class
//! ([`crate::DescriptorSets::bind_register`]) win over a plain binding shared by all.
//! Raw buffers address bytes; a structured buffer's element `i`, byte `o` is byte
//! `i * stride + o`.

use std::collections::HashMap;

use crate::ir::{
    self, AtomicOp, BinaryOp, ImageDim, ImageOpKind, ImageType, Inst, Ptr, Reg, RegisterClass,
    ResRef, ResourceKind as RK, ScalarTy, Space,
};

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

/// The resources made so far.
#[derive(Default)]
pub(crate) struct Resources {
    pub list: Vec<ir::Resource>,
    by_range: HashMap<(u8, u32), u32>,
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
        let (elem, signed) = elem_scalar(r.element_type);
        let uav = r.class == ResourceClass::Uav;
        let (kind, image) = match (r.class, r.kind) {
            (ResourceClass::Cbv, _) => (RK::UniformBuffer, None),
            (ResourceClass::Sampler, _) => (RK::Sampler, None),
            (_, DK::RawBuffer | DK::StructuredBuffer) => (RK::StorageBuffer, None),
            (_, k) => {
                let (dim, arrayed, multisampled) = shape(k).ok_or_else(|| {
                    self.not_run(format!("{} resources ('{}')", k.name(), r.name))
                })?;
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
        };
        let class = match r.class {
            ResourceClass::Srv => RegisterClass::T,
            ResourceClass::Uav => RegisterClass::U,
            ResourceClass::Cbv => RegisterClass::B,
            ResourceClass::Sampler => RegisterClass::S,
        };
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
            class: Some(class),
        });
        self.res.by_range.insert(key, slot);
        Ok(slot)
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
            // AnnotateHandle(handle, properties)
            216 => {
                let h = self.handle(self.arg(args, 0)?)?;
                self.set_result(Val::Handle(h));
            }
            218 => {
                return Err(
                    self.not_run("dx.op CreateHandleFromHeap (218): descriptor heap indexing")
                )
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
            // AtomicBinOp(handle, op, c0, c1, c2, value)
            78 | 79 => {
                let h = self.handle(self.arg(args, 0)?)?;
                if !matches!(h.kind, DK::RawBuffer | DK::StructuredBuffer) {
                    return Err(self.not_run(format!("atomics on {} resources", h.kind.name())));
                }
                let (o, c0, c1, a, b) = if op == 78 {
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
                    (o, self.arg(args, 2)?, self.arg(args, 3)?, v, v)
                } else {
                    let cmp = self.scalar(self.arg(args, 4)?)?;
                    let new = self.scalar(self.arg(args, 5)?)?;
                    (
                        AtomicOp::CompareExchange,
                        self.arg(args, 1)?,
                        self.arg(args, 2)?,
                        new,
                        cmp,
                    )
                };
                let t = self.result_ty()?;
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
                self.set_scalar(dst);
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
