//! Hand-computed tests of the HLSL depth-comparison sampling family as a compiler emits it in
//! SPIR-V: `SampleCmp` (`OpImageSampleDrefImplicitLod`), `SampleCmpBias` (`… Bias`),
//! `SampleCmpLevelZero` / `SampleCmpLevel` (`OpImageSampleDrefExplicitLod … Lod`),
//! `SampleCmpGrad` (`… Grad`), with `ConstOffset` offsets and `MinLod` clamps, on Texture1D,
//! Texture1DArray, Texture2D, Texture2DArray, TextureCube and TextureCubeArray.
//!
//! The shaders come from `shaders/sample_cmp/sample_cmp.spvasm.in` (see the README there):
//! each lane reads its operands from flat inputs (location 0: coordinates; location 1:
//! (Dref, lod-or-bias, MinLod clamp, –); locations 2/3: gradients) and writes the scalar
//! comparison result to location 0.
//!
//! Textures are built so every expected value is a hand computation:
//! - "level" textures hold one constant depth per (mip level, array layer / cube face):
//!   `dv(L, layer) = (16·L + layer + 1) / 256` (exact in f32, all distinct). With compare
//!   EQUAL and `Dref = dv(L, layer)` the result is the weight with which level L of that layer
//!   was read (1.0 or 0.0 with nearest mip, the mip weights with linear mip).
//! - "ramp" textures (one level, 8 wide, 8 high for 2D) hold `ramp(i, j, layer) =
//!   (64·layer + 8·j + i + 1) / 256`, so EQUAL against `ramp(i, j, l)` tells which texel was
//!   read, and LESS/GREATER refs between texel values give PCF pass counts.
//!
//! Rules used in the comments (sampling.md): implicit derivatives are coarse (dX = P1 − P0,
//! dY = P2 − P0, §3.2); ρ = max(|dX|, |dY|) with Euclidean lengths of the derivatives scaled by
//! the base level size (§5.1, aniso off); λ_base = log2 ρ; Vulkan: λ' = λ_base +
//! clamp(samplerBias + shaderBias, −16, 16), D3D: each term clamped to [−16, 15.99], sum not
//! clamped (§5.3, §17.1); Vulkan λ = min(max(λ', max(minLod, MinLod)), maxLod), D3D
//! λ = max(lodMin, min(maxLod, λ')) (§5.4, §17.2); nearest mip d = floor(clamp(λ,0,q) + 0.5),
//! linear mip blends floor(λ) and floor(λ)+1 by frac(λ) (§5.7); nearest texel i = floor(u),
//! linear taps i0 = floor(u − 0.5), α = frac(u − 0.5) (§7); layer = clamp(RNE(a), 0, n − 1)
//! (§7.4); cube faces §4.1; wrap modes §8; result = (Dref OP texel) per tap, then filtered
//! (§10). The interpreter's own output is never used to make an expectation.

mod sample_cmp_support;

use sample_cmp_support::*;

const V: Policy = Policy::Vulkan;
const D: Policy = Policy::D3D;

fn eq() -> Sampler {
    cmp_sampler(CompareOp::Equal)
}

// ---------------------------------------------------------------------------------------------
// Texture2D (level texture 16×16, levels 0..4; ramp texture 8×8)
// ---------------------------------------------------------------------------------------------

/// SampleCmp: lanes 2/16 apart in s and t → dX = (0.125, 0)·16 = (2, 0), dY = (0, 2):
/// ρ = 2, λ = 1 → level 1. Refs: dv(1)=pass, dv(0) and dv(2) name levels not read.
#[test]
fn t2_cmp_implicit_lod1() {
    let lanes = grid(
        [0.25, 0.25, 0.0, 0.0],
        [0.125, 0.0, 0.0, 0.0],
        [0.0, 0.125, 0.0, 0.0],
        [dv(1, 0), dv(0, 0), dv(1, 0), dv(2, 0)],
    );
    let got = run(
        Key::new(Recv::T2, Op::Cmp),
        level_tex(Recv::T2),
        eq(),
        V,
        lanes,
    );
    check("t2_cmp_implicit_lod1", got, [1.0, 0.0, 1.0, 0.0]);
}

/// Same as `t2_cmp_implicit_lod1` with DXC's separate `Texture2D` + `SamplerComparisonState`.
#[test]
fn t2_cmp_implicit_lod1_separate() {
    let lanes = grid(
        [0.25, 0.25, 0.0, 0.0],
        [0.125, 0.0, 0.0, 0.0],
        [0.0, 0.125, 0.0, 0.0],
        [dv(1, 0), dv(1, 0), dv(3, 0), dv(1, 0)],
    );
    let key = Key::new(Recv::T2, Op::Cmp).separate();
    let got = run(key, level_tex(Recv::T2), eq(), V, lanes);
    check("t2_cmp_implicit_lod1_separate", got, [1.0, 1.0, 0.0, 1.0]);
}

/// Lanes 16384 apart: ρ = 16384·16 = 2^18, λ_base = 18. Sampler mipLodBias −2, shader bias
/// [−16, −15, −17, −20]. Vulkan: sums −18, −17, −19, −22 all clamp to −16 → λ' = 2 → level 2
/// in every lane (lane 3's ref names level 0 → 0).
#[test]
fn t2_bias_low_end_vulkan_sum_clamp() {
    let mut lanes = grid(
        [0.5, 0.5, 0.0, 0.0],
        [16384.0, 0.0, 0.0, 0.0],
        [0.0, 16384.0, 0.0, 0.0],
        [dv(2, 0), dv(2, 0), dv(2, 0), dv(0, 0)],
    );
    for (l, b) in lanes.iter_mut().zip([-16.0, -15.0, -17.0, -20.0]) {
        *l = l.lb(b);
    }
    let s = Sampler {
        mip_lod_bias: -2.0,
        ..eq()
    };
    let got = run(
        Key::new(Recv::T2, Op::Bias),
        level_tex(Recv::T2),
        s,
        V,
        lanes,
    );
    check(
        "t2_bias_low_end_vulkan_sum_clamp",
        got,
        [1.0, 1.0, 1.0, 0.0],
    );
}

/// As above in D3D: shader terms clamp to [−16, 15.99] → −16, −15, −16, −16; plus sampler −2
/// (sum not clamped) → −18, −17, −18, −18 → λ' = 0, 1, 0, 0 → levels 0, 1, 0, 0.
/// Lane 3's ref names level 2 (what Vulkan reads) → 0.
#[test]
fn t2_bias_low_end_d3d_term_clamp() {
    let mut lanes = grid(
        [0.5, 0.5, 0.0, 0.0],
        [16384.0, 0.0, 0.0, 0.0],
        [0.0, 16384.0, 0.0, 0.0],
        [dv(0, 0), dv(1, 0), dv(0, 0), dv(2, 0)],
    );
    for (l, b) in lanes.iter_mut().zip([-16.0, -15.0, -17.0, -20.0]) {
        *l = l.lb(b);
    }
    let s = Sampler {
        mip_lod_bias: -2.0,
        ..eq()
    };
    let got = run(
        Key::new(Recv::T2, Op::Bias),
        level_tex(Recv::T2),
        s,
        D,
        lanes,
    );
    check("t2_bias_low_end_d3d_term_clamp", got, [1.0, 1.0, 1.0, 0.0]);
}

/// Lanes 2^-18 apart: ρ = 2^-18·16 = 2^-14, λ_base = −14. Sampler bias +4, shader bias
/// [15, 20, 12, 10]. Vulkan: sums 19, 24, 16, 14 → 16, 16, 16, 14 → λ' = 2, 2, 2, 0 →
/// levels 2, 2, 2, 0. Lane 1's ref names level 4 (what D3D reads) → 0.
#[test]
fn t2_bias_high_end_vulkan_sum_clamp() {
    let d = 1.0 / 262144.0;
    let mut lanes = grid(
        [0.25, 0.25, 0.0, 0.0],
        [d, 0.0, 0.0, 0.0],
        [0.0, d, 0.0, 0.0],
        [dv(2, 0), dv(4, 0), dv(2, 0), dv(0, 0)],
    );
    for (l, b) in lanes.iter_mut().zip([15.0, 20.0, 12.0, 10.0]) {
        *l = l.lb(b);
    }
    let s = Sampler {
        mip_lod_bias: 4.0,
        ..eq()
    };
    let got = run(
        Key::new(Recv::T2, Op::Bias),
        level_tex(Recv::T2),
        s,
        V,
        lanes,
    );
    check(
        "t2_bias_high_end_vulkan_sum_clamp",
        got,
        [1.0, 0.0, 1.0, 1.0],
    );
}

/// As above in D3D: terms 15, 15.99 (20 clamped), 12, 10, plus 4 → 19, 19.99, 16, 14 →
/// λ' = 5, 5.99, 2, 0 → levels clamp(…, 0, 4) → 4, 4, 2, 0. Lane 0's ref names level 2 → 0.
#[test]
fn t2_bias_high_end_d3d_term_clamp() {
    let d = 1.0 / 262144.0;
    let mut lanes = grid(
        [0.25, 0.25, 0.0, 0.0],
        [d, 0.0, 0.0, 0.0],
        [0.0, d, 0.0, 0.0],
        [dv(2, 0), dv(4, 0), dv(2, 0), dv(0, 0)],
    );
    for (l, b) in lanes.iter_mut().zip([15.0, 20.0, 12.0, 10.0]) {
        *l = l.lb(b);
    }
    let s = Sampler {
        mip_lod_bias: 4.0,
        ..eq()
    };
    let got = run(
        Key::new(Recv::T2, Op::Bias),
        level_tex(Recv::T2),
        s,
        D,
        lanes,
    );
    check("t2_bias_high_end_d3d_term_clamp", got, [0.0, 1.0, 1.0, 1.0]);
}

/// λ_base = −14 (as above), sampler bias 0, shader bias 16.5 in D3D: the term clamps to
/// 15.99 → λ' = 1.99 → floor(2.49) = level 2 (unclamped 2.5 would round to level 3).
/// Lanes 2/3 use bias 15.99 exactly (→ level 2) and 17.25 (→ 15.99 → level 2).
#[test]
fn t2_bias_d3d_upper_term_clamp() {
    let d = 1.0 / 262144.0;
    let mut lanes = grid(
        [0.25, 0.25, 0.0, 0.0],
        [d, 0.0, 0.0, 0.0],
        [0.0, d, 0.0, 0.0],
        [dv(2, 0), dv(3, 0), dv(2, 0), dv(2, 0)],
    );
    for (l, b) in lanes.iter_mut().zip([16.5, 16.5, 15.99, 17.25]) {
        *l = l.lb(b);
    }
    let got = run(
        Key::new(Recv::T2, Op::Bias),
        level_tex(Recv::T2),
        eq(),
        D,
        lanes,
    );
    check("t2_bias_d3d_upper_term_clamp", got, [1.0, 0.0, 1.0, 1.0]);
}

/// SampleCmpLevel: lod 7 and 100 clamp to the last level 4; lod 3.5 → floor(3.5 + 0.5) = 4;
/// lod 3.4 → floor(3.9) = 3.
#[test]
fn t2_level_beyond_last() {
    let lanes = [
        lane(&[0.5, 0.5], dv(4, 0)).lb(7.0),
        lane(&[0.5, 0.5], dv(4, 0)).lb(3.5),
        lane(&[0.5, 0.5], dv(4, 0)).lb(100.0),
        lane(&[0.5, 0.5], dv(3, 0)).lb(3.4),
    ];
    let got = run(
        Key::new(Recv::T2, Op::Level),
        level_tex(Recv::T2),
        eq(),
        V,
        lanes,
    );
    check("t2_level_beyond_last", got, [1.0, 1.0, 1.0, 1.0]);
}

/// SampleCmpLevel with linear mip: lod 1.25 → 0.75·level 1 + 0.25·level 2 (EQUAL against
/// level 1 → 0.75, level 2 → 0.25); lod 3.5 → 0.5·level 3 + 0.5·level 4 (ref level 4 → 0.5);
/// lod 9 → d' = 4, d_lo = min(5, 4) = 4 → level 4 with weight 1.
#[test]
fn t2_level_linear_mip_weights() {
    let lanes = [
        lane(&[0.5, 0.5], dv(1, 0)).lb(1.25),
        lane(&[0.5, 0.5], dv(2, 0)).lb(1.25),
        lane(&[0.5, 0.5], dv(4, 0)).lb(3.5),
        lane(&[0.5, 0.5], dv(4, 0)).lb(9.0),
    ];
    let s = Sampler {
        mipmap_mode: MipmapMode::Linear,
        ..eq()
    };
    let got = run(
        Key::new(Recv::T2, Op::Level),
        level_tex(Recv::T2),
        s,
        V,
        lanes,
    );
    check("t2_level_linear_mip_weights", got, [0.75, 0.25, 0.5, 1.0]);
}

/// SampleCmpLevel with sampler minLod 1, maxLod 2.5: lod 0, 5, 1.75, −3 → λ = 1, 2.5, 1.75, 1
/// → nearest floor(λ + 0.5) = 1, 3, 2, 1.
#[test]
fn t2_level_sampler_min_max_lod() {
    let lanes = [
        lane(&[0.5, 0.5], dv(1, 0)).lb(0.0),
        lane(&[0.5, 0.5], dv(3, 0)).lb(5.0),
        lane(&[0.5, 0.5], dv(2, 0)).lb(1.75),
        lane(&[0.5, 0.5], dv(1, 0)).lb(-3.0),
    ];
    let s = Sampler {
        min_lod: 1.0,
        max_lod: 2.5,
        ..eq()
    };
    let got = run(
        Key::new(Recv::T2, Op::Level),
        level_tex(Recv::T2),
        s,
        V,
        lanes,
    );
    check("t2_level_sampler_min_max_lod", got, [1.0, 1.0, 1.0, 1.0]);
}

/// SampleCmpLevelZero: λ_base = 0 → level 0; refs for levels 0, 1, 0, 0.
#[test]
fn t2_level_zero() {
    let lanes = [
        lane(&[0.1, 0.9], dv(0, 0)),
        lane(&[0.7, 0.2], dv(1, 0)),
        lane(&[0.5, 0.5], dv(0, 0)),
        lane(&[0.9, 0.1], dv(0, 0)),
    ];
    let got = run(
        Key::new(Recv::T2, Op::LevelZero),
        level_tex(Recv::T2),
        eq(),
        V,
        lanes,
    );
    check("t2_level_zero", got, [1.0, 0.0, 1.0, 1.0]);
}

/// SampleCmpLevelZero with sampler mipLodBias 2 ("bias starting from 0"): λ = 0 + 2 → level 2.
/// Separate texture and sampler.
#[test]
fn t2_level_zero_sampler_bias_separate() {
    let lanes = [
        lane(&[0.1, 0.9], dv(2, 0)),
        lane(&[0.7, 0.2], dv(0, 0)),
        lane(&[0.5, 0.5], dv(2, 0)),
        lane(&[0.9, 0.1], dv(1, 0)),
    ];
    let s = Sampler {
        mip_lod_bias: 2.0,
        ..eq()
    };
    let key = Key::new(Recv::T2, Op::LevelZero).separate();
    let got = run(key, level_tex(Recv::T2), s, V, lanes);
    check(
        "t2_level_zero_sampler_bias_separate",
        got,
        [1.0, 0.0, 1.0, 0.0],
    );
}

/// SampleCmp with clamp (MinLod operand), λ_base = 1 (grid 2/16), sampler maxLod 2, clamps
/// [3, 0, 1.5, 3]. Vulkan λ = min(max(1, cl), 2) = 2, 1, 1.5, 2 → levels 2, 1, 2, 2 (the
/// implementation lets maxLod win when MinLod > maxLod; Vulkan leaves it undefined).
/// Lane 3's ref names level 3 (what D3D reads) → 0.
#[test]
fn t2_cmp_minlod_above_maxlod_vulkan() {
    let mut lanes = grid(
        [0.25, 0.25, 0.0, 0.0],
        [0.125, 0.0, 0.0, 0.0],
        [0.0, 0.125, 0.0, 0.0],
        [dv(2, 0), dv(1, 0), dv(2, 0), dv(3, 0)],
    );
    for (l, c) in lanes.iter_mut().zip([3.0, 0.0, 1.5, 3.0]) {
        *l = l.cl(c);
    }
    let s = Sampler {
        max_lod: 2.0,
        ..eq()
    };
    let key = Key::new(Recv::T2, Op::Cmp).clamp();
    let got = run(key, level_tex(Recv::T2), s, V, lanes);
    check(
        "t2_cmp_minlod_above_maxlod_vulkan",
        got,
        [1.0, 1.0, 1.0, 0.0],
    );
}

/// As above in D3D: λ = max(cl, min(2, 1)) = 3, 1, 1.5, 3 → levels 3, 1, 2, 3 (MinLOD wins).
#[test]
fn t2_cmp_minlod_above_maxlod_d3d() {
    let mut lanes = grid(
        [0.25, 0.25, 0.0, 0.0],
        [0.125, 0.0, 0.0, 0.0],
        [0.0, 0.125, 0.0, 0.0],
        [dv(3, 0), dv(1, 0), dv(2, 0), dv(3, 0)],
    );
    for (l, c) in lanes.iter_mut().zip([3.0, 0.0, 1.5, 3.0]) {
        *l = l.cl(c);
    }
    let s = Sampler {
        max_lod: 2.0,
        ..eq()
    };
    let key = Key::new(Recv::T2, Op::Cmp).clamp();
    let got = run(key, level_tex(Recv::T2), s, D, lanes);
    check("t2_cmp_minlod_above_maxlod_d3d", got, [1.0, 1.0, 1.0, 1.0]);
}

/// SampleCmp clamp beyond the last level (q = 4) with compare ALWAYS. D3D: clamps 6 and 10
/// leave no level → out-of-bounds result 0; clamps 4 and 0 read a level → 1.
#[test]
fn t2_cmp_minlod_beyond_last_level_d3d() {
    let mut lanes = grid(
        [0.25, 0.25, 0.0, 0.0],
        [0.125, 0.0, 0.0, 0.0],
        [0.0, 0.125, 0.0, 0.0],
        [0.5; 4],
    );
    for (l, c) in lanes.iter_mut().zip([6.0, 4.0, 0.0, 10.0]) {
        *l = l.cl(c);
    }
    let key = Key::new(Recv::T2, Op::Cmp).clamp();
    let s = cmp_sampler(CompareOp::Always);
    let got = run(key, level_tex(Recv::T2), s, D, lanes);
    check(
        "t2_cmp_minlod_beyond_last_level_d3d",
        got,
        [0.0, 1.0, 1.0, 0.0],
    );
}

/// Same in Vulkan: λ clamps to the last level, ALWAYS passes → 1 everywhere.
#[test]
fn t2_cmp_minlod_beyond_last_level_vulkan() {
    let mut lanes = grid(
        [0.25, 0.25, 0.0, 0.0],
        [0.125, 0.0, 0.0, 0.0],
        [0.0, 0.125, 0.0, 0.0],
        [0.5; 4],
    );
    for (l, c) in lanes.iter_mut().zip([6.0, 4.0, 0.0, 10.0]) {
        *l = l.cl(c);
    }
    let key = Key::new(Recv::T2, Op::Cmp).clamp();
    let s = cmp_sampler(CompareOp::Always);
    let got = run(key, level_tex(Recv::T2), s, V, lanes);
    check("t2_cmp_minlod_beyond_last_level_vulkan", got, [1.0; 4]);
}

/// SampleCmpGrad, aniso off, ρ = max(|dX|, |dY|)·16 (Euclidean):
/// lane 0: gx (4/16, 0), gy (0, 1/16) → ρ = 4 → λ 2 → level 2 (anisotropic-looking: the
///         longer axis decides);
/// lane 1: gx (5/16, 5/16) → ρ = 5√2 ≈ 7.07 → λ ≈ 2.82 → floor(3.32) = level 3;
/// lane 2: gy (0, 2) → ρ = 32 → λ 5 → last level 4;
/// lane 3: gx (1/16, 0), gy (0, 1/16) → λ 0 → level 0 (ref names level 1 → 0).
#[test]
fn t2_grad_lengths() {
    let c = [0.5, 0.5];
    let g = 1.0 / 16.0;
    let lanes = [
        lane(&c, dv(2, 0)).grad(&[4.0 * g, 0.0], &[0.0, g]),
        lane(&c, dv(3, 0)).grad(&[5.0 * g, 5.0 * g], &[0.0, 0.0]),
        lane(&c, dv(4, 0)).grad(&[0.0, 0.0], &[0.0, 2.0]),
        lane(&c, dv(1, 0)).grad(&[g, 0.0], &[0.0, g]),
    ];
    let got = run(
        Key::new(Recv::T2, Op::Grad),
        level_tex(Recv::T2),
        eq(),
        V,
        lanes,
    );
    check("t2_grad_lengths", got, [1.0, 1.0, 1.0, 0.0]);
}

/// SampleCmpGrad with clamp: gx = (2/16, 0), gy = (0, 2/16) → λ 1; clamps [0, 2, 3.25, 1] →
/// λ = 1, 2, 3.25, 1 → levels 1, 2, floor(3.75) = 3, 1 (lane 3's ref names level 2 → 0).
#[test]
fn t2_grad_clamp() {
    let c = [0.5, 0.5];
    let g = 2.0 / 16.0;
    let mk = |r: f32, cl: f32| lane(&c, r).grad(&[g, 0.0], &[0.0, g]).cl(cl);
    let lanes = [
        mk(dv(1, 0), 0.0),
        mk(dv(2, 0), 2.0),
        mk(dv(3, 0), 3.25),
        mk(dv(2, 0), 1.0),
    ];
    let key = Key::new(Recv::T2, Op::Grad).clamp();
    let got = run(key, level_tex(Recv::T2), eq(), V, lanes);
    check("t2_grad_clamp", got, [1.0, 1.0, 1.0, 0.0]);
}

/// SampleCmpBias with offset and clamp (all three operands): λ_base = 1 (grid 2/16), bias
/// [1, −1, 0, 2], clamp [0, 0, 2, 0], offset (7, −8) (invisible on constant levels) →
/// λ = 2, max(0, 0) = 0, max(1, 2) = 2, 3 → levels 2, 0, 2, 3.
#[test]
fn t2_bias_offset_clamp() {
    let mut lanes = grid(
        [0.25, 0.25, 0.0, 0.0],
        [0.125, 0.0, 0.0, 0.0],
        [0.0, 0.125, 0.0, 0.0],
        [dv(2, 0), dv(0, 0), dv(2, 0), dv(3, 0)],
    );
    for (l, (b, c)) in lanes
        .iter_mut()
        .zip([(1.0, 0.0), (-1.0, 0.0), (0.0, 2.0), (2.0, 0.0)])
    {
        *l = l.lb(b).cl(c);
    }
    let key = Key::new(Recv::T2, Op::Bias).offset([7, -8]).clamp();
    let got = run(key, level_tex(Recv::T2), eq(), V, lanes);
    check("t2_bias_offset_clamp", got, [1.0; 4]);
}

// --- offsets and address modes on the 8×8 ramp (level 0 only) --------------------------------

/// SampleCmpLevelZero, ConstOffset (−8, 7), clamp to edge, nearest: u = 8s − 8, v = 8t + 7.
/// lane 0: s 3.5/8 → u −4.5 → i −5 → 0; t 0.5/8 → v 7.5 → j 7 → ramp(0,7) = ref → 1;
/// lane 1: s 7.5/8 → u −0.5 → 0, j 7 → ramp(0,7); ref ramp(7,0) (the un-offset texel) → 0;
/// lane 2: s 8.5/8 → u 0.5 → 0; t −1/8 → v 6 → j 6 → ramp(0,6) = ref → 1;
/// lane 3: s 15.5/8 → u 7.5 → 7; t 0.75/8 → v 7.75 → 7 → ramp(7,7) = ref → 1.
#[test]
fn t2_level_zero_offset_edge() {
    let e = 1.0 / 8.0;
    let lanes = [
        lane(&[3.5 * e, 0.5 * e], ramp(0, 7, 0)),
        lane(&[7.5 * e, 0.5 * e], ramp(7, 0, 0)),
        lane(&[8.5 * e, -e], ramp(0, 6, 0)),
        lane(&[15.5 * e, 0.75 * e], ramp(7, 7, 0)),
    ];
    let key = Key::new(Recv::T2, Op::LevelZero).offset([-8, 7]);
    let got = run(key, ramp_tex(Recv::T2), eq(), V, lanes);
    check("t2_level_zero_offset_edge", got, [1.0, 0.0, 1.0, 1.0]);
}

/// Same offset (−8, 7) with clamp to border, opaque white (depth 1.0), compare LESS_OR_EQUAL:
/// lane 0: i −5 → border 1.0; ref 1.0 ≤ 1.0 → 1;
/// lane 1: s 15.5/8 → i 7, t 0.5/8 → j 7 → ramp(7,7) = 0.25; ref 0.3 ≤ 0.25 → 0;
/// lane 2: s 15.5/8, t 1.5/8 → j 8 → border 1.0; ref 0.3 → 1;
/// lane 3: s 15.5/8, t −0.5/8 → v 6.5 → j 6 → ramp(7,6) = 0.21875; ref 0.21875 → 1.
#[test]
fn t2_level_zero_offset_border_white() {
    let e = 1.0 / 8.0;
    let lanes = [
        lane(&[3.5 * e, 0.5 * e], 1.0),
        lane(&[15.5 * e, 0.5 * e], 0.3),
        lane(&[15.5 * e, 1.5 * e], 0.3),
        lane(&[15.5 * e, -0.5 * e], 0.21875),
    ];
    let s = Sampler {
        address_mode: [AddressMode::ClampToBorder; 3],
        border_color: BorderColor::FloatOpaqueWhite,
        ..cmp_sampler(CompareOp::LessOrEqual)
    };
    let key = Key::new(Recv::T2, Op::LevelZero).offset([-8, 7]);
    let got = run(key, ramp_tex(Recv::T2), s, V, lanes);
    check(
        "t2_level_zero_offset_border_white",
        got,
        [1.0, 0.0, 1.0, 1.0],
    );
}

/// SampleCmp with ConstOffset (7, −8), REPEAT. Lanes 1/8 apart → ρ = 1, λ 0 → level 0.
/// lane 0 (0.5, 0.5)/8: u 7.5 → 7, v −7.5 → −8 mod 8 = 0 → (7,0);
/// lane 1 (1.5, 0.5)/8: u 8.5 → 8 mod 8 = 0 → (0,0); lane 2: (7, −7 mod 8 = 1); lane 3: (0,1).
#[test]
fn t2_cmp_offset_repeat() {
    let e = 1.0 / 8.0;
    let lanes = grid(
        [0.5 * e, 0.5 * e, 0.0, 0.0],
        [e, 0.0, 0.0, 0.0],
        [0.0, e, 0.0, 0.0],
        [ramp(7, 0, 0), ramp(0, 0, 0), ramp(7, 1, 0), ramp(0, 1, 0)],
    );
    let s = Sampler {
        address_mode: [AddressMode::Repeat; 3],
        ..eq()
    };
    let key = Key::new(Recv::T2, Op::Cmp).offset([7, -8]);
    let got = run(key, ramp_tex(Recv::T2), s, V, lanes);
    check("t2_cmp_offset_repeat", got, [1.0; 4]);
}

/// SampleCmpGrad, ConstOffset (−8, −8), MIRRORED_REPEAT, gradients 1/8 → λ 0. The mirrored
/// pattern of an 8-texel axis: −1→0 … −8→7, −9→7, 8→7, 9→6 (`7 − mirror((i mod 16) − 8)`).
/// lane 0 (0.5, 0.5)/8: (−7.5, −7.5) → i = j = −8 → (7,7);
/// lane 1 (4.5, 0.5)/8: u −3.5 → −4 → 3 → (3,7);
/// lane 2 (9.5, 8.5)/8: (1.5, 0.5) → (1,0);
/// lane 3 (−0.5, 0.5)/8: u −8.5 → −9 → 7 → (7,7).
#[test]
fn t2_grad_offset_mirrored_repeat() {
    let e = 1.0 / 8.0;
    let mk = |s: f32, t: f32, r: f32| lane(&[s * e, t * e], r).grad(&[e, 0.0], &[0.0, e]);
    let lanes = [
        mk(0.5, 0.5, ramp(7, 7, 0)),
        mk(4.5, 0.5, ramp(3, 7, 0)),
        mk(9.5, 8.5, ramp(1, 0, 0)),
        mk(-0.5, 0.5, ramp(7, 7, 0)),
    ];
    let s = Sampler {
        address_mode: [AddressMode::MirroredRepeat; 3],
        ..eq()
    };
    let key = Key::new(Recv::T2, Op::Grad).offset([-8, -8]);
    let got = run(key, ramp_tex(Recv::T2), s, V, lanes);
    check("t2_grad_offset_mirrored_repeat", got, [1.0; 4]);
}

/// MIRROR_CLAMP_TO_EDGE, `clamp(mirror(i), 0, 7)`: lane 0 s −2.5/8 → i −3 → 2; lane 1 s 9.5/8
/// → 9 → 7; lane 2 s −9.5/8 → −10 → 9 → 7 (ref names texel 0 → 0); lane 3 (4.5, −0.5)/8 →
/// (4, −1 → 0).
#[test]
fn t2_level_zero_mirror_clamp_to_edge() {
    let e = 1.0 / 8.0;
    let lanes = [
        lane(&[-2.5 * e, 0.5 * e], ramp(2, 0, 0)),
        lane(&[9.5 * e, 0.5 * e], ramp(7, 0, 0)),
        lane(&[-9.5 * e, 0.5 * e], ramp(0, 0, 0)),
        lane(&[4.5 * e, -0.5 * e], ramp(4, 0, 0)),
    ];
    let s = Sampler {
        address_mode: [AddressMode::MirrorClampToEdge; 3],
        ..eq()
    };
    let got = run(
        Key::new(Recv::T2, Op::LevelZero),
        ramp_tex(Recv::T2),
        s,
        V,
        lanes,
    );
    check(
        "t2_level_zero_mirror_clamp_to_edge",
        got,
        [1.0, 1.0, 0.0, 1.0],
    );
}

/// CLAMP_TO_BORDER, transparent black (depth 0), compare GREATER:
/// lane 0 s −0.5/8 → i −1 → border 0; 0.5 > 0 → 1; lane 1 s 8.5/8 → border; 0 > 0 → 0;
/// lane 2 texel (0,0) = 1/256; 0.5 > 1/256 → 1; lane 3 t 8.5/8 → border; 1/512 > 0 → 1.
#[test]
fn t2_level_zero_border_transparent_black() {
    let e = 1.0 / 8.0;
    let lanes = [
        lane(&[-0.5 * e, 0.5 * e], 0.5),
        lane(&[8.5 * e, 0.5 * e], 0.0),
        lane(&[0.5 * e, 0.5 * e], 0.5),
        lane(&[0.5 * e, 8.5 * e], 1.0 / 512.0),
    ];
    let s = Sampler {
        address_mode: [AddressMode::ClampToBorder; 3],
        border_color: BorderColor::FloatTransparentBlack,
        ..cmp_sampler(CompareOp::Greater)
    };
    let got = run(
        Key::new(Recv::T2, Op::LevelZero),
        ramp_tex(Recv::T2),
        s,
        V,
        lanes,
    );
    check(
        "t2_level_zero_border_transparent_black",
        got,
        [1.0, 0.0, 1.0, 1.0],
    );
}

/// CLAMP_TO_BORDER, opaque black (depth = R = 0), compare GREATER_OR_EQUAL:
/// lane 0 border: 0 ≥ 0 → 1; lane 1 border: −0.25 ≥ 0 → 0 (float depth: no Dref clamp);
/// lane 2 texel (0,0) = 1/256: 1/256 ≥ 1/256 → 1; lane 3 texel (0,0): 0 ≥ 1/256 → 0.
#[test]
fn t2_level_zero_border_opaque_black() {
    let e = 1.0 / 8.0;
    let lanes = [
        lane(&[-0.5 * e, 0.5 * e], 0.0),
        lane(&[0.5 * e, -0.5 * e], -0.25),
        lane(&[0.5 * e, 0.5 * e], 1.0 / 256.0),
        lane(&[0.5 * e, 0.5 * e], 0.0),
    ];
    let s = Sampler {
        address_mode: [AddressMode::ClampToBorder; 3],
        border_color: BorderColor::FloatOpaqueBlack,
        ..cmp_sampler(CompareOp::GreaterOrEqual)
    };
    let got = run(
        Key::new(Recv::T2, Op::LevelZero),
        ramp_tex(Recv::T2),
        s,
        V,
        lanes,
    );
    check(
        "t2_level_zero_border_opaque_black",
        got,
        [1.0, 0.0, 1.0, 0.0],
    );
}

/// Bilinear PCF (linear mag), compare LESS, s = 2.75/8, t = 1.75/8 → u − 0.5 = 2.25, v − 0.5
/// = 1.25 → i0 2 (α .25), j0 1 (β .25): taps (2,1) = 11/256 w .5625, (3,1) = 12/256 w .1875,
/// (2,2) = 19/256 w .1875, (3,2) = 20/256 w .0625.
/// ref 11.5/256 passes 12, 19, 20 → .4375; 12.5/256 → 19, 20 → .25; 19.5/256 → 20 → .0625;
/// 10/256 → all → 1.
#[test]
fn t2_level_zero_pcf_bilinear() {
    let c = [2.75 / 8.0, 1.75 / 8.0];
    let lanes = [
        lane(&c, 11.5 / 256.0),
        lane(&c, 12.5 / 256.0),
        lane(&c, 19.5 / 256.0),
        lane(&c, 10.0 / 256.0),
    ];
    let s = Sampler {
        mag_filter: Filter::Linear,
        min_filter: Filter::Linear,
        ..cmp_sampler(CompareOp::Less)
    };
    let got = run(
        Key::new(Recv::T2, Op::LevelZero),
        ramp_tex(Recv::T2),
        s,
        V,
        lanes,
    );
    check(
        "t2_level_zero_pcf_bilinear",
        got,
        [0.4375, 0.25, 0.0625, 1.0],
    );
}

/// PCF taps crossing into the border (opaque white = 1.0), compare LESS, t = 0.5/8 (β = 0):
/// lane 0/1/2 s = 0.25/8 → u − 0.5 = −0.25 → i0 −1 (border, w .25), i1 0 (1/256, w .75):
///   ref 0.5 → border passes → .25; ref 0 → both pass → 1; ref 1.0 → none → 0;
/// lane 3 s = 7.75/8 → u − 0.5 = 7.25 → texel (7,0) = 8/256 (w .75), border (w .25):
///   ref 0.5 → .25.
#[test]
fn t2_level_zero_pcf_border() {
    let t = 0.5 / 8.0;
    let lanes = [
        lane(&[0.25 / 8.0, t], 0.5),
        lane(&[0.25 / 8.0, t], 0.0),
        lane(&[0.25 / 8.0, t], 1.0),
        lane(&[7.75 / 8.0, t], 0.5),
    ];
    let s = Sampler {
        mag_filter: Filter::Linear,
        min_filter: Filter::Linear,
        address_mode: [AddressMode::ClampToBorder; 3],
        border_color: BorderColor::FloatOpaqueWhite,
        ..cmp_sampler(CompareOp::Less)
    };
    let got = run(
        Key::new(Recv::T2, Op::LevelZero),
        ramp_tex(Recv::T2),
        s,
        V,
        lanes,
    );
    check("t2_level_zero_pcf_border", got, [0.25, 1.0, 0.0, 0.25]);
}

/// Every compare op once: all lanes read texel (2,0) = 3/256 (s 2.5/8, t 0.5/8), refs
/// 2/256, 3/256, 4/256 and NaN (NaN compares false except NOT_EQUAL).
macro_rules! compare_op_case {
    ($name:ident, $op:ident, $want:expr) => {
        #[test]
        fn $name() {
            let c = [2.5 / 8.0, 0.5 / 8.0];
            let lanes = [
                lane(&c, 2.0 / 256.0),
                lane(&c, 3.0 / 256.0),
                lane(&c, 4.0 / 256.0),
                lane(&c, f32::NAN),
            ];
            let s = cmp_sampler(CompareOp::$op);
            let got = run(
                Key::new(Recv::T2, Op::LevelZero),
                ramp_tex(Recv::T2),
                s,
                V,
                lanes,
            );
            check(stringify!($name), got, $want);
        }
    };
}
// ref:           2<3  3=3  4>3  NaN
compare_op_case!(t2_compare_never, Never, [0.0, 0.0, 0.0, 0.0]);
compare_op_case!(t2_compare_less, Less, [1.0, 0.0, 0.0, 0.0]);
compare_op_case!(t2_compare_equal, Equal, [0.0, 1.0, 0.0, 0.0]);
compare_op_case!(t2_compare_less_or_equal, LessOrEqual, [1.0, 1.0, 0.0, 0.0]);
compare_op_case!(t2_compare_greater, Greater, [0.0, 0.0, 1.0, 0.0]);
compare_op_case!(t2_compare_not_equal, NotEqual, [1.0, 0.0, 1.0, 1.0]);
compare_op_case!(
    t2_compare_greater_or_equal,
    GreaterOrEqual,
    [0.0, 1.0, 1.0, 0.0]
);
compare_op_case!(t2_compare_always, Always, [1.0, 1.0, 1.0, 1.0]);

/// D16_UNORM holding 1.0 (65535), compare EQUAL, Vulkan: Dref clamped to [0, 1] first →
/// refs 1.5 and 2.0 become 1.0 → equal → 1; 0.5 → 0; 1.0 → 1.
#[test]
fn t2_unorm16_dref_clamp_vulkan() {
    let c = [0.5, 0.5];
    let lanes = [lane(&c, 1.5), lane(&c, 2.0), lane(&c, 0.5), lane(&c, 1.0)];
    let img = const_tex(Recv::T2, quadstep::Format::D16_UNORM, 1.0);
    let got = run(Key::new(Recv::T2, Op::LevelZero), img, eq(), V, lanes);
    check("t2_unorm16_dref_clamp_vulkan", got, [1.0, 1.0, 0.0, 1.0]);
}

/// D16_UNORM holding 0.25 → round(0.25·65535 = 16383.75) = 16384, decoded 16384/65535.
/// D3D quantizes Dref to 16 bits: 16383.8/65535 → 16384 (equal → 1); 16384/65535 → 1;
/// 16383.3/65535 → 16383 → 0; 16384.2/65535 → 16384 → 1.
#[test]
fn t2_unorm16_dref_quantize_d3d() {
    let c = [0.5, 0.5];
    let lanes = [
        lane(&c, 16383.8 / 65535.0),
        lane(&c, 16384.0 / 65535.0),
        lane(&c, 16383.3 / 65535.0),
        lane(&c, 16384.2 / 65535.0),
    ];
    let img = const_tex(Recv::T2, quadstep::Format::D16_UNORM, 0.25);
    let got = run(Key::new(Recv::T2, Op::LevelZero), img, eq(), D, lanes);
    check("t2_unorm16_dref_quantize_d3d", got, [1.0, 1.0, 0.0, 1.0]);
}

/// Same refs in Vulkan (no quantization): only the exact value is equal.
#[test]
fn t2_unorm16_dref_no_quantize_vulkan() {
    let c = [0.5, 0.5];
    let lanes = [
        lane(&c, 16383.8 / 65535.0),
        lane(&c, 16384.0 / 65535.0),
        lane(&c, 16383.3 / 65535.0),
        lane(&c, 16384.2 / 65535.0),
    ];
    let img = const_tex(Recv::T2, quadstep::Format::D16_UNORM, 0.25);
    let got = run(Key::new(Recv::T2, Op::LevelZero), img, eq(), V, lanes);
    check(
        "t2_unorm16_dref_no_quantize_vulkan",
        got,
        [0.0, 1.0, 0.0, 0.0],
    );
}

// ---------------------------------------------------------------------------------------------
// Texture1D (level texture 16 wide, levels 0..4; ramp 8 wide: ramp(i) = (i + 1)/256)
// ---------------------------------------------------------------------------------------------

/// SampleCmp: s = 0.125, 0.375, 0.125, 0.375 → dX = 0.25·16 = 4, dY = 0 → ρ 4, λ 2.
#[test]
fn t1_cmp_implicit() {
    let lanes = grid(
        [0.125, 0.0, 0.0, 0.0],
        [0.25, 0.0, 0.0, 0.0],
        [0.0; 4],
        [dv(2, 0), dv(2, 0), dv(1, 0), dv(3, 0)],
    );
    let got = run(
        Key::new(Recv::T1, Op::Cmp),
        level_tex(Recv::T1),
        eq(),
        V,
        lanes,
    );
    check("t1_cmp_implicit", got, [1.0, 1.0, 0.0, 0.0]);
}

/// SampleCmpBias: λ_base 2 (as above), bias −1, 1, −3, 0.5 → λ 1, 3, −1 → 0, 2.5 →
/// floor(3.0) = 3.
#[test]
fn t1_bias() {
    let mut lanes = grid(
        [0.125, 0.0, 0.0, 0.0],
        [0.25, 0.0, 0.0, 0.0],
        [0.0; 4],
        [dv(1, 0), dv(3, 0), dv(0, 0), dv(3, 0)],
    );
    for (l, b) in lanes.iter_mut().zip([-1.0, 1.0, -3.0, 0.5]) {
        *l = l.lb(b);
    }
    let got = run(
        Key::new(Recv::T1, Op::Bias),
        level_tex(Recv::T1),
        eq(),
        V,
        lanes,
    );
    check("t1_bias", got, [1.0; 4]);
}

/// SampleCmpLevel: lod 0, 1, 4, 9 → levels 0, 1, 4, 4 (lane 1's ref names level 0 → 0).
#[test]
fn t1_level() {
    let lanes = [
        lane(&[0.3], dv(0, 0)).lb(0.0),
        lane(&[0.3], dv(0, 0)).lb(1.0),
        lane(&[0.3], dv(4, 0)).lb(4.0),
        lane(&[0.3], dv(4, 0)).lb(9.0),
    ];
    let got = run(
        Key::new(Recv::T1, Op::Level),
        level_tex(Recv::T1),
        eq(),
        V,
        lanes,
    );
    check("t1_level", got, [1.0, 0.0, 1.0, 1.0]);
}

/// SampleCmpLevelZero, separate texture + comparison sampler: level 0 everywhere.
#[test]
fn t1_level_zero_separate() {
    let lanes = [
        lane(&[0.3], dv(0, 0)),
        lane(&[0.9], dv(0, 0)),
        lane(&[0.1], dv(1, 0)),
        lane(&[0.5], dv(0, 0)),
    ];
    let key = Key::new(Recv::T1, Op::LevelZero).separate();
    let got = run(key, level_tex(Recv::T1), eq(), V, lanes);
    check("t1_level_zero_separate", got, [1.0, 1.0, 0.0, 1.0]);
}

/// SampleCmpGrad (1 component): lane 0 gx 1/16, gy 4/16 → ρ = max(1, 4) = 4 → λ 2;
/// gx 2/16 → 1; 8/16 → 3; 64/16 → 6 → last level 4.
#[test]
fn t1_grad() {
    let g = 1.0 / 16.0;
    let lanes = [
        lane(&[0.3], dv(2, 0)).grad(&[g], &[4.0 * g]),
        lane(&[0.3], dv(1, 0)).grad(&[2.0 * g], &[0.0]),
        lane(&[0.3], dv(3, 0)).grad(&[8.0 * g], &[0.0]),
        lane(&[0.3], dv(4, 0)).grad(&[64.0 * g], &[0.0]),
    ];
    let got = run(
        Key::new(Recv::T1, Op::Grad),
        level_tex(Recv::T1),
        eq(),
        V,
        lanes,
    );
    check("t1_grad", got, [1.0; 4]);
}

/// SampleCmpGrad with clamp: gx 2/16 → λ 1; clamps 0, 3, 2.5, 0.5 → λ 1, 3, 2.5 →
/// floor(3.0) = 3, 1.
#[test]
fn t1_grad_clamp() {
    let g = 2.0 / 16.0;
    let mk = |r: f32, c: f32| lane(&[0.3], r).grad(&[g], &[0.0]).cl(c);
    let lanes = [
        mk(dv(1, 0), 0.0),
        mk(dv(3, 0), 3.0),
        mk(dv(3, 0), 2.5),
        mk(dv(1, 0), 0.5),
    ];
    let key = Key::new(Recv::T1, Op::Grad).clamp();
    let got = run(key, level_tex(Recv::T1), eq(), V, lanes);
    check("t1_grad_clamp", got, [1.0; 4]);
}

/// SampleCmpLevelZero, ConstOffset −8, clamp to edge on the 8-wide ramp: u = 8s − 8 for s =
/// 3.5/8, 7.5/8, 8.5/8, 15.5/8 → −4.5, −0.5, 0.5, 7.5 → texels 0, 0, 0, 7. Lane 1's ref names
/// texel 7 (the un-offset texel) → 0.
#[test]
fn t1_level_zero_offset_m8_edge() {
    let e = 1.0 / 8.0;
    let lanes = [
        lane(&[3.5 * e], ramp(0, 0, 0)),
        lane(&[7.5 * e], ramp(7, 0, 0)),
        lane(&[8.5 * e], ramp(0, 0, 0)),
        lane(&[15.5 * e], ramp(7, 0, 0)),
    ];
    let key = Key::new(Recv::T1, Op::LevelZero).offset([-8, 0]);
    let got = run(key, ramp_tex(Recv::T1), eq(), V, lanes);
    check("t1_level_zero_offset_m8_edge", got, [1.0, 0.0, 1.0, 1.0]);
}

/// ConstOffset 7 with clamp to border (opaque white = 1.0), EQUAL: u = 8s + 7 for s = 0.5/8,
/// 1.5/8, −7.5/8, −8.5/8 → 7.5, 8.5, −0.5, −1.5 → texel 7, border, border, border.
/// Refs ramp(7), 1.0, 1.0, ramp(0) → 1, 1, 1, 0.
#[test]
fn t1_level_zero_offset_p7_border() {
    let e = 1.0 / 8.0;
    let lanes = [
        lane(&[0.5 * e], ramp(7, 0, 0)),
        lane(&[1.5 * e], 1.0),
        lane(&[-7.5 * e], 1.0),
        lane(&[-8.5 * e], ramp(0, 0, 0)),
    ];
    let s = Sampler {
        address_mode: [AddressMode::ClampToBorder; 3],
        border_color: BorderColor::FloatOpaqueWhite,
        ..eq()
    };
    let key = Key::new(Recv::T1, Op::LevelZero).offset([7, 0]);
    let got = run(key, ramp_tex(Recv::T1), s, V, lanes);
    check("t1_level_zero_offset_p7_border", got, [1.0, 1.0, 1.0, 0.0]);
}

/// SampleCmp with ConstOffset −8, REPEAT: s = 0.5/8, 1.5/8, 0.5/8, 1.5/8 → ρ 1, λ 0;
/// u − 8 = −7.5, −6.5 → texels −8 mod 8 = 0, −7 mod 8 = 1. Lane 2's ref names texel 1 → 0.
#[test]
fn t1_cmp_offset_repeat() {
    let e = 1.0 / 8.0;
    let lanes = grid(
        [0.5 * e, 0.0, 0.0, 0.0],
        [e, 0.0, 0.0, 0.0],
        [0.0; 4],
        [ramp(0, 0, 0), ramp(1, 0, 0), ramp(1, 0, 0), ramp(1, 0, 0)],
    );
    let s = Sampler {
        address_mode: [AddressMode::Repeat; 3],
        ..eq()
    };
    let key = Key::new(Recv::T1, Op::Cmp).offset([-8, 0]);
    let got = run(key, ramp_tex(Recv::T1), s, V, lanes);
    check("t1_cmp_offset_repeat", got, [1.0, 1.0, 0.0, 1.0]);
}

/// Linear 1D PCF with compare GREATER: s = 3.25/8 → u − 0.5 = 2.75 → texel 2 (3/256, w .25)
/// and texel 3 (4/256, w .75). ref 3.5/256 > only texel 2 → .25; 5/256 → 1; 3/256 → 0;
/// 4/256 → .25.
#[test]
fn t1_level_zero_pcf() {
    let c = [3.25 / 8.0];
    let lanes = [
        lane(&c, 3.5 / 256.0),
        lane(&c, 5.0 / 256.0),
        lane(&c, 3.0 / 256.0),
        lane(&c, 4.0 / 256.0),
    ];
    let s = Sampler {
        mag_filter: Filter::Linear,
        min_filter: Filter::Linear,
        ..cmp_sampler(CompareOp::Greater)
    };
    let got = run(
        Key::new(Recv::T1, Op::LevelZero),
        ramp_tex(Recv::T1),
        s,
        V,
        lanes,
    );
    check("t1_level_zero_pcf", got, [0.25, 1.0, 0.0, 0.25]);
}

// ---------------------------------------------------------------------------------------------
// Texture1DArray (16 wide, 4 layers, levels 0..4; ramp 8 wide, 2 layers). DXC-style separate
// texture + sampler throughout.
// ---------------------------------------------------------------------------------------------

/// SampleCmpLevelZero, layer = clamp(RNE(a), 0, 3): a 0.5 → 0 (tie to even), 1.5 → 2,
/// 2.5 → 2, 7 → 3.
#[test]
fn t1a_layer_rounding() {
    let lanes = [
        lane(&[0.3, 0.5], dv(0, 0)),
        lane(&[0.3, 1.5], dv(0, 2)),
        lane(&[0.3, 2.5], dv(0, 2)),
        lane(&[0.3, 7.0], dv(0, 3)),
    ];
    let key = Key::new(Recv::T1A, Op::LevelZero).separate();
    let got = run(key, level_tex(Recv::T1A), eq(), V, lanes);
    check("t1a_layer_rounding", got, [1.0; 4]);
}

/// Layer a −1 → 0; 3.5 → RNE 4 → clamp 3; 1.4999 → 1; 0.49 → 0 (ref names layer 1 → 0).
#[test]
fn t1a_layer_clamp() {
    let lanes = [
        lane(&[0.3, -1.0], dv(0, 0)),
        lane(&[0.3, 3.5], dv(0, 3)),
        lane(&[0.3, 1.4999], dv(0, 1)),
        lane(&[0.3, 0.49], dv(0, 1)),
    ];
    let key = Key::new(Recv::T1A, Op::LevelZero).separate();
    let got = run(key, level_tex(Recv::T1A), eq(), V, lanes);
    check("t1a_layer_clamp", got, [1.0, 1.0, 1.0, 0.0]);
}

/// SampleCmp: lanes (s, a) = (0.125, 0), (0.375, 1), (0.125, 2), (0.375, 3): dX.s = 0.25·16 =
/// 4, dY.s = 0; the layer coordinate is not part of ρ → λ 2 → level 2 of each lane's layer.
#[test]
fn t1a_cmp_implicit() {
    let lanes = [
        lane(&[0.125, 0.0], dv(2, 0)),
        lane(&[0.375, 1.0], dv(2, 1)),
        lane(&[0.125, 2.0], dv(2, 2)),
        lane(&[0.375, 3.0], dv(2, 3)),
    ];
    let key = Key::new(Recv::T1A, Op::Cmp).separate();
    let got = run(key, level_tex(Recv::T1A), eq(), V, lanes);
    check("t1a_cmp_implicit", got, [1.0; 4]);
}

/// SampleCmpBias on the same lanes: bias 1, −2, 0, 9 → λ 3, 0, 2, 11 → last level 4.
#[test]
fn t1a_bias() {
    let lanes = [
        lane(&[0.125, 0.0], dv(3, 0)).lb(1.0),
        lane(&[0.375, 1.0], dv(0, 1)).lb(-2.0),
        lane(&[0.125, 2.0], dv(2, 2)).lb(0.0),
        lane(&[0.375, 3.0], dv(4, 3)).lb(9.0),
    ];
    let key = Key::new(Recv::T1A, Op::Bias).separate();
    let got = run(key, level_tex(Recv::T1A), eq(), V, lanes);
    check("t1a_bias", got, [1.0; 4]);
}

/// SampleCmpLevel lod 2 with layers 0, 1.5 → 2, 3, 9 → 3.
#[test]
fn t1a_level() {
    let lanes = [
        lane(&[0.3, 0.0], dv(2, 0)).lb(2.0),
        lane(&[0.3, 1.5], dv(2, 2)).lb(2.0),
        lane(&[0.3, 3.0], dv(2, 3)).lb(2.0),
        lane(&[0.3, 9.0], dv(2, 3)).lb(2.0),
    ];
    let key = Key::new(Recv::T1A, Op::Level).separate();
    let got = run(key, level_tex(Recv::T1A), eq(), V, lanes);
    check("t1a_level", got, [1.0; 4]);
}

/// SampleCmpGrad with clamp: gx 4/16 → λ 2; clamps 0, 3, 0, 1 → λ 2, 3, 2, 2; layers 3, 2, 1, 0.
#[test]
fn t1a_grad_clamp() {
    let g = 4.0 / 16.0;
    let mk = |a: f32, r: f32, c: f32| lane(&[0.3, a], r).grad(&[g], &[0.0]).cl(c);
    let lanes = [
        mk(3.0, dv(2, 3), 0.0),
        mk(2.0, dv(3, 2), 3.0),
        mk(1.0, dv(2, 1), 0.0),
        mk(0.0, dv(2, 0), 1.0),
    ];
    let key = Key::new(Recv::T1A, Op::Grad).clamp().separate();
    let got = run(key, level_tex(Recv::T1A), eq(), V, lanes);
    check("t1a_grad_clamp", got, [1.0; 4]);
}

/// SampleCmpLevelZero, ConstOffset 7, clamp to edge, on the 2-layer ramp; the offset never
/// touches the layer: (0.5/8, 1) → 7.5 → texel 7 of layer 1; (3.5/8, 0) → 10.5 → 7 of layer 0;
/// (−7.5/8, 1) → −0.5 → 0 of layer 1; (−6.5/8, 0.6 → 1) → 0.5 → 0 of layer 1.
#[test]
fn t1a_level_zero_offset() {
    let e = 1.0 / 8.0;
    let lanes = [
        lane(&[0.5 * e, 1.0], ramp(7, 0, 1)),
        lane(&[3.5 * e, 0.0], ramp(7, 0, 0)),
        lane(&[-7.5 * e, 1.0], ramp(0, 0, 1)),
        lane(&[-6.5 * e, 0.6], ramp(0, 0, 1)),
    ];
    let key = Key::new(Recv::T1A, Op::LevelZero).offset([7, 0]).separate();
    let got = run(key, ramp_tex(Recv::T1A), eq(), V, lanes);
    check("t1a_level_zero_offset", got, [1.0; 4]);
}

// ---------------------------------------------------------------------------------------------
// Texture2DArray (16×16, 4 layers, levels 0..4; ramp 8×8×2). Separate texture + sampler.
// ---------------------------------------------------------------------------------------------

/// SampleCmp: grid 2/16 → λ 1; layers 3, 2, 1, 0 (the layer's own differences do not enter
/// ρ). Lane 3's ref names level 0 → 0.
#[test]
fn t2a_cmp_implicit() {
    let lanes = [
        lane(&[0.25, 0.25, 3.0], dv(1, 3)),
        lane(&[0.375, 0.25, 2.0], dv(1, 2)),
        lane(&[0.25, 0.375, 1.0], dv(1, 1)),
        lane(&[0.375, 0.375, 0.0], dv(0, 0)),
    ];
    let key = Key::new(Recv::T2A, Op::Cmp).separate();
    let got = run(key, level_tex(Recv::T2A), eq(), V, lanes);
    check("t2a_cmp_implicit", got, [1.0, 1.0, 1.0, 0.0]);
}

/// SampleCmpBias with clamp: λ_base 1; bias 1, 1, −1, 0; clamps 0, 3, 2, 0 → λ 2, 3, 2, 1;
/// layers 0.5 → 0, 1, 2.5 → 2, 3.
#[test]
fn t2a_bias_clamp() {
    let lanes = [
        lane(&[0.25, 0.25, 0.5], dv(2, 0)).lb(1.0).cl(0.0),
        lane(&[0.375, 0.25, 1.0], dv(3, 1)).lb(1.0).cl(3.0),
        lane(&[0.25, 0.375, 2.5], dv(2, 2)).lb(-1.0).cl(2.0),
        lane(&[0.375, 0.375, 3.0], dv(1, 3)).lb(0.0).cl(0.0),
    ];
    let key = Key::new(Recv::T2A, Op::Bias).clamp().separate();
    let got = run(key, level_tex(Recv::T2A), eq(), V, lanes);
    check("t2a_bias_clamp", got, [1.0; 4]);
}

/// SampleCmpLevel: lod 0.4 → 0, 0.6 → 1, 4 → 4, 1 → 1; layers 0.5 → 0, 2.5 → 2, 1.5 → 2,
/// 5 → 3.
#[test]
fn t2a_level() {
    let lanes = [
        lane(&[0.5, 0.5, 0.5], dv(0, 0)).lb(0.4),
        lane(&[0.5, 0.5, 2.5], dv(1, 2)).lb(0.6),
        lane(&[0.5, 0.5, 1.5], dv(4, 2)).lb(4.0),
        lane(&[0.5, 0.5, 5.0], dv(1, 3)).lb(1.0),
    ];
    let key = Key::new(Recv::T2A, Op::Level).separate();
    let got = run(key, level_tex(Recv::T2A), eq(), V, lanes);
    check("t2a_level", got, [1.0; 4]);
}

/// SampleCmpGrad with clamp: gx (0, 8/16), gy (2/16, 0) → ρ = max(8, 2) = 8 → λ 3;
/// clamps 0, 4, 3.6, 0 → λ 3, 4, 3.6 → floor(4.1) = 4, 3; layers 0, 1, 2, 3; lane 3's ref names
/// level 2 → 0.
#[test]
fn t2a_grad_clamp() {
    let mk = |a: f32, r: f32, c: f32| {
        lane(&[0.5, 0.5, a], r)
            .grad(&[0.0, 0.5], &[0.125, 0.0])
            .cl(c)
    };
    let lanes = [
        mk(0.0, dv(3, 0), 0.0),
        mk(1.0, dv(4, 1), 4.0),
        mk(2.0, dv(4, 2), 3.6),
        mk(3.0, dv(2, 3), 0.0),
    ];
    let key = Key::new(Recv::T2A, Op::Grad).clamp().separate();
    let got = run(key, level_tex(Recv::T2A), eq(), V, lanes);
    check("t2a_grad_clamp", got, [1.0, 1.0, 1.0, 0.0]);
}

/// SampleCmpLevelZero, ConstOffset (7, −8), clamp to border (opaque white), EQUAL, ramp 8×8×2:
/// lane 0 (0.5/8, 8.5/8, 1) → u 7.5, v 0.5 → (7, 0) of layer 1;
/// lane 1 (1.5/8, 8.5/8, 0) → u 8.5 → border 1.0, ref 1.0 → 1;
/// lane 2 (0.5/8, 0.5/8, 0) → v −7.5 → border; ref ramp(7,0,0) → 0;
/// lane 3 (−6.5/8, 15.5/8, 1.5 → 2 → clamp 1) → (0.5, 7.5) → (0, 7) of layer 1.
#[test]
fn t2a_level_zero_offset_border() {
    let e = 1.0 / 8.0;
    let lanes = [
        lane(&[0.5 * e, 8.5 * e, 1.0], ramp(7, 0, 1)),
        lane(&[1.5 * e, 8.5 * e, 0.0], 1.0),
        lane(&[0.5 * e, 0.5 * e, 0.0], ramp(7, 0, 0)),
        lane(&[-6.5 * e, 15.5 * e, 1.5], ramp(0, 7, 1)),
    ];
    let s = Sampler {
        address_mode: [AddressMode::ClampToBorder; 3],
        border_color: BorderColor::FloatOpaqueWhite,
        ..eq()
    };
    let key = Key::new(Recv::T2A, Op::LevelZero)
        .offset([7, -8])
        .separate();
    let got = run(key, ramp_tex(Recv::T2A), s, V, lanes);
    check("t2a_level_zero_offset_border", got, [1.0, 1.0, 0.0, 1.0]);
}

// ---------------------------------------------------------------------------------------------
// TextureCube (8×8 faces, levels 0..3; face n of level L holds dv(L, n)); no offsets.
// Faces (§4.1): +x 0, −x 1, +y 2, −y 3, +z 4, −z 5; ties Z > Y > X.
// ---------------------------------------------------------------------------------------------

/// SampleCmpLevelZero face selection: (1, 0.2, −0.3) → +x; (−3, 1, 1) → −x; (0.1, 2, −0.5)
/// → +y; (0.3, −2, 1) → −y.
#[test]
fn cube_faces_x_y() {
    let lanes = [
        lane(&[1.0, 0.2, -0.3], dv(0, 0)),
        lane(&[-3.0, 1.0, 1.0], dv(0, 1)),
        lane(&[0.1, 2.0, -0.5], dv(0, 2)),
        lane(&[0.3, -2.0, 1.0], dv(0, 3)),
    ];
    let got = run(
        Key::new(Recv::Cube, Op::LevelZero),
        level_tex(Recv::Cube),
        eq(),
        V,
        lanes,
    );
    check("cube_faces_x_y", got, [1.0; 4]);
}

/// (0.2, 0.1, 5) → +z; (0.2, 0.1, −5) → −z; (1, 1, 1): three-way tie → Z → +z;
/// (−1, 1, 0.5): x/y tie → Y → +y.
#[test]
fn cube_faces_z_and_ties() {
    let lanes = [
        lane(&[0.2, 0.1, 5.0], dv(0, 4)),
        lane(&[0.2, 0.1, -5.0], dv(0, 5)),
        lane(&[1.0, 1.0, 1.0], dv(0, 4)),
        lane(&[-1.0, 1.0, 0.5], dv(0, 2)),
    ];
    let got = run(
        Key::new(Recv::Cube, Op::LevelZero),
        level_tex(Recv::Cube),
        eq(),
        V,
        lanes,
    );
    check("cube_faces_z_and_ties", got, [1.0; 4]);
}

/// Seamless PCF across a cube edge (linear mag, level 0, EQUAL).
/// Direction A = (1, 0, 0.9375): face +x, s_c = −z = −0.9375 → s = 0.5·(−0.9375) + 0.5 =
/// 1/32 → u = 0.25 → u − 0.5 = −0.25 → i0 = −1 (w .25), i1 = 0 (w .75); t = 0.5 → v − 0.5 =
/// 3.5 → rows 3/4 (w .5 each). Column −1 of +x is the right column of +z (the +x face's s = 0
/// edge is z = x). So the +z face carries weight .25, +x .75.
/// Direction B = (1, 0.9375, 0): t_c = −y → t = 1/32 → row −1 (w .25) crosses the top edge
/// into +y; +y carries .25; +z none.
#[test]
fn cube_edge_pcf() {
    let a = [1.0, 0.0, 0.9375];
    let b = [1.0, 0.9375, 0.0];
    let lanes = [
        lane(&a, dv(0, 4)),
        lane(&a, dv(0, 0)),
        lane(&b, dv(0, 2)),
        lane(&b, dv(0, 4)),
    ];
    let s = Sampler {
        mag_filter: Filter::Linear,
        min_filter: Filter::Linear,
        ..eq()
    };
    let got = run(
        Key::new(Recv::Cube, Op::LevelZero),
        level_tex(Recv::Cube),
        s,
        V,
        lanes,
    );
    check("cube_edge_pcf", got, [0.25, 0.75, 0.25, 0.0]);
}

/// Cube corner: direction (1, 0.9375, 0.9375) on +x → u = v = 0.25 → taps (0,0) +x w .5625,
/// (−1,0) → +z w .1875, (0,−1) → +y w .1875, (−1,−1) is off both edges (w .0625): replaced by
/// the average of the three real corner texels' comparison results (§4.3).
/// EQUAL +x: .5625 + .0625·(1/3) = 0.583333…; EQUAL +z: .1875 + .0625/3 = 0.208333…;
/// EQUAL +y: same 0.208333…; EQUAL −x: 0.
#[test]
fn cube_corner_pcf() {
    let c = [1.0, 0.9375, 0.9375];
    let lanes = [
        lane(&c, dv(0, 0)),
        lane(&c, dv(0, 4)),
        lane(&c, dv(0, 2)),
        lane(&c, dv(0, 1)),
    ];
    let s = Sampler {
        mag_filter: Filter::Linear,
        min_filter: Filter::Linear,
        ..eq()
    };
    let got = run(
        Key::new(Recv::Cube, Op::LevelZero),
        level_tex(Recv::Cube),
        s,
        V,
        lanes,
    );
    check(
        "cube_corner_pcf",
        got,
        [
            0.5625 + 0.0625 / 3.0,
            0.1875 + 0.0625 / 3.0,
            0.1875 + 0.0625 / 3.0,
            0.0,
        ],
    );
}

/// SampleCmp: lanes (0,0,1), (0.5,0,1), (0,0.5,1), (0.5,0.5,1), all on +z (|z| = 1 largest).
/// dX = (0.5, 0, 0), dY = (0, 0.5, 0), ∂|r_c| = 0, so per lane ∂s/∂x = 0.5·0.5/1 = 0.25 and
/// ∂t/∂y = 0.25 → ×8 = 2 → ρ 2, λ 1 in every lane. Lanes 2/3 name levels 0/2 → 0.
#[test]
fn cube_cmp_implicit() {
    let lanes = grid(
        [0.0, 0.0, 1.0, 0.0],
        [0.5, 0.0, 0.0, 0.0],
        [0.0, 0.5, 0.0, 0.0],
        [dv(1, 4), dv(1, 4), dv(0, 4), dv(2, 4)],
    );
    let got = run(
        Key::new(Recv::Cube, Op::Cmp),
        level_tex(Recv::Cube),
        eq(),
        V,
        lanes,
    );
    check("cube_cmp_implicit", got, [1.0, 1.0, 0.0, 0.0]);
}

/// SampleCmp, separate texture + sampler, same lanes with clamp 0, 2, 3.5, 0.5: λ = 1, 2,
/// 3.5 → last level 3, 1.
#[test]
fn cube_cmp_clamp_separate() {
    let mut lanes = grid(
        [0.0, 0.0, 1.0, 0.0],
        [0.5, 0.0, 0.0, 0.0],
        [0.0, 0.5, 0.0, 0.0],
        [dv(1, 4), dv(2, 4), dv(3, 4), dv(1, 4)],
    );
    for (l, c) in lanes.iter_mut().zip([0.0, 2.0, 3.5, 0.5]) {
        *l = l.cl(c);
    }
    let key = Key::new(Recv::Cube, Op::Cmp).clamp().separate();
    let got = run(key, level_tex(Recv::Cube), eq(), V, lanes);
    check("cube_cmp_clamp_separate", got, [1.0; 4]);
}

/// SampleCmpBias with clamp, λ_base 1 as above: bias 1, −1, 0.5, 2; clamps 0, 0, 0, 3.5 →
/// λ 2, 0, 1.5 → floor(2.0) = 2, max(3, 3.5) → last level 3.
#[test]
fn cube_bias_clamp() {
    let mut lanes = grid(
        [0.0, 0.0, 1.0, 0.0],
        [0.5, 0.0, 0.0, 0.0],
        [0.0, 0.5, 0.0, 0.0],
        [dv(2, 4), dv(0, 4), dv(2, 4), dv(3, 4)],
    );
    for (l, (b, c)) in lanes
        .iter_mut()
        .zip([(1.0, 0.0), (-1.0, 0.0), (0.5, 0.0), (2.0, 3.5)])
    {
        *l = l.lb(b).cl(c);
    }
    let key = Key::new(Recv::Cube, Op::Bias).clamp();
    let got = run(key, level_tex(Recv::Cube), eq(), V, lanes);
    check("cube_bias_clamp", got, [1.0; 4]);
}

/// SampleCmpLevel: lod 3 on −z, 9 → last level 3 on +y, 0.4 → 0 on −x, 2 on −y.
#[test]
fn cube_level() {
    let lanes = [
        lane(&[0.0, 0.0, -1.0], dv(3, 5)).lb(3.0),
        lane(&[0.0, 1.0, 0.0], dv(3, 2)).lb(9.0),
        lane(&[-1.0, 0.0, 0.0], dv(0, 1)).lb(0.4),
        lane(&[0.0, -1.0, 0.0], dv(2, 3)).lb(2.0),
    ];
    let got = run(
        Key::new(Recv::Cube, Op::Level),
        level_tex(Recv::Cube),
        eq(),
        V,
        lanes,
    );
    check("cube_level", got, [1.0; 4]);
}

/// SampleCmpGrad (3-component gradients), quotient rule ∂s = 0.5·(|r_c|·∂s_c − s_c·∂|r_c|)/r_c²
/// (§4.2), face size 8:
/// lane 0 (0,0,1), gx (0.5,0,0) → ∂s = 0.25 → 2 → λ 1;
/// lane 1 (0.5,0,1), gx (0,0,1) → ∂s = 0.5·(0 − 0.5·1) = −0.25 → 2 → λ 1 (only the
///        quotient rule's second term moves s here);
/// lane 2 (0,0,1), gx (2,0,0) → ∂s = 1 → 8 → λ 3;
/// lane 3 (0,0,1), gx (0,0,5) (along the major axis at the face centre → ∂s = 0),
///        gy (0,1,0) → t_c = −y → ∂t = −0.5 → 4 → λ 2.
#[test]
fn cube_grad() {
    let lanes = [
        lane(&[0.0, 0.0, 1.0], dv(1, 4)).grad(&[0.5, 0.0, 0.0], &[0.0; 3]),
        lane(&[0.5, 0.0, 1.0], dv(1, 4)).grad(&[0.0, 0.0, 1.0], &[0.0; 3]),
        lane(&[0.0, 0.0, 1.0], dv(3, 4)).grad(&[2.0, 0.0, 0.0], &[0.0; 3]),
        lane(&[0.0, 0.0, 1.0], dv(2, 4)).grad(&[0.0, 0.0, 5.0], &[0.0, 1.0, 0.0]),
    ];
    let got = run(
        Key::new(Recv::Cube, Op::Grad),
        level_tex(Recv::Cube),
        eq(),
        V,
        lanes,
    );
    check("cube_grad", got, [1.0; 4]);
}

/// SampleCmpGrad with clamp on −x: at (−1, 0, 0), gx (0, 0, 0.5) → s_c = +z → ∂s = 0.25 → 2
/// → λ 1; clamps 0, 2, 2.5, 5 → λ 1, 2, 2.5 → floor(3.0) = 3, 5 → last level 3.
#[test]
fn cube_grad_clamp() {
    let mk = |r: f32, c: f32| {
        lane(&[-1.0, 0.0, 0.0], r)
            .grad(&[0.0, 0.0, 0.5], &[0.0; 3])
            .cl(c)
    };
    let lanes = [
        mk(dv(1, 1), 0.0),
        mk(dv(2, 1), 2.0),
        mk(dv(3, 1), 2.5),
        mk(dv(3, 1), 5.0),
    ];
    let key = Key::new(Recv::Cube, Op::Grad).clamp();
    let got = run(key, level_tex(Recv::Cube), eq(), V, lanes);
    check("cube_grad_clamp", got, [1.0; 4]);
}

// ---------------------------------------------------------------------------------------------
// TextureCubeArray (8×8, 2 cubes = 12 layers, levels 0..3; layer = 6·cube + face, holding
// dv(L, layer)). Separate texture + sampler.
// ---------------------------------------------------------------------------------------------

/// SampleCmpLevelZero on +x: cube = clamp(RNE(a), 0, 1): a 0.5 → 0 (tie to even; floor(a+0.5)
/// would give 1), 1.5 → 2 → 1, −1 → 0, 7 → 1. Layer = 6·cube + 0.
#[test]
fn cubea_index_rounding() {
    let lanes = [
        lane(&[1.0, 0.0, 0.0, 0.5], dv(0, 0)),
        lane(&[1.0, 0.0, 0.0, 1.5], dv(0, 6)),
        lane(&[1.0, 0.0, 0.0, -1.0], dv(0, 0)),
        lane(&[1.0, 0.0, 0.0, 7.0], dv(0, 6)),
    ];
    let key = Key::new(Recv::CubeA, Op::LevelZero).separate();
    let got = run(key, level_tex(Recv::CubeA), eq(), V, lanes);
    check("cubea_index_rounding", got, [1.0; 4]);
}

/// SampleCmp: the cube_cmp_implicit lanes (+z, ρ 2, λ 1) in cube 1 → layer 10. Lane 3's ref
/// names cube 0's +z (layer 4) → 0.
#[test]
fn cubea_cmp_implicit() {
    let lanes = grid(
        [0.0, 0.0, 1.0, 1.0],
        [0.5, 0.0, 0.0, 0.0],
        [0.0, 0.5, 0.0, 0.0],
        [dv(1, 10), dv(1, 10), dv(1, 10), dv(1, 4)],
    );
    let key = Key::new(Recv::CubeA, Op::Cmp).separate();
    let got = run(key, level_tex(Recv::CubeA), eq(), V, lanes);
    check("cubea_cmp_implicit", got, [1.0, 1.0, 1.0, 0.0]);
}

/// SampleCmpBias, λ_base 1, cube 0 (+z → layer 4): bias 0, 1, 2, −1 → λ 1, 2, 3, 0.
#[test]
fn cubea_bias() {
    let mut lanes = grid(
        [0.0, 0.0, 1.0, 0.0],
        [0.5, 0.0, 0.0, 0.0],
        [0.0, 0.5, 0.0, 0.0],
        [dv(1, 4), dv(2, 4), dv(3, 4), dv(0, 4)],
    );
    for (l, b) in lanes.iter_mut().zip([0.0, 1.0, 2.0, -1.0]) {
        *l = l.lb(b);
    }
    let key = Key::new(Recv::CubeA, Op::Bias).separate();
    let got = run(key, level_tex(Recv::CubeA), eq(), V, lanes);
    check("cubea_bias", got, [1.0; 4]);
}

/// SampleCmpLevel: (−z, cube 1) lod 2 → dv(2, 11); (+y, cube 0) lod 7 → last level 3 →
/// dv(3, 2); (−y, cube 1) lod 0.6 → 1 → dv(1, 9); (−x, cube 1) lod 1 → dv(1, 7).
#[test]
fn cubea_level() {
    let lanes = [
        lane(&[0.0, 0.0, -1.0, 1.0], dv(2, 11)).lb(2.0),
        lane(&[0.0, 1.0, 0.0, 0.0], dv(3, 2)).lb(7.0),
        lane(&[0.0, -1.0, 0.0, 1.0], dv(1, 9)).lb(0.6),
        lane(&[-1.0, 0.0, 0.0, 1.0], dv(1, 7)).lb(1.0),
    ];
    let key = Key::new(Recv::CubeA, Op::Level).separate();
    let got = run(key, level_tex(Recv::CubeA), eq(), V, lanes);
    check("cubea_level", got, [1.0; 4]);
}

/// SampleCmpGrad with clamp on (+x, cube 1 → layer 6): s_c = −z, gx (0, 0, 1) → ∂s = −0.5 →
/// 4 → λ 2; clamps 0, 3, 1, 2.5 → λ 2, 3, 2, 2.5 → floor(3.0) = 3.
#[test]
fn cubea_grad_clamp() {
    let mk = |r: f32, c: f32| {
        lane(&[1.0, 0.0, 0.0, 1.0], r)
            .grad(&[0.0, 0.0, 1.0], &[0.0; 3])
            .cl(c)
    };
    let lanes = [
        mk(dv(2, 6), 0.0),
        mk(dv(3, 6), 3.0),
        mk(dv(2, 6), 1.0),
        mk(dv(3, 6), 2.5),
    ];
    let key = Key::new(Recv::CubeA, Op::Grad).clamp().separate();
    let got = run(key, level_tex(Recv::CubeA), eq(), V, lanes);
    check("cubea_grad_clamp", got, [1.0; 4]);
}

/// Seamless edge PCF in cube 1 (combined sampler): direction A of `cube_edge_pcf` with a = 1
/// → layer 6 (+x) weight .75, layer 10 (+z of cube 1) .25; cube 0's +z (layer 4) → 0.
#[test]
fn cubea_edge_pcf() {
    let a = [1.0, 0.0, 0.9375, 1.0];
    let lanes = [
        lane(&a, dv(0, 10)),
        lane(&a, dv(0, 6)),
        lane(&a, dv(0, 4)),
        lane(&a, dv(0, 0)),
    ];
    let s = Sampler {
        mag_filter: Filter::Linear,
        min_filter: Filter::Linear,
        ..eq()
    };
    let got = run(
        Key::new(Recv::CubeA, Op::LevelZero),
        level_tex(Recv::CubeA),
        s,
        V,
        lanes,
    );
    check("cubea_edge_pcf", got, [0.25, 0.75, 0.0, 0.0]);
}

// ---------------------------------------------------------------------------------------------
// Later additions: programmable offsets, sampler MinLOD > MaxLOD, the mag/min switch, D3D
// empty clamp on a cube.
// ---------------------------------------------------------------------------------------------

/// SampleCmp with a non-constant `Offset` (SM 6.7 programmable offset), REPEAT, Vulkan
/// (offsets used as given). Grid 1/8 → λ 0; base texels (0,0), (1,0), (0,1), (1,1);
/// offsets (−8, 7) → (0, 7); (3, 2) → (4, 2); (7, −1) → (7, 0); (−1, −1) → (0, 0).
#[test]
fn t2_cmp_var_offset_vulkan() {
    let e = 1.0 / 8.0;
    let mut lanes = grid(
        [0.5 * e, 0.5 * e, 0.0, 0.0],
        [e, 0.0, 0.0, 0.0],
        [0.0, e, 0.0, 0.0],
        [ramp(0, 7, 0), ramp(4, 2, 0), ramp(7, 0, 0), ramp(0, 0, 0)],
    );
    for (l, (x, y)) in lanes.iter_mut().zip([(-8, 7), (3, 2), (7, -1), (-1, -1)]) {
        *l = l.off(x, y);
    }
    let s = Sampler {
        address_mode: [AddressMode::Repeat; 3],
        ..eq()
    };
    let key = Key::new(Recv::T2, Op::Cmp).var_offset();
    let got = run(key, ramp_tex(Recv::T2), s, V, lanes);
    check("t2_cmp_var_offset_vulkan", got, [1.0; 4]);
}

/// SampleCmpLevelZero with a programmable offset in D3D: only the low 4 bits count,
/// sign-extended: 8 → −8, −9 → 7, 17 → 1, −16 → 0, 23 → 7. Clamp to edge, all lanes at texel
/// (3, 3) (s = t = 3.5/8):
/// lane 0 (8, 0) → (−8, 0) → u −4.5 → 0 → (0, 3);  lane 1 (−9, 0) → (7, 0) → 10.5 → (7, 3);
/// lane 2 (17, −16) → (1, 0) → (4, 3);             lane 3 (0, 23) → (0, 7) → (3, 7).
#[test]
fn t2_level_zero_var_offset_d3d_low_bits() {
    let c = [3.5 / 8.0, 3.5 / 8.0];
    let lanes = [
        lane(&c, ramp(0, 3, 0)).off(8, 0),
        lane(&c, ramp(7, 3, 0)).off(-9, 0),
        lane(&c, ramp(4, 3, 0)).off(17, -16),
        lane(&c, ramp(3, 7, 0)).off(0, 23),
    ];
    let key = Key::new(Recv::T2, Op::LevelZero).var_offset().separate();
    let got = run(key, ramp_tex(Recv::T2), eq(), D, lanes);
    check("t2_level_zero_var_offset_d3d_low_bits", got, [1.0; 4]);
}

/// Sampler minLod 3 > maxLod 1, SampleCmpLevel lod 0, 2, 4, 1.5. D3D: λ = max(3, min(1, lod))
/// = 3 → level 3 in every lane.
#[test]
fn t2_level_sampler_minlod_above_maxlod_d3d() {
    let lanes = [0.0, 2.0, 4.0, 1.5].map(|l| lane(&[0.5, 0.5], dv(3, 0)).lb(l));
    let s = Sampler {
        min_lod: 3.0,
        max_lod: 1.0,
        ..eq()
    };
    let got = run(
        Key::new(Recv::T2, Op::Level),
        level_tex(Recv::T2),
        s,
        D,
        lanes,
    );
    check("t2_level_sampler_minlod_above_maxlod_d3d", got, [1.0; 4]);
}

/// The same in Vulkan (undefined by the spec; quadstep documents maxLod winning):
/// λ = min(max(lod, 3), 1) = 1 → level 1.
#[test]
fn t2_level_sampler_minlod_above_maxlod_vulkan() {
    let lanes = [0.0, 2.0, 4.0, 1.5].map(|l| lane(&[0.5, 0.5], dv(1, 0)).lb(l));
    let s = Sampler {
        min_lod: 3.0,
        max_lod: 1.0,
        ..eq()
    };
    let got = run(
        Key::new(Recv::T2, Op::Level),
        level_tex(Recv::T2),
        s,
        V,
        lanes,
    );
    check("t2_level_sampler_minlod_above_maxlod_vulkan", got, [1.0; 4]);
}

/// Magnification vs minification is decided from λ (§5.6) even on a one-level texture:
/// mag NEAREST, min LINEAR, compare LESS, at (2.75/8, 1.75/8) (see `t2_level_zero_pcf_bilinear`):
/// lane 0 lod 0 → mag → texel (2,1) = 11/256; 11.5/256 < 11/256 → 0;
/// lane 1 lod 0.5 → min → bilinear PCF → .4375;
/// lane 2 lod −1 → mag → 10/256 < 11/256 → 1;
/// lane 3 lod 3 → min (level clamps to 0) → ref 12.5/256 → .25.
#[test]
fn t2_level_mag_min_switch() {
    let c = [2.75 / 8.0, 1.75 / 8.0];
    let lanes = [
        lane(&c, 11.5 / 256.0).lb(0.0),
        lane(&c, 11.5 / 256.0).lb(0.5),
        lane(&c, 10.0 / 256.0).lb(-1.0),
        lane(&c, 12.5 / 256.0).lb(3.0),
    ];
    let s = Sampler {
        mag_filter: Filter::Nearest,
        min_filter: Filter::Linear,
        ..cmp_sampler(CompareOp::Less)
    };
    let got = run(
        Key::new(Recv::T2, Op::Level),
        ramp_tex(Recv::T2),
        s,
        V,
        lanes,
    );
    check("t2_level_mag_min_switch", got, [0.0, 0.4375, 1.0, 0.25]);
}

/// The switch comes after the clamps: sampler maxLod 0 makes λ = 0 for every lod → mag →
/// nearest texel (2,1) = 11/256: refs 11.5/256 → 0, 10/256 → 1, 10.5/256 → 1, 12.5/256 → 0.
#[test]
fn t2_level_mag_after_maxlod_clamp() {
    let c = [2.75 / 8.0, 1.75 / 8.0];
    let lanes = [
        lane(&c, 11.5 / 256.0).lb(0.5),
        lane(&c, 10.0 / 256.0).lb(3.0),
        lane(&c, 10.5 / 256.0).lb(0.5),
        lane(&c, 12.5 / 256.0).lb(3.0),
    ];
    let s = Sampler {
        mag_filter: Filter::Nearest,
        min_filter: Filter::Linear,
        max_lod: 0.0,
        ..cmp_sampler(CompareOp::Less)
    };
    let got = run(
        Key::new(Recv::T2, Op::Level),
        ramp_tex(Recv::T2),
        s,
        V,
        lanes,
    );
    check("t2_level_mag_after_maxlod_clamp", got, [0.0, 1.0, 1.0, 0.0]);
}

/// TextureCube SampleCmp clamp in D3D with compare ALWAYS (q = 3): clamps 4 and 100 leave no
/// level → 0; 3 and 0 → 1. Lanes as in `cube_cmp_implicit`.
#[test]
fn cube_cmp_clamp_beyond_last_level_d3d() {
    let mut lanes = grid(
        [0.0, 0.0, 1.0, 0.0],
        [0.5, 0.0, 0.0, 0.0],
        [0.0, 0.5, 0.0, 0.0],
        [0.5; 4],
    );
    for (l, c) in lanes.iter_mut().zip([4.0, 3.0, 0.0, 100.0]) {
        *l = l.cl(c);
    }
    let key = Key::new(Recv::Cube, Op::Cmp).clamp().separate();
    let s = cmp_sampler(CompareOp::Always);
    let got = run(key, level_tex(Recv::Cube), s, D, lanes);
    check(
        "cube_cmp_clamp_beyond_last_level_d3d",
        got,
        [0.0, 1.0, 1.0, 0.0],
    );
}

/// Implicit LOD uses coarse lane-0 derivatives: lanes 0–2 on the 2/16 grid (dX = dY = 2 →
/// λ 1) and lane 3 far away at (5, 9) — with fine derivatives lane 3 would see dX = P3 − P2 =
/// (4.75, …)·16 and read the last level; coarse gives λ 1 everywhere.
#[test]
fn t2_cmp_coarse_derivatives() {
    let lanes = [
        lane(&[0.25, 0.25], dv(1, 0)),
        lane(&[0.375, 0.25], dv(1, 0)),
        lane(&[0.25, 0.375], dv(1, 0)),
        lane(&[5.0, 9.0], dv(1, 0)),
    ];
    let got = run(
        Key::new(Recv::T2, Op::Cmp),
        level_tex(Recv::T2),
        eq(),
        V,
        lanes,
    );
    check("t2_cmp_coarse_derivatives", got, [1.0; 4]);
}

/// A helper lane (lane 2, not covered) still supplies P2 for dY: lanes 0/1/3 on the grid with
/// dX = 2/16·16 = 2 and lane 2 at t + 8/16 → dY = 8 → ρ 8, λ 3 for the covered lanes.
/// (Lane 2's own result is not checked: the expected array holds what it computes anyway,
/// level 3 → 1, since a helper runs the same code.)
#[test]
fn t2_cmp_helper_lane_derivative() {
    let lanes = [
        lane(&[0.25, 0.25], dv(3, 0)),
        lane(&[0.375, 0.25], dv(3, 0)),
        lane(&[0.25, 0.75], dv(3, 0)),
        lane(&[0.375, 0.75], dv(1, 0)),
    ];
    let helper = [false, false, true, false];
    let key = Key::new(Recv::T2, Op::Cmp);
    let got = run_opts(
        key,
        level_tex(Recv::T2),
        eq(),
        V,
        LodPrecision::Exact,
        helper,
        lanes,
    );
    check("t2_cmp_helper_lane_derivative", got, [1.0, 1.0, 1.0, 0.0]);
}

/// Hardware precision snaps texel coordinates to 1/256 (RNE): s = 2.6/8 → u = 2.6 → 665.6/256
/// → 666/256 = 2.6015625 → u − 0.5 = 2.1015625 → α = 26/256 = 0.1015625 (exact mode: 0.1).
/// t = 0.5/8 → β = 0. Row 0 texels 2 (3/256, w 1 − α) and 3 (4/256, w α); LESS:
/// ref 3.5/256 → only texel 3 → 0.1015625; 2/256 → both → 1; 4/256 → 0; ref 2.5/256 with
/// GREATER would be 0, so lane 3 repeats lane 0.
#[test]
fn t2_pcf_hardware_precision() {
    let c = [2.6 / 8.0, 0.5 / 8.0];
    let lanes = [
        lane(&c, 3.5 / 256.0),
        lane(&c, 2.0 / 256.0),
        lane(&c, 4.0 / 256.0),
        lane(&c, 3.5 / 256.0),
    ];
    let s = Sampler {
        mag_filter: Filter::Linear,
        min_filter: Filter::Linear,
        ..cmp_sampler(CompareOp::Less)
    };
    let key = Key::new(Recv::T2, Op::LevelZero);
    let got = run_opts(
        key,
        ramp_tex(Recv::T2),
        s,
        V,
        LodPrecision::Hardware,
        [false; 4],
        lanes,
    );
    check(
        "t2_pcf_hardware_precision",
        got,
        [0.1015625, 1.0, 0.0, 0.1015625],
    );
}

/// SampleCmpLevelZero still honours the sampler minLod (§5.5): minLod 2 → λ = max(0, 2) →
/// level 2 on every face.
#[test]
fn cube_level_zero_sampler_minlod() {
    let lanes = [
        lane(&[1.0, 0.0, 0.0], dv(2, 0)),
        lane(&[0.0, -1.0, 0.0], dv(2, 3)),
        lane(&[0.0, 0.0, -1.0], dv(2, 5)),
        lane(&[0.0, 0.0, 1.0], dv(0, 4)),
    ];
    let s = Sampler {
        min_lod: 2.0,
        ..eq()
    };
    let got = run(
        Key::new(Recv::Cube, Op::LevelZero),
        level_tex(Recv::Cube),
        s,
        V,
        lanes,
    );
    check("cube_level_zero_sampler_minlod", got, [1.0, 1.0, 1.0, 0.0]);
}

/// Cube gradients on negative faces: ∂|r_c| is the derivative of |r_c| (negated r_c), §4.2.
/// −z at (0.5, 0, −1): s_c = −x = −0.5, gx (1, 0, −1) → ∂s_c = −1, ∂|r_c| = +1 →
///   ∂s = 0.5·(1·(−1) − (−0.5)·1) = −0.25 → ×8 = 2 → λ 1 (a sign slip gives −0.75 → 6 → level 3);
/// −x at (−1, 0, 0.5): s_c = z = 0.5, gx (−1, 0, 1) → ∂s_c = 1, ∂|r_c| = 1 → 0.25 → λ 1;
/// −y at (0.5, −1, 0): s_c = x = 0.5, gx (1, −1, 0) → ∂s_c = 1, ∂|r_c| = 1 → 0.25 → λ 1;
/// +y at (0.5, 1, 0): s_c = x, gx (1, 1, 0) → 0.5·(1 − 0.5) = 0.25 → λ 1.
/// t_c is 0 and constant along gx in every lane, gy = 0.
#[test]
fn cube_grad_negative_faces() {
    let z = [0.0; 3];
    let lanes = [
        lane(&[0.5, 0.0, -1.0], dv(1, 5)).grad(&[1.0, 0.0, -1.0], &z),
        lane(&[-1.0, 0.0, 0.5], dv(1, 1)).grad(&[-1.0, 0.0, 1.0], &z),
        lane(&[0.5, -1.0, 0.0], dv(1, 3)).grad(&[1.0, -1.0, 0.0], &z),
        lane(&[0.5, 1.0, 0.0], dv(1, 2)).grad(&[1.0, 1.0, 0.0], &z),
    ];
    let got = run(
        Key::new(Recv::Cube, Op::Grad),
        level_tex(Recv::Cube),
        eq(),
        V,
        lanes,
    );
    check("cube_grad_negative_faces", got, [1.0; 4]);
}

/// TextureCubeArray SampleCmp with a different cube index per lane (0, 1, 1, 0): the index is
/// not a spatial coordinate, so λ stays 1 (lanes as `cube_cmp_implicit`, +z → layers 4, 10,
/// 10, 4).
#[test]
fn cubea_cmp_index_not_in_derivatives() {
    let lanes = [
        lane(&[0.0, 0.0, 1.0, 0.0], dv(1, 4)),
        lane(&[0.5, 0.0, 1.0, 1.0], dv(1, 10)),
        lane(&[0.0, 0.5, 1.0, 1.0], dv(1, 10)),
        lane(&[0.5, 0.5, 1.0, 0.0], dv(1, 4)),
    ];
    let key = Key::new(Recv::CubeA, Op::Cmp).separate();
    let got = run(key, level_tex(Recv::CubeA), eq(), V, lanes);
    check("cubea_cmp_index_not_in_derivatives", got, [1.0; 4]);
}

/// Offsets count in texels of the level read (§6.1). Two-level 8×8 ramp, SampleCmpLevel with
/// ConstOffset (1, −1), nearest, clamp to edge:
/// lane 0 lod 1 at (1.5/4, 2.5/4): level 1 is 4×4 → u = 1.5 + 1 = 2.5 → 2, v = 2.5 − 1 = 1.5
///   → 1 → ramp1(2, 1) → 1;
/// lane 1 lod 1 at (3.5/4, 0.5/4) → u 4.5 → 3 (edge), v −0.5 → 0 → ramp1(3, 0) → 1;
/// lane 2 as lane 0 with ref ramp1(2, 2), what a level-0-sized offset (±1/8 normalized) would
///   read (v = 2.5 − 0.5 = 2) → 0;
/// lane 3 lod 0 at (3/8, 5/8) → u = 3 + 1 = 4, v = 5 − 1 = 4 → ramp(4, 4) → 1.
#[test]
fn t2_level_offset_in_level_texels() {
    let lanes = [
        lane(&[1.5 / 4.0, 2.5 / 4.0], ramp1(2, 1)).lb(1.0),
        lane(&[3.5 / 4.0, 0.5 / 4.0], ramp1(3, 0)).lb(1.0),
        lane(&[1.5 / 4.0, 2.5 / 4.0], ramp1(2, 2)).lb(1.0),
        lane(&[3.0 / 8.0, 5.0 / 8.0], ramp(4, 4, 0)).lb(0.0),
    ];
    let key = Key::new(Recv::T2, Op::Level).offset([1, -1]);
    let got = run(key, ramp_mip_tex(), eq(), V, lanes);
    check("t2_level_offset_in_level_texels", got, [1.0, 1.0, 0.0, 1.0]);
}

/// SampleCmpGrad with offset (−1, 1) at level 1 via gradients: gx = (2/8, 0) → ρ = 2 → λ 1
/// (8×8 base). Lane coords as in `t2_level_offset_in_level_texels` with the offset mirrored:
/// lane 0 (1.5/4, 2.5/4) → u 0.5 → 0, v 3.5 → 3 → ramp1(0, 3);
/// lane 1 (0.5/4, 3.5/4) → u −0.5 → 0, v 4.5 → 3 → ramp1(0, 3);
/// lane 2 (2.5/4, 0.5/4) → (1.5, 1.5) → ramp1(1, 1); lane 3 same, ref ramp1(2, 0) → 0.
#[test]
fn t2_grad_offset_level1() {
    let g = [0.25, 0.0];
    let z = [0.0, 0.0];
    let lanes = [
        lane(&[1.5 / 4.0, 2.5 / 4.0], ramp1(0, 3)).grad(&g, &z),
        lane(&[0.5 / 4.0, 3.5 / 4.0], ramp1(0, 3)).grad(&g, &z),
        lane(&[2.5 / 4.0, 0.5 / 4.0], ramp1(1, 1)).grad(&g, &z),
        lane(&[2.5 / 4.0, 0.5 / 4.0], ramp1(2, 0)).grad(&g, &z),
    ];
    let key = Key::new(Recv::T2, Op::Grad).offset([-1, 1]);
    let got = run(key, ramp_mip_tex(), eq(), V, lanes);
    check("t2_grad_offset_level1", got, [1.0, 1.0, 1.0, 0.0]);
}

/// SampleCmpGrad clamp in D3D, compare ALWAYS, on Texture2DArray (q = 4): clamps 5 and 40 are
/// beyond the last level → 0; 4 and 0 → 1.
#[test]
fn t2a_grad_clamp_beyond_last_level_d3d() {
    let mk = |c: f32| {
        lane(&[0.5, 0.5, 1.0], 0.5)
            .grad(&[0.125, 0.0], &[0.0, 0.125])
            .cl(c)
    };
    let lanes = [mk(5.0), mk(4.0), mk(0.0), mk(40.0)];
    let key = Key::new(Recv::T2A, Op::Grad).clamp().separate();
    let s = cmp_sampler(CompareOp::Always);
    let got = run(key, level_tex(Recv::T2A), s, D, lanes);
    check(
        "t2a_grad_clamp_beyond_last_level_d3d",
        got,
        [0.0, 1.0, 1.0, 0.0],
    );
}

/// Trilinear PCF: two-level ramp, linear filter and linear mip, SampleCmpLevel lod 0.5 at
/// (0.5, 0.5), compare LESS.
/// Level 0 (8×8): u − 0.5 = 3.5 → taps (3,3) 28/256, (4,3) 29/256, (3,4) 36/256, (4,4) 37/256,
/// each w .25. Level 1 (4×4): u − 0.5 = 1.5 → (1,1) 134/256, (2,1) 135/256, (1,2) 138/256,
/// (2,2) 139/256, each w .25. Mip weights .5/.5.
/// ref 30/256: level 0 → .5, level 1 → 1 → .75; ref 136/256: 0 and .5 → .25;
/// ref 0 → 1; ref 200/256 → 0.
#[test]
fn t2_level_trilinear_pcf() {
    let c = [0.5, 0.5];
    let lanes = [
        lane(&c, 30.0 / 256.0).lb(0.5),
        lane(&c, 136.0 / 256.0).lb(0.5),
        lane(&c, 0.0).lb(0.5),
        lane(&c, 200.0 / 256.0).lb(0.5),
    ];
    let s = Sampler {
        mag_filter: Filter::Linear,
        min_filter: Filter::Linear,
        mipmap_mode: MipmapMode::Linear,
        ..cmp_sampler(CompareOp::Less)
    };
    let got = run(Key::new(Recv::T2, Op::Level), ramp_mip_tex(), s, V, lanes);
    check("t2_level_trilinear_pcf", got, [0.75, 0.25, 1.0, 0.0]);
}

/// The sampler's mipLodBias applies to explicit Lod and to Grad too (§5.3): bias 1.
/// SampleCmpLevel lod 1, 0, 3, −1 → λ 2, 1, 4, 0.
#[test]
fn t2_level_sampler_bias() {
    let lanes = [
        lane(&[0.5, 0.5], dv(2, 0)).lb(1.0),
        lane(&[0.5, 0.5], dv(1, 0)).lb(0.0),
        lane(&[0.5, 0.5], dv(4, 0)).lb(3.0),
        lane(&[0.5, 0.5], dv(0, 0)).lb(-1.0),
    ];
    let s = Sampler {
        mip_lod_bias: 1.0,
        ..eq()
    };
    let got = run(
        Key::new(Recv::T2, Op::Level),
        level_tex(Recv::T2),
        s,
        V,
        lanes,
    );
    check("t2_level_sampler_bias", got, [1.0; 4]);
}

/// Sampler mipLodBias 1 with SampleCmpGrad on TextureCube: gx (0.5, 0, 0) at +z → ρ 2,
/// λ_base 1 → λ 2; gx (2, 0, 0) → 3 + 1 → last level 3; zero gradients → ρ 0 → λ −∞ → 0;
/// gx (0.25, 0, 0) → ρ 1 → 0 + 1 → 1.
#[test]
fn cube_grad_sampler_bias() {
    let c = [0.0, 0.0, 1.0];
    let z = [0.0; 3];
    let lanes = [
        lane(&c, dv(2, 4)).grad(&[0.5, 0.0, 0.0], &z),
        lane(&c, dv(3, 4)).grad(&[2.0, 0.0, 0.0], &z),
        lane(&c, dv(0, 4)).grad(&z, &z),
        lane(&c, dv(1, 4)).grad(&[0.25, 0.0, 0.0], &z),
    ];
    let s = Sampler {
        mip_lod_bias: 1.0,
        ..eq()
    };
    let got = run(
        Key::new(Recv::Cube, Op::Grad),
        level_tex(Recv::Cube),
        s,
        V,
        lanes,
    );
    check("cube_grad_sampler_bias", got, [1.0; 4]);
}

/// D3D: a NaN LOD is dropped by the min/max clamps (§17.17): max(MinLOD, min(MaxLOD, NaN)) =
/// MaxLOD. Sampler maxLod 2 → level 2; lanes 1–3 use lod 0, 2, 7 → 0, 2, 2.
#[test]
fn t2_level_nan_lod_d3d() {
    let lanes = [
        lane(&[0.5, 0.5], dv(2, 0)).lb(f32::NAN),
        lane(&[0.5, 0.5], dv(0, 0)).lb(0.0),
        lane(&[0.5, 0.5], dv(2, 0)).lb(2.0),
        lane(&[0.5, 0.5], dv(2, 0)).lb(7.0),
    ];
    let s = Sampler {
        max_lod: 2.0,
        ..eq()
    };
    let got = run(
        Key::new(Recv::T2, Op::Level),
        level_tex(Recv::T2),
        s,
        D,
        lanes,
    );
    check("t2_level_nan_lod_d3d", got, [1.0; 4]);
}

/// Cube implicit LOD is per lane (quotient rule with each lane's own coordinates and the
/// shared coarse derivatives). Lanes (0.5, 0, 1), (0.5, 0, 3), (0.5, 0, 1), (0.5, 0, 3): all
/// +z; dX = (0, 0, 2), dY = 0.
/// Lanes 0/2: s_c 0.5, |r_c| 1 → ∂s = 0.5·(1·0 − 0.5·2)/1 = −0.5 → ×8 = 4 → λ 2 → level 2.
/// Lanes 1/3: |r_c| 3 → ∂s = 0.5·(−0.5·2)/9 = −1/18 → ×8 ≈ 0.444 → λ ≈ −1.17 → level 0.
#[test]
fn cube_cmp_per_lane_lod() {
    let lanes = [
        lane(&[0.5, 0.0, 1.0], dv(2, 4)),
        lane(&[0.5, 0.0, 3.0], dv(0, 4)),
        lane(&[0.5, 0.0, 1.0], dv(2, 4)),
        lane(&[0.5, 0.0, 3.0], dv(0, 4)),
    ];
    let got = run(
        Key::new(Recv::Cube, Op::Cmp),
        level_tex(Recv::Cube),
        eq(),
        V,
        lanes,
    );
    check("cube_cmp_per_lane_lod", got, [1.0; 4]);
}

/// The same quad with `LodPrecision::Hardware`, which documents one implicit λ_base per quad
/// (lane 0's, here 2): every lane reads level 2, so lanes 1/3 (refs for level 0) give 0.
#[test]
fn cube_cmp_per_quad_lod_hardware() {
    let lanes = [
        lane(&[0.5, 0.0, 1.0], dv(2, 4)),
        lane(&[0.5, 0.0, 3.0], dv(0, 4)),
        lane(&[0.5, 0.0, 1.0], dv(2, 4)),
        lane(&[0.5, 0.0, 3.0], dv(2, 4)),
    ];
    let key = Key::new(Recv::Cube, Op::Cmp);
    let got = run_opts(
        key,
        level_tex(Recv::Cube),
        eq(),
        V,
        LodPrecision::Hardware,
        [false; 4],
        lanes,
    );
    check("cube_cmp_per_quad_lod_hardware", got, [1.0, 0.0, 1.0, 1.0]);
}

/// A compiler that emits `ConstOffset` outside [minTexelOffset, maxTexelOffset] = [−8, 7]
/// (Vulkan valid usage; the DXIL validator's `Instr.TextureOffset` rule) produced an invalid
/// module: quadstep should say so (an error at load or run time), not sample with offset 8.
#[test]
fn t2_const_offset_out_of_range_is_an_error() {
    let c = [0.5 / 8.0, 0.5 / 8.0];
    let lanes = [lane(&c, ramp(0, 0, 0)); 4];
    for off in [[8, 0], [0, -9]] {
        let key = Key::new(Recv::T2, Op::LevelZero).offset(off);
        let r = try_run_opts(
            key,
            ramp_tex(Recv::T2),
            eq(),
            V,
            LodPrecision::Exact,
            [false; 4],
            lanes,
        );
        assert!(r.is_err(), "ConstOffset {off:?} accepted, results {r:?}");
    }
}

/// `ConstOffset` on a Cube image is invalid SPIR-V (spirv-val: "ConstOffset cannot be used
/// with Cube Image 'Dim'"; sampling.md §4.3) and HLSL has no cube offsets: a compiler emitting
/// it should be told, not get sampled results.
#[test]
fn cube_const_offset_is_an_error() {
    let lanes = [lane(&[1.0, 0.0, 0.0], dv(0, 0)); 4];
    let key = Key::new(Recv::Cube, Op::LevelZero).offset([1, 1]);
    let r = try_run_opts(
        key,
        level_tex(Recv::Cube),
        eq(),
        V,
        LodPrecision::Exact,
        [false; 4],
        lanes,
    );
    assert!(r.is_err(), "ConstOffset on a cube accepted, results {r:?}");
}

/// A Dref instruction with a non-comparison sampler (compareEnable false) is an error under
/// the D3D policy (the DXIL validator: SampleCmp* needs a SamplerComparisonState). Under
/// Vulkan it is undefined and quadstep, like lavapipe, skips the comparison
/// (`texture::tests`).
#[test]
fn dref_with_non_comparison_sampler_is_an_error() {
    let lanes = [lane(&[0.5, 0.5, 1.0], dv(0, 1)); 4];
    let s = Sampler {
        compare_enable: false,
        ..eq()
    };
    let key = Key::new(Recv::T2A, Op::LevelZero).separate();
    let r = try_run_opts(
        key,
        level_tex(Recv::T2A),
        s,
        D,
        LodPrecision::Exact,
        [false; 4],
        lanes,
    );
    let e = r.expect_err("non-comparison sampler accepted");
    assert!(e.contains("compareEnable"), "{e}");
}
