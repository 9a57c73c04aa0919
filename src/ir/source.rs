//! Where the IR came from, for people: the unit of [`super::Inst::Source`] offsets (SPIR-V
//! word or DXIL instruction) and, when the module carries debug information (`OpLine`,
//! `NonSemantic.Shader.DebugInfo.100` `DebugLine`), the source file and line of each offset.
//!
//! Front ends fill a [`SourceMap`] once per module; `quadstep dis` prints it beside the IR and
//! the disassembly, and run-time errors name the place through [`SourceMap::place`]. It is a
//! sorted list of spans, each running from its offset to the next span's, so a look-up is one
//! binary search and a module without debug information costs an empty vector.

/// What a [`super::Inst::Source`] offset counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum OffsetUnit {
    /// A word offset into a SPIR-V module (what `spirv-dis --offsets` shows, divided by 4).
    #[default]
    SpirvWord,
    /// The index of a DXIL instruction.
    DxilInst,
}

/// A source file named by the module, with its text when the module embeds it.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct SourceFile {
    pub name: String,
    pub text: Option<String>,
    /// Added to the module's line numbers where they are shown: a shader written inline in
    /// a bigger file (an Amber script's `SHADER` block) starts after that file's line
    /// `line_offset`.
    pub line_offset: u32,
}

/// Source positions of a module's instructions.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct SourceMap {
    pub unit: OffsetUnit,
    pub files: Vec<SourceFile>,
    /// `(offset, file, line)` sorted by offset: instructions from `offset` up to the next
    /// span's come from line `line` (1-based) of `files[file]`; `file == NO_FILE` marks
    /// instructions without a position (after `OpNoLine`, the end of a block).
    pub spans: Vec<(u32, u32, u32)>,
}

/// The file index of a span without a position.
pub const NO_FILE: u32 = u32::MAX;

impl SourceMap {
    /// The file and line of the instruction at `offset`, when known.
    pub fn line(&self, offset: u32) -> Option<(&SourceFile, u32)> {
        let i = self
            .spans
            .partition_point(|s| s.0 <= offset)
            .checked_sub(1)?;
        let (_, file, line) = self.spans[i];
        Some((self.files.get(file as usize)?, line))
    }

    /// `name:line` of the instruction at `offset`, when known.
    pub fn file_line(&self, offset: u32) -> Option<String> {
        self.line(offset)
            .map(|(f, l)| format!("{}:{}", f.name, l.saturating_add(f.line_offset)))
    }

    /// The text of the source line of the instruction at `offset`, trimmed, when the module
    /// embeds its source. A `#line N` directive in the text numbers the line after it N
    /// (glslang puts its `OpModuleProcessed` notes and a `#line 1` before the source).
    pub fn text(&self, offset: u32) -> Option<&str> {
        let (f, want) = self.line(offset)?;
        let mut n = 1u32;
        for text in f.text.as_deref()?.lines() {
            let directive = text.trim().strip_prefix("#line ");
            if let Some(next) = directive.and_then(|d| d.split_whitespace().next()?.parse().ok()) {
                n = next;
                continue;
            }
            if n == want {
                return Some(text.trim());
            }
            n = n.saturating_add(1);
        }
        None
    }

    /// ` file:line` of `offset` for the end of a listing line, with the line's text when it
    /// starts a line other than `last_line` (which it becomes); empty when no line is known.
    pub fn note(&self, offset: u32, last_line: &mut Option<(u32, u32)>) -> String {
        let Some(i) = self.spans.partition_point(|s| s.0 <= offset).checked_sub(1) else {
            return String::new();
        };
        let Some(at) = self.file_line(offset) else {
            return String::new();
        };
        let key = (self.spans[i].1, self.spans[i].2);
        if *last_line == Some(key) {
            return format!(" {at}");
        }
        *last_line = Some(key);
        match self.text(offset) {
            Some(t) if !t.is_empty() => format!(" {at}  | {t}"),
            _ => format!(" {at}"),
        }
    }

    /// The offset as people read it: `SPIR-V word 451` or `DXIL instruction 12`, with the
    /// source line when known (`SPIR-V word 451 (ops.frag:10)`).
    pub fn place(&self, offset: u32) -> String {
        let unit = match self.unit {
            OffsetUnit::SpirvWord => "SPIR-V word",
            OffsetUnit::DxilInst => "DXIL instruction",
        };
        match self.file_line(offset) {
            Some(at) => format!("{unit} {offset} ({at})"),
            None => format!("{unit} {offset}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_run_to_the_next_one() {
        let m = SourceMap {
            unit: OffsetUnit::SpirvWord,
            files: vec![SourceFile {
                name: "a.frag".into(),
                text: Some("one\n  two  \nthree".into()),
                line_offset: 0,
            }],
            spans: vec![(10, 0, 2), (20, NO_FILE, 0), (30, 0, 3)],
        };
        assert_eq!(m.file_line(9), None);
        assert_eq!(m.file_line(10).as_deref(), Some("a.frag:2"));
        assert_eq!(m.text(19), Some("two"));
        assert_eq!(m.file_line(25), None);
        assert_eq!(m.place(31), "SPIR-V word 31 (a.frag:3)");
        assert_eq!(m.place(5), "SPIR-V word 5");
        // a shader inline in a script from its line 40 on: script lines, the shader's text
        let mut m = m;
        m.files[0].line_offset = 40;
        assert_eq!(m.file_line(10).as_deref(), Some("a.frag:42"));
        assert_eq!(m.text(10), Some("two"));
        // glslang's notes before a `#line 1`
        m.files[0].text = Some("// a note\n#line 1\none\ntwo\n".into());
        assert_eq!(m.text(10), Some("two"));
    }
}
