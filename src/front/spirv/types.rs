//! The type table: SPIR-V types resolved per entry point (array lengths may be spec constants),
//! their scalarisation into leaves, per-lane word layout (Function/Private/Input/Output and
//! Workgroup memory) and explicit byte layout (buffers: `Offset`, `ArrayStride`, `MatrixStride`,
//! `RowMajor`/`ColMajor`).
//!
//! A composite value is the flat list of its scalar leaves in declaration order (vectors by
//! component, matrices column by column, structs member by member, arrays element by element).
//! In per-lane memory each leaf takes one word (two for 64-bit types), packed without padding.
//! A pointer type has two I32 leaves, the run-time pointer of `varptr.rs`.

use spirv::Decoration;

use crate::ir::{self, ScalarTy};
use crate::{Error, Result};

use super::lower::Lower;
use super::parse::I;

/// Image type as declared.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ImgTy {
    pub sampled: u32,
    pub dim: u32,
    pub depth: u32,
    pub arrayed: bool,
    pub ms: bool,
    /// 1 = sampled, 2 = storage.
    pub usage: u32,
}

#[derive(Clone, Debug)]
pub(crate) enum Type {
    Void,
    Bool,
    Int { width: u32, signed: bool },
    Float { width: u32 },
    Vector { elem: u32, n: u32 },
    Matrix { col: u32, n: u32 },
    Array { elem: u32, len: u32 },
    RuntimeArray { elem: u32 },
    Struct { members: Vec<u32> },
    Pointer { sc: u32, pointee: u32 },
    Function,
    Image(ImgTy),
    Sampler,
    SampledImage { image: u32 },
}

/// How a matrix is laid out in a buffer (from its struct member's decorations).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct MatLayout {
    pub row_major: bool,
    pub stride: u32,
}

impl Lower<'_> {
    /// Declares a type from its instruction.
    pub(crate) fn declare_type(&mut self, i: &I) -> Result<()> {
        use spirv::Op;
        let id = i.w(0)?;
        let t = match i.op {
            Op::TypeVoid => Type::Void,
            Op::TypeBool => Type::Bool,
            Op::TypeInt => {
                let width = i.w(1)?;
                if !matches!(width, 8 | 16 | 32 | 64) {
                    return Err(i.unsup(&format!("integer width {width}")));
                }
                Type::Int {
                    width,
                    signed: i.w(2)? != 0,
                }
            }
            Op::TypeFloat => {
                let width = i.w(1)?;
                if !matches!(width, 16 | 32 | 64) || i.w.len() > 2 {
                    return Err(i.unsup(&format!("float width {width} / encoding")));
                }
                Type::Float { width }
            }
            Op::TypeVector => {
                let elem = i.w(1)?;
                self.scalar_of(elem)
                    .map_err(|_| i.err("vector of a non-scalar type"))?;
                let n = i.w(2)?;
                if !(2..=4).contains(&n) {
                    return Err(i.err(&format!("vector of {n} components (2..4 allowed)")));
                }
                Type::Vector { elem, n }
            }
            Op::TypeMatrix => {
                let col = i.w(1)?;
                match self.ty(col)? {
                    Type::Vector { .. } => {}
                    _ => return Err(i.err("matrix column type is not a vector")),
                }
                Type::Matrix { col, n: i.w(2)? }
            }
            Op::TypeArray => {
                let elem = i.w(1)?;
                self.ty(elem)?;
                let len = self
                    .const_u64(i.w(2)?)
                    .ok_or_else(|| i.err("array length is not an integer constant"))?;
                if len == 0 || len > 1 << 24 {
                    return Err(i.err(&format!("array length {len} out of range")));
                }
                Type::Array {
                    elem,
                    len: len as u32,
                }
            }
            Op::TypeRuntimeArray => {
                let elem = i.w(1)?;
                self.ty(elem)?;
                Type::RuntimeArray { elem }
            }
            Op::TypeStruct => {
                let members = i.rest(1).to_vec();
                if members.is_empty() {
                    return Err(i.unsup("empty struct type"));
                }
                for &m in &members {
                    self.ty(m)?;
                }
                Type::Struct { members }
            }
            Op::TypePointer => Type::Pointer {
                sc: i.w(1)?,
                pointee: i.w(2)?,
            },
            Op::TypeFunction => Type::Function,
            Op::TypeImage => {
                let sampled = i.w(1)?;
                self.scalar_of(sampled)
                    .map_err(|_| i.err("image sampled type is not a scalar"))?;
                Type::Image(ImgTy {
                    sampled,
                    dim: i.w(2)?,
                    depth: i.w(3)?,
                    arrayed: i.w(4)? != 0,
                    ms: i.w(5)? != 0,
                    usage: i.w(6)?,
                })
            }
            Op::TypeSampler => Type::Sampler,
            Op::TypeSampledImage => {
                let image = i.w(1)?;
                match self.ty(image)? {
                    Type::Image(_) => {}
                    _ => return Err(i.err("OpTypeSampledImage of a non-image type")),
                }
                Type::SampledImage { image }
            }
            _ => return Err(i.err("not a type")),
        };
        // Every operand above is a type defined earlier, so without redefinitions the types
        // form no cycle, and the layout walks over them end.
        if self.types.contains_key(&id) {
            return Err(i.err(&format!("type %{id} is defined more than once")));
        }
        self.types.insert(id, t);
        Ok(())
    }

    /// The type `id`, or an error if `id` is not a type.
    pub(crate) fn ty(&self, id: u32) -> Result<&Type> {
        self.types
            .get(&id)
            .ok_or_else(|| Error::Spirv(format!("%{id} is not a declared type{}", self.at())))
    }

    /// The IR scalar type of a scalar SPIR-V type.
    pub(crate) fn scalar_of(&self, id: u32) -> Result<ScalarTy> {
        Ok(match self.ty(id)? {
            Type::Bool => ScalarTy::Bool,
            Type::Int { width: 8, .. } => ScalarTy::I8,
            Type::Int { width: 16, .. } => ScalarTy::I16,
            Type::Int { width: 32, .. } => ScalarTy::I32,
            Type::Int { width: 64, .. } => ScalarTy::I64,
            Type::Float { width: 16 } => ScalarTy::F16,
            Type::Float { width: 32 } => ScalarTy::F32,
            Type::Float { width: 64 } => ScalarTy::F64,
            _ => {
                return Err(Error::Spirv(format!(
                    "%{id} is not a scalar type{}",
                    self.at()
                )))
            }
        })
    }

    /// The scalar type of a scalar or the component type of a vector.
    pub(crate) fn elem_scalar(&self, id: u32) -> Result<ScalarTy> {
        match self.ty(id)? {
            Type::Vector { elem, .. } => self.scalar_of(*elem),
            _ => self.scalar_of(id),
        }
    }

    /// Whether the scalar (or vector component) type is a signed integer.
    pub(crate) fn is_signed(&self, id: u32) -> bool {
        let id = match self.types.get(&id) {
            Some(Type::Vector { elem, .. }) => *elem,
            _ => id,
        };
        matches!(self.types.get(&id), Some(Type::Int { signed: true, .. }))
    }

    /// Flattened scalar leaves of a type.
    pub(crate) fn leaves(&self, id: u32) -> Result<Vec<ScalarTy>> {
        if let Some(v) = self.leaf_cache.borrow().get(&id) {
            return Ok(v.clone());
        }
        let mut out = Vec::new();
        self.push_leaves(id, &mut out, 0)?;
        self.leaf_cache.borrow_mut().insert(id, out.clone());
        Ok(out)
    }

    fn push_leaves(&self, id: u32, out: &mut Vec<ScalarTy>, depth: u32) -> Result<()> {
        if depth > 64 || out.len() > 1 << 20 {
            return Err(Error::Unsupported(format!(
                "type %{id} is too large or too deep to scalarise{}",
                self.at()
            )));
        }
        match self.ty(id)? {
            Type::Vector { elem, n } => {
                let s = self.scalar_of(*elem)?;
                out.extend(std::iter::repeat_n(s, *n as usize));
            }
            Type::Matrix { col, n } => {
                for _ in 0..*n {
                    self.push_leaves(*col, out, depth + 1)?;
                }
            }
            Type::Array { elem, len } => {
                for _ in 0..*len {
                    self.push_leaves(*elem, out, depth + 1)?;
                }
            }
            Type::Struct { members } => {
                for m in members.clone() {
                    self.push_leaves(m, out, depth + 1)?;
                }
            }
            Type::Bool | Type::Int { .. } | Type::Float { .. } => out.push(self.scalar_of(id)?),
            // A pointer held as a value (a variable pointer): its target and its address (see
            // `varptr.rs`).
            Type::Pointer { .. } => out.extend([ScalarTy::I32; 2]),
            other => {
                return Err(Error::Spirv(format!(
                    "type %{id} ({other:?}) has no scalar value{}",
                    self.at()
                )))
            }
        }
        Ok(())
    }

    pub(crate) fn leaf_count(&self, id: u32) -> Result<usize> {
        Ok(self.leaves(id)?.len())
    }

    /// The child type of a composite and the range of its leaves for member/element `k`.
    pub(crate) fn child(&self, id: u32, k: u32) -> Result<(u32, usize, usize)> {
        let bad = || {
            Error::Spirv(format!(
                "index {k} out of range for composite type %{id}{}",
                self.at()
            ))
        };
        match self.ty(id)?.clone() {
            Type::Vector { elem, n } => {
                if k >= n {
                    return Err(bad());
                }
                Ok((elem, k as usize, 1))
            }
            Type::Matrix { col, n } => {
                if k >= n {
                    return Err(bad());
                }
                let c = self.leaf_count(col)?;
                Ok((col, k as usize * c, c))
            }
            Type::Array { elem, len } => {
                if k >= len {
                    return Err(bad());
                }
                let c = self.leaf_count(elem)?;
                Ok((elem, k as usize * c, c))
            }
            Type::Struct { members } => {
                let m = *members.get(k as usize).ok_or_else(bad)?;
                let mut start = 0;
                for &p in &members[..k as usize] {
                    start += self.leaf_count(p)?;
                }
                Ok((m, start, self.leaf_count(m)?))
            }
            _ => Err(Error::Spirv(format!(
                "%{id} is not a composite type{}",
                self.at()
            ))),
        }
    }

    /// Words of per-lane (or workgroup) memory the type occupies.
    pub(crate) fn words(&self, id: u32) -> Result<u32> {
        Ok(self
            .leaves(id)?
            .iter()
            .map(|s| if s.is_wide() { 2 } else { 1 })
            .sum())
    }

    /// Word offsets of the leaves in per-lane layout.
    pub(crate) fn word_leaves(&self, id: u32) -> Result<Vec<(ScalarTy, u32)>> {
        let mut off = 0;
        Ok(self
            .leaves(id)?
            .into_iter()
            .map(|s| {
                let o = off;
                off += if s.is_wide() { 2 } else { 1 };
                (s, o)
            })
            .collect())
    }

    /// Word offset and type of child `k` in per-lane layout.
    pub(crate) fn word_child(&self, id: u32, k: u32) -> Result<(u32, u32)> {
        let (cty, start, _) = self.child(id, k)?;
        let leaves = self.leaves(id)?;
        let off = leaves[..start]
            .iter()
            .map(|s| if s.is_wide() { 2 } else { 1 })
            .sum();
        Ok((cty, off))
    }

    /// Byte size of a scalar in a buffer.
    pub(crate) fn scalar_bytes(s: ScalarTy) -> u32 {
        match s {
            ScalarTy::I8 => 1,
            ScalarTy::I16 | ScalarTy::F16 => 2,
            ScalarTy::I64 | ScalarTy::F64 => 8,
            _ => 4,
        }
    }

    /// ArrayStride of an array type (required in buffers).
    pub(crate) fn array_stride(&self, id: u32) -> Result<u32> {
        if let Some(s) = self
            .m
            .deco(id, Decoration::ArrayStride)
            .and_then(|a| a.first())
        {
            return Ok(*s);
        }
        // Without an explicit stride (e.g. arrays of descriptors), fall back to the natural size.
        let elem = match self.ty(id)? {
            Type::Array { elem, .. } | Type::RuntimeArray { elem } => *elem,
            _ => return Err(Error::Spirv(format!("%{id} is not an array{}", self.at()))),
        };
        self.byte_size(elem, None)
    }

    /// Layout of matrices inside member `k` of struct `st`.
    pub(crate) fn member_mat(&self, st: u32, k: u32) -> Option<MatLayout> {
        let stride = self
            .m
            .member_deco(st, k, Decoration::MatrixStride)
            .and_then(|a| a.first().copied())?;
        let row_major = self.m.member_deco(st, k, Decoration::RowMajor).is_some();
        Some(MatLayout { row_major, stride })
    }

    /// Byte offset of member `k` of struct `st`.
    pub(crate) fn member_offset(&self, st: u32, k: u32) -> Result<u32> {
        if let Some(o) = self
            .m
            .member_deco(st, k, Decoration::Offset)
            .and_then(|a| a.first())
        {
            return Ok(*o);
        }
        // No Offset: pack naturally (only reached for types not used in buffers).
        let members = match self.ty(st)? {
            Type::Struct { members } => members.clone(),
            _ => return Err(Error::Spirv(format!("%{st} is not a struct{}", self.at()))),
        };
        let mut off = 0;
        for (j, m) in members.iter().enumerate().take(k as usize) {
            off = self
                .byte_size(*m, self.member_mat(st, j as u32))?
                .wrapping_add(off);
        }
        Ok(off)
    }

    /// Byte size of a type in buffer layout (end of its last leaf, for strides of untyped
    /// fallbacks).
    pub(crate) fn byte_size(&self, id: u32, mat: Option<MatLayout>) -> Result<u32> {
        Ok(self
            .byte_leaves(id, mat, None)?
            .iter()
            .map(|(s, o)| o.wrapping_add(Self::scalar_bytes(*s)))
            .max()
            .unwrap_or(0))
    }

    /// Byte offsets of the leaves of `id` in buffer layout. `vec_stride` overrides the component
    /// stride of a vector (a column of a row-major matrix).
    pub(crate) fn byte_leaves(
        &self,
        id: u32,
        mat: Option<MatLayout>,
        vec_stride: Option<u32>,
    ) -> Result<Vec<(ScalarTy, u32)>> {
        let mut out = Vec::new();
        self.push_byte_leaves(id, mat, vec_stride, 0, &mut out, 0)?;
        Ok(out)
    }

    fn push_byte_leaves(
        &self,
        id: u32,
        mat: Option<MatLayout>,
        vec_stride: Option<u32>,
        base: u32,
        out: &mut Vec<(ScalarTy, u32)>,
        depth: u32,
    ) -> Result<()> {
        if depth > 64 || out.len() > 1 << 20 {
            return Err(Error::Unsupported(format!(
                "type %{id} is too large to lay out{}",
                self.at()
            )));
        }
        match self.ty(id)?.clone() {
            Type::Vector { elem, n } => {
                let s = self.scalar_of(elem)?;
                let stride = vec_stride.unwrap_or(Self::scalar_bytes(s));
                for c in 0..n {
                    out.push((s, base.wrapping_add(c.wrapping_mul(stride))));
                }
            }
            Type::Matrix { col, n } => {
                let (cs, comp) = self.matrix_strides(col, mat)?;
                for c in 0..n {
                    self.push_byte_leaves(
                        col,
                        None,
                        Some(comp),
                        base.wrapping_add(c.wrapping_mul(cs)),
                        out,
                        depth + 1,
                    )?;
                }
            }
            Type::Array { elem, len } => {
                let stride = self.array_stride(id)?;
                for e in 0..len {
                    self.push_byte_leaves(
                        elem,
                        mat,
                        None,
                        base.wrapping_add(e.wrapping_mul(stride)),
                        out,
                        depth + 1,
                    )?;
                }
            }
            Type::Struct { members } => {
                for (k, m) in members.iter().enumerate() {
                    let off = self.member_offset(id, k as u32)?;
                    let ml = self.member_mat(id, k as u32);
                    self.push_byte_leaves(*m, ml, None, base.wrapping_add(off), out, depth + 1)?;
                }
            }
            Type::Bool | Type::Int { .. } | Type::Float { .. } => {
                out.push((self.scalar_of(id)?, base))
            }
            other => {
                return Err(Error::Spirv(format!(
                    "type %{id} ({other:?}) cannot be stored in a buffer{}",
                    self.at()
                )))
            }
        }
        Ok(())
    }

    /// (column stride, component stride) in bytes of a matrix with column type `col`.
    pub(crate) fn matrix_strides(&self, col: u32, mat: Option<MatLayout>) -> Result<(u32, u32)> {
        let (elem, rows) = match self.ty(col)? {
            Type::Vector { elem, n } => (*elem, *n),
            _ => return Err(Error::Spirv(format!("%{col} is not a vector{}", self.at()))),
        };
        let sb = Self::scalar_bytes(self.scalar_of(elem)?);
        Ok(match mat {
            Some(MatLayout {
                row_major: true,
                stride,
            }) => (sb, stride),
            Some(MatLayout { stride, .. }) => (stride, sb),
            None => {
                let vec = if rows == 3 { 4 * sb } else { rows * sb };
                (vec, sb)
            }
        })
    }

    /// Image type of an image or sampled-image type id, as the IR describes it.
    pub(crate) fn ir_image_type(&self, id: u32) -> Result<(ImgTy, ir::ImageType)> {
        let img = match self.ty(id)? {
            Type::Image(t) => *t,
            Type::SampledImage { image } => match self.ty(*image)? {
                Type::Image(t) => *t,
                _ => return Err(Error::Spirv(format!("%{id} is not an image{}", self.at()))),
            },
            _ => return Err(Error::Spirv(format!("%{id} is not an image{}", self.at()))),
        };
        let dim = match img.dim {
            0 => ir::ImageDim::D1,
            1 => ir::ImageDim::D2,
            2 => ir::ImageDim::D3,
            3 => ir::ImageDim::Cube,
            5 => ir::ImageDim::Buffer,
            6 => ir::ImageDim::SubpassData,
            d => {
                return Err(Error::Unsupported(format!(
                    "image dimension {d} (Rect or other){}",
                    self.at()
                )))
            }
        };
        let sampled_ty = self.scalar_of(img.sampled)?;
        Ok((
            img,
            ir::ImageType {
                dim,
                arrayed: img.arrayed,
                multisampled: img.ms,
                depth: img.depth == 1,
                sampled_ty,
                signed: self.is_signed(img.sampled),
            },
        ))
    }
}
