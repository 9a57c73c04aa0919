//! The DXIL reader on the vkd3d-proton corpus: every container reads (container, bitcode,
//! `dx.*` metadata), shader kinds that quadstep does not run included; the container digests
//! and `HASH` parts, written by DXC's validator, verify (an independent check of the
//! container layer); the metadata's shader model agrees with the manifest. Then the same containers truncated and bit-flipped at many places must read as
//! `Ok` or `Err`, never panic (the `cargo fuzz` target `fuzz/fuzz_targets/dxil_reader.rs` does
//! this with coverage guidance).

mod common;

use std::collections::BTreeMap;

use quadstep::front::dxil::{self, container::DigestCheck, shader::ShaderKind};

#[test]
fn every_corpus_container_reads() {
    let Some((root, files)) = common::dxil_corpus_or_skip("every_corpus_container_reads") else {
        return;
    };
    assert_eq!(files.len(), 334);
    let manifest = std::fs::read_to_string(root.join("MANIFEST.tsv")).unwrap();
    let profiles: BTreeMap<&str, &str> = manifest
        .lines()
        .skip(1)
        .map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            (c[0], c[1])
        })
        .collect();
    let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
    let mut signed = 0;
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let m = dxil::read(&bytes).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let rel = f
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        // The manifest's profile is the metadata's shader model.
        assert_eq!(
            m.shader.shader_model.to_string(),
            profiles[rel.as_str()],
            "{rel}"
        );
        // Digest and HASH: DXC's validator signed 333 of them; none may mismatch.
        assert!(
            !matches!(m.container.digest_check, DigestCheck::Mismatch { .. }),
            "{rel}"
        );
        signed += usize::from(m.container.digest_check == DigestCheck::Matches);
        assert_eq!(m.container.hash_matches, Some(true), "{rel}");
        // Every defined function has blocks ending in a terminator.
        for (_, func) in m.module.defined_functions() {
            assert!(!func.blocks.is_empty(), "{rel}");
            for b in &func.blocks {
                assert!(
                    func.inst(dxil::module::InstId(b.end.0 - 1)).is_terminator(),
                    "{rel}"
                );
            }
        }
        // Non-library shaders: one entry point, naming a function.
        if m.shader.shader_model.kind != ShaderKind::Library {
            assert_eq!(m.shader.entry_points.len(), 1, "{rel}");
            let e = &m.shader.entry_points[0];
            assert!(e.function.is_some(), "{rel}");
        }
        *kinds
            .entry(m.shader.shader_model.kind.name().into_owned())
            .or_default() += 1;
    }
    eprintln!("{signed} signed; kinds: {kinds:?}");
    assert!(signed >= 333);
    for kind in [
        "Pixel",
        "Vertex",
        "Compute",
        "Library",
        "Mesh",
        "Amplification",
        "Hull",
        "Domain",
        "Geometry",
    ] {
        assert!(kinds.contains_key(kind), "no {kind} shader read");
    }
}

fn exercise(bytes: &[u8]) -> bool {
    match dxil::read(bytes) {
        Ok(m) => {
            let _ = dxil::print::print_module(&m.module);
            let r = dxil::inspect::inspect(&m);
            let _ = dxil::inspect::report_text(&m, &r);
            true
        }
        Err(e) => {
            assert!(!e.to_string().is_empty());
            false
        }
    }
}

#[test]
fn truncated_and_bit_flipped_containers_never_panic() {
    let Some((_, files)) =
        common::dxil_corpus_or_skip("truncated_and_bit_flipped_containers_never_panic")
    else {
        return;
    };
    let (mut reads, mut tries) = (0usize, 0usize);
    for (k, f) in files.iter().enumerate() {
        let bytes = std::fs::read(f).unwrap();
        let mut rng = fastrand::Rng::with_seed(k as u64 + 1);
        // Truncations: every 1/48 of the file, plus a few bytes.
        for i in 0..48 {
            let len = bytes.len() * i / 48 + rng.usize(..4);
            reads += usize::from(exercise(&bytes[..len.min(bytes.len() - 1)]));
            tries += 1;
        }
        // Bit flips: one, two or eight bits, three in four of them in the bitcode.
        let m = dxil::read(&bytes).unwrap();
        let (start, len) = (
            m.container.program.bitcode_offset,
            m.container.program.bitcode_size,
        );
        for _ in 0..96 {
            let mut b = bytes.clone();
            for _ in 0..[1, 2, 8][rng.usize(..3)] {
                let at = if rng.usize(..4) == 0 {
                    rng.usize(..b.len())
                } else {
                    start + rng.usize(..len)
                };
                b[at] ^= 1 << rng.usize(..8);
            }
            reads += usize::from(exercise(&b));
            tries += 1;
        }
    }
    eprintln!("{tries} damaged containers, {reads} of them still read");
}

/// Inputs the `dxil_reader` fuzz target found (kept among its seeds, `fuzz/seeds/dxil_reader/`)
/// read as `Ok` or `Err`, never a panic: e.g. an abbreviation whose operand count, times the
/// four bits each operand takes at least, overflows.
#[test]
fn fuzz_findings_read_without_panic() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/dxil_reader");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).expect("fuzz/seeds/dxil_reader") {
        let path = entry.expect("a seed").path();
        let bytes = std::fs::read(&path).expect("a readable seed");
        let outcome = std::panic::catch_unwind(|| {
            let _ = dxil::read(&bytes);
            let _ = dxil::decode_bitcode(&bytes);
        });
        assert!(outcome.is_ok(), "{} panicked", path.display());
        n += 1;
    }
    assert!(n >= 5, "{n} seeds");
}
