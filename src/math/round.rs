//! Rounding to integral values: `floor`, `ceil`, `trunc`, `round` (halves away from zero),
//! `round_even` and `fract`, for f32 and f64 lanes alike.
//!
//! The AVX2 lane types round with one `roundps`/`roundpd`; the others (scalars, SSE2) with
//! [`soft`], which gives the same bits: below 2^23 (2^52) in magnitude, adding and taking away
//! 2^23 rounds |x| to the nearest even integer exactly, and one compare steps it to the
//! wanted neighbour; the sign is put back last, so -0.0 and the negative values that round to
//! zero keep it. Larger values, infinities and NaNs pass unchanged, a signalling NaN made
//! quiet (its payload kept), as `roundps` does. Rust's saturating `as i32` casts, which the
//! vector forms cannot do in one instruction, appear nowhere.

use super::lanes::{Float, Scalar, CEIL, FLOOR, NEAREST, TRUNC};

/// The software form of [`Float::round`].
#[inline(always)]
pub(crate) fn soft<L: Float, const MODE: i32>(x: L) -> L {
    let one = x.splat(L::S::of(1.0));
    let zero = x.splat(L::S::of(0.0));
    let big = x.splat(L::S::INTEGRAL);
    let a = x.abs();
    // |x| to the nearest integer, ties to even (exact: below 2^M the sum's last bit is 1)
    let even = a.add(big).sub(big);
    let r = even.copysign(x);
    let v = match MODE {
        NEAREST => r,
        FLOOR => r.sub(L::select(x.lt(r), one, zero)),
        CEIL => r.add(L::select(r.lt(x), one, zero)),
        TRUNC => even.sub(L::select(a.lt(even), one, zero)),
        _ => unreachable!("rounding mode {MODE}"),
    };
    let quiet = L::select(x.is_nan(), x.or(x.splat_bits(L::S::QUIET)), x);
    L::select(a.lt(big), v.copysign(x), quiet)
}

/// The largest integral value not above `x`.
#[inline(always)]
pub(crate) fn floor<L: Float>(x: L) -> L {
    x.round::<FLOOR>()
}

/// The smallest integral value not below `x`.
#[inline(always)]
pub(crate) fn ceil<L: Float>(x: L) -> L {
    x.round::<CEIL>()
}

/// `x` with its fraction dropped.
#[inline(always)]
pub(crate) fn trunc<L: Float>(x: L) -> L {
    x.round::<TRUNC>()
}

/// The nearest integral value, ties to even (GLSL `roundEven`).
#[inline(always)]
pub(crate) fn round_even<L: Float>(x: L) -> L {
    x.round::<NEAREST>()
}

/// The nearest integral value, ties away from zero (GLSL `round` leaves the direction of
/// ties to the implementation; this is C's `round`, Rust's `f32::round`).
#[inline(always)]
pub(crate) fn round<L: Float>(x: L) -> L {
    let t = x.round::<TRUNC>();
    let ta = t.abs();
    // the dropped fraction, exact; NaN for ±∞ and NaN, which then pass as `t`
    let up = x.splat(L::S::of(0.5)).le(x.abs().sub(ta));
    let one = x.splat(L::S::of(1.0));
    ta.add(L::select(up, one, x.splat(L::S::of(0.0))))
        .copysign(x)
}

/// `x - floor(x)` (GLSL `fract`: 1.0 for tiny negative `x`, NaN for ±∞).
#[inline(always)]
pub(crate) fn fract<L: Float>(x: L) -> L {
    x.sub(floor(x))
}
