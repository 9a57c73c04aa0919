//! Images: `OpSampledImage`/`OpImage` build handles; every sample/fetch/gather/read/write/query
//! becomes one [`ir::Inst::Image`] with its operands decoded (Bias, Lod, Grad, ConstOffset,
//! Offset, ConstOffsets, Sample, MinLod; memory-model operands are ignored). Implicit-LOD
//! operations outside fragment shaders (and compute shaders with a derivative group) are
//! rejected here, naming the instruction.

use spirv::Op;

use crate::front::build::IrBuilder;
use crate::ir::{self, ImageInst, ImageOpKind, Inst, Lod, Reg, ScalarTy};
use crate::Result;

use super::lower::{Lower, ResVal, Val};
use super::parse::I;

const BIAS: u32 = 0x1;
const LOD: u32 = 0x2;
const GRAD: u32 = 0x4;
const CONST_OFFSET: u32 = 0x8;
const OFFSET: u32 = 0x10;
const CONST_OFFSETS: u32 = 0x20;
const SAMPLE: u32 = 0x40;
const MIN_LOD: u32 = 0x80;
const MAKE_TEXEL_AVAILABLE: u32 = 0x100;
const MAKE_TEXEL_VISIBLE: u32 = 0x200;
const OFFSETS: u32 = 0x10000;

/// Decoded image operands.
#[derive(Default)]
struct Operands {
    bias: Option<Reg>,
    lod: Option<Reg>,
    grad: Option<(Vec<Reg>, Vec<Reg>)>,
    offset: Vec<Reg>,
    offsets4: Option<[[i32; 2]; 4]>,
    /// The values of a `ConstOffset`, for the range check.
    const_offset: Option<Vec<i32>>,
    sample: Option<Reg>,
    min_lod: Option<Reg>,
}

/// Advertised texel offset limits (Vulkan `minTexelOffset`/`maxTexelOffset` and the gather
/// pair, sampling.md §13.4; the DXIL validator's `Instr.TextureOffset` rule is [-8, 7] too).
const TEXEL_OFFSET: (i32, i32) = (-8, 7);
const GATHER_OFFSET: (i32, i32) = (-32, 31);

impl Lower<'_> {
    fn res(&self, id: u32) -> Result<ResVal> {
        match self.val(id)? {
            Val::Res(r) => Ok(r.clone()),
            _ => Err(self.err(&format!("%{id} is not an image, sampler or sampled image"))),
        }
    }

    fn image_operands(&mut self, i: &I, at: usize) -> Result<Operands> {
        let mut o = Operands::default();
        let Some(&mask) = i.w.get(at) else {
            return Ok(o);
        };
        let mut k = at + 1;
        let next = |k: &mut usize| -> Result<u32> {
            let v = i.w(*k)?;
            *k += 1;
            Ok(v)
        };
        if mask & BIAS != 0 {
            o.bias = Some(self.reg1(next(&mut k)?)?);
        }
        if mask & LOD != 0 {
            o.lod = Some(self.reg1(next(&mut k)?)?);
        }
        if mask & GRAD != 0 {
            let dx = self.regs(next(&mut k)?)?;
            let dy = self.regs(next(&mut k)?)?;
            o.grad = Some((dx, dy));
        }
        if mask & CONST_OFFSET != 0 {
            let id = next(&mut k)?;
            o.offset = self.regs(id)?;
            o.const_offset = Some(
                self.cvals
                    .get(&id)
                    .map(|(_, b)| b.iter().map(|&v| v as u32 as i32).collect())
                    .ok_or_else(|| i.err("ConstOffset is not a constant"))?,
            );
        }
        if mask & OFFSET != 0 {
            o.offset = self.regs(next(&mut k)?)?;
        }
        if mask & CONST_OFFSETS != 0 {
            let id = next(&mut k)?;
            let bits = self
                .cvals
                .get(&id)
                .map(|(_, b)| b.clone())
                .ok_or_else(|| i.err("ConstOffsets is not a constant"))?;
            if bits.len() != 8 {
                return Err(i.err("ConstOffsets must be an array of four 2-component vectors"));
            }
            let mut a = [[0i32; 2]; 4];
            for (n, b) in bits.iter().enumerate() {
                a[n / 2][n % 2] = *b as u32 as i32;
            }
            o.offsets4 = Some(a);
        }
        if mask & SAMPLE != 0 {
            o.sample = Some(self.reg1(next(&mut k)?)?);
        }
        if mask & MIN_LOD != 0 {
            o.min_lod = Some(self.reg1(next(&mut k)?)?);
        }
        if mask & MAKE_TEXEL_AVAILABLE != 0 {
            next(&mut k)?;
        }
        if mask & MAKE_TEXEL_VISIBLE != 0 {
            next(&mut k)?;
        }
        if mask & OFFSETS != 0 {
            return Err(i.unsup("the Offsets image operand"));
        }
        Ok(o)
    }

    /// Number of coordinates (array layer included) of an image type.
    fn coord_count(&self, ty: u32) -> Result<usize> {
        let (_, it) = self.ir_image_type(ty)?;
        let base = match it.dim {
            ir::ImageDim::D1 | ir::ImageDim::Buffer => 1,
            ir::ImageDim::D2 | ir::ImageDim::SubpassData => 2,
            ir::ImageDim::D3 | ir::ImageDim::Cube => 3,
        };
        Ok(base + it.arrayed as usize)
    }

    /// Offsets are not allowed on cube images, and constant offsets must lie within the
    /// advertised limits (the validator's rules; spirv-val rejects both).
    fn check_offsets(&self, i: &I, ty: u32, kind: ImageOpKind, ops: &Operands) -> Result<()> {
        let (_, it) = self.ir_image_type(ty)?;
        if it.dim == ir::ImageDim::Cube && (!ops.offset.is_empty() || ops.offsets4.is_some()) {
            return Err(i.err("an offset image operand cannot be used with a Cube image"));
        }
        let (lo, hi) = if kind == ImageOpKind::Gather {
            GATHER_OFFSET
        } else {
            TEXEL_OFFSET
        };
        let consts = ops.const_offset.iter().flatten().copied();
        let fours = ops.offsets4.iter().flatten().flatten().copied();
        if let Some(v) = consts.chain(fours).find(|v| !(lo..=hi).contains(v)) {
            return Err(i.err(&format!(
                "constant texel offset {v} is outside the supported range [{lo}, {hi}]"
            )));
        }
        Ok(())
    }

    fn implicit_ok(&self, i: &I) -> Result<()> {
        if self.stage == ir::Stage::Fragment || self.derivative_group.is_some() {
            return Ok(());
        }
        Err(i.err(&format!(
            "implicit-LOD image operation in a {:?} entry point without a DerivativeGroup execution mode",
            self.stage
        )))
    }

    pub(crate) fn image(&mut self, i: &I) -> Result<()> {
        match i.op {
            Op::SampledImage => {
                let (rt, id) = (i.w(0)?, i.w(1)?);
                let img = self.res(i.w(2)?)?;
                let smp = self.res(i.w(3)?)?;
                let v = ResVal {
                    ty: rt,
                    image: img.image,
                    sampler: smp.sampler,
                };
                self.vals.insert(id, Val::Res(v));
                return Ok(());
            }
            Op::Image => {
                let (rt, id) = (i.w(0)?, i.w(1)?);
                let si = self.res(i.w(2)?)?;
                let v = ResVal {
                    ty: rt,
                    image: si.image,
                    sampler: None,
                };
                self.vals.insert(id, Val::Res(v));
                return Ok(());
            }
            _ => {}
        }
        let write = i.op == Op::ImageWrite;
        let (rt, id, first) = if write {
            (0, 0, 0)
        } else {
            (i.w(0)?, i.w(1)?, 2)
        };
        let h = self.res(i.w(first)?)?;
        let image = h
            .image
            .ok_or_else(|| i.err("operand is a sampler, not an image"))?;
        let sampler = h.sampler;
        let (kind, dref_at, ops_at, implicit, proj) = match i.op {
            Op::ImageSampleImplicitLod => (ImageOpKind::Sample, None, 4, true, false),
            Op::ImageSampleExplicitLod => (ImageOpKind::Sample, None, 4, false, false),
            Op::ImageSampleDrefImplicitLod => (ImageOpKind::Sample, Some(4), 5, true, false),
            Op::ImageSampleDrefExplicitLod => (ImageOpKind::Sample, Some(4), 5, false, false),
            Op::ImageSampleProjImplicitLod => (ImageOpKind::Sample, None, 4, true, true),
            Op::ImageSampleProjExplicitLod => (ImageOpKind::Sample, None, 4, false, true),
            Op::ImageSampleProjDrefImplicitLod => (ImageOpKind::Sample, Some(4), 5, true, true),
            Op::ImageSampleProjDrefExplicitLod => (ImageOpKind::Sample, Some(4), 5, false, true),
            Op::ImageFetch => (ImageOpKind::Fetch, None, 4, false, false),
            Op::ImageGather => (ImageOpKind::Gather, None, 5, false, false),
            Op::ImageDrefGather => (ImageOpKind::Gather, Some(4), 5, false, false),
            Op::ImageRead => (ImageOpKind::Read, None, 4, false, false),
            Op::ImageWrite => (ImageOpKind::Write, None, 3, false, false),
            Op::ImageQuerySizeLod | Op::ImageQuerySize => {
                (ImageOpKind::QuerySize, None, usize::MAX, false, false)
            }
            Op::ImageQueryLod => (ImageOpKind::QueryLod, None, usize::MAX, true, false),
            Op::ImageQueryLevels => (ImageOpKind::QueryLevels, None, usize::MAX, false, false),
            Op::ImageQuerySamples => (ImageOpKind::QuerySamples, None, usize::MAX, false, false),
            _ => return Err(i.err("not an image instruction")),
        };
        let ops = if ops_at == usize::MAX {
            Operands::default()
        } else {
            self.image_operands(i, ops_at)?
        };
        if implicit || ops.bias.is_some() {
            self.implicit_ok(i)?;
        }
        self.check_offsets(i, h.ty, kind, &ops)?;
        let ncoord = self.coord_count(h.ty)?;
        let mut coords = Vec::new();
        let mut proj_reg = None;
        let has_coord = !matches!(
            kind,
            ImageOpKind::QuerySize | ImageOpKind::QueryLevels | ImageOpKind::QuerySamples
        );
        if has_coord {
            let c = self.regs(i.w(first + 1)?)?;
            let (_, it) = self.ir_image_type(h.ty)?;
            let need = if kind == ImageOpKind::QueryLod {
                ncoord - it.arrayed as usize
            } else {
                ncoord
            };
            if proj {
                let q = *c
                    .get(need)
                    .ok_or_else(|| i.err("projective coordinate has no q component"))?;
                proj_reg = Some(q);
            }
            if c.len() < need {
                return Err(i.err(&format!(
                    "coordinate has {} components, the image needs {need}",
                    c.len()
                )));
            }
            coords = c[..need].to_vec();
        }
        let dref = match dref_at {
            Some(k) => Some(self.reg1(i.w(k)?)?),
            None => None,
        };
        let component = if i.op == Op::ImageGather {
            let c = self.reg1(i.w(4)?)?;
            Some(self.as_i32(c))
        } else {
            None
        };
        let lod = if let Some((dx, dy)) = ops.grad.clone() {
            Lod::Grad { dx, dy }
        } else if let Some(l) = ops.lod {
            Lod::Explicit(l)
        } else if implicit && kind == ImageOpKind::Sample {
            Lod::Implicit { bias: ops.bias }
        } else if i.op == Op::ImageQuerySizeLod {
            let l = self.reg1(i.w(3)?)?;
            Lod::Explicit(self.as_i32(l))
        } else {
            Lod::None
        };
        let texel = if write {
            let mut t = self.regs(i.w(2)?)?;
            let ty = self.rty(t[0]);
            while t.len() < 4 {
                let z = self.konst(ty, 0);
                t.push(z);
            }
            t
        } else {
            Vec::new()
        };
        let (dst, result_ty) = if write {
            (Vec::new(), self.rty(texel[0]))
        } else {
            let leaves = self.leaves(rt)?;
            let dst: Vec<Reg> = leaves.iter().map(|&t| self.reg(t)).collect();
            (dst, leaves.first().copied().unwrap_or(ScalarTy::F32))
        };
        let inst = ImageInst {
            kind,
            image,
            sampler,
            coords,
            proj: proj_reg,
            dref,
            lod,
            offset: ops.offset,
            offsets4: ops.offsets4,
            min_lod: ops.min_lod,
            sample: ops.sample,
            component,
            texel,
            dst: dst.clone(),
            result_ty,
        };
        self.emit(Inst::Image(Box::new(inst)));
        if !write {
            self.def_checked(id, rt, dst)?;
        }
        Ok(())
    }
}
