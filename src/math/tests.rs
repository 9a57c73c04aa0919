//! The math functions held to three things: each other (the scalar, SSE2 and AVX2 forms give
//! the same bits on the same inputs, whatever CPU runs the test: the AVX2 form where the CPU
//! has it), an independent reference (Rust's f64 functions — the platform libm — rounded to
//! f32: within the stated ULPs over a dense sample of the whole float range, and the
//! Vulkan/SPIR-V precision requirements), and C99's special values, written out by hand.
//! Rounding is held to Rust's `f32::floor` & co bit for bit.
//!
//! The `#[ignore]`d tests run every one of the 2^32 inputs (`cargo test --release --lib
//! math::tests::exhaustive -- --ignored --nocapture`, minutes per function): their figures are
//! the table in the module doc and the README.

use super::lanes::Float;
use super::ops::{self, Binary, Unary};
#[cfg(target_arch = "x86_64")]
use super::x86::{D2, D4, F4, F8};

/// A monotonic integer image of an f32 (±0 both 0), so ULP distance is a difference.
fn ord(x: f32) -> i64 {
    let b = x.to_bits();
    if b >> 31 == 1 {
        -((b & 0x7fff_ffff) as i64)
    } else {
        b as i64
    }
}

/// ULPs between `got` and the reference `want` (f64, rounded to f32 here); NaN must meet NaN.
fn ulps(got: f32, want: f64) -> u64 {
    let want = want as f32;
    match (got.is_nan(), want.is_nan()) {
        (true, true) => 0,
        (false, false) => ord(got).abs_diff(ord(want)),
        _ => u64::MAX,
    }
}

/// A unary function: our scalar form, the reference, the largest ULP error we state.
struct Case {
    name: &'static str,
    ours: fn(f32) -> f32,
    reference: fn(f64) -> f64,
    ulp: u64,
}

const CASES: &[Case] = &[
    Case {
        name: "exp2",
        ours: super::exp2,
        reference: f64::exp2,
        ulp: 1,
    },
    Case {
        name: "exp",
        ours: super::exp,
        reference: f64::exp,
        ulp: 1,
    },
    Case {
        name: "log2",
        ours: super::log2,
        reference: f64::log2,
        ulp: 1,
    },
    Case {
        name: "log",
        ours: super::log,
        reference: f64::ln,
        ulp: 1,
    },
    Case {
        name: "sin",
        ours: super::sin,
        reference: f64::sin,
        ulp: 1,
    },
    Case {
        name: "cos",
        ours: super::cos,
        reference: f64::cos,
        ulp: 1,
    },
    Case {
        name: "tan",
        ours: super::tan,
        reference: f64::tan,
        ulp: 2,
    },
    Case {
        name: "asin",
        ours: super::asin,
        reference: f64::asin,
        ulp: 2,
    },
    Case {
        name: "acos",
        ours: super::acos,
        reference: f64::acos,
        ulp: 2,
    },
    Case {
        name: "atan",
        ours: super::atan,
        reference: f64::atan,
        ulp: 2,
    },
    Case {
        name: "sinh",
        ours: super::sinh,
        reference: f64::sinh,
        ulp: 2,
    },
    Case {
        name: "cosh",
        ours: super::cosh,
        reference: f64::cosh,
        ulp: 2,
    },
    Case {
        name: "tanh",
        ours: super::tanh,
        reference: f64::tanh,
        ulp: 2,
    },
    Case {
        name: "asinh",
        ours: super::asinh,
        reference: f64::asinh,
        ulp: 2,
    },
    Case {
        name: "acosh",
        ours: super::acosh,
        reference: f64::acosh,
        ulp: 2,
    },
    Case {
        name: "atanh",
        ours: super::atanh,
        reference: f64::atanh,
        ulp: 2,
    },
    Case {
        name: "sqrt",
        ours: super::sqrt,
        reference: f64::sqrt,
        ulp: 0,
    },
    Case {
        name: "inversesqrt",
        ours: super::inversesqrt,
        reference: inversesqrt64,
        ulp: 1,
    },
];

fn inversesqrt64(x: f64) -> f64 {
    1.0 / x.sqrt()
}

/// The worst input of `case` over `inputs`: (ULPs, input).
fn worst(case: &Case, inputs: impl Iterator<Item = f32>) -> (u64, f32) {
    let mut w = (0, 0.0);
    for x in inputs {
        let e = ulps((case.ours)(x), (case.reference)(x as f64));
        if e > w.0 {
            w = (e, x);
        }
    }
    w
}

/// Every `step`-th encoding from `start` (both signs, all exponents).
fn sample(start: u32, step: u32) -> impl Iterator<Item = f32> {
    (0..u32::MAX / step).map(move |i| f32::from_bits(start.wrapping_add(i * step)))
}

/// Each unary function within its stated ULPs of the reference on ~1.4M inputs; `--nocapture`
/// prints each one's worst case.
#[test]
fn within_stated_ulps_over_a_dense_sample() {
    let mut bad = vec![];
    for case in CASES {
        // ~1M inputs over the whole range, plus every encoding of [0.5, 4) at a finer step
        let (e, x) = worst(case, sample(12_345, 4093));
        let (e2, x2) = worst(case, sample(0x3f00_0000, 61).take(400_000));
        let (e, x) = if e2 > e { (e2, x2) } else { (e, x) };
        println!(
            "{:12} max {e} ULP at {x:e} (stated {})",
            case.name, case.ulp
        );
        if e > case.ulp {
            bad.push(format!(
                "{}: {e} ULPs at {x:e} ({:#010x}): got {:e}, want {:e}",
                case.name,
                x.to_bits(),
                (case.ours)(x),
                (case.reference)(x as f64)
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Vulkan's "Precision and Operation of SPIR-V Instructions": sin and cos within 2^-11
/// absolute in [-π, π], log and log2 within 2^-21 absolute in [0.5, 2] and 3 ULP outside,
/// exp and exp2 within 3 + 2|x| ULP, inversesqrt within 2 ULP.
#[test]
fn within_the_vulkan_precision_requirements() {
    let reference = |f: fn(f64) -> f64, x: f32| f(x as f64);
    let pi = std::f32::consts::PI;
    for x in sample(7, 4099).filter(|x| x.abs() <= pi) {
        for (f, r) in [
            (
                super::sin::<f32> as fn(f32) -> f32,
                f64::sin as fn(f64) -> f64,
            ),
            (super::cos, f64::cos),
        ] {
            let d = (f(x) as f64 - reference(r, x)).abs();
            assert!(d <= 2f64.powi(-11), "{x}: {d}");
        }
    }
    for x in sample(11, 4099).filter(|x| *x > 0.0 && x.is_finite()) {
        for (f, r) in [
            (
                super::log2::<f32> as fn(f32) -> f32,
                f64::log2 as fn(f64) -> f64,
            ),
            (super::log, f64::ln),
        ] {
            if (0.5..=2.0).contains(&x) {
                let d = (f(x) as f64 - reference(r, x)).abs();
                assert!(d < 2f64.powi(-21), "{x}: {d}");
            } else {
                assert!(ulps(f(x), reference(r, x)) <= 3, "{x}");
            }
        }
    }
    for x in sample(13, 4099).filter(|x| x.is_finite()) {
        for (f, r) in [
            (
                super::exp2::<f32> as fn(f32) -> f32,
                f64::exp2 as fn(f64) -> f64,
            ),
            (super::exp, f64::exp),
        ] {
            let bound = 3.0 + 2.0 * x.abs() as f64;
            assert!(ulps(f(x), reference(r, x)) as f64 <= bound, "{x}");
        }
        assert!(
            ulps(super::inversesqrt(x), inversesqrt64(x as f64)) <= 2,
            "{x}"
        );
    }
}

/// Inputs for the two-operand functions, from the tests' seeded generator: random
/// encodings, and values people use (small integers, halves, near 1).
fn value(r: &mut fastrand::Rng) -> f32 {
    match r.u32(..4) {
        0 => f32::from_bits(r.u32(..)),
        1 => r.u32(..64) as f32 * 0.5 - 16.0,
        2 => 1.0 + (r.i32(..) >> 8) as f32 * 2f32.powi(-30),
        _ => f32::from_bits(r.u32(0x3800_0000..0x7c00_0000)),
    }
}

/// pow within 1 ULP, atan2 within 2, against f64 `powf`/`atan2`; the inputs of pow keep the
/// result finite and normal or out of range altogether, as C's `powf` has no more to say.
#[test]
fn pow_and_atan2_within_stated_ulps() {
    let mut r = fastrand::Rng::with_seed(0x2545_f491_4f6c_dd1d);
    let (mut wp, mut wa) = ((0, 0.0, 0.0), (0, 0.0, 0.0));
    for _ in 0..2_000_000 {
        let (x, y) = (value(&mut r), value(&mut r));
        let e = ulps(super::pow(x, y), (x as f64).powf(y as f64));
        if e > wp.0 {
            wp = (e, x, y);
        }
        let e = ulps(super::atan2(x, y), (x as f64).atan2(y as f64));
        if e > wa.0 {
            wa = (e, x, y);
        }
    }
    println!(
        "pow          max {} ULP at {:?}; atan2 max {} ULP at {:?}",
        wp.0,
        (wp.1, wp.2),
        wa.0,
        (wa.1, wa.2)
    );
    assert!(wp.0 <= 1, "pow: {wp:?}");
    assert!(wa.0 <= 2, "atan2: {wa:?}");
}

/// C99 Annex F's special values, case by case (x, want), and NaN in → the same NaN, quiet.
#[test]
fn special_values() {
    let (inf, nan, pi) = (f32::INFINITY, f32::NAN, std::f32::consts::PI);
    let pio2 = std::f32::consts::FRAC_PI_2;
    let pio4 = std::f32::consts::FRAC_PI_4;
    type U = fn(f32) -> f32;
    type Cases<'a> = &'a [(&'a str, U, &'a [(f32, f32)])];
    let unary: Cases = &[
        (
            "sin",
            super::sin,
            &[(0.0, 0.0), (-0.0, -0.0), (inf, nan), (-inf, nan)],
        ),
        (
            "cos",
            super::cos,
            &[(0.0, 1.0), (-0.0, 1.0), (inf, nan), (-inf, nan)],
        ),
        (
            "tan",
            super::tan,
            &[(0.0, 0.0), (-0.0, -0.0), (inf, nan), (-inf, nan)],
        ),
        (
            "exp2",
            super::exp2,
            &[
                (0.0, 1.0),
                (-0.0, 1.0),
                (inf, inf),
                (-inf, 0.0),
                (128.0, inf),
                (-149.0, f32::from_bits(1)),
                (-151.0, 0.0),
                (10.0, 1024.0),
            ],
        ),
        (
            "exp",
            super::exp,
            &[
                (0.0, 1.0),
                (-0.0, 1.0),
                (inf, inf),
                (-inf, 0.0),
                (89.0, inf),
                (-104.0, 0.0),
            ],
        ),
        (
            "log2",
            super::log2,
            &[
                (1.0, 0.0),
                (0.0, -inf),
                (-0.0, -inf),
                (-1.0, nan),
                (inf, inf),
                (-inf, nan),
                (f32::from_bits(1), -149.0),
                (8.0, 3.0),
            ],
        ),
        (
            "log",
            super::log,
            &[
                (1.0, 0.0),
                (0.0, -inf),
                (-0.0, -inf),
                (-1.0, nan),
                (inf, inf),
            ],
        ),
        (
            "asin",
            super::asin,
            &[
                (0.0, 0.0),
                (-0.0, -0.0),
                (1.0, pio2),
                (-1.0, -pio2),
                (1.5, nan),
                (-inf, nan),
            ],
        ),
        (
            "acos",
            super::acos,
            &[
                (1.0, 0.0),
                (-1.0, pi),
                (0.0, pio2),
                (-0.0, pio2),
                (1.5, nan),
                (inf, nan),
            ],
        ),
        (
            "atan",
            super::atan,
            &[
                (0.0, 0.0),
                (-0.0, -0.0),
                (inf, pio2),
                (-inf, -pio2),
                (1.0, pio4),
                (-1.0, -pio4),
            ],
        ),
        (
            "sinh",
            super::sinh,
            &[
                (0.0, 0.0),
                (-0.0, -0.0),
                (inf, inf),
                (-inf, -inf),
                (90.0, inf),
                (-90.0, -inf),
            ],
        ),
        (
            "cosh",
            super::cosh,
            &[
                (0.0, 1.0),
                (-0.0, 1.0),
                (inf, inf),
                (-inf, inf),
                (-90.0, inf),
            ],
        ),
        (
            "tanh",
            super::tanh,
            &[
                (0.0, 0.0),
                (-0.0, -0.0),
                (inf, 1.0),
                (-inf, -1.0),
                (20.0, 1.0),
            ],
        ),
        (
            "asinh",
            super::asinh,
            &[(0.0, 0.0), (-0.0, -0.0), (inf, inf), (-inf, -inf)],
        ),
        (
            "acosh",
            super::acosh,
            &[(1.0, 0.0), (0.5, nan), (-inf, nan), (inf, inf)],
        ),
        (
            "atanh",
            super::atanh,
            &[
                (0.0, 0.0),
                (-0.0, -0.0),
                (1.0, inf),
                (-1.0, -inf),
                (1.5, nan),
                (inf, nan),
            ],
        ),
        (
            "sqrt",
            super::sqrt,
            &[(0.0, 0.0), (-0.0, -0.0), (-1.0, nan), (inf, inf)],
        ),
        (
            "inversesqrt",
            super::inversesqrt,
            &[
                (0.0, inf),
                (-0.0, -inf),
                (-1.0, nan),
                (inf, 0.0),
                (4.0, 0.5),
            ],
        ),
    ];
    let same = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
    let payload = f32::from_bits(0x7f81_2345); // signalling, with a payload
    for (name, f, cases) in unary {
        for &(x, want) in *cases {
            let got = f(x);
            assert!(same(got, want), "{name}({x:e}) = {got:e}, want {want:e}");
        }
        let got = f(payload);
        assert_eq!(got.to_bits(), 0x7fc1_2345, "{name}(sNaN)");
    }
    // pow: C99 F.9.4.4, (x, y, want)
    let pow: &[(f32, f32, f32)] = &[
        (nan, 0.0, 1.0),
        (nan, -0.0, 1.0),
        (1.0, nan, 1.0),
        (-1.0, inf, 1.0),
        (-1.0, -inf, 1.0),
        (0.0, -3.0, inf),
        (-0.0, -3.0, -inf),
        (-0.0, -2.0, inf),
        (0.0, -0.5, inf),
        (-0.0, -inf, inf),
        (0.0, 3.0, 0.0),
        (-0.0, 3.0, -0.0),
        (-0.0, 2.0, 0.0),
        (-0.0, 0.5, 0.0),
        (0.5, -inf, inf),
        (2.0, -inf, 0.0),
        (0.5, inf, 0.0),
        (2.0, inf, inf),
        (-inf, -3.0, -0.0),
        (-inf, -2.0, 0.0),
        (-inf, 3.0, -inf),
        (-inf, 2.5, inf),
        (inf, -1.0, 0.0),
        (inf, 0.5, inf),
        (-2.0, 0.5, nan),
        (-2.0, 3.0, -8.0),
        (-2.0, 2.0, 4.0),
        (2.0, 10.0, 1024.0),
        (2.0, -149.0, f32::from_bits(1)),
        (2.0, 128.0, inf),
        (nan, 1.0, nan),
        (1.5, nan, nan),
    ];
    for &(x, y, want) in pow {
        let got = super::pow(x, y);
        assert!(
            same(got, want),
            "pow({x:e}, {y:e}) = {got:e}, want {want:e}"
        );
    }
    // atan2: C99 F.9.1.4, (y, x, want)
    let atan2: &[(f32, f32, f32)] = &[
        (0.0, -0.0, pi),
        (-0.0, -0.0, -pi),
        (0.0, 0.0, 0.0),
        (-0.0, 0.0, -0.0),
        (0.0, -1.0, pi),
        (-0.0, -1.0, -pi),
        (0.0, 1.0, 0.0),
        (-0.0, 1.0, -0.0),
        (-1.0, 0.0, -pio2),
        (-1.0, -0.0, -pio2),
        (1.0, 0.0, pio2),
        (1.0, -0.0, pio2),
        (1.0, -inf, pi),
        (-1.0, -inf, -pi),
        (1.0, inf, 0.0),
        (-1.0, inf, -0.0),
        (inf, 1.0, pio2),
        (-inf, 1.0, -pio2),
        (inf, -inf, 3.0 * pio4),
        (-inf, -inf, -3.0 * pio4),
        (inf, inf, pio4),
        (-inf, inf, -pio4),
        (1.0, 1.0, pio4),
        (1.0, -1.0, 3.0 * pio4),
        (nan, 1.0, nan),
        (1.0, nan, nan),
    ];
    for &(y, x, want) in atan2 {
        let got = super::atan2(y, x);
        assert!(
            same(got, want),
            "atan2({y:e}, {x:e}) = {got:e}, want {want:e}"
        );
    }
}

/// Our rounding functions against Rust's, bit for bit (quiet NaNs keep their payload; a
/// signalling one comes out quiet with it).
fn rounding_agrees(inputs: impl Iterator<Item = f32>) {
    type R = fn(f32) -> f32;
    let pairs: [(&str, R, R); 6] = [
        ("floor", super::floor, f32::floor),
        ("ceil", super::ceil, f32::ceil),
        ("trunc", super::trunc, f32::trunc),
        ("round", super::round, f32::round),
        ("round_even", super::round_even, f32::round_ties_even),
        ("fract", super::fract, |x| x - x.floor()),
    ];
    for x in inputs {
        for (name, ours, std) in pairs {
            let (a, b) = (ours(x), std(x));
            let want = if b.is_nan() {
                b.to_bits() | 0x0040_0000
            } else {
                b.to_bits()
            };
            assert_eq!(a.to_bits(), want, "{name}({x:e} = {:#010x})", x.to_bits());
        }
    }
}

#[test]
fn rounding_matches_std() {
    let special = [
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.5,
        -1.5,
        2.5,
        -2.5,
        0.499_999_97,
        -0.499_999_97,
        8_388_607.5,
        -8_388_607.5,
        8_388_608.0,
        16_777_215.0,
        f32::MAX,
        f32::MIN_POSITIVE,
        f32::from_bits(1),
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::from_bits(0x7fc1_2345),
        f32::from_bits(0xffc0_0001),
        f32::from_bits(0x7f80_0001),
    ];
    rounding_agrees(special.into_iter().chain(sample(3, 1021)));
    // f64: the same algorithm at the other width, on values around its limits
    let f64s: [f64; 10] = [
        0.5,
        -0.5,
        2.5,
        -2.5,
        4503599627370495.5,
        -4503599627370495.5,
        4503599627370496.0,
        -0.0,
        1e300,
        0.499_999_999_999_999_94,
    ];
    for x in f64s {
        assert_eq!(super::floor(x).to_bits(), x.floor().to_bits(), "{x}");
        assert_eq!(super::ceil(x).to_bits(), x.ceil().to_bits(), "{x}");
        assert_eq!(super::trunc(x).to_bits(), x.trunc().to_bits(), "{x}");
        assert_eq!(super::round(x).to_bits(), x.round().to_bits(), "{x}");
        assert_eq!(
            super::round_even(x).to_bits(),
            x.round_ties_even().to_bits(),
            "{x}"
        );
    }
}

/// Every unary function and rounding in every lane form on the same rows, bit for bit.
#[cfg(target_arch = "x86_64")]
mod forms {
    use super::*;

    /// `M` over `xs` as scalars, as SSE2 vectors and (where the CPU has it) as AVX2 vectors.
    fn forms1<M: Unary<f32> + Unary<F4> + Unary<F8>>(xs: &[f32]) -> [Vec<f32>; 3] {
        let scalar: Vec<f32> = xs.iter().map(|&x| M::apply(x)).collect();
        let mut sse = vec![0f32; xs.len()];
        for (o, c) in sse.chunks_exact_mut(4).zip(xs.chunks_exact(4)) {
            // SAFETY: SSE2 is baseline on x86-64
            M::apply(unsafe { F4::load(c) }).store(o);
        }
        let mut avx = scalar.clone();
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2
            unsafe { avx1::<M>(xs, &mut avx) };
        }
        [scalar, sse, avx]
    }

    #[target_feature(enable = "avx2")]
    unsafe fn avx1<M: Unary<F8>>(xs: &[f32], out: &mut [f32]) {
        for (o, c) in out.chunks_exact_mut(8).zip(xs.chunks_exact(8)) {
            // SAFETY: the caller checked AVX2
            M::apply(unsafe { F8::load(c) }).store(o);
        }
    }

    fn forms2<M: Binary<f32> + Binary<F4> + Binary<F8>>(xs: &[f32], ys: &[f32]) -> [Vec<f32>; 3] {
        let scalar: Vec<f32> = xs.iter().zip(ys).map(|(&x, &y)| M::apply(x, y)).collect();
        let mut sse = vec![0f32; xs.len()];
        for ((o, a), b) in sse
            .chunks_exact_mut(4)
            .zip(xs.chunks_exact(4))
            .zip(ys.chunks_exact(4))
        {
            // SAFETY: SSE2 is baseline on x86-64
            M::apply(unsafe { F4::load(a) }, unsafe { F4::load(b) }).store(o);
        }
        let mut avx = scalar.clone();
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2
            unsafe { avx2::<M>(xs, ys, &mut avx) };
        }
        [scalar, sse, avx]
    }

    #[target_feature(enable = "avx2")]
    unsafe fn avx2<M: Binary<F8>>(xs: &[f32], ys: &[f32], out: &mut [f32]) {
        for ((o, a), b) in out
            .chunks_exact_mut(8)
            .zip(xs.chunks_exact(8))
            .zip(ys.chunks_exact(8))
        {
            // SAFETY: the caller checked AVX2
            M::apply(unsafe { F8::load(a) }, unsafe { F8::load(b) }).store(o);
        }
    }

    fn f64_forms<M: Unary<f64> + Unary<D2> + Unary<D4>>(xs: &[f64]) -> [Vec<u64>; 3] {
        let scalar: Vec<f64> = xs.iter().map(|&x| M::apply(x)).collect();
        let mut sse = vec![0f64; xs.len()];
        for (o, c) in sse.chunks_exact_mut(2).zip(xs.chunks_exact(2)) {
            // SAFETY: SSE2 is baseline on x86-64
            M::apply(unsafe { D2::load(c) }).store(o);
        }
        let mut avx = scalar.clone();
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2
            unsafe { avx_d::<M>(xs, &mut avx) };
        }
        [scalar, sse, avx].map(|v| v.iter().map(|x| x.to_bits()).collect())
    }

    #[target_feature(enable = "avx2")]
    unsafe fn avx_d<M: Unary<D4>>(xs: &[f64], out: &mut [f64]) {
        for (o, c) in out.chunks_exact_mut(4).zip(xs.chunks_exact(4)) {
            // SAFETY: the caller checked AVX2
            M::apply(unsafe { D4::load(c) }).store(o);
        }
    }

    /// Rows mixing random encodings, special values and huge sin arguments, so that vectors
    /// hold lanes of every path side by side.
    fn rows() -> (Vec<f32>, Vec<f32>) {
        let special = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            2.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            f32::from_bits(0x7f81_2345),
            f32::from_bits(0xffc0_0001),
            f32::from_bits(1),
            f32::MAX,
            1000.0,
            2e5,
            3e30,
        ];
        let mut r = fastrand::Rng::with_seed(0x9e37_79b9_7f4a_7c15);
        let mut v = |_| match r.u32(..3) {
            0 => special[r.usize(..16)],
            _ => super::value(&mut r),
        };
        let n = 1 << 16;
        ((0..n).map(&mut v).collect(), (0..n).map(&mut v).collect())
    }

    fn same(name: &str, [a, b, c]: [Vec<f32>; 3], xs: &[f32]) {
        for i in 0..xs.len() {
            let (x, y, z) = (a[i].to_bits(), b[i].to_bits(), c[i].to_bits());
            assert!(
                x == y && x == z,
                "{name}({:e}): scalar {x:#x}, sse {y:#x}, avx2 {z:#x}",
                xs[i]
            );
        }
    }

    #[test]
    fn every_form_gives_the_same_bits() {
        let (xs, ys) = rows();
        macro_rules! unary {
            ($($m:ident),*) => {
                $( same(stringify!($m), forms1::<ops::$m>(&xs), &xs); )*
            };
        }
        unary!(
            Floor,
            Ceil,
            Trunc,
            Round,
            RoundEven,
            Fract,
            Sqrt,
            InverseSqrt,
            Exp,
            Exp2,
            Log,
            Log2,
            Sin,
            Cos,
            Tan,
            Asin,
            Acos,
            Atan,
            Sinh,
            Cosh,
            Tanh,
            Asinh,
            Acosh,
            Atanh
        );
        same("pow", forms2::<ops::Pow>(&xs, &ys), &xs);
        same("atan2", forms2::<ops::Atan2>(&xs, &ys), &xs);
        let ds: Vec<f64> = xs
            .iter()
            .zip(&ys)
            .map(|(&x, &y)| f64::from_bits((x.to_bits() as u64) << 32 | y.to_bits() as u64))
            .chain([0.5, -2.5, 4503599627370495.5, -0.0, f64::NAN, f64::INFINITY])
            .collect();
        macro_rules! rounding {
            ($($m:ident),*) => {
                $(
                    let [a, b, c] = f64_forms::<ops::$m>(&ds);
                    assert!(a == b && a == c, stringify!($m));
                )*
            };
        }
        rounding!(Floor, Ceil, Trunc, Round, RoundEven, Fract);
    }

    /// Every input of every unary function (in its AVX2 form where the CPU has it): ULPs
    /// against the reference, the figures in the module doc. `QS_MATH_ONLY=sin,cos` runs some.
    #[test]
    #[ignore = "minutes per function: run by hand, figures in the module doc"]
    fn exhaustive() {
        let avx = std::arch::is_x86_feature_detected!("avx2");
        let only = std::env::var("QS_MATH_ONLY").ok();
        for case in CASES {
            if only
                .as_deref()
                .is_some_and(|o| !o.split(',').any(|n| n == case.name))
            {
                continue;
            }
            let start = std::time::Instant::now();
            let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
            let chunk = (1u64 << 32) / threads as u64;
            let results: Vec<(u64, f32, u64, u64)> = std::thread::scope(|s| {
                let hs: Vec<_> = (0..threads as u64)
                    .map(|t| {
                        s.spawn(move || {
                            let (mut w, mut wx, mut exact, mut n) = (0u64, 0f32, 0u64, 0u64);
                            let mut xs = [0f32; 8];
                            let mut i = t * chunk;
                            let end = if t + 1 == threads as u64 {
                                1 << 32
                            } else {
                                i + chunk
                            };
                            while i < end {
                                for (k, x) in xs.iter_mut().enumerate() {
                                    *x = f32::from_bits((i + k as u64) as u32);
                                }
                                let ys = lanes_of(case, &xs, avx);
                                for k in 0..8 {
                                    let e = ulps(ys[k], (case.reference)(xs[k] as f64));
                                    n += 1;
                                    exact += (e == 0) as u64;
                                    if e > w {
                                        (w, wx) = (e, xs[k]);
                                    }
                                }
                                i += 8;
                            }
                            (w, wx, exact, n)
                        })
                    })
                    .collect();
                hs.into_iter().map(|h| h.join().unwrap()).collect()
            });
            let (mut w, mut wx, mut exact, mut n) = (0, 0f32, 0, 0);
            for (a, b, c, d) in results {
                if a > w {
                    (w, wx) = (a, b);
                }
                exact += c;
                n += d;
            }
            println!(
                "{:12} max {w} ULP at {wx:e} ({:#010x}); correctly rounded {:.4} %; {:.0} s",
                case.name,
                wx.to_bits(),
                100.0 * exact as f64 / n as f64,
                start.elapsed().as_secs_f64()
            );
            assert!(w <= case.ulp, "{}: {w} ULP at {wx:e}", case.name);
        }
    }

    /// `case` on eight inputs in its widest form.
    fn lanes_of(case: &Case, xs: &[f32; 8], avx: bool) -> [f32; 8] {
        if avx {
            let mut v = [0f32; 8];
            // SAFETY: the CPU has AVX2
            unsafe { by_name(case.name, xs, &mut v) };
            v
        } else {
            xs.map(case.ours)
        }
    }

    #[target_feature(enable = "avx2")]
    unsafe fn by_name(name: &str, xs: &[f32; 8], out: &mut [f32; 8]) {
        // SAFETY: the caller checked AVX2
        let x = unsafe { F8::load(xs) };
        macro_rules! pick {
            ($($n:literal => $m:ident),*) => {
                match name {
                    $($n => <ops::$m as Unary<F8>>::apply(x),)*
                    _ => unreachable!(),
                }
            };
        }
        pick!(
            "exp2" => Exp2, "exp" => Exp, "log2" => Log2, "log" => Log, "sin" => Sin,
            "cos" => Cos, "tan" => Tan, "asin" => Asin, "acos" => Acos, "atan" => Atan,
            "sinh" => Sinh, "cosh" => Cosh, "tanh" => Tanh, "asinh" => Asinh,
            "acosh" => Acosh, "atanh" => Atanh, "sqrt" => Sqrt, "inversesqrt" => InverseSqrt
        )
        .store(out);
    }

    /// The rounding functions on every f32, against std and across forms.
    #[test]
    #[ignore = "a minute: run by hand"]
    fn exhaustive_rounding() {
        let xs: Vec<f32> = (0..1u32 << 16).map(f32::from_bits).collect();
        for hi in 0..1u32 << 16 {
            let row: Vec<f32> = xs
                .iter()
                .map(|x| f32::from_bits(hi << 16 | x.to_bits()))
                .collect();
            rounding_agrees(row.iter().copied());
            macro_rules! each {
                ($($m:ident),*) => { $( same(stringify!($m), forms1::<ops::$m>(&row), &row); )* };
            }
            each!(Floor, Ceil, Trunc, Round, RoundEven, Fract);
        }
    }
}
