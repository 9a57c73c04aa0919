//! Sample locations: Vulkan's standard sample locations (`standardSampleLocations`, the same
//! table as Direct3D's) for 1, 2, 4, 8 and 16 samples per pixel, in sixteenths of a pixel from
//! the pixel's top-left corner.
//!
//! Every location is a multiple of 1/16, so with the rasterizer's 8 sub-pixel bits a sample
//! sits exactly on the fixed-point grid: an edge function at a sample is the edge function at
//! the pixel centre plus an exact integer per edge and sample ([`edge_offset`]), and coverage
//! per sample follows the same fixed-point top-left rule as single-sample coverage.
//! Everything that needs a location (coverage, depth, `FragCoord` and inputs under sample
//! shading, `SamplePosition`, `InterpolateAtSample`, centroid) reads this one table.

use super::setup::Edge;

/// Locations of 1 sample (the pixel centre).
const S1: [[u8; 2]; 1] = [[8, 8]];
const S2: [[u8; 2]; 2] = [[12, 12], [4, 4]];
const S4: [[u8; 2]; 4] = [[6, 2], [14, 6], [2, 10], [10, 14]];
const S8: [[u8; 2]; 8] = [
    [9, 5],
    [7, 11],
    [13, 9],
    [5, 3],
    [3, 13],
    [1, 7],
    [11, 15],
    [15, 1],
];
const S16: [[u8; 2]; 16] = [
    [9, 9],
    [7, 5],
    [5, 10],
    [12, 7],
    [3, 6],
    [10, 13],
    [13, 11],
    [11, 3],
    [6, 14],
    [8, 1],
    [4, 2],
    [2, 12],
    [0, 8],
    [15, 4],
    [14, 15],
    [1, 0],
];

/// Whether `samples` is a supported sample count (1, 2, 4, 8, 16).
pub fn supported(samples: u32) -> bool {
    matches!(samples, 1 | 2 | 4 | 8 | 16)
}

/// The locations of `samples` samples, `(x, y)` in sixteenths of a pixel from its top-left
/// corner; empty for an unsupported count.
pub fn locations(samples: u32) -> &'static [[u8; 2]] {
    match samples {
        1 => &S1,
        2 => &S2,
        4 => &S4,
        8 => &S8,
        16 => &S16,
        _ => &[],
    }
}

/// Location of sample `s` of `samples` in pixels from the pixel's top-left corner (the
/// centre, (0.5, 0.5), for an index or count outside the table).
pub fn location(samples: u32, s: u32) -> [f32; 2] {
    match locations(samples).get(s as usize) {
        Some(&[x, y]) => [x as f32 / 16.0, y as f32 / 16.0],
        None => [0.5, 0.5],
    }
}

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

    /// The table against the Vulkan specification's standard locations, written out as the
    /// spec gives them (fractions of a pixel).
    #[test]
    fn standard_locations_by_the_spec() {
        let spec: [&[(f32, f32)]; 5] = [
            &[(0.5, 0.5)],
            &[(0.75, 0.75), (0.25, 0.25)],
            &[
                (0.375, 0.125),
                (0.875, 0.375),
                (0.125, 0.625),
                (0.625, 0.875),
            ],
            &[
                (0.5625, 0.3125),
                (0.4375, 0.6875),
                (0.8125, 0.5625),
                (0.3125, 0.1875),
                (0.1875, 0.8125),
                (0.0625, 0.4375),
                (0.6875, 0.9375),
                (0.9375, 0.0625),
            ],
            &[
                (0.5625, 0.5625),
                (0.4375, 0.3125),
                (0.3125, 0.625),
                (0.75, 0.4375),
                (0.1875, 0.375),
                (0.625, 0.8125),
                (0.8125, 0.6875),
                (0.6875, 0.1875),
                (0.375, 0.875),
                (0.5, 0.0625),
                (0.25, 0.125),
                (0.125, 0.75),
                (0.0, 0.5),
                (0.9375, 0.25),
                (0.875, 0.9375),
                (0.0625, 0.0),
            ],
        ];
        for (k, want) in spec.iter().enumerate() {
            let n = 1u32 << k;
            assert!(supported(n));
            assert_eq!(locations(n).len(), want.len());
            for (s, &(x, y)) in want.iter().enumerate() {
                assert_eq!(location(n, s as u32), [x, y], "{n} samples, sample {s}");
            }
        }
        assert!(!supported(3) && !supported(32) && locations(32).is_empty());
        assert_eq!(location(4, 9), [0.5, 0.5]);
    }

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
