//! Exponentials and logarithms: `exp2`, `exp`, `log2`, `log`, `pow`, and the f64-lane
//! `log2_wide`/`exp2_wide` that `pow` and the hyperbolic functions build on.
//!
//! - `exp2`: x = n + f with n = round(x) and |f| ≤ 1/2 exactly; 2^f by a degree-6 polynomial
//!   (Cephes' `exp2f` coefficients); 2^n applied by [`scale`], which rounds once, so
//!   results that fall into the subnormals or overflow are rounded correctly from 2^f.
//! - `exp`: x = n·ln 2 + r, n = round(x·log2 e), r by Cody–Waite with ln 2 split into a 16-bit
//!   head (n·head is exact for |n| < 2^8) and a 24-bit tail; e^r = 1 + r + r²·P(r) (Cephes'
//!   `expf`).
//! - `log2`, `log`: x = 2^k·m with m in [√½, √2) (subnormals scaled by 2^23 first), f = m - 1,
//!   s = f/(2 + f), and log(1 + f) = f - f²/2 + s·(f²/2 + R(s²)) with FreeBSD's `logf`
//!   kernel; `log2` multiplies by 1/ln 2 in two parts on a head of f - f²/2 with its low bits
//!   cleared, as FreeBSD's `log2f`, so results near 1 keep their relative accuracy.
//! - `pow`: exp2(y·log2 x) in f64 lanes ([`log2_wide`], [`exp2_wide`]: far below f32's
//!   precision), rounded to f32 once, with C's special cases (`pow(x, ±0) = 1`, `pow(1, y) =
//!   1`, signs for odd integer y, NaN for negative x and non-integer y) by selects.

use super::lanes::{Float, Ints, Lanes, Mask};
use super::poly::{horner, nan_pass, pow2, round_int, scale};

/// 2^x.
#[inline(always)]
pub(crate) fn exp2<L: Lanes>(x: L) -> L {
    // Cephes exp2f: 2^f = 1 + f·P(f), |f| <= 1/2
    const P: [f32; 6] = [
        1.535_336_2e-4,
        1.339_887_4e-3,
        9.618_437e-3,
        5.550_332_5e-2,
        2.402_264_8e-1,
        6.931_472e-1,
    ];
    // beyond ±200 the result is 0 or ∞ anyway; NaN is put back last
    let xc = x.max(x.splat(-200.0)).min(x.splat(200.0));
    let (nf, n) = round_int(xc);
    let f = xc.sub(nf);
    let p = f.mul(horner(f, &P)).add(x.splat(1.0));
    nan_pass(x, scale(p, n))
}

/// e^x.
#[inline(always)]
pub(crate) fn exp<L: Lanes>(x: L) -> L {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    // ln 2 = LN2_HI + LN2_LO, LN2_HI with 16 significant bits
    const LN2_HI: f32 = f32::from_bits(0x3f31_7200);
    const LN2_LO: f32 = f32::from_bits(0x35bf_be8e);
    // Cephes expf: e^r = 1 + r + r²·P(r), |r| <= ln 2 / 2
    const P: [f32; 6] = [
        1.987_569_1e-4,
        1.398_199_9e-3,
        8.333_452e-3,
        4.166_579_6e-2,
        1.666_666_5e-1,
        5e-1,
    ];
    // e^±110 is far beyond f32's range; n stays within what `scale` takes
    let xc = x.max(x.splat(-110.0)).min(x.splat(110.0));
    let (nf, n) = round_int(xc.mul(x.splat(LOG2E)));
    let r = xc.sub(nf.mul(x.splat(LN2_HI))).sub(nf.mul(x.splat(LN2_LO)));
    let p = horner(r, &P).mul(r.mul(r)).add(r).add(x.splat(1.0));
    nan_pass(x, scale(p, n))
}

/// `x = 2^k·m` with m in [√½, √2), for finite x > 0 (subnormals included).
#[inline(always)]
pub(super) fn split<L: Lanes>(x: L) -> (L, L::I) {
    let tiny = x.lt(x.splat(f32::MIN_POSITIVE));
    let xs = L::select(tiny, x.mul(x.splat(8_388_608.0)), x);
    let b = xs.bits();
    // offset so that m's exponent field comes out as that of [√½, √2)
    let i = b.sub(b.splat(0x3f35_04f3));
    let k = i
        .shr::<23>()
        .sub(L::I::select(tiny, b.splat(23), b.splat(0)));
    let m = i
        .and(b.splat(0x007f_ffff))
        .add(b.splat(0x3f35_04f3))
        .float();
    (m, k)
}

/// FreeBSD's `k_log1pf` pieces for f = m - 1, m in [√½, √2): (f²/2, s·(f²/2 + R(s²))) with
/// s = f/(2 + f); log(1 + f) = f - f²/2 + the second.
#[inline(always)]
fn kernel<L: Lanes>(f: L) -> (L, L) {
    const LG1: f32 = f32::from_bits(0x3f2a_aaaa);
    const LG2: f32 = f32::from_bits(0x3ecc_ce13);
    const LG3: f32 = f32::from_bits(0x3e91_e9ee);
    const LG4: f32 = f32::from_bits(0x3e78_9e26);
    let s = f.div(f.splat(2.0).add(f));
    let z = s.mul(s);
    let w = z.mul(z);
    let t1 = w.mul(f.splat(LG2).add(w.mul(f.splat(LG4))));
    let t2 = z.mul(f.splat(LG1).add(w.mul(f.splat(LG3))));
    let hfsq = f.splat(0.5).mul(f).mul(f);
    (hfsq, s.mul(hfsq.add(t2.add(t1))))
}

/// The logarithms' special values: NaN for x < 0 (and NaN passed), -∞ for ±0, +∞ for +∞.
#[inline(always)]
fn log_special<L: Lanes>(x: L, y: L) -> L {
    let zero = x.splat(0.0);
    let inf = x.splat(f32::INFINITY);
    let y = L::select(x.eq(inf), inf, y);
    let y = L::select(x.eq(zero), inf.neg(), y);
    let y = L::select(x.lt(zero), x.splat(f32::NAN), y);
    nan_pass(x, y)
}

/// log2(x).
#[inline(always)]
pub(crate) fn log2<L: Lanes>(x: L) -> L {
    // 1/ln 2 = IVLN2HI + IVLN2LO, IVLN2HI with 12 significant bits
    const IVLN2HI: f32 = f32::from_bits(0x3fb8_b000);
    const IVLN2LO: f32 = f32::from_bits(0xb938_9ad4);
    let (m, k) = split(x);
    let f = m.sub(x.splat(1.0));
    let (hfsq, r) = kernel(f);
    // hi has 12 significant bits, so hi·IVLN2HI is exact
    let hi = f.sub(hfsq).and(x.splat_bits(0xffff_f000));
    let lo = f.sub(hi).sub(hfsq).add(r);
    let y = lo
        .add(hi)
        .mul(x.splat(IVLN2LO))
        .add(lo.mul(x.splat(IVLN2HI)))
        .add(hi.mul(x.splat(IVLN2HI)))
        .add(k.to_f32());
    log_special(x, y)
}

/// log(x) (natural): FreeBSD's `logf` sum, dk·ln2_hi - ((hfsq - (r + dk·ln2_lo)) - f), with
/// ln 2 = LN2_HI + LN2_LO split so that dk·LN2_HI is exact.
#[inline(always)]
pub(crate) fn log<L: Lanes>(x: L) -> L {
    const LN2_HI: f32 = f32::from_bits(0x3f31_7180);
    const LN2_LO: f32 = f32::from_bits(0x3717_f7d1);
    let (m, k) = split(x);
    let f = m.sub(x.splat(1.0));
    let (hfsq, r) = kernel(f);
    let dk = k.to_f32();
    let y = dk
        .mul(x.splat(LN2_HI))
        .sub(hfsq.sub(r.add(dk.mul(x.splat(LN2_LO)))).sub(f));
    log_special(x, y)
}

/// log2 x in f64 lanes for finite x > 0, within 2^-40 relative: x = 2^k·m, s = (m - 1)/(m + 1),
/// log2 m = Σ 2·s^(2j+1)/((2j+1)·ln 2) to s^13 (|s| <= 0.172).
#[inline(always)]
pub(super) fn log2_wide<L: Lanes>(x: L) -> L::W {
    // 2/((2j+1)·ln 2), j = 6 down to 0
    const C: [f64; 7] = [
        0.221_953_083_213_686_67,
        0.262_308_189_252_538_8,
        0.320_598_897_975_325_2,
        0.412_198_583_111_132_4,
        0.577_078_016_355_585_3,
        0.961_796_693_925_975_6,
        2.885_390_081_777_926_8,
    ];
    let (m, k) = split(x);
    let mw = m.widen();
    let one = mw.splat(1.0);
    let s = mw.sub(one).div(mw.add(one));
    s.mul(horner(s.mul(s), &C)).add(k.to_f32().widen())
}

/// 2^t in f64 lanes, within 2^-42 relative, for t clamped to [-200, 200] (NaN gives 2^-200):
/// t = n + f, 2^f by its Taylor series to degree 10 (|f| <= 1/2), 2^n as two f32 powers of
/// two (each exact in f64).
#[inline(always)]
pub(super) fn exp2_wide<L: Lanes>(t: L::W) -> L::W {
    // (ln 2)^j / j!, j = 10 down to 0
    const E: [f64; 11] = [
        7.054_911_620_801_123e-9,
        1.017_808_600_923_97e-7,
        1.321_548_679_014_431e-6,
        1.525_273_380_405_984_1e-5,
        1.540_353_039_338_161e-4,
        1.333_355_814_642_844_3e-3,
        9.618_129_107_628_477e-3,
        5.550_410_866_482_158e-2,
        2.402_265_069_591_007_2e-1,
        std::f64::consts::LN_2,
        1.0,
    ];
    const MAGIC: f64 = 6_755_399_441_055_744.0; // 1.5·2^52
    let lim = t.splat(200.0);
    let t = t.max(lim.neg()).min(lim);
    let nw = t.add(t.splat(MAGIC)).sub(t.splat(MAGIC));
    let p = horner(t.sub(nw), &E);
    let (_, n) = round_int(L::narrow(nw));
    let h = n.shr::<1>();
    p.mul(pow2::<L>(h).widen()).mul(pow2::<L>(n.sub(h)).widen())
}

/// x^y, with C's special values: exp2(y·log2|x|) in f64, rounded to f32 once.
#[inline(always)]
pub(crate) fn pow<L: Lanes>(x: L, y: L) -> L {
    // log2|x| for |x| = 0, ∞, NaN is garbage here: `pow_special` replaces those lanes
    let t = y.widen().mul(log2_wide(x.abs()));
    pow_special(x, y, L::narrow(exp2_wide::<L>(t)))
}

/// C's `pow` special values over `r`, the value exp2(y·log2|x|) where that is finite.
#[inline(always)]
fn pow_special<L: Lanes>(x: L, y: L, r: L) -> L {
    let (zero, one, inf) = (x.splat(0.0), x.splat(1.0), x.splat(f32::INFINITY));
    let (ax, ay) = (x.abs(), y.abs());
    // |x| = 0 or ∞, or y = ±∞ (with |x| ≠ 1): ∞ when |x| > 1 and y > 0 or |x| < 1 and y < 0
    let extreme = ax.eq(zero).or(ax.eq(inf)).or(ay.eq(inf));
    let big = zero.lt(ax.sub(one).mul(y));
    let r = L::select(extreme, L::select(big, inf, zero), r);
    // y an integer (±∞ and every |y| >= 2^24 are even ones), and odd
    let integral = super::round::trunc(y).eq(y);
    let h = y.mul(x.splat(0.5));
    let odd = integral.and_not(super::round::trunc(h).eq(h));
    let r = L::select(odd, r.xor(x.sign()), r);
    let negative = x.lt(zero).and_not(x.eq(inf.neg()));
    let r = L::select(negative.and_not(integral), x.splat(f32::NAN), r);
    let r = nan_pass(x, nan_pass(y, r));
    let r = L::select(x.eq(one.neg()).and(ay.eq(inf)), one, r);
    L::select(x.eq(one).or(y.eq(zero)), one, r)
}
