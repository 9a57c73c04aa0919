//! Lane vectors: what every stage of the sampling kernel is written against, so that each
//! rule (floor, wrap, lerp) exists once and the lane count is a type parameter [`Lanes`]:
//! [`Arr<1>`] (the general path's one lane), [`Quad`] (a quad; SSE2, always on x86-64) or
//! [`Avx`] (eight lanes: two quads, a pixel's probes, or a quad's two levels).
//!
//! Shape: a `Lanes` value is a zero-sized token that every vector ([`F`], [`I`], [`M`])
//! carries. [`Avx::new`] makes the eight-lane token only on a CPU with AVX2, so its
//! intrinsics are sound; the kernel's AVX2 twins are entered with it, and its
//! `#[inline(always)]` operations compile inside them as single instructions (real vector
//! operations: element loops came out as 128-bit halves and shuffles). No FMA, and the same
//! IEEE operations in the same order in every form, so every lane count gives the same bits.
//!
//! Code that runs inside an AVX2 twin calls no closure more than once and `map`s no array:
//! either is left as an out-of-line call, not compiled for AVX2 (hence the arrays written
//! out element by element throughout the unit).

use std::fmt;
use std::ops::{Add, BitAnd, BitOr, BitXor, Div, Index, IndexMut, Mul, Not, Sub};
use wide::f32x4;

/// [`Lanes`] methods that are one expression, `name(operand: type, …) -> type = expression;`,
/// the expression inside `$wrap!` (the impl's `unsafe` block for intrinsics).
macro_rules! ops {
    ($wrap:ident; $($f:ident($($a:ident: $t:ty),*) -> $r:ty = $e:expr;)*) => {
        $(
            #[inline(always)]
            fn $f(self, $($a: $t),*) -> $r {
                $wrap!($e)
            }
        )*
    };
}

/// [`Lanes::units`] and [`Lanes::units_mut`] of a form of `$n` lanes (`A<T>` is `[T; $n]`).
macro_rules! units {
    ($n:expr) => {
        #[inline(always)]
        fn units<T: Copy>(r: &[T]) -> &[[T; $n]] {
            r.as_chunks::<$n>().0
        }
        #[inline(always)]
        fn units_mut<T: Copy>(r: &mut [T]) -> &mut [[T; $n]] {
            r.as_chunks_mut::<$n>().0
        }
    };
}

/// `$e` as it is (the array form's [`ops!`]).
macro_rules! plain {
    ($e:expr) => {
        $e
    };
}

/// A lane count and its vector operations; the methods take the token (`self`), the proof
/// that the CPU runs them.
pub(super) trait Lanes: Copy + 'static {
    /// The lane count.
    const W: usize;
    /// The eight-lane AVX2 form.
    const AVX2: bool = false;
    /// One value per lane.
    type A<T: Copy>: Copy + AsRef<[T]> + AsMut<[T]> + Index<usize, Output = T> + IndexMut<usize>;
    /// f32 lanes.
    type Fv: Copy;
    /// i32 lanes (conditions: 0 or −1 per lane).
    type Iv: Copy;

    /// `[f(0), …, f(W − 1)]`.
    fn each<T: Copy>(f: impl FnMut(usize) -> T) -> Self::A<T>;
    fn fload(self, a: Self::A<f32>) -> Self::Fv;
    fn fstore(self, v: Self::Fv) -> Self::A<f32>;
    fn iload(self, a: Self::A<i32>) -> Self::Iv;
    fn istore(self, v: Self::Iv) -> Self::A<i32>;
    /// The first `W` words of `r` (at least `W` long).
    fn irow(self, r: &[u32]) -> Self::Iv;
    /// `r` as whole units of `W` values (a shorter rest left out): no length test per unit.
    fn units<T: Copy>(r: &[T]) -> &[Self::A<T>];
    /// [`units`](Lanes::units), writable.
    fn units_mut<T: Copy>(r: &mut [T]) -> &mut [Self::A<T>];
    fn fsplat(self, x: f32) -> Self::Fv;
    fn isplat(self, x: i32) -> Self::Iv;
    fn fadd(self, a: Self::Fv, b: Self::Fv) -> Self::Fv;
    fn fsub(self, a: Self::Fv, b: Self::Fv) -> Self::Fv;
    fn fmul(self, a: Self::Fv, b: Self::Fv) -> Self::Fv;
    fn fdiv(self, a: Self::Fv, b: Self::Fv) -> Self::Fv;
    /// `a < b` (false with a NaN).
    fn flt(self, a: Self::Fv, b: Self::Fv) -> Self::Iv;
    /// `a <= b` (false with a NaN).
    fn fle(self, a: Self::Fv, b: Self::Fv) -> Self::Iv;
    /// `a == b` (false with a NaN).
    fn feq(self, a: Self::Fv, b: Self::Fv) -> Self::Iv;
    fn iadd(self, a: Self::Iv, b: Self::Iv) -> Self::Iv;
    fn isub(self, a: Self::Iv, b: Self::Iv) -> Self::Iv;
    /// The low 32 bits of the product (Rust's `wrapping_mul`).
    fn imul(self, a: Self::Iv, b: Self::Iv) -> Self::Iv;
    fn iand(self, a: Self::Iv, b: Self::Iv) -> Self::Iv;
    fn ior(self, a: Self::Iv, b: Self::Iv) -> Self::Iv;
    fn ixor(self, a: Self::Iv, b: Self::Iv) -> Self::Iv;
    /// `a >> 31`, arithmetic: −1 for a negative lane, else 0.
    fn isign(self, a: Self::Iv) -> Self::Iv;
    /// `a << 4`: sixteen times.
    fn ix16(self, a: Self::Iv) -> Self::Iv;
    fn igt(self, a: Self::Iv, b: Self::Iv) -> Self::Iv;
    fn ieq(self, a: Self::Iv, b: Self::Iv) -> Self::Iv;
    /// `m ? a : b` lane-wise (`m`: 0 or −1 per lane).
    fn select(self, m: Self::Iv, a: Self::Iv, b: Self::Iv) -> Self::Iv;
    fn fbits(self, a: Self::Fv) -> Self::Iv;
    fn ibits(self, a: Self::Iv) -> Self::Fv;
    /// i32 to f32, rounding to nearest even (Rust's `as f32`).
    fn cvt(self, a: Self::Iv) -> Self::Fv;
    /// f32 to i32, truncating, for values in i32 range.
    fn trunc(self, a: Self::Fv) -> Self::Iv;
    /// Lane `l`'s condition as bit `l`.
    fn movemask(self, m: Self::Iv) -> u32;
    /// Lane `l` takes lane `l & !3` (each quad's first lane).
    fn quad_first(self, a: Self::Fv) -> Self::Fv;

    /// Lane `l`'s `[x[l], y[l], z[l], w[l]]`.
    #[inline(always)]
    fn rows(self, x: Self::Iv, y: Self::Iv, z: Self::Iv, w: Self::Iv) -> Self::A<[u32; 4]> {
        let (x, y, z, w) = (
            self.istore(x),
            self.istore(y),
            self.istore(z),
            self.istore(w),
        );
        Self::each(|l| [x[l] as u32, y[l] as u32, z[l] as u32, w[l] as u32])
    }

    /// `floor(x)` for lanes below 2²¹ in magnitude (others: any value): `x + 1.5·2²³`
    /// `− 1.5·2²³` rounds to the nearest integer `r` (exact here); `floor = r − (r > x)`.
    #[inline(always)]
    fn floor_small(self, x: Self::Fv) -> Self::Fv {
        let magic = self.fsplat(12_582_912.0); // 1.5·2²³
        let r = self.fsub(self.fadd(x, magic), magic);
        let one = self.fbits(self.fsplat(1.0));
        let down = self.ibits(self.iand(self.flt(x, r), one));
        self.fsub(r, down)
    }

    /// `t[idx[l] & 7]` per lane: a lane-wise lookup in a table of eight.
    #[inline(always)]
    fn lookup8(self, t: &[i32; 8], idx: Self::Iv) -> Self::Iv {
        let i = self.istore(idx);
        self.iload(Self::each(|l| t[(i[l] & 7) as usize]))
    }

    /// [`lerp_xy`] of each lane's four texels `t` with fractions `fa`, `fb`.
    #[inline(always)]
    fn bilerp(self, t: [Self::A<f32x4>; 4], fa: F<Self>, fb: F<Self>) -> Self::A<f32x4> {
        let (fa, fb) = (fa.arr(), fb.arr());
        let w = |f: f32| f32x4::splat(f);
        Self::each(|l| lerp_xy([t[0][l], t[1][l], t[2][l], t[3][l]], w(fa[l]), w(fb[l])))
    }

    /// [`bilerp`](Lanes::bilerp) of each lane's 2×2 block `plane[o[l]]`, `o[l] + 1`,
    /// `o[l] + row`, `o[l] + row + 1`: one index per lane.
    ///
    /// # Safety
    /// `row ≥ 1`, and every lane has `0 ≤ o[l]` and `o[l] + row + 1 < plane.len()` (so all
    /// four taps are texels of `plane`).
    #[inline(always)]
    unsafe fn bilerp_block(
        self,
        plane: &[f32x4],
        o: I<Self>,
        row: usize,
        fa: F<Self>,
        fb: F<Self>,
    ) -> Self::A<f32x4> {
        let (o, fa, fb) = (o.arr(), fa.arr(), fb.arr());
        let w = |f: f32| f32x4::splat(f);
        Self::each(|l| {
            // SAFETY: by the contract, `o[l]`, `o[l] + 1`, `o[l] + row`, `o[l] + row + 1`
            // are indices of `plane`
            let t = unsafe {
                let p = plane.as_ptr().add(o[l] as u32 as usize);
                [*p, *p.add(1), *p.add(row), *p.add(row + 1)]
            };
            lerp_xy(t, w(fa[l]), w(fb[l]))
        })
    }

    /// [`axpy`] per lane, `w[0]` in lanes `0..4`, `w[1]` in lanes `4..8`.
    #[inline(always)]
    fn axpy(self, acc: Self::A<f32x4>, w: [f32; 2], v: Self::A<f32x4>) -> Self::A<f32x4> {
        let w = w.map(f32x4::splat);
        Self::each(|l| axpy(acc[l], w[(l >= 4) as usize], v[l]))
    }

    /// The f32 at byte offset `off[l]` from `base`, lane by lane.
    ///
    /// # Safety
    /// Every `base + off[l]` (`off[l]` read as unsigned) is a readable, aligned f32.
    #[inline(always)]
    unsafe fn gather(self, base: *const u8, off: I<Self>) -> F<Self> {
        let o = off.arr();
        // SAFETY: by the contract
        self.f_of(|l| unsafe { *base.add(o[l] as u32 as usize).cast::<f32>() })
    }

    /// Lane `l`'s `[w[a[l]], w[a[l] + 1], w[b[l] + 1], w[b[l]]]`: a gather's rows `j1` and
    /// `j0` of one component, in its `i0j1 i1j1 i1j0 i0j0` order.
    ///
    /// # Safety
    /// Every lane has `0 ≤ a[l]`, `0 ≤ b[l]`, `a[l] + 1 < w.len()` and `b[l] + 1 < w.len()`.
    #[inline(always)]
    unsafe fn pairs(self, w: &[u32], a: I<Self>, b: I<Self>) -> Self::A<[u32; 4]> {
        let (a, b, p) = (a.arr(), b.arr(), w.as_ptr());
        Self::each(|l| {
            // SAFETY: by the contract, words `a[l]`, `a[l] + 1`, `b[l]`, `b[l] + 1` are `w`'s
            unsafe {
                let (x, y) = (p.add(a[l] as u32 as usize), p.add(b[l] as u32 as usize));
                [*x, *x.add(1), *y.add(1), *y]
            }
        })
    }

    /// Every lane `x`.
    #[inline(always)]
    fn f(self, x: f32) -> F<Self> {
        F(self.fsplat(x), self)
    }
    /// Every lane `x`.
    #[inline(always)]
    fn i(self, x: i32) -> I<Self> {
        I(self.isplat(x), self)
    }
    /// Lane `l` is `f(l)`.
    #[inline(always)]
    fn f_of(self, f: impl FnMut(usize) -> f32) -> F<Self> {
        F(self.fload(Self::each(f)), self)
    }
    /// Lane `l` is `f(l)`.
    #[inline(always)]
    fn i_of(self, f: impl FnMut(usize) -> i32) -> I<Self> {
        I(self.iload(Self::each(f)), self)
    }
    /// The first `W` words of `r` as f32 bits.
    #[inline(always)]
    fn f_row(self, r: &[u32]) -> F<Self> {
        I(self.irow(r), self).as_f32_bits()
    }
}

/// f32 lanes.
#[derive(Clone, Copy)]
pub(super) struct F<L: Lanes>(L::Fv, L);

/// i32 lanes.
#[derive(Clone, Copy)]
pub(super) struct I<L: Lanes>(L::Iv, L);

/// A condition per lane.
#[derive(Clone, Copy)]
pub(super) struct M<L: Lanes>(L::Iv, L);

/// Methods that apply one [`Lanes`] operation, `name(operand, …) -> result type = operation;`.
macro_rules! lift {
    ($t:ident; $($(#[$m:meta])* $f:ident($($b:ident),*) -> $r:ident = $op:ident;)*) => {
        $(
            $(#[$m])*
            #[inline(always)]
            pub fn $f(self, $($b: $t<L>),*) -> $r<L> {
                $r(self.1.$op(self.0, $($b.0),*), self.1)
            }
        )*
    };
}

/// The methods [`F`] and [`I`] share (`$store`: the token's store).
macro_rules! lane_vector {
    ($t:ident, $e:ty, $store:ident) => {
        impl<L: Lanes> $t<L> {
            /// The lanes' token.
            #[inline(always)]
            pub fn lanes(self) -> L {
                self.1
            }
            /// The lanes as an array.
            #[inline(always)]
            pub fn arr(self) -> L::A<$e> {
                self.1.$store(self.0)
            }
            /// Lane `l`.
            #[inline(always)]
            pub fn at(self, l: usize) -> $e {
                self.arr()[l]
            }
        }

        impl<L: Lanes> fmt::Debug for $t<L> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.arr().as_ref().fmt(f)
            }
        }
    };
}
lane_vector!(F, f32, fstore);
lane_vector!(I, i32, istore);

impl<L: Lanes> F<L> {
    lift! { F;
        /// `self < b`.
        lt(b) -> M = flt;
        /// `self <= b`.
        le(b) -> M = fle;
        /// `self == b`.
        eq(b) -> M = feq;
        /// The lanes' bits.
        bits() -> I = fbits;
        /// `floor(x)` for lanes below 2²¹ in magnitude (see [`Lanes::floor_small`]).
        floor_small() -> F = floor_small;
        /// Truncated to i32 (lanes in i32 range).
        trunc() -> I = trunc;
        /// Lane `l` takes lane `l & !3`.
        quad_first() -> F = quad_first;
    }
    /// `|x|`.
    #[inline(always)]
    pub fn abs(self) -> F<L> {
        (self.bits() & self.1.i(i32::MAX)).as_f32_bits()
    }
    /// `m ? a : b` lane-wise.
    #[inline(always)]
    pub fn select(m: M<L>, a: F<L>, b: F<L>) -> F<L> {
        I::select(m, a.bits(), b.bits()).as_f32_bits()
    }
}

impl<L: Lanes> I<L> {
    lift! { I;
        /// The lanes as f32 bits.
        as_f32_bits() -> F = ibits;
        /// Converted to f32 (`as f32`).
        to_f32() -> F = cvt;
        /// `self > b`.
        gt(b) -> M = igt;
        /// `self == b`.
        eq(b) -> M = ieq;
        /// `self >> 31`, arithmetic.
        sign() -> I = isign;
        /// `self << 4`.
        x16() -> I = ix16;
    }
    /// The lanes' vector.
    #[inline(always)]
    pub fn raw(self) -> L::Iv {
        self.0
    }
    /// The lesser lanes.
    #[inline(always)]
    pub fn min(self, b: I<L>) -> I<L> {
        I::select(self.gt(b), b, self)
    }
    /// The greater lanes.
    #[inline(always)]
    pub fn max(self, b: I<L>) -> I<L> {
        I::select(self.gt(b), self, b)
    }
    /// `m ? a : b` lane-wise.
    #[inline(always)]
    pub fn select(m: M<L>, a: I<L>, b: I<L>) -> I<L> {
        I(m.1.select(m.0, a.0, b.0), m.1)
    }
    /// `t[self[l] & 7]` per lane.
    #[inline(always)]
    pub fn lookup8(self, t: &[i32; 8]) -> I<L> {
        I(self.1.lookup8(t, self.0), self.1)
    }
}

impl<L: Lanes> M<L> {
    /// Every lane `c`.
    #[inline(always)]
    pub fn splat(l: L, c: bool) -> M<L> {
        M(l.isplat(-(c as i32)), l)
    }
    /// 1.0 where the lane holds, else 0.0.
    #[inline(always)]
    pub fn one_zero(self) -> F<L> {
        I(
            self.1.iand(self.0, self.1.fbits(self.1.fsplat(1.0))),
            self.1,
        )
        .as_f32_bits()
    }
    /// The lanes as bits (bit `l`: lane `l`).
    #[inline(always)]
    pub fn bits(self) -> u32 {
        self.1.movemask(self.0)
    }
    /// Whether every lane holds.
    #[inline(always)]
    pub fn all(self) -> bool {
        self.bits() == (1u32 << L::W) - 1
    }
}

macro_rules! binop {
    ($t:ident, $tr:ident, $f:ident, $op:ident) => {
        impl<L: Lanes> $tr for $t<L> {
            type Output = $t<L>;
            #[inline(always)]
            fn $f(self, b: $t<L>) -> $t<L> {
                $t(self.1.$op(self.0, b.0), self.1)
            }
        }
    };
}
binop!(F, Add, add, fadd);
binop!(F, Sub, sub, fsub);
binop!(F, Mul, mul, fmul);
binop!(F, Div, div, fdiv);
binop!(I, Add, add, iadd);
binop!(I, Sub, sub, isub);
binop!(I, Mul, mul, imul);
binop!(I, BitAnd, bitand, iand);
binop!(I, BitOr, bitor, ior);
binop!(I, BitXor, bitxor, ixor);
binop!(M, BitAnd, bitand, iand);
binop!(M, BitOr, bitor, ior);

impl<L: Lanes> Not for M<L> {
    type Output = M<L>;
    #[inline(always)]
    fn not(self) -> M<L> {
        M(self.1.ixor(self.0, self.1.isplat(-1)), self.1)
    }
}

/// `N` lanes as plain arrays: the general path's one lane, and four off x86-64.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Arr<const N: usize>;

impl<const N: usize> Arr<N> {
    #[inline(always)]
    fn zip<T: Copy, U: Copy>(a: [T; N], b: [T; N], f: impl Fn(T, T) -> U) -> [U; N] {
        std::array::from_fn(|l| f(a[l], b[l]))
    }
}

impl<const N: usize> Lanes for Arr<N> {
    const W: usize = N;
    type A<T: Copy> = [T; N];
    type Fv = [f32; N];
    type Iv = [i32; N];

    #[inline(always)]
    fn each<T: Copy>(f: impl FnMut(usize) -> T) -> [T; N] {
        std::array::from_fn(f)
    }
    units!(N);
    ops! { plain;
        fload(a: [f32; N]) -> [f32; N] = a;
        fstore(v: [f32; N]) -> [f32; N] = v;
        iload(a: [i32; N]) -> [i32; N] = a;
        istore(v: [i32; N]) -> [i32; N] = v;
        irow(r: &[u32]) -> [i32; N] = std::array::from_fn(|l| r[l] as i32);
        fsplat(x: f32) -> [f32; N] = [x; N];
        isplat(x: i32) -> [i32; N] = [x; N];
        fadd(a: [f32; N], b: [f32; N]) -> [f32; N] = Self::zip(a, b, |a, b| a + b);
        fsub(a: [f32; N], b: [f32; N]) -> [f32; N] = Self::zip(a, b, |a, b| a - b);
        fmul(a: [f32; N], b: [f32; N]) -> [f32; N] = Self::zip(a, b, |a, b| a * b);
        fdiv(a: [f32; N], b: [f32; N]) -> [f32; N] = Self::zip(a, b, |a, b| a / b);
        flt(a: [f32; N], b: [f32; N]) -> [i32; N] = Self::zip(a, b, |a, b| -((a < b) as i32));
        fle(a: [f32; N], b: [f32; N]) -> [i32; N] = Self::zip(a, b, |a, b| -((a <= b) as i32));
        feq(a: [f32; N], b: [f32; N]) -> [i32; N] = Self::zip(a, b, |a, b| -((a == b) as i32));
        iadd(a: [i32; N], b: [i32; N]) -> [i32; N] = Self::zip(a, b, i32::wrapping_add);
        isub(a: [i32; N], b: [i32; N]) -> [i32; N] = Self::zip(a, b, i32::wrapping_sub);
        imul(a: [i32; N], b: [i32; N]) -> [i32; N] = Self::zip(a, b, i32::wrapping_mul);
        iand(a: [i32; N], b: [i32; N]) -> [i32; N] = Self::zip(a, b, |a, b| a & b);
        ior(a: [i32; N], b: [i32; N]) -> [i32; N] = Self::zip(a, b, |a, b| a | b);
        ixor(a: [i32; N], b: [i32; N]) -> [i32; N] = Self::zip(a, b, |a, b| a ^ b);
        isign(a: [i32; N]) -> [i32; N] = a.map(|a| a >> 31);
        ix16(a: [i32; N]) -> [i32; N] = a.map(|a| a << 4);
        igt(a: [i32; N], b: [i32; N]) -> [i32; N] = Self::zip(a, b, |a, b| -((a > b) as i32));
        ieq(a: [i32; N], b: [i32; N]) -> [i32; N] = Self::zip(a, b, |a, b| -((a == b) as i32));
        select(m: [i32; N], a: [i32; N], b: [i32; N]) -> [i32; N] =
            std::array::from_fn(|l| if m[l] != 0 { a[l] } else { b[l] });
        fbits(a: [f32; N]) -> [i32; N] = a.map(|x| x.to_bits() as i32);
        ibits(a: [i32; N]) -> [f32; N] = a.map(|x| f32::from_bits(x as u32));
        cvt(a: [i32; N]) -> [f32; N] = a.map(|x| x as f32);
        trunc(a: [f32; N]) -> [i32; N] = a.map(|x| x as i32);
        movemask(m: [i32; N]) -> u32 = (0..N).fold(0, |r, l| r | ((m[l] < 0) as u32) << l);
        quad_first(a: [f32; N]) -> [f32; N] = std::array::from_fn(|l| a[l & !3]);
    }
}

#[cfg(target_arch = "x86_64")]
pub(super) use x86::{Avx, Sse};

/// Four lanes: a quad.
#[cfg(target_arch = "x86_64")]
pub(super) type Quad = Sse;
/// Four lanes: a quad.
#[cfg(not(target_arch = "x86_64"))]
pub(super) type Quad = Arr<4>;

/// The four-lane token (a quad).
#[inline(always)]
pub(super) fn four() -> Quad {
    Quad::default()
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{axpy, lerp, Lanes, F, I};
    use std::arch::x86_64::*;
    use wide::f32x4;

    /// Four lanes in SSE2 registers (part of x86-64).
    #[derive(Clone, Copy, Debug, Default)]
    pub(in super::super) struct Sse;

    /// `$e` (SSE2 intrinsics) in an `unsafe` block.
    macro_rules! sse {
        ($e:expr) => {
            // SAFETY: every x86-64 CPU has SSE2; the operands are plain values
            unsafe { $e }
        };
    }

    impl Lanes for Sse {
        const W: usize = 4;
        type A<T: Copy> = [T; 4];
        type Fv = __m128;
        type Iv = __m128i;

        #[inline(always)]
        fn each<T: Copy>(mut f: impl FnMut(usize) -> T) -> [T; 4] {
            [f(0), f(1), f(2), f(3)]
        }
        #[inline(always)]
        fn fstore(self, v: __m128) -> [f32; 4] {
            let mut o = [0f32; 4];
            // SAFETY: `o` is four writable f32; the store is unaligned
            unsafe { _mm_storeu_ps(o.as_mut_ptr(), v) };
            o
        }
        #[inline(always)]
        fn istore(self, v: __m128i) -> [i32; 4] {
            let mut o = [0i32; 4];
            // SAFETY: `o` is 16 writable bytes; the store is unaligned
            unsafe { _mm_storeu_si128(o.as_mut_ptr().cast(), v) };
            o
        }
        #[inline(always)]
        fn irow(self, r: &[u32]) -> __m128i {
            let r = &r[..4];
            // SAFETY: `r` is four readable u32 (16 bytes); the load is unaligned
            unsafe { _mm_loadu_si128(r.as_ptr().cast()) }
        }
        units!(4);
        #[inline(always)]
        fn imul(self, a: __m128i, b: __m128i) -> __m128i {
            // SSE2 has no 32-bit low multiply: lanes 0, 2 and 1, 3 as 64-bit products
            let even = sse!(_mm_mul_epu32(a, b));
            let odd = sse!(_mm_mul_epu32(
                _mm_srli_epi64::<32>(a),
                _mm_srli_epi64::<32>(b)
            ));
            sse!(_mm_unpacklo_epi32(
                _mm_shuffle_epi32::<0b1000>(even),
                _mm_shuffle_epi32::<0b1000>(odd),
            ))
        }
        ops! { sse;
            fload(a: [f32; 4]) -> __m128 = _mm_setr_ps(a[0], a[1], a[2], a[3]);
            iload(a: [i32; 4]) -> __m128i = _mm_setr_epi32(a[0], a[1], a[2], a[3]);
            fsplat(x: f32) -> __m128 = _mm_set1_ps(x);
            isplat(x: i32) -> __m128i = _mm_set1_epi32(x);
            fadd(a: __m128, b: __m128) -> __m128 = _mm_add_ps(a, b);
            fsub(a: __m128, b: __m128) -> __m128 = _mm_sub_ps(a, b);
            fmul(a: __m128, b: __m128) -> __m128 = _mm_mul_ps(a, b);
            fdiv(a: __m128, b: __m128) -> __m128 = _mm_div_ps(a, b);
            flt(a: __m128, b: __m128) -> __m128i = _mm_castps_si128(_mm_cmplt_ps(a, b));
            fle(a: __m128, b: __m128) -> __m128i = _mm_castps_si128(_mm_cmple_ps(a, b));
            feq(a: __m128, b: __m128) -> __m128i = _mm_castps_si128(_mm_cmpeq_ps(a, b));
            iadd(a: __m128i, b: __m128i) -> __m128i = _mm_add_epi32(a, b);
            isub(a: __m128i, b: __m128i) -> __m128i = _mm_sub_epi32(a, b);
            iand(a: __m128i, b: __m128i) -> __m128i = _mm_and_si128(a, b);
            ior(a: __m128i, b: __m128i) -> __m128i = _mm_or_si128(a, b);
            ixor(a: __m128i, b: __m128i) -> __m128i = _mm_xor_si128(a, b);
            isign(a: __m128i) -> __m128i = _mm_srai_epi32::<31>(a);
            ix16(a: __m128i) -> __m128i = _mm_slli_epi32::<4>(a);
            igt(a: __m128i, b: __m128i) -> __m128i = _mm_cmpgt_epi32(a, b);
            ieq(a: __m128i, b: __m128i) -> __m128i = _mm_cmpeq_epi32(a, b);
            select(m: __m128i, a: __m128i, b: __m128i) -> __m128i =
                _mm_or_si128(_mm_and_si128(m, a), _mm_andnot_si128(m, b));
            fbits(a: __m128) -> __m128i = _mm_castps_si128(a);
            ibits(a: __m128i) -> __m128 = _mm_castsi128_ps(a);
            cvt(a: __m128i) -> __m128 = _mm_cvtepi32_ps(a);
            trunc(a: __m128) -> __m128i = _mm_cvttps_epi32(a);
            movemask(m: __m128i) -> u32 = _mm_movemask_ps(_mm_castsi128_ps(m)) as u32;
            quad_first(a: __m128) -> __m128 = _mm_shuffle_ps::<0>(a, a);
        }
    }

    /// Eight lanes in AVX2 registers; a value exists only if [`Avx::new`] found AVX2.
    #[derive(Clone, Copy, Debug)]
    pub(in super::super) struct Avx(());

    impl Avx {
        /// The token, if the AVX2 forms may run ([`crate::cpu::avx2`]).
        #[inline(always)]
        pub fn new() -> Option<Avx> {
            crate::cpu::avx2().then_some(Avx(()))
        }
    }

    /// `$e` (AVX2 intrinsics) in an `unsafe` block.
    macro_rules! avx {
        ($e:expr) => {
            // SAFETY: every method here takes an `Avx`, which exists only when the CPU has
            // AVX2; operands are values or, for loads and stores, memory named at the call
            unsafe { $e }
        };
    }

    impl Lanes for Avx {
        const W: usize = 8;
        const AVX2: bool = true;
        type A<T: Copy> = [T; 8];
        type Fv = __m256;
        type Iv = __m256i;

        #[inline(always)]
        fn each<T: Copy>(mut f: impl FnMut(usize) -> T) -> [T; 8] {
            [f(0), f(1), f(2), f(3), f(4), f(5), f(6), f(7)]
        }
        #[inline(always)]
        fn fstore(self, v: __m256) -> [f32; 8] {
            let mut o = [0f32; 8];
            avx!(_mm256_storeu_ps(o.as_mut_ptr(), v));
            o
        }
        #[inline(always)]
        fn istore(self, v: __m256i) -> [i32; 8] {
            let mut o = [0i32; 8];
            avx!(_mm256_storeu_si256(o.as_mut_ptr().cast(), v));
            o
        }
        #[inline(always)]
        fn irow(self, r: &[u32]) -> __m256i {
            let r = &r[..8];
            // (`r`: eight readable u32, 32 bytes)
            avx!(_mm256_loadu_si256(r.as_ptr().cast()))
        }
        units!(8);
        ops! { avx;
            fload(a: [f32; 8]) -> __m256 = _mm256_loadu_ps(a.as_ptr());
            iload(a: [i32; 8]) -> __m256i = _mm256_loadu_si256(a.as_ptr().cast());
            fsplat(x: f32) -> __m256 = _mm256_set1_ps(x);
            isplat(x: i32) -> __m256i = _mm256_set1_epi32(x);
            fadd(a: __m256, b: __m256) -> __m256 = _mm256_add_ps(a, b);
            fsub(a: __m256, b: __m256) -> __m256 = _mm256_sub_ps(a, b);
            fmul(a: __m256, b: __m256) -> __m256 = _mm256_mul_ps(a, b);
            fdiv(a: __m256, b: __m256) -> __m256 = _mm256_div_ps(a, b);
            flt(a: __m256, b: __m256) -> __m256i =
                _mm256_castps_si256(_mm256_cmp_ps::<_CMP_LT_OQ>(a, b));
            fle(a: __m256, b: __m256) -> __m256i =
                _mm256_castps_si256(_mm256_cmp_ps::<_CMP_LE_OQ>(a, b));
            feq(a: __m256, b: __m256) -> __m256i =
                _mm256_castps_si256(_mm256_cmp_ps::<_CMP_EQ_OQ>(a, b));
            iadd(a: __m256i, b: __m256i) -> __m256i = _mm256_add_epi32(a, b);
            isub(a: __m256i, b: __m256i) -> __m256i = _mm256_sub_epi32(a, b);
            imul(a: __m256i, b: __m256i) -> __m256i = _mm256_mullo_epi32(a, b);
            iand(a: __m256i, b: __m256i) -> __m256i = _mm256_and_si256(a, b);
            ior(a: __m256i, b: __m256i) -> __m256i = _mm256_or_si256(a, b);
            ixor(a: __m256i, b: __m256i) -> __m256i = _mm256_xor_si256(a, b);
            isign(a: __m256i) -> __m256i = _mm256_srai_epi32::<31>(a);
            ix16(a: __m256i) -> __m256i = _mm256_slli_epi32::<4>(a);
            igt(a: __m256i, b: __m256i) -> __m256i = _mm256_cmpgt_epi32(a, b);
            ieq(a: __m256i, b: __m256i) -> __m256i = _mm256_cmpeq_epi32(a, b);
            select(m: __m256i, a: __m256i, b: __m256i) -> __m256i = _mm256_blendv_epi8(b, a, m);
            fbits(a: __m256) -> __m256i = _mm256_castps_si256(a);
            ibits(a: __m256i) -> __m256 = _mm256_castsi256_ps(a);
            cvt(a: __m256i) -> __m256 = _mm256_cvtepi32_ps(a);
            trunc(a: __m256) -> __m256i = _mm256_cvttps_epi32(a);
            movemask(m: __m256i) -> u32 = _mm256_movemask_ps(_mm256_castsi256_ps(m)) as u32;
            quad_first(a: __m256) -> __m256 = _mm256_shuffle_ps::<0>(a, a);
            floor_small(x: __m256) -> __m256 = _mm256_floor_ps(x);
        }
        #[inline(always)]
        fn lookup8(self, t: &[i32; 8], idx: __m256i) -> __m256i {
            // (`t`: 32 readable bytes; `vpermd` reads the index's low three bits)
            avx!(_mm256_permutevar8x32_epi32(
                _mm256_loadu_si256(t.as_ptr().cast()),
                idx
            ))
        }
        #[inline(always)]
        fn rows(self, x: __m256i, y: __m256i, z: __m256i, w: __m256i) -> [[u32; 4]; 8] {
            // a 4×4 transpose in each 128-bit half: register k holds lanes k and k + 4
            let (xy0, xy1) = avx!((_mm256_unpacklo_epi32(x, y), _mm256_unpackhi_epi32(x, y)));
            let (zw0, zw1) = avx!((_mm256_unpacklo_epi32(z, w), _mm256_unpackhi_epi32(z, w)));
            let r = avx!([
                _mm256_unpacklo_epi64(xy0, zw0),
                _mm256_unpackhi_epi64(xy0, zw0),
                _mm256_unpacklo_epi64(xy1, zw1),
                _mm256_unpackhi_epi64(xy1, zw1),
            ]);
            let o = avx!([
                _mm256_permute2x128_si256::<0x20>(r[0], r[1]),
                _mm256_permute2x128_si256::<0x20>(r[2], r[3]),
                _mm256_permute2x128_si256::<0x31>(r[0], r[1]),
                _mm256_permute2x128_si256::<0x31>(r[2], r[3]),
            ]);
            let mut out = [[0u32; 4]; 8];
            for (k, v) in o.iter().enumerate() {
                // (`out[2k..2k + 2]`: 32 writable bytes, the store unaligned)
                avx!(_mm256_storeu_si256(out[2 * k..].as_mut_ptr().cast(), *v));
            }
            out
        }
        #[inline(always)]
        fn axpy(self, acc: [f32x4; 8], w: [f32; 2], v: [f32x4; 8]) -> [f32x4; 8] {
            // lanes k and k + 4 side by side (as the filters leave them)
            let w = Pair::of(self, f32x4::splat(w[0]), f32x4::splat(w[1]));
            let mut o = acc;
            for k in 0..4 {
                let p = |a: &[f32x4; 8]| Pair::of(self, a[k], a[k + 4]);
                (o[k], o[k + 4]) = axpy(p(&acc), w, p(&v)).split();
            }
            o
        }
        #[inline(always)]
        unsafe fn gather(self, base: *const u8, off: I<Avx>) -> F<Avx> {
            // SAFETY: the CPU has AVX2 (the token); every lane's address is a readable f32
            // (the caller's contract)
            F(
                unsafe { _mm256_i32gather_ps::<1>(base.cast(), off.0) },
                self,
            )
        }
        #[inline(always)]
        unsafe fn pairs(self, w: &[u32], a: I<Avx>, b: I<Avx>) -> [[u32; 4]; 8] {
            // each lane's two indices side by side (lanes 0, 1, 4, 5 in `lo`, 2, 3, 6, 7 in
            // `hi`): one 64-bit gather of four is two lanes' results, second pairs swapped
            let (lo, hi) = avx!((
                _mm256_unpacklo_epi32(a.0, b.0),
                _mm256_unpackhi_epi32(a.0, b.0)
            ));
            let p = w.as_ptr().cast::<i64>();
            let ix = avx!([
                _mm256_castsi256_si128(lo),
                _mm256_castsi256_si128(hi),
                _mm256_extracti128_si256::<1>(lo),
                _mm256_extracti128_si256::<1>(hi),
            ]);
            let mut out = [[0u32; 4]; 8];
            for (k, ix) in ix.into_iter().enumerate() {
                // SAFETY: the CPU has AVX2 (the token); by the contract each index `x` here
                // has words `x` and `x + 1` in `w`, the 8 bytes the gather reads at byte
                // offset `4x` (no alignment asked)
                let g = unsafe { _mm256_i32gather_epi64::<4>(p, ix) };
                let v = avx!(_mm256_shuffle_epi32::<0b10_11_01_00>(g));
                // (`out[2k..2k + 2]`: 32 writable bytes, the store unaligned)
                avx!(_mm256_storeu_si256(out[2 * k..].as_mut_ptr().cast(), v));
            }
            out
        }
        #[inline(always)]
        fn bilerp(self, t: [[f32x4; 8]; 4], fa: F<Avx>, fb: F<Avx>) -> [f32x4; 8] {
            // lanes k and k + 4 side by side: one operation for two lanes' channels
            let mut o = [f32x4::splat(0.0); 8];
            for k in 0..4 {
                let p = |c: usize| Pair::of(self, t[c][k], t[c][k + 4]);
                let (wa, wb) = (Pair::weights(fa, k), Pair::weights(fb, k));
                let top = lerp(p(0), p(1), wa);
                let bot = lerp(p(2), p(3), wa);
                (o[k], o[k + 4]) = lerp(top, bot, wb).split();
            }
            o
        }
        #[inline(always)]
        unsafe fn bilerp_block(
            self,
            plane: &[f32x4],
            o: I<Avx>,
            row: usize,
            fa: F<Avx>,
            fb: F<Avx>,
        ) -> [f32x4; 8] {
            // lanes k and k + 4 side by side; each lane's four taps at byte offsets 0, 16,
            // 16·row and 16·row + 16 from its first
            let b = o.x16().arr();
            let base = plane.as_ptr().cast::<u8>();
            let r = 16 * row;
            // SAFETY: by the contract, every lane's `16·o`, `16·o + 16`, `16·o + 16·row` and
            // `16·o + 16·row + 16` are byte offsets of texels of `plane` (16-byte aligned
            // `f32x4`s), and the CPU has AVX2 (the token)
            let ld = |off: usize| unsafe { _mm_load_ps(base.add(off).cast()) };
            let mut out = [f32x4::splat(0.0); 8];
            for k in 0..4 {
                let (lo, hi) = (b[k] as u32 as usize, b[k + 4] as u32 as usize);
                let p = |d: usize| Pair(avx!(_mm256_set_m128(ld(hi + d), ld(lo + d))), self);
                let (wa, wb) = (Pair::weights(fa, k), Pair::weights(fb, k));
                let top = lerp(p(0), p(16), wa);
                let bot = lerp(p(r), p(r + 16), wa);
                (out[k], out[k + 4]) = lerp(top, bot, wb).split();
            }
            out
        }
    }

    /// Two lanes' texels side by side in one AVX2 register (made from an [`Avx`] token).
    #[derive(Clone, Copy)]
    struct Pair(__m256, Avx);

    impl Pair {
        /// `a` in the low half, `b` in the high.
        #[inline(always)]
        fn of(l: Avx, a: f32x4, b: f32x4) -> Pair {
            let (a, b): (__m128, __m128) = (a.into(), b.into());
            Pair(avx!(_mm256_set_m128(b, a)), l)
        }
        /// Lane `k` of `f` four times, then lane `k + 4` four times (`k < 4`).
        #[inline(always)]
        fn weights(f: F<Avx>, k: usize) -> Pair {
            let v = match k {
                0 => avx!(_mm256_shuffle_ps::<0x00>(f.0, f.0)),
                1 => avx!(_mm256_shuffle_ps::<0x55>(f.0, f.0)),
                2 => avx!(_mm256_shuffle_ps::<0xaa>(f.0, f.0)),
                _ => avx!(_mm256_shuffle_ps::<0xff>(f.0, f.0)),
            };
            Pair(v, f.1)
        }
        /// The two texels.
        #[inline(always)]
        fn split(self) -> (f32x4, f32x4) {
            let lo = avx!(_mm256_castps256_ps128(self.0));
            let hi = avx!(_mm256_extractf128_ps::<1>(self.0));
            (lo.into(), hi.into())
        }
    }

    /// `+`, `−`, `×` of two lanes' texels side by side.
    macro_rules! pair_ops {
        ($($tr:ident, $f:ident, $op:ident;)*) => {
            $(
                impl std::ops::$tr for Pair {
                    type Output = Pair;
                    #[inline(always)]
                    fn $f(self, b: Pair) -> Pair {
                        Pair(avx!($op(self.0, b.0)), self.1)
                    }
                }
            )*
        };
    }
    pair_ops! {
        Add, add, _mm256_add_ps;
        Sub, sub, _mm256_sub_ps;
        Mul, mul, _mm256_mul_ps;
    }
}

/// `floor(x)` as i32, the texture unit's one floor rule: saturating for huge values, 0 for
/// NaN, no libm call (baseline x86-64 has no SSE4.1 `roundss`).
#[inline(always)]
pub(super) fn fl(x: f32) -> i32 {
    let i = x as i32;
    if (i as f32) > x {
        i.saturating_sub(1)
    } else {
        i
    }
}

/// The bound below which [`split`] takes its lane-wise route: `|x| < 2²¹`.
const SMALL: f32 = 2_097_152.0;

/// `(fl(x), x − fl(x))` lane-wise, the fraction clamped to [0, 1], and which lanes are
/// below 2²¹ in magnitude (not NaN). When every lane is, the fraction is exact and in
/// [0, 1) (−0 for −0, as lane by lane), so the clamp is skipped.
#[inline(always)]
pub(super) fn split<L: Lanes>(x: F<L>) -> (I<L>, F<L>, M<L>) {
    let l = x.lanes();
    let small = x.abs().lt(l.f(SMALL));
    if small.all() {
        let i = x.floor_small().trunc();
        return (i, x - i.to_f32(), small);
    }
    let a = x.arr();
    let i = l.i_of(|k| fl(a[k]));
    let ia = i.arr();
    let f = l.f_of(|k| (a[k] - ia[k] as f32).clamp(0.0, 1.0));
    (i, f, small)
}

/// `a + (b − a)·w`: the linear filter's one operation, in this order in every form (no
/// FMA), on one texel (`f32x4`) or two side by side.
#[inline(always)]
pub(super) fn lerp<T: Copy + Add<Output = T> + Sub<Output = T> + Mul<Output = T>>(
    a: T,
    b: T,
    w: T,
) -> T {
    a + (b - a) * w
}

/// The bilinear filter of taps `(i0, j0)`, `(i1, j0)`, `(i0, j1)`, `(i1, j1)`: [`lerp`]
/// along x by `a`, then along y by `b`.
#[inline(always)]
pub(super) fn lerp_xy<T: Copy + Add<Output = T> + Sub<Output = T> + Mul<Output = T>>(
    t: [T; 4],
    a: T,
    b: T,
) -> T {
    let top = lerp(t[0], t[1], a);
    let bot = lerp(t[2], t[3], a);
    lerp(top, bot, b)
}

/// `acc + w·v`: a weighted term of a sum, as [`lerp`] (no FMA).
#[inline(always)]
pub(super) fn axpy<T: Copy + Add<Output = T> + Mul<Output = T>>(acc: T, w: T, v: T) -> T {
    acc + w * v
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Inputs around the bounds of [`split`]'s routes and pseudo-random ones.
    fn values() -> Vec<f32> {
        let mut vals = vec![0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 1.5, -1.5, 2.5, f32::NAN];
        for e in [2_097_152.0f32, 4_194_304.0, 8_388_608.0, 2147483648.0] {
            for k in -3..=3 {
                let b = e.to_bits() as i32 + k;
                vals.extend([f32::from_bits(b as u32), -f32::from_bits(b as u32)]);
            }
        }
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let scale = [1.0, 100.0, 3e6, 1e10][(x >> 60) as usize & 3];
            vals.push(((x >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * scale);
        }
        vals
    }

    /// [`split`] on `l`'s lanes against the scalar floor and clamped fraction.
    fn check_split<L: Lanes>(l: L) {
        for (n, chunk) in values().chunks(L::W).enumerate() {
            let mut v = L::each(|k| chunk.get(k).copied().unwrap_or(0.25));
            if n % 2 == 0 {
                v[L::W - 1] = 0.75; // keep some chunks on the small route
            }
            let (i, f, _) = split(l.f_of(|k| v[k]));
            for k in 0..L::W {
                let want = fl(v[k]);
                let wf = (v[k] - want as f32).clamp(0.0, 1.0);
                assert_eq!(i.at(k), want, "{:?}", v.as_ref());
                assert_eq!(f.at(k).to_bits(), wf.to_bits(), "{:?}", v.as_ref());
            }
        }
    }

    #[test]
    fn split_is_the_scalar_floor_and_clamped_fraction() {
        check_split(Arr::<1>);
        check_split(Arr::<4>);
        check_split(four());
        #[cfg(target_arch = "x86_64")]
        if let Some(l) = Avx::new() {
            // SAFETY: `l` proves AVX2
            unsafe { split_avx(l) };
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn split_avx(l: Avx) {
        check_split(l);
    }

    /// Every operation of `l` against plain i32/f32 arithmetic, on lanes of edge values.
    fn check_ops<L: Lanes>(l: L) {
        let ints = [
            0,
            1,
            -1,
            7,
            -8,
            i32::MAX,
            i32::MIN,
            0x1234_5678,
            -0x0765_4321,
            65537,
        ];
        let fl32 = [
            0.0,
            -0.0,
            1.5,
            -2.25,
            f32::NAN,
            f32::INFINITY,
            3e9,
            -1e-30,
            0.1,
            7.0,
        ];
        for s in 0..ints.len() {
            let a = L::each(|k| ints[(s + k) % ints.len()]);
            let b = L::each(|k| ints[(s + 3 * k + 1) % ints.len()]);
            let x = L::each(|k| fl32[(s + k) % fl32.len()]);
            let y = L::each(|k| fl32[(s + 2 * k + 1) % fl32.len()]);
            let (ia, ib) = (l.i_of(|k| a[k]), l.i_of(|k| b[k]));
            let (fx, fy) = (l.f_of(|k| x[k]), l.f_of(|k| y[k]));
            for k in 0..L::W {
                assert_eq!((ia * ib).at(k), a[k].wrapping_mul(b[k]));
                assert_eq!((ia + ib).at(k), a[k].wrapping_add(b[k]));
                assert_eq!((ia - ib).at(k), a[k].wrapping_sub(b[k]));
                assert_eq!((ia ^ ib).at(k), a[k] ^ b[k]);
                assert_eq!(ia.min(ib).at(k), a[k].min(b[k]));
                assert_eq!(ia.max(ib).at(k), a[k].max(b[k]));
                assert_eq!(ia.sign().at(k), a[k] >> 31);
                assert_eq!(ia.x16().at(k), a[k] << 4);
                assert_eq!(ia.gt(ib).bits() >> k & 1, (a[k] > b[k]) as u32);
                assert_eq!(ia.eq(ib).bits() >> k & 1, (a[k] == b[k]) as u32);
                assert_eq!(ia.to_f32().at(k).to_bits(), (a[k] as f32).to_bits());
                assert_eq!(fx.lt(fy).bits() >> k & 1, (x[k] < y[k]) as u32);
                assert_eq!((fx * fy).at(k).to_bits(), (x[k] * y[k]).to_bits());
                assert_eq!((fx - fy).at(k).to_bits(), (x[k] - y[k]).to_bits());
                assert_eq!(fx.abs().at(k).to_bits(), x[k].abs().to_bits());
                assert_eq!(fx.quad_first().at(k).to_bits(), x[k & !3].to_bits());
            }
        }
    }

    #[test]
    fn every_form_is_plain_arithmetic() {
        check_ops(Arr::<1>);
        check_ops(Arr::<4>);
        check_ops(four());
        #[cfg(target_arch = "x86_64")]
        if let Some(l) = Avx::new() {
            // SAFETY: `l` proves AVX2
            unsafe { ops_avx(l) };
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn ops_avx(l: Avx) {
        check_ops(l);
    }
}
