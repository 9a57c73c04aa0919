//! The AmberScript tokenizer. It follows Amber's own rules: words are split on spaces, tabs and
//! newlines (and `,` `(` `)` stand alone), `#` starts a comment to the end of the line, a lone
//! `\` at the end of a line joins it to the next, a word starting with a digit (or `-`/`.` then a
//! digit) is a number (`0x…` hex, with a `.` or exponent a float), `nan` in any case is a NaN
//! (Amber's one non-finite literal: it has no infinity), and a number glued to text (`5%`)
//! yields the number then the rest as its own word.

/// One token and the 1-based line it starts on.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    pub kind: Tok,
    pub line: usize,
}

/// Token kinds.
#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    /// A word (keyword, name, or anything not starting like a number).
    Word(String),
    /// An integer literal (decimal or hex), kept wide enough for both `u64` and `-i64`.
    Int(i128),
    /// A floating-point literal.
    Float(f64),
    /// End of a line.
    Eol,
    /// End of the text.
    Eos,
}

impl Tok {
    /// A short description for error messages.
    pub fn describe(&self) -> String {
        match self {
            Tok::Word(w) => crate::error::quote(w),
            Tok::Int(i) => format!("integer {i}"),
            Tok::Float(f) => format!("number {f}"),
            Tok::Eol => "end of line".to_string(),
            Tok::Eos => "end of file".to_string(),
        }
    }
}

/// A cursor over the script text.
pub struct Tokenizer<'a> {
    text: &'a str,
    pos: usize,
    line: usize,
    peeked: Option<Token>,
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | 0x0c | 0)
}

fn is_delim(c: u8) -> bool {
    is_space(c) || matches!(c, b'\n' | b',' | b'(' | b')')
}

impl<'a> Tokenizer<'a> {
    pub fn new(text: &'a str) -> Self {
        Tokenizer {
            text,
            pos: 0,
            line: 1,
            peeked: None,
        }
    }

    /// Look at the next token without consuming it.
    pub fn peek(&mut self) -> &Token {
        if self.peeked.is_none() {
            let t = self.scan();
            self.peeked = Some(t);
        }
        self.peeked.as_ref().expect("just filled")
    }

    /// Consume and return the next token.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Token {
        match self.peeked.take() {
            Some(t) => t,
            None => self.scan(),
        }
    }

    fn skip_space(&mut self) {
        let b = self.text.as_bytes();
        while self.pos < b.len() && is_space(b[self.pos]) {
            self.pos += 1;
        }
    }

    fn scan(&mut self) -> Token {
        let b = self.text.as_bytes();
        loop {
            self.skip_space();
            let line = self.line;
            if self.pos >= b.len() {
                return Token {
                    kind: Tok::Eos,
                    line,
                };
            }
            let c = b[self.pos];
            if c == b'#' {
                while self.pos < b.len() && b[self.pos] != b'\n' {
                    self.pos += 1;
                }
                continue;
            }
            if c == b'\n' {
                self.pos += 1;
                self.line += 1;
                return Token {
                    kind: Tok::Eol,
                    line,
                };
            }
            if matches!(c, b',' | b'(' | b')') {
                self.pos += 1;
                return Token {
                    kind: Tok::Word((c as char).to_string()),
                    line,
                };
            }
            let start = self.pos;
            let mut end = start;
            while end < b.len() && !is_delim(b[end]) {
                end += 1;
            }
            let word = &self.text[start..end];
            let wb = word.as_bytes();
            let digit_at = |i: usize| wb.get(i).is_some_and(|c| c.is_ascii_digit());
            let signed = wb[0] == b'-' || wb[0] == b'+';
            if nan_literal(word) {
                self.pos = end;
                return Token {
                    kind: Tok::Float(f64::NAN),
                    line,
                };
            }
            let numeric = digit_at(0)
                || ((signed || wb[0] == b'.') && digit_at(1))
                || (signed && wb.get(1) == Some(&b'.') && digit_at(2));
            if !numeric {
                self.pos = end;
                if word == "\\" {
                    // Line continuation: skip to and past the end of line.
                    self.skip_space();
                    if self.pos < b.len() && b[self.pos] == b'\n' {
                        self.pos += 1;
                        self.line += 1;
                        continue;
                    }
                }
                return Token {
                    kind: Tok::Word(word.to_string()),
                    line,
                };
            }
            let (kind, used) = scan_number(word);
            self.pos = start + used.max(1);
            return Token { kind, line };
        }
    }

    /// Raw text from the cursor up to (not including) the next line whose first word is `END`;
    /// the cursor is left at that `END`. Returns `None` when no such line exists.
    /// The rest of the current line (after a peeked end-of-line) is not included.
    pub fn raw_until_end(&mut self) -> Option<String> {
        if let Some(t) = self.peeked.take() {
            // Only an end of line may have been peeked before raw text; re-scan otherwise.
            if t.kind != Tok::Eol {
                return None;
            }
        }
        let rest = &self.text[self.pos..];
        let mut offset = 0usize;
        for l in rest.split_inclusive('\n') {
            let trimmed = l.trim_start_matches([' ', '\t', '\r']);
            if let Some(after) = trimmed.strip_prefix("END") {
                if after.is_empty() || is_delim(after.as_bytes()[0]) || after.starts_with('#') {
                    let body = &rest[..offset];
                    self.line += body.matches('\n').count();
                    self.pos += offset + (l.len() - trimmed.len());
                    return Some(body.to_string());
                }
            }
            offset += l.len();
        }
        None
    }
}

/// Whether a word is Amber's NaN literal: `nan` in any mix of cases, nothing else (Amber's
/// tokenizer, `src/tokenizer.cc`, reads exactly these three letters as the C library's
/// positive quiet NaN; `-nan`, `inf` and `infinity` are words to it, not numbers).
pub fn nan_literal(word: &str) -> bool {
    word.eq_ignore_ascii_case("nan")
}

/// Parse the longest numeric prefix of `word`; returns the token and the bytes used.
fn scan_number(word: &str) -> (Tok, usize) {
    let b = word.as_bytes();
    let (neg, digits_start) = match b[0] {
        b'-' => (true, 1),
        b'+' => (false, 1),
        _ => (false, 0),
    };
    let body = &word[digits_start..];
    if body.len() > 2 && (body.starts_with("0x") || body.starts_with("0X")) {
        let hex: String = body[2..]
            .chars()
            .take_while(|c| c.is_ascii_hexdigit())
            .collect();
        if let Ok(v) = u64::from_str_radix(&hex, 16) {
            let v = v as i128;
            return (
                Tok::Int(if neg { -v } else { v }),
                digits_start + 2 + hex.len(),
            );
        }
    }
    // Longest prefix matching [0-9]* ( . [0-9]* )? ( [eE] [+-]? [0-9]+ )?
    let mut i = digits_start;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let mut is_float = false;
    if i < b.len() && b[i] == b'.' {
        is_float = true;
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        if j < b.len() && b[j].is_ascii_digit() {
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            is_float = true;
            i = j;
        }
    }
    let text = &word[..i];
    if !is_float {
        if let Ok(v) = text.parse::<i128>() {
            return (Tok::Int(v), i);
        }
    }
    match text.parse::<f64>() {
        Ok(f) => (Tok::Float(f), i),
        Err(_) => (Tok::Word(word.to_string()), word.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<Tok> {
        let mut t = Tokenizer::new(s);
        let mut v = Vec::new();
        loop {
            let k = t.next().kind;
            if k == Tok::Eos {
                return v;
            }
            v.push(k);
        }
    }

    #[test]
    fn words_numbers_comments() {
        assert_eq!(
            kinds("RUN p 1 -2 0x10 1.5 -.5 1e3 # c\nX"),
            vec![
                Tok::Word("RUN".into()),
                Tok::Word("p".into()),
                Tok::Int(1),
                Tok::Int(-2),
                Tok::Int(16),
                Tok::Float(1.5),
                Tok::Float(-0.5),
                Tok::Float(1000.0),
                Tok::Eol,
                Tok::Word("X".into()),
            ]
        );
    }

    #[test]
    fn nan_in_any_case_is_a_number_and_inf_is_not() {
        let k = kinds("nan NaN NAN -nan inf nanx");
        // glibc's strtod("nan"), what Amber stores: positive, quiet bit only
        let nan_bits = 0x7ff8_0000_0000_0000u64;
        for t in &k[..3] {
            assert!(
                matches!(t, Tok::Float(f) if f.to_bits() == nan_bits),
                "{t:?}"
            );
        }
        assert_eq!(k[3..], ["-nan", "inf", "nanx"].map(|w| Tok::Word(w.into())));
    }

    #[test]
    fn percent_and_continuation() {
        assert_eq!(
            kinds("5% \\\n A"),
            vec![Tok::Int(5), Tok::Word("%".into()), Tok::Word("A".into())]
        );
        let mut t = Tokenizer::new("a \\\nb\nc");
        assert_eq!(t.next().line, 1);
        assert_eq!(t.next().line, 2);
        assert_eq!(t.next().kind, Tok::Eol);
        assert_eq!(t.next().line, 3);
    }

    #[test]
    fn raw_text_until_end() {
        let mut t = Tokenizer::new("SHADER\nline BLEND\n  END\nX");
        t.next();
        assert_eq!(t.next().kind, Tok::Eol);
        assert_eq!(t.raw_until_end().as_deref(), Some("line BLEND\n"));
        let e = t.next();
        assert_eq!(e.kind, Tok::Word("END".into()));
        assert_eq!(e.line, 3);
    }
}
