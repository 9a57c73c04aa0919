//! The external programs tests use as compilers and oracles — `glslangValidator`, `spirv-as`,
//! `spirv-dis`, `spirv-opt`, `llvm-dis-14` and the `lvp` Vulkan runner: where each one is, whether it runs
//! here, the skip when it does not, and running one on a scratch file.
//!
//! The integration tests reach it as `common::tools`; the library's unit tests include this file
//! with `#[path]`, so it uses nothing from quadstep. A missing tool skips a test with one message
//! naming the tool and where to get it (`.ci/run` installs the Debian packages, so CI never
//! skips); what to do when a tool is present but rejects its input stays with each test.

use std::ffi::OsStr;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// An external program some tests run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    /// `glslangValidator`: GLSL and HLSL to SPIR-V.
    Glslang,
    /// `spirv-as`: SPIRV-Tools' assembler.
    SpirvAs,
    /// `spirv-dis`: SPIRV-Tools' disassembler.
    SpirvDis,
    /// `spirv-opt`: SPIRV-Tools' optimiser.
    SpirvOpt,
    /// `llvm-dis-14`: LLVM's disassembler, reading DXIL's bitcode.
    LlvmDis,
    /// `lvp` (`../shared/tools/lvp`): renders a scene file with Mesa's lavapipe.
    Lvp,
}

impl Tool {
    /// The program: a name looked up on the `PATH`; for lvp, `$LVP` or the build in
    /// `target/lvp` that the lavapipe bench scripts make (`benches/lavapipe/lvp.sh`).
    pub fn program(self) -> PathBuf {
        match self {
            Tool::Glslang => "glslangValidator".into(),
            Tool::SpirvAs => "spirv-as".into(),
            Tool::SpirvDis => "spirv-dis".into(),
            Tool::SpirvOpt => "spirv-opt".into(),
            Tool::LlvmDis => "llvm-dis-14".into(),
            Tool::Lvp => std::env::var_os("LVP").map_or_else(
                || concat!(env!("CARGO_MANIFEST_DIR"), "/target/lvp/release/lvp").into(),
                PathBuf::from,
            ),
        }
    }

    /// Where the tool comes from, for the skip message.
    fn origin(self) -> &'static str {
        match self {
            Tool::Glslang => "Debian package glslang-tools",
            Tool::SpirvAs | Tool::SpirvDis | Tool::SpirvOpt => "Debian package spirv-tools",
            Tool::LlvmDis => "Debian package llvm-14",
            Tool::Lvp => "built into target/lvp by benches/lavapipe/lvp.sh, or named by $LVP",
        }
    }

    /// A command that runs the tool (lvp with the Vulkan loader pointed at lavapipe).
    pub fn command(self) -> Command {
        let mut c = Command::new(self.program());
        if self == Tool::Lvp {
            c.env(
                "VK_ICD_FILENAMES",
                "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json",
            );
        }
        c
    }

    /// Whether the tool runs here: `--version` succeeds (lvp has no such option: its file is
    /// there).
    pub fn present(self) -> bool {
        match self {
            Tool::Lvp => self.program().is_file(),
            _ => self
                .command()
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success()),
        }
    }

    /// Runs `TOOL ARGS -o OUT IN`, where `IN` is a scratch file named `*.ext` holding `text`
    /// (glslangValidator reads the stage from the extension): the bytes of `OUT`, or the tool's
    /// messages when it fails (or cannot be started).
    pub fn compile<S: AsRef<OsStr>>(
        self,
        args: &[S],
        ext: &str,
        text: &str,
    ) -> Result<Vec<u8>, String> {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!("quadstep-tools-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let n = N.fetch_add(1, Ordering::Relaxed);
        let (input, out) = (dir.join(format!("{n}.{ext}")), dir.join(format!("{n}.out")));
        std::fs::write(&input, text).map_err(|e| e.to_string())?;
        let run = self
            .command()
            .args(args)
            .arg("-o")
            .arg(&out)
            .arg(&input)
            .output();
        let bytes = std::fs::read(&out);
        let _ = std::fs::remove_file(&input);
        let _ = std::fs::remove_file(&out);
        let run = run.map_err(|e| format!("{}: {e}", self.program().display()))?;
        if !run.status.success() {
            return Err(format!(
                "{}{}",
                String::from_utf8_lossy(&run.stdout),
                String::from_utf8_lossy(&run.stderr)
            ));
        }
        bytes.map_err(|e| e.to_string())
    }
}

/// Why tests needing `tools` cannot run here — the first one missing and where it comes from —
/// or `None` when all are present.
pub fn missing(tools: &[Tool]) -> Option<String> {
    let t = tools.iter().find(|t| !t.present())?;
    Some(format!(
        "{} not found ({})",
        t.program().display(),
        t.origin()
    ))
}

/// Whether every tool of `tools` runs here; if not, prints `"<test>: skipped: <reason>"` (shown
/// with `--nocapture`) and returns false.
pub fn have(test: &str, tools: &[Tool]) -> bool {
    match missing(tools) {
        None => true,
        Some(why) => {
            eprintln!("{test}: skipped: {why}");
            false
        }
    }
}

/// Little-endian 32-bit words of a SPIR-V binary (a trailing partial word is dropped).
pub fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}
