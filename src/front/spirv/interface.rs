//! The entry point's interface: Input/Output variables become [`ir::IoVar`]s at word addresses
//! of per-lane memory (with Location/Component/BuiltIn and Flat/NoPerspective), built-ins that
//! the interpreter computes become special pointers (`HelperInvocation`, subgroup ids and masks),
//! descriptor variables become [`ir::Resource`]s, and execution modes fill the shader flags.

use spirv::{BuiltIn, Decoration};

use crate::ir::{self, Interp, IoBinding, IoVar, ResourceKind, Sampling};
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
const MODE_INVOCATIONS: u32 = 0;
const MODE_SPACING_EQUAL: u32 = 1;
const MODE_SPACING_FRACTIONAL_EVEN: u32 = 2;
const MODE_SPACING_FRACTIONAL_ODD: u32 = 3;
const MODE_VERTEX_ORDER_CW: u32 = 4;
const MODE_VERTEX_ORDER_CCW: u32 = 5;
const MODE_POINT_MODE: u32 = 10;
const MODE_INPUT_POINTS: u32 = 19;
const MODE_INPUT_LINES: u32 = 20;
const MODE_INPUT_LINES_ADJACENCY: u32 = 21;
const MODE_TRIANGLES: u32 = 22;
const MODE_INPUT_TRIANGLES_ADJACENCY: u32 = 23;
const MODE_QUADS: u32 = 24;
const MODE_ISOLINES: u32 = 25;
const MODE_OUTPUT_VERTICES: u32 = 26;
const MODE_OUTPUT_POINTS: u32 = 27;
const MODE_OUTPUT_LINE_STRIP: u32 = 28;
const MODE_OUTPUT_TRIANGLE_STRIP: u32 = 29;

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
        BuiltIn::SamplePosition => B::SamplePosition,
        BuiltIn::InvocationId => B::InvocationId,
        BuiltIn::TessCoord => B::TessCoord,
        BuiltIn::TessLevelOuter => B::TessLevelOuter,
        BuiltIn::TessLevelInner => B::TessLevelInner,
        BuiltIn::PatchVertices => B::PatchVertices,
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
    /// The interpolation decorations of variable `id` (or its member): the mode, and where
    /// in the pixel (`Centroid`, `Sample`).
    fn interp_of(&self, id: u32, member: Option<u32>) -> (Interp, Sampling) {
        let has = |d: Decoration| match member {
            None => self.m.deco(id, d).is_some(),
            Some(k) => self.m.member_deco(id, k, d).is_some(),
        };
        let mode = if has(Decoration::Flat) {
            Interp::Flat
        } else if has(Decoration::NoPerspective) {
            Interp::NoPerspective
        } else {
            Interp::Smooth
        };
        let at = if has(Decoration::Sample) {
            Sampling::Sample
        } else if has(Decoration::Centroid) {
            Sampling::Centroid
        } else {
            Sampling::Center
        };
        (mode, at)
    }

    fn push_io(&mut self, input: bool, mut v: IoVar) {
        v.per = self.io_per;
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
                sampling: Sampling::Center,
                per: ir::IoPer::Invocation,
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
        (interp, sampling): (Interp, Sampling),
        input: bool,
        name: &str,
    ) -> Result<u32> {
        match self.ty(ty)?.clone() {
            Type::Bool | Type::Int { .. } | Type::Float { .. } | Type::Vector { .. } => {
                let leaves = self.leaves(ty)?;
                let st = leaves[0];
                let (interp, sampling) = if st.is_int() || st.is_wide() {
                    (Interp::Flat, Sampling::Center)
                } else {
                    (interp, sampling)
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
                        sampling,
                        per: ir::IoPer::Invocation,
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
                    l =
                        self.located_io(col, word + c * cw, l, 0, (interp, sampling), input, name)?;
                }
                Ok(l)
            }
            Type::Array { elem, len } => {
                let ew = self.words(elem)?;
                let mut l = loc;
                for e in 0..len {
                    l = self.located_io(
                        elem,
                        word + e * ew,
                        l,
                        comp,
                        (interp, sampling),
                        input,
                        name,
                    )?;
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
                    let (mm, ms) = self.interp_of(ty, Some(k));
                    let mi = (
                        if mm != Interp::Smooth { mm } else { interp },
                        if ms != Sampling::Center { ms } else { sampling },
                    );
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
        // A tessellation control shader's outputs are shared by its patch's invocations
        // (each writes its own vertex, any may read them after a barrier): workgroup memory.
        let shared = !input && self.stage == ir::Stage::TessControl;
        let p = self.local_ptr(pointee, shared)?;
        let in_interface = self.interface.contains(&id);
        if !in_interface {
            return Ok(p);
        }
        let name = self.m.names.get(&id).cloned().unwrap_or_default();
        let patch = self.m.deco(id, Decoration::Patch).is_some();
        // Per-vertex arrays: the inputs of the tessellation and geometry stages and the
        // tessellation control stage's outputs, except per-patch variables and the built-ins
        // each invocation has one of.
        let own = self.m.deco(id, Decoration::BuiltIn).is_some_and(|b| {
            b.first()
                .and_then(|&b| BuiltIn::from_u32(b))
                .is_some_and(|b| {
                    !matches!(
                        b,
                        BuiltIn::Position | BuiltIn::PointSize | BuiltIn::ClipDistance
                    )
                })
        });
        let arrayed = !patch
            && !own
            && match self.stage {
                ir::Stage::TessControl => true,
                ir::Stage::TessEval | ir::Stage::Geometry => input,
                _ => false,
            };
        if arrayed {
            let Type::Array { elem, len } = self.ty(pointee)?.clone() else {
                return Err(self.err(&format!(
                    "per-vertex interface variable %{id} is not an array"
                )));
            };
            let ew = self.words(elem)?;
            for v in 0..len {
                self.io_per = ir::IoPer::Vertex(v);
                self.io_value(id, elem, p.off + v * ew, input, &name)?;
            }
        } else {
            self.io_per = if patch {
                ir::IoPer::Patch
            } else {
                ir::IoPer::Invocation
            };
            self.io_value(id, pointee, p.off, input, &name)?;
        }
        self.io_per = ir::IoPer::Invocation;
        Ok(p)
    }

    /// The IoVars of interface variable `id` (or of one element of a per-vertex array) of
    /// type `ty` at `word`: a built-in, a block of built-ins, or located values.
    fn io_value(&mut self, id: u32, ty: u32, word: u32, input: bool, name: &str) -> Result<()> {
        if let Some(b) = self.m.deco(id, Decoration::BuiltIn).and_then(|a| a.first()) {
            return self.builtin_io(*b, ty, word, input, name.to_string());
        }
        // A block of built-ins (gl_PerVertex) or of located members.
        if let Type::Struct { members } = self.ty(ty)?.clone() {
            let any_builtin = (0..members.len() as u32)
                .any(|k| self.m.member_deco(ty, k, Decoration::BuiltIn).is_some());
            if any_builtin {
                for k in 0..members.len() as u32 {
                    let (m, o) = self.word_child(ty, k)?;
                    if let Some(b) = self.m.member_deco(ty, k, Decoration::BuiltIn) {
                        let b = b.first().copied().unwrap_or(u32::MAX);
                        self.builtin_io(b, m, word + o, input, name.to_string())?;
                    }
                }
                return Ok(());
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
            None if matches!(self.ty(ty)?, Type::Struct { .. }) => 0,
            None => return Err(self.err(&format!("interface variable %{id} has no Location"))),
        };
        let interp = self.interp_of(id, None);
        self.located_io(ty, word, loc, comp, interp, input, name)?;
        Ok(())
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

    /// The tessellation and geometry execution modes of the entry point.
    pub(crate) fn stage_modes(&self) -> ir::StageModes {
        use ir::{GeomInput as I, GeomOutput as O, TessDomain as D, TessSpacing as S};
        let mut m = ir::StageModes::default();
        let geometry = self.stage == ir::Stage::Geometry;
        for md in self.m.modes.iter().filter(|md| md.func == self.entry_func) {
            let arg = md.args.first().copied().unwrap_or(0);
            match md.mode {
                MODE_INVOCATIONS => m.invocations = arg,
                MODE_OUTPUT_VERTICES => m.output_vertices = arg,
                MODE_SPACING_EQUAL => m.spacing = Some(S::Equal),
                MODE_SPACING_FRACTIONAL_EVEN => m.spacing = Some(S::FractionalEven),
                MODE_SPACING_FRACTIONAL_ODD => m.spacing = Some(S::FractionalOdd),
                MODE_VERTEX_ORDER_CW => m.ccw = Some(false),
                MODE_VERTEX_ORDER_CCW => m.ccw = Some(true),
                MODE_POINT_MODE => m.point_mode = true,
                MODE_INPUT_POINTS => m.input = Some(I::Points),
                MODE_INPUT_LINES => m.input = Some(I::Lines),
                MODE_INPUT_LINES_ADJACENCY => m.input = Some(I::LinesAdjacency),
                MODE_TRIANGLES if geometry => m.input = Some(I::Triangles),
                MODE_TRIANGLES => m.domain = Some(D::Triangles),
                MODE_INPUT_TRIANGLES_ADJACENCY => m.input = Some(I::TrianglesAdjacency),
                MODE_QUADS => m.domain = Some(D::Quads),
                MODE_ISOLINES => m.domain = Some(D::Isolines),
                MODE_OUTPUT_POINTS => m.output = Some(O::Points),
                MODE_OUTPUT_LINE_STRIP => m.output = Some(O::LineStrip),
                MODE_OUTPUT_TRIANGLE_STRIP => m.output = Some(O::TriangleStrip),
                _ => {}
            }
        }
        m
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
