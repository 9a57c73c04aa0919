//! Shading a batch: the fragment inputs, the fragment stage run, the post-shader tests for
//! discard and late tests, and the colour writes.
//!
//! Principles:
//! - The batch crosses the stage boundary in row form ([`RowBatch`]): one row of lanes per
//!   interface word, at the rows the stage's [`RowLayout`] names. For the interpreter those
//!   rows are its own per-lane memory, so the inputs are interpolated where the shader loads
//!   them and colours converted from where it stored them (or, for an output that only copies
//!   an input, from the input's row: a pass-through shader then leaves the interpreter nothing
//!   to run): no per-lane vectors, transposes, zero fills or copies at the boundary, and rows
//!   no instruction reads are not filled.
//! - A quad's four lanes of one component are four consecutive words of a row, the shape the
//!   arithmetic wants, so the per-quad kernels are straight SIMD: AVX2 where the CPU has it
//!   (run-time detection, `#[target_feature]` kernels; no FMA, so every operation rounds as
//!   in the portable SSE2 forms, which `wide` gives and which a test holds to the same bits):
//!   - interpolation: each input is a ratio of planes, evaluated in f64 at the quad's lane 0
//!     (`Plane::at`'s expression) and stepped to the other lanes (lane 1 = lane 0 + dx, lane 2
//!     = lane 0 + dy, lane 3 = lane 1 + dy), times the lane's reciprocal of the denominator
//!     (computed in the first location's loop), rounded to f32. The kernels do the same
//!     operations on the same values, in f64x2 pairs or one f64x4 per quad and component
//!     (the extra `+ -0.0` steps change no value), so the bits are those of the per-lane
//!     expressions a test holds them to;
//!   - colour: an RGBA8 unorm attachment without blending converts four quads at a time from
//!     the untransposed rows (`unorm8_rows4`: `format::unorm8`'s fast steps, saturating
//!     packs, then byte interleaves into pixels; the batch again by the exact steps in the
//!     rare case the fast ones cannot round a value), and writes a whole quad as two 8-byte
//!     row pieces, a whole 8x8 block as eight 32-byte ones;
//!   - an attachment of four 32-bit words per texel (RGBA32 float, uint, sint) without
//!     blending takes the words as they are: each quad's four rows transposed to pixels
//!     (shuffles), then the same quad stores as RGBA8's (`write_quads`);
//!   - blending (and partial write masks): the batch's covered texels decoded into rows
//!     (RGBA8 and BGRA8 unorm a quad at a time, `decode_rgba8`) and blended as rows
//!     (`raster::blend_rows`), then encoded, RGBA8 and BGRA8 unorm by the conversion above.
//! - A batch mixes quads of several primitives; the planes are combined once per primitive
//!   run and location.
//!
//! Cost (callgrind, `benches/raster_scenes.rs`, one thread): a vec4 varying's interpolation
//! is about 53 instructions per quad with the AVX2 kernels (the SSE2 two-operand forms spill,
//! which is why both exist), the RGBA8 conversion about 16 and the colour writes about 30
//! (row offsets and length checks); the per-run plane setup comes after.

use super::*;
use crate::stage::RowLayout;
use wide::{f32x4, f64x2, i16x8, i32x4, i32x8, u32x4, u8x16};

/// Lanes of a batch at most.
const LANES: usize = 4 * QUAD_BATCH;

/// Quads of an 8x8 block.
const BLOCK_QUADS: usize = 16;

/// The colour rows of components the layout does not name.
pub(super) static ZERO_ROW: [u32; LANES] = [0; LANES];

impl<'a> TileShader<'a> {
    pub(super) fn flush(&mut self, view: &mut TileView) -> Result<()> {
        self.occupied = [0; (TILE / 2) as usize];
        if let Some(e) = &self.layout_error {
            self.quads.clear();
            return Err(Error::Exec(e.clone()));
        }
        let scene = self.scene;
        let (rx, ry) = (view.rect.x0, view.rect.y0);
        let nq = self.quads.len();
        let lanes = nq * 4;

        // `self.z`: the quads' depths (unclamped: it is also `FragCoord.z`, and Vulkan clamps
        // only the depth that is tested and stored, after the fragment shader); early tests
        // were done as the quads were submitted.
        self.build_input();
        let b = &mut self.batch;
        if scene.fs.writes_depth() {
            b.depth.clear();
            b.depth.extend_from_slice(self.z[..nq].as_flattened());
        } else {
            // read only when the stage writes depth: stale values will do (the copy was a
            // 256-byte memcpy per batch)
            b.depth.resize(lanes, 0.0);
        }
        zeroed(&mut b.killed, nq);
        scene.fs.run_rows(&self.layout, b)?;
        if b.rows.len() != self.layout.rows * lanes
            || b.depth.len() != lanes
            || b.killed.len() != nq
        {
            return Err(Error::Exec(format!(
                "raster/tile/shade.rs: the fragment stage resized its batch (expected {} rows x \
                 {lanes} lanes, {nq} quads)",
                self.layout.rows
            )));
        }

        // Which lanes survive (discard, late tests), then the colour writes attachment by
        // attachment. The batch's quads are at distinct positions, so doing every test before
        // any colour write changes nothing: each pixel still sees its test, then its write.
        let discard = scene.fs.can_discard();
        let writes_depth = scene.fs.writes_depth();
        let late = !self.early && self.tests;
        // Without discard or late tests every quad keeps its mask: no walk over the quads.
        let quads = if discard || late { nq } else { 0 };
        for qi in 0..quads {
            let q = self.quads[qi];
            let mut live = q.mask;
            if discard {
                live &= !self.batch.killed[qi];
            }
            if late {
                let front = q.p.info.front;
                for k in 0..4usize {
                    if live & (1 << k) == 0 {
                        continue;
                    }
                    let lane = qi * 4 + k;
                    let z = self.clamp_z(if writes_depth {
                        self.batch.depth[lane]
                    } else {
                        self.z[qi][k]
                    });
                    let (lx, ly) = (q.x - rx + (k & 1) as i32, q.y - ry + (k >> 1) as i32);
                    if !self.test(view, lx as usize, ly as usize, z, front) {
                        live &= !(1 << k);
                    }
                }
            }
            self.quads[qi].mask = live;
        }
        let rows = &self.batch.rows;
        // The four component rows of an attachment's output (zeros where the layout names
        // none; the layout's rows were checked against its row count when it was made).
        let comps = |words: Option<&[Option<u32>; 4]>| -> [&[u32]; 4] {
            let words = words.unwrap_or(&[None; 4]);
            std::array::from_fn(|c| {
                RowLayout::row(rows, words[c], lanes).unwrap_or(&ZERO_ROW[..lanes])
            })
        };
        for (a, (codec, att, bpp)) in self.atts.iter().enumerate() {
            let (format, bpp) = (codec.format, *bpp);
            let src = comps(self.layout.colors.get(a));
            let view_rows = &mut view.colors[a];
            // What write_color does without blending, minus its dispatch.
            let plain = !att.blend_enable && att.write_mask & 0xf == 0xf;
            if plain && format == Format::R8G8B8A8_UNORM {
                write_rgba8(&self.quads, src, view_rows, (rx, ry), &mut self.rgba8);
                continue;
            }
            if plain && format_is_4x32(format) {
                write_4x32(&self.quads, src, view_rows, (rx, ry));
                continue;
            }
            let src1 = comps(Some(&self.layout.color1));
            if let Some(eq) = &self.blends[a] {
                let src1 = if a == 0 {
                    src1
                } else {
                    [&ZERO_ROW[..lanes]; 4]
                };
                let br = self.blend_rows.get_or_insert_with(BlendRows::new);
                let quads = &self.quads;
                let texels = Texels {
                    codec,
                    bpp,
                    rows: view_rows,
                    origin: (rx, ry),
                };
                blend_quads(quads, eq, src, src1, texels, br, &mut self.rgba8);
                continue;
            }
            for (qi, q) in self.quads.iter().enumerate() {
                let (lx0, ly0) = ((q.x - rx) as usize, (q.y - ry) as usize);
                for k in 0..4usize {
                    if q.mask & (1 << k) == 0 {
                        continue;
                    }
                    let lane = qi * 4 + k;
                    let (lx, ly) = (lx0 + (k & 1), ly0 + (k >> 1));
                    let texel = &mut view_rows[ly][lx * bpp..(lx + 1) * bpp];
                    let v = src.map(|r| r[lane]);
                    if plain {
                        codec.encode_output(v, texel);
                        continue;
                    }
                    let v1 = if a == 0 {
                        src1.map(|r| r[lane])
                    } else {
                        [0; 4]
                    };
                    write_color(codec, att, scene.state.blend_constants, v, v1, texel);
                }
            }
        }
        self.quads.clear();
        Ok(())
    }

    /// Fill `self.batch` for the current quads: coverage, the built-ins the stage reads, and
    /// every input row of the layout. Every array is resized to the batch and then written by
    /// index (the buffers live as long as the tile shader: no allocation after the first
    /// batches).
    fn build_input(&mut self) {
        let scene = self.scene;
        let modes = scene.fs.interpolation();
        let nq = self.quads.len();
        let n = nq * 4;
        let b = &mut self.batch;
        b.quads = nq;
        b.frag_coord.resize(n, [0.0; 4]);
        b.point_coord.resize(n, [0.0; 2]);
        b.coverage.resize(nq, 0);
        b.front_facing.resize(n, false);
        b.primitive_id.resize(n, 0);
        // Stale words are fine: the input rows are written below, the others are the stage's.
        b.rows.resize(self.layout.rows * n, 0);
        for (q, cov) in self.quads.iter().zip(b.coverage.iter_mut()) {
            *cov = q.mask;
        }
        // The built-ins the shader reads, each in one zipped walk over whole quads (no
        // per-lane index arithmetic or bounds checks); the others keep stale values.
        let reads = self.built_ins;
        if reads.frag_coord {
            let per_quad = self
                .quads
                .iter()
                .zip(self.z.iter())
                .zip(b.frag_coord.chunks_exact_mut(4));
            for ((q, z), fc) in per_quad {
                let inv_w = quad_values(&q.p.inv_w, q);
                let (x, y) = (q.x as f32 + 0.5, q.y as f32 + 0.5);
                fc.copy_from_slice(&[
                    [x, y, z[0], inv_w[0] as f32],
                    [x + 1.0, y, z[1], inv_w[1] as f32],
                    [x, y + 1.0, z[2], inv_w[2] as f32],
                    [x + 1.0, y + 1.0, z[3], inv_w[3] as f32],
                ]);
            }
        }
        if reads.point_coord {
            for (q, pc) in self.quads.iter().zip(b.point_coord.chunks_exact_mut(4)) {
                match q.p.point {
                    Some((l, t, s)) => {
                        for (k, pc) in pc.iter_mut().enumerate() {
                            let (x, y) = (lane_x(q, k), lane_y(q, k));
                            *pc = [((x - l) / s) as f32, ((y - t) / s) as f32];
                        }
                    }
                    None => pc.fill([0.0; 2]),
                }
            }
        }
        fill_primitive_built_ins(reads, self.quads.iter().map(|q| q.p), b);
        // Smooth: sum_k v_k (b_k / w) / sum_k (b_k / w), with b the clip-space weights of the
        // original vertices. Noperspective: the same with every term scaled by the original
        // vertex's w, which turns the weights into window-space ones. Both are ratios of
        // planes, so the per-primitive work is combining planes and the per-lane work is one
        // reciprocal of the denominator per mode and one plane step per component.
        let wanted = [
            modes.contains(&Interpolation::Smooth),
            modes.contains(&Interpolation::NoPerspective),
        ];
        let mut start = 0;
        while start < nq {
            let prim = self.quads[start].prim;
            let end = start
                + self.quads[start..]
                    .iter()
                    .take_while(|q| q.prim == prim)
                    .count();
            let p = self.quads[start].p;
            let quads = &self.quads[start..end];
            let nv = p.info.n_verts as usize;
            let bw = &p.bw[..nv];
            let (x0, y0) = (bw[0].x0, bw[0].y0);
            let scales = [[1.0; 3], p.info.orig_w];
            // The denominators; their reciprocals are computed by the first location that
            // needs them (inside its interpolation loop when it takes all four rows).
            let mut den = [Plane::default(); 2];
            let mut inv_done = [true; 2];
            for m in 0..2 {
                if wanted[m] && scene.n_vary != 0 {
                    den[m] = Plane::combine(bw, |j| scales[m][j]);
                    inv_done[m] = false;
                }
            }
            let slots = p.info.slots;
            let lanes = start * 4..end * 4;
            for &(loc, words) in &self.layout.inputs {
                let loc = loc as usize;
                let mode = modes.get(loc).filter(|_| loc < scene.n_vary);
                let var = |j: usize| scene.varyings[slots[j] as usize * scene.n_vary + loc];
                let m = match mode {
                    // locations the vertex stage does not write read as zero
                    None => {
                        fill_rows(&mut b.rows, n, &words, lanes.clone(), [0; 4]);
                        continue;
                    }
                    Some(Interpolation::Flat) => {
                        fill_rows(&mut b.rows, n, &words, lanes.clone(), var(0));
                        continue;
                    }
                    Some(Interpolation::Smooth) => 0,
                    Some(Interpolation::NoPerspective) => 1,
                };
                let scale = &scales[m];
                // Each vertex's varying looked up once; `combine` asks only for the
                // primitive's `nv` vertices.
                let vs: [[u32; 4]; 3] =
                    std::array::from_fn(|j| if j < nv { var(j) } else { [0; 4] });
                // A literal array: `from_fn` here leaves the four `combine` closures out of
                // line.
                let num_c =
                    |c: usize| Plane::combine(bw, |j| scale[j] * f32::from_bits(vs[j][c]) as f64);
                let num: [Plane; 4] = [num_c(0), num_c(1), num_c(2), num_c(3)];
                let inv = &mut self.inv[m][..quads.len()];
                let ranges = words.map(|r| {
                    r.map(|r| r as usize * n)
                        .map(|o| o + lanes.start..o + lanes.end)
                });
                // The present components, when they are the first `k` (the usual vec4, or
                // the `xy` / `xyz` a shader reads of one).
                let k = words.iter().take_while(|w| w.is_some()).count();
                let leading = words[k..].iter().all(Option::is_none);
                let r = |c: usize| ranges[c].clone().unwrap_or_default();
                let rows = &mut b.rows;
                let (inv_m, den_m) = (inv, &den[m]);
                let fused = !inv_done[m];
                // `k` consecutive rows are cut from one block of them (no overlap checks, as
                // `get_disjoint_mut` would make)
                let r0 = words[0].map_or(0, |r| r as usize);
                let consecutive = (0..k).all(|c| words[c] == Some((r0 + c) as u32));
                let done = match (k, leading) {
                    (4, true) => match consecutive {
                        true => cut_rows::<4>(rows, r0, n, &lanes),
                        false => rows.get_disjoint_mut([r(0), r(1), r(2), r(3)]).ok(),
                    }
                    .map(|out| interpolate(&num, den_m, fused, x0, y0, quads, inv_m, out)),
                    (3, true) => match consecutive {
                        true => cut_rows::<3>(rows, r0, n, &lanes),
                        false => rows.get_disjoint_mut([r(0), r(1), r(2)]).ok(),
                    }
                    .map(|out| {
                        let num = [num[0], num[1], num[2]];
                        interpolate(&num, den_m, fused, x0, y0, quads, inv_m, out)
                    }),
                    (2, true) => match consecutive {
                        true => cut_rows::<2>(rows, r0, n, &lanes),
                        false => rows.get_disjoint_mut([r(0), r(1)]).ok(),
                    }
                    .map(|out| {
                        let num = [num[0], num[1]];
                        interpolate(&num, den_m, fused, x0, y0, quads, inv_m, out)
                    }),
                    _ => None,
                };
                if done.is_none() {
                    if fused {
                        reciprocals(den_m, x0, y0, quads, inv_m);
                    }
                    // A location the layout splits up otherwise: component by component.
                    for (c, r) in ranges.into_iter().enumerate() {
                        if let Some(out) = r.and_then(|r| rows.get_mut(r)) {
                            interpolate1(&num[c], x0, y0, quads, inv_m, out);
                        }
                    }
                }
                inv_done[m] = true;
            }
            start = end;
        }
    }
}

/// The built-ins the stage `reads` that come from each quad's primitive (`prims`, in batch
/// order): `FrontFacing`, `PrimitiveId`, `Layer` and `ViewportIndex`, the same for a quad's
/// four lanes. Both the pixel and the per-sample paths fill them here.
#[inline(never)]
pub(super) fn fill_primitive_built_ins<'p>(
    reads: FragInputs,
    prims: impl Iterator<Item = &'p RasterPrim> + Clone,
    b: &mut RowBatch,
) {
    if reads.front_facing {
        for (p, ff) in prims.clone().zip(b.front_facing.chunks_exact_mut(4)) {
            ff.fill(p.info.front);
        }
    }
    if reads.primitive_id {
        for (p, pid) in prims.clone().zip(b.primitive_id.chunks_exact_mut(4)) {
            pid.fill(p.info.primitive_id);
        }
    }
    if reads.layer {
        let n = 4 * b.quads;
        b.layer.resize(n, 0);
        b.viewport.resize(n, 0);
        let lanes = b
            .layer
            .chunks_exact_mut(4)
            .zip(b.viewport.chunks_exact_mut(4));
        for (p, (layer, viewport)) in prims.zip(lanes) {
            layer.fill(p.info.layer as u32);
            viewport.fill(p.info.viewport as u32);
        }
    }
}

/// What is wrong with `layout`, if it names a row past its `rows` (the tile shader reports it
/// at the first batch rather than index out of range).
pub(super) fn layout_error(layout: &RowLayout) -> Option<String> {
    let named = layout
        .inputs
        .iter()
        .map(|(_, w)| w)
        .chain(&layout.colors)
        .chain([&layout.color1]);
    let bad = named
        .flatten()
        .flatten()
        .find(|&&r| r as usize >= layout.rows)?;
    Some(format!(
        "raster/tile/shade.rs: the fragment stage's row layout names row {bad} of {} rows",
        layout.rows
    ))
}

/// Rows `r0..r0 + N` (`n` words each) of `rows`, each cut to `lanes` (`None` past the end).
#[inline(always)]
fn cut_rows<'r, const N: usize>(
    rows: &'r mut [u32],
    r0: usize,
    n: usize,
    lanes: &std::ops::Range<usize>,
) -> Option<[&'r mut [u32]; N]> {
    let block = rows.get_mut(r0 * n..(r0 + N) * n)?;
    if n == 0 || lanes.start > lanes.end || lanes.end > n {
        return None;
    }
    let mut it = block.chunks_exact_mut(n);
    let out: [Option<&mut [u32]>; N] =
        std::array::from_fn(|_| it.next().map(|o| &mut o[lanes.clone()]));
    if out.iter().any(Option::is_none) {
        return None;
    }
    Some(out.map(|o| o.unwrap_or_default()))
}

/// `v` into the lanes `lanes` of the rows `words` names.
fn fill_rows(
    rows: &mut [u32],
    n: usize,
    words: &[Option<u32>; 4],
    lanes: std::ops::Range<usize>,
    v: [u32; 4],
) {
    for (c, &r) in words.iter().enumerate() {
        let Some(r) = r else { continue };
        let o = r as usize * n;
        if let Some(row) = rows.get_mut(o + lanes.start..o + lanes.end) {
            row.fill(v[c]);
        }
    }
}

/// Per quad, the reciprocal of the denominator plane `den` at its four lanes (1 where it is
/// 0): lane 0 is `Plane::at`, the others its steps, as [`quad_values`] computes them.
#[inline]
fn reciprocals(den: &Plane, x0: f64, y0: f64, quads: &[Quad], inv: &mut [[f64; 4]]) {
    let step = f64x2::from([-0.0, den.dx]);
    let dy = f64x2::splat(den.dy);
    let (zero, one) = (f64x2::ZERO, f64x2::ONE);
    for (q, inv) in quads.iter().zip(inv) {
        let v = den.a + den.dx * ((q.x as f64 + 0.5) - x0) + den.dy * ((q.y as f64 + 0.5) - y0);
        let d01 = f64x2::splat(v) + step;
        let d23 = d01 + dy;
        let r01 = d01.simd_eq(zero).select(one, one / d01).to_array();
        let r23 = d23.simd_eq(zero).select(one, one / d23).to_array();
        *inv = [r01[0], r01[1], r23[0], r23[1]];
    }
}

/// `N` (2 to 4) components of a location over a primitive run's quads into their rows
/// (`out[c]`: the run's lanes of component `c`'s row): per quad, lane 0 `a + dx * ox + dy *
/// oy` with the quad's offset from the planes' shared origin, the other lanes its steps, each
/// times the lane's reciprocal and rounded to f32. `fused`: the reciprocals of `den` are
/// computed in this loop as [`reciprocals`] does and stored into `inv` (one loop and one
/// offset per quad, not two loops); else read from `inv`.
#[inline]
#[allow(clippy::too_many_arguments)]
fn interpolate<const N: usize>(
    num: &[Plane; N],
    den: &Plane,
    fused: bool,
    x0: f64,
    y0: f64,
    quads: &[Quad],
    inv: &mut [[f64; 4]],
    out: [&mut [u32]; N],
) {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::avx2() {
        {
            // cut here: `array::map` is not inlined into the AVX2 function (~160 instructions
            // per call there)
            let out = out.map(|o| o.as_chunks_mut::<4>().0);
            let nq = out
                .iter()
                .fold(quads.len().min(inv.len()), |n, o| n.min(o.len()));
            let out = out.map(|o| &mut o[..nq]);
            let (quads, inv) = (&quads[..nq], &mut inv[..nq]);
            // SAFETY: the CPU has AVX2 (`cpu::avx2()` is true only then)
            unsafe {
                return if fused {
                    interpolate_avx2::<N, true>(num, den, x0, y0, quads, inv, out)
                } else {
                    interpolate_avx2::<N, false>(num, den, x0, y0, quads, inv, out)
                };
            }
        }
    }
    interpolate_sse2(num, den, fused, x0, y0, quads, inv, out)
}

/// [`interpolate`]'s portable form (SSE2 pairs on x86-64): what runs without AVX2.
#[inline]
#[allow(clippy::too_many_arguments)]
fn interpolate_sse2<const N: usize>(
    num: &[Plane; N],
    den: &Plane,
    fused: bool,
    x0: f64,
    y0: f64,
    quads: &[Quad],
    inv: &mut [[f64; 4]],
    out: [&mut [u32]; N],
) {
    if fused {
        interpolate_n::<N, true>(num, den, x0, y0, quads, inv, out)
    } else {
        interpolate_n::<N, false>(num, den, x0, y0, quads, inv, out)
    }
}

/// [`interpolate_n`] with a quad's four lanes as one f64x4 (AVX2, no FMA: the same operations
/// on the same values). Each lane is `v0 + s1 + s2` with `(s1, s2)` = `(-0, -0)`, `(dx, -0)`,
/// `(-0, dy)`, `(dx, dy)`: the pair form's lanes plus `+ -0.0` terms, which change no value
/// (`x + -0.0` is `x` for every `x`, signed zeros and NaNs included). The reciprocals are one
/// `vdivpd`, the f32 rounding one `vcvtpd2ps` (round to nearest, as `as f32`). `out[c]`: the
/// run's quads of component `c`'s row, as long as `quads` and `inv`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn interpolate_avx2<const N: usize, const RECIP: bool>(
    num: &[Plane; N],
    den: &Plane,
    x0: f64,
    y0: f64,
    quads: &[Quad],
    inv: &mut [[f64; 4]],
    mut out: [&mut [[u32; 4]]; N],
) {
    use std::arch::x86_64::*;
    use wide::bytemuck::cast;
    let v4 = |v: [f64; 4]| cast::<[f64; 4], __m256d>(v);
    let at = |c: usize| num.get(c).copied().unwrap_or_default();
    let (a, dx, dy) = (
        v4([at(0).a, at(1).a, at(2).a, at(3).a]),
        v4([at(0).dx, at(1).dx, at(2).dx, at(3).dx]),
        v4([at(0).dy, at(1).dy, at(2).dy, at(3).dy]),
    );
    let steps = |p: &Plane| (v4([-0.0, p.dx, -0.0, p.dx]), v4([-0.0, -0.0, p.dy, p.dy]));
    let (den_s1, den_s2) = steps(den);
    let s: [(__m256d, __m256d); N] = std::array::from_fn(|c| steps(&num[c]));
    let (zero, one) = (_mm256_setzero_pd(), _mm256_set1_pd(1.0));
    // per quad: the lanes' reciprocals (computed and stored, or read) and lane 0 of every
    // component
    let quad = |q: &Quad, inv: &mut [f64; 4]| {
        let (sx, sy) = ((q.x as f64 + 0.5) - x0, (q.y as f64 + 0.5) - y0);
        let inv4 = if RECIP {
            let d0 = _mm256_set1_pd(den.a + den.dx * sx + den.dy * sy);
            let d = _mm256_add_pd(_mm256_add_pd(d0, den_s1), den_s2);
            let r = _mm256_blendv_pd(
                _mm256_div_pd(one, d),
                one,
                _mm256_cmp_pd::<_CMP_EQ_OQ>(d, zero),
            );
            *inv = cast::<__m256d, [f64; 4]>(r);
            r
        } else {
            v4(*inv)
        };
        let (ox, oy) = (_mm256_set1_pd(sx), _mm256_set1_pd(sy));
        let v0 = _mm256_add_pd(
            _mm256_add_pd(a, _mm256_mul_pd(dx, ox)),
            _mm256_mul_pd(dy, oy),
        );
        (inv4, v0)
    };
    // component `c`'s four lanes from its lane 0 broadcast (`b`)
    let lanes = |b: __m256d, c: usize, inv4: __m256d| {
        let l = _mm256_add_pd(_mm256_add_pd(b, s[c].0), s[c].1);
        cast::<__m128, [u32; 4]>(_mm256_cvtpd_ps(_mm256_mul_pd(l, inv4)))
    };
    // the usual vec4 and vec2 as zipped walks (no per-store length checks: ~14 instructions
    // a quad for four rows), others indexed
    match &mut out[..] {
        [o0, o1, o2, o3] => {
            let walk = quads.iter().zip(inv.iter_mut()).zip(o0.iter_mut());
            let walk = walk
                .zip(o1.iter_mut())
                .zip(o2.iter_mut())
                .zip(o3.iter_mut());
            for (((((q, inv), o0), o1), o2), o3) in walk {
                let (inv4, v0) = quad(q, inv);
                *o0 = lanes(_mm256_permute4x64_pd::<0x00>(v0), 0, inv4);
                *o1 = lanes(_mm256_permute4x64_pd::<0x55>(v0), 1, inv4);
                *o2 = lanes(_mm256_permute4x64_pd::<0xaa>(v0), 2, inv4);
                *o3 = lanes(_mm256_permute4x64_pd::<0xff>(v0), 3, inv4);
            }
        }
        [o0, o1] => {
            let walk = quads.iter().zip(inv.iter_mut()).zip(o0.iter_mut());
            for (((q, inv), o0), o1) in walk.zip(o1.iter_mut()) {
                let (inv4, v0) = quad(q, inv);
                *o0 = lanes(_mm256_permute4x64_pd::<0x00>(v0), 0, inv4);
                *o1 = lanes(_mm256_permute4x64_pd::<0x55>(v0), 1, inv4);
            }
        }
        out => {
            for (i, (q, inv)) in quads.iter().zip(inv.iter_mut()).enumerate() {
                let (inv4, v0) = quad(q, inv);
                for (c, o) in out.iter_mut().enumerate() {
                    let b = match c {
                        0 => _mm256_permute4x64_pd::<0x00>(v0),
                        1 => _mm256_permute4x64_pd::<0x55>(v0),
                        2 => _mm256_permute4x64_pd::<0xaa>(v0),
                        _ => _mm256_permute4x64_pd::<0xff>(v0),
                    };
                    if let Some(o) = o.get_mut(i) {
                        *o = lanes(b, c, inv4);
                    }
                }
            }
        }
    }
}

/// [`interpolate`] with `fused` as a constant.
#[inline]
fn interpolate_n<const N: usize, const RECIP: bool>(
    num: &[Plane; N],
    den: &Plane,
    x0: f64,
    y0: f64,
    quads: &[Quad],
    inv: &mut [[f64; 4]],
    out: [&mut [u32]; N],
) {
    let out = out.map(|o| o.as_chunks_mut::<4>().0);
    let nq = out
        .iter()
        .fold(quads.len().min(inv.len()), |n, o| n.min(o.len()));
    let mut out = out.map(|o| &mut o[..nq]);
    let (quads, inv) = (&quads[..nq], &mut inv[..nq]);
    let (den_step, den_dy) = (f64x2::from([-0.0, den.dx]), f64x2::splat(den.dy));
    let (zero, one) = (f64x2::ZERO, f64x2::ONE);
    // Lane 0 of two components at once (components 2 and 3 only when there are four or three;
    // a missing fourth is a zero plane), then per component its lane pairs (0, 1), (2, 3).
    let at = |c: usize| num.get(c).copied().unwrap_or_default();
    let pair = |f: fn(&Plane) -> f64, c: usize| f64x2::from([f(&at(c)), f(&at(c + 1))]);
    let (a01, a23) = (pair(|p| p.a, 0), pair(|p| p.a, 2));
    let (dx01, dx23) = (pair(|p| p.dx, 0), pair(|p| p.dx, 2));
    let (dy01, dy23) = (pair(|p| p.dy, 0), pair(|p| p.dy, 2));
    let step = [0, 1, 2, 3].map(|c| f64x2::from([-0.0, at(c).dx]));
    let dy = [0, 1, 2, 3].map(|c| f64x2::splat(at(c).dy));
    for i in 0..nq {
        let q = &quads[i];
        let (sx, sy) = ((q.x as f64 + 0.5) - x0, (q.y as f64 + 0.5) - y0);
        let (inv01, inv23) = if RECIP {
            let d01 = f64x2::splat(den.a + den.dx * sx + den.dy * sy) + den_step;
            let d23 = d01 + den_dy;
            let r01 = d01.simd_eq(zero).select(one, one / d01);
            let r23 = d23.simd_eq(zero).select(one, one / d23);
            let (a, b) = (r01.to_array(), r23.to_array());
            inv[i] = [a[0], a[1], b[0], b[1]];
            (r01, r23)
        } else {
            let [i0, i1, i2, i3] = inv[i];
            (f64x2::from([i0, i1]), f64x2::from([i2, i3]))
        };
        let (ox, oy) = (f64x2::splat(sx), f64x2::splat(sy));
        let v01 = (a01 + dx01 * ox + dy01 * oy).to_array();
        let v23 = if N > 2 {
            (a23 + dx23 * ox + dy23 * oy).to_array()
        } else {
            [0.0; 2]
        };
        let v0 = [v01[0], v01[1], v23[0], v23[1]];
        for (c, o) in out.iter_mut().enumerate() {
            let l01 = f64x2::splat(v0[c]) + step[c];
            let l23 = l01 + dy[c];
            o[i] = to_f32_bits(l01 * inv01, l23 * inv23);
        }
    }
}

/// [`interpolate`] for one component (`out`: the run's lanes of its row).
fn interpolate1(num: &Plane, x0: f64, y0: f64, quads: &[Quad], inv: &[[f64; 4]], out: &mut [u32]) {
    let step = f64x2::from([-0.0, num.dx]);
    let dy = f64x2::splat(num.dy);
    for ((q, inv), out) in quads.iter().zip(inv).zip(out.as_chunks_mut::<4>().0) {
        let (ox, oy) = ((q.x as f64 + 0.5) - x0, (q.y as f64 + 0.5) - y0);
        let l01 = f64x2::splat(num.a + num.dx * ox + num.dy * oy) + step;
        let l23 = l01 + dy;
        *out = to_f32_bits(
            l01 * f64x2::from([inv[0], inv[1]]),
            l23 * f64x2::from([inv[2], inv[3]]),
        );
    }
}

/// Two f64 pairs rounded to f32 (`as f32`: round to nearest), as bits.
#[inline(always)]
fn to_f32_bits(a: f64x2, b: f64x2) -> [u32; 4] {
    let (a, b) = (a.to_array(), b.to_array());
    [
        (a[0] as f32).to_bits(),
        (a[1] as f32).to_bits(),
        (b[0] as f32).to_bits(),
        (b[1] as f32).to_bits(),
    ]
}

/// An attachment's tile rows as a batch's colour writes see them.
struct Texels<'v, 'r, 't> {
    codec: &'v ColorCodec,
    bpp: usize,
    rows: &'r mut [&'t mut [u8]],
    /// The tile's framebuffer origin.
    origin: (i32, i32),
}

/// The covered pixels of `quads` blended into an attachment (`eq`, `Equation::of`, with the
/// sources `src` and `src1`): the texels decoded into `br.dst`, the batch blended as rows,
/// the results encoded. 8-bit unorm RGBA and BGRA are decoded by table and encoded by the
/// plain writes' conversion (`write_rgba8`, the components reordered for BGRA), the other
/// formats texel by texel with the attachment's codec.
fn blend_quads(
    quads: &[Quad],
    eq: &Equation,
    src: [&[u32]; 4],
    src1: [&[u32]; 4],
    texels: Texels,
    br: &mut BlendRows,
    pixels: &mut [[u8; 16]; QUAD_BATCH],
) {
    let Texels {
        codec,
        bpp,
        rows,
        origin: (rx, ry),
    } = texels;
    let lanes = 4 * quads.len();
    let bgra = rgba8_order(codec.format);
    // Each covered lane's texel (the others' rows hold stale values or zeros no write reads).
    match bgra {
        Some(bgra) => decode_rgba8(quads, rows, (rx, ry), bgra, &mut br.dst),
        None => covered(quads, (rx, ry), |qi, k, lx, ly| {
            let d = codec.decode_f32(&rows[ly][lx * bpp..(lx + 1) * bpp]);
            for (row, d) in br.dst.iter_mut().zip(d) {
                row[qi * 4 + k] = d;
            }
        }),
    }
    br.blend(eq, src, src1, lanes);
    let out = br.out.each_ref().map(|r| &r[..lanes]);
    match bgra {
        Some(false) => write_rgba8(quads, out, rows, (rx, ry), pixels),
        Some(true) => write_rgba8(
            quads,
            [out[2], out[1], out[0], out[3]],
            rows,
            (rx, ry),
            pixels,
        ),
        None => {
            covered(quads, (rx, ry), |qi, k, lx, ly| {
                let v = out.map(|r| f32::from_bits(r[qi * 4 + k]));
                codec.encode_f32(v, &mut rows[ly][lx * bpp..(lx + 1) * bpp]);
            });
        }
    }
}

/// The texels under `quads` in an RGBA8 (`bgra`: BGRA8) unorm attachment's tile rows (tile
/// origin `(rx, ry)`) decoded into `dst` (lane `4 * quad + k` of each component's row, RGBA
/// order): `format::UNORM8`'s values, `b / 255` in f32, as the same division four lanes at a
/// time. A whole quad's texels are read as two 8-byte row pieces, a partly covered quad's
/// covered ones one by one (its other lanes decode zeros, which no write reads).
#[inline]
fn decode_rgba8(
    quads: &[Quad],
    rows: &[&mut [u8]],
    (rx, ry): (i32, i32),
    bgra: bool,
    dst: &mut [[f32; crate::raster::blend_rows::ROW]; 4],
) {
    // the byte shift of each component (R G B A) in a texel's little-endian word
    let shifts = match bgra {
        false => [0, 8, 16, 24],
        true => [16, 8, 0, 24],
    };
    let quads = &quads[..quads.len().min(QUAD_BATCH)];
    for (qi, q) in quads.iter().enumerate() {
        // Tile-local quad origins are even and below the tile side (as in `write_quads_rgba8`).
        let mask = (TILE - 2) as usize;
        let (lx0, ly0) = ((q.x - rx) as usize & mask, (q.y - ry) as usize & mask);
        let word = |ly: usize, lx: usize| -> u32 {
            let t = &rows[ly][lx * 4..lx * 4 + 4];
            u32::from_le_bytes([t[0], t[1], t[2], t[3]])
        };
        let px = if q.mask == 0xf {
            // two 8-byte row pieces, one length check each
            let pair = |ly: usize| -> u64 {
                let t = &rows[ly][lx0 * 4..lx0 * 4 + 8];
                u64::from_le_bytes([t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7]])
            };
            let (top, bottom) = (pair(ly0), pair(ly0 + 1));
            [
                top as u32,
                (top >> 32) as u32,
                bottom as u32,
                (bottom >> 32) as u32,
            ]
        } else {
            std::array::from_fn(|k| match q.mask >> k & 1 {
                0 => 0,
                _ => word(ly0 + (k >> 1), lx0 + (k & 1)),
            })
        };
        let px = u32x4::from(px);
        for (row, s) in dst.iter_mut().zip(shifts) {
            let b = i32x4::from(wide::bytemuck::cast::<u32x4, [i32; 4]>(
                (px >> s) & u32x4::splat(0xff),
            ));
            let v = b.round_float() / f32x4::splat(255.0);
            row[qi * 4..qi * 4 + 4].copy_from_slice(&v.to_array());
        }
    }
}

/// For the 8-bit unorm four-component formats the RGBA8 kernels write, whether the bytes are
/// in BGRA order (`Some(true)`) or RGBA (`Some(false)`); `None` for every other format.
pub(super) fn rgba8_order(format: Format) -> Option<bool> {
    match format {
        Format::R8G8B8A8_UNORM => Some(false),
        Format::B8G8R8A8_UNORM => Some(true),
        _ => None,
    }
}

/// Calls `f(quad, lane, x, y)` for the covered lanes of `quads` in a tile whose framebuffer
/// origin is `(rx, ry)` (x, y in the tile), lanes in quad order: a bit walk of each mask,
/// inlined into the caller's loop.
#[inline(always)]
fn covered(quads: &[Quad], (rx, ry): (i32, i32), mut f: impl FnMut(usize, usize, usize, usize)) {
    for (qi, q) in quads.iter().enumerate() {
        let (lx0, ly0) = ((q.x - rx) as usize, (q.y - ry) as usize);
        let mut m = q.mask;
        while m != 0 {
            let k = m.trailing_zeros() as usize;
            m &= m - 1;
            f(qi, k, lx0 + (k & 1), ly0 + (k >> 1));
        }
    }
}

/// The covered pixels of `quads` into a plain (no blend, full write mask) RGBA8 unorm
/// attachment's tile rows, from the four component rows of its output. `pixels`: room for
/// the converted quads (kept by the tile shader, so no batch zero-fills a kilobyte).
#[inline]
fn write_rgba8(
    quads: &[Quad],
    src: [&[u32]; 4],
    rows: &mut [&mut [u8]],
    (rx, ry): (i32, i32),
    pixels: &mut [[u8; 16]; QUAD_BATCH],
) {
    let pixels = convert_rgba8(quads.len(), src, pixels);
    // Block by block: a run of 16 quads that is a whole 8x8 block takes the row stores.
    for (quads, pixels) in quads.chunks(BLOCK_QUADS).zip(pixels.chunks(BLOCK_QUADS)) {
        if !whole_block_rgba8(quads, pixels, rows, rx, ry) {
            write_quads_rgba8(quads, pixels, rows, rx, ry);
        }
    }
}

/// The first `nq` quads' colours (four component rows of f32 bits) as RGBA8 unorm pixels,
/// four bytes per lane in lane order, into `pixels`; returns the converted part. Every
/// quad converted in a loop of its own (one with the stores into the tile rows next to it
/// runs out of registers).
#[inline]
pub(super) fn convert_rgba8<'p>(
    nq: usize,
    src: [&[u32]; 4],
    pixels: &'p mut [[u8; 16]; QUAD_BATCH],
) -> &'p mut [[u8; 16]] {
    let c: [&[[u32; 4]]; 4] = src.map(|r| r.as_chunks::<4>().0);
    let nq = c.iter().fold(nq, |n, r| n.min(r.len()));
    let (c0, c1, c2, c3) = (&c[0][..nq], &c[1][..nq], &c[2][..nq], &c[3][..nq]);
    let pixels = &mut pixels[..nq.min(QUAD_BATCH)];
    // Four quads at a time where there are four (`unorm8_rows4`), the rest one by one.
    let g: [&[[u32; 16]]; 4] = src.map(|r| r.as_chunks::<16>().0);
    let groups = g.iter().fold(pixels.len() / 4, |n, r| n.min(r.len()));
    let (g0, g1, g2, g3) = (
        &g[0][..groups],
        &g[1][..groups],
        &g[2][..groups],
        &g[3][..groups],
    );
    let (four, rest) = pixels.split_at_mut(groups * 4);
    let four = four.as_chunks_mut::<4>().0;
    #[cfg(target_arch = "x86_64")]
    let avx2 = crate::cpu::avx2();
    #[cfg(not(target_arch = "x86_64"))]
    let avx2 = false;
    if avx2 {
        // SAFETY: the CPU has AVX2 (`cpu::avx2()` is true only then)
        #[cfg(target_arch = "x86_64")]
        unsafe {
            unorm8_groups_avx2(four, [g0, g1, g2, g3])
        };
    } else {
        unorm8_groups(four, [g0, g1, g2, g3]);
    }
    for (i, px) in rest.iter_mut().enumerate() {
        let i = groups * 4 + i;
        *px = unorm8_rows([c0[i], c1[i], c2[i], c3[i]]);
    }
    pixels
}

/// The covered pixels of `quads` (converted to `pixels`) quad by quad.
#[inline]
fn write_quads_rgba8(
    quads: &[Quad],
    pixels: &[[u8; 16]],
    rows: &mut [&mut [u8]],
    rx: i32,
    ry: i32,
) {
    write_quads::<4, 16>(quads, pixels.iter().copied(), rows, (rx, ry));
}

/// Whether `format`'s texels are four 32-bit words stored as the shader's output words
/// (what `write_color` does for them without blending is a copy).
fn format_is_4x32(format: Format) -> bool {
    matches!(
        format,
        Format::R32G32B32A32_SFLOAT | Format::R32G32B32A32_UINT | Format::R32G32B32A32_SINT
    )
}

/// The covered pixels of `quads` for an attachment of four 32-bit words per texel without
/// blending or write mask: each quad's four component rows transposed to four 16-byte pixels
/// (shuffles: the words' bits untouched), then written as [`write_quads`] writes them.
fn write_4x32(quads: &[Quad], src: [&[u32]; 4], rows: &mut [&mut [u8]], origin: (i32, i32)) {
    let [c0, c1, c2, c3] = src.map(|r| r.as_chunks::<4>().0);
    let pixels = c0.iter().zip(c1).zip(c2).zip(c3).map(|(((r, g), b), a)| {
        let v = f32x4::transpose([r, g, b, a].map(|w| f32x4::from(w.map(f32::from_bits))));
        wide::bytemuck::cast::<[f32x4; 4], [u8; 64]>(v)
    });
    write_quads::<16, 64>(quads, pixels, rows, origin);
}

/// The covered pixels of `quads`, quad by quad: `pixels` gives each quad's four pixels of `B`
/// bytes (`Q` = 4·`B`), lanes 0 1 2 3; a whole quad is two row pieces of `2B` bytes, a partly
/// covered one its covered pixels' pieces.
#[inline(always)]
fn write_quads<const B: usize, const Q: usize>(
    quads: &[Quad],
    pixels: impl Iterator<Item = [u8; Q]>,
    rows: &mut [&mut [u8]],
    (rx, ry): (i32, i32),
) {
    const { assert!(Q == 4 * B) };
    for (q, px) in quads.iter().zip(pixels) {
        // Tile-local quad origins are even and below the tile side, so the masks change no
        // value; they bound the offsets, which leaves one length check per row piece (no
        // overflow checks of unbounded offsets).
        let mask = (TILE - 2) as usize;
        let (lx0, ly0) = ((q.x - rx) as usize & mask, (q.y - ry) as usize & mask);
        if q.mask == 0xf {
            // A whole quad: two row pieces.
            let [top, bottom] = &mut rows[ly0..ly0 + 2] else {
                unreachable!("a whole quad covers two rows");
            };
            let x = lx0 * B;
            top[x..x + 2 * B].copy_from_slice(&px[..2 * B]);
            bottom[x..x + 2 * B].copy_from_slice(&px[2 * B..]);
            continue;
        }
        // A partly covered quad: the covered pixels' pieces.
        for k in 0..4usize {
            if q.mask & (1 << k) != 0 {
                let (lx, ly) = (lx0 + (k & 1), ly0 + (k >> 1));
                rows[ly][lx * B..lx * B + B].copy_from_slice(&px[k * B..k * B + B]);
            }
        }
    }
}

/// A 16-quad run of a batch that is a whole 8x8 block in block order (what the tile walk
/// makes of a block inside the primitive) written as eight 32-byte row pieces, four quads'
/// halves each; false (nothing written) for any other run (a block that starts mid-run takes
/// the per-quad stores, which write the same bytes). Out of line: inlined, it made the depth
/// scene's shading loops dearer (+7 M).
#[inline(never)]
fn whole_block_rgba8(
    quads: &[Quad],
    pixels: &[[u8; 16]],
    rows: &mut [&mut [u8]],
    rx: i32,
    ry: i32,
) -> bool {
    let ([first, ..], true) = (
        quads,
        quads.len() == BLOCK_QUADS && pixels.len() == BLOCK_QUADS,
    ) else {
        return false;
    };
    let (bx, by) = (first.x, first.y);
    // most other batches already fail at their last quad
    let last = &quads[BLOCK_QUADS - 1];
    if (last.x, last.y, last.mask & first.mask) != (bx + 6, by + 6, 0xf) {
        return false;
    }
    let block = quads.iter().enumerate().fold(true, |ok, (i, q)| {
        let (dx, dy) = (2 * (i as i32 & 3), 2 * (i as i32 >> 2));
        ok & (q.mask == 0xf) & (q.x == bx + dx) & (q.y == by + dy)
    });
    if !block {
        return false;
    }
    let (lx0, ly0) = ((bx - rx) as usize, (by - ry) as usize);
    for (r, row) in rows[ly0..ly0 + 8].iter_mut().enumerate() {
        let piece = &mut row[lx0 * 4..][..32];
        let half = (r & 1) * 8;
        for (j, px) in pixels[(r >> 1) * 4..][..4].iter().enumerate() {
            piece[j * 8..j * 8 + 8].copy_from_slice(&px[half..half + 8]);
        }
    }
    true
}

/// A quad's four lanes of R, G, B and A (f32 bits) as R8G8B8A8 unorm pixels, lanes 0 1 2 3,
/// with exactly [`unorm8`]'s bytes: the rows transposed to pixels (shuffles move the bits
/// untouched), the fast conversion steps and two saturating packs to bytes, and the exact
/// steps again when the fast ones met a value they cannot round (`format::unorm8`).
#[inline]
pub(crate) fn unorm8_rows(c: [[u32; 4]; 4]) -> [u8; 16] {
    let v = f32x4::transpose(c.map(|w| f32x4::from(w.map(f32::from_bits))));
    let (px, worst) = unorm8_pixels::<false>(v);
    match unorm8_redo(worst) {
        true => unorm8_pixels::<true>(v).0,
        false => px,
    }
}

/// [`unorm8_rows`]' conversion of four pixels' RGBA, with its steps' running maximum.
#[inline(always)]
fn unorm8_pixels<const EXACT: bool>(v: [f32x4; 4]) -> ([u8; 16], Worst4) {
    let mut worst = Worst4::ZERO;
    let px = v.map(|v| unorm8_x4::<EXACT>(v, &mut worst));
    let lo = i16x8::from_i32x8_saturate(wide::bytemuck::cast::<[i32x4; 2], i32x8>([px[0], px[1]]));
    let hi = i16x8::from_i32x8_saturate(wide::bytemuck::cast::<[i32x4; 2], i32x8>([px[2], px[3]]));
    (u8x16::narrow_i16x8(lo, hi).to_array(), worst)
}

/// [`unorm8_rows`] for groups of four quads (`g[c][j]`: group `j`'s 16 lanes of component
/// `c`), the plain SSE2 form of [`unorm8_groups_avx2`]. Out of line: on AVX2 machines it is
/// never called, and inlined it made its caller too large to inline.
#[inline(never)]
fn unorm8_groups(px: &mut [[[u8; 16]; 4]], g: [&[[u32; 16]]; 4]) {
    let kernel = |exact: bool, c: [&[u32; 16]; 4], worst: &mut Worst4| match exact {
        false => unorm8_rows4::<false>(c, worst),
        true => unorm8_rows4::<true>(c, worst),
    };
    each_group(px, g, Worst4::ZERO, kernel, unorm8_redo);
}

/// Every group of four quads through `kernel` with the fast steps (`false`), folding their
/// running maximum into a `W` that starts at `zero`, and all again with the exact steps
/// (`true`) if `redo` says they met a value they cannot round. Inlined into each form.
#[inline(always)]
fn each_group<W: Copy>(
    px: &mut [[[u8; 16]; 4]],
    g: [&[[u32; 16]]; 4],
    zero: W,
    mut kernel: impl FnMut(bool, [&[u32; 16]; 4], &mut W) -> [[u8; 16]; 4],
    redo: impl Fn(W) -> bool,
) {
    let mut worst = zero;
    let mut run = |exact: bool, worst: &mut W| {
        let groups = g[0].iter().zip(g[1]).zip(g[2]).zip(g[3]);
        for (px, (((r, g), b), a)) in px.iter_mut().zip(groups) {
            *px = kernel(exact, [r, g, b, a], worst);
        }
    };
    run(false, &mut worst);
    if redo(worst) {
        run(true, &mut worst);
    }
}

/// Four quads (16 lanes of each component row) as [`unorm8_rows`] converts one: each row
/// converted and packed to 16 bytes as it is (no transpose of floats), then the bytes
/// interleaved into pixels: R with B and G with A, then those pairs (byte unpacks only):
/// fewer instructions per quad than the per-quad form.
#[inline(always)]
fn unorm8_rows4<const EXACT: bool>(c: [&[u32; 16]; 4], worst: &mut Worst4) -> [[u8; 16]; 4] {
    let mut conv = |w: &[u32; 16]| {
        let mut q = |i: usize| {
            let v = f32x4::from([w[i], w[i + 1], w[i + 2], w[i + 3]].map(f32::from_bits));
            unorm8_x4::<EXACT>(v, worst)
        };
        let lo = wide::bytemuck::cast::<[i32x4; 2], i32x8>([q(0), q(4)]);
        let hi = wide::bytemuck::cast::<[i32x4; 2], i32x8>([q(8), q(12)]);
        u8x16::narrow_i16x8(
            i16x8::from_i32x8_saturate(lo),
            i16x8::from_i32x8_saturate(hi),
        )
    };
    let (r, g, b, a) = (conv(c[0]), conv(c[1]), conv(c[2]), conv(c[3]));
    let (rb_lo, rb_hi) = (u8x16::unpack_low(r, b), u8x16::unpack_high(r, b));
    let (ga_lo, ga_hi) = (u8x16::unpack_low(g, a), u8x16::unpack_high(g, a));
    [
        u8x16::unpack_low(rb_lo, ga_lo).to_array(),
        u8x16::unpack_high(rb_lo, ga_lo).to_array(),
        u8x16::unpack_low(rb_hi, ga_hi).to_array(),
        u8x16::unpack_high(rb_hi, ga_hi).to_array(),
    ]
}

/// [`unorm8_rows4`] in 256-bit AVX2 forms, the same operations per value: lanes 0-7 and
/// then 8-15 of the four rows converted and made pixels by [`rgba8_pixels_avx2`] (the
/// pixels of quads 0 1, then 2 3).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn unorm8_rows4_avx2<const EXACT: bool>(c: [&[u32; 16]; 4], worst: &mut Worst8) -> [[u8; 16]; 4] {
    use std::arch::x86_64::*;
    use wide::bytemuck::cast;
    let c = c.map(|w| cast::<[u32; 16], [__m256; 2]>(*w));
    let mut half = |h: usize| {
        let mut conv = |c: &[__m256; 2]| unorm8_x8_avx2::<EXACT>(c[h], worst);
        let (r, g, b, a) = (conv(&c[0]), conv(&c[1]), conv(&c[2]), conv(&c[3]));
        cast::<__m256i, [[u8; 16]; 2]>(rgba8_pixels_avx2(r, g, b, a))
    };
    let (lo, hi) = (half(0), half(1));
    [lo[0], lo[1], hi[0], hi[1]]
}

/// Eight pixels' R, G, B and A as i32 lanes (a conversion step's, in pixel order) as 32
/// bytes of RGBA8 pixels: saturating packs to i16 and u8, which leave each 128-bit half as
/// R0-3 G0-3 B0-3 A0-3, then one byte shuffle into R0 G0 B0 A0 R1 ...
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn rgba8_pixels_avx2(
    r: std::arch::x86_64::__m256i,
    g: std::arch::x86_64::__m256i,
    b: std::arch::x86_64::__m256i,
    a: std::arch::x86_64::__m256i,
) -> std::arch::x86_64::__m256i {
    use std::arch::x86_64::*;
    let to_pixels = _mm256_setr_epi8(
        0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15, //
        0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15,
    );
    let (rg, ba) = (_mm256_packs_epi32(r, g), _mm256_packs_epi32(b, a));
    _mm256_shuffle_epi8(_mm256_packus_epi16(rg, ba), to_pixels)
}

/// [`unorm8_groups`] with AVX2, in one function (the per-group kernel cannot be inlined
/// into a caller without AVX2).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn unorm8_groups_avx2(px: &mut [[[u8; 16]; 4]], g: [&[[u32; 16]]; 4]) {
    let kernel = |exact: bool, c: [&[u32; 16]; 4], worst: &mut Worst8| match exact {
        false => unorm8_rows4_avx2::<false>(c, worst),
        true => unorm8_rows4_avx2::<true>(c, worst),
    };
    let zero = std::arch::x86_64::_mm256_setzero_ps();
    each_group(px, g, zero, kernel, |w| unorm8_redo_avx2(w));
}

/// `v` as `len` zero (default) values, keeping its allocation.
#[inline]
pub(super) fn zeroed<T: Copy + Default>(v: &mut Vec<T>, len: usize) {
    v.truncate(len);
    v.fill(T::default());
    v.resize(len, T::default());
}

/// Pixel-centre x of lane `k` of a quad.
#[inline]
pub(super) fn lane_x(q: &Quad, k: usize) -> f64 {
    (q.x + (k & 1) as i32) as f64 + 0.5
}

/// Pixel-centre y of lane `k` of a quad.
#[inline]
pub(super) fn lane_y(q: &Quad, k: usize) -> f64 {
    (q.y + (k >> 1) as i32) as f64 + 0.5
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unorm8_rows_matches_the_per_pixel_conversion() {
        let mut values = vec![
            f32::NAN,
            -f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            0.0,
            -0.0,
            1.0,
            -1.0,
            2.0,
            f32::MIN_POSITIVE,
            f32::MAX,
            f32::MIN,
        ];
        // Around every rounding boundary (k + 0.5) / 255 and every exact k / 255, a few ulps
        // either side.
        for k in 0..=256u32 {
            for centre in [k as f32 / 255.0, (k as f32 + 0.5) / 255.0] {
                let b = centre.to_bits() as i64;
                for d in -4..=4i64 {
                    values.push(f32::from_bits((b + d).clamp(0, u32::MAX as i64) as u32));
                }
            }
        }
        // A strided sweep over every bit pattern (both signs, all exponents).
        values.extend((0..=u32::MAX).step_by(65_521).map(f32::from_bits));
        for chunk in values.chunks(16) {
            // component rows: rows[c][lane]
            let mut rows = [[0u32; 4]; 4];
            for (i, v) in chunk.iter().enumerate() {
                rows[i % 4][i / 4] = v.to_bits();
            }
            let got = unorm8_rows(rows);
            for (lane, px) in got.chunks_exact(4).enumerate() {
                for (c, &b) in px.iter().enumerate() {
                    let v = f32::from_bits(rows[c][lane]);
                    assert_eq!(b, unorm8(v), "{v:?}");
                }
            }
            // the four-quad form: these values as quad 1 of four, the others rotated
            let rows16: [[u32; 16]; 4] = std::array::from_fn(|c| {
                std::array::from_fn(|l| rows[(c + l / 4) % 4][l % 4] ^ (l as u32 / 4 % 2))
            });
            let groups = rows16.map(|r| [r]);
            let groups = [&groups[0][..], &groups[1], &groups[2], &groups[3]];
            let mut forms = vec![[[0u8; 16]; 4]];
            unorm8_groups(&mut forms[..1], groups);
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                forms.push([[0; 16]; 4]);
                // SAFETY: the CPU has AVX2 (detected just above)
                unsafe { unorm8_groups_avx2(&mut forms[1..], groups) };
            }
            for got4 in forms {
                for (q, px) in got4.iter().enumerate() {
                    for (i, &b) in px.iter().enumerate() {
                        let v = f32::from_bits(rows16[i % 4][4 * q + i / 4]);
                        assert_eq!(b, unorm8(v), "{v:?}: quad {q}");
                    }
                }
            }
        }
    }

    /// A plane of random size and sign, sometimes a special one (zero, -0, huge, tiny, NaN).
    fn plane(r: &mut fastrand::Rng, x0: f64, y0: f64) -> Plane {
        let mut v = || match (r.f64() * 12.0) as u32 {
            0 => 0.0,
            1 => -0.0,
            2 => 1e300 * (r.f64() - 0.5),
            3 => 1e-300 * (r.f64() - 0.5),
            4 if r.f64() < 0.1 => f64::NAN,
            _ => (r.f64() - 0.5) * 10f64.powi((r.f64() * 8.0) as i32 - 4),
        };
        Plane {
            x0,
            y0,
            a: v(),
            dx: v(),
            dy: v(),
        }
    }

    /// The row kernels against the per-lane expressions they replace: per lane `quad_values`
    /// (lane 0 `Plane::at`, the others its steps) of the numerator times `1 / d` of the
    /// denominator's (1 where d is 0), rounded to f32, bit for bit.
    #[test]
    fn row_interpolation_matches_the_per_lane_expressions() {
        let mut r = fastrand::Rng::with_seed(5);
        let prim = super::super::tests::dummy(0);
        for case in 0..3000 {
            let (x0, y0) = (r.f64() * 900.0, r.f64() * 900.0);
            let den = if case % 7 == 0 {
                Plane::constant(0.0)
            } else {
                plane(&mut r, x0, y0)
            };
            let num: [Plane; 4] = std::array::from_fn(|_| plane(&mut r, x0, y0));
            let nq = 1 + (r.f64() * QUAD_BATCH as f64) as usize % QUAD_BATCH;
            let quads: Vec<Quad> = (0..nq)
                .map(|_| Quad {
                    x: 2 * (r.f64() * 500.0) as i32,
                    y: 2 * (r.f64() * 500.0) as i32,
                    mask: 0xf,
                    prim: 0,
                    p: &prim,
                })
                .collect();
            let mut inv = [[0.0; 4]; QUAD_BATCH];
            reciprocals(&den, x0, y0, &quads, &mut inv[..nq]);
            let mut rows = vec![0u32; 4 * 4 * nq];
            let (r01, r23) = rows.split_at_mut(8 * nq);
            let (r0, r1) = r01.split_at_mut(4 * nq);
            let (r2, r3) = r23.split_at_mut(4 * nq);
            interpolate(
                &num,
                &den,
                false,
                x0,
                y0,
                &quads,
                &mut inv[..nq],
                [r0, r1, r2, r3],
            );
            // the fused form: the same rows, and the same reciprocals stored
            let mut fused_inv = [[0.0; 4]; QUAD_BATCH];
            let mut fused = vec![0u32; 4 * 4 * nq];
            let (r01, r23) = fused.split_at_mut(8 * nq);
            let (r0, r1) = r01.split_at_mut(4 * nq);
            let (r2, r3) = r23.split_at_mut(4 * nq);
            interpolate(
                &num,
                &den,
                true,
                x0,
                y0,
                &quads,
                &mut fused_inv[..nq],
                [r0, r1, r2, r3],
            );
            assert_eq!(fused, rows, "case {case}: fused reciprocals");
            // the portable kernel (the dispatched one is AVX2 where the CPU has it)
            for fuse in [false, true] {
                let mut p_inv = if fuse { [[0.0; 4]; QUAD_BATCH] } else { inv };
                let mut portable = vec![0u32; 4 * 4 * nq];
                let (r01, r23) = portable.split_at_mut(8 * nq);
                let (r0, r1) = r01.split_at_mut(4 * nq);
                let (r2, r3) = r23.split_at_mut(4 * nq);
                interpolate_sse2(
                    &num,
                    &den,
                    fuse,
                    x0,
                    y0,
                    &quads,
                    &mut p_inv[..nq],
                    [r0, r1, r2, r3],
                );
                assert_eq!(portable, rows, "case {case}: portable kernel");
                assert_eq!(
                    p_inv.map(|v| v.map(f64::to_bits)),
                    inv.map(|v| v.map(f64::to_bits)),
                    "case {case}: portable reciprocals"
                );
            }
            assert_eq!(
                fused_inv.map(|v| v.map(f64::to_bits)),
                inv.map(|v| v.map(f64::to_bits)),
                "case {case}"
            );
            let mut one = vec![0u32; 4 * nq];
            interpolate1(&num[2], x0, y0, &quads, &inv[..nq], &mut one);
            // two and three leading components: the first rows of the four-component run
            let (mut two, mut three) = (vec![0u32; 4 * 2 * nq], vec![0u32; 4 * 3 * nq]);
            let (t0, t1) = two.split_at_mut(4 * nq);
            let fresh = case % 2 == 0;
            let mut inv2 = if fresh { [[0.0; 4]; QUAD_BATCH] } else { inv };
            interpolate(
                &[num[0], num[1]],
                &den,
                fresh,
                x0,
                y0,
                &quads,
                &mut inv2[..nq],
                [t0, t1],
            );
            assert_eq!(two[..], rows[..8 * nq], "case {case}: two components");
            let (t0, rest) = three.split_at_mut(4 * nq);
            let (t1, t2) = rest.split_at_mut(4 * nq);
            let num3 = [num[0], num[1], num[2]];
            interpolate(
                &num3,
                &den,
                false,
                x0,
                y0,
                &quads,
                &mut inv2[..nq],
                [t0, t1, t2],
            );
            assert_eq!(three[..], rows[..12 * nq], "case {case}: three components");
            for (qi, q) in quads.iter().enumerate() {
                let d = quad_values(&den, q);
                let want_inv = d.map(|d| if d == 0.0 { 1.0 } else { 1.0 / d });
                assert_eq!(
                    inv[qi].map(f64::to_bits),
                    want_inv.map(f64::to_bits),
                    "case {case} quad {qi}: reciprocals"
                );
                for (c, num) in num.iter().enumerate() {
                    let v = quad_values(num, q);
                    for k in 0..4 {
                        let want = ((v[k] * want_inv[k]) as f32).to_bits();
                        assert_eq!(rows[c * 4 * nq + 4 * qi + k], want, "case {case} c {c}");
                        if c == 2 {
                            assert_eq!(one[4 * qi + k], want, "case {case}: interpolate1");
                        }
                    }
                }
            }
        }
    }

    /// The RGBA8 writes (whole-block rows, whole quads, partial quads) against a pixel-by-pixel
    /// write of `unorm8` values, and the four-32-bit-word writes against a per-pixel copy, for
    /// a whole block in block order, the same quads out of order, and a block with a partly
    /// covered quad.
    #[test]
    fn colour_writes_match_a_per_pixel_write() {
        let mut r = fastrand::Rng::with_seed(9);
        let prim = super::super::tests::dummy(0);
        // a full batch of whole blocks at distinct places in a 64x64 tile (11 is prime to
        // the 64 block places), some blocks with two quads swapped or one partly covered
        for case in 0..60 {
            let mut quads: Vec<Quad> = Vec::new();
            for b in 0..QUAD_BATCH / BLOCK_QUADS {
                let place = (case * 5 + b * 11) % 64;
                let (bx, by) = (8 * (place % 8) as i32, 8 * (place / 8) as i32);
                let n = quads.len();
                quads.extend((0..BLOCK_QUADS as i32).map(|i| Quad {
                    x: bx + 2 * (i & 3),
                    y: by + 2 * (i >> 2),
                    mask: 0xf,
                    prim: 0,
                    p: &prim,
                }));
                match (case + b) % 3 {
                    1 => quads.swap(n + 3, n + 9),
                    2 => quads[n + 5].mask = 0b1001,
                    _ => {}
                }
            }
            // and batches one quad short
            if case % 4 == 3 {
                quads.pop();
            }
            let lanes = 4 * QUAD_BATCH;
            let src: Vec<Vec<u32>> = (0..4)
                .map(|_| {
                    (0..lanes)
                        .map(|_| ((r.f64() * 1.4 - 0.2) as f32).to_bits())
                        .collect()
                })
                .collect();
            let mut got = vec![vec![7u8; 256]; 64];
            let mut want = got.clone();
            let mut rows: Vec<&mut [u8]> = got.iter_mut().map(|v| &mut v[..]).collect();
            // room left with other pixels, as a previous batch leaves it
            let mut room = [[0x5a; 16]; QUAD_BATCH];
            let src = std::array::from_fn(|c| &src[c][..]);
            write_rgba8(&quads, src, &mut rows, (0, 0), &mut room);
            for (qi, q) in quads.iter().enumerate() {
                for k in 0..4 {
                    if q.mask & (1 << k) != 0 {
                        let (x, y) = (q.x as usize + (k & 1), q.y as usize + (k >> 1));
                        for c in 0..4 {
                            want[y][4 * x + c] = unorm8(f32::from_bits(src[c][4 * qi + k]));
                        }
                    }
                }
            }
            assert_eq!(got, want, "case {case}");

            // the same quads as four 32-bit words per texel: every bit pattern copied (NaNs
            // with payloads too)
            let words: [Vec<u32>; 4] = std::array::from_fn(|c| {
                src[c]
                    .iter()
                    .map(|&w| match r.u8(..) % 4 {
                        0 => 0x7f80_0001 | r.u32(..) & 0x807f_ffff,
                        _ => w,
                    })
                    .collect()
            });
            let mut got = vec![vec![7u8; 1024]; 64];
            let mut want = got.clone();
            let mut rows: Vec<&mut [u8]> = got.iter_mut().map(|v| &mut v[..]).collect();
            write_4x32(
                &quads,
                std::array::from_fn(|c| &words[c][..]),
                &mut rows,
                (0, 0),
            );
            for (qi, q) in quads.iter().enumerate() {
                for k in 0..4 {
                    if q.mask & (1 << k) != 0 {
                        let (x, y) = (q.x as usize + (k & 1), q.y as usize + (k >> 1));
                        for c in 0..4 {
                            let b = words[c][4 * qi + k].to_le_bytes();
                            want[y][16 * x + 4 * c..][..4].copy_from_slice(&b);
                        }
                    }
                }
            }
            assert_eq!(got, want, "case {case}: four 32-bit words");
        }
    }

    #[test]
    fn rgba8_texels_decode_as_bytes_over_255() {
        let mut r = fastrand::Rng::with_seed(17);
        let prim = super::super::tests::dummy(0);
        for case in 0..40 {
            let bgra = case % 2 == 1;
            // quads at distinct places of a 64x64 tile at (64, 128), whole or partly covered
            let quads: Vec<Quad> = (0..QUAD_BATCH - case % 3)
                .map(|i| {
                    let place = (i * 37 + case * 5) % 1024;
                    Quad {
                        x: 64 + 2 * (place % 32) as i32,
                        y: 128 + 2 * (place / 32) as i32,
                        mask: match r.u8(0..4) {
                            0 => r.u8(1..16),
                            _ => 0xf,
                        },
                        prim: 0,
                        p: &prim,
                    }
                })
                .collect();
            let mut tile: Vec<Vec<u8>> = (0..64)
                .map(|_| (0..256).map(|_| r.u8(..)).collect())
                .collect();
            let mut rows: Vec<&mut [u8]> = tile.iter_mut().map(|v| &mut v[..]).collect();
            let mut dst = [[f32::NAN; crate::raster::blend_rows::ROW]; 4];
            decode_rgba8(&quads, &rows, (64, 128), bgra, &mut dst);
            let rows = &mut rows;
            for (qi, q) in quads.iter().enumerate() {
                for k in (0..4).filter(|k| q.mask >> k & 1 != 0) {
                    let (x, y) = (q.x as usize - 64 + (k & 1), q.y as usize - 128 + (k >> 1));
                    let texel = &rows[y][4 * x..4 * x + 4];
                    for (c, row) in dst.iter().enumerate() {
                        let byte = match (bgra, c) {
                            (true, 0) => texel[2],
                            (true, 2) => texel[0],
                            _ => texel[c],
                        };
                        let want = byte as f32 / 255.0;
                        assert_eq!(row[4 * qi + k].to_bits(), want.to_bits(), "case {case}");
                    }
                }
            }
        }
    }

    #[test]
    fn layouts_naming_missing_rows_are_reported() {
        let mut l = RowLayout::quad_batch(2, 1);
        assert_eq!(layout_error(&l), None);
        l.colors[0][3] = Some(l.rows as u32);
        assert!(layout_error(&l).unwrap().contains("names row"));
    }
}
