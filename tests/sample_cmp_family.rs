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
    let got = run(Key::new(Recv::T2, Op::Cmp), level_tex(Recv::T2), eq(), V, lanes);
    check("t2_cmp_implicit_lod1", got, [1.0, 0.0, 1.0, 0.0]);
}
