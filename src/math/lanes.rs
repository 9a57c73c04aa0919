//! The lane types the math is written over, and the few operations it needs of them.
//!
//! [`Float`] is what every lane type has, at either width (f32 or f64 elements): IEEE add, sub,
//! mul, div and sqrt (each correctly rounded, on every form), bitwise operations on the
//! encodings, ordered compares giving a [`Mask`], select, and rounding to an integral value.
//! [`Lanes`] adds what the f32 functions need: 32-bit integer lanes over the same encodings
//! ([`Ints`]) and f64 lanes holding the same values ([`Lanes::W`]).
//!
//! The scalar types `f32`/`f64` are lane types of one lane (what the texture unit and the
//! interpreter's scalar paths call); `x86` has the SSE2 and AVX2 vectors. Every operation
//! means the same on all of them, bit for bit — min/max are x86's `minps`/`maxps` (`a < b ?
//! a : b`, so the second operand when either is NaN), compares are ordered (false on NaN)
//! but `ne` — and only [`Float::round`] has two implementations (software, or `roundps` where
//! the vector has SSE4.1), held to each other by the tests. So a function written once over
//! these traits gives the same bits in every lane form.
//!
//! Constants come from a value already in hand (`x.splat(0.5)`): a vector type exists only on
//! a CPU that runs it (see [`Float::load`]), so anything made from one may use its
//! instructions.

/// An element type: f32 or f64.
pub(crate) trait Scalar: Copy + PartialOrd + Default + std::fmt::Debug + 'static {
    /// The encoding as an unsigned integer.
    type Bits: Copy + Default;
    /// The sign bit.
    const SIGN: Self::Bits;
    /// The quiet bit of a NaN (the top fraction bit).
    const QUIET: Self::Bits;
    /// 2^(fraction bits): every value of this magnitude or more is an integer.
    const INTEGRAL: Self;
    /// A small constant of either width (exact in both).
    fn of(v: f32) -> Self;
    fn to_bits(self) -> Self::Bits;
    fn from_bits(b: Self::Bits) -> Self;
}

impl Scalar for f32 {
    type Bits = u32;
    const SIGN: u32 = 0x8000_0000;
    const QUIET: u32 = 0x0040_0000;
    const INTEGRAL: f32 = 8_388_608.0;
    #[inline(always)]
    fn of(v: f32) -> f32 {
        v
    }
    #[inline(always)]
    fn to_bits(self) -> u32 {
        f32::to_bits(self)
    }
    #[inline(always)]
    fn from_bits(b: u32) -> f32 {
        f32::from_bits(b)
    }
}

impl Scalar for f64 {
    type Bits = u64;
    const SIGN: u64 = 0x8000_0000_0000_0000;
    const QUIET: u64 = 0x0008_0000_0000_0000;
    const INTEGRAL: f64 = 4_503_599_627_370_496.0;
    #[inline(always)]
    fn of(v: f32) -> f64 {
        v as f64
    }
    #[inline(always)]
    fn to_bits(self) -> u64 {
        f64::to_bits(self)
    }
    #[inline(always)]
    fn from_bits(b: u64) -> f64 {
        f64::from_bits(b)
    }
}

/// A lane mask from a compare: every lane all ones (true) or all zeros (false).
pub(crate) trait Mask: Copy {
    fn and(self, o: Self) -> Self;
    fn or(self, o: Self) -> Self;
    /// `self & !o`.
    fn and_not(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
    /// Whether any lane is true.
    fn any(self) -> bool;
    /// Whether every lane is true.
    #[inline(always)]
    fn all(self) -> bool {
        self.bits() == u32::MAX >> (32 - Self::LANES)
    }
    /// The lanes as bits: bit `l` set when lane `l` is true.
    fn bits(self) -> u32;
    /// The lane count.
    const LANES: u32;
}

impl Mask for bool {
    #[inline(always)]
    fn and(self, o: bool) -> bool {
        self & o
    }
    #[inline(always)]
    fn or(self, o: bool) -> bool {
        self | o
    }
    #[inline(always)]
    fn and_not(self, o: bool) -> bool {
        self & !o
    }
    #[inline(always)]
    fn xor(self, o: bool) -> bool {
        self ^ o
    }
    #[inline(always)]
    fn any(self) -> bool {
        self
    }
    #[inline(always)]
    fn bits(self) -> u32 {
        self as u32
    }
    const LANES: u32 = 1;
}

/// Rounding modes of [`Float::round`], the values `roundps` takes (with exceptions
/// suppressed).
pub(crate) const NEAREST: i32 = 8;
pub(crate) const FLOOR: i32 = 9;
pub(crate) const CEIL: i32 = 10;
pub(crate) const TRUNC: i32 = 11;

/// Lanes of floats: what every lane type has.
pub(crate) trait Float: Copy {
    type S: Scalar;
    type M: Mask;
    /// Lanes in one value.
    const N: usize;

    /// The first [`Self::N`] values of `s`.
    ///
    /// # Safety
    /// The CPU runs this type's instructions (always true of the scalars and the SSE2 types on
    /// x86-64; the AVX2 types need AVX2). Every other way to make a value of this type starts
    /// from one, so this is the one promise the vector types rest on.
    unsafe fn load(s: &[Self::S]) -> Self;
    /// Write the lanes to the first [`Self::N`] elements of `s`.
    fn store(self, s: &mut [Self::S]);
    /// [`Float::load`] from the encodings.
    ///
    /// # Safety
    /// As [`Float::load`].
    unsafe fn load_bits(s: &[<Self::S as Scalar>::Bits]) -> Self;
    /// [`Float::store`] as the encodings.
    fn store_bits(self, s: &mut [<Self::S as Scalar>::Bits]);
    /// Every lane `v`.
    fn splat(self, v: Self::S) -> Self;
    /// Every lane the encoding `b`.
    fn splat_bits(self, b: <Self::S as Scalar>::Bits) -> Self;

    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn div(self, o: Self) -> Self;
    fn sqrt(self) -> Self;
    /// Bitwise on the encodings.
    fn and(self, o: Self) -> Self;
    fn or(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
    /// `self & !o` on the encodings.
    fn and_not(self, o: Self) -> Self;
    /// Ordered compares: false where either lane is NaN.
    fn lt(self, o: Self) -> Self::M;
    fn le(self, o: Self) -> Self::M;
    fn eq(self, o: Self) -> Self::M;
    /// Unordered not-equal: true where either lane is NaN.
    fn ne(self, o: Self) -> Self::M;
    /// `m ? a : b` per lane.
    fn select(m: Self::M, a: Self, b: Self) -> Self;
    /// `self < o ? self : o` (x86 `minps`: `o` when either is NaN).
    fn min(self, o: Self) -> Self;
    /// `self > o ? self : o` (x86 `maxps`: `o` when either is NaN).
    fn max(self, o: Self) -> Self;

    /// Round to an integral value in `MODE` ([`NEAREST`] ties to even, [`FLOOR`], [`CEIL`],
    /// [`TRUNC`]) exactly as `roundps`/`roundpd` do: ±0 and values at or beyond
    /// [`Scalar::INTEGRAL`] unchanged, a signalling NaN made quiet with its payload kept.
    /// The vector types that have SSE4.1 use the instruction; the others this software form.
    #[inline(always)]
    fn round<const MODE: i32>(self) -> Self {
        super::round::soft::<Self, MODE>(self)
    }

    /// `|self|`.
    #[inline(always)]
    fn abs(self) -> Self {
        self.and_not(self.splat_bits(Self::S::SIGN))
    }
    /// `-self` (the sign bit flipped).
    #[inline(always)]
    fn neg(self) -> Self {
        self.xor(self.splat_bits(Self::S::SIGN))
    }
    /// The sign bit of each lane alone.
    #[inline(always)]
    fn sign(self) -> Self {
        self.and(self.splat_bits(Self::S::SIGN))
    }
    /// `|self|` with the sign of `s`.
    #[inline(always)]
    fn copysign(self, s: Self) -> Self {
        self.abs().or(s.sign())
    }
    /// Where a lane is NaN.
    #[inline(always)]
    fn is_nan(self) -> Self::M {
        self.ne(self)
    }
}

/// f32 lanes: with 32-bit integer lanes over the same encodings, and f64 lanes of the same
/// values.
pub(crate) trait Lanes: Float<S = f32> {
    type I: Ints<F = Self>;
    /// The same number of f64 lanes.
    type W: Float<S = f64>;
    /// The encodings as integers.
    fn bits(self) -> Self::I;
    /// Each lane converted to f64 (exact).
    fn widen(self) -> Self::W;
    /// Each lane of `w` rounded to f32 (once, to nearest even, into subnormals and to ±∞).
    fn narrow(w: Self::W) -> Self;

    /// `f` on each lane: for the rare lanes a vector form does not cover.
    #[inline(always)]
    fn map(self, f: impl Fn(f32) -> f32) -> Self {
        let mut v = [0f32; 8];
        self.store(&mut v);
        for e in &mut v[..Self::N] {
            *e = f(*e);
        }
        // SAFETY: `self` is of this type, so the CPU runs its instructions (`Float::load`).
        unsafe { Self::load(&v) }
    }
}

/// 32-bit integer lanes (two's complement), the encodings of a [`Lanes`] type's values.
pub(crate) trait Ints: Copy {
    type F: Lanes<I = Self>;
    fn splat(self, v: i32) -> Self;
    /// The lanes as the float encodings they are.
    fn float(self) -> Self::F;
    /// Each lane converted to f32 (exact below 2^24 in magnitude).
    fn to_f32(self) -> Self::F;
    /// Wrapping.
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn and(self, o: Self) -> Self;
    fn shl<const B: i32>(self) -> Self;
    /// Arithmetic (sign-filling) shift.
    fn shr<const B: i32>(self) -> Self;
    fn eq(self, o: Self) -> <Self::F as Float>::M;
    /// Signed `self > o`.
    fn gt(self, o: Self) -> <Self::F as Float>::M;
    /// `m ? a : b` per lane.
    #[inline(always)]
    fn select(m: <Self::F as Float>::M, a: Self, b: Self) -> Self {
        Self::F::select(m, a.float(), b.float()).bits()
    }
}

macro_rules! scalar_float {
    ($t:ty) => {
        impl Float for $t {
            type S = $t;
            type M = bool;
            const N: usize = 1;
            #[inline(always)]
            unsafe fn load(s: &[$t]) -> $t {
                s[0]
            }
            #[inline(always)]
            fn store(self, s: &mut [$t]) {
                s[0] = self;
            }
            #[inline(always)]
            unsafe fn load_bits(s: &[<$t as Scalar>::Bits]) -> $t {
                <$t>::from_bits(s[0])
            }
            #[inline(always)]
            fn store_bits(self, s: &mut [<$t as Scalar>::Bits]) {
                s[0] = self.to_bits();
            }
            #[inline(always)]
            fn splat(self, v: $t) -> $t {
                v
            }
            #[inline(always)]
            fn splat_bits(self, b: <$t as Scalar>::Bits) -> $t {
                <$t>::from_bits(b)
            }
            #[inline(always)]
            fn add(self, o: $t) -> $t {
                self + o
            }
            #[inline(always)]
            fn sub(self, o: $t) -> $t {
                self - o
            }
            #[inline(always)]
            fn mul(self, o: $t) -> $t {
                self * o
            }
            #[inline(always)]
            fn div(self, o: $t) -> $t {
                self / o
            }
            #[inline(always)]
            fn sqrt(self) -> $t {
                <$t>::sqrt(self)
            }
            #[inline(always)]
            fn and(self, o: $t) -> $t {
                <$t>::from_bits(self.to_bits() & o.to_bits())
            }
            #[inline(always)]
            fn or(self, o: $t) -> $t {
                <$t>::from_bits(self.to_bits() | o.to_bits())
            }
            #[inline(always)]
            fn xor(self, o: $t) -> $t {
                <$t>::from_bits(self.to_bits() ^ o.to_bits())
            }
            #[inline(always)]
            fn and_not(self, o: $t) -> $t {
                <$t>::from_bits(self.to_bits() & !o.to_bits())
            }
            #[inline(always)]
            fn lt(self, o: $t) -> bool {
                self < o
            }
            #[inline(always)]
            fn le(self, o: $t) -> bool {
                self <= o
            }
            #[inline(always)]
            fn eq(self, o: $t) -> bool {
                self == o
            }
            #[inline(always)]
            fn ne(self, o: $t) -> bool {
                self != o
            }
            #[inline(always)]
            fn select(m: bool, a: $t, b: $t) -> $t {
                if m {
                    a
                } else {
                    b
                }
            }
            #[inline(always)]
            fn min(self, o: $t) -> $t {
                if self < o {
                    self
                } else {
                    o
                }
            }
            #[inline(always)]
            fn max(self, o: $t) -> $t {
                if self > o {
                    self
                } else {
                    o
                }
            }
        }
    };
}
scalar_float!(f32);
scalar_float!(f64);

impl Lanes for f32 {
    type I = i32;
    type W = f64;
    #[inline(always)]
    fn bits(self) -> i32 {
        self.to_bits() as i32
    }
    #[inline(always)]
    fn widen(self) -> f64 {
        self as f64
    }
    #[inline(always)]
    fn narrow(w: f64) -> f32 {
        w as f32
    }
}

impl Ints for i32 {
    type F = f32;
    #[inline(always)]
    fn splat(self, v: i32) -> i32 {
        v
    }
    #[inline(always)]
    fn float(self) -> f32 {
        f32::from_bits(self as u32)
    }
    #[inline(always)]
    fn to_f32(self) -> f32 {
        self as f32
    }
    #[inline(always)]
    fn add(self, o: i32) -> i32 {
        self.wrapping_add(o)
    }
    #[inline(always)]
    fn sub(self, o: i32) -> i32 {
        self.wrapping_sub(o)
    }
    #[inline(always)]
    fn and(self, o: i32) -> i32 {
        self & o
    }
    #[inline(always)]
    fn shl<const B: i32>(self) -> i32 {
        self << B
    }
    #[inline(always)]
    fn shr<const B: i32>(self) -> i32 {
        self >> B
    }
    #[inline(always)]
    fn eq(self, o: i32) -> bool {
        self == o
    }
    #[inline(always)]
    fn gt(self, o: i32) -> bool {
        self > o
    }
}

/// Two vectors of f64 lanes used as one: the f64 companion of an f32 vector with twice as many
/// lanes (four f32 lanes are two `__m128d`).
#[derive(Clone, Copy)]
pub(crate) struct Pair<D>(pub(crate) D, pub(crate) D);

impl<M: Mask> Mask for Pair<M> {
    #[inline(always)]
    fn and(self, o: Self) -> Self {
        Pair(self.0.and(o.0), self.1.and(o.1))
    }
    #[inline(always)]
    fn or(self, o: Self) -> Self {
        Pair(self.0.or(o.0), self.1.or(o.1))
    }
    #[inline(always)]
    fn and_not(self, o: Self) -> Self {
        Pair(self.0.and_not(o.0), self.1.and_not(o.1))
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        Pair(self.0.xor(o.0), self.1.xor(o.1))
    }
    #[inline(always)]
    fn any(self) -> bool {
        self.0.any() | self.1.any()
    }
    #[inline(always)]
    fn bits(self) -> u32 {
        self.0.bits() | self.1.bits() << M::LANES
    }
    const LANES: u32 = 2 * M::LANES;
}

macro_rules! pair_ops {
    ($($op:ident),*) => {
        $(
            #[inline(always)]
            fn $op(self, o: Self) -> Self {
                Pair(self.0.$op(o.0), self.1.$op(o.1))
            }
        )*
    };
}
macro_rules! pair_cmps {
    ($($op:ident),*) => {
        $(
            #[inline(always)]
            fn $op(self, o: Self) -> Self::M {
                Pair(self.0.$op(o.0), self.1.$op(o.1))
            }
        )*
    };
}

impl<D: Float> Float for Pair<D> {
    type S = D::S;
    type M = Pair<D::M>;
    const N: usize = 2 * D::N;
    #[inline(always)]
    unsafe fn load(s: &[D::S]) -> Self {
        // SAFETY: the caller's promise, for both halves.
        unsafe { Pair(D::load(s), D::load(&s[D::N..])) }
    }
    #[inline(always)]
    fn store(self, s: &mut [D::S]) {
        self.0.store(s);
        self.1.store(&mut s[D::N..]);
    }
    #[inline(always)]
    unsafe fn load_bits(s: &[<D::S as Scalar>::Bits]) -> Self {
        // SAFETY: the caller's promise, for both halves.
        unsafe { Pair(D::load_bits(s), D::load_bits(&s[D::N..])) }
    }
    #[inline(always)]
    fn store_bits(self, s: &mut [<D::S as Scalar>::Bits]) {
        self.0.store_bits(s);
        self.1.store_bits(&mut s[D::N..]);
    }
    #[inline(always)]
    fn splat(self, v: D::S) -> Self {
        Pair(self.0.splat(v), self.1.splat(v))
    }
    #[inline(always)]
    fn splat_bits(self, b: <D::S as Scalar>::Bits) -> Self {
        Pair(self.0.splat_bits(b), self.1.splat_bits(b))
    }
    pair_ops!(add, sub, mul, div, and, or, xor, and_not, min, max);
    pair_cmps!(lt, le, eq, ne);
    #[inline(always)]
    fn sqrt(self) -> Self {
        Pair(self.0.sqrt(), self.1.sqrt())
    }
    #[inline(always)]
    fn select(m: Self::M, a: Self, b: Self) -> Self {
        Pair(D::select(m.0, a.0, b.0), D::select(m.1, a.1, b.1))
    }
    #[inline(always)]
    fn round<const MODE: i32>(self) -> Self {
        Pair(self.0.round::<MODE>(), self.1.round::<MODE>())
    }
}
