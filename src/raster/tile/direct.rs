//! Pass-through shading: a fragment stage whose row form runs nothing (`color = v`) leaves
//! the batch nothing to do but carry the interpolated input to the colour conversion, so for
//! such a stage the tile walk writes each block's surviving pixels straight into the colour
//! attachment: interpolation, conversion and the write in one pass, no batch.
//!
//! Principles:
//! - **Only when it cannot be told apart.** The stage must say its row form passes its
//!   inputs through (`FragmentStage::rows_pass_through`: never fails, kills nothing, writes no
//!   depth, changes no input or colour row), every attachment must be a plain RGBA8 unorm one
//!   whose four colour rows are exactly the rows of one interpolated (smooth or
//!   noperspective) input location that no other input names. Then what the batch path
//!   writes for a pixel is that location's interpolation converted by `unorm8`, and nothing
//!   else the batch did is visible: early tests already ran at submission, and a stage that
//!   runs nothing sees no batch composition, helper lanes or built-ins.
//! - **The same bits.** A pixel's value is a function of its primitive and position only:
//!   the primitive's planes are combined exactly as `shade::build_input` combines them, and
//!   each lane is the interpolation kernels' expression (`(a + dx * sx) + dy * sy` at the
//!   quad's lane 0, `+ dx`, `+ dy` steps to the other lanes, times the lane's reciprocal of
//!   the denominator, 1 where that is 0, rounded to f32), then `unorm8` (the AVX2 kernel
//!   by its fast steps, and a block again by the exact ones when those cannot round a
//!   value: `format::unorm8`). Tests hold the block kernels to the per-lane expressions and
//!   whole draws to the batch path, byte for byte.
//! - **Four quads a vector.** The AVX2 kernel takes a block's quad row at a time with the
//!   four quads' lane `k` in one f64x4 (where the batch kernel had one quad's four lanes):
//!   the x part of every plane (`a + dx * sx`) is made once per block, each lane of four
//!   quads is one add from lane 0, a pixel row is converted only when it has a covered
//!   pixel, as the f32 results of lanes 0 and 1 (2 and 3) side by side (its even pixels,
//!   then its odd ones), and its RGBA bytes are the i32 components' saturating packs, one
//!   byte shuffle and one permute into framebuffer order: one 32-byte store (masked by the
//!   block's coverage when the row is not whole). Blocks the tile cuts (odd framebuffer
//!   sizes) and CPUs without AVX2 take the portable per-quad form.
//!
//! Why: through a batch, a pass-through quad pays per-batch and per-quad bookkeeping that is
//! larger than the work itself; written directly, a quad costs about 65 instructions
//! (callgrind, the depth frame of `benches/raster_scenes.rs`), partly covered quad rows
//! included. A stage that samples or computes anything keeps the batch.

use super::*;

/// A colour attachment written straight from one input location (see the module doc).
#[derive(Clone, Copy, Debug)]
pub(super) struct DirectAtt {
    pub att: usize,
    pub loc: usize,
    /// Smooth (perspective-correct); else noperspective.
    pub smooth: bool,
}

/// One attachment's colour planes for the current primitive: the four components'
/// numerators and the denominator as `build_input` combines them, and the primitive's origin.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct ColorPlanes {
    pub num: [Plane; 4],
    pub den: Plane,
    pub x0: f64,
    pub y0: f64,
}

/// The direct plan of a draw, if it has one: per colour attachment, the location it copies.
pub(super) fn plan(
    scene: &Scene,
    layout: &RowLayout,
    layout_ok: bool,
    atts: &[Attachment],
    early: bool,
) -> Option<Vec<DirectAtt>> {
    if !layout_ok || !early || !scene.fs.rows_pass_through() {
        return None;
    }
    let modes = scene.fs.interpolation();
    atts.iter()
        .enumerate()
        .map(|(a, &(codec, att, _))| {
            let plain = !att.blend_enable && att.write_mask & 0xf == 0xf;
            if !plain || codec.format != Format::R8G8B8A8_UNORM {
                return None;
            }
            let words = layout.colors.get(a)?;
            if words.iter().any(Option::is_none) {
                return None;
            }
            // exactly one input entry names these rows, and it names them all, in order
            let mut naming = layout
                .inputs
                .iter()
                .filter(|(_, w)| w.iter().any(|r| r.is_some() && words.contains(r)));
            let &(loc, w) = naming.next()?;
            if naming.next().is_some() || w != *words {
                return None;
            }
            let loc = loc as usize;
            let smooth = match modes.get(loc) {
                _ if loc >= scene.n_vary => return None,
                Some(Interpolation::Smooth) => true,
                Some(Interpolation::NoPerspective) => false,
                _ => return None,
            };
            Some(DirectAtt {
                att: a,
                loc,
                smooth,
            })
        })
        .collect()
}

/// Attachment `d`'s colour planes for primitive `p`: `build_input`'s combination, term for
/// term.
pub(super) fn planes(scene: &Scene, p: &RasterPrim, d: &DirectAtt) -> ColorPlanes {
    let nv = p.info.n_verts as usize;
    let bw = &p.bw[..nv];
    let scales = [[1.0; 3], p.info.orig_w];
    let scale = &scales[!d.smooth as usize];
    let den = Plane::combine(bw, |j| scale[j]);
    let var = |j: usize| scene.varyings[p.info.slots[j] as usize * scene.n_vary + d.loc];
    let vs: [[u32; 4]; 3] = std::array::from_fn(|j| if j < nv { var(j) } else { [0; 4] });
    let num_c = |c: usize| Plane::combine(bw, |j| scale[j] * f32::from_bits(vs[j][c]) as f64);
    ColorPlanes {
        num: [num_c(0), num_c(1), num_c(2), num_c(3)],
        den,
        x0: bw[0].x0,
        y0: bw[0].y0,
    }
}

/// The pixels `cov` (a block mask) of the block at (bx, by) into an RGBA8 attachment's tile
/// rows (`rows`, the tile's; `(rx, ry)` its origin), from planes `pl`. `inside`: the block
/// lies wholly in the tile, so its eight rows and 32 bytes of each exist (the AVX2 kernel's
/// condition).
#[inline]
pub(super) fn write_block(
    pl: &ColorPlanes,
    (bx, by): (i32, i32),
    cov: u64,
    rows: &mut [&mut [u8]],
    (rx, ry): (i32, i32),
    inside: bool,
) {
    #[cfg(target_arch = "x86_64")]
    if inside && crate::cpu::avx2() {
        let (lx0, ly0) = ((bx - rx) as usize * 4, (by - ry) as usize);
        if let Some(Ok(block)) = rows.get_mut(ly0..ly0 + 8).map(<&mut [_; 8]>::try_from) {
            // SAFETY: the CPU has AVX2 (`cpu::avx2()` is true only then)
            unsafe {
                if block_rgba8_avx2::<false>(pl, (bx, by), cov, block, lx0) {
                    block_rgba8_avx2::<true>(pl, (bx, by), cov, block, lx0);
                }
            }
            return;
        }
    }
    let _ = inside;
    block_rgba8(pl, (bx, by), cov, rows, (rx, ry));
}

/// [`write_block`]'s portable form: quad by quad, per lane the interpolation kernels'
/// expression ([`quad_values`]' steps of numerator and denominator), `unorm8`, and the
/// covered pixels' four bytes. Out of line, so that its set-up is not part of every AVX2
/// block's dispatch.
#[inline(never)]
pub(super) fn block_rgba8(
    pl: &ColorPlanes,
    (bx, by): (i32, i32),
    cov: u64,
    rows: &mut [&mut [u8]],
    (rx, ry): (i32, i32),
) {
    let mut quads = cover::quads(cov);
    while quads != 0 {
        let k = quads.trailing_zeros();
        quads &= quads - 1;
        let mask = (cov >> (4 * k)) as u8 & 0xf;
        let (qx, qy) = (bx + 2 * (k & 3) as i32, by + 2 * (k >> 2) as i32);
        let at = |p: &Plane| {
            let v = p.a + p.dx * ((qx as f64 + 0.5) - pl.x0) + p.dy * ((qy as f64 + 0.5) - pl.y0);
            [v, v + p.dx, v + p.dy, v + p.dx + p.dy]
        };
        let inv = at(&pl.den).map(|d| if d == 0.0 { 1.0 } else { 1.0 / d });
        let v = pl.num.map(|n| at(&n));
        for l in 0..4usize {
            if mask & (1 << l) == 0 {
                continue;
            }
            let px = v.map(|v| unorm8((v[l] * inv[l]) as f32));
            let (lx, ly) = ((qx - rx) as usize + (l & 1), (qy - ry) as usize + (l >> 1));
            rows[ly][lx * 4..lx * 4 + 4].copy_from_slice(&px);
        }
    }
}

/// [`write_block`] with AVX2, for a block inside the tile: `rows` its eight pixel rows, its
/// pixels from byte `lx0` of each. Per pixel row with a covered pixel: the four quads' two
/// lanes in that row of the denominator and of each component as f64x4s (the same
/// operations per lane as the batch kernel `interpolate_avx2`, see the module doc), rounded
/// to f32, converted by [`unorm8_x8_avx2`]'s steps (the even pixels then the odd ones) and
/// made RGBA8 pixels (`shade::rgba8_pixels_avx2`, then one permute into their order); the
/// row is one 32-byte store, masked to the covered pixels unless all eight are.
/// Returns whether the fast steps met a value they cannot round: the caller then writes the
/// block again with `EXACT`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn block_rgba8_avx2<const EXACT: bool>(
    pl: &ColorPlanes,
    (bx, by): (i32, i32),
    cov: u64,
    rows: &mut [&mut [u8]; 8],
    lx0: usize,
) -> bool {
    use std::arch::x86_64::*;
    let set = _mm256_set1_pd;
    let xs = |k: i32| (bx + 2 * k) as f64 + 0.5;
    let sx = _mm256_sub_pd(_mm256_setr_pd(xs(0), xs(1), xs(2), xs(3)), set(pl.x0));
    // `a + dx * sx` of the quad row's four quads, per plane: the y term is added per row
    let ax = |p: &Plane| _mm256_add_pd(set(p.a), _mm256_mul_pd(set(p.dx), sx));
    let (den, num) = (&pl.den, &pl.num);
    let den_x = ax(den);
    let num_x = [ax(&num[0]), ax(&num[1]), ax(&num[2]), ax(&num[3])];
    let (zero, one) = (_mm256_setzero_pd(), _mm256_set1_pd(1.0));
    let recip = |d: __m256d| {
        _mm256_blendv_pd(
            _mm256_div_pd(one, d),
            one,
            _mm256_cmp_pd::<_CMP_EQ_OQ>(d, zero),
        )
    };
    // the covered-pixel bits (quad-row order) of the upper and the lower pixel row's pixels
    let up_bits = _mm256_setr_epi32(1, 2, 1 << 4, 1 << 5, 1 << 8, 1 << 9, 1 << 12, 1 << 13);
    let low_bits = _mm256_slli_epi32::<2>(up_bits);
    let span = lx0..lx0 + 32;
    let even_odd = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    let mut worst = _mm256_setzero_ps();
    // per quad row: its 16 coverage bits and its y (few loop variables: with more, they
    // were remade after every row)
    let c16s: [u32; 4] = std::array::from_fn(|r| (cov >> (16 * r)) as u32 & 0xffff);
    let sys: [f64; 4] = std::array::from_fn(|r| ((by + 2 * r as i32) as f64 + 0.5) - pl.y0);
    let pairs = rows.as_chunks_mut::<2>().0;
    for ((&c16, &sy), [top, bottom]) in c16s.iter().zip(&sys).zip(pairs) {
        if c16 == 0 {
            continue;
        }
        let cover = _mm256_set1_epi32(c16 as i32);
        // A pixel row whose pixels are covered (lanes 0 and 1 of the four quads, or lanes 2
        // and 3), written out for each: a loop over the two kept its values on the stack.
        macro_rules! pixel_row {
            ($lower:literal, $row:expr, $bits:expr, $all:literal) => {
                let c = c16 & $all;
                if c != 0 {
                    // a plane's two lanes in this row of the four quads from its `a + dx *
                    // sx` (`x`), stepped as the batch kernel steps: lane 1 = lane 0 + dx,
                    // lane 2 = lane 0 + dy, lane 3 = lane 1 + dy
                    let lanes = |x: __m256d, p: &Plane| {
                        let l0 = _mm256_add_pd(x, set(p.dy * sy));
                        let l1 = _mm256_add_pd(l0, set(p.dx));
                        match $lower {
                            false => (l0, l1),
                            true => (_mm256_add_pd(l0, set(p.dy)), _mm256_add_pd(l1, set(p.dy))),
                        }
                    };
                    let (da, db) = lanes(den_x, den);
                    let (ia, ib) = (recip(da), recip(db));
                    // component c of the row as i32: the even pixels (the quads' left
                    // lanes), then the odd ones
                    let mut comp = |c: usize| {
                        let (va, vb) = lanes(num_x[c], &num[c]);
                        let a = _mm256_cvtpd_ps(_mm256_mul_pd(va, ia));
                        let b = _mm256_cvtpd_ps(_mm256_mul_pd(vb, ib));
                        unorm8_x8_avx2::<EXACT>(_mm256_set_m128(b, a), &mut worst)
                    };
                    let px = super::shade::rgba8_pixels_avx2(comp(0), comp(1), comp(2), comp(3));
                    // pixels 0 2 4 6 | 1 3 5 7 into their order
                    let px = _mm256_permutevar8x32_epi32(px, even_odd);
                    let dst: &mut [u8; 32] = (&mut $row[span.clone()]).try_into().unwrap();
                    let dst = dst.as_mut_ptr();
                    if c == $all {
                        // SAFETY: `dst` points at 32 writable bytes (the array above);
                        // unaligned store
                        unsafe { _mm256_storeu_si256(dst.cast(), px) };
                    } else {
                        let mask = _mm256_cmpeq_epi32(_mm256_and_si256(cover, $bits), $bits);
                        // SAFETY: as above; the masked store writes only within those 32
                        // bytes and needs no alignment
                        unsafe { _mm256_maskstore_epi32(dst.cast(), mask, px) };
                    }
                }
            };
        }
        pixel_row!(false, top, up_bits, 0x3333);
        pixel_row!(true, bottom, low_bits, 0xcccc);
    }
    !EXACT && unorm8_redo_avx2(worst)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plane of random size, sometimes a special one (zero, -0, huge, NaN).
    fn plane(r: &mut fastrand::Rng, x0: f64, y0: f64, scale: f64) -> Plane {
        let mut v = |s: f64| match (r.f64() * 16.0) as u32 {
            0 => 0.0,
            1 => -0.0,
            2 => 1e300 * (r.f64() - 0.5),
            3 if r.f64() < 0.2 => f64::NAN,
            _ => (r.f64() - 0.3) * s,
        };
        Plane {
            x0,
            y0,
            a: v(1.5),
            dx: v(scale),
            dy: v(scale),
        }
    }

    /// Both block kernels against the per-lane expressions of the batch path, written here
    /// from `Plane::at` at each quad's lane 0 stepped to the lane (the interpolation test's
    /// reference) and `unorm8`: random planes (zero, special and out-of-range values
    /// included), random, full, empty and half coverage; uncovered bytes stay as they were.
    #[test]
    fn block_kernels_match_the_per_lane_expressions() {
        let mut r = fastrand::Rng::with_seed(3);
        #[cfg(target_arch = "x86_64")]
        let avx2 = std::is_x86_feature_detected!("avx2");
        for case in 0..4000 {
            let (x0, y0) = (r.f64() * 200.0, r.f64() * 200.0);
            let scale = [1e-2, 1e-3, 1.0][case % 3];
            let den = match case % 9 {
                0 => Plane::constant(0.0),
                1 => Plane::constant(1.0),
                _ => {
                    let mut d = plane(&mut r, x0, y0, scale);
                    d.a = d.a.abs() + 0.5;
                    d
                }
            };
            let mut pl = ColorPlanes {
                num: std::array::from_fn(|_| plane(&mut r, x0, y0, scale)),
                den,
                x0,
                y0,
            };
            if case % 11 == 0 {
                // flat colours at the f32 values nearest a half-way point (k + 0.5) / 255,
                // whose f32 products with 255 can land on it: the exact steps' cases
                pl.den = Plane::constant(1.0);
                for n in &mut pl.num {
                    let k = (r.f64() * 255.0) as u32 as f64;
                    let mid = ((k + 0.5) / 255.0) as f32;
                    let b = (mid.to_bits() as i32 + r.i32(-2..=2)) as u32;
                    *n = Plane::constant(f32::from_bits(b) as f64);
                }
            }
            let (bx, by) = (8 * (r.f64() * 4.0) as i32, 8 * (r.f64() * 4.0) as i32);
            let cov = match case % 5 {
                0 => u64::MAX,
                1 => 0,
                2 => 0x0000_ffff_ffff_0000,
                _ => r.u64(..),
            };
            // a 40x40 tile at (rx, ry), pre-filled
            let (rx, ry) = (0, 0);
            let start: Vec<Vec<u8>> = (0..40)
                .map(|y| (0..160).map(|x| (x * 7 + y * 3) as u8).collect())
                .collect();
            let mut want = start.clone();
            for py in 0..8 {
                for px in 0..8 {
                    if cov >> cover::bit(px as u32, py as u32) & 1 == 0 {
                        continue;
                    }
                    let (qx, qy) = ((bx + px) & !1, (by + py) & !1);
                    let lane = |p: &Plane| {
                        let v = p.at(qx as f64 + 0.5, qy as f64 + 0.5);
                        match (px & 1, py & 1) {
                            (0, 0) => v,
                            (1, 0) => v + p.dx,
                            (0, _) => v + p.dy,
                            _ => v + p.dx + p.dy,
                        }
                    };
                    let d = lane(&pl.den);
                    let inv = if d == 0.0 { 1.0 } else { 1.0 / d };
                    let (x, y) = ((bx + px) as usize, (by + py) as usize);
                    for c in 0..4 {
                        want[y][4 * x + c] = unorm8((lane(&pl.num[c]) * inv) as f32);
                    }
                }
            }
            let mut got = start.clone();
            let mut rows: Vec<&mut [u8]> = got.iter_mut().map(|r| &mut r[..]).collect();
            block_rgba8(&pl, (bx, by), cov, &mut rows, (rx, ry));
            assert_eq!(got, want, "case {case}: portable");
            #[cfg(target_arch = "x86_64")]
            if avx2 {
                let mut got = start.clone();
                let mut rows: Vec<&mut [u8]> = got.iter_mut().map(|r| &mut r[..]).collect();
                let block: &mut [_; 8] = (&mut rows[by as usize..by as usize + 8])
                    .try_into()
                    .unwrap();
                let at = (bx, by);
                // SAFETY: the CPU has AVX2 (detected above)
                unsafe {
                    if block_rgba8_avx2::<false>(&pl, at, cov, block, bx as usize * 4) {
                        block_rgba8_avx2::<true>(&pl, at, cov, block, bx as usize * 4);
                    }
                }
                assert_eq!(got, want, "case {case}: avx2");
                // and the exact steps alone
                let mut got = start.clone();
                let mut rows: Vec<&mut [u8]> = got.iter_mut().map(|r| &mut r[..]).collect();
                let block: &mut [_; 8] = (&mut rows[by as usize..by as usize + 8])
                    .try_into()
                    .unwrap();
                // SAFETY: as above
                unsafe { block_rgba8_avx2::<true>(&pl, at, cov, block, bx as usize * 4) };
                assert_eq!(got, want, "case {case}: avx2, exact steps");
            }
        }
    }
}
