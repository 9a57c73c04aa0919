//! The decoded module as text in `llvm-dis` (LLVM 14) syntax, so a decoded module can be read
//! and compared with `llvm-dis-14`'s output of the same bitcode. Function bodies follow LLVM's
//! printer rule for rule (slot numbering, operand forms, constant folding of all-zero and
//! all-undef aggregates, float formatting); the module header, declarations, attribute groups
//! and metadata are printed in the same syntax, but metadata is numbered by its id in the
//! module's arena rather than by LLVM's slot order.

use std::fmt::Write;

use super::module::constant::sign_extend;
use super::module::inst::{fast_math, wrap_flags};
use super::module::*;

/// The whole module.
pub fn print_module(m: &Module) -> String {
    let mut p = Printer {
        m,
        out: String::new(),
    };
    p.module();
    p.out
}

/// One function (`define ... { ... }` or `declare ...`).
pub fn print_function(m: &Module, f: FuncId) -> String {
    let mut p = Printer {
        m,
        out: String::new(),
    };
    p.function(f);
    p.out
}

/// Each instruction of function `f` by its index (`InstId`), as `print_function` writes it
/// (what the lowered IR's `Source` markers name; the shader debugger shows them).
pub(crate) fn print_instructions(m: &Module, f: FuncId) -> Vec<(u32, String)> {
    let Some(func) = m.functions.get(f.index()) else {
        return Vec::new();
    };
    let slots = Slots::new(m, func);
    let mut p = Printer {
        m,
        out: String::new(),
    };
    let mut out = Vec::new();
    for block in &func.blocks {
        for id in block.inst_ids() {
            p.out.clear();
            p.instruction(func, id, &slots);
            out.push((id.0, p.out.clone()));
        }
    }
    out
}

fn write_type(m: &Module, t: TypeId, out: &mut String) {
    match m.ty(t) {
        Type::Void => out.push_str("void"),
        Type::Half => out.push_str("half"),
        Type::Float => out.push_str("float"),
        Type::Double => out.push_str("double"),
        Type::Label => out.push_str("label"),
        Type::Metadata => out.push_str("metadata"),
        Type::Int(w) => {
            let _ = write!(out, "i{w}");
        }
        Type::Pointer { pointee, addrspace } => {
            write_type(m, *pointee, out);
            if *addrspace != 0 {
                let _ = write!(out, " addrspace({addrspace})");
            }
            out.push('*');
        }
        Type::Function {
            ret,
            params,
            vararg,
        } => {
            write_type(m, *ret, out);
            out.push_str(" (");
            for (i, p) in params.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_type(m, *p, out);
            }
            if *vararg {
                out.push_str(if params.is_empty() { "..." } else { ", ..." });
            }
            out.push(')');
        }
        Type::Struct {
            name: Some(name), ..
        } => {
            out.push('%');
            write_name(name, out);
        }
        Type::Struct {
            name: None,
            opaque: true,
            ..
        } => out.push_str("opaque"),
        body @ Type::Struct { name: None, .. } => write_struct_body(m, body, out),
        Type::Array { len, elem } => {
            let _ = write!(out, "[{len} x ");
            write_type(m, *elem, out);
            out.push(']');
        }
        Type::Vector { len, elem } => {
            let _ = write!(out, "<{len} x ");
            write_type(m, *elem, out);
            out.push('>');
        }
    }
}

/// A name after its sigil: bare if it is `[-a-zA-Z$._][-a-zA-Z$._0-9]*`, else quoted with
/// `\XX` escapes.
fn write_name(name: &str, out: &mut String) {
    let bare = |c: u8| c.is_ascii_alphanumeric() || b"-$._".contains(&c);
    let b = name.as_bytes();
    if !b.is_empty() && b.iter().all(|&c| bare(c)) && !b[0].is_ascii_digit() {
        out.push_str(name);
    } else {
        out.push('"');
        write_escaped(b, out);
        out.push('"');
    }
}

fn write_escaped(b: &[u8], out: &mut String) {
    for &c in b {
        if (0x20..0x7F).contains(&c) && c != b'"' && c != b'\\' {
            out.push(c as char);
        } else {
            let _ = write!(out, "\\{c:02X}");
        }
    }
}

/// A float constant as LLVM writes it: the shortest form `d.ddddd0e±XX` (six significant
/// digits) when it reads back as the same double, else the double's bits in hex; halves
/// always as `0xH` hex.
pub(crate) fn float_text(m: &Module, ty: TypeId, bits: u64) -> String {
    let value = match m.ty(ty) {
        Type::Half => return format!("0xH{:04X}", bits & 0xFFFF),
        Type::Float => f64::from(f32::from_bits(bits as u32)),
        _ => f64::from_bits(bits),
    };
    if value.is_finite() {
        let s = format!("{value:.5e}");
        if s.parse::<f64>() == Ok(value) {
            let (mantissa, exp) = s.split_once('e').expect("{:e} has an exponent");
            let exp: i32 = exp.parse().expect("{:e} exponent is an integer");
            let sign = if exp < 0 { '-' } else { '+' };
            return format!("{mantissa}0e{sign}{:02}", exp.abs());
        }
    }
    format!("0x{:X}", value.to_bits())
}

/// Local slot numbers of one function: unnamed arguments, blocks and results, in order.
struct Slots {
    args: Vec<String>,
    blocks: Vec<String>,
    insts: Vec<Option<String>>,
}

impl Slots {
    fn new(m: &Module, f: &Function) -> Slots {
        let mut next = 0u32;
        let mut name = |n: &Option<String>| match n {
            Some(n) => {
                let mut s = String::new();
                write_name(n, &mut s);
                s
            }
            None => {
                next += 1;
                (next - 1).to_string()
            }
        };
        let args = f.args.iter().map(|a| name(&a.name)).collect();
        let mut blocks = Vec::with_capacity(f.blocks.len());
        let mut insts = vec![None; f.insts.len()];
        for b in &f.blocks {
            blocks.push(name(&b.name));
            for i in b.inst_ids() {
                if m.defines_value(&f.insts[i.index()]) {
                    insts[i.index()] = Some(name(&f.inst_names[i.index()]));
                }
            }
        }
        Slots {
            args,
            blocks,
            insts,
        }
    }
}

/// The name each instruction's result prints as (`14` for `%14`, or its own name), `None`
/// for instructions without a result.
pub(crate) fn inst_slot_names(m: &Module, f: &Function) -> Vec<Option<String>> {
    Slots::new(m, f).insts
}

struct Printer<'m> {
    m: &'m Module,
    out: String,
}

impl Printer<'_> {
    fn ty(&mut self, t: TypeId) {
        write_type(self.m, t, &mut self.out);
    }

    fn global_name(&mut self, v: Value) {
        let m = self.m;
        // Unnamed globals and functions share one numbering, in that order.
        let unnamed_index = |target: Value| {
            m.globals
                .iter()
                .enumerate()
                .map(|(i, g)| (Value::Global(GlobalId(i as u32)), g.name.is_none()))
                .chain(
                    m.functions
                        .iter()
                        .enumerate()
                        .map(|(i, f)| (Value::Function(FuncId(i as u32)), f.name.is_none())),
                )
                .filter(|x| x.1)
                .position(|x| x.0 == target)
                .unwrap_or(0)
        };
        let name = match v {
            Value::Global(g) => &m.globals[g.index()].name,
            Value::Function(f) => &m.functions[f.index()].name,
            _ => return,
        };
        self.out.push('@');
        match name {
            Some(n) => write_name(n, &mut self.out),
            None => {
                let _ = write!(self.out, "{}", unnamed_index(v));
            }
        }
    }

    /// A value without its type.
    fn value(&mut self, v: Value, slots: Option<&Slots>) {
        match v {
            Value::Const(c) => self.constant(c),
            Value::Global(_) | Value::Function(_) => self.global_name(v),
            Value::Arg(a) => {
                self.out.push('%');
                self.out
                    .push_str(slots.map_or("?", |s| &s.args[a as usize]));
            }
            Value::Inst(i) => {
                self.out.push('%');
                let name = slots
                    .and_then(|s| s.insts[i.index()].as_deref())
                    .unwrap_or("?");
                self.out.push_str(name);
            }
        }
    }

    /// `keyword type a, type b, ...`.
    fn keyword_typed(&mut self, f: &Function, slots: &Slots, keyword: &str, operands: &[Value]) {
        self.out.push_str(keyword);
        for (i, v) in operands.iter().enumerate() {
            self.out.push_str(if i == 0 { " " } else { ", " });
            self.typed(f, *v, slots);
        }
    }

    /// `type value`.
    fn typed(&mut self, f: &Function, v: Value, slots: &Slots) {
        self.ty(self.m.value_type(f, v));
        self.out.push(' ');
        self.value(v, Some(slots));
    }

    fn is_null(&self, c: ConstId) -> bool {
        let k = &self.m.constant(c).kind;
        match k {
            ConstKind::Null => true,
            ConstKind::Int(v) => *v == 0,
            ConstKind::Float(bits) => *bits == 0,
            ConstKind::Data(e) => e.iter().all(|&x| x == 0),
            ConstKind::Aggregate(e) => e
                .iter()
                .all(|v| matches!(v, Value::Const(c) if self.is_null(*c))),
            _ => false,
        }
    }

    fn all_undef(&self, elems: &[Value]) -> bool {
        !elems.is_empty() && elems.iter().all(|v| self.m.is_undef(*v))
    }

    fn constant(&mut self, c: ConstId) {
        let m = self.m;
        let k = &m.constant(c).kind;
        let ty = m.constant(c).ty;
        match k {
            ConstKind::Undef => self.out.push_str("undef"),
            ConstKind::Int(bits) => {
                let w = m.ty(ty).int_width().unwrap_or(64);
                if w == 1 {
                    self.out
                        .push_str(if *bits & 1 == 1 { "true" } else { "false" });
                } else {
                    let _ = write!(self.out, "{}", sign_extend(*bits, w));
                }
            }
            ConstKind::Float(bits) => {
                let t = float_text(m, ty, *bits);
                self.out.push_str(&t);
            }
            ConstKind::Null => match m.ty(ty) {
                Type::Int(1) => self.out.push_str("false"),
                Type::Int(_) => self.out.push('0'),
                Type::Half | Type::Float | Type::Double => {
                    let t = float_text(m, ty, 0);
                    self.out.push_str(&t);
                }
                Type::Pointer { .. } => self.out.push_str("null"),
                _ => self.out.push_str("zeroinitializer"),
            },
            _ if self.is_null(c)
                && !matches!(
                    m.ty(ty),
                    Type::Int(_) | Type::Half | Type::Float | Type::Double
                ) =>
            {
                self.out.push_str("zeroinitializer")
            }
            ConstKind::Aggregate(elems) if self.all_undef(elems) => self.out.push_str("undef"),
            ConstKind::Aggregate(elems) => {
                let elems = elems.clone();
                if let Some(s) = self.i8_string(ty, &elems) {
                    self.out.push_str(&s);
                    return;
                }
                let (open, close) = brackets(m, ty);
                self.out.push_str(open);
                for (i, e) in elems.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.ty(self.const_type(*e));
                    self.out.push(' ');
                    self.value(*e, None);
                }
                self.out.push_str(close);
            }
            ConstKind::Data(elems) => {
                let elem = m.ty(ty).element().unwrap_or(ty);
                if m.ty(elem) == &Type::Int(8) && matches!(m.ty(ty), Type::Array { .. }) {
                    self.out.push_str("c\"");
                    let bytes: Vec<u8> = elems.iter().map(|&e| e as u8).collect();
                    write_escaped(&bytes, &mut self.out);
                    self.out.push('"');
                    return;
                }
                let (open, close) = brackets(m, ty);
                self.out.push_str(open);
                for (i, &e) in elems.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.ty(elem);
                    self.out.push(' ');
                    match m.ty(elem) {
                        Type::Int(w) => {
                            let _ = write!(self.out, "{}", sign_extend(e, *w));
                        }
                        _ => {
                            let t = float_text(m, elem, e);
                            self.out.push_str(&t);
                        }
                    }
                }
                self.out.push_str(close);
            }
            ConstKind::Cast { op, value } => {
                let _ = write!(self.out, "{} (", cast_name(*op));
                self.const_typed(*value);
                self.out.push_str(" to ");
                self.ty(ty);
                self.out.push(')');
            }
            ConstKind::Gep {
                inbounds,
                source_type,
                operands,
            } => {
                self.out.push_str(if *inbounds {
                    "getelementptr inbounds ("
                } else {
                    "getelementptr ("
                });
                self.ty(*source_type);
                for o in operands {
                    self.out.push_str(", ");
                    self.const_typed(*o);
                }
                self.out.push(')');
            }
            ConstKind::Binary {
                op,
                lhs,
                rhs,
                flags,
            } => {
                let _ = write!(self.out, "{}", binop_name(*op));
                self.binop_flags(*op, *flags);
                self.out.push_str(" (");
                self.const_typed(*lhs);
                self.out.push_str(", ");
                self.const_typed(*rhs);
                self.out.push(')');
            }
            ConstKind::Cmp { pred, lhs, rhs } => {
                let (kw, p) = predicate_name(*pred);
                let _ = write!(self.out, "{kw} {p} (");
                self.const_typed(*lhs);
                self.out.push_str(", ");
                self.const_typed(*rhs);
                self.out.push(')');
            }
            ConstKind::Select {
                cond,
                if_true,
                if_false,
            } => {
                self.out.push_str("select (");
                self.const_typed(*cond);
                self.out.push_str(", ");
                self.const_typed(*if_true);
                self.out.push_str(", ");
                self.const_typed(*if_false);
                self.out.push(')');
            }
            ConstKind::ExtractElement { vector, index } => {
                self.out.push_str("extractelement (");
                self.const_typed(*vector);
                self.out.push_str(", ");
                self.const_typed(*index);
                self.out.push(')');
            }
        }
    }

    /// An i8 array aggregate of integer constants prints as a string, as LLVM folds it into
    /// a data array.
    fn i8_string(&self, ty: TypeId, elems: &[Value]) -> Option<String> {
        let m = self.m;
        let Type::Array { elem, .. } = m.ty(ty) else {
            return None;
        };
        if m.ty(*elem) != &Type::Int(8) {
            return None;
        }
        let mut bytes = Vec::with_capacity(elems.len());
        for e in elems {
            let c = m.as_constant(*e)?;
            bytes.push(match c.kind {
                ConstKind::Int(v) => v as u8,
                ConstKind::Null => 0,
                _ => return None,
            });
        }
        let mut s = String::from("c\"");
        write_escaped(&bytes, &mut s);
        s.push('"');
        Some(s)
    }

    fn const_type(&self, v: Value) -> TypeId {
        match v {
            Value::Const(c) => self.m.constant(c).ty,
            Value::Global(g) => self.m.globals[g.index()].ptr_type,
            Value::Function(f) => self.m.functions[f.index()].ptr_type,
            _ => TypeId(0),
        }
    }

    fn const_typed(&mut self, v: Value) {
        self.ty(self.const_type(v));
        self.out.push(' ');
        self.value(v, None);
    }

    fn binop_flags(&mut self, op: BinOp, flags: u8) {
        use BinOp::*;
        match op {
            Add | Sub | Mul | Shl => {
                if flags & wrap_flags::NUW != 0 {
                    self.out.push_str(" nuw");
                }
                if flags & wrap_flags::NSW != 0 {
                    self.out.push_str(" nsw");
                }
            }
            UDiv | SDiv | LShr | AShr => {
                if flags & wrap_flags::EXACT != 0 {
                    self.out.push_str(" exact");
                }
            }
            _ => self.fmf(flags),
        }
    }

    /// Fast-math flags as LLVM 14 reads 3.7's bits: "unsafe algebra" is `fast`.
    fn fmf(&mut self, flags: u8) {
        if flags & fast_math::UNSAFE != 0 {
            self.out.push_str(" fast");
            return;
        }
        for (bit, name) in [
            (fast_math::NNAN, " nnan"),
            (fast_math::NINF, " ninf"),
            (fast_math::NSZ, " nsz"),
            (fast_math::ARCP, " arcp"),
        ] {
            if flags & bit != 0 {
                self.out.push_str(name);
            }
        }
    }

    fn module(&mut self) {
        let m = self.m;
        if !m.datalayout.is_empty() {
            let _ = writeln!(self.out, "target datalayout = \"{}\"", m.datalayout);
        }
        if !m.triple.is_empty() {
            let _ = writeln!(self.out, "target triple = \"{}\"", m.triple);
        }
        let mut named = false;
        for t in &m.types {
            if let Type::Struct {
                name: Some(name),
                opaque,
                ..
            } = t
            {
                if !named {
                    self.out.push('\n');
                    named = true;
                }
                self.out.push('%');
                write_name(name, &mut self.out);
                self.out.push_str(" = type ");
                if *opaque {
                    self.out.push_str("opaque\n");
                    continue;
                }
                write_struct_body(m, t, &mut self.out);
                self.out.push('\n');
            }
        }
        if !m.globals.is_empty() {
            self.out.push('\n');
        }
        for g in 0..m.globals.len() {
            self.global(GlobalId(g as u32));
        }
        for f in 0..m.functions.len() {
            self.out.push('\n');
            self.function(FuncId(f as u32));
        }
        if !m.attribute_groups.is_empty() {
            self.out.push('\n');
        }
        for g in &m.attribute_groups {
            let _ = write!(self.out, "attributes #{} = {{ ", g.id);
            let attrs: Vec<String> = g.attrs.iter().map(attribute_text).collect();
            self.out.push_str(&attrs.join(" "));
            self.out.push_str(" }\n");
        }
        if !m.named_metadata.is_empty() {
            self.out.push('\n');
        }
        for n in &m.named_metadata {
            self.out.push('!');
            write_name(&n.name, &mut self.out);
            self.out.push_str(" = !{");
            let ops: Vec<String> = n.operands.iter().map(|o| format!("!{}", o.0)).collect();
            self.out.push_str(&ops.join(", "));
            self.out.push_str("}\n");
        }
        if !m.metadata.is_empty() {
            self.out.push('\n');
        }
        for i in 0..m.metadata.len() {
            let _ = write!(self.out, "!{i} = ");
            self.metadata(MdId(i as u32));
            self.out.push('\n');
        }
    }

    fn metadata(&mut self, id: MdId) {
        match &self.m.metadata[id.index()] {
            Metadata::String(s) => {
                self.out.push_str("!\"");
                write_escaped(s, &mut self.out);
                self.out.push('"');
            }
            Metadata::Value { ty, value } => {
                self.ty(*ty);
                self.out.push(' ');
                self.value(*value, None);
            }
            Metadata::Node { distinct, operands } => {
                if *distinct {
                    self.out.push_str("distinct ");
                }
                self.out.push_str("!{");
                for (i, o) in operands.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    match o {
                        None => self.out.push_str("null"),
                        Some(o) => match &self.m.metadata[o.index()] {
                            Metadata::Value { .. } => self.metadata(*o),
                            _ => {
                                let _ = write!(self.out, "!{}", o.0);
                            }
                        },
                    }
                }
                self.out.push('}');
            }
            Metadata::Debug(code) => {
                let _ = write!(self.out, "!{{}} ; debug record {code}");
            }
        }
    }

    fn global(&mut self, g: GlobalId) {
        let m = self.m;
        let gv = &m.globals[g.index()];
        self.global_name(Value::Global(g));
        self.out.push_str(" = ");
        let l = linkage_text(gv.linkage);
        if !(l.is_empty() && gv.init.is_none()) {
            self.out.push_str(l);
        } else {
            self.out.push_str("external ");
        }
        if gv.unnamed_addr {
            self.out.push_str("unnamed_addr ");
        }
        if gv.addrspace != 0 {
            let _ = write!(self.out, "addrspace({}) ", gv.addrspace);
        }
        self.out
            .push_str(if gv.is_const { "constant " } else { "global " });
        self.ty(gv.value_type);
        if let Some(init) = gv.init {
            self.out.push(' ');
            self.constant(init);
        }
        if let Some(s) = &gv.section {
            let _ = write!(self.out, ", section \"{s}\"");
        }
        if gv.align != 0 {
            let _ = write!(self.out, ", align {}", gv.align);
        }
        self.out.push('\n');
    }

    fn function(&mut self, fid: FuncId) {
        let m = self.m;
        let f = &m.functions[fid.index()];
        let slots = Slots::new(m, f);
        let Type::Function { ret, vararg, .. } = m.ty(f.fn_type).clone() else {
            return;
        };
        self.out.push_str(if f.is_declaration {
            "declare "
        } else {
            "define "
        });
        self.out.push_str(linkage_text(f.linkage));
        self.ty(ret);
        self.out.push(' ');
        self.global_name(Value::Function(fid));
        self.out.push('(');
        for (i, a) in f.args.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.ty(a.ty);
            let attrs = position_attrs(m, f.attributes, i as u32 + 1, true);
            self.out.push_str(attrs.trim_end());
            if !f.is_declaration {
                let _ = write!(self.out, " %{}", slots.args[i]);
            }
        }
        if vararg {
            self.out
                .push_str(if f.args.is_empty() { "..." } else { ", ..." });
        }
        self.out.push(')');
        if f.is_declaration {
            self.out.push('\n');
            return;
        }
        self.out.push_str(" {\n");
        let preds = predecessors(f);
        for (b, block) in f.blocks.iter().enumerate() {
            if b > 0 {
                self.out.push('\n');
                let label = format!("{}:", slots.blocks[b]);
                self.out.push_str(&label);
                if !preds[b].is_empty() {
                    let pad = 50usize.saturating_sub(label.len()).max(1);
                    self.out.push_str(&" ".repeat(pad));
                    self.out.push_str("; preds = ");
                    let names: Vec<String> = preds[b]
                        .iter()
                        .map(|p| format!("%{}", slots.blocks[p.index()]))
                        .collect();
                    self.out.push_str(&names.join(", "));
                }
                self.out.push('\n');
            }
            for i in block.inst_ids() {
                self.out.push_str("  ");
                self.instruction(f, i, &slots);
                for &(inst, kind, md) in &f.inst_metadata {
                    if inst == i {
                        self.out.push_str(", !");
                        match m.md_kind_name(kind) {
                            Some(k) => write_name(k, &mut self.out),
                            None => {
                                let _ = write!(self.out, "{kind}");
                            }
                        }
                        let _ = write!(self.out, " !{}", md.0);
                    }
                }
                self.out.push('\n');
            }
        }
        self.out.push_str("}\n");
    }

    fn instruction(&mut self, f: &Function, id: InstId, s: &Slots) {
        let m = self.m;
        let inst = &f.insts[id.index()];
        if let Some(name) = &s.insts[id.index()] {
            let _ = write!(self.out, "%{name} = ");
        }
        use Instruction::*;
        match inst {
            Binary {
                op,
                lhs,
                rhs,
                flags,
                ..
            } => {
                self.out.push_str(binop_name(*op));
                self.binop_flags(*op, *flags);
                self.out.push(' ');
                self.typed(f, *lhs, s);
                self.out.push_str(", ");
                self.value(*rhs, Some(s));
            }
            Cast { op, value, ty } => {
                let _ = write!(self.out, "{} ", cast_name(*op));
                self.typed(f, *value, s);
                self.out.push_str(" to ");
                self.ty(*ty);
            }
            Cmp {
                pred,
                lhs,
                rhs,
                flags,
                ..
            } => {
                let (kw, p) = predicate_name(*pred);
                self.out.push_str(kw);
                if pred.is_float() {
                    self.fmf(*flags);
                }
                let _ = write!(self.out, " {p} ");
                self.typed(f, *lhs, s);
                self.out.push_str(", ");
                self.value(*rhs, Some(s));
            }
            Select {
                cond,
                if_true,
                if_false,
                ..
            } => self.keyword_typed(f, s, "select", &[*cond, *if_true, *if_false]),
            ExtractValue {
                aggregate, indices, ..
            } => {
                self.keyword_typed(f, s, "extractvalue", &[*aggregate]);
                for i in indices {
                    let _ = write!(self.out, ", {i}");
                }
            }
            InsertValue {
                aggregate,
                value,
                indices,
                ..
            } => {
                self.keyword_typed(f, s, "insertvalue", &[*aggregate, *value]);
                for i in indices {
                    let _ = write!(self.out, ", {i}");
                }
            }
            ExtractElement { vector, index, .. } => {
                self.keyword_typed(f, s, "extractelement", &[*vector, *index])
            }
            InsertElement {
                vector,
                value,
                index,
                ..
            } => self.keyword_typed(f, s, "insertelement", &[*vector, *value, *index]),
            ShuffleVector { a, b, mask, .. } => {
                self.keyword_typed(f, s, "shufflevector", &[*a, *b, *mask])
            }
            Gep {
                inbounds,
                source_type,
                ptr,
                indices,
                ..
            } => {
                self.out.push_str(if *inbounds {
                    "getelementptr inbounds "
                } else {
                    "getelementptr "
                });
                self.ty(*source_type);
                self.out.push_str(", ");
                self.typed(f, *ptr, s);
                for i in indices {
                    self.out.push_str(", ");
                    self.typed(f, *i, s);
                }
            }
            Load {
                ptr,
                ty,
                align,
                volatile,
                ordering,
                scope,
            } => {
                self.out.push_str("load ");
                let atomic = *ordering != AtomicOrdering::NotAtomic;
                if atomic {
                    self.out.push_str("atomic ");
                }
                if *volatile {
                    self.out.push_str("volatile ");
                }
                self.ty(*ty);
                self.out.push_str(", ");
                self.typed(f, *ptr, s);
                if atomic {
                    self.scope_and_ordering(*scope, *ordering);
                }
                let align = if *align != 0 {
                    *align
                } else {
                    abi_align(m, *ty)
                };
                let _ = write!(self.out, ", align {align}");
            }
            Store {
                ptr,
                value,
                align,
                volatile,
                ordering,
                scope,
            } => {
                self.out.push_str("store ");
                let atomic = *ordering != AtomicOrdering::NotAtomic;
                if atomic {
                    self.out.push_str("atomic ");
                }
                if *volatile {
                    self.out.push_str("volatile ");
                }
                self.typed(f, *value, s);
                self.out.push_str(", ");
                self.typed(f, *ptr, s);
                if atomic {
                    self.scope_and_ordering(*scope, *ordering);
                }
                let align = if *align != 0 {
                    *align
                } else {
                    abi_align(m, m.value_type(f, *value))
                };
                let _ = write!(self.out, ", align {align}");
            }
            Alloca {
                allocated_type,
                size,
                align,
                ..
            } => {
                self.out.push_str("alloca ");
                self.ty(*allocated_type);
                let one = m.const_int(*size) == Some(1);
                if !one {
                    self.out.push_str(", ");
                    self.typed(f, *size, s);
                }
                if *align != 0 {
                    let _ = write!(self.out, ", align {align}");
                }
            }
            Call {
                callee,
                args,
                fn_type,
                attrs,
                ty,
            } => {
                if attrs.musttail {
                    self.out.push_str("musttail ");
                } else if attrs.tail {
                    self.out.push_str("tail ");
                }
                self.out.push_str("call ");
                if attrs.calling_conv != 0 {
                    let _ = write!(self.out, "cc{} ", attrs.calling_conv);
                }
                self.out
                    .push_str(&position_attrs(m, attrs.attributes, 0, false));
                let vararg = matches!(m.ty(*fn_type), Type::Function { vararg: true, .. });
                self.ty(if vararg { *fn_type } else { *ty });
                self.out.push(' ');
                self.value(*callee, Some(s));
                self.out.push('(');
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.ty(m.value_type(f, *a));
                    self.out.push(' ');
                    self.out
                        .push_str(&position_attrs(m, attrs.attributes, i as u32 + 1, false));
                    self.value(*a, Some(s));
                }
                self.out.push(')');
                if attrs.attributes != 0 {
                    let _ = write!(self.out, " #{}", attrs.attributes - 1);
                }
            }
            Phi { incoming, ty } => {
                self.out.push_str("phi ");
                self.ty(*ty);
                for (i, (v, b)) in incoming.iter().enumerate() {
                    self.out.push_str(if i == 0 { " [ " } else { ", [ " });
                    self.value(*v, Some(s));
                    let _ = write!(self.out, ", %{} ]", s.blocks[b.index()]);
                }
            }
            AtomicRmw {
                op,
                ptr,
                value,
                volatile,
                ordering,
                scope,
                ty,
            } => {
                self.out.push_str("atomicrmw ");
                if *volatile {
                    self.out.push_str("volatile ");
                }
                let _ = write!(self.out, "{} ", rmw_name(*op));
                self.typed(f, *ptr, s);
                self.out.push_str(", ");
                self.typed(f, *value, s);
                self.scope_and_ordering(*scope, *ordering);
                let _ = write!(self.out, ", align {}", store_size(m, *ty));
            }
            CmpXchg {
                ptr,
                cmp,
                new,
                volatile,
                weak,
                success,
                failure,
                scope,
                ..
            } => {
                self.out.push_str("cmpxchg ");
                if *weak {
                    self.out.push_str("weak ");
                }
                if *volatile {
                    self.out.push_str("volatile ");
                }
                self.typed(f, *ptr, s);
                self.out.push_str(", ");
                self.typed(f, *cmp, s);
                self.out.push_str(", ");
                self.typed(f, *new, s);
                self.scope_and_ordering(*scope, *success);
                let _ = write!(self.out, " {}", ordering_name(*failure));
                let t = m.value_type(f, *cmp);
                let _ = write!(self.out, ", align {}", store_size(m, t));
            }
            Fence { ordering, scope } => {
                self.out.push_str("fence");
                self.scope_and_ordering(*scope, *ordering);
            }
            Br { target } => {
                let _ = write!(self.out, "br label %{}", s.blocks[target.index()]);
            }
            CondBr {
                cond,
                if_true,
                if_false,
            } => {
                self.out.push_str("br ");
                self.typed(f, *cond, s);
                let _ = write!(
                    self.out,
                    ", label %{}, label %{}",
                    s.blocks[if_true.index()],
                    s.blocks[if_false.index()]
                );
            }
            Switch {
                cond,
                default,
                cases,
            } => {
                self.out.push_str("switch ");
                self.typed(f, *cond, s);
                let _ = write!(self.out, ", label %{} [", s.blocks[default.index()]);
                for (v, b) in cases {
                    self.out.push_str("\n    ");
                    self.typed(f, *v, s);
                    let _ = write!(self.out, ", label %{}", s.blocks[b.index()]);
                }
                self.out.push_str("\n  ]");
            }
            Ret { value: None } => self.out.push_str("ret void"),
            Ret { value: Some(v) } => {
                self.out.push_str("ret ");
                self.typed(f, *v, s);
            }
            Unreachable => self.out.push_str("unreachable"),
        }
    }

    fn scope_and_ordering(&mut self, scope: SyncScope, ordering: AtomicOrdering) {
        if scope == SyncScope::SingleThread {
            self.out.push_str(" syncscope(\"singlethread\")");
        }
        let _ = write!(self.out, " {}", ordering_name(ordering));
    }
}

fn write_struct_body(m: &Module, t: &Type, out: &mut String) {
    if let Type::Struct { fields, packed, .. } = t {
        if *packed {
            out.push('<');
        }
        if fields.is_empty() {
            out.push_str("{}");
        } else {
            out.push_str("{ ");
            for (i, f) in fields.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_type(m, *f, out);
            }
            out.push_str(" }");
        }
        if *packed {
            out.push('>');
        }
    }
}

/// Each block's predecessors as LLVM lists them: one per branch use, most recent use first.
fn predecessors(f: &Function) -> Vec<Vec<BlockId>> {
    let mut preds = vec![Vec::new(); f.blocks.len()];
    for (b, block) in f.blocks.iter().enumerate() {
        if block.end.0 == 0 {
            continue;
        }
        let term = &f.insts[block.end.index() - 1];
        for succ in term.successors() {
            preds[succ.index()].push(BlockId(b as u32));
        }
    }
    for p in &mut preds {
        p.reverse();
    }
    preds
}

/// The attributes of one position (`index`: 0 the return value, n the n-th parameter) of
/// attribute list `list` (1-based), each followed by a space; with `leading`, preceded by
/// one instead.
fn position_attrs(m: &Module, list: u32, index: u32, leading: bool) -> String {
    let Some(groups) = list
        .checked_sub(1)
        .and_then(|l| m.attribute_lists.get(l as usize))
    else {
        return String::new();
    };
    let mut out = String::new();
    for g in groups {
        for group in m
            .attribute_groups
            .iter()
            .filter(|a| a.id == *g && a.index == index)
        {
            for a in &group.attrs {
                if leading {
                    out.push(' ');
                }
                out.push_str(&attribute_text(a));
                if !leading {
                    out.push(' ');
                }
            }
        }
    }
    out
}

/// The ABI alignment of `t` under the module's data layout (what LLVM gives a load or store
/// written without one): `iN`, `fN` and `p` entries of the layout, LLVM's defaults otherwise;
/// vectors by their size, arrays by their element, structs by their largest field.
fn abi_align(m: &Module, t: TypeId) -> u64 {
    let entry = |prefix: char, bits: u32| -> Option<u64> {
        m.datalayout.split('-').find_map(|spec| {
            let mut parts = spec.split(':');
            let head = parts.next()?;
            let rest = head.strip_prefix(prefix)?;
            let matches = if prefix == 'p' {
                rest.is_empty() || rest == "0"
            } else {
                rest.parse::<u32>().ok()? == bits
            };
            if !matches {
                return None;
            }
            if prefix == 'p' {
                parts.next()?;
            }
            parts.next()?.parse::<u64>().ok().map(|a| a / 8)
        })
    };
    match m.ty(t) {
        Type::Int(w) => {
            entry('i', *w).unwrap_or_else(|| u64::from(w.div_ceil(8)).next_power_of_two().min(8))
        }
        Type::Half => entry('f', 16).unwrap_or(2),
        Type::Float => entry('f', 32).unwrap_or(4),
        Type::Double => entry('f', 64).unwrap_or(8),
        Type::Pointer { .. } => entry('p', 0).unwrap_or(8),
        Type::Vector { len, elem } => (u64::from(*len) * store_size(m, *elem)).next_power_of_two(),
        Type::Array { elem, .. } => abi_align(m, *elem),
        Type::Struct { packed: true, .. } => 1,
        Type::Struct { fields, .. } => fields.iter().map(|&f| abi_align(m, f)).max().unwrap_or(1),
        _ => 1,
    }
}

/// Bytes a value of `t` stores (LLVM's default alignment of atomics without one).
fn store_size(m: &Module, t: TypeId) -> u64 {
    match m.ty(t) {
        Type::Int(w) => u64::from(w.div_ceil(8)),
        Type::Half => 2,
        Type::Float => 4,
        Type::Double => 8,
        Type::Pointer { .. } => 4,
        _ => 4,
    }
}

fn brackets(m: &Module, t: TypeId) -> (&'static str, &'static str) {
    match m.ty(t) {
        Type::Struct { packed: true, .. } => ("<{ ", " }>"),
        Type::Struct { .. } => ("{ ", " }"),
        Type::Vector { .. } => ("<", ">"),
        _ => ("[", "]"),
    }
}

fn linkage_text(l: Linkage) -> &'static str {
    match l {
        Linkage::External => "",
        Linkage::WeakAny => "weak ",
        Linkage::Appending => "appending ",
        Linkage::Internal => "internal ",
        Linkage::LinkOnceAny => "linkonce ",
        Linkage::ExternalWeak => "extern_weak ",
        Linkage::Common => "common ",
        Linkage::Private => "private ",
        Linkage::WeakOdr => "weak_odr ",
        Linkage::LinkOnceOdr => "linkonce_odr ",
        Linkage::AvailableExternally => "available_externally ",
    }
}

/// LLVM's spelling of a binary operator.
pub(crate) fn binop_name(op: BinOp) -> &'static str {
    use BinOp::*;
    match op {
        Add => "add",
        FAdd => "fadd",
        Sub => "sub",
        FSub => "fsub",
        Mul => "mul",
        FMul => "fmul",
        UDiv => "udiv",
        SDiv => "sdiv",
        FDiv => "fdiv",
        URem => "urem",
        SRem => "srem",
        FRem => "frem",
        Shl => "shl",
        LShr => "lshr",
        AShr => "ashr",
        And => "and",
        Or => "or",
        Xor => "xor",
    }
}

/// LLVM's spelling of a cast.
pub(crate) fn cast_name(op: CastOp) -> &'static str {
    use CastOp::*;
    match op {
        Trunc => "trunc",
        ZExt => "zext",
        SExt => "sext",
        FpToUi => "fptoui",
        FpToSi => "fptosi",
        UiToFp => "uitofp",
        SiToFp => "sitofp",
        FpTrunc => "fptrunc",
        FpExt => "fpext",
        PtrToInt => "ptrtoint",
        IntToPtr => "inttoptr",
        BitCast => "bitcast",
        AddrSpaceCast => "addrspacecast",
    }
}

/// `("icmp" | "fcmp", predicate)`.
pub(crate) fn predicate_name(p: CmpPredicate) -> (&'static str, &'static str) {
    use CmpPredicate::*;
    let name = match p {
        FFalse => "false",
        FOeq => "oeq",
        FOgt => "ogt",
        FOge => "oge",
        FOlt => "olt",
        FOle => "ole",
        FOne => "one",
        FOrd => "ord",
        FUno => "uno",
        FUeq => "ueq",
        FUgt => "ugt",
        FUge => "uge",
        FUlt => "ult",
        FUle => "ule",
        FUne => "une",
        FTrue => "true",
        IEq => "eq",
        INe => "ne",
        IUgt => "ugt",
        IUge => "uge",
        IUlt => "ult",
        IUle => "ule",
        ISgt => "sgt",
        ISge => "sge",
        ISlt => "slt",
        ISle => "sle",
    };
    (if p.is_float() { "fcmp" } else { "icmp" }, name)
}

fn rmw_name(op: AtomicRmwOp) -> &'static str {
    use AtomicRmwOp::*;
    match op {
        Xchg => "xchg",
        Add => "add",
        Sub => "sub",
        And => "and",
        Nand => "nand",
        Or => "or",
        Xor => "xor",
        Max => "max",
        Min => "min",
        UMax => "umax",
        UMin => "umin",
    }
}

fn ordering_name(o: AtomicOrdering) -> &'static str {
    use AtomicOrdering::*;
    match o {
        NotAtomic => "",
        Unordered => "unordered",
        Monotonic => "monotonic",
        Acquire => "acquire",
        Release => "release",
        AcqRel => "acq_rel",
        SeqCst => "seq_cst",
    }
}

/// LLVM 3.7's attribute kind numbers (`ATTR_KIND_*` of DXC's `LLVMBitCodes.h`) → names.
fn attribute_text(a: &Attribute) -> String {
    const NAMES: [&str; 46] = [
        "",
        "align",
        "alwaysinline",
        "byval",
        "inlinehint",
        "inreg",
        "minsize",
        "naked",
        "nest",
        "noalias",
        "nobuiltin",
        "nocapture",
        "noduplicate",
        "noimplicitfloat",
        "noinline",
        "nonlazybind",
        "noredzone",
        "noreturn",
        "nounwind",
        "optsize",
        "readnone",
        "readonly",
        "returned",
        "returns_twice",
        "signext",
        "alignstack",
        "ssp",
        "sspreq",
        "sspstrong",
        "sret",
        "sanitize_address",
        "sanitize_thread",
        "sanitize_memory",
        "uwtable",
        "zeroext",
        "builtin",
        "cold",
        "optnone",
        "inalloca",
        "nonnull",
        "jumptable",
        "dereferenceable",
        "dereferenceable_or_null",
        "convergent",
        "safestack",
        "argmemonly",
    ];
    let name = |k: u32| {
        NAMES
            .get(k as usize)
            .map_or_else(|| format!("attr{k}"), |s| s.to_string())
    };
    match a {
        Attribute::Enum(k) => name(*k),
        Attribute::Int(k, v) => format!("{}({v})", name(*k)),
        Attribute::Str(k, v) if v.is_empty() => format!("\"{k}\""),
        Attribute::Str(k, v) => format!("\"{k}\"=\"{v}\""),
    }
}
