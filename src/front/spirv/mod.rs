//! SPIR-V front end: binary SPIR-V 1.0–1.6 → [`ir::Shader`], one entry point at a time.
//!
//! Shape (split by concern, like SwiftShader's `SpirvShader*.cpp`):
//! - `parse.rs` — header, instruction framing, grammar validation through `rspirv`'s parser,
//!   id-bound checks, the supported-subset gate (capabilities, opcodes, instruction sets) and the
//!   module tables (decorations, names, entry points, modes, functions and blocks). Everything
//!   keeps its word offset, so every error names where it happened.
//! - `lower.rs` — the lowering state (IR builder, id → value map), global declarations and the
//!   per-instruction dispatch.
//! - `types.rs` — type table, scalarisation into leaves, word layout of per-lane/workgroup memory
//!   and explicit byte layout of buffers.
//! - `spec.rs` — constants, spec constants (overridden by SpecId) and `OpSpecConstantOp` folding.
//! - `memory.rs` — variables, access chains, loads/stores, copies, `OpArrayLength`, atomics.
//! - `varptr.rs` — pointers as run-time values (variable pointers): selects, phis, pointers in
//!   memory, `OpPtrAccessChain`, `OpPtrDiff`, and accesses through them.
//! - `arith.rs` / `glsl.rs` — arithmetic, conversions, composites, matrix products, and
//!   GLSL.std.450.
//! - `control.rs` — CFG, phis as edge copies, inlining of calls, returns, kills.
//! - `image.rs` — image handles and image instructions.
//! - `group.rs` — derivatives, quad and subgroup operations.
//! - `interface.rs` — interface variables, built-ins, descriptors, execution modes.
//! - `lines.rs` — source files and lines from `OpLine` / `DebugLine`, for people.
//!
//! Choices the rest of the crate can rely on:
//! - Block 0 is a prologue holding initialisers of Private/Output/Workgroup variables; it jumps
//!   to the entry function's first block. Blocks created for split critical edges (phi copies)
//!   and call continuations are appended after the blocks of the function they belong to.
//! - Each lowered SPIR-V instruction is preceded by an [`ir::Inst::Source`] with its word offset.
//! - Plain `OpDPdx`/`OpDPdy`/`OpFwidth` are Coarse.
//! - Global variables the entry point never references are skipped (no memory, no descriptor).
//! - Input/Output variables get per-lane words and [`ir::IoVar`]s only when listed in the entry
//!   point's interface; `HelperInvocation` becomes `IsHelper`, subgroup id/size/masks become
//!   `LaneInfo` at each load (they take no memory).
//! - Workgroup size: the `WorkgroupSize` built-in constant wins over `LocalSize`/`LocalSizeId`.
//!
//! Lowering happens per entry point because spec constants (and so array sizes and workgroup
//! sizes) depend on the caller's overrides; parsing and validation happen once in
//! [`Module::load`].

mod arith;
mod control;
mod glsl;
mod group;
mod image;
mod interface;
mod lines;
mod lower;
mod memory;
mod parse;
mod spec;
mod types;
mod varptr;

#[cfg(test)]
mod eval_tests;
#[cfg(test)]
mod tests;

use std::collections::HashMap;

use crate::ir;
use crate::{Error, Result};

/// Specialisation constant overrides: SpecId → value bits (zero-extended; booleans: non-zero is
/// true; floats: their IEEE bits). Absent ids keep the module's default values.
pub type SpecConstants = HashMap<u32, u64>;

/// A parsed and validated SPIR-V module.
pub struct Module {
    p: parse::Parsed,
    source: ir::SourceMap,
}

fn stage_of(model: u32) -> Option<ir::Stage> {
    match model {
        0 => Some(ir::Stage::Vertex),
        1 => Some(ir::Stage::TessControl),
        2 => Some(ir::Stage::TessEval),
        3 => Some(ir::Stage::Geometry),
        4 => Some(ir::Stage::Fragment),
        5 => Some(ir::Stage::Compute),
        _ => None,
    }
}

impl Module {
    /// Parses and validates a module given as host-order words.
    pub fn load(words: &[u32]) -> Result<Module> {
        let p = parse::parse(words)?;
        let source = lines::source_map(&p);
        Ok(Module { p, source })
    }

    /// Parses a module from bytes; the endianness is taken from the magic number.
    pub fn from_bytes(bytes: &[u8]) -> Result<Module> {
        if !bytes.len().is_multiple_of(4) {
            return Err(Error::Spirv(format!(
                "byte length {} is not a multiple of 4",
                bytes.len()
            )));
        }
        if bytes.len() < 4 {
            return Err(Error::Spirv(
                "word offset 0: truncated header (no magic number)".into(),
            ));
        }
        let le = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) == parse::MAGIC;
        let words: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| {
                let a = [c[0], c[1], c[2], c[3]];
                if le {
                    u32::from_le_bytes(a)
                } else {
                    u32::from_be_bytes(a)
                }
            })
            .collect();
        Module::load(&words)
    }

    /// The module's words (host order).
    pub fn words(&self) -> &[u32] {
        &self.p.words
    }

    /// The source files and lines the module's debug instructions (`OpLine`, `DebugLine`)
    /// give its word offsets.
    pub fn source_map(&self) -> &ir::SourceMap {
        &self.source
    }

    /// The source map, to rename or renumber its files (a shader inline in a script).
    pub fn source_map_mut(&mut self) -> &mut ir::SourceMap {
        &mut self.source
    }

    /// SPIR-V version (major, minor) from the header.
    pub fn spirv_version(&self) -> (u8, u8) {
        self.p.version
    }

    /// Entry points with a supported execution model (vertex, tessellation control and
    /// evaluation, geometry, fragment, compute).
    pub fn entry_points(&self) -> Vec<(String, ir::Stage)> {
        self.p
            .entries
            .iter()
            .filter_map(|e| stage_of(e.model).map(|s| (e.name.clone(), s)))
            .collect()
    }

    /// Lowers entry point `entry` (of `stage`, when several share the name) with the given
    /// specialisation constants.
    pub fn lower(
        &self,
        entry: &str,
        stage: Option<ir::Stage>,
        spec: &SpecConstants,
    ) -> Result<ir::Shader> {
        let candidates: Vec<_> = self
            .p
            .entries
            .iter()
            .filter(|e| e.name == entry && (stage.is_none() || stage_of(e.model) == stage))
            .collect();
        let e = match candidates.as_slice() {
            [] => {
                return Err(Error::Spirv(format!(
                    "no entry point named {entry:?}{}",
                    stage
                        .map(|s| format!(" for stage {s:?}"))
                        .unwrap_or_default()
                )))
            }
            [e] => *e,
            _ => {
                return Err(Error::Spirv(format!(
                    "several entry points are named {entry:?}: give the stage"
                )))
            }
        };
        let st = stage_of(e.model).ok_or_else(|| {
            Error::Unsupported(format!(
                "SPIR-V word offset {}: execution model {} of entry point {entry:?}",
                e.off, e.model
            ))
        })?;
        let mut l = lower::Lower::new(&self.p, spec, st);
        l.entry_func = e.func;
        l.interface = e.interface.clone();
        l.used = self.p.used_ids(e.func);
        l.cur_off = e.off;
        l.read_derivative_group();
        l.declare_globals()?;
        l.inline_function(e.func, Vec::new(), true)?;
        l.resolve_kills();
        let workgroup_size = l.workgroup_size()?;
        let (origin_upper_left, early_fragment_tests, depth_replacing) = l.modes();
        let modes = l.stage_modes();
        Ok(ir::Shader {
            name: entry.to_string(),
            stage: st,
            body: l.f,
            local_words: l.local_words,
            workgroup_words: l.workgroup_words,
            inputs: l.inputs,
            outputs: l.outputs,
            resources: l.resources,
            workgroup_size,
            writes_depth: l.writes_depth || (depth_replacing && st == ir::Stage::Fragment),
            can_discard: l.can_discard,
            early_fragment_tests,
            origin_upper_left,
            derivative_group: l.derivative_group,
            modes,
            source: self.source.clone(),
        })
    }
}
