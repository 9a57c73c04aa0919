//! Level of detail: quad derivatives, scale factor ρ, anisotropy, bias and clamps by policy,
//! level selection (sampling.md §3.2, §5).

use super::binding::Binding;
use super::cube::{select_face, transform_deriv};
use super::explain::Recorder;
use super::lanes::{Lanes, Quad};
use super::sampler::{
    Filter, MipmapMode, Policy, D3D_MAX_LOD_BIAS, D3D_MIN_LOD_BIAS, MAX_SAMPLER_LOD_BIAS,
};
use crate::math;
use crate::math::lanes::{Float, Lanes as MathLanes, Mask};

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

/// Euclidean length of the first `n` components, summed in index order.
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

/// [`len`] of two components, lane-wise: a non-finite length counts as 0.
#[inline(always)]
fn len_2d<L: MathLanes>(a: L, b: L) -> L {
    let r = a.mul(a).add(b.mul(b)).sqrt();
    // ordered: false for NaN and +∞ (r is never below 0)
    let finite = r.lt(r.splat(f32::INFINITY));
    L::select(finite, r, r.splat(0.0))
}

/// `f32::clamp` lane-wise: `lo` below it, `hi` above it, NaN kept.
#[inline(always)]
fn clamp<V: Float>(x: V, lo: V, hi: V) -> V {
    V::select(x.lt(lo), lo, V::select(hi.lt(x), hi, x))
}

/// `f32::max` lane-wise (IEEE maxNum: a NaN operand gives the other one), as x86 code
/// computes it: `b > a ? b : a` unless `a` is NaN.
#[inline(always)]
fn max_num<V: Float>(a: V, b: V) -> V {
    V::select(a.is_nan(), b, b.max(a))
}

/// `f32::min` lane-wise, as [`max_num`].
#[inline(always)]
fn min_num<V: Float>(a: V, b: V) -> V {
    V::select(a.is_nan(), b, b.min(a))
}

/// `d′ = clamp(λ, 0, q)`, NaN → 0: the level λ stands for.
#[inline(always)]
fn level_of<V: MathLanes>(lambda: V, q: V) -> V {
    let zero = q.splat(0.0);
    V::select(lambda.is_nan(), zero, clamp(lambda, zero, q))
}

/// Selected view-relative levels and weights (at most two).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Levels {
    /// `(level, weight)`; only the first `n` entries are used.
    pub l: [(u32, f32); 2],
    /// 1 or 2.
    pub n: usize,
}

/// What one lane's λ selects: the texel filter and the levels with their weights.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Selection {
    /// Linear (else nearest) texel filter.
    pub linear: bool,
    /// Levels (view-relative) and weights.
    pub levels: Levels,
}

/// What the λ of `V::N` lanes select, lane by lane (sampling.md §3.2–§3.4): λ′ (biased,
/// unclamped) and λ (clamped; snapped in hardware precision), the texel filter (linear where
/// set), the view-relative levels as integral values and their weights (a one-level lane's
/// second level is its first, of weight 0), and the lanes with the D3D out-of-range-MinLod
/// result.
#[derive(Clone, Copy)]
pub(super) struct Choice<V: MathLanes> {
    pub biased: V,
    pub lambda: V,
    pub linear: V::M,
    pub two: V::M,
    pub level: [V; 2],
    pub weight: [V; 2],
    pub out: V::M,
}

/// `N` lanes' [`Choice`] as the per-lane routes use it: bit `l` of the masks is lane `l`'s,
/// `level[k][l]` its `k`-th level (absolute), `weight[k][l]` that level's weight.
#[derive(Clone, Copy, Debug)]
pub(super) struct Choices<const N: usize> {
    pub linear: u8,
    pub two: u8,
    pub out: u8,
    pub level: [[u32; N]; 2],
    pub weight: [[f32; N]; 2],
}

/// The derivatives a lane's λ came from (`None`: explicit or zero LOD).
pub(super) type Derivs = Option<([f32; 3], [f32; 3])>;

impl Binding {
    /// λ_base for one lane from normalized derivatives (cube: direction derivatives, through
    /// the face of the lane's coordinate `c`); a 2D / 2D-array view's through
    /// [`Binding::lod_from_derivs_2d`].
    #[inline(always)]
    pub fn lod_from_derivs(&self, c: &[f32; 4], dx: [f32; 3], dy: [f32; 3]) -> LodBase {
        let s = self.size0;
        if self.dims == 2 && !self.cube {
            return self.lod_from_derivs_2d(dx, dy, true);
        }
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

    /// [`Binding::lod_from_derivs`] of a 2D / 2D-array view, its dimension count a constant
    /// so that both inline; `aniso: false` leaves anisotropy out.
    #[inline(always)]
    pub fn lod_from_derivs_2d(&self, dx: [f32; 3], dy: [f32; 3], aniso: bool) -> LodBase {
        let s = self.size0;
        let mx = [dx[0] * s[0], dx[1] * s[1], 0.0];
        let my = [dy[0] * s[0], dy[1] * s[1], 0.0];
        lod_base(mx, my, 2, if aniso { self.aniso } else { None }, dx, dy)
    }

    /// [`Binding::iso_lanes`] of four lanes (`dx[k][lane]`: component `k` of the lane's
    /// ∂/∂x) as arrays `[λ, ρx, ρy]`.
    #[inline(always)]
    pub fn iso_bases_2d(&self, dx: [[f32; 4]; 2], dy: [[f32; 4]; 2]) -> [[f32; 4]; 3] {
        let (mut lam, mut lx, mut ly) = ([0.0f32; 4], [0.0f32; 4], [0.0f32; 4]);
        #[cfg(target_arch = "x86_64")]
        {
            use crate::math::x86::F4;
            // SAFETY: F4 is SSE2, part of x86-64
            let (x0, x1, y0, y1) = unsafe {
                (
                    F4::load(&dx[0]),
                    F4::load(&dx[1]),
                    F4::load(&dy[0]),
                    F4::load(&dy[1]),
                )
            };
            let (l, x, y) = self.iso_lanes([x0, x1], [y0, y1]);
            l.store(&mut lam);
            x.store(&mut lx);
            y.store(&mut ly);
        }
        #[cfg(not(target_arch = "x86_64"))]
        for i in 0..4 {
            (lam[i], lx[i], ly[i]) = self.iso_lanes([dx[0][i], dx[1][i]], [dy[0][i], dy[1][i]]);
        }
        [lam, lx, ly]
    }

    /// The isotropic `(λ_base, ρx, ρy)` of `V`'s lanes' 2D normalized derivatives (`dx[k]`:
    /// component `k` of ∂/∂x): [`Binding::lod_from_derivs_2d`] without anisotropy, the same
    /// operations in the same order, so each lane's bits are the scalar form's.
    #[inline(always)]
    pub(super) fn iso_lanes<V: MathLanes>(&self, dx: [V; 2], dy: [V; 2]) -> (V, V, V) {
        let s = self.size0;
        let (s0, s1) = (dx[0].splat(s[0]), dx[0].splat(s[1]));
        let lx = len_2d(dx[0].mul(s0), dx[1].mul(s1));
        let ly = len_2d(dy[0].mul(s0), dy[1].mul(s1));
        // `maxps` is `f32::max` here: neither length is NaN
        (math::log2(lx.max(ly)), lx, ly)
    }

    /// Whether `Grad` λ_base is [`Binding::grad_2d`]'s: an isotropic 2D view.
    #[inline(always)]
    fn iso_grad_2d(&self) -> bool {
        self.dims == 2 && !self.cube && self.aniso.is_none()
    }

    /// [`Binding::iso_bases_2d`] of four lanes' `Grad` derivatives.
    #[inline(always)]
    fn grad_2d(&self, dx: &[[f32; 3]; 4], dy: &[[f32; 3]; 4]) -> [[f32; 4]; 3] {
        let c = |g: &[[f32; 3]; 4], k: usize| Quad::each(|i| g[i][k]);
        self.iso_bases_2d([c(dx, 0), c(dx, 1)], [c(dy, 0), c(dy, 1)])
    }

    /// Each lane's λ_base as [`Binding::lod_bases`] gives it (the isotropic routes' need).
    #[inline(always)]
    pub fn lambda_bases(&self, coords: &[[f32; 4]; 4], lod: &LodMode) -> [f32; 4] {
        match *lod {
            LodMode::Grad { dx, dy } if self.iso_grad_2d() => self.grad_2d(&dx, &dy)[0],
            LodMode::Explicit(l) => l,
            _ => {
                let b = self.lod_bases(coords, lod, false).0;
                Quad::each(|i| b[i].lambda)
            }
        }
    }

    /// Per-lane λ_base (and probes) for a LOD mode, and, if `derivs`, the derivatives each
    /// came from. Coarse implicit LOD off cubes (and hardware precision's, sampling.md §16)
    /// is lane 0's in every lane: one evaluation.
    pub fn lod_bases(
        &self,
        coords: &[[f32; 4]; 4],
        lod: &LodMode,
        derivs: bool,
    ) -> ([LodBase; 4], [Derivs; 4]) {
        match *lod {
            LodMode::Explicit(l) => (Quad::each(|i| LodBase::iso(l[i])), [None; 4]),
            LodMode::Zero => ([LodBase::iso(0.0); 4], [None; 4]),
            LodMode::Grad { dx, dy } if self.iso_grad_2d() => {
                let [lam, lx, ly] = self.grad_2d(&dx, &dy);
                let bases = Quad::each(|i| LodBase {
                    rho: [lx[i], ly[i]],
                    ..LodBase::iso(lam[i])
                });
                (bases, Quad::each(|i| derivs.then_some((dx[i], dy[i]))))
            }
            LodMode::Grad { dx, dy } => {
                let one = |i: usize| self.lod_from_derivs(&coords[i], dx[i], dy[i]);
                // off cubes λ depends on the derivatives alone: lanes with lane 0's share it
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
                    let b = self.lod_from_derivs(&coords[0], dx, dy);
                    ([b; 4], [derivs.then_some((dx, dy)); 4])
                } else {
                    let d = quad_derivs(coords, fine);
                    let bases = Quad::each(|i| self.lod_from_derivs(&coords[i], d[i].0, d[i].1));
                    (bases, Quad::each(|i| derivs.then_some(d[i])))
                }
            }
        }
    }

    /// The [`Choice`] of lanes with λ_base `base`, shader bias `bias` and `MinLod` `min_lod`
    /// (−∞: none): the bias by policy (Vulkan clamps the sum to ±maxSamplerLodBias; D3D
    /// each term to [−16, 15.99]), the clamps by `lodMin = max(minLod, MinLod)` and `maxLod`
    /// (Vulkan `min(max(λ′, lodMin), maxLod)`: maxLod wins; D3D `max(lodMin, min(maxLod,
    /// λ′))`: lodMin wins; f32 min/max drop a NaN λ′), hardware precision's 8.8 snap, then
    /// `d′ = clamp(λ, 0, q)` and the mip filter — NEAREST `min(floor(d′ + 0.5), q)`, LINEAR
    /// `floor(d′)` and the next level (clamped) weighted by `frac(d′)` — and the texel filter
    /// of minification (`λ > 0`) or magnification. Integer formats take the nearest level.
    /// One rule for one lane (`f32`) and for four or eight (`F4`, `F8`): the same bits.
    #[inline(always)]
    pub fn choose<V: MathLanes>(&self, base: V, bias: V, min_lod: V) -> Choice<V> {
        let s = &self.sampler;
        let d3d = self.cfg.policy == Policy::D3D;
        let (zero, one) = (base.splat(0.0), base.splat(1.0));
        let (yes, no) = (zero.le(zero), zero.lt(zero));
        let q = base.splat((self.view.level_count - 1) as f32);
        let (biased, lambda) = if s.unnormalized_coordinates {
            (zero, zero)
        } else {
            let biased = if d3d {
                let (lo, hi) = (D3D_MIN_LOD_BIAS, D3D_MAX_LOD_BIAS);
                let (lo_v, hi_v) = (base.splat(lo), base.splat(hi));
                let sampler = base.splat(s.mip_lod_bias.clamp(lo, hi));
                base.add(sampler).add(clamp(bias, lo_v, hi_v))
            } else {
                let (lo, hi) = (-MAX_SAMPLER_LOD_BIAS, MAX_SAMPLER_LOD_BIAS);
                let sum = base.splat(s.mip_lod_bias).add(bias);
                base.add(clamp(sum, base.splat(lo), base.splat(hi)))
            };
            let (lod_min, max_lod) = (
                max_num(base.splat(s.min_lod), min_lod),
                base.splat(s.max_lod),
            );
            let mut lambda = if d3d {
                max_num(min_num(biased, max_lod), lod_min)
            } else {
                min_num(max_num(biased, lod_min), max_lod)
            };
            if self.hw {
                let fixed = base.splat(256.0);
                lambda = math::round(lambda.mul(fixed)).div(fixed);
            }
            (biased, lambda)
        };
        let d = level_of(lambda, q);
        let (level, weight, two) = if self.integer || s.mipmap_mode == MipmapMode::Nearest {
            let l = math::floor(d.add(base.splat(0.5))).min(q);
            ([l, l], [one, zero], no)
        } else {
            let hi = math::floor(d);
            let delta = d.sub(hi);
            let two = zero.lt(delta);
            let lo = V::select(two, hi.add(one).min(q), hi);
            let weight = [
                V::select(two, one.sub(delta), one),
                V::select(two, delta, zero),
            ];
            ([hi, lo], weight, two)
        };
        let minify = zero.lt(lambda);
        let linear = match (s.min_filter, s.mag_filter) {
            (Filter::Linear, Filter::Linear) => yes,
            (Filter::Nearest, Filter::Nearest) => no,
            (Filter::Linear, _) => minify,
            _ => minify.xor(yes),
        };
        Choice {
            biased,
            lambda,
            linear,
            two,
            level,
            weight,
            out: if d3d { q.lt(min_lod) } else { no },
        }
    }

    /// Whether, with no shader `MinLod`, [`Binding::choose`] gives one selection whatever
    /// λ_base and bias (NaN and ±∞ included): one view level (`d′` is ±0 or 0, level 0 of
    /// weight 1 under both mip filters) and one texel filter for minification and
    /// magnification. The batch routes then compute no λ.
    pub fn lod_fixed(&self) -> bool {
        let s = &self.sampler;
        self.view.level_count == 1 && s.min_filter == s.mag_filter
    }

    /// [`Binding::choose`] of a quad's four lanes.
    #[inline(always)]
    pub fn choose4(&self, base: [f32; 4], bias: [f32; 4], min_lod: [f32; 4]) -> Choices<4> {
        #[cfg(target_arch = "x86_64")]
        {
            use crate::math::x86::F4;
            // SAFETY: F4 is SSE2, part of x86-64
            let v = unsafe { (F4::load(&base), F4::load(&bias), F4::load(&min_lod)) };
            self.choose_lanes(v.0, v.1, v.2)
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let mut q = Choices::<4> {
                linear: 0,
                two: 0,
                out: 0,
                level: [[0; 4]; 2],
                weight: [[0.0; 4]; 2],
            };
            for l in 0..4 {
                let c = self.choose(base[l], bias[l], min_lod[l]);
                for k in 0..2 {
                    q.weight[k][l] = c.weight[k];
                    q.level[k][l] = self.view.base_level + c.level[k] as u32;
                }
                q.linear |= (c.linear as u8) << l;
                q.two |= (c.two as u8) << l;
                q.out |= (c.out as u8) << l;
            }
            q
        }
    }

    /// [`Binding::choose`] of `N` lanes (`V` has `N`; the masks fit a `u8`), as [`Choices`].
    #[inline(always)]
    pub fn choose_lanes<V: MathLanes, const N: usize>(
        &self,
        base: V,
        bias: V,
        min_lod: V,
    ) -> Choices<N> {
        const { assert!(N <= 8 && V::N == N) };
        let mut q = Choices {
            linear: 0,
            two: 0,
            out: 0,
            level: [[0; N]; 2],
            weight: [[0.0; N]; 2],
        };
        let c = self.choose(base, bias, min_lod);
        // an integral value below 2²³ plus 2²³ has it in the low bits of its encoding
        let to_int = c.lambda.splat(self.view.base_level as f32 + 8_388_608.0);
        let low = c.lambda.splat_bits(0x7f_ffff);
        for k in 0..2 {
            c.weight[k].store(&mut q.weight[k]);
            c.level[k].add(to_int).and(low).store_bits(&mut q.level[k]);
        }
        q.linear = c.linear.bits() as u8;
        q.two = c.two.bits() as u8;
        q.out = c.out.bits() as u8;
        q
    }

    /// `N` lanes' [`Choices`] by [`Binding::iso_lanes`] of their `Grad` derivatives, with no
    /// bias or `MinLod`.
    #[inline(always)]
    pub fn grad_choices<V: MathLanes, const N: usize>(&self, dx: [V; 2], dy: [V; 2]) -> Choices<N> {
        let (lam, _, _) = self.iso_lanes(dx, dy);
        let zero = lam.splat(0.0);
        self.choose_lanes(lam, zero, lam.splat(f32::NEG_INFINITY))
    }

    /// [`Binding::choose`] of one lane, reported to `rec`; `None`: the D3D
    /// out-of-range-MinLod result.
    #[inline(always)]
    pub fn select<R: Recorder>(
        &self,
        base: f32,
        bias: f32,
        min_lod: f32,
        rec: &R,
    ) -> Option<Selection> {
        let c = self.choose(base, bias, min_lod);
        let n = 1 + c.two as usize;
        let sel = Selection {
            linear: c.linear,
            levels: Levels {
                l: [0, 1].map(|k| (c.level[k] as u32, c.weight[k])),
                n,
            },
        };
        if R::ON {
            let s = &self.sampler;
            rec.lod(&|l| {
                l.shader_bias = bias;
                l.sampler_bias = s.mip_lod_bias;
                l.lambda_biased = c.biased;
                l.sampler_min_lod = s.min_lod;
                l.shader_min_lod = (min_lod != f32::NEG_INFINITY).then_some(min_lod);
                l.sampler_max_lod = s.max_lod;
                l.lambda = c.lambda;
                l.minified = c.lambda > 0.0;
                l.filter = if c.linear && !self.integer {
                    Filter::Linear
                } else {
                    Filter::Nearest
                };
                l.mipmap_mode = if self.integer {
                    MipmapMode::Nearest
                } else {
                    s.mipmap_mode
                };
                l.levels = sel.levels.l[..n].to_vec();
                l.out_of_range = c.out;
            });
        }
        (!c.out).then_some(sel)
    }

    /// [`Kernel::query_lod`](super::Kernel::query_lod)'s values, each lane's steps reported
    /// to `rec`.
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
        let c = self.choose(base, 0.0, f32::NEG_INFINITY);
        let d = match (self.cfg.policy, self.sampler.mipmap_mode) {
            (Policy::D3D, _) => c.lambda,
            (Policy::Vulkan, MipmapMode::Nearest) => c.level[0],
            (Policy::Vulkan, MipmapMode::Linear) => {
                level_of(c.lambda, (self.view.level_count - 1) as f32)
            }
        };
        [d, c.biased]
    }
}

#[cfg(test)]
mod tests {
    use super::super::sampler::Sampler;
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

    /// A binding of a 16×16 image's 4-level 2D view through `s` (unvalidated) under `policy`.
    fn binding(s: Sampler, policy: Policy) -> Binding {
        use super::super::{Format, Image, ImageView, ViewType};
        let img = Image::new_2d(Format::R8G8B8A8_UNORM, 16, 16, 1, 4).unwrap();
        let view = ImageView::whole(&img, ViewType::D2);
        let cfg = super::super::Config {
            policy,
            ..Default::default()
        };
        // (the sampler set afterwards: bias beyond validation's range tests the D3D clamp)
        let mut b = Binding::new(&img, &view, &Sampler::default(), cfg).unwrap();
        b.sampler = s;
        b
    }

    #[test]
    fn bias_policies() {
        // λ′ of λ_base 1 (0 in the last) with sampler bias 10 (20) and shader bias 10 (−30)
        let biased = |p, sb, b: f32| {
            let s = Sampler {
                mip_lod_bias: sb,
                ..Sampler::default()
            };
            let base = if sb == 20.0 { 0.0 } else { 1.0 };
            binding(s, p).choose(base, b, f32::NEG_INFINITY).biased
        };
        assert_eq!(biased(Policy::Vulkan, 10.0, 10.0), 17.0); // sum clamped to 16
        assert_eq!(biased(Policy::D3D, 10.0, 10.0), 21.0); // sum not clamped
        assert_eq!(biased(Policy::D3D, 20.0, -30.0), 15.99 - 16.0);
    }

    #[test]
    fn clamp_policies() {
        let s = Sampler {
            min_lod: 1.0,
            max_lod: 3.0,
            ..Sampler::default()
        };
        let clamped = |p, l, m| binding(s, p).choose(l, 0.0, m).lambda;
        assert_eq!(clamped(Policy::Vulkan, 5.0, 0.0), 3.0);
        assert_eq!(clamped(Policy::Vulkan, 0.5, 0.0), 1.0);
        // shader MinLod 4 > maxLod 3: Vulkan -> maxLod wins, D3D -> MinLOD wins
        assert_eq!(clamped(Policy::Vulkan, 0.5, 4.0), 3.0);
        assert_eq!(clamped(Policy::D3D, 0.5, 4.0), 4.0);
        assert_eq!(clamped(Policy::D3D, f32::NAN, 0.0), 3.0);
        // D3D: a MinLod past the last level (3) is out of range
        let b = binding(s, Policy::D3D);
        assert!(b.choose(0.5, 0.0, 3.5).out && !b.choose(0.5, 0.0, 3.0).out);
    }

    /// [`Binding::lod_fixed`] against the selection rule: where it holds, every λ_base and
    /// shader bias (hostile ones: NaN, ±∞, ±0, huge, tiny, typical) select one and the same
    /// thing, bit for bit, under random views, samplers and policies; where it does not (a
    /// second level, or min and mag filters that differ), some λ selects otherwise.
    #[test]
    fn fixed_selection_is_the_rule() {
        use super::super::testgen::{self as gen, Rng};
        use super::super::{Filter, Format, Image, ImageView, ViewType};
        let values = [
            f32::NAN,
            -f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            0.0,
            -0.0,
            f32::MAX,
            -f32::MAX,
            1e30,
            -1e30,
            1e-40,
            -1e-40,
            f32::MIN_POSITIVE,
            0.25,
            0.5,
            1.0,
            -1.0,
            3.7,
            -7.5,
            100.0,
        ];
        let key = |b: &Binding, lam: f32, bias: f32| {
            let s = b.select(
                lam,
                bias,
                f32::NEG_INFINITY,
                &super::super::explain::NoRecord,
            );
            s.map(|s| {
                let [(l0, w0), (l1, w1)] = s.levels.l;
                (s.linear, s.levels.n, l0, l1, w0.to_bits(), w1.to_bits())
            })
        };
        let varies = |b: &Binding| {
            let k0 = key(b, values[0], 0.0);
            values
                .iter()
                .any(|&l| values.iter().any(|&bias| key(b, l, bias) != k0))
        };
        let mut r = Rng::new(23);
        let mut fixed = 0;
        for _ in 0..3000 {
            let fmt = r.pick(&[
                Format::R8G8B8A8_UNORM,
                Format::D32_SFLOAT,
                Format::R32_SFLOAT,
            ]);
            let (img, view) = gen::view_2d(&mut r, fmt);
            let modes = gen::modes(&mut r);
            let mut s = gen::sampler(&mut r, fmt, modes, 0);
            if r.chance(30) {
                s.mag_filter = s.min_filter;
            }
            let Ok(b) = Binding::new(&img, &view, &s, gen::config(&mut r)) else {
                continue;
            };
            if b.lod_fixed() {
                fixed += 1;
                assert!(!varies(&b), "{s:?} {view:?}");
            }
        }
        assert!(fixed > 100, "{fixed} fixed bindings");
        // a second level, or a magnification filter of its own: λ selects
        let img = Image::new_2d(Format::R8G8B8A8_UNORM, 16, 16, 1, 2).unwrap();
        let linear = Sampler {
            min_filter: Filter::Linear,
            mag_filter: Filter::Linear,
            max_lod: 100.0,
            ..Sampler::default()
        };
        let mag = Sampler {
            mag_filter: Filter::Nearest,
            ..linear
        };
        let one = ImageView {
            level_count: 1,
            ..ImageView::whole(&img, ViewType::D2)
        };
        for (view, s) in [(ImageView::whole(&img, ViewType::D2), linear), (one, mag)] {
            let b = Binding::new(&img, &view, &s, Default::default()).unwrap();
            assert!(!b.lod_fixed() && varies(&b), "{s:?} {view:?}");
        }
    }

    #[test]
    fn level_selection() {
        let sel = |l, mipmap_mode| {
            let s = Sampler {
                mipmap_mode,
                max_lod: 100.0,
                ..Sampler::default()
            };
            binding(s, Policy::Vulkan).choose(l, 0.0, f32::NEG_INFINITY)
        };
        let n = |l| sel(l, MipmapMode::Nearest).level[0];
        assert_eq!(
            (n(0.49), n(0.5), n(1.5), n(9.0), n(-3.0)),
            (0.0, 1.0, 2.0, 3.0, 0.0)
        );
        let l = sel(1.25, MipmapMode::Linear);
        assert_eq!((l.two, l.level, l.weight), (true, [1.0, 2.0], [0.75, 0.25]));
        let l = sel(7.0, MipmapMode::Linear);
        assert_eq!((l.two, l.level[0], l.weight[0]), (false, 3.0, 1.0));
    }
}
