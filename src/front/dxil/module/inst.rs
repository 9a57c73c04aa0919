//! Instructions: one enum, a variant per LLVM instruction DXC emits, operands as [`Value`]s,
//! blocks as [`BlockId`]s, and the result type in `ty` wherever the instruction has a result.
//! The operator enums hold LLVM's meaning (`FAdd` is its own operator, not `Add` on floats).

use super::{BlockId, TypeId, Value};

/// Binary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    FAdd,
    Sub,
    FSub,
    Mul,
    FMul,
    UDiv,
    SDiv,
    FDiv,
    URem,
    SRem,
    FRem,
    Shl,
    LShr,
    AShr,
    And,
    Or,
    Xor,
}

/// Flag bits of [`Instruction::Binary`] for `add`, `sub`, `mul`, `shl`.
pub mod wrap_flags {
    /// `nuw`.
    pub const NUW: u8 = 1;
    /// `nsw`.
    pub const NSW: u8 = 2;
    /// `exact` (`udiv`, `sdiv`, `lshr`, `ashr`; the same bit as `NUW`).
    pub const EXACT: u8 = 1;
}

/// Fast-math flag bits (LLVM 3.7 order) of float [`Instruction::Binary`] and
/// [`Instruction::Cmp`]; all five together print as `fast`.
pub mod fast_math {
    /// `fast` (3.7 "unsafe algebra").
    pub const UNSAFE: u8 = 1;
    pub const NNAN: u8 = 2;
    pub const NINF: u8 = 4;
    pub const NSZ: u8 = 8;
    pub const ARCP: u8 = 16;
}

/// Cast operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CastOp {
    Trunc,
    ZExt,
    SExt,
    FpToUi,
    FpToSi,
    UiToFp,
    SiToFp,
    FpTrunc,
    FpExt,
    PtrToInt,
    IntToPtr,
    BitCast,
    AddrSpaceCast,
}

/// Comparison predicates of `icmp` and `fcmp` (the `F*` ones are `fcmp`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CmpPredicate {
    FFalse,
    FOeq,
    FOgt,
    FOge,
    FOlt,
    FOle,
    FOne,
    FOrd,
    FUno,
    FUeq,
    FUgt,
    FUge,
    FUlt,
    FUle,
    FUne,
    FTrue,
    IEq,
    INe,
    IUgt,
    IUge,
    IUlt,
    IUle,
    ISgt,
    ISge,
    ISlt,
    ISle,
}

impl CmpPredicate {
    /// Whether this is an `fcmp` predicate.
    pub fn is_float(self) -> bool {
        (self as u8) <= (CmpPredicate::FTrue as u8)
    }
}

/// `atomicrmw` operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AtomicRmwOp {
    Xchg,
    Add,
    Sub,
    And,
    Nand,
    Or,
    Xor,
    Max,
    Min,
    UMax,
    UMin,
}

/// Memory orderings of atomics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AtomicOrdering {
    NotAtomic,
    Unordered,
    Monotonic,
    Acquire,
    Release,
    AcqRel,
    SeqCst,
}

/// Synchronisation scope of atomics (3.7 has two).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SyncScope {
    SingleThread,
    System,
}

/// The call-site attributes of a [`Instruction::Call`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct CallAttrs {
    /// 1-based index into [`super::Module::attribute_lists`]; 0 = none.
    pub attributes: u32,
    /// Calling convention number (0 = C).
    pub calling_conv: u32,
    pub tail: bool,
    pub musttail: bool,
}

/// One instruction. Variants with a result carry its type as `ty`; see
/// [`Instruction::result_type`].
#[derive(Debug, Clone, PartialEq)]
pub enum Instruction {
    /// `lhs op rhs`; `flags` are [`wrap_flags`] for integer operators, [`fast_math`] for
    /// float ones.
    Binary {
        op: BinOp,
        lhs: Value,
        rhs: Value,
        flags: u8,
        ty: TypeId,
    },
    /// `op value to ty`.
    Cast {
        op: CastOp,
        value: Value,
        ty: TypeId,
    },
    /// `icmp`/`fcmp`; `ty` is `i1` or a vector of `i1`; `flags` are [`fast_math`] (fcmp).
    Cmp {
        pred: CmpPredicate,
        lhs: Value,
        rhs: Value,
        flags: u8,
        ty: TypeId,
    },
    /// `select cond, if_true, if_false`.
    Select {
        cond: Value,
        if_true: Value,
        if_false: Value,
        ty: TypeId,
    },
    /// `extractvalue aggregate, indices...`.
    ExtractValue {
        aggregate: Value,
        indices: Vec<u32>,
        ty: TypeId,
    },
    /// `insertvalue aggregate, value, indices...`.
    InsertValue {
        aggregate: Value,
        value: Value,
        indices: Vec<u32>,
        ty: TypeId,
    },
    /// `extractelement vector, index`.
    ExtractElement {
        vector: Value,
        index: Value,
        ty: TypeId,
    },
    /// `insertelement vector, value, index`.
    InsertElement {
        vector: Value,
        value: Value,
        index: Value,
        ty: TypeId,
    },
    /// `shufflevector a, b, mask` (the mask is a constant).
    ShuffleVector {
        a: Value,
        b: Value,
        mask: Value,
        ty: TypeId,
    },
    /// `getelementptr [inbounds] source_type, ptr, indices...`.
    Gep {
        inbounds: bool,
        source_type: TypeId,
        ptr: Value,
        indices: Vec<Value>,
        ty: TypeId,
    },
    /// `load [volatile] ty, ptr, align a` (`align` in bytes, 0 unspecified); atomic loads
    /// have an ordering other than `NotAtomic`.
    Load {
        ptr: Value,
        ty: TypeId,
        align: u64,
        volatile: bool,
        ordering: AtomicOrdering,
        scope: SyncScope,
    },
    /// `store [volatile] value, ptr, align a`.
    Store {
        ptr: Value,
        value: Value,
        align: u64,
        volatile: bool,
        ordering: AtomicOrdering,
        scope: SyncScope,
    },
    /// `alloca allocated_type, size, align a`; `ty` is the pointer type of the result.
    Alloca {
        allocated_type: TypeId,
        size: Value,
        align: u64,
        ty: TypeId,
    },
    /// `call fn_type callee(args...)`; `ty` is the return type (`Void` for a call without a
    /// result, which then has no value).
    Call {
        callee: Value,
        args: Vec<Value>,
        fn_type: TypeId,
        attrs: CallAttrs,
        ty: TypeId,
    },
    /// `phi ty [value, block]...`, in the bitcode's order.
    Phi {
        incoming: Vec<(Value, BlockId)>,
        ty: TypeId,
    },
    /// `atomicrmw [volatile] op ptr, value ordering`.
    AtomicRmw {
        op: AtomicRmwOp,
        ptr: Value,
        value: Value,
        volatile: bool,
        ordering: AtomicOrdering,
        scope: SyncScope,
        ty: TypeId,
    },
    /// `cmpxchg [weak] [volatile] ptr, cmp, new success failure`; `ty` is `{ T, i1 }`.
    CmpXchg {
        ptr: Value,
        cmp: Value,
        new: Value,
        volatile: bool,
        weak: bool,
        success: AtomicOrdering,
        failure: AtomicOrdering,
        scope: SyncScope,
        ty: TypeId,
    },
    /// `fence ordering`.
    Fence {
        ordering: AtomicOrdering,
        scope: SyncScope,
    },
    /// `br label target`.
    Br { target: BlockId },
    /// `br i1 cond, label if_true, label if_false`.
    CondBr {
        cond: Value,
        if_true: BlockId,
        if_false: BlockId,
    },
    /// `switch cond, default [case value, block]...`; case values are constants of the
    /// condition's type.
    Switch {
        cond: Value,
        default: BlockId,
        cases: Vec<(Value, BlockId)>,
    },
    /// `ret void` / `ret value`.
    Ret { value: Option<Value> },
    /// `unreachable`.
    Unreachable,
}

/// One walk over an instruction's value operands for both `&` and `&mut` (match ergonomics
/// bind by the receiver's mutability).
macro_rules! walk_operands {
    ($inst:expr, $f:ident) => {{
        use Instruction::*;
        match $inst {
            Binary { lhs, rhs, .. } | Cmp { lhs, rhs, .. } => {
                $f(lhs);
                $f(rhs);
            }
            Cast { value, .. } => $f(value),
            Select {
                cond,
                if_true,
                if_false,
                ..
            } => {
                $f(cond);
                $f(if_true);
                $f(if_false);
            }
            ExtractValue { aggregate, .. } => $f(aggregate),
            InsertValue {
                aggregate, value, ..
            } => {
                $f(aggregate);
                $f(value);
            }
            ExtractElement { vector, index, .. } => {
                $f(vector);
                $f(index);
            }
            InsertElement {
                vector,
                value,
                index,
                ..
            } => {
                $f(vector);
                $f(value);
                $f(index);
            }
            ShuffleVector { a, b, mask, .. } => {
                $f(a);
                $f(b);
                $f(mask);
            }
            Gep { ptr, indices, .. } => {
                $f(ptr);
                for v in indices {
                    $f(v);
                }
            }
            Load { ptr, .. } => $f(ptr),
            Store { ptr, value, .. } => {
                $f(ptr);
                $f(value);
            }
            Alloca { size, .. } => $f(size),
            Call { callee, args, .. } => {
                $f(callee);
                for v in args {
                    $f(v);
                }
            }
            Phi { incoming, .. } => {
                for (v, _) in incoming {
                    $f(v);
                }
            }
            AtomicRmw { ptr, value, .. } => {
                $f(ptr);
                $f(value);
            }
            CmpXchg { ptr, cmp, new, .. } => {
                $f(ptr);
                $f(cmp);
                $f(new);
            }
            CondBr { cond, .. } => $f(cond),
            Switch { cond, cases, .. } => {
                $f(cond);
                for (v, _) in cases {
                    $f(v);
                }
            }
            Ret { value } => {
                if let Some(v) = value {
                    $f(v);
                }
            }
            Fence { .. } | Br { .. } | Unreachable => {}
        }
    }};
}

impl Instruction {
    /// The type of the instruction's result: `None` for stores, fences and terminators. A
    /// call returns its `ty`, which is the `void` type for a call without a result (such a
    /// call is never an operand; [`super::Module::defines_value`] tells them apart).
    pub fn result_type(&self) -> Option<TypeId> {
        use Instruction::*;
        match self {
            Binary { ty, .. }
            | Cast { ty, .. }
            | Cmp { ty, .. }
            | Select { ty, .. }
            | ExtractValue { ty, .. }
            | InsertValue { ty, .. }
            | ExtractElement { ty, .. }
            | InsertElement { ty, .. }
            | ShuffleVector { ty, .. }
            | Gep { ty, .. }
            | Load { ty, .. }
            | Alloca { ty, .. }
            | Call { ty, .. }
            | Phi { ty, .. }
            | AtomicRmw { ty, .. }
            | CmpXchg { ty, .. } => Some(*ty),
            Store { .. }
            | Fence { .. }
            | Br { .. }
            | CondBr { .. }
            | Switch { .. }
            | Ret { .. }
            | Unreachable => None,
        }
    }

    /// Whether this ends a basic block.
    pub fn is_terminator(&self) -> bool {
        matches!(
            self,
            Instruction::Br { .. }
                | Instruction::CondBr { .. }
                | Instruction::Switch { .. }
                | Instruction::Ret { .. }
                | Instruction::Unreachable
        )
    }

    /// The blocks a terminator may jump to, in operand order (empty for other instructions).
    pub fn successors(&self) -> Vec<BlockId> {
        match self {
            Instruction::Br { target } => vec![*target],
            Instruction::CondBr {
                if_true, if_false, ..
            } => vec![*if_true, *if_false],
            Instruction::Switch { default, cases, .. } => std::iter::once(*default)
                .chain(cases.iter().map(|c| c.1))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Calls `f` on every value operand, in operand order (phi values, case values and a
    /// call's callee included; blocks are not values).
    pub fn for_each_operand(&self, mut f: impl FnMut(&Value)) {
        walk_operands!(self, f);
    }

    /// Calls `f` on every value operand, mutably, in the same order as
    /// [`Instruction::for_each_operand`] (the decoder resolves forward references with it).
    pub fn for_each_operand_mut(&mut self, mut f: impl FnMut(&mut Value)) {
        walk_operands!(self, f);
    }

    /// The value operands, in operand order.
    pub fn operands(&self) -> Vec<Value> {
        let mut out = Vec::new();
        self.for_each_operand(|v| out.push(*v));
        out
    }
}
