//! Texture operations: every sample op (`Sample` 60 … `SampleCmpBias` 255, with offsets and
//! the `MinLOD` clamp), gathers (raw ones included), `TextureLoad`/`TextureStore`,
//! `CalculateLOD` and `GetDimensions`, each one [`ImageInst`].
//!
//! DXIL passes four coordinates, three offsets and three gradient components whatever the
//! resource's shape and leaves the unused ones `undef`; the shape (sampling.md §2) says how
//! many count. What the operands mean — D3D's bias and `MinLOD` rules, offset wrapping — is
//! the texture unit's D3D policy, which a DXIL shader samples under by default.

use crate::front::build::IrBuilder;
use crate::ir::{BinaryOp, ConvOp, ImageInst, ImageOpKind, Inst, Lod, Reg, ScalarTy};

use super::super::module::Value;
use super::super::shader::{ResourceClass, ResourceKind as DK};
use super::resources::Handle;
use super::{LResult, Lower, Val};

/// How many coordinates, offsets and gradient components a shape uses when sampling.
fn sample_arity(kind: DK) -> Option<(usize, usize, usize)> {
    Some(match kind {
        DK::Texture1D => (1, 1, 1),
        DK::Texture1DArray => (2, 1, 1),
        DK::Texture2D => (2, 2, 2),
        DK::Texture2DArray => (3, 2, 2),
        DK::Texture3D => (3, 3, 3),
        DK::TextureCube => (3, 0, 3),
        DK::TextureCubeArray => (4, 0, 3),
        _ => return None,
    })
}

/// How many integer coordinates a shape takes in `TextureLoad`/`TextureStore`.
fn load_arity(kind: DK) -> usize {
    match kind {
        DK::Texture1D | DK::TypedBuffer => 1,
        DK::Texture1DArray | DK::Texture2D | DK::Texture2DMS => 2,
        _ => 3,
    }
}

/// The IR instruction template for an image op on `h`.
pub(crate) fn image_inst(kind: ImageOpKind, h: &Handle, result_ty: ScalarTy) -> ImageInst {
    ImageInst {
        kind,
        image: Lower::res_ref(h),
        sampler: None,
        coords: Vec::new(),
        proj: None,
        dref: None,
        lod: Lod::None,
        offset: Vec::new(),
        offsets4: None,
        min_lod: None,
        sample: None,
        component: None,
        texel: Vec::new(),
        dst: Vec::new(),
        result_ty,
    }
}

impl<'a> Lower<'a> {
    /// The scalars of operands `args[from..from + n]`.
    fn operands(&mut self, args: &[Value], from: usize, n: usize) -> LResult<Vec<Reg>> {
        (from..from + n)
            .map(|i| {
                let v = self.arg(args, i)?;
                self.scalar(v)
            })
            .collect()
    }

    /// An optional operand: `None` when `undef`.
    fn optional(&mut self, args: &[Value], i: usize) -> LResult<Option<Reg>> {
        let v = self.arg(args, i)?;
        if self.is_undef(v) {
            Ok(None)
        } else {
            self.scalar(v).map(Some)
        }
    }

    /// Offsets `args[from..from + n]`, none when the first is `undef`.
    fn offsets(&mut self, args: &[Value], from: usize, n: usize) -> LResult<Vec<Reg>> {
        if n == 0 || self.is_undef(self.arg(args, from)?) {
            return Ok(Vec::new());
        }
        (from..from + n)
            .map(|i| {
                let v = self.arg(args, i)?;
                if self.is_undef(v) {
                    Ok(self.k32(0))
                } else {
                    self.scalar(v)
                }
            })
            .collect()
    }

    fn texture(&mut self, v: Value) -> LResult<(Handle, (usize, usize, usize))> {
        let h = self.handle(v)?;
        let arity = sample_arity(h.kind)
            .ok_or_else(|| self.invalid(format!("sampling a {} resource", h.kind.name())))?;
        Ok((h, arity))
    }

    /// The gather of `component` that `TextureGather` and `TextureGatherRaw` (`srv, sampler,
    /// c0..c3, o0, o1` first) make.
    fn gather_inst(&mut self, args: &[Value], component: Reg, t: ScalarTy) -> LResult<ImageInst> {
        let (h, (nc, no, _)) = self.texture(self.arg(args, 0)?)?;
        let s = self.handle(self.arg(args, 1)?)?;
        let mut ii = image_inst(ImageOpKind::Gather, &h, t);
        ii.sampler = Some(Self::res_ref(&s));
        ii.coords = self.operands(args, 2, nc)?;
        ii.offset = self.offsets(args, 6, no.min(2))?;
        ii.component = Some(component);
        Ok(ii)
    }

    /// Emits `ii` and returns its result registers.
    fn image(&mut self, mut ii: ImageInst, results: usize) -> Vec<Reg> {
        ii.dst = (0..results).map(|_| self.reg(ii.result_ty)).collect();
        let dst = ii.dst.clone();
        self.emit(Inst::Image(Box::new(ii)));
        dst
    }

    /// Texture ops. Returns `false` for other ops.
    pub(crate) fn image_op(&mut self, op: u32, args: &[Value]) -> LResult<bool> {
        match op {
            60..=65 | 224 | 254 | 255 => self.sample(op, args)?,
            // TextureGather(srv, sampler, c0..c3, o0, o1, channel), TextureGatherCmp(.., ref)
            73 | 74 => {
                let t = self.res_ret_ty()?;
                let component = self.scalar(self.arg(args, 8)?)?;
                let mut ii = self.gather_inst(args, component, t)?;
                if op == 74 {
                    ii.dref = Some(self.scalar(self.arg(args, 9)?)?);
                }
                let out = self.image(ii, 4);
                self.set_res_ret(out);
            }
            // TextureGatherRaw(srv, sampler, c0..c3, o0, o1): the texels' raw bits, which on
            // the single-channel 16- and 32-bit integer views it takes are a gather of red;
            // 64-bit texels (R32G32 views) are red | green << 32, two gathers
            223 => {
                let t = self.res_ret_ty()?;
                let i32t = ScalarTy::I32;
                let red = self.k32(0);
                let ii = self.gather_inst(args, red, i32t)?;
                let lo = self.image(ii, 4);
                let out = match t {
                    ScalarTy::I64 => {
                        let green = self.k32(1);
                        let ii = self.gather_inst(args, green, i32t)?;
                        let hi = self.image(ii, 4);
                        lo.iter()
                            .zip(&hi)
                            .map(|(&l, &h)| self.bin(BinaryOp::Join64, t, l, h))
                            .collect()
                    }
                    ScalarTy::I32 => lo,
                    ScalarTy::I16 => lo
                        .iter()
                        .map(|&l| self.convert(ConvOp::UConvert, i32t, t, l))
                        .collect(),
                    other => return Err(self.invalid(format!("a raw gather of {other:?}"))),
                };
                self.set_res_ret(out);
            }
            // CalculateLOD(srv, sampler, c0, c1, c2, clamped)
            81 => {
                let (h, (nc, _, _)) = self.texture(self.arg(args, 0)?)?;
                let s = self.handle(self.arg(args, 1)?)?;
                let clamped = self.const_u32(self.arg(args, 5)?)? != 0;
                let mut ii = image_inst(ImageOpKind::QueryLod, &h, ScalarTy::F32);
                ii.sampler = Some(Self::res_ref(&s));
                // the array layer takes no part in the LOD
                let ncoord = match h.kind {
                    DK::Texture1DArray | DK::Texture2DArray | DK::TextureCubeArray => nc - 1,
                    _ => nc,
                };
                ii.coords = self.operands(args, 2, ncoord)?;
                ii.lod = Lod::Implicit { bias: None };
                self.uses_quads = true;
                let out = self.image(ii, 2);
                let r = if clamped {
                    // D3D's clamped LOD stays inside the view's mip levels as well as the
                    // sampler's range: min(lod, levels - 1)
                    let q = image_inst(ImageOpKind::QueryLevels, &h, ScalarTy::I32);
                    let levels = self.image(q, 1)[0];
                    let lf = self.convert(ConvOp::SToF, ScalarTy::I32, ScalarTy::F32, levels);
                    let one = self.kf32(1.0);
                    let last = self.bin(BinaryOp::FSub, ScalarTy::F32, lf, one);
                    self.bin(BinaryOp::FMin, ScalarTy::F32, out[0], last)
                } else {
                    out[1]
                };
                self.set_scalar(r);
            }
            // TextureLoad(h, mip or sample, c0, c1, c2, o0, o1, o2)
            66 => {
                let h = self.handle(self.arg(args, 0)?)?;
                let t = self.res_ret_ty()?;
                let uav = h.class == ResourceClass::Uav;
                let kind = if uav {
                    ImageOpKind::Read
                } else {
                    ImageOpKind::Fetch
                };
                let mut ii = image_inst(kind, &h, t);
                let n = load_arity(h.kind);
                ii.coords = self.operands(args, 1 + 1, n)?;
                let mip = self.optional(args, 1)?;
                match h.kind {
                    DK::Texture2DMS | DK::Texture2DMSArray => ii.sample = mip,
                    _ if !uav => {
                        ii.lod = Lod::Explicit(mip.unwrap_or_else(|| self.k32(0)));
                        let no = sample_arity(h.kind).map_or(0, |a| a.1);
                        ii.offset = self.offsets(args, 5, no)?;
                    }
                    _ => {}
                }
                let out = self.image(ii, 4);
                self.set_res_ret(out);
            }
            // TextureStore(h, c0, c1, c2, v0..v3, mask)
            67 => {
                let h = self.handle(self.arg(args, 0)?)?;
                let v0 = self.arg(args, 4)?;
                let t = self.ty_of(v0)?;
                let mut ii = image_inst(ImageOpKind::Write, &h, t);
                ii.coords = self.operands(args, 1, load_arity(h.kind))?;
                ii.texel = self.operands(args, 4, 4)?;
                self.image(ii, 0);
            }
            // GetDimensions(h, mip) -> {w, h, d, levels}
            72 => self.dimensions(args)?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn sample(&mut self, op: u32, args: &[Value]) -> LResult<()> {
        let (h, (nc, no, ng)) = self.texture(self.arg(args, 0)?)?;
        let s = self.handle(self.arg(args, 1)?)?;
        let t = self.res_ret_ty()?;
        let mut ii = image_inst(ImageOpKind::Sample, &h, t);
        ii.sampler = Some(Self::res_ref(&s));
        ii.coords = self.operands(args, 2, nc)?;
        ii.offset = self.offsets(args, 6, no)?;
        // the operands after (srv, sampler, c0..c3, o0..o2)
        let rest = 9;
        let cmp = matches!(op, 64 | 65 | 224 | 254 | 255);
        let after_cmp = if cmp {
            ii.dref = Some(self.scalar(self.arg(args, rest)?)?);
            rest + 1
        } else {
            rest
        };
        let grad = |l: &mut Self, at: usize| -> LResult<Lod> {
            Ok(Lod::Grad {
                dx: l.operands(args, at, ng)?,
                dy: l.operands(args, at + 3, ng)?,
            })
        };
        let clamp_at;
        ii.lod = match op {
            60 | 64 => {
                clamp_at = Some(after_cmp);
                Lod::Implicit { bias: None }
            }
            61 | 255 => {
                clamp_at = Some(after_cmp + 1);
                Lod::Implicit {
                    bias: Some(self.scalar(self.arg(args, after_cmp)?)?),
                }
            }
            62 | 224 => {
                clamp_at = None;
                Lod::Explicit(self.scalar(self.arg(args, after_cmp)?)?)
            }
            65 => {
                clamp_at = None;
                Lod::Explicit(self.kf32(0.0))
            }
            _ => {
                clamp_at = Some(after_cmp + 6);
                grad(self, after_cmp)?
            }
        };
        if matches!(ii.lod, Lod::Implicit { .. }) {
            self.uses_quads = true;
        }
        if let Some(c) = clamp_at {
            ii.min_lod = self.optional(args, c)?;
        }
        let out = if cmp {
            let r = self.image(ii, 1);
            let z = self.konst(t, 0);
            vec![r[0], z, z, z]
        } else {
            self.image(ii, 4)
        };
        self.set_res_ret(out);
        Ok(())
    }

    fn dimensions(&mut self, args: &[Value]) -> LResult<()> {
        let h = self.handle(self.arg(args, 0)?)?;
        let i32t = ScalarTy::I32;
        let zero = self.k32(0);
        let mut out = match h.kind {
            DK::RawBuffer | DK::StructuredBuffer => {
                let dst = self.reg(i32t);
                self.emit(Inst::ArrayLength {
                    dst,
                    slot: h.slot,
                    index: h.index,
                    offset: 0,
                    stride: if h.kind == DK::RawBuffer {
                        1
                    } else {
                        h.stride.max(1)
                    },
                });
                vec![dst]
            }
            DK::TypedBuffer => {
                let ii = image_inst(ImageOpKind::QuerySize, &h, i32t);
                self.image(ii, 1)
            }
            k => {
                let n = match k {
                    DK::Texture1D => 1,
                    DK::Texture1DArray | DK::Texture2D | DK::Texture2DMS | DK::TextureCube => 2,
                    DK::Texture2DArray
                    | DK::Texture2DMSArray
                    | DK::Texture3D
                    | DK::TextureCubeArray => 3,
                    other => return Err(self.not_run(format!("GetDimensions of {}", other.name()))),
                };
                let ms = matches!(k, DK::Texture2DMS | DK::Texture2DMSArray);
                let uav = h.class == ResourceClass::Uav;
                let mut ii = image_inst(ImageOpKind::QuerySize, &h, i32t);
                if !uav && !ms {
                    let mip = self.optional(args, 1)?;
                    ii.lod = Lod::Explicit(mip.unwrap_or(zero));
                }
                let mut dims = self.image(ii, n);
                while dims.len() < 3 {
                    dims.push(zero);
                }
                let last = if uav {
                    zero
                } else {
                    let kind = if ms {
                        ImageOpKind::QuerySamples
                    } else {
                        ImageOpKind::QueryLevels
                    };
                    let ii = image_inst(kind, &h, i32t);
                    self.image(ii, 1)[0]
                };
                dims.push(last);
                dims
            }
        };
        while out.len() < 4 {
            out.push(zero);
        }
        self.set_result(Val::Agg(out));
        Ok(())
    }
}
