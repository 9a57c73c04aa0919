//! A readable text form of the IR, for `quadstep dis`, the debugger and test failure messages.
//! One line per instruction, registers as `rN:ty`, blocks as `bN:`.

use super::{Block, Function, Inst, Terminator};
use std::fmt::Write;

/// Print a whole function.
pub fn print_function(f: &Function) -> String {
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
    for (i, b) in f.blocks.iter().enumerate() {
        let _ = writeln!(out, "b{i}:");
        print_block(&mut out, b);
    }
    out
}

fn print_block(out: &mut String, b: &Block) {
    for inst in &b.insts {
        let _ = writeln!(out, "  {}", print_inst(inst));
    }
    let _ = writeln!(out, "  {}", print_term(&b.term));
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
        Inst::Convert {
            op,
            from,
            to,
            dst,
            a,
        } => format!("r{dst} = {op:?}.{from:?}->{to:?} r{a}"),
        Inst::Load { ty, dst, ptr } => {
            format!("r{dst} = load.{ty:?} {:?}[r{}]", ptr.space, ptr.addr)
        }
        Inst::Store { ty, ptr, src } => {
            format!("store.{ty:?} {:?}[r{}], r{src}", ptr.space, ptr.addr)
        }
        other => format!("{other:?}"),
    }
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
