//! The depth/stencil tests of the tile walk: the float depth-only early test of a whole block
//! (`depth_block`), the early test of one quad (a whole quad on the float depth-only path
//! inlined, the rest out of line), and the per-lane tests the late path and the other
//! formats use.
//!
//! `depth_block` is the hot one (every pixel of the depth scene passes through it, ~2.5
//! times): a quad row's 16 depths are f64x2 plane steps (exactly `quad_depth`'s operations),
//! quantized as `maxps`/`minps`, compared with the stored words as signed integers (for a
//! non-negative depth that is `total_cmp`), blended and stored four texels a vector, and the
//! pass mask packed to quad order with one byte movemask. The compare op, depth clamp / bias
//! and writes are constants of the instance, so per fully covered quad row the test is ~120
//! instructions (~7.5 a pixel); per quad it had been ~125 (~31 a pixel). Where the CPU has
//! AVX2 (run-time detection) the same source runs compiled for it, without FMA so the f64
//! steps round as before: VEX's three-operand forms and SSE4.1's blends take the depth
//! scene's `depth_block` from 22.4 to 18.7 M instructions. A test holds both instances to a
//! per-lane reference written from the format's own `quantize` / `cmp_stored`.
//!
//! Tried: a 256-bit AVX2 kernel (a quad row's four quads' lane 0 as one f64x4, each pixel
//! row one f32x8, rows that all fail not stored): LLVM kept its row step out of line or,
//! unrolled, spilled, and it took 21-24 M instructions against this form's 18.7 M.

use super::*;
use wide::bytemuck::cast;
use wide::{f32x4, f64x2, i16x8, i32x4, i8x16};

impl<'a> TileShader<'a> {
    /// The early depth/stencil tests (and writes) of a quad's covered lanes with depths `z`
    /// (unclamped); the surviving lanes. A whole quad on the float depth-only path is tested
    /// here, inlined into the block walk; everything else goes out of line.
    #[inline(always)]
    pub(super) fn early_test(&self, view: &mut TileView, q: &Quad, z: [f32; 4]) -> u8 {
        if let (Some(fd), 0xf) = (&self.float_depth, q.mask) {
            let z = z.map(|z| self.clamp_z(z));
            let (lx0, ly0) = (
                (q.x - view.rect.x0) as usize * 4,
                (q.y - view.rect.y0) as usize,
            );
            let [top, bottom] = &mut view.depth[ly0..ly0 + 2] else {
                unreachable!("a whole quad covers two rows");
            };
            return float_quad(fd, z, &mut top[lx0..][..8], &mut bottom[lx0..][..8], 0xf);
        }
        self.early_test_rest(view, q, z)
    }

    /// [`Self::early_test`] of the quads it does not take itself.
    #[inline(never)]
    pub(super) fn early_test_rest(&self, view: &mut TileView, q: &Quad, z: [f32; 4]) -> u8 {
        let (rx, ry) = (view.rect.x0, view.rect.y0);
        let z = z.map(|z| self.clamp_z(z));
        // The float depth-only test (`FloatDepth`, hoisted state) on the quad's two fixed
        // 8-byte row pieces, for a whole quad (in `early_test`) and, with its uncovered lanes
        // masked off, a partly covered one whose 2x2 pixels are all in the tile (an odd
        // framebuffer size leaves a quad's right or bottom lanes outside); the per-lane path
        // below dispatches on the format and compare op per lane. Partly covered quads out
        // of line (a variable mask inlined next to the whole quads' test cost those ~40
        // instructions each).
        if let Some(fd) = &self.float_depth {
            if q.x < view.rect.x1 && q.y < view.rect.y1 {
                let (lx0, ly0) = ((q.x - rx) as usize * 4, (q.y - ry) as usize);
                let [top, bottom] = &mut view.depth[ly0..ly0 + 2] else {
                    unreachable!("the quad is in the tile");
                };
                let (top, bottom) = (&mut top[lx0..][..8], &mut bottom[lx0..][..8]);
                return float_quad_partial(fd, z, top, bottom, q.mask);
            }
        }
        if self.depth_only && q.mask == 0xf {
            return self.depth_quad(view, (q.x - rx) as usize, (q.y - ry) as usize, z);
        }
        let front = q.p.info.front;
        let mut mask = q.mask;
        for (k, &z) in z.iter().enumerate() {
            if mask & (1 << k) != 0 {
                let (lx, ly) = (
                    (q.x + (k & 1) as i32 - rx) as usize,
                    (q.y + (k >> 1) as i32 - ry) as usize,
                );
                if !self.test(view, lx, ly, z, front) {
                    mask &= !(1 << k);
                }
            }
        }
        mask
    }

    /// The depth that is tested and stored: clamped to the viewport's depth range under depth
    /// clamp (`FragCoord.z` keeps the unclamped value).
    #[inline]
    pub(super) fn clamp_z(&self, z: f32) -> f32 {
        match self.scene.depth_clamp {
            Some((lo, hi)) => z.clamp(lo, hi),
            None => z,
        }
    }

    /// Depth/stencil tests of one fragment at tile-local (lx, ly); whether it survives.
    #[inline]
    pub(super) fn test(
        &self,
        view: &mut TileView,
        lx: usize,
        ly: usize,
        z: f32,
        front: bool,
    ) -> bool {
        let format = self.ds_format.expect("tests imply an attachment");
        let st = &self.scene.state.depth_stencil;
        if self.depth_only {
            let row = &mut *view.depth[ly];
            let q = st.quantize(format, z);
            let stored = DepthStencilTarget::stored_depth(row, format, lx);
            if !st.depth_compare.test(format.cmp_stored(q, stored)) {
                return false;
            }
            if st.depth_write {
                DepthStencilTarget::store_depth(row, format, lx, q);
            }
            return true;
        }
        let mut no_stencil: [u8; 0] = [];
        let mut ds = DepthStencilBuf {
            format,
            depth: match view.depth.get_mut(ly) {
                Some(r) => r,
                None => &mut [],
            },
            stencil: match view.stencil.get_mut(ly) {
                Some(r) => r,
                None => &mut no_stencil,
            },
        };
        depth_stencil(st, &mut ds, lx, z, front)
    }

    /// The depth test (and write) of a whole covered quad at tile-local (lx0, ly0) on the
    /// `depth_only` path of a unorm format (float formats take [`float_quad`], but for
    /// unrestricted depth): what
    /// [`Self::test`] does lane by lane, on the quad's two 2-texel row pieces; returns the
    /// surviving lanes.
    #[inline]
    pub(super) fn depth_quad(
        &self,
        view: &mut TileView,
        lx0: usize,
        ly0: usize,
        z: [f32; 4],
    ) -> u8 {
        let format = self.ds_format.expect("tests imply an attachment");
        let st = &self.scene.state.depth_stencil;
        let db = format.depth_bytes();
        let (upper, lower) = view.depth.split_at_mut(ly0 + 1);
        let rows = [
            &mut upper[ly0][lx0 * db..(lx0 + 2) * db],
            &mut lower[0][lx0 * db..(lx0 + 2) * db],
        ];
        let mut live = 0xf;
        for (k, &z) in z.iter().enumerate() {
            let row = &mut *rows[k >> 1];
            let q = st.quantize(format, z);
            let stored = DepthStencilTarget::stored_depth(row, format, k & 1);
            if !st.depth_compare.test(format.cmp_stored(q, stored)) {
                live &= !(1 << k);
            } else if st.depth_write {
                DepthStencilTarget::store_depth(row, format, k & 1, q);
            }
        }
        live
    }
}

/// The bits of an f32 as an integer with the order of `f32::total_cmp` (negative values have
/// their magnitude bits flipped), so a float depth compare is an integer compare.
#[inline(always)]
pub(super) fn order_key(bits: u32) -> i32 {
    let b = bits as i32;
    b ^ ((((b >> 31) as u32) >> 1) as i32)
}

/// The `depth_only` test on a float depth format with its state hoisted out of the quads.
#[derive(Clone, Copy, Debug)]
pub(super) struct FloatDepth {
    /// Whether the compare op passes when the fragment's depth is less than, equal to or
    /// greater than the stored one (1 or 0).
    pub pass: [u32; 3],
    pub write: bool,
    /// Depth clamp range, when depth clamp is on.
    pub clamp: Option<(f32, f32)>,
}

/// The float depth-only test (and write) of a quad's covered lanes `mask` with (clamped)
/// depths `z` on its two 8-byte depth row pieces: what [`TileShader::test`] does lane by lane,
/// with the state hoisted (`FloatDepth`) and the texel size fixed. Returns the surviving lanes.
#[inline(always)]
pub(super) fn float_quad(
    fd: &FloatDepth,
    z: [f32; 4],
    top: &mut [u8],
    bottom: &mut [u8],
    mask: u8,
) -> u8 {
    let top: &mut [u8; 8] = top.try_into().expect("two texels");
    let bottom: &mut [u8; 8] = bottom.try_into().expect("two texels");
    let word = |r: &[u8; 8], i: usize| {
        u32::from_le_bytes([r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]])
    };
    let stored = [word(top, 0), word(top, 1), word(bottom, 0), word(bottom, 1)];
    let (q, mut ok) = float_depth_test(fd.pass, z, &stored);
    for (k, ok) in ok.iter_mut().enumerate() {
        *ok &= (mask >> k) as u32 & 1;
    }
    if fd.write {
        let new: [u32; 4] = std::array::from_fn(|k| if ok[k] != 0 { q[k] } else { stored[k] });
        top[..4].copy_from_slice(&new[0].to_le_bytes());
        top[4..].copy_from_slice(&new[1].to_le_bytes());
        bottom[..4].copy_from_slice(&new[2].to_le_bytes());
        bottom[4..].copy_from_slice(&new[3].to_le_bytes());
    }
    (ok[0] | ok[1] << 1 | ok[2] << 2 | ok[3] << 3) as u8
}

/// [`float_quad`] of a partly covered quad, out of line.
#[inline(never)]
pub(super) fn float_quad_partial(
    fd: &FloatDepth,
    z: [f32; 4],
    top: &mut [u8],
    bottom: &mut [u8],
    mask: u8,
) -> u8 {
    float_quad(fd, z, top, bottom, mask)
}

/// The float depth test of `N` lanes against their stored words: `quantize` (NaN to 0, clamp
/// to [0, 1], -0 to +0) as `max`/`min`/`+ 0`, and `total_cmp` as a signed integer compare of
/// order keys (a quantized depth is non-negative, so its key is its bits; a stored value may
/// be anything an upload put there). `pass`: whether the compare op passes on less, equal,
/// greater (1 or 0). Returns the quantized depths and, per lane, 1 where the test passes.
/// Straight loops over the lanes (the per-quad path; whole blocks take [`depth_block`]).
#[inline(always)]
pub(super) fn float_depth_test<const N: usize>(
    pass: [u32; 3],
    z: [f32; N],
    stored: &[u32; N],
) -> ([u32; N], [u32; N]) {
    let [p_lt, p_eq, p_gt] = pass;
    // not `clamp`: `max` turns NaN into 0 as `quantize` does, `clamp` would keep it
    #[allow(clippy::manual_clamp)]
    let q: [u32; N] = z.map(|z| (z.max(0.0).min(1.0) + 0.0).to_bits());
    let mut ok = [0u32; N];
    for k in 0..N {
        let key = order_key(stored[k]);
        let zk = q[k] as i32;
        ok[k] =
            ((zk < key) as u32 & p_lt) | ((zk == key) as u32 & p_eq) | ((zk > key) as u32 & p_gt);
    }
    (q, ok)
}

/// [`depth_block`] for one compare op. `unsafe` because an AVX2 instance may only run on a
/// CPU with AVX2; [`depth_block_fn`] hands one out only after checking.
pub(super) type DepthBlockFn = unsafe fn(&FloatDepth, &BlockRows, &mut [&mut [u8]]) -> u64;

/// [`depth_block`] for the compare op whose pass bits (less, equal, greater) are `pass`: the
/// AVX2 instance where [`crate::cpu::avx2`] allows it (the CPU has AVX2), else the baseline one.
pub(super) fn depth_block_fn(pass: [u32; 3]) -> DepthBlockFn {
    depth_block_fn_for(pass, crate::cpu::avx2())
}

/// [`depth_block_fn`] with the instance chosen by the caller (`avx2` only where the CPU has
/// it, which calling the result requires).
pub(super) fn depth_block_fn_for(pass: [u32; 3], avx2: bool) -> DepthBlockFn {
    macro_rules! pick {
        ($f:ident) => {
            match pass.map(|p| p != 0) {
                [true, false, false] => $f::<true, false, false>,
                [false, false, true] => $f::<false, false, true>,
                [false, true, false] => $f::<false, true, false>,
                [true, true, false] => $f::<true, true, false>,
                [false, true, true] => $f::<false, true, true>,
                [true, false, true] => $f::<true, false, true>,
                [true, true, true] => $f::<true, true, true>,
                [false, false, false] => $f::<false, false, false>,
            }
        };
    }
    #[cfg(target_arch = "x86_64")]
    if avx2 {
        return pick!(depth_block_avx2);
    }
    let _ = avx2;
    pick!(depth_block)
}

/// [`depth_block`] compiled for AVX2 (no FMA: the f64 steps stay separate multiplies and
/// adds, so the bytes are the same): the same 128-bit vectors, but VEX's three-operand forms
/// drop the register copies and SSE4.1's `blendv` / `pminsd` take the selects.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn depth_block_avx2<const LT: bool, const EQ: bool, const GT: bool>(
    fd: &FloatDepth,
    b: &BlockRows,
    rows: &mut [&mut [u8]],
) -> u64 {
    depth_block_body::<LT, EQ, GT>(fd, b, rows)
}

/// Quad-row lanes of a block.
const QROW: u32 = 16;

/// The float depth-only early test (and write) of the covered pixels of block `b` (a block
/// mask, see [`super::cover`]), whose eight depth rows are `rows[..8]`, each from byte
/// `b.lx0` on. Returns the pixels that pass, as a block mask.
///
/// The same per-lane results as [`quad_depth`] and [`float_quad`] quad by quad (the tests
/// below hold the two to a per-lane reference):
/// - a quad's lane 0 is `Plane::at`'s expression, `(a + dx * x) + dy * y`, its lane 1 that
///   plus `dx`, lanes 2 and 3 lanes 0 and 1 plus `dy`: the same operations in f64x2, two
///   quads a vector; a zero `z_offset` is not added (`v + 0.0` differs from `v` only for -0,
///   which the quantization makes +0 anyway);
/// - quantization (NaN to 0, clamp to [0, 1], -0 to +0) is `z > 0 ? z : +0` (false for NaN
///   and -0: one `maxps` on SSE) and a `min` with 1 of a non-NaN value;
/// - `total_cmp` of a quantized depth (non-negative) with a stored word is the signed compare
///   of their raw bits: a stored value with its sign bit set is below every non-negative one
///   either way, and below the sign bit the raw bits are the order key ([`order_key`]);
/// - `LT`, `EQ`, `GT`: whether the compare op passes on less, equal, greater; constants, so
///   each op's test is its one vector compare (and a not); depth clamp and writes are
///   unswitched once per block.
///
/// Rows of quads without a covered pixel are skipped; the others are four `i32x4` texel
/// groups (SSE2 on baseline x86-64, `wide`'s scalar lanes elsewhere), and the pass mask is
/// gathered into quad order with one byte movemask.
pub(super) fn depth_block<const LT: bool, const EQ: bool, const GT: bool>(
    fd: &FloatDepth,
    b: &BlockRows,
    rows: &mut [&mut [u8]],
) -> u64 {
    depth_block_body::<LT, EQ, GT>(fd, b, rows)
}

/// [`depth_block`]'s body, inlined into each instance.
#[inline(always)]
fn depth_block_body<const LT: bool, const EQ: bool, const GT: bool>(
    fd: &FloatDepth,
    b: &BlockRows,
    rows: &mut [&mut [u8]],
) -> u64 {
    let adjust = fd.clamp.is_some() || b.z_offset != 0.0;
    let range = fd.clamp.unwrap_or((f32::NEG_INFINITY, f32::INFINITY));
    match (adjust, fd.write) {
        (false, true) => b.test::<LT, EQ, GT, false, true>(range, rows),
        (false, false) => b.test::<LT, EQ, GT, false, false>(range, rows),
        (true, true) => b.test::<LT, EQ, GT, true, true>(range, rows),
        (true, false) => b.test::<LT, EQ, GT, true, false>(range, rows),
    }
}

/// A block for [`depth_block`]: primitive plane `pl` (+ `z_offset`), the block at (bx, by),
/// its covered pixels `cov` (a block mask), the byte `lx0` its texels start at in each row.
pub(super) struct BlockRows<'p> {
    pub pl: &'p Plane,
    pub z_offset: f64,
    pub bx: i32,
    pub by: i32,
    pub cov: u64,
    pub lx0: usize,
}

impl BlockRows<'_> {
    /// `ADJUST`: a depth clamp range (`lo..=hi`, else infinite, which changes nothing) or a
    /// depth bias (added even when zero: that too changes nothing the quantization keeps).
    #[inline(always)]
    fn test<
        const LT: bool,
        const EQ: bool,
        const GT: bool,
        const ADJUST: bool,
        const WRITE: bool,
    >(
        &self,
        (lo, hi): (f32, f32),
        rows: &mut [&mut [u8]],
    ) -> u64 {
        let pl = self.pl;
        let ax = |j: i32| pl.a + pl.dx * (((self.bx + 2 * j) as f64 + 0.5) - pl.x0);
        // lane 0 of quads 0, 1 and of quads 2, 3, less the y term
        let ax = [f64x2::new([ax(0), ax(1)]), f64x2::new([ax(2), ax(3)])];
        let c = Consts {
            dx: f64x2::splat(pl.dx),
            dy: f64x2::splat(pl.dy),
            zo: f64x2::splat(self.z_offset),
            lo: f32x4::splat(lo),
            hi: f32x4::splat(hi),
        };
        let rows: &mut [&mut [u8]; 8] = rows.try_into().expect("a block has eight rows");
        let mut pass = 0u64;
        if self.cov == u64::MAX {
            // a fully covered block (most of the depth scene's): four full rows, unrolled
            for r in 0..4u32 {
                let qy = self.by + 2 * r as i32;
                let y = f64x2::splat(pl.dy * ((qy as f64 + 0.5) - pl.y0));
                let (upper, lower) = row_pair(rows, r, self.lx0);
                let ok = row::<LT, EQ, GT, ADJUST, WRITE, true>(&c, ax, y, upper, lower, 0);
                pass |= (ok as u64) << (QROW * r);
            }
            return pass;
        }
        // quad rows with a covered lane
        let mut todo = (0..4).fold(0u32, |m, r| {
            m | (((self.cov >> (QROW * r)) & 0xffff != 0) as u32) << r
        });
        while todo != 0 {
            let r = todo.trailing_zeros();
            todo &= todo - 1;
            let c16 = (self.cov >> (QROW * r)) as u32 & 0xffff;
            let qy = self.by + 2 * r as i32;
            let y = f64x2::splat(pl.dy * ((qy as f64 + 0.5) - pl.y0));
            let (upper, lower) = row_pair(rows, r, self.lx0);
            // a fully covered quad row (most of them) needs no lane masks
            let ok = if c16 == 0xffff {
                row::<LT, EQ, GT, ADJUST, WRITE, true>(&c, ax, y, upper, lower, 0)
            } else {
                row::<LT, EQ, GT, ADJUST, WRITE, false>(&c, ax, y, upper, lower, c16)
            };
            pass |= (ok as u64) << (QROW * r);
        }
        pass
    }
}

/// The 32 bytes from `lx0` on of the two depth rows of quad row `r`.
#[inline(always)]
fn row_pair<'r>(
    rows: &'r mut [&mut [u8]; 8],
    r: u32,
    lx0: usize,
) -> (&'r mut [u8; 32], &'r mut [u8; 32]) {
    let [upper, lower] = &mut rows[2 * r as usize..2 * r as usize + 2] else {
        unreachable!("two rows");
    };
    (
        (&mut upper[lx0..lx0 + 32]).try_into().unwrap(),
        (&mut lower[lx0..lx0 + 32]).try_into().unwrap(),
    )
}

/// [`depth_block`]'s per-block constants.
struct Consts {
    dx: f64x2,
    dy: f64x2,
    zo: f64x2,
    lo: f32x4,
    hi: f32x4,
}

/// One quad row of [`depth_block`]: `ax` lane 0 of its quads less the y term `y`, its two
/// depth rows' 32 bytes, its covered lanes `c16` (quad order; all when `FULL`); the lanes
/// that pass, in quad order.
#[inline(always)]
fn row<
    const LT: bool,
    const EQ: bool,
    const GT: bool,
    const ADJUST: bool,
    const WRITE: bool,
    const FULL: bool,
>(
    c: &Consts,
    ax: [f64x2; 2],
    y: f64x2,
    upper: &mut [u8; 32],
    lower: &mut [u8; 32],
    c16: u32,
) -> u32 {
    let covered = i32x4::splat(c16 as i32);
    let mut ok = [i32x4::ZERO; 4];
    for h in 0..2 {
        // lanes 0..3 of quads 2h and 2h + 1
        let l0 = ax[h] + y;
        let l1 = l0 + c.dx;
        let (l2, l3) = (l0 + c.dy, l1 + c.dy);
        let [l0, l1, l2, l3] = if ADJUST {
            [l0 + c.zo, l1 + c.zo, l2 + c.zo, l3 + c.zo]
        } else {
            [l0, l1, l2, l3]
        };
        // texels 4h..4h + 4 of the upper and of the lower row
        let (zt, zb) = (pixels(l0, l1), pixels(l2, l3));
        let t: &mut [u8; 16] = (&mut upper[16 * h..16 * h + 16]).try_into().unwrap();
        let b: &mut [u8; 16] = (&mut lower[16 * h..16 * h + 16]).try_into().unwrap();
        let (ct, cb) = if FULL {
            (i32x4::splat(-1), i32x4::splat(-1))
        } else {
            (
                (covered & TOP[h]).simd_eq(TOP[h]),
                (covered & BOTTOM[h]).simd_eq(BOTTOM[h]),
            )
        };
        ok[2 * h] = test4::<LT, EQ, GT, ADJUST, WRITE, FULL>(zt, c, t, ct);
        ok[2 * h + 1] = test4::<LT, EQ, GT, ADJUST, WRITE, FULL>(zb, c, b, cb);
    }
    quad_order(ok)
}

/// The c16 bits (quad-row lanes, quad order) of the four texels of group `h` of a row
/// pair's upper row: lanes 0 and 1 of quads 2h and 2h + 1.
const TOP: [i32x4; 2] = [
    i32x4::new([1 << 0, 1 << 1, 1 << 4, 1 << 5]),
    i32x4::new([1 << 8, 1 << 9, 1 << 12, 1 << 13]),
];
/// The same for the lower row: lanes 2 and 3.
const BOTTOM: [i32x4; 2] = [
    i32x4::new([1 << 2, 1 << 3, 1 << 6, 1 << 7]),
    i32x4::new([1 << 10, 1 << 11, 1 << 14, 1 << 15]),
];

/// Texel order `a[0] b[0] a[1] b[1]` of the lanes `a` (lane 0 or 2 of two quads) and `b`
/// (lane 1 or 3), converted to f32: two conversions and one interleave.
#[inline(always)]
fn pixels(a: f64x2, b: f64x2) -> f32x4 {
    let (a, b) = (a.to_array(), b.to_array());
    let a = f32x4::new([a[0] as f32, a[1] as f32, 0.0, 0.0]);
    let b = f32x4::new([b[0] as f32, b[1] as f32, 0.0, 0.0]);
    a.unpack_lo(b)
}

/// The 16 lane masks of a quad row (`ok[2h]`: texels 4h..4h + 4 of the upper row, `ok[2h + 1]`
/// of the lower row) as 16 bits in quad order: packed to bytes (the four groups' lanes in
/// order) and moved out in one movemask, then each byte's middle bit pairs swapped (upper
/// lanes 2, 3 are the next quad's lanes 0, 1; lower lanes 0, 1 this quad's lanes 2, 3).
#[inline(always)]
fn quad_order(ok: [i32x4; 4]) -> u32 {
    let [t0, b0, t1, b1] = ok;
    let h0 = i16x8::from_i32x8_saturate(cast([t0, b0]));
    let h1 = i16x8::from_i32x8_saturate(cast([t1, b1]));
    let m = i8x16::from_i16x16_saturate(cast([h0, h1])).to_bitmask();
    let t = ((m >> 2) ^ m) & 0x0c0c;
    m ^ t ^ (t << 2)
}

/// One group of four texels of [`depth_block`]: depths `z` (unclamped; clamped to
/// `c.lo..=c.hi` when `ADJUST`), the texels' 16 bytes, the covered lanes' masks (all when
/// `FULL`); the masks of the lanes that pass, the texels written when `WRITE`.
#[inline(always)]
fn test4<
    const LT: bool,
    const EQ: bool,
    const GT: bool,
    const ADJUST: bool,
    const WRITE: bool,
    const FULL: bool,
>(
    z: f32x4,
    c: &Consts,
    texels: &mut [u8; 16],
    covered: i32x4,
) -> i32x4 {
    let z = if ADJUST {
        // `f32::clamp`: NaN stays NaN (and the quantization makes it 0)
        let z = z.simd_lt(c.lo).select(c.lo, z);
        z.simd_gt(c.hi).select(c.hi, z)
    } else {
        z
    };
    // z > 0 ? z : +0 (NaN and -0 to +0), then min(.., 1) of a non-NaN value: SSE's `maxps`
    // is exactly the first (`a > b ? a : b`), elsewhere a compare and a mask
    #[cfg(target_feature = "sse")]
    let z = z.fast_max(f32x4::ZERO);
    #[cfg(not(target_feature = "sse"))]
    let z = z.simd_gt(f32x4::ZERO) & z;
    let q: i32x4 = cast(z.fast_min(f32x4::ONE));
    let word = |k: usize| {
        i32::from_le_bytes([
            texels[4 * k],
            texels[4 * k + 1],
            texels[4 * k + 2],
            texels[4 * k + 3],
        ])
    };
    let s = i32x4::new([word(0), word(1), word(2), word(3)]);
    let pass = match (LT, EQ, GT) {
        (true, false, false) => s.simd_gt(q),
        (false, false, true) => q.simd_gt(s),
        (false, true, false) => q.simd_eq(s),
        (true, true, false) => !q.simd_gt(s),
        (false, true, true) => !s.simd_gt(q),
        (true, false, true) => !q.simd_eq(s),
        (true, true, true) => i32x4::splat(-1),
        (false, false, false) => i32x4::ZERO,
    };
    let ok = if FULL { pass } else { pass & covered };
    if WRITE {
        let new = ok.select(q, s).to_array();
        for (t, v) in texels.chunks_exact_mut(4).zip(new) {
            t.copy_from_slice(&v.to_le_bytes());
        }
    }
    ok
}

/// A quad's depth per lane, unclamped, in f32: the depth plane plus the primitive's depth bias.
#[inline]
pub(super) fn quad_depth(q: &Quad) -> [f32; 4] {
    quad_values(&q.p.z, q).map(|z| (z + q.p.z_offset) as f32)
}
