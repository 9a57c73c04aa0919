//! 8-bit UNORM encoding, the one conversion every RGBA8 colour write makes: Vulkan's rule,
//! `round(clamp(v, 0, 1) · 255)` on the *exact* product, ties to even, NaN to 0, in a scalar
//! form and in vector forms that the rasterizer's colour kernels run per 4 or 8 lanes.
//!
//! The scalar form widens to f64, where `v · 255` is exact (24 + 8 bits). The vector forms
//! work in f32, one rounding of the product and a check, because widening costs as much as
//! the rest of a colour write:
//!
//! - **The fast step** computes `p = fl(v · 255)` in f32, `n = round(p)` to nearest even
//!   (`cvtps2dq`, the default rounding mode) and `d = p − n` (exact). The lanes are `n`,
//!   to be saturated to 0..=255 by the caller's saturating packs (`packssdw`/`packusdw`,
//!   `packuswb`), which also do the clamp: `v > 1` gives `p ≥ 255`, `v < 0` gives `p ≤ 0`,
//!   NaN gives `0x8000_0000`, all saturating to the right byte.
//! - **Why `n` is exact when `|d| < 0.5`.** Let `e = v · 255` exactly. Rounding to f32 is
//!   monotone and `n ± 0.5` are f32 values (|n| < 2^23), so `e ≥ n + 0.5` would give
//!   `p = fl(e) ≥ n + 0.5`, and `e ≤ n − 0.5` would give `p ≤ n − 0.5`; both contradict
//!   `|p − n| < 0.5`. So `e` lies strictly between `n − 0.5` and `n + 0.5`, and `n` is its
//!   nearest integer, which is what the exact rule gives before the clamp (and the clamp is
//!   the saturation). Where `p` is beyond i32, `cvtps2dq` gives `0x8000_0000` and `d` is
//!   huge; a NaN `p` gives a NaN `d`.
//! - **The check.** The fast steps fold `|d|` into a running maximum (`maxps` with the
//!   running value as its second operand, so NaN lanes, already right, leave it alone).
//!   Only a product exactly on a half-integer (`f32` may have rounded `e` onto it from either
//!   side) or out of i32's range makes it ≥ 0.5; the kernel then runs its vectors again with
//!   the **exact step**, the f64 product rounded by `cvtpd2dq`. A product lands on a
//!   half-integer about once in 2^16 random values, and for `v = 0.5` (the one exact tie).
//!
//! So a kernel is written once, generic over `EXACT`, and run as
//! `fast, and exact again if the maximum reached 0.5`; both forms, the plain SSE2 one and the
//! AVX2 one, do the same operations per lane, and all give the scalar form's bytes (tests:
//! every f32 bit pattern, `#[ignore]`d for its time, and a dense sample in the normal suite).

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;
use wide::{f32x4, i32x4};

/// 2^52: added to and taken from a non-negative f64 below 2^51, it rounds to an integer,
/// ties to even (the default rounding mode).
const ROUND_F64: f64 = 4_503_599_627_370_496.0;

/// An 8-bit UNORM component, exactly: clamped to [0, 1] (NaN stays NaN), widened to f64
/// where the product with 255 is exact, rounded by adding and taking away 2^52, and NaN
/// converted to 0 by `as`.
#[inline]
pub fn unorm8(v: f32) -> u8 {
    let x = v.clamp(0.0, 1.0) as f64;
    ((x * 255.0 + ROUND_F64) - ROUND_F64) as u8
}

/// The running maximum of `|d|` of the fast steps over 4 lanes; starts at zero.
pub(crate) type Worst4 = f32x4;

/// Whether a fast step folded into `worst` met a lane it cannot round (see the module doc):
/// then the kernel's vectors are to be converted again with `EXACT`.
#[inline(always)]
pub(crate) fn unorm8_redo(worst: Worst4) -> bool {
    worst.simd_ge(f32x4::splat(0.5)).any()
}

/// [`unorm8`] on four values, as i32 lanes that saturate to the bytes (see the module doc):
/// the fast step, folding `|d|` into `worst`, or with `EXACT` the exact step (`worst`
/// untouched). Plain SSE2.
#[inline(always)]
pub(crate) fn unorm8_x4<const EXACT: bool>(v: f32x4, worst: &mut Worst4) -> i32x4 {
    #[cfg(target_arch = "x86_64")]
    {
        use wide::bytemuck::cast;
        let v: __m128 = cast(v);
        // SAFETY: SSE2 is part of x86-64
        let n = unsafe {
            if EXACT {
                // `minps` gives its second operand when either is NaN: NaN stays NaN
                let x = _mm_min_ps(_mm_set1_ps(1.0), v);
                let k = _mm_set1_pd(255.0);
                let lo = _mm_cvtpd_epi32(_mm_mul_pd(_mm_cvtps_pd(x), k));
                let hi = _mm_cvtpd_epi32(_mm_mul_pd(_mm_cvtps_pd(_mm_movehl_ps(x, x)), k));
                _mm_unpacklo_epi64(lo, hi)
            } else {
                let p = _mm_mul_ps(v, _mm_set1_ps(255.0));
                let n = _mm_cvtps_epi32(p);
                let d = _mm_andnot_ps(_mm_set1_ps(-0.0), _mm_sub_ps(p, _mm_cvtepi32_ps(n)));
                *worst = cast(_mm_max_ps(d, cast(*worst)));
                n
            }
        };
        cast(n)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = worst;
        i32x4::from(v.to_array().map(|x| unorm8(x) as i32))
    }
}

/// The running maximum of `|d|` of the fast steps over 8 lanes; starts at zero.
#[cfg(target_arch = "x86_64")]
pub(crate) type Worst8 = __m256;

/// [`unorm8_redo`] for [`unorm8_x8_avx2`]'s maximum.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) fn unorm8_redo_avx2(worst: Worst8) -> bool {
    _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_GE_OQ>(worst, _mm256_set1_ps(0.5))) != 0
}

/// [`unorm8_x4`] on eight lanes with AVX2: the same operations per lane.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) fn unorm8_x8_avx2<const EXACT: bool>(v: __m256, worst: &mut Worst8) -> __m256i {
    if EXACT {
        let x = _mm256_min_ps(_mm256_set1_ps(1.0), v);
        let k = _mm256_set1_pd(255.0);
        let r = |h: __m128| _mm256_cvtpd_epi32(_mm256_mul_pd(_mm256_cvtps_pd(h), k));
        let (lo, hi) = (
            r(_mm256_castps256_ps128(x)),
            r(_mm256_extractf128_ps::<1>(x)),
        );
        _mm256_set_m128i(hi, lo)
    } else {
        let p = _mm256_mul_ps(v, _mm256_set1_ps(255.0));
        let n = _mm256_cvtps_epi32(p);
        let d = _mm256_sub_ps(p, _mm256_cvtepi32_ps(n));
        let d = _mm256_andnot_ps(_mm256_set1_ps(-0.0), d);
        *worst = _mm256_max_ps(d, *worst);
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The exact rule, written for the tests only: the f64 product (exact) compared with the
    /// half-way point by hand, ties to even.
    fn reference(v: f32) -> u8 {
        if v.is_nan() {
            return 0;
        }
        let e = (v as f64).clamp(0.0, 1.0) * 255.0;
        let f = e.floor();
        let r = match (e - f).partial_cmp(&0.5).unwrap() {
            std::cmp::Ordering::Less => f,
            std::cmp::Ordering::Greater => f + 1.0,
            std::cmp::Ordering::Equal if f % 2.0 == 0.0 => f,
            std::cmp::Ordering::Equal => f + 1.0,
        };
        r as u8
    }

    /// i32 lanes saturated to a byte, as the kernels' packs do.
    fn sat(n: i32) -> u8 {
        n.clamp(0, 255) as u8
    }

    /// The four-lane form as a kernel runs it: fast, and exact again when told to.
    fn x4(v: [f32; 4]) -> [u8; 4] {
        let mut worst = Worst4::ZERO;
        let n = unorm8_x4::<false>(f32x4::from(v), &mut worst);
        let n = match unorm8_redo(worst) {
            true => unorm8_x4::<true>(f32x4::from(v), &mut worst),
            false => n,
        };
        n.to_array().map(sat)
    }

    /// The eight-lane AVX2 form likewise, when the CPU has AVX2.
    #[cfg(target_arch = "x86_64")]
    fn x8(v: [f32; 8]) -> Option<[u8; 8]> {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return None;
        }
        #[target_feature(enable = "avx2")]
        fn run(v: [f32; 8]) -> [i32; 8] {
            use wide::bytemuck::cast;
            let mut worst = _mm256_setzero_ps();
            let n = unorm8_x8_avx2::<false>(cast(v), &mut worst);
            let n = match unorm8_redo_avx2(worst) {
                true => unorm8_x8_avx2::<true>(cast(v), &mut worst),
                false => n,
            };
            cast(n)
        }
        // SAFETY: the CPU has AVX2 (checked above)
        Some(unsafe { run(v) }.map(sat))
    }

    /// Every form against the reference on `values` (whole chunks of 8).
    fn check(values: &[f32]) {
        for c in values.chunks_exact(8) {
            let want: [u8; 8] = std::array::from_fn(|i| reference(c[i]));
            for (i, &v) in c.iter().enumerate() {
                assert_eq!(unorm8(v), want[i], "scalar {v:e} ({:#x})", v.to_bits());
            }
            let lo = x4([c[0], c[1], c[2], c[3]]);
            let hi = x4([c[4], c[5], c[6], c[7]]);
            assert_eq!([lo, hi].concat(), want, "x4 {c:?}");
            #[cfg(target_arch = "x86_64")]
            if let Some(got) = x8(c.try_into().unwrap()) {
                assert_eq!(got, want, "avx2 {c:?}");
            }
        }
    }

    /// The special values, every half-way point `(k + 0.5) / 255` and exact `k / 255` with
    /// the f32 values within 8 ulps of them (where an f32 product rounds onto or across the
    /// half-way point), and a strided sweep over all bit patterns.
    #[test]
    fn every_form_is_exact_on_a_dense_sample() {
        let mut values = vec![
            f32::NAN,
            -f32::NAN,
            f32::from_bits(0x7f80_0001),
            f32::INFINITY,
            f32::NEG_INFINITY,
            0.0,
            -0.0,
            0.5,
            1.0,
            -1.0,
            2.0,
            f32::MIN_POSITIVE,
            f32::from_bits(1),
            f32::MAX,
            f32::MIN,
            2147483520.0 / 255.0,
            2147483648.0 / 255.0,
            -2147483648.0 / 255.0,
            8388608.0 / 255.0,
        ];
        for k in 0..=256u32 {
            for centre in [(k as f64 + 0.5) / 255.0, k as f64 / 255.0] {
                for sign in [1.0, -1.0] {
                    let b = ((centre * sign) as f32).to_bits() as i64;
                    for d in -8..=8i64 {
                        values.push(f32::from_bits((b + d).clamp(0, u32::MAX as i64) as u32));
                    }
                }
            }
        }
        values.extend((0..=u32::MAX).step_by(4093).map(f32::from_bits));
        let mut rng = fastrand::Rng::with_seed(0x5eed_0008);
        values.extend((0..1 << 16).map(|_| rng.f32()));
        while values.len() % 8 != 0 {
            values.push(0.5);
        }
        // the f32 rule `v * 255 + 0.5` truncated misrounds some of these: the test can tell
        let f32_rule = |v: f32| (v * 255.0 + 0.5) as u8;
        assert!(values.iter().any(|&v| f32_rule(v) != reference(v)));
        // and the fast step alone misrounds some: the exact step is exercised
        assert!(values.chunks_exact(4).any(|c| {
            let mut worst = Worst4::ZERO;
            let n = unorm8_x4::<false>(f32x4::from([c[0], c[1], c[2], c[3]]), &mut worst);
            n.to_array()
                .iter()
                .zip(c)
                .any(|(&n, &v)| sat(n) != reference(v))
        }));
        check(&values);
    }

    /// Every f32 bit pattern through every form, against the reference (about a minute on
    /// two cores: `cargo test --release --lib format::unorm8 -- --ignored`).
    #[test]
    #[ignore = "every f32: run by hand"]
    fn every_form_is_exact_on_every_f32() {
        use rayon::prelude::*;
        (0..1u64 << 16).into_par_iter().for_each(|hi| {
            let values: Vec<f32> = (0..1u32 << 16)
                .map(|lo| f32::from_bits((hi as u32) << 16 | lo))
                .collect();
            check(&values);
        });
    }
}
