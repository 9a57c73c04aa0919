//! What the IR's `Source { offset }` markers point at: for each SPIR-V instruction (keyed by
//! its word offset), the disassembler's text with `OpName`s in place of numeric ids, its
//! result's name, the named variables it writes, and its `OpLine` position with the source
//! line's text when the module embeds its source (`glslangValidator -g`). For a DXIL shader
//! (markers hold the instruction's number in its function), each instruction's LLVM text as
//! `quadstep dis` prints it, and its result's slot name.
//!
//! Built from the module's words alone, after the fact, so the front end and the
//! interpreter carry no debug information: the trace names each step by looking its marker
//! up here. "Writes" is a SPIR-V def-use fact, not the optimiser's: a value stored into a
//! variable (`%57 = OpFAdd …; OpStore %P %57`) writes `P` even when the optimiser folded the
//! store into the add, so `--watch P` finds it either way.

use std::collections::{BTreeMap, HashMap};

use crate::front::spvasm;
use crate::Result;

/// One SPIR-V instruction as the trace shows it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ListedInst {
    /// Word offset of the instruction in the module.
    pub offset: u32,
    /// The opcode (`OpKill` is 252).
    pub opcode: u32,
    /// `%name = OpFoo %a %b` with names where the module gives them.
    pub text: String,
    /// Its result id, and the result's name.
    pub result: Option<u32>,
    pub name: Option<String>,
    /// Named values it writes: its result's name, the variables its result is stored into,
    /// and for a store, the variable stored to.
    pub writes: Vec<String>,
    /// `file:line` of the `OpLine` in force, and that line of the embedded source.
    pub line: Option<SourceLine>,
}

/// A position in the shader's source.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SourceLine {
    pub file: String,
    pub line: u32,
    /// The line's text, when the module embeds the source (`OpSource` with text).
    pub text: Option<String>,
}

/// Every instruction of a module, by word offset.
#[derive(Clone, Debug, Default)]
pub struct Listing {
    insts: BTreeMap<u32, ListedInst>,
}

const OP_SOURCE_CONTINUED: u32 = 2;
const OP_SOURCE: u32 = 3;
const OP_NAME: u32 = 5;
const OP_STRING: u32 = 7;
const OP_LINE: u32 = 8;
const OP_FUNCTION_END: u32 = 56;
const OP_VARIABLE: u32 = 59;
const OP_STORE: u32 = 62;
const OP_ACCESS_CHAIN: u32 = 65;
const OP_IN_BOUNDS_ACCESS_CHAIN: u32 = 66;
const OP_PTR_ACCESS_CHAIN: u32 = 67;
const OP_LABEL: u32 = 248;
const OP_NO_LINE: u32 = 317;
/// Block terminators: an `OpLine` ends with its block.
const TERMINATORS: [u32; 8] = [249, 250, 251, 252, 253, 254, 255, 4416];

/// The string of literal words (nul-terminated UTF-8).
fn string(words: &[u32]) -> (String, usize) {
    let mut bytes = Vec::new();
    for (i, w) in words.iter().enumerate() {
        for b in w.to_le_bytes() {
            if b == 0 {
                return (String::from_utf8_lossy(&bytes).into_owned(), i + 1);
            }
            bytes.push(b);
        }
    }
    (String::from_utf8_lossy(&bytes).into_owned(), words.len())
}

/// The lines of an embedded source by line number, honouring `#line N` (glslang puts a
/// preamble and `#line 1` before the shader's own text).
fn numbered(text: &str) -> HashMap<u32, &str> {
    let mut out = HashMap::new();
    let mut n = 1u32;
    for l in text.lines() {
        let directive = l.trim_start().strip_prefix("#line");
        match directive.and_then(|d| d.split_whitespace().next()?.parse::<u32>().ok()) {
            Some(next) => n = next,
            None => {
                out.insert(n, l);
                n = n.saturating_add(1);
            }
        }
    }
    out
}

/// `%N` tokens of `text` replaced by `%name` where `names` has one.
fn with_names(text: &str, names: &HashMap<u32, String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..=at]);
        rest = &rest[at + 1..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let named = rest[..digits]
            .parse::<u32>()
            .ok()
            .and_then(|id| names.get(&id));
        match named {
            Some(n) => out.push_str(n),
            None => out.push_str(&rest[..digits]),
        }
        rest = &rest[digits..];
    }
    out.push_str(rest);
    out
}

/// `spirv-dis`-style names for the types and constants `OpName` leaves unnamed (`%float`,
/// `%v4float`, `%_ptr_Function_float`, `%int_3`, `%float_0_5`), so that an instruction reads
/// `OpFMul %float %x %float_2` rather than `OpFMul %6 %12 %14`.
fn friendly_names(dis: &[spvasm::DisInst], words: &[u32], names: &mut HashMap<u32, String>) {
    const STORAGE: [&str; 13] = [
        "UniformConstant",
        "Input",
        "Uniform",
        "Output",
        "Workgroup",
        "CrossWorkgroup",
        "Private",
        "Function",
        "Generic",
        "PushConstant",
        "AtomicCounter",
        "Image",
        "StorageBuffer",
    ];
    let mut taken: std::collections::HashSet<String> = names.values().cloned().collect();
    // (width, signed) of integer types and width of float types, for constants
    let mut ints: HashMap<u32, (u32, bool)> = HashMap::new();
    let mut floats: HashMap<u32, u32> = HashMap::new();
    for d in dis {
        let ops = d.operands(words);
        let name_of = |id: u32, names: &HashMap<u32, String>| names.get(&id).cloned();
        let name = match (d.opcode, ops) {
            (19, _) => Some("void".to_string()),
            (20, _) => Some("bool".to_string()),
            (21, &[r, w, s]) => {
                ints.insert(r, (w, s != 0));
                Some(match (w, s != 0) {
                    (32, false) => "uint".to_string(),
                    (32, true) => "int".to_string(),
                    (w, false) => format!("uint{w}"),
                    (w, true) => format!("int{w}"),
                })
            }
            (22, &[r, w, ..]) => {
                floats.insert(r, w);
                Some(match w {
                    16 => "half".to_string(),
                    64 => "double".to_string(),
                    _ => "float".to_string(),
                })
            }
            (23, &[_, c, n]) => name_of(c, names).map(|c| format!("v{n}{c}")),
            (24, &[_, c, n]) => name_of(c, names).map(|c| format!("mat{n}{c}")),
            (26, _) => Some("sampler".to_string()),
            (32, &[_, sc, t]) => {
                let sc = STORAGE.get(sc as usize).copied().unwrap_or("Storage");
                name_of(t, names).map(|t| format!("_ptr_{sc}_{t}"))
            }
            (41, _) => Some("true".to_string()),
            (42, _) => Some("false".to_string()),
            (43, &[t, _, lo, ..]) => {
                let hi = ops.get(3).copied().unwrap_or(0);
                let value = if let Some(&(w, signed)) = ints.get(&t) {
                    let v = if w == 64 {
                        lo as u64 | (hi as u64) << 32
                    } else {
                        lo as u64
                    };
                    Some(if signed && w <= 32 {
                        (lo as i32 as i64).to_string()
                    } else if signed {
                        (v as i64).to_string()
                    } else {
                        v.to_string()
                    })
                } else {
                    match floats.get(&t) {
                        Some(32) => Some(f32::from_bits(lo).to_string()),
                        Some(64) => Some(f64::from_bits(lo as u64 | (hi as u64) << 32).to_string()),
                        _ => None,
                    }
                };
                let value = value.filter(|v| v.len() <= 12 && !v.contains(['e', 'N', 'i']));
                match (name_of(t, names), value) {
                    (Some(t), Some(v)) => {
                        Some(format!("{t}_{}", v.replace('-', "n").replace('.', "_")))
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        let (Some(name), Some(r)) = (name, d.result) else {
            continue;
        };
        if names.contains_key(&r) {
            continue;
        }
        let mut unique = name.clone();
        let mut k = 0;
        while taken.contains(&unique) {
            unique = format!("{name}_{k}");
            k += 1;
        }
        taken.insert(unique.clone());
        names.insert(r, unique);
    }
}

impl Listing {
    /// The listing of a SPIR-V module (errors are the disassembler's: bad words).
    pub fn new(words: &[u32]) -> Result<Listing> {
        let dis = spvasm::disassemble_instructions(words)?;
        // First pass over the words: names, strings, sources, and the roots of pointers.
        let mut names: HashMap<u32, String> = HashMap::new();
        let mut strings: HashMap<u32, String> = HashMap::new();
        let mut sources: HashMap<u32, String> = HashMap::new();
        let mut last_source: Option<u32> = None;
        let mut root: HashMap<u32, u32> = HashMap::new();
        let mut stored: HashMap<u32, Vec<u32>> = HashMap::new();
        for d in &dis {
            let ops = d.operands(words);
            match d.opcode {
                OP_NAME if !ops.is_empty() => {
                    let (n, _) = string(&ops[1..]);
                    if !n.is_empty() {
                        names.insert(ops[0], n);
                    }
                }
                OP_STRING if !ops.is_empty() => {
                    strings.insert(ops[0], string(&ops[1..]).0);
                }
                OP_SOURCE if ops.len() > 3 => {
                    sources.insert(ops[2], string(&ops[3..]).0);
                    last_source = Some(ops[2]);
                }
                OP_SOURCE_CONTINUED => {
                    if let Some(text) = last_source.and_then(|f| sources.get_mut(&f)) {
                        text.push_str(&string(ops).0);
                    }
                }
                OP_VARIABLE if ops.len() > 1 => {
                    root.insert(ops[1], ops[1]);
                }
                OP_ACCESS_CHAIN | OP_IN_BOUNDS_ACCESS_CHAIN | OP_PTR_ACCESS_CHAIN
                    if ops.len() > 2 =>
                {
                    let base = root.get(&ops[2]).copied().unwrap_or(ops[2]);
                    root.insert(ops[1], base);
                }
                OP_STORE if ops.len() > 1 => {
                    let var = root.get(&ops[0]).copied().unwrap_or(ops[0]);
                    stored.entry(ops[1]).or_default().push(var);
                }
                _ => {}
            }
        }
        friendly_names(&dis, words, &mut names);
        let lines: HashMap<u32, HashMap<u32, &str>> =
            sources.iter().map(|(&f, t)| (f, numbered(t))).collect();
        let named = |id: u32| names.get(&id).cloned();
        let mut insts = BTreeMap::new();
        let mut line: Option<SourceLine> = None;
        for d in &dis {
            let ops = d.operands(words);
            match d.opcode {
                OP_LINE if ops.len() > 1 => {
                    let file = strings.get(&ops[0]).cloned().unwrap_or_default();
                    let text = lines
                        .get(&ops[0])
                        .and_then(|l| l.get(&ops[1]))
                        .map(|t| t.trim().to_string());
                    line = Some(SourceLine {
                        file,
                        line: ops[1],
                        text,
                    });
                    continue;
                }
                OP_NO_LINE | OP_LABEL | OP_FUNCTION_END => line = None,
                _ => {}
            }
            let mut writes: Vec<String> = Vec::new();
            if let Some(r) = d.result {
                writes.extend(named(r));
                for &var in stored.get(&r).into_iter().flatten() {
                    writes.extend(named(var));
                }
            }
            if d.opcode == OP_STORE {
                if let Some(&p) = ops.first() {
                    writes.extend(named(root.get(&p).copied().unwrap_or(p)));
                }
            }
            writes.dedup();
            let text = match d.result {
                Some(r) => format!("%{} = {}", named(r).unwrap_or(r.to_string()), d.text),
                None => d.text.clone(),
            };
            insts.insert(
                d.offset,
                ListedInst {
                    offset: d.offset,
                    opcode: d.opcode,
                    text: with_names(&text, &names),
                    result: d.result,
                    name: d.result.and_then(named),
                    writes,
                    line: line.clone(),
                },
            );
            if TERMINATORS.contains(&d.opcode) {
                line = None;
            }
        }
        Ok(Listing { insts })
    }

    /// The listing of the function of entry point `entry` (the first when `None`) of a DXIL
    /// container: each instruction's `llvm-dis` text by its number, what the lowering's
    /// `Source` markers hold. A result is named by its slot (`%12`), which is what it writes.
    pub fn from_dxil(bytes: &[u8], entry: Option<&str>) -> Result<Listing> {
        let dxil = crate::front::dxil::read(bytes)
            .map_err(|e| crate::Error::Unsupported(format!("DXIL container: {e}")))?;
        let function = crate::front::dxil::lower::entry_point(&dxil, entry)
            .and_then(|e| e.function)
            .ok_or_else(|| crate::Error::Unsupported("DXIL: no such entry point".into()))?;
        let insts = crate::front::dxil::print::print_instructions(&dxil.module, function)
            .into_iter()
            .map(|(offset, text)| {
                let text = text.trim().to_string();
                let name = text
                    .split_once(" = ")
                    .map(|(r, _)| r.trim_start_matches('%').to_string());
                let inst = ListedInst {
                    offset,
                    text,
                    writes: name.iter().cloned().collect(),
                    name,
                    ..ListedInst::default()
                };
                (offset, inst)
            })
            .collect();
        Ok(Listing { insts })
    }

    /// The instruction at word offset `offset`.
    pub fn get(&self, offset: u32) -> Option<&ListedInst> {
        self.insts.get(&offset)
    }

    /// The first block terminator at or after `offset` (the branch that ends the block an
    /// instruction at `offset` is in).
    pub fn terminator_after(&self, offset: u32) -> Option<&ListedInst> {
        self.insts
            .range(offset..)
            .map(|(_, i)| i)
            .find(|i| TERMINATORS.contains(&i.opcode) || i.opcode == OP_LABEL)
            .filter(|i| i.opcode != OP_LABEL)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small fragment shader in `spirv-as` text: names, a source line, a store through an
    /// access chain, and a value stored into a named variable.
    const MODULE: &str = r##"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint Fragment %main "main" %color
               OpExecutionMode %main OriginUpperLeft
          %1 = OpString "s.frag"
               OpSource GLSL 450 %1 "#version 450
void main() {
    color = vec4(2.0);
}"
               OpName %main "main"
               OpName %color "color"
               OpName %v "v"
       %void = OpTypeVoid
          %3 = OpTypeFunction %void
      %float = OpTypeFloat 32
    %v4float = OpTypeVector %float 4
%_ptr_Output_v4float = OpTypePointer Output %v4float
%_ptr_Output_float = OpTypePointer Output %float
%_ptr_Function_float = OpTypePointer Function %float
      %color = OpVariable %_ptr_Output_v4float Output
       %uint = OpTypeInt 32 0
     %uint_1 = OpConstant %uint 1
    %float_2 = OpConstant %float 2
       %main = OpFunction %void None %3
          %5 = OpLabel
          %v = OpVariable %_ptr_Function_float Function
               OpLine %1 3 0
         %20 = OpFAdd %float %float_2 %float_2
               OpStore %v %20
         %21 = OpAccessChain %_ptr_Output_float %color %uint_1
               OpStore %21 %20
               OpReturn
               OpFunctionEnd
"##;

    #[test]
    fn names_writes_and_lines() {
        let words = spvasm::assemble(MODULE, "listing test").expect("assembles");
        let l = Listing::new(&words).expect("lists");
        let all: Vec<&ListedInst> = l.insts.values().collect();
        let add = all
            .iter()
            .find(|i| i.text.contains("OpFAdd"))
            .expect("the add");
        // numeric ids where there is no name, the result stored into `v` and `color`
        assert!(
            add.text.ends_with("= OpFAdd %float %float_2 %float_2"),
            "{}",
            add.text
        );
        assert_eq!(add.writes, ["v", "color"]);
        let line = add.line.as_ref().expect("OpLine in force");
        assert_eq!((line.file.as_str(), line.line), ("s.frag", 3));
        assert_eq!(line.text.as_deref(), Some("color = vec4(2.0);"));
        // the assembler renumbers ids: the second store is the one through the access chain
        let stores: Vec<_> = all.iter().filter(|i| i.opcode == OP_STORE).collect();
        assert_eq!(stores.len(), 2);
        assert!(
            stores[0].text.starts_with("OpStore %v %"),
            "{}",
            stores[0].text
        );
        assert_eq!(stores[1].writes, ["color"]);
        // the line ends with the block
        let ret = all.iter().find(|i| i.text == "OpReturn").expect("return");
        assert!(ret.line.is_some());
        let end = all.iter().find(|i| i.text == "OpFunctionEnd").expect("end");
        assert!(end.line.is_none());
        assert_eq!(
            l.terminator_after(add.offset).map(|t| t.text.as_str()),
            Some("OpReturn")
        );
    }
}
