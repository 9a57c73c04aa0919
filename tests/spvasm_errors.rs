//! Error messages of the SPIR-V assembler/disassembler (each names `source:line:column` or the
//! word offset, and the rule broken), and a deterministic fuzz loop: garbage, truncations and
//! mutations of valid text or words must give `Err`, never a panic; whatever assembles must
//! disassemble and come back to the same words.

use quadstep::front::spvasm::{assemble, assemble_preserving_ids, disassemble};
use quadstep::Error;

const TOUR: &str = include_str!("spvasm_tour.spvasm");

fn asm_err(text: &str) -> String {
    match assemble(text, "e.spvasm") {
        Err(Error::Spirv(m)) => m,
        other => panic!("expected a SPIR-V error for {text:?}, got {other:?}"),
    }
}

/// `(text, expected "line:col", expected phrase)`; positions counted by hand (1-based).
#[test]
fn assembler_errors_name_line_column_and_rule() {
    let cases: &[(&str, &str, &str)] = &[
        ("OpCapability Shader\nOpFrobnicate %x\n", "2:1", "unknown opcode"),
        ("OpCapability Shadr", "1:14", "unknown Capability enumerant `Shadr`"),
        ("OpMemoryModel Logical\nOpCapability Shader", "1:1", "missing its MemoryModel operand"),
        ("OpCapability Shader Matrix", "1:21", "too many operands for OpCapability"),
        ("%v = OpTypeVector 3 %f", "1:19", "expected an id"),
        ("%a = OpTypeVoid\n  %a = OpTypeBool", "2:3", "id %a is defined twice"),
        ("%i = OpTypeInt 32 0\n%c = OpConstant %i -1", "2:20", "negative number in an unsigned literal"),
        ("%i = OpTypeInt 32 1\n%c = OpConstant %i 2147483648", "2:20", "does not fit in a 32-bit signed"),
        ("%i = OpTypeInt 32 1\n%c = OpConstant %i 12x", "2:20", "invalid integer literal"),
        ("%f = OpTypeFloat 32\n%c = OpConstant %f 1e40", "2:20", "invalid 32-bit float literal"),
        ("%f = OpTypeFloat 32\n%c = OpConstant %f 1.5f", "2:20", "invalid 32-bit float literal"),
        ("OpDecorate %x Location 4294967296", "1:24", "does not fit in a 32-bit unsigned"),
        ("OpName %x \"abc", "1:11", "unterminated string literal"),
        ("OpName %x abc", "1:11", "expected a quoted string"),
        ("%x = OpCapability Shader", "1:6", "OpCapability has no result id"),
        ("OpTypeVoid", "1:1", "produces a result id"),
        ("%b = OpTypeBool\n%c = OpConstant %b 1", "2:20", "must be a scalar integer or float type"),
        (
            "%g = OpExtInstImport \"GLSL.std.450\"\n%f = OpTypeFloat 32\n%x = OpExtInst %f %g Sqrtt %x",
            "3:22",
            "unknown instruction of extended set GLSL.std.450",
        ),
        ("%y = OpExtInst %f %g Sqrt %x", "1:22", "extended instruction set unknown"),
        ("= OpNop", "1:1", "expected an opcode"),
        ("%x %y", "1:1", "expected an instruction"),
        ("OpSwitch %s %d 1 %a", "1:16", "selector must be a value of a known scalar integer type"),
        ("%i = OpTypeInt 32 1\n%s = OpSpecConstantOp %i Frob %x", "2:26", "unknown opcode for OpSpecConstantOp"),
        ("OpLoopMerge %a %b Unroll|Sideways", "1:19", "unknown LoopControl enumerant `Sideways`"),
        ("OpDecorate %x BuiltIn", "1:1", "missing its BuiltIn operand"),
        ("OpName % \"x\"", "1:8", "`%` must be followed by an id name"),
        ("%x =", "1:4", "expected an opcode after `=`"),
    ];
    for (text, pos, phrase) in cases {
        let m = asm_err(text);
        assert!(
            m.starts_with(&format!("e.spvasm:{pos}: ")),
            "{text:?}: wrong location in {m:?}"
        );
        assert!(
            m.contains(phrase),
            "{text:?}: {m:?} does not say {phrase:?}"
        );
        assert!(
            m.contains("(at `"),
            "{text:?}: {m:?} does not quote the token"
        );
    }
}

fn dis_err(words: &[u32]) -> String {
    match disassemble(words) {
        Err(Error::Spirv(m)) => m,
        other => panic!("expected a SPIR-V error for {words:x?}, got {other:?}"),
    }
}

#[test]
fn disassembler_errors_name_word_offset_and_rule() {
    let h = [0x0723_0203, 0x0001_0000, 0, 10, 0];
    let with = |tail: &[u32]| [&h[..], tail].concat();
    assert!(dis_err(&h[..3]).contains("fewer than the 5-word header"));
    assert!(dis_err(&[1, 2, 3, 4, 5]).contains("bad magic number"));
    assert!(dis_err(&[0x0302_2307, 0, 0, 0, 0]).contains("byte-swapped"));
    assert!(dis_err(&with(&[0x0000_0011])).contains("word 5: instruction word count 0 is zero"));
    assert!(
        dis_err(&with(&[0x0003_0011, 1])).contains("word 5: instruction word count 3 runs past")
    );
    assert!(dis_err(&with(&[0x0001_fff0])).contains("word 5: unknown opcode 65520"));
    // OpCapability with no operand; OpCapability with two.
    assert!(dis_err(&with(&[0x0001_0011]))
        .contains("word 5: OpCapability ends before its Capability operand"));
    assert!(dis_err(&with(&[0x0003_0011, 1, 1])).contains("1 more operand words"));
    // OpName %1 "abcd" without the terminating nul word.
    assert!(dis_err(&with(&[0x0003_0005, 1, 0x6463_6261])).contains("string's terminating nul"));
    // OpConstant whose type is not a declared scalar.
    assert!(dis_err(&with(&[0x0004_002b, 7, 2, 0]))
        .contains("not a known scalar integer or float type"));
}

/// If `text` assembles, its disassembly must come back to the same words. Returns whether it
/// assembled.
fn check(text: &str) -> bool {
    let ok = assemble(text, "fuzz").is_ok();
    if let Ok(words) = assemble(text, "fuzz") {
        let dis = disassemble(&words)
            .unwrap_or_else(|e| panic!("cannot disassemble what we assembled: {e}\n{text}"));
        let back = assemble_preserving_ids(&dis, "fuzz round trip", None)
            .unwrap_or_else(|e| panic!("cannot reassemble our disassembly: {e}\n{dis}"));
        assert_eq!(back, words, "round trip changed the words of\n{text}");
    }
    ok
}

fn char_boundary_prefixes(s: &str) -> impl Iterator<Item = &str> {
    s.char_indices().map(move |(i, _)| &s[..i])
}

#[test]
fn byte_order_mark_and_crlf_are_whitespace() {
    let plain = assemble("OpCapability Shader\nOpMemoryModel Logical GLSL450\n", "a").unwrap();
    let dos = assemble(
        "\u{feff}OpCapability Shader\r\nOpMemoryModel Logical GLSL450\r\n",
        "b",
    )
    .unwrap();
    assert_eq!(dos, plain);
    // Header, then OpCapability Shader (2 words), OpMemoryModel Logical GLSL450 (3 words); by hand.
    assert_eq!(
        plain,
        vec![
            0x0723_0203,
            0x0001_0000,
            0,
            1,
            0,
            0x0002_0011,
            1,
            0x0003_000e,
            0,
            1
        ]
    );
}

#[test]
fn truncated_text_never_panics() {
    assert!(assemble(TOUR, "tour").is_ok());
    let ok = char_boundary_prefixes(TOUR).filter(|p| check(p)).count();
    println!("{ok} of {} prefixes assemble", TOUR.chars().count());
    assert!(
        ok > 100,
        "too few prefixes assemble ({ok}) for the round trip to be exercised"
    );
}

#[test]
fn mutated_and_random_text_never_panics() {
    const PIECES: &[&str] = &[
        "%",
        "%x",
        "%1",
        " = ",
        "=",
        "\"",
        "\\",
        ";",
        "\n",
        " ",
        "|",
        "0x",
        "-",
        "+",
        "1",
        "0x1p+200",
        "-0x1.8p-140",
        "1e39",
        "99999999999999999999999",
        "Op",
        "OpSwitch",
        "OpConstant",
        "OpExtInst",
        "Sqrt",
        "None",
        "Bias|Lod",
        "LocalSize",
        "BuiltIn",
        "é",
        "\u{1F600}",
        "\t",
        "OpSpecConstantOp",
        "IAdd",
        "OpTypeInt 64 1",
        "OpTypeFloat 16",
    ];
    let mut rng = fastrand::Rng::with_seed(0x5eed);
    let lines: Vec<&str> = TOUR.lines().collect();
    let mut ok = 0;
    for _ in 0..3000 {
        let mut text: String = TOUR.to_string();
        for _ in 0..1 + rng.usize(..4) {
            let cuts: Vec<usize> = text
                .char_indices()
                .map(|(i, _)| i)
                .chain([text.len()])
                .collect();
            let a = cuts[rng.usize(..cuts.len())];
            let b = cuts[rng.usize(..cuts.len())].max(a).min(a + 40);
            let b = *cuts.iter().find(|&&c| c >= b).unwrap_or(&text.len());
            match rng.usize(..4) {
                0 => text.replace_range(a..b, ""),
                1 => text.insert_str(a, PIECES[rng.usize(..PIECES.len())]),
                2 => {
                    let l = lines[rng.usize(..lines.len())];
                    text.insert_str(a, &format!("\n{l}\n"));
                }
                _ => text.replace_range(a..b, PIECES[rng.usize(..PIECES.len())]),
            }
        }
        ok += check(&text) as usize;
    }
    println!("{ok} of 3000 mutated texts assemble");
    assert!(
        ok > 100,
        "too few mutations assemble ({ok}) for the round trip to be exercised"
    );
    // Pure garbage: random printable ASCII and pieces.
    for _ in 0..500 {
        let mut text = String::new();
        for _ in 0..rng.usize(..60) {
            if rng.bool() {
                text.push(char::from(32 + rng.usize(..95) as u8));
            } else {
                text.push_str(PIECES[rng.usize(..PIECES.len())]);
            }
        }
        check(&text);
    }
}

#[test]
fn mutated_words_never_panic() {
    let words = assemble(TOUR, "tour").unwrap();
    let mut rng = fastrand::Rng::with_seed(42);
    for n in 0..=words.len() {
        let _ = disassemble(&words[..n]);
    }
    for _ in 0..5000 {
        let mut w = words.clone();
        for _ in 0..1 + rng.usize(..3) {
            let i = 5 + rng.usize(..w.len() - 5);
            match rng.usize(..3) {
                0 => w[i] ^= 1 << rng.usize(..32),
                1 => w[i] = rng.u32(..),
                _ => w[i] = (w[i] & 0xffff) | ((rng.usize(..12) as u32) << 16),
            }
        }
        if let Ok(text) = disassemble(&w) {
            // Whatever we print must at least be read without panicking.
            let _ = assemble_preserving_ids(&text, "fuzz", None);
        }
    }
}
