//! What a resource handle operand refers to, as far as the code says it statically: the
//! handle's defining call is followed (`annotateHandle` → its resource properties;
//! `createHandle` → the `dx.resources` range by class and range id;
//! `createHandleFromBinding` → the range by class, space and register). Handles that flow
//! through phis, selects or loads resolve to `None`.

use super::module::{ConstKind, Function, Module, Value};
use super::ops::opcode;
use super::shader::{ComponentType, Resource, ResourceClass, ResourceKind, ShaderInfo};

/// The static facts about a handle.
#[derive(Debug, Clone, PartialEq)]
pub struct HandleInfo<'a> {
    pub class: ResourceClass,
    pub kind: ResourceKind,
    /// Element type of typed resources (textures, typed buffers).
    pub component_type: Option<ComponentType>,
    /// Samplers: whether it is a comparison sampler.
    pub comparison_sampler: bool,
    /// Multisample count where known (0: not multisampled or unknown).
    pub sample_count: u32,
    /// Structured buffers: the element stride in bytes, where known (0 otherwise).
    pub stride: u32,
    /// The declared range, when the handle names one.
    pub resource: Option<&'a Resource>,
}

/// Decodes `%dx.types.ResourceProperties { i32 dword0, i32 dword1 }`
/// (`DxilResourceProperties.h`).
pub(crate) fn from_properties<'a>(dword0: u32, dword1: u32) -> HandleInfo<'a> {
    let kind = ResourceKind::from_raw(dword0 & 0xFF);
    let uav = dword0 & (1 << 12) != 0;
    let cmp_or_counter = dword0 & (1 << 15) != 0;
    let class = match kind {
        ResourceKind::Sampler => ResourceClass::Sampler,
        ResourceKind::CBuffer => ResourceClass::Cbv,
        _ if uav => ResourceClass::Uav,
        _ => ResourceClass::Srv,
    };
    let typed = matches!(
        kind,
        ResourceKind::Texture1D
            | ResourceKind::Texture2D
            | ResourceKind::Texture2DMS
            | ResourceKind::Texture3D
            | ResourceKind::TextureCube
            | ResourceKind::Texture1DArray
            | ResourceKind::Texture2DArray
            | ResourceKind::Texture2DMSArray
            | ResourceKind::TextureCubeArray
            | ResourceKind::TypedBuffer
    );
    HandleInfo {
        class,
        kind,
        component_type: typed.then(|| ComponentType::from_raw(dword1 & 0xFF)),
        comparison_sampler: kind == ResourceKind::Sampler && cmp_or_counter,
        sample_count: if typed { (dword1 >> 16) & 0xFF } else { 0 },
        stride: if kind == ResourceKind::StructuredBuffer {
            dword1
        } else {
            0
        },
        resource: None,
    }
}

fn from_resource(r: &Resource) -> HandleInfo<'_> {
    HandleInfo {
        class: r.class,
        kind: r.kind,
        component_type: r.element_type,
        comparison_sampler: r.sampler_kind == Some(super::shader::SamplerKind::Comparison),
        sample_count: r.sample_count,
        stride: r.element_stride.unwrap_or(0),
        resource: Some(r),
    }
}

fn class_from_raw(c: i64) -> Option<ResourceClass> {
    Some(match c {
        0 => ResourceClass::Srv,
        1 => ResourceClass::Uav,
        2 => ResourceClass::Cbv,
        3 => ResourceClass::Sampler,
        _ => return None,
    })
}

/// The integer fields of a constant struct (`zeroinitializer` gives zeros).
fn const_fields(m: &Module, v: Value, n: usize) -> Option<Vec<i64>> {
    let c = m.as_constant(v)?;
    match &c.kind {
        ConstKind::Null => Some(vec![0; n]),
        ConstKind::Aggregate(elems) => elems.iter().map(|&e| m.const_int(e)).collect(),
        _ => None,
    }
}

/// What `handle` (an operand of `func`) refers to.
pub fn resolve_handle<'a>(
    m: &Module,
    info: &'a ShaderInfo,
    func: &Function,
    handle: Value,
) -> Option<HandleInfo<'a>> {
    resolve(m, info, func, handle, 0)
}

/// Annotations nest one deep in DXC's output; a longer chain (or a cycle in a hostile module)
/// resolves to nothing.
const MAX_CHAIN: u32 = 8;

fn resolve<'a>(
    m: &Module,
    info: &'a ShaderInfo,
    func: &Function,
    handle: Value,
    depth: u32,
) -> Option<HandleInfo<'a>> {
    let Value::Inst(i) = handle else { return None };
    if depth > MAX_CHAIN {
        return None;
    }
    let (op, args) = m.dx_op(func.inst(i))?;
    match op {
        opcode::ANNOTATE_HANDLE => {
            let props = const_fields(m, *args.get(1)?, 2)?;
            let mut h = from_properties(*props.first()? as u32, *props.get(1)? as u32);
            h.resource =
                resolve(m, info, func, args[0], depth + 1).and_then(|inner| inner.resource);
            Some(h)
        }
        opcode::CREATE_HANDLE => {
            let class = class_from_raw(m.const_int(*args.first()?)?)?;
            let range = m.const_int(*args.get(1)?)?;
            let r = declared(info).find(|r| r.class == class && i64::from(r.id) == range)?;
            Some(from_resource(r))
        }
        opcode::CREATE_HANDLE_FROM_BINDING => {
            // %dx.types.ResBind { i32 lower, i32 upper, i32 space, i8 class }
            let bind = const_fields(m, *args.first()?, 4)?;
            let class = class_from_raw(*bind.get(3)?)?;
            let (lower, space) = (bind[0], bind[2]);
            let r = declared(info).find(|r| {
                r.class == class && i64::from(r.space) == space && i64::from(r.lower_bound) == lower
            })?;
            Some(from_resource(r))
        }
        _ => None,
    }
}

/// Module-level resources, then each entry point's.
fn declared(info: &ShaderInfo) -> impl Iterator<Item = &Resource> {
    info.resources
        .iter()
        .chain(info.entry_points.iter().flat_map(|e| e.resources.iter()))
}
