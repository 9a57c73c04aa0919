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
//! the scalar form tested four lanes of one edge at a time with compares and shifts (the depth
//! scene's partly covered blocks: ~25 instructions per quad and edge). Edges too steep for
//! i32 (guard-band sized triangles) take [`edges_mask_i64`], the same values in i64.

use wide::i32x4;

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

/// An edge function relative to a block: `a` at the block's pixel (0, 0), steps `ex`, `ey` per
/// pixel, every value over the block in i32.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct BlockEdge {
    pub a: i32,
    pub ex: i32,
    pub ey: i32,
}

impl BlockEdge {
    /// `e` relative to the block at (bx, by), if all its values over the block fit in i32.
    #[inline]
    pub fn new(e: &Edge, bx: i32, by: i32) -> Option<BlockEdge> {
        let a = e.at(bx as i64, by as i64);
        let reach = a.unsigned_abs() + 7 * (e.ex.unsigned_abs() + e.ey.unsigned_abs());
        (reach <= i32::MAX as u64).then_some(BlockEdge {
            a: a as i32,
            ex: e.ex as i32,
            ey: e.ey as i32,
        })
    }
}

/// The pixels of a block inside every edge of `edges` (edge value >= 0 at the pixel centre).
#[inline]
pub(super) fn edges_mask(edges: &[BlockEdge]) -> u64 {
    // Sign bits of the OR of the edges' values: a pixel outside any edge.
    let mut out = 0u64;
    for r in 0..4 {
        let mut acc = [i32x4::ZERO; 4];
        for e in edges {
            // Values at the four lanes of the row's first quad, then two pixels per step.
            let (a, ex, ey) = (e.a, e.ex, e.ey);
            let row = a.wrapping_add(2 * ey * r as i32);
            let mut q = i32x4::new([row, row + ex, row + ey, row + ex + ey]);
            let step = i32x4::splat(2 * ex);
            for acc in &mut acc {
                *acc |= q;
                q += step;
            }
        }
        for (j, acc) in acc.iter().enumerate() {
            out |= (acc.to_bitmask() as u64) << (16 * r + 4 * j);
        }
    }
    !out
}

/// [`edges_mask`] in i64, for edges whose values over the block do not fit in i32.
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

    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            self.0 >> 33
        }
        fn range(&mut self, lo: i64, hi: i64) -> i64 {
            lo + (self.next() as i64) % (hi - lo + 1)
        }
    }

    /// Edges through a block at random slopes (from flat to near the i32 limit) against the
    /// per-pixel sign of `Edge::at` in i64; the i64 form against the same reference.
    #[test]
    fn edge_masks_match_per_pixel_signs() {
        let mut r = Lcg(5);
        let mut fits = 0;
        for case in 0..20_000 {
            let scale = [1i64, 256, 1 << 16, 1 << 24, 1 << 27, 3 << 27][case % 6];
            let n = 1 + case % 4;
            let (bx, by) = (8 * r.range(-40, 40) as i32, 8 * r.range(-40, 40) as i32);
            let edges: Vec<Edge> = (0..n)
                .map(|_| {
                    let (ex, ey) = (r.range(-scale, scale), r.range(-scale, scale));
                    // a value at a pixel of the block near zero, so the edge crosses it
                    let (px, py) = (bx as i64 + r.range(0, 7), by as i64 + r.range(0, 7));
                    let v = r.range(-2 * scale, 2 * scale);
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
            let block: Option<Vec<BlockEdge>> =
                edges.iter().map(|e| BlockEdge::new(e, bx, by)).collect();
            if let Some(block) = block {
                fits += 1;
                assert_eq!(edges_mask(&block), want, "case {case}: {edges:?}");
            }
        }
        assert!(fits > 12_000, "{fits}");
    }
}
