//! quadstep's SPIR-V assembler/disassembler against the SPIRV-Tools oracle (`spirv-as`,
//! `spirv-dis`) on every `SPIRV-ASM` shader block of the Amber scripts in shared/amber.
//! Skips (with a message) when the tools or the scripts are absent.

use quadstep::front::spvasm::{
    assemble, assemble_preserving_ids, assemble_with, disassemble, target_env_version,
};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;

struct Block {
    name: String,
    stage: String,
    env: String,
    text: String,
}

mod common;

use common::tools::{self, Tool};

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|e| e == "amber") {
            out.push(p);
        }
    }
}

/// Every `SHADER <type> <name> SPIRV-ASM [TARGET_ENV env]` ... `END` block under cts/** and
/// cases/*.
fn blocks(root: &Path) -> Vec<Block> {
    blocks_of(root, "SPIRV-ASM")
}

/// Every shader block of the given language (`SPIRV-ASM`, `GLSL`).
fn blocks_of(root: &Path, lang: &str) -> Vec<Block> {
    let mut files = Vec::new();
    walk(&root.join("cts"), &mut files);
    walk(&root.join("cases"), &mut files);
    let mut out = Vec::new();
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        let lines: Vec<&str> = text.lines().collect();
        let mut i = 0;
        while i < lines.len() {
            let w: Vec<&str> = lines[i].split_whitespace().collect();
            if w.len() >= 4 && w[0] == "SHADER" && w[3] == lang {
                let env = w
                    .iter()
                    .position(|&x| x == "TARGET_ENV")
                    .and_then(|p| w.get(p + 1))
                    .unwrap_or(&"spv1.0")
                    .to_string();
                let start = i + 1;
                let mut j = start;
                while j < lines.len() && lines[j].trim() != "END" {
                    j += 1;
                }
                let name = format!(
                    "{}:{} ({})",
                    f.strip_prefix(root).unwrap_or(&f).display(),
                    start + 1,
                    w[2]
                );
                out.push(Block {
                    name,
                    stage: w[1].to_string(),
                    env,
                    text: lines[start..j.min(lines.len())].join("\n") + "\n",
                });
                i = j;
            }
            i += 1;
        }
    }
    out
}

/// Runs `spirv-as --target-env env` on `text`; `None` if it rejects it.
fn spirv_as(text: &str, env: &str) -> Option<Vec<u32>> {
    spirv_as_args(text, env, &[])
}

fn spirv_as_args(text: &str, env: &str, extra: &[&str]) -> Option<Vec<u32>> {
    let args = [extra, &["--target-env", env]].concat();
    let bytes = Tool::SpirvAs.compile(&args, "spvasm", text).ok()?;
    Some(tools::words(&bytes))
}

fn spirv_dis(words: &[u32]) -> String {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let mut child = Tool::SpirvDis
        .command()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(
        o.status.success(),
        "spirv-dis failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// Equal except the generator word (spirv-as writes the Khronos assembler's id 0x70000, we 0).
fn same(a: &[u32], b: &[u32]) -> Result<(), String> {
    if a.len() != b.len() {
        return Err(format!("lengths {} vs {}", a.len(), b.len()));
    }
    match (0..a.len()).find(|&i| i != 2 && a[i] != b[i]) {
        Some(i) => Err(format!("word {i}: {:#010x} vs {:#010x}", a[i], b[i])),
        None => Ok(()),
    }
}

/// The corpus's `SPIRV-ASM` blocks, or `None` (after the skip message) without the corpus or
/// SPIRV-Tools.
fn setup() -> Option<Vec<Block>> {
    let root = common::amber_dir_or_skip("spvasm_oracle")?;
    tools::have("spvasm_oracle", &[Tool::SpirvAs, Tool::SpirvDis]).then(|| blocks(&root))
}

#[test]
fn amber_blocks_match_spirv_as() {
    let Some(blocks) = setup() else {
        return;
    };
    let mut matched = 0;
    let mut fails = Vec::new();
    for b in &blocks {
        let version = target_env_version(&b.env).unwrap_or((1, 0));
        let oracle = spirv_as(&b.text, &b.env).expect("spirv-as rejects a corpus block");
        match assemble_with(&b.text, &b.name, version) {
            Ok(ours) => match same(&ours, &oracle) {
                Ok(()) => matched += 1,
                Err(e) => fails.push(format!("{}: {e}", b.name)),
            },
            Err(e) => fails.push(format!("{}: {e}", b.name)),
        }
    }
    println!(
        "spvasm: {matched} of {} SPIRV-ASM blocks match spirv-as word for word",
        blocks.len()
    );
    for f in fails.iter().take(20) {
        println!("  MISMATCH {f}");
    }
    assert!(
        blocks.len() > 100,
        "expected hundreds of SPIRV-ASM blocks, found {}",
        blocks.len()
    );
    assert!(
        fails.is_empty(),
        "{} blocks differ from spirv-as",
        fails.len()
    );
}

/// Our disassembly, fed to spirv-as, gives our words back; spirv-dis's text (friendly names,
/// its float format), fed to us, gives what spirv-as makes of it.
#[test]
fn disassembly_agrees_with_spirv_tools() {
    let Some(blocks) = setup() else {
        return;
    };
    let mut checked = 0;
    for b in blocks.iter().step_by(3) {
        let version = target_env_version(&b.env).unwrap_or((1, 0));
        let env = format!("spv{}.{}", version.0, version.1);
        let ours = assemble_with(&b.text, &b.name, version).unwrap();
        let text = disassemble(&ours).unwrap();
        let back = spirv_as(&text, &env)
            .unwrap_or_else(|| panic!("spirv-as rejects our disassembly of {}:\n{text}", b.name));
        same(&back, &ours)
            .unwrap_or_else(|e| panic!("{}: spirv-as(disassemble(x)) != x: {e}", b.name));
        let dis = spirv_dis(&ours);
        let theirs = spirv_as(&dis, &env).unwrap();
        let mine = assemble_with(&dis, "spirv-dis output", version).unwrap();
        same(&mine, &theirs)
            .unwrap_or_else(|e| panic!("{}: assembling spirv-dis text: {e}", b.name));
        checked += 1;
    }
    println!("spvasm: {checked} blocks checked against spirv-as/spirv-dis through disassembly");
}

/// disassemble(assemble(x)) reassembles to the same words, for every block (no tools needed
/// beyond the corpus).
#[test]
fn amber_blocks_round_trip() {
    let Some(root) = common::amber_dir_or_skip("spvasm_oracle") else {
        return;
    };
    let blocks = blocks(&root);
    for b in &blocks {
        let version = target_env_version(&b.env).unwrap_or((1, 0));
        let words = assemble_with(&b.text, &b.name, version).unwrap();
        let text = disassemble(&words).unwrap();
        let again =
            assemble(&text, "round trip").unwrap_or_else(|e| panic!("{}: {e}\n{text}", b.name));
        assert_eq!(again, words, "{}: round trip changed the words", b.name);
    }
    println!("spvasm: {} blocks round-trip", blocks.len());
}

/// With `--preserve-numeric-ids` (numeric ids kept, named ids filling the gaps) on every block,
/// and back through our disassembler: ids in any order survive the round trip exactly.
#[test]
fn amber_blocks_match_spirv_as_preserving_ids() {
    let Some(blocks) = setup() else {
        return;
    };
    let mut fails = Vec::new();
    for b in &blocks {
        let version = target_env_version(&b.env).unwrap_or((1, 0));
        let oracle = spirv_as_args(&b.text, &b.env, &["--preserve-numeric-ids"]).unwrap();
        let ours = match assemble_preserving_ids(&b.text, &b.name, Some(version)) {
            Ok(w) => w,
            Err(e) => {
                fails.push(format!("{}: {e}", b.name));
                continue;
            }
        };
        if let Err(e) = same(&ours, &oracle) {
            fails.push(format!("{}: {e}", b.name));
            continue;
        }
        let text = disassemble(&oracle).unwrap();
        let back = assemble_preserving_ids(&text, "round trip", None).unwrap();
        same(&back, &oracle)
            .unwrap_or_else(|e| panic!("{}: round trip of spirv-as output: {e}", b.name));
    }
    println!(
        "spvasm: {} of {} SPIRV-ASM blocks match spirv-as --preserve-numeric-ids",
        blocks.len() - fails.len(),
        blocks.len()
    );
    for f in fails.iter().take(20) {
        println!("  MISMATCH {f}");
    }
    assert!(fails.is_empty(), "{} blocks differ", fails.len());
}

/// A hand-written tour of what the Amber corpus rarely uses (64-bit OpSwitch literals,
/// OpSpecConstantOp, enumerant parameters, image operands with ids, halves, doubles, escapes,
/// operands split across lines) against spirv-as, then through our disassembler and back.
#[test]
fn feature_tour_matches_spirv_as() {
    if !tools::have("spvasm_oracle", &[Tool::SpirvAs, Tool::SpirvDis]) {
        return;
    }
    let text = include_str!("spvasm_tour.spvasm");
    let oracle = spirv_as(text, "spv1.4").expect("spirv-as rejects the tour");
    let ours = assemble(text, "spvasm_tour.spvasm").unwrap();
    assert_eq!(
        ours[1], 0x0001_0400,
        "version from the `; Version: 1.4` header comment"
    );
    same(&ours, &oracle).unwrap();
    let dis = disassemble(&ours).unwrap();
    same(&assemble(&dis, "tour round trip").unwrap(), &oracle).unwrap();
    same(&spirv_as(&dis, "spv1.4").unwrap(), &oracle).unwrap();
    let theirs = spirv_dis(&oracle);
    same(
        &assemble_with(&theirs, "spirv-dis tour", (1, 4)).unwrap(),
        &spirv_as(&theirs, "spv1.4").unwrap(),
    )
    .unwrap();
}

/// Differential fuzz: token-level mutations of the tour (numbers, dropped / swapped / inserted
/// tokens). Whenever spirv-as and we both accept, the words must agree; where only one side
/// accepts it must be one of our deliberate differences: we reject an id defined twice and an
/// OpPhi with a missing half of a pair (spirv-as leaves both to the validator), and we accept
/// numbers for enumerants (so unknown enumerant values disassemble and read back).
#[test]
fn mutations_agree_with_spirv_as() {
    if !tools::have("spvasm_oracle", &[Tool::SpirvAs]) {
        return;
    }
    const LITERALS: &[&str] = &[
        "-1",
        "0x10",
        "1.5",
        "-0x1p-3",
        "4294967296",
        "010",
        "+3",
        "1e5",
        "0",
        "-0",
        "65536",
        "0x7FFFFFFF",
        "-2147483648",
        "2147483648",
        "0x1.fffffep+127",
        "0x1.ffffffp+127",
        "3.4028235e38",
        "3.4028236e38",
        "1e-46",
        "-1e-45",
        "65504",
        "65520",
        "0x1p-25",
        "-0x1.8p+1024",
        "1.7976931348623157e308",
        "0x8000000000000000",
        "-9223372036854775808",
        "-9223372036854775809",
        "18446744073709551616",
        "0xFFFF",
        "-32768",
        "-32769",
        "127",
        "-129",
        "0x",
        "08",
        "0x1.p3",
        ".5",
        "5.",
        "1e",
        "1.5e+3",
        "0.000001",
        "-0.0",
        "0x1.8",
        "0X10",
        "0x1P-3",
        "1.0007",
        "9e-8",
        "\"s\\\"\"",
        "Lod",
        "None",
    ];
    let tour = include_str!("spvasm_tour.spvasm");
    let toks: Vec<&str> = tour.split_whitespace().collect();
    let mut rng = fastrand::Rng::with_seed(7);
    let (mut both, mut disagree) = (0, Vec::new());
    for it in 0..800 {
        let mut lines: Vec<String> = tour.lines().map(str::to_string).collect();
        {
            // Mostly lines with numbers: the literal rules are where assemblers differ.
            let mut l = rng.usize(..lines.len());
            for _ in 0..8 {
                if lines[l]
                    .split_whitespace()
                    .any(|w| w.starts_with(|c: char| c.is_ascii_digit()))
                {
                    break;
                }
                l = rng.usize(..lines.len());
            }
            let mut w: Vec<String> = lines[l].split_whitespace().map(str::to_string).collect();
            if w.is_empty() {
                continue;
            }
            let numeric: Vec<usize> = (0..w.len())
                .filter(|&i| w[i].starts_with(|c: char| c.is_ascii_digit() || c == '-'))
                .collect();
            let i = rng.usize(..w.len());
            match rng.usize(..6) {
                0 => drop(w.remove(i)),
                1 => w.insert(i, toks[rng.usize(..toks.len())].to_string()),
                2 => w[i] = toks[rng.usize(..toks.len())].to_string(),
                3 => w[i] = LITERALS[rng.usize(..LITERALS.len())].to_string(),
                _ if numeric.is_empty() => {}
                _ => {
                    w[numeric[rng.usize(..numeric.len())]] =
                        LITERALS[rng.usize(..LITERALS.len())].to_string()
                }
            }
            lines[l] = w.join(" ");
        }
        let text = lines.join("\n");
        let theirs = spirv_as(&text, "spv1.4");
        let ours = assemble_with(&text, "mutant", (1, 4));
        match (theirs, ours) {
            (Some(t), Ok(u)) => {
                same(&u, &t)
                    .unwrap_or_else(|e| panic!("mutant {it} differs from spirv-as: {e}\n{text}"));
                both += 1;
            }
            (Some(_), Err(e)) => {
                let m = e.to_string();
                if !(m.contains("defined twice") || m.contains("OpPhi is missing")) {
                    disagree.push(format!("mutant {it}: only spirv-as accepts; we say {m}"));
                }
            }
            (None, Ok(_)) => {
                // Our leniency: a number where spirv-as wants an enumerant name.
                let numeric_enum = lines.iter().zip(tour.lines()).any(|(a, b)| {
                    a != b
                        && a.split_whitespace()
                            .any(|w| w.parse::<i64>().is_ok() || w.starts_with("0x"))
                });
                if !numeric_enum {
                    disagree.push(format!("mutant {it}: only we accept\n{text}"));
                }
            }
            (None, Err(_)) => {}
        }
    }
    println!("spvasm: {both} of 800 mutants accepted by both and identical");
    for d in disagree.iter().take(10) {
        println!("  {d}");
    }
    assert!(both > 80, "too few mutants accepted by both ({both})");
    assert!(
        disagree.is_empty(),
        "{} unexplained disagreements with spirv-as",
        disagree.len()
    );
}

/// Real compiler output, with ids in no particular order and debug info (OpLine, OpSource text,
/// NonSemantic.Shader.DebugInfo.100): the Amber GLSL blocks compiled by glslang. Our
/// disassembly must come back to the same words (with numeric ids kept), and spirv-as must read
/// it to the same words too.
#[test]
fn glslang_binaries_round_trip() {
    let Some(root) = common::amber_dir_or_skip("spvasm_oracle") else {
        return;
    };
    if !tools::have("spvasm_oracle", &[Tool::Glslang, Tool::SpirvAs]) {
        return;
    }
    let mut done = 0;
    for (n, b) in blocks_of(&root, "GLSL").iter().enumerate().step_by(8) {
        let ext = match b.stage.as_str() {
            "vertex" => "vert",
            "fragment" => "frag",
            "compute" => "comp",
            "geometry" => "geom",
            "tessellation_control" => "tesc",
            "tessellation_evaluation" => "tese",
            _ => continue,
        };
        let debug = if n % 16 == 0 { "-gVS" } else { "-g" };
        let Ok(bytes) = Tool::Glslang.compile(&["-V", debug], ext, &b.text) else {
            continue; // not every block is standalone GLSL glslang accepts
        };
        let words = tools::words(&bytes);
        let text = disassemble(&words).unwrap_or_else(|e| panic!("{}: {e}", b.name));
        let back = assemble_preserving_ids(&text, &b.name, None)
            .unwrap_or_else(|e| panic!("{}: {e}", b.name));
        same(&back, &words).unwrap_or_else(|e| panic!("{}: round trip: {e}\n{text}", b.name));
        let version = (words[1] >> 16, words[1] >> 8 & 0xff);
        let env = format!("spv{}.{}", version.0, version.1);
        let theirs = spirv_as_args(&text, &env, &["--preserve-numeric-ids"])
            .unwrap_or_else(|| panic!("{}: spirv-as rejects our disassembly", b.name));
        same(&theirs, &words)
            .unwrap_or_else(|e| panic!("{}: spirv-as reads our text differently: {e}", b.name));
        done += 1;
    }
    println!("spvasm: {done} glslang-compiled GLSL blocks round-trip through our text");
    assert!(done > 20, "too few GLSL blocks compiled ({done})");
}
