//! `quadstep inspect`'s verdicts. On the vkd3d-proton corpus (DXC-compiled and validated) every
//! container that samples must be consistent, declare the `SFI0` its `MANIFEST.tsv` lists, and
//! require exactly the flags the table gives for the dx.op classes the manifest lists.
//! Hand-made containers, real ones with bytes patched here (an `SFI0` bit, the program
//! version, the metadata shader model, a resource's component type), must break exactly the
//! rule the patch breaks.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use quadstep::front::dxil::{self, flags, inspect::Rule};

fn corpus_root() -> Option<PathBuf> {
    common::dxil_corpus_or_skip("dxil corpus").map(|(root, _)| root)
}

const SAMPLE_CLASSES: [&str; 9] = [
    "sample",
    "sampleBias",
    "sampleLevel",
    "sampleGrad",
    "sampleCmp",
    "sampleCmpLevelZero",
    "sampleCmpLevel",
    "sampleCmpGrad",
    "sampleCmpBias",
];

fn rules(bytes: &[u8]) -> BTreeSet<Rule> {
    let m = dxil::read(bytes).expect("patched container still reads");
    dxil::inspect::inspect(&m).rules()
}

#[test]
fn corpus_samplers_are_consistent_and_require_what_the_table_says() {
    let Some(root) = corpus_root() else { return };
    let manifest = std::fs::read_to_string(root.join("MANIFEST.tsv")).unwrap();
    let mut checked = 0;
    for line in manifest.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (file, sfi0, classes) = (cols[0], cols[2], cols[4]);
        let classes: BTreeSet<&str> = classes.split(' ').collect();
        if !SAMPLE_CLASSES.iter().any(|c| classes.contains(c)) {
            continue;
        }
        let sfi0 = u64::from_str_radix(sfi0.trim_start_matches("SFI0=0x"), 16).unwrap();
        let m = dxil::read(&std::fs::read(root.join(file)).unwrap()).unwrap();
        let report = dxil::inspect::inspect(&m);
        assert!(report.is_consistent(), "{file}: {:?}", report.findings);
        assert_eq!(m.container.features, Some(sfi0), "{file}");
        // The table: SampleCmpLevel (and DXC's other always-advanced ops) require
        // AdvancedTextureOps; SampleCmpGrad and SampleCmpBias require SampleCmpGradientOrBias.
        let always_advanced = ["sampleCmpLevel", "textureGatherRaw", "textureStoreSample"]
            .iter()
            .any(|c| classes.contains(c));
        let ato = &report.flags[0];
        assert_eq!(ato.flag, flags::ADVANCED_TEXTURE_OPS);
        if always_advanced {
            assert!(ato.required, "{file}");
        } else if ato.required {
            // Otherwise only a dynamic offset can require it.
            assert!(
                ato.causes
                    .iter()
                    .all(|c| c.ends_with("with a dynamic offset")),
                "{file}: {:?}",
                ato.causes
            );
        }
        let scgb = &report.flags[1];
        assert_eq!(
            scgb.required,
            classes.contains("sampleCmpGrad") || classes.contains("sampleCmpBias"),
            "{file}"
        );
        checked += 1;
    }
    eprintln!("{checked} sampling containers consistent");
    // The manifest lists 17 containers with a sample op (dxil.md §3.1's table).
    assert!(checked >= 17, "{checked}");
}

/// DXC compiled and validated every container of the corpus, so none breaks a rule.
#[test]
fn every_corpus_container_is_consistent() {
    let Some((_, files)) = common::dxil_corpus_or_skip("every_corpus_container_is_consistent")
    else {
        return;
    };
    let mut broken = Vec::new();
    for f in &files {
        let m = dxil::read(&std::fs::read(f).unwrap()).unwrap();
        let report = dxil::inspect::inspect(&m);
        if !report.is_consistent() {
            broken.push(format!("{}: {:?}", f.display(), report.findings));
        }
    }
    assert!(
        broken.is_empty(),
        "{} inconsistent:\n{}",
        broken.len(),
        broken.join("\n")
    );
}

fn load(root: &Path, rel: &str) -> Vec<u8> {
    std::fs::read(root.join(rel)).unwrap()
}

fn part_data(bytes: &[u8], fourcc: &[u8; 4]) -> usize {
    let m = dxil::read(bytes).unwrap();
    m.container
        .parts
        .iter()
        .find(|p| &p.fourcc.0 == fourcc)
        .unwrap()
        .data_offset
}

fn set_sfi0(bytes: &mut [u8], f: impl Fn(u64) -> u64) {
    let at = part_data(bytes, b"SFI0");
    let v = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
    bytes[at..at + 8].copy_from_slice(&f(v).to_le_bytes());
}

/// Sets the DXIL part's program version minor.
fn set_program_minor(bytes: &mut [u8], minor: u32) {
    let at = part_data(bytes, b"DXIL");
    let v = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    bytes[at..at + 4].copy_from_slice(&((v & !0xF) | minor).to_le_bytes());
}

/// Reads `width` bits at bit `pos` of `b` (LSB first, as the bitstream stores them).
fn bits(b: &[u8], pos: usize, width: usize) -> u64 {
    (0..width).fold(0, |v, k| {
        v | (u64::from(b[(pos + k) / 8] >> ((pos + k) % 8) & 1) << k)
    })
}

fn put_bits(b: &mut [u8], pos: usize, width: usize, value: u64) {
    for k in 0..width {
        let (byte, bit) = ((pos + k) / 8, (pos + k) % 8);
        b[byte] = (b[byte] & !(1 << bit)) | (((value >> k & 1) as u8) << bit);
    }
}

/// Rewrites an integer constant of the bitcode whose VBR encoding (signed, as LLVM stores
/// constants) is `from` into `to` of the same length, at the first place where the module
/// still reads and `accept` holds of it.
fn patch_constant(
    bytes: &mut Vec<u8>,
    from: u64,
    to: u64,
    accept: impl Fn(&dxil::DxilModule) -> bool,
) {
    let m = dxil::read(bytes).unwrap();
    let (start, len) = (
        m.container.program.bitcode_offset,
        m.container.program.bitcode_size,
    );
    // VBR8 chunks: 7 payload bits and a continuation bit.
    let chunks = |v: u64| {
        let mut out = Vec::new();
        let mut v = v << 1; // sign rotation of a non-negative value
        loop {
            let more = v >= 128;
            out.push((v & 127) | if more { 128 } else { 0 });
            v >>= 7;
            if !more {
                return out;
            }
        }
    };
    let (a, b) = (chunks(from), chunks(to));
    assert_eq!(a.len(), b.len());
    let width = 8 * a.len();
    let pack = |c: &[u64]| {
        c.iter()
            .enumerate()
            .fold(0u64, |v, (i, x)| v | x << (8 * i))
    };
    let (pa, pb) = (pack(&a), pack(&b));
    for pos in 32..len * 8 - width {
        if bits(&bytes[start..start + len], pos, width) != pa {
            continue;
        }
        let mut candidate = bytes.clone();
        put_bits(&mut candidate[start..start + len], pos, width, pb);
        if let Ok(m) = dxil::read(&candidate) {
            if accept(&m) {
                *bytes = candidate;
                return;
            }
        }
    }
    panic!("no constant {from} found to patch");
}

#[test]
fn a_missing_flag_is_found() {
    let Some(root) = corpus_root() else { return };
    let mut level = load(&root, "sm_advanced/cs_sample_cmp_level.dxil");
    assert!(rules(&level).is_empty());
    set_sfi0(&mut level, |v| {
        v & !flags::ADVANCED_TEXTURE_OPS.feature_mask()
    });
    assert_eq!(rules(&level), BTreeSet::from([Rule::FlagMissing]));

    let mut grad_bias = load(&root, "sm_advanced/ps_sample_cmp_grad_bias.dxil");
    assert!(rules(&grad_bias).is_empty());
    set_sfi0(&mut grad_bias, |v| {
        v & !flags::SAMPLE_CMP_GRADIENT_OR_BIAS.feature_mask()
    });
    assert_eq!(rules(&grad_bias), BTreeSet::from([Rule::FlagMissing]));
}

#[test]
fn a_flag_without_cause_is_found() {
    let Some(root) = corpus_root() else { return };
    // Plain Sample with constant offsets: neither flag is required.
    let plain = load(&root, "sm_advanced/cs_derivative_2d_aligned.dxil");
    assert!(rules(&plain).is_empty());
    for flag in [
        flags::ADVANCED_TEXTURE_OPS,
        flags::SAMPLE_CMP_GRADIENT_OR_BIAS,
    ] {
        let mut b = plain.clone();
        set_sfi0(&mut b, |v| v | flag.feature_mask());
        assert_eq!(
            rules(&b),
            BTreeSet::from([Rule::FlagWithoutCause]),
            "{}",
            flag.name
        );
    }
    // SampleCmpLevel requires AdvancedTextureOps but not SampleCmpGradientOrBias.
    let mut level = load(&root, "sm_advanced/cs_sample_cmp_level.dxil");
    set_sfi0(&mut level, |v| {
        v | flags::SAMPLE_CMP_GRADIENT_OR_BIAS.feature_mask()
    });
    assert_eq!(rules(&level), BTreeSet::from([Rule::FlagWithoutCause]));
}

#[test]
fn a_program_version_that_disagrees_is_found() {
    let Some(root) = corpus_root() else { return };
    let mut level = load(&root, "sm_advanced/cs_sample_cmp_level.dxil");
    set_program_minor(&mut level, 6);
    assert_eq!(
        rules(&level),
        BTreeSet::from([Rule::ProgramVersionMismatch])
    );
}

#[test]
fn an_op_below_its_shader_model_is_found() {
    let Some(root) = corpus_root() else { return };
    // cs_6_7 → cs_6_6: SampleCmpLevel needs 6.7.
    let mut level = load(&root, "sm_advanced/cs_sample_cmp_level.dxil");
    patch_constant(&mut level, 7, 6, |m| m.shader.shader_model.minor == 6);
    set_program_minor(&mut level, 6);
    assert_eq!(rules(&level), BTreeSet::from([Rule::OpBelowShaderModel]));
    // ps_6_8 → ps_6_7: SampleCmpGrad and SampleCmpBias need 6.8.
    let mut grad_bias = load(&root, "sm_advanced/ps_sample_cmp_grad_bias.dxil");
    patch_constant(&mut grad_bias, 8, 7, |m| m.shader.shader_model.minor == 7);
    set_program_minor(&mut grad_bias, 7);
    let m = dxil::read(&grad_bias).unwrap();
    let report = dxil::inspect::inspect(&m);
    assert_eq!(report.rules(), BTreeSet::from([Rule::OpBelowShaderModel]));
    assert_eq!(report.findings.len(), 2, "{:?}", report.findings);
}

#[test]
fn comparison_sampling_of_an_integer_texture_is_found() {
    let Some(root) = corpus_root() else { return };
    // The texture's annotated properties { i32 2, i32 265 }: Texture2D of F32 (9) → of I32 (4).
    let mut grad_bias = load(&root, "sm_advanced/ps_sample_cmp_grad_bias.dxil");
    patch_constant(&mut grad_bias, 265, 260, |m| {
        m.module
            .constants
            .iter()
            .any(|c| matches!(c.kind, dxil::module::ConstKind::Int(260)))
    });
    assert_eq!(
        rules(&grad_bias),
        BTreeSet::from([Rule::ComparisonResource])
    );
}
