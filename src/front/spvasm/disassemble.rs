//! Disassembler: SPIR-V words → `spirv-as` text with numeric `%N` ids.
//!
//! Operands are decoded by the same grammar walk as the assembler (operand kind + quantifier,
//! enumerant parameters pushed in front of what remains), so whatever is printed parses back to
//! the same words. Floats print in the shortest decimal form that reads back exactly, or as hex
//! floats (`0x1.8p+128`) for halves, subnormals, infinities and NaNs, as `spirv-dis` does.

use super::assemble::words_to_string;
use super::{
    enum_params, is_mask, is_value_enum, mask_bit_name, opcode_by_name, opcode_by_number,
    value_enum_name, NumType,
};
use crate::{Error, Result};
use rspirv::grammar::{ext_inst_table, OperandKind, OperandQuantifier};
use std::collections::{HashMap, VecDeque};
use std::fmt::Write;

type Operand = (OperandKind, OperandQuantifier);

fn one(kinds: &[OperandKind]) -> Vec<Operand> {
    kinds.iter().map(|&k| (k, OperandQuantifier::One)).collect()
}

/// One disassembled instruction: where it is, its opcode, its result id, and its text
/// without the result (`OpFAdd %6 %12 %12`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DisInst {
    /// Word offset of the instruction's first word.
    pub offset: u32,
    pub opcode: u32,
    pub result: Option<u32>,
    pub text: String,
    /// Words of the instruction, the first included.
    pub words: u32,
}

impl DisInst {
    /// The operand words (after the first) of this instruction in `module`.
    pub fn operands<'a>(&self, module: &'a [u32]) -> &'a [u32] {
        let (at, end) = (
            self.offset as usize + 1,
            (self.offset + self.words) as usize,
        );
        module.get(at..end).unwrap_or(&[])
    }
}

/// The column where [`super::disassemble_with`]'s notes start (further right after long
/// instructions).
const NOTE_COLUMN: usize = 56;

pub(super) fn disassemble(words: &[u32], note: &mut dyn FnMut(u32) -> String) -> Result<String> {
    let insts = instructions(words)?;
    let bound = words[3];
    let mut out = String::new();
    let _ = writeln!(out, "; SPIR-V");
    let _ = writeln!(
        out,
        "; Version: {}.{}",
        words[1] >> 16 & 0xff,
        words[1] >> 8 & 0xff
    );
    let _ = writeln!(
        out,
        "; Generator: {:#x}; {}",
        words[2] >> 16,
        words[2] & 0xffff
    );
    let _ = writeln!(out, "; Bound: {bound}");
    let _ = writeln!(out, "; Schema: {}", words[4]);
    // Results right-aligned as spirv-dis does (`%N = ` ending at column 15).
    let width = (1 + bound.to_string().len()).max(12);
    for d in insts {
        let at = out.len();
        match d.result {
            Some(r) => {
                let _ = write!(out, "{:>width$} = {}", format!("%{r}"), d.text);
            }
            None => {
                let _ = write!(out, "{:width$}   {}", "", d.text);
            }
        }
        let note = note(d.offset);
        if !note.is_empty() {
            // notes in one column where the instruction leaves room
            let len = out[at..].chars().count();
            let pad = NOTE_COLUMN.saturating_sub(len).max(1);
            out.extend(std::iter::repeat_n(' ', pad));
            out.push_str(&note);
        }
        out.push('\n');
    }
    Ok(out)
}

/// Every instruction of a module after its header, in order.
pub(super) fn instructions(words: &[u32]) -> Result<Vec<DisInst>> {
    if words.len() < 5 {
        return Err(Error::Spirv(format!(
            "module has {} words, fewer than the 5-word header",
            words.len()
        )));
    }
    if words[0] != 0x0723_0203 {
        let why = if words[0] == 0x0302_2307 {
            " (byte-swapped modules are not supported)"
        } else {
            ""
        };
        return Err(Error::Spirv(format!(
            "word 0: bad magic number {:#010x}{why}",
            words[0]
        )));
    }
    let mut d = Dis {
        num_types: HashMap::new(),
        value_type: HashMap::new(),
        ext_sets: HashMap::new(),
    };
    let mut out = Vec::new();
    let mut i = 5;
    while i < words.len() {
        let wc = (words[i] >> 16) as usize;
        let opcode = words[i] & 0xffff;
        if wc == 0 || i + wc > words.len() {
            return Err(Error::Spirv(format!(
                "word {i}: instruction word count {wc} {}",
                if wc == 0 {
                    "is zero"
                } else {
                    "runs past the end of the module"
                }
            )));
        }
        let (result, text) = d.instruction(i, opcode, &words[i + 1..i + wc])?;
        out.push(DisInst {
            offset: i as u32,
            opcode,
            result,
            text,
            words: wc as u32,
        });
        i += wc;
    }
    Ok(out)
}

struct Dis {
    num_types: HashMap<u32, NumType>,
    value_type: HashMap<u32, u32>,
    ext_sets: HashMap<u32, String>,
}

/// The operand words of one instruction, read front to back.
struct Cursor<'a> {
    at: usize,
    ops: &'a [u32],
    pos: usize,
}

impl Cursor<'_> {
    fn word(&mut self, what: &str) -> Result<u32> {
        let w = self.ops.get(self.pos).copied().ok_or_else(|| {
            Error::Spirv(format!(
                "word {}: instruction ends before its {what}",
                self.at
            ))
        })?;
        self.pos += 1;
        Ok(w)
    }
}

impl Dis {
    fn instruction(
        &mut self,
        at: usize,
        opcode: u32,
        ops: &[u32],
    ) -> Result<(Option<u32>, String)> {
        let Some(g) = opcode_by_number(opcode) else {
            return Err(Error::Spirv(format!("word {at}: unknown opcode {opcode}")));
        };
        let mut c = Cursor { at, ops, pos: 0 };
        let mut text = format!("Op{}", g.opname);
        let mut result = None;
        let mut result_type = None;
        let mut first_id = None;
        let mut queue: VecDeque<Operand> =
            g.operands.iter().map(|o| (o.kind, o.quantifier)).collect();
        while let Some((kind, q)) = queue.pop_front() {
            if c.pos >= ops.len() {
                if q == OperandQuantifier::One {
                    return Err(Error::Spirv(format!(
                        "word {at}: Op{} ends before its {kind:?} operand",
                        g.opname
                    )));
                }
                continue;
            }
            if kind == OperandKind::IdResult {
                result = Some(c.word("result id")?);
                continue;
            }
            let mut piece = String::new();
            let params = self.operand(
                kind,
                &mut c,
                &mut piece,
                result_type,
                &mut first_id,
                g.opname,
            )?;
            if kind == OperandKind::IdResultType {
                result_type = ops.get(c.pos - 1).copied();
            }
            text.push(' ');
            text.push_str(&piece);
            if q == OperandQuantifier::ZeroOrMore {
                queue.push_front((kind, q));
            }
            for p in params.into_iter().rev() {
                queue.push_front(p);
            }
        }
        if c.pos < ops.len() {
            return Err(Error::Spirv(format!(
                "word {at}: Op{} has {} more operand words than its grammar allows",
                g.opname,
                ops.len() - c.pos
            )));
        }
        if let Some(r) = result {
            match (g.opname, ops) {
                ("TypeInt", [_, w, s]) => {
                    self.num_types.insert(
                        r,
                        NumType::Int {
                            width: *w,
                            signed: *s != 0,
                        },
                    );
                }
                ("TypeFloat", [_, w, ..]) => {
                    self.num_types.insert(r, NumType::Float { width: *w });
                }
                ("ExtInstImport", [_, rest @ ..]) => {
                    self.ext_sets.insert(r, words_to_string(rest));
                }
                _ => {}
            }
            if let Some(t) = result_type {
                self.value_type.insert(r, t);
            }
        }
        Ok((result, text))
    }

    #[allow(clippy::too_many_arguments)]
    fn operand(
        &self,
        kind: OperandKind,
        c: &mut Cursor,
        out: &mut String,
        result_type: Option<u32>,
        first_id: &mut Option<u32>,
        opname: &str,
    ) -> Result<Vec<Operand>> {
        use OperandKind as K;
        let at = c.at;
        let what = format!("{kind:?} operand");
        match kind {
            K::IdResultType | K::IdRef | K::IdScope | K::IdMemorySemantics => {
                let id = c.word(&what)?;
                if kind != K::IdResultType && first_id.is_none() {
                    *first_id = Some(id);
                }
                let _ = write!(out, "%{id}");
            }
            K::LiteralInteger => {
                let _ = write!(out, "{}", c.word(&what)?);
            }
            K::LiteralFloat => out.push_str(&fmt_float(c.word(&what)? as u64, 32)),
            K::LiteralString => {
                let start = c.pos;
                loop {
                    let w = c.word("string's terminating nul")?;
                    if w.to_le_bytes().contains(&0) {
                        break;
                    }
                }
                let s = words_to_string(&c.ops[start..c.pos]);
                out.push('"');
                for ch in s.chars() {
                    if ch == '"' || ch == '\\' {
                        out.push('\\');
                    }
                    out.push(ch);
                }
                out.push('"');
            }
            K::LiteralContextDependentNumber => {
                let ty = result_type.and_then(|t| self.num_types.get(&t).copied()).ok_or_else(|| {
                    Error::Spirv(format!(
                        "word {at}: the result type of Op{opname} is not a known scalar integer or float type"
                    ))
                })?;
                out.push_str(&self.number(c, ty)?);
            }
            K::PairLiteralIntegerIdRef => {
                let ty = first_id
                    .and_then(|sel| self.value_type.get(&sel))
                    .and_then(|t| self.num_types.get(t).copied());
                let Some(ty @ NumType::Int { .. }) = ty else {
                    return Err(Error::Spirv(format!(
                        "word {at}: the OpSwitch selector's type is not a known scalar integer type"
                    )));
                };
                out.push_str(&self.number(c, ty)?);
                return Ok(one(&[K::IdRef]));
            }
            K::PairIdRefLiteralInteger => {
                let _ = write!(out, "%{}", c.word(&what)?);
                return Ok(one(&[K::LiteralInteger]));
            }
            K::PairIdRefIdRef => {
                let _ = write!(out, "%{}", c.word(&what)?);
                return Ok(one(&[K::IdRef]));
            }
            K::LiteralExtInstInteger => {
                let n = c.word(&what)?;
                let table = first_id
                    .and_then(|id| self.ext_sets.get(&id))
                    .and_then(|s| ext_inst_table(s));
                let entry = table.and_then(|t| t.lookup_opcode(n));
                match entry {
                    Some(e) => {
                        out.push_str(e.opname);
                        return Ok(e.operands.iter().map(|o| (o.kind, o.quantifier)).collect());
                    }
                    None => {
                        let _ = write!(out, "{n}");
                    }
                }
            }
            K::LiteralSpecConstantOpInteger => {
                let n = c.word(&what)?;
                let g = opcode_by_number(n)
                    .filter(|g| opcode_by_name(g.opname).is_some())
                    .ok_or_else(|| {
                        Error::Spirv(format!("word {at}: unknown opcode {n} in OpSpecConstantOp"))
                    })?;
                out.push_str(g.opname);
                return Ok(g
                    .operands
                    .iter()
                    .filter(|o| !matches!(o.kind, K::IdResult | K::IdResultType))
                    .map(|o| (o.kind, o.quantifier))
                    .collect());
            }
            k if is_value_enum(k) => {
                let v = c.word(&what)?;
                match value_enum_name(k, v).flatten() {
                    Some(name) => out.push_str(&name),
                    None => {
                        let _ = write!(out, "{v}");
                    }
                }
                return Ok(one(enum_params(k, v)));
            }
            k if is_mask(k) => {
                let v = c.word(&what)?;
                let bits: Vec<u32> = (0..32).map(|i| 1u32 << i).filter(|b| v & b != 0).collect();
                let names: Option<Vec<String>> = bits
                    .iter()
                    .map(|&b| mask_bit_name(k, b).flatten())
                    .collect();
                match names {
                    _ if v == 0 => out.push_str("None"),
                    Some(n) => out.push_str(&n.join("|")),
                    None => {
                        let _ = write!(out, "{v:#x}");
                    }
                }
                return Ok(bits.iter().flat_map(|&b| one(enum_params(k, b))).collect());
            }
            // Extension-specific operand kinds: the assembler reads these back as numbers.
            _ => {
                let _ = write!(out, "{}", c.word(&what)? as i32);
            }
        }
        Ok(Vec::new())
    }

    fn number(&self, c: &mut Cursor, ty: NumType) -> Result<String> {
        let lo = c.word("literal number")? as u64;
        let width = match ty {
            NumType::Int { width, .. } | NumType::Float { width } => width,
        };
        let bits = if width > 32 {
            lo | (c.word("literal number's high word")? as u64) << 32
        } else {
            lo
        };
        Ok(match ty {
            NumType::Int { width, signed } => {
                let w = width.clamp(1, 64);
                let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
                let v = bits & mask;
                if signed && v >> (w - 1) & 1 == 1 {
                    format!("{}", (v | !mask) as i64)
                } else {
                    format!("{v}")
                }
            }
            NumType::Float { width } => fmt_float(bits, width),
        })
    }
}

/// Text for the float with the given bits: shortest exact decimal for normal f32/f64 values,
/// hex float (`0x1.8p-4`) for halves, subnormals, infinities and NaNs.
fn fmt_float(bits: u64, width: u32) -> String {
    let decimal = match width {
        32 => {
            let f = f32::from_bits(bits as u32);
            (f.is_normal() || f == 0.0).then(|| dec(f as f64, f.abs() >= 1e-4 && f.abs() < 1e7, &f))
        }
        64 => {
            let f = f64::from_bits(bits);
            (f.is_normal() || f == 0.0).then(|| dec(f, f.abs() >= 1e-4 && f.abs() < 1e7, &f))
        }
        _ => None,
    };
    decimal.unwrap_or_else(|| hex_float(bits, width))
}

fn dec<T: std::fmt::Display + std::fmt::LowerExp>(f: f64, plain: bool, v: &T) -> String {
    if f == 0.0 || plain {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

fn hex_float(bits: u64, width: u32) -> String {
    let (eb, fb) = match width {
        16 => (5u32, 10u32),
        32 => (8, 23),
        _ => (11, 52),
    };
    let sign = if bits >> (eb + fb) & 1 == 1 { "-" } else { "" };
    let exp = (bits >> fb) & ((1 << eb) - 1);
    let frac = bits & ((1u64 << fb) - 1);
    let bias = (1i64 << (eb - 1)) - 1;
    let (e, m) = if exp == (1 << eb) - 1 {
        (bias + 1, frac)
    } else if exp == 0 {
        if frac == 0 {
            return format!("{sign}0x0p+0");
        }
        let p = 63 - frac.leading_zeros() as i64;
        (
            1 - bias - fb as i64 + p,
            (frac & ((1u64 << p) - 1)) << (fb as i64 - p),
        )
    } else {
        (exp as i64 - bias, frac)
    };
    let digits = fb.div_ceil(4) as usize;
    let hex = format!("{:0digits$x}", m << (4 * digits as u32 - fb));
    let hex = hex.trim_end_matches('0');
    if hex.is_empty() {
        format!("{sign}0x1p{e:+}")
    } else {
        format!("{sign}0x1.{hex}p{e:+}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_like_spirv_dis() {
        // Hex forms as spirv-dis 2023.1 prints them.
        assert_eq!(fmt_float(0x7fc0_0000, 32), "0x1.8p+128");
        assert_eq!(fmt_float(0xff80_0000, 32), "-0x1p+128");
        assert_eq!(fmt_float(0x8000_0001, 32), "-0x1p-149");
        assert_eq!(fmt_float(0x2e66, 16), "0x1.998p-4");
        assert_eq!(fmt_float(0x7bff, 16), "0x1.ffcp+15");
        assert_eq!(fmt_float(0x3c00, 16), "0x1p+0");
        assert_eq!(fmt_float(0x0001, 16), "0x1p-24");
        assert_eq!(fmt_float(0x3f80_0000, 32), "1");
        assert_eq!(fmt_float(0x3dcc_cccd, 32), "0.1");
        assert_eq!(fmt_float(0x8000_0000, 32), "-0");
        assert_eq!(fmt_float(0x3fb9_9999_9999_999a, 64), "0.1");
        assert_eq!(fmt_float(1e30f32.to_bits() as u64, 32), "1e30");
    }
}
