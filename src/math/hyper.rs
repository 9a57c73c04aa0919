//! Hyperbolic functions and their inverses, computed in f64 lanes from [`exp2_wide`] and
//! [`log2_wide`] and rounded to f32 once, so the textbook formulas keep f32's precision:
//! sinh = (e - 1/e)/2 and cosh = (e + 1/e)/2 with e = e^|x| (f64 does not overflow where f32
//! would), tanh = (e² - 1)/(e² + 1), asinh |x| = log1p(|x| + x²/(1 + √(1 + x²))), acosh x =
//! log1p(t + √(2t + t²)) with t = x - 1, atanh |x| = log1p(2|x|/(1 - |x|))/2. The f64
//! `log1p(t)` is log u of u = 1 + t rounded plus (t - (u - 1))/u, the rounding error of u; log
//! u is log2 of the f32 nearest u/2, plus one, times ln 2, plus the relative error of that f32.
//! Below 2^-12 the odd functions return x itself (their next term is below half an ULP), so
//! tiny arguments lose nothing to the differences near 0.

use super::exp::{exp2_wide, log2_wide};
use super::lanes::{Float, Lanes};
use super::poly::{keep_small, nan_pass};

const LOG2_E: f64 = std::f64::consts::LOG2_E;
const LN_2: f64 = std::f64::consts::LN_2;

/// e^|x| in f64 lanes (e^200·ln2 at most, which rounds to ∞ in f32).
#[inline(always)]
fn exp_abs<L: Lanes>(x: L) -> L::W {
    let a = x.abs().widen();
    exp2_wide::<L>(a.mul(a.splat(LOG2_E)))
}

/// sinh x.
#[inline(always)]
pub(crate) fn sinh<L: Lanes>(x: L) -> L {
    let e = exp_abs(x);
    let half = e.splat(0.5);
    let r = L::narrow(half.mul(e).sub(half.div(e))).copysign(x);
    nan_pass(x, keep_small(x, r))
}

/// cosh x.
#[inline(always)]
pub(crate) fn cosh<L: Lanes>(x: L) -> L {
    let e = exp_abs(x);
    let half = e.splat(0.5);
    nan_pass(x, L::narrow(half.mul(e).add(half.div(e))))
}

/// tanh x.
#[inline(always)]
pub(crate) fn tanh<L: Lanes>(x: L) -> L {
    let a = x.abs().widen();
    let e = exp2_wide::<L>(a.mul(a.splat(2.0 * LOG2_E)));
    let one = e.splat(1.0);
    let r = L::narrow(e.sub(one).div(e.add(one))).copysign(x);
    nan_pass(x, keep_small(x, r))
}

/// log u for f64 lanes u in [1, 2^129).
#[inline(always)]
fn ln_wide<L: Lanes>(u: L::W) -> L::W {
    let h = u.mul(u.splat(0.5));
    let hf = L::narrow(h);
    let hw = hf.widen();
    log2_wide(hf)
        .add(u.splat(1.0))
        .mul(u.splat(LN_2))
        .add(h.sub(hw).div(hw))
}

/// log(1 + t) for f64 lanes t >= 0 (finite).
#[inline(always)]
fn log1p_wide<L: Lanes>(t: L::W) -> L::W {
    let one = t.splat(1.0);
    let u = one.add(t);
    ln_wide::<L>(u).add(t.sub(u.sub(one)).div(u))
}

/// asinh x.
#[inline(always)]
pub(crate) fn asinh<L: Lanes>(x: L) -> L {
    let a = x.abs().widen();
    let one = a.splat(1.0);
    let z = a.mul(a);
    let t = a.add(z.div(one.add(one.add(z).sqrt())));
    let r = L::narrow(log1p_wide::<L>(t)).copysign(x);
    // ±∞: ∞/∞ above
    let r = L::select(x.abs().eq(x.splat(f32::INFINITY)), x, r);
    nan_pass(x, keep_small(x, r))
}

/// acosh x (NaN below 1).
#[inline(always)]
pub(crate) fn acosh<L: Lanes>(x: L) -> L {
    let t = x.widen().sub(x.widen().splat(1.0));
    let v = t.add(t.add(t).add(t.mul(t)).sqrt());
    let r = L::narrow(log1p_wide::<L>(v));
    let r = L::select(x.eq(x.splat(f32::INFINITY)), x, r);
    nan_pass(x, L::select(x.lt(x.splat(1.0)), x.splat(f32::NAN), r))
}

/// atanh x (±∞ at ±1, NaN beyond).
#[inline(always)]
pub(crate) fn atanh<L: Lanes>(x: L) -> L {
    let a = x.abs();
    let aw = a.widen();
    let t = aw.add(aw).div(aw.splat(1.0).sub(aw));
    let r = L::narrow(aw.splat(0.5).mul(log1p_wide::<L>(t)));
    let one = x.splat(1.0);
    let r = L::select(a.eq(one), x.splat(f32::INFINITY), r);
    let r = L::select(one.lt(a), x.splat(f32::NAN), r);
    nan_pass(x, keep_small(x, r.copysign(x)))
}
