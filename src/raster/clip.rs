//! Clipping in homogeneous clip space: against w > 0, the near and far planes (0 <= z <= w,
//! skipped under depth clamp) and a guard band in x/y that keeps window coordinates inside the
//! fixed-point range. Clipped vertices carry their clip-space barycentric weights relative to
//! the original primitive, so varyings never pass through the clipper: the fragment stage
//! interpolates the original vertices' values with those weights.

use std::borrow::Cow;

use super::state::Viewport;

/// Half-extent of the guard band in pixels (window coordinates stay within +-GUARD_BAND).
pub(crate) const GUARD_BAND: f64 = 32768.0;
const W_EPSILON: f64 = 1e-7;

/// A vertex inside the clipper.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ClipVert {
    pub pos: [f64; 4],
    /// Weights of the original primitive's vertices (sum 1, linear in clip space).
    pub bary: [f64; 3],
}

/// dist(v) = n . pos + c; inside when dist >= 0.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Plane {
    n: [f64; 4],
    c: f64,
}

impl Plane {
    fn dist(&self, p: &[f64; 4]) -> f64 {
        self.n[0] * p[0] + self.n[1] * p[1] + self.n[2] * p[2] + self.n[3] * p[3] + self.c
    }
}

/// Most planes [`PlaneSet`] evaluates side by side.
const SOA: usize = 8;

/// The clip planes of a draw, and the same planes as structure-of-arrays rows (`n[0]`, ..,
/// `n[3]`, `c`, padded with zero planes) so that the "every vertex inside" test of each
/// triangle runs as one vector loop over the planes: plane by plane it was 5 of the 21 M
/// instructions of setting up 10 000 small triangles.
#[derive(Clone, Debug)]
pub(crate) struct PlaneSet {
    pub list: Vec<Plane>,
    /// `None` with more than [`SOA`] planes.
    soa: Option<[[f64; SOA]; 5]>,
    /// The viewport's own planes ([`planes`]) by their parameters, when the set is exactly
    /// those: the "every vertex inside" test of a triangle as the few products that are not
    /// by 0 or 1 (the SoA rows still multiplied every coefficient: ~100 instructions a vertex).
    viewport: Option<ViewportPlanes>,
}

/// [`planes`] of one viewport: w >= W_EPSILON, 0 <= z <= w unless `!near_far`, and
/// `lo w <= x <= hi w` (likewise y) where the guard band applies.
#[derive(Clone, Copy, Debug)]
struct ViewportPlanes {
    near_far: bool,
    x: Option<(f64, f64)>,
    y: Option<(f64, f64)>,
}

impl ViewportPlanes {
    /// Whether `p` is inside every plane: the sign of each plane's `Plane::dist` without its
    /// terms that are products with 0 (exactly +-0 for a finite `p`, which move no nonzero sum
    /// and leave a zero sum zero, not below 0) or with 1 (exact).
    #[inline]
    fn inside(&self, p: &[f64; 4]) -> bool {
        let mut out = p[3] + -W_EPSILON < 0.0;
        if self.near_far {
            out |= p[2] < 0.0;
            out |= -p[2] + p[3] < 0.0;
        }
        for (axis, range) in [(0, self.x), (1, self.y)] {
            if let Some((lo, hi)) = range {
                out |= p[axis] + -lo * p[3] < 0.0;
                out |= -p[axis] + hi * p[3] < 0.0;
            }
        }
        !out
    }
}

impl PlaneSet {
    pub fn new(list: Vec<Plane>) -> PlaneSet {
        let soa = (list.len() <= SOA).then(|| {
            let mut rows = [[0.0; SOA]; 5];
            for (k, p) in list.iter().enumerate() {
                for (row, v) in rows.iter_mut().zip(p.n.iter().chain([&p.c])) {
                    row[k] = *v;
                }
            }
            rows
        });
        PlaneSet {
            list,
            soa,
            viewport: None,
        }
    }

    /// The clip planes of a viewport ([`planes`]), with their fast inside test.
    pub fn viewport(vp: &Viewport, depth_clamp: bool) -> PlaneSet {
        let (list, axes) = planes_and_axes(vp, depth_clamp);
        PlaneSet {
            viewport: Some(ViewportPlanes {
                near_far: !depth_clamp,
                x: axes[0],
                y: axes[1],
            }),
            ..PlaneSet::new(list)
        }
    }

    /// Bit k set: `p` is outside plane k, from exactly `Plane::dist`'s operations (a zero
    /// padding plane gives a zero, which is not outside).
    #[inline]
    #[allow(clippy::needless_range_loop)] // plane k of five rows
    fn outcode(rows: &[[f64; SOA]; 5], p: &[f64; 4]) -> u32 {
        let mut code = 0;
        for k in 0..SOA {
            let d = rows[0][k] * p[0]
                + rows[1][k] * p[1]
                + rows[2][k] * p[2]
                + rows[3][k] * p[3]
                + rows[4][k];
            code |= ((d < 0.0) as u32) << k;
        }
        code
    }
}

/// The clip planes for a viewport (guard band in x/y, w > 0, and near/far unless clamping).
#[cfg(test)]
pub(crate) fn planes(vp: &Viewport, depth_clamp: bool) -> Vec<Plane> {
    planes_and_axes(vp, depth_clamp).0
}

/// [`planes`], and the (lo, hi) of the x and y guard-band planes where they are made.
#[allow(clippy::type_complexity)]
fn planes_and_axes(vp: &Viewport, depth_clamp: bool) -> (Vec<Plane>, [Option<(f64, f64)>; 2]) {
    let mut out = vec![Plane {
        n: [0.0, 0.0, 0.0, 1.0],
        c: -W_EPSILON,
    }];
    if !depth_clamp {
        out.push(Plane {
            n: [0.0, 0.0, 1.0, 0.0],
            c: 0.0,
        });
        out.push(Plane {
            n: [0.0, 0.0, -1.0, 1.0],
            c: 0.0,
        });
    }
    // window = o + h * ndc must stay within [-G, G]
    let axes = [
        (
            0,
            vp.x as f64 + vp.width as f64 / 2.0,
            vp.width as f64 / 2.0,
        ),
        (
            1,
            vp.y as f64 + vp.height as f64 / 2.0,
            vp.height as f64 / 2.0,
        ),
    ];
    let mut ranges = [None; 2];
    for (axis, o, h) in axes {
        if h == 0.0 || !h.is_finite() || !o.is_finite() {
            continue;
        }
        let a = (-GUARD_BAND - o) / h;
        let b = (GUARD_BAND - o) / h;
        let (lo, hi) = if a < b { (a, b) } else { (b, a) };
        let mut n = [0.0; 4];
        n[axis] = 1.0;
        n[3] = -lo;
        out.push(Plane { n, c: 0.0 });
        let mut n = [0.0; 4];
        n[axis] = -1.0;
        n[3] = hi;
        out.push(Plane { n, c: 0.0 });
        ranges[axis] = Some((lo, hi));
    }
    (out, ranges)
}

fn lerp(a: &ClipVert, b: &ClipVert, t: f64) -> ClipVert {
    ClipVert {
        pos: std::array::from_fn(|i| a.pos[i] + t * (b.pos[i] - a.pos[i])),
        bary: std::array::from_fn(|i| a.bary[i] + t * (b.bary[i] - a.bary[i])),
    }
}

/// The point where edge (inside `a`, outside `b`) meets the plane; always computed from the
/// inside vertex so a shared edge clips to the same point in both of its triangles.
fn intersect(a: &ClipVert, da: f64, b: &ClipVert, db: f64) -> ClipVert {
    lerp(a, b, da / (da - db))
}

/// Clip a convex polygon (Sutherland-Hodgman). Returns the clipped polygon (empty if none);
/// a polygon inside every plane, the usual case, is returned borrowed (no allocation or
/// copy).
pub(crate) fn clip_polygon<'a>(verts: &'a [ClipVert], set: &PlaneSet) -> Cow<'a, [ClipVert]> {
    let planes_all = &set.list[..];
    if let Some(vp) = &set.viewport {
        // the usual case, every vertex inside: the same answer as the outcodes below
        if verts.iter().all(|v| vp.inside(&v.pos)) {
            return Cow::Borrowed(verts);
        }
    }
    if let (Some(rows), false) = (&set.soa, planes_all.is_empty()) {
        // Outcodes vertex by vertex: a plane with every vertex outside (a bit set in every
        // code) rejects the polygon, no bit in any code keeps it whole; the same answers as
        // the plane-by-plane loop below.
        let (mut any, mut all) = (0u32, u32::MAX);
        for v in verts {
            let code = PlaneSet::outcode(rows, &v.pos);
            (any, all) = (any | code, all & code);
        }
        if all & (u32::MAX >> (32 - planes_all.len())) != 0 {
            return Cow::Owned(Vec::new());
        }
        if any == 0 {
            return Cow::Borrowed(verts);
        }
    } else {
        let mut all_inside = true;
        for p in planes_all {
            let mut outside = 0;
            for v in verts {
                if p.dist(&v.pos) < 0.0 {
                    outside += 1;
                }
            }
            if outside == verts.len() {
                return Cow::Owned(Vec::new());
            }
            all_inside &= outside == 0;
        }
        if all_inside {
            return Cow::Borrowed(verts);
        }
    }
    let planes = planes_all;
    let mut poly = verts.to_vec();
    let mut next = Vec::with_capacity(poly.len() + 2);
    for p in planes {
        next.clear();
        for i in 0..poly.len() {
            let a = &poly[i];
            let b = &poly[(i + 1) % poly.len()];
            let (da, db) = (p.dist(&a.pos), p.dist(&b.pos));
            if da >= 0.0 {
                next.push(*a);
                if db < 0.0 {
                    next.push(intersect(a, da, b, db));
                }
            } else if db >= 0.0 {
                next.push(intersect(b, db, a, da));
            }
        }
        std::mem::swap(&mut poly, &mut next);
        if poly.len() < 3 {
            return Cow::Owned(Vec::new());
        }
    }
    Cow::Owned(poly)
}

/// Clip a line segment. `None` if nothing is left.
pub(crate) fn clip_line(
    a: ClipVert,
    b: ClipVert,
    planes: &[Plane],
) -> Option<(ClipVert, ClipVert)> {
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for p in planes {
        let (da, db) = (p.dist(&a.pos), p.dist(&b.pos));
        if da < 0.0 && db < 0.0 {
            return None;
        }
        if da < 0.0 {
            t0 = t0.max(da / (da - db));
        } else if db < 0.0 {
            t1 = t1.min(da / (da - db));
        }
    }
    if t0 > t1 {
        return None;
    }
    let na = if t0 > 0.0 { lerp(&a, &b, t0) } else { a };
    let nb = if t1 < 1.0 { lerp(&a, &b, t1) } else { b };
    Some((na, nb))
}

/// Whether a point is inside every plane.
pub(crate) fn point_inside(v: &[f64; 4], planes: &[Plane]) -> bool {
    planes.iter().all(|p| p.dist(v) >= 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::abs_diff_eq;

    fn cv(pos: [f64; 4], i: usize) -> ClipVert {
        let mut bary = [0.0; 3];
        bary[i] = 1.0;
        ClipVert { pos, bary }
    }

    #[test]
    fn outcode_test_matches_the_plane_by_plane_test() {
        // Expected: the same planes without their structure-of-arrays rows, which takes the
        // plane-by-plane path; triangles inside, crossing and outside every plane.
        let mut rng = fastrand::Rng::with_seed(11);
        let mut next = |scale: f64| (rng.f64() - 0.5) * scale;
        for vp in [Viewport::full(64, 64), Viewport::full(1024, 1024)] {
            for clamp in [false, true] {
                let fast = PlaneSet::new(planes(&vp, clamp));
                let slow = PlaneSet {
                    soa: None,
                    ..fast.clone()
                };
                let fastest = PlaneSet::viewport(&vp, clamp);
                assert_eq!(fastest.list.len(), fast.list.len());
                assert!(fast.soa.is_some() && fastest.viewport.is_some());
                let (mut kept, mut rejected) = (0, 0);
                for t in 0..3000 {
                    let tri: Vec<ClipVert> = (0..3)
                        .map(|k| {
                            let pos = match t % 3 {
                                // mostly inside: w near 1, z near w / 2
                                0 => [next(2.0), next(2.0), 0.5 + next(0.4), 1.0 + next(0.4)],
                                1 => [next(200.0), next(200.0), next(200.0), next(200.0)],
                                _ => [next(1e6), next(1e6), next(1e6), next(1e6)],
                            };
                            cv(pos, k)
                        })
                        .collect();
                    let (a, b) = (clip_polygon(&tri, &fast), clip_polygon(&tri, &slow));
                    assert_eq!(a, b, "{tri:?}");
                    assert_eq!(matches!(a, Cow::Borrowed(_)), matches!(b, Cow::Borrowed(_)));
                    let c = clip_polygon(&tri, &fastest);
                    assert_eq!(a, c, "{tri:?}");
                    assert_eq!(matches!(a, Cow::Borrowed(_)), matches!(c, Cow::Borrowed(_)));
                    kept += matches!(a, Cow::Borrowed(_)) as u32;
                    rejected += a.is_empty() as u32;
                }
                assert!(kept > 50 && rejected > 50, "{kept} {rejected}");
            }
        }
    }

    /// The viewport planes' inside test against the SoA outcodes (the general formula) on
    /// points on and around every plane, signed zeros included, for viewports with and without
    /// guard-band planes.
    #[test]
    fn viewport_inside_test_matches_the_outcodes_on_the_planes() {
        let mut vps = vec![Viewport::full(64, 64), Viewport::full(1024, 1024)];
        let mut odd = Viewport::full(300, 200);
        (odd.x, odd.y, odd.width, odd.height) = (-17.5, 40.25, 333.0, -120.0);
        vps.push(odd);
        let mut flat = Viewport::full(64, 64);
        flat.width = 0.0;
        vps.push(flat);
        for vp in vps {
            for clamp in [false, true] {
                let set = PlaneSet::viewport(&vp, clamp);
                let (rows, fast) = (set.soa.unwrap(), set.viewport.unwrap());
                let (_, axes) = planes_and_axes(&vp, clamp);
                let mut bounds: Vec<f64> = vec![0.0, -0.0, 1.0, -1.0, W_EPSILON, 0.5, 3.0];
                for (lo, hi) in axes.into_iter().flatten() {
                    bounds.extend([lo, hi, -lo, -hi]);
                }
                let mut n = 0;
                for &w in &[W_EPSILON, W_EPSILON.next_down(), 1.0, 2.0, 0.0, -0.0, -1.0] {
                    for &a in &bounds {
                        for &b in &bounds {
                            for &z in &[0.0, -0.0, w, -w, w / 2.0, w.next_up(), 1e-300] {
                                for p in [[a * w, b * w, z, w], [b, a, z, w]] {
                                    let want = PlaneSet::outcode(&rows, &p) == 0;
                                    assert_eq!(fast.inside(&p), want, "{vp:?} {clamp} {p:?}");
                                    n += want as u32;
                                }
                            }
                        }
                    }
                }
                assert!(n > 100, "{n}");
            }
        }
    }

    #[test]
    fn near_plane_clip_by_hand() {
        let vp = Viewport::full(64, 64);
        let pl = planes(&vp, false);
        // z goes from -1 (outside) to 1 (inside), w = 2 everywhere: z = 0 at the midpoint.
        let tri = [
            cv([0.0, 0.0, -1.0, 2.0], 0),
            cv([1.0, 0.0, 1.0, 2.0], 1),
            cv([0.0, 1.0, 1.0, 2.0], 2),
        ];
        let out = clip_polygon(&tri, &PlaneSet::new(pl.clone()));
        assert_eq!(out.len(), 4);
        for v in out.iter() {
            assert!(v.pos[2] >= -1e-12);
            let s: f64 = v.bary.iter().sum();
            assert!(abs_diff_eq!(s, 1.0, epsilon = 1e-12), "{s}");
        }
        // The new vertices on edge 0-1 and 2-0 are the midpoints.
        assert!(out.iter().any(|v| v.bary == [0.5, 0.5, 0.0]));
        assert!(out.iter().any(|v| v.bary == [0.5, 0.0, 0.5]));
        let l = clip_line(tri[0], tri[1], &pl).unwrap();
        assert_eq!(l.0.bary, [0.5, 0.5, 0.0]);
        assert_eq!(l.1, tri[1]);
    }
}
