//! Data types of AmberScript buffers (`DATA_TYPE int32`, `vec3<float>`, `mat2x3<float>`,
//! `float[]`, `R8G8B8A8_UNORM`, `STRUCT`s) and how Amber lays typed values into buffer bytes
//! under the GLSL std140 / std430 rules (GLSL 4.60 §7.6.2.2 "Standard Uniform Block Layout").
//!
//! The rules used here, for a scalar of `s` bytes:
//! * scalar: size `s`, alignment `s`;
//! * `vecN`: size `N·s`, alignment `2s` (N = 2) or `4s` (N = 3, 4) — so a vec3 is 12 bytes
//!   aligned to 16, and a following scalar may sit in its last 4 bytes inside a struct;
//! * `matCxR` (C columns of R rows): an array of C column vectors; the column stride is the
//!   alignment of `vecR`, rounded up to 16 under std140;
//! * arrays (`float[]`, which is how Amber spells "each element is an array member"): element
//!   stride is the element size rounded up to its alignment, and under std140 the alignment is
//!   first rounded up to 16;
//! * structs: members placed in order at their alignment (or at an explicit `OFFSET`); the
//!   struct's alignment is its largest member alignment (rounded up to 16 under std140) and its
//!   size is rounded up to that alignment;
//! * buffer elements that are not arrays are placed one after another at a stride of their size
//!   rounded up to their alignment (a `vec3<float>` buffer has a 16-byte stride).
//!
//! For every type the CTS and Amber's own cases use, this is byte-for-byte what Amber's
//! `Format` segments produce (checked against google/amber `src/format.cc`). Amber deviates
//! from the GLSL rules in two corners that no script here uses, and we follow GLSL there:
//! std140 arrays and matrix columns of 8-, 16- or 64-bit scalars (Amber pads them to four
//! components, e.g. a 32-byte `double[]` stride where GLSL has 16), and a struct member smaller
//! than the struct's alignment followed by a vector (Amber pads the member to the struct's
//! alignment first).

use half::f16;

/// A literal number from a script, integer or floating point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Number {
    Int(i128),
    Float(f64),
}

impl Number {
    /// The value as `f64`.
    pub fn as_f64(self) -> f64 {
        match self {
            Number::Int(i) => i as f64,
            Number::Float(f) => f,
        }
    }
    /// The value as an integer (floats truncate toward zero).
    pub fn as_i128(self) -> i128 {
        match self {
            Number::Int(i) => i,
            Number::Float(f) => f as i128,
        }
    }
}

/// Buffer layout rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Layout {
    Std140,
    #[default]
    Std430,
}

/// Scalar component kinds of `DATA_TYPE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar {
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    F16,
    F32,
    F64,
}

impl Scalar {
    /// Parse `int8` … `uint64`, `float16`, `float`, `double`.
    pub fn from_name(s: &str) -> Option<Scalar> {
        Some(match s {
            "int8" => Scalar::I8,
            "int16" => Scalar::I16,
            "int32" => Scalar::I32,
            "int64" => Scalar::I64,
            "uint8" => Scalar::U8,
            "uint16" => Scalar::U16,
            "uint32" => Scalar::U32,
            "uint64" => Scalar::U64,
            "float16" => Scalar::F16,
            "float" => Scalar::F32,
            "double" => Scalar::F64,
            _ => return None,
        })
    }
    /// Width in bytes.
    pub fn bytes(self) -> u32 {
        match self {
            Scalar::I8 | Scalar::U8 => 1,
            Scalar::I16 | Scalar::U16 | Scalar::F16 => 2,
            Scalar::I32 | Scalar::U32 | Scalar::F32 => 4,
            Scalar::I64 | Scalar::U64 | Scalar::F64 => 8,
        }
    }
    /// The equivalent numeric mode of a format component.
    pub fn mode(self) -> NumMode {
        match self {
            Scalar::I8 | Scalar::I16 | Scalar::I32 | Scalar::I64 => NumMode::Sint,
            Scalar::U8 | Scalar::U16 | Scalar::U32 | Scalar::U64 => NumMode::Uint,
            Scalar::F16 | Scalar::F32 | Scalar::F64 => NumMode::Sfloat,
        }
    }
}

/// A `DATA_TYPE` made of numbers: scalar, `vecN<T>`, `matCxR<T>`, optionally `[]` (array).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataType {
    pub scalar: Scalar,
    /// Components of a vector / rows of a matrix column (1 for a scalar).
    pub rows: u32,
    /// Matrix columns (1 for scalars and vectors).
    pub cols: u32,
    /// Written with a trailing `[]`: laid out as an array element.
    pub is_array: bool,
}

impl DataType {
    pub fn scalar(scalar: Scalar) -> Self {
        DataType {
            scalar,
            rows: 1,
            cols: 1,
            is_array: false,
        }
    }

    /// Parse `int32`, `vec3<float>`, `mat2x3<float>`, `float[]`.
    pub fn parse(s: &str) -> Option<DataType> {
        let (base, is_array) = match s.strip_suffix("[]") {
            Some(b) => (b, true),
            None => (s, false),
        };
        let mut t = if let Some(rest) = base.strip_prefix("vec") {
            let (n, inner) = rest.split_once('<')?;
            let inner = inner.strip_suffix('>')?;
            let rows: u32 = n.parse().ok().filter(|n| (2..=4).contains(n))?;
            DataType {
                rows,
                ..DataType::scalar(Scalar::from_name(inner)?)
            }
        } else if let Some(rest) = base.strip_prefix("mat") {
            let (dims, inner) = rest.split_once('<')?;
            let inner = inner.strip_suffix('>')?;
            let (c, r) = dims.split_once('x')?;
            let cols: u32 = c.parse().ok().filter(|n| (2..=4).contains(n))?;
            let rows: u32 = r.parse().ok().filter(|n| (2..=4).contains(n))?;
            DataType {
                rows,
                cols,
                ..DataType::scalar(Scalar::from_name(inner)?)
            }
        } else {
            DataType::scalar(Scalar::from_name(base)?)
        };
        t.is_array = is_array;
        Some(t)
    }

    /// Number of values one element takes from a data list.
    pub fn components(&self) -> u32 {
        self.rows * self.cols
    }

    /// (alignment, size) of one value of this type, ignoring `is_array`.
    pub fn align_size(&self, layout: Layout) -> (u32, u32) {
        let s = self.scalar.bytes();
        let vec_align = |rows: u32| {
            if rows == 1 {
                s
            } else if rows == 2 {
                2 * s
            } else {
                4 * s
            }
        };
        if self.cols == 1 {
            (vec_align(self.rows), self.rows * s)
        } else {
            let cs = self.column_stride(layout);
            (cs, cs * self.cols)
        }
    }

    /// Stride between matrix columns.
    pub fn column_stride(&self, layout: Layout) -> u32 {
        let s = self.scalar.bytes();
        let a = if self.rows == 2 { 2 * s } else { 4 * s };
        match layout {
            Layout::Std140 => round_up(a, 16),
            Layout::Std430 => a,
        }
    }

    /// Stride between consecutive elements of a buffer of this type.
    pub fn element_stride(&self, layout: Layout) -> u32 {
        let (a, sz) = self.align_size(layout);
        if self.is_array {
            array_stride(a, sz, layout)
        } else {
            round_up(sz, a)
        }
    }

    /// Visit one element's values in data-list order (column-major for matrices, columns
    /// `column_stride` bytes apart): each value's byte offset from `base` and its scalar.
    fn visit(&self, base: u32, column_stride: u32, f: &mut dyn FnMut(u32, Scalar)) {
        let s = self.scalar.bytes();
        for c in 0..self.cols {
            for r in 0..self.rows {
                f(base + c * column_stride + r * s, self.scalar);
            }
        }
    }

    /// The column stride of one element in `layout` (0 for scalars and vectors).
    fn own_column_stride(&self, layout: Layout) -> u32 {
        if self.cols > 1 {
            self.column_stride(layout)
        } else {
            0
        }
    }
}

/// Where one value of an element lies: its byte offset in the element, and how it is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    pub offset: u32,
    pub bytes: u32,
    pub mode: NumMode,
}

/// Write `vals` into the scalar slots `visit` walks, a missing value as 0.
fn write_slots(
    vals: &[Number],
    out: &mut [u8],
    base: usize,
    visit: impl FnOnce(&mut dyn FnMut(u32, Scalar)),
) {
    let mut i = 0usize;
    visit(&mut |at, scalar| {
        let v = vals.get(i).copied().unwrap_or(Number::Int(0));
        let s = scalar.bytes();
        put_le(
            out,
            base + at as usize,
            encode(v, scalar.mode(), s * 8),
            s as usize,
        );
        i += 1;
    });
}

/// Round `v` up to a multiple of `a` (`a` ≥ 1).
pub fn round_up(v: u32, a: u32) -> u32 {
    let a = a.max(1);
    v.div_ceil(a).saturating_mul(a)
}

fn array_stride(align: u32, size: u32, layout: Layout) -> u32 {
    let a = match layout {
        Layout::Std140 => round_up(align, 16),
        Layout::Std430 => align,
    };
    round_up(size, a)
}

fn put_le(out: &mut [u8], at: usize, bits: u64, n: usize) {
    for k in 0..n {
        if let Some(b) = out.get_mut(at + k) {
            *b = (bits >> (8 * k)) as u8;
        }
    }
}

/// Numeric interpretation of a format component.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumMode {
    Unorm,
    Snorm,
    Uscaled,
    Sscaled,
    Uint,
    Sint,
    Ufloat,
    Sfloat,
    Srgb,
}

/// One component of a `FORMAT` (`R8`, `G16`, `D24`, `X8` …).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Component {
    /// `R`, `G`, `B`, `A`, `D`, `S`, `X` (padding) or `E` (shared exponent).
    pub name: char,
    pub bits: u32,
    pub mode: NumMode,
}

/// A Vulkan format name broken into its components (`R8G8B8A8_UNORM`, `D24_UNORM_S8_UINT`,
/// `A2B10G10R10_UNORM_PACK32` …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Format {
    pub name: String,
    /// Components in the order the name lists them.
    pub components: Vec<Component>,
    /// `Some(bits)` for `_PACKnn` formats: all components share one little-endian word, the
    /// first-listed component in the most significant bits.
    pub pack_bits: Option<u32>,
}

impl Format {
    /// Parse a Vulkan format name (without the `VK_FORMAT_` prefix).
    pub fn parse(name: &str) -> Option<Format> {
        let mut components: Vec<Component> = Vec::new();
        let mut pending = 0usize; // components still waiting for their mode
        let mut pack_bits = None;
        for seg in name.split('_') {
            if let Some(m) = parse_mode(seg) {
                if pending == 0 {
                    return None;
                }
                let n = components.len();
                for c in &mut components[n - pending..] {
                    c.mode = m;
                }
                pending = 0;
            } else if let Some(p) = seg.strip_prefix("PACK") {
                pack_bits = Some(p.parse().ok().filter(|b| matches!(b, 8 | 16 | 32))?);
            } else {
                let comps = parse_components(seg)?;
                pending += comps.len();
                components.extend(comps);
            }
        }
        if components.is_empty() || pending != 0 {
            return None;
        }
        Some(Format {
            name: name.to_string(),
            components,
            pack_bits,
        })
    }

    /// Bytes per texel / element.
    pub fn texel_bytes(&self) -> u32 {
        match self.pack_bits {
            Some(b) => b / 8,
            None => self
                .components
                .iter()
                .map(|c| c.bits)
                .sum::<u32>()
                .div_ceil(8),
        }
    }

    /// Values one element takes from a data list (padding `X` components take none). A
    /// packed format takes one: the whole packed word, as Amber reads it (its `Format` gives
    /// a packed type a single unsigned segment of the pack size).
    pub fn value_components(&self) -> u32 {
        if self.pack_bits.is_some() {
            // Amber takes a packed element as one value, the whole word (the CTS texel-buffer
            // scripts list `0x40000001 # Unpacks to R = 1, G = 0, B = 0, A = 1` per element)
            return 1;
        }
        self.components.iter().filter(|c| c.name != 'X').count() as u32
    }

    /// Write one element's values at `out[base..]`.
    fn write(&self, vals: &[Number], out: &mut [u8], base: usize) {
        let mut it = vals.iter().copied();
        match self.pack_bits {
            Some(pb) => {
                // one value per element: the packed word itself (see `value_components`)
                let v = it.next().unwrap_or(Number::Int(0));
                let word = encode(v, NumMode::Uint, pb) & mask(pb);
                put_le(out, base, word, (pb / 8) as usize);
            }
            None => {
                let mut bit = 0u32;
                for c in &self.components {
                    let v = if c.name == 'X' {
                        Number::Int(0)
                    } else {
                        it.next().unwrap_or(Number::Int(0))
                    };
                    let bits = encode(v, c.mode, c.bits) & mask(c.bits);
                    // Components are byte aligned in every non-packed format.
                    put_le(
                        out,
                        base + (bit / 8) as usize,
                        bits,
                        c.bits.div_ceil(8) as usize,
                    );
                    bit += c.bits;
                }
            }
        }
    }
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

fn parse_mode(s: &str) -> Option<NumMode> {
    Some(match s {
        "UNORM" => NumMode::Unorm,
        "SNORM" => NumMode::Snorm,
        "USCALED" => NumMode::Uscaled,
        "SSCALED" => NumMode::Sscaled,
        "UINT" => NumMode::Uint,
        "SINT" => NumMode::Sint,
        "UFLOAT" => NumMode::Ufloat,
        "SFLOAT" => NumMode::Sfloat,
        "SRGB" => NumMode::Srgb,
        _ => return None,
    })
}

fn parse_components(seg: &str) -> Option<Vec<Component>> {
    let b = seg.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let name = b[i] as char;
        if !"RGBADSXE".contains(name) {
            return None;
        }
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        let bits: u32 = seg[start..i].parse().ok()?;
        if bits == 0 || bits > 64 {
            return None;
        }
        out.push(Component {
            name,
            bits,
            mode: NumMode::Uint,
        });
    }
    Some(out)
}

/// A float literal as binary16 the way Amber writes it (`FloatToHexFloat16`): rounded to f32,
/// then the top 10 mantissa bits kept (rounding toward zero). Zero, values below the binary16
/// normal range and NaN keep their f32 meaning (signed zero, flushed to signed zero, NaN) and
/// values beyond it become infinity, where Amber's bit slicing wraps the exponent.
fn amber_f16(f: f64) -> u64 {
    let b = (f as f32).to_bits();
    let sign = (b >> 16) & 0x8000;
    let exp = ((b >> 23) & 0xff) as i32 - 127 + 15;
    let h = if f.is_nan() {
        0x7e00
    } else if exp >= 0x1f {
        0x7c00
    } else if exp <= 0 {
        0
    } else {
        ((exp as u32) << 10) | ((b & 0x7f_ffff) >> 13)
    };
    (sign | h) as u64
}

/// Encode a literal as the raw bits of a component. Integer literals for integer and
/// normalized modes are the raw stored integer (as Amber does: `255` in an `R8_UNORM` buffer is
/// 1.0); float literals in normalized modes are scaled (`0.5` → round(0.5·max)).
pub fn encode(v: Number, mode: NumMode, bits: u32) -> u64 {
    match mode {
        NumMode::Sfloat => {
            let f = v.as_f64();
            match bits {
                16 => amber_f16(f),
                32 => (f as f32).to_bits() as u64,
                64 => f.to_bits(),
                _ => 0,
            }
        }
        NumMode::Ufloat => match v {
            Number::Int(i) => i as u64,
            // 10- and 11-bit unsigned floats share binary16's 5-bit exponent and bias.
            Number::Float(f) => {
                let h = f16::from_f64(f.max(0.0)).to_bits() as u64 & 0x7fff;
                h >> (15 - bits.min(15))
            }
        },
        NumMode::Unorm | NumMode::Srgb => match v {
            Number::Int(i) => i as u64,
            Number::Float(f) => (f.clamp(0.0, 1.0) * mask(bits) as f64).round() as u64,
        },
        NumMode::Snorm => match v {
            Number::Int(i) => i as u64,
            Number::Float(f) => {
                let m = (mask(bits) >> 1) as f64;
                ((f.clamp(-1.0, 1.0) * m).round() as i64) as u64
            }
        },
        _ => v.as_i128() as u64,
    }
}

/// A member of a `STRUCT`.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    pub name: String,
    pub ty: MemberType,
    /// Explicit `OFFSET` in bytes.
    pub offset: Option<u32>,
    /// Explicit `ARRAY_STRIDE`.
    pub array_stride: Option<u32>,
    /// Explicit `MATRIX_STRIDE`.
    pub matrix_stride: Option<u32>,
}

/// Type of a struct member.
#[derive(Debug, Clone, PartialEq)]
pub enum MemberType {
    Data(DataType),
    Struct(Box<StructType>),
}

/// A `STRUCT name [STRIDE n] … END` definition with nested structs resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct StructType {
    pub name: String,
    /// Explicit `STRIDE` between buffer elements of this struct.
    pub stride: Option<u32>,
    pub members: Vec<Member>,
}

impl StructType {
    /// Values one element consumes from a data list.
    pub fn components(&self) -> u32 {
        self.members
            .iter()
            .map(|m| match &m.ty {
                MemberType::Data(d) => d.components(),
                MemberType::Struct(s) => s.components(),
            })
            .sum()
    }

    /// (alignment, size, member offsets).
    pub fn layout(&self, layout: Layout) -> (u32, u32, Vec<u32>) {
        let mut off = 0u32;
        let mut align = 1u32;
        let mut offsets = Vec::with_capacity(self.members.len());
        for m in &self.members {
            let (a, sz) = member_align_size(m, layout);
            let at = m.offset.unwrap_or_else(|| round_up(off, a));
            offsets.push(at);
            off = at.saturating_add(sz);
            align = align.max(a);
        }
        if layout == Layout::Std140 {
            align = round_up(align, 16);
        }
        (align, round_up(off, align), offsets)
    }

    /// Visit one element's values in data-list order, members at their offsets (a matrix
    /// member's columns at its `MATRIX_STRIDE`): each value's byte offset from `base` and its
    /// scalar.
    fn visit(&self, layout: Layout, base: u32, f: &mut dyn FnMut(u32, Scalar)) {
        let (_, _, offsets) = self.layout(layout);
        for (m, off) in self.members.iter().zip(offsets) {
            let at = base.saturating_add(off);
            match &m.ty {
                MemberType::Data(d) => {
                    let cs = match m.matrix_stride {
                        Some(ms) if d.cols > 1 => ms,
                        _ => d.own_column_stride(layout),
                    };
                    d.visit(at, cs, f)
                }
                MemberType::Struct(s) => s.visit(layout, at, f),
            }
        }
    }
}

fn member_align_size(m: &Member, layout: Layout) -> (u32, u32) {
    match &m.ty {
        MemberType::Data(d) => {
            let (a, sz) = match m.matrix_stride {
                Some(ms) if d.cols > 1 => (d.align_size(layout).0, ms.saturating_mul(d.cols)),
                _ => d.align_size(layout),
            };
            if d.is_array {
                let st = m
                    .array_stride
                    .unwrap_or_else(|| array_stride(a, sz, layout));
                let a = if layout == Layout::Std140 {
                    round_up(a, 16)
                } else {
                    a
                };
                (a, st)
            } else {
                (a, sz)
            }
        }
        MemberType::Struct(s) => {
            let (a, sz, _) = s.layout(layout);
            (a, sz)
        }
    }
}

/// The element type of a buffer or image.
#[derive(Debug, Clone, PartialEq)]
pub enum ElemType {
    Data(DataType),
    Format(Format),
    Struct(StructType),
}

impl ElemType {
    /// Values one element consumes from a data list.
    pub fn components(&self) -> u32 {
        match self {
            ElemType::Data(d) => d.components(),
            ElemType::Format(f) => f.value_components(),
            ElemType::Struct(s) => s.components(),
        }
    }

    /// Bytes between consecutive elements.
    pub fn stride(&self, layout: Layout) -> u32 {
        match self {
            ElemType::Data(d) => d.element_stride(layout),
            ElemType::Format(f) => f.texel_bytes(),
            ElemType::Struct(s) => s.stride.unwrap_or_else(|| s.layout(layout).1),
        }
    }

    /// The numeric mode of each value one element takes from a data list, in order (a
    /// packed format's one value is its whole word, unsigned).
    pub fn value_modes(&self) -> Vec<NumMode> {
        fn data(d: &DataType, out: &mut Vec<NumMode>) {
            out.extend(std::iter::repeat_n(
                d.scalar.mode(),
                d.components() as usize,
            ));
        }
        fn strukt(s: &StructType, out: &mut Vec<NumMode>) {
            for m in &s.members {
                match &m.ty {
                    MemberType::Data(d) => data(d, out),
                    MemberType::Struct(s) => strukt(s, out),
                }
            }
        }
        let mut out = Vec::new();
        match self {
            ElemType::Data(d) => data(d, &mut out),
            ElemType::Format(f) if f.pack_bits.is_some() => out.push(NumMode::Uint),
            ElemType::Format(f) => out.extend(
                f.components
                    .iter()
                    .filter(|c| c.name != 'X')
                    .map(|c| c.mode),
            ),
            ElemType::Struct(s) => strukt(s, &mut out),
        }
        out
    }

    /// The index of the first value of `vals` (a data list of this type) that is a NaN
    /// landing in a component that is not `SFLOAT`. Amber takes `nan` only for float
    /// components (the `UFLOAT` ones are all inside packed formats, whose one value is the
    /// unsigned word); quadstep also converts finite decimals for integer and normalized
    /// components, but a NaN has no value there.
    pub fn misplaced_nan(&self, vals: &[Number]) -> Option<usize> {
        let modes = self.value_modes();
        let float = |i: usize| modes.is_empty() || modes[i % modes.len()] == NumMode::Sfloat;
        vals.iter()
            .enumerate()
            .position(|(i, v)| matches!(v, Number::Float(f) if f.is_nan()) && !float(i))
    }

    /// Lay a flat list of values into bytes: `ceil(values / components)` elements, each at
    /// `stride` bytes; missing trailing values and padding are zero.
    pub fn layout_values(&self, layout: Layout, vals: &[Number]) -> Vec<u8> {
        let comps = self.components().max(1) as usize;
        let n = vals.len().div_ceil(comps);
        let stride = self.stride(layout) as usize;
        let mut out = vec![0u8; n * stride];
        for (e, chunk) in vals.chunks(comps).enumerate() {
            let base = e * stride;
            match self {
                ElemType::Data(d) => write_slots(chunk, &mut out, base, |f| {
                    d.visit(0, d.own_column_stride(layout), f)
                }),
                ElemType::Format(f) => f.write(chunk, &mut out, base),
                ElemType::Struct(s) => {
                    write_slots(chunk, &mut out, base, |f| s.visit(layout, 0, f))
                }
            }
        }
        out
    }

    /// Where each value of one element lies, in data-list order, as Amber's verifier walks a
    /// buffer's format segment by segment skipping padding: `None` for packed formats and
    /// formats with components that are not whole bytes (Amber has no datum type for them).
    pub fn slots(&self, layout: Layout) -> Option<Vec<Slot>> {
        let mut out = Vec::new();
        let mut push = |offset: u32, s: Scalar| {
            out.push(Slot {
                offset,
                bytes: s.bytes(),
                mode: s.mode(),
            })
        };
        match self {
            ElemType::Data(d) => d.visit(0, d.own_column_stride(layout), &mut push),
            ElemType::Struct(s) => s.visit(layout, 0, &mut push),
            ElemType::Format(f) => {
                if f.pack_bits.is_some() || f.components.iter().any(|c| c.bits % 8 != 0) {
                    return None;
                }
                let mut bit = 0;
                for c in &f.components {
                    if c.name != 'X' {
                        out.push(Slot {
                            offset: bit / 8,
                            bytes: c.bits / 8,
                            mode: c.mode,
                        });
                    }
                    bit += c.bits;
                }
            }
        }
        Some(out)
    }
}
