//! Lane vectors: `W` values side by side ([`F`]: f32, [`I`]: i32), the one type every stage
//! of the sampling kernel is written against, so that each rule (floor, wrap, lerp, compare)
//! exists once and the lane count is a parameter: 1 (the general path, one lane at a time),
//! 4 (a quad) or 8 (two quads, a pixel's probes, or a quad's two levels).
//!
//! Shape: plain arrays with element-wise loops, always inlined. The compiler turns a loop of
//! four into SSE2 operations and, inside a function compiled with
//! `#[target_feature(enable = "avx2")]`, a loop of eight into AVX2 ones; no FMA is ever
//! enabled, so every width rounds every operation alike and gives the same bits (the
//! property the kernel's equivalence test holds). Reductions (`all`, `any`) fold without
//! short-circuiting, which the compiler turns into one compare and move-mask instead of a
//! branch per lane. Float-to-integer conversions go through [`split`]'s exact magic-number
//! form, not Rust's saturating `as` (several fix-up instructions per vector).

use std::ops::{Add, BitAnd, BitOr, BitXor, Mul, Shr, Sub};

/// `W` f32 lanes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct F<const W: usize>(pub [f32; W]);

/// `W` i32 lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct I<const W: usize>(pub [i32; W]);

/// `W` lane conditions.
pub(super) type M<const W: usize> = [bool; W];

/// `[f(0), …, f(W − 1)]` by a plain loop: `std::array::from_fn` goes through closure
/// wrappers that the compiler left out of line in the kernel's loops (a call per lane).
#[inline(always)]
pub(super) fn each<T: Copy + Default, const W: usize>(f: impl Fn(usize) -> T) -> [T; W] {
    let mut o = [T::default(); W];
    for (l, x) in o.iter_mut().enumerate() {
        *x = f(l);
    }
    o
}

impl<const W: usize> F<W> {
    /// Every lane `x`.
    #[inline(always)]
    pub fn splat(x: f32) -> F<W> {
        F([x; W])
    }
    /// Lane `l` is `f(l)`.
    #[inline(always)]
    pub fn of(f: impl Fn(usize) -> f32) -> F<W> {
        F(each(f))
    }
    /// `f` of each lane.
    #[inline(always)]
    pub fn map(self, f: impl Fn(f32) -> f32) -> F<W> {
        let mut o = self.0;
        for x in &mut o {
            *x = f(*x);
        }
        F(o)
    }
    /// `f` of each pair of lanes.
    #[inline(always)]
    pub fn zip(self, b: F<W>, f: impl Fn(f32, f32) -> f32) -> F<W> {
        let mut o = self.0;
        for (x, y) in o.iter_mut().zip(b.0) {
            *x = f(*x, y);
        }
        F(o)
    }
    /// `f` of each pair of lanes, a condition.
    #[inline(always)]
    pub fn test(self, b: F<W>, f: impl Fn(f32, f32) -> bool) -> M<W> {
        let mut o = [false; W];
        for ((m, x), y) in o.iter_mut().zip(self.0).zip(b.0) {
            *m = f(x, y);
        }
        o
    }
}

impl<const W: usize> I<W> {
    /// Every lane `x`.
    #[inline(always)]
    pub fn splat(x: i32) -> I<W> {
        I([x; W])
    }
    /// Lane `l` is `f(l)`.
    #[inline(always)]
    pub fn of(f: impl Fn(usize) -> i32) -> I<W> {
        I(each(f))
    }
    /// `f` of each lane.
    #[inline(always)]
    pub fn map(self, f: impl Fn(i32) -> i32) -> I<W> {
        let mut o = self.0;
        for x in &mut o {
            *x = f(*x);
        }
        I(o)
    }
    /// `f` of each pair of lanes.
    #[inline(always)]
    pub fn zip(self, b: I<W>, f: impl Fn(i32, i32) -> i32) -> I<W> {
        let mut o = self.0;
        for (x, y) in o.iter_mut().zip(b.0) {
            *x = f(*x, y);
        }
        I(o)
    }
    /// `f` of each pair of lanes, a condition.
    #[inline(always)]
    pub fn test(self, b: I<W>, f: impl Fn(i32, i32) -> bool) -> M<W> {
        let mut o = [false; W];
        for ((m, x), y) in o.iter_mut().zip(self.0).zip(b.0) {
            *m = f(x, y);
        }
        o
    }
}

macro_rules! binop {
    ($t:ident, $tr:ident, $f:ident, $e:expr) => {
        impl<const W: usize> $tr for $t<W> {
            type Output = $t<W>;
            #[inline(always)]
            fn $f(self, b: $t<W>) -> $t<W> {
                self.zip(b, $e)
            }
        }
    };
}
binop!(F, Add, add, |a, b| a + b);
binop!(F, Sub, sub, |a, b| a - b);
binop!(F, Mul, mul, |a, b| a * b);
binop!(I, Add, add, |a, b| a.wrapping_add(b));
binop!(I, Sub, sub, |a, b| a.wrapping_sub(b));
binop!(I, Mul, mul, |a, b| a.wrapping_mul(b));
binop!(I, BitAnd, bitand, |a, b| a & b);
binop!(I, BitOr, bitor, |a, b| a | b);
binop!(I, BitXor, bitxor, |a, b| a ^ b);

impl<const W: usize> Shr<u32> for I<W> {
    type Output = I<W>;
    #[inline(always)]
    fn shr(self, s: u32) -> I<W> {
        self.map(|a| a >> s)
    }
}

/// The lanes of a condition as bits (bit `l`: lane `l`), four lanes to a move-mask: a fold
/// of shifted bits is left as a chain of scalar ands and ors by the compiler.
#[inline(always)]
pub(super) fn bits<const W: usize>(m: M<W>) -> u32 {
    let mut r = 0u32;
    let mut k = 0;
    while k + 4 <= W {
        // a true lane as all ones, its sign bit the lane's bit
        let v: [f32; 4] = each(|i| f32::from_bits((m[k + i] as i32).wrapping_neg() as u32));
        r |= wide::f32x4::new(v).to_bitmask() << k;
        k += 4;
    }
    while k < W {
        r |= (m[k] as u32) << k;
        k += 1;
    }
    r
}

/// Whether every lane holds.
#[inline(always)]
pub(super) fn all<const W: usize>(m: M<W>) -> bool {
    bits(m) == (1u32 << W) - 1
}

/// `floor(x)` as i32 without a libm call (baseline x86-64 has no SSE4.1 `roundss`):
/// saturating for huge values, 0 for NaN. The rule every floor of the texture unit follows.
#[inline(always)]
pub(super) fn fl(x: f32) -> i32 {
    let i = x as i32;
    if (i as f32) > x {
        i.saturating_sub(1)
    } else {
        i
    }
}

/// The bound below which [`split`] takes its exact lane-wise route: `|x| < 2²¹`.
const SMALL: f32 = 2_097_152.0;

/// `(floor(x), x − floor(x))` lane-wise, the fraction clamped to [0, 1] — [`fl`] and the
/// clamp lane by lane — and which lanes are below 2²¹ in magnitude (not NaN).
///
/// When every lane is (the usual case) it needs no float-to-integer conversion: adding
/// `1.5·2²³` rounds `x` to the nearest integer `r` in the low mantissa bits (exact in this
/// range), and `floor = r − (r > x)`; the fraction `x − floor` is then exact and in [0, 1),
/// so its clamp is the identity and is skipped. Otherwise it takes the scalar saturating
/// route of [`fl`] with the clamp for every lane.
#[inline(always)]
pub(super) fn split<const W: usize>(x: F<W>) -> (I<W>, F<W>, M<W>) {
    const MAGIC: f32 = 12_582_912.0; // 1.5·2²³
    let small = x.test(F::splat(SMALL), |a, m| a.abs() < m);
    let mut i = [0i32; W];
    let mut f = [0f32; W];
    if all(small) {
        for l in 0..W {
            let y = x.0[l] + MAGIC;
            let r = (y.to_bits() as i32).wrapping_sub(MAGIC.to_bits() as i32);
            i[l] = r - ((y - MAGIC > x.0[l]) as i32);
            f[l] = x.0[l] - i[l] as f32;
        }
    } else {
        for l in 0..W {
            i[l] = fl(x.0[l]);
            f[l] = (x.0[l] - i[l] as f32).clamp(0.0, 1.0);
        }
    }
    (I(i), F(f), small)
}

/// [`lerp`] of two texels side by side (`a`, `b`: two texels' channels; `w`: each texel's
/// weight four times), the same operations channel for channel: one AVX2 operation for
/// two lanes' texels.
#[inline(always)]
pub(super) fn lerp2(a: [f32; 8], b: [f32; 8], w: [f32; 8]) -> [f32; 8] {
    let mut o = a;
    for i in 0..8 {
        o[i] = a[i] + (b[i] - a[i]) * w[i];
    }
    o
}

/// Two texels side by side.
#[inline(always)]
pub(super) fn pair(a: [f32; 4], b: [f32; 4]) -> [f32; 8] {
    [a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]]
}

/// `a + (b − a)·w` per channel: the linear filter's one operation, in the order every
/// instantiation must keep (no FMA).
#[inline(always)]
pub(super) fn lerp(a: [f32; 4], b: [f32; 4], w: f32) -> [f32; 4] {
    [
        a[0] + (b[0] - a[0]) * w,
        a[1] + (b[1] - a[1]) * w,
        a[2] + (b[2] - a[2]) * w,
        a[3] + (b[3] - a[3]) * w,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_is_the_scalar_floor_and_clamped_fraction() {
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
        for (n, chunk) in vals.chunks(4).enumerate() {
            let mut v = [0.25f32; 4];
            v[..chunk.len()].copy_from_slice(chunk);
            if n % 2 == 0 {
                v[3] = 0.75; // keep some chunks on the small route
            }
            let (i, f, _) = split(F(v));
            for l in 0..4 {
                let want = fl(v[l]);
                let wf = (v[l] - want as f32).clamp(0.0, 1.0);
                assert_eq!(i.0[l], want, "{v:?}");
                assert_eq!(f.0[l].to_bits(), wf.to_bits(), "{v:?}");
            }
        }
    }
}
