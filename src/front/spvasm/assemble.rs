//! Lexer and assembler: `spirv-as` text → SPIR-V words.
//!
//! Instructions are found the way `spirv-as` finds them: not by lines but by the next token
//! that starts one (`%name =` or a word beginning with `Op`), so optional and variadic operands
//! run up to there.

use super::{
    enum_params, is_mask, is_value_enum, mask_bit_parse, opcode_by_name, value_enum_parse, NumType,
};
use crate::{Error, Result};
use rspirv::grammar::{ext_inst_table, OperandKind, OperandQuantifier};
use std::collections::{HashMap, HashSet, VecDeque};

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    /// A bare word: opcode, enumerant, number, mask (`A|B`).
    Word(String),
    /// `%name` (the name without `%`).
    Id(String),
    /// A quoted string, escapes resolved.
    Str(String),
    /// `=`
    Eq,
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    line: usize,
    col: usize,
    /// The source text of the token, for messages.
    raw: String,
}

fn lex(text: &str, src: &str) -> Result<Vec<Token>> {
    let mut out = Vec::new();
    let mut chars = text.char_indices().peekable();
    let (mut line, mut col) = (1usize, 1usize);
    while let Some(&(start, c)) = chars.peek() {
        if c == '\n' {
            chars.next();
            line += 1;
            col = 1;
            continue;
        }
        if c.is_whitespace() || c == '\u{feff}' {
            chars.next();
            col += 1;
            continue;
        }
        if c == ';' {
            while let Some(&(_, c)) = chars.peek() {
                if c == '\n' {
                    break;
                }
                chars.next();
            }
            continue;
        }
        let (tline, tcol) = (line, col);
        if c == '=' {
            chars.next();
            col += 1;
            out.push(Token {
                tok: Tok::Eq,
                line: tline,
                col: tcol,
                raw: "=".into(),
            });
            continue;
        }
        if c == '"' {
            chars.next();
            col += 1;
            let mut s = String::new();
            let mut end = None;
            while let Some((i, c)) = chars.next() {
                col += 1;
                match c {
                    '"' => {
                        end = Some(i + 1);
                        break;
                    }
                    '\\' => match chars.next() {
                        Some((_, e)) => {
                            col += 1;
                            if e == '\n' {
                                line += 1;
                                col = 1;
                            }
                            s.push(e);
                        }
                        None => break,
                    },
                    '\n' => {
                        line += 1;
                        col = 1;
                        s.push(c);
                    }
                    _ => s.push(c),
                }
            }
            let Some(end) = end else {
                return Err(err(src, tline, tcol, "\"", "unterminated string literal"));
            };
            out.push(Token {
                tok: Tok::Str(s),
                line: tline,
                col: tcol,
                raw: text[start..end].into(),
            });
            continue;
        }
        let mut end = start;
        while let Some(&(i, c)) = chars.peek() {
            if c.is_whitespace() || c == ';' || c == '"' || c == '=' {
                break;
            }
            end = i + c.len_utf8();
            chars.next();
            col += 1;
        }
        let raw = &text[start..end];
        let tok = match raw.strip_prefix('%') {
            Some("") => {
                return Err(err(
                    src,
                    tline,
                    tcol,
                    raw,
                    "`%` must be followed by an id name",
                ))
            }
            Some(name) => Tok::Id(name.to_string()),
            None => Tok::Word(raw.to_string()),
        };
        out.push(Token {
            tok,
            line: tline,
            col: tcol,
            raw: raw.into(),
        });
    }
    Ok(out)
}

fn err(src: &str, line: usize, col: usize, token: &str, msg: &str) -> Error {
    Error::Spirv(format!("{src}:{line}:{col}: {msg} (at `{token}`)"))
}

/// `Some((major, minor))` if the comment lines before the first instruction contain
/// `Version: M.m` (as the `; Version: 1.3` line `spirv-dis` writes).
pub(super) fn version_from_header_comment(text: &str) -> Option<(u8, u8)> {
    for line in text.lines() {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        let comment = t.strip_prefix(';')?;
        if let Some(v) = comment.trim().strip_prefix("Version:") {
            let (ma, mi) = v.trim().split_once('.')?;
            return Some((ma.parse().ok()?, mi.trim().parse().ok()?));
        }
    }
    None
}

/// Assembles `text`. With `preserve_numeric_ids` (spirv-as `--preserve-numeric-ids`), `%12`
/// is id 12 and named ids fill the gaps from 1 up; otherwise every id is numbered in order of
/// first appearance.
pub(super) fn assemble(
    text: &str,
    src: &str,
    version: (u8, u8),
    preserve_numeric_ids: bool,
) -> Result<Vec<u32>> {
    let toks = lex(text, src)?;
    let preserved: HashSet<u32> = if preserve_numeric_ids {
        toks.iter()
            .filter_map(|t| match &t.tok {
                Tok::Id(n) => numeric_id(n),
                _ => None,
            })
            .collect()
    } else {
        HashSet::new()
    };
    let mut a = Asm {
        src,
        toks,
        pos: 0,
        ids: HashMap::new(),
        preserved,
        next_id: 1,
        bound: 1,
        defined: HashSet::new(),
        num_types: HashMap::new(),
        value_type: HashMap::new(),
        ext_sets: HashMap::new(),
        words: vec![
            0x0723_0203,
            (version.0 as u32) << 16 | (version.1 as u32) << 8,
            0,
            0,
            0,
        ],
    };
    while a.pos < a.toks.len() {
        a.instruction()?;
    }
    a.words[3] = a.bound;
    Ok(a.words)
}

/// The value of an id written as a plain decimal number (`%12`), if nonzero.
fn numeric_id(name: &str) -> Option<u32> {
    let ok = name.bytes().all(|b| b.is_ascii_digit());
    ok.then(|| name.parse::<u32>().ok())
        .flatten()
        .filter(|&n| n != 0)
}

struct Asm<'a> {
    src: &'a str,
    toks: Vec<Token>,
    pos: usize,
    /// Id name → number, in order of first appearance.
    ids: HashMap<String, u32>,
    /// Numeric ids kept as written (only with `preserve_numeric_ids`).
    preserved: HashSet<u32>,
    next_id: u32,
    /// One more than the largest id used.
    bound: u32,
    defined: HashSet<u32>,
    /// Type id → scalar numeric type (OpTypeInt / OpTypeFloat).
    num_types: HashMap<u32, NumType>,
    /// Value id → its result type id.
    value_type: HashMap<u32, u32>,
    /// OpExtInstImport id → set name.
    ext_sets: HashMap<u32, String>,
    words: Vec<u32>,
}

/// What the operand loop knows about the instruction being assembled.
struct Inst {
    opname: &'static str,
    result_type: Option<u32>,
    /// Id of the OpSwitch selector (first IdRef operand).
    first_id: Option<u32>,
    words: Vec<u32>,
}

impl Asm<'_> {
    fn err_at(&self, t: &Token, msg: &str) -> Error {
        err(self.src, t.line, t.col, &t.raw, msg)
    }

    /// Error at the current token, or at the end of the previous one.
    fn err_here(&self, msg: &str) -> Error {
        match self.toks.get(self.pos).or_else(|| self.toks.last()) {
            Some(t) => self.err_at(t, msg),
            None => err(self.src, 1, 1, "", msg),
        }
    }

    fn id(&mut self, name: &str) -> u32 {
        if let Some(&n) = self.ids.get(name) {
            return n;
        }
        let n = match numeric_id(name).filter(|n| self.preserved.contains(n)) {
            Some(n) => n,
            None => {
                while self.preserved.contains(&self.next_id) {
                    self.next_id += 1;
                }
                self.next_id += 1;
                self.next_id - 1
            }
        };
        self.bound = self.bound.max(n.saturating_add(1));
        self.ids.insert(name.to_string(), n);
        n
    }

    fn starts_instruction(&self, at: usize) -> bool {
        match self.toks.get(at).map(|t| &t.tok) {
            Some(Tok::Word(w)) => w.starts_with("Op"),
            Some(Tok::Id(_)) => matches!(self.toks.get(at + 1).map(|t| &t.tok), Some(Tok::Eq)),
            _ => false,
        }
    }

    /// Whether the next token can be an operand of kind `kind` of the current instruction.
    fn operand_available(&self, kind: OperandKind) -> bool {
        let Some(t) = self.toks.get(self.pos) else {
            return false;
        };
        if !self.starts_instruction(self.pos) {
            return !matches!(t.tok, Tok::Eq);
        }
        // A word starting with `Op` may still be an enumerant (`OptNoneINTEL`).
        match &t.tok {
            Tok::Word(w) => {
                matches!(value_enum_parse(kind, w), Some(Some(_)))
                    || (is_mask(kind) && w.split('|').all(|p| mask_bit_parse(kind, p).is_some()))
            }
            _ => false,
        }
    }

    fn instruction(&mut self) -> Result<()> {
        let mut result = None;
        if let Some(Tok::Id(name)) = self.toks.get(self.pos).map(|t| t.tok.clone()) {
            if matches!(self.toks.get(self.pos + 1).map(|t| &t.tok), Some(Tok::Eq)) {
                let t = self.toks[self.pos].clone();
                let id = self.id(&name);
                if !self.defined.insert(id) {
                    return Err(self.err_at(&t, &format!("id %{name} is defined twice")));
                }
                result = Some(id);
                self.pos += 2;
            } else {
                return Err(
                    self.err_here("expected an instruction: `%name = OpX ...` or `OpX ...`")
                );
            }
        }
        let Some(op_tok) = self.toks.get(self.pos).cloned() else {
            return Err(self.err_here("expected an opcode after `=`"));
        };
        let name = match &op_tok.tok {
            Tok::Word(w) if w.starts_with("Op") => &w[2..],
            _ => return Err(self.err_at(&op_tok, "expected an opcode (a word starting with `Op`)")),
        };
        let Some(grammar) = opcode_by_name(name) else {
            return Err(self.err_at(&op_tok, "unknown opcode"));
        };
        self.pos += 1;
        let has_result = grammar
            .operands
            .iter()
            .any(|o| o.kind == OperandKind::IdResult);
        if has_result && result.is_none() {
            return Err(self.err_at(
                &op_tok,
                &format!(
                    "Op{} produces a result id: write `%name = Op{} ...`",
                    grammar.opname, grammar.opname
                ),
            ));
        }
        if !has_result && result.is_some() {
            return Err(self.err_at(&op_tok, &format!("Op{} has no result id", grammar.opname)));
        }
        let mut inst = Inst {
            opname: grammar.opname,
            result_type: None,
            first_id: None,
            words: vec![grammar.opcode as u32],
        };
        let mut queue: VecDeque<(OperandKind, OperandQuantifier)> = grammar
            .operands
            .iter()
            .map(|o| (o.kind, o.quantifier))
            .collect();
        while let Some((kind, q)) = queue.pop_front() {
            if kind == OperandKind::IdResult {
                inst.words.push(result.unwrap_or(0));
                continue;
            }
            if !self.operand_available(kind) {
                if q == OperandQuantifier::One {
                    let found = match self.toks.get(self.pos) {
                        Some(t) => format!("found `{}`", t.raw),
                        None => "found the end of the text".to_string(),
                    };
                    return Err(self.err_at(
                        &op_tok,
                        &format!(
                            "Op{} is missing its {kind:?} operand ({found})",
                            inst.opname
                        ),
                    ));
                }
                continue;
            }
            let params = self.operand(kind, &mut inst)?;
            if q == OperandQuantifier::ZeroOrMore {
                queue.push_front((kind, q));
            }
            for p in params.into_iter().rev() {
                queue.push_front(p);
            }
        }
        if self.pos < self.toks.len() && !self.starts_instruction(self.pos) {
            return Err(self.err_here(&format!("too many operands for Op{}", inst.opname)));
        }
        // Remember what later literals depend on.
        if let Some(r) = result {
            match (inst.opname, inst.words.as_slice()) {
                ("TypeInt", [_, _, w, s]) => {
                    self.num_types.insert(
                        r,
                        NumType::Int {
                            width: *w,
                            signed: *s != 0,
                        },
                    );
                }
                ("TypeFloat", [_, _, w, ..]) => {
                    self.num_types.insert(r, NumType::Float { width: *w });
                }
                ("ExtInstImport", [_, _, rest @ ..]) => {
                    self.ext_sets.insert(r, words_to_string(rest));
                }
                _ => {}
            }
            if let Some(t) = inst.result_type {
                self.value_type.insert(r, t);
            }
        }
        let n = inst.words.len();
        if n > 0xFFFF {
            return Err(self.err_at(&op_tok, "instruction longer than 65535 words"));
        }
        inst.words[0] |= (n as u32) << 16;
        self.words.extend_from_slice(&inst.words);
        Ok(())
    }

    fn next(&mut self) -> Token {
        let t = self.toks[self.pos].clone();
        self.pos += 1;
        t
    }

    /// Parses one operand of `kind` into `inst.words`; returns the operands it brings along
    /// (enumerant parameters, the operands of an extended instruction / spec-constant op).
    fn operand(&mut self, kind: OperandKind, inst: &mut Inst) -> Result<Vec<Operand>> {
        use OperandKind as K;
        let t = self.next();
        match kind {
            K::IdResultType | K::IdRef | K::IdScope | K::IdMemorySemantics => {
                let id = self.expect_id(&t, kind)?;
                if kind == K::IdResultType {
                    inst.result_type = Some(id);
                } else if inst.first_id.is_none() {
                    inst.first_id = Some(id);
                }
                inst.words.push(id);
            }
            K::LiteralInteger => {
                let w = self.expect_word(&t, kind)?;
                inst.words.extend(self.int_literal(
                    &t,
                    &w,
                    NumType::Int {
                        width: 32,
                        signed: false,
                    },
                )?);
            }
            K::LiteralFloat => {
                let w = self.expect_word(&t, kind)?;
                inst.words.extend(self.float_literal(&t, &w, 32)?);
            }
            K::LiteralString => match &t.tok {
                Tok::Str(s) => inst.words.extend(string_to_words(s)),
                _ => return Err(self.err_at(&t, "expected a quoted string literal")),
            },
            K::LiteralContextDependentNumber => {
                let w = self.expect_word(&t, kind)?;
                let ty = inst
                    .result_type
                    .and_then(|ty| self.num_types.get(&ty).copied());
                let Some(ty) = ty else {
                    return Err(self.err_at(
                        &t,
                        &format!(
                            "the result type of Op{} must be a scalar integer or float type",
                            inst.opname
                        ),
                    ));
                };
                inst.words.extend(self.number(&t, &w, ty)?);
            }
            K::PairLiteralIntegerIdRef => {
                // OpSwitch: the literal is as wide as the selector's type.
                let w = self.expect_word(&t, kind)?;
                let ty = inst
                    .first_id
                    .and_then(|sel| self.value_type.get(&sel))
                    .and_then(|ty| self.num_types.get(ty).copied());
                let ty =
                    match ty {
                        Some(ty @ NumType::Int { .. }) => ty,
                        _ => return Err(self.err_at(
                            &t,
                            "the OpSwitch selector must be a value of a known scalar integer type",
                        )),
                    };
                inst.words.extend(self.int_literal(&t, &w, ty)?);
                return Ok(one(&[K::IdRef]));
            }
            K::PairIdRefLiteralInteger => {
                inst.words.push(self.expect_id(&t, kind)?);
                return Ok(one(&[K::LiteralInteger]));
            }
            K::PairIdRefIdRef => {
                inst.words.push(self.expect_id(&t, kind)?);
                return Ok(one(&[K::IdRef]));
            }
            K::LiteralExtInstInteger => return self.ext_inst_name(&t, inst),
            K::LiteralSpecConstantOpInteger => {
                let w = self.expect_word(&t, kind)?;
                let Some(g) = opcode_by_name(&w) else {
                    return Err(self.err_at(
                        &t,
                        "unknown opcode for OpSpecConstantOp (write it without `Op`, e.g. `IAdd`)",
                    ));
                };
                inst.words.push(g.opcode as u32);
                return Ok(g
                    .operands
                    .iter()
                    .filter(|o| !matches!(o.kind, K::IdResult | K::IdResultType))
                    .map(|o| (o.kind, o.quantifier))
                    .collect());
            }
            k if is_value_enum(k) => {
                let w = self.expect_word(&t, kind)?;
                let v = match value_enum_parse(k, &w).flatten() {
                    Some(v) => v,
                    None => self.enum_number(&t, &w, k)?,
                };
                inst.words.push(v);
                return Ok(one(enum_params(k, v)));
            }
            k if is_mask(k) => {
                let w = self.expect_word(&t, kind)?;
                let mut v = 0u32;
                for part in w.split('|') {
                    v |= match mask_bit_parse(k, part) {
                        Some(b) => b,
                        None => self.enum_number(&t, part, k)?,
                    };
                }
                inst.words.push(v);
                return Ok((0..32)
                    .map(|i| 1u32 << i)
                    .filter(|b| v & b != 0)
                    .flat_map(|b| one(enum_params(k, b)))
                    .collect());
            }
            // Extension-specific operand kinds (debug info sets): ids, numbers or strings.
            _ => match &t.tok {
                Tok::Id(n) => {
                    let id = self.id(n);
                    inst.words.push(id);
                }
                Tok::Str(s) => inst.words.extend(string_to_words(s)),
                Tok::Word(w) => {
                    let w = w.clone();
                    inst.words.extend(self.int_literal(
                        &t,
                        &w,
                        NumType::Int {
                            width: 32,
                            signed: true,
                        },
                    )?);
                }
                Tok::Eq => return Err(self.err_at(&t, "unexpected `=`")),
            },
        }
        Ok(Vec::new())
    }

    fn expect_id(&mut self, t: &Token, kind: OperandKind) -> Result<u32> {
        match &t.tok {
            Tok::Id(n) => Ok(self.id(n)),
            _ => Err(self.err_at(t, &format!("expected an id (`%name`) for operand {kind:?}"))),
        }
    }

    fn expect_word(&self, t: &Token, kind: OperandKind) -> Result<String> {
        match &t.tok {
            Tok::Word(w) => Ok(w.clone()),
            _ => Err(self.err_at(
                t,
                &format!("expected a literal or name for operand {kind:?}"),
            )),
        }
    }

    /// A number written where an enumerant name is expected.
    fn enum_number(&self, t: &Token, w: &str, kind: OperandKind) -> Result<u32> {
        match parse_int(w) {
            Some(IntLit {
                neg: false, mag, ..
            }) if mag <= u32::MAX as u128 => Ok(mag as u32),
            _ => Err(self.err_at(t, &format!("unknown {kind:?} enumerant `{w}`"))),
        }
    }

    /// The instruction operand of OpExtInst: a name from the set's grammar, or a number.
    fn ext_inst_name(&mut self, t: &Token, inst: &mut Inst) -> Result<Vec<Operand>> {
        let w = self.expect_word(t, OperandKind::LiteralExtInstInteger)?;
        let set_name = inst.first_id.and_then(|id| self.ext_sets.get(&id)).cloned();
        let table = set_name.as_deref().and_then(ext_inst_table);
        let entry = match (table, parse_int(&w)) {
            (_, Some(IntLit { neg: false, mag, .. })) if mag <= u32::MAX as u128 => {
                inst.words.push(mag as u32);
                table.and_then(|tb| tb.lookup_opcode(mag as u32))
            }
            (Some(tb), _) => match tb.iter().find(|e| e.opname == w) {
                Some(e) => {
                    inst.words.push(e.opcode.into());
                    Some(e)
                }
                None => {
                    return Err(self.err_at(
                        t,
                        &format!("unknown instruction of extended set {}", set_name.unwrap_or_default()),
                    ))
                }
            },
            (None, _) => {
                return Err(self.err_at(
                    t,
                    "extended instruction set unknown here (not imported by OpExtInstImport, or no grammar): give the instruction number",
                ))
            }
        };
        Ok(match entry {
            Some(e) => e.operands.iter().map(|o| (o.kind, o.quantifier)).collect(),
            None => Vec::new(),
        })
    }

    fn number(&self, t: &Token, w: &str, ty: NumType) -> Result<Vec<u32>> {
        match ty {
            NumType::Int { .. } => self.int_literal(t, w, ty),
            NumType::Float { width } => self.float_literal(t, w, width),
        }
    }

    fn int_literal(&self, t: &Token, w: &str, ty: NumType) -> Result<Vec<u32>> {
        let NumType::Int { width, signed } = ty else {
            return Err(self.err_at(t, "internal: integer literal of float type"));
        };
        let Some(lit) = parse_int(w) else {
            return Err(self.err_at(t, "invalid integer literal"));
        };
        if width == 0 || width > 64 {
            return Err(self.err_at(
                t,
                &format!("{width}-bit integer literals are not supported"),
            ));
        }
        if lit.neg && !signed {
            return Err(self.err_at(t, "cannot put a negative number in an unsigned literal"));
        }
        let sign_word = if signed { "signed" } else { "unsigned" };
        let too_big = || {
            self.err_at(
                t,
                &format!("integer does not fit in a {width}-bit {sign_word} integer"),
            )
        };
        let bits: u64 = if lit.neg {
            if lit.mag > 1u128 << (width - 1) {
                return Err(too_big());
            }
            (lit.mag as u64).wrapping_neg()
        } else {
            // Like spirv-as, hex (and octal) literals may fill all bits of a signed type.
            let max = if signed && lit.decimal {
                (1u128 << (width - 1)) - 1
            } else {
                (1u128 << width) - 1
            };
            if lit.mag > max {
                return Err(too_big());
            }
            lit.mag as u64
        };
        // Narrow types: value in the low bits, sign-extended for signed types.
        let bits = if width < 64 {
            let mask = (1u64 << width) - 1;
            let v = bits & mask;
            if signed && v >> (width - 1) & 1 == 1 {
                v | !mask
            } else {
                v
            }
        } else {
            bits
        };
        Ok(if width > 32 {
            vec![bits as u32, (bits >> 32) as u32]
        } else {
            vec![bits as u32]
        })
    }

    fn float_literal(&self, t: &Token, w: &str, width: u32) -> Result<Vec<u32>> {
        let bad = || self.err_at(t, &format!("invalid {width}-bit float literal"));
        let (neg, body) = match w.as_bytes().first() {
            Some(b'-') => (true, &w[1..]),
            Some(b'+') => (false, &w[1..]),
            _ => (false, w),
        };
        let (eb, fb) = match width {
            16 => (5u32, 10u32),
            32 => (8, 23),
            64 => (11, 52),
            _ => {
                return Err(self.err_at(t, &format!("{width}-bit float literals are not supported")))
            }
        };
        let bits: u64 =
            if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
                hex_float_bits(hex, eb, fb).ok_or_else(bad)?
            } else {
                let ok_chars = !body.is_empty()
                    && body.bytes().all(|b| {
                        b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-')
                    })
                    && body.as_bytes()[0] != b'+'
                    && body.as_bytes()[0] != b'-';
                if !ok_chars {
                    return Err(bad());
                }
                match width {
                    32 => {
                        let v: f32 = body.parse().map_err(|_| bad())?;
                        if v.is_infinite() {
                            return Err(bad());
                        }
                        v.to_bits() as u64
                    }
                    64 => {
                        let v: f64 = body.parse().map_err(|_| bad())?;
                        if v.is_infinite() {
                            return Err(bad());
                        }
                        v.to_bits()
                    }
                    _ => {
                        let v: f32 = body.parse().map_err(|_| bad())?;
                        f32_to_f16_toward_zero(v).ok_or_else(bad)? as u64
                    }
                }
            };
        let bits = if neg {
            bits | 1u64 << (width - 1)
        } else {
            bits
        };
        Ok(if width > 32 {
            vec![bits as u32, (bits >> 32) as u32]
        } else {
            vec![bits as u32]
        })
    }
}

/// An operand still to parse: its kind and how often it may appear.
type Operand = (OperandKind, OperandQuantifier);

/// Mandatory operands of the given kinds.
fn one(kinds: &[OperandKind]) -> Vec<Operand> {
    kinds.iter().map(|&k| (k, OperandQuantifier::One)).collect()
}

struct IntLit {
    neg: bool,
    mag: u128,
    decimal: bool,
}

/// `[+-]` then `0x` hex, `0` octal or decimal digits (C `strtoll` base 0, as spirv-as reads).
fn parse_int(w: &str) -> Option<IntLit> {
    let (neg, body) = match w.as_bytes().first()? {
        b'-' => (true, &w[1..]),
        b'+' => (false, &w[1..]),
        _ => (false, w),
    };
    let (digits, radix) =
        if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
            (h, 16)
        } else if body.len() > 1 && body.starts_with('0') {
            (&body[1..], 8)
        } else {
            (body, 10)
        };
    if digits.is_empty() || digits.len() > 40 {
        return None;
    }
    let mut mag: u128 = 0;
    for c in digits.chars() {
        let d = c.to_digit(radix)?;
        mag = mag.checked_mul(radix as u128)?.checked_add(d as u128)?;
    }
    Some(IntLit {
        neg,
        mag,
        decimal: radix == 10,
    })
}

/// A non-negative f32 as f16 bits, rounded toward zero as spirv-as does for decimal half
/// literals (65520 gives the largest half, 0x7bff); `None` from 65536 up.
fn f32_to_f16_toward_zero(v: f32) -> Option<u16> {
    let b = v.to_bits() & 0x7fff_ffff;
    let exp = (b >> 23) as i32 - 127;
    let mant = b & 0x7f_ffff | 0x80_0000;
    if b == 0 || exp < -25 {
        Some(0)
    } else if exp > 15 {
        None
    } else if exp >= -14 {
        Some((((exp + 15) as u16) << 10) | ((b & 0x7f_ffff) >> 13) as u16)
    } else {
        // Subnormal half: units of 2^-24.
        Some((mant >> (-(exp + 1)) as u32) as u16)
    }
}

/// Bits (without sign) of the hex float `h.hhhp±e` (text after `0x`) in a format with `eb`
/// exponent bits and `fb` fraction bits. Like spirv-as: extra mantissa bits are truncated; an
/// exponent one above the format's range gives the all-ones exponent with the written fraction
/// (`0x1p+128` is infinity, `0x1.8p+128` a quiet NaN), further above, infinity.
fn hex_float_bits(text: &str, eb: u32, fb: u32) -> Option<u64> {
    // spirv-as wants the binary exponent, written with a lowercase `p`.
    let (mant, exp) = text.split_once('p')?;
    let exp: i64 = {
        let e = exp.strip_prefix('+').unwrap_or(exp);
        if e.is_empty() || e.len() > 9 || e.starts_with('+') {
            return None;
        }
        e.parse().ok()?
    };
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let mut m: u128 = 0;
    let mut e2 = exp;
    for c in int.chars() {
        let d = c.to_digit(16)? as u128;
        if m >> 120 != 0 {
            e2 += 4; // drop digits that do not fit (truncation)
        } else {
            m = m << 4 | d;
        }
    }
    for c in frac.chars() {
        let d = c.to_digit(16)? as u128;
        if m >> 120 == 0 {
            m = m << 4 | d;
            e2 -= 4;
        }
    }
    if m == 0 {
        return Some(0);
    }
    let p = 127 - m.leading_zeros() as i64; // position of the leading one
    let e = p + e2; // unbiased exponent of the value
    let bias = (1i64 << (eb - 1)) - 1;
    let frac_mask = (1u128 << fb) - 1;
    let align = |m: u128, shift: i64| -> u128 {
        if shift >= 0 {
            if shift >= 128 {
                0
            } else {
                m << shift
            }
        } else if -shift >= 128 {
            0
        } else {
            m >> -shift
        }
    };
    let (exp_field, frac) = if e > bias + 1 {
        ((1u64 << eb) - 1, 0) // infinity
    } else if e == bias + 1 {
        ((1u64 << eb) - 1, align(m, fb as i64 - p) & frac_mask)
    } else if e >= 1 - bias {
        ((e + bias) as u64, align(m, fb as i64 - p) & frac_mask)
    } else {
        // Subnormal: value = frac * 2^(1 - bias - fb).
        (0, align(m, e2 - (1 - bias - fb as i64)) & frac_mask)
    };
    Some(exp_field << fb | frac as u64)
}

fn string_to_words(s: &str) -> Vec<u32> {
    let mut bytes = s.as_bytes().to_vec();
    bytes.push(0);
    while !bytes.len().is_multiple_of(4) {
        bytes.push(0);
    }
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The nul-terminated string at the start of `words` (lossy UTF-8).
pub(super) fn words_to_string(words: &[u32]) -> String {
    let bytes: Vec<u8> = words
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .take_while(|&b| b != 0)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_floats_match_spirv_as() {
        // Expected bits observed from spirv-as 2023.1 and checked by hand against IEEE-754.
        assert_eq!(hex_float_bits("1.8p+128", 8, 23), Some(0x7fc0_0000));
        assert_eq!(hex_float_bits("1p+128", 8, 23), Some(0x7f80_0000));
        assert_eq!(hex_float_bits("1p-149", 8, 23), Some(1));
        assert_eq!(hex_float_bits("1p-150", 8, 23), Some(0));
        assert_eq!(hex_float_bits("1.fffffffp0", 8, 23), Some(0x3fff_ffff));
        assert_eq!(hex_float_bits("1.ffcp+15", 5, 10), Some(0x7bff));
        assert_eq!(hex_float_bits("1.998p-4", 5, 10), Some(0x2e66));
        assert_eq!(hex_float_bits("1p0", 11, 52), Some(0x3ff0_0000_0000_0000));
        assert_eq!(hex_float_bits("0.8p1", 8, 23), Some(0x3f80_0000));
        assert_eq!(hex_float_bits("1.8p+129", 8, 23), Some(0x7f80_0000));
        assert_eq!(hex_float_bits("1.8p+16", 5, 10), Some(0x7e00));
        assert_eq!(hex_float_bits("1.fffffep+127", 5, 10), Some(0x7c00));
        assert_eq!(hex_float_bits("1p-25", 5, 10), Some(0));
        assert_eq!(hex_float_bits("1.8", 8, 23), None);
        assert_eq!(hex_float_bits("1P3", 8, 23), None);
        assert_eq!(hex_float_bits("p1", 8, 23), None);
        assert_eq!(hex_float_bits("1.8pz", 8, 23), None);
    }

    #[test]
    fn decimal_halves_round_toward_zero() {
        // Bits observed from spirv-as 2023.1; by hand: 65520 lies between 65504 (0x7bff) and
        // 65536; 1.0007 is 0.72 ulp above 1.0 (0x3c00); 9e-8 is 1.51 units of 2^-24.
        assert_eq!(f32_to_f16_toward_zero(65520.0), Some(0x7bff));
        assert_eq!(f32_to_f16_toward_zero(65536.0), None);
        assert_eq!(f32_to_f16_toward_zero(1.0007), Some(0x3c00));
        assert_eq!(f32_to_f16_toward_zero(0.1), Some(0x2e66));
        assert_eq!(f32_to_f16_toward_zero(9e-8), Some(1));
        assert_eq!(f32_to_f16_toward_zero(4e-8), Some(0));
        assert_eq!(f32_to_f16_toward_zero(2f32.powi(-14)), Some(0x400));
        assert_eq!(f32_to_f16_toward_zero(0.0000610), Some(0x3ff));
        assert_eq!(f32_to_f16_toward_zero(0.0), Some(0));
    }

    #[test]
    fn integers_parse_like_strtol() {
        let v = |s: &str| parse_int(s).map(|l| (l.neg, l.mag));
        assert_eq!(v("010"), Some((false, 8)));
        assert_eq!(v("-0x10"), Some((true, 16)));
        assert_eq!(v("+5"), Some((false, 5)));
        assert_eq!(v("0"), Some((false, 0)));
        assert_eq!(v("0x"), None);
        assert_eq!(v("12a"), None);
        assert_eq!(v("-"), None);
    }

    #[test]
    fn header_version_comment() {
        assert_eq!(
            version_from_header_comment("; SPIR-V\n; Version: 1.4\nOpNop"),
            Some((1, 4))
        );
        assert_eq!(version_from_header_comment("OpNop\n; Version: 1.4\n"), None);
    }

    #[test]
    fn strings_pack_little_endian_with_nul() {
        assert_eq!(string_to_words("main"), vec![0x6e69_616d, 0]);
        assert_eq!(string_to_words("abc"), vec![0x0063_6261]);
        assert_eq!(words_to_string(&[0x6e69_616d, 0]), "main");
    }
}
