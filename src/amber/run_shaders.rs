//! Turning an Amber `SHADER` into SPIR-V words: assembly through our assembler at the
//! `TARGET_ENV` version, hex and binary as given, Amber's built-in passthrough vertex shader,
//! and GLSL/HLSL through `glslangValidator` (when installed) with an on-disk cache keyed by a
//! hash of (source, language, stage, environment, entry point, debug information, glslang's
//! version), kept in the user's cache directory ([`default_cache_dir`]), never in the working
//! directory. A folder of SPIR-V compiled ahead of time ([`RunOptions::prebuilt_spirv`](super::RunOptions::prebuilt_spirv),
//! files named by [`prebuilt_name`]) serves GLSL/HLSL where it holds the shader, so scripts
//! that ship their SPIR-V (the golden scenes) run without glslang; the key leaves glslang's
//! version out, and names the source itself, so a changed shader never finds a stale file.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::ast::{Attachment, Shader, ShaderFormat, ShaderSource, ShaderType};
use crate::front::spvasm;
use crate::{Error, Result};

/// Amber's `PASSTHROUGH` vertex shader: location 0 goes to `Position`, nothing else.
pub(crate) const PASSTHROUGH_VS: &str = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint Vertex %main "main" %pos_in %out
               OpDecorate %pos_in Location 0
               OpMemberDecorate %PerVertex 0 BuiltIn Position
               OpDecorate %PerVertex Block
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
      %float = OpTypeFloat 32
    %v4float = OpTypeVector %float 4
  %PerVertex = OpTypeStruct %v4float
%ptr_out_pv = OpTypePointer Output %PerVertex
        %out = OpVariable %ptr_out_pv Output
%ptr_in_v4 = OpTypePointer Input %v4float
     %pos_in = OpVariable %ptr_in_v4 Input
        %int = OpTypeInt 32 1
      %int_0 = OpConstant %int 0
%ptr_out_v4 = OpTypePointer Output %v4float
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %p = OpLoad %v4float %pos_in
          %d = OpAccessChain %ptr_out_v4 %out %int_0
               OpStore %d %p
               OpReturn
               OpFunctionEnd
"#;

/// Where compiled GLSL/HLSL is kept between runs: `$QUADSTEP_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/quadstep`, else `~/.cache/quadstep` (the XDG default), else a folder in
/// the system's temporary directory. Relative values are ignored, as the XDG specification
/// says, so the cache never depends on the working directory.
pub fn default_cache_dir() -> PathBuf {
    let absolute = |var: &str| {
        std::env::var_os(var)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    if let Some(d) = absolute("QUADSTEP_CACHE_DIR") {
        d
    } else if let Some(d) = absolute("XDG_CACHE_HOME") {
        d.join("quadstep")
    } else if let Some(home) = absolute("HOME") {
        home.join(".cache").join("quadstep")
    } else {
        std::env::temp_dir().join("quadstep-cache")
    }
}

/// FNV-1a, 64 bits: a stable hash for cache keys and `quadstep amber --shard` (std's hasher
/// is not stable across builds).
pub fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for &b in *p {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h ^= 0xff;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

fn words_from_bytes(bytes: &[u8], what: &str) -> Result<Vec<u32>> {
    if !bytes.len().is_multiple_of(4) || bytes.len() < 20 {
        return Err(Error::Spirv(format!(
            "{what}: {} bytes is not a SPIR-V module",
            bytes.len()
        )));
    }
    let mut w: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    if w[0] == 0x0302_2307 {
        w.iter_mut().for_each(|x| *x = x.swap_bytes());
    }
    Ok(w)
}

fn hex_words(text: &str) -> Result<Vec<u32>> {
    let mut bytes = Vec::new();
    for tok in text.split_whitespace() {
        let t = tok.trim_start_matches("0x").trim_start_matches("0X");
        let v = u32::from_str_radix(t, 16)
            .map_err(|_| Error::Spirv(format!("SPIRV-HEX: `{tok}` is not a hex byte")))?;
        if v > 0xff {
            return Err(Error::Spirv(format!("SPIRV-HEX: `{tok}` is not a byte")));
        }
        bytes.push(v as u8);
    }
    words_from_bytes(&bytes, "SPIRV-HEX")
}

/// The glslang stage name.
fn glslang_stage(stage: ShaderType) -> Result<&'static str> {
    Ok(match stage {
        ShaderType::Vertex => "vert",
        ShaderType::Fragment => "frag",
        ShaderType::Compute => "comp",
        ShaderType::Geometry => "geom",
        ShaderType::TessellationControl => "tesc",
        ShaderType::TessellationEvaluation => "tese",
        other => {
            return Err(Error::Unsupported(format!(
                "{} shaders from GLSL/HLSL",
                other.keyword()
            )))
        }
    })
}

/// glslang's `--target-env` for an Amber `TARGET_ENV`.
fn glslang_env(env: Option<&str>) -> String {
    match env {
        None => "vulkan1.0".into(),
        Some(e) => match e.strip_prefix("spv") {
            Some(v) => format!("spirv{v}"),
            None => e.replace("spv", "spirv"),
        },
    }
}

/// `glslangValidator --version`'s output, once per process, or `None` when it is not on the
/// PATH. It is part of the cache key, so a new glslang never serves an old one's output.
fn glslang_version() -> Option<&'static str> {
    static VERSION: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    VERSION
        .get_or_init(|| {
            let o = Command::new("glslangValidator")
                .arg("--version")
                .output()
                .ok()?;
            o.status
                .success()
                .then(|| String::from_utf8_lossy(&o.stdout).into_owned())
        })
        .as_deref()
}

/// Is `glslangValidator` on the PATH?
pub(crate) fn glslang_available() -> bool {
    glslang_version().is_some()
}

/// What a GLSL/HLSL shader's compiled SPIR-V depends on, glslang's version aside: the source,
/// language, stage, environment, entry point and debug information.
fn source_key(
    shader: &Shader,
    stage: ShaderType,
    entry: &str,
    text: &str,
    debug_info: bool,
) -> Result<[Vec<u8>; 5]> {
    let hlsl = shader.format == ShaderFormat::Hlsl;
    Ok([
        text.as_bytes().to_vec(),
        glslang_stage(stage)?.as_bytes().to_vec(),
        glslang_env(shader.target_env.as_deref()).into_bytes(),
        entry.as_bytes().to_vec(),
        vec![hlsl as u8 | (debug_info as u8) << 1],
    ])
}

/// The file name under which a folder of SPIR-V compiled ahead of time holds a GLSL/HLSL
/// shader (compiled without debug information) for `stage` and entry point `entry`:
/// `<key>.spv`, the key a 64-bit FNV-1a hash of the source, language, stage, environment and
/// entry point, in 16 hex digits. `Err` for a shader that is not GLSL/HLSL text or a stage
/// glslang does not compile.
pub fn prebuilt_name(shader: &Shader, stage: ShaderType, entry: &str) -> Result<String> {
    let (ShaderFormat::Glsl | ShaderFormat::Hlsl, ShaderSource::Text(text)) =
        (&shader.format, &shader.source)
    else {
        return Err(Error::Amber(format!(
            "shader '{}' is not GLSL or HLSL text",
            shader.name
        )));
    };
    let parts = source_key(shader, stage, entry, text, false)?;
    let parts: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
    Ok(format!("{:016x}.spv", fnv1a(&parts)))
}

fn compile_glsl(
    shader: &Shader,
    stage: ShaderType,
    entry: &str,
    text: &str,
    glsl: &GlslOptions,
) -> Result<Vec<u32>> {
    let GlslOptions {
        cache,
        prebuilt,
        debug_info,
        script,
    } = *glsl;
    if let (Some(dir), false) = (prebuilt, debug_info) {
        let path = dir.join(prebuilt_name(shader, stage, entry)?);
        if let Ok(bytes) = std::fs::read(&path) {
            return words_from_bytes(&bytes, &path.display().to_string());
        }
    }
    let hlsl = shader.format == ShaderFormat::Hlsl;
    let env = glslang_env(shader.target_env.as_deref());
    let st = glslang_stage(stage)?;
    let mut parts = source_key(shader, stage, entry, text, debug_info)?.to_vec();
    parts.push(glslang_version().unwrap_or("").as_bytes().to_vec());
    let parts: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
    let key = fnv1a(&parts);
    let out = cache.join(format!("{key:016x}.spv"));
    if let Ok(bytes) = std::fs::read(&out) {
        return words_from_bytes(&bytes, &out.display().to_string());
    }
    if !glslang_available() {
        return Err(Error::Unsupported(format!(
            "{} shader '{}': glslangValidator is not on the PATH (install the Debian package \
             glslang-tools)",
            shader.format.keyword(),
            shader.name
        )));
    }
    std::fs::create_dir_all(cache).map_err(|e| Error::Io(format!("{}: {e}", cache.display())))?;
    let ext = if hlsl { "hlsl" } else { st };
    // A per-process, per-call temporary name so parallel runs never share a half-written file.
    static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let seq = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tag = format!("{key:016x}.{}.{seq}", std::process::id());
    // With debug information glslang names the source by the path it was given: a directory
    // of its own holds it under the shader's name, and glslang runs there.
    let dir = cache.join(format!("{tag}.d"));
    let src_name = if debug_info {
        let name: String = shader
            .name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        std::fs::create_dir_all(&dir).map_err(|e| Error::Io(format!("{}: {e}", dir.display())))?;
        format!("{name}.{ext}")
    } else {
        format!("{tag}.{ext}")
    };
    let tmp_src = if debug_info { &dir } else { cache }.join(&src_name);
    let tmp_out = std::path::absolute(cache.join(format!("{tag}.spv")))
        .map_err(|e| Error::Io(format!("{}: {e}", cache.display())))?;
    std::fs::write(&tmp_src, text).map_err(|e| Error::Io(format!("{}: {e}", tmp_src.display())))?;
    let mut cmd = Command::new("glslangValidator");
    cmd.arg("-V");
    if debug_info {
        cmd.arg("-g");
    }
    cmd.arg("--target-env").arg(&env).arg("-S").arg(st);
    if hlsl {
        cmd.arg("-D").arg("-e").arg(entry);
    } else if entry != "main" {
        cmd.arg("-e")
            .arg(entry)
            .arg("--source-entrypoint")
            .arg("main");
    }
    if debug_info {
        cmd.current_dir(&dir).arg("-o").arg(&tmp_out).arg(&src_name);
    } else {
        cmd.arg("-o").arg(&tmp_out).arg(&tmp_src);
    }
    let res = cmd
        .output()
        .map_err(|e| Error::Io(format!("glslangValidator: {e}")));
    let _ = std::fs::remove_file(&tmp_src);
    if debug_info {
        let _ = std::fs::remove_dir(&dir);
    }
    let res = res?;
    if !res.status.success() {
        let _ = std::fs::remove_file(&tmp_out);
        let msg = String::from_utf8_lossy(&res.stdout);
        let errors = glslang_errors(&msg, &[&tmp_src.display().to_string(), &src_name]);
        let shown: Vec<String> = errors
            .iter()
            .take(3)
            .map(|(line, m)| match line {
                Some(n) => format!("{}: {m}", site_of(shader, script, *n)),
                None => m.clone(),
            })
            .collect();
        let msg = format!(
            "{} (glslangValidator, shader '{}')",
            shown.join(" | "),
            shader.name
        );
        // An extension the installed glslang does not know is a tool limit, not a failure.
        return Err(if msg.contains("extension not supported") {
            Error::Unsupported(msg)
        } else {
            Error::Spirv(msg)
        });
    }
    let bytes =
        std::fs::read(&tmp_out).map_err(|e| Error::Io(format!("{}: {e}", tmp_out.display())))?;
    let _ = std::fs::rename(&tmp_out, &out);
    words_from_bytes(&bytes, &shader.name)
}

/// glslang's `ERROR:` lines as (source line, message), the name it gave the source (any of
/// `names`: the temporary file's paths) taken off so that the caller can name the user's.
fn glslang_errors(out: &str, names: &[&str]) -> Vec<(Option<usize>, String)> {
    let mut found: Vec<(Option<usize>, String)> = out
        .lines()
        .filter_map(|l| l.trim().strip_prefix("ERROR: "))
        .filter(|l| !l.contains("compilation errors") && !l.contains("compilation terminated"))
        .map(|l| {
            let rest = names
                .iter()
                .find_map(|n| l.strip_prefix(n).and_then(|r| r.strip_prefix(':')));
            let located = rest.and_then(|r| {
                let (n, m) = r.split_once(':')?;
                Some((Some(n.trim().parse().ok()?), m.trim().to_string()))
            });
            located.unwrap_or((None, l.trim().to_string()))
        })
        .collect();
    if found.is_empty() {
        found.push((None, crate::error::clip(out.trim())));
    }
    found
}

/// Where line `n` of a shader's source is, for a message: `FILE`'s `path:n`, an inline
/// block's line in `script` (the block's line plus `n`), else the shader's name and `n`.
fn site_of(shader: &Shader, script: Option<&Path>, n: usize) -> String {
    match (&shader.file, script) {
        (Some(f), _) => format!("{}:{n}", f.display()),
        (None, Some(s)) if shader.line > 0 => format!("{}:{}", s.display(), shader.line + n),
        _ => format!("shader '{}' line {n}", shader.name),
    }
}

/// Points the source lines of a GLSL/HLSL shader compiled with debug information (which name
/// the scratch file glslang compiled) at the user's text, as [`site_of`] places compile
/// errors: a `FILE`'s path, or an inline block's lines in `script`.
pub(crate) fn place_source_lines(
    map: &mut crate::ir::SourceMap,
    shader: &Shader,
    script: Option<&Path>,
) {
    if !matches!(shader.format, ShaderFormat::Glsl | ShaderFormat::Hlsl) {
        return;
    }
    let (name, offset) = match (&shader.file, script) {
        (Some(f), _) => (f.display().to_string(), 0),
        (None, Some(s)) if shader.line > 0 => (s.display().to_string(), shader.line),
        _ => return,
    };
    for f in &mut map.files {
        f.name.clone_from(&name);
        f.line_offset = u32::try_from(offset).unwrap_or(u32::MAX);
    }
}

/// Run `spirv-opt` with Amber's `SHADER_OPTIMIZATION` passes (e.g. `--graphics-robust-access`).
pub fn optimize(words: &[u32], passes: &[String], cache: &Path) -> Result<Vec<u32>> {
    if passes.is_empty() {
        return Ok(words.to_vec());
    }
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::create_dir_all(cache).map_err(|e| Error::Io(format!("{}: {e}", cache.display())))?;
    static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let seq = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tag = format!("opt.{}.{seq}", std::process::id());
    let (src, dst) = (
        cache.join(format!("{tag}.in.spv")),
        cache.join(format!("{tag}.out.spv")),
    );
    std::fs::write(&src, &bytes).map_err(|e| Error::Io(format!("{}: {e}", src.display())))?;
    let res = Command::new("spirv-opt")
        .args(passes)
        .arg(&src)
        .arg("-o")
        .arg(&dst)
        .output();
    let _ = std::fs::remove_file(&src);
    let res = res.map_err(|_| {
        Error::Unsupported(format!(
            "SHADER_OPTIMIZATION {}: spirv-opt is not on the PATH (Debian package spirv-tools)",
            passes.join(" ")
        ))
    })?;
    let out = std::fs::read(&dst);
    let _ = std::fs::remove_file(&dst);
    if !res.status.success() {
        return Err(Error::Spirv(format!(
            "spirv-opt {} failed: {}",
            passes.join(" "),
            String::from_utf8_lossy(&res.stderr).trim()
        )));
    }
    let out = out.map_err(|e| Error::Io(format!("{}: {e}", dst.display())))?;
    words_from_bytes(&out, "spirv-opt output")
}

/// A `DXIL FILE` shader (the quadstep extension) compiled for the attachment: its entry
/// point (`main`, Amber's default, means the container's only or first one), checked to be of
/// the pipeline's stage. Specialisation constants and `spirv-opt` passes do not apply to DXIL.
pub(crate) fn dxil_shader(
    shader: &Shader,
    att: &Attachment,
    stage: crate::ir::Stage,
) -> Result<crate::pipeline::Shader> {
    let ShaderSource::Binary(bytes) = &shader.source else {
        return Err(Error::Amber(format!(
            "DXIL shader '{}' has no container loaded",
            shader.name
        )));
    };
    if !att.specializations.is_empty() || !att.optimizations.is_empty() {
        return Err(Error::Unsupported(format!(
            "specialisation constants or spirv-opt passes on DXIL shader '{}'",
            shader.name
        )));
    }
    let name = shader
        .file
        .as_ref()
        .map_or(shader.name.clone(), |p| p.display().to_string());
    let entry = (att.entry_point != "main").then_some(att.entry_point.as_str());
    let sh = crate::pipeline::Shader::from_dxil(bytes, entry)
        .map_err(|e| Error::Amber(format!("{name}: {e}")))?;
    if sh.stage() != stage {
        return Err(Error::Amber(format!(
            "{name}: a {:?} shader attached as {:?}",
            sh.stage(),
            stage
        )));
    }
    Ok(sh)
}

/// SPIR-V words of `shader` compiled for `stage` with entry point `entry`.
/// `default_version` is the SPIR-V version for assembly without `TARGET_ENV`.
pub fn shader_words(
    shader: &Shader,
    stage: ShaderType,
    entry: &str,
    default_version: Option<(u8, u8)>,
    cache: &Path,
) -> Result<Vec<u32>> {
    let glsl = GlslOptions {
        cache,
        prebuilt: None,
        debug_info: false,
        script: None,
    };
    shader_words_with(shader, stage, entry, default_version, &glsl)
}

/// Where GLSL/HLSL comes from and how it is compiled ([`shader_words_with`]).
#[derive(Clone, Copy, Debug)]
pub struct GlslOptions<'a> {
    /// Directory of compiled GLSL/HLSL kept between runs.
    pub cache: &'a Path,
    /// A folder of SPIR-V compiled ahead of time, files named by [`prebuilt_name`]: a shader
    /// found there is not compiled (without debug information only).
    pub prebuilt: Option<&'a Path>,
    /// Compile with `OpLine`s and the source text (`glslangValidator -g`).
    pub debug_info: bool,
    /// The script an inline shader is in: compile errors are placed there (the shader
    /// block's line plus the compiler's).
    pub script: Option<&'a Path>,
}

/// [`shader_words`] with GLSL/HLSL compiled as `glsl` says.
pub fn shader_words_with(
    shader: &Shader,
    stage: ShaderType,
    entry: &str,
    default_version: Option<(u8, u8)>,
    glsl: &GlslOptions,
) -> Result<Vec<u32>> {
    let name = shader
        .file
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| shader.name.clone());
    match (&shader.format, &shader.source) {
        (ShaderFormat::Passthrough, _) | (_, ShaderSource::Passthrough) => {
            spvasm::assemble_with(PASSTHROUGH_VS, "PASSTHROUGH", (1, 0))
        }
        (ShaderFormat::SpirvAsm, ShaderSource::Text(t)) => {
            let version = match shader.target_env.as_deref() {
                Some(env) => spvasm::target_env_version(env).ok_or_else(|| {
                    Error::Unsupported(format!("TARGET_ENV {env} of shader '{}'", shader.name))
                })?,
                None => default_version.unwrap_or((1, 0)),
            };
            spvasm::assemble_with(t, &name, version)
        }
        (ShaderFormat::SpirvHex, ShaderSource::Text(t)) => hex_words(t),
        (ShaderFormat::SpirvBin, ShaderSource::Binary(b)) => words_from_bytes(b, &name),
        (ShaderFormat::Glsl | ShaderFormat::Hlsl, ShaderSource::Text(t)) => {
            compile_glsl(shader, stage, entry, t, glsl)
        }
        (f, _) => Err(Error::Unsupported(format!(
            "{} shaders (shader '{}')",
            f.keyword(),
            shader.name
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passthrough_assembles() {
        let w = spvasm::assemble_with(PASSTHROUGH_VS, "pt", (1, 0)).unwrap();
        assert_eq!(w[0], 0x0723_0203);
    }

    #[test]
    fn hex_is_bytes_little_endian() {
        let text = "03 02 23 07 00 00 01 00 00 00 00 00 01 00 00 00 00 00 00 00";
        let w = hex_words(text).unwrap();
        assert_eq!(w[0], 0x0723_0203);
        assert_eq!(w[1], 0x0001_0000);
    }

    #[test]
    fn glslang_env_names() {
        assert_eq!(glslang_env(None), "vulkan1.0");
        assert_eq!(glslang_env(Some("spv1.3")), "spirv1.3");
        assert_eq!(glslang_env(Some("vulkan1.1")), "vulkan1.1");
    }
}
