//! A compiled shader: SPIR-V (binary or text) or DXIL → IR → the interpreter's pre-decoded
//! program, plus the texture policy it samples under.
//!
//! The policy is the one thing a shader carries from its source API past the IR: a DXIL shader
//! samples under D3D's rules and a SPIR-V one under Vulkan's by default, and either can be
//! switched ([`Shader::set_policy`]) — an HLSL author compiling through glslang wants D3D's
//! rules too. Nothing below the pipeline learns which front end a shader came from.

use std::path::Path;

use crate::exec::{self, Program};
use crate::front::dxil::{lower, DxilModule};
use crate::front::spirv::{Module, SpecConstants};
use crate::front::spvasm;
use crate::ir::{self, Stage};
use crate::texture::{Config, Policy};
use crate::{Error, Result};

/// One entry point, lowered and compiled, ready to run.
pub struct Shader {
    program: Program,
    policy: Policy,
}

impl Shader {
    /// Compile `entry` of a SPIR-V binary module.
    pub fn from_spirv(words: &[u32], entry: &str, spec: &SpecConstants) -> Result<Shader> {
        Self::from_module(&Module::load(words)?, entry, None, spec)
    }

    /// Compile `entry` of SPIR-V assembly text (`spirv-as` syntax).
    pub fn from_spirv_asm(
        text: &str,
        name: &str,
        entry: &str,
        spec: &SpecConstants,
    ) -> Result<Shader> {
        let words = spvasm::assemble(text, name)?;
        Self::from_spirv(&words, entry, spec)
    }

    /// Compile `entry` of a `.spv` (binary) or `.spvasm` (text) file.
    pub fn from_file(path: &Path, entry: &str, spec: &SpecConstants) -> Result<Shader> {
        let bytes =
            std::fs::read(path).map_err(|e| Error::Io(format!("{}: {e}", path.display())))?;
        let named = |e: Error| match e {
            Error::Spirv(m) => Error::Spirv(format!("{}: {m}", path.display())),
            other => other,
        };
        if path.extension().is_some_and(|x| x == "spvasm") {
            let text = String::from_utf8(bytes)
                .map_err(|_| Error::Io(format!("{}: not UTF-8 text", path.display())))?;
            Self::from_spirv_asm(&text, &path.display().to_string(), entry, spec)
        } else {
            Self::from_module(
                &Module::from_bytes(&bytes).map_err(named)?,
                entry,
                None,
                spec,
            )
            .map_err(named)
        }
    }

    /// Compile an entry point of an already parsed module.
    pub fn from_module(
        module: &Module,
        entry: &str,
        stage: Option<Stage>,
        spec: &SpecConstants,
    ) -> Result<Shader> {
        let ir = module.lower(entry, stage, spec)?;
        Self::from_ir(&ir)
    }

    /// Compile entry point `entry` (the first when `None`) of a DXIL container. It samples
    /// under the D3D policy unless [`Shader::set_policy`] says otherwise.
    pub fn from_dxil(bytes: &[u8], entry: Option<&str>) -> Result<Shader> {
        let dxil = crate::front::dxil::read(bytes)
            .map_err(|e| Error::Unsupported(format!("DXIL container: {e}")))?;
        Self::from_dxil_module(&dxil, entry)
    }

    /// Compile entry point `entry` (the first when `None`) of a read DXIL module. It samples
    /// under the D3D policy unless [`Shader::set_policy`] says otherwise.
    pub fn from_dxil_module(dxil: &DxilModule, entry: Option<&str>) -> Result<Shader> {
        let ir = lower::lower(dxil, entry)?;
        let mut sh = Self::from_ir(&ir)?;
        sh.policy = Policy::D3D;
        Ok(sh)
    }

    /// Compile lowered IR, optimised by [`ir::opt::optimize`] unless `QUADSTEP_NO_OPT=1`.
    pub fn from_ir(shader: &ir::Shader) -> Result<Shader> {
        let program = if ir::opt::disabled_by_env() {
            exec::compile(shader)?
        } else {
            let mut opt = shader.clone();
            ir::opt::optimize(&mut opt);
            exec::compile(&opt)?
        };
        Ok(Shader {
            program,
            policy: Policy::Vulkan,
        })
    }

    /// The texture unit's rules this shader samples under: [`Policy::D3D`] for DXIL,
    /// [`Policy::Vulkan`] otherwise, unless [`Shader::set_policy`] chose.
    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// Sample under `policy`'s rules, whatever the shader's source API.
    pub fn set_policy(&mut self, policy: Policy) {
        self.policy = policy;
    }

    /// The texture unit configuration to run this shader with: its policy, default precision.
    pub fn config(&self) -> Config {
        Config {
            policy: self.policy,
            ..Config::default()
        }
    }

    /// The lowered entry point (interface, resources, body).
    pub fn ir(&self) -> &ir::Shader {
        self.program.shader()
    }

    /// The interpreter's program.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// The stage.
    pub fn stage(&self) -> Stage {
        self.ir().stage
    }

    /// Set the instruction budget per batch (a runaway shader stops with an error there).
    pub fn set_budget(&mut self, budget: u64) {
        self.program.set_budget(budget);
    }
}
