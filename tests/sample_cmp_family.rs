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
//! The cases are one table ([`cases`]): each row is a shader variant (receiver, overload and
//! operands), a texture, a sampler, a policy, four lanes and the four results, with the
//! derivation of the results in the comment above it. One test runs them all and names every
//! row that fails.
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

use sample_cmp_support::Op::*;
use sample_cmp_support::Recv::*;
use sample_cmp_support::Tex::*;
use sample_cmp_support::*;

const V: Policy = Policy::Vulkan;
const D: Policy = Policy::D3D;
/// One texel of the 8-wide ramp, in normalized coordinates.
const E: f32 = 1.0 / 8.0;

fn eq() -> Sampler {
    cmp_sampler(CompareOp::Equal)
}

/// `base` with another address mode on every axis.
fn addr(mode: AddressMode, base: Sampler) -> Sampler {
    Sampler {
        address_mode: [mode; 3],
        ..base
    }
}

/// `base` clamping to the border colour `border`.
fn border(border: BorderColor, base: Sampler) -> Sampler {
    Sampler {
        border_color: border,
        ..addr(AddressMode::ClampToBorder, base)
    }
}

/// `base` with linear minification and magnification.
fn linear(base: Sampler) -> Sampler {
    Sampler {
        mag_filter: Filter::Linear,
        min_filter: Filter::Linear,
        ..base
    }
}

#[test]
fn sample_cmp_cases() {
    check_all(&cases());
}

#[rustfmt::skip]
fn cases() -> Vec<Case> {
    let mut cases = vec![
    // -----------------------------------------------------------------------------------------
    // Texture2D (level texture 16×16, levels 0..4; ramp texture 8×8)
    // -----------------------------------------------------------------------------------------

    // SampleCmp: lanes 2/16 apart in s and t → dX = (0.125, 0)·16 = (2, 0), dY = (0, 2):
    // ρ = 2, λ = 1 → level 1. Refs: dv(1)=pass, dv(0) and dv(2) name levels not read.
    case("t2_cmp_implicit_lod1", Key::new(T2, Cmp), Levels, eq(), V,
        grid([0.25, 0.25, 0.0, 0.0], [0.125, 0.0, 0.0, 0.0], [0.0, 0.125, 0.0, 0.0],
            [dv(1, 0), dv(0, 0), dv(1, 0), dv(2, 0)]),
        [1.0, 0.0, 1.0, 0.0]),

    // Same as `t2_cmp_implicit_lod1` with DXC's separate `Texture2D` + `SamplerComparisonState`.
    case("t2_cmp_implicit_lod1_separate", Key::new(T2, Cmp).separate(), Levels, eq(), V,
        grid([0.25, 0.25, 0.0, 0.0], [0.125, 0.0, 0.0, 0.0], [0.0, 0.125, 0.0, 0.0],
            [dv(1, 0), dv(1, 0), dv(3, 0), dv(1, 0)]),
        [1.0, 1.0, 0.0, 1.0]),

    // Lanes 16384 apart: ρ = 16384·16 = 2^18, λ_base = 18. Sampler mipLodBias −2, shader bias
    // [−16, −15, −17, −20]. Vulkan: sums −18, −17, −19, −22 all clamp to −16 → λ' = 2 → level 2
    // in every lane (lane 3's ref names level 0 → 0).
    case("t2_bias_low_end_vulkan_sum_clamp", Key::new(T2, Bias), Levels,
        Sampler { mip_lod_bias: -2.0, ..eq() }, V,
        per_lane(
            grid([0.5, 0.5, 0.0, 0.0], [16384.0, 0.0, 0.0, 0.0], [0.0, 16384.0, 0.0, 0.0],
                [dv(2, 0), dv(2, 0), dv(2, 0), dv(0, 0)]),
            L::lb, [-16.0, -15.0, -17.0, -20.0]),
        [1.0, 1.0, 1.0, 0.0]),

    // As above in D3D: shader terms clamp to [−16, 15.99] → −16, −15, −16, −16; plus sampler −2
    // (sum not clamped) → −18, −17, −18, −18 → λ' = 0, 1, 0, 0 → levels 0, 1, 0, 0.
    // Lane 3's ref names level 2 (what Vulkan reads) → 0.
    case("t2_bias_low_end_d3d_term_clamp", Key::new(T2, Bias), Levels,
        Sampler { mip_lod_bias: -2.0, ..eq() }, D,
        per_lane(
            grid([0.5, 0.5, 0.0, 0.0], [16384.0, 0.0, 0.0, 0.0], [0.0, 16384.0, 0.0, 0.0],
                [dv(0, 0), dv(1, 0), dv(0, 0), dv(2, 0)]),
            L::lb, [-16.0, -15.0, -17.0, -20.0]),
        [1.0, 1.0, 1.0, 0.0]),

    // Lanes 2^-18 apart: ρ = 2^-18·16 = 2^-14, λ_base = −14. Sampler bias +4, shader bias
    // [15, 20, 12, 10]. Vulkan: sums 19, 24, 16, 14 → 16, 16, 16, 14 → λ' = 2, 2, 2, 0 →
    // levels 2, 2, 2, 0. Lane 1's ref names level 4 (what D3D reads) → 0.
    case("t2_bias_high_end_vulkan_sum_clamp", Key::new(T2, Bias), Levels,
        Sampler { mip_lod_bias: 4.0, ..eq() }, V,
        per_lane(
            grid([0.25, 0.25, 0.0, 0.0], [1.0 / 262144.0, 0.0, 0.0, 0.0],
                [0.0, 1.0 / 262144.0, 0.0, 0.0], [dv(2, 0), dv(4, 0), dv(2, 0), dv(0, 0)]),
            L::lb, [15.0, 20.0, 12.0, 10.0]),
        [1.0, 0.0, 1.0, 1.0]),

    // As above in D3D: terms 15, 15.99 (20 clamped), 12, 10, plus 4 → 19, 19.99, 16, 14 →
    // λ' = 5, 5.99, 2, 0 → levels clamp(…, 0, 4) → 4, 4, 2, 0. Lane 0's ref names level 2 → 0.
    case("t2_bias_high_end_d3d_term_clamp", Key::new(T2, Bias), Levels,
        Sampler { mip_lod_bias: 4.0, ..eq() }, D,
        per_lane(
            grid([0.25, 0.25, 0.0, 0.0], [1.0 / 262144.0, 0.0, 0.0, 0.0],
                [0.0, 1.0 / 262144.0, 0.0, 0.0], [dv(2, 0), dv(4, 0), dv(2, 0), dv(0, 0)]),
            L::lb, [15.0, 20.0, 12.0, 10.0]),
        [0.0, 1.0, 1.0, 1.0]),

    // λ_base = −14 (as above), sampler bias 0, shader bias 16.5 in D3D: the term clamps to
    // 15.99 → λ' = 1.99 → floor(2.49) = level 2 (unclamped 2.5 would round to level 3).
    // Lanes 2/3 use bias 15.99 exactly (→ level 2) and 17.25 (→ 15.99 → level 2).
    case("t2_bias_d3d_upper_term_clamp", Key::new(T2, Bias), Levels, eq(), D,
        per_lane(
            grid([0.25, 0.25, 0.0, 0.0], [1.0 / 262144.0, 0.0, 0.0, 0.0],
                [0.0, 1.0 / 262144.0, 0.0, 0.0], [dv(2, 0), dv(3, 0), dv(2, 0), dv(2, 0)]),
            L::lb, [16.5, 16.5, 15.99, 17.25]),
        [1.0, 0.0, 1.0, 1.0]),

    // SampleCmpLevel: lod 7 and 100 clamp to the last level 4; lod 3.5 → floor(3.5 + 0.5) = 4;
    // lod 3.4 → floor(3.9) = 3.
    case("t2_level_beyond_last", Key::new(T2, Level), Levels, eq(), V,
        [
            lane(&[0.5, 0.5], dv(4, 0)).lb(7.0),
            lane(&[0.5, 0.5], dv(4, 0)).lb(3.5),
            lane(&[0.5, 0.5], dv(4, 0)).lb(100.0),
            lane(&[0.5, 0.5], dv(3, 0)).lb(3.4),
        ],
        [1.0, 1.0, 1.0, 1.0]),

    // SampleCmpLevel with linear mip: lod 1.25 → 0.75·level 1 + 0.25·level 2 (EQUAL against
    // level 1 → 0.75, level 2 → 0.25); lod 3.5 → 0.5·level 3 + 0.5·level 4 (ref level 4 → 0.5);
    // lod 9 → d' = 4, d_lo = min(5, 4) = 4 → level 4 with weight 1.
    case("t2_level_linear_mip_weights", Key::new(T2, Level), Levels,
        Sampler { mipmap_mode: MipmapMode::Linear, ..eq() }, V,
        [
            lane(&[0.5, 0.5], dv(1, 0)).lb(1.25),
            lane(&[0.5, 0.5], dv(2, 0)).lb(1.25),
            lane(&[0.5, 0.5], dv(4, 0)).lb(3.5),
            lane(&[0.5, 0.5], dv(4, 0)).lb(9.0),
        ],
        [0.75, 0.25, 0.5, 1.0]),

    // SampleCmpLevel with sampler minLod 1, maxLod 2.5: lod 0, 5, 1.75, −3 → λ = 1, 2.5, 1.75, 1
    // → nearest floor(λ + 0.5) = 1, 3, 2, 1.
    case("t2_level_sampler_min_max_lod", Key::new(T2, Level), Levels,
        Sampler { min_lod: 1.0, max_lod: 2.5, ..eq() }, V,
        [
            lane(&[0.5, 0.5], dv(1, 0)).lb(0.0),
            lane(&[0.5, 0.5], dv(3, 0)).lb(5.0),
            lane(&[0.5, 0.5], dv(2, 0)).lb(1.75),
            lane(&[0.5, 0.5], dv(1, 0)).lb(-3.0),
        ],
        [1.0, 1.0, 1.0, 1.0]),

    // SampleCmpLevelZero: λ_base = 0 → level 0; refs for levels 0, 1, 0, 0.
    case("t2_level_zero", Key::new(T2, LevelZero), Levels, eq(), V,
        [
            lane(&[0.1, 0.9], dv(0, 0)),
            lane(&[0.7, 0.2], dv(1, 0)),
            lane(&[0.5, 0.5], dv(0, 0)),
            lane(&[0.9, 0.1], dv(0, 0)),
        ],
        [1.0, 0.0, 1.0, 1.0]),

    // SampleCmpLevelZero with sampler mipLodBias 2 ("bias starting from 0"): λ = 0 + 2 → level 2.
    // Separate texture and sampler.
    case("t2_level_zero_sampler_bias_separate", Key::new(T2, LevelZero).separate(), Levels,
        Sampler { mip_lod_bias: 2.0, ..eq() }, V,
        [
            lane(&[0.1, 0.9], dv(2, 0)),
            lane(&[0.7, 0.2], dv(0, 0)),
            lane(&[0.5, 0.5], dv(2, 0)),
            lane(&[0.9, 0.1], dv(1, 0)),
        ],
        [1.0, 0.0, 1.0, 0.0]),

    // SampleCmp with clamp (MinLod operand), λ_base = 1 (grid 2/16), sampler maxLod 2, clamps
    // [3, 0, 1.5, 3]. Vulkan λ = min(max(1, cl), 2) = 2, 1, 1.5, 2 → levels 2, 1, 2, 2 (the
    // implementation lets maxLod win when MinLod > maxLod; Vulkan leaves it undefined).
    // Lane 3's ref names level 3 (what D3D reads) → 0.
    case("t2_cmp_minlod_above_maxlod_vulkan", Key::new(T2, Cmp).clamp(), Levels,
        Sampler { max_lod: 2.0, ..eq() }, V,
        per_lane(
            grid([0.25, 0.25, 0.0, 0.0], [0.125, 0.0, 0.0, 0.0], [0.0, 0.125, 0.0, 0.0],
                [dv(2, 0), dv(1, 0), dv(2, 0), dv(3, 0)]),
            L::cl, [3.0, 0.0, 1.5, 3.0]),
        [1.0, 1.0, 1.0, 0.0]),

    // As above in D3D: λ = max(cl, min(2, 1)) = 3, 1, 1.5, 3 → levels 3, 1, 2, 3 (MinLOD wins).
    case("t2_cmp_minlod_above_maxlod_d3d", Key::new(T2, Cmp).clamp(), Levels,
        Sampler { max_lod: 2.0, ..eq() }, D,
        per_lane(
            grid([0.25, 0.25, 0.0, 0.0], [0.125, 0.0, 0.0, 0.0], [0.0, 0.125, 0.0, 0.0],
                [dv(3, 0), dv(1, 0), dv(2, 0), dv(3, 0)]),
            L::cl, [3.0, 0.0, 1.5, 3.0]),
        [1.0, 1.0, 1.0, 1.0]),

    // SampleCmp clamp beyond the last level (q = 4) with compare ALWAYS. D3D: clamps 6 and 10
    // leave no level → out-of-bounds result 0; clamps 4 and 0 read a level → 1.
    case("t2_cmp_minlod_beyond_last_level_d3d", Key::new(T2, Cmp).clamp(), Levels,
        cmp_sampler(CompareOp::Always), D,
        per_lane(
            grid([0.25, 0.25, 0.0, 0.0], [0.125, 0.0, 0.0, 0.0], [0.0, 0.125, 0.0, 0.0],
                [0.5; 4]),
            L::cl, [6.0, 4.0, 0.0, 10.0]),
        [0.0, 1.0, 1.0, 0.0]),

    // Same in Vulkan: λ clamps to the last level, ALWAYS passes → 1 everywhere.
    case("t2_cmp_minlod_beyond_last_level_vulkan", Key::new(T2, Cmp).clamp(), Levels,
        cmp_sampler(CompareOp::Always), V,
        per_lane(
            grid([0.25, 0.25, 0.0, 0.0], [0.125, 0.0, 0.0, 0.0], [0.0, 0.125, 0.0, 0.0],
                [0.5; 4]),
            L::cl, [6.0, 4.0, 0.0, 10.0]),
        [1.0; 4]),

    // SampleCmpGrad, aniso off, ρ = max(|dX|, |dY|)·16 (Euclidean):
    // lane 0: gx (4/16, 0), gy (0, 1/16) → ρ = 4 → λ 2 → level 2 (anisotropic-looking: the
    //         longer axis decides);
    // lane 1: gx (5/16, 5/16) → ρ = 5√2 ≈ 7.07 → λ ≈ 2.82 → floor(3.32) = level 3;
    // lane 2: gy (0, 2) → ρ = 32 → λ 5 → last level 4;
    // lane 3: gx (1/16, 0), gy (0, 1/16) → λ 0 → level 0 (ref names level 1 → 0).
    case("t2_grad_lengths", Key::new(T2, Grad), Levels, eq(), V,
        [
            lane(&[0.5, 0.5], dv(2, 0)).grad(&[4.0 / 16.0, 0.0], &[0.0, 1.0 / 16.0]),
            lane(&[0.5, 0.5], dv(3, 0)).grad(&[5.0 / 16.0, 5.0 / 16.0], &[0.0, 0.0]),
            lane(&[0.5, 0.5], dv(4, 0)).grad(&[0.0, 0.0], &[0.0, 2.0]),
            lane(&[0.5, 0.5], dv(1, 0)).grad(&[1.0 / 16.0, 0.0], &[0.0, 1.0 / 16.0]),
        ],
        [1.0, 1.0, 1.0, 0.0]),

    // SampleCmpGrad with clamp: gx = (2/16, 0), gy = (0, 2/16) → λ 1; clamps [0, 2, 3.25, 1] →
    // λ = 1, 2, 3.25, 1 → levels 1, 2, floor(3.75) = 3, 1 (lane 3's ref names level 2 → 0).
    case("t2_grad_clamp", Key::new(T2, Grad).clamp(), Levels, eq(), V,
        per_lane(
            [dv(1, 0), dv(2, 0), dv(3, 0), dv(2, 0)]
                .map(|r| lane(&[0.5, 0.5], r).grad(&[2.0 / 16.0, 0.0], &[0.0, 2.0 / 16.0])),
            L::cl, [0.0, 2.0, 3.25, 1.0]),
        [1.0, 1.0, 1.0, 0.0]),

    // SampleCmpBias with offset and clamp (all three operands): λ_base = 1 (grid 2/16), bias
    // [1, −1, 0, 2], clamp [0, 0, 2, 0], offset (7, −8) (invisible on constant levels) →
    // λ = 2, max(0, 0) = 0, max(1, 2) = 2, 3 → levels 2, 0, 2, 3.
    case("t2_bias_offset_clamp", Key::new(T2, Bias).offset([7, -8]).clamp(), Levels, eq(), V,
        per_lane(
            grid([0.25, 0.25, 0.0, 0.0], [0.125, 0.0, 0.0, 0.0], [0.0, 0.125, 0.0, 0.0],
                [dv(2, 0), dv(0, 0), dv(2, 0), dv(3, 0)]),
            |l, (b, c)| l.lb(b).cl(c), [(1.0, 0.0), (-1.0, 0.0), (0.0, 2.0), (2.0, 0.0)]),
        [1.0; 4]),

    // --- offsets and address modes on the 8×8 ramp (level 0 only) ----------------------------

    // SampleCmpLevelZero, ConstOffset (−8, 7), clamp to edge, nearest: u = 8s − 8, v = 8t + 7.
    // lane 0: s 3.5/8 → u −4.5 → i −5 → 0; t 0.5/8 → v 7.5 → j 7 → ramp(0,7) = ref → 1;
    // lane 1: s 7.5/8 → u −0.5 → 0, j 7 → ramp(0,7); ref ramp(7,0) (the un-offset texel) → 0;
    // lane 2: s 8.5/8 → u 0.5 → 0; t −1/8 → v 6 → j 6 → ramp(0,6) = ref → 1;
    // lane 3: s 15.5/8 → u 7.5 → 7; t 0.75/8 → v 7.75 → 7 → ramp(7,7) = ref → 1.
    case("t2_level_zero_offset_edge", Key::new(T2, LevelZero).offset([-8, 7]), Ramp, eq(), V,
        [
            lane(&[3.5 * E, 0.5 * E], ramp(0, 7, 0)),
            lane(&[7.5 * E, 0.5 * E], ramp(7, 0, 0)),
            lane(&[8.5 * E, -E], ramp(0, 6, 0)),
            lane(&[15.5 * E, 0.75 * E], ramp(7, 7, 0)),
        ],
        [1.0, 0.0, 1.0, 1.0]),

    // Same offset (−8, 7) with clamp to border, opaque white (depth 1.0), compare LESS_OR_EQUAL:
    // lane 0: i −5 → border 1.0; ref 1.0 ≤ 1.0 → 1;
    // lane 1: s 15.5/8 → i 7, t 0.5/8 → j 7 → ramp(7,7) = 0.25; ref 0.3 ≤ 0.25 → 0;
    // lane 2: s 15.5/8, t 1.5/8 → j 8 → border 1.0; ref 0.3 → 1;
    // lane 3: s 15.5/8, t −0.5/8 → v 6.5 → j 6 → ramp(7,6) = 0.21875; ref 0.21875 → 1.
    case("t2_level_zero_offset_border_white", Key::new(T2, LevelZero).offset([-8, 7]), Ramp,
        border(BorderColor::FloatOpaqueWhite, cmp_sampler(CompareOp::LessOrEqual)), V,
        [
            lane(&[3.5 * E, 0.5 * E], 1.0),
            lane(&[15.5 * E, 0.5 * E], 0.3),
            lane(&[15.5 * E, 1.5 * E], 0.3),
            lane(&[15.5 * E, -0.5 * E], 0.21875),
        ],
        [1.0, 0.0, 1.0, 1.0]),

    // SampleCmp with ConstOffset (7, −8), REPEAT. Lanes 1/8 apart → ρ = 1, λ 0 → level 0.
    // lane 0 (0.5, 0.5)/8: u 7.5 → 7, v −7.5 → −8 mod 8 = 0 → (7,0);
    // lane 1 (1.5, 0.5)/8: u 8.5 → 8 mod 8 = 0 → (0,0); lane 2: (7, −7 mod 8 = 1); lane 3: (0,1).
    case("t2_cmp_offset_repeat", Key::new(T2, Cmp).offset([7, -8]), Ramp,
        addr(AddressMode::Repeat, eq()), V,
        grid([0.5 * E, 0.5 * E, 0.0, 0.0], [E, 0.0, 0.0, 0.0], [0.0, E, 0.0, 0.0],
            [ramp(7, 0, 0), ramp(0, 0, 0), ramp(7, 1, 0), ramp(0, 1, 0)]),
        [1.0; 4]),

    // SampleCmpGrad, ConstOffset (−8, −8), MIRRORED_REPEAT, gradients 1/8 → λ 0. The mirrored
    // pattern of an 8-texel axis: −1→0 … −8→7, −9→7, 8→7, 9→6 (`7 − mirror((i mod 16) − 8)`).
    // lane 0 (0.5, 0.5)/8: (−7.5, −7.5) → i = j = −8 → (7,7);
    // lane 1 (4.5, 0.5)/8: u −3.5 → −4 → 3 → (3,7);
    // lane 2 (9.5, 8.5)/8: (1.5, 0.5) → (1,0);
    // lane 3 (−0.5, 0.5)/8: u −8.5 → −9 → 7 → (7,7).
    case("t2_grad_offset_mirrored_repeat", Key::new(T2, Grad).offset([-8, -8]), Ramp,
        addr(AddressMode::MirroredRepeat, eq()), V,
        [
            (0.5, 0.5, ramp(7, 7, 0)),
            (4.5, 0.5, ramp(3, 7, 0)),
            (9.5, 8.5, ramp(1, 0, 0)),
            (-0.5, 0.5, ramp(7, 7, 0)),
        ]
        .map(|(s, t, r)| lane(&[s * E, t * E], r).grad(&[E, 0.0], &[0.0, E])),
        [1.0; 4]),

    // MIRROR_CLAMP_TO_EDGE, `clamp(mirror(i), 0, 7)`: lane 0 s −2.5/8 → i −3 → 2; lane 1 s 9.5/8
    // → 9 → 7; lane 2 s −9.5/8 → −10 → 9 → 7 (ref names texel 0 → 0); lane 3 (4.5, −0.5)/8 →
    // (4, −1 → 0).
    case("t2_level_zero_mirror_clamp_to_edge", Key::new(T2, LevelZero), Ramp,
        addr(AddressMode::MirrorClampToEdge, eq()), V,
        [
            lane(&[-2.5 * E, 0.5 * E], ramp(2, 0, 0)),
            lane(&[9.5 * E, 0.5 * E], ramp(7, 0, 0)),
            lane(&[-9.5 * E, 0.5 * E], ramp(0, 0, 0)),
            lane(&[4.5 * E, -0.5 * E], ramp(4, 0, 0)),
        ],
        [1.0, 1.0, 0.0, 1.0]),

    // CLAMP_TO_BORDER, transparent black (depth 0), compare GREATER:
    // lane 0 s −0.5/8 → i −1 → border 0; 0.5 > 0 → 1; lane 1 s 8.5/8 → border; 0 > 0 → 0;
    // lane 2 texel (0,0) = 1/256; 0.5 > 1/256 → 1; lane 3 t 8.5/8 → border; 1/512 > 0 → 1.
    case("t2_level_zero_border_transparent_black", Key::new(T2, LevelZero), Ramp,
        border(BorderColor::FloatTransparentBlack, cmp_sampler(CompareOp::Greater)), V,
        [
            lane(&[-0.5 * E, 0.5 * E], 0.5),
            lane(&[8.5 * E, 0.5 * E], 0.0),
            lane(&[0.5 * E, 0.5 * E], 0.5),
            lane(&[0.5 * E, 8.5 * E], 1.0 / 512.0),
        ],
        [1.0, 0.0, 1.0, 1.0]),

    // CLAMP_TO_BORDER, opaque black (depth = R = 0), compare GREATER_OR_EQUAL:
    // lane 0 border: 0 ≥ 0 → 1; lane 1 border: −0.25 ≥ 0 → 0 (float depth: no Dref clamp);
    // lane 2 texel (0,0) = 1/256: 1/256 ≥ 1/256 → 1; lane 3 texel (0,0): 0 ≥ 1/256 → 0.
    case("t2_level_zero_border_opaque_black", Key::new(T2, LevelZero), Ramp,
        border(BorderColor::FloatOpaqueBlack, cmp_sampler(CompareOp::GreaterOrEqual)), V,
        [
            lane(&[-0.5 * E, 0.5 * E], 0.0),
            lane(&[0.5 * E, -0.5 * E], -0.25),
            lane(&[0.5 * E, 0.5 * E], 1.0 / 256.0),
            lane(&[0.5 * E, 0.5 * E], 0.0),
        ],
        [1.0, 0.0, 1.0, 0.0]),

    // Bilinear PCF (linear mag), compare LESS, s = 2.75/8, t = 1.75/8 → u − 0.5 = 2.25, v − 0.5
    // = 1.25 → i0 2 (α .25), j0 1 (β .25): taps (2,1) = 11/256 w .5625, (3,1) = 12/256 w .1875,
    // (2,2) = 19/256 w .1875, (3,2) = 20/256 w .0625.
    // ref 11.5/256 passes 12, 19, 20 → .4375; 12.5/256 → 19, 20 → .25; 19.5/256 → 20 → .0625;
    // 10/256 → all → 1.
    case("t2_level_zero_pcf_bilinear", Key::new(T2, LevelZero), Ramp,
        linear(cmp_sampler(CompareOp::Less)), V,
        [11.5 / 256.0, 12.5 / 256.0, 19.5 / 256.0, 10.0 / 256.0]
            .map(|r| lane(&[2.75 / 8.0, 1.75 / 8.0], r)),
        [0.4375, 0.25, 0.0625, 1.0]),

    // PCF taps crossing into the border (opaque white = 1.0), compare LESS, t = 0.5/8 (β = 0):
    // lane 0/1/2 s = 0.25/8 → u − 0.5 = −0.25 → i0 −1 (border, w .25), i1 0 (1/256, w .75):
    //   ref 0.5 → border passes → .25; ref 0 → both pass → 1; ref 1.0 → none → 0;
    // lane 3 s = 7.75/8 → u − 0.5 = 7.25 → texel (7,0) = 8/256 (w .75), border (w .25):
    //   ref 0.5 → .25.
    case("t2_level_zero_pcf_border", Key::new(T2, LevelZero), Ramp,
        linear(border(BorderColor::FloatOpaqueWhite, cmp_sampler(CompareOp::Less))), V,
        [
            lane(&[0.25 / 8.0, 0.5 / 8.0], 0.5),
            lane(&[0.25 / 8.0, 0.5 / 8.0], 0.0),
            lane(&[0.25 / 8.0, 0.5 / 8.0], 1.0),
            lane(&[7.75 / 8.0, 0.5 / 8.0], 0.5),
        ],
        [0.25, 1.0, 0.0, 0.25]),

    // D16_UNORM holding 1.0 (65535), compare EQUAL, Vulkan: Dref clamped to [0, 1] first →
    // refs 1.5 and 2.0 become 1.0 → equal → 1; 0.5 → 0; 1.0 → 1.
    case("t2_unorm16_dref_clamp_vulkan", Key::new(T2, LevelZero),
        Const(quadstep::Format::D16_UNORM, 1.0), eq(), V,
        [1.5, 2.0, 0.5, 1.0].map(|r| lane(&[0.5, 0.5], r)),
        [1.0, 1.0, 0.0, 1.0]),

    // D16_UNORM holding 0.25 → round(0.25·65535 = 16383.75) = 16384, decoded 16384/65535.
    // D3D quantizes Dref to 16 bits: 16383.8/65535 → 16384 (equal → 1); 16384/65535 → 1;
    // 16383.3/65535 → 16383 → 0; 16384.2/65535 → 16384 → 1.
    case("t2_unorm16_dref_quantize_d3d", Key::new(T2, LevelZero),
        Const(quadstep::Format::D16_UNORM, 0.25), eq(), D,
        [16383.8 / 65535.0, 16384.0 / 65535.0, 16383.3 / 65535.0, 16384.2 / 65535.0]
            .map(|r| lane(&[0.5, 0.5], r)),
        [1.0, 1.0, 0.0, 1.0]),

    // Same refs in Vulkan (no quantization): only the exact value is equal.
    case("t2_unorm16_dref_no_quantize_vulkan", Key::new(T2, LevelZero),
        Const(quadstep::Format::D16_UNORM, 0.25), eq(), V,
        [16383.8 / 65535.0, 16384.0 / 65535.0, 16383.3 / 65535.0, 16384.2 / 65535.0]
            .map(|r| lane(&[0.5, 0.5], r)),
        [0.0, 1.0, 0.0, 0.0]),

    // -----------------------------------------------------------------------------------------
    // Texture1D (level texture 16 wide, levels 0..4; ramp 8 wide: ramp(i) = (i + 1)/256)
    // -----------------------------------------------------------------------------------------

    // SampleCmp: s = 0.125, 0.375, 0.125, 0.375 → dX = 0.25·16 = 4, dY = 0 → ρ 4, λ 2.
    case("t1_cmp_implicit", Key::new(T1, Cmp), Levels, eq(), V,
        grid([0.125, 0.0, 0.0, 0.0], [0.25, 0.0, 0.0, 0.0], [0.0; 4],
            [dv(2, 0), dv(2, 0), dv(1, 0), dv(3, 0)]),
        [1.0, 1.0, 0.0, 0.0]),

    // SampleCmpBias: λ_base 2 (as above), bias −1, 1, −3, 0.5 → λ 1, 3, −1 → 0, 2.5 →
    // floor(3.0) = 3.
    case("t1_bias", Key::new(T1, Bias), Levels, eq(), V,
        per_lane(
            grid([0.125, 0.0, 0.0, 0.0], [0.25, 0.0, 0.0, 0.0], [0.0; 4],
                [dv(1, 0), dv(3, 0), dv(0, 0), dv(3, 0)]),
            L::lb, [-1.0, 1.0, -3.0, 0.5]),
        [1.0; 4]),

    // SampleCmpLevel: lod 0, 1, 4, 9 → levels 0, 1, 4, 4 (lane 1's ref names level 0 → 0).
    case("t1_level", Key::new(T1, Level), Levels, eq(), V,
        [
            lane(&[0.3], dv(0, 0)).lb(0.0),
            lane(&[0.3], dv(0, 0)).lb(1.0),
            lane(&[0.3], dv(4, 0)).lb(4.0),
            lane(&[0.3], dv(4, 0)).lb(9.0),
        ],
        [1.0, 0.0, 1.0, 1.0]),

    // SampleCmpLevelZero, separate texture + comparison sampler: level 0 everywhere.
    case("t1_level_zero_separate", Key::new(T1, LevelZero).separate(), Levels, eq(), V,
        [
            lane(&[0.3], dv(0, 0)),
            lane(&[0.9], dv(0, 0)),
            lane(&[0.1], dv(1, 0)),
            lane(&[0.5], dv(0, 0)),
        ],
        [1.0, 1.0, 0.0, 1.0]),

    // SampleCmpGrad (1 component): lane 0 gx 1/16, gy 4/16 → ρ = max(1, 4) = 4 → λ 2;
    // gx 2/16 → 1; 8/16 → 3; 64/16 → 6 → last level 4.
    case("t1_grad", Key::new(T1, Grad), Levels, eq(), V,
        [
            lane(&[0.3], dv(2, 0)).grad(&[1.0 / 16.0], &[4.0 / 16.0]),
            lane(&[0.3], dv(1, 0)).grad(&[2.0 / 16.0], &[0.0]),
            lane(&[0.3], dv(3, 0)).grad(&[8.0 / 16.0], &[0.0]),
            lane(&[0.3], dv(4, 0)).grad(&[64.0 / 16.0], &[0.0]),
        ],
        [1.0; 4]),

    // SampleCmpGrad with clamp: gx 2/16 → λ 1; clamps 0, 3, 2.5, 0.5 → λ 1, 3, 2.5 →
    // floor(3.0) = 3, 1.
    case("t1_grad_clamp", Key::new(T1, Grad).clamp(), Levels, eq(), V,
        per_lane(
            [dv(1, 0), dv(3, 0), dv(3, 0), dv(1, 0)]
                .map(|r| lane(&[0.3], r).grad(&[2.0 / 16.0], &[0.0])),
            L::cl, [0.0, 3.0, 2.5, 0.5]),
        [1.0; 4]),

    // SampleCmpLevelZero, ConstOffset −8, clamp to edge on the 8-wide ramp: u = 8s − 8 for s =
    // 3.5/8, 7.5/8, 8.5/8, 15.5/8 → −4.5, −0.5, 0.5, 7.5 → texels 0, 0, 0, 7. Lane 1's ref names
    // texel 7 (the un-offset texel) → 0.
    case("t1_level_zero_offset_m8_edge", Key::new(T1, LevelZero).offset([-8, 0]), Ramp, eq(), V,
        [
            lane(&[3.5 * E], ramp(0, 0, 0)),
            lane(&[7.5 * E], ramp(7, 0, 0)),
            lane(&[8.5 * E], ramp(0, 0, 0)),
            lane(&[15.5 * E], ramp(7, 0, 0)),
        ],
        [1.0, 0.0, 1.0, 1.0]),

    // ConstOffset 7 with clamp to border (opaque white = 1.0), EQUAL: u = 8s + 7 for s = 0.5/8,
    // 1.5/8, −7.5/8, −8.5/8 → 7.5, 8.5, −0.5, −1.5 → texel 7, border, border, border.
    // Refs ramp(7), 1.0, 1.0, ramp(0) → 1, 1, 1, 0.
    case("t1_level_zero_offset_p7_border", Key::new(T1, LevelZero).offset([7, 0]), Ramp,
        border(BorderColor::FloatOpaqueWhite, eq()), V,
        [
            lane(&[0.5 * E], ramp(7, 0, 0)),
            lane(&[1.5 * E], 1.0),
            lane(&[-7.5 * E], 1.0),
            lane(&[-8.5 * E], ramp(0, 0, 0)),
        ],
        [1.0, 1.0, 1.0, 0.0]),

    // SampleCmp with ConstOffset −8, REPEAT: s = 0.5/8, 1.5/8, 0.5/8, 1.5/8 → ρ 1, λ 0;
    // u − 8 = −7.5, −6.5 → texels −8 mod 8 = 0, −7 mod 8 = 1. Lane 2's ref names texel 1 → 0.
    case("t1_cmp_offset_repeat", Key::new(T1, Cmp).offset([-8, 0]), Ramp,
        addr(AddressMode::Repeat, eq()), V,
        grid([0.5 * E, 0.0, 0.0, 0.0], [E, 0.0, 0.0, 0.0], [0.0; 4],
            [ramp(0, 0, 0), ramp(1, 0, 0), ramp(1, 0, 0), ramp(1, 0, 0)]),
        [1.0, 1.0, 0.0, 1.0]),

    // Linear 1D PCF with compare GREATER: s = 3.25/8 → u − 0.5 = 2.75 → texel 2 (3/256, w .25)
    // and texel 3 (4/256, w .75). ref 3.5/256 > only texel 2 → .25; 5/256 → 1; 3/256 → 0;
    // 4/256 → .25.
    case("t1_level_zero_pcf", Key::new(T1, LevelZero), Ramp,
        linear(cmp_sampler(CompareOp::Greater)), V,
        [3.5 / 256.0, 5.0 / 256.0, 3.0 / 256.0, 4.0 / 256.0].map(|r| lane(&[3.25 / 8.0], r)),
        [0.25, 1.0, 0.0, 0.25]),

    // -----------------------------------------------------------------------------------------
    // Texture1DArray (16 wide, 4 layers, levels 0..4; ramp 8 wide, 2 layers). DXC-style separate
    // texture + sampler throughout.
    // -----------------------------------------------------------------------------------------

    // SampleCmpLevelZero, layer = clamp(RNE(a), 0, 3): a 0.5 → 0 (tie to even), 1.5 → 2,
    // 2.5 → 2, 7 → 3.
    case("t1a_layer_rounding", Key::new(T1A, LevelZero).separate(), Levels, eq(), V,
        [
            lane(&[0.3, 0.5], dv(0, 0)),
            lane(&[0.3, 1.5], dv(0, 2)),
            lane(&[0.3, 2.5], dv(0, 2)),
            lane(&[0.3, 7.0], dv(0, 3)),
        ],
        [1.0; 4]),

    // Layer a −1 → 0; 3.5 → RNE 4 → clamp 3; 1.4999 → 1; 0.49 → 0 (ref names layer 1 → 0).
    case("t1a_layer_clamp", Key::new(T1A, LevelZero).separate(), Levels, eq(), V,
        [
            lane(&[0.3, -1.0], dv(0, 0)),
            lane(&[0.3, 3.5], dv(0, 3)),
            lane(&[0.3, 1.4999], dv(0, 1)),
            lane(&[0.3, 0.49], dv(0, 1)),
        ],
        [1.0, 1.0, 1.0, 0.0]),

    // SampleCmp: lanes (s, a) = (0.125, 0), (0.375, 1), (0.125, 2), (0.375, 3): dX.s = 0.25·16 =
    // 4, dY.s = 0; the layer coordinate is not part of ρ → λ 2 → level 2 of each lane's layer.
    case("t1a_cmp_implicit", Key::new(T1A, Cmp).separate(), Levels, eq(), V,
        [
            lane(&[0.125, 0.0], dv(2, 0)),
            lane(&[0.375, 1.0], dv(2, 1)),
            lane(&[0.125, 2.0], dv(2, 2)),
            lane(&[0.375, 3.0], dv(2, 3)),
        ],
        [1.0; 4]),

    // SampleCmpBias on the same lanes: bias 1, −2, 0, 9 → λ 3, 0, 2, 11 → last level 4.
    case("t1a_bias", Key::new(T1A, Bias).separate(), Levels, eq(), V,
        [
            lane(&[0.125, 0.0], dv(3, 0)).lb(1.0),
            lane(&[0.375, 1.0], dv(0, 1)).lb(-2.0),
            lane(&[0.125, 2.0], dv(2, 2)).lb(0.0),
            lane(&[0.375, 3.0], dv(4, 3)).lb(9.0),
        ],
        [1.0; 4]),

    // SampleCmpLevel lod 2 with layers 0, 1.5 → 2, 3, 9 → 3.
    case("t1a_level", Key::new(T1A, Level).separate(), Levels, eq(), V,
        [
            lane(&[0.3, 0.0], dv(2, 0)).lb(2.0),
            lane(&[0.3, 1.5], dv(2, 2)).lb(2.0),
            lane(&[0.3, 3.0], dv(2, 3)).lb(2.0),
            lane(&[0.3, 9.0], dv(2, 3)).lb(2.0),
        ],
        [1.0; 4]),

    // SampleCmpGrad with clamp: gx 4/16 → λ 2; clamps 0, 3, 0, 1 → λ 2, 3, 2, 2; layers 3, 2, 1, 0.
    case("t1a_grad_clamp", Key::new(T1A, Grad).clamp().separate(), Levels, eq(), V,
        [
            (3.0, dv(2, 3), 0.0),
            (2.0, dv(3, 2), 3.0),
            (1.0, dv(2, 1), 0.0),
            (0.0, dv(2, 0), 1.0),
        ]
        .map(|(a, r, c)| lane(&[0.3, a], r).grad(&[4.0 / 16.0], &[0.0]).cl(c)),
        [1.0; 4]),

    // SampleCmpLevelZero, ConstOffset 7, clamp to edge, on the 2-layer ramp; the offset never
    // touches the layer: (0.5/8, 1) → 7.5 → texel 7 of layer 1; (3.5/8, 0) → 10.5 → 7 of layer 0;
    // (−7.5/8, 1) → −0.5 → 0 of layer 1; (−6.5/8, 0.6 → 1) → 0.5 → 0 of layer 1.
    case("t1a_level_zero_offset", Key::new(T1A, LevelZero).offset([7, 0]).separate(), Ramp,
        eq(), V,
        [
            lane(&[0.5 * E, 1.0], ramp(7, 0, 1)),
            lane(&[3.5 * E, 0.0], ramp(7, 0, 0)),
            lane(&[-7.5 * E, 1.0], ramp(0, 0, 1)),
            lane(&[-6.5 * E, 0.6], ramp(0, 0, 1)),
        ],
        [1.0; 4]),

    // -----------------------------------------------------------------------------------------
    // Texture2DArray (16×16, 4 layers, levels 0..4; ramp 8×8×2). Separate texture + sampler.
    // -----------------------------------------------------------------------------------------

    // SampleCmp: grid 2/16 → λ 1; layers 3, 2, 1, 0 (the layer's own differences do not enter
    // ρ). Lane 3's ref names level 0 → 0.
    case("t2a_cmp_implicit", Key::new(T2A, Cmp).separate(), Levels, eq(), V,
        [
            lane(&[0.25, 0.25, 3.0], dv(1, 3)),
            lane(&[0.375, 0.25, 2.0], dv(1, 2)),
            lane(&[0.25, 0.375, 1.0], dv(1, 1)),
            lane(&[0.375, 0.375, 0.0], dv(0, 0)),
        ],
        [1.0, 1.0, 1.0, 0.0]),

    // SampleCmpBias with clamp: λ_base 1; bias 1, 1, −1, 0; clamps 0, 3, 2, 0 → λ 2, 3, 2, 1;
    // layers 0.5 → 0, 1, 2.5 → 2, 3.
    case("t2a_bias_clamp", Key::new(T2A, Bias).clamp().separate(), Levels, eq(), V,
        [
            lane(&[0.25, 0.25, 0.5], dv(2, 0)).lb(1.0).cl(0.0),
            lane(&[0.375, 0.25, 1.0], dv(3, 1)).lb(1.0).cl(3.0),
            lane(&[0.25, 0.375, 2.5], dv(2, 2)).lb(-1.0).cl(2.0),
            lane(&[0.375, 0.375, 3.0], dv(1, 3)).lb(0.0).cl(0.0),
        ],
        [1.0; 4]),

    // SampleCmpLevel: lod 0.4 → 0, 0.6 → 1, 4 → 4, 1 → 1; layers 0.5 → 0, 2.5 → 2, 1.5 → 2,
    // 5 → 3.
    case("t2a_level", Key::new(T2A, Level).separate(), Levels, eq(), V,
        [
            lane(&[0.5, 0.5, 0.5], dv(0, 0)).lb(0.4),
            lane(&[0.5, 0.5, 2.5], dv(1, 2)).lb(0.6),
            lane(&[0.5, 0.5, 1.5], dv(4, 2)).lb(4.0),
            lane(&[0.5, 0.5, 5.0], dv(1, 3)).lb(1.0),
        ],
        [1.0; 4]),

    // SampleCmpGrad with clamp: gx (0, 8/16), gy (2/16, 0) → ρ = max(8, 2) = 8 → λ 3;
    // clamps 0, 4, 3.6, 0 → λ 3, 4, 3.6 → floor(4.1) = 4, 3; layers 0, 1, 2, 3; lane 3's ref names
    // level 2 → 0.
    case("t2a_grad_clamp", Key::new(T2A, Grad).clamp().separate(), Levels, eq(), V,
        [
            (0.0, dv(3, 0), 0.0),
            (1.0, dv(4, 1), 4.0),
            (2.0, dv(4, 2), 3.6),
            (3.0, dv(2, 3), 0.0),
        ]
        .map(|(a, r, c)| lane(&[0.5, 0.5, a], r).grad(&[0.0, 0.5], &[0.125, 0.0]).cl(c)),
        [1.0, 1.0, 1.0, 0.0]),

    // SampleCmpLevelZero, ConstOffset (7, −8), clamp to border (opaque white), EQUAL, ramp 8×8×2:
    // lane 0 (0.5/8, 8.5/8, 1) → u 7.5, v 0.5 → (7, 0) of layer 1;
    // lane 1 (1.5/8, 8.5/8, 0) → u 8.5 → border 1.0, ref 1.0 → 1;
    // lane 2 (0.5/8, 0.5/8, 0) → v −7.5 → border; ref ramp(7,0,0) → 0;
    // lane 3 (−6.5/8, 15.5/8, 1.5 → 2 → clamp 1) → (0.5, 7.5) → (0, 7) of layer 1.
    case("t2a_level_zero_offset_border", Key::new(T2A, LevelZero).offset([7, -8]).separate(),
        Ramp, border(BorderColor::FloatOpaqueWhite, eq()), V,
        [
            lane(&[0.5 * E, 8.5 * E, 1.0], ramp(7, 0, 1)),
            lane(&[1.5 * E, 8.5 * E, 0.0], 1.0),
            lane(&[0.5 * E, 0.5 * E, 0.0], ramp(7, 0, 0)),
            lane(&[-6.5 * E, 15.5 * E, 1.5], ramp(0, 7, 1)),
        ],
        [1.0, 1.0, 0.0, 1.0]),

    // -----------------------------------------------------------------------------------------
    // TextureCube (8×8 faces, levels 0..3; face n of level L holds dv(L, n)); no offsets.
    // Faces (§4.1): +x 0, −x 1, +y 2, −y 3, +z 4, −z 5; ties Z > Y > X.
    // -----------------------------------------------------------------------------------------

    // SampleCmpLevelZero face selection: (1, 0.2, −0.3) → +x; (−3, 1, 1) → −x; (0.1, 2, −0.5)
    // → +y; (0.3, −2, 1) → −y.
    case("cube_faces_x_y", Key::new(Cube, LevelZero), Levels, eq(), V,
        [
            lane(&[1.0, 0.2, -0.3], dv(0, 0)),
            lane(&[-3.0, 1.0, 1.0], dv(0, 1)),
            lane(&[0.1, 2.0, -0.5], dv(0, 2)),
            lane(&[0.3, -2.0, 1.0], dv(0, 3)),
        ],
        [1.0; 4]),

    // (0.2, 0.1, 5) → +z; (0.2, 0.1, −5) → −z; (1, 1, 1): three-way tie → Z → +z;
    // (−1, 1, 0.5): x/y tie → Y → +y.
    case("cube_faces_z_and_ties", Key::new(Cube, LevelZero), Levels, eq(), V,
        [
            lane(&[0.2, 0.1, 5.0], dv(0, 4)),
            lane(&[0.2, 0.1, -5.0], dv(0, 5)),
            lane(&[1.0, 1.0, 1.0], dv(0, 4)),
            lane(&[-1.0, 1.0, 0.5], dv(0, 2)),
        ],
        [1.0; 4]),

    // Seamless PCF across a cube edge (linear mag, level 0, EQUAL).
    // Direction A = (1, 0, 0.9375): face +x, s_c = −z = −0.9375 → s = 0.5·(−0.9375) + 0.5 =
    // 1/32 → u = 0.25 → u − 0.5 = −0.25 → i0 = −1 (w .25), i1 = 0 (w .75); t = 0.5 → v − 0.5 =
    // 3.5 → rows 3/4 (w .5 each). Column −1 of +x is the right column of +z (the +x face's s = 0
    // edge is z = x). So the +z face carries weight .25, +x .75.
    // Direction B = (1, 0.9375, 0): t_c = −y → t = 1/32 → row −1 (w .25) crosses the top edge
    // into +y; +y carries .25; +z none.
    case("cube_edge_pcf", Key::new(Cube, LevelZero), Levels, linear(eq()), V,
        [
            lane(&[1.0, 0.0, 0.9375], dv(0, 4)),
            lane(&[1.0, 0.0, 0.9375], dv(0, 0)),
            lane(&[1.0, 0.9375, 0.0], dv(0, 2)),
            lane(&[1.0, 0.9375, 0.0], dv(0, 4)),
        ],
        [0.25, 0.75, 0.25, 0.0]),

    // Cube corner: direction (1, 0.9375, 0.9375) on +x → u = v = 0.25 → taps (0,0) +x w .5625,
    // (−1,0) → +z w .1875, (0,−1) → +y w .1875, (−1,−1) is off both edges (w .0625): replaced by
    // the average of the three real corner texels' comparison results (§4.3).
    // EQUAL +x: .5625 + .0625·(1/3) = 0.583333…; EQUAL +z: .1875 + .0625/3 = 0.208333…;
    // EQUAL +y: same 0.208333…; EQUAL −x: 0.
    case("cube_corner_pcf", Key::new(Cube, LevelZero), Levels, linear(eq()), V,
        [dv(0, 0), dv(0, 4), dv(0, 2), dv(0, 1)].map(|r| lane(&[1.0, 0.9375, 0.9375], r)),
        [0.5625 + 0.0625 / 3.0, 0.1875 + 0.0625 / 3.0, 0.1875 + 0.0625 / 3.0, 0.0]),

    // SampleCmp: lanes (0,0,1), (0.5,0,1), (0,0.5,1), (0.5,0.5,1), all on +z (|z| = 1 largest).
    // dX = (0.5, 0, 0), dY = (0, 0.5, 0), ∂|r_c| = 0, so per lane ∂s/∂x = 0.5·0.5/1 = 0.25 and
    // ∂t/∂y = 0.25 → ×8 = 2 → ρ 2, λ 1 in every lane. Lanes 2/3 name levels 0/2 → 0.
    case("cube_cmp_implicit", Key::new(Cube, Cmp), Levels, eq(), V,
        grid([0.0, 0.0, 1.0, 0.0], [0.5, 0.0, 0.0, 0.0], [0.0, 0.5, 0.0, 0.0],
            [dv(1, 4), dv(1, 4), dv(0, 4), dv(2, 4)]),
        [1.0, 1.0, 0.0, 0.0]),

    // SampleCmp, separate texture + sampler, same lanes with clamp 0, 2, 3.5, 0.5: λ = 1, 2,
    // 3.5 → last level 3, 1.
    case("cube_cmp_clamp_separate", Key::new(Cube, Cmp).clamp().separate(), Levels, eq(), V,
        per_lane(
            grid([0.0, 0.0, 1.0, 0.0], [0.5, 0.0, 0.0, 0.0], [0.0, 0.5, 0.0, 0.0],
                [dv(1, 4), dv(2, 4), dv(3, 4), dv(1, 4)]),
            L::cl, [0.0, 2.0, 3.5, 0.5]),
        [1.0; 4]),

    // SampleCmpBias with clamp, λ_base 1 as above: bias 1, −1, 0.5, 2; clamps 0, 0, 0, 3.5 →
    // λ 2, 0, 1.5 → floor(2.0) = 2, max(3, 3.5) → last level 3.
    case("cube_bias_clamp", Key::new(Cube, Bias).clamp(), Levels, eq(), V,
        per_lane(
            grid([0.0, 0.0, 1.0, 0.0], [0.5, 0.0, 0.0, 0.0], [0.0, 0.5, 0.0, 0.0],
                [dv(2, 4), dv(0, 4), dv(2, 4), dv(3, 4)]),
            |l, (b, c)| l.lb(b).cl(c), [(1.0, 0.0), (-1.0, 0.0), (0.5, 0.0), (2.0, 3.5)]),
        [1.0; 4]),

    // SampleCmpLevel: lod 3 on −z, 9 → last level 3 on +y, 0.4 → 0 on −x, 2 on −y.
    case("cube_level", Key::new(Cube, Level), Levels, eq(), V,
        [
            lane(&[0.0, 0.0, -1.0], dv(3, 5)).lb(3.0),
            lane(&[0.0, 1.0, 0.0], dv(3, 2)).lb(9.0),
            lane(&[-1.0, 0.0, 0.0], dv(0, 1)).lb(0.4),
            lane(&[0.0, -1.0, 0.0], dv(2, 3)).lb(2.0),
        ],
        [1.0; 4]),

    // SampleCmpGrad (3-component gradients), quotient rule ∂s = 0.5·(|r_c|·∂s_c − s_c·∂|r_c|)/r_c²
    // (§4.2), face size 8:
    // lane 0 (0,0,1), gx (0.5,0,0) → ∂s = 0.25 → 2 → λ 1;
    // lane 1 (0.5,0,1), gx (0,0,1) → ∂s = 0.5·(0 − 0.5·1) = −0.25 → 2 → λ 1 (only the
    //        quotient rule's second term moves s here);
    // lane 2 (0,0,1), gx (2,0,0) → ∂s = 1 → 8 → λ 3;
    // lane 3 (0,0,1), gx (0,0,5) (along the major axis at the face centre → ∂s = 0),
    //        gy (0,1,0) → t_c = −y → ∂t = −0.5 → 4 → λ 2.
    case("cube_grad", Key::new(Cube, Grad), Levels, eq(), V,
        [
            lane(&[0.0, 0.0, 1.0], dv(1, 4)).grad(&[0.5, 0.0, 0.0], &[0.0; 3]),
            lane(&[0.5, 0.0, 1.0], dv(1, 4)).grad(&[0.0, 0.0, 1.0], &[0.0; 3]),
            lane(&[0.0, 0.0, 1.0], dv(3, 4)).grad(&[2.0, 0.0, 0.0], &[0.0; 3]),
            lane(&[0.0, 0.0, 1.0], dv(2, 4)).grad(&[0.0, 0.0, 5.0], &[0.0, 1.0, 0.0]),
        ],
        [1.0; 4]),

    // SampleCmpGrad with clamp on −x: at (−1, 0, 0), gx (0, 0, 0.5) → s_c = +z → ∂s = 0.25 → 2
    // → λ 1; clamps 0, 2, 2.5, 5 → λ 1, 2, 2.5 → floor(3.0) = 3, 5 → last level 3.
    case("cube_grad_clamp", Key::new(Cube, Grad).clamp(), Levels, eq(), V,
        per_lane(
            [dv(1, 1), dv(2, 1), dv(3, 1), dv(3, 1)]
                .map(|r| lane(&[-1.0, 0.0, 0.0], r).grad(&[0.0, 0.0, 0.5], &[0.0; 3])),
            L::cl, [0.0, 2.0, 2.5, 5.0]),
        [1.0; 4]),

    // -----------------------------------------------------------------------------------------
    // TextureCubeArray (8×8, 2 cubes = 12 layers, levels 0..3; layer = 6·cube + face, holding
    // dv(L, layer)). Separate texture + sampler.
    // -----------------------------------------------------------------------------------------

    // SampleCmpLevelZero on +x: cube = clamp(RNE(a), 0, 1): a 0.5 → 0 (tie to even; floor(a+0.5)
    // would give 1), 1.5 → 2 → 1, −1 → 0, 7 → 1. Layer = 6·cube + 0.
    case("cubea_index_rounding", Key::new(CubeA, LevelZero).separate(), Levels, eq(), V,
        [
            lane(&[1.0, 0.0, 0.0, 0.5], dv(0, 0)),
            lane(&[1.0, 0.0, 0.0, 1.5], dv(0, 6)),
            lane(&[1.0, 0.0, 0.0, -1.0], dv(0, 0)),
            lane(&[1.0, 0.0, 0.0, 7.0], dv(0, 6)),
        ],
        [1.0; 4]),

    // SampleCmp: the cube_cmp_implicit lanes (+z, ρ 2, λ 1) in cube 1 → layer 10. Lane 3's ref
    // names cube 0's +z (layer 4) → 0.
    case("cubea_cmp_implicit", Key::new(CubeA, Cmp).separate(), Levels, eq(), V,
        grid([0.0, 0.0, 1.0, 1.0], [0.5, 0.0, 0.0, 0.0], [0.0, 0.5, 0.0, 0.0],
            [dv(1, 10), dv(1, 10), dv(1, 10), dv(1, 4)]),
        [1.0, 1.0, 1.0, 0.0]),

    // SampleCmpBias, λ_base 1, cube 0 (+z → layer 4): bias 0, 1, 2, −1 → λ 1, 2, 3, 0.
    case("cubea_bias", Key::new(CubeA, Bias).separate(), Levels, eq(), V,
        per_lane(
            grid([0.0, 0.0, 1.0, 0.0], [0.5, 0.0, 0.0, 0.0], [0.0, 0.5, 0.0, 0.0],
                [dv(1, 4), dv(2, 4), dv(3, 4), dv(0, 4)]),
            L::lb, [0.0, 1.0, 2.0, -1.0]),
        [1.0; 4]),

    // SampleCmpLevel: (−z, cube 1) lod 2 → dv(2, 11); (+y, cube 0) lod 7 → last level 3 →
    // dv(3, 2); (−y, cube 1) lod 0.6 → 1 → dv(1, 9); (−x, cube 1) lod 1 → dv(1, 7).
    case("cubea_level", Key::new(CubeA, Level).separate(), Levels, eq(), V,
        [
            lane(&[0.0, 0.0, -1.0, 1.0], dv(2, 11)).lb(2.0),
            lane(&[0.0, 1.0, 0.0, 0.0], dv(3, 2)).lb(7.0),
            lane(&[0.0, -1.0, 0.0, 1.0], dv(1, 9)).lb(0.6),
            lane(&[-1.0, 0.0, 0.0, 1.0], dv(1, 7)).lb(1.0),
        ],
        [1.0; 4]),

    // SampleCmpGrad with clamp on (+x, cube 1 → layer 6): s_c = −z, gx (0, 0, 1) → ∂s = −0.5 →
    // 4 → λ 2; clamps 0, 3, 1, 2.5 → λ 2, 3, 2, 2.5 → floor(3.0) = 3.
    case("cubea_grad_clamp", Key::new(CubeA, Grad).clamp().separate(), Levels, eq(), V,
        per_lane(
            [dv(2, 6), dv(3, 6), dv(2, 6), dv(3, 6)]
                .map(|r| lane(&[1.0, 0.0, 0.0, 1.0], r).grad(&[0.0, 0.0, 1.0], &[0.0; 3])),
            L::cl, [0.0, 3.0, 1.0, 2.5]),
        [1.0; 4]),

    // Seamless edge PCF in cube 1 (combined sampler): direction A of `cube_edge_pcf` with a = 1
    // → layer 6 (+x) weight .75, layer 10 (+z of cube 1) .25; cube 0's +z (layer 4) → 0.
    case("cubea_edge_pcf", Key::new(CubeA, LevelZero), Levels, linear(eq()), V,
        [dv(0, 10), dv(0, 6), dv(0, 4), dv(0, 0)].map(|r| lane(&[1.0, 0.0, 0.9375, 1.0], r)),
        [0.25, 0.75, 0.0, 0.0]),

    // -----------------------------------------------------------------------------------------
    // Programmable offsets, sampler MinLOD > MaxLOD, the mag/min switch, D3D empty clamp on a
    // cube, derivatives, precision, offsets in level texels, trilinear PCF, sampler bias.
    // -----------------------------------------------------------------------------------------

    // SampleCmp with a non-constant `Offset` (SM 6.7 programmable offset), REPEAT, Vulkan
    // (offsets used as given). Grid 1/8 → λ 0; base texels (0,0), (1,0), (0,1), (1,1);
    // offsets (−8, 7) → (0, 7); (3, 2) → (4, 2); (7, −1) → (7, 0); (−1, −1) → (0, 0).
    case("t2_cmp_var_offset_vulkan", Key::new(T2, Cmp).var_offset(), Ramp,
        addr(AddressMode::Repeat, eq()), V,
        per_lane(
            grid([0.5 * E, 0.5 * E, 0.0, 0.0], [E, 0.0, 0.0, 0.0], [0.0, E, 0.0, 0.0],
                [ramp(0, 7, 0), ramp(4, 2, 0), ramp(7, 0, 0), ramp(0, 0, 0)]),
            |l, (x, y)| l.off(x, y), [(-8, 7), (3, 2), (7, -1), (-1, -1)]),
        [1.0; 4]),

    // SampleCmpLevelZero with a programmable offset in D3D: only the low 4 bits count,
    // sign-extended: 8 → −8, −9 → 7, 17 → 1, −16 → 0, 23 → 7. Clamp to edge, all lanes at texel
    // (3, 3) (s = t = 3.5/8):
    // lane 0 (8, 0) → (−8, 0) → u −4.5 → 0 → (0, 3);  lane 1 (−9, 0) → (7, 0) → 10.5 → (7, 3);
    // lane 2 (17, −16) → (1, 0) → (4, 3);             lane 3 (0, 23) → (0, 7) → (3, 7).
    case("t2_level_zero_var_offset_d3d_low_bits", Key::new(T2, LevelZero).var_offset().separate(),
        Ramp, eq(), D,
        [
            lane(&[3.5 / 8.0, 3.5 / 8.0], ramp(0, 3, 0)).off(8, 0),
            lane(&[3.5 / 8.0, 3.5 / 8.0], ramp(7, 3, 0)).off(-9, 0),
            lane(&[3.5 / 8.0, 3.5 / 8.0], ramp(4, 3, 0)).off(17, -16),
            lane(&[3.5 / 8.0, 3.5 / 8.0], ramp(3, 7, 0)).off(0, 23),
        ],
        [1.0; 4]),

    // Sampler minLod 3 > maxLod 1, SampleCmpLevel lod 0, 2, 4, 1.5. D3D: λ = max(3, min(1, lod))
    // = 3 → level 3 in every lane.
    case("t2_level_sampler_minlod_above_maxlod_d3d", Key::new(T2, Level), Levels,
        Sampler { min_lod: 3.0, max_lod: 1.0, ..eq() }, D,
        [0.0, 2.0, 4.0, 1.5].map(|l| lane(&[0.5, 0.5], dv(3, 0)).lb(l)),
        [1.0; 4]),

    // The same in Vulkan (undefined by the spec; quadstep documents maxLod winning):
    // λ = min(max(lod, 3), 1) = 1 → level 1.
    case("t2_level_sampler_minlod_above_maxlod_vulkan", Key::new(T2, Level), Levels,
        Sampler { min_lod: 3.0, max_lod: 1.0, ..eq() }, V,
        [0.0, 2.0, 4.0, 1.5].map(|l| lane(&[0.5, 0.5], dv(1, 0)).lb(l)),
        [1.0; 4]),

    // Magnification vs minification is decided from λ (§5.6) even on a one-level texture:
    // mag NEAREST, min LINEAR, compare LESS, at (2.75/8, 1.75/8) (see `t2_level_zero_pcf_bilinear`):
    // lane 0 lod 0 → mag → texel (2,1) = 11/256; 11.5/256 < 11/256 → 0;
    // lane 1 lod 0.5 → min → bilinear PCF → .4375;
    // lane 2 lod −1 → mag → 10/256 < 11/256 → 1;
    // lane 3 lod 3 → min (level clamps to 0) → ref 12.5/256 → .25.
    case("t2_level_mag_min_switch", Key::new(T2, Level), Ramp,
        Sampler {
            mag_filter: Filter::Nearest,
            min_filter: Filter::Linear,
            ..cmp_sampler(CompareOp::Less)
        }, V,
        [
            lane(&[2.75 / 8.0, 1.75 / 8.0], 11.5 / 256.0).lb(0.0),
            lane(&[2.75 / 8.0, 1.75 / 8.0], 11.5 / 256.0).lb(0.5),
            lane(&[2.75 / 8.0, 1.75 / 8.0], 10.0 / 256.0).lb(-1.0),
            lane(&[2.75 / 8.0, 1.75 / 8.0], 12.5 / 256.0).lb(3.0),
        ],
        [0.0, 0.4375, 1.0, 0.25]),

    // The switch comes after the clamps: sampler maxLod 0 makes λ = 0 for every lod → mag →
    // nearest texel (2,1) = 11/256: refs 11.5/256 → 0, 10/256 → 1, 10.5/256 → 1, 12.5/256 → 0.
    case("t2_level_mag_after_maxlod_clamp", Key::new(T2, Level), Ramp,
        Sampler {
            mag_filter: Filter::Nearest,
            min_filter: Filter::Linear,
            max_lod: 0.0,
            ..cmp_sampler(CompareOp::Less)
        }, V,
        [
            lane(&[2.75 / 8.0, 1.75 / 8.0], 11.5 / 256.0).lb(0.5),
            lane(&[2.75 / 8.0, 1.75 / 8.0], 10.0 / 256.0).lb(3.0),
            lane(&[2.75 / 8.0, 1.75 / 8.0], 10.5 / 256.0).lb(0.5),
            lane(&[2.75 / 8.0, 1.75 / 8.0], 12.5 / 256.0).lb(3.0),
        ],
        [0.0, 1.0, 1.0, 0.0]),

    // TextureCube SampleCmp clamp in D3D with compare ALWAYS (q = 3): clamps 4 and 100 leave no
    // level → 0; 3 and 0 → 1. Lanes as in `cube_cmp_implicit`.
    case("cube_cmp_clamp_beyond_last_level_d3d", Key::new(Cube, Cmp).clamp().separate(), Levels,
        cmp_sampler(CompareOp::Always), D,
        per_lane(
            grid([0.0, 0.0, 1.0, 0.0], [0.5, 0.0, 0.0, 0.0], [0.0, 0.5, 0.0, 0.0], [0.5; 4]),
            L::cl, [4.0, 3.0, 0.0, 100.0]),
        [0.0, 1.0, 1.0, 0.0]),

    // Implicit LOD uses coarse lane-0 derivatives: lanes 0–2 on the 2/16 grid (dX = dY = 2 →
    // λ 1) and lane 3 far away at (5, 9) — with fine derivatives lane 3 would see dX = P3 − P2 =
    // (4.75, …)·16 and read the last level; coarse gives λ 1 everywhere.
    case("t2_cmp_coarse_derivatives", Key::new(T2, Cmp), Levels, eq(), V,
        [[0.25, 0.25], [0.375, 0.25], [0.25, 0.375], [5.0, 9.0]].map(|c| lane(&c, dv(1, 0))),
        [1.0; 4]),

    // A helper lane (lane 2, not covered) still supplies P2 for dY: lanes 0/1/3 on the grid with
    // dX = 2/16·16 = 2 and lane 2 at t + 8/16 → dY = 8 → ρ 8, λ 3 for the covered lanes.
    // (Lane 2's own result is not checked: the expected array holds what it computes anyway,
    // level 3 → 1, since a helper runs the same code.)
    case("t2_cmp_helper_lane_derivative", Key::new(T2, Cmp), Levels, eq(), V,
        [
            lane(&[0.25, 0.25], dv(3, 0)),
            lane(&[0.375, 0.25], dv(3, 0)),
            lane(&[0.25, 0.75], dv(3, 0)),
            lane(&[0.375, 0.75], dv(1, 0)),
        ],
        [1.0, 1.0, 1.0, 0.0])
    .helper([false, false, true, false]),

    // Hardware precision snaps texel coordinates to 1/256 (RNE): s = 2.6/8 → u = 2.6 → 665.6/256
    // → 666/256 = 2.6015625 → u − 0.5 = 2.1015625 → α = 26/256 = 0.1015625 (exact mode: 0.1).
    // t = 0.5/8 → β = 0. Row 0 texels 2 (3/256, w 1 − α) and 3 (4/256, w α); LESS:
    // ref 3.5/256 → only texel 3 → 0.1015625; 2/256 → both → 1; 4/256 → 0; ref 2.5/256 with
    // GREATER would be 0, so lane 3 repeats lane 0.
    case("t2_pcf_hardware_precision", Key::new(T2, LevelZero), Ramp,
        linear(cmp_sampler(CompareOp::Less)), V,
        [3.5 / 256.0, 2.0 / 256.0, 4.0 / 256.0, 3.5 / 256.0]
            .map(|r| lane(&[2.6 / 8.0, 0.5 / 8.0], r)),
        [0.1015625, 1.0, 0.0, 0.1015625])
    .precision(LodPrecision::Hardware),

    // SampleCmpLevelZero still honours the sampler minLod (§5.5): minLod 2 → λ = max(0, 2) →
    // level 2 on every face.
    case("cube_level_zero_sampler_minlod", Key::new(Cube, LevelZero), Levels,
        Sampler { min_lod: 2.0, ..eq() }, V,
        [
            lane(&[1.0, 0.0, 0.0], dv(2, 0)),
            lane(&[0.0, -1.0, 0.0], dv(2, 3)),
            lane(&[0.0, 0.0, -1.0], dv(2, 5)),
            lane(&[0.0, 0.0, 1.0], dv(0, 4)),
        ],
        [1.0, 1.0, 1.0, 0.0]),

    // Cube gradients on negative faces: ∂|r_c| is the derivative of |r_c| (negated r_c), §4.2.
    // −z at (0.5, 0, −1): s_c = −x = −0.5, gx (1, 0, −1) → ∂s_c = −1, ∂|r_c| = +1 →
    //   ∂s = 0.5·(1·(−1) − (−0.5)·1) = −0.25 → ×8 = 2 → λ 1 (a sign slip gives −0.75 → 6 → level 3);
    // −x at (−1, 0, 0.5): s_c = z = 0.5, gx (−1, 0, 1) → ∂s_c = 1, ∂|r_c| = 1 → 0.25 → λ 1;
    // −y at (0.5, −1, 0): s_c = x = 0.5, gx (1, −1, 0) → ∂s_c = 1, ∂|r_c| = 1 → 0.25 → λ 1;
    // +y at (0.5, 1, 0): s_c = x, gx (1, 1, 0) → 0.5·(1 − 0.5) = 0.25 → λ 1.
    // t_c is 0 and constant along gx in every lane, gy = 0.
    case("cube_grad_negative_faces", Key::new(Cube, Grad), Levels, eq(), V,
        [
            lane(&[0.5, 0.0, -1.0], dv(1, 5)).grad(&[1.0, 0.0, -1.0], &[0.0; 3]),
            lane(&[-1.0, 0.0, 0.5], dv(1, 1)).grad(&[-1.0, 0.0, 1.0], &[0.0; 3]),
            lane(&[0.5, -1.0, 0.0], dv(1, 3)).grad(&[1.0, -1.0, 0.0], &[0.0; 3]),
            lane(&[0.5, 1.0, 0.0], dv(1, 2)).grad(&[1.0, 1.0, 0.0], &[0.0; 3]),
        ],
        [1.0; 4]),

    // TextureCubeArray SampleCmp with a different cube index per lane (0, 1, 1, 0): the index is
    // not a spatial coordinate, so λ stays 1 (lanes as `cube_cmp_implicit`, +z → layers 4, 10,
    // 10, 4).
    case("cubea_cmp_index_not_in_derivatives", Key::new(CubeA, Cmp).separate(), Levels, eq(), V,
        [
            lane(&[0.0, 0.0, 1.0, 0.0], dv(1, 4)),
            lane(&[0.5, 0.0, 1.0, 1.0], dv(1, 10)),
            lane(&[0.0, 0.5, 1.0, 1.0], dv(1, 10)),
            lane(&[0.5, 0.5, 1.0, 0.0], dv(1, 4)),
        ],
        [1.0; 4]),

    // Offsets count in texels of the level read (§6.1). Two-level 8×8 ramp, SampleCmpLevel with
    // ConstOffset (1, −1), nearest, clamp to edge:
    // lane 0 lod 1 at (1.5/4, 2.5/4): level 1 is 4×4 → u = 1.5 + 1 = 2.5 → 2, v = 2.5 − 1 = 1.5
    //   → 1 → ramp1(2, 1) → 1;
    // lane 1 lod 1 at (3.5/4, 0.5/4) → u 4.5 → 3 (edge), v −0.5 → 0 → ramp1(3, 0) → 1;
    // lane 2 as lane 0 with ref ramp1(2, 2), what a level-0-sized offset (±1/8 normalized) would
    //   read (v = 2.5 − 0.5 = 2) → 0;
    // lane 3 lod 0 at (3/8, 5/8) → u = 3 + 1 = 4, v = 5 − 1 = 4 → ramp(4, 4) → 1.
    case("t2_level_offset_in_level_texels", Key::new(T2, Level).offset([1, -1]), RampMip, eq(), V,
        [
            lane(&[1.5 / 4.0, 2.5 / 4.0], ramp1(2, 1)).lb(1.0),
            lane(&[3.5 / 4.0, 0.5 / 4.0], ramp1(3, 0)).lb(1.0),
            lane(&[1.5 / 4.0, 2.5 / 4.0], ramp1(2, 2)).lb(1.0),
            lane(&[3.0 / 8.0, 5.0 / 8.0], ramp(4, 4, 0)).lb(0.0),
        ],
        [1.0, 1.0, 0.0, 1.0]),

    // SampleCmpGrad with offset (−1, 1) at level 1 via gradients: gx = (2/8, 0) → ρ = 2 → λ 1
    // (8×8 base). Lane coords as in `t2_level_offset_in_level_texels` with the offset mirrored:
    // lane 0 (1.5/4, 2.5/4) → u 0.5 → 0, v 3.5 → 3 → ramp1(0, 3);
    // lane 1 (0.5/4, 3.5/4) → u −0.5 → 0, v 4.5 → 3 → ramp1(0, 3);
    // lane 2 (2.5/4, 0.5/4) → (1.5, 1.5) → ramp1(1, 1); lane 3 same, ref ramp1(2, 0) → 0.
    case("t2_grad_offset_level1", Key::new(T2, Grad).offset([-1, 1]), RampMip, eq(), V,
        [
            lane(&[1.5 / 4.0, 2.5 / 4.0], ramp1(0, 3)),
            lane(&[0.5 / 4.0, 3.5 / 4.0], ramp1(0, 3)),
            lane(&[2.5 / 4.0, 0.5 / 4.0], ramp1(1, 1)),
            lane(&[2.5 / 4.0, 0.5 / 4.0], ramp1(2, 0)),
        ]
        .map(|l| l.grad(&[0.25, 0.0], &[0.0, 0.0])),
        [1.0, 1.0, 1.0, 0.0]),

    // SampleCmpGrad clamp in D3D, compare ALWAYS, on Texture2DArray (q = 4): clamps 5 and 40 are
    // beyond the last level → 0; 4 and 0 → 1.
    case("t2a_grad_clamp_beyond_last_level_d3d", Key::new(T2A, Grad).clamp().separate(), Levels,
        cmp_sampler(CompareOp::Always), D,
        [5.0, 4.0, 0.0, 40.0]
            .map(|c| lane(&[0.5, 0.5, 1.0], 0.5).grad(&[0.125, 0.0], &[0.0, 0.125]).cl(c)),
        [0.0, 1.0, 1.0, 0.0]),

    // Trilinear PCF: two-level ramp, linear filter and linear mip, SampleCmpLevel lod 0.5 at
    // (0.5, 0.5), compare LESS.
    // Level 0 (8×8): u − 0.5 = 3.5 → taps (3,3) 28/256, (4,3) 29/256, (3,4) 36/256, (4,4) 37/256,
    // each w .25. Level 1 (4×4): u − 0.5 = 1.5 → (1,1) 134/256, (2,1) 135/256, (1,2) 138/256,
    // (2,2) 139/256, each w .25. Mip weights .5/.5.
    // ref 30/256: level 0 → .5, level 1 → 1 → .75; ref 136/256: 0 and .5 → .25;
    // ref 0 → 1; ref 200/256 → 0.
    case("t2_level_trilinear_pcf", Key::new(T2, Level), RampMip,
        Sampler { mipmap_mode: MipmapMode::Linear, ..linear(cmp_sampler(CompareOp::Less)) }, V,
        [30.0 / 256.0, 136.0 / 256.0, 0.0, 200.0 / 256.0]
            .map(|r| lane(&[0.5, 0.5], r).lb(0.5)),
        [0.75, 0.25, 1.0, 0.0]),

    // The sampler's mipLodBias applies to explicit Lod and to Grad too (§5.3): bias 1.
    // SampleCmpLevel lod 1, 0, 3, −1 → λ 2, 1, 4, 0.
    case("t2_level_sampler_bias", Key::new(T2, Level), Levels,
        Sampler { mip_lod_bias: 1.0, ..eq() }, V,
        [
            lane(&[0.5, 0.5], dv(2, 0)).lb(1.0),
            lane(&[0.5, 0.5], dv(1, 0)).lb(0.0),
            lane(&[0.5, 0.5], dv(4, 0)).lb(3.0),
            lane(&[0.5, 0.5], dv(0, 0)).lb(-1.0),
        ],
        [1.0; 4]),

    // Sampler mipLodBias 1 with SampleCmpGrad on TextureCube: gx (0.5, 0, 0) at +z → ρ 2,
    // λ_base 1 → λ 2; gx (2, 0, 0) → 3 + 1 → last level 3; zero gradients → ρ 0 → λ −∞ → 0;
    // gx (0.25, 0, 0) → ρ 1 → 0 + 1 → 1.
    case("cube_grad_sampler_bias", Key::new(Cube, Grad), Levels,
        Sampler { mip_lod_bias: 1.0, ..eq() }, V,
        [
            lane(&[0.0, 0.0, 1.0], dv(2, 4)).grad(&[0.5, 0.0, 0.0], &[0.0; 3]),
            lane(&[0.0, 0.0, 1.0], dv(3, 4)).grad(&[2.0, 0.0, 0.0], &[0.0; 3]),
            lane(&[0.0, 0.0, 1.0], dv(0, 4)).grad(&[0.0; 3], &[0.0; 3]),
            lane(&[0.0, 0.0, 1.0], dv(1, 4)).grad(&[0.25, 0.0, 0.0], &[0.0; 3]),
        ],
        [1.0; 4]),

    // D3D: a NaN LOD is dropped by the min/max clamps (§17.17): max(MinLOD, min(MaxLOD, NaN)) =
    // MaxLOD. Sampler maxLod 2 → level 2; lanes 1–3 use lod 0, 2, 7 → 0, 2, 2.
    case("t2_level_nan_lod_d3d", Key::new(T2, Level), Levels,
        Sampler { max_lod: 2.0, ..eq() }, D,
        [
            lane(&[0.5, 0.5], dv(2, 0)).lb(f32::NAN),
            lane(&[0.5, 0.5], dv(0, 0)).lb(0.0),
            lane(&[0.5, 0.5], dv(2, 0)).lb(2.0),
            lane(&[0.5, 0.5], dv(2, 0)).lb(7.0),
        ],
        [1.0; 4]),

    // Cube implicit LOD is per lane (quotient rule with each lane's own coordinates and the
    // shared coarse derivatives). Lanes (0.5, 0, 1), (0.5, 0, 3), (0.5, 0, 1), (0.5, 0, 3): all
    // +z; dX = (0, 0, 2), dY = 0.
    // Lanes 0/2: s_c 0.5, |r_c| 1 → ∂s = 0.5·(1·0 − 0.5·2)/1 = −0.5 → ×8 = 4 → λ 2 → level 2.
    // Lanes 1/3: |r_c| 3 → ∂s = 0.5·(−0.5·2)/9 = −1/18 → ×8 ≈ 0.444 → λ ≈ −1.17 → level 0.
    case("cube_cmp_per_lane_lod", Key::new(Cube, Cmp), Levels, eq(), V,
        [
            lane(&[0.5, 0.0, 1.0], dv(2, 4)),
            lane(&[0.5, 0.0, 3.0], dv(0, 4)),
            lane(&[0.5, 0.0, 1.0], dv(2, 4)),
            lane(&[0.5, 0.0, 3.0], dv(0, 4)),
        ],
        [1.0; 4]),

    // The same quad with `LodPrecision::Hardware`, which documents one implicit λ_base per quad
    // (lane 0's, here 2): every lane reads level 2, so lanes 1/3 (refs for level 0) give 0.
    case("cube_cmp_per_quad_lod_hardware", Key::new(Cube, Cmp), Levels, eq(), V,
        [
            lane(&[0.5, 0.0, 1.0], dv(2, 4)),
            lane(&[0.5, 0.0, 3.0], dv(0, 4)),
            lane(&[0.5, 0.0, 1.0], dv(2, 4)),
            lane(&[0.5, 0.0, 3.0], dv(2, 4)),
        ],
        [1.0, 0.0, 1.0, 1.0])
    .precision(LodPrecision::Hardware),

    // -----------------------------------------------------------------------------------------
    // Invalid modules and bindings: an error, not sampled results.
    // -----------------------------------------------------------------------------------------

    // `ConstOffset` on a Cube image is invalid SPIR-V (spirv-val: "ConstOffset cannot be used
    // with Cube Image 'Dim'"; sampling.md §4.3) and HLSL has no cube offsets: a compiler emitting
    // it should be told, not get sampled results.
    case("cube_const_offset_is_an_error", Key::new(Cube, LevelZero).offset([1, 1]), Levels, eq(),
        V, [lane(&[1.0, 0.0, 0.0], dv(0, 0)); 4], [0.0; 4])
    .error(""),

    // A Dref instruction with a non-comparison sampler (compareEnable false) is an error under
    // the D3D policy (the DXIL validator: SampleCmp* needs a SamplerComparisonState). Under
    // Vulkan it is undefined and quadstep, like lavapipe, skips the comparison
    // (`texture::tests`).
    case("dref_with_non_comparison_sampler_is_an_error", Key::new(T2A, LevelZero).separate(),
        Levels, Sampler { compare_enable: false, ..eq() }, D,
        [lane(&[0.5, 0.5, 1.0], dv(0, 1)); 4], [0.0; 4])
    .error("compareEnable"),
    ];

    // Every compare op once: all lanes read texel (2,0) = 3/256 (s 2.5/8, t 0.5/8), refs
    // 2/256, 3/256, 4/256 and NaN (NaN compares false except NOT_EQUAL).
    for (name, op, want) in [
        // ref:                                             2<3  3=3  4>3  NaN
        ("t2_compare_never", CompareOp::Never,              [0.0, 0.0, 0.0, 0.0]),
        ("t2_compare_less", CompareOp::Less,                [1.0, 0.0, 0.0, 0.0]),
        ("t2_compare_equal", CompareOp::Equal,              [0.0, 1.0, 0.0, 0.0]),
        ("t2_compare_less_or_equal", CompareOp::LessOrEqual, [1.0, 1.0, 0.0, 0.0]),
        ("t2_compare_greater", CompareOp::Greater,          [0.0, 0.0, 1.0, 0.0]),
        ("t2_compare_not_equal", CompareOp::NotEqual,       [1.0, 0.0, 1.0, 1.0]),
        ("t2_compare_greater_or_equal", CompareOp::GreaterOrEqual, [0.0, 1.0, 1.0, 0.0]),
        ("t2_compare_always", CompareOp::Always,            [1.0, 1.0, 1.0, 1.0]),
    ] {
        cases.push(case(name, Key::new(T2, LevelZero), Ramp, cmp_sampler(op), V,
            [2.0 / 256.0, 3.0 / 256.0, 4.0 / 256.0, f32::NAN]
                .map(|r| lane(&[2.5 / 8.0, 0.5 / 8.0], r)),
            want));
    }

    // A compiler that emits `ConstOffset` outside [minTexelOffset, maxTexelOffset] = [−8, 7]
    // (Vulkan valid usage; the DXIL validator's `Instr.TextureOffset` rule) produced an invalid
    // module: quadstep should say so (an error at load or run time), not sample with offset 8.
    for (name, offset) in [
        ("t2_const_offset_8_is_an_error", [8, 0]),
        ("t2_const_offset_minus_9_is_an_error", [0, -9]),
    ] {
        cases.push(case(name, Key::new(T2, LevelZero).offset(offset), Ramp, eq(), V,
            [lane(&[0.5 / 8.0, 0.5 / 8.0], ramp(0, 0, 0)); 4], [0.0; 4])
        .error(""));
    }
    cases
}
