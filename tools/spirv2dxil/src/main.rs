//! `spirv2dxil`: turns the shaders of Amber scripts into DXIL with Mesa's spirv-to-dxil (the
//! `spirv-to-dxil` crate, SM 6.8) and writes a twin of each script that loads them with
//! quadstep's `SHADER … DXIL FILE` extension. quadstep's tests run each script and its twin and
//! require the same result: a second path to the same semantics for the DXIL front end.
//!
//! ```sh
//! CFLAGS=-DNDEBUG CXXFLAGS=-DNDEBUG cargo run --release -- AMBER_ROOT OUT_DIR [6.0..6.8]
//! ```
//!
//! The shader model is 6.8 unless given: below it, Mesa drops the comparison of
//! `textureGrad`/biased `texture` on shadow samplers (dxil.md §4.1), which quadstep's tests use
//! as a planted difference for `quadstep diff`.
//!
//! Each script `AMBER_ROOT/a/b.amber` gives `OUT_DIR/a/b.amber` and `OUT_DIR/a/b/<shader>.dxil`;
//! `OUT_DIR/MANIFEST.tsv` lists every script with `twin` or the reason it has none. Each
//! script converts in a child process of this program, killed after a minute (Mesa's
//! compiler grows without bound on a few shaders). A script
//! has none when it is VkScript, loads other files, or a shader of it does not go through
//! (spirv-to-dxil refuses it, it needs run-time data or specialisation, or it is not a
//! vertex, fragment or compute shader). `PASSTHROUGH` vertex shaders stay as they are.
//!
//! Built with `-DNDEBUG` (dxil.md §4.1), Mesa returns an error on SPIR-V it cannot take
//! instead of trapping.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use quadstep::amber::ast::{ShaderFormat, ShaderType};
use quadstep::amber::cts_default_version;
use quadstep::amber::run_shaders::{default_cache_dir, shader_words};
use spirv_to_dxil::{
    PushConstantBufferConfig, RuntimeConfig, RuntimeDataBufferConfig, ShaderModel, ShaderStage,
    ValidatorVersion,
};

fn scripts(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for e in entries {
        if e.is_dir() {
            scripts(&e, out);
        } else if e.extension().is_some_and(|x| x == "amber") {
            out.push(e);
        }
    }
}

/// spirv-to-dxil's stage for an Amber stage.
fn stage(t: ShaderType) -> Option<ShaderStage> {
    Some(match t {
        ShaderType::Vertex => ShaderStage::Vertex,
        ShaderType::Fragment => ShaderStage::Fragment,
        ShaderType::Compute => ShaderStage::Compute,
        _ => return None,
    })
}

/// The DXIL containers of one script's shaders (name → bytes), or why it has none.
fn convert(path: &Path, text: &str, sm: ShaderModel) -> Result<BTreeMap<String, Vec<u8>>, String> {
    if quadstep::amber::is_vkscript(text) {
        return Err("VkScript".into());
    }
    let script = quadstep::amber::parse(text, path).map_err(|e| format!("parse: {e}"))?;
    // shader name -> (stage, entry point) as the pipelines attach it
    let mut used: BTreeMap<String, (ShaderType, String)> = BTreeMap::new();
    for p in script.pipelines() {
        for a in &p.shaders {
            if !a.specializations.is_empty() || !a.optimizations.is_empty() {
                return Err("specialisation constants or spirv-opt passes".into());
            }
            let prev = used.insert(a.shader.clone(), (a.stage, a.entry_point.clone()));
            if prev.is_some_and(|p| p != (a.stage, a.entry_point.clone())) {
                return Err(format!("shader {} attached twice differently", a.shader));
            }
        }
    }
    let cache = default_cache_dir();
    let mut out = BTreeMap::new();
    for (name, (st, entry)) in used {
        let decl = script
            .shader(&name)
            .ok_or_else(|| format!("no shader {name}"))?;
        if decl.format == ShaderFormat::Passthrough {
            continue;
        }
        let stage = stage(st).ok_or_else(|| format!("{} shader", st.keyword()))?;
        let words = shader_words(decl, st, &entry, cts_default_version(path), &cache)
            .map_err(|e| format!("SPIR-V of {name}: {e}"))?;
        let conf = RuntimeConfig {
            runtime_data_cbv: RuntimeDataBufferConfig {
                register_space: 31,
                base_shader_register: 0,
            },
            push_constant_cbv: PushConstantBufferConfig {
                register_space: 31,
                base_shader_register: 1,
            },
            shader_model_max: sm,
            ..RuntimeConfig::default()
        };
        let obj = spirv_to_dxil::spirv_to_dxil(
            &words,
            None,
            &entry,
            stage,
            ValidatorVersion::None,
            &conf,
        )
        .map_err(|e| format!("spirv-to-dxil on {name}: {}", one_line(&e.to_string())))?;
        if obj.requires_runtime_data() {
            return Err(format!("{name} needs run-time data"));
        }
        out.insert(name, obj.to_vec());
    }
    if out.is_empty() {
        return Err("no shader to convert".into());
    }
    Ok(out)
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The script's text with each converted `SHADER` block replaced by a `DXIL FILE` line.
fn twin_text(text: &str, dir_name: &str, converted: &BTreeMap<String, Vec<u8>>) -> Result<String, String> {
    let mut out = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.first() == Some(&"SHADER") && words.len() >= 4 && converted.contains_key(words[2]) {
            if words.iter().any(|w| *w == "FILE" || *w == "VIRTUAL_FILE") {
                return Err("a SHADER loaded with FILE".into());
            }
            // the inline source runs to a line that is just END
            for l in lines.by_ref() {
                if l.trim() == "END" {
                    break;
                }
            }
            writeln!(out, "SHADER {} {} DXIL FILE {dir_name}/{}.dxil", words[1], words[2], words[2])
                .expect("writing to a String");
            continue;
        }
        if words.contains(&"FILE") {
            return Err("loads a file".into());
        }
        out.push_str(line);
        out.push('\n');
    }
    Ok(out)
}

/// Converts one script and writes its twin; the result line for the manifest.
fn one(root: &Path, out_dir: &Path, rel: &Path, sm: ShaderModel) -> Result<(), String> {
    let path = root.join(rel);
    let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
    let stem = rel
        .file_stem()
        .map_or("x".into(), |s| s.to_string_lossy().into_owned());
    let containers = convert(&path, &text, sm)?;
    let twin = twin_text(&text, &stem, &containers)?;
    let twin_path = out_dir.join(rel);
    let dir = twin_path.with_extension("");
    std::fs::create_dir_all(&dir)
        .and_then(|_| std::fs::write(&twin_path, twin))
        .and_then(|_| {
            containers
                .iter()
                .try_for_each(|(n, b)| std::fs::write(dir.join(format!("{n}.dxil")), b))
        })
        .map_err(|e| format!("writing {}: {e}", twin_path.display()))
}

fn shader_model(sm: &str) -> Option<ShaderModel> {
    Some(match sm {
        "6.0" => ShaderModel::ShaderModel6_0,
        "6.1" => ShaderModel::ShaderModel6_1,
        "6.2" => ShaderModel::ShaderModel6_2,
        "6.3" => ShaderModel::ShaderModel6_3,
        "6.4" => ShaderModel::ShaderModel6_4,
        "6.5" => ShaderModel::ShaderModel6_5,
        "6.6" => ShaderModel::ShaderModel6_6,
        "6.7" => ShaderModel::ShaderModel6_7,
        "6.8" => ShaderModel::ShaderModel6_8,
        _ => return None,
    })
}

/// How long one script's conversion may take: Mesa grows without bound on a few shaders.
const SCRIPT_TIME: Duration = Duration::from_secs(60);

/// Runs `--one` for a script in a child process, killed after [`SCRIPT_TIME`].
fn in_child(root: &Path, out_dir: &Path, rel: &Path, sm: &str) -> String {
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => return format!("cannot find this program: {e}"),
    };
    let child = Command::new(exe)
        .arg("--one")
        .args([root, out_dir, rel])
        .arg(sm)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return format!("cannot start a child: {e}"),
    };
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if start.elapsed() > SCRIPT_TIME => {
                let _ = child.kill();
                let _ = child.wait();
                return format!("spirv-to-dxil did not finish in {} s", SCRIPT_TIME.as_secs());
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return format!("waiting for the child: {e}"),
        }
    }
    let mut line = String::new();
    if let Some(mut o) = child.stdout.take() {
        let _ = o.read_to_string(&mut line);
    }
    match line.trim() {
        "" => "the conversion crashed".into(),
        l => l.to_string(),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if let [_, flag, root, out, rel, sm] = &args[..] {
        if flag == "--one" {
            let Some(sm) = shader_model(sm) else {
                return ExitCode::from(2);
            };
            match one(Path::new(root), Path::new(out), Path::new(rel), sm) {
                Ok(()) => println!("twin"),
                Err(why) => println!("{}", one_line(&why)),
            }
            return ExitCode::SUCCESS;
        }
    }
    let (root, out_dir, sm) = match &args[..] {
        [_, root, out] => (root, out, "6.8"),
        [_, root, out, sm] => (root, out, sm.as_str()),
        _ => {
            eprintln!("usage: spirv2dxil AMBER_ROOT OUT_DIR [SHADER_MODEL]");
            return ExitCode::from(2);
        }
    };
    if shader_model(sm).is_none() {
        eprintln!("spirv2dxil: shader model {sm}: give 6.0 … 6.8");
        return ExitCode::from(2);
    }
    let (root, out_dir) = (PathBuf::from(root), PathBuf::from(out_dir));
    let mut list = Vec::new();
    scripts(&root, &mut list);
    let mut manifest = String::from("script\tresult\n");
    let (mut made, mut skipped) = (0, 0);
    for path in &list {
        let rel = path.strip_prefix(&root).unwrap_or(path);
        let result = in_child(&root, &out_dir, rel, sm);
        eprintln!("{}: {result}", rel.display());
        if result == "twin" {
            made += 1;
        } else {
            skipped += 1;
        }
        writeln!(manifest, "{}\t{result}", rel.display()).expect("writing to a String");
    }
    if let Err(e) = std::fs::create_dir_all(&out_dir)
        .and_then(|_| std::fs::write(out_dir.join("MANIFEST.tsv"), manifest))
    {
        eprintln!("{}: {e}", out_dir.display());
        return ExitCode::FAILURE;
    }
    println!("{made} twins, {skipped} scripts without one");
    ExitCode::SUCCESS
}
