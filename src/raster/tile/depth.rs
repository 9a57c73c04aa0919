//! The per-fragment depth/stencil tests of the tile walk: the early test of a submitted quad
//! (inlined whole-quad float path, the rest out of line), the per-lane tests, and the float
//! depth-only fast forms (a quad's two row pieces, a block row of four quads) with the
//! compare state hoisted out of the lanes. See the parent module's doc for the measured reasons.

use super::*;

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
            let q = format.quantize(z);
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
    /// `depth_only` path of a unorm format (float formats take [`float_quad`]): what
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
            let q = format.quantize(z);
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

/// Texels in a row of a block.
pub(super) const ROW: usize = BLOCK as usize;

/// The early depth test (and write) of a row of `ROW / 2` whole quads, the first at (qx, qy),
/// on a float depth format: `top` and `bottom` are the two `ROW`-texel depth row pieces they
/// cover. Returns each quad's surviving lanes and its unclamped depths, exactly what
/// [`quad_depth`] and [`float_quad`] give quad by quad: the depth plane is
/// evaluated at each quad's lane 0 (the same expression as `Plane::at`) and stepped to its
/// other lanes; a bottom lane is its top lane plus `dy` in both. Straight loops over the
/// row's lanes, no per-quad slicing or dispatch.
#[inline]
pub(super) fn depth_row(
    fd: &FloatDepth,
    pl: &Plane,
    z_offset: f64,
    qx: i32,
    qy: i32,
    top: &mut [u8],
    bottom: &mut [u8],
) -> ([u8; ROW / 2], [[f32; 4]; ROW / 2]) {
    let y = pl.dy * ((qy as f64 + 0.5) - pl.y0);
    let mut t = [0f64; ROW];
    for j in 0..ROW / 2 {
        let v = pl.a + pl.dx * (((qx + 2 * j as i32) as f64 + 0.5) - pl.x0) + y;
        t[2 * j] = v;
        t[2 * j + 1] = v + pl.dx;
    }
    let b = t.map(|v| v + pl.dy);
    let zt = t.map(|v| (v + z_offset) as f32);
    let zb = b.map(|v| (v + z_offset) as f32);
    let ok_t = test_row(fd, zt, top);
    let ok_b = test_row(fd, zb, bottom);
    let masks = std::array::from_fn(|j| {
        (ok_t[2 * j] | ok_t[2 * j + 1] << 1 | ok_b[2 * j] << 2 | ok_b[2 * j + 1] << 3) as u8
    });
    let zs = std::array::from_fn(|j| [zt[2 * j], zt[2 * j + 1], zb[2 * j], zb[2 * j + 1]]);
    (masks, zs)
}

/// [`float_quad`]'s test over one `ROW`-texel depth row piece: 1 where the
/// (clamped, quantized) depth passes, and the passing depths written if writes are on.
#[inline(always)]
pub(super) fn test_row(fd: &FloatDepth, z: [f32; ROW], row: &mut [u8]) -> [u32; ROW] {
    let z = match fd.clamp {
        Some((lo, hi)) => z.map(|z| z.clamp(lo, hi)),
        None => z,
    };
    let row: &mut [u8; 4 * ROW] = row.try_into().expect("a block row");
    let stored: [u32; ROW] = std::array::from_fn(|k| {
        u32::from_le_bytes([row[4 * k], row[4 * k + 1], row[4 * k + 2], row[4 * k + 3]])
    });
    let (q, ok) = float_depth_test(fd.pass, z, &stored);
    if fd.write {
        for (k, t) in row.chunks_exact_mut(4).enumerate() {
            let v = if ok[k] != 0 { q[k] } else { stored[k] };
            t.copy_from_slice(&v.to_le_bytes());
        }
    }
    ok
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
/// Straight loops over the lanes, shared by the quad (`float_quad`) and block-row
/// (`test_row`) paths.
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

/// A quad's depth per lane, unclamped, in f32: the depth plane plus the primitive's depth bias.
#[inline]
pub(super) fn quad_depth(q: &Quad) -> [f32; 4] {
    quad_values(&q.p.z, q).map(|z| (z + q.p.z_offset) as f32)
}
