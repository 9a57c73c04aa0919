//! Primitive setup: window-space vertices become fixed-point edge functions (8 sub-pixel bits,
//! i64, top-left rule, sample points at pixel centres) plus the screen-linear planes that the
//! fragment code evaluates per lane (depth, 1/w and each original vertex's weight / w).
//!
//! Every raster primitive is a convex polygon of at most four edges: triangles, the
//! parallelogram of a non-strict line, the square of a point.

/// Sub-pixel bits of window coordinates.
pub(crate) const SUBPIXEL_BITS: u32 = 8;
const ONE: i64 = 1 << SUBPIXEL_BITS;
const HALF: i64 = ONE / 2;

/// A vertex after the perspective divide and the viewport transform.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct WinVert {
    pub x: f64,
    pub y: f64,
    pub z: f64,
    pub inv_w: f64,
    pub bary: [f64; 3],
}

/// Edge function at pixel (px, py): `e0 + ex * px + ey * py`; the pixel centre is inside when
/// the value is >= 0 (the top-left rule is folded into `e0`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Edge {
    pub e0: i64,
    pub ex: i64,
    pub ey: i64,
}

impl Edge {
    /// Edge a -> b of a polygon whose interior is on the positive side, i.e. the polygon has a
    /// positive `area2` in y-down window coordinates.
    fn new(a: (i64, i64), b: (i64, i64)) -> Edge {
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        // E(p) = dx * (p.y - a.y) - dy * (p.x - a.x), p = (px * ONE + HALF, py * ONE + HALF)
        // In y-down coordinates with this winding, a left edge goes up (dy < 0) and a top edge
        // is horizontal going right (dy == 0, dx > 0).
        let top_left = dy < 0 || (dy == 0 && dx > 0);
        Edge {
            e0: dx * (HALF - a.1) - dy * (HALF - a.0) - if top_left { 0 } else { 1 },
            ex: -dy * ONE,
            ey: dx * ONE,
        }
    }

    #[inline]
    pub fn at(&self, px: i64, py: i64) -> i64 {
        self.e0 + self.ex * px + self.ey * py
    }
}

/// A value linear in window coordinates: `a + dx * (x - x0) + dy * (y - y0)`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Plane {
    pub x0: f64,
    pub y0: f64,
    pub a: f64,
    pub dx: f64,
    pub dy: f64,
}

impl Plane {
    pub fn constant(a: f64) -> Plane {
        Plane {
            a,
            ..Plane::default()
        }
    }

    /// The plane through three (x, y, value) points; `area2` is their doubled signed area.
    #[inline]
    fn triangle(p: &[(f64, f64); 3], f: [f64; 3], area2: f64) -> Plane {
        let (x10, y10) = (p[1].0 - p[0].0, p[1].1 - p[0].1);
        let (x20, y20) = (p[2].0 - p[0].0, p[2].1 - p[0].1);
        let (f10, f20) = (f[1] - f[0], f[2] - f[0]);
        Plane {
            x0: p[0].0,
            y0: p[0].1,
            a: f[0],
            dx: (f10 * y20 - f20 * y10) / area2,
            dy: (f20 * x10 - f10 * x20) / area2,
        }
    }

    /// The value along a line: `fa` at `a`, `fb` at `b`, constant across the line
    /// (t = (p - a).(b - a) / |b - a|^2, the Vulkan line interpolation parameter).
    fn line(a: (f64, f64), b: (f64, f64), fa: f64, fb: f64) -> Plane {
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let l2 = dx * dx + dy * dy;
        Plane {
            x0: a.0,
            y0: a.1,
            a: fa,
            dx: (fb - fa) * dx / l2,
            dy: (fb - fa) * dy / l2,
        }
    }

    /// `sum_j coef(j) * planes[j]`; all planes of one primitive share their origin.
    #[inline]
    pub fn combine(planes: &[Plane], coef: impl Fn(usize) -> f64) -> Plane {
        let mut out = Plane {
            x0: planes[0].x0,
            y0: planes[0].y0,
            ..Plane::default()
        };
        if let [p0, p1, p2] = planes {
            // A triangle's three planes unrolled (the loop below, term for term: sums from
            // +0.0 in the same order; `coef` is pure): this runs five times per primitive and
            // tile.
            let (c0, c1, c2) = (coef(0), coef(1), coef(2));
            out.a = ((0.0 + c0 * p0.a) + c1 * p1.a) + c2 * p2.a;
            out.dx = ((0.0 + c0 * p0.dx) + c1 * p1.dx) + c2 * p2.dx;
            out.dy = ((0.0 + c0 * p0.dy) + c1 * p1.dy) + c2 * p2.dy;
            return out;
        }
        for (j, p) in planes.iter().enumerate() {
            let c = coef(j);
            out.a += c * p.a;
            out.dx += c * p.dx;
            out.dy += c * p.dy;
        }
        out
    }

    #[inline]
    pub fn at(&self, x: f64, y: f64) -> f64 {
        self.a + self.dx * (x - self.x0) + self.dy * (y - self.y0)
    }
}

/// Inclusive pixel rectangle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PixRect {
    pub x0: i32,
    pub y0: i32,
    pub x1: i32,
    pub y1: i32,
}

impl PixRect {
    pub fn intersect(&self, o: &PixRect) -> Option<PixRect> {
        let r = PixRect {
            x0: self.x0.max(o.x0),
            y0: self.y0.max(o.y0),
            x1: self.x1.min(o.x1),
            y1: self.y1.min(o.y1),
        };
        (r.x0 <= r.x1 && r.y0 <= r.y1).then_some(r)
    }
}

/// Data every raster primitive of one assembled primitive shares.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PrimInfo {
    /// Slots of the original vertices in the shaded vertex array; `slots[0]` is provoking.
    pub slots: [u32; 3],
    pub n_verts: u8,
    /// Clip w of the original vertices (for noperspective weights).
    pub orig_w: [f64; 3],
    pub primitive_id: u32,
    pub front: bool,
    /// A geometry shader's `Layer` and `ViewportIndex` (fit in what was padding).
    pub layer: u16,
    pub viewport: u8,
}

/// A primitive ready for the tiles.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RasterPrim {
    pub edges: [Edge; 4],
    pub n_edges: usize,
    /// Pixels that may be covered, already clipped to scissor and framebuffer.
    pub bbox: PixRect,
    pub z: Plane,
    /// Depth bias, added to the interpolated depth.
    pub z_offset: f64,
    pub inv_w: Plane,
    /// Weight / w of each original vertex.
    pub bw: [Plane; 3],
    pub info: PrimInfo,
    /// Points: window-space (left, top, size) for PointCoord.
    pub point: Option<(f64, f64, f64)>,
}

/// Snap a window coordinate to fixed point: `(v * ONE).round() as i64` (half away from zero,
/// saturating, NaN -> 0), computed with a truncating conversion instead of a call to libm's
/// `round` (12 calls per triangle, ~2.9 M instructions for 10 000 small triangles).
#[inline]
pub(crate) fn snap(v: f64) -> i64 {
    let x = v * ONE as f64;
    // `t` is `x` truncated (saturated), and `x - t` is exact whenever `x` has a fraction
    // (|x| < 2^52); larger or infinite `x` give a difference whose sign pushes `t` the way
    // it already saturated, or 0 where `x` is an integer.
    let t = x as i64;
    let f = x - t as f64;
    if f >= 0.5 {
        t.saturating_add(1)
    } else if f <= -0.5 {
        t.saturating_sub(1)
    } else {
        t
    }
}

fn unsnap(v: i64) -> f64 {
    v as f64 / ONE as f64
}

/// Doubled signed area of a fixed-point polygon (positive = clockwise on a y-down screen).
pub(crate) fn area2(p: &[(i64, i64)]) -> i64 {
    if let [a, b, c] = p {
        // a triangle without the modulo's divisions (an exact integer sum in any order)
        return (a.0 * b.1 - b.0 * a.1) + (b.0 * c.1 - c.0 * b.1) + (c.0 * a.1 - a.0 * c.1);
    }
    let n = p.len();
    (0..n)
        .map(|i| p[i].0 * p[(i + 1) % n].1 - p[(i + 1) % n].0 * p[i].1)
        .sum()
}

/// Edges and pixel bounds of a convex fixed-point polygon (3 or 4 vertices); `None` when it has
/// no area or misses the context's clip rectangle. The bounds hold every pixel whose centre
/// can be inside, or under multisampling every pixel any of whose sample locations can be.
fn polygon(p: &[(i64, i64)], ctx: &SetupCtx) -> Option<([Edge; 4], usize, PixRect)> {
    polygon_with_area(p, area2(p), ctx)
}

/// [`polygon`] with `a = area2(p)` already known.
fn polygon_with_area(
    p: &[(i64, i64)],
    a: i64,
    ctx: &SetupCtx,
) -> Option<([Edge; 4], usize, PixRect)> {
    if a == 0 {
        return None;
    }
    // At most 4 vertices (a triangle or a line's parallelogram): an array, not a `Vec`.
    let mut buf = [(0i64, 0i64); 4];
    let q = &mut buf[..p.len()];
    q.copy_from_slice(p);
    if a < 0 {
        q.reverse();
    }
    let mut edges = [Edge::default(); 4];
    for i in 0..q.len() {
        // the next vertex without a modulo (a division)
        let j = if i + 1 == q.len() { 0 } else { i + 1 };
        edges[i] = Edge::new(q[i], q[j]);
    }
    let (mut minx, mut maxx, mut miny, mut maxy) = (q[0].0, q[0].0, q[0].1, q[0].1);
    for v in &q[1..] {
        (minx, maxx) = (minx.min(v.0), maxx.max(v.0));
        (miny, maxy) = (miny.min(v.1), maxy.max(v.1));
    }
    // pixel centres px * ONE + HALF within [min, max]; with several samples, any of the
    // sample locations px * ONE + k ONE / 16, k = 0..16 (`samples`)
    let (lo_at, hi_at) = if ctx.multisample {
        (ONE - ONE / 16, 0)
    } else {
        (HALF, HALF)
    };
    let lo = |m: i64| (m - lo_at + ONE - 1).div_euclid(ONE);
    let hi = |m: i64| (m - hi_at).div_euclid(ONE);
    let b = PixRect {
        x0: lo(minx).clamp(i32::MIN as i64, i32::MAX as i64) as i32,
        y0: lo(miny).clamp(i32::MIN as i64, i32::MAX as i64) as i32,
        x1: hi(maxx).clamp(i32::MIN as i64, i32::MAX as i64) as i32,
        y1: hi(maxy).clamp(i32::MIN as i64, i32::MAX as i64) as i32,
    };
    let bbox = b.intersect(&ctx.clip)?;
    Some((edges, q.len(), bbox))
}

/// Per-draw constants for setup.
pub(crate) struct SetupCtx {
    pub clip: PixRect,
    pub depth_bias: Option<super::state::DepthBias>,
    /// `Some(bits)` for normalized depth formats, `None` for float (or no) depth.
    pub depth_unorm_bits: Option<u32>,
    /// More than one sample per pixel: bounding boxes take every pixel a sample of which may
    /// be covered.
    pub multisample: bool,
}

/// The depth bias `o` of a polygon (Vulkan "Depth Bias") whose window depth is the plane `z`
/// and whose vertex depths are `zs`: `m * slope_factor + r * constant_factor`, clamped by
/// `clamp` when it is not zero. `m = max(|dz/dx|, |dz/dy|)`; `r` is `2^-n` for an n-bit unorm
/// depth format, and `2^(e - 23)` for a float one, `e` the exponent of the largest `|z|`.
/// 0 when depth bias is disabled.
fn depth_bias(z: &Plane, zs: impl Iterator<Item = f64>, ctx: &SetupCtx) -> f64 {
    let Some(b) = ctx.depth_bias else {
        return 0.0;
    };
    let m = z.dx.abs().max(z.dy.abs());
    let r = match ctx.depth_unorm_bits {
        Some(n) => (2.0f64).powi(-(n as i32)),
        None => {
            let zmax = zs.map(f64::abs).fold(0.0f64, f64::max) as f32;
            let e = if zmax == 0.0 {
                -126
            } else {
                ((zmax.to_bits() >> 23) & 0xff) as i32 - 127
            };
            (2.0f64).powi(e - 23)
        }
    };
    let o = m * b.slope_factor as f64 + r * b.constant_factor as f64;
    let c = b.clamp as f64;
    if c > 0.0 {
        o.min(c)
    } else if c < 0.0 {
        o.max(c)
    } else {
        o
    }
}

/// The depth bias of a (possibly clipped) polygon drawn in line or point polygon mode: the
/// Vulkan spec applies depth bias in every polygon mode, with `m` and `r` of the polygon itself,
/// so its edges and vertices get the bias its filled triangles would get. `v` is the polygon
/// (at least 3 vertices); its depth plane comes from its first three vertices, as snapped for
/// fill. 0 when depth bias is disabled or the polygon has no area.
pub(crate) fn polygon_depth_bias(v: &[WinVert], ctx: &SetupCtx) -> f64 {
    if ctx.depth_bias.is_none() || v.len() < 3 {
        return 0.0;
    }
    let fixed = [v[0], v[1], v[2]].map(|w| (snap(w.x), snap(w.y)));
    let a2 = area2(&fixed);
    if a2 == 0 {
        return 0.0;
    }
    let pts = fixed.map(|f| (unsnap(f.0), unsnap(f.1)));
    let z = Plane::triangle(
        &pts,
        [v[0].z, v[1].z, v[2].z],
        a2 as f64 / (ONE * ONE) as f64,
    );
    depth_bias(&z, v.iter().map(|w| w.z), ctx)
}

/// Set up one triangle (a piece of a possibly clipped polygon).
pub(crate) fn triangle(v: &[WinVert; 3], info: PrimInfo, ctx: &SetupCtx) -> Option<RasterPrim> {
    let fixed = v.map(|w| (snap(w.x), snap(w.y)));
    triangle_snapped(v, &fixed, area2(&fixed), info, ctx)
}

/// [`triangle`] with the snapped vertices `fixed` and their `area2` already computed (the
/// caller needed them to cull).
pub(crate) fn triangle_snapped(
    v: &[WinVert; 3],
    fixed: &[(i64, i64); 3],
    area: i64,
    info: PrimInfo,
    ctx: &SetupCtx,
) -> Option<RasterPrim> {
    let (edges, n_edges, bbox) = polygon_with_area(fixed, area, ctx)?;
    // written out, not `map`s, whose closures were not always inlined
    let u = |f: (i64, i64)| (unsnap(f.0), unsnap(f.1));
    let pts = [u(fixed[0]), u(fixed[1]), u(fixed[2])];
    let a2 = area as f64 / (ONE * ONE) as f64;
    let z = Plane::triangle(&pts, [v[0].z, v[1].z, v[2].z], a2);
    let inv_w = Plane::triangle(&pts, [v[0].inv_w, v[1].inv_w, v[2].inv_w], a2);
    let weight = |k: usize| {
        let f = |w: &WinVert| w.bary[k] * w.inv_w;
        Plane::triangle(&pts, [f(&v[0]), f(&v[1]), f(&v[2])], a2)
    };
    let bw = [weight(0), weight(1), weight(2)];
    let z_offset = depth_bias(&z, v.iter().map(|w| w.z), ctx);
    Some(RasterPrim {
        edges,
        n_edges,
        bbox,
        z,
        z_offset,
        inv_w,
        bw,
        info,
        point: None,
    })
}

/// Set up a line segment as the Vulkan non-strict-line parallelogram: width 1, the end edges
/// parallel to the minor axis.
pub(crate) fn line(a: &WinVert, b: &WinVert, info: PrimInfo, ctx: &SetupCtx) -> Option<RasterPrim> {
    let (fa, fb) = ((snap(a.x), snap(a.y)), (snap(b.x), snap(b.y)));
    let (dx, dy) = (fb.0 - fa.0, fb.1 - fa.1);
    if dx == 0 && dy == 0 {
        return None;
    }
    let (ox, oy) = if dx.abs() >= dy.abs() {
        (0, HALF)
    } else {
        (HALF, 0)
    };
    let quad = [
        (fa.0 - ox, fa.1 - oy),
        (fb.0 - ox, fb.1 - oy),
        (fb.0 + ox, fb.1 + oy),
        (fa.0 + ox, fa.1 + oy),
    ];
    let (edges, n_edges, bbox) = polygon(&quad, ctx)?;
    let (pa, pb) = ((unsnap(fa.0), unsnap(fa.1)), (unsnap(fb.0), unsnap(fb.1)));
    let z = Plane::line(pa, pb, a.z, b.z);
    let inv_w = Plane::line(pa, pb, a.inv_w, b.inv_w);
    let bw = [0, 1, 2].map(|k| Plane::line(pa, pb, a.bary[k] * a.inv_w, b.bary[k] * b.inv_w));
    Some(RasterPrim {
        edges,
        n_edges,
        bbox,
        z,
        z_offset: 0.0,
        inv_w,
        bw,
        info,
        point: None,
    })
}

/// Set up a square point of side `size` centred on the vertex.
pub(crate) fn point(v: &WinVert, size: f64, info: PrimInfo, ctx: &SetupCtx) -> Option<RasterPrim> {
    let h = size / 2.0;
    let (l, t, r, bt) = (snap(v.x - h), snap(v.y - h), snap(v.x + h), snap(v.y + h));
    let quad = [(l, t), (r, t), (r, bt), (l, bt)];
    let (edges, n_edges, bbox) = polygon(&quad, ctx)?;
    Some(RasterPrim {
        edges,
        n_edges,
        bbox,
        z: Plane::constant(v.z),
        z_offset: 0.0,
        inv_w: Plane::constant(v.inv_w),
        bw: [0, 1, 2].map(|k| Plane::constant(v.bary[k] * v.inv_w)),
        info,
        point: Some((v.x - h, v.y - h, size)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::abs_diff_eq;

    #[test]
    fn combine_of_three_planes_is_the_plain_sum() {
        // Expected: a naive sum from +0.0 in plane order, compared bit for bit (signed zeros
        // included); two planes take the rolled loop, checked the same way.
        let vals = [0.0, -0.0, 1.5, -2.25, 1e300, -3e-310, 0.1, 7.0];
        let mut k = 0usize;
        let mut pick = || {
            k = k.wrapping_mul(31).wrapping_add(17);
            vals[k % vals.len()]
        };
        for _ in 0..500 {
            let planes: Vec<Plane> = (0..3)
                .map(|_| Plane {
                    x0: 2.0,
                    y0: -1.0,
                    a: pick(),
                    dx: pick(),
                    dy: pick(),
                })
                .collect();
            let coefs = [pick(), pick(), pick()];
            for n in [2, 3] {
                let got = Plane::combine(&planes[..n], |j| coefs[j]);
                let (mut a, mut dx, mut dy) = (0.0f64, 0.0f64, 0.0f64);
                for j in 0..n {
                    a += coefs[j] * planes[j].a;
                    dx += coefs[j] * planes[j].dx;
                    dy += coefs[j] * planes[j].dy;
                }
                let bits = |p: &Plane| [p.x0, p.y0, p.a, p.dx, p.dy].map(f64::to_bits);
                let want = Plane {
                    x0: 2.0,
                    y0: -1.0,
                    a,
                    dx,
                    dy,
                };
                assert_eq!(bits(&got), bits(&want), "{planes:?} {coefs:?}");
            }
        }
    }

    #[test]
    fn snap_rounds_like_f64_round() {
        // Expected: `(v * ONE).round() as i64` with std's `round`.
        let want = |v: f64| (v * ONE as f64).round() as i64;
        let mut special = vec![
            0.0,
            -0.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MAX,
            f64::MIN,
            f64::MIN_POSITIVE,
            2f64.powi(52),
            2f64.powi(55) + 3.0,
            2f64.powi(63),
            -(2f64.powi(63)),
            2f64.powi(63) * 1.5,
            -(2f64.powi(63)) * 1.5,
            0.5f64.next_down(),
        ];
        for k in -2000..=2000 {
            // halves, quarters and their neighbours, in pixels (ONE sub-pixel steps)
            let h = k as f64 / (2 * ONE) as f64;
            special.extend([h, h.next_up(), h.next_down()]);
        }
        let mut rng = fastrand::Rng::with_seed(3);
        for _ in 0..20000 {
            special.push(f64::from_bits(rng.u64(..)));
            special.push((rng.f64() - 0.5) * 70000.0);
        }
        for v in special {
            assert_eq!(snap(v), want(v), "{v:e}");
        }
    }

    #[test]
    fn top_left_rule_on_a_square_by_hand() {
        // An axis-aligned 2x2 square from (1, 1) to (3, 3): centres (1.5..2.5) are inside;
        // a square from (0.5, 0.5) to (2.5, 2.5) has centres on the edges: left/top edges
        // include theirs (x = 0, y = 0 pixels), right/bottom exclude (x = 2, y = 2).
        let clip = SetupCtx {
            clip: PixRect {
                x0: -10,
                y0: -10,
                x1: 10,
                y1: 10,
            },
            depth_bias: None,
            depth_unorm_bits: None,
            multisample: false,
        };
        let sq = |a: f64, b: f64| {
            let q = [
                (snap(a), snap(a)),
                (snap(b), snap(a)),
                (snap(b), snap(b)),
                (snap(a), snap(b)),
            ];
            polygon(&q, &clip).unwrap()
        };
        let (e, n, bb) = sq(0.5, 2.5);
        let hit = |px: i64, py: i64| e[..n].iter().all(|e| e.at(px, py) >= 0);
        let mut covered = vec![];
        for y in -1..4 {
            for x in -1..4 {
                if hit(x, y) {
                    covered.push((x, y));
                }
            }
        }
        assert_eq!(covered, vec![(0, 0), (1, 0), (0, 1), (1, 1)]);
        assert_eq!(
            bb,
            PixRect {
                x0: 0,
                y0: 0,
                x1: 2,
                y1: 2
            }
        );
    }

    #[test]
    fn polygon_depth_bias_by_hand() {
        let wv = |x: f64, y: f64, z: f64| WinVert {
            x,
            y,
            z,
            inv_w: 1.0,
            bary: [0.0; 3],
        };
        // z = 0.2 + 0.01 x + 0.02 y: m = 0.02. A fourth (clipped) vertex on the plane, of
        // larger depth 0.62, sets the float exponent: e = -1.
        let poly = [
            wv(0.0, 0.0, 0.2),
            wv(10.0, 0.0, 0.3),
            wv(0.0, 20.0, 0.6),
            wv(1.0, 20.0, 0.61),
        ];
        let ctx = |bits: Option<u32>, c: f32, s: f32, clamp: f32| SetupCtx {
            clip: PixRect {
                x0: 0,
                y0: 0,
                x1: 63,
                y1: 63,
            },
            depth_bias: Some(crate::raster::state::DepthBias {
                constant_factor: c,
                clamp,
                slope_factor: s,
            }),
            depth_unorm_bits: bits,
            multisample: false,
        };
        let near = |a: f64, b: f64| abs_diff_eq!(a, b, epsilon = 1e-12);
        // D16: r = 2^-16; o = 2 * 0.02 + 3 * 2^-16.
        let o = polygon_depth_bias(&poly, &ctx(Some(16), 3.0, 2.0, 0.0));
        assert!(near(o, 0.04 + 3.0 / 65536.0), "{o}");
        // Float: r = 2^(-1 - 23).
        let o = polygon_depth_bias(&poly, &ctx(None, 3.0, 0.0, 0.0));
        assert!(near(o, 3.0 * 2f64.powi(-24)), "{o}");
        // Clamps (f32 factors): a positive clamp limits a positive bias, a negative one a
        // negative bias.
        let o = polygon_depth_bias(&poly, &ctx(Some(16), 0.0, 2.0, 0.01));
        assert!(near(o, 0.01f32 as f64), "{o}");
        let o = polygon_depth_bias(&poly, &ctx(Some(16), 0.0, -2.0, -0.01));
        assert!(near(o, -0.01f32 as f64), "{o}");
        // Disabled: no bias.
        let off = SetupCtx {
            depth_bias: None,
            ..ctx(None, 1.0, 1.0, 0.0)
        };
        assert_eq!(polygon_depth_bias(&poly, &off), 0.0);
    }

    #[test]
    fn planes_reproduce_vertex_values() {
        let p = [(0.0, 0.0), (4.0, 0.0), (0.0, 2.0)];
        let pl = Plane::triangle(&p, [1.0, 3.0, 5.0], 8.0);
        assert_eq!(pl.at(4.0, 0.0), 3.0);
        assert_eq!(pl.at(0.0, 2.0), 5.0);
        assert_eq!(pl.at(2.0, 1.0), 4.0);
        let l = Plane::line((0.0, 0.0), (4.0, 0.0), 0.0, 1.0);
        assert_eq!(l.at(1.0, 7.0), 0.25);
    }
}
