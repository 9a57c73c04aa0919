//! `sin`, `cos`, `tan`: the argument reduced to r in [-π/4, π/4] (a little beyond for sin and
//! cos) and a quadrant, then polynomials. sin and cos reduce in f32 where |x| < [`SMALL`]
//! (6432: the arguments shaders usually pass), in f64 beyond, and run single-precision kernels
//! on r given as two f32 parts; tan reduces in f64, runs FreeBSD's
//! `__kernel_sindf`/`__kernel_cosdf` polynomials in f64 and divides there, rounding to f32
//! once.
//!
//! Over every f32 (`tests::exhaustive`) all three are within 1 ULP of f64 libm rounded to f32,
//! and correctly rounded for 99.55 % (sin), 99.57 % (cos) and 94.36 % (tan) of the inputs.
//!
//! **f32 reduction** (sin and cos, |x| < [`SMALL`]): k = round(x·2/π), with x·2/π rounded to
//! f32 first (so k may be the neighbour of the nearest quadrant and |r| reach π/4 + 2^-11),
//! and r = x - k·(P1 + P2 + P3 + P4), π/2 = P1 + P2 + P3 + P4 + O(2^-68.7), P1..P3 of 12
//! significant bits each and P4 the f32 nearest the rest. |k| <= 4095, so every k·Pi with
//! i <= 3 is exact, and a = x - k·P1 is exact (Sterbenz: x and k·P1 are within a factor two,
//! or k = 0). h1 = a - k·P2 and h = h1 - k·P3 each round, and e = (u - d) - v recovers the
//! rounding error of d = u - v: it is Fast2Sum where |u| >= |v|, and where |u| < |v| the
//! difference is a multiple of Pi's last bit small enough to be exact, so e is 0 (so every e is
//! exact below [`SMALL`]; the exhaustive test holds the results). So r = h + l with
//! l = (e1 + e2) - k·P4 is off by |k|·2^-68.7 from the tail of π/2 and by the roundings of
//! k·P4 (|k·P4| < 2^-31.9) and of l: about 2^-55 absolute in all where r is small (|h1| is
//! then below 2^-18; elsewhere l's own rounding, 2^-24 of an ULP of h, dominates). Of the
//! f32 below [`SMALL`] with k ≠ 0, 252.89821 is the nearest a multiple of π/2 (r = 4.19e-9,
//! 2^-27.8), so where r is smallest it is good to 2^-27 relative, under a tenth of an ULP of
//! the result, and far better elsewhere (k = 0 leaves r = x exact). l is
//! below 2^-31 plus half an ULP of h, small enough for the kernels as it is. Lanes at or
//! beyond [`SMALL`] (and ±∞, NaN) take the f64 path below; which lanes do is decided by each
//! lane's own |x|, and the f64 path runs only when some lane needs it.
//!
//! **f64 reduction** (tan, and sin and cos from [`SMALL`] up):
//! k = round(x·2/π) and r = (x - k·Q1) - k·Q2
//! with π/2 = Q1 + Q2 + O(2^-88) and Q1 of 31 bits, so for |k| < 2^22 the product k·Q1 and the
//! first subtraction are exact and r is good to 2^-53 relative plus 2^-66 absolute — far below
//! the f32 nearest a multiple of π/2, whose r is above 2^-28. That covers |x| < 2^22, where an
//! f32 still has a fraction bit; sin and cos split r into h, the f32 of its top 24 bits, and
//! l, the f32 nearest the rest. Larger |x| (never seen in shaders but in hashes of huge
//! values) go lane by lane to musl's `sinf`/`cosf`/`tanf` (the `libm` crate: Payne–Hanek
//! reduction, deterministic), as do ±∞ and NaN. Each lane takes the path its own value calls
//! for, so no result depends on its neighbours.
//!
//! **Kernels.** sin and cos need r to more than f32's 24 bits (near a multiple of π/2, r's own
//! rounding would be an ULP of the result), but not their polynomials: with r = h + l,
//! sin r ≈ h + (l + h·z·S(z)) and cos r ≈ w + (((1 - w) - z/2) + (z²·C(z) - h·l)),
//! z = h², w = 1 - z/2 rounded, with Cephes' `sinf`/`cosf` coefficients. The terms after the
//! leading h or w are small, so their rounding errors are too, and the final addition rounds
//! once, so the result is within one ULP of the correctly rounded one. The polynomials run on
//! eight f32 lanes where f64 takes two halves.

use super::lanes::{Float, Ints, Lanes, Mask};
use super::poly::{horner, keep_small, round_int};

/// π/2 = Q1 + Q2 (+ 3.5e-27), Q1 with 31 significant bits.
const Q1: f64 = 1.570_796_326_734_125_6;
const Q2: f64 = 6.077_100_506_506_192e-11;
/// The f64 reduction's range (below it, |k| < 2^22).
const LIMIT: f32 = 4_194_304.0;
/// The f32 reduction's range (below it, |k| <= 4095).
const SMALL: f32 = 6432.0;
/// π/2 = P[0] + P[1] + P[2] + P[3] (+ 2.0e-21): the first three with 12 significant bits (so
/// k·P[i] is exact for |k| < 2^12), the last the f32 nearest the rest.
const P: [f32; 4] = [1.570_800_8, -4.453_584_6e-6, -8.706_138e-10, 6.223_372e-14];

/// (h, l, quadrant k) with r = h + l for |x| < [`SMALL`], in f32 (the module doc); other
/// lanes get garbage, which [`or_wide`] replaces.
#[inline(always)]
fn reduce32<L: Lanes>(x: L) -> (L, L, L::I) {
    let (k, q) = round_int(x.mul(x.splat(std::f32::consts::FRAC_2_PI)));
    let a = x.sub(k.mul(x.splat(P[0])));
    let (h1, e1) = sub_exact(a, k.mul(x.splat(P[1])));
    let (h, e2) = sub_exact(h1, k.mul(x.splat(P[2])));
    (h, e1.add(e2).sub(k.mul(x.splat(P[3]))), q)
}

/// (u - v rounded, its rounding error) where the error is exactly (u - v) - (u ⊖ v): when
/// |u| >= |v|, or when u - v is exact (then 0); see the module doc.
#[inline(always)]
fn sub_exact<L: Float>(u: L, v: L) -> (L, L) {
    let d = u.sub(v);
    (d, u.sub(d).sub(v))
}

/// `v` in the lanes with |x| < [`SMALL`], `wide(x)` in the others; `wide` runs only when some
/// lane needs it.
#[inline(always)]
fn or_wide<L: Lanes>(x: L, v: L, wide: impl FnOnce(L) -> L) -> L {
    let small = x.abs().lt(x.splat(SMALL));
    if small.all() {
        v
    } else {
        L::select(small, v, wide(x))
    }
}

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

/// (h, l): r as the f32 `h` of its top 24 significant bits (r's encoding with the low 29
/// fraction bits cleared, so r - h is exact) and the f32 `l` nearest the rest, |l| < ulp(h).
#[inline(always)]
fn split<L: Lanes>(r: L::W) -> (L, L) {
    let hw = r.and(r.splat_bits(0xffff_ffff_e000_0000));
    (L::narrow(hw), L::narrow(r.sub(hw)))
}

/// (sin r, cos r) for r = h + l, |r| <= π/4 (a little beyond is fine), in f32: Cephes'
/// `sinf`/`cosf` polynomials around the leading h and the split 1 - z/2 (see the module doc).
#[inline(always)]
fn kernels32<L: Float<S = f32>>(h: L, l: L) -> (L, L) {
    const S: [f32; 3] = [-1.951_529_6e-4, 8.332_161e-3, -1.666_665_5e-1];
    const C: [f32; 3] = [2.443_315_7e-5, -1.388_731_6e-3, 4.166_664_6e-2];
    let z = h.mul(h);
    // h + (l + (h·z)·S(z))
    let sin = h.add(l.add(h.mul(z).mul(horner(z, &S))));
    // w = 1 - z/2 rounded; w + (((1 - w) - z/2) + ((z·z)·C(z) - h·l))
    let one = h.splat(1.0);
    let hz = z.mul(h.splat(0.5));
    let w = one.sub(hz);
    let tail = z.mul(z).mul(horner(z, &C)).sub(h.mul(l));
    let cos = w.add(one.sub(w).sub(hz).add(tail));
    (sin, cos)
}

/// (sin r, cos r) in f64 for |r| <= π/4 (a little beyond is fine): FreeBSD's kernels,
/// |sin r / r - s| < 2^-37.5 and |cos r - c| < 2^-34.1.
#[inline(always)]
fn kernels64<W: Float<S = f64>>(r: W) -> (W, W) {
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

/// sin of quadrant `q` (k for sin, k + 1 for cos) at r = h + l: ±sin r or ±cos r.
#[inline(always)]
fn quadrant<L: Lanes>((h, l): (L, L), q: L::I) -> L {
    let (s, c) = kernels32(h, l);
    let v = L::select(bit::<L>(q, 1), c, s);
    // quadrants 2 and 3 negate
    L::select(bit::<L>(q, 2), v.neg(), v)
}

/// The quadrant of sin's table for k: k for sin, k + 1 for cos.
#[inline(always)]
fn offset<L: Lanes, const COS: bool>(k: L::I) -> L::I {
    if COS {
        k.add(k.splat(1))
    } else {
        k
    }
}

/// sin (`COS` false) or cos (`COS` true) of x.
#[inline(always)]
fn sin_cos<L: Lanes, const COS: bool>(x: L) -> L {
    let (h, l, q) = reduce32(x);
    let v = quadrant((h, l), offset::<L, COS>(q));
    let v = if COS { v } else { keep_small(x, v) };
    or_wide(x, v, |x| {
        let (r, q) = reduce(x);
        let scalar = if COS { libm::cosf } else { libm::sinf };
        finish(x, quadrant(split::<L>(r), offset::<L, COS>(q)), scalar)
    })
}

/// sin x.
#[inline(always)]
pub(crate) fn sin<L: Lanes>(x: L) -> L {
    sin_cos::<L, false>(x)
}

/// cos x.
#[inline(always)]
pub(crate) fn cos<L: Lanes>(x: L) -> L {
    sin_cos::<L, true>(x)
}

/// tan x: sin r / cos r, or -cos r / sin r in odd quadrants, divided in f64 and rounded once.
#[inline(always)]
pub(crate) fn tan<L: Lanes>(x: L) -> L {
    let (r, q) = reduce(x);
    let (s, c) = kernels64(r);
    let (t, u) = (L::narrow(s.div(c)), L::narrow(c.div(s)));
    finish(
        x,
        keep_small(x, L::select(bit::<L>(q, 1), u.neg(), t)),
        libm::tanf,
    )
}
