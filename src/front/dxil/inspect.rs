//! `quadstep inspect`: what a container declares beside what its code requires. The code is
//! walked once; every dx.op call is checked against the rules below, each taken from the
//! D3D specs as DXC's validator and `DxilShaderFlags.cpp` apply them:
//!
//! | flag | required when |
//! | --- | --- |
//! | `AdvancedTextureOps` | any `SampleCmpLevel`, `TextureGatherRaw` or `TextureStoreSample`; any `Sample*`/`SampleCmp*`/`TextureLoad` whose offset is not a constant |
//! | `SampleCmpGradientOrBias` | any `SampleCmpGrad` or `SampleCmpBias` |
//!
//! Each flag must be declared in `SFI0` and in the entry's raw flags exactly when required.
//! Availability: an operation below its shader model (`SampleCmpLevel` 6.7, `SampleCmpGrad`
//! and `SampleCmpBias` 6.8, from the dx.op table) or outside its stages; implicit-derivative
//! operations in compute, mesh or amplification shaders before 6.6; a constant bias outside
//! [-16, 15.99]; before 6.7, offsets that are not immediates in [-8, 7]; comparison sampling
//! of anything but a float-typed, single-sample, read-only 1D/2D/cube texture (array).

use std::collections::BTreeSet;

use super::flags::{self, Flag, ADVANCED_TEXTURE_OPS, SAMPLE_CMP_GRADIENT_OR_BIAS};
use super::handle::resolve_handle;
use super::module::{ConstKind, FuncId, Function, Instruction, Module, Type, Value};
use super::ops::op_info;
use super::ops::opcode::{self, *};
use super::shader::{ComponentType, ResourceClass, ResourceKind, ShaderKind, ShaderModel};
use super::DxilModule;

/// A rule the container breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    /// A flag the code requires is not declared.
    FlagMissing,
    /// A flag is declared that nothing in the code requires.
    FlagWithoutCause,
    /// The container's program version and `dx.shaderModel` name different models.
    ProgramVersionMismatch,
    /// An operation needs a later shader model.
    OpBelowShaderModel,
    /// An operation is not allowed in this kind of shader.
    OpNotInStage,
    /// Implicit derivatives in compute, mesh or amplification shaders before SM 6.6.
    DerivativesBeforeSm66,
    /// A constant bias outside [-16, 15.99].
    BiasOutOfRange,
    /// Before SM 6.7: an offset that is not an immediate in [-8, 7].
    OffsetNotImmediateInRange,
    /// Comparison sampling of a resource that does not allow it.
    ComparisonResource,
}

impl Rule {
    pub fn name(self) -> &'static str {
        match self {
            Rule::FlagMissing => "flag-missing",
            Rule::FlagWithoutCause => "flag-without-cause",
            Rule::ProgramVersionMismatch => "program-version-mismatch",
            Rule::OpBelowShaderModel => "op-below-shader-model",
            Rule::OpNotInStage => "op-not-in-stage",
            Rule::DerivativesBeforeSm66 => "derivatives-before-sm66",
            Rule::BiasOutOfRange => "bias-out-of-range",
            Rule::OffsetNotImmediateInRange => "offset-not-immediate-in-range",
            Rule::ComparisonResource => "comparison-resource",
        }
    }
}

/// One broken rule, where, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub rule: Rule,
    pub message: String,
}

/// One checked flag: what is declared, whether the code requires it, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlagCheck {
    pub flag: Flag,
    pub declared_sfi0: bool,
    /// Per entry point with a function: (entry name, raw flag declared, required by it).
    pub entries: Vec<(String, bool, bool)>,
    pub required: bool,
    /// The operations that require it (`main: SampleCmpLevel %12`).
    pub causes: Vec<String>,
}

/// The result of inspecting a container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    pub shader_model: ShaderModel,
    pub flags: Vec<FlagCheck>,
    pub findings: Vec<Finding>,
    /// Names of the dx.ops the code calls, sorted.
    pub ops_used: BTreeSet<&'static str>,
}

impl Report {
    /// Whether the declarations match the code and no availability rule is broken.
    pub fn is_consistent(&self) -> bool {
        self.findings.is_empty()
    }

    /// The rules broken, without repeats.
    pub fn rules(&self) -> BTreeSet<Rule> {
        self.findings.iter().map(|f| f.rule).collect()
    }
}

/// The operations that compute implicit derivatives.
fn implicit_derivatives(op: u32) -> bool {
    matches!(
        op,
        SAMPLE
            | SAMPLE_BIAS
            | SAMPLE_CMP
            | SAMPLE_CMP_BIAS
            | CALCULATE_LOD
            | DERIV_COARSE_X
            | DERIV_COARSE_Y
            | DERIV_FINE_X
            | DERIV_FINE_Y
    )
}

/// The operations whose offset needs `AdvancedTextureOps` when it is not a constant (`SAMPLE` to
/// `SAMPLE_CMP_LEVEL_ZERO`: SM 6.0's six sample operations).
fn dynamic_offset_needs_flag(op: u32) -> bool {
    matches!(
        op,
        SAMPLE..=SAMPLE_CMP_LEVEL_ZERO | SAMPLE_CMP_GRAD | SAMPLE_CMP_BIAS | TEXTURE_LOAD
    )
}

/// The depth-comparison sample operations.
fn comparison(op: u32) -> bool {
    matches!(
        op,
        SAMPLE_CMP | SAMPLE_CMP_LEVEL_ZERO | SAMPLE_CMP_LEVEL | SAMPLE_CMP_GRAD | SAMPLE_CMP_BIAS
    )
}

/// The sample operations whose offsets must be immediates in [-8, 7] before shader model 6.7.
fn offset_checked(op: u32) -> bool {
    matches!(
        op,
        SAMPLE..=SAMPLE_CMP_LEVEL_ZERO | SAMPLE_CMP_LEVEL | SAMPLE_CMP_GRAD | SAMPLE_CMP_BIAS
    )
}

/// What one function's code requires of the checked flags, with causes.
struct Required {
    bits: [bool; 2],
    causes: [Vec<String>; 2],
}

/// Inspects a read container.
pub fn inspect(d: &DxilModule) -> Report {
    let m = &d.module;
    let sm = d.shader.shader_model;
    let mut findings = Vec::new();
    let p = &d.container.program;
    if (p.kind, p.major, p.minor) != (sm.kind, sm.major, sm.minor) {
        let prog = ShaderModel {
            kind: p.kind,
            major: p.major,
            minor: p.minor,
        };
        findings.push(Finding {
            rule: Rule::ProgramVersionMismatch,
            message: format!("the DXIL part's program version is {prog}, dx.shaderModel is {sm}"),
        });
    }
    let checked = [ADVANCED_TEXTURE_OPS, SAMPLE_CMP_GRADIENT_OR_BIAS];
    let mut ops_used = BTreeSet::new();
    let mut per_function = Vec::with_capacity(m.functions.len());
    for (i, f) in m.functions.iter().enumerate() {
        let kind = stage_of(d, FuncId(i as u32));
        per_function.push(walk_function(d, f, kind, &mut findings, &mut ops_used));
    }
    let sfi0 = d.container.features.unwrap_or(0);
    let mut flag_checks = Vec::new();
    for (k, flag) in checked.iter().enumerate() {
        let required = per_function.iter().any(|r| r.bits[k]);
        let causes: Vec<String> = per_function
            .iter()
            .flat_map(|r| r.causes[k].iter().cloned())
            .collect();
        let declared_sfi0 = sfi0 & flag.feature_mask() != 0;
        push_flag_finding(
            &mut findings,
            *flag,
            "SFI0",
            declared_sfi0,
            required,
            &causes,
        );
        let mut entries = Vec::new();
        for e in &d.shader.entry_points {
            let Some(f) = e.function else { continue };
            let declared = e.properties.shader_flags & flag.raw_mask() != 0;
            let needed = reachable(m, f)
                .iter()
                .any(|g| per_function[g.index()].bits[k]);
            let what = format!("entry {}'s raw shader flags", e.name);
            push_flag_finding(&mut findings, *flag, &what, declared, needed, &causes);
            entries.push((e.name.clone(), declared, needed));
        }
        flag_checks.push(FlagCheck {
            flag: *flag,
            declared_sfi0,
            entries,
            required,
            causes,
        });
    }
    Report {
        shader_model: sm,
        flags: flag_checks,
        findings,
        ops_used,
    }
}

fn push_flag_finding(
    out: &mut Vec<Finding>,
    flag: Flag,
    what: &str,
    declared: bool,
    required: bool,
    causes: &[String],
) {
    if required && !declared {
        out.push(Finding {
            rule: Rule::FlagMissing,
            message: format!(
                "{} is required (by {}) but not set in {what}",
                flag.name,
                causes.join(", ")
            ),
        });
    } else if declared && !required {
        out.push(Finding {
            rule: Rule::FlagWithoutCause,
            message: format!(
                "{} is set in {what} but nothing in the code requires it",
                flag.name
            ),
        });
    }
}

/// The stage a function runs in: the module's, or for a library its entry's kind.
fn stage_of(d: &DxilModule, f: FuncId) -> Option<ShaderKind> {
    let sm = d.shader.shader_model;
    if sm.kind != ShaderKind::Library {
        return Some(sm.kind);
    }
    d.shader
        .entry_points
        .iter()
        .find(|e| e.function == Some(f))
        .and_then(|e| e.properties.shader_kind)
}

/// `f` and every function it calls, directly or not.
fn reachable(m: &Module, f: FuncId) -> Vec<FuncId> {
    let mut seen = vec![false; m.functions.len()];
    let mut stack = vec![f];
    let mut out = Vec::new();
    while let Some(g) = stack.pop() {
        if std::mem::replace(&mut seen[g.index()], true) {
            continue;
        }
        out.push(g);
        for inst in &m.functions[g.index()].insts {
            if let Instruction::Call {
                callee: Value::Function(h),
                ..
            } = inst
            {
                stack.push(*h);
            }
        }
    }
    out
}

fn walk_function(
    d: &DxilModule,
    f: &Function,
    stage: Option<ShaderKind>,
    findings: &mut Vec<Finding>,
    ops_used: &mut BTreeSet<&'static str>,
) -> Required {
    let m = &d.module;
    let sm = d.shader.shader_model;
    let mut req = Required {
        bits: [false; 2],
        causes: [Vec::new(), Vec::new()],
    };
    if f.is_declaration {
        return req;
    }
    let names = super::print::inst_slot_names(m, f);
    let fname = f.name.as_deref().unwrap_or("?");
    for (i, inst) in f.insts.iter().enumerate() {
        let Some((op, args)) = m.dx_op(inst) else {
            continue;
        };
        let Some(info) = op_info(op) else { continue };
        ops_used.insert(info.name);
        let at = match &names[i] {
            Some(n) => format!("{fname}: {} %{n}", info.name),
            None => format!("{fname}: {} (instruction {i})", info.name),
        };
        let mut require = |k: usize, why: String| {
            req.bits[k] = true;
            req.causes[k].push(why);
        };
        // Flags.
        match op {
            opcode::SAMPLE_CMP_LEVEL
            | opcode::TEXTURE_GATHER_RAW
            | opcode::TEXTURE_STORE_SAMPLE => require(0, at.clone()),
            _ => {}
        }
        if dynamic_offset_needs_flag(op)
            && offsets(info, args)
                .iter()
                .any(|&o| !matches!(o, Value::Const(_)))
        {
            require(0, format!("{at} with a dynamic offset"));
        }
        if op == opcode::SAMPLE_CMP_GRAD || op == opcode::SAMPLE_CMP_BIAS {
            require(1, at.clone());
        }
        // Availability.
        if !sm.at_least(u32::from(info.min_sm.0), u32::from(info.min_sm.1)) {
            findings.push(Finding {
                rule: Rule::OpBelowShaderModel,
                message: format!(
                    "{at} needs shader model {}.{}, the shader is {sm}",
                    info.min_sm.0, info.min_sm.1
                ),
            });
        }
        if let Some(kind) = stage {
            if !info.allowed_in(kind) {
                findings.push(Finding {
                    rule: Rule::OpNotInStage,
                    message: format!("{at} is not allowed in {} shaders", kind.name()),
                });
            }
            let cs_like = matches!(
                kind,
                ShaderKind::Compute | ShaderKind::Mesh | ShaderKind::Amplification
            );
            if cs_like && implicit_derivatives(op) && !sm.at_least(6, 6) {
                findings.push(Finding {
                    rule: Rule::DerivativesBeforeSm66,
                    message: format!(
                        "{at}: derivatives in {} shaders need shader model 6.6, the shader is {sm}",
                        kind.name()
                    ),
                });
            }
        }
        if op == opcode::SAMPLE_BIAS || op == opcode::SAMPLE_CMP_BIAS {
            if let Some(bias) = info
                .arg("bias")
                .and_then(|k| args.get(k))
                .and_then(|&v| const_float(m, v))
            {
                if !(-16.0..=15.99).contains(&bias) {
                    findings.push(Finding {
                        rule: Rule::BiasOutOfRange,
                        message: format!("{at}: constant bias {bias} is outside [-16, 15.99]"),
                    });
                }
            }
        }
        if offset_checked(op) && !sm.at_least(6, 7) {
            for o in offsets(info, args) {
                if m.is_undef(o) {
                    continue;
                }
                match m.const_int(o) {
                    Some(v) if (-8..=7).contains(&v) => {}
                    Some(v) => findings.push(Finding {
                        rule: Rule::OffsetNotImmediateInRange,
                        message: format!(
                            "{at}: offset {v} is outside [-8, 7] (allowed from shader model 6.7)"
                        ),
                    }),
                    None => findings.push(Finding {
                        rule: Rule::OffsetNotImmediateInRange,
                        message: format!(
                            "{at}: an offset that is not an immediate needs shader model 6.7"
                        ),
                    }),
                }
            }
        }
        if comparison(op) {
            if let Some(why) = comparison_resource_problem(d, f, args) {
                findings.push(Finding {
                    rule: Rule::ComparisonResource,
                    message: format!("{at}: {why}"),
                });
            }
        }
    }
    req
}

/// The offset arguments of a sampling operation.
fn offsets(info: &super::ops::OpInfo, args: &[Value]) -> Vec<Value> {
    ["offset0", "offset1", "offset2"]
        .iter()
        .filter_map(|n| info.arg(n).and_then(|k| args.get(k)).copied())
        .collect()
}

fn const_float(m: &Module, v: Value) -> Option<f32> {
    let c = m.as_constant(v)?;
    match (&c.kind, m.ty(c.ty)) {
        (ConstKind::Float(bits), Type::Float) => Some(f32::from_bits(*bits as u32)),
        (ConstKind::Float(bits), Type::Half) => Some(half::f16::from_bits(*bits as u16).to_f32()),
        (ConstKind::Null, Type::Float | Type::Half) => Some(0.0),
        _ => None,
    }
}

/// Why the texture of a comparison sample may not be compared, if it may not.
fn comparison_resource_problem(d: &DxilModule, f: &Function, args: &[Value]) -> Option<String> {
    let h = resolve_handle(&d.module, &d.shader, f, *args.first()?)?;
    if h.class != ResourceClass::Srv {
        return Some(format!(
            "comparison sampling of a {:?} (read-write or not a texture)",
            h.class
        ));
    }
    let shape_ok = matches!(
        h.kind,
        ResourceKind::Texture1D
            | ResourceKind::Texture1DArray
            | ResourceKind::Texture2D
            | ResourceKind::Texture2DArray
            | ResourceKind::TextureCube
            | ResourceKind::TextureCubeArray
    );
    if !shape_ok {
        return Some(format!("comparison sampling of a {}", h.kind.name()));
    }
    let type_ok = matches!(
        h.component_type,
        None | Some(
            ComponentType::F32
                | ComponentType::SNormF32
                | ComponentType::UNormF32
                | ComponentType::F16
                | ComponentType::SNormF16
                | ComponentType::UNormF16
        )
    );
    if !type_ok {
        let t = h
            .component_type
            .map_or_else(|| "?".into(), |t| t.name().into_owned());
        return Some(format!(
            "comparison sampling of a texture of {t} (only float types compare)"
        ));
    }
    None
}

/// The text `quadstep inspect` prints.
pub fn report_text(d: &DxilModule, r: &Report) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let c = &d.container;
    let _ = writeln!(s, "shader model: {}", d.shader.shader_model);
    if let Some((a, b)) = d.shader.dxil_version {
        let _ = write!(s, "DXIL version: {a}.{b}");
        if let Some((va, vb)) = d.shader.validator_version {
            let _ = write!(s, " (validator {va}.{vb})");
        }
        s.push('\n');
    }
    let parts: Vec<String> = c.parts.iter().map(|p| p.fourcc.to_string()).collect();
    let _ = writeln!(s, "parts: {}", parts.join(" "));
    let _ = writeln!(
        s,
        "digest: {}",
        match c.digest_check {
            super::container::DigestCheck::Unsigned => "unsigned".to_string(),
            super::container::DigestCheck::Matches => "matches".to_string(),
            super::container::DigestCheck::Mismatch { .. } =>
                "DOES NOT MATCH the container".to_string(),
        }
    );
    if let Some(h) = c.hash_matches {
        let _ = writeln!(
            s,
            "HASH: {}",
            if h {
                "matches the bitcode"
            } else {
                "DOES NOT MATCH the bitcode"
            }
        );
    }
    let sfi0 = c.features.unwrap_or(0);
    let _ = writeln!(
        s,
        "SFI0: {sfi0:#x} {}",
        flags::names_of(sfi0, &flags::FEATURE_NAMES).join(" ")
    );
    for e in &d.shader.entry_points {
        let raw = e.properties.shader_flags;
        let _ = writeln!(
            s,
            "entry {}:",
            if e.name.is_empty() {
                "(module)"
            } else {
                &e.name
            }
        );
        let _ = writeln!(
            s,
            "  raw shader flags: {raw:#x} {}",
            flags::names_of(raw, &flags::RAW_NAMES).join(" ")
        );
        if let Some(k) = e.properties.shader_kind {
            let _ = writeln!(s, "  kind: {}", k.name());
        }
        if let Some([x, y, z]) = e.properties.num_threads {
            let _ = writeln!(s, "  numthreads: {x} {y} {z}");
        }
        for (what, list) in [
            ("input", &e.signatures.inputs),
            ("output", &e.signatures.outputs),
            ("patch constant", &e.signatures.patch_constants),
        ] {
            for el in list.iter() {
                let _ = writeln!(
                    s,
                    "  {what} {} {}{:?} ({}) {} {}x{} at row {} col {}",
                    el.id,
                    el.name,
                    el.semantic_indices,
                    el.semantic_kind.name(),
                    el.component_type.name(),
                    el.rows,
                    el.cols,
                    el.start_row,
                    el.start_col
                );
            }
        }
        for res in e.resources.iter() {
            let range = if res.range_size == u32::MAX {
                "unbounded".to_string()
            } else {
                res.range_size.to_string()
            };
            let mut detail = String::new();
            if let Some(t) = res.element_type {
                let _ = write!(detail, " of {}", t.name());
            }
            if let Some(k) = res.sampler_kind {
                let _ = write!(detail, " ({})", k.name());
            }
            if res.class == ResourceClass::Cbv {
                let _ = write!(detail, " of {} bytes", res.cbuffer_size);
            }
            if !res.name.is_empty() {
                let _ = write!(detail, " \"{}\"", res.name);
            }
            let _ = writeln!(
                s,
                "  resource {}{} space {} (x{range}) {}{detail}",
                res.class.register_letter(),
                res.lower_bound,
                res.space,
                res.kind.name(),
            );
        }
    }
    let _ = writeln!(
        s,
        "dx.ops used: {}",
        r.ops_used.iter().copied().collect::<Vec<_>>().join(" ")
    );
    for fc in &r.flags {
        let entries: Vec<String> = fc
            .entries
            .iter()
            .map(|(n, decl, _)| format!("{n}: {}", if *decl { "set" } else { "not set" }))
            .collect();
        let _ = writeln!(
            s,
            "{}: {} by the code; SFI0: {}; raw flags: {}",
            fc.flag.name,
            if fc.required {
                "required"
            } else {
                "not required"
            },
            if fc.declared_sfi0 { "set" } else { "not set" },
            if entries.is_empty() {
                "-".to_string()
            } else {
                entries.join(", ")
            }
        );
        for cause in &fc.causes {
            let _ = writeln!(s, "  required by {cause}");
        }
    }
    if r.findings.is_empty() {
        s.push_str(
            "verdict: consistent (declared flags match the code, no availability rule broken)\n",
        );
    } else {
        let _ = writeln!(s, "verdict: {} problem(s)", r.findings.len());
        for f in &r.findings {
            let _ = writeln!(s, "  [{}] {}", f.rule.name(), f.message);
        }
    }
    s
}

/// The report as JSON for tools.
pub fn report_json(d: &DxilModule, r: &Report) -> serde_json::Value {
    use serde_json::json;
    let c = &d.container;
    let sfi0 = c.features.unwrap_or(0);
    let entries: Vec<_> = d
        .shader
        .entry_points
        .iter()
        .map(|e| {
            let sig = |list: &[super::shader::SignatureElement]| {
                list.iter()
                    .map(|el| {
                        json!({
                            "id": el.id, "name": el.name, "semantic_indices": el.semantic_indices,
                            "semantic_kind": el.semantic_kind.name(), "component_type": el.component_type.name(),
                            "interpolation": el.interpolation.name(), "rows": el.rows, "cols": el.cols,
                            "start_row": el.start_row, "start_col": el.start_col,
                        })
                    })
                    .collect::<Vec<_>>()
            };
            let resources: Vec<_> = e
                .resources
                .iter()
                .map(|res| {
                    json!({
                        "class": res.class.register_letter().to_string(), "id": res.id, "name": res.name, "space": res.space,
                        "lower_bound": res.lower_bound, "range_size": res.range_size, "kind": res.kind.name(),
                        "element_type": res.element_type.map(|t| t.name()),
                    })
                })
                .collect();
            json!({
                "name": e.name,
                "raw_shader_flags": e.properties.shader_flags,
                "raw_shader_flag_names": flags::names_of(e.properties.shader_flags, &flags::RAW_NAMES),
                "num_threads": e.properties.num_threads,
                "shader_kind": e.properties.shader_kind.map(|k| k.name()),
                "inputs": sig(&e.signatures.inputs),
                "outputs": sig(&e.signatures.outputs),
                "patch_constants": sig(&e.signatures.patch_constants),
                "resources": resources,
            })
        })
        .collect();
    json!({
        "shader_model": d.shader.shader_model.to_string(),
        "dxil_version": d.shader.dxil_version,
        "validator_version": d.shader.validator_version,
        "parts": c.parts.iter().map(|p| p.fourcc.to_string()).collect::<Vec<_>>(),
        "digest": match c.digest_check {
            super::container::DigestCheck::Unsigned => "unsigned",
            super::container::DigestCheck::Matches => "matches",
            super::container::DigestCheck::Mismatch { .. } => "mismatch",
        },
        "hash_matches": c.hash_matches,
        "sfi0": sfi0,
        "sfi0_names": flags::names_of(sfi0, &flags::FEATURE_NAMES),
        "entry_points": entries,
        "ops_used": r.ops_used,
        "flags": r.flags.iter().map(|f| json!({
            "flag": f.flag.name,
            "required": f.required,
            "declared_sfi0": f.declared_sfi0,
            "entries": f.entries.iter().map(|(n, decl, req)| json!({"entry": n, "declared": decl, "required": req})).collect::<Vec<_>>(),
            "causes": f.causes,
        })).collect::<Vec<_>>(),
        "findings": r.findings.iter().map(|f| json!({"rule": f.rule.name(), "message": f.message})).collect::<Vec<_>>(),
        "consistent": r.is_consistent(),
    })
}
