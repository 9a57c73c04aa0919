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
        PlaneSet { list, soa }
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
pub(crate) fn planes(vp: &Viewport, depth_clamp: bool) -> Vec<Plane> {
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
    }
    out
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
/// a polygon inside every plane, the usual case, is returned borrowed (no allocation: for
/// 10 000 small triangles the copies were ~4 % of the frame's instructions).
pub(crate) fn clip_polygon<'a>(verts: &'a [ClipVert], set: &PlaneSet) -> Cow<'a, [ClipVert]> {
    let planes_all = &set.list[..];
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

    fn cv(pos: [f64; 4], i: usize) -> ClipVert {
        let mut bary = [0.0; 3];
        bary[i] = 1.0;
        ClipVert { pos, bary }
    }

    #[test]
    fn outcode_test_matches_the_plane_by_plane_test() {
        // Expected: the same planes without their structure-of-arrays rows, which takes the
        // plane-by-plane path; triangles inside, crossing and outside every plane.
        let mut seed = 11u64;
        let mut next = |scale: f64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * scale
        };
        for vp in [Viewport::full(64, 64), Viewport::full(1024, 1024)] {
            for clamp in [false, true] {
                let fast = PlaneSet::new(planes(&vp, clamp));
                let slow = PlaneSet {
                    soa: None,
                    ..fast.clone()
                };
                assert!(fast.soa.is_some());
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
                    kept += matches!(a, Cow::Borrowed(_)) as u32;
                    rejected += a.is_empty() as u32;
                }
                assert!(kept > 50 && rejected > 50, "{kept} {rejected}");
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
            assert!((s - 1.0).abs() < 1e-12);
        }
        // The new vertices on edge 0-1 and 2-0 are the midpoints.
        assert!(out.iter().any(|v| v.bary == [0.5, 0.5, 0.0]));
        assert!(out.iter().any(|v| v.bary == [0.5, 0.0, 0.5]));
        let l = clip_line(tri[0], tri[1], &pl).unwrap();
        assert_eq!(l.0.bary, [0.5, 0.5, 0.0]);
        assert_eq!(l.1, tri[1]);
    }
}
