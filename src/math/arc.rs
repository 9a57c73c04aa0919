//! Inverse trigonometric functions: `atan`, `atan2`, `asin`, `acos`.
//!
//! `atan2(y, x)` reduces to a = atan(t) with t = min/max of |x|, |y| in [0, 1], and once more
//! to |t| <= tan(π/8) by atan(t) = π/4 + atan((t - 1)/(t + 1)) (one division either way);
//! Cephes' `atanf` polynomial gives a. The result is Q·π/4 ± a for an octant Q from 0 to 4,
//! formed as Q·H + (Q·L ± a) with π/4 = H + L, H of 21 bits so that Q·H is exact: multiples
//! of π/4 come out correctly rounded. `atan(x)` is `atan2(x, 1)`. C's special values (signed
//! zeros, infinities) follow from the same steps with two selects.
//!
//! `asin`/`acos` use Cephes' `asinf` polynomial p(v) ≈ asin(v) on [0, 1/2], with v = |x| or,
//! above 1/2, v = sqrt((1 - |x|)/2) (asin |x| = π/2 - 2·asin v; 1 - |x| is exact there), and
//! the same Q·H + (Q·L + S·p) sum over multiples of π/2.

use super::lanes::{Ints, Lanes, Mask};
use super::poly::nan_pass;

/// π/4 = PIO4_HI + PIO4_LO, PIO4_HI with 21 significant bits.
const PIO4_HI: f32 = f32::from_bits(0x3f49_0fd8);
const PIO4_LO: f32 = f32::from_bits(0x3428_885a);
/// π/2 = PIO2_HI + PIO2_LO (PIO2_HI the f32 nearest π/2; doubling it is exact).
const PIO2_HI: f32 = f32::from_bits(0x3fc9_0fdb);
const PIO2_LO: f32 = f32::from_bits(0xb33b_bd2e);

/// `q·hi + (q·lo + a)`, q a small integer-valued float.
#[inline(always)]
fn multiple<L: Lanes>(q: L, hi: f32, lo: f32, a: L) -> L {
    q.mul(q.splat(hi)).add(q.mul(q.splat(lo)).add(a))
}

/// atan(y/x) over all four quadrants (C's `atan2`).
#[inline(always)]
pub(crate) fn atan2<L: Lanes>(y: L, x: L) -> L {
    // Cephes atanf: atan t = t + t·z·P(z), z = t², |t| <= tan(π/8)
    const P: [f32; 4] = [
        8.053_744_5e-2,
        -1.387_768_6e-1,
        1.997_771_1e-1,
        -3.333_295e-1,
    ];
    let (zero, one) = (x.splat(0.0), x.splat(1.0));
    let (ay, ax) = (y.abs(), x.abs());
    let swap = ax.lt(ay);
    let (num, den) = (L::select(swap, ax, ay), L::select(swap, ay, ax));
    // num + den below must not overflow: scale both by 1/4 when den is that large
    let s = L::select(x.splat(2f32.powi(126)).lt(den), x.splat(0.25), one);
    let (num, den) = (num.mul(s), den.mul(s));
    // above tan(π/8): atan t = π/4 + atan((num - den)/(num + den)); both infinite: π/4 + 0
    let inf = x.splat(f32::INFINITY);
    let both_inf = num.eq(inf);
    let mid = den.mul(x.splat(0.414_213_57)).lt(num).or(both_inf);
    let t = L::select(mid, num.sub(den), num).div(L::select(mid, num.add(den), den));
    // 0/0 (both zero) and ∞/∞ are 0
    let t = L::select(den.eq(zero).or(both_inf), zero, t);
    let z = t.mul(t);
    let a = super::poly::horner(z, &P).mul(z).mul(t).add(t);
    // octant: swapped → π/2 - …, x negative (its sign bit, so -0 too) → π - …; Q·π/4 ± a
    let neg = x.bits().splat(0).gt(x.bits());
    let minus = swap.xor(neg);
    let base = L::select(swap, x.splat(2.0), L::select(neg, x.splat(4.0), zero));
    let b = L::select(mid, one, zero);
    let q = L::select(minus, base.sub(b), base.add(b));
    let r = multiple(q, PIO4_HI, PIO4_LO, L::select(minus, a.neg(), a)).copysign(y);
    nan_pass(y, nan_pass(x, r))
}

/// atan x.
#[inline(always)]
pub(crate) fn atan<L: Lanes>(x: L) -> L {
    atan2(x, x.splat(1.0))
}

/// (p ≈ asin v, big): v = |x| up to 1/2, above it v = sqrt((1 - |x|)/2) and `big`.
#[inline(always)]
fn asin_kernel<L: Lanes>(x: L) -> (L, L::M) {
    // Cephes asinf: asin v = v + v·z·P(z), z = v², v in [0, 1/2]
    const P: [f32; 5] = [
        4.216_32e-2,
        2.418_131e-2,
        4.547_002_6e-2,
        7.495_300_3e-2,
        1.666_675_2e-1,
    ];
    let half = x.splat(0.5);
    let a = x.abs();
    let big = half.lt(a);
    let zb = half.mul(x.splat(1.0).sub(a));
    let z = L::select(big, zb, a.mul(a));
    let v = L::select(big, zb.sqrt(), a);
    (super::poly::horner(z, &P).mul(z).mul(v).add(v), big)
}

/// NaN outside [-1, 1] (NaN passed).
#[inline(always)]
fn domain<L: Lanes>(x: L, r: L) -> L {
    let r = L::select(x.splat(1.0).lt(x.abs()), x.splat(f32::NAN), r);
    nan_pass(x, r)
}

/// asin x.
#[inline(always)]
pub(crate) fn asin<L: Lanes>(x: L) -> L {
    let (p, big) = asin_kernel(x);
    let zero = x.splat(0.0);
    // big: π/2 - 2p
    let q = L::select(big, x.splat(1.0), zero);
    let a = L::select(big, p.mul(x.splat(-2.0)), p);
    domain(x, multiple(q, PIO2_HI, PIO2_LO, a).copysign(x))
}

/// acos x.
#[inline(always)]
pub(crate) fn acos<L: Lanes>(x: L) -> L {
    let (p, big) = asin_kernel(x);
    let neg = x.lt(x.splat(0.0));
    // |x| <= 1/2: π/2 - (±p); x > 1/2: 2p; x < -1/2: π - 2p
    let q = L::select(
        big,
        L::select(neg, x.splat(2.0), x.splat(0.0)),
        x.splat(1.0),
    );
    let s = L::select(
        big,
        L::select(neg, x.splat(-2.0), x.splat(2.0)),
        L::select(neg, x.splat(1.0), x.splat(-1.0)),
    );
    domain(x, multiple(q, PIO2_HI, PIO2_LO, s.mul(p)))
}
