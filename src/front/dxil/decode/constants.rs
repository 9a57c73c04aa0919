//! `CONSTANTS_BLOCK`: module constants and each function's. Operands are absolute value
//! numbers and may point forward within the block (a constant's number is known before it is
//! read: the block numbers its constants in order), so operands are mapped at once and their
//! existence and types are checked when the block ends, together with the absence of cycles
//! and a nesting bound ([`MAX_CONST_DEPTH`]) that keeps walks over constants bounded.

use super::{sign_rotated, Decoder, Rec};
use crate::front::dxil::bitstream::Bitstream;
use crate::front::dxil::error::Result;
use crate::front::dxil::module::inst::{BinOp, CastOp, CmpPredicate};
use crate::front::dxil::module::*;

/// The deepest nesting of aggregates and constant expressions accepted.
pub const MAX_CONST_DEPTH: u32 = 64;

/// Operand state of one constants block.
struct Block {
    /// Value number and constant id of the block's first constant.
    first_value: u64,
    first_const: u32,
    /// Every operand with the type it must have (`None`: any), checked at the end.
    checks: Vec<(Value, Option<TypeId>)>,
}

impl Decoder {
    /// Reads a constants block (module or function).
    pub(super) fn read_constants(&mut self, bs: &mut Bitstream) -> Result<()> {
        let mut blk = Block {
            first_value: self.values.len() as u64,
            first_const: self.m.constants.len() as u32,
            checks: Vec::new(),
        };
        let mut cur = self.intern(Type::Int(32));
        while let Some(r) = super::next_record(bs, "CONSTANTS_BLOCK")? {
            if r.code == 1 {
                cur = self.type_at(&r, 0)?;
                continue;
            }
            let kind = self.constant(&r, cur, &mut blk)?;
            let id = ConstId(self.m.constants.len() as u32);
            self.m.constants.push(Constant { ty: cur, kind });
            self.values.push((Value::Const(id), cur));
        }
        self.check_constants(&blk)
    }

    /// An operand by absolute value number: an earlier constant, global or function, or a
    /// later constant of this block.
    fn const_operand(
        &self,
        r: &Rec,
        id: u64,
        ty: Option<TypeId>,
        blk: &mut Block,
    ) -> Result<Value> {
        let v = if let Some(&(v, _)) = self.values.get(id as usize) {
            if !matches!(v, Value::Const(_) | Value::Global(_) | Value::Function(_)) {
                return r.err(format!("constant operand {id} is not a constant"));
            }
            v
        } else {
            let k = id - blk.first_value;
            let c = u64::from(blk.first_const) + k;
            match u32::try_from(c) {
                Ok(c) => Value::Const(ConstId(c)),
                Err(_) => return r.err(format!("constant operand {id} out of range")),
            }
        };
        blk.checks.push((v, ty));
        Ok(v)
    }

    fn constant(&mut self, r: &Rec, cur: TypeId, blk: &mut Block) -> Result<ConstKind> {
        let ty = self.m.ty(cur).clone();
        Ok(match r.code {
            2 => ConstKind::Null,
            3 => ConstKind::Undef,
            4 => {
                let Some(w) = ty.int_width().filter(|&w| w <= 64) else {
                    return r.err(
                        "INTEGER constant of a type that is not an integer of at most 64 bits",
                    );
                };
                ConstKind::Int(truncate(sign_rotated(r.op(0)?) as u64, w))
            }
            5 => {
                let Some(w) = ty.int_width().filter(|&w| w <= 64) else {
                    return r.err("wide integers over 64 bits are not supported");
                };
                if r.len() != 1 {
                    return r.err("WIDE_INTEGER with more than one word for a 64-bit type");
                }
                ConstKind::Int(truncate(sign_rotated(r.op(0)?) as u64, w))
            }
            6 => {
                let bits = r.op(0)?;
                match ty {
                    Type::Half => ConstKind::Float(bits & 0xFFFF),
                    Type::Float => ConstKind::Float(bits & 0xFFFF_FFFF),
                    Type::Double => ConstKind::Float(bits),
                    _ => {
                        return r.err("FLOAT constant of a type that is not half, float or double")
                    }
                }
            }
            7 => {
                let members: Vec<Option<TypeId>> = match &ty {
                    Type::Struct { fields, .. } => fields.iter().map(|&f| Some(f)).collect(),
                    Type::Array { len, elem } if *len == r.len() as u64 => {
                        vec![Some(*elem); r.len()]
                    }
                    Type::Vector { len, elem } if *len as usize == r.len() => {
                        vec![Some(*elem); r.len()]
                    }
                    _ => return r.err(
                        "AGGREGATE of a type that is not a struct, array or vector of its length",
                    ),
                };
                if members.len() != r.len() {
                    return r.err(format!(
                        "AGGREGATE of {} elements for {} members",
                        r.len(),
                        members.len()
                    ));
                }
                let mut elems = Vec::with_capacity(r.len());
                for (i, m) in members.into_iter().enumerate() {
                    elems.push(self.const_operand(r, r.op(i)?, m, blk)?);
                }
                ConstKind::Aggregate(elems)
            }
            8 | 9 | 22 => {
                let (len, elem) = match ty {
                    Type::Array { len, elem } => (len, elem),
                    Type::Vector { len, elem } => (u64::from(len), elem),
                    _ => return r.err("data constant of a type that is not an array or vector"),
                };
                let mut elems = r.ops.clone();
                if r.code == 9 {
                    elems.push(0);
                }
                if elems.len() as u64 != len {
                    return r.err(format!(
                        "data constant of {} elements for {len}",
                        elems.len()
                    ));
                }
                let width = match self.m.ty(elem) {
                    Type::Int(w) if *w <= 64 => *w,
                    Type::Half => 16,
                    Type::Float => 32,
                    Type::Double => 64,
                    _ => return r.err("data constant elements are not integers or floats"),
                };
                if r.code != 22 && width != 8 {
                    return r.err("string constant of elements other than i8");
                }
                ConstKind::Data(elems.into_iter().map(|e| truncate(e, width)).collect())
            }
            10 => {
                let op = binop(
                    r,
                    r.op(0)?,
                    self.m.ty(cur).is_float() || is_float_vector(&self.m, cur),
                )?;
                let lhs = self.const_operand(r, r.op(1)?, Some(cur), blk)?;
                let rhs = self.const_operand(r, r.op(2)?, Some(cur), blk)?;
                ConstKind::Binary {
                    op,
                    lhs,
                    rhs,
                    flags: r.op_or(3, 0) as u8,
                }
            }
            11 => {
                let op = castop(r, r.op(0)?)?;
                let opty = self.type_at(r, 1)?;
                ConstKind::Cast {
                    op,
                    value: self.const_operand(r, r.op(2)?, Some(opty), blk)?,
                }
            }
            12 | 20 => {
                let explicit = r.len() % 2 == 1;
                let start = usize::from(explicit);
                let mut operands = Vec::with_capacity(r.len() / 2);
                let mut i = start;
                let mut first_ty = None;
                while i + 1 < r.len() {
                    let ty = self.type_at(r, i)?;
                    first_ty.get_or_insert(ty);
                    operands.push(self.const_operand(r, r.op(i + 1)?, Some(ty), blk)?);
                    i += 2;
                }
                let Some(first_ty) = first_ty else {
                    return r.err("constant GEP without a pointer");
                };
                let source_type = if explicit {
                    self.type_at(r, 0)?
                } else {
                    match self.m.ty(first_ty) {
                        Type::Pointer { pointee, .. } => *pointee,
                        _ => return r.err("constant GEP on a value that is not a pointer"),
                    }
                };
                ConstKind::Gep {
                    inbounds: r.code == 20,
                    source_type,
                    operands,
                }
            }
            13 => {
                let i1 = self.intern(Type::Int(1));
                let cond = self.const_operand(r, r.op(0)?, Some(i1), blk)?;
                ConstKind::Select {
                    cond,
                    if_true: self.const_operand(r, r.op(1)?, Some(cur), blk)?,
                    if_false: self.const_operand(r, r.op(2)?, Some(cur), blk)?,
                }
            }
            14 => {
                let opty = self.type_at(r, 0)?;
                let vector = self.const_operand(r, r.op(1)?, Some(opty), blk)?;
                let index = if r.len() >= 4 {
                    let ity = self.type_at(r, 2)?;
                    self.const_operand(r, r.op(3)?, Some(ity), blk)?
                } else {
                    let i32t = self.intern(Type::Int(32));
                    self.const_operand(r, r.op(2)?, Some(i32t), blk)?
                };
                ConstKind::ExtractElement { vector, index }
            }
            17 => {
                let opty = self.type_at(r, 0)?;
                let lhs = self.const_operand(r, r.op(1)?, Some(opty), blk)?;
                let rhs = self.const_operand(r, r.op(2)?, Some(opty), blk)?;
                ConstKind::Cmp {
                    pred: predicate(r, r.op(3)?)?,
                    lhs,
                    rhs,
                }
            }
            code => return r.err(format!("unsupported constant record {code}")),
        })
    }

    /// After a block: every operand exists and has its type, and no constant reaches itself
    /// or nests deeper than [`MAX_CONST_DEPTH`].
    fn check_constants(&self, blk: &Block) -> Result<()> {
        let n = self.m.constants.len();
        let err = |msg: String| Err(self.module_err("CONSTANTS_BLOCK", msg));
        for &(v, ty) in &blk.checks {
            let actual = match v {
                Value::Const(c) if c.index() < n => self.m.constants[c.index()].ty,
                Value::Const(c) => {
                    return err(format!(
                        "forward reference to constant {} past the block",
                        c.0
                    ))
                }
                Value::Global(g) => self.m.globals[g.index()].ptr_type,
                Value::Function(f) => self.m.functions[f.index()].ptr_type,
                _ => return err("constant operand is not a constant".into()),
            };
            if ty.is_some_and(|t| t != actual) {
                return err(format!(
                    "constant operand of type {} where type {} is expected",
                    actual.0,
                    ty.map_or(0, |t| t.0)
                ));
            }
        }
        let first = blk.first_const as usize;
        let mut depth = vec![0u32; n - first];
        let mut state = vec![0u8; n - first];
        let kids = |c: usize| -> Vec<usize> {
            let mut out = Vec::new();
            let mut push = |v: &Value| {
                if let Value::Const(k) = v {
                    if k.index() >= first {
                        out.push(k.index() - first);
                    }
                }
            };
            match &self.m.constants[first + c].kind {
                ConstKind::Aggregate(e) => e.iter().for_each(&mut push),
                ConstKind::Gep { operands, .. } => operands.iter().for_each(&mut push),
                ConstKind::Cast { value, .. } => push(value),
                ConstKind::Binary { lhs, rhs, .. } | ConstKind::Cmp { lhs, rhs, .. } => {
                    push(lhs);
                    push(rhs);
                }
                ConstKind::Select {
                    cond,
                    if_true,
                    if_false,
                } => {
                    push(cond);
                    push(if_true);
                    push(if_false);
                }
                ConstKind::ExtractElement { vector, index } => {
                    push(vector);
                    push(index);
                }
                _ => {}
            }
            out
        };
        for root in 0..n - first {
            if state[root] != 0 {
                continue;
            }
            state[root] = 1;
            let mut stack = vec![(root, kids(root), 0usize)];
            while let Some((node, ks, next)) = stack.last_mut() {
                if *next < ks.len() {
                    let k = ks[*next];
                    *next += 1;
                    match state[k] {
                        0 => {
                            state[k] = 1;
                            stack.push((k, kids(k), 0));
                        }
                        1 => return err(format!("constant {} refers to itself", first + k)),
                        _ => {}
                    }
                } else {
                    let node = *node;
                    depth[node] = 1 + ks.iter().map(|&k| depth[k]).max().unwrap_or(0);
                    if depth[node] > MAX_CONST_DEPTH {
                        return err(format!(
                            "constant {} nests deeper than {MAX_CONST_DEPTH}",
                            first + node
                        ));
                    }
                    state[node] = 2;
                    stack.pop();
                }
            }
        }
        Ok(())
    }
}

fn is_float_vector(m: &Module, t: TypeId) -> bool {
    m.ty(t).element().is_some_and(|e| m.ty(e).is_float())
}

/// Keeps the low `width` bits.
pub(super) fn truncate(v: u64, width: u32) -> u64 {
    if width >= 64 {
        v
    } else {
        v & ((1u64 << width) - 1)
    }
}

/// A binary opcode by the operand kind.
pub(super) fn binop(r: &Rec, code: u64, float: bool) -> Result<BinOp> {
    use BinOp::*;
    Ok(match (code, float) {
        (0, false) => Add,
        (0, true) => FAdd,
        (1, false) => Sub,
        (1, true) => FSub,
        (2, false) => Mul,
        (2, true) => FMul,
        (3, false) => UDiv,
        (4, false) => SDiv,
        (4, true) => FDiv,
        (5, false) => URem,
        (6, false) => SRem,
        (6, true) => FRem,
        (7, false) => Shl,
        (8, false) => LShr,
        (9, false) => AShr,
        (10, false) => And,
        (11, false) => Or,
        (12, false) => Xor,
        (c, f) => {
            return r.err(format!(
                "binary opcode {c} on {} operands",
                if f { "float" } else { "integer" }
            ))
        }
    })
}

pub(super) fn castop(r: &Rec, code: u64) -> Result<CastOp> {
    use CastOp::*;
    Ok(match code {
        0 => Trunc,
        1 => ZExt,
        2 => SExt,
        3 => FpToUi,
        4 => FpToSi,
        5 => UiToFp,
        6 => SiToFp,
        7 => FpTrunc,
        8 => FpExt,
        9 => PtrToInt,
        10 => IntToPtr,
        11 => BitCast,
        12 => AddrSpaceCast,
        c => return r.err(format!("cast opcode {c}")),
    })
}

pub(super) fn predicate(r: &Rec, code: u64) -> Result<CmpPredicate> {
    use CmpPredicate::*;
    const F: [CmpPredicate; 16] = [
        FFalse, FOeq, FOgt, FOge, FOlt, FOle, FOne, FOrd, FUno, FUeq, FUgt, FUge, FUlt, FUle, FUne,
        FTrue,
    ];
    const I: [CmpPredicate; 10] = [IEq, INe, IUgt, IUge, IUlt, IUle, ISgt, ISge, ISlt, ISle];
    match code {
        0..=15 => Ok(F[code as usize]),
        32..=41 => Ok(I[code as usize - 32]),
        c => r.err(format!("comparison predicate {c}")),
    }
}
