//! The x86-64 vector lane types: four lanes of SSE2 ([`F4`], [`D2`] pairs, [`I4`]), the
//! baseline every x86-64 CPU has, and eight of AVX2 ([`F8`], [`D4`] pairs, [`I8`]).
//!
//! Each method is one instruction (select and the SSE2 compares of integers two). They are
//! `#[inline(always)]` functions without a `target_feature` of their own: inlined into a
//! function compiled with `#[target_feature(enable = "avx2")]` they become VEX-encoded AVX2
//! code, and the 256-bit intrinsics are only ever inlined into such functions. A value of an
//! AVX2 type is made only by [`Float::load`] (unsafe: the caller promises AVX2) or from another
//! such value, which is the argument every `unsafe` block below rests on. The SSE2 types need
//! no promise: SSE2 is part of x86-64.
//!
//! Only `round` differs in kind between the two widths: AVX2 CPUs have SSE4.1's `roundps`,
//! the SSE2 types use the software form (`super::round`), which gives the same bits.

use super::lanes::{Float, Ints, Lanes, Mask, Pair};
use std::arch::x86_64::*;

macro_rules! mask_vec {
    ($M:ident, $v:ty, $n:expr, $and:ident, $or:ident, $xor:ident, $andnot:ident, $movemask:ident) => {
        /// A lane mask (all ones or all zeros per lane).
        #[derive(Clone, Copy)]
        pub(crate) struct $M($v);
        impl Mask for $M {
            #[inline(always)]
            fn and(self, o: Self) -> Self {
                // SAFETY: see the module comment (this type exists only where it runs).
                $M(unsafe { $and(self.0, o.0) })
            }
            #[inline(always)]
            fn or(self, o: Self) -> Self {
                // SAFETY: as above
                $M(unsafe { $or(self.0, o.0) })
            }
            #[inline(always)]
            fn and_not(self, o: Self) -> Self {
                // SAFETY: as above
                $M(unsafe { $andnot(o.0, self.0) })
            }
            #[inline(always)]
            fn xor(self, o: Self) -> Self {
                // SAFETY: as above
                $M(unsafe { $xor(self.0, o.0) })
            }
            #[inline(always)]
            fn any(self) -> bool {
                // SAFETY: as above
                unsafe { $movemask(self.0) != 0 }
            }
            #[inline(always)]
            fn bits(self) -> u32 {
                // SAFETY: as above
                unsafe { $movemask(self.0) as u32 }
            }
            const LANES: u32 = $n;
        }
    };
}

macro_rules! float_vec {
    (
        $F:ident, $M:ident, $v:ty, $s:ty, $n:expr, $doc:literal,
        $loadu:ident, $storeu:ident, $set1:ident, $round:tt,
        $add:ident, $sub:ident, $mul:ident, $div:ident, $sqrt:ident,
        $and:ident, $or:ident, $xor:ident, $andnot:ident, $min:ident, $max:ident,
        $lt:expr, $le:expr, $eq:expr, $ne:expr, $select:expr
    ) => {
        #[doc = $doc]
        #[derive(Clone, Copy)]
        pub(crate) struct $F(pub(crate) $v);

        impl Float for $F {
            type S = $s;
            type M = $M;
            const N: usize = $n;
            #[inline(always)]
            unsafe fn load(s: &[$s]) -> Self {
                let s = &s[..$n];
                // SAFETY: `s` holds N elements (unaligned load); the CPU runs the instruction
                // (the caller's promise).
                $F(unsafe { $loadu(s.as_ptr()) })
            }
            #[inline(always)]
            fn store(self, s: &mut [$s]) {
                let s = &mut s[..$n];
                // SAFETY: `s` holds N elements; this type exists only where it runs.
                unsafe { $storeu(s.as_mut_ptr(), self.0) }
            }
            #[inline(always)]
            unsafe fn load_bits(s: &[<$s as super::lanes::Scalar>::Bits]) -> Self {
                let s = &s[..$n];
                // SAFETY: as `load` (the encodings have the values' size; unaligned load)
                $F(unsafe { $loadu(s.as_ptr().cast()) })
            }
            #[inline(always)]
            fn store_bits(self, s: &mut [<$s as super::lanes::Scalar>::Bits]) {
                let s = &mut s[..$n];
                // SAFETY: as `store`
                unsafe { $storeu(s.as_mut_ptr().cast(), self.0) }
            }
            #[inline(always)]
            fn splat(self, v: $s) -> Self {
                // SAFETY: this type exists only where it runs (the module comment)
                $F(unsafe { $set1(v) })
            }
            #[inline(always)]
            fn splat_bits(self, b: <$s as super::lanes::Scalar>::Bits) -> Self {
                self.splat(<$s>::from_bits(b))
            }
            float_vec!(@bin $F, add $add, sub $sub, mul $mul, div $div, and $and, or $or,
                xor $xor, min $min, max $max);
            #[inline(always)]
            fn and_not(self, o: Self) -> Self {
                // SAFETY: as above
                $F(unsafe { $andnot(o.0, self.0) })
            }
            #[inline(always)]
            fn sqrt(self) -> Self {
                // SAFETY: as above
                $F(unsafe { $sqrt(self.0) })
            }
            float_vec!(@cmp $M, lt $lt, le $le, eq $eq, ne $ne);
            #[inline(always)]
            fn select(m: $M, a: Self, b: Self) -> Self {
                // SAFETY: as above
                $F(unsafe { ($select)(m.0, a.0, b.0) })
            }
            float_vec!(@round $F, $round);
        }
    };
    (@bin $F:ident, $($op:ident $i:ident),*) => {
        $(
            #[inline(always)]
            fn $op(self, o: Self) -> Self {
                // SAFETY: this type exists only where it runs (the module comment)
                $F(unsafe { $i(self.0, o.0) })
            }
        )*
    };
    (@cmp $M:ident, $($op:ident $e:expr),*) => {
        $(
            #[inline(always)]
            fn $op(self, o: Self) -> $M {
                // SAFETY: this type exists only where it runs (the module comment)
                $M(unsafe { ($e)(self.0, o.0) })
            }
        )*
    };
    (@round $F:ident, soft) => {};
    (@round $F:ident, $round:tt) => {
        #[inline(always)]
        fn round<const MODE: i32>(self) -> Self {
            // SAFETY: an AVX2 type exists only where it runs, and AVX2 CPUs have SSE4.1/AVX's
            // `roundps`/`roundpd` (MODE is one of `lanes::{NEAREST, FLOOR, CEIL, TRUNC}`).
            $F(unsafe { ($round)(self.0) })
        }
    };
}

mask_vec!(
    M4,
    __m128,
    4,
    _mm_and_ps,
    _mm_or_ps,
    _mm_xor_ps,
    _mm_andnot_ps,
    _mm_movemask_ps
);
mask_vec!(
    MD2,
    __m128d,
    2,
    _mm_and_pd,
    _mm_or_pd,
    _mm_xor_pd,
    _mm_andnot_pd,
    _mm_movemask_pd
);
mask_vec!(
    M8,
    __m256,
    8,
    _mm256_and_ps,
    _mm256_or_ps,
    _mm256_xor_ps,
    _mm256_andnot_ps,
    _mm256_movemask_ps
);
mask_vec!(
    MD4,
    __m256d,
    4,
    _mm256_and_pd,
    _mm256_or_pd,
    _mm256_xor_pd,
    _mm256_andnot_pd,
    _mm256_movemask_pd
);

#[inline(always)]
unsafe fn sel_ps(m: __m128, a: __m128, b: __m128) -> __m128 {
    // SAFETY: SSE2 (baseline)
    unsafe { _mm_or_ps(_mm_and_ps(m, a), _mm_andnot_ps(m, b)) }
}
#[inline(always)]
unsafe fn sel_pd(m: __m128d, a: __m128d, b: __m128d) -> __m128d {
    // SAFETY: SSE2 (baseline)
    unsafe { _mm_or_pd(_mm_and_pd(m, a), _mm_andnot_pd(m, b)) }
}

float_vec!(
    F4,
    M4,
    __m128,
    f32,
    4,
    "Four f32 lanes (SSE2).",
    _mm_loadu_ps,
    _mm_storeu_ps,
    _mm_set1_ps,
    soft,
    _mm_add_ps,
    _mm_sub_ps,
    _mm_mul_ps,
    _mm_div_ps,
    _mm_sqrt_ps,
    _mm_and_ps,
    _mm_or_ps,
    _mm_xor_ps,
    _mm_andnot_ps,
    _mm_min_ps,
    _mm_max_ps,
    _mm_cmplt_ps,
    _mm_cmple_ps,
    _mm_cmpeq_ps,
    _mm_cmpneq_ps,
    sel_ps
);
float_vec!(
    D2,
    MD2,
    __m128d,
    f64,
    2,
    "Two f64 lanes (SSE2).",
    _mm_loadu_pd,
    _mm_storeu_pd,
    _mm_set1_pd,
    soft,
    _mm_add_pd,
    _mm_sub_pd,
    _mm_mul_pd,
    _mm_div_pd,
    _mm_sqrt_pd,
    _mm_and_pd,
    _mm_or_pd,
    _mm_xor_pd,
    _mm_andnot_pd,
    _mm_min_pd,
    _mm_max_pd,
    _mm_cmplt_pd,
    _mm_cmple_pd,
    _mm_cmpeq_pd,
    _mm_cmpneq_pd,
    sel_pd
);
float_vec!(
    F8,
    M8,
    __m256,
    f32,
    8,
    "Eight f32 lanes (AVX2).",
    _mm256_loadu_ps,
    _mm256_storeu_ps,
    _mm256_set1_ps,
    (_mm256_round_ps::<MODE>),
    _mm256_add_ps,
    _mm256_sub_ps,
    _mm256_mul_ps,
    _mm256_div_ps,
    _mm256_sqrt_ps,
    _mm256_and_ps,
    _mm256_or_ps,
    _mm256_xor_ps,
    _mm256_andnot_ps,
    _mm256_min_ps,
    _mm256_max_ps,
    _mm256_cmp_ps::<_CMP_LT_OQ>,
    _mm256_cmp_ps::<_CMP_LE_OQ>,
    _mm256_cmp_ps::<_CMP_EQ_OQ>,
    _mm256_cmp_ps::<_CMP_NEQ_UQ>,
    |m, a, b| _mm256_blendv_ps(b, a, m)
);
float_vec!(
    D4,
    MD4,
    __m256d,
    f64,
    4,
    "Four f64 lanes (AVX2).",
    _mm256_loadu_pd,
    _mm256_storeu_pd,
    _mm256_set1_pd,
    (_mm256_round_pd::<MODE>),
    _mm256_add_pd,
    _mm256_sub_pd,
    _mm256_mul_pd,
    _mm256_div_pd,
    _mm256_sqrt_pd,
    _mm256_and_pd,
    _mm256_or_pd,
    _mm256_xor_pd,
    _mm256_andnot_pd,
    _mm256_min_pd,
    _mm256_max_pd,
    _mm256_cmp_pd::<_CMP_LT_OQ>,
    _mm256_cmp_pd::<_CMP_LE_OQ>,
    _mm256_cmp_pd::<_CMP_EQ_OQ>,
    _mm256_cmp_pd::<_CMP_NEQ_UQ>,
    |m, a, b| _mm256_blendv_pd(b, a, m)
);

macro_rules! int_vec {
    (
        $I:ident, $F:ident, $M:ident, $v:ty, $doc:literal,
        $set1:ident, $cast_ps:ident, $cvt:ident, $add:ident, $sub:ident, $and:ident,
        $slli:ident, $srai:ident, $cmpeq:ident, $cmpgt:ident
    ) => {
        #[doc = $doc]
        #[derive(Clone, Copy)]
        pub(crate) struct $I($v);
        impl Ints for $I {
            type F = $F;
            #[inline(always)]
            fn splat(self, v: i32) -> Self {
                // SAFETY: this type exists only where it runs (the module comment)
                $I(unsafe { $set1(v) })
            }
            #[inline(always)]
            fn float(self) -> $F {
                // SAFETY: as above
                $F(unsafe { $cast_ps(self.0) })
            }
            #[inline(always)]
            fn to_f32(self) -> $F {
                // SAFETY: as above
                $F(unsafe { $cvt(self.0) })
            }
            int_vec!(@bin $I, add $add, sub $sub, and $and);
            #[inline(always)]
            fn shl<const B: i32>(self) -> Self {
                // SAFETY: as above
                $I(unsafe { $slli::<B>(self.0) })
            }
            #[inline(always)]
            fn shr<const B: i32>(self) -> Self {
                // SAFETY: as above
                $I(unsafe { $srai::<B>(self.0) })
            }
            #[inline(always)]
            fn eq(self, o: Self) -> $M {
                // SAFETY: as above
                $M(unsafe { $cast_ps($cmpeq(self.0, o.0)) })
            }
            #[inline(always)]
            fn gt(self, o: Self) -> $M {
                // SAFETY: as above
                $M(unsafe { $cast_ps($cmpgt(self.0, o.0)) })
            }
        }
    };
    (@bin $I:ident, $($op:ident $i:ident),*) => {
        $(
            #[inline(always)]
            fn $op(self, o: Self) -> Self {
                // SAFETY: this type exists only where it runs (the module comment)
                $I(unsafe { $i(self.0, o.0) })
            }
        )*
    };
}

int_vec!(
    I4,
    F4,
    M4,
    __m128i,
    "Four i32 lanes (SSE2).",
    _mm_set1_epi32,
    _mm_castsi128_ps,
    _mm_cvtepi32_ps,
    _mm_add_epi32,
    _mm_sub_epi32,
    _mm_and_si128,
    _mm_slli_epi32,
    _mm_srai_epi32,
    _mm_cmpeq_epi32,
    _mm_cmpgt_epi32
);
int_vec!(
    I8,
    F8,
    M8,
    __m256i,
    "Eight i32 lanes (AVX2).",
    _mm256_set1_epi32,
    _mm256_castsi256_ps,
    _mm256_cvtepi32_ps,
    _mm256_add_epi32,
    _mm256_sub_epi32,
    _mm256_and_si256,
    _mm256_slli_epi32,
    _mm256_srai_epi32,
    _mm256_cmpeq_epi32,
    _mm256_cmpgt_epi32
);

impl Lanes for F4 {
    type I = I4;
    type W = Pair<D2>;
    #[inline(always)]
    fn bits(self) -> I4 {
        // SAFETY: SSE2 (baseline)
        I4(unsafe { _mm_castps_si128(self.0) })
    }
    #[inline(always)]
    fn widen(self) -> Pair<D2> {
        // SAFETY: SSE2 (baseline)
        unsafe {
            Pair(
                D2(_mm_cvtps_pd(self.0)),
                D2(_mm_cvtps_pd(_mm_movehl_ps(self.0, self.0))),
            )
        }
    }
    #[inline(always)]
    fn narrow(w: Pair<D2>) -> F4 {
        // SAFETY: SSE2 (baseline)
        F4(unsafe { _mm_movelh_ps(_mm_cvtpd_ps(w.0 .0), _mm_cvtpd_ps(w.1 .0)) })
    }
}

impl Lanes for F8 {
    type I = I8;
    type W = Pair<D4>;
    #[inline(always)]
    fn bits(self) -> I8 {
        // SAFETY: an AVX2 type exists only where it runs (the module comment)
        I8(unsafe { _mm256_castps_si256(self.0) })
    }
    #[inline(always)]
    fn widen(self) -> Pair<D4> {
        // SAFETY: as above
        unsafe {
            Pair(
                D4(_mm256_cvtps_pd(_mm256_castps256_ps128(self.0))),
                D4(_mm256_cvtps_pd(_mm256_extractf128_ps::<1>(self.0))),
            )
        }
    }
    #[inline(always)]
    fn narrow(w: Pair<D4>) -> F8 {
        // SAFETY: as above (a `Pair<D4>` is made from AVX2 values too)
        F8(unsafe {
            _mm256_insertf128_ps::<1>(
                _mm256_castps128_ps256(_mm256_cvtpd_ps(w.0 .0)),
                _mm256_cvtpd_ps(w.1 .0),
            )
        })
    }
}
