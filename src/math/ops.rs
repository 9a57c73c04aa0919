//! The functions as types, for loops that run one function over rows of lanes in whichever
//! lane form the CPU has (the interpreter's kernels): `Unary<L>` / `Binary<L>` for every lane
//! type `L` the function is written over.

use super::lanes::{Float, Lanes};

/// A function of one operand over lanes `L`.
pub(crate) trait Unary<L> {
    fn apply(x: L) -> L;
}

/// A function of two operands over lanes `L`.
pub(crate) trait Binary<L> {
    fn apply(x: L, y: L) -> L;
}

macro_rules! unary {
    ($bound:ident: $($name:ident => $f:path),* $(,)?) => {
        $(
            #[doc = concat!("[`", stringify!($f), "`]")]
            pub(crate) struct $name;
            impl<L: $bound> Unary<L> for $name {
                #[inline(always)]
                fn apply(x: L) -> L {
                    $f(x)
                }
            }
        )*
    };
}

unary!(Float:
    Floor => super::floor,
    Ceil => super::ceil,
    Trunc => super::trunc,
    Round => super::round,
    RoundEven => super::round_even,
    Fract => super::fract,
    Sqrt => super::sqrt,
    InverseSqrt => super::inversesqrt,
);
unary!(Lanes:
    Exp => super::exp,
    Exp2 => super::exp2,
    Log => super::log,
    Log2 => super::log2,
    Sin => super::sin,
    Cos => super::cos,
    Tan => super::tan,
    Asin => super::asin,
    Acos => super::acos,
    Atan => super::atan,
    Sinh => super::sinh,
    Cosh => super::cosh,
    Tanh => super::tanh,
    Asinh => super::asinh,
    Acosh => super::acosh,
    Atanh => super::atanh,
);

/// [`super::pow`]
pub(crate) struct Pow;
impl<L: Lanes> Binary<L> for Pow {
    #[inline(always)]
    fn apply(x: L, y: L) -> L {
        super::pow(x, y)
    }
}

/// [`super::atan2`] (`y` first, as SPIR-V's `Atan2` and C's `atan2`)
pub(crate) struct Atan2;
impl<L: Lanes> Binary<L> for Atan2 {
    #[inline(always)]
    fn apply(y: L, x: L) -> L {
        super::atan2(y, x)
    }
}
