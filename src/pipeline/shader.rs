//! A compiled shader: SPIR-V (binary or text) or DXIL → IR → the interpreter's pre-decoded
//! program, plus the texture policy it samples under.
//!
//! The policy is the one thing a shader carries from its source API past the IR: a DXIL shader
//! samples under D3D's rules and a SPIR-V one under Vulkan's by default, and either can be
//! switched ([`Shader::set_policy`]) — an HLSL author compiling through glslang wants D3D's
//! rules too. Nothing below the pipeline learns which front end a shader came from.

use std::path::Path;
use std::sync::Arc;

use crate::exec::{self, Discard, Program};
use crate::front::dxil::{lower, DxilModule};
use crate::front::spirv::{Module, SpecConstants};
use crate::front::spvasm;
use crate::ir::{self, Stage};
use crate::limits::{Cancel, Limit, Limits};
use crate::texture::{Config, Policy};
use crate::{Error, Result};

/// One entry point, lowered and compiled, ready to run.
pub struct Shader {
    program: Program,
    /// The SPIR-V module it came from (what the debugger names instructions from).
    spirv: Option<Arc<[u32]>>,
    /// The DXIL container and entry name it came from (the same, for DXIL).
    dxil: Option<(Arc<[u8]>, Option<String>)>,
    policy: Policy,
}

impl Shader {
    /// Compile `entry` of a SPIR-V binary module.
    pub fn from_spirv(words: &[u32], entry: &str, spec: &SpecConstants) -> Result<Shader> {
        Self::from_module(&Module::load(words)?, entry, None, spec)
    }

    /// Compile `entry` of a SPIR-V binary as read from a `.spv` file (either byte order),
    /// without specialisation.
    pub fn from_spirv_bytes(bytes: &[u8], entry: &str) -> Result<Shader> {
        Self::from_module(
            &Module::from_bytes(bytes)?,
            entry,
            None,
            &Default::default(),
        )
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
        let mut shader = Self::from_ir(&ir)?;
        shader.spirv = Some(module.words().into());
        Ok(shader)
    }

    /// Compile entry point `entry` (the first when `None`) of a DXIL container. It samples
    /// under the D3D policy unless [`Shader::set_policy`] says otherwise.
    pub fn from_dxil(bytes: &[u8], entry: Option<&str>) -> Result<Shader> {
        let dxil = crate::front::dxil::read(bytes)
            .map_err(|e| Error::Unsupported(format!("DXIL container: {e}")))?;
        let mut sh = Self::from_dxil_module(&dxil, entry)?;
        sh.dxil = Some((bytes.into(), entry.map(str::to_string)));
        Ok(sh)
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
    /// It is first held to the default device limits: the locations and components of its
    /// inputs and outputs (the interpreter sizes its rows by the highest location) and its
    /// Workgroup memory.
    pub fn from_ir(shader: &ir::Shader) -> Result<Shader> {
        let limits = Limits::default();
        check_interface(shader, &limits)?;
        check_shared_memory(shader, &limits)?;
        let program = if ir::opt::disabled_by_env() {
            exec::compile(shader)?
        } else {
            let mut opt = shader.clone();
            ir::opt::optimize(&mut opt);
            exec::compile(&opt)?
        };
        Ok(Shader {
            program,
            spirv: None,
            dxil: None,
            policy: Policy::Vulkan,
        })
    }

    /// The SPIR-V module the shader was compiled from (None for DXIL or IR), whose word
    /// offsets the IR's `Source` markers give.
    pub fn spirv(&self) -> Option<&[u32]> {
        self.spirv.as_deref()
    }
    /// The DXIL container and entry name the shader was compiled from (`from_dxil` only),
    /// whose instruction numbers the IR's `Source` markers give.
    pub fn dxil(&self) -> Option<(&[u8], Option<&str>)> {
        self.dxil.as_ref().map(|(b, e)| (&b[..], e.as_deref()))
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

    /// The interpreter's program (for tests and benchmarks that run the interpreter
    /// directly).
    #[doc(hidden)]
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

    /// Run with `size` lanes per subgroup (Vulkan's `requiredSubgroupSize`; 16 unless set): a
    /// power of two from 4 to 64, else `Error::Unsupported`.
    pub fn set_subgroup_size(&mut self, size: u32) -> Result<()> {
        self.program.set_subgroup_size(size)
    }

    /// What a lane that executes `OpKill` does ([`Discard::Helper`] unless set).
    pub fn set_discard(&mut self, discard: Discard) {
        self.program.set_discard(discard);
    }
    /// Make dispatches and draws running this shader stop with the token's error
    /// ([`Error::Timeout`], [`Error::Cancelled`]) soon after `cancel` is stopped.
    pub fn set_cancel(&mut self, cancel: Cancel) {
        self.program.set_cancel(cancel);
    }
}

/// Hold a shader's Workgroup variables to `maxComputeSharedMemorySize`: the interpreter keeps
/// one word per scalar leaf, 4 bytes each, and a workgroup's rows of values loaded from them
/// grow with its invocations, so a shader over the limit is refused before it runs.
fn check_shared_memory(shader: &ir::Shader, limits: &Limits) -> Result<()> {
    let name = crate::error::quote(&shader.name);
    limits.check(
        Limit::MaxComputeSharedMemorySize,
        shader.workgroup_words as u64 * 4,
        format_args!("shader {name}: its Workgroup variables"),
    )
}

/// Hold a shader's location-bound inputs and outputs to `limits`: vertex inputs to
/// `maxVertexInputAttributes` locations, vertex outputs and fragment inputs to their
/// component counts, fragment outputs to `maxFragmentOutputAttachments` locations (a
/// location is 4 components; arrays and 64-bit types span several).
fn check_interface(shader: &ir::Shader, limits: &Limits) -> Result<()> {
    let inputs = exec::location_stride(&shader.inputs) as u64;
    let outputs = exec::location_stride(&shader.outputs) as u64;
    let name = crate::error::quote(&shader.name);
    let (input_row, input_value, output_row, output_value) = match shader.stage {
        Stage::Vertex => (
            Limit::MaxVertexInputAttributes,
            inputs / 4,
            Limit::MaxVertexOutputComponents,
            outputs,
        ),
        Stage::Fragment => (
            Limit::MaxFragmentInputComponents,
            inputs,
            Limit::MaxFragmentOutputAttachments,
            outputs / 4,
        ),
        _ => return Ok(()),
    };
    limits.check(
        input_row,
        input_value,
        format_args!("shader {name}: its inputs through the highest location"),
    )?;
    limits.check(
        output_row,
        output_value,
        format_args!("shader {name}: its outputs through the highest location"),
    )
}
