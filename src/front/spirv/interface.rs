//! The entry point's interface: Input/Output variables become [`ir::IoVar`]s at word addresses
//! of per-lane memory (with Location/Component/BuiltIn and Flat/NoPerspective), built-ins that
//! the interpreter computes become special pointers (`HelperInvocation`, subgroup ids and masks),
//! descriptor variables become [`ir::Resource`]s, and execution modes fill the shader flags.

use spirv::{BuiltIn, Decoration};

use crate::ir::{self, Interp, IoBinding, IoVar, ResourceKind};
use crate::Result;

use super::lower::{Lower, PSpace, PtrVal, Special};
use super::memory::{SC_PUSH_CONSTANT, SC_STORAGE_BUFFER, SC_UNIFORM, SC_UNIFORM_CONSTANT};
use super::types::Type;

/// Execution modes we read.
const MODE_ORIGIN_UPPER_LEFT: u32 = 7;
const MODE_EARLY_FRAGMENT_TESTS: u32 = 9;
const MODE_DEPTH_REPLACING: u32 = 12;
const MODE_LOCAL_SIZE: u32 = 17;
const MODE_LOCAL_SIZE_ID: u32 = 38;
const MODE_DERIV_QUADS: u32 = 5289;
const MODE_DERIV_LINEAR: u32 = 5290;

fn map_builtin(b: BuiltIn) -> Option<ir::BuiltIn> {
    use ir::BuiltIn as B;
    Some(match b {
        BuiltIn::Position => B::Position,
        BuiltIn::PointSize => B::PointSize,
        BuiltIn::VertexIndex | BuiltIn::VertexId => B::VertexIndex,
        BuiltIn::InstanceIndex | BuiltIn::InstanceId => B::InstanceIndex,
        BuiltIn::FragCoord => B::FragCoord,
        BuiltIn::FrontFacing => B::FrontFacing,
        BuiltIn::PrimitiveId => B::PrimitiveId,
        BuiltIn::PointCoord => B::PointCoord,
        BuiltIn::FragDepth => B::FragDepth,
        BuiltIn::SampleId => B::SampleId,
        BuiltIn::SampleMask => B::SampleMask,
        BuiltIn::LocalInvocationId => B::LocalInvocationId,
        BuiltIn::GlobalInvocationId => B::GlobalInvocationId,
        BuiltIn::WorkgroupId => B::WorkgroupId,
        BuiltIn::NumWorkgroups => B::NumWorkgroups,
        BuiltIn::LocalInvocationIndex => B::LocalInvocationIndex,
        BuiltIn::WorkgroupSize => B::WorkgroupSize,
        BuiltIn::ClipDistance => B::ClipDistance,
        BuiltIn::CullDistance => B::CullDistance,
        BuiltIn::Layer => B::Layer,
        BuiltIn::ViewportIndex => B::ViewportIndex,
        BuiltIn::BaseVertex => B::BaseVertex,
        BuiltIn::BaseInstance => B::BaseInstance,
        BuiltIn::DrawIndex => B::DrawIndex,
        BuiltIn::SubgroupId => B::SubgroupId,
        BuiltIn::NumSubgroups => B::NumSubgroups,
        _ => return None,
    })
}

fn special_builtin(b: BuiltIn) -> Option<Special> {
    Some(match b {
        BuiltIn::HelperInvocation => Special::Helper,
        BuiltIn::SubgroupLocalInvocationId => Special::SubgroupId,
        BuiltIn::SubgroupSize => Special::SubgroupSize,
        BuiltIn::SubgroupEqMask => Special::Mask(0),
        BuiltIn::SubgroupGeMask => Special::Mask(1),
        BuiltIn::SubgroupGtMask => Special::Mask(2),
        BuiltIn::SubgroupLeMask => Special::Mask(3),
        BuiltIn::SubgroupLtMask => Special::Mask(4),
        _ => return None,
    })
}

impl Lower<'_> {
    fn interp_of(&self, id: u32, member: Option<u32>) -> Interp {
        let has = |d: Decoration| match member {
            None => self.m.deco(id, d).is_some(),
            Some(k) => self.m.member_deco(id, k, d).is_some(),
        };
        if has(Decoration::Flat) {
            Interp::Flat
        } else if has(Decoration::NoPerspective) {
            Interp::NoPerspective
        } else {
            Interp::Smooth
        }
    }

    fn push_io(&mut self, input: bool, v: IoVar) {
        if let IoBinding::BuiltIn(ir::BuiltIn::FragDepth) = v.binding {
            if !input {
                self.writes_depth = true;
            }
        }
        if input {
            self.inputs.push(v)
        } else {
            self.outputs.push(v)
        }
    }

    fn builtin_io(&mut self, b: u32, ty: u32, word: u32, input: bool, name: String) -> Result<()> {
        let bi = BuiltIn::from_u32(b).ok_or_else(|| self.err(&format!("unknown BuiltIn {b}")))?;
        let mapped = map_builtin(bi)
            .ok_or_else(|| self.unsup(&format!("built-in {bi:?} as an interface variable")))?;
        let leaves = self.leaves(ty)?;
        let st = *leaves.first().ok_or_else(|| self.err("empty built-in"))?;
        self.push_io(
            input,
            IoVar {
                binding: IoBinding::BuiltIn(mapped),
                ty: st,
                word,
                count: leaves.len() as u32,
                interp: Interp::Flat,
                name,
            },
        );
        Ok(())
    }

    /// Emits IoVars for a located (non-built-in) value of type `ty` at `word`, starting at
    /// `loc`/`comp`; returns the next free location.
    #[allow(clippy::too_many_arguments)]
    fn located_io(
        &mut self,
        ty: u32,
        word: u32,
        loc: u32,
        comp: u32,
        interp: Interp,
        input: bool,
        name: &str,
    ) -> Result<u32> {
        match self.ty(ty)?.clone() {
            Type::Bool | Type::Int { .. } | Type::Float { .. } | Type::Vector { .. } => {
                let leaves = self.leaves(ty)?;
                let st = leaves[0];
                let interp = if st.is_int() || st.is_wide() {
                    Interp::Flat
                } else {
                    interp
                };
                self.push_io(
                    input,
                    IoVar {
                        binding: IoBinding::Location {
                            location: loc,
                            component: comp,
                        },
                        ty: st,
                        word,
                        count: leaves.len() as u32,
                        interp,
                        name: name.to_string(),
                    },
                );
                let used = if st.is_wide() && leaves.len() > 2 {
                    2
                } else {
                    1
                };
                Ok(loc.wrapping_add(used))
            }
            Type::Matrix { col, n } => {
                let cw = self.words(col)?;
                let mut l = loc;
                for c in 0..n {
                    l = self.located_io(col, word + c * cw, l, 0, interp, input, name)?;
                }
                Ok(l)
            }
            Type::Array { elem, len } => {
                let ew = self.words(elem)?;
                let mut l = loc;
                for e in 0..len {
                    l = self.located_io(elem, word + e * ew, l, comp, interp, input, name)?;
                }
                Ok(l)
            }
            Type::Struct { members } => {
                let mut l = loc;
                for k in 0..members.len() as u32 {
                    let (m, o) = self.word_child(ty, k)?;
                    if let Some(ml) = self.m.member_deco(ty, k, Decoration::Location) {
                        l = ml.first().copied().unwrap_or(l);
                    }
                    let mi = if self.interp_of(ty, Some(k)) != Interp::Smooth {
                        self.interp_of(ty, Some(k))
                    } else {
                        interp
                    };
                    l = self.located_io(m, word + o, l, 0, mi, input, name)?;
                }
                Ok(l)
            }
            _ => Err(self.unsup("interface variable of an opaque type")),
        }
    }

    /// An Input or Output variable.
    pub(crate) fn io_var(&mut self, id: u32, pointee: u32, input: bool) -> Result<PtrVal> {
        if let Some(b) = self.m.deco(id, Decoration::BuiltIn).and_then(|a| a.first()) {
            if let Some(s) = BuiltIn::from_u32(*b).and_then(special_builtin) {
                return Ok(PtrVal {
                    pointee,
                    space: PSpace::Special(s),
                    base: None,
                    off: 0,
                    mat: None,
                    vec_stride: None,
                    desc_array: false,
                });
            }
        }
        let p = self.local_ptr(pointee, false)?;
        let in_interface = self.interface.contains(&id);
        if !in_interface {
            return Ok(p);
        }
        let name = self.m.names.get(&id).cloned().unwrap_or_default();
        if let Some(b) = self.m.deco(id, Decoration::BuiltIn).and_then(|a| a.first()) {
            self.builtin_io(*b, pointee, p.off, input, name)?;
            return Ok(p);
        }
        // A block of built-ins (gl_PerVertex) or of located members.
        if let Type::Struct { members } = self.ty(pointee)?.clone() {
            let any_builtin = (0..members.len() as u32).any(|k| {
                self.m
                    .member_deco(pointee, k, Decoration::BuiltIn)
                    .is_some()
            });
            if any_builtin {
                for k in 0..members.len() as u32 {
                    let (m, o) = self.word_child(pointee, k)?;
                    if let Some(b) = self.m.member_deco(pointee, k, Decoration::BuiltIn) {
                        let b = b.first().copied().unwrap_or(u32::MAX);
                        self.builtin_io(b, m, p.off + o, input, name.clone())?;
                    }
                }
                return Ok(p);
            }
        }
        let loc = self
            .m
            .deco(id, Decoration::Location)
            .and_then(|a| a.first().copied());
        let comp = self
            .m
            .deco(id, Decoration::Component)
            .and_then(|a| a.first().copied())
            .unwrap_or(0);
        let loc = match loc {
            Some(l) => l,
            None if matches!(self.ty(pointee)?, Type::Struct { .. }) => 0,
            None => return Err(self.err(&format!("interface variable %{id} has no Location"))),
        };
        let interp = self.interp_of(id, None);
        self.located_io(pointee, p.off, loc, comp, interp, input, &name)?;
        Ok(p)
    }

    /// A descriptor or push-constant variable.
    pub(crate) fn resource_var(&mut self, id: u32, pointee: u32, sc: u32) -> Result<PtrVal> {
        let (elem, arrayed, buffer_block) = self.block_kind(pointee)?;
        let array_len = match self.ty(pointee)? {
            Type::Array { len, .. } => *len,
            Type::RuntimeArray { .. } => 0,
            _ => 1,
        };
        let mut image = None;
        let kind = match sc {
            SC_UNIFORM if buffer_block => ResourceKind::StorageBuffer,
            SC_UNIFORM => ResourceKind::UniformBuffer,
            SC_STORAGE_BUFFER => ResourceKind::StorageBuffer,
            SC_PUSH_CONSTANT => ResourceKind::PushConstant,
            SC_UNIFORM_CONSTANT => match self.ty(elem)?.clone() {
                Type::Sampler => ResourceKind::Sampler,
                Type::SampledImage { .. } => {
                    let (_, it) = self.ir_image_type(elem)?;
                    image = Some(it);
                    if it.dim == ir::ImageDim::Buffer {
                        ResourceKind::UniformTexelBuffer
                    } else {
                        ResourceKind::CombinedImageSampler
                    }
                }
                Type::Image(t) => {
                    let (_, it) = self.ir_image_type(elem)?;
                    if it.dim == ir::ImageDim::SubpassData {
                        return Err(self.unsup("subpass input attachments"));
                    }
                    image = Some(it);
                    match (it.dim == ir::ImageDim::Buffer, t.usage == 2) {
                        (true, true) => ResourceKind::StorageTexelBuffer,
                        (true, false) => ResourceKind::UniformTexelBuffer,
                        (false, true) => ResourceKind::StorageImage,
                        (false, false) => ResourceKind::SampledImage,
                    }
                }
                _ => return Err(self.unsup("UniformConstant variable of this type")),
            },
            _ => return Err(self.err("not a resource storage class")),
        };
        let first = |d| self.m.deco(id, d).and_then(|a| a.first().copied());
        let (set, binding) = if kind == ResourceKind::PushConstant {
            (0, 0)
        } else {
            (
                first(Decoration::DescriptorSet).unwrap_or(0),
                first(Decoration::Binding).unwrap_or(0),
            )
        };
        let slot = self.resources.len() as u32;
        self.resources.push(ir::Resource {
            kind,
            set,
            binding,
            array_len: if arrayed { array_len } else { 1 },
            image,
            name: self.m.names.get(&id).cloned().unwrap_or_default(),
            class: None,
        });
        let space = if sc == SC_UNIFORM_CONSTANT {
            PSpace::Res { slot, index: None }
        } else {
            PSpace::Buffer { slot, index: None }
        };
        Ok(PtrVal {
            pointee,
            space,
            base: None,
            off: 0,
            mat: None,
            vec_stride: None,
            desc_array: arrayed,
        })
    }

    /// Execution-mode flags of the entry point: (upper-left, early tests, depth replacing).
    pub(crate) fn modes(&self) -> (bool, bool, bool) {
        let mut f = (false, false, false);
        for md in self.m.modes.iter().filter(|md| md.func == self.entry_func) {
            match md.mode {
                MODE_ORIGIN_UPPER_LEFT => f.0 = true,
                MODE_EARLY_FRAGMENT_TESTS => f.1 = true,
                MODE_DEPTH_REPLACING => f.2 = true,
                _ => {}
            }
        }
        f
    }

    pub(crate) fn read_derivative_group(&mut self) {
        for md in self.m.modes.iter().filter(|md| md.func == self.entry_func) {
            match md.mode {
                MODE_DERIV_QUADS => self.derivative_group = Some(ir::DerivativeGroup::Quads),
                MODE_DERIV_LINEAR => self.derivative_group = Some(ir::DerivativeGroup::Linear),
                _ => {}
            }
        }
    }

    /// Compute workgroup size from LocalSize / LocalSizeId / the WorkgroupSize constant.
    pub(crate) fn workgroup_size(&self) -> Result<[u32; 3]> {
        // The WorkgroupSize built-in constant wins over the execution modes.
        for (&id, ds) in &self.m.decos {
            let is_wg = ds.iter().any(|d| {
                d.member.is_none()
                    && d.kind == Decoration::BuiltIn as u32
                    && d.args.first() == Some(&(BuiltIn::WorkgroupSize as u32))
            });
            if is_wg {
                if let Some((_, v)) = self.cvals.get(&id) {
                    if v.len() == 3 {
                        return Ok([v[0] as u32, v[1] as u32, v[2] as u32]);
                    }
                }
            }
        }
        let mut size = [1, 1, 1];
        for md in self.m.modes.iter().filter(|md| md.func == self.entry_func) {
            if md.mode == MODE_LOCAL_SIZE || md.mode == MODE_LOCAL_SIZE_ID {
                for (k, s) in size.iter_mut().enumerate() {
                    let a = *md
                        .args
                        .get(k)
                        .ok_or_else(|| self.err("LocalSize needs three operands"))?;
                    *s = if md.by_id || md.mode == MODE_LOCAL_SIZE_ID {
                        self.const_u64(a)
                            .ok_or_else(|| self.err("LocalSizeId operand is not a constant"))?
                            as u32
                    } else {
                        a
                    };
                }
            }
        }
        Ok(size)
    }
}
