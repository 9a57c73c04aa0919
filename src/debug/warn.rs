//! The warnings of one recorded instruction, at the lane they concern: cross-lane reads of
//! lanes that are not running or are past their `discard`, implicit LOD in non-uniform
//! control flow, NaN and infinities out of finite operands, division by zero, accesses
//! outside what is bound, math functions outside their domain and `clamp` with min > max.
//!
//! Every rule reads the recorded operand and result bits and the lanes' states; none
//! recomputes what the interpreter did (a NaN is a NaN in the result it wrote). Which lanes a
//! derivative or quad operation reads is the interpreter's own documented mapping
//! (`exec` module docs: fine pairs, coarse from lane 0, swap `l ^ (d + 1)`).

use super::record::Rec;
use super::trace::{LaneState, Warning, WarningKind};
use crate::ir::{
    Axis, BinaryOp, DerivKind, ImageOpKind, Inst, Lod, ScalarTy, Space, TernaryOp, UnaryOp,
};
use crate::pipeline::ImageExplain;

/// What the rules need besides the instruction.
pub(crate) struct Context<'a> {
    /// The type of every IR register.
    pub regs: &'a [ScalarTy],
    /// Per-lane (Local) words of the shader.
    pub local_words: u32,
    /// Bytes of the buffer at (resource slot, element), when known.
    pub buffer_len: &'a dyn Fn(u32, u32) -> Option<u64>,
    /// The step each lane was killed at, if it was.
    pub killed_at: [Option<usize>; 4],
}

/// A float of type `ty` from raw bits (None: not a float type).
fn as_float(ty: ScalarTy, bits: u64) -> Option<f64> {
    match ty {
        ScalarTy::F32 => Some(f32::from_bits(bits as u32) as f64),
        ScalarTy::F64 => Some(f64::from_bits(bits)),
        ScalarTy::F16 => Some(half::f16::from_bits(bits as u16).to_f64()),
        _ => None,
    }
}

/// Signed value of an integer of type `ty`.
fn as_signed(ty: ScalarTy, bits: u64) -> i64 {
    match ty.bits() {
        64 => bits as i64,
        w => ((bits << (64 - w)) as i64) >> (64 - w),
    }
}

struct Out<'a> {
    cx: &'a Context<'a>,
    list: Vec<Warning>,
}

impl Out<'_> {
    fn push(&mut self, kind: WarningKind, lane: usize, message: String) {
        self.list.push(Warning {
            kind,
            lane,
            message,
        });
    }

    /// Lane `l` reads lane `s` of its quad for `what`: warn if `s` is not running it or is
    /// past its `discard`.
    fn cross(&mut self, lanes: &[LaneState; 4], l: usize, s: usize, what: &str) {
        if s == l {
            return;
        }
        if let Some(step) = self.cx.killed_at[s] {
            self.push(
                WarningKind::DiscardedLane,
                l,
                format!(
                    "{what} in lane {l} reads lane {s}, which discarded at step {step}: \
                     Vulkan leaves this undefined (it is what lane {s} computed since as a \
                     helper, as lavapipe and D3D run it, or its last value under the strict \
                     reading)"
                ),
            );
        } else if !lanes[s].active {
            self.push(
                WarningKind::InactiveLane,
                l,
                format!(
                    "{what} in lane {l} reads lane {s}, which is not running this instruction \
                     (control flow diverged, or it finished): the result is undefined \
                     (quadstep reads what lane {s} last held there)"
                ),
            );
        }
    }
}

/// The lanes of its quad lane `l` reads for a derivative.
fn deriv_sources(axis: Axis, kind: DerivKind, l: usize) -> [usize; 2] {
    match (axis, kind) {
        (Axis::X, DerivKind::Fine) => [l & !1, l | 1],
        (Axis::Y, DerivKind::Fine) => [l & !2, l | 2],
        (Axis::X, DerivKind::Coarse) => [0, 1],
        (Axis::Y, DerivKind::Coarse) => [0, 2],
    }
}

/// The warnings of `rec`.
pub(crate) fn check(rec: &Rec, cx: &Context<'_>) -> Vec<Warning> {
    let mut out = Out {
        cx,
        list: Vec::new(),
    };
    let lanes = &rec.lanes;
    let active = |l: usize| lanes[l].active;
    let src = |k: usize| rec.src.get(k).map(|s| s.1).unwrap_or([0; 4]);
    let src_ty = |k: usize| {
        rec.src
            .get(k)
            .and_then(|s| cx.regs.get(s.0 as usize))
            .copied()
            .unwrap_or(ScalarTy::I32)
    };
    match &rec.inst {
        Inst::Deriv { axis, kind, .. } => {
            for l in (0..4).filter(|&l| active(l)) {
                for s in deriv_sources(*axis, *kind, l) {
                    out.cross(lanes, l, s, "the derivative");
                }
            }
        }
        Inst::QuadSwap { direction, .. } => {
            for l in (0..4).filter(|&l| active(l)) {
                out.cross(lanes, l, l ^ (*direction as usize + 1), "the quad swap");
            }
        }
        Inst::QuadBroadcast { .. } => {
            let index = src(1);
            for l in (0..4).filter(|&l| active(l)) {
                out.cross(lanes, l, (index[l] & 3) as usize, "the quad broadcast");
            }
        }
        Inst::Image(im) => {
            let implicit = matches!(im.lod, Lod::Implicit { .. })
                && matches!(im.kind, ImageOpKind::Sample | ImageOpKind::QueryLod);
            if implicit {
                for s in (0..4).filter(|&s| !active(s)) {
                    if cx.killed_at[s].is_none() {
                        out.push(
                            WarningKind::NonUniformImplicitLod,
                            s,
                            format!(
                                "implicit-LOD {:?} in non-uniform control flow: lane {s} of \
                                 the quad is not running it, so the derivatives of the \
                                 coordinates (and the LOD) are undefined",
                                im.kind
                            ),
                        );
                    }
                }
                for l in (0..4).filter(|&l| active(l)) {
                    for s in 0..4 {
                        if cx.killed_at[s].is_some() {
                            out.cross(lanes, l, s, "the implicit LOD");
                        }
                    }
                }
            }
            if let Some(step) = &rec.image {
                if let Ok(bound) = &step.bound {
                    image_bounds(&mut out, im.kind, step, bound, lanes);
                }
            }
        }
        Inst::Binary { op, ty, .. } => {
            let (a, b) = (src(0), src(1));
            for l in (0..4).filter(|&l| active(l)) {
                binary(&mut out, *op, *ty, a[l], b[l], l);
            }
        }
        Inst::Unary { op, ty, .. } => {
            let a = src(0);
            for l in (0..4).filter(|&l| active(l)) {
                if let Some(x) = as_float(*ty, a[l]) {
                    unary(&mut out, *op, x, l);
                }
            }
        }
        Inst::Ternary { op, ty, .. } => {
            let (_, lo, hi) = (src(0), src(1), src(2));
            for l in (0..4).filter(|&l| active(l)) {
                let bad = match op {
                    TernaryOp::FClamp | TernaryOp::NClamp => {
                        as_float(*ty, lo[l]) > as_float(*ty, hi[l])
                    }
                    TernaryOp::SClamp => as_signed(*ty, lo[l]) > as_signed(*ty, hi[l]),
                    TernaryOp::UClamp => lo[l] > hi[l],
                    _ => false,
                };
                if bad {
                    out.push(
                        WarningKind::ClampBounds,
                        l,
                        format!(
                            "clamp in lane {l} with min {} > max {}: the result is undefined",
                            super::trace::Value::show(*ty, lo[l]),
                            super::trace::Value::show(*ty, hi[l])
                        ),
                    );
                }
            }
        }
        Inst::Load { ty, ptr, .. } | Inst::Store { ty, ptr, .. } | Inst::Atomic { ty, ptr, .. } => {
            let addr = src(0);
            let index = match ptr.space {
                Space::Buffer { index: Some(_), .. } => src(1),
                _ => [0; 4],
            };
            for l in (0..4).filter(|&l| active(l)) {
                memory_bounds(&mut out, *ty, ptr.space, addr[l] as u32, index[l] as u32, l);
            }
        }
        _ => {}
    }
    // NaN or infinity out of operands that were neither (moves, loads and selects only pass
    // values on; image results come from texel data).
    let produces = !matches!(
        rec.inst,
        Inst::Unary {
            op: UnaryOp::Mov,
            ..
        } | Inst::Load { .. }
            | Inst::Image(_)
            | Inst::Ternary {
                op: TernaryOp::Select,
                ..
            }
            | Inst::QuadSwap { .. }
            | Inst::QuadBroadcast { .. }
            | Inst::Group { .. }
    );
    if produces {
        for &(r, v) in &rec.dst {
            let ty = cx.regs.get(r as usize).copied().unwrap_or(ScalarTy::I32);
            for l in (0..4).filter(|&l| active(l)) {
                let Some(x) = as_float(ty, v[l]).filter(|x| !x.is_finite()) else {
                    continue;
                };
                let finite_in = (0..rec.src.len())
                    .all(|k| as_float(src_ty(k), src(k)[l]).is_none_or(|y| y.is_finite()));
                if finite_in {
                    let what = if x.is_nan() { "a NaN" } else { "an infinity" };
                    out.push(
                        WarningKind::NanOrInf,
                        l,
                        format!("lane {l} produced {what} from finite operands"),
                    );
                }
            }
        }
    }
    out.list
}

fn binary(out: &mut Out<'_>, op: BinaryOp, ty: ScalarTy, a: u64, b: u64, l: usize) {
    use BinaryOp::*;
    match op {
        FDiv | FRem | FMod if as_float(ty, b) == Some(0.0) => out.push(
            WarningKind::DivisionByZero,
            l,
            format!("{op:?} in lane {l} divides by zero"),
        ),
        SDiv | UDiv | SRem | SMod | UMod if b & (u64::MAX >> (64 - ty.bits())) == 0 => out.push(
            WarningKind::DivisionByZero,
            l,
            format!(
                "{op:?} in lane {l} divides by integer zero (the result is undefined; \
                     quadstep gives all ones, or the dividend for a remainder)"
            ),
        ),
        Pow => {
            let (Some(x), Some(y)) = (as_float(ty, a), as_float(ty, b)) else {
                return;
            };
            if x < 0.0 || (x == 0.0 && y <= 0.0) {
                out.push(
                    WarningKind::Domain,
                    l,
                    format!("pow({x}, {y}) in lane {l}: x < 0, or x = 0 with y <= 0, is undefined"),
                );
            }
        }
        _ => {}
    }
}

fn unary(out: &mut Out<'_>, op: UnaryOp, x: f64, l: usize) {
    use UnaryOp::*;
    let bad = match op {
        Sqrt => x < 0.0,
        InverseSqrt => x <= 0.0,
        Log | Log2 => x <= 0.0,
        Asin | Acos => x.abs() > 1.0,
        Acosh => x < 1.0,
        Atanh => x.abs() >= 1.0,
        _ => false,
    };
    if bad {
        out.push(
            WarningKind::Domain,
            l,
            format!("{op:?}({x}) in lane {l} is outside the function's domain"),
        );
    }
}

fn memory_bounds(out: &mut Out<'_>, ty: ScalarTy, space: Space, addr: u32, index: u32, l: usize) {
    let bytes = ty.bits().max(32) as u64 / 8;
    let (end, len, what) = match space {
        Space::Local => (
            addr as u64 + bytes / 4,
            Some(out.cx.local_words as u64),
            "private memory (words)",
        ),
        Space::Buffer { slot, .. } => (
            addr as u64 + (ty.bits() as u64 / 8).max(1),
            (out.cx.buffer_len)(slot, index),
            "buffer (bytes)",
        ),
        Space::Workgroup => return,
    };
    if let Some(len) = len.filter(|&n| end > n) {
        out.push(
            WarningKind::OutOfBounds,
            l,
            format!(
                "lane {l} accesses {what} at {addr}..{end}, past the {len} bound there: reads \
                 give 0, writes are dropped"
            ),
        );
    }
}

/// Integer texel coordinates outside the bound view (fetch, storage read and write).
fn image_bounds(
    out: &mut Out<'_>,
    kind: ImageOpKind,
    step: &super::trace::ImageStep,
    bound: &ImageExplain,
    lanes: &[LaneState; 4],
) {
    if !matches!(
        kind,
        ImageOpKind::Fetch | ImageOpKind::Read | ImageOpKind::Write
    ) {
        return;
    }
    let q = &step.operands;
    for g in &bound.groups {
        let Some(img) = &g.image else {
            continue;
        };
        // integer coordinates address a cube's faces as the layers of a 2D array
        let vt = img.view.view_type;
        let (dims, layer) = if vt.is_cube() {
            (2, Some(2))
        } else {
            (vt.spatial_dims(), vt.layer_coord())
        };
        for l in (0..4).filter(|&l| g.lanes & (1 << l) != 0 && lanes[l].active) {
            let lod = match &q.lod {
                crate::exec::QuadLod::Explicit(v) => v[l],
                _ => 0,
            };
            let c = q.coords[l];
            let size = img.levels.get(lod as usize).copied();
            let inside = size.is_some_and(|s| (0..dims).all(|k| c[k] < s[k]))
                && layer.is_none_or(|k| c[k] < img.view.layer_count);
            if !inside {
                let n = layer.map_or(dims, |k| k + 1);
                let coords: Vec<i32> = c[..n].iter().map(|&v| v as i32).collect();
                out.push(
                    WarningKind::OutOfBounds,
                    l,
                    format!(
                        "{kind:?} in lane {l} at texel {coords:?}, level {lod}: outside the view \
                         ({} levels{}): reads give 0, writes are dropped",
                        img.levels.len(),
                        size.map(|s| format!(", level size {s:?}"))
                            .unwrap_or_default()
                    ),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Ptr, Reg};

    /// Registers: r0..r3 F32, r4 I32.
    const REGS: [ScalarTy; 5] = [
        ScalarTy::F32,
        ScalarTy::F32,
        ScalarTy::F32,
        ScalarTy::F32,
        ScalarTy::I32,
    ];

    fn f(v: [f32; 4]) -> [u64; 4] {
        v.map(|x| x.to_bits() as u64)
    }

    fn rec(inst: Inst, src: Vec<[u64; 4]>, dst: [u64; 4], active: [bool; 4]) -> Rec {
        let uses = super::super::record::uses(&inst);
        let defs = crate::ir::opt::walk::defs(&inst);
        Rec {
            block: 0,
            lanes: active.map(|active| LaneState {
                active,
                ..Default::default()
            }),
            src: uses.into_iter().zip(src).collect(),
            dst: defs.into_iter().map(|r: Reg| (r, dst)).collect(),
            inst,
            image: None,
        }
    }

    fn kinds(rec: &Rec) -> Vec<(WarningKind, usize)> {
        let len = |_: u32, _: u32| Some(16u64);
        let cx = Context {
            regs: &REGS,
            local_words: 4,
            buffer_len: &len,
            killed_at: [None; 4],
        };
        check(rec, &cx).iter().map(|w| (w.kind, w.lane)).collect()
    }

    #[test]
    fn division_by_zero_and_the_infinity_it_makes_in_running_lanes_only() {
        let div = Inst::Binary {
            op: BinaryOp::FDiv,
            ty: ScalarTy::F32,
            dst: 2,
            a: 0,
            b: 1,
        };
        let inf = f32::INFINITY;
        // lane 1 divides by 0 (1 / 0 = +inf); lane 3 would too but is not running
        let r = rec(
            div,
            vec![f([1.0; 4]), f([2.0, 0.0, 4.0, 0.0])],
            f([0.5, inf, 0.25, inf]),
            [true, true, true, false],
        );
        assert_eq!(
            kinds(&r),
            [(WarningKind::DivisionByZero, 1), (WarningKind::NanOrInf, 1)]
        );
    }

    #[test]
    fn domains_and_clamp_bounds() {
        let sqrt = Inst::Unary {
            op: UnaryOp::Sqrt,
            ty: ScalarTy::F32,
            dst: 1,
            a: 0,
        };
        let nan = f32::NAN;
        let r = rec(
            sqrt,
            vec![f([4.0, -1.0, 0.0, 9.0])],
            f([2.0, nan, 0.0, 3.0]),
            [true; 4],
        );
        assert_eq!(
            kinds(&r),
            [(WarningKind::Domain, 1), (WarningKind::NanOrInf, 1)]
        );
        // a NaN operand passing through is not "produced"
        let r = rec(
            Inst::Unary {
                op: UnaryOp::Sqrt,
                ty: ScalarTy::F32,
                dst: 1,
                a: 0,
            },
            vec![f([nan, 1.0, 1.0, 1.0])],
            f([nan, 1.0, 1.0, 1.0]),
            [true; 4],
        );
        assert_eq!(kinds(&r), []);
        let clamp = Inst::Ternary {
            op: TernaryOp::FClamp,
            ty: ScalarTy::F32,
            dst: 3,
            a: 0,
            b: 1,
            c: 2,
        };
        let r = rec(
            clamp,
            vec![f([0.5; 4]), f([0.0, 2.0, 0.0, 0.0]), f([1.0; 4])],
            f([0.5, 1.0, 0.5, 0.5]),
            [true; 4],
        );
        assert_eq!(kinds(&r), [(WarningKind::ClampBounds, 1)]);
    }

    #[test]
    fn buffer_and_private_accesses_past_their_bounds() {
        let load = |space| Inst::Load {
            ty: ScalarTy::F32,
            dst: 0,
            ptr: Ptr { space, addr: 4 },
        };
        // a 16-byte buffer: bytes 12..16 are in, 16..20 are not
        let buf = Space::Buffer {
            slot: 0,
            index: None,
        };
        let r = rec(load(buf), vec![[12, 16, 0, 12]], [0; 4], [true; 4]);
        assert_eq!(kinds(&r), [(WarningKind::OutOfBounds, 1)]);
        // four private words: word 3 is in, word 4 is not
        let r = rec(load(Space::Local), vec![[3, 4, 3, 3]], [0; 4], [true; 4]);
        assert_eq!(kinds(&r), [(WarningKind::OutOfBounds, 1)]);
    }

    #[test]
    fn a_coarse_derivative_reads_lanes_0_and_1_for_every_lane() {
        let d = Inst::Deriv {
            axis: Axis::X,
            kind: DerivKind::Coarse,
            ty: ScalarTy::F32,
            dst: 1,
            a: 0,
        };
        // lane 1 is not running: every running lane reads it
        let r = rec(d, vec![f([0.0; 4])], f([0.0; 4]), [true, false, true, true]);
        let inactive = WarningKind::InactiveLane;
        assert_eq!(kinds(&r), [(inactive, 0), (inactive, 2), (inactive, 3)]);
    }
}
