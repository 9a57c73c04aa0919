//! `FUNCTION_BLOCK`: a function body. Operands are relative to the next value number
//! (`InstNum`), a value/type pair carries its type only when it points forward, PHI operands
//! are signed, and a few operands (alloca sizes, switch cases) are absolute. Results are named
//! by their result number while decoding ([`FnScope`]); when the block ends every operand is
//! mapped to its instruction's [`InstId`] and every forward reference's stated type is checked
//! against the instruction it names.

use super::constants::{binop, castop, predicate};
use super::{alignment, block, sign_rotated, Decoder, Rec};
use crate::front::dxil::bitstream::{Bitstream, Entry};
use crate::front::dxil::error::Result;
use crate::front::dxil::module::*;

/// Decoding state of one function body.
pub(super) struct FnScope {
    /// Where this function's local metadata starts in the module's arena.
    pub md_base: usize,
    /// Value number of the first instruction result (set by the first instruction, or by a
    /// forward reference from local metadata, which precedes the instructions).
    first_result: Option<u64>,
    /// Forward references: result number and the type the referrer stated.
    forward: Vec<(u32, TypeId)>,
    /// Instructions decoded so far.
    pub inst_count: usize,
    /// Result number → instruction.
    result_insts: Vec<InstId>,
    /// Declared number of basic blocks.
    blocks: u32,
}

impl FnScope {
    /// The value with absolute number `id`, which must have type `ty`; a number past the
    /// values known so far is a forward reference to an instruction result.
    pub fn value_abs(&mut self, d: &Decoder, r: &Rec, id: u64, ty: TypeId) -> Result<Value> {
        if let Some(&(v, t)) = d.values.get(id as usize) {
            if t != ty {
                return r.err(format!(
                    "value {id} has type {}, used as type {}",
                    t.0, ty.0
                ));
            }
            return Ok(v);
        }
        let first = *self.first_result.get_or_insert(d.values.len() as u64);
        let Some(k) = id.checked_sub(first).and_then(|k| u32::try_from(k).ok()) else {
            return r.err(format!("value {id} out of range"));
        };
        self.forward.push((k, ty));
        Ok(Value::Inst(InstId(k)))
    }
}

/// Operand reader over one instruction record.
struct Ops<'r> {
    r: &'r Rec,
    i: usize,
    /// The next value number (`InstNum`).
    next: u64,
}

impl Ops<'_> {
    fn more(&self) -> bool {
        self.i < self.r.len()
    }

    fn raw(&mut self) -> Result<u64> {
        let v = self.r.op(self.i)?;
        self.i += 1;
        Ok(v)
    }

    fn relative_id(&mut self) -> Result<u64> {
        let rel = self.raw()?;
        Ok(u64::from((self.next as u32).wrapping_sub(rel as u32)))
    }
}

impl Decoder {
    /// A relative value operand of known type.
    fn val(&self, s: &mut FnScope, o: &mut Ops, ty: TypeId) -> Result<Value> {
        let id = o.relative_id()?;
        s.value_abs(self, o.r, id, ty)
    }

    /// A relative value/type pair: the type follows only for a forward reference.
    fn val_ty(&self, s: &mut FnScope, o: &mut Ops) -> Result<(Value, TypeId)> {
        let id = o.relative_id()?;
        if id < o.next {
            match self.values.get(id as usize) {
                Some(&(v, t)) => Ok((v, t)),
                None => o.r.err(format!("value {id} out of range")),
            }
        } else {
            let ty = self.type_at(o.r, o.i)?;
            o.i += 1;
            Ok((s.value_abs(self, o.r, id, ty)?, ty))
        }
    }

    fn bb(&self, s: &FnScope, o: &mut Ops) -> Result<BlockId> {
        let b = o.raw()?;
        if b >= u64::from(s.blocks) {
            return o.r.err(format!("block {b} of {}", s.blocks));
        }
        Ok(BlockId(b as u32))
    }

    fn pointee(&self, r: &Rec, ptr_ty: TypeId) -> Result<(TypeId, u32)> {
        match self.m.ty(ptr_ty) {
            Type::Pointer { pointee, addrspace } => Ok((*pointee, *addrspace)),
            _ => r.err("operand is not a pointer"),
        }
    }

    pub(super) fn read_function(&mut self, bs: &mut Bitstream, f: FuncId) -> Result<()> {
        let module_values = self.values.len();
        let fn_type = self.m.functions[f.index()].fn_type;
        let Type::Function { params, .. } = self.m.ty(fn_type).clone() else {
            return Err(self.module_err("FUNCTION_BLOCK", "function without a function type"));
        };
        for (i, &ty) in params.iter().enumerate() {
            self.values.push((Value::Arg(i as u32), ty));
        }
        let mut s = FnScope {
            md_base: self.m.metadata.len(),
            first_result: None,
            forward: Vec::new(),
            inst_count: 0,
            result_insts: Vec::new(),
            blocks: 0,
        };
        let mut insts: Vec<Instruction> = Vec::new();
        let mut blocks: Vec<BasicBlock> = Vec::new();
        let mut block_start = 0u32;
        let mut attachments = Vec::new();
        let mut value_names: Vec<(u64, String)> = Vec::new();
        let mut block_names: Vec<(u64, String)> = Vec::new();
        loop {
            match bs.next()? {
                Some(Entry::Record(r)) => {
                    let r = Rec::new(r, "FUNCTION_BLOCK");
                    match r.code {
                        1 => {
                            let n = r.op(0)?;
                            if n == 0 || n > bs.bits_left() / 4 {
                                return r.err(format!("{n} basic blocks declared"));
                            }
                            s.blocks = n as u32;
                            blocks.reserve(n as usize);
                        }
                        33 | 35 => {} // debug locations
                        _ => {
                            if s.blocks == 0 {
                                return r.err("instruction before DECLAREBLOCKS");
                            }
                            if blocks.len() == s.blocks as usize {
                                return r.err("instruction after the last block's terminator");
                            }
                            s.first_result.get_or_insert(self.values.len() as u64);
                            let inst = self.instruction(&r, &mut s)?;
                            let id = InstId(insts.len() as u32);
                            if let Some(ty) = inst.result_type() {
                                if !matches!(self.m.ty(ty), Type::Void) {
                                    s.result_insts.push(id);
                                    let k = (s.result_insts.len() - 1) as u32;
                                    self.values.push((Value::Inst(InstId(k)), ty));
                                }
                            }
                            let terminator = inst.is_terminator();
                            insts.push(inst);
                            s.inst_count = insts.len();
                            if terminator {
                                blocks.push(BasicBlock {
                                    name: None,
                                    start: InstId(block_start),
                                    end: InstId(insts.len() as u32),
                                });
                                block_start = insts.len() as u32;
                            }
                        }
                    }
                }
                Some(Entry::SubBlock(id)) => {
                    bs.enter_block()?;
                    match id {
                        block::CONSTANTS => {
                            if s.first_result.is_some() {
                                return Err(self
                                    .module_err("FUNCTION_BLOCK", "constants after instructions"));
                            }
                            self.read_constants(bs)?;
                        }
                        block::METADATA => self.read_metadata(bs, Some(&mut s))?,
                        block::METADATA_ATTACHMENT => {
                            self.read_attachments(bs, &s, &mut attachments)?
                        }
                        block::VALUE_SYMTAB => {
                            while let Some(r) = super::next_record(bs, "VALUE_SYMTAB")? {
                                match r.code {
                                    1 => value_names.push((r.op(0)?, r.string_from(1)?)),
                                    2 => block_names.push((r.op(0)?, r.string_from(1)?)),
                                    _ => {}
                                }
                            }
                        }
                        _ => bs.leave_block()?,
                    }
                }
                Some(Entry::EndBlock) | None => break,
            }
        }
        let ctx = "FUNCTION_BLOCK";
        if s.blocks == 0 || blocks.len() != s.blocks as usize || block_start as usize != insts.len()
        {
            return Err(self.module_err(
                ctx,
                format!(
                    "{} blocks declared, {} terminated, {} instructions after the last terminator",
                    s.blocks,
                    blocks.len(),
                    insts.len() - block_start as usize
                ),
            ));
        }
        // Result numbers → instruction ids, and forward references' types.
        let results = std::mem::take(&mut s.result_insts);
        for &(k, ty) in &s.forward {
            let Some(&inst) = results.get(k as usize) else {
                return Err(self.module_err(
                    ctx,
                    format!("forward reference to result {k} of {}", results.len()),
                ));
            };
            if insts[inst.index()].result_type() != Some(ty) {
                return Err(self.module_err(
                    ctx,
                    format!("forward reference to result {k} with the wrong type"),
                ));
            }
        }
        let map = |v: &mut Value| {
            if let Value::Inst(InstId(k)) = v {
                *v = Value::Inst(results[*k as usize]);
            }
        };
        for inst in &mut insts {
            inst.for_each_operand_mut(map);
        }
        for md in &mut self.m.metadata[s.md_base..] {
            if let Metadata::Value { value, .. } = md {
                map(value);
            }
        }
        // Names: values by number (arguments, results), blocks by index.
        let mut inst_names = vec![None; insts.len()];
        let func = &mut self.m.functions[f.index()];
        for (id, name) in value_names {
            match self.values.get(id as usize) {
                Some((Value::Arg(a), _)) => func.args[*a as usize].name = Some(name),
                Some((Value::Inst(InstId(k)), _)) => {
                    inst_names[results[*k as usize].index()] = Some(name)
                }
                _ => {
                    return Err(self.module_err(
                        "VALUE_SYMTAB",
                        format!("name for value {id}, which is not local"),
                    ))
                }
            }
        }
        for (b, name) in block_names {
            match blocks.get_mut(b as usize) {
                Some(block) => block.name = Some(name),
                None => {
                    return Err(self.module_err(
                        "VALUE_SYMTAB",
                        format!("name for block {b} of {}", blocks.len()),
                    ))
                }
            }
        }
        func.insts = insts;
        func.blocks = blocks;
        func.inst_names = inst_names;
        func.inst_metadata = attachments;
        self.values.truncate(module_values);
        Ok(())
    }

    fn ordering(r: &Rec, v: u64) -> Result<AtomicOrdering> {
        use AtomicOrdering::*;
        Ok(match v {
            0 => NotAtomic,
            1 => Unordered,
            2 => Monotonic,
            3 => Acquire,
            4 => Release,
            5 => AcqRel,
            6 => SeqCst,
            o => return r.err(format!("atomic ordering {o}")),
        })
    }

    /// The `align, vol[, ordering, scope]` that ends load and store records.
    fn memory_tail(o: &mut Ops, atomic: bool) -> Result<(u64, bool, AtomicOrdering, SyncScope)> {
        let align = alignment(o.r, o.raw()?)?;
        let volatile = o.raw()? != 0;
        let (ordering, scope) = if atomic {
            (Self::ordering(o.r, o.raw()?)?, Self::scope(o.r, o.raw()?)?)
        } else {
            (AtomicOrdering::NotAtomic, SyncScope::System)
        };
        Ok((align, volatile, ordering, scope))
    }

    fn scope(r: &Rec, v: u64) -> Result<SyncScope> {
        match v {
            0 => Ok(SyncScope::SingleThread),
            1 => Ok(SyncScope::System),
            s => r.err(format!("synchronisation scope {s}")),
        }
    }

    /// The type `ty` indexes to through `indices` (extractvalue / insertvalue).
    fn walk_aggregate(&self, r: &Rec, mut ty: TypeId, indices: &[u32]) -> Result<TypeId> {
        if indices.is_empty() {
            return r.err("aggregate access without indices");
        }
        for &i in indices {
            ty = match self.m.ty(ty) {
                Type::Struct { .. } | Type::Array { .. } => {
                    match self.m.member_type(ty, u64::from(i)) {
                        Some(t) => t,
                        None => return r.err(format!("index {i} out of range")),
                    }
                }
                _ => return r.err("index into a type that is not a struct or array"),
            };
        }
        Ok(ty)
    }

    fn bool_like(&mut self, ty: TypeId) -> TypeId {
        let i1 = self.intern(Type::Int(1));
        match self.m.ty(ty) {
            Type::Vector { len, .. } => {
                let len = *len;
                self.intern(Type::Vector { len, elem: i1 })
            }
            _ => i1,
        }
    }

    fn instruction(&mut self, r: &Rec, s: &mut FnScope) -> Result<Instruction> {
        let mut o = Ops {
            r,
            i: 0,
            next: self.values.len() as u64,
        };
        let o = &mut o;
        Ok(match r.code {
            2 => {
                let (lhs, ty) = self.val_ty(s, o)?;
                let rhs = self.val(s, o, ty)?;
                let float = self.m.ty(ty).is_float()
                    || self
                        .m
                        .ty(ty)
                        .element()
                        .is_some_and(|e| self.m.ty(e).is_float());
                let op = binop(r, o.raw()?, float)?;
                let flags = if o.more() { o.raw()? as u8 } else { 0 };
                Instruction::Binary {
                    op,
                    lhs,
                    rhs,
                    flags,
                    ty,
                }
            }
            3 => {
                let (value, _) = self.val_ty(s, o)?;
                let ty = self.type_at(r, o.i)?;
                o.i += 1;
                let op = castop(r, o.raw()?)?;
                Instruction::Cast { op, value, ty }
            }
            4 | 30 | 43 => {
                let (inbounds, explicit) = match r.code {
                    43 => (o.raw()? != 0, {
                        let t = self.type_at(r, o.i)?;
                        o.i += 1;
                        Some(t)
                    }),
                    code => (code == 30, None),
                };
                let (ptr, ptr_ty) = self.val_ty(s, o)?;
                let (pointee, addrspace) = self.pointee(r, ptr_ty)?;
                let source_type = explicit.unwrap_or(pointee);
                if source_type != pointee {
                    return r.err("GEP's explicit type is not the pointer's pointee type");
                }
                let mut indices = Vec::new();
                let mut cur = source_type;
                let mut first = true;
                while o.more() {
                    let (idx, _) = self.val_ty(s, o)?;
                    if !first {
                        cur = match self.m.ty(cur) {
                            Type::Struct { .. } => {
                                let k = self.m.as_constant(idx).and_then(|c| c.as_u64(&self.m));
                                match k.and_then(|k| self.m.member_type(cur, k)) {
                                    Some(t) => t,
                                    None => {
                                        return r
                                            .err("GEP struct index is not a constant field number")
                                    }
                                }
                            }
                            Type::Array { elem, .. } | Type::Vector { elem, .. } => *elem,
                            _ => return r.err("GEP indexes into a type that is not an aggregate"),
                        };
                    }
                    first = false;
                    indices.push(idx);
                }
                let ty = self.intern(Type::Pointer {
                    pointee: cur,
                    addrspace,
                });
                Instruction::Gep {
                    inbounds,
                    source_type,
                    ptr,
                    indices,
                    ty,
                }
            }
            6 => {
                let (vector, vty) = self.val_ty(s, o)?;
                let (index, _) = self.val_ty(s, o)?;
                let Some(ty) = (matches!(self.m.ty(vty), Type::Vector { .. }))
                    .then(|| self.m.ty(vty).element())
                    .flatten()
                else {
                    return r.err("extractelement of a value that is not a vector");
                };
                Instruction::ExtractElement { vector, index, ty }
            }
            7 => {
                let (vector, ty) = self.val_ty(s, o)?;
                let Some(elem) = (matches!(self.m.ty(ty), Type::Vector { .. }))
                    .then(|| self.m.ty(ty).element())
                    .flatten()
                else {
                    return r.err("insertelement into a value that is not a vector");
                };
                let value = self.val(s, o, elem)?;
                let (index, _) = self.val_ty(s, o)?;
                Instruction::InsertElement {
                    vector,
                    value,
                    index,
                    ty,
                }
            }
            8 => {
                let (a, aty) = self.val_ty(s, o)?;
                let b = self.val(s, o, aty)?;
                let (mask, mty) = self.val_ty(s, o)?;
                let (Type::Vector { elem, .. }, Type::Vector { len, .. }) =
                    (self.m.ty(aty).clone(), self.m.ty(mty).clone())
                else {
                    return r.err("shufflevector of values that are not vectors");
                };
                let ty = self.intern(Type::Vector { len, elem });
                Instruction::ShuffleVector { a, b, mask, ty }
            }
            9 | 28 => {
                let (lhs, oty) = self.val_ty(s, o)?;
                let rhs = self.val(s, o, oty)?;
                let pred = predicate(r, o.raw()?)?;
                let flags = if o.more() { o.raw()? as u8 } else { 0 };
                let ty = self.bool_like(oty);
                Instruction::Cmp {
                    pred,
                    lhs,
                    rhs,
                    flags,
                    ty,
                }
            }
            10 => {
                if o.more() {
                    let (v, _) = self.val_ty(s, o)?;
                    Instruction::Ret { value: Some(v) }
                } else {
                    Instruction::Ret { value: None }
                }
            }
            11 => {
                let if_true = self.bb(s, o)?;
                if !o.more() {
                    Instruction::Br { target: if_true }
                } else {
                    let if_false = self.bb(s, o)?;
                    let i1 = self.intern(Type::Int(1));
                    let cond = self.val(s, o, i1)?;
                    Instruction::CondBr {
                        cond,
                        if_true,
                        if_false,
                    }
                }
            }
            12 => {
                let opty_raw = o.raw()?;
                if opty_raw >> 16 == 0x4B5 {
                    return r.err("the case-range switch form is not supported");
                }
                o.i -= 1;
                let opty = self.type_at(r, o.i)?;
                o.i += 1;
                let cond = self.val(s, o, opty)?;
                let default = self.bb(s, o)?;
                let mut cases = Vec::new();
                while o.more() {
                    let id = o.raw()?;
                    let v = match self.values.get(id as usize) {
                        Some(&(v @ Value::Const(_), t)) if t == opty => v,
                        _ => {
                            return r.err(format!(
                                "switch case {id} is not a constant of the condition's type"
                            ))
                        }
                    };
                    cases.push((v, self.bb(s, o)?));
                }
                Instruction::Switch {
                    cond,
                    default,
                    cases,
                }
            }
            15 => Instruction::Unreachable,
            16 => {
                let ty = self.type_at(r, 0)?;
                o.i = 1;
                if r.len().is_multiple_of(2) {
                    return r.err("PHI record of even length");
                }
                let mut incoming = Vec::with_capacity(r.len() / 2);
                while o.more() {
                    let delta = sign_rotated(o.raw()?);
                    let id = (o.next as i64)
                        .checked_sub(delta)
                        .filter(|&v| (0..=i64::from(u32::MAX)).contains(&v));
                    let Some(id) = id else {
                        return r.err("PHI operand out of range");
                    };
                    let v = s.value_abs(self, r, id as u64, ty)?;
                    incoming.push((v, self.bb(s, o)?));
                }
                Instruction::Phi { incoming, ty }
            }
            19 => {
                let instty = self.type_at(r, 0)?;
                let opty = self.type_at(r, 1)?;
                let size_id = r.op(2)?;
                let flags = r.op(3)?;
                let size = match self.values.get(size_id as usize) {
                    Some(&(v, t)) if t == opty => v,
                    _ => return r.err(format!("alloca size {size_id} is not a value of its type")),
                };
                let allocated_type = if flags & (1 << 6) != 0 {
                    instty
                } else {
                    self.pointee(r, instty)?.0
                };
                let align = alignment(r, flags & 31)?;
                let ty = self.intern(Type::Pointer {
                    pointee: allocated_type,
                    addrspace: 0,
                });
                Instruction::Alloca {
                    allocated_type,
                    size,
                    align,
                    ty,
                }
            }
            20 | 41 => {
                let (ptr, pty) = self.val_ty(s, o)?;
                let (pointee, _) = self.pointee(r, pty)?;
                let tail = if r.code == 20 { 2 } else { 4 };
                let ty = if o.i + tail + 1 == r.len() {
                    let t = self.type_at(r, o.i)?;
                    o.i += 1;
                    t
                } else {
                    pointee
                };
                if ty != pointee {
                    return r.err("load's explicit type is not the pointer's pointee type");
                }
                let (align, volatile, ordering, scope) = Self::memory_tail(o, r.code == 41)?;
                Instruction::Load {
                    ptr,
                    ty,
                    align,
                    volatile,
                    ordering,
                    scope,
                }
            }
            24 | 44 | 45 => {
                let (ptr, pty) = self.val_ty(s, o)?;
                let (pointee, _) = self.pointee(r, pty)?;
                let value = if r.code == 24 {
                    self.val(s, o, pointee)?
                } else {
                    let (v, vty) = self.val_ty(s, o)?;
                    if vty != pointee {
                        return r.err("stored value's type is not the pointer's pointee type");
                    }
                    v
                };
                let (align, volatile, ordering, scope) = Self::memory_tail(o, r.code == 45)?;
                Instruction::Store {
                    ptr,
                    value,
                    align,
                    volatile,
                    ordering,
                    scope,
                }
            }
            26 => {
                let (aggregate, aty) = self.val_ty(s, o)?;
                let indices = (o.i..r.len())
                    .map(|i| r.op32(i))
                    .collect::<Result<Vec<_>>>()?;
                let ty = self.walk_aggregate(r, aty, &indices)?;
                Instruction::ExtractValue {
                    aggregate,
                    indices,
                    ty,
                }
            }
            27 => {
                let (aggregate, ty) = self.val_ty(s, o)?;
                let (value, vty) = self.val_ty(s, o)?;
                let indices = (o.i..r.len())
                    .map(|i| r.op32(i))
                    .collect::<Result<Vec<_>>>()?;
                if self.walk_aggregate(r, ty, &indices)? != vty {
                    return r.err("insertvalue of a value of the wrong type");
                }
                Instruction::InsertValue {
                    aggregate,
                    value,
                    indices,
                    ty,
                }
            }
            29 => {
                let (if_true, ty) = self.val_ty(s, o)?;
                let if_false = self.val(s, o, ty)?;
                let (cond, cty) = self.val_ty(s, o)?;
                let ok = match self.m.ty(cty) {
                    Type::Int(1) => true,
                    Type::Vector { elem, .. } => self.m.ty(*elem) == &Type::Int(1),
                    _ => false,
                };
                if !ok {
                    return r.err("select condition is not i1");
                }
                Instruction::Select {
                    cond,
                    if_true,
                    if_false,
                    ty,
                }
            }
            34 => {
                let attributes = r.op32(0)?;
                if attributes as usize > self.m.attribute_lists.len() {
                    return r.err(format!("attribute list {attributes} not declared"));
                }
                let cc = r.op(1)?;
                o.i = 2;
                let explicit = if cc >> 15 & 1 != 0 {
                    let t = self.type_at(r, 2)?;
                    o.i = 3;
                    Some(t)
                } else {
                    None
                };
                let (callee, cty) = self.val_ty(s, o)?;
                let (pointee, _) = self.pointee(r, cty)?;
                let fn_type = explicit.unwrap_or(pointee);
                if fn_type != pointee {
                    return r.err("call's explicit type is not the callee's type");
                }
                let Type::Function {
                    ret,
                    params,
                    vararg,
                } = self.m.ty(fn_type).clone()
                else {
                    return r.err("callee is not a function");
                };
                let mut args = Vec::with_capacity(params.len());
                for p in params {
                    if matches!(self.m.ty(p), Type::Label) {
                        return r.err("label arguments are not supported");
                    }
                    args.push(self.val(s, o, p)?);
                }
                while vararg && o.more() {
                    args.push(self.val_ty(s, o)?.0);
                }
                if o.more() {
                    return r.err("more call arguments than parameters");
                }
                let attrs = CallAttrs {
                    attributes,
                    calling_conv: ((cc >> 1) & 0x3FF) as u32,
                    tail: cc & 1 != 0,
                    musttail: cc >> 14 & 1 != 0,
                };
                Instruction::Call {
                    callee,
                    args,
                    fn_type,
                    attrs,
                    ty: ret,
                }
            }
            36 => Instruction::Fence {
                ordering: Self::ordering(r, r.op(0)?)?,
                scope: Self::scope(r, r.op(1)?)?,
            },
            38 => {
                let (ptr, pty) = self.val_ty(s, o)?;
                let (ty, _) = self.pointee(r, pty)?;
                let value = self.val(s, o, ty)?;
                use AtomicRmwOp::*;
                const OPS: [AtomicRmwOp; 11] =
                    [Xchg, Add, Sub, And, Nand, Or, Xor, Max, Min, UMax, UMin];
                let op = match OPS.get(o.raw()? as usize) {
                    Some(&op) => op,
                    None => return r.err("atomicrmw operation"),
                };
                let volatile = o.raw()? != 0;
                let ordering = Self::ordering(r, o.raw()?)?;
                let scope = Self::scope(r, o.raw()?)?;
                Instruction::AtomicRmw {
                    op,
                    ptr,
                    value,
                    volatile,
                    ordering,
                    scope,
                    ty,
                }
            }
            46 => {
                let (ptr, pty) = self.val_ty(s, o)?;
                let (pointee, _) = self.pointee(r, pty)?;
                let (cmp, cty) = self.val_ty(s, o)?;
                if cty != pointee {
                    return r.err("cmpxchg compare value's type is not the pointee type");
                }
                let new = self.val(s, o, cty)?;
                let volatile = o.raw()? != 0;
                let success = Self::ordering(r, o.raw()?)?;
                let scope = Self::scope(r, o.raw()?)?;
                let failure = if o.more() {
                    Self::ordering(r, o.raw()?)?
                } else {
                    success
                };
                let weak = o.more() && o.raw()? != 0;
                let i1 = self.intern(Type::Int(1));
                let ty = self.intern(Type::Struct {
                    name: None,
                    fields: vec![cty, i1],
                    packed: false,
                    opaque: false,
                });
                Instruction::CmpXchg {
                    ptr,
                    cmp,
                    new,
                    volatile,
                    weak,
                    success,
                    failure,
                    scope,
                    ty,
                }
            }
            code => return r.err(format!("unsupported instruction record {code}")),
        })
    }
}
