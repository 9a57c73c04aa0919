//! quadstep's own floating-point functions: the transcendentals of GLSL.std.450 and exact
//! rounding, written once over lane types and giving the same bits in every form.
//!
//! Each function is generic over [`Lanes`] (f32) or [`Float`] (f32 or f64): the scalars `f32`
//! and `f64`, four lanes of SSE2 and eight of AVX2 ([`x86`]). The code is straight-line IEEE
//! arithmetic — add, sub, mul, div and sqrt, each correctly rounded on every form, never
//! fused (FMA is not enabled anywhere), in the order written — plus compares, selects and
//! bit operations on the encodings. So the scalar, SSE2 and AVX2 forms give the same bits on
//! every x86-64 CPU, which libm does not promise (glibc picks FMA or non-FMA variants of
//! `sinf`, `expf`, … at run time). Rounding is the one place with two implementations
//! (`roundps` where the CPU has SSE4.1, software elsewhere); the tests hold them to each other
//! and to Rust's `f32::floor` & co. Lanes that a vector form does not cover (sin, cos, tan of
//! |x| >= 2^22, ±∞ and NaN) take a scalar path lane by lane, chosen by each lane's own value,
//! so no result depends on its neighbours or on the vector width.
//!
//! | module | holds |
//! | --- | --- |
//! | `lanes` | the lane traits and the scalar lane types |
//! | `x86` | the SSE2 and AVX2 lane types |
//! | `round` | floor, ceil, trunc, round, round_even, fract |
//! | `poly` | polynomials, integer rounding, scaling by 2^n |
//! | `exp` | exp2, exp, log2, log, pow (and log1p) |
//! | `trig` | sin, cos, tan |
//! | `arc` | atan, atan2, asin, acos |
//! | `hyper` | sinh, cosh, tanh, asinh, acosh, atanh |
//! | `ops` | the functions as types, for lane loops |
//!
//! The algorithms and most coefficients are the classic single-precision ones (Cephes'
//! `*f` functions, FreeBSD's `logf`/`log2f`/`log1pf` and inverse hyperbolics), rearranged
//! to be branch-free; each file says which.
//!
//! **Special values** follow C99 Annex F (IEEE 754), the strictest reading of GLSL.std.450,
//! which leaves most of them undefined: NaN in gives the same NaN out (made quiet), domain
//! errors give NaN (log of a negative, asin beyond ±1, pow of a negative to a non-integer),
//! poles give ±∞ (log 0, atanh ±1), signed zeros keep their sign where C says (sin, tan,
//! asin, atan, sinh, tanh, asinh, atanh of ±0), pow and atan2 take C's whole table, and
//! results that underflow or overflow are rounded into the subnormals or to ∞.
//!
//! **f16** values go through the f32 functions and are rounded to f16 once at the end (the
//! interpreter's `FTy for H`). **f64**: GLSL.std.450 defines these functions for 16- and
//! 32-bit floats only (sqrt, inversesqrt and the rounding functions excepted); where an f64
//! transcendental reaches the interpreter anyway it uses the `libm` crate (musl's double
//! functions, < 1 ULP, plain Rust compiled without FMA: the same bits on every machine),
//! lane by lane. The f64 rounding functions are here, as above.
//!
//! **Precision** (`tests::within_stated_ulps_over_a_dense_sample`, which prints each function's
//! worst case with `--nocapture`; pow and atan2 on 2M random pairs):
//!
//! | function | max error against f64 libm rounded to f32 (dense sample, ~1.4M inputs over every exponent and sign) |
//! | --- | --- |
//! | sqrt, floor, ceil, trunc, round, round_even, fract | 0 ULP (correctly rounded / exact) |
//! | exp2, exp, log2, log, sin, cos, inversesqrt, pow | ≤ 1 ULP |
//! | tan, asin, acos, atan, atan2, sinh, cosh, tanh, asinh, acosh, atanh | ≤ 2 ULP |
//!
//! `tests::within_the_vulkan_precision_requirements` checks Vulkan's own bounds (sin and cos
//! within 2^-11 absolute on [-π, π], log and log2 within 2^-21 absolute on [0.5, 2], …). The
//! `#[ignore]`d `tests::exhaustive` asserts the ULP bounds above on all 2^32 inputs.

pub(crate) mod lanes;
pub(crate) mod ops;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86;

mod arc;
mod exp;
mod hyper;
mod poly;
mod round;
mod trig;

#[cfg(test)]
mod tests;

pub(crate) use arc::{acos, asin, atan, atan2};
pub(crate) use exp::{exp, exp2, log, log2, pow};
pub(crate) use hyper::{acosh, asinh, atanh, cosh, sinh, tanh};
pub(crate) use lanes::Float;
pub(crate) use round::{ceil, floor, fract, round, round_even, trunc};
pub(crate) use trig::{cos, sin, tan};

use lanes::Scalar;

/// √x (correctly rounded).
#[inline(always)]
pub(crate) fn sqrt<L: Float>(x: L) -> L {
    x.sqrt()
}

/// 1/√x: two correctly rounded operations (never `rsqrtps`, whose approximation differs
/// between CPU vendors).
#[inline(always)]
pub(crate) fn inversesqrt<L: Float>(x: L) -> L {
    x.splat(L::S::of(1.0)).div(x.sqrt())
}
