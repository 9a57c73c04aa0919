//! Constants and constant expressions. Module constants (global initialisers, operands
//! shared by functions) and each function's own constants share one arena, so a [`ConstId`]
//! means the same thing in every function. An aggregate's elements and a constant
//! expression's operands are [`Value`]s restricted to `Const`, `Global` and `Function`.

use super::{BinOp, CastOp, CmpPredicate, ConstId, Module, Type, TypeId, Value};

/// A constant of type `ty`.
#[derive(Debug, Clone, PartialEq)]
pub struct Constant {
    pub ty: TypeId,
    pub kind: ConstKind,
}

/// What a constant is.
#[derive(Debug, Clone, PartialEq)]
pub enum ConstKind {
    /// `undef`.
    Undef,
    /// `zeroinitializer` / `null` / `0`.
    Null,
    /// An integer, its bits truncated to the type's width (zero-extended to 64 bits).
    Int(u64),
    /// A float (half, float or double): the raw bits in the type's width.
    Float(u64),
    /// A struct, array or vector with one element per field / index.
    Aggregate(Vec<Value>),
    /// A `ConstantDataArray`/`ConstantDataVector` (and the 3.7 `STRING`/`CSTRING` forms):
    /// raw element bits (integers truncated to the element width, floats as bits).
    Data(Vec<u64>),
    /// A cast expression (`bitcast (T* @g to i8*)`…).
    Cast { op: CastOp, value: Value },
    /// A GEP expression; `operands[0]` is the pointer, the rest are indices.
    Gep {
        inbounds: bool,
        source_type: TypeId,
        operands: Vec<Value>,
    },
    /// A binary-operator expression (flags as [`super::Instruction::Binary`]).
    Binary {
        op: BinOp,
        lhs: Value,
        rhs: Value,
        flags: u8,
    },
    /// A comparison expression.
    Cmp {
        pred: CmpPredicate,
        lhs: Value,
        rhs: Value,
    },
    /// A select expression.
    Select {
        cond: Value,
        if_true: Value,
        if_false: Value,
    },
    /// `extractelement` of constants.
    ExtractElement { vector: Value, index: Value },
}

/// Sign-extends the low `width` bits of `bits`.
pub(crate) fn sign_extend(bits: u64, width: u32) -> i64 {
    if width == 0 || width >= 64 {
        bits as i64
    } else {
        let shift = 64 - width;
        ((bits << shift) as i64) >> shift
    }
}

impl Constant {
    /// The value of an integer constant (`Int` or an integer `Null`), sign-extended from its
    /// width.
    pub fn as_i64(&self, m: &Module) -> Option<i64> {
        let width = m.ty(self.ty).int_width()?;
        match self.kind {
            ConstKind::Int(bits) => Some(sign_extend(bits, width)),
            ConstKind::Null => Some(0),
            _ => None,
        }
    }

    /// The value of an integer constant zero-extended from its width.
    pub fn as_u64(&self, m: &Module) -> Option<u64> {
        m.ty(self.ty).int_width()?;
        match self.kind {
            ConstKind::Int(bits) => Some(bits),
            ConstKind::Null => Some(0),
            _ => None,
        }
    }

    /// The value of a float constant (`Float` or a float `Null`) widened to f64.
    pub fn as_f64(&self, m: &Module) -> Option<f64> {
        let bits = match self.kind {
            ConstKind::Float(bits) => bits,
            ConstKind::Null => 0,
            _ => return None,
        };
        match m.ty(self.ty) {
            Type::Half => Some(f64::from(half::f16::from_bits(bits as u16))),
            Type::Float => Some(f64::from(f32::from_bits(bits as u32))),
            Type::Double => Some(f64::from_bits(bits)),
            _ => None,
        }
    }

    /// Whether the constant is `undef`.
    pub fn is_undef(&self) -> bool {
        matches!(self.kind, ConstKind::Undef)
    }
}

impl Module {
    /// The constant behind an operand, if it is one.
    pub fn as_constant(&self, v: Value) -> Option<&Constant> {
        match v {
            Value::Const(ConstId(c)) => self.constants.get(c as usize),
            _ => None,
        }
    }

    /// Whether an operand is the constant `undef`.
    pub fn is_undef(&self, v: Value) -> bool {
        self.as_constant(v).is_some_and(Constant::is_undef)
    }
}
