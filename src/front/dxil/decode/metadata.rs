//! `METADATA_BLOCK` (3.7 forms: one `STRING` record per string, `NODE` operands as id + 1,
//! `NAME` followed by `NAMED_NODE`, `KIND` records in a metadata block) and instruction
//! attachments. Metadata ids have their own numbering; a function's local metadata continues
//! after the module's and is appended to the module's arena, so [`Decoder::md_id`] maps a
//! function's local numbers into it. Node operands may point forward; they are checked when
//! the block ends.

use super::function::FnScope;
use super::{Decoder, Rec};
use crate::front::dxil::bitstream::Bitstream;
use crate::front::dxil::error::Result;
use crate::front::dxil::module::*;

impl Decoder {
    /// The arena id of metadata number `n` in the current scope.
    pub(super) fn md_id(&self, r: &Rec, n: u64, scope: Option<&FnScope>) -> Result<MdId> {
        let arena = match scope {
            Some(s) if n >= self.module_md as u64 => n - self.module_md as u64 + s.md_base as u64,
            _ => n,
        };
        match u32::try_from(arena) {
            Ok(id) => Ok(MdId(id)),
            Err(_) => r.err(format!("metadata id {n} out of range")),
        }
    }

    pub(super) fn read_metadata(
        &mut self,
        bs: &mut Bitstream,
        mut scope: Option<&mut FnScope>,
    ) -> Result<()> {
        let mut referenced: Vec<MdId> = Vec::new();
        let mut pending_name: Option<String> = None;
        while let Some(r) = super::next_record(bs, "METADATA_BLOCK")? {
            if pending_name.is_some() && r.code != 10 {
                return r.err("NAME not followed by NAMED_NODE");
            }
            let item = match r.code {
                1 => Metadata::String(r.bytes_from(0)?),
                2 => {
                    let ty = self.type_at(&r, 0)?;
                    if matches!(self.m.ty(ty), Type::Void | Type::Metadata | Type::Label) {
                        return r.err("metadata value of void, metadata or label type");
                    }
                    let id = r.op(1)?;
                    let value = match scope.as_deref_mut() {
                        Some(s) => s.value_abs(self, &r, id, ty)?,
                        None => match self.values.get(id as usize) {
                            Some(&(v, t)) if t == ty => v,
                            _ => {
                                return r.err(format!(
                                    "metadata value {id} is not a value of type {}",
                                    ty.0
                                ))
                            }
                        },
                    };
                    Metadata::Value { ty, value }
                }
                3 | 5 => {
                    let mut operands = Vec::with_capacity(r.len());
                    for &op in &r.ops {
                        operands.push(match op {
                            0 => None,
                            n => {
                                let id = self.md_id(&r, n - 1, scope.as_deref())?;
                                referenced.push(id);
                                Some(id)
                            }
                        });
                    }
                    Metadata::Node {
                        distinct: r.code == 5,
                        operands,
                    }
                }
                4 => {
                    pending_name = Some(r.string_from(0)?);
                    continue;
                }
                10 => {
                    let Some(name) = pending_name.take() else {
                        return r.err("NAMED_NODE without a NAME");
                    };
                    let mut operands = Vec::with_capacity(r.len());
                    for &op in &r.ops {
                        let id = self.md_id(&r, op, scope.as_deref())?;
                        referenced.push(id);
                        operands.push(id);
                    }
                    self.m.named_metadata.push(NamedMetadata { name, operands });
                    continue;
                }
                6 => {
                    let kind = r.op32(0)?;
                    let name = r.string_from(1)?;
                    self.m.md_kinds.push((kind, name));
                    continue;
                }
                8 | 9 => return r.err("pre-3.6 metadata nodes are not supported"),
                code => Metadata::Debug(code),
            };
            self.m.metadata.push(item);
        }
        if pending_name.is_some() {
            return Err(self.module_err("METADATA_BLOCK", "NAME at the end of the block"));
        }
        let n = self.m.metadata.len();
        if let Some(bad) = referenced.iter().find(|id| id.index() >= n) {
            return Err(self.module_err(
                "METADATA_BLOCK",
                format!("reference to metadata {} of {n}", bad.0),
            ));
        }
        Ok(())
    }

    /// `METADATA_ATTACHMENT`: `[instruction, (kind, node)...]` (function attachments, of even
    /// length, are skipped).
    pub(super) fn read_attachments(
        &mut self,
        bs: &mut Bitstream,
        scope: &FnScope,
        out: &mut Vec<(InstId, u32, MdId)>,
    ) -> Result<()> {
        while let Some(r) = super::next_record(bs, "METADATA_ATTACHMENT")? {
            if r.code != 11 || r.len() % 2 == 0 {
                continue;
            }
            let inst = r.op32(0)?;
            if inst as usize >= scope.inst_count {
                return r.err(format!(
                    "attachment to instruction {inst} of {}",
                    scope.inst_count
                ));
            }
            for pair in r.ops[1..].chunks_exact(2) {
                let kind = u32::try_from(pair[0]).or_else(|_| r.err("metadata kind too large"))?;
                let md = self.md_id(&r, pair[1], Some(scope))?;
                if md.index() >= self.m.metadata.len() {
                    return r.err(format!(
                        "attachment of metadata {} of {}",
                        md.0,
                        self.m.metadata.len()
                    ));
                }
                out.push((InstId(inst), kind, md));
            }
        }
        Ok(())
    }
}
