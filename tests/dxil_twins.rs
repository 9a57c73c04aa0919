//! The second path to the same semantics: Amber corpus scripts and their DXIL twins.
//!
//! `tools/spirv2dxil` turned the shaders of the corpus's scripts into DXIL once (glslang →
//! SPIR-V → Mesa's spirv-to-dxil at SM 6.8) and wrote a twin of each script that loads them
//! with `SHADER … DXIL FILE` (`tests/data/dxil_twins/`, with `MANIFEST.tsv` saying which
//! scripts have a twin and why the others have none). This test runs every script both ways
//! and requires the same outcome and the same final buffers and attachments, bit for bit,
//! for the scripts of `tests/data/dxil_twins/agree.txt` (the list only grows); it prints how
//! many twins agree in all.
//!
//! Both ways run under Vulkan's texture rules: the twin is a translation of Vulkan SPIR-V,
//! so Vulkan's meaning is the one both must have (a DXIL shader's default, D3D, is for DXIL
//! written for D3D).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use quadstep::amber::{run_file, RunOptions};
use quadstep::texture::Policy;

mod common;

fn twins_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/dxil_twins")
}

#[test]
fn corpus_scripts_and_their_dxil_twins_agree() {
    let Some(corpus) = common::amber_dir_or_skip("dxil twins") else {
        return;
    };
    let dir = twins_dir();
    let Ok(manifest) = std::fs::read_to_string(dir.join("MANIFEST.tsv")) else {
        eprintln!(
            "dxil twins: skipped: no {}",
            dir.join("MANIFEST.tsv").display()
        );
        return;
    };
    let must: BTreeSet<String> = std::fs::read_to_string(dir.join("agree.txt"))
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect();
    let opts = RunOptions {
        keep_images: true,
        policy: Some(Policy::Vulkan),
        ..RunOptions::default()
    };
    let (mut twins, mut agree) = (0, 0);
    let mut broken = Vec::new();
    let mut agreeing = Vec::new();
    for line in manifest.lines().skip(1) {
        let Some((script, result)) = line.split_once('\t') else {
            continue;
        };
        if result != "twin" {
            continue;
        }
        twins += 1;
        let a = run_file(&corpus.join(script), &opts);
        let b = run_file(&dir.join(script), &opts);
        let report = quadstep::diff::compare_results(&a, &b, 3);
        let same = a.status == b.status && report.differing == 0 && report.notes.is_empty();
        if same {
            agree += 1;
            agreeing.push(script.to_string());
        } else if must.contains(script) {
            broken.push(format!(
                "{script}: {} / {} {:?} {:?}",
                a.status.word(),
                b.status.word(),
                report.notes,
                report.first
            ));
        } else {
            println!(
                "differs: {script}: SPIR-V {}, DXIL {}{}",
                a.status.word(),
                b.status.word(),
                match b.status.detail() {
                    "" => String::new(),
                    d => format!(" ({})", d.split_whitespace().collect::<Vec<_>>().join(" ")),
                }
            );
        }
    }
    println!("{agree} of {twins} twins agree with their SPIR-V scripts");
    if std::env::var_os("QUADSTEP_WRITE_AGREE").is_some() {
        std::fs::write(dir.join("agree.txt"), agreeing.join("\n") + "\n").expect("write");
    }
    assert!(
        broken.is_empty(),
        "twins that agreed no longer do:\n{}",
        broken.join("\n")
    );
}
