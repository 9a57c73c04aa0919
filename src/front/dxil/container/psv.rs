//! `PSV0`, the pipeline state validation part: the runtime info (its size picks the version,
//! v0 24 bytes to v3 52), the resource bindings, and the string table for the v3 entry name.
//! The signature and dependency tables after them repeat what the metadata says and are not
//! read.

use super::parse::Bytes;
use super::{PipelineStateInfo, PsvResource};
use crate::front::dxil::error::Result;

pub(super) fn read_psv(b: Bytes) -> Result<PipelineStateInfo> {
    let info_size = b.u32(0, "PSV runtime info size")?;
    let info = b.sub(4, info_size as usize, "PSV runtime info")?;
    if info_size < 24 {
        return b.err(
            0,
            format!("PSV runtime info of {info_size} bytes (24 at least)"),
        );
    }
    let v1 = info_size >= 36;
    let v2 = info_size >= 48;
    let v3 = info_size >= 52;
    let mut at = 4 + info_size as usize;
    let count = b.u32(at, "PSV resource count")? as usize;
    at += 4;
    let mut resources = Vec::new();
    if count > 0 {
        let stride = b.u32(at, "PSV resource record size")? as usize;
        at += 4;
        if stride < 16 {
            return b.err(
                at - 4,
                format!("PSV resource record of {stride} bytes (16 at least)"),
            );
        }
        if count > b.len() / stride {
            return b.err(at, format!("{count} PSV resources cannot fit"));
        }
        for i in 0..count {
            let r = b.sub(at + i * stride, stride, "PSV resource")?;
            let long = stride >= 24;
            resources.push(PsvResource {
                res_type: r.u32(0, "resource type")?,
                space: r.u32(4, "space")?,
                lower_bound: r.u32(8, "lower bound")?,
                upper_bound: r.u32(12, "upper bound")?,
                kind: if long {
                    Some(r.u32(16, "resource kind")?)
                } else {
                    None
                },
                flags: if long {
                    Some(r.u32(20, "resource flags")?)
                } else {
                    None
                },
            });
        }
        at += count * stride;
    }
    let mut entry_name = None;
    if v1 {
        let table_size = b.u32(at, "PSV string table size")? as usize;
        let table = b.sub(at + 4, table_size, "PSV string table")?;
        if v3 {
            let name_offset = info.u32(48, "entry name offset")? as usize;
            entry_name = Some(table.cstr(name_offset, "entry name")?);
        }
    }
    Ok(PipelineStateInfo {
        info_size,
        min_wave_lanes: info.u32(16, "minimum wave lanes")?,
        max_wave_lanes: info.u32(20, "maximum wave lanes")?,
        shader_stage: if v1 {
            Some(info.u8(24, "shader stage")?)
        } else {
            None
        },
        signature_counts: if v1 {
            Some([
                info.u8(28, "inputs")?,
                info.u8(29, "outputs")?,
                info.u8(30, "patch constants")?,
            ])
        } else {
            None
        },
        num_threads: if v2 {
            Some([info.u32(36, "x")?, info.u32(40, "y")?, info.u32(44, "z")?])
        } else {
            None
        },
        resources,
        entry_name,
    })
}
