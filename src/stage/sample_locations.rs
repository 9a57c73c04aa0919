//! Sample locations: Vulkan's standard sample locations (`standardSampleLocations`, the same
//! table as Direct3D's) for 1, 2, 4, 8 and 16 samples per pixel, in sixteenths of a pixel from
//! the pixel's top-left corner.
//!
//! Every location is a multiple of 1/16, so a sample sits exactly on the rasterizer's
//! fixed-point grid (`raster::samples`). Everything that needs a location (coverage, depth, `FragCoord` and inputs under sample
//! shading, `SamplePosition`, `InterpolateAtSample`, centroid) reads this one table.

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
}
