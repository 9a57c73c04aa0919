//! Level of detail: quad derivatives, scale factor ρ, anisotropy, bias and clamps by policy,
//! level selection (sampling.md §3.2, §5).

use super::explain::NoRecord;
use super::sampler::{
    Config, LodPrecision, MipmapMode, Policy, Sampler, D3D_MAX_LOD_BIAS, D3D_MIN_LOD_BIAS,
    MAX_SAMPLER_LOD_BIAS,
};
use std::cell::Cell;

/// Where a sample's LOD comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LodMode {
    /// Derivatives from the quad (coarse lane-0-based unless `fine`), plus a per-lane shader
    /// `Bias` (zeros when the instruction has none).
    Implicit {
        /// Per-lane shader bias.
        bias: [f32; 4],
        /// Fine (per-row/column) instead of coarse derivatives.
        fine: bool,
    },
    /// Explicit per-lane λ_base (`Lod` operand, `SampleLevel`).
    Explicit([f32; 4]),
    /// Explicit per-lane derivatives in normalized coordinates (`Grad`): `dx`, `dy`, one
    /// component per spatial dimension (cube: the 3D direction's derivatives).
    Grad {
        /// ∂coord/∂x per lane.
        dx: [[f32; 3]; 4],
        /// ∂coord/∂y per lane.
        dy: [[f32; 3]; 4],
    },
    /// λ_base = 0, isotropic (`SampleCmpLevelZero`); bias and clamps still apply.
    Zero,
}

impl LodMode {
    /// Implicit LOD, coarse derivatives, no bias.
    pub const IMPLICIT: LodMode = LodMode::Implicit {
        bias: [0.0; 4],
        fine: false,
    };
}

/// Quad derivatives of the first three components of `c` for each lane: `(dX, dY)`.
pub fn quad_derivs(c: &[[f32; 4]; 4], fine: bool) -> [([f32; 3], [f32; 3]); 4] {
    let d = |a: usize, b: usize| -> [f32; 3] {
        [c[b][0] - c[a][0], c[b][1] - c[a][1], c[b][2] - c[a][2]]
    };
    if fine {
        let (x01, x23, y02, y13) = (d(0, 1), d(2, 3), d(0, 2), d(1, 3));
        [(x01, y02), (x01, y13), (x23, y02), (x23, y13)]
    } else {
        let (x, y) = (d(0, 1), d(0, 2));
        [(x, y); 4]
    }
}

/// λ_base and the anisotropic probe set for one lane.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LodBase {
    /// λ_base (minor-axis LOD when anisotropic).
    pub lambda: f32,
    /// Number of probes (1 = isotropic).
    pub probes: u32,
    /// The major-axis derivative in normalized coordinates (probe direction).
    pub major: [f32; 2],
}

impl LodBase {
    /// An isotropic λ_base.
    pub fn iso(lambda: f32) -> LodBase {
        LodBase {
            lambda,
            probes: 1,
            major: [0.0; 2],
        }
    }
}

/// Euclidean length of the first `n` components (summed in index order, as `Iterator::sum`
/// would, but without a slice loop: `n` is known per kernel).
#[inline(always)]
fn len(v: &[f32; 3], n: usize) -> f32 {
    let mut s = v[0] * v[0];
    if n >= 2 {
        s += v[1] * v[1];
    }
    if n >= 3 {
        s += v[2] * v[2];
    }
    let r = s.sqrt();
    if r.is_finite() {
        r
    } else {
        0.0 // llvmpipe-style: Inf/NaN ρ counts as 0
    }
}

/// What one lane's λ_base came from, for the debugger's record ([`super::explain`]): the
/// derivatives (`None`: an explicit or zero LOD) and ρ, their lengths in texels.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct LodFrom {
    /// `(∂/∂x, ∂/∂y)` in normalized coordinates (cube views: of the direction).
    pub derivs: Option<([f32; 3], [f32; 3])>,
    /// ρ: the x and y lengths (non-finite lengths count as 0).
    pub rho: [f32; 2],
}

/// Where `Kernel::lod_bases_from` keeps what each lane's λ_base came from: nowhere in
/// normal runs ([`NoRecord`]: zero-sized, so nothing is worked out or stored), per lane for
/// the debugger's record.
pub(super) trait LodSink {
    /// Whether anything is kept.
    const ON: bool;
    /// Lane `lane`'s.
    fn set(&self, _lane: usize, _f: LodFrom) {}
    /// Lane `lane` shares lane 0's evaluation.
    fn share(&self, _lane: usize) {}
}

impl LodSink for NoRecord {
    const ON: bool = false;
}

impl LodSink for [Cell<LodFrom>; 4] {
    const ON: bool = true;
    fn set(&self, lane: usize, f: LodFrom) {
        self[lane].set(f);
    }
    fn share(&self, lane: usize) {
        self[lane].set(self[0].get());
    }
}

/// ρ: the Euclidean lengths of texel-space derivative vectors `mx`, `my` (first `n`
/// components), as [`lod_base`] measures them; non-finite lengths count as 0.
#[inline(always)]
pub fn rho(mx: &[f32; 3], my: &[f32; 3], n: usize) -> [f32; 2] {
    [len(mx, n), len(my, n)]
}

/// λ_base from texel-space derivative vectors `mx`, `my` (first `n` components used).
/// `aniso`: `Some(maxAniso)` for 2D views with anisotropy enabled; `dx`/`dy` are the
/// normalized derivatives (probe direction). Isotropic: `log2(max(|mx|, |my|))` with Euclidean
/// lengths ([`rho`]). Anisotropic (D3D §7.18.11): `major = max(Lx, Ly)`, `ratio = major²/det`
/// clamped to maxAniso (then `minor = major/ratio`, else `minor = det/major`), `minor < 1 →
/// ratio = max(1, ratio·minor)`, λ = log2(minor), `N = ceil(ratio)` probes.
#[inline]
pub fn lod_base(
    mx: [f32; 3],
    my: [f32; 3],
    n: usize,
    aniso: Option<f32>,
    dx: [f32; 3],
    dy: [f32; 3],
) -> LodBase {
    let [lx, ly] = rho(&mx, &my, n);
    let major = lx.max(ly);
    let Some(max_aniso) = aniso.filter(|_| n == 2 && major > 0.0) else {
        return LodBase::iso(major.log2());
    };
    let det = (mx[0] * my[1] - mx[1] * my[0]).abs();
    let mut ratio = if det > 0.0 {
        major * major / det
    } else {
        f32::INFINITY
    };
    let minor;
    if ratio > max_aniso {
        ratio = max_aniso;
        minor = major / ratio;
    } else {
        minor = det / major;
    }
    if minor < 1.0 {
        ratio = (ratio * minor).max(1.0);
    }
    let probes = if ratio.is_finite() {
        (ratio.ceil() as u32).clamp(1, 16)
    } else {
        1
    };
    let v = if lx > ly { dx } else { dy };
    LodBase {
        lambda: minor.log2(),
        probes,
        major: [v[0], v[1]],
    }
}

/// Bias by policy: Vulkan clamps the sum to ±maxSamplerLodBias; D3D clamps each term to
/// [−16, 15.99] and adds them unclamped.
pub fn biased(policy: Policy, lambda_base: f32, sampler_bias: f32, shader_bias: f32) -> f32 {
    match policy {
        Policy::Vulkan => {
            lambda_base
                + (sampler_bias + shader_bias).clamp(-MAX_SAMPLER_LOD_BIAS, MAX_SAMPLER_LOD_BIAS)
        }
        Policy::D3D => {
            lambda_base
                + sampler_bias.clamp(D3D_MIN_LOD_BIAS, D3D_MAX_LOD_BIAS)
                + shader_bias.clamp(D3D_MIN_LOD_BIAS, D3D_MAX_LOD_BIAS)
        }
    }
}

/// Clamps λ' by `lodMin = max(sampler.minLod, shader MinLod)` and `sampler.maxLod`.
/// Vulkan (undefined when crossed): `min(max(λ', lodMin), maxLod)` — maxLod wins.
/// D3D: `max(lodMin, min(maxLod, λ'))` — MinLOD wins. NaN λ' → the bound applied first is
/// dropped (f32 min/max drop NaN), so D3D ends at maxLod.
pub fn clamped(policy: Policy, lambda: f32, s: &Sampler, shader_min_lod: f32) -> f32 {
    let lod_min = s.min_lod.max(shader_min_lod);
    match policy {
        Policy::Vulkan => lambda.max(lod_min).min(s.max_lod),
        Policy::D3D => lambda.min(s.max_lod).max(lod_min),
    }
}

/// Snaps λ to 8.8 fixed point in hardware mode (round to nearest).
pub fn snap_lod(cfg: &Config, lambda: f32) -> f32 {
    match cfg.precision {
        LodPrecision::Exact => lambda,
        LodPrecision::Hardware => (lambda * 256.0).round() / 256.0,
    }
}

/// Selected view-relative levels and weights (at most two).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Levels {
    /// `(level, weight)`; only the first `n` entries are used.
    pub l: [(u32, f32); 2],
    /// 1 or 2.
    pub n: usize,
}

/// `d' = clamp(λ, 0, q)`; NEAREST: `min(floor(d' + 0.5), q)`; LINEAR: `floor(d')` and the next
/// level (clamped) weighted by `frac(d')`. `level_count` ≥ 1.
pub fn select_levels(lambda: f32, level_count: u32, mode: MipmapMode) -> Levels {
    let q = (level_count - 1) as f32;
    let d = if lambda.is_nan() {
        0.0
    } else {
        lambda.clamp(0.0, q)
    };
    // d ≥ 0, so truncation is floor (and avoids a libm `floorf` call on baseline x86-64)
    let floor = |x: f32| (x as u32) as f32;
    match mode {
        MipmapMode::Nearest => Levels {
            l: [((floor(d + 0.5).min(q)) as u32, 1.0), (0, 0.0)],
            n: 1,
        },
        MipmapMode::Linear => {
            let hi = floor(d);
            let delta = d - hi;
            if delta == 0.0 {
                Levels {
                    l: [(hi as u32, 1.0), (0, 0.0)],
                    n: 1,
                }
            } else {
                let lo = (hi + 1.0).min(q);
                Levels {
                    l: [(hi as u32, 1.0 - delta), (lo as u32, delta)],
                    n: 2,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derivs() {
        let c = [
            [0.0, 0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0, 0.0],
            [0.0, 2.0, 0.0, 0.0],
            [3.0, 5.0, 0.0, 0.0],
        ];
        let co = quad_derivs(&c, false);
        assert_eq!(co[3], ([1.0, 0.0, 0.0], [0.0, 2.0, 0.0]));
        let f = quad_derivs(&c, true);
        assert_eq!(f[3], ([3.0, 3.0, 0.0], [2.0, 5.0, 0.0]));
        assert_eq!(f[1], ([1.0, 0.0, 0.0], [2.0, 5.0, 0.0]));
    }

    #[test]
    fn iso_lod_by_hand() {
        // |(3,4)| = 5 texels/pixel vs |(0,2)| -> log2(5)
        let b = lod_base(
            [3.0, 4.0, 0.0],
            [0.0, 2.0, 0.0],
            2,
            None,
            [0.0; 3],
            [0.0; 3],
        );
        assert_eq!(b.lambda, 5f32.log2());
        assert_eq!(b.probes, 1);
        assert_eq!(rho(&[3.0, 4.0, 0.0], &[0.0, 2.0, 0.0], 2), [5.0, 2.0]);
    }

    #[test]
    fn aniso_lod_by_hand() {
        // mx = (8,0), my = (0,2): major 8, det 16, ratio 4 <= 16 -> minor = 2, λ = 1, N = 4
        let b = lod_base(
            [8.0, 0.0, 0.0],
            [0.0, 2.0, 0.0],
            2,
            Some(16.0),
            [0.5, 0.0, 0.0],
            [0.0; 3],
        );
        assert_eq!((b.lambda, b.probes, b.major), (1.0, 4, [0.5, 0.0]));
        // maxAniso 2: ratio 2, minor = 8/2 = 4 -> λ = 2, N = 2
        let b = lod_base(
            [8.0, 0.0, 0.0],
            [0.0, 2.0, 0.0],
            2,
            Some(2.0),
            [0.5, 0.0, 0.0],
            [0.0; 3],
        );
        assert_eq!((b.lambda, b.probes), (2.0, 2));
        // minor < 1: mx = (4,0), my = (0,0.5): ratio 8, minor 0.5 -> ratio = max(1, 4) = 4
        let b = lod_base(
            [4.0, 0.0, 0.0],
            [0.0, 0.5, 0.0],
            2,
            Some(16.0),
            [1.0, 0.0, 0.0],
            [0.0; 3],
        );
        assert_eq!((b.lambda, b.probes), (-1.0, 4));
    }

    #[test]
    fn bias_policies() {
        assert_eq!(biased(Policy::Vulkan, 1.0, 10.0, 10.0), 17.0); // sum clamped to 16
        assert_eq!(biased(Policy::D3D, 1.0, 10.0, 10.0), 21.0); // sum not clamped
        assert_eq!(biased(Policy::D3D, 0.0, 20.0, -30.0), 15.99 - 16.0);
    }

    #[test]
    fn clamp_policies() {
        let s = Sampler {
            min_lod: 1.0,
            max_lod: 3.0,
            ..Sampler::default()
        };
        assert_eq!(clamped(Policy::Vulkan, 5.0, &s, 0.0), 3.0);
        assert_eq!(clamped(Policy::Vulkan, 0.5, &s, 0.0), 1.0);
        // shader MinLod 4 > maxLod 3: Vulkan -> maxLod wins, D3D -> MinLOD wins
        assert_eq!(clamped(Policy::Vulkan, 0.5, &s, 4.0), 3.0);
        assert_eq!(clamped(Policy::D3D, 0.5, &s, 4.0), 4.0);
        assert_eq!(clamped(Policy::D3D, f32::NAN, &s, 0.0), 3.0);
    }

    #[test]
    fn level_selection() {
        let n = |l, c| select_levels(l, c, MipmapMode::Nearest).l[0].0;
        assert_eq!(
            (n(0.49, 4), n(0.5, 4), n(1.5, 4), n(9.0, 4), n(-3.0, 4)),
            (0, 1, 2, 3, 0)
        );
        let l = select_levels(1.25, 4, MipmapMode::Linear);
        assert_eq!((l.n, l.l[0], l.l[1]), (2, (1, 0.75), (2, 0.25)));
        let l = select_levels(7.0, 4, MipmapMode::Linear);
        assert_eq!((l.n, l.l[0]), (1, (3, 1.0)));
    }
}
