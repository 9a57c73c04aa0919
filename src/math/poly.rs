//! What the reductions share: polynomial evaluation, rounding to an integer held in both
//! float and integer lanes, and exact scaling by a power of two.

use super::lanes::{Float, Ints, Lanes, Scalar};

/// `c[0]·x^(n-1) + … + c[n-1]` by Horner's rule, in this order in every lane form.
#[inline(always)]
pub(super) fn horner<L: Float>(x: L, c: &[L::S]) -> L {
    let mut p = x.splat(c[0]);
    for &k in &c[1..] {
        p = p.mul(x).add(x.splat(k));
    }
    p
}

/// 1.5·2^23: below 2^22 in magnitude, `v + MAGIC` is `v` rounded to an integer (ties to
/// even), held in the low bits of the sum's encoding.
const MAGIC: f32 = 12_582_912.0;

/// `v` rounded to the nearest integer (ties to even), as a float and as an integer, for
/// |v| < 2^22.
#[inline(always)]
pub(super) fn round_int<L: Lanes>(v: L) -> (L, L::I) {
    let m = v.add(v.splat(MAGIC));
    let bits = m.bits();
    (
        m.sub(v.splat(MAGIC)),
        bits.sub(bits.splat(MAGIC.to_bits() as i32)),
    )
}

/// 2^n for integer lanes `n` in [-126, 127].
#[inline(always)]
pub(super) fn pow2<L: Lanes>(n: L::I) -> L {
    n.add(n.splat(127)).shl::<23>().float()
}

/// `p·2^n` rounded once (into subnormals, or to ∞), for `p` in [0.5, 2) and `n` in
/// [-250, 254]: the first product is exact and normal, the second rounds.
#[inline(always)]
pub(super) fn scale<L: Lanes>(p: L, n: L::I) -> L {
    let h = n.shr::<1>();
    p.mul(pow2(h)).mul(pow2(n.sub(h)))
}

/// `r`, but where `x` is NaN, `x` made quiet (its payload kept).
#[inline(always)]
pub(super) fn nan_pass<L: Float>(x: L, r: L) -> L {
    L::select(x.is_nan(), x.add(x), r)
}

/// `r`, but `x` itself where |x| < 2^-12: an odd function whose next term is below half an
/// ULP of x there (sin, tan, sinh, tanh, asinh, atanh), and whose sums would lose the sign
/// of -0.
#[inline(always)]
pub(super) fn keep_small<L: Float>(x: L, r: L) -> L {
    L::select(x.abs().lt(x.splat(L::S::of(1.0 / 4096.0))), x, r)
}
