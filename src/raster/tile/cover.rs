//! Coverage of an 8x8 block as one 64-bit mask, in quad order: bit `4k + lane` is lane `lane`
//! (`0 1 / 2 3`) of the block's quad k (quads row by row, four to a row), so quad k's lane
//! mask is `(mask >> 4k) & 0xf` and a quad row is 16 bits. Every consumer of a block (the
//! block depth test, the batch) reads quads, so the mask is built in their order once rather
//! than converted.
//!
//! An edge that crosses the block is evaluated at all 64 pixel centres at once: relative to the
//! block's pixel (0, 0) its values are exact integers, and when they all fit in i32 (the
//! caller checks `|a| + 7 (|ex| + |ey|)`) a quad is one `i32x4` (`a + [0, ex, ey, ex + ey]`
//! plus its steps), the edges' vectors are OR-ed (a sign bit set in any of them is a pixel
//! outside) and one movemask gives the quad's four bits. This is llvmpipe's block coverage;
//! a scalar form would test four lanes of one edge at a time with compares and shifts. Edges
//! too steep for
//! i32 (guard-band sized triangles) take [`edges_mask_i64`], the same values in i64.

use wide::bytemuck::cast;
use wide::{i16x8, i32x4, i8x16};

use super::Edge;

/// Bit of pixel (px, py), 0..8 each, in a block mask.
pub(super) const fn bit(px: u32, py: u32) -> u32 {
    ((py / 2) * 4 + px / 2) * 4 + (py % 2) * 2 + px % 2
}

/// `COLS[m]`: the block mask of the pixel columns set in `m` (every row).
static COLS: [u64; 256] = spread(true);
/// `ROWS[m]`: the block mask of the pixel rows set in `m` (every column).
static ROWS: [u64; 256] = spread(false);

const fn spread(cols: bool) -> [u64; 256] {
    let mut t = [0u64; 256];
    let mut m = 0;
    while m < 256 {
        let mut px = 0;
        while px < 8 {
            let mut py = 0;
            while py < 8 {
                let sel = if cols { px } else { py };
                if m >> sel & 1 != 0 {
                    t[m] |= 1 << bit(px, py);
                }
                py += 1;
            }
            px += 1;
        }
        m += 1;
    }
    t
}

/// The block mask of the pixels x0..=x1, y0..=y1 (block-relative, 0..8, x0 <= x1, y0 <= y1).
#[inline]
pub(super) fn rect_mask(x0: u32, y0: u32, x1: u32, y1: u32) -> u64 {
    let span = |a: u32, b: u32| ((0xffu32 << a) & (0xff >> (7 - b))) as usize & 0xff;
    COLS[span(x0, x1)] & ROWS[span(y0, y1)]
}

/// Bit k set: quad k of block mask `m` has a covered lane.
#[inline]
pub(super) fn quads(m: u64) -> u32 {
    // a nibble's OR in its low bit, then the 16 low bits gathered, halving the gaps
    let m = (m | m >> 1 | m >> 2 | m >> 3) & 0x1111_1111_1111_1111;
    let m = (m | m >> 3) & 0x0303_0303_0303_0303;
    let m = (m | m >> 6) & 0x000f_000f_000f_000f;
    let m = (m | m >> 12) & 0x0000_00ff_0000_00ff;
    ((m | m >> 24) & 0xffff) as u32
}

/// An edge function over a block: its values at the four lanes of the block's quad 0 and
/// its steps to the next quad in x (`2 ex`) and in y (`2 ey`), every value over the block in
/// i32 (the walk checks `|a| + 7 (|ex| + |ey|)`; the lanes are exact modulo 2^32, so exact).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct BlockEdge {
    pub quad0: i32x4,
    pub sx: i32x4,
    pub sy: i32x4,
}

impl BlockEdge {
    /// An edge's per-primitive part: `[0, ex, ey, ex + ey]`, `2 ex`, `2 ey` (wrapping).
    pub fn steps(ex: i64, ey: i64) -> BlockEdge {
        let (ex, ey) = (ex as i32, ey as i32);
        BlockEdge {
            quad0: i32x4::new([0, ex, ey, ex.wrapping_add(ey)]),
            sx: i32x4::splat(ex.wrapping_mul(2)),
            sy: i32x4::splat(ey.wrapping_mul(2)),
        }
    }

    /// The edge over a block where its value at the block's pixel (0, 0) is `a`.
    #[inline]
    pub fn at(&self, a: i32) -> BlockEdge {
        BlockEdge {
            quad0: self.quad0 + i32x4::splat(a),
            ..*self
        }
    }
}

/// The pixels of a block inside every edge of `edges` (edge value >= 0 at the pixel centre).
#[inline]
pub(super) fn edges_mask(edges: &[BlockEdge]) -> u64 {
    match *edges {
        [a] => edges_mask_n([a]),
        [a, b] => edges_mask_n([a, b]),
        [a, b, c] => edges_mask_n([a, b, c]),
        [a, b, c, d] => edges_mask_n([a, b, c, d]),
        _ => u64::MAX,
    }
}

/// [`edges_mask`] of `N` edges, unrolled: per quad row the four quads' values (quad 0's lanes
/// plus the steps) OR-ed over the edges (a sign bit in any is a pixel outside), then packed
/// to bytes with saturation (which keeps signs) and moved out in quad order with one byte
/// movemask.
#[inline(always)]
fn edges_mask_n<const N: usize>(edges: [BlockEdge; N]) -> u64 {
    let mut row = edges.map(|e| e.quad0);
    let mut out = 0u64;
    for r in 0..4 {
        let mut acc = [i32x4::ZERO; 4];
        for k in 0..N {
            let mut q = row[k];
            for acc in &mut acc {
                *acc |= q;
                q += edges[k].sx;
            }
            row[k] += edges[k].sy;
        }
        let h0 = i16x8::from_i32x8_saturate(cast([acc[0], acc[1]]));
        let h1 = i16x8::from_i32x8_saturate(cast([acc[2], acc[3]]));
        let bytes = i8x16::from_i16x16_saturate(cast([h0, h1]));
        out |= (bytes.to_bitmask() as u64) << (16 * r);
    }
    !out
}

/// [`edges_mask`] in i64, for edges whose values over the block do not fit in i32.
#[cold]
#[inline(never)]
pub(super) fn edges_mask_i64(edges: &[Edge], bx: i32, by: i32) -> u64 {
    let mut inside = u64::MAX;
    for e in edges {
        for py in 0..8u32 {
            for px in 0..8u32 {
                if e.at((bx + px as i32) as i64, (by + py as i32) as i64) < 0 {
                    inside &= !(1 << bit(px, py));
                }
            }
        }
    }
    inside
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_cover_the_block_once_in_quad_order() {
        let mut seen = 0u64;
        for py in 0..8 {
            for px in 0..8 {
                let b = bit(px, py);
                assert_eq!(seen >> b & 1, 0);
                seen |= 1 << b;
                // quad k = (py / 2) * 4 + px / 2, lane = (py % 2) * 2 + px % 2
                assert_eq!(b / 4, (py / 2) * 4 + px / 2);
                assert_eq!(b % 4, (py % 2) * 2 + px % 2);
            }
        }
        assert_eq!(seen, u64::MAX);
    }

    #[test]
    fn rect_masks_by_pixel() {
        for x0 in 0..8 {
            for x1 in x0..8 {
                for y0 in 0..8 {
                    for y1 in y0..8 {
                        let mut want = 0u64;
                        for py in y0..=y1 {
                            for px in x0..=x1 {
                                want |= 1 << bit(px, py);
                            }
                        }
                        assert_eq!(rect_mask(x0, y0, x1, y1), want, "{x0} {y0} {x1} {y1}");
                    }
                }
            }
        }
    }

    #[test]
    fn quads_of_a_mask() {
        let mut r = fastrand::Rng::with_seed(9);
        for case in 0..10_000 {
            let m = match case % 3 {
                0 => r.u64(..),
                1 => 0xf << (4 * (case % 16)),
                _ => 1 << (case % 64),
            };
            let want = (0..16).fold(0, |q, k| q | ((m >> (4 * k) & 0xf != 0) as u32) << k);
            assert_eq!(quads(m), want, "{m:x}");
        }
        assert_eq!(quads(0), 0);
        assert_eq!(quads(u64::MAX), 0xffff);
    }

    /// Edges through a block at random slopes (from flat to near the i32 limit) against the
    /// per-pixel sign of `Edge::at` in i64; the i64 form against the same reference.
    #[test]
    fn edge_masks_match_per_pixel_signs() {
        let mut r = fastrand::Rng::with_seed(5);
        let mut fits = 0;
        for case in 0..20_000 {
            let scale = [1i64, 256, 1 << 16, 1 << 24, 1 << 27, 3 << 27][case % 6];
            let n = 1 + case % 4;
            let (bx, by) = (8 * r.i64(-40..=40) as i32, 8 * r.i64(-40..=40) as i32);
            let edges: Vec<Edge> = (0..n)
                .map(|_| {
                    let (ex, ey) = (r.i64(-scale..=scale), r.i64(-scale..=scale));
                    // a value at a pixel of the block near zero, so the edge crosses it
                    let (px, py) = (bx as i64 + r.i64(0..=7), by as i64 + r.i64(0..=7));
                    let v = r.i64(-2 * scale..=2 * scale);
                    Edge {
                        e0: v - ex * px - ey * py,
                        ex,
                        ey,
                    }
                })
                .collect();
            let mut want = u64::MAX;
            for e in &edges {
                for py in 0..8 {
                    for px in 0..8 {
                        if e.at((bx + px) as i64, (by + py) as i64) < 0 {
                            want &= !(1 << bit(px as u32, py as u32));
                        }
                    }
                }
            }
            assert_eq!(edges_mask_i64(&edges, bx, by), want, "case {case}");
            let block: Option<Vec<BlockEdge>> = edges
                .iter()
                .map(|e| {
                    let a = e.at(bx as i64, by as i64);
                    let reach = a.unsigned_abs() + 7 * (e.ex.unsigned_abs() + e.ey.unsigned_abs());
                    (reach <= i32::MAX as u64).then(|| BlockEdge::steps(e.ex, e.ey).at(a as i32))
                })
                .collect();
            if let Some(block) = block {
                fits += 1;
                assert_eq!(edges_mask(&block), want, "case {case}: {edges:?}");
            }
        }
        assert!(fits > 12_000, "{fits}");
    }
}
