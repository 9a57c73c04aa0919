//! The decoded LLVM 3.7 module that DXC writes into a DXIL part: what the bitcode says, with the
//! bitcode's encoding gone and nothing DXIL-specific added.
//!
//! Everything lives in flat arenas owned by [`Module`] and is referred to by small copyable
//! ids ([`TypeId`], [`ConstId`], [`GlobalId`], [`FuncId`], [`MdId`]; inside a function
//! [`InstId`], [`BlockId`]). An instruction operand is a [`Value`], an enum naming what it is
//! (a constant, an argument, an instruction's result, a global, a function), so a consumer
//! matches on it directly; the bitcode's relative and absolute value numbers and its forward
//! references are resolved by the decoder and never appear here.
//!
//! - [`types`]: the type table ([`Type`]), typed pointers included;
//! - [`constant`]: constants and constant expressions ([`Constant`], [`ConstKind`]);
//! - [`inst`]: instructions as one typed enum ([`Instruction`]) with its operator enums;
//! - [`metadata`]: metadata nodes, strings and values, named metadata, kinds.
//!
//! The shape follows the bitcode, not a convenience model: one constant arena for module and
//! function constants (their ids stay valid module-wide), instructions of a function in one
//! vector with each block a contiguous range of it (the bitcode's order), names in side
//! tables so that matching on an instruction never has to look past its fields.

pub mod constant;
pub mod inst;
pub mod metadata;
pub mod types;

pub use constant::{ConstKind, Constant};
pub use inst::{
    AtomicOrdering, AtomicRmwOp, BinOp, CallAttrs, CastOp, CmpPredicate, Instruction, SyncScope,
};
pub use metadata::{Metadata, NamedMetadata};
pub use types::Type;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);

        impl $name {
            /// The id as an index into its arena.
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id_type!(
    /// An entry of [`Module::types`].
    TypeId
);
id_type!(
    /// An entry of [`Module::constants`] (module and function constants share the arena).
    ConstId
);
id_type!(
    /// An entry of [`Module::globals`].
    GlobalId
);
id_type!(
    /// An entry of [`Module::functions`].
    FuncId
);
id_type!(
    /// An entry of [`Module::metadata`].
    MdId
);
id_type!(
    /// An entry of [`Function::insts`] (void instructions included).
    InstId
);
id_type!(
    /// An entry of [`Function::blocks`]; block 0 is the entry block.
    BlockId
);

/// An operand: where a value comes from. Constants, globals and functions are module-wide;
/// `Arg` and `Inst` are local to the function the operand appears in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Value {
    /// A constant or constant expression (`undef`, `zeroinitializer`, `i32 4`, a constant GEP…).
    Const(ConstId),
    /// A global variable (the value is a pointer to it).
    Global(GlobalId),
    /// A function (the value is a pointer to it; the callee of a call).
    Function(FuncId),
    /// The function's n-th argument.
    Arg(u32),
    /// The result of an instruction of the same function.
    Inst(InstId),
}

/// LLVM linkage, as the bitcode encodes it (the 3.7 values, with the old aliases mapped).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Linkage {
    External,
    WeakAny,
    Appending,
    Internal,
    LinkOnceAny,
    ExternalWeak,
    Common,
    Private,
    WeakOdr,
    LinkOnceOdr,
    AvailableExternally,
}

/// A global variable: `@name = [linkage] [addrspace(n)] global|constant T [init], align a`.
#[derive(Debug, Clone, PartialEq)]
pub struct GlobalVar {
    /// Its name from the module's value symbol table (DXC names every global).
    pub name: Option<String>,
    /// The type of the variable's contents (`T`; the global's own value is `T addrspace(n)*`).
    pub value_type: TypeId,
    /// The pointer type of the global as a value (`ptr_type` is `Pointer { value_type, addrspace }`).
    pub ptr_type: TypeId,
    /// Address space: 0 default, 2 legacy constant buffer, 3 groupshared.
    pub addrspace: u32,
    /// `constant` rather than `global`.
    pub is_const: bool,
    /// The initialiser, a constant.
    pub init: Option<ConstId>,
    pub linkage: Linkage,
    /// Alignment in bytes (0: unspecified).
    pub align: u64,
    /// Section name, if any.
    pub section: Option<String>,
    pub thread_local: u8,
    pub unnamed_addr: bool,
}

/// A function argument.
#[derive(Debug, Clone, PartialEq)]
pub struct Argument {
    pub ty: TypeId,
    pub name: Option<String>,
}

/// A basic block: a contiguous run of [`Function::insts`] ending in a terminator.
#[derive(Debug, Clone, PartialEq)]
pub struct BasicBlock {
    pub name: Option<String>,
    /// The first instruction of the block.
    pub start: InstId,
    /// One past the last instruction (the terminator is `end - 1`).
    pub end: InstId,
}

impl BasicBlock {
    /// The ids of the block's instructions, in order.
    pub fn inst_ids(&self) -> impl Iterator<Item = InstId> + Clone {
        (self.start.0..self.end.0).map(InstId)
    }
}

/// A function, declared (`dx.op.*`, intrinsics) or defined (the entry points, library
/// functions).
#[derive(Debug, Clone, PartialEq)]
pub struct Function {
    pub name: Option<String>,
    /// The function type (`Type::Function`).
    pub fn_type: TypeId,
    /// The pointer-to-function type of the function as a value.
    pub ptr_type: TypeId,
    pub linkage: Linkage,
    /// Calling convention number (0 = C).
    pub calling_conv: u32,
    /// 1-based index into [`Module::attribute_lists`]; 0 = none.
    pub attributes: u32,
    pub align: u64,
    pub section: Option<String>,
    pub unnamed_addr: bool,
    /// A prototype only (`declare`): no arguments' names, blocks or instructions.
    pub is_declaration: bool,
    pub args: Vec<Argument>,
    pub blocks: Vec<BasicBlock>,
    pub insts: Vec<Instruction>,
    /// The name of each instruction's result, parallel to `insts` (DXC strips most names).
    pub inst_names: Vec<Option<String>>,
    /// Metadata attached to instructions (`!tbaa`, `!dx.nonUniform`…): `(instruction, kind
    /// id from [`Module::md_kinds`], node)`, in bitcode order.
    pub inst_metadata: Vec<(InstId, u32, MdId)>,
}

impl Function {
    /// The instruction with this id.
    pub fn inst(&self, id: InstId) -> &Instruction {
        &self.insts[id.index()]
    }

    /// The instructions of a block, with their ids.
    pub fn block_insts(
        &self,
        b: BlockId,
    ) -> impl Iterator<Item = (InstId, &Instruction)> + Clone + '_ {
        let block = &self.blocks[b.index()];
        block.inst_ids().map(move |i| (i, &self.insts[i.index()]))
    }

    /// The block that holds an instruction.
    pub fn block_of(&self, id: InstId) -> Option<BlockId> {
        let i = self.blocks.partition_point(|b| b.end.0 <= id.0);
        (i < self.blocks.len() && self.blocks[i].start.0 <= id.0).then_some(BlockId(i as u32))
    }
}

/// One attribute group (`attributes #n = { ... }`), kept as text-ready pairs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttributeGroup {
    /// The group id (`#n`).
    pub id: u32,
    /// Which position it applies to: 0xFFFF_FFFF the function, 0 the return value, n the
    /// n-th parameter (1-based).
    pub index: u32,
    pub attrs: Vec<Attribute>,
}

/// One attribute of a group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attribute {
    /// A well-known attribute by its bitcode kind number (`nounwind` is 18…).
    Enum(u32),
    /// A well-known attribute with an integer (`align`, `dereferenceable`…).
    Int(u32, u64),
    /// `"key"="value"` (value may be empty).
    Str(String, String),
}

/// The decoded module.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Module {
    /// `MODULE_CODE_VERSION` (1 for DXC: relative value ids).
    pub version: u64,
    pub triple: String,
    pub datalayout: String,
    pub types: Vec<Type>,
    pub globals: Vec<GlobalVar>,
    pub functions: Vec<Function>,
    pub constants: Vec<Constant>,
    /// Every metadata item, module-level and function-local, by [`MdId`].
    pub metadata: Vec<Metadata>,
    pub named_metadata: Vec<NamedMetadata>,
    /// Metadata kind names by kind id (`tbaa`, `dx.nonUniform`…).
    pub md_kinds: Vec<(u32, String)>,
    /// Attribute groups (`PARAMATTR_GROUP` block).
    pub attribute_groups: Vec<AttributeGroup>,
    /// Attribute lists (`PARAMATTR` block): each a list of group ids; referred to 1-based by
    /// [`Function::attributes`] and [`CallAttrs::attributes`].
    pub attribute_lists: Vec<Vec<u32>>,
}

impl Module {
    /// A type by id.
    pub fn ty(&self, id: TypeId) -> &Type {
        &self.types[id.index()]
    }

    /// A constant by id.
    pub fn constant(&self, id: ConstId) -> &Constant {
        &self.constants[id.index()]
    }

    /// A function by id.
    pub fn function(&self, id: FuncId) -> &Function {
        &self.functions[id.index()]
    }

    /// The functions with bodies.
    pub fn defined_functions(&self) -> impl Iterator<Item = (FuncId, &Function)> {
        self.functions
            .iter()
            .enumerate()
            .filter(|(_, f)| !f.is_declaration)
            .map(|(i, f)| (FuncId(i as u32), f))
    }

    /// A function by name.
    pub fn function_by_name(&self, name: &str) -> Option<(FuncId, &Function)> {
        self.functions
            .iter()
            .enumerate()
            .find(|(_, f)| f.name.as_deref() == Some(name))
            .map(|(i, f)| (FuncId(i as u32), f))
    }

    /// The type of an operand of `func`.
    pub fn value_type(&self, func: &Function, v: Value) -> TypeId {
        match v {
            Value::Const(c) => self.constants[c.index()].ty,
            Value::Global(g) => self.globals[g.index()].ptr_type,
            Value::Function(f) => self.functions[f.index()].ptr_type,
            Value::Arg(a) => func.args[a as usize].ty,
            Value::Inst(i) => func.insts[i.index()]
                .result_type()
                .expect("an instruction used as a value has a result"),
        }
    }

    /// Whether an instruction defines a value (has a non-`void` result).
    pub fn defines_value(&self, inst: &Instruction) -> bool {
        inst.result_type()
            .is_some_and(|t| self.types[t.index()] != Type::Void)
    }

    /// The value of an integer constant operand, sign-extended from its width (`None` for
    /// anything that is not a `ConstKind::Int`).
    pub fn const_int(&self, v: Value) -> Option<i64> {
        match v {
            Value::Const(c) => self.constants[c.index()].as_i64(self),
            _ => None,
        }
    }

    /// For a call of a `dx.op.*` function whose first argument is a constant integer: the
    /// opcode and the arguments after it. `None` for any other instruction.
    pub fn dx_op<'f>(&self, inst: &'f Instruction) -> Option<(u32, &'f [Value])> {
        let Instruction::Call {
            callee: Value::Function(f),
            args,
            ..
        } = inst
        else {
            return None;
        };
        let name = self.functions[f.index()].name.as_deref()?;
        if !name.starts_with("dx.op.") {
            return None;
        }
        let (&first, rest) = args.split_first()?;
        let op = self.const_int(first)?;
        Some((u32::try_from(op).ok()?, rest))
    }

    /// The name of a metadata kind id.
    pub fn md_kind_name(&self, kind: u32) -> Option<&str> {
        self.md_kinds
            .iter()
            .find(|(k, _)| *k == kind)
            .map(|(_, n)| n.as_str())
    }

    /// The operands of a named metadata (`!dx.entryPoints = !{...}`), if present.
    pub fn named_md(&self, name: &str) -> Option<&[MdId]> {
        self.named_metadata
            .iter()
            .find(|n| n.name == name)
            .map(|n| n.operands.as_slice())
    }
}
