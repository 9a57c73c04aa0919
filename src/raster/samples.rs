//! Where samples sit on the rasterizer's fixed-point grid. Every standard sample location
//! ([`crate::stage::sample_locations`]) is a multiple of 1/16 pixel, so with the rasterizer's 8
//! sub-pixel bits an edge function at a sample is the edge function at the pixel centre plus an
//! exact integer per edge and sample ([`edge_offset`]), and coverage per sample follows the
//! same fixed-point top-left rule as single-sample coverage.

use super::setup::Edge;

/// What an edge function gains from the pixel centre to the location `loc` (sixteenths):
/// the edge is `e0 + ex px + ey py` with `ex`, `ey` multiples of the fixed-point unit, so
/// `ex / ONE * dx + ey / ONE * dy` with `dx`, `dy` the location's offset from the centre in
/// sub-pixel units is exact.
pub(crate) fn edge_offset(e: &Edge, loc: [u8; 2]) -> i64 {
    const ONE: i64 = 1 << super::setup::SUBPIXEL_BITS;
    let step = ONE / 16;
    let (dx, dy) = ((loc[0] as i64 - 8) * step, (loc[1] as i64 - 8) * step);
    e.ex / ONE * dx + e.ey / ONE * dy
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stage::sample_locations::locations;

    /// An edge's value at a sample, computed from the sample's sub-pixel coordinates with the
    /// edge's own definition, equals the centre value plus `edge_offset`.
    #[test]
    fn edge_offsets_are_the_edge_at_the_sample() {
        let one = 1i64 << super::super::setup::SUBPIXEL_BITS;
        // E(p) = dx (p.y - a.y) - dy (p.x - a.x) in sub-pixel units, as `Edge::new` defines it
        for (a, b) in [
            ((3, 5), (700, 90)),
            ((-40, 333), (17, -999)),
            ((0, 0), (0, 256)),
        ] {
            let (dx, dy) = (b.0 - a.0, b.1 - a.1);
            let raw = |x: i64, y: i64| dx * (y - a.1) - dy * (x - a.0);
            let e = Edge {
                e0: raw(one / 2, one / 2),
                ex: -dy * one,
                ey: dx * one,
            };
            for n in [1, 2, 4, 8, 16] {
                for &loc in locations(n) {
                    for (px, py) in [(0, 0), (3, -2), (-7, 11)] {
                        let sx = px * one + loc[0] as i64 * one / 16;
                        let sy = py * one + loc[1] as i64 * one / 16;
                        assert_eq!(e.at(px, py) + edge_offset(&e, loc), raw(sx, sy));
                    }
                }
            }
        }
    }
}
