//! The `dx.*` metadata of a decoded module → [`ShaderInfo`]: `dx.version`, `dx.valver`,
//! `dx.shaderModel`, `dx.resources` and `dx.entryPoints` with their signatures, resources
//! and properties, in the field order of DXC's `DxilMetadataHelper.h`. Everything is read
//! by fixed field index from nodes; a missing or mistyped field is an error naming it.

use super::error::{DxilError, Result};
use super::module::*;
use super::shader::*;

fn err<T>(msg: impl Into<String>) -> Result<T> {
    Err(DxilError::Metadata(msg.into()))
}

/// Typed access to metadata nodes.
struct Md<'m> {
    m: &'m Module,
}

impl<'m> Md<'m> {
    fn item(&self, id: MdId, what: &str) -> Result<&'m Metadata> {
        match self.m.metadata.get(id.index()) {
            Some(md) => Ok(md),
            None => err(format!("{what}: metadata {} does not exist", id.0)),
        }
    }

    /// The operands of a node.
    fn node(&self, id: Option<MdId>, what: &str) -> Result<&'m [Option<MdId>]> {
        let Some(id) = id else {
            return err(format!("{what} is null"));
        };
        match self.item(id, what)? {
            Metadata::Node { operands, .. } => Ok(operands),
            _ => err(format!("{what} is not a node")),
        }
    }

    /// The operands of a node, or none for null.
    fn opt_node(&self, id: Option<MdId>, what: &str) -> Result<&'m [Option<MdId>]> {
        match id {
            None => Ok(&[]),
            some => self.node(some, what),
        }
    }

    /// Operand `i` of a node (null if missing).
    fn field(ops: &[Option<MdId>], i: usize) -> Option<MdId> {
        ops.get(i).copied().flatten()
    }

    fn value(&self, id: Option<MdId>, what: &str) -> Result<Value> {
        let Some(id) = id else {
            return err(format!("{what} is null"));
        };
        match self.item(id, what)? {
            Metadata::Value { value, .. } => Ok(*value),
            _ => err(format!("{what} is not a value")),
        }
    }

    fn int(&self, id: Option<MdId>, what: &str) -> Result<i64> {
        match self.m.const_int(self.value(id, what)?) {
            Some(v) => Ok(v),
            None => err(format!("{what} is not an integer constant")),
        }
    }

    fn u32(&self, id: Option<MdId>, what: &str) -> Result<u32> {
        // Fields such as an unbounded range size are i32 -1.
        Ok(self.int(id, what)? as u32)
    }

    fn string(&self, id: Option<MdId>, what: &str) -> Result<String> {
        let Some(id) = id else {
            return err(format!("{what} is null"));
        };
        match self.item(id, what)? {
            Metadata::String(s) => Ok(String::from_utf8_lossy(s).into_owned()),
            _ => err(format!("{what} is not a string")),
        }
    }

    /// A flat `{tag, value, tag, value...}` list of integers.
    fn tag_list(&self, id: Option<MdId>, what: &str) -> Result<Vec<(u32, u64)>> {
        let ops = self.opt_node(id, what)?;
        ops.chunks(2)
            .map(|pair| {
                Ok((
                    self.u32(pair[0], what)?,
                    self.int(pair.get(1).copied().flatten(), what)? as u64,
                ))
            })
            .collect()
    }

    /// The first operand node of a named metadata.
    fn named_first(&self, name: &str) -> Option<MdId> {
        self.m.named_md(name).and_then(|ops| ops.first().copied())
    }

    fn version(&self, name: &str) -> Result<Option<(u32, u32)>> {
        match self.named_first(name) {
            None => Ok(None),
            Some(id) => {
                let ops = self.node(Some(id), name)?;
                Ok(Some((
                    self.u32(Self::field(ops, 0), name)?,
                    self.u32(Self::field(ops, 1), name)?,
                )))
            }
        }
    }
}

/// Reads what the module's `dx.*` metadata declares.
pub fn read_shader_info(m: &Module) -> Result<ShaderInfo> {
    let md = Md { m };
    let Some(sm) = md.named_first("dx.shaderModel") else {
        return err("no dx.shaderModel");
    };
    let sm_ops = md.node(Some(sm), "dx.shaderModel")?;
    let prefix = md.string(Md::field(sm_ops, 0), "shader model kind")?;
    let Some(kind) = ShaderKind::from_profile_prefix(&prefix) else {
        return err(format!("unknown shader model kind '{prefix}'"));
    };
    let shader_model = ShaderModel {
        kind,
        major: md.u32(Md::field(sm_ops, 1), "shader model major")?,
        minor: md.u32(Md::field(sm_ops, 2), "shader model minor")?,
    };
    let resources = match md.named_first("dx.resources") {
        Some(id) => read_resources(&md, Some(id))?,
        None => Resources::default(),
    };
    let mut entry_points = Vec::new();
    for &ep in m.named_md("dx.entryPoints").unwrap_or_default() {
        entry_points.push(read_entry(&md, ep)?);
    }
    Ok(ShaderInfo {
        dxil_version: md.version("dx.version")?,
        validator_version: md.version("dx.valver")?,
        shader_model,
        resources,
        entry_points,
    })
}

fn read_entry(md: &Md, id: MdId) -> Result<EntryPoint> {
    let ops = md.node(Some(id), "entry point")?;
    let function = match Md::field(ops, 0) {
        None => None,
        f => match md.value(f, "entry function")? {
            Value::Function(f) => Some(f),
            // A library's module-level entry holds `null`, which 3.7 writes as a constant.
            Value::Const(_) => None,
            _ => return err("entry function is not a function"),
        },
    };
    let name = md.string(Md::field(ops, 1), "entry name")?;
    let sigs = md.opt_node(Md::field(ops, 2), "entry signatures")?;
    let list = |i: usize, what: &str| -> Result<Vec<SignatureElement>> {
        md.opt_node(Md::field(sigs, i), what)?
            .iter()
            .map(|&e| read_signature_element(md, e))
            .collect()
    };
    let signatures = Signatures {
        inputs: list(0, "input signature")?,
        outputs: list(1, "output signature")?,
        patch_constants: list(2, "patch-constant signature")?,
    };
    let resources = read_resources(md, Md::field(ops, 3))?;
    let properties = read_properties(md, Md::field(ops, 4))?;
    Ok(EntryPoint {
        function,
        name,
        signatures,
        resources,
        properties,
    })
}

fn read_signature_element(md: &Md, id: Option<MdId>) -> Result<SignatureElement> {
    let what = "signature element";
    let ops = md.node(id, what)?;
    let f = |i| Md::field(ops, i);
    let semantic_indices = md
        .opt_node(f(4), "semantic indices")?
        .iter()
        .map(|&i| md.u32(i, "semantic index"))
        .collect::<Result<Vec<_>>>()?;
    Ok(SignatureElement {
        id: md.u32(f(0), "signature element id")?,
        name: md.string(f(1), "signature element name")?,
        component_type: ComponentType::from_raw(md.u32(f(2), "component type")?),
        semantic_kind: SemanticKind::from_raw(md.u32(f(3), "semantic kind")?),
        semantic_indices,
        interpolation: InterpolationMode::from_raw(md.u32(f(5), "interpolation mode")?),
        rows: md.u32(f(6), "rows")?,
        cols: md.u32(f(7), "columns")?,
        start_row: md.int(f(8), "start row")? as i32,
        start_col: md.int(f(9), "start column")? as i32,
        properties: md.tag_list(f(10), "signature element properties")?,
    })
}

fn read_resources(md: &Md, id: Option<MdId>) -> Result<Resources> {
    let ops = md.opt_node(id, "resources")?;
    let list = |i: usize, class: ResourceClass| -> Result<Vec<Resource>> {
        md.opt_node(Md::field(ops, i), "resource list")?
            .iter()
            .map(|&r| read_resource(md, r, class))
            .collect()
    };
    Ok(Resources {
        srvs: list(0, ResourceClass::Srv)?,
        uavs: list(1, ResourceClass::Uav)?,
        cbvs: list(2, ResourceClass::Cbv)?,
        samplers: list(3, ResourceClass::Sampler)?,
    })
}

fn read_resource(md: &Md, id: Option<MdId>, class: ResourceClass) -> Result<Resource> {
    let ops = md.node(id, "resource")?;
    let f = |i| Md::field(ops, i);
    let symbol_type = match f(1) {
        None => None,
        s => {
            let v = md.value(s, "resource symbol")?;
            let ty = match v {
                Value::Const(c) => md.m.constant(c).ty,
                Value::Global(g) => md.m.globals[g.index()].ptr_type,
                _ => return err("resource symbol is not a constant or global"),
            };
            match md.m.ty(ty) {
                Type::Pointer { pointee, .. } => Some(*pointee),
                _ => None,
            }
        }
    };
    let mut r = Resource {
        class,
        id: md.u32(f(0), "resource id")?,
        symbol_type,
        name: md.string(f(2), "resource name")?,
        space: md.u32(f(3), "resource space")?,
        lower_bound: md.u32(f(4), "resource lower bound")?,
        range_size: md.u32(f(5), "resource range size")?,
        kind: ResourceKind::Invalid,
        sample_count: 0,
        globally_coherent: false,
        has_counter: false,
        rasterizer_ordered: false,
        cbuffer_size: 0,
        sampler_kind: None,
        element_type: None,
        element_stride: None,
        properties: Vec::new(),
    };
    let tags = match class {
        ResourceClass::Srv => {
            r.kind = ResourceKind::from_raw(md.u32(f(6), "SRV shape")?);
            r.sample_count = md.u32(f(7), "SRV sample count")?;
            f(8)
        }
        ResourceClass::Uav => {
            r.kind = ResourceKind::from_raw(md.u32(f(6), "UAV shape")?);
            r.globally_coherent = md.int(f(7), "UAV globally coherent")? != 0;
            r.has_counter = md.int(f(8), "UAV counter")? != 0;
            r.rasterizer_ordered = md.int(f(9), "UAV ROV")? != 0;
            f(10)
        }
        ResourceClass::Cbv => {
            r.kind = ResourceKind::CBuffer;
            r.cbuffer_size = md.u32(f(6), "CBV size")?;
            f(7)
        }
        ResourceClass::Sampler => {
            r.kind = ResourceKind::Sampler;
            r.sampler_kind = Some(SamplerKind::from_raw(md.u32(f(6), "sampler kind")?));
            f(7)
        }
    };
    r.properties = md.tag_list(tags, "resource properties")?;
    for &(tag, value) in &r.properties {
        match tag {
            0 => r.element_type = Some(ComponentType::from_raw(value as u32)),
            1 => r.element_stride = Some(value as u32),
            _ => {}
        }
    }
    Ok(r)
}

fn read_properties(md: &Md, id: Option<MdId>) -> Result<EntryProperties> {
    let ops = md.opt_node(id, "entry properties")?;
    let mut p = EntryProperties::default();
    for pair in ops.chunks(2) {
        let tag = md.u32(pair[0], "entry property tag")?;
        let value = pair.get(1).copied().flatten();
        match tag {
            0 => p.shader_flags = md.int(value, "shader flags")? as u64,
            4 => {
                let t = md.node(value, "numthreads")?;
                let get = |i| md.u32(Md::field(t, i), "numthreads");
                p.num_threads = Some([get(0)?, get(1)?, get(2)?]);
            }
            8 => p.shader_kind = Some(ShaderKind::from_raw(md.u32(value, "shader kind")?)),
            11 | 23 => {
                let t = md.node(value, "wave size")?;
                let get = |i| match Md::field(t, i) {
                    None => Ok(0),
                    v => md.u32(v, "wave size"),
                };
                p.wave_size = Some([get(0)?, get(1)?, get(2)?]);
            }
            _ => p.other.push((tag, value)),
        }
    }
    Ok(p)
}
