//! Source positions from a module's debug instructions: `OpString`/`OpSource` name the files
//! (and may embed their text), `OpLine` and `NonSemantic.Shader.DebugInfo.100`'s `DebugLine`
//! give the line of the instructions after them, until the next position, `OpNoLine` /
//! `DebugNoLine`, or the end of the block or function (the SPIR-V rule for `OpLine`).
//!
//! Debug instructions never change what a shader computes, so nothing here fails: a position
//! that names an unknown file or a non-constant line is left out.

use std::collections::HashMap;

use spirv::Op;

use super::parse::{is_terminator, Parsed};
use crate::ir::{SourceFile, SourceMap, NO_FILE};

/// `NonSemantic.Shader.DebugInfo.100` instruction numbers.
const DEBUG_SOURCE: u32 = 35;
const DEBUG_SOURCE_CONTINUED: u32 = 102;
const DEBUG_LINE: u32 = 103;
const DEBUG_NO_LINE: u32 = 104;

/// The positions `OpLine`/`DebugLine` give the instructions of `p`.
pub(crate) fn source_map(p: &Parsed) -> SourceMap {
    let mut strings: HashMap<u32, String> = HashMap::new();
    let mut ints: HashMap<u32, u32> = HashMap::new();
    let mut debug_set = None;
    // file index by the id that names it: an `OpString` (OpLine, OpSource) or a `DebugSource`
    let mut file_of: HashMap<u32, u32> = HashMap::new();
    let mut files: Vec<SourceFile> = Vec::new();
    // the file whose text `OpSourceContinued` / `DebugSourceContinued` extends
    let mut continued: Option<usize> = None;
    let mut spans: Vec<(u32, u32, u32)> = Vec::new();
    for r in 0..p.insts.len() {
        let i = p.inst(r);
        let w = |k: usize| i.w.get(k).copied();
        let after = i.off + i.w.len() as u32 + 1;
        match i.op {
            Op::String => {
                if let (Some(id), Ok((s, _))) = (w(0), i.string(1)) {
                    strings.insert(id, s);
                }
            }
            Op::Constant if i.w.len() == 3 => {
                ints.insert(i.w[1], i.w[2]);
            }
            Op::ExtInstImport => {
                if let Ok((name, _)) = i.string(1) {
                    if name == "NonSemantic.Shader.DebugInfo.100" {
                        debug_set = w(0);
                    }
                }
            }
            Op::Source => {
                // OpSource Language Version [File] [Source text]
                continued = None;
                if let Some(f) =
                    w(2).and_then(|id| file_index(id, &strings, &mut files, &mut file_of))
                {
                    if let Ok((text, _)) = i.string(3) {
                        files[f as usize].text = Some(text);
                        continued = Some(f as usize);
                    }
                }
            }
            Op::SourceContinued => {
                if let (Some(f), Ok((more, _))) = (continued, i.string(0)) {
                    if let Some(t) = &mut files[f].text {
                        t.push_str(&more);
                    }
                }
            }
            Op::Line => {
                if let (Some(f), Some(line)) = (
                    w(0).and_then(|id| file_index(id, &strings, &mut files, &mut file_of)),
                    w(1),
                ) {
                    set_span(&mut spans, i.off, f, line);
                }
            }
            Op::NoLine => set_span(&mut spans, i.off, NO_FILE, 0),
            Op::ExtInst if debug_set.is_some() && w(2) == debug_set => {
                // OpExtInst Type Result Set Instruction Operands…
                let id = w(1).unwrap_or(0);
                match w(3) {
                    Some(DEBUG_SOURCE) => {
                        continued = None;
                        if let Some(f) = w(4).and_then(|s| strings.get(&s).cloned()) {
                            files.push(SourceFile {
                                name: f,
                                text: w(5).and_then(|t| strings.get(&t).cloned()),
                                line_offset: 0,
                            });
                            file_of.insert(id, files.len() as u32 - 1);
                            continued = Some(files.len() - 1);
                        }
                    }
                    Some(DEBUG_SOURCE_CONTINUED) => {
                        let more = w(4).and_then(|t| strings.get(&t));
                        if let (Some(f), Some(more)) = (continued, more) {
                            if let Some(t) = &mut files[f].text {
                                t.push_str(more);
                            }
                        }
                    }
                    Some(DEBUG_LINE) => {
                        let file = w(4).and_then(|s| file_of.get(&s).copied());
                        let line = w(5).and_then(|l| ints.get(&l).copied());
                        if let (Some(f), Some(line)) = (file, line) {
                            set_span(&mut spans, i.off, f, line);
                        }
                    }
                    Some(DEBUG_NO_LINE) => set_span(&mut spans, i.off, NO_FILE, 0),
                    _ => {}
                }
            }
            // the end of a block or function ends a position
            op if is_terminator(op) || op == Op::FunctionEnd => {
                set_span(&mut spans, after, NO_FILE, 0)
            }
            _ => {}
        }
    }
    SourceMap {
        unit: Default::default(),
        files,
        spans,
    }
}

/// The file index of the `OpString` `id` names, added on first use.
fn file_index(
    id: u32,
    strings: &HashMap<u32, String>,
    files: &mut Vec<SourceFile>,
    file_of: &mut HashMap<u32, u32>,
) -> Option<u32> {
    if let Some(&f) = file_of.get(&id) {
        return Some(f);
    }
    let name = strings.get(&id)?.clone();
    files.push(SourceFile {
        name,
        text: None,
        line_offset: 0,
    });
    let f = files.len() as u32 - 1;
    file_of.insert(id, f);
    Some(f)
}

/// Instructions from `at` on are at `line` of `file` (or, with [`NO_FILE`], nowhere).
fn set_span(spans: &mut Vec<(u32, u32, u32)>, at: u32, file: u32, line: u32) {
    match spans.last_mut() {
        Some(s) if s.0 == at => *s = (at, file, line),
        Some(s) if (s.1, s.2) == (file, line) => {}
        None if file == NO_FILE => {}
        _ => spans.push((at, file, line)),
    }
}
