//! `sin`, `cos`, `tan`: the argument reduced to r in [-π/4, π/4] and a quadrant in f64 lanes,
//! then FreeBSD's `__kernel_sindf`/`__kernel_cosdf` polynomials (also f64), rounded to f32
//! once: the correctly rounded result for all but a few inputs in a million.
//!
//! k = round(x·2/π) and r = (x - k·Q1) - k·Q2
//! with π/2 = Q1 + Q2 + O(2^-88) and Q1 of 31 bits, so for |k| < 2^22 the product k·Q1 and the
//! first subtraction are exact and r is good to 2^-53 relative plus 2^-66 absolute — far below
//! the f32 nearest a multiple of π/2, whose r is above 2^-28. That covers |x| < 2^22, where an
//! f32 still has a fraction bit; larger |x| (never seen in shaders but in hashes of huge
//! values) go lane by lane to musl's `sinf`/`cosf`/`tanf` (the `libm` crate: Payne–Hanek
//! reduction, deterministic), as do ±∞ and NaN. Each lane takes the path its own value calls
//! for, so no result depends on its neighbours.

use super::lanes::{Float, Ints, Lanes, Mask};
use super::poly::{keep_small, round_int};

/// π/2 = Q1 + Q2 (+ 3.5e-27), Q1 with 31 significant bits.
const Q1: f64 = 1.570_796_326_734_125_6;
const Q2: f64 = 6.077_100_506_506_192e-11;
/// The vector reduction's range (below it, |k| < 2^22).
const LIMIT: f32 = 4_194_304.0;

/// (r, quadrant k) for |x| < [`LIMIT`]; other lanes get garbage, which [`finish`] replaces.
#[inline(always)]
fn reduce<L: Lanes>(x: L) -> (L::W, L::I) {
    const MAGIC: f64 = 6_755_399_441_055_744.0; // 1.5·2^52: v + MAGIC - MAGIC rounds v
    let xw = x.widen();
    let k = xw
        .mul(xw.splat(std::f64::consts::FRAC_2_PI))
        .add(xw.splat(MAGIC))
        .sub(xw.splat(MAGIC));
    let r = xw.sub(k.mul(k.splat(Q1))).sub(k.mul(k.splat(Q2)));
    // k as integer lanes: exact in f32 (|k| < 2^22), then its encoding
    (r, round_int(L::narrow(k)).1)
}

/// (sin r, cos r) for |r| <= π/4 (a little beyond is fine): FreeBSD's kernels,
/// |sin r / r - s| < 2^-37.5 and |cos r - c| < 2^-34.1.
#[inline(always)]
fn kernels<W: Float<S = f64>>(r: W) -> (W, W) {
    const S: [f64; 4] = [
        -0.166_666_666_416_265_24,
        0.008_333_329_385_889_463,
        -0.000_198_393_348_360_966_32,
        2.718_311_493_989_822e-6,
    ];
    const C: [f64; 4] = [
        -0.499_999_997_251_031,
        0.041_666_623_323_739_06,
        -0.001_388_676_377_460_993,
        2.439_044_879_627_741e-5,
    ];
    let k = |v: f64| r.splat(v);
    let z = r.mul(r);
    let w = z.mul(z);
    let s = z.mul(r);
    // (r + s·(S1 + z·S2)) + s·w·(S3 + z·S4)
    let sin = r
        .add(s.mul(k(S[0]).add(z.mul(k(S[1])))))
        .add(s.mul(w).mul(k(S[2]).add(z.mul(k(S[3])))));
    // ((1 + z·C0) + w·C1) + (w·z)·(C2 + z·C3)
    let cos = k(1.0)
        .add(z.mul(k(C[0])))
        .add(w.mul(k(C[1])))
        .add(w.mul(z).mul(k(C[2]).add(z.mul(k(C[3])))));
    (sin, cos)
}

/// `v`, but lanes with |x| >= [`LIMIT`] from `scalar`, NaN for ±∞, NaN passed (made quiet).
#[inline(always)]
fn finish<L: Lanes>(x: L, v: L, scalar: fn(f32) -> f32) -> L {
    let rest = x.abs().lt(x.splat(LIMIT));
    if x.splat(LIMIT).le(x.abs()).or(x.is_nan()).any() {
        let w = x.map(|e| match e {
            _ if e.abs() < LIMIT => 0.0, // the vector result stands
            _ if e.is_finite() => scalar(e),
            _ if e.is_nan() => e + e,
            _ => f32::NAN,
        });
        L::select(rest, v, w)
    } else {
        v
    }
}

/// Whether bit `b` of each quadrant is set.
#[inline(always)]
fn bit<L: Lanes>(q: L::I, b: i32) -> L::M {
    let m = q.splat(b);
    q.and(m).eq(m)
}

/// sin of quadrant `q` (k for sin, k + 1 for cos): ±sin r or ±cos r.
#[inline(always)]
fn quadrant<L: Lanes>(r: L::W, q: L::I) -> L {
    let (s, c) = kernels(r);
    let v = L::select(bit::<L>(q, 1), L::narrow(c), L::narrow(s));
    // quadrants 2 and 3 negate
    L::select(bit::<L>(q, 2), v.neg(), v)
}

/// sin x.
#[inline(always)]
pub(crate) fn sin<L: Lanes>(x: L) -> L {
    let (r, q) = reduce(x);
    finish(x, keep_small(x, quadrant(r, q)), libm::sinf)
}

/// cos x.
#[inline(always)]
pub(crate) fn cos<L: Lanes>(x: L) -> L {
    let (r, q) = reduce(x);
    finish(x, quadrant(r, q.add(q.splat(1))), libm::cosf)
}

/// tan x: sin r / cos r, or -cos r / sin r in odd quadrants, divided in f64 and rounded once.
#[inline(always)]
pub(crate) fn tan<L: Lanes>(x: L) -> L {
    let (r, q) = reduce(x);
    let (s, c) = kernels(r);
    let (t, u) = (L::narrow(s.div(c)), L::narrow(c.div(s)));
    finish(
        x,
        keep_small(x, L::select(bit::<L>(q, 1), u.neg(), t)),
        libm::tanf,
    )
}
