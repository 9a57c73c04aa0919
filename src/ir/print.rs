//! A readable text form of the IR, for `quadstep dis`, the debugger and test failure messages.
//! One line per instruction, registers as `rN`, blocks as `bN:`, resources as `resN` (the
//! index in [`super::Shader::resources`]), results left of `=`, then the operation named as
//! SPIR-V names it with its type after a dot, then the operands. `Source` markers print as
//! `; @N` (the word offset `spirv-dis --offsets` shows, divided by 4), with the source file,
//! line and text when a [`SourceMap`] knows them.

use super::{
    Axis, BallotQuery, Block, DerivKind, Function, GroupOp, GroupScan, ImageInst, ImageOpKind,
    Inst, InterpAt, LaneInfo, Lod, Ptr, Reg, ResRef, SourceMap, Space, Terminator,
};
use std::fmt::Write;

/// Print a whole function.
pub fn print_function(f: &Function) -> String {
    print_function_with(f, None)
}

/// Print a whole function, each `Source` marker with its source line from `source`.
pub fn print_function_with(f: &Function, source: Option<&SourceMap>) -> String {
    let mut out = String::new();
    for (r, c) in &f.consts {
        let _ = write!(out, "  r{r}:{:?} = const {:#x}", c.ty, c.bits);
        // Floats also as a value: `0x3f800000` is easier to read as `1`.
        let _ = match c.ty {
            super::ScalarTy::F32 => writeln!(out, " ({:?})", f32::from_bits(c.bits as u32)),
            super::ScalarTy::F64 => writeln!(out, " ({:?})", f64::from_bits(c.bits)),
            super::ScalarTy::F16 => writeln!(out, " ({})", half::f16::from_bits(c.bits as u16)),
            _ => writeln!(out),
        };
    }
    // a source line's text is printed where the line starts, not at each of its markers
    let mut last_line = None;
    for (i, b) in f.blocks.iter().enumerate() {
        let _ = writeln!(out, "b{i}:");
        print_block(&mut out, b, source, &mut last_line);
    }
    out
}

fn print_block(
    out: &mut String,
    b: &Block,
    source: Option<&SourceMap>,
    last_line: &mut Option<(u32, u32)>,
) {
    for inst in &b.insts {
        let _ = write!(out, "  {}", print_inst(inst));
        if let (Inst::Source { offset }, Some(map)) = (inst, source) {
            out.push_str(&map.note(*offset, last_line));
        }
        out.push('\n');
    }
    let _ = writeln!(out, "  {}", print_term(&b.term));
}

fn regs(rs: &[Reg]) -> String {
    rs.iter()
        .map(|r| format!("r{r}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn res(r: &ResRef) -> String {
    match r.index {
        Some(i) => format!("res{}[r{i}]", r.slot),
        None => format!("res{}", r.slot),
    }
}

fn ptr(p: &Ptr) -> String {
    match p.space {
        Space::Local => format!("Local[r{}]", p.addr),
        Space::Workgroup => format!("Workgroup[r{}]", p.addr),
        Space::Buffer { slot, index } => {
            format!("{}[r{}]", res(&ResRef { slot, index }), p.addr)
        }
    }
}

/// Print one instruction.
pub fn print_inst(inst: &Inst) -> String {
    match inst {
        Inst::Unary { op, ty, dst, a } => format!("r{dst} = {op:?}.{ty:?} r{a}"),
        Inst::Binary { op, ty, dst, a, b } => format!("r{dst} = {op:?}.{ty:?} r{a}, r{b}"),
        Inst::Ternary {
            op,
            ty,
            dst,
            a,
            b,
            c,
        } => format!("r{dst} = {op:?}.{ty:?} r{a}, r{b}, r{c}"),
        Inst::BitFieldInsert {
            ty,
            dst,
            base,
            insert,
            offset,
            count,
        } => format!("r{dst} = BitFieldInsert.{ty:?} r{base}, r{insert}, r{offset}, r{count}"),
        Inst::Pack4x8 { snorm, dst, src } => format!(
            "r{dst} = Pack{}4x8 {}",
            if *snorm { "Snorm" } else { "Unorm" },
            regs(src)
        ),
        Inst::Convert {
            op,
            from,
            to,
            dst,
            a,
        } => format!("r{dst} = {op:?}.{from:?}->{to:?} r{a}"),
        Inst::Load { ty, dst, ptr: p } => format!("r{dst} = load.{ty:?} {}", ptr(p)),
        Inst::Store { ty, ptr: p, src } => format!("store.{ty:?} {}, r{src}", ptr(p)),
        Inst::Atomic {
            op,
            ty,
            dst,
            ptr: p,
            a,
            b,
        } => format!("r{dst} = Atomic{op:?}.{ty:?} {}, r{a}, r{b}", ptr(p)),
        Inst::ArrayLength {
            dst,
            slot,
            index,
            offset,
            stride,
        } => format!(
            "r{dst} = ArrayLength {} offset {offset} stride {stride}",
            res(&ResRef {
                slot: *slot,
                index: *index
            })
        ),
        Inst::Deriv {
            axis,
            kind,
            ty,
            dst,
            a,
        } => {
            let axis = match axis {
                Axis::X => "x",
                Axis::Y => "y",
            };
            let kind = match kind {
                DerivKind::Fine => "Fine",
                DerivKind::Coarse => "Coarse",
            };
            format!("r{dst} = DPd{axis}{kind}.{ty:?} r{a}")
        }
        Inst::InterpolateAt { at, dst, addr } => match at {
            InterpAt::Centroid => format!("r{dst} = InterpolateAtCentroid Local[r{addr}]"),
            InterpAt::Sample(s) => format!("r{dst} = InterpolateAtSample Local[r{addr}], r{s}"),
            InterpAt::Offset(x, y) => {
                format!("r{dst} = InterpolateAtOffset Local[r{addr}], r{x}, r{y}")
            }
        },
        Inst::Emit { stream } => format!("EmitVertex stream {stream}"),
        Inst::EndPrimitive { stream } => format!("EndPrimitive stream {stream}"),
        Inst::QuadSwap {
            direction,
            ty,
            dst,
            a,
        } => {
            let dir = match direction {
                0 => "Horizontal",
                1 => "Vertical",
                _ => "Diagonal",
            };
            format!("r{dst} = QuadSwap{dir}.{ty:?} r{a}")
        }
        Inst::QuadBroadcast { ty, dst, a, index } => {
            format!("r{dst} = QuadBroadcast.{ty:?} r{a}, r{index}")
        }
        Inst::QuadVote { all, dst, a } => {
            format!("r{dst} = Quad{} r{a}", if *all { "All" } else { "Any" })
        }
        Inst::Group { op, ty, dst, a, b } => match op {
            GroupOp::Elect => format!("r{dst} = GroupElect"),
            GroupOp::Ballot(c) => format!("r{dst} = GroupBallot[{c}] r{a}"),
            GroupOp::All | GroupOp::Any | GroupOp::AllEqual | GroupOp::BroadcastFirst => {
                format!("r{dst} = Group{op:?}.{ty:?} r{a}")
            }
            _ => format!("r{dst} = Group{op:?}.{ty:?} r{a}, r{b}"),
        },
        Inst::GroupArith {
            op,
            scan,
            ty,
            dst,
            a,
        } => {
            let scan = match scan {
                GroupScan::Reduce => "Reduce".to_string(),
                GroupScan::Inclusive => "InclusiveScan".to_string(),
                GroupScan::Exclusive => "ExclusiveScan".to_string(),
                GroupScan::Clustered(n) => format!("ClusteredReduce({n})"),
            };
            format!("r{dst} = Group{op:?}.{scan}.{ty:?} r{a}")
        }
        Inst::BallotQuery {
            query,
            dst,
            ballot,
            b,
        } => match query {
            BallotQuery::BitExtract => {
                format!("r{dst} = BallotBitExtract ({}), r{b}", regs(ballot))
            }
            BallotQuery::Inverse => format!("r{dst} = InverseBallot ({})", regs(ballot)),
            q => format!("r{dst} = Ballot{q:?} ({})", regs(ballot)),
        },
        Inst::Image(i) => print_image(i),
        Inst::IsHelper { dst } => format!("r{dst} = IsHelperInvocation"),
        Inst::LaneInfo { what, dst } => match what {
            LaneInfo::SubgroupInvocationId | LaneInfo::SubgroupSize => {
                format!("r{dst} = {what:?}")
            }
            LaneInfo::SubgroupEqMask(c)
            | LaneInfo::SubgroupGeMask(c)
            | LaneInfo::SubgroupGtMask(c)
            | LaneInfo::SubgroupLeMask(c)
            | LaneInfo::SubgroupLtMask(c) => {
                let name = format!("{what:?}");
                let name = name.split('(').next().unwrap_or_default();
                format!("r{dst} = {name}[{c}]")
            }
        },
        Inst::Demote => "DemoteToHelperInvocation".into(),
        Inst::Barrier => "ControlBarrier".into(),
        Inst::Source { offset } => format!("; @{offset}"),
    }
}

/// `r6, r7 = ImageSample.F32 res0, (r4, r5)` (a separate sampler after the image: `res0,
/// res1, (r4, r5)`), then each other operand the instruction has, by name (`proj`, `dref`,
/// `bias`, `lod`, `grad`, `offset`, …).
fn print_image(i: &ImageInst) -> String {
    let name = match i.kind {
        ImageOpKind::Atomic(op) => format!("ImageAtomic{op:?}"),
        k => format!("Image{k:?}"),
    };
    let mut s = String::new();
    if !i.dst.is_empty() {
        let _ = write!(s, "{} = ", regs(&i.dst));
    }
    let _ = write!(s, "{name}.{:?} {}", i.result_ty, res(&i.image));
    if let Some(smp) = &i.sampler {
        let _ = write!(s, ", {}", res(smp));
    }
    if !i.coords.is_empty() {
        let _ = write!(s, ", ({})", regs(&i.coords));
    }
    let mut named = |label: &str, r: Option<Reg>| {
        if let Some(r) = r {
            let _ = write!(s, " {label} r{r}");
        }
    };
    named("proj", i.proj);
    named("dref", i.dref);
    match &i.lod {
        Lod::Implicit { bias } => named("bias", *bias),
        Lod::Explicit(l) => named("lod", Some(*l)),
        Lod::Grad { .. } | Lod::None => {}
    }
    named("min_lod", i.min_lod);
    named("sample", i.sample);
    named("component", i.component);
    if let Lod::Grad { dx, dy } = &i.lod {
        let _ = write!(s, " grad ({}) ({})", regs(dx), regs(dy));
    }
    if !i.offset.is_empty() {
        let _ = write!(s, " offset ({})", regs(&i.offset));
    }
    if let Some(o) = &i.offsets4 {
        let o: Vec<String> = o.iter().map(|[u, v]| format!("({u}, {v})")).collect();
        let _ = write!(s, " offsets [{}]", o.join(", "));
    }
    if !i.texel.is_empty() {
        let _ = write!(s, " texel ({})", regs(&i.texel));
    }
    s
}

fn print_term(t: &Terminator) -> String {
    match t {
        Terminator::Jump(b) => format!("jump b{b}"),
        Terminator::Branch {
            cond,
            if_true,
            if_false,
        } => format!("branch r{cond} ? b{if_true} : b{if_false}"),
        Terminator::Switch {
            ty,
            sel,
            cases,
            default,
        } => {
            let cs: Vec<String> = cases.iter().map(|(v, b)| format!("{v} => b{b}")).collect();
            format!(
                "switch.{ty:?} r{sel} [{}] default b{default}",
                cs.join(", ")
            )
        }
        Terminator::Return => "return".into(),
        Terminator::Kill { resume: None } => "kill".into(),
        Terminator::Kill { resume: Some(b) } => format!("kill (helper resumes at b{b})"),
        Terminator::Unreachable => "unreachable".into(),
    }
}
