//! Records → [`Module`]: the LLVM 3.7 subset DXC writes. `MODULE_BLOCK` records (version,
//! triple, data layout, globals, functions) here; the type table, constants, metadata and
//! function bodies in their own files.
//!
//! The bitcode numbers values: globals and functions in record order, then module
//! constants; inside a function its arguments, its constants, then each instruction with a
//! result. `values` maps those absolute numbers to [`Value`]s and types while decoding
//! (truncated back to the module's values after each function); instruction operands are
//! relative to the next value number and may point forward, so inside a function an
//! instruction's result is first named by its result number and mapped to its [`InstId`]
//! once the body is complete.

mod constants;
mod function;
mod metadata;
mod types;

use std::collections::HashMap;

use super::bitstream::{Bitstream, Entry, Record};
use super::error::{DxilError, Result};
use super::module::*;

/// Block ids of LLVM's bitcode.
mod block {
    pub const MODULE: u32 = 8;
    pub const PARAMATTR: u32 = 9;
    pub const PARAMATTR_GROUP: u32 = 10;
    pub const CONSTANTS: u32 = 11;
    pub const FUNCTION: u32 = 12;
    pub const VALUE_SYMTAB: u32 = 14;
    pub const METADATA: u32 = 15;
    pub const METADATA_ATTACHMENT: u32 = 16;
    pub const TYPE_NEW: u32 = 17;
    pub const METADATA_KIND: u32 = 22;
}

/// A record with the name of its block, for bounds-checked operand access and messages.
pub(super) struct Rec {
    pub code: u32,
    pub ops: Vec<u64>,
    pub block: &'static str,
}

impl Rec {
    pub fn new(r: Record, block: &'static str) -> Rec {
        Rec {
            code: r.code,
            ops: r.ops,
            block,
        }
    }

    pub fn len(&self) -> usize {
        self.ops.len()
    }

    pub fn err<T>(&self, msg: impl Into<String>) -> Result<T> {
        Err(DxilError::Module {
            context: format!("{} record {}", self.block, self.code),
            msg: msg.into(),
        })
    }

    /// Operand `i`, or an error naming the record if it is missing.
    pub fn op(&self, i: usize) -> Result<u64> {
        match self.ops.get(i) {
            Some(&v) => Ok(v),
            None => self.err(format!("operand {i} missing ({} present)", self.ops.len())),
        }
    }

    pub fn op_or(&self, i: usize, default: u64) -> u64 {
        self.ops.get(i).copied().unwrap_or(default)
    }

    /// Operand `i` as a u32.
    pub fn op32(&self, i: usize) -> Result<u32> {
        let v = self.op(i)?;
        u32::try_from(v).or_else(|_| self.err(format!("operand {i} ({v}) too large")))
    }

    /// The operands from `i` on as the bytes of a string.
    pub fn bytes_from(&self, i: usize) -> Result<Vec<u8>> {
        self.ops
            .get(i..)
            .unwrap_or_default()
            .iter()
            .map(|&c| u8::try_from(c).or_else(|_| self.err(format!("character {c} in a string"))))
            .collect()
    }

    pub fn string_from(&self, i: usize) -> Result<String> {
        Ok(String::from_utf8_lossy(&self.bytes_from(i)?).into_owned())
    }
}

/// Decodes a signed VBR value: the sign in the lowest bit.
pub(super) fn sign_rotated(v: u64) -> i64 {
    if v & 1 == 0 {
        (v >> 1) as i64
    } else if v != 1 {
        -((v >> 1) as i64)
    } else {
        i64::MIN
    }
}

/// An alignment field: 0 unspecified, else log2(align) + 1.
pub(super) fn alignment(r: &Rec, encoded: u64) -> Result<u64> {
    match encoded {
        0 => Ok(0),
        e if e <= 30 => Ok(1 << (e - 1)),
        e => r.err(format!("alignment exponent {e}")),
    }
}

pub(super) struct Decoder {
    pub m: Module,
    /// Absolute value number → value and type.
    pub values: Vec<(Value, TypeId)>,
    pub type_index: HashMap<Type, TypeId>,
    sections: Vec<String>,
    /// Global initialisers by absolute value number, resolved after the module constants.
    pending_inits: Vec<(GlobalId, u64)>,
    /// Defined functions, in the order their bodies follow.
    bodies: std::collections::VecDeque<FuncId>,
    /// The number of module-level metadata items (function-local ids start there).
    pub module_md: usize,
}

/// Decodes a bitcode module.
pub fn decode(bitcode: &[u8]) -> Result<Module> {
    let mut bs = Bitstream::new(bitcode)?;
    let mut d = Decoder {
        m: Module::default(),
        values: Vec::new(),
        type_index: HashMap::new(),
        sections: Vec::new(),
        pending_inits: Vec::new(),
        bodies: Default::default(),
        module_md: 0,
    };
    loop {
        match bs.next()? {
            Some(Entry::SubBlock(block::MODULE)) => {
                bs.enter_block()?;
                d.read_module(&mut bs)?;
                return Ok(d.m);
            }
            Some(Entry::SubBlock(_)) => bs.skip_block()?,
            Some(Entry::Record(_)) | Some(Entry::EndBlock) => {
                return Err(DxilError::Bitstream {
                    bit: bs.bit(),
                    msg: "record outside any block".into(),
                })
            }
            None => {
                return Err(DxilError::Bitstream {
                    bit: bs.bit(),
                    msg: "no MODULE_BLOCK".into(),
                })
            }
        }
    }
}

impl Decoder {
    pub fn module_err(&self, context: &str, msg: impl Into<String>) -> DxilError {
        DxilError::Module {
            context: context.into(),
            msg: msg.into(),
        }
    }

    fn read_module(&mut self, bs: &mut Bitstream) -> Result<()> {
        loop {
            match bs.next()? {
                Some(Entry::Record(r)) => self.module_record(Rec::new(r, "MODULE_BLOCK"))?,
                Some(Entry::SubBlock(id)) => {
                    bs.enter_block()?;
                    match id {
                        block::PARAMATTR => self.read_paramattr(bs)?,
                        block::PARAMATTR_GROUP => self.read_paramattr_groups(bs)?,
                        block::TYPE_NEW => self.read_types(bs)?,
                        block::CONSTANTS => {
                            self.read_constants(bs)?;
                            self.resolve_inits()?;
                        }
                        block::METADATA | block::METADATA_KIND => {
                            self.read_metadata(bs, None)?;
                            self.module_md = self.m.metadata.len();
                        }
                        block::VALUE_SYMTAB => self.read_module_symtab(bs)?,
                        block::FUNCTION => {
                            self.resolve_inits()?;
                            let Some(f) = self.bodies.pop_front() else {
                                return Err(self.module_err(
                                    "FUNCTION_BLOCK",
                                    "more function bodies than defined functions",
                                ));
                            };
                            self.read_function(bs, f)?;
                        }
                        _ => bs.leave_block()?,
                    }
                }
                Some(Entry::EndBlock) | None => break,
            }
        }
        self.resolve_inits()?;
        if let Some(f) = self.bodies.front() {
            return Err(self.module_err("MODULE_BLOCK", format!("function {} has no body", f.0)));
        }
        if self.m.version != 1 {
            return Err(self.module_err(
                "MODULE_BLOCK",
                format!(
                    "bitcode version {} (DXIL uses 1: relative value ids, no string table)",
                    self.m.version
                ),
            ));
        }
        Ok(())
    }

    fn module_record(&mut self, r: Rec) -> Result<()> {
        match r.code {
            1 => {
                self.m.version = r.op(0)?;
                if self.m.version != 1 {
                    return r.err(format!("bitcode version {} (DXIL uses 1)", self.m.version));
                }
            }
            2 => self.m.triple = r.string_from(0)?,
            3 => self.m.datalayout = r.string_from(0)?,
            5 => self.sections.push(r.string_from(0)?),
            7 => self.global_var(&r)?,
            8 => self.function_record(&r)?,
            // ASM, DEPLIB, GCNAME, COMDAT, SOURCE_FILENAME, aliases: not used by DXIL.
            _ => {}
        }
        Ok(())
    }

    fn section(&self, r: &Rec, i: usize) -> Result<Option<String>> {
        match r.op_or(i, 0) {
            0 => Ok(None),
            s => match self.sections.get(s as usize - 1) {
                Some(name) => Ok(Some(name.clone())),
                None => r.err(format!("section {s} not declared")),
            },
        }
    }

    fn pointer_to(&mut self, pointee: TypeId, addrspace: u32) -> TypeId {
        self.intern(Type::Pointer { pointee, addrspace })
    }

    /// `GLOBALVAR: [type, isconst|explicit<<1|addrspace<<2, initid+1, linkage, align,
    /// section, visibility, threadlocal, unnamed_addr, ...]`.
    fn global_var(&mut self, r: &Rec) -> Result<()> {
        let ty = self.type_at(r, 0)?;
        let flags = r.op(1)?;
        let (value_type, addrspace) = if flags & 2 != 0 {
            let space = u32::try_from(flags >> 2).or_else(|_| r.err("address space too large"))?;
            (ty, space)
        } else {
            match self.m.ty(ty) {
                Type::Pointer { pointee, addrspace } => (*pointee, *addrspace),
                _ => return r.err("global's type is not a pointer"),
            }
        };
        let init = r.op(2)?;
        let linkage = linkage(r.op(3)?);
        let align = alignment(r, r.op_or(4, 0))?;
        let section = self.section(r, 5)?;
        let ptr_type = self.pointer_to(value_type, addrspace);
        let id = GlobalId(self.m.globals.len() as u32);
        if init != 0 {
            self.pending_inits.push((id, init - 1));
        }
        self.m.globals.push(GlobalVar {
            name: None,
            value_type,
            ptr_type,
            addrspace,
            is_const: flags & 1 != 0,
            init: None,
            linkage,
            align,
            section,
            thread_local: r.op_or(7, 0).min(255) as u8,
            unnamed_addr: r.op_or(8, 0) != 0,
        });
        self.values.push((Value::Global(id), ptr_type));
        Ok(())
    }

    /// `FUNCTION: [type, cc, isproto, linkage, paramattr, align, section, visibility, gc,
    /// unnamed_addr, ...]`.
    fn function_record(&mut self, r: &Rec) -> Result<()> {
        let mut fn_type = self.type_at(r, 0)?;
        if let Type::Pointer { pointee, .. } = self.m.ty(fn_type) {
            fn_type = *pointee;
        }
        let Type::Function { params, .. } = self.m.ty(fn_type) else {
            return r.err("function's type is not a function type");
        };
        let args = params
            .iter()
            .map(|&ty| Argument { ty, name: None })
            .collect();
        let is_declaration = r.op(2)? != 0;
        let attributes = r.op32(4)?;
        if attributes as usize > self.m.attribute_lists.len() {
            return r.err(format!("attribute list {attributes} not declared"));
        }
        let ptr_type = self.pointer_to(fn_type, 0);
        let id = FuncId(self.m.functions.len() as u32);
        self.m.functions.push(Function {
            name: None,
            fn_type,
            ptr_type,
            linkage: linkage(r.op(3)?),
            calling_conv: r.op32(1)?,
            attributes,
            align: alignment(r, r.op_or(5, 0))?,
            section: self.section(r, 6)?,
            unnamed_addr: r.op_or(9, 0) != 0,
            is_declaration,
            args,
            blocks: Vec::new(),
            insts: Vec::new(),
            inst_names: Vec::new(),
            inst_metadata: Vec::new(),
        });
        if !is_declaration {
            self.bodies.push_back(id);
        }
        self.values.push((Value::Function(id), ptr_type));
        Ok(())
    }

    fn resolve_inits(&mut self) -> Result<()> {
        for (g, id) in std::mem::take(&mut self.pending_inits) {
            let want = self.m.globals[g.index()].value_type;
            match self.values.get(id as usize) {
                Some(&(Value::Const(c), ty)) if ty == want => {
                    self.m.globals[g.index()].init = Some(c)
                }
                Some(_) => {
                    return Err(self.module_err(
                        "GLOBALVAR",
                        format!(
                            "initialiser {id} of global {} is not a constant of its type",
                            g.0
                        ),
                    ))
                }
                None => {
                    // Not yet read: the constants block comes later.
                    self.pending_inits.push((g, id));
                }
            }
        }
        Ok(())
    }

    /// `PARAMATTR_GROUP_BLOCK`: `ENTRY: [id, index, attrs...]`.
    fn read_paramattr_groups(&mut self, bs: &mut Bitstream) -> Result<()> {
        while let Some(r) = next_record(bs, "PARAMATTR_GROUP")? {
            if r.code != 3 {
                continue;
            }
            let id = r.op32(0)?;
            let index = r.op32(1)?;
            let mut attrs = Vec::new();
            let mut i = 2;
            while i < r.len() {
                let kind = r.op(i)?;
                i += 1;
                match kind {
                    0 => {
                        attrs.push(Attribute::Enum(r.op32(i)?));
                        i += 1;
                    }
                    1 => {
                        attrs.push(Attribute::Int(r.op32(i)?, r.op(i + 1)?));
                        i += 2;
                    }
                    3 | 4 => {
                        let take = |i: &mut usize| -> Result<String> {
                            let start = *i;
                            while r.op(*i)? != 0 {
                                *i += 1;
                            }
                            let s = Rec {
                                code: 0,
                                ops: r.ops[start..*i].to_vec(),
                                block: r.block,
                            }
                            .string_from(0)?;
                            *i += 1;
                            Ok(s)
                        };
                        let key = take(&mut i)?;
                        let value = if kind == 4 {
                            take(&mut i)?
                        } else {
                            String::new()
                        };
                        attrs.push(Attribute::Str(key, value));
                    }
                    k => return r.err(format!("attribute encoding {k}")),
                }
            }
            self.m
                .attribute_groups
                .push(AttributeGroup { id, index, attrs });
        }
        Ok(())
    }

    /// `PARAMATTR_BLOCK`: `ENTRY: [group ids...]`, one attribute list per record.
    fn read_paramattr(&mut self, bs: &mut Bitstream) -> Result<()> {
        while let Some(r) = next_record(bs, "PARAMATTR")? {
            if r.code == 2 {
                let groups = (0..r.len())
                    .map(|i| r.op32(i))
                    .collect::<Result<Vec<_>>>()?;
                self.m.attribute_lists.push(groups);
            }
        }
        Ok(())
    }

    /// The module's `VALUE_SYMTAB`: names of globals and functions.
    fn read_module_symtab(&mut self, bs: &mut Bitstream) -> Result<()> {
        while let Some(r) = next_record(bs, "VALUE_SYMTAB")? {
            if r.code != 1 {
                continue;
            }
            let id = r.op(0)?;
            let name = r.string_from(1)?;
            match self.values.get(id as usize) {
                Some((Value::Global(g), _)) => self.m.globals[g.index()].name = Some(name),
                Some((Value::Function(f), _)) => self.m.functions[f.index()].name = Some(name),
                _ => {
                    return r.err(format!(
                        "name for value {id}, which is not a global or function"
                    ))
                }
            }
        }
        Ok(())
    }
}

/// The next record of the current block (sub-blocks skipped), `None` at its end.
pub(super) fn next_record(bs: &mut Bitstream, block: &'static str) -> Result<Option<Rec>> {
    loop {
        match bs.next()? {
            Some(Entry::Record(r)) => return Ok(Some(Rec::new(r, block))),
            Some(Entry::SubBlock(_)) => bs.skip_block()?,
            Some(Entry::EndBlock) | None => return Ok(None),
        }
    }
}

/// LLVM 3.7's `getDecodedLinkage`.
fn linkage(v: u64) -> Linkage {
    match v {
        2 => Linkage::Appending,
        3 => Linkage::Internal,
        7 => Linkage::ExternalWeak,
        8 => Linkage::Common,
        9 | 13 | 14 => Linkage::Private,
        12 => Linkage::AvailableExternally,
        1 | 16 => Linkage::WeakAny,
        10 | 17 => Linkage::WeakOdr,
        4 | 18 => Linkage::LinkOnceAny,
        11 | 15 | 19 => Linkage::LinkOnceOdr,
        _ => Linkage::External,
    }
}
