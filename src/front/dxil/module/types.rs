//! The type table: LLVM 3.7 types with typed pointers, as the bitcode's `TYPE_BLOCK` lists
//! them (named structs carry their names). Types are referred to by [`TypeId`] everywhere;
//! equal types have equal ids within a decoded module, as in LLVM's uniqued type table, except
//! named structs, which are distinct by name.

use super::{Module, TypeId};

/// One type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Type {
    Void,
    Half,
    Float,
    Double,
    Label,
    Metadata,
    /// `iN`.
    Int(u32),
    /// `T addrspace(n)*`.
    Pointer {
        pointee: TypeId,
        addrspace: u32,
    },
    /// `ret (params...)`.
    Function {
        ret: TypeId,
        params: Vec<TypeId>,
        vararg: bool,
    },
    /// `%name = type { fields }` or a literal `{ fields }` (`name` is `None`); `opaque`
    /// structs have no body.
    Struct {
        name: Option<String>,
        fields: Vec<TypeId>,
        packed: bool,
        opaque: bool,
    },
    /// `[len x elem]`.
    Array {
        len: u64,
        elem: TypeId,
    },
    /// `<len x elem>`.
    Vector {
        len: u32,
        elem: TypeId,
    },
}

impl Type {
    /// Integer width in bits, for `Int`.
    pub fn int_width(&self) -> Option<u32> {
        match *self {
            Type::Int(w) => Some(w),
            _ => None,
        }
    }

    /// Whether the type is half, float or double.
    pub fn is_float(&self) -> bool {
        matches!(self, Type::Half | Type::Float | Type::Double)
    }

    /// The element type of an array or vector.
    pub fn element(&self) -> Option<TypeId> {
        match *self {
            Type::Array { elem, .. } | Type::Vector { elem, .. } => Some(elem),
            _ => None,
        }
    }
}

impl Module {
    /// The type of field / element `index` of an aggregate (struct, array, vector) type.
    pub fn member_type(&self, ty: TypeId, index: u64) -> Option<TypeId> {
        match self.ty(ty) {
            Type::Struct { fields, .. } => fields.get(usize::try_from(index).ok()?).copied(),
            Type::Array { len, elem } => (index < *len).then_some(*elem),
            Type::Vector { len, elem } => (index < u64::from(*len)).then_some(*elem),
            _ => None,
        }
    }

    /// The return type of a function type, or of a pointer to one.
    pub fn return_type(&self, fn_type: TypeId) -> Option<TypeId> {
        match self.ty(fn_type) {
            Type::Function { ret, .. } => Some(*ret),
            Type::Pointer { pointee, .. } => self.return_type(*pointee),
            _ => None,
        }
    }

    /// The name of a named struct type (`dx.types.Handle`, `dx.types.ResRet.f32`…).
    pub fn struct_name(&self, ty: TypeId) -> Option<&str> {
        match self.ty(ty) {
            Type::Struct { name, .. } => name.as_deref(),
            _ => None,
        }
    }
}
