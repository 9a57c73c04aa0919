//! Level of detail: quad derivatives, scale factor ρ, anisotropy, bias and clamps by policy,
//! level selection (sampling.md §3.2, §5).

use super::binding::Binding;
use super::cube::{select_face, transform_deriv};
use super::explain::Recorder;
use super::lanes::{Lanes, Quad};
use super::sampler::{
    Config, Filter, LodPrecision, MipmapMode, Policy, Sampler, D3D_MAX_LOD_BIAS, D3D_MIN_LOD_BIAS,
    MAX_SAMPLER_LOD_BIAS,
};
use crate::math;
use crate::math::lanes::{Float, Lanes as MathLanes};

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
    /// ρ: the lengths of the x and y derivatives in texels (0 for an explicit λ).
    pub rho: [f32; 2],
}

impl LodBase {
    /// An isotropic λ_base.
    pub fn iso(lambda: f32) -> LodBase {
        LodBase {
            lambda,
            probes: 1,
            major: [0.0; 2],
            rho: [0.0; 2],
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

/// λ_base from texel-space derivative vectors `mx`, `my` (first `n` components used).
/// `aniso`: `Some(maxAniso)` for 2D views with anisotropy enabled; `dx`/`dy` are the
/// normalized derivatives (probe direction). Isotropic: `log2(max(|mx|, |my|))` with Euclidean
/// lengths. Anisotropic (D3D §7.18.11): `major = max(Lx, Ly)`, `ratio = major²/det` clamped to
/// maxAniso (then `minor = major/ratio`, else `minor = det/major`), `minor < 1 →
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
    let lx = len(&mx, n);
    let ly = len(&my, n);
    let major = lx.max(ly);
    let Some(max_aniso) = aniso.filter(|_| n == 2 && major > 0.0) else {
        return LodBase {
            rho: [lx, ly],
            ..LodBase::iso(math::log2(major))
        };
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
        lambda: math::log2(minor),
        probes,
        major: [v[0], v[1]],
        rho: [lx, ly],
    }
}

/// Isotropic 2D λ_base and ρ of `L::N` lanes at once from their texel-space derivative
/// components (`mx = (mx0, mx1)`, `my = (my0, my1)`): [`lod_base`]'s isotropic rule with
/// `n = 2` — the same operations in the same order, each lane's bits those of the scalar
/// form (`crate::math`'s lane types guarantee it) — as `(λ, |mx|, |my|)`.
#[inline(always)]
fn iso_2d<L: MathLanes>(mx0: L, mx1: L, my0: L, my1: L) -> (L, L, L) {
    let lx = len_2d(mx0, mx1);
    let ly = len_2d(my0, my1);
    // `maxps` is `f32::max` here: neither length is NaN
    (math::log2(lx.max(ly)), lx, ly)
}

/// [`len`] of two components, lane-wise: a non-finite length counts as 0.
#[inline(always)]
fn len_2d<L: MathLanes>(a: L, b: L) -> L {
    let r = a.mul(a).add(b.mul(b)).sqrt();
    // ordered: false for NaN and +∞ (r is never below 0)
    let finite = r.lt(r.splat(f32::INFINITY));
    L::select(finite, r, r.splat(0.0))
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

/// What one lane's λ selects: the texel filter and the levels with their weights.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Selection {
    /// Linear (else nearest) texel filter.
    pub linear: bool,
    /// Levels (view-relative) and weights.
    pub levels: Levels,
}

/// The derivatives a lane's λ came from (`None`: explicit or zero LOD).
pub(super) type Derivs = Option<([f32; 3], [f32; 3])>;

impl Binding {
    /// λ_base for one lane from normalized derivatives (cube: direction derivatives, through
    /// the face of the lane's coordinate `c`).
    pub fn lod_from_derivs(&self, c: &[f32; 4], dx: [f32; 3], dy: [f32; 3]) -> LodBase {
        let s = self.size0;
        if self.cube {
            let fc = select_face([c[0], c[1], c[2]]);
            let (a, b) = (transform_deriv(&fc, dx), transform_deriv(&fc, dy));
            let mx = [a[0] * s[0], a[1] * s[0], 0.0];
            let my = [b[0] * s[0], b[1] * s[0], 0.0];
            return lod_base(mx, my, 2, None, [0.0; 3], [0.0; 3]);
        }
        let mut mx = [0.0; 3];
        let mut my = [0.0; 3];
        for i in 0..self.dims {
            mx[i] = dx[i] * s[i];
            my[i] = dy[i] * s[i];
        }
        lod_base(mx, my, self.dims, self.aniso, dx, dy)
    }

    /// [`Binding::lod_from_derivs`] for a 2D / 2D-array view: the same products and the same
    /// [`lod_base`], with the dimension count a constant so both inline (the common case);
    /// `aniso: false` leaves anisotropy out (the batch path's kernels have none).
    #[inline(always)]
    pub fn lod_from_derivs_2d(&self, dx: [f32; 3], dy: [f32; 3], aniso: bool) -> LodBase {
        let s = self.size0;
        let mx = [dx[0] * s[0], dx[1] * s[1], 0.0];
        let my = [dy[0] * s[0], dy[1] * s[1], 0.0];
        lod_base(mx, my, 2, if aniso { self.aniso } else { None }, dx, dy)
    }

    /// The isotropic λ_base of four lanes' 2D normalized derivatives (`dx[k][lane]`:
    /// component `k` of lane `lane`'s ∂/∂x), each lane's [`Binding::lod_from_derivs_2d`]
    /// without anisotropy, four lanes in one SSE2 evaluation.
    #[inline(always)]
    pub fn iso_bases_2d(&self, dx: [[f32; 4]; 2], dy: [[f32; 4]; 2]) -> [LodBase; 4] {
        // (loops, not closures: a closure may be left out of line, not compiled for AVX2
        // with an AVX2 caller)
        let s = self.size0;
        let (mut mx, mut my) = ([[0.0f32; 4]; 2], [[0.0f32; 4]; 2]);
        for k in 0..2 {
            for i in 0..4 {
                mx[k][i] = dx[k][i] * s[k];
                my[k][i] = dy[k][i] * s[k];
            }
        }
        let (mut lam, mut lx, mut ly) = ([0.0f32; 4], [0.0f32; 4], [0.0f32; 4]);
        #[cfg(target_arch = "x86_64")]
        {
            use crate::math::x86::F4;
            // SAFETY: F4 is SSE2, part of x86-64
            let (x0, x1, y0, y1) = unsafe {
                (
                    F4::load(&mx[0]),
                    F4::load(&mx[1]),
                    F4::load(&my[0]),
                    F4::load(&my[1]),
                )
            };
            let (l, x, y) = iso_2d(x0, x1, y0, y1);
            l.store(&mut lam);
            x.store(&mut lx);
            y.store(&mut ly);
        }
        #[cfg(not(target_arch = "x86_64"))]
        for i in 0..4 {
            (lam[i], lx[i], ly[i]) = iso_2d(mx[0][i], mx[1][i], my[0][i], my[1][i]);
        }
        let mut b = [LodBase::iso(0.0); 4];
        for i in 0..4 {
            b[i] = LodBase {
                rho: [lx[i], ly[i]],
                ..LodBase::iso(lam[i])
            };
        }
        b
    }

    /// Per-lane λ_base (and probes) for a LOD mode, and the derivatives each came from.
    /// Coarse implicit derivatives are lane 0's in every lane, and off cubes λ does not
    /// depend on the coordinate, so the lanes share one evaluation; hardware precision
    /// shares lane 0's implicit λ (sampling.md §16). The derivatives only if `derivs` (an
    /// explanation's), else `None`s.
    pub fn lod_bases(
        &self,
        coords: &[[f32; 4]; 4],
        lod: &LodMode,
        derivs: bool,
    ) -> ([LodBase; 4], [Derivs; 4]) {
        match *lod {
            LodMode::Explicit(l) => (Quad::each(|i| LodBase::iso(l[i])), [None; 4]),
            LodMode::Zero => ([LodBase::iso(0.0); 4], [None; 4]),
            LodMode::Grad { dx, dy } if self.dims == 2 && !self.cube && self.aniso.is_none() => {
                let c = |g: &[[f32; 3]; 4], k: usize| Quad::each(|i| g[i][k]);
                let bases = self.iso_bases_2d([c(&dx, 0), c(&dx, 1)], [c(&dy, 0), c(&dy, 1)]);
                (bases, Quad::each(|i| derivs.then_some((dx[i], dy[i]))))
            }
            LodMode::Grad { dx, dy } => {
                let one = |i: usize| {
                    if self.dims == 2 && !self.cube {
                        self.lod_from_derivs_2d(dx[i], dy[i], true)
                    } else {
                        self.lod_from_derivs(&coords[i], dx[i], dy[i])
                    }
                };
                // off cubes λ and the probes depend on the derivatives alone: lanes whose
                // derivatives are lane 0's (bit for bit; the usual `Grad`) share its result
                let b0 = one(0);
                let bits = |v: [f32; 3]| [v[0].to_bits(), v[1].to_bits(), v[2].to_bits()];
                let same = |i: usize| {
                    !self.cube && bits(dx[i]) == bits(dx[0]) && bits(dy[i]) == bits(dy[0])
                };
                let bases = Quad::each(|i| if i == 0 || same(i) { b0 } else { one(i) });
                let d = |i: usize| derivs.then_some((dx[i], dy[i]));
                (bases, Quad::each(d))
            }
            LodMode::Implicit { fine, .. } => {
                if self.hw || (!fine && !self.cube) {
                    let d = |b: usize| {
                        let (c, c0) = (&coords[b], &coords[0]);
                        [c[0] - c0[0], c[1] - c0[1], c[2] - c0[2]]
                    };
                    let (dx, dy) = (d(1), d(2));
                    let b = if self.dims == 2 && !self.cube {
                        self.lod_from_derivs_2d(dx, dy, true)
                    } else {
                        self.lod_from_derivs(&coords[0], dx, dy)
                    };
                    ([b; 4], [derivs.then_some((dx, dy)); 4])
                } else {
                    let d = quad_derivs(coords, fine);
                    let bases = Quad::each(|i| self.lod_from_derivs(&coords[i], d[i].0, d[i].1));
                    (bases, Quad::each(|i| derivs.then_some(d[i])))
                }
            }
        }
    }

    /// λ′ (biased, unclamped) and λ (clamped, snapped in hardware precision) of one lane.
    #[inline(always)]
    pub fn lambdas(&self, base: f32, shader_bias: f32, shader_min_lod: f32) -> (f32, f32) {
        let p = self.cfg.policy;
        let l1 = biased(p, base, self.sampler.mip_lod_bias, shader_bias);
        (
            l1,
            snap_lod(&self.cfg, clamped(p, l1, &self.sampler, shader_min_lod)),
        )
    }

    /// The texel filter and levels of a lane with λ_base `base`, shader bias and `MinLod`
    /// (`−∞`: none); `None`: the D3D out-of-range-MinLod result. Integer formats take the
    /// nearest level.
    #[inline(always)]
    pub fn select<R: Recorder>(
        &self,
        base: f32,
        bias: f32,
        min_lod: f32,
        rec: &R,
    ) -> Option<Selection> {
        let s = &self.sampler;
        let q = self.view.level_count - 1;
        let oor = self.cfg.policy == Policy::D3D && min_lod > q as f32;
        let (l1, lambda) = if s.unnormalized_coordinates {
            (0.0, 0.0)
        } else {
            self.lambdas(base, bias, min_lod)
        };
        let minify = lambda > 0.0;
        let filter = if minify { s.min_filter } else { s.mag_filter };
        let mode = if self.integer {
            MipmapMode::Nearest
        } else {
            s.mipmap_mode
        };
        let sel = Selection {
            linear: filter == Filter::Linear,
            levels: select_levels(lambda, self.view.level_count, mode),
        };
        if R::ON {
            rec.lod(&|l| {
                l.shader_bias = bias;
                l.sampler_bias = s.mip_lod_bias;
                l.lambda_biased = l1;
                l.sampler_min_lod = s.min_lod;
                l.shader_min_lod = (min_lod != f32::NEG_INFINITY).then_some(min_lod);
                l.sampler_max_lod = s.max_lod;
                l.lambda = lambda;
                l.minified = minify;
                l.filter = if self.integer {
                    Filter::Nearest
                } else {
                    filter
                };
                l.mipmap_mode = mode;
                l.levels = sel.levels.l[..sel.levels.n].to_vec();
                l.out_of_range = oor;
            });
        }
        (!oor).then_some(sel)
    }

    /// `OpImageQueryLod` / `CalculateLevelOfDetail[Unclamped]` for a quad (implicit
    /// derivatives): per lane, Vulkan: `(d_l − level_base, λ′)` with `d_l` the clamped level
    /// (rounded for NEAREST mip mode); D3D: `(max(MinLOD, min(MaxLOD, λ′)), λ′)` (no
    /// per-sample clamp). λ′ includes the sampler bias; anisotropic samplers report the
    /// minor-axis LOD.
    pub fn query_lod<R: Recorder>(
        &self,
        coords: &[[f32; 4]; 4],
        fine: bool,
        rec: &R,
    ) -> [[f32; 2]; 4] {
        let lod = LodMode::Implicit {
            bias: [0.0; 4],
            fine,
        };
        let (bases, derivs) = self.lod_bases(coords, &lod, R::ON);
        std::array::from_fn(|l| {
            let r = self.query_lod_lane(bases[l].lambda);
            if R::ON {
                let b = &bases[l];
                rec.lane(l, coords[l]);
                rec.lod_base(derivs[l], b.rho, (b.lambda, b.probes, b.major));
                let _ = self.select(b.lambda, 0.0, f32::NEG_INFINITY, rec);
                rec.result([r[0].to_bits(), r[1].to_bits(), 0, 0]);
            }
            r
        })
    }

    fn query_lod_lane(&self, base: f32) -> [f32; 2] {
        let (l1, l) = self.lambdas(base, 0.0, f32::NEG_INFINITY);
        match self.cfg.policy {
            Policy::Vulkan => {
                let q = (self.view.level_count - 1) as f32;
                let d = if l.is_nan() { 0.0 } else { l.clamp(0.0, q) };
                let d = match self.sampler.mipmap_mode {
                    MipmapMode::Nearest => (d + 0.5).floor().min(q),
                    MipmapMode::Linear => d,
                };
                [d, l1]
            }
            Policy::D3D => [l, l1],
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
        // within 1 ULP of log2(5) (quadstep's log2 is not correctly rounded everywhere)
        let want = 5f64.log2();
        assert!(
            (b.lambda as f64 - want).abs() <= f32::EPSILON as f64 * 2.0,
            "{}",
            b.lambda
        );
        assert_eq!(b.probes, 1);
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
