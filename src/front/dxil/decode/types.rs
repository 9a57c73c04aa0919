//! `TYPE_BLOCK_ID_NEW`: the type table. Forward references are allowed only to named
//! structs (as in LLVM's reader), so every other type refers to earlier entries; after the
//! block, a struct may not contain itself by value and no type nests deeper than
//! [`MAX_TYPE_DEPTH`], which keeps every walk over types (printing, sizes) bounded.

use super::{Decoder, Rec};
use crate::front::dxil::bitstream::{Bitstream, Entry};
use crate::front::dxil::error::Result;
use crate::front::dxil::module::{Type, TypeId};

/// The deepest nesting of types accepted (DXC's are a handful deep).
pub const MAX_TYPE_DEPTH: u32 = 64;

impl Decoder {
    pub(super) fn read_types(&mut self, bs: &mut Bitstream) -> Result<()> {
        let mut pending_name: Option<String> = None;
        // Slots referenced before they were defined: they must become named structs.
        let mut forward: Vec<u32> = Vec::new();
        let mut declared: Option<u64> = None;
        loop {
            let r = match bs.next()? {
                Some(Entry::Record(r)) => Rec::new(r, "TYPE_BLOCK"),
                Some(Entry::SubBlock(_)) => {
                    bs.skip_block()?;
                    continue;
                }
                Some(Entry::EndBlock) | None => break,
            };
            let this = self.m.types.len() as u32;
            // A type operand: an id below the table's declared size; later ids are forward.
            let mut ty_op = |r: &Rec, i: usize| -> Result<TypeId> {
                let id = r.op(i)?;
                let limit = declared.unwrap_or(u64::from(u32::MAX));
                if id >= limit {
                    return r.err(format!("type id {id} beyond the table's {limit} entries"));
                }
                if id >= u64::from(this) {
                    forward.push(id as u32);
                }
                Ok(TypeId(id as u32))
            };
            let ty = match r.code {
                1 => {
                    let n = r.op(0)?;
                    if n > bs.bits_left() + 1024 {
                        return r.err(format!("{n} types declared"));
                    }
                    declared = Some(n);
                    self.m.types.reserve(n as usize);
                    continue;
                }
                2 => Type::Void,
                3 => Type::Float,
                4 => Type::Double,
                5 => Type::Label,
                6 => Type::Struct {
                    name: pending_name.take(),
                    fields: Vec::new(),
                    packed: false,
                    opaque: true,
                },
                7 => {
                    let w = r.op(0)?;
                    if !(1..=(1 << 23)).contains(&w) {
                        return r.err(format!("integer width {w}"));
                    }
                    Type::Int(w as u32)
                }
                8 => Type::Pointer {
                    pointee: ty_op(&r, 0)?,
                    addrspace: r
                        .op_or(1, 0)
                        .try_into()
                        .or_else(|_| r.err("address space too large"))?,
                },
                10 => Type::Half,
                11 | 12 => {
                    let len = r.op(0)?;
                    let elem = ty_op(&r, 1)?;
                    if r.code == 11 {
                        Type::Array { len, elem }
                    } else {
                        let len = u32::try_from(len).ok().filter(|&l| l > 0);
                        let Some(len) = len else {
                            return r.err("vector length 0 or too large");
                        };
                        Type::Vector { len, elem }
                    }
                }
                16 => Type::Metadata,
                18 | 20 => {
                    let packed = r.op(0)? != 0;
                    let fields = (1..r.len())
                        .map(|i| ty_op(&r, i))
                        .collect::<Result<Vec<_>>>()?;
                    let name = if r.code == 20 {
                        pending_name.take()
                    } else {
                        None
                    };
                    if r.code == 20 && name.is_none() {
                        return r.err("STRUCT_NAMED without a STRUCT_NAME before it");
                    }
                    Type::Struct {
                        name,
                        fields,
                        packed,
                        opaque: false,
                    }
                }
                19 => {
                    pending_name = Some(r.string_from(0)?);
                    continue;
                }
                // FUNCTION: [vararg, retty, params...]; FUNCTION_OLD: [vararg, attrid, retty, params...]
                9 | 21 => {
                    let ret_at = if r.code == 21 { 1 } else { 2 };
                    let vararg = r.op(0)? != 0;
                    let ret = ty_op(&r, ret_at)?;
                    let params = (ret_at + 1..r.len())
                        .map(|i| ty_op(&r, i))
                        .collect::<Result<Vec<_>>>()?;
                    Type::Function {
                        ret,
                        params,
                        vararg,
                    }
                }
                code => return r.err(format!("unsupported type record {code}")),
            };
            if declared.is_some_and(|n| u64::from(this) >= n) {
                return r.err("more types than NUMENTRY declared");
            }
            self.m.types.push(ty);
        }
        let n = self.m.types.len() as u32;
        if declared.is_some_and(|d| d != u64::from(n)) {
            return Err(self.module_err(
                "TYPE_BLOCK",
                format!("{n} types, {} declared", declared.unwrap_or(0)),
            ));
        }
        for id in forward {
            let ok = matches!(
                self.m.types.get(id as usize),
                Some(Type::Struct { name: Some(_), .. })
            );
            if !ok {
                return Err(self.module_err(
                    "TYPE_BLOCK",
                    format!("forward reference to type {id}, which is not a named struct"),
                ));
            }
        }
        self.check_type_graph()?;
        self.index_types();
        Ok(())
    }

    /// No struct contains itself by value, and no chain of types is deeper than
    /// [`MAX_TYPE_DEPTH`], counting pointers too except through named structs (which are
    /// printed by name).
    fn check_type_graph(&self) -> Result<()> {
        let types = &self.m.types;
        let children = |t: &Type| -> Vec<(TypeId, bool)> {
            // (child, by value)
            match t {
                Type::Pointer { pointee, .. } => vec![(*pointee, false)],
                Type::Function { ret, params, .. } => std::iter::once(*ret)
                    .chain(params.iter().copied())
                    .map(|c| (c, true))
                    .collect(),
                Type::Struct { fields, .. } => fields.iter().map(|&c| (c, true)).collect(),
                Type::Array { elem, .. } | Type::Vector { elem, .. } => vec![(*elem, true)],
                _ => Vec::new(),
            }
        };
        // Value depth with cycle detection: iterative DFS over by-value edges.
        let mut depth = vec![0u32; types.len()];
        let mut state = vec![0u8; types.len()]; // 0 new, 1 on stack, 2 done
        for root in 0..types.len() {
            if state[root] != 0 {
                continue;
            }
            let by_value = |n: usize| -> Vec<usize> {
                children(&types[n])
                    .into_iter()
                    .filter(|c| c.1)
                    .map(|c| c.0.index())
                    .collect()
            };
            let mut stack = vec![(root, by_value(root), 0usize)];
            state[root] = 1;
            while let Some((node, kids, next)) = stack.last_mut() {
                if *next < kids.len() {
                    let k = kids[*next];
                    *next += 1;
                    match state[k] {
                        0 => {
                            state[k] = 1;
                            stack.push((k, by_value(k), 0));
                        }
                        1 => {
                            return Err(
                                self.module_err("TYPE_BLOCK", format!("type {k} contains itself"))
                            );
                        }
                        _ => {}
                    }
                } else {
                    let node = *node;
                    depth[node] = 1 + kids.iter().map(|&k| depth[k]).max().unwrap_or(0);
                    if depth[node] > MAX_TYPE_DEPTH {
                        return Err(self.module_err(
                            "TYPE_BLOCK",
                            format!("type {node} nests deeper than {MAX_TYPE_DEPTH}"),
                        ));
                    }
                    state[node] = 2;
                    stack.pop();
                }
            }
        }
        // Printed depth: anonymous types refer only to earlier ids or named structs.
        let mut printed = vec![0u32; types.len()];
        for (i, t) in types.iter().enumerate() {
            printed[i] = match t {
                Type::Struct { name: Some(_), .. } => 1,
                t => {
                    let mut d = 0;
                    for (c, _) in children(t) {
                        let cd = match &types[c.index()] {
                            Type::Struct { name: Some(_), .. } => 1,
                            _ if c.index() < i => printed[c.index()],
                            _ => {
                                return Err(self.module_err(
                                    "TYPE_BLOCK",
                                    format!("type {i} refers forward to an unnamed type"),
                                ))
                            }
                        };
                        d = d.max(cd);
                    }
                    d + 1
                }
            };
            if printed[i] > MAX_TYPE_DEPTH {
                return Err(self.module_err(
                    "TYPE_BLOCK",
                    format!("type {i} nests deeper than {MAX_TYPE_DEPTH}"),
                ));
            }
        }
        Ok(())
    }

    /// Fills the interning index with the table's unnamed types.
    fn index_types(&mut self) {
        for (i, t) in self.m.types.iter().enumerate() {
            if !matches!(t, Type::Struct { name: Some(_), .. }) {
                self.type_index.entry(t.clone()).or_insert(TypeId(i as u32));
            }
        }
    }

    /// The id of an unnamed type, added to the table if the bitcode did not list it.
    pub(super) fn intern(&mut self, t: Type) -> TypeId {
        if let Some(&id) = self.type_index.get(&t) {
            return id;
        }
        let id = TypeId(self.m.types.len() as u32);
        self.m.types.push(t.clone());
        self.type_index.insert(t, id);
        id
    }

    /// A type id from a record operand, checked against the table.
    pub(super) fn type_at(&self, r: &Rec, i: usize) -> Result<TypeId> {
        let id = r.op(i)?;
        if id >= self.m.types.len() as u64 {
            return r.err(format!("type id {id} is not in the type table"));
        }
        Ok(TypeId(id as u32))
    }
}
