//! Cube maps: face selection (ties: Z beats Y beats X), the quotient-rule derivative
//! transform, and seamless edge remapping of taps that leave a face (sampling.md §4).

use super::lanes::{Arr, Lanes, F, I};

/// Result of face selection for one direction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FaceCoord {
    /// Face / layer within the cube: +x 0, −x 1, +y 2, −y 3, +z 4, −z 5.
    pub face: u32,
    /// `s_c`, `t_c`, `r_c` (major, signed) from the §4.1 table.
    pub sc: f32,
    /// See `sc`.
    pub tc: f32,
    /// Signed major-axis component.
    pub ma: f32,
}

impl FaceCoord {
    /// Normalized face coordinates `(0.5·s_c/|r_c| + 0.5, 0.5·t_c/|r_c| + 0.5)`.
    #[inline]
    pub fn st(&self) -> [f32; 2] {
        let inv = 0.5 / self.ma.abs();
        [self.sc * inv + 0.5, self.tc * inv + 0.5]
    }
}

/// Selects the face of direction `d` (Z ≥ Y ≥ X on ties, as D3D requires): `faces` of
/// one lane.
#[inline]
pub fn select_face(d: [f32; 3]) -> FaceCoord {
    let l = Arr::<1>;
    let f = faces(l.f(d[0]), l.f(d[1]), l.f(d[2]));
    FaceCoord {
        face: f.face.at(0) as u32,
        sc: f.sc.at(0),
        tc: f.tc.at(0),
        ma: f.ma.at(0),
    }
}

/// The face selection of lane directions, lane-wise (the rule every cube path uses).
#[derive(Clone, Copy, Debug)]
pub(super) struct Faces<L: Lanes> {
    /// Face index 0..5.
    pub face: I<L>,
    /// `s_c`, `t_c` and the signed major component `ma` of the §4.1 table.
    pub sc: F<L>,
    pub tc: F<L>,
    pub ma: F<L>,
}

impl<L: Lanes> Faces<L> {
    /// Normalized face coordinates `(0.5·s_c/|ma| + 0.5, 0.5·t_c/|ma| + 0.5)`.
    #[inline(always)]
    pub fn st(&self) -> (F<L>, F<L>) {
        let half = self.sc.lanes().f(0.5);
        let inv = half / self.ma.abs();
        (self.sc * inv + half, self.tc * inv + half)
    }
}

/// The faces of `W` directions: the major axis is z when `|z| ≥ |x|, |y|`, else y when
/// `|y| ≥ |x|`, else x (NaN compares false: x); its sign bit picks the negative face; the
/// face table's `s_c`, `t_c` by sign flips (exact, as Rust's negation).
#[inline(always)]
pub(super) fn faces<L: Lanes>(x: F<L>, y: F<L>, z: F<L>) -> Faces<L> {
    let l = x.lanes();
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    let zs = ax.le(az) & ay.le(az);
    let ys = !zs & ax.le(ay);
    let m = F::select(zs, z, F::select(ys, y, x));
    // the major component's sign bit, and its complement: `x ^ s` is `−x` where set
    let sign = l.i(i32::MIN);
    let neg = m.bits() & sign;
    let pos = neg ^ sign;
    let flip = |v: F<L>, s: I<L>| (v.bits() ^ s).as_f32_bits();
    let axis = I::select(zs, l.i(4), I::select(ys, l.i(2), l.i(0)));
    Faces {
        face: axis - m.bits().sign(),
        sc: F::select(zs, flip(x, neg), F::select(ys, x, flip(z, pos))),
        tc: F::select(ys, flip(z, neg), flip(y, sign)),
        ma: m,
    }
}

/// The face table's `(s_c, t_c, r_c)` of face `face` from a vector `d` (a direction, or
/// the derivative of one: `(∂s_c, ∂t_c, ∂|r_c|)`).
#[inline]
fn face_axes<T: Copy + std::ops::Neg<Output = T>>(face: u32, d: [T; 3]) -> [T; 3] {
    let [x, y, z] = d;
    match face {
        0 => [-z, -y, x],
        1 => [z, -y, -x],
        2 => [x, z, y],
        3 => [x, -z, -y],
        4 => [x, -y, z],
        _ => [-x, -y, -z],
    }
}

/// Transforms a direction derivative into normalized face-coordinate derivatives
/// `∂s_face = 0.5·(|r_c|·∂s_c − s_c·∂|r_c|)/r_c²` (same for t), at the face of `fc`.
#[inline]
pub fn transform_deriv(fc: &FaceCoord, d: [f32; 3]) -> [f32; 2] {
    let [dsc, dtc, dma] = face_axes(fc.face, d);
    let ma = fc.ma.abs();
    let k = 0.5 / (ma * ma);
    [k * (ma * dsc - fc.sc * dma), k * (ma * dtc - fc.tc * dma)]
}

/// Direction through face `face` at `sc, tc` ∈ about [−1, 1] (inverse of the face table).
fn face_dir(face: u32, sc: f64, tc: f64) -> [f64; 3] {
    match face {
        0 => [1.0, -tc, -sc],
        1 => [-1.0, -tc, sc],
        2 => [sc, 1.0, tc],
        3 => [sc, -1.0, -tc],
        4 => [sc, -tc, 1.0],
        _ => [-sc, -tc, -1.0],
    }
}

/// Maps a texel `(i, j)` of `face` (size `n`) that lies outside the face in exactly one axis
/// (by at most one texel) to the geometrically adjacent texel of the neighbouring face, by
/// going through the 3D direction of the texel centre. Returns `(face, i, j)`. In-range
/// texels are returned unchanged; both axes out (a corner) → `None`.
pub fn remap_edge(face: u32, i: i32, j: i32, n: i32) -> Option<(u32, i32, i32)> {
    let out_i = i < 0 || i >= n;
    let out_j = j < 0 || j >= n;
    if !out_i && !out_j {
        return Some((face, i, j));
    }
    if out_i && out_j {
        return None;
    }
    let nf = n as f64;
    let sc = 2.0 * (i as f64 + 0.5) / nf - 1.0;
    let tc = 2.0 * (j as f64 + 0.5) / nf - 1.0;
    let d = face_dir(face, sc, tc);
    let fc = select_face([d[0] as f32, d[1] as f32, d[2] as f32]);
    // the face comes from the f32 selection; the coordinates are recomputed in f64
    let [s, t, m] = face_axes(fc.face, d);
    let u = (0.5 * s / m + 0.5) * nf;
    let v = (0.5 * t / m + 0.5) * nf;
    let ni = (u.floor() as i32).clamp(0, n - 1);
    let nj = (v.floor() as i32).clamp(0, n - 1);
    Some((fc.face, ni, nj))
}

/// The neighbouring face and the form of each index of [`remap_edge`]'s result for a texel
/// one step outside face `f` on side `s` (0: `i = −1`, 1: `i = n`, 2: `j = −1`, 3: `j = n`):
/// `(face, i form, j form)` with forms 0: `0`, 1: `n − 1`, 2: `k`, 3: `n − 1 − k` (`k` the
/// index along the edge). The table `remap_edge` amounts to; `tests::edge_table_is_remap_edge`
/// checks it against `remap_edge` on every edge texel of faces up to the plane bound.
pub(super) const EDGE: [[(u8, u8, u8); 4]; 6] = [
    [(4, 1, 2), (5, 0, 2), (2, 1, 3), (3, 1, 2)],
    [(5, 1, 2), (4, 0, 2), (2, 0, 2), (3, 0, 3)],
    [(1, 2, 0), (0, 3, 0), (5, 3, 0), (4, 2, 0)],
    [(1, 3, 1), (0, 2, 1), (4, 2, 1), (5, 3, 1)],
    [(1, 1, 2), (0, 0, 2), (2, 2, 1), (3, 2, 0)],
    [(0, 1, 2), (1, 0, 2), (2, 3, 0), (3, 3, 1)],
];

/// [`EDGE`] as plane-index arithmetic on one level: the texel `k` along side `s` one step
/// outside face `f` is `a[s][f] + d[s][f]·k` past texel (0, 0) of face 0 of its cube
/// (faces of `n` texels a side, `tl` texels apart), the face's entries in lanes 0 to 5 of
/// each row so that a lane-wise lookup by face reads them. The same indices as
/// [`remap_edge_step`] within one step of the face (the forms `0`, `n − 1`, `k`, `n − 1 − k`
/// as `c·(n − 1) + b·k`).
#[derive(Clone, Copy, Debug)]
pub(super) struct EdgeIndex {
    pub a: [[i32; 8]; 4],
    pub d: [[i32; 8]; 4],
}

impl EdgeIndex {
    /// The table of a level of extent `n` whose faces are `tl` texels apart.
    pub fn new(n: i32, tl: i32) -> EdgeIndex {
        // a form as (coefficient of n − 1, coefficient of k)
        let form = |f: u8| match f {
            0 => (0, 0),
            1 => (1, 0),
            2 => (0, 1),
            _ => (1, -1),
        };
        let mut e = EdgeIndex {
            a: [[0; 8]; 4],
            d: [[0; 8]; 4],
        };
        for (f, sides) in EDGE.iter().enumerate() {
            for (s, &(nf, fi, fj)) in sides.iter().enumerate() {
                let ((ci, bi), (cj, bj)) = (form(fi), form(fj));
                e.a[s][f] = (nf as i32)
                    .wrapping_mul(tl)
                    .wrapping_add((ci + cj * n).wrapping_mul(n - 1));
                e.d[s][f] = bi + bj * n;
            }
        }
        e
    }
}

/// [`remap_edge`] by the [`EDGE`] table for texels at most one step outside the face (`i`,
/// `j` in `−1..=n`, the taps of a footprint inside the face's texel range); a corner and
/// anything farther out go through [`remap_edge`] itself. Integer operations only.
#[inline]
pub(super) fn remap_edge_step(face: u32, i: i32, j: i32, n: i32) -> Option<(u32, i32, i32)> {
    let out_i = i < 0 || i >= n;
    let out_j = j < 0 || j >= n;
    if !out_i && !out_j {
        return Some((face, i, j));
    }
    if out_i == out_j || i < -1 || i > n || j < -1 || j > n || face > 5 {
        return remap_edge(face, i, j, n);
    }
    let (side, k) = match (i < 0, i >= n, j < 0) {
        (true, _, _) => (0, j),
        (_, true, _) => (1, j),
        (_, _, true) => (2, i),
        _ => (3, i),
    };
    let (f, a, b) = EDGE[face as usize][side];
    let v = |form: u8| match form {
        0 => 0,
        1 => n - 1,
        2 => k,
        _ => n - 1 - k,
    };
    Some((f as u32, v(a), v(b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faces_and_ties() {
        assert_eq!(select_face([1.0, 0.2, 0.3]).face, 0);
        assert_eq!(select_face([-1.0, 0.2, 0.3]).face, 1);
        assert_eq!(select_face([0.1, 1.0, 0.3]).face, 2);
        assert_eq!(select_face([0.1, -1.0, 0.3]).face, 3);
        assert_eq!(select_face([0.1, 0.2, 1.0]).face, 4);
        assert_eq!(select_face([0.1, 0.2, -1.0]).face, 5);
        // ties: Z beats Y beats X
        assert_eq!(select_face([1.0, 1.0, 1.0]).face, 4);
        assert_eq!(select_face([1.0, -1.0, 0.0]).face, 3);
        // +x face, direction (1, -0.5, -0.5): sc = 0.5, tc = 0.5 -> st = (0.75, 0.75)
        assert_eq!(select_face([1.0, -0.5, -0.5]).st(), [0.75, 0.75]);
        // +z face, direction (0.5, 0.5, 1): sc = 0.5, tc = -0.5 -> (0.75, 0.25)
        assert_eq!(select_face([0.5, 0.5, 1.0]).st(), [0.75, 0.25]);
    }

    #[test]
    fn derivative_transform_by_hand() {
        // +z face at (0,0,1): ∂s/∂x = 0.5·(1·dx - 0)/1 = 0.5·dx
        let fc = select_face([0.0, 0.0, 1.0]);
        assert_eq!(transform_deriv(&fc, [0.2, 0.0, 0.0]), [0.1, 0.0]);
        // +z at (0.5, 0, 1) with d = (0, 0, 0.1): ∂s = 0.5·(1·0 - 0.5·0.1)/1 = -0.025
        let fc = select_face([0.5, 0.0, 1.0]);
        let d = transform_deriv(&fc, [0.0, 0.0, 0.1]);
        approx::assert_abs_diff_eq!(d[0], -0.025, epsilon = 1e-7);
        assert_eq!(d[1], 0.0);
        // -x face at (-2, 0, 0): sc = z, |ma| = 2; d = (0,0,1): ∂s = 0.5·(2·1)/4 = 0.25
        let fc = select_face([-2.0, 0.0, 0.0]);
        assert_eq!(transform_deriv(&fc, [0.0, 0.0, 1.0]), [0.25, 0.0]);
    }

    #[test]
    fn edge_table_is_remap_edge() {
        // every texel one step outside every face (and the corners), faces of 1 to 300
        // texels and a few up to past the plane bound (6·836² texels)
        let sizes = (1..=300).chain([511, 512, 513, 836, 1024]);
        for n in sizes {
            for face in 0..6 {
                for k in -1..=n {
                    for (i, j) in [(-1, k), (n, k), (k, -1), (k, n)] {
                        assert_eq!(
                            remap_edge_step(face, i, j, n),
                            remap_edge(face, i, j, n),
                            "face {face} ({i}, {j}) of {n}"
                        );
                    }
                }
            }
        }
        // farther out: remap_edge itself
        assert_eq!(
            remap_edge_step(0, i32::MAX, 1, 4),
            remap_edge(0, i32::MAX, 1, 4)
        );
        assert_eq!(remap_edge_step(3, 2, -7, 4), remap_edge(3, 2, -7, 4));
    }

    #[test]
    fn edge_index_is_remap_edge_step() {
        // the plane index of every texel one step outside every face (not a corner), by the
        // table, against `remap_edge_step`'s (face, i, j) placed on a cube of faces `tl` apart
        for n in (1..=40).chain([255, 256, 257]) {
            let tl = n * n + 3;
            let e = EdgeIndex::new(n, tl);
            for face in 0..6u32 {
                for k in 0..n {
                    for (s, (i, j)) in [(-1, k), (n, k), (k, -1), (k, n)].into_iter().enumerate() {
                        let (f, i2, j2) = remap_edge_step(face, i, j, n).unwrap();
                        let want = f as i32 * tl + j2 * n + i2;
                        let got = e.a[s][face as usize] + e.d[s][face as usize] * k;
                        assert_eq!(got, want, "face {face} side {s} k {k} of {n}");
                    }
                }
            }
        }
    }

    #[test]
    fn edges_by_hand() {
        // +x face (0), left of column 0: direction (1, -tc, 1+1/n) -> +z face, right column.
        let n = 4;
        assert_eq!(remap_edge(0, -1, 1, n), Some((4, 3, 1)));
        // +x face, right of the last column: sc > 1 -> z = -sc < -1 -> -z face, column 0
        assert_eq!(remap_edge(0, 4, 2, n), Some((5, 0, 2)));
        // +z face (4), above row 0: tc < -1 -> y = -tc > 1 -> +y face (2), row 3 (tc = z = 1)
        assert_eq!(remap_edge(4, 1, -1, n), Some((2, 1, 3)));
        // +y face, above row 0: tc = z < -1 -> -z face; x = sc; -z: s = -x -> column flips
        assert_eq!(remap_edge(2, 0, -1, n), Some((5, 3, 0)));
        assert_eq!(remap_edge(2, 0, 0, n), Some((2, 0, 0)));
        assert_eq!(remap_edge(2, -1, -1, n), None);
    }
}
